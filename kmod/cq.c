// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: completion queues.
 *
 * A user CQ is a ring of struct ib_uverbs_wc that librxe polls directly;
 * the kernel only produces into it.  A kernel CQ is a ring of struct
 * ib_wc produced by vrnic_cq_post() and consumed by vrnic_poll_cq().
 */

#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "verbs.h"

static size_t vrnic_cqe_size(bool is_user)
{
	return is_user ? sizeof(struct ib_uverbs_wc) : sizeof(struct ib_wc);
}

static int vrnic_cq_check_size(struct vrnic_dev *vdev, int cqe)
{
	if (cqe < 1 || cqe > READ_ONCE(vdev->limits.max_cqe))
		return -EINVAL;
	return 0;
}

int vrnic_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibcq->device);
	struct vrnic_cq *cq = to_vcq(ibcq);
	struct rxe_create_cq_resp resp = {};
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	err = vrnic_cq_check_size(vdev, attr->cqe);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	err = vrnic_obj_get(&vdev->num_cq, READ_ONCE(vdev->limits.max_cq));
	if (err)
		return err;

	spin_lock_init(&cq->lock);
	cq->is_user = !!udata;
	err = vrnic_queue_init(&cq->q, attr->cqe, vrnic_cqe_size(cq->is_user));
	if (err)
		goto err_put;

	if (udata) {
		err = vrnic_queue_map(&cq->q, udata, &resp.mi);
		if (err)
			goto err_free_queue;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_free_queue;
	}

	ibcq->cqe = vrnic_queue_capacity(&cq->q);
	return 0;

err_free_queue:
	vrnic_queue_free(&cq->q);
err_put:
	vrnic_obj_put(&vdev->num_cq);
	return err;
}

int vrnic_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct vrnic_cq *cq = to_vcq(ibcq);

	/* ib_core refuses while a QP still uses the CQ. */
	vrnic_queue_free(&cq->q);
	vrnic_obj_put(&to_vdev(ibcq->device)->num_cq);
	return 0;
}

/* Entries between the consumer and our producer index; under cq->lock. */
static u32 vrnic_cq_count(struct vrnic_cq *cq)
{
	return vrnic_queue_count(&cq->q);
}

int vrnic_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibcq->device);
	struct vrnic_cq *cq = to_vcq(ibcq);
	struct rxe_resize_cq_resp resp = {};
	struct vrnic_queue nq, oq;
	unsigned long flags;
	u32 i, n, cons;
	size_t esize;
	int err;

	err = vrnic_cq_check_size(vdev, cqe);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;

	esize = vrnic_cqe_size(cq->is_user);
	err = vrnic_queue_init(&nq, cqe, esize);
	if (err)
		return err;
	if (udata) {
		err = vrnic_queue_map(&nq, udata, &resp.mi);
		if (err)
			goto err_free;
	}

	spin_lock_irqsave(&cq->lock, flags);
	n = vrnic_cq_count(cq);
	if (n > vrnic_queue_capacity(&nq)) {
		spin_unlock_irqrestore(&cq->lock, flags);
		err = -EINVAL;
		goto err_free;
	}
	/* Carry over the completions not yet polled, oldest first. */
	cons = vrnic_queue_load_cons(&cq->q);
	for (i = 0; i < n; i++)
		memcpy(vrnic_queue_slot(&nq, i),
		       vrnic_queue_slot(&cq->q, cons + i), esize);
	nq.prod = n;
	nq.buf->producer_index = n;
	oq = cq->q;
	cq->q = nq;
	ibcq->cqe = vrnic_queue_capacity(&nq);
	spin_unlock_irqrestore(&cq->lock, flags);

	vrnic_queue_free(&oq);

	if (udata)
		return ib_copy_to_udata(udata, &resp, sizeof(resp));
	return 0;

err_free:
	vrnic_queue_free(&nq);
	return err;
}

int vrnic_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct vrnic_cq *cq = to_vcq(ibcq);
	unsigned long flags;
	int n = 0;

	/* User CQs are polled by librxe, never through here. */
	if (cq->is_user)
		return -EINVAL;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries && cq->q.cons != cq->q.prod) {
		memcpy(&wc[n++], vrnic_queue_slot(&cq->q, cq->q.cons),
		       sizeof(*wc));
		vrnic_queue_advance_cons(&cq->q);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int vrnic_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct vrnic_cq *cq = to_vcq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* A pending "next completion" request covers a solicited one. */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && vrnic_cq_count(cq))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/*
 * librxe copies a CQE into struct ibv_wc as it is, so wc_flags must carry
 * libibverbs' bit values, which differ from the kernel's enum ib_wc_flags
 * for two bits: IBV_WC_IP_CSUM_OK is 1 << 2 and IBV_WC_WITH_INV 1 << 3.
 */
#define VRNIC_UWC_GRH		BIT(0)
#define VRNIC_UWC_WITH_IMM	BIT(1)
#define VRNIC_UWC_IP_CSUM_OK	BIT(2)
#define VRNIC_UWC_WITH_INV	BIT(3)

static u32 vrnic_wc_flags_to_user(int flags)
{
	u32 u = 0;

	if (flags & IB_WC_GRH)
		u |= VRNIC_UWC_GRH;
	if (flags & IB_WC_WITH_IMM)
		u |= VRNIC_UWC_WITH_IMM;
	if (flags & IB_WC_WITH_INVALIDATE)
		u |= VRNIC_UWC_WITH_INV;
	if (flags & IB_WC_IP_CSUM_OK)
		u |= VRNIC_UWC_IP_CSUM_OK;
	return u;
}

/*
 * IBTA annex A17.4.5.1: the completion of a RoCEv2 UD receive says
 * whether the packet was IPv4 or IPv6, which tells the consumer where in
 * the 40 bytes ahead of the payload (A17.4.5.2) the addresses are: the
 * IPv6 header fills them, the IPv4 header only the last 20.  The kernel's
 * ib_wc has network_hdr_type for it, struct ib_uverbs_wc has no field.
 * ConnectX reports it in the SL of a RoCE receive completion (bits 2:0
 * the L3 header type, 1 IPv6 and 2 IPv4, bit 3 set for a UDP header),
 * and UD consumers read it there: UCX's ud_verbs takes the destination
 * GID from the wrong bytes without it and drops every IPv4 packet.  So
 * the user CQE carries it the same way.
 */
#define VRNIC_UWC_SL_IPV6	0x9
#define VRNIC_UWC_SL_IPV4	0xa

static u8 vrnic_wc_sl_to_user(const struct ib_wc *wc)
{
	if (!(wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE))
		return wc->sl;
	switch (wc->network_hdr_type) {
	case RDMA_NETWORK_IPV4:
		return VRNIC_UWC_SL_IPV4;
	case RDMA_NETWORK_IPV6:
		return VRNIC_UWC_SL_IPV6;
	default:
		return wc->sl;
	}
}

static void vrnic_cq_to_user(struct ib_uverbs_wc *uwc, const struct ib_wc *wc)
{
	memset(uwc, 0, sizeof(*uwc));
	uwc->wr_id = wc->wr_id;
	uwc->status = wc->status;
	uwc->opcode = wc->opcode;
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
		uwc->ex.invalidate_rkey = wc->ex.invalidate_rkey;
	else
		uwc->ex.imm_data = wc->ex.imm_data;
	uwc->qp_num = wc->qp->qp_num;
	uwc->src_qp = wc->src_qp;
	uwc->wc_flags = vrnic_wc_flags_to_user(wc->wc_flags);
	uwc->pkey_index = wc->pkey_index;
	uwc->slid = wc->slid;
	uwc->sl = vrnic_wc_sl_to_user(wc);
	uwc->dlid_path_bits = wc->dlid_path_bits;
	uwc->port_num = wc->port_num;
}

/**
 * vrnic_cq_post - add a completion to a CQ
 * @cq: the CQ
 * @wc: the completion; @wc->qp must be set
 * @solicited: the completion is for a solicited event (SE bit)
 *
 * IBA 11.4.2.2: a CQ armed for solicited completions also fires for a
 * completion in error.  Any context.
 *
 * Return: 0, or -ENOSPC when the CQ is full: the completion is lost and
 * IB_EVENT_CQ_ERR reported once; the caller moves the QP to ERR.
 */
int vrnic_cq_post(struct vrnic_cq *cq, const struct ib_wc *wc, bool solicited)
{
	struct ib_cq *ibcq = &cq->ibcq;
	bool fire = false, report = false;
	unsigned long flags;
	void *slot;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->overflow || vrnic_queue_full(&cq->q)) {
		report = !cq->overflow;
		cq->overflow = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (report && ibcq->event_handler) {
			struct ib_event ev = {
				.device = ibcq->device,
				.element.cq = ibcq,
				.event = IB_EVENT_CQ_ERR,
			};

			ibcq->event_handler(&ev, ibcq->cq_context);
		}
		return -ENOSPC;
	}

	slot = vrnic_queue_slot(&cq->q, cq->q.prod);
	if (cq->is_user)
		vrnic_cq_to_user(slot, wc);
	else
		memcpy(slot, wc, sizeof(*wc));
	vrnic_queue_advance_prod(&cq->q);

	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED &&
	     (solicited || wc->status != IB_WC_SUCCESS))) {
		cq->notify = 0;
		fire = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (fire && ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
	return 0;
}
