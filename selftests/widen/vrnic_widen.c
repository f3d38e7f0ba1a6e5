// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic_widen - test-only module that widens a race window.
 *
 * A kprobe on the entry of one function busy-waits there, so a race the
 * selftests look for (dp_hostile.c: destroy_qp against a packet in the
 * responder, modify to RESET against the retransmit timer) happens every
 * time instead of once in a million.  Loaded and unloaded by the test
 * that needs it; never part of the driver.
 *
 *   insmod vrnic_widen.ko func=vrnic_resp_rcv delay_ms=300 count=1
 *
 * The probe runs with preemption off (ftrace-based kprobe at function
 * entry), interrupts and softirqs still come in: a timer can fire in the
 * window on this CPU as well as on the others.
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/delay.h>
#include <linux/atomic.h>
#include <linux/sysfs.h>

static char *func = "";
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "function whose entry is delayed");

static unsigned int delay_ms = 100;
module_param(delay_ms, uint, 0444);
MODULE_PARM_DESC(delay_ms, "delay per call, in milliseconds (at most 2000)");

static int count = -1;
module_param(count, int, 0444);
MODULE_PARM_DESC(count, "calls to delay (-1: every call)");

static atomic_t left;
static atomic_t hits;

/* hits (read-only): calls delayed so far, so a test knows it raced. */
static int hits_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&hits));
}

static const struct kernel_param_ops hits_ops = {
	.get = hits_get,
};
module_param_cb(hits, &hits_ops, NULL, 0444);

static int widen_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (count >= 0 && atomic_dec_if_positive(&left) < 0)
		return 0;
	atomic_inc(&hits);
	mdelay(min(delay_ms, 2000U));
	return 0;
}

static struct kprobe widen_kp = {
	.pre_handler = widen_pre,
};

static int __init widen_init(void)
{
	if (!func[0])
		return -EINVAL;
	atomic_set(&left, count);
	widen_kp.symbol_name = func;
	return register_kprobe(&widen_kp);
}

static void __exit widen_exit(void)
{
	unregister_kprobe(&widen_kp);
	pr_info("vrnic_widen: %s delayed %d times\n", func,
		atomic_read(&hits));
}

module_init(widen_init);
module_exit(widen_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vrnic selftests: widen a race window with a kprobe");
