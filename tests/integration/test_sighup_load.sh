#!/bin/bash
# test_sighup_load.sh - SIGHUP reloads the exports without dropping connections: while
# libnfs (tools/nfsload) keeps 4 connections x 8 calls busy, the exports file is
# rewritten and the server signalled again and again; every call must be answered without
# an error on the connections it started with (nfsload fails on a dropped connection),
# and the server must have logged the reloads.
. "$(dirname "$0")/lib.sh"

exp=$T/export
mkdir -p "$exp"
printf '%s\n' "$exp *(rw,no_root_squash)" >"$T/exports"
start_server hup --exports "$T/exports" --state-dir "$T/state" || it_done
pid=${SRV_PID[hup]}
"$IT_BUILD/tools/nfsload/nfsload" -n "$NFS_PORT" -m "$MOUNT_PORT" -c 4 -d 8 -w 0.5 -t 3 \
	"$exp" >"$T/load.out" 2>&1 &
load=$!
hups=0
while kill -0 "$load" 2>/dev/null; do
	# The same export, written anew each time, with an option that changes nothing.
	printf '%s\n' "$exp *(rw,no_root_squash,sync)" "# reload $hups" >"$T/exports"
	kill -HUP "$pid"
	hups=$((hups + 1))
	sleep 0.2 # the pace of the reloads, not a synchronisation
done
wait_pid "$load" 30
sed 's/^/    /' "$T/load.out"
check nfsload-exit 0 "$WAIT_RC"
check nfsload-errors 0 "$(sed -n 's/.* errors \([0-9]*\)$/\1/p' "$T/load.out")"
reloads=$(grep -c 'exports reloaded' "$T/hup.log")
if [ "$hups" -ge 3 ] && [ "$reloads" -ge 3 ]; then
	ok "reloads-under-load: $hups signals, $reloads reloads logged"
else
	fail "reloads-under-load: expected at least 3 reloads during the load got $hups signals, $reloads logged"
fi
stop_server hup
it_done
