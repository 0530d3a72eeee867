#!/bin/bash
# test_restart.sh - handles survive a restart with the same --state-dir (GETATTR, LOOKUP
# and READ through handles minted by the first run), the write verifier changes with each
# restart, and a different state dir makes the old handles invalid.
. "$(dirname "$0")/lib.sh"

exp=$T/export
mkdir -p "$exp/sub"
start_server first --state-dir "$T/state" "$exp" || it_done
out=$("$TOOLS/nfs3_procs" write-stable 127.0.0.1 "$exp" data 4 2 2>&1)
check first-writes 6 "$(field "$out" acked)"
verf1=$(field "$out" verf)
root=$(field "$("$TOOLS/nfs3_procs" fh 127.0.0.1 "$exp")" fh)
file=$(field "$("$TOOLS/nfs3_procs" fh 127.0.0.1 "$exp" data)" fh)
sub=$(field "$("$TOOLS/nfs3_procs" fh 127.0.0.1 "$exp" sub)" fh)
if [ -z "$root" ] || [ -z "$file" ] || [ -z "$sub" ]; then
	fail "handles: expected handles for the root, data and sub got '$root' '$file' '$sub'"
	it_done
fi
ok "handles: root $root"
stop_server first

start_server second --state-dir "$T/state" "$exp" || it_done
# No MNT: a client that survived the restart just keeps using its handles.
out=$("$TOOLS/nfs3_procs" getattr 127.0.0.1 - "$root")
check root-getattr-after-restart NFS3_OK "$(printf '%s\n' "$out" | head -n 1)"
out=$("$TOOLS/nfs3_procs" getattr 127.0.0.1 - "$sub")
check dir-getattr-after-restart NFS3_OK "$(printf '%s\n' "$out" | head -n 1)"
out=$("$TOOLS/nfs3_procs" read 127.0.0.1 - "$file")
check file-read-after-restart NFS3_OK "$(printf '%s\n' "$out" | head -n 1)"
check file-read-size-after-restart "24576" "$(field "$out" count | cut -d' ' -f1)"
out=$("$TOOLS/nfs3_procs" lookup 127.0.0.1 - "$root" data)
check lookup-same-handle "$file" "$(field "$out" fh)"
mnt=$("$TOOLS/nfs3_procs" mount 127.0.0.1 "$exp")
check mnt-same-root-handle "$root" "$(field "$mnt" MNT3_OK)"
run_tool verify-after-restart "$TOOLS/nfs3_procs" verify 127.0.0.1 "$exp" data 6
out=$("$TOOLS/nfs3_procs" write-stable 127.0.0.1 "$exp" data2 1 1 2>&1)
verf2=$(field "$out" verf)
if [ -n "$verf1" ] && [ -n "$verf2" ] && [ "$verf1" != "$verf2" ]; then
	ok "write-verifier-changed: $verf1 -> $verf2"
else
	fail "write-verifier-changed: expected a new verifier after restart got '$verf1' then '$verf2'"
fi
stop_server second

start_server other --state-dir "$T/state-other" "$exp" || it_done
st=$("$TOOLS/nfs3_procs" getattr 127.0.0.1 - "$file" | head -n 1)
case $st in
NFS3ERR_STALE | NFS3ERR_BADHANDLE) ok "other-state-dir-refuses-old-handle: $st" ;;
*) fail "other-state-dir-refuses-old-handle: expected NFS3ERR_STALE or NFS3ERR_BADHANDLE got $st" ;;
esac
stop_server other
it_done
