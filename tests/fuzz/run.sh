#!/bin/sh
# run.sh - run the fuzz targets of tests/fuzz/ (driven by tests/fuzz/module.mk).
#
#   sh tests/fuzz/run.sh have-libfuzzer
#       exit 0 if clang can link a libFuzzer target here
#   sh tests/fuzz/run.sh check REPLAY-BUILD FUZZ-BUILD|-|BUILD-FAILED TARGET...
#       replay each target's corpus/ and crashes/ with REPLAY-BUILD's replay_<t>, then
#       (unless FUZZ-BUILD is -) fuzz each for $FUZZ_CHECK_RUNS inputs or at most
#       $FUZZ_CHECK_SECONDS seconds from its corpus, saving what it finds only under
#       FUZZ-BUILD/check-artifacts/. Prints one line per step, "fuzz-check: N passed,
#       M failed" and last "fuzz: N execs, M crashes"; fails on any crash.
#   sh tests/fuzz/run.sh fuzz FUZZ-BUILD SECONDS TARGET...
#       fuzz each target for SECONDS on FUZZ-BUILD/fuzz-work/<t> (seeded from corpus/);
#       crashes, leaks, timeouts and OOMs are saved in tests/fuzz/<t>/crashes/
#   sh tests/fuzz/run.sh merge FUZZ-BUILD TARGET...
#       add to tests/fuzz/<t>/corpus/ the inputs of fuzz-work/<t> that add coverage
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=${1:-}
[ $# -gt 0 ] && shift

tmp=$(mktemp -d "${TMPDIR:-/tmp}/shoal-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

execs=0 crashes=0 passed=0 failed=0

step_ok() {
	echo "ok $1"
	passed=$((passed + 1))
}

step_fail() {
	echo "FAIL $1"
	failed=$((failed + 1))
}

# stat_execs LOG: the executed-units count of a libFuzzer log (0 if it printed none).
stat_execs() {
	n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$1" | tail -n 1)
	echo "${n:-0}"
}

# replay BIN TARGET: corpus and crashes through BIN; names every input that crashes.
replay() {
	bin=$1 t=$2 log=$tmp/replay-$2.log
	if [ ! -x "$bin" ]; then
		step_fail "replay $t: expected a binary at $bin"
		return
	fi
	if "$bin" -q "$here/$t/corpus" "$here/$t/crashes" >"$log" 2>&1; then
		n=$(sed -n 's/^replay: \([0-9]*\) inputs$/\1/p' "$log" | tail -n 1)
		execs=$((execs + ${n:-0}))
		step_ok "replay $t: ${n:-0} inputs"
		return
	fi
	# Find the culprits one file at a time, so that the report names them.
	bad=0
	for f in "$here/$t/corpus"/* "$here/$t/crashes"/*; do
		[ -f "$f" ] || continue
		execs=$((execs + 1))
		if ! "$bin" -q "$f" >"$tmp/one.log" 2>&1; then
			bad=$((bad + 1))
			echo "  $t: crash on $f:"
			sed 's/^/    /' "$tmp/one.log" | head -n 40
		fi
	done
	[ "$bad" -gt 0 ] || { bad=1; sed 's/^/    /' "$log" | tail -n 40; }
	crashes=$((crashes + bad))
	step_fail "replay $t: expected no crash, got $bad"
}

# libfuzzer TARGET BIN LOG OUT-CORPUS ARGS... : one libFuzzer run; counts execs and
# crashes (a non-zero exit or a new artifact); returns 1 on a crash.
libfuzzer() {
	t=$1 bin=$2 log=$3 out=$4
	shift 4
	mkdir -p "$out"
	"$bin" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 "$@" "$out" \
		"$here/$t/corpus" "$here/$t/crashes" >"$log" 2>&1
	rc=$?
	n=$(stat_execs "$log")
	execs=$((execs + n))
	if [ "$rc" -ne 0 ]; then
		crashes=$((crashes + 1))
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|artifact_prefix|Test unit written|ALARM|.*-- (oom|timeout|leak))' \
			"$log" | head -n 20 | sed 's/^/    /'
		return 1
	fi
	echo "$n" >"$log.execs"
	return 0
}

case $mode in
have-libfuzzer)
	printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\n%s\n' \
		'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return (int)(d && n) * 0; }' \
		>"$tmp/probe.c"
	clang -fsanitize=fuzzer,address -o "$tmp/probe" "$tmp/probe.c" >/dev/null 2>&1
	exit $?
	;;
check)
	[ $# -ge 2 ] || { echo "usage: $0 check REPLAY-BUILD FUZZ-BUILD|- TARGET..." >&2; exit 2; }
	rbuild=$1 fbuild=$2
	shift 2
	for t in "$@"; do
		replay "$rbuild/tests/fuzz/$t/replay_$t" "$t"
	done
	case $fbuild in
	-)
		echo "note: clang's libFuzzer is not available; replayed the corpora only"
		;;
	BUILD-FAILED)
		step_fail "libFuzzer build (BUILD=fuzz): expected it to build"
		;;
	*)
		for t in "$@"; do
			art=$fbuild/check-artifacts/$t
			rm -rf "$art" && mkdir -p "$art"
			if libfuzzer "$t" "$fbuild/tests/fuzz/$t/fuzz_$t" "$tmp/lf-$t.log" \
				"$tmp/lf-$t" -runs="${FUZZ_CHECK_RUNS:-20000}" \
				-max_total_time="${FUZZ_CHECK_SECONDS:-6}" -seed=1 \
				-artifact_prefix="$art/"; then
				step_ok "libfuzzer $t: $(cat "$tmp/lf-$t.log.execs") execs, 0 crashes"
			else
				step_fail "libfuzzer $t: expected no crash (input saved in $art/)"
			fi
		done
		;;
	esac
	echo "fuzz-check: $passed passed, $failed failed"
	echo "fuzz: $execs execs, $crashes crashes"
	[ "$failed" -eq 0 ]
	exit $?
	;;
fuzz)
	[ $# -ge 2 ] || { echo "usage: $0 fuzz FUZZ-BUILD SECONDS TARGET..." >&2; exit 2; }
	fbuild=$1 secs=$2
	shift 2
	for t in "$@"; do
		work=$fbuild/fuzz-work/$t
		mkdir -p "$work" "$here/$t/crashes"
		before=$(ls "$here/$t/crashes" | wc -l)
		echo "fuzzing $t for ${secs}s (work corpus $work)"
		if libfuzzer "$t" "$fbuild/tests/fuzz/$t/fuzz_$t" "$fbuild/fuzz-work/$t.log" \
			"$work" -max_total_time="$secs" -artifact_prefix="$here/$t/crashes/"; then
			echo "  $t: $(cat "$fbuild/fuzz-work/$t.log.execs") execs, 0 crashes"
		else
			after=$(ls "$here/$t/crashes" | wc -l)
			echo "  $t: crashed; $((after - before)) new file(s) in tests/fuzz/$t/crashes/" \
				"(log: $fbuild/fuzz-work/$t.log)"
		fi
	done
	echo "fuzz: $execs execs, $crashes crashes"
	[ "$crashes" -eq 0 ]
	exit $?
	;;
merge)
	[ $# -ge 1 ] || { echo "usage: $0 merge FUZZ-BUILD TARGET..." >&2; exit 2; }
	fbuild=$1
	shift
	for t in "$@"; do
		work=$fbuild/fuzz-work/$t
		[ -d "$work" ] || { echo "$t: nothing to merge (run make fuzz first)"; continue; }
		before=$(ls "$here/$t/corpus" | wc -l)
		"$fbuild/tests/fuzz/$t/fuzz_$t" -merge=1 "$here/$t/corpus" "$work" \
			>"$fbuild/fuzz-work/$t.merge.log" 2>&1 ||
			{ echo "$t: merge failed, see $fbuild/fuzz-work/$t.merge.log"; exit 1; }
		echo "$t: corpus $before -> $(ls "$here/$t/corpus" | wc -l) files"
	done
	;;
*)
	echo "usage: $0 have-libfuzzer | check ... | fuzz ... | merge ..." >&2
	exit 2
	;;
esac
