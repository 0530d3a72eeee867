#!/bin/bash
# test_malformed.sh - calls no real client sends (rpc_raw malformed): wrong RPC version,
# unknown program, NFS v2/v4, procedure 99, truncated arguments, bad handle lengths,
# AUTH flavor 6, fragmented and pipelined records, UDP, a 100 MiB record mark; the server
# must answer each correctly, keep serving, and still exit 0 on SIGTERM.
. "$(dirname "$0")/lib.sh"

exp=$T/export
mkdir -p "$exp"
start_server srv --state-dir "$T/state" "$exp" || it_done
run_tool malformed "$TOOLS/rpc_raw" malformed 127.0.0.1
if kill -0 "${SRV_PID[srv]}" 2>/dev/null; then
	ok "server-alive"
else
	fail "server-alive: expected the server to survive malformed calls"
fi
if out=$(rpcinfo -t 127.0.0.1 nfs 3 2>&1); then
	ok "still-serving: $out"
else
	fail "still-serving: expected rpcinfo -t nfs 3 to succeed got '$out'"
fi
stop_server srv
it_done
