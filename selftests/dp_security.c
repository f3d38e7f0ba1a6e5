// SPDX-License-Identifier: GPL-2.0
/*
 * dp_security - a remote peer touches only memory it holds a valid rkey
 * for, within bounds and with the access rights granted.
 *
 * The responder's region sits in the middle of a larger anonymous mapping:
 * one guard page before it and one after, all filled with a pattern.  Each
 * test performs one RC operation that must be rejected (out of bounds by a
 * single byte, before the start, wrong rkey, rkey of a deregistered MR, MR
 * or QP without the access right, misaligned atomic) and checks the
 * requester's completion status and that not one byte of the mapping
 * changed.  Positive controls touch the first and last byte of the region
 * so that an off-by-one in the bounds check fails too.  Local errors (bad
 * lkey, receive or READ sink without LOCAL_WRITE) must complete with a
 * local protection error.
 *
 * Environment: DP_DEV (default: a device created by the test itself on a
 * veth, type $DP_LINK_TYPE, default vrnic), DP_DEV2 for the pair variant
 * (DP_DEV is the requester, DP_DEV2 the responder), DP_DEV_TYPE and
 * DP_DEV2_TYPE (their types when they differ from DP_LINK_TYPE), DP_ONLY
 * (run only the "loopback" or the "pair" variant), DP_TIMEOUT_MS
 * (completion timeout, default 60000).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "kselftest_harness.h"

#define DP_PORT		1
#define DP_QP_ACCESS	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			 IBV_ACCESS_REMOTE_ATOMIC)

/* ---- device and QP plumbing (the same in dp_random.c) ---- */

struct dp_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	union ibv_gid gid;
	int gid_idx;
	char name[IBV_SYSFS_NAME_MAX];
};

struct dp_qp {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct dp_dev *dev;
};

static int dp_timeout_ms(void)
{
	const char *s = getenv("DP_TIMEOUT_MS");

	return s ? atoi(s) : 60000;
}

static bool dp_gid_is_v4(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, pfx, sizeof(pfx));
}

/*
 * Find the RoCE v2 GID of @family (AF_INET: IPv4-mapped, AF_INET6: global
 * IPv6, link-local excluded) on port 1.  GIDs appear asynchronously after an
 * address is added, so wait a little for one.
 */
static int dp_find_gid(struct dp_dev *d, int family)
{
	struct ibv_port_attr pattr;
	struct ibv_gid_entry ent;
	int try, i;

	for (try = 0; try < 100; try++) {
		if (ibv_query_port(d->ctx, DP_PORT, &pattr))
			return -errno;
		for (i = 0; i < pattr.gid_tbl_len; i++) {
			if (ibv_query_gid_ex(d->ctx, DP_PORT, i, &ent, 0))
				continue;
			if (ent.gid_type != IBV_GID_TYPE_ROCE_V2)
				continue;
			if (family == AF_INET && !dp_gid_is_v4(&ent.gid))
				continue;
			if (family == AF_INET6 &&
			    (dp_gid_is_v4(&ent.gid) ||
			     (ent.gid.raw[0] == 0xfe &&
			      (ent.gid.raw[1] & 0xc0) == 0x80)))
				continue;
			d->gid = ent.gid;
			d->gid_idx = i;
			return 0;
		}
		usleep(100 * 1000);
	}
	return -ENOENT;
}

static void dp_dev_close(struct dp_dev *d)
{
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
	memset(d, 0, sizeof(*d));
}

static int dp_dev_open(struct dp_dev *d, const char *name, int family)
{
	struct ibv_device **list;
	int i, n, ret = -ENODEV;

	memset(d, 0, sizeof(*d));
	list = ibv_get_device_list(&n);
	if (!list)
		return -errno;
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), name))
			continue;
		d->ctx = ibv_open_device(list[i]);
		ret = d->ctx ? 0 : -errno;
		break;
	}
	ibv_free_device_list(list);
	if (ret)
		return ret;
	snprintf(d->name, sizeof(d->name), "%s", name);
	if (ibv_query_device(d->ctx, &d->attr)) {
		ret = -errno;
		goto err_close;
	}
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd) {
		ret = -errno;
		goto err_close;
	}
	ret = dp_find_gid(d, family);
	if (ret)
		goto err_close;
	return 0;

err_close:
	dp_dev_close(d);
	return ret;
}

static void dp_qp_destroy(struct dp_qp *q)
{
	if (q->qp)
		ibv_destroy_qp(q->qp);
	if (q->cq)
		ibv_destroy_cq(q->cq);
	memset(q, 0, sizeof(*q));
}

static int dp_qp_create(struct dp_qp *q, struct dp_dev *d, int max_sge,
			int qp_access)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = 16,
			.max_send_sge = max_sge,
			.max_recv_sge = max_sge,
		},
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = DP_PORT,
		.qp_access_flags = qp_access,
	};
	int ret;

	memset(q, 0, sizeof(*q));
	q->dev = d;
	q->cq = ibv_create_cq(d->ctx, 64, NULL, NULL, 0);
	if (!q->cq)
		return -errno;
	ia.send_cq = q->cq;
	ia.recv_cq = q->cq;
	q->qp = ibv_create_qp(d->pd, &ia);
	if (!q->qp) {
		ret = -errno;
		goto err_destroy;
	}
	ret = ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		goto err_destroy;
	return 0;

err_destroy:
	dp_qp_destroy(q);
	return ret > 0 ? -ret : ret;
}

/* INIT -> RTR -> RTS towards @peer, RoCE v2 addressing through its GID. */
static int dp_qp_connect(struct dp_qp *q, struct dp_qp *peer, enum ibv_mtu mtu,
			 uint32_t sq_psn, uint32_t rq_psn)
{
	int rd = q->dev->attr.max_qp_rd_atom < 16 ?
		 q->dev->attr.max_qp_rd_atom : 16;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu,
		.dest_qp_num = peer->qp->qp_num,
		.rq_psn = rq_psn,
		.max_dest_rd_atomic = rd,
		.min_rnr_timer = 1,
		.ah_attr = {
			.is_global = 1,
			.port_num = DP_PORT,
			.grh = {
				.dgid = peer->dev->gid,
				.sgid_index = q->dev->gid_idx,
				.hop_limit = 64,
			},
		},
	};
	int ret;

	ret = ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return -ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = 14;		/* 4.096us << 14 = 67ms */
	a.retry_cnt = 7;
	a.rnr_retry = 7;	/* infinite */
	a.max_rd_atomic = rd;
	return -ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			      IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Busy-poll one completion; 0, or -ETIMEDOUT / -EIO. */
static int dp_poll(struct ibv_cq *cq, struct ibv_wc *wc, int timeout_ms)
{
	struct timespec t0, t;
	int n, spin;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (spin = 0;; spin++) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return -EIO;
		if (n == 1)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 > timeout_ms)
			return -ETIMEDOUT;
		/* leave the CPUs to a software device's kernel threads */
		if (spin > 100)
			usleep(100);
	}
}

/* ---- self-setup when no device is given ---- */

static char dp_own_dev[32], dp_own_veth[16];

static int dp_sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static void dp_own_teardown(void)
{
	if (dp_own_dev[0])
		dp_sh("rdma link delete %s 2>/dev/null", dp_own_dev);
	if (dp_own_veth[0])
		dp_sh("ip link delete %s 2>/dev/null", dp_own_veth);
}

/*
 * Create a veth pair and one device of type $DP_LINK_TYPE on it for the
 * loopback variants.  Addresses are from TEST-NET-style private ranges that
 * exist only on this veth.
 */
static int dp_own_setup(void)
{
	const char *type = getenv("DP_LINK_TYPE") ?: "vrnic";
	int id = getpid() % 10000;

	snprintf(dp_own_veth, sizeof(dp_own_veth), "dpr%da", id);
	snprintf(dp_own_dev, sizeof(dp_own_dev), "dprnd%d", id);
	atexit(dp_own_teardown);
	if (dp_sh("ip link add %s mtu 9000 type veth peer name dpr%db mtu 9000",
		  dp_own_veth, id) ||
	    dp_sh("ip link set dpr%db up && ip link set %s up", id,
		  dp_own_veth) ||
	    dp_sh("ip addr add 10.79.%d.%d/24 dev %s", id / 256,
		  id % 256 ?: 1, dp_own_veth) ||
	    dp_sh("ip -6 addr add fd79::%x/64 nodad dev %s", id + 1,
		  dp_own_veth) ||
	    dp_sh("rdma link add %s type %s netdev %s", dp_own_dev, type,
		  dp_own_veth)) {
		dp_own_dev[0] = 0;
		return -1;
	}
	setenv("DP_DEV", dp_own_dev, 1);
	return 0;
}

/* ---- the tests ---- */

#define SEC_PAGE	4096
#define SEC_REGION	(2 * SEC_PAGE)
#define SEC_MAP		(SEC_REGION + 2 * SEC_PAGE)
#define SEC_ALL_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

FIXTURE(dp_security) {
	struct dp_dev da, db;
	struct dp_dev *a, *b;		/* requester, responder (b == a: loopback) */
	struct dp_qp qa, qb;
	uint8_t *map;			/* guard page | region | guard page */
	uint8_t *region;
	uint8_t *shadow;		/* what the mapping must contain */
	uint8_t *lbuf;			/* requester's buffer */
	struct ibv_mr *lmr;
	struct ibv_mr *rmr;		/* on region, access set per test */
	bool ready;
};

FIXTURE_VARIANT(dp_security) {
	const char *name;
	bool pair;
};

FIXTURE_VARIANT_ADD(dp_security, loopback) {
	.name = "loopback",
	.pair = false,
};

FIXTURE_VARIANT_ADD(dp_security, pair) {
	.name = "pair",
	.pair = true,
};

FIXTURE_SETUP(dp_security)
{
	const char *dev = getenv("DP_DEV"), *dev2 = getenv("DP_DEV2");
	const char *only = getenv("DP_ONLY");
	size_t i;
	int ret;

	memset(self, 0, sizeof(*self));
	if (only && strcmp(only, variant->name))
		SKIP(return, "DP_ONLY=%s", only);
	ASSERT_NE(NULL, dev) TH_LOG("DP_DEV not set and self-setup failed");
	if (variant->pair && !dev2)
		SKIP(return, "DP_DEV2 not set: no device pair");
	ret = dp_dev_open(&self->da, dev, AF_INET);
	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", dev, strerror(-ret));
	self->a = self->b = &self->da;
	if (variant->pair) {
		ret = dp_dev_open(&self->db, dev2, AF_INET);
		ASSERT_EQ(0, ret) TH_LOG("open %s: %s", dev2, strerror(-ret));
		self->b = &self->db;
	}

	self->map = mmap(NULL, SEC_MAP, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->map);
	self->region = self->map + SEC_PAGE;
	self->shadow = malloc(SEC_MAP);
	ASSERT_NE(NULL, self->shadow);
	for (i = 0; i < SEC_MAP; i++)
		self->map[i] = 0xa5 ^ (i * 7) ^ (i >> 8);
	memcpy(self->shadow, self->map, SEC_MAP);

	self->lbuf = mmap(NULL, SEC_MAP, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->lbuf);
	for (i = 0; i < SEC_MAP; i++)
		self->lbuf[i] = 0x3c + i;
	self->lmr = ibv_reg_mr(self->a->pd, self->lbuf, SEC_MAP,
			       SEC_ALL_ACCESS);
	ASSERT_NE(NULL, self->lmr) TH_LOG("reg_mr: %s", strerror(errno));

	ASSERT_EQ(0, dp_qp_create(&self->qa, self->a, 2, DP_QP_ACCESS));
	ASSERT_EQ(0, dp_qp_create(&self->qb, self->b, 2, DP_QP_ACCESS));
	ASSERT_EQ(0, dp_qp_connect(&self->qa, &self->qb, IBV_MTU_1024,
				   0x123, 0x456));
	ASSERT_EQ(0, dp_qp_connect(&self->qb, &self->qa, IBV_MTU_1024,
				   0x456, 0x123));
	self->ready = true;
}

FIXTURE_TEARDOWN(dp_security)
{
	dp_qp_destroy(&self->qa);
	dp_qp_destroy(&self->qb);
	if (self->rmr)
		ibv_dereg_mr(self->rmr);
	if (self->lmr)
		ibv_dereg_mr(self->lmr);
	if (self->lbuf && self->lbuf != MAP_FAILED)
		munmap(self->lbuf, SEC_MAP);
	if (self->map && self->map != MAP_FAILED)
		munmap(self->map, SEC_MAP);
	free(self->shadow);
	dp_dev_close(&self->db);
	dp_dev_close(&self->da);
}

/* Register the responder's region with @access (0: leave unregistered). */
static void sec_reg(struct __test_metadata *_metadata,
		    FIXTURE_DATA(dp_security) *self, int access)
{
	self->rmr = ibv_reg_mr(self->b->pd, self->region, SEC_REGION, access);
	ASSERT_NE(NULL, self->rmr) TH_LOG("reg_mr(%#x): %s", access,
					  strerror(errno));
}

static uint64_t sec_va(FIXTURE_DATA(dp_security) *self, long off)
{
	return (uintptr_t)self->region + off;
}

/*
 * Post one signaled WR on the requester and return its completion status
 * (or -1 when none arrived in time).
 */
static int sec_post(struct __test_metadata *_metadata,
		    FIXTURE_DATA(dp_security) *self, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int ret;

	ret = ibv_post_send(self->qa.qp, wr, &bad);
	ASSERT_EQ(0, ret) TH_LOG("post_send: %s", strerror(ret));
	ret = dp_poll(self->qa.cq, &wc, dp_timeout_ms());
	if (ret)
		return -1;
	if (wc.status != IBV_WC_SUCCESS)
		TH_LOG("requester completion: %s", ibv_wc_status_str(wc.status));
	return wc.status;
}

/* RDMA WRITE or READ of @len bytes at region offset @off. */
static int sec_rdma(struct __test_metadata *_metadata,
		    FIXTURE_DATA(dp_security) *self, enum ibv_wr_opcode op,
		    long off, uint32_t len, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->lbuf + SEC_PAGE,
		.length = len,
		.lkey = self->lmr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1,
		.opcode = op,
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = sec_va(self, off), .rkey = rkey },
	};

	return sec_post(_metadata, self, &wr);
}

/* Fetch-and-add 1 on the 8 bytes at region offset @off. */
static int sec_atomic(struct __test_metadata *_metadata,
		      FIXTURE_DATA(dp_security) *self, long off, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->lbuf,
		.length = 8,
		.lkey = self->lmr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 2,
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = {
			.remote_addr = sec_va(self, off),
			.compare_add = 1,
			.rkey = rkey,
		},
	};

	return sec_post(_metadata, self, &wr);
}

/* The whole mapping, guard pages included, must match the shadow. */
#define ASSERT_UNTOUCHED() do { \
	long __i; \
	for (__i = 0; __i < SEC_MAP; __i++) \
		if (self->map[__i] != self->shadow[__i]) \
			break; \
	ASSERT_EQ(SEC_MAP, __i) \
		TH_LOG("byte at mapping offset %ld (region offset %ld) changed", \
		       __i, __i - SEC_PAGE); \
} while (0)

static bool sec_has_atomics(FIXTURE_DATA(dp_security) *self)
{
	return self->b->attr.atomic_cap != IBV_ATOMIC_NONE &&
	       self->a->attr.atomic_cap != IBV_ATOMIC_NONE;
}

/*
 * Where rdma_rxe on 6.1 deviates from the IBA, its result is reported as a
 * SKIP naming the deviation; every other device still has to meet the
 * assertion that follows.  The device types of the two sides are
 * DP_DEV_TYPE and DP_DEV2_TYPE, both defaulting to DP_LINK_TYPE.
 */
static bool sec_is_rxe(FIXTURE_DATA(dp_security) *self, struct dp_dev *d)
{
	const char *t = getenv(d == &self->db ? "DP_DEV2_TYPE" : "DP_DEV_TYPE");

	if (!t)
		t = getenv("DP_LINK_TYPE");
	return t && !strcmp(t, "rxe");
}

/* @d: the device whose behaviour is checked */
#define KNOWN_RXE_ISSUE(d, cond, why) do { \
	if (sec_is_rxe(self, d) && (cond)) \
		SKIP(return, "known rdma_rxe issue: " why); \
} while (0)

/* -- positive controls: the edges of the region are reachable -- */

TEST_F(dp_security, write_whole_region_reaches_first_and_last_byte)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_SUCCESS, sec_rdma(_metadata, self, IBV_WR_RDMA_WRITE,
					   0, SEC_REGION, self->rmr->rkey));
	memcpy(self->shadow + SEC_PAGE, self->lbuf + SEC_PAGE, SEC_REGION);
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, read_whole_region_returns_first_and_last_byte)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_SUCCESS, sec_rdma(_metadata, self, IBV_WR_RDMA_READ,
					   0, SEC_REGION, self->rmr->rkey));
	ASSERT_EQ(0, memcmp(self->lbuf + SEC_PAGE, self->region, SEC_REGION));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, atomic_on_last_word_succeeds)
{
	uint64_t old, now;

	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	if (!sec_has_atomics(self))
		SKIP(return, "device without atomics");
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	memcpy(&old, self->region + SEC_REGION - 8, 8);
	ASSERT_EQ(IBV_WC_SUCCESS,
		  sec_atomic(_metadata, self, SEC_REGION - 8, self->rmr->rkey));
	memcpy(&now, self->region + SEC_REGION - 8, 8);
	ASSERT_EQ(old + 1, now);
	ASSERT_EQ(0, memcmp(self->lbuf, &old, 8)) TH_LOG("fetched value");
	memcpy(self->shadow + SEC_PAGE + SEC_REGION - 8, &now, 8);
	ASSERT_UNTOUCHED();
}

/* -- out of bounds -- */

TEST_F(dp_security, write_one_byte_past_end_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_WRITE,
			   SEC_REGION - 15, 16, self->rmr->rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, write_region_plus_one_multi_packet_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_WRITE,
			   0, SEC_REGION + 1, self->rmr->rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, write_one_byte_before_start_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_WRITE,
			   -1, 16, self->rmr->rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, write_in_guard_page_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_WRITE,
			   SEC_REGION + 64, 64, self->rmr->rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, read_one_byte_past_end_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_READ,
			   SEC_REGION - 15, 16, self->rmr->rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, read_one_byte_before_start_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_READ,
			   -1, 16, self->rmr->rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, atomic_past_end_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	if (!sec_has_atomics(self))
		SKIP(return, "device without atomics");
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_atomic(_metadata, self, SEC_REGION, self->rmr->rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, atomic_before_start_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	if (!sec_has_atomics(self))
		SKIP(return, "device without atomics");
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_atomic(_metadata, self, -8, self->rmr->rkey));
	ASSERT_UNTOUCHED();
}

/*
 * The IBA requires atomic targets to be 8-byte aligned.  librxe (which
 * drives vrnic too) already refuses to post such a WR with EINVAL; if a
 * provider lets it through, the responder must NAK it as an invalid request.
 */
TEST_F(dp_security, atomic_misaligned_rejected)
{
	struct ibv_sge sge = { .length = 8 };
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic.compare_add = 1,
	};
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int ret;

	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	if (!sec_has_atomics(self))
		SKIP(return, "device without atomics");
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	sge.addr = (uintptr_t)self->lbuf;
	sge.lkey = self->lmr->lkey;
	wr.wr.atomic.remote_addr = sec_va(self, 4);
	wr.wr.atomic.rkey = self->rmr->rkey;
	ret = ibv_post_send(self->qa.qp, &wr, &bad);
	if (ret) {
		ASSERT_EQ(EINVAL, ret);
	} else {
		ASSERT_EQ(0, dp_poll(self->qa.cq, &wc, dp_timeout_ms()));
		ASSERT_EQ(IBV_WC_REM_INV_REQ_ERR, (int)wc.status)
			TH_LOG("completion: %s", ibv_wc_status_str(wc.status));
	}
	ASSERT_UNTOUCHED();
}

/* -- keys -- */

/* Same MR index, other key byte: a stale or forged rkey. */
static uint32_t sec_wrong_rkey(uint32_t rkey)
{
	return rkey ^ 0x5a;
}

TEST_F(dp_security, write_wrong_rkey_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_WRITE, 0, 64,
			   sec_wrong_rkey(self->rmr->rkey)));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, read_wrong_rkey_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_READ, 0, 64,
			   sec_wrong_rkey(self->rmr->rkey)));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, atomic_wrong_rkey_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	if (!sec_has_atomics(self))
		SKIP(return, "device without atomics");
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_atomic(_metadata, self, 0, sec_wrong_rkey(self->rmr->rkey)));
	ASSERT_UNTOUCHED();
}

/* The lkey of a local MR is no rkey. */
TEST_F(dp_security, write_with_lkey_of_remote_only_mr_rejected)
{
	struct ibv_mr *mr;

	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	/* a region registered for local access only */
	mr = ibv_reg_mr(self->b->pd, self->region, SEC_REGION,
			IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_WRITE, 0, 64,
			   mr->rkey));
	ibv_dereg_mr(mr);
	ASSERT_UNTOUCHED();
}

static uint32_t sec_dead_rkey(struct __test_metadata *_metadata,
			      FIXTURE_DATA(dp_security) *self)
{
	struct ibv_mr *mr;
	uint32_t rkey;

	mr = ibv_reg_mr(self->b->pd, self->region, SEC_REGION, SEC_ALL_ACCESS);
	ASSERT_NE(NULL, mr);
	rkey = mr->rkey;
	ASSERT_EQ(0, ibv_dereg_mr(mr));
	return rkey;
}

TEST_F(dp_security, write_deregistered_mr_rejected)
{
	uint32_t rkey;

	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	rkey = sec_dead_rkey(_metadata, self);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_WRITE, 0, 64, rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, read_deregistered_mr_rejected)
{
	uint32_t rkey;

	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	rkey = sec_dead_rkey(_metadata, self);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_READ, 0, 64, rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, atomic_deregistered_mr_rejected)
{
	uint32_t rkey;

	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	if (!sec_has_atomics(self))
		SKIP(return, "device without atomics");
	rkey = sec_dead_rkey(_metadata, self);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_atomic(_metadata, self, 0, rkey));
	ASSERT_UNTOUCHED();
}

/* -- MR access rights -- */

TEST_F(dp_security, write_without_remote_write_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_WRITE, 0, 64,
			   self->rmr->rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, read_without_remote_read_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_READ, 0, 64,
			   self->rmr->rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, atomic_without_remote_atomic_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	if (!sec_has_atomics(self))
		SKIP(return, "device without atomics");
	sec_reg(_metadata, self, IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  sec_atomic(_metadata, self, 0, self->rmr->rkey));
	ASSERT_UNTOUCHED();
}

/* -- local protection -- */

TEST_F(dp_security, send_with_bad_lkey_is_local_protection_error)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->lbuf,
		.length = 64,
	};
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_SEND,
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	};
	int status;

	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sge.lkey = self->lmr->lkey ^ 0x5a;
	status = sec_post(_metadata, self, &wr);
	/* rxe 6.1 reports an invalid lkey as a local QP operation error */
	KNOWN_RXE_ISSUE(self->a, status == IBV_WC_LOC_QP_OP_ERR,
			"bad lkey completes with LOC_QP_OP_ERR, not LOC_PROT_ERR");
	ASSERT_EQ(IBV_WC_LOC_PROT_ERR, status);
}

TEST_F(dp_security, write_with_bad_lkey_is_local_protection_error)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->lbuf,
		.length = 64,
	};
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_RDMA_WRITE,
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	};
	int status;

	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sge.lkey = self->lmr->lkey ^ 0x5a;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	wr.wr.rdma.remote_addr = sec_va(self, 0);
	wr.wr.rdma.rkey = self->rmr->rkey;
	status = sec_post(_metadata, self, &wr);
	ASSERT_UNTOUCHED();
	/* rxe 6.1 reports an invalid lkey as a local QP operation error */
	KNOWN_RXE_ISSUE(self->a, status == IBV_WC_LOC_QP_OP_ERR,
			"bad lkey completes with LOC_QP_OP_ERR, not LOC_PROT_ERR");
	ASSERT_EQ(IBV_WC_LOC_PROT_ERR, status);
	ASSERT_UNTOUCHED();
}

/* The local sink of a READ needs LOCAL_WRITE. */
TEST_F(dp_security, read_into_mr_without_local_write_is_local_protection_error)
{
	struct ibv_sge sge = { .addr = (uintptr_t)self->lbuf, .length = 64 };
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_RDMA_READ,
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_mr *ro;
	int status;

	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	ro = ibv_reg_mr(self->a->pd, self->lbuf, SEC_MAP,
			IBV_ACCESS_REMOTE_READ);
	ASSERT_NE(NULL, ro);
	sge.lkey = ro->lkey;
	wr.wr.rdma.remote_addr = sec_va(self, 0);
	wr.wr.rdma.rkey = self->rmr->rkey;
	status = sec_post(_metadata, self, &wr);
	ibv_dereg_mr(ro);
	ASSERT_EQ(IBV_WC_LOC_PROT_ERR, status);
	ASSERT_UNTOUCHED();
}

/* Responder side: a receive buffer without LOCAL_WRITE is not written. */
static void sec_recv_bad(struct __test_metadata *_metadata,
			 FIXTURE_DATA(dp_security) *self, bool bad_lkey)
{
	struct ibv_mr *mr;
	struct ibv_sge rsge, ssge = {
		.addr = (uintptr_t)self->lbuf,
		.length = 64,
		.lkey = self->lmr->lkey,	/* only called once ready */
	};
	struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &rsge, .num_sge = 1 };
	struct ibv_send_wr swr = {
		.opcode = IBV_WR_SEND,
		.sg_list = &ssge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_recv_wr *brw;
	struct ibv_wc wc;
	int status;

	mr = ibv_reg_mr(self->b->pd, self->region, SEC_REGION,
			bad_lkey ? IBV_ACCESS_LOCAL_WRITE :
				   IBV_ACCESS_REMOTE_READ);
	ASSERT_NE(NULL, mr);
	rsge.addr = (uintptr_t)self->region;
	rsge.length = 64;
	rsge.lkey = bad_lkey ? mr->lkey ^ 0x5a : mr->lkey;
	ASSERT_EQ(0, ibv_post_recv(self->qb.qp, &rwr, &brw));
	status = sec_post(_metadata, self, &swr);
	ASSERT_EQ(0, dp_poll(self->qb.cq, &wc, dp_timeout_ms()))
		TH_LOG("no receive completion");
	ibv_dereg_mr(mr);
	ASSERT_UNTOUCHED();
	/* rxe 6.1 completes such a receive with a local QP operation error */
	KNOWN_RXE_ISSUE(self->b, wc.status == IBV_WC_LOC_QP_OP_ERR &&
			status == IBV_WC_REM_OP_ERR,
			"receive into a buffer it may not write completes with LOC_QP_OP_ERR, not LOC_PROT_ERR");
	ASSERT_EQ(IBV_WC_LOC_PROT_ERR, (int)wc.status)
		TH_LOG("receive completion: %s", ibv_wc_status_str(wc.status));
	/* the responder's local error reaches us as a Remote Operational Error NAK */
	ASSERT_EQ(IBV_WC_REM_OP_ERR, status);
}

TEST_F(dp_security, recv_without_local_write_is_local_protection_error)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_recv_bad(_metadata, self, false);
}

TEST_F(dp_security, recv_with_bad_lkey_is_local_protection_error)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_recv_bad(_metadata, self, true);
}

int main(int argc, char **argv)
{
	if (!getenv("DP_DEV") && dp_own_setup())
		ksft_print_msg("could not create a %s device; set DP_DEV\n",
			       getenv("DP_LINK_TYPE") ?: "vrnic");
	return test_harness_run(argc, argv);
}
