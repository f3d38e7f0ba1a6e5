// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: congestion control and QoS in the data path.
 *
 * The design is ../shared/cc/DESIGN.md; docs/cc.md says what vrnic
 * implements of it and where it differs.  The DCQCN arithmetic itself is
 * cc_rp.c (pure integer code, also tested on the host); this file ties it
 * to the QP: the egress QoS of every packet, the notification point that
 * answers CE marks with CNPs, the reaction point that CNPs drive, and the
 * pacer that holds the requester to the rate.
 */

#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/inet_ecn.h>

#include "vrnic.h"
#include "config.h"
#include "hdr.h"
#include "opcode.h"
#include "verbs.h"
#include "cc.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/*
 * Does a packet with these opcode bits belong to the traffic DCQCN
 * controls?  Requests and READ responses of RC and UC (DESIGN.md 1.2):
 * the peer's reaction point paces them.  ACKs, NAKs and CNPs are never
 * paced, and UD is not rate controlled.
 */
static bool vrnic_cc_controlled(u8 opcode, u32 mask)
{
	if (VRNIC_OP_TRANSPORT(opcode) != VRNIC_OP_RC &&
	    VRNIC_OP_TRANSPORT(opcode) != VRNIC_OP_UC)
		return false;
	return (mask & VRNIC_M_REQ) ||
	       ((mask & VRNIC_M_RESP) && (mask & VRNIC_M_READ));
}

/* The DSCP (into @dscp) and the priority of a packet that is not a CNP. */
static u8 vrnic_cfg_tx_prio(const struct vrnic_config *cfg,
			    const struct vrnic_av *av, u8 *dscp)
{
	*dscp = (av->traffic_class ?: cfg->qos.tclass) >> 2;
	return cfg->qos.trust == VRNIC_TRUST_DSCP ?
	       cfg->qos.dscp2prio[*dscp] : av->sl;
}

/*
 * Does the ecn_en bit of @av's priority make its DCQCN-controlled
 * traffic ECN-capable?  Also sets the DSCP and priority, as above.
 */
static bool vrnic_cfg_tx_ect(const struct vrnic_config *cfg,
			     const struct vrnic_av *av, u8 *dscp, u8 *prio)
{
	*prio = vrnic_cfg_tx_prio(cfg, av, dscp);
	return cfg->qos.ecn_en & BIT(*prio);
}

/**
 * vrnic_tx_qos - DSCP/ECN byte and 802.1p priority of an outgoing packet
 * @vdev: the sending device
 * @av: the packet's address vector
 * @opcode: its BTH opcode
 * @dsfield: out: IPv4 TOS / IPv6 traffic class byte
 * @prio: out: skb->priority; a VLAN netdev maps it to the PCP through its
 *	egress map (ip link set ... type vlan egress-qos-map)
 *
 * The DSCP is the address vector's traffic class (rdma_cm sets it from
 * the ToS the application asks for), or the device's default tclass when
 * that is 0.  The priority is dscp2prio of that DSCP when the device
 * trusts DSCP, else the path's service level.  CNPs take cnp_dscp and
 * cnp_802p_prio.  The ECN field is vrnic's alone (the address vector's two
 * low bits are ignored): ECT(0) on traffic DCQCN controls whose priority
 * has its ecn_en bit set, and on CNPs (DESIGN.md 1.2); Not-ECT on the rest.
 */
void vrnic_tx_qos(struct vrnic_dev *vdev, const struct vrnic_av *av,
		  u8 opcode, u8 *dsfield, u32 *prio)
{
	const struct vrnic_config *cfg;
	u8 dscp, ecn = INET_ECN_NOT_ECT, p;

	rcu_read_lock();
	cfg = rcu_dereference(vdev->cfg);
	if (opcode == VRNIC_OPCODE_CNP) {
		dscp = cfg->dcqcn.cnp_dscp;
		p = cfg->dcqcn.cnp_802p_prio;
		ecn = INET_ECN_ECT_0;
	} else {
		if (vrnic_cfg_tx_ect(cfg, av, &dscp, &p) &&
		    vrnic_cc_controlled(opcode, vrnic_opcode[opcode].mask))
			ecn = INET_ECN_ECT_0;
	}
	rcu_read_unlock();
	*dsfield = (dscp << 2) | ecn;
	*prio = p;
}

/* ---------------------------------------------------- notification point */

/* Send a CNP to the peer of @qp (IBTA annex A17.9.2); @rq_lock held. */
static void vrnic_np_send_cnp(struct vrnic_qp *qp)
{
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_bth *bth;
	struct sk_buff *skb;

	skb = vrnic_skb_alloc(vdev, VRNIC_CNP_BYTES);
	if (!skb)
		return;
	bth = (struct vrnic_bth *)skb->data;
	/*
	 * Destination QP: the QP whose packets were marked, at the peer;
	 * P_Key the default, PSN 0, no AckReq.  The BECN bit lives in the
	 * byte IBA calls resv8a, which the ICRC masks.
	 */
	bth_set(bth, VRNIC_OPCODE_CNP, false, 0, VRNIC_DEFAULT_PKEY,
		qp->attr.dest_qp_num, false, 0);
	*(u8 *)&bth->qpn = VRNIC_BTH_BECN;
	memset(bth + 1, 0, VRNIC_CNP_RSVD_BYTES);
	if (vrnic_xmit(vdev, &qp->av, &xp->route, xp->sport, -1, skb))
		return;
	xp->cc.cnp_sent++;
	vrnic_counter_inc(vdev, VRNIC_CNT_NP_CNP_SENT);
}

static enum hrtimer_restart vrnic_np_timer(struct hrtimer *t)
{
	struct vrnic_qp_cc *cc = container_of(t, struct vrnic_qp_cc, np_timer);
	struct vrnic_qp_xport *xp = container_of(cc, struct vrnic_qp_xport, cc);
	struct vrnic_qp *qp = container_of(xp, struct vrnic_qp, xport);

	spin_lock(&xp->rq_lock);
	if (!xp->stopped && cc->np_pending) {
		cc->np_pending = false;
		cc->np_last = ktime_get_ns();
		cc->np_sent = true;
		vrnic_np_send_cnp(qp);
	}
	spin_unlock(&xp->rq_lock);
	return HRTIMER_NORESTART;
}

/*
 * The priority a received packet is classified into: dscp2prio of its
 * DSCP when the device trusts DSCP, else its 802.1p priority, which a
 * VLAN netdev's ingress map put into skb->priority (0 untagged).
 */
static u32 vrnic_rx_prio(const struct vrnic_config *cfg, struct sk_buff *skb,
			 u8 dsfield)
{
	if (cfg->qos.trust == VRNIC_TRUST_DSCP)
		return cfg->qos.dscp2prio[dsfield >> 2];
	return skb->priority < VRNIC_NUM_PRIO ? skb->priority : 0;
}

/**
 * vrnic_np_mark - a CE-marked packet arrived for @qp
 * @qp: the receiving QP (the caller holds a reference)
 * @skb: the packet, validated
 * @dsfield: its outer TOS / traffic class byte
 * @mask: its vrnic_opcode_info.mask
 *
 * Counts the mark; if the packet is RC/UC traffic DCQCN controls and its
 * priority has ECN enabled, answers it with a CNP now, or at the end of
 * the current min_time_between_cnps interval if one went out less than
 * that ago (one CNP per interval however many marks arrive in it, as
 * ConnectX does).  Softirq; takes @rq_lock.
 */
void vrnic_np_mark(struct vrnic_qp *qp, struct sk_buff *skb, u8 dsfield,
		   u32 mask)
{
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_qp_cc *cc = &xp->cc;
	const struct vrnic_config *cfg;
	bool answer;
	u64 gap, now;

	vrnic_counter_inc(vdev, VRNIC_CNT_NP_ECN_MARKED);
	rcu_read_lock();
	cfg = rcu_dereference(vdev->cfg);
	answer = vrnic_cc_controlled(vrnic_pkt(skb)->opcode, mask) &&
		 (cfg->qos.ecn_en & BIT(vrnic_rx_prio(cfg, skb, dsfield)));
	gap = (u64)cfg->dcqcn.min_time_between_cnps * NSEC_PER_USEC;
	rcu_read_unlock();

	spin_lock_bh(&xp->rq_lock);
	if (xp->stopped)
		goto out;
	cc->ecn_marked++;
	if (!answer || cc->np_pending)
		goto out;
	now = ktime_get_ns();
	if (!cc->np_sent || now - cc->np_last >= gap) {
		cc->np_last = now;
		cc->np_sent = true;
		vrnic_np_send_cnp(qp);
	} else {
		cc->np_pending = true;
		hrtimer_start(&cc->np_timer, ns_to_ktime(cc->np_last + gap),
			      HRTIMER_MODE_ABS_SOFT);
	}
out:
	spin_unlock_bh(&xp->rq_lock);
}

/* -------------------------------------------------------- reaction point */

/* Every RP event goes to the vrnic_cc_rate tracepoint (trace.h). */
static void vrnic_rp_emit(void *ctx, const struct vrnic_rp_trace *tr)
{
	struct vrnic_qp *qp = ctx;

	/* cc_rp.c runs under @cc_lock: the sequence number is ours. */
	trace_vrnic_cc_rate(dev_name(&qp->ibqp.device->dev), qp->ibqp.qp_num,
			    ++qp->xport.cc.trace_seq, tr);
}

/*
 * The tracer to pass to cc_rp.c: none while the tracepoint is off, so
 * that the common case costs one static branch.
 */
#define vrnic_rp_tracer(qp)						\
	(trace_vrnic_cc_rate_enabled() ?				\
	 &(struct vrnic_rp_tracer){ .emit = vrnic_rp_emit, .ctx = (qp) } : \
	 NULL)

/* Trace the parameters @qp's RP now runs with (vrnic_cc_params). */
static void vrnic_cc_trace_params(struct vrnic_qp *qp,
				  const struct vrnic_dcqcn *d, u32 link_mbps)
{
	struct vrnic_qp_cc *cc = &qp->xport.cc;

	if (trace_vrnic_cc_params_enabled())
		trace_vrnic_cc_params(dev_name(&qp->ibqp.device->dev),
				      qp->ibqp.qp_num, ++cc->trace_seq,
				      cc->rp.now, d,
				      link_mbps ?: VRNIC_DCQCN_RATE_MAX,
				      &cc->params);
}

/*
 * Bring @cc->params up to date with the device's DCQCN settings and link
 * speed; the running rate is clamped into the new bounds
 * (vrnic_rp_params_changed()).  @cc_lock held.
 */
static void vrnic_cc_refresh(struct vrnic_qp *qp)
{
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);
	struct vrnic_qp_cc *cc = &qp->xport.cc;
	u32 gen = atomic_read(&vdev->cfg_gen), mbps;
	const struct vrnic_dcqcn *d;

	if (likely(gen == cc->gen))
		return;
	mbps = READ_ONCE(vdev->link_mbps);
	rcu_read_lock();
	d = &rcu_dereference(vdev->cfg)->dcqcn;
	vrnic_rp_params_from_dcqcn(&cc->params, d, mbps);
	vrnic_cc_trace_params(qp, d, mbps);
	rcu_read_unlock();
	WRITE_ONCE(cc->gen, gen);
	vrnic_rp_params_changed(&cc->rp, &cc->params, vrnic_rp_tracer(qp));
}

/**
 * vrnic_rp_cnp_rcv - a CNP from the peer of @qp, validated by recv.c
 * @qp: the QP whose packets were marked (the caller holds a reference)
 *
 * Softirq; takes @sq_lock (for @stopped) and @cc_lock.  The rate cut
 * applies to the next packet either of the QP's senders sends.
 */
void vrnic_rp_cnp_rcv(struct vrnic_qp *qp)
{
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);
	struct vrnic_qp_xport *xp = &qp->xport;
	struct vrnic_qp_cc *cc = &xp->cc;
	bool handled = false;

	spin_lock_bh(&xp->sq_lock);
	if (!xp->stopped) {
		u64 now;

		spin_lock(&cc->cc_lock);
		now = max(ktime_get_ns(), cc->rp.now);
		vrnic_cc_refresh(qp);
		trace_vrnic_cc_input(dev_name(&qp->ibqp.device->dev),
				     qp->ibqp.qp_num, ++cc->trace_seq, now,
				     true, 0);
		vrnic_rp_cnp(&cc->rp, &cc->params, now, vrnic_rp_tracer(qp));
		cc->cnp_handled++;
		spin_unlock(&cc->cc_lock);
		handled = true;
	}
	/*
	 * The pacer's timer may have kicked the requester while we held the
	 * lock: without this, a CNP arriving then stalled the QP for good.
	 */
	if (vrnic_sq_unlock(qp))
		vrnic_req_schedule(qp);
	vrnic_counter_inc(vdev, handled ? VRNIC_CNT_RP_CNP_HANDLED :
					  VRNIC_CNT_RP_CNP_IGNORED);
}

static enum hrtimer_restart vrnic_rp_timer(struct hrtimer *t)
{
	struct vrnic_qp_cc *cc = container_of(t, struct vrnic_qp_cc, rp_timer);
	struct vrnic_qp_xport *xp = container_of(cc, struct vrnic_qp_xport, cc);
	struct vrnic_qp *qp = container_of(xp, struct vrnic_qp, xport);
	bool req, resp;

	spin_lock(&cc->cc_lock);
	req = cc->req_waiting;
	resp = cc->resp_waiting;
	cc->req_waiting = false;
	cc->resp_waiting = false;
	spin_unlock(&cc->cc_lock);
	/* The pacer's wait is over: run the waiting senders' work items. */
	if (req)
		vrnic_req_schedule(qp);
	if (resp)
		vrnic_resp_schedule(qp);
	return HRTIMER_NORESTART;
}

/* Have @rp_timer wake @who at @when at the latest.  @cc_lock held. */
static void vrnic_cc_wait(struct vrnic_qp_cc *cc, enum vrnic_cc_sender who,
			  u64 when)
{
	if (who == VRNIC_CC_REQUESTER)
		cc->req_waiting = true;
	else
		cc->resp_waiting = true;
	/*
	 * Not hrtimer_active(): a callback running now has already taken
	 * its waiters, so a timer that is not queued must be started.
	 */
	if (!hrtimer_is_queued(&cc->rp_timer) ||
	    ktime_to_ns(hrtimer_get_expires(&cc->rp_timer)) > when)
		hrtimer_start(&cc->rp_timer, ns_to_ktime(when),
			      HRTIMER_MODE_ABS_SOFT);
}

/*
 * The rate the pacer holds a QP to, bit/s.  DCQCN can take Rc below
 * 1 Mb/s, even to 0 (rpg_min_rate 0 is valid and a cut floors); pacing
 * slower than the smallest rate an admin can set would only stall the
 * QP, so 1 Mb/s is the floor.
 */
static u64 vrnic_cc_pace_rate(const struct vrnic_qp_cc *cc)
{
	return max_t(u64, cc->rp.rc, 1000000);
}

/*
 * How far ahead of its schedule the pacer lets a packet go: 50 us, or two
 * MTU-sized packets at the current rate if that is longer (DESIGN.md 2),
 * so that a slow rate still sends whole packets and a fast one is not
 * held to the resolution of the timer.
 */
static u64 vrnic_cc_slack(struct vrnic_qp *qp)
{
	u64 two_mtu = div64_u64(2ULL * qp->xport.mtu * 8 * NSEC_PER_SEC,
				vrnic_cc_pace_rate(&qp->xport.cc));

	return max_t(u64, 50 * NSEC_PER_USEC, two_mtu);
}

/*
 * While a PAUSE or PFC frame holds the QP's priority (pfc.c), the pacer's
 * timer polls every VRNIC_PFC_POLL_NS until the pause ends, so that an XON
 * takes effect within that time.  @sq_lock held.
 */
#define VRNIC_PFC_POLL_NS	(200 * NSEC_PER_USEC)

/*
 * The priority the QP's packets leave with (vrnic_tx_qos()), cached per QP
 * until the device's configuration (@gen) or the QP's address vector
 * changes.  @cc_lock held; the QP's av is stable under the transport lock
 * the caller holds (transport.h).
 */
static u8 vrnic_cc_prio(struct vrnic_qp *qp, u32 gen)
{
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);
	struct vrnic_qp_cc *cc = &qp->xport.cc;
	u8 dscp, prio;

	if (unlikely(!cc->prio_valid || gen != cc->prio_gen)) {
		rcu_read_lock();
		prio = vrnic_cfg_tx_prio(rcu_dereference(vdev->cfg), &qp->av,
					 &dscp);
		rcu_read_unlock();
		WRITE_ONCE(cc->prio, prio);
		WRITE_ONCE(cc->prio_gen, gen);
		WRITE_ONCE(cc->prio_valid, true);
	}
	return cc->prio;
}

/**
 * vrnic_cc_path_changed - the QP's address vector changed
 * @qp: the QP; both transport locks held (transport.h)
 */
void vrnic_cc_path_changed(struct vrnic_qp *qp)
{
	struct vrnic_qp_cc *cc = &qp->xport.cc;

	spin_lock(&cc->cc_lock);
	WRITE_ONCE(cc->prio_valid, false);
	spin_unlock(&cc->cc_lock);
}

/*
 * Is the QP's priority paused by PFC or PAUSE now?  If so, @who waits for
 * @rp_timer.  @cc_lock held.
 */
static bool vrnic_cc_pfc_paused(struct vrnic_qp *qp, u32 gen,
				enum vrnic_cc_sender who)
{
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);
	struct vrnic_qp_cc *cc = &qp->xport.cc;
	u8 prio = vrnic_cc_prio(qp, gen);
	u64 until, now;
	bool paused;

	until = vrnic_pfc_paused_until(vdev, prio);
	now = until ? ktime_get_ns() : 0;
	paused = until > now;
	if (paused != cc->pfc_paused)
		trace_vrnic_pfc_hold(dev_name(&qp->ibqp.device->dev),
				     qp->ibqp.qp_num, prio, paused);
	WRITE_ONCE(cc->pfc_paused, paused);
	if (likely(!paused))
		return false;
	vrnic_cc_wait(cc, who, min(until, now + VRNIC_PFC_POLL_NS));
	return true;
}

/**
 * vrnic_cc_loss_is_congestion - does a lost request say the path is full?
 * @qp: an RC QP; @sq_lock held (its path)
 *
 * The requester's send window (req.c) shrinks on a loss that this says
 * is congestion.  Where the QP's requests are ECN-capable (vrnic_tx_qos()
 * decides the same way per packet), a congested queue marks them before
 * it drops, and DCQCN sets the rate from the marks, as on a RoCE NIC: a
 * loss while no mark has engaged the rate limiter is no congestion
 * signal (random loss, corruption).  A loss while the limiter is engaged
 * is one: a queue on the path marks, and it may overflow as well.
 * Without ECN, loss is the only signal there is.
 */
bool vrnic_cc_loss_is_congestion(struct vrnic_qp *qp)
{
	const struct vrnic_config *cfg;
	u8 dscp, prio;
	bool ect;

	if (READ_ONCE(qp->xport.cc.rp.active))
		return true;
	rcu_read_lock();
	cfg = rcu_dereference(vrnic_qp_dev(qp)->cfg);
	ect = vrnic_cfg_tx_ect(cfg, &qp->av, &dscp, &prio);
	rcu_read_unlock();
	return !ect;
}

/**
 * vrnic_cc_pfc_holding - is the requester stopped by a pause right now?
 * @qp: the QP; @sq_lock held
 */
bool vrnic_cc_pfc_holding(struct vrnic_qp *qp)
{
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);
	struct vrnic_qp_cc *cc = &qp->xport.cc;
	bool held;

	if (!READ_ONCE(cc->pfc_paused))
		return false;
	spin_lock(&cc->cc_lock);
	held = vrnic_cc_pfc_paused(qp, atomic_read(&vdev->cfg_gen),
				   VRNIC_CC_REQUESTER);
	spin_unlock(&cc->cc_lock);
	return held;
}

/* The slow path of vrnic_cc_tx_ok(): @cc_lock held. */
static bool vrnic_cc_tx_ok_locked(struct vrnic_qp *qp, u32 gen,
				  enum vrnic_cc_sender who)
{
	struct vrnic_qp_cc *cc = &qp->xport.cc;
	u64 now, slack;

	if (unlikely(vrnic_cc_pfc_paused(qp, gen, who)))
		return false;
	vrnic_cc_refresh(qp);
	if (likely(!cc->rp.active))
		return true;
	now = ktime_get_ns();
	/* Rate increases are due by time, not only by events. */
	vrnic_rp_advance(&cc->rp, &cc->params, now, vrnic_rp_tracer(qp));
	if (!cc->rp.active)
		return true;
	slack = vrnic_cc_slack(qp);
	if (cc->next_tx <= now + slack)
		return true;
	vrnic_cc_wait(cc, who, cc->next_tx - slack);
	return false;
}

/**
 * vrnic_cc_tx_ok - may one of the QP's senders send a packet now?
 * @qp: an RC or UC QP, transport not stopped
 * @who: the requester (@sq_lock held) or the responder (@rq_lock held)
 *
 * True when the QP's priority is not paused by PFC and the QP is not
 * rate limited (no CNP since the limiter was last released) or its
 * schedule allows a packet; otherwise arms the pacer's timer, which runs
 * @who again when it may send.
 */
bool vrnic_cc_tx_ok(struct vrnic_qp *qp, enum vrnic_cc_sender who)
{
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);
	struct vrnic_qp_cc *cc = &qp->xport.cc;
	u32 gen = atomic_read(&vdev->cfg_gen);
	u64 until;
	bool ok;

	/* Fast path: nothing changed, not limited, not paused, no lock. */
	if (likely(READ_ONCE(cc->gen) == gen &&
		   READ_ONCE(cc->prio_gen) == gen && READ_ONCE(cc->prio_valid) &&
		   !READ_ONCE(cc->rp.active) && !READ_ONCE(cc->pfc_paused))) {
		until = vrnic_pfc_paused_until(vdev, READ_ONCE(cc->prio));
		if (likely(!until || until <= ktime_get_ns()))
			return true;
	}
	spin_lock(&cc->cc_lock);
	ok = vrnic_cc_tx_ok_locked(qp, gen, who);
	spin_unlock(&cc->cc_lock);
	return ok;
}

/*
 * A packet the stack refused (NET_XMIT_DROP, -ENOBUFS from vrnic_xmit():
 * a full qdisc, a veth peer's backlog, vrnic's local FIFO) is one this
 * host dropped, not one the network lost: sending on would only be
 * refused too, and the loss would cost the requester a sequence NAK's
 * go-back or, for a READ's or a stream's last packets, an ACK timeout
 * (over a veth pair at MTU 1500, 4 MiB READs lost 38% of their responses
 * so and timed out every 100-200 ms).  So the sender keeps the packet's
 * PSN, stops, and builds it again after a pause, the way TCP keeps a
 * segment its own host dropped.  The pause doubles from
 * VRNIC_REFUSED_WAIT_MIN_NS while refusals continue, up to
 * VRNIC_REFUSED_WAIT_MAX_NS, well below the ACK timeouts consumers set
 * (4.096 us * 2^timeout, IBA 9.7.6.1.3; perftest's 14 is 67 ms): a peer
 * whose timeout is shorter resends, as after a loss.  After @max
 * refusals in a row the packet counts as lost, as before, so that a
 * queue that never drains ends in the requester's retries and a
 * RETRY_EXC_ERR completion, not in a QP that waits for ever: for a
 * request or a READ response VRNIC_REFUSED_MAX (about 120 ms of waiting;
 * cc.h), for an ACK or NAK VRNIC_REFUSED_ANSWER_MAX.
 */
#define VRNIC_REFUSED_WAIT_MIN_NS	(16 * NSEC_PER_USEC)
#define VRNIC_REFUSED_WAIT_MAX_NS	(2 * NSEC_PER_MSEC)

/**
 * vrnic_cc_refused - a sender's packet was refused by the stack
 * @qp: an RC, UC or UD QP, transport not stopped
 * @who: the requester (@sq_lock held) or the responder (@rq_lock held)
 * @refusals: @who's count of refusals in a row, which the caller resets
 *	when a packet goes
 * @max: how many in a row before the packet counts as lost
 *
 * Return: true if @who is to stop and build the packet again: the
 * pacer's timer runs its work item after the pause (see above), as it
 * does when vrnic_cc_tx_ok() holds it.  False after @max
 * in a row: the packet counts as lost.
 */
bool vrnic_cc_refused(struct vrnic_qp *qp, enum vrnic_cc_sender who,
		      u8 *refusals, u8 max)
{
	struct vrnic_qp_cc *cc = &qp->xport.cc;
	u64 wait;

	if (*refusals >= max) {
		*refusals = 0;
		return false;
	}
	wait = min_t(u64, VRNIC_REFUSED_WAIT_MIN_NS << min_t(u8, *refusals, 16),
		     VRNIC_REFUSED_WAIT_MAX_NS);
	(*refusals)++;
	spin_lock(&cc->cc_lock);
	vrnic_cc_wait(cc, who, ktime_get_ns() + wait);
	spin_unlock(&cc->cc_lock);
	return true;
}

/**
 * vrnic_cc_sent - account a packet one of the QP's senders sent
 * @qp: an RC or UC QP; @sq_lock or @rq_lock held
 * @roce_bytes: its length from the BTH to the ICRC
 *
 * DCQCN counts and paces the packet from its IP header on.
 */
void vrnic_cc_sent(struct vrnic_qp *qp, u32 roce_bytes)
{
	struct vrnic_qp_cc *cc = &qp->xport.cc;
	u32 bytes;
	u64 now;

	/* A released limiter has nothing to count: no lock, no clock. */
	if (likely(!READ_ONCE(cc->rp.active)))
		return;
	bytes = roce_bytes + sizeof(struct udphdr) +
		(qp->av.network_type == RDMA_NETWORK_IPV4 ?
		 sizeof(struct iphdr) : sizeof(struct ipv6hdr));
	spin_lock(&cc->cc_lock);
	now = max(ktime_get_ns(), cc->rp.now);
	/* Only what can change the state: the byte counter runs. */
	if (cc->rp.active && cc->rp.inc_armed && cc->params.byte_reset)
		trace_vrnic_cc_input(dev_name(&qp->ibqp.device->dev),
				     qp->ibqp.qp_num, ++cc->trace_seq, now,
				     false, bytes);
	vrnic_rp_sent(&cc->rp, &cc->params, now, bytes, vrnic_rp_tracer(qp));
	if (cc->rp.active)
		cc->next_tx = max(cc->next_tx, now) +
			      div64_u64((u64)bytes * 8 * NSEC_PER_SEC,
					vrnic_cc_pace_rate(cc));
	spin_unlock(&cc->cc_lock);
}

/**
 * vrnic_cc_pace_gap - how far apart the pacer spaces the QP's packets
 * @qp: an RC or UC QP
 * @bytes: a packet's size
 *
 * A hint, read without @cc_lock (see struct vrnic_qp_cc).
 * Return: the time in jiffies between two such packets while the QP's
 * DCQCN limiter is engaged, 0 while it is not.
 */
unsigned long vrnic_cc_pace_gap(struct vrnic_qp *qp, u32 bytes)
{
	const struct vrnic_qp_cc *cc = &qp->xport.cc;

	if (!READ_ONCE(cc->rp.active))
		return 0;
	return nsecs_to_jiffies(div64_u64((u64)bytes * 8 * NSEC_PER_SEC,
					  vrnic_cc_pace_rate(cc)));
}

/* ---------------------------------------------------------- observability */

/* A consistent snapshot of the RP state; takes @cc_lock. */
static void vrnic_cc_rp_snapshot(struct vrnic_qp *qp, struct vrnic_rp *rp)
{
	spin_lock_bh(&qp->xport.cc.cc_lock);
	*rp = qp->xport.cc.rp;
	spin_unlock_bh(&qp->xport.cc.cc_lock);
}

/**
 * vrnic_cc_qp_values - the congestion control part of a QP's counters
 * @qp: the QP (the caller holds a reference)
 * @val: indexed by enum vrnic_qp_counter; the CC entries are filled in
 *
 * Process context (the netlink QP counter dump).
 */
void vrnic_cc_qp_values(struct vrnic_qp *qp, u64 *val)
{
	const struct vrnic_qp_cc *cc = &qp->xport.cc;
	struct vrnic_rp rp;

	vrnic_cc_rp_snapshot(qp, &rp);
	val[VRNIC_QP_CNT_CNP_SENT] = READ_ONCE(cc->cnp_sent);
	val[VRNIC_QP_CNT_CNP_RCVD] = READ_ONCE(cc->cnp_handled);
	val[VRNIC_QP_CNT_ECN_MARKED] = READ_ONCE(cc->ecn_marked);
	val[VRNIC_QP_CNT_RATE_MBPS] = div_u64(rp.rc, 1000000);
	val[VRNIC_QP_CNT_TARGET_MBPS] = div_u64(rp.rt, 1000000);
	/* Q31 to the 1/1024 units of initial_alpha_value */
	val[VRNIC_QP_CNT_ALPHA] = rp.alpha >> 21;
	val[VRNIC_QP_CNT_LIMITED] = rp.active;
	val[VRNIC_QP_CNT_PFC_PAUSED] = READ_ONCE(cc->pfc_paused);
}

/**
 * vrnic_cc_pacer_state - what the pacer holds the requester to
 * @qp: the QP; @sq_lock held
 * @wait_ns: set to how long until the pacer lets the next packet go (0 if
 *	it may go now)
 * @waiting: set if the requester waits for the pacer's timer
 * @armed: set if that timer is queued
 */
void vrnic_cc_pacer_state(struct vrnic_qp *qp, u64 *wait_ns, bool *waiting,
			  bool *armed)
{
	struct vrnic_qp_cc *cc = &qp->xport.cc;
	u64 now = ktime_get_ns();

	spin_lock(&cc->cc_lock);
	*wait_ns = cc->rp.active && cc->next_tx > now ? cc->next_tx - now : 0;
	*waiting = cc->req_waiting;
	*armed = hrtimer_is_queued(&cc->rp_timer);
	spin_unlock(&cc->cc_lock);
}

/* ------------------------------------------------------------- lifetime */

/* Fresh NP and RP state from the device's current settings. */
static void vrnic_cc_fresh(struct vrnic_qp *qp)
{
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);
	struct vrnic_qp_cc *cc = &qp->xport.cc;
	u32 mbps = READ_ONCE(vdev->link_mbps);
	const struct vrnic_dcqcn *d;

	cc->np_sent = false;
	cc->np_pending = false;

	spin_lock_bh(&cc->cc_lock);
	cc->next_tx = 0;
	cc->req_waiting = false;
	cc->resp_waiting = false;
	cc->pfc_paused = false;
	cc->prio_valid = false;
	cc->gen = atomic_read(&vdev->cfg_gen);
	rcu_read_lock();
	d = &rcu_dereference(vdev->cfg)->dcqcn;
	vrnic_rp_params_from_dcqcn(&cc->params, d, mbps);
	vrnic_rp_init(&cc->rp, &cc->params);
	vrnic_cc_trace_params(qp, d, mbps);
	rcu_read_unlock();
	spin_unlock_bh(&cc->cc_lock);
}

/* A new QP (vrnic_xport_init()). */
void vrnic_cc_init(struct vrnic_qp *qp)
{
	struct vrnic_qp_cc *cc = &qp->xport.cc;

	spin_lock_init(&cc->cc_lock);
	hrtimer_init(&cc->np_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	cc->np_timer.function = vrnic_np_timer;
	hrtimer_init(&cc->rp_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	cc->rp_timer.function = vrnic_rp_timer;
	vrnic_cc_fresh(qp);
}

/* Entering RESET: stopped, both engine locks held.  Counters survive. */
void vrnic_cc_reset(struct vrnic_qp *qp)
{
	vrnic_cc_fresh(qp);
}

/*
 * After the transport was marked stopped (vrnic_xport_stop()): no path
 * arms the timers any more; wait for a running callback.  The pacer's
 * callback queues the requester's and the responder's work, so this runs
 * before that work is cancelled.
 */
void vrnic_cc_stop(struct vrnic_qp *qp)
{
	hrtimer_cancel(&qp->xport.cc.np_timer);
	hrtimer_cancel(&qp->xport.cc.rp_timer);
}

/**
 * vrnic_cc_link_changed - the bound netdev's speed may have changed
 * @vdev: the device; rtnl held (netdev notifier, device creation)
 *
 * The speed is the DCQCN maximum rate when rpg_max_rate is 0.
 */
void vrnic_cc_link_changed(struct vrnic_dev *vdev)
{
	struct ethtool_link_ksettings ks;
	u32 mbps = 0;

	ASSERT_RTNL();
	if (!__ethtool_get_link_ksettings(vdev->ndev, &ks) &&
	    ks.base.speed != SPEED_UNKNOWN)
		mbps = ks.base.speed;
	if (mbps == vdev->link_mbps)
		return;
	WRITE_ONCE(vdev->link_mbps, mbps);
	atomic_inc(&vdev->cfg_gen);
}
