// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: the completer (IBA 9.7.5.2, requester side of RC reliability).
 *
 * Matches ACKs, NAKs, RDMA READ responses and ATOMIC acknowledgments
 * against the send WQEs in flight, completes WQEs in order, and tells the
 * requester to go back (sequence NAK, lost READ responses, RNR NAK once
 * the RNR timer expires).  Runs in the receive softirq under @sq_lock.
 */
#include "vrnic.h"
#include "verbs.h"
#include "opcode.h"

/* IBA table 45: RNR NAK timer field -> microseconds. */
static const u32 vrnic_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120,
	160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static void vrnic_comp_stop_timers(struct vrnic_qp *qp)
{
	vrnic_req_disarm_timer(qp);
	del_timer(&qp->xport.retrans_timer);
	del_timer(&qp->xport.rnr_timer);
	qp->xport.rnr_wait = false;
}

/**
 * vrnic_comp_error - the QP is in ERR: flush the SQ
 * @qp: the QP, @sq_lock held
 *
 * Every WQE not yet completed, and every one posted later, completes
 * with IB_WC_WR_FLUSH_ERR (IBA 10.3.1).
 */
void vrnic_comp_error(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	xp->sq_err = true;
	vrnic_comp_stop_timers(qp);
	vrnic_sq_flush(qp);
	vrnic_req_cursor_reset(qp);
}

/* A WQE failed: the QP goes to ERR, the receive side flushes too. */
static void vrnic_comp_enter_error(struct vrnic_qp *qp)
{
	vrnic_qp_error(qp);
	vrnic_comp_error(qp);
	vrnic_resp_schedule(qp);
}

/**
 * vrnic_comp_sq_drained - report IB_EVENT_SQ_DRAINED once it is true
 * @qp: the QP, @sq_lock held
 *
 * IBA 11.6.3.3 / 10.3.1: in SQD the requester starts no new WQE; once
 * every WQE it started has completed the QP is drained, which the
 * consumer learns by this event (once per entry into SQD).
 */
void vrnic_comp_sq_drained(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	if (!xp->sqd_pending || READ_ONCE(qp->state) != IB_QPS_SQD ||
	    vrnic_sq_cons(qp) != xp->init_idx)
		return;
	xp->sqd_pending = false;
	vrnic_qp_event(qp, IB_EVENT_SQ_DRAINED);
}

/**
 * vrnic_comp_retire - complete the finished WQEs at the head of the SQ
 * @qp: the QP, @sq_lock held
 *
 * Completions are posted strictly in SQ order (IBA 10.8.2.2).
 */
void vrnic_comp_retire(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_send_wqe *wqe;
	enum ib_wc_status st;
	u32 cons;
	int err;

	while ((cons = vrnic_sq_cons(qp)) != xp->init_idx) {
		wqe = vrnic_sq_get(qp, cons);
		if (wqe->xport.state != VRNIC_WQE_DONE)
			return;
		st = wqe->xport.status;
		if (wqe->xport.rd_atomic) {
			wqe->xport.rd_atomic = 0;
			xp->rd_atomic_out--;
		}
		err = vrnic_sq_complete(qp, wqe, st);
		if (xp->send_idx == cons) {
			xp->send_idx = vrnic_sq_cons(qp);
			xp->send_off = 0;
		}
		if (st != IB_WC_SUCCESS || err) {
			vrnic_comp_enter_error(qp);
			return;
		}
	}
	vrnic_comp_sq_drained(qp);
}

/**
 * vrnic_comp_fail_head - complete the oldest WQE with an error
 * @qp: the QP, @sq_lock held
 * @st: its completion status; the QP then goes to ERR
 */
void vrnic_comp_fail_head(struct vrnic_qp *qp, enum ib_wc_status st)
{
	struct vrnic_send_wqe *wqe;
	u32 cons = vrnic_sq_cons(qp);

	if (cons == qp->xport.init_idx) {
		vrnic_comp_enter_error(qp);
		return;
	}
	wqe = vrnic_sq_get(qp, cons);
	wqe->xport.state = VRNIC_WQE_DONE;
	wqe->xport.status = st;
	vrnic_comp_retire(qp);
}

/*
 * Complete SEND/WRITE/ATOMIC WRITE WQEs whose last PSN is at or before
 * @limit (IBA 9.7.5.1.1: ACKs are cumulative).  Returns true if it
 * stopped at a READ or ATOMIC the responder has already moved past: its
 * responses were lost.  *@progress is set when something completed.
 */
static bool vrnic_comp_ack_upto(struct vrnic_qp *qp, u32 limit,
				bool *progress)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_send_wqe *wqe;
	u32 idx;

	for (idx = vrnic_sq_cons(qp); idx != xp->init_idx;
	     idx = vrnic_sq_next(qp, idx)) {
		wqe = vrnic_sq_get(qp, idx);
		if (wqe->xport.state == VRNIC_WQE_DONE)
			continue;
		if (vrnic_psn_cmp(limit, wqe->xport.first_psn) < 0)
			break;
		if (vrnic_wr_has_resp_data(wqe->opcode))
			return true;
		if (vrnic_psn_cmp(limit, wqe->xport.last_psn) < 0)
			break;
		wqe->xport.state = VRNIC_WQE_DONE;
		wqe->xport.status = IB_WC_SUCCESS;
		if (vrnic_psn_cmp(wqe->xport.last_psn, xp->comp_psn) >= 0)
			xp->comp_psn = vrnic_psn_add(wqe->xport.last_psn, 1);
		*progress = true;
	}
	vrnic_comp_retire(qp);
	return false;
}

static void vrnic_comp_advance(struct vrnic_qp *qp, u32 psn)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	if (vrnic_psn_cmp(psn, xp->comp_psn) > 0)
		xp->comp_psn = psn;
}

/* One RDMA READ response packet for the WQE at the head. */
static bool vrnic_comp_read_resp(struct vrnic_qp *qp, struct sk_buff *skb,
				 struct vrnic_send_wqe *wqe)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	u32 mtu = vrnic_qp_mtu(qp), off, want;
	bool last = pkt->mask & VRNIC_M_LAST;
	bool at_last_psn = pkt->psn == wqe->xport.last_psn;
	int err;

	/* LAST/ONLY exactly at the WQE's last PSN, FIRST/MIDDLE before. */
	if (last != at_last_psn ||
	    vrnic_psn_cmp(pkt->psn, wqe->xport.last_psn) > 0)
		return false;
	off = ((pkt->psn - wqe->xport.first_psn) & VRNIC_PSN_MASK) * mtu;
	want = last ? wqe->dma.length - off : mtu;
	if (off > wqe->dma.length || pkt->paylen != want)
		return false;

	if (wqe->dma.length - wqe->dma.resid != off)
		vrnic_dma_seek(&wqe->dma, off);
	if (want) {
		err = vrnic_pkt_to_dma(skb, qp->pd, &wqe->dma);
		if (err) {
			vrnic_comp_fail_head(qp, err == -ENOSPC ?
					     IB_WC_LOC_LEN_ERR :
					     IB_WC_LOC_PROT_ERR);
			return true;
		}
	}
	vrnic_comp_advance(qp, vrnic_psn_add(pkt->psn, 1));
	if (last) {
		wqe->xport.state = VRNIC_WQE_DONE;
		wqe->xport.status = IB_WC_SUCCESS;
		vrnic_comp_retire(qp);
	}
	return true;
}

static bool vrnic_comp_atomic_ack(struct vrnic_qp *qp, struct sk_buff *skb,
				  struct vrnic_send_wqe *wqe)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	const struct vrnic_atmack *ack;
	u64 orig;
	int err;

	/* Only a CMP_SWAP or FETCH_ADD has an original value to receive. */
	if (pkt->psn != wqe->xport.first_psn ||
	    wqe->opcode == IB_WR_RDMA_READ ||
	    !vrnic_wr_has_resp_data(wqe->opcode))
		return false;
	ack = (void *)(pkt->hdr + vrnic_opcode[pkt->opcode].off_atmack);
	orig = be64_to_cpu(ack->orig);
	vrnic_dma_seek(&wqe->dma, 0);
	err = vrnic_dma_copy(qp->pd, &wqe->dma, &orig, sizeof(orig),
			     VRNIC_TO_MR);
	if (err) {
		vrnic_comp_fail_head(qp, IB_WC_LOC_PROT_ERR);
		return true;
	}
	vrnic_comp_advance(qp, vrnic_psn_add(pkt->psn, 1));
	wqe->xport.state = VRNIC_WQE_DONE;
	wqe->xport.status = IB_WC_SUCCESS;
	vrnic_comp_retire(qp);
	return true;
}

/* IBA 9.7.5.2.8: wait, then resend from @psn, at most rnr_retry times. */
static void vrnic_comp_rnr_nak(struct vrnic_qp *qp, u32 psn, u8 syn)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);
	unsigned long delay = usecs_to_jiffies(vrnic_rnr_usecs[syn & VRNIC_AETH_VALUE_MASK]);

	xp->sq_stats.rnr_naks++;
	vrnic_counter_inc(vdev, VRNIC_CNT_RNR_NAKS_RCVD);
	if (qp->attr.rnr_retry != 7) {	/* 7 means retry forever */
		if (!xp->rnr_left) {
			vrnic_counter_inc(vdev, VRNIC_CNT_RNR_RETRY_EXCEEDED);
			vrnic_comp_fail_head(qp, IB_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		xp->rnr_left--;
	}
	vrnic_req_rewind(qp, psn);
	xp->rnr_wait = true;
	vrnic_req_disarm_timer(qp);
	if (!xp->stopped)
		mod_timer(&xp->rnr_timer, jiffies + max(delay, 1UL));
}

static enum ib_wc_status vrnic_nak_status(u8 code)
{
	switch (code) {
	case VRNIC_NAK_INVALID_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case VRNIC_NAK_REM_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	default:
		return IB_WC_REM_OP_ERR;
	}
}

/*
 * Responses the requester expected before this packet never came (READ
 * responses or an atomic acknowledge lost or reordered), an "implied
 * NAK" (IBA 9.7.5.2): go back to @comp_psn, once.  Further out-of-order
 * responses of the same burst would only ask again for what is already
 * being resent; the retransmit timer covers a lost re-request.
 */
static bool vrnic_comp_lost(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	if (xp->rewind_psn == xp->comp_psn)
		return false;
	vrnic_counter_inc(vrnic_qp_dev(qp), VRNIC_CNT_IMPLIED_NAK_SEQ_ERR);
	vrnic_req_window_cut(qp);
	vrnic_req_rewind(qp, xp->comp_psn);
	return true;
}

/*
 * A READ response that makes no progress -- one past a gap, or one of
 * PSNs that arrived already -- still shows the responder at work on this
 * QP's READs.  A responder that answers every duplicate READ request
 * with the whole rest of that READ (rdma_rxe does, IBA 9.7.5.1.2 allows
 * it) streams the replays it queued before the one we asked for last.
 * If the ACK timeout expired meanwhile, the go-back-N would queue yet
 * another replay behind them, one more per timeout, until the retry
 * count ran out with the responder busy all along (wire_hostile's
 * read_replays_hold_off_the_timeout).  So such a response restarts the
 * timeout, as progress does, but refills no retry: the timeout fires
 * once the responder has fallen silent for a whole timeout.  Only while
 * the oldest WQE waiting is a READ, and for PSNs sent.  @sq_lock held.
 */
static void vrnic_comp_read_alive(struct vrnic_qp *qp,
				  const struct vrnic_pkt *pkt)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_send_wqe *wqe;

	if (!(vrnic_opcode[pkt->opcode].mask & VRNIC_M_READ) ||
	    vrnic_sq_cons(qp) == xp->init_idx)
		return;
	wqe = vrnic_sq_get(qp, vrnic_sq_cons(qp));
	if (wqe->xport.state == VRNIC_WQE_DONE ||
	    wqe->opcode != IB_WR_RDMA_READ ||
	    vrnic_psn_cmp(pkt->psn, xp->max_psn) >= 0)
		return;
	vrnic_req_arm_timer(qp);
}

/*
 * Handle one response: @pkt, of @skb (NULL for an ACK without a packet,
 * vrnic_comp_rcv_ack(): a plain ACK never reads @skb).  Returns true when
 * the requester should run (window opened, or a retransmission was set
 * up).
 */
static bool vrnic_comp_one(struct vrnic_qp *qp, struct vrnic_pkt *pkt,
			   struct sk_buff *skb)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);
	const struct vrnic_opcode_info *info = &vrnic_opcode[pkt->opcode];
	struct vrnic_send_wqe *wqe;
	bool progress = false, lost;
	u32 psn = pkt->psn, old_comp = xp->comp_psn;
	u8 syn = 0;

	/* Responses to PSNs never sent, or already fully handled. */
	if (vrnic_psn_cmp(psn, xp->max_psn) >= 0 ||
	    vrnic_psn_cmp(psn, xp->comp_psn) < 0) {
		vrnic_qp_dbg(qp, "stale response op %#x psn %#x (comp %#x max %#x)\n",
			     pkt->opcode, psn, xp->comp_psn, xp->max_psn);
		xp->sq_stats.drops++;
		vrnic_comp_read_alive(qp, pkt);
		return false;
	}
	if (info->mask & VRNIC_M_AETH)
		syn = aeth_syn((void *)(pkt->hdr + info->off_aeth));

	if (pkt->opcode == (VRNIC_OP_RC | VRNIC_ACK) &&
	    (syn & VRNIC_AETH_TYPE_MASK) == VRNIC_AETH_ACK) {
		lost = vrnic_comp_ack_upto(qp, psn, &progress);
		if (lost) {
			vrnic_comp_lost(qp);
		} else {
			vrnic_comp_advance(qp, vrnic_psn_add(psn, 1));
			vrnic_req_sel_ack(qp, psn);
		}
		goto out;
	}

	/* Everything before this packet's PSN is acknowledged. */
	lost = vrnic_comp_ack_upto(qp, vrnic_psn_add(psn, VRNIC_PSN_MASK),
				   &progress);
	if (xp->sq_err)
		return false;
	if (lost && !(info->mask & (VRNIC_M_READ | VRNIC_M_ATOMIC))) {
		vrnic_comp_lost(qp);
		goto out;
	}

	if (pkt->opcode == (VRNIC_OP_RC | VRNIC_ACK)) {
		vrnic_comp_advance(qp, psn);
		switch (syn & VRNIC_AETH_TYPE_MASK) {
		case VRNIC_AETH_RNR_NAK:
			vrnic_comp_rnr_nak(qp, psn, syn);
			return false;
		case VRNIC_AETH_NAK:
			if ((syn & VRNIC_AETH_VALUE_MASK) == VRNIC_NAK_PSN_SEQ) {
				xp->sq_stats.seq_naks++;
				vrnic_counter_inc(vdev,
						  VRNIC_CNT_SEQ_ERR_NAKS_RCVD);
				/* A duplicated NAK must not restart the resend. */
				if (xp->rewind_psn == psn)
					return false;
				/*
				 * An answer to a loss probe, maybe: the
				 * resend it asks for may be probed in turn.
				 */
				if (xp->comp_psn != old_comp)
					xp->loss_probed = false;
				vrnic_req_seq_nak(qp, psn);
				return true;
			}
			vrnic_qp_dbg(qp, "NAK %#x psn %#x\n", syn, psn);
			if ((syn & VRNIC_AETH_VALUE_MASK) == VRNIC_NAK_REM_ACCESS)
				xp->sq_stats.access_errors++;
			vrnic_comp_fail_head(qp, vrnic_nak_status(syn & VRNIC_AETH_VALUE_MASK));
			return false;
		default:
			xp->sq_stats.drops++;	/* reserved syndrome */
			return false;
		}
	}

	/*
	 * READ response or ATOMIC acknowledge for the WQE at the head
	 * (IBA 9.9.2 requester response checks): its opcode must be the
	 * one the WQE asked for and its PSN within the WQE's, or it is a
	 * counted drop -- never data written into the WQE's buffer.  A SEND
	 * WRITE or ATOMIC WRITE is acknowledged by ACKs only.
	 */
	if (vrnic_sq_cons(qp) == xp->init_idx)
		goto bad;
	wqe = vrnic_sq_get(qp, vrnic_sq_cons(qp));
	if (wqe->xport.state == VRNIC_WQE_DONE ||
	    vrnic_psn_cmp(psn, wqe->xport.first_psn) < 0 ||
	    !vrnic_wr_has_resp_data(wqe->opcode))
		goto bad;
	/*
	 * A response of a later WQE (below max_psn, checked above): the
	 * rest of the head's never came.  Waiting for the retransmit timer
	 * instead would leave the responder streaming everything after
	 * them, all of it dropped here, for a whole timeout.
	 */
	if (vrnic_psn_cmp(psn, wqe->xport.last_psn) > 0)
		goto out_of_sequence;
	/* Earlier responses (maybe of this very WQE) were lost. */
	if (psn != xp->comp_psn)
		goto out_of_sequence;
	if (info->mask & VRNIC_M_READ) {
		if (wqe->opcode != IB_WR_RDMA_READ ||
		    !vrnic_comp_read_resp(qp, skb, wqe))
			goto bad;
	} else if (!vrnic_comp_atomic_ack(qp, skb, wqe)) {
		goto bad;
	}
	progress = true;
out:
	/* Any newly acknowledged PSN is progress, even mid-message. */
	if (xp->comp_psn != old_comp)
		progress = true;
	if (progress) {
		xp->retry_left = qp->attr.retry_cnt;
		xp->rnr_left = qp->attr.rnr_retry;
		/* The path works: a later timeout probes again. */
		xp->sel_timeout = false;
		/* See vrnic_req_seq_nak(). */
		if (xp->rewind_unacked &&
		    vrnic_psn_cmp(xp->comp_psn, xp->rewind_high) >= 0)
			xp->rewind_unacked = false;
		xp->loss_probed = false;
		vrnic_req_window_grow(qp, (xp->comp_psn - old_comp) &
					  VRNIC_PSN_MASK);
		vrnic_req_rtt_sample(qp);
		if (vrnic_req_in_flight(xp))
			vrnic_req_arm_timer(qp);
		else
			vrnic_req_disarm_timer(qp);
	}
	return true;
out_of_sequence:
	/* Go-back-N keeps nothing past a gap: dropped, asked for again. */
	xp->sq_stats.drops++;
	vrnic_comp_lost(qp);
	if (xp->comp_psn == old_comp)
		vrnic_comp_read_alive(qp, pkt);
	goto out;
bad:
	vrnic_qp_dbg(qp, "bad response op %#x psn %#x\n", pkt->opcode, psn);
	xp->sq_stats.drops++;
	vrnic_counter_inc(vdev, VRNIC_CNT_DROP_MALFORMED);
	return false;
}

/* vrnic_comp_rcv() and vrnic_comp_rcv_ack(); true: run the requester. */
static bool vrnic_comp_take(struct vrnic_qp *qp, struct vrnic_pkt *pkt,
			    struct sk_buff *skb)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	bool kick = false;

	spin_lock_bh(&xp->sq_lock);
	if (qp->ibqp.qp_type != IB_QPT_RC || xp->sq_err || xp->stopped) {
		xp->sq_stats.drops++;
	} else {
		xp->sq_stats.rx_packets++;
		xp->sq_stats.rx_bytes += pkt->paylen;
		kick = vrnic_comp_one(qp, pkt, skb);
	}
	if (vrnic_sq_unlock(qp))
		kick = true;
	return kick;
}

/**
 * vrnic_comp_rcv - handle a response packet (ACK, NAK, READ response,
 * ATOMIC acknowledge) for an RC QP
 * @qp: the QP the packet was addressed to
 * @skb: the packet, parsed and verified by vrnic_rcv(); consumed
 */
void vrnic_comp_rcv(struct vrnic_qp *qp, struct sk_buff *skb)
{
	bool kick = vrnic_comp_take(qp, vrnic_pkt(skb), skb);

	consume_skb(skb);
	if (kick)
		vrnic_req_kick(qp);
}

/**
 * vrnic_comp_rcv_ack - handle a plain ACK given without a packet
 * @qp: the QP it is for
 * @pkt: its headers, as vrnic_rcv_dev() would have parsed them
 *
 * See vrnic_local_ack().
 */
void vrnic_comp_rcv_ack(struct vrnic_qp *qp, struct vrnic_pkt *pkt)
{
	if (vrnic_comp_take(qp, pkt, NULL))
		vrnic_req_kick(qp);
}
