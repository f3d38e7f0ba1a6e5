/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic_nl.h - the C tests' client of the "vrnic" generic netlink family,
 * over libnl-3 and libnl-genl-3.
 *
 * Requests are libnl messages (vnl_msg(), then nla_put_*()); vnl_xfer()
 * sends one and collects the whole answer: replies go to a callback, and
 * the kernel's verdict comes back as 0 or -errno with everything the
 * extended ACK said (message, offending attribute, missing attribute,
 * policy range) in struct vnl, so that tests can check the kernel's
 * explanation and not just the errno.
 */
#ifndef VRNIC_NL_H
#define VRNIC_NL_H

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <vrnic.h>

struct vnl {
	struct nl_sock *sk;
	int family;		/* the vrnic family's id */
	uint32_t mcgrp;		/* its "config" group, 0 if it has none */
	/*
	 * The answer to the last vnl_xfer(): the kernel's extack message
	 * ("" if none; "libnl: <reason>" when the exchange itself failed),
	 * and the extack attributes:
	 */
	char extack[256];
	uint32_t extack_off;	/* NLMSGERR_ATTR_OFFS, 0 if none */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE, -1 if none */
	uint32_t miss_nest;	/* NLMSGERR_ATTR_MISS_NEST, 0 if none */
	bool policy;		/* NLMSGERR_ATTR_POLICY came, with: */
	uint64_t pol_min;	/* NL_POLICY_TYPE_ATTR_MIN_VALUE_U */
	uint64_t pol_max;	/* NL_POLICY_TYPE_ATTR_MAX_VALUE_U */
	int reads;		/* datagrams it took */
	/* vnl_xfer()'s own: */
	bool done;		/* the ACK, error or NLMSG_DONE came */
	int err;		/* its errno, negative */
};

/*
 * Datagrams read, for vnl.reads: libnl's receive hook gets no argument of
 * ours to count in, so the count is global (the tests are not threaded).
 */
static unsigned int vnl_datagrams;

static inline int vnl_recv(struct nl_sock *sk, struct sockaddr_nl *sa,
			   unsigned char **buf, struct ucred **creds)
{
	int n = nl_recv(sk, sa, buf, creds);

	if (n > 0)
		vnl_datagrams++;
	return n;
}

static inline void vnl_close(struct vnl *nl)
{
	nl_socket_free(nl->sk);
	nl->sk = NULL;
}

/*
 * Open a generic netlink socket with extended ACKs and resolve the vrnic
 * family and its group.  @bufsize 0 lets libnl size every read to the
 * datagram; otherwise every read is @bufsize bytes, and a larger datagram
 * fails the exchange.  Small reads keep the kernel's dump batches small,
 * so that a dump of a moderate table has to resume several times: it
 * sizes them after the largest read of the socket so far, which is why
 * the size is set before the family is resolved.
 * Return: 0, or a negative libnl error code (nl_geterror()).
 */
static inline int vnl_open(struct vnl *nl, size_t bufsize)
{
	int one = 1, grp, err;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk)
		return -NLE_NOMEM;
	err = genl_connect(nl->sk);
	if (err)
		goto err_close;
	/* libnl 3.7 has no call for it */
	if (setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		       &one, sizeof(one))) {
		err = -nl_syserr2nlerr(errno);
		goto err_close;
	}
	if (bufsize) {
		nl_socket_set_msg_buf_size(nl->sk, bufsize);
		nl_socket_disable_msg_peek(nl->sk);
	}
	nl->family = genl_ctrl_resolve(nl->sk, VRNIC_GENL_NAME);
	if (nl->family < 0) {
		err = nl->family;
		goto err_close;
	}
	grp = genl_ctrl_resolve_grp(nl->sk, VRNIC_GENL_NAME,
				    VRNIC_GENL_MCGRP_CONFIG);
	nl->mcgrp = grp < 0 ? 0 : grp;
	return 0;

err_close:
	vnl_close(nl);
	return err;
}

/*
 * A request of generic netlink family @family; vnl_xfer() adds
 * NLM_F_REQUEST and NLM_F_ACK to @flags.  Tests have no use for a partly
 * built request: out of memory aborts.  Free it with nlmsg_free().
 */
static inline struct nl_msg *vnl_genl_msg(int family, uint8_t version,
					  int flags, uint8_t cmd)
{
	struct nl_msg *m = nlmsg_alloc_size(8192);

	if (!m || !genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, flags,
			       cmd, version))
		abort();
	return m;
}

/* A request of the vrnic family. */
static inline struct nl_msg *vnl_msg(struct vnl *nl, int flags, uint8_t cmd)
{
	return vnl_genl_msg(nl->family, VRNIC_GENL_VERSION, flags, cmd);
}

/*
 * Where the next attribute put in @m starts, counted as
 * NLMSGERR_ATTR_OFFS counts: from the request's netlink header.
 */
static inline uint32_t vnl_tail(struct nl_msg *m)
{
	struct nlmsghdr *nlh = nlmsg_hdr(m);

	return (char *)nlmsg_tail(nlh) - (char *)nlh;
}

/*
 * The attributes of generic netlink message @nlh indexed by type, later
 * duplicates winning; none if it is too short to have any.
 */
static inline void vnl_parse(struct nlattr **tb, int max,
			     struct nlmsghdr *nlh)
{
	if (genlmsg_parse(nlh, 0, tb, max, NULL))
		memset(tb, 0, sizeof(*tb) * (max + 1));
}

/* The extack TLVs of the error or NLMSG_DONE @nlh, found at @tlvs. */
static inline void vnl_read_ack_tlvs(struct vnl *nl, struct nlmsghdr *nlh,
				     void *tlvs)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	struct nlattr *ptb[NL_POLICY_TYPE_ATTR_MAX + 1];
	int len = (char *)nlh + nlh->nlmsg_len - (char *)tlvs;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || len <= 0 ||
	    nla_parse(tb, NLMSGERR_ATTR_MAX, tlvs, len, NULL))
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		nla_strlcpy(nl->extack, tb[NLMSGERR_ATTR_MSG],
			    sizeof(nl->extack));
	if (tb[NLMSGERR_ATTR_OFFS])
		nl->extack_off = nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);
	if (tb[NLMSGERR_ATTR_MISS_TYPE])
		nl->miss_type = nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
	if (tb[NLMSGERR_ATTR_MISS_NEST])
		nl->miss_nest = nla_get_u32(tb[NLMSGERR_ATTR_MISS_NEST]);
	if (!tb[NLMSGERR_ATTR_POLICY] ||
	    nla_parse_nested(ptb, NL_POLICY_TYPE_ATTR_MAX,
			     tb[NLMSGERR_ATTR_POLICY], NULL))
		return;
	/* the range of the policy entry the kernel blamed */
	nl->policy = true;
	if (ptb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U])
		nl->pol_min = nla_get_u64(ptb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U]);
	if (ptb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U])
		nl->pol_max = nla_get_u64(ptb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U]);
}

/* NLMSG_ERROR, an error or (error 0) the ACK. */
static inline void vnl_end_error(struct vnl *nl, struct nlmsghdr *nlh)
{
	struct nlmsgerr *e = nlmsg_data(nlh);
	size_t off = sizeof(*e);

	/* The TLVs follow the whole request unless the kernel capped it. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off = NLMSG_ALIGN(sizeof(e->error) + e->msg.nlmsg_len);
	vnl_read_ack_tlvs(nl, nlh, (char *)e + off);
	nl->err = e->error;
	nl->done = true;
}

static inline int vnl_on_ack(struct nl_msg *msg, void *arg)
{
	vnl_end_error(arg, nlmsg_hdr(msg));
	return NL_STOP;
}

static inline int vnl_on_err(struct sockaddr_nl *sa, struct nlmsgerr *e,
			     void *arg)
{
	/*
	 * libnl hands over nlmsg_data() of the message in its receive
	 * buffer: the header, with the flags and length the TLVs need,
	 * is right before it.
	 */
	vnl_end_error(arg, (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN));
	return NL_STOP;
}

/* NLMSG_DONE: the end of a dump, with its errno and extack. */
static inline int vnl_on_done(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct vnl *nl = arg;
	int *err = nlmsg_data(nlh);

	if (nlmsg_datalen(nlh) >= (int)sizeof(*err)) {
		nl->err = *err;
		vnl_read_ack_tlvs(nl, nlh, err + 1);
	}
	nl->done = true;
	return NL_STOP;
}

/*
 * Send @m and collect the whole answer (a dump is not ACKed, its
 * NLMSG_DONE ends it): replies go to @fn (NULL: dropped), nl->extack and
 * the other extack fields say what the kernel explained.
 * Return: the kernel's verdict, 0 or -errno; -EPROTO when the exchange
 * itself failed (nl->extack then says why).
 */
static inline int vnl_xfer(struct vnl *nl, struct nl_msg *m,
			   nl_recvmsg_msg_cb_t fn, void *arg)
{
	unsigned int datagrams = vnl_datagrams;
	struct nl_cb *cb;
	int err;

	nl->extack[0] = '\0';
	nl->extack_off = 0;
	nl->miss_type = -1;
	nl->miss_nest = 0;
	nl->policy = false;
	nl->pol_min = 0;
	nl->pol_max = 0;
	nl->done = false;
	nl->err = 0;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return -ENOMEM;
	nl_cb_overwrite_recv(cb, vnl_recv);
	if (fn)
		nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, fn, arg);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, vnl_on_ack, nl);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, vnl_on_done, nl);
	nl_cb_err(cb, NL_CB_CUSTOM, vnl_on_err, nl);

	/* A request sent again gets a sequence number of its own. */
	nlmsg_hdr(m)->nlmsg_seq = NL_AUTO_SEQ;
	err = nl_send_auto(nl->sk, m);
	/* nl_recvmsgs() returns after each datagram not part of a dump */
	while (err >= 0 && !nl->done)
		err = nl_recvmsgs(nl->sk, cb);
	nl_cb_put(cb);
	nl->reads = vnl_datagrams - datagrams;
	if (nl->done)
		return nl->err;
	snprintf(nl->extack, sizeof(nl->extack), "libnl: %s",
		 nl_geterror(err));
	return -EPROTO;
}

struct vnl_limit_reply {
	int attr;
	uint32_t *val;
	bool found;
};

static inline int vnl_limit_reply(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[VRNIC_ATTR_MAX + 1], *lt[VRNIC_LIMITS_ATTR_MAX + 1];
	struct vnl_limit_reply *r = arg;

	vnl_parse(tb, VRNIC_ATTR_MAX, nlmsg_hdr(msg));
	if (!tb[VRNIC_ATTR_LIMITS] ||
	    nla_parse_nested(lt, VRNIC_LIMITS_ATTR_MAX, tb[VRNIC_ATTR_LIMITS],
			     NULL) || !lt[r->attr])
		return NL_OK;
	*r->val = nla_get_u32(lt[r->attr]);
	r->found = true;
	return NL_OK;
}

/*
 * Read (LIMITS_GET) or set (LIMITS_SET) the u32 limit @attr of device
 * @dev, on a socket of its own.
 * Return: 0, -errno of the kernel's refusal, -ENOENT when the answer has
 * no such limit, or a negative libnl code.
 */
static inline int vnl_limit(const char *dev, uint8_t cmd, int attr,
			    uint32_t *val)
{
	struct vnl_limit_reply r = { .attr = attr, .val = val };
	bool set = cmd == VRNIC_CMD_LIMITS_SET;
	struct nlattr *nest;
	struct nl_msg *m;
	struct vnl nl;
	int err;

	err = vnl_open(&nl, 0);
	if (err)
		return err;
	m = vnl_msg(&nl, 0, cmd);
	nla_put_string(m, VRNIC_ATTR_DEV_NAME, dev);
	if (set) {
		nest = nla_nest_start(m, VRNIC_ATTR_LIMITS);
		nla_put_u32(m, attr, *val);
		nla_nest_end(m, nest);
	}
	err = vnl_xfer(&nl, m, set ? NULL : vnl_limit_reply, &r);
	nlmsg_free(m);
	vnl_close(&nl);
	if (!err && !set && !r.found)
		err = -ENOENT;
	return err;
}

static inline int vnl_set_limit(const char *dev, int attr, uint32_t val)
{
	return vnl_limit(dev, VRNIC_CMD_LIMITS_SET, attr, &val);
}

static inline int vnl_get_limit(const char *dev, int attr, uint32_t *val)
{
	return vnl_limit(dev, VRNIC_CMD_LIMITS_GET, attr, val);
}

static inline int vnl_any_seq(struct nl_msg *msg, void *arg)
{
	return NL_OK;
}

/*
 * Wait up to @ms for a notification on a socket that only listens (it
 * joined a group with nl_socket_add_membership()); it goes to @fn.
 * Return: 0, -ETIMEDOUT if none came, -EPROTO if it could not be read.
 */
static inline int vnl_wait_ntf(struct vnl *nl, int ms,
			       nl_recvmsg_msg_cb_t fn, void *arg)
{
	struct pollfd p = { .fd = nl_socket_get_fd(nl->sk), .events = POLLIN };
	struct nl_cb *cb;
	int err;

	if (poll(&p, 1, ms) <= 0)
		return -ETIMEDOUT;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return -ENOMEM;
	/* notifications answer no request: sequence number 0 */
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, vnl_any_seq, NULL);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, fn, arg);
	err = nl_recvmsgs(nl->sk, cb);
	nl_cb_put(cb);
	return err < 0 ? -EPROTO : 0;
}

#endif /* VRNIC_NL_H */
