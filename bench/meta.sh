#!/bin/bash
# meta.sh - the metadata speed check of issue #2: libnfs (tools/nfsload) issuing
# GETATTR, LOOKUP and ACCESS over 4 connections x 32 calls in flight, against
# shoal-server and against nfs-ganesha, one after the other in the same run, in a
# private network namespace. Prints calls/s and server CPU per call for both, and
# the ratios. Speed is only ever reported as a ratio to the peer measured here.
#
#   bench/meta.sh BUILD_DIR [SECONDS]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

bench_build "${1:-}"
secs=${2:-10}
case $secs in '' | *[!0-9]* | 0) echo "meta.sh: SECONDS is a whole number, not '$secs'" >&2; exit 2 ;; esac
bench_netns "$@"

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

bench_start_shoal "$work/state" "$work/shoal-export" "$work/shoal.log" --log-level warn
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
