#!/bin/bash
# test_escape.sh - nothing outside the export is reachable: LOOKUP ".." at the export root
# stays at the root; a symlink to ../secret is a symlink (READLINK gives its text, READ on
# it fails, libnfs clients cannot follow it out); a valid handle for the secret minted by a
# server exporting the parent (same state dir) is refused; forged handles are BADHANDLE.
. "$(dirname "$0")/lib.sh"

top=$T/top
exp=$top/export
mkdir -p "$exp/dir"
echo TOPSECRET >"$top/secret"
ln -s ../secret "$exp/link"
ln -s "$top/secret" "$exp/abslink"
P=$TOOLS/nfs3_procs

# The parent exported on its own: mint handles for the secret and for the parent.
start_server parent --state-dir "$T/state" "$top" || it_done
secret=$(field "$("$P" fh 127.0.0.1 "$top" secret)" fh)
# shellcheck disable=SC2034 # read through ${!h} below
parent=$(field "$("$P" fh 127.0.0.1 "$top")" fh)
out=$("$P" read 127.0.0.1 - "$secret")
if [ -n "$secret" ] && printf '%s\n' "$out" | grep -q TOPSECRET; then
	ok "parent-export-reads-secret (the handle is genuine)"
else
	fail "parent-export-reads-secret: expected the parent's server to read TOPSECRET got '$out'"
fi
stop_server parent

start_server child --state-dir "$T/state" "$exp" || it_done
root=$(field "$("$P" fh 127.0.0.1 "$exp")" fh)
rootid=$(field "$("$P" getattr 127.0.0.1 - "$root")" type | sed 's/.*fileid //')

out=$("$P" lookup 127.0.0.1 - "$root" ..)
check dotdot-at-root-ok NFS3_OK "$(printf '%s\n' "$out" | head -n 1)"
check dotdot-at-root-is-root "$rootid" "$(field "$out" type | sed 's/.*fileid //')"
st=$("$P" fh 127.0.0.1 "$exp" ../secret | head -n 1)
case $st in
fh*) fail "dotdot-secret: expected LOOKUP ../secret from the root to fail got a handle" ;;
*) ok "dotdot-secret: $st" ;;
esac
dir=$(field "$("$P" fh 127.0.0.1 "$exp" dir)" fh)
out=$("$P" lookup 127.0.0.1 - "$dir" ..)
check dir-dotdot-is-root "$rootid" "$(field "$out" type | sed 's/.*fileid //')"

for l in link abslink; do
	out=$("$P" lookup 127.0.0.1 - "$root" "$l")
	check "$l-is-symlink" 5 "$(field "$out" type | cut -d' ' -f1)"
	lh=$(field "$out" fh)
	out=$("$P" read 127.0.0.1 - "$lh")
	st=$(printf '%s\n' "$out" | head -n 1)
	if [ "$st" != NFS3_OK ] && ! printf '%s\n' "$out" | grep -q TOPSECRET; then
		ok "$l-read-refused: $st"
	else
		fail "$l-read-refused: expected READ on a symlink's handle to fail got $st"
	fi
done
out=$("$P" readlink 127.0.0.1 - "$(field "$("$P" lookup 127.0.0.1 - "$root" link)" fh)")
check readlink-text "text ../secret" "$(printf '%s\n' "$out" | sed -n 2p)"
if nfs-cat "nfs://127.0.0.1$exp/link" 2>/dev/null | grep -q TOPSECRET; then
	fail "nfs-cat-link: expected libnfs to be unable to read the secret through the link"
else
	ok "nfs-cat-link: the secret is not readable through the link"
fi

for h in secret parent; do
	hv=${!h}
	for op in getattr read; do
		out=$("$P" $op 127.0.0.1 - "$hv")
		st=$(printf '%s\n' "$out" | head -n 1)
		case $st in
		NFS3ERR_STALE | NFS3ERR_BADHANDLE)
			if printf '%s\n' "$out" | grep -q TOPSECRET; then
				fail "$h-handle-$op: expected no data got TOPSECRET"
			else
				ok "$h-handle-$op: $st"
			fi
			;;
		*) fail "$h-handle-$op: expected NFS3ERR_STALE or NFS3ERR_BADHANDLE for a handle from outside the export got $st" ;;
		esac
	done
done

for len in 8 32 ${#root}; do
	[ "$len" -gt 128 ] && len=128
	forged=$(head -c 64 /dev/urandom | od -An -tx1 | tr -d ' \n' | head -c "$len")
	check "forged-handle-$len" NFS3ERR_BADHANDLE "$("$P" getattr 127.0.0.1 - "$forged" | head -n 1)"
done
stop_server child
it_done
