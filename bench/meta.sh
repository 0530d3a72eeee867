#!/bin/bash
# meta.sh - the metadata speed check of issue #2: libnfs (tools/nfsload) issuing
# GETATTR, LOOKUP and ACCESS over 4 connections x 32 calls in flight, against
# shoal-server and against nfs-ganesha, one after the other in the same run, in a
# private network namespace. Prints calls/s and server CPU per call for both, and
# the ratios. Speed is only ever reported as a ratio to the peer measured here.
#
#   bench/meta.sh BUILD_DIR [SECONDS]
set -euo pipefail

build=${1:?usage: meta.sh BUILD_DIR [SECONDS]}
secs=${2:-10}
build=$(realpath "$build")
here=$(cd "$(dirname "$0")" && pwd)

if [ "${SHOAL_IN_NETNS:-}" != 1 ]; then
	exec env SHOAL_IN_NETNS=1 unshare --net --mount "$0" "$@"
fi
ip link set lo up

work=$(mktemp -d /tmp/shoal-meta.XXXXXX)
spid=""
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	"$here/ganesha.sh" stop "$work/ganesha" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/shoal-export" "$work/ganesha-export" "$work/state"

load() { # pid path
	"$build/tools/nfsload/nfsload" -c 4 -d 32 -w 2 -t "$secs" -p "$1" "$2"
}

# shoal-server: ready line on fd 3 tells us it serves.
exec 3< <("$build/shoal-server" --no-portmap --state-dir "$work/state" --ready-fd 1 \
	--log-level warn "$work/shoal-export" 2>"$work/shoal.log")
spid=$!
read -r -t 20 ready <&3 || { echo "meta.sh: shoal-server did not start" >&2; cat "$work/shoal.log" >&2; exit 1; }
spid=$(pgrep -f -n "shoal-server --no-portmap --state-dir $work/state")
shoal=$(load "$spid" "$work/shoal-export")
kill "$spid"
for ((i = 0; i < 100; i++)); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
spid=""

gpid=$("$here/ganesha.sh" start "$work/ganesha-export" "$work/ganesha")
ganesha=$(load "$gpid" /bench)
"$here/ganesha.sh" stop "$work/ganesha"

field() { printf '%s\n' "$1" | tr ' ' '\n' | grep -A1 -x "$2" | tail -n 1; }
s_rate=$(field "$shoal" calls_per_s)
g_rate=$(field "$ganesha" calls_per_s)
s_cpu=$(field "$shoal" server_cpu_us_per_call)
g_cpu=$(field "$ganesha" server_cpu_us_per_call)
echo "GETATTR/LOOKUP/ACCESS, libnfs, 4 connections x 32 in flight, ${secs}s measured, $(nproc) CPUs"
printf '%-14s %12s %22s\n' server "calls/s" "server CPU us/call"
printf '%-14s %12s %22s\n' shoal-server "$s_rate" "$s_cpu"
printf '%-14s %12s %22s\n' nfs-ganesha "$g_rate" "$g_cpu"
awk -v a="$s_rate" -v b="$g_rate" -v c="$s_cpu" -v d="$g_cpu" 'BEGIN {
	printf "shoal/ganesha: throughput %.2fx, server CPU per call %.2fx\n", a / b, c / d }'
