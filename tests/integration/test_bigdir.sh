#!/bin/bash
# test_bigdir.sh - READDIR and READDIRPLUS cookies and the cookie verifier stay valid
# while a directory of 100,000 entries is listed in pages and changed: between every
# two pages the client creates a name and removes one it has already seen, and every
# original name must still be listed exactly once, with the same verifier throughout.
# The names are created directly in the exported directory (quicker than 100,000
# CREATEs); the listing goes through the server.
. "$(dirname "$0")/lib.sh"

n=${IT_BIGDIR_ENTRIES:-100000}
exp=$T/export
mkdir -p "$exp/big"
(cd "$exp/big" && seq -f 'e%06.0f' 0 $((n - 1)) | xargs touch)
got=$(find "$exp/big" -mindepth 1 | wc -l)
check created-locally "$n" "$got"
start_server big --state-dir "$T/state" "$exp" || it_done
run_tool bigdir-listing "$TOOLS/nfs3_procs" bigdir 127.0.0.1 "$exp" big "$n"
stop_server big
it_done
