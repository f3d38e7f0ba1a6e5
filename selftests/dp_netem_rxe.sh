#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# VRNIC_TIMEOUT=900
#
# dp_netem_rxe.sh - dp_netem.sh with rdma_rxe on host B: vrnic interoperates
# with a peer that keeps nothing past a gap, under loss, reordering and
# duplication, both ways.  ib_write_bw: vrnic's requester against rxe's
# responder (the selective resend must fall back to go-back-N); ib_read_bw:
# rxe's requester against vrnic's responder; ibv_rc_pingpong: both.
# rxe's requester recovers lost READ responses slowly (59 s for 50 x 64 KiB
# in one run): 20 iterations each.

exec env DP_NETEM_PEER=rxe DP_NETEM_ITERS=20 "$(dirname "$0")/dp_netem.sh" "$@"
