/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device and QP plumbing shared by the data-path harness tests
 * (dp_random.c, dp_security.c, dp_mw.c), and their self-setup when no
 * device is given.  Include after kselftest_harness.h and
 * <infiniband/verbs.h>.
 */
#ifndef VRNIC_DP_VERBS_H
#define VRNIC_DP_VERBS_H

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "roce_gid.h"
#include "vrnic_sh.h"

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
	struct ibv_qp_ex *qpx;	/* dp_qp_create_ex() only */
	struct dp_dev *dev;
};

/* Not every test uses every helper. */
#define DP_MAYBE_UNUSED __attribute__((unused))

static DP_MAYBE_UNUSED int dp_timeout_ms(void)
{
	const char *s = getenv("DP_TIMEOUT_MS");

	return s ? atoi(s) : 60000;
}

/*
 * The QPs' local ACK timeout, 4.096 us << n (IBA 9.7.6.1.3): 67 ms, seven
 * retries.  Where the runner says the kernel is slower
 * (VRNIC_TEST_TIMEOUT_FACTOR, 4 on the debug kernel), four times longer
 * for each doubling of the factor (1.07 s at 4): under KASAN a READ response packet between two
 * namespaces costs about 5 ms instead of 40 us, so a responder's queue of
 * responses the requester no longer wants (it went back to a gap) takes
 * seconds to drain, past eight timeouts of 67 ms -- a transport retry
 * error the test would report although the data path is right.
 */
static DP_MAYBE_UNUSED unsigned int dp_ack_timeout(void)
{
	const char *s = getenv("VRNIC_TEST_TIMEOUT_FACTOR");
	unsigned int n = 14;
	long factor = s ? strtol(s, NULL, 10) : 1;

	for (; factor > 1 && n < 20; factor /= 2)
		n += 2;
	return n;
}

/* The RoCE v2 GID of @family on port 1 into @d (see roce_gid_find()). */
static int dp_find_gid(struct dp_dev *d, int family)
{
	int idx = roce_gid_find(d->ctx, DP_PORT, family, &d->gid);

	if (idx < 0)
		return idx;
	d->gid_idx = idx;
	return 0;
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

/* Start @q on @d: its CQ of @cqe entries, no QP yet. */
static int dp_qp_cq_create(struct dp_qp *q, struct dp_dev *d, int cqe)
{
	memset(q, 0, sizeof(*q));
	q->dev = d;
	q->cq = ibv_create_cq(d->ctx, cqe, NULL, NULL, 0);
	return q->cq ? 0 : -errno;
}

/*
 * A QP of @type on @d's PD with both queues on @cq, @depth WRs and
 * @max_sge SGEs each way, every send signalled; with @send_ops
 * (IBV_QP_EX_WITH_*) for the extended post-send API.  NULL with errno
 * set on failure.
 */
static DP_MAYBE_UNUSED struct ibv_qp *
dp_qp_on_cq(struct dp_dev *d, struct ibv_cq *cq, enum ibv_qp_type type,
	    uint32_t depth, uint32_t max_sge, uint64_t send_ops)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = depth,
			.max_recv_wr = depth,
			.max_send_sge = max_sge,
			.max_recv_sge = max_sge,
		},
		.qp_type = type,
		.sq_sig_all = 1,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = d->pd,
	};

	if (send_ops) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ia.send_ops_flags = send_ops;
	}
	return ibv_create_qp_ex(d->ctx, &ia);
}

/*
 * An RC QP in INIT.  With @send_ops (IBV_QP_EX_WITH_*) it is created with
 * ibv_create_qp_ex() for the extended post-send API (q->qpx).
 */
static DP_MAYBE_UNUSED int dp_qp_create_ex(struct dp_qp *q, struct dp_dev *d,
					   int max_sge, int qp_access,
					   uint64_t send_ops)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = 16,
			.max_send_sge = max_sge,
			.max_recv_sge = max_sge,
		},
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = d->pd,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = DP_PORT,
		.qp_access_flags = qp_access,
	};
	int ret;

	ret = dp_qp_cq_create(q, d, 64);
	if (ret)
		return ret;
	ia.send_cq = q->cq;
	ia.recv_cq = q->cq;
	if (send_ops) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ia.send_ops_flags = send_ops;
		q->qp = ibv_create_qp_ex(d->ctx, &ia);
	} else {
		struct ibv_qp_init_attr ia0 = {
			.send_cq = q->cq,
			.recv_cq = q->cq,
			.cap = ia.cap,
			.qp_type = ia.qp_type,
			.sq_sig_all = ia.sq_sig_all,
		};

		q->qp = ibv_create_qp(d->pd, &ia0);
	}
	if (!q->qp) {
		ret = -errno;
		goto err_destroy;
	}
	if (send_ops)
		q->qpx = ibv_qp_to_qp_ex(q->qp);
	ret = ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		goto err_destroy;
	return 0;

err_destroy:
	dp_qp_destroy(q);
	return ret > 0 ? -ret : ret;
}

static DP_MAYBE_UNUSED int dp_qp_create(struct dp_qp *q, struct dp_dev *d,
					int max_sge, int qp_access)
{
	return dp_qp_create_ex(q, d, max_sge, qp_access, 0);
}

/* A UD QP in RTS with Q_Key @qkey, @depth WQEs each way, its own CQ. */
static DP_MAYBE_UNUSED int dp_ud_qp_create(struct dp_qp *q, struct dp_dev *d,
					   uint32_t qkey, uint32_t depth)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD,
		.cap = {
			.max_send_wr = depth,
			.max_recv_wr = depth,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = DP_PORT,
		.qkey = qkey,
	};
	int ret;

	ret = dp_qp_cq_create(q, d, 2 * depth);
	if (ret)
		return ret;
	ia.send_cq = q->cq;
	ia.recv_cq = q->cq;
	q->qp = ibv_create_qp(d->pd, &ia);
	if (!q->qp) {
		ret = -errno;
		goto err_destroy;
	}
	ret = ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_QKEY);
	if (ret)
		goto err_destroy;
	a.qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(q->qp, &a, IBV_QP_STATE);
	if (ret)
		goto err_destroy;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	ret = ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	if (ret)
		goto err_destroy;
	return 0;

err_destroy:
	dp_qp_destroy(q);
	return ret > 0 ? -ret : ret;
}

/*
 * INIT -> RTR -> RTS towards @peer, RoCE v2 addressing through its GID;
 * @dest_rd: max_dest_rd_atomic (responder resources), -1 for as many as
 * max_rd_atomic.
 */
static DP_MAYBE_UNUSED int dp_qp_connect_rd(struct dp_qp *q,
					    struct dp_qp *peer,
					    enum ibv_mtu mtu, uint32_t sq_psn,
					    uint32_t rq_psn, int dest_rd)
{
	int rd = q->dev->attr.max_qp_rd_atom < 16 ?
		 q->dev->attr.max_qp_rd_atom : 16;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu,
		.dest_qp_num = peer->qp->qp_num,
		.rq_psn = rq_psn,
		.max_dest_rd_atomic = dest_rd < 0 ? rd : dest_rd,
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
	a.timeout = dp_ack_timeout();
	a.retry_cnt = 7;
	a.rnr_retry = 7;	/* infinite */
	a.max_rd_atomic = rd;
	return -ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			      IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

static DP_MAYBE_UNUSED int dp_qp_connect(struct dp_qp *q, struct dp_qp *peer,
					 enum ibv_mtu mtu, uint32_t sq_psn,
					 uint32_t rq_psn)
{
	return dp_qp_connect_rd(q, peer, mtu, sq_psn, rq_psn, -1);
}

/* Milliseconds since @t0 (CLOCK_MONOTONIC). */
static DP_MAYBE_UNUSED long long dp_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000LL +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Busy-poll one completion; 0, or -ETIMEDOUT / -EIO. */
static int dp_poll(struct ibv_cq *cq, struct ibv_wc *wc, int timeout_ms)
{
	struct timespec t0;
	int n, spin;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (spin = 0;; spin++) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return -EIO;
		if (n == 1)
			return 0;
		if (dp_ms_since(&t0) > timeout_ms)
			return -ETIMEDOUT;
		/* leave the CPUs to a software device's kernel threads */
		if (spin > 100)
			usleep(100);
	}
}

/* ---- self-setup when no device is given ---- */

/*
 * Without DP_DEV, run this program again through lib/own_pair.sh, which
 * builds a veth pair and a device on each end with ktap.sh's veth_setup()
 * (the one topology builder of the selftests) and removes them when the
 * program exits.  It sets DP_DEV, DP_DEV2, DP_VETH, DP_NS and DP_NS_ADDR4
 * (see there).  Returns 0 with DP_DEV set, -1 if the pair could not be
 * built; returns to the caller only then or when DP_DEV was given.
 */
static int dp_own_setup(char **argv)
{
	char exe[PATH_MAX], dir[PATH_MAX], script[PATH_MAX + 32];
	char *args[64];
	ssize_t n;
	int i;

	if (getenv("DP_DEV"))
		return 0;
	if (getenv("VRNIC_OWN_PAIR"))
		return -1;	/* own_pair.sh ran and said why it failed */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -1;
	exe[n] = 0;
	memcpy(dir, exe, n + 1);
	/* The binaries live in build/selftests/, the script in selftests/lib/. */
	snprintf(script, sizeof(script), "%s/../../selftests/lib/own_pair.sh",
		 dirname(dir));
	args[0] = script;
	args[1] = exe;
	for (i = 1; argv[i] && i < 62; i++)
		args[i + 1] = argv[i];
	args[i + 1] = NULL;
	execv(script, args);
	fprintf(stderr, "exec %s: %s\n", script, strerror(errno));
	return -1;
}

#endif /* VRNIC_DP_VERBS_H */
