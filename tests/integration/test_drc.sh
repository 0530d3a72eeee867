#!/bin/bash
# test_drc.sh - the duplicate request cache: CREATE, RENAME and REMOVE retransmitted with
# the same XID (on the same connection and after a reconnect) get a byte-identical reply
# and run once (rpc_raw drc). The server's statistics must say so too: SIGUSR1 and the
# stop each log 5 cache hits (the 5 retransmissions) and, per procedure, only the calls
# that ran: 3 CREATEs, 1 RENAME and 3 REMOVEs.
. "$(dirname "$0")/lib.sh"

exp=$T/export
mkdir -p "$exp"
log=$T/srv.log
# stats_check WHEN : the last statistics the server logged (SIGUSR1 or stop) match the run.
stats_check() {
	check "$1-drc-hits" 5 "$(sed -n 's/.*duplicate request cache: \([0-9]*\) hits.*/\1/p' "$log" | tail -n 1)"
	for want in "CREATE 3" "RENAME 1" "REMOVE 3"; do
		check "$1-${want% *}-calls" "${want#* }" \
			"$(sed -n "s/.*stats: nfs v3 ${want% *}: \([0-9]*\) calls.*/\1/p" "$log" | tail -n 1)"
	done
}

start_server srv --state-dir "$T/state" "$exp" || it_done
run_tool drc "$TOOLS/rpc_raw" drc 127.0.0.1 "$exp"
check drc-nothing-left "" "$(ls -A "$exp")"
kill -USR1 "${SRV_PID[srv]}"
end=$((SECONDS + 10))
until grep -q 'duplicate request cache' "$log" || [ "$SECONDS" -ge "$end" ]; do
	sleep 0.05 # poll interval against the deadline: the log line is the only sign
done
stats_check sigusr1
stop_server srv
check stop-logs-stats 2 "$(grep -c 'duplicate request cache' "$log")"
stats_check stop
it_done
