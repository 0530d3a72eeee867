#!/bin/sh
# check-summary.sh - print the total of a `make check` run; fail if anything failed.
#
#   sh scripts/check-summary.sh SUMMARY STEP...
#
# SUMMARY holds one "STEP: N passed, M failed (exit S, T s)" line per step that ran (see
# check-suite.sh). Every STEP named must be there: a step that never ran (its build
# failed before the suite could start) counts as one failure. The last line printed is
# the total, "check: N passed, M failed"; the exit status is 0 only if nothing failed.
set -u

if [ $# -lt 1 ]; then
	echo "usage: $0 SUMMARY STEP..." >&2
	exit 2
fi
summary=$1
shift
[ -f "$summary" ] || : >"$summary"

for step in "$@"; do
	awk -v s="$step: " 'index($0, s) == 1 { found = 1 } END { exit !found }' "$summary" ||
		echo "$step: 0 passed, 1 failed (did not run)" >>"$summary"
done

echo
if [ -s "$summary.figures" ]; then
	echo "== figures measured by this run =="
	cat "$summary.figures"
	echo
fi
echo "== summary =="
cat "$summary"
awk '
	match($0, /[0-9]+ passed, [0-9]+ failed/) {
		split(substr($0, RSTART, RLENGTH), w, " ")
		passed += w[1]; failed += w[3]
	}
	END {
		printf "check: %d passed, %d failed\n", passed, failed
		exit failed != 0
	}' "$summary"
