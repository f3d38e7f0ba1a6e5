/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim of <linux/minmax.h> (see types.h).  The kernel's versions
 * refuse operands of different types at compile time; the module build
 * checks that, so these need not.
 */
#ifndef VRNIC_HOST_LINUX_MINMAX_H
#define VRNIC_HOST_LINUX_MINMAX_H

#define min(x, y) ({ __typeof__(x) _x = (x); __typeof__(y) _y = (y); \
		     _x < _y ? _x : _y; })
#define max(x, y) ({ __typeof__(x) _x = (x); __typeof__(y) _y = (y); \
		     _x > _y ? _x : _y; })
#define min_t(type, x, y)	min((type)(x), (type)(y))
#define max_t(type, x, y)	max((type)(x), (type)(y))
#define clamp(val, lo, hi)	min(max(val, lo), hi)
#define clamp_t(type, val, lo, hi)	clamp((type)(val), (type)(lo), (type)(hi))

#endif
