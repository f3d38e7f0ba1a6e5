// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: the requester (IBA 9.7.4, 9.8.2 for UC, 9.8.3 for UD).
 *
 * Turns send WQEs into request packets: segments messages at the path
 * MTU, assigns PSNs, asks for acknowledgments, and goes back to an
 * earlier PSN when the completer or the retransmit timer says so
 * (go-back-N, IBA 9.7.4.1.6).
 *
 * Execution: see transport.h.  The requester runs wherever it is kicked
 * (doorbell, completer, timers, its work item) as long as nobody else
 * holds @sq_lock; a kick that finds the lock taken sets a bit the holder
 * re-checks after unlocking.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>

#include "vrnic.h"
#include "verbs.h"
#include "opcode.h"
#include "config.h"

/* Packets one run sends before letting softirqs (and the peer) in. */
#define VRNIC_REQ_BUDGET	32
/* Runs one work item makes before it requeues itself. */
#define VRNIC_REQ_WORK_RUNS	16
/* Unacknowledged PSNs allowed in flight after a timeout (at most: transport.h). */
#define VRNIC_MIN_INFLIGHT	8
/* Ask for an ACK at least every this many packets. */
#define VRNIC_ACKREQ_EVERY	32
/*
 * Packets past a gap a peer must have kept, as one selective resend's ACK
 * shows, before loss probes go to it (vrnic_req_sel_ack()).
 */
#define VRNIC_KEEPS_EVIDENCE	4
/*
 * Sequence NAKs gone back N at once after a selective resend's ACK said
 * the peer kept nothing past a gap, before one more selective resend
 * asks again; doubled each time the answer is the same (see
 * vrnic_req_sel_ack()).
 */
#define VRNIC_GBN_RECHECK_MIN	4
#define VRNIC_GBN_RECHECK_MAX	64

static bool vrnic_req_started(struct vrnic_qp *qp, u32 idx)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	u32 mask = qp->sq.q.index_mask, cons = vrnic_sq_cons(qp);

	return ((idx - cons) & mask) < ((xp->init_idx - cons) & mask);
}

/*
 * Forget what the requester sent: it starts again at the oldest WQE of
 * the SQ, none of them started.  @sq_lock held, or the QP not running.
 */
void vrnic_req_cursor_reset(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	xp->send_idx = vrnic_sq_cons(qp);
	xp->init_idx = xp->send_idx;
	xp->send_off = 0;
	xp->rd_atomic_out = 0;
}

/*
 * IBA 9.7.6.1.3: the local ACK timeout is 4.096 us * 2^@timeout.  Kept in
 * the transport state (ack_timeout), set when modify_qp sets @timeout.
 */
unsigned long vrnic_ack_timeout_jiffies(u8 timeout)
{
	u64 us;

	/* 0 means "infinite": vrnic still probes once a second. */
	if (!timeout)
		return HZ;
	us = div_u64(4096ULL << min_t(u8, timeout, 31), 1000);
	return max_t(unsigned long, usecs_to_jiffies(us), 2);
}

/*
 * (Re)start the retransmit timeout (IBA 9.7.6.1.3): every ACK that makes
 * progress does.  Modifying a kernel timer takes its base's lock with
 * interrupts off, on every ACK; so only @retrans_due moves, and a timer
 * already set to fire earlier is left to do so: vrnic_req_retrans_timer()
 * sets it again for the deadline if that has not passed.  Called with
 * @sq_lock held: see the lifetime rule in transport.h.
 */
static void vrnic_req_probe_arm(struct vrnic_qp *qp);

void vrnic_req_arm_timer(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	unsigned long due = jiffies + xp->ack_timeout;

	if (xp->stopped)
		return;
	xp->retrans_armed = true;
	xp->retrans_due = due;
	if (!timer_pending(&xp->retrans_timer) ||
	    time_after(READ_ONCE(xp->retrans_timer.expires), due))
		mod_timer(&xp->retrans_timer, due);
	vrnic_req_probe_arm(qp);
}

/*
 * Nothing waits for an ACK (or the RNR timer waits instead): no timeout.
 * A pending timer fires and finds nothing to do.  @sq_lock held.
 */
void vrnic_req_disarm_timer(struct vrnic_qp *qp)
{
	qp->xport.retrans_armed = false;
}

/*
 * Loss probe, as TCP's tail loss probe (RFC 8985 7).  A packet that asks
 * for an ACK and is lost with nothing sent after it -- the window's last,
 * the stream's, or a selective resend lost again -- leaves the responder
 * nothing to NAK, and the QP would sit out the ACK timeout (67 ms at
 * perftest's timeout 14, about a second at rdma_cm's 18) with its window
 * open: under 2% random loss, most of a run's time (docs/performance.md).
 * So a QP that knows its round trip resends one packet, alone and asking
 * for its ACK, when the ACK of its last AckReq has not come 2 x SRTT
 * (and a jiffy) after it: the selective resend still unanswered, or else
 * the newest packet.  A standard retransmission: the responder answers
 * with an ACK, or a sequence NAK of what it misses, handled as any.  It
 * uses up no retry, counts in loss_probes (not timeouts), comes once per
 * progress, and leaves the ACK timeout and that timeout's own probe
 * (vrnic_req_retrans_timer()) as they were.
 *
 * Not where a loss means congestion (vrnic_cc_loss_is_congestion(): no
 * ECN on the QP's priority, or DCQCN limiting): there the window is cut
 * and the timeout waited for, as before.
 *
 * Only towards a peer that has shown it keeps packets past a gap
 * (@peer_keeps, vrnic_req_sel_ack()), where the one packet repairs the
 * loss.  A go-back-N responder (rdma_rxe, RoCE NICs) repairs nothing with
 * it that the timeout would not, and with probes towards rdma_rxe,
 * dp_netem_rxe.sh hung in some runs, for reasons not found
 * (docs/performance.md, "`-q 4` again").
 *
 * The round trip is sampled from an AckReq to the ACK that covers it,
 * one AckReq at a time as TCP times one segment per round trip (RFC
 * 6298 3): the one timed stays timed until that ACK, while the AckReqs
 * after it go out.  Timing the newest AckReq instead sampled only where
 * the stream paused: in a steady stream the ACK that came always covered
 * an older one, and a streaming QP never learnt its round trip, so sent
 * no loss probe (make bench's two-host loss row: srtt_us 0 at every
 * timeout).  First sends only, and no sample across a resend of the
 * PSN timed or of one before it (Karn's rule: the ACK would answer the
 * resend, or wait for it).  Smoothed as RFC 6298's SRTT (gain 1/8).
 */

/* An ACK moved comp_psn: the AckReq timed, if it covers it.  @sq_lock held. */
void vrnic_req_rtt_sample(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	u64 us;

	if (!xp->rtt_ns || vrnic_psn_cmp(xp->comp_psn, xp->rtt_psn) <= 0)
		return;
	us = div_u64(ktime_get_ns() - xp->rtt_ns, NSEC_PER_USEC);
	us = clamp_t(u64, us, 1, U32_MAX / 8);
	xp->rtt_ns = 0;
	xp->srtt_us = xp->srtt_us ? (u32)((7 * (u64)xp->srtt_us + us) / 8) :
		      (u32)us;
}

static bool vrnic_req_may_probe(struct vrnic_qp *qp);

/* Is a loss probe due, and when (@when)?  @sq_lock held. */
static bool vrnic_req_probe_due(struct vrnic_qp *qp, unsigned long *when)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	if (!xp->peer_keeps || !xp->srtt_us || xp->loss_probed ||
	    xp->sel_pending || !xp->retrans_armed ||
	    vrnic_cc_loss_is_congestion(qp) ||
	    vrnic_psn_cmp(xp->ackreq_psn, xp->comp_psn) < 0 ||
	    !vrnic_req_may_probe(qp))
		return false;
	*when = xp->ackreq_jiffies +
		max(usecs_to_jiffies(2 * xp->srtt_us) + 1, 2UL);
	return true;
}

/* Have the timer fire for a loss probe due before it.  @sq_lock held. */
static void vrnic_req_probe_arm(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	unsigned long when;

	if (xp->stopped || !vrnic_req_probe_due(qp, &when))
		return;
	if (!timer_pending(&xp->retrans_timer) ||
	    time_after(READ_ONCE(xp->retrans_timer.expires), when))
		mod_timer(&xp->retrans_timer, when);
}

/*
 * Does this WQE hold one of the max_rd_atomic slots?  IBTA 1.5 counts an
 * ATOMIC WRITE among the operations that use responder resources.
 */
bool vrnic_wr_is_rd_atomic(u32 opcode)
{
	return vrnic_wr_has_resp_data(opcode) ||
	       opcode == VRNIC_WR_ATOMIC_WRITE;
}

/*
 * Is this WQE answered with data (READ responses, an ATOMIC
 * acknowledge) rather than completed by an ACK?
 */
bool vrnic_wr_has_resp_data(u32 opcode)
{
	return opcode == IB_WR_RDMA_READ ||
	       opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/* Does this WQE put packets on the wire? */
bool vrnic_wr_is_wire(u32 opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case VRNIC_WR_ATOMIC_WRITE:
		return true;
	default:
		return false;
	}
}

/* Which WR opcodes each service supports (IBA table 43). */
bool vrnic_wr_allowed(enum ib_qp_type type, u32 opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		return true;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return type == IB_QPT_RC || type == IB_QPT_UC;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case VRNIC_WR_ATOMIC_WRITE:	/* IBTA 1.5: RC only */
		return type == IB_QPT_RC;
	case IB_WR_LOCAL_INV:
	case IB_WR_REG_MR:
	case IB_WR_BIND_MW:
		return type == IB_QPT_RC || type == IB_QPT_UC;
	default:
		return false;
	}
}

static void vrnic_wqe_done(struct vrnic_send_wqe *wqe, enum ib_wc_status st)
{
	wqe->xport.state = VRNIC_WQE_DONE;
	wqe->xport.status = st;
}

/*
 * First look at a WQE: check it, run local operations, give it PSNs.
 * Return false when it must wait (fence, max_rd_atomic).
 */
static bool vrnic_req_init(struct vrnic_qp *qp, struct vrnic_send_wqe *wqe)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	enum ib_qp_type type = qp->ibqp.qp_type;
	u32 mtu = vrnic_qp_mtu(qp), span;
	int err;

	if (wqe->status != IB_WC_SUCCESS) {
		vrnic_wqe_done(wqe, wqe->status);
		return true;
	}
	if (!vrnic_wr_allowed(type, wqe->opcode)) {
		vrnic_wqe_done(wqe, IB_WC_LOC_QP_OP_ERR);
		return true;
	}
	/* IBA 10.8.3.3: a fenced WQE waits for prior READs and ATOMICs. */
	if ((wqe->send_flags & IB_SEND_FENCE) && xp->rd_atomic_out)
		return false;

	switch (wqe->opcode) {
	case IB_WR_LOCAL_INV:
		err = vrnic_mr_invalidate(qp, wqe->ex.invalidate_rkey);
		vrnic_wqe_done(wqe, err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS);
		return true;
	case IB_WR_REG_MR:
		err = vrnic_mr_fast_reg(qp, wqe);
		vrnic_wqe_done(wqe, err ? IB_WC_MW_BIND_ERR : IB_WC_SUCCESS);
		return true;
	case IB_WR_BIND_MW:
		/* IBA 10.6.7: a failed bind is an error completion. */
		err = vrnic_mw_bind(qp, wqe);
		vrnic_wqe_done(wqe, err ? IB_WC_MW_BIND_ERR : IB_WC_SUCCESS);
		return true;
	default:
		break;
	}

	if (vrnic_wr_is_rd_atomic(wqe->opcode)) {
		if (xp->rd_atomic_out >= max_t(u32, qp->attr.max_rd_atomic, 1))
			return false;
		if (wqe->opcode != IB_WR_RDMA_READ && wqe->dma.length < 8) {
			vrnic_wqe_done(wqe, IB_WC_LOC_LEN_ERR);
			return true;
		}
		xp->rd_atomic_out++;
		wqe->xport.rd_atomic = 1;
	} else {
		wqe->xport.rd_atomic = 0;
	}
	if ((type == IB_QPT_UD || type == IB_QPT_GSI) &&
	    wqe->dma.length > mtu) {
		vrnic_wqe_done(wqe, IB_WC_LOC_LEN_ERR);
		return true;
	}

	if (wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	    wqe->opcode == IB_WR_ATOMIC_FETCH_AND_ADD ||
	    wqe->opcode == VRNIC_WR_ATOMIC_WRITE)
		span = 1;
	else
		span = vrnic_npkts(wqe->dma.length, mtu);
	/*
	 * New PSNs start after the highest one ever sent.  req_psn may lag
	 * behind it: after a go-back-N whose resends were overtaken by a
	 * late cumulative ACK for everything.  Reusing those PSNs would make
	 * the responder take this WQE for a duplicate and ACK it unexecuted.
	 */
	xp->req_psn = xp->max_psn;
	wqe->xport.state = VRNIC_WQE_SENDING;
	wqe->xport.status = IB_WC_SUCCESS;
	wqe->xport.first_psn = xp->req_psn;
	wqe->xport.last_psn = vrnic_psn_add(xp->req_psn, span - 1);
	return true;
}

/* BTH opcode (without transport bits) for the next packet of @wqe. */
static u8 vrnic_req_opcode(u32 wr, bool first, bool last)
{
	u8 op;

	switch (wr) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
		if (!last)
			return first ? VRNIC_SEND_FIRST : VRNIC_SEND_MIDDLE;
		op = first ? VRNIC_SEND_ONLY : VRNIC_SEND_LAST;
		if (wr == IB_WR_SEND_WITH_IMM)
			op += 1;	/* _IMM follows the plain opcode */
		else if (wr == IB_WR_SEND_WITH_INV)
			op = first ? VRNIC_SEND_ONLY_INV : VRNIC_SEND_LAST_INV;
		return op;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		if (!last)
			return first ? VRNIC_WRITE_FIRST : VRNIC_WRITE_MIDDLE;
		op = first ? VRNIC_WRITE_ONLY : VRNIC_WRITE_LAST;
		return wr == IB_WR_RDMA_WRITE_WITH_IMM ? op + 1 : op;
	case IB_WR_RDMA_READ:
		return VRNIC_READ_REQUEST;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return VRNIC_CMP_SWAP;
	case VRNIC_WR_ATOMIC_WRITE:
		return VRNIC_ATOMIC_WRITE;
	default:
		return VRNIC_FETCH_ADD;
	}
}

static u8 vrnic_qp_transport(struct vrnic_qp *qp)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		return VRNIC_OP_RC;
	case IB_QPT_UC:
		return VRNIC_OP_UC;
	default:
		return VRNIC_OP_UD;
	}
}

/* Will the WQE after @idx be sent right after this one? */
static bool vrnic_req_next_ready(struct vrnic_qp *qp, u32 idx)
{
	struct vrnic_send_wqe *next;

	next = vrnic_sq_get(qp, vrnic_sq_next(qp, idx));
	return next && next->status == IB_WC_SUCCESS &&
	       vrnic_wr_is_wire(next->opcode);
}

/*
 * Build and send the next packet of @wqe.  Return the number of payload
 * bytes it carried; -ENOMEM or -ENOBUFS (the stack refused it) when it
 * is to be built again later, nothing of it sent; or another negative
 * errno for a local error that fails the WQE (the caller completes it).
 */
static int vrnic_req_packet(struct vrnic_qp *qp, struct vrnic_send_wqe *wqe,
			    int budget_left)
{
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);
	struct vrnic_qp_xport *xp = &qp->xport;
	const struct vrnic_opcode_info *info;
	bool ud = qp->ibqp.qp_type == IB_QPT_UD ||
		  qp->ibqp.qp_type == IB_QPT_GSI;
	u32 mtu = vrnic_qp_mtu(qp), rem, payload, pad, dqpn, psn;
	bool first, last, ackreq = false, se, lend, resend;
	unsigned long ack_every;
	const struct vrnic_av *av;
	struct sk_buff *skb;
	u8 op, *hdr;
	int err;

	rem = wqe->dma.length - xp->send_off;
	first = xp->send_off == 0;
	last = rem <= mtu;
	op = vrnic_req_opcode(wqe->opcode, first, last);
	if (op == VRNIC_READ_REQUEST)
		last = true;
	info = &vrnic_opcode[vrnic_qp_transport(qp) | op];
	payload = (info->mask & VRNIC_M_PAYLOAD) ? min(rem, mtu) : 0;
	pad = -payload & 3;
	psn = xp->req_psn;
	resend = qp->ibqp.qp_type == IB_QPT_RC &&
		 vrnic_psn_cmp(psn, xp->max_psn) < 0;
	/*
	 * RC only: its WQE completes on the peer's ACK, after the packet
	 * was received.  UC and UD complete when sent, and the user may
	 * write the buffer again while a lent page still waits in a queue.
	 */
	lend = qp->ibqp.qp_type == IB_QPT_RC && op != VRNIC_ATOMIC_WRITE &&
	       vrnic_lend_req_ok(&xp->route, payload, wqe->dma.num_sge,
				 resend);

	skb = vrnic_skb_alloc(vdev, info->length + (lend ? 0 : payload + pad +
						     VRNIC_ICRC_BYTES));
	if (unlikely(!skb))
		return -ENOMEM;
	hdr = skb->data;

	if (qp->ibqp.qp_type == IB_QPT_RC) {
		/*
		 * ACKs are what opens the window, but each costs the peer a
		 * packet: ask every VRNIC_ACKREQ_EVERY packets and where the
		 * stream pauses (end of this run, nothing queued behind).
		 * Not on every packet that finds the window nearly full: once
		 * ACKs come one per packet that would keep them coming so.
		 */
		xp->noack_pkts++;
		if (xp->noack_pkts >= VRNIC_ACKREQ_EVERY || budget_left <= 1 ||
		    (last && !vrnic_req_next_ready(qp, xp->send_idx)))
			ackreq = true;
		/*
		 * And at least every quarter of the ACK timeout, on every
		 * packet if the DCQCN pacer spaces them that far apart: a
		 * stream it spreads out must not leave its unacknowledged
		 * packets to the retransmit timer.  Not on every packet of
		 * any rate-limited QP: on a congested link, where DCQCN
		 * limits, that doubled the packets on it (make bench's
		 * write_bw_64KiB_q4: 6 times rdma_rxe's ACKs).
		 */
		ack_every = max(xp->ack_timeout / 4, 1UL);
		if (time_after_eq(jiffies, xp->ackreq_jiffies + ack_every) ||
		    vrnic_cc_pace_gap(qp, mtu) >= ack_every)
			ackreq = true;
		/* Its ACK is its response, as for a READ or an atomic. */
		if (op == VRNIC_ATOMIC_WRITE)
			ackreq = true;
		if (ackreq) {
			xp->noack_pkts = 0;
			xp->ackreq_jiffies = jiffies;
			xp->ackreq_psn = psn;
			/* Time it if nothing is timed: a first send only. */
			if (!xp->rtt_ns &&
			    vrnic_psn_cmp(psn, xp->max_psn) >= 0) {
				xp->rtt_psn = psn;
				xp->rtt_ns = ktime_get_ns();
			}
		}
	}
	se = last && (wqe->send_flags & IB_SEND_SOLICITED) &&
	     (info->mask & (VRNIC_M_SEND | VRNIC_M_IMMDT));
	dqpn = ud ? wqe->wr.ud.remote_qpn : qp->attr.dest_qp_num;
	bth_set((struct vrnic_bth *)hdr, info - vrnic_opcode, se, pad,
		VRNIC_DEFAULT_PKEY, dqpn, ackreq, psn);

	if (info->mask & VRNIC_M_DETH) {
		u32 qkey = wqe->wr.ud.remote_qkey;

		/* IBA 10.2.5: a WR Q_Key with the top bit set means "use
		 * the QP's Q_Key".  ib_mad relies on it for QP1
		 * (IB_QP_SET_QKEY), whose Q_Key is the well-known 0x80010000.
		 */
		if (qp->ibqp.qp_type == IB_QPT_GSI)
			qkey = VRNIC_GSI_QKEY;
		else if (qkey & 0x80000000)
			qkey = qp->attr.qkey;
		deth_set((void *)(hdr + info->off_deth), qkey,
			 qp->ibqp.qp_num);
	}
	if (info->mask & VRNIC_M_RETH) {
		u64 va = wqe->wr.rdma.remote_addr;

		if (op == VRNIC_READ_REQUEST)
			reth_set((void *)(hdr + info->off_reth),
				 va + xp->send_off, wqe->wr.rdma.rkey, rem);
		else
			reth_set((void *)(hdr + info->off_reth), va,
				 wqe->wr.rdma.rkey, wqe->dma.length);
	}
	if (info->mask & VRNIC_M_ATMETH) {
		bool cas = wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP;

		atmeth_set((void *)(hdr + info->off_atmeth),
			   wqe->wr.atomic.remote_addr, wqe->wr.atomic.rkey,
			   cas ? wqe->wr.atomic.swap : wqe->wr.atomic.compare_add,
			   cas ? wqe->wr.atomic.compare_add : 0);
	}
	if (info->mask & VRNIC_M_IMMDT)
		((struct vrnic_immdt *)(hdr + info->off_immdt))->imm =
			wqe->ex.imm_data;
	if (info->mask & VRNIC_M_IETH)
		((struct vrnic_ieth *)(hdr + info->off_ieth))->rkey =
			cpu_to_be32(wqe->ex.invalidate_rkey);

	if (op == VRNIC_ATOMIC_WRITE) {
		/* payload == 8: the WQE holds the bytes, no SGE */
		memcpy(hdr + info->length, wqe->wr.rdma.atomic_wr, payload);
	} else if (lend) {
		err = vrnic_dma_lend(qp->pd, &wqe->dma, payload, skb);
		if (!err)
			err = vrnic_skb_add_tail(skb, pad);
		if (err) {
			kfree_skb(skb);
			/* -ENOMEM is tried again: from where this began. */
			vrnic_dma_seek(&wqe->dma, xp->send_off);
			return err;
		}
	} else if (payload) {
		err = vrnic_dma_copy(qp->pd, &wqe->dma, hdr + info->length,
				     payload, VRNIC_FROM_MR);
		if (err) {
			kfree_skb(skb);
			return err;
		}
	}
	if (!lend)
		memset(hdr + info->length + payload, 0, pad);

	if (ud) {
		av = &wqe->wr.ud.av;
		err = vrnic_xmit(vdev, av, NULL,
				 vrnic_sport(av->flow_label, qp->ibqp.qp_num,
					     dqpn), -1, skb);
	} else {
		u32 roce_bytes = skb->len;

		/*
		 * Where a peer on this host receives the QP's packets
		 * (xmit.c, "Local delivery"), chosen only with nothing in
		 * flight, so that no packet overtakes another: UC keeps
		 * the sending CPU, as it may never know.
		 */
		if (qp->ibqp.qp_type == IB_QPT_RC &&
		    !vrnic_req_in_flight(xp))
			xp->rx_cpu = vrnic_loop_pick_cpu(wqe->dma.length > mtu ||
							 vrnic_sq_posted(qp) > 1);
		err = vrnic_xmit(vdev, &qp->av, &xp->route, xp->sport,
				 xp->rx_cpu, skb);
		/* DCQCN counts and paces what left, nothing refused or unroutable. */
		if (!err)
			vrnic_cc_sent(qp, roce_bytes);
	}

	/*
	 * Refused by the stack: not sent, so not lost either.  This packet
	 * again, after a pause (vrnic_cc_refused()).  Other errors (no
	 * route), and refusals without end, count as lost: RC resends.
	 */
	if (err == -ENOBUFS &&
	    vrnic_cc_refused(qp, VRNIC_CC_REQUESTER, &xp->refusals,
			     VRNIC_REFUSED_MAX)) {
		if (payload && op != VRNIC_ATOMIC_WRITE)
			vrnic_dma_seek(&wqe->dma, xp->send_off);
		return err;
	}
	if (err != -ENOBUFS)
		xp->refusals = 0;
	if (!err) {
		xp->sq_stats.tx_packets++;
		xp->sq_stats.tx_bytes += payload;
	}
	if (resend) {
		xp->sq_stats.retransmits++;
		vrnic_counter_inc(vdev, VRNIC_CNT_RETRANSMITS);
	}

	if (op == VRNIC_READ_REQUEST) {
		u32 n = vrnic_npkts(rem, mtu);

		xp->req_psn = vrnic_psn_add(psn, n);
		xp->send_off = wqe->dma.length;
	} else {
		xp->req_psn = vrnic_psn_add(psn, 1);
		xp->send_off += payload;
		if (info->mask & VRNIC_M_ATOMIC)
			xp->send_off = wqe->dma.length;
	}
	if (vrnic_psn_cmp(xp->req_psn, xp->max_psn) > 0)
		xp->max_psn = xp->req_psn;
	return payload;
}

static bool vrnic_req_seek(struct vrnic_qp *qp, u32 psn);
static bool vrnic_req_resend_one(struct vrnic_qp *qp);

static enum ib_wc_status vrnic_dma_err_status(int err)
{
	return err == -ENOSPC ? IB_WC_LOC_LEN_ERR : IB_WC_LOC_PROT_ERR;
}

/*
 * The packet could not be built for want of memory (-ENOMEM) or the stack
 * refused it (-ENOBUFS): it is built again once memory is back, or by the
 * pacer's timer (vrnic_req_packet()).  A full queue here is congestion as
 * much as one on the path (and ACKs coming back share it): an RC QP cuts
 * its window as for a loss, once per window, as TCP does for a segment
 * its host dropped (CWR).  True for those two.  @sq_lock held.
 */
static bool vrnic_req_refused(struct vrnic_qp *qp, int ret)
{
	if (ret == -ENOMEM) {
		vrnic_xport_nomem_wait(qp, VRNIC_XP_NOMEM_REQ);
		return true;
	}
	if (ret == -ENOBUFS) {
		if (qp->ibqp.qp_type == IB_QPT_RC)
			vrnic_req_window_cut(qp);
		return true;
	}
	return false;
}

/*
 * Send up to @budget packets.  Called with @sq_lock held.
 * Return true if work is left that the budget did not cover.
 */
static bool vrnic_req_loop(struct vrnic_qp *qp, int budget)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	bool rc = qp->ibqp.qp_type == IB_QPT_RC;
	bool paced = rc || qp->ibqp.qp_type == IB_QPT_UC;
	struct vrnic_send_wqe *wqe;
	enum ib_qp_state state;
	bool more = false, held = false;
	int ret;

	if (xp->stopped)
		return false;	/* RESET or destroy: see transport.h */
	state = READ_ONCE(qp->state);
	if (state == IB_QPS_ERR || xp->sq_err) {
		vrnic_comp_error(qp);
		/* Receives posted in ERR complete as flushed too. */
		if (state == IB_QPS_ERR)
			vrnic_resp_schedule(qp);
		return false;
	}
	if (state != IB_QPS_RTS)
		return false;	/* SQD: let started WQEs finish by ACKs */

	/*
	 * An ACK acknowledged PSNs a go-back-N was about to resend: carry
	 * on after them (else the window test below would see a negative
	 * number of packets in flight as a huge one and stop for good).
	 */
	if (rc && vrnic_psn_cmp(xp->req_psn, xp->comp_psn) < 0 &&
	    vrnic_req_started(qp, xp->send_idx))
		vrnic_req_seek(qp, xp->comp_psn);
	/*
	 * A sequence NAK's one packet first (see vrnic_req_seq_nak()); if
	 * the stack refused it, nothing else goes before it.
	 */
	if (rc && xp->sel_pending && !xp->rnr_wait &&
	    vrnic_cc_tx_ok(qp, VRNIC_CC_REQUESTER)) {
		held = !vrnic_req_resend_one(qp);
		budget--;
	}

	/*
	 * Every pass consumes budget, local WQEs (LOCAL_INV, BIND_MW,
	 * failed ones) included: the process can keep posting them as fast
	 * as we complete them, and this runs with BHs off.
	 */
	while (!held && !xp->rnr_wait && !xp->sq_err) {
		wqe = vrnic_sq_get(qp, xp->send_idx);
		if (!wqe)
			break;
		if (budget <= 0) {
			more = true;
			break;
		}
		if (!vrnic_req_started(qp, xp->send_idx)) {
			if (!vrnic_req_init(qp, wqe))
				break;
			xp->init_idx = vrnic_sq_next(qp, xp->send_idx);
			xp->send_off = 0;
		}
		if (wqe->xport.state == VRNIC_WQE_DONE) {
			xp->send_idx = vrnic_sq_next(qp, xp->send_idx);
			xp->send_off = 0;
			vrnic_comp_retire(qp);
			budget--;
			continue;
		}
		if (rc && ((xp->req_psn - xp->comp_psn) & VRNIC_PSN_MASK) >=
			  xp->window)
			break;	/* the completer kicks us on the next ACK */
		/*
		 * The window's last packet: have it acknowledged, unless an
		 * ACK asked for earlier is still to come, which opens the
		 * window by itself.  Asking on every packet that fills the
		 * window would be self-sustaining: each ACK opens as few
		 * slots as there are packets since the previous AckReq, the
		 * last of which asks again.  Under DCQCN pacing behind an
		 * ECN-marking bottleneck that drew one ACK per 3-4 packets.
		 */
		if (rc && ((xp->req_psn - xp->comp_psn) & VRNIC_PSN_MASK) + 1 >=
			  xp->window &&
		    vrnic_psn_cmp(xp->ackreq_psn, xp->comp_psn) < 0)
			xp->noack_pkts = VRNIC_ACKREQ_EVERY;
		/* DCQCN: the pacer's timer runs us again when it is time. */
		if (paced && !vrnic_cc_tx_ok(qp, VRNIC_CC_REQUESTER))
			break;
		if (xp->send_off == 0) {
			/* (Re)starting a WQE: its PSNs are fixed. */
			xp->req_psn = wqe->xport.first_psn;
			vrnic_dma_seek(&wqe->dma, 0);
		}

		ret = vrnic_req_packet(qp, wqe, budget);
		budget--;
		if (vrnic_req_refused(qp, ret))
			break;
		if (ret < 0) {
			/* Nothing of it is on the wire beyond what the
			 * peer may ignore: fail it in order.
			 */
			vrnic_wqe_done(wqe, vrnic_dma_err_status(ret));
			continue;
		}
		if (xp->send_off < wqe->dma.length)
			continue;

		if (rc) {
			wqe->xport.state = VRNIC_WQE_SENT;
		} else {
			/* UC/UD: sent is done (IBA 9.8.2, 9.8.3). */
			vrnic_wqe_done(wqe, IB_WC_SUCCESS);
		}
		xp->send_idx = vrnic_sq_next(qp, xp->send_idx);
		xp->send_off = 0;
		if (!rc)
			vrnic_comp_retire(qp);
	}

	if (rc && vrnic_req_in_flight(xp)) {
		if (!xp->retrans_armed)
			vrnic_req_arm_timer(qp);
		else
			vrnic_req_probe_arm(qp);	/* an AckReq went out */
	}
	return more;
}

/* Queue the requester's work item on @cpu (any CPU if -1 or offline). */
static void vrnic_req_queue(struct vrnic_qp *qp, int cpu)
{
	if (READ_ONCE(qp->xport.stopped))
		return;
	if (cpu < 0 || !cpu_online(cpu))
		cpu = WORK_CPU_UNBOUND;
	queue_work_on(cpu, vrnic_wq, &qp->xport.req_work);
}

/**
 * vrnic_req_schedule - run the requester from its work item
 * @qp: the QP
 *
 * The work item runs on the CPU that sent the packets still in flight,
 * see vrnic_req_cpu_ok().
 */
void vrnic_req_schedule(struct vrnic_qp *qp)
{
	vrnic_req_queue(qp, READ_ONCE(qp->xport.tx_cpu));
}

/*
 * May the requester send from this CPU?  Software links (veth, the
 * loopback device) queue a packet on the sending CPU's backlog and
 * deliver it from there, and multi-queue NICs pick the TX queue by CPU:
 * packets of one QP sent from two CPUs can overtake each other, which
 * the responder sees as a PSN gap and answers with a sequence NAK and a
 * go-back-N.  So a QP changes its sending CPU only when nothing it sent
 * is unacknowledged (the same rule XPS applies to a socket's TX queue).
 *
 * Except for the work item (@from_work): it is queued on the sending CPU,
 * but a work item queued while it runs stays where it runs (the
 * workqueue's non-reentrancy), so one that found itself elsewhere after
 * the sending CPU changed could only queue itself there again, forever,
 * with the QP stalled.  It takes the QP over instead; a reordering that
 * may cause costs a resend, not the connection.
 * Called with @sq_lock held, so the CPU cannot change under us.
 */
static bool vrnic_req_cpu_ok(struct vrnic_qp *qp, bool from_work)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	int cpu = smp_processor_id();

	if (cpu == xp->tx_cpu)
		return true;
	/*
	 * Nor while the work item waits to run on the sending CPU: it
	 * takes the QP over when it runs, with whatever this run sent
	 * still in flight (a doorbell moved the QP, vrnic_req_doorbell()).
	 */
	if (!from_work && qp->ibqp.qp_type == IB_QPT_RC &&
	    (vrnic_req_in_flight(xp) ||
	     work_pending(&xp->req_work)) &&
	    xp->tx_cpu >= 0 && cpu_online(xp->tx_cpu))
		return false;
	WRITE_ONCE(xp->tx_cpu, cpu);
	return true;
}

/*
 * Run the requester if nobody else is; return true if the budget ran
 * out with work left (or the work belongs on another CPU).  Must be
 * called with BHs enabled.
 */
static bool vrnic_req_run(struct vrnic_qp *qp, int budget, bool from_work)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	bool more;

	for (;;) {
		if (!spin_trylock_bh(&xp->sq_lock))
			return false;	/* the holder will see our bit */
		if (!vrnic_req_cpu_ok(qp, from_work)) {
			spin_unlock_bh(&xp->sq_lock);
			return true;
		}
		clear_bit(VRNIC_XP_KICK, &xp->kick);
		more = vrnic_req_loop(qp, budget);
		spin_unlock_bh(&xp->sq_lock);
		if (more)
			return true;
		/* Unlock before test: pairs with the barrier in kick. */
		smp_mb();
		if (!test_bit(VRNIC_XP_KICK, &xp->kick))
			return false;
	}
}

/**
 * vrnic_sq_unlock - release @sq_lock taken outside the requester
 * @qp: the QP
 *
 * Return: true if a kick found the lock taken and the requester must run
 * (see "Kicks" in struct vrnic_qp_xport).
 */
bool vrnic_sq_unlock(struct vrnic_qp *qp)
	__releases(&qp->xport.sq_lock)
{
	spin_unlock_bh(&qp->xport.sq_lock);
	/* Unlock before test: pairs with the barrier in vrnic_req_kick(). */
	smp_mb();
	return test_bit(VRNIC_XP_KICK, &qp->xport.kick);
}

/**
 * vrnic_req_kick - the doorbell: the SQ may have new WQEs
 * @qp: the QP
 *
 * Runs the requester inline when the caller's context allows it and the
 * QP is idle, otherwise (or for a large burst) on the QP's work item.
 */
void vrnic_req_kick(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	set_bit(VRNIC_XP_KICK, &xp->kick);
	/* Order the bit before the trylock; pairs with vrnic_req_run(). */
	smp_mb__after_atomic();
	if (irqs_disabled() || in_hardirq()) {
		vrnic_req_schedule(qp);
		return;
	}
	if (vrnic_req_run(qp, VRNIC_REQ_BUDGET, false))
		vrnic_req_schedule(qp);
}

static bool post_spread = true;
module_param(post_spread, bool, 0644);
MODULE_PARM_DESC(post_spread,
		 "build the messages of WQEs posted without a completion request on another CPU than the poster's (default: on)");

/**
 * vrnic_req_doorbell - the consumer's doorbell (post_send)
 * @qp: the QP
 * @streams: the newest WQE posted is a one-packet message that asks for
 *	no completion (vrnic_sq_newest_streams())
 *
 * A consumer that posts a WQE without asking for its completion is not
 * waiting for it (IBA 10.8.2.2 lets it reap the completion of a later
 * WQE): it streams, as perftest's bandwidth tests do with one signaled
 * WQE in a hundred.  For one-packet messages the requester's run is most
 * of the time a post costs, so it runs on another CPU then, the way a
 * NIC builds packets while the host goes on posting: the consumer's CPU
 * only writes WQEs and rings.  Longer messages stay inline, their
 * receiving moves instead (vrnic_loop_pick_cpu()), and a signaled WQE,
 * which somebody waits for, runs inline, so a ping-pong pays no IPI.
 *
 * The requester moves only while nothing it sent is unacknowledged, or
 * to the CPU it already sends from, decided under @sq_lock: the doorbell
 * makes the other CPU the sending one, and until its work item has run
 * no other caller takes the QP back (vrnic_req_cpu_ok()), so no packet
 * sent here is still in flight when the other CPU sends.  Any context
 * that vrnic_req_kick() accepts.
 */
void vrnic_req_doorbell(struct vrnic_qp *qp, bool streams)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	int cpu, to = -1;

	/* With IRQs off, vrnic_req_kick() queues the work item itself. */
	if (!streams || !READ_ONCE(post_spread) || irqs_disabled() ||
	    in_hardirq()) {
		vrnic_req_kick(qp);
		return;
	}
	set_bit(VRNIC_XP_KICK, &xp->kick);
	/* Order the bit before the trylock; pairs with vrnic_req_run(). */
	smp_mb__after_atomic();
	if (!spin_trylock_bh(&xp->sq_lock))
		return;		/* the holder sees our bit */
	cpu = smp_processor_id();
	if (xp->tx_cpu >= 0 && xp->tx_cpu != cpu && cpu_online(xp->tx_cpu)) {
		to = xp->tx_cpu;	/* its sending CPU runs it */
	} else if (!vrnic_req_in_flight(xp)) {
		to = vrnic_next_cpu();
		if (to >= 0)
			WRITE_ONCE(xp->tx_cpu, to);
	}
	spin_unlock_bh(&xp->sq_lock);
	if (to < 0)
		vrnic_req_kick(qp);	/* in flight from here: stay */
	else
		vrnic_req_queue(qp, to);
}

void vrnic_req_work(struct work_struct *work)
{
	struct vrnic_qp *qp = container_of(work, struct vrnic_qp,
					   xport.req_work);
	int i;

	set_bit(VRNIC_XP_KICK, &qp->xport.kick);
	for (i = 0; i < VRNIC_REQ_WORK_RUNS; i++) {
		if (!vrnic_req_run(qp, VRNIC_REQ_BUDGET, true))
			return;
		cond_resched();
	}
	vrnic_req_schedule(qp);
}

/*
 * Position the requester at @psn (in a started WQE); @sq_lock held.
 * Returns false, leaving it where it was, if nothing from @psn on is
 * waiting for an acknowledgment.
 */
static bool vrnic_req_seek(struct vrnic_qp *qp, u32 psn)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_send_wqe *wqe = NULL;
	u32 idx, i, mtu = vrnic_qp_mtu(qp);

	for (idx = vrnic_sq_cons(qp); idx != xp->init_idx;
	     idx = vrnic_sq_next(qp, idx)) {
		wqe = vrnic_sq_get(qp, idx);
		if (wqe->xport.state != VRNIC_WQE_DONE &&
		    vrnic_psn_cmp(psn, wqe->xport.last_psn) <= 0)
			break;
	}
	if (idx == xp->init_idx) {
		vrnic_qp_dbg(qp, "rewind to %#x: nothing to resend\n", psn);
		return false;	/* nothing sent after @psn */
	}
	vrnic_qp_dbg(qp, "rewind to %#x: slot %u psn %#x-%#x state %u\n",
		     psn, idx, wqe->xport.first_psn, wqe->xport.last_psn,
		     wqe->xport.state);

	if (vrnic_psn_cmp(psn, wqe->xport.first_psn) < 0)
		psn = wqe->xport.first_psn;
	for (i = idx; i != xp->init_idx; i = vrnic_sq_next(qp, i)) {
		struct vrnic_send_wqe *w = vrnic_sq_get(qp, i);

		if (w->xport.state == VRNIC_WQE_SENT)
			w->xport.state = VRNIC_WQE_SENDING;
	}
	xp->send_idx = idx;
	xp->req_psn = psn;
	if (wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	    wqe->opcode == IB_WR_ATOMIC_FETCH_AND_ADD ||
	    wqe->opcode == VRNIC_WR_ATOMIC_WRITE) {
		xp->send_off = 0;
	} else {
		xp->send_off = min(((psn - wqe->xport.first_psn) &
				    VRNIC_PSN_MASK) * mtu, wqe->dma.length);
		if (wqe->opcode != IB_WR_RDMA_READ)
			vrnic_dma_seek(&wqe->dma, xp->send_off);
		else if (xp->send_off == wqe->dma.length && wqe->dma.length)
			xp->send_off = 0;	/* cannot happen; be safe */
	}
	return true;
}

/*
 * The send window: PSNs in flight.  A go-back-N resend puts a whole
 * window on the path while the packets it replaces may still be on it,
 * so a path that drops because it is full, kept full, would only drop
 * more (a READ responder answering every resent request the more so).
 * Hence a loss-based window, TCP's (RFC 5681) in PSNs: slow start below
 * @ssthresh (+1 per PSN acknowledged: doubles each round trip), +1 per
 * window acknowledged above it; halved by a loss the peer or the
 * responses reveal (a sequence NAK, an implied NAK), once per window
 * sent; VRNIC_MIN_INFLIGHT after a timeout.  Where nothing is lost (a
 * lossless fabric) it stays at VRNIC_MAX_INFLIGHT.  @sq_lock held.
 */
void vrnic_req_loss_reset(struct vrnic_qp_xport *xp)
{
	xp->window = VRNIC_MAX_INFLIGHT;
	xp->ssthresh = VRNIC_MAX_INFLIGHT;
	xp->window_acked = 0;
	xp->recover_psn = xp->comp_psn;
	/* and the selective resend's state (a new peer, maybe) */
	xp->sel_pending = false;
	xp->sel_active = false;
	xp->gbn_naks = 0;
	xp->gbn_recheck = 0;
	xp->rewind_unacked = false;
	/* and what the loss probe knew of it */
	xp->peer_keeps = false;
	xp->loss_probed = false;
	xp->srtt_us = 0;
	xp->rtt_ns = 0;
}

/**
 * vrnic_req_window_grow - an acknowledgment made progress
 * @qp: RC QP, @sq_lock held
 * @acked: PSNs it newly acknowledged
 */
void vrnic_req_window_grow(struct vrnic_qp *qp, u32 acked)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	if (xp->window >= VRNIC_MAX_INFLIGHT)
		return;
	if (xp->window < xp->ssthresh) {
		xp->window = min_t(u32, xp->window + acked, VRNIC_MAX_INFLIGHT);
		return;
	}
	xp->window_acked += acked;
	if (xp->window_acked >= xp->window) {
		xp->window_acked = 0;
		xp->window++;
	}
}

/*
 * A loss: slow start up to half the window from now on, starting again
 * from VRNIC_MIN_INFLIGHT after a timeout (everything in flight was
 * lost), from that half otherwise; no further cut before what is in
 * flight now is acknowledged.
 */
static void vrnic_req_window_lost(struct vrnic_qp_xport *xp, bool timeout)
{
	xp->ssthresh = max_t(u32, xp->window / 2, VRNIC_MIN_INFLIGHT);
	xp->window = timeout ? VRNIC_MIN_INFLIGHT : xp->ssthresh;
	xp->window_acked = 0;
	xp->recover_psn = xp->max_psn;
}

/**
 * vrnic_req_window_cut - a NAK or a response past a gap showed a loss
 * @qp: RC QP, @sq_lock held
 *
 * The NAKs and out-of-order responses of one window are one loss
 * episode: cut once, then not before what was in flight is
 * acknowledged.
 */
void vrnic_req_window_cut(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	if (vrnic_psn_cmp(xp->comp_psn, xp->recover_psn) < 0)
		return;
	vrnic_req_window_lost(xp, false);
}

/**
 * vrnic_req_rewind - go back N: resend everything from @psn on
 * @qp: RC QP, @sq_lock held
 * @psn: first PSN the responder has not acknowledged
 */
void vrnic_req_rewind(struct vrnic_qp *qp, u32 psn)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	vrnic_req_seek(qp, psn);
	xp->rewind_psn = psn;
	xp->rewind_high = xp->max_psn;
	xp->rewind_unacked = true;
	xp->noack_pkts = 0;
	xp->rtt_ns = 0;			/* Karn: all of it goes again */
	/* The resend asks afresh: the ACKs asked for may never come. */
	xp->ackreq_psn = vrnic_psn_add(xp->comp_psn, VRNIC_PSN_MASK);
	xp->sel_pending = false;
	xp->sel_active = false;
}

/*
 * Selective resend.  A sequence NAK says which PSN the responder misses,
 * not what it did with the packets after it.  vrnic keeps them (see
 * "Out of order" in resp.c), so resending them all, as go-back-N does
 * (IBA 9.7.5.2.1), puts on the wire again what has arrived: with a 256-
 * PSN window, up to 255 packets per loss.  So the requester first resends
 * only the missing packet, asking for its ACK, and carries on with new
 * packets.  The responder's answer once it has run what it held says
 * what else is needed (vrnic_resp_gap_answer()), in standard packets:
 *  - an ACK of everything sent before the resend: nothing;
 *  - a sequence NAK of a later PSN: it holds packets past a second gap,
 *    so resend that one packet the same way;
 *  - an ACK short of what was sent before the resend: it kept nothing
 *    past that PSN, so go back N from there.  A responder that keeps
 *    nothing past a gap at all (rdma_rxe, RoCE NICs) answers the resent
 *    packet with its own ACK; the QP then goes back N at once on the
 *    next @gbn_naks sequence NAKs before it asks again with one more
 *    selective resend, so such a peer costs a round trip more on one
 *    loss in VRNIC_GBN_RECHECK_MAX + 1 once the answer has been the same
 *    a few times.  Asking again matters because one ACK can mislead: a
 *    reordering path can make a vrnic peer look the same, and a peer
 *    that could not hold a packet (its budget, docs/wire.md) answers as
 *    one that keeps nothing.  Taken for good, that left a QP going back
 *    N on every loss for the rest of its life.
 * A resend lost again ends in the retransmit timer (which probes with
 * the newest packet first, then goes back N: vrnic_req_retrans_timer()).
 */

/* Have the requester resend @psn alone (@timeout: the timer's probe). */
static void vrnic_req_resend_alone(struct vrnic_qp_xport *xp, u32 psn,
				   bool timeout)
{
	/* Karn: an ACK of the PSN timed would answer this, or wait for it. */
	if (xp->rtt_ns && vrnic_psn_cmp(psn, xp->rtt_psn) <= 0)
		xp->rtt_ns = 0;
	xp->sel_psn = psn;
	xp->sel_high = xp->max_psn;
	xp->sel_pending = true;
	xp->sel_active = true;
	xp->sel_timeout = timeout;
}

/**
 * vrnic_req_seq_nak - the responder asks for @psn (a sequence NAK)
 * @qp: RC QP, @sq_lock held
 * @psn: the NAK's PSN, at or past comp_psn and before max_psn
 */
void vrnic_req_seq_nak(struct vrnic_qp *qp, u32 psn)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	bool gbn = xp->gbn_naks || xp->req_psn != xp->max_psn ||
		   xp->rewind_unacked;

	if (xp->gbn_naks)
		xp->gbn_naks--;

	/*
	 * The window: a go-back-N puts a window on the path again, so it is
	 * cut.  A selective resend puts one packet; then it is cut only if
	 * the loss means congestion (vrnic_cc_loss_is_congestion()).
	 * Cutting on random loss too left a TCP-like window: 34-47% of the
	 * clean bandwidth kept at 2% netem loss (make bench's two-host loss
	 * row), 57-75% without (docs/performance.md).
	 */
	if (gbn || vrnic_cc_loss_is_congestion(qp))
		vrnic_req_window_cut(qp);
	/*
	 * The NAK is an answer: what it makes the QP resend gets a whole ACK
	 * timeout from now, as TCP restarts its retransmission timer when it
	 * resends the oldest segment unacknowledged.  Left running, the
	 * timeout fired just after the resend whenever the NAK came late in
	 * it, before the resend could be answered: most of make bench's
	 * two-host loss row's timeouts, where the path back is slow.  The
	 * same NAK again restarts nothing (comp.c), and a NAK of a later PSN
	 * acknowledges the PSNs before it: no peer holds the timeout off for
	 * ever.  Armed once the resend is set up, so that the loss probe
	 * judges what follows the NAK (vrnic_req_probe_due()).
	 *
	 * Selective only while sending new packets: a go-back-N under way
	 * reaches @psn by itself.  And not while a go-back-N's packets are
	 * still unacknowledged, all sent or not: they may reach the
	 * responder after the packet that drew this NAK, and fill its gap
	 * in order.  Then even a responder that keeps nothing past a gap
	 * answers the lone resend with an ACK of all of them, which would
	 * be taken for a peer that keeps (loss probes towards rdma_rxe:
	 * dp_netem_rxe.sh, under reordering and duplication, on the debug
	 * kernel).
	 */
	if (gbn || vrnic_psn_add(psn, 1) == xp->max_psn) {
		vrnic_req_rewind(qp, psn);
	} else {
		vrnic_qp_dbg(qp, "seq NAK %#x: resend it alone (max_psn %#x)\n",
			     psn, xp->max_psn);
		xp->rewind_psn = psn;	/* a duplicated NAK resends nothing */
		vrnic_req_resend_alone(xp, psn, false);
	}
	vrnic_req_arm_timer(qp);
}

/**
 * vrnic_req_sel_ack - an ACK of everything up to @psn arrived
 * @qp: RC QP, @sq_lock held
 * @psn: its PSN; comp_psn is past it already
 */
void vrnic_req_sel_ack(struct vrnic_qp *qp, u32 psn)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	u32 next = vrnic_psn_add(psn, 1);

	/* ACKs sent before the resend arrived tell nothing new. */
	if (!xp->sel_active || vrnic_psn_cmp(psn, xp->sel_psn) < 0)
		return;
	xp->sel_active = false;
	xp->sel_pending = false;
	if (vrnic_psn_cmp(next, xp->sel_high) >= 0) {
		/*
		 * It kept what followed the gap.  More than a few packets:
		 * a go-back-N responder can take a packet sent after the
		 * gap only from a reordered or duplicated straggler.
		 */
		if (((xp->sel_high - xp->sel_psn) & VRNIC_PSN_MASK) >
		    VRNIC_KEEPS_EVIDENCE) {
			xp->peer_keeps = true;
			xp->gbn_recheck = 0;
		}
		return;
	}
	if (psn == xp->sel_psn) {
		/* It seems to keep nothing: ask again later, less often. */
		xp->gbn_recheck = clamp_t(u32, 2 * xp->gbn_recheck,
					  VRNIC_GBN_RECHECK_MIN,
					  VRNIC_GBN_RECHECK_MAX);
		xp->gbn_naks = xp->gbn_recheck;
		xp->peer_keeps = false;
	}
	vrnic_qp_dbg(qp, "ACK %#x after the resend of %#x: go back (high %#x%s)\n",
		     psn, xp->sel_psn, xp->sel_high,
		     psn == xp->sel_psn ? ", peer keeps nothing" : "");
	vrnic_req_window_cut(qp);	/* a go-back-N after all */
	vrnic_req_rewind(qp, next);
}

/*
 * Send the packet at sel_psn alone, with AckReq, then put the requester
 * back where it was.  If it cannot, the requester stays at sel_psn: go
 * back N.  A packet the stack refused, or could not be built for want of
 * memory, is neither: it stays pending, to be sent alone after the pause
 * (vrnic_cc_refused()) or once memory is back, as any refused packet is
 * built again; false then, and nothing else is to be sent before it.
 * Going back N instead put a whole window on the path again for one
 * packet the host dropped.  @sq_lock held.
 */
static bool vrnic_req_resend_one(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	u32 idx = xp->send_idx, off = xp->send_off, psn = xp->req_psn, i;
	struct vrnic_send_wqe *wqe, *w;
	int ret;

	xp->sel_pending = false;
	if (vrnic_psn_cmp(xp->sel_psn, xp->comp_psn) < 0 ||
	    !vrnic_req_seek(qp, xp->sel_psn)) {
		xp->sel_active = false;	/* all of it acknowledged by now */
		return true;
	}
	if (xp->req_psn != xp->sel_psn) {
		xp->sel_active = false;	/* not a packet boundary: resend all */
		return true;
	}
	wqe = vrnic_sq_get(qp, xp->send_idx);
	if (xp->send_off == 0)
		vrnic_dma_seek(&wqe->dma, 0);
	/* A budget of one: the packet asks for its ACK. */
	ret = vrnic_req_packet(qp, wqe, 1);
	if (ret < 0 && !vrnic_req_refused(qp, ret)) {
		xp->sel_active = false;
		vrnic_wqe_done(wqe, vrnic_dma_err_status(ret));
		return true;
	}
	if (ret < 0)
		xp->sel_pending = true;
	/* The WQEs sent in full before the cursor wait for their ACK again. */
	for (i = xp->send_idx; i != idx; i = vrnic_sq_next(qp, i)) {
		w = vrnic_sq_get(qp, i);
		if (w->xport.state == VRNIC_WQE_SENDING)
			w->xport.state = VRNIC_WQE_SENT;
	}
	xp->send_idx = idx;
	xp->send_off = off;
	xp->req_psn = psn;
	if (off) {
		w = vrnic_sq_get(qp, idx);
		if (w->opcode != IB_WR_RDMA_READ)
			vrnic_dma_seek(&w->dma, off);
	}
	return !xp->sel_pending;
}

/*
 * May a timeout probe before it goes back N (vrnic_req_retrans_timer())?
 * Not twice without progress in between: a responder NAKs a gap only
 * once (IBA 9.7.5.1.1), and that NAK may be what was lost.  Not during a
 * go-back-N.  Not when the newest packet asks for READ or atomic
 * responses: those are their acknowledgment, and asking again for the
 * last PSN's says nothing about the others.  @sq_lock held.
 */
static bool vrnic_req_may_probe(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_send_wqe *wqe;

	if (xp->req_psn != xp->max_psn || (xp->sel_active && xp->sel_timeout))
		return false;
	wqe = vrnic_sq_get(qp, (xp->init_idx - 1) & qp->sq.q.index_mask);
	return wqe && !vrnic_wr_has_resp_data(wqe->opcode);
}

/**
 * vrnic_req_fill_res - the requester's state, for "rdma resource show qp -dd"
 * @msg: the nldev message, inside vrnic's driver nest
 * @qp: an RC or UC QP
 *
 * What a stalled QP waits for: its PSNs and window, whether a resend or
 * an RNR wait is pending, and its timers; and what it has learnt of its
 * peer's loss recovery (peer_past_gap: "keeps" is sent loss probes,
 * "drops" gets go-back-N at once, "unknown" neither yet).
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int vrnic_req_fill_res(struct sk_buff *msg, struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	u32 req_psn, comp_psn, max_psn, window, send_off, sq_posted, srtt;
	bool sel, rnr, retrans, waiting, armed;
	const char *past_gap;
	u64 wait_ns;

	spin_lock_bh(&xp->sq_lock);
	req_psn = xp->req_psn;
	comp_psn = xp->comp_psn;
	max_psn = xp->max_psn;
	window = xp->window;
	srtt = xp->srtt_us;
	send_off = xp->send_off;
	sq_posted = vrnic_sq_posted(qp);
	sel = xp->sel_pending;
	rnr = xp->rnr_wait;
	retrans = xp->retrans_armed;
	past_gap = xp->peer_keeps ? "keeps" : xp->gbn_recheck ? "drops" :
		   "unknown";
	vrnic_cc_pacer_state(qp, &wait_ns, &waiting, &armed);
	spin_unlock_bh(&xp->sq_lock);

	if (rdma_nl_put_driver_u32_hex(msg, "req_psn", req_psn) ||
	    rdma_nl_put_driver_u32_hex(msg, "comp_psn", comp_psn) ||
	    rdma_nl_put_driver_u32_hex(msg, "max_psn", max_psn) ||
	    rdma_nl_put_driver_u32(msg, "window", window) ||
	    rdma_nl_put_driver_u32(msg, "srtt_us", srtt) ||
	    rdma_nl_put_driver_u32(msg, "sq_posted", sq_posted) ||
	    rdma_nl_put_driver_u32(msg, "send_off", send_off) ||
	    rdma_nl_put_driver_u32(msg, "resend_pending", sel) ||
	    rdma_nl_put_driver_u32(msg, "rnr_wait", rnr) ||
	    rdma_nl_put_driver_u32(msg, "retrans_timer", retrans) ||
	    rdma_nl_put_driver_string(msg, "peer_past_gap", past_gap) ||
	    rdma_nl_put_driver_u64(msg, "pacer_wait_ns", wait_ns) ||
	    rdma_nl_put_driver_u32(msg, "pacer_waiting", waiting) ||
	    rdma_nl_put_driver_u32(msg, "pacer_timer", armed))
		return -EMSGSIZE;
	return 0;
}

/* Send the loss probe (see vrnic_req_probe_due()).  @sq_lock held. */
static void vrnic_req_loss_probe(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	xp->loss_probed = true;
	vrnic_counter_inc(vrnic_qp_dev(qp), VRNIC_CNT_LOSS_PROBES);
	vrnic_qp_dbg(qp, "loss probe: comp_psn %#x max_psn %#x srtt %u us\n",
		     xp->comp_psn, xp->max_psn, xp->srtt_us);
	if (xp->sel_active)
		xp->sel_pending = true;	/* the resend again, as it was */
	else
		vrnic_req_resend_alone(xp, vrnic_psn_add(xp->max_psn,
							 VRNIC_PSN_MASK), false);
}

void vrnic_req_retrans_timer(struct timer_list *t)
{
	struct vrnic_qp *qp = from_timer(qp, t, xport.retrans_timer);
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);

	spin_lock_bh(&xp->sq_lock);
	if (xp->stopped || !xp->retrans_armed || xp->sq_err ||
	    READ_ONCE(qp->state) == IB_QPS_ERR ||
	    !vrnic_req_in_flight(xp))
		goto out;
	/* ACKs came since it was set: see vrnic_req_arm_timer(). */
	if (time_before(jiffies, xp->retrans_due)) {
		unsigned long expires = xp->retrans_due, when;

		/* Or set for a loss probe: now, or due before the deadline. */
		if (vrnic_req_probe_due(qp, &when) &&
		    !vrnic_cc_pfc_holding(qp)) {
			if (!time_before(jiffies, when)) {
				mod_timer(&xp->retrans_timer, expires);
				vrnic_req_loss_probe(qp);
				goto kick;
			}
			if (time_before(when, expires))
				expires = when;
		}
		mod_timer(&xp->retrans_timer, expires);
		goto out;
	}
	/* Expired: what is sent from now on arms it again. */
	xp->retrans_armed = false;
	/*
	 * Held by a PFC frame: nothing could be resent, and the packets
	 * before the pause may simply not have asked for their ACK yet.
	 * The storm guard bounds how long this defers the timeout.
	 */
	if (vrnic_cc_pfc_holding(qp)) {
		vrnic_req_arm_timer(qp);
		goto out;
	}
	xp->sq_stats.timeouts++;
	vrnic_counter_inc(vdev, VRNIC_CNT_TIMEOUTS);
	vrnic_qp_dbg(qp, "timeout: comp_psn %#x req_psn %#x max_psn %#x retry %u\n",
		     xp->comp_psn, xp->req_psn, xp->max_psn, xp->retry_left);
	if (vrnic_req_may_probe(qp)) {
		/*
		 * The ACKs may only be late (a deep queue, other QPs'
		 * bursts ahead of ours, a descheduled peer), and then a
		 * go-back-N would send the window twice.  Probe first, as
		 * TCP's tail loss probe does (RFC 8985 7): resend the
		 * newest packet alone, asking for an ACK, and keep the
		 * window.  The answer is an ACK of everything (nothing was
		 * lost, or only that packet), or a sequence NAK for the
		 * first PSN the responder misses, handled as any NAK.  It
		 * uses up no retry: the go-back-N after it does.
		 * A selective resend still unanswered is sent again instead:
		 * the responder already NAKed that PSN, and a NAK of it
		 * again would be taken for a copy (comp.c).
		 */
		vrnic_req_resend_alone(xp, xp->sel_active ? xp->sel_psn :
				       vrnic_psn_add(xp->max_psn,
						     VRNIC_PSN_MASK), true);
		goto kick;
	}
	if (qp->attr.timeout && !xp->retry_left) {
		vrnic_counter_inc(vdev, VRNIC_CNT_RETRY_EXCEEDED);
		vrnic_comp_fail_head(qp, IB_WC_RETRY_EXC_ERR);
		goto out;
	}
	if (qp->attr.timeout)
		xp->retry_left--;
	/*
	 * Everything in flight was lost, most likely to a full queue on
	 * the path, and resending the whole window at once would refill
	 * it: start again with a small window, in slow start up to half
	 * the old one.
	 */
	vrnic_req_window_lost(xp, true);
	vrnic_req_rewind(qp, xp->comp_psn);
kick:
	set_bit(VRNIC_XP_KICK, &xp->kick);
out:
	if (vrnic_sq_unlock(qp))
		vrnic_req_schedule(qp);
}

void vrnic_req_rnr_timer(struct timer_list *t)
{
	struct vrnic_qp *qp = from_timer(qp, t, xport.rnr_timer);
	struct vrnic_qp_xport *xp = &qp->xport;

	spin_lock_bh(&xp->sq_lock);
	xp->rnr_wait = false;
	spin_unlock_bh(&xp->sq_lock);
	/* Runs the requester anyway, a pending kick's run included. */
	vrnic_req_schedule(qp);
}
