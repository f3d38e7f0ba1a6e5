// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: port counters, exposed through ib_core's hw-stats interface
 * ("rdma statistic show link vrnic0/1") and the vrnic netlink family.
 */

#include <rdma/ib_verbs.h>

#include "vrnic.h"

/* Stable names: documented in docs/counters.md; append only. */
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
	[VRNIC_CNT_CNP_SENT]		= "cnp_sent",
	[VRNIC_CNT_CNP_RCVD]		= "cnp_rcvd",
	[VRNIC_CNT_ECN_MARKED]		= "ecn_marked_packets",
	[VRNIC_CNT_INVALID_REQUESTS]	= "invalid_requests",
	[VRNIC_CNT_DROP_BAD_ADDR]	= "drop_bad_address",
	[VRNIC_CNT_DROP_HELD_BUDGET]	= "drop_held_budget",
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

	for (i = 0; i < VRNIC_NUM_COUNTERS; i++)
		stats->value[i] = vrnic_counter_read(vdev, i);
	return VRNIC_NUM_COUNTERS;
}
