// SPDX-License-Identifier: GPL-2.0
/*
 * The "vrnic" generic netlink API (uapi/vrnic.h) against the real module:
 * round trips of every object, one test per rejected attribute (errno, the
 * offending attribute and the policy the kernel sends back, and nothing
 * changed), unprivileged SETs, notifications, dumps that resume and
 * removed commands.  Raw netlink sockets, so what is tested is the wire
 * format itself.  Run as root in the test VM (selftests/vm/vm.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <infiniband/verbs.h>

#include <vrnic.h>	/* uapi/vrnic.h */

#include "kselftest_harness.h"
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
#define BUFSZ		(64 * 1024)

/* ---- A tiny raw generic netlink client ---- */

struct msg {
	char buf[8192];
	struct nlmsghdr *nlh;
	struct nlattr *nest[4];
	int depth;
};

struct nl {
	int fd;
	uint16_t family;
	uint32_t seq;
	uint32_t mcgrp;
	char extack[256];
	uint32_t extack_off;	/* NLMSGERR_ATTR_OFFS, 0 if none */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE, -1 if none */
	uint32_t miss_nest;	/* NLMSGERR_ATTR_MISS_NEST, 0 if none */
	bool policy;		/* NLMSGERR_ATTR_POLICY came, with: */
	uint64_t pol_min;	/* NL_POLICY_TYPE_ATTR_MIN_VALUE_U */
	uint64_t pol_max;	/* NL_POLICY_TYPE_ATTR_MAX_VALUE_U */
	int reads;		/* recv() calls of the last request */
	int rcvlen;		/* bytes per recv(); the kernel sizes dump
				 * batches after the largest one seen */
};

static void msg_init(struct msg *m, uint16_t type, uint16_t flags, uint8_t cmd)
{
	struct genlmsghdr *g;

	memset(m->buf, 0, sizeof(m->buf));
	m->nlh = (struct nlmsghdr *)m->buf;
	m->nlh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m->nlh->nlmsg_type = type;
	m->nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	g = NLMSG_DATA(m->nlh);
	g->cmd = cmd;
	g->version = VRNIC_GENL_VERSION;
	m->depth = 0;
}

/* Returns the offset of the attribute in the message. */
static uint32_t put(struct msg *m, uint16_t type, const void *data, int len)
{
	uint32_t off = NLMSG_ALIGN(m->nlh->nlmsg_len);
	struct nlattr *a = (struct nlattr *)(m->buf + off);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	m->nlh->nlmsg_len = off + NLA_ALIGN(a->nla_len);
	return off;
}

static uint32_t put_u8(struct msg *m, uint16_t t, uint8_t v)
{
	return put(m, t, &v, 1);
}

static uint32_t put_u32(struct msg *m, uint16_t t, uint32_t v)
{
	return put(m, t, &v, 4);
}

static uint32_t put_u64(struct msg *m, uint16_t t, uint64_t v)
{
	return put(m, t, &v, 8);
}
static void put_str(struct msg *m, uint16_t t, const char *s)
{
	put(m, t, s, strlen(s) + 1);
}

static uint32_t nest_start(struct msg *m, uint16_t type)
{
	m->nest[m->depth++] =
		(struct nlattr *)(m->buf + NLMSG_ALIGN(m->nlh->nlmsg_len));
	return put(m, type | NLA_F_NESTED, NULL, 0);
}

static void nest_end(struct msg *m)
{
	struct nlattr *a = m->nest[--m->depth];

	a->nla_len = m->buf + m->nlh->nlmsg_len - (char *)a;
}

#define nla_for_each(a, data, len)					\
	for (a = (struct nlattr *)(data);				\
	     (char *)a + NLA_HDRLEN <= (char *)(data) + (len) &&	\
	     a->nla_len >= NLA_HDRLEN &&				\
	     (char *)a + a->nla_len <= (char *)(data) + (len);		\
	     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))

static void *nla_data_(const struct nlattr *a) { return (char *)a + NLA_HDRLEN; }
static int nla_len_(const struct nlattr *a) { return a->nla_len - NLA_HDRLEN; }
static int nla_type_(const struct nlattr *a) { return a->nla_type & NLA_TYPE_MASK; }
static uint8_t get_u8(const struct nlattr *a) { return *(uint8_t *)nla_data_(a); }
static uint32_t get_u32(const struct nlattr *a) { return *(uint32_t *)nla_data_(a); }
static uint64_t get_u64(const struct nlattr *a)
{
	uint64_t v;

	memcpy(&v, nla_data_(a), sizeof(v));
	return v;
}

/* Index the attributes of a stream by type; later duplicates win. */
static void parse(struct nlattr **tb, int max, const void *data, int len)
{
	struct nlattr *a;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	nla_for_each(a, data, len)
		if (nla_type_(a) <= max)
			tb[nla_type_(a)] = a;
}

static void parse_nest(struct nlattr **tb, int max, const struct nlattr *nest)
{
	parse(tb, max, nla_data_(nest), nla_len_(nest));
}

/* The attributes of a genetlink message. */
static void parse_msg(struct nlattr **tb, int max, const struct nlmsghdr *nlh)
{
	parse(tb, max, (char *)NLMSG_DATA(nlh) + GENL_HDRLEN,
	      nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
}

typedef void (*reply_fn)(const struct nlmsghdr *nlh, void *arg);

/* The range of the policy entry the kernel blamed (NLMSGERR_ATTR_POLICY). */
static void read_policy(struct nl *nl, const struct nlattr *pol)
{
	struct nlattr *tb[NL_POLICY_TYPE_ATTR_MAX + 1];

	parse_nest(tb, NL_POLICY_TYPE_ATTR_MAX, pol);
	nl->policy = true;
	if (tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U])
		nl->pol_min = get_u64(tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U]);
	if (tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U])
		nl->pol_max = get_u64(tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U]);
}

static void read_ack_tlvs(struct nl *nl, const struct nlmsghdr *nlh,
			  const void *tlvs, int len)
{
	struct nlattr *a;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	nla_for_each(a, tlvs, len) {
		switch (nla_type_(a)) {
		case NLMSGERR_ATTR_MSG:
			snprintf(nl->extack, sizeof(nl->extack), "%s",
				 (char *)nla_data_(a));
			break;
		case NLMSGERR_ATTR_OFFS:
			nl->extack_off = get_u32(a);
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			nl->miss_type = get_u32(a);
			break;
		case NLMSGERR_ATTR_MISS_NEST:
			nl->miss_nest = get_u32(a);
			break;
		case NLMSGERR_ATTR_POLICY:
			read_policy(nl, a);
			break;
		}
	}
}

/*
 * Send @m and collect the answer: replies go to @fn, the result is 0 or
 * -errno, and nl->extack holds the kernel's message ("" if none).
 */
static int nl_xfer(struct nl *nl, struct msg *m, reply_fn fn, void *arg)
{
	static char buf[BUFSZ];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	bool dump = m->nlh->nlmsg_flags & NLM_F_DUMP;
	struct nlmsghdr *nlh;
	int len, err;

	nl->extack[0] = '\0';
	nl->extack_off = 0;
	nl->miss_type = -1;
	nl->miss_nest = 0;
	nl->policy = false;
	nl->pol_min = 0;
	nl->pol_max = 0;
	nl->reads = 0;
	m->nlh->nlmsg_seq = ++nl->seq;
	if (sendto(nl->fd, m->buf, m->nlh->nlmsg_len, 0,
		   (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	for (;;) {
		len = recv(nl->fd, buf, nl->rcvlen, MSG_TRUNC);
		if (len < 0)
			return -errno;
		if (len > nl->rcvlen)
			return -EMSGSIZE;	/* a truncated datagram */
		nl->reads++;
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_seq != nl->seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nlh);
				int off = sizeof(*e);

				if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
					off += e->msg.nlmsg_len - sizeof(e->msg);
				read_ack_tlvs(nl, nlh, (char *)e + off,
					      nlh->nlmsg_len - NLMSG_HDRLEN - off);
				if (e->error || !dump)
					return e->error;
				continue;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				int *e = NLMSG_DATA(nlh);

				err = *e;
				read_ack_tlvs(nl, nlh, e + 1,
					      nlh->nlmsg_len - NLMSG_HDRLEN - 4);
				/* a dump that started is not ACKed */
				return err;
			}
			if (fn)
				fn(nlh, arg);
		}
	}
}

static void family_reply(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *g, *gtb[CTRL_ATTR_MCAST_GRP_MAX + 1];
	struct nl *nl = arg;

	parse_msg(tb, CTRL_ATTR_MAX, nlh);
	if (tb[CTRL_ATTR_FAMILY_ID])
		nl->family = *(uint16_t *)nla_data_(tb[CTRL_ATTR_FAMILY_ID]);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return;
	nla_for_each(g, nla_data_(tb[CTRL_ATTR_MCAST_GROUPS]),
		     nla_len_(tb[CTRL_ATTR_MCAST_GROUPS])) {
		parse_nest(gtb, CTRL_ATTR_MCAST_GRP_MAX, g);
		if (gtb[CTRL_ATTR_MCAST_GRP_NAME] && gtb[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp(nla_data_(gtb[CTRL_ATTR_MCAST_GRP_NAME]),
			    VRNIC_GENL_MCGRP_CONFIG))
			nl->mcgrp = get_u32(gtb[CTRL_ATTR_MCAST_GRP_ID]);
	}
}

/*
 * @rcvlen: the size of every read.  Small reads keep the kernel's dump
 * batches small (it allocates them after the largest read), so that a
 * dump of a moderate table has to resume several times.
 */
static int nl_open_rcvlen(struct nl *nl, int rcvlen)
{
	struct msg m;
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	nl->rcvlen = rcvlen;
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return -errno;
	if (setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)))
		return -errno;
	msg_init(&m, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY);
	put_str(&m, CTRL_ATTR_FAMILY_NAME, VRNIC_GENL_NAME);
	return nl_xfer(nl, &m, family_reply, nl);
}

static int nl_open(struct nl *nl)
{
	return nl_open_rcvlen(nl, BUFSZ);
}

static void nl_close(struct nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
}

/* ---- Requests ---- */

/* A copy of the first reply: enough for GET doits. */
struct reply {
	int count;
	char buf[16384];
	int len;
};

static void keep_reply(const struct nlmsghdr *nlh, void *arg)
{
	struct reply *r = arg;

	if (!r->count++ && nlh->nlmsg_len <= sizeof(r->buf)) {
		memcpy(r->buf, nlh, nlh->nlmsg_len);
		r->len = nlh->nlmsg_len;
	}
}

/* GET @cmd of @dev; on success tb[] indexes the reply. */
static int get_obj(struct nl *nl, uint8_t cmd, const char *dev,
		   struct reply *r, struct nlattr **tb)
{
	struct msg m;
	int err;

	memset(r, 0, sizeof(*r));
	msg_init(&m, nl->family, 0, cmd);
	put_str(&m, VRNIC_ATTR_DEV_NAME, dev);
	err = nl_xfer(nl, &m, keep_reply, r);
	if (!err && r->count != 1)
		err = -EPROTO;
	if (!err)
		parse_msg(tb, VRNIC_ATTR_MAX, (struct nlmsghdr *)r->buf);
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

	nla_for_each(a, nla_data_(nest), nla_len_(nest)) {
		if (nla_type_(a) != type)
			continue;
		switch (nla_len_(a)) {
		case 1: return get_u8(a);
		case 4: return get_u32(a);
		case 8: return get_u64(a);
		}
	}
	return -1;	/* absent */
}

static uint64_t nested_u64(struct nlattr *nest, int type)
{
	struct nlattr *a;

	nla_for_each(a, nla_data_(nest), nla_len_(nest))
		if (nla_type_(a) == type && nla_len_(a) == 8)
			return get_u64(a);
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

static int snapshot(struct nl *nl, const char *dev, struct snapshot *s)
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

static int restore(struct nl *nl)
{
	struct msg m;
	int i, err;

	for (i = 0; i < 3; i++) {
		msg_init(&m, nl->family, 0, objs[i].set);
		put_str(&m, VRNIC_ATTR_DEV_NAME, DEV);
		/* the GET reply's nest, as it came */
		put(&m, objs[i].nest | NLA_F_NESTED,
		    fresh.nest[i] + NLA_HDRLEN, fresh.len[i] - NLA_HDRLEN);
		err = nl_xfer(nl, &m, NULL, NULL);
		if (err)
			return err;
	}
	return 0;
}

FIXTURE(vrnic) {
	struct nl nl;
};

FIXTURE_SETUP(vrnic)
{
	int err;

	if (!have_dev)
		SKIP(return, "%s", no_dev_reason);
	err = nl_open(&self->nl);
	ASSERT_EQ(0, err) TH_LOG("family %s: %s", VRNIC_GENL_NAME,
				 strerror(-err));
	ASSERT_NE(0, self->nl.family);
	err = restore(&self->nl);
	ASSERT_EQ(0, err) TH_LOG("restoring the configuration: %s (%s)",
				 strerror(-err), self->nl.extack);
}

FIXTURE_TEARDOWN(vrnic)
{
	nl_close(&self->nl);
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
	ASSERT_STREQ(DEV, (char *)nla_data_(tb[VRNIC_ATTR_DEV_NAME]));
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
	struct nlattr *tb[VRNIC_ATTR_MAX + 1];
	struct reply r;
	struct msg m;

	msg_init(&m, self->nl.family, 0, VRNIC_CMD_LIMITS_SET);
	put_str(&m, VRNIC_ATTR_DEV_NAME, DEV);
	nest_start(&m, VRNIC_ATTR_LIMITS);
	put_u32(&m, VRNIC_LIMITS_ATTR_MAX_QP, 100);
	put_u32(&m, VRNIC_LIMITS_ATTR_MAX_INLINE_DATA, 0);
	put_u64(&m, VRNIC_LIMITS_ATTR_MAX_MR_SIZE, 1ULL << 30);
	nest_end(&m);
	ASSERT_EQ(0, nl_xfer(&self->nl, &m, NULL, NULL))
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

	nla_for_each(e, nla_data_(map), nla_len_(map))
		if ((int)nested_val(e, ktype) == key)
			return nested_val(e, vtype);
	return -1;
}

static int map_count(struct nlattr *map)
{
	struct nlattr *e;
	int n = 0;

	nla_for_each(e, nla_data_(map), nla_len_(map))
		n++;
	return n;
}

TEST_F(vrnic, qos_defaults)
{
	struct nlattr *qtb[VRNIC_QOS_ATTR_MAX + 1];
	int i;

	parse_nest(qtb, VRNIC_QOS_ATTR_MAX, (struct nlattr *)fresh.nest[1]);
	EXPECT_EQ(VRNIC_TRUST_PCP, get_u8(qtb[VRNIC_QOS_ATTR_TRUST]));
	EXPECT_EQ(0, get_u8(qtb[VRNIC_QOS_ATTR_PFC_EN]));
	EXPECT_EQ(0xff, get_u8(qtb[VRNIC_QOS_ATTR_ECN_EN]));
	EXPECT_EQ(0, get_u8(qtb[VRNIC_QOS_ATTR_TCLASS]));
	EXPECT_EQ(48, get_u8(qtb[VRNIC_QOS_ATTR_CNP_DSCP]));
	EXPECT_EQ(6, get_u8(qtb[VRNIC_QOS_ATTR_CNP_PRIO]));
	ASSERT_EQ(VRNIC_NUM_DSCP, map_count(qtb[VRNIC_QOS_ATTR_DSCP2PRIO]));
	for (i = 0; i < VRNIC_NUM_DSCP; i++)
		EXPECT_EQ(i >> 3, map_get(qtb[VRNIC_QOS_ATTR_DSCP2PRIO],
					  VRNIC_DSCP_MAP_ATTR_DSCP,
					  VRNIC_DSCP_MAP_ATTR_PRIO, i));
	/* Removed (no packet obeyed it): GET no longer reports it. */
	EXPECT_EQ(NULL, qtb[VRNIC_QOS_ATTR_PRIO2TC])
		TH_LOG("QOS_GET still reports the removed prio2tc");
}

static void put_map_entry(struct msg *m, int kt, int k, int vt, int v)
{
	nest_start(m, VRNIC_ENTRY);
	put_u8(m, kt, k);
	put_u8(m, vt, v);
	nest_end(m);
}

TEST_F(vrnic, qos_set_round_trips)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1], *qtb[VRNIC_QOS_ATTR_MAX + 1];
	struct reply r;
	struct msg m;

	msg_init(&m, self->nl.family, 0, VRNIC_CMD_QOS_SET);
	put_str(&m, VRNIC_ATTR_DEV_NAME, DEV);
	nest_start(&m, VRNIC_ATTR_QOS);
	put_u8(&m, VRNIC_QOS_ATTR_TRUST, VRNIC_TRUST_DSCP);
	put_u8(&m, VRNIC_QOS_ATTR_PFC_EN, 0x08);
	put_u8(&m, VRNIC_QOS_ATTR_ECN_EN, 0x0f);
	put_u8(&m, VRNIC_QOS_ATTR_TCLASS, 106);
	put_u8(&m, VRNIC_QOS_ATTR_CNP_DSCP, 40);
	nest_start(&m, VRNIC_QOS_ATTR_DSCP2PRIO);
	put_map_entry(&m, VRNIC_DSCP_MAP_ATTR_DSCP, 46, VRNIC_DSCP_MAP_ATTR_PRIO, 5);
	put_map_entry(&m, VRNIC_DSCP_MAP_ATTR_DSCP, 26, VRNIC_DSCP_MAP_ATTR_PRIO, 3);
	nest_end(&m);
	nest_end(&m);
	ASSERT_EQ(0, nl_xfer(&self->nl, &m, NULL, NULL))
		TH_LOG("extack: %s", self->nl.extack);

	ASSERT_EQ(0, get_obj(&self->nl, VRNIC_CMD_QOS_GET, DEV, &r, tb));
	parse_nest(qtb, VRNIC_QOS_ATTR_MAX, tb[VRNIC_ATTR_QOS]);
	EXPECT_EQ(VRNIC_TRUST_DSCP, get_u8(qtb[VRNIC_QOS_ATTR_TRUST]));
	EXPECT_EQ(0x08, get_u8(qtb[VRNIC_QOS_ATTR_PFC_EN]));
	EXPECT_EQ(0x0f, get_u8(qtb[VRNIC_QOS_ATTR_ECN_EN]));
	EXPECT_EQ(106, get_u8(qtb[VRNIC_QOS_ATTR_TCLASS]));
	EXPECT_EQ(40, get_u8(qtb[VRNIC_QOS_ATTR_CNP_DSCP]));
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
	struct nlattr *tb[VRNIC_ATTR_MAX + 1], *d;
	struct reply r;
	struct msg m;

	msg_init(&m, self->nl.family, 0, VRNIC_CMD_DCQCN_SET);
	put_str(&m, VRNIC_ATTR_DEV_NAME, DEV);
	nest_start(&m, VRNIC_ATTR_DCQCN);
	put_u32(&m, VRNIC_DCQCN_ATTR_RPG_TIME_RESET, 300);
	put_u32(&m, VRNIC_DCQCN_ATTR_RPG_BYTE_RESET, 0);
	put_u32(&m, VRNIC_DCQCN_ATTR_RPG_MAX_RATE, 25000);
	put_u32(&m, VRNIC_DCQCN_ATTR_RPG_MIN_RATE, 10);
	put_u32(&m, VRNIC_DCQCN_ATTR_RPG_AI_RATE, 5);
	put_u32(&m, VRNIC_DCQCN_ATTR_RPG_HAI_RATE, 50);
	put_u32(&m, VRNIC_DCQCN_ATTR_DCE_TCP_G, 1024);
	put_u32(&m, VRNIC_DCQCN_ATTR_MIN_TIME_BETWEEN_CNPS, 0);
	put_u8(&m, VRNIC_DCQCN_ATTR_CNP_802P_PRIO, 7);
	nest_end(&m);
	ASSERT_EQ(0, nl_xfer(&self->nl, &m, NULL, NULL))
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
	struct msg m;

	msg_init(&m, self->nl.family, 0, VRNIC_CMD_QP_STATS_GET);
	put_str(&m, VRNIC_ATTR_DEV_NAME, DEV);
	put_u32(&m, VRNIC_ATTR_QPN, 0xfffffe);
	ASSERT_EQ(-ENOENT, nl_xfer(&self->nl, &m, NULL, NULL));
	ASSERT_STREQ("no such qpn", self->nl.extack);
}

struct qp_dump {
	int count;
	bool ok;
};

static void qp_dump_reply(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1];
	struct qp_dump *d = arg;

	parse_msg(tb, VRNIC_ATTR_MAX, nlh);
	d->count++;
	if (!tb[VRNIC_ATTR_QPN] || !tb[VRNIC_ATTR_COUNTERS])
		d->ok = false;
}

TEST_F(vrnic, qp_counters_dump_succeeds)
{
	struct qp_dump d = { .ok = true };
	struct msg m;

	msg_init(&m, self->nl.family, NLM_F_DUMP, VRNIC_CMD_QP_STATS_GET);
	put_str(&m, VRNIC_ATTR_DEV_NAME, DEV);
	ASSERT_EQ(0, nl_xfer(&self->nl, &m, qp_dump_reply, &d))
		TH_LOG("extack: %s", self->nl.extack);
	ASSERT_TRUE(d.ok);
	TH_LOG("%d QPs", d.count);
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
	struct msg m;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(removed); i++) {
		memset(&r, 0, sizeof(r));
		msg_init(&m, self->nl.family, 0, removed[i]);
		put_str(&m, VRNIC_ATTR_DEV_NAME, DEV);
		EXPECT_EQ(-EOPNOTSUPP, nl_xfer(&self->nl, &m, keep_reply, &r))
			TH_LOG("command %d as a do", removed[i]);
		msg_init(&m, self->nl.family, NLM_F_DUMP, removed[i]);
		EXPECT_EQ(-EOPNOTSUPP, nl_xfer(&self->nl, &m, keep_reply, &r))
			TH_LOG("command %d as a dump", removed[i]);
		EXPECT_EQ(0, r.count) TH_LOG("command %d replied", removed[i]);
	}
}

TEST_F_TIMEOUT(vrnic, non_vrnic_device_is_enodev, 180)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1];
	struct reply r;
	struct msg m;
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

	msg_init(&m, self->nl.family, 0, VRNIC_CMD_LIMITS_SET);
	put_str(&m, VRNIC_ATTR_DEV_NAME, "vrnlrxe0");
	nest_start(&m, VRNIC_ATTR_LIMITS);
	put_u32(&m, VRNIC_LIMITS_ATTR_MAX_QP, 10);
	nest_end(&m);
	EXPECT_EQ(-ENODEV, nl_xfer(&self->nl, &m, NULL, NULL));
	EXPECT_STREQ("device is not a vrnic device", self->nl.extack);
	vrnic_sh("rdma link del vrnlrxe0; ip link del vrnlrxend0");
}

TEST_F(vrnic, set_without_device_is_rejected)
{
	struct msg m;

	msg_init(&m, self->nl.family, 0, VRNIC_CMD_LIMITS_SET);
	nest_start(&m, VRNIC_ATTR_LIMITS);
	put_u32(&m, VRNIC_LIMITS_ATTR_MAX_QP, 10);
	nest_end(&m);
	ASSERT_EQ(-EINVAL, nl_xfer(&self->nl, &m, NULL, NULL));
	ASSERT_EQ(VRNIC_ATTR_DEV_NAME, self->nl.miss_type);
	ASSERT_EQ(0U, self->nl.miss_nest);
}

TEST_F(vrnic, set_without_object_is_rejected)
{
	struct msg m;

	msg_init(&m, self->nl.family, 0, VRNIC_CMD_DCQCN_SET);
	put_str(&m, VRNIC_ATTR_DEV_NAME, DEV);
	ASSERT_EQ(-EINVAL, nl_xfer(&self->nl, &m, NULL, NULL));
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

static void policy_reply(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *idx, *attr;
	struct nlattr *ptb[NL_POLICY_TYPE_ATTR_MAX + 1];
	struct policy_seen *seen = arg;
	uint64_t max;

	parse_msg(tb, CTRL_ATTR_MAX, nlh);
	if (!tb[CTRL_ATTR_POLICY])
		return;
	nla_for_each(idx, nla_data_(tb[CTRL_ATTR_POLICY]),
		     nla_len_(tb[CTRL_ATTR_POLICY])) {
		nla_for_each(attr, nla_data_(idx), nla_len_(idx)) {
			parse_nest(ptb, NL_POLICY_TYPE_ATTR_MAX, attr);
			if (!ptb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U])
				continue;
			max = get_u64(ptb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U]);
			if (nla_type_(attr) == VRNIC_DCQCN_ATTR_RPG_GD &&
			    max == VRNIC_DCQCN_GD_MAX)
				seen->gd = true;
			if (nla_type_(attr) == VRNIC_DCQCN_ATTR_RPG_TIME_RESET &&
			    max == VRNIC_DCQCN_TIME_MAX)
				seen->time = true;
		}
	}
}

TEST_F(vrnic, getpolicy_shows_the_nested_ranges)
{
	struct policy_seen seen = {};
	uint32_t op = VRNIC_CMD_DCQCN_SET;
	uint16_t family = self->nl.family;
	struct msg m;

	msg_init(&m, GENL_ID_CTRL, NLM_F_DUMP, CTRL_CMD_GETPOLICY);
	put(&m, CTRL_ATTR_FAMILY_ID, &family, sizeof(family));
	put(&m, CTRL_ATTR_OP, &op, sizeof(op));
	ASSERT_EQ(0, nl_xfer(&self->nl, &m, policy_reply, &seen))
		TH_LOG("extack: %s", self->nl.extack);
	EXPECT_TRUE(seen.gd) TH_LOG("no rpg_gd 0..VRNIC_DCQCN_GD_MAX");
	EXPECT_TRUE(seen.time)
		TH_LOG("no rpg_time_reset 1..VRNIC_DCQCN_TIME_MAX");
}

/* ---- Notifications ---- */

static int ntf_open(struct nl *mon, struct nl *ref)
{
	int err = nl_open(mon);

	if (err)
		return err;
	if (setsockopt(mon->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
		       &ref->mcgrp, sizeof(ref->mcgrp)))
		return -errno;
	return 0;
}

/* Wait up to @ms for a notification; its message into @r. */
static int ntf_wait(struct nl *mon, struct reply *r, int ms)
{
	struct pollfd p = { .fd = mon->fd, .events = POLLIN };
	int len;

	memset(r, 0, sizeof(*r));
	if (poll(&p, 1, ms) <= 0)
		return -ETIMEDOUT;
	len = recv(mon->fd, r->buf, sizeof(r->buf), 0);
	if (len < (int)NLMSG_HDRLEN)
		return -EPROTO;
	r->len = len;
	return 0;
}

TEST_F(vrnic, set_notifies_config_group_once_per_change)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1];
	struct genlmsghdr *g;
	struct nl mon;
	struct reply r;
	struct msg m;

	ASSERT_EQ(0, ntf_open(&mon, &self->nl));

	msg_init(&m, self->nl.family, 0, VRNIC_CMD_LIMITS_SET);
	put_str(&m, VRNIC_ATTR_DEV_NAME, DEV);
	nest_start(&m, VRNIC_ATTR_LIMITS);
	put_u32(&m, VRNIC_LIMITS_ATTR_MAX_CQ, 321);
	nest_end(&m);
	ASSERT_EQ(0, nl_xfer(&self->nl, &m, NULL, NULL));

	ASSERT_EQ(0, ntf_wait(&mon, &r, 2000));
	g = NLMSG_DATA((struct nlmsghdr *)r.buf);
	EXPECT_EQ(VRNIC_CMD_CONFIG_NTF, g->cmd);
	parse_msg(tb, VRNIC_ATTR_MAX, (struct nlmsghdr *)r.buf);
	ASSERT_NE(NULL, tb[VRNIC_ATTR_DEV_NAME]);
	EXPECT_STREQ(DEV, (char *)nla_data_(tb[VRNIC_ATTR_DEV_NAME]));
	ASSERT_NE(NULL, tb[VRNIC_ATTR_LIMITS]);
	EXPECT_EQ(321, nested_val(tb[VRNIC_ATTR_LIMITS],
				  VRNIC_LIMITS_ATTR_MAX_CQ));

	/* The same request again changes nothing: no notification. */
	ASSERT_EQ(0, nl_xfer(&self->nl, &m, NULL, NULL));
	EXPECT_EQ(-ETIMEDOUT, ntf_wait(&mon, &r, 300));

	/* A QoS change announces the QoS object. */
	msg_init(&m, self->nl.family, 0, VRNIC_CMD_QOS_SET);
	put_str(&m, VRNIC_ATTR_DEV_NAME, DEV);
	nest_start(&m, VRNIC_ATTR_QOS);
	put_u8(&m, VRNIC_QOS_ATTR_PFC_EN, 0x10);
	nest_end(&m);
	ASSERT_EQ(0, nl_xfer(&self->nl, &m, NULL, NULL));
	ASSERT_EQ(0, ntf_wait(&mon, &r, 2000));
	parse_msg(tb, VRNIC_ATTR_MAX, (struct nlmsghdr *)r.buf);
	ASSERT_NE(NULL, tb[VRNIC_ATTR_QOS]);
	EXPECT_EQ(0x10, nested_val(tb[VRNIC_ATTR_QOS], VRNIC_QOS_ATTR_PFC_EN));
	nl_close(&mon);
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
	struct msg m;
	pid_t pid;
	int status, err;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		struct nlattr *tb[VRNIC_ATTR_MAX + 1];
		struct reply r;
		struct nl unl;

		if (in_dev_ns && enter_netns(NS))
			_exit(1000);
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(1001);
		if (nl_open(&unl))
			_exit(1002);
		err = get_obj(&unl, objs[obj].get, DEV, &r, tb);
		if (!set)
			_exit(-err > 255 ? 255 : -err);
		/* Reading stays allowed. */
		if (err)
			_exit(1003);
		msg_init(&m, unl.family, 0, objs[obj].set);
		put_str(&m, VRNIC_ATTR_DEV_NAME, DEV);
		nest_start(&m, objs[obj].nest);
		if (obj == 0)
			put_u32(&m, VRNIC_LIMITS_ATTR_MAX_QP, 7);
		else if (obj == 1)
			put_u8(&m, VRNIC_QOS_ATTR_TRUST, VRNIC_TRUST_DSCP);
		else
			put_u32(&m, VRNIC_DCQCN_ATTR_RPG_GD, 7);
		nest_end(&m);
		err = nl_xfer(&unl, &m, NULL, NULL);
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

static void dev_dump_reply(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1];
	struct dev_dump *d = arg;
	const char *name;

	parse_msg(tb, VRNIC_ATTR_MAX, nlh);
	if (!tb[VRNIC_ATTR_DEV_NAME] || !tb[d->nest] ||
	    ((struct genlmsghdr *)NLMSG_DATA(nlh))->cmd != d->cmd) {
		d->ok = false;
		return;
	}
	name = nla_data_(tb[VRNIC_ATTR_DEV_NAME]);
	if (!strcmp(name, DEV))
		d->seen[0]++;
	else if (!strcmp(name, DEV2))
		d->seen[1]++;
	else
		d->other++;
}

TEST_F_TIMEOUT(vrnic, object_dumps_list_each_device_once, 180)
{
	static const struct { uint8_t cmd; int nest; } dumps[] = {
		{ VRNIC_CMD_LIMITS_GET, VRNIC_ATTR_LIMITS },
		{ VRNIC_CMD_QOS_GET, VRNIC_ATTR_QOS },
		{ VRNIC_CMD_DCQCN_GET, VRNIC_ATTR_DCQCN },
	};
	struct dev_dump d;
	struct msg m;
	unsigned int i;

	del_dev(DEV2, NETDEV2);
	ASSERT_EQ(0, add_dev(DEV2, NETDEV2));
	for (i = 0; i < ARRAY_SIZE(dumps); i++) {
		memset(&d, 0, sizeof(d));
		d.ok = true;
		d.cmd = dumps[i].cmd;
		d.nest = dumps[i].nest;
		msg_init(&m, self->nl.family, NLM_F_DUMP, dumps[i].cmd);
		EXPECT_EQ(0, nl_xfer(&self->nl, &m, dev_dump_reply, &d));
		EXPECT_TRUE(d.ok);
		EXPECT_EQ(1, d.seen[0]) TH_LOG("cmd %d", dumps[i].cmd);
		EXPECT_EQ(1, d.seen[1]) TH_LOG("cmd %d", dumps[i].cmd);

		/* Filtered by name: only that device. */
		memset(&d, 0, sizeof(d));
		d.ok = true;
		d.cmd = dumps[i].cmd;
		d.nest = dumps[i].nest;
		msg_init(&m, self->nl.family, NLM_F_DUMP, dumps[i].cmd);
		put_str(&m, VRNIC_ATTR_DEV_NAME, DEV2);
		EXPECT_EQ(0, nl_xfer(&self->nl, &m, dev_dump_reply, &d));
		EXPECT_EQ(0, d.seen[0]);
		EXPECT_EQ(1, d.seen[1]);
		EXPECT_EQ(0, d.other);
	}

	msg_init(&m, self->nl.family, NLM_F_DUMP, VRNIC_CMD_LIMITS_GET);
	put_str(&m, VRNIC_ATTR_DEV_NAME, "nosuchdev0");
	EXPECT_EQ(-ENODEV, nl_xfer(&self->nl, &m, NULL, NULL));
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

static void qp_seen_reply(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1];
	struct qp_seen *d = arg;
	uint32_t qpn;
	int i;

	parse_msg(tb, VRNIC_ATTR_MAX, nlh);
	if (!tb[VRNIC_ATTR_QPN] || !tb[VRNIC_ATTR_COUNTERS] ||
	    !tb[VRNIC_ATTR_DEV_NAME] ||
	    strcmp(nla_data_(tb[VRNIC_ATTR_DEV_NAME]), DEV)) {
		d->bad++;
		return;
	}
	qpn = get_u32(tb[VRNIC_ATTR_QPN]);
	if (d->count++ && qpn <= d->last)
		d->unordered++;
	d->last = qpn;
	for (i = 0; i < DUMP_QPS; i++)
		if (d->qpn[i] == qpn)
			d->times[i]++;
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
	struct nl small;
	int i, n, once;
	struct msg m;

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
	ASSERT_EQ(0, nl_open_rcvlen(&small, 4096));
	msg_init(&m, small.family, NLM_F_DUMP, VRNIC_CMD_QP_STATS_GET);
	put_str(&m, VRNIC_ATTR_DEV_NAME, DEV);
	ASSERT_EQ(0, nl_xfer(&small, &m, qp_seen_reply, &d))
		TH_LOG("extack: %s", small.extack);
	TH_LOG("%d QPs dumped in %d reads", d.count, small.reads);
	EXPECT_GE(small.reads, 3) TH_LOG("the dump never had to resume");
	nl_close(&small);
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
	struct nl nl;
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
	ASSERT_EQ(0, nl_open(&self->nl));
	ASSERT_EQ(0, restore(&self->nl)) TH_LOG("%s", self->nl.extack);
}

FIXTURE_TEARDOWN(reject)
{
	nl_close(&self->nl);
}

static uint32_t put_val(struct msg *m, int type, enum val_type vt, uint64_t v)
{
	switch (vt) {
	case U8:
		return put_u8(m, type, v);
	case U32:
		return put_u32(m, type, v);
	case U64:
		return put_u64(m, type, v);
	}
	return 0;
}

TEST_F(reject, set_fails_at_the_attribute_and_changes_nothing)
{
	struct snapshot before, after;
	uint32_t bad_off, entry_off = 0;
	struct msg m;
	int err;

	ASSERT_EQ(0, snapshot(&self->nl, DEV, &before));

	msg_init(&m, self->nl.family, 0, variant->cmd);
	put_str(&m, VRNIC_ATTR_DEV_NAME, DEV);
	nest_start(&m, variant->nest);
	put_val(&m, variant->ok_attr, variant->ok_vt, variant->ok_val);
	if (variant->map) {
		nest_start(&m, variant->map);
		if (variant->repeat)
			put_map_entry(&m, variant->bad.type, variant->bad.val,
				      variant->bad2.type, variant->bad2.val);
		entry_off = nest_start(&m, VRNIC_ENTRY);
		bad_off = put_val(&m, variant->bad.type, U8, variant->bad.val);
		if (variant->bad2.type)
			put_val(&m, variant->bad2.type, U8, variant->bad2.val);
		nest_end(&m);
		nest_end(&m);
	} else {
		bad_off = put_val(&m, variant->bad.type, variant->bad.vt,
				  variant->bad.val);
	}
	nest_end(&m);

	err = nl_xfer(&self->nl, &m, NULL, NULL);
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

static void __attribute__((constructor)) order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}

int main(int argc, char **argv)
{
	struct nl nl = { .fd = -1 };
	int ret, err;

	if (!getuid()) {
		del_dev(DEV, NETDEV);
		if (add_dev(DEV, NETDEV)) {
			snprintf(no_dev_reason, sizeof(no_dev_reason),
				 "cannot create %s (is vrnic.ko loaded?)", DEV);
		} else if ((err = nl_open(&nl)) || (err = snapshot(&nl, DEV, &fresh))) {
			snprintf(no_dev_reason, sizeof(no_dev_reason),
				 "vrnic family: %s", strerror(-err));
		} else {
			have_dev = true;
		}
		nl_close(&nl);
	}
	ret = test_harness_run(argc, argv);
	if (!getuid()) {
		del_dev(DEV, NETDEV);
		vrnic_sh("ip netns del " NS " 2>/dev/null");
	}
	return ret;
}
