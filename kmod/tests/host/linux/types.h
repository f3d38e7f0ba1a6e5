/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim of <linux/types.h> for the unit tests of kmod/ code that is
 * built both into vrnic.ko and into a host program (kmod/tests/): the
 * UAPI __u32 & co. from the system header plus the kernel-internal names.
 */
#ifndef VRNIC_HOST_LINUX_TYPES_H
#define VRNIC_HOST_LINUX_TYPES_H

#include_next <linux/types.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;

#endif
