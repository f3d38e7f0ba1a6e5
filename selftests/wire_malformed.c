// SPDX-License-Identifier: GPL-2.0
/*
 * wire_malformed - what vrnic does with packets it must not trust.
 *
 * Hand-built RoCEv2 packets (IPv4 header included, so the test controls
 * every byte the ICRC covers) are sent from a raw socket to UDP port 4791
 * of an address of the device under test.  Each case checks the drop
 * counter of its reason in the port's hw_counters, and nothing else
 * happening: no completion on the live UD QP the packets aim at.
 *
 *  - positive control: a well-formed UD SEND with a correct ICRC is
 *    delivered (proves the test's ICRC and headers are right, so the
 *    drops below are for the reason each case names);
 *  - bad ICRC, unknown destination QP, wrong P_Key, wrong Q_Key;
 *  - malformed: truncated below BTH + ICRC, wrong transport version,
 *    unassigned opcode, extension headers longer than the packet, payload
 *    on an opcode that carries none, RC opcode to a UD QP;
 *  - fuzz: thousands of random packets (random BTH and body, half of them
 *    with a correct ICRC so they pass the first check), after which the
 *    positive control still works.  The VM runner fails the run on any
 *    kernel warning these cause.
 *
 * Environment: DP_DEV (default: a device the test creates on a veth, see
 * lib/dp_verbs.h), WM_FUZZ (number of fuzz packets, default 3000).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
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

#define WM_ROCE_PORT	4791
#define WM_QKEY		0x11111111
#define WM_PKEY		0xffff
#define WM_BTH		12
#define WM_DETH		8
#define WM_ICRC		4
#define WM_GRH		40
#define WM_UD_SEND_ONLY	0x64
#define WM_RC_SEND_ONLY	0x04
#define WM_RC_WRITE_FIRST 0x06
#define WM_RC_ACK	0x11

/* ---- ICRC (IBA A17.3.3): CRC-32 over the invariant fields ---- */

static uint32_t wm_crc_table[256];

static void wm_crc_init(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
		wm_crc_table[i] = c;
	}
}

static uint32_t wm_crc(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--)
		crc = wm_crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

/*
 * ICRC of a packet that starts with its IPv4 header: 8 bytes of ones for
 * the LRH RoCEv2 does not have, then IP, UDP and BTH with their variant
 * fields (TOS, TTL, IP checksum, UDP checksum, BTH resv8a) set to ones.
 */
static uint32_t wm_icrc(const uint8_t *pkt, size_t len)
{
	static const uint8_t lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	uint8_t hdr[20 + 8 + WM_BTH];
	uint32_t crc;

	memcpy(hdr, pkt, sizeof(hdr));
	hdr[1] = 0xff;				/* TOS */
	hdr[8] = 0xff;				/* TTL */
	hdr[10] = hdr[11] = 0xff;		/* IP checksum */
	hdr[20 + 6] = hdr[20 + 7] = 0xff;	/* UDP checksum */
	hdr[28 + 4] = 0xff;			/* BTH resv8a */
	crc = wm_crc(0xffffffff, lrh, sizeof(lrh));
	crc = wm_crc(crc, hdr, sizeof(hdr));
	crc = wm_crc(crc, pkt + sizeof(hdr), len - sizeof(hdr));
	return ~crc;
}

/* ---- packets ---- */

struct wm_pkt {
	uint8_t buf[2048];
	size_t ib_len;		/* bytes from the BTH on, ICRC excluded */
};

static uint8_t *wm_ib(struct wm_pkt *p)
{
	return p->buf + 20 + 8;
}

static void wm_bth(struct wm_pkt *p, uint8_t opcode, uint16_t pkey,
		   uint32_t qpn, uint32_t psn)
{
	uint8_t *b = wm_ib(p);

	b[0] = opcode;
	b[1] = 0;			/* SE 0, MigReq 0, pad 0, TVer 0 */
	b[2] = pkey >> 8;
	b[3] = pkey & 0xff;
	b[4] = 0;
	b[5] = qpn >> 16;
	b[6] = qpn >> 8;
	b[7] = qpn;
	b[8] = 0;
	b[9] = psn >> 16;
	b[10] = psn >> 8;
	b[11] = psn;
	p->ib_len = WM_BTH;
}

static void wm_put(struct wm_pkt *p, const void *data, size_t len)
{
	memcpy(wm_ib(p) + p->ib_len, data, len);
	p->ib_len += len;
}

static void wm_deth(struct wm_pkt *p, uint32_t qkey, uint32_t src_qpn)
{
	uint8_t d[WM_DETH] = {
		qkey >> 24, qkey >> 16, qkey >> 8, qkey,
		0, src_qpn >> 16, src_qpn >> 8, src_qpn,
	};

	wm_put(p, d, sizeof(d));
}

/*
 * Put IPv4 and UDP headers in front, an ICRC (right, or deliberately
 * wrong) behind, and send the packet to @dst port 4791.  @cut shortens
 * the UDP datagram by that many bytes (the ICRC first).
 */
static int wm_send(int fd, struct in_addr dst, struct wm_pkt *p,
		   bool good_icrc, size_t cut)
{
	static uint16_t id = 1;
	size_t udp_len = 8 + p->ib_len + WM_ICRC - cut;
	size_t len = 20 + udp_len;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = dst };
	uint8_t *ip = p->buf, *udp = p->buf + 20;
	uint32_t icrc;

	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = len >> 8;
	ip[3] = len & 0xff;
	ip[4] = id >> 8;		/* nonzero: the kernel keeps it */
	ip[5] = id & 0xff;
	id = id == 0xffff ? 1 : id + 1;
	ip[6] = 0x40;			/* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	memcpy(ip + 12, &dst, 4);	/* to ourselves, from ourselves */
	memcpy(ip + 16, &dst, 4);
	udp[0] = 0xc0;			/* source port 49152 */
	udp[1] = 0x00;
	udp[2] = WM_ROCE_PORT >> 8;
	udp[3] = WM_ROCE_PORT & 0xff;
	udp[4] = udp_len >> 8;
	udp[5] = udp_len & 0xff;
	udp[6] = udp[7] = 0;		/* no UDP checksum, as RoCEv2 sends */

	icrc = wm_icrc(p->buf, 20 + 8 + p->ib_len);
	if (!good_icrc)
		icrc ^= 0x5a5a5a5a;
	memcpy(wm_ib(p) + p->ib_len, &icrc, WM_ICRC);	/* little endian */
	if (sendto(fd, p->buf, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

/* ---- the device's counters ---- */

static long long wm_counter(const char *dev, const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Wait up to 2 s for @name to reach @want; return its last value. */
static long long wm_wait_counter(const char *dev, const char *name,
				 long long want)
{
	long long v = -1;
	int i;

	for (i = 0; i < 200; i++) {
		v = wm_counter(dev, name);
		if (v >= want)
			break;
		usleep(10 * 1000);
	}
	return v;
}

/* ---- fixture: a UD QP with a receive posted, and a raw socket ---- */

FIXTURE(wire) {
	struct dp_dev d;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct in_addr addr;
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
	const char *dev = getenv("DP_DEV");
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

	self->fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	ASSERT_LE(0, self->fd) TH_LOG("raw socket: %s", strerror(errno));
	wm_crc_init();
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
static void wm_ud_send(FIXTURE_DATA(wire) *self, struct wm_pkt *p,
		       uint32_t qkey, const char *payload)
{
	wm_bth(p, WM_UD_SEND_ONLY, WM_PKEY, self->qp->qp_num, 0);
	wm_deth(p, qkey, 0x123);
	wm_put(p, payload, strlen(payload));
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
		long long before = wm_counter(self->d.name, counter);	\
		ASSERT_LE(0, before) TH_LOG("no counter %s", counter);	\
		ASSERT_EQ(0, wm_send(self->fd, self->addr, p, good_icrc,\
				     cut));				\
		EXPECT_EQ(before + 1, wm_wait_counter(self->d.name,	\
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
	struct wm_pkt p;
	struct ibv_wc wc;
	int ret;

	memset(self->buf, 0, 4096);
	wm_ud_send(self, &p, WM_QKEY, msg);
	ASSERT_EQ(0, wm_send(self->fd, self->addr, &p, true, 0));
	ret = dp_poll(self->cq, &wc, 5000);
	ASSERT_EQ(0, ret) TH_LOG("well-formed packet not delivered (%d)",
				 ret);
	ASSERT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	EXPECT_EQ(WM_GRH + strlen(msg), wc.byte_len);
	EXPECT_EQ(0x123u, wc.src_qp);
	EXPECT_EQ(0, memcmp(self->buf + WM_GRH, msg, strlen(msg)));
	ASSERT_EQ(0, wm_post_recv(self));
}

TEST_F(wire, well_formed_ud_send_is_delivered)
{
	wm_check_delivery(_metadata, self);
}

TEST_F(wire, bad_icrc_dropped_and_counted)
{
	struct wm_pkt p;

	wm_ud_send(self, &p, WM_QKEY, "bad icrc");
	WM_EXPECT_DROP(&p, false, 0, "icrc_errors");
}

TEST_F(wire, unknown_qp_dropped_and_counted)
{
	struct wm_pkt p;

	wm_bth(&p, WM_UD_SEND_ONLY, WM_PKEY, 0xabcde, 0);
	wm_deth(&p, WM_QKEY, 0x123);
	wm_put(&p, "nobody", 6);
	WM_EXPECT_DROP(&p, true, 0, "drop_unknown_qp");
}

TEST_F(wire, wrong_pkey_dropped_and_counted)
{
	struct wm_pkt p;

	wm_bth(&p, WM_UD_SEND_ONLY, 0x1234, self->qp->qp_num, 0);
	wm_deth(&p, WM_QKEY, 0x123);
	wm_put(&p, "pkey", 4);
	WM_EXPECT_DROP(&p, true, 0, "drop_bad_pkey");
}

TEST_F(wire, wrong_qkey_dropped_and_counted)
{
	struct wm_pkt p;

	wm_ud_send(self, &p, 0x22222222, "qkey");
	WM_EXPECT_DROP(&p, true, 0, "drop_bad_qkey");
}

TEST_F(wire, truncated_packets_dropped_and_counted)
{
	size_t keep;
	struct wm_pkt p;

	/* 0 .. BTH + ICRC - 1 bytes of UDP payload. */
	for (keep = 0; keep < WM_BTH + WM_ICRC; keep++) {
		wm_ud_send(self, &p, WM_QKEY, "");
		p.ib_len = WM_BTH;
		WM_EXPECT_DROP(&p, true, WM_BTH + WM_ICRC - keep,
			       "drop_malformed");
	}
}

TEST_F(wire, wrong_transport_version_dropped_and_counted)
{
	struct wm_pkt p;

	wm_ud_send(self, &p, WM_QKEY, "tver");
	wm_ib(&p)[1] |= 0x1;	/* TVer 1 */
	WM_EXPECT_DROP(&p, true, 0, "drop_malformed");
}

TEST_F(wire, unassigned_opcode_dropped_and_counted)
{
	struct wm_pkt p;

	wm_ud_send(self, &p, WM_QKEY, "opcode");
	wm_ib(&p)[0] = 0x7f;	/* UD range, not assigned */
	WM_EXPECT_DROP(&p, true, 0, "drop_malformed");
}

TEST_F(wire, headers_longer_than_packet_dropped_and_counted)
{
	struct wm_pkt p;

	/* RDMA WRITE FIRST needs a 16-byte RETH; give it 4 bytes. */
	wm_bth(&p, WM_RC_WRITE_FIRST, WM_PKEY, self->qp->qp_num, 0);
	wm_put(&p, "RETH", 4);
	WM_EXPECT_DROP(&p, true, 0, "drop_malformed");
}

TEST_F(wire, payload_on_ack_dropped_and_counted)
{
	static const uint8_t aeth[4] = { 0x1f, 0, 0, 1 };
	struct wm_pkt p;

	wm_bth(&p, WM_RC_ACK, WM_PKEY, self->qp->qp_num, 0);
	wm_put(&p, aeth, sizeof(aeth));
	wm_put(&p, "data", 4);	/* an ACK carries none */
	WM_EXPECT_DROP(&p, true, 0, "drop_malformed");
}

TEST_F(wire, rc_opcode_to_ud_qp_dropped_and_counted)
{
	struct wm_pkt p;

	wm_bth(&p, WM_RC_SEND_ONLY, WM_PKEY, self->qp->qp_num, 0);
	wm_put(&p, "rc to ud", 8);
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
	struct wm_pkt p;
	size_t len, j;
	uint8_t *b;

	wm_rng = time(NULL) | 1;
	TH_LOG("seed %llu", (unsigned long long)wm_rng);
	for (i = 0; i < n; i++) {
		len = wm_rand() % 300;
		b = wm_ib(&p);
		for (j = 0; j < len; j++)
			b[j] = wm_rand();
		p.ib_len = len < WM_BTH ? WM_BTH : len;
		if (i & 1) {
			/* Aim at our QP (or near it) to get past the lookup. */
			b[1] &= 0xf0;	/* TVer 0 */
			b[2] = b[3] = 0xff;
			b[5] = self->qp->qp_num >> 16;
			b[6] = self->qp->qp_num >> 8;
			b[7] = self->qp->qp_num + (wm_rand() % 3);
		}
		ASSERT_EQ(0, wm_send(self->fd, self->addr, &p, i & 1, 0));
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
	if (!getenv("DP_DEV") && dp_own_setup())
		ksft_print_msg("could not create a %s device; set DP_DEV\n",
			       getenv("DP_LINK_TYPE") ?: "vrnic");
	return test_harness_run(argc, argv);
}
