// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: the verbs object operations and their per-device tables.
 */

#include <rdma/ib_verbs.h>

#include "verbs.h"

/**
 * vrnic_verbs_init - set up the object tables of a new device
 * @vdev: the device, after ib_alloc_device(), before ib_register_device()
 */
void vrnic_verbs_init(struct vrnic_dev *vdev)
{
	xa_init_flags(&vdev->qp_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&vdev->mr_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&vdev->ah_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&vdev->srq_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	vdev->next_qpn = 16;
	vdev->next_mr_index = 1;
	vdev->next_ah_num = 1;
	vdev->next_srq_num = 1;
	vrnic_mcast_init(vdev);

	/*
	 * Write commands ib_core leaves off by default: POST_SEND is
	 * librxe's doorbell, REQ_NOTIFY_CQ arms user CQs.
	 */
	vdev->ibdev.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				       BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
}

/**
 * vrnic_verbs_cleanup - release the object tables
 * @vdev: the device; ib_core has destroyed every object by now
 */
void vrnic_verbs_cleanup(struct vrnic_dev *vdev)
{
	WARN_ON(!xa_empty(&vdev->qp_xa));
	WARN_ON(!xa_empty(&vdev->mr_xa));
	WARN_ON(!xa_empty(&vdev->ah_xa));
	WARN_ON(!xa_empty(&vdev->srq_xa));
	xa_destroy(&vdev->qp_xa);
	xa_destroy(&vdev->mr_xa);
	xa_destroy(&vdev->ah_xa);
	xa_destroy(&vdev->srq_xa);
	vrnic_mcast_cleanup(vdev);
}

const struct ib_device_ops vrnic_verbs_ops = {
	.alloc_mr = vrnic_alloc_mr,
	.alloc_mw = vrnic_alloc_mw,
	.attach_mcast = vrnic_attach_mcast,
	.create_ah = vrnic_create_ah,
	.create_cq = vrnic_create_cq,
	.create_qp = vrnic_create_qp,
	.create_srq = vrnic_create_srq,
	.create_user_ah = vrnic_create_ah,
	.dealloc_mw = vrnic_dealloc_mw,
	.dereg_mr = vrnic_dereg_mr,
	.destroy_ah = vrnic_destroy_ah,
	.destroy_cq = vrnic_destroy_cq,
	.destroy_qp = vrnic_destroy_qp,
	.destroy_srq = vrnic_destroy_srq,
	.detach_mcast = vrnic_detach_mcast,
	.get_dma_mr = vrnic_get_dma_mr,
	.map_mr_sg = vrnic_map_mr_sg,
	.mmap = vrnic_mmap,
	.mmap_free = vrnic_mmap_free,
	.modify_qp = vrnic_modify_qp,
	.modify_srq = vrnic_modify_srq,
	.poll_cq = vrnic_poll_cq,
	.post_recv = vrnic_post_recv,
	.post_send = vrnic_post_send,
	.post_srq_recv = vrnic_post_srq_recv,
	.query_ah = vrnic_query_ah,
	.query_qp = vrnic_query_qp,
	.query_srq = vrnic_query_srq,
	.reg_user_mr = vrnic_reg_user_mr,
	.req_notify_cq = vrnic_req_notify_cq,
	.resize_cq = vrnic_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, vrnic_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, vrnic_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, vrnic_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_qp, vrnic_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, vrnic_srq, ibsrq),
};
