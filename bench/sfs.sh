#!/bin/bash
# sfs.sh - the SFS2008-style side by side of issue #4: shoal-bench runs the same
# workload (SFS2008 NFSv3 mix, same fileset rules and load ladder rules) against
# shoal-server and against nfs-ganesha, one after the other, each on a fresh directory
# of the same file system, in a private network namespace. Then shoal-bench-report
# writes a text report per server, one SVG with both curves, and the comparison table
# with the ratios shoal/ganesha (peak op/s, ORT, server CPU per op at the peak).
#
#   bench/sfs.sh BUILD_DIR [--full] [--load OPS] [--points N] [--no-auto-peak]
#                [--warmup S --runtime S] [--peak-warmup S --peak-runtime S]
#                [--probe-warmup S --probe-runtime S]
#                [--repeat N] [--equal-loads] [--desc FILE] [--out DIR]
#                [-- SHOAL_BENCH_ARGS...]
#
# Default (quick): 5 load points of 5 s warm-up + 10 s measured each, after an
# automatic search for each server's peak starting at --load (default 5000 op/s, which
# also sizes the fileset: 120 MiB x 0.001 per op/s): probes of 1 s + 2 s find roughly
# where the server stops keeping up, then trials as long as the points pin the peak
# down within 6%: about 6 minutes a round on 2 CPUs. --probe-warmup S --probe-runtime S
# set the probes (--probe-runtime 0: none, every step a trial, about 9 minutes),
# --peak-warmup S --peak-runtime S the trials (doc/bench/history.md).
# --full: SFS2008's 300 s warm-up + 300 s measured and 10 points, and trials as long
# (several hours).
# --repeat N: N rounds of the pair, the order of the two servers swapped every other
# round, each with fresh directories; then the ratios of every round and their median
# (rounds.txt), and one SVG of the curves of the first 6 rounds (rounds.svg). On a
# shared or virtual machine the ratios of two runs can differ by a third: one round
# proves little.
# --equal-loads: after each pair, shoal-server once more (fresh directory and server)
# at the loads ganesha was asked for in that round (its ladder, no search), labelled
# shoal-eq (shoal-eq-rN), and the ratios of that run to ganesha's (equal-loads.txt):
# what each server answers at the same offered load, beside the ORT of issue #4, which
# takes each server over its own ladder, and their curves (equal-loads.svg, the first 6
# rounds). About 1.5 minutes more a round.
# Results go to DIR (default BUILD_DIR/bench-sfs). The exports are made under $SFS_TMP
# (default /tmp): point it at another file system to measure both servers there.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

bench_build "${1:-}"
shift

load=5000
points=5
warmup=5
runtime=10
peak_warmup=
peak_runtime=
probe_warmup=1
probe_runtime=2
auto=--auto-peak
desc=
out=$build/bench-sfs
repeat=1
equal=0
extra=()
orig_args=("$@")
while [ $# -gt 0 ]; do
	case $1 in
	--full) warmup=300 runtime=300 points=10 ;;
	--load) load=${2:?--load needs a value}; shift ;;
	--points) points=${2:?--points needs a value}; shift ;;
	--warmup) warmup=${2:?--warmup needs a value}; shift ;;
	--runtime) runtime=${2:?--runtime needs a value}; shift ;;
	--peak-warmup) peak_warmup=${2:?--peak-warmup needs a value}; shift ;;
	--peak-runtime) peak_runtime=${2:?--peak-runtime needs a value}; shift ;;
	--probe-warmup) probe_warmup=${2:?--probe-warmup needs a value}; shift ;;
	--probe-runtime) probe_runtime=${2:?--probe-runtime needs a value}; shift ;;
	--no-auto-peak) auto= ;;
	--repeat) repeat=${2:?--repeat needs a value}; shift ;;
	--equal-loads) equal=1 ;;
	--desc) desc=$(realpath "${2:?--desc needs a file}"); shift ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	--) shift; extra=("$@"); break ;;
	-h | --help) bench_usage ;;
	*) echo "sfs.sh: unknown argument $1" >&2; bench_usage ;;
	esac
	shift
done
# A search trial is as long as a point unless told otherwise.
peak_warmup=${peak_warmup:-$warmup}
peak_runtime=${peak_runtime:-$runtime}
case $repeat in
'' | *[!0-9]* | 0) echo "sfs.sh: --repeat needs a count of 1 or more, not '$repeat'" >&2; exit 2 ;;
esac
for t in shoal-server shoal-bench shoal-bench-report; do
	[ -x "$build/$t" ] || { echo "sfs.sh: $build/$t is not built" >&2; exit 1; }
done

bench_netns "$build" "${orig_args[@]}"
mkdir -p "$out"
out=$(realpath "$out")

work=$(mktemp -d "${SFS_TMP:-/tmp}/shoal-sfs.XXXXXX")
spid=""
cleanup() {
	if [ -n "$spid" ]; then
		kill "$spid" 2>/dev/null || true
	fi
	"$here/ganesha.sh" stop "$work/ganesha" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# bench LABEL DESC PID EXPORT [TOP]: one shoal-bench run, its JSON in $out/LABEL.json;
# with TOP, a ladder up to TOP op/s with no search for the peak (--equal-loads), the
# fileset still sized by --load.
bench() {
	local args=(--host 127.0.0.1 --export "$4" --nfs-port 2049 --mount-port 20048
		--load "${5:-$load}" --points "$points" --warmup "$warmup" --runtime "$runtime"
		--label "$1" --server-desc "$2" --server-pid "$3" --json "$out/$1.json"
		--no-progress)
	[ -n "${5:-}" ] && args+=(--fileset-scale "$(bench_fileset_scale "$load" "$5")")
	[ -n "$auto" ] && [ -z "${5:-}" ] && args+=("$auto" --peak-warmup "$peak_warmup" --peak-runtime "$peak_runtime"
		--probe-warmup "$probe_warmup" --probe-runtime "$probe_runtime")
	# Create the fileset first and flush it to disk, so that the writeback of the
	# freshly created files does not land on the first measured points of either
	# server (it would slow their stable writes for reasons not of their making).
	"$build/shoal-bench" "${args[@]}" "${extra[@]}" --populate-only >"$out/$1.populate.log" 2>&1 || {
		echo "sfs.sh: creating the fileset on $1 failed:" >&2
		tail -n 20 "$out/$1.populate.log" >&2
		return 1
	}
	sync
	args+=(--reuse-fileset)
	echo "sfs.sh: $1: shoal-bench ${args[*]} ${extra[*]}" >&2
	"$build/shoal-bench" "${args[@]}" "${extra[@]}" >"$out/$1.log" 2>&1 || {
		echo "sfs.sh: shoal-bench against $1 failed:" >&2
		tail -n 20 "$out/$1.log" >&2
		return 1
	}
	tail -n 1 "$out/$1.log" >&2
}

# run_shoal LABEL [TOP]: shoal-server in its quick-start mode (one directory,
# read-write, no root squash) on a fresh directory; TOP as for bench().
shoal_ver=$("$build/shoal-server" --version 2>/dev/null | head -n 1)
run_shoal() {
	rm -rf "$work/shoal-export" "$work/state"
	mkdir -p "$work/shoal-export" "$work/state"
	bench_export_owner "$work/shoal-export" ${extra[@]+"${extra[@]}"}
	bench_start_shoal "$work/state" "$work/shoal-export" "$work/shoal.log" --log-level warn
	bench "$1" "${shoal_ver:-shoal-server}" "$spid" "$work/shoal-export" ${2:+"$2"}
	kill "$spid"
	for ((i = 0; i < 100; i++)); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
	spid=""
}

# run_ganesha LABEL: nfs-ganesha on a fresh directory, started by ganesha.sh.
gver=$(dpkg-query -W -f='${Version}' nfs-ganesha 2>/dev/null || echo unknown)
run_ganesha() {
	local gpid

	rm -rf "$work/ganesha-export" "$work/ganesha"
	mkdir -p "$work/ganesha-export"
	bench_export_owner "$work/ganesha-export" ${extra[@]+"${extra[@]}"}
	gpid=$("$here/ganesha.sh" start "$work/ganesha-export" "$work/ganesha")
	bench "$1" "nfs-ganesha $gver (FSAL VFS)" "$gpid" /bench
	"$here/ganesha.sh" stop "$work/ganesha"
}

# requested_top LABEL: the highest load the run LABEL asked for (its ladder's top).
requested_top() {
	grep -o '"requested_ops": [0-9.]*' "$out/$1.json" |
		awk '$2 + 0 > t { t = $2 + 0 } END { if (t > 0) printf "%.0f\n", t }'
}

# run_equal SUFFIX: with --equal-loads, shoal-server at the loads of ganesha$SUFFIX's
# ladder, and the ratios of that run to ganesha's in comparison-eq$SUFFIX.txt.
run_equal() {
	local top

	[ "$equal" = 1 ] || return 0
	top=$(requested_top "ganesha$1")
	[ -n "$top" ] || { echo "sfs.sh: no ladder in ganesha$1.json" >&2; return 1; }
	run_shoal "shoal-eq$1" "$top"
	"${report[@]}" --no-report "$out/shoal-eq$1.json" "$out/ganesha$1.json" \
		>"$out/comparison-eq$1.txt"
}

# equal_table: with --equal-loads, the ratios of each round's shoal-eq run to ganesha's.
equal_table() {
	[ "$equal" = 1 ] || return 0
	echo
	{
		echo "shoal-server at the loads ganesha was asked for (shoal-eq), against ganesha:"
		ratios_table eq
		echo "shoal-eq / ganesha at the same requested loads; each ORT over its own valid"
		echo "points (ganesha's up to its peak); not one of the bars of issue #4"
	} | tee "$out/equal-loads.txt"
}

# cmp_file KIND R: the comparison file of round R (KIND "" for the pair, "eq" for
# --equal-loads), as the single-round and the --repeat runs name them.
cmp_file() {
	local sfx=-r$2
	[ "$repeat" = 1 ] && sfx=
	echo "$out/comparison${1:+-$1}$sfx.txt"
}

# ratios_table KIND: each round's three ratios (from its comparison file) and their
# medians.
ratios_table() {
	local r first

	printf '%-6s %-14s %12s %8s %18s\n' round "first run" "peak ops/s" ORT "CPU/op @peak"
	for ((r = 1; r <= repeat; r++)); do
		first=shoal
		((r % 2)) || first=ganesha
		awk -v r="$r" -v first="$first" '
			/^  peak ops\/s / { p = $3 }
			/^  ORT / { o = $2 }
			/^  server CPU per op at peak / { c = $7 }
			END { printf "%-6s %-14s %12s %8s %18s\n", r, first, p, o, c }' \
			"$(cmp_file "$1" "$r")"
	done | tee "$work/rounds"
	awk '
		function median(a, n,   i, j, t) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
					t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
				}
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		{ p[NR] = $3 + 0; o[NR] = $4 + 0; c[NR] = $5 + 0 }
		END {
			printf "%-6s %-14s %11.2fx %7.2fx %17.2fx\n", "median", "", median(p, NR),
				median(o, NR), median(c, NR)
		}' "$work/rounds"
}

# For the closing lines: how each named run set the top of its ladder, as shoal-bench
# itself put it in the run's JSON (the probes it ran, if any, and the trials), and how
# long the whole run took.
searched() { # LABEL...
	local l
	for l in "$@"; do
		echo "peak load point, $l: $(sed -n 's/.*"ladder_top": "\([^"]*\)".*/\1/p' "$out/$l.json")"
	done
}
took() {
	echo "$((SECONDS / 60)) min $((SECONDS % 60)) s"
}

report=("$build/shoal-bench-report")

# equal_chart JSON...: with --equal-loads, the curves of the shoal-eq runs beside
# ganesha's (at most 12, the first 6 rounds) in equal-loads.svg, named in $eq_svg.
eq_svg=
equal_chart() {
	[ "$equal" = 1 ] || return 0
	eq_svg=$out/equal-loads.svg
	"${report[@]}" --no-report --svg "$eq_svg" "${@:1:12}" >/dev/null
}
if [ "$repeat" = 1 ]; then
	run_shoal shoal
	run_ganesha ganesha
	run_equal ""
	"${report[@]}" --report "$out/ganesha.txt" "$out/ganesha.json" >/dev/null
	"${report[@]}" ${desc:+--desc "$desc"} --report "$out/shoal.txt" --svg "$out/sfs.svg" \
		"$out/shoal.json" "$out/ganesha.json" | tee "$out/comparison.txt"
	equal_table
	equal_chart "$out/shoal-eq.json" "$out/ganesha.json"
	echo
	echo "SFS2008-NFSv3 (shoal-bench), $(nproc) CPUs, warm-up ${warmup}s + ${runtime}s measured per point, $(took)"
	searched shoal ganesha
	echo "reports: $out/shoal.txt $out/ganesha.txt; chart: $out/sfs.svg${eq_svg:+, $eq_svg}; data: $out/*.json"
	exit 0
fi

# Several rounds: shoal first in odd rounds, ganesha first in even ones, so that
# whatever the first run of a pair leaves behind (dirty pages, freed inodes) falls on
# each server as often.
jsons=()
eq_jsons=()
for ((r = 1; r <= repeat; r++)); do
	if ((r % 2)); then
		run_shoal "shoal-r$r"
		run_ganesha "ganesha-r$r"
	else
		run_ganesha "ganesha-r$r"
		run_shoal "shoal-r$r"
	fi
	run_equal "-r$r"
	"${report[@]}" --report "$out/ganesha-r$r.txt" "$out/ganesha-r$r.json" >/dev/null
	"${report[@]}" ${desc:+--desc "$desc"} --report "$out/shoal-r$r.txt" \
		"$out/shoal-r$r.json" "$out/ganesha-r$r.json" >"$out/comparison-r$r.txt"
	jsons+=("$out/shoal-r$r.json" "$out/ganesha-r$r.json")
	eq_jsons+=("$out/shoal-eq-r$r.json" "$out/ganesha-r$r.json")
done
{
	ratios_table ""
	echo "shoal / ganesha; bars of issue #4: peak >= 2x, ORT <= 0.5x, CPU <= 0.5x"
} | tee "$out/rounds.txt"
equal_table
# The chart tells at most 12 curves apart: the first 6 rounds.
"${report[@]}" --no-report --svg "$out/rounds.svg" "${jsons[@]:0:12}" >/dev/null
equal_chart "${eq_jsons[@]}"
echo
((repeat <= 6)) || echo "rounds.svg${eq_svg:+ and equal-loads.svg}: the first 6 rounds' curves only"
echo "SFS2008-NFSv3 (shoal-bench), $(nproc) CPUs, warm-up ${warmup}s + ${runtime}s measured per point, $repeat rounds, $(took)"
searched "shoal-r$repeat" "ganesha-r$repeat"
echo "reports: $out/shoal-r*.txt $out/ganesha-r*.txt; comparisons: $out/comparison-r*.txt;"
echo "chart: $out/rounds.svg${eq_svg:+, $eq_svg}; data: $out/*.json"
