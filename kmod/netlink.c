// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: the "vrnic" generic netlink family (uapi/vrnic.h, docs/netlink.md).
 *
 * Value ranges live in the policies below, nests included, and the
 * genetlink core checks them and explains a rejection itself.  Rules the
 * policies cannot express are checked by one precheck function per
 * object, on the merged result, before anything changes.
 *
 * Visibility: a device is visible to a caller exactly when "rdma dev" in
 * the caller's network namespace shows it (rdma_dev_access_netns(): every
 * namespace in shared mode, the device's own in exclusive mode).
 * Notifications go to the device's RDMA namespace (init_net in shared mode).
 */

#include <linux/slab.h>
#include <net/genetlink.h>

#include "vrnic.h"
#include "config.h"

static struct genl_family vrnic_genl_family;

enum vrnic_mcgrp {
	VRNIC_MCGRP_CONFIG_IDX,
};

static const struct genl_multicast_group vrnic_mcgrps[] = {
	[VRNIC_MCGRP_CONFIG_IDX] = { .name = VRNIC_GENL_MCGRP_CONFIG },
};

/* ---- Policies ---- */

/*
 * Each value range is written once, here, from the constants of
 * uapi/vrnic.h: the core checks it when the request arrives (strictly,
 * nests included), rejects it with -ERANGE and an extack that points at
 * the attribute and carries this policy entry (NLMSGERR_ATTR_POLICY), and
 * reports it to CTRL_CMD_GETPOLICY.
 */
#define VRNIC_RANGE(var, lo, hi)					\
	static struct netlink_range_validation var = {		\
		.min = (lo), .max = (hi),				\
	}

VRNIC_RANGE(vrnic_range_max_qp, 1, VRNIC_CAP_MAX_QP);
VRNIC_RANGE(vrnic_range_max_cq, 1, VRNIC_CAP_MAX_CQ);
VRNIC_RANGE(vrnic_range_max_mr, 1, VRNIC_CAP_MAX_MR);
VRNIC_RANGE(vrnic_range_max_pd, 1, VRNIC_CAP_MAX_PD);
VRNIC_RANGE(vrnic_range_max_srq, 1, VRNIC_CAP_MAX_SRQ);
VRNIC_RANGE(vrnic_range_max_ah, 1, VRNIC_CAP_MAX_AH);
VRNIC_RANGE(vrnic_range_max_qp_wr, 1, VRNIC_CAP_MAX_QP_WR);
VRNIC_RANGE(vrnic_range_max_cqe, 1, VRNIC_CAP_MAX_CQE);
VRNIC_RANGE(vrnic_range_max_mr_size, VRNIC_MIN_MAX_MR_SIZE, U64_MAX);
VRNIC_RANGE(vrnic_range_time, 1, VRNIC_DCQCN_TIME_MAX);
VRNIC_RANGE(vrnic_range_time0, 0, VRNIC_DCQCN_TIME_MAX);
VRNIC_RANGE(vrnic_range_rate, 1, VRNIC_DCQCN_RATE_MAX);
VRNIC_RANGE(vrnic_range_rate0, 0, VRNIC_DCQCN_RATE_MAX);

static const struct nla_policy vrnic_limits_policy[VRNIC_LIMITS_ATTR_MAX + 1] = {
	[VRNIC_LIMITS_ATTR_MAX_QP] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_max_qp),
	[VRNIC_LIMITS_ATTR_MAX_CQ] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_max_cq),
	[VRNIC_LIMITS_ATTR_MAX_MR] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_max_mr),
	[VRNIC_LIMITS_ATTR_MAX_PD] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_max_pd),
	[VRNIC_LIMITS_ATTR_MAX_SRQ] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_max_srq),
	[VRNIC_LIMITS_ATTR_MAX_AH] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_max_ah),
	[VRNIC_LIMITS_ATTR_MAX_QP_WR] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_max_qp_wr),
	[VRNIC_LIMITS_ATTR_MAX_CQE] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_max_cqe),
	[VRNIC_LIMITS_ATTR_MAX_SGE] =
		NLA_POLICY_RANGE(NLA_U32, 1, VRNIC_CAP_MAX_SGE),
	[VRNIC_LIMITS_ATTR_MAX_INLINE_DATA] =
		NLA_POLICY_MAX(NLA_U32, VRNIC_CAP_MAX_INLINE_DATA),
	[VRNIC_LIMITS_ATTR_MAX_MR_SIZE] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &vrnic_range_max_mr_size),
	[VRNIC_LIMITS_ATTR_MAX_QP_RD_ATOM] =
		NLA_POLICY_RANGE(NLA_U32, 1, VRNIC_CAP_MAX_QP_RD_ATOM),
};

static const struct nla_policy vrnic_dscp_map_policy[VRNIC_DSCP_MAP_ATTR_MAX + 1] = {
	[VRNIC_DSCP_MAP_ATTR_DSCP] = NLA_POLICY_MAX(NLA_U8, VRNIC_NUM_DSCP - 1),
	[VRNIC_DSCP_MAP_ATTR_PRIO] = NLA_POLICY_MAX(NLA_U8, VRNIC_NUM_PRIO - 1),
};

#define VRNIC_PRIO2TC_REMOVED \
	"prio2tc removed: the netdev maps priorities to traffic classes"

/*
 * PRIO2TC was an array nest.  A bare NLA_REJECT would fail a nest sent
 * with NLA_F_NESTED (as every client sent it) as "NLA_F_NESTED not
 * expected" before reaching the reject: so it stays an array whose every
 * member attribute is rejected with the reason, and the handler rejects
 * an empty one (vrnic_qos_precheck()).
 */
static const struct nla_policy vrnic_tc_map_policy[VRNIC_TC_MAP_ATTR_MAX + 1] = {
	[VRNIC_TC_MAP_ATTR_PRIO] = {
		.type = NLA_REJECT,
		.reject_message = VRNIC_PRIO2TC_REMOVED,
	},
	[VRNIC_TC_MAP_ATTR_TC] = {
		.type = NLA_REJECT,
		.reject_message = VRNIC_PRIO2TC_REMOVED,
	},
};

static const struct nla_policy vrnic_qos_policy[VRNIC_QOS_ATTR_MAX + 1] = {
	[VRNIC_QOS_ATTR_TRUST] = NLA_POLICY_MAX(NLA_U8, VRNIC_TRUST_MAX),
	[VRNIC_QOS_ATTR_DSCP2PRIO] =
		NLA_POLICY_NESTED_ARRAY(vrnic_dscp_map_policy),
	[VRNIC_QOS_ATTR_PRIO2TC] = NLA_POLICY_NESTED_ARRAY(vrnic_tc_map_policy),
	[VRNIC_QOS_ATTR_PFC_EN] = { .type = NLA_U8 },
	[VRNIC_QOS_ATTR_ECN_EN] = { .type = NLA_U8 },
	[VRNIC_QOS_ATTR_TCLASS] = { .type = NLA_U8 },
	[VRNIC_QOS_ATTR_CNP_DSCP] = NLA_POLICY_MAX(NLA_U8, VRNIC_NUM_DSCP - 1),
	[VRNIC_QOS_ATTR_CNP_PRIO] = NLA_POLICY_MAX(NLA_U8, VRNIC_NUM_PRIO - 1),
};

static const struct nla_policy vrnic_dcqcn_policy[VRNIC_DCQCN_ATTR_MAX + 1] = {
	[VRNIC_DCQCN_ATTR_RPG_TIME_RESET] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_time),
	[VRNIC_DCQCN_ATTR_RPG_BYTE_RESET] = { .type = NLA_U32 },
	[VRNIC_DCQCN_ATTR_RPG_THRESHOLD] =
		NLA_POLICY_RANGE(NLA_U32, 1, VRNIC_DCQCN_THRESHOLD_MAX),
	[VRNIC_DCQCN_ATTR_RPG_MAX_RATE] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_rate0),
	[VRNIC_DCQCN_ATTR_RPG_AI_RATE] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_rate),
	[VRNIC_DCQCN_ATTR_RPG_HAI_RATE] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_rate),
	[VRNIC_DCQCN_ATTR_RPG_GD] = NLA_POLICY_MAX(NLA_U32, VRNIC_DCQCN_GD_MAX),
	[VRNIC_DCQCN_ATTR_RPG_MIN_DEC_FAC] =
		NLA_POLICY_RANGE(NLA_U32, 1, VRNIC_DCQCN_MIN_DEC_FAC_MAX),
	[VRNIC_DCQCN_ATTR_RPG_MIN_RATE] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_rate0),
	[VRNIC_DCQCN_ATTR_RATE_TO_SET_ON_FIRST_CNP] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_rate0),
	[VRNIC_DCQCN_ATTR_DCE_TCP_G] =
		NLA_POLICY_RANGE(NLA_U32, 1, VRNIC_DCQCN_ONE),
	[VRNIC_DCQCN_ATTR_DCE_TCP_RTT] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_time),
	[VRNIC_DCQCN_ATTR_RATE_REDUCE_MONITOR_PERIOD] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_time),
	[VRNIC_DCQCN_ATTR_INITIAL_ALPHA_VALUE] =
		NLA_POLICY_MAX(NLA_U32, VRNIC_DCQCN_ALPHA_MAX),
	[VRNIC_DCQCN_ATTR_MIN_TIME_BETWEEN_CNPS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vrnic_range_time0),
	[VRNIC_DCQCN_ATTR_CNP_DSCP] = NLA_POLICY_MAX(NLA_U8, VRNIC_NUM_DSCP - 1),
	[VRNIC_DCQCN_ATTR_CNP_802P_PRIO] =
		NLA_POLICY_MAX(NLA_U8, VRNIC_NUM_PRIO - 1),
	[VRNIC_DCQCN_ATTR_CLAMP_TGT_RATE] = NLA_POLICY_MAX(NLA_U8, 1),
	[VRNIC_DCQCN_ATTR_CLAMP_TGT_RATE_AFTER_TIME_INC] =
		NLA_POLICY_MAX(NLA_U8, 1),
};

/* Top level: GET requests name at most a device. */
static const struct nla_policy vrnic_get_policy[VRNIC_ATTR_MAX + 1] = {
	[VRNIC_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING },
};

static const struct nla_policy vrnic_qp_stats_policy[VRNIC_ATTR_MAX + 1] = {
	[VRNIC_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING },
	[VRNIC_ATTR_QPN] = { .type = NLA_U32 },
};

static const struct nla_policy vrnic_limits_set_policy[VRNIC_ATTR_MAX + 1] = {
	[VRNIC_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING },
	[VRNIC_ATTR_LIMITS] = NLA_POLICY_NESTED(vrnic_limits_policy),
};

static const struct nla_policy vrnic_qos_set_policy[VRNIC_ATTR_MAX + 1] = {
	[VRNIC_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING },
	[VRNIC_ATTR_QOS] = NLA_POLICY_NESTED(vrnic_qos_policy),
};

static const struct nla_policy vrnic_dcqcn_set_policy[VRNIC_ATTR_MAX + 1] = {
	[VRNIC_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING },
	[VRNIC_ATTR_DCQCN] = NLA_POLICY_NESTED(vrnic_dcqcn_policy),
};

/* ---- Who may see what ---- */

/**
 * struct vrnic_viewer - on whose behalf a request runs
 * @net: the requesting socket's namespace
 * @uid: the effective uid the socket was opened with (as netlink_capable()
 *	judges the opener, not whichever task happens to read a dump)
 * @admin: CAP_NET_ADMIN in the initial user namespace
 *
 * Reads are open to every user, but an unprivileged one sees only the
 * devices of its own namespace and only its own QPs: QP numbers and
 * counters are what a packet injector needs to aim at a live QP.
 */
struct vrnic_viewer {
	struct net *net;
	kuid_t uid;
	bool admin;
};

static struct vrnic_viewer vrnic_viewer(struct sk_buff *skb)
{
	struct sock *sk = NETLINK_CB(skb).sk;

	return (struct vrnic_viewer) {
		.net = sock_net(sk),
		.uid = sk->sk_socket->file->f_cred->euid,
		.admin = netlink_capable(skb, CAP_NET_ADMIN),
	};
}

/*
 * A device is visible where ib_core lets the namespace see it (the RDMA
 * subsystem's netns mode) and, for an unprivileged viewer, only in the
 * namespace the device lives in: its netdev's, or the one an administrator
 * moved it to.  ib_core keeps every device in init_net in shared mode and
 * moves one only in exclusive mode (rdma dev set DEV netns NS), where NS
 * is then the only namespace that sees it at all.
 */
static bool vrnic_dev_visible(struct vrnic_dev *vdev,
			      const struct vrnic_viewer *who)
{
	struct net *rdma_net = read_pnet(&vdev->ibdev.coredev.rdma_net);

	if (!rdma_dev_access_netns(&vdev->ibdev, who->net))
		return false;
	return who->admin || net_eq(vrnic_dev_net(vdev), who->net) ||
	       (!net_eq(rdma_net, &init_net) && net_eq(rdma_net, who->net));
}

/* ---- Devices ---- */

static struct vrnic_dev *vrnic_genl_dev(const struct vrnic_viewer *who,
					const struct nlattr *attr,
					struct netlink_ext_ack *extack)
{
	const char *name = nla_data(attr);
	struct ib_device *ibdev;
	struct vrnic_dev *vdev;
	bool visible;

	vdev = vrnic_dev_get_by_name(name);
	if (vdev) {
		if (vrnic_dev_visible(vdev, who))
			return vdev;
		vrnic_dev_put(vdev);
	} else {
		ibdev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
		if (ibdev) {
			visible = rdma_dev_access_netns(ibdev, who->net);
			ib_device_put(ibdev);
			if (visible) {
				NL_SET_ERR_MSG_ATTR(extack, attr,
						    "device is not a vrnic device");
				return ERR_PTR(-ENODEV);
			}
		}
	}
	NL_SET_ERR_MSG_ATTR(extack, attr, "no such device");
	return ERR_PTR(-ENODEV);
}

static struct vrnic_dev *vrnic_info_dev(struct sk_buff *skb,
					struct genl_info *info)
{
	struct vrnic_viewer who = vrnic_viewer(skb);

	if (GENL_REQ_ATTR_CHECK(info, VRNIC_ATTR_DEV_NAME))
		return ERR_PTR(-EINVAL);
	return vrnic_genl_dev(&who, info->attrs[VRNIC_ATTR_DEV_NAME],
			      info->extack);
}

/*
 * Dump state in cb->ctx: the next device (by RDMA device index, which
 * never repeats while a device lives) and the next QPN in it, so that a
 * dump resumes correctly when devices and QPs come and go.
 */
struct vrnic_dump_ctx {
	struct vrnic_viewer who;
	u32 dev_index;
	u32 pos;
	u32 filter_index;
	bool filter;
	bool started;
};

static struct vrnic_dump_ctx *vrnic_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct vrnic_dump_ctx) > sizeof(cb->ctx));
	return (struct vrnic_dump_ctx *)cb->ctx;
}

/*
 * Restrict a dump to the device named in the request, if any.  Done by
 * the first dumpit call rather than a .start callback: in 6.1 only dumpit
 * has an extack, and a bad name deserves its message.
 */
static int vrnic_dump_filter(struct netlink_callback *cb,
			     struct vrnic_dump_ctx *ctx)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	const struct nlattr *name = info->attrs[VRNIC_ATTR_DEV_NAME];
	struct vrnic_dev *vdev;

	if (!name)
		return 0;
	vdev = vrnic_genl_dev(&ctx->who, name, cb->extack);
	if (IS_ERR(vdev))
		return PTR_ERR(vdev);
	ctx->filter = true;
	ctx->filter_index = vdev->ibdev.index;
	vrnic_dev_put(vdev);
	return 0;
}

/* The visible device with the lowest index >= ctx->dev_index, held. */
static struct vrnic_dev *vrnic_dump_next_dev(struct vrnic_dump_ctx *ctx)
{
	struct vrnic_dev *vdev, *best = NULL;

	mutex_lock(&vrnic_dev_mutex);
	list_for_each_entry(vdev, &vrnic_dev_list, list) {
		u32 index = vdev->ibdev.index;

		if (index < ctx->dev_index ||
		    (ctx->filter && index != ctx->filter_index) ||
		    (best && index > best->ibdev.index))
			continue;
		if (!vrnic_dev_visible(vdev, &ctx->who))
			continue;
		if (!ib_device_try_get(&vdev->ibdev))
			continue;
		if (best)
			vrnic_dev_put(best);
		best = vdev;
	}
	mutex_unlock(&vrnic_dev_mutex);
	return best;
}

typedef int (*vrnic_dump_dev_fn)(struct sk_buff *skb,
				 struct netlink_callback *cb,
				 struct vrnic_dev *vdev,
				 struct vrnic_dump_ctx *ctx);

/*
 * Walk the visible devices from where the previous call stopped.  @fn
 * returns -EMSGSIZE when @skb is full, leaving ctx->pos at what it could
 * not add.
 */
static int vrnic_dump_devs(struct sk_buff *skb, struct netlink_callback *cb,
			   vrnic_dump_dev_fn fn)
{
	struct vrnic_dump_ctx *ctx = vrnic_dump_ctx(cb);
	struct vrnic_dev *vdev;
	u32 index;
	int err;

	if (!ctx->started) {
		ctx->who = vrnic_viewer(cb->skb);
		err = vrnic_dump_filter(cb, ctx);
		if (err)
			return err;
		ctx->started = true;
	}
	while ((vdev = vrnic_dump_next_dev(ctx))) {
		index = vdev->ibdev.index;
		if (index != ctx->dev_index) {
			ctx->dev_index = index;
			ctx->pos = 0;
		}
		err = fn(skb, cb, vdev, ctx);
		vrnic_dev_put(vdev);
		if (err == -EMSGSIZE && skb->len)
			return skb->len;
		if (err)
			return err;
		ctx->dev_index = index + 1;
		ctx->pos = 0;
	}
	return skb->len;
}

/* ---- Objects: fill ---- */

static int vrnic_put_dev(struct sk_buff *skb, struct vrnic_dev *vdev)
{
	if (nla_put_string(skb, VRNIC_ATTR_DEV_NAME,
			   dev_name(&vdev->ibdev.dev)) ||
	    nla_put_u32(skb, VRNIC_ATTR_DEV_INDEX, vdev->ibdev.index))
		return -EMSGSIZE;
	return 0;
}

static int vrnic_limits_fill(struct sk_buff *skb, struct vrnic_dev *vdev)
{
	struct vrnic_limits l;
	struct nlattr *nest;

	vrnic_limits_read(vdev, &l);
	nest = nla_nest_start(skb, VRNIC_ATTR_LIMITS);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, VRNIC_LIMITS_ATTR_MAX_QP, l.max_qp) ||
	    nla_put_u32(skb, VRNIC_LIMITS_ATTR_MAX_CQ, l.max_cq) ||
	    nla_put_u32(skb, VRNIC_LIMITS_ATTR_MAX_MR, l.max_mr) ||
	    nla_put_u32(skb, VRNIC_LIMITS_ATTR_MAX_PD, l.max_pd) ||
	    nla_put_u32(skb, VRNIC_LIMITS_ATTR_MAX_SRQ, l.max_srq) ||
	    nla_put_u32(skb, VRNIC_LIMITS_ATTR_MAX_AH, l.max_ah) ||
	    nla_put_u32(skb, VRNIC_LIMITS_ATTR_MAX_QP_WR, l.max_qp_wr) ||
	    nla_put_u32(skb, VRNIC_LIMITS_ATTR_MAX_CQE, l.max_cqe) ||
	    nla_put_u32(skb, VRNIC_LIMITS_ATTR_MAX_SGE, l.max_sge) ||
	    nla_put_u32(skb, VRNIC_LIMITS_ATTR_MAX_INLINE_DATA,
			l.max_inline_data) ||
	    nla_put_u64_64bit(skb, VRNIC_LIMITS_ATTR_MAX_MR_SIZE,
			      l.max_mr_size, VRNIC_LIMITS_ATTR_PAD) ||
	    nla_put_u32(skb, VRNIC_LIMITS_ATTR_MAX_QP_RD_ATOM,
			l.max_qp_rd_atom))
		goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static void vrnic_config_read(struct vrnic_dev *vdev, struct vrnic_config *cfg)
{
	rcu_read_lock();
	*cfg = *rcu_dereference(vdev->cfg);
	rcu_read_unlock();
}

static int vrnic_put_map(struct sk_buff *skb, int type, const u8 *map,
			 int len, int key_type, int val_type)
{
	struct nlattr *nest, *entry;
	int i;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < len; i++) {
		entry = nla_nest_start(skb, VRNIC_ENTRY);
		if (!entry || nla_put_u8(skb, key_type, i) ||
		    nla_put_u8(skb, val_type, map[i]))
			goto err_cancel;
		nla_nest_end(skb, entry);
	}
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int vrnic_qos_fill(struct sk_buff *skb, struct vrnic_dev *vdev)
{
	struct vrnic_config cfg;
	struct nlattr *nest;

	vrnic_config_read(vdev, &cfg);
	nest = nla_nest_start(skb, VRNIC_ATTR_QOS);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, VRNIC_QOS_ATTR_TRUST, cfg.qos.trust) ||
	    vrnic_put_map(skb, VRNIC_QOS_ATTR_DSCP2PRIO, cfg.qos.dscp2prio,
			  VRNIC_NUM_DSCP, VRNIC_DSCP_MAP_ATTR_DSCP,
			  VRNIC_DSCP_MAP_ATTR_PRIO) ||
	    nla_put_u8(skb, VRNIC_QOS_ATTR_PFC_EN, cfg.qos.pfc_en) ||
	    nla_put_u8(skb, VRNIC_QOS_ATTR_ECN_EN, cfg.qos.ecn_en) ||
	    nla_put_u8(skb, VRNIC_QOS_ATTR_TCLASS, cfg.qos.tclass) ||
	    nla_put_u8(skb, VRNIC_QOS_ATTR_CNP_DSCP, cfg.dcqcn.cnp_dscp) ||
	    nla_put_u8(skb, VRNIC_QOS_ATTR_CNP_PRIO, cfg.dcqcn.cnp_802p_prio))
		goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int vrnic_dcqcn_fill(struct sk_buff *skb, struct vrnic_dev *vdev)
{
	const struct vrnic_dcqcn *d;
	struct vrnic_config cfg;
	struct nlattr *nest;

	vrnic_config_read(vdev, &cfg);
	d = &cfg.dcqcn;
	nest = nla_nest_start(skb, VRNIC_ATTR_DCQCN);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, VRNIC_DCQCN_ATTR_RPG_TIME_RESET,
			d->rpg_time_reset) ||
	    nla_put_u32(skb, VRNIC_DCQCN_ATTR_RPG_BYTE_RESET,
			d->rpg_byte_reset) ||
	    nla_put_u32(skb, VRNIC_DCQCN_ATTR_RPG_THRESHOLD, d->rpg_threshold) ||
	    nla_put_u32(skb, VRNIC_DCQCN_ATTR_RPG_MAX_RATE, d->rpg_max_rate) ||
	    nla_put_u32(skb, VRNIC_DCQCN_ATTR_RPG_AI_RATE, d->rpg_ai_rate) ||
	    nla_put_u32(skb, VRNIC_DCQCN_ATTR_RPG_HAI_RATE, d->rpg_hai_rate) ||
	    nla_put_u32(skb, VRNIC_DCQCN_ATTR_RPG_GD, d->rpg_gd) ||
	    nla_put_u32(skb, VRNIC_DCQCN_ATTR_RPG_MIN_DEC_FAC,
			d->rpg_min_dec_fac) ||
	    nla_put_u32(skb, VRNIC_DCQCN_ATTR_RPG_MIN_RATE, d->rpg_min_rate) ||
	    nla_put_u32(skb, VRNIC_DCQCN_ATTR_RATE_TO_SET_ON_FIRST_CNP,
			d->rate_to_set_on_first_cnp) ||
	    nla_put_u32(skb, VRNIC_DCQCN_ATTR_DCE_TCP_G, d->dce_tcp_g) ||
	    nla_put_u32(skb, VRNIC_DCQCN_ATTR_DCE_TCP_RTT, d->dce_tcp_rtt) ||
	    nla_put_u32(skb, VRNIC_DCQCN_ATTR_RATE_REDUCE_MONITOR_PERIOD,
			d->rate_reduce_monitor_period) ||
	    nla_put_u32(skb, VRNIC_DCQCN_ATTR_INITIAL_ALPHA_VALUE,
			d->initial_alpha_value) ||
	    nla_put_u32(skb, VRNIC_DCQCN_ATTR_MIN_TIME_BETWEEN_CNPS,
			d->min_time_between_cnps) ||
	    nla_put_u8(skb, VRNIC_DCQCN_ATTR_CNP_DSCP, d->cnp_dscp) ||
	    nla_put_u8(skb, VRNIC_DCQCN_ATTR_CNP_802P_PRIO, d->cnp_802p_prio) ||
	    nla_put_u8(skb, VRNIC_DCQCN_ATTR_CLAMP_TGT_RATE, d->clamp_tgt_rate) ||
	    nla_put_u8(skb, VRNIC_DCQCN_ATTR_CLAMP_TGT_RATE_AFTER_TIME_INC,
		       d->clamp_tgt_rate_after_time_inc))
		goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int vrnic_put_counter(struct sk_buff *skb, const char *name, u64 val)
{
	struct nlattr *entry;

	entry = nla_nest_start(skb, VRNIC_ENTRY);
	if (!entry)
		return -EMSGSIZE;
	if (nla_put_string(skb, VRNIC_COUNTER_ATTR_NAME, name) ||
	    nla_put_u64_64bit(skb, VRNIC_COUNTER_ATTR_VALUE, val,
			      VRNIC_COUNTER_ATTR_PAD)) {
		nla_nest_cancel(skb, entry);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, entry);
	return 0;
}

/* The objects that are one message per device. */
struct vrnic_object {
	u8 get_cmd;
	int (*fill)(struct sk_buff *skb, struct vrnic_dev *vdev);
};

static const struct vrnic_object vrnic_objects[] = {
	{ VRNIC_CMD_LIMITS_GET, vrnic_limits_fill },
	{ VRNIC_CMD_QOS_GET, vrnic_qos_fill },
	{ VRNIC_CMD_DCQCN_GET, vrnic_dcqcn_fill },
};

static const struct vrnic_object *vrnic_object(u8 cmd)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(vrnic_objects); i++)
		if (vrnic_objects[i].get_cmd == cmd)
			return &vrnic_objects[i];
	return NULL;
}

#define VRNIC_LIMITS_OBJ	(&vrnic_objects[0])
#define VRNIC_QOS_OBJ		(&vrnic_objects[1])
#define VRNIC_DCQCN_OBJ		(&vrnic_objects[2])

static int vrnic_obj_msg(struct sk_buff *skb, struct vrnic_dev *vdev,
			 const struct vrnic_object *obj, u8 cmd, u32 portid,
			 u32 seq, int flags)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &vrnic_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (vrnic_put_dev(skb, vdev) || obj->fill(skb, vdev)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* ---- Objects: GET ---- */

static int vrnic_obj_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct vrnic_object *obj = vrnic_object(info->genlhdr->cmd);
	struct vrnic_dev *vdev;
	struct sk_buff *msg;
	int err;

	if (WARN_ON_ONCE(!obj))
		return -EOPNOTSUPP;
	vdev = vrnic_info_dev(skb, info);
	if (IS_ERR(vdev))
		return PTR_ERR(vdev);

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto out_put;
	}
	err = vrnic_obj_msg(msg, vdev, obj, obj->get_cmd, info->snd_portid,
			    info->snd_seq, 0);
	if (err) {
		nlmsg_free(msg);
		goto out_put;
	}
	err = genlmsg_reply(msg, info);
out_put:
	vrnic_dev_put(vdev);
	return err;
}

static int vrnic_obj_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
			      struct vrnic_dev *vdev,
			      struct vrnic_dump_ctx *ctx)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	const struct vrnic_object *obj = vrnic_object(info->op.cmd);

	return vrnic_obj_msg(skb, vdev, obj, obj->get_cmd,
			     NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			     NLM_F_MULTI);
}

static int vrnic_obj_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);

	if (WARN_ON_ONCE(!vrnic_object(info->op.cmd)))
		return -EOPNOTSUPP;
	return vrnic_dump_devs(skb, cb, vrnic_obj_dump_dev);
}

/* ---- Per-QP counters ---- */

static int vrnic_qp_msg(struct sk_buff *skb, struct vrnic_dev *vdev, u32 qpn,
			const u64 *val, u32 portid, u32 seq, int flags)
{
	struct nlattr *nest;
	void *hdr;
	int i;

	hdr = genlmsg_put(skb, portid, seq, &vrnic_genl_family, flags,
			  VRNIC_CMD_QP_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (vrnic_put_dev(skb, vdev) || nla_put_u32(skb, VRNIC_ATTR_QPN, qpn))
		goto err_cancel;
	nest = nla_nest_start(skb, VRNIC_ATTR_COUNTERS);
	if (!nest)
		goto err_cancel;
	for (i = 0; i < VRNIC_QP_NUM_COUNTERS; i++)
		if (vrnic_put_counter(skb, vrnic_qp_counters[i].name, val[i]))
			goto err_cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int vrnic_qp_stats_doit(struct sk_buff *skb, struct genl_info *info)
{
	u64 val[VRNIC_QP_NUM_COUNTERS];
	struct vrnic_viewer who;
	struct vrnic_dev *vdev;
	struct sk_buff *msg;
	u32 want, qpn;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, VRNIC_ATTR_QPN))
		return -EINVAL;
	vdev = vrnic_info_dev(skb, info);
	if (IS_ERR(vdev))
		return PTR_ERR(vdev);

	want = nla_get_u32(info->attrs[VRNIC_ATTR_QPN]);
	qpn = want;
	who = vrnic_viewer(skb);
	err = vrnic_qp_counters_next(vdev, &qpn, who.admin ? NULL : &who.uid,
				     val);
	if (!err && qpn != want)
		err = -ENOENT;
	if (err) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[VRNIC_ATTR_QPN],
				    "no such qpn");
		goto out_put;
	}

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto out_put;
	}
	err = vrnic_qp_msg(msg, vdev, qpn, val, info->snd_portid,
			   info->snd_seq, 0);
	if (err) {
		nlmsg_free(msg);
		goto out_put;
	}
	err = genlmsg_reply(msg, info);
out_put:
	vrnic_dev_put(vdev);
	return err;
}

static int vrnic_qp_dump_dev(struct sk_buff *skb, struct netlink_callback *cb,
			     struct vrnic_dev *vdev,
			     struct vrnic_dump_ctx *ctx)
{
	u64 val[VRNIC_QP_NUM_COUNTERS];
	u32 qpn = ctx->pos;
	int err;

	const kuid_t *owner = ctx->who.admin ? NULL : &ctx->who.uid;

	while (!vrnic_qp_counters_next(vdev, &qpn, owner, val)) {
		ctx->pos = qpn;
		err = vrnic_qp_msg(skb, vdev, qpn, val,
				   NETLINK_CB(cb->skb).portid,
				   cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			return err;
		if (qpn == U32_MAX)
			break;
		qpn++;
	}
	return 0;
}

static int vrnic_qp_stats_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	return vrnic_dump_devs(skb, cb, vrnic_qp_dump_dev);
}

/* ---- Objects: SET ---- */

static void vrnic_notify(struct vrnic_dev *vdev, const struct vrnic_object *obj)
{
	struct net *net = read_pnet(&vdev->ibdev.coredev.rdma_net);
	struct sk_buff *msg;

	if (!genl_has_listeners(&vrnic_genl_family, net,
				VRNIC_MCGRP_CONFIG_IDX))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	if (vrnic_obj_msg(msg, vdev, obj, VRNIC_CMD_CONFIG_NTF, 0, 0, 0)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_multicast_netns(&vrnic_genl_family, net, msg, 0,
				VRNIC_MCGRP_CONFIG_IDX, GFP_KERNEL);
}

static void vrnic_get_u32(u32 *dst, struct nlattr **tb, int type)
{
	if (tb[type])
		*dst = nla_get_u32(tb[type]);
}

static void vrnic_get_u8(u8 *dst, struct nlattr **tb, int type)
{
	if (tb[type])
		*dst = nla_get_u8(tb[type]);
}

static int vrnic_limits_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[VRNIC_LIMITS_ATTR_MAX + 1];
	struct vrnic_limits old, new;
	struct vrnic_dev *vdev;
	bool changed;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, VRNIC_ATTR_LIMITS))
		return -EINVAL;
	vdev = vrnic_info_dev(skb, info);
	if (IS_ERR(vdev))
		return PTR_ERR(vdev);
	/* validated with the policy already, by the core */
	err = nla_parse_nested(tb, VRNIC_LIMITS_ATTR_MAX,
			       info->attrs[VRNIC_ATTR_LIMITS],
			       vrnic_limits_policy, info->extack);
	if (err)
		goto out_put;

	memset(&old, 0, sizeof(old));
	mutex_lock(&vdev->cfg_mutex);
	vrnic_limits_read(vdev, &old);
	memcpy(&new, &old, sizeof(new));
	vrnic_get_u32(&new.max_qp, tb, VRNIC_LIMITS_ATTR_MAX_QP);
	vrnic_get_u32(&new.max_cq, tb, VRNIC_LIMITS_ATTR_MAX_CQ);
	vrnic_get_u32(&new.max_mr, tb, VRNIC_LIMITS_ATTR_MAX_MR);
	vrnic_get_u32(&new.max_pd, tb, VRNIC_LIMITS_ATTR_MAX_PD);
	vrnic_get_u32(&new.max_srq, tb, VRNIC_LIMITS_ATTR_MAX_SRQ);
	vrnic_get_u32(&new.max_ah, tb, VRNIC_LIMITS_ATTR_MAX_AH);
	vrnic_get_u32(&new.max_qp_wr, tb, VRNIC_LIMITS_ATTR_MAX_QP_WR);
	vrnic_get_u32(&new.max_cqe, tb, VRNIC_LIMITS_ATTR_MAX_CQE);
	vrnic_get_u32(&new.max_sge, tb, VRNIC_LIMITS_ATTR_MAX_SGE);
	vrnic_get_u32(&new.max_inline_data, tb,
		      VRNIC_LIMITS_ATTR_MAX_INLINE_DATA);
	vrnic_get_u32(&new.max_qp_rd_atom, tb,
		      VRNIC_LIMITS_ATTR_MAX_QP_RD_ATOM);
	if (tb[VRNIC_LIMITS_ATTR_MAX_MR_SIZE])
		new.max_mr_size = nla_get_u64(tb[VRNIC_LIMITS_ATTR_MAX_MR_SIZE]);
	changed = memcmp(&old, &new, sizeof(new));
	if (changed)
		vrnic_limits_publish(vdev, &new);
	mutex_unlock(&vdev->cfg_mutex);

	if (changed)
		vrnic_notify(vdev, VRNIC_LIMITS_OBJ);
out_put:
	vrnic_dev_put(vdev);
	return err;
}

/**
 * struct vrnic_map_req - the map entries of one QoS SET request
 * @dscp_mask: bit N: the request maps DSCP N
 * @dscp2prio: the requested priority of each DSCP in @dscp_mask
 */
struct vrnic_map_req {
	u64 dscp_mask;
	u8 dscp2prio[VRNIC_NUM_DSCP];
};

/*
 * Entries were range-checked by the policy already; check what the policy
 * cannot express: both members present, no key twice, and no PRIO2TC at
 * all (an empty one passes the policy).
 */
static int vrnic_qos_precheck(struct nlattr **tb, struct vrnic_map_req *req,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *etb[VRNIC_DSCP_MAP_ATTR_MAX + 1];
	struct nlattr *entry;
	int rem, err;
	u8 key;

	memset(req, 0, sizeof(*req));
	if (tb[VRNIC_QOS_ATTR_PRIO2TC]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[VRNIC_QOS_ATTR_PRIO2TC],
				    VRNIC_PRIO2TC_REMOVED);
		return -EINVAL;
	}
	if (!tb[VRNIC_QOS_ATTR_DSCP2PRIO])
		return 0;
	nla_for_each_nested(entry, tb[VRNIC_QOS_ATTR_DSCP2PRIO], rem) {
		err = nla_parse_nested(etb, VRNIC_DSCP_MAP_ATTR_MAX, entry,
				       vrnic_dscp_map_policy, extack);
		if (err)
			return err;
		if (NL_REQ_ATTR_CHECK(extack, entry, etb,
				      VRNIC_DSCP_MAP_ATTR_DSCP) ||
		    NL_REQ_ATTR_CHECK(extack, entry, etb,
				      VRNIC_DSCP_MAP_ATTR_PRIO))
			return -EINVAL;
		key = nla_get_u8(etb[VRNIC_DSCP_MAP_ATTR_DSCP]);
		if (req->dscp_mask & BIT_ULL(key)) {
			NL_SET_ERR_MSG_ATTR(extack,
					    etb[VRNIC_DSCP_MAP_ATTR_DSCP],
					    "dscp2prio repeats a dscp");
			return -EINVAL;
		}
		req->dscp_mask |= BIT_ULL(key);
		req->dscp2prio[key] = nla_get_u8(etb[VRNIC_DSCP_MAP_ATTR_PRIO]);
	}
	return 0;
}

static void vrnic_qos_apply(struct vrnic_config *cfg, struct nlattr **tb,
			    const struct vrnic_map_req *req)
{
	struct vrnic_qos *qos = &cfg->qos;
	int i;

	vrnic_get_u8(&qos->trust, tb, VRNIC_QOS_ATTR_TRUST);
	vrnic_get_u8(&qos->pfc_en, tb, VRNIC_QOS_ATTR_PFC_EN);
	vrnic_get_u8(&qos->ecn_en, tb, VRNIC_QOS_ATTR_ECN_EN);
	vrnic_get_u8(&qos->tclass, tb, VRNIC_QOS_ATTR_TCLASS);
	vrnic_get_u8(&cfg->dcqcn.cnp_dscp, tb, VRNIC_QOS_ATTR_CNP_DSCP);
	vrnic_get_u8(&cfg->dcqcn.cnp_802p_prio, tb, VRNIC_QOS_ATTR_CNP_PRIO);
	for (i = 0; i < VRNIC_NUM_DSCP; i++)
		if (req->dscp_mask & BIT_ULL(i))
			qos->dscp2prio[i] = req->dscp2prio[i];
}

static void vrnic_dcqcn_apply(struct vrnic_dcqcn *d, struct nlattr **tb)
{
	vrnic_get_u32(&d->rpg_time_reset, tb, VRNIC_DCQCN_ATTR_RPG_TIME_RESET);
	vrnic_get_u32(&d->rpg_byte_reset, tb, VRNIC_DCQCN_ATTR_RPG_BYTE_RESET);
	vrnic_get_u32(&d->rpg_threshold, tb, VRNIC_DCQCN_ATTR_RPG_THRESHOLD);
	vrnic_get_u32(&d->rpg_max_rate, tb, VRNIC_DCQCN_ATTR_RPG_MAX_RATE);
	vrnic_get_u32(&d->rpg_ai_rate, tb, VRNIC_DCQCN_ATTR_RPG_AI_RATE);
	vrnic_get_u32(&d->rpg_hai_rate, tb, VRNIC_DCQCN_ATTR_RPG_HAI_RATE);
	vrnic_get_u32(&d->rpg_gd, tb, VRNIC_DCQCN_ATTR_RPG_GD);
	vrnic_get_u32(&d->rpg_min_dec_fac, tb,
		      VRNIC_DCQCN_ATTR_RPG_MIN_DEC_FAC);
	vrnic_get_u32(&d->rpg_min_rate, tb, VRNIC_DCQCN_ATTR_RPG_MIN_RATE);
	vrnic_get_u32(&d->rate_to_set_on_first_cnp, tb,
		      VRNIC_DCQCN_ATTR_RATE_TO_SET_ON_FIRST_CNP);
	vrnic_get_u32(&d->dce_tcp_g, tb, VRNIC_DCQCN_ATTR_DCE_TCP_G);
	vrnic_get_u32(&d->dce_tcp_rtt, tb, VRNIC_DCQCN_ATTR_DCE_TCP_RTT);
	vrnic_get_u32(&d->rate_reduce_monitor_period, tb,
		      VRNIC_DCQCN_ATTR_RATE_REDUCE_MONITOR_PERIOD);
	vrnic_get_u32(&d->initial_alpha_value, tb,
		      VRNIC_DCQCN_ATTR_INITIAL_ALPHA_VALUE);
	vrnic_get_u32(&d->min_time_between_cnps, tb,
		      VRNIC_DCQCN_ATTR_MIN_TIME_BETWEEN_CNPS);
	vrnic_get_u8(&d->cnp_dscp, tb, VRNIC_DCQCN_ATTR_CNP_DSCP);
	vrnic_get_u8(&d->cnp_802p_prio, tb, VRNIC_DCQCN_ATTR_CNP_802P_PRIO);
	vrnic_get_u8(&d->clamp_tgt_rate, tb, VRNIC_DCQCN_ATTR_CLAMP_TGT_RATE);
	vrnic_get_u8(&d->clamp_tgt_rate_after_time_inc, tb,
		     VRNIC_DCQCN_ATTR_CLAMP_TGT_RATE_AFTER_TIME_INC);
}

/* Point at whichever of two attributes the request carries. */
static const struct nlattr *vrnic_either(struct nlattr **tb, int a, int b)
{
	return tb[a] ? tb[a] : tb[b];
}

/* Rules between DCQCN parameters, checked on the merged result. */
static int vrnic_dcqcn_precheck(const struct vrnic_dcqcn *d,
				struct nlattr **tb,
				struct netlink_ext_ack *extack)
{
	if (d->rpg_ai_rate > d->rpg_hai_rate) {
		NL_SET_ERR_MSG_ATTR(extack,
				    vrnic_either(tb, VRNIC_DCQCN_ATTR_RPG_AI_RATE,
						 VRNIC_DCQCN_ATTR_RPG_HAI_RATE),
				    "rpg_ai_rate above rpg_hai_rate");
		return -EINVAL;
	}
	if (d->rpg_max_rate && d->rpg_min_rate > d->rpg_max_rate) {
		NL_SET_ERR_MSG_ATTR(extack,
				    vrnic_either(tb, VRNIC_DCQCN_ATTR_RPG_MIN_RATE,
						 VRNIC_DCQCN_ATTR_RPG_MAX_RATE),
				    "rpg_min_rate above rpg_max_rate");
		return -EINVAL;
	}
	return 0;
}

static int vrnic_cfg_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	bool is_qos = info->genlhdr->cmd == VRNIC_CMD_QOS_SET;
	int nest_type = is_qos ? VRNIC_ATTR_QOS : VRNIC_ATTR_DCQCN;
	struct nlattr *qtb[VRNIC_QOS_ATTR_MAX + 1];
	struct nlattr *dtb[VRNIC_DCQCN_ATTR_MAX + 1];
	struct vrnic_config *old, *new;
	struct vrnic_map_req req;
	struct vrnic_dev *vdev;
	bool changed = false;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, nest_type))
		return -EINVAL;
	vdev = vrnic_info_dev(skb, info);
	if (IS_ERR(vdev))
		return PTR_ERR(vdev);
	/* validated with the policy already, by the core */
	if (is_qos) {
		err = nla_parse_nested(qtb, VRNIC_QOS_ATTR_MAX,
				       info->attrs[nest_type], vrnic_qos_policy,
				       info->extack);
		if (!err)
			err = vrnic_qos_precheck(qtb, &req, info->extack);
	} else {
		err = nla_parse_nested(dtb, VRNIC_DCQCN_ATTR_MAX,
				       info->attrs[nest_type],
				       vrnic_dcqcn_policy, info->extack);
	}
	if (err)
		goto out_put;

	mutex_lock(&vdev->cfg_mutex);
	old = vrnic_config_locked(vdev);
	new = kmemdup(old, sizeof(*old), GFP_KERNEL);
	if (!new) {
		err = -ENOMEM;
		goto out_unlock;
	}
	if (is_qos) {
		vrnic_qos_apply(new, qtb, &req);
	} else {
		vrnic_dcqcn_apply(&new->dcqcn, dtb);
		err = vrnic_dcqcn_precheck(&new->dcqcn, dtb, info->extack);
		if (err) {
			kfree(new);
			goto out_unlock;
		}
	}
	changed = memcmp(&old->qos, &new->qos, sizeof(old->qos)) ||
		  memcmp(&old->dcqcn, &new->dcqcn, sizeof(old->dcqcn));
	if (changed)
		vrnic_config_publish(vdev, new);
	else
		kfree(new);
out_unlock:
	mutex_unlock(&vdev->cfg_mutex);
	if (changed)
		vrnic_notify(vdev, is_qos ? VRNIC_QOS_OBJ : VRNIC_DCQCN_OBJ);
out_put:
	vrnic_dev_put(vdev);
	return err;
}

/* ---- The family ---- */

static const struct genl_ops vrnic_genl_ops[] = {
	{
		.cmd = VRNIC_CMD_LIMITS_GET,
		.doit = vrnic_obj_get_doit,
		.dumpit = vrnic_obj_dumpit,
		.policy = vrnic_get_policy,
		.maxattr = VRNIC_ATTR_MAX,
	},
	{
		.cmd = VRNIC_CMD_LIMITS_SET,
		.doit = vrnic_limits_set_doit,
		.policy = vrnic_limits_set_policy,
		.maxattr = VRNIC_ATTR_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = VRNIC_CMD_QOS_GET,
		.doit = vrnic_obj_get_doit,
		.dumpit = vrnic_obj_dumpit,
		.policy = vrnic_get_policy,
		.maxattr = VRNIC_ATTR_MAX,
	},
	{
		.cmd = VRNIC_CMD_QOS_SET,
		.doit = vrnic_cfg_set_doit,
		.policy = vrnic_qos_set_policy,
		.maxattr = VRNIC_ATTR_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = VRNIC_CMD_DCQCN_GET,
		.doit = vrnic_obj_get_doit,
		.dumpit = vrnic_obj_dumpit,
		.policy = vrnic_get_policy,
		.maxattr = VRNIC_ATTR_MAX,
	},
	{
		.cmd = VRNIC_CMD_DCQCN_SET,
		.doit = vrnic_cfg_set_doit,
		.policy = vrnic_dcqcn_set_policy,
		.maxattr = VRNIC_ATTR_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = VRNIC_CMD_QP_STATS_GET,
		.doit = vrnic_qp_stats_doit,
		.dumpit = vrnic_qp_stats_dumpit,
		.policy = vrnic_qp_stats_policy,
		.maxattr = VRNIC_ATTR_MAX,
	},
};

static struct genl_family vrnic_genl_family __ro_after_init = {
	.name = VRNIC_GENL_NAME,
	.version = VRNIC_GENL_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = vrnic_genl_ops,
	.n_ops = ARRAY_SIZE(vrnic_genl_ops),
	.mcgrps = vrnic_mcgrps,
	.n_mcgrps = ARRAY_SIZE(vrnic_mcgrps),
};

/**
 * vrnic_genl_init - register the "vrnic" generic netlink family
 *
 * Return: 0 or a negative errno from genl_register_family().
 */
int vrnic_genl_init(void)
{
	return genl_register_family(&vrnic_genl_family);
}

/**
 * vrnic_genl_exit - unregister the family; waits for running commands
 */
void vrnic_genl_exit(void)
{
	genl_unregister_family(&vrnic_genl_family);
}
