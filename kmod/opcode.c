// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: BTH opcode table.
 *
 * The header layout of every opcode follows from which extension headers
 * it carries, because IBA 9.2 fixes their order: BTH, (RDETH), DETH,
 * RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH, payload, pad, ICRC.
 * The table lists only the masks; vrnic_opcode_init() derives offsets and
 * lengths from them, so the layout cannot disagree with the mask.
 */
#include <linux/cache.h>
#include <linux/init.h>
#include <linux/stddef.h>

#include "opcode.h"

#define OP(str, m)	{ .name = str, .mask = (m) }

#define RQ	VRNIC_M_REQ
#define RS	VRNIC_M_RESP
#define PL	VRNIC_M_PAYLOAD
#define SND	(VRNIC_M_SEND | RQ | PL | VRNIC_M_RWR)
#define WR	(VRNIC_M_WRITE | RQ | PL)
#define F	VRNIC_M_FIRST
#define M	VRNIC_M_MIDDLE
#define L	VRNIC_M_LAST
#define FULL	VRNIC_M_FULL
#define CMP	VRNIC_M_COMP
#define IMM	VRNIC_M_IMMDT
#define INV	VRNIC_M_IETH
#define RETH	VRNIC_M_RETH

#define RC VRNIC_OP_RC
#define UC VRNIC_OP_UC
#define UD VRNIC_OP_UD

struct vrnic_opcode_info vrnic_opcode[256] __ro_after_init = {
	[RC | VRNIC_SEND_FIRST] = OP("RC_SEND_FIRST", SND | F | FULL),
	[RC | VRNIC_SEND_MIDDLE] = OP("RC_SEND_MIDDLE", SND | M | FULL),
	[RC | VRNIC_SEND_LAST] = OP("RC_SEND_LAST", SND | L | CMP),
	[RC | VRNIC_SEND_LAST_IMM] = OP("RC_SEND_LAST_IMM",
					 SND | L | CMP | IMM),
	[RC | VRNIC_SEND_ONLY] = OP("RC_SEND_ONLY", SND | F | L | CMP),
	[RC | VRNIC_SEND_ONLY_IMM] = OP("RC_SEND_ONLY_IMM",
					 SND | F | L | CMP | IMM),
	[RC | VRNIC_WRITE_FIRST] = OP("RC_WRITE_FIRST", WR | F | FULL | RETH),
	[RC | VRNIC_WRITE_MIDDLE] = OP("RC_WRITE_MIDDLE", WR | M | FULL),
	[RC | VRNIC_WRITE_LAST] = OP("RC_WRITE_LAST", WR | L),
	[RC | VRNIC_WRITE_LAST_IMM] = OP("RC_WRITE_LAST_IMM",
					  WR | L | IMM | VRNIC_M_RWR | CMP),
	[RC | VRNIC_WRITE_ONLY] = OP("RC_WRITE_ONLY", WR | F | L | RETH),
	[RC | VRNIC_WRITE_ONLY_IMM] = OP("RC_WRITE_ONLY_IMM",
					  WR | F | L | RETH | IMM |
					  VRNIC_M_RWR | CMP),
	[RC | VRNIC_READ_REQUEST] = OP("RC_READ_REQUEST",
				       RQ | VRNIC_M_READ | RETH | F | L),
	[RC | VRNIC_READ_RESP_FIRST] = OP("RC_READ_RESP_FIRST",
					  RS | PL | VRNIC_M_READ |
					  VRNIC_M_AETH | F | FULL),
	[RC | VRNIC_READ_RESP_MIDDLE] = OP("RC_READ_RESP_MIDDLE",
					   RS | PL | VRNIC_M_READ | M | FULL),
	[RC | VRNIC_READ_RESP_LAST] = OP("RC_READ_RESP_LAST",
					 RS | PL | VRNIC_M_READ |
					 VRNIC_M_AETH | L),
	[RC | VRNIC_READ_RESP_ONLY] = OP("RC_READ_RESP_ONLY",
					 RS | PL | VRNIC_M_READ |
					 VRNIC_M_AETH | F | L),
	[RC | VRNIC_ACK] = OP("RC_ACK", RS | VRNIC_M_AETH | F | L),
	[RC | VRNIC_ATOMIC_ACK] = OP("RC_ATOMIC_ACK",
				     RS | VRNIC_M_ATOMIC | VRNIC_M_AETH |
				     VRNIC_M_ATMACK | F | L),
	[RC | VRNIC_CMP_SWAP] = OP("RC_CMP_SWAP",
				   RQ | VRNIC_M_ATOMIC | VRNIC_M_ATMETH | F | L),
	[RC | VRNIC_FETCH_ADD] = OP("RC_FETCH_ADD",
				    RQ | VRNIC_M_ATOMIC | VRNIC_M_ATMETH | F | L),
	[RC | VRNIC_SEND_LAST_INV] = OP("RC_SEND_LAST_INV",
					SND | L | CMP | INV),
	[RC | VRNIC_SEND_ONLY_INV] = OP("RC_SEND_ONLY_INV",
					SND | F | L | CMP | INV),
	[RC | VRNIC_ATOMIC_WRITE] = OP("RC_ATOMIC_WRITE",
				       RQ | PL | RETH | VRNIC_M_ATOMIC_WRITE |
				       F | L),

	[UC | VRNIC_SEND_FIRST] = OP("UC_SEND_FIRST", SND | F | FULL),
	[UC | VRNIC_SEND_MIDDLE] = OP("UC_SEND_MIDDLE", SND | M | FULL),
	[UC | VRNIC_SEND_LAST] = OP("UC_SEND_LAST", SND | L | CMP),
	[UC | VRNIC_SEND_LAST_IMM] = OP("UC_SEND_LAST_IMM",
					 SND | L | CMP | IMM),
	[UC | VRNIC_SEND_ONLY] = OP("UC_SEND_ONLY", SND | F | L | CMP),
	[UC | VRNIC_SEND_ONLY_IMM] = OP("UC_SEND_ONLY_IMM",
					 SND | F | L | CMP | IMM),
	[UC | VRNIC_WRITE_FIRST] = OP("UC_WRITE_FIRST", WR | F | FULL | RETH),
	[UC | VRNIC_WRITE_MIDDLE] = OP("UC_WRITE_MIDDLE", WR | M | FULL),
	[UC | VRNIC_WRITE_LAST] = OP("UC_WRITE_LAST", WR | L),
	[UC | VRNIC_WRITE_LAST_IMM] = OP("UC_WRITE_LAST_IMM",
					  WR | L | IMM | VRNIC_M_RWR | CMP),
	[UC | VRNIC_WRITE_ONLY] = OP("UC_WRITE_ONLY", WR | F | L | RETH),
	[UC | VRNIC_WRITE_ONLY_IMM] = OP("UC_WRITE_ONLY_IMM",
					  WR | F | L | RETH | IMM |
					  VRNIC_M_RWR | CMP),

	[UD | VRNIC_SEND_ONLY] = OP("UD_SEND_ONLY",
				    SND | F | L | CMP | VRNIC_M_DETH),
	[UD | VRNIC_SEND_ONLY_IMM] = OP("UD_SEND_ONLY_IMM",
					SND | F | L | CMP | VRNIC_M_DETH | IMM),
};

/* Extension headers in wire order, with their sizes. */
static const struct {
	u32 bit;
	u8 size;
	size_t off;
} vrnic_ext_hdrs[] = {
	{ VRNIC_M_DETH, VRNIC_DETH_BYTES,
	  offsetof(struct vrnic_opcode_info, off_deth) },
	{ VRNIC_M_RETH, VRNIC_RETH_BYTES,
	  offsetof(struct vrnic_opcode_info, off_reth) },
	{ VRNIC_M_ATMETH, VRNIC_ATMETH_BYTES,
	  offsetof(struct vrnic_opcode_info, off_atmeth) },
	{ VRNIC_M_AETH, VRNIC_AETH_BYTES,
	  offsetof(struct vrnic_opcode_info, off_aeth) },
	{ VRNIC_M_ATMACK, VRNIC_ATMACK_BYTES,
	  offsetof(struct vrnic_opcode_info, off_atmack) },
	{ VRNIC_M_IMMDT, VRNIC_IMMDT_BYTES,
	  offsetof(struct vrnic_opcode_info, off_immdt) },
	{ VRNIC_M_IETH, VRNIC_IETH_BYTES,
	  offsetof(struct vrnic_opcode_info, off_ieth) },
};

/**
 * vrnic_opcode_init - compute header offsets and lengths from the masks
 *
 * Called once at module init, before any packet moves.
 */
void __init vrnic_opcode_init(void)
{
	struct vrnic_opcode_info *info;
	unsigned int op, i;
	u8 len;

	for (op = 0; op < ARRAY_SIZE(vrnic_opcode); op++) {
		info = &vrnic_opcode[op];
		if (!info->name)
			continue;
		len = VRNIC_BTH_BYTES;
		for (i = 0; i < ARRAY_SIZE(vrnic_ext_hdrs); i++) {
			u8 *off = (u8 *)info + vrnic_ext_hdrs[i].off;

			*off = len;
			if (info->mask & vrnic_ext_hdrs[i].bit)
				len += vrnic_ext_hdrs[i].size;
		}
		info->length = len;
	}
}
