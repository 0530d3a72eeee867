#!/bin/bash
# test_rpcinfo_showmount.sh - the built-in portmapper seen by stock clients: rpcinfo lists
# portmap, NFS v3 (TCP and UDP) and MOUNT; rpcinfo pings NFS and MOUNT; showmount -e lists
# both exports of an exports file.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/one" "$T/two"
cat >"$T/exports" <<EOT
# two exports
$T/one *(rw,no_root_squash)
$T/two 127.0.0.1(ro)
EOT
start_server srv --exports "$T/exports" --state-dir "$T/state" || it_done
check portmap-port 111 "$PORTMAP_PORT"

out=$(rpcinfo -p 127.0.0.1 2>&1)
printf '%s\n' "$out" | sed 's/^/    /'
has() { # has PROG VERS PROTO PORT
	printf '%s\n' "$out" | awk -v p="$1" -v v="$2" -v t="$3" -v n="$4" \
		'$1 == p && $2 == v && $3 == t && (n == "" || $4 == n) { f = 1 } END { exit !f }'
}
for want in "100000 2 tcp 111" "100000 2 udp 111" "100003 3 tcp $NFS_PORT" \
	"100003 3 udp $NFS_PORT" "100005 3 tcp $MOUNT_PORT" "100005 3 udp $MOUNT_PORT" \
	"100005 1 tcp $MOUNT_PORT"; do
	# shellcheck disable=SC2086
	if has $want; then ok "rpcinfo-p: $want"; else fail "rpcinfo-p: expected a line '$want'"; fi
done

for spec in "-t nfs 3" "-u nfs 3" "-t mountd 3" "-u mountd 3" "-t portmapper 2"; do
	# shellcheck disable=SC2086
	if out=$(rpcinfo ${spec%% *} 127.0.0.1 ${spec#* } 2>&1); then
		ok "rpcinfo $spec: $out"
	else
		fail "rpcinfo $spec: expected 'ready and waiting' got '$out'"
	fi
done

out=$(showmount -e 127.0.0.1 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/    /'
check showmount-exit 0 "$rc"
for d in "$T/one" "$T/two"; do
	if printf '%s\n' "$out" | grep -q "^$d "; then
		ok "showmount-lists $d"
	else
		fail "showmount-lists: expected a line for $d"
	fi
done

stop_server srv
it_done
