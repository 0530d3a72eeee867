#!/bin/bash
# check-suite.sh - run one step of `make check` and record its count in a summary file.
#
#   bash scripts/check-suite.sh SUMMARY NAME COMMAND [ARGS...]
#
# Runs COMMAND with its output shown as it comes, and appends "NAME: N passed, M failed
# (exit S, T s)" to SUMMARY: the count from the last such line COMMAND printed, its exit
# status and the seconds it took (a slow CI run then shows which step was slow). A
# command that printed no count is recorded as 0 passed, 0 failed when it succeeds (a
# build step) and as 1 failed otherwise; a command that fails with no failure counted
# is recorded as one more failure, so that a crash or a broken build is never summed as
# a pass. With an empty SUMMARY, COMMAND just runs. Lines that state a measured figure
# ("fuzz: ...", "crash-restart: ...", "power-loss: ...", "peak RSS under load: ...") go
# to SUMMARY.figures. Exits with COMMAND's status.
set -uo pipefail

if [ $# -lt 3 ]; then
	echo "usage: $0 SUMMARY NAME COMMAND [ARGS...]" >&2
	exit 2
fi
summary=$1 name=$2
shift 2
if [ -z "$summary" ]; then
	exec "$@"
fi

log=$(mktemp "${TMPDIR:-/tmp}/shoal-check.XXXXXX")
trap 'rm -f "$log"' EXIT
start=$SECONDS
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
took=$((SECONDS - start))

count='([0-9]+) passed, ([0-9]+) failed'
line=$(grep -E "$count" "$log" | tail -n 1)
if [[ $line =~ $count ]]; then
	passed=${BASH_REMATCH[1]} failed=${BASH_REMATCH[2]}
else
	passed=0 failed=0
fi
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
	failed=1
fi
echo "$name: $passed passed, $failed failed (exit $status, $took s)" >>"$summary"
# The hardening figures (issue #5) are gathered too, for the summary's last section.
grep -E '^(fuzz|hostile|faults|crash-restart|power-loss|concurrency|access|peak RSS under load): ' "$log" |
	sed "s/\$/ [$name]/" >>"$summary.figures"
exit "$status"
