// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: counters.  Two sets, each defined once by an enum (vrnic.h) and
 * one table here that everything else derives from:
 *  - port counters (enum vrnic_counter, vrnic_stat_descs[]): per-CPU,
 *    ib_core's hw stats ("rdma statistic show link vrnic0/1");
 *  - per-QP counters and state (enum vrnic_qp_counter,
 *    vrnic_qp_counters[]): kept by the data path in each QP
 *    (struct vrnic_qp_stats, struct vrnic_qp_cc), read by the vrnic
 *    netlink family (VRNIC_CMD_QP_STATS_GET), restrack
 *    (vrnic_fill_res_qp_entry()) and the
 *    rdma_counter ops below ("rdma statistic qp"), which report them
 *    under the names of their port counters.
 */

#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/rdma_counter.h>

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
	[VRNIC_CNT_DROP_NO_MEMORY].name		= "drop_no_memory",
	[VRNIC_CNT_LOSS_PROBES].name		= "loss_probes",
};

#define VRNIC_QP_CNT(n, p)	{ .name = (n), .port = (p) }
#define VRNIC_QP_CC_CNT(n, p)	{ .name = (n), .port = (p), .restrack = true }
#define VRNIC_QP_CC_STATE(n)	\
	{ .name = (n), .port = VRNIC_QP_NO_PORT, .restrack = true }
#define VRNIC_QP_OWN_CNT(n)	\
	{ .name = (n), .port = VRNIC_QP_NO_PORT, .restrack = true }

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
	/* spread over several drop_* port counters: none sums it alone */
	[VRNIC_QP_CNT_DROPS] = VRNIC_QP_OWN_CNT("dropped_packets"),
};

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
	val[VRNIC_QP_CNT_DROPS] = READ_ONCE(sq->drops) + READ_ONCE(rq->drops);
	vrnic_cc_qp_values(qp, val);
}

/**
 * vrnic_fill_res_qp_entry - vrnic's attributes of a QP for restrack
 * @msg: the nldev message ("rdma resource show qp -dd")
 * @ibqp: the QP
 *
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int vrnic_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	u64 val[VRNIC_QP_NUM_COUNTERS] = {};
	struct vrnic_qp *qp = to_vqp(ibqp);
	struct nlattr *nest;
	int i;

	vrnic_qp_values(qp, val);
	nest = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < VRNIC_QP_NUM_COUNTERS; i++) {
		if (!vrnic_qp_counters[i].restrack)
			continue;
		if (rdma_nl_put_driver_u64(msg, vrnic_qp_counters[i].name,
					   val[i]))
			goto cancel;
	}
	if ((qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC) &&
	    vrnic_req_fill_res(msg, qp))
		goto cancel;
	nla_nest_end(msg, nest);
	return 0;

cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/* ------------------------------------------------- per-QP rdma_counters */

/*
 * A bound counter's value is, per port counter, the sum over the QPs
 * bound to it of what each counted while bound: from its binding (the
 * values then are the QP's base) to its unbinding, which destroy_qp
 * does too (ib_core unbinds before it destroys).  ib_core keeps nothing
 * of an unbound QP: what the QP counted stays in the counter's @done.
 *
 * ib_core shows as the port's value ("rdma statistic show link",
 * sysfs hw_counters) what get_hw_stats reports *plus* the values of the
 * port's counters, live and released (it folds a released counter into
 * its history).  A NIC's default counter set counts only the QPs bound
 * to no other one; vrnic's port counters count every QP, so
 * get_hw_stats takes off what the counters count, vrnic_counted().
 *
 * ib_core serialises bind, unbind and update of one counter with
 * counter->lock and calls them in process context; @counter_mutex
 * (nested inside counter->lock and the hw stats' lock) serialises them
 * across counters and with get_hw_stats.  A bound QP is alive: it is
 * unbound before destroy_qp.
 */

/**
 * struct vrnic_bound_counter - vrnic's side of one rdma_counter
 * @qps: the QPs bound to it (struct vrnic_bound_qp), by QPN
 * @done: per enum vrnic_qp_counter, what QPs counted while bound to it,
 *	up to their unbinding
 */
struct vrnic_bound_counter {
	struct xarray qps;
	u64 done[VRNIC_QP_NUM_COUNTERS];
};

/**
 * struct vrnic_bound_qp - a QP bound to a counter
 * @qp: the QP
 * @base: its values when it was bound (enum vrnic_qp_counter)
 */
struct vrnic_bound_qp {
	struct vrnic_qp *qp;
	u64 base[VRNIC_QP_NUM_COUNTERS];
};

void vrnic_counters_dev_init(struct vrnic_dev *vdev)
{
	mutex_init(&vdev->counter_mutex);
	xa_init_flags(&vdev->counter_xa, XA_FLAGS_ALLOC1);
}

/* dealloc_driver: every QP is gone, so is every counter. */
void vrnic_counters_dev_cleanup(struct vrnic_dev *vdev)
{
	WARN_ON_ONCE(!xa_empty(&vdev->counter_xa));
	xa_destroy(&vdev->counter_xa);
}

/* Adds to @sum what @b's QP counted since it was bound; @counter_mutex. */
static void vrnic_bound_qp_add(const struct vrnic_bound_qp *b, u64 *sum)
{
	u64 now[VRNIC_QP_NUM_COUNTERS];
	int i;

	vrnic_qp_values(b->qp, now);
	for (i = 0; i < VRNIC_QP_NUM_COUNTERS; i++)
		if (vrnic_qp_counters[i].port != VRNIC_QP_NO_PORT)
			sum[i] += now[i] - b->base[i];
}

/* What all counters of @vdev counted, live and released. */
static void vrnic_counted(struct vrnic_dev *vdev, u64 *sum)
{
	struct vrnic_bound_counter *bc;
	struct vrnic_bound_qp *b;
	unsigned long id, qpn;

	mutex_lock(&vdev->counter_mutex);
	memcpy(sum, vdev->counted, sizeof(vdev->counted));
	xa_for_each(&vdev->counter_xa, id, bc)
		xa_for_each(&bc->qps, qpn, b)
			vrnic_bound_qp_add(b, sum);
	mutex_unlock(&vdev->counter_mutex);
}

/* Port counters are cheap to read: no caching (lifespan 0). */
struct rdma_hw_stats *vrnic_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	return rdma_alloc_hw_stats_struct(vrnic_stat_descs, VRNIC_NUM_COUNTERS,
					  0);
}

/* A port counter: the sum of its per-CPU parts. */
static u64 vrnic_counter_read(struct vrnic_dev *vdev, enum vrnic_counter c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(vdev->stats, cpu)->val[c];
	return sum;
}

/*
 * The port's counts minus what its counters count (see above).  Those
 * are read first: a QP counts an event at most a moment before its port
 * counter does, so the difference stays >= 0 but for such a moment.
 */
int vrnic_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct vrnic_dev *vdev = to_vdev(ibdev);
	u64 counted[VRNIC_QP_NUM_COUNTERS];
	int i;

	vrnic_counted(vdev, counted);
	vrnic_pfc_count_duration(vdev);
	for (i = 0; i < VRNIC_NUM_COUNTERS; i++)
		stats->value[i] = vrnic_counter_read(vdev, i);
	for (i = 0; i < VRNIC_QP_NUM_COUNTERS; i++) {
		u64 *v;

		if (vrnic_qp_counters[i].port == VRNIC_QP_NO_PORT)
			continue;
		v = &stats->value[vrnic_qp_counters[i].port];
		*v = *v > counted[i] ? *v - counted[i] : 0;
	}
	return VRNIC_NUM_COUNTERS;
}

/* A bound counter has the port's counters: ib_core sums them up so. */
struct rdma_hw_stats *vrnic_counter_alloc_stats(struct rdma_counter *counter)
{
	return rdma_alloc_hw_stats_struct(vrnic_stat_descs, VRNIC_NUM_COUNTERS,
					  0);
}

/*
 * The first QP bound to a counter gives it its id (ib_core files the
 * counter under it; 0 is no id) and vrnic's side.
 */
int vrnic_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp)
{
	struct vrnic_dev *vdev = to_vdev(counter->device);
	struct vrnic_bound_counter *bc, *new_bc = NULL;
	struct vrnic_bound_qp *b;
	u32 id;
	int err;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->qp = to_vqp(ibqp);

	mutex_lock(&vdev->counter_mutex);
	if (!counter->id) {
		new_bc = kzalloc(sizeof(*new_bc), GFP_KERNEL);
		if (!new_bc) {
			err = -ENOMEM;
			goto err_unlock;
		}
		xa_init(&new_bc->qps);
		err = xa_alloc(&vdev->counter_xa, &id, new_bc, xa_limit_32b,
			       GFP_KERNEL);
		if (err) {
			kfree(new_bc);
			goto err_unlock;
		}
		counter->id = id;
	}
	bc = xa_load(&vdev->counter_xa, counter->id);
	if (WARN_ON_ONCE(!bc)) {
		err = -EINVAL;
		goto err_unlock;
	}
	vrnic_qp_values(b->qp, b->base);
	err = xa_insert(&bc->qps, ibqp->qp_num, b, GFP_KERNEL);
	if (err)
		goto err_free_counter;
	ibqp->counter = counter;
	mutex_unlock(&vdev->counter_mutex);
	return 0;

err_free_counter:
	if (new_bc) {
		xa_erase(&vdev->counter_xa, counter->id);
		kfree(new_bc);
		counter->id = 0;
	}
err_unlock:
	mutex_unlock(&vdev->counter_mutex);
	kfree(b);
	return err;
}

/* What the QP counted while bound stays in its counter. */
int vrnic_counter_unbind_qp(struct ib_qp *ibqp)
{
	struct vrnic_dev *vdev = to_vdev(ibqp->device);
	u64 delta[VRNIC_QP_NUM_COUNTERS] = {};
	struct vrnic_bound_counter *bc;
	struct vrnic_bound_qp *b = NULL;
	int i;

	mutex_lock(&vdev->counter_mutex);
	bc = xa_load(&vdev->counter_xa, ibqp->counter->id);
	if (bc)
		b = xa_erase(&bc->qps, ibqp->qp_num);
	if (!WARN_ON_ONCE(!b)) {
		vrnic_bound_qp_add(b, delta);
		for (i = 0; i < VRNIC_QP_NUM_COUNTERS; i++) {
			bc->done[i] += delta[i];
			vdev->counted[i] += delta[i];
		}
		kfree(b);
	}
	ibqp->counter = NULL;
	mutex_unlock(&vdev->counter_mutex);
	return 0;
}

/* After the last QP's unbinding; ib_core has kept the final values. */
int vrnic_counter_dealloc(struct rdma_counter *counter)
{
	struct vrnic_dev *vdev = to_vdev(counter->device);
	struct vrnic_bound_counter *bc;

	if (!counter->id)
		return 0;
	mutex_lock(&vdev->counter_mutex);
	bc = xa_erase(&vdev->counter_xa, counter->id);
	mutex_unlock(&vdev->counter_mutex);
	if (bc) {
		WARN_ON_ONCE(!xa_empty(&bc->qps));
		xa_destroy(&bc->qps);
		kfree(bc);
	}
	return 0;
}

/*
 * Each port counter that a per-QP counter is part of gets the sum of
 * that counter; the others (no per-QP meaning, or not counted per QP)
 * stay 0.
 */
int vrnic_counter_update_stats(struct rdma_counter *counter)
{
	struct vrnic_dev *vdev = to_vdev(counter->device);
	struct rdma_hw_stats *stats = counter->stats;
	u64 val[VRNIC_QP_NUM_COUNTERS];
	struct vrnic_bound_counter *bc;
	struct vrnic_bound_qp *b;
	unsigned long qpn;
	int i;

	mutex_lock(&vdev->counter_mutex);
	bc = xa_load(&vdev->counter_xa, counter->id);
	if (!bc) {
		mutex_unlock(&vdev->counter_mutex);
		return -EINVAL;
	}
	memcpy(val, bc->done, sizeof(val));
	xa_for_each(&bc->qps, qpn, b)
		vrnic_bound_qp_add(b, val);
	mutex_unlock(&vdev->counter_mutex);

	memset(stats->value, 0, stats->num_counters * sizeof(u64));
	for (i = 0; i < VRNIC_QP_NUM_COUNTERS; i++)
		if (vrnic_qp_counters[i].port != VRNIC_QP_NO_PORT)
			stats->value[vrnic_qp_counters[i].port] = val[i];
	return 0;
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
