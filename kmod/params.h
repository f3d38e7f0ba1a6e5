/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic default limits and constants, in one place.
 */
#ifndef VRNIC_PARAMS_H
#define VRNIC_PARAMS_H

#include <linux/sizes.h>

#define VRNIC_UDP_PORT			4791

/*
 * uverbs ABI version of the rxe user ABI (<rdma/rdma_user_rxe.h>): librxe
 * in rdma-core accepts exactly this value from the uverbs sysfs node.
 */
#define VRNIC_UVERBS_ABI_VERSION	2

/* Vendor identification reported by query_device. */
#define VRNIC_VENDOR_ID			0xffffff
#define VRNIC_VENDOR_PART_ID		0x5652 /* "VR" */
#define VRNIC_HW_VERSION		1

/* Default device limits; the netlink "limits" object can lower or raise them. */
#define VRNIC_DEF_MAX_QP		0x10000
#define VRNIC_DEF_MAX_QP_WR		0x4000
#define VRNIC_DEF_MAX_SGE		32
#define VRNIC_DEF_MAX_INLINE_DATA	512
#define VRNIC_DEF_MAX_CQ		0x4000
/*
 * libfabric's ofi_rxm sizes one CQ for every peer of its universe
 * (FI_UNIVERSE_SIZE, 1024 by default) times the MSG endpoint's 128 sends
 * and 128 receives: 256 Ki entries.  ConnectX offers 4 Mi - 1.
 */
#define VRNIC_DEF_MAX_CQE		0x100000
#define VRNIC_DEF_MAX_MR		0x40000
#define VRNIC_DEF_MAX_MR_SIZE		(~0ULL)
#define VRNIC_DEF_MAX_PD		0x8000
#define VRNIC_DEF_MAX_SRQ		0x4000
#define VRNIC_DEF_MAX_AH		0x8000
#define VRNIC_DEF_MAX_QP_RD_ATOM	128

/* The ceilings of the limits are API: VRNIC_CAP_* in uapi/vrnic.h. */

/* Memory windows per device (fixed; not a netlink limit). */
#define VRNIC_MAX_MW			0x10000

/*
 * UD multicast (mcast.c), fixed: groups per device, UD QPs attached to
 * one group, attachments in all.
 */
#define VRNIC_MAX_MCAST_GRP		1024
#define VRNIC_MAX_MCAST_QP_ATTACH	64
#define VRNIC_MAX_TOTAL_MCAST_QP_ATTACH	4096

/* Pages one fast-registration MR can map (IB_WR_REG_MR). */
#define VRNIC_MAX_FMR_PAGES		512

/*
 * Device-wide budget for request packets a responder holds instead of
 * executing at once: out of order (at most 256 per QP, a requester's
 * window) or queued behind a long READ (at most 1024 per QP), counted by
 * skb truesize.  Without it one user's QPs could pin hundreds of MiB of
 * packets.  32 MiB holds the full reorder window of ~15 QPs at a 4 KiB
 * MTU, ~55 at 1 KiB; a packet beyond it is dropped (drop_held_budget)
 * and RC recovers it by NAK or retransmission.
 */
#define VRNIC_HELD_BYTES_MAX		(32UL << 20)

#define VRNIC_MAX_PKEYS			1
#define VRNIC_DEFAULT_PKEY		0xffff
#define VRNIC_GID_TABLE_LEN		1024

#endif /* VRNIC_PARAMS_H */
