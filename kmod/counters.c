// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: port counters, exposed through ib_core's hw-stats interface
 * ("rdma statistic show link vrnic0/1") and the vrnic netlink family.
 */

#include <rdma/ib_verbs.h>

#include "vrnic.h"

/* Stable names, documented in docs/wire.md; append only. */
const char *const vrnic_counter_names[VRNIC_NUM_COUNTERS] = {
	[VRNIC_CNT_TX_PACKETS]		= "tx_packets",
	[VRNIC_CNT_TX_BYTES]		= "tx_bytes",
	[VRNIC_CNT_RX_PACKETS]		= "rx_packets",
	[VRNIC_CNT_RX_BYTES]		= "rx_bytes",
	[VRNIC_CNT_RETRANSMITS]		= "retransmits",
	[VRNIC_CNT_RETRY_EXCEEDED]	= "retry_exceeded",
	[VRNIC_CNT_RNR_RETRY_EXCEEDED]	= "rnr_retry_exceeded",
	[VRNIC_CNT_TIMEOUTS]		= "timeouts",
	[VRNIC_CNT_SEQ_ERR_NAKS_SENT]	= "seq_err_naks_sent",
	[VRNIC_CNT_SEQ_ERR_NAKS_RCVD]	= "seq_err_naks_rcvd",
	[VRNIC_CNT_RNR_NAKS_SENT]	= "rnr_naks_sent",
	[VRNIC_CNT_RNR_NAKS_RCVD]	= "rnr_naks_rcvd",
	[VRNIC_CNT_DUP_REQUESTS]	= "duplicate_requests",
	[VRNIC_CNT_OUT_OF_SEQ_REQUESTS]	= "out_of_sequence_requests",
	[VRNIC_CNT_ACCESS_ERRORS]	= "remote_access_errors",
	[VRNIC_CNT_ICRC_ERRORS]		= "icrc_errors",
	[VRNIC_CNT_DROP_UNKNOWN_QP]	= "drop_unknown_qp",
	[VRNIC_CNT_DROP_BAD_PKEY]	= "drop_bad_pkey",
	[VRNIC_CNT_DROP_BAD_QKEY]	= "drop_bad_qkey",
	[VRNIC_CNT_DROP_MALFORMED]	= "drop_malformed",
	[VRNIC_CNT_DROP_QP_STATE]	= "drop_qp_state",
	[VRNIC_CNT_TX_ERRORS]		= "tx_errors",
	/* DCQCN, by the names of ConnectX (mlx5) hw-stats */
	[VRNIC_CNT_NP_CNP_SENT]		= "np_cnp_sent",
	[VRNIC_CNT_RP_CNP_HANDLED]	= "rp_cnp_handled",
	[VRNIC_CNT_NP_ECN_MARKED]	= "np_ecn_marked_roce_packets",
	[VRNIC_CNT_INVALID_REQUESTS]	= "invalid_requests",
	[VRNIC_CNT_DROP_BAD_ADDR]	= "drop_bad_address",
	[VRNIC_CNT_DROP_HELD_BUDGET]	= "drop_held_budget",
	[VRNIC_CNT_RP_CNP_IGNORED]	= "rp_cnp_ignored",
	/* PFC, by the names of ConnectX (mlx5) ethtool counters */
	[VRNIC_CNT_RX_PRIO_PAUSE + 0]	= "rx_prio0_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE + 1]	= "rx_prio1_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE + 2]	= "rx_prio2_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE + 3]	= "rx_prio3_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE + 4]	= "rx_prio4_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE + 5]	= "rx_prio5_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE + 6]	= "rx_prio6_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE + 7]	= "rx_prio7_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 0] = "rx_prio0_pause_duration",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 1] = "rx_prio1_pause_duration",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 2] = "rx_prio2_pause_duration",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 3] = "rx_prio3_pause_duration",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 4] = "rx_prio4_pause_duration",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 5] = "rx_prio5_pause_duration",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 6] = "rx_prio6_pause_duration",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 7] = "rx_prio7_pause_duration",
	[VRNIC_CNT_RX_PAUSE_STORM]	= "rx_pause_storm_events",
	[VRNIC_CNT_RX_PAUSE_IGNORED]	= "rx_pause_ignored",
	/* by the name of the ConnectX (mlx5) hw-stat */
	[VRNIC_CNT_IMPLIED_NAK_SEQ_ERR]	= "implied_nak_seq_err",
};

static struct rdma_stat_desc vrnic_stat_descs[VRNIC_NUM_COUNTERS];

/* Called once at module load, before any device exists. */
void vrnic_counters_init(void)
{
	int i;

	for (i = 0; i < VRNIC_NUM_COUNTERS; i++)
		vrnic_stat_descs[i].name = vrnic_counter_names[i];
}

/* Port counters are cheap to read: no caching (lifespan 0). */
struct rdma_hw_stats *vrnic_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	return rdma_alloc_hw_stats_struct(vrnic_stat_descs, VRNIC_NUM_COUNTERS,
					  0);
}

int vrnic_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct vrnic_dev *vdev = to_vdev(ibdev);
	int i;

	vrnic_pfc_count_duration(vdev);
	for (i = 0; i < VRNIC_NUM_COUNTERS; i++)
		stats->value[i] = vrnic_counter_read(vdev, i);
	return VRNIC_NUM_COUNTERS;
}
