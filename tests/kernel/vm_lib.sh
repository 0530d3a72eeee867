# vm_lib.sh - what the VM suites share (sourced by run.sh and power.sh): entering a private
# network namespace with a tap device for the guest, booting the image of build-image.sh
# under KVM or TCG, reading the guest's second serial port line by line with deadlines,
# and the PASS/FAIL counting.
#
# The sourcing script sets VM_SUITE (its name in "did not run" lines) and `here` (this
# directory); before booting it sets T (scratch directory, the logs go there) and SHARE
# (the directory the guest mounts at /host, holding guest.sh). After vm_tap_up, img is
# the image directory. VM_KERNEL, when set (6.12), boots the image's second kernel
# instead of its first (Debian 12's 6.1). Environment: SHOAL_VM_CACHE (image cache),
# KERNEL_ACCEL (kvm|tcg to force one), KERNEL_KVM_BOOT / KERNEL_TCG_BOOT (boot deadlines,
# default 30 / 180 s).

# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # HOST_IP, GUEST_IP, img are for the sourcing script; here, T, SHARE come from it
HOST_IP=10.77.0.1 GUEST_IP=10.77.0.2

# pass/fail WHAT... : one result line, counted in passed/failed; check NAME WANT GOT.
passed=0 failed=0
pass() {
	passed=$((passed + 1))
	echo "PASS $*"
}
fail() {
	failed=$((failed + 1))
	echo "FAIL $*"
}
check() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: expected $2 got $3"; fi
}

# vm_dump_qemu_err : what qemu said on stderr, if anything (for a failure report).
vm_dump_qemu_err() {
	if [ -s "$T/qemu.err" ]; then
		echo "--- qemu stderr ---"
		sed 's/^/  | /' "$T/qemu.err"
	fi
}

# no_run WHY : the suite could not start: one failure, never a skip.
no_run() {
	echo "FAIL $VM_SUITE: did not run: $*"
	echo "$VM_SUITE: 0 passed, 1 failed"
	exit 1
}

# vm_enter_netns SCRIPT ARGS... : outside the namespace, check what the VM needs, build
# (or find) the image, and run SCRIPT ARGS again inside a new network namespace (with
# KT_IN_NETNS=1 and KT_IMAGE set); does not return. Inside it, returns at once.
vm_enter_netns() {
	local t0 image
	[ -z "${KT_IN_NETNS:-}" ] || return 0
	[ "$(id -u)" -eq 0 ] || no_run "needs root (network namespace, tap device)"
	command -v qemu-system-x86_64 >/dev/null 2>&1 ||
		no_run "qemu-system-x86_64 not installed (sh scripts/install-deps.sh kernel)"
	unshare --net true 2>/dev/null || no_run "expected to create a network namespace (unshare --net)"
	[ -c /dev/net/tun ] || no_run "no /dev/net/tun for the VM's tap device"
	# The image is built (or found) before entering the namespace: building downloads.
	t0=$(date +%s)
	image=$(bash "$here/build-image.sh") || no_run "could not build the VM image (build-image.sh failed)"
	echo "image: $image ($(cat "$image/ok"); ready in $(($(date +%s) - t0)) s)"
	KT_IN_NETNS=1 KT_IMAGE=$image exec unshare --net -- bash "$@"
}

# vm_tap_up : inside the namespace, the tap device shoaltap0 at HOST_IP for the guest.
vm_tap_up() {
	img=$KT_IMAGE
	{ ip link set lo up &&
		ip tuntap add dev shoaltap0 mode tap &&
		ip addr add "$HOST_IP/24" dev shoaltap0 &&
		ip link set shoaltap0 up; } || no_run "could not set up the tap device in the namespace"
}

# boot ACCEL [QEMU-ARGS...] : start qemu (extra arguments appended, e.g. a second disk);
# QFD reads its stdout, the guest's second serial port; the console goes to console.log.
# A suite that defines vm_before_boot has it called first (power.sh starts its disk there).
boot() {
	local accel=$1 cpu=max kernel=$img/vmlinuz initrd=$img/initrd.img
	shift
	[ "$accel" = kvm ] && cpu=host
	if [ -n "${VM_KERNEL:-}" ]; then
		kernel=$img/vmlinuz-$VM_KERNEL initrd=$img/initrd-$VM_KERNEL.img
	fi
	if declare -F vm_before_boot >/dev/null; then
		vm_before_boot || return
	fi
	: >"$T/console.log"
	LINE_PART=
	exec {QFD}< <(
		exec qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot \
			-machine pc -accel "$accel" -cpu "$cpu" -smp 2 -m 1024 \
			-kernel "$kernel" -initrd "$initrd" \
			-append "console=ttyS0 root=/dev/vda rw init=/sbin/shoal-init panic=-1 loglevel=6 net.ifnames=0" \
			-drive "file=$img/root.img,format=raw,if=virtio,snapshot=on" \
			-fsdev "local,id=share,path=$SHARE,security_model=none" \
			-device virtio-9p-pci,fsdev=share,mount_tag=host \
			-netdev tap,id=n0,ifname=shoaltap0,script=no,downscript=no \
			-device virtio-net-pci,netdev=n0,romfile= \
			-serial "file:$T/console.log" -serial stdio "$@" \
			</dev/null 2>>"$T/qemu.err"
	)
	QEMU_PID=$!
}

# stop_qemu : SIGKILL qemu (the guest loses everything not yet on its disks) and reap it.
stop_qemu() {
	[ -n "$QEMU_PID" ] || return 0
	kill -KILL "$QEMU_PID" 2>/dev/null
	wait "$QEMU_PID" 2>/dev/null
	QEMU_PID=
	exec {QFD}<&-
}

# next_line DEADLINE : the next line from the guest into LINE; 1 at EOF, 2 at the deadline.
# A read that times out in the middle of a line returns what it has read so far (a slow
# guest under TCG writes a line over several milliseconds): that part is kept in
# LINE_PART and put before the rest, or a request whose first bytes fell into one slice
# would reach its reader without them and never be answered.
LINE_PART=
next_line() {
	local left=$(($1 - SECONDS)) rc part
	[ "$left" -gt 0 ] || return 2
	IFS= read -r -t "$left" -u "$QFD" part
	rc=$?
	if [ "$rc" -gt 128 ]; then
		LINE_PART+=$part
		return 2
	fi
	LINE=$LINE_PART$part
	LINE_PART=
	LINE=${LINE%$'\r'}
	[ "$rc" -eq 0 ] && return 0
	return 1
}

# vm_died_before_init : the guest's kernel panicked before it ran its init (the console
# says so), so no program of the guest, nor the server, ever ran and its disks were only
# read. Seen once under TCG: an int3 oops in the 6.12 kernel's timer softirq at 1.2 s.
vm_died_before_init() {
	grep -q 'Kernel panic' "$T/console.log" 2>/dev/null &&
		! grep -q 'Run /sbin/shoal-init as init process' "$T/console.log"
}

# boot_try ACCEL [QEMU-ARGS...] : one boot under ACCEL; 0 once the guest's first line
# ("shoal-guest: ...") came within KERNEL_KVM_BOOT / KERNEL_TCG_BOOT s, with `booted`,
# t_boot (SECONDS at the start) and LINE set; otherwise 1 after saying why, with the end
# of the console log, qemu stopped and rc the reason (1 qemu exited, 2 silent, 3 not
# started, else the first line was not the guest's).
boot_try() {
	local accel=$1 limit why
	shift
	if ! boot "$accel" "$@"; then
		echo "boot: $accel not tried: vm_before_boot failed"
		rc=3
		return 1
	fi
	t_boot=$SECONDS
	if [ "$accel" = kvm ]; then limit=${KERNEL_KVM_BOOT:-30}; else limit=${KERNEL_TCG_BOOT:-180}; fi
	next_line $((SECONDS + limit))
	rc=$?
	if [ "$rc" -eq 0 ] && [[ $LINE == "shoal-guest: "* ]]; then
		echo "boot: $accel, guest up in $((SECONDS - t_boot)) s ($LINE)"
		booted=$accel
		return 0
	fi
	case $rc in
	1) why="qemu exited ($(tail -n 1 "$T/qemu.err" 2>/dev/null))" ;;
	2) why="no word from the guest within ${limit}s" ;;
	*) why="unexpected first line '$LINE'" ;;
	esac
	echo "boot: $accel did not boot the guest: $why; the console's last lines:"
	tail -n 20 "$T/console.log" 2>/dev/null | sed 's/^/  console: /'
	stop_qemu
	return 1
}

# boot_guest [QEMU-ARGS...] : boot under KVM if it brings the guest up (boot_try), else
# under TCG. A kernel that panics before it starts the guest's init (vm_died_before_init)
# is the emulator's or the kernel's fault, not the suite's: that accelerator boots once
# more, said in the log. 0 with `booted`, t_boot and LINE set; 1 after saying why each
# accelerator failed (`accels` names the ones tried).
boot_guest() {
	local accel rc
	accels=${KERNEL_ACCEL:-}
	if [ -z "$accels" ]; then
		accels=tcg
		[ -r /dev/kvm ] && [ -w /dev/kvm ] && accels="kvm tcg"
	fi
	booted=
	for accel in $accels; do
		boot_try "$accel" "$@" && return 0
		if [ "$rc" -eq 1 ] && vm_died_before_init; then
			echo "boot: $accel: the guest's kernel panicked before its init ran; booting it once more"
			boot_try "$accel" "$@" && return 0
		fi
	done
	return 1
}
