// SPDX-License-Identifier: GPL-2.0
/*
 * The "vrnic" generic netlink API (uapi/vrnic.h) against the real module:
 * round trips of every object, one test per rejected attribute (errno, the
 * offending attribute and the policy the kernel sends back, and nothing
 * changed), unprivileged SETs, notifications, dumps that resume and
 * removed commands.  The client is libnl (lib/vrnic_nl.h, shared by the C
 * tests): requests are built attribute by attribute, so a test knows the
 * size and offset of each and can check an extack that points at one; the
 * extended ACK's TLVs are read as the kernel sent them.  Run as root in the
 * test VM (selftests/vm/vm.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <infiniband/verbs.h>

#include <vrnic.h>	/* uapi/vrnic.h */

#include "kselftest_harness.h"
#include "vrnic_nl.h"
#include "vrnic_sh.h"

/*
 * The test devices' netdevs live in their own network namespace, so that
 * vrnic's UDP 4791 socket is there and rdma_rxe (which binds 4791 in
 * init_net) can still be loaded for the non-vrnic device test.  ib_core's
 * default shared RDMA namespace mode makes the devices visible here.
 */
#define NS		"vrnlns"
#define DEV		"vrnicnl0"
#define NETDEV		"vrnlnd0"
#define DEV2		"vrnicnl1"
#define NETDEV2		"vrnlnd1"

/* ---- Requests ---- */

/* A request of @cmd naming device @dev. */
static struct nl_msg *dev_req(struct vnl *nl, int flags, uint8_t cmd,
			      const char *dev)
{
	struct nl_msg *m = vnl_msg(nl, flags, cmd);

	nla_put_string(m, VRNIC_ATTR_DEV_NAME, dev);
	return m;
}

/* vnl_xfer() of @m, which is then freed. */
static int xfer(struct vnl *nl, struct nl_msg *m, nl_recvmsg_msg_cb_t fn,
		void *arg)
{
	int err = vnl_xfer(nl, m, fn, arg);

	nlmsg_free(m);
	return err;
}

/* A copy of the first reply: enough for GET doits. */
struct reply {
	int count;
	char buf[16384];
	int len;
};

static int keep_reply(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct reply *r = arg;

	if (!r->count++ && nlh->nlmsg_len <= sizeof(r->buf)) {
		memcpy(r->buf, nlh, nlh->nlmsg_len);
		r->len = nlh->nlmsg_len;
	}
	return NL_OK;
}

/* GET @cmd of @dev; on success tb[] indexes the reply. */
static int get_obj(struct vnl *nl, uint8_t cmd, const char *dev,
		   struct reply *r, struct nlattr **tb)
{
	int err;

	memset(r, 0, sizeof(*r));
	err = xfer(nl, dev_req(nl, 0, cmd, dev), keep_reply, r);
	if (!err && r->count != 1)
		err = -EPROTO;
	if (!err)
		vnl_parse(tb, VRNIC_ATTR_MAX, (struct nlmsghdr *)r->buf);
	return err;
}

/*
 * The value of attribute @type inside nest @nest (u8/u32/u64 by length),
 * -1 if absent.  Signed so that the harness compares it with plain
 * constants; use nested_u64() for values above 2^63.
 */
static int64_t nested_val(struct nlattr *nest, int type)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) != type)
			continue;
		switch (nla_len(a)) {
		case 1: return nla_get_u8(a);
		case 4: return nla_get_u32(a);
		case 8: return nla_get_u64(a);
		}
	}
	return -1;	/* absent */
}

static uint64_t nested_u64(struct nlattr *nest, int type)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem)
		if (nla_type(a) == type && nla_len(a) == 8)
			return nla_get_u64(a);
	return 0;
}

static const struct {
	uint8_t get, set;
	int nest;
} objs[] = {
	{ VRNIC_CMD_LIMITS_GET, VRNIC_CMD_LIMITS_SET, VRNIC_ATTR_LIMITS },
	{ VRNIC_CMD_QOS_GET, VRNIC_CMD_QOS_SET, VRNIC_ATTR_QOS },
	{ VRNIC_CMD_DCQCN_GET, VRNIC_CMD_DCQCN_SET, VRNIC_ATTR_DCQCN },
};

/* The whole configuration of @dev (all three nests, raw), for comparing. */
struct snapshot {
	char nest[3][4096];
	int len[3];
};

static int snapshot(struct vnl *nl, const char *dev, struct snapshot *s)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1];
	struct reply r;
	int i, err;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < 3; i++) {
		err = get_obj(nl, objs[i].get, dev, &r, tb);
		if (err)
			return err;
		if (!tb[objs[i].nest])
			return -EPROTO;
		s->len[i] = tb[objs[i].nest]->nla_len;
		memcpy(s->nest[i], tb[objs[i].nest], s->len[i]);
	}
	return 0;
}

static bool snapshot_eq(const struct snapshot *a, const struct snapshot *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static int add_dev(const char *dev, const char *netdev)
{
	vrnic_sh("ip netns add " NS " 2>/dev/null");
	if (vrnic_sh("ip -n " NS " link add %s type dummy && ip -n " NS
	       " link set %s up", netdev, netdev))
		return -1;
	return vrnic_sh("ip netns exec " NS " rdma link add %s type vrnic netdev %s",
		  dev, netdev);
}

static void del_dev(const char *dev, const char *netdev)
{
	vrnic_sh("rdma link del %s 2>/dev/null", dev);
	vrnic_sh("ip -n " NS " link del %s 2>/dev/null", netdev);
}

/*
 * ---- The device under test ----
 *
 * Creating an RDMA device is slow in an emulated VM, so main() creates one
 * for the whole run and keeps its configuration as created (@fresh, read by
 * the *_defaults tests).  Every fixture first puts that configuration back
 * with SETs made of the GET replies, which also checks that what GET
 * reports, SET accepts.
 */
static struct snapshot fresh;
static bool have_dev;
static char no_dev_reason[128] = "needs root (run in the VM)";

static int restore(struct vnl *nl)
{
	struct nlattr *nest;
	struct nl_msg *m;
	int i, err;

	for (i = 0; i < 3; i++) {
		nest = (struct nlattr *)fresh.nest[i];
		m = dev_req(nl, 0, objs[i].set, DEV);
		/* the GET reply's nest, as it came */
		nla_put(m, objs[i].nest | NLA_F_NESTED, nla_len(nest),
			nla_data(nest));
		err = xfer(nl, m, NULL, NULL);
		if (err)
			return err;
	}
	return 0;
}

FIXTURE(vrnic) {
	struct vnl nl;
};

FIXTURE_SETUP(vrnic)
{
	int err;

	if (!have_dev)
		SKIP(return, "%s", no_dev_reason);
	err = vnl_open(&self->nl, 0);
	ASSERT_EQ(0, err) TH_LOG("family %s: %s", VRNIC_GENL_NAME,
				 nl_geterror(err));
	ASSERT_NE(0, self->nl.family);
	err = restore(&self->nl);
	ASSERT_EQ(0, err) TH_LOG("restoring the configuration: %s (%s)",
				 strerror(-err), self->nl.extack);
}

FIXTURE_TEARDOWN(vrnic)
{
	vnl_close(&self->nl);
}

TEST_F(vrnic, family_has_config_group)
{
	ASSERT_NE(0U, self->nl.mcgrp);
}

TEST_F(vrnic, get_names_the_device)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1];
	struct reply r;

	ASSERT_EQ(0, get_obj(&self->nl, VRNIC_CMD_LIMITS_GET, DEV, &r, tb));
	ASSERT_NE(NULL, tb[VRNIC_ATTR_DEV_INDEX]);
	ASSERT_NE(NULL, tb[VRNIC_ATTR_DEV_NAME]);
	ASSERT_STREQ(DEV, nla_get_string(tb[VRNIC_ATTR_DEV_NAME]));
}

TEST_F(vrnic, limits_defaults_match_params)
{
	struct nlattr *l = (struct nlattr *)fresh.nest[0];

	EXPECT_EQ(0x10000, nested_val(l, VRNIC_LIMITS_ATTR_MAX_QP));
	EXPECT_EQ(0x4000, nested_val(l, VRNIC_LIMITS_ATTR_MAX_CQ));
	EXPECT_EQ(0x40000, nested_val(l, VRNIC_LIMITS_ATTR_MAX_MR));
	EXPECT_EQ(0x8000, nested_val(l, VRNIC_LIMITS_ATTR_MAX_PD));
	EXPECT_EQ(0x4000, nested_val(l, VRNIC_LIMITS_ATTR_MAX_SRQ));
	EXPECT_EQ(0x8000, nested_val(l, VRNIC_LIMITS_ATTR_MAX_AH));
	EXPECT_EQ(0x4000, nested_val(l, VRNIC_LIMITS_ATTR_MAX_QP_WR));
	EXPECT_EQ(0x100000, nested_val(l, VRNIC_LIMITS_ATTR_MAX_CQE));
	EXPECT_EQ(32, nested_val(l, VRNIC_LIMITS_ATTR_MAX_SGE));
	EXPECT_EQ(512, nested_val(l, VRNIC_LIMITS_ATTR_MAX_INLINE_DATA));
	EXPECT_EQ(128, nested_val(l, VRNIC_LIMITS_ATTR_MAX_QP_RD_ATOM));
	EXPECT_EQ(~0ULL, nested_u64(l, VRNIC_LIMITS_ATTR_MAX_MR_SIZE));
}

TEST_F(vrnic, limits_set_round_trips_and_keeps_the_rest)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1], *nest;
	struct reply r;
	struct nl_msg *m;

	m = dev_req(&self->nl, 0, VRNIC_CMD_LIMITS_SET, DEV);
	nest = nla_nest_start(m, VRNIC_ATTR_LIMITS);
	nla_put_u32(m, VRNIC_LIMITS_ATTR_MAX_QP, 100);
	nla_put_u32(m, VRNIC_LIMITS_ATTR_MAX_INLINE_DATA, 0);
	nla_put_u64(m, VRNIC_LIMITS_ATTR_MAX_MR_SIZE, 1ULL << 30);
	nla_nest_end(m, nest);
	ASSERT_EQ(0, xfer(&self->nl, m, NULL, NULL))
		TH_LOG("extack: %s", self->nl.extack);

	ASSERT_EQ(0, get_obj(&self->nl, VRNIC_CMD_LIMITS_GET, DEV, &r, tb));
	EXPECT_EQ(100, nested_val(tb[VRNIC_ATTR_LIMITS],
				  VRNIC_LIMITS_ATTR_MAX_QP));
	EXPECT_EQ(0, nested_val(tb[VRNIC_ATTR_LIMITS],
				VRNIC_LIMITS_ATTR_MAX_INLINE_DATA));
	EXPECT_EQ(1ULL << 30, nested_u64(tb[VRNIC_ATTR_LIMITS],
					 VRNIC_LIMITS_ATTR_MAX_MR_SIZE));
	EXPECT_EQ(0x4000, nested_val(tb[VRNIC_ATTR_LIMITS],
				     VRNIC_LIMITS_ATTR_MAX_CQ));
}

/* Entry @key of a map nest (array of {key, value} nests); -1 if absent. */
static int map_get(struct nlattr *map, int ktype, int vtype, int key)
{
	struct nlattr *e;
	int rem;

	nla_for_each_nested(e, map, rem)
		if ((int)nested_val(e, ktype) == key)
			return nested_val(e, vtype);
	return -1;
}

static int map_count(struct nlattr *map)
{
	struct nlattr *e;
	int rem, n = 0;

	nla_for_each_nested(e, map, rem)
		n++;
	return n;
}

TEST_F(vrnic, qos_defaults)
{
	struct nlattr *qtb[VRNIC_QOS_ATTR_MAX + 1];
	int i;

	nla_parse_nested(qtb, VRNIC_QOS_ATTR_MAX,
			 (struct nlattr *)fresh.nest[1], NULL);
	EXPECT_EQ(VRNIC_TRUST_PCP, nla_get_u8(qtb[VRNIC_QOS_ATTR_TRUST]));
	EXPECT_EQ(0, nla_get_u8(qtb[VRNIC_QOS_ATTR_PFC_EN]));
	EXPECT_EQ(0xff, nla_get_u8(qtb[VRNIC_QOS_ATTR_ECN_EN]));
	EXPECT_EQ(0, nla_get_u8(qtb[VRNIC_QOS_ATTR_TCLASS]));
	EXPECT_EQ(48, nla_get_u8(qtb[VRNIC_QOS_ATTR_CNP_DSCP]));
	EXPECT_EQ(6, nla_get_u8(qtb[VRNIC_QOS_ATTR_CNP_PRIO]));
	ASSERT_EQ(VRNIC_NUM_DSCP, map_count(qtb[VRNIC_QOS_ATTR_DSCP2PRIO]));
	for (i = 0; i < VRNIC_NUM_DSCP; i++)
		EXPECT_EQ(i >> 3, map_get(qtb[VRNIC_QOS_ATTR_DSCP2PRIO],
					  VRNIC_DSCP_MAP_ATTR_DSCP,
					  VRNIC_DSCP_MAP_ATTR_PRIO, i));
	/* Removed (no packet obeyed it): GET no longer reports it. */
	EXPECT_EQ(NULL, qtb[VRNIC_QOS_ATTR_PRIO2TC])
		TH_LOG("QOS_GET still reports the removed prio2tc");
}

static void put_map_entry(struct nl_msg *m, int kt, int k, int vt, int v)
{
	struct nlattr *entry = nla_nest_start(m, VRNIC_ENTRY);

	nla_put_u8(m, kt, k);
	nla_put_u8(m, vt, v);
	nla_nest_end(m, entry);
}

TEST_F(vrnic, qos_set_round_trips)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1], *qtb[VRNIC_QOS_ATTR_MAX + 1];
	struct nlattr *qos, *map;
	struct reply r;
	struct nl_msg *m;

	m = dev_req(&self->nl, 0, VRNIC_CMD_QOS_SET, DEV);
	qos = nla_nest_start(m, VRNIC_ATTR_QOS);
	nla_put_u8(m, VRNIC_QOS_ATTR_TRUST, VRNIC_TRUST_DSCP);
	nla_put_u8(m, VRNIC_QOS_ATTR_PFC_EN, 0x08);
	nla_put_u8(m, VRNIC_QOS_ATTR_ECN_EN, 0x0f);
	nla_put_u8(m, VRNIC_QOS_ATTR_TCLASS, 106);
	nla_put_u8(m, VRNIC_QOS_ATTR_CNP_DSCP, 40);
	map = nla_nest_start(m, VRNIC_QOS_ATTR_DSCP2PRIO);
	put_map_entry(m, VRNIC_DSCP_MAP_ATTR_DSCP, 46,
		      VRNIC_DSCP_MAP_ATTR_PRIO, 5);
	put_map_entry(m, VRNIC_DSCP_MAP_ATTR_DSCP, 26,
		      VRNIC_DSCP_MAP_ATTR_PRIO, 3);
	nla_nest_end(m, map);
	nla_nest_end(m, qos);
	ASSERT_EQ(0, xfer(&self->nl, m, NULL, NULL))
		TH_LOG("extack: %s", self->nl.extack);

	ASSERT_EQ(0, get_obj(&self->nl, VRNIC_CMD_QOS_GET, DEV, &r, tb));
	nla_parse_nested(qtb, VRNIC_QOS_ATTR_MAX, tb[VRNIC_ATTR_QOS], NULL);
	EXPECT_EQ(VRNIC_TRUST_DSCP, nla_get_u8(qtb[VRNIC_QOS_ATTR_TRUST]));
	EXPECT_EQ(0x08, nla_get_u8(qtb[VRNIC_QOS_ATTR_PFC_EN]));
	EXPECT_EQ(0x0f, nla_get_u8(qtb[VRNIC_QOS_ATTR_ECN_EN]));
	EXPECT_EQ(106, nla_get_u8(qtb[VRNIC_QOS_ATTR_TCLASS]));
	EXPECT_EQ(40, nla_get_u8(qtb[VRNIC_QOS_ATTR_CNP_DSCP]));
	EXPECT_EQ(5, map_get(qtb[VRNIC_QOS_ATTR_DSCP2PRIO],
			     VRNIC_DSCP_MAP_ATTR_DSCP, VRNIC_DSCP_MAP_ATTR_PRIO,
			     46));
	EXPECT_EQ(3, map_get(qtb[VRNIC_QOS_ATTR_DSCP2PRIO],
			     VRNIC_DSCP_MAP_ATTR_DSCP, VRNIC_DSCP_MAP_ATTR_PRIO,
			     26));
	/* Entries not in the request keep their value. */
	EXPECT_EQ(4, map_get(qtb[VRNIC_QOS_ATTR_DSCP2PRIO],
			     VRNIC_DSCP_MAP_ATTR_DSCP, VRNIC_DSCP_MAP_ATTR_PRIO,
			     34));

	/* The CNP DSCP is one setting, shown by both objects. */
	ASSERT_EQ(0, get_obj(&self->nl, VRNIC_CMD_DCQCN_GET, DEV, &r, tb));
	EXPECT_EQ(40, nested_val(tb[VRNIC_ATTR_DCQCN],
				 VRNIC_DCQCN_ATTR_CNP_DSCP));
}

TEST_F(vrnic, dcqcn_defaults_are_the_papers)
{
	struct nlattr *d = (struct nlattr *)fresh.nest[2];

	EXPECT_EQ(55, nested_val(d, VRNIC_DCQCN_ATTR_RPG_TIME_RESET));
	EXPECT_EQ(10 << 20, nested_val(d, VRNIC_DCQCN_ATTR_RPG_BYTE_RESET));
	EXPECT_EQ(5, nested_val(d, VRNIC_DCQCN_ATTR_RPG_THRESHOLD));
	EXPECT_EQ(0, nested_val(d, VRNIC_DCQCN_ATTR_RPG_MAX_RATE));
	EXPECT_EQ(40, nested_val(d, VRNIC_DCQCN_ATTR_RPG_AI_RATE));
	EXPECT_EQ(400, nested_val(d, VRNIC_DCQCN_ATTR_RPG_HAI_RATE));
	/* ConnectX's encoding of the paper's alpha / 2 */
	EXPECT_EQ(11, nested_val(d, VRNIC_DCQCN_ATTR_RPG_GD));
	EXPECT_EQ(50, nested_val(d, VRNIC_DCQCN_ATTR_RPG_MIN_DEC_FAC));
	EXPECT_EQ(1, nested_val(d, VRNIC_DCQCN_ATTR_RPG_MIN_RATE));
	EXPECT_EQ(0, nested_val(d, VRNIC_DCQCN_ATTR_RATE_TO_SET_ON_FIRST_CNP));
	EXPECT_EQ(4, nested_val(d, VRNIC_DCQCN_ATTR_DCE_TCP_G));
	EXPECT_EQ(55, nested_val(d, VRNIC_DCQCN_ATTR_DCE_TCP_RTT));
	EXPECT_EQ(50, nested_val(d, VRNIC_DCQCN_ATTR_RATE_REDUCE_MONITOR_PERIOD));
	EXPECT_EQ(1023, nested_val(d, VRNIC_DCQCN_ATTR_INITIAL_ALPHA_VALUE));
	EXPECT_EQ(50, nested_val(d, VRNIC_DCQCN_ATTR_MIN_TIME_BETWEEN_CNPS));
	EXPECT_EQ(48, nested_val(d, VRNIC_DCQCN_ATTR_CNP_DSCP));
	EXPECT_EQ(6, nested_val(d, VRNIC_DCQCN_ATTR_CNP_802P_PRIO));
	EXPECT_EQ(0, nested_val(d, VRNIC_DCQCN_ATTR_CLAMP_TGT_RATE));
	EXPECT_EQ(1, nested_val(d,
				VRNIC_DCQCN_ATTR_CLAMP_TGT_RATE_AFTER_TIME_INC));
}

TEST_F(vrnic, dcqcn_set_round_trips)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1], *d, *nest;
	struct reply r;
	struct nl_msg *m;

	m = dev_req(&self->nl, 0, VRNIC_CMD_DCQCN_SET, DEV);
	nest = nla_nest_start(m, VRNIC_ATTR_DCQCN);
	nla_put_u32(m, VRNIC_DCQCN_ATTR_RPG_TIME_RESET, 300);
	nla_put_u32(m, VRNIC_DCQCN_ATTR_RPG_BYTE_RESET, 0);
	nla_put_u32(m, VRNIC_DCQCN_ATTR_RPG_MAX_RATE, 25000);
	nla_put_u32(m, VRNIC_DCQCN_ATTR_RPG_MIN_RATE, 10);
	nla_put_u32(m, VRNIC_DCQCN_ATTR_RPG_AI_RATE, 5);
	nla_put_u32(m, VRNIC_DCQCN_ATTR_RPG_HAI_RATE, 50);
	nla_put_u32(m, VRNIC_DCQCN_ATTR_DCE_TCP_G, 1024);
	nla_put_u32(m, VRNIC_DCQCN_ATTR_MIN_TIME_BETWEEN_CNPS, 0);
	nla_put_u8(m, VRNIC_DCQCN_ATTR_CNP_802P_PRIO, 7);
	nla_nest_end(m, nest);
	ASSERT_EQ(0, xfer(&self->nl, m, NULL, NULL))
		TH_LOG("extack: %s", self->nl.extack);

	ASSERT_EQ(0, get_obj(&self->nl, VRNIC_CMD_DCQCN_GET, DEV, &r, tb));
	d = tb[VRNIC_ATTR_DCQCN];
	EXPECT_EQ(300, nested_val(d, VRNIC_DCQCN_ATTR_RPG_TIME_RESET));
	EXPECT_EQ(0, nested_val(d, VRNIC_DCQCN_ATTR_RPG_BYTE_RESET));
	EXPECT_EQ(25000, nested_val(d, VRNIC_DCQCN_ATTR_RPG_MAX_RATE));
	EXPECT_EQ(10, nested_val(d, VRNIC_DCQCN_ATTR_RPG_MIN_RATE));
	EXPECT_EQ(5, nested_val(d, VRNIC_DCQCN_ATTR_RPG_AI_RATE));
	EXPECT_EQ(50, nested_val(d, VRNIC_DCQCN_ATTR_RPG_HAI_RATE));
	EXPECT_EQ(1024, nested_val(d, VRNIC_DCQCN_ATTR_DCE_TCP_G));
	EXPECT_EQ(0, nested_val(d, VRNIC_DCQCN_ATTR_MIN_TIME_BETWEEN_CNPS));
	EXPECT_EQ(7, nested_val(d, VRNIC_DCQCN_ATTR_CNP_802P_PRIO));
	EXPECT_EQ(5, nested_val(d, VRNIC_DCQCN_ATTR_RPG_THRESHOLD));

	ASSERT_EQ(0, get_obj(&self->nl, VRNIC_CMD_QOS_GET, DEV, &r, tb));
	EXPECT_EQ(7, nested_val(tb[VRNIC_ATTR_QOS], VRNIC_QOS_ATTR_CNP_PRIO));
}

TEST_F(vrnic, qp_counters_unknown_qpn)
{
	struct nl_msg *m;

	m = dev_req(&self->nl, 0, VRNIC_CMD_QP_STATS_GET, DEV);
	nla_put_u32(m, VRNIC_ATTR_QPN, 0xfffffe);
	ASSERT_EQ(-ENOENT, xfer(&self->nl, m, NULL, NULL));
	ASSERT_STREQ("no such qpn", self->nl.extack);
}

TEST_F(vrnic, unknown_device_is_enodev)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1];
	struct reply r;

	ASSERT_EQ(-ENODEV, get_obj(&self->nl, VRNIC_CMD_LIMITS_GET,
				   "nosuchdev0", &r, tb));
	ASSERT_STREQ("no such device", self->nl.extack);
}

/*
 * A removed command keeps its number but has no operation: a client built
 * against an older header gets EOPNOTSUPP from the genetlink core, as a
 * do and as a dump, and no reply.
 */
TEST_F(vrnic, removed_commands_are_eopnotsupp)
{
	static const uint8_t removed[] = {
		VRNIC_CMD_GID_GET_REMOVED,
		VRNIC_CMD_STATS_GET_REMOVED,
	};
	struct reply r;
	struct nl_msg *m;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(removed); i++) {
		memset(&r, 0, sizeof(r));
		m = dev_req(&self->nl, 0, removed[i], DEV);
		EXPECT_EQ(-EOPNOTSUPP, xfer(&self->nl, m, keep_reply, &r))
			TH_LOG("command %d as a do", removed[i]);
		m = vnl_msg(&self->nl, NLM_F_DUMP, removed[i]);
		EXPECT_EQ(-EOPNOTSUPP, xfer(&self->nl, m, keep_reply, &r))
			TH_LOG("command %d as a dump", removed[i]);
		EXPECT_EQ(0, r.count) TH_LOG("command %d replied", removed[i]);
	}
}

TEST_F_TIMEOUT(vrnic, non_vrnic_device_is_enodev, 180)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1], *nest;
	struct reply r;
	struct nl_msg *m;
	int err;

	/* Another driver's RDMA device: rdma_rxe, in init_net. */
	if (vrnic_sh("modprobe rdma_rxe") ||
	    vrnic_sh("ip link add vrnlrxend0 type dummy") ||
	    vrnic_sh("rdma link add vrnlrxe0 type rxe netdev vrnlrxend0")) {
		vrnic_sh("ip link del vrnlrxend0 2>/dev/null");
		SKIP(return, "no rdma_rxe to compare with");
	}
	err = get_obj(&self->nl, VRNIC_CMD_LIMITS_GET, "vrnlrxe0", &r, tb);
	EXPECT_EQ(-ENODEV, err);
	EXPECT_STREQ("device is not a vrnic device", self->nl.extack);

	m = dev_req(&self->nl, 0, VRNIC_CMD_LIMITS_SET, "vrnlrxe0");
	nest = nla_nest_start(m, VRNIC_ATTR_LIMITS);
	nla_put_u32(m, VRNIC_LIMITS_ATTR_MAX_QP, 10);
	nla_nest_end(m, nest);
	EXPECT_EQ(-ENODEV, xfer(&self->nl, m, NULL, NULL));
	EXPECT_STREQ("device is not a vrnic device", self->nl.extack);
	vrnic_sh("rdma link del vrnlrxe0; ip link del vrnlrxend0");
}

TEST_F(vrnic, set_without_device_is_rejected)
{
	struct nlattr *nest;
	struct nl_msg *m;

	m = vnl_msg(&self->nl, 0, VRNIC_CMD_LIMITS_SET);
	nest = nla_nest_start(m, VRNIC_ATTR_LIMITS);
	nla_put_u32(m, VRNIC_LIMITS_ATTR_MAX_QP, 10);
	nla_nest_end(m, nest);
	ASSERT_EQ(-EINVAL, xfer(&self->nl, m, NULL, NULL));
	ASSERT_EQ(VRNIC_ATTR_DEV_NAME, self->nl.miss_type);
	ASSERT_EQ(0U, self->nl.miss_nest);
}

TEST_F(vrnic, set_without_object_is_rejected)
{
	struct nl_msg *m;

	m = dev_req(&self->nl, 0, VRNIC_CMD_DCQCN_SET, DEV);
	ASSERT_EQ(-EINVAL, xfer(&self->nl, m, NULL, NULL));
	ASSERT_EQ(VRNIC_ATTR_DCQCN, self->nl.miss_type);
	ASSERT_EQ(0U, self->nl.miss_nest);
}

/*
 * CTRL_CMD_GETPOLICY of DCQCN_SET: the object nest's policy is part of the
 * command's, so a client can learn every range from the kernel.
 */
struct policy_seen {
	bool gd, time;
};

static int policy_reply(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *idx, *attr;
	struct nlattr *ptb[NL_POLICY_TYPE_ATTR_MAX + 1];
	struct policy_seen *seen = arg;
	int rem, arem;
	uint64_t max;

	vnl_parse(tb, CTRL_ATTR_MAX, nlmsg_hdr(msg));
	if (!tb[CTRL_ATTR_POLICY])
		return NL_OK;
	nla_for_each_nested(idx, tb[CTRL_ATTR_POLICY], rem) {
		nla_for_each_nested(attr, idx, arem) {
			nla_parse_nested(ptb, NL_POLICY_TYPE_ATTR_MAX, attr,
					 NULL);
			if (!ptb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U])
				continue;
			max = nla_get_u64(ptb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U]);
			if (nla_type(attr) == VRNIC_DCQCN_ATTR_RPG_GD &&
			    max == VRNIC_DCQCN_GD_MAX)
				seen->gd = true;
			if (nla_type(attr) == VRNIC_DCQCN_ATTR_RPG_TIME_RESET &&
			    max == VRNIC_DCQCN_TIME_MAX)
				seen->time = true;
		}
	}
	return NL_OK;
}

TEST_F(vrnic, getpolicy_shows_the_nested_ranges)
{
	struct policy_seen seen = {};
	struct nl_msg *m;

	/* version 1, as libnl's own nlctrl requests: the kernel ignores it */
	m = vnl_genl_msg(GENL_ID_CTRL, 1, NLM_F_DUMP, CTRL_CMD_GETPOLICY);
	nla_put_u16(m, CTRL_ATTR_FAMILY_ID, self->nl.family);
	nla_put_u32(m, CTRL_ATTR_OP, VRNIC_CMD_DCQCN_SET);
	ASSERT_EQ(0, xfer(&self->nl, m, policy_reply, &seen))
		TH_LOG("extack: %s", self->nl.extack);
	EXPECT_TRUE(seen.gd) TH_LOG("no rpg_gd 0..VRNIC_DCQCN_GD_MAX");
	EXPECT_TRUE(seen.time)
		TH_LOG("no rpg_time_reset 1..VRNIC_DCQCN_TIME_MAX");
}

/* ---- Notifications ---- */

/* A socket of its own listening to @ref's config group. */
static int ntf_open(struct vnl *mon, struct vnl *ref)
{
	int err = vnl_open(mon, 0);

	if (err)
		return err;
	return nl_socket_add_membership(mon->sk, ref->mcgrp);
}

/* Wait up to @ms for a notification; its message into @r. */
static int ntf_wait(struct vnl *mon, struct reply *r, int ms)
{
	int err;

	memset(r, 0, sizeof(*r));
	err = vnl_wait_ntf(mon, ms, keep_reply, r);
	if (!err && r->count != 1)
		err = -EPROTO;
	return err;
}

TEST_F(vrnic, set_notifies_config_group_once_per_change)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1], *nest;
	struct vnl mon;
	struct reply r;
	struct nl_msg *m;

	ASSERT_EQ(0, ntf_open(&mon, &self->nl));

	m = dev_req(&self->nl, 0, VRNIC_CMD_LIMITS_SET, DEV);
	nest = nla_nest_start(m, VRNIC_ATTR_LIMITS);
	nla_put_u32(m, VRNIC_LIMITS_ATTR_MAX_CQ, 321);
	nla_nest_end(m, nest);
	ASSERT_EQ(0, vnl_xfer(&self->nl, m, NULL, NULL));

	ASSERT_EQ(0, ntf_wait(&mon, &r, 2000));
	EXPECT_EQ(VRNIC_CMD_CONFIG_NTF,
		  genlmsg_hdr((struct nlmsghdr *)r.buf)->cmd);
	vnl_parse(tb, VRNIC_ATTR_MAX, (struct nlmsghdr *)r.buf);
	ASSERT_NE(NULL, tb[VRNIC_ATTR_DEV_NAME]);
	EXPECT_STREQ(DEV, nla_get_string(tb[VRNIC_ATTR_DEV_NAME]));
	ASSERT_NE(NULL, tb[VRNIC_ATTR_LIMITS]);
	EXPECT_EQ(321, nested_val(tb[VRNIC_ATTR_LIMITS],
				  VRNIC_LIMITS_ATTR_MAX_CQ));

	/* The same request again changes nothing: no notification. */
	ASSERT_EQ(0, xfer(&self->nl, m, NULL, NULL));
	EXPECT_EQ(-ETIMEDOUT, ntf_wait(&mon, &r, 300));

	/* A QoS change announces the QoS object. */
	m = dev_req(&self->nl, 0, VRNIC_CMD_QOS_SET, DEV);
	nest = nla_nest_start(m, VRNIC_ATTR_QOS);
	nla_put_u8(m, VRNIC_QOS_ATTR_PFC_EN, 0x10);
	nla_nest_end(m, nest);
	ASSERT_EQ(0, xfer(&self->nl, m, NULL, NULL));
	ASSERT_EQ(0, ntf_wait(&mon, &r, 2000));
	vnl_parse(tb, VRNIC_ATTR_MAX, (struct nlmsghdr *)r.buf);
	ASSERT_NE(NULL, tb[VRNIC_ATTR_QOS]);
	EXPECT_EQ(0x10, nested_val(tb[VRNIC_ATTR_QOS], VRNIC_QOS_ATTR_PFC_EN));
	vnl_close(&mon);
}

/* ---- Unprivileged callers ---- */

/* Move the calling thread into the network namespace "ip netns" calls @name. */
static int enter_netns(const char *name)
{
	char path[128];
	int fd, err;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = setns(fd, CLONE_NEWNET) ? -errno : 0;
	close(fd);
	return err;
}

/*
 * In a child that dropped every capability, after entering the device's
 * namespace if @in_dev_ns: the errno of a GET of object @obj when @set is
 * false (0 if it worked), else of a SET after a GET that must work; 1000+
 * when the child could not get that far.
 */
static int unprivileged_req(int obj, bool in_dev_ns, bool set)
{
	struct nlattr *nest;
	struct nl_msg *m;
	pid_t pid;
	int status, err;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		struct nlattr *tb[VRNIC_ATTR_MAX + 1];
		struct reply r;
		struct vnl unl;

		if (in_dev_ns && enter_netns(NS))
			_exit(1000);
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(1001);
		if (vnl_open(&unl, 0))
			_exit(1002);
		err = get_obj(&unl, objs[obj].get, DEV, &r, tb);
		if (!set)
			_exit(-err > 255 ? 255 : -err);
		/* Reading stays allowed. */
		if (err)
			_exit(1003);
		m = dev_req(&unl, 0, objs[obj].set, DEV);
		nest = nla_nest_start(m, objs[obj].nest);
		if (obj == 0)
			nla_put_u32(m, VRNIC_LIMITS_ATTR_MAX_QP, 7);
		else if (obj == 1)
			nla_put_u8(m, VRNIC_QOS_ATTR_TRUST, VRNIC_TRUST_DSCP);
		else
			nla_put_u32(m, VRNIC_DCQCN_ATTR_RPG_GD, 7);
		nla_nest_end(m, nest);
		err = xfer(&unl, m, NULL, NULL);
		_exit(-err > 255 ? 255 : -err);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 2000;
	return WEXITSTATUS(status);
}

TEST_F(vrnic, unprivileged_set_is_eperm_and_changes_nothing)
{
	struct snapshot before, after;
	int i;

	ASSERT_EQ(0, snapshot(&self->nl, DEV, &before));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(EPERM, unprivileged_req(i, true, true))
			TH_LOG("object %d", i);
	ASSERT_EQ(0, snapshot(&self->nl, DEV, &after));
	ASSERT_TRUE(snapshot_eq(&before, &after));
}

/*
 * An unprivileged caller sees only its own namespace's devices: from the
 * initial namespace the device (in NS) does not exist for it, while root
 * there still sees it (the fixture's own GETs).
 */
TEST_F(vrnic, unprivileged_other_netns_sees_no_device)
{
	int i;

	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, unprivileged_req(i, true, false))
			TH_LOG("object %d in the device's namespace", i);
		EXPECT_EQ(ENODEV, unprivileged_req(i, false, false))
			TH_LOG("object %d from another namespace", i);
	}
}

/* ---- Dumps ---- */

struct dev_dump {
	int seen[2];
	int other;
	uint8_t cmd;
	int nest;
	bool ok;
};

static int dev_dump_reply(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct dev_dump *d = arg;
	const char *name;

	vnl_parse(tb, VRNIC_ATTR_MAX, nlh);
	if (!tb[VRNIC_ATTR_DEV_NAME] || !tb[d->nest] ||
	    genlmsg_hdr(nlh)->cmd != d->cmd) {
		d->ok = false;
		return NL_OK;
	}
	name = nla_get_string(tb[VRNIC_ATTR_DEV_NAME]);
	if (!strcmp(name, DEV))
		d->seen[0]++;
	else if (!strcmp(name, DEV2))
		d->seen[1]++;
	else
		d->other++;
	return NL_OK;
}

TEST_F_TIMEOUT(vrnic, object_dumps_list_each_device_once, 180)
{
	static const struct { uint8_t cmd; int nest; } dumps[] = {
		{ VRNIC_CMD_LIMITS_GET, VRNIC_ATTR_LIMITS },
		{ VRNIC_CMD_QOS_GET, VRNIC_ATTR_QOS },
		{ VRNIC_CMD_DCQCN_GET, VRNIC_ATTR_DCQCN },
	};
	struct dev_dump d;
	struct nl_msg *m;
	unsigned int i;

	del_dev(DEV2, NETDEV2);
	ASSERT_EQ(0, add_dev(DEV2, NETDEV2));
	for (i = 0; i < ARRAY_SIZE(dumps); i++) {
		memset(&d, 0, sizeof(d));
		d.ok = true;
		d.cmd = dumps[i].cmd;
		d.nest = dumps[i].nest;
		m = vnl_msg(&self->nl, NLM_F_DUMP, dumps[i].cmd);
		EXPECT_EQ(0, xfer(&self->nl, m, dev_dump_reply, &d));
		EXPECT_TRUE(d.ok);
		EXPECT_EQ(1, d.seen[0]) TH_LOG("cmd %d", dumps[i].cmd);
		EXPECT_EQ(1, d.seen[1]) TH_LOG("cmd %d", dumps[i].cmd);

		/* Filtered by name: only that device. */
		memset(&d, 0, sizeof(d));
		d.ok = true;
		d.cmd = dumps[i].cmd;
		d.nest = dumps[i].nest;
		m = dev_req(&self->nl, NLM_F_DUMP, dumps[i].cmd, DEV2);
		EXPECT_EQ(0, xfer(&self->nl, m, dev_dump_reply, &d));
		EXPECT_EQ(0, d.seen[0]);
		EXPECT_EQ(1, d.seen[1]);
		EXPECT_EQ(0, d.other);
	}

	m = dev_req(&self->nl, NLM_F_DUMP, VRNIC_CMD_LIMITS_GET, "nosuchdev0");
	EXPECT_EQ(-ENODEV, xfer(&self->nl, m, NULL, NULL));
	EXPECT_STREQ("no such device", self->nl.extack);
	del_dev(DEV2, NETDEV2);
}

#define DUMP_QPS	32

struct qp_seen {
	uint32_t qpn[DUMP_QPS];	/* the QPs the test created */
	int times[DUMP_QPS];	/* how often the dump listed each */
	int count;
	int bad;
	int unordered;		/* a QPN not above the one before it */
	uint32_t last;
};

static int qp_seen_reply(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1];
	struct qp_seen *d = arg;
	uint32_t qpn;
	int i;

	vnl_parse(tb, VRNIC_ATTR_MAX, nlmsg_hdr(msg));
	if (!tb[VRNIC_ATTR_QPN] || !tb[VRNIC_ATTR_COUNTERS] ||
	    !tb[VRNIC_ATTR_DEV_NAME] ||
	    strcmp(nla_get_string(tb[VRNIC_ATTR_DEV_NAME]), DEV)) {
		d->bad++;
		return NL_OK;
	}
	qpn = nla_get_u32(tb[VRNIC_ATTR_QPN]);
	if (d->count++ && qpn <= d->last)
		d->unordered++;
	d->last = qpn;
	for (i = 0; i < DUMP_QPS; i++)
		if (d->qpn[i] == qpn)
			d->times[i]++;
	return NL_OK;
}

/*
 * A QP dump too large for one batch resumes at the next QPN (cb->ctx):
 * every QP once, in QPN order, however many batches it takes.
 */
TEST_F_TIMEOUT(vrnic, qp_dump_resumes_over_many_qps, 180)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_context *ctx = NULL;
	struct ibv_qp *qp[DUMP_QPS];
	struct ibv_device **list;
	static struct qp_seen d;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct vnl small;
	int i, n, once;
	struct nl_msg *m;

	list = ibv_get_device_list(&n);
	ASSERT_NE(NULL, list);
	for (i = 0; i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), DEV))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	ASSERT_NE(NULL, ctx) TH_LOG("%s not found by libibverbs", DEV);
	pd = ibv_alloc_pd(ctx);
	ASSERT_NE(NULL, pd);
	cq = ibv_create_cq(ctx, 2, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	init.send_cq = cq;
	init.recv_cq = cq;
	memset(&d, 0, sizeof(d));
	for (i = 0; i < DUMP_QPS; i++) {
		qp[i] = ibv_create_qp(pd, &init);
		ASSERT_NE(NULL, qp[i]) TH_LOG("QP %d: %s", i, strerror(errno));
		d.qpn[i] = qp[i]->qp_num;
	}

	/* Small reads keep the batches small: about five QPs each. */
	ASSERT_EQ(0, vnl_open(&small, 4096));
	m = dev_req(&small, NLM_F_DUMP, VRNIC_CMD_QP_STATS_GET, DEV);
	ASSERT_EQ(0, xfer(&small, m, qp_seen_reply, &d))
		TH_LOG("extack: %s", small.extack);
	TH_LOG("%d QPs dumped in %d reads", d.count, small.reads);
	EXPECT_GE(small.reads, 3) TH_LOG("the dump never had to resume");
	vnl_close(&small);
	EXPECT_EQ(0, d.bad);
	EXPECT_EQ(0, d.unordered);
	for (i = 0, once = 0; i < DUMP_QPS; i++)
		once += d.times[i] == 1;
	EXPECT_EQ(DUMP_QPS, once) TH_LOG("QPs not listed exactly once");

	for (i = 0; i < DUMP_QPS; i++)
		ibv_destroy_qp(qp[i]);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}

/* ---- One test per rejected attribute ---- */

enum val_type { U8, U32, U64 };

struct bad_attr {
	int type;
	enum val_type vt;
	uint64_t val;
};

FIXTURE(reject) {
	struct vnl nl;
};

/*
 * A SET that must be refused.  The request also carries a valid change
 * (@ok_attr = @ok_val) that must not be applied either: a SET is atomic.
 * @map: 0, or the map nest the bad entry goes in (dscp2prio, prio2tc),
 * with @bad as the entry's {key, value} and @bad2 its second member;
 * @repeat: the entry is sent twice.
 *
 * What the kernel must answer, machine-readably: @err, and either
 * NLMSGERR_ATTR_MISS_TYPE @miss inside the entry (a member missing) or
 * NLMSGERR_ATTR_OFFS at the bad attribute (the map key when @repeat) with
 * a message (containing @names, if set) and, when @range, the policy
 * range @lo..@hi in NLMSGERR_ATTR_POLICY.
 */
FIXTURE_VARIANT(reject) {
	uint8_t cmd;
	int nest;
	int ok_attr;
	enum val_type ok_vt;
	uint64_t ok_val;
	int map;
	bool repeat;
	struct bad_attr bad;
	struct bad_attr bad2;
	int err;
	bool range;
	uint64_t lo, hi;
	int miss;
	const char *names;
};

#define LIM_ATTRS(name)							\
	.cmd = VRNIC_CMD_LIMITS_SET, .nest = VRNIC_ATTR_LIMITS,		\
	.ok_attr = VRNIC_LIMITS_ATTR_##name, .ok_vt = U32, .ok_val = 77

#define LIM(id, attr, v, vt_, lo_, hi_)					\
FIXTURE_VARIANT_ADD(reject, limits_##id) {				\
	LIM_ATTRS(MAX_PD),						\
	.bad = { VRNIC_LIMITS_ATTR_##attr, vt_, v },			\
	.err = -ERANGE, .range = true, .lo = lo_, .hi = hi_,		\
}

LIM(max_qp, MAX_QP, 0, U32, 1, VRNIC_CAP_MAX_QP);
LIM(max_cq, MAX_CQ, 0, U32, 1, VRNIC_CAP_MAX_CQ);
LIM(max_mr, MAX_MR, VRNIC_CAP_MAX_MR + 1, U32, 1, VRNIC_CAP_MAX_MR);
LIM(max_srq, MAX_SRQ, 0, U32, 1, VRNIC_CAP_MAX_SRQ);
LIM(max_ah, MAX_AH, VRNIC_CAP_MAX_AH + 1, U32, 1, VRNIC_CAP_MAX_AH);
LIM(max_qp_wr, MAX_QP_WR, VRNIC_CAP_MAX_QP_WR + 1, U32, 1,
    VRNIC_CAP_MAX_QP_WR);
LIM(max_cqe, MAX_CQE, 0, U32, 1, VRNIC_CAP_MAX_CQE);
LIM(max_sge, MAX_SGE, VRNIC_CAP_MAX_SGE + 1, U32, 1, VRNIC_CAP_MAX_SGE);
LIM(max_inline_data, MAX_INLINE_DATA, VRNIC_CAP_MAX_INLINE_DATA + 1, U32,
    0, VRNIC_CAP_MAX_INLINE_DATA);
LIM(max_mr_size, MAX_MR_SIZE, 100, U64, VRNIC_MIN_MAX_MR_SIZE, UINT64_MAX);
LIM(max_qp_rd_atom, MAX_QP_RD_ATOM, VRNIC_CAP_MAX_QP_RD_ATOM + 1, U32, 1,
    VRNIC_CAP_MAX_QP_RD_ATOM);

FIXTURE_VARIANT_ADD(reject, limits_max_pd_above_cap) {
	LIM_ATTRS(MAX_QP),
	.bad = { VRNIC_LIMITS_ATTR_MAX_PD, U32, VRNIC_CAP_MAX_PD + 1 },
	.err = -ERANGE, .range = true, .lo = 1, .hi = VRNIC_CAP_MAX_PD,
};

FIXTURE_VARIANT_ADD(reject, limits_max_qp_wrong_size) {
	LIM_ATTRS(MAX_PD),
	.bad = { VRNIC_LIMITS_ATTR_MAX_QP, U8, 5 },
	.err = -EINVAL,
};

FIXTURE_VARIANT_ADD(reject, limits_unknown_attribute) {
	LIM_ATTRS(MAX_PD),
	.bad = { 200, U32, 5 },
	.err = -EINVAL,
};

#define QOS_ATTRS							\
	.cmd = VRNIC_CMD_QOS_SET, .nest = VRNIC_ATTR_QOS,		\
	.ok_attr = VRNIC_QOS_ATTR_TCLASS, .ok_vt = U8, .ok_val = 8

#define QOS(id, attr, v, hi_)						\
FIXTURE_VARIANT_ADD(reject, qos_##id) {					\
	QOS_ATTRS,							\
	.bad = { VRNIC_QOS_ATTR_##attr, U8, v },			\
	.err = -ERANGE, .range = true, .lo = 0, .hi = hi_,		\
}

#define QOS_SIZE(id, attr)						\
FIXTURE_VARIANT_ADD(reject, qos_##id##_wrong_size) {			\
	QOS_ATTRS,							\
	.bad = { VRNIC_QOS_ATTR_##attr, U32, 1 },			\
	.err = -EINVAL,							\
}

QOS(trust, TRUST, VRNIC_TRUST_MAX + 1, VRNIC_TRUST_MAX);
QOS(cnp_dscp, CNP_DSCP, VRNIC_NUM_DSCP, VRNIC_NUM_DSCP - 1);
QOS(cnp_prio, CNP_PRIO, VRNIC_NUM_PRIO, VRNIC_NUM_PRIO - 1);
QOS_SIZE(pfc_en, PFC_EN);
QOS_SIZE(ecn_en, ECN_EN);
QOS_SIZE(tclass, TCLASS);

#define D2P(k, kv, v, vv)						\
	QOS_ATTRS, .map = VRNIC_QOS_ATTR_DSCP2PRIO,			\
	.bad = { VRNIC_DSCP_MAP_ATTR_##k, U8, kv },			\
	.bad2 = { VRNIC_DSCP_MAP_ATTR_##v, U8, vv }

FIXTURE_VARIANT_ADD(reject, qos_dscp2prio_dscp) {
	D2P(DSCP, VRNIC_NUM_DSCP, PRIO, 1),
	.err = -ERANGE, .range = true, .lo = 0, .hi = VRNIC_NUM_DSCP - 1,
};

FIXTURE_VARIANT_ADD(reject, qos_dscp2prio_prio) {
	D2P(PRIO, VRNIC_NUM_PRIO, DSCP, 10),
	.err = -ERANGE, .range = true, .lo = 0, .hi = VRNIC_NUM_PRIO - 1,
};

FIXTURE_VARIANT_ADD(reject, qos_dscp2prio_no_prio) {
	D2P(DSCP, 10, UNSPEC, 0),
	.err = -EINVAL, .miss = VRNIC_DSCP_MAP_ATTR_PRIO,
};

FIXTURE_VARIANT_ADD(reject, qos_dscp2prio_no_dscp) {
	D2P(PRIO, 1, UNSPEC, 0),
	.err = -EINVAL, .miss = VRNIC_DSCP_MAP_ATTR_DSCP,
};

FIXTURE_VARIANT_ADD(reject, qos_dscp2prio_repeat) {
	D2P(DSCP, 10, PRIO, 1), .repeat = true,
	.err = -EINVAL, .names = "dscp2prio",
};

/* Removed: even a well-formed entry is refused, with the policy's reason. */
FIXTURE_VARIANT_ADD(reject, qos_prio2tc_rejected) {
	QOS_ATTRS, .map = VRNIC_QOS_ATTR_PRIO2TC,
	.bad = { VRNIC_TC_MAP_ATTR_PRIO, U8, 3 },
	.bad2 = { VRNIC_TC_MAP_ATTR_TC, U8, 1 },
	.err = -EINVAL, .names = "prio2tc removed",
};

#define DCQ_ATTRS							\
	.cmd = VRNIC_CMD_DCQCN_SET, .nest = VRNIC_ATTR_DCQCN,		\
	.ok_attr = VRNIC_DCQCN_ATTR_RPG_THRESHOLD, .ok_vt = U32,	\
	.ok_val = 9

#define DCQ(id, attr, v, vt_, lo_, hi_)					\
FIXTURE_VARIANT_ADD(reject, dcqcn_##id) {				\
	DCQ_ATTRS,							\
	.bad = { VRNIC_DCQCN_ATTR_##attr, vt_, v },			\
	.err = -ERANGE, .range = true, .lo = lo_, .hi = hi_,		\
}

#define TMAX	VRNIC_DCQCN_TIME_MAX
#define RMAX	VRNIC_DCQCN_RATE_MAX

DCQ(rpg_time_reset, RPG_TIME_RESET, 0, U32, 1, TMAX);
DCQ(rpg_time_reset_max, RPG_TIME_RESET, TMAX + 1, U32, 1, TMAX);
DCQ(rpg_threshold, RPG_THRESHOLD, VRNIC_DCQCN_THRESHOLD_MAX + 1, U32, 1,
    VRNIC_DCQCN_THRESHOLD_MAX);
DCQ(rpg_max_rate, RPG_MAX_RATE, RMAX + 1, U32, 0, RMAX);
DCQ(rpg_ai_rate, RPG_AI_RATE, 0, U32, 1, RMAX);
DCQ(rpg_hai_rate, RPG_HAI_RATE, RMAX + 1, U32, 1, RMAX);
DCQ(rpg_gd, RPG_GD, VRNIC_DCQCN_GD_MAX + 1, U32, 0, VRNIC_DCQCN_GD_MAX);
DCQ(rpg_min_dec_fac, RPG_MIN_DEC_FAC, 0, U32, 1,
    VRNIC_DCQCN_MIN_DEC_FAC_MAX);
DCQ(rpg_min_dec_fac_max, RPG_MIN_DEC_FAC, VRNIC_DCQCN_MIN_DEC_FAC_MAX + 1,
    U32, 1, VRNIC_DCQCN_MIN_DEC_FAC_MAX);
DCQ(rpg_min_rate, RPG_MIN_RATE, RMAX + 1, U32, 0, RMAX);
DCQ(rate_to_set_on_first_cnp, RATE_TO_SET_ON_FIRST_CNP, RMAX + 1, U32, 0,
    RMAX);
DCQ(dce_tcp_g, DCE_TCP_G, 0, U32, 1, VRNIC_DCQCN_ONE);
DCQ(dce_tcp_g_max, DCE_TCP_G, VRNIC_DCQCN_ONE + 1, U32, 1, VRNIC_DCQCN_ONE);
DCQ(dce_tcp_rtt, DCE_TCP_RTT, 0, U32, 1, TMAX);
DCQ(rate_reduce_monitor_period, RATE_REDUCE_MONITOR_PERIOD, 0, U32, 1,
    TMAX);
DCQ(initial_alpha_value, INITIAL_ALPHA_VALUE, VRNIC_DCQCN_ALPHA_MAX + 1,
    U32, 0, VRNIC_DCQCN_ALPHA_MAX);
DCQ(min_time_between_cnps, MIN_TIME_BETWEEN_CNPS, TMAX + 1, U32, 0, TMAX);
DCQ(cnp_dscp, CNP_DSCP, VRNIC_NUM_DSCP, U8, 0, VRNIC_NUM_DSCP - 1);
DCQ(cnp_802p_prio, CNP_802P_PRIO, VRNIC_NUM_PRIO, U8, 0,
    VRNIC_NUM_PRIO - 1);
DCQ(clamp_tgt_rate, CLAMP_TGT_RATE, 2, U8, 0, 1);
DCQ(clamp_tgt_rate_after_time_inc, CLAMP_TGT_RATE_AFTER_TIME_INC, 2, U8, 0,
    1);

FIXTURE_VARIANT_ADD(reject, dcqcn_rpg_byte_reset_wrong_size) {
	DCQ_ATTRS,
	.bad = { VRNIC_DCQCN_ATTR_RPG_BYTE_RESET, U8, 1 },
	.err = -EINVAL,
};

/* Rules between attributes, against the current values (hai 400). */
FIXTURE_VARIANT_ADD(reject, dcqcn_ai_above_hai) {
	DCQ_ATTRS,
	.bad = { VRNIC_DCQCN_ATTR_RPG_AI_RATE, U32, 500 },
	.err = -EINVAL, .names = "rpg_ai_rate",
};

FIXTURE_VARIANT_ADD(reject, dcqcn_min_rate_above_max_rate) {
	.cmd = VRNIC_CMD_DCQCN_SET, .nest = VRNIC_ATTR_DCQCN,
	.ok_attr = VRNIC_DCQCN_ATTR_RPG_MAX_RATE, .ok_vt = U32, .ok_val = 50,
	.bad = { VRNIC_DCQCN_ATTR_RPG_MIN_RATE, U32, 100 },
	.err = -EINVAL, .names = "rpg_min_rate",
};

FIXTURE_SETUP(reject)
{
	if (!have_dev)
		SKIP(return, "%s", no_dev_reason);
	ASSERT_EQ(0, vnl_open(&self->nl, 0));
	ASSERT_EQ(0, restore(&self->nl)) TH_LOG("%s", self->nl.extack);
}

FIXTURE_TEARDOWN(reject)
{
	vnl_close(&self->nl);
}

/* Returns the offset of the attribute in the request. */
static uint32_t put_val(struct nl_msg *m, int type, enum val_type vt,
			uint64_t v)
{
	uint32_t off = vnl_tail(m);

	switch (vt) {
	case U8:
		nla_put_u8(m, type, v);
		break;
	case U32:
		nla_put_u32(m, type, v);
		break;
	case U64:
		nla_put_u64(m, type, v);
		break;
	}
	return off;
}

TEST_F(reject, set_fails_at_the_attribute_and_changes_nothing)
{
	struct snapshot before, after;
	uint32_t bad_off, entry_off = 0;
	struct nlattr *obj, *map, *entry;
	struct nl_msg *m;
	int err;

	ASSERT_EQ(0, snapshot(&self->nl, DEV, &before));

	m = dev_req(&self->nl, 0, variant->cmd, DEV);
	obj = nla_nest_start(m, variant->nest);
	put_val(m, variant->ok_attr, variant->ok_vt, variant->ok_val);
	if (variant->map) {
		map = nla_nest_start(m, variant->map);
		if (variant->repeat)
			put_map_entry(m, variant->bad.type, variant->bad.val,
				      variant->bad2.type, variant->bad2.val);
		entry_off = vnl_tail(m);
		entry = nla_nest_start(m, VRNIC_ENTRY);
		bad_off = put_val(m, variant->bad.type, U8, variant->bad.val);
		if (variant->bad2.type)
			put_val(m, variant->bad2.type, U8, variant->bad2.val);
		nla_nest_end(m, entry);
		nla_nest_end(m, map);
	} else {
		bad_off = put_val(m, variant->bad.type, variant->bad.vt,
				  variant->bad.val);
	}
	nla_nest_end(m, obj);

	err = xfer(&self->nl, m, NULL, NULL);
	EXPECT_EQ(variant->err, err) TH_LOG("errno %d (%s)", -err,
					    strerror(-err));
	if (variant->miss) {
		EXPECT_EQ(variant->miss, self->nl.miss_type);
		EXPECT_EQ(entry_off, self->nl.miss_nest);
	} else {
		EXPECT_EQ(bad_off, self->nl.extack_off)
			TH_LOG("the error points elsewhere (\"%s\")",
			       self->nl.extack);
		EXPECT_NE(0, self->nl.extack[0]) TH_LOG("no message");
	}
	if (variant->names)
		EXPECT_NE(NULL, strstr(self->nl.extack, variant->names))
			TH_LOG("\"%s\" does not name %s", self->nl.extack,
			       variant->names);
	if (variant->range) {
		EXPECT_TRUE(self->nl.policy) TH_LOG("no NLMSGERR_ATTR_POLICY");
		EXPECT_EQ(variant->lo, self->nl.pol_min);
		EXPECT_EQ(variant->hi, self->nl.pol_max);
	}

	ASSERT_EQ(0, snapshot(&self->nl, DEV, &after));
	ASSERT_TRUE(snapshot_eq(&before, &after))
		TH_LOG("a rejected SET changed the configuration");
}

/*
 * The test device exists for the whole run: created before the harness
 * starts (a constructor: TEST_HARNESS_MAIN owns main()) and deleted when
 * it exits (a destructor, which runs in the harness's process only: each
 * test's child leaves with _exit()).
 */
static void __attribute__((constructor)) nl_dev_setup(void)
{
	struct vnl nl = {};
	int err;

	if (getuid())
		return;
	del_dev(DEV, NETDEV);
	if (add_dev(DEV, NETDEV)) {
		snprintf(no_dev_reason, sizeof(no_dev_reason),
			 "cannot create %s (is vrnic.ko loaded?)", DEV);
	} else if ((err = vnl_open(&nl, 0))) {
		snprintf(no_dev_reason, sizeof(no_dev_reason),
			 "vrnic family: %s", nl_geterror(err));
	} else if ((err = snapshot(&nl, DEV, &fresh))) {
		snprintf(no_dev_reason, sizeof(no_dev_reason),
			 "reading %s: %s", DEV, strerror(-err));
	} else {
		have_dev = true;
	}
	vnl_close(&nl);
}

static void __attribute__((destructor)) nl_dev_teardown(void)
{
	if (getuid())
		return;
	del_dev(DEV, NETDEV);
	vrnic_sh("ip netns del " NS " 2>/dev/null");
}

TEST_HARNESS_MAIN
