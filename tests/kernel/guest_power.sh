#!/bin/bash
# guest_power.sh - the guest side of the power-loss test (tests/kernel/power.sh): brings
# the network up as guest.sh does, mounts the second virtio disk (the export's ext4) on
# /data, then, by MODE:
#   serve    (a fresh disk) makes /data/export and /data/state, starts /host/shoal-server
#            on /data/export, says "shoal-guest: server up ..." and waits for the host to
#            cut the power (kill qemu).
#   restart  (the same disk after the cut) starts the server again with the same options,
#            which replays a stable-write log before it is ready, stops it with SIGTERM
#            (a clean stop syncs the exports), runs sync and says "shoal-guest: server
#            stopped ..."; init then powers the guest off.
# Lines for the host go to the second serial port (fd 7). power.sh copies this script
# into the share as guest.sh, which the image's init runs.
#
# /host/config (power.sh writes it before each boot) gives GUEST_IP, PREFIX, MOUNT_OPTS
# (the ext4 mount options), SERVER_LOG (in the share, so that it outlives the power cut),
# MODE and SERVER_ARGS (an array: the server's extra options, e.g. --stable-log 64);
# DROP_LOG=1 (a control) removes the stable-write log before the restart.
# Periodic writeback is turned off and dirty pages expire only after an hour, and
# power.sh mounts a journaled ext4 with a long journal commit interval (one without a
# journal has none), so that within the test's seconds nothing but the server's own
# syncs makes data or names durable: a server that leaves one out loses what it
# acknowledged when the power goes.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
stty -F /dev/ttyS1 raw -echo 2>/dev/null
exec 7>/dev/ttyS1
MODE=serve SERVER_ARGS=() DROP_LOG=
# shellcheck source=/dev/null
. /host/config
mkdir -p /host/out

say() { echo "shoal-guest: $*" >&7; }
# stop WHY : tell the host what went wrong; init then powers the guest off.
stop() {
	say "FAIL $*"
	dmesg >/host/out/dmesg.txt 2>&1
	exit 1
}

say "power guest $(uname -r), mode $MODE"
case $MODE in serve | restart) ;; *) stop "unknown MODE '$MODE' in /host/config" ;; esac
{ echo 0 >/proc/sys/vm/dirty_writeback_centisecs &&
	echo 360000 >/proc/sys/vm/dirty_expire_centisecs; } || stop "could not turn periodic writeback off"

# shellcheck source=guest_net.sh
. /host/guest_net.sh
guest_net_up >/dev/null || stop "the network did not come up (see the console)"

# The export's disk: empty from mkfs for serve, and what the server starts from is made
# durable here; for restart, what the power cut left (the mount replays ext4's journal).
[ -b /dev/vdb ] || stop "expected the export's disk at /dev/vdb"
{ mkdir -p /data && mount -t ext4 -o "$MOUNT_OPTS" /dev/vdb /data; } || stop "mount /dev/vdb failed"
if [ "$MODE" = serve ]; then
	{ mkdir -p /data/export /data/state && sync; } || stop "could not prepare /data"
else
	{ [ -d /data/export ] && [ -d /data/state ]; } || stop "expected /data/export and /data/state from the first boot"
	if [ "$DROP_LOG" = 1 ]; then # power.sh's control POWER_LOG_CONTROL=drop
		rm -f /data/state/stable.log || stop "could not remove the stable-write log"
		say "control: /data/state/stable.log removed before the restart"
	fi
fi
say "data mounted: $(grep ' /data ' /proc/mounts)"

# The server: fd 3 gets its ready line; fd 4, a pipe nobody else writes, reaches EOF
# when it exits, so that its end can be awaited with a deadline (read -t).
cp /host/shoal-server /tmp/shoal-server || stop "no /host/shoal-server"
mkfifo /tmp/ready /tmp/exited
/tmp/shoal-server --bind "$GUEST_IP" --no-portmap --nfs-port 2049 --mount-port 20048 \
	--state-dir /data/state --ready-fd 3 "${SERVER_ARGS[@]}" /data/export \
	3>/tmp/ready 4>/tmp/exited >>"$SERVER_LOG" 2>&1 </dev/null &
srv=$!
exec {fd}</tmp/ready {xfd}</tmp/exited
read -r -t 60 -u "$fd" line || stop "expected a ready line from shoal-server within 60 s"
exec {fd}<&-
say "server up: $line"
if [ "$MODE" = serve ]; then
	wait "$srv"
	stop "shoal-server exited with status $? before the power was cut"
fi

kill -TERM "$srv"
read -r -t 60 -u "$xfd"
[ $? -gt 128 ] && stop "expected shoal-server to exit within 60 s of SIGTERM"
wait "$srv"
rc=$?
sync || stop "sync failed"
say "server stopped: exit status $rc after SIGTERM; synced"
