// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: honouring received PFC (IEEE 802.1Qbb) and PAUSE (802.3x) frames.
 *
 * A NIC's MAC stops its transmit queue of a priority in hardware within a
 * few hundred nanoseconds of a PFC frame.  vrnic has no MAC: it sees MAC
 * control frames only where the bound netdev hands them to the stack (a
 * veth or a NIC whose driver passes them up; most NICs consume them in
 * hardware and act on them themselves, for all traffic, not only vrnic's),
 * and what it can stop is its own requester.  So, as docs/cc.md says:
 *  - a PFC frame for priority N, if the device's pfc_en has bit N, stops
 *    new request packets (first transmissions and retransmissions) and
 *    READ responses of every QP of this device whose packets go out with
 *    priority N, for the time the frame's quanta give at the link's
 *    speed; XON (quanta 0) resumes them.  ACKs, NAKs and CNPs are not
 *    held, and packets already queued below vrnic (qdisc, driver) still
 *    go out;
 *  - an 802.3x PAUSE frame does the same for every priority, and only when
 *    PFC is off (pfc_en 0): with PFC on, a port ignores link-level pause;
 *  - storm guard: a priority is never kept paused without a break for
 *    longer than pfc_storm_ms; the frame that would extend the pause past
 *    it counts rx_pause_storm_events, and frames for that priority are
 *    ignored for pfc_storm_ms after the release, so a stuck peer cannot
 *    stall a QP forever.
 * vrnic never sends PFC frames.
 */

#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/ktime.h>
#include <linux/netdevice.h>
#include <asm/unaligned.h>

#include "vrnic.h"
#include "config.h"
#include "trace.h"

/*
 * Storm guard: a priority paused without a break for longer than this is
 * released, and frames for it are ignored for as long.  A NIC's PFC
 * watchdog acts in the same 100 ms range by default; like its ethtool
 * tunable, this one can be raised (or, with 0, the guard turned off).
 */
static unsigned int pfc_storm_ms = 100;
module_param(pfc_storm_ms, uint, 0644);
MODULE_PARM_DESC(pfc_storm_ms,
		 "release a priority paused without a break for this long, and ignore its PFC frames as long (ms, 0: no guard)");

/*
 * The longest pause a frame can ask for is 65535 quanta, 3.4 ms at 10 Gb/s:
 * shorter than an emulator's scheduling granularity.  Tests make pauses
 * observable by timing quanta at a slower speed (DESIGN.md 3).
 */
static unsigned int pfc_quanta_mbps;
module_param(pfc_quanta_mbps, uint, 0644);
MODULE_PARM_DESC(pfc_quanta_mbps,
		 "time PFC quanta at this speed instead of the link's (Mb/s, 0: the link's; for tests)");

/* MAC control opcodes (IEEE 802.3 annex 31B, 802.1Qbb 36.1.3). */
#define VRNIC_MACCTL_PAUSE	0x0001
#define VRNIC_MACCTL_PFC	0x0101
/* opcode, class-enable vector, 8 times 16-bit quanta */
#define VRNIC_PFC_FRAME_BYTES	(2 + 2 + 2 * VRNIC_NUM_PRIO)
/* opcode, 16-bit quanta */
#define VRNIC_PAUSE_FRAME_BYTES	4

/* One quantum is 512 bit times; at 1 Mb/s a bit lasts 1000 ns. */
static u64 vrnic_pfc_quanta_ns(u16 quanta, u32 link_mbps)
{
	/* Speed unknown: assume 10 Gb/s, the speed of a veth. */
	return div_u64((u64)quanta * 512 * 1000, link_mbps ?: 10000);
}

/*
 * rx_prio<N>_pause_duration counts the time the priority was paused, in
 * microseconds, as it passes: a frame that renews a pause before it ends,
 * or an XON that ends it early, must count neither the overlap nor the
 * part that never happened.  Count what has passed of the pause up to
 * @now; @pfc->lock held.
 */
static void vrnic_pfc_count(struct vrnic_dev *vdev, int prio, u64 now)
{
	struct vrnic_pfc *pfc = &vdev->pfc;
	u64 end = min(now, pfc->until[prio]);

	if (end > pfc->counted[prio])
		vrnic_counter_add(vdev, VRNIC_CNT_RX_PRIO_PAUSE_DURATION + prio,
				  div_u64(end, NSEC_PER_USEC) -
				  div_u64(pfc->counted[prio], NSEC_PER_USEC));
	pfc->counted[prio] = max(pfc->counted[prio], now);
}

/**
 * vrnic_pfc_count_duration - bring the pause durations up to now
 * @vdev: the device whose port counters are about to be read
 */
void vrnic_pfc_count_duration(struct vrnic_dev *vdev)
{
	u64 now = ktime_get_ns();
	int p;

	spin_lock_bh(&vdev->pfc.lock);
	for (p = 0; p < VRNIC_NUM_PRIO; p++)
		vrnic_pfc_count(vdev, p, now);
	spin_unlock_bh(&vdev->pfc.lock);
}

/* Apply one priority's quanta; @pfc->lock held. */
static void vrnic_pfc_apply(struct vrnic_dev *vdev, int prio, u16 quanta,
			    u64 now)
{
	struct vrnic_pfc *pfc = &vdev->pfc;
	bool storm_hit = false;
	u64 ns, storm, until;

	vrnic_pfc_count(vdev, prio, now);
	if (!quanta) {
		/* XON: resume now; the paused requesters poll (cc.c). */
		WRITE_ONCE(pfc->until[prio], 0);
		pfc->since[prio] = 0;
		trace_vrnic_pfc_frame(dev_name(&vdev->ibdev.dev), prio, 0, 0,
				      false, false);
		return;
	}
	if (now < pfc->storm_until[prio]) {
		trace_vrnic_pfc_frame(dev_name(&vdev->ibdev.dev), prio, quanta,
				      0, false, true);
		return;
	}
	if (!pfc->since[prio] || READ_ONCE(pfc->until[prio]) < now)
		pfc->since[prio] = now;	/* a new, unbroken pause */
	ns = vrnic_pfc_quanta_ns(quanta, READ_ONCE(pfc_quanta_mbps) ?:
				 READ_ONCE(vdev->link_mbps));
	until = now + ns;
	storm = (u64)READ_ONCE(pfc_storm_ms) * NSEC_PER_MSEC;
	if (storm && until - pfc->since[prio] > storm) {
		/*
		 * The pause would outlast the guard: end it there, and
		 * ignore this priority's frames as long again after.
		 */
		until = pfc->since[prio] + storm;
		pfc->storm_until[prio] = until + storm;
		pfc->since[prio] = 0;
		vrnic_counter_inc(vdev, VRNIC_CNT_RX_PAUSE_STORM);
		storm_hit = true;
	}
	trace_vrnic_pfc_frame(dev_name(&vdev->ibdev.dev), prio, quanta,
			      until - now, storm_hit, false);
	WRITE_ONCE(pfc->until[prio], until);
	vrnic_counter_inc(vdev, VRNIC_CNT_RX_PRIO_PAUSE + prio);
}

static int vrnic_pfc_rcv(struct sk_buff *skb, struct net_device *ndev,
			 struct packet_type *pt, struct net_device *orig)
{
	struct vrnic_dev *vdev = container_of(pt, struct vrnic_dev, pfc.pt);
	u16 quanta[VRNIC_NUM_PRIO];
	u8 pfc_en, vec;
	u64 now;
	int p;

	if (!pskb_may_pull(skb, VRNIC_PAUSE_FRAME_BYTES))
		goto ignore;
	rcu_read_lock();
	pfc_en = rcu_dereference(vdev->cfg)->qos.pfc_en;
	rcu_read_unlock();

	switch (get_unaligned_be16(skb->data)) {
	case VRNIC_MACCTL_PAUSE:
		if (pfc_en)
			goto ignore;	/* PFC on: link-level pause is not */
		vec = 0xff;
		for (p = 0; p < VRNIC_NUM_PRIO; p++)
			quanta[p] = get_unaligned_be16(skb->data + 2);
		break;
	case VRNIC_MACCTL_PFC:
		if (!pskb_may_pull(skb, VRNIC_PFC_FRAME_BYTES))
			goto ignore;
		/* The vector's high octet is reserved (802.1Qbb 36.1.3.2). */
		vec = get_unaligned_be16(skb->data + 2) & pfc_en;
		for (p = 0; p < VRNIC_NUM_PRIO; p++)
			quanta[p] = get_unaligned_be16(skb->data + 4 + 2 * p);
		break;
	default:
		goto ignore;
	}
	if (!vec)
		goto ignore;

	now = ktime_get_ns();
	spin_lock(&vdev->pfc.lock);
	for (p = 0; p < VRNIC_NUM_PRIO; p++)
		if (vec & BIT(p))
			vrnic_pfc_apply(vdev, p, quanta[p], now);
	spin_unlock(&vdev->pfc.lock);
	consume_skb(skb);
	return NET_RX_SUCCESS;

ignore:
	/* Not ours to act on: a disabled priority, an unknown opcode. */
	vrnic_counter_inc(vdev, VRNIC_CNT_RX_PAUSE_IGNORED);
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

/**
 * vrnic_pfc_paused_until - when a priority's pause ends
 * @vdev: the device
 * @prio: 802.1p priority
 *
 * Return: the time (ktime_get_ns()) the pause ends, or 0 if none was
 * received; a time in the past means not paused.
 */
u64 vrnic_pfc_paused_until(struct vrnic_dev *vdev, u32 prio)
{
	return READ_ONCE(vdev->pfc.until[prio]);
}

/* Device creation: listen to the MAC control frames of @vdev->ndev. */
void vrnic_pfc_start(struct vrnic_dev *vdev)
{
	struct vrnic_pfc *pfc = &vdev->pfc;

	BUILD_BUG_ON(ARRAY_SIZE(pfc->until) != VRNIC_NUM_PRIO);
	spin_lock_init(&pfc->lock);
	pfc->pt.type = htons(ETH_P_PAUSE);
	/*
	 * MAC control frames are untagged: over a VLAN they arrive on the
	 * real device, which the VLAN device holds for as long as it exists.
	 */
	pfc->pt.dev = is_vlan_dev(vdev->ndev) ?
		      vlan_dev_real_dev(vdev->ndev) : vdev->ndev;
	pfc->pt.func = vrnic_pfc_rcv;
	dev_add_pack(&pfc->pt);
}

/* Device teardown: returns once no frame handler runs (synchronize_net). */
void vrnic_pfc_stop(struct vrnic_dev *vdev)
{
	dev_remove_pack(&vdev->pfc.pt);
}
