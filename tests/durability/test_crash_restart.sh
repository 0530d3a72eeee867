#!/bin/bash
# test_crash_restart.sh - crash and restart under load (issue #5): dur_load writes with
# FILE_SYNC, DATA_SYNC and UNSTABLE+COMMIT from several connections while we kill -9 the
# server after a random delay (seeded: the seed is printed, DUR_SEED replays it), restart
# it on the same ports and state dir, and let dur_load check that every acknowledged byte
# survived (through its old handles and in the export directory) and that the write
# verifier changed. The last round ends with SIGTERM; then the journal is replayed
# against the export directory alone. Short: 5 kills; SOAK=1: DUR_KILLS (default 100).
# The server instances alternate between the stable-write log (--stable-log 64: odd
# instances) and an fsync per stable write (even ones), so every restart also replays
# a log that was killed, into a server that does or does not keep using one.
# shellcheck source=../integration/lib.sh
. "${IT_LIB:?run me through tests/durability/suite.sh}"
# shellcheck source=load_io.sh
. "$(dirname "${BASH_SOURCE[0]}")/load_io.sh"

DUR=$IT_BUILD/tests/durability/dur_load
kills=${DUR_KILLS:-5}
writers=${DUR_WRITERS:-4}
max_delay_ms=${DUR_MAX_DELAY_MS:-1500}
if [ "${SOAK:-0}" = 1 ]; then
	kills=${DUR_KILLS:-100}
	writers=${DUR_WRITERS:-8}
fi
seed=${DUR_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "seed $seed (DUR_SEED=$seed replays the kill delays and the write mix)"
RANDOM=$seed

exp=$T/export
mkdir -p "$exp"
ports=(--nfs-port 2049 --mount-port 20048 --no-portmap --state-dir "$T/state")
# log_args N: the stable-write log setting of server instance N.
log_args() {
	if (($1 % 2)); then echo --stable-log 64; else echo --stable-log 0; fi
}
# shellcheck disable=SC2046 # log_args prints two words on purpose
start_server dur "${ports[@]}" $(log_args 1) "$exp" || it_done

start_load 127.0.0.1 "$exp" "$exp" "$T/journal" "$writers" "$kills" "$seed"

done_kills=0
round=1
while :; do
	expect_line "^round $round writing" 60 || break
	if [ "$round" -gt "$kills" ]; then
		# A little load for the final round, then a clean stop.
		sleep "0.$((RANDOM % 5 + 5))"
		stop_server dur
	else
		ms=$((RANDOM % max_delay_ms + 50))
		sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
		kill9_server dur
		done_kills=$((done_kills + 1))
	fi
	expect_line "^round $round stopped" 60 || break
	# shellcheck disable=SC2046
	start_server dur "${ports[@]}" $(log_args $((round + 1))) "$exp" || break
	echo go >&"$lout"
	expect_line "^round $round verified" 120 || break
	[ "$round" -gt "$kills" ] && break
	round=$((round + 1))
done
# The rest of the tool's output, then its exit status.
drain_load
wait_pid "$load_pid" 30
check load-exit-status 0 "$WAIT_RC"
stop_server dur
check kills "$kills" "$done_kills"

summary=$(sed -n 's/^crash-restart: //p' "$out" | tail -n 1)
lost=$(printf '%s\n' "$summary" | sed -n 's/^[0-9]* kills, \([0-9]*\) bytes lost.*/\1/p')
check bytes-lost 0 "${lost:-unknown}"
check verifiers-distinct "$((kills + 2))" "$(sed -n 's/^verifiers \([0-9]*\) distinct/\1/p' "$out")"

run_tool journal-replay "$DUR" verify "$T/journal" "$exp"
echo "summary: crash-restart: $done_kills kills, ${lost:-unknown} bytes lost ${summary#*bytes lost }"
it_done
