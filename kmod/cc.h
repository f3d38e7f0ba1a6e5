/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic: congestion control and QoS in the data path (docs/cc.md).
 *
 *  - Egress QoS: the DSCP, ECN codepoint and skb->priority of every packet
 *    vrnic sends, from the device's QoS settings (vrnic_tx_qos()).
 *  - Notification point (NP): a CE-marked request or READ response on an
 *    RC/UC QP is answered with a CNP, at most one per QP per
 *    min_time_between_cnps (vrnic_np_mark()).
 *  - Reaction point (RP): a CNP from the peer cuts the QP's DCQCN rate
 *    (cc_rp.c), and both senders of the QP are paced to that rate: the
 *    requester (requests, retransmissions) and the responder (READ
 *    responses) (vrnic_cc_tx_ok(), vrnic_cc_sent()).
 */
#ifndef VRNIC_CC_H
#define VRNIC_CC_H

#include <linux/hrtimer.h>
#include <linux/types.h>

#include "cc_rp.h"

struct ib_qp;
struct sk_buff;
struct vrnic_av;
struct vrnic_dev;
struct vrnic_qp;

/**
 * struct vrnic_qp_cc - congestion control state of one QP
 *
 * Notification point, under the QP's @rq_lock (the receive side):
 * @np_timer: answers a mark that arrived inside the interval, at its end
 * @np_last: time the last CNP went out, ns (CLOCK_MONOTONIC)
 * @np_sent: @np_last is valid
 * @np_pending: a mark waits for @np_timer
 * @ecn_marked: CE-marked packets received on this QP
 * @cnp_sent: CNPs sent by this QP
 *
 * Reaction point and pacer, under @cc_lock.  Both of the QP's senders
 * are paced to one rate and one schedule: the requester (requests and
 * retransmissions, under @sq_lock) and the responder (READ responses,
 * under @rq_lock).  @cc_lock nests inside either of those and takes
 * nothing itself, so the lock order is @sq_lock, @rq_lock, @cc_lock:
 * @cc_lock: protects the fields below
 * @rp_timer: wakes the paced senders when they may send again
 * @rp: DCQCN state (cc_rp.h)
 * @params: the device's DCQCN settings in the units of cc_rp.c
 * @gen: vrnic_dev.cfg_gen that @params were computed from
 * @next_tx: earliest time the next paced packet may leave, ns
 * @cnp_handled: CNPs from the peer applied to @rp
 * @pfc_paused: a sender last stopped for a PFC/PAUSE frame
 * @req_waiting: the requester waits for @rp_timer
 * @resp_waiting: the responder waits for @rp_timer
 * @prio: the priority the QP's packets leave with (vrnic_tx_qos())
 * @prio_gen: vrnic_dev.cfg_gen that @prio was computed from
 * @prio_valid: @prio is valid (cleared when the address vector changes)
 * @trace_seq: sequence number of the QP's last CC trace event: the trace
 *	buffer is per CPU and the CPUs' clocks need not agree, so the order
 *	of a QP's events under @cc_lock is this number's (trace.h)
 *
 * The senders' fast path (vrnic_cc_tx_ok(), vrnic_cc_sent()) reads @gen,
 * @prio, @pfc_paused and @rp.active without @cc_lock: a value one packet
 * old only moves a rate cut or a pause by that packet, as if the CNP or
 * PAUSE frame had arrived a little later.
 *
 * Both timers are armed only with the transport not stopped, under
 * @rq_lock (@np_timer) or under @cc_lock inside @sq_lock or @rq_lock
 * (@rp_timer), and vrnic_cc_stop() cancels them after it is stopped (the
 * lifetime rule of transport.h).
 */
struct vrnic_qp_cc {
	struct hrtimer np_timer;
	u64 np_last;
	bool np_sent;
	bool np_pending;
	u64 ecn_marked;
	u64 cnp_sent;

	spinlock_t cc_lock;	/* the RP and the pacer, see above */
	struct hrtimer rp_timer;
	struct vrnic_rp rp;
	struct vrnic_rp_params params;
	u32 gen;
	u64 next_tx;
	u64 cnp_handled;
	bool pfc_paused;
	bool req_waiting;
	bool resp_waiting;
	u8 prio;
	bool prio_valid;
	u32 prio_gen;
	u64 trace_seq;
};

/* A CNP: BTH, 16 reserved bytes, ICRC (IBTA annex A17.9.2). */
#define VRNIC_CNP_RSVD_BYTES	16
#define VRNIC_CNP_BYTES		(12 + VRNIC_CNP_RSVD_BYTES + 4)
/* BTH byte 4 (resv8a in IBA) of a CNP: the BECN bit. */
#define VRNIC_BTH_BECN		0x40

/* Which of the QP's senders asks vrnic_cc_tx_ok(). */
enum vrnic_cc_sender {
	VRNIC_CC_REQUESTER,	/* under @sq_lock */
	VRNIC_CC_RESPONDER,	/* READ responses, under @rq_lock */
};

void vrnic_cc_init(struct vrnic_qp *qp);
void vrnic_cc_reset(struct vrnic_qp *qp);
void vrnic_cc_stop(struct vrnic_qp *qp);
void vrnic_cc_path_changed(struct vrnic_qp *qp);

void vrnic_tx_qos(struct vrnic_dev *vdev, const struct vrnic_av *av,
		  u8 opcode, u8 *dsfield, u32 *prio);
void vrnic_np_mark(struct vrnic_qp *qp, struct sk_buff *skb, u8 dsfield,
		   u32 mask);
void vrnic_rp_cnp_rcv(struct vrnic_qp *qp);
bool vrnic_cc_tx_ok(struct vrnic_qp *qp, enum vrnic_cc_sender who);
/*
 * Refusals in a row before a refused packet counts as lost (see
 * vrnic_cc_refused()).  An ACK or NAK is tried longer, about half a
 * second at the longest pause: sending it again holds nothing back, and
 * given up it costs the requester a timeout.
 */
#define VRNIC_REFUSED_MAX		64
#define VRNIC_REFUSED_ANSWER_MAX	255

bool vrnic_cc_refused(struct vrnic_qp *qp, enum vrnic_cc_sender who,
		      u8 *refusals, u8 max);
bool vrnic_cc_pfc_holding(struct vrnic_qp *qp);
bool vrnic_cc_loss_is_congestion(struct vrnic_qp *qp);
void vrnic_cc_sent(struct vrnic_qp *qp, u32 roce_bytes);
unsigned long vrnic_cc_pace_gap(struct vrnic_qp *qp, u32 bytes);
void vrnic_cc_link_changed(struct vrnic_dev *vdev);
void vrnic_cc_qp_values(struct vrnic_qp *qp, u64 *val);
void vrnic_cc_pacer_state(struct vrnic_qp *qp, u64 *wait_ns, bool *waiting,
			  bool *armed);

#endif /* VRNIC_CC_H */
