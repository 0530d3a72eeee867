#!/bin/bash
# build-image.sh - build (or reuse) the guest that `make check-kernel` boots: a Debian 12
# userland with its own kernel, initrd, nfs-common, rpcbind and fio, as an ext4 image;
# and a second kernel for it, Debian 12's 6.12 (from bookworm-security), which has "ext4:
# fix fsync(2) for nojournal mode" where the first (6.1) behaves as kernels without it
# did (`make check-power` runs its no-journal phases under both).
#
#   bash tests/kernel/build-image.sh [CACHE-DIR]    prints the image directory
#
# The image lives in CACHE-DIR/<hash of this file> (default /var/cache/shoal-vm, outside
# the work tree) and holds vmlinuz, initrd.img (6.1), vmlinuz-6.12, initrd-6.12.img and
# root.img; it is rebuilt only when this recipe changes. Packages are downloaded from the
# host's Debian mirror by debootstrap (first stage) and the second kernel's by the host's
# apt (the only steps that use the network); they are configured in a chroot inside
# private network, mount and pid namespaces with a policy-rc.d that refuses to start
# services, so nothing the packages start can reach or outlive the build.
# What the guest runs is not in the image: its init mounts the host directory the test
# shares (9p) and runs guest.sh from there, so editing the workload needs no rebuild.
set -euo pipefail

cache=${1:-${SHOAL_VM_CACHE:-/var/cache/shoal-vm}}
suite=bookworm
mirror=${SHOAL_VM_MIRROR:-http://deb.debian.org/debian}
pkgs=linux-image-amd64,initramfs-tools,udev,kmod,netbase,nfs-common,rpcbind,fio,iproute2,procps,psmisc
hash=$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)
dir=$cache/$hash

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -f "$dir/ok" ]; then
	touch "$dir" # last used; images of other recipes unused for 14 days are removed
	echo "$dir"
	exit 0
fi

for tool in debootstrap mkfs.ext4 unshare; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "build-image: $tool not found (sh scripts/install-deps.sh kernel)" >&2
		exit 1
	fi
done

start=$(date +%s)
work=$cache/tmp.$hash
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
root=$work/root
log=$cache/build.log
# run_logged WHAT CMD... : CMD's output goes to the build log, shown (its end) on failure.
run_logged() {
	local what=$1
	shift
	echo "build-image: $what" >&2
	if ! "$@" >>"$log" 2>&1; then
		echo "build-image: FAILED: $what; the end of $log:" >&2
		tail -n 40 "$log" | sed 's/^/  | /' >&2
		exit 1
	fi
}
: >"$log"
run_logged "debootstrap $suite into $root (packages from $mirror)" \
	debootstrap --variant=minbase --foreign --include="$pkgs" "$suite" "$root" "$mirror"
# The second kernel: the package that Debian 12's linux-image-6.12-amd64 points at (the
# host's package lists are refreshed once if they do not know it).
lts_package() {
	apt-cache depends linux-image-6.12-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-6\.12\.[^ ]*-amd64\)$/\1/p' | head -n 1
}
lts=$(lts_package)
if [ -z "$lts" ]; then
	run_logged "apt-get update (the host knows no linux-image-6.12-amd64)" apt-get update
	lts=$(lts_package)
fi
if [ -z "$lts" ]; then
	echo "build-image: FAILED: the host's apt knows no linux-image-6.12-amd64 (bookworm-security)" >&2
	exit 1
fi
mkdir -p "$work/debs"
run_logged "downloading $lts" sh -c 'cd "$1" && apt-get download "$2"' sh "$work/debs" "$lts"
cp "$work/debs"/*.deb "$root/tmp/"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
run_logged "configuring the packages (second stage, offline)" \
	unshare --mount --net --pid --fork --kill-child -- \
	chroot "$root" /debootstrap/debootstrap --second-stage
run_logged "installing $lts (offline)" \
	unshare --mount --net --pid --fork --kill-child -- \
	chroot "$root" sh -c 'dpkg -i /tmp/*.deb && rm -f /tmp/*.deb'

# The init the kernel starts: mount the basics, then the host's share, and run the
# workload from it. Whatever happens, the machine powers off (qemu runs with -no-reboot).
cat >"$root/sbin/shoal-init" <<'EOT'
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /dev/shm
echo "shoal-guest: init $(uname -r)"
modprobe 9pnet_virtio && modprobe 9p
mkdir -p /host
if mount -t 9p -o trans=virtio,version=9p2000.L,cache=none,msize=262144 host /host &&
	[ -f /host/guest.sh ]; then
	/bin/bash /host/guest.sh
else
	echo "shoal-guest: FAIL could not mount the host share with guest.sh"
fi
sync
echo "shoal-guest: poweroff"
echo o >/proc/sysrq-trigger
sleep 60
EOT
chmod 755 "$root/sbin/shoal-init"
echo shoal-guest >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 shoal-guest\n' >"$root/etc/hosts"
: >"$root/etc/fstab"
rm -f "$root/usr/sbin/policy-rc.d"

kver=$(basename "$(ls -d "$root"/lib/modules/6.1.* | head -n 1)")
lver=$(basename "$(ls -d "$root"/lib/modules/6.12.* | head -n 1)")
cp "$root/boot/vmlinuz-$kver" "$work/vmlinuz"
cp "$root/boot/initrd.img-$kver" "$work/initrd.img"
cp "$root/boot/vmlinuz-$lver" "$work/vmlinuz-6.12"
cp "$root/boot/initrd.img-$lver" "$work/initrd-6.12.img"
rm -rf "${root:?}/var/cache/apt/archives"/*.deb "${root:?}/boot"/*
echo "$kver" >"$work/kernel-version"
echo "$lver" >"$work/kernel-version-6.12"
run_logged "making the ext4 root image" mkfs.ext4 -q -F -L shoal-root -d "$root" "$work/root.img" 2G
rm -rf "$root"
echo "built $(date -u +%FT%TZ) in $(($(date +%s) - start)) s, kernels $kver and $lver" >"$work/ok"
rm -rf "$dir"
mv "$work" "$dir"
trap - EXIT
find "$cache" -mindepth 1 -maxdepth 1 -type d ! -name "$hash" -mtime +14 -exec rm -rf {} +
echo "build-image: $(cat "$dir/ok")" >&2
echo "$dir"
