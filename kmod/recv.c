// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: receiving RoCEv2 packets.
 *
 * Trust boundary: everything in the skb comes from the network.  Every
 * length is checked before the byte it describes is read, the ICRC is
 * verified before any header field is believed, and a packet that fails
 * a check is dropped and counted by reason, never answered.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/inetdevice.h>
#include <linux/if_vlan.h>
#include <net/addrconf.h>
#include <asm/unaligned.h>
#include <rdma/ib_mad.h>
#include <net/inet_ecn.h>

#include "vrnic.h"
#include "verbs.h"
#include "opcode.h"

/*
 * The vrnic device bound to @ndev, or to the real device of the VLAN
 * device @ndev (whose addresses ib_core gave that device as GIDs), with a
 * device reference, or NULL.
 */
static struct vrnic_dev *vrnic_dev_from_netdev(struct net_device *ndev)
{
	struct vrnic_dev *vdev = vrnic_dev_get_by_netdev(ndev);

	if (!vdev && is_vlan_dev(ndev))
		vdev = vrnic_dev_get_by_netdev(vlan_dev_real_dev(ndev));
	return vdev;
}

/*
 * The vrnic device owning address @addr of @family (AF_INET: a __be32,
 * AF_INET6: a struct in6_addr) in @net, with a device reference, or NULL.
 */
static struct vrnic_dev *vrnic_dev_from_addr(struct net *net, int family,
					     const void *addr)
{
	struct net_device *ndev;
	struct vrnic_dev *vdev = NULL;

	rcu_read_lock();
	if (family == AF_INET)
		ndev = __ip_dev_find(net, *(const __be32 *)addr, false);
	else
		ndev = ipv6_dev_find(net, addr, NULL);
	if (ndev)
		vdev = vrnic_dev_from_netdev(ndev);
	rcu_read_unlock();
	return vdev;
}

/*
 * The device owning the destination address of @skb, with a device
 * reference, or NULL: for packets to an address of this host (local
 * delivery in xmit.c, and the forgeries vrnic_rcv() drops).
 */
struct vrnic_dev *vrnic_dev_from_daddr(struct sk_buff *skb)
{
	struct net *net = dev_net(skb->dev);

	if (ip_hdr(skb)->version == 4)
		return vrnic_dev_from_addr(net, AF_INET, &ip_hdr(skb)->daddr);
	return vrnic_dev_from_addr(net, AF_INET6, &ipv6_hdr(skb)->daddr);
}

/* Whether @skb's destination address is an IP multicast one. */
static bool vrnic_daddr_is_mcast(struct sk_buff *skb)
{
	if (ip_hdr(skb)->version == 4)
		return ipv4_is_multicast(ip_hdr(skb)->daddr);
	return ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);
}

static bool vrnic_pkey_ok(u16 pkey)
{
	/* IBA 10.9.3: low 15 bits match, one side a full member. */
	return (pkey & 0x7fff) == (VRNIC_DEFAULT_PKEY & 0x7fff);
}

static bool vrnic_transport_ok(struct vrnic_qp *qp, u8 opcode)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		return VRNIC_OP_TRANSPORT(opcode) == VRNIC_OP_RC;
	case IB_QPT_UC:
		return VRNIC_OP_TRANSPORT(opcode) == VRNIC_OP_UC;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return VRNIC_OP_TRANSPORT(opcode) == VRNIC_OP_UD;
	default:
		return false;
	}
}

/* Requests need a receiving QP (RTR and later), responses a sending one. */
static bool vrnic_state_ok(struct vrnic_qp *qp, u32 mask)
{
	enum ib_qp_state state = READ_ONCE(qp->state);

	if (mask & VRNIC_M_REQ)
		return state == IB_QPS_RTR || state == IB_QPS_RTS ||
		       state == IB_QPS_SQD || state == IB_QPS_SQE;
	return state == IB_QPS_RTS || state == IB_QPS_SQD;
}

/**
 * vrnic_rcv - handle one packet received on a vrnic UDP socket
 * @skb: UDP datagram; network and transport headers set.  Consumed.
 *
 * Called from the socket's encap_rcv in softirq context.
 * Return: 0 always (the packet was consumed).
 */
int vrnic_rcv(struct sk_buff *skb)
{
	struct vrnic_dev *vdev;
	bool looped = skb->dev->flags & IFF_LOOPBACK;

	vdev = looped ? vrnic_dev_from_daddr(skb) :
			vrnic_dev_from_netdev(skb->dev);
	if (!vdev) {
		kfree_skb(skb);
		return 0;
	}
	/*
	 * A vrnic device sends to an address of its own host by local
	 * delivery (xmit.c), never through this socket.  So a unicast
	 * datagram that reached the socket through the loopback device, or
	 * looped back by the sender's host, came from a local socket: any
	 * local user can send one with whatever RoCE headers and ICRC it
	 * likes, and with the source address of a local peer.  Drop it.
	 * Multicast is the exception (mcast.c): the IP stack loops our own
	 * host's copy back through the sending netdev, and it can only
	 * reach UD QPs, which take packets from anyone with the Q_Key.
	 */
	if (looped ||
	    (skb->pkt_type != PACKET_HOST && !vrnic_daddr_is_mcast(skb))) {
		vrnic_counter_inc(vdev, VRNIC_CNT_DROP_BAD_ADDR);
		ib_device_put(&vdev->ibdev);
		kfree_skb(skb);
		return 0;
	}
	return vrnic_rcv_dev(vdev, skb, -1);
}

/*
 * RC and UC: a connected QP accepts only its peer's packets (the
 * header validation of IBA 9.6 checks the source of a connected QP's
 * packets; RoCEv2, annex A17, carries the addresses in the IP header).
 * So compare the outer IP header with the QP's primary path: source the
 * remote GID's address, destination our GID's, as set at RTR.  UD and
 * GSI take packets from anyone with the Q_Key.  qp->av changes only in
 * modify_qp; a packet racing that change may be dropped, which RC
 * recovers from like from any loss.
 */
static bool vrnic_addrs_ok(struct vrnic_qp *qp, int family,
			   const void *saddr, const void *daddr)
{
	const struct vrnic_av *av = &qp->av;

	if (qp->ibqp.qp_type != IB_QPT_RC && qp->ibqp.qp_type != IB_QPT_UC)
		return true;
	if (family == AF_INET)
		return av->network_type == RDMA_NETWORK_IPV4 &&
		       *(const __be32 *)saddr == av->daddr.in4.sin_addr.s_addr &&
		       *(const __be32 *)daddr == av->saddr.in4.sin_addr.s_addr;
	return av->network_type == RDMA_NETWORK_IPV6 &&
	       ipv6_addr_equal(saddr, &av->daddr.in6.sin6_addr) &&
	       ipv6_addr_equal(daddr, &av->saddr.in6.sin6_addr);
}

static bool vrnic_addr_ok(struct vrnic_qp *qp, struct sk_buff *skb)
{
	if (ip_hdr(skb)->version == 4)
		return vrnic_addrs_ok(qp, AF_INET, &ip_hdr(skb)->saddr,
				      &ip_hdr(skb)->daddr);
	return vrnic_addrs_ok(qp, AF_INET6, &ipv6_hdr(skb)->saddr,
			      &ipv6_hdr(skb)->daddr);
}

/* The outer header's TOS / traffic class byte: DSCP and ECN field. */
static u8 vrnic_dsfield(struct sk_buff *skb)
{
	return ip_hdr(skb)->version == 4 ? ipv4_get_dsfield(ip_hdr(skb)) :
					   ipv6_get_dsfield(ipv6_hdr(skb));
}

/*
 * A congestion notification packet (IBTA annex A17.9.2): BTH with opcode
 * 0x81 and the BECN bit, 16 reserved bytes, ICRC; the BTH's destination
 * QP is the QP of ours whose packets were marked.  It has no entry in
 * the opcode table (it is not a transport operation), so it is checked
 * here in full: a malformed one counts as any malformed packet, one that
 * names no RC/UC QP of ours in a sending state, or comes from anyone but
 * that QP's peer, counts as ignored (rp_cnp_ignored) besides the drop
 * reason; a good one cuts the QP's rate (cc.c).  The reserved bytes and
 * the BECN bit are not checked: IBA has receivers ignore reserved fields.
 */
static int vrnic_rcv_cnp(struct vrnic_dev *vdev, struct sk_buff *skb,
			 struct vrnic_bth *bth, u32 len, bool local)
{
	enum vrnic_counter reason = VRNIC_CNT_DROP_MALFORMED;
	struct vrnic_qp *qp = NULL;
	enum ib_qp_state state;

	if (len != VRNIC_CNP_BYTES || bth_tver(bth) != VRNIC_BTH_TVER ||
	    bth_pad(bth))
		goto drop;
	reason = VRNIC_CNT_ICRC_ERRORS;
	if (!local && !vrnic_icrc_ok(skb, (u8 *)bth, len - VRNIC_ICRC_BYTES))
		goto drop;
	reason = VRNIC_CNT_DROP_BAD_PKEY;
	if (!vrnic_pkey_ok(bth_pkey(bth)))
		goto drop;

	reason = VRNIC_CNT_DROP_UNKNOWN_QP;
	qp = vrnic_qp_get(vdev, bth_qpn(bth));
	if (!qp)
		goto ignored;
	reason = VRNIC_CNT_DROP_MALFORMED;
	if (qp->ibqp.qp_type != IB_QPT_RC && qp->ibqp.qp_type != IB_QPT_UC)
		goto ignored;
	reason = VRNIC_CNT_DROP_QP_STATE;
	state = READ_ONCE(qp->state);
	if (state != IB_QPS_RTS && state != IB_QPS_SQD)
		goto ignored;
	reason = VRNIC_CNT_DROP_BAD_ADDR;
	if (!vrnic_addr_ok(qp, skb))
		goto ignored;

	vrnic_counter_inc(vdev, VRNIC_CNT_RX_PACKETS);
	vrnic_rp_cnp_rcv(qp);
	vrnic_qp_put(qp);
	ib_device_put(&vdev->ibdev);
	consume_skb(skb);
	return 0;

ignored:
	vrnic_counter_inc(vdev, VRNIC_CNT_RP_CNP_IGNORED);
	if (qp)
		vrnic_qp_put(qp);
drop:
	vrnic_counter_inc(vdev, reason);
	ib_device_put(&vdev->ibdev);
	kfree_skb(skb);
	return 0;
}

/**
 * vrnic_rcv_accepts - whether @qp takes a packet addressed to it
 * @qp: the destination QP, referenced
 * @skb: a packet whose headers vrnic_rcv_dev() checked, vrnic_pkt() set
 * @reason: set to the drop counter if not
 *
 * The checks that depend on the QP (IBA 9.6: transport, state, source,
 * Q_Key); for a multicast packet, run for each attached QP.
 */
bool vrnic_rcv_accepts(struct vrnic_qp *qp, struct sk_buff *skb,
		       enum vrnic_counter *reason)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	const struct vrnic_opcode_info *info = &vrnic_opcode[pkt->opcode];

	*reason = VRNIC_CNT_DROP_MALFORMED;
	if (!vrnic_transport_ok(qp, pkt->opcode))
		return false;
	*reason = VRNIC_CNT_DROP_QP_STATE;
	if (!vrnic_state_ok(qp, info->mask))
		return false;
	*reason = VRNIC_CNT_DROP_BAD_ADDR;
	if (!vrnic_addr_ok(qp, skb))
		return false;
	if (info->mask & VRNIC_M_DETH) {
		struct vrnic_deth *deth = (void *)(pkt->hdr + info->off_deth);
		u32 qkey = qp->ibqp.qp_type == IB_QPT_GSI ?
			   VRNIC_GSI_QKEY : READ_ONCE(qp->attr.qkey);

		*reason = VRNIC_CNT_DROP_BAD_QKEY;
		if (deth_qkey(deth) != qkey)
			return false;
	}
	/*
	 * QP1 receives MADs, which are exactly 256 bytes (IBA 13.4); the
	 * GSI consumer (ib_mad) sizes its receive buffers for one and never
	 * reposts a buffer completed in error, so anything else is dropped
	 * here rather than allowed to use one up.
	 */
	*reason = VRNIC_CNT_DROP_MALFORMED;
	if (qp->ibqp.qp_type == IB_QPT_GSI && pkt->paylen != IB_MGMT_MAD_SIZE)
		return false;
	return true;
}

/*
 * A packet to a multicast group (mcast.c): the IBA has a multicast
 * packet carry destination QP 0xFFFFFF and be a UD SEND, and RoCEv2
 * (annex A17) sends it to a multicast address; a packet with the QPN
 * or the address but not the rest is dropped.  The group is the destination address as a GID.
 * Consumes @skb and the caller's device reference.
 */
static int vrnic_rcv_mcast(struct vrnic_dev *vdev, struct sk_buff *skb)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	enum vrnic_counter reason;
	union ib_gid mgid;
	int n;

	reason = VRNIC_CNT_DROP_BAD_ADDR;
	if (bth_qpn((struct vrnic_bth *)pkt->hdr) != IB_MULTICAST_QPN ||
	    !vrnic_daddr_is_mcast(skb) || vrnic_pkt_local(pkt))
		goto drop;
	reason = VRNIC_CNT_DROP_MALFORMED;
	if (VRNIC_OP_TRANSPORT(pkt->opcode) != VRNIC_OP_UD)
		goto drop;
	if (pkt->family == AF_INET)
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)mgid.raw);
	else
		memcpy(mgid.raw, &ipv6_hdr(skb)->daddr, sizeof(mgid.raw));

	reason = VRNIC_CNT_DROP_UNKNOWN_QP;
	n = vrnic_mcast_deliver(vdev, &mgid, skb);
	if (n < 0)
		goto drop;
	if (n) {
		/* One packet received, whatever the number of copies. */
		vrnic_counter_inc(vdev, VRNIC_CNT_RX_PACKETS);
		vrnic_counter_add(vdev, VRNIC_CNT_RX_BYTES, pkt->paylen);
	}
	ib_device_put(&vdev->ibdev);
	consume_skb(skb);
	return 0;

drop:
	vrnic_counter_inc(vdev, reason);
	ib_device_put(&vdev->ibdev);
	kfree_skb(skb);
	return 0;
}

/*
 * Have the first @len bytes of @skb in its linear area.  On failure
 * @reason says why: the packet is shorter than that, or the memory to
 * pull them into could not be had.
 */
static bool vrnic_rcv_pull(struct sk_buff *skb, unsigned int len,
			   enum vrnic_counter *reason)
{
	if (likely(pskb_may_pull(skb, len)))
		return true;
	*reason = skb->len < len ? VRNIC_CNT_DROP_MALFORMED :
				   VRNIC_CNT_DROP_NO_MEMORY;
	return false;
}

/**
 * vrnic_rcv_dev - handle one packet for a known device
 * @vdev: the receiving device; the caller's reference is dropped here
 * @skb: UDP datagram; network and transport headers set.  Consumed.
 * @from_cpu: for a packet a vrnic device of this host sent straight to
 *	us (local delivery, xmit.c), the CPU that sent it; it never left
 *	kernel memory, so it carries no ICRC to check.  -1 for a packet
 *	from the wire.
 *
 * Return: 0 always (the packet was consumed).
 */
int vrnic_rcv_dev(struct vrnic_dev *vdev, struct sk_buff *skb, int from_cpu)
{
	bool local = from_cpu >= 0;
	const struct vrnic_opcode_info *info;
	enum vrnic_counter reason;
	struct vrnic_pkt *pkt;
	struct vrnic_qp *qp;
	struct vrnic_bth *bth;
	u32 ulen, len, hlen, pad, udp_off;
	u8 opcode, dsfield;

	/*
	 * The headers go to the linear area; the payload may stay in the
	 * skb's fragments (a NIC's receive pages), from where the ICRC
	 * and the copy into the destination read it: linearizing would
	 * copy every byte once more.
	 */
	reason = VRNIC_CNT_DROP_MALFORMED;
	if (skb_transport_offset(skb) < 0)
		goto drop;
	udp_off = skb_transport_offset(skb);
	if (!vrnic_rcv_pull(skb, udp_off + sizeof(struct udphdr) +
			    VRNIC_BTH_BYTES, &reason))
		goto drop;
	ulen = ntohs(udp_hdr(skb)->len);
	if (ulen < sizeof(struct udphdr) + VRNIC_BTH_BYTES + VRNIC_ICRC_BYTES ||
	    udp_off + ulen > skb->len)
		goto drop;
	bth = (struct vrnic_bth *)(udp_hdr(skb) + 1);
	len = ulen - sizeof(struct udphdr);	/* BTH through ICRC */

	opcode = bth_opcode(bth);
	if (opcode == VRNIC_OPCODE_CNP) {
		/* A few dozen bytes: simplest read in one piece. */
		if (skb_linearize(skb)) {
			reason = VRNIC_CNT_DROP_NO_MEMORY;
			goto drop;
		}
		return vrnic_rcv_cnp(vdev, skb, (void *)(udp_hdr(skb) + 1),
				     len, local);
	}
	info = &vrnic_opcode[opcode];
	if (!info->name)
		goto drop;
	hlen = info->length;
	pad = bth_pad(bth);
	if (bth_tver(bth) != VRNIC_BTH_TVER ||
	    len < hlen + pad + VRNIC_ICRC_BYTES)
		goto drop;
	/*
	 * Every header, and the 8 bytes an ATOMIC WRITE stores at once,
	 * in the linear area.  The pull may move it: find the BTH again.
	 */
	if (!vrnic_rcv_pull(skb, udp_off + sizeof(struct udphdr) +
			    min_t(u32, len, hlen + sizeof(u64)), &reason))
		goto drop;
	bth = (struct vrnic_bth *)(udp_hdr(skb) + 1);

	reason = VRNIC_CNT_ICRC_ERRORS;
	if (!local && !vrnic_icrc_ok(skb, (u8 *)bth, len - VRNIC_ICRC_BYTES))
		goto drop;

	/* From here on the headers are what the sender wrote. */
	reason = VRNIC_CNT_DROP_MALFORMED;
	len -= hlen + pad + VRNIC_ICRC_BYTES;	/* IB payload */
	if ((len && !(info->mask & VRNIC_M_PAYLOAD)) || len > SZ_4K ||
	    (pad && !(info->mask & VRNIC_M_PAYLOAD)))
		goto drop;

	reason = VRNIC_CNT_DROP_BAD_PKEY;
	if (!vrnic_pkey_ok(bth_pkey(bth)))
		goto drop;

	pkt = vrnic_pkt(skb);
	pkt->hdr = (u8 *)bth;
	pkt->mask = info->mask;
	pkt->psn = bth_psn(bth);
	pkt->paylen = len;
	pkt->payoff = (u8 *)bth + hlen - skb->data;
	pkt->opcode = opcode;
	pkt->family = ip_hdr(skb)->version == 4 ? AF_INET : AF_INET6;
	pkt->from_cpu = from_cpu;

	if (bth_qpn(bth) == IB_MULTICAST_QPN || vrnic_daddr_is_mcast(skb))
		return vrnic_rcv_mcast(vdev, skb);

	reason = VRNIC_CNT_DROP_UNKNOWN_QP;
	qp = vrnic_qp_get(vdev, bth_qpn(bth));
	if (!qp)
		goto drop;
	if (!vrnic_rcv_accepts(qp, skb, &reason))
		goto drop_qp;

	vrnic_counter_inc(vdev, VRNIC_CNT_RX_PACKETS);
	vrnic_counter_add(vdev, VRNIC_CNT_RX_BYTES, len);

	dsfield = vrnic_dsfield(skb);
	if (unlikely(INET_ECN_is_ce(dsfield)))
		vrnic_np_mark(qp, skb, dsfield, info->mask);

	if (info->mask & VRNIC_M_REQ)
		vrnic_resp_rcv(qp, skb);
	else
		vrnic_comp_rcv(qp, skb);
	vrnic_qp_put(qp);
	ib_device_put(&vdev->ibdev);
	return 0;

drop_qp:
	vrnic_qp_put(qp);
drop:
	vrnic_counter_inc(vdev, reason);
	ib_device_put(&vdev->ibdev);
	kfree_skb(skb);
	return 0;
}

/*
 * ACKs without a packet.  A plain ACK from a responder to a requester
 * on this host would be an skb built, queued for local delivery, parsed
 * by vrnic_rcv_dev() and freed, for 16 bytes of headers: with one message
 * per doorbell (a 64-byte message rate), the ACK's skb was about a tenth
 * of the doorbell's time (docs/performance.md, "One device").  The
 * responder gives such an ACK to the requester's completer directly
 * instead (resp.c, vrnic_resp_ack_hold()), after the same checks
 * vrnic_rcv_dev() applies to an ACK that arrived by local delivery.
 */

/**
 * vrnic_local_ack_peer - the requester a response of @qp reaches locally
 * @qp: an RC QP, the responder, @rq_lock held (its path)
 *
 * The QP, on the vrnic device owning the address @qp's path leads to,
 * that an ACK of @qp would be delivered to, if vrnic_rcv_dev() would
 * accept the ACK: an RC QP in a sending state whose path is the ACK's
 * addresses reversed.  The caller has checked that the path's route is
 * local delivery.
 *
 * Return: the QP with a reference on it and on its device, released by
 * vrnic_local_ack(); or NULL (the ACK goes as a packet, and is dropped
 * and counted by the receive path if it must be).
 */
struct vrnic_qp *vrnic_local_ack_peer(struct vrnic_qp *qp)
{
	u32 ack_mask = vrnic_opcode[VRNIC_OP_RC | VRNIC_ACK].mask;
	const struct vrnic_av *av = &qp->av;
	const void *saddr, *daddr;
	struct vrnic_qp *peer;
	struct vrnic_dev *to;
	int family;

	if (av->network_type == RDMA_NETWORK_IPV4) {
		family = AF_INET;
		saddr = &av->saddr.in4.sin_addr.s_addr;
		daddr = &av->daddr.in4.sin_addr.s_addr;
	} else {
		family = AF_INET6;
		saddr = &av->saddr.in6.sin6_addr;
		daddr = &av->daddr.in6.sin6_addr;
	}
	to = vrnic_dev_from_addr(dev_net(vrnic_qp_dev(qp)->ndev), family,
				 daddr);
	if (!to)
		return NULL;
	peer = vrnic_qp_get(to, qp->attr.dest_qp_num);
	if (!peer)
		goto err_put_dev;
	if (!vrnic_transport_ok(peer, VRNIC_OP_RC | VRNIC_ACK) ||
	    !vrnic_state_ok(peer, ack_mask) ||
	    !vrnic_addrs_ok(peer, family, saddr, daddr))
		goto err_put_qp;
	return peer;

err_put_qp:
	vrnic_qp_put(peer);
err_put_dev:
	ib_device_put(&to->ibdev);
	return NULL;
}

/**
 * vrnic_local_ack - give an ACK to a requester of this host, no packet
 * @peer: from vrnic_local_ack_peer(); its references are dropped
 * @syn: the AETH syndrome
 * @psn: the ACK's PSN
 * @msn: the AETH's MSN
 *
 * What vrnic_rcv_dev() does with the ACK's packet, from the headers on:
 * the same BTH and AETH bytes, counted alike, handed to the completer.
 * Softirq context or BHs enabled, no vrnic lock held.
 */
void vrnic_local_ack(struct vrnic_qp *peer, u8 syn, u32 psn, u32 msn)
{
	u8 op = VRNIC_OP_RC | VRNIC_ACK;
	const struct vrnic_opcode_info *info = &vrnic_opcode[op];
	struct vrnic_dev *to = vrnic_qp_dev(peer);
	u8 hdr[VRNIC_BTH_BYTES + VRNIC_AETH_BYTES];
	struct vrnic_pkt pkt = {
		.hdr = hdr,
		.mask = info->mask,
		.psn = psn,
		.opcode = op,
		.family = peer->av.network_type == RDMA_NETWORK_IPV4 ?
			  AF_INET : AF_INET6,
		.from_cpu = raw_smp_processor_id(),
	};

	bth_set((struct vrnic_bth *)hdr, op, false, 0, VRNIC_DEFAULT_PKEY,
		peer->ibqp.qp_num, false, psn);
	aeth_set((struct vrnic_aeth *)(hdr + info->off_aeth), syn, msn);
	vrnic_counter_inc(to, VRNIC_CNT_RX_PACKETS);
	vrnic_comp_rcv_ack(peer, &pkt);
	vrnic_local_ack_put(peer);
}

/* Drop vrnic_local_ack_peer()'s references: the ACK went as a packet. */
void vrnic_local_ack_put(struct vrnic_qp *peer)
{
	struct vrnic_dev *to = vrnic_qp_dev(peer);

	vrnic_qp_put(peer);
	ib_device_put(&to->ibdev);
}

/*
 * Call @fn for each contiguous run of @skb's payload (vrnic_rcv_dev() set
 * pkt->payoff and paylen): the linear area, then each fragment; @off is
 * the run's offset in the payload.  Stops at the first error.
 */
static int vrnic_pkt_walk(struct sk_buff *skb,
			  int (*fn)(void *ctx, const u8 *data, u32 off, u32 n),
			  void *ctx)
{
	struct vrnic_pkt *pkt = vrnic_pkt(skb);
	struct skb_seq_state st;
	unsigned int done = 0, n;
	const u8 *data;
	int err;

	if (pkt->payoff + pkt->paylen <= skb_headlen(skb))
		return fn(ctx, skb->data + pkt->payoff, 0, pkt->paylen);
	skb_prepare_seq_read(skb, pkt->payoff, pkt->payoff + pkt->paylen, &st);
	while ((n = skb_seq_read(done, &data, &st))) {
		/* The last run may reach past the payload (pad, ICRC). */
		n = min(n, pkt->paylen - done);
		err = fn(ctx, data, done, n);
		done += n;
		if (err || done == pkt->paylen) {
			skb_abort_seq_read(&st);
			return err;
		}
	}
	return 0;
}

struct vrnic_to_dma {
	struct vrnic_pd *pd;
	struct vrnic_dma *dma;
};

static int vrnic_run_to_dma(void *ctx, const u8 *data, u32 off, u32 n)
{
	struct vrnic_to_dma *to = ctx;

	/* VRNIC_TO_MR only reads the buffer. */
	return vrnic_dma_copy(to->pd, to->dma, (void *)data, n, VRNIC_TO_MR);
}

/**
 * vrnic_pkt_to_dma - scatter a received packet's payload into a WQE
 * @skb: the packet
 * @pd, @dma: as for vrnic_dma_copy(), VRNIC_TO_MR
 *
 * Return: 0 or vrnic_dma_copy()'s error.
 */
int vrnic_pkt_to_dma(struct sk_buff *skb, struct vrnic_pd *pd,
		     struct vrnic_dma *dma)
{
	struct vrnic_to_dma to = { .pd = pd, .dma = dma };

	return vrnic_pkt_walk(skb, vrnic_run_to_dma, &to);
}

struct vrnic_to_mr {
	struct vrnic_mr *mr;
	u64 iova;
};

static int vrnic_run_to_mr(void *ctx, const u8 *data, u32 off, u32 n)
{
	struct vrnic_to_mr *to = ctx;

	vrnic_mr_copy(to->mr, to->iova + off, (void *)data, n, VRNIC_TO_MR);
	return 0;
}

/**
 * vrnic_pkt_to_mr - place a received packet's payload at @iova in @mr
 * @skb: the packet
 * @mr, @iova: as for vrnic_mr_copy(), VRNIC_TO_MR, for paylen bytes
 */
void vrnic_pkt_to_mr(struct sk_buff *skb, struct vrnic_mr *mr, u64 iova)
{
	struct vrnic_to_mr to = { .mr = mr, .iova = iova };

	vrnic_pkt_walk(skb, vrnic_run_to_mr, &to);
}
