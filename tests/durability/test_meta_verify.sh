#!/bin/bash
# test_meta_verify.sh - the power-loss test's verifier (`dur_meta verify`) judges a disk
# the way its header says, shown on hand-made journals and directories, without a VM or
# a server: a namespace that holds every acknowledged change passes; one that lost an
# acknowledged change fails; an unacknowledged last op may or may not have happened;
# an unacknowledged rename of a file to another directory may also have left both
# names, but only with --no-journal, and never a directory's.
# shellcheck source=../integration/lib.sh
. "${IT_LIB:?run me through tests/durability/suite.sh}"

META=$IT_BUILD/tests/durability/dur_meta

# verify NAME WANT-EXIT JOURNAL DIR [--no-journal] : dur_meta verify's exit status.
verify() {
	local name=$1 want=$2 out rc
	shift 2
	out=$("$META" verify "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/    /'
	check "$name" "$want" "$rc"
}

# The journal of the test: d1, d2, d1/f3 made and acknowledged, then LAST (a journal
# line "I 4 ..."), not acknowledged unless ACK is given.
journal() {
	local last=$1 ack=${2:-}
	printf 'I 1 mkdir d1 0755\nA 1\nI 2 mkdir d2 0755\nA 2\nI 3 create d1/f3 0644\nA 3\n'
	printf 'I 4 %s\n' "$last"
	[ -n "$ack" ] && printf 'A 4\n'
}

# disk DIR PATH... : DIR holding d1, d2 and the files PATH (mode 0644).
disk() {
	local dir=$1 p
	shift
	rm -rf "$dir"
	mkdir -p "$dir/d1" "$dir/d2"
	chmod 0755 "$dir/d1" "$dir/d2"
	for p in "$@"; do
		: >"$dir/$p"
		chmod 0644 "$dir/$p"
	done
}

d=$T/disk
journal 'rename d1/f3 d2/r4' >"$T/rename.j"
journal 'rename d1/f3 d2/r4' ack >"$T/rename-acked.j"

disk "$d" d1/f3
verify acked-state-kept 0 "$T/rename.j" "$d"
disk "$d" d2/r4
verify pending-rename-happened 0 "$T/rename.j" "$d"
disk "$d"
verify acked-create-lost 1 "$T/rename.j" "$d"
disk "$d" d1/f3
verify acked-rename-lost 1 "$T/rename-acked.j" "$d"
disk "$d" d1/f3 d2/r4
verify split-rename-journaled 1 "$T/rename.j" "$d"
verify split-rename-no-journal 0 "$T/rename.j" "$d" --no-journal
verify split-rename-acked 1 "$T/rename-acked.j" "$d" --no-journal

# A directory with two names is no outcome of a rename: fsck keeps one of them.
printf 'I 1 mkdir d1 0755\nA 1\nI 2 mkdir d2 0755\nA 2\nI 3 mkdir d1/d3 0755\nA 3\n' >"$T/dir.j"
printf 'I 4 rename d1/d3 d2/r4\n' >>"$T/dir.j"
disk "$d"
mkdir -m 0755 "$d/d1/d3" "$d/d2/r4"
verify split-dir-rename 1 "$T/dir.j" "$d" --no-journal

verify bad-flag 2 "$T/rename.j" "$d" --journal
it_done
