#!/bin/bash
# point.sh - one load point of shoal-bench against a fresh shoal-server (or nfs-ganesha)
# in a private network namespace: for looking into one load and one mix at a time,
# where bench/sfs.sh runs whole ladders. The fileset is the one make bench uses (sized
# for 5,000 op/s) unless --fileset-load says otherwise, created and flushed to disk
# before the point. Prints shoal-bench's point line, the server's CPU per op by thread
# group, the machine's CPUs (busy, stolen, idle) and a line per operation; leaves in DIR
# the bench log and JSON, the server's log (for shoal-server with its per-procedure
# statistics, taken by SIGUSR1 just before and just after the point: subtract the two)
# and, with --perf, a `perf record -a -g` of the measured interval (perf.data).
#
#   bench/point.sh BUILD_DIR [--server shoal|ganesha] [--load OPS] [--fileset-load OPS]
#                  [--mix FILE | --op NAME] [--warmup S] [--runtime S] [--perf]
#                  [--in-flight N] [--bench-arg ARG]... [--out DIR]
#                  [-- SHOAL_SERVER_ARGS...]
#
# Defaults: shoal, 10,000 op/s, the SFS2008 mix, 3 s warm-up + 10 s measured,
# shoal-bench's own calls in flight per load process (8), DIR = BUILD_DIR/bench-point.
# --bench-arg passes one more argument to shoal-bench (--threads 2, say); with --uid
# and --gid the export is that user's, and the fileset is made by that user's calls.
# --op GETATTR is a mix of that one operation. Speed is judged only against a peer
# measured alike, never from one point.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

bench_build "${1:-}"
shift

server=shoal
load=10000
fileset_load=5000
mix=
op=
warmup=3
runtime=10
perf=0
in_flight=
bench_extra=()
out=$build/bench-point
srv_args=()
orig_args=("$@")
while [ $# -gt 0 ]; do
	case $1 in
	--server) server=${2:?--server needs shoal or ganesha}; shift ;;
	--load) load=${2:?--load needs a value}; shift ;;
	--fileset-load) fileset_load=${2:?--fileset-load needs a value}; shift ;;
	--mix) mix=$(realpath "${2:?--mix needs a file}"); shift ;;
	--op) op=${2:?--op needs an operation name}; shift ;;
	--warmup) warmup=${2:?--warmup needs a value}; shift ;;
	--runtime) runtime=${2:?--runtime needs a value}; shift ;;
	--perf) perf=1 ;;
	--in-flight) in_flight=${2:?--in-flight needs a value}; shift ;;
	--bench-arg) bench_extra+=("${2:?--bench-arg needs a value}"); shift ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	--) shift; srv_args=("$@"); break ;;
	-h | --help) bench_usage ;;
	*) echo "point.sh: unknown argument $1" >&2; bench_usage ;;
	esac
	shift
done
case $server in shoal | ganesha) ;; *) echo "point.sh: --server is shoal or ganesha" >&2; exit 2 ;; esac
for v in "$load" "$fileset_load"; do
	case $v in '' | *[!0-9]* | 0) echo "point.sh: a load is a whole number of op/s, not '$v'" >&2; exit 2 ;; esac
done
if [ -n "$mix" ] && [ -n "$op" ]; then
	echo "point.sh: give --mix or --op, not both" >&2
	exit 2
fi
if [ "$server" = ganesha ] && [ ${#srv_args[@]} -gt 0 ]; then
	echo "point.sh: server arguments are for shoal-server only" >&2
	exit 2
fi
for t in shoal-server shoal-bench; do
	[ -x "$build/$t" ] || { echo "point.sh: $build/$t is not built" >&2; exit 1; }
done
if [ "$perf" = 1 ] && ! command -v perf >/dev/null; then
	echo "point.sh: --perf needs perf (Debian's linux-perf)" >&2
	exit 1
fi

bench_netns "$build" "${orig_args[@]}"
mkdir -p "$out"
out=$(realpath "$out")
rm -f "$out/perf.data"

work=$(mktemp -d "${SFS_TMP:-/tmp}/shoal-point.XXXXXX")
spid=""
cleanup() {
	[ -n "$spid" ] && [ "$server" = shoal ] && kill "$spid" 2>/dev/null
	"$here/ganesha.sh" stop "$work/ganesha" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

if [ -n "$op" ]; then
	mix=$out/mix.txt
	printf 'SFS MIXFILE VERSION 2\n%s 100%%\n' "$op" >"$mix"
fi

mkdir -p "$work/export"
bench_export_owner "$work/export" ${bench_extra[@]+"${bench_extra[@]}"}
if [ "$server" = shoal ]; then
	mkdir -p "$work/state"
	bench_start_shoal "$work/state" "$work/export" "$out/server.log" --log-level info \
		"${srv_args[@]}"
	export_path=$work/export
else
	spid=$("$here/ganesha.sh" start "$work/export" "$work/ganesha")
	export_path=/bench
fi

scale=$(bench_fileset_scale "$fileset_load" "$load")
args=(--host 127.0.0.1 --export "$export_path" --nfs-port 2049 --mount-port 20048
	--load "$load" --fileset-scale "$scale" --server-pid "$spid" --no-progress)
"$build/shoal-bench" "${args[@]}" ${bench_extra[@]+"${bench_extra[@]}"} --populate-only \
	>"$out/populate.log" 2>&1 || {
	echo "point.sh: creating the fileset failed:" >&2
	tail -n 20 "$out/populate.log" >&2
	exit 1
}
sync
[ "$server" = shoal ] && kill -USR1 "$spid"
perf_pid=
if [ "$perf" = 1 ]; then
	# the measured interval, less a second at each end for the start and the settle
	(sleep "$(awk -v w="$warmup" 'BEGIN { print w + 2 }')"
		perf record -a -g -o "$out/perf.data" -- sleep "$(awk -v r="$runtime" \
			'BEGIN { print (r > 2 ? r - 2 : 1) }')") >"$out/perf.log" 2>&1 &
	perf_pid=$!
fi
rc=0
"$build/shoal-bench" "${args[@]}" --reuse-fileset --points 1 --warmup "$warmup" \
	--runtime "$runtime" ${mix:+--mix "$mix"} ${in_flight:+--in-flight "$in_flight"} \
	${bench_extra[@]+"${bench_extra[@]}"} --json "$out/point.json" >"$out/point.log" 2>&1 ||
	rc=$?
[ "$server" = shoal ] && kill -USR1 "$spid"
# not a bare wait: the server, started in a process substitution, never ends by itself
[ -n "$perf_pid" ] && wait "$perf_pid"
grep -E '^(point|threads|machine|op) ' "$out/point.log" || tail -n 20 "$out/point.log" >&2
files="point.log, point.json"
[ "$server" = shoal ] && files+=", server.log"
[ "$perf" = 1 ] && files+=", perf.data"
echo "point.sh: in $out: $files" >&2
exit "$rc"
