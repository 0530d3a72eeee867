#!/bin/bash
# test_procs.sh - every NFSv3 and MOUNT procedure (nfs3_procs procs) against a quick-start
# server, a round trip through the libnfs utilities (nfs-cp, nfs-cat, nfs-ls, which find
# the ports through the portmapper), a file read back after its pages were dropped
# from the server's page cache (such READs move from the event loop to the read pool),
# and a read-only export of an exports file (nfs3_procs ro: reads work, every change
# is NFS3ERR_ROFS).
. "$(dirname "$0")/lib.sh"

exp=$T/export
mkdir -p "$exp"
start_server quick --state-dir "$T/state" "$exp" || it_done
run_tool procs "$TOOLS/nfs3_procs" procs 127.0.0.1 "$exp"
leftover=$(ls -A "$exp")
check procs-cleaned-up "" "$leftover"

head -c 300000 /dev/urandom >"$T/blob"
if nfs-cp "$T/blob" "nfs://127.0.0.1$exp/blob" >"$T/nfs-cp.out" 2>&1 &&
	cmp -s "$T/blob" "$exp/blob"; then
	ok "nfs-cp: the file on disk equals the one copied"
else
	fail "nfs-cp: expected $exp/blob to equal the source; $(tail -n 3 "$T/nfs-cp.out")"
fi
if nfs-cat "nfs://127.0.0.1$exp/blob" 2>/dev/null | cmp -s - "$T/blob"; then
	ok "nfs-cat: read back the same bytes"
else
	fail "nfs-cat: expected the 300000 bytes written"
fi
if nfs-ls "nfs://127.0.0.1$exp/" 2>&1 | grep -q ' blob$'; then
	ok "nfs-ls: lists blob"
else
	fail "nfs-ls: expected a line ending in ' blob'"
fi
stop_server quick

# A file none of whose pages are cached, on a disk file system (/tmp may be tmpfs).
cold=$(mktemp -d "${SHOAL_TEST_DIR:-/var/tmp}/shoal-cold.XXXXXX")
trap 'rm -rf "$cold"; it_cleanup' EXIT
mkdir -p "$cold/export"
cp "$T/blob" "$cold/export/blob"
start_server cold --state-dir "$T/state-cold" "$cold/export" || it_done
sync "$cold/export/blob"
dd if="$cold/export/blob" iflag=nocache count=0 status=none
check cold-dropped 0 "$(fincore --bytes --noheadings --output RES "$cold/export/blob" | tr -d " ")"
if nfs-cat "nfs://127.0.0.1$cold/export/blob" 2>/dev/null | cmp -s - "$T/blob"; then
	ok "nfs-cat-cold: read back the same bytes from a file not in the page cache"
else
	fail "nfs-cat-cold: expected the 300000 bytes written"
fi
stop_server cold

# An exports file with a rw and a ro export.
mkdir -p "$T/rw" "$T/ro"
echo "read only" >"$T/ro/ro.txt"
cat >"$T/exports" <<EOT
$T/rw 127.0.0.1(rw,no_root_squash)
$T/ro *(ro,no_root_squash)
EOT
start_server exports --exports "$T/exports" --state-dir "$T/state" || it_done
run_tool ro-export "$TOOLS/nfs3_procs" ro 127.0.0.1 "$T/ro" ro.txt
check ro-file-unchanged "read only" "$(cat "$T/ro/ro.txt")"
out=$("$TOOLS/nfs3_procs" write-stable 127.0.0.1 "$T/rw" w 2 0 2>&1)
check rw-export-write "acked 2" "$(printf '%s\n' "$out" | grep '^acked')"
stop_server exports
it_done
