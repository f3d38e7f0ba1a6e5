// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: BTH opcode table.
 *
 * The header layout of every opcode follows from which extension headers
 * it carries, because IBA 9.2 fixes their order: BTH, (RDETH), DETH,
 * RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH, payload, pad, ICRC.
 * The offsets are computed from the mask at compile time so the table
 * cannot disagree with itself.
 */
#include "opcode.h"

#define SZ_IF(m, bit, sz)	(((m) & (bit)) ? (sz) : 0)

#define OFF_DETH(m)	VRNIC_BTH_BYTES
#define OFF_RETH(m)	(OFF_DETH(m) + SZ_IF(m, VRNIC_M_DETH, VRNIC_DETH_BYTES))
#define OFF_ATMETH(m)	(OFF_RETH(m) + SZ_IF(m, VRNIC_M_RETH, VRNIC_RETH_BYTES))
#define OFF_AETH(m)	(OFF_ATMETH(m) + \
			 SZ_IF(m, VRNIC_M_ATMETH, VRNIC_ATMETH_BYTES))
#define OFF_ATMACK(m)	(OFF_AETH(m) + SZ_IF(m, VRNIC_M_AETH, VRNIC_AETH_BYTES))
#define OFF_IMMDT(m)	(OFF_ATMACK(m) + \
			 SZ_IF(m, VRNIC_M_ATMACK, VRNIC_ATMACK_BYTES))
#define OFF_IETH(m)	(OFF_IMMDT(m) + SZ_IF(m, VRNIC_M_IMMDT, VRNIC_IMMDT_BYTES))
#define HDR_LEN(m)	(OFF_IETH(m) + SZ_IF(m, VRNIC_M_IETH, VRNIC_IETH_BYTES))

#define OP(code, str, m) [code] = {			\
	.name = str,					\
	.mask = (m),					\
	.length = HDR_LEN(m),				\
	.off_deth = OFF_DETH(m),			\
	.off_reth = OFF_RETH(m),			\
	.off_atmeth = OFF_ATMETH(m),			\
	.off_aeth = OFF_AETH(m),			\
	.off_atmack = OFF_ATMACK(m),			\
	.off_immdt = OFF_IMMDT(m),			\
	.off_ieth = OFF_IETH(m),			\
}

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

/* SEND and RDMA WRITE, shared by RC and UC (transport T). */
#define SEND_WRITE_OPS(T, P)						\
	OP(T | VRNIC_SEND_FIRST, P "SEND_FIRST", SND | F | FULL),	\
	OP(T | VRNIC_SEND_MIDDLE, P "SEND_MIDDLE", SND | M | FULL),	\
	OP(T | VRNIC_SEND_LAST, P "SEND_LAST", SND | L | CMP),		\
	OP(T | VRNIC_SEND_LAST_IMM, P "SEND_LAST_IMM",			\
	   SND | L | CMP | IMM),					\
	OP(T | VRNIC_SEND_ONLY, P "SEND_ONLY", SND | F | L | CMP),	\
	OP(T | VRNIC_SEND_ONLY_IMM, P "SEND_ONLY_IMM",			\
	   SND | F | L | CMP | IMM),					\
	OP(T | VRNIC_WRITE_FIRST, P "WRITE_FIRST", WR | F | FULL | RETH),\
	OP(T | VRNIC_WRITE_MIDDLE, P "WRITE_MIDDLE", WR | M | FULL),	\
	OP(T | VRNIC_WRITE_LAST, P "WRITE_LAST", WR | L),		\
	OP(T | VRNIC_WRITE_LAST_IMM, P "WRITE_LAST_IMM",		\
	   WR | L | IMM | VRNIC_M_RWR | CMP),				\
	OP(T | VRNIC_WRITE_ONLY, P "WRITE_ONLY", WR | F | L | RETH),	\
	OP(T | VRNIC_WRITE_ONLY_IMM, P "WRITE_ONLY_IMM",		\
	   WR | F | L | RETH | IMM | VRNIC_M_RWR | CMP)

#define RC VRNIC_OP_RC
#define UC VRNIC_OP_UC
#define UD VRNIC_OP_UD

const struct vrnic_opcode_info vrnic_opcode[256] = {
	SEND_WRITE_OPS(RC, "RC_"),
	OP(RC | VRNIC_READ_REQUEST, "RC_READ_REQUEST",
	   RQ | VRNIC_M_READ | RETH | F | L),
	OP(RC | VRNIC_READ_RESP_FIRST, "RC_READ_RESP_FIRST",
	   RS | PL | VRNIC_M_READ | VRNIC_M_AETH | F | FULL),
	OP(RC | VRNIC_READ_RESP_MIDDLE, "RC_READ_RESP_MIDDLE",
	   RS | PL | VRNIC_M_READ | M | FULL),
	OP(RC | VRNIC_READ_RESP_LAST, "RC_READ_RESP_LAST",
	   RS | PL | VRNIC_M_READ | VRNIC_M_AETH | L),
	OP(RC | VRNIC_READ_RESP_ONLY, "RC_READ_RESP_ONLY",
	   RS | PL | VRNIC_M_READ | VRNIC_M_AETH | F | L),
	OP(RC | VRNIC_ACK, "RC_ACK", RS | VRNIC_M_AETH | F | L),
	OP(RC | VRNIC_ATOMIC_ACK, "RC_ATOMIC_ACK",
	   RS | VRNIC_M_ATOMIC | VRNIC_M_AETH | VRNIC_M_ATMACK | F | L),
	OP(RC | VRNIC_CMP_SWAP, "RC_CMP_SWAP",
	   RQ | VRNIC_M_ATOMIC | VRNIC_M_ATMETH | F | L),
	OP(RC | VRNIC_FETCH_ADD, "RC_FETCH_ADD",
	   RQ | VRNIC_M_ATOMIC | VRNIC_M_ATMETH | F | L),
	OP(RC | VRNIC_SEND_LAST_INV, "RC_SEND_LAST_INV", SND | L | CMP | INV),
	OP(RC | VRNIC_SEND_ONLY_INV, "RC_SEND_ONLY_INV",
	   SND | F | L | CMP | INV),

	SEND_WRITE_OPS(UC, "UC_"),

	OP(UD | VRNIC_SEND_ONLY, "UD_SEND_ONLY",
	   SND | F | L | CMP | VRNIC_M_DETH),
	OP(UD | VRNIC_SEND_ONLY_IMM, "UD_SEND_ONLY_IMM",
	   SND | F | L | CMP | VRNIC_M_DETH | IMM),
};
