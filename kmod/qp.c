// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: queue pairs - creation, the IBA state machine, receive posting
 * and the receive queue's consumer.  The send queue is sq.c's.
 */

#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "verbs.h"
#include "hdr.h"

/* ------------------------------------------------------------ lookup */

/**
 * vrnic_qp_get - find a QP by number and take a reference
 * @vdev: the device
 * @qpn: queue pair number (24 bits)
 *
 * The lookup runs under the xarray lock, which destroy_qp takes to
 * remove the entry: a QP found here cannot be freed before the reference
 * is dropped with vrnic_qp_put().  Any context.
 *
 * Return: the QP, or NULL.
 */
struct vrnic_qp *vrnic_qp_get(struct vrnic_dev *vdev, u32 qpn)
{
	struct vrnic_qp *qp;
	unsigned long flags;

	xa_lock_irqsave(&vdev->qp_xa, flags);
	qp = xa_load(&vdev->qp_xa, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	xa_unlock_irqrestore(&vdev->qp_xa, flags);
	return qp;
}

void vrnic_qp_put(struct vrnic_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->released);
}

/**
 * vrnic_qp_owned_by - whether a process running as @uid created @qp
 * @qp: a QP the caller holds a reference to (so ib_core's resource
 *	tracking entry, which outlives destroy_qp, is still there)
 * @uid: effective uid to compare with
 *
 * Kernel QPs (ULPs, the GSI QP) belong to no user.
 */
bool vrnic_qp_owned_by(struct vrnic_qp *qp, kuid_t uid)
{
	struct task_struct *task = qp->ibqp.res.task;
	bool owned;

	if (!qp->ibqp.res.user || !task)
		return false;
	rcu_read_lock();
	owned = uid_eq(__task_cred(task)->euid, uid);
	rcu_read_unlock();
	return owned;
}

void vrnic_qp_event(struct vrnic_qp *qp, enum ib_event_type type)
{
	struct ib_qp *ibqp = &qp->ibqp;
	struct ib_event ev = {
		.device = ibqp->device,
		.element.qp = ibqp,
		.event = type,
	};

	if (ibqp->event_handler)
		ibqp->event_handler(&ev, ibqp->qp_context);
}

/**
 * vrnic_qp_error - move a QP to the Error state
 * @qp: the QP
 *
 * Only the state changes; the wire flushes (see verbs.h).  Any context.
 */
void vrnic_qp_error(struct vrnic_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	WRITE_ONCE(qp->state, IB_QPS_ERR);
	qp->attr.qp_state = IB_QPS_ERR;
	spin_unlock_irqrestore(&qp->state_lock, flags);
}

/* ------------------------------------------------------------ create */

static int vrnic_qp_check_init(struct vrnic_dev *vdev,
			       const struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	const struct ib_qp_cap *cap = &init->cap;
	u32 max_wr = READ_ONCE(vdev->limits.max_qp_wr);
	u32 max_sge = READ_ONCE(vdev->limits.max_sge);

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		/* QP1 belongs to the MAD layer, never to a process. */
		if (udata || init->port_num != 1)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;

	if (cap->max_send_wr > max_wr || cap->max_send_sge > max_sge ||
	    cap->max_inline_data > READ_ONCE(vdev->limits.max_inline_data))
		return -EINVAL;
	if (!init->srq &&
	    (cap->max_recv_wr > max_wr || cap->max_recv_sge > max_sge))
		return -EINVAL;
	return 0;
}

static int vrnic_qp_alloc_qpn(struct vrnic_dev *vdev, struct vrnic_qp *qp,
			      enum ib_qp_type type)
{
	u32 qpn;
	int err;

	/* Reserve the number; the QP becomes visible at the end of create. */
	if (type == IB_QPT_GSI) {
		qpn = 1;
		err = xa_insert_irq(&vdev->qp_xa, qpn, NULL, GFP_KERNEL);
	} else {
		/* QPNs below 16 are left for special QPs. */
		err = xa_alloc_cyclic_irq(&vdev->qp_xa, &qpn, NULL,
					  XA_LIMIT(16, VRNIC_QPN_MASK),
					  &vdev->next_qpn, GFP_KERNEL);
		if (err > 0)
			err = 0;
	}
	if (err)
		return err;
	qp->ibqp.qp_num = qpn;
	return 0;
}

int vrnic_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibqp->device);
	struct vrnic_qp *qp = to_vqp(ibqp);
	struct rxe_create_qp_resp resp = {};
	struct ib_qp_cap *cap = &init->cap;
	u32 max_rsge;
	int err;

	err = vrnic_qp_check_init(vdev, init, udata);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	err = vrnic_obj_get(&vdev->num_qp, READ_ONCE(vdev->limits.max_qp));
	if (err)
		return err;

	refcount_set(&qp->ref, 1);
	init_completion(&qp->released);
	mutex_init(&qp->modify_mutex);
	spin_lock_init(&qp->state_lock);
	qp->state = IB_QPS_RESET;
	qp->attr.qp_state = IB_QPS_RESET;
	qp->attr.cur_qp_state = IB_QPS_RESET;
	qp->attr.path_mtu = IB_MTU_1024;
	qp->attr.port_num = 1;
	qp->pd = to_vpd(ibqp->pd);
	qp->scq = to_vcq(init->send_cq);
	qp->rcq = to_vcq(init->recv_cq);
	qp->srq = init->srq ? to_vsrq(init->srq) : NULL;
	qp->is_user = !!udata;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;

	err = vrnic_qp_alloc_qpn(vdev, qp, init->qp_type);
	if (err)
		goto err_put;

	err = vrnic_sq_init(qp, cap, udata, &resp.sq_mi);
	if (err)
		goto err_erase;

	if (!qp->srq) {
		err = vrnic_rq_init(&qp->rq, cap->max_recv_wr,
				    cap->max_recv_sge, udata, &resp.rq_mi);
		if (err)
			goto err_free_sq;
	}
	max_rsge = qp->srq ? qp->srq->rq.max_sge : qp->rq.max_sge;
	qp->rwqe_buf = kzalloc(struct_size(qp->rwqe_buf, dma.sge, max_rsge),
			       GFP_KERNEL_ACCOUNT);
	if (!qp->rwqe_buf) {
		err = -ENOMEM;
		goto err_free_rq;
	}

	err = vrnic_xport_init(qp);
	if (err)
		goto err_free_rwqe;

	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_xport;
	}

	cap->max_send_wr = qp->sq.max_wr;
	if (!qp->srq) {
		cap->max_recv_wr = qp->rq.max_wr;
	} else {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	}
	qp->attr.cap = *cap;

	/* Visible to the wire from here on. */
	xa_store_irq(&vdev->qp_xa, ibqp->qp_num, qp, GFP_KERNEL);
	return 0;

err_xport:
	vrnic_xport_destroy(qp);
err_free_rwqe:
	kfree(qp->rwqe_buf);
err_free_rq:
	vrnic_queue_free(&qp->rq.q);
err_free_sq:
	vrnic_sq_free(qp);
err_erase:
	xa_erase_irq(&vdev->qp_xa, ibqp->qp_num);
err_put:
	vrnic_obj_put(&vdev->num_qp);
	return err;
}

int vrnic_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibqp->device);
	struct vrnic_qp *qp = to_vqp(ibqp);

	/*
	 * The lifetime rule of transport.h: no new lookups, then no
	 * receive path holding a reference, then no timer or work, and only
	 * then is anything freed.
	 */
	xa_erase_irq(&vdev->qp_xa, ibqp->qp_num);
	vrnic_qp_put(qp);
	wait_for_completion(&qp->released);
	vrnic_xport_destroy(qp);

	kfree(qp->rwqe_buf);
	vrnic_queue_free(&qp->rq.q);
	vrnic_sq_free(qp);
	vrnic_obj_put(&vdev->num_qp);
	return 0;
}

/* ------------------------------------------------------------ modify */

#define VRNIC_QP_ACCESS_FLAGS	(IB_ACCESS_LOCAL_WRITE |		\
				 IB_ACCESS_REMOTE_WRITE |		\
				 IB_ACCESS_REMOTE_READ |		\
				 IB_ACCESS_REMOTE_ATOMIC)

/* Checks of single attributes; ib_modify_qp_is_ok() did the masks. */
static int vrnic_qp_check_attr(struct vrnic_qp *qp,
			       const struct ib_qp_attr *attr, int mask)
{
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);
	u32 max_rd = READ_ONCE(vdev->limits.max_qp_rd_atom);
	struct vrnic_av av;
	int err;

	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index >= VRNIC_MAX_PKEYS)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~VRNIC_QP_ACCESS_FLAGS))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > max_rd)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > max_rd)
		return -EINVAL;
	if (mask & IB_QP_PATH_MTU) {
		if (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096)
			return -EINVAL;
		/*
		 * IBA 11.2.4.2: no larger than the port's active MTU, which
		 * query_port derives from the netdev the same way.  Not
		 * through ib_query_port(): it takes the RTNL (the link
		 * speed), which rdma_cm's netdev events hold while taking
		 * the ID's qp_mutex, which it holds to modify us.
		 */
		if (attr->path_mtu > vrnic_ndev_active_mtu(vdev->ndev))
			return -EINVAL;
	}
	/* IBA 9.7.5.2.8, 9.7.6.1.1: 5-bit timers, 3-bit retry counts. */
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > VRNIC_QPN_MASK)
		return -EINVAL;
	if (mask & IB_QP_ALT_PATH)
		return -EOPNOTSUPP;	/* no automatic path migration */
	if (mask & IB_QP_AV) {
		if (rdma_ah_get_port_num(&attr->ah_attr) != 1)
			return -EINVAL;
		err = vrnic_av_from_attr(&av, &attr->ah_attr);
		if (err)
			return err;
	}
	return 0;
}

/**
 * vrnic_qp_reset_queues - empty both rings (entering RESET)
 * @qp: the QP; the engines are stopped and the caller holds both engine
 *	locks (vrnic_xport_lock()), see the lifetime rule in transport.h
 */
void vrnic_qp_reset_queues(struct vrnic_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.lock, flags);
	vrnic_queue_reset(&qp->sq.q);
	qp->sq.fetch = 0;
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	qp->rwqe = NULL;
	if (qp->srq)
		return;
	spin_lock_irqsave(&qp->rq.lock, flags);
	vrnic_queue_reset(&qp->rq.q);
	spin_unlock_irqrestore(&qp->rq.lock, flags);
}

static void vrnic_qp_apply(struct vrnic_qp *qp, const struct ib_qp_attr *attr,
			   int mask)
{
	struct ib_qp_attr *a = &qp->attr;

	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		/* Checked by vrnic_qp_check_attr(); cannot fail now. */
		vrnic_av_from_attr(&qp->av, &attr->ah_attr);
		a->ah_attr = attr->ah_attr;
		/* The caller owns that reference; we never use it later. */
		a->ah_attr.grh.sgid_attr = NULL;
	}
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn & VRNIC_PSN_MASK;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn & VRNIC_PSN_MASK;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;
}

int vrnic_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct vrnic_qp *qp = to_vqp(ibqp);
	enum ib_qp_state cur, next;
	unsigned long flags;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;

	mutex_lock(&qp->modify_mutex);
	cur = READ_ONCE(qp->state);
	/* IBA 11.2.5.2: a current state given must match the real one. */
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur) {
		err = -EINVAL;
		goto out;
	}
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask)) {
		err = -EINVAL;
		goto out;
	}
	err = vrnic_qp_check_attr(qp, attr, mask);
	if (err)
		goto out;

	/* Timers and work stop before the rings and transport reset. */
	if (next == IB_QPS_RESET && cur != IB_QPS_RESET)
		vrnic_xport_stop(qp);

	/* Path attributes: under both engine locks, see transport.h. */
	vrnic_xport_lock(qp);
	spin_lock_irqsave(&qp->state_lock, flags);
	vrnic_qp_apply(qp, attr, mask);
	/* A concurrent vrnic_qp_error() wins over a non-reset transition. */
	if (!(READ_ONCE(qp->state) == IB_QPS_ERR && cur != IB_QPS_ERR &&
	      next != IB_QPS_RESET)) {
		WRITE_ONCE(qp->state, next);
		qp->attr.qp_state = next;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	vrnic_xport_unlock(qp);

	err = vrnic_xport_modify(qp, attr, mask);
	if (err) {
		vrnic_qp_error(qp);
		goto out;
	}

	/* IBA 11.5.2.3: the last WQE of an SRQ QP entering Error. */
	if (next == IB_QPS_ERR && cur != IB_QPS_ERR && qp->srq)
		vrnic_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
out:
	mutex_unlock(&qp->modify_mutex);
	return err;
}

int vrnic_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct vrnic_qp *qp = to_vqp(ibqp);
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	attr->sq_draining = 0;
	attr->cap.max_send_wr = qp->sq.max_wr;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_inline_data = qp->sq.max_inline;
	attr->cap.max_recv_wr = qp->srq ? 0 : qp->rq.max_wr;
	attr->cap.max_recv_sge = qp->srq ? 0 : qp->rq.max_sge;

	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = 1;
	return 0;
}

int vrnic_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct vrnic_qp *qp = to_vqp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	int err;

	/* User QPs post receives in the mapped ring, never through here. */
	if (qp->is_user || qp->srq || state == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	err = vrnic_rq_post(&qp->rq, wr, bad_wr);
	/*
	 * IBA 10.8.3: receives posted in Error complete as flushed (this is
	 * how ib_drain_rq() finishes); the responder work flushes the RQ.
	 */
	if (state == IB_QPS_ERR)
		vrnic_resp_schedule(qp);
	return err;
}

/* ------------------------------------------- receive queue, consumer */

/**
 * vrnic_rq_get - the receive WQE the QP holds, taking one if needed
 * @qp: the QP; called by the wire's responder, serialised per QP
 *
 * Return: the WQE (check ->status), or NULL if none is posted.
 */
struct vrnic_recv_wqe *vrnic_rq_get(struct vrnic_qp *qp)
{
	int err;

	if (qp->rwqe)
		return qp->rwqe;
	if (qp->srq)
		err = vrnic_srq_take(qp->srq, qp->rwqe_buf);
	else
		err = vrnic_rq_take(&qp->rq, qp->rwqe_buf);
	if (err == -ENOENT)
		return NULL;
	qp->rwqe = qp->rwqe_buf;
	return qp->rwqe;
}

void vrnic_rq_done(struct vrnic_qp *qp)
{
	qp->rwqe = NULL;
}

static int vrnic_rq_flush_one(struct vrnic_qp *qp, u64 wr_id)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
		.port_num = 1,
	};

	return vrnic_cq_post(qp->rcq, &wc, false);
}

/**
 * vrnic_rq_flush - complete held and posted receive WQEs as flushed
 * @qp: a QP in ERR; called by the wire's responder, serialised per QP
 *
 * WQEs still on an SRQ stay there for the other QPs (IBA 10.2.9.5).
 * One pass flushes at most a ring's worth, as vrnic_sq_flush() does
 * (it may run in the receive softirq); later posts wait for the next.
 */
void vrnic_rq_flush(struct vrnic_qp *qp)
{
	u32 n;

	if (qp->rwqe) {
		if (vrnic_rq_flush_one(qp, qp->rwqe->wr_id))
			return;
		qp->rwqe = NULL;
	}
	if (qp->srq)
		return;
	for (n = 0; n < qp->rq.max_wr; n++) {
		if (vrnic_rq_take(&qp->rq, qp->rwqe_buf) == -ENOENT ||
		    vrnic_rq_flush_one(qp, qp->rwqe_buf->wr_id))
			return;
	}
}
