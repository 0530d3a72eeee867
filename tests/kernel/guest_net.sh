# guest_net.sh - the guest's network, shared by guest.sh and guest_power.sh (both VM
# suites copy it into the share next to guest.sh; the guest sources it from /host).

# shellcheck shell=bash
# guest_net_up : lo up, then GUEST_IP/PREFIX (from /host/config) on the first other
# interface once the kernel has probed it (deadline 10 s); prints "DEV ADDRESS/PREFIX",
# or a reason on stderr and returns 1.
guest_net_up() {
	local dev
	ip link set lo up
	modprobe virtio_net 2>/dev/null
	for _ in $(seq 100); do
		dev=$(ip -o link show | awk -F': ' '$2 != "lo" { print $2; exit }')
		[ -n "$dev" ] && break
		sleep 0.1 # waiting for the NIC to be probed, against a deadline
	done
	if [ -z "$dev" ]; then
		echo "expected a network interface besides lo" >&2
		return 1
	fi
	if ! { ip addr add "$GUEST_IP/$PREFIX" dev "$dev" && ip link set "$dev" up; }; then
		echo "ip failed" >&2
		return 1
	fi
	echo "$dev $GUEST_IP/$PREFIX"
}
