/* SPDX-License-Identifier: GPL-2.0 */
/*
 * roce_gid.h - the C tests' RoCE v2 GID lookup (lib/gid.sh is the shell
 * tests').  Include after <infiniband/verbs.h>.
 */
#ifndef VRNIC_ROCE_GID_H
#define VRNIC_ROCE_GID_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* An IPv4-mapped GID (::ffff:a.b.c.d), the form RoCE v2 gives IPv4. */
static inline bool roce_gid_is_v4(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, pfx, sizeof(pfx));
}

/*
 * The index of @port's first RoCE v2 GID of @family (AF_INET:
 * IPv4-mapped; AF_INET6: global IPv6, link-local excluded), its GID in
 * @gid.  ib_core adds GIDs a moment after an address appears, so this
 * waits up to 10 s for one.
 * Return: the index, or -errno (-ENOENT: none came).
 */
static inline int roce_gid_find(struct ibv_context *ctx, uint8_t port,
				int family, union ibv_gid *gid)
{
	struct ibv_port_attr pattr;
	struct ibv_gid_entry ent;
	int try, i;

	for (try = 0; try < 100; try++) {
		if (ibv_query_port(ctx, port, &pattr))
			return -errno;
		for (i = 0; i < pattr.gid_tbl_len; i++) {
			if (ibv_query_gid_ex(ctx, port, i, &ent, 0))
				continue;
			if (ent.gid_type != IBV_GID_TYPE_ROCE_V2)
				continue;
			if (family == AF_INET && !roce_gid_is_v4(&ent.gid))
				continue;
			if (family == AF_INET6 &&
			    (roce_gid_is_v4(&ent.gid) ||
			     (ent.gid.raw[0] == 0xfe &&
			      (ent.gid.raw[1] & 0xc0) == 0x80)))
				continue;
			*gid = ent.gid;
			return i;
		}
		usleep(100 * 1000);
	}
	return -ENOENT;
}

#endif /* VRNIC_ROCE_GID_H */
