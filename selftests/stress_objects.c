// SPDX-License-Identifier: GPL-2.0
/*
 * stress_objects - create and destroy every verbs object, many times, while
 * traffic runs, and end where we started.
 *
 * A device pair over a veth (lib/own_pair.sh: DP_DEV here,
 * DP_DEV2 in a namespace of its own).  One thread keeps an RC connection
 * between the two busy (SENDs and RDMA WRITEs, data checked); STRESS_THREADS
 * others each run cycles of:
 *
 *   ucontext (ibv_open_device) -> PD -> MR -> MW (type 1, bound on the QP)
 *   -> CQ -> SRQ -> RC QP connected to a peer QP on DP_DEV2 -> AH,
 *   SENDs and an RDMA WRITE posted, then everything destroyed with the
 *   work still in flight (one cycle in three waits for the completions
 *   first; the peer QP goes first in another third).
 *
 * Afterwards the traffic thread must have seen only successful
 * completions and correct data, `rdma resource show` must list for both
 * devices what it listed before the cycles, and no slab cache, nor the
 * number of vmalloc areas in use, may have grown by a tenth of an object
 * per cycle or more, steadily, in each of three equal phases of cycles (a
 * leak of one object per cycle of anything the cycle allocates shows up
 * as a whole cycle count in each; the kernel's own growth does not; the
 * floor is 16 objects a phase).  The debug kernel's kmemleak and KASAN look at
 * the same run.
 *
 * Scale: STRESS_CYCLES cycles in total, shared out among the threads and
 * the three phases, each thread's phase rounded up (default
 * 100 * VRNIC_STRESS_SCALE: 100 in make check, 10^4 in make check-debug).
 *
 * VRNIC_TIMEOUT=600
 * VRNIC_FULL_TIMEOUT=5400
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define VRNIC_TEST_TIMEOUT 86400	/* the runner's per-file timeout rules */
#include "vrnic_harness.h"

#define DP_PORT		1
#include "lib/dp_verbs.h"

#define SO_BUF		65536
#define SO_MSG		4096
#define SO_SENDS	4

static atomic_bool so_stop;

static long so_env(const char *name, long dflt)
{
	const char *s = getenv(name);

	return s && *s ? strtol(s, NULL, 0) : dflt;
}

static double so_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* ---- snapshots: rdma resource show, /proc/slabinfo ---- */

/* The "rdma resource show" line of @dev, without the index. */
static void so_res(const char *dev, char *out, size_t len)
{
	char cmd[128], line[512], *p;
	FILE *f;

	snprintf(out, len, "(no line for %s)", dev);
	snprintf(cmd, sizeof(cmd), "rdma resource show %s 2>&1", dev);
	f = popen(cmd, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, dev);
		if (!p)
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(out, len, "%s", p);
	}
	pclose(f);
}

#define SO_MAX_CACHES 512

struct so_slab {
	int n;
	char name[SO_MAX_CACHES][64];
	long active[SO_MAX_CACHES];
	long size[SO_MAX_CACHES];
};

static int so_slab_scan(struct so_slab *s)
{
	char line[512];
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -errno;
	s->n = 0;
	while (fgets(line, sizeof(line), f) && s->n < SO_MAX_CACHES) {
		long active, num, size;
		char name[64];

		if (line[0] == '#' || !strncmp(line, "slabinfo", 8))
			continue;
		if (sscanf(line, "%63s %ld %ld %ld", name, &active, &num,
			   &size) != 4)
			continue;
		snprintf(s->name[s->n], sizeof(s->name[0]), "%s", name);
		s->active[s->n] = active;
		s->size[s->n] = size;
		s->n++;
	}
	fclose(f);
	return 0;
}

/*
 * The active objects of every cache, freed ones out of KASAN's way.
 * Generic KASAN (the debug kernel) keeps freed objects in a quarantine
 * for a while, and slabinfo counts them active until they leave it: a
 * run too short to fill the quarantine would see every object a cycle
 * frees as growth, one per cycle, like a leak.  Shrinking a cache (its
 * sysfs "shrink", kmem_cache_shrink()) first takes the cache's objects
 * out of the quarantine; without KASAN it only returns empty slabs.
 */
static int so_slab_read(struct so_slab *s)
{
	char path[128];
	int i, ret;

	ret = so_slab_scan(s);
	if (ret)
		return ret;
	for (i = 0; i < s->n; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 s->name[i]);
		f = fopen(path, "w");
		if (!f)
			continue;
		fputs("1", f);
		fclose(f);
	}
	return so_slab_scan(s);
}

static long so_slab_bytes(const struct so_slab *s)
{
	long b = 0;
	int i;

	for (i = 0; i < s->n; i++)
		b += s->active[i] * s->size[i];
	return b;
}

/*
 * vmalloc areas in use: /proc/vmallocinfo without the "unpurged" ones
 * (freed, their address range waiting for a lazy TLB flush).  The
 * vmap_area slab cache counts both, so it grows with vfree()s until the
 * next purge, leak or not: it is checked here instead.
 */
static long so_vmalloc_busy(void)
{
	char line[512];
	long n = 0;
	FILE *f = fopen("/proc/vmallocinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strstr(line, "unpurged"))
			n++;
	fclose(f);
	return n;
}

/* Objects of cache @name in @s (0 if it has none). */
static long so_slab_active(const struct so_slab *s, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return s->active[i];
	return 0;
}

/* Phases of cycles, the slab read after each. */
#define SO_PHASES 3

/*
 * Print the caches that grew; return how many grew like a leak: by
 * @limit or more in every phase (@s[0] before the first, @s[i] after
 * phase i), and steadily, the most at most twice the least.  A leak of so
 * many objects per cycle grows a cache by about as much in each of the
 * equal phases (a leaked kmalloc per QP: +68, +68, +68).  What the
 * kernel allocates once, or on its own in a guest that just booted (a
 * process's VMAs; radix_tree_node +28, +42, +70 with nothing leaking),
 * does not.
 */
static int so_slab_diff(const struct so_slab *s, long limit)
{
	const struct so_slab *last = &s[SO_PHASES];
	int i, p, bad = 0;

	for (i = 0; i < last->n; i++) {
		long n[SO_PHASES + 1], d, dmax = 0, dmin = -1;
		bool leak = true;
		char line[256];
		int len;

		/* vmap_area: see so_vmalloc_busy(). */
		if (!strcmp(last->name[i], "vmap_area"))
			continue;
		for (p = 0; p <= SO_PHASES; p++)
			n[p] = so_slab_active(&s[p], last->name[i]);
		len = snprintf(line, sizeof(line), "slab %-28s %8ld",
			       last->name[i], n[0]);
		for (p = 1; p <= SO_PHASES; p++) {
			d = n[p] - n[p - 1];
			leak &= d >= limit;
			dmax = d > dmax ? d : dmax;
			dmin = dmin < 0 || d < dmin ? d : dmin;
			len += snprintf(line + len, sizeof(line) - len,
					" %+ld", d);
		}
		leak &= dmax <= 2 * dmin;
		if (leak || dmax >= 64)
			ksft_print_msg("%s%s\n", line, leak ? "  <-- leak?" : "");
		bad += leak;
	}
	return bad;
}

/* ---- the steady traffic: an RC pair, SEND + WRITE, data checked ---- */

struct so_traffic {
	struct dp_dev a, b;
	struct dp_qp qa, qb;
	uint8_t *sbuf, *rbuf, *wbuf;
	struct ibv_mr *smr, *rmr, *wmr;
	long ops;
	int err;
	char why[160];
};

static int so_traffic_post_recv(struct so_traffic *t)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)t->rbuf, .length = SO_MSG,
		.lkey = t->rmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(t->qb.qp, &wr, &bad);
}

static void *so_traffic_run(void *arg)
{
	struct so_traffic *t = arg;
	struct ibv_sge sge = { .lkey = t->smr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	uint32_t seq = 0, i;
	int ret;

	while (!atomic_load(&so_stop) && !t->err) {
		seq++;
		for (i = 0; i < SO_MSG / 4; i++)
			((uint32_t *)t->sbuf)[i] = seq * 2654435761u + i;
		/* A WRITE of the pattern, then a SEND of it. */
		sge.addr = (uintptr_t)t->sbuf;
		sge.length = SO_MSG;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = (uintptr_t)t->wbuf;
		wr.wr.rdma.rkey = t->wmr->rkey;
		wr.wr_id = 2;
		ret = ibv_post_send(t->qa.qp, &wr, &bad);
		if (!ret) {
			wr.opcode = IBV_WR_SEND;
			wr.wr_id = 3;
			ret = ibv_post_send(t->qa.qp, &wr, &bad);
		}
		if (ret) {
			t->err = ret;
			snprintf(t->why, sizeof(t->why), "post_send: %s",
				 strerror(ret));
			break;
		}
		for (i = 0; i < 2; i++) {
			ret = dp_poll(t->qa.cq, &wc, dp_timeout_ms());
			if (ret || wc.status != IBV_WC_SUCCESS) {
				t->err = ret ?: -EIO;
				snprintf(t->why, sizeof(t->why),
					 "op %ld: requester %s", t->ops,
					 ret ? "timed out" :
					 ibv_wc_status_str(wc.status));
				break;
			}
		}
		if (t->err)
			break;
		ret = dp_poll(t->qb.cq, &wc, dp_timeout_ms());
		if (ret || wc.status != IBV_WC_SUCCESS) {
			t->err = ret ?: -EIO;
			snprintf(t->why, sizeof(t->why), "op %ld: responder %s",
				 t->ops, ret ? "timed out" :
				 ibv_wc_status_str(wc.status));
			break;
		}
		if (memcmp(t->rbuf, t->sbuf, SO_MSG) ||
		    memcmp(t->wbuf, t->sbuf, SO_MSG)) {
			t->err = -EBADMSG;
			snprintf(t->why, sizeof(t->why),
				 "op %ld: data differs", t->ops);
			break;
		}
		if (so_traffic_post_recv(t)) {
			t->err = -EIO;
			snprintf(t->why, sizeof(t->why), "post_recv failed");
			break;
		}
		t->ops++;
	}
	return NULL;
}

/* ---- one churn thread ---- */

struct so_churn {
	const char *dev;
	struct dp_dev *peer;	/* on DP_DEV2, long-lived */
	struct ibv_cq *peer_cq;
	long cycles, done;
	int err;
	char why[200];
	unsigned int seed;
};

#define SO_FAIL(c, what)						\
	do {								\
		(c)->err = errno ?: EIO;				\
		snprintf((c)->why, sizeof((c)->why),			\
			 "cycle %ld: %s: %s", (c)->done, what,		\
			 strerror((c)->err));				\
		goto out;						\
	} while (0)

static struct ibv_context *so_open(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx && !errno)
		errno = ENODEV;
	return ctx;
}

/* RESET -> INIT -> RTR -> RTS towards @peer (a QP of @pdev). */
static int so_connect(struct ibv_qp *qp, struct dp_dev *dev,
		      struct ibv_qp *peer, struct dp_dev *pdev, int access)
{
	struct dp_qp q = { .qp = qp, .dev = dev };
	struct dp_qp p = { .qp = peer, .dev = pdev };
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = DP_PORT,
		.qp_access_flags = access,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	return dp_qp_connect(&q, &p, IBV_MTU_1024, 0, 0) ? -1 : 0;
}

static void *so_churn_run(void *arg)
{
	struct so_churn *c = arg;
	struct ibv_context *ctx = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_mw *mw = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qp = NULL, *pqp = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_mr *pmr = NULL;
	struct dp_dev me;
	uint8_t *buf = NULL, *pbuf = NULL;
	int i, mode;

	buf = aligned_alloc(4096, SO_BUF);
	pbuf = aligned_alloc(4096, SO_BUF);
	if (buf && pbuf)
		pmr = ibv_reg_mr(c->peer->pd, pbuf, SO_BUF,
				 IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE);
	if (!pmr) {
		c->err = errno ?: ENOMEM;
		snprintf(c->why, sizeof(c->why), "peer buffer: %s",
			 strerror(c->err));
		goto free_bufs;
	}
	memset(buf, 0x5a, SO_BUF);

	for (; c->done < c->cycles && !atomic_load(&so_stop); c->done++) {
		const struct ibv_qp_cap caps = {
			.max_send_wr = 16, .max_recv_wr = 16,
			.max_send_sge = 1, .max_recv_sge = 1,
		};
		struct ibv_qp_init_attr ia = {
			.qp_type = IBV_QPT_RC,
			.sq_sig_all = 1,
			.cap = caps,
		};
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = 16, .max_sge = 1 },
		};
		struct ibv_ah_attr aa = {
			.is_global = 1,
			.port_num = DP_PORT,
			.grh = { .dgid = c->peer->gid, .hop_limit = 64 },
		};
		struct ibv_sge sge = { .addr = (uintptr_t)buf,
				       .length = SO_MSG };
		struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_SEND };
		struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 };
		struct ibv_send_wr *bad;
		struct ibv_recv_wr *rbad;
		struct ibv_mw_bind bind = { .wr_id = 9 };
		struct ibv_wc wc[16];

		errno = 0;
		mode = rand_r(&c->seed) % 3;
		ctx = so_open(c->dev);
		if (!ctx)
			SO_FAIL(c, "open_device (ucontext)");
		pd = ibv_alloc_pd(ctx);
		if (!pd)
			SO_FAIL(c, "alloc_pd");
		mr = ibv_reg_mr(pd, buf, SO_BUF, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_MW_BIND);
		if (!mr)
			SO_FAIL(c, "reg_mr");
		mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
		if (!mw)
			SO_FAIL(c, "alloc_mw");
		cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
		if (!cq)
			SO_FAIL(c, "create_cq");
		srq = ibv_create_srq(pd, &sa);
		if (!srq)
			SO_FAIL(c, "create_srq");
		ia.send_cq = cq;
		ia.recv_cq = cq;
		ia.srq = srq;
		qp = ibv_create_qp(pd, &ia);
		if (!qp)
			SO_FAIL(c, "create_qp");
		/* create_qp wrote back the caps: none for an SRQ's RQ */
		ia.cap = caps;
		ia.send_cq = c->peer_cq;
		ia.recv_cq = c->peer_cq;
		ia.srq = NULL;
		pqp = ibv_create_qp(c->peer->pd, &ia);
		if (!pqp)
			SO_FAIL(c, "create_qp (peer)");
		/* The local device's GID index, as dp_dev_open found it. */
		memset(&me, 0, sizeof(me));
		me.ctx = ctx;
		me.pd = pd;
		if (ibv_query_device(ctx, &me.attr) || dp_find_gid(&me, AF_INET))
			SO_FAIL(c, "query gid");
		aa.grh.sgid_index = me.gid_idx;
		ah = ibv_create_ah(pd, &aa);
		if (!ah)
			SO_FAIL(c, "create_ah");
		if (so_connect(qp, &me, pqp, c->peer, IBV_ACCESS_REMOTE_WRITE))
			SO_FAIL(c, "connect");
		if (so_connect(pqp, c->peer, qp, &me, IBV_ACCESS_REMOTE_WRITE))
			SO_FAIL(c, "connect (peer)");

		/* Work in flight: receives on both sides, SENDs, a WRITE. */
		sge.lkey = mr->lkey;
		if (ibv_post_srq_recv(srq, &rwr, &rbad))
			SO_FAIL(c, "post_srq_recv");
		sge.addr = (uintptr_t)pbuf;
		sge.lkey = pmr->lkey;
		for (i = 0; i < SO_SENDS; i++)
			if (ibv_post_recv(pqp, &rwr, &rbad))
				SO_FAIL(c, "post_recv (peer)");
		sge.addr = (uintptr_t)buf;
		sge.lkey = mr->lkey;
		for (i = 0; i < SO_SENDS; i++)
			if (ibv_post_send(qp, &wr, &bad))
				SO_FAIL(c, "post_send");
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = (uintptr_t)pbuf;
		wr.wr.rdma.rkey = pmr->rkey;
		if (ibv_post_send(qp, &wr, &bad))
			SO_FAIL(c, "post_send (write)");
		bind.bind_info.mr = mr;
		bind.bind_info.addr = (uintptr_t)buf;
		bind.bind_info.length = SO_MSG;
		bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
		bind.send_flags = IBV_SEND_SIGNALED;
		if (ibv_bind_mw(qp, mw, &bind))
			SO_FAIL(c, "bind_mw");

		if (mode == 0) {
			/* Let it finish: SO_SENDS + WRITE + bind. */
			int got = 0, n;
			double t0 = so_now();

			while (got < SO_SENDS + 2 &&
			       so_now() - t0 < dp_timeout_ms() / 1000.0) {
				n = ibv_poll_cq(cq, 16, wc);
				if (n < 0)
					SO_FAIL(c, "poll_cq");
				for (i = 0; i < n; i++) {
					if (wc[i].status != IBV_WC_SUCCESS) {
						errno = EIO;
						SO_FAIL(c, ibv_wc_status_str(wc[i].status));
					}
				}
				got += n;
				if (!n)
					usleep(100);
			}
			if (got < SO_SENDS + 2) {
				errno = ETIMEDOUT;
				SO_FAIL(c, "completions");
			}
		}
		if (mode == 2) {
			ibv_destroy_qp(pqp);
			pqp = NULL;
		}
out:
		if (ah)
			ibv_destroy_ah(ah);
		if (qp)
			ibv_destroy_qp(qp);
		if (pqp)
			ibv_destroy_qp(pqp);
		if (srq)
			ibv_destroy_srq(srq);
		if (cq)
			ibv_destroy_cq(cq);
		if (mw)
			ibv_dealloc_mw(mw);
		if (mr)
			ibv_dereg_mr(mr);
		if (pd)
			ibv_dealloc_pd(pd);
		if (ctx)
			ibv_close_device(ctx);
		ah = NULL;
		qp = pqp = NULL;
		srq = NULL;
		cq = NULL;
		mw = NULL;
		mr = NULL;
		pd = NULL;
		ctx = NULL;
		if (c->err)
			break;
		/* The peer CQ may hold completions of the destroyed QPs. */
		while (ibv_poll_cq(c->peer_cq, 16, wc) > 0)
			;
	}
	ibv_dereg_mr(pmr);
free_bufs:
	free(buf);
	free(pbuf);
	return NULL;
}

/* ---- the test ---- */

static int so_traffic_setup(struct so_traffic *t, const char *a,
			    const char *b)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	if (dp_dev_open(&t->a, a, AF_INET) || dp_dev_open(&t->b, b, AF_INET))
		return -1;
	if (dp_qp_create(&t->qa, &t->a, 1, access) ||
	    dp_qp_create(&t->qb, &t->b, 1, access) ||
	    dp_qp_connect(&t->qa, &t->qb, IBV_MTU_1024, 100, 200) ||
	    dp_qp_connect(&t->qb, &t->qa, IBV_MTU_1024, 200, 100))
		return -1;
	t->sbuf = calloc(1, SO_MSG);
	t->rbuf = calloc(1, SO_MSG);
	t->wbuf = calloc(1, SO_MSG);
	if (!t->sbuf || !t->rbuf || !t->wbuf)
		return -1;
	t->smr = ibv_reg_mr(t->a.pd, t->sbuf, SO_MSG, access);
	t->rmr = ibv_reg_mr(t->b.pd, t->rbuf, SO_MSG, access);
	t->wmr = ibv_reg_mr(t->b.pd, t->wbuf, SO_MSG, access);
	if (!t->smr || !t->rmr || !t->wmr)
		return -1;
	return so_traffic_post_recv(t);
}

static void so_traffic_teardown(struct so_traffic *t)
{
	if (t->smr)
		ibv_dereg_mr(t->smr);
	if (t->rmr)
		ibv_dereg_mr(t->rmr);
	if (t->wmr)
		ibv_dereg_mr(t->wmr);
	dp_qp_destroy(&t->qa);
	dp_qp_destroy(&t->qb);
	dp_dev_close(&t->a);
	dp_dev_close(&t->b);
	free(t->sbuf);
	free(t->rbuf);
	free(t->wbuf);
}

TEST(create_destroy_every_object_under_traffic)
{
	const char *dev = getenv("DP_DEV"), *dev2 = getenv("DP_DEV2");
	long scale = so_env("VRNIC_STRESS_SCALE", 1);
	long cycles = so_env("STRESS_CYCLES", 100 * scale);
	int nthreads = so_env("STRESS_THREADS", 2), i, bad;
	char res_a0[512], res_b0[512], res_a1[512], res_b1[512];
	struct so_churn *churn;
	struct so_traffic t;
	struct so_slab *slab;
	pthread_t tt, *ct;
	long total = 0, limit, vm[SO_PHASES + 1], per_phase;
	bool vm_leak = true;
	double t0, secs = 0;
	int phase;

	if (!dev || !dev2)
		SKIP(return, "needs a device pair (DP_DEV, DP_DEV2)");
	memset(&t, 0, sizeof(t));
	slab = calloc(SO_PHASES + 1, sizeof(*slab));
	churn = calloc(nthreads, sizeof(*churn));
	ct = calloc(nthreads, sizeof(*ct));
	ASSERT_TRUE(slab && churn && ct);
	ASSERT_EQ(0, so_traffic_setup(&t, dev, dev2))
		TH_LOG("traffic pair: %s", strerror(errno));

	for (i = 0; i < nthreads; i++) {
		struct so_churn *c = &churn[i];

		c->dev = dev;
		c->peer = calloc(1, sizeof(*c->peer));
		ASSERT_NE(NULL, c->peer);
		ASSERT_EQ(0, dp_dev_open(c->peer, dev2, AF_INET));
		c->peer_cq = ibv_create_cq(c->peer->ctx, 256, NULL, NULL, 0);
		ASSERT_NE(NULL, c->peer_cq);
		c->seed = i + 1;
		/* One warm-up cycle each: caches and lazy state exist. */
		c->cycles = 1;
		so_churn_run(c);
		ASSERT_EQ(0, c->err) TH_LOG("%s", c->why);
	}
	/* Give RCU and deferred frees of the warm-up a moment. */
	sleep(2);
	so_res(dev, res_a0, sizeof(res_a0));
	so_res(dev2, res_b0, sizeof(res_b0));
	ASSERT_EQ(0, so_slab_read(&slab[0]));
	vm[0] = so_vmalloc_busy();

	/*
	 * Equal phases, traffic throughout, the slab read after each once
	 * deferred frees (RCU, work items) have settled.  The reads come
	 * before so_res() runs "rdma": a process just spawned leaves
	 * objects behind that are freed later (khugepaged's mm slot until
	 * its next scan).
	 */
	per_phase = (cycles + SO_PHASES * nthreads - 1) / (SO_PHASES * nthreads);
	t0 = so_now();
	ASSERT_EQ(0, pthread_create(&tt, NULL, so_traffic_run, &t));
	for (phase = 1; phase <= SO_PHASES; phase++) {
		for (i = 0; i < nthreads; i++) {
			churn[i].cycles = churn[i].done + per_phase;
			ASSERT_EQ(0, pthread_create(&ct[i], NULL,
						    so_churn_run, &churn[i]));
		}
		for (i = 0; i < nthreads; i++)
			pthread_join(ct[i], NULL);
		if (phase == SO_PHASES) {
			atomic_store(&so_stop, true);
			pthread_join(tt, NULL);
			secs = so_now() - t0;
		}
		sleep(5);
		ASSERT_EQ(0, so_slab_read(&slab[phase]));
		vm[phase] = so_vmalloc_busy();
	}

	for (i = 0; i < nthreads; i++) {
		EXPECT_EQ(0, churn[i].err) TH_LOG("thread %d: %s", i,
						  churn[i].why);
		total += churn[i].done - 1;
	}
	EXPECT_EQ(0, t.err) TH_LOG("traffic: %s", t.why);
	EXPECT_LT(0, t.ops) TH_LOG("no traffic completed during the cycles");
	ksft_print_msg("%ld create/destroy cycles (%d threads, 8 objects + a peer QP each) in %.1f s, %ld traffic round trips alongside\n",
		       total, nthreads, secs, t.ops);

	so_res(dev, res_a1, sizeof(res_a1));
	so_res(dev2, res_b1, sizeof(res_b1));
	ksft_print_msg("rdma resource before: %s | %s\n", res_a0, res_b0);
	ksft_print_msg("rdma resource after:  %s | %s\n", res_a1, res_b1);
	EXPECT_STREQ(res_a0, res_a1);
	EXPECT_STREQ(res_b0, res_b1);
	for (phase = 0; phase <= SO_PHASES; phase++)
		ksft_print_msg("slab %ld kB, vmalloc areas %ld %s\n",
			       so_slab_bytes(&slab[phase]) / 1024, vm[phase],
			       phase ? "after a phase" : "before");
	/* A tenth of an object per cycle, in each phase; at least 16. */
	limit = total / (10 * SO_PHASES);
	limit = limit > 16 ? limit : 16;
	bad = so_slab_diff(slab, limit);
	EXPECT_EQ(0, bad) TH_LOG("%d slab caches grew by >= %ld objects in each phase",
				 bad, limit);
	for (phase = 1; phase <= SO_PHASES; phase++)
		vm_leak &= vm[phase] - vm[phase - 1] >= limit;
	EXPECT_FALSE(vm_leak) TH_LOG("vmalloc areas leak");

	for (i = 0; i < nthreads; i++) {
		ibv_destroy_cq(churn[i].peer_cq);
		dp_dev_close(churn[i].peer);
		free(churn[i].peer);
	}
	so_traffic_teardown(&t);
	free(slab);
	free(churn);
	free(ct);
}

int main(int argc, char **argv)
{
	/* The figures are the point: keep them when a case fails. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (dp_own_setup(argv))
		ksft_print_msg("could not create a device pair; set DP_DEV and DP_DEV2\n");
	return test_harness_run(argc, argv);
}
