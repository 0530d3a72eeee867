#!/bin/bash
# test_hostile.sh - hostile clients (tests/hardening/hostile.c) against one shoal-server
# with 2 event loops: bad record marking, garbage, thousands of idle connections, one
# address past the connections one client may hold, clients that never read or vanish; a probe client must be answered throughout, the
# server's RSS must stay under the bound hostile derives, and it must still exit 0 on
# SIGTERM. SOAK=1 runs the long forms. Then, against a server started with
# --max-call-memory 16 --record-timeout 8, the cases of that server-wide budget and of
# the timeout (hostile -m -r); against one started with --idle-timeout 3, the idle
# timeout (hostile -i).
. "$(dirname "$0")/../integration/lib.sh"

# Thousands of connections: the fd limit for the server (inherited) and the client.
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
# Under ASan the allocator keeps freed memory in quarantine and adds shadow memory: keep
# the quarantine small and tell hostile, which then adds that overhead to its bound.
asan=()
if ldd "$SERVER" 2>/dev/null | grep -q libasan; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
	asan=(-a)
fi
exp=$T/export
mkdir -p "$exp"
start_server srv --threads 2 \
	--state-dir "$T/state" "$exp" || it_done
soak=()
[ -n "${SOAK:-}" ] && soak=(-s)
run_tool hostile "$IT_BUILD/tests/hardening/hostile" "${soak[@]}" "${asan[@]}" -t 2 127.0.0.1 "$exp" \
	"${SRV_PID[srv]}"
if kill -0 "${SRV_PID[srv]}" 2>/dev/null; then
	ok "server-alive"
else
	fail "server-alive: expected the server to survive the hostile clients"
fi
stop_server srv

# The server-wide budget of large buffers, on a server that has 15 of them (16 MiB),
# and the record timeout that frees those held by clients gone quiet mid-record.
start_server capped --threads 2 --max-call-memory 16 --record-timeout 8 \
	--state-dir "$T/state-capped" "$exp" || it_done
run_tool hostile-budget "$IT_BUILD/tests/hardening/hostile" "${asan[@]}" -t 2 -m 16 -r 8 \
	127.0.0.1 "$exp" "${SRV_PID[capped]}"
stop_server capped

# The idle timeout: connections that send nothing for 3 s are closed, busy ones kept.
start_server idle --threads 2 --idle-timeout 3 --state-dir "$T/state-idle" "$exp" || it_done
run_tool hostile-idle "$IT_BUILD/tests/hardening/hostile" "${asan[@]}" -t 2 -i 3 \
	127.0.0.1 "$exp" "${SRV_PID[idle]}"
stop_server idle
it_done
