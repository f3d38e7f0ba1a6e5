/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * vrnic generic netlink API: the single definition of the "vrnic" family,
 * shared by the kernel module and by libctl.  docs/netlink.md describes
 * every command and attribute with its units, default and range.
 *
 * Conventions:
 *  - Every object is per device; requests name the device with
 *    VRNIC_ATTR_DEV_NAME.  GET commands answer one device (doit) or, with
 *    NLM_F_DUMP, every vrnic device visible in the caller's network
 *    namespace (one message per device or per QP).
 *  - Objects travel as one nested attribute each (VRNIC_ATTR_LIMITS,
 *    VRNIC_ATTR_QOS, ...).  A SET carries only the attributes to change;
 *    the request is validated whole and either applied whole or not at all.
 *  - Integers are fixed width; no binary structures.  The DSCP to
 *    priority map and counter lists are arrays: nests whose members are
 *    themselves nests of type VRNIC_ENTRY (the type of an array member is
 *    ignored on input).
 *  - An attribute that is removed keeps its name and number, documented
 *    as no longer used, and SET rejects it (-EINVAL with an extack
 *    message): numbers are never reused, and programs built against an
 *    older header still compile.
 *  - A command that is removed keeps its number under a name ending in
 *    _REMOVED, as do the attributes only its replies carried: numbers are
 *    never reused, and a program still using one fails to compile rather
 *    than run into -EOPNOTSUPP.  The kernel has no operation for it: the
 *    genetlink core answers -EOPNOTSUPP.
 *  - The family carries only what no standard interface does: port
 *    counters are ib_core's hw stats ("rdma statistic show link"), the
 *    GID table is ib_core's sysfs (/sys/class/infiniband/DEV/ports/N/gids),
 *    bound per-QP counters ib_core's "rdma statistic qp".
 *  - SET commands need CAP_NET_ADMIN.  Each change is announced on the
 *    VRNIC_GENL_MCGRP_CONFIG multicast group with VRNIC_CMD_CONFIG_NTF.
 */
#ifndef _UAPI_VRNIC_H
#define _UAPI_VRNIC_H

#include <linux/types.h>

#define VRNIC_GENL_NAME		"vrnic"
#define VRNIC_GENL_VERSION	1
#define VRNIC_GENL_MCGRP_CONFIG	"config"

/**
 * enum vrnic_cmd - commands of the vrnic family
 * @VRNIC_CMD_UNSPEC: unused
 * @VRNIC_CMD_LIMITS_GET: read the resource limits (do: one device, needs
 *	DEV_NAME; dump: all devices).  Reply: DEV_NAME, DEV_INDEX, LIMITS.
 * @VRNIC_CMD_LIMITS_SET: change resource limits.  Request: DEV_NAME,
 *	LIMITS (any subset).  Admin only.
 * @VRNIC_CMD_QOS_GET: read the QoS settings; like LIMITS_GET, nest QOS.
 * @VRNIC_CMD_QOS_SET: change QoS settings.  Request: DEV_NAME, QOS.
 *	Admin only.
 * @VRNIC_CMD_DCQCN_GET: read the DCQCN parameters; like LIMITS_GET, nest
 *	DCQCN.
 * @VRNIC_CMD_DCQCN_SET: change DCQCN parameters.  Request: DEV_NAME,
 *	DCQCN.  Admin only.
 * @VRNIC_CMD_GID_GET_REMOVED: no longer used; was a dump of the GID table,
 *	which ib_core shows in sysfs (/sys/class/infiniband/DEV/ports/N/gids/I,
 *	gid_attrs/types/I, gid_attrs/ndevs/I)
 * @VRNIC_CMD_STATS_GET_REMOVED: no longer used; was the port counters,
 *	which ib_core reports as the device's hw stats ("rdma statistic show
 *	link DEV/1")
 * @VRNIC_CMD_QP_STATS_GET: per-QP counters.  do: DEV_NAME and QPN, one
 *	QP; dump: every QP (of DEV_NAME's device if given), one message per
 *	QP: DEV_NAME, DEV_INDEX, QPN, COUNTERS.  An unprivileged caller sees
 *	only the QPs of its own processes.  (ib_core's "rdma statistic qp"
 *	reports bound QPs only, and to every user.)
 * @VRNIC_CMD_CONFIG_NTF: notification only, sent to the "config" group
 *	after a successful SET: DEV_NAME, DEV_INDEX and the changed object's
 *	nest (LIMITS, QOS or DCQCN) with all its new values, as in the GET
 *	reply.
 */
enum vrnic_cmd {
	VRNIC_CMD_UNSPEC,
	VRNIC_CMD_LIMITS_GET,
	VRNIC_CMD_LIMITS_SET,
	VRNIC_CMD_QOS_GET,
	VRNIC_CMD_QOS_SET,
	VRNIC_CMD_DCQCN_GET,
	VRNIC_CMD_DCQCN_SET,
	VRNIC_CMD_GID_GET_REMOVED,
	VRNIC_CMD_STATS_GET_REMOVED,
	VRNIC_CMD_QP_STATS_GET,
	VRNIC_CMD_CONFIG_NTF,

	__VRNIC_CMD_MAX,
	VRNIC_CMD_MAX = __VRNIC_CMD_MAX - 1
};

/**
 * enum vrnic_attr - top-level attributes
 * @VRNIC_ATTR_UNSPEC: unused
 * @VRNIC_ATTR_PAD: padding for 64-bit attributes
 * @VRNIC_ATTR_DEV_NAME: string, the RDMA device name (e.g. "vrnic0"),
 *	at most 63 characters
 * @VRNIC_ATTR_DEV_INDEX: u32, the RDMA device index (as in "rdma dev");
 *	output only
 * @VRNIC_ATTR_PORT_REMOVED: no longer used; was the port number in the
 *	replies of the removed GID_GET and STATS_GET
 * @VRNIC_ATTR_LIMITS: nest, enum vrnic_limits_attr
 * @VRNIC_ATTR_QOS: nest, enum vrnic_qos_attr
 * @VRNIC_ATTR_DCQCN: nest, enum vrnic_dcqcn_attr
 * @VRNIC_ATTR_GID_REMOVED: no longer used; was one GID table entry in the
 *	replies of the removed GID_GET (enum vrnic_gid_attr)
 * @VRNIC_ATTR_COUNTERS: nest, array of VRNIC_ENTRY nests, each with
 *	enum vrnic_counter_attr: the counters of a QP
 * @VRNIC_ATTR_QPN: u32, a queue pair number (24 bits)
 */
enum vrnic_attr {
	VRNIC_ATTR_UNSPEC,
	VRNIC_ATTR_PAD,
	VRNIC_ATTR_DEV_NAME,
	VRNIC_ATTR_DEV_INDEX,
	VRNIC_ATTR_PORT_REMOVED,
	VRNIC_ATTR_LIMITS,
	VRNIC_ATTR_QOS,
	VRNIC_ATTR_DCQCN,
	VRNIC_ATTR_GID_REMOVED,
	VRNIC_ATTR_COUNTERS,
	VRNIC_ATTR_QPN,

	__VRNIC_ATTR_MAX,
	VRNIC_ATTR_MAX = __VRNIC_ATTR_MAX - 1
};

/* Type of the members of an array nest; ignored on input. */
#define VRNIC_ENTRY	1

/*
 * Ranges of the limits, checked by the kernel's policy (which
 * CTRL_CMD_GETPOLICY reports): each count is 1..its VRNIC_CAP_* ceiling,
 * MAX_INLINE_DATA 0..VRNIC_CAP_MAX_INLINE_DATA, MAX_MR_SIZE
 * VRNIC_MIN_MAX_MR_SIZE..2^64-1.
 */
#define VRNIC_CAP_MAX_QP		0x100000
#define VRNIC_CAP_MAX_CQ		0x100000
#define VRNIC_CAP_MAX_MR		0x1000000
#define VRNIC_CAP_MAX_PD		0x100000
#define VRNIC_CAP_MAX_SRQ		0x100000
#define VRNIC_CAP_MAX_AH		0x100000
#define VRNIC_CAP_MAX_QP_WR		0x8000
#define VRNIC_CAP_MAX_CQE		0x400000
#define VRNIC_CAP_MAX_SGE		64
#define VRNIC_CAP_MAX_INLINE_DATA	4096
#define VRNIC_CAP_MAX_QP_RD_ATOM	128
#define VRNIC_MIN_MAX_MR_SIZE		4096

/**
 * enum vrnic_limits_attr - resource limits (nest VRNIC_ATTR_LIMITS)
 *
 * Each limit is enforced when an object is created (-ENOMEM past it) and
 * reported by query_device.  Lowering a limit below current use is allowed
 * and affects only objects created afterwards.  Ranges: see VRNIC_CAP_*
 * above.
 *
 * @VRNIC_LIMITS_ATTR_UNSPEC: unused
 * @VRNIC_LIMITS_ATTR_PAD: padding for 64-bit attributes
 * @VRNIC_LIMITS_ATTR_MAX_QP: u32, queue pairs per device
 * @VRNIC_LIMITS_ATTR_MAX_CQ: u32, completion queues per device
 * @VRNIC_LIMITS_ATTR_MAX_MR: u32, memory regions per device
 * @VRNIC_LIMITS_ATTR_MAX_PD: u32, protection domains per device
 * @VRNIC_LIMITS_ATTR_MAX_SRQ: u32, shared receive queues per device
 * @VRNIC_LIMITS_ATTR_MAX_AH: u32, address handles per device
 * @VRNIC_LIMITS_ATTR_MAX_QP_WR: u32, work requests per send/receive queue
 * @VRNIC_LIMITS_ATTR_MAX_CQE: u32, entries per completion queue
 * @VRNIC_LIMITS_ATTR_MAX_SGE: u32, scatter/gather entries per work request
 * @VRNIC_LIMITS_ATTR_MAX_INLINE_DATA: u32, bytes of inline data per send
 *	work request (0 disables inline sends)
 * @VRNIC_LIMITS_ATTR_MAX_MR_SIZE: u64, bytes per memory region
 * @VRNIC_LIMITS_ATTR_MAX_QP_RD_ATOM: u32, outstanding RDMA read/atomic
 *	operations per QP (as responder and as initiator)
 */
enum vrnic_limits_attr {
	VRNIC_LIMITS_ATTR_UNSPEC,
	VRNIC_LIMITS_ATTR_PAD,
	VRNIC_LIMITS_ATTR_MAX_QP,
	VRNIC_LIMITS_ATTR_MAX_CQ,
	VRNIC_LIMITS_ATTR_MAX_MR,
	VRNIC_LIMITS_ATTR_MAX_PD,
	VRNIC_LIMITS_ATTR_MAX_SRQ,
	VRNIC_LIMITS_ATTR_MAX_AH,
	VRNIC_LIMITS_ATTR_MAX_QP_WR,
	VRNIC_LIMITS_ATTR_MAX_CQE,
	VRNIC_LIMITS_ATTR_MAX_SGE,
	VRNIC_LIMITS_ATTR_MAX_INLINE_DATA,
	VRNIC_LIMITS_ATTR_MAX_MR_SIZE,
	VRNIC_LIMITS_ATTR_MAX_QP_RD_ATOM,

	__VRNIC_LIMITS_ATTR_MAX,
	VRNIC_LIMITS_ATTR_MAX = __VRNIC_LIMITS_ATTR_MAX - 1
};

/**
 * enum vrnic_trust - which header field classifies received RoCE packets
 * @VRNIC_TRUST_PCP: the 802.1p priority (PCP) of the VLAN tag
 * @VRNIC_TRUST_DSCP: the DSCP of the IP header, mapped by DSCP2PRIO
 */
enum vrnic_trust {
	VRNIC_TRUST_PCP,
	VRNIC_TRUST_DSCP,

	__VRNIC_TRUST_MAX,
	VRNIC_TRUST_MAX = __VRNIC_TRUST_MAX - 1
};

#define VRNIC_NUM_DSCP	64	/* DSCP values: 0..VRNIC_NUM_DSCP - 1 */
#define VRNIC_NUM_PRIO	8	/* 802.1p priorities: 0..VRNIC_NUM_PRIO - 1 */
#define VRNIC_NUM_TC	8	/* no longer used (VRNIC_QOS_ATTR_PRIO2TC) */

/**
 * enum vrnic_qos_attr - QoS settings (nest VRNIC_ATTR_QOS)
 * @VRNIC_QOS_ATTR_UNSPEC: unused
 * @VRNIC_QOS_ATTR_TRUST: u8, enum vrnic_trust (0..VRNIC_TRUST_MAX); default
 *	VRNIC_TRUST_PCP
 * @VRNIC_QOS_ATTR_DSCP2PRIO: nest, array of VRNIC_ENTRY nests with
 *	enum vrnic_dscp_map_attr.  GET reports all 64 entries; SET changes
 *	only the DSCP values it lists (each at most once).  Default: priority
 *	= DSCP >> 3
 * @VRNIC_QOS_ATTR_PRIO2TC: no longer used; SET rejects it, GET does not
 *	report it.  It was a priority to traffic class map that no packet
 *	obeyed: vrnic has no traffic classes.  The priority of a packet is
 *	skb->priority, which the bound netdev maps to a traffic class of its
 *	own (mqprio or DCB map) and a VLAN netdev to a PCP (egress-qos-map)
 * @VRNIC_QOS_ATTR_PFC_EN: u8, bitmap: bit N enables priority flow control
 *	for priority N.  Default 0
 * @VRNIC_QOS_ATTR_ECN_EN: u8, bitmap: bit N makes RoCE traffic of
 *	priority N ECN-capable (ECT(0)) and lets the notification point
 *	answer CE marks with CNPs.  Default 0xff
 * @VRNIC_QOS_ATTR_TCLASS: u8, default IPv4 TOS / IPv6 traffic class
 *	byte of RoCE packets of QPs that do not set one (DSCP = TCLASS >> 2;
 *	the two ECN bits are ignored and governed by ECN_EN).  Default 0
 * @VRNIC_QOS_ATTR_CNP_DSCP: u8, a DSCP, DSCP of congestion notification
 *	packets; the same setting as VRNIC_DCQCN_ATTR_CNP_DSCP.  Default 48
 * @VRNIC_QOS_ATTR_CNP_PRIO: u8, a priority, 802.1p priority of CNPs; the same
 *	setting as VRNIC_DCQCN_ATTR_CNP_802P_PRIO.  Default 6
 */
enum vrnic_qos_attr {
	VRNIC_QOS_ATTR_UNSPEC,
	VRNIC_QOS_ATTR_TRUST,
	VRNIC_QOS_ATTR_DSCP2PRIO,
	VRNIC_QOS_ATTR_PRIO2TC,
	VRNIC_QOS_ATTR_PFC_EN,
	VRNIC_QOS_ATTR_ECN_EN,
	VRNIC_QOS_ATTR_TCLASS,
	VRNIC_QOS_ATTR_CNP_DSCP,
	VRNIC_QOS_ATTR_CNP_PRIO,

	__VRNIC_QOS_ATTR_MAX,
	VRNIC_QOS_ATTR_MAX = __VRNIC_QOS_ATTR_MAX - 1
};

/**
 * enum vrnic_dscp_map_attr - one DSCP to priority map entry
 * @VRNIC_DSCP_MAP_ATTR_UNSPEC: unused
 * @VRNIC_DSCP_MAP_ATTR_DSCP: u8, a DSCP (below VRNIC_NUM_DSCP), required
 * @VRNIC_DSCP_MAP_ATTR_PRIO: u8, a priority (below VRNIC_NUM_PRIO), required
 */
enum vrnic_dscp_map_attr {
	VRNIC_DSCP_MAP_ATTR_UNSPEC,
	VRNIC_DSCP_MAP_ATTR_DSCP,
	VRNIC_DSCP_MAP_ATTR_PRIO,

	__VRNIC_DSCP_MAP_ATTR_MAX,
	VRNIC_DSCP_MAP_ATTR_MAX = __VRNIC_DSCP_MAP_ATTR_MAX - 1
};

/**
 * enum vrnic_tc_map_attr - no longer used: the members of the entries of
 *	VRNIC_QOS_ATTR_PRIO2TC, which SET rejects
 * @VRNIC_TC_MAP_ATTR_UNSPEC: unused
 * @VRNIC_TC_MAP_ATTR_PRIO: no longer used (was the priority)
 * @VRNIC_TC_MAP_ATTR_TC: no longer used (was the traffic class)
 */
enum vrnic_tc_map_attr {
	VRNIC_TC_MAP_ATTR_UNSPEC,
	VRNIC_TC_MAP_ATTR_PRIO,
	VRNIC_TC_MAP_ATTR_TC,

	__VRNIC_TC_MAP_ATTR_MAX,
	VRNIC_TC_MAP_ATTR_MAX = __VRNIC_TC_MAP_ATTR_MAX - 1
};

/* Largest rate accepted by the DCQCN rate parameters, in Mb/s (1 Tb/s). */
#define VRNIC_DCQCN_RATE_MAX		1000000
/* Largest time accepted by the DCQCN time parameters, in microseconds. */
#define VRNIC_DCQCN_TIME_MAX		131071
/* Fixed-point unit of dce_tcp_g and initial_alpha_value: 1024 == 1.0. */
#define VRNIC_DCQCN_ONE			1024
/* Largest initial_alpha_value: ConnectX holds alpha in 10 bits. */
#define VRNIC_DCQCN_ALPHA_MAX		(VRNIC_DCQCN_ONE - 1)
/* Largest rpg_gd (a 4-bit field in ConnectX). */
#define VRNIC_DCQCN_GD_MAX		15
/* Largest rpg_threshold (a 5-bit field in ConnectX). */
#define VRNIC_DCQCN_THRESHOLD_MAX	31
/* Largest rpg_min_dec_fac: a percentage. */
#define VRNIC_DCQCN_MIN_DEC_FAC_MAX	100

/**
 * enum vrnic_dcqcn_attr - DCQCN parameters (nest VRNIC_ATTR_DCQCN)
 *
 * Names follow the ConnectX (mlx5) parameters.  RP = reaction point (the
 * sender that lowers its rate), NP = notification point (the receiver that
 * sends CNPs).  Defaults are those of Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments", SIGCOMM 2015, where the paper gives one.
 * All attributes are u32 unless noted.  Ranges use the VRNIC_DCQCN_*
 * constants above; the kernel's policy checks them (CTRL_CMD_GETPOLICY
 * reports them).
 *
 * @VRNIC_DCQCN_ATTR_UNSPEC: unused
 * @VRNIC_DCQCN_ATTR_RPG_TIME_RESET: RP rate-increase timer period T, in
 *	microseconds, 1..VRNIC_DCQCN_TIME_MAX.  Default 55
 * @VRNIC_DCQCN_ATTR_RPG_BYTE_RESET: RP byte counter B: bytes sent between
 *	rate increases, 0 disables the byte counter.  Default 10485760 (10 MB)
 * @VRNIC_DCQCN_ATTR_RPG_THRESHOLD: RP fast-recovery steps F before
 *	additive increase, 1..VRNIC_DCQCN_THRESHOLD_MAX.  Default 5
 * @VRNIC_DCQCN_ATTR_RPG_MAX_RATE: RP rate ceiling in Mb/s, 0 = line rate,
 *	0..VRNIC_DCQCN_RATE_MAX.  Default 0
 * @VRNIC_DCQCN_ATTR_RPG_AI_RATE: additive-increase step R_AI in Mb/s,
 *	1..VRNIC_DCQCN_RATE_MAX.  Default 40
 * @VRNIC_DCQCN_ATTR_RPG_HAI_RATE: hyper-increase step R_HAI in Mb/s,
 *	1..VRNIC_DCQCN_RATE_MAX, not below RPG_AI_RATE.  Default 400
 * @VRNIC_DCQCN_ATTR_RPG_GD: rate decrease divisor as log2, in ConnectX's
 *	encoding: alpha counts in 1/1024 units (10 bits), and a decrease
 *	takes rate * alpha_10bit / 2^RPG_GD off the rate,
 *	0..VRNIC_DCQCN_GD_MAX.  Default 11
 *	(the paper's rate * (1 - alpha / 2)); 10 takes rate * alpha
 * @VRNIC_DCQCN_ATTR_RPG_MIN_DEC_FAC: smallest factor a single decrease may
 *	leave, in percent of the current rate,
 *	1..VRNIC_DCQCN_MIN_DEC_FAC_MAX.  Default 50
 * @VRNIC_DCQCN_ATTR_RPG_MIN_RATE: RP rate floor in Mb/s,
 *	0..VRNIC_DCQCN_RATE_MAX, not above a non-zero RPG_MAX_RATE.  Default 1
 * @VRNIC_DCQCN_ATTR_RATE_TO_SET_ON_FIRST_CNP: rate in Mb/s a flow drops to
 *	on its first CNP, 0 = keep the current rate and apply the normal
 *	decrease, 0..VRNIC_DCQCN_RATE_MAX.  Default 0
 * @VRNIC_DCQCN_ATTR_DCE_TCP_G: alpha gain g in units of 1/1024,
 *	1..VRNIC_DCQCN_ONE:
 *	alpha = (1 - g) * alpha + g * (CNP seen).  Default 4 (g = 1/256)
 * @VRNIC_DCQCN_ATTR_DCE_TCP_RTT: alpha update period K in microseconds,
 *	1..VRNIC_DCQCN_TIME_MAX.  Default 55
 * @VRNIC_DCQCN_ATTR_RATE_REDUCE_MONITOR_PERIOD: minimum time between two
 *	rate decreases of one flow in microseconds, 1..VRNIC_DCQCN_TIME_MAX.
 *	Default 50
 * @VRNIC_DCQCN_ATTR_INITIAL_ALPHA_VALUE: alpha of a new flow in units of
 *	1/1024, 0..VRNIC_DCQCN_ALPHA_MAX (ConnectX's 10-bit field).
 *	Default 1023 (alpha just below 1)
 * @VRNIC_DCQCN_ATTR_MIN_TIME_BETWEEN_CNPS: NP: minimum interval N between
 *	CNPs to one QP in microseconds, 0..VRNIC_DCQCN_TIME_MAX.  Default 50
 * @VRNIC_DCQCN_ATTR_CNP_DSCP: u8, NP: DSCP of CNPs (below VRNIC_NUM_DSCP).
 *	Default 48
 * @VRNIC_DCQCN_ATTR_CNP_802P_PRIO: u8, NP: 802.1p priority of CNPs (below
 *	VRNIC_NUM_PRIO).  Default 6
 * @VRNIC_DCQCN_ATTR_CLAMP_TGT_RATE: u8, RP, a flag (0 or 1): every rate decrease
 *	first sets the target rate to the current rate (the paper's
 *	behaviour).  Default 0
 * @VRNIC_DCQCN_ATTR_CLAMP_TGT_RATE_AFTER_TIME_INC: u8, RP, a flag: a rate
 *	decrease sets the target rate to the current rate when the increase
 *	timer has fired since the previous decrease (with CLAMP_TGT_RATE 0,
 *	the target is kept otherwise unless the byte counter fired).
 *	Default 1
 */
enum vrnic_dcqcn_attr {
	VRNIC_DCQCN_ATTR_UNSPEC,
	VRNIC_DCQCN_ATTR_RPG_TIME_RESET,
	VRNIC_DCQCN_ATTR_RPG_BYTE_RESET,
	VRNIC_DCQCN_ATTR_RPG_THRESHOLD,
	VRNIC_DCQCN_ATTR_RPG_MAX_RATE,
	VRNIC_DCQCN_ATTR_RPG_AI_RATE,
	VRNIC_DCQCN_ATTR_RPG_HAI_RATE,
	VRNIC_DCQCN_ATTR_RPG_GD,
	VRNIC_DCQCN_ATTR_RPG_MIN_DEC_FAC,
	VRNIC_DCQCN_ATTR_RPG_MIN_RATE,
	VRNIC_DCQCN_ATTR_RATE_TO_SET_ON_FIRST_CNP,
	VRNIC_DCQCN_ATTR_DCE_TCP_G,
	VRNIC_DCQCN_ATTR_DCE_TCP_RTT,
	VRNIC_DCQCN_ATTR_RATE_REDUCE_MONITOR_PERIOD,
	VRNIC_DCQCN_ATTR_INITIAL_ALPHA_VALUE,
	VRNIC_DCQCN_ATTR_MIN_TIME_BETWEEN_CNPS,
	VRNIC_DCQCN_ATTR_CNP_DSCP,
	VRNIC_DCQCN_ATTR_CNP_802P_PRIO,
	VRNIC_DCQCN_ATTR_CLAMP_TGT_RATE,
	VRNIC_DCQCN_ATTR_CLAMP_TGT_RATE_AFTER_TIME_INC,

	__VRNIC_DCQCN_ATTR_MAX,
	VRNIC_DCQCN_ATTR_MAX = __VRNIC_DCQCN_ATTR_MAX - 1
};

/**
 * enum vrnic_gid_type - no longer used: the values of the removed
 *	VRNIC_GID_ATTR_TYPE_REMOVED
 * @VRNIC_GID_TYPE_ROCE_V1_REMOVED: was RoCE v1
 * @VRNIC_GID_TYPE_ROCE_V2_REMOVED: was RoCE v2
 */
enum vrnic_gid_type {
	VRNIC_GID_TYPE_ROCE_V1_REMOVED = 1,
	VRNIC_GID_TYPE_ROCE_V2_REMOVED = 2,
};

/**
 * enum vrnic_gid_attr - no longer used: the members of the removed
 *	VRNIC_ATTR_GID_REMOVED nest, kept so that their numbers stay taken
 * @VRNIC_GID_ATTR_UNSPEC_REMOVED: unused
 * @VRNIC_GID_ATTR_INDEX_REMOVED: was the index in the port's GID table
 * @VRNIC_GID_ATTR_GID_REMOVED: was the GID
 * @VRNIC_GID_ATTR_TYPE_REMOVED: was the RoCE version, enum vrnic_gid_type
 * @VRNIC_GID_ATTR_NDEV_IFINDEX_REMOVED: was the ifindex of the netdev
 * @VRNIC_GID_ATTR_NDEV_NAME_REMOVED: was the name of the netdev
 * @VRNIC_GID_ATTR_IPV4_REMOVED: was the IPv4 address of an IPv4-mapped GID
 * @VRNIC_GID_ATTR_IPV6_REMOVED: was the IPv6 address of any other GID
 */
enum vrnic_gid_attr {
	VRNIC_GID_ATTR_UNSPEC_REMOVED,
	VRNIC_GID_ATTR_INDEX_REMOVED,
	VRNIC_GID_ATTR_GID_REMOVED,
	VRNIC_GID_ATTR_TYPE_REMOVED,
	VRNIC_GID_ATTR_NDEV_IFINDEX_REMOVED,
	VRNIC_GID_ATTR_NDEV_NAME_REMOVED,
	VRNIC_GID_ATTR_IPV4_REMOVED,
	VRNIC_GID_ATTR_IPV6_REMOVED,
};

/**
 * enum vrnic_counter_attr - one counter (member of VRNIC_ATTR_COUNTERS)
 * @VRNIC_COUNTER_ATTR_UNSPEC: unused
 * @VRNIC_COUNTER_ATTR_PAD: padding for 64-bit attributes
 * @VRNIC_COUNTER_ATTR_NAME: string, the counter's stable name (see
 *	docs/netlink.md)
 * @VRNIC_COUNTER_ATTR_VALUE: u64, the value since the QP was created
 */
enum vrnic_counter_attr {
	VRNIC_COUNTER_ATTR_UNSPEC,
	VRNIC_COUNTER_ATTR_PAD,
	VRNIC_COUNTER_ATTR_NAME,
	VRNIC_COUNTER_ATTR_VALUE,

	__VRNIC_COUNTER_ATTR_MAX,
	VRNIC_COUNTER_ATTR_MAX = __VRNIC_COUNTER_ATTR_MAX - 1
};

#endif /* _UAPI_VRNIC_H */
