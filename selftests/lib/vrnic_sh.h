/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic_sh.h - run a shell command built printf-style (ip, rdma, tc ...),
 * for the C tests' setup and teardown.
 */
#ifndef VRNIC_SH_H
#define VRNIC_SH_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Return: system()'s status; a command longer than 511 bytes is cut. */
static __attribute__((format(printf, 1, 2), unused))
int vrnic_sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

#endif /* VRNIC_SH_H */
