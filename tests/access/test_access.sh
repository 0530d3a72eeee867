#!/bin/bash
# test_access.sh - access control (issue #5): client lists, AUTH_SYS identities and
# squashing, read-only exports, and handle and path tricks that must not leave an export.
#
# Exports of the server under test ("acc", from 127.0.0.1):
#   a  10.9.9.0/24 only         MNT refused; a handle for it minted elsewhere refused
#   b  127.0.0.1, root_squash   root creates files owned by 65534
#   c  all_squash, anon 1234    any uid creates files owned by 1234:1234
#   d  ro                       every change is NFS3ERR_ROFS
#   e  rw, no_root_squash, fsid=77   permission checks for uid 1000, AUTH_NONE, "..",
#                               symlinks, and the outside-file handle below
# A second server ("rogue") shares the state dir (so the handle key) and exports a to
# everyone and the parent directory $T with e's fsid: the handles it mints carry export
# ids the first server knows and a valid MAC, yet must reach nothing.
# What cannot be asserted: a hard link made (outside NFS) from inside an export to a file
# outside it is served, as by knfsd: the link is in the export, and an inode has no
# single parent to check. The test shows that such a file is reachable only by that name.
# shellcheck source=../integration/lib.sh
. "${IT_LIB:?run me through tests/durability/suite.sh}"

P=$IT_BUILD/tests/access/acc_probe
nfs=(env SHOAL_NFS_PORT=2049 SHOAL_MOUNT_PORT=20048 "$P")
rogue=(env SHOAL_NFS_PORT=3049 SHOAL_MOUNT_PORT=30048 "$P")

for d in a b c d e outside; do
	mkdir -p "$T/$d"
done
chmod 1777 "$T/b" "$T/c"
echo "export a" >"$T/a/file"
echo "read only" >"$T/d/file"
echo "top secret" >"$T/outside/secret"
echo "root only" >"$T/e/secret" && chmod 0600 "$T/e/secret"
mkdir -m 0755 "$T/e/rootdir"
mkdir -m 0777 "$T/e/open"
ln -s ../outside "$T/e/escape"
ln "$T/outside/secret" "$T/e/hardlink"

cat >"$T/exports" <<EOT
$T/a 10.9.9.0/24(rw,no_root_squash)
$T/b 127.0.0.1(rw,root_squash)
$T/c *(rw,all_squash,anonuid=1234,anongid=1234)
$T/d *(ro)
$T/e *(rw,no_root_squash,fsid=77)
EOT
cat >"$T/exports.rogue" <<EOT
$T/a *(rw,no_root_squash)
$T *(rw,no_root_squash,fsid=77)
EOT
start_server acc --nfs-port 2049 --mount-port 20048 --no-portmap --state-dir "$T/state" \
	--exports "$T/exports" || it_done
start_server rogue --nfs-port 3049 --mount-port 30048 --no-portmap --state-dir "$T/state" \
	--exports "$T/exports.rogue" || it_done

IT_OKS=0
ok() {
	echo "ok $1"
	IT_OKS=$((IT_OKS + 1))
}
ESCAPES=0
ESCAPES_REFUSED=0
# escape NAME EXPECTED-REGEX CMD... : a probe that tries to leave an export.
escape() {
	local before=$IT_FAILS
	ESCAPES=$((ESCAPES + 1))
	probe "$@"
	[ "$IT_FAILS" -eq "$before" ] && ESCAPES_REFUSED=$((ESCAPES_REFUSED + 1))
}

# probe NAME EXPECTED-REGEX CMD... : the first word(s) of the tool's answer must match.
probe() {
	local name=$1 want=$2 got
	shift 2
	got=$("$@" 2>&1 | head -n 1)
	if [[ $got =~ ^($want)( |$) ]]; then
		ok "$name ($got)"
	else
		fail "$name: expected '$want' got '$got'"
	fi
	PROBE=$got
}
fh_of() { # the handle in a "STATUS FH ..." answer
	printf '%s\n' "$1" | awk '{print $2}'
}

# (a) client list: no MNT, and a handle minted by the rogue is refused, never data.
probe mnt-a-excluded 'MNT3ERR_ACCES|MNT3ERR_PERM' "${nfs[@]}" mnt 127.0.0.1 "$T/a"
probe rogue-mnt-a MNT3_OK "${rogue[@]}" mnt 127.0.0.1 "$T/a"
ra=$(fh_of "$PROBE")
probe rogue-lookup-a-file NFS3_OK "${rogue[@]}" lookup 127.0.0.1 "$ra" file
rf=$(fh_of "$PROBE")
escape a-root-handle-refused 'NFS3ERR_ACCES|NFS3ERR_STALE|NFS3ERR_PERM' "${nfs[@]}" getattr 127.0.0.1 "$ra"
escape a-lookup-refused 'NFS3ERR_ACCES|NFS3ERR_STALE|NFS3ERR_PERM' "${nfs[@]}" lookup 127.0.0.1 "$ra" file
escape a-file-read-refused 'NFS3ERR_ACCES|NFS3ERR_STALE|NFS3ERR_PERM' "${nfs[@]}" read 127.0.0.1 "$rf"
escape a-file-write-refused 'NFS3ERR_ACCES|NFS3ERR_STALE|NFS3ERR_PERM|NFS3ERR_ROFS' "${nfs[@]}" write 127.0.0.1 "$rf"
check a-file-unchanged "export a" "$(cat "$T/a/file")"

# (b) root_squash: root's files belong to 65534.
probe mnt-b MNT3_OK "${nfs[@]}" mnt 127.0.0.1 "$T/b"
rb=$(fh_of "$PROBE")
probe b-create-as-root NFS3_OK "${nfs[@]}" create 127.0.0.1 "$rb" by-root
check b-owner-squashed 65534:65534 "$(stat -c %u:%g "$T/b/by-root" 2>&1)"
probe b-create-as-1000 NFS3_OK env ACC_UID=1000 ACC_GID=1000 "${nfs[@]}" create 127.0.0.1 "$rb" by-1000
check b-owner-1000 1000:1000 "$(stat -c %u:%g "$T/b/by-1000" 2>&1)"

# (c) all_squash with anonuid/anongid: everyone is 1234:1234.
probe mnt-c MNT3_OK "${nfs[@]}" mnt 127.0.0.1 "$T/c"
rc_=$(fh_of "$PROBE")
probe c-create-as-1000 NFS3_OK env ACC_UID=1000 ACC_GID=1000 "${nfs[@]}" create 127.0.0.1 "$rc_" by-1000
check c-owner-anon 1234:1234 "$(stat -c %u:%g "$T/c/by-1000" 2>&1)"
probe c-create-as-root NFS3_OK "${nfs[@]}" mkdir 127.0.0.1 "$rc_" by-root
check c-owner-anon-root 1234:1234 "$(stat -c %u:%g "$T/c/by-root" 2>&1)"

# (d) read-only: reads work, every change is NFS3ERR_ROFS.
probe mnt-d MNT3_OK "${nfs[@]}" mnt 127.0.0.1 "$T/d"
rd=$(fh_of "$PROBE")
probe d-lookup NFS3_OK "${nfs[@]}" lookup 127.0.0.1 "$rd" file
df=$(fh_of "$PROBE")
probe d-read NFS3_OK "${nfs[@]}" read 127.0.0.1 "$df"
probe d-write NFS3ERR_ROFS "${nfs[@]}" write 127.0.0.1 "$df"
probe d-setattr NFS3ERR_ROFS "${nfs[@]}" setattr 127.0.0.1 "$df"
probe d-create NFS3ERR_ROFS "${nfs[@]}" create 127.0.0.1 "$rd" new
probe d-mkdir NFS3ERR_ROFS "${nfs[@]}" mkdir 127.0.0.1 "$rd" newdir
probe d-remove NFS3ERR_ROFS "${nfs[@]}" remove 127.0.0.1 "$rd" file
check d-unchanged "read only" "$(cat "$T/d/file")"

# (e) permissions as uid 1000, AUTH_NONE, "..", symlinks, the outside file.
probe mnt-e MNT3_OK "${nfs[@]}" mnt 127.0.0.1 "$T/e"
re=$(fh_of "$PROBE")
u1000=(env ACC_UID=1000 ACC_GID=1000 "${nfs[@]}")
probe e-lookup-secret NFS3_OK "${nfs[@]}" lookup 127.0.0.1 "$re" secret
es=$(fh_of "$PROBE")
probe e-read-0600-as-1000 NFS3ERR_ACCES "${u1000[@]}" read 127.0.0.1 "$es"
probe e-write-0600-as-1000 NFS3ERR_ACCES "${u1000[@]}" write 127.0.0.1 "$es"
probe e-read-0600-as-root NFS3_OK "${nfs[@]}" read 127.0.0.1 "$es"
# ACCESS bits: READ 1 LOOKUP 2 MODIFY 4 EXTEND 8 DELETE 10 EXECUTE 20.
probe e-access-0600-as-1000 'NFS3_OK 0x00' "${u1000[@]}" access 127.0.0.1 "$es"
probe e-access-0600-as-root 'NFS3_OK 0x0d|NFS3_OK 0x0c|NFS3_OK 0x1d|NFS3_OK 0x2d|NFS3_OK 0x3d' "${nfs[@]}" access 127.0.0.1 "$es"
probe e-lookup-rootdir NFS3_OK "${nfs[@]}" lookup 127.0.0.1 "$re" rootdir
erd=$(fh_of "$PROBE")
probe e-create-in-0755-as-1000 NFS3ERR_ACCES "${u1000[@]}" create 127.0.0.1 "$erd" nope
probe e-mkdir-in-0755-as-1000 NFS3ERR_ACCES "${u1000[@]}" mkdir 127.0.0.1 "$erd" nope
check e-nothing-created "" "$(ls "$T/e/rootdir")"
# EXECUTE means nothing for a directory (RFC 1813 3.3.4); knfsd never grants it there.
probe e-access-0755-dir-as-1000 'NFS3_OK 0x03' "${u1000[@]}" access 127.0.0.1 "$erd"
probe e-access-0755-dir-as-root 'NFS3_OK 0x3f|NFS3_OK 0x1f|NFS3_OK 0x2f' "${nfs[@]}" access 127.0.0.1 "$erd"
probe e-remove-as-1000 NFS3ERR_ACCES "${u1000[@]}" remove 127.0.0.1 "$re" secret
probe e-setattr-as-1000 'NFS3ERR_PERM|NFS3ERR_ACCES' "${u1000[@]}" setattr 127.0.0.1 "$es"
probe e-lookup-open NFS3_OK "${nfs[@]}" lookup 127.0.0.1 "$re" open
eo=$(fh_of "$PROBE")
probe e-create-as-1000 NFS3_OK "${u1000[@]}" create 127.0.0.1 "$eo" mine
check e-owner-1000 1000:1000 "$(stat -c %u:%g "$T/e/open/mine" 2>&1)"
probe e-create-auth-none NFS3_OK env ACC_AUTH=none "${nfs[@]}" create 127.0.0.1 "$eo" anon
check e-auth-none-is-anonymous 65534:65534 "$(stat -c %u:%g "$T/e/open/anon" 2>&1)"
probe e-read-0600-auth-none NFS3ERR_ACCES env ACC_AUTH=none "${nfs[@]}" read 127.0.0.1 "$es"

# ".." of the root is the root; names with a slash never walk.
probe e-root-attr NFS3_OK "${nfs[@]}" getattr 127.0.0.1 "$re"
root_id=$(printf '%s\n' "$PROBE" | sed -n 's/.*fileid=\([0-9]*\).*/\1/p')
escape e-dotdot NFS3_OK "${nfs[@]}" lookup 127.0.0.1 "$re" ..
check e-dotdot-is-root "fileid=$root_id" "$(printf '%s\n' "$PROBE" | grep -o 'fileid=[0-9]*')"
probe e-dotdot-handle-works NFS3_OK "${nfs[@]}" lookup 127.0.0.1 "$(fh_of "$PROBE")" secret
escape e-slash-name 'NFS3ERR_ACCES|NFS3ERR_NOENT|NFS3ERR_INVAL|NFS3ERR_PERM' "${nfs[@]}" lookup 127.0.0.1 "$re" ../outside/secret
escape e-slash-name2 'NFS3ERR_ACCES|NFS3ERR_NOENT|NFS3ERR_INVAL|NFS3ERR_PERM' "${nfs[@]}" lookup 127.0.0.1 "$re" rootdir/../../outside

# Symlinks are returned as symlinks (type 5) and never followed by the server.
probe e-lookup-symlink 'NFS3_OK [0-9a-f]+ fileid=[0-9]+ type=5' "${nfs[@]}" lookup 127.0.0.1 "$re" escape
el=$(fh_of "$PROBE")
probe e-readlink 'NFS3_OK ../outside' "${nfs[@]}" readlink 127.0.0.1 "$el"
escape e-lookup-through-symlink 'NFS3ERR_NOTDIR|NFS3ERR_ACCES|NFS3ERR_INVAL' "${nfs[@]}" lookup 127.0.0.1 "$el" secret
probe e-read-symlink 'NFS3ERR_INVAL|NFS3ERR_ACCES|NFS3ERR_ISDIR|status-[0-9]+' "${nfs[@]}" read 127.0.0.1 "$el"
probe e-nfs-symlink NFS3_OK "${nfs[@]}" symlink 127.0.0.1 "$eo" out2 /etc
escape e-create-via-symlink 'NFS3ERR_NOTDIR|NFS3ERR_ACCES|NFS3ERR_STALE|NFS3ERR_BADHANDLE|NFS3ERR_INVAL' "${nfs[@]}" create 127.0.0.1 "$el" planted
check e-nothing-planted-outside "secret" "$(ls "$T/outside")"

# A handle minted by the rogue for the parent directory export, which carries e's
# fsid and a valid MAC: its directories and files outside e must reach nothing.
probe rogue-mnt-parent MNT3_OK "${rogue[@]}" mnt 127.0.0.1 "$T"
rp=$(fh_of "$PROBE")
probe rogue-lookup-outside NFS3_OK "${rogue[@]}" lookup 127.0.0.1 "$rp" outside
rout=$(fh_of "$PROBE")
probe rogue-lookup-secret NFS3_OK "${rogue[@]}" lookup 127.0.0.1 "$rout" secret
rsec=$(fh_of "$PROBE")
refused='NFS3ERR_ACCES|NFS3ERR_STALE|NFS3ERR_BADHANDLE|NFS3ERR_PERM'
escape outside-parent-handle "$refused" "${nfs[@]}" getattr 127.0.0.1 "$rp"
escape outside-dir-handle "$refused" "${nfs[@]}" lookup 127.0.0.1 "$rout" secret
escape outside-file-getattr "$refused" "${nfs[@]}" getattr 127.0.0.1 "$rsec"
escape outside-file-read "$refused" "${nfs[@]}" read 127.0.0.1 "$rsec"
escape outside-file-write "$refused" "${nfs[@]}" write 127.0.0.1 "$rsec"
check outside-file-unchanged "top secret" "$(cat "$T/outside/secret")"

# The hard link: reachable by its name inside e (served, like knfsd), and that is all.
probe e-hardlink-by-name NFS3_OK "${nfs[@]}" lookup 127.0.0.1 "$re" hardlink

stop_server rogue
stop_server acc
echo "summary: access: $IT_OKS checks passed, $IT_FAILS failed ($ESCAPES handle and path escapes tried, $ESCAPES_REFUSED refused)"
it_done
