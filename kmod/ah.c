// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: address handles.
 *
 * A user AH gets a number librxe writes into its UD WQEs
 * (rxe_send_wr.wr.ud.ah_num); copying such a WQE out of the SQ turns the
 * number back into the address (vrnic_ah_copy_av()).  Kernel AHs travel
 * by value: post_send copies their struct vrnic_av into the WQE.
 */

#include <rdma/ib_verbs.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "verbs.h"
#include "config.h"

/**
 * vrnic_av_from_attr - resolve an address vector
 * @av: result
 * @attr: a RoCE address with a GRH and a source GID entry (ib_core has
 *	resolved the destination MAC already)
 *
 * Return: 0, or -EINVAL if @attr is not a RoCEv2 (IPv4/IPv6) address.
 */
int vrnic_av_from_attr(struct vrnic_av *av, const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid_attr;
	struct net_device *ndev;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	sgid_attr = grh->sgid_attr;
	if (!sgid_attr)
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	av->network_type = rdma_gid_attr_network_type(sgid_attr);
	/* RoCEv1 GIDs are never in our table: the port is UDP only. */
	if (av->network_type != RDMA_NETWORK_IPV4 &&
	    av->network_type != RDMA_NETWORK_IPV6)
		return -EINVAL;

	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	av->sgid_index = grh->sgid_index;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->sl = rdma_ah_get_sl(attr) & (VRNIC_NUM_PRIO - 1);
	av->flow_label = grh->flow_label;
	av->sgid = sgid_attr->gid;
	av->dgid = grh->dgid;
	rdma_gid2ip((struct sockaddr *)&av->saddr, &av->sgid);
	rdma_gid2ip((struct sockaddr *)&av->daddr, &av->dgid);
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid_attr);
	if (!IS_ERR(ndev))
		av->ifindex = ndev->ifindex;
	rcu_read_unlock();
	return 0;
}

int vrnic_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		    struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibah->device);
	struct vrnic_ah *ah = to_vah(ibah);
	struct rxe_create_ah_resp resp = {};
	int err;

	if (rdma_ah_get_port_num(init_attr->ah_attr) != 1)
		return -EINVAL;
	err = vrnic_av_from_attr(&ah->av, init_attr->ah_attr);
	if (err)
		return err;

	err = vrnic_obj_get(&vdev->num_ah, READ_ONCE(vdev->limits.max_ah));
	if (err)
		return err;

	ah->ah_num = 0;
	/* A librxe too old for AH numbers passes no response buffer. */
	if (!udata || udata->outlen < sizeof(resp))
		return 0;

	err = xa_alloc_cyclic_irq(&vdev->ah_xa, &ah->ah_num, ah,
				  XA_LIMIT(1, U32_MAX), &vdev->next_ah_num,
				  GFP_KERNEL);
	if (err < 0)
		goto err_put;

	resp.ah_num = ah->ah_num;
	err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (err)
		goto err_erase;
	return 0;

err_erase:
	xa_erase_irq(&vdev->ah_xa, ah->ah_num);
err_put:
	vrnic_obj_put(&vdev->num_ah);
	return err;
}

int vrnic_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	const struct vrnic_ah *ah = to_vah(ibah);
	union ib_gid dgid = ah->av.dgid;

	memset(attr, 0, sizeof(*attr));
	attr->type = ibah->type;
	rdma_ah_set_port_num(attr, 1);
	rdma_ah_set_grh(attr, &dgid, ah->av.flow_label,
			ah->av.sgid_index, ah->av.hop_limit,
			ah->av.traffic_class);
	memcpy(attr->roce.dmac, ah->av.dmac, ETH_ALEN);
	return 0;
}

int vrnic_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct vrnic_dev *vdev = to_vdev(ibah->device);
	struct vrnic_ah *ah = to_vah(ibah);

	/*
	 * Readers copy the AV under the xarray lock, so once the entry is
	 * gone nobody still looks at @ah and ib_core may free it.
	 */
	if (ah->ah_num)
		xa_erase_irq(&vdev->ah_xa, ah->ah_num);
	vrnic_obj_put(&vdev->num_ah);
	return 0;
}

/**
 * vrnic_ah_copy_av - copy the address of a user AH by number
 * @qp: the sending UD QP; the AH must belong to its PD
 * @ah_num: rxe_send_wr.wr.ud.ah_num from a user WQE
 * @av: result
 *
 * Return: 0, or -EINVAL for an unknown AH or one of another PD.
 */
int vrnic_ah_copy_av(struct vrnic_qp *qp, u32 ah_num, struct vrnic_av *av)
{
	struct vrnic_dev *vdev = vrnic_qp_dev(qp);
	struct vrnic_ah *ah;
	unsigned long flags;
	int err = -EINVAL;

	xa_lock_irqsave(&vdev->ah_xa, flags);
	ah = xa_load(&vdev->ah_xa, ah_num);
	if (ah && ah->ibah.pd == qp->ibqp.pd) {
		memcpy(av, &ah->av, sizeof(*av));
		err = 0;
	}
	xa_unlock_irqrestore(&vdev->ah_xa, flags);
	return err;
}
