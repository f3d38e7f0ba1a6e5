/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic: a software RoCEv2 RDMA NIC.
 *
 * Core device structures shared by every file of the module.
 */
#ifndef VRNIC_H
#define VRNIC_H

#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/mutex.h>
#include <linux/xarray.h>
#include <linux/hashtable.h>
#include <linux/uidgid.h>
#include <linux/percpu.h>
#include <linux/interrupt.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

#include "params.h"

/**
 * struct vrnic_limits - per-device resource limits
 *
 * Read with READ_ONCE() by the verbs that create objects and by
 * query_device; written only under vrnic_dev.cfg_mutex.  Lowering a limit
 * below current use affects only objects created afterwards.
 */
struct vrnic_limits {
	u32 max_qp;
	u32 max_cq;
	u32 max_mr;
	u32 max_pd;
	u32 max_srq;
	u32 max_ah;
	u32 max_qp_wr;
	u32 max_cqe;
	u32 max_sge;
	u32 max_inline_data;
	u32 max_qp_rd_atom;
	u64 max_mr_size;
};

/*
 * Port counters.  Their names (vrnic_stat_descs[] in counters.c) are the
 * stable interface shown by "rdma statistic show link" (the hw stats) and
 * by bound per-QP counters ("rdma statistic qp"); append new counters at
 * the end only.
 */
enum vrnic_counter {
	VRNIC_CNT_TX_PACKETS,
	VRNIC_CNT_TX_BYTES,
	VRNIC_CNT_RX_PACKETS,
	VRNIC_CNT_RX_BYTES,
	VRNIC_CNT_RETRANSMITS,
	VRNIC_CNT_RETRY_EXCEEDED,
	VRNIC_CNT_RNR_RETRY_EXCEEDED,
	VRNIC_CNT_TIMEOUTS,
	VRNIC_CNT_SEQ_ERR_NAKS_SENT,
	VRNIC_CNT_SEQ_ERR_NAKS_RCVD,
	VRNIC_CNT_RNR_NAKS_SENT,
	VRNIC_CNT_RNR_NAKS_RCVD,
	VRNIC_CNT_DUP_REQUESTS,
	VRNIC_CNT_OUT_OF_SEQ_REQUESTS,
	VRNIC_CNT_ACCESS_ERRORS,
	VRNIC_CNT_ICRC_ERRORS,
	VRNIC_CNT_DROP_UNKNOWN_QP,
	VRNIC_CNT_DROP_BAD_PKEY,
	VRNIC_CNT_DROP_BAD_QKEY,
	VRNIC_CNT_DROP_MALFORMED,
	VRNIC_CNT_DROP_QP_STATE,
	VRNIC_CNT_TX_ERRORS,
	VRNIC_CNT_NP_CNP_SENT,
	VRNIC_CNT_RP_CNP_HANDLED,
	VRNIC_CNT_NP_ECN_MARKED,
	VRNIC_CNT_INVALID_REQUESTS,
	VRNIC_CNT_DROP_BAD_ADDR,
	VRNIC_CNT_DROP_HELD_BUDGET,
	VRNIC_CNT_RP_CNP_IGNORED,
	/* one per 802.1p priority, 0..7 (pfc.c) */
	VRNIC_CNT_RX_PRIO_PAUSE,
	VRNIC_CNT_RX_PRIO_PAUSE_DURATION = VRNIC_CNT_RX_PRIO_PAUSE + 8,
	VRNIC_CNT_RX_PAUSE_STORM = VRNIC_CNT_RX_PRIO_PAUSE_DURATION + 8,
	VRNIC_CNT_RX_PAUSE_IGNORED,
	VRNIC_CNT_IMPLIED_NAK_SEQ_ERR,
	VRNIC_CNT_DROP_NO_MEMORY,
	VRNIC_CNT_LOSS_PROBES,
	VRNIC_NUM_COUNTERS
};

struct vrnic_counters {
	u64 val[VRNIC_NUM_COUNTERS];
};

/*
 * Per-QP counters and state.  Their names (vrnic_qp_counters[] in
 * counters.c, which also says which port counter each one is part of)
 * are the stable interface of VRNIC_CMD_QP_STATS_GET; append new ones at
 * the end only.
 */
enum vrnic_qp_counter {
	VRNIC_QP_CNT_TX_PACKETS,
	VRNIC_QP_CNT_TX_BYTES,
	VRNIC_QP_CNT_RX_PACKETS,
	VRNIC_QP_CNT_RX_BYTES,
	VRNIC_QP_CNT_RETRANSMITS,
	VRNIC_QP_CNT_TIMEOUTS,
	VRNIC_QP_CNT_SEQ_NAKS_SENT,
	VRNIC_QP_CNT_SEQ_NAKS_RCVD,
	VRNIC_QP_CNT_RNR_NAKS_SENT,
	VRNIC_QP_CNT_RNR_NAKS_RCVD,
	VRNIC_QP_CNT_CNP_SENT,
	VRNIC_QP_CNT_CNP_RCVD,
	VRNIC_QP_CNT_ECN_MARKED,
	VRNIC_QP_CNT_RATE_MBPS,		/* DCQCN current rate Rc */
	VRNIC_QP_CNT_TARGET_MBPS,	/* DCQCN target rate Rt */
	VRNIC_QP_CNT_ALPHA,		/* DCQCN alpha, 1/1024 */
	VRNIC_QP_CNT_LIMITED,		/* 1: the rate limiter is engaged */
	VRNIC_QP_CNT_PFC_PAUSED,	/* 1: held by a PFC/PAUSE frame */
	VRNIC_QP_CNT_DUP_REQUESTS,
	VRNIC_QP_CNT_ACCESS_ERRORS,
	VRNIC_QP_CNT_DROPS,
	VRNIC_QP_NUM_COUNTERS
};

/*
 * vrnic_qp_counter_desc.port of a value no single port counter sums: a
 * state, or a count spread over several port counters
 */
#define VRNIC_QP_NO_PORT	(-1)

/**
 * struct vrnic_qp_counter_desc - one per-QP counter or state value
 * @name: its stable name
 * @port: the port counter (enum vrnic_counter) that counts the same
 *	events for the whole port: a bound rdma_counter reports the value
 *	under that counter's name.  VRNIC_QP_NO_PORT when there is none
 * @restrack: also a driver attribute of "rdma resource show qp -dd"
 */
struct vrnic_qp_counter_desc {
	const char *name;
	int port;
	bool restrack;
};

struct vrnic_udp;	/* net.c: one UDP 4791 socket pair per network namespace */
struct vrnic_config;	/* config.h: QoS and DCQCN settings (netlink) */

/**
 * struct vrnic_pfc - PFC/PAUSE frames received on the bound netdev (pfc.c)
 * @pt: the ETH_P_PAUSE handler on that netdev
 * @lock: serialises frame handlers (frames may arrive on several CPUs)
 *	and the counter reader (process context: it takes @lock with BHs off)
 * @until: per priority, when its pause ends (ktime_get_ns(), 0: none);
 *	written under @lock, read locklessly by the requesters
 * @since: per priority, start of the current unbroken pause; @lock
 * @storm_until: per priority, frames are ignored until then; @lock
 * @counted: per priority, the time up to which rx_prio<N>_pause_duration
 *	has counted the pause; @lock
 */
struct vrnic_pfc {
	struct packet_type pt;
	spinlock_t lock;		/* frame handlers; see above */
	u64 until[8];
	u64 since[8];
	u64 storm_until[8];
	u64 counted[8];
};

/**
 * struct vrnic_dev - one vrnic RDMA device bound to one Ethernet netdev
 * @ibdev: the ib_core device; must stay first (ib_alloc_device)
 * @ndev: the bound netdev, held with a tracked reference for our lifetime
 * @udp: the shared UDP socket of @ndev's network namespace
 * @list: entry in vrnic_dev_list, protected by vrnic_dev_mutex
 * @ndev_link: entry in main.c's netdev hash (vrnic_dev_get_by_netdev())
 * @cfg_mutex: serialises writers of @limits and @cfg (netlink set commands)
 * @limits: resource limits, see struct vrnic_limits
 * @cfg: QoS/DCQCN configuration, owned by config.c (RCU, see config.h)
 * @cfg_gen: bumped after @cfg or @link_mbps changes, so that each QP
 *	recomputes what it derives from them (cc.c) on its next packet
 * @link_mbps: speed of @ndev in Mb/s, 0 if unknown; written under rtnl
 * @stats: per-CPU port counters; update with vrnic_counter_inc/add()
 * @counter_mutex: protects @counter_xa, what its entries hold and
 *	@counted (counters.c)
 * @counter_xa: vrnic's side of each rdma_counter ("rdma statistic qp"),
 *	by counter id
 * @counted: per enum vrnic_qp_counter, what QPs counted while bound to
 *	a counter, up to their unbinding
 * @pfc: pause state from received PFC/PAUSE frames (pfc.c)
 * @mcg_mutex: serialises attach and detach (mcast.c); the receive path
 *	reads @mcg_hash under RCU
 * @mcg_hash: the multicast groups UD QPs are attached to, by MGID
 * @num_mcg: groups in @mcg_hash; @mcg_mutex
 * @num_mca: attachments of QPs to them; @mcg_mutex
 * @held_bytes: truesize of the request packets the responders of this
 *	device hold (out of order or behind a READ), at most
 *	VRNIC_HELD_BYTES_MAX; charged and released by resp.c only
 */
struct vrnic_dev {
	struct ib_device ibdev;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	struct vrnic_udp *udp;
	struct list_head list;
	struct hlist_node ndev_link;

	struct mutex cfg_mutex;	/* serialises writers of limits and cfg */
	struct vrnic_limits limits;
	struct vrnic_config __rcu *cfg;
	atomic_t cfg_gen;
	u32 link_mbps;

	struct vrnic_counters __percpu *stats;
	struct mutex counter_mutex;	/* see above */
	struct xarray counter_xa;
	u64 counted[VRNIC_QP_NUM_COUNTERS];
	atomic_long_t held_bytes;
	struct vrnic_pfc pfc;

	struct mutex mcg_mutex;	/* writers of the multicast groups */
	DECLARE_HASHTABLE(mcg_hash, 6);
	u32 num_mcg;
	u32 num_mca;

	/* Last port state reported, to send events only on change (rtnl). */
	enum ib_port_state port_state;

	/* Object counts checked against @limits at creation. */
	atomic_t num_pd;
	atomic_t num_cq;
	atomic_t num_qp;
	atomic_t num_srq;
	atomic_t num_mr;
	atomic_t num_mw;
	atomic_t num_ah;

	/*
	 * Object tables, owned by the verbs layer (verbs.h); lookups under
	 * the xarray lock take a reference on the object.  Index: QPN,
	 * MR or MW key >> 8 (MW entries tagged, mw.c), user AH number, SRQ number.
	 */
	struct xarray qp_xa;
	struct xarray mr_xa;
	struct xarray ah_xa;
	struct xarray srq_xa;
	u32 next_qpn;
	u32 next_mr_index;
	u32 next_ah_num;
	u32 next_srq_num;
};

static inline struct vrnic_dev *to_vdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct vrnic_dev, ibdev);
}

struct vrnic_ucontext {
	struct ib_ucontext ibuc;
};

struct vrnic_pd {
	struct ib_pd ibpd;
};

static inline struct vrnic_pd *to_vpd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct vrnic_pd, ibpd);
}

static inline void vrnic_counter_add(struct vrnic_dev *vdev,
				     enum vrnic_counter c, u64 n)
{
	this_cpu_add(vdev->stats->val[c], n);
}

static inline void vrnic_counter_inc(struct vrnic_dev *vdev,
				     enum vrnic_counter c)
{
	vrnic_counter_add(vdev, c, 1);
}

/*
 * vrnic_obj_get - account one more object of a kind against its limit.
 * Returns 0, or -ENOMEM when @limit objects already exist (the errno
 * ib_core and applications expect when a device runs out of a resource).
 */
static inline int vrnic_obj_get(atomic_t *count, u32 limit)
{
	if (atomic_inc_return(count) > limit) {
		atomic_dec(count);
		return -ENOMEM;
	}
	return 0;
}

static inline void vrnic_obj_put(atomic_t *count)
{
	atomic_dec(count);
}

/* main.c */
extern struct mutex vrnic_dev_mutex;
extern struct list_head vrnic_dev_list;
struct vrnic_dev *vrnic_dev_get_by_name(const char *name);
struct vrnic_dev *vrnic_dev_get_by_netdev(struct net_device *ndev);
void vrnic_dev_put(struct vrnic_dev *vdev);
void vrnic_unregister_devices(struct net *net);

/* counters.c */
extern const struct vrnic_qp_counter_desc
	vrnic_qp_counters[VRNIC_QP_NUM_COUNTERS];
void vrnic_counters_dev_init(struct vrnic_dev *vdev);
void vrnic_counters_dev_cleanup(struct vrnic_dev *vdev);
struct rdma_hw_stats *vrnic_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int vrnic_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);
int vrnic_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp);
int vrnic_counter_unbind_qp(struct ib_qp *ibqp);
int vrnic_counter_dealloc(struct rdma_counter *counter);
struct rdma_hw_stats *vrnic_counter_alloc_stats(struct rdma_counter *counter);
int vrnic_counter_update_stats(struct rdma_counter *counter);
int vrnic_qp_counters_next(struct vrnic_dev *vdev, u32 *qpn,
			   const kuid_t *owner, u64 *val);
int vrnic_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);

/* pfc.c */
void vrnic_pfc_start(struct vrnic_dev *vdev);
void vrnic_pfc_stop(struct vrnic_dev *vdev);
u64 vrnic_pfc_paused_until(struct vrnic_dev *vdev, u32 prio);
void vrnic_pfc_count_duration(struct vrnic_dev *vdev);

/* net.c */
int vrnic_udp_get(struct vrnic_dev *vdev);
void vrnic_udp_put(struct vrnic_dev *vdev);
struct net *vrnic_dev_net(struct vrnic_dev *vdev);
struct socket *vrnic_udp_sock4(struct vrnic_dev *vdev);
struct socket *vrnic_udp_sock6(struct vrnic_dev *vdev);	/* NULL without IPv6 */
int vrnic_net_init(void);
void vrnic_net_exit(void);

/* mcast.c */
void vrnic_mcast_init(struct vrnic_dev *vdev);
void vrnic_mcast_cleanup(struct vrnic_dev *vdev);
int vrnic_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
int vrnic_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
int vrnic_mcast_deliver(struct vrnic_dev *vdev, const union ib_gid *mgid,
			struct sk_buff *skb);

/* recv.c: consumes @skb in every case */
int vrnic_rcv(struct sk_buff *skb);
int vrnic_rcv_dev(struct vrnic_dev *vdev, struct sk_buff *skb, int from_cpu);
struct vrnic_dev *vrnic_dev_from_daddr(struct sk_buff *skb);
void vrnic_loop_init(void);
void vrnic_loop_exit(void);

#endif /* VRNIC_H */
