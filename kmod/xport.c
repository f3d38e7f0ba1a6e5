// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: the transport of a QP -- its life cycle and path attributes --
 * and the wire's module init.
 *
 * The verbs layer (qp.c) calls the vrnic_xport_*() hooks in process
 * context (verbs.h says when); they set up, reconfigure, stop and free
 * what the requester (req.c), completer (comp.c) and responder (resp.c)
 * share, under the lifetime rule and the locks of transport.h.
 */
#include <linux/workqueue.h>
#include <net/dst_cache.h>

#include "vrnic.h"
#include "verbs.h"
#include "opcode.h"
#include "config.h"

/* The engines' work items (requester and responder of every QP). */
struct workqueue_struct *vrnic_wq;

/* Payload bytes per packet: the path MTU (RC, UC), the port MTU (UD). */
u32 vrnic_qp_mtu(struct vrnic_qp *qp)
{
	struct net_device *ndev = vrnic_qp_dev(qp)->ndev;

	if (qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC)
		return qp->xport.mtu;
	/* UD: the port MTU, as query_port reports it. */
	return ib_mtu_enum_to_int(vrnic_ndev_active_mtu(ndev));
}

/*
 * A jiffy: GFP_ATOMIC allocations fail while reclaim has not caught up,
 * which a retry at once would not let happen.
 */
#define VRNIC_NOMEM_RETRY	1

static void vrnic_xport_nomem_timer(struct timer_list *t)
{
	struct vrnic_qp *qp = from_timer(qp, t, xport.nomem_timer);
	struct vrnic_qp_xport *xp = &qp->xport;

	if (test_and_clear_bit(VRNIC_XP_NOMEM_REQ, &xp->nomem))
		vrnic_req_schedule(qp);
	if (test_and_clear_bit(VRNIC_XP_NOMEM_RESP, &xp->nomem))
		vrnic_resp_schedule(qp);
}

/**
 * vrnic_xport_nomem_wait - run an engine again after memory failed it
 * @qp: the QP
 * @engine: VRNIC_XP_NOMEM_REQ (@sq_lock held) or VRNIC_XP_NOMEM_RESP
 *	(@rq_lock held)
 *
 * An engine that cannot allocate a packet (GFP_ATOMIC: softirq, or its
 * BH-safe lock held) stops and tries again from its work item a jiffy
 * later.  Queuing the work item at once would have it fail, requeue
 * itself and spin a CPU for as long as memory stays short.  Not once
 * vrnic_xport_stop() has begun: it sets @stopped under both locks
 * before it deletes the timer.
 */
void vrnic_xport_nomem_wait(struct vrnic_qp *qp, int engine)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	if (xp->stopped)
		return;
	set_bit(engine, &xp->nomem);
	if (!timer_pending(&xp->nomem_timer))
		mod_timer(&xp->nomem_timer, jiffies + VRNIC_NOMEM_RETRY);
}

int vrnic_xport_init(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	int err;

	err = dst_cache_init(&xp->route.dst_cache, GFP_KERNEL_ACCOUNT);
	if (err)
		return err;
	xp->route.lend = true;
	spin_lock_init(&xp->sq_lock);
	spin_lock_init(&xp->rq_lock);
	timer_setup(&xp->retrans_timer, vrnic_req_retrans_timer, 0);
	timer_setup(&xp->rnr_timer, vrnic_req_rnr_timer, 0);
	timer_setup(&xp->nomem_timer, vrnic_xport_nomem_timer, 0);
	INIT_WORK(&xp->req_work, vrnic_req_work);
	INIT_WORK(&xp->resp_work, vrnic_resp_work);
	skb_queue_head_init(&xp->backlog);
	skb_queue_head_init(&xp->ooo);
	vrnic_cc_init(qp);
	xp->mtu = 1024;	/* until modify_qp sets the path MTU */
	xp->ack_timeout = vrnic_ack_timeout_jiffies(0);
	vrnic_req_loss_reset(xp);
	xp->tx_cpu = -1;
	xp->rx_cpu = -1;
	xp->reply_cpu = -1;
	vrnic_req_cursor_reset(qp);
	xp->stopped = true;	/* a new QP is in RESET */
	return 0;
}

/* Responder resources sized by max_dest_rd_atomic (at least one). */
static int vrnic_xport_resize_res(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	u32 n = max_t(u32, qp->attr.max_dest_rd_atomic, 1);
	struct vrnic_rdres *res, *old;

	if (n == xp->nres)
		return 0;
	res = kcalloc(n, sizeof(*res), GFP_KERNEL_ACCOUNT);
	if (!res)
		return -ENOMEM;
	spin_lock_bh(&xp->rq_lock);
	old = xp->res;
	xp->res = res;
	xp->nres = n;
	xp->res_head = 0;
	xp->res_cur = NULL;
	spin_unlock_bh(&xp->rq_lock);
	kfree(old);
	return 0;
}

/**
 * vrnic_xport_lock - hold both engine locks (path attribute writers)
 * @qp: the QP; process context
 *
 * See "Path attributes" in transport.h.  Nests qp->state_lock inside.
 */
void vrnic_xport_lock(struct vrnic_qp *qp)
	__acquires(&qp->xport.sq_lock) __acquires(&qp->xport.rq_lock)
{
	spin_lock_bh(&qp->xport.sq_lock);
	spin_lock(&qp->xport.rq_lock);
}

void vrnic_xport_unlock(struct vrnic_qp *qp)
	__releases(&qp->xport.rq_lock) __releases(&qp->xport.sq_lock)
{
	spin_unlock(&qp->xport.rq_lock);
	if (vrnic_sq_unlock(qp))
		vrnic_req_schedule(qp);
}

/**
 * vrnic_xport_stop - stop the engines before RESET or destroy
 * @qp: the QP; process context, modify_qp or destroy_qp
 *
 * Step 2 of the lifetime rule in transport.h.  On return no timer is
 * pending or running, no work item is queued or running, and none will
 * be until vrnic_xport_modify() leaves RESET.
 */
void vrnic_xport_stop(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	vrnic_xport_lock(qp);
	xp->stopped = true;
	vrnic_xport_unlock(qp);

	/* Timers first: their callbacks may queue the work items. */
	del_timer_sync(&xp->retrans_timer);
	del_timer_sync(&xp->rnr_timer);
	del_timer_sync(&xp->nomem_timer);
	xp->nomem = 0;
	vrnic_cc_stop(qp);
	cancel_work_sync(&xp->req_work);
	cancel_work_sync(&xp->resp_work);
}

/*
 * Enter RESET (IBA 10.3.1): empty the rings and forget the transport
 * state.  The engines are stopped (vrnic_xport_stop()); the locks keep
 * out receive paths that looked the QP up before it left RTS.
 */
static void vrnic_xport_reset(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	vrnic_xport_lock(qp);
	vrnic_qp_reset_queues(qp);
	vrnic_req_cursor_reset(qp);
	xp->noack_pkts = 0;
	vrnic_req_loss_reset(xp);
	xp->rnr_wait = false;
	xp->retrans_armed = false;
	xp->refusals = 0;
	xp->read_refusals = 0;
	memset(&xp->refused_ack, 0, sizeof(xp->refused_ack));
	xp->sq_err = false;
	xp->sqd_pending = false;

	xp->msn = 0;
	xp->in_msg = false;
	xp->nak_sent = false;
	xp->ack_deferred = false;
	xp->resp_busy = false;
	xp->res_cur = NULL;
	if (xp->res)
		memset(xp->res, 0, xp->nres * sizeof(*xp->res));
	__skb_queue_purge(&xp->backlog);
	__skb_queue_purge(&xp->ooo);
	vrnic_cc_reset(qp);
	vrnic_xport_unlock(qp);
}

/**
 * vrnic_xport_modify - apply modify_qp to the transport
 * @qp: the QP; qp->attr and qp->state already hold the new values
 * @attr: the attributes as passed to modify_qp
 * @mask: IB_QP_* attributes that changed
 *
 * Entering RESET, the caller stopped the engines first
 * (vrnic_xport_stop()).
 * Return: 0 or -ENOMEM.
 */
int vrnic_xport_modify(struct vrnic_qp *qp, const struct ib_qp_attr *attr,
		       int mask)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	int err;

	if ((mask & IB_QP_STATE) && attr->qp_state == IB_QPS_RESET)
		vrnic_xport_reset(qp);

	/* Path attributes: both locks, see transport.h. */
	vrnic_xport_lock(qp);
	if (mask & IB_QP_PATH_MTU)
		xp->mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	if (mask & (IB_QP_AV | IB_QP_DEST_QPN)) {
		xp->sport = vrnic_sport(qp->av.flow_label, qp->ibqp.qp_num,
					qp->attr.dest_qp_num);
		/* No user of the cache can run: dst_cache_reset()'s rule. */
		dst_cache_reset(&xp->route.dst_cache);
		vrnic_cc_path_changed(qp);
	}
	if (mask & IB_QP_RQ_PSN) {
		xp->epsn = qp->attr.rq_psn & VRNIC_PSN_MASK;
		xp->in_msg = false;
		xp->nak_sent = false;
		__skb_queue_purge(&xp->ooo);
	}
	/* Leaving RESET: the engines may run again (and flush on ERR). */
	if ((mask & IB_QP_STATE) && attr->qp_state != IB_QPS_RESET)
		xp->stopped = false;
	vrnic_xport_unlock(qp);

	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) || !xp->res) {
		err = vrnic_xport_resize_res(qp);
		if (err)
			return err;
	}

	spin_lock_bh(&xp->sq_lock);
	if (mask & IB_QP_SQ_PSN) {
		xp->req_psn = qp->attr.sq_psn & VRNIC_PSN_MASK;
		xp->comp_psn = xp->req_psn;
		xp->max_psn = xp->req_psn;
		xp->rewind_psn = vrnic_psn_add(xp->req_psn, VRNIC_PSN_MASK);
		/* No ACK asked for yet: as if one had come for the PSN before. */
		xp->ackreq_psn = xp->rewind_psn;
		vrnic_req_loss_reset(xp);
	}
	if (mask & IB_QP_TIMEOUT)
		xp->ack_timeout = vrnic_ack_timeout_jiffies(qp->attr.timeout);
	if (mask & IB_QP_RETRY_CNT)
		xp->retry_left = qp->attr.retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		xp->rnr_left = qp->attr.rnr_retry;
	if (mask & IB_QP_STATE) {
		/* IBA 11.2.5.2: the event only when asked for. */
		xp->sqd_pending = attr->qp_state == IB_QPS_SQD &&
				  (mask & IB_QP_EN_SQD_ASYNC_NOTIFY) &&
				  attr->en_sqd_async_notify;
		/* Nothing outstanding: drained right away. */
		vrnic_comp_sq_drained(qp);
	}
	if (vrnic_sq_unlock(qp))
		vrnic_req_schedule(qp);

	if (mask & IB_QP_STATE) {
		switch (attr->qp_state) {
		case IB_QPS_ERR:
			/* Flush both queues from the engines' own context. */
			vrnic_resp_schedule(qp);
			fallthrough;
		case IB_QPS_RTS:
			vrnic_req_schedule(qp);
			break;
		default:
			break;
		}
	}
	return 0;
}

/**
 * vrnic_xport_destroy - stop the engines of a QP and free their state
 * @qp: the QP, out of the QPN table with no lookup reference left (steps
 *	1 and 2 of the lifetime rule in transport.h)
 */
void vrnic_xport_destroy(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	vrnic_xport_stop(qp);
	__skb_queue_purge(&xp->backlog);
	__skb_queue_purge(&xp->ooo);
	dst_cache_destroy(&xp->route.dst_cache);
	kfree(xp->res);
	xp->res = NULL;
	xp->nres = 0;
}

int __init vrnic_wire_init(void)
{
	int err;

	vrnic_opcode_init();
	vrnic_loop_init();
	err = vrnic_icrc_init();
	if (err)
		return err;
	err = vrnic_tx_pools_init();
	if (err)
		goto err_icrc;
	vrnic_wq = alloc_workqueue("vrnic", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	if (!vrnic_wq) {
		err = -ENOMEM;
		goto err_tx_pools;
	}
	return 0;

err_tx_pools:
	vrnic_tx_pools_exit();
err_icrc:
	vrnic_icrc_exit();
	return err;
}

void vrnic_wire_exit(void)
{
	vrnic_loop_exit();
	destroy_workqueue(vrnic_wq);
	vrnic_tx_pools_exit();
	vrnic_icrc_exit();
}
