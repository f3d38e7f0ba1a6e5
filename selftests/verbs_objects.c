// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_objects - vrnic's verbs objects driven through libibverbs and the
 * stock librxe provider.
 *
 * Each test gets a fresh vrnic device on its own dummy netdev (10.77.N.1),
 * so limits set by one test do not leak into another.  Covered: CQ
 * create/resize/destroy and the size checks, completions surviving a
 * resize, the QP state machine (valid and invalid transitions, attribute
 * checks), capability checks against the device limits, object limits
 * set over netlink (creation past the limit fails with ENOMEM), SRQ limit
 * event and its checks, MR access flag rules, key rotation, flushing on
 * entry to the error state, UD sends through a user AH (ah_num), an
 * lkey of a deregistered MR failing locally, and UD multicast (attach and
 * detach rules, the per-group limit, delivery to every attached QP with
 * the group's Q_Key).
 *
 * Data-moving cases use two RC/UD QPs of the same device talking to each
 * other over the device's own address.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "vrnic.h"
#include "vrnic_harness.h"
#include "roce_gid.h"
#include "vrnic_nl.h"
#include "vrnic_sh.h"

#define VB_PORT		1
#define VB_TIMEOUT_MS	30000

/* ---- device plumbing ---- */

FIXTURE(vdev) {
	char ifname[16];
	char name[32];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	struct ibv_port_attr pattr;
	union ibv_gid gid;
	int gid_idx;
};

FIXTURE_SETUP(vdev)
{
	struct ibv_device **list;
	int i, n, id = getpid() % 200;

	snprintf(self->ifname, sizeof(self->ifname), "vb%d", id);
	snprintf(self->name, sizeof(self->name), "vverbs%d", id);
	/*
	 * Failures, not skips: the runner loads vrnic first, and 6.1's
	 * harness runs the test body even after a SKIP in setup.
	 */
	ASSERT_EQ(0, vrnic_sh("ip link add %s type dummy && "
			      "ip link set %s up && ip addr add 10.77.%d.1/24 dev %s",
			      self->ifname, self->ifname, id, self->ifname))
		TH_LOG("cannot create a dummy netdev");
	ASSERT_EQ(0, vrnic_sh("rdma link add %s type vrnic netdev %s",
			      self->name, self->ifname))
		TH_LOG("cannot create a vrnic device");

	list = ibv_get_device_list(&n);
	ASSERT_NE(NULL, list);
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), self->name))
			self->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	ASSERT_NE(NULL, self->ctx) TH_LOG("%s not found by libibverbs",
					  self->name);
	ASSERT_EQ(0, ibv_query_device(self->ctx, &self->attr));
	ASSERT_EQ(0, ibv_query_port(self->ctx, VB_PORT, &self->pattr));
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->gid_idx = roce_gid_find(self->ctx, VB_PORT, AF_INET, &self->gid);
	ASSERT_LE(0, self->gid_idx) TH_LOG("no RoCEv2 IPv4 GID");
}

FIXTURE_TEARDOWN(vdev)
{
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
	/*
	 * After a failed assertion the process may still map rings of
	 * objects it did not destroy; the uverbs file, and so the device,
	 * stays busy until it exits.  Remove the device in the background so
	 * that the removal waiting for us cannot block us.
	 */
	vrnic_sh("(rdma link delete %s; ip link del %s) >/dev/null 2>&1 &",
	      self->name, self->ifname);
}

/* ---- QP helpers ---- */

static struct ibv_qp *vb_qp(struct ibv_pd *pd, enum ibv_qp_type type,
			    struct ibv_cq *cq, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = type,
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.sq_sig_all = 1,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = 16,
			.max_send_sge = 2,
			.max_recv_sge = 2,
		},
	};

	return ibv_create_qp(pd, &ia);
}

static int vb_to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = VB_PORT,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
		.qkey = 0x11111111,
	};

	if (qp->qp_type == IBV_QPT_UD)
		return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				     IBV_QP_PORT | IBV_QP_QKEY);
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static void vb_ah_attr(struct __test_metadata *_metadata,
		       FIXTURE_DATA(vdev) *self, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->port_num = VB_PORT;
	ah->grh.dgid = self->gid;
	ah->grh.sgid_index = self->gid_idx;
	ah->grh.hop_limit = 64;
}

static int vb_rc_rtr_attr(FIXTURE_DATA(vdev) *self, struct ibv_qp_attr *a,
			  uint32_t dqpn)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTR;
	a->path_mtu = IBV_MTU_1024;
	a->dest_qp_num = dqpn;
	a->rq_psn = 100;
	a->max_dest_rd_atomic = 4;
	a->min_rnr_timer = 1;
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = VB_PORT;
	a->ah_attr.grh.dgid = self->gid;
	a->ah_attr.grh.sgid_index = self->gid_idx;
	a->ah_attr.grh.hop_limit = 64;
	return IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
	       IBV_QP_MIN_RNR_TIMER;
}

static int vb_rts_attr(struct ibv_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTS;
	a->sq_psn = 100;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->max_rd_atomic = 4;
	return IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
	       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
}

/* Connect two RC QPs of the device to each other and bring both to RTS. */
static int vb_rc_connect(FIXTURE_DATA(vdev) *self, struct ibv_qp *a,
			 struct ibv_qp *b)
{
	struct ibv_qp_attr attr;
	int mask, ret;

	ret = vb_to_init(a) ?: vb_to_init(b);
	if (ret)
		return ret;
	mask = vb_rc_rtr_attr(self, &attr, b->qp_num);
	ret = ibv_modify_qp(a, &attr, mask);
	if (ret)
		return ret;
	mask = vb_rc_rtr_attr(self, &attr, a->qp_num);
	ret = ibv_modify_qp(b, &attr, mask);
	if (ret)
		return ret;
	mask = vb_rts_attr(&attr);
	return ibv_modify_qp(a, &attr, mask) ?: ibv_modify_qp(b, &attr, mask);
}

static int vb_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

static long vb_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Poll @n completions into @wc; returns how many arrived in time. */
static int vb_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	struct timespec t0;
	int got = 0, r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < n && vb_ms_since(&t0) < VB_TIMEOUT_MS) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
		if (!r)
			usleep(1000);
	}
	return got;
}

static int vb_post_recv(struct ibv_qp *qp, struct ibv_srq *srq,
			struct ibv_mr *mr, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)mr->addr,
		.length = (uint32_t)mr->length,
		.lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;

	return srq ? ibv_post_srq_recv(srq, &wr, &bad) :
		     ibv_post_recv(qp, &wr, &bad);
}

static int vb_post_send(struct ibv_qp *qp, struct ibv_mr *mr, uint32_t len,
			uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)mr->addr,
		.length = len,
		.lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* ---- CQ ---- */

TEST_F(vdev, cq_create_resize_destroy)
{
	struct ibv_wc wc;
	struct ibv_cq *cq;
	int max = self->attr.max_cqe;

	cq = ibv_create_cq(self->ctx, 10, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	EXPECT_LE(10, cq->cqe);

	ASSERT_EQ(0, ibv_resize_cq(cq, 100));
	EXPECT_LE(100, cq->cqe);
	ASSERT_EQ(0, ibv_resize_cq(cq, 5));
	EXPECT_LE(5, cq->cqe);
	EXPECT_GT(100, cq->cqe);
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));

	EXPECT_NE(0, ibv_resize_cq(cq, max + 1));
	EXPECT_EQ(0, ibv_destroy_cq(cq));

	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->ctx, max + 1, NULL, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
}

/* Receives flushed into a CQ are still there, in order, after a resize. */
TEST_F(vdev, cq_resize_keeps_completions)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq, *ev_cq;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[8];
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	struct pollfd pfd;
	char buf[64];
	void *ev_ctx;
	int i;

	ch = ibv_create_comp_channel(self->ctx);
	ASSERT_NE(NULL, ch);
	cq = ibv_create_cq(self->ctx, 8, NULL, ch, 0);
	ASSERT_NE(NULL, cq);
	qp = vb_qp(self->pd, IBV_QPT_RC, cq, NULL);
	ASSERT_NE(NULL, qp);
	mr = ibv_reg_mr(self->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	ASSERT_EQ(0, vb_to_init(qp));
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, vb_post_recv(qp, NULL, mr, i));

	ASSERT_EQ(0, ibv_req_notify_cq(cq, 0));
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	pfd.fd = ch->fd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, VB_TIMEOUT_MS))
		TH_LOG("no completion event after entering ERR");
	ASSERT_EQ(0, ibv_get_cq_event(ch, &ev_cq, &ev_ctx));
	ibv_ack_cq_events(ev_cq, 1);
	usleep(500 * 1000);

	ASSERT_EQ(0, ibv_resize_cq(cq, 64));
	ASSERT_EQ(5, vb_poll(cq, wc, 5));
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, (int)wc[i].status);
		EXPECT_EQ((uint64_t)i, wc[i].wr_id);
		EXPECT_EQ(qp->qp_num, wc[i].qp_num);
	}
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, wc));

	ibv_dereg_mr(mr);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_destroy_comp_channel(ch);
}

/*
 * More completions than a CQ holds: the CQ reports IB_EVENT_CQ_ERR, and a
 * resize below the number of completions it holds is refused.
 */
TEST_F(vdev, cq_overflow_reports_cq_err)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_async_event ev;
	struct ibv_cq *cq, *scq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct pollfd pfd;
	char buf[64];
	int i, n;

	cq = ibv_create_cq(self->ctx, 2, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	scq = ibv_create_cq(self->ctx, 2, NULL, NULL, 0);
	ASSERT_NE(NULL, scq);
	ia.send_cq = scq;
	ia.recv_cq = cq;
	qp = ibv_create_qp(self->pd, &ia);
	ASSERT_NE(NULL, qp);
	mr = ibv_reg_mr(self->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	ASSERT_EQ(0, vb_to_init(qp));
	n = cq->cqe + 2;
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, vb_post_recv(qp, NULL, mr, i));
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));

	pfd.fd = self->ctx->async_fd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, VB_TIMEOUT_MS)) TH_LOG("no async event");
	ASSERT_EQ(0, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(IBV_EVENT_CQ_ERR, (int)ev.event_type);
	EXPECT_EQ(cq, ev.element.cq);
	ibv_ack_async_event(&ev);

	/* The CQ is full: it cannot shrink below what it holds. */
	EXPECT_NE(0, ibv_resize_cq(cq, 1));

	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_destroy_cq(scq);
}

/* ---- QP ---- */

TEST_F(vdev, qp_state_machine_rc)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a, q;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int mask;

	cq = ibv_create_cq(self->ctx, 32, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	qp = vb_qp(self->pd, IBV_QPT_RC, cq, NULL);
	ASSERT_NE(NULL, qp);
	EXPECT_EQ(IBV_QPS_RESET, vb_state(qp));

	/* RESET -> RTR skips INIT. */
	mask = vb_rc_rtr_attr(self, &a, qp->qp_num);
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask));
	/* RESET -> INIT without its required attributes. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	/* Port 2 does not exist. */
	a.port_num = 2;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE |
					IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					IBV_QP_ACCESS_FLAGS));
	EXPECT_EQ(IBV_QPS_RESET, vb_state(qp));

	ASSERT_EQ(0, vb_to_init(qp));
	EXPECT_EQ(IBV_QPS_INIT, vb_state(qp));
	ASSERT_EQ(0, vb_to_init(qp));	/* INIT -> INIT is allowed */

	/* INIT -> RTS skips RTR. */
	mask = vb_rts_attr(&a);
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask));
	/* INIT -> RTR without the destination QPN. */
	mask = vb_rc_rtr_attr(self, &a, qp->qp_num);
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask & ~IBV_QP_DEST_QPN));
	/* A path MTU above the port's active MTU. */
	a.path_mtu = self->pattr.active_mtu + 1;
	if (a.path_mtu <= IBV_MTU_4096)
		EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask));
	EXPECT_EQ(IBV_QPS_INIT, vb_state(qp));

	mask = vb_rc_rtr_attr(self, &a, qp->qp_num);
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, mask));
	EXPECT_EQ(IBV_QPS_RTR, vb_state(qp));

	/* retry_cnt is a 3-bit field. */
	mask = vb_rts_attr(&a);
	a.retry_cnt = 8;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask));
	mask = vb_rts_attr(&a);
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, mask));
	EXPECT_EQ(IBV_QPS_RTS, vb_state(qp));

	/* RTS -> RTR goes backwards. */
	mask = vb_rc_rtr_attr(self, &a, qp->qp_num);
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_SQD;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	EXPECT_EQ(IBV_QPS_SQD, vb_state(qp));
	a.qp_state = IBV_QPS_RTS;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	EXPECT_EQ(IBV_QPS_RTS, vb_state(qp));

	a.qp_state = IBV_QPS_ERR;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	EXPECT_EQ(IBV_QPS_ERR, vb_state(qp));
	/* ERR -> RTS is not a transition. */
	mask = vb_rts_attr(&a);
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask));

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RESET;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	EXPECT_EQ(IBV_QPS_RESET, vb_state(qp));
	ASSERT_EQ(0, vb_to_init(qp));

	/* The applied attributes read back. */
	mask = vb_rc_rtr_attr(self, &a, 0x123456);
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, mask));
	ASSERT_EQ(0, ibv_query_qp(qp, &q, IBV_QP_DEST_QPN | IBV_QP_PATH_MTU,
				  &ia));
	EXPECT_EQ(0x123456U, q.dest_qp_num);
	EXPECT_EQ(IBV_MTU_1024, (int)q.path_mtu);
	EXPECT_EQ(100U, q.rq_psn);
	EXPECT_LE(16U, ia.cap.max_send_wr);

	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

TEST_F(vdev, qp_state_machine_ud)
{
	struct ibv_qp_attr a = {};
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	cq = ibv_create_cq(self->ctx, 32, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	qp = vb_qp(self->pd, IBV_QPT_UD, cq, NULL);
	ASSERT_NE(NULL, qp);

	/* UD needs a Q_Key, not access flags, for INIT. */
	a.qp_state = IBV_QPS_INIT;
	a.port_num = VB_PORT;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE |
					IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					IBV_QP_ACCESS_FLAGS));
	ASSERT_EQ(0, vb_to_init(qp));
	a.qp_state = IBV_QPS_RTR;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	a.qp_state = IBV_QPS_RTS;
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, IBV_QP_STATE));
	a.sq_psn = 1;
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN));
	EXPECT_EQ(IBV_QPS_RTS, vb_state(qp));

	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

TEST_F(vdev, qp_caps_checked_against_limits)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	cq = ibv_create_cq(self->ctx, 32, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	ia.send_cq = cq;
	ia.recv_cq = cq;

	ia.cap.max_send_wr = self->attr.max_qp_wr + 1;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_qp(self->pd, &ia));
	EXPECT_EQ(EINVAL, errno);
	ia.cap.max_send_wr = 1;

	ia.cap.max_recv_sge = self->attr.max_sge + 1;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_qp(self->pd, &ia));
	EXPECT_EQ(EINVAL, errno);
	ia.cap.max_recv_sge = 1;

	ia.cap.max_inline_data = 1 << 20;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_qp(self->pd, &ia));
	EXPECT_EQ(EINVAL, errno);

	/* What succeeds holds at least what was asked for. */
	ia.cap.max_inline_data = 64;
	ia.cap.max_send_wr = 100;
	qp = ibv_create_qp(self->pd, &ia);
	ASSERT_NE(NULL, qp);
	EXPECT_LE(100U, ia.cap.max_send_wr);
	EXPECT_LE(64U, ia.cap.max_inline_data);
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

/* ---- limits over netlink ---- */

TEST_F(vdev, limit_max_qp)
{
	struct ibv_qp *qp[8];
	struct ibv_cq *cq;
	int n = 0, i, ret;

	ret = vnl_set_limit(self->name, VRNIC_LIMITS_ATTR_MAX_QP, 4);
	ASSERT_EQ(0, ret) TH_LOG("LIMITS_SET max_qp: %d", ret);
	cq = ibv_create_cq(self->ctx, 32, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);

	errno = 0;
	while (n < 8 && (qp[n] = vb_qp(self->pd, IBV_QPT_RC, cq, NULL)))
		n++;
	/* QP1 (the GSI QP of the MAD layer) may hold one of the four. */
	EXPECT_GE(4, n);
	EXPECT_LE(3, n);
	EXPECT_EQ(ENOMEM, errno);

	/* Freeing one makes room for one. */
	ASSERT_LT(0, n);
	ASSERT_EQ(0, ibv_destroy_qp(qp[--n]));
	qp[n] = vb_qp(self->pd, IBV_QPT_RC, cq, NULL);
	ASSERT_NE(NULL, qp[n]);
	n++;

	/* Raising the limit applies to the next creation. */
	ASSERT_EQ(0, vnl_set_limit(self->name, VRNIC_LIMITS_ATTR_MAX_QP, 64));
	qp[n] = vb_qp(self->pd, IBV_QPT_RC, cq, NULL);
	ASSERT_NE(NULL, qp[n]);
	n++;

	for (i = 0; i < n; i++)
		EXPECT_EQ(0, ibv_destroy_qp(qp[i]));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

/*
 * Kernel consumers of the device (the MAD layer's CQ, the DMA MR of its
 * PD) count against the same limits, so only an upper bound on what a
 * process gets is known: create until refused, then check the refusal.
 */
TEST_F(vdev, limit_max_cq_mr_srq)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_cq *cq[8];
	struct ibv_mr *mr[8];
	struct ibv_srq *srq[8];
	int ncq = 0, nmr = 0, nsrq = 0, i;
	char buf[64];

	ASSERT_EQ(0, vnl_set_limit(self->name, VRNIC_LIMITS_ATTR_MAX_CQ, 3));
	ASSERT_EQ(0, vnl_set_limit(self->name, VRNIC_LIMITS_ATTR_MAX_MR, 3));
	ASSERT_EQ(0, vnl_set_limit(self->name, VRNIC_LIMITS_ATTR_MAX_SRQ, 3));

	errno = 0;
	while (ncq < 8 &&
	       (cq[ncq] = ibv_create_cq(self->ctx, 4, NULL, NULL, 0)))
		ncq++;
	EXPECT_EQ(ENOMEM, errno);
	errno = 0;
	while (nmr < 8 &&
	       (mr[nmr] = ibv_reg_mr(self->pd, buf, sizeof(buf), 0)))
		nmr++;
	EXPECT_EQ(ENOMEM, errno);
	errno = 0;
	while (nsrq < 8 && (srq[nsrq] = ibv_create_srq(self->pd, &sa)))
		nsrq++;
	EXPECT_EQ(ENOMEM, errno);

	EXPECT_LE(1, ncq);
	EXPECT_GE(3, ncq);
	EXPECT_LE(1, nmr);
	EXPECT_GE(3, nmr);
	EXPECT_EQ(3, nsrq);	/* no kernel consumer uses SRQs */

	/* A freed object makes room for exactly one more. */
	if (ncq) {
		ASSERT_EQ(0, ibv_destroy_cq(cq[--ncq]));
		cq[ncq] = ibv_create_cq(self->ctx, 4, NULL, NULL, 0);
		ASSERT_NE(NULL, cq[ncq]);
		ncq++;
	}

	for (i = 0; i < nsrq; i++)
		EXPECT_EQ(0, ibv_destroy_srq(srq[i]));
	for (i = 0; i < nmr; i++)
		EXPECT_EQ(0, ibv_dereg_mr(mr[i]));
	for (i = 0; i < ncq; i++)
		EXPECT_EQ(0, ibv_destroy_cq(cq[i]));
}

/* ---- SRQ ---- */

TEST_F(vdev, srq_limit_event)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_async_event ev;
	struct ibv_srq_attr attr;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mr;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_wc wc[16];
	struct pollfd pfd;
	char buf[64] = "srq";
	int i, got = 0;

	cq = ibv_create_cq(self->ctx, 64, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	srq = ibv_create_srq(self->pd, &sa);
	ASSERT_NE(NULL, srq);
	EXPECT_LE(16U, sa.attr.max_wr);

	/* The limit may not exceed the SRQ size. */
	attr.srq_limit = sa.attr.max_wr + 1;
	EXPECT_NE(0, ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT));

	mr = ibv_reg_mr(self->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	qa = vb_qp(self->pd, IBV_QPT_RC, cq, NULL);
	qb = vb_qp(self->pd, IBV_QPT_RC, cq, srq);
	ASSERT_NE(NULL, qa);
	ASSERT_NE(NULL, qb);
	ASSERT_EQ(0, vb_rc_connect(self, qa, qb));

	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, vb_post_recv(NULL, srq, mr, 100 + i));
	attr.srq_limit = 4;
	ASSERT_EQ(0, ibv_modify_srq(srq, &attr, IBV_SRQ_LIMIT));
	ASSERT_EQ(0, ibv_query_srq(srq, &attr));
	EXPECT_EQ(4U, attr.srq_limit);

	/* 8 posted, 5 consumed: 3 left, below the limit of 4. */
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, vb_post_send(qa, mr, 8, i));
	got = vb_poll(cq, wc, 10);
	ASSERT_EQ(10, got) TH_LOG("5 sends + 5 receives expected");
	for (i = 0; i < got; i++)
		EXPECT_EQ(IBV_WC_SUCCESS, (int)wc[i].status);

	pfd.fd = self->ctx->async_fd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, VB_TIMEOUT_MS))
		TH_LOG("no async event");
	ASSERT_EQ(0, ibv_get_async_event(self->ctx, &ev));
	EXPECT_EQ(IBV_EVENT_SRQ_LIMIT_REACHED, (int)ev.event_type);
	EXPECT_EQ(srq, ev.element.srq);
	ibv_ack_async_event(&ev);

	/* The limit disarmed itself. */
	ASSERT_EQ(0, ibv_query_srq(srq, &attr));
	EXPECT_EQ(0U, attr.srq_limit);

	EXPECT_EQ(0, ibv_destroy_qp(qa));
	EXPECT_EQ(0, ibv_destroy_qp(qb));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

/* Wait for the next async event; 0 or -1 (none within @ms). */
static int vb_async_event_within(struct ibv_context *ctx,
				 struct ibv_async_event *ev, int ms)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) != 1)
		return -1;
	return ibv_get_async_event(ctx, ev);
}

static int vb_async_event(struct ibv_context *ctx, struct ibv_async_event *ev)
{
	return vb_async_event_within(ctx, ev, VB_TIMEOUT_MS);
}

/*
 * RTS -> SQD with IBV_QP_EN_SQD_ASYNC_NOTIFY: the SQ stops taking new
 * WQEs, the ones already started complete, then IBV_EVENT_SQ_DRAINED;
 * WQEs posted in SQD wait and go out after SQD -> RTS.
 */
TEST_F(vdev, sqd_drains_and_resumes)
{
	struct ibv_async_event ev;
	struct ibv_qp_attr a = {};
	struct ibv_qp *qa, *qb;
	struct ibv_wc wc[8];
	static char buf[64];
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	int i;

	cq = ibv_create_cq(self->ctx, 64, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	mr = ibv_reg_mr(self->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	qa = vb_qp(self->pd, IBV_QPT_RC, cq, NULL);
	qb = vb_qp(self->pd, IBV_QPT_RC, cq, NULL);
	ASSERT_NE(NULL, qa);
	ASSERT_NE(NULL, qb);
	ASSERT_EQ(0, vb_rc_connect(self, qa, qb));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, vb_post_recv(qb, NULL, mr, 200 + i));

	/* Traffic, then SQD: drained as soon as it is acknowledged. */
	ASSERT_EQ(0, vb_post_send(qa, mr, 8, 1));
	a.qp_state = IBV_QPS_SQD;
	a.en_sqd_async_notify = 1;
	ASSERT_EQ(0, ibv_modify_qp(qa, &a, IBV_QP_STATE |
				   IBV_QP_EN_SQD_ASYNC_NOTIFY));
	ASSERT_EQ(0, vb_async_event(self->ctx, &ev)) TH_LOG("no SQ drained");
	EXPECT_EQ(IBV_EVENT_SQ_DRAINED, (int)ev.event_type);
	EXPECT_EQ(qa, ev.element.qp);
	ibv_ack_async_event(&ev);
	ASSERT_EQ(2, vb_poll(cq, wc, 2)) TH_LOG("send + receive");
	EXPECT_EQ(IBV_QPS_SQD, vb_state(qa));

	/* Posted in SQD: not sent until the QP is back in RTS. */
	ASSERT_EQ(0, vb_post_send(qa, mr, 8, 2));
	usleep(200 * 1000);
	EXPECT_EQ(0, ibv_poll_cq(cq, 8, wc));
	a.qp_state = IBV_QPS_RTS;
	ASSERT_EQ(0, ibv_modify_qp(qa, &a, IBV_QP_STATE));
	ASSERT_EQ(2, vb_poll(cq, wc, 2)) TH_LOG("send posted in SQD");
	for (i = 0; i < 2; i++)
		EXPECT_EQ(IBV_WC_SUCCESS, (int)wc[i].status);

	/* Without the notify flag: no event. */
	a.qp_state = IBV_QPS_SQD;
	ASSERT_EQ(0, ibv_modify_qp(qa, &a, IBV_QP_STATE));
	EXPECT_EQ(IBV_QPS_SQD, vb_state(qa));
	EXPECT_EQ(-1, vb_async_event_within(self->ctx, &ev, 300));

	EXPECT_EQ(0, ibv_destroy_qp(qa));
	EXPECT_EQ(0, ibv_destroy_qp(qb));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

/* ---- MR ---- */

TEST_F(vdev, mr_access_flags)
{
	static char buf[4096];
	struct ibv_mr *mr, *mr2;
	uint32_t old;

	/* IBA: remote write or atomic requires local write. */
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, buf, sizeof(buf),
				   IBV_ACCESS_REMOTE_WRITE));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, buf, sizeof(buf),
				   IBV_ACCESS_REMOTE_ATOMIC));
	EXPECT_EQ(EINVAL, errno);

	mr = ibv_reg_mr(self->pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_READ);
	ASSERT_NE(NULL, mr);
	mr2 = ibv_reg_mr(self->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			 IBV_ACCESS_REMOTE_ATOMIC);
	ASSERT_NE(NULL, mr2);
	EXPECT_EQ(mr->lkey, mr->rkey);
	EXPECT_NE(mr->lkey, mr2->lkey);

	/* A new registration never reuses the key just released. */
	old = mr->lkey;
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	mr = ibv_reg_mr(self->pd, buf, sizeof(buf), 0);
	ASSERT_NE(NULL, mr);
	EXPECT_NE(old, mr->lkey);

	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_dereg_mr(mr2));
}

/* An lkey of a deregistered MR fails locally, and the QP flushes. */
TEST_F(vdev, mr_dereg_lkey_fails)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND,
	}, *bad;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mr, *rmr;
	struct ibv_cq *cq;
	struct ibv_wc wc[4];
	char buf[64], rbuf[64];
	uint32_t lkey;

	cq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	qa = vb_qp(self->pd, IBV_QPT_RC, cq, NULL);
	qb = vb_qp(self->pd, IBV_QPT_RC, cq, NULL);
	ASSERT_NE(NULL, qa);
	ASSERT_NE(NULL, qb);
	ASSERT_EQ(0, vb_rc_connect(self, qa, qb));
	rmr = ibv_reg_mr(self->pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, rmr);
	ASSERT_EQ(0, vb_post_recv(qb, NULL, rmr, 7));

	mr = ibv_reg_mr(self->pd, buf, sizeof(buf), 0);
	ASSERT_NE(NULL, mr);
	lkey = mr->lkey;
	ASSERT_EQ(0, ibv_dereg_mr(mr));
	sge.addr = (uintptr_t)buf;
	sge.length = 16;
	sge.lkey = lkey;
	ASSERT_EQ(0, ibv_post_send(qa, &wr, &bad));
	ASSERT_EQ(1, vb_poll(cq, wc, 1));
	EXPECT_EQ(1U, wc[0].wr_id);
	EXPECT_EQ(IBV_WC_LOC_PROT_ERR, (int)wc[0].status);
	EXPECT_EQ(IBV_QPS_ERR, vb_state(qa));

	EXPECT_EQ(0, ibv_destroy_qp(qa));
	EXPECT_EQ(0, ibv_destroy_qp(qb));
	EXPECT_EQ(0, ibv_dereg_mr(rmr));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

/* ---- flush ---- */

TEST_F(vdev, error_state_flushes_in_order)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp *qa, *qb;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_wc wc[8];
	char buf[64];
	int i;

	cq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	qa = vb_qp(self->pd, IBV_QPT_RC, cq, NULL);
	qb = vb_qp(self->pd, IBV_QPT_RC, cq, NULL);
	ASSERT_NE(NULL, qa);
	ASSERT_NE(NULL, qb);
	ASSERT_EQ(0, vb_rc_connect(self, qa, qb));
	mr = ibv_reg_mr(self->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);

	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, vb_post_recv(qb, NULL, mr, 10 + i));
	ASSERT_EQ(0, ibv_modify_qp(qb, &a, IBV_QP_STATE));
	ASSERT_EQ(4, vb_poll(cq, wc, 4));
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, (int)wc[i].status);
		EXPECT_EQ((uint64_t)(10 + i), wc[i].wr_id);
		EXPECT_EQ(qb->qp_num, wc[i].qp_num);
	}

	/* Sends posted in ERR complete as flushed too (IBA 10.8.3). */
	ASSERT_EQ(0, ibv_modify_qp(qa, &a, IBV_QP_STATE));
	ASSERT_EQ(0, vb_post_send(qa, mr, 8, 20));
	ASSERT_EQ(1, vb_poll(cq, wc, 1));
	EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, (int)wc[0].status);
	EXPECT_EQ(20U, wc[0].wr_id);

	EXPECT_EQ(0, ibv_destroy_qp(qa));
	EXPECT_EQ(0, ibv_destroy_qp(qb));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

/* ---- AH / UD ---- */

/* A UD send names its destination by the AH number librxe got from us. */
TEST_F(vdev, ud_send_through_user_ah)
{
	static char msg[] = "hello through ah_num";
	struct ibv_sge sge;
	struct ibv_send_wr wr = {
		.wr_id = 6, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND,
	}, *bad;
	struct ibv_mr *smr;
	struct ibv_qp_attr a = {};
	struct ibv_ah_attr aha;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	struct ibv_cq *cq;
	struct ibv_wc wc[2];
	char buf[40 + 64];
	int i, rcv = -1;

	cq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	qa = vb_qp(self->pd, IBV_QPT_UD, cq, NULL);
	qb = vb_qp(self->pd, IBV_QPT_UD, cq, NULL);
	ASSERT_NE(NULL, qa);
	ASSERT_NE(NULL, qb);
	for (i = 0; i < 2; i++) {
		struct ibv_qp *q = i ? qb : qa;

		ASSERT_EQ(0, vb_to_init(q));
		a.qp_state = IBV_QPS_RTR;
		ASSERT_EQ(0, ibv_modify_qp(q, &a, IBV_QP_STATE));
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = 1;
		ASSERT_EQ(0, ibv_modify_qp(q, &a, IBV_QP_STATE |
					   IBV_QP_SQ_PSN));
	}
	vb_ah_attr(_metadata, self, &aha);
	ah = ibv_create_ah(self->pd, &aha);
	ASSERT_NE(NULL, ah);

	memset(buf, 0, sizeof(buf));
	mr = ibv_reg_mr(self->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	ASSERT_EQ(0, vb_post_recv(qb, NULL, mr, 5));

	smr = ibv_reg_mr(self->pd, msg, sizeof(msg), 0);
	ASSERT_NE(NULL, smr);
	sge.addr = (uintptr_t)msg;
	sge.length = sizeof(msg);
	sge.lkey = smr->lkey;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qb->qp_num;
	wr.wr.ud.remote_qkey = 0x11111111;
	ASSERT_EQ(0, ibv_post_send(qa, &wr, &bad));
	ASSERT_EQ(2, vb_poll(cq, wc, 2));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, (int)wc[i].status);
		if (wc[i].wr_id == 5)
			rcv = i;
	}
	ASSERT_LE(0, rcv);
	EXPECT_EQ(40U + sizeof(msg), wc[rcv].byte_len);
	EXPECT_EQ(qa->qp_num, wc[rcv].src_qp);
	EXPECT_NE(0U, wc[rcv].wc_flags & IBV_WC_GRH);
	EXPECT_EQ(0, memcmp(buf + 40, msg, sizeof(msg)));
	EXPECT_EQ(0, ibv_dereg_mr(smr));

	EXPECT_EQ(0, ibv_destroy_ah(ah));
	EXPECT_EQ(0, ibv_destroy_qp(qa));
	EXPECT_EQ(0, ibv_destroy_qp(qb));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

/* ---- UD multicast (mcast.c) ---- */

#define VB_MC_QKEY	0x11111111	/* vb_to_init()'s */

/* Multicast group @n: the IPv4-mapped GID of 230.77.9.@n. */
static void vb_mgid(union ibv_gid *g, int n)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = 0xff;
	g->raw[11] = 0xff;
	g->raw[12] = 230;
	g->raw[13] = 77;
	g->raw[14] = 9;
	g->raw[15] = n;
}

/* A UD QP in RTS whose Q_Key is @qkey. */
static struct ibv_qp *vb_ud_rts(FIXTURE_DATA(vdev) *self, struct ibv_cq *cq,
				uint32_t qkey)
{
	struct ibv_qp_attr a = {};
	struct ibv_qp *qp;

	qp = vb_qp(self->pd, IBV_QPT_UD, cq, NULL);
	if (!qp)
		return NULL;
	a.qp_state = IBV_QPS_RTR;
	if (vb_to_init(qp) || ibv_modify_qp(qp, &a, IBV_QP_STATE))
		goto err;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	a.qkey = qkey;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_QKEY))
		goto err;
	return qp;
err:
	ibv_destroy_qp(qp);
	return NULL;
}

/*
 * Only UD QPs attach to multicast groups, and only to multicast GIDs
 * (multicast is a UD service); attaching twice is no change;
 * ib_uverbs refuses to destroy a QP still attached (EBUSY) but detaches
 * the QPs of a process that exits.
 */
/*
 * In a child: open @dev, attach a UD QP to @g and return without
 * cleaning up.  Returns 0, or the step that failed.
 */
static int vb_attach_and_exit(const char *dev, union ibv_gid *g)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		return 1;
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		return 2;
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	qp = cq ? vb_qp(pd, IBV_QPT_UD, cq, NULL) : NULL;
	if (!qp)
		return 3;
	return ibv_attach_mcast(qp, g, 0) ? 4 : 0;
}

TEST_F(vdev, mcast_attach_rules)
{
	struct ibv_qp *ud, *rc;
	struct ibv_cq *cq;
	union ibv_gid g;
	int status;
	pid_t pid;

	EXPECT_LT(0, self->attr.max_mcast_grp);
	EXPECT_LT(0, self->attr.max_mcast_qp_attach);
	EXPECT_LE(self->attr.max_mcast_qp_attach,
		  self->attr.max_total_mcast_qp_attach);
	cq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	ud = vb_ud_rts(self, cq, VB_MC_QKEY);
	rc = vb_qp(self->pd, IBV_QPT_RC, cq, NULL);
	ASSERT_NE(NULL, ud);
	ASSERT_NE(NULL, rc);
	vb_mgid(&g, 1);

	EXPECT_EQ(EINVAL, ibv_attach_mcast(rc, &g, 0));
	EXPECT_EQ(EINVAL, ibv_attach_mcast(ud, &self->gid, 0));
	EXPECT_EQ(0, ibv_attach_mcast(ud, &g, 0));
	EXPECT_EQ(0, ibv_attach_mcast(ud, &g, 0));
	EXPECT_EQ(0, ibv_detach_mcast(ud, &g, 0));
	EXPECT_EQ(EINVAL, ibv_detach_mcast(ud, &g, 0));
	EXPECT_EQ(0, ibv_attach_mcast(ud, &g, 0));
	EXPECT_EQ(EBUSY, ibv_destroy_qp(ud));
	EXPECT_EQ(0, ibv_detach_mcast(ud, &g, 0));
	EXPECT_EQ(0, ibv_destroy_qp(ud));
	EXPECT_EQ(0, ibv_destroy_qp(rc));
	EXPECT_EQ(0, ibv_destroy_cq(cq));

	/* A process exits with a QP attached: its own device context. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(vb_attach_and_exit(self->name, &g));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the child failed at step %d", WEXITSTATUS(status));
}

/* A group takes max_mcast_qp_attach QPs (ENOMEM past it); another group more. */
TEST_F(vdev, mcast_qp_attach_limit)
{
	int i, n = self->attr.max_mcast_qp_attach;
	struct ibv_qp **qps;
	struct ibv_cq *cq;
	union ibv_gid g, g2;

	ASSERT_LT(0, n);
	ASSERT_GE(256, n) TH_LOG("max_mcast_qp_attach %d: too many QPs to try", n);
	qps = calloc(n + 1, sizeof(*qps));
	ASSERT_NE(NULL, qps);
	cq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	vb_mgid(&g, 2);
	vb_mgid(&g2, 3);
	for (i = 0; i <= n; i++) {
		qps[i] = vb_qp(self->pd, IBV_QPT_UD, cq, NULL);
		ASSERT_NE(NULL, qps[i]) TH_LOG("UD QP %d", i);
	}
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, ibv_attach_mcast(qps[i], &g, 0)) TH_LOG("QP %d", i);
	EXPECT_EQ(ENOMEM, ibv_attach_mcast(qps[n], &g, 0));
	EXPECT_EQ(0, ibv_attach_mcast(qps[n], &g2, 0));
	/* A place freed is a place to take. */
	EXPECT_EQ(0, ibv_detach_mcast(qps[0], &g, 0));
	EXPECT_EQ(0, ibv_attach_mcast(qps[n], &g, 0));
	EXPECT_EQ(0, ibv_detach_mcast(qps[n], &g2, 0));
	for (i = 1; i <= n; i++)
		EXPECT_EQ(0, ibv_detach_mcast(qps[i], &g, 0));
	for (i = 0; i <= n; i++)
		EXPECT_EQ(0, ibv_destroy_qp(qps[i]));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	free(qps);
}

/*
 * Receive completions within @ms: each one's QP number into @qpn (up to
 * @max); returns how many, and the last in @wc.
 */
static int vb_mc_recvs(struct ibv_cq *cq, int ms, uint32_t *qpn, int max,
		       struct ibv_wc *last)
{
	struct timespec t0;
	struct ibv_wc wc;
	int n = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (vb_ms_since(&t0) < ms) {
		if (ibv_poll_cq(cq, 1, &wc) != 1) {
			usleep(1000);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS)
			return -1;
		if (n < max)
			qpn[n] = wc.qp_num;
		*last = wc;
		n++;
	}
	return n;
}

/*
 * The IPv6 group 4 of these tests (transient, site-local scope) and the
 * IPv6 address the dummy netdev gets for them; the group's GID is its
 * address itself.
 */
#define VB_MC_GROUP6	"ff15::564d:904"

/*
 * One UD SEND to a group reaches every QP of the device attached to it
 * whose Q_Key it carries, each with the GRH (the IPv6 header, or for an
 * IPv4 group the IPv4 header in its last 20 bytes; its destination the
 * group) before the payload; a QP with another Q_Key, a detached QP, and
 * a group packet with a unicast destination QP get nothing.  The packet
 * reaches the device as the IP stack's loop-back copy, so the dummy
 * netdev joins the group as an application would.
 */
static void vb_mc_deliver(struct __test_metadata *_metadata,
			  FIXTURE_DATA(vdev) *self, int family)
{
	static const char msg[] = "to every member of the group";
	struct ibv_qp *snd, *r1, *r2, *other;
	struct ibv_cq *scq, *rcq;
	struct ibv_mr *smr, *rmr;
	struct ibv_ah_attr aha;
	struct ip_mreqn mreq = {};
	struct ipv6_mreq mreq6 = {};
	/* the group address in the GRH (RoCEv2: IBA A17.4.5.1) */
	const void *grh_daddr;
	int daddr_off, daddr_len;
	union ibv_gid sgid;
	int sgid_idx;
	struct ibv_send_wr wr = {
		.wr_id = 1, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_recv_wr rwr = { .num_sge = 1 }, *rbad;
	struct ibv_sge sge, rsge;
	struct ibv_qp *rq[3];
	struct ibv_wc wc;
	uint32_t got[8];
	struct ibv_ah *ah;
	union ibv_gid g;
	char *rbuf;
	int i, j, sock, n;

	sock = socket(family, SOCK_DGRAM, 0);
	ASSERT_LE(0, sock);
	if (family == AF_INET) {
		mreq.imr_multiaddr.s_addr =
			htonl(230u << 24 | 77 << 16 | 9 << 8 | 4);
		mreq.imr_ifindex = if_nametoindex(self->ifname);
		ASSERT_EQ(0, setsockopt(sock, IPPROTO_IP, IP_ADD_MEMBERSHIP,
					&mreq, sizeof(mreq)));
		vb_mgid(&g, 4);
		sgid = self->gid;
		sgid_idx = self->gid_idx;
		grh_daddr = &mreq.imr_multiaddr;
		daddr_off = 36;		/* IPv4 daddr, in the GRH's last 20 */
		daddr_len = 4;
	} else {
		ASSERT_EQ(0, vrnic_sh("ip addr add fd00:77:%d::1/64 dev %s nodad",
				      getpid() % 200, self->ifname));
		sgid_idx = roce_gid_find(self->ctx, VB_PORT, AF_INET6, &sgid);
		ASSERT_LE(0, sgid_idx) TH_LOG("no RoCEv2 IPv6 GID");
		ASSERT_EQ(1, inet_pton(AF_INET6, VB_MC_GROUP6,
				       &mreq6.ipv6mr_multiaddr));
		mreq6.ipv6mr_interface = if_nametoindex(self->ifname);
		ASSERT_EQ(0, setsockopt(sock, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP,
					&mreq6, sizeof(mreq6)));
		memcpy(g.raw, &mreq6.ipv6mr_multiaddr, sizeof(g.raw));
		grh_daddr = &mreq6.ipv6mr_multiaddr;
		daddr_off = 24;		/* IPv6 daddr */
		daddr_len = 16;
	}

	scq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	rcq = ibv_create_cq(self->ctx, 64, NULL, NULL, 0);
	ASSERT_NE(NULL, scq);
	ASSERT_NE(NULL, rcq);
	snd = vb_ud_rts(self, scq, VB_MC_QKEY);
	r1 = vb_ud_rts(self, rcq, VB_MC_QKEY);
	r2 = vb_ud_rts(self, rcq, VB_MC_QKEY);
	other = vb_ud_rts(self, rcq, VB_MC_QKEY + 1);
	ASSERT_TRUE(snd && r1 && r2 && other);
	rq[0] = r1;
	rq[1] = r2;
	rq[2] = other;

	/* Three receives each, 40 bytes of GRH and 64 of payload apiece. */
	rbuf = calloc(9, 104);
	ASSERT_NE(NULL, rbuf);
	rmr = ibv_reg_mr(self->pd, rbuf, 9 * 104, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, rmr);
	rwr.sg_list = &rsge;
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, ibv_attach_mcast(rq[i], &g, 0));
		for (j = 0; j < 3; j++) {
			rsge.addr = (uintptr_t)(rbuf + (i * 3 + j) * 104);
			rsge.length = 104;
			rsge.lkey = rmr->lkey;
			rwr.wr_id = i * 3 + j;
			ASSERT_EQ(0, ibv_post_recv(rq[i], &rwr, &rbad));
		}
	}

	vb_ah_attr(_metadata, self, &aha);
	aha.grh.dgid = g;
	aha.grh.sgid_index = sgid_idx;
	aha.grh.hop_limit = 1;
	ah = ibv_create_ah(self->pd, &aha);
	ASSERT_NE(NULL, ah);
	smr = ibv_reg_mr(self->pd, (void *)msg, sizeof(msg), 0);
	ASSERT_NE(NULL, smr);
	sge.addr = (uintptr_t)msg;
	sge.length = sizeof(msg);
	sge.lkey = smr->lkey;
	wr.sg_list = &sge;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 0xffffff;
	wr.wr.ud.remote_qkey = VB_MC_QKEY;

	/* 1: r1 and r2 get it, other (another Q_Key) does not. */
	ASSERT_EQ(0, ibv_post_send(snd, &wr, &bad));
	ASSERT_EQ(1, vb_poll(scq, &wc, 1));
	EXPECT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	n = vb_mc_recvs(rcq, 1000, got, 8, &wc);
	ASSERT_EQ(2, n);
	EXPECT_TRUE((got[0] == r1->qp_num && got[1] == r2->qp_num) ||
		    (got[0] == r2->qp_num && got[1] == r1->qp_num));
	EXPECT_EQ(40U + sizeof(msg), wc.byte_len);
	EXPECT_EQ(snd->qp_num, wc.src_qp);
	EXPECT_NE(0U, wc.wc_flags & IBV_WC_GRH);
	i = wc.qp_num == r1->qp_num ? 0 : 1;
	EXPECT_EQ(0, memcmp(rbuf + i * 3 * 104 + daddr_off, grh_daddr,
			    daddr_len));
	/* the source address: IPv4 saddr at 32, IPv6 at 8 */
	if (family == AF_INET) {
		EXPECT_EQ(0, memcmp(rbuf + i * 3 * 104 + 32, sgid.raw + 12, 4));
	} else {
		EXPECT_EQ(0, memcmp(rbuf + i * 3 * 104 + 8, sgid.raw, 16));
	}
	EXPECT_EQ(0, memcmp(rbuf + i * 3 * 104 + 40, msg, sizeof(msg)));

	/* 2: a group packet must carry QP 0xFFFFFF: r2's own QPN is dropped. */
	wr.wr.ud.remote_qpn = r2->qp_num;
	ASSERT_EQ(0, ibv_post_send(snd, &wr, &bad));
	ASSERT_EQ(1, vb_poll(scq, &wc, 1));
	EXPECT_EQ(0, vb_mc_recvs(rcq, 500, got, 8, &wc));

	/* 3: detached, r1 gets nothing; r2 still does. */
	wr.wr.ud.remote_qpn = 0xffffff;
	ASSERT_EQ(0, ibv_detach_mcast(r1, &g, 0));
	ASSERT_EQ(0, ibv_post_send(snd, &wr, &bad));
	ASSERT_EQ(1, vb_poll(scq, &wc, 1));
	n = vb_mc_recvs(rcq, 1000, got, 8, &wc);
	ASSERT_EQ(1, n);
	EXPECT_EQ(r2->qp_num, got[0]);

	EXPECT_EQ(0, ibv_destroy_ah(ah));
	EXPECT_EQ(0, ibv_detach_mcast(r2, &g, 0));
	EXPECT_EQ(0, ibv_detach_mcast(other, &g, 0));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, ibv_destroy_qp(rq[i]));
	EXPECT_EQ(0, ibv_destroy_qp(snd));
	EXPECT_EQ(0, ibv_dereg_mr(smr));
	EXPECT_EQ(0, ibv_dereg_mr(rmr));
	EXPECT_EQ(0, ibv_destroy_cq(scq));
	EXPECT_EQ(0, ibv_destroy_cq(rcq));
	free(rbuf);
	close(sock);
}

TEST_F(vdev, mcast_delivers_to_each_attached_qp)
{
	vb_mc_deliver(_metadata, self, AF_INET);
}

TEST_F(vdev, mcast_ipv6_group_delivers_to_each_attached_qp)
{
	vb_mc_deliver(_metadata, self, AF_INET6);
}

TEST_HARNESS_MAIN
