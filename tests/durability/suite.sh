#!/bin/bash
# suite.sh - runs the test_*.sh scripts of one of tests/durability, tests/concurrency or
# tests/access against the shoal-server in BUILD-DIR, inside a private network namespace
# (fixed ports are free, nothing leaks out), with the helpers of tests/integration/lib.sh.
# Prints PASS/FAIL per test (the output and server logs on failure), every "summary:"
# line the tests printed (without the prefix), then "SUITE: N passed, M failed".
#
#   sh tests/durability/suite.sh SUITE-DIR BUILD-DIR [short|soak]
#
# The mode reaches the tests as SOAK=0/1. A test that cannot run counts as failed.

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi
set -u

if [ $# -lt 2 ] || [ ! -d "$1" ] || [ ! -d "$2" ]; then
	echo "usage: suite.sh SUITE-DIR BUILD-DIR [short|soak]" >&2
	echo "suite: 0 passed, 1 failed"
	exit 2
fi
dir=$(cd "$1" && pwd)
suite=$(basename "$dir")
build=$(cd "$2" && pwd)
mode=${3:-short}

if [ -z "${IT_IN_NETNS:-}" ]; then
	if ! unshare --net true 2>/dev/null; then
		echo "FAIL suite.sh: expected to create a network namespace (unshare --net; needs root)"
		echo "$suite: 0 passed, 1 failed"
		exit 1
	fi
	IT_IN_NETNS=1 exec unshare --net -- bash "$0" "$dir" "$build" "$mode"
fi
if ! ip link set lo up; then
	echo "FAIL suite.sh: expected to bring up lo in the private namespace"
	echo "$suite: 0 passed, 1 failed"
	exit 1
fi

IT_TMP=$(mktemp -d "/tmp/shoal-$suite.XXXXXX")
chmod 755 "$IT_TMP"
trap 'rm -rf "$IT_TMP"' EXIT
SOAK=0
[ "$mode" = soak ] && SOAK=1
export IT_BUILD="$build" IT_TMP SOAK
export IT_LIB="$dir/../durability/lib.sh"

passed=0
failed=0
summaries=()
per_test=${IT_TEST_TIMEOUT:-150}
[ "$SOAK" = 1 ] && per_test=${IT_SOAK_TIMEOUT:-3600}
for t in "$dir"/test_*.sh; do
	name=$(basename "$t" .sh)
	log=$IT_TMP/$name.out
	start=$(date +%s)
	if [ ! -x "$build/shoal-server" ]; then
		echo "no server binary at $build/shoal-server" >"$log"
		rc=1
	else
		timeout -k 5 "$per_test" bash "$t" >"$log" 2>&1
		rc=$?
		[ "$rc" -eq 124 ] && echo "FAIL $name: expected to finish within ${per_test}s" >>"$log"
	fi
	secs=$(($(date +%s) - start))
	while IFS= read -r l; do
		summaries+=("$l")
	done < <(sed -n 's/^summary: //p' "$log")
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		echo "PASS $name (${secs}s)"
	else
		failed=$((failed + 1))
		echo "FAIL $name (${secs}s, exit status $rc)"
		sed 's/^/  | /' "$log"
		for l in "$IT_TMP/$name".*/*.log; do
			[ -f "$l" ] || continue
			echo "  --- server log $(basename "$l") (last 60 lines) ---"
			tail -n 60 "$l" | sed 's/^/  | /'
		done
	fi
done

for s in "${summaries[@]}"; do
	echo "$s"
done
echo "$suite ($mode): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
