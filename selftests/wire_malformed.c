// SPDX-License-Identifier: GPL-2.0
/*
 * wire_malformed - what vrnic does with packets it must not trust.
 *
 * Hand-built RoCEv2 packets (IPv4 header included, so the test controls
 * every byte the ICRC covers) are sent from a raw socket in the network
 * namespace at the other end of the device's veth, from that end's
 * address, to UDP port 4791 of the device's address (what a local socket
 * sends arrives through lo and is dropped before any of these checks:
 * wire_hostile.c).  Each case checks the drop
 * counter of its reason in the port's hw_counters, and nothing else
 * happening: no completion on the live UD QP the packets aim at.
 *
 *  - positive control: a well-formed UD SEND with a correct ICRC is
 *    delivered (proves the test's ICRC and headers are right, so the
 *    drops below are for the reason each case names); the same in two IP
 *    fragments, reassembled into a non-linear skb, is delivered intact,
 *    and fails the ICRC with one byte flipped;
 *  - bad ICRC, unknown destination QP, wrong P_Key, wrong Q_Key;
 *  - malformed: truncated below BTH + ICRC, wrong transport version,
 *    unassigned opcode, extension headers longer than the packet, payload
 *    on an opcode that carries none, RC opcode to a UD QP;
 *  - fuzz: thousands of random packets (random BTH and body, half of them
 *    with a correct ICRC so they pass the first check), after which the
 *    positive control still works.  The VM runner fails the run on any
 *    kernel warning these cause.
 *
 * Environment: DP_DEV, DP_NS and DP_NS_ADDR4 (default: a device the test
 * creates on a veth, see lib/dp_verbs.h), WM_FUZZ (number of fuzz
 * packets, default 3000).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "kselftest_harness.h"

#define DP_PORT		1
#include "lib/dp_verbs.h"
#include "lib/wire_pkt.h"

#define WM_QKEY		0x11111111

/* ---- fixture: a UD QP with a receive posted, and a raw socket ---- */

FIXTURE(wire) {
	struct dp_dev d;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct in_addr addr;	/* the device's */
	struct in_addr peer;	/* the other end's, where we send from */
	int fd;
};

static int wm_post_recv(FIXTURE_DATA(wire) *self)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->buf,
		.length = 4096,
		.lkey = self->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(self->qp, &wr, &bad);
}

FIXTURE_SETUP(wire)
{
	const char *dev = getenv("DP_DEV"), *ns = getenv("DP_NS");
	const char *peer = getenv("DP_NS_ADDR4");
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = DP_PORT,
		.qkey = WM_QKEY,
	};
	int ret;

	self->fd = -1;
	ASSERT_NE(NULL, dev) TH_LOG("DP_DEV not set and self-setup failed");
	ASSERT_NE(NULL, ns) TH_LOG("DP_NS not set");
	ASSERT_NE(NULL, peer) TH_LOG("DP_NS_ADDR4 not set");
	ASSERT_EQ(1, inet_pton(AF_INET, peer, &self->peer));
	ret = dp_dev_open(&self->d, dev, AF_INET);
	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", dev, strerror(-ret));
	/* The IPv4-mapped GID is the device's address. */
	memcpy(&self->addr, self->d.gid.raw + 12, 4);

	self->cq = ibv_create_cq(self->d.ctx, 64, NULL, NULL, 0);
	ASSERT_NE(NULL, self->cq);
	ia.send_cq = self->cq;
	ia.recv_cq = self->cq;
	self->qp = ibv_create_qp(self->d.pd, &ia);
	ASSERT_NE(NULL, self->qp);
	ASSERT_EQ(0, ibv_modify_qp(self->qp, &a, IBV_QP_STATE |
				   IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_QKEY));
	a.qp_state = IBV_QPS_RTR;
	ASSERT_EQ(0, ibv_modify_qp(self->qp, &a, IBV_QP_STATE));
	self->buf = calloc(1, 4096);
	ASSERT_NE(NULL, self->buf);
	self->mr = ibv_reg_mr(self->d.pd, self->buf, 4096,
			      IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, self->mr);
	ASSERT_EQ(0, wm_post_recv(self));

	self->fd = wp_socket_in(ns, AF_INET, SOCK_RAW, IPPROTO_RAW);
	ASSERT_LE(0, self->fd) TH_LOG("raw socket in %s: %s", ns,
				      strerror(-self->fd));
}

FIXTURE_TEARDOWN(wire)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->qp)
		ibv_destroy_qp(self->qp);
	if (self->mr)
		ibv_dereg_mr(self->mr);
	if (self->cq)
		ibv_destroy_cq(self->cq);
	free(self->buf);
	dp_dev_close(&self->d);
}

/* A UD SEND_ONLY to our QP: BTH + DETH + @len payload bytes. */
static void wm_ud_send(FIXTURE_DATA(wire) *self, struct wp_pkt *p,
		       uint32_t qkey, const char *payload)
{
	wp_bth(p, WP_UD_SEND_ONLY, WP_PKEY, self->qp->qp_num, 0);
	wp_deth(p, qkey, 0x123);
	wp_put(p, payload, strlen(payload));
}

/* No completion may appear on the QP for a dropped packet. */
static int wm_cq_empty(FIXTURE_DATA(wire) *self)
{
	struct ibv_wc wc;

	return ibv_poll_cq(self->cq, 1, &wc) == 0;
}

/* Send @p and check that @counter went up by exactly one. */
#define WM_EXPECT_DROP(p, good_icrc, cut, counter)			\
	do {								\
		long long before = wp_counter(self->d.name, counter);	\
		ASSERT_LE(0, before) TH_LOG("no counter %s", counter);	\
		ASSERT_EQ(0, wp_send_raw(self->fd, self->peer, self->addr,\
					 p, good_icrc, cut));		\
		EXPECT_EQ(before + 1, wp_wait_counter(self->d.name,	\
						      counter,		\
						      before + 1))	\
			TH_LOG("%s did not count the packet", counter);	\
		EXPECT_TRUE(wm_cq_empty(self));				\
	} while (0)

/* The positive control: a correct packet is delivered, data intact. */
static void wm_check_delivery(struct __test_metadata *_metadata,
			      FIXTURE_DATA(wire) *self)
{
	const char *msg = "vrnic wire test payload";
	struct wp_pkt p;
	struct ibv_wc wc;
	int ret;

	memset(self->buf, 0, 4096);
	wm_ud_send(self, &p, WM_QKEY, msg);
	ASSERT_EQ(0, wp_send_raw(self->fd, self->peer, self->addr, &p, true, 0));
	ret = dp_poll(self->cq, &wc, 5000);
	ASSERT_EQ(0, ret) TH_LOG("well-formed packet not delivered (%d)",
				 ret);
	ASSERT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	EXPECT_EQ(WP_GRH + strlen(msg), wc.byte_len);
	EXPECT_EQ(0x123u, wc.src_qp);
	EXPECT_EQ(0, memcmp(self->buf + WP_GRH, msg, strlen(msg)));
	ASSERT_EQ(0, wm_post_recv(self));
}

TEST_F(wire, well_formed_ud_send_is_delivered)
{
	wm_check_delivery(_metadata, self);
}

/*
 * A packet whose bytes arrive in pieces: the receiver's IP layer
 * reassembles two fragments into one skb with the second as a fragment
 * (frag_list), as a NIC's receive pages would hold a payload.  vrnic reads
 * the ICRC and the payload from there (no linearizing): the UD SEND must
 * be delivered byte for byte, and a flipped payload byte in the second
 * fragment must fail the ICRC.
 */
static int wm_send_fragmented(FIXTURE_DATA(wire) *self, struct wp_pkt *p,
			      bool corrupt)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr = self->addr };
	static uint16_t id = 0x4000;
	const size_t first = 512;	/* IP payload bytes, a multiple of 8 */
	uint8_t frag[20 + first];
	size_t len;
	uint32_t icrc;

	len = 20 + 8 + wp_finish(p, self->peer, self->addr, 0xc000, ++id,
				 true, 0);
	p->buf[6] = 0;			/* no DF: the ICRC covers the flags */
	icrc = wp_icrc(p->buf, len - WP_ICRC);
	memcpy(p->buf + len - WP_ICRC, &icrc, WP_ICRC);
	if (corrupt)
		p->buf[len - WP_ICRC - 1] ^= 0x01;
	if (len <= 20 + first)
		return -EINVAL;

	/* First: the IP header with MF, then @first bytes. */
	memcpy(frag, p->buf, sizeof(frag));
	frag[6] = 0x20;			/* MF, offset 0 */
	if (sendto(self->fd, frag, sizeof(frag), 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		return -errno;
	/* Second: the same header at offset @first, the rest. */
	memcpy(p->buf + first, p->buf, 20);
	p->buf[first + 6] = (first / 8) >> 8;
	p->buf[first + 7] = (first / 8) & 0xff;
	if (sendto(self->fd, p->buf + first, len - first, 0,
		   (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

TEST_F(wire, fragmented_ud_send_is_delivered_intact)
{
	char msg[1000];
	struct wp_pkt p;
	struct ibv_wc wc;
	long long before;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(msg) - 1; i++)
		msg[i] = 'a' + (i * 7) % 26;
	msg[sizeof(msg) - 1] = 0;
	memset(self->buf, 0, 4096);
	wm_ud_send(self, &p, WM_QKEY, msg);
	ASSERT_EQ(0, wm_send_fragmented(self, &p, false));
	ret = dp_poll(self->cq, &wc, 5000);
	ASSERT_EQ(0, ret) TH_LOG("fragmented packet not delivered (%d)", ret);
	ASSERT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	EXPECT_EQ(WP_GRH + strlen(msg), wc.byte_len);
	EXPECT_EQ(0, memcmp(self->buf + WP_GRH, msg, strlen(msg)));
	ASSERT_EQ(0, wm_post_recv(self));

	before = wp_counter(self->d.name, "icrc_errors");
	wm_ud_send(self, &p, WM_QKEY, msg);
	ASSERT_EQ(0, wm_send_fragmented(self, &p, true));
	EXPECT_EQ(before + 1, wp_wait_counter(self->d.name, "icrc_errors",
					      before + 1))
		TH_LOG("a flipped byte in the second fragment passed the ICRC");
	EXPECT_TRUE(wm_cq_empty(self));
}

TEST_F(wire, bad_icrc_dropped_and_counted)
{
	struct wp_pkt p;

	wm_ud_send(self, &p, WM_QKEY, "bad icrc");
	WM_EXPECT_DROP(&p, false, 0, "icrc_errors");
}

TEST_F(wire, unknown_qp_dropped_and_counted)
{
	struct wp_pkt p;

	wp_bth(&p, WP_UD_SEND_ONLY, WP_PKEY, 0xabcde, 0);
	wp_deth(&p, WM_QKEY, 0x123);
	wp_put(&p, "nobody", 6);
	WM_EXPECT_DROP(&p, true, 0, "drop_unknown_qp");
}

TEST_F(wire, wrong_pkey_dropped_and_counted)
{
	struct wp_pkt p;

	wp_bth(&p, WP_UD_SEND_ONLY, 0x1234, self->qp->qp_num, 0);
	wp_deth(&p, WM_QKEY, 0x123);
	wp_put(&p, "pkey", 4);
	WM_EXPECT_DROP(&p, true, 0, "drop_bad_pkey");
}

TEST_F(wire, wrong_qkey_dropped_and_counted)
{
	struct wp_pkt p;

	wm_ud_send(self, &p, 0x22222222, "qkey");
	WM_EXPECT_DROP(&p, true, 0, "drop_bad_qkey");
}

TEST_F(wire, truncated_packets_dropped_and_counted)
{
	size_t keep;
	struct wp_pkt p;

	/* 0 .. BTH + ICRC - 1 bytes of UDP payload. */
	for (keep = 0; keep < WP_BTH + WP_ICRC; keep++) {
		wm_ud_send(self, &p, WM_QKEY, "");
		p.ib_len = WP_BTH;
		WM_EXPECT_DROP(&p, true, WP_BTH + WP_ICRC - keep,
			       "drop_malformed");
	}
}

TEST_F(wire, wrong_transport_version_dropped_and_counted)
{
	struct wp_pkt p;

	wm_ud_send(self, &p, WM_QKEY, "tver");
	wp_ib(&p)[1] |= 0x1;	/* TVer 1 */
	WM_EXPECT_DROP(&p, true, 0, "drop_malformed");
}

TEST_F(wire, unassigned_opcode_dropped_and_counted)
{
	struct wp_pkt p;

	wm_ud_send(self, &p, WM_QKEY, "opcode");
	wp_ib(&p)[0] = 0x7f;	/* UD range, not assigned */
	WM_EXPECT_DROP(&p, true, 0, "drop_malformed");
}

TEST_F(wire, headers_longer_than_packet_dropped_and_counted)
{
	struct wp_pkt p;

	/* RDMA WRITE FIRST needs a 16-byte RETH; give it 4 bytes. */
	wp_bth(&p, WP_RC_WRITE_FIRST, WP_PKEY, self->qp->qp_num, 0);
	wp_put(&p, "RETH", 4);
	WM_EXPECT_DROP(&p, true, 0, "drop_malformed");
}

TEST_F(wire, payload_on_ack_dropped_and_counted)
{
	static const uint8_t aeth[4] = { 0x1f, 0, 0, 1 };
	struct wp_pkt p;

	wp_bth(&p, WP_RC_ACK, WP_PKEY, self->qp->qp_num, 0);
	wp_put(&p, aeth, sizeof(aeth));
	wp_put(&p, "data", 4);	/* an ACK carries none */
	WM_EXPECT_DROP(&p, true, 0, "drop_malformed");
}

TEST_F(wire, rc_opcode_to_ud_qp_dropped_and_counted)
{
	struct wp_pkt p;

	wp_bth(&p, WP_RC_SEND_ONLY, WP_PKEY, self->qp->qp_num, 0);
	wp_put(&p, "rc to ud", 8);
	WM_EXPECT_DROP(&p, true, 0, "drop_malformed");
}

static uint64_t wm_rng;

static uint32_t wm_rand(void)
{
	wm_rng ^= wm_rng << 13;
	wm_rng ^= wm_rng >> 7;
	wm_rng ^= wm_rng << 17;
	return wm_rng >> 16;
}

TEST_F_TIMEOUT(wire, random_packets_change_nothing, 300)
{
	const char *n_env = getenv("WM_FUZZ");
	int i, n = n_env ? atoi(n_env) : 3000;
	struct wp_pkt p;
	size_t len, j;
	uint8_t *b;

	wm_rng = time(NULL) | 1;
	TH_LOG("seed %llu", (unsigned long long)wm_rng);
	for (i = 0; i < n; i++) {
		len = wm_rand() % 300;
		b = wp_ib(&p);
		for (j = 0; j < len; j++)
			b[j] = wm_rand();
		p.ib_len = len < WP_BTH ? WP_BTH : len;
		if (i & 1) {
			/* Aim at our QP (or near it) to get past the lookup. */
			b[1] &= 0xf0;	/* TVer 0 */
			b[2] = b[3] = 0xff;
			b[5] = self->qp->qp_num >> 16;
			b[6] = self->qp->qp_num >> 8;
			b[7] = self->qp->qp_num + (wm_rand() % 3);
		}
		ASSERT_EQ(0, wp_send_raw(self->fd, self->peer, self->addr, &p, i & 1,
					 0));
	}
	/*
	 * Random UD SENDs with the right Q_Key can be well-formed: take
	 * whatever completions they made, then the control must still pass.
	 */
	usleep(200 * 1000);
	while (!wm_cq_empty(self))
		;
	ASSERT_EQ(0, wm_post_recv(self));
	wm_check_delivery(_metadata, self);
}

int main(int argc, char **argv)
{
	if (dp_own_setup(argv))
		ksft_print_msg("could not create a %s device; set DP_DEV\n",
			       getenv("DP_LINK_TYPE") ?: "vrnic");
	return test_harness_run(argc, argv);
}
