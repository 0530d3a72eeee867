#!/bin/bash
# load_io.sh - shared by the durability tests that drive dur_load as a coprocess:
# start_load starts it with the given arguments and opens its pipes, expect_line reads
# its lines until one matches, drain_load keeps the rest. Every line read is kept in
# $T/load.out and echoed indented.

# start_load ARGS...: dur_load run ARGS as coprocess LOAD; sets load_pid, lin, lout, out.
# shellcheck disable=SC2034,SC2153 # the variables are for the sourcing test; coproc sets LOAD_PID
start_load() {
	coproc LOAD { "$DUR" run "$@" 2>&1; }
	load_pid=$LOAD_PID # set by coproc
	exec {lin}<&"${LOAD[0]}" {lout}>&"${LOAD[1]}"
	out=$T/load.out
	: >"$out"
}

# expect_line PATTERN SECONDS: reads the tool's lines (kept in $out) until one matches.
expect_line() {
	local l
	while IFS= read -r -t "$2" -u "$lin" l; do
		printf '%s\n' "$l" >>"$out"
		printf '    %s\n' "$l"
		[[ $l =~ $1 ]] && return 0
	done
	fail "load: expected a line matching '$1' within ${2}s"
	return 1
}

# drain_load: the rest of the tool's output (until it closes it or is silent 60 s).
drain_load() {
	local l
	while IFS= read -r -t 60 -u "$lin" l; do
		printf '%s\n' "$l" >>"$out"
		printf '    %s\n' "$l"
	done
}
