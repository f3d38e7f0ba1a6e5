// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: the responder (IBA 9.7.5.1 for RC, 9.8.2 UC, 9.8.3 UD).
 *
 * Executes incoming requests: places SEND data into receive WQEs, RDMA
 * WRITE data into memory regions, answers RDMA READ and ATOMIC requests,
 * acknowledges, and NAKs what it cannot do.  Every remote access is
 * checked by vrnic_mr_get() against the rkey, the QP's PD, the access
 * rights and the region's bounds before a byte moves, per packet, so a
 * region deregistered mid-message is never touched again.
 *
 * Runs in the receive softirq under @rq_lock.  A READ whose responses
 * exceed one run's budget, or that the QP's pacer holds (DCQCN, PFC),
 * continues on the QP's responder work item; requests arriving meanwhile
 * wait in @backlog so execution stays in PSN order.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/if_ether.h>
#include <net/dst.h>

#include "vrnic.h"
#include "verbs.h"
#include "opcode.h"

#define VRNIC_RESP_BUDGET	32	/* READ responses per run */
#define VRNIC_RESP_BACKLOG	1024	/* requests queued behind a READ */
#define VRNIC_GRH_BYTES		40

enum vrnic_resp_res {
	RESP_OK,
	RESP_RNR,		/* no receive WQE: RNR NAK (RC) */
	RESP_NAK_INV,		/* invalid request */
	RESP_NAK_ACC,		/* remote access error */
	RESP_NAK_OP,		/* remote operational error */
	RESP_ERR,		/* local error already completed: QP to ERR */
};

/*
 * The first 8 payload bytes, which vrnic_rcv_dev() puts in the linear
 * area (an ATOMIC WRITE's whole payload); the rest may be in fragments:
 * vrnic_pkt_to_dma() and vrnic_pkt_to_mr() read all of it.
 */
static inline void *vrnic_payload8(struct vrnic_pkt *pkt)
{
	return pkt->hdr + vrnic_opcode[pkt->opcode].length;
}

static void vrnic_resp_ack_unhold(struct vrnic_qp *qp);

/* Send a response; 0 or vrnic_xmit()'s error (the packet is gone). */
static int vrnic_resp_xmit(struct vrnic_qp *qp, struct sk_buff *skb,
			   u32 payload)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	int err;

	/* A held ACK was answered earlier: it must not arrive later. */
	if (unlikely(xp->held_ack.peer))
		vrnic_resp_ack_unhold(qp);
	err = vrnic_xmit(vrnic_qp_dev(qp), &qp->av, &xp->route, xp->sport,
			 xp->reply_cpu, skb);
	if (!err) {
		xp->rq_stats.tx_packets++;
		xp->rq_stats.tx_bytes += payload;
	}
	return err;
}

/*
 * A response packet with room for @payload bytes, or, if @lent, for the
 * headers alone (the payload, pad and ICRC to be appended as fragments:
 * vrnic_mr_lend(), vrnic_skb_add_tail()); headers set, an AETH's from
 * @syn and @msn.
 */
static struct sk_buff *vrnic_resp_alloc(struct vrnic_qp *qp, u8 op, u32 psn,
					u32 payload, u8 syn, u32 msn, bool lent)
{
	const struct vrnic_opcode_info *info = &vrnic_opcode[op];
	u32 pad = -payload & 3;
	struct sk_buff *skb;
	u8 *hdr;

	skb = vrnic_skb_alloc(vrnic_qp_dev(qp), info->length +
			      (lent ? 0 : payload + pad + VRNIC_ICRC_BYTES));
	if (!skb)
		return NULL;
	hdr = skb->data;
	bth_set((struct vrnic_bth *)hdr, op, false, pad, VRNIC_DEFAULT_PKEY,
		qp->attr.dest_qp_num, false, psn);
	if (info->mask & VRNIC_M_AETH)
		aeth_set((void *)(hdr + info->off_aeth), syn, msn);
	if (!lent)
		memset(hdr + info->length + payload, 0, pad);
	return skb;
}

#define VRNIC_SYN_PLAIN_ACK	(VRNIC_AETH_ACK | VRNIC_AETH_CREDIT_INVALID)

/*
 * A plain ACK to a requester on this host goes without a packet (see
 * vrnic_local_ack() in recv.c).  The completer it goes to takes that
 * QP's @sq_lock, which modify_qp nests outside @rq_lock, so it cannot
 * run here: vrnic_resp_rcv() lets the ACK wait in @held_ack and gives it
 * after dropping @rq_lock.  Only where its packet would be received on
 * this CPU and nothing the responder sent before waits in this CPU's
 * local-delivery FIFO (vrnic_route_local_idle()), so that the ACK
 * overtakes no earlier response; and anything the
 * responder sends after it sends the ACK first, as a packet
 * (vrnic_resp_xmit()).  A later ACK of the same run replaces it: an ACK
 * acknowledges every PSN up to its own.  @rq_lock held.
 */
static bool vrnic_resp_ack_hold(struct vrnic_qp *qp, u32 psn)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_held_ack *held = &xp->held_ack;

	if (!xp->ack_hold)
		return false;
	if (!held->peer) {
		if (!vrnic_route_local_idle(vrnic_qp_dev(qp), &qp->av,
					    &xp->route, xp->reply_cpu))
			return false;
		held->peer = vrnic_local_ack_peer(qp);
		if (!held->peer)
			return false;
	}
	held->psn = psn;
	held->msn = xp->msn;
	return true;
}

/*
 * The held ACK as a packet, because the responder sends another one
 * behind it.  @rq_lock held.
 */
static void vrnic_send_ack_msn(struct vrnic_qp *qp, u8 syn, u32 psn, u32 msn);

static void vrnic_resp_ack_unhold(struct vrnic_qp *qp)
{
	struct vrnic_held_ack held = qp->xport.held_ack;

	qp->xport.held_ack.peer = NULL;
	vrnic_local_ack_put(held.peer);
	vrnic_send_ack_msn(qp, VRNIC_SYN_PLAIN_ACK, held.psn, held.msn);
}

/*
 * ACK or NAK (IBA 9.7.5.1.1) for @psn, with MSN @msn.
 *
 * One the stack refuses (a full qdisc, a veth peer's backlog: see
 * vrnic_cc_refused()) is one this host dropped, and an answer lost so
 * cost the requester a loss probe or its ACK timeout when nothing
 * followed it (the last ACK of a stream, a sequence NAK).  So it is kept
 * and sent again by the responder's work item after the same pause as a
 * refused READ response, until VRNIC_REFUSED_ANSWER_MAX refusals in a
 * row.  A later answer replaces it: an ACK acknowledges every PSN up to
 * its own, and the responder NAKs only its expected PSN.
 */
static void vrnic_send_ack_msn(struct vrnic_qp *qp, u8 syn, u32 psn, u32 msn)
{
	struct vrnic_refused_ack *again = &qp->xport.refused_ack;
	struct sk_buff *skb;
	int err;

	again->pending = false;
	skb = vrnic_resp_alloc(qp, VRNIC_OP_RC | VRNIC_ACK, psn, 0, syn, msn,
			       false);
	if (!skb)
		return;
	err = vrnic_resp_xmit(qp, skb, 0);
	if (err != -ENOBUFS) {
		again->refusals = 0;
		return;
	}
	if (!vrnic_cc_refused(qp, VRNIC_CC_RESPONDER, &again->refusals,
			      VRNIC_REFUSED_ANSWER_MAX))
		return;
	again->pending = true;
	again->syn = syn;
	again->psn = psn;
	again->msn = msn;
}

static void vrnic_send_ack(struct vrnic_qp *qp, u8 syn, u32 psn)
{
	if (syn == VRNIC_SYN_PLAIN_ACK && vrnic_resp_ack_hold(qp, psn)) {
		qp->xport.refused_ack.pending = false;
		return;
	}
	vrnic_send_ack_msn(qp, syn, psn, qp->xport.msn);
}

/* The work item's turn: the refused answer again.  @rq_lock held. */
static void vrnic_resp_ack_again(struct vrnic_qp *qp)
{
	struct vrnic_refused_ack again = qp->xport.refused_ack;

	if (again.pending)
		vrnic_send_ack_msn(qp, again.syn, again.psn, again.msn);
}

static void vrnic_send_nak(struct vrnic_qp *qp, u8 code, u32 psn)
{
	vrnic_send_ack(qp, VRNIC_AETH_NAK | code, psn);
}

/* IBA 9.7.5.1.1: one sequence NAK per gap, for the PSN we expect. */
static void vrnic_resp_seq_nak(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	if (xp->nak_sent)
		return;
	xp->nak_sent = true;
	xp->rq_stats.seq_naks++;
	vrnic_counter_inc(vrnic_qp_dev(qp), VRNIC_CNT_SEQ_ERR_NAKS_SENT);
	vrnic_send_nak(qp, VRNIC_NAK_PSN_SEQ, xp->epsn);
}

/*
 * The gap's sequence NAK again, for a resent request that asks for an
 * ACK: the requester is still waiting, so the first NAK was lost (or
 * crossed the resend).  One NAK per gap holds otherwise; without this
 * one the gap would stay open until a second timeout made the requester
 * go back N.  It is the NAK any requester knows, and acknowledges what
 * an ACK would; vrnic's ignores a copy of one it has (comp.c).
 */
static void vrnic_resp_seq_nak_again(struct vrnic_qp *qp)
{
	qp->xport.nak_sent = false;
	vrnic_resp_seq_nak(qp);
}

/*
 * A request in sequence ran and asked for an ACK.  While requests are
 * held past it (it filled a gap), or an answer is already owed, the ACK
 * waits until they ran: see vrnic_resp_gap_answer().
 */
static void vrnic_resp_ack_owed(struct vrnic_qp *qp, u32 psn)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	if (!skb_queue_empty(&xp->ooo) || xp->ack_deferred) {
		xp->ack_deferred = true;
		return;
	}
	vrnic_send_ack(qp, VRNIC_SYN_PLAIN_ACK, psn);
}

static void vrnic_send_atomic_ack(struct vrnic_qp *qp, u32 psn, u64 orig)
{
	u8 op = VRNIC_OP_RC | VRNIC_ATOMIC_ACK;
	struct vrnic_atmack *ack;
	struct sk_buff *skb;

	skb = vrnic_resp_alloc(qp, op, psn, 0, VRNIC_SYN_PLAIN_ACK,
			       qp->xport.msn, false);
	if (!skb)
		return;
	ack = (void *)(skb->data + vrnic_opcode[op].off_atmack);
	ack->orig = cpu_to_be64(orig);
	vrnic_resp_xmit(qp, skb, 0);
}

/* Enter ERR from the responder: flush the RQ now, the SQ from its side. */
static void vrnic_resp_error(struct vrnic_qp *qp)
{
	vrnic_qp_error(qp);
	vrnic_rq_flush(qp);
	qp->xport.in_msg = false;
	vrnic_req_schedule(qp);
}

/* Post the completion of the held receive WQE and release it. */
static int vrnic_resp_complete(struct vrnic_qp *qp, struct vrnic_recv_wqe *rwqe,
			       struct ib_wc *wc, bool solicited)
{
	int err;

	wc->wr_id = rwqe->wr_id;
	wc->qp = &qp->ibqp;
	wc->port_num = 1;
	err = vrnic_cq_post(qp->rcq, wc, solicited);
	vrnic_rq_done(qp);
	return err;
}

/* A receive WQE could not take the data: complete it with @st. */
static void vrnic_resp_fail_rwqe(struct vrnic_qp *qp,
				 struct vrnic_recv_wqe *rwqe,
				 enum ib_wc_status st)
{
	struct ib_wc wc = {
		.status = st,
		.opcode = IB_WC_RECV,
		.src_qp = qp->attr.dest_qp_num,
	};

	vrnic_resp_complete(qp, rwqe, &wc, false);
}

/*
 * IBA 9.7.5.1.3 length check of a SEND or WRITE packet against the path
 * MTU: a FIRST or MIDDLE packet carries exactly one MTU, no packet more.
 * Needs no responder state, so it also runs before a packet is held.
 */
static bool vrnic_resp_len_ok(struct vrnic_qp *qp, struct vrnic_pkt *pkt)
{
	u32 mtu = qp->xport.mtu;

	if (!(pkt->mask & (VRNIC_M_SEND | VRNIC_M_WRITE)))
		return true;
	return pkt->paylen <= mtu &&
	       (!(pkt->mask & VRNIC_M_FULL) || pkt->paylen == mtu);
}

/* SEND packets of RC and UC. */
static int vrnic_resp_send(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	const struct vrnic_opcode_info *info = &vrnic_opcode[pkt->opcode];
	struct vrnic_recv_wqe *rwqe;
	struct ib_wc wc = {};
	int err;

	if (!vrnic_resp_len_ok(qp, pkt))
		return RESP_NAK_INV;
	rwqe = vrnic_rq_get(qp);
	if (!rwqe)
		return RESP_RNR;
	if (rwqe->status != IB_WC_SUCCESS) {
		vrnic_resp_fail_rwqe(qp, rwqe, rwqe->status);
		return RESP_ERR;
	}
	if (pkt->mask & VRNIC_M_FIRST)
		vrnic_dma_seek(&rwqe->dma, 0);
	if (pkt->paylen > rwqe->dma.resid) {
		vrnic_resp_fail_rwqe(qp, rwqe, IB_WC_LOC_LEN_ERR);
		return RESP_NAK_INV;
	}
	if (pkt->paylen) {
		err = vrnic_pkt_to_dma(skb, qp->pd, &rwqe->dma);
		if (err) {
			vrnic_resp_fail_rwqe(qp, rwqe, IB_WC_LOC_PROT_ERR);
			return RESP_NAK_OP;
		}
	}
	if (!(pkt->mask & VRNIC_M_LAST))
		return RESP_OK;

	wc.status = IB_WC_SUCCESS;
	wc.opcode = IB_WC_RECV;
	wc.byte_len = rwqe->dma.length - rwqe->dma.resid;
	wc.src_qp = qp->attr.dest_qp_num;
	if (info->mask & VRNIC_M_IMMDT) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = ((struct vrnic_immdt *)
				  (pkt->hdr + info->off_immdt))->imm;
	}
	if (info->mask & VRNIC_M_IETH) {
		u32 rkey = be32_to_cpu(((struct vrnic_ieth *)
					(pkt->hdr + info->off_ieth))->rkey);

		if (vrnic_mr_invalidate(qp, rkey)) {
			vrnic_resp_fail_rwqe(qp, rwqe, IB_WC_REM_INV_REQ_ERR);
			return RESP_NAK_OP;
		}
		wc.wc_flags |= IB_WC_WITH_INVALIDATE;
		wc.ex.invalidate_rkey = rkey;
	}
	if (vrnic_resp_complete(qp, rwqe, &wc,
				bth_se((struct vrnic_bth *)pkt->hdr)))
		return RESP_ERR;
	return RESP_OK;
}

/* RDMA WRITE packets of RC and UC. */
static int vrnic_resp_write(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	const struct vrnic_opcode_info *info = &vrnic_opcode[pkt->opcode];
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_recv_wqe *rwqe = NULL;
	struct vrnic_mr *mr;

	if (!vrnic_resp_len_ok(qp, pkt))
		return RESP_NAK_INV;

	if (pkt->mask & VRNIC_M_FIRST) {
		struct vrnic_reth *reth = (void *)(pkt->hdr + info->off_reth);
		u32 len = reth_len(reth);

		if (len > SZ_2G)
			return RESP_NAK_INV;
		/* IBA 9.7.4.1.3: a zero-length WRITE checks no rkey. */
		if (len) {
			mr = vrnic_rkey_get(qp, reth_rkey(reth), reth_va(reth),
					    len, IB_ACCESS_REMOTE_WRITE);
			if (IS_ERR(mr))
				return RESP_NAK_ACC;
			vrnic_mr_put(mr);
		}
		xp->wr_rkey = reth_rkey(reth);
		xp->wr_va = reth_va(reth);
		xp->wr_resid = len;
		xp->wr_len = len;
	}
	if (pkt->paylen > xp->wr_resid)
		return RESP_NAK_INV;
	if ((pkt->mask & VRNIC_M_LAST) && pkt->paylen != xp->wr_resid)
		return RESP_NAK_INV;

	/* Check for the receive WQE before writing: RNR retries resend. */
	if (pkt->mask & VRNIC_M_RWR) {
		rwqe = vrnic_rq_get(qp);
		if (!rwqe)
			return RESP_RNR;
		if (rwqe->status != IB_WC_SUCCESS) {
			vrnic_resp_fail_rwqe(qp, rwqe, rwqe->status);
			return RESP_ERR;
		}
	}

	if (pkt->paylen) {
		/* Checked again per packet: the MR may have gone. */
		mr = vrnic_rkey_get(qp, xp->wr_rkey, xp->wr_va, pkt->paylen,
				    IB_ACCESS_REMOTE_WRITE);
		if (IS_ERR(mr))
			return RESP_NAK_ACC;
		vrnic_pkt_to_mr(skb, mr, xp->wr_va);
		vrnic_mr_put(mr);
		xp->wr_va += pkt->paylen;
		xp->wr_resid -= pkt->paylen;
	}

	if (rwqe) {
		struct ib_wc wc = {
			.status = IB_WC_SUCCESS,
			.opcode = IB_WC_RECV_RDMA_WITH_IMM,
			.byte_len = xp->wr_len,
			.src_qp = qp->attr.dest_qp_num,
			.wc_flags = IB_WC_WITH_IMM,
		};

		wc.ex.imm_data = ((struct vrnic_immdt *)
				  (pkt->hdr + info->off_immdt))->imm;
		if (vrnic_resp_complete(qp, rwqe, &wc,
					bth_se((struct vrnic_bth *)pkt->hdr)))
			return RESP_ERR;
	}
	return RESP_OK;
}

/* How far vrnic_resp_read_stream() got. */
enum vrnic_read_progress {
	VRNIC_READ_DONE,	/* every response sent, or the READ abandoned */
	VRNIC_READ_MORE,	/* budget spent: run the work */
	VRNIC_READ_NOMEM,	/* no memory: vrnic_xport_nomem_wait() */
	VRNIC_READ_PACED,	/* held: vrnic_cc_tx_ok(), vrnic_cc_refused() */
};

/*
 * Send up to @budget responses of the READ in @res.  READ responses are
 * traffic of the QP's reaction point like its requests (DESIGN.md 1.2):
 * each waits for the pacer.
 */
static enum vrnic_read_progress
vrnic_resp_read_stream(struct vrnic_qp *qp, struct vrnic_rdres *res,
		       int budget)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	u32 mtu = xp->mtu, n, roce_bytes;
	struct vrnic_mr *mr;
	struct sk_buff *skb;
	bool first, last, lend;
	int err;
	u8 op;

	while (res->valid && vrnic_psn_cmp(res->cur_psn, res->last_psn) <= 0) {
		if (budget-- <= 0)
			return VRNIC_READ_MORE;
		if (!vrnic_cc_tx_ok(qp, VRNIC_CC_RESPONDER))
			return VRNIC_READ_PACED;
		n = min(res->resid, mtu);
		first = res->cur_psn == res->start_psn;
		last = res->cur_psn == res->last_psn;
		if (first && last)
			op = VRNIC_READ_RESP_ONLY;
		else if (first)
			op = VRNIC_READ_RESP_FIRST;
		else if (last)
			op = VRNIC_READ_RESP_LAST;
		else
			op = VRNIC_READ_RESP_MIDDLE;
		lend = vrnic_lend_resp_ok(&qp->xport.route, n);
		skb = vrnic_resp_alloc(qp, VRNIC_OP_RC | op, res->cur_psn, n,
				       VRNIC_SYN_PLAIN_ACK, qp->xport.msn, lend);
		if (!skb)
			return VRNIC_READ_NOMEM;
		if (n) {
			mr = vrnic_rkey_get(qp, res->rkey, res->va, n,
					    IB_ACCESS_REMOTE_READ);
			if (IS_ERR(mr)) {
				kfree_skb(skb);
				res->valid = false;
				xp->rq_stats.access_errors++;
				vrnic_counter_inc(vrnic_qp_dev(qp),
						  VRNIC_CNT_ACCESS_ERRORS);
				vrnic_send_nak(qp, VRNIC_NAK_REM_ACCESS,
					       res->cur_psn);
				return VRNIC_READ_DONE;
			}
			err = 0;
			if (lend) {
				err = vrnic_mr_lend(mr, res->va, n, skb) ?:
				      vrnic_skb_add_tail(skb, -n & 3);
			} else {
				vrnic_mr_copy(mr, res->va,
					      skb->data + vrnic_opcode[VRNIC_OP_RC | op].length,
					      n, VRNIC_FROM_MR);
			}
			vrnic_mr_put(mr);
			if (err) {
				kfree_skb(skb);
				return VRNIC_READ_NOMEM;
			}
		}
		roce_bytes = skb->len;
		/*
		 * A READ's responses have no send window: one request asks
		 * for up to 2 GiB, and they leave as fast as they are
		 * built, so they are the likeliest to be refused.
		 */
		err = vrnic_resp_xmit(qp, skb, n);
		if (err == -ENOBUFS &&
		    vrnic_cc_refused(qp, VRNIC_CC_RESPONDER,
				     &xp->read_refusals, VRNIC_REFUSED_MAX))
			return VRNIC_READ_PACED;	/* this PSN again */
		if (err != -ENOBUFS)
			xp->read_refusals = 0;
		/* As the requester: DCQCN counts only what left. */
		if (!err)
			vrnic_cc_sent(qp, roce_bytes);
		res->va += n;
		res->resid -= n;
		res->cur_psn = vrnic_psn_add(res->cur_psn, 1);
	}
	return VRNIC_READ_DONE;
}

/*
 * Stream @res now, or hand it to the work item if it is long; a paced
 * READ waits for the pacer's timer, which runs the work item, and one
 * short of memory for the nomem timer (vrnic_xport_nomem_wait()).
 */
static void vrnic_resp_read_start(struct vrnic_qp *qp, struct vrnic_rdres *res)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	enum vrnic_read_progress progress;

	progress = vrnic_resp_read_stream(qp, res, VRNIC_RESP_BUDGET);
	if (progress == VRNIC_READ_DONE)
		return;
	xp->res_cur = res;
	xp->resp_busy = true;
	if (progress == VRNIC_READ_MORE)
		vrnic_resp_schedule(qp);
	else if (progress == VRNIC_READ_NOMEM)
		vrnic_xport_nomem_wait(qp, VRNIC_XP_NOMEM_RESP);
}

static struct vrnic_rdres *vrnic_resp_res_alloc(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_rdres *res;

	if (!xp->nres)
		return NULL;
	res = &xp->res[xp->res_head];
	xp->res_head = (xp->res_head + 1) % xp->nres;
	memset(res, 0, sizeof(*res));
	return res;
}

static int vrnic_resp_read(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	const struct vrnic_opcode_info *info = &vrnic_opcode[pkt->opcode];
	struct vrnic_reth *reth = (void *)(pkt->hdr + info->off_reth);
	struct vrnic_qp_xport *xp = &qp->xport;
	u32 len = reth_len(reth), span;
	struct vrnic_rdres *res;
	struct vrnic_mr *mr;

	if (len > SZ_2G)
		return RESP_NAK_INV;
	if (len) {
		mr = vrnic_rkey_get(qp, reth_rkey(reth), reth_va(reth), len,
				    IB_ACCESS_REMOTE_READ);
		if (IS_ERR(mr))
			return RESP_NAK_ACC;
		vrnic_mr_put(mr);
	}
	res = vrnic_resp_res_alloc(qp);
	if (!res)
		return RESP_NAK_INV;	/* max_dest_rd_atomic is 0 */
	span = vrnic_npkts(len, xp->mtu);
	res->opcode = VRNIC_READ_REQUEST;
	res->valid = true;
	res->first_psn = pkt->psn;
	res->start_psn = pkt->psn;
	res->cur_psn = pkt->psn;
	res->last_psn = vrnic_psn_add(pkt->psn, span - 1);
	res->rkey = reth_rkey(reth);
	res->va = reth_va(reth);
	res->resid = len;

	xp->epsn = vrnic_psn_add(res->last_psn, 1);
	xp->msn++;
	vrnic_resp_read_start(qp, res);
	return RESP_OK;
}

static int vrnic_resp_atomic(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	const struct vrnic_opcode_info *info = &vrnic_opcode[pkt->opcode];
	struct vrnic_atmeth *a = (void *)(pkt->hdr + info->off_atmeth);
	bool cas = VRNIC_OP_CODE(pkt->opcode) == VRNIC_CMP_SWAP;
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_rdres *res;
	struct vrnic_mr *mr;
	u64 orig;
	int err;

	if (atmeth_va(a) & 7)
		return RESP_NAK_INV;	/* IBA 9.4.5: naturally aligned */
	mr = vrnic_rkey_get(qp, atmeth_rkey(a), atmeth_va(a), 8,
			    IB_ACCESS_REMOTE_ATOMIC);
	if (IS_ERR(mr))
		return RESP_NAK_ACC;
	err = vrnic_mr_atomic(mr, atmeth_va(a), cas,
			      cas ? atmeth_compare(a) : atmeth_swap_add(a),
			      atmeth_swap_add(a), &orig);
	vrnic_mr_put(mr);
	if (err)
		return RESP_NAK_INV;
	res = vrnic_resp_res_alloc(qp);
	if (res) {
		res->opcode = VRNIC_OP_CODE(pkt->opcode);
		res->valid = true;
		res->first_psn = pkt->psn;
		res->last_psn = pkt->psn;
		res->orig = orig;
	}
	xp->epsn = vrnic_psn_add(pkt->psn, 1);
	xp->msn++;
	vrnic_send_atomic_ack(qp, pkt->psn, orig);
	return RESP_OK;
}

/*
 * ATOMIC WRITE (IBTA 1.5): RETH with a DMA length of 8 and 8 bytes of
 * payload, stored at once at a naturally aligned address of a region the
 * rkey grants remote write on; answered by an ACK.  A duplicate is
 * acknowledged like a WRITE, never executed again (vrnic_resp_dup()).
 */
static int vrnic_resp_atomic_write(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	const struct vrnic_opcode_info *info = &vrnic_opcode[pkt->opcode];
	struct vrnic_reth *reth = (void *)(pkt->hdr + info->off_reth);
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_mr *mr;
	int err;

	if (reth_len(reth) != 8 || pkt->paylen != 8)
		return RESP_NAK_INV;
	if (reth_va(reth) & 7)
		return RESP_NAK_INV;	/* naturally aligned, as atomics */
	mr = vrnic_rkey_get(qp, reth_rkey(reth), reth_va(reth), 8,
			    IB_ACCESS_REMOTE_WRITE);
	if (IS_ERR(mr))
		return RESP_NAK_ACC;
	err = vrnic_mr_atomic_write(mr, reth_va(reth), vrnic_payload8(pkt));
	vrnic_mr_put(mr);
	if (err)
		return RESP_NAK_INV;
	xp->epsn = vrnic_psn_add(pkt->psn, 1);
	xp->msn++;
	vrnic_resp_ack_owed(qp, pkt->psn);
	return RESP_OK;
}

/* IBA 9.7.5.1.2: a request with a PSN we already executed. */
static void vrnic_resp_dup(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	const struct vrnic_opcode_info *info = &vrnic_opcode[pkt->opcode];
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_rdres *res = NULL;
	u32 i;

	xp->rq_stats.dup_requests++;
	vrnic_counter_inc(vrnic_qp_dev(qp), VRNIC_CNT_DUP_REQUESTS);

	if (pkt->mask & (VRNIC_M_SEND | VRNIC_M_WRITE | VRNIC_M_ATOMIC_WRITE)) {
		bool ackreq = bth_ackreq((struct vrnic_bth *)pkt->hdr);

		/*
		 * Already executed: acknowledge everything up to now.  While
		 * requests are held past a gap, the gap's NAK instead: an ACK
		 * alone would leave the gap to its timeout (and tell vrnic's
		 * requester that nothing past it was kept:
		 * vrnic_req_sel_ack()).
		 */
		if (ackreq && !skb_queue_empty(&xp->ooo))
			vrnic_resp_seq_nak_again(qp);
		else if (ackreq || vrnic_psn_add(pkt->psn, 1) == xp->epsn)
			vrnic_send_ack(qp, VRNIC_SYN_PLAIN_ACK,
				       vrnic_psn_add(xp->epsn, VRNIC_PSN_MASK));
		return;
	}

	for (i = 0; i < xp->nres; i++) {
		struct vrnic_rdres *r = &xp->res[i];

		if (r->valid &&
		    vrnic_psn_cmp(pkt->psn, r->first_psn) >= 0 &&
		    vrnic_psn_cmp(pkt->psn, r->last_psn) <= 0) {
			res = r;
			break;
		}
	}
	if (!res)
		return;		/* too old to answer: the requester times out */

	if (pkt->mask & VRNIC_M_ATOMIC) {
		/* Replay the saved result, never execute twice. */
		if (res->opcode != VRNIC_READ_REQUEST &&
		    pkt->psn == res->first_psn)
			vrnic_send_atomic_ack(qp, pkt->psn, res->orig);
		return;
	}
	if (res->opcode == VRNIC_READ_REQUEST) {
		struct vrnic_reth *reth = (void *)(pkt->hdr + info->off_reth);
		u32 len = reth_len(reth);
		struct vrnic_mr *mr;

		/* Re-execute from the requested PSN, checking access anew. */
		if (len > SZ_2G ||
		    vrnic_psn_add(pkt->psn,
				  vrnic_npkts(len, xp->mtu) - 1) !=
		    res->last_psn)
			return;
		if (len) {
			mr = vrnic_rkey_get(qp, reth_rkey(reth),
					    reth_va(reth), len,
					    IB_ACCESS_REMOTE_READ);
			if (IS_ERR(mr)) {
				vrnic_send_nak(qp, VRNIC_NAK_REM_ACCESS,
					       pkt->psn);
				return;
			}
			vrnic_mr_put(mr);
		}
		res->start_psn = pkt->psn;
		res->cur_psn = pkt->psn;
		res->rkey = reth_rkey(reth);
		res->va = reth_va(reth);
		res->resid = len;
		vrnic_resp_read_start(qp, res);
	}
}

static void vrnic_resp_count_nak(struct vrnic_qp *qp, int res)
{
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);

	if (res == RESP_NAK_ACC) {
		qp->xport.rq_stats.access_errors++;
		vrnic_counter_inc(vdev, VRNIC_CNT_ACCESS_ERRORS);
	} else if (res == RESP_NAK_INV) {
		vrnic_counter_inc(vdev, VRNIC_CNT_INVALID_REQUESTS);
	}
}

/*
 * Does the QP take this kind of request?  Its access flags (a Modify QP
 * attribute) enable remote WRITE, READ and atomics, independently of
 * the rights of the memory an rkey names; READs, atomics and ATOMIC
 * WRITEs also need a responder resource, and max_dest_rd_atomic 0 gives
 * none.  On RC a request the QP does not enable is NAKed as an invalid
 * request (IBA 9.7.5.1 NAK codes; rdma_rxe answers the same), on UC it
 * is dropped; checked on the first packet of a message, before anything
 * is touched.
 */
static bool vrnic_resp_op_enabled(struct vrnic_qp *qp, u32 kind)
{
	int acc = READ_ONCE(qp->attr.qp_access_flags);
	bool rd_atomic = READ_ONCE(qp->attr.max_dest_rd_atomic) > 0;

	switch (kind) {
	case VRNIC_M_WRITE:
		return acc & IB_ACCESS_REMOTE_WRITE;
	case VRNIC_M_READ:
		return rd_atomic && (acc & IB_ACCESS_REMOTE_READ);
	case VRNIC_M_ATOMIC:
		return rd_atomic && (acc & IB_ACCESS_REMOTE_ATOMIC);
	case VRNIC_M_ATOMIC_WRITE:
		/* IBTA 1.5: an ATOMIC WRITE needs RDMA write access. */
		return rd_atomic && (acc & IB_ACCESS_REMOTE_WRITE);
	default:
		return true;
	}
}

/*
 * Out-of-order requests.  IBA 9.7.5.1.1 lets the responder answer a PSN
 * gap at once with a sequence NAK, and the requester then resends
 * everything from the gap on (go-back-N).  When the gap is only a
 * reordering (ECMP, netem, a multi-queue path), the missing packet turns
 * up a moment later and all that resending was for nothing.  So the
 * responder keeps up to VRNIC_OOO_MAX requests that arrive ahead of the
 * expected PSN, executes them in order once the gap is filled, and sends
 * the NAK only when VRNIC_OOO_NAK_AFTER packets have arrived past a gap
 * that is still open, or one that asks for an ACK, or when it cannot
 * keep the packet: a real loss costs a few packets' delay, a reordering
 * (usually) nothing.  Nothing is
 * executed out of order, so the IBA ordering rules still hold.
 */
/* Packets held: a vrnic requester's whole window (transport.h). */
#define VRNIC_OOO_MAX		VRNIC_MAX_INFLIGHT
#define VRNIC_OOO_WINDOW	1024	/* how far ahead of epsn we hold */
#define VRNIC_OOO_NAK_AFTER	8

/*
 * Held packets.  A request the responder keeps instead of executing it at
 * once (ahead of the expected PSN, or behind a READ being streamed) is
 * checked first, then charged by truesize to its device's budget of
 * VRNIC_HELD_BYTES_MAX bytes: per-QP bounds alone let one user's QPs pin
 * any amount of memory.  The skb's destructor returns the charge wherever
 * the skb is freed (executed, or purged on reset, error or destroy).  A
 * packet that cannot be held is not executed: RC recovers it by NAK or
 * retransmission like any loss.  While it waits, a held packet keeps
 * nothing else alive: its route, conntrack entry and socket go first.
 */
static void vrnic_resp_held_free(struct sk_buff *skb)
{
	atomic_long_sub(skb->truesize, &vrnic_pkt(skb)->vdev->held_bytes);
}

/* Charge @skb to the budget; false (counted) if it does not fit. */
static bool vrnic_resp_hold_charge(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);

	/* From the backlog to the out-of-order queue: charged already. */
	if (skb->destructor == vrnic_resp_held_free)
		return true;
	skb_orphan(skb);
	skb_dst_drop(skb);
	nf_reset_ct(skb);
	if (atomic_long_add_return(skb->truesize, &vdev->held_bytes) >
	    VRNIC_HELD_BYTES_MAX) {
		atomic_long_sub(skb->truesize, &vdev->held_bytes);
		vrnic_counter_inc(vdev, VRNIC_CNT_DROP_HELD_BUDGET);
		return false;
	}
	vrnic_pkt(skb)->vdev = vdev;
	skb->destructor = vrnic_resp_held_free;
	return true;
}

/*
 * Keep @skb (a request ahead of epsn).  Return false if it cannot be.
 * @again: set if it repeats one held already (the requester resent it).
 */
static bool vrnic_resp_ooo_hold(struct vrnic_qp *qp, struct sk_buff *skb,
				bool *again)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	struct sk_buff *pos;
	int cmp;

	if (skb_queue_len(&xp->ooo) >= VRNIC_OOO_MAX ||
	    ((pkt->psn - xp->epsn) & VRNIC_PSN_MASK) >= VRNIC_OOO_WINDOW ||
	    !vrnic_resp_len_ok(qp, pkt))
		return false;
	/* Usually the newest: walk from the tail. */
	skb_queue_reverse_walk(&xp->ooo, pos) {
		cmp = vrnic_psn_cmp(pkt->psn, vrnic_pkt(pos)->psn);
		if (cmp == 0) {
			*again = true;	/* a duplicate of one we hold */
			return true;
		}
		if (cmp > 0)
			break;
	}
	if (!vrnic_resp_hold_charge(qp, skb))
		return false;
	/* @pos is the queue head itself when @skb goes first. */
	__skb_queue_after(&xp->ooo, pos, skb_get(skb));
	return true;
}

static void vrnic_resp_rc_one(struct vrnic_qp *qp, struct sk_buff *skb);

/*
 * An ACK owed by requests that ran while others were held past them (a
 * filled gap): one answer once the held ones ran.  An ACK of everything
 * executed when nothing is held any more, else the sequence NAK for the
 * next gap: a NAK acknowledges every PSN before its own (IBA 9.7.5.1.1),
 * and the requester, which asked for an ACK, is waiting.  A requester
 * that resent only the missing packet learns from this whether more must
 * go (vrnic_req_seq_nak()); any other takes it as the ACK or NAK it is.
 * Not while a READ is streamed: the work item answers after it.
 * @rq_lock held.
 */
static void vrnic_resp_gap_answer(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	if (!xp->ack_deferred || xp->res_cur ||
	    READ_ONCE(qp->state) == IB_QPS_ERR)
		return;
	xp->ack_deferred = false;
	if (skb_queue_empty(&xp->ooo)) {
		vrnic_qp_dbg(qp, "gap filled, epsn %#x: ACK\n", xp->epsn);
		vrnic_send_ack(qp, VRNIC_SYN_PLAIN_ACK,
			       vrnic_psn_add(xp->epsn, VRNIC_PSN_MASK));
	} else {
		vrnic_qp_dbg(qp, "gap filled, epsn %#x: another gap\n",
			     xp->epsn);
		vrnic_resp_seq_nak(qp);
	}
}

/*
 * Execute the held request that is now next in sequence, if any, after
 * dropping held ones that became duplicates.  Return true if one ran.
 */
static bool vrnic_resp_ooo_next(struct vrnic_qp *qp)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	struct sk_buff *skb;
	int cmp;

	while ((skb = skb_peek(&xp->ooo))) {
		cmp = vrnic_psn_cmp(vrnic_pkt(skb)->psn, xp->epsn);
		if (cmp > 0)
			return false;
		__skb_unlink(skb, &xp->ooo);
		if (cmp == 0) {
			vrnic_resp_rc_one(qp, skb);
			consume_skb(skb);
			return true;
		}
		consume_skb(skb);
	}
	return false;
}

static void vrnic_resp_rc(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	vrnic_resp_rc_one(qp, skb);
	/* A READ being streamed owns the responder: the work drains. */
	while (!skb_queue_empty(&xp->ooo) && !xp->res_cur &&
	       READ_ONCE(qp->state) != IB_QPS_ERR && vrnic_resp_ooo_next(qp))
		;
	vrnic_resp_gap_answer(qp);
}

static void vrnic_resp_rc_one(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);
	u32 kind = pkt->mask & (VRNIC_M_SEND | VRNIC_M_WRITE |
				VRNIC_M_READ | VRNIC_M_ATOMIC |
				VRNIC_M_ATOMIC_WRITE);
	bool ackreq = bth_ackreq((struct vrnic_bth *)pkt->hdr), again = false;
	int cmp = vrnic_psn_cmp(pkt->psn, xp->epsn);
	int res;

	if (cmp > 0) {
		vrnic_counter_inc(vdev, VRNIC_CNT_OUT_OF_SEQ_REQUESTS);
		/*
		 * Hold it; NAK at once only when the gap has lasted
		 * VRNIC_OOO_NAK_AFTER packets or this one asks for an ACK
		 * (the requester is waiting: the stream has paused).
		 */
		if (vrnic_resp_ooo_hold(qp, skb, &again) &&
		    skb_queue_len(&xp->ooo) < VRNIC_OOO_NAK_AFTER && !ackreq)
			return;
		/* A held packet sent again (a loss probe, a timeout's). */
		if (again && ackreq) {
			vrnic_resp_seq_nak_again(qp);
			return;
		}
		if (!xp->nak_sent)
			vrnic_qp_dbg(qp, "psn %#x, expected %#x: seq NAK\n",
				     pkt->psn, xp->epsn);
		vrnic_resp_seq_nak(qp);
		return;
	}
	if (cmp < 0) {
		vrnic_resp_dup(qp, skb);
		return;
	}

	/* Opcode sequence (IBA 9.7.5.1.3). */
	if (xp->in_msg ? (!(pkt->mask & (VRNIC_M_MIDDLE | VRNIC_M_LAST)) ||
			  kind != xp->cur_kind) :
			 !(pkt->mask & VRNIC_M_FIRST)) {
		res = RESP_NAK_INV;
		goto nak;
	}
	if ((pkt->mask & VRNIC_M_FIRST) && !vrnic_resp_op_enabled(qp, kind)) {
		res = RESP_NAK_INV;
		goto nak;
	}

	switch (kind) {
	case VRNIC_M_SEND:
		res = vrnic_resp_send(qp, skb);
		break;
	case VRNIC_M_WRITE:
		res = vrnic_resp_write(qp, skb);
		break;
	case VRNIC_M_READ:
		res = vrnic_resp_read(qp, skb);
		if (res == RESP_OK)
			xp->nak_sent = false;
		goto nak;
	case VRNIC_M_ATOMIC_WRITE:
		res = vrnic_resp_atomic_write(qp, skb);
		if (res == RESP_OK)
			xp->nak_sent = false;
		goto nak;
	default:
		res = vrnic_resp_atomic(qp, skb);
		if (res == RESP_OK)
			xp->nak_sent = false;
		goto nak;
	}
	if (res == RESP_OK) {
		xp->nak_sent = false;
		xp->epsn = vrnic_psn_add(pkt->psn, 1);
		xp->in_msg = !(pkt->mask & VRNIC_M_LAST);
		xp->cur_kind = kind;
		if (pkt->mask & VRNIC_M_LAST)
			xp->msn++;
		if (ackreq)
			vrnic_resp_ack_owed(qp, pkt->psn);
		return;
	}
nak:
	if (res != RESP_OK)
		vrnic_qp_dbg(qp, "request op %#x psn %#x: %d\n", pkt->opcode,
			     pkt->psn, res);
	switch (res) {
	case RESP_OK:
		return;
	case RESP_RNR:
		xp->rq_stats.rnr_naks++;
		vrnic_counter_inc(vdev, VRNIC_CNT_RNR_NAKS_SENT);
		vrnic_send_ack(qp, VRNIC_AETH_RNR_NAK |
			       (qp->attr.min_rnr_timer & VRNIC_AETH_VALUE_MASK), pkt->psn);
		return;
	case RESP_NAK_INV:
		vrnic_resp_count_nak(qp, res);
		vrnic_send_nak(qp, VRNIC_NAK_INVALID_REQ, pkt->psn);
		break;
	case RESP_NAK_ACC:
		vrnic_resp_count_nak(qp, res);
		vrnic_send_nak(qp, VRNIC_NAK_REM_ACCESS, pkt->psn);
		break;
	default:	/* RESP_NAK_OP, RESP_ERR */
		vrnic_send_nak(qp, VRNIC_NAK_REM_OP, pkt->psn);
		break;
	}
	/* Class B/C errors (IBA 9.9.3): the responder QP goes to ERR. */
	vrnic_resp_error(qp);
}

static void vrnic_resp_uc(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	struct vrnic_qp_xport *xp = &qp->xport;
	u32 kind = pkt->mask & (VRNIC_M_SEND | VRNIC_M_WRITE);
	int res;

	/*
	 * IBA 9.8.2: a lost packet aborts the message in progress; the
	 * receive WQE stays for the next message, which must start with a
	 * FIRST or ONLY packet.
	 */
	if (pkt->psn != xp->epsn ||
	    (xp->in_msg && (kind != xp->cur_kind ||
			    (pkt->mask & VRNIC_M_FIRST)))) {
		if (xp->in_msg && qp->rwqe)
			vrnic_dma_seek(&qp->rwqe->dma, 0);
		xp->in_msg = false;
	}
	xp->epsn = vrnic_psn_add(pkt->psn, 1);
	if (!xp->in_msg && !(pkt->mask & VRNIC_M_FIRST)) {
		xp->rq_stats.drops++;
		return;
	}
	if ((pkt->mask & VRNIC_M_FIRST) && !vrnic_resp_op_enabled(qp, kind)) {
		xp->rq_stats.drops++;
		vrnic_resp_count_nak(qp, RESP_NAK_INV);
		return;
	}

	res = kind == VRNIC_M_SEND ? vrnic_resp_send(qp, skb) :
				     vrnic_resp_write(qp, skb);
	if (res == RESP_OK) {
		xp->in_msg = !(pkt->mask & VRNIC_M_LAST);
		xp->cur_kind = kind;
		return;
	}
	xp->rq_stats.drops++;
	if (res == RESP_ERR) {
		vrnic_resp_error(qp);
		return;
	}
	/* Silently drop the rest of the message (no NAKs on UC). */
	if (xp->in_msg && qp->rwqe)
		vrnic_dma_seek(&qp->rwqe->dma, 0);
	xp->in_msg = false;
	vrnic_resp_count_nak(qp, res);
}

static void vrnic_resp_ud(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	const struct vrnic_opcode_info *info = &vrnic_opcode[pkt->opcode];
	struct vrnic_deth *deth = (void *)(pkt->hdr + info->off_deth);
	struct vrnic_recv_wqe *rwqe;
	u8 grh[VRNIC_GRH_BYTES];
	struct ib_wc wc = {};
	int err;

	rwqe = vrnic_rq_get(qp);
	if (!rwqe) {
		qp->xport.rq_stats.drops++;	/* UD has no RNR */
		return;
	}
	if (rwqe->status != IB_WC_SUCCESS) {
		vrnic_resp_fail_rwqe(qp, rwqe, rwqe->status);
		vrnic_resp_error(qp);
		return;
	}
	vrnic_dma_seek(&rwqe->dma, 0);
	if (VRNIC_GRH_BYTES + pkt->paylen > rwqe->dma.length) {
		/*
		 * Too long for the buffer.  A UD responder has no one to
		 * tell and nothing to undo: drop the message and keep the
		 * WQE, unused, for the next one (a class D responder error,
		 * as rdma_rxe has it).  Completing it in error would hand
		 * every sender that knows the QPN and Q_Key a way to use up
		 * receive WQEs a consumer such as ib_mad never reposts.
		 */
		qp->xport.rq_stats.drops++;
		return;
	}

	/* IBA 11.4.1.1 / RoCEv2: the first 40 bytes get the "GRH", i.e. the
	 * IPv6 header, or the IPv4 header in the last 20 of them.
	 */
	if (pkt->family == AF_INET) {
		memset(grh, 0, 20);
		memcpy(grh + 20, ip_hdr(skb), 20);
		wc.network_hdr_type = RDMA_NETWORK_IPV4;
	} else {
		memcpy(grh, ipv6_hdr(skb), VRNIC_GRH_BYTES);
		wc.network_hdr_type = RDMA_NETWORK_IPV6;
	}
	err = vrnic_dma_copy(qp->pd, &rwqe->dma, grh, sizeof(grh),
			     VRNIC_TO_MR);
	if (!err && pkt->paylen)
		err = vrnic_pkt_to_dma(skb, qp->pd, &rwqe->dma);
	if (err) {
		vrnic_resp_fail_rwqe(qp, rwqe, IB_WC_LOC_PROT_ERR);
		vrnic_resp_error(qp);
		return;
	}

	wc.status = IB_WC_SUCCESS;
	wc.opcode = IB_WC_RECV;
	wc.byte_len = VRNIC_GRH_BYTES + pkt->paylen;
	wc.src_qp = deth_sqp(deth);
	wc.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	if (info->mask & VRNIC_M_IMMDT) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		wc.ex.imm_data = ((struct vrnic_immdt *)
				  (pkt->hdr + info->off_immdt))->imm;
	}
	if (skb_mac_header_was_set(skb) &&
	    skb_network_header(skb) - skb_mac_header(skb) >= ETH_HLEN) {
		memcpy(wc.smac, eth_hdr(skb)->h_source, ETH_ALEN);
		wc.wc_flags |= IB_WC_WITH_SMAC;
	}
	if (vrnic_resp_complete(qp, rwqe, &wc,
				bth_se((struct vrnic_bth *)pkt->hdr)))
		vrnic_resp_error(qp);
}

/* Execute one request; @rq_lock held.  Does not free @skb. */
static void vrnic_resp_one(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	if (READ_ONCE(qp->state) == IB_QPS_ERR) {
		vrnic_rq_flush(qp);
		return;
	}
	xp->rq_stats.rx_packets++;
	xp->rq_stats.rx_bytes += vrnic_pkt(skb)->paylen;
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		vrnic_resp_rc(qp, skb);
		break;
	case IB_QPT_UC:
		vrnic_resp_uc(qp, skb);
		break;
	default:
		vrnic_resp_ud(qp, skb);
		break;
	}
}

/*
 * An RC request we already executed arrived while the work item owns
 * the responder.  The requester has gone back to @psn (go-back-N, IBA
 * 9.7.5.2) -- or the network duplicated a packet, rarely: it resends
 * everything from @psn on in order and drops every response that
 * reaches it before @psn's.  What we hold past @psn, the rest of the
 * READ being streamed and the requests queued behind it, would only be
 * sent to be dropped; worse, the answer to the duplicate would come
 * after all of it, late enough for the requester to time out and go
 * back once more, which queues yet another copy: a loop that feeds
 * itself until the link is full.  So drop them, as if lost on the wire
 * (a network duplicate costs a sequence NAK), and let the duplicate be
 * answered next.  Returns false if @skb is not worth keeping either:
 * the READ being streamed has not reached @psn, its stream brings the
 * answer.  @rq_lock held.
 */
static bool vrnic_resp_went_back(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_rdres *res = xp->res_cur;
	u32 psn = vrnic_pkt(skb)->psn;
	struct sk_buff *pos, *tmp;

	if (res && (vrnic_pkt(skb)->mask & VRNIC_M_READ) &&
	    vrnic_psn_cmp(psn, res->cur_psn) >= 0 &&
	    vrnic_psn_cmp(psn, res->last_psn) <= 0) {
		xp->rq_stats.dup_requests++;
		vrnic_counter_inc(vrnic_qp_dev(qp), VRNIC_CNT_DUP_REQUESTS);
		return false;
	}
	skb_queue_walk_safe(&xp->backlog, pos, tmp) {
		if (vrnic_psn_cmp(vrnic_pkt(pos)->psn, psn) >= 0) {
			__skb_unlink(pos, &xp->backlog);
			xp->rq_stats.drops++;
			kfree_skb(pos);
		}
	}
	/* The work item finds no READ to stream and takes the backlog. */
	if (res && vrnic_psn_cmp(res->cur_psn, psn) > 0)
		xp->res_cur = NULL;
	return true;
}

/*
 * Queue @skb behind the READ the work item streams.  Returns false if
 * it is dropped instead (counted).  @rq_lock held.
 */
static bool vrnic_resp_backlog_add(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_qp_xport *xp = &qp->xport;

	if (qp->ibqp.qp_type == IB_QPT_RC &&
	    vrnic_psn_cmp(vrnic_pkt(skb)->psn, xp->epsn) < 0 &&
	    !vrnic_resp_went_back(qp, skb))
		return false;
	if (skb_queue_len(&xp->backlog) >= VRNIC_RESP_BACKLOG ||
	    !vrnic_resp_len_ok(qp, vrnic_pkt(skb)) ||
	    !vrnic_resp_hold_charge(qp, skb)) {
		xp->rq_stats.drops++;
		return false;
	}
	__skb_queue_tail(&xp->backlog, skb);
	return true;
}

/**
 * vrnic_resp_rcv - handle a request packet
 * @qp: destination QP
 * @skb: the packet, parsed and verified by vrnic_rcv(); consumed
 */
void vrnic_resp_rcv(struct vrnic_qp *qp, struct sk_buff *skb)
{
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_held_ack held;

	spin_lock_bh(&xp->rq_lock);
	/*
	 * Responses go to the CPU the requester sends from (xmit.c, "Local
	 * delivery").  An RC requester changes it only with nothing in
	 * flight, when no response of ours is still on its way.
	 */
	xp->reply_cpu = vrnic_pkt(skb)->from_cpu;
	if (xp->stopped) {
		xp->rq_stats.drops++;	/* RESET: see transport.h */
	} else if (xp->resp_busy) {
		if (vrnic_resp_backlog_add(qp, skb))
			skb = NULL;
	} else {
		/* From a local requester: see vrnic_resp_ack_hold(). */
		xp->ack_hold = qp->ibqp.qp_type == IB_QPT_RC &&
			       vrnic_pkt_local(vrnic_pkt(skb));
		vrnic_resp_one(qp, skb);
		xp->ack_hold = false;
	}
	held = xp->held_ack;
	if (held.peer) {
		struct vrnic_dev *vdev = vrnic_qp_dev(qp);

		xp->held_ack.peer = NULL;
		xp->rq_stats.tx_packets++;
		/* As vrnic_xmit() counts the packet: BTH through ICRC. */
		vrnic_counter_inc(vdev, VRNIC_CNT_TX_PACKETS);
		vrnic_counter_add(vdev, VRNIC_CNT_TX_BYTES,
				  vrnic_opcode[VRNIC_OP_RC | VRNIC_ACK].length +
				  VRNIC_ICRC_BYTES);
	}
	spin_unlock_bh(&xp->rq_lock);
	if (skb)
		consume_skb(skb);
	if (held.peer)
		vrnic_local_ack(held.peer, VRNIC_SYN_PLAIN_ACK, held.psn,
				held.msn);
}

/**
 * vrnic_resp_schedule - run the responder's work item
 * @qp: the QP
 *
 * Refused once vrnic_xport_stop() has begun (see transport.h).
 */
void vrnic_resp_schedule(struct vrnic_qp *qp)
{
	if (!READ_ONCE(qp->xport.stopped))
		queue_work(vrnic_wq, &qp->xport.resp_work);
}

/* The responder's work item: finish a long READ, then the backlog. */
void vrnic_resp_work(struct work_struct *work)
{
	struct vrnic_qp *qp = container_of(work, struct vrnic_qp,
					   xport.resp_work);
	struct vrnic_qp_xport *xp = &qp->xport;
	struct sk_buff *skb;
	int budget = 256;

	spin_lock_bh(&xp->rq_lock);
	if (!xp->stopped && READ_ONCE(qp->state) != IB_QPS_ERR)
		vrnic_resp_ack_again(qp);
	while (!xp->stopped) {
		if (READ_ONCE(qp->state) == IB_QPS_ERR) {
			vrnic_rq_flush(qp);
			__skb_queue_purge(&xp->backlog);
			__skb_queue_purge(&xp->ooo);
			xp->res_cur = NULL;
			xp->resp_busy = false;
			break;
		}
		if (budget <= 0) {
			spin_unlock_bh(&xp->rq_lock);
			vrnic_resp_schedule(qp);
			return;
		}
		if (xp->res_cur) {
			enum vrnic_read_progress progress;

			progress = vrnic_resp_read_stream(qp, xp->res_cur,
							  VRNIC_RESP_BUDGET);
			/* The pacer's timer runs us again, or the nomem one. */
			if (progress == VRNIC_READ_PACED)
				break;
			if (progress == VRNIC_READ_NOMEM) {
				vrnic_xport_nomem_wait(qp, VRNIC_XP_NOMEM_RESP);
				break;
			}
			budget -= VRNIC_RESP_BUDGET;
			if (progress == VRNIC_READ_DONE)
				xp->res_cur = NULL;
			/* Let softirqs (our peer's receive path) run. */
			spin_unlock_bh(&xp->rq_lock);
			cond_resched();
			spin_lock_bh(&xp->rq_lock);
			continue;
		}
		skb = __skb_dequeue(&xp->backlog);
		if (!skb) {
			/* Requests held past a gap the READ's PSNs filled. */
			if (qp->ibqp.qp_type == IB_QPT_RC &&
			    vrnic_resp_ooo_next(qp)) {
				budget--;
				continue;
			}
			vrnic_resp_gap_answer(qp);
			xp->resp_busy = false;
			break;
		}
		vrnic_resp_one(qp, skb);
		budget--;
		spin_unlock_bh(&xp->rq_lock);
		consume_skb(skb);
		spin_lock_bh(&xp->rq_lock);
	}
	spin_unlock_bh(&xp->rq_lock);
}
