// SPDX-License-Identifier: GPL-2.0
/*
 * dp_random - move random data through a RoCE device and compare it byte
 * for byte.
 *
 * Two RC QPs are connected directly with ibv_modify_qp (no rdma_cm), either
 * on one device (loopback) or on two devices joined by a veth pair.  For
 * SEND, RDMA WRITE, RDMA WRITE with immediate and RDMA READ, every path MTU
 * from 256 to 4096 and a list of sizes around the MTU boundaries (0, 1, odd,
 * MTU-1, MTU, MTU+1, multi-MB), the payload is scattered over 1..N SGEs at
 * random offsets and gaps.  After each transfer the whole destination
 * buffer is compared with a model: the bytes the operation was meant to
 * write hold the source data, every other byte still holds its old random
 * content.
 *
 * Environment:
 *   DP_DEV        device for the loopback variants; when unset the test
 *                 creates one itself on a veth (type $DP_LINK_TYPE, default
 *                 vrnic), plus DP_DEV2 on the veth's other end in a
 *                 namespace of its own, and removes them at exit
 *   DP_DEV2       second device for the pair variants (skipped when unset);
 *                 the pair runs DP_DEV -> DP_DEV2
 *   DP_SEED       PRNG seed (default: time); printed so a failure can be
 *                 replayed
 *   DP_MTUS       comma-separated path MTUs to use instead of the defaults
 *   DP_ONLY       run only this variant (e.g. pair_ipv4), skip the others
 *   DP_BIG        size of the multi-MB transfers (default 2 MiB + 5)
 *   DP_TIMEOUT_MS completion timeout per work request (default 60000)
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
#define DP_MAX_SGE	16
#define DP_SLACK	(64 * 1024)
#define DP_QP_ACCESS	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			 IBV_ACCESS_REMOTE_ATOMIC)

#include "lib/dp_verbs.h"

/* ---- random data and SGE layouts ---- */

static uint64_t dp_rng_state;

static uint64_t dp_rand(void)
{
	/* xorshift64*: plenty for test data, reproducible from DP_SEED */
	dp_rng_state ^= dp_rng_state >> 12;
	dp_rng_state ^= dp_rng_state << 25;
	dp_rng_state ^= dp_rng_state >> 27;
	return dp_rng_state * 0x2545F4914F6CDD1DULL;
}

static uint64_t dp_rand_below(uint64_t n)
{
	return n ? dp_rand() % n : 0;
}

static void dp_fill(uint8_t *p, size_t len)
{
	uint64_t v;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		v = dp_rand();
		memcpy(p + i, &v, 8);
	}
	for (; i < len; i++)
		p[i] = dp_rand();
}

struct dp_layout {
	int n;
	struct ibv_sge sge[DP_MAX_SGE];
	size_t off[DP_MAX_SGE];	/* offsets into the buffer */
};

/*
 * Split @len bytes into @n SGEs (each at least one byte) placed in
 * increasing order at random gaps inside a buffer of @bufsz bytes.
 */
static void dp_layout(struct dp_layout *l, uint8_t *buf, size_t bufsz,
		      uint32_t lkey, size_t len, int n)
{
	size_t cut[DP_MAX_SGE + 1], pos, room, gap;
	int i, j;

	if (!len)
		n = 0;
	if ((size_t)n > len)
		n = len;
	l->n = n;
	/* n-1 distinct sorted cut points in (0, len) */
	cut[0] = 0;
	cut[n] = len;
	for (i = 1; i < n; i++) {
again:
		cut[i] = 1 + dp_rand_below(len - 1);
		for (j = 1; j < i; j++)
			if (cut[j] == cut[i])
				goto again;
	}
	for (i = 1; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (cut[j] < cut[i]) {
				size_t t = cut[i];

				cut[i] = cut[j];
				cut[j] = t;
			}
	room = bufsz - len;
	pos = 0;
	for (i = 0; i < n; i++) {
		/* random gap with odd offsets; at most a fair share of room */
		gap = dp_rand_below(room / (n - i + 1) + 1);
		if (gap > 4099)
			gap = dp_rand_below(4100);
		room -= gap;
		pos += gap;
		l->off[i] = pos;
		l->sge[i].addr = (uintptr_t)(buf + pos);
		l->sge[i].length = cut[i + 1] - cut[i];
		l->sge[i].lkey = lkey;
		pos += l->sge[i].length;
	}
}

/* Copy @len bytes of @src into the model @dst through @l's SGE stream. */
static void dp_model_scatter(uint8_t *dst, const struct dp_layout *l,
			     const uint8_t *src, size_t len)
{
	size_t done = 0, c;
	int i;

	for (i = 0; i < l->n && done < len; i++) {
		c = l->sge[i].length;
		if (c > len - done)
			c = len - done;
		memcpy(dst + l->off[i], src + done, c);
		done += c;
	}
}

/* Gather @l's SGE stream from @buf into @out. */
static void dp_gather(uint8_t *out, const struct dp_layout *l,
		      const uint8_t *buf)
{
	size_t done = 0;
	int i;

	for (i = 0; i < l->n; i++) {
		memcpy(out + done, buf + l->off[i], l->sge[i].length);
		done += l->sge[i].length;
	}
}

/* ---- the test ---- */

enum dp_op { DP_SEND, DP_WRITE, DP_WRITE_IMM, DP_READ };

static const char *const dp_op_name[] = {
	[DP_SEND] = "SEND", [DP_WRITE] = "WRITE",
	[DP_WRITE_IMM] = "WRITE_IMM", [DP_READ] = "READ",
};

FIXTURE(dp_random) {
	struct dp_dev da, db;	/* requester and responder device */
	struct dp_dev *a, *b;	/* b == a for loopback */
	size_t bufsz, big;
	uint8_t *lbuf, *rbuf;	/* requester's and responder's buffer */
	uint8_t *model, *tmp;
	struct ibv_mr *lmr, *rmr;
	int max_sge, max_sge_rd;
};

FIXTURE_VARIANT(dp_random) {
	const char *name;
	bool pair;
	int family;
	bool all_mtus;
};

FIXTURE_VARIANT_ADD(dp_random, loopback_ipv4) {
	.name = "loopback_ipv4",
	.pair = false, .family = AF_INET, .all_mtus = true,
};

FIXTURE_VARIANT_ADD(dp_random, loopback_ipv6) {
	.name = "loopback_ipv6",
	.pair = false, .family = AF_INET6, .all_mtus = false,
};

FIXTURE_VARIANT_ADD(dp_random, pair_ipv4) {
	.name = "pair_ipv4",
	.pair = true, .family = AF_INET, .all_mtus = true,
};

FIXTURE_VARIANT_ADD(dp_random, pair_ipv6) {
	.name = "pair_ipv6",
	.pair = true, .family = AF_INET6, .all_mtus = false,
};

static uint8_t *dp_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

FIXTURE_SETUP(dp_random)
{
	const char *dev = getenv("DP_DEV"), *dev2 = getenv("DP_DEV2");
	const char *big = getenv("DP_BIG"), *only = getenv("DP_ONLY");
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ;
	int ret;

	memset(self, 0, sizeof(*self));
	if (only && strcmp(only, variant->name))
		SKIP(return, "DP_ONLY=%s", only);
	ASSERT_NE(NULL, dev) TH_LOG("DP_DEV not set and self-setup failed");
	if (variant->pair && !dev2)
		SKIP(return, "DP_DEV2 not set: no device pair");

	ret = dp_dev_open(&self->da, dev, variant->family);
	if (ret == -ENOENT)
		SKIP(return, "%s: no RoCE v2 %s GID", dev,
		     variant->family == AF_INET ? "IPv4" : "IPv6");
	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", dev, strerror(-ret));
	self->a = &self->da;
	self->b = &self->da;
	if (variant->pair) {
		ret = dp_dev_open(&self->db, dev2, variant->family);
		if (ret == -ENOENT)
			SKIP(return, "%s: no RoCE v2 GID of this family", dev2);
		ASSERT_EQ(0, ret) TH_LOG("open %s: %s", dev2, strerror(-ret));
		self->b = &self->db;
	}

	self->max_sge = self->a->attr.max_sge;
	if (self->b->attr.max_sge < self->max_sge)
		self->max_sge = self->b->attr.max_sge;
	if (self->max_sge > DP_MAX_SGE)
		self->max_sge = DP_MAX_SGE;
	self->max_sge_rd = self->a->attr.max_sge_rd ?: self->max_sge;
	if (self->max_sge_rd > self->max_sge)
		self->max_sge_rd = self->max_sge;
	ASSERT_LE(1, self->max_sge);

	self->big = big ? strtoul(big, NULL, 0) : 2 * 1024 * 1024 + 5;
	self->bufsz = self->big + DP_SLACK;
	self->lbuf = dp_map(self->bufsz);
	self->rbuf = dp_map(self->bufsz);
	self->model = dp_map(self->bufsz);
	self->tmp = dp_map(self->bufsz);
	ASSERT_NE(NULL, self->lbuf);
	ASSERT_NE(NULL, self->rbuf);
	ASSERT_NE(NULL, self->model);
	ASSERT_NE(NULL, self->tmp);
	self->lmr = ibv_reg_mr(self->a->pd, self->lbuf, self->bufsz, acc);
	ASSERT_NE(NULL, self->lmr) TH_LOG("reg_mr: %s", strerror(errno));
	self->rmr = ibv_reg_mr(self->b->pd, self->rbuf, self->bufsz, acc);
	ASSERT_NE(NULL, self->rmr) TH_LOG("reg_mr: %s", strerror(errno));
}

FIXTURE_TEARDOWN(dp_random)
{
	if (self->lmr)
		ibv_dereg_mr(self->lmr);
	if (self->rmr)
		ibv_dereg_mr(self->rmr);
	if (self->lbuf)
		munmap(self->lbuf, self->bufsz);
	if (self->rbuf)
		munmap(self->rbuf, self->bufsz);
	if (self->model)
		munmap(self->model, self->bufsz);
	if (self->tmp)
		munmap(self->tmp, self->bufsz);
	dp_dev_close(&self->db);
	dp_dev_close(&self->da);
}

/* Index of the first differing byte, or -1. */
static long dp_first_diff(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t i;

	if (!memcmp(a, b, len))
		return -1;
	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return i;
	return -1;
}

struct dp_case {
	enum dp_op op;
	size_t len;
	int nl, nr;		/* SGEs on the local and remote side */
	int mtu;
};

/*
 * Run one transfer and check it.  Returns 0 on success; on failure logs
 * through @_metadata and returns -1 (ASSERT-free so the caller can add
 * context and clean up the QPs).
 */
static int dp_run_case(struct __test_metadata *_metadata,
		       FIXTURE_DATA(dp_random) *self, struct dp_qp *qa,
		       struct dp_qp *qb, const struct dp_case *c)
{
	uint8_t *dst_buf;
	struct dp_layout ll, rl;
	struct ibv_recv_wr rwr = {}, *brw;
	struct ibv_send_wr swr = {}, *bsw;
	struct ibv_wc wc;
	size_t roff = 0, extra = 0;
	uint32_t imm = dp_rand();
	long d;
	int i, ret, tmo = dp_timeout_ms();

	/*
	 * The model holds what the destination buffer must contain; it
	 * equals the buffer on entry.  Only the source bytes this transfer
	 * reads get fresh random data.
	 */
	dst_buf = c->op == DP_READ ? self->lbuf : self->rbuf;
	dp_layout(&ll, self->lbuf, self->bufsz, self->lmr->lkey, c->len, c->nl);
	if (c->op != DP_SEND)
		roff = dp_rand_below(self->bufsz - c->len + 1);
	if (c->op == DP_SEND) {
		/* the receive may offer more room than the message needs */
		extra = dp_rand_below(2) ? dp_rand_below(300) : 0;
		dp_layout(&rl, self->rbuf, self->bufsz, self->rmr->lkey,
			  c->len + extra, c->nr);
	}
	do {
		/* retry until the transfer is visible (tiny sizes) */
		if (c->op == DP_READ) {
			dp_fill(self->rbuf + roff, c->len);
			dp_model_scatter(self->model, &ll, self->rbuf + roff,
					 c->len);
			continue;
		}
		for (i = 0; i < ll.n; i++)
			dp_fill(self->lbuf + ll.off[i], ll.sge[i].length);
		dp_gather(self->tmp, &ll, self->lbuf);
		if (c->op == DP_SEND)
			dp_model_scatter(self->model, &rl, self->tmp, c->len);
		else
			memcpy(self->model + roff, self->tmp, c->len);
	} while (c->len && !memcmp(self->model, dst_buf, self->bufsz));

	if (c->op == DP_SEND || c->op == DP_WRITE_IMM) {
		rwr.wr_id = 0x5151;
		rwr.sg_list = c->op == DP_SEND ? rl.sge : NULL;
		rwr.num_sge = c->op == DP_SEND ? rl.n : 0;
		ret = ibv_post_recv(qb->qp, &rwr, &brw);
		if (ret) {
			TH_LOG("post_recv: %s", strerror(ret));
			return -1;
		}
	}

	swr.wr_id = 0xa0a0 + c->op;
	swr.sg_list = ll.sge;
	swr.num_sge = ll.n;
	switch (c->op) {
	case DP_SEND:
		swr.opcode = IBV_WR_SEND;
		break;
	case DP_WRITE:
		swr.opcode = IBV_WR_RDMA_WRITE;
		break;
	case DP_WRITE_IMM:
		swr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		swr.imm_data = htonl(imm);
		break;
	case DP_READ:
		swr.opcode = IBV_WR_RDMA_READ;
		break;
	}
	if (c->op != DP_SEND) {
		swr.wr.rdma.remote_addr = (uintptr_t)self->rbuf + roff;
		swr.wr.rdma.rkey = self->rmr->rkey;
	}
	ret = ibv_post_send(qa->qp, &swr, &bsw);
	if (ret) {
		TH_LOG("post_send: %s", strerror(ret));
		return -1;
	}

	ret = dp_poll(qa->cq, &wc, tmo);
	if (ret || wc.status != IBV_WC_SUCCESS || wc.wr_id != swr.wr_id) {
		TH_LOG("requester completion: ret %d status %s wr_id %#" PRIx64,
		       ret, ret ? "-" : ibv_wc_status_str(wc.status),
		       ret ? 0 : wc.wr_id);
		return -1;
	}
	if (c->op == DP_SEND || c->op == DP_WRITE_IMM) {
		ret = dp_poll(qb->cq, &wc, tmo);
		if (ret || wc.status != IBV_WC_SUCCESS || wc.wr_id != 0x5151) {
			TH_LOG("responder completion: ret %d status %s",
			       ret, ret ? "-" : ibv_wc_status_str(wc.status));
			return -1;
		}
		if (wc.byte_len != c->len) {
			TH_LOG("responder byte_len %u, expected %zu",
			       wc.byte_len, c->len);
			return -1;
		}
		if (c->op == DP_WRITE_IMM &&
		    (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
		     !(wc.wc_flags & IBV_WC_WITH_IMM) ||
		     ntohl(wc.imm_data) != imm)) {
			TH_LOG("WRITE_IMM recv: opcode %d flags %#x imm %#x, expected %#x",
			       wc.opcode, wc.wc_flags, ntohl(wc.imm_data), imm);
			return -1;
		}
		if (c->op == DP_SEND && wc.opcode != IBV_WC_RECV) {
			TH_LOG("SEND recv: opcode %d", wc.opcode);
			return -1;
		}
	}

	d = dp_first_diff(dst_buf, self->model, self->bufsz);
	if (d >= 0) {
		TH_LOG("data mismatch at destination offset %ld: got %#x expected %#x (remote offset %zu)",
		       d, dst_buf[d], self->model[d], roff);
		return -1;
	}
	return 0;
}

static const enum ibv_mtu dp_mtus_all[] = {
	IBV_MTU_256, IBV_MTU_512, IBV_MTU_1024, IBV_MTU_2048, IBV_MTU_4096,
};

static const enum ibv_mtu dp_mtus_few[] = { IBV_MTU_1024, IBV_MTU_4096 };

static void dp_run_op(struct __test_metadata *_metadata,
		      FIXTURE_DATA(dp_random) *self,
		      const FIXTURE_VARIANT(dp_random) *variant, enum dp_op op)
{
	const enum ibv_mtu *mtus = variant->all_mtus ? dp_mtus_all : dp_mtus_few;
	int nmtu = variant->all_mtus ? ARRAY_SIZE(dp_mtus_all) :
				       ARRAY_SIZE(dp_mtus_few);
	const char *mtu_env = getenv("DP_MTUS");
	enum ibv_mtu mtu_list[ARRAY_SIZE(dp_mtus_all)];
	int maxl = op == DP_READ ? self->max_sge_rd : self->max_sge;
	const char *seed_env = getenv("DP_SEED");
	uint64_t seed = seed_env ? strtoull(seed_env, NULL, 0) :
				   (uint64_t)time(NULL) * 2654435761u + op;
	struct dp_qp qa = {}, qb = {};
	int m, s, k, fails = 0, cases = 0;

	/* a SKIP in FIXTURE_SETUP still runs the test body */
	if (_metadata->skip)
		return;
	if (mtu_env) {
		/* DP_MTUS=1024,4096: a subset, for slow runs (netem) */
		char *end;
		long v;

		nmtu = 0;
		while (*mtu_env && nmtu < (int)ARRAY_SIZE(mtu_list)) {
			v = strtol(mtu_env, &end, 0);
			for (m = 0; m < (int)ARRAY_SIZE(dp_mtus_all); m++)
				if (v == 128 << dp_mtus_all[m])
					mtu_list[nmtu++] = dp_mtus_all[m];
			mtu_env = *end ? end + 1 : end;
		}
		ASSERT_LT(0, nmtu) TH_LOG("DP_MTUS lists no MTU of 256..4096");
		mtus = mtu_list;
	}
	dp_rng_state = seed ?: 1;
	dp_fill(self->lbuf, self->bufsz);
	dp_fill(self->rbuf, self->bufsz);
	memcpy(self->model, op == DP_READ ? self->lbuf : self->rbuf,
	       self->bufsz);
	ksft_print_msg("%s: DP_SEED=%" PRIu64 " max_sge %d\n",
		       dp_op_name[op], seed, maxl);

	for (m = 0; m < nmtu && !fails; m++) {
		int mtu = 128 << mtus[m];
		size_t sizes[] = {
			0, 1, 2, 7, 63, mtu - 1, mtu, mtu + 1, 2 * mtu + 3,
			3 * mtu, 1 + dp_rand_below(65536), self->big,
		};
		uint32_t psn_a, psn_b;
		int ret;

		/* every other MTU starts just below the 24-bit PSN wrap */
		psn_a = m & 1 ? 0xffffff - dp_rand_below(4) : dp_rand() & 0xffffff;
		psn_b = m & 1 ? 0xfffffe : dp_rand() & 0xffffff;
		ASSERT_EQ(0, dp_qp_create(&qa, self->a, self->max_sge,
					  DP_QP_ACCESS));
		ret = dp_qp_create(&qb, self->b, self->max_sge, DP_QP_ACCESS);
		if (!ret)
			ret = dp_qp_connect(&qa, &qb, mtus[m], psn_a, psn_b);
		if (!ret)
			ret = dp_qp_connect(&qb, &qa, mtus[m], psn_b, psn_a);
		if (ret) {
			dp_qp_destroy(&qa);
			dp_qp_destroy(&qb);
			ASSERT_EQ(0, ret) TH_LOG("QP setup at MTU %d", mtu);
		}

		for (s = 0; s < (int)ARRAY_SIZE(sizes) && !fails; s++) {
			/* SGE counts: 1, 2, max, random (multi-MB: 1 and max) */
			int nls[] = { 1, 2, maxl, 1 + dp_rand_below(maxl) };
			int nk = sizes[s] == self->big ? 3 : 4;

			for (k = 0; k < nk && !fails; k++) {
				struct dp_case c = {
					.op = op, .len = sizes[s], .mtu = mtu,
					.nl = nls[k],
					.nr = nls[(k + 1) % 4] > self->max_sge ?
					      self->max_sge : nls[(k + 1) % 4],
				};

				/* multi-MB: 1 SGE at 1 KiB, max at 4 KiB */
				if (sizes[s] == self->big &&
				    !(mtu == 1024 && k == 0) &&
				    !(mtu == 4096 && k == 2))
					continue;
				cases++;
				if (dp_run_case(_metadata, self, &qa, &qb, &c)) {
					TH_LOG("%s failed: MTU %d size %zu local SGEs %d remote SGEs %d (DP_SEED=%" PRIu64 ")",
					       dp_op_name[op], mtu, c.len, c.nl,
					       c.nr, seed);
					fails++;
				}
			}
		}
		dp_qp_destroy(&qa);
		dp_qp_destroy(&qb);
	}
	ksft_print_msg("%s: %d transfers checked\n", dp_op_name[op], cases);
	ASSERT_EQ(0, fails);
}

TEST_F_TIMEOUT(dp_random, send, 600)
{
	dp_run_op(_metadata, self, variant, DP_SEND);
}

TEST_F_TIMEOUT(dp_random, write, 600)
{
	dp_run_op(_metadata, self, variant, DP_WRITE);
}

TEST_F_TIMEOUT(dp_random, write_imm, 600)
{
	dp_run_op(_metadata, self, variant, DP_WRITE_IMM);
}

TEST_F_TIMEOUT(dp_random, read, 600)
{
	dp_run_op(_metadata, self, variant, DP_READ);
}

int main(int argc, char **argv)
{
	if (dp_own_setup(argv))
		ksft_print_msg("could not create a %s device; set DP_DEV\n",
			       getenv("DP_LINK_TYPE") ?: "vrnic");
	return test_harness_run(argc, argv);
}
