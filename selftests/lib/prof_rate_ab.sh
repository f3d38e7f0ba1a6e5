#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prof_rate_ab.sh - prof_rate.sh with two builds of vrnic.ko in one guest,
# alternating which goes first (docs/performance.md, "One device").  Run
# in a guest; the modules must be on the host root the guest sees, e.g.:
#
#   VRNIC_VM_SLUB_DEBUG= selftests/vm/vm.sh run -- \
#       selftests/lib/prof_rate_ab.sh "$PWD/old.ko" "$PWD/new.ko"
#
# Every round prints, per module, prof_rate.sh's message rate and the
# doorbell's and requester's shares of the client CPU's busy samples.
# Under TCG the rate moves by 2x between runs of one module; the
# requester's share of the samples does not, and the rest of the busy
# time (perftest, librxe, the system call) is the same code for both
# modules, so the share compares them.  PROF_ROUNDS sets the rounds
# (default 4), PROF_ITERS the messages of each run (default 100000).

if [[ $# -ne 2 || ! -f $1 || ! -f $2 ]]; then
	echo "usage: $0 A.ko B.ko" >&2
	exit 2
fi
export PROF_ITERS=${PROF_ITERS:-100000}
rounds=${PROF_ROUNDS:-4}

rmmod vrnic 2>/dev/null
for ((i = 1; i <= rounds; i++)); do
	if ((i % 2)); then order=("$1" "$2"); else order=("$2" "$1"); fi
	for ko in "${order[@]}"; do
		insmod "$ko" || exit 1
		echo "== round $i: $ko"
		"$(dirname "$0")/prof_rate.sh" | sed -n 1,5p
		rmmod vrnic || exit 1
	done
done
