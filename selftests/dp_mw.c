// SPDX-License-Identifier: GPL-2.0
/*
 * dp_mw - memory windows (IBA 10.6.7): a remote peer reaches an MR through
 * a window's rkey only inside the window, only with the window's rights,
 * and only while the window is bound.
 *
 * The responder's MR covers a region in the middle of a larger mapping
 * (guard page | region | guard page), filled with a pattern; windows are
 * bound to a part of the region in its middle, so that every access just
 * outside a window is still inside the MR and only the window's bounds can
 * reject it.  Binds, local invalidations and the receive side run on the
 * responder's QP; the requester performs the remote accesses.
 *
 * Environment: as dp_security (DP_DEV, DP_DEV2, DP_ONLY, DP_TIMEOUT_MS);
 * without DP_DEV the test creates its own device pair.
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
#include "lib/dp_guard.h"

#define MW_PAGE		DP_GUARD_PAGE
#define MW_REGION	DP_GUARD_REGION
#define MW_WIN_OFF	1024		/* window inside the region */
#define MW_WIN_LEN	2048
#define MW_MR_ACCESS	(DP_GUARD_ALL_ACCESS | IBV_ACCESS_MW_BIND)
#define MW_RW		(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

FIXTURE(dp_mw) {
	DP_GUARD_MEMBERS;		/* QPs, guarded region, local buffer */
	struct ibv_mr *rmr;		/* on region */
	struct ibv_mw *mw;
};

FIXTURE_VARIANT(dp_mw) {
	const char *name;
	bool pair;
};

FIXTURE_VARIANT_ADD(dp_mw, loopback) {
	.name = "loopback",
	.pair = false,
};

FIXTURE_VARIANT_ADD(dp_mw, pair) {
	.name = "pair",
	.pair = true,
};

FIXTURE_SETUP(dp_mw)
{
	self->rmr = NULL;
	self->mw = NULL;
	dp_guard_setup(_metadata, &self->g, variant->name, variant->pair);
}

FIXTURE_TEARDOWN(dp_mw)
{
	/* the window first: a bound window keeps the MR registered */
	if (self->mw)
		ibv_dealloc_mw(self->mw);
	if (self->rmr)
		ibv_dereg_mr(self->rmr);
	dp_guard_teardown(&self->g);
}

/* Register the region with @access and allocate a window of @type. */
static void mw_setup(struct __test_metadata *_metadata,
		     FIXTURE_DATA(dp_mw) *self, int access,
		     enum ibv_mw_type type)
{
	self->rmr = ibv_reg_mr(self->b->pd, self->region, MW_REGION, access);
	ASSERT_NE(NULL, self->rmr) TH_LOG("reg_mr(%#x): %s", access,
					  strerror(errno));
	self->mw = ibv_alloc_mw(self->b->pd, type);
	ASSERT_NE(NULL, self->mw) TH_LOG("alloc_mw: %s", strerror(errno));
}

/* Type 1: ibv_bind_mw() on the responder's QP. */
static int mw_bind1(struct __test_metadata *_metadata,
		    FIXTURE_DATA(dp_mw) *self, long off, uint64_t len,
		    unsigned int access)
{
	struct ibv_mw_bind bind = {
		.wr_id = 10,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = self->rmr,
			.addr = dp_guard_va(&self->g, off),
			.length = len,
			.mw_access_flags = access,
		},
	};
	struct ibv_wc wc;
	int ret;

	ret = ibv_bind_mw(self->qb.qp, self->mw, &bind);
	ASSERT_EQ(0, ret) TH_LOG("bind_mw: %s", strerror(ret));
	if (dp_poll(self->qb.cq, &wc, dp_timeout_ms()))
		return -1;
	if (wc.status == IBV_WC_SUCCESS)
		EXPECT_EQ(IBV_WC_BIND_MW, (int)wc.opcode);
	return wc.status;
}

/* Type 2: IBV_WR_BIND_MW posted on the responder's QP with @rkey. */
static int mw_bind2(struct __test_metadata *_metadata,
		    FIXTURE_DATA(dp_mw) *self, long off, uint64_t len,
		    unsigned int access, uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = 11,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_mw = {
			.mw = self->mw,
			.rkey = rkey,
			.bind_info = {
				.mr = self->rmr,
				.addr = dp_guard_va(&self->g, off),
				.length = len,
				.mw_access_flags = access,
			},
		},
	};

	return dp_guard_post(_metadata, &self->qb, &wr);
}

#define ASSERT_UNTOUCHED() DP_ASSERT_UNTOUCHED(self)

/* A successful WRITE of @len bytes at region @off: update the shadow. */
static void mw_wrote(FIXTURE_DATA(dp_mw) *self, long off, uint32_t len)
{
	memcpy(self->shadow + MW_PAGE + off, self->lbuf + MW_PAGE, len);
}

#define READY() do { \
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */ \
		return; \
} while (0)

/* Requester's RDMA WRITE / READ of @len bytes at region @off. */
static int mw_write(struct __test_metadata *_metadata,
		    FIXTURE_DATA(dp_mw) *self, long off, uint32_t len,
		    uint32_t rkey)
{
	return dp_guard_rdma(_metadata, &self->g, IBV_WR_RDMA_WRITE, off, len,
			     rkey);
}

static int mw_read(struct __test_metadata *_metadata,
		   FIXTURE_DATA(dp_mw) *self, long off, uint32_t len,
		   uint32_t rkey)
{
	return dp_guard_rdma(_metadata, &self->g, IBV_WR_RDMA_READ, off, len,
			     rkey);
}

/* MR with all rights and a type 1 window bound with @access: its rkey. */
static uint32_t mw_bound1(struct __test_metadata *_metadata,
			  FIXTURE_DATA(dp_mw) *self, unsigned int access)
{
	mw_setup(_metadata, self, MW_MR_ACCESS, IBV_MW_TYPE_1);
	ASSERT_EQ(IBV_WC_SUCCESS,
		  mw_bind1(_metadata, self, MW_WIN_OFF, MW_WIN_LEN, access));
	return self->mw->rkey;
}

/* The same with a type 2 window: the rkey it was bound with. */
static uint32_t mw_bound2(struct __test_metadata *_metadata,
			  FIXTURE_DATA(dp_mw) *self, unsigned int access)
{
	uint32_t rkey;

	mw_setup(_metadata, self, MW_MR_ACCESS, IBV_MW_TYPE_2);
	rkey = ibv_inc_rkey(self->mw->rkey);
	ASSERT_EQ(IBV_WC_SUCCESS,
		  mw_bind2(_metadata, self, MW_WIN_OFF, MW_WIN_LEN, access,
			   rkey));
	return rkey;
}

TEST_F(dp_mw, alloc_dealloc_both_types)
{
	struct ibv_mw *m1, *m2;

	READY();
	EXPECT_LT(0, self->b->attr.max_mw);
	EXPECT_TRUE(!!(self->b->attr.device_cap_flags &
		       IBV_DEVICE_MEM_WINDOW));
	EXPECT_TRUE(!!(self->b->attr.device_cap_flags &
		       IBV_DEVICE_MEM_WINDOW_TYPE_2B));
	m1 = ibv_alloc_mw(self->b->pd, IBV_MW_TYPE_1);
	ASSERT_NE(NULL, m1) TH_LOG("alloc_mw type 1: %s", strerror(errno));
	m2 = ibv_alloc_mw(self->b->pd, IBV_MW_TYPE_2);
	ASSERT_NE(NULL, m2) TH_LOG("alloc_mw type 2: %s", strerror(errno));
	EXPECT_EQ(IBV_MW_TYPE_1, (int)m1->type);
	EXPECT_EQ(IBV_MW_TYPE_2, (int)m2->type);
	EXPECT_NE(m1->rkey >> 8, m2->rkey >> 8);
	EXPECT_EQ(0, ibv_dealloc_mw(m1));
	EXPECT_EQ(0, ibv_dealloc_mw(m2));
}

TEST_F(dp_mw, type1_write_read_atomic_inside_window)
{
	long last = MW_WIN_OFF + MW_WIN_LEN - 8;
	uint64_t old, now;
	uint32_t rkey;

	READY();
	rkey = mw_bound1(_metadata, self, MW_RW | IBV_ACCESS_REMOTE_ATOMIC);
	/* the window's first to last byte */
	ASSERT_EQ(IBV_WC_SUCCESS,
		  mw_write(_metadata, self, MW_WIN_OFF, MW_WIN_LEN, rkey));
	mw_wrote(self, MW_WIN_OFF, MW_WIN_LEN);
	ASSERT_UNTOUCHED();
	memset(self->lbuf + MW_PAGE, 0, MW_WIN_LEN);
	ASSERT_EQ(IBV_WC_SUCCESS,
		  mw_read(_metadata, self, MW_WIN_OFF, MW_WIN_LEN, rkey));
	ASSERT_EQ(0, memcmp(self->lbuf + MW_PAGE, self->region + MW_WIN_OFF,
			    MW_WIN_LEN));
	if (self->a->attr.atomic_cap == IBV_ATOMIC_NONE)
		return;
	memcpy(&old, self->region + last, 8);
	ASSERT_EQ(IBV_WC_SUCCESS, dp_guard_fadd(_metadata, &self->g, last, rkey));
	memcpy(&now, self->region + last, 8);
	ASSERT_EQ(old + 1, now);
	memcpy(self->shadow + MW_PAGE + last, &now, 8);
	ASSERT_UNTOUCHED();
}

TEST_F(dp_mw, type1_write_one_byte_past_window_rejected)
{
	uint32_t rkey;

	READY();
	rkey = mw_bound1(_metadata, self, MW_RW);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  mw_write(_metadata, self, MW_WIN_OFF, MW_WIN_LEN + 1, rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_mw, type1_read_one_byte_before_window_rejected)
{
	uint32_t rkey;

	READY();
	rkey = mw_bound1(_metadata, self, MW_RW);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  mw_read(_metadata, self, MW_WIN_OFF - 1, 16, rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_mw, bind_without_mw_bind_on_mr_fails)
{
	READY();
	mw_setup(_metadata, self, MW_MR_ACCESS & ~IBV_ACCESS_MW_BIND,
		 IBV_MW_TYPE_1);
	ASSERT_EQ(IBV_WC_MW_BIND_ERR,
		  mw_bind1(_metadata, self, MW_WIN_OFF, MW_WIN_LEN, MW_RW));
}

TEST_F(dp_mw, bind_window_outside_mr_fails)
{
	READY();
	mw_setup(_metadata, self, MW_MR_ACCESS, IBV_MW_TYPE_1);
	ASSERT_EQ(IBV_WC_MW_BIND_ERR,
		  mw_bind1(_metadata, self, MW_REGION - 16, 17, MW_RW));
}

TEST_F(dp_mw, bind_remote_write_needs_local_write_on_mr)
{
	READY();
	mw_setup(_metadata, self,
		 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND, IBV_MW_TYPE_2);
	ASSERT_EQ(IBV_WC_MW_BIND_ERR,
		  mw_bind2(_metadata, self, MW_WIN_OFF, MW_WIN_LEN, MW_RW,
			   ibv_inc_rkey(self->mw->rkey)));
}

TEST_F(dp_mw, window_without_remote_write_rejects_write)
{
	uint32_t rkey;

	READY();
	rkey = mw_bound1(_metadata, self, IBV_ACCESS_REMOTE_READ);
	ASSERT_EQ(IBV_WC_SUCCESS,
		  mw_read(_metadata, self, MW_WIN_OFF, 64, rkey));
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  mw_write(_metadata, self, MW_WIN_OFF, 64, rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_mw, type2_bind_use_local_invalidate)
{
	struct ibv_send_wr inv = {
		.wr_id = 12,
		.opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED,
	};

	READY();
	inv.invalidate_rkey = mw_bound2(_metadata, self, MW_RW);
	ASSERT_EQ(IBV_WC_SUCCESS,
		  mw_write(_metadata, self, MW_WIN_OFF, 256,
			   inv.invalidate_rkey));
	mw_wrote(self, MW_WIN_OFF, 256);
	ASSERT_UNTOUCHED();
	ASSERT_EQ(IBV_WC_SUCCESS, dp_guard_post(_metadata, &self->qb, &inv));
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  mw_write(_metadata, self, MW_WIN_OFF, 256,
			   inv.invalidate_rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_mw, type2_key_before_bind_rejected)
{
	READY();
	mw_bound2(_metadata, self, MW_RW);
	/* self->mw->rkey is still the key from ibv_alloc_mw() */
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  mw_write(_metadata, self, MW_WIN_OFF, 8, self->mw->rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_mw, type2_bind_same_key_fails)
{
	READY();
	mw_setup(_metadata, self, MW_MR_ACCESS, IBV_MW_TYPE_2);
	ASSERT_EQ(IBV_WC_MW_BIND_ERR,
		  mw_bind2(_metadata, self, MW_WIN_OFF, MW_WIN_LEN, MW_RW,
			   self->mw->rkey));
}

TEST_F(dp_mw, type2_send_with_invalidate_from_peer)
{
	struct ibv_sge rsge = {
		.addr = (uintptr_t)self->region,
		.length = 64,
	};
	struct ibv_recv_wr rwr = { .wr_id = 20, .sg_list = &rsge, .num_sge = 1 };
	struct ibv_sge ssge = {
		.addr = (uintptr_t)self->lbuf,
		.length = 16,
	};
	struct ibv_send_wr swr = {
		.wr_id = 21,
		.opcode = IBV_WR_SEND_WITH_INV,
		.sg_list = &ssge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_recv_wr *brw;
	struct ibv_wc wc;
	uint32_t rkey;

	READY();
	rkey = mw_bound2(_metadata, self, MW_RW);
	ASSERT_EQ(IBV_WC_SUCCESS,
		  mw_write(_metadata, self, MW_WIN_OFF, 32, rkey));
	mw_wrote(self, MW_WIN_OFF, 32);

	rsge.lkey = self->rmr->lkey;
	ssge.lkey = self->lmr->lkey;
	swr.invalidate_rkey = rkey;
	ASSERT_EQ(0, ibv_post_recv(self->qb.qp, &rwr, &brw));
	ASSERT_EQ(IBV_WC_SUCCESS, dp_guard_post(_metadata, &self->qa, &swr));
	ASSERT_EQ(0, dp_poll(self->qb.cq, &wc, dp_timeout_ms()));
	ASSERT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	/*
	 * vrnic reports IBV_WC_WITH_INV; rdma_rxe passes the kernel's
	 * IB_WC_WITH_INVALIDATE (1 << 2) through, which libibverbs calls
	 * IBV_WC_IP_CSUM_OK, so only insist on the right bit for vrnic.
	 */
	if (strcmp(getenv("DP_LINK_TYPE") ?: "vrnic", "vrnic")) {
		ASSERT_TRUE(!!(wc.wc_flags &
			       (IBV_WC_WITH_INV | IBV_WC_IP_CSUM_OK)));
	} else {
		ASSERT_EQ((unsigned int)IBV_WC_WITH_INV,
			  wc.wc_flags & (IBV_WC_WITH_INV | IBV_WC_IP_CSUM_OK));
	}
	ASSERT_EQ(rkey, wc.invalidated_rkey);
	memcpy(self->shadow + MW_PAGE, self->lbuf, 16);

	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  mw_write(_metadata, self, MW_WIN_OFF, 32, rkey));
	ASSERT_UNTOUCHED();
}

/*
 * Verbs consumers bind with the MR's flags, local write included
 * (rdma-core's own tests do): the bind succeeds, and the window grants
 * only the remote rights named, nothing more.
 */
TEST_F(dp_mw, type1_bind_naming_local_write_grants_only_remote_rights)
{
	uint32_t rkey;

	READY();
	rkey = mw_bound1(_metadata, self, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_READ);
	ASSERT_EQ(IBV_WC_SUCCESS,
		  mw_read(_metadata, self, MW_WIN_OFF, 64, rkey));
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  mw_write(_metadata, self, MW_WIN_OFF, 64, rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_mw, type2_bind_naming_local_write_grants_only_remote_rights)
{
	uint32_t rkey;

	READY();
	rkey = mw_bound2(_metadata, self, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE);
	ASSERT_EQ(IBV_WC_SUCCESS,
		  mw_write(_metadata, self, MW_WIN_OFF, 32, rkey));
	mw_wrote(self, MW_WIN_OFF, 32);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  mw_read(_metadata, self, MW_WIN_OFF, 32, rkey));
	ASSERT_UNTOUCHED();
}

/*
 * The extended post-send API (ibv_wr_bind_mw(), librxe's wr_bind_mw): a
 * type 2 bind, used, then invalidated with ibv_wr_local_inv().
 */
TEST_F(dp_mw, type2_bind_and_local_invalidate_through_qp_ex)
{
	struct ibv_mw_bind_info bi = {
		.length = MW_WIN_LEN,
		.mw_access_flags = MW_RW,
	};
	struct dp_qp qx = {};
	struct ibv_wc wc;
	uint32_t rkey;

	READY();
	mw_setup(_metadata, self, MW_MR_ACCESS, IBV_MW_TYPE_2);
	/* The responder's QP again, this time with the extended API. */
	dp_qp_destroy(&self->qa);
	dp_qp_destroy(&self->qb);
	ASSERT_EQ(0, dp_qp_create(&self->qa, self->a, 2, DP_GUARD_QP_ACCESS));
	ASSERT_EQ(0, dp_qp_create_ex(&qx, self->b, 2, DP_GUARD_QP_ACCESS,
				     IBV_QP_EX_WITH_BIND_MW |
				     IBV_QP_EX_WITH_LOCAL_INV));
	self->qb = qx;		/* torn down with the fixture */
	ASSERT_EQ(0, dp_qp_connect(&self->qa, &self->qb, IBV_MTU_1024,
				   0x321, 0x654));
	ASSERT_EQ(0, dp_qp_connect(&self->qb, &self->qa, IBV_MTU_1024,
				   0x654, 0x321));

	rkey = ibv_inc_rkey(self->mw->rkey);
	bi.mr = self->rmr;
	bi.addr = dp_guard_va(&self->g, MW_WIN_OFF);
	ibv_wr_start(self->qb.qpx);
	self->qb.qpx->wr_id = 30;
	self->qb.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(self->qb.qpx, self->mw, rkey, &bi);
	ASSERT_EQ(0, ibv_wr_complete(self->qb.qpx));
	ASSERT_EQ(0, dp_poll(self->qb.cq, &wc, dp_timeout_ms()));
	ASSERT_EQ(IBV_WC_SUCCESS, (int)wc.status)
		TH_LOG("bind: %s", ibv_wc_status_str(wc.status));
	ASSERT_EQ(IBV_WC_BIND_MW, (int)wc.opcode);

	ASSERT_EQ(IBV_WC_SUCCESS,
		  mw_write(_metadata, self, MW_WIN_OFF, 32, rkey));
	mw_wrote(self, MW_WIN_OFF, 32);

	ibv_wr_start(self->qb.qpx);
	self->qb.qpx->wr_id = 31;
	self->qb.qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(self->qb.qpx, rkey);
	ASSERT_EQ(0, ibv_wr_complete(self->qb.qpx));
	ASSERT_EQ(0, dp_poll(self->qb.cq, &wc, dp_timeout_ms()));
	ASSERT_EQ(IBV_WC_SUCCESS, (int)wc.status);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  mw_write(_metadata, self, MW_WIN_OFF, 32, rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_mw, type2_window_only_through_its_qp)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->lbuf + MW_PAGE,
		.length = 64,
	};
	struct ibv_send_wr wr = {
		.wr_id = 3,
		.opcode = IBV_WR_RDMA_WRITE,
		.sg_list = &sge,
		.num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct dp_qp qa2, qb2;
	int st;

	READY();
	wr.wr.rdma.rkey = mw_bound2(_metadata, self, MW_RW);
	wr.wr.rdma.remote_addr = dp_guard_va(&self->g, MW_WIN_OFF);
	sge.lkey = self->lmr->lkey;
	/* a second connection between the same two devices and PDs */
	ASSERT_EQ(0, dp_qp_create(&qa2, self->a, 2, DP_GUARD_QP_ACCESS));
	ASSERT_EQ(0, dp_qp_create(&qb2, self->b, 2, DP_GUARD_QP_ACCESS));
	ASSERT_EQ(0, dp_qp_connect(&qa2, &qb2, IBV_MTU_1024, 0x11, 0x22));
	ASSERT_EQ(0, dp_qp_connect(&qb2, &qa2, IBV_MTU_1024, 0x22, 0x11));
	st = dp_guard_post(_metadata, &qa2, &wr);
	dp_qp_destroy(&qa2);
	dp_qp_destroy(&qb2);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR, st)
		TH_LOG("write through another QP");
	ASSERT_UNTOUCHED();
	/* the QP it is bound to still reaches it */
	ASSERT_EQ(IBV_WC_SUCCESS, dp_guard_post(_metadata, &self->qa, &wr));
	mw_wrote(self, MW_WIN_OFF, 64);
	ASSERT_UNTOUCHED();
}

TEST_F(dp_mw, deallocated_window_rkey_rejected)
{
	uint32_t rkey;

	READY();
	rkey = mw_bound1(_metadata, self, MW_RW);
	ASSERT_EQ(IBV_WC_SUCCESS,
		  mw_write(_metadata, self, MW_WIN_OFF, 8, rkey));
	mw_wrote(self, MW_WIN_OFF, 8);
	ASSERT_EQ(0, ibv_dealloc_mw(self->mw));
	self->mw = NULL;
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  mw_write(_metadata, self, MW_WIN_OFF, 8, rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_mw, dereg_mr_with_bound_window_is_busy)
{
	uint32_t rkey;

	READY();
	rkey = mw_bound1(_metadata, self, MW_RW);
	ASSERT_EQ(EBUSY, ibv_dereg_mr(self->rmr));
	/* still usable through the window */
	ASSERT_EQ(IBV_WC_SUCCESS,
		  mw_read(_metadata, self, MW_WIN_OFF, 8, rkey));
	ASSERT_EQ(0, ibv_dealloc_mw(self->mw));
	self->mw = NULL;
	ASSERT_EQ(0, ibv_dereg_mr(self->rmr));
	self->rmr = NULL;
}

int main(int argc, char **argv)
{
	if (dp_own_setup(argv))
		ksft_print_msg("could not create a %s device; set DP_DEV\n",
			       getenv("DP_LINK_TYPE") ?: "vrnic");
	return test_harness_run(argc, argv);
}
