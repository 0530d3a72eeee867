#!/bin/bash
# run.sh - the kernel-client suite: boots a Debian VM (the image from build-image.sh)
# whose Linux NFS client mounts the shoal-server of BUILD-DIR with the plain
# `mount -t nfs -o vers=3 HOST:/path`, runs guest.sh's workload in it, and prints
# PASS/FAIL per workload step, then "kernel: N passed, M failed".
#
#   bash tests/kernel/run.sh BUILD-DIR
#
# Network: a private network namespace holding a tap device for the VM (10.77.0.1 the
# server, 10.77.0.2 the guest); the server and qemu run inside it, nothing else is used.
# Acceleration: KVM when it boots the guest (the first line from guest.sh within
# KERNEL_KVM_BOOT s), otherwise software emulation (TCG). The guest speaks on its second
# serial port (read here line by line, with deadlines) and reads the host's answers from
# the 9p share. On any failure the server's log and the guest's dmesg are printed. The
# namespace, tap and qemu plumbing is shared with power.sh in vm_lib.sh.
# Environment: SHOAL_VM_CACHE (image cache, default /var/cache/shoal-vm), KERNEL_ACCEL
# (kvm|tcg to force one), KERNEL_LOG_LEVEL (server log level, default info),
# KERNEL_TIMEOUT (whole run, default 1200 s); for debugging, KERNEL_PCAP (write a capture
# of the VM's traffic there) and KERNEL_KEEP (copy the guest's out/ and the logs there).
# A run that cannot start (no root, no qemu, no image) counts as failed, never skipped.
set -u

here=$(cd "$(dirname "$0")" && pwd)
VM_SUITE=kernel
# shellcheck source=vm_lib.sh
. "$here/vm_lib.sh"
[ $# -eq 1 ] && [ -d "$1" ] || no_run "usage: run.sh BUILD-DIR"
build=$(cd "$1" && pwd)
SERVER=$build/shoal-server

if [ -z "${KT_IN_NETNS:-}" ]; then
	[ -x "$SERVER" ] || no_run "no server binary at $SERVER"
	vm_enter_netns "$0" "$build"
fi
vm_tap_up

T=$(mktemp -d /tmp/shoal-kernel.XXXXXX)
chmod 755 "$T"
EXPORT=$T/export SHARE=$T/share STATE=$T/state
mkdir -p "$EXPORT" "$SHARE/ctl" "$SHARE/out" "$STATE"
cp "$here/guest.sh" "$here/guest_net.sh" "$SHARE/"
printf 'SERVER_IP=%s\nGUEST_IP=%s\nPREFIX=24\nEXPORT_PATH=%s\n' \
	"$HOST_IP" "$GUEST_IP" "$EXPORT" >"$SHARE/config"

SRV_PID='' QEMU_PID='' PCAP_PID='' SRV_RUNS=0
cleanup() {
	[ -n "$QEMU_PID" ] && kill -KILL "$QEMU_PID" 2>/dev/null && wait "$QEMU_PID" 2>/dev/null
	[ -n "$SRV_PID" ] && kill -KILL "$SRV_PID" 2>/dev/null && wait "$SRV_PID" 2>/dev/null
	[ -n "$PCAP_PID" ] && kill "$PCAP_PID" 2>/dev/null && wait "$PCAP_PID" 2>/dev/null
	if [ -n "${KERNEL_KEEP:-}" ]; then
		mkdir -p "$KERNEL_KEEP" && cp -r "$SHARE/out" "$T"/*.log "$KERNEL_KEEP/"
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM


# start_server : shoal-server on the default ports (its own portmapper on 111) at
# HOST_IP, waiting at most 30 s for its ready line. Each run logs to server.N.log.
start_server() {
	local fifo=$T/ready fd line
	SRV_RUNS=$((SRV_RUNS + 1))
	rm -f "$fifo" && mkfifo "$fifo"
	"$SERVER" --ready-fd 3 --log-level "${KERNEL_LOG_LEVEL:-info}" --bind "$HOST_IP" \
		--state-dir "$STATE" "$EXPORT" 3>"$fifo" >>"$T/server.$SRV_RUNS.log" 2>&1 </dev/null &
	SRV_PID=$!
	exec {fd}<"$fifo"
	rm -f "$fifo"
	if ! read -r -t 30 -u "$fd" line; then
		exec {fd}<&-
		echo "expected a ready line from shoal-server within 30s"
		return 1
	fi
	exec {fd}<&-
	echo "shoal-server (run $SRV_RUNS, pid $SRV_PID): $line"
}

# host_op ID CMD ARGS : what the guest asked the host to do; the reply goes to ctl/ID.reply.
host_op() {
	local id=$1 cmd=$2 reply
	shift 2
	case $cmd in
	sha) reply=$(sha256sum "$EXPORT/$1" 2>&1 | cut -d' ' -f1) ;;
	stat)
		if [ -e "$EXPORT/$1" ] || [ -L "$EXPORT/$1" ]; then
			reply=$(stat -c '%a %u %g %Y %s' "$EXPORT/$1" 2>&1)
		else
			reply=missing
		fi
		;;
	ls) reply=$(ls -A "$EXPORT/$1" 2>&1) ;;
	count) reply=$(ls -A "$EXPORT/$1" 2>&1 | wc -l) ;;
	readlink) reply=$(readlink "$EXPORT/$1" 2>&1) ;;
	write) printf '%s' "$2" >"$EXPORT/$1" && reply=ok || reply="write failed" ;;
	server-kill)
		kill -KILL "$SRV_PID" && wait "$SRV_PID" 2>/dev/null
		echo "host: shoal-server (pid $SRV_PID) killed with SIGKILL"
		SRV_PID=
		reply=ok
		;;
	server-kill-at)
		# SIGKILL once the server has written at least $2 bytes of the file $1.
		local end=$((SECONDS + 120)) size=0
		while [ "$SECONDS" -lt "$end" ]; do
			size=$(stat -c %s "$EXPORT/$1" 2>/dev/null || echo 0)
			[ "$size" -ge "$2" ] && break
			sleep 0.005 # poll interval against the deadline: the write has no other signal
		done
		if [ "$size" -ge "$2" ]; then
			kill -KILL "$SRV_PID" && wait "$SRV_PID" 2>/dev/null
			echo "host: shoal-server (pid $SRV_PID) killed with SIGKILL with $size bytes of $1 written"
			SRV_PID=
			reply=ok
		else
			reply="the server never had $2 bytes of $1 (had $size)"
		fi
		;;
	server-start)
		if start_server; then reply=ok; else reply="server did not start (see its log)"; fi
		;;
	*) reply="unknown host-op $cmd" ;;
	esac
	printf '%s\n' "$reply" >"$SHARE/ctl/$id.tmp" && mv "$SHARE/ctl/$id.tmp" "$SHARE/ctl/$id.reply"
}

dump_logs() {
	local l
	for l in "$T"/server.*.log; do
		[ -f "$l" ] || continue
		echo "--- $(basename "$l") (last 80 lines) ---"
		tail -n 80 "$l" | sed 's/^/  | /'
	done
	echo "--- guest dmesg (last 80 lines) ---"
	if [ -f "$SHARE/out/dmesg.txt" ]; then
		tail -n 80 "$SHARE/out/dmesg.txt" | sed 's/^/  | /'
	else
		echo "  (the guest wrote none; its console, last 60 lines:)"
		tail -n 60 "$T/console.log" | sed 's/^/  | /'
	fi
	vm_dump_qemu_err
}

finish() {
	echo "kernel: $passed passed, $failed failed"
	[ "$failed" -eq 0 ] && exit 0
	dump_logs
	exit 1
}

start_server || {
	fail "server-start"
	finish
}
# KERNEL_PCAP=FILE: capture the VM's traffic (for debugging; needs tcpdump).
if [ -n "${KERNEL_PCAP:-}" ]; then
	tcpdump -i shoaltap0 -s 0 -U -w "$KERNEL_PCAP" 2>"$T/tcpdump.err" &
	PCAP_PID=$!
fi

# Boot: KVM if it boots the guest within the deadline, else TCG.
t_start=$SECONDS
if ! boot_guest; then
	fail "boot: expected the guest to start under one of: $accels"
	finish
fi

# The workload: follow the guest's lines until it says done, with one overall deadline.
deadline=$((t_start + ${KERNEL_TIMEOUT:-1200}))
done_line='' step=
while :; do
	# Read in slices of at most 5 s, to notice a server that died on its own.
	slice=$((SECONDS + 5))
	[ "$slice" -gt "$deadline" ] && slice=$deadline
	next_line "$slice"
	rc=$?
	if [ "$rc" -eq 2 ] && [ "$SECONDS" -lt "$deadline" ]; then
		if [ -n "$SRV_PID" ] && ! kill -0 "$SRV_PID" 2>/dev/null; then
			wait "$SRV_PID"
			fail "server: expected shoal-server to keep running, it exited with status $? (step running: ${step:-none})"
			SRV_PID=
			break
		fi
		continue
	elif [ "$rc" -eq 2 ]; then
		fail "guest: expected the workload to finish within ${KERNEL_TIMEOUT:-1200}s (step running: ${step:-none})"
		break
	elif [ "$rc" -eq 1 ]; then
		break
	fi
	case $LINE in
	"KTEST PASS "*) pass "${LINE#KTEST PASS }" ;;
	"KTEST FAIL "*) fail "${LINE#KTEST FAIL }" ;;
	"shoal-guest: step "*) step=${LINE#shoal-guest: step } ;;
	"shoal-guest: host-op "*)
		# shellcheck disable=SC2086 # the guest's words, split as it wrote them
		host_op ${LINE#shoal-guest: host-op }
		;;
	"shoal-guest: done"*)
		done_line=$LINE
		echo "$LINE (workload $((SECONDS - t_boot)) s)"
		break
		;;
	*) echo "$LINE" ;;
	esac
done
if [ -z "$done_line" ]; then
	[ "$rc" -eq 1 ] && fail "guest: expected 'shoal-guest: done' before qemu exited"
	stop_qemu
else
	# The guest powers off after done; give it 60 s.
	end=$((SECONDS + 60))
	while next_line "$end"; do :; done
	[ "$SECONDS" -ge "$end" ] && echo "qemu still running 60 s after done; killed"
	stop_qemu
fi

# The server must have survived all of it, and stop cleanly.
if [ -n "$SRV_PID" ] && kill -0 "$SRV_PID" 2>/dev/null; then
	kill -TERM "$SRV_PID"
	end=$((SECONDS + 30))
	while kill -0 "$SRV_PID" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do
		sleep 0.1 # poll interval against the deadline for the exit
	done
	if kill -0 "$SRV_PID" 2>/dev/null; then
		kill -KILL "$SRV_PID"
		wait "$SRV_PID"
		fail "server-sigterm-exit: expected shoal-server to exit within 30 s of SIGTERM"
	else
		wait "$SRV_PID"
		rc=$?
		if [ "$rc" -eq 0 ]; then pass server-sigterm-exit; else fail "server-sigterm-exit: expected 0 got $rc"; fi
	fi
	SRV_PID=
elif [ -n "$SRV_PID" ]; then
	fail "server-alive: expected shoal-server to be running at the end"
fi
echo "total $((SECONDS - t_start)) s under $booted"
finish
