/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic: verbs objects (PD, AH, CQ, SRQ, QP, MR) and the interface the
 * wire engine (req.c, resp.c, comp.c, recv.c) uses to reach them.
 *
 * Verbs <-> wire contract
 * -----------------------
 * - QPs and MRs are found by number/key with a reference
 *   (vrnic_qp_get()/vrnic_mr_get()).  Destroying a QP or deregistering an
 *   MR removes it from the lookup table and then waits until every
 *   reference is dropped, so the wire must not hold a reference across a
 *   wait for the network: look up again for each packet.
 * - Verbs owns the queues and the QP state; the wire owns the transport
 *   state (struct vrnic_qp_xport, transport.h) and the per-WQE transport
 *   fields (struct vrnic_wqe_xport).
 * - Hooks the wire implements, all called in process context without any
 *   verbs lock held:
 *     vrnic_xport_init(qp): at create_qp, after the queues exist.  Failure
 *       fails create_qp.
 *     vrnic_xport_modify(qp, attr, mask): after modify_qp validated @attr
 *       and applied it to qp->attr / qp->state (so the wire reads the new
 *       values from the QP).  Failure moves the QP to ERR and fails
 *       modify_qp.
 *     vrnic_xport_destroy(qp): at destroy_qp, after the QP left the QPN
 *       table; stop timers and work synchronously, free transport state.
 *       The wire never touches @qp afterwards.
 *     vrnic_req_kick(qp): doorbell, the SQ may have new WQEs (kernel
 *       post_send, or librxe's post_send command).  Any context, may be
 *       called with IRQs off; must not sleep.
 * - Work queues: the SQ and RQ/SRQ rings hold rxe ABI WQEs
 *   (struct rxe_send_wqe / struct rxe_recv_wqe) for user and kernel QPs
 *   alike; kernel post_send/post_recv write that format.  The wire is
 *   the consumer: it copies SQ slots into its own shadow and hands slots
 *   back with vrnic_sq_set_cons(); receive WQEs come from vrnic_rq_pop().
 * - Flushing (IBA 10.3.1, 11.6.2): entering ERR, by modify_qp or by
 *   vrnic_qp_error(), only changes the state (modify_qp then calls
 *   vrnic_xport_modify() so the wire learns of it).  The wire, from its
 *   own context once it has stopped using the queues, completes every
 *   outstanding send WQE and the receive WQE it holds with
 *   IB_WC_WR_FLUSH_ERR, and calls vrnic_rq_flush() for the rest of the
 *   RQ; it does so again whenever it is kicked while the QP is in ERR
 *   (user space may keep posting).  For a QP on an SRQ, verbs reports
 *   IB_EVENT_QP_LAST_WQE_REACHED when modify_qp enters ERR.
 */
#ifndef VRNIC_VERBS_H
#define VRNIC_VERBS_H

#include <linux/refcount.h>
#include <linux/completion.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/if_ether.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_umem.h>

#include "vrnic.h"
#include "queue.h"
#include "transport.h"

extern const struct ib_device_ops vrnic_verbs_ops;

/* Set up / tear down the per-device object tables (main.c calls these). */
void vrnic_verbs_init(struct vrnic_dev *vdev);
void vrnic_verbs_cleanup(struct vrnic_dev *vdev);

/* struct vrnic_pd and struct vrnic_ucontext live in vrnic.h (main.c). */

/* ------------------------------------------------------------------ AH */

/**
 * struct vrnic_ah - address handle
 * @ibah: core object
 * @av: the resolved address in the rxe ABI form (the same struct librxe
 *	puts in UD WQEs for kernels without AH numbers)
 * @ah_num: index in vrnic_dev.ah_xa, given to librxe in
 *	rxe_create_ah_resp.ah_num and carried in its UD WQEs
 *	(rxe_send_wr.wr.ud.ah_num); 0 for kernel AHs
 *
 * Immutable after create_ah.  Freed by ib_core after destroy_ah, so
 * lookups by number copy @av under RCU (vrnic_ah_get_av()).
 */
struct vrnic_ah {
	struct ib_ah ibah;
	struct rxe_av av;
	u32 ah_num;
};

static inline struct vrnic_ah *to_vah(struct ib_ah *ibah)
{
	return container_of(ibah, struct vrnic_ah, ibah);
}

int vrnic_av_from_attr(struct rxe_av *av, const struct rdma_ah_attr *attr);

/**
 * vrnic_ah_get_av - copy the address of a user AH by number
 * @qp: the UD/GSI QP sending (the AH must belong to its PD)
 * @ah_num: rxe_send_wr.wr.ud.ah_num from a user WQE
 * @av: result
 *
 * Return: 0, or -EINVAL for an unknown AH or one of another PD.  Any
 * context.
 */
int vrnic_ah_get_av(struct vrnic_qp *qp, u32 ah_num, struct rxe_av *av);

/* ------------------------------------------------------------------ CQ */

/**
 * struct vrnic_cq - completion queue
 * @ibcq: core object
 * @lock: protects @q (both sides for kernel CQs, the producer side for
 *	user CQs), @notify and @overflow; taken with IRQs disabled
 * @q: ring of struct ib_uverbs_wc (user CQ) or struct ib_wc (kernel CQ)
 * @is_user: the ring is mapped into a process (librxe polls it)
 * @notify: armed notification, 0, IB_CQ_SOLICITED or IB_CQ_NEXT_COMP
 * @overflow: a completion was lost; IB_EVENT_CQ_ERR was reported
 */
struct vrnic_cq {
	struct ib_cq ibcq;
	spinlock_t lock;
	struct vrnic_queue q;
	bool is_user;
	u8 notify;
	bool overflow;
};

static inline struct vrnic_cq *to_vcq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct vrnic_cq, ibcq);
}

/**
 * vrnic_cq_post - add a completion to a CQ
 * @cq: the CQ
 * @wc: the completion; @wc->qp must be set (its qp_num goes to user CQs)
 * @solicited: the completion is for a solicited event (SE bit)
 *
 * Calls the completion handler if the CQ was armed accordingly.  Any
 * context.  Return: 0, or -ENOSPC if the CQ overflowed (the completion is
 * lost, IB_EVENT_CQ_ERR reported; the caller moves the QP to ERR).
 */
int vrnic_cq_post(struct vrnic_cq *cq, const struct ib_wc *wc, bool solicited);

/* ------------------------------------------------------------ RQ/SRQ */

/**
 * struct vrnic_rq - a receive ring (of a QP or an SRQ)
 * @q: ring of struct rxe_recv_wqe, for user and kernel QPs alike
 * @lock: serialises the producer side for kernel consumers (post_recv)
 *	and, for an SRQ, the consumer side (QPs sharing it); IRQ-safe
 * @max_wr: usable entries
 * @max_sge: SGEs per WQE (never more than VRNIC_RWQE_MAX_SGE)
 */
struct vrnic_rq {
	struct vrnic_queue q;
	spinlock_t lock;
	u32 max_wr;
	u32 max_sge;
};

/**
 * struct vrnic_srq - shared receive queue
 * @ibsrq: core object
 * @rq: the ring; @rq.lock also protects @limit
 * @limit: IB_EVENT_SRQ_LIMIT_REACHED fires once when fewer than @limit
 *	WQEs remain, then the limit disarms (0) until modify_srq re-arms it
 * @srq_num: number given to librxe in rxe_create_srq_resp
 */
struct vrnic_srq {
	struct ib_srq ibsrq;
	struct vrnic_rq rq;
	u32 limit;
	u32 srq_num;
};

static inline struct vrnic_srq *to_vsrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct vrnic_srq, ibsrq);
}

/* ------------------------------------------------------------------ QP */

/**
 * struct vrnic_sq - send queue ring
 * @q: ring of struct rxe_send_wqe followed by the SGEs or inline data,
 *	1 << q.log2_elem_size bytes per slot, for user and kernel QPs alike
 *	(kernel post_send converts ib_send_wr into that format)
 * @lock: serialises kernel post_send (producer side); IRQ-safe
 * @max_wr: usable entries
 * @max_sge: SGEs per WQE
 * @max_inline: inline bytes per WQE
 *
 * The consumer side is the wire's: it copies a slot with
 * vrnic_sq_slot(), validates the copy, and hands the slot back with
 * vrnic_sq_set_cons() once the WQE has completed.
 */
struct vrnic_sq {
	struct vrnic_queue q;
	spinlock_t lock;
	u32 max_wr;
	u32 max_sge;
	u32 max_inline;
};

/**
 * struct vrnic_qp - queue pair
 * @ibqp: core object (ibqp.qp_num is the QPN)
 * @ref: lookup references; the table holds one
 * @released: completed when @ref reaches zero (destroy waits for it)
 * @state_lock: serialises writers of @state and @attr (modify_qp,
 *	vrnic_qp_error()); IRQ-safe.  The data path reads
 *	READ_ONCE(qp->state); the wire mirrors the attributes it needs into
 *	its own state in vrnic_xport_modify().
 * @state: current IBA state
 * @attr: attributes as last applied
 * @pd: protection domain
 * @scq: send CQ
 * @rcq: receive CQ
 * @srq: SRQ, or NULL when the QP has its own @rq
 * @sq: send queue
 * @rq: receive queue (unused with an SRQ)
 * @is_user: queues mapped into a process (librxe)
 * @sig_all: IB_SIGNAL_ALL_WR: every send WQE completes signaled
 * @xport: transport state, owned by the wire
 */
struct vrnic_qp {
	struct ib_qp ibqp;
	refcount_t ref;
	struct completion released;

	spinlock_t state_lock;
	enum ib_qp_state state;
	struct ib_qp_attr attr;

	struct vrnic_pd *pd;
	struct vrnic_cq *scq;
	struct vrnic_cq *rcq;
	struct vrnic_srq *srq;

	struct vrnic_sq sq;
	struct vrnic_rq rq;

	bool is_user;
	bool sig_all;

	struct vrnic_qp_xport xport;
};

static inline struct vrnic_qp *to_vqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct vrnic_qp, ibqp);
}

static inline struct vrnic_dev *vrnic_qp_dev(struct vrnic_qp *qp)
{
	return to_vdev(qp->ibqp.device);
}

/* QPN lookup; NULL if no such QP.  Any context. */
struct vrnic_qp *vrnic_qp_get(struct vrnic_dev *vdev, u32 qpn);
void vrnic_qp_put(struct vrnic_qp *qp);

/* Move to ERR (no flush, see above).  Any context. */
void vrnic_qp_error(struct vrnic_qp *qp);
/* Report an affiliated asynchronous event (IB_EVENT_*) on @qp. */
void vrnic_qp_event(struct vrnic_qp *qp, enum ib_event_type type);

/*
 * Send queue, consumer side (the wire, under its sq_lock).  Indices are
 * ring indices in [0, index_mask].
 */
/* Producer index as published (masked): slots before it are posted. */
static inline u32 vrnic_sq_prod(const struct vrnic_qp *qp)
{
	return vrnic_queue_load_prod(&qp->sq.q);
}

/* Slot @idx; a user ring slot may change under us: copy, then validate. */
static inline const struct rxe_send_wqe *vrnic_sq_slot(const struct vrnic_qp *qp,
							u32 idx)
{
	return vrnic_queue_slot(&qp->sq.q, idx);
}

/* Bytes per slot (rxe_send_wqe header plus SGEs or inline data). */
static inline size_t vrnic_sq_slot_size(const struct vrnic_qp *qp)
{
	return (size_t)1 << qp->sq.q.log2_elem_size;
}

/* Hand slots before @idx back to the producer (oldest uncompleted). */
static inline void vrnic_sq_set_cons(struct vrnic_qp *qp, u32 idx)
{
	qp->sq.q.cons = idx & qp->sq.q.index_mask;
	smp_store_release(&qp->sq.q.buf->consumer_index, qp->sq.q.cons);
}

/**
 * vrnic_rq_pop - take the next receive WQE of a QP (its RQ or its SRQ)
 * @qp: the QP
 * @out: the copy; the ring slot is released at once
 *
 * The copy is validated: num_sge <= max_sge, the length is the sum of
 * the SGE lengths (lkeys are checked when data is placed).  Taking a
 * WQE from an SRQ may fire IB_EVENT_SRQ_LIMIT_REACHED.  Call under the
 * wire's rq_lock.
 * Return: 0; -ENOENT if none is posted (RNR); -EINVAL if the WQE is
 * malformed (it is consumed; @out->wr_id is valid: complete it with
 * IB_WC_LOC_QP_OP_ERR and move the QP to ERR).
 */
int vrnic_rq_pop(struct vrnic_qp *qp, struct vrnic_rwqe *out);

/*
 * Complete every WQE still posted on the QP's own RQ (not an SRQ) with
 * IB_WC_WR_FLUSH_ERR.  The wire flushes the WQE it holds itself first.
 */
void vrnic_rq_flush(struct vrnic_qp *qp);

/* ------------------------------------------------------------------ MR */

enum vrnic_mr_type {
	VRNIC_MR_DMA,		/* get_dma_mr: iova is a kernel virtual address */
	VRNIC_MR_USER,		/* reg_user_mr: pinned user pages */
	VRNIC_MR_FAST,		/* alloc_mr + map_mr_sg + IB_WR_REG_MR */
};

enum vrnic_mr_state {
	VRNIC_MR_INVALID,	/* fast-reg MR not (or no longer) registered */
	VRNIC_MR_VALID,
};

/**
 * struct vrnic_mr - memory region
 * @ibmr: core object; ibmr.lkey == ibmr.rkey == key
 * @ref: lookup references; the table holds one
 * @released: completed when @ref reaches zero (dereg waits for it)
 * @type: enum vrnic_mr_type
 * @state: enum vrnic_mr_state; changed only by the wire through
 *	vrnic_mr_fast_reg()/vrnic_mr_invalidate(); store-release, lookups
 *	load-acquire it
 * @access: IB_ACCESS_* flags granted
 * @iova: first valid I/O virtual address
 * @length: bytes
 * @umem: pinned user memory (VRNIC_MR_USER)
 * @pages: the pinned pages in order (VRNIC_MR_USER)
 * @npages: entries in @pages / capacity of @page_list
 * @offset: offset of @iova in the first page (VRNIC_MR_USER)
 * @page_list: kernel virtual addresses of the blocks (VRNIC_MR_FAST)
 * @nbuf: blocks mapped by map_mr_sg (VRNIC_MR_FAST)
 * @page_shift: log2 of the block size (VRNIC_MR_FAST)
 *
 * @iova/@length/@access/@page_list of a fast-reg MR change only while it
 * is INVALID (IBA 10.6.3.4).
 */
struct vrnic_mr {
	struct ib_mr ibmr;
	refcount_t ref;
	struct completion released;
	u8 type;
	u8 state;
	int access;
	u64 iova;
	u64 length;
	struct ib_umem *umem;
	struct page **pages;
	u32 npages;
	u32 offset;
	u64 *page_list;
	u32 nbuf;
	u32 page_shift;
};

static inline struct vrnic_mr *to_vmr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct vrnic_mr, ibmr);
}

enum vrnic_copy_dir {
	VRNIC_TO_MR,		/* write into the MR (responder WRITE/SEND) */
	VRNIC_FROM_MR,		/* read from the MR (requester gather) */
};

/**
 * vrnic_mr_get - look up and check an MR for an access
 * @pd: PD the accessing QP belongs to
 * @key: lkey (local access) or rkey (remote access)
 * @iova: first byte accessed
 * @length: bytes accessed (0 is allowed and only checks key/PD/access)
 * @access: IB_ACCESS_* bits needed: 0 for a local read,
 *	IB_ACCESS_LOCAL_WRITE, IB_ACCESS_REMOTE_READ/WRITE/ATOMIC
 *
 * Return: the MR with a reference (drop with vrnic_mr_put()), or
 * ERR_PTR(-EINVAL) for an unknown/invalidated key or wrong PD,
 * ERR_PTR(-EACCES) for missing access rights, ERR_PTR(-ERANGE) when the
 * range is not inside the MR.  Any context.
 */
struct vrnic_mr *vrnic_mr_get(struct vrnic_pd *pd, u32 key, u64 iova,
			      u64 length, int access);
void vrnic_mr_put(struct vrnic_mr *mr);

/* Copy @len bytes at @iova (inside @mr, already checked) to/from @buf. */
void vrnic_mr_copy(struct vrnic_mr *mr, u64 iova, void *buf, u32 len,
		   enum vrnic_copy_dir dir);

/*
 * 64-bit atomic at @iova (checked by vrnic_mr_get() with
 * IB_ACCESS_REMOTE_ATOMIC): compare-and-swap when @cmp_swap, else
 * fetch-and-add of @cmp_add.  The original value goes to @orig.
 * Return: 0, or -EINVAL if @iova is not 8-byte aligned.
 */
int vrnic_mr_atomic(struct vrnic_mr *mr, u64 iova, bool cmp_swap,
		    u64 cmp_add, u64 swap, u64 *orig);

/**
 * vrnic_sge_copy - move data between @buf and a WQE's SGE list
 * @pd: the QP's PD (lkeys are checked against it)
 * @sge: the SGEs (a validated copy)
 * @num_sge: number of SGEs
 * @offset: position in the message (bytes before this one are skipped)
 * @buf: kernel buffer
 * @len: bytes
 * @dir: VRNIC_TO_MR scatters @buf into the SGEs (needs LOCAL_WRITE),
 *	VRNIC_FROM_MR gathers from them
 *
 * Any context.  Return: 0; -EINVAL/-EACCES/-ERANGE for a bad lkey or
 * SGE (the wire completes with IB_WC_LOC_PROT_ERR); -ENOSPC if the SGEs
 * end before @offset + @len (IB_WC_LOC_LEN_ERR).
 */
int vrnic_sge_copy(struct vrnic_pd *pd, const struct rxe_sge *sge,
		   u32 num_sge, u32 offset, void *buf, u32 len,
		   enum vrnic_copy_dir dir);

/*
 * Fast registration and invalidation, executed in order by the wire.
 * IB_WR_REG_MR (kernel consumers only) sits in the SQ ring as an
 * rxe_send_wqe with opcode IB_WR_REG_MR and wr.mw filled in:
 * mr_lkey = the MR's key when posted, rkey = the new key,
 * access = IB_ACCESS_* flags, addr/length = iova/length of the mapping;
 * the requester calls vrnic_mr_fast_reg(qp, &wqe->wr).
 * IB_WR_LOCAL_INV (requester, ex.invalidate_rkey) and the rkey of an
 * incoming SEND_WITH_INV (responder) -> vrnic_mr_invalidate(qp, key).
 * Return 0 or -EINVAL (wrong key, PD, or state): the wire completes the
 * WQE with IB_WC_MW_BIND_ERR / IB_WC_LOC_PROT_ERR, or NAKs the
 * SEND_WITH_INV with a remote operation error.
 */
int vrnic_mr_fast_reg(struct vrnic_qp *qp, const struct rxe_send_wr *wr);
int vrnic_mr_invalidate(struct vrnic_qp *qp, u32 key);

#endif /* VRNIC_VERBS_H */
