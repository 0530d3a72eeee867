#!/bin/bash
# test_concurrency.sh - many clients creating, renaming, removing and writing in the same
# directories at once, checked against their models (conc_load.c) at checkpoints and at
# the end; then the export directory itself is compared with what the server listed.
# Short: 8 clients for 20 s; SOAK=1: 16 clients for CONC_SECONDS (default 300).
# shellcheck source=../integration/lib.sh
. "${IT_LIB:?run me through tests/durability/suite.sh}"

clients=${CONC_CLIENTS:-8}
secs=${CONC_SECONDS:-20}
if [ "${SOAK:-0}" = 1 ]; then
	clients=${CONC_CLIENTS:-16}
	secs=${CONC_SECONDS:-300}
fi
seed=${CONC_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "seed $seed (CONC_SEED=$seed replays each client's operation mix)"

exp=$T/export
mkdir -p "$exp"
start_server conc --no-portmap --state-dir "$T/state" --threads 2 "$exp" || it_done
out=$("$IT_BUILD/tests/concurrency/conc_load" 127.0.0.1 "$exp" "$clients" "$secs" 2000 "$seed" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/    /'
check conc-load-exit 0 "$rc"
stop_server conc
# After a clean stop nothing may be left but the names the models hold.
stray=$(find "$exp" -mindepth 1 ! -path "$exp/d[012]" ! -path "$exp/d[012]/c*.*" ! -name shared | head -n 5)
check no-stray-files "" "$stray"
line=$(printf '%s\n' "$out" | sed -n 's/^concurrency: //p' | tail -n 1)
echo "summary: concurrency: ${line:-no result}"
it_done
