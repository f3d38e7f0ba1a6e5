// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: counters.  Two sets, each defined once by an enum (vrnic.h) and
 * one table here that everything else derives from:
 *  - port counters (enum vrnic_counter, vrnic_stat_descs[]): per-CPU,
 *    ib_core's hw stats ("rdma statistic show link vrnic0/1");
 *  - per-QP counters and state (enum vrnic_qp_counter,
 *    vrnic_qp_counters[]): kept by the data path in each QP
 *    (struct vrnic_qp_stats, struct vrnic_qp_cc), read by the vrnic
 *    netlink family (VRNIC_CMD_QP_STATS_GET) and restrack (cc.c).
 */

#include <rdma/ib_verbs.h>

#include "vrnic.h"
#include "verbs.h"

/* Stable names, documented in docs/wire.md; append only. */
static const struct rdma_stat_desc vrnic_stat_descs[VRNIC_NUM_COUNTERS] = {
	[VRNIC_CNT_TX_PACKETS].name		= "tx_packets",
	[VRNIC_CNT_TX_BYTES].name		= "tx_bytes",
	[VRNIC_CNT_RX_PACKETS].name		= "rx_packets",
	[VRNIC_CNT_RX_BYTES].name		= "rx_bytes",
	[VRNIC_CNT_RETRANSMITS].name		= "retransmits",
	[VRNIC_CNT_RETRY_EXCEEDED].name		= "retry_exceeded",
	[VRNIC_CNT_RNR_RETRY_EXCEEDED].name	= "rnr_retry_exceeded",
	[VRNIC_CNT_TIMEOUTS].name		= "timeouts",
	[VRNIC_CNT_SEQ_ERR_NAKS_SENT].name	= "seq_err_naks_sent",
	[VRNIC_CNT_SEQ_ERR_NAKS_RCVD].name	= "seq_err_naks_rcvd",
	[VRNIC_CNT_RNR_NAKS_SENT].name		= "rnr_naks_sent",
	[VRNIC_CNT_RNR_NAKS_RCVD].name		= "rnr_naks_rcvd",
	[VRNIC_CNT_DUP_REQUESTS].name		= "duplicate_requests",
	[VRNIC_CNT_OUT_OF_SEQ_REQUESTS].name	= "out_of_sequence_requests",
	[VRNIC_CNT_ACCESS_ERRORS].name		= "remote_access_errors",
	[VRNIC_CNT_ICRC_ERRORS].name		= "icrc_errors",
	[VRNIC_CNT_DROP_UNKNOWN_QP].name	= "drop_unknown_qp",
	[VRNIC_CNT_DROP_BAD_PKEY].name		= "drop_bad_pkey",
	[VRNIC_CNT_DROP_BAD_QKEY].name		= "drop_bad_qkey",
	[VRNIC_CNT_DROP_MALFORMED].name		= "drop_malformed",
	[VRNIC_CNT_DROP_QP_STATE].name		= "drop_qp_state",
	[VRNIC_CNT_TX_ERRORS].name		= "tx_errors",
	/* DCQCN, by the names of ConnectX (mlx5) hw-stats */
	[VRNIC_CNT_NP_CNP_SENT].name		= "np_cnp_sent",
	[VRNIC_CNT_RP_CNP_HANDLED].name		= "rp_cnp_handled",
	[VRNIC_CNT_NP_ECN_MARKED].name		= "np_ecn_marked_roce_packets",
	[VRNIC_CNT_INVALID_REQUESTS].name	= "invalid_requests",
	[VRNIC_CNT_DROP_BAD_ADDR].name		= "drop_bad_address",
	[VRNIC_CNT_DROP_HELD_BUDGET].name	= "drop_held_budget",
	[VRNIC_CNT_RP_CNP_IGNORED].name		= "rp_cnp_ignored",
	/* PFC, by the names of ConnectX (mlx5) ethtool counters */
	[VRNIC_CNT_RX_PRIO_PAUSE + 0].name	= "rx_prio0_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE + 1].name	= "rx_prio1_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE + 2].name	= "rx_prio2_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE + 3].name	= "rx_prio3_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE + 4].name	= "rx_prio4_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE + 5].name	= "rx_prio5_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE + 6].name	= "rx_prio6_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE + 7].name	= "rx_prio7_pause",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 0].name = "rx_prio0_pause_duration",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 1].name = "rx_prio1_pause_duration",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 2].name = "rx_prio2_pause_duration",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 3].name = "rx_prio3_pause_duration",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 4].name = "rx_prio4_pause_duration",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 5].name = "rx_prio5_pause_duration",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 6].name = "rx_prio6_pause_duration",
	[VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 7].name = "rx_prio7_pause_duration",
	[VRNIC_CNT_RX_PAUSE_STORM].name		= "rx_pause_storm_events",
	[VRNIC_CNT_RX_PAUSE_IGNORED].name	= "rx_pause_ignored",
	/* by the name of the ConnectX (mlx5) hw-stat */
	[VRNIC_CNT_IMPLIED_NAK_SEQ_ERR].name	= "implied_nak_seq_err",
};

#define VRNIC_QP_CNT(n, p)	{ .name = (n), .port = (p) }
#define VRNIC_QP_CC_CNT(n, p)	{ .name = (n), .port = (p), .restrack = true }
#define VRNIC_QP_CC_STATE(n)	\
	{ .name = (n), .port = VRNIC_QP_STATE, .restrack = true }

/*
 * Stable names, documented in docs/wire.md; append only.  Each counter
 * counts a subset of the events of its port counter: those of this QP.
 */
const struct vrnic_qp_counter_desc vrnic_qp_counters[VRNIC_QP_NUM_COUNTERS] = {
	[VRNIC_QP_CNT_TX_PACKETS] = VRNIC_QP_CNT("tx_packets",
						 VRNIC_CNT_TX_PACKETS),
	[VRNIC_QP_CNT_TX_BYTES] = VRNIC_QP_CNT("tx_bytes", VRNIC_CNT_TX_BYTES),
	[VRNIC_QP_CNT_RX_PACKETS] = VRNIC_QP_CNT("rx_packets",
						 VRNIC_CNT_RX_PACKETS),
	[VRNIC_QP_CNT_RX_BYTES] = VRNIC_QP_CNT("rx_bytes", VRNIC_CNT_RX_BYTES),
	[VRNIC_QP_CNT_RETRANSMITS] = VRNIC_QP_CNT("retransmits",
						  VRNIC_CNT_RETRANSMITS),
	[VRNIC_QP_CNT_TIMEOUTS] = VRNIC_QP_CNT("timeouts", VRNIC_CNT_TIMEOUTS),
	[VRNIC_QP_CNT_SEQ_NAKS_SENT] = VRNIC_QP_CNT("seq_naks_sent",
					VRNIC_CNT_SEQ_ERR_NAKS_SENT),
	[VRNIC_QP_CNT_SEQ_NAKS_RCVD] = VRNIC_QP_CNT("seq_naks_rcvd",
					VRNIC_CNT_SEQ_ERR_NAKS_RCVD),
	[VRNIC_QP_CNT_RNR_NAKS_SENT] = VRNIC_QP_CNT("rnr_naks_sent",
						    VRNIC_CNT_RNR_NAKS_SENT),
	[VRNIC_QP_CNT_RNR_NAKS_RCVD] = VRNIC_QP_CNT("rnr_naks_rcvd",
						    VRNIC_CNT_RNR_NAKS_RCVD),
	[VRNIC_QP_CNT_CNP_SENT] = VRNIC_QP_CC_CNT("np_cnp_sent",
						  VRNIC_CNT_NP_CNP_SENT),
	[VRNIC_QP_CNT_CNP_RCVD] = VRNIC_QP_CC_CNT("rp_cnp_handled",
						  VRNIC_CNT_RP_CNP_HANDLED),
	[VRNIC_QP_CNT_ECN_MARKED] = VRNIC_QP_CC_CNT("np_ecn_marked_roce_packets",
						    VRNIC_CNT_NP_ECN_MARKED),
	/* DCQCN state of the QP's sender, not counters */
	[VRNIC_QP_CNT_RATE_MBPS] = VRNIC_QP_CC_STATE("dcqcn_rate_mbps"),
	[VRNIC_QP_CNT_TARGET_MBPS] = VRNIC_QP_CC_STATE("dcqcn_target_rate_mbps"),
	[VRNIC_QP_CNT_ALPHA] = VRNIC_QP_CC_STATE("dcqcn_alpha"),
	[VRNIC_QP_CNT_LIMITED] = VRNIC_QP_CC_STATE("dcqcn_limited"),
	[VRNIC_QP_CNT_PFC_PAUSED] = VRNIC_QP_CC_STATE("pfc_paused"),
	[VRNIC_QP_CNT_DUP_REQUESTS] = VRNIC_QP_CNT("duplicate_requests",
						   VRNIC_CNT_DUP_REQUESTS),
	[VRNIC_QP_CNT_ACCESS_ERRORS] = VRNIC_QP_CNT("remote_access_errors",
						    VRNIC_CNT_ACCESS_ERRORS),
};

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

/*
 * The values of @qp, indexed by enum vrnic_qp_counter.  Each field of
 * struct vrnic_qp_stats has one writer (transport.h): read without
 * locking, a value may be a few packets old.  Process context.
 */
static void vrnic_qp_values(struct vrnic_qp *qp, u64 *val)
{
	const struct vrnic_qp_stats *sq = &qp->xport.sq_stats;
	const struct vrnic_qp_stats *rq = &qp->xport.rq_stats;

	val[VRNIC_QP_CNT_TX_PACKETS] = READ_ONCE(sq->tx_packets) +
				       READ_ONCE(rq->tx_packets);
	val[VRNIC_QP_CNT_TX_BYTES] = READ_ONCE(sq->tx_bytes) +
				     READ_ONCE(rq->tx_bytes);
	val[VRNIC_QP_CNT_RX_PACKETS] = READ_ONCE(sq->rx_packets) +
				       READ_ONCE(rq->rx_packets);
	val[VRNIC_QP_CNT_RX_BYTES] = READ_ONCE(sq->rx_bytes) +
				     READ_ONCE(rq->rx_bytes);
	val[VRNIC_QP_CNT_RETRANSMITS] = READ_ONCE(sq->retransmits);
	val[VRNIC_QP_CNT_TIMEOUTS] = READ_ONCE(sq->timeouts);
	/* The responder sends NAKs, the completer receives them. */
	val[VRNIC_QP_CNT_SEQ_NAKS_SENT] = READ_ONCE(rq->seq_naks);
	val[VRNIC_QP_CNT_SEQ_NAKS_RCVD] = READ_ONCE(sq->seq_naks);
	val[VRNIC_QP_CNT_RNR_NAKS_SENT] = READ_ONCE(rq->rnr_naks);
	val[VRNIC_QP_CNT_RNR_NAKS_RCVD] = READ_ONCE(sq->rnr_naks);
	val[VRNIC_QP_CNT_DUP_REQUESTS] = READ_ONCE(rq->dup_requests);
	/* Sent: the completer's count of received ones has no port twin. */
	val[VRNIC_QP_CNT_ACCESS_ERRORS] = READ_ONCE(rq->access_errors);
	vrnic_cc_qp_values(qp, val);
}

/**
 * vrnic_qp_counters_next - per-QP counters for the netlink API
 * @vdev: the device
 * @qpn: in: the lowest QP number wanted; out: the number of the QP found
 * @owner: only QPs of processes running as this uid
 *	(vrnic_qp_owned_by()), or NULL for all
 * @val: that QP's values, indexed by enum vrnic_qp_counter
 *
 * Finds the live QP of @vdev with the lowest number >= *@qpn (QP numbers
 * are unique per device, so a dump resumes by number).  May sleep.
 *
 * Return: 0, or -ENOENT when there is no such QP.
 */
int vrnic_qp_counters_next(struct vrnic_dev *vdev, u32 *qpn,
			   const kuid_t *owner, u64 *val)
{
	unsigned long index = *qpn, flags;
	struct vrnic_qp *qp;

	for (;;) {
		xa_lock_irqsave(&vdev->qp_xa, flags);
		qp = xa_find(&vdev->qp_xa, &index, U32_MAX, XA_PRESENT);
		if (qp && !refcount_inc_not_zero(&qp->ref))
			qp = ERR_PTR(-EAGAIN);	/* being destroyed: skip */
		xa_unlock_irqrestore(&vdev->qp_xa, flags);
		if (!qp)
			return -ENOENT;
		if (!IS_ERR(qp) && owner && !vrnic_qp_owned_by(qp, *owner)) {
			vrnic_qp_put(qp);
			qp = ERR_PTR(-EACCES);	/* someone else's: skip */
		}
		if (!IS_ERR(qp))
			break;
		if (index == U32_MAX)
			return -ENOENT;
		index++;
	}

	vrnic_qp_values(qp, val);
	*qpn = index;
	vrnic_qp_put(qp);
	return 0;
}
