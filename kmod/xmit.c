// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: putting RoCEv2 packets on the wire.
 *
 * A packet is built as one skb: the engines write the transport headers
 * into its linear area and the payload either there (a copy) or, with
 * zero_copy, as fragments lent from the MR's pages (vrnic_mr_lend()),
 * followed by the pad and the ICRC's room.  This file pushes the UDP and
 * IP headers, computes the ICRC and hands the skb to the routing stack,
 * which resolves the neighbour and adds the Ethernet header.
 *
 * Why not udp_tunnel_xmit_skb(): the ICRC covers the IPv4 Identification
 * field, which iptunnel_xmit() only chooses after we would have needed
 * it.  So vrnic writes both IP headers itself (same fields, same ID
 * generator) and computes the ICRC over the header that really goes out.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/error-injection.h>
#include <linux/if_vlan.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/ip6_route.h>
#include <net/ip6_checksum.h>
#include <net/ipv6_stubs.h>
#include <net/udp.h>
#include <net/page_pool.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "vrnic.h"
#include "hdr.h"
#include "opcode.h"
#include "verbs.h"
#include "cc.h"

#define VRNIC_DEFAULT_TTL	64

/*
 * Zero-copy transmit: an RC payload of at least VRNIC_LEND_MIN bytes from
 * at most VRNIC_LEND_MAX_SGE SGEs is lent to the skb instead of copied
 * into it.  Smaller payloads copy: a page reference and a fragment cost
 * about what copying a few hundred bytes does.  Each SGE's part of a
 * payload (at most a page) spans at most two pages, hence two fragments
 * per SGE, and one more for the pad and ICRC.
 */
#define VRNIC_LEND_MIN		1024
#define VRNIC_LEND_MAX_SGE	((MAX_SKB_FRAGS - 1) / 2)

static bool zero_copy = true;
module_param(zero_copy, bool, 0644);
MODULE_PARM_DESC(zero_copy,
		 "send RC payloads of 1 KiB or more from the MR's pages instead of a copy, to local peers and over devices with scatter-gather (default: on)");

/**
 * vrnic_lend_ok - build a packet's payload with vrnic_mr_lend()?
 * @route: the QP's route (its @lend hint)
 * @payload: its bytes
 * @num_sge: SGEs of the WQE it comes from (0: inline data), or 1 for a
 *	READ response (one MR)
 */
bool vrnic_lend_ok(const struct vrnic_route *route, u32 payload,
		   u32 num_sge)
{
	BUILD_BUG_ON(SZ_4K > PAGE_SIZE);	/* the largest IB MTU in a page */
	return READ_ONCE(zero_copy) && READ_ONCE(route->lend) &&
	       payload >= VRNIC_LEND_MIN &&
	       num_sge && num_sge <= VRNIC_LEND_MAX_SGE;
}

/*
 * A READ response's payload is the responder's memory, which its owner
 * may store into at any time: the READ then returns some mix of old and
 * new bytes, but it completes (a NIC's DMA reads each byte once, and the
 * NIC computes the ICRC over what it read).  A lent payload is read
 * twice, by the ICRC here and later by the netdev or by the peer's
 * receiver, so a store in between makes the ICRC fail at the peer: the
 * response is dropped there, and memory written without pause is never
 * read (IBV_WC_RETRY_EXC_ERR; dp_security's
 * read_of_memory_written_meanwhile_completes).  The stack follows the
 * same rule: TCP sends pages uncopied only where the device checksums
 * them (tcp_sendpage()).  So READ responses are lent only to local
 * delivery, where no ICRC is computed and the receiver reads each byte
 * once.
 */
bool vrnic_lend_resp_ok(const struct vrnic_route *route, u32 payload)
{
	return READ_ONCE(route->local) && vrnic_lend_ok(route, payload, 1);
}

/*
 * A request's payload is lent to the wire when it is first sent: the
 * verbs have the application leave a send buffer alone until its WQE
 * completes, after the peer's ACK.  Not every sender does: an
 * application may send from memory it keeps updating, and nfsd sends
 * page-cache pages that a local writer may be changing, which a NIC
 * turns into some mix of old and new bytes.  Lent, such a packet fails
 * its ICRC at the peer, which drops it as lost.  So a packet sent again
 * (@resend: a go-back-N, a selective resend, a probe) is copied to the
 * wire: its ICRC matches what it carries, and the WQE completes.
 */
bool vrnic_lend_req_ok(const struct vrnic_route *route, u32 payload,
		       u32 num_sge, bool resend)
{
	return (!resend || READ_ONCE(route->local)) &&
	       vrnic_lend_ok(route, payload, num_sge);
}

/* Does @skb (BTH at skb->data) carry a lent READ response payload? */
static bool vrnic_skb_lends_resp(const struct sk_buff *skb)
{
	u8 opcode = ((const struct vrnic_bth *)skb->data)->opcode;

	return skb_shinfo(skb)->nr_frags &&
	       opcode >= (VRNIC_OP_RC | VRNIC_READ_RESP_FIRST) &&
	       opcode <= (VRNIC_OP_RC | VRNIC_READ_RESP_ONLY);
}

/*
 * RoCEv2 UDP source port: IBA A17.5.1.1 leaves it to the sender and asks
 * for per-flow entropy.  Derive it from the (symmetric) QP pair hash the
 * way ib_core suggests, so both directions of a connection hash alike.
 */
u16 vrnic_sport(u32 flow_label, u32 src_qpn, u32 dst_qpn)
{
	return rdma_get_udp_sport(flow_label, src_qpn, dst_qpn);
}

/*
 * Packet heads larger than the core's own limit for a kmalloc'ed receive
 * head (__netdev_alloc_skb()) are carved from page fragments instead of
 * a slab object of the next power of two (a 1 KiB payload's head would
 * take a 2 KiB kmalloc object, which init_on_alloc, on by default in
 * Debian, zeroes whole).  Only payload packets built linear are that
 * large: where vrnic_lend_ok() declines (a device without scatter-gather,
 * UD and UC, payloads under VRNIC_LEND_MIN, many SGEs).
 *
 * The fragments come from a page pool per CPU, whose pages come back to
 * it when the last packet carved from them is freed (skb_mark_for_recycle())
 * and are handed out again without passing the page allocator, so without
 * being zeroed again.  The core's per-CPU fragment cache (netdev_alloc_frag(),
 * the fallback) reuses its 32 KiB page only if every fragment of it has
 * been freed by the time it is used up, and the packet carved last is
 * nearly always still in the device's queue then: a stream of packets
 * took and zeroed a fresh page for every 32 KiB it sent.
 *
 * A pool keeps at most VRNIC_TX_POOL_PAGES pages in its ring when they
 * come back, its allocation cache and the page it carves from: with
 * order-1 pages (room for one packet of IB MTU 4096, or five of 1024)
 * about 1 MiB per CPU that sent such packets, until the module unloads.
 */
#define VRNIC_FRAG_HEAD_MIN	1024
#define VRNIC_FRAG_HEAD_MAX	PAGE_FRAG_CACHE_MAX_SIZE
#define VRNIC_TX_POOL_ORDER	1
#define VRNIC_TX_POOL_PAGES	64

static DEFINE_PER_CPU(struct page_pool *, vrnic_tx_pool);

/*
 * A page pool's allocation side has no lock: one consumer at a time, here
 * its CPU with bottom halves off.  Hard interrupt context (none of the
 * senders of large packets) uses the core's cache.
 */
static struct sk_buff *vrnic_pool_skb_alloc(unsigned int truesize)
{
	struct page_pool *pool;
	struct sk_buff *skb;
	unsigned int off;
	struct page *page;

	if (truesize > PAGE_SIZE << VRNIC_TX_POOL_ORDER ||
	    in_hardirq() || irqs_disabled())
		return NULL;
	local_bh_disable();
	pool = this_cpu_read(vrnic_tx_pool);
	page = page_pool_alloc_frag(pool, &off, truesize, GFP_ATOMIC);
	local_bh_enable();
	if (!page)
		return NULL;
	skb = build_skb(page_address(page) + off, truesize);
	if (unlikely(!skb)) {
		page_pool_put_full_page(pool, page, false);
		return NULL;
	}
	skb_mark_for_recycle(skb);
	return skb;
}

static struct sk_buff *vrnic_frag_skb_alloc(unsigned int size)
{
	unsigned int truesize = SKB_DATA_ALIGN(size) +
				SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	struct sk_buff *skb;
	void *data;

	if (truesize <= VRNIC_FRAG_HEAD_MIN || truesize > VRNIC_FRAG_HEAD_MAX)
		return NULL;
	skb = vrnic_pool_skb_alloc(truesize);
	if (skb)
		return skb;
	/* NULL also when the cache fell back to a single page. */
	data = netdev_alloc_frag(truesize);
	if (!data)
		return NULL;
	skb = build_skb(data, truesize);
	if (unlikely(!skb))
		skb_free_frag(data);
	return skb;
}

/* Undo vrnic_tx_pools_init(); packets still out return their pages later. */
void vrnic_tx_pools_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		page_pool_destroy(per_cpu(vrnic_tx_pool, cpu));
		per_cpu(vrnic_tx_pool, cpu) = NULL;
	}
}

int vrnic_tx_pools_init(void)
{
	struct page_pool_params pp = {
		.flags = PP_FLAG_PAGE_FRAG,
		.order = VRNIC_TX_POOL_ORDER,
		.pool_size = VRNIC_TX_POOL_PAGES,
	};
	struct page_pool *pool;
	int cpu;

	for_each_possible_cpu(cpu) {
		pp.nid = cpu_to_node(cpu);
		pool = page_pool_create(&pp);
		if (IS_ERR(pool)) {
			vrnic_tx_pools_exit();
			return PTR_ERR(pool);
		}
		per_cpu(vrnic_tx_pool, cpu) = pool;
	}
	return 0;
}

/**
 * vrnic_skb_alloc - a linear skb for one RoCEv2 packet
 * @vdev: sending device
 * @len: bytes from the BTH through the ICRC
 *
 * Every packet vrnic sends is allocated here, so it is an error-injection
 * point: failing it (debugfs fail_function, CONFIG_FAIL_FUNCTION) tests
 * every sender's path without memory, as selftests/fault_inject.c does.
 *
 * Return: an skb whose data area holds @len bytes (not initialised)
 * starting at the BTH, with headroom for IPv6, UDP and the link layer;
 * or NULL.
 */
struct sk_buff *vrnic_skb_alloc(struct vrnic_dev *vdev, u32 len)
{
	/* Room for a VLAN tag too: see vrnic_av.ifindex. */
	unsigned int head = LL_RESERVED_SPACE(vdev->ndev) + VLAN_HLEN +
			    sizeof(struct ipv6hdr) + sizeof(struct udphdr);
	unsigned int size = head + len + vdev->ndev->needed_tailroom;
	struct sk_buff *skb;

	skb = vrnic_frag_skb_alloc(size);
	if (!skb)
		skb = alloc_skb(size, GFP_ATOMIC);
	if (unlikely(!skb))
		return NULL;
	skb_reserve(skb, head);
	skb_put(skb, len);
	return skb;
}

ALLOW_ERROR_INJECTION(vrnic_skb_alloc, NULL);

static struct dst_entry *vrnic_route4(struct vrnic_dev *vdev,
				      const struct vrnic_av *av,
				      struct dst_cache *cache)
{
	struct flowi4 fl4 = {
		.flowi4_oif = av->ifindex ?: vdev->ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.flowi4_tos = RT_TOS(av->traffic_class),
		.daddr = av->daddr.in4.sin_addr.s_addr,
		.saddr = av->saddr.in4.sin_addr.s_addr,
	};
	struct rtable *rt;
	__be32 saddr;

	if (cache) {
		rt = dst_cache_get_ip4(cache, &saddr);
		if (rt && saddr == av->saddr.in4.sin_addr.s_addr)
			return &rt->dst;
		if (rt)
			ip_rt_put(rt);
	}
	rt = ip_route_output_key(dev_net(vdev->ndev), &fl4);
	if (IS_ERR(rt))
		return NULL;
	if (cache)
		dst_cache_set_ip4(cache, &rt->dst, fl4.saddr);
	return &rt->dst;
}

static struct dst_entry *vrnic_route6(struct vrnic_dev *vdev,
				      const struct vrnic_av *av,
				      struct dst_cache *cache)
{
	struct flowi6 fl6 = {
		.flowi6_oif = av->ifindex ?: vdev->ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.daddr = av->daddr.in6.sin6_addr,
		.saddr = av->saddr.in6.sin6_addr,
	};
	struct dst_entry *dst;
	struct in6_addr saddr;

	if (cache) {
		dst = dst_cache_get_ip6(cache, &saddr);
		if (dst && ipv6_addr_equal(&saddr, &av->saddr.in6.sin6_addr))
			return dst;
		dst_release(dst);
	}
	dst = ipv6_stub->ipv6_dst_lookup_flow(dev_net(vdev->ndev), NULL,
					      &fl6, NULL);
	if (IS_ERR(dst))
		return NULL;
	if (cache)
		dst_cache_set_ip6(cache, dst, &fl6.saddr);
	return dst;
}

/* The route of @av's path, with a reference: vrnic_route4() or 6(). */
static struct dst_entry *vrnic_route(struct vrnic_dev *vdev,
				     const struct vrnic_av *av,
				     struct dst_cache *cache)
{
	if (av->network_type == RDMA_NETWORK_IPV4)
		return vrnic_route4(vdev, av, cache);
	return vrnic_route6(vdev, av, cache);
}

static void vrnic_push_udp(struct sk_buff *skb, u16 sport)
{
	struct udphdr *udph;

	__skb_push(skb, sizeof(*udph));
	skb_reset_transport_header(skb);
	udph = udp_hdr(skb);
	udph->source = htons(sport);
	udph->dest = htons(VRNIC_UDP_PORT);
	udph->len = htons(skb->len);
	udph->check = 0;
}

/*
 * The ICRC is the packet's last 4 bytes: in the linear area, or in the
 * fragment vrnic_skb_add_tail() added after lent payload pages.
 */
static void vrnic_finish_icrc(struct sk_buff *skb)
{
	u8 *bth = skb_transport_header(skb) + sizeof(struct udphdr);
	u32 off = bth - skb->data;
	u32 len = skb->len - off - VRNIC_ICRC_BYTES;
	__le32 icrc = cpu_to_le32(vrnic_icrc_compute(skb, bth, len));

	skb_store_bits(skb, off + len, &icrc, sizeof(icrc));
}

/*
 * Local delivery.  A packet for an address of this host would go down
 * the IP stack to the loopback device, through its per-CPU backlog and
 * up the stack again, only to come back to vrnic_rcv().  Instead it goes
 * straight to a per-CPU FIFO drained by a per-CPU tasklet: no routing,
 * netfilter or ICRC work for bytes that never leave memory.  The headers
 * are complete, as on the wire, except for the ICRC.
 *
 * Which CPU's FIFO: the sender's own, unless it names another (@rx_cpu
 * of vrnic_xmit()).  The receiving side of a transfer (the responder
 * placing payloads, the completer of READ responses) then runs beside
 * the sending side instead of after it on the same CPU, as a NIC's
 * receive engine would, and as RPS spreads a socket's receive work; the
 * kick to the other CPU is an IPI that schedules its tasklet, sent only
 * when no run of it is due (see "Kicks" below).  Who names a CPU, and
 * why a QP's packets still arrive in order: vrnic_req_packet() (the
 * requester's @rx_cpu) and vrnic_resp_rcv() (the responder's
 * @reply_cpu).  Without a named CPU: a QP sends from one CPU while it
 * has packets in flight (vrnic_req_cpu_ok()), so its packets stay in
 * order.
 *
 * Locking: a FIFO's queue lock, taken with BHs disabled: the engines
 * send under their BH-safe locks and the tasklet runs in softirq, and
 * no hard interrupt touches a FIFO, so the lock need not disable
 * interrupts as skb_queue_tail() does, twice per packet.  Two CPUs
 * contend for it when one sends to the other, and when a CPU going
 * offline hands its scheduled tasklet to another CPU.
 */
#define VRNIC_LOOP_QLEN		4096	/* beyond: dropped, RC resends */
#define VRNIC_LOOP_BUDGET	64	/* packets per tasklet run */

struct vrnic_loop {
	struct sk_buff_head queue;
	struct tasklet_struct task;
	/* The IPI that schedules @task on the FIFO's CPU. */
	call_single_data_t kick;
	unsigned long state;	/* VRNIC_LOOP_* bits */
};

/*
 * Kicks.  A sender on another CPU kicks the FIFO's CPU only if no run of
 * its tasklet is already due: while it drains the FIFO, packets queued
 * behind cost no IPI.  @ACTIVE: a run will see what is queued now (set
 * by the sender that kicks, cleared by the run that leaves the FIFO
 * empty).  @IPI: @kick sent and its handler not finished, so @kick may
 * not be sent again (and module exit waits for it).
 */
enum {
	VRNIC_LOOP_ACTIVE,
	VRNIC_LOOP_IPI,
};

static DEFINE_PER_CPU(struct vrnic_loop, vrnic_loops);

static bool loop_spread = true;
module_param(loop_spread, bool, 0644);
MODULE_PARM_DESC(loop_spread,
		 "receive a pipelining RC QP's packets to this host on another CPU than the sender's (default: on)");

/* skb->cb of a queued packet. */
struct vrnic_loop_cb {
	struct vrnic_dev *to;	/* the receiving device (a reference) */
	int from_cpu;		/* the sending CPU */
};

static struct vrnic_loop_cb *vrnic_loop_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct vrnic_loop_cb) > sizeof(skb->cb));
	return (struct vrnic_loop_cb *)skb->cb;
}

static bool vrnic_dst_is_local(const struct dst_entry *dst)
{
	return dst->dev->flags & IFF_LOOPBACK;
}

/* Can a packet on @dst carry its payload as page fragments? */
static bool vrnic_dst_lends(const struct dst_entry *dst)
{
	return vrnic_dst_is_local(dst) || (dst->dev->features & NETIF_F_SG);
}

/* The IPI's handler, on the FIFO's CPU. */
static void vrnic_loop_kicked(void *data)
{
	struct vrnic_loop *loop = data;

	tasklet_schedule(&loop->task);
	/* The run it schedules starts after this handler returns. */
	smp_mb__before_atomic();
	clear_bit(VRNIC_LOOP_IPI, &loop->state);
}

/*
 * Have @loop's tasklet run on @cpu, its CPU, from another one, for a
 * packet just queued.  Pairs with the barrier in vrnic_loop_run().
 */
static void vrnic_loop_kick(struct vrnic_loop *loop, int cpu)
{
	if (test_and_set_bit(VRNIC_LOOP_ACTIVE, &loop->state))
		return;
	/* A kick still on its way schedules a run after it, as we would. */
	if (test_and_set_bit(VRNIC_LOOP_IPI, &loop->state))
		return;
	if (smp_call_function_single_async(cpu, &loop->kick)) {
		/* @cpu went offline: drain its FIFO here. */
		clear_bit(VRNIC_LOOP_IPI, &loop->state);
		tasklet_schedule(&loop->task);
	}
}

/**
 * vrnic_loop_pick_cpu - where should a QP's packets to this host be received?
 * @pipelined: the QP's consumer has more than one request outstanding
 *
 * Called with BHs disabled, where a QP may change its choice (it has
 * nothing in flight).  A consumer waiting for each request before the
 * next (a latency test, a ping-pong) is answered sooner without the IPI.
 *
 * Return: another active CPU, or -1 for the sending CPU.
 */
int vrnic_loop_pick_cpu(bool pipelined)
{
	if (!pipelined || !READ_ONCE(loop_spread))
		return -1;
	return vrnic_next_cpu();
}

/**
 * vrnic_next_cpu - the active CPU after this one, in a ring
 *
 * Called with preemption disabled.  Not a CPU going offline (one no
 * longer active, from the first step of its teardown).
 *
 * Return: that CPU, or -1 when this is the only active one.
 */
int vrnic_next_cpu(void)
{
	int self = smp_processor_id();
	int cpu;

	cpu = cpumask_next(self, cpu_active_mask);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_active_mask);
	return cpu == self || cpu >= nr_cpu_ids ? -1 : cpu;
}

/* Called with BHs disabled or in softirq context (under @sq_lock/@rq_lock). */
static int vrnic_loop_xmit(struct sk_buff *skb, int rx_cpu)
{
	int self = smp_processor_id();
	struct vrnic_loop *loop;
	struct vrnic_dev *to;

	to = vrnic_dev_from_daddr(skb);	/* takes a device reference */
	skb_dst_drop(skb);
	if (!to) {
		kfree_skb(skb);
		return -EHOSTUNREACH;
	}
	lockdep_assert_in_softirq();
	/*
	 * Not to a CPU going offline (no longer active, from the first
	 * step of its teardown): once its ksoftirqd is parked, a tasklet
	 * run put off to it waits for the CPU's next interrupt, or for the
	 * tasklet core to hand the tasklet over after the CPU died, and
	 * resends queued behind would wait with it.  Resends that overtake
	 * a packet still queued there make that one a duplicate.
	 */
	if (rx_cpu < 0 || !cpu_active(rx_cpu))
		rx_cpu = self;
	loop = per_cpu_ptr(&vrnic_loops, rx_cpu);
	if (skb_queue_len_lockless(&loop->queue) >= VRNIC_LOOP_QLEN) {
		ib_device_put(&to->ibdev);
		kfree_skb(skb);
		return -ENOBUFS;
	}
	skb->dev = to->ndev;
	skb->pkt_type = PACKET_HOST;
	vrnic_loop_cb(skb)->to = to;
	vrnic_loop_cb(skb)->from_cpu = self;
	spin_lock(&loop->queue.lock);
	__skb_queue_tail(&loop->queue, skb);
	spin_unlock(&loop->queue.lock);
	if (rx_cpu == self)
		tasklet_schedule(&loop->task);
	else
		vrnic_loop_kick(loop, rx_cpu);
	return 0;
}

static void vrnic_loop_run(struct tasklet_struct *t)
{
	struct vrnic_loop *loop = from_tasklet(loop, t, task);
	int budget = VRNIC_LOOP_BUDGET;
	struct vrnic_loop_cb *cb;
	struct sk_buff *skb;

	while (budget--) {
		spin_lock(&loop->queue.lock);
		skb = __skb_dequeue(&loop->queue);
		spin_unlock(&loop->queue.lock);
		if (!skb)
			break;
		cb = vrnic_loop_cb(skb);
		/* Drops the reference taken by vrnic_loop_xmit(). */
		vrnic_rcv_dev(cb->to, skb, cb->from_cpu);
	}
	if (!skb_queue_empty_lockless(&loop->queue)) {
		tasklet_schedule(t);
		return;
	}
	/*
	 * Empty: a sender must kick again.  One that found @ACTIVE still
	 * set queued its packet before this clear, so the test after it
	 * sees the packet, and whoever sets the bit again schedules a run.
	 */
	clear_bit(VRNIC_LOOP_ACTIVE, &loop->state);
	/* Clear before the test; pairs with vrnic_loop_kick()'s set. */
	smp_mb__after_atomic();
	if (!skb_queue_empty_lockless(&loop->queue) &&
	    !test_and_set_bit(VRNIC_LOOP_ACTIVE, &loop->state))
		tasklet_schedule(t);
}

void vrnic_loop_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct vrnic_loop *loop = per_cpu_ptr(&vrnic_loops, cpu);

		skb_queue_head_init(&loop->queue);
		tasklet_setup(&loop->task, vrnic_loop_run);
		INIT_CSD(&loop->kick, vrnic_loop_kicked, loop);
	}
}

/*
 * Module exit, after every device is gone: each queued packet held a
 * reference on its device and ib_core waited for all of them, so the
 * queues are empty.  A kick's handler may still be on its way or
 * running: its bit clears at its end, and synchronize_rcu() waits for it
 * to return (it runs with interrupts off).
 */
void vrnic_loop_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct vrnic_loop *loop = per_cpu_ptr(&vrnic_loops, cpu);

		while (test_bit(VRNIC_LOOP_IPI, &loop->state))
			cpu_relax();
	}
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		struct vrnic_loop *loop = per_cpu_ptr(&vrnic_loops, cpu);

		tasklet_kill(&loop->task);
		WARN_ON_ONCE(!skb_queue_empty(&loop->queue));
		__skb_queue_purge(&loop->queue);
	}
}

/**
 * vrnic_route_local_idle - would a packet on @route go by local delivery,
 * behind nothing?
 * @vdev: sending device
 * @av: the path
 * @route: the QP's route cache
 * @rx_cpu: the CPU a packet would be received on (vrnic_xmit())
 *
 * For an ACK given without a packet (resp.c): true if the route leads to
 * this host, the packet would be received on this CPU and nothing waits
 * in this CPU's local-delivery FIFO, so that no packet sent before it
 * would arrive after it.  Called with BHs disabled or in softirq context.
 */
bool vrnic_route_local_idle(struct vrnic_dev *vdev, const struct vrnic_av *av,
			    struct vrnic_route *route, int rx_cpu)
{
	struct dst_entry *dst;
	bool local;

	lockdep_assert_in_softirq();
	if (rx_cpu >= 0 && rx_cpu != smp_processor_id())
		return false;
	if (!skb_queue_empty_lockless(&this_cpu_ptr(&vrnic_loops)->queue))
		return false;
	dst = vrnic_route(vdev, av, &route->dst_cache);
	if (!dst)
		return false;
	local = vrnic_dst_is_local(dst);
	dst_release(dst);
	return local;
}

static int vrnic_xmit4(struct vrnic_dev *vdev, const struct vrnic_av *av,
		       struct dst_entry *dst, struct sk_buff *skb, u8 dsfield,
		       int rx_cpu)
{
	struct net *net = dev_net(vdev->ndev);
	struct iphdr *iph;

	skb->protocol = htons(ETH_P_IP);
	skb->ip_summed = CHECKSUM_NONE;	/* RoCEv2 sends UDP checksum 0 */
	skb_dst_set(skb, dst);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));

	__skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = dsfield;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit ?: VRNIC_DEFAULT_TTL;
	iph->protocol = IPPROTO_UDP;
	iph->check = 0;
	iph->saddr = av->saddr.in4.sin_addr.s_addr;
	iph->daddr = av->daddr.in4.sin_addr.s_addr;
	__ip_select_ident(net, iph, 1);

	if (vrnic_dst_is_local(dst)) {
		ip_send_check(iph);	/* UD receivers see this header */
		return vrnic_loop_xmit(skb, rx_cpu);
	}
	vrnic_finish_icrc(skb);
	return ip_local_out(net, vrnic_udp_sock4(vdev)->sk, skb);
}

static int vrnic_xmit6(struct vrnic_dev *vdev, const struct vrnic_av *av,
		       struct dst_entry *dst, struct sk_buff *skb, u8 dsfield,
		       int rx_cpu)
{
	struct net *net = dev_net(vdev->ndev);
	struct ipv6hdr *ip6h;
	int udp_len = skb->len;
	struct sock *sk;

	skb->protocol = htons(ETH_P_IPV6);
	skb->ip_summed = CHECKSUM_NONE;
	skb_dst_set(skb, dst);
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));

	__skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, dsfield, htonl(av->flow_label));
	ip6h->payload_len = htons(udp_len);
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit ?: VRNIC_DEFAULT_TTL;
	ip6h->saddr = av->saddr.in6.sin6_addr;
	ip6h->daddr = av->daddr.in6.sin6_addr;

	if (vrnic_dst_is_local(dst))
		return vrnic_loop_xmit(skb, rx_cpu);

	/* ICRC first: the UDP checksum covers it (RFC 8200 wants one). */
	vrnic_finish_icrc(skb);
	udp6_set_csum(false, skb, &ip6h->saddr, &ip6h->daddr, udp_len);

	sk = vrnic_udp_sock6(vdev) ? vrnic_udp_sock6(vdev)->sk : NULL;
	return ip6_local_out(net, sk, skb);
}

/**
 * vrnic_xmit - send one RoCEv2 packet
 * @vdev: sending device
 * @av: source and destination addresses, TTL, traffic class and SL
 * @route: the QP's route cache, or NULL to look the route up
 * @sport: UDP source port
 * @rx_cpu: if the packet goes to this host, the CPU to receive it on
 *	(vrnic_loop_pick_cpu()), or -1 for this one
 * @skb: from vrnic_skb_alloc(), transport headers and payload filled in;
 *	consumed in every case
 *
 * May be called in process or softirq context.  The DSCP, ECN field and
 * skb->priority come from the device's QoS settings (vrnic_tx_qos()).
 * Bumps the port TX counters; the caller accounts its per-QP counters.
 *
 * Return: 0 or a negative errno (no route, device queue full).
 */
int vrnic_xmit(struct vrnic_dev *vdev, const struct vrnic_av *av,
	       struct vrnic_route *route, u16 sport, int rx_cpu,
	       struct sk_buff *skb)
{
	struct dst_cache *cache = route ? &route->dst_cache : NULL;
	unsigned int len = skb->len;
	struct dst_entry *dst;
	bool lend, local;
	u8 dsfield;
	u32 prio;
	int err;

	vrnic_tx_qos(vdev, av, ((struct vrnic_bth *)skb->data)->opcode,
		     &dsfield, &prio);
	skb->priority = prio;

	dst = vrnic_route(vdev, av, cache);
	if (unlikely(!dst)) {
		kfree_skb(skb);
		err = -EHOSTUNREACH;
		goto err_count;
	}
	skb->dev = dst->dev;
	local = vrnic_dst_is_local(dst);
	if (route) {
		/* For the QP's next packets: see struct vrnic_route. */
		lend = vrnic_dst_lends(dst);
		if (READ_ONCE(route->lend) != lend)
			WRITE_ONCE(route->lend, lend);
		if (READ_ONCE(route->local) != local)
			WRITE_ONCE(route->local, local);
	}
	/* Built on a stale @route->local: see vrnic_lend_resp_ok(). */
	if (unlikely(!local && vrnic_skb_lends_resp(skb)) &&
	    skb_linearize(skb)) {
		dst_release(dst);
		kfree_skb(skb);
		err = -ENOMEM;
		goto err_count;
	}
	vrnic_push_udp(skb, sport);

	if (av->network_type == RDMA_NETWORK_IPV4)
		err = vrnic_xmit4(vdev, av, dst, skb, dsfield, rx_cpu);
	else
		err = vrnic_xmit6(vdev, av, dst, skb, dsfield, rx_cpu);
	err = net_xmit_eval(err);
	if (unlikely(err))
		goto err_count;

	vrnic_counter_inc(vdev, VRNIC_CNT_TX_PACKETS);
	vrnic_counter_add(vdev, VRNIC_CNT_TX_BYTES, len);
	return 0;

err_count:
	vrnic_counter_inc(vdev, VRNIC_CNT_TX_ERRORS);
	return err < 0 ? err : -ENOBUFS;
}
