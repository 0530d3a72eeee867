#!/bin/sh
# run.sh - what `make run` calls: serve EXPORT_DIR in the foreground until Ctrl-C.
#
#   sh scripts/run.sh SERVER EXPORT_DIR [STATE_DIR]
#
# As root the server takes the standard ports (portmap 111, nfs 2049, mount 20048); if a
# system rpcbind already holds port 111 the server registers with it (--rpcbind) instead.
# As another user it cannot bind port 111, so it runs with --no-portmap on 2049/20048 and
# the client must name the ports. Before starting, it prints how to mount the export.
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 SERVER EXPORT_DIR [STATE_DIR]" >&2
	exit 2
fi
server=$1
repo=$(cd "$(dirname "$0")/.." && pwd -P)
mkdir -p "$2"
export_dir=$(cd "$2" && pwd -P)
state_dir=${3:-$repo/.shoal-state}
mkdir -p "$state_dir"
nfs_port=${NFS_PORT:-2049}
mount_port=${MOUNT_PORT:-20048}

# port_listening PORT - true if something listens on TCP PORT (read from /proc, so that
# this needs no package beyond the ones `make run` installs).
port_listening()
{
	hex=$(printf ':%04X ' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p="$hex" 'index($2 " ", p) && $4 == "0A" { found = 1 } END { exit !found }'
}

# The address other machines reach this one at: the first non-loopback IPv4 address.
host=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+\.' | grep -v '^127\.' |
	head -n 1 || true)
[ -n "$host" ] || host=127.0.0.1

set -- --state-dir "$state_dir" --nfs-port "$nfs_port" --mount-port "$mount_port"
if [ "$(id -u)" -eq 0 ]; then
	if port_listening 111; then
		echo "Port 111 is taken (a system rpcbind?): registering with it (--rpcbind)."
		set -- "$@" --rpcbind
	fi
	opts="vers=3"
	note='Shoal has no lock manager (NLM) yet: add ",nolock" if client programs take locks.'
else
	echo "Not root: no portmapper on port 111 (--no-portmap); clients must name the ports."
	set -- "$@" --no-portmap
	opts="vers=3,proto=tcp,port=$nfs_port,mountport=$mount_port,mountproto=tcp,nolock"
	note='(nolock: without a portmapper the client cannot reach a lock manager.)'
fi

cat <<EOF

Shoal serves $export_dir
Mount it from Linux (as root on the client):

    mount -t nfs -o $opts $host:$export_dir /mnt

$note
From this machine itself, use 127.0.0.1 as the host.
Server state is kept in $state_dir.
Stop the server with Ctrl-C.

EOF

exec "$server" "$@" "$export_dir"
