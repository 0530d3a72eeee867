#!/bin/bash
# ganesha.sh - start nfs-ganesha (Debian's nfs-ganesha + nfs-ganesha-vfs) as the peer
# that Shoal is measured against.
#
#   bench/ganesha.sh start EXPORT_DIR WORK_DIR   -> prints the daemon's pid
#   bench/ganesha.sh stop WORK_DIR
#
# Must run inside a private network namespace (bench/meta.sh and make bench create
# one): ganesha 4.3 exits at start unless an rpcbind answers, so this starts a private
# rpcbind there too. That rpcbind keeps its lock (/run/rpcbind.lock), its local socket
# (/run/rpcbind.sock, which libtirpc servers such as ganesha register through, whatever
# their network namespace) and its state (/run/rpcbind/) under /run: so that it neither
# collides with, nor answers for, an rpcbind of another namespace, start mounts a
# private tmpfs over /run, and refuses to run outside a private mount namespace
# (unshare --net --mount). NFSv3 only, over TCP, export at pseudo path /bench (so clients
# mount HOST:/bench), no grace period, no root squash: the same service Shoal gives
# in its quick start.
set -euo pipefail

cmd=${1:?usage: ganesha.sh start EXPORT_DIR WORK_DIR | stop WORK_DIR}

wait_port() { # proto port deadline-in-tenths
	local i
	for ((i = 0; i < $3; i++)); do
		ss -ln"$1" | grep -q ":$2 " && return 0
		sleep 0.1
	done
	echo "ganesha.sh: nothing listens on $1 port $2" >&2
	return 1
}

case $cmd in
start)
	export_dir=$(realpath "$2")
	work=$(realpath "$3")
	mkdir -p "$work"
	if [ "$(readlink /proc/self/ns/mnt)" = "$(readlink /proc/1/ns/mnt)" ] ||
		[ "$(readlink /proc/self/ns/net)" = "$(readlink /proc/1/ns/net)" ]; then
		echo "ganesha.sh: run me in a private network and mount namespace" \
			"(unshare --net --mount)" >&2
		exit 1
	fi
	# a private /run for this namespace's rpcbind (see above); once per namespace
	if [ ! -e /run/.shoal-private ]; then
		mount -t tmpfs -o mode=0755 tmpfs /run
		touch /run/.shoal-private
	fi
	mkdir -p /run/rpcbind
	chown _rpc /run/rpcbind 2>/dev/null || true
	cat >"$work/ganesha.conf" <<CONF
NFS_CORE_PARAM {
	Protocols = 3;
	NFS_Port = 2049;
	MNT_Port = 20048;
	Enable_NLM = false;
	Enable_RQUOTA = false;
	Mount_Path_Pseudo = true;
}
NFSV4 { Graceless = true; }
NFS_KRB5 { Active_krb5 = false; }
EXPORT {
	Export_Id = 1;
	Path = $export_dir;
	Pseudo = /bench;
	Access_Type = RW;
	Squash = No_Root_Squash;
	Protocols = 3;
	Transports = TCP;
	SecType = sys;
	FSAL { Name = VFS; }
}
CONF
	rpcbind -f >"$work/rpcbind.log" 2>&1 &
	echo $! >"$work/rpcbind.pid"
	wait_port u 111 50
	wait_port t 111 50
	rpcinfo -p 127.0.0.1 >/dev/null || { cat "$work/rpcbind.log" >&2; exit 1; }
	ganesha.nfsd -F -f "$work/ganesha.conf" -L "$work/ganesha.log" -p "$work/ganesha.pid" \
		-N NIV_EVENT >/dev/null 2>&1 &
	echo $! >"$work/ganesha.daemon.pid"
	wait_port t 2049 200 || { tail -n 20 "$work/ganesha.log" >&2; exit 1; }
	wait_port t 20048 100
	cat "$work/ganesha.daemon.pid"
	;;
stop)
	work=$(realpath "$2")
	for f in ganesha.daemon.pid rpcbind.pid; do
		[ -f "$work/$f" ] || continue
		pid=$(cat "$work/$f")
		kill "$pid" 2>/dev/null || true
		# The daemon is our child only in the shell that started it; poll its exit.
		for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
		rm -f "$work/$f"
	done
	;;
*)
	echo "usage: ganesha.sh start EXPORT_DIR WORK_DIR | stop WORK_DIR" >&2
	exit 2
	;;
esac
