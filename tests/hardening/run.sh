#!/bin/bash
# run.sh - the hardening suite (issue #5): runs tests/hardening/test_*.sh against the
# shoal-server in BUILD-DIR inside a private network and mount namespace (so ports are
# free, and the tmpfs, bind and device-mapper mounts the fault tests make never leak
# out), prints PASS/FAIL per test with its output and server log on failure, then the
# summary lines the tests measured ("hostile: M cases, server up", "peak RSS under load:
# X MiB", "faults: K cases") and "hardening: N passed, M failed". SOAK=1 runs the long
# forms. A test that cannot run counts as failed, never as skipped.
#
#   bash tests/hardening/run.sh build/<variant> [test_name ...]
set -u

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
	echo "usage: run.sh BUILD-DIR [test_name ...]" >&2
	echo "hardening: 0 passed, 1 failed"
	exit 2
fi
build=$(cd "$1" && pwd)
shift

if [ -z "${HT_IN_NS:-}" ]; then
	if ! unshare --mount --net true 2>/dev/null; then
		echo "FAIL run.sh: expected to create mount and network namespaces (needs root)"
		echo "hardening: 0 passed, 1 failed"
		exit 1
	fi
	HT_IN_NS=1 exec unshare --mount --net --propagation private -- bash "$0" "$build" "$@"
fi

if ! ip link set lo up; then
	echo "FAIL run.sh: expected to bring up lo in the private namespace"
	echo "hardening: 0 passed, 1 failed"
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

IT_TMP=$(mktemp -d /tmp/shoal-hard.XXXXXX)
chmod 755 "$IT_TMP"
trap 'rm -rf "$IT_TMP"' EXIT
export IT_BUILD=$build IT_TMP

passed=0
failed=0
per_test=${HT_TEST_TIMEOUT:-180}
summary=()
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
	while IFS= read -r l; do
		summary+=("$l")
	done < <(sed -n "s/^ *//p" "$log" | grep -E "^(hostile: |peak RSS under load: |probe: |faults: [0-9]+ cases|NOT RUN |OPEN )")
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

for l in "${summary[@]}"; do
	echo "$l"
done
echo "hardening: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
