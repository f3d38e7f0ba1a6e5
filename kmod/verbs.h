/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic: verbs objects (PD, AH, CQ, SRQ, QP, MR, MW) and the interface the
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
 * - Hooks the wire implements.  The first four are called in process
 *   context with no spinlock held and may sleep; modify and stop run
 *   under qp->modify_mutex (so they never race each other), init and
 *   destroy under no verbs lock:
 *     vrnic_xport_init(qp): at create_qp, after the queues exist.  Failure
 *       fails create_qp.
 *     vrnic_xport_modify(qp, attr, mask): after modify_qp validated @attr
 *       and applied it to qp->attr / qp->state (so the wire reads the new
 *       values from the QP).  Failure moves the QP to ERR and fails
 *       modify_qp.
 *     vrnic_xport_stop(qp): at modify_qp to RESET, before anything is
 *       reset; stops timers and work synchronously (lifetime rule in
 *       transport.h).
 *     vrnic_xport_destroy(qp): at destroy_qp, after the QP left the QPN
 *       table and every lookup reference was dropped; stops timers and
 *       work synchronously, frees transport state.  The wire never
 *       touches @qp afterwards.
 *     vrnic_req_doorbell(qp, streams): doorbell, the SQ may have new
 *       WQEs (kernel post_send, or librxe's post_send command); @streams
 *       lets the requester run on another CPU (transport.h).  Any
 *       context, may be called with IRQs off; must not sleep.
 * - Work queues: verbs copies every WQE out of the (possibly user
 *   mapped) ring into kernel memory and validates the copy before the
 *   wire sees it: struct vrnic_send_wqe from vrnic_sq_get(), struct
 *   vrnic_recv_wqe from vrnic_rq_get().
 * - Flushing (IBA 10.3.1, 11.6.2): entering ERR, by modify_qp or by
 *   vrnic_qp_error(), only changes the state (modify_qp then calls
 *   vrnic_xport_modify() so the wire learns of it).  The wire, from its
 *   own context once it has stopped using the queues, calls
 *   vrnic_sq_flush() and vrnic_rq_flush(), which complete every
 *   outstanding WQE with IB_WC_WR_FLUSH_ERR; it does so again whenever
 *   it is kicked while the QP is in ERR (user space may keep posting).
 *   Kernel post_recv in ERR queues the wire's resp_work, which flushes
 *   the RQ (ib_drain_rq() depends on it).  For a QP on an SRQ, verbs
 *   reports IB_EVENT_QP_LAST_WQE_REACHED when modify_qp enters ERR.
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
#include <rdma/ib_umem.h>

#include "vrnic.h"
#include "queue.h"
#include "transport.h"

struct vrnic_qp;

extern const struct ib_device_ops vrnic_verbs_ops;

/* Set up / tear down the per-device object tables (main.c calls these). */
void vrnic_verbs_init(struct vrnic_dev *vdev);
void vrnic_verbs_cleanup(struct vrnic_dev *vdev);

/* struct vrnic_pd and struct vrnic_ucontext live in vrnic.h (main.c). */

/* ------------------------------------------------------------------ AH */

/**
 * struct vrnic_av - a resolved address vector, everything the wire needs
 * to build the Ethernet/IP/UDP headers of a packet
 * @network_type: RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6
 * @dmac: destination MAC (from the AH / QP path, resolved by ib_core)
 * @sgid_index: source GID table index
 * @hop_limit: IP TTL / hop limit
 * @traffic_class: IP TOS / traffic class
 * @sl: service level: the 802.1p priority of the path (ib_core and
 *	rdma_cm derive it from the TOS for RoCE), used unless the device
 *	trusts DSCP (cc.c)
 * @flow_label: IPv6 flow label
 * @sgid: source GID
 * @dgid: destination GID
 * @saddr: source address as a socket address (port 0)
 * @daddr: destination address as a socket address (port 0)
 * @ifindex: the netdev of the source GID, which packets leave through:
 *	the bound netdev, or a VLAN device on it (ib_core gives a device
 *	bound to a real netdev the GIDs of its VLANs' addresses; routing
 *	through the VLAN device tags the packets and maps skb->priority to
 *	the PCP).  0: the bound netdev
 *
 * Immutable once built; copied by value into WQEs and QPs.
 */
struct vrnic_av {
	u8 network_type;
	u8 dmac[ETH_ALEN];
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u8 sl;
	u32 flow_label;
	union ib_gid sgid;
	union ib_gid dgid;
	union {
		struct sockaddr_in in4;
		struct sockaddr_in6 in6;
	} saddr, daddr;
	int ifindex;
};

/**
 * struct vrnic_ah - address handle
 * @ibah: core object
 * @av: resolved address
 * @ah_num: index in vrnic_dev.ah_xa, given to librxe in
 *	rxe_create_ah_resp.ah_num and carried in its UD WQEs; 0 for kernel AHs
 *
 * Immutable after create_ah.  ib_core frees it after destroy_ah, so
 * lookups by number copy @av under the xarray lock.
 */
struct vrnic_ah {
	struct ib_ah ibah;
	struct vrnic_av av;
	u32 ah_num;
};

static inline struct vrnic_ah *to_vah(struct ib_ah *ibah)
{
	return container_of(ibah, struct vrnic_ah, ibah);
}

int vrnic_av_from_attr(struct vrnic_av *av, const struct rdma_ah_attr *attr);
int vrnic_ah_copy_av(struct vrnic_qp *qp, u32 ah_num, struct vrnic_av *av);

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
	spinlock_t lock;		/* see above */
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

/* ------------------------------------------------------------ WQEs */

/**
 * struct vrnic_dma - scatter/gather list of a WQE and the cursor in it
 * @length: total bytes of the WR (sum of SGE lengths, or inline bytes)
 * @resid: bytes not yet transferred
 * @cur_sge: index of the SGE the cursor is in
 * @num_sge: number of SGEs (0 for inline data)
 * @sge_offset: offset of the cursor inside @sge[@cur_sge]
 * @reserved: padding
 * @sge: the SGEs, validated count, lkeys not yet checked
 * @inline_data: inline payload (IB_SEND_INLINE), @length bytes
 *
 * The cursor fields belong to whoever consumes the WQE (the wire) and are
 * advanced by vrnic_dma_copy().
 */
struct vrnic_dma {
	u32 length;
	u32 resid;
	u32 cur_sge;
	u32 num_sge;
	u32 sge_offset;
	u32 reserved;
	union {
		DECLARE_FLEX_ARRAY(struct ib_sge, sge);
		DECLARE_FLEX_ARRAY(u8, inline_data);
	};
};

struct vrnic_mr;

/*
 * ATOMIC WRITE (IBTA 1.5): user QPs only.  Linux 6.1's ib_verbs.h predates
 * it; these are the uverbs ABI values librxe (rdma-core >= 43) uses:
 * IB_UVERBS_WR_ATOMIC_WRITE, IB_UVERBS_WC_ATOMIC_WRITE and the
 * IB_UVERBS_DEVICE_ATOMIC_WRITE bit of device_cap_flags_ex.
 */
#define VRNIC_WR_ATOMIC_WRITE		15
#define VRNIC_WC_ATOMIC_WRITE		9
#define VRNIC_DEVICE_ATOMIC_WRITE	BIT_ULL(40)

/**
 * struct vrnic_send_wqe - a send WQE as the wire sees it (kernel memory)
 * @wr_id: returned in the completion
 * @opcode: enum ib_wr_opcode (the IB_UVERBS_WR_* values librxe writes are
 *	the same numbers)
 * @send_flags: IB_SEND_* flags
 * @ex: immediate data (big endian) or the rkey to invalidate
 * @wr: opcode-specific part; @wr.ud.av is the resolved address for UD/GSI
 *	(copied, so destroying the AH cannot affect a posted WQE);
 *	@wr.reg is IB_WR_REG_MR from kernel consumers; @wr.mw is
 *	IB_WR_BIND_MW from librxe (struct rxe_send_wr's mw member);
 *	@wr.rdma.atomic_wr holds the 8 bytes of a VRNIC_WR_ATOMIC_WRITE as
 *	they are in memory
 * @status: IB_WC_SUCCESS, or the error verbs found validating the WQE
 *	(IB_WC_LOC_QP_OP_ERR, IB_WC_LOC_LEN_ERR): the wire then must not
 *	execute it but complete it with @status and move the QP to ERR
 * @xport: transport state, owned by the wire (zeroed by verbs)
 * @dma: data segment; must be last
 */
struct vrnic_send_wqe {
	u64 wr_id;
	u32 opcode;
	u32 send_flags;
	union {
		__be32 imm_data;
		u32 invalidate_rkey;
	} ex;
	union {
		struct {
			u64 remote_addr;
			u32 rkey;
			u8 atomic_wr[8];
		} rdma;
		struct {
			u64 remote_addr;
			u64 compare_add;
			u64 swap;
			u32 rkey;
		} atomic;
		struct {
			u32 remote_qpn;
			u32 remote_qkey;
			u16 pkey_index;
			struct vrnic_av av;
		} ud;
		struct {
			struct vrnic_mr *mr;
			u32 key;
			int access;
		} reg;
		struct {
			u64 addr;
			u64 length;
			u32 mr_lkey;
			u32 mw_rkey;
			u32 rkey;
			u32 access;
		} mw;
	} wr;
	u32 status;
	struct vrnic_wqe_xport xport;
	struct vrnic_dma dma;
};

/**
 * struct vrnic_recv_wqe - a receive WQE as the wire sees it (kernel copy)
 * @wr_id: returned in the completion
 * @status: IB_WC_SUCCESS, or IB_WC_LOC_QP_OP_ERR for a malformed WQE (the
 *	wire completes it with that status and moves the QP to ERR)
 * @reserved: padding
 * @dma: the SGEs and cursor; must be last
 */
struct vrnic_recv_wqe {
	u64 wr_id;
	u32 status;
	u32 reserved;
	struct vrnic_dma dma;
};

/* ------------------------------------------------------------ RQ/SRQ */

/**
 * struct vrnic_rq - a receive ring (of a QP or an SRQ)
 * @q: ring of struct rxe_recv_wqe, for user and kernel consumers alike
 * @lock: serialises the producer side for kernel consumers (post_recv)
 *	and, for an SRQ, the consumer side (QPs sharing it); IRQ-safe
 * @max_wr: usable entries
 * @max_sge: SGEs per WQE
 */
struct vrnic_rq {
	struct vrnic_queue q;
	spinlock_t lock;		/* see above */
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
 * struct vrnic_sq - send queue
 * @q: the ring: struct rxe_send_wqe slots written by librxe for user QPs;
 *	for kernel QPs post_send writes struct vrnic_send_wqe directly
 * @wqes: kernel copies, one slot each of 1 << @log2_wqe_size bytes; for a
 *	kernel QP this is the ring itself
 * @log2_wqe_size: slot size of @wqes
 * @fetch: next slot to copy from the ring into @wqes
 * @lock: serialises kernel post_send (producer side); IRQ-safe
 * @max_wr: usable entries
 * @max_sge: SGEs per WQE
 * @max_inline: inline bytes per WQE
 *
 * Consumer positions: @q.cons is the oldest WQE not yet retired
 * (vrnic_sq_retire()), @fetch is the end of the copied WQEs; the wire
 * keeps its own positions between the two (or == @fetch).
 */
struct vrnic_sq {
	struct vrnic_queue q;
	void *wqes;
	u32 log2_wqe_size;
	u32 fetch;
	spinlock_t lock;		/* see above */
	u32 max_wr;
	u32 max_sge;
	u32 max_inline;
};

/**
 * struct vrnic_qp - queue pair
 * @ibqp: core object (ibqp.qp_num is the QPN)
 * @ref: lookup references; the table holds one
 * @released: completed when @ref reaches zero (destroy waits for it)
 * @modify_mutex: serialises modify_qp (which calls into the wire)
 * @state_lock: serialises writers of @state and @attr (modify_qp,
 *	vrnic_qp_error()); IRQ-safe.  The data path reads
 *	READ_ONCE(qp->state); modify_qp writes @attr and @av also holding
 *	both engine locks, under either of which the engines read them
 *	("Path attributes" in transport.h).
 * @state: current IBA state
 * @attr: attributes as last applied (ah_attr.grh.sgid_attr is NULL)
 * @av: primary path for RC/UC, from IB_QP_AV
 * @pd: protection domain
 * @scq: send CQ
 * @rcq: receive CQ
 * @srq: SRQ, or NULL when the QP has its own @rq
 * @sq: send queue
 * @rq: receive queue (unused with an SRQ)
 * @rwqe: receive WQE the responder currently holds, or NULL
 * @rwqe_buf: storage for @rwqe (max_sge SGEs)
 * @is_user: queues mapped into a process (librxe)
 * @sig_all: IB_SIGNAL_ALL_WR: every send WQE completes signaled
 * @xport: transport state, owned by the wire
 */
struct vrnic_qp {
	struct ib_qp ibqp;
	refcount_t ref;
	struct completion released;

	struct mutex modify_mutex;	/* see above */
	spinlock_t state_lock;		/* see above */
	enum ib_qp_state state;
	struct ib_qp_attr attr;
	struct vrnic_av av;

	struct vrnic_pd *pd;
	struct vrnic_cq *scq;
	struct vrnic_cq *rcq;
	struct vrnic_srq *srq;

	struct vrnic_sq sq;
	struct vrnic_rq rq;
	struct vrnic_recv_wqe *rwqe;
	struct vrnic_recv_wqe *rwqe_buf;

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
bool vrnic_qp_owned_by(struct vrnic_qp *qp, kuid_t uid);

/* Move to ERR (no flush, see above).  Any context. */
void vrnic_qp_error(struct vrnic_qp *qp);
/* Report an affiliated asynchronous event (IB_EVENT_*) on @qp. */
void vrnic_qp_event(struct vrnic_qp *qp, enum ib_event_type type);

/* sq.c: the send queue's ring, created and freed with its QP. */
int vrnic_sq_init(struct vrnic_qp *qp, const struct ib_qp_cap *cap,
		  struct ib_udata *udata, struct mminfo *mi);
void vrnic_sq_free(struct vrnic_qp *qp);
/*
 * Send queue, consumer side (the wire, serialised per QP).  Positions are
 * ring indices in [0, index_mask]; step with vrnic_sq_next().
 * vrnic_sq_get(): the WQE at @pos, copying and validating it from the
 * user ring if @pos == sq.fetch; NULL if nothing is posted at @pos (or
 * @pos is outside [q.cons, fetch]).
 */
struct vrnic_send_wqe *vrnic_sq_get(struct vrnic_qp *qp, u32 pos);
/*
 * Retire @wqe, the WQE at q.cons, then post its completion with @status
 * to the send CQ when one is due: the WQE is signaled, the QP signals
 * all, or @status is an error.
 * Return: 0 or -ENOSPC (CQ overflow).
 */
int vrnic_sq_complete(struct vrnic_qp *qp, struct vrnic_send_wqe *wqe,
		      enum ib_wc_status status);
/* Complete every unretired WQE with IB_WC_WR_FLUSH_ERR and retire it. */
void vrnic_sq_flush(struct vrnic_qp *qp);

static inline u32 vrnic_sq_next(const struct vrnic_qp *qp, u32 pos)
{
	return vrnic_queue_next(&qp->sq.q, pos);
}

static inline u32 vrnic_sq_cons(const struct vrnic_qp *qp)
{
	return qp->sq.q.cons;
}

/* WQEs the process has posted and the kernel not retired: [cons, prod). */
static inline u32 vrnic_sq_posted(const struct vrnic_qp *qp)
{
	return (vrnic_queue_load_prod(&qp->sq.q) - qp->sq.q.cons) &
	       qp->sq.q.index_mask;
}

/*
 * Receive side (the wire's responder, serialised per QP).
 * vrnic_rq_get() returns the WQE the QP holds (qp->rwqe), taking the
 * next one from the RQ or SRQ if it holds none: the ring slot is
 * released at once (an SRQ WQE belongs to this QP from then on, and the
 * SRQ limit event may fire).  NULL when no WQE is posted (RNR).
 * vrnic_rq_done() drops the held WQE after its completion was posted.
 * vrnic_rq_flush() completes the held WQE and, without an SRQ, every
 * posted one with IB_WC_WR_FLUSH_ERR.
 */
struct vrnic_recv_wqe *vrnic_rq_get(struct vrnic_qp *qp);
void vrnic_rq_done(struct vrnic_qp *qp);
void vrnic_rq_flush(struct vrnic_qp *qp);
void vrnic_qp_reset_queues(struct vrnic_qp *qp);

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
 * @rcu: frees the struct a grace period after dereg: vrnic_mr_find()
 *	looks up under RCU, and a lookup that found the MR just before
 *	dereg removed it may still try to take a reference
 * @num_mw: memory windows bound to the MR; dereg fails with -EBUSY while
 *	non-zero (incremented under the mr_xa lock, see mw.c)
 * @key: the current key (lkey == rkey); a kernel consumer changes
 *	ibmr.lkey/rkey itself before posting IB_WR_REG_MR, so lookups
 *	compare against this copy, updated when the REG_MR executes
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
 * @offset: offset of @iova in the first page (of @pages, or of
 *	@page_list blocks as mapped by map_mr_sg)
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
	struct rcu_head rcu;
	atomic_t num_mw;
	u32 key;
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

/*
 * ATOMIC WRITE of the 8 bytes @data at @iova (checked by vrnic_mr_get()
 * with IB_ACCESS_REMOTE_WRITE): one store, atomic with respect to the
 * other atomics and never seen torn.
 * Return: 0, or -EINVAL if @iova is not 8-byte aligned.
 */
int vrnic_mr_atomic_write(struct vrnic_mr *mr, u64 iova, const u8 *data);

/**
 * vrnic_dma_copy - move data between @buf and a WQE's SGE list
 * @pd: the QP's PD (lkeys are checked against it)
 * @dma: the WQE's data segment; its cursor advances by @len
 * @buf: kernel buffer
 * @len: bytes; must not exceed @dma->resid
 * @dir: VRNIC_TO_MR scatters @buf into the SGEs (needs LOCAL_WRITE),
 *	VRNIC_FROM_MR gathers from them
 *
 * Inline WQEs (num_sge == 0) are served from @dma->inline_data at
 * offset length - resid.  Any context.
 * Return: 0, -EINVAL/-EACCES/-ERANGE for a bad lkey (the wire completes
 * with IB_WC_LOC_PROT_ERR), -ENOSPC if @len > resid (IB_WC_LOC_LEN_ERR).
 */
int vrnic_dma_copy(struct vrnic_pd *pd, struct vrnic_dma *dma, void *buf,
		   u32 len, enum vrnic_copy_dir dir);

/*
 * Zero-copy transmit (mr.c): a packet's payload as fragments that hold
 * references to the MR's pages, which stay alive until the skb is freed.
 * vrnic_dma_lend() is vrnic_dma_copy(VRNIC_FROM_MR) for a non-inline WQE,
 * vrnic_mr_lend() the same for one checked MR range; both take at most a
 * page and need two free fragments per MR range.  vrnic_skb_add_tail()
 * then appends the pad and the ICRC's room.
 */
int vrnic_dma_lend(struct vrnic_pd *pd, struct vrnic_dma *dma, u32 len,
		   struct sk_buff *skb);
int vrnic_mr_lend(struct vrnic_mr *mr, u64 iova, u32 len,
		  struct sk_buff *skb);
int vrnic_skb_add_tail(struct sk_buff *skb, u32 pad);

/* Place @dma's cursor @off bytes in (at most its length). */
void vrnic_dma_seek(struct vrnic_dma *dma, u32 off);

/*
 * Fast registration and invalidation, executed in order by the wire:
 * IB_WR_REG_MR (requester, kernel QPs only) -> vrnic_mr_fast_reg(qp,
 * wqe); IB_WR_LOCAL_INV (requester, ex.invalidate_rkey) and the rkey of
 * an incoming SEND_WITH_INV (responder) -> vrnic_mr_invalidate(qp, key).
 * Return 0 or -EINVAL (wrong key, PD, or state): the wire completes the
 * WQE with IB_WC_MW_BIND_ERR / IB_WC_LOC_PROT_ERR, or NAKs the
 * SEND_WITH_INV with a remote operation error.
 */
int vrnic_mr_fast_reg(struct vrnic_qp *qp, struct vrnic_send_wqe *wqe);
int vrnic_mr_invalidate(struct vrnic_qp *qp, u32 key);

/*
 * Remote access (responder): the rkey names an MR or a memory window.
 * Same return values as vrnic_mr_get(); for a window the MR it is bound
 * to is returned, checked against the window's range and rights.
 */
struct vrnic_mr *vrnic_rkey_get(struct vrnic_qp *qp, u32 key, u64 iova,
				u64 length, int access);

/* Window bindings counted on an MR (mw.c); see struct vrnic_mr. */
int vrnic_mr_bind_mw(struct vrnic_mr *mr);
void vrnic_mr_unbind_mw(struct vrnic_mr *mr);

/* ------------------------------------------------------------------ MW */

/* Tag of a window's entry in vrnic_dev.mr_xa (MR entries are untagged). */
#define VRNIC_KEY_TAG_MW	1

enum vrnic_mw_state {
	VRNIC_MW_FREE,		/* allocated, not bound (or invalidated) */
	VRNIC_MW_VALID,		/* bound to an MR */
};

/**
 * struct vrnic_mw - memory window (IBA 10.6.7), type 1 or type 2B
 * @ibmw: core object; ibmw.rkey is the key at allocation
 * @ref: lookup references; the table holds one
 * @released: completed when @ref reaches zero (dealloc waits for it)
 * @lock: protects the fields below; IRQ-safe
 * @key: the current rkey (the key byte changes with each bind)
 * @state: enum vrnic_mw_state
 * @access: IB_ACCESS_REMOTE_* rights the window grants
 * @qpn: type 2: the QP the window is bound to (the only QP that may use
 *	or invalidate it)
 * @addr: first byte of the window, in the MR's address space
 * @length: bytes
 * @mr: the MR the window is bound to (counted in its @num_mw), or NULL
 */
struct vrnic_mw {
	struct ib_mw ibmw;
	refcount_t ref;
	struct completion released;
	spinlock_t lock;		/* see above */
	u32 key;
	u8 state;
	int access;
	u32 qpn;
	u64 addr;
	u64 length;
	struct vrnic_mr *mr;
};

static inline struct vrnic_mw *to_vmw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct vrnic_mw, ibmw);
}

/*
 * Executed by the wire: IB_WR_BIND_MW (requester) -> vrnic_mw_bind(),
 * 0 or a negative errno (the WQE completes with IB_WC_MW_BIND_ERR).
 * vrnic_mw_invalidate() returns -ENOENT when @key names no window (used
 * by vrnic_mr_invalidate()); vrnic_mw_get() likewise (vrnic_rkey_get()).
 */
int vrnic_mw_bind(struct vrnic_qp *qp, struct vrnic_send_wqe *wqe);
int vrnic_mw_invalidate(struct vrnic_qp *qp, u32 key);
struct vrnic_mr *vrnic_mw_get(struct vrnic_qp *qp, u32 key, u64 iova,
			      u64 length, int access);

/* ---------------------------------------- ib_device_ops (verbs.c) */

int vrnic_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void vrnic_mmap_free(struct rdma_user_mmap_entry *rdma_entry);

int vrnic_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		    struct ib_udata *udata);
int vrnic_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int vrnic_destroy_ah(struct ib_ah *ibah, u32 flags);

int vrnic_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata);
int vrnic_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int vrnic_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int vrnic_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int vrnic_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

int vrnic_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int vrnic_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int vrnic_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int vrnic_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int vrnic_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);
int vrnic_rq_init(struct vrnic_rq *rq, u32 max_wr, u32 max_sge,
		  struct ib_udata *udata, struct mminfo *mi);
int vrnic_rq_take(struct vrnic_rq *rq, struct vrnic_recv_wqe *out);
int vrnic_srq_take(struct vrnic_srq *srq, struct vrnic_recv_wqe *out);
int vrnic_rq_post(struct vrnic_rq *rq, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);

int vrnic_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int vrnic_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int vrnic_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int vrnic_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int vrnic_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int vrnic_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

struct ib_mr *vrnic_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *vrnic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
struct ib_mr *vrnic_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int vrnic_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
int vrnic_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

int vrnic_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int vrnic_dealloc_mw(struct ib_mw *ibmw);

#endif /* VRNIC_VERBS_H */
