// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: memory windows, type 1 and type 2B (IBA 10.6.7).
 *
 * A window shares the key space of the memory regions: its key is
 * (index << 8) | key byte with the index allocated in vrnic_dev.mr_xa,
 * where the window is stored as a pointer tagged VRNIC_KEY_TAG_MW so that
 * MR lookups never see it.  A window key is only ever an rkey: an lkey
 * naming a window fails the MR lookup.
 *
 * Binding (IB_WR_BIND_MW, from ibv_bind_mw() for type 1 or ibv_post_send()
 * for type 2) runs in the requester, in SQ order.  A bound window points at
 * its MR and counts in the MR's @num_mw; vrnic_dereg_mr() refuses with
 * -EBUSY while that count is non-zero, so the MR outlives every binding.
 * A remote access through the window takes an ordinary lookup reference
 * on the MR under the window's lock, and then moves data exactly as an
 * access through the MR's own rkey.
 *
 * Locking: mw->lock (IRQ-safe) protects the binding (@key, @state, @mr,
 * @addr, @length, @access, @qpn); no other lock is taken under it.  The
 * MR's @num_mw is raised under the mr_xa lock (vrnic_mr_bind_mw(), before
 * mw->lock is taken) and dropped atomically after mw->lock is released.
 *
 * A type 2 window stays bound when its QP is destroyed: nothing can use or
 * invalidate it any more, and it keeps its MR registered until it is
 * deallocated.
 */

#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "verbs.h"

#define VRNIC_MW_INDEX(key)	((key) >> 8)

/* Rights a window may grant (IBA 10.6.7: remote access only). */
#define VRNIC_MW_ACCESS_FLAGS	(IB_ACCESS_REMOTE_WRITE |		\
				 IB_ACCESS_REMOTE_READ |		\
				 IB_ACCESS_REMOTE_ATOMIC)
/*
 * Rights a bind may name: local write means nothing for a window (an lkey
 * never names one) but verbs consumers pass the MR's flags, rdma-core's
 * own tests among them; it is accepted and not granted.
 */
#define VRNIC_MW_BIND_FLAGS	(VRNIC_MW_ACCESS_FLAGS | IB_ACCESS_LOCAL_WRITE)

static atomic_t vrnic_mw_key_byte = ATOMIC_INIT(0);

/* Find the window @key names (any key byte), with a reference. */
static struct vrnic_mw *vrnic_mw_find(struct vrnic_dev *vdev, u32 key)
{
	struct vrnic_mw *mw = NULL;
	unsigned long flags;
	void *entry;

	xa_lock_irqsave(&vdev->mr_xa, flags);
	entry = xa_load(&vdev->mr_xa, VRNIC_MW_INDEX(key));
	if (entry && xa_pointer_tag(entry) == VRNIC_KEY_TAG_MW) {
		mw = xa_untag_pointer(entry);
		if (!refcount_inc_not_zero(&mw->ref))
			mw = NULL;
	}
	xa_unlock_irqrestore(&vdev->mr_xa, flags);
	return mw;
}

static void vrnic_mw_put(struct vrnic_mw *mw)
{
	if (refcount_dec_and_test(&mw->ref))
		complete(&mw->released);
}

int vrnic_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibmw->device);
	struct vrnic_mw *mw = to_vmw(ibmw);
	u32 index;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	err = vrnic_obj_get(&vdev->num_mw, VRNIC_MAX_MW);
	if (err)
		return err;

	refcount_set(&mw->ref, 1);
	init_completion(&mw->released);
	spin_lock_init(&mw->lock);
	mw->state = VRNIC_MW_FREE;

	err = xa_alloc_cyclic_irq(&vdev->mr_xa, &index, NULL,
				  XA_LIMIT(1, 0xffffff), &vdev->next_mr_index,
				  GFP_KERNEL);
	if (err < 0)
		goto err_put;
	mw->key = (index << 8) | (atomic_inc_return(&vrnic_mw_key_byte) & 0xff);
	ibmw->rkey = mw->key;
	xa_store_irq(&vdev->mr_xa, index, xa_tag_pointer(mw, VRNIC_KEY_TAG_MW),
		     GFP_KERNEL);
	return 0;

err_put:
	vrnic_obj_put(&vdev->num_mw);
	return err;
}

/* Drop the binding of @mw; called with mw->lock held.  Return the MR. */
static struct vrnic_mr *vrnic_mw_unbind_locked(struct vrnic_mw *mw)
{
	struct vrnic_mr *mr = mw->mr;

	mw->mr = NULL;
	mw->state = VRNIC_MW_FREE;
	mw->addr = 0;
	mw->length = 0;
	mw->access = 0;
	mw->qpn = 0;
	return mr;
}

int vrnic_dealloc_mw(struct ib_mw *ibmw)
{
	struct vrnic_dev *vdev = to_vdev(ibmw->device);
	struct vrnic_mw *mw = to_vmw(ibmw);
	struct vrnic_mr *mr;
	unsigned long flags;

	/* No lookup finds the window any more; wait for those in flight. */
	xa_erase_irq(&vdev->mr_xa, VRNIC_MW_INDEX(mw->key));
	vrnic_mw_put(mw);
	wait_for_completion(&mw->released);

	spin_lock_irqsave(&mw->lock, flags);
	mr = vrnic_mw_unbind_locked(mw);
	spin_unlock_irqrestore(&mw->lock, flags);
	if (mr)
		vrnic_mr_unbind_mw(mr);
	vrnic_obj_put(&vdev->num_mw);
	return 0;
}

/* IBA 10.6.7 checks on the new binding of @mw, under mw->lock. */
static int vrnic_mw_check_bind(struct vrnic_qp *qp, struct vrnic_mw *mw,
			       struct vrnic_mr *mr,
			       const struct vrnic_send_wqe *wqe)
{
	u32 newkey = wqe->wr.mw.rkey;
	int access = wqe->wr.mw.access;

	if (mw->key != wqe->wr.mw.mw_rkey ||
	    VRNIC_MW_INDEX(newkey) != VRNIC_MW_INDEX(mw->key) ||
	    mw->ibmw.pd != qp->ibqp.pd)
		return -EINVAL;
	if (access & ~VRNIC_MW_BIND_FLAGS)
		return -EINVAL;
	if (mw->ibmw.type == IB_MW_TYPE_2) {
		/* Only a free window; a new key byte; a real window. */
		if (mw->state != VRNIC_MW_FREE ||
		    (newkey & 0xff) == (mw->key & 0xff) || !mr)
			return -EINVAL;
	}
	if (!mr)
		return 0;
	/* Remote write or atomic on the window needs local write. */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))
		return -EACCES;
	return 0;
}

/**
 * vrnic_mw_bind - execute IB_WR_BIND_MW
 * @qp: the posting QP
 * @wqe: the WQE; wr.mw names the window by its current rkey, the MR by
 *	its lkey, the window (addr, length, access) and the new rkey
 *
 * A zero length unbinds a type 1 window.
 * Return: 0, -EINVAL (unknown window or MR, key, PD or state mismatch,
 * bad access flags), -EACCES (MR lacks MW_BIND or local write), -ERANGE
 * (window not inside the MR).
 */
int vrnic_mw_bind(struct vrnic_qp *qp, struct vrnic_send_wqe *wqe)
{
	struct vrnic_mr *mr = NULL, *old;
	struct vrnic_mw *mw;
	unsigned long flags;
	int err;

	mw = vrnic_mw_find(vrnic_qp_dev(qp), wqe->wr.mw.mw_rkey);
	if (!mw)
		return -EINVAL;
	if (wqe->wr.mw.length) {
		/* Checks the MR's PD against the QP's, MW_BIND and bounds. */
		mr = vrnic_mr_get(qp->pd, wqe->wr.mw.mr_lkey, wqe->wr.mw.addr,
				  wqe->wr.mw.length, IB_ACCESS_MW_BIND);
		if (IS_ERR(mr)) {
			err = PTR_ERR(mr);
			goto err_put_mw;
		}
		err = vrnic_mr_bind_mw(mr);
		if (err)
			goto err_put_mr;
	}

	spin_lock_irqsave(&mw->lock, flags);
	err = vrnic_mw_check_bind(qp, mw, mr, wqe);
	if (err) {
		spin_unlock_irqrestore(&mw->lock, flags);
		goto err_unbind;
	}
	old = vrnic_mw_unbind_locked(mw);
	mw->key = wqe->wr.mw.rkey;
	if (mr) {
		mw->mr = mr;
		mw->addr = wqe->wr.mw.addr;
		mw->length = wqe->wr.mw.length;
		mw->access = wqe->wr.mw.access & VRNIC_MW_ACCESS_FLAGS;
		if (mw->ibmw.type == IB_MW_TYPE_2)
			mw->qpn = qp->ibqp.qp_num;
		mw->state = VRNIC_MW_VALID;
	}
	spin_unlock_irqrestore(&mw->lock, flags);

	if (old)
		vrnic_mr_unbind_mw(old);
	if (mr)
		vrnic_mr_put(mr);
	vrnic_mw_put(mw);
	return 0;

err_unbind:
	if (mr)
		vrnic_mr_unbind_mw(mr);
err_put_mr:
	if (mr)
		vrnic_mr_put(mr);
err_put_mw:
	vrnic_mw_put(mw);
	return err;
}

/**
 * vrnic_mw_invalidate - invalidate a type 2 window (LOCAL_INV, SEND_WITH_INV)
 * @qp: the QP the operation came on; must be the one the window is bound to
 * @key: the window's current rkey
 *
 * Return: 0, -ENOENT if @key does not name a window, -EINVAL otherwise.
 */
int vrnic_mw_invalidate(struct vrnic_qp *qp, u32 key)
{
	struct vrnic_mr *mr = NULL;
	struct vrnic_mw *mw;
	unsigned long flags;
	int err = -EINVAL;

	mw = vrnic_mw_find(vrnic_qp_dev(qp), key);
	if (!mw)
		return -ENOENT;
	spin_lock_irqsave(&mw->lock, flags);
	if (mw->ibmw.type == IB_MW_TYPE_2 && mw->state == VRNIC_MW_VALID &&
	    mw->key == key && mw->ibmw.pd == qp->ibqp.pd &&
	    mw->qpn == qp->ibqp.qp_num) {
		mr = vrnic_mw_unbind_locked(mw);
		err = 0;
	}
	spin_unlock_irqrestore(&mw->lock, flags);
	if (mr)
		vrnic_mr_unbind_mw(mr);
	vrnic_mw_put(mw);
	return err;
}

/**
 * vrnic_mw_get - check a remote access through a window
 * @qp: the QP the request came on
 * @key: the rkey of the request (names a window)
 * @iova: first byte accessed
 * @length: bytes accessed
 * @access: IB_ACCESS_REMOTE_* bits needed
 *
 * Return: the MR the window is bound to, with a lookup reference, or
 * ERR_PTR(-ENOENT) if @key names no window, or the errors of
 * vrnic_mr_get().
 */
struct vrnic_mr *vrnic_mw_get(struct vrnic_qp *qp, u32 key, u64 iova,
			      u64 length, int access)
{
	struct vrnic_mr *mr = ERR_PTR(-EINVAL);
	struct vrnic_mw *mw;
	unsigned long flags;

	mw = vrnic_mw_find(vrnic_qp_dev(qp), key);
	if (!mw)
		return ERR_PTR(-ENOENT);

	spin_lock_irqsave(&mw->lock, flags);
	if (mw->key != key || mw->state != VRNIC_MW_VALID ||
	    mw->ibmw.pd != qp->ibqp.pd ||
	    (mw->ibmw.type == IB_MW_TYPE_2 && mw->qpn != qp->ibqp.qp_num))
		goto out_unlock;
	mr = ERR_PTR(-EACCES);
	if ((mw->access & access) != access)
		goto out_unlock;
	mr = ERR_PTR(-ERANGE);
	if (iova < mw->addr || length > mw->length ||
	    iova - mw->addr > mw->length - length)
		goto out_unlock;
	/* The binding keeps the MR registered, so its table ref is held. */
	mr = mw->mr;
	if (!refcount_inc_not_zero(&mr->ref))
		mr = ERR_PTR(-EINVAL);
out_unlock:
	spin_unlock_irqrestore(&mw->lock, flags);
	vrnic_mw_put(mw);

	/* A fast-reg MR invalidated under the window disables it too. */
	if (!IS_ERR(mr) && smp_load_acquire(&mr->state) != VRNIC_MR_VALID) {
		vrnic_mr_put(mr);
		mr = ERR_PTR(-EINVAL);
	}
	return mr;
}
