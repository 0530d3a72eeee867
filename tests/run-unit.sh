#!/bin/sh
# run-unit.sh - run every unit-test binary given, then print one total line.
# Each binary prints "FILE: N passed, N failed"; a binary that crashes counts as failed.
passed=0 failed=0 status=0
for t in "$@"; do
	out=$("$t" 2>&1); rc=$?
	printf '%s\n' "$out"
	line=$(printf '%s\n' "$out" | grep -E '[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
	p=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) passed, ([0-9]+) failed$/\1/')
	f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) passed, ([0-9]+) failed$/\2/')
	[ -n "$p" ] || { p=0; f=1; echo "$t: crashed or printed no result (exit $rc)"; }
	[ "$rc" -eq 0 ] || status=1
	passed=$((passed + p)); failed=$((failed + f))
done
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && exit $status
exit 1
