// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: receive rings shared by QP receive queues and SRQs.
 *
 * Both hold struct rxe_recv_wqe slots.  For user QPs librxe is the
 * producer; for kernel QPs vrnic_rq_post() is.  The consumer is always
 * the wire's responder, through vrnic_rq_get() (qp.c).
 */

#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "verbs.h"

static size_t vrnic_rwqe_slot_size(u32 max_sge)
{
	return sizeof(struct rxe_recv_wqe) + max_sge * sizeof(struct rxe_sge);
}

/**
 * vrnic_rq_init - allocate a receive ring
 * @rq: the ring
 * @max_wr: entries it must hold
 * @max_sge: SGEs per WQE
 * @udata: user data when the ring is for a process, else NULL
 * @mi: filled with the mmap information when @udata is set
 *
 * Return: 0 or a negative errno.
 */
int vrnic_rq_init(struct vrnic_rq *rq, u32 max_wr, u32 max_sge,
		  struct ib_udata *udata, struct mminfo *mi)
{
	int err;

	spin_lock_init(&rq->lock);
	err = vrnic_queue_init(&rq->q, max_wr, vrnic_rwqe_slot_size(max_sge));
	if (err)
		return err;
	if (udata) {
		err = vrnic_queue_map(&rq->q, udata, mi);
		if (err) {
			vrnic_queue_free(&rq->q);
			return err;
		}
	}
	rq->max_wr = vrnic_queue_capacity(&rq->q);
	rq->max_sge = max_sge;
	return 0;
}

/**
 * vrnic_rq_post - post receive WRs of a kernel consumer
 * @rq: the ring (of a QP or an SRQ)
 * @wr: the WR list
 * @bad_wr: set to the first WR not posted
 *
 * Return: 0, -EINVAL for too many SGEs, -ENOMEM when the ring is full.
 */
int vrnic_rq_post(struct vrnic_rq *rq, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct rxe_recv_wqe *wqe;
	unsigned long flags;
	int i, err = 0;
	u32 length;

	spin_lock_irqsave(&rq->lock, flags);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > rq->max_sge) {
			err = -EINVAL;
			break;
		}
		if (vrnic_queue_full(&rq->q)) {
			err = -ENOMEM;
			break;
		}
		wqe = vrnic_queue_slot(&rq->q, rq->q.prod);
		wqe->wr_id = wr->wr_id;
		length = 0;
		for (i = 0; i < wr->num_sge; i++) {
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
			length += wr->sg_list[i].length;
		}
		wqe->dma.length = length;
		wqe->dma.resid = length;
		wqe->dma.num_sge = wr->num_sge;
		wqe->dma.cur_sge = 0;
		wqe->dma.sge_offset = 0;
		vrnic_queue_advance_prod(&rq->q);
	}
	spin_unlock_irqrestore(&rq->lock, flags);

	if (err)
		*bad_wr = wr;
	return err;
}

static void vrnic_srq_event(struct vrnic_srq *srq, enum ib_event_type type)
{
	struct ib_srq *ibsrq = &srq->ibsrq;
	struct ib_event ev = {
		.device = ibsrq->device,
		.element.srq = ibsrq,
		.event = type,
	};

	if (ibsrq->event_handler)
		ibsrq->event_handler(&ev, ibsrq->srq_context);
}

/**
 * vrnic_rq_take - copy the oldest WQE of a receive ring and release it
 * @rq: the ring; for an SRQ the caller holds @rq->lock
 * @out: the copy, with room for @rq->max_sge SGEs
 *
 * The slot may be rewritten by user space at any moment: every field is
 * read once, into @out, and only @out is checked.
 * Return: 0; -ENOENT if the ring is empty; -EINVAL if the WQE was
 * malformed (consumed anyway; @out->wr_id is valid and @out->status is
 * IB_WC_LOC_QP_OP_ERR).
 */
int vrnic_rq_take(struct vrnic_rq *rq, struct vrnic_recv_wqe *out)
{
	const struct rxe_recv_wqe *wqe;
	u32 i, num_sge;
	u64 length = 0;

	if (vrnic_queue_empty(&rq->q))
		return -ENOENT;

	wqe = vrnic_queue_slot(&rq->q, rq->q.cons);
	memset(out, 0, sizeof(*out));
	out->wr_id = READ_ONCE(wqe->wr_id);
	num_sge = READ_ONCE(wqe->dma.num_sge);
	if (num_sge <= rq->max_sge) {
		memcpy(out->dma.sge, wqe->dma.sge,
		       num_sge * sizeof(out->dma.sge[0]));
		for (i = 0; i < num_sge; i++)
			length += out->dma.sge[i].length;
	}
	vrnic_queue_advance_cons(&rq->q);

	/* IBA 9.7.5.1.1: a message is at most 2^31 bytes. */
	if (num_sge > rq->max_sge || length > (1U << 31)) {
		out->status = IB_WC_LOC_QP_OP_ERR;
		return -EINVAL;
	}
	out->status = IB_WC_SUCCESS;
	out->dma.num_sge = num_sge;
	out->dma.length = length;
	out->dma.resid = length;
	return 0;
}

/**
 * vrnic_srq_take - take the oldest WQE of an SRQ for a QP
 * @srq: the SRQ
 * @out: the copy
 *
 * Fires IB_EVENT_SRQ_LIMIT_REACHED when fewer WQEs than the armed limit
 * remain (IBA 10.2.9.2: once, then the limit disarms).
 * Return: as vrnic_rq_take().
 */
int vrnic_srq_take(struct vrnic_srq *srq, struct vrnic_recv_wqe *out)
{
	bool limit_hit = false;
	unsigned long flags;
	int err;

	spin_lock_irqsave(&srq->rq.lock, flags);
	err = vrnic_rq_take(&srq->rq, out);
	if (err != -ENOENT && srq->limit &&
	    ((vrnic_queue_load_prod(&srq->rq.q) - srq->rq.q.cons) &
	     srq->rq.q.index_mask) < srq->limit) {
		srq->limit = 0;
		limit_hit = true;
	}
	spin_unlock_irqrestore(&srq->rq.lock, flags);

	if (limit_hit)
		vrnic_srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
	return err;
}

/* Entries in an SRQ as the consumer sees them; under srq->rq.lock. */
static u32 vrnic_srq_count(struct vrnic_srq *srq)
{
	return (vrnic_queue_load_prod(&srq->rq.q) - srq->rq.q.cons) &
	       srq->rq.q.index_mask;
}

static int vrnic_srq_check(struct vrnic_dev *vdev, u32 max_wr, u32 max_sge)
{
	if (max_wr < 1 || max_wr > READ_ONCE(vdev->limits.max_qp_wr))
		return -EINVAL;
	if (max_sge > READ_ONCE(vdev->limits.max_sge))
		return -EINVAL;
	return 0;
}

int vrnic_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibsrq->device);
	struct vrnic_srq *srq = to_vsrq(ibsrq);
	struct rxe_create_srq_resp resp = {};
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	err = vrnic_srq_check(vdev, init->attr.max_wr, init->attr.max_sge);
	if (err)
		return err;
	if (init->attr.srq_limit > init->attr.max_wr)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	err = vrnic_obj_get(&vdev->num_srq, READ_ONCE(vdev->limits.max_srq));
	if (err)
		return err;

	err = xa_alloc_cyclic_irq(&vdev->srq_xa, &srq->srq_num, srq,
				  XA_LIMIT(1, U32_MAX), &vdev->next_srq_num,
				  GFP_KERNEL);
	if (err < 0)
		goto err_put;

	err = vrnic_rq_init(&srq->rq, init->attr.max_wr, init->attr.max_sge,
			    udata, &resp.mi);
	if (err)
		goto err_erase;
	srq->limit = init->attr.srq_limit;

	if (udata) {
		resp.srq_num = srq->srq_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_free_queue;
	}

	init->attr.max_wr = srq->rq.max_wr;
	return 0;

err_free_queue:
	vrnic_queue_free(&srq->rq.q);
err_erase:
	xa_erase_irq(&vdev->srq_xa, srq->srq_num);
err_put:
	vrnic_obj_put(&vdev->num_srq);
	return err;
}

/*
 * Resize (IB_SRQ_MAX_WR): a new ring receives the WQEs not yet consumed;
 * for a user SRQ its mmap information goes to the address librxe gave in
 * struct rxe_modify_srq_cmd.
 */
static int vrnic_srq_resize(struct vrnic_srq *srq, u32 max_wr,
			    struct ib_udata *udata)
{
	struct rxe_modify_srq_cmd cmd = {};
	struct vrnic_queue nq, oq;
	struct mminfo mi = {};
	unsigned long flags;
	size_t esize;
	u32 i, n;
	int err;

	if (udata) {
		if (udata->inlen < sizeof(cmd))
			return -EINVAL;
		err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
		if (err)
			return err;
	}

	esize = (size_t)1 << srq->rq.q.log2_elem_size;
	err = vrnic_queue_init(&nq, max_wr, esize);
	if (err)
		return err;
	if (udata) {
		err = vrnic_queue_map(&nq, udata, &mi);
		if (err)
			goto err_free;
		if (copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi,
				 sizeof(mi))) {
			err = -EFAULT;
			goto err_free;
		}
	}

	spin_lock_irqsave(&srq->rq.lock, flags);
	n = vrnic_srq_count(srq);
	if (n > vrnic_queue_capacity(&nq)) {
		spin_unlock_irqrestore(&srq->rq.lock, flags);
		err = -EINVAL;
		goto err_free;
	}
	for (i = 0; i < n; i++)
		memcpy(vrnic_queue_slot(&nq, i),
		       vrnic_queue_slot(&srq->rq.q, srq->rq.q.cons + i), esize);
	nq.prod = n;
	nq.buf->producer_index = n;
	oq = srq->rq.q;
	srq->rq.q = nq;
	srq->rq.max_wr = vrnic_queue_capacity(&nq);
	spin_unlock_irqrestore(&srq->rq.lock, flags);

	vrnic_queue_free(&oq);
	return 0;

err_free:
	vrnic_queue_free(&nq);
	return err;
}

int vrnic_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibsrq->device);
	struct vrnic_srq *srq = to_vsrq(ibsrq);
	unsigned long flags;
	int err;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EOPNOTSUPP;

	if (mask & IB_SRQ_MAX_WR) {
		err = vrnic_srq_check(vdev, attr->max_wr, srq->rq.max_sge);
		if (err)
			return err;
		if ((mask & IB_SRQ_LIMIT) && attr->srq_limit > attr->max_wr)
			return -EINVAL;
		err = vrnic_srq_resize(srq, attr->max_wr, udata);
		if (err)
			return err;
	}

	if (mask & IB_SRQ_LIMIT) {
		/* IBA 11.2.3.3: the limit may not exceed the SRQ size. */
		if (attr->srq_limit > srq->rq.max_wr)
			return -EINVAL;
		spin_lock_irqsave(&srq->rq.lock, flags);
		srq->limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->rq.lock, flags);
	}
	return 0;
}

int vrnic_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct vrnic_srq *srq = to_vsrq(ibsrq);

	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

int vrnic_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibsrq->device);
	struct vrnic_srq *srq = to_vsrq(ibsrq);

	/* ib_core refuses while a QP is still attached. */
	vrnic_queue_free(&srq->rq.q);
	xa_erase_irq(&vdev->srq_xa, srq->srq_num);
	vrnic_obj_put(&vdev->num_srq);
	return 0;
}

int vrnic_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	return vrnic_rq_post(&to_vsrq(ibsrq)->rq, wr, bad_wr);
}
