/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The setting of the remote-access tests (dp_security.c, dp_mw.c): a
 * requester and a responder RC QP connected over DP_DEV (loopback) or
 * DP_DEV -> DP_DEV2 (pair), and a responder region in the middle of a larger
 * anonymous mapping, one guard page before it and one after, all filled
 * with a pattern and mirrored in a shadow copy, so that a test can check
 * that not one byte it was not allowed to touch changed.  Include after
 * lib/dp_verbs.h.
 */
#ifndef VRNIC_DP_GUARD_H
#define VRNIC_DP_GUARD_H

#include <sys/mman.h>

#define DP_GUARD_PAGE	4096
#define DP_GUARD_REGION	(2 * DP_GUARD_PAGE)
#define DP_GUARD_MAP	(DP_GUARD_REGION + 2 * DP_GUARD_PAGE)
#define DP_GUARD_QP_ACCESS (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			    IBV_ACCESS_REMOTE_ATOMIC)
#define DP_GUARD_ALL_ACCESS (IBV_ACCESS_LOCAL_WRITE | \
			     IBV_ACCESS_REMOTE_WRITE | \
			     IBV_ACCESS_REMOTE_READ | \
			     IBV_ACCESS_REMOTE_ATOMIC)

/*
 * A fixture embeds the fields with DP_GUARD_MEMBERS: they are reachable
 * directly (self->region) and as one struct dp_guard (&self->g).
 */
#define DP_GUARD_FIELDS \
	struct dp_dev da, db; \
	struct dp_dev *a, *b;	/* requester, responder (b == a: loopback) */ \
	struct dp_qp qa, qb; \
	uint8_t *map;		/* guard page | region | guard page */ \
	uint8_t *region; \
	uint8_t *shadow;	/* what the mapping must contain */ \
	uint8_t *lbuf;		/* requester's buffer */ \
	struct ibv_mr *lmr; \
	bool ready

struct dp_guard {
	DP_GUARD_FIELDS;
};

#define DP_GUARD_MEMBERS \
	union { \
		struct dp_guard g; \
		struct { \
			DP_GUARD_FIELDS; \
		}; \
	}

/*
 * Open the devices of variant @vname (@pair: DP_DEV2 is the responder),
 * map and fill the buffers, connect the QPs.  SKIPs (g->ready stays false)
 * when DP_ONLY names another variant or no pair is configured.
 */
static void dp_guard_setup(struct __test_metadata *_metadata,
			   struct dp_guard *g, const char *vname, bool pair)
{
	const char *dev = getenv("DP_DEV"), *dev2 = getenv("DP_DEV2");
	const char *only = getenv("DP_ONLY");
	size_t i;
	int ret;

	memset(g, 0, sizeof(*g));
	if (only && strcmp(only, vname))
		SKIP(return, "DP_ONLY=%s", only);
	ASSERT_NE(NULL, dev) TH_LOG("DP_DEV not set and self-setup failed");
	if (pair && !dev2)
		SKIP(return, "DP_DEV2 not set: no device pair");
	ret = dp_dev_open(&g->da, dev, AF_INET);
	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", dev, strerror(-ret));
	g->a = g->b = &g->da;
	if (pair) {
		ret = dp_dev_open(&g->db, dev2, AF_INET);
		ASSERT_EQ(0, ret) TH_LOG("open %s: %s", dev2, strerror(-ret));
		g->b = &g->db;
	}

	g->map = mmap(NULL, DP_GUARD_MAP, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, g->map);
	g->region = g->map + DP_GUARD_PAGE;
	g->shadow = malloc(DP_GUARD_MAP);
	ASSERT_NE(NULL, g->shadow);
	for (i = 0; i < DP_GUARD_MAP; i++)
		g->map[i] = 0xa5 ^ (i * 7) ^ (i >> 8);
	memcpy(g->shadow, g->map, DP_GUARD_MAP);

	g->lbuf = mmap(NULL, DP_GUARD_MAP, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, g->lbuf);
	for (i = 0; i < DP_GUARD_MAP; i++)
		g->lbuf[i] = 0x3c + i;
	g->lmr = ibv_reg_mr(g->a->pd, g->lbuf, DP_GUARD_MAP,
			    DP_GUARD_ALL_ACCESS);
	ASSERT_NE(NULL, g->lmr) TH_LOG("reg_mr: %s", strerror(errno));

	ASSERT_EQ(0, dp_qp_create(&g->qa, g->a, 2, DP_GUARD_QP_ACCESS));
	ASSERT_EQ(0, dp_qp_create(&g->qb, g->b, 2, DP_GUARD_QP_ACCESS));
	ASSERT_EQ(0, dp_qp_connect(&g->qa, &g->qb, IBV_MTU_1024,
				   0x123, 0x456));
	ASSERT_EQ(0, dp_qp_connect(&g->qb, &g->qa, IBV_MTU_1024,
				   0x456, 0x123));
	g->ready = true;
}

/* Release what dp_guard_setup() made; the test's own MRs/MWs go first. */
static void dp_guard_teardown(struct dp_guard *g)
{
	dp_qp_destroy(&g->qa);
	dp_qp_destroy(&g->qb);
	if (g->lmr)
		ibv_dereg_mr(g->lmr);
	if (g->lbuf && g->lbuf != MAP_FAILED)
		munmap(g->lbuf, DP_GUARD_MAP);
	if (g->map && g->map != MAP_FAILED)
		munmap(g->map, DP_GUARD_MAP);
	free(g->shadow);
	dp_dev_close(&g->db);
	dp_dev_close(&g->da);
}

static uint64_t dp_guard_va(struct dp_guard *g, long off)
{
	return (uintptr_t)g->region + off;
}

/*
 * Post one signaled WR on @q and return its completion status (or -1 when
 * none arrived in time).
 */
static DP_MAYBE_UNUSED int dp_guard_post(struct __test_metadata *_metadata, struct dp_qp *q,
			 struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int ret;

	ret = ibv_post_send(q->qp, wr, &bad);
	ASSERT_EQ(0, ret) TH_LOG("post_send: %s", strerror(ret));
	ret = dp_poll(q->cq, &wc, dp_timeout_ms());
	if (ret)
		return -1;
	if (wc.status != IBV_WC_SUCCESS)
		TH_LOG("completion: %s", ibv_wc_status_str(wc.status));
	return wc.status;
}

/* Requester's RDMA WRITE or READ of @len bytes at region offset @off. */
static DP_MAYBE_UNUSED int dp_guard_rdma(struct __test_metadata *_metadata,
			 struct dp_guard *g, enum ibv_wr_opcode op,
			 long off, uint32_t len, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)g->lbuf + DP_GUARD_PAGE,
		.length = len,
		.lkey = g->lmr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1,
		.opcode = op,
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = dp_guard_va(g, off), .rkey = rkey },
	};

	return dp_guard_post(_metadata, &g->qa, &wr);
}

/* Requester's fetch-and-add 1 on the 8 bytes at region offset @off. */
static DP_MAYBE_UNUSED int dp_guard_fadd(struct __test_metadata *_metadata,
			 struct dp_guard *g, long off, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)g->lbuf,
		.length = 8,
		.lkey = g->lmr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 2,
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = {
			.remote_addr = dp_guard_va(g, off),
			.compare_add = 1,
			.rkey = rkey,
		},
	};

	return dp_guard_post(_metadata, &g->qa, &wr);
}

/*
 * Is @d, one of @g's devices, an rdma_rxe?  The types of the requester and
 * the responder are DP_DEV_TYPE and DP_DEV2_TYPE, both defaulting to
 * DP_LINK_TYPE.
 */
static DP_MAYBE_UNUSED bool dp_guard_is_rxe(struct dp_guard *g,
					    struct dp_dev *d)
{
	const char *t = getenv(d == &g->db ? "DP_DEV2_TYPE" : "DP_DEV_TYPE");

	if (!t)
		t = getenv("DP_LINK_TYPE");
	return t && !strcmp(t, "rxe");
}

/* The whole mapping, guard pages included, must match the shadow. */
#define DP_ASSERT_UNTOUCHED(g) do { \
	long __i; \
	for (__i = 0; __i < DP_GUARD_MAP; __i++) \
		if ((g)->map[__i] != (g)->shadow[__i]) \
			break; \
	ASSERT_EQ(DP_GUARD_MAP, __i) \
		TH_LOG("byte at mapping offset %ld (region offset %ld) changed", \
		       __i, __i - DP_GUARD_PAGE); \
} while (0)

#endif /* VRNIC_DP_GUARD_H */
