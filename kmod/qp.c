// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: queue pairs - creation, the IBA state machine, kernel posting.
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

/* Ring slot: librxe's layout for user QPs, ours for kernel QPs. */
static size_t vrnic_sq_ring_slot(bool is_user, u32 max_sge, u32 max_inline)
{
	size_t data = max_t(size_t, max_sge * sizeof(struct rxe_sge),
			    max_inline);

	/* librxe writes an ATOMIC WRITE's 8 bytes into the data segment. */
	if (is_user)
		return sizeof(struct rxe_send_wqe) + max_t(size_t, data, 8);
	return sizeof(struct vrnic_send_wqe) + data;
}

/* Kernel copy of a user WQE. */
static size_t vrnic_sq_copy_slot(u32 max_sge, u32 max_inline)
{
	return sizeof(struct vrnic_send_wqe) +
	       max_t(size_t, max_sge * sizeof(struct ib_sge), max_inline);
}

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

static int vrnic_sq_init(struct vrnic_qp *qp, const struct ib_qp_cap *cap,
			 struct ib_udata *udata, struct mminfo *mi)
{
	struct vrnic_sq *sq = &qp->sq;
	size_t size;
	int err;

	spin_lock_init(&sq->lock);
	sq->max_sge = cap->max_send_sge;
	sq->max_inline = cap->max_inline_data;
	sq->fetch = 0;
	err = vrnic_queue_init(&sq->q, cap->max_send_wr,
			       vrnic_sq_ring_slot(qp->is_user, sq->max_sge,
						  sq->max_inline));
	if (err)
		return err;
	sq->max_wr = vrnic_queue_capacity(&sq->q);

	if (!udata) {
		/* post_send writes our own format: the ring is the copy. */
		sq->wqes = sq->q.buf->data;
		sq->log2_wqe_size = sq->q.log2_elem_size;
		return 0;
	}

	size = vrnic_sq_copy_slot(sq->max_sge, sq->max_inline);
	sq->log2_wqe_size = order_base_2(size);
	sq->wqes = kvzalloc((size_t)(sq->q.index_mask + 1) <<
			    sq->log2_wqe_size, GFP_KERNEL_ACCOUNT);
	if (!sq->wqes) {
		err = -ENOMEM;
		goto err_free_queue;
	}
	err = vrnic_queue_map(&sq->q, udata, mi);
	if (err)
		goto err_free_wqes;
	return 0;

err_free_wqes:
	kvfree(sq->wqes);
err_free_queue:
	vrnic_queue_free(&sq->q);
	return err;
}

static void vrnic_sq_free(struct vrnic_qp *qp)
{
	if (qp->is_user)
		kvfree(qp->sq.wqes);
	qp->sq.wqes = NULL;
	vrnic_queue_free(&qp->sq.q);
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
		struct ib_port_attr pattr;

		if (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096)
			return -EINVAL;
		/* IBA 11.2.4.2: no larger than the port's active MTU. */
		err = ib_query_port(qp->ibqp.device, 1, &pattr);
		if (err)
			return err;
		if (attr->path_mtu > pattr.active_mtu)
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

/* ------------------------------------------------------ kernel posting */

/* Build the WQE for one kernel WR in @wqe (a free SQ slot). */
static int vrnic_build_swqe(struct vrnic_qp *qp, const struct ib_send_wr *wr,
			    struct vrnic_send_wqe *wqe)
{
	enum ib_qp_type type = qp->ibqp.qp_type;
	u64 length = 0;
	u8 *p;
	int i;

	/*
	 * Kernel consumers register memory with IB_WR_REG_MR, not MWs; 6.1's
	 * kernel verbs have no ATOMIC WRITE (its number is unused there).
	 */
	if (wr->opcode == IB_WR_BIND_MW ||
	    wr->opcode == VRNIC_WR_ATOMIC_WRITE ||
	    !vrnic_wr_allowed(type, wr->opcode) || wr->num_sge < 0)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		length += wr->sg_list[i].length;
	if (wr->send_flags & IB_SEND_INLINE) {
		if (length > qp->sq.max_inline)
			return -EINVAL;
	} else if (wr->num_sge > qp->sq.max_sge || length > (1U << 31)) {
		return -EINVAL;
	}

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags;
	wqe->status = IB_WC_SUCCESS;

	switch (wr->opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->ex.imm_data = wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->ex.invalidate_rkey = wr->ex.invalidate_rkey;
		break;
	default:
		break;
	}

	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		if (type == IB_QPT_UD || type == IB_QPT_GSI) {
			const struct ib_ud_wr *ud = ud_wr(wr);

			wqe->wr.ud.remote_qpn = ud->remote_qpn & VRNIC_QPN_MASK;
			wqe->wr.ud.remote_qkey = ud->remote_qkey;
			wqe->wr.ud.pkey_index = ud->pkey_index;
			wqe->wr.ud.av = to_vah(ud->ah)->av;
		}
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		/* IBA 9.4.5: 8 bytes, naturally aligned. */
		if (atomic_wr(wr)->remote_addr & 7 || length < 8)
			return -EINVAL;
		wqe->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	case IB_WR_REG_MR:
		/* ib_core keeps the MR alive until the WR completes. */
		wqe->wr.reg.mr = to_vmr(reg_wr(wr)->mr);
		wqe->wr.reg.key = reg_wr(wr)->key;
		wqe->wr.reg.access = reg_wr(wr)->access;
		break;
	default:
		break;
	}

	if (wr->send_flags & IB_SEND_INLINE) {
		/* Kernel consumers pass kernel virtual addresses. */
		p = wqe->dma.inline_data;
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
		wqe->dma.num_sge = 0;
	} else {
		for (i = 0; i < wr->num_sge; i++)
			wqe->dma.sge[i] = wr->sg_list[i];
		wqe->dma.num_sge = wr->num_sge;
	}
	wqe->dma.length = length;
	wqe->dma.resid = length;
	return 0;
}

int vrnic_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct vrnic_qp *qp = to_vqp(ibqp);
	enum ib_qp_state state;
	unsigned long flags;
	int err = 0;

	/*
	 * IBA 10.8.2.3: posting sends before RTS is an immediate error.  For
	 * a user QP this is librxe's doorbell (the WQEs are in the SQ): its
	 * status is what ibv_post_send() and ibv_wr_complete() return, so the
	 * doorbell fails too, and nothing is fetched from the ring.
	 */
	state = READ_ONCE(qp->state);
	if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_RTR) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (qp->is_user) {
		vrnic_req_kick(qp);
		return 0;
	}

	spin_lock_irqsave(&qp->sq.lock, flags);
	for (; wr; wr = wr->next) {
		if (vrnic_queue_full(&qp->sq.q)) {
			err = -ENOMEM;
			break;
		}
		err = vrnic_build_swqe(qp, wr,
				       vrnic_queue_slot(&qp->sq.q, qp->sq.q.prod));
		if (err)
			break;
		vrnic_queue_advance_prod(&qp->sq.q);
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	if (err)
		*bad_wr = wr;
	vrnic_req_kick(qp);
	return err;
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

/* ---------------------------------------------- send queue, consumer */

static struct vrnic_send_wqe *vrnic_sq_wqe(struct vrnic_qp *qp, u32 pos)
{
	return qp->sq.wqes + ((size_t)pos << qp->sq.log2_wqe_size);
}

/* Is @pos in [q.cons, fetch)? */
static bool vrnic_sq_fetched(struct vrnic_qp *qp, u32 pos)
{
	u32 mask = qp->sq.q.index_mask, cons = qp->sq.q.cons;

	return ((pos - cons) & mask) < ((qp->sq.fetch - cons) & mask);
}

static bool vrnic_user_opcode_ok(u32 opcode)
{
	/* IB_WR_REG_MR is for kernel consumers. */
	return vrnic_wr_is_wire(opcode) || opcode == IB_WR_LOCAL_INV ||
	       opcode == IB_WR_BIND_MW;
}

/*
 * Copy the user WQE in ring slot @pos into @wqe and validate the copy.
 * The ring is writable by the process at any time: each field is read
 * once, and only the copy is checked and used.
 */
static void vrnic_sq_copy_user(struct vrnic_qp *qp, u32 pos,
			       struct vrnic_send_wqe *wqe)
{
	const struct rxe_send_wqe *u = vrnic_queue_slot(&qp->sq.q, pos);
	enum ib_qp_type type = qp->ibqp.qp_type;
	struct rxe_send_wr wr;
	u32 i, num_sge, length;
	u64 total = 0;

	memcpy(&wr, &u->wr, sizeof(wr));
	num_sge = READ_ONCE(u->dma.num_sge);
	length = READ_ONCE(u->dma.length);

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr.wr_id;
	wqe->opcode = wr.opcode;
	wqe->send_flags = wr.send_flags;
	wqe->status = IB_WC_LOC_QP_OP_ERR;

	if (!vrnic_user_opcode_ok(wr.opcode))
		return;

	switch (wr.opcode) {
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wqe->ex.imm_data = wr.ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->ex.invalidate_rkey = wr.ex.invalidate_rkey;
		break;
	default:
		break;
	}

	switch (wr.opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		if (type != IB_QPT_UD)
			break;
		wqe->wr.ud.remote_qpn = wr.wr.ud.remote_qpn & VRNIC_QPN_MASK;
		wqe->wr.ud.remote_qkey = wr.wr.ud.remote_qkey;
		wqe->wr.ud.pkey_index = wr.wr.ud.pkey_index;
		/*
		 * librxe always has an AH number from us; the AV it copies
		 * into the WQE for older kernels is never trusted.
		 */
		if (vrnic_ah_copy_av(qp, wr.wr.ud.ah_num, &wqe->wr.ud.av))
			return;
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = wr.wr.rdma.remote_addr;
		wqe->wr.rdma.rkey = wr.wr.rdma.rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr = wr.wr.atomic.remote_addr;
		wqe->wr.atomic.compare_add = wr.wr.atomic.compare_add;
		wqe->wr.atomic.swap = wr.wr.atomic.swap;
		wqe->wr.atomic.rkey = wr.wr.atomic.rkey;
		break;
	case VRNIC_WR_ATOMIC_WRITE:
		/*
		 * librxe puts the 8 bytes in the data segment (its atomic_wr,
		 * where inline data goes) with length 8 and no SGE.
		 */
		wqe->wr.rdma.remote_addr = wr.wr.rdma.remote_addr;
		wqe->wr.rdma.rkey = wr.wr.rdma.rkey;
		if (length != sizeof(wqe->wr.rdma.atomic_wr)) {
			wqe->status = IB_WC_LOC_LEN_ERR;
			return;
		}
		memcpy(wqe->wr.rdma.atomic_wr, u->dma.inline_data,
		       sizeof(wqe->wr.rdma.atomic_wr));
		wqe->dma.length = length;
		wqe->dma.resid = length;
		wqe->status = IB_WC_SUCCESS;
		return;
	case IB_WR_BIND_MW:
		/* No data segment: librxe posts num_sge 0, length 0. */
		wqe->wr.mw.addr = wr.wr.mw.addr;
		wqe->wr.mw.length = wr.wr.mw.length;
		wqe->wr.mw.mr_lkey = wr.wr.mw.mr_lkey;
		wqe->wr.mw.mw_rkey = wr.wr.mw.mw_rkey;
		wqe->wr.mw.rkey = wr.wr.mw.rkey;
		wqe->wr.mw.access = wr.wr.mw.access;
		wqe->status = IB_WC_SUCCESS;
		return;
	default:
		break;
	}

	if (wr.send_flags & IB_SEND_INLINE) {
		if (length > qp->sq.max_inline) {
			wqe->status = IB_WC_LOC_LEN_ERR;
			return;
		}
		memcpy(wqe->dma.inline_data, u->dma.inline_data, length);
		total = length;
		num_sge = 0;
	} else {
		if (num_sge > qp->sq.max_sge)
			return;
		memcpy(wqe->dma.sge, u->dma.sge, num_sge * sizeof(struct ib_sge));
		for (i = 0; i < num_sge; i++)
			total += wqe->dma.sge[i].length;
		/* IBA 9.7.5.1.1: a message is at most 2^31 bytes. */
		if (total > (1U << 31)) {
			wqe->status = IB_WC_LOC_LEN_ERR;
			return;
		}
	}
	wqe->dma.num_sge = num_sge;
	wqe->dma.length = total;
	wqe->dma.resid = total;
	wqe->status = IB_WC_SUCCESS;
}

/**
 * vrnic_sq_get - the send WQE at a position of the SQ
 * @qp: the QP
 * @pos: ring index in [q.cons, fetch]
 *
 * At @pos == fetch the next posted WQE is copied (user QPs) and becomes
 * visible to the wire.  Called by the wire, serialised per QP.
 * Return: the WQE, or NULL if none is posted at @pos.
 */
struct vrnic_send_wqe *vrnic_sq_get(struct vrnic_qp *qp, u32 pos)
{
	struct vrnic_sq *sq = &qp->sq;
	u32 mask = sq->q.index_mask, cons = sq->q.cons;
	struct vrnic_send_wqe *wqe;
	u32 posted;

	pos &= mask;
	if (vrnic_sq_fetched(qp, pos))
		return vrnic_sq_wqe(qp, pos);
	if (pos != sq->fetch)
		return NULL;
	/*
	 * The process may move the producer anywhere, backwards too: only
	 * [cons, prod) is posted, and fetch stays inside it.  Were fetch
	 * allowed to run on to a producer behind it, it would wrap onto
	 * cons and the copies of WQEs in flight would be overwritten.
	 */
	posted = vrnic_sq_posted(qp);
	if (((sq->fetch - cons) & mask) >= posted)
		return NULL;

	wqe = vrnic_sq_wqe(qp, pos);
	if (qp->is_user)
		vrnic_sq_copy_user(qp, pos, wqe);
	else
		memset(&wqe->xport, 0, sizeof(wqe->xport));
	sq->fetch = vrnic_queue_next(&sq->q, sq->fetch);
	return wqe;
}

/*
 * Give the oldest WQE's slot back to the producer.  Before its
 * completion is posted (vrnic_sq_complete()).
 */
static void vrnic_sq_retire(struct vrnic_qp *qp)
{
	struct vrnic_sq *sq = &qp->sq;

	if (sq->q.cons == sq->fetch)
		return;
	vrnic_queue_advance_cons(&sq->q);
}

static enum ib_wc_opcode vrnic_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	case VRNIC_WR_ATOMIC_WRITE:
		/* User QPs only: the number is the uverbs one. */
		return (enum ib_wc_opcode)VRNIC_WC_ATOMIC_WRITE;
	default:
		return IB_WC_SEND;
	}
}

/**
 * vrnic_sq_complete - retire the WQE at the head of the SQ, then post its
 *	completion if one is due
 * @qp: the QP
 * @wqe: the WQE at the head
 * @status: its status
 *
 * IBA 10.8.2.2: unsignaled WQEs complete silently unless in error.  The
 * slot goes back to the process before the completion is visible: a
 * process that posts a WQE for each completion it polls, with as many
 * outstanding as the SQ holds (perftest), must find room (librxe fails a
 * post to a full ring with ENOMEM).  The completion is built from the
 * kernel's copy of the WQE, which only the requester, under the lock the
 * caller holds, replaces.
 * Return: 0 or -ENOSPC (CQ overflow).
 */
int vrnic_sq_complete(struct vrnic_qp *qp, struct vrnic_send_wqe *wqe,
		      enum ib_wc_status status)
{
	struct ib_wc wc = {};

	if (status == IB_WC_SUCCESS && !qp->sig_all &&
	    !(wqe->send_flags & IB_SEND_SIGNALED)) {
		vrnic_sq_retire(qp);
		return 0;
	}
	wc.wr_id = wqe->wr_id;
	wc.status = status;
	wc.opcode = vrnic_wc_opcode(wqe->opcode);
	wc.byte_len = wqe->dma.length;
	wc.qp = &qp->ibqp;
	wc.port_num = 1;
	vrnic_sq_retire(qp);
	return vrnic_cq_post(qp->scq, &wc, false);
}

/**
 * vrnic_sq_flush - complete every unretired send WQE as flushed
 * @qp: a QP in ERR; called by the wire, serialised per QP
 *
 * One pass flushes at most a ring's worth: the process can post as fast
 * as we flush (and consume the CQ as fast), and the caller may run with
 * BHs off.  WQEs posted meanwhile are flushed at the next doorbell.
 */
void vrnic_sq_flush(struct vrnic_qp *qp)
{
	struct vrnic_send_wqe *wqe;
	u32 n;

	/* Getting the WQE at q.cons fetches it if it was not yet. */
	for (n = 0; n < vrnic_queue_capacity(&qp->sq.q); n++) {
		wqe = vrnic_sq_get(qp, qp->sq.q.cons);
		if (!wqe || vrnic_sq_complete(qp, wqe, IB_WC_WR_FLUSH_ERR))
			break;
	}
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
