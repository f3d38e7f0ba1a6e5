// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: a software RoCEv2 RDMA NIC.
 *
 * Module init/exit, the device-level ib_device_ops, "rdma link" support
 * and the netdev notifier that keeps each device in step with its netdev.
 */

#include <linux/module.h>
#include <linux/if_arp.h>
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/rdma_user_rxe.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#include "vrnic.h"
#include "cc.h"
#include "verbs.h"
#include "config.h"

MODULE_AUTHOR("vrnic developers");
MODULE_DESCRIPTION("vrnic: software RoCEv2 RDMA NIC");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");

/*
 * vrnic_dev_list holds every vrnic device from just before
 * ib_register_device() until its dealloc_driver callback; it is protected
 * by vrnic_dev_mutex.  Entries may be unregistered or not yet registered:
 * users take a reference with ib_device_try_get() before trusting one.
 *
 * Lock order: vrnic_link_mutex -> (rtnl, taken inside ib_core) and
 * vrnic_link_mutex -> vrnic_dev_mutex.  Nothing takes vrnic_dev_mutex and
 * then rtnl, and the netdev notifier (which runs under rtnl) takes
 * neither: it finds devices through vrnic_ndev_hash instead.
 */
DEFINE_MUTEX(vrnic_dev_mutex);
LIST_HEAD(vrnic_dev_list);

/*
 * Every vrnic device by its netdev, from just before ib_register_device()
 * until its dealloc_driver callback, for the lookups of the receive path
 * and the netdev notifier (RCU readers).  Writers hold
 * vrnic_ndev_hash_lock.  A reader may still see a device after its
 * removal: ib_core frees the ib_device only after a grace period
 * (kfree_rcu() in its release), and ib_device_try_get() fails for a
 * device that is not registered.
 *
 * Not ib_core's own netdev hash (ib_device_set_netdev()): rdma_rxe looks
 * up its devices there by driver_id, which is ours too (docs/uabi.md),
 * and takes whatever it finds for a struct rxe_dev.  With a vrnic device
 * in that hash, loading rdma_rxe or taking the netdev up or down wrote
 * rxe's port state past the end of struct vrnic_dev (KASAN:
 * slab-out-of-bounds in rxe_notify()).  ib_core learns the netdev
 * through the get_netdev op instead.
 */
static DEFINE_HASHTABLE(vrnic_ndev_hash, 5);
static DEFINE_SPINLOCK(vrnic_ndev_hash_lock);

static void vrnic_ndev_hash_add(struct vrnic_dev *vdev)
{
	spin_lock(&vrnic_ndev_hash_lock);
	hash_add_rcu(vrnic_ndev_hash, &vdev->ndev_link, (unsigned long)vdev->ndev);
	spin_unlock(&vrnic_ndev_hash_lock);
}

static void vrnic_ndev_hash_del(struct vrnic_dev *vdev)
{
	spin_lock(&vrnic_ndev_hash_lock);
	if (hash_hashed(&vdev->ndev_link))
		hash_del_rcu(&vdev->ndev_link);
	spin_unlock(&vrnic_ndev_hash_lock);
}

/* Serialises "rdma link add" so the duplicate checks cannot race. */
static DEFINE_MUTEX(vrnic_link_mutex);

/**
 * vrnic_dev_get_by_name - find a registered vrnic device by name
 * @name: ib_device name, e.g. "vrnic0"
 *
 * Return: the device with a reference held (drop it with vrnic_dev_put()),
 * or NULL if no registered vrnic device has that name.
 */
struct vrnic_dev *vrnic_dev_get_by_name(const char *name)
{
	struct vrnic_dev *vdev, *found = NULL;

	mutex_lock(&vrnic_dev_mutex);
	list_for_each_entry(vdev, &vrnic_dev_list, list) {
		if (!ib_device_try_get(&vdev->ibdev))
			continue;
		if (!strcmp(dev_name(&vdev->ibdev.dev), name)) {
			found = vdev;
			break;
		}
		ib_device_put(&vdev->ibdev);
	}
	mutex_unlock(&vrnic_dev_mutex);
	return found;
}

void vrnic_dev_put(struct vrnic_dev *vdev)
{
	ib_device_put(&vdev->ibdev);
}

/**
 * vrnic_dev_get_by_netdev - find the vrnic device bound to a netdev
 * @ndev: the net device
 *
 * Return: the device with a reference held (drop it with vrnic_dev_put()),
 * or NULL if @ndev carries no vrnic device (none, or an rdma_rxe one).
 */
struct vrnic_dev *vrnic_dev_get_by_netdev(struct net_device *ndev)
{
	struct vrnic_dev *vdev, *found = NULL;

	rcu_read_lock();
	hash_for_each_possible_rcu(vrnic_ndev_hash, vdev, ndev_link,
				   (unsigned long)ndev) {
		if (vdev->ndev == ndev && ib_device_try_get(&vdev->ibdev)) {
			found = vdev;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

static enum ib_port_state vrnic_netdev_port_state(struct net_device *ndev)
{
	return netif_running(ndev) && netif_oper_up(ndev) ?
	       IB_PORT_ACTIVE : IB_PORT_DOWN;
}

static int vrnic_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibdev);
	const struct vrnic_limits *lim = &vdev->limits;

	if (udata->inlen || udata->outlen)
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	/* Shown by ibv_devinfo as major.minor.sub from the top 16-bit words. */
	attr->fw_ver = (u64)VRNIC_HW_VERSION << 32;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = READ_ONCE(lim->max_mr_size);
	attr->page_size_cap = PAGE_SIZE | SZ_2M;
	attr->vendor_id = VRNIC_VENDOR_ID;
	attr->vendor_part_id = VRNIC_VENDOR_PART_ID;
	attr->hw_ver = VRNIC_HW_VERSION;
	attr->max_qp = READ_ONCE(lim->max_qp);
	attr->max_qp_wr = READ_ONCE(lim->max_qp_wr);
	attr->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR |
				 IB_DEVICE_BAD_QKEY_CNTR |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_SRQ_RESIZE |
				 IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2B |
				 VRNIC_DEVICE_ATOMIC_WRITE;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_send_sge = READ_ONCE(lim->max_sge);
	attr->max_recv_sge = READ_ONCE(lim->max_sge);
	attr->max_sge_rd = READ_ONCE(lim->max_sge);
	attr->max_cq = READ_ONCE(lim->max_cq);
	attr->max_cqe = READ_ONCE(lim->max_cqe);
	attr->max_mr = READ_ONCE(lim->max_mr);
	attr->max_mw = VRNIC_MAX_MW;
	attr->max_pd = READ_ONCE(lim->max_pd);
	attr->max_qp_rd_atom = READ_ONCE(lim->max_qp_rd_atom);
	attr->max_qp_init_rd_atom = READ_ONCE(lim->max_qp_rd_atom);
	attr->max_res_rd_atom = READ_ONCE(lim->max_qp_rd_atom) *
				READ_ONCE(lim->max_qp);
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_ah = READ_ONCE(lim->max_ah);
	attr->max_srq = READ_ONCE(lim->max_srq);
	attr->max_srq_wr = READ_ONCE(lim->max_qp_wr);
	attr->max_srq_sge = READ_ONCE(lim->max_sge);
	attr->max_fast_reg_page_list_len = VRNIC_MAX_FMR_PAGES;
	attr->max_mcast_grp = VRNIC_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = VRNIC_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = VRNIC_MAX_TOTAL_MCAST_QP_ATTACH;
	attr->max_pkeys = VRNIC_MAX_PKEYS;
	attr->local_ca_ack_delay = 15;
	return 0;
}

static int vrnic_query_port(struct ib_device *ibdev, u32 port_num,
			    struct ib_port_attr *attr)
{
	struct vrnic_dev *vdev = to_vdev(ibdev);
	struct net_device *ndev = vdev->ndev;

	/* ib_query_port() zeroes *attr before calling us. */
	attr->state = vrnic_netdev_port_state(ndev);
	if (attr->state == IB_PORT_ACTIVE)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (dev_get_flags(ndev) & IFF_UP)
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = vrnic_ndev_active_mtu(ndev);
	attr->gid_tbl_len = VRNIC_GID_TABLE_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = 1U << 31;
	attr->pkey_tbl_len = VRNIC_MAX_PKEYS;
	attr->max_vl_num = 1;
	attr->init_type_reply = 0;

	/*
	 * The netdev may be mid-unregistration (ib_core refreshes its caches
	 * on the way out): report a nominal speed rather than fail the query.
	 */
	if (ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
			     &attr->active_width)) {
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	}
	return 0;
}

static int vrnic_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				    struct ib_port_immutable *immutable)
{
	/* RoCEv2 only: we do not speak RoCEv1 (raw Ethertype 0x8915). */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = VRNIC_MAX_PKEYS;
	immutable->gid_tbl_len = VRNIC_GID_TABLE_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static int vrnic_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			    u16 *pkey)
{
	if (index >= VRNIC_MAX_PKEYS)
		return -EINVAL;
	*pkey = VRNIC_DEFAULT_PKEY;
	return 0;
}

static enum rdma_link_layer vrnic_get_link_layer(struct ib_device *ibdev,
						 u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int vrnic_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	return 0;
}

static void vrnic_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

/*
 * ib_uverbs calls this when the device goes away (rdma link delete, the
 * netdev or its namespace being removed, rmmod) while a process still has
 * it open, and then destroys that process's objects as if it had exited.
 * Providing it is what lets removal proceed instead of waiting for every
 * such process to close the device, and keeps an open uverbs file from
 * pinning the module.  There is nothing to tear down here: the only memory
 * a process maps from vrnic is its rings, vmalloc pages that its mapping
 * holds a page reference to (remap_vmalloc_range()), never device memory,
 * so they stay valid, and unused by the kernel, until it unmaps them; every
 * later verb it issues fails in ib_uverbs with EIO.
 */
static void vrnic_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static int vrnic_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct vrnic_dev *vdev = to_vdev(ibpd->device);

	return vrnic_obj_get(&vdev->num_pd, READ_ONCE(vdev->limits.max_pd));
}

static int vrnic_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	vrnic_obj_put(&to_vdev(ibpd->device)->num_pd);
	return 0;
}

static void vrnic_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%d.0.0", VRNIC_HW_VERSION);
}

/*
 * The port's netdev, for ib_core (GID table, nldev, link speed): held
 * for as long as the device exists, so a further reference is safe to
 * hand out; ib_core drops it and ignores a netdev that is unregistering.
 * See vrnic_ndev_hash for why not ib_device_set_netdev().
 */
static struct net_device *vrnic_get_netdev(struct ib_device *ibdev,
					   u32 port_num)
{
	struct net_device *ndev = to_vdev(ibdev)->ndev;

	dev_hold(ndev);
	return ndev;
}

/*
 * Called by ib_core exactly once, from ib_dealloc_device() on a failed
 * registration or at the end of unregistration: undo vrnic_newlink().
 */
static void vrnic_dealloc_driver(struct ib_device *ibdev)
{
	struct vrnic_dev *vdev = to_vdev(ibdev);

	mutex_lock(&vrnic_dev_mutex);
	list_del_init(&vdev->list);
	mutex_unlock(&vrnic_dev_mutex);
	vrnic_ndev_hash_del(vdev);

	vrnic_pfc_stop(vdev);
	vrnic_verbs_cleanup(vdev);
	vrnic_udp_put(vdev);
	vrnic_config_free(vdev);
	vrnic_counters_dev_cleanup(vdev);
	free_percpu(vdev->stats);
	netdev_put(vdev->ndev, &vdev->ndev_tracker);
}

static const struct ib_device_ops vrnic_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = VRNIC_UVERBS_ABI_VERSION,

	.alloc_hw_port_stats = vrnic_alloc_hw_port_stats,
	.alloc_pd = vrnic_alloc_pd,
	.alloc_ucontext = vrnic_alloc_ucontext,
	.counter_alloc_stats = vrnic_counter_alloc_stats,
	.counter_bind_qp = vrnic_counter_bind_qp,
	.counter_dealloc = vrnic_counter_dealloc,
	.counter_unbind_qp = vrnic_counter_unbind_qp,
	.counter_update_stats = vrnic_counter_update_stats,
	.dealloc_driver = vrnic_dealloc_driver,
	.dealloc_pd = vrnic_dealloc_pd,
	.dealloc_ucontext = vrnic_dealloc_ucontext,
	.disassociate_ucontext = vrnic_disassociate_ucontext,
	.fill_res_qp_entry = vrnic_fill_res_qp_entry,
	.get_dev_fw_str = vrnic_get_dev_fw_str,
	.get_hw_stats = vrnic_get_hw_stats,
	.get_link_layer = vrnic_get_link_layer,
	.get_netdev = vrnic_get_netdev,
	.get_port_immutable = vrnic_get_port_immutable,
	.query_device = vrnic_query_device,
	.query_pkey = vrnic_query_pkey,
	.query_port = vrnic_query_port,

	INIT_RDMA_OBJ_SIZE(ib_pd, vrnic_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, vrnic_ucontext, ibuc),
};

/*
 * Does any vrnic device hold @ndev, registered or not?  Not
 * vrnic_dev_get_by_netdev(): that one returns only registered devices,
 * and a device still registering (or already unregistering) holds its
 * netdev as well.  Under vrnic_link_mutex.
 */
static bool vrnic_netdev_is_bound(struct net_device *ndev)
{
	struct vrnic_dev *vdev;
	bool bound = false;

	mutex_lock(&vrnic_dev_mutex);
	list_for_each_entry(vdev, &vrnic_dev_list, list) {
		if (vdev->ndev == ndev) {
			bound = true;
			break;
		}
	}
	mutex_unlock(&vrnic_dev_mutex);
	return bound;
}

static int vrnic_newlink(const char *name, struct net_device *ndev)
{
	struct ib_device *existing;
	struct vrnic_dev *vdev;
	bool dead;
	int err;

	/* RoCE runs over Ethernet only (also excludes loopback, tunnels). */
	if (ndev->type != ARPHRD_ETHER || ndev->addr_len != ETH_ALEN)
		return -EINVAL;

	mutex_lock(&vrnic_link_mutex);

	existing = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (existing) {
		ib_device_put(existing);
		err = -EEXIST;
		goto out_unlock;
	}
	if (vrnic_netdev_is_bound(ndev)) {
		err = -EEXIST;
		goto out_unlock;
	}

	vdev = ib_alloc_device(vrnic_dev, ibdev);
	if (!vdev) {
		err = -ENOMEM;
		goto out_unlock;
	}
	INIT_LIST_HEAD(&vdev->list);
	mutex_init(&vdev->cfg_mutex);
	vdev->ndev = ndev;
	netdev_hold(ndev, &vdev->ndev_tracker, GFP_KERNEL);

	vdev->stats = alloc_percpu(struct vrnic_counters);
	if (!vdev->stats) {
		err = -ENOMEM;
		goto err_put_ndev;
	}
	vrnic_counters_dev_init(vdev);
	vrnic_limits_init(&vdev->limits);
	err = vrnic_config_alloc(vdev);
	if (err)
		goto err_free_stats;
	err = vrnic_udp_get(vdev);
	if (err)
		goto err_free_config;
	vrnic_verbs_init(vdev);

	/*
	 * From here on vrnic_dealloc_driver() owns the cleanup: ib_core calls
	 * it from ib_dealloc_device() if registration fails.
	 */
	vdev->ibdev.node_type = RDMA_NODE_IB_CA;
	vdev->ibdev.phys_port_cnt = 1;
	vdev->ibdev.num_comp_vectors = num_possible_cpus();
	vdev->ibdev.local_dma_lkey = 0;
	strscpy(vdev->ibdev.node_desc, "vrnic", sizeof(vdev->ibdev.node_desc));
	addrconf_addr_eui48((unsigned char *)&vdev->ibdev.node_guid,
			    ndev->dev_addr);
	/* Like a hardware RNIC: sit under the NIC's own parent in sysfs. */
	vdev->ibdev.dev.parent = ndev->dev.parent;
	vdev->port_state = vrnic_netdev_port_state(ndev);

	ib_set_device_ops(&vdev->ibdev, &vrnic_dev_ops);
	ib_set_device_ops(&vdev->ibdev, &vrnic_verbs_ops);
	vrnic_pfc_start(vdev);

	mutex_lock(&vrnic_dev_mutex);
	list_add_tail(&vdev->list, &vrnic_dev_list);
	mutex_unlock(&vrnic_dev_mutex);
	vrnic_ndev_hash_add(vdev);

	err = ib_register_device(&vdev->ibdev, name, NULL);
	if (err)
		goto err_dealloc;

	/*
	 * nldev found @ndev before calling us, but it may have been
	 * unregistered (or moved to another namespace) since.  The notifier
	 * only finds devices that finished registering, so one that ran in
	 * the meantime missed us.  Under rtnl the netdev's state is final for
	 * the notifier: if it is still registered in the namespace of our
	 * sockets, any later unregistration will find and remove us.
	 */
	rtnl_lock();
	dead = ndev->reg_state != NETREG_REGISTERED ||
	       !net_eq(dev_net(ndev), vrnic_dev_net(vdev));
	if (!dead)
		vrnic_cc_link_changed(vdev);
	rtnl_unlock();
	if (dead) {
		ib_unregister_device(&vdev->ibdev);
		err = -ENODEV;
		goto out_unlock;
	}

	mutex_unlock(&vrnic_link_mutex);
	return 0;

err_free_config:
	vrnic_config_free(vdev);
err_free_stats:
	free_percpu(vdev->stats);
err_put_ndev:
	netdev_put(ndev, &vdev->ndev_tracker);
	/* Nothing for dealloc_driver to undo any more. */
	vdev->ibdev.ops.dealloc_driver = NULL;
	ib_dealloc_device(&vdev->ibdev);
	goto out_unlock;
err_dealloc:
	ib_dealloc_device(&vdev->ibdev);
out_unlock:
	mutex_unlock(&vrnic_link_mutex);
	return err;
}

static struct rdma_link_ops vrnic_link_ops = {
	.type = "vrnic",
	.newlink = vrnic_newlink,
};

static void vrnic_port_event(struct vrnic_dev *vdev, struct net_device *ndev)
{
	enum ib_port_state state = vrnic_netdev_port_state(ndev);
	struct ib_event ev = {
		.device = &vdev->ibdev,
		.element.port_num = 1,
	};

	if (state == vdev->port_state)
		return;
	vdev->port_state = state;
	ev.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
					     IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

static int vrnic_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct vrnic_dev *vdev;

	vdev = vrnic_dev_get_by_netdev(ndev);
	if (!vdev)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UNREGISTER:
		/* Also taken when the netdev moves to another namespace. */
		ib_unregister_device_queued(&vdev->ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		vrnic_port_event(vdev, ndev);
		vrnic_cc_link_changed(vdev);
		break;
	default:
		break;
	}
	vrnic_dev_put(vdev);
	return NOTIFY_DONE;
}

static struct notifier_block vrnic_netdev_notifier = {
	.notifier_call = vrnic_netdev_event,
};

/**
 * vrnic_unregister_devices - synchronously remove vrnic devices
 * @net: only devices whose UDP sockets live in @net, or every device if NULL
 *
 * Matching by the sockets' namespace, not the netdev's current one, is
 * what the pernet exit needs: a netdev moved to another namespace has
 * queued its device's removal, but that device still holds sockets of
 * the namespace it was created in, and they must go before it does.
 *
 * Takes a device reference (struct device, not ib_device) under the list
 * lock, then unregisters outside it: dealloc_driver takes the list lock.
 */
void vrnic_unregister_devices(struct net *net)
{
	struct vrnic_dev *vdev;

	for (;;) {
		struct ib_device *victim = NULL;

		mutex_lock(&vrnic_dev_mutex);
		list_for_each_entry(vdev, &vrnic_dev_list, list) {
			if (net && !net_eq(vrnic_dev_net(vdev), net))
				continue;
			victim = &vdev->ibdev;
			get_device(&victim->dev);
			break;
		}
		mutex_unlock(&vrnic_dev_mutex);
		if (!victim)
			return;
		/*
		 * Returns once any concurrent unregistration (netdev
		 * removal) has finished too; dealloc_driver has then taken
		 * the device off the list, so the loop makes progress.
		 */
		ib_unregister_device(victim);
		put_device(&victim->dev);
	}
}

static int __init vrnic_init(void)
{
	int err;

	err = vrnic_wire_init();
	if (err)
		return err;
	err = vrnic_net_init();
	if (err)
		goto err_wire;
	err = vrnic_genl_init();
	if (err)
		goto err_net;
	err = register_netdevice_notifier(&vrnic_netdev_notifier);
	if (err)
		goto err_genl;
	rdma_link_register(&vrnic_link_ops);
	return 0;

err_genl:
	vrnic_genl_exit();
err_net:
	vrnic_net_exit();
err_wire:
	vrnic_wire_exit();
	return err;
}

static void __exit vrnic_exit(void)
{
	/* No new devices, then no new queued removals, then remove ours. */
	rdma_link_unregister(&vrnic_link_ops);
	unregister_netdevice_notifier(&vrnic_netdev_notifier);
	vrnic_unregister_devices(NULL);
	vrnic_genl_exit();
	vrnic_net_exit();
	vrnic_wire_exit();
}

module_init(vrnic_init);
module_exit(vrnic_exit);
MODULE_ALIAS_RDMA_LINK("vrnic");
