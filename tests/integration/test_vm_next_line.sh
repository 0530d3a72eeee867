#!/bin/bash
# test_vm_next_line.sh - the VM suites' line reader (next_line in tests/kernel/vm_lib.sh)
# against a writer that stops in the middle of a line, as a guest under TCG does: the
# reader's slice runs out there, and the line must still come whole from the next read
# (a lost head once left a guest's host-op unanswered). The writer goes on only after
# the reader has timed out, told so through a second FIFO: no timing is assumed.
# vm_lib.sh is sourced first, so that lib.sh's ok/fail/check are the ones counted.
. "$(dirname "$0")/../kernel/vm_lib.sh"
. "$(dirname "$0")/lib.sh"

mkfifo "$T/data" "$T/go"
(
	printf 'shoal-guest: host-'
	read -r _ <"$T/go"
	printf 'op id1 count big\r\nnext\n'
) >"$T/data" &
wpid=$!
exec {QFD}<"$T/data"

next_line $((SECONDS + 1))
check slice-ends-mid-line 2 "$?"
echo go >"$T/go"
next_line $((SECONDS + 60))
check line-whole-after-timeout "0 shoal-guest: host-op id1 count big" "$? $LINE"
next_line $((SECONDS + 60))
check following-line "0 next" "$? $LINE"
next_line $((SECONDS + 60))
check eof 1 "$?"
wait "$wpid"
exec {QFD}<&-
it_done
