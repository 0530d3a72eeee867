#!/bin/bash
# test_config.sh - the command-line and exports contract: exit 1 with "FILE:LINE:" for a
# bad exports line, exit 1 for a missing export path and for a port already taken, exit 2
# for bad usage, --help, threads named by their job, event loops real-time by default
# and ordinary with --loop-priority 0, squashing options, SIGHUP re-reading
# the exports file (a client no longer listed is refused, then allowed again, without a
# restart) and SIGTERM -> 0.
. "$(dirname "$0")/lib.sh"

P=$TOOLS/nfs3_procs
exp=$T/export
mkdir -p "$exp"
quick=(--no-portmap --nfs-port 0 --mount-port 0 --state-dir "$T/state")

# expect_exit NAME STATUS PATTERN ARGS... : the server must exit with STATUS (within 20s)
# and its stderr (or, for status 0, its output) must match the extended regex PATTERN.
expect_exit() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	timeout -k 2 20 "$SERVER" "$@" >"$T/$name.stdout" 2>"$T/$name.stderr" </dev/null
	rc=$?
	[ "$rc" -eq 124 ] && rc="still running after 20s"
	check "$name-exit" "$want" "$rc"
	if cat "$T/$name.stderr" "$T/$name.stdout" | grep -Eq -- "$pat"; then
		ok "$name-message"
	else
		fail "$name-message: expected output matching /$pat/ got '$(head -c 300 "$T/$name.stderr")'"
	fi
}

cat >"$T/bad.exports" <<EOT
$exp *(rw)
$exp 127.0.0.1(rw,frobnicate)
EOT
expect_exit bad-option 1 "$T/bad.exports:2:" "${quick[@]}" --exports "$T/bad.exports"
printf '%s\n' "# comment" "" "$exp *(rw" >"$T/bad2.exports"
expect_exit bad-paren 1 "$T/bad2.exports:3:" "${quick[@]}" --exports "$T/bad2.exports"
printf '%s\n' "$exp *(rw,anonuid=notanumber)" >"$T/bad3.exports"
expect_exit bad-anonuid 1 "$T/bad3.exports:1:" "${quick[@]}" --exports "$T/bad3.exports"
expect_exit missing-dir 1 "$T/no-such-dir" "${quick[@]}" "$T/no-such-dir"
printf '%s\n' "$T/no-such-dir *(rw)" >"$T/missing.exports"
expect_exit missing-export 1 "no-such-dir" "${quick[@]}" --exports "$T/missing.exports"
expect_exit missing-file 1 "nothere" "${quick[@]}" --exports "$T/nothere"
expect_exit help 0 "--exports" --help
expect_exit bad-flag 2 "." --no-such-flag "$exp"
expect_exit no-dir 2 "." --no-portmap
expect_exit bad-log-level 2 "." "${quick[@]}" --log-level chatty "$exp"
expect_exit bad-call-memory 2 "max-call-memory" "${quick[@]}" --max-call-memory 1 "$exp"
expect_exit bad-client-conns 2 "max-client-connections" "${quick[@]}" \
	--max-client-connections 0 "$exp"
expect_exit bad-idle-timeout 2 "idle-timeout" "${quick[@]}" --idle-timeout -1 "$exp"
expect_exit bad-loop-priority 2 "loop-priority" "${quick[@]}" --loop-priority 100 "$exp"

# loop_policies NAME : the scheduling policy of each event loop of server NAME, sorted.
loop_policies() {
	local t
	for t in /proc/"${SRV_PID[$1]}"/task/*; do
		grep -q '^shoal-loop' "$t/comm" && chrt -p "${t##*/}" | sed -n 's/.*policy: //p'
	done | sort -u | tr '\n' ' '
}

# A port already taken, by a first server on the default ports.
start_server holder --state-dir "$T/state-holder" "$exp" || it_done
# Its threads are named by their job, for ps -L, top -H and perf.
names=$(cat /proc/"${SRV_PID[holder]}"/task/*/comm | sort -u | tr '\n' ' ')
for want in shoal-loop0 shoal-sync0 shoal-read0; do
	case " $names" in
	*" $want "*) ok "thread-name-$want" ;;
	*) fail "thread-name-$want: expected a thread named $want got: $names" ;;
	esac
done
# Its event loops are real-time by default, unless the system refused (and it said so).
if grep -q 'event loops run as ordinary threads' "$T/holder.log"; then
	check loop-policy-default "SCHED_OTHER " "$(loop_policies holder)"
else
	check loop-policy-default "SCHED_FIFO " "$(loop_policies holder)"
fi
expect_exit nfs-port-taken 1 "2049|in use" --no-portmap --mount-port 0 --state-dir "$T/state" "$exp"
expect_exit mount-port-taken 1 "20048|in use" --no-portmap --nfs-port 0 --state-dir "$T/state" "$exp"
expect_exit portmap-taken 1 "111|in use" --nfs-port 0 --mount-port 0 --state-dir "$T/state" "$exp"
stop_server holder

# Squashing: files created as root land with the squashed owner.
mkdir -p "$T/sq-all" "$T/sq-root" "$T/sq-none"
chmod 777 "$T/sq-all" "$T/sq-root" "$T/sq-none"
cat >"$T/squash.exports" <<EOT
$T/sq-all *(rw,all_squash,anonuid=1234,anongid=4321)
$T/sq-root *(rw,root_squash)
$T/sq-none *(rw,no_root_squash)
EOT
start_server squash --exports "$T/squash.exports" --state-dir "$T/state" \
	--loop-priority 0 || it_done
check loop-policy-off "SCHED_OTHER " "$(loop_policies squash)"
for d in sq-all:1234:4321 sq-root:65534: sq-none:0:0; do
	IFS=: read -r name uid gid <<<"$d"
	out=$("$P" write-stable 127.0.0.1 "$T/$name" f 1 0 2>&1)
	check "$name-create" "acked 1" "$(printf '%s\n' "$out" | grep '^acked')"
	check "$name-owner" "$uid" "$(stat -c %u "$T/$name/f" 2>&1)"
	[ -n "$gid" ] && check "$name-group" "$gid" "$(stat -c %g "$T/$name/f" 2>&1)"
done
stop_server squash

# SIGHUP: take 127.0.0.1 out of the exports file, then put it back.
printf '%s\n' "$exp 127.0.0.1(rw,no_root_squash)" >"$T/hup.exports"
start_server hup --exports "$T/hup.exports" --state-dir "$T/state" || it_done
pid=${SRV_PID[hup]}
out=$("$P" mount 127.0.0.1 "$exp")
root=$(field "$out" MNT3_OK)
check hup-mount-before MNT3_OK "${out%% *}"

# wait_mount WANT [PATH] : MNT until it answers WANT, for at most 10 s (the reload is
# asynchronous and has no completion event, so poll it against a deadline).
wait_mount() {
	local end=$((SECONDS + 10)) st
	while :; do
		st=$("$P" mount 127.0.0.1 "${2:-$exp}" | cut -d' ' -f1)
		[ "$st" = "$1" ] && break
		[ "$SECONDS" -ge "$end" ] && break
		sleep 0.1 # poll interval, not a synchronisation
	done
	echo "$st"
}
printf '%s\n' "$exp 10.255.255.1(rw)" >"$T/hup.exports"
kill -HUP "$pid"
check hup-mount-refused MNT3ERR_ACCES "$(wait_mount MNT3ERR_ACCES)"
st=$("$P" getattr 127.0.0.1 - "$root" | head -n 1)
case $st in
NFS3ERR_ACCES | NFS3ERR_PERM | NFS3ERR_STALE) ok "hup-nfs-refused: $st" ;;
*) fail "hup-nfs-refused: expected NFS3ERR_ACCES for a client no longer allowed got $st" ;;
esac
if kill -0 "$pid" 2>/dev/null; then ok "hup-server-alive"; else fail "hup-server-alive: expected the server to survive SIGHUP"; fi
printf '%s\n' "$exp 127.0.0.0/8(rw,no_root_squash)" >"$T/hup.exports"
kill -HUP "$pid"
check hup-mount-allowed-again MNT3_OK "$(wait_mount MNT3_OK)"
check hup-nfs-allowed-again NFS3_OK "$("$P" getattr 127.0.0.1 - "$root" | head -n 1)"
# A broken file on SIGHUP keeps the old exports and the server; a good file after it
# (with a second export) marks when both reloads have been processed.
printf '%s\n' "$exp 127.0.0.1(rw,bogus)" >"$T/hup.exports"
kill -HUP "$pid"
end=$((SECONDS + 10))
until grep -q "$T/hup.exports:1:" "$T/hup.log" || [ "$SECONDS" -ge "$end" ]; do
	sleep 0.1 # poll interval against the deadline
done
if grep -q "$T/hup.exports:1:" "$T/hup.log"; then
	ok "hup-bad-file-reported"
else
	fail "hup-bad-file-reported: expected '$T/hup.exports:1:' in the server log within 10s"
fi
mkdir -p "$T/hup2"
printf '%s\n' "$exp 127.0.0.1(rw,no_root_squash)" "$T/hup2 127.0.0.1(rw)" >"$T/hup.exports"
kill -HUP "$pid"
check hup-second-export-appears MNT3_OK "$(wait_mount MNT3_OK "$T/hup2")"
check hup-bad-file-kept-exports NFS3_OK "$("$P" getattr 127.0.0.1 - "$root" | head -n 1)"
if kill -0 "$pid" 2>/dev/null; then ok "hup-bad-file-server-alive"; else fail "hup-bad-file-server-alive: expected the server to survive a bad exports file on SIGHUP"; fi
stop_server hup
it_done
