# shellcheck shell=bash
# lib.sh - helpers for the issue #5 suites (durability, concurrency, access): everything
# of tests/integration/lib.sh, plus waiting for a child without a subshell.
#
# tests/integration/lib.sh's wait_pid runs inside $(...), a subshell that cannot wait for
# its parent's children, so stop_server there reports "timeout" even for a clean exit;
# wait_rc and stop_server below wait in the test's own shell.

# shellcheck source=../integration/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"

# wait_rc PID SECONDS : waits for the child PID with a deadline; sets WAIT_RC to its exit
# status, or to "timeout" after killing it.
wait_rc() {
	local pid=$1 secs=$2
	if timeout "$secs" tail --pid="$pid" -s 0.05 -f /dev/null; then
		wait "$pid"
		WAIT_RC=$?
	else
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		WAIT_RC=timeout
	fi
}

# stop_server NAME : SIGTERM, then expects exit status 0 within STOP_TIMEOUT s.
stop_server() {
	local name=$1 pid=${SRV_PID[$1]:-}
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	wait_rc "$pid" "$STOP_TIMEOUT"
	unset "SRV_PID[$name]"
	check "sigterm-exit-$name" 0 "$WAIT_RC"
}
