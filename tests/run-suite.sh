#!/bin/bash
# run-suite.sh - the one runner of the suites that start real servers (integration,
# hardening, durability, concurrency, access): runs TEST-DIR/test_*.sh (or the tests
# named) against the shoal-server in BUILD-DIR inside private namespaces, so that the
# standard ports are free and nothing a test does (servers, mounts) leaks out; prints
# PASS/FAIL per test with its output and the last lines of every server log on failure,
# then the figures the tests measured, then "NAME: N passed, M failed".
#
#   bash tests/run-suite.sh NAME TEST-DIR BUILD-DIR [test_name ...]
#
# Settings, from the environment:
#   SUITE_NS        namespaces to create: "net" (default) or "mount net"
#   SUITE_TIMEOUT   seconds each test may take (default 150)
#   SUITE_FIGURES   extended regex of the output lines that state measured figures; they
#                   are repeated at the end (with a leading "summary: " dropped)
#   SHOAL_TEST_DIR  where the scratch directory (and so every export) is made (default
#                   /tmp): to run the suite over another disk file system
#                   (tests/fs/run.sh)
# Tests get IT_BUILD (the build directory) and IT_TMP (scratch, removed afterwards; each
# test keeps its server logs in IT_TMP/<test>.*/*.log). A test that cannot run (no server
# binary, no namespace, no such test) counts as failed, never as skipped.
set -u

if [ $# -lt 3 ] || [ ! -d "$2" ] || [ ! -d "$3" ]; then
	echo "usage: run-suite.sh NAME TEST-DIR BUILD-DIR [test_name ...]" >&2
	echo "${1:-suite}: 0 passed, 1 failed"
	exit 2
fi
name=$1
dir=$(cd "$2" && pwd)
build=$(cd "$3" && pwd)
shift 3
ns=${SUITE_NS:-net}

if [ -z "${SUITE_IN_NS:-}" ]; then
	flags=()
	for n in $ns; do
		flags+=("--$n")
	done
	[[ " $ns " == *" mount "* ]] && flags+=(--propagation private)
	if ! unshare "${flags[@]}" true 2>/dev/null; then
		echo "FAIL run-suite.sh: expected to create namespaces ($ns; needs root)"
		echo "$name: 0 passed, 1 failed"
		exit 1
	fi
	SUITE_IN_NS=1 exec unshare "${flags[@]}" -- bash "$0" "$name" "$dir" "$build" "$@"
fi
if ! ip link set lo up; then
	echo "FAIL run-suite.sh: expected to bring up lo in the private namespace"
	echo "$name: 0 passed, 1 failed"
	exit 1
fi

tests=()
if [ $# -gt 0 ]; then
	for t in "$@"; do
		tests+=("$dir/${t%.sh}.sh")
	done
else
	for t in "$dir"/test_*.sh; do
		tests+=("$t")
	done
fi

IT_TMP=$(mktemp -d "${SHOAL_TEST_DIR:-/tmp}/shoal-$(basename "$dir").XXXXXX") || {
	echo "FAIL run-suite.sh: cannot make a scratch directory in ${SHOAL_TEST_DIR:-/tmp}"
	echo "$name: 0 passed, 1 failed"
	exit 1
}
chmod 755 "$IT_TMP"
trap 'rm -rf "$IT_TMP"' EXIT
export IT_BUILD=$build IT_TMP

passed=0
failed=0
figures=()
per_test=${SUITE_TIMEOUT:-150}
for t in "${tests[@]}"; do
	test=$(basename "$t" .sh)
	log=$IT_TMP/$test.out
	start=$(date +%s)
	if [ ! -x "$build/shoal-server" ]; then
		echo "no server binary at $build/shoal-server" >"$log"
		rc=1
	elif [ ! -f "$t" ]; then
		echo "no such test $t" >"$log"
		rc=1
	else
		timeout -k 5 "$per_test" bash "$t" >"$log" 2>&1
		rc=$?
		[ "$rc" -eq 124 ] && echo "FAIL $test: expected to finish within ${per_test}s" >>"$log"
	fi
	secs=$(($(date +%s) - start))
	if [ -n "${SUITE_FIGURES:-}" ]; then
		while IFS= read -r l; do
			figures+=("$l")
		done < <(sed 's/^ *//' "$log" | grep -E "$SUITE_FIGURES" | sed 's/^summary: //')
	fi
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		echo "PASS $test (${secs}s)"
	else
		failed=$((failed + 1))
		echo "FAIL $test (${secs}s, exit status $rc)"
		sed 's/^/  | /' "$log"
		for l in "$IT_TMP/$test".*/*.log; do
			[ -f "$l" ] || continue
			echo "  --- server log $(basename "$l") (last 60 lines) ---"
			tail -n 60 "$l" | sed 's/^/  | /'
		done
	fi
done

for l in "${figures[@]}"; do
	echo "$l"
done
echo "$name: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
