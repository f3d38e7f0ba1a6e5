#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# own_pair.sh PROGRAM [ARGS...]: run a C selftest on a device pair of its
# own, built by ktap.sh's veth_setup() like every shell test's.  The C
# tests re-execute themselves through this script when no DP_DEV is given
# (dp_own_setup() in lib/dp_verbs.h), so they can be run by hand too.
#
# A veth pair with MTU 9000: one end in this namespace carrying DP_DEV (the
# loopback variants), the other in a namespace of its own carrying DP_DEV2
# (the pair variants; the devices are visible everywhere, the traffic
# between them crosses the veth).  The devices are of type $DP_LINK_TYPE
# (default vrnic); a driver that serves the initial namespace only (6.1's
# rdma_rxe) gets no DP_DEV2.  The addresses exist only on this veth.
#
# PROGRAM sees DP_DEV, DP_DEV2, DP_VETH (our end of the veth), DP_NS (the
# other end's namespace) and DP_NS_ADDR4 (its IPv4 address), and
# VRNIC_OWN_PAIR=1 so that it does not come back here.  If the pair cannot
# be built, PROGRAM runs without DP_DEV and reports that itself.  Everything
# is removed when PROGRAM exits.

# shellcheck source=selftests/lib/ktap.sh
. "$(dirname "${BASH_SOURCE[0]}")/ktap.sh"

own_pair_setup() {
	local type=${DP_LINK_TYPE:-vrnic} id=$(($$ % 10000))
	local net=$((id % 250))

	# veth_setup's parameters (lib/ktap.sh): our end stays here.
	NS_A='' NS_B=dpr$id IF_A=dpr${id}a IF_B=dpr${id}b
	IP_A=10.79.$net.1 IP_B=10.79.$net.2
	IP6_A=$(printf 'fd79:%x::1' "$net") IP6_B=$(printf 'fd79:%x::2' "$net")
	VETH_MTU=9000
	veth_setup || return 1
	rdma link add "dprnd$id" type "$type" netdev "$IF_A" || return 1
	defer rdma link delete "dprnd$id"
	export DP_DEV=dprnd$id DP_VETH=$IF_A DP_NS=$NS_B DP_NS_ADDR4=$IP_B
	[[ $type != rxe && -z ${DP_DEV2:-} ]] || return 0
	# Without it the pair variants skip.
	in_b rdma link add "dprnd${id}b" type "$type" netdev "$IF_B" || return 0
	defer rdma link delete "dprnd${id}b"
	export DP_DEV2=dprnd${id}b
}

[[ $# -gt 0 ]] || {
	echo "usage: ${0##*/} PROGRAM [ARGS...]" >&2
	exit 2
}
export VRNIC_OWN_PAIR=1
own_pair_setup >&2 || echo "${0##*/}: could not build the device pair" >&2
"$@"
