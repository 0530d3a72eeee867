#!/bin/bash
# test_log_replay.sh - the stable-write log alone carries what was acknowledged: dur_load
# writes with FILE_SYNC and DATA_SYNC only (DUR_STABLE_ONLY=1) while the server, whose log
# never checkpoints on its own here (an hour's interval, and a log far larger than
# what the writers send before the kill), is killed with
# -9. Then every file of the export is zeroed, as if none of the server's file writes had
# reached the disk, and the server restarts: its replay of the log must bring back every
# acknowledged byte (dur_load checks, through the server and in the directory), and say
# how many records it applied. Before that, a start over another directory must refuse
# to serve: the log holds acknowledged writes of an export it was not given.
# shellcheck source=../integration/lib.sh
. "${IT_LIB:?run me through tests/durability/suite.sh}"
# shellcheck source=load_io.sh
. "$(dirname "${BASH_SOURCE[0]}")/load_io.sh"

DUR=$IT_BUILD/tests/durability/dur_load
seed=${DUR_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "seed $seed (DUR_SEED=$seed replays the kill delay and the write mix)"
RANDOM=$seed

exp=$T/export
mkdir -p "$exp" "$T/other"
ports=(--nfs-port 2049 --mount-port 20048 --no-portmap --state-dir "$T/state")
logargs=(--stable-log 256 --stable-log-interval 3600000)
start_server replay "${ports[@]}" "${logargs[@]}" "$exp" || it_done

export DUR_STABLE_ONLY=1
start_load 127.0.0.1 "$exp" "$exp" "$T/journal" 4 1 "$seed"

if expect_line "^round 1 writing" 60; then
	ms=$((RANDOM % 500 + 400))
	sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
	kill9_server replay
	expect_line "^round 1 stopped" 60
	# Zero every file, keeping its size: only the log still has the data.
	zeroed=0
	for f in "$exp"/*; do
		[ -f "$f" ] || continue
		size=$(stat -c %s "$f")
		truncate -s 0 "$f" && truncate -s "$size" "$f" && zeroed=$((zeroed + 1))
	done
	check files-zeroed 4 "$zeroed"
	sync

	# Another directory: the log's records are not of its export.
	"$SERVER" "${ports[@]}" "${logargs[@]}" "$T/other" >"$T/other.log" 2>&1 </dev/null
	check other-export-refused 1 "$?"
	check other-export-says-why 1 "$(grep -c 'not configured' "$T/other.log")"

	# The last round ends with a clean stop, and a restart the tool checks too.
	start_server replay "${ports[@]}" "${logargs[@]}" "$exp" &&
		echo go >&"$lout" && expect_line "^round 1 verified" 120 &&
		expect_line "^round 2 writing" 60 &&
		sleep "0.$((RANDOM % 5 + 5))" && # some load for the final round, as in test_crash_restart
		stop_server replay &&
		expect_line "^round 2 stopped" 60 &&
		start_server replay "${ports[@]}" "${logargs[@]}" "$exp" &&
		echo go >&"$lout" && expect_line "^round 2 verified" 120
fi
drain_load
wait_pid "$load_pid" 30
check load-exit-status 0 "$WAIT_RC"
stop_server replay

summary=$(sed -n 's/^crash-restart: //p' "$out" | tail -n 1)
lost=$(printf '%s\n' "$summary" | sed -n 's/^[0-9]* kills, \([0-9]*\) bytes lost.*/\1/p')
check bytes-lost 0 "${lost:-unknown}"
replayed=$(sed -n 's/.*stable-write log: replayed \([0-9]*\) records.*/\1/p' "$T/replay.log" | head -n 1)
if [ "${replayed:-0}" -gt 0 ]; then
	ok "replayed $replayed records"
else
	fail "replayed: expected a replay of at least one record, the log says '${replayed:-nothing}'"
fi
echo "summary: log replay: ${replayed:-0} records replayed into zeroed files, ${lost:-unknown} bytes lost"
it_done
