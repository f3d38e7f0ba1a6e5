// SPDX-License-Identifier: GPL-2.0
/*
 * dp_atomic_write - ATOMIC WRITE (IBTA 1.5) through librxe's extended
 * post-send API (ibv_wr_atomic_write()).
 *
 * The responder's region sits between guard pages (lib/dp_guard.h).  The
 * 8 bytes land exactly where they were aimed, the requester completes
 * with IBV_WC_ATOMIC_WRITE, later atomics see the stored value, a reader
 * never sees the word torn; an ATOMIC WRITE past the region, misaligned,
 * through an rkey without remote write, to a QP without remote write or
 * without responder resources fails with an error completion and changes
 * nothing.  The device must advertise IB_UVERBS_DEVICE_ATOMIC_WRITE.
 *
 * Against a device that does not implement it (rdma_rxe on 6.1, as
 * requester or responder: DP_DEV_TYPE / DP_DEV2_TYPE = rxe) every
 * ATOMIC WRITE must end in an error completion, in time, touching
 * nothing: the tests check exactly that instead.
 *
 * Environment: as dp_security (DP_DEV, DP_DEV2, DP_DEV_TYPE,
 * DP_DEV2_TYPE, DP_ONLY, DP_TIMEOUT_MS).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
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

/* IB_UVERBS_DEVICE_ATOMIC_WRITE; rdma-core 44's verbs.h has no name for it */
#define AW_DEVICE_CAP	(1ULL << 40)

FIXTURE(dp_atomic_write) {
	DP_GUARD_MEMBERS;
	struct ibv_mr *rmr;
	struct dp_qp qx;	/* requester QP with the extended API */
};

FIXTURE_VARIANT(dp_atomic_write) {
	const char *name;
	bool pair;
};

FIXTURE_VARIANT_ADD(dp_atomic_write, loopback) {
	.name = "loopback",
	.pair = false,
};

FIXTURE_VARIANT_ADD(dp_atomic_write, pair) {
	.name = "pair",
	.pair = true,
};

/* Does the pair implement ATOMIC WRITE end to end? */
static bool aw_supported(FIXTURE_DATA(dp_atomic_write) *self)
{
	return !dp_guard_is_rxe(&self->g, self->a) && !dp_guard_is_rxe(&self->g, self->b);
}

/*
 * Replace the requester QP of dp_guard_setup() by one created with
 * IBV_QP_EX_WITH_ATOMIC_WRITE (and the ordinary atomics), connected to a
 * fresh responder QP with @qp_access and @dest_rd responder resources.
 */
static void aw_connect(struct __test_metadata *_metadata,
		       FIXTURE_DATA(dp_atomic_write) *self, int qp_access,
		       int dest_rd)
{
	dp_qp_destroy(&self->qa);
	dp_qp_destroy(&self->qb);
	dp_qp_destroy(&self->qx);
	ASSERT_EQ(0, dp_qp_create_ex(&self->qx, self->a, 2, DP_GUARD_QP_ACCESS,
				     IBV_QP_EX_WITH_ATOMIC_WRITE |
				     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
				     IBV_QP_EX_WITH_RDMA_READ))
		TH_LOG("create_qp_ex with ATOMIC_WRITE: %s", strerror(errno));
	ASSERT_EQ(0, dp_qp_create(&self->qb, self->b, 2, qp_access));
	ASSERT_EQ(0, dp_qp_connect(&self->qx, &self->qb, IBV_MTU_1024,
				   0x321, 0x654));
	ASSERT_EQ(0, dp_qp_connect_rd(&self->qb, &self->qx, IBV_MTU_1024,
				      0x654, 0x321, dest_rd));
}

FIXTURE_SETUP(dp_atomic_write)
{
	self->rmr = NULL;
	memset(&self->qx, 0, sizeof(self->qx));
	dp_guard_setup(_metadata, &self->g, variant->name, variant->pair);
	if (!self->ready)
		return;
	self->ready = false;
	aw_connect(_metadata, self, DP_GUARD_QP_ACCESS, -1);
	self->ready = true;
}

FIXTURE_TEARDOWN(dp_atomic_write)
{
	dp_qp_destroy(&self->qx);
	if (self->rmr)
		ibv_dereg_mr(self->rmr);
	dp_guard_teardown(&self->g);
}

#define ASSERT_UNTOUCHED() DP_ASSERT_UNTOUCHED(self)

static void aw_reg(struct __test_metadata *_metadata,
		   FIXTURE_DATA(dp_atomic_write) *self, int access)
{
	self->rmr = ibv_reg_mr(self->b->pd, self->region, DP_GUARD_REGION,
			       access);
	ASSERT_NE(NULL, self->rmr) TH_LOG("reg_mr(%#x): %s", access,
					  strerror(errno));
}

/*
 * Wait for the one completion of the requester; its status, or -1 if
 * none came in time.  *@op gets the opcode of a successful one.
 */
static int aw_wait(struct __test_metadata *_metadata,
		   FIXTURE_DATA(dp_atomic_write) *self, enum ibv_wc_opcode *op)
{
	struct ibv_wc wc;

	if (dp_poll(self->qx.cq, &wc, dp_timeout_ms()))
		return -1;
	if (wc.status != IBV_WC_SUCCESS)
		TH_LOG("completion: %s", ibv_wc_status_str(wc.status));
	else if (op)
		*op = wc.opcode;
	return wc.status;
}

/* ATOMIC WRITE of @val (as its 8 bytes in memory) at region offset @off. */
static int aw_write(struct __test_metadata *_metadata,
		    FIXTURE_DATA(dp_atomic_write) *self, long off,
		    uint64_t val, uint32_t rkey, enum ibv_wc_opcode *op)
{
	struct ibv_qp_ex *qx = self->qx.qpx;
	int ret;

	ibv_wr_start(qx);
	qx->wr_id = 0xa7;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qx, rkey, dp_guard_va(&self->g, off), &val);
	ret = ibv_wr_complete(qx);
	ASSERT_EQ(0, ret) TH_LOG("wr_complete: %s", strerror(ret));
	return aw_wait(_metadata, self, op);
}

/* Fetch-and-add of @add at region offset @off; the original to @orig. */
static int aw_fadd(struct __test_metadata *_metadata,
		   FIXTURE_DATA(dp_atomic_write) *self, long off,
		   uint64_t add, uint64_t *orig)
{
	struct ibv_qp_ex *qx = self->qx.qpx;
	int ret, st;

	ibv_wr_start(qx);
	qx->wr_id = 0xfa;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(qx, self->rmr->rkey,
				dp_guard_va(&self->g, off), add);
	ibv_wr_set_sge(qx, self->lmr->lkey, (uintptr_t)self->lbuf, 8);
	ret = ibv_wr_complete(qx);
	ASSERT_EQ(0, ret) TH_LOG("wr_complete: %s", strerror(ret));
	st = aw_wait(_metadata, self, NULL);
	memcpy(orig, self->lbuf, 8);
	return st;
}

/*
 * A device without ATOMIC WRITE: the request must fail cleanly (an error
 * completion in time, nothing written).  Returns true if it handled the
 * test.
 */
static bool aw_unsupported_fails_cleanly(struct __test_metadata *_metadata,
					 FIXTURE_DATA(dp_atomic_write) *self)
{
	int st;

	if (aw_supported(self))
		return false;
	aw_reg(_metadata, self, DP_GUARD_ALL_ACCESS);
	st = aw_write(_metadata, self, 8, 0x1122334455667788ULL,
		      self->rmr->rkey, NULL);
	ASSERT_NE(-1, st) TH_LOG("no completion: the QP hangs");
	ASSERT_NE(IBV_WC_SUCCESS, st);
	ASSERT_UNTOUCHED();
	return true;
}

#define AW_READY() do { \
	if (!self->ready)	/* SKIP in FIXTURE_SETUP still runs the body */ \
		return; \
	if (aw_unsupported_fails_cleanly(_metadata, self)) \
		return; \
} while (0)

static uint64_t aw_word(FIXTURE_DATA(dp_atomic_write) *self, long off)
{
	uint64_t v;

	memcpy(&v, self->region + off, 8);
	return v;
}

TEST_F(dp_atomic_write, device_advertises_atomic_write)
{
	struct ibv_device_attr_ex ax = {};

	if (!self->ready)
		return;
	ASSERT_EQ(0, ibv_query_device_ex(self->a->ctx, NULL, &ax));
	if (dp_guard_is_rxe(&self->g, self->a)) {
		ASSERT_FALSE(!!(ax.device_cap_flags_ex & AW_DEVICE_CAP));
		return;
	}
	ASSERT_TRUE(!!(ax.device_cap_flags_ex & AW_DEVICE_CAP))
		TH_LOG("device_cap_flags_ex %#" PRIx64,
		       (uint64_t)ax.device_cap_flags_ex);
}

/* The first and the last word of the region, and nothing else. */
TEST_F(dp_atomic_write, stores_first_and_last_word)
{
	const uint64_t v1 = 0x0123456789abcdefULL, v2 = 0xfedcba9876543210ULL;
	enum ibv_wc_opcode op = 0;

	AW_READY();
	aw_reg(_metadata, self, DP_GUARD_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_SUCCESS,
		  aw_write(_metadata, self, 0, v1, self->rmr->rkey, &op));
	ASSERT_EQ(IBV_WC_ATOMIC_WRITE, (int)op);
	ASSERT_EQ(IBV_WC_SUCCESS,
		  aw_write(_metadata, self, DP_GUARD_REGION - 8, v2,
			   self->rmr->rkey, &op));
	memcpy(self->shadow + DP_GUARD_PAGE, &v1, 8);
	memcpy(self->shadow + DP_GUARD_PAGE + DP_GUARD_REGION - 8, &v2, 8);
	ASSERT_UNTOUCHED();
}

/* Ordered with the other atomics: a FETCH_ADD after it sees its value. */
TEST_F(dp_atomic_write, fetch_add_sees_the_stored_value)
{
	const uint64_t v = 0x5a5a5a5a00000001ULL;
	uint64_t orig = 0;
	int i;

	AW_READY();
	aw_reg(_metadata, self, DP_GUARD_ALL_ACCESS);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(IBV_WC_SUCCESS,
			  aw_write(_metadata, self, 64, v + i,
				   self->rmr->rkey, NULL));
		ASSERT_EQ(IBV_WC_SUCCESS,
			  aw_fadd(_metadata, self, 64, 0x10, &orig));
		ASSERT_EQ(v + i, orig);
		ASSERT_EQ(v + i + 0x10, aw_word(self, 64));
	}
	memcpy(self->shadow + DP_GUARD_PAGE + 64, self->region + 64, 8);
	ASSERT_UNTOUCHED();
}

/* A reader on the responder never sees half of one value, half of another. */
struct aw_reader {
	const volatile uint64_t *p;
	atomic_bool stop;
	uint64_t a, b;
	uint64_t torn, reads;
};

static void *aw_read_loop(void *arg)
{
	struct aw_reader *r = arg;
	uint64_t v;

	while (!atomic_load(&r->stop)) {
		v = __atomic_load_n(r->p, __ATOMIC_RELAXED);
		if (v != r->a && v != r->b)
			r->torn++;
		r->reads++;
	}
	return NULL;
}

TEST_F(dp_atomic_write, never_seen_torn)
{
	struct aw_reader r = {
		.a = 0x0000000000000000ULL,
		.b = 0xffffffffffffffffULL,
	};
	pthread_t t;
	int i;

	AW_READY();
	aw_reg(_metadata, self, DP_GUARD_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_SUCCESS,
		  aw_write(_metadata, self, 128, r.a, self->rmr->rkey, NULL));
	r.p = (const volatile uint64_t *)(self->region + 128);
	ASSERT_EQ(0, pthread_create(&t, NULL, aw_read_loop, &r));
	for (i = 0; i < 200; i++)
		if (aw_write(_metadata, self, 128, i & 1 ? r.a : r.b,
			     self->rmr->rkey, NULL) != IBV_WC_SUCCESS)
			break;
	atomic_store(&r.stop, true);
	pthread_join(t, NULL);
	ASSERT_EQ(200, i);
	ASSERT_EQ(0ULL, (unsigned long long)r.torn) TH_LOG("%" PRIu64 " torn of %" PRIu64 " reads",
				     r.torn, r.reads);
	memcpy(self->shadow + DP_GUARD_PAGE + 128, self->region + 128, 8);
	ASSERT_UNTOUCHED();
}

TEST_F(dp_atomic_write, past_end_rejected)
{
	AW_READY();
	aw_reg(_metadata, self, DP_GUARD_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  aw_write(_metadata, self, DP_GUARD_REGION, 1,
			   self->rmr->rkey, NULL));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_atomic_write, before_start_rejected)
{
	AW_READY();
	aw_reg(_metadata, self, DP_GUARD_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  aw_write(_metadata, self, -8, 1, self->rmr->rkey, NULL));
	ASSERT_UNTOUCHED();
}

/* Naturally aligned, as the other atomics: an invalid request. */
TEST_F(dp_atomic_write, misaligned_rejected)
{
	AW_READY();
	aw_reg(_metadata, self, DP_GUARD_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_REM_INV_REQ_ERR,
		  aw_write(_metadata, self, 4, 1, self->rmr->rkey, NULL));
	ASSERT_UNTOUCHED();
}

TEST_F(dp_atomic_write, wrong_rkey_rejected)
{
	AW_READY();
	aw_reg(_metadata, self, DP_GUARD_ALL_ACCESS);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  aw_write(_metadata, self, 8, 1, self->rmr->rkey ^ 0x80,
			   NULL));
	ASSERT_UNTOUCHED();
}

/* The rkey must grant remote write; remote atomic alone is not enough. */
TEST_F(dp_atomic_write, mr_without_remote_write_rejected)
{
	AW_READY();
	aw_reg(_metadata, self, IBV_ACCESS_LOCAL_WRITE |
	       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	ASSERT_EQ(IBV_WC_REM_ACCESS_ERR,
		  aw_write(_metadata, self, 8, 1, self->rmr->rkey, NULL));
	ASSERT_UNTOUCHED();
}

/* The responder QP must enable remote write too. */
TEST_F(dp_atomic_write, qp_without_remote_write_rejected)
{
	AW_READY();
	aw_reg(_metadata, self, DP_GUARD_ALL_ACCESS);
	aw_connect(_metadata, self, IBV_ACCESS_REMOTE_READ |
		   IBV_ACCESS_REMOTE_ATOMIC, -1);
	ASSERT_EQ(IBV_WC_REM_INV_REQ_ERR,
		  aw_write(_metadata, self, 8, 1, self->rmr->rkey, NULL));
	ASSERT_UNTOUCHED();
}

/* It uses a responder resource: max_dest_rd_atomic 0 refuses it. */
TEST_F(dp_atomic_write, no_responder_resources_rejected)
{
	AW_READY();
	aw_reg(_metadata, self, DP_GUARD_ALL_ACCESS);
	aw_connect(_metadata, self, DP_GUARD_QP_ACCESS, 0);
	ASSERT_EQ(IBV_WC_REM_INV_REQ_ERR,
		  aw_write(_metadata, self, 8, 1, self->rmr->rkey, NULL));
	ASSERT_UNTOUCHED();
}

int main(int argc, char **argv)
{
	if (dp_own_setup(argv))
		ksft_print_msg("could not create a %s device; set DP_DEV\n",
			       getenv("DP_LINK_TYPE") ?: "vrnic");
	return test_harness_run(argc, argv);
}
