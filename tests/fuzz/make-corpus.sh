#!/bin/bash
# make-corpus.sh - capture real clients talking to shoal-server and turn the traffic
# into the seed corpora of tests/fuzz/<target>/corpus/ (files named cap-*).
#
#   bash tests/fuzz/make-corpus.sh [BUILD-DIR]     (default build/release; needs root)
#
# Inside a private network namespace (unshare --net: the standard ports are ours and
# nothing leaks out) it starts BUILD-DIR/shoal-server on a fresh export holding the
# tree fuzz_dispatch.c builds, captures loopback with tcpdump, and runs clients we did
# not write: rpcinfo, showmount, nfs-ls, nfs-cat, nfs-cp (libnfs-utils), and
# BUILD-DIR/tests/integration/nfs3_procs (every NFSv3 procedure, through libnfs) when it
# is built. tests/fuzz/corpus_split.py then splits the capture into seeds. Previous
# cap-* seeds are replaced; other seeds (added by `make fuzz-merge`) are kept.
# Needs: tcpdump, python3, libnfs-utils, rpcbind (rpcinfo), nfs-common (showmount).
set -u

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build/release}" && pwd) || exit 2

if [ -z "${FUZZ_IN_NETNS:-}" ]; then
	for tool in tcpdump python3 nfs-ls nfs-cat nfs-cp rpcinfo showmount unshare; do
		command -v "$tool" >/dev/null ||
			{ echo "make-corpus: $tool not found (apt-get install tcpdump ...)" >&2; exit 1; }
	done
	[ -x "$build/shoal-server" ] || { echo "make-corpus: no $build/shoal-server" >&2; exit 1; }
	FUZZ_IN_NETNS=1 exec unshare --net -- bash "$0" "$build"
fi

ip link set lo up || exit 1
tmp=$(mktemp -d /tmp/shoal-corpus.XXXXXX)
chmod 755 "$tmp"
srv='' dump=''
cleanup() {
	[ -n "$srv" ] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
	[ -n "$dump" ] && kill "$dump" 2>/dev/null && wait "$dump" 2>/dev/null
	[ -n "${FUZZ_KEEP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"
}
trap cleanup EXIT

# The tree of fuzz_dispatch.c's populate(): seeds name these paths.
exp=$tmp/export
mkdir -p "$exp/dir/sub" "$tmp/state"
printf 'hello, shoal\n' >"$exp/file"
printf '0123456789abcdef0123456789abcdef\n' >"$exp/big"
printf 'two\n' >"$exp/dir/file2"
ln -s file "$exp/link"

tcpdump -i lo --immediate-mode -U -s 0 -w "$tmp/cap.pcap" 'tcp or udp' 2>"$tmp/tcpdump.log" &
dump=$!
for _ in $(seq 50); do
	grep -q listening "$tmp/tcpdump.log" 2>/dev/null && break
	sleep 0.1
done

mkfifo "$tmp/ready"
"$build/shoal-server" --ready-fd 3 --state-dir "$tmp/state" "$exp" 3>"$tmp/ready" \
	>"$tmp/server.log" 2>&1 &
srv=$!
read -r -t 30 line <"$tmp/ready" || { echo "make-corpus: server not ready" >&2; exit 1; }
echo "server: $line"
[[ $line =~ nfs=([0-9]+)\ mount=([0-9]+) ]] &&
	export SHOAL_NFS_PORT=${BASH_REMATCH[1]} SHOAL_MOUNT_PORT=${BASH_REMATCH[2]}

url=nfs://127.0.0.1$exp
run() {
	echo "+ $*"
	timeout 60 "$@" >"$tmp/client.log" 2>&1 ||
		{ echo "  (exit $?)"; grep -m 5 FAIL "$tmp/client.log" | sed 's/^/  /'; }
}
run rpcinfo -p 127.0.0.1
run rpcinfo -t 127.0.0.1 nfs 3
run rpcinfo -u 127.0.0.1 mountd 3
run rpcinfo -t 127.0.0.1 100005 1
run showmount -e 127.0.0.1
run showmount -a 127.0.0.1
run nfs-ls "$url/"
run nfs-ls "$url/dir"
run nfs-cat "$url/file"
run nfs-cat "$url/link"
head -c 3000 /dev/urandom >"$tmp/blob"
run nfs-cp "$tmp/blob" "$url/dir/new"
run nfs-cp "$url/big" "$tmp/big.copy"
run nfs-cat "$url/dir/file2"
if [ -x "$build/tests/integration/nfs3_procs" ]; then
	run "$build/tests/integration/nfs3_procs" procs 127.0.0.1 "$exp"
fi
sleep 1
kill -INT "$dump" && wait "$dump" 2>/dev/null
dump=

find "$here" -path '*/corpus/cap-*' -delete
python3 "$here/corpus_split.py" "$tmp/cap.pcap" "$exp" "$here" || exit 1
du -sh "$here"/*/corpus | sed 's/^/  /'
