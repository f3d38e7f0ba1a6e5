// SPDX-License-Identifier: GPL-2.0
/*
 * dp_badwr - work requests that must not run.
 *
 * Posting a send to a QP that cannot send yet (RESET, INIT, RTR) fails at
 * once with EINVAL (IBA 10.8.2.3; what rdma-core's suite expects), also
 * through the extended API's ibv_wr_complete(), and so does a receive in
 * RESET.  A WR whose opcode the QP's service does not allow (READ,
 * atomics, ATOMIC WRITE on UC; IBA table 43) or that the device does not
 * know completes with IBV_WC_LOC_QP_OP_ERR and never reaches the wire:
 * the device's tx_packets counter does not move and the peer's memory
 * stays as it was.
 *
 * Environment: DP_DEV (default: a device the test creates on a veth,
 * type $DP_LINK_TYPE, default vrnic), DP_TIMEOUT_MS.
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

#include "lib/dp_verbs.h"

#define BW_BUF		4096

FIXTURE(dp_badwr) {
	struct dp_dev d;
	struct ibv_cq *cq;
	struct ibv_qp *qa, *qb;		/* qb: the peer of a connected qa */
	uint8_t *buf, *peer;
	struct ibv_mr *mr, *pmr;
	bool ready;
};

FIXTURE_SETUP(dp_badwr)
{
	const char *dev = getenv("DP_DEV");
	int ret;

	memset(self, 0, sizeof(*self));
	ASSERT_NE(NULL, dev) TH_LOG("DP_DEV not set and self-setup failed");
	ret = dp_dev_open(&self->d, dev, AF_INET);
	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", dev, strerror(-ret));
	self->cq = ibv_create_cq(self->d.ctx, 64, NULL, NULL, 0);
	ASSERT_NE(NULL, self->cq);
	self->buf = calloc(1, BW_BUF);
	self->peer = calloc(1, BW_BUF);
	ASSERT_NE(NULL, self->buf);
	ASSERT_NE(NULL, self->peer);
	memset(self->peer, 0x5c, BW_BUF);
	self->mr = ibv_reg_mr(self->d.pd, self->buf, BW_BUF,
			      IBV_ACCESS_LOCAL_WRITE);
	self->pmr = ibv_reg_mr(self->d.pd, self->peer, BW_BUF,
			       IBV_ACCESS_LOCAL_WRITE |
			       IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ |
			       IBV_ACCESS_REMOTE_ATOMIC);
	ASSERT_NE(NULL, self->mr);
	ASSERT_NE(NULL, self->pmr);
	self->ready = true;
}

FIXTURE_TEARDOWN(dp_badwr)
{
	if (self->qa)
		ibv_destroy_qp(self->qa);
	if (self->qb)
		ibv_destroy_qp(self->qb);
	if (self->mr)
		ibv_dereg_mr(self->mr);
	if (self->pmr)
		ibv_dereg_mr(self->pmr);
	if (self->cq)
		ibv_destroy_cq(self->cq);
	free(self->buf);
	free(self->peer);
	dp_dev_close(&self->d);
}

static int bw_to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = DP_PORT,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* INIT -> RTR of a UC or RC QP towards @peer on the same device. */
static int bw_to_rtr(FIXTURE_DATA(dp_badwr) *self, struct ibv_qp *qp,
		     struct ibv_qp *peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = peer->qp_num,
		.rq_psn = 0x100,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
		.ah_attr = {
			.is_global = 1,
			.port_num = DP_PORT,
			.grh = {
				.dgid = self->d.gid,
				.sgid_index = self->d.gid_idx,
				.hop_limit = 64,
			},
		},
	};
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;

	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	return ibv_modify_qp(qp, &a, mask);
}

static int bw_to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = 0x100,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = 1,
	};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (qp->qp_type == IBV_QPT_RC)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	return ibv_modify_qp(qp, &a, mask);
}

/* qa and qb of @type, connected to each other, in RTS. */
static void bw_pair(struct __test_metadata *_metadata,
		    FIXTURE_DATA(dp_badwr) *self, enum ibv_qp_type type,
		    uint64_t send_ops)
{
	self->qa = dp_qp_on_cq(&self->d, self->cq, type, 8, 1, send_ops);
	ASSERT_NE(NULL, self->qa) TH_LOG("create_qp: %s", strerror(errno));
	self->qb = dp_qp_on_cq(&self->d, self->cq, type, 8, 1, 0);
	ASSERT_NE(NULL, self->qb) TH_LOG("create_qp: %s", strerror(errno));
	ASSERT_EQ(0, bw_to_init(self->qa));
	ASSERT_EQ(0, bw_to_init(self->qb));
	ASSERT_EQ(0, bw_to_rtr(self, self->qa, self->qb));
	ASSERT_EQ(0, bw_to_rtr(self, self->qb, self->qa));
	ASSERT_EQ(0, bw_to_rts(self->qa));
	ASSERT_EQ(0, bw_to_rts(self->qb));
}

/* The device's tx_packets counter (port 1). */
static uint64_t bw_tx(FIXTURE_DATA(dp_badwr) *self)
{
	char path[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/tx_packets",
		 self->d.name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* Legacy post of one WR with @opcode towards qb's buffer. */
static int bw_post(FIXTURE_DATA(dp_badwr) *self, unsigned int opcode)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->buf,
		.length = 8,
		.lkey = self->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = opcode,
		.opcode = opcode,
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = (uintptr_t)self->peer;
		wr.wr.atomic.rkey = self->pmr->rkey;
		wr.wr.atomic.compare_add = 1;
	} else {
		wr.wr.rdma.remote_addr = (uintptr_t)self->peer;
		wr.wr.rdma.rkey = self->pmr->rkey;
	}
	return ibv_post_send(self->qa, &wr, &bad);
}

static void bw_expect_local_error(struct __test_metadata *_metadata,
				  FIXTURE_DATA(dp_badwr) *self,
				  unsigned int opcode)
{
	uint64_t tx0 = bw_tx(self);
	struct ibv_wc wc;
	int i;

	ASSERT_EQ(0, bw_post(self, opcode));
	ASSERT_EQ(0, dp_poll(self->cq, &wc, dp_timeout_ms()))
		TH_LOG("opcode %u: no completion", opcode);
	EXPECT_EQ(opcode, (unsigned int)wc.wr_id);
	ASSERT_EQ(IBV_WC_LOC_QP_OP_ERR, (int)wc.status)
		TH_LOG("opcode %u: %s", opcode, ibv_wc_status_str(wc.status));
	/* nothing went out, nothing arrived */
	usleep(100 * 1000);
	ASSERT_EQ(tx0, bw_tx(self));
	for (i = 0; i < BW_BUF; i++)
		ASSERT_EQ(0x5c, self->peer[i]);
}

TEST_F(dp_badwr, post_send_before_rts_is_einval)
{
	struct ibv_qp *peer;

	if (!self->ready)
		return;
	bw_pair(_metadata, self, IBV_QPT_RC, 0);
	peer = self->qb;
	ibv_destroy_qp(self->qa);
	self->qa = dp_qp_on_cq(&self->d, self->cq, IBV_QPT_RC, 8, 1, 0);
	ASSERT_NE(NULL, self->qa);
	ASSERT_EQ(EINVAL, bw_post(self, IBV_WR_RDMA_WRITE)) TH_LOG("RESET");
	ASSERT_EQ(0, bw_to_init(self->qa));
	ASSERT_EQ(EINVAL, bw_post(self, IBV_WR_RDMA_WRITE)) TH_LOG("INIT");
	ASSERT_EQ(0, bw_to_rtr(self, self->qa, peer));
	ASSERT_EQ(EINVAL, bw_post(self, IBV_WR_RDMA_WRITE)) TH_LOG("RTR");
}

/* The same through ibv_wr_complete() (what the pyverbs suite checks). */
TEST_F(dp_badwr, wr_complete_in_reset_is_einval)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct ibv_qp_ex *qx;

	if (!self->ready)
		return;
	bw_pair(_metadata, self, IBV_QPT_RC, IBV_QP_EX_WITH_RDMA_WRITE);
	ASSERT_EQ(0, ibv_modify_qp(self->qa, &a, IBV_QP_STATE));
	qx = ibv_qp_to_qp_ex(self->qa);
	ibv_wr_start(qx);
	qx->wr_id = 1;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qx, self->pmr->rkey, (uintptr_t)self->peer);
	ibv_wr_set_sge(qx, self->mr->lkey, (uintptr_t)self->buf, 8);
	ASSERT_EQ(EINVAL, ibv_wr_complete(qx));
}

TEST_F(dp_badwr, post_recv_in_reset_is_einval)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->buf,
		.length = 64,
		.lkey = self->mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	if (!self->ready)
		return;
	self->qa = dp_qp_on_cq(&self->d, self->cq, IBV_QPT_RC, 8, 1, 0);
	ASSERT_NE(NULL, self->qa);
	ASSERT_EQ(EINVAL, ibv_post_recv(self->qa, &wr, &bad));
}

/* IBA table 43: UC has no READ, no atomics, no ATOMIC WRITE. */
TEST_F(dp_badwr, uc_read_is_local_error_never_sent)
{
	if (!self->ready)
		return;
	bw_pair(_metadata, self, IBV_QPT_UC, 0);
	bw_expect_local_error(_metadata, self, IBV_WR_RDMA_READ);
}

TEST_F(dp_badwr, uc_atomic_is_local_error_never_sent)
{
	if (!self->ready)
		return;
	bw_pair(_metadata, self, IBV_QPT_UC, 0);
	bw_expect_local_error(_metadata, self, IBV_WR_ATOMIC_FETCH_AND_ADD);
}

TEST_F(dp_badwr, uc_atomic_write_is_local_error_never_sent)
{
	if (!self->ready)
		return;
	bw_pair(_metadata, self, IBV_QPT_UC, 0);
	bw_expect_local_error(_metadata, self, IBV_WR_ATOMIC_WRITE);
}

/* An opcode the device does not know (here IBV_WR_DRIVER1's number). */
TEST_F(dp_badwr, unknown_opcode_is_local_error_never_sent)
{
	if (!self->ready)
		return;
	bw_pair(_metadata, self, IBV_QPT_RC, 0);
	bw_expect_local_error(_metadata, self, IBV_WR_DRIVER1);
}

int main(int argc, char **argv)
{
	if (dp_own_setup(argv))
		ksft_print_msg("could not create a %s device; set DP_DEV\n",
			       getenv("DP_LINK_TYPE") ?: "vrnic");
	return test_harness_run(argc, argv);
}
