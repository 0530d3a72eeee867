#!/bin/bash
# test_connections.sh - issue #2's concurrency floor: 256 TCP connections with 8
# GETATTR/LOOKUP/ACCESS calls outstanding on each (2,048 in flight) are all served
# without a single error or dropped connection, by libnfs (tools/nfsload), on a server
# with 2 event-loop threads. Speed is not asserted here (that is make bench's job).
. "$(dirname "$0")/lib.sh"

ulimit -n 4096
exp=$T/export
mkdir -p "$exp"
start_server conns --threads 2 --state-dir "$T/state" "$exp" || it_done
out=$("$IT_BUILD/tools/nfsload/nfsload" -n "$NFS_PORT" -m "$MOUNT_PORT" -c 256 -d 8 -w 0.5 \
	-t 2 "$exp" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/    /'
check nfsload-exit 0 "$rc"
calls=$(printf '%s\n' "$out" | sed -n 's/^calls \([0-9]*\) .*/\1/p')
errors=$(printf '%s\n' "$out" | sed -n 's/.* errors \([0-9]*\)$/\1/p')
check errors-256x8 0 "${errors:-missing}"
if [ "${calls:-0}" -ge 2048 ]; then
	ok "answered-256x8: $calls calls"
else
	fail "answered-256x8: expected at least 2048 answered calls got '${calls:-none}'"
fi
stop_server conns
it_done
