/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim of <linux/limits.h> (see types.h). */
#ifndef VRNIC_HOST_LINUX_LIMITS_H
#define VRNIC_HOST_LINUX_LIMITS_H

#include_next <linux/limits.h>

#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)

#endif
