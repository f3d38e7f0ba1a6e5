/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim of <linux/rcupdate.h> (see types.h): kmod/config.h embeds a
 * struct rcu_head; host code never frees a configuration through RCU.
 */
#ifndef VRNIC_HOST_LINUX_RCUPDATE_H
#define VRNIC_HOST_LINUX_RCUPDATE_H

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

#endif
