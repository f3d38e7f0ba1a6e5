/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic: per-device QoS and DCQCN configuration and resource limits, as
 * set through the "vrnic" generic netlink family (netlink.c).
 *
 * Locking
 * -------
 * Writers (netlink SET commands only) hold vrnic_dev.cfg_mutex.
 *
 * vrnic_dev.limits: each field is written with WRITE_ONCE() and read with
 * READ_ONCE() (vrnic_obj_get(&vdev->num_qp, READ_ONCE(vdev->limits.max_qp))).
 * A SET is validated whole before any field changes, but a concurrent
 * reader may observe some fields of a SET already changed and others not.
 *
 * vrnic_dev.cfg: RCU.  A SET copies the current struct vrnic_config,
 * changes the copy and publishes it with rcu_assign_pointer(), then frees
 * the old one after a grace period, so a reader always sees one coherent
 * configuration:
 *
 *	rcu_read_lock();
 *	cfg = rcu_dereference(vdev->cfg);
 *	prio = cfg->qos.dscp2prio[dscp];
 *	rcu_read_unlock();
 *
 * Readers must not keep the pointer past rcu_read_unlock(); copy what they
 * need (e.g. into the QP at modify_qp time).
 */
#ifndef VRNIC_CONFIG_H
#define VRNIC_CONFIG_H

#include <linux/types.h>
#include <linux/rcupdate.h>

/* uapi/vrnic.h (Kbuild adds -I../uapi); not this directory's vrnic.h */
#include <vrnic.h>

struct vrnic_dev;
struct vrnic_limits;

/**
 * struct vrnic_qos - QoS settings (VRNIC_ATTR_QOS)
 * @trust: enum vrnic_trust: classify received packets by PCP or DSCP
 * @pfc_en: bit N set: priority flow control enabled for priority N
 * @ecn_en: bit N set: RoCE traffic of priority N is sent ECN-capable and
 *	CE marks on it are answered with CNPs
 * @tclass: default IPv4 TOS / IPv6 traffic class byte of RoCE traffic
 * @dscp2prio: priority of each DSCP value (trust dscp)
 *
 * The DSCP and 802.1p priority of CNPs are part of struct vrnic_dcqcn
 * (@cnp_dscp, @cnp_802p_prio); the netlink QoS object shows them too.
 */
struct vrnic_qos {
	u8 trust;
	u8 pfc_en;
	u8 ecn_en;
	u8 tclass;
	u8 dscp2prio[VRNIC_NUM_DSCP];
};

/**
 * struct vrnic_dcqcn - DCQCN reaction/notification point parameters
 *
 * Names and units as in ConnectX; defaults from Zhu et al., "Congestion
 * Control for Large-Scale RDMA Deployments" (SIGCOMM 2015).  The per-field
 * documentation is in uapi/vrnic.h (enum vrnic_dcqcn_attr).
 *
 * @rpg_time_reset: rate-increase timer T, microseconds
 * @rpg_byte_reset: byte counter B, bytes (0 = off)
 * @rpg_threshold: fast-recovery steps F
 * @rpg_max_rate: rate ceiling, Mb/s (0 = line rate)
 * @rpg_ai_rate: additive increase R_AI, Mb/s
 * @rpg_hai_rate: hyper increase R_HAI, Mb/s
 * @rpg_gd: log2 of the divisor of a rate decrease, ConnectX encoding
 *	(over the 10-bit alpha: 11 = alpha / 2)
 * @rpg_min_dec_fac: smallest factor left by one decrease, percent
 * @rpg_min_rate: rate floor, Mb/s
 * @rate_to_set_on_first_cnp: rate after the first CNP, Mb/s (0 = normal)
 * @dce_tcp_g: alpha gain g, 1/1024 units
 * @dce_tcp_rtt: alpha update period K, microseconds
 * @rate_reduce_monitor_period: minimum time between decreases, microseconds
 * @initial_alpha_value: alpha of a new flow, 1/1024 units
 * @min_time_between_cnps: CNP interval N per QP, microseconds
 * @cnp_dscp: DSCP of CNPs
 * @cnp_802p_prio: 802.1p priority of CNPs
 * @clamp_tgt_rate: a decrease always sets the target rate first
 * @clamp_tgt_rate_after_time_inc: a decrease sets the target rate if the
 *	increase timer fired since the previous decrease
 */
struct vrnic_dcqcn {
	u32 rpg_time_reset;
	u32 rpg_byte_reset;
	u32 rpg_threshold;
	u32 rpg_max_rate;
	u32 rpg_ai_rate;
	u32 rpg_hai_rate;
	u32 rpg_gd;
	u32 rpg_min_dec_fac;
	u32 rpg_min_rate;
	u32 rate_to_set_on_first_cnp;
	u32 dce_tcp_g;
	u32 dce_tcp_rtt;
	u32 rate_reduce_monitor_period;
	u32 initial_alpha_value;
	u32 min_time_between_cnps;
	u8 cnp_dscp;
	u8 cnp_802p_prio;
	u8 clamp_tgt_rate;
	u8 clamp_tgt_rate_after_time_inc;
};

/* Defaults of struct vrnic_qos. */
#define VRNIC_DEF_TRUST				VRNIC_TRUST_PCP
#define VRNIC_DEF_PFC_EN			0
#define VRNIC_DEF_ECN_EN			0xff
#define VRNIC_DEF_TCLASS			0

/* Defaults of struct vrnic_dcqcn (SIGCOMM 2015 values where given). */
#define VRNIC_DEF_RPG_TIME_RESET		55
#define VRNIC_DEF_RPG_BYTE_RESET		(10 * 1024 * 1024)
#define VRNIC_DEF_RPG_THRESHOLD			5
#define VRNIC_DEF_RPG_MAX_RATE			0
#define VRNIC_DEF_RPG_AI_RATE			40
#define VRNIC_DEF_RPG_HAI_RATE			400
#define VRNIC_DEF_RPG_GD			11
#define VRNIC_DEF_RPG_MIN_DEC_FAC		50
#define VRNIC_DEF_RPG_MIN_RATE			1
#define VRNIC_DEF_RATE_TO_SET_ON_FIRST_CNP	0
#define VRNIC_DEF_DCE_TCP_G			(VRNIC_DCQCN_ONE / 256)
#define VRNIC_DEF_DCE_TCP_RTT			55
#define VRNIC_DEF_RATE_REDUCE_MONITOR_PERIOD	50
#define VRNIC_DEF_INITIAL_ALPHA_VALUE		VRNIC_DCQCN_ALPHA_MAX
#define VRNIC_DEF_MIN_TIME_BETWEEN_CNPS		50
#define VRNIC_DEF_CNP_DSCP			48
#define VRNIC_DEF_CNP_802P_PRIO			6
#define VRNIC_DEF_CLAMP_TGT_RATE		0
#define VRNIC_DEF_CLAMP_TGT_RATE_AFTER_TIME_INC	1

/**
 * struct vrnic_config - the RCU-published configuration of one device
 * @qos: QoS settings
 * @dcqcn: DCQCN parameters
 * @rcu: frees a replaced configuration after a grace period
 */
struct vrnic_config {
	struct vrnic_qos qos;
	struct vrnic_dcqcn dcqcn;
	struct rcu_head rcu;
};

int vrnic_config_alloc(struct vrnic_dev *vdev);
void vrnic_config_free(struct vrnic_dev *vdev);
void vrnic_limits_init(struct vrnic_limits *limits);

struct vrnic_config *vrnic_config_locked(struct vrnic_dev *vdev);
void vrnic_config_publish(struct vrnic_dev *vdev, struct vrnic_config *cfg);
void vrnic_limits_publish(struct vrnic_dev *vdev,
			  const struct vrnic_limits *limits);
void vrnic_limits_read(struct vrnic_dev *vdev, struct vrnic_limits *limits);

/* netlink.c */
int vrnic_genl_init(void);
void vrnic_genl_exit(void);

#endif /* VRNIC_CONFIG_H */
