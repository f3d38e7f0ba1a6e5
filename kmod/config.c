// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: storage of the per-device configuration (resource limits, QoS,
 * DCQCN).  The locking rules are written once, in config.h.
 */

#include <linux/slab.h>

#include "vrnic.h"
#include "config.h"

/**
 * vrnic_limits_init - fill @limits with the defaults of params.h
 * @limits: the limits of a device being created
 */
void vrnic_limits_init(struct vrnic_limits *limits)
{
	limits->max_qp = VRNIC_DEF_MAX_QP;
	limits->max_cq = VRNIC_DEF_MAX_CQ;
	limits->max_mr = VRNIC_DEF_MAX_MR;
	limits->max_pd = VRNIC_DEF_MAX_PD;
	limits->max_srq = VRNIC_DEF_MAX_SRQ;
	limits->max_ah = VRNIC_DEF_MAX_AH;
	limits->max_qp_wr = VRNIC_DEF_MAX_QP_WR;
	limits->max_cqe = VRNIC_DEF_MAX_CQE;
	limits->max_sge = VRNIC_DEF_MAX_SGE;
	limits->max_inline_data = VRNIC_DEF_MAX_INLINE_DATA;
	limits->max_qp_rd_atom = VRNIC_DEF_MAX_QP_RD_ATOM;
	limits->max_mr_size = VRNIC_DEF_MAX_MR_SIZE;
}

/**
 * vrnic_limits_read - take a snapshot of the limits of @vdev
 * @vdev: the device
 * @limits: where to store the snapshot
 *
 * Each field is read once; without cfg_mutex the snapshot may mix the
 * values before and after a concurrent SET (see config.h).
 */
void vrnic_limits_read(struct vrnic_dev *vdev, struct vrnic_limits *limits)
{
	const struct vrnic_limits *cur = &vdev->limits;

	limits->max_qp = READ_ONCE(cur->max_qp);
	limits->max_cq = READ_ONCE(cur->max_cq);
	limits->max_mr = READ_ONCE(cur->max_mr);
	limits->max_pd = READ_ONCE(cur->max_pd);
	limits->max_srq = READ_ONCE(cur->max_srq);
	limits->max_ah = READ_ONCE(cur->max_ah);
	limits->max_qp_wr = READ_ONCE(cur->max_qp_wr);
	limits->max_cqe = READ_ONCE(cur->max_cqe);
	limits->max_sge = READ_ONCE(cur->max_sge);
	limits->max_inline_data = READ_ONCE(cur->max_inline_data);
	limits->max_qp_rd_atom = READ_ONCE(cur->max_qp_rd_atom);
	limits->max_mr_size = READ_ONCE(cur->max_mr_size);
}

/**
 * vrnic_limits_publish - install new, already validated limits
 * @vdev: the device; the caller holds @vdev->cfg_mutex
 * @limits: the complete new set of limits
 */
void vrnic_limits_publish(struct vrnic_dev *vdev,
			  const struct vrnic_limits *limits)
{
	struct vrnic_limits *cur = &vdev->limits;

	lockdep_assert_held(&vdev->cfg_mutex);

	WRITE_ONCE(cur->max_qp, limits->max_qp);
	WRITE_ONCE(cur->max_cq, limits->max_cq);
	WRITE_ONCE(cur->max_mr, limits->max_mr);
	WRITE_ONCE(cur->max_pd, limits->max_pd);
	WRITE_ONCE(cur->max_srq, limits->max_srq);
	WRITE_ONCE(cur->max_ah, limits->max_ah);
	WRITE_ONCE(cur->max_qp_wr, limits->max_qp_wr);
	WRITE_ONCE(cur->max_cqe, limits->max_cqe);
	WRITE_ONCE(cur->max_sge, limits->max_sge);
	WRITE_ONCE(cur->max_inline_data, limits->max_inline_data);
	WRITE_ONCE(cur->max_qp_rd_atom, limits->max_qp_rd_atom);
	WRITE_ONCE(cur->max_mr_size, limits->max_mr_size);
}

static void vrnic_qos_init(struct vrnic_qos *qos)
{
	int i;

	qos->trust = VRNIC_DEF_TRUST;
	qos->pfc_en = VRNIC_DEF_PFC_EN;
	qos->ecn_en = VRNIC_DEF_ECN_EN;
	qos->tclass = VRNIC_DEF_TCLASS;
	/* The class selector: DSCP CSn (n << 3) and its AFnx neighbours -> n */
	for (i = 0; i < VRNIC_NUM_DSCP; i++)
		qos->dscp2prio[i] = i >> 3;
}

static void vrnic_dcqcn_init(struct vrnic_dcqcn *d)
{
	d->rpg_time_reset = VRNIC_DEF_RPG_TIME_RESET;
	d->rpg_byte_reset = VRNIC_DEF_RPG_BYTE_RESET;
	d->rpg_threshold = VRNIC_DEF_RPG_THRESHOLD;
	d->rpg_max_rate = VRNIC_DEF_RPG_MAX_RATE;
	d->rpg_ai_rate = VRNIC_DEF_RPG_AI_RATE;
	d->rpg_hai_rate = VRNIC_DEF_RPG_HAI_RATE;
	d->rpg_gd = VRNIC_DEF_RPG_GD;
	d->rpg_min_dec_fac = VRNIC_DEF_RPG_MIN_DEC_FAC;
	d->rpg_min_rate = VRNIC_DEF_RPG_MIN_RATE;
	d->rate_to_set_on_first_cnp = VRNIC_DEF_RATE_TO_SET_ON_FIRST_CNP;
	d->dce_tcp_g = VRNIC_DEF_DCE_TCP_G;
	d->dce_tcp_rtt = VRNIC_DEF_DCE_TCP_RTT;
	d->rate_reduce_monitor_period = VRNIC_DEF_RATE_REDUCE_MONITOR_PERIOD;
	d->initial_alpha_value = VRNIC_DEF_INITIAL_ALPHA_VALUE;
	d->min_time_between_cnps = VRNIC_DEF_MIN_TIME_BETWEEN_CNPS;
	d->cnp_dscp = VRNIC_DEF_CNP_DSCP;
	d->cnp_802p_prio = VRNIC_DEF_CNP_802P_PRIO;
	d->clamp_tgt_rate = VRNIC_DEF_CLAMP_TGT_RATE;
	d->clamp_tgt_rate_after_time_inc =
		VRNIC_DEF_CLAMP_TGT_RATE_AFTER_TIME_INC;
}

/**
 * vrnic_config_alloc - give a new device its default QoS/DCQCN configuration
 * @vdev: the device being created (not yet visible to anyone)
 *
 * Return: 0 or -ENOMEM.
 */
int vrnic_config_alloc(struct vrnic_dev *vdev)
{
	struct vrnic_config *cfg;

	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	vrnic_qos_init(&cfg->qos);
	vrnic_dcqcn_init(&cfg->dcqcn);
	RCU_INIT_POINTER(vdev->cfg, cfg);
	return 0;
}

/**
 * vrnic_config_free - release the configuration of a device being removed
 * @vdev: the device; no netlink command can reach it any more
 *
 * Data-path readers may still be inside an RCU read-side section, so the
 * memory is freed after a grace period.  Safe to call twice.
 */
void vrnic_config_free(struct vrnic_dev *vdev)
{
	struct vrnic_config *cfg = rcu_replace_pointer(vdev->cfg, NULL, true);

	if (cfg)
		kfree_rcu(cfg, rcu);
}

/**
 * vrnic_config_locked - the current configuration, for a writer
 * @vdev: the device; the caller holds @vdev->cfg_mutex
 *
 * Return: the configuration; never modify it in place, publish a copy.
 */
struct vrnic_config *vrnic_config_locked(struct vrnic_dev *vdev)
{
	return rcu_dereference_protected(vdev->cfg,
					 lockdep_is_held(&vdev->cfg_mutex));
}

/**
 * vrnic_config_publish - replace the configuration of @vdev
 * @vdev: the device; the caller holds @vdev->cfg_mutex
 * @cfg: the new, complete and validated configuration; @vdev owns it now
 *
 * The previous configuration is freed once current readers are done.
 */
void vrnic_config_publish(struct vrnic_dev *vdev, struct vrnic_config *cfg)
{
	struct vrnic_config *old;

	old = rcu_replace_pointer(vdev->cfg, cfg,
				  lockdep_is_held(&vdev->cfg_mutex));
	/* Running QPs pick the new DCQCN parameters up (cc.c). */
	atomic_inc(&vdev->cfg_gen);
	if (old)
		kfree_rcu(old, rcu);
}
