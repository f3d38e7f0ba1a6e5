// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: rxe ABI ring buffers and their mmap into user space.
 */

#include <linux/vmalloc.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "verbs.h"

/**
 * vrnic_queue_init - allocate an empty ring
 * @q: the queue to set up
 * @num_elem: entries the ring must be able to hold
 * @elem_size: bytes per entry (rounded up to a power of two)
 *
 * The buffer is zeroed vmalloc memory, charged to the memory cgroup of
 * the caller (a process can ask for rings of many megabytes each); it is
 * mapped page by page should the queue be mapped (vrnic_mmap()).  A
 * failure is the caller's ENOMEM and nothing in the kernel log: the
 * size is the user's to choose, so the log would be theirs to fill.
 * Return: 0 or -ENOMEM.
 */
int vrnic_queue_init(struct vrnic_queue *q, u32 num_elem, size_t elem_size)
{
	u32 slots = roundup_pow_of_two((unsigned long)num_elem + 1);
	u32 log2_elem_size = order_base_2(elem_size);

	q->size = PAGE_ALIGN(sizeof(*q->buf) +
			     ((size_t)slots << log2_elem_size));
	q->buf = __vmalloc(q->size, GFP_KERNEL_ACCOUNT | __GFP_ZERO |
			   __GFP_NOWARN);
	if (!q->buf)
		return -ENOMEM;

	q->buf->log2_elem_size = log2_elem_size;
	q->buf->index_mask = slots - 1;
	q->log2_elem_size = log2_elem_size;
	q->index_mask = slots - 1;
	q->prod = 0;
	q->cons = 0;
	q->mmap = NULL;
	return 0;
}

/**
 * vrnic_queue_map - offer a ring to the process behind @udata
 * @q: an initialised queue
 * @udata: the verb's user data; must be non-NULL
 * @mi: filled with the mmap offset and size librxe passes to mmap()
 *
 * From here on the mmap entry owns the buffer (see vrnic_mmap_free()).
 * Return: 0 or a negative errno.
 */
int vrnic_queue_map(struct vrnic_queue *q, struct ib_udata *udata,
		    struct mminfo *mi)
{
	struct vrnic_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct vrnic_ucontext, ibuc);
	struct vrnic_mmap_entry *entry;
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL_ACCOUNT);
	if (!entry)
		return -ENOMEM;

	entry->buf = q->buf;
	entry->size = q->size;
	err = rdma_user_mmap_entry_insert(&uctx->ibuc, &entry->rdma, q->size);
	if (err) {
		kfree(entry);
		return err;
	}

	q->mmap = entry;
	mi->offset = rdma_user_mmap_get_offset(&entry->rdma);
	mi->size = q->size;
	mi->pad = 0;
	return 0;
}

/**
 * vrnic_queue_free - release a ring
 * @q: the queue; may be unallocated (buf == NULL)
 *
 * A mapped buffer lives on until the process unmaps it.
 */
void vrnic_queue_free(struct vrnic_queue *q)
{
	if (q->mmap)
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else
		vfree(q->buf);
	q->mmap = NULL;
	q->buf = NULL;
}

int vrnic_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct vrnic_mmap_entry *entry;
	unsigned long off;
	int err;

	/* Checks the offset and that the length is the whole entry. */
	rdma_entry = rdma_user_mmap_entry_get(ibuc, vma);
	if (!rdma_entry)
		return -EINVAL;

	entry = container_of(rdma_entry, struct vrnic_mmap_entry, rdma);
	/*
	 * The buffer is not a vmalloc_user() area (that one cannot be
	 * charged to a memory cgroup): insert its pages one by one.  The
	 * mapping has exactly the entry's size (checked above).
	 */
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	for (off = 0, err = 0; off < entry->size && !err; off += PAGE_SIZE)
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(entry->buf + off));
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

void vrnic_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct vrnic_mmap_entry *entry =
		container_of(rdma_entry, struct vrnic_mmap_entry, rdma);

	vfree(entry->buf);
	kfree(entry);
}
