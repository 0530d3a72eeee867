# lib.sh - helpers sourced by the integration tests (bash): starting and stopping
# shoal-server with a deadline on readiness, and "ok"/"FAIL" bookkeeping.
#
# run.sh exports IT_BUILD (the build directory) and IT_TMP (a scratch directory that it
# removes afterwards and whose *.log files it prints when a test fails). Every server a
# test starts is killed by the EXIT trap, whatever happened.
# shellcheck shell=bash

set -u

IT_BUILD=${IT_BUILD:?run me through tests/integration/run.sh}
# shellcheck disable=SC2034 # used by the tests that source this file
SERVER=$IT_BUILD/shoal-server
# shellcheck disable=SC2034
TOOLS=$IT_BUILD/tests/integration
READY_TIMEOUT=${IT_READY_TIMEOUT:-30}
STOP_TIMEOUT=${IT_STOP_TIMEOUT:-30}
export SHOAL_RPC_TIMEOUT=${SHOAL_RPC_TIMEOUT:-30}

if [ -z "${IT_TMP:-}" ]; then
	IT_TMP=$(mktemp -d /tmp/shoal-it.XXXXXX)
	IT_OWN_TMP=1
fi
T=$(mktemp -d "$IT_TMP/$(basename "$0" .sh).XXXXXX")
chmod 755 "$T"

IT_FAILS=0
declare -A SRV_PID=()

ok() {
	echo "ok $1"
}

fail() {
	echo "FAIL $1"
	IT_FAILS=$((IT_FAILS + 1))
}

# check NAME EXPECTED GOT: string equality.
check() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		fail "$1: expected '$2' got '$3'"
	fi
}

it_cleanup() {
	local name
	for name in "${!SRV_PID[@]}"; do
		kill -KILL "${SRV_PID[$name]}" 2>/dev/null
		wait "${SRV_PID[$name]}" 2>/dev/null
	done
	if [ -n "${IT_OWN_TMP:-}" ]; then
		rm -rf "$IT_TMP"
	else
		# Keep the logs for run.sh; drop the exported trees.
		find "$T" -mindepth 1 -maxdepth 1 ! -name '*.log' -exec rm -rf {} +
	fi
}
trap it_cleanup EXIT
trap 'exit 130' INT TERM

# start_server NAME ARGS... : starts shoal-server with --ready-fd and waits (at most
# READY_TIMEOUT s) for its ready line; sets NFS_PORT, MOUNT_PORT, PORTMAP_PORT and
# exports SHOAL_NFS_PORT/SHOAL_MOUNT_PORT for the tools. Returns 1 (with a FAIL line) if
# the server exits or stays silent.
start_server() {
	local name=$1 fifo line fd rc
	shift
	fifo=$T/$name.ready
	rm -f "$fifo"
	mkfifo "$fifo"
	"$SERVER" --ready-fd 3 --log-level "${IT_LOG_LEVEL:-info}" "$@" \
		3>"$fifo" >>"$T/$name.log" 2>&1 </dev/null &
	SRV_PID[$name]=$!
	exec {fd}<"$fifo"
	rm -f "$fifo"
	if ! read -r -t "$READY_TIMEOUT" -u "$fd" line; then
		exec {fd}<&-
		if kill -0 "${SRV_PID[$name]}" 2>/dev/null; then
			fail "start-$name: expected a ready line within ${READY_TIMEOUT}s got none"
		else
			wait "${SRV_PID[$name]}"
			rc=$?
			unset "SRV_PID[$name]"
			fail "start-$name: expected a ready line got exit status $rc before it"
		fi
		return 1
	fi
	exec {fd}<&-
	if [[ ! "$line" =~ ^ready\ nfs=([0-9]+)\ mount=([0-9]+)\ portmap=([0-9]+)$ ]]; then
		fail "start-$name: expected 'ready nfs=N mount=N portmap=N' got '$line'"
		return 1
	fi
	NFS_PORT=${BASH_REMATCH[1]}
	MOUNT_PORT=${BASH_REMATCH[2]}
	# shellcheck disable=SC2034
	PORTMAP_PORT=${BASH_REMATCH[3]}
	export SHOAL_NFS_PORT=$NFS_PORT SHOAL_MOUNT_PORT=$MOUNT_PORT
	return 0
}

# wait_pid PID SECONDS : waits for PID (a child of this shell) with a deadline; sets
# WAIT_RC to its exit status, or to "timeout" after killing it.
wait_pid() {
	local pid=$1 dog done_pid rc
	sleep "$2" &
	dog=$!
	wait -n -p done_pid "$pid" "$dog"
	rc=$?
	if [ "${done_pid:-}" = "$pid" ]; then
		# SIGKILL: a forked shell that has not yet become "sleep" would otherwise run
		# this script's TERM and EXIT traps (it_cleanup) and kill the servers.
		kill -KILL "$dog" 2>/dev/null
		wait "$dog" 2>/dev/null
		WAIT_RC=$rc
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
	wait_pid "$pid" "$STOP_TIMEOUT"
	unset "SRV_PID[$name]"
	check "sigterm-exit-$name" 0 "$WAIT_RC"
}

# kill9_server NAME : SIGKILL and reap.
kill9_server() {
	local pid=${SRV_PID[$1]:-}
	[ -n "$pid" ] || return 0
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	unset "SRV_PID[$1]"
}

# run_tool NAME CMD... : runs a C tool, shows its output, fails NAME unless it exits 0.
run_tool() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/    /'
	if [ "$rc" -eq 0 ]; then
		ok "$name"
	else
		fail "$name: expected exit status 0 from $(basename "$1") $2 got $rc ($(printf '%s\n' "$out" | grep -c '^FAIL') FAIL lines)"
	fi
	return "$rc"
}

# field OUTPUT KEY : the rest of the first line starting with "KEY ".
field() {
	printf '%s\n' "$1" | sed -n "s/^$2 //p" | head -n 1
}

it_done() {
	if [ "$IT_FAILS" -eq 0 ]; then
		echo "PASS $(basename "$0")"
		exit 0
	fi
	echo "FAILED $(basename "$0"): $IT_FAILS check(s)"
	exit 1
}
