// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: the RoCEv2 UDP sockets.
 *
 * RoCEv2 traffic arrives on UDP port 4791 (IBTA RoCEv2 annex A17).  Each
 * network namespace that holds at least one vrnic device gets one IPv4 and
 * (when IPv6 is available) one IPv6 kernel socket bound to that port; all
 * devices of the namespace share them and the last one to go closes them.
 * Keeping the sockets in the bound netdev's namespace is what lets vrnic
 * run beside rdma_rxe (which binds the port in its own namespace).
 */

#include <linux/module.h>
#include <net/net_namespace.h>
#include <net/udp_tunnel.h>
#include <net/ipv6.h>

#include "vrnic.h"

/**
 * struct vrnic_udp - the UDP 4791 sockets of one network namespace
 * @net: the namespace.  Deliberately not reference counted: a kernel
 *	socket must not keep its namespace alive (the namespace could then
 *	never be destroyed while a device exists).  Instead the rule is that
 *	no entry outlives its namespace: vrnic_net_exit_net() removes every
 *	device whose sockets are in the dying namespace, whatever namespace
 *	its netdev has moved to since, and the last device frees the entry.
 * @sock4: IPv4 socket
 * @sock6: IPv6-only socket, or NULL when IPv6 is disabled
 * @users: vrnic devices using the sockets
 * @list: entry in vrnic_udp_list
 *
 * vrnic_udp_list, @users and the opening and closing of the sockets are
 * serialised by vrnic_udp_mutex.  @sock4 and @sock6 never change while a
 * device holds the entry, so the data path reads them without locking.
 */
struct vrnic_udp {
	struct net *net;
	struct socket *sock4;
	struct socket *sock6;
	unsigned int users;
	struct list_head list;
};

static DEFINE_MUTEX(vrnic_udp_mutex);
static LIST_HEAD(vrnic_udp_list);

static int vrnic_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	/*
	 * Strip nothing here: the receive path wants the IP and UDP headers
	 * for the ICRC and for replies.  It owns @skb from now on; returning
	 * 0 tells UDP the packet was consumed.
	 */
	vrnic_rcv(skb);
	return 0;
}

static struct socket *vrnic_udp_open(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl_cfg = {
		.encap_type = 1,
		.encap_rcv = vrnic_udp_encap_recv,
	};
	struct udp_port_cfg cfg = {
		.family = ipv6 ? AF_INET6 : AF_INET,
		.ipv6_v6only = ipv6,
		.local_udp_port = htons(VRNIC_UDP_PORT),
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tnl_cfg);
	/*
	 * A UDP tunnel socket does not loop its multicast back; ours must:
	 * that copy is how QPs of the sending device, attached to the group,
	 * receive what it sends to the group (mcast.c), as an HCA delivers a
	 * multicast packet to its own port's QPs.
	 */
	inet_sk(sock->sk)->mc_loop = 1;
	return sock;
}

static struct vrnic_udp *vrnic_udp_create(struct net *net)
{
	struct vrnic_udp *udp;
	struct socket *sock;
	int err;

	udp = kzalloc(sizeof(*udp), GFP_KERNEL);
	if (!udp)
		return ERR_PTR(-ENOMEM);
	udp->net = net;

	sock = vrnic_udp_open(net, false);
	if (IS_ERR(sock)) {
		err = PTR_ERR(sock);
		goto err_free;
	}
	udp->sock4 = sock;

	if (ipv6_mod_enabled()) {
		sock = vrnic_udp_open(net, true);
		if (IS_ERR(sock)) {
			err = PTR_ERR(sock);
			goto err_close4;
		}
		udp->sock6 = sock;
	}
	return udp;

err_close4:
	udp_tunnel_sock_release(udp->sock4);
err_free:
	kfree(udp);
	return ERR_PTR(err);
}

/**
 * vrnic_udp_get - attach @vdev to the UDP sockets of its netdev's namespace
 * @vdev: device being created; @vdev->ndev must be set
 *
 * Return: 0, or a negative errno such as -EADDRINUSE when something else
 * (rdma_rxe, say) already holds UDP port 4791 in that namespace.
 */
int vrnic_udp_get(struct vrnic_dev *vdev)
{
	struct net *net = dev_net(vdev->ndev);
	struct vrnic_udp *udp;
	int err = 0;

	mutex_lock(&vrnic_udp_mutex);
	list_for_each_entry(udp, &vrnic_udp_list, list) {
		if (net_eq(udp->net, net))
			goto found;
	}
	udp = vrnic_udp_create(net);
	if (IS_ERR(udp)) {
		err = PTR_ERR(udp);
		goto out;
	}
	list_add(&udp->list, &vrnic_udp_list);
found:
	udp->users++;
	vdev->udp = udp;
out:
	mutex_unlock(&vrnic_udp_mutex);
	return err;
}

/* Detach @vdev; the last device of a namespace closes its sockets. */
void vrnic_udp_put(struct vrnic_dev *vdev)
{
	struct vrnic_udp *udp = vdev->udp;

	if (!udp)
		return;
	vdev->udp = NULL;

	mutex_lock(&vrnic_udp_mutex);
	if (--udp->users) {
		mutex_unlock(&vrnic_udp_mutex);
		return;
	}
	list_del(&udp->list);
	/*
	 * Close the sockets before a new device of this namespace can look
	 * for them: released outside the mutex, a device created meanwhile
	 * would bind port 4791 while these still hold it (EADDRINUSE).
	 * Waits for in-flight receive callbacks (synchronize_rcu inside).
	 */
	if (udp->sock6)
		udp_tunnel_sock_release(udp->sock6);
	udp_tunnel_sock_release(udp->sock4);
	mutex_unlock(&vrnic_udp_mutex);
	kfree(udp);
}

/*
 * The namespace @vdev lives in: that of its sockets, fixed at creation.
 * Valid while @vdev is on vrnic_dev_list (the sockets are attached before
 * it is added and detached after it is removed) or registered.
 */
struct net *vrnic_dev_net(struct vrnic_dev *vdev)
{
	return vdev->udp->net;
}

struct socket *vrnic_udp_sock4(struct vrnic_dev *vdev)
{
	return vdev->udp->sock4;
}

struct socket *vrnic_udp_sock6(struct vrnic_dev *vdev)
{
	return vdev->udp->sock6;
}

/*
 * Our pernet exit runs after the netdevs of the namespace were unregistered
 * (or moved back to init_net), which queued the removal of their vrnic
 * devices; finish those removals now so no socket outlives its namespace.
 */
static void __net_exit vrnic_net_exit_net(struct net *net)
{
	vrnic_unregister_devices(net);
}

static struct pernet_operations vrnic_net_ops = {
	.exit = vrnic_net_exit_net,
};

int vrnic_net_init(void)
{
	return register_pernet_subsys(&vrnic_net_ops);
}

void vrnic_net_exit(void)
{
	unregister_pernet_subsys(&vrnic_net_ops);
}
