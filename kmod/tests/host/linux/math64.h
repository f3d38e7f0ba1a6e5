/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim of <linux/math64.h> (see types.h): the same results as the
 * kernel's helpers, computed with the compiler's 128-bit integers.
 */
#ifndef VRNIC_HOST_LINUX_MATH64_H
#define VRNIC_HOST_LINUX_MATH64_H

#include <linux/types.h>

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift)
{
	return (u64)(((__uint128_t)a * mul) >> shift);
}

#endif
