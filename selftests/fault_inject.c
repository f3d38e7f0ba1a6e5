// SPDX-License-Identifier: GPL-2.0
/*
 * fault_inject - vrnic when the kernel's allocations fail.
 *
 * Needs a kernel with fault injection (the debug kernel of
 * selftests/vm/debug-kernel.sh: CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC,
 * CONFIG_FAULT_INJECTION_USERCOPY, CONFIG_FAIL_FUNCTION); on any other
 * kernel every case skips.  The cases check what a user sees; the
 * runner's KASAN, kmemleak and dmesg checks after the file catch what an
 * unwind gets wrong inside (a leak, a use after free, a warning).
 *
 * verbs_*: "fail-nth" (Documentation/fault-injection/fault-injection.rst).
 * For N = 1, 2, ... the Nth slab or page allocation or user copy of one
 * verb's system calls fails, until the verb no longer reaches an Nth.
 * Each failure must come back as an error, not a crash or a hang; after
 * it the device holds the objects it held before (rdma resource), counts
 * no more against its limits than before, and the verb succeeds again.
 * The same for creating a device (nldev NEWLINK).
 *
 * data_*: fail_function makes vrnic_skb_alloc(), the allocation of every
 * packet vrnic sends (requests, READ responses, ACKs, CNPs), return NULL
 * for a share of its calls, in every context, while RC WRITEs, READs,
 * SENDs and atomics run between two QPs: each must complete with success
 * and the right bytes.  A request not built is built again; an ACK not
 * sent is an ACK lost, which the requester's timer recovers.
 *
 * data_multicast_*: failslab fails a share of the skb head cache's
 * atomic allocations while UD messages go to a multicast group across
 * the veth pair: the receiver's copy for its attached QP, when it cannot
 * be made, must be counted (drop_no_memory), and what arrives must be
 * whole and in order.  6.1 marks a cache for failslab's cache-filter
 * only from the boot line: slub_debug=A,skbuff_head_cache, which
 * debug-kernel.sh adds (VRNIC_VM_FAILSLAB_CACHES); without it the case
 * skips.
 *
 * Registering a device has tens of thousands of fault points (about
 * 30,000 on the debug kernel), each taking seconds under KASAN: the
 * NEWLINK case fails every one of the first FI_NEWLINK_ALL (default 64),
 * and from there on every point an eighth further than the last.
 *
 * Environment: DP_DEV / DP_DEV2, DP_NS and DP_NS_ADDR4 (DP_DEV2's
 * namespace and address) as in dp_security.c (default: a device pair
 * made by the test itself), DP_TIMEOUT_MS, FI_MAX_NTH (the most
 * failure points tried per verb, default 400; for NEWLINK 65536),
 * FI_NEWLINK_ALL.
 *
 * VRNIC_TIMEOUT=900
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <rdma/rdma_netlink.h>

#include <vrnic.h>

/*
 * The runner's per-file timeout rules (VRNIC_TIMEOUT above, scaled on the
 * debug kernel): there the NEWLINK sweep's 116 fault points took about
 * 10 minutes on an idle machine and more than the fixed 900 s limit this
 * file had on a loaded one (up to 14 s a point).
 */
#define VRNIC_TEST_TIMEOUT 86400
#include "vrnic_harness.h"

#define DP_PORT		1

#include "lib/dp_verbs.h"
#include "lib/dp_guard.h"
#include "lib/vrnic_nl.h"
#include "lib/wire_pkt.h"

#define FI_DEBUGFS	"/sys/kernel/debug"
#define FI_NTH		"/proc/thread-self/fail-nth"
#define FI_BUF		(64 * 1024)

/* ---- the fault-injection knobs ---- */

static int fi_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int fi_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/*
 * The knobs a case sets, with the values they had, put back by
 * fi_knobs_restore().  Paths are under FI_DEBUGFS.
 */
#define FI_MAX_KNOBS	16

struct fi_knobs {
	int n;
	char path[FI_MAX_KNOBS][128];
	char old[FI_MAX_KNOBS][64];
};

static int fi_knob(struct fi_knobs *k, const char *rel, const char *val)
{
	char *path;
	int ret;

	if (k->n == FI_MAX_KNOBS)
		return -ENOSPC;
	path = k->path[k->n];
	snprintf(path, sizeof(k->path[0]), FI_DEBUGFS "/%s", rel);
	ret = fi_read(path, k->old[k->n], sizeof(k->old[0]));
	if (ret)
		return ret;
	ret = fi_write(path, val);
	if (ret)
		return ret;
	k->n++;
	return 0;
}

static void fi_knobs_restore(struct fi_knobs *k)
{
	while (k->n > 0) {
		k->n--;
		fi_write(k->path[k->n], k->old[k->n]);
	}
}

/*
 * fail-nth counts the allocations and user copies of the slab, the page
 * allocator and usercopy; by default the first two leave alone what may
 * sleep, and the page allocator order-0 pages: every allocation of a
 * system call takes part here.  Quietly: with "verbose" each injected
 * failure prints a stack trace, which the runner takes for a warning.
 */
static const char *const fi_nth_knobs[][2] = {
	{ "failslab/ignore-gfp-wait", "N" },
	{ "failslab/probability", "0" },
	{ "failslab/verbose", "0" },
	{ "fail_page_alloc/ignore-gfp-wait", "N" },
	{ "fail_page_alloc/ignore-gfp-highmem", "N" },
	{ "fail_page_alloc/min-order", "0" },
	{ "fail_page_alloc/probability", "0" },
	{ "fail_page_alloc/verbose", "0" },
	{ "fail_usercopy/probability", "0" },
	{ "fail_usercopy/verbose", "0" },
};

/* Why fault injection cannot be used here, or NULL. */
static const char *fi_missing(void)
{
	if (access(FI_NTH, W_OK))
		return "no " FI_NTH ": a kernel without CONFIG_FAULT_INJECTION (debug-kernel.sh has it)";
	if (access(FI_DEBUGFS "/failslab", F_OK) ||
	    access(FI_DEBUGFS "/fail_page_alloc", F_OK) ||
	    access(FI_DEBUGFS "/fail_usercopy", F_OK))
		return "no failslab, fail_page_alloc or fail_usercopy in debugfs";
	return NULL;
}

/*
 * Arm fail-nth: the @nth fault point of this thread from now on fails.
 * The thread's own file, kept open, so that reading it back costs no
 * allocation of its own.
 */
static int fi_nth_arm(int fd, unsigned int nth)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%u", nth);

	return pwrite(fd, s, len, 0) == len ? 0 : -errno;
}

/*
 * Disarm; true if the failure was injected, false if the calls since
 * fi_nth_arm() did not reach the Nth fault point.  Reading the count
 * copies to user space, itself a fault point: a read that fails with
 * EFAULT consumed the last count, so nothing before it had.
 */
static bool fi_nth_disarm(int fd)
{
	char s[16] = "";
	bool injected;
	ssize_t n;

	n = pread(fd, s, sizeof(s) - 1, 0);
	injected = n > 0 && strtoul(s, NULL, 10) == 0;
	/* Writing copies from user space too: the count ends at 0 either way. */
	while (pwrite(fd, "0", 1, 0) < 0 && errno == EFAULT)
		;
	return injected;
}

/* ---- the device of the verbs cases ---- */

/* A verb under test: its object comes and goes through struct fi_ctx. */
struct fi_ctx {
	struct dp_dev dev;		/* the device, its PD and GID */
	struct ibv_cq *cq;		/* for the QPs under test */
	struct dp_qp ud;		/* for multicast */
	struct dp_qp rc_a, rc_b;	/* for the connect case */
	void *buf;

	/* What a case's make() created, undone by its unmake(). */
	struct ibv_context *o_ctx;
	struct ibv_pd *o_pd;
	struct ibv_mr *o_mr;
	struct ibv_cq *o_cq;
	struct ibv_srq *o_srq;
	struct ibv_qp *o_qp;
	struct ibv_mw *o_mw;
	struct ibv_ah *o_ah;
	bool o_attached;
	union ibv_gid mgid;
};

static struct ibv_qp *fi_qp(struct fi_ctx *c, enum ibv_qp_type type)
{
	return dp_qp_on_cq(&c->dev, c->cq, type, 8, 2, 0);
}

static int fi_qp_reset(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* ---- the cases: make() under injection, unmake() after ---- */

#define FI_ERR(x) ((x) ? 0 : (errno ? -errno : -EIO))

static int mk_open_device(struct fi_ctx *c)
{
	c->o_ctx = ibv_open_device(c->dev.ctx->device);
	return FI_ERR(c->o_ctx);
}

static int mk_pd(struct fi_ctx *c)
{
	c->o_pd = ibv_alloc_pd(c->dev.ctx);
	return FI_ERR(c->o_pd);
}

static int mk_mr(struct fi_ctx *c)
{
	c->o_mr = ibv_reg_mr(c->dev.pd, c->buf, FI_BUF, IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	return FI_ERR(c->o_mr);
}

static int mk_cq(struct fi_ctx *c)
{
	c->o_cq = ibv_create_cq(c->dev.ctx, 64, NULL, NULL, 0);
	return FI_ERR(c->o_cq);
}

/* Resizing keeps the CQ on failure: o_cq is made and dropped unarmed. */
static int mk_cq_resize(struct fi_ctx *c)
{
	return -ibv_resize_cq(c->o_cq, 256);
}

static int mk_srq(struct fi_ctx *c)
{
	struct ibv_srq_init_attr ia = {
		.attr = { .max_wr = 16, .max_sge = 1 },
	};

	c->o_srq = ibv_create_srq(c->dev.pd, &ia);
	return FI_ERR(c->o_srq);
}

static int mk_qp_rc(struct fi_ctx *c)
{
	c->o_qp = fi_qp(c, IBV_QPT_RC);
	return FI_ERR(c->o_qp);
}

static int mk_qp_ud(struct fi_ctx *c)
{
	c->o_qp = fi_qp(c, IBV_QPT_UD);
	return FI_ERR(c->o_qp);
}

/* RESET -> INIT -> RTR -> RTS of rc_a towards rc_b (which is in INIT). */
static int mk_connect(struct fi_ctx *c)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = DP_PORT,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ret = ibv_modify_qp(c->rc_a.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return -ret;
	return dp_qp_connect_rd(&c->rc_a, &c->rc_b, IBV_MTU_1024, 1, 1, 1);
}

static int mk_mw(struct fi_ctx *c)
{
	c->o_mw = ibv_alloc_mw(c->dev.pd, IBV_MW_TYPE_2);
	return FI_ERR(c->o_mw);
}

static int mk_ah(struct fi_ctx *c)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.port_num = DP_PORT,
		.grh = {
			.dgid = c->dev.gid,
			.sgid_index = c->dev.gid_idx,
			.hop_limit = 64,
		},
	};

	c->o_ah = ibv_create_ah(c->dev.pd, &a);
	return FI_ERR(c->o_ah);
}

static int mk_mcast(struct fi_ctx *c)
{
	int ret = ibv_attach_mcast(c->ud.qp, &c->mgid, 0);

	c->o_attached = !ret;
	return -ret;
}

static void un_all(struct fi_ctx *c)
{
	if (c->o_attached)
		ibv_detach_mcast(c->ud.qp, &c->mgid, 0);
	if (c->o_ah)
		ibv_destroy_ah(c->o_ah);
	if (c->o_mw)
		ibv_dealloc_mw(c->o_mw);
	if (c->o_qp)
		ibv_destroy_qp(c->o_qp);
	if (c->o_srq)
		ibv_destroy_srq(c->o_srq);
	if (c->o_cq)
		ibv_destroy_cq(c->o_cq);
	if (c->o_mr)
		ibv_dereg_mr(c->o_mr);
	if (c->o_pd)
		ibv_dealloc_pd(c->o_pd);
	if (c->o_ctx)
		ibv_close_device(c->o_ctx);
	c->o_attached = false;
	c->o_ah = NULL;
	c->o_mw = NULL;
	c->o_qp = NULL;
	c->o_srq = NULL;
	c->o_cq = NULL;
	c->o_mr = NULL;
	c->o_pd = NULL;
	c->o_ctx = NULL;
	if (c->rc_a.qp)
		fi_qp_reset(c->rc_a.qp);
}

/* The state a case starts from, made unarmed. */
static int pre_cq(struct fi_ctx *c)
{
	return mk_cq(c);
}

struct fi_case {
	const char *name;
	int (*pre)(struct fi_ctx *c);	/* unarmed, before make */
	int (*make)(struct fi_ctx *c);	/* armed: the verb under test */
};

static const struct fi_case fi_cases[] = {
	{ "open_device", NULL, mk_open_device },
	{ "alloc_pd", NULL, mk_pd },
	{ "reg_mr", NULL, mk_mr },
	{ "create_cq", NULL, mk_cq },
	{ "resize_cq", pre_cq, mk_cq_resize },
	{ "create_srq", NULL, mk_srq },
	{ "create_qp_rc", NULL, mk_qp_rc },
	{ "create_qp_ud", NULL, mk_qp_ud },
	{ "modify_qp_to_rts", NULL, mk_connect },
	{ "alloc_mw", NULL, mk_mw },
	{ "create_ah", NULL, mk_ah },
	{ "attach_mcast", NULL, mk_mcast },
};

/* ---- what the device holds ---- */

/* `rdma resource show` of @dev: its objects by type, in one line. */
static int fi_res(const char *dev, char *buf, size_t len)
{
	char cmd[128];
	FILE *f;
	int ret = -EIO;

	snprintf(cmd, sizeof(cmd), "rdma resource show %s 2>&1", dev);
	f = popen(cmd, "r");
	if (!f)
		return -errno;
	if (fgets(buf, len, f)) {
		buf[strcspn(buf, "\n")] = 0;
		ret = 0;
	}
	if (pclose(f))
		ret = -EIO;
	return ret;
}

struct fi_limited {
	const char *name;
	int attr;			/* VRNIC_LIMITS_ATTR_MAX_* */
	int (*make)(struct fi_ctx *c);	/* one more of them */
};

static const struct fi_limited fi_limited[] = {
	{ "qp", VRNIC_LIMITS_ATTR_MAX_QP, mk_qp_rc },
	{ "cq", VRNIC_LIMITS_ATTR_MAX_CQ, mk_cq },
	{ "mr", VRNIC_LIMITS_ATTR_MAX_MR, mk_mr },
	{ "pd", VRNIC_LIMITS_ATTR_MAX_PD, mk_pd },
	{ "srq", VRNIC_LIMITS_ATTR_MAX_SRQ, mk_srq },
	{ "ah", VRNIC_LIMITS_ATTR_MAX_AH, mk_ah },
};

#define FI_NLIM		(int)(sizeof(fi_limited) / sizeof(fi_limited[0]))
#define FI_LIM_PROBE	8

/*
 * Each object made in a copy of @c: un_all() of the copy destroys it,
 * and of the one that failed, nothing.
 */
static int fi_headroom(struct fi_ctx *c, const char *dev,
		       const struct fi_limited *lim)
{
	struct fi_ctx made[FI_LIM_PROBE];
	int n, i, ret;
	uint32_t old;

	ret = vnl_get_limit(dev, lim->attr, &old) ?:
	      vnl_set_limit(dev, lim->attr, FI_LIM_PROBE);
	if (ret)
		return ret;
	for (n = 0; n < FI_LIM_PROBE; n++) {
		made[n] = *c;
		if (lim->make(&made[n]))
			break;
	}
	for (i = 0; i < FI_LIM_PROBE && i <= n; i++)
		un_all(&made[i]);
	ret = vnl_set_limit(dev, lim->attr, old);
	return ret ?: n;
}

/* ---- verbs ---- */

FIXTURE(verbs) {
	char ifname[16];
	char name[32];
	int nth_fd;
	int max_nth;
	struct fi_knobs knobs;
	struct fi_ctx c;
	bool ready;
};

FIXTURE_SETUP(verbs)
{
	struct fi_ctx *c = &self->c;
	const char *why = fi_missing(), *s;
	int i, id = getpid() % 200;

	memset(self, 0, sizeof(*self));
	self->nth_fd = -1;
	if (why)
		SKIP(return, "%s", why);
	s = getenv("FI_MAX_NTH");
	self->max_nth = s ? atoi(s) : 400;

	snprintf(self->ifname, sizeof(self->ifname), "fi%d", id);
	snprintf(self->name, sizeof(self->name), "vfault%d", id);
	ASSERT_EQ(0, vrnic_sh("ip link add %s type dummy && ip link set %s up && "
			      "ip addr add 10.78.%d.1/24 dev %s",
			      self->ifname, self->ifname, id, self->ifname));
	ASSERT_EQ(0, vrnic_sh("rdma link add %s type vrnic netdev %s",
			      self->name, self->ifname));
	ASSERT_EQ(0, dp_dev_open(&c->dev, self->name, AF_INET));
	c->cq = ibv_create_cq(c->dev.ctx, 64, NULL, NULL, 0);
	ASSERT_NE(NULL, c->cq);
	ASSERT_EQ(0, dp_ud_qp_create(&c->ud, &c->dev, 0x11111111, 8));
	ASSERT_EQ(0, dp_qp_create(&c->rc_b, &c->dev, 2,
				  IBV_ACCESS_REMOTE_WRITE));
	ASSERT_EQ(0, dp_qp_create(&c->rc_a, &c->dev, 2,
				  IBV_ACCESS_REMOTE_WRITE));
	ASSERT_EQ(0, fi_qp_reset(c->rc_a.qp));	/* where mk_connect starts */
	c->buf = mmap(NULL, FI_BUF, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, c->buf);
	/* IPv4-mapped GID of 239.1.2.3 (IBA A17.9.2 for RoCE v2). */
	c->mgid.raw[10] = 0xff;
	c->mgid.raw[11] = 0xff;
	c->mgid.raw[12] = 239;
	c->mgid.raw[13] = 1;
	c->mgid.raw[14] = 2;
	c->mgid.raw[15] = 3;

	for (i = 0; i < (int)(sizeof(fi_nth_knobs) / sizeof(fi_nth_knobs[0])); i++)
		ASSERT_EQ(0, fi_knob(&self->knobs, fi_nth_knobs[i][0],
				     fi_nth_knobs[i][1]))
			TH_LOG("cannot set knob %d", i);
	self->nth_fd = open(FI_NTH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->nth_fd);
	self->ready = true;
}

FIXTURE_TEARDOWN(verbs)
{
	struct fi_ctx *c = &self->c;

	if (self->nth_fd >= 0) {
		fi_nth_disarm(self->nth_fd);
		close(self->nth_fd);
	}
	fi_knobs_restore(&self->knobs);
	if (c->dev.ctx) {
		un_all(c);
		dp_qp_destroy(&c->rc_a);
		dp_qp_destroy(&c->rc_b);
		dp_qp_destroy(&c->ud);
		if (c->cq)
			ibv_destroy_cq(c->cq);
		dp_dev_close(&c->dev);
	}
	if (c->buf && c->buf != MAP_FAILED)
		munmap(c->buf, FI_BUF);
	if (self->name[0])
		vrnic_sh("(rdma link delete %s; ip link del %s) >/dev/null 2>&1",
			 self->name, self->ifname);
}

/*
 * One verb, each of its fault points failed in turn.  Returns the number
 * of failures injected; every one must have made the verb fail (a verb
 * may also succeed where the failed allocation had a fallback).
 */
static int fi_sweep(struct __test_metadata *_metadata,
		    FIXTURE_DATA(verbs) *self, const struct fi_case *fc)
{
	struct fi_ctx *c = &self->c;
	char before[256], after[256];
	int nth, ret, failed = 0, injected = 0;

	ASSERT_EQ(0, fi_res(self->name, before, sizeof(before)));
	for (nth = 1; nth <= self->max_nth; nth++) {
		bool hit;

		if (fc->pre)
			ASSERT_EQ(0, fc->pre(c)) TH_LOG("%s: setup", fc->name);
		errno = 0;
		ASSERT_EQ(0, fi_nth_arm(self->nth_fd, nth));
		ret = fc->make(c);
		hit = fi_nth_disarm(self->nth_fd);
		un_all(c);
		if (!hit) {
			ASSERT_EQ(0, ret) TH_LOG("%s: %s without an injected failure",
						 fc->name, strerror(-ret));
			break;
		}
		injected++;
		if (ret)
			failed++;
	}
	ASSERT_GE(self->max_nth, nth) TH_LOG("%s: more than %d fault points",
					     fc->name, self->max_nth);
	ASSERT_EQ(0, fi_res(self->name, after, sizeof(after)));
	EXPECT_STREQ(before, after) TH_LOG("%s: objects left behind", fc->name);
	TH_LOG("%s: %d fault points, %d made it fail", fc->name, injected,
	       failed);
	/* And without injection it works. */
	if (fc->pre)
		ASSERT_EQ(0, fc->pre(c));
	ret = fc->make(c);
	un_all(c);
	EXPECT_EQ(0, ret) TH_LOG("%s after the sweep: %s", fc->name,
				 strerror(-ret));
	return injected;
}

TEST_F(verbs, every_fault_point_unwinds)
{
	int before[FI_NLIM], after, t;
	size_t i;

	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	for (t = 0; t < FI_NLIM; t++) {
		before[t] = fi_headroom(&self->c, self->name, &fi_limited[t]);
		ASSERT_LT(0, before[t]) TH_LOG("max_%s: %d", fi_limited[t].name,
					       before[t]);
	}
	for (i = 0; i < sizeof(fi_cases) / sizeof(fi_cases[0]); i++)
		EXPECT_LT(0, fi_sweep(_metadata, self, &fi_cases[i]))
			TH_LOG("case %zu: not one fault point", i);
	/* Failed creations hold no place in the device's counts. */
	for (t = 0; t < FI_NLIM; t++) {
		after = fi_headroom(&self->c, self->name, &fi_limited[t]);
		EXPECT_EQ(before[t], after) TH_LOG("max_%s", fi_limited[t].name);
	}
}

/*
 * nldev NEWLINK on a netlink socket of our own; the kernel handles it
 * inside sendmsg(), so arming around the send covers all of it, the
 * allocation of the answer included.  A new socket each time: what an
 * injected failure leaves queued on one (an answer after a reported
 * ENOBUFS) must not answer the next request.
 */
static int fi_newlink(const char *name, const char *ndev, int nth_fd,
		      int nth, bool *hit)
{
	struct nl_sock *sk;
	struct nl_msg *m;
	volatile int ret;

	*hit = false;
	sk = nl_socket_alloc();
	if (!sk)
		return -NLE_NOMEM;
	ret = nl_connect(sk, NETLINK_RDMA);
	if (ret)
		goto out_free_sock;
	m = nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
						RDMA_NLDEV_CMD_NEWLINK),
			       NLM_F_REQUEST | NLM_F_ACK);
	if (!m) {
		ret = -NLE_NOMEM;
		goto out_free_sock;
	}
	nla_put_string(m, RDMA_NLDEV_ATTR_DEV_NAME, name);
	nla_put_string(m, RDMA_NLDEV_ATTR_LINK_TYPE, "vrnic");
	nla_put_string(m, RDMA_NLDEV_ATTR_NDEV_NAME, ndev);
	fi_nth_arm(nth_fd, nth);
	ret = nl_send_auto(sk, m);
	*hit = fi_nth_disarm(nth_fd);
	nlmsg_free(m);
	if (ret >= 0)
		ret = nl_wait_for_ack(sk);
out_free_sock:
	nl_socket_free(sk);
	return ret;
}

static int fi_env(const char *name, int dflt)
{
	const char *s = getenv(name);

	return s && atoi(s) > 0 ? atoi(s) : dflt;
}

TEST_F(verbs, newlink_unwinds)
{
	int all = fi_env("FI_NEWLINK_ALL", 64);
	int max = fi_env("FI_MAX_NTH", 65536);
	char dev[40], ndev[20], path[96];
	volatile int ret = 0;
	int nth, injected = 0;
	bool hit = false;

	if (!self->ready)
		return;
	snprintf(ndev, sizeof(ndev), "%sn", self->ifname);
	snprintf(dev, sizeof(dev), "%sn", self->name);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s", dev);
	ASSERT_EQ(0, vrnic_sh("ip link add %s type dummy && ip link set %s up",
			      ndev, ndev));
	for (nth = 1; nth <= max; nth += nth < all ? 1 : nth / 8) {
		ret = fi_newlink(dev, ndev, self->nth_fd, nth, &hit);
		if (!hit)
			break;
		injected++;
		/* Made or not, as its answer says; then gone when deleted. */
		if (!ret)
			ASSERT_EQ(0, access(path, F_OK)) TH_LOG("fault point %d", nth);
		if (!access(path, F_OK))
			vrnic_sh("rdma link delete %s >/dev/null 2>&1", dev);
		ASSERT_NE(0, access(path, F_OK)) TH_LOG("%s stays", dev);
	}
	EXPECT_EQ(0, ret) TH_LOG("NEWLINK without injection: %d", ret);
	EXPECT_GE(max, nth);
	EXPECT_LT(0, injected);
	TH_LOG("NEWLINK: %d fault points failed, the last below the %dth",
	       injected, nth);
	EXPECT_EQ(0, access(path, F_OK));
	vrnic_sh("(rdma link delete %s; ip link del %s) >/dev/null 2>&1",
		 dev, ndev);
}

/* ---- data path ---- */

#define FI_FN		FI_DEBUGFS "/fail_function"
#define FI_FN_NAME	"vrnic_skb_alloc"
#define FI_OPS		100		/* operations per case */
#define FI_TIMES	100000		/* injections allowed, counted down */

FIXTURE(data) {
	DP_GUARD_MEMBERS;
	struct fi_knobs knobs;
	bool injecting;
};

FIXTURE_VARIANT(data) {
	const char *name;
	bool pair;
};

FIXTURE_VARIANT_ADD(data, loopback) {
	.name = "loopback",
	.pair = false,
};

FIXTURE_VARIANT_ADD(data, pair) {
	.name = "pair",
	.pair = true,
};

FIXTURE_SETUP(data)
{
	char times[32];

	memset(&self->knobs, 0, sizeof(self->knobs));
	self->injecting = false;
	if (access(FI_FN "/inject", W_OK)) {
		memset(&self->g, 0, sizeof(self->g));
		SKIP(return, "no %s: a kernel without CONFIG_FAIL_FUNCTION (debug-kernel.sh has it)",
		     FI_FN);
	}
	dp_guard_setup(_metadata, &self->g, variant->name, variant->pair);
	if (!self->ready)
		return;
	self->ready = false;
	ASSERT_EQ(0, fi_write(FI_FN "/inject", FI_FN_NAME))
		TH_LOG("%s is not in the error injection list", FI_FN_NAME);
	self->injecting = true;
	snprintf(times, sizeof(times), "%d", FI_TIMES);
	ASSERT_EQ(0, fi_knob(&self->knobs, "fail_function/task-filter", "N"));
	ASSERT_EQ(0, fi_knob(&self->knobs, "fail_function/interval", "1"));
	ASSERT_EQ(0, fi_knob(&self->knobs, "fail_function/verbose", "0"));
	ASSERT_EQ(0, fi_knob(&self->knobs, "fail_function/times", times));
	self->ready = true;
}

FIXTURE_TEARDOWN(data)
{
	if (self->injecting)
		fi_write(FI_FN "/inject", "");
	fi_knobs_restore(&self->knobs);
	dp_guard_teardown(&self->g);
}

/* How many failures fail_function injected since setup. */
static long fi_fn_injected(void)
{
	char s[32];

	if (fi_read(FI_FN "/times", s, sizeof(s)))
		return -1;
	return FI_TIMES - strtol(s, NULL, 10);
}

/*
 * FI_OPS rounds of WRITE, READ back, SEND and fetch-and-add with @percent
 * of vrnic's packet allocations failing; everything must arrive.
 */
static void fi_traffic(struct __test_metadata *_metadata,
		       FIXTURE_DATA(data) *self, int percent)
{
	uint32_t len = DP_GUARD_REGION / 2;
	struct ibv_mr *rmr;
	struct ibv_sge sge, rsge;
	struct ibv_recv_wr rwr = { 0 }, *bad_r;
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	uint64_t counter = 0, *fadd;
	char pct[8];
	bool atomics;
	int i, j;

	atomics = self->a->attr.atomic_cap != IBV_ATOMIC_NONE &&
		  self->b->attr.atomic_cap != IBV_ATOMIC_NONE;
	rmr = ibv_reg_mr(self->b->pd, self->region, DP_GUARD_REGION,
			 DP_GUARD_ALL_ACCESS);
	ASSERT_NE(NULL, rmr);
	fadd = (uint64_t *)(self->region + DP_GUARD_REGION - 8);
	*fadd = 0;
	snprintf(pct, sizeof(pct), "%d", percent);
	ASSERT_EQ(0, fi_knob(&self->knobs, "fail_function/probability", pct));

	for (i = 0; i < FI_OPS; i++) {
		uint8_t *src = self->lbuf, *sink = self->lbuf + len;

		for (j = 0; j < (int)len; j++)
			src[j] = (uint8_t)(i * 31 + j * 7);
		/* WRITE src to the region's first half */
		sge = (struct ibv_sge){ (uintptr_t)src, len, self->lmr->lkey };
		wr = (struct ibv_send_wr){
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { dp_guard_va(&self->g, 0), rmr->rkey },
		};
		ASSERT_EQ(IBV_WC_SUCCESS, dp_guard_post(_metadata, &self->qa, &wr))
			TH_LOG("WRITE %d", i);
		ASSERT_EQ(0, memcmp(self->region, src, len)) TH_LOG("WRITE %d", i);
		/* READ it back */
		memset(sink, 0, len);
		sge = (struct ibv_sge){ (uintptr_t)sink, len, self->lmr->lkey };
		wr.opcode = IBV_WR_RDMA_READ;
		ASSERT_EQ(IBV_WC_SUCCESS, dp_guard_post(_metadata, &self->qa, &wr))
			TH_LOG("READ %d", i);
		ASSERT_EQ(0, memcmp(sink, src, len)) TH_LOG("READ %d", i);
		/* SEND src into the region's second half */
		rsge = (struct ibv_sge){ (uintptr_t)self->region + len,
					 len - 8, rmr->lkey };
		rwr = (struct ibv_recv_wr){ .wr_id = i, .sg_list = &rsge,
					    .num_sge = 1 };
		ASSERT_EQ(0, ibv_post_recv(self->qb.qp, &rwr, &bad_r));
		sge.addr = (uintptr_t)src;
		sge.length = len - 8;
		wr.opcode = IBV_WR_SEND;
		ASSERT_EQ(IBV_WC_SUCCESS, dp_guard_post(_metadata, &self->qa, &wr))
			TH_LOG("SEND %d", i);
		ASSERT_EQ(0, dp_poll(self->qb.cq, &wc, dp_timeout_ms()));
		ASSERT_EQ(IBV_WC_SUCCESS, (int)wc.status);
		ASSERT_EQ(len - 8, wc.byte_len);
		ASSERT_EQ(0, memcmp(self->region + len, src, len - 8));
		if (!atomics)
			continue;
		/* Fetch-and-add: each exactly once, whatever was resent */
		sge = (struct ibv_sge){ (uintptr_t)sink, 8, self->lmr->lkey };
		wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = (uintptr_t)fadd;
		wr.wr.atomic.compare_add = 1;
		wr.wr.atomic.rkey = rmr->rkey;
		ASSERT_EQ(IBV_WC_SUCCESS, dp_guard_post(_metadata, &self->qa, &wr))
			TH_LOG("ATOMIC %d", i);
		ASSERT_EQ(counter, *(uint64_t *)sink) TH_LOG("ATOMIC %d", i);
		counter++;
	}
	if (atomics)
		EXPECT_EQ(counter, *fadd);
	TH_LOG("%d%%: %ld packet allocations failed", percent,
	       fi_fn_injected());
	EXPECT_LT(0, fi_fn_injected());
	ibv_dereg_mr(rmr);
}

TEST_F(data, rc_completes_while_packet_allocations_fail)
{
	if (!self->ready)
		return;
	fi_traffic(_metadata, self, 5);
}

#define FI_OUTAGE_MS	300

/*
 * A memory outage: every packet allocation fails for FI_OUTAGE_MS while
 * a WRITE and a READ wait.  They complete once memory is back, and in
 * between the engines waited for it (vrnic_xport_nomem_wait(): a jiffy,
 * at most a millisecond) instead of retrying at once: a few failed
 * allocations per millisecond, where a retry loop makes dozens.
 */
TEST_F(data, rc_waits_out_a_memory_outage)
{
	uint32_t len = DP_GUARD_REGION / 2;
	struct ibv_sge sge[2];
	struct ibv_send_wr wr[2], *bad;
	struct ibv_mr *rmr;
	struct ibv_wc wc;
	struct timespec t0;
	long before, during;
	long long ms;
	int i;

	if (!self->ready)
		return;
	rmr = ibv_reg_mr(self->b->pd, self->region, DP_GUARD_REGION,
			 DP_GUARD_ALL_ACCESS);
	ASSERT_NE(NULL, rmr);
	for (i = 0; i < (int)len; i++)
		self->lbuf[i] = (uint8_t)(i * 13 + 5);
	memset(self->lbuf + len, 0, len);
	sge[0] = (struct ibv_sge){ (uintptr_t)self->lbuf, len, self->lmr->lkey };
	sge[1] = (struct ibv_sge){ (uintptr_t)self->lbuf + len, len,
				   self->lmr->lkey };
	/* The READ fetches the region's second half, which is not written. */
	wr[0] = (struct ibv_send_wr){
		.wr_id = 1, .sg_list = &sge[0], .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { dp_guard_va(&self->g, 0), rmr->rkey },
		.next = &wr[1],
	};
	wr[1] = (struct ibv_send_wr){
		.wr_id = 2, .sg_list = &sge[1], .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { dp_guard_va(&self->g, len), rmr->rkey },
	};

	ASSERT_EQ(0, fi_knob(&self->knobs, "fail_function/probability", "100"));
	before = fi_fn_injected();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, ibv_post_send(self->qa.qp, wr, &bad));
	usleep(FI_OUTAGE_MS * 1000);
	during = fi_fn_injected() - before;
	ms = dp_ms_since(&t0);
	EXPECT_EQ(0, ibv_poll_cq(self->qa.cq, 1, &wc)) TH_LOG("completed without memory");
	ASSERT_EQ(0, fi_write(FI_FN "/probability", "0"));

	for (i = 1; i <= 2; i++) {
		ASSERT_EQ(0, dp_poll(self->qa.cq, &wc, dp_timeout_ms()));
		EXPECT_EQ(i, (int)wc.wr_id);
		EXPECT_EQ(IBV_WC_SUCCESS, (int)wc.status)
			TH_LOG("%s", ibv_wc_status_str(wc.status));
	}
	EXPECT_EQ(0, memcmp(self->region, self->lbuf, len));
	EXPECT_EQ(0, memcmp(self->lbuf + len, self->shadow + DP_GUARD_PAGE + len,
			    len));
	TH_LOG("outage of %lld ms: %ld packet allocations failed", ms, during);
	EXPECT_LT(0, during);
	EXPECT_GE(4 * ms + 100, during) TH_LOG("retried without waiting");
	ibv_dereg_mr(rmr);
}

/*
 * The receiving side: a multicast packet is cloned for each QP attached
 * to its group (mcast.c), in softirq context.  failslab fails a share of
 * the atomic allocations of the skb head cache, on both ends: the
 * sender's packets (built again a jiffy later) and the receiver's clones
 * (a drop, counted as drop_no_memory).  Every message sent must either
 * arrive whole, in order, or be counted: nothing lost unseen, nothing
 * delivered damaged.
 */
#define FI_MC_MSGS	200u
#define FI_MC_LEN	64
#define FI_MC_QKEY	0x11223344u
#define FI_MC_GROUP	(239u << 24 | 77 << 16 | 12 << 8 | 1)
#define FI_SKB_CACHE	"/sys/kernel/slab/skbuff_head_cache/failslab"

static void fi_mc_payload(uint8_t *p, uint32_t i)
{
	uint32_t j;

	memcpy(p, &i, sizeof(i));
	for (j = sizeof(i); j < FI_MC_LEN; j++)
		p[j] = (uint8_t)(i * 29 + j);
}

TEST_F(data, multicast_counts_the_copies_it_cannot_make)
{
	const char *ns = getenv("DP_NS"), *b_addr = getenv("DP_NS_ADDR4");
	struct in_addr group = { htonl(FI_MC_GROUP) };
	const uint32_t slot = WP_GRH + FI_MC_LEN;
	struct dp_qp ud_a, ud_b;
	struct ibv_mr *mr_b = NULL;
	struct ibv_ah *ah = NULL;
	struct ip_mreqn mreq = { 0 };
	union ibv_gid mgid = { 0 };
	long long drops0, drops;
	uint32_t i, received = 0, next = 0;
	uint8_t *rbuf = NULL;
	char times[32];
	int sock = -1;

	if (!self->ready)
		return;
	if (!variant->pair)
		SKIP(return, "one device's own members get the IP stack's looped-back clone, which failslab drops uncounted: the pair only");
	if (!ns || !b_addr)
		SKIP(return, "DP_NS / DP_NS_ADDR4 not set: no namespace for the receiver");
	if (fi_read(FI_SKB_CACHE, times, sizeof(times)) || strcmp(times, "1"))
		SKIP(return, "%s is not 1: boot with slub_debug=A,skbuff_head_cache (debug-kernel.sh does)",
		     FI_SKB_CACHE);

	/* B's interface joins the group, as rdma_cm would. */
	sock = wp_socket_in(ns, AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, sock) TH_LOG("socket in %s: %s", ns, strerror(-sock));
	mreq.imr_multiaddr = group;
	ASSERT_EQ(1, inet_pton(AF_INET, b_addr, &mreq.imr_address));
	ASSERT_EQ(0, setsockopt(sock, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mreq,
				sizeof(mreq))) TH_LOG("join: %s", strerror(errno));

	ASSERT_EQ(0, dp_ud_qp_create(&ud_b, self->b, FI_MC_QKEY, FI_MC_MSGS));
	rbuf = calloc(FI_MC_MSGS, slot);
	ASSERT_NE(NULL, rbuf);
	mr_b = ibv_reg_mr(self->b->pd, rbuf, (size_t)FI_MC_MSGS * slot,
			  IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr_b);
	for (i = 0; i < FI_MC_MSGS; i++) {
		struct ibv_sge sge = { (uintptr_t)(rbuf + i * slot), slot,
				       mr_b->lkey };
		struct ibv_recv_wr rwr = { .wr_id = i, .sg_list = &sge,
					   .num_sge = 1 }, *bad;

		ASSERT_EQ(0, ibv_post_recv(ud_b.qp, &rwr, &bad));
	}
	mgid.raw[10] = 0xff;
	mgid.raw[11] = 0xff;
	memcpy(mgid.raw + 12, &group, 4);
	ASSERT_EQ(0, ibv_attach_mcast(ud_b.qp, &mgid, 0));
	ASSERT_EQ(0, dp_ud_qp_create(&ud_a, self->a, FI_MC_QKEY, 16));
	ah = ibv_create_ah(self->a->pd, &(struct ibv_ah_attr){
		.is_global = 1, .port_num = DP_PORT,
		.grh = { .dgid = mgid, .sgid_index = self->a->gid_idx,
			 .hop_limit = 1 },
	});
	ASSERT_NE(NULL, ah);

	/* Only the skb head cache, only where the caller cannot sleep. */
	ASSERT_EQ(0, fi_knob(&self->knobs, "failslab/probability", "0"));
	ASSERT_EQ(0, fi_knob(&self->knobs, "failslab/cache-filter", "Y"));
	ASSERT_EQ(0, fi_knob(&self->knobs, "failslab/ignore-gfp-wait", "Y"));
	ASSERT_EQ(0, fi_knob(&self->knobs, "failslab/task-filter", "N"));
	ASSERT_EQ(0, fi_knob(&self->knobs, "failslab/verbose", "0"));
	ASSERT_EQ(0, fi_knob(&self->knobs, "failslab/interval", "1"));
	ASSERT_EQ(0, fi_knob(&self->knobs, "failslab/space", "0"));
	snprintf(times, sizeof(times), "%d", FI_TIMES);
	ASSERT_EQ(0, fi_knob(&self->knobs, "failslab/times", times));
	drops0 = wp_counter(self->b->name, "drop_no_memory");
	ASSERT_LE(0, drops0);
	ASSERT_EQ(0, fi_write(FI_DEBUGFS "/failslab/probability", "20"));

	for (i = 0; i < FI_MC_MSGS; i++) {
		struct ibv_sge sge = { (uintptr_t)self->lbuf, FI_MC_LEN,
				       self->lmr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { .ah = ah, .remote_qpn = 0xffffff,
				   .remote_qkey = FI_MC_QKEY },
		}, *bad;
		struct ibv_wc wc;

		fi_mc_payload(self->lbuf, i);
		ASSERT_EQ(0, ibv_post_send(ud_a.qp, &wr, &bad));
		ASSERT_EQ(0, dp_poll(ud_a.cq, &wc, dp_timeout_ms()))
			TH_LOG("send %u did not complete", i);
		ASSERT_EQ(IBV_WC_SUCCESS, (int)wc.status)
			TH_LOG("send %u: %s", i, ibv_wc_status_str(wc.status));
	}
	ASSERT_EQ(0, fi_write(FI_DEBUGFS "/failslab/probability", "0"));
	ASSERT_EQ(0, fi_read(FI_DEBUGFS "/failslab/times", times, sizeof(times)));

	/* What arrived: whole, each message once, in the order sent. */
	for (;;) {
		struct ibv_wc wc;
		uint32_t idx;

		if (dp_poll(ud_b.cq, &wc, 1000))
			break;
		ASSERT_EQ(IBV_WC_SUCCESS, (int)wc.status)
			TH_LOG("%s", ibv_wc_status_str(wc.status));
		ASSERT_EQ(slot, wc.byte_len);
		ASSERT_GT(FI_MC_MSGS, wc.wr_id);
		memcpy(&idx, rbuf + wc.wr_id * slot + WP_GRH, sizeof(idx));
		ASSERT_LE(next, idx) TH_LOG("message %u after %u", idx, next);
		ASSERT_GT(FI_MC_MSGS, idx);
		fi_mc_payload(self->lbuf, idx);
		ASSERT_EQ(0, memcmp(rbuf + wc.wr_id * slot + WP_GRH,
				    self->lbuf, FI_MC_LEN))
			TH_LOG("message %u damaged", idx);
		next = idx + 1;
		received++;
	}
	drops = wp_counter(self->b->name, "drop_no_memory") - drops0;
	TH_LOG("%u of %u messages received, %lld copies dropped for memory; %ld skb head allocations failed",
	       received, FI_MC_MSGS, drops, FI_TIMES - strtol(times, NULL, 10));
	EXPECT_LT(0, drops) TH_LOG("no clone failed: the case tested nothing");
	EXPECT_LT(0u, received);
	EXPECT_EQ(FI_MC_MSGS, received + drops)
		TH_LOG("a message neither arrived nor was counted");

	ibv_destroy_ah(ah);
	dp_qp_destroy(&ud_a);
	EXPECT_EQ(0, ibv_detach_mcast(ud_b.qp, &mgid, 0));
	dp_qp_destroy(&ud_b);
	ibv_dereg_mr(mr_b);
	free(rbuf);
	close(sock);
}

int main(int argc, char **argv)
{
	if (dp_own_setup(argv))
		ksft_print_msg("could not create a %s device; set DP_DEV\n",
			       getenv("DP_LINK_TYPE") ?: "vrnic");
	return test_harness_run(argc, argv);
}
