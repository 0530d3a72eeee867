#!/bin/bash
# guest_power.sh - the guest side of the power-loss test (tests/kernel/power.sh): brings
# the network up as guest.sh does, mounts the second virtio disk (the export's ext4) on
# /data, starts /host/shoal-server on /data/export and says "shoal-guest: server up ..."
# on the second serial port (fd 7); then waits for the host to cut the power (kill qemu).
# power.sh copies it into the share as guest.sh, which the image's init runs.
#
# /host/config gives GUEST_IP, PREFIX, MOUNT_OPTS (the ext4 mount options) and
# SERVER_LOG (in the share, so that it outlives the power cut). Periodic writeback is
# turned off and dirty pages expire only after an hour, and power.sh mounts ext4 with a
# long journal commit interval, so that within the test's seconds nothing but the
# server's own syncs makes data or names durable: a server that leaves one out loses
# what it acknowledged when the power goes.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
stty -F /dev/ttyS1 raw -echo 2>/dev/null
exec 7>/dev/ttyS1
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

say "power guest $(uname -r)"
{ echo 0 >/proc/sys/vm/dirty_writeback_centisecs &&
	echo 360000 >/proc/sys/vm/dirty_expire_centisecs; } || stop "could not turn periodic writeback off"

# The network, as guest.sh's net_up.
ip link set lo up
modprobe virtio_net 2>/dev/null
dev=
for _ in $(seq 100); do
	dev=$(ip -o link show | awk -F': ' '$2 != "lo" { print $2; exit }')
	[ -n "$dev" ] && break
	sleep 0.1 # waiting for the NIC to be probed, against a deadline
done
[ -n "$dev" ] || stop "expected a network interface besides lo"
{ ip addr add "$GUEST_IP/$PREFIX" dev "$dev" && ip link set "$dev" up; } || stop "ip failed"

# The export's disk: empty from mkfs; what the server starts from is made durable here.
[ -b /dev/vdb ] || stop "expected the export's disk at /dev/vdb"
{ mkdir -p /data && mount -t ext4 -o "$MOUNT_OPTS" /dev/vdb /data; } || stop "mount /dev/vdb failed"
{ mkdir -p /data/export /data/state && sync; } || stop "could not prepare /data"
say "data mounted: $(grep ' /data ' /proc/mounts)"

cp /host/shoal-server /tmp/shoal-server || stop "no /host/shoal-server"
mkfifo /tmp/ready
/tmp/shoal-server --bind "$GUEST_IP" --no-portmap --nfs-port 2049 --mount-port 20048 \
	--state-dir /data/state --ready-fd 3 /data/export \
	3>/tmp/ready >>"$SERVER_LOG" 2>&1 </dev/null &
srv=$!
exec {fd}</tmp/ready
read -r -t 60 -u "$fd" line || stop "expected a ready line from shoal-server within 60 s"
exec {fd}<&-
say "server up: $line"
wait "$srv"
stop "shoal-server exited with status $? before the power was cut"
