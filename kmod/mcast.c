// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: UD multicast.
 *
 * A multicast group is named by its MGID; over RoCEv2 (IBTA annex A17)
 * that is an IPv6 multicast address or an IPv4-mapped IPv4 one
 * (::ffff:224.0.0.0/100), and the group's packets are IP multicast
 * datagrams to that address.  UD QPs attach to a group
 * (ibv_attach_mcast(), or librdmacm after rdma_join_multicast()); a UD
 * SEND to the group carries the multicast destination QP 0xFFFFFF
 * (IB_MULTICAST_QPN) and is sent once, as one datagram; the receive path
 * (recv.c) hands a copy of it to every QP attached to the group here,
 * each checking the Q_Key as for any UD packet.
 *
 * What reaches us: the IP stack passes a multicast datagram up to the
 * UDP socket only if the netdev has joined the group.  rdma_cm's join
 * does that for IPv4 groups (an IGMP join on the netdev, as it does for
 * rdma_rxe); an application that attaches without rdma_cm joins the group
 * itself (e.g. "ip address add GROUP/32 dev NETDEV autojoin").  It also
 * loops a copy of what this host sends back to the sending netdev, which
 * is how QPs of the sending device receive it.  Attaching adds the
 * group's MAC address to the netdev's filter, as an HCA programs its
 * port's.
 *
 * Lifetimes: groups and attachments change under vdev->mcg_mutex; the
 * receive path reads them under RCU.  ib_core refuses to destroy a QP
 * that is still attached (qp->usecnt), and ib_uverbs detaches a
 * process's QPs before destroying them, so an attachment never outlives
 * its QP; detach waits for an RCU grace period before it returns, after
 * which no receiver can still reach the QP through the group.
 */

#include <linux/jhash.h>
#include <linux/rculist.h>
#include <net/ip.h>
#include <net/addrconf.h>
#include <rdma/ib_verbs.h>

#include "verbs.h"

/**
 * struct vrnic_mcg - a multicast group with at least one QP attached
 * @node: in vrnic_dev.mcg_hash
 * @mgid: the group's GID
 * @qps: the attached QPs, struct vrnic_mca; RCU for readers
 * @num_qps: entries in @qps; vrnic_dev.mcg_mutex
 */
struct vrnic_mcg {
	struct hlist_node node;
	union ib_gid mgid;
	struct list_head qps;
	u32 num_qps;
};

/* One QP attached to one group. */
struct vrnic_mca {
	struct list_head node;	/* in vrnic_mcg.qps */
	struct vrnic_qp *qp;
};

static u32 vrnic_mcg_key(const union ib_gid *mgid)
{
	return jhash(mgid->raw, sizeof(mgid->raw), 0);
}

/* The group @mgid of @vdev; under RCU or vdev->mcg_mutex. */
static struct vrnic_mcg *vrnic_mcg_find(struct vrnic_dev *vdev,
					const union ib_gid *mgid)
{
	struct vrnic_mcg *mcg;

	hash_for_each_possible_rcu(vdev->mcg_hash, mcg, node,
				   vrnic_mcg_key(mgid),
				   lockdep_is_held(&vdev->mcg_mutex))
		if (!memcmp(mcg->mgid.raw, mgid->raw, sizeof(mgid->raw)))
			return mcg;
	return NULL;
}

/* @qp's attachment to @mcg (which may be NULL), or NULL; mcg_mutex. */
static struct vrnic_mca *vrnic_mca_find(struct vrnic_mcg *mcg,
					struct vrnic_qp *qp)
{
	struct vrnic_mca *mca;

	if (mcg)
		list_for_each_entry(mca, &mcg->qps, node)
			if (mca->qp == qp)
				return mca;
	return NULL;
}

/* The Ethernet multicast address the group's datagrams go to. */
static void vrnic_mcg_mac(const union ib_gid *mgid, u8 *mac)
{
	const struct in6_addr *addr = (const struct in6_addr *)mgid->raw;

	if (ipv6_addr_v4mapped(addr))
		ip_eth_mc_map(addr->s6_addr32[3], mac);
	else
		ipv6_eth_mc_map(addr, mac);
}

void vrnic_mcast_init(struct vrnic_dev *vdev)
{
	mutex_init(&vdev->mcg_mutex);
	hash_init(vdev->mcg_hash);
}

/*
 * At dealloc_driver every QP is gone, and ib_core destroys none that is
 * still attached, so no group is left.  Should one be (a QP leaked
 * elsewhere), warn and free it all the same.
 */
void vrnic_mcast_cleanup(struct vrnic_dev *vdev)
{
	struct vrnic_mca *mca, *next;
	struct hlist_node *tmp;
	struct vrnic_mcg *mcg;
	u8 mac[ETH_ALEN];
	int bkt;

	WARN_ON(vdev->num_mcg);
	hash_for_each_safe(vdev->mcg_hash, bkt, tmp, mcg, node) {
		list_for_each_entry_safe(mca, next, &mcg->qps, node)
			kfree(mca);
		hash_del(&mcg->node);
		vrnic_mcg_mac(&mcg->mgid, mac);
		dev_mc_del(vdev->ndev, mac);
		kfree(mcg);
	}
	mutex_destroy(&vdev->mcg_mutex);
}

/**
 * vrnic_attach_mcast - attach a UD QP to a multicast group
 * @ibqp: the QP; ib_core has checked that it is UD and @mgid multicast
 * @mgid: the group
 * @mlid: unused: RoCE has no LIDs
 *
 * Attaching a QP that is attached already changes nothing.
 *
 * Return: 0, -EINVAL for a QP that is not UD, or -ENOMEM when a limit
 * (VRNIC_MAX_MCAST_*, reported by query_device) or memory runs out.
 */
int vrnic_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct vrnic_dev *vdev = to_vdev(ibqp->device);
	struct vrnic_qp *qp = to_vqp(ibqp);
	struct vrnic_mcg *mcg, *new_mcg = NULL;
	struct vrnic_mca *mca;
	u8 mac[ETH_ALEN];
	int err;

	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;

	mutex_lock(&vdev->mcg_mutex);
	mcg = vrnic_mcg_find(vdev, mgid);
	err = 0;
	if (vrnic_mca_find(mcg, qp))
		goto out_unlock;
	err = -ENOMEM;
	if (vdev->num_mca >= VRNIC_MAX_TOTAL_MCAST_QP_ATTACH ||
	    (mcg && mcg->num_qps >= VRNIC_MAX_MCAST_QP_ATTACH) ||
	    (!mcg && vdev->num_mcg >= VRNIC_MAX_MCAST_GRP))
		goto out_unlock;
	mca = kzalloc(sizeof(*mca), GFP_KERNEL_ACCOUNT);
	if (!mca)
		goto out_unlock;
	if (!mcg) {
		new_mcg = kzalloc(sizeof(*new_mcg), GFP_KERNEL_ACCOUNT);
		if (!new_mcg)
			goto err_free_mca;
		new_mcg->mgid = *mgid;
		INIT_LIST_HEAD(&new_mcg->qps);
		vrnic_mcg_mac(mgid, mac);
		err = dev_mc_add(vdev->ndev, mac);
		if (err)
			goto err_free_mcg;
		mcg = new_mcg;
	}

	mca->qp = qp;
	list_add_tail_rcu(&mca->node, &mcg->qps);
	mcg->num_qps++;
	vdev->num_mca++;
	if (new_mcg) {
		/* Published whole: the receive path may find it at once. */
		hash_add_rcu(vdev->mcg_hash, &new_mcg->node,
			     vrnic_mcg_key(mgid));
		vdev->num_mcg++;
	}
	mutex_unlock(&vdev->mcg_mutex);
	return 0;

err_free_mcg:
	kfree(new_mcg);
err_free_mca:
	kfree(mca);
out_unlock:
	mutex_unlock(&vdev->mcg_mutex);
	return err;
}

/**
 * vrnic_detach_mcast - detach a UD QP from a multicast group
 * @ibqp: the QP
 * @mgid: the group
 * @mlid: unused
 *
 * Returns after every receiver that could still see the QP through the
 * group has finished with it: ib_core may destroy the QP next.
 *
 * Return: 0, or -EINVAL if @ibqp is not attached to @mgid.
 */
int vrnic_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct vrnic_dev *vdev = to_vdev(ibqp->device);
	struct vrnic_qp *qp = to_vqp(ibqp);
	struct vrnic_mca *found;
	struct vrnic_mcg *mcg;
	u8 mac[ETH_ALEN];

	mutex_lock(&vdev->mcg_mutex);
	mcg = vrnic_mcg_find(vdev, mgid);
	found = vrnic_mca_find(mcg, qp);
	if (!found) {
		mutex_unlock(&vdev->mcg_mutex);
		return -EINVAL;
	}
	list_del_rcu(&found->node);
	vdev->num_mca--;
	if (--mcg->num_qps) {
		mcg = NULL;	/* still in use */
	} else {
		hash_del_rcu(&mcg->node);
		vdev->num_mcg--;
		vrnic_mcg_mac(mgid, mac);
		dev_mc_del(vdev->ndev, mac);
	}
	mutex_unlock(&vdev->mcg_mutex);

	synchronize_rcu();
	kfree(found);
	kfree(mcg);
	return 0;
}

/**
 * vrnic_mcast_deliver - hand a multicast packet to the QPs of its group
 * @vdev: the receiving device
 * @mgid: the group, from the packet's destination address
 * @skb: the packet, headers checked and vrnic_pkt() filled in by
 *	vrnic_rcv_dev(); not consumed: each QP gets a clone
 *
 * A QP that refuses the packet (its state, its Q_Key) counts the drop
 * by its reason, as it would for a packet sent to it alone.  Softirq or
 * process context.
 *
 * Return: the number of QPs the packet was delivered to, or -ENOENT if
 * no QP of @vdev is attached to @mgid.
 */
int vrnic_mcast_deliver(struct vrnic_dev *vdev, const union ib_gid *mgid,
			struct sk_buff *skb)
{
	enum vrnic_counter reason;
	struct vrnic_mcg *mcg;
	struct vrnic_mca *mca;
	struct sk_buff *copy;
	int n = -ENOENT;

	rcu_read_lock();
	mcg = vrnic_mcg_find(vdev, mgid);
	if (!mcg)
		goto out;
	n = 0;
	list_for_each_entry_rcu(mca, &mcg->qps, node) {
		struct vrnic_qp *qp = mca->qp;

		/* Detach waits for us before the QP can be destroyed. */
		if (!refcount_inc_not_zero(&qp->ref))
			continue;
		if (!vrnic_rcv_accepts(qp, skb, &reason)) {
			vrnic_counter_inc(vdev, reason);
			vrnic_qp_put(qp);
			continue;
		}
		copy = skb_clone(skb, GFP_ATOMIC);
		if (copy) {
			vrnic_resp_rcv(qp, copy);
			n++;
		} else {
			vrnic_counter_inc(vdev, VRNIC_CNT_DROP_NO_MEMORY);
		}
		vrnic_qp_put(qp);
	}
out:
	rcu_read_unlock();
	return n;
}
