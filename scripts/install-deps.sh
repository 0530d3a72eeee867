#!/bin/sh
# install-deps.sh - install the Debian 12 packages Shoal needs: run | test | bench | kernel.
#
#   run    build the server: gcc, make, pkg-config
#   test   also what `make check` uses: clang and its sanitizer runtimes, cppcheck,
#          clang-format, shellcheck, libnfs (library and nfs-ls/nfs-cp...), rpcinfo,
#          showmount, ip, unshare, pgrep, libfuse3 and mkfs.ext4 (a disk that fails on
#          demand, for the EIO case of the hardening suite; and, with mkfs.xfs and
#          mkfs.btrfs, the file systems `make check-fs` runs the tests over)
#   bench  also the peer server that `make bench` compares against (nfs-ganesha)
#   kernel what `make check-kernel` uses to boot a Linux NFS client in a VM: qemu, and
#          debootstrap to build the guest (its kernel, nfs-common and fio come from the
#          Debian mirror into the guest image, not onto this machine); e2fsprogs also
#          makes, repairs and reads the disk of `make check-power`
#
# Packages are checked with dpkg-query first, so a second run is fast and works offline;
# `apt-get update` runs only when something is missing. Package scripts are not allowed to
# start services (a temporary policy-rc.d answers 101), and any rpcbind, rpc.statd or
# ganesha daemon that appears during the install anyway is stopped again: the tests and
# `make run` bring their own portmapper on port 111.
set -eu

mode=${1:-run}

run_pkgs="build-essential pkg-config"
test_pkgs="$run_pkgs clang libclang-rt-14-dev cppcheck clang-format shellcheck libnfs-dev
	libnfs-utils rpcbind nfs-common iproute2 util-linux procps libfuse3-dev e2fsprogs
	xfsprogs btrfs-progs"
bench_pkgs="$test_pkgs nfs-ganesha nfs-ganesha-vfs"
kernel_pkgs="$run_pkgs qemu-system-x86 debootstrap e2fsprogs iproute2 util-linux procps"

case $mode in
run) want=$run_pkgs ;;
test) want=$test_pkgs ;;
bench) want=$bench_pkgs ;;
kernel) want=$kernel_pkgs ;;
*)
	echo "usage: $0 run|test|bench|kernel" >&2
	exit 2
	;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "install-deps: dpkg-query not found; this script installs Debian packages." >&2
	# shellcheck disable=SC2086 # $want is a list of package names
	echo "install-deps: install by hand the equivalents of:" $want >&2
	exit 1
fi

missing=
for p in $want; do
	status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	case $status in
	ii*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -n "$missing" ] || exit 0

echo "install-deps ($mode): installing$missing"

if [ "$(id -u)" -eq 0 ]; then
	as_root=
elif command -v sudo >/dev/null 2>&1; then
	as_root=sudo
else
	echo "install-deps: not root and no sudo; as root, run:" >&2
	echo "  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y" \
		"--no-install-recommends$missing" >&2
	exit 1
fi

# daemon_pids - pids of the daemons a package script might start, one per line.
daemon_pids()
{
	for d in /proc/[0-9]*; do
		comm=$(cat "$d/comm" 2>/dev/null) || continue
		case $comm in
		rpcbind | rpc.statd | ganesha.nfsd) echo "${d#/proc/}" ;;
		esac
	done
}

before=$(daemon_pids)

# A policy-rc.d that exits 101 tells invoke-rc.d and deb-systemd-invoke not to start
# anything. Only ours is removed afterwards; an existing one (as in containers) is kept.
policy=/usr/sbin/policy-rc.d
own_policy=
cleanup()
{
	if [ -n "$own_policy" ]; then
		$as_root rm -f "$policy"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\n# written by shoal scripts/install-deps.sh during apt-get install\nexit 101\n' |
		$as_root tee "$policy" >/dev/null
	$as_root chmod 755 "$policy"
	own_policy=1
fi

$as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -q
# shellcheck disable=SC2086 # $missing is a list of package names
$as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
	--no-install-recommends $missing

# Stop whatever the install started despite the policy (only daemons that were not
# running before, by pid); on systemd hosts also stop rpcbind's socket unit, which
# would otherwise hold port 111.
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
	for u in rpcbind.socket rpcbind.service nfs-ganesha.service; do
		if systemctl is-active --quiet "$u" 2>/dev/null; then
			case " $missing " in
			*" rpcbind "* | *" nfs-ganesha "*) $as_root systemctl stop "$u" || true ;;
			esac
		fi
	done
fi
for pid in $(daemon_pids); do
	case "
$before
" in
	*"
$pid
"*) ;;
	*)
		echo "install-deps: stopping $(cat "/proc/$pid/comm" 2>/dev/null) (pid $pid)" \
			"started by the install"
		$as_root kill "$pid" 2>/dev/null || true
		;;
	esac
done
echo "install-deps ($mode): done"
