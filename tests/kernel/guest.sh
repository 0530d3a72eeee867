#!/bin/bash
# guest.sh - the workload the Linux kernel NFS client runs inside the VM (started by the
# image's /sbin/shoal-init from the share that run.sh mounts at /host).
#
# Talks to run.sh over two channels: lines on the second serial port (fd 7), which run.sh
# reads as they come ("KTEST PASS|FAIL NAME", "shoal-guest: host-op ID CMD ARGS",
# "shoal-guest: done"), and files in /host/ctl/, where run.sh answers each host-op
# (ID.reply). Every step runs under a deadline; a step that hangs is killed and fails.
# shellcheck disable=SC2317 # the steps run in child shells (export -f), not called here
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# fd 7: the second serial port, ours alone (the kernel's console is the first).
stty -F /dev/ttyS1 raw -echo 2>/dev/null
exec 7>/dev/ttyS1
set -a
# shellcheck source=/dev/null
. /host/config # SERVER_IP GUEST_IP PREFIX EXPORT_PATH, exported to the steps
# shellcheck source=guest_net.sh
. /host/guest_net.sh # guest_net_up
set +a
M=/mnt/nfs
W=/tmp/work # local reference copies (tmpfs)
mkdir -p "$M" "$W" /host/out
PASSED=0 FAILED=0

say() { echo "shoal-guest: $*" >&7; }

# dmesg is copied to the share every few seconds, so run.sh has it even if we hang.
(while :; do
	dmesg >/host/out/dmesg.tmp 2>&1 && mv -f /host/out/dmesg.tmp /host/out/dmesg.txt
	sleep 3 # refresh interval of a log copy, not a synchronisation
done) &

# --- helpers, usable inside steps (which run in child bash processes) -------------------
die() {
	echo "$*" >&2
	exit 1
}
# expect WHAT WANT GOT
expect() {
	[ "$2" = "$3" ] || die "$1: expected '$2' got '$3'"
}
dropc() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}
# hostop CMD ARGS... : ask run.sh to do something on the host side (look at the export,
# restart the server) and print its reply; fails unless the reply comes within 120 s.
hostop() {
	local id end
	id=op$$.$RANDOM
	echo "shoal-guest: host-op $id $*" >&7
	end=$((SECONDS + 120))
	until [ -f "/host/ctl/$id.reply" ]; do
		[ "$SECONDS" -lt "$end" ] || die "host-op $*: expected a reply from the host within 120s"
		sleep 0.1 # poll interval against the deadline (9p has no change notification)
	done
	cat "/host/ctl/$id.reply"
}
# host_sha RELPATH WANT : the server's copy of the file (read on the host) has this sha256.
host_sha() {
	expect "host's copy of $1" "$2" "$(hostop sha "$1")"
}
sha() { sha256sum "$1" | cut -d' ' -f1; }
# note TEXT : an informational line for the host's log.
note() { echo "  note: $*" >&7; }
# mkdata FILE KIB : FILE gets KIB KiB of random bytes.
mkdata() { head -c "$(($2 * 1024))" /dev/urandom >"$1"; }
export -f die expect dropc hostop host_sha sha mkdata note
export M W

# step NAME SECONDS FUNCTION : run FUNCTION in a child under a deadline; count and report.
step() {
	local name=$1 secs=$2 fn=$3 start rc out
	start=$SECONDS
	say "step $name"
	out=$(timeout -k 10 "$secs" bash -c "$fn" 2>&1)
	rc=$?
	[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && out="$out
expected $name to finish within ${secs}s (killed)"
	if [ "$rc" -eq 0 ]; then
		PASSED=$((PASSED + 1))
		echo "KTEST PASS $name ($((SECONDS - start))s)" >&7
	else
		FAILED=$((FAILED + 1))
		echo "KTEST FAIL $name ($((SECONDS - start))s, exit status $rc)" >&7
		printf '%s\n' "$out" >"/host/out/step-$name.log"
		printf '%s\n' "$out" | tail -n 40 | sed 's/^/  | /' >&7
	fi
	return "$rc"
}

finish() {
	say "done passed=$PASSED failed=$FAILED"
	dmesg >/host/out/dmesg.txt 2>&1
	sync
	exit 0
}

# --- the steps ----------------------------------------------------------------------
net_up() {
	guest_net_up || exit 1
}

do_mount() {
	# nfs-common's mount.nfs wants rpc.statd for NLM, and rpc.statd wants rpcbind.
	rpcbind -w 2>&1 || rpcbind 2>&1
	rpc.statd --no-notify 2>&1 || true
	# The plain mount command: the server's portmapper gives the NFS and MOUNT ports.
	mount -v -t nfs -o vers=3 "$SERVER_IP:$EXPORT_PATH" "$M" || die "mount failed: $(dmesg | tail -n 20)"
	grep " $M " /proc/mounts
	grep -q " $M nfs .*vers=3" /proc/mounts || die "expected an NFSv3 mount in /proc/mounts"
	grep -q " $M nfs .*proto=tcp" /proc/mounts || die "expected proto=tcp in /proc/mounts"
}

small_files() {
	local i
	mkdir "$M/small" || die "mkdir"
	for i in 0 1 100 4095 4096 4097 65536 1000000; do
		head -c "$i" /dev/urandom >"$W/s$i"
		cp "$W/s$i" "$M/small/s$i" || die "cp s$i"
		cmp "$W/s$i" "$M/small/s$i" || die "s$i differs before the caches are dropped"
	done
	dropc
	for i in 0 1 100 4095 4096 4097 65536 1000000; do
		cmp "$W/s$i" "$M/small/s$i" || die "s$i differs when read back from the server"
		expect "size of s$i" "$i" "$(stat -c %s "$M/small/s$i")"
		host_sha "small/s$i" "$(sha "$W/s$i")"
	done
	# Overwrite in the middle, keeping the size.
	printf 'MIDDLE' | dd of="$M/small/s65536" bs=1 seek=30000 conv=notrunc status=none
	printf 'MIDDLE' | dd of="$W/s65536" bs=1 seek=30000 conv=notrunc status=none
	dropc
	cmp "$W/s65536" "$M/small/s65536" || die "overwrite in place differs"
}

sparse_big() {
	local f=$M/sparse
	mkdata "$W/blk" 2048
	# 2 MiB at 3 GiB and 2 MiB just past 5 GiB: offsets beyond 32 bits, holes between.
	dd if="$W/blk" of="$f" bs=1M seek=3072 conv=notrunc,fsync status=none || die "dd at 3 GiB"
	dd if="$W/blk" of="$f" bs=1M seek=5121 conv=notrunc,fsync status=none || die "dd at 5 GiB"
	expect "size" $((5123 * 1024 * 1024)) "$(stat -c %s "$f")"
	dropc
	expect "size after drop" $((5123 * 1024 * 1024)) "$(stat -c %s "$f")"
	dd if="$f" bs=1M skip=3072 count=2 status=none | cmp - "$W/blk" || die "data at 3 GiB differs"
	dd if="$f" bs=1M skip=5121 count=2 status=none | cmp - "$W/blk" || die "data at 5 GiB differs"
	dd if="$f" bs=1M skip=4000 count=1 status=none | cmp -n 1048576 - /dev/zero ||
		die "the hole at ~4 GiB does not read as zeros"
	dd if="$f" bs=1M skip=0 count=1 status=none | cmp -n 1048576 - /dev/zero ||
		die "the hole at 0 does not read as zeros"
	blocks=$(stat -c %b "$f")
	[ "$blocks" -lt 65536 ] || die "expected a sparse file (few blocks) got $blocks 512-byte blocks"
	# Truncate a multi-GiB file down and back up.
	truncate -s $((3 * 1024 * 1024 * 1024 + 4096)) "$f" || die "truncate down"
	dropc
	expect "size after truncate" $((3 * 1024 * 1024 * 1024 + 4096)) "$(stat -c %s "$f")"
	dd if="$f" bs=4096 skip=$((3 * 256 * 1024)) count=1 status=none | cmp - <(head -c 4096 "$W/blk") ||
		die "data kept by the truncate differs"
	rm "$f" || die "rm"
}

append_truncate() {
	local f=$M/appended i
	: >"$W/app"
	for i in 1 2 3 4 5 6 7 8; do
		mkdata "$W/part" $((i * 7))
		cat "$W/part" >>"$f" || die "append $i"
		cat "$W/part" >>"$W/app"
	done
	echo "line" >>"$f" && echo "line" >>"$W/app"
	dropc
	cmp "$W/app" "$f" || die "appended file differs"
	truncate -s 1000 "$f" && truncate -s 1000 "$W/app"
	cmp "$W/app" "$f" || die "after truncate to 1000 differs"
	truncate -s 200000 "$f" && truncate -s 200000 "$W/app"
	dropc
	cmp "$W/app" "$f" || die "after extending truncate (zeros) differs"
	: >"$f"
	expect "size after O_TRUNC" 0 "$(stat -c %s "$f")"
	host_sha appended "$(sha /dev/null)"
}

# Exclusive create (O_EXCL: CREATE EXCLUSIVE, then SETATTR), special files (MKNOD) and
# the longest names.
special() {
	local long
	mkdir "$M/sp" || die "mkdir"
	(set -C && : >"$M/sp/excl") || die "O_EXCL create failed"
	(set -C && : >"$M/sp/excl") 2>/dev/null && die "a second O_EXCL create succeeded"
	echo x >"$M/sp/excl" || die "write after the exclusive create"
	expect "mode after O_EXCL" 644 "$(stat -c %a "$M/sp/excl")"
	m=$(stat -c %Y "$M/sp/excl")
	[ $((m - $(date +%s))) -le 5 ] && [ $(($(date +%s) - m)) -le 5 ] ||
		die "mtime after an exclusive create is $m (the create verifier left in the times?)"
	mkfifo "$M/sp/fifo" || die "mkfifo"
	mknod "$M/sp/null" c 1 3 || die "mknod c 1 3"
	dropc
	expect "fifo type" fifo "$(stat -c %F "$M/sp/fifo")"
	expect "char device" "character special file 1 3" "$(stat -c '%F %t %T' "$M/sp/null")"
	long=$(printf 'n%.0s' $(seq 255))
	echo long >"$M/sp/$long" || die "create with a 255-byte name"
	expect "255-byte name" long "$(cat "$M/sp/$long")"
	: >"$M/sp/${long}x" 2>/dev/null && die "create with a 256-byte name succeeded"
	rm -rf "$M/sp" || die "rm -rf"
}

dirs() {
	mkdir -p "$M/d1/d2/d3" || die "mkdir -p"
	mkdir "$M/d1" 2>/dev/null && die "mkdir of an existing dir succeeded"
	touch "$M/d1/d2/d3/f"
	rmdir "$M/d1/d2/d3" 2>"$W/err" && die "rmdir of a non-empty dir succeeded"
	grep -q "not empty" "$W/err" || die "expected ENOTEMPTY got: $(cat "$W/err")"
	rm "$M/d1/d2/d3/f" && rmdir "$M/d1/d2/d3" && rmdir "$M/d1/d2" && rmdir "$M/d1" || die "rmdir"
	[ ! -e "$M/d1" ] || die "d1 still there"
	dropc
	[ ! -e "$M/d1" ] || die "d1 still there after the caches were dropped"
	expect "host sees d1" "missing" "$(hostop stat d1)"
}

renames() {
	mkdir -p "$M/ra" "$M/rb" || die "mkdir"
	echo one >"$M/ra/one" && echo two >"$M/ra/two" && echo three >"$M/rb/three"
	mv "$M/ra/one" "$M/ra/uno" || die "rename within a dir"
	[ ! -e "$M/ra/one" ] && expect uno one "$(cat "$M/ra/uno")"
	mv "$M/ra/uno" "$M/rb/uno" || die "rename across dirs"
	expect "rb/uno" one "$(cat "$M/rb/uno")"
	[ ! -e "$M/ra/uno" ] || die "ra/uno still there"
	mv -f "$M/ra/two" "$M/rb/three" || die "rename over an existing target"
	expect "rb/three" two "$(cat "$M/rb/three")"
	mv -f "$M/rb/uno" "$M/rb/three" || die "rename over an existing target in the same dir"
	dropc
	expect "rb/three after drop" one "$(cat "$M/rb/three")"
	expect "ra listing" "" "$(ls -A "$M/ra")"
	expect "rb listing" "three" "$(ls -A "$M/rb")"
	mkdir -p "$M/ra/sub/deeper" && echo x >"$M/ra/sub/deeper/x"
	mv "$M/ra/sub" "$M/rb/sub" || die "rename of a directory across dirs"
	expect "moved dir content" x "$(cat "$M/rb/sub/deeper/x")"
	mkdir "$M/ra/empty"
	mv -T "$M/ra/empty" "$M/rb/sub" 2>/dev/null && die "rename of a dir over a non-empty dir succeeded"
	dropc
	expect "host view of rb" "$(printf 'sub\nthree')" "$(hostop ls rb)"
	rm -rf "$M/ra" "$M/rb" || die "rm -rf"
}

links() {
	mkdir "$M/ln" && echo target >"$M/ln/t" || die "setup"
	ln "$M/ln/t" "$M/ln/hard" || die "link"
	expect nlink 2 "$(stat -c %h "$M/ln/t")"
	expect "same inode" "$(stat -c %i "$M/ln/t")" "$(stat -c %i "$M/ln/hard")"
	echo more >>"$M/ln/hard"
	expect "write through the link" "$(printf 'target\nmore')" "$(cat "$M/ln/t")"
	ln -s t "$M/ln/sym" || die "symlink"
	ln -s ../ln/t "$M/ln/sym2" || die "symlink"
	ln -s /nonexistent/dangling "$M/ln/dangling" || die "symlink"
	dropc
	expect readlink t "$(readlink "$M/ln/sym")"
	expect readlink ../ln/t "$(readlink "$M/ln/sym2")"
	expect "read through symlink" "$(printf 'target\nmore')" "$(cat "$M/ln/sym2")"
	expect "dangling" /nonexistent/dangling "$(readlink "$M/ln/dangling")"
	[ -L "$M/ln/sym" ] || die "sym is not a symlink"
	rm "$M/ln/t" || die "rm"
	expect "nlink after unlink" 1 "$(stat -c %h "$M/ln/hard")"
	expect "content after unlink" "$(printf 'target\nmore')" "$(cat "$M/ln/hard")"
	[ -e "$M/ln/sym" ] && die "symlink to a removed file still resolves"
	expect "host readlink" t "$(hostop readlink ln/sym)"
	rm -rf "$M/ln"
}

attrs() {
	local f=$M/attrs
	echo data >"$f"
	chmod 640 "$f" && expect mode 640 "$(stat -c %a "$f")"
	chmod 4755 "$f" && expect "mode with setuid" 4755 "$(stat -c %a "$f")"
	chown 1234:5678 "$f" || die "chown"
	expect owner "1234 5678" "$(stat -c '%u %g' "$f")"
	touch -m -d '2001-02-03 04:05:06 UTC' "$f" && touch -a -d '1999-12-31 23:59:59 UTC' "$f" || die "touch -d"
	dropc
	expect mtime 981173106 "$(stat -c %Y "$f")"
	expect atime 946684799 "$(stat -c %X "$f")"
	expect "host view" "640 1234 5678 981173106 5" "$(chmod 640 "$f" && hostop stat attrs)"
	truncate -s 0 "$f"
	touch "$f"
	now=$(date +%s)
	m=$(stat -c %Y "$f")
	[ $((m - now)) -le 5 ] && [ $((now - m)) -le 5 ] || die "touch (now) set mtime $m, guest clock $now"
	mkdir "$M/attrdir" && chmod 1777 "$M/attrdir" && expect "dir mode" 1777 "$(stat -c %a "$M/attrdir")"
	rm -rf "$f" "$M/attrdir"
}

bigdir() {
	local d=$M/big n t=$SECONDS
	mkdir "$d" && cd "$d" || die "mkdir"
	for n in $(seq -f '%05g' 1 10000); do
		: >"entry-$n" || die "creating entry-$n"
	done
	note "10000 files created in $((SECONDS - t)) s"
	n=$(ls -A | wc -l)
	expect "entries listed" 10000 "$n"
	dropc
	n=$(find . -type f | wc -l)
	expect "entries listed after drop (READDIRPLUS)" 10000 "$n"
	ls -l >/dev/null || die "ls -l"
	expect "sorted first/last" "entry-00001 entry-10000" "$(ls | sed -n '1p;$p' | tr '\n' ' ' | sed 's/ $//')"
	expect "host count" 10000 "$(hostop count big)"
	note "listed in $((SECONDS - t)) s"
	cd / && rm -rf "$d" || die "rm -rf of the 10000-entry dir"
	note "removed in $((SECONDS - t)) s"
	[ ! -e "$d" ] || die "big dir still there"
	expect "host after rm" missing "$(hostop stat big)"
}

fio_verify() {
	mkdir "$M/fio" || die "mkdir"
	# Four writers, each its own file; then four writers in disjoint regions of one file.
	fio --name=sep --directory="$M/fio" --numjobs=4 --size=8M --bsrange=4k-64k \
		--rw=randwrite --ioengine=psync --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --end_fsync=1 --group_reporting --minimal >"$W/fio1" 2>&1 ||
		die "fio (separate files) failed: $(tail -n 20 "$W/fio1")"
	fio --name=shared --filename="$M/fio/shared" --numjobs=4 --size=8M --offset_increment=8M \
		--bs=16k --rw=randwrite --ioengine=psync --verify=md5 --verify_fatal=1 \
		--do_verify=1 --fsync=16 --group_reporting --minimal >"$W/fio2" 2>&1 ||
		die "fio (shared file) failed: $(tail -n 20 "$W/fio2")"
	dropc
	# Read back everything after the caches are dropped: fio verifies from the server.
	fio --name=sep --directory="$M/fio" --numjobs=4 --size=8M --bsrange=4k-64k \
		--rw=randwrite --ioengine=psync --verify=crc32c --verify_fatal=1 \
		--verify_only --group_reporting --minimal >"$W/fio3" 2>&1 ||
		die "fio re-verify failed: $(tail -n 20 "$W/fio3")"
	rm -rf "$M/fio"
}

silly_rename() {
	local d=$M/silly n
	mkdir "$d" && mkdata "$W/sr" 300 && cp "$W/sr" "$d/open" || die "setup"
	exec 3<"$d/open"
	mv "$d/open" "$d/renamed" || die "rename while open"
	rm "$d/renamed" || die "unlink while open"
	n=$(find "$d" -maxdepth 1 -name '.nfs*' | wc -l)
	expect "silly-renamed .nfs files while open" 1 "$n"
	cmp - "$W/sr" <&3 || die "reading the unlinked file through the open fd differs"
	[ ! -e "$d/renamed" ] || die "unlinked name still visible"
	exec 3<&-
	# The client removes .nfsXXXX when the last user closes it (asynchronously).
	for _ in $(seq 300); do
		n=$(find "$d" -maxdepth 1 -name '.nfs*' | wc -l)
		[ "$n" -eq 0 ] && break
		sleep 0.1 # polling the client's asynchronous silly-delete, against a deadline
	done
	expect ".nfs files after close" 0 "$n"
	expect "host view after close" "" "$(hostop ls silly)"
	rmdir "$d" || die "rmdir"
}

sync_semantics() {
	mkdir "$M/sync" || die "mkdir"
	mkdata "$W/a" 512
	# fsync: the server has the data when fsync returns.
	dd if="$W/a" of="$M/sync/fsynced" bs=64k conv=fsync status=none || die "dd conv=fsync"
	host_sha sync/fsynced "$(sha "$W/a")"
	# fdatasync on a rewrite in place.
	mkdata "$W/b" 64
	dd if="$W/b" of="$M/sync/fsynced" bs=64k seek=2 conv=notrunc,fdatasync status=none || die "fdatasync"
	dd if="$W/b" of="$W/a" bs=64k seek=2 conv=notrunc status=none
	host_sha sync/fsynced "$(sha "$W/a")"
	# sync(1): dirty data of a file still open for writing reaches the server.
	exec 4>"$M/sync/open-writer"
	cat "$W/b" >&4
	sync
	host_sha sync/open-writer "$(sha "$W/b")"
	exec 4>&-
	# close-to-open: close flushes, a later open sees what another client wrote.
	cp "$W/b" "$M/sync/closed" && host_sha sync/closed "$(sha "$W/b")"
	expect "read before" "$(sha "$W/b")" "$(sha "$M/sync/closed")"
	expect "host writes" ok "$(hostop write sync/closed written-on-the-host)"
	expect "open after another client's write" written-on-the-host "$(cat "$M/sync/closed")"
	# O_SYNC writes (FILE_SYNC / stable).
	dd if="$W/b" of="$M/sync/osync" bs=4k oflag=sync status=none || die "oflag=sync"
	host_sha sync/osync "$(sha "$W/b")"
	# O_DIRECT writes and reads bypass the page cache.
	dd if="$W/b" of="$M/sync/direct" bs=64k oflag=direct status=none || die "oflag=direct"
	host_sha sync/direct "$(sha "$W/b")"
	expect "direct read" "$(sha "$W/b")" "$(dd if="$M/sync/direct" bs=64k iflag=direct status=none | sha256sum | cut -d' ' -f1)"
	rm -rf "$M/sync"
}

restart() {
	local d=$M/restart pid st size
	note "before the restart: $(grep -E '^\s*xprt:' /proc/self/mountstats | sed 's/^\s*//')"
	mkdir "$d" && mkdata "$W/r1" 1024 && mkdata "$W/r2" 32768 || die "setup"
	cp "$W/r1" "$d/kept-open" && cp "$W/r1" "$d/data" || die "cp"
	sync
	exec 3<"$d/kept-open" # read across the restart
	exec 4>>"$d/appender" # written across the restart
	echo before >&4
	# A write in flight: 32 MiB appended and fsynced in the background; the host kills the
	# server (SIGKILL) once the server has some of it (acknowledged as UNSTABLE, not yet
	# committed), then starts it again: the client sees a new write verifier at COMMIT,
	# must send the writes again, and must not see ESTALE anywhere.
	dd if="$W/r2" of="$d/data" bs=1M oflag=append conv=notrunc,fsync status=none 2>"$W/dd.err" &
	pid=$!
	size=$((1024 * 1024 + 4 * 1024 * 1024))
	expect "server killed mid-write" ok "$(hostop server-kill-at restart/data "$size")"
	st=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)
	[ -n "$st" ] || die "expected the write to be in flight when the server was killed; it had finished ($(cat "$W/dd.err"))"
	echo "writer state when the server died: $st"
	expect "server restarted" ok "$(hostop server-start)"
	wait "$pid" || die "the write in flight failed: $(cat "$W/dd.err")"
	cat "$W/r1" "$W/r2" >"$W/r12"
	expect "data after restart" "$(sha "$W/r12")" "$(sha "$d/data")"
	host_sha restart/data "$(sha "$W/r12")"
	cmp - "$W/r1" <&3 || die "reading the file kept open across the restart differs"
	exec 3<&-
	echo after >&4 || die "writing to the fd kept open across the restart"
	exec 4>&-
	expect appender "$(printf 'before\nafter')" "$(cat "$d/appender")"
	dropc
	expect "data after drop" "$(sha "$W/r12")" "$(sha "$d/data")"
	expect listing "appender data kept-open" "$(ls "$d" | tr '\n' ' ' | sed 's/ $//')"
	mkdata "$W/r3" 256 && cp "$W/r3" "$d/new" && cmp "$W/r3" "$d/new" || die "new file after restart"
	rm -rf "$d" || die "rm after restart"
}

# The client really used what the steps meant to exercise (per-op counts of the mount).
client_ops() {
	local stats op n missing=''
	stats=$(awk -v m=" $M " 'index($0, "device ") == 1 { on = index($0, m) > 0 } on' /proc/self/mountstats)
	[ -n "$stats" ] || die "no mountstats for $M"
	for op in READDIRPLUS COMMIT WRITE READ CREATE REMOVE RENAME LINK SYMLINK READLINK SETATTR MKDIR RMDIR; do
		n=$(printf '%s\n' "$stats" | awk -v op="$op:" '$1 == op { print $2 }')
		[ "${n:-0}" -gt 0 ] || missing="$missing $op"
		printf '%s=%s ' "$op" "${n:-0}"
	done
	echo
	printf '%s\n' "$stats" | grep -E '^\s*(xprt|opts|age):'
	note "client ops: $(printf '%s\n' "$stats" | awk '$1 ~ /^[A-Z]+:$/ && $2 > 0 { printf "%s%s ", $1, $2 }')"
	note "$(printf '%s\n' "$stats" | grep -E '^\s*xprt:' | sed 's/^\s*//')"
	[ -z "$missing" ] || die "expected the client to have sent:$missing"
}

do_umount() {
	[ -z "$(ls -A "$M")" ] || echo "left in the export: $(ls -A "$M")"
	umount "$M" || die "umount failed"
}

export -f guest_net_up net_up do_mount special small_files sparse_big append_truncate dirs renames links attrs \
	bigdir fio_verify silly_rename sync_semantics restart client_ops do_umount
say "workload start $(uname -r)"
step network 30 net_up || finish
step mount 120 do_mount || finish
step small-files 180 small_files
step sparse-multi-gib 180 sparse_big
step append-truncate 120 append_truncate
step mkdir-rmdir 120 dirs
step excl-mknod-names 120 special
step rename 120 renames
step links 120 links
step attributes 120 attrs
step dir-10000-entries 600 bigdir
step fio-verify 600 fio_verify
step silly-rename 120 silly_rename
step sync-fsync 180 sync_semantics
step server-restart 300 restart
step client-ops 30 client_ops
step umount 60 do_umount
finish
