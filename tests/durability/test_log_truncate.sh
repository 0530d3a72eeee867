#!/bin/bash
# test_log_truncate.sh - a size change acknowledged after a logged stable write survives
# a kill -9: dur_trunc writes 64 KiB with FILE_SYNC (a record in the stable-write log,
# which never checkpoints on its own here) and then shrinks the file with SETATTR. The
# server is killed at once and restarted; its replay applies the write and then the size
# change, so the file must end up as small as the SETATTR left it. A size change not on
# the log before its reply would let the replay grow the file back with the old bytes.
# shellcheck source=../integration/lib.sh
. "${IT_LIB:?run me through tests/durability/suite.sh}"

TOOL=$IT_BUILD/tests/durability/dur_trunc
exp=$T/export
mkdir -p "$exp"
args=(--nfs-port 2049 --mount-port 20048 --no-portmap --state-dir "$T/state"
	--stable-log 64 --stable-log-interval 3600000 "$exp")
start_server trunc "${args[@]}" || it_done

run_tool write-then-shrink "$TOOL" 127.0.0.1 "$exp" f 100
kill9_server trunc
start_server trunc "${args[@]}" || it_done
replayed=$(sed -n 's/.*stable-write log: replayed \([0-9]*\) records.*/\1/p' "$T/trunc.log" | head -n 1)
check records-replayed 2 "${replayed:-none}"
check size-after-replay 100 "$(stat -c %s "$exp/f")"
stop_server trunc
it_done
