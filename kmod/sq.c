// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: the send queue.  Its ring (librxe's layout for user QPs, ours
 * for kernel QPs), posting by kernel consumers, the requester's fetch of
 * WQEs (a user WQE is copied out of the mapped ring and checked once,
 * here), and completion and flush, which give slots back.  Positions
 * and locking: struct vrnic_sq (verbs.h).
 */

#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>

#include "verbs.h"
#include "hdr.h"

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

int vrnic_sq_init(struct vrnic_qp *qp, const struct ib_qp_cap *cap,
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
	/* Sized by the user, as the ring (vrnic_queue_init()). */
	sq->wqes = kvzalloc((size_t)(sq->q.index_mask + 1) <<
			    sq->log2_wqe_size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
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

void vrnic_sq_free(struct vrnic_qp *qp)
{
	if (qp->is_user)
		kvfree(qp->sq.wqes);
	qp->sq.wqes = NULL;
	vrnic_queue_free(&qp->sq.q);
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

/*
 * Is the newest WQE posted a one-packet message that asks for no
 * completion?  Only a hint for where the requester runs
 * (vrnic_req_doorbell()): a user process may rewrite its ring slot at any
 * time, and the requester validates its own copy.
 */
static bool vrnic_sq_newest_streams(struct vrnic_qp *qp)
{
	u32 prod = vrnic_queue_load_prod(&qp->sq.q);
	u32 flags, length;
	void *slot;

	if (qp->sig_all || prod == qp->sq.q.cons)
		return false;
	slot = vrnic_queue_slot(&qp->sq.q, prod - 1);
	if (qp->is_user) {
		const struct rxe_send_wqe *u = slot;

		flags = READ_ONCE(u->wr.send_flags);
		length = READ_ONCE(u->dma.length);
	} else {
		const struct vrnic_send_wqe *k = slot;

		flags = READ_ONCE(k->send_flags);
		length = READ_ONCE(k->dma.length);
	}
	return !(flags & IB_SEND_SIGNALED) && length <= vrnic_qp_mtu(qp);
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
		vrnic_req_doorbell(qp, vrnic_sq_newest_streams(qp));
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
	vrnic_req_doorbell(qp, vrnic_sq_newest_streams(qp));
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
