#!/bin/bash
# test_udp_source.sh - UDP replies come from the address the call was sent to. The server
# listens on the wildcard address of a host with more than one (127.0.0.2 and ::2 next to
# 127.0.0.1 and ::1 on loopback); rpc_raw udp calls NFS and MOUNT on each address from a
# connected socket, which the kernel lets hear only replies from that address.
. "$(dirname "$0")/lib.sh"

exp=$T/export
mkdir -p "$exp"
ip addr add 127.0.0.2/8 dev lo 2>/dev/null # already there on most kernels: 127/8 is local
if ! ip -6 addr add ::2/128 dev lo nodad; then
	fail "setup: expected to add ::2 to the loopback interface of the test's namespace"
	it_done
fi
start_server srv --state-dir "$T/state" "$exp" || it_done
for a in 127.0.0.1 127.0.0.2 ::1 ::2; do
	run_tool "udp-from-$a" "$TOOLS/rpc_raw" udp "$a"
done
stop_server srv
it_done
