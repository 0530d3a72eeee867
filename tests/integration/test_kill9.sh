#!/bin/bash
# test_kill9.sh - durability: every byte acknowledged by a FILE_SYNC or DATA_SYNC WRITE,
# or covered by a COMMIT after UNSTABLE writes, is still there after kill -9 and restart.
. "$(dirname "$0")/lib.sh"

exp=$T/export
mkdir -p "$exp"
start_server first --state-dir "$T/state" "$exp" || it_done
out=$("$TOOLS/nfs3_procs" write-stable 127.0.0.1 "$exp" durable 96 32 2>&1)
printf '%s\n' "$out" | sed 's/^/    /'
acked=$(field "$out" acked)
check acked-writes 128 "$acked"
# A second file written only with UNSTABLE+COMMIT.
out=$("$TOOLS/nfs3_procs" write-stable 127.0.0.1 "$exp" committed 0 16 2>&1)
check acked-commit 16 "$(field "$out" acked)"
kill9_server first

start_server second --state-dir "$T/state" "$exp" || it_done
run_tool durable-after-kill9 "$TOOLS/nfs3_procs" verify 127.0.0.1 "$exp" durable "${acked:-128}"
run_tool committed-after-kill9 "$TOOLS/nfs3_procs" verify 127.0.0.1 "$exp" committed 16
check size-on-disk $((128 * 4096)) "$(stat -c %s "$exp/durable")"
stop_server second
it_done
