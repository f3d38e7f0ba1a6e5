/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic: per-QP RoCEv2 transport state and the wire engine's entry points.
 *
 * Execution model (details in docs/wire.md):
 *  - requester: runs inline in the doorbell (post_send) and in the
 *    completer when an ACK opens the window, under @sq_lock taken with
 *    trylock; a caller that finds the lock busy leaves a "kick" bit that
 *    the holder honours before it leaves, so no doorbell is lost and no
 *    caller ever waits.  Work beyond a packet budget moves to a per-QP
 *    work item on a high-priority per-CPU workqueue, and so does, on
 *    another CPU, the run of a doorbell for a stream of one-packet
 *    unsignaled WQEs (vrnic_req_doorbell()).
 *  - completer: inline in the receive softirq, under @sq_lock.
 *  - responder: inline in the receive softirq, under @rq_lock.  Long READ
 *    responses continue on the per-QP responder work item; packets that
 *    arrive meanwhile queue behind it so the responder stays in order.
 */
#ifndef VRNIC_TRANSPORT_H
#define VRNIC_TRANSPORT_H

#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "cc.h"
#include "hdr.h"

struct vrnic_qp;
struct vrnic_dev;
struct vrnic_mr;

/*
 * Per-QP counters.  Each field has exactly one writer context, named
 * after the lock it is updated under, so no atomics are needed; the
 * reader (vrnic_qp_values() in counters.c, which names them) sums both
 * halves without locking and may see a value a few packets old.
 */
struct vrnic_qp_stats {
	u64 tx_packets;		/* packets handed to the IP layer */
	u64 tx_bytes;		/* their IB payload bytes */
	u64 rx_packets;		/* packets accepted for this QP */
	u64 rx_bytes;		/* their IB payload bytes */
	u64 retransmits;	/* request packets sent again (go-back-N) */
	u64 timeouts;		/* retransmit timer expirations */
	u64 seq_naks;		/* PSN sequence error NAKs (sent or received) */
	u64 rnr_naks;		/* RNR NAKs (sent or received) */
	u64 dup_requests;	/* duplicate requests answered (responder) */
	u64 access_errors;	/* remote access error NAKs (sent or received) */
	u64 drops;		/* packets of this QP dropped as invalid */
};

/* Send WQE life cycle, in vrnic_wqe_xport.state. */
enum vrnic_wqe_state {
	VRNIC_WQE_SENDING,	/* requester still owes packets */
	VRNIC_WQE_SENT,		/* all packets sent, waiting for the ACK */
	VRNIC_WQE_DONE,		/* nothing to wait for (local op, UD/UC, error) */
};

/**
 * struct vrnic_wqe_xport - transport state of one send WQE
 * @state: enum vrnic_wqe_state
 * @status: enum ib_wc_status to complete with once DONE
 * @rd_atomic: holds one of the max_rd_atomic slots
 * @first_psn: PSN of the first request packet
 * @last_psn: last PSN the WQE uses (READ: of its last response)
 */
struct vrnic_wqe_xport {
	u8 state;
	u8 status;
	u8 rd_atomic;
	u8 rsvd;
	u32 first_psn;
	u32 last_psn;
	u32 ssn;
};

/* Responder resource for one RDMA READ or ATOMIC (IBA 9.7.5.1.2). */
struct vrnic_rdres {
	u8 opcode;		/* READ_REQUEST, CMP_SWAP or FETCH_ADD */
	bool valid;
	u32 first_psn;
	u32 last_psn;
	u32 start_psn;		/* READ: PSN of this (re)execution's FIRST */
	u32 cur_psn;		/* READ: next response PSN to send */
	u32 rkey;
	u64 va;			/* READ: address of the next response */
	u32 resid;		/* READ: bytes still to send */
	u64 orig;		/* ATOMIC: value returned, replayed on dups */
};

/* Bit in vrnic_qp_xport.kick: a requester run was asked for. */
#define VRNIC_XP_KICK	0
/* vrnic_qp_xport.nomem: which engine waits for vrnic_xport_nomem_timer(). */
#define VRNIC_XP_NOMEM_REQ	0
#define VRNIC_XP_NOMEM_RESP	1

/*
 * The responder's last ACK or NAK, refused by the stack, to be sent again
 * by the responder's work item once the pause vrnic_cc_refused() set is
 * over (vrnic_send_ack()).  A later answer replaces it.  @rq_lock.
 */
struct vrnic_refused_ack {
	bool pending;
	u8 syn;
	u8 refusals;		/* in a row */
	u32 psn;
	u32 msn;
};

/*
 * A QP's route: the cached dst, and whether the device its last packet
 * left by takes payload as page fragments (@lend: local delivery, or a
 * device with NETIF_F_SG) and whether that was local delivery (@local,
 * where no ICRC is computed: vrnic_lend_resp_ok()).  A device without
 * scatter-gather would have the stack copy a lent payload into a new
 * linear buffer (validate_xmit_skb()): an allocation and a copy on top of
 * the lending, where building the packet linear costs one copy.  Both are
 * hints that every vrnic_xmit() of the QP writes and the engines read
 * without a lock: a stale value costs one packet that copy or that
 * linearization, never correctness.
 */
struct vrnic_route {
	struct dst_cache dst_cache;
	bool lend;
	bool local;
};

/*
 * A plain ACK the responder gives a requester on this host without a
 * packet, once @rq_lock is dropped (resp.c, vrnic_resp_ack_hold()).
 */
struct vrnic_held_ack {
	struct vrnic_qp *peer;	/* the requester (a reference), or NULL */
	u32 psn;
	u32 msn;
};

/**
 * struct vrnic_qp_xport - per-QP transport state, embedded in vrnic_qp
 *
 * Locking: @sq_lock (BH-safe) protects everything under "send side",
 * @rq_lock (BH-safe) everything under "receive side".  The engines hold
 * one of them at a time.  Only modify_qp and destroy_qp nest them, in
 * the order @sq_lock, @rq_lock, qp->state_lock.  The pacer's
 * @cc.cc_lock nests inside either engine lock and takes no other (cc.h).
 *
 * Kicks: a requester run (doorbell, pacer, timers) sets VRNIC_XP_KICK and
 * only trylocks @sq_lock; if the lock is taken, the holder must run the
 * requester for it.  So every path that takes @sq_lock, except the
 * requester itself, releases it with vrnic_sq_unlock() and runs the
 * requester when that returns true (vrnic_xport_unlock() does so), or
 * runs the requester after unlocking in any case (the RNR timer).
 *
 * Path attributes: everything the engines read of modify_qp's results --
 * the fields under "attributes" below, qp->av and qp->attr -- is written
 * with both @sq_lock and @rq_lock held (vrnic_xport_lock()), so holding
 * either is enough to read them whole: the requester and completer read
 * under @sq_lock, the responder under @rq_lock.  An SQD->SQD change of
 * the path or MTU cannot tear a packet's headers.
 *
 * Lifetime (IBA 10.3.1 RESET, 11.2.4 destroy): the transport state --
 * rings' kernel indices, responder resources, dst cache, timers, work --
 * is reset or freed only once nothing can reach it:
 *  1. destroy_qp removes the QP from the QPN table (no new lookup), drops
 *     the table's reference and waits until every receive path holding
 *     one has returned (vrnic_qp_get() users: packets in softirq, the
 *     netlink counter dump);
 *  2. vrnic_xport_stop() sets @stopped with both locks held, then stops
 *     the timers and cancels the work items synchronously, timers first
 *     (a timer callback may queue work; the work arms timers only under
 *     a lock, after checking @stopped);
 *  3. only then are the transport and the rings reset (modify to RESET,
 *     under the locks) or freed (destroy).
 * While @stopped is set (the QP is in RESET, or being destroyed) every
 * engine entry checks it under its lock and touches nothing, and no path
 * arms a timer or queues work: vrnic_req_arm_timer(),
 * vrnic_req_schedule() and vrnic_resp_schedule() refuse.  Leaving RESET
 * clears it.
 */
struct vrnic_qp_xport {
	/* ---- attributes (modify_qp, both locks held) ---- */
	struct vrnic_route route;	/* route for the QP's path */
	u16 sport;			/* UDP source port (ECMP entropy) */
	u32 mtu;			/* path MTU in bytes */
	bool stopped;			/* RESET or destroy: engines idle */

	/* ---- send side (requester and completer): @sq_lock ---- */
	spinlock_t sq_lock ____cacheline_aligned_in_smp;
	unsigned long kick;		/* VRNIC_XP_KICK: requester run requested */
	/*
	 * Either engine, not only the send side: the engines that could
	 * not allocate a packet, VRNIC_XP_NOMEM_* bits (atomic, set under
	 * the engine's own lock), and the timer that runs them again
	 * (vrnic_xport_nomem_wait()).
	 */
	unsigned long nomem;
	struct timer_list nomem_timer;
	int tx_cpu;			/* CPU that sent the packets in flight */
	int rx_cpu;			/* where a local peer receives them */
	u32 send_idx;			/* SQ slot the requester sends from */
	u32 init_idx;			/* first SQ slot never started */
	u32 send_off;			/* bytes of send_idx already sent */
	u32 req_psn;			/* next request PSN */
	u32 comp_psn;			/* oldest PSN not acknowledged */
	u32 max_psn;			/* one past the highest PSN sent */
	u32 rewind_psn;			/* PSN of the last go-back-N */
	u32 rewind_high;		/*  max_psn when it began */
	bool rewind_unacked;		/*  not all acknowledged yet */
	u32 rd_atomic_out;		/* READ/ATOMIC WQEs outstanding */
	u32 noack_pkts;			/* packets since the last AckReq */
	unsigned long ackreq_jiffies;	/* when the last AckReq went out */
	u32 ackreq_psn;			/* PSN of the last AckReq sent */
	unsigned long ack_timeout;	/* jiffies, from attr.timeout */
	u32 window;			/* PSNs allowed in flight now */
	u32 ssthresh;			/* window: slow start below it */
	u32 window_acked;		/* PSNs acked towards the next +1 */
	u32 recover_psn;		/* no cut before comp_psn gets here */
	u32 sel_psn;			/* selective resend: the PSN resent */
	u32 sel_high;			/*  max_psn when it was resent */
	bool sel_pending;		/*  sel_psn still to be sent */
	bool sel_active;		/*  its answer not seen yet */
	bool sel_timeout;		/*  the retransmit timer's probe */
	u8 gbn_naks;			/* go back N at once on so many NAKs */
	u8 gbn_recheck;			/*  (the peer kept nothing past a gap) */
	bool peer_keeps;		/* it keeps them: see "Loss probe" */
	bool loss_probed;		/* a loss probe since the last progress */
	u32 srtt_us;			/* smoothed round trip, 0: unknown */
	u32 rtt_psn;			/* the AckReq being timed, */
	u64 rtt_ns;			/*  sent then; 0: none */
	u8 retry_left;
	u8 rnr_left;
	bool rnr_wait;			/* RNR timer running */
	bool sq_err;			/* a WQE failed: only flush from now */
	bool sqd_pending;		/* SQD: report SQ_DRAINED when idle */
	u8 refusals;			/* packets the stack refused in a row */
	bool retrans_armed;		/* retransmit timeout running, */
	unsigned long retrans_due;	/*  due then: vrnic_req_arm_timer() */
	struct timer_list retrans_timer;
	struct timer_list rnr_timer;
	struct work_struct req_work;
	struct vrnic_qp_stats sq_stats;

	/* ---- receive side (responder): @rq_lock ---- */
	spinlock_t rq_lock ____cacheline_aligned_in_smp;
	u32 epsn;			/* expected request PSN */
	u32 msn;			/* message sequence number */
	bool in_msg;			/* inside a multi-packet message */
	u32 cur_kind;			/* VRNIC_M_SEND, _WRITE, ... */
	bool nak_sent;			/* sequence NAK outstanding */
	bool ack_deferred;		/* a gap filled: answer after the drain */
	bool resp_busy;			/* work owns the responder */
	int reply_cpu;			/* a local requester's sending CPU */
	bool ack_hold;			/* vrnic_resp_rcv(): ACKs may wait */
	struct vrnic_held_ack held_ack;	/*  the one waiting */
	u32 wr_rkey;			/* WRITE in progress: rkey */
	u64 wr_va;			/*  next address */
	u32 wr_resid;			/*  bytes left */
	u32 wr_len;			/*  total length */
	struct vrnic_rdres *res;	/* max_dest_rd_atomic resources */
	u32 nres;
	u32 res_head;			/* next resource to reuse */
	struct vrnic_rdres *res_cur;	/* READ being streamed, or NULL */
	u8 read_refusals;		/*  its responses refused in a row */
	struct vrnic_refused_ack refused_ack; /* vrnic_send_ack() again */
	struct sk_buff_head backlog;	/* packets waiting behind @res_cur */
	struct sk_buff_head ooo;	/* requests ahead of @epsn, by PSN */
	struct work_struct resp_work;
	struct vrnic_qp_stats rq_stats;

	/* ---- congestion control: NP under @rq_lock, RP under cc_lock ---- */
	struct vrnic_qp_cc cc;
};

/* Whether a request the requester sent awaits its ACK; under @sq_lock. */
static inline bool vrnic_req_in_flight(const struct vrnic_qp_xport *xp)
{
	return vrnic_psn_cmp(xp->max_psn, xp->comp_psn) > 0;
}

/**
 * struct vrnic_pkt - parse results of a received packet, in skb->cb
 * @hdr: start of the BTH
 * @mask: vrnic_opcode[opcode].mask
 * @psn: BTH PSN
 * @paylen: bytes of IB payload (after the headers, before pad and ICRC)
 * @opcode: BTH opcode
 * @family: AF_INET or AF_INET6 of the outer header
 * @from_cpu: for local delivery (xmit.c), the CPU that sent it; -1 for a
 *	packet from a network device
 * @vdev: the device whose budget a held packet is charged to (resp.c)
 */
struct vrnic_pkt {
	struct vrnic_dev *vdev;
	u8 *hdr;
	u32 mask;
	u32 psn;
	u32 paylen;
	u32 payoff;		/* payload offset from skb->data */
	u8 opcode;
	u8 family;
	s16 from_cpu;
};

/* Whether @pkt came by local delivery, not from a network device. */
static inline bool vrnic_pkt_local(const struct vrnic_pkt *pkt)
{
	return pkt->from_cpu >= 0;
}

static inline struct vrnic_pkt *vrnic_pkt(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct vrnic_pkt) > sizeof(skb->cb));
	return (struct vrnic_pkt *)skb->cb;
}

/* Per-QP debug output (dynamic debug: "module vrnic +p"). */
#define vrnic_qp_dbg(qp, fmt, ...)					\
	do {								\
		struct vrnic_qp *__qp = (qp);				\
									\
		ibdev_dbg(__qp->ibqp.device, "qp %u: " fmt,		\
			  __qp->ibqp.qp_num, ##__VA_ARGS__);		\
	} while (0)

/* Hooks called by the verbs layer (qp.c), see verbs.h. */
int vrnic_xport_init(struct vrnic_qp *qp);
int vrnic_xport_modify(struct vrnic_qp *qp, const struct ib_qp_attr *attr,
		       int mask);
void vrnic_xport_stop(struct vrnic_qp *qp);
void vrnic_xport_destroy(struct vrnic_qp *qp);
void vrnic_xport_lock(struct vrnic_qp *qp);
void vrnic_xport_unlock(struct vrnic_qp *qp);
void vrnic_req_kick(struct vrnic_qp *qp);
void vrnic_req_doorbell(struct vrnic_qp *qp, bool streams);
void vrnic_req_schedule(struct vrnic_qp *qp);
bool __must_check vrnic_sq_unlock(struct vrnic_qp *qp)
	__releases(&qp->xport.sq_lock);
void vrnic_resp_schedule(struct vrnic_qp *qp);

/*
 * Unacknowledged PSNs a requester may have in flight; the responder
 * holds as many out-of-order requests per QP (resp.c), so that one loss
 * in a full window costs one resend, not the rest of the window.
 */
#define VRNIC_MAX_INFLIGHT	256

/*
 * Largest RoCEv2 overhead on top of the IB payload: IPv6 (40) + UDP (8) +
 * BTH (12) + the largest extension headers a data packet carries
 * (RETH 16 + ImmDt 4) + ICRC (4).
 */
#define VRNIC_ROCE_HDR_MAX	(40 + 8 + 12 + 16 + 4 + 4)

/* Active MTU: the largest IB MTU whose packets fit the netdev MTU. */
static inline enum ib_mtu vrnic_ndev_active_mtu(struct net_device *ndev)
{
	/* Below 256 bytes (or negative) this still yields IB_MTU_256. */
	return ib_mtu_int_to_enum((int)READ_ONCE(ndev->mtu) -
				  VRNIC_ROCE_HDR_MAX);
}

/* Packets (PSNs) a message of @len bytes takes at @mtu; at least one. */
static inline u32 vrnic_npkts(u32 len, u32 mtu)
{
	return len ? DIV_ROUND_UP(len, mtu) : 1;
}

/* Module init/exit (xport.c, called from main.c). */
int vrnic_wire_init(void);
void vrnic_wire_exit(void);

/* xmit.c */
int vrnic_tx_pools_init(void);
void vrnic_tx_pools_exit(void);

/* icrc.c */
int vrnic_icrc_init(void);
void vrnic_icrc_exit(void);
u32 vrnic_icrc_compute(const struct sk_buff *skb, const u8 *bth, u32 len);
bool vrnic_icrc_ok(const struct sk_buff *skb, const u8 *bth, u32 len);

/* recv.c: a received packet's payload, wherever in the skb it lies */
struct vrnic_pd;
struct vrnic_mr;
struct vrnic_dma;
int vrnic_pkt_to_dma(struct sk_buff *skb, struct vrnic_pd *pd,
		     struct vrnic_dma *dma);
void vrnic_pkt_to_mr(struct sk_buff *skb, struct vrnic_mr *mr, u64 iova);
struct vrnic_qp *vrnic_local_ack_peer(struct vrnic_qp *qp);
void vrnic_local_ack(struct vrnic_qp *peer, u8 syn, u32 psn, u32 msn);
void vrnic_local_ack_put(struct vrnic_qp *peer);

/* xmit.c */
struct vrnic_av;
u16 vrnic_sport(u32 flow_label, u32 src_qpn, u32 dst_qpn);
struct sk_buff *vrnic_skb_alloc(struct vrnic_dev *vdev, u32 len);
bool vrnic_lend_ok(const struct vrnic_route *route, u32 payload,
		   u32 num_sge);
bool vrnic_lend_resp_ok(const struct vrnic_route *route, u32 payload);
bool vrnic_lend_req_ok(const struct vrnic_route *route, u32 payload,
		       u32 num_sge, bool resend);
int vrnic_loop_pick_cpu(bool pipelined);
int vrnic_next_cpu(void);
int vrnic_xmit(struct vrnic_dev *vdev, const struct vrnic_av *av,
	       struct vrnic_route *route, u16 sport, int rx_cpu,
	       struct sk_buff *skb);
bool vrnic_route_local_idle(struct vrnic_dev *vdev, const struct vrnic_av *av,
			    struct vrnic_route *route, int rx_cpu);

/* xport.c */
extern struct workqueue_struct *vrnic_wq;
u32 vrnic_qp_mtu(struct vrnic_qp *qp);
void vrnic_xport_nomem_wait(struct vrnic_qp *qp, int engine);

/* req.c */
bool vrnic_wr_is_wire(u32 opcode);
bool vrnic_wr_is_rd_atomic(u32 opcode);
bool vrnic_wr_has_resp_data(u32 opcode);
bool vrnic_wr_allowed(enum ib_qp_type type, u32 opcode);
void vrnic_req_work(struct work_struct *work);
void vrnic_req_retrans_timer(struct timer_list *t);
void vrnic_req_rnr_timer(struct timer_list *t);
void vrnic_req_rewind(struct vrnic_qp *qp, u32 psn);
void vrnic_req_seq_nak(struct vrnic_qp *qp, u32 psn);
void vrnic_req_sel_ack(struct vrnic_qp *qp, u32 psn);
void vrnic_req_window_grow(struct vrnic_qp *qp, u32 acked);
void vrnic_req_window_cut(struct vrnic_qp *qp);
void vrnic_req_arm_timer(struct vrnic_qp *qp);
void vrnic_req_rtt_sample(struct vrnic_qp *qp);
void vrnic_req_disarm_timer(struct vrnic_qp *qp);
unsigned long vrnic_ack_timeout_jiffies(u8 timeout);
int vrnic_req_fill_res(struct sk_buff *msg, struct vrnic_qp *qp);
void vrnic_req_loss_reset(struct vrnic_qp_xport *xp);
void vrnic_req_cursor_reset(struct vrnic_qp *qp);

/* comp.c */
void vrnic_comp_rcv(struct vrnic_qp *qp, struct sk_buff *skb);
void vrnic_comp_rcv_ack(struct vrnic_qp *qp, struct vrnic_pkt *pkt);
void vrnic_comp_retire(struct vrnic_qp *qp);
void vrnic_comp_sq_drained(struct vrnic_qp *qp);
void vrnic_comp_error(struct vrnic_qp *qp);
void vrnic_comp_fail_head(struct vrnic_qp *qp, enum ib_wc_status st);

/* recv.c */
bool vrnic_rcv_accepts(struct vrnic_qp *qp, struct sk_buff *skb,
		       enum vrnic_counter *reason);

/* resp.c */
void vrnic_resp_rcv(struct vrnic_qp *qp, struct sk_buff *skb);
void vrnic_resp_work(struct work_struct *work);

#endif /* VRNIC_TRANSPORT_H */
