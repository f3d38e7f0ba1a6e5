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
 * veth, type $DP_LINK_TYPE, default vrnic, plus DP_DEV2 on the other end in
 * its own namespace), DP_DEV2 for the pair variant (DP_DEV is the
 * requester, DP_DEV2 the responder), DP_DEV_TYPE and
 * DP_DEV2_TYPE (their types when they differ from DP_LINK_TYPE), DP_ONLY
 * (run only the "loopback" or the "pair" variant), DP_TIMEOUT_MS
 * (completion timeout, default 60000).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
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
#include "lib/wire_pkt.h"

/* ---- the tests ---- */

#define SEC_PAGE	DP_GUARD_PAGE
#define SEC_REGION	DP_GUARD_REGION
#define SEC_MAP		DP_GUARD_MAP
#define SEC_ALL_ACCESS	DP_GUARD_ALL_ACCESS

FIXTURE(dp_security) {
	DP_GUARD_MEMBERS;		/* QPs, guarded region, local buffer */
	struct ibv_mr *rmr;		/* on region, access set per test */
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
	self->rmr = NULL;
	dp_guard_setup(_metadata, &self->g, variant->name, variant->pair);
}

FIXTURE_TEARDOWN(dp_security)
{
	if (self->rmr)
		ibv_dereg_mr(self->rmr);
	dp_guard_teardown(&self->g);
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
	return dp_guard_va(&self->g, off);
}

/* One signaled WR on the requester: its completion status, -1 if none. */
static int sec_post(struct __test_metadata *_metadata,
		    FIXTURE_DATA(dp_security) *self, struct ibv_send_wr *wr)
{
	return dp_guard_post(_metadata, &self->qa, wr);
}

/* RDMA WRITE or READ of @len bytes at region offset @off. */
static int sec_rdma(struct __test_metadata *_metadata,
		    FIXTURE_DATA(dp_security) *self, enum ibv_wr_opcode op,
		    long off, uint32_t len, uint32_t rkey)
{
	return dp_guard_rdma(_metadata, &self->g, op, off, len, rkey);
}

/* Fetch-and-add 1 on the 8 bytes at region offset @off. */
static int sec_atomic(struct __test_metadata *_metadata,
		      FIXTURE_DATA(dp_security) *self, long off, uint32_t rkey)
{
	return dp_guard_fadd(_metadata, &self->g, off, rkey);
}

#define ASSERT_UNTOUCHED() DP_ASSERT_UNTOUCHED(self)

static bool sec_has_atomics(FIXTURE_DATA(dp_security) *self)
{
	return self->b->attr.atomic_cap != IBV_ATOMIC_NONE &&
	       self->a->attr.atomic_cap != IBV_ATOMIC_NONE;
}

/*
 * Where rdma_rxe on 6.1 deviates from the IBA, its result is reported as a
 * SKIP naming the deviation; every other device still has to meet the
 * assertion that follows.  @d: the device whose behaviour is checked.
 */
#define KNOWN_RXE_ISSUE(d, cond, why) do { \
	if (dp_guard_is_rxe(&self->g, d) && (cond)) \
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

/*
 * -- QP access rights --
 *
 * The responder QP's access flags (and its responder resources) gate
 * every remote operation on their own, whatever the MR grants: a request
 * the QP does not enable is an invalid request (IBA 9.7.5.1; rdma_rxe
 * answers the same) and touches nothing.
 */

/*
 * Replace the connected QPs by fresh ones; the responder's with
 * @qp_access and @dest_rd responder resources (-1: as many as it can).
 */
static void sec_reconnect(struct __test_metadata *_metadata,
			  FIXTURE_DATA(dp_security) *self, int qp_access,
			  int dest_rd)
{
	dp_qp_destroy(&self->qa);
	dp_qp_destroy(&self->qb);
	ASSERT_EQ(0, dp_qp_create(&self->qa, self->a, 2, DP_GUARD_QP_ACCESS));
	ASSERT_EQ(0, dp_qp_create(&self->qb, self->b, 2, qp_access));
	ASSERT_EQ(0, dp_qp_connect(&self->qa, &self->qb, IBV_MTU_1024,
				   0x223, 0x556));
	ASSERT_EQ(0, dp_qp_connect_rd(&self->qb, &self->qa, IBV_MTU_1024,
				      0x556, 0x223, dest_rd));
}

/* The responder QP's rights changed while it is in RTS (RTS -> RTS). */
static void sec_qp_access(struct __test_metadata *_metadata,
			  FIXTURE_DATA(dp_security) *self, int qp_access)
{
	struct ibv_qp_attr a = { .qp_access_flags = qp_access };

	ASSERT_EQ(0, ibv_modify_qp(self->qb.qp, &a, IBV_QP_ACCESS_FLAGS));
}

TEST_F(dp_security, write_to_qp_without_remote_write_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	sec_reconnect(_metadata, self, IBV_ACCESS_REMOTE_READ |
		      IBV_ACCESS_REMOTE_ATOMIC, -1);
	ASSERT_EQ(IBV_WC_REM_INV_REQ_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_WRITE, 0, 64,
			   self->rmr->rkey));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, read_from_qp_without_remote_read_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	sec_reconnect(_metadata, self, IBV_ACCESS_REMOTE_WRITE |
		      IBV_ACCESS_REMOTE_ATOMIC, -1);
	memset(self->lbuf + SEC_PAGE, 0x77, 64);
	ASSERT_EQ(IBV_WC_REM_INV_REQ_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_READ, 0, 64,
			   self->rmr->rkey));
	/* nothing of the region came back */
	ASSERT_EQ(0x77, self->lbuf[SEC_PAGE]);
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, atomic_on_qp_without_remote_atomic_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	if (!sec_has_atomics(self))
		SKIP(return, "device without atomics");
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	sec_reconnect(_metadata, self, IBV_ACCESS_REMOTE_WRITE |
		      IBV_ACCESS_REMOTE_READ, -1);
	ASSERT_EQ(IBV_WC_REM_INV_REQ_ERR,
		  sec_atomic(_metadata, self, 0, self->rmr->rkey));
	ASSERT_UNTOUCHED();
}

/* Rights taken away from a QP in RTS apply to the next request. */
TEST_F(dp_security, write_after_qp_remote_write_revoked_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_SUCCESS,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_WRITE, 0, 64,
			   self->rmr->rkey));
	memcpy(self->shadow + SEC_PAGE, self->lbuf + SEC_PAGE, 64);
	memset(self->lbuf + SEC_PAGE, 0x99, 64);
	sec_qp_access(_metadata, self, IBV_ACCESS_REMOTE_READ);
	ASSERT_EQ(IBV_WC_REM_INV_REQ_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_WRITE, 0, 64,
			   self->rmr->rkey));
	ASSERT_UNTOUCHED();
}

/* max_dest_rd_atomic 0: no responder resources, no READ, no atomic. */
TEST_F(dp_security, read_without_responder_resources_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	sec_reconnect(_metadata, self, DP_GUARD_QP_ACCESS, 0);
	memset(self->lbuf + SEC_PAGE, 0x77, 64);
	ASSERT_EQ(IBV_WC_REM_INV_REQ_ERR,
		  sec_rdma(_metadata, self, IBV_WR_RDMA_READ, 0, 64,
			   self->rmr->rkey));
	ASSERT_EQ(0x77, self->lbuf[SEC_PAGE]);
	ASSERT_UNTOUCHED();
}

TEST_F(dp_security, atomic_without_responder_resources_rejected)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	if (!sec_has_atomics(self))
		SKIP(return, "device without atomics");
	sec_reg(_metadata, self, SEC_ALL_ACCESS);
	sec_reconnect(_metadata, self, DP_GUARD_QP_ACCESS, 0);
	ASSERT_EQ(IBV_WC_REM_INV_REQ_ERR,
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

/*
 * -- a source MR deregistered while its packets are still queued --
 *
 * vrnic sends an RC payload from the MR's own pages (zero-copy transmit):
 * a queued packet holds references to the pages, not to the MR.  Here the
 * owner of the source deregisters it and unmaps the memory while the
 * packets wait in a netem delay on the way out, then maps and fills fresh
 * memory, which would take over the old pages had they been freed.  The
 * sink must receive the source's bytes or keep its own, at every offset,
 * and all of the source's if the operation completed successfully.  The
 * loopback variant races the same way without a qdisc to wait in.
 */
#define SEC_RACE_LEN	((size_t)64 * 1024)
#define SEC_RACE_DELAY	"300ms"
#define SEC_RACE_FILL	(64L << 20)	/* fresh memory after the unmap */

static uint8_t sec_race_src(size_t i)
{
	return 0x5a ^ (i * 13) ^ (i >> 9);
}

static uint8_t sec_race_sink(size_t i)
{
	return 0xc3 ^ (i * 5);
}

/* The veth end in @ns (the responder's), for its egress qdisc. */
static int sec_peer_veth(const char *ns, char *name, size_t size)
{
	char cmd[256];
	FILE *f;
	int ok;

	snprintf(cmd, sizeof(cmd),
		 "ip -n %s -o link show type veth | sed -n '1s/^[0-9]*: \\([^@:]*\\).*/\\1/p'",
		 ns);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	ok = fgets(name, size, f) != NULL;
	pclose(f);
	if (!ok)
		return -1;
	name[strcspn(name, "\n")] = 0;
	return name[0] ? 0 : -1;
}

/*
 * One RDMA WRITE or READ of @len bytes between two fresh mappings, the
 * source on the side that sends the payload.  In the pair variant that
 * side's egress waits in a netem delay of @delay, on the veth pair of
 * own_pair.sh; where the link is someone else's (dp_interop.sh's pairs),
 * the operation runs without the delay.
 */
struct sec_xfer {
	bool read;
	size_t len;
	uint8_t *src, *sink;
	struct ibv_mr *smr, *kmr;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	char qdisc_dev[64], qdisc_ns[80];
};

/*
 * @fill writes both mappings' first contents; it runs before they are
 * registered, so that the MRs pin the pages it wrote.
 */
static void sec_xfer_setup(struct __test_metadata *_metadata,
			   FIXTURE_DATA(dp_security) *self, struct sec_xfer *x,
			   bool read, size_t len, const char *delay,
			   void (*fill)(uint8_t *src, uint8_t *sink, size_t len))
{
	const char *ns = getenv("DP_NS"), *veth = getenv("DP_VETH");
	struct dp_dev *src_dev = read ? self->b : self->a;
	struct dp_dev *sink_dev = read ? self->a : self->b;

	memset(x, 0, sizeof(*x));
	x->read = read;
	x->len = len;
	if (self->a != self->b && ns && veth) {
		if (read) {
			ASSERT_EQ(0, sec_peer_veth(ns, x->qdisc_dev,
						   sizeof(x->qdisc_dev)));
			snprintf(x->qdisc_ns, sizeof(x->qdisc_ns), "-n %s", ns);
		} else {
			snprintf(x->qdisc_dev, sizeof(x->qdisc_dev), "%s",
				 veth);
		}
		ASSERT_EQ(0, vrnic_sh("tc %s qdisc add dev %s root netem delay %s limit 10000",
				      x->qdisc_ns, x->qdisc_dev, delay));
	}

	x->src = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	x->sink = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, x->src);
	ASSERT_NE(MAP_FAILED, x->sink);
	fill(x->src, x->sink, len);
	x->smr = ibv_reg_mr(src_dev->pd, x->src, len,
			    read ? IBV_ACCESS_REMOTE_READ : 0);
	x->kmr = ibv_reg_mr(sink_dev->pd, x->sink, len,
			    IBV_ACCESS_LOCAL_WRITE |
			    (read ? 0 : IBV_ACCESS_REMOTE_WRITE));
	ASSERT_NE(NULL, x->smr) TH_LOG("reg_mr: %s", strerror(errno));
	ASSERT_NE(NULL, x->kmr) TH_LOG("reg_mr: %s", strerror(errno));

	x->sge.length = len;
	if (read) {
		x->sge.addr = (uintptr_t)x->sink;
		x->sge.lkey = x->kmr->lkey;
		x->wr.wr.rdma.remote_addr = (uintptr_t)x->src;
		x->wr.wr.rdma.rkey = x->smr->rkey;
	} else {
		x->sge.addr = (uintptr_t)x->src;
		x->sge.lkey = x->smr->lkey;
		x->wr.wr.rdma.remote_addr = (uintptr_t)x->sink;
		x->wr.wr.rdma.rkey = x->kmr->rkey;
	}
	x->wr.opcode = read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
	x->wr.num_sge = 1;
	x->wr.sg_list = &x->sge;
	x->wr.send_flags = IBV_SEND_SIGNALED;
}

/* Remove the delay, if sec_xfer_setup() added one. */
static void sec_xfer_undelay(struct sec_xfer *x)
{
	if (x->qdisc_dev[0])
		vrnic_sh("tc %s qdisc del dev %s root", x->qdisc_ns,
			 x->qdisc_dev);
	x->qdisc_dev[0] = 0;
}

/* Deregister and unmap what is left; the caller may have taken the source. */
static void sec_xfer_free(struct sec_xfer *x)
{
	sec_xfer_undelay(x);
	if (x->kmr)
		ibv_dereg_mr(x->kmr);
	if (x->smr)
		ibv_dereg_mr(x->smr);
	if (x->sink)
		munmap(x->sink, x->len);
	if (x->src)
		munmap(x->src, x->len);
}

static void sec_race_fill(uint8_t *src, uint8_t *sink, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		src[i] = sec_race_src(i);
		sink[i] = sec_race_sink(i);
	}
}

/*
 * @read: the requester READs from the responder's source (the responder's
 * READ responses wait in the delay); else it WRITEs from its own source
 * (its requests wait).
 */
static void sec_dereg_in_flight(struct __test_metadata *_metadata,
				FIXTURE_DATA(dp_security) *self, bool read)
{
	struct ibv_send_wr *bad;
	size_t i, got_src = 0;
	struct sec_xfer x;
	struct ibv_wc wc;
	uint8_t *fill;
	int ret;

	sec_xfer_setup(_metadata, self, &x, read, SEC_RACE_LEN,
		       SEC_RACE_DELAY, sec_race_fill);
	x.wr.wr_id = 9;
	ASSERT_EQ(0, ibv_post_send(self->qa.qp, &x.wr, &bad));

	/* The packets are built; in the pair variant they wait in netem. */
	usleep(read ? 150000 : 50000);
	ASSERT_EQ(0, ibv_dereg_mr(x.smr));
	x.smr = NULL;
	ASSERT_EQ(0, munmap(x.src, SEC_RACE_LEN));
	x.src = NULL;
	fill = mmap(NULL, SEC_RACE_FILL, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ASSERT_NE(MAP_FAILED, fill);
	memset(fill, 0xee, SEC_RACE_FILL);

	ret = dp_poll(self->qa.cq, &wc, dp_timeout_ms());
	sec_xfer_undelay(&x);
	munmap(fill, SEC_RACE_FILL);
	ASSERT_EQ(0, ret) TH_LOG("no completion");

	for (i = 0; i < SEC_RACE_LEN; i++) {
		if (x.sink[i] == sec_race_src(i))
			got_src++;
		else
			ASSERT_EQ(sec_race_sink(i), x.sink[i])
				TH_LOG("sink byte %zu is %#x: neither the source's %#x nor its own",
				       i, x.sink[i], sec_race_src(i));
	}
	TH_LOG("%s: %s, %zu of %zu bytes from the source",
	       read ? "READ" : "WRITE", ibv_wc_status_str(wc.status),
	       got_src, SEC_RACE_LEN);
	if (wc.status == IBV_WC_SUCCESS)
		ASSERT_EQ(SEC_RACE_LEN, got_src);
	sec_xfer_free(&x);
}

TEST_F(dp_security, write_source_deregistered_in_flight_sends_only_its_bytes)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_dereg_in_flight(_metadata, self, false);
}

TEST_F(dp_security, read_source_deregistered_in_flight_sends_only_its_bytes)
{
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_dereg_in_flight(_metadata, self, true);
}

/*
 * RDMA of memory its owner keeps writing.  The responder's application is
 * no party to a READ and may store into the region at any time; and an
 * application may send from memory it keeps updating (so does nfsd, from
 * page-cache pages a local writer changes), against the verbs' advice.
 * On a NIC, whose DMA reads each byte once, the operation completes with
 * some mix of old and new bytes.  A payload lent to the skb is read twice
 * (docs/wire.md, "Zero-copy transmit"): by the ICRC when the packet is
 * sent and by the netdev or the peer later, so a store in between makes
 * the peer drop the packet (icrc_errors), and a region written without
 * pause never arrived (IBV_WC_RETRY_EXC_ERR).  In the pair variant the
 * packets carrying the payload wait in a netem delay, as they can in a
 * NIC's transmit queue.  READ responses are copied to the wire, so the
 * requester counts no ICRC error; a WRITE's first send may be lost so,
 * but what is resent is copied and the WRITE completes.
 */
#define SEC_BUSY_LEN	((size_t)64 * 1024)
#define SEC_BUSY_OPS	8
#define SEC_BUSY_DELAY	"20ms"

struct sec_busy_writer {
	volatile uint8_t *buf;
	volatile bool stop;
	unsigned long rounds;
};

static void *sec_busy_writer_fn(void *arg)
{
	struct sec_busy_writer *w = arg;
	uint8_t v = 0;
	size_t i;

	while (!w->stop) {
		v++;
		for (i = 0; i < SEC_BUSY_LEN; i += 64)
			w->buf[i] = v;
		w->rounds++;
	}
	return NULL;
}

static void sec_busy_fill(uint8_t *src, uint8_t *sink, size_t len)
{
	memset(src, 0x11, len);
	memset(sink, 0, len);
}

/* @read: READ from the responder's busy source; else WRITE from ours. */
static void sec_busy(struct __test_metadata *_metadata,
		     FIXTURE_DATA(dp_security) *self, bool read)
{
	struct dp_dev *sink_dev = read ? self->a : self->b;
	struct sec_busy_writer w = { 0 };
	long long icrc0, icrc1;
	const char *why = NULL;
	struct ibv_send_wr *bad;
	struct sec_xfer x;
	pthread_t writer;
	struct ibv_wc wc;
	int i;

	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */
		return;
	sec_xfer_setup(_metadata, self, &x, read, SEC_BUSY_LEN,
		       SEC_BUSY_DELAY, sec_busy_fill);

	icrc0 = wp_counter(sink_dev->name, "icrc_errors");
	w.buf = x.src;
	ASSERT_EQ(0, pthread_create(&writer, NULL, sec_busy_writer_fn, &w));
	for (i = 0; i < SEC_BUSY_OPS && !why; i++) {
		x.wr.wr_id = i;
		if (ibv_post_send(self->qa.qp, &x.wr, &bad))
			why = "post_send failed";
		else if (dp_poll(self->qa.cq, &wc, dp_timeout_ms()))
			why = "no completion";
		else if (wc.status != IBV_WC_SUCCESS)
			why = ibv_wc_status_str(wc.status);
	}
	w.stop = true;
	pthread_join(writer, NULL);
	icrc1 = wp_counter(sink_dev->name, "icrc_errors");
	sec_xfer_undelay(&x);
	TH_LOG("%d %ss of %zu bytes while the source was written %lu times; receiver's icrc_errors +%lld",
	       i, read ? "READ" : "WRITE", SEC_BUSY_LEN, w.rounds,
	       icrc1 - icrc0);
	ASSERT_EQ(NULL, why) TH_LOG("%s %d: %s", read ? "READ" : "WRITE",
				    i - 1, why);
	if (read && icrc0 >= 0)
		EXPECT_EQ(icrc0, icrc1);
	sec_xfer_free(&x);
}

TEST_F(dp_security, read_of_memory_written_meanwhile_completes)
{
	sec_busy(_metadata, self, true);
}

TEST_F(dp_security, write_from_memory_written_meanwhile_completes)
{
	sec_busy(_metadata, self, false);
}

int main(int argc, char **argv)
{
	if (dp_own_setup(argv))
		ksft_print_msg("could not create a %s device; set DP_DEV\n",
			       getenv("DP_LINK_TYPE") ?: "vrnic");
	return test_harness_run(argc, argv);
}
