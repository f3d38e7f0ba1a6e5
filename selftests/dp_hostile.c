// SPDX-License-Identifier: GPL-2.0
/*
 * dp_hostile - a process and a peer that attack a QP's life cycle and
 * rings (issue 9: items 1, 3, 6, 7, 9, 12), and the ring race a plain
 * process hits.
 *
 *  - forged ATOMIC_ACK: a packet from the QP's peer address that
 *    "acknowledges" a SEND with an atomic original value must be a
 *    counted drop; it must neither complete the SEND nor write its 8
 *    bytes into the SEND's source buffer (IBA 9.9.2 response checks);
 *  - scribbled producer indices: a thread keeps moving the SQ and RQ
 *    producers ahead of the kernel (and the CQ consumer behind its
 *    producer) while the QP enters Error: each flush pass completes at
 *    most a ring's worth, instead of flushing for as long as the thread
 *    keeps writing (with BHs off); and local WQEs the process keeps
 *    posting take the requester's budget like packets do, in the
 *    doorbell and in the requester's work item (post_spread queues it on
 *    another CPU), which starts again after its budgets instead of
 *    running for as long as the ring refills;
 *  - a producer moved backwards behind WQEs already sent: the kernel
 *    starts nothing new (the fetch position never wraps onto the
 *    consumer, so the copies of WQEs in flight stay intact);
 *  - destroy_qp while a READ request is inside the responder, and modify
 *    to RESET while the retransmit timer is armed: each window is
 *    widened to hundreds of milliseconds by selftests/widen/vrnic_widen.ko
 *    (a kprobe that busy-waits at a function's entry); the old driver
 *    dereferenced freed or reset state there (an Oops powers the VM off);
 *  - memory cgroup: a process's rings and kernel WQE copies are charged
 *    to its cgroup (memory.current grows by at least the ring sizes);
 *  - a process that posts on each polled completion with its SQ full
 *    finds the slot of the completed WQE free.
 *
 * The "silent peer" is an address on the far end of the test's veth whose
 * QP number does not exist: packets go out and nothing answers.  Forged
 * packets come from a raw socket opened in that far end's namespace.
 *
 * Environment: needs its own device pair (lib/own_pair.sh, which
 * dp_own_setup() runs when no DP_DEV is given: DP_NS and DP_VETH);
 * VRNIC_REPO locates the widen module and lib/wq_trace.sh (default: the
 * current directory);
 * DP_HOSTILE_ONLY=TEXT runs only the cases whose name contains TEXT (to
 * run, against an old driver, a case that follows one that crashes it).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "vrnic_harness.h"

#define DP_PORT		1
#include "lib/dp_verbs.h"
#include "lib/wire_pkt.h"

#define HS_SILENT_QPN	0xfedcb		/* no such QP on the peer */
#define HS_RC_ATOMIC_ACK 0x12
#define HS_AETH_ACK	0x1f		/* ACK, credit field "invalid" */
#define HS_CGROOT	"/sys/fs/cgroup"
#define HS_POST_SPREAD	"/sys/module/vrnic/parameters/post_spread"

/* ---- helpers ---- */

/* Busy-wait: a real-time thread keeps its CPU from work items. */
static void hs_spin_ms(int ms)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (dp_ms_since(&t0) < ms)
		;
}

/*
 * A ring librxe mapped for us, found in /proc/self/maps by its geometry
 * (each test gives its rings distinct sizes).  NULL if none matches.
 */
static struct rxe_queue_buf *hs_ring(uint32_t index_mask)
{
	struct rxe_queue_buf *q, *found = NULL;
	unsigned long start, end;
	char line[512];
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%lx", &start, &end) != 2)
			continue;
		q = (struct rxe_queue_buf *)start;
		if (end - start >= sizeof(*q) && q->index_mask == index_mask)
			found = q;
	}
	fclose(f);
	return found;
}

/* Bytes of a mapped ring: header plus slots. */
static size_t hs_ring_bytes(const struct rxe_queue_buf *q)
{
	return sizeof(*q) + ((size_t)(q->index_mask + 1) << q->log2_elem_size);
}

/* A raw IPPROTO_RAW socket in network namespace @ns, or -errno. */
static int hs_raw_socket_in(const char *ns)
{
	int here, there, fd = -1, err = 0;
	char path[64];

	snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
	here = open("/proc/self/ns/net", O_RDONLY);
	there = open(path, O_RDONLY);
	if (here < 0 || there < 0 || setns(there, CLONE_NEWNET)) {
		err = -errno;
		goto out;
	}
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0)
		err = -errno;
	if (setns(here, CLONE_NEWNET) && !err)
		err = -errno;
out:
	if (here >= 0)
		close(here);
	if (there >= 0)
		close(there);
	if (err && fd >= 0)
		close(fd);
	return err ? err : fd;
}

/*
 * The widen module (selftests/widen), or NULL if it was not built:
 * $VRNIC_WIDEN_KO when the guest runs another kernel than the one
 * selftests/widen is built for (selftests/vm/debug-kernel.sh).
 */
static const char *hs_widen_ko(void)
{
	static char path[512];
	const char *ko = getenv("VRNIC_WIDEN_KO");

	if (ko && *ko)
		snprintf(path, sizeof(path), "%s", ko);
	else
		snprintf(path, sizeof(path), "%s/selftests/widen/vrnic_widen.ko",
			 getenv("VRNIC_REPO") ?: ".");
	return access(path, R_OK) ? NULL : path;
}

/* Load the widen module on @func; the fixture unloads it if we fail. */
static int hs_widen_load(bool *loaded, const char *func, int delay_ms,
			 int count)
{
	const char *ko = hs_widen_ko();
	int ret;

	if (!ko)
		return -ENOENT;
	ret = vrnic_sh("insmod %s func=%s delay_ms=%d count=%d", ko, func,
		       delay_ms, count);
	*loaded = !ret;
	return ret ? -EIO : 0;
}

/* Run the calling thread on @cpu only. */
static int hs_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/*
 * Run the calling thread on @cpu, real-time: a work item queued there
 * runs only once we sleep, so what we count right after a system call
 * returns is what that call did inline.
 */
static int hs_pin_rt(int cpu)
{
	struct sched_param sp = { .sched_priority = 10 };

	if (hs_pin(cpu))
		return -errno;
	return sched_setscheduler(0, SCHED_FIFO, &sp) ? -errno : 0;
}

/* Unload the widen module; return how often it delayed, or -1. */
static int hs_widen_unload(bool *loaded)
{
	int hits = wp_read_number("/sys/module/vrnic_widen/parameters/hits");

	*loaded = false;
	return vrnic_sh("rmmod vrnic_widen") ? -1 : hits;
}

#define HS_WQ_TRACE "bash -c '. %s/selftests/lib/wq_trace.sh && %s'"

/* Run FUNCTION of lib/wq_trace.sh (which says why it is done so). */
static int hs_wq_trace(const char *function)
{
	return vrnic_sh(HS_WQ_TRACE, getenv("VRNIC_REPO") ?: ".", function);
}

/* The number wq_trace_runs prints for vrnic's requester work item. */
static long hs_wq_trace_req_runs(void)
{
	char cmd[512];
	long runs;
	FILE *f;
	int n;

	snprintf(cmd, sizeof(cmd), HS_WQ_TRACE, getenv("VRNIC_REPO") ?: ".",
		 "wq_trace_runs vrnic_req_work");
	f = popen(cmd, "r");
	if (!f)
		return -errno;
	n = fscanf(f, "%ld", &runs);
	if (pclose(f) != 0 || n != 1)
		return -EIO;
	return runs;
}

/* ---- fixture: the device, its peer address, a CQ and an RC QP ---- */

FIXTURE(hs) {
	struct dp_dev d;
	union ibv_gid peer_gid;
	struct in_addr addr, peer_addr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	bool widen_loaded;
	bool tracing;		/* the workqueue event is on */
	int post_spread_was;	/* -1: vrnic's post_spread untouched */
};

FIXTURE_SETUP(hs)
{
	const char *dev = getenv("DP_DEV");
	const char *only = getenv("DP_HOSTILE_ONLY");
	int ret;

	self->post_spread_was = -1;
	if (only && !strstr(_metadata->name, only))
		SKIP(return, "DP_HOSTILE_ONLY=%s", only);
	if (!dev || !getenv("DP_NS") || !getenv("DP_VETH"))
		SKIP(return, "needs the test's own device pair (lib/own_pair.sh)");
	ret = dp_dev_open(&self->d, dev, AF_INET);
	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", dev, strerror(-ret));
	/* lib/own_pair.sh: we are .1 on the veth, the far end is .2. */
	memcpy(&self->addr, self->d.gid.raw + 12, 4);
	self->peer_gid = self->d.gid;
	self->peer_gid.raw[15] = 2;
	memcpy(&self->peer_addr, self->peer_gid.raw + 12, 4);
	self->buf = calloc(1, 4096);
	ASSERT_NE(NULL, self->buf);
	self->mr = ibv_reg_mr(self->d.pd, self->buf, 4096,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	ASSERT_NE(NULL, self->mr);
}

FIXTURE_TEARDOWN(hs)
{
	if (self->widen_loaded)
		vrnic_sh("rmmod vrnic_widen");
	if (self->post_spread_was >= 0)
		vrnic_sh("echo %d > %s", self->post_spread_was, HS_POST_SPREAD);
	if (self->tracing)
		hs_wq_trace("wq_trace_stop");
	if (self->qp)
		ibv_destroy_qp(self->qp);
	if (self->cq)
		ibv_destroy_cq(self->cq);
	if (self->mr)
		ibv_dereg_mr(self->mr);
	free(self->buf);
	dp_dev_close(&self->d);
}

/* CQ of @cqe entries and an RC QP on it, in INIT. */
static int hs_qp_create(FIXTURE_DATA(hs) *self, enum ibv_qp_type type,
			int cqe, uint32_t send_wr, uint32_t recv_wr)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = type,
		.cap = { .max_send_wr = send_wr, .max_recv_wr = recv_wr,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = DP_PORT,
		.qp_access_flags = type == IBV_QPT_RC ? IBV_ACCESS_REMOTE_READ : 0,
	};

	self->cq = ibv_create_cq(self->d.ctx, cqe, NULL, NULL, 0);
	if (!self->cq)
		return -errno;
	ia.send_cq = self->cq;
	ia.recv_cq = self->cq;
	self->qp = ibv_create_qp(self->d.pd, &ia);
	if (!self->qp)
		return -errno;
	return -ibv_modify_qp(self->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* INIT -> RTR -> RTS towards the silent peer. */
static int hs_connect_silent(FIXTURE_DATA(hs) *self, uint8_t timeout,
			     uint32_t sq_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = HS_SILENT_QPN,
		.rq_psn = 0,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
		.ah_attr = {
			.is_global = 1,
			.port_num = DP_PORT,
			.grh = {
				.dgid = self->peer_gid,
				.sgid_index = self->d.gid_idx,
				.hop_limit = 64,
			},
		},
	};
	bool rc = self->qp->qp_type == IBV_QPT_RC;
	int ret;

	ret = ibv_modify_qp(self->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | (rc ? IBV_QP_MAX_DEST_RD_ATOMIC |
					     IBV_QP_MIN_RNR_TIMER : 0));
	if (ret)
		return -ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	if (!rc)
		return -ibv_modify_qp(self->qp, &a, IBV_QP_STATE |
				      IBV_QP_SQ_PSN);
	a.timeout = timeout;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return -ibv_modify_qp(self->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			      IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			      IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* Set vrnic's post_spread to @on; the fixture puts it back. */
static int hs_post_spread(FIXTURE_DATA(hs) *self, bool on)
{
	FILE *f = fopen(HS_POST_SPREAD, "r");
	char c = 0;

	if (!f)
		return -errno;
	if (fscanf(f, " %c", &c) != 1)
		c = 0;
	fclose(f);
	if (c != 'Y' && c != 'N')
		return -EINVAL;
	if (self->post_spread_was < 0)
		self->post_spread_was = c == 'Y';
	return vrnic_sh("echo %d > %s", on, HS_POST_SPREAD);
}

/*
 * Run every doorbell's requester inline, in the caller's system call:
 * with post_spread on, a doorbell whose newest WQE is a one-packet
 * unsignaled one (the scribbler's) only queues the work item on another
 * CPU (docs/wire.md, "Which CPU runs the requester"), and the tests that
 * measure the inline run's budget would measure nothing.
 */
static int hs_inline_doorbells(FIXTURE_DATA(hs) *self)
{
	return hs_post_spread(self, false);
}

/* Record the work items every CPU executes from now on. */
static int hs_trace_work_start(FIXTURE_DATA(hs) *self)
{
	self->tracing = true;
	return hs_wq_trace("wq_trace_start");
}

/* Stop recording; how often vrnic's requester work item started. */
static long hs_trace_work_runs(FIXTURE_DATA(hs) *self)
{
	hs_wq_trace("wq_trace_stop");
	self->tracing = false;
	return hs_wq_trace_req_runs();
}

static int hs_post_send(FIXTURE_DATA(hs) *self, uint64_t wr_id, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->buf,
		.length = len,
		.lkey = self->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	return ibv_post_send(self->qp, &wr, &bad);
}

static int hs_modify_state(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr a = { .qp_state = state };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* ---- item 3: responses must match the WQE they acknowledge ---- */

TEST_F(hs, forged_atomic_ack_for_send_is_dropped)
{
	static const uint8_t aeth[4] = { HS_AETH_ACK, 0, 0, 1 };
	static const uint8_t orig[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const uint32_t psn = 0x1000;
	uint8_t want[64];
	long long before;
	struct wp_pkt p;
	struct ibv_wc wc;
	int fd;

	if (_metadata->skip)	/* a SKIP in the setup */
		return;
	ASSERT_EQ(0, hs_qp_create(self, IBV_QPT_RC, 64, 16, 16));
	/* Timeout 18: ~1 s before the first retransmission. */
	ASSERT_EQ(0, hs_connect_silent(self, 18, psn));
	memset(self->buf, 0x5a, sizeof(want));
	memcpy(want, self->buf, sizeof(want));
	ASSERT_EQ(0, hs_post_send(self, 1, sizeof(want)));
	usleep(100 * 1000);	/* sent, waiting for an ACK that never comes */

	fd = hs_raw_socket_in(getenv("DP_NS"));
	ASSERT_LE(0, fd) TH_LOG("raw socket in %s: %s", getenv("DP_NS"),
				strerror(-fd));
	wp_crc_init();
	wp_bth(&p, HS_RC_ATOMIC_ACK, WP_PKEY, self->qp->qp_num, psn);
	wp_put(&p, aeth, sizeof(aeth));
	wp_put(&p, orig, sizeof(orig));
	before = wp_counter(self->d.name, "drop_malformed");
	ASSERT_LE(0, before);
	ASSERT_EQ(0, wp_send_raw(fd, self->peer_addr, self->addr, &p, true,
				  0));
	close(fd);

	EXPECT_EQ(before + 1, wp_wait_counter(self->d.name, "drop_malformed",
					      before + 1))
		TH_LOG("the forged ATOMIC_ACK was not counted as a drop");
	EXPECT_EQ(-ETIMEDOUT, dp_poll(self->cq, &wc, 300))
		TH_LOG("the SEND completed (status %d) on a forged ATOMIC_ACK",
		       wc.status);
	EXPECT_EQ(0, memcmp(self->buf, want, sizeof(want)))
		TH_LOG("the ATOMIC_ACK wrote into the SEND's source buffer");
}

/* ---- item 6: flushing rings the process keeps refilling ---- */

struct hs_ringfeed {
	struct rxe_queue_buf *q;
	uint32_t last;
	volatile unsigned long done;	/* slots the kernel consumed */
};

struct hs_scribbler {
	struct hs_ringfeed sq, rq;	/* .q NULL: left alone */
	struct rxe_queue_buf *cq;	/* NULL: left alone */
	int run_ms;			/* 0: until @stop */
	int cpu;			/* runs there */
	volatile bool stop;
};

/* Keep the ring all but full ahead of what the kernel consumed. */
static void hs_feed(struct hs_ringfeed *f)
{
	uint32_t m, c;

	if (!f->q)
		return;
	m = f->q->index_mask;
	c = __atomic_load_n(&f->q->consumer_index, __ATOMIC_ACQUIRE);
	f->done += (c - f->last) & m;
	f->last = c;
	__atomic_store_n(&f->q->producer_index, (c + m - 1) & m,
			 __ATOMIC_RELEASE);
}

/* Keep the producers ahead of the kernel and the CQ empty. */
static void *hs_scribble(void *arg)
{
	struct hs_scribbler *s = arg;
	struct timespec t0, t;

	hs_pin(s->cpu);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (s->sq.q)
		s->sq.last = s->sq.q->consumer_index;
	if (s->rq.q)
		s->rq.last = s->rq.q->consumer_index;
	while (!s->stop) {
		hs_feed(&s->sq);
		hs_feed(&s->rq);
		if (s->cq)
			__atomic_store_n(&s->cq->consumer_index,
					 __atomic_load_n(&s->cq->producer_index,
							 __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
		if (!s->run_ms)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 >= s->run_ms)
			break;
	}
	return NULL;
}

/*
 * Start @s writing on its CPU, ring the doorbell from a real-time thread
 * on CPU 0, and return how many SQ WQEs the kernel completed inside the
 * doorbell; the writer is done on return.
 */
static unsigned long hs_doorbell_during(FIXTURE_DATA(hs) *self,
					struct hs_scribbler *s, int *ret)
{
	unsigned long before, during;
	pthread_t t;

	/* The writer inherits the real-time policy, on its own CPU. */
	*ret = hs_pin_rt(0);
	if (!*ret)
		*ret = pthread_create(&t, NULL, hs_scribble, s);
	if (*ret)
		return 0;
	usleep(200 * 1000);
	before = s->sq.done;
	*ret = hs_post_send(self, 7, 0);
	hs_spin_ms(2);	/* the writer's count catches up */
	during = s->sq.done - before;
	pthread_join(t, NULL);
	return during;
}

/*
 * The kernel side is slowed to 3 ms per completion (the widen module on
 * vrnic_cq_post) so that the writer, pinned to the other CPU, stays
 * ahead of it despite the host's scheduling.  A doorbell in Error
 * flushes the SQ inline: the old driver stayed in it, flushing, for as
 * long as the writer ran; now it flushes at most a ring's worth.
 */
TEST_F(hs, flush_of_refilled_rings_is_bounded)
{
	struct hs_scribbler s = { .run_ms = 3000, .cpu = 1 };
	uint32_t sq_cap, rq_cap;
	unsigned long during;
	int ret;

	if (_metadata->skip)	/* a SKIP in the setup */
		return;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	/* Distinct ring sizes: SQ 64 slots, RQ 32, CQ 4096. */
	ASSERT_EQ(0, hs_qp_create(self, IBV_QPT_RC, 4000, 40, 20));
	ASSERT_EQ(0, hs_connect_silent(self, 18, 0));
	s.sq.q = hs_ring(63);
	s.rq.q = hs_ring(31);
	s.cq = hs_ring(4095);
	ASSERT_TRUE(s.sq.q && s.rq.q && s.cq) TH_LOG("rings not found in maps");
	sq_cap = s.sq.q->index_mask;
	rq_cap = s.rq.q->index_mask;
	/* Error with nothing posted: the flushes it starts end at once. */
	ASSERT_EQ(0, hs_modify_state(self->qp, IBV_QPS_ERR));
	usleep(100 * 1000);
	ASSERT_EQ(0, hs_widen_load(&self->widen_loaded, "vrnic_cq_post", 3,
				   -1));
	ASSERT_EQ(0, hs_inline_doorbells(self));

	/* IBA 10.3.1: WQEs posted in Error complete flushed; once each. */
	during = hs_doorbell_during(self, &s, &ret);
	EXPECT_EQ(0, ret);
	EXPECT_LT(0, hs_widen_unload(&self->widen_loaded));

	TH_LOG("the doorbell flushed %lu SQ WQEs; in all SQ %lu, RQ %lu (rings %u, %u)",
	       during, s.sq.done, s.rq.done, sq_cap, rq_cap);
	/* One pass is at most a ring (plus the doorbell's own WQE). */
	EXPECT_GE(sq_cap + 1UL, during);
	EXPECT_LT(0UL, during);
	/* The RQ flush runs once or twice per kick, a ring each time. */
	EXPECT_GE(4UL * rq_cap, s.rq.done);
}

/* Fill every slot of @sq with an unsignaled zero-length bind of @mw. */
static void hs_fill_binds(struct rxe_queue_buf *sq, struct ibv_mw *mw)
{
	struct rxe_send_wqe *w;
	uint32_t i;

	for (i = 0; i <= sq->index_mask; i++) {
		w = (void *)(sq->data + ((size_t)i << sq->log2_elem_size));
		memset(w, 0, sizeof(*w));
		w->wr.wr_id = i;
		w->wr.opcode = IB_UVERBS_WR_BIND_MW;
		w->wr.wr.mw.mw_rkey = mw->rkey;
		w->wr.wr.mw.rkey = mw->rkey;
	}
}

/*
 * A UC QP to the silent peer whose 1024-slot SQ is all unsignaled binds
 * of a type 1 window, each slowed to 1 ms (the widen module on
 * vrnic_mw_bind): a writer that moves the producer on keeps the
 * requester busy with local WQEs.  Returns the window, NULL on failure.
 */
static struct ibv_mw *hs_bind_ring(FIXTURE_DATA(hs) *self,
				   struct hs_scribbler *s)
{
	struct ibv_mw *mw;

	if (hs_qp_create(self, IBV_QPT_UC, 64, 1000, 8) ||
	    hs_connect_silent(self, 18, 0))
		return NULL;
	s->sq.q = hs_ring(1023);
	if (!s->sq.q)
		return NULL;
	mw = ibv_alloc_mw(self->d.pd, IBV_MW_TYPE_1);
	if (!mw)
		return NULL;
	hs_fill_binds(s->sq.q, mw);
	if (hs_widen_load(&self->widen_loaded, "vrnic_mw_bind", 1, -1)) {
		ibv_dealloc_mw(mw);
		return NULL;
	}
	return mw;
}

/* The window outlives the binds: the QP goes first. */
static void hs_bind_ring_done(FIXTURE_DATA(hs) *self, struct ibv_mw *mw)
{
	ibv_destroy_qp(self->qp);
	self->qp = NULL;
	ibv_dealloc_mw(mw);
}

/*
 * Local WQEs (here: zero-length binds of a type 1 window, which succeed
 * without a packet) used to cost the requester nothing of its budget: a
 * doorbell then completed them, inline and with BHs off, for as long as
 * the process kept posting more.
 */
TEST_F(hs, local_wqes_consume_the_requester_budget)
{
	struct hs_scribbler s = { .run_ms = 2000, .cpu = 1 };
	unsigned long during;
	struct ibv_mw *mw;
	int ret;

	if (_metadata->skip)	/* a SKIP in the setup */
		return;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	/* 1 ms per bind: the writer on the other CPU stays ahead. */
	mw = hs_bind_ring(self, &s);
	ASSERT_NE(NULL, mw);
	ASSERT_EQ(0, hs_inline_doorbells(self));
	/* The doorbell (librxe's SEND lands in one slot among the binds). */
	during = hs_doorbell_during(self, &s, &ret);
	EXPECT_EQ(0, ret);
	EXPECT_LT(0, hs_widen_unload(&self->widen_loaded));
	TH_LOG("the doorbell completed %lu WQEs (%lu in all)", during,
	       s.sq.done);
	EXPECT_LT(0UL, during);
	/*
	 * One run's budget is 32 (req.c); the old driver stayed in the
	 * doorbell, completing binds, until the writer stopped.
	 */
	EXPECT_GE(64UL, during);
	hs_bind_ring_done(self, mw);
}

/*
 * With post_spread on, a doorbell whose newest WQE is unsignaled and one
 * packet long queues the requester's work item on another CPU instead of
 * running it inline.  That run is bounded too (VRNIC_REQ_WORK_RUNS
 * budgets, req.c) and then queued again: while a writer keeps the ring
 * full of 1 ms binds for 3 s, the work item starts again and again; one
 * that kept going while there was work would start once.
 */
TEST_F(hs, requester_work_item_requeues_while_the_ring_refills)
{
	struct hs_scribbler s = { .run_ms = 3000, .cpu = 0 };
	struct ibv_send_wr wr = { .wr_id = 7, .opcode = IBV_WR_SEND }, *bad;
	struct ibv_mw *mw;
	pthread_t t;
	long runs;

	if (_metadata->skip)	/* a SKIP in the setup */
		return;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	if (hs_wq_trace("wq_trace_usable"))
		SKIP(return, "no workqueue_execute_start trace event");
	mw = hs_bind_ring(self, &s);
	ASSERT_NE(NULL, mw);
	ASSERT_EQ(0, hs_post_spread(self, true));
	ASSERT_EQ(0, hs_trace_work_start(self));
	/* Writer and doorbell on CPU 0: the work item goes to CPU 1. */
	ASSERT_EQ(0, hs_pin(0));
	ASSERT_EQ(0, pthread_create(&t, NULL, hs_scribble, &s));
	usleep(100 * 1000);
	/* Unsignaled and empty, as the binds around it. */
	EXPECT_EQ(0, ibv_post_send(self->qp, &wr, &bad));
	pthread_join(t, NULL);
	/* The binds the writer left in the ring, 1 ms each. */
	usleep(1500 * 1000);
	runs = hs_trace_work_runs(self);
	EXPECT_LT(0, hs_widen_unload(&self->widen_loaded));
	TH_LOG("the requester's work item started %ld times; %lu WQEs done",
	       runs, s.sq.done);
	/*
	 * The doorbell started it once; the writer rings none, so every
	 * further start is the work item queueing itself again.  16
	 * budgets of 32 binds take about 0.5 s a run: an idle guest saw 8
	 * starts, one whose host CPUs were busy elsewhere 2.
	 */
	EXPECT_LE(2, runs);
	hs_bind_ring_done(self, mw);
}

/* ---- item 12: a producer moved back behind the fetch position ---- */

TEST_F(hs, producer_moved_back_starts_nothing)
{
	struct rxe_queue_buf *sq;
	long long tx0, tx1;
	uint32_t cons;
	int i;

	if (_metadata->skip)	/* a SKIP in the setup */
		return;
	/* SQ of 32 slots; timeout 20: no retransmission for ~4 s. */
	ASSERT_EQ(0, hs_qp_create(self, IBV_QPT_RC, 64, 16, 8));
	ASSERT_EQ(0, hs_connect_silent(self, 20, 0));
	sq = hs_ring(31);
	ASSERT_NE(NULL, sq);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, hs_post_send(self, i, 8));
	usleep(300 * 1000);	/* all four sent, none acknowledged */

	tx0 = wp_counter(self->d.name, "tx_packets");
	ASSERT_LE(0, tx0);
	/* Back to two WQEs posted, behind the four the kernel holds. */
	cons = __atomic_load_n(&sq->consumer_index, __ATOMIC_ACQUIRE);
	__atomic_store_n(&sq->producer_index, (cons + 2) & 31,
			 __ATOMIC_RELEASE);
	/* librxe posts one more there and rings the doorbell. */
	ASSERT_EQ(0, hs_post_send(self, 9, 8));
	usleep(300 * 1000);
	tx1 = wp_counter(self->d.name, "tx_packets");
	TH_LOG("packets sent after the producer moved back: %lld", tx1 - tx0);
	/* The old driver fetched its way around the ring: ~30 packets. */
	EXPECT_GE(1, tx1 - tx0);
}

/* ---- item 1: destroy_qp while a packet is in the responder ---- */

struct hs_poster {
	struct ibv_qp *qp;
	struct ibv_send_wr wr;
	int ret;
};

static void *hs_post_thread(void *arg)
{
	struct hs_poster *p = arg;
	struct ibv_send_wr *bad;

	/* The request is delivered (and held) on this CPU. */
	hs_pin(0);
	p->ret = ibv_post_send(p->qp, &p->wr, &bad);
	return NULL;
}

TEST_F(hs, destroy_waits_for_packets_in_flight)
{
	struct dp_qp a = {}, b = {};
	struct ibv_sge sge;
	struct hs_poster post = {};
	struct timespec t0;
	struct ibv_wc wc;
	long long ms;
	pthread_t t;
	int ret;

	if (_metadata->skip)	/* a SKIP in the setup */
		return;
	if (!hs_widen_ko())
		SKIP(return, "selftests/widen/vrnic_widen.ko not built");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, hs_pin(1));
	ASSERT_EQ(0, dp_qp_create(&a, &self->d, 1, 0));
	ASSERT_EQ(0, dp_qp_create(&b, &self->d, 1, IBV_ACCESS_REMOTE_READ));
	ASSERT_EQ(0, dp_qp_connect(&a, &b, IBV_MTU_1024, 100, 200));
	ASSERT_EQ(0, dp_qp_connect(&b, &a, IBV_MTU_1024, 200, 100));

	/* The READ request waits 800 ms at the responder's entry. */
	ASSERT_EQ(0, hs_widen_load(&self->widen_loaded, "vrnic_resp_rcv", 800,
				   1));
	sge = (struct ibv_sge){ .addr = (uintptr_t)self->buf + 2048,
				.length = 64, .lkey = self->mr->lkey };
	post.qp = a.qp;
	post.wr = (struct ibv_send_wr){
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)self->buf,
			     .rkey = self->mr->rkey },
	};
	/* The doorbell may deliver the request itself: post from a thread. */
	ASSERT_EQ(0, pthread_create(&t, NULL, hs_post_thread, &post));
	usleep(200 * 1000);
	/* The old driver freed the responder resources under the packet. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = ibv_destroy_qp(b.qp);
	ms = dp_ms_since(&t0);
	b.qp = NULL;
	pthread_join(t, NULL);
	EXPECT_EQ(0, ret);
	/* It overlapped the packet and waited for it (else: no race). */
	TH_LOG("destroy_qp took %lld ms", ms);
	EXPECT_LE(150, ms);
	EXPECT_EQ(0, post.ret);
	EXPECT_EQ(1, hs_widen_unload(&self->widen_loaded))
		TH_LOG("the window was not widened");
	/* Whatever became of the READ, it completes (or A is destroyed). */
	dp_poll(a.cq, &wc, 200);
	dp_qp_destroy(&b);
	dp_qp_destroy(&a);
}

/* ---- a polled send completion's slot is free ---- */

/*
 * A process may post one WQE for each completion it polls while as many
 * WQEs are outstanding as its SQ holds (perftest: ib_send_bw -t 3 -Q 1
 * posts at once on each completion), and librxe fails a post to a full
 * ring with ENOMEM.  So a WQE's slot goes back to the process before its
 * completion is visible.  The old driver posted the completion first:
 * ib_send_bw in cc_bottleneck.sh died of "Couldn't post send" now and
 * then.  The window is held open here: ACKs are steered to CPU 0 (RPS on
 * our veth end), where the widen module delays ib_uverbs_comp_handler(),
 * which an armed CQ's first completion calls, by 20 ms; this thread, on
 * CPU 1, polls the completion meanwhile and posts at once.
 */
TEST_F(hs, polled_send_completion_frees_its_slot)
{
	const char *dev2 = getenv("DP_DEV2");
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct dp_qp a = {}, b = {};
	struct ibv_mr *rmr = NULL;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct dp_dev d2;
	uint32_t cap, i, posted = 0, done = 0, fails = 0;
	int ret;

	if (_metadata->skip)	/* a SKIP in the setup */
		return;
	if (!hs_widen_ko())
		SKIP(return, "selftests/widen/vrnic_widen.ko not built");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	if (!dev2)
		SKIP(return, "needs the peer device (DP_DEV2)");
	ASSERT_EQ(0, dp_dev_open(&d2, dev2, AF_INET));
	ASSERT_EQ(0, vrnic_sh("echo 1 > /sys/class/net/%s/queues/rx-0/rps_cpus",
			      getenv("DP_VETH")));
	ASSERT_EQ(0, hs_pin(1));
	rmr = ibv_reg_mr(d2.pd, self->buf, 4096, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE);
	ASSERT_NE(NULL, rmr);
	ASSERT_EQ(0, dp_qp_create(&a, &self->d, 1, 0));
	ASSERT_EQ(0, dp_qp_create(&b, &d2, 1, IBV_ACCESS_REMOTE_WRITE));
	ASSERT_EQ(0, dp_qp_connect(&a, &b, IBV_MTU_1024, 100, 200));
	ASSERT_EQ(0, dp_qp_connect(&b, &a, IBV_MTU_1024, 200, 100));
	ASSERT_EQ(0, ibv_query_qp(a.qp, &attr, IBV_QP_CAP, &init));
	cap = init.cap.max_send_wr;
	ASSERT_EQ(0, hs_widen_load(&self->widen_loaded,
				   "ib_uverbs_comp_handler", 20, -1));

	sge = (struct ibv_sge){ .addr = (uintptr_t)self->buf, .length = 8,
				.lkey = self->mr->lkey };
	wr = (struct ibv_send_wr){
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = (uintptr_t)self->buf + 1024,
			     .rkey = rmr->rkey },
	};
	/* The SQ full, then one post for each completion, 30 times. */
	for (i = 0; i < cap; i++) {
		wr.wr_id = posted++;
		ASSERT_EQ(0, ibv_post_send(a.qp, &wr, &bad));
	}
	for (i = 0; i < 30; i++) {
		ASSERT_EQ(0, ibv_req_notify_cq(a.cq, 0));
		ret = dp_poll(a.cq, &wc, 5000);
		ASSERT_EQ(0, ret) TH_LOG("completion %u: %s", done, strerror(-ret));
		ASSERT_EQ(IBV_WC_SUCCESS, (int)wc.status) TH_LOG("%s", ibv_wc_status_str(wc.status));
		done++;
		/* Refused, it is posted again: the SQ stays full. */
		wr.wr_id = posted++;
		while ((ret = ibv_post_send(a.qp, &wr, &bad)) == ENOMEM &&
		       fails < 10000) {
			fails++;
			usleep(1000);
		}
		ASSERT_EQ(0, ret) TH_LOG("post: %s", strerror(ret));
	}
	while (done < posted && !dp_poll(a.cq, &wc, 5000))
		done++;
	TH_LOG("SQ of %u: posts on a polled completion refused %u times; the widen module delayed %d completions",
	       cap, fails, hs_widen_unload(&self->widen_loaded));
	EXPECT_EQ(0U, fails);
	EXPECT_EQ(posted, done);
	dp_qp_destroy(&b);
	dp_qp_destroy(&a);
	ibv_dereg_mr(rmr);
	dp_dev_close(&d2);
	vrnic_sh("echo 0 > /sys/class/net/%s/queues/rx-0/rps_cpus", getenv("DP_VETH"));
}

/* ---- item 7: modify to RESET with the retransmit timer armed ---- */

TEST_F(hs, reset_stops_the_retransmit_timer_first)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = DP_PORT };

	if (_metadata->skip)	/* a SKIP in the setup */
		return;
	if (!hs_widen_ko())
		SKIP(return, "selftests/widen/vrnic_widen.ko not built");
	ASSERT_EQ(0, hs_qp_create(self, IBV_QPT_RC, 64, 16, 16));
	/* Timeout 14: the timer fires every ~67 ms, 7 retries. */
	ASSERT_EQ(0, hs_connect_silent(self, 14, 0));
	/* The transport's part of the next modify waits 400 ms. */
	ASSERT_EQ(0, hs_widen_load(&self->widen_loaded, "vrnic_xport_modify",
				   400, 1));
	ASSERT_EQ(0, hs_post_send(self, 1, 8));
	usleep(5 * 1000);
	/* The old driver reset the rings first, then the timer found them. */
	EXPECT_EQ(0, hs_modify_state(self->qp, IBV_QPS_RESET));
	EXPECT_EQ(1, hs_widen_unload(&self->widen_loaded))
		TH_LOG("the window was not widened");
	/* And the QP is usable again from RESET. */
	EXPECT_EQ(0, ibv_modify_qp(self->qp, &a, IBV_QP_STATE |
				   IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_ACCESS_FLAGS));
}

/* ---- item 9: rings are charged to the memory cgroup ---- */

static long long hs_cg_read(const char *cg, const char *file)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return wp_read_number(path);
}

static int hs_cg_write(const char *cg, const char *file, const char *val)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

TEST_F(hs, rings_are_charged_to_the_memory_cgroup)
{
	struct rxe_queue_buf *sq, *rq, *cq;
	long long before, after;
	char cg[128], pid[32];
	size_t rings;

	if (_metadata->skip)	/* a SKIP in the setup */
		return;
	if (access(HS_CGROOT "/cgroup.controllers", F_OK))
		ASSERT_EQ(0, mount("none", HS_CGROOT, "cgroup2", 0, NULL))
			TH_LOG("mount cgroup2: %s", strerror(errno));
	ASSERT_EQ(0, hs_cg_write(HS_CGROOT, "cgroup.subtree_control",
				 "+memory"));
	snprintf(cg, sizeof(cg), HS_CGROOT "/dp_hostile.%d", getpid());
	ASSERT_EQ(0, mkdir(cg, 0755));
	snprintf(pid, sizeof(pid), "%d", getpid());
	ASSERT_EQ(0, hs_cg_write(cg, "cgroup.procs", pid));

	before = hs_cg_read(cg, "memory.current");
	/* SQ 2048 slots, RQ 1024, CQ 8192: megabytes of rings. */
	ASSERT_EQ(0, hs_qp_create(self, IBV_QPT_RC, 8000, 2000, 1000));
	after = hs_cg_read(cg, "memory.current");
	sq = hs_ring(2047);
	rq = hs_ring(1023);
	cq = hs_ring(8191);
	ASSERT_TRUE(sq && rq && cq);
	rings = hs_ring_bytes(sq) + hs_ring_bytes(rq) + hs_ring_bytes(cq);
	TH_LOG("memory.current grew by %lld bytes for %zu bytes of rings",
	       after - before, rings);
	/* The rings alone; the SQ's kernel WQE copies come on top. */
	EXPECT_LE((long long)rings, after - before);

	ibv_destroy_qp(self->qp);
	self->qp = NULL;
	ibv_destroy_cq(self->cq);
	self->cq = NULL;
	hs_cg_write(HS_CGROOT, "cgroup.procs", pid);
	rmdir(cg);
}

int main(int argc, char **argv)
{
	if (dp_own_setup(argv))
		ksft_print_msg("could not create a %s device\n",
			       getenv("DP_LINK_TYPE") ?: "vrnic");
	return test_harness_run(argc, argv);
}
