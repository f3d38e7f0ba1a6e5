// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: memory regions - registration, keys, lookup and data movement.
 *
 * A key is (index << 8) | key byte.  The index names the slot in
 * vrnic_dev.mr_xa; the key byte rotates with every registration so that a
 * stale key of a deregistered region does not match the next region that
 * reuses the slot, and fast-reg consumers may pick a new byte for each
 * IB_WR_REG_MR (IBA 10.6.3.4).  lkey and rkey are the same value.
 *
 * Memory windows (mw.c) take their keys from the same table; their
 * entries are tagged VRNIC_KEY_TAG_MW and are invisible to MR lookups.
 */

#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "hdr.h"
#include "verbs.h"

#define VRNIC_MR_INDEX(key)	((key) >> 8)

#define VRNIC_MR_ACCESS_FLAGS	(IB_ACCESS_LOCAL_WRITE |		\
				 IB_ACCESS_REMOTE_WRITE |		\
				 IB_ACCESS_REMOTE_READ |		\
				 IB_ACCESS_REMOTE_ATOMIC |		\
				 IB_ACCESS_MW_BIND)

static atomic_t vrnic_key_byte = ATOMIC_INIT(0);

/* IBA 10.6.3.2: remote write or atomic access needs local write too. */
static int vrnic_mr_check_access(int access)
{
	access &= ~IB_ACCESS_OPTIONAL;
	if (access & ~VRNIC_MR_ACCESS_FLAGS)
		return -EOPNOTSUPP;
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

static struct vrnic_mr *vrnic_mr_alloc(struct ib_pd *ibpd, u8 type)
{
	struct vrnic_dev *vdev = to_vdev(ibpd->device);
	struct vrnic_mr *mr;
	int err;

	err = vrnic_obj_get(&vdev->num_mr, READ_ONCE(vdev->limits.max_mr));
	if (err)
		return ERR_PTR(err);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		vrnic_obj_put(&vdev->num_mr);
		return ERR_PTR(-ENOMEM);
	}
	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);
	atomic_set(&mr->num_mw, 0);
	mr->type = type;
	/* ib_core sets it too, but only after lookups can see the MR. */
	mr->ibmr.pd = ibpd;
	return mr;
}

static void vrnic_mr_free(struct vrnic_dev *vdev, struct vrnic_mr *mr)
{
	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kvfree(mr->page_list);
	kfree_rcu(mr, rcu);
	vrnic_obj_put(&vdev->num_mr);
}

/*
 * Give @mr an index and a key and make it visible to lookups: the last
 * step of every MR registration.  Return the ib_mr, or an error pointer
 * after freeing @mr.
 */
static struct ib_mr *vrnic_mr_publish(struct vrnic_dev *vdev,
				      struct vrnic_mr *mr)
{
	u32 index;
	int err;

	err = xa_alloc_cyclic_irq(&vdev->mr_xa, &index, NULL,
				  XA_LIMIT(1, 0xffffff), &vdev->next_mr_index,
				  GFP_KERNEL);
	if (err < 0) {
		vrnic_mr_free(vdev, mr);
		return ERR_PTR(err);
	}
	mr->key = (index << 8) | (atomic_inc_return(&vrnic_key_byte) & 0xff);
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	xa_store_irq(&vdev->mr_xa, index, mr, GFP_KERNEL);
	return &mr->ibmr;
}

struct ib_mr *vrnic_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct vrnic_dev *vdev = to_vdev(ibpd->device);
	struct vrnic_mr *mr;
	int err;

	err = vrnic_mr_check_access(access);
	if (err)
		return ERR_PTR(err);
	mr = vrnic_mr_alloc(ibpd, VRNIC_MR_DMA);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->access = access;
	mr->iova = 0;
	mr->length = U64_MAX;
	mr->state = VRNIC_MR_VALID;
	return vrnic_mr_publish(vdev, mr);
}

struct ib_mr *vrnic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibpd->device);
	struct sg_page_iter iter;
	struct vrnic_mr *mr;
	u32 i = 0;
	int err;

	err = vrnic_mr_check_access(access);
	if (err)
		return ERR_PTR(err);
	if (!length || length > READ_ONCE(vdev->limits.max_mr_size))
		return ERR_PTR(-EINVAL);

	mr = vrnic_mr_alloc(ibpd, VRNIC_MR_USER);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	/* Pins the pages and charges them to RLIMIT_MEMLOCK. */
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		mr->umem = NULL;
		goto err_free;
	}

	mr->offset = ib_umem_offset(mr->umem);
	mr->npages = DIV_ROUND_UP(mr->offset + length, PAGE_SIZE);
	/* Sized by the user: ENOMEM to them, nothing in the log. */
	mr->pages = kvmalloc_array(mr->npages, sizeof(*mr->pages),
				   GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!mr->pages) {
		err = -ENOMEM;
		goto err_free;
	}
	for_each_sgtable_page(&mr->umem->sgt_append.sgt, &iter, 0) {
		if (i == mr->npages)
			break;
		mr->pages[i++] = sg_page_iter_page(&iter);
	}
	if (i != mr->npages) {
		err = -EFAULT;
		goto err_free;
	}

	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	mr->state = VRNIC_MR_VALID;
	return vrnic_mr_publish(vdev, mr);

err_free:
	vrnic_mr_free(vdev, mr);
	return ERR_PTR(err);
}

struct ib_mr *vrnic_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct vrnic_dev *vdev = to_vdev(ibpd->device);
	struct vrnic_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > VRNIC_MAX_FMR_PAGES)
		return ERR_PTR(-EINVAL);

	mr = vrnic_mr_alloc(ibpd, VRNIC_MR_FAST);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->page_list = kvcalloc(max_num_sg, sizeof(*mr->page_list),
				 GFP_KERNEL | __GFP_NOWARN);
	if (!mr->page_list) {
		vrnic_mr_free(vdev, mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->npages = max_num_sg;
	mr->state = VRNIC_MR_INVALID;
	return vrnic_mr_publish(vdev, mr);
}

static int vrnic_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct vrnic_mr *mr = to_vmr(ibmr);

	if (mr->nbuf == mr->npages)
		return -ENOMEM;
	mr->page_list[mr->nbuf++] = addr;
	return 0;
}

int vrnic_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct vrnic_mr *mr = to_vmr(ibmr);
	int n;

	/* The device has no DMA mapping: the addresses are kernel VAs. */
	mr->nbuf = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, vrnic_set_page);
	mr->page_shift = ilog2(ibmr->page_size);
	mr->offset = ibmr->iova & (ibmr->page_size - 1);
	return n;
}

int vrnic_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibmr->device);
	struct vrnic_mr *mr = to_vmr(ibmr);

	/*
	 * IBA 10.6.7: a region with windows bound to it is
	 * not deregistered.  vrnic_mr_bind_mw() counts a new binding under
	 * the same lock, and only while the MR is still in the table.
	 */
	xa_lock_irq(&vdev->mr_xa);
	if (atomic_read(&mr->num_mw)) {
		xa_unlock_irq(&vdev->mr_xa);
		return -EBUSY;
	}
	/* IBA 10.6.4: once deregistered, no access may succeed. */
	__xa_erase(&vdev->mr_xa, VRNIC_MR_INDEX(mr->key));
	xa_unlock_irq(&vdev->mr_xa);
	vrnic_mr_put(mr);
	wait_for_completion(&mr->released);
	vrnic_mr_free(vdev, mr);
	return 0;
}

/* ------------------------------------------------------------ lookup */

/*
 * Under RCU, not the table's lock: every packet of every message looks
 * up at least one key.  The struct outlives a concurrent dereg by a
 * grace period (vrnic_mr_free()), and a reference is only taken while
 * the table's own is still held (refcount_inc_not_zero()).
 */
static struct vrnic_mr *vrnic_mr_find(struct vrnic_dev *vdev, u32 key)
{
	struct vrnic_mr *mr;

	rcu_read_lock();
	mr = xa_load(&vdev->mr_xa, VRNIC_MR_INDEX(key));
	/* A window's entry is tagged. */
	if (mr && (xa_pointer_tag(mr) || !refcount_inc_not_zero(&mr->ref)))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/**
 * vrnic_mr_bind_mw - count a window binding on @mr
 * @mr: the MR, with a lookup reference
 *
 * Return: 0, or -EINVAL if @mr is being deregistered.
 */
int vrnic_mr_bind_mw(struct vrnic_mr *mr)
{
	struct vrnic_dev *vdev = to_vdev(mr->ibmr.device);
	unsigned long flags;
	int err = -EINVAL;

	xa_lock_irqsave(&vdev->mr_xa, flags);
	if (xa_load(&vdev->mr_xa, VRNIC_MR_INDEX(mr->key)) == mr) {
		atomic_inc(&mr->num_mw);
		err = 0;
	}
	xa_unlock_irqrestore(&vdev->mr_xa, flags);
	return err;
}

/* Drop a binding counted by vrnic_mr_bind_mw(). */
void vrnic_mr_unbind_mw(struct vrnic_mr *mr)
{
	atomic_dec(&mr->num_mw);
}

void vrnic_mr_put(struct vrnic_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}

/**
 * vrnic_mr_get - look up and check an MR for an access
 * @pd: PD of the accessing QP
 * @key: lkey or rkey
 * @iova: first byte accessed
 * @length: bytes accessed
 * @access: IB_ACCESS_* bits needed (0: local read)
 *
 * Return: the MR with a reference, or ERR_PTR(-EINVAL) (unknown or
 * invalid key, other PD), ERR_PTR(-EACCES) (access not granted),
 * ERR_PTR(-ERANGE) (outside the region).
 */
struct vrnic_mr *vrnic_mr_get(struct vrnic_pd *pd, u32 key, u64 iova,
			      u64 length, int access)
{
	struct vrnic_mr *mr;
	int err = -EINVAL;
	u8 state;

	mr = vrnic_mr_find(to_vdev(pd->ibpd.device), key);
	if (!mr)
		return ERR_PTR(-EINVAL);

	/* Pairs with vrnic_mr_fast_reg(): fields are set before VALID. */
	state = smp_load_acquire(&mr->state);
	if (READ_ONCE(mr->key) != key || state != VRNIC_MR_VALID ||
	    mr->ibmr.pd != &pd->ibpd)
		goto err_put;
	err = -EACCES;
	if ((mr->access & access) != access)
		goto err_put;
	err = -ERANGE;
	if (iova < mr->iova || length > mr->length ||
	    iova - mr->iova > mr->length - length)
		goto err_put;
	return mr;

err_put:
	vrnic_mr_put(mr);
	return ERR_PTR(err);
}

/**
 * vrnic_rkey_get - look up and check the target of a remote access
 * @qp: the QP the request came on
 * @key: the rkey, of an MR or of a memory window
 * @iova: first byte accessed
 * @length: bytes accessed
 * @access: IB_ACCESS_REMOTE_* bits needed
 *
 * Return: as vrnic_mr_get(); for a window, the MR it is bound to.
 */
struct vrnic_mr *vrnic_rkey_get(struct vrnic_qp *qp, u32 key, u64 iova,
				u64 length, int access)
{
	struct vrnic_mr *mr, *wmr;

	mr = vrnic_mr_get(qp->pd, key, iova, length, access);
	if (PTR_ERR(mr) != -EINVAL)
		return mr;
	wmr = vrnic_mw_get(qp, key, iova, length, access);
	return PTR_ERR(wmr) == -ENOENT ? mr : wmr;
}

/* ------------------------------------------------------- data movement */

/*
 * Kernel address of byte @iova of a kernel MR (fast-registered or DMA)
 * and how many bytes follow it contiguously; NULL for a fast-registered
 * page the MR does not hold, which vrnic_mr_get()'s bounds check rules
 * out.
 */
static void *vrnic_mr_kva(struct vrnic_mr *mr, u64 iova, u32 *avail)
{
	u64 pos, bsize, in;

	if (mr->type != VRNIC_MR_FAST) {
		*avail = U32_MAX;
		return (void *)(uintptr_t)iova;
	}
	pos = iova - mr->iova + mr->offset;
	bsize = 1ULL << mr->page_shift;
	in = pos & (bsize - 1);
	if (WARN_ON_ONCE((pos >> mr->page_shift) >= mr->nbuf))
		return NULL;
	*avail = min_t(u64, bsize - in, U32_MAX);
	return (void *)(uintptr_t)(mr->page_list[pos >> mr->page_shift] + in);
}

/*
 * The pinned page holding byte @iova of user MR @mr, the byte's offset
 * in it (@off) and the bytes that follow in the page (@avail).
 */
static struct page *vrnic_mr_user_page(struct vrnic_mr *mr, u64 iova,
				       u32 *off, u32 *avail)
{
	u64 pos = iova - mr->iova + mr->offset;

	*off = pos & ~PAGE_MASK;
	*avail = PAGE_SIZE - *off;
	return mr->pages[pos >> PAGE_SHIFT];
}

/*
 * Kernel address of byte @iova of @mr and how many bytes follow it
 * contiguously; user pages are mapped with kmap_local_page() and must be
 * released with vrnic_mr_unmap().
 */
static void *vrnic_mr_map(struct vrnic_mr *mr, u64 iova, u32 *avail)
{
	struct page *page;
	u32 off;

	if (mr->type != VRNIC_MR_USER)
		return vrnic_mr_kva(mr, iova, avail);
	page = vrnic_mr_user_page(mr, iova, &off, avail);
	return kmap_local_page(page) + off;
}

static void vrnic_mr_unmap(struct vrnic_mr *mr, void *va)
{
	if (mr->type == VRNIC_MR_USER)
		kunmap_local(va);
}

/**
 * vrnic_mr_copy - copy between a kernel buffer and an MR
 * @mr: the MR, with @iova..@iova+@len checked by vrnic_mr_get()
 * @iova: first byte in the MR
 * @buf: kernel buffer
 * @len: bytes
 * @dir: VRNIC_TO_MR or VRNIC_FROM_MR
 */
void vrnic_mr_copy(struct vrnic_mr *mr, u64 iova, void *buf, u32 len,
		   enum vrnic_copy_dir dir)
{
	u32 avail, n;
	void *va;

	while (len) {
		va = vrnic_mr_map(mr, iova, &avail);
		if (!va)
			return;
		n = min(len, avail);
		if (dir == VRNIC_TO_MR)
			memcpy(va, buf, n);
		else
			memcpy(buf, va, n);
		vrnic_mr_unmap(mr, va);
		buf += n;
		iova += n;
		len -= n;
	}
}

/**
 * vrnic_mr_atomic - execute an atomic operation on MR memory
 * @mr: the MR, checked for 8 bytes at @iova with IB_ACCESS_REMOTE_ATOMIC
 * @iova: target address
 * @cmp_swap: compare-and-swap (else fetch-and-add)
 * @cmp_add: compare value, or the addend
 * @swap: swap value
 * @orig: the value found at @iova
 *
 * IBA 9.4.5: the target must be naturally aligned.
 * Return: 0 or -EINVAL for a misaligned target.
 */
/*
 * Map the naturally aligned 64-bit word at @iova for an atomic access;
 * NULL if it is not aligned (IBA 9.4.5).  Release with vrnic_mr_unmap().
 */
static u64 *vrnic_mr_map_word(struct vrnic_mr *mr, u64 iova)
{
	u64 *p;
	u32 avail;

	if (iova & 7)
		return NULL;
	p = vrnic_mr_map(mr, iova, &avail);
	if (!p)
		return NULL;
	/* The kernel address is misaligned if the user VA differs mod 8. */
	if (((uintptr_t)p & 7) || avail < 8) {
		vrnic_mr_unmap(mr, p);
		return NULL;
	}
	return p;
}

int vrnic_mr_atomic(struct vrnic_mr *mr, u64 iova, bool cmp_swap,
		    u64 cmp_add, u64 swap, u64 *orig)
{
	u64 *p, old;

	p = vrnic_mr_map_word(mr, iova);
	if (!p)
		return -EINVAL;
	if (cmp_swap) {
		old = cmpxchg64(p, cmp_add, swap);
	} else {
		do {
			old = READ_ONCE(*p);
		} while (cmpxchg64(p, old, old + cmp_add) != old);
	}
	vrnic_mr_unmap(mr, p);
	*orig = old;
	return 0;
}

int vrnic_mr_atomic_write(struct vrnic_mr *mr, u64 iova, const u8 *data)
{
	u64 *p, val;

	p = vrnic_mr_map_word(mr, iova);
	if (!p)
		return -EINVAL;
	/* The bytes land as they were in the requester's memory. */
	memcpy(&val, data, sizeof(val));
	xchg(p, val);
	vrnic_mr_unmap(mr, p);
	return 0;
}

/**
 * vrnic_dma_seek - place the cursor of a data segment @off bytes in
 * @dma: data segment of a WQE (length already validated by verbs)
 * @off: offset, at most @dma->length
 */
void vrnic_dma_seek(struct vrnic_dma *dma, u32 off)
{
	u32 i = 0;

	dma->resid = dma->length - off;
	if (dma->num_sge) {
		while (i < dma->num_sge - 1 && off >= dma->sge[i].length) {
			off -= dma->sge[i].length;
			i++;
		}
	}
	dma->cur_sge = i;
	dma->sge_offset = off;
}

/*
 * Walk @len bytes of @dma's SGE list from its cursor, advancing it: @run
 * gets each stretch that lies in one MR, checked for @access and held by
 * a reference for the call.
 */
static int vrnic_dma_walk(struct vrnic_pd *pd, struct vrnic_dma *dma,
			  u32 len, int access,
			  int (*run)(struct vrnic_mr *mr, u64 iova, u32 n,
				     void *ctx),
			  void *ctx)
{
	struct vrnic_mr *mr;
	struct ib_sge *sge;
	int err;
	u32 n;

	while (len) {
		if (dma->cur_sge >= dma->num_sge)
			return -ENOSPC;
		sge = &dma->sge[dma->cur_sge];
		n = min(len, sge->length - dma->sge_offset);
		if (n) {
			mr = vrnic_mr_get(pd, sge->lkey,
					  sge->addr + dma->sge_offset, n, access);
			if (IS_ERR(mr))
				return PTR_ERR(mr);
			err = run(mr, sge->addr + dma->sge_offset, n, ctx);
			vrnic_mr_put(mr);
			if (err)
				return err;
			len -= n;
			dma->resid -= n;
			dma->sge_offset += n;
		}
		if (dma->sge_offset >= sge->length) {
			dma->cur_sge++;
			dma->sge_offset = 0;
		}
	}
	return 0;
}

struct vrnic_copy_run {
	void *buf;
	enum vrnic_copy_dir dir;
};

static int vrnic_copy_run(struct vrnic_mr *mr, u64 iova, u32 n, void *ctx)
{
	struct vrnic_copy_run *c = ctx;

	vrnic_mr_copy(mr, iova, c->buf, n, c->dir);
	c->buf += n;
	return 0;
}

/**
 * vrnic_dma_copy - move data between @buf and a WQE's SGE list
 * @pd: the QP's PD
 * @dma: the data segment; its cursor advances by @len
 * @buf: kernel buffer
 * @len: bytes
 * @dir: VRNIC_TO_MR (scatter, needs local write) or VRNIC_FROM_MR
 *
 * Return: 0, an error from vrnic_mr_get(), or -ENOSPC when @len exceeds
 * the bytes left.  On error the cursor may have moved part of the way.
 */
int vrnic_dma_copy(struct vrnic_pd *pd, struct vrnic_dma *dma, void *buf,
		   u32 len, enum vrnic_copy_dir dir)
{
	struct vrnic_copy_run c = { .buf = buf, .dir = dir };

	if (len > dma->resid)
		return -ENOSPC;

	if (!dma->num_sge) {
		/* Inline data exists only in send WQEs, to be read. */
		if (dir == VRNIC_TO_MR)
			return -ENOSPC;
		memcpy(buf, dma->inline_data + (dma->length - dma->resid), len);
		dma->resid -= len;
		return 0;
	}
	return vrnic_dma_walk(pd, dma, len,
			      dir == VRNIC_TO_MR ? IB_ACCESS_LOCAL_WRITE : 0,
			      vrnic_copy_run, &c);
}

/* -------------------------------------------- lending pages to packets */

/*
 * The page holding byte @iova of @mr if a packet may hold a reference to
 * it, with the byte's offset in it (@off) and the bytes that follow in
 * the page (@avail); or NULL, with @avail set all the same.  Pinned user
 * pages may always be lent.  A kernel MR's memory only if it lies in the
 * direct map and is not slab memory (sendpage_ok()): a page reference
 * keeps a page alive, not a slab object or a vmalloc mapping.
 */
static struct page *vrnic_mr_page(struct vrnic_mr *mr, u64 iova, u32 *off,
				  u32 *avail)
{
	struct page *page;
	u32 run;
	void *va;

	if (mr->type == VRNIC_MR_USER)
		return vrnic_mr_user_page(mr, iova, off, avail);
	va = vrnic_mr_kva(mr, iova, &run);
	if (!va) {
		/* Not mapped: vrnic_mr_copy() refuses it too. */
		*off = 0;
		*avail = PAGE_SIZE;
		return NULL;
	}
	*off = offset_in_page(va);
	*avail = min_t(u32, PAGE_SIZE - *off, run);
	if (!virt_addr_valid(va))
		return NULL;
	page = virt_to_page(va);
	return sendpage_ok(page) ? page : NULL;
}

/*
 * Append @n bytes at @iova of @mr to @skb as one fragment copied out of
 * the MR, for memory that cannot be lent.  @n is at most a page.
 */
static int vrnic_skb_copy_frag(struct sk_buff *skb, struct vrnic_mr *mr,
			       u64 iova, u32 n)
{
	struct page *page;
	void *buf;

	buf = netdev_alloc_frag(n);
	if (!buf)
		return -ENOMEM;
	if (mr)
		vrnic_mr_copy(mr, iova, buf, n, VRNIC_FROM_MR);
	else
		memset(buf, 0, n);
	page = virt_to_head_page(buf);
	skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, page,
			   buf - page_address(page), n);
	skb->len += n;
	skb->data_len += n;
	skb->truesize += n;
	return 0;
}

/**
 * vrnic_mr_lend - append @len bytes of @mr at @iova to @skb, uncopied
 * @mr: the MR, with @iova..@iova+@len checked by vrnic_mr_get()
 * @iova: first byte
 * @len: bytes, at most a page (one packet's payload)
 * @skb: the packet, with room for two more fragments
 *
 * The fragments point at the MR's pages and each holds a page reference
 * of its own: the page, not the MR, stays alive until the skb is freed,
 * so deregistering or invalidating the MR while the packet waits in a
 * queue frees nothing under it, and the packet can only carry bytes the
 * MR granted when it was built.  The bytes are read when the packet
 * leaves, or when a local receiver places them, as a NIC reads them by
 * DMA.  Memory that cannot be lent (vrnic_mr_page()) is copied.
 *
 * Return: 0, or -ENOMEM (@skb then holds part of the range).
 */
int vrnic_mr_lend(struct vrnic_mr *mr, u64 iova, u32 len,
		  struct sk_buff *skb)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	struct page *page;
	u32 off, avail, n;
	int err, i;

	while (len) {
		page = vrnic_mr_page(mr, iova, &off, &avail);
		n = min(len, avail);
		i = shinfo->nr_frags;
		if (WARN_ON_ONCE(i >= MAX_SKB_FRAGS))
			return -EMSGSIZE;
		if (!page) {
			err = vrnic_skb_copy_frag(skb, mr, iova, n);
			if (err)
				return err;
		} else {
			if (skb_can_coalesce(skb, i, page, off)) {
				skb_frag_size_add(&shinfo->frags[i - 1], n);
			} else {
				get_page(page);
				skb_fill_page_desc(skb, i, page, off, n);
			}
			/* Whoever would write into the payload copies first. */
			shinfo->flags |= SKBFL_SHARED_FRAG;
			skb->len += n;
			skb->data_len += n;
			skb->truesize += n;
		}
		iova += n;
		len -= n;
	}
	return 0;
}

static int vrnic_lend_run(struct vrnic_mr *mr, u64 iova, u32 n, void *skb)
{
	return vrnic_mr_lend(mr, iova, n, skb);
}

/**
 * vrnic_dma_lend - append the next @len bytes of a send WQE to @skb
 * @pd: the QP's PD
 * @dma: the data segment (not inline); its cursor advances by @len
 * @len: bytes, at most a page
 * @skb: the packet, with room for two fragments per SGE @len touches
 *
 * As vrnic_dma_copy() with VRNIC_FROM_MR, lending the pages
 * (vrnic_mr_lend()) instead of copying them.
 */
int vrnic_dma_lend(struct vrnic_pd *pd, struct vrnic_dma *dma, u32 len,
		   struct sk_buff *skb)
{
	if (len > dma->resid || !dma->num_sge)
		return -ENOSPC;
	return vrnic_dma_walk(pd, dma, len, 0, vrnic_lend_run, skb);
}

/**
 * vrnic_skb_add_tail - append @pad zero bytes and room for the ICRC
 * @skb: a packet whose payload vrnic_mr_lend() appended
 * @pad: pad bytes (0-3)
 *
 * The ICRC goes into a fragment of its own, never into a lent page.
 */
int vrnic_skb_add_tail(struct sk_buff *skb, u32 pad)
{
	if (WARN_ON_ONCE(skb_shinfo(skb)->nr_frags >= MAX_SKB_FRAGS))
		return -EMSGSIZE;
	return vrnic_skb_copy_frag(skb, NULL, 0, pad + VRNIC_ICRC_BYTES);
}

/* ------------------------------------------ fast registration, invalidate */

/**
 * vrnic_mr_fast_reg - execute IB_WR_REG_MR
 * @qp: the posting QP (kernel consumer)
 * @wqe: the WQE; wr.reg holds the MR, its new key and access flags;
 *	the mapping (iova, length, pages) is what map_mr_sg set up
 *
 * Return: 0, or -EINVAL (not a fast-reg MR of the QP's PD, MR already
 * valid, new key for another index, bad access flags).
 */
int vrnic_mr_fast_reg(struct vrnic_qp *qp, struct vrnic_send_wqe *wqe)
{
	struct vrnic_mr *mr = wqe->wr.reg.mr;
	u32 newkey = wqe->wr.reg.key;
	int access = wqe->wr.reg.access;

	if (!mr || mr->type != VRNIC_MR_FAST ||
	    mr->ibmr.pd != qp->ibqp.pd ||
	    VRNIC_MR_INDEX(newkey) != VRNIC_MR_INDEX(mr->key) ||
	    vrnic_mr_check_access(access))
		return -EINVAL;
	/* IBA 10.6.3.4: only a free (invalid) region can be registered. */
	if (smp_load_acquire(&mr->state) != VRNIC_MR_INVALID)
		return -EINVAL;

	mr->access = access;
	mr->iova = mr->ibmr.iova;
	mr->length = mr->ibmr.length;
	WRITE_ONCE(mr->key, newkey);
	/* Publish iova/length/access/key before the region turns valid. */
	smp_store_release(&mr->state, VRNIC_MR_VALID);
	return 0;
}

/**
 * vrnic_mr_invalidate - execute a local or remote invalidation
 * @qp: the QP the request came on
 * @key: the key to invalidate
 *
 * Only fast-reg MRs and type 2 windows can be invalidated (IBA 10.6.5,
 * 10.6.7).
 * Return: 0 or -EINVAL.
 */
int vrnic_mr_invalidate(struct vrnic_qp *qp, u32 key)
{
	struct vrnic_mr *mr;
	int err;

	err = vrnic_mw_invalidate(qp, key);
	if (err != -ENOENT)
		return err;
	err = -EINVAL;
	mr = vrnic_mr_find(vrnic_qp_dev(qp), key);
	if (!mr)
		return -EINVAL;
	/* Only the VALID -> INVALID step, atomically against a racing one. */
	if (mr->type == VRNIC_MR_FAST && READ_ONCE(mr->key) == key &&
	    mr->ibmr.pd == qp->ibqp.pd &&
	    cmpxchg(&mr->state, VRNIC_MR_VALID, VRNIC_MR_INVALID) ==
	    VRNIC_MR_VALID)
		err = 0;
	vrnic_mr_put(mr);
	return err;
}
