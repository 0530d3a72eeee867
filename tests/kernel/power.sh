#!/bin/bash
# power.sh - the power-loss durability test: shoal-server runs inside the kernel suite's
# VM with its export on a second virtual disk (ext4, with or without its journal); the
# host drives a load over the tap network and kills qemu at a random moment, which loses
# everything the guest had only in its RAM, as a power cut would. The disk is served to
# qemu over NBD by cachedisk (cachedisk.h), a disk with a volatile write cache: what the
# guest wrote since its last cache flush is lost at the cut, each 4 KiB piece of it or
# not by a coin drawn from the seed, so a missing flush is seen too (each boot prints
# the disk's line: writes, flushes, and what the cut kept and lost). The host then
# checks the disk and replays its journal if it has one (e2fsck), copies the export out
# of the image (debugfs rdump) and checks that everything the server acknowledged as
# stable is there. A kill -9 of the server (tests/durability) cannot tell whether it
# ever synced; this can. A control: POWER_MOUNT_OPTS=commit=600,nobarrier (ext4 sends
# no flushes) must FAIL.
#
#   bash tests/kernel/power.sh BUILD-DIR
#
# Nine phases, each with its own disk, boots and power cut (on ext4 with a journal any
# fsync commits every pending change, so the syncs of one kind of load would hide
# missing ones of the other):
#   data  tests/durability/dur_load: writers with FILE_SYNC, DATA_SYNC and UNSTABLE +
#         COMMIT; every acknowledged byte must be on the disk (`dur_load verify`).
#   data-nojournal  the same with one writer (whose syncs no other writer's flushes
#         cover) on an ext4 made without a journal (mkfs.ext4 -O ^has_journal), where
#         the guest's kernel skips the cache flush of an fsync whose inode is not
#         marked dirty (see meta-nojournal): a stable overwrite made stable by
#         RWF_SYNC/RWF_DSYNC was lost there, in about one run in three.
#   log   the server with its stable-write log (--stable-log 64, in /data/state on the
#         same disk), dur_load with FILE_SYNC and DATA_SYNC only (DUR_STABLE_ONLY=1): an
#         acknowledged write is in the log, its file is synced only by the next
#         checkpoint (every second). After the cut the same disk is booted again: the
#         server replays the log before it is ready, is stopped with SIGTERM, and the
#         guest syncs; then every acknowledged byte must be on the disk. How many records
#         the server replayed is printed, not checked: a cut just after a checkpoint
#         leaves none, and the bytes then reach the disk through the checkpoints alone.
#   log-nojournal  the same with one writer on an ext4 made without a journal, where
#         an O_DSYNC write of the log ended without a cache flush (see data-nojournal)
#         and acknowledged bytes were lost in every run until the log synced each write.
#   meta  tests/durability/dur_meta: MKDIR, CREATE, SETATTR, RENAME, REMOVE, RMDIR,
#         SYMLINK, LINK one at a time; every acknowledged change must be in the namespace
#         on the disk (`dur_meta verify`).
#   meta-nojournal  the same on an ext4 made without a journal (mkfs.ext4 -O
#         ^has_journal). There a fsync writes the blocks of the object synced and its
#         inode's table block, no more, so what the server did not sync itself (a new
#         symbolic link's inode, the ".." of a directory moved to another parent) is
#         lost with the power. The guest's kernel (Debian's 6.1) also behaves as Linux
#         did before "ext4: fix fsync(2) for nojournal mode" (1308255bbf84): its fsync
#         leaves out an inode that ext4 changed without marking it dirty for the VFS,
#         e.g. a new empty file's, which then comes back as whatever that inode held
#         before. An unacknowledged rename to another directory may there leave both
#         names (the server syncs the new directory, then the old one), which the
#         verifier accepts for the last op only.
#   data-nojournal-6.12, log-nojournal-6.12, meta-nojournal-6.12  the three no-journal
#         phases again with the guest booted from the image's second kernel, Debian 12's
#         6.12 LTS, which has that fix: there the server marks no inode before its syncs
#         (core/fsflush.c), so these show that its plain syncs suffice on such a kernel.
# In every no-journal phase the server's log must say whether it marks inodes as the
# guest's kernel requires (NAME-marks: under 6.1 it must, under 6.12 it must not).
# The power is cut 0.5 to 3 s after the load starts; the delays and the loads' choices
# come from one seed, printed first (POWER_SEED=N repeats them; how far the loads got
# when the power went still depends on timing). Output: PASS/FAIL per check, then
# "power: N passed, M failed". A run that cannot start counts as failed. One run takes
# about 240 s under TCG (twelve boots of ~12 s).
# Environment: POWER_SEED; POWER_PHASES (the phases to run, in order, default "data
# data-nojournal log log-nojournal meta meta-nojournal data-nojournal-6.12
# log-nojournal-6.12 meta-nojournal-6.12"; a phase left out is reported as not run);
# POWER_MOUNT_OPTS (the
# guest's ext4 mount options, default commit=600: within the test the journal is
# committed only by a sync, never by the timer; a disk without a journal is mounted
# without the commit= option, which ext4 refuses there. "commit=600,dirsync,sync" makes
# the guest's kernel sync every change itself, a control showing that the checks pass
# when everything is synced; it holds for the journaled disks only, as that kernel's
# sync and dirsync leave a new file's inode unwritten without a journal too);
# POWER_LOG_CONTROL (controls of the log phase that must FAIL it, showing that the
# replay is what brings the bytes back: "skip" copies the disk out right after the cut,
# with no second boot, "drop" removes the log before the second boot's server starts);
# POWER_WRITERS (dur_load writers, default 4, and 1 for the nojournal data and log
# phases); POWER_KEEP (copy the logs, journals and
# the extracted exports there); and those of vm_lib.sh (KERNEL_ACCEL...).
set -u

here=$(cd "$(dirname "$0")" && pwd)
VM_SUITE=power
# shellcheck source=vm_lib.sh
. "$here/vm_lib.sh"
{ [ $# -eq 1 ] && [ -d "$1" ]; } || no_run "usage: power.sh BUILD-DIR"
build=$(cd "$1" && pwd)
SERVER=$build/shoal-server
DUR=$build/tests/durability/dur_load
META=$build/tests/durability/dur_meta
CACHEDISK=$build/tests/kernel/cachedisk
for phase in ${POWER_PHASES:-}; do
	case $phase in
	data | data-nojournal | log | log-nojournal | meta | meta-nojournal) ;;
	data-nojournal-6.12 | log-nojournal-6.12 | meta-nojournal-6.12) ;;
	*) no_run "POWER_PHASES: expected data, data-nojournal, log, log-nojournal, meta or meta-nojournal (the last three optionally with -6.12) got '$phase'" ;;
	esac
done
case ${POWER_LOG_CONTROL:-} in
'' | skip | drop) ;;
*) no_run "POWER_LOG_CONTROL: expected skip or drop got '$POWER_LOG_CONTROL'" ;;
esac

if [ -z "${KT_IN_NETNS:-}" ]; then
	for f in "$SERVER" "$DUR" "$META" "$CACHEDISK"; do
		[ -x "$f" ] || no_run "no binary at $f"
	done
	for tool in mkfs.ext4 e2fsck debugfs ss; do
		command -v "$tool" >/dev/null 2>&1 || no_run "$tool not installed (sh scripts/install-deps.sh kernel)"
	done
	vm_enter_netns "$0" "$build"
fi
vm_tap_up

T=$(mktemp -d /tmp/shoal-power.XXXXXX)
chmod 755 "$T"
SHARE=$T/share
mkdir -p "$SHARE/out"
{ cp "$here/guest_power.sh" "$SHARE/guest.sh" && cp "$here/guest_net.sh" "$SERVER" "$SHARE/"; } ||
	no_run "could not fill the share $SHARE"
export SHOAL_NFS_PORT=2049 SHOAL_MOUNT_PORT=20048 SHOAL_RPC_TIMEOUT=10

QEMU_PID='' LOAD_PID='' SERVER_LOG='' DISK_PID='' DISK_IMG='' DISK_NAME='' DISK_BOOTS=0
cleanup() {
	[ -n "$QEMU_PID" ] && kill -KILL "$QEMU_PID" 2>/dev/null && wait "$QEMU_PID" 2>/dev/null
	[ -n "$DISK_PID" ] && kill -KILL "$DISK_PID" 2>/dev/null && wait "$DISK_PID" 2>/dev/null
	[ -n "$LOAD_PID" ] && kill -KILL "$LOAD_PID" 2>/dev/null && wait "$LOAD_PID" 2>/dev/null
	if [ -n "${POWER_KEEP:-}" ]; then
		mkdir -p "$POWER_KEEP" && cp -r "$SHARE/out" "$T"/*.log "$T"/*.journal "$T"/*.out "$POWER_KEEP/"
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM


seed=${POWER_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "seed $seed (POWER_SEED=$seed repeats the power-cut delays and the loads' choices)"
RANDOM=$seed

# load_start LOG CMD... : run a load tool in the background; LFD reads its output.
load_start() {
	local log=$1
	shift
	: >"$log"
	exec {LFD}< <(exec "$@" 2>&1)
	LOAD_PID=$!
	LOAD_LOG=$log
}

# load_expect REGEX SECONDS : the tool's lines (kept in LOAD_LOG, shown indented) until one
# matches; 1 if it ends or stays silent first.
load_expect() {
	local end=$((SECONDS + $2)) l
	while [ "$SECONDS" -lt "$end" ] && IFS= read -r -t $((end - SECONDS)) -u "$LFD" l; do
		printf '%s\n' "$l" >>"$LOAD_LOG"
		printf '    %s\n' "$l"
		[[ $l =~ $1 ]] && return 0
	done
	return 1
}

# load_finish SECONDS : the rest of the tool's output, then its exit status in LOAD_RC
# ("killed" if it did not end within SECONDS).
load_finish() {
	local end=$((SECONDS + $1)) l
	while [ "$SECONDS" -lt "$end" ] && IFS= read -r -t $((end - SECONDS)) -u "$LFD" l; do
		printf '%s\n' "$l" >>"$LOAD_LOG"
		printf '    %s\n' "$l"
	done
	if kill -0 "$LOAD_PID" 2>/dev/null && [ "$SECONDS" -ge "$end" ]; then
		kill -KILL "$LOAD_PID"
		wait "$LOAD_PID"
		LOAD_RC=killed
	else
		wait "$LOAD_PID"
		LOAD_RC=$?
	fi
	LOAD_PID=
	exec {LFD}<&-
}

# vm_before_boot : (called by vm_lib.sh's boot) the guest's second disk, DISK_IMG, served
# through a fresh cachedisk on $T/disk.sock: its writes since the last flush are in a
# volatile cache, and when qemu dies each 4 KiB piece of them reaches the image or not by
# a coin drawn from the seed (cachedisk.h). Without it the host's page cache kept every
# write the guest made, flushed or not, and a missing flush went unseen.
vm_before_boot() {
	local l
	disk_detach
	DISK_BOOTS=$((DISK_BOOTS + 1))
	exec {DFD}< <(exec "$CACHEDISK" -s "$((seed + DISK_BOOTS))" "$DISK_IMG" "$T/disk.sock" 2>&1)
	DISK_PID=$!
	if IFS= read -r -t 10 -u "$DFD" l && [[ $l == "cachedisk: listening"* ]]; then
		return 0
	fi
	fail "$DISK_NAME-disk: expected 'cachedisk: listening' got '${l:-nothing within 10 s}'"
	disk_detach
	return 1
}

# disk_detach : once qemu is gone, the cachedisk's power cut and its report (shown); a
# FAIL if it did not end cleanly within 30 s. The image is then complete to read.
disk_detach() {
	local l rc
	[ -n "$DISK_PID" ] || return 0
	while IFS= read -r -t 30 -u "$DFD" l; do
		echo "  disk: $l"
	done
	kill -KILL "$DISK_PID" 2>/dev/null # still there only if it never saw qemu, or hung
	wait "$DISK_PID"
	rc=$?
	exec {DFD}<&-
	DISK_PID=
	[ "$rc" -eq 0 ] || fail "$DISK_NAME-disk: expected the cachedisk to exit 0 got $rc"
}

# guest_run NAME DISK MODE WANT [SERVER-ARGS...] : boot the guest with DISK in MODE (serve
# or restart, see guest_power.sh; the server's log goes to out/NAME.server.log in the
# share) and read its lines until one starts with "shoal-guest: WANT" (left in LINE):
# PASS NAME-WANT. 1 (after a FAIL, with qemu stopped) if the guest failed or went silent.
guest_run() {
	local name=$1 disk=$2 mode=$3 want=$4 end rc args='' a opts
	shift 4
	disk_detach # the previous boot's cut, before the image is read below
	DISK_IMG=$disk DISK_NAME=$name
	for a; do args+=" $(printf '%q' "$a")"; done
	SERVER_LOG=$SHARE/out/$name.server.log
	opts=${POWER_MOUNT_OPTS:-commit=600}
	if ! debugfs -R features "$disk" 2>/dev/null | grep -qw has_journal; then
		opts=$(printf '%s\n' "$opts" | tr , '\n' | grep -v '^commit=' | paste -sd ,)
	fi
	printf 'GUEST_IP=%s\nPREFIX=24\nMOUNT_OPTS=%s\nSERVER_LOG=/host/out/%s\nMODE=%s\nSERVER_ARGS=(%s)\n' \
		"$GUEST_IP" "${opts:-defaults}" "$(basename "$SERVER_LOG")" "$mode" \
		"$args" >"$SHARE/config"
	[ "$mode" = restart ] && [ "${POWER_LOG_CONTROL:-}" = drop ] && echo DROP_LOG=1 >>"$SHARE/config"
	: >"$T/qemu.err"
	if ! boot_guest -drive "file=nbd+unix:///?socket=$T/disk.sock,format=raw,if=virtio,cache=writeback"; then
		fail "$name-boot: expected the guest to start under one of: $accels"
		return 1
	fi
	KERNEL_ACCEL=$booted # the next boot need not try the others again
	end=$((SECONDS + 60))
	while :; do
		next_line "$end"
		rc=$?
		[ "$rc" -eq 0 ] || break
		echo "  guest: $LINE"
		case $LINE in
		"shoal-guest: $want"*)
			pass "$name-${want// /-}"
			return 0
			;;
		"shoal-guest: FAIL "*) break ;;
		esac
	done
	[ "$rc" -eq 1 ] && LINE="qemu exited"
	[ "$rc" -eq 2 ] && LINE="nothing within 60 s"
	fail "$name-${want// /-}: expected 'shoal-guest: $want' got '$LINE'"
	dump_guest
	stop_qemu
	return 1
}

# power_on NAME FEATURES [SERVER-ARGS...] : a fresh disk for phase NAME (FEATURES, if not
# empty, for mkfs.ext4 -O, e.g. ^has_journal), the guest booted with it, and its server
# up. 1 (after a FAIL) if any of that did not happen.
power_on() {
	local name=$1 disk=$T/$1.img features=$2
	shift 2
	{ truncate -s 512M "$disk" && mkfs.ext4 -q -F ${features:+-O "$features"} "$disk"; } || {
		fail "$name-disk: expected mkfs.ext4 ${features:+-O $features }to make $disk"
		return 1
	}
	guest_run "$name" "$disk" serve "server up" "$@" || return
	marks_check "$name" "$features"
}

# marks_check NAME FEATURES : on a disk without a journal, whether the server's log says
# it marks inodes before their syncs must match the guest's kernel: it must under 6.1,
# which lacks "ext4: fix fsync(2) for nojournal mode", and must not under 6.12 (VM_KERNEL),
# which has it. Always 0: a mismatch is a FAIL, and the phase goes on.
marks_check() {
	local want=marks got=none
	[ "$2" = ^has_journal ] || return 0
	[ -n "${VM_KERNEL:-}" ] && want=none
	grep -q 'inodes are marked dirty before their syncs' "$SERVER_LOG" && got=marks
	check "$1-marks" "$want" "$got"
	return 0
}

# power_off : after the guest's last word, qemu's own exit (init powers the guest off)
# within 30 s, else a kill: the guest has synced, so either leaves the disk complete.
power_off() {
	local end=$((SECONDS + 30)) rc=0
	while [ "$rc" -eq 0 ]; do
		next_line "$end"
		rc=$?
		[ "$rc" -eq 0 ] && echo "  guest: $LINE"
	done
	[ "$rc" -eq 2 ] && echo "  (the guest did not power off within 30 s; killed)"
	stop_qemu
}

# power_cut NAME : kill qemu after a seeded 0.5-3 s, then abort the host's connections
# to the dead guest, so the load notices at once rather than after its call timeout.
power_cut() {
	local ms=$((500 + RANDOM % 2501))
	sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))" # the random moment of the cut
	stop_qemu
	echo "$1: power cut ${ms} ms into the load"
	ss -K dst "$GUEST_IP" >/dev/null 2>&1
}

# extract NAME : replay the journal of NAME's disk and copy its /export to
# $T/NAME.out/export. 1 (after a FAIL) if that failed.
extract() {
	local name=$1 disk=$T/$1.img rc
	disk_detach
	e2fsck -fy "$disk" >"$T/$name.fsck.log" 2>&1
	rc=$?
	# 0: clean, 1/2: errors corrected (the journal replay alone can answer 1).
	if [ "$rc" -ge 4 ]; then
		sed 's/^/    fsck: /' "$T/$name.fsck.log" | tail -n 30
		fail "$name-fsck: expected e2fsck to leave a consistent file system got exit status $rc"
		return 1
	fi
	pass "$name-fsck (e2fsck exit status $rc; $(grep -c 'Fix? yes' "$T/$name.fsck.log") fixes;" \
		"$(grep -q 'recovering journal' "$T/$name.fsck.log" && echo "journal replayed" || echo "no journal to replay"))"
	mkdir -p "$T/$name.out"
	debugfs -R "rdump /export $T/$name.out" "$disk" >"$T/$name.rdump.log" 2>&1
	if [ ! -d "$T/$name.out/export" ]; then
		fail "$name-extract: expected debugfs to copy /export out of the disk: $(tail -n 3 "$T/$name.rdump.log")"
		return 1
	fi
	return 0
}

# dump_guest : what the guest and its server said, for a failure.
dump_guest() {
	if [ -s "$SERVER_LOG" ]; then
		echo "--- server log in the guest (last 40 lines) ---"
		tail -n 40 "$SERVER_LOG" | sed 's/^/  | /'
	fi
	echo "--- guest console (last 40 lines) ---"
	tail -n 40 "$T/console.log" | sed 's/^/  | /'
	vm_dump_qemu_err
}

# dur_cut NAME [VAR=VALUE...] : one round of dur_load (with those settings) against the
# guest's server, the power cut in its middle, and its totals; sets acked (the bytes
# acknowledged as stable). 1 (after a FAIL, with qemu stopped) if the load never wrote.
dur_cut() {
	local name=$1
	shift
	load_start "$T/$name.log" env DUR_ONE_ROUND=1 "$@" "$DUR" run "$GUEST_IP" /data/export \
		"$T/$name.out/export" "$T/$name.journal" "$writers" 0 "$seed"
	if ! load_expect '^round 1 writing' 60; then
		fail "$name-load: expected 'round 1 writing' from dur_load within 60 s"
		stop_qemu
		load_finish 10
		dump_guest
		return 1
	fi
	power_cut "$name"
	load_finish $((SHOAL_RPC_TIMEOUT + 30))
	check "$name-load-exit" 0 "$LOAD_RC"
	acked=$(sed -n 's/.*; \([0-9]*\) bytes acknowledged as stable$/\1/p' "$T/$name.log")
	if [ "${acked:-0}" -gt 0 ]; then
		pass "$name-load: $acked bytes acknowledged as stable before the power cut"
	else
		fail "$name-load: expected bytes acknowledged as stable before the power cut got ${acked:-none}"
	fi
}

# dur_verify NAME : every byte dur_load's journal says was acknowledged, in the export
# extract copied out; sets lost.
dur_verify() {
	local name=$1 out rc
	out=$("$DUR" verify "$T/$name.journal" "$T/$name.out/export" 2>&1)
	rc=$?
	printf '%s\n' "$out" | head -n 60 | sed 's/^/    /'
	if [ "$(printf '%s\n' "$out" | wc -l)" -gt 60 ]; then
		echo "    ... ($(printf '%s\n' "$out" | wc -l) lines)"
		printf '%s\n' "$out" | tail -n +61 | grep '^journal verify: ' | sed 's/^/    /'
	fi
	lost=$(printf '%s\n' "$out" | sed -n 's/^journal verify: .*, \([0-9]*\) lost, .*/\1/p')
	check "$name-bytes-lost" 0 "${lost:-unknown}"
	check "$name-verify-exit" 0 "$rc"
}

# phase_data NAME FEATURES SUMMARY WRITERS : dur_load with WRITERS writers against the
# guest (its disk made with mkfs.ext4 FEATURES), cut, then every acknowledged byte on
# the disk; the phase's summary goes to the variable SUMMARY.
phase_data() {
	local name=$1 writers=${POWER_WRITERS:-$4} acked lost
	power_on "$name" "$2" || return
	dur_cut "$name" || return
	extract "$name" || return
	dur_verify "$name"
	printf -v "$3" '%s' "$name ${acked:-0} bytes acknowledged, ${lost:-unknown} lost"
}

# phase_log : the server with its stable-write log, dur_load's stable writes only, cut;
# then a second boot of the same disk in which the server replays the log, is stopped
# cleanly and the guest syncs; then every acknowledged byte on the disk, and a replay
# seen in the server's log. POWER_LOG_CONTROL=skip leaves the second boot out and drop
# removes the log before it: controls that must FAIL.
phase_log() {
	local name=$1 acked lost replayed status writers=${POWER_WRITERS:-$4}
	power_on "$name" "$2" --stable-log 64 || return
	if grep -q 'stable-write log /data/state/stable.log created' "$SERVER_LOG"; then
		pass "$name-created: the server writes stable WRITEs to its log"
	else
		fail "$name-created: expected 'stable-write log /data/state/stable.log created' in the server's log"
	fi
	dur_cut "$name" DUR_STABLE_ONLY=1 || return
	if [ "${POWER_LOG_CONTROL:-}" = skip ]; then
		echo "$name: control POWER_LOG_CONTROL=skip: no second boot, so no replay of the log"
	else
		guest_run "$name-restart" "$T/$name.img" restart "server stopped" --stable-log 64 || return
		status=$(printf '%s\n' "$LINE" | sed -n 's/.*exit status \([0-9]*\) after SIGTERM.*/\1/p')
		power_off
		check "$name-restart-server-exit" 0 "${status:-unknown}"
		replayed=$(sed -n 's/.*stable-write log: replayed \([0-9]*\) records.*/\1/p' "$SERVER_LOG" | head -n 1)
		# Not a check: a cut that comes just after a checkpoint emptied the log leaves
		# nothing to replay, and the bytes are then all on the disk through the
		# checkpoints' syncs. Either way the bytes-lost check below decides; the count
		# shows which route the run took.
		echo "$name: the restarted server replayed ${replayed:-0} records before serving"
	fi
	extract "$name" || return
	dur_verify "$name"
	printf -v "$3" '%s' "$name ${acked:-0} bytes acknowledged, ${replayed:-no} records replayed, ${lost:-unknown} lost"
}

# phase_meta NAME FEATURES SUMMARY : dur_meta against the guest (its disk made with
# mkfs.ext4 FEATURES, see power_on), cut, then every acknowledged change on the disk; the
# phase's summary goes to the variable SUMMARY.
phase_meta() {
	local name=$1 features=$2 acked out mism rc nj=()
	power_on "$name" "$features" || return
	load_start "$T/$name.log" "$META" run "$GUEST_IP" /data/export "$T/$name.journal" "$seed"
	if ! load_expect '^meta running' 60; then
		fail "$name-load: expected 'meta running' from dur_meta within 60 s"
		stop_qemu
		load_finish 10
		dump_guest
		return
	fi
	power_cut "$name"
	load_finish $((SHOAL_RPC_TIMEOUT + 30))
	check "$name-load-exit" 0 "$LOAD_RC"
	acked=$(sed -n 's/^meta: [0-9]* ops issued, \([0-9]*\) acknowledged.*/\1/p' "$T/$name.log")
	if [ "${acked:-0}" -gt 0 ]; then
		pass "$name-load: $acked namespace ops acknowledged before the power cut"
	else
		fail "$name-load: expected namespace ops acknowledged before the power cut got ${acked:-none}"
	fi
	extract "$name" || return
	[ "$features" = ^has_journal ] && nj=(--no-journal)
	out=$("$META" verify "$T/$name.journal" "$T/$name.out/export" "${nj[@]}" 2>&1)
	rc=$?
	printf '%s\n' "$out" | head -n 60 | sed 's/^/    /'
	[ "$(printf '%s\n' "$out" | wc -l)" -gt 60 ] && echo "    ... ($(printf '%s\n' "$out" | wc -l) lines)"
	mism=$(printf '%s\n' "$out" | sed -n 's/^meta verify: [0-9]* names found in .*, \([0-9]*\) mismatches.*/\1/p')
	check "$name-mismatches" 0 "${mism:-unknown}"
	check "$name-verify-exit" 0 "$rc"
	printf -v "$3" '%s' "$name ${acked:-0} ops acknowledged, ${mism:-unknown} mismatches"
}

t_start=$SECONDS
s_data="data not run" s_data_nj="data-nojournal not run" s_log="log not run" s_meta="meta not run"
s_log_nj="log-nojournal not run"
s_nojournal="meta-nojournal not run"
s_data_nj12="data-nojournal-6.12 not run" s_log_nj12="log-nojournal-6.12 not run"
s_meta_nj12="meta-nojournal-6.12 not run"
all_phases="data data-nojournal log log-nojournal meta meta-nojournal data-nojournal-6.12"
all_phases+=" log-nojournal-6.12 meta-nojournal-6.12"
for phase in ${POWER_PHASES:-$all_phases}; do
	case $phase in
	data) phase_data data '' s_data 4 ;;
	data-nojournal) phase_data data-nojournal ^has_journal s_data_nj 1 ;;
	log) phase_log log '' s_log 4 ;;
	log-nojournal) phase_log log-nojournal ^has_journal s_log_nj 1 ;;
	meta) phase_meta meta '' s_meta ;;
	meta-nojournal) phase_meta meta-nojournal ^has_journal s_nojournal ;;
	data-nojournal-6.12) VM_KERNEL=6.12 phase_data "$phase" ^has_journal s_data_nj12 1 ;;
	log-nojournal-6.12) VM_KERNEL=6.12 phase_log "$phase" ^has_journal s_log_nj12 1 ;;
	meta-nojournal-6.12) VM_KERNEL=6.12 phase_meta "$phase" ^has_journal s_meta_nj12 ;;
	esac
done
echo "power-loss: $s_data; $s_data_nj; $s_log; $s_log_nj; $s_meta; $s_nojournal;" \
	"$s_data_nj12; $s_log_nj12; $s_meta_nj12 (seed $seed, $((SECONDS - t_start)) s)"
echo "power: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
