#!/bin/sh
# run.sh - the integration suite: runs every tests/integration/test_*.sh against the
# shoal-server in BUILD-DIR, inside a private network namespace (so ports 111, 2049 and
# 20048 are free and nothing leaks out), and prints PASS/FAIL per test, the test's output
# and server logs on failure, and finally "integration: N passed, M failed".
#
#   sh tests/integration/run.sh build/<variant> [test_name ...]
#
# A test that cannot run (no server binary, no namespace) counts as failed, never skipped.

if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi
set -u

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
	echo "usage: run.sh BUILD-DIR [test_name ...]" >&2
	echo "integration: 0 passed, 1 failed"
	exit 2
fi
build=$(cd "$1" && pwd)
shift

if [ -z "${IT_IN_NETNS:-}" ]; then
	if ! unshare --net true 2>/dev/null; then
		echo "FAIL run.sh: expected to create a network namespace (unshare --net; needs root)"
		echo "integration: 0 passed, 1 failed"
		exit 1
	fi
	IT_IN_NETNS=1 exec unshare --net -- bash "$0" "$build" "$@"
fi

if ! ip link set lo up; then
	echo "FAIL run.sh: expected to bring up lo in the private namespace"
	echo "integration: 0 passed, 1 failed"
	exit 1
fi

tests=()
if [ $# -gt 0 ]; then
	for t in "$@"; do
		tests+=("$here/${t%.sh}.sh")
	done
else
	for t in "$here"/test_*.sh; do
		tests+=("$t")
	done
fi

IT_TMP=$(mktemp -d /tmp/shoal-it.XXXXXX)
chmod 755 "$IT_TMP"
trap 'rm -rf "$IT_TMP"' EXIT
export IT_BUILD=$build IT_TMP

passed=0
failed=0
per_test=${IT_TEST_TIMEOUT:-150}
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	log=$IT_TMP/$name.out
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
		[ "$rc" -eq 124 ] && echo "FAIL $name: expected to finish within ${per_test}s" >>"$log"
	fi
	secs=$(($(date +%s) - start))
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

echo "integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
