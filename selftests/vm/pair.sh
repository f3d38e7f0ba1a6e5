#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pair.sh - two throw-away guests on one cable.
#
#   pair.sh 'PEER CMDLINE' 'MAIN CMDLINE'
#
# Boots guest B ("peer", MAC 52:54:00:76:72:01) and guest A ("main",
# :02), each with vm.sh run and a second virtio NIC joined to the other's
# by a Unix stream socket (VRNIC_VM_LINK, see vm.sh): a point-to-point
# Ethernet link that only the two guests see.  Each runs its command line
# with bash -c; A's exit status is ours.  B is expected to stop when A
# tells it to (selftests/lib/bench_peer.py); it is killed 120 s after A
# ends otherwise.  Each guest has one vCPU (VRNIC_VM_SMP, default 1
# here), so that the two fit a 2-core build machine without one guest's
# vCPU waiting for the other's to be descheduled.  Each guest is stopped
# after VRNIC_VM_TIMEOUT seconds, 3600 by default here (vm.sh run's 900
# cut off a two-round bench_hosts.sh: a round can take 9 minutes).
#
# Results: A's run directory (build/vm/results links to it).

set -euo pipefail

VM=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/vm.sh
export VRNIC_VM_SMP=${VRNIC_VM_SMP:-1}
export VRNIC_VM_TIMEOUT=${VRNIC_VM_TIMEOUT:-3600}

[[ $# -eq 2 ]] || {
	echo "usage: pair.sh 'PEER CMDLINE' 'MAIN CMDLINE'" >&2
	exit 2
}

sock=$(mktemp -u "${TMPDIR:-/tmp}/vrnic-link.XXXXXX")
trap 'rm -f "$sock"' EXIT

VRNIC_VM_LINK=listen:$sock "$VM" run -- bash -c "$1" > >(sed -u 's/^/peer: /') 2>&1 &
peer=$!
# The connecting QEMU fails if nothing listens yet.
for _ in $(seq 1200); do
	[[ -S $sock ]] && break
	kill -0 "$peer" 2>/dev/null || {
		echo "pair.sh: the peer guest stopped before it listened" >&2
		exit 1
	}
	sleep 0.1
done
rc=0
VRNIC_VM_LINK=connect:$sock "$VM" run -- bash -c "$2" || rc=$?
for _ in $(seq 120); do
	kill -0 "$peer" 2>/dev/null || break
	sleep 1
done
if kill -0 "$peer" 2>/dev/null; then
	echo "pair.sh: the peer guest did not stop; killing it" >&2
	kill -TERM "$peer" 2>/dev/null || true
fi
wait "$peer" || true
exit "$rc"
