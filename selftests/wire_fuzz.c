// SPDX-License-Identifier: GPL-2.0
/*
 * wire_fuzz - a flood of malformed and hostile RoCEv2 packets at a device
 * with a live RC connection: nothing breaks, every packet is counted as a
 * drop, and the connection carries on.
 *
 * A device pair over a veth (lib/own_pair.sh: DP_DEV here, DP_DEV2 in
 * its own namespace DP_NS) with an RC connection between them that a
 * thread keeps busy (SENDs, data checked).  From DP_DEV2's namespace, a raw
 * socket sends packets to DP_DEV's address over the veth (a real receive,
 * not the loopback path), from an address that is not the peer's (it
 * belongs to nobody), with sendmmsg() in batches:
 *
 *  - every one of the 256 opcodes, built valid first (the extension
 *    headers its IBA 9.2 layout has, in order, then payload and pad) and
 *    aimed at the live RC QP, at QP1 (with a wrong Q_Key), at QP0 or at an
 *    unused QPN, then mutated: kept whole with a random PSN; cut at every
 *    header boundary and one byte either side; bits flipped in the
 *    headers; a header field overwritten; pad count, transport version or
 *    P_Key changed; payload longer than any MTU; or replaced by random
 *    bytes.  One in sixteen gets a wrong ICRC, the others a correct one so
 *    that they reach the checks behind it.
 *
 * Every packet must end as a drop: the sum of the port's drop counters
 * (icrc_errors and every drop_*) grows by the number sent, less what the
 * network stack dropped before vrnic saw it (softnet backlog, IP and UDP
 * errors; reported, expected to be zero), and rx_packets (packets handed
 * to a QP) grows only by what the live peer sent.  The RC connection keeps
 * completing its SENDs with correct data during and after the flood.  The
 * VM runner fails the file on any kernel warning.
 *
 * Scale: WF_PACKETS packets (default 10^4 * VRNIC_STRESS_SCALE: 10^4 in
 * make check, 10^6 in make check-debug); WF_SEED fixes the generator.
 *
 * VRNIC_TIMEOUT=600
 * VRNIC_FULL_TIMEOUT=5400
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define VRNIC_TEST_TIMEOUT 86400	/* the runner's per-file timeout rules */
#include "vrnic_harness.h"

#define DP_PORT		1
#include "lib/dp_verbs.h"
#include "lib/wire_pkt.h"

#define WF_BATCH	32
#define WF_MSG		1024
#define WF_GSI_QKEY	0x80010000u

/* Extension headers (IBA 9.2), in the order they follow the BTH. */
enum {
	WF_DETH = 1 << 0,	/*  8 */
	WF_RETH = 1 << 1,	/* 16 */
	WF_ATMETH = 1 << 2,	/* 28 */
	WF_AETH = 1 << 3,	/*  4 */
	WF_ATMACK = 1 << 4,	/*  8 */
	WF_IMM = 1 << 5,	/*  4 */
	WF_IETH = 1 << 6,	/*  4 */
	WF_PAYLOAD = 1 << 7,
};

static const struct { int flag, len; } wf_ext[] = {
	{ WF_DETH, 8 }, { WF_RETH, 16 }, { WF_ATMETH, 28 }, { WF_AETH, 4 },
	{ WF_ATMACK, 8 }, { WF_IMM, 4 }, { WF_IETH, 4 },
};

/*
 * The headers of an RC or UC opcode (low 5 bits, IBA Table 38); -1 for
 * the unassigned ones.
 */
static int wf_rc_layout(int op)
{
	switch (op) {
	case 0x00: case 0x01: case 0x02: case 0x04:	/* SEND F/M/L/ONLY */
		return WF_PAYLOAD;
	case 0x03: case 0x05:				/* SEND .._IMM */
		return WF_IMM | WF_PAYLOAD;
	case 0x06: case 0x0a:				/* WRITE FIRST/ONLY */
		return WF_RETH | WF_PAYLOAD;
	case 0x07: case 0x08:				/* WRITE M/L */
		return WF_PAYLOAD;
	case 0x09:					/* WRITE LAST IMM */
		return WF_IMM | WF_PAYLOAD;
	case 0x0b:					/* WRITE ONLY IMM */
		return WF_RETH | WF_IMM | WF_PAYLOAD;
	case 0x0c:					/* READ REQUEST */
		return WF_RETH;
	case 0x0d: case 0x0f: case 0x10:		/* READ RESP F/L/O */
		return WF_AETH | WF_PAYLOAD;
	case 0x0e:					/* READ RESP M */
		return WF_PAYLOAD;
	case 0x11:					/* ACK */
		return WF_AETH;
	case 0x12:					/* ATOMIC ACK */
		return WF_AETH | WF_ATMACK;
	case 0x13: case 0x14:				/* CMP_SWAP, FADD */
		return WF_ATMETH;
	case 0x16: case 0x17:				/* SEND .._INV */
		return WF_IETH | WF_PAYLOAD;
	default:
		return -1;
	}
}

/* Header layout of any opcode; unassigned ones get a random guess. */
static int wf_layout(int opcode)
{
	int t = opcode >> 5, op = opcode & 0x1f;

	switch (t) {
	case 0:		/* RC */
		return wf_rc_layout(op);
	case 1:		/* UC: SENDs and WRITEs only */
		return op <= 0x0b && op != 0x0c ? wf_rc_layout(op) : -1;
	case 3:		/* UD */
		if (op == 0x04)
			return WF_DETH | WF_PAYLOAD;
		if (op == 0x05)
			return WF_DETH | WF_IMM | WF_PAYLOAD;
		return -1;
	default:	/* RD, CNP, reserved, manufacturer */
		return -1;
	}
}

/* ---- the generator ---- */

static void wf_fill(uint8_t *p, size_t n)
{
	while (n--)
		*p++ = wp_rand();
}

struct wf_target {
	uint32_t rc_qpn;	/* the live QP */
	uint32_t unused_qpn;
};

enum { WF_KEEP, WF_CUT, WF_FLIP, WF_FIELD, WF_BTHBITS, WF_LONG, WF_RANDOM,
	WF_NMUT };

/* Build packet number @i into @p; return whether its ICRC is good. */
static bool wf_build(struct wp_pkt *p, const struct wf_target *t, long i,
		     long *mut_count, size_t *cut)
{
	int opcode = i & 0xff, layout, k, mut, nb = 0;
	size_t bounds[12], hlen, plen, pad = 0;
	uint8_t *b = wp_ib(p);
	uint32_t qpn;

	*cut = 0;
	layout = wf_layout(opcode);
	if (layout < 0)
		layout = wp_rand() & 0xff;	/* unassigned: any headers */

	switch (wp_rand() % 4) {
	case 0:
		qpn = 1;
		break;
	case 1:
		qpn = wp_rand() % 2 ? 0 : t->unused_qpn;
		break;
	default:
		qpn = t->rc_qpn;
		break;
	}
	/* BTH: opcode, SE/M/pad/TVer, P_Key, resv8a, QPN, A/resv7, PSN */
	b[0] = opcode;
	b[1] = 0;
	b[2] = 0xff;
	b[3] = 0xff;
	b[4] = 0;
	b[5] = qpn >> 16;
	b[6] = qpn >> 8;
	b[7] = qpn;
	b[8] = wp_rand() & 0x80;
	wf_fill(b + 9, 3);		/* PSN */
	hlen = WP_BTH;
	bounds[nb++] = hlen;
	for (k = 0; k < (int)(sizeof(wf_ext) / sizeof(wf_ext[0])); k++) {
		if (!(layout & wf_ext[k].flag))
			continue;
		wf_fill(b + hlen, wf_ext[k].len);
		if (wf_ext[k].flag == WF_DETH) {
			/* A Q_Key nobody has: UD to QP1 must not get in. */
			uint32_t qkey = WF_GSI_QKEY ^ (1 + wp_rand() % 0xffff);

			b[hlen] = qkey >> 24;
			b[hlen + 1] = qkey >> 16;
			b[hlen + 2] = qkey >> 8;
			b[hlen + 3] = qkey;
		}
		hlen += wf_ext[k].len;
		bounds[nb++] = hlen;
	}
	plen = 0;
	if (layout & WF_PAYLOAD) {
		plen = wp_rand() % 3 ? wp_rand() % 300 : wp_rand() % 2048;
		pad = (4 - plen % 4) % 4;
		b[1] |= pad << 4;
	}
	wf_fill(b + hlen, plen + pad);
	p->ib_len = hlen + plen + pad;

	mut = wp_rand() % WF_NMUT;
	mut_count[mut]++;
	switch (mut) {
	case WF_KEEP:		/* valid layout, hostile PSN and source */
		break;
	case WF_CUT: {		/* at a header boundary, or one byte off */
		size_t at = bounds[wp_rand() % nb];
		int off = (int)(wp_rand() % 3) - 1;

		if (at + off < p->ib_len)
			p->ib_len = at + off;
		else
			p->ib_len = at > 1 ? at - 1 : 0;
		if (p->ib_len < WP_BTH) {
			/* shorter than a BTH: cut the datagram itself */
			*cut = WP_BTH - p->ib_len + WP_ICRC;
			p->ib_len = WP_BTH;
		}
		break;
	}
	case WF_FLIP:		/* 1..8 bits anywhere in the headers */
		for (k = 1 + wp_rand() % 8; k > 0; k--)
			b[wp_rand() % hlen] ^= 1 << (wp_rand() % 8);
		break;
	case WF_FIELD:		/* a 32-bit word of the headers replaced */
		k = wp_rand() % (hlen / 4);
		wf_fill(b + 4 * k, 4);
		if (k == 1) {	/* keep the QPN aimed, the rest random */
			b[5] = qpn >> 16;
			b[6] = qpn >> 8;
			b[7] = qpn;
		}
		break;
	case WF_BTHBITS:	/* pad count, TVer, P_Key */
		b[1] = wp_rand();
		if (wp_rand() % 2) {
			b[2] = wp_rand();
			b[3] = wp_rand();
		}
		break;
	case WF_LONG:		/* more payload than any MTU */
		p->ib_len = hlen + 4096 + 4 * (1 + wp_rand() % 20);
		if (p->ib_len > WP_MAX_IB)
			p->ib_len = WP_MAX_IB;
		wf_fill(b + hlen, p->ib_len - hlen);
		break;
	case WF_RANDOM:		/* random bytes, some aimed at the QP */
		p->ib_len = WP_BTH + wp_rand() % 400;
		wf_fill(b, p->ib_len);
		if (wp_rand() % 2) {
			b[1] &= 0xf0;
			b[2] = b[3] = 0xff;
			b[5] = qpn >> 16;
			b[6] = qpn >> 8;
			b[7] = qpn;
		}
		break;
	}
	return wp_rand() % 16 != 0;
}

/* ---- counters ---- */

/* Every drop counter the port has: icrc_errors and drop_*. */
static long long wf_drops(const char *dev)
{
	char path[256];
	struct dirent *e;
	long long sum = 0;
	DIR *d;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters", dev);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "drop_", 5) &&
		    strcmp(e->d_name, "icrc_errors"))
			continue;
		sum += wp_counter(dev, e->d_name);
	}
	closedir(d);
	return sum;
}

/*
 * Packets the network stack of the current namespace dropped before a
 * UDP socket saw them: softnet backlog overflows (all CPUs), IP header,
 * address and discard errors, UDP errors.
 */
static long long wf_stack_drops(void)
{
	char line[1024], hdr[1024];
	long long sum = 0;
	unsigned int a, b;
	FILE *f;

	f = fopen("/proc/net/softnet_stat", "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "%x %x", &a, &b) == 2)
				sum += b;
		fclose(f);
	}
	f = fopen("/proc/net/snmp", "r");
	if (!f)
		return sum;
	while (fgets(hdr, sizeof(hdr), f) && fgets(line, sizeof(line), f)) {
		char *hs, *vs, *h, *v;
		bool ip = !strncmp(hdr, "Ip:", 3), udp = !strncmp(hdr, "Udp:", 4);

		if (!ip && !udp)
			continue;
		h = strtok_r(hdr, " \n", &hs);
		v = strtok_r(line, " \n", &vs);
		while ((h = strtok_r(NULL, " \n", &hs)) &&
		       (v = strtok_r(NULL, " \n", &vs))) {
			if ((ip && (!strcmp(h, "InHdrErrors") ||
				    !strcmp(h, "InAddrErrors") ||
				    !strcmp(h, "InDiscards") ||
				    !strcmp(h, "InUnknownProtos"))) ||
			    (udp && (!strcmp(h, "InErrors") ||
				     !strcmp(h, "NoPorts"))))
				sum += atoll(v);
		}
	}
	fclose(f);
	return sum;
}

/* ---- the live connection ---- */

struct wf_live {
	struct dp_dev a, b;
	struct dp_qp qa, qb;
	uint8_t *sbuf, *rbuf;
	struct ibv_mr *smr, *rmr;
	atomic_long ops;
	atomic_bool stop;
	int err;
	char why[160];
};

static int wf_post_recv(struct wf_live *l)
{
	struct ibv_sge sge = { .addr = (uintptr_t)l->rbuf, .length = WF_MSG,
			       .lkey = l->rmr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(l->qb.qp, &wr, &bad);
}

/* One SEND A -> B with a fresh pattern, checked at B; 0 or -errno. */
static int wf_round_trip(struct wf_live *l, uint32_t seq)
{
	struct ibv_sge sge = { .addr = (uintptr_t)l->sbuf, .length = WF_MSG,
			       .lkey = l->smr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int i, ret;

	for (i = 0; i < WF_MSG / 4; i++)
		((uint32_t *)l->sbuf)[i] = seq * 2654435761u + i;
	ret = ibv_post_send(l->qa.qp, &wr, &bad);
	if (ret) {
		snprintf(l->why, sizeof(l->why), "post_send: %s",
			 strerror(ret));
		return -ret;
	}
	ret = dp_poll(l->qa.cq, &wc, dp_timeout_ms());
	if (!ret && wc.status != IBV_WC_SUCCESS)
		ret = -EIO;
	if (ret) {
		snprintf(l->why, sizeof(l->why), "send %u: %s", seq,
			 ret == -EIO ? ibv_wc_status_str(wc.status) :
			 "timed out");
		return ret;
	}
	ret = dp_poll(l->qb.cq, &wc, dp_timeout_ms());
	if (!ret && wc.status != IBV_WC_SUCCESS)
		ret = -EIO;
	if (ret) {
		snprintf(l->why, sizeof(l->why), "recv %u: %s", seq,
			 ret == -EIO ? ibv_wc_status_str(wc.status) :
			 "timed out");
		return ret;
	}
	if (memcmp(l->sbuf, l->rbuf, WF_MSG)) {
		snprintf(l->why, sizeof(l->why), "recv %u: data differs", seq);
		return -EBADMSG;
	}
	return wf_post_recv(l) ? -EIO : 0;
}

static void *wf_live_run(void *arg)
{
	struct wf_live *l = arg;
	uint32_t seq = 0;

	while (!atomic_load(&l->stop)) {
		l->err = wf_round_trip(l, ++seq);
		if (l->err)
			break;
		atomic_fetch_add(&l->ops, 1);
	}
	return NULL;
}

static int wf_live_setup(struct wf_live *l, const char *a, const char *b)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

	if (dp_dev_open(&l->a, a, AF_INET) || dp_dev_open(&l->b, b, AF_INET))
		return -1;
	if (dp_qp_create(&l->qa, &l->a, 1, access) ||
	    dp_qp_create(&l->qb, &l->b, 1, access) ||
	    dp_qp_connect(&l->qa, &l->qb, IBV_MTU_1024, 1000, 2000) ||
	    dp_qp_connect(&l->qb, &l->qa, IBV_MTU_1024, 2000, 1000))
		return -1;
	l->sbuf = calloc(1, WF_MSG);
	l->rbuf = calloc(1, WF_MSG);
	if (!l->sbuf || !l->rbuf)
		return -1;
	l->smr = ibv_reg_mr(l->a.pd, l->sbuf, WF_MSG, access);
	l->rmr = ibv_reg_mr(l->b.pd, l->rbuf, WF_MSG, access);
	if (!l->smr || !l->rmr)
		return -1;
	return wf_post_recv(l);
}

static void wf_live_teardown(struct wf_live *l)
{
	if (l->smr)
		ibv_dereg_mr(l->smr);
	if (l->rmr)
		ibv_dereg_mr(l->rmr);
	dp_qp_destroy(&l->qa);
	dp_qp_destroy(&l->qb);
	dp_dev_close(&l->a);
	dp_dev_close(&l->b);
	free(l->sbuf);
	free(l->rbuf);
}

static double wf_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

TEST(flood_of_malformed_packets_all_dropped_live_qp_unharmed)
{
	static const char *const mut_name[WF_NMUT] = {
		"whole", "cut", "bit flips", "field", "BTH bits", "too long",
		"random",
	};
	const char *dev = getenv("DP_DEV"), *dev2 = getenv("DP_DEV2");
	const char *ns = getenv("DP_NS");
	long scale = getenv("VRNIC_STRESS_SCALE") ?
		     atol(getenv("VRNIC_STRESS_SCALE")) : 1;
	long n = getenv("WF_PACKETS") ? atol(getenv("WF_PACKETS")) :
		 10000 * scale;
	long mut_count[WF_NMUT] = { 0 }, sent = 0, ops0, i;
	long long drops0, drops1, rx0, rx1, ptx0, ptx1, st0, st1;
	struct wp_pkt *pkts;
	struct mmsghdr msgs[WF_BATCH];
	struct iovec iov[WF_BATCH];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct in_addr src;
	struct wf_target tgt;
	struct wf_live l;
	pthread_t th;
	char dst_s[INET_ADDRSTRLEN], src_s[INET_ADDRSTRLEN];
	uint16_t id = 1;
	double t0, secs;
	int fd, k;

	if (!dev || !dev2 || !ns)
		SKIP(return, "needs a device pair (DP_DEV, DP_DEV2 and DP_NS, see lib/own_pair.sh)");
	memset(&l, 0, sizeof(l));
	ASSERT_EQ(0, wf_live_setup(&l, dev, dev2))
		TH_LOG("live connection: %s", strerror(errno));
	ASSERT_EQ(0, wf_round_trip(&l, 0)) TH_LOG("%s", l.why);

	/* To the device's address from one on its subnet that nobody has. */
	memcpy(&sa.sin_addr, l.a.gid.raw + 12, 4);
	src.s_addr = htonl((ntohl(sa.sin_addr.s_addr) & ~0xffu) | 0x7b);
	fd = wp_socket_in(ns, AF_INET, SOCK_RAW, IPPROTO_RAW);
	ASSERT_LE(0, fd) TH_LOG("raw socket in %s: %s", ns, strerror(-fd));

	tgt.rc_qpn = l.qa.qp->qp_num;
	tgt.unused_qpn = (tgt.rc_qpn + 0x1000) & 0xffffff;
	wp_rng = getenv("WF_SEED") ? strtoull(getenv("WF_SEED"), NULL, 0) :
		 (uint64_t)time(NULL) | 1;
	inet_ntop(AF_INET, &sa.sin_addr, dst_s, sizeof(dst_s));
	inet_ntop(AF_INET, &src, src_s, sizeof(src_s));
	ksft_print_msg("%ld packets to %s (QPN %#x) from %s, seed %llu\n", n,
		       dst_s, tgt.rc_qpn, src_s, (unsigned long long)wp_rng);
	pkts = calloc(WF_BATCH, sizeof(*pkts));
	ASSERT_NE(NULL, pkts);
	vrnic_sh("rdma statistic show link %s/1 | sed 's/^/# before: /'", dev);

	/*
	 * The baselines are read while the connection is idle (its round
	 * trip above has completed, and its last ACK had time to land), as
	 * the final values are: read while it runs, a peer packet counted
	 * by one device and still in flight to the other would show up as
	 * an injected one.
	 */
	usleep(200 * 1000);
	drops0 = wf_drops(dev);
	rx0 = wp_counter(dev, "rx_packets");
	ptx0 = wp_counter(dev2, "tx_packets");
	st0 = wf_stack_drops();
	ASSERT_EQ(0, pthread_create(&th, NULL, wf_live_run, &l));
	while (atomic_load(&l.ops) < 2 && !l.err)
		usleep(1000);
	ops0 = atomic_load(&l.ops);
	t0 = wf_now();

	for (i = 0; i < n && !l.err; i += WF_BATCH) {
		int cnt = n - i < WF_BATCH ? n - i : WF_BATCH, done = 0, r;

		for (k = 0; k < cnt; k++) {
			size_t cut, len;
			bool good = wf_build(&pkts[k], &tgt, i + k, mut_count,
					     &cut);

			/* a nonzero IP ID: the kernel keeps it */
			len = 20 + 8 + wp_finish(&pkts[k], src, sa.sin_addr,
						 49152, id, good, cut);
			id = id == 0xffff ? 1 : id + 1;
			iov[k].iov_base = pkts[k].buf;
			iov[k].iov_len = len;
			memset(&msgs[k], 0, sizeof(msgs[k]));
			msgs[k].msg_hdr.msg_name = &sa;
			msgs[k].msg_hdr.msg_namelen = sizeof(sa);
			msgs[k].msg_hdr.msg_iov = &iov[k];
			msgs[k].msg_hdr.msg_iovlen = 1;
		}
		while (done < cnt) {
			r = sendmmsg(fd, msgs + done, cnt - done, 0);
			ASSERT_LT(0, r) TH_LOG("sendmmsg: %s", strerror(errno));
			done += r;
		}
		sent += cnt;
		/* Let the softirq drain the veth backlog now and then. */
		if (!(i % (WF_BATCH * 8)))
			sched_yield();
	}
	secs = wf_now() - t0;
	/* The flood is over: the connection must still work, now. */
	usleep(500 * 1000);
	atomic_store(&l.stop, true);
	pthread_join(th, NULL);
	EXPECT_EQ(0, l.err) TH_LOG("live connection: %s", l.why);
	EXPECT_LT(ops0, atomic_load(&l.ops))
		TH_LOG("no round trip completed during the flood");
	ASSERT_EQ(0, wf_round_trip(&l, 0xfffff)) TH_LOG("after: %s", l.why);

	sleep(1);
	drops1 = wf_drops(dev);
	rx1 = wp_counter(dev, "rx_packets");
	ptx1 = wp_counter(dev2, "tx_packets");
	st1 = wf_stack_drops();
	vrnic_sh("rdma statistic show link %s/1 | sed 's/^/# after: /'", dev);
	ksft_print_msg("%ld packets in %.1f s (%.0f/s); %ld round trips on the live QP meanwhile\n",
		       sent, secs, sent / secs, atomic_load(&l.ops) - ops0);
	for (k = 0; k < WF_NMUT; k++)
		ksft_print_msg("  %-10s %ld\n", mut_name[k], mut_count[k]);
	ksft_print_msg("drop counters +%lld, rx_packets +%lld (peer sent +%lld), dropped by the stack +%lld\n",
		       drops1 - drops0, rx1 - rx0, ptx1 - ptx0, st1 - st0);
	/*
	 * Every packet sent either reached vrnic and was counted as a drop,
	 * or (reported above) was lost before it; none reached a QP: the
	 * QP-level packets are exactly the peer's.
	 */
	EXPECT_EQ(sent - (st1 - st0), drops1 - drops0)
		TH_LOG("%lld of %ld packets not counted as drops",
		       sent - (st1 - st0) - (drops1 - drops0), sent);
	EXPECT_EQ(ptx1 - ptx0, rx1 - rx0)
		TH_LOG("%lld injected packets were handed to a QP",
		       (rx1 - rx0) - (ptx1 - ptx0));
	free(pkts);
	close(fd);
	wf_live_teardown(&l);
}

int main(int argc, char **argv)
{
	/* The figures are the point: keep them when a case fails. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (dp_own_setup(argv))
		ksft_print_msg("could not create a device pair; set DP_DEV\n");
	return test_harness_run(argc, argv);
}
