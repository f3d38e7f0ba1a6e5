/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic: ring buffers shared with user space in the rxe ABI layout.
 *
 * Every work and completion queue is a struct rxe_queue_buf (uapi
 * rdma_user_rxe.h) followed by a power-of-two number of slots of a
 * power-of-two size.  A ring with N slots holds at most N - 1 entries:
 * it is empty when producer == consumer and full when
 * (producer + 1) % N == consumer.  Both indices always lie in [0, N - 1].
 *
 * Trust: for a user-mapped ring, the index user space owns (the producer
 * of SQ/RQ/SRQ, the consumer of a CQ) may hold any value at any time.
 * The kernel keeps its own index privately (@prod or @cons below), only
 * ever publishes it to the shared header, and masks every index it reads
 * back from the header.  The slot contents of a user-writable ring may
 * change under us too: the kernel copies a WQE out of the ring and then
 * validates the copy, never the ring slot.
 *
 * Memory ordering pairs with librxe's C11 atomics: the producer writes
 * the slot, then store-releases the producer index; the consumer
 * load-acquires the producer index, then reads the slot; symmetric for
 * the consumer index releasing a slot back to the producer.
 */
#ifndef VRNIC_QUEUE_H
#define VRNIC_QUEUE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

/**
 * struct vrnic_mmap_entry - a ring buffer offered to user space via mmap
 * @rdma: ib_core's entry; the mmap offset handed to librxe comes from it
 * @buf: the ring buffer (vmalloc, see vrnic_queue_init())
 * @size: size of @buf in bytes (page aligned)
 *
 * The entry, not the queue, owns @buf: a process may keep the mapping
 * after destroying the queue, so @buf is freed from the mmap_free
 * callback once ib_core has dropped the last reference.
 */
struct vrnic_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;
	size_t size;
};

/**
 * struct vrnic_queue - one ring
 * @buf: shared header and slots
 * @mmap: the mmap entry for user-visible rings, NULL for kernel rings
 * @size: bytes allocated at @buf
 * @log2_elem_size: log2 of the slot size
 * @index_mask: number of slots - 1
 * @prod: producer index, authoritative when the kernel produces
 * @cons: consumer index, authoritative when the kernel consumes
 *
 * Locking: the structure owning the queue says which lock serialises
 * each side.  Only the side the kernel owns is modified here.
 */
struct vrnic_queue {
	struct rxe_queue_buf *buf;
	struct vrnic_mmap_entry *mmap;
	size_t size;
	u32 log2_elem_size;
	u32 index_mask;
	u32 prod;
	u32 cons;
};

int vrnic_queue_init(struct vrnic_queue *q, u32 num_elem, size_t elem_size);
int vrnic_queue_map(struct vrnic_queue *q, struct ib_udata *udata,
		    struct mminfo *mi);
void vrnic_queue_free(struct vrnic_queue *q);

/* Usable entries (one slot always stays free). */
static inline u32 vrnic_queue_capacity(const struct vrnic_queue *q)
{
	return q->index_mask;
}

static inline u32 vrnic_queue_next(const struct vrnic_queue *q, u32 index)
{
	return (index + 1) & q->index_mask;
}

static inline void *vrnic_queue_slot(const struct vrnic_queue *q, u32 index)
{
	return q->buf->data + ((size_t)(index & q->index_mask) <<
			       q->log2_elem_size);
}

/* Consumer side: the producer index as published, masked. */
static inline u32 vrnic_queue_load_prod(const struct vrnic_queue *q)
{
	/* Pairs with the producer's release: slot contents are visible. */
	return smp_load_acquire(&q->buf->producer_index) & q->index_mask;
}

/* Producer side: the consumer index as published, masked. */
static inline u32 vrnic_queue_load_cons(const struct vrnic_queue *q)
{
	/* Pairs with the consumer's release: it is done with the slot. */
	return smp_load_acquire(&q->buf->consumer_index) & q->index_mask;
}

/* Kernel consumer: nothing left to consume. */
static inline bool vrnic_queue_empty(const struct vrnic_queue *q)
{
	return q->cons == vrnic_queue_load_prod(q);
}

/* Kernel producer: no free slot. */
static inline bool vrnic_queue_full(const struct vrnic_queue *q)
{
	return vrnic_queue_next(q, q->prod) == vrnic_queue_load_cons(q);
}

/* Kernel producer: entries in the ring as seen from the producer. */
static inline u32 vrnic_queue_count(const struct vrnic_queue *q)
{
	return (q->prod - vrnic_queue_load_cons(q)) & q->index_mask;
}

/* Kernel consumer: release the slot at @cons back to the producer. */
static inline void vrnic_queue_advance_cons(struct vrnic_queue *q)
{
	q->cons = vrnic_queue_next(q, q->cons);
	/* Our reads of the slot complete before the producer may reuse it. */
	smp_store_release(&q->buf->consumer_index, q->cons);
}

/* Kernel producer: publish the slot at @prod (already written). */
static inline void vrnic_queue_advance_prod(struct vrnic_queue *q)
{
	q->prod = vrnic_queue_next(q, q->prod);
	/* The slot contents are visible before the new index. */
	smp_store_release(&q->buf->producer_index, q->prod);
}

/*
 * Empty the ring (QP entering RESET); the caller holds the lock of the
 * kernel-owned side and the wire no longer uses the ring.
 */
static inline void vrnic_queue_reset(struct vrnic_queue *q)
{
	q->prod = 0;
	q->cons = 0;
	WRITE_ONCE(q->buf->producer_index, 0);
	WRITE_ONCE(q->buf->consumer_index, 0);
}

#endif /* VRNIC_QUEUE_H */
