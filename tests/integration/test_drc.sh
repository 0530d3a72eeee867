#!/bin/bash
# test_drc.sh - the duplicate request cache: CREATE, RENAME and REMOVE retransmitted with
# the same XID (on the same connection and after a reconnect) get a byte-identical reply
# and run once (rpc_raw drc).
. "$(dirname "$0")/lib.sh"

exp=$T/export
mkdir -p "$exp"
start_server srv --state-dir "$T/state" "$exp" || it_done
run_tool drc "$TOOLS/rpc_raw" drc 127.0.0.1 "$exp"
check drc-nothing-left "" "$(ls -A "$exp")"
stop_server srv
it_done
