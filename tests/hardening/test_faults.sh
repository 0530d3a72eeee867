#!/bin/bash
# test_faults.sh - faults from below (tests/hardening/faults.c): a full tmpfs export gives
# NFS3ERR_NOSPC, a read-only bind mount exported rw gives NFS3ERR_ROFS, an export
# directory removed or replaced while served gives NFS3ERR_STALE for old handles, and a
# device that fails every I/O under ext4 (device-mapper's "error" target, or a loop
# device over faildisk's FUSE file) gives NFS3ERR_IO; after each the server still serves
# and exits 0 on SIGTERM. Mounts happen in run.sh's private mount namespace. Where EIO
# cannot be provoked (neither device-mapper nor FUSE), the case is reported NOT RUN and
# never counted as passed. SOAK=1 repeats the cases.
. "$(dirname "$0")/../integration/lib.sh"

F=$IT_BUILD/tests/hardening/faults
cases=0

not_run=()
mounts=()
loopdev=
dmname=
fusemnt=

cleanup_mounts() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -l "${mounts[$i]}" 2>/dev/null
	done
	[ -n "$dmname" ] && dmsetup remove --force "$dmname" 2>/dev/null
	[ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null
	[ -n "$fusemnt" ] && umount -l "$fusemnt" 2>/dev/null
	return 0
}
trap 'cleanup_mounts; it_cleanup' EXIT

if [ "$(awk '$5 == "/" {print $0}' /proc/self/mountinfo | grep -c shared)" -ne 0 ]; then
	fail "namespace: expected a private mount namespace (run me through run.sh)"
	it_done
fi

# fault NAME SERVER-DIR ARGS... : one server on SERVER-DIR, one faults run, a clean stop.
fault() {
	local name=$1 dir=$2 out rc
	shift 2
	start_server "$name" --state-dir "$T/state-$name" "$dir" || return 1
	out=$("$F" "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/    /'
	if [ "$rc" -eq 0 ]; then
		ok "$name"
		cases=$((cases + 1))
	else
		fail "$name: expected exit status 0 from faults $1 got $rc"
	fi
	stop_server "$name"
	return 0
}

rounds=1
[ -n "${SOAK:-}" ] && rounds=5
for ((round = 1; round <= rounds; round++)); do
	# ENOSPC: 1 MiB of blocks and 16 inodes.
	full=$T/full
	mkdir -p "$full"
	if mount -t tmpfs -o size=1m,nr_inodes=16,mode=755 tmpfs "$full"; then
		mounts+=("$full")
		fault nospc "$full" nospc 127.0.0.1 "$full"
		umount "$full" && unset 'mounts[-1]'
	else
		fail "nospc: expected to mount a 1 MiB tmpfs"
	fi

	# EROFS: a read-only bind mount, exported read-write.
	src=$T/rosrc ro=$T/ro
	mkdir -p "$src" "$ro"
	echo data >"$src/file"
	if mount --bind "$src" "$ro" && mounts+=("$ro") && mount -o remount,ro,bind "$ro"; then
		fault rofs "$ro" rofs 127.0.0.1 "$ro" file
		umount "$ro" && unset 'mounts[-1]'
	else
		fail "rofs: expected a read-only bind mount of $src"
	fi

	# The export directory removed, then replaced by a new directory.
	for mode in rmdir rename; do
		gone=$T/gone-$mode
		rm -rf "$gone" "$gone.old"
		mkdir -p "$gone"
		fault "stale-$mode" "$gone" stale 127.0.0.1 "$gone" "$mode"
	done
done

# EIO: ext4 on a block device whose every I/O fails once the test says so: a
# device-mapper device whose table is swapped for the "error" target or, where the kernel
# has no device-mapper, a loop device over faildisk's file (FUSE) once its flag exists.
eio_reason='' eio_how=''
if command -v dmsetup >/dev/null && dmsetup version >/dev/null 2>&1; then
	eio_how=dm
elif [ -c /dev/fuse ] && grep -qw fuse /proc/filesystems; then
	eio_how=fuse
else
	eio_reason="neither device-mapper (dmsetup version fails) nor FUSE (/dev/fuse) is in this kernel, and a loop device returns zeros, not EIO"
fi

# eio_device: set up the device that fails on demand, its name in $eio_dev.
eio_device() {
	local img=$T/eio.img

	truncate -s 32M "$img" || return 1
	if [ "$eio_how" = dm ]; then
		loopdev=$(losetup --find --show "$img") || return 1
		dmname=shoal-eio-$$
		dmsetup create "$dmname" --table "0 65536 linear $loopdev 0" || return 1
		eio_dev=/dev/mapper/$dmname
	else
		fusemnt=$T/eio-fuse
		mkdir -p "$fusemnt"
		"$IT_BUILD/tests/hardening/faildisk" "$img" "$T/eio.flag" "$fusemnt" || return 1
		loopdev=$(losetup --find --show "$fusemnt/disk") || return 1
		eio_dev=$loopdev
	fi
}

# eio_fail: from now on every I/O of the device fails.
eio_fail() {
	if [ "$eio_how" = dm ]; then
		dmsetup suspend "$dmname" && dmsetup reload "$dmname" --table "0 65536 error" &&
			dmsetup resume "$dmname"
	else
		touch "$T/eio.flag"
	fi
}

if [ -z "$eio_reason" ]; then
	mnt=$T/eio
	mkdir -p "$mnt"
	if eio_device && mkfs.ext4 -q "$eio_dev" && mount "$eio_dev" "$mnt"; then
		mounts+=("$mnt")
		head -c 65536 /dev/urandom >"$mnt/file"
		sync
		start_server eio --state-dir "$T/state-eio" "$mnt" &&
			eio_fail && echo 3 >/proc/sys/vm/drop_caches &&
			run_tool "eio ($eio_how)" "$F" eio 127.0.0.1 "$mnt" file && cases=$((cases + 1))
		stop_server eio
	else
		fail "eio: expected to build ext4 on a device that fails on demand ($eio_how)"
	fi
fi
if [ -n "$eio_reason" ]; then
	not_run+=("eio")
	echo "NOT RUN eio: $eio_reason"
fi

summary="faults: $cases cases"
[ "${#not_run[@]}" -gt 0 ] && summary="$summary, NOT RUN: ${not_run[*]}"
echo "$summary"
it_done
