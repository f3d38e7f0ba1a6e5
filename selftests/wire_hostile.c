// SPDX-License-Identifier: GPL-2.0
/*
 * wire_hostile - what an unprivileged user with an ordinary UDP socket can
 * do to a vrnic device, on this host or on the other end of its link.
 *
 * Every sender here is a child process running as nobody (no
 * capabilities) with a plain SOCK_DGRAM socket: it binds a known source
 * port, leaves the socket unconnected and sets DF, so the kernel sends
 * IP ID 0 and the sender knows every byte the ICRC covers.  QPNs and
 * PSNs are not secrets ("rdma res show qp"), so the test hands them over.
 *
 *  - local_socket_cannot_inject: a datagram from a local socket to the
 *    device's address reaches the RoCE socket through lo.  vrnic's own
 *    traffic to local addresses never takes that path (xmit.c delivers
 *    it directly), so such a datagram is dropped (drop_bad_address), for
 *    an RC QP whose peer is on this host (the source address matches the
 *    peer's) and for a UD QP alike; the real loopback connection still
 *    works afterwards.
 *  - foreign_source_cannot_inject: a host that is not the QP's peer sends
 *    an RC SEND with the right QPN, PSN and P_Key: dropped
 *    (drop_bad_address), not delivered.
 *  - ud_too_long_keeps_the_wqe: a UD message longer than the posted
 *    buffer is dropped and leaves the receive WQE for the next message.
 *  - gsi_flood_leaves_rdma_cm_working: 1024 oversized UD packets to QP1
 *    (more than ib_mad's 512 receive buffers) are dropped as not being
 *    MADs (drop_malformed), and an rdma_cm connection (rping) to the
 *    device works afterwards.
 *  - held_packets_have_a_device_budget: 300 RC QPs whose peer address the
 *    sender owns each get 64 out-of-order 4 KiB requests, which the
 *    responders would all hold (~160 MiB of truesize, 600 MiB of slab
 *    under slub_debug): fewer than half of the 19200 skbs may stay
 *    alive (the device's 32 MiB budget holds about 3900), and the
 *    packets beyond the budget are counted (drop_held_budget).
 *  - read_replays_hold_off_the_timeout: a peer (the sender, as nobody)
 *    answers a READ with responses past a gap for several ACK timeouts,
 *    as rdma_rxe does while it streams replays it queued for duplicate
 *    requests: the QP (retry_cnt 2) keeps waiting and completes the READ
 *    when the whole response comes; once the peer falls silent, the
 *    timeout still ends the next READ with a retry error.
 *  - multicast_takes_only_group_sends: from the other end of the link,
 *    UD SENDs to a multicast group a UD QP is attached to: only the one
 *    with destination QP 0xFFFFFF and the QP's Q_Key is delivered; a
 *    wrong Q_Key (drop_bad_qkey), an RC SEND to the group
 *    (drop_malformed), the QP's own number to the group or 0xFFFFFF to
 *    the device's unicast address (drop_bad_address), and a group no QP
 *    attached to (drop_unknown_qp) are counted drops.
 *  - random_loss_keeps_the_window_under_ecn: a peer NAKs one lost
 *    packet of a WRITE (a selective resend repairs it).  On an
 *    ECN-capable priority with no mark, the send window stays whole (a
 *    random loss, docs/cc.md); after a CNP, and with ECN off, it halves.
 *  - lost_sequence_nak_is_sent_again: a peer sends a 4-packet SEND with
 *    the second packet missing and AckReq on the last: the responder
 *    NAKs the gap (PSN sequence error).  The peer acts as if that NAK
 *    was lost and resends the last packet, then the first: each gets
 *    the NAK again (the responder sends one NAK per gap, but a resend
 *    that asks for an ACK shows the first did not arrive).  The missing
 *    packet then completes the receive with one ACK of all four.
 *  - refused_ack_is_sent_again: while the device's egress qdisc drops
 *    every packet (pfifo limit 0), a peer sends a 4-packet SEND asking
 *    for an ACK on the last; once a refusal is counted (tx_errors) the
 *    qdisc takes packets again, and the ACK must come by itself.
 *
 * Environment: none; the test builds its own veth pair, namespace and
 * devices (lib/dp_verbs.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <net/if.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/fifo.h>
#include <netlink/route/tc.h>
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "vrnic_harness.h"

#define DP_PORT		1
#include "lib/dp_verbs.h"
#include "lib/wire_pkt.h"

#define WH_SPORT	40000
#define WH_QKEY		0x11111111
#define WH_RQ_PSN	0x100
#define WH_BUF		65536
#define WH_FLOOD_QPS	300
#define WH_OOO_PKTS	64	/* resp.c holds up to this many per QP */

FIXTURE(wire_hostile) {
	struct dp_dev d;
	const char *ns;
	struct in_addr addr;	/* the device's */
	struct in_addr peer;	/* the other end of the veth */
	struct ibv_mr *mr;
	uint8_t *buf;
	struct dp_qp rc[2];	/* rc[0] -> rc[1], both on the device */
};

FIXTURE_SETUP(wire_hostile)
{
	const char *dev = getenv("DP_DEV"), *peer = getenv("DP_NS_ADDR4");
	int ret;

	self->ns = getenv("DP_NS");
	ASSERT_NE(NULL, dev) TH_LOG("self-setup failed");
	ASSERT_NE(NULL, self->ns);
	ASSERT_NE(NULL, peer);
	ASSERT_EQ(1, inet_pton(AF_INET, peer, &self->peer));
	ret = dp_dev_open(&self->d, dev, AF_INET);
	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", dev, strerror(-ret));
	memcpy(&self->addr, self->d.gid.raw + 12, 4);
	self->buf = calloc(1, WH_BUF);
	ASSERT_NE(NULL, self->buf);
	self->mr = ibv_reg_mr(self->d.pd, self->buf, WH_BUF,
			      IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, self->mr);
}

FIXTURE_TEARDOWN(wire_hostile)
{
	dp_qp_destroy(&self->rc[0]);
	dp_qp_destroy(&self->rc[1]);
	if (self->mr)
		ibv_dereg_mr(self->mr);
	free(self->buf);
	dp_dev_close(&self->d);
}

/* ---- the unprivileged sender ---- */

struct wh_send {
	struct in_addr src, dst;
	uint8_t opcode;
	const uint32_t *qpns;
	int nqp;
	uint32_t psn;		/* first PSN; each QP gets @npkt from there */
	int npkt;
	uint32_t qkey;		/* UD */
	size_t paylen;		/* a multiple of 4 (no pad) */
};

/* Runs as nobody: 0, or which step failed. */
static int wh_send_fn(void *arg)
{
	const struct wh_send *s = arg;
	struct wp_pkt *p = malloc(sizeof(*p));
	int fd, q, i;

	fd = wp_udp_socket(s->src, WH_SPORT);
	if (fd < 0 || !p)
		return 1;
	/* To a group: out of the interface of @src, no route needed. */
	if (IN_MULTICAST(ntohl(s->dst.s_addr)) &&
	    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &s->src,
		       sizeof(s->src)))
		return 3;
	for (q = 0; q < s->nqp; q++) {
		for (i = 0; i < s->npkt; i++) {
			wp_bth(p, s->opcode, WP_PKEY, s->qpns[q],
			       (s->psn + i) & 0xffffff);
			if ((s->opcode & 0xe0) == 0x60)
				wp_deth(p, s->qkey, 0x77);
			wp_fill(p, s->paylen);
			if (wp_send_udp(fd, s->src, WH_SPORT, s->dst, p))
				return 2;
		}
	}
	close(fd);
	free(p);
	return 0;
}

/* Send as nobody from namespace @ns (NULL: this one); 0 on success. */
static int wh_send(const char *ns, struct wh_send *s)
{
	return wp_run_unprivileged(ns, wh_send_fn, s);
}

/* ---- QPs ---- */

static int wh_post_recv(struct ibv_qp *qp, uint64_t wr_id, void *addr,
			uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* No completion on @cq for @ms milliseconds. */
static bool wh_cq_quiet(struct ibv_cq *cq, int ms)
{
	struct ibv_wc wc;

	return dp_poll(cq, &wc, ms) == -ETIMEDOUT;
}

/* rc[0] -> rc[1] on the device, a receive posted on rc[1]. */
static void wh_rc_pair(struct __test_metadata *_metadata,
		       FIXTURE_DATA(wire_hostile) *self)
{
	ASSERT_EQ(0, dp_qp_create(&self->rc[0], &self->d, 1, 0));
	ASSERT_EQ(0, dp_qp_create(&self->rc[1], &self->d, 1, 0));
	ASSERT_EQ(0, dp_qp_connect(&self->rc[0], &self->rc[1], IBV_MTU_1024,
				   WH_RQ_PSN, WH_RQ_PSN));
	ASSERT_EQ(0, dp_qp_connect(&self->rc[1], &self->rc[0], IBV_MTU_1024,
				   WH_RQ_PSN, WH_RQ_PSN));
	ASSERT_EQ(0, wh_post_recv(self->rc[1].qp, 1, self->buf, 4096,
				  self->mr->lkey));
}

/* The real peer's SEND still arrives, intact, as the first message. */
static void wh_rc_pair_works(struct __test_metadata *_metadata,
			     FIXTURE_DATA(wire_hostile) *self)
{
	static const char msg[] = "from the real peer";
	struct ibv_sge sge = {
		.addr = (uintptr_t)(self->buf + 8192),
		.length = sizeof(msg),
		.lkey = self->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 2, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	memcpy(self->buf + 8192, msg, sizeof(msg));
	ASSERT_EQ(0, ibv_post_send(self->rc[0].qp, &wr, &bad));
	ASSERT_EQ(0, dp_poll(self->rc[0].cq, &wc, 10000));
	EXPECT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	ASSERT_EQ(0, dp_poll(self->rc[1].cq, &wc, 10000));
	EXPECT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	EXPECT_EQ(1u, wc.wr_id);
	EXPECT_EQ(sizeof(msg), wc.byte_len);
	EXPECT_EQ(0, memcmp(self->buf, msg, sizeof(msg)));
}

/* Create a UD QP (Q_Key WH_QKEY) in RTR on @cq. */
static struct ibv_qp *wh_ud_qp(FIXTURE_DATA(wire_hostile) *self,
			       struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = DP_PORT,
		.qkey = WH_QKEY,
	};
	struct ibv_qp *qp = ibv_create_qp(self->d.pd, &ia);

	if (!qp)
		return NULL;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		goto err;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		goto err;
	return qp;
err:
	ibv_destroy_qp(qp);
	return NULL;
}

/* ---- item 2: only the peer, and never a local socket ---- */

TEST_F(wire_hostile, local_socket_cannot_inject)
{
	const char *dev = self->d.name;
	uint32_t qpn;
	struct wh_send s = {
		.src = self->addr, .dst = self->addr,
		.opcode = WP_RC_SEND_ONLY, .qpns = &qpn, .nqp = 1,
		.psn = WH_RQ_PSN, .npkt = 1, .paylen = 64,
	};
	struct ibv_cq *cq;
	struct ibv_qp *ud;
	long long before;

	wh_rc_pair(_metadata, self);
	qpn = self->rc[1].qp->qp_num;
	before = wp_counter(dev, "drop_bad_address");

	/* RC: the source address is the peer's own (it is this host). */
	ASSERT_EQ(0, wh_send(NULL, &s));
	EXPECT_TRUE(wh_cq_quiet(self->rc[1].cq, 500))
		TH_LOG("a local user's datagram was delivered to an RC QP");
	EXPECT_LE(before + 1, wp_wait_counter(dev, "drop_bad_address",
					      before + 1));

	/* UD: reachable by anyone with the Q_Key, but not from lo. */
	cq = ibv_create_cq(self->d.ctx, 8, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	ud = wh_ud_qp(self, cq);
	ASSERT_NE(NULL, ud);
	ASSERT_EQ(0, wh_post_recv(ud, 3, self->buf + 16384, 4096,
				  self->mr->lkey));
	qpn = ud->qp_num;
	s.opcode = WP_UD_SEND_ONLY;
	s.qkey = WH_QKEY;
	ASSERT_EQ(0, wh_send(NULL, &s));
	EXPECT_TRUE(wh_cq_quiet(cq, 500))
		TH_LOG("a local user's datagram was delivered to a UD QP");
	EXPECT_LE(before + 2, wp_wait_counter(dev, "drop_bad_address",
					      before + 2));
	ibv_destroy_qp(ud);
	ibv_destroy_cq(cq);

	/* vrnic's own local delivery is unaffected. */
	wh_rc_pair_works(_metadata, self);
}

TEST_F(wire_hostile, foreign_source_cannot_inject)
{
	const char *dev = self->d.name;
	uint32_t qpn;
	struct wh_send s = {
		.src = self->peer, .dst = self->addr,
		.opcode = WP_RC_SEND_ONLY, .qpns = &qpn, .nqp = 1,
		.psn = WH_RQ_PSN, .npkt = 1, .paylen = 64,
	};
	long long before;

	wh_rc_pair(_metadata, self);
	qpn = self->rc[1].qp->qp_num;
	before = wp_counter(dev, "drop_bad_address");
	ASSERT_EQ(0, wh_send(self->ns, &s));
	EXPECT_TRUE(wh_cq_quiet(self->rc[1].cq, 500))
		TH_LOG("another host's packet was delivered to an RC QP");
	EXPECT_LE(before + 1, wp_wait_counter(dev, "drop_bad_address",
					      before + 1));
	wh_rc_pair_works(_metadata, self);
}

/* ---- item 5: UD messages that do not fit, and QP1 ---- */

TEST_F(wire_hostile, ud_too_long_keeps_the_wqe)
{
	uint32_t qpn;
	struct wh_send s = {
		.src = self->peer, .dst = self->addr,
		.opcode = WP_UD_SEND_ONLY, .qpns = &qpn, .nqp = 1,
		.npkt = 1, .qkey = WH_QKEY, .paylen = 1000,
	};
	struct ibv_cq *cq;
	struct ibv_qp *ud;
	struct ibv_wc wc;

	cq = ibv_create_cq(self->d.ctx, 8, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	ud = wh_ud_qp(self, cq);
	ASSERT_NE(NULL, ud);
	qpn = ud->qp_num;
	/* Room for the 40-byte GRH and 472 bytes. */
	ASSERT_EQ(0, wh_post_recv(ud, 11, self->buf, 512, self->mr->lkey));

	ASSERT_EQ(0, wh_send(self->ns, &s));
	EXPECT_TRUE(wh_cq_quiet(cq, 500))
		TH_LOG("a message too long for the buffer used up the WQE");

	s.paylen = 100;
	ASSERT_EQ(0, wh_send(self->ns, &s));
	ASSERT_EQ(0, dp_poll(cq, &wc, 5000));
	EXPECT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	EXPECT_EQ(11u, wc.wr_id);
	EXPECT_EQ((uint32_t)WP_GRH + 100, wc.byte_len);
	ibv_destroy_qp(ud);
	ibv_destroy_cq(cq);
}

/* ---- multicast: what a group QP takes from the wire ---- */

TEST_F(wire_hostile, multicast_takes_only_group_sends)
{
	const char *dev = self->d.name;
	struct in_addr group = { htonl(230u << 24 | 77 << 16 | 11 << 8 | 1) };
	struct in_addr lonely = { htonl(230u << 24 | 77 << 16 | 11 << 8 | 2) };
	struct ip_mreqn mreq = { .imr_ifindex = if_nametoindex(getenv("DP_VETH")) };
	uint32_t qpn = 0xffffff;
	struct wh_send s = {
		.src = self->peer, .dst = group,
		.opcode = WP_UD_SEND_ONLY, .qpns = &qpn, .nqp = 1,
		.npkt = 1, .qkey = WH_QKEY + 1, .paylen = 64,
	};
	long long qkey0, malformed0, addr0, unknown0;
	union ibv_gid mgid = {};
	struct ibv_cq *cq;
	struct ibv_qp *ud;
	struct ibv_wc wc;
	int sock;

	/* The device's netdev joins both groups, as rdma_cm would. */
	ASSERT_LT(0, mreq.imr_ifindex);
	sock = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, sock);
	mreq.imr_multiaddr = group;
	ASSERT_EQ(0, setsockopt(sock, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq,
				sizeof(mreq)));
	mreq.imr_multiaddr = lonely;
	ASSERT_EQ(0, setsockopt(sock, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq,
				sizeof(mreq)));

	cq = ibv_create_cq(self->d.ctx, 8, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	ud = wh_ud_qp(self, cq);
	ASSERT_NE(NULL, ud);
	mgid.raw[10] = 0xff;
	mgid.raw[11] = 0xff;
	memcpy(mgid.raw + 12, &group, 4);
	ASSERT_EQ(0, ibv_attach_mcast(ud, &mgid, 0));
	ASSERT_EQ(0, wh_post_recv(ud, 21, self->buf, 512, self->mr->lkey));
	qkey0 = wp_counter(dev, "drop_bad_qkey");
	malformed0 = wp_counter(dev, "drop_malformed");
	addr0 = wp_counter(dev, "drop_bad_address");
	unknown0 = wp_counter(dev, "drop_unknown_qp");

	/* Another Q_Key. */
	ASSERT_EQ(0, wh_send(self->ns, &s));
	EXPECT_LE(qkey0 + 1, wp_wait_counter(dev, "drop_bad_qkey", qkey0 + 1));
	/* An RC SEND to the group. */
	s.opcode = WP_RC_SEND_ONLY;
	ASSERT_EQ(0, wh_send(self->ns, &s));
	EXPECT_LE(malformed0 + 1, wp_wait_counter(dev, "drop_malformed",
						  malformed0 + 1));
	/* The QP's own number to the group; 0xFFFFFF to a unicast address. */
	s.opcode = WP_UD_SEND_ONLY;
	s.qkey = WH_QKEY;
	qpn = ud->qp_num;
	ASSERT_EQ(0, wh_send(self->ns, &s));
	qpn = 0xffffff;
	s.dst = self->addr;
	ASSERT_EQ(0, wh_send(self->ns, &s));
	EXPECT_LE(addr0 + 2, wp_wait_counter(dev, "drop_bad_address",
					     addr0 + 2));
	/* A group no QP of the device is attached to. */
	s.dst = lonely;
	ASSERT_EQ(0, wh_send(self->ns, &s));
	EXPECT_LE(unknown0 + 1, wp_wait_counter(dev, "drop_unknown_qp",
						unknown0 + 1));
	EXPECT_TRUE(wh_cq_quiet(cq, 200))
		TH_LOG("a bad multicast packet was delivered");

	/* The group's own: delivered, the group in the GRH's IPv4 header. */
	s.dst = group;
	ASSERT_EQ(0, wh_send(self->ns, &s));
	ASSERT_EQ(0, dp_poll(cq, &wc, 5000));
	EXPECT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	EXPECT_EQ(21u, wc.wr_id);
	EXPECT_EQ((uint32_t)WP_GRH + 64, wc.byte_len);
	EXPECT_EQ(0x77u, wc.src_qp);
	EXPECT_EQ(0, memcmp(self->buf + 36, &group, 4));

	EXPECT_EQ(0, ibv_detach_mcast(ud, &mgid, 0));
	ibv_destroy_qp(ud);
	ibv_destroy_cq(cq);
	close(sock);
}

/* Kill the rping server started by the test, by its pid file. */
static void wh_kill_pidfile(const char *path)
{
	FILE *f = fopen(path, "r");
	int pid;

	if (!f)
		return;
	if (fscanf(f, "%d", &pid) == 1 && pid > 1)
		kill(pid, SIGTERM);
	fclose(f);
	unlink(path);
}

TEST_F_TIMEOUT(wire_hostile, gsi_flood_leaves_rdma_cm_working, 300)
{
	const char *dev = self->d.name;
	static const uint32_t qp1 = 1;
	struct wh_send s = {
		.src = self->peer, .dst = self->addr,
		.opcode = WP_UD_SEND_ONLY, .qpns = &qp1, .nqp = 1,
		.npkt = 1024, .qkey = WP_GSI_QKEY, .paylen = 1024,
	};
	char addr[INET_ADDRSTRLEN], pidfile[64];
	int port = 20000 + getpid() % 10000, i, ret = -1;
	long long before;

	inet_ntop(AF_INET, &self->addr, addr, sizeof(addr));
	before = wp_counter(dev, "drop_malformed");
	ASSERT_EQ(0, wh_send(self->ns, &s));
	/* One byte either side of a MAD, too. */
	s.npkt = 1;
	s.paylen = WP_MAD - 4;
	ASSERT_EQ(0, wh_send(self->ns, &s));
	s.paylen = WP_MAD + 4;
	ASSERT_EQ(0, wh_send(self->ns, &s));
	EXPECT_EQ(before + 1026, wp_wait_counter(dev, "drop_malformed",
						 before + 1026));

	/* The CM REQ of an rdma_cm connection must still find a buffer. */
	snprintf(pidfile, sizeof(pidfile), "/tmp/wh_rping.%d", getpid());
	ASSERT_EQ(0, vrnic_sh("timeout 240 rping -s -a %s -p %d -C 2 -S 64 >/dev/null 2>&1 & echo $! >%s",
			      addr, port, pidfile));
	for (i = 0; i < 3 && ret; i++) {
		sleep(2);
		ret = vrnic_sh("ip netns exec %s timeout 60 rping -c -a %s -p %d -C 2 -S 64 >/dev/null 2>&1",
			       self->ns, addr, port);
	}
	wh_kill_pidfile(pidfile);
	EXPECT_EQ(0, ret) TH_LOG("rdma_cm cannot connect to %s after the flood",
				 dev);
}

/* ---- item 8: a device-wide budget for held packets ---- */

/* sk_buffs alive: active objects of skbuff_head_cache. */
static long long wh_skbs(void)
{
	char line[256];
	long long v = -1;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "skbuff_head_cache %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * @qp (RC) to INIT, then RTR towards QP WH_PEER_QPN at the other end's
 * address, which the unprivileged sender has; 0 or an errno.
 */
#define WH_PEER_QPN	0x123

static int wh_peer_rtr(FIXTURE_DATA(wire_hostile) *self, struct ibv_qp *qp,
		       enum ibv_mtu mtu)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = DP_PORT,
	};
	int ret;

	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = WH_PEER_QPN;
	a.rq_psn = WH_RQ_PSN;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = DP_PORT;
	a.ah_attr.grh.dgid = self->d.gid;
	memcpy(a.ah_attr.grh.dgid.raw + 12, &self->peer, 4);
	a.ah_attr.grh.sgid_index = self->d.gid_idx;
	a.ah_attr.grh.hop_limit = 64;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER);
}

TEST_F_TIMEOUT(wire_hostile, held_packets_have_a_device_budget, 600)
{
	const char *dev = self->d.name;
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qps[WH_FLOOD_QPS] = {};
	uint32_t qpns[WH_FLOOD_QPS];
	struct wh_send s = {
		.src = self->peer, .dst = self->addr,
		.opcode = WP_RC_SEND_ONLY, .qpns = qpns, .nqp = WH_FLOOD_QPS,
		/* All ahead of the expected PSN: held, never executed. */
		.psn = WH_RQ_PSN + 1, .npkt = WH_OOO_PKTS, .paylen = 4096,
	};
	int sent = WH_FLOOD_QPS * WH_OOO_PKTS;
	long long base, held, before;
	struct ibv_cq *cq;
	int i;

	cq = ibv_create_cq(self->d.ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	ia.send_cq = cq;
	ia.recv_cq = cq;
	for (i = 0; i < WH_FLOOD_QPS; i++) {
		qps[i] = ibv_create_qp(self->d.pd, &ia);
		ASSERT_NE(NULL, qps[i]) TH_LOG("QP %d: %s", i, strerror(errno));
		qpns[i] = qps[i]->qp_num;
		ASSERT_EQ(0, wh_peer_rtr(self, qps[i], IBV_MTU_4096));
	}

	before = wp_counter(dev, "drop_held_budget");
	base = wh_skbs();
	ASSERT_LT(0, base);
	ASSERT_EQ(0, wh_send(self->ns, &s));
	usleep(500 * 1000);
	held = wh_skbs() - base;
	TH_LOG("%d out-of-order packets of 4 KiB to %d QPs: %lld skbs held, %lld counted in drop_held_budget",
	       sent, WH_FLOOD_QPS, held,
	       wp_counter(dev, "drop_held_budget") - before);
	EXPECT_GT(sent / 2, held)
		TH_LOG("held packets are not bounded device-wide");
	EXPECT_LT(before, wp_counter(dev, "drop_held_budget"))
		TH_LOG("packets beyond the budget were not counted");

	for (i = 0; i < WH_FLOOD_QPS; i++)
		if (qps[i])
			ibv_destroy_qp(qps[i]);
	ibv_destroy_cq(cq);
}

/*
 * Memory shared with the child a fake peer runs in, which fills in what
 * came back; NULL on failure.  munmap() it.
 */
static void *wh_child_shared(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* A CQ and an RC QP on it at RTR towards the fake peer, or NULL. */
static struct ibv_qp *wh_peer_qp(FIXTURE_DATA(wire_hostile) *self,
				 struct ibv_cq **cq)
{
	struct ibv_qp *qp;

	*cq = ibv_create_cq(self->d.ctx, 4, NULL, NULL, 0);
	if (!*cq)
		return NULL;
	qp = dp_qp_on_cq(&self->d, *cq, IBV_QPT_RC, 1, 1, 0);
	if (qp && !wh_peer_rtr(self, qp, IBV_MTU_1024))
		return qp;
	if (qp)
		ibv_destroy_qp(qp);
	ibv_destroy_cq(*cq);
	return NULL;
}

/*
 * The next RoCEv2 packet from @from on raw UDP socket @rx (its IP header
 * first), its IB part; NULL once the socket's timeout has passed.
 */
static const uint8_t *wh_roce_recv(int rx, struct in_addr from, uint8_t *in,
				   size_t size)
{
	struct in_addr src;
	ssize_t len;
	size_t ihl;

	for (;;) {
		len = recv(rx, in, size, 0);
		if (len < 20)
			return NULL;
		ihl = (in[0] & 0xf) * 4;
		memcpy(&src, in + 12, sizeof(src));
		if ((size_t)len >= ihl + 8 + WP_BTH + 4 &&
		    src.s_addr == from.s_addr &&
		    (in[ihl + 2] << 8 | in[ihl + 3]) == WP_ROCE_PORT)
			return in + ihl + 8;
	}
}

/* A raw UDP socket in the peer's namespace, receiving with timeout @tv. */
static int wh_peer_rx(FIXTURE_DATA(wire_hostile) *self,
		      const struct timeval *tv)
{
	int fd = wp_socket_in(self->ns, AF_INET, SOCK_RAW, IPPROTO_UDP);

	if (fd >= 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, tv, sizeof(*tv))) {
		close(fd);
		return -1;
	}
	return fd;
}

#define WH_TIMEOUT_PATIENT	20	/* 4.3 s: none while a test looks */

/*
 * @qp to RTS from @psn, its ACK timeout @timeout (IBA's exponent) with
 * all 7 retries; 0 on success.
 */
static int wh_rts(struct ibv_qp *qp, uint32_t psn, uint8_t timeout)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS, .sq_psn = psn, .timeout = timeout,
		.retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int wh_rts_patient(struct ibv_qp *qp, uint32_t psn)
{
	return wh_rts(qp, psn, WH_TIMEOUT_PATIENT);
}

/* ---- a READ responder that streams stale responses ---- */

#define WH_RD_PSN	0x200
#define WH_RD_PKTS	4		/* MTU 1024: a 4 KiB READ */
#define WH_RD_OP_FIRST	0x0d		/* RC RDMA READ response first */
#define WH_RD_OP_MIDDLE	0x0e
#define WH_RD_OP_LAST	0x0f
#define WH_RD_STALE_MS	2000		/* seven ACK timeouts of 268 ms */

struct wh_read_peer {
	struct in_addr src, dst;
	uint32_t qpn, psn;	/* the requester's QPN, the READ's first PSN */
	bool answer;		/* then send the whole response */
};

/* Runs as nobody: 0, or which step failed. */
static int wh_read_peer_fn(void *arg)
{
	static const uint8_t aeth[4] = { 0x1f, 0, 0, 1 };	/* ACK, MSN 1 */
	const struct wh_read_peer *r = arg;
	struct wp_pkt *p = malloc(sizeof(*p));
	int fd, i;
	uint8_t op;

	fd = wp_udp_socket(r->src, WH_SPORT);
	if (fd < 0 || !p)
		return 1;
	/* The READ's second packet, again and again: past a gap. */
	for (i = 0; i < WH_RD_STALE_MS / 5; i++) {
		wp_bth(p, WH_RD_OP_MIDDLE, WP_PKEY, r->qpn, r->psn + 1);
		wp_fill(p, 1024);
		if (wp_send_udp(fd, r->src, WH_SPORT, r->dst, p))
			return 2;
		usleep(5000);
	}
	for (i = 0; r->answer && i < WH_RD_PKTS; i++) {
		op = !i ? WH_RD_OP_FIRST : i == WH_RD_PKTS - 1 ?
		     WH_RD_OP_LAST : WH_RD_OP_MIDDLE;
		wp_bth(p, op, WP_PKEY, r->qpn, r->psn + i);
		if (op != WH_RD_OP_MIDDLE)
			wp_put(p, aeth, sizeof(aeth));
		wp_fill(p, 1024);
		if (wp_send_udp(fd, r->src, WH_SPORT, r->dst, p))
			return 3;
	}
	close(fd);
	free(p);
	return 0;
}

/* Post a signaled READ or WRITE of @len bytes at @addr, to the peer's buffer. */
static int wh_post_rdma(struct ibv_qp *qp, enum ibv_wr_opcode opcode,
			uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = opcode, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = 0x10000, .rkey = 0x77 },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

TEST_F_TIMEOUT(wire_hostile, read_replays_hold_off_the_timeout, 120)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 2, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct wh_read_peer r = {
		.src = self->peer, .dst = self->addr, .psn = WH_RD_PSN,
		.answer = true,
	};
	struct ibv_qp_attr a = {};
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_wc wc;
	struct timespec t0;
	long long t;
	uint8_t *got;
	int i;

	cq = ibv_create_cq(self->d.ctx, 4, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	ia.send_cq = cq;
	ia.recv_cq = cq;
	qp = ibv_create_qp(self->d.pd, &ia);
	ASSERT_NE(NULL, qp);
	r.qpn = qp->qp_num;
	ASSERT_EQ(0, wh_peer_rtr(self, qp, IBV_MTU_1024));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = WH_RD_PSN;
	/*
	 * 268 ms, and three timeouts without progress end it: room for
	 * the peer's fork and a slow kernel (the debug kernel's KASAN
	 * once delayed the stream past three timeouts of 67 ms).
	 */
	a.timeout = 16;
	a.retry_cnt = 2;
	a.rnr_retry = 1;
	a.max_rd_atomic = 1;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				   IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				   IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC));

	/* Stale responses for seven timeouts, then the whole response. */
	got = self->buf + 16384;
	memset(got, 0xee, WH_RD_PKTS * 1024);
	ASSERT_EQ(0, wh_post_rdma(qp, IBV_WR_RDMA_READ, 1, got, WH_RD_PKTS * 1024,
				       self->mr->lkey));
	ASSERT_EQ(0, wp_run_unprivileged(self->ns, wh_read_peer_fn, &r));
	ASSERT_EQ(0, dp_poll(cq, &wc, 10000));
	EXPECT_EQ(IBV_WC_SUCCESS, (int)wc.status)
		TH_LOG("READ ended with %s while the peer streamed responses",
		       ibv_wc_status_str(wc.status));
	for (i = 0; i < WH_RD_PKTS * 1024; i++)
		if (got[i] != (uint8_t)((i % 1024) * 7))
			break;
	EXPECT_EQ(WH_RD_PKTS * 1024, i) TH_LOG("READ data wrong at byte %d", i);

	/* The same stream, then silence: the timeout still ends it. */
	r.psn = WH_RD_PSN + WH_RD_PKTS;
	r.answer = false;
	ASSERT_EQ(0, wh_post_rdma(qp, IBV_WR_RDMA_READ, 2, got, WH_RD_PKTS * 1024,
				       self->mr->lkey));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, wp_run_unprivileged(self->ns, wh_read_peer_fn, &r));
	ASSERT_EQ(0, dp_poll(cq, &wc, 10000));
	t = dp_ms_since(&t0);
	EXPECT_EQ(IBV_WC_RETRY_EXC_ERR, (int)wc.status);
	TH_LOG("retry error %lld ms after the post, the stream took %d ms",
	       t, WH_RD_STALE_MS);

	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
}

/* ---- what a loss does to the send window ---- */

#define WH_WIN_PSN	0x300
#define WH_WIN_PKTS	8		/* MTU 1024: an 8 KiB WRITE */
#define WH_WIN_FULL	256		/* VRNIC_MAX_INFLIGHT, the start */
#define WH_OP_CNP	0x81

struct wh_loss_peer {
	struct in_addr src, dst;
	uint32_t qpn;
	bool cnp;		/* a CNP first: DCQCN's limiter engaged */
	uint8_t syndrome;	/* then an ACK or a NAK (AETH) ... */
	uint8_t msn;
	uint32_t psn;		/* ... with this PSN */
};

#define WH_AETH_ACK	0x1f	/* ACK, no credit count */
#define WH_AETH_SEQ_NAK	0x60	/* NAK, PSN sequence error */

/* Send an ACK or NAK with @syndrome, @msn and @psn to QP @qpn; 0 if sent. */
static int wh_send_aeth(int fd, struct wp_pkt *p, struct in_addr src,
			struct in_addr dst, uint32_t qpn, uint8_t syndrome,
			uint8_t msn, uint32_t psn)
{
	uint8_t aeth[4] = { syndrome, 0, 0, msn };

	wp_bth(p, WP_RC_ACK, WP_PKEY, qpn, psn);
	wp_put(p, aeth, sizeof(aeth));
	return wp_send_udp(fd, src, WH_SPORT, dst, p);
}

/* Runs as nobody: 0, or which step failed. */
static int wh_loss_peer_fn(void *arg)
{
	static const uint8_t cnp_rsvd[16];
	const struct wh_loss_peer *l = arg;
	struct wp_pkt *p = malloc(sizeof(*p));
	int fd;

	fd = wp_udp_socket(l->src, WH_SPORT);
	if (fd < 0 || !p)
		return 1;
	if (l->cnp) {
		wp_bth(p, WH_OP_CNP, WP_PKEY, l->qpn, 0);
		wp_ib(p)[4] = 0x40;			/* BECN */
		wp_put(p, cnp_rsvd, sizeof(cnp_rsvd));
		if (wp_send_udp(fd, l->src, WH_SPORT, l->dst, p))
			return 2;
	}
	if (wh_send_aeth(fd, p, l->src, l->dst, l->qpn, l->syndrome, l->msn,
			 l->psn))
		return 3;
	close(fd);
	free(p);
	return 0;
}

/*
 * Driver attribute @name of QP @qpn (rdma -dd res show qp), its first
 * word in @val; 0, or -1 if there is none.
 */
static int wh_qp_attr_str(const char *dev, uint32_t qpn, const char *name,
			  char *val, size_t size)
{
	char cmd[160], line[4096], key[64];
	const char *at;
	int ret = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "rdma -dd res show qp link %s/%d lqpn %u 2>/dev/null",
		 dev, DP_PORT, qpn);
	snprintf(key, sizeof(key), " drv_%s ", name);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		at = strstr(line, key);
		if (!at)
			continue;
		at += strlen(key);
		snprintf(val, size, "%.*s", (int)strcspn(at, " \n"), at);
		ret = 0;
	}
	pclose(f);
	return ret;
}

/* Driver attribute @name of QP @qpn as a number, or -1. */
static long long wh_qp_attr(const char *dev, uint32_t qpn, const char *name)
{
	char val[64];

	if (wh_qp_attr_str(dev, qpn, name, val, sizeof(val)))
		return -1;
	return strtoll(val, NULL, 0);
}

/*
 * A WRITE of WH_WIN_PKTS packets to the fake peer, all sent, then a
 * sequence NAK for its third packet (a loss the resend of one packet
 * repairs), optionally after a CNP.  The send window right after the
 * NAK, or -1; the WRITE must then complete on the peer's ACK.
 */
static long long wh_window_after_loss(struct __test_metadata *_metadata,
				      FIXTURE_DATA(wire_hostile) *self,
				      bool cnp)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct wh_loss_peer l = {
		.src = self->peer, .dst = self->addr, .cnp = cnp,
		.syndrome = WH_AETH_SEQ_NAK, .psn = WH_WIN_PSN + 2,
	};
	long long window = -1, sent = -1;
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq;
	struct ibv_wc wc;
	int i;

	cq = ibv_create_cq(self->d.ctx, 4, NULL, NULL, 0);
	if (!cq)
		return -1;
	ia.send_cq = cq;
	ia.recv_cq = cq;
	qp = ibv_create_qp(self->d.pd, &ia);
	if (!qp)
		goto out;
	l.qpn = qp->qp_num;
	if (wh_peer_rtr(self, qp, IBV_MTU_1024))
		goto out;
	if (wh_rts_patient(qp, WH_WIN_PSN))
		goto out;
	if (wh_post_rdma(qp, IBV_WR_RDMA_WRITE, 1, self->buf,
			 WH_WIN_PKTS * 1024, self->mr->lkey))
		goto out;
	/* Every packet on the wire: the NAK finds nothing left to send. */
	for (i = 0; i < 100; i++) {
		sent = wh_qp_attr(self->d.name, qp->qp_num, "req_psn");
		if (sent == WH_WIN_PSN + WH_WIN_PKTS)
			break;
		usleep(10 * 1000);
	}
	EXPECT_EQ(WH_WIN_PSN + WH_WIN_PKTS, sent);
	EXPECT_EQ(WH_WIN_FULL, wh_qp_attr(self->d.name, qp->qp_num, "window"));
	EXPECT_EQ(0, wp_run_unprivileged(self->ns, wh_loss_peer_fn, &l));
	usleep(100 * 1000);
	window = wh_qp_attr(self->d.name, qp->qp_num, "window");
	/* Everything arrived: an ACK of the last PSN, MSN 1. */
	l.cnp = false;
	l.syndrome = WH_AETH_ACK;
	l.msn = 1;
	l.psn = WH_WIN_PSN + WH_WIN_PKTS - 1;
	EXPECT_EQ(0, wp_run_unprivileged(self->ns, wh_loss_peer_fn, &l));
	EXPECT_EQ(0, dp_poll(cq, &wc, 10000));
	EXPECT_EQ(IBV_WC_SUCCESS, (int)wc.status)
		TH_LOG("the WRITE ended with %s", ibv_wc_status_str(wc.status));
out:
	if (qp)
		ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	return window;
}

/* rdmactl qos set DEV ecn @prios; 0 on success. */
static int wh_ecn(const char *dev, const char *prios)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rdmactl qos set %s ecn %s >/dev/null",
		 dev, prios);
	return system(cmd);
}

TEST_F_TIMEOUT(wire_hostile, random_loss_keeps_the_window_under_ecn, 120)
{
	long long w;

	/* ECN on every priority (the default): DCQCN is the control. */
	w = wh_window_after_loss(_metadata, self, false);
	TH_LOG("ECN, no mark: window %lld after the loss", w);
	EXPECT_EQ(WH_WIN_FULL, w) TH_LOG("a random loss cut the window");

	w = wh_window_after_loss(_metadata, self, true);
	TH_LOG("ECN, a CNP first: window %lld after the loss", w);
	EXPECT_EQ(WH_WIN_FULL / 2, w)
		TH_LOG("a loss while DCQCN limits the rate left the window");

	ASSERT_EQ(0, wh_ecn(self->d.name, "none"));
	w = wh_window_after_loss(_metadata, self, false);
	TH_LOG("no ECN: window %lld after the loss", w);
	EXPECT_EQ(WH_WIN_FULL / 2, w)
		TH_LOG("without ECN a loss must halve the window");
	ASSERT_EQ(0, wh_ecn(self->d.name, "0,1,2,3,4,5,6,7"));
}

/* ---- a lost sequence NAK ---- */

#define WH_RC_SEND_FIRST	0x00
#define WH_RC_SEND_MIDDLE	0x01
#define WH_RC_SEND_LAST		0x02
#define WH_NAK_STEPS		4

struct wh_nak_peer {
	struct in_addr src, dst;
	uint32_t qpn;
	int rx;			/* raw UDP socket in the peer's namespace */
	/* what each step got back: BTH opcode, AETH syndrome, PSN */
	int got_op[WH_NAK_STEPS], got_syn[WH_NAK_STEPS];
	uint32_t got_psn[WH_NAK_STEPS];
	/* the device's side, for the test alone */
	struct ibv_qp *qp;
	struct ibv_cq *cq;
};

/*
 * The peer's shared state, and the device's QP towards it with one
 * 4096-byte receive posted; the peer's socket waits 2 s for each answer.
 * NULL on failure.
 */
static struct wh_nak_peer *wh_nak_peer_new(FIXTURE_DATA(wire_hostile) *self)
{
	struct timeval tv = { .tv_sec = 2 };
	struct wh_nak_peer *n = wh_child_shared(sizeof(*n));

	if (!n)
		return NULL;
	n->rx = -1;
	n->qp = wh_peer_qp(self, &n->cq);
	if (!n->qp)
		goto unmap;
	if (wh_post_recv(n->qp, 7, self->buf, 4096, self->mr->lkey))
		goto destroy_qp;
	n->src = self->peer;
	n->dst = self->addr;
	n->qpn = n->qp->qp_num;
	/* Raw: the peer's namespace may have a RoCE socket on the port. */
	n->rx = wh_peer_rx(self, &tv);
	if (n->rx >= 0)
		return n;
destroy_qp:
	ibv_destroy_qp(n->qp);
	ibv_destroy_cq(n->cq);
unmap:
	munmap(n, sizeof(*n));
	return NULL;
}

static void wh_nak_peer_free(struct wh_nak_peer *n)
{
	close(n->rx);
	ibv_destroy_qp(n->qp);
	ibv_destroy_cq(n->cq);
	munmap(n, sizeof(*n));
}

/*
 * Send packet @i (0-3) of a 4-packet SEND from WH_RQ_PSN, asking for an
 * ACK if @ackreq; then, unless @step is -1, wait for one packet back and
 * record it in step @step.  0, or -1 if nothing came.
 */
static int wh_nak_step(struct wh_nak_peer *n, struct wp_pkt *p, int tx,
		       int i, bool ackreq, int step)
{
	static const uint8_t op[4] = {
		WH_RC_SEND_FIRST, WH_RC_SEND_MIDDLE, WH_RC_SEND_MIDDLE,
		WH_RC_SEND_LAST,
	};
	uint8_t buf[2048];
	const uint8_t *in;

	wp_bth(p, op[i], WP_PKEY, n->qpn, WH_RQ_PSN + i);
	if (ackreq)
		wp_ib(p)[8] = 0x80;		/* BTH AckReq */
	wp_fill(p, 1024);
	if (wp_send_udp(tx, n->src, WH_SPORT, n->dst, p))
		return -1;
	if (step < 0)
		return 0;
	in = wh_roce_recv(n->rx, n->dst, buf, sizeof(buf));
	if (!in)
		return -1;
	n->got_op[step] = in[0];
	n->got_syn[step] = in[WP_BTH];
	n->got_psn[step] = in[9] << 16 | in[10] << 8 | in[11];
	return 0;
}

/* Runs as nobody: 0, or which step got no answer. */
static int wh_nak_peer_fn(void *arg)
{
	struct wh_nak_peer *n = arg;
	struct wp_pkt *p = malloc(sizeof(*p));
	int tx, ret = 0;

	tx = wp_udp_socket(n->src, WH_SPORT);
	if (!p || tx < 0)
		return 100;
	/* The first packet; the second is lost; the third is held. */
	if (wh_nak_step(n, p, tx, 0, false, -1) ||
	    wh_nak_step(n, p, tx, 2, false, -1))
		ret = 101;
	/* The last asks for an ACK: the gap's NAK. */
	else if (wh_nak_step(n, p, tx, 3, true, 0))
		ret = 1;
	/* Say it was lost: the last again, as a loss probe sends it. */
	else if (wh_nak_step(n, p, tx, 3, true, 1))
		ret = 2;
	/* Or the first again, as a timeout's go-back-N would. */
	else if (wh_nak_step(n, p, tx, 0, true, 2))
		ret = 3;
	/* The missing packet, asking too: one ACK of all four. */
	else if (wh_nak_step(n, p, tx, 1, true, 3))
		ret = 4;
	close(tx);
	free(p);
	return ret;
}

TEST_F_TIMEOUT(wire_hostile, lost_sequence_nak_is_sent_again, 60)
{
	struct wh_nak_peer *n;
	struct ibv_wc wc;
	int i, ret;

	n = wh_nak_peer_new(self);
	ASSERT_NE(NULL, n);
	ret = wp_run_unprivileged(self->ns, wh_nak_peer_fn, n);
	EXPECT_EQ(0, ret) TH_LOG("%s %d", ret >= 100 ? "setup failed:" :
				 "no answer in step", ret >= 100 ? ret : ret - 1);
	for (i = 0; i < WH_NAK_STEPS; i++)
		TH_LOG("step %d: opcode %#x syndrome %#x psn %#x", i,
		       n->got_op[i], n->got_syn[i], n->got_psn[i]);
	/* Steps 0-2: the sequence NAK for the missing PSN, each time. */
	for (i = 0; i < 3 && !ret; i++) {
		EXPECT_EQ(WP_RC_ACK, n->got_op[i]);
		EXPECT_EQ(WH_AETH_SEQ_NAK, n->got_syn[i]);
		EXPECT_EQ((uint32_t)WH_RQ_PSN + 1, n->got_psn[i]);
	}
	/* Step 3: an ACK (syndrome 000xxxxx) of the last PSN. */
	if (!ret) {
		EXPECT_EQ(WP_RC_ACK, n->got_op[3]);
		EXPECT_EQ(0, n->got_syn[3] & 0xe0);
		EXPECT_EQ((uint32_t)WH_RQ_PSN + 3, n->got_psn[3]);
	}
	ASSERT_EQ(0, dp_poll(n->cq, &wc, 10000));
	EXPECT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	EXPECT_EQ(4096u, wc.byte_len);
	wh_nak_peer_free(n);
}

/* ---- an ACK the stack refuses ---- */

/*
 * Set the limit of @ifname's root pfifo over rtnetlink ("tc qdisc change":
 * the qdisc stays, where replacing or deleting it lets the noop qdisc
 * swallow packets meanwhile, and the stack reports them sent).  Not with
 * tc(8), whose fork and exec took 137-189 ms under TCG and longer on the
 * debug kernel.  0 or a libnl error.
 */
static int wh_pfifo_limit(const char *ifname, int limit)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();
	int ret = -NLE_NOMEM;

	if (sk && q) {
		rtnl_tc_set_ifindex(TC_CAST(q), if_nametoindex(ifname));
		rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
		ret = rtnl_tc_set_kind(TC_CAST(q), "pfifo") ?:
		      rtnl_qdisc_fifo_set_limit(q, limit) ?:
		      nl_connect(sk, NETLINK_ROUTE) ?:
		      rtnl_qdisc_add(sk, q, 0);
	}
	if (q)
		rtnl_qdisc_put(q);
	nl_socket_free(sk);
	return ret;
}

/* Runs as nobody: the 4-packet SEND whole, the last asking for an ACK. */
static int wh_refused_peer_fn(void *arg)
{
	struct wh_nak_peer *n = arg;
	struct wp_pkt *p = malloc(sizeof(*p));
	int tx, i, ret = 0;

	tx = wp_udp_socket(n->src, WH_SPORT);
	if (!p || tx < 0)
		return 1;
	for (i = 0; i < 4 && !ret; i++)
		if (wh_nak_step(n, p, tx, i, i == 3, -1))
			ret = 2;
	close(tx);
	free(p);
	return ret;
}

/*
 * The stack may refuse the responder's ACK (a full qdisc, a veth peer's
 * backlog).  The one that answers the last request of a burst has
 * nothing after it: lost, it costs the requester a loss probe or its ACK
 * timeout.  The device keeps a refused ACK and sends it again after a
 * pause (resp.c, vrnic_send_ack_msn()).  Here the device's egress qdisc
 * drops every packet (pfifo limit 0) while a 4-packet SEND arrives; once
 * the device has counted a refusal (tx_errors) the qdisc takes packets
 * again (limit 1000), and the ACK of the last packet must come by
 * itself, the peer sending nothing again.
 */
TEST_F_TIMEOUT(wire_hostile, refused_ack_is_sent_again, 60)
{
	const char *veth = getenv("DP_VETH"), *dev = self->d.name;
	const char *peer = getenv("DP_NS_ADDR4");
	long long refused0, refused;
	const uint8_t *in = NULL;
	struct wh_nak_peer *n;
	uint8_t buf[2048];
	struct ibv_wc wc;
	int ret, open_q;

	if (!veth)
		SKIP(return, "no DP_VETH: the device's netdev is not known");
	n = wh_nak_peer_new(self);
	ASSERT_NE(NULL, n);

	/*
	 * The qdisc drops ARP too: a neighbour entry that went stale
	 * meanwhile would fail, and take the ACK sent again with it.
	 */
	ASSERT_EQ(0, vrnic_sh("ip neigh change %s dev %s nud permanent",
			      peer, veth));
	refused0 = wp_counter(dev, "tx_errors");
	ASSERT_EQ(0, vrnic_sh("tc qdisc add dev %s root pfifo limit 0", veth));
	ret = wp_run_unprivileged(self->ns, wh_refused_peer_fn, n);
	refused = wp_wait_counter(dev, "tx_errors", refused0 + 1);
	open_q = wh_pfifo_limit(veth, 1000);
	if (!open_q)
		in = wh_roce_recv(n->rx, n->dst, buf, sizeof(buf));
	vrnic_sh("tc qdisc del dev %s root", veth);
	vrnic_sh("ip neigh del %s dev %s", peer, veth);
	ASSERT_EQ(0, ret) TH_LOG("the peer could not send: step %d", ret);
	ASSERT_EQ(0, open_q) TH_LOG("pfifo limit: %s", nl_geterror(open_q));
	ASSERT_LE(refused0 + 1, refused) TH_LOG("no ACK was refused");
	ASSERT_NE(NULL, in) TH_LOG("%lld refused, and no ACK came once the qdisc took packets again",
				   refused - refused0);
	TH_LOG("%lld packets refused; then opcode %#x syndrome %#x psn %#x",
	       refused - refused0, in[0], in[WP_BTH],
	       in[9] << 16 | in[10] << 8 | in[11]);
	EXPECT_EQ(WP_RC_ACK, in[0]);
	EXPECT_EQ(0, in[WP_BTH] & 0xe0);
	EXPECT_EQ((uint32_t)WH_RQ_PSN + 3,
		  (uint32_t)(in[9] << 16 | in[10] << 8 | in[11]));
	ASSERT_EQ(0, dp_poll(n->cq, &wc, 10000));
	EXPECT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	wh_nak_peer_free(n);
}

/* ---- a peer that seems to keep nothing past a gap ---- */

/*
 * A fake peer: the device's address and the peer's (@src, which the
 * unprivileged sender has), the device's QP towards it, and a raw UDP
 * socket in the peer's namespace to see what the device sends.
 */
struct wh_fake_peer {
	struct in_addr src, dst;
	uint32_t qpn;
	int rx;
};

/*
 * A CQ (@cq) and an RC QP at RTS from @psn with ACK timeout @timeout
 * (wh_rts()) towards fake peer @f, filled in, its socket's timeout @tv;
 * NULL on failure.
 */
static struct ibv_qp *wh_fake_peer_qp(FIXTURE_DATA(wire_hostile) *self,
				      struct wh_fake_peer *f, uint32_t psn,
				      uint8_t timeout, const struct timeval *tv,
				      struct ibv_cq **cq)
{
	struct ibv_qp *qp = wh_peer_qp(self, cq);

	if (!qp)
		return NULL;
	f->src = self->peer;
	f->dst = self->addr;
	f->qpn = qp->qp_num;
	f->rx = wh_rts(qp, psn, timeout) ? -1 : wh_peer_rx(self, tv);
	if (f->rx >= 0)
		return qp;
	ibv_destroy_qp(qp);
	ibv_destroy_cq(*cq);
	return NULL;
}

/* wh_send_aeth() from fake peer @f to its QP on the device. */
static int wh_fake_aeth(int fd, struct wp_pkt *p, const struct wh_fake_peer *f,
			uint8_t syndrome, uint8_t msn, uint32_t psn)
{
	return wh_send_aeth(fd, p, f->src, f->dst, f->qpn, syndrome, msn, psn);
}

#define WH_GAP_PSN	0x500
#define WH_GAP_LOST	2		/* the packet of each WRITE "lost" */
#define WH_GAP_QUIET_MS	200		/* no packet this long: all resent */

struct wh_gap_peer {
	struct wh_fake_peer f;
	uint32_t base;		/* the WRITE's first PSN */
	uint8_t msn;
	bool keeps;		/* answer a lone resend as vrnic would */
	/* what the device resent after the NAK and after the ACK */
	int resent[2];
	uint32_t first[2];	/* the first PSN of each */
};

/* Is the BTH at @ib an RC RDMA WRITE (FIRST .. ONLY) to the peer's QP? */
static bool wh_write_to_peer(const uint8_t *ib)
{
	return ib[0] >= WP_RC_WRITE_FIRST && ib[0] <= WP_RC_WRITE_ONLY &&
	       (uint32_t)(ib[5] << 16 | ib[6] << 8 | ib[7]) == WH_PEER_QPN;
}

/*
 * Count the WRITE packets the device at @from sends the peer's QP until
 * none has come for the timeout of raw socket @rx; the first one's PSN in
 * @first.
 */
static int wh_write_collect(int rx, struct in_addr from, uint32_t *first)
{
	uint8_t in[2048];
	const uint8_t *ib;
	int n = 0;

	*first = 0;
	while ((ib = wh_roce_recv(rx, from, in, sizeof(in)))) {
		if (!wh_write_to_peer(ib))
			continue;
		if (!n++)
			*first = ib[9] << 16 | ib[10] << 8 | ib[11];
	}
	return n;
}

/*
 * Runs as nobody.  A sequence NAK for the WRITE's packet WH_GAP_LOST.  A
 * lone resend of it is answered with an ACK of that packet alone (as
 * rdma_rxe answers: nothing past the gap kept), or of the whole WRITE if
 * @keeps; anything else with an ACK of the whole WRITE.  0, or which step
 * failed.
 */
static int wh_gap_peer_fn(void *arg)
{
	struct wh_gap_peer *g = arg;
	uint32_t lost = g->base + WH_GAP_LOST, last = g->base + WH_WIN_PKTS - 1;
	struct wp_pkt *p = malloc(sizeof(*p));
	int fd;

	fd = wp_udp_socket(g->f.src, WH_SPORT);
	if (fd < 0 || !p)
		return 1;
	if (wh_fake_aeth(fd, p, &g->f, WH_AETH_SEQ_NAK,
			 g->msn, lost))
		return 2;
	g->resent[0] = wh_write_collect(g->f.rx, g->f.dst, &g->first[0]);
	if (g->resent[0] == 1 && !g->keeps) {
		if (wh_fake_aeth(fd, p, &g->f, WH_AETH_ACK,
				 g->msn, lost))
			return 3;
		g->resent[1] = wh_write_collect(g->f.rx, g->f.dst, &g->first[1]);
	}
	if (wh_fake_aeth(fd, p, &g->f, WH_AETH_ACK,
			 g->msn + 1, last))
		return 4;
	close(fd);
	free(p);
	return 0;
}

/*
 * One ACK can make a peer that keeps packets past a gap look like one
 * that keeps nothing; the requester must not believe it for the rest of
 * the QP's life.  Each round: an 8-packet WRITE, all of it sent, then a
 * sequence NAK for its third packet.  The plan, a letter per round:
 *   s  a lone resend of the missing packet, answered as rdma_rxe does
 *      (an ACK of it alone): the requester goes back N from there;
 *   g  a go-back-N at once, as towards a peer known to keep nothing;
 *   k  a lone resend, answered as vrnic does (an ACK of all 8).
 * After the first such answer 4 go-back-Ns, then a lone resend asks
 * again; the same answer doubles the count (8); a "keeps" answer
 * ends it (req.c, VRNIC_GBN_RECHECK_MIN).
 */
TEST_F_TIMEOUT(wire_hostile, peer_that_seems_to_drop_is_asked_again, 180)
{
	static const char plan[] = "sggggsggggggggkk";
	struct timeval tv = { .tv_usec = WH_GAP_QUIET_MS * 1000 };
	struct wh_gap_peer *g;
	char past_gap[16];
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_wc wc;
	long long sent;
	int r, i, ret;

	g = wh_child_shared(sizeof(*g));
	ASSERT_NE(NULL, g);
	qp = wh_fake_peer_qp(self, &g->f, WH_GAP_PSN,
			     WH_TIMEOUT_PATIENT, &tv, &cq);
	ASSERT_NE(NULL, qp);

	for (r = 0; plan[r]; r++) {
		bool lone = plan[r] != 'g';

		g->base = WH_GAP_PSN + r * WH_WIN_PKTS;
		g->msn = 2 * r;
		g->keeps = plan[r] == 'k';
		g->resent[0] = g->resent[1] = 0;
		g->first[0] = g->first[1] = 0;
		ASSERT_EQ(0, wh_post_rdma(qp, IBV_WR_RDMA_WRITE, r, self->buf,
					  WH_WIN_PKTS * 1024, self->mr->lkey));
		for (i = 0; i < 100; i++) {
			sent = wh_qp_attr(self->d.name, qp->qp_num, "req_psn");
			if (sent == g->base + WH_WIN_PKTS)
				break;
			usleep(10 * 1000);
		}
		ASSERT_EQ(g->base + WH_WIN_PKTS, sent);
		/* The WRITE's packets, sent before the NAK, are not counted. */
		while (recv(g->f.rx, past_gap, sizeof(past_gap), MSG_DONTWAIT) >= 0)
			;
		ret = wp_run_unprivileged(self->ns, wh_gap_peer_fn, g);
		ASSERT_EQ(0, ret) TH_LOG("round %d: the peer failed in step %d",
					 r, ret);
		ASSERT_EQ(0, dp_poll(cq, &wc, 10000));
		ASSERT_EQ(IBV_WC_SUCCESS, (int)wc.status)
			TH_LOG("round %d: the WRITE ended with %s", r,
			       ibv_wc_status_str(wc.status));
		if (wh_qp_attr_str(self->d.name, qp->qp_num, "peer_past_gap",
				   past_gap, sizeof(past_gap)))
			strcpy(past_gap, "(none)");
		TH_LOG("round %2d (%c): %d resent from %#x, then %d from %#x; peer_past_gap %s",
		       r, plan[r], g->resent[0], g->first[0], g->resent[1],
		       g->first[1], past_gap);
		/* One packet alone, or everything from the lost one on. */
		EXPECT_EQ(lone ? 1 : WH_WIN_PKTS - WH_GAP_LOST, g->resent[0]);
		EXPECT_EQ(g->base + WH_GAP_LOST, g->first[0]);
		if (plan[r] == 's') {
			/* Its ACK alone: back N from the packet after it. */
			EXPECT_EQ(WH_WIN_PKTS - WH_GAP_LOST - 1, g->resent[1]);
			EXPECT_EQ(g->base + WH_GAP_LOST + 1, g->first[1]);
		}
		EXPECT_STREQ(plan[r] == 'k' ? "keeps" : "drops", past_gap);
	}

	close(g->f.rx);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	munmap(g, sizeof(*g));
}

/* ---- a sequence NAK that comes late in the ACK timeout ---- */

#define WH_LATE_PSN	0x700
#define WH_LATE_TIMEOUT	17	/* 537 ms */
#define WH_LATE_NAK_MS	400	/* after the post */
#define WH_LATE_QUIET_MS 300	/* then no resend this long: ACK it all */

struct wh_late_peer {
	struct wh_fake_peer f;
	struct timespec posted;	/* when the WRITE was posted */
	int sent;		/* its packets before the NAK */
	int resent;		/* packets after it, */
	uint32_t first;		/*  the first one's PSN */
};

/*
 * Runs as nobody.  Takes the WRITE, sends a sequence NAK for its packet
 * WH_GAP_LOST WH_LATE_NAK_MS after it was posted, counts what is resent
 * until none has come for WH_LATE_QUIET_MS, then acknowledges it all.
 * 0, or which step failed.
 */
static int wh_late_peer_fn(void *arg)
{
	struct timeval quiet = { .tv_usec = WH_LATE_QUIET_MS * 1000 };
	struct wh_late_peer *l = arg;
	struct wp_pkt *p = malloc(sizeof(*p));
	struct timespec nak = l->posted;
	uint32_t first;
	int fd;

	fd = wp_udp_socket(l->f.src, WH_SPORT);
	if (fd < 0 || !p)
		return 1;
	l->sent = wh_write_collect(l->f.rx, l->f.dst, &first);
	if (l->sent != WH_WIN_PKTS)
		return 2;
	nak.tv_nsec += WH_LATE_NAK_MS * 1000000L;
	nak.tv_sec += nak.tv_nsec / 1000000000L;
	nak.tv_nsec %= 1000000000L;
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &nak, NULL);
	if (wh_fake_aeth(fd, p, &l->f, WH_AETH_SEQ_NAK, 0,
			 WH_LATE_PSN + WH_GAP_LOST))
		return 3;
	if (setsockopt(l->f.rx, SOL_SOCKET, SO_RCVTIMEO, &quiet, sizeof(quiet)))
		return 4;
	l->resent = wh_write_collect(l->f.rx, l->f.dst, &l->first);
	if (wh_fake_aeth(fd, p, &l->f, WH_AETH_ACK, 1,
			 WH_LATE_PSN + WH_WIN_PKTS - 1))
		return 5;
	close(fd);
	free(p);
	return 0;
}

/*
 * A sequence NAK is an answer: the packet it makes the requester resend
 * gets a whole ACK timeout (req.c, vrnic_req_seq_nak(), as TCP restarts
 * its retransmission timer on resending the oldest segment).  Left
 * running from the first send, the timeout fired soon after a late
 * NAK's resend, before that could be answered, and resent once more.
 * The peer NAKs an 8-packet WRITE's third packet 400 ms into a 537 ms
 * timeout, then answers nothing for 300 ms after the last resend: one
 * resend, no timeout.
 */
TEST_F_TIMEOUT(wire_hostile, late_nak_restarts_the_timeout, 60)
{
	struct timeval tv = { .tv_usec = 100 * 1000 };
	const char *dev = self->d.name;
	struct wh_late_peer *l;
	long long timeouts;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_wc wc;
	int ret;

	l = wh_child_shared(sizeof(*l));
	ASSERT_NE(NULL, l);
	qp = wh_fake_peer_qp(self, &l->f, WH_LATE_PSN, WH_LATE_TIMEOUT,
			     &tv, &cq);
	ASSERT_NE(NULL, qp);

	timeouts = wp_counter(dev, "timeouts");
	clock_gettime(CLOCK_MONOTONIC, &l->posted);
	ASSERT_EQ(0, wh_post_rdma(qp, IBV_WR_RDMA_WRITE, 1, self->buf,
				  WH_WIN_PKTS * 1024, self->mr->lkey));
	ret = wp_run_unprivileged(self->ns, wh_late_peer_fn, l);
	ASSERT_EQ(0, ret) TH_LOG("the peer failed in step %d (%d packets)",
				 ret, l->sent);
	ASSERT_EQ(0, dp_poll(cq, &wc, 10000));
	ASSERT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	timeouts = wp_counter(dev, "timeouts") - timeouts;
	TH_LOG("%d resent from %#x after the NAK, %lld timeouts",
	       l->resent, l->first, timeouts);
	EXPECT_EQ(1, l->resent);
	EXPECT_EQ((uint32_t)(WH_LATE_PSN + WH_GAP_LOST), l->first);
	EXPECT_EQ(0, timeouts);

	close(l->f.rx);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	munmap(l, sizeof(*l));
}

/* ---- the round trip a streaming requester learns ---- */

#define WH_RTT_PSN	0x600
#define WH_RTT_PKTS	40	/* MTU 1024: AckReqs before the last (32) */
#define WH_RTT_FIRST_MS	150	/* the first AckReq's ACK this long after */
#define WH_RTT_LAST_MS	600	/* the last one's this much later */

struct wh_rtt_peer {
	struct wh_fake_peer f;
	int got;		/* WRITE packets received */
	int nackreq;		/* how many asked for an ACK, */
	uint32_t ackreq[WH_RTT_PKTS];	/*  their PSNs */
};

/*
 * Runs as nobody.  Takes the WRITE's packets, then acknowledges the first
 * that asked for an ACK WH_RTT_FIRST_MS later, and the whole WRITE
 * WH_RTT_LAST_MS after that.  0, or which step failed.
 */
static int wh_rtt_peer_fn(void *arg)
{
	struct wh_rtt_peer *r = arg;
	struct wp_pkt *p = malloc(sizeof(*p));
	uint8_t in[2048];
	const uint8_t *ib;
	int fd;

	fd = wp_udp_socket(r->f.src, WH_SPORT);
	if (fd < 0 || !p)
		return 1;
	while (r->got < WH_RTT_PKTS &&
	       (ib = wh_roce_recv(r->f.rx, r->f.dst, in, sizeof(in)))) {
		if (!wh_write_to_peer(ib))
			continue;
		r->got++;
		if (ib[8] & 0x80)		/* BTH AckReq */
			r->ackreq[r->nackreq++] =
				ib[9] << 16 | ib[10] << 8 | ib[11];
	}
	if (r->got < WH_RTT_PKTS || r->nackreq < 2)
		return 2;
	usleep(WH_RTT_FIRST_MS * 1000);
	if (wh_fake_aeth(fd, p, &r->f, WH_AETH_ACK, 0,
			 r->ackreq[0]))
		return 3;
	usleep(WH_RTT_LAST_MS * 1000);
	if (wh_fake_aeth(fd, p, &r->f, WH_AETH_ACK, 1,
			 WH_RTT_PSN + WH_RTT_PKTS - 1))
		return 4;
	close(fd);
	free(p);
	return 0;
}

/*
 * A requester keeps sending while the ACK of an earlier AckReq is on its
 * way, so the ACK that comes covers an older AckReq than the newest:
 * the round trip is timed from the AckReq that ACK answers (req.c, "Loss
 * probe").  Timing only the newest one, a streaming QP learnt no round
 * trip (make bench's two-host loss row: srtt_us 0 at every timeout).
 * One WRITE of WH_RTT_PKTS packets asks for ACKs at least twice; the
 * peer answers the first AckReq WH_RTT_FIRST_MS late, the last one
 * WH_RTT_LAST_MS later still.  The first answer is the sample.
 */
TEST_F_TIMEOUT(wire_hostile, round_trip_is_timed_while_streaming, 60)
{
	struct timeval tv = { .tv_sec = 2 };
	struct wh_rtt_peer *r;
	long long srtt;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_wc wc;
	int ret;

	ASSERT_GE(WH_BUF, WH_RTT_PKTS * 1024);
	r = wh_child_shared(sizeof(*r));
	ASSERT_NE(NULL, r);
	qp = wh_fake_peer_qp(self, &r->f, WH_RTT_PSN,
			     WH_TIMEOUT_PATIENT, &tv, &cq);
	ASSERT_NE(NULL, qp);
	ASSERT_EQ(0, wh_qp_attr(self->d.name, qp->qp_num, "srtt_us"));

	ASSERT_EQ(0, wh_post_rdma(qp, IBV_WR_RDMA_WRITE, 1, self->buf,
				  WH_RTT_PKTS * 1024, self->mr->lkey));
	ret = wp_run_unprivileged(self->ns, wh_rtt_peer_fn, r);
	ASSERT_EQ(0, ret) TH_LOG("the peer failed in step %d (%d packets, %d AckReqs)",
				 ret, r->got, r->nackreq);
	ASSERT_EQ(0, dp_poll(cq, &wc, 10000));
	ASSERT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	srtt = wh_qp_attr(self->d.name, qp->qp_num, "srtt_us");
	TH_LOG("AckReqs at %#x and %#x (%d in all): srtt_us %lld",
	       r->ackreq[0], r->ackreq[r->nackreq - 1], r->nackreq, srtt);
	EXPECT_LE(WH_RTT_FIRST_MS * 1000, srtt)
		TH_LOG("no round trip learnt");
	/* Not the last AckReq's round trip, which includes both waits. */
	EXPECT_GT((WH_RTT_FIRST_MS + WH_RTT_LAST_MS) * 1000, srtt);

	close(r->f.rx);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	munmap(r, sizeof(*r));
}

int main(int argc, char **argv)
{
	if (dp_own_setup(argv))
		ksft_print_msg("could not create the test's devices\n");
	return test_harness_run(argc, argv);
}
