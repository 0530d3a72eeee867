#!/bin/bash
# run.sh - the tests that reach an export's file system, over file systems other than
# the one /tmp and /var/tmp are on: for each of ext4 with a journal (as mkfs.ext4 makes
# it), XFS and btrfs, a file system made on a sparse image in a loop device and mounted
# in a private mount namespace; then, with SHOAL_TEST_DIR pointing into it, the unit
# tests given (those that make their files with test_disk_dir()), the integration tests
# whose outcome may depend on the file system (FS_IT_TESTS: every procedure, handles
# across a restart, listings of a changing directory, escapes through links, kill -9)
# and the durability suite. Each part's result is printed under the file system's name,
# then "fs: N passed, M failed", the sum. A file system that cannot be made or mounted
# counts as one failure, never as a skip.
#
#   bash tests/fs/run.sh BUILD-DIR [UNIT-BINARY ...]
#
# FS_LIST picks file systems (default "ext4 xfs btrfs"; disk file systems only: tmpfs
# can hold no file out of the page cache, which tests of uncached reads need);
# IT_BIGDIR_ENTRIES (default here 10000, where XFS already lists new names after old
# ones) sizes test_bigdir's directory. The other integration tests (the protocol over
# the wire, connections, configuration) do not touch the file system in ways that
# differ between them, and `make check` runs them once.
set -u

here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run.sh BUILD-DIR [UNIT-BINARY ...]}
shift
root=$(cd "$here/../.." && pwd)

if [ -z "${FS_IN_NS:-}" ]; then
	if ! unshare --mount --propagation private true 2>/dev/null; then
		echo "FAIL fs: expected to create a mount namespace (needs root)"
		echo "fs: 0 passed, 1 failed"
		exit 1
	fi
	FS_IN_NS=1 exec unshare --mount --propagation private -- bash "$0" "$build" "$@"
fi

passed=0
failed=0

# Add the "N passed, M failed" of the last such line in file $1 to the totals; a part
# that printed none failed.
count() {
	if [[ $(grep -E '[0-9]+ passed, [0-9]+ failed$' "$1" | tail -n 1) =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
	else
		failed=$((failed + 1))
	fi
}

make_fs() {
	case $1 in
	ext4) mkfs.ext4 -q -F "$2" ;;
	xfs) mkfs.xfs -q -f "$2" ;;
	btrfs) mkfs.btrfs -q -f "$2" ;;
	*) echo "no such file system: $1"; return 1 ;;
	esac
}

# Run part $2 (a command) over file system $1 mounted at $mnt; print its output, each
# line under the file system's name, and count its result.
part() {
	local fs=$1 out
	shift
	out=$(mktemp)
	SHOAL_TEST_DIR=$mnt IT_BIGDIR_ENTRIES=${IT_BIGDIR_ENTRIES:-10000} "$@" >"$out" 2>&1
	sed "s/^/[$fs] /" "$out"
	count "$out"
	rm -f "$out"
}

for fs in ${FS_LIST:-ext4 xfs btrfs}; do
	img=$(mktemp "/var/tmp/shoal-fs-$fs.XXXXXX")
	mnt=$(mktemp -d "/tmp/shoal-fs-$fs.XXXXXX")
	if ! truncate -s 2G "$img" || ! make_fs "$fs" "$img" >"$img.log" 2>&1 ||
		! mount -o loop "$img" "$mnt" 2>>"$img.log"; then
		echo "FAIL fs $fs: expected to make and mount a $fs file system on a loop device:"
		sed "s/^/  | /" "$img.log"
		failed=$((failed + 1))
		rm -f "$img" "$img.log"
		rmdir "$mnt"
		continue
	fi
	rm -f "$img.log"
	chmod 755 "$mnt"
	echo "fs $fs: $(findmnt -n -o FSTYPE,OPTIONS "$mnt")"
	if [ $# -gt 0 ]; then
		part "$fs" sh "$root/tests/run-unit.sh" "$@"
	fi
	# shellcheck disable=SC2086 # a list of test names
	part "$fs" sh "$root/tests/integration/run.sh" "$build" \
		${FS_IT_TESTS:-test_procs test_restart test_bigdir test_escape test_kill9}
	part "$fs" sh "$root/tests/durability/suite.sh" "$root/tests/durability" "$build"
	umount "$mnt" || umount -l "$mnt"
	rmdir "$mnt"
	rm -f "$img"
done
echo "fs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
