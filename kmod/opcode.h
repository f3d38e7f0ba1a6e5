/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic: the BTH opcode table (IBA 9.2.1, table 38).  One entry per
 * opcode says which extension headers follow the BTH, where, and what
 * the packet means to the requester, responder and completer.
 */
#ifndef VRNIC_OPCODE_H
#define VRNIC_OPCODE_H

#include <linux/types.h>
#include "hdr.h"

/* Transport service in the top three opcode bits. */
#define VRNIC_OP_RC		0x00
#define VRNIC_OP_UC		0x20
#define VRNIC_OP_RD		0x40
#define VRNIC_OP_UD		0x60
#define VRNIC_OP_TRANSPORT(op)	((op) & 0xe0)

/* Operation codes within a transport (low five bits). */
#define VRNIC_OP_CODE(op)	((op) & 0x1f)

enum vrnic_opcode {
	VRNIC_SEND_FIRST		= 0x00,
	VRNIC_SEND_MIDDLE		= 0x01,
	VRNIC_SEND_LAST			= 0x02,
	VRNIC_SEND_LAST_IMM		= 0x03,
	VRNIC_SEND_ONLY			= 0x04,
	VRNIC_SEND_ONLY_IMM		= 0x05,
	VRNIC_WRITE_FIRST		= 0x06,
	VRNIC_WRITE_MIDDLE		= 0x07,
	VRNIC_WRITE_LAST		= 0x08,
	VRNIC_WRITE_LAST_IMM		= 0x09,
	VRNIC_WRITE_ONLY		= 0x0a,
	VRNIC_WRITE_ONLY_IMM		= 0x0b,
	VRNIC_READ_REQUEST		= 0x0c,
	VRNIC_READ_RESP_FIRST		= 0x0d,
	VRNIC_READ_RESP_MIDDLE		= 0x0e,
	VRNIC_READ_RESP_LAST		= 0x0f,
	VRNIC_READ_RESP_ONLY		= 0x10,
	VRNIC_ACK			= 0x11,
	VRNIC_ATOMIC_ACK		= 0x12,
	VRNIC_CMP_SWAP			= 0x13,
	VRNIC_FETCH_ADD			= 0x14,
	VRNIC_SEND_LAST_INV		= 0x16,
	VRNIC_SEND_ONLY_INV		= 0x17,
	/* IBTA 1.5 (annex to 1.4, 9.2.1): RETH + 8 bytes, RC only */
	VRNIC_ATOMIC_WRITE		= 0x1d,
};

/* Bits of vrnic_opcode_info.mask. */
enum {
	/* extension headers present, in wire order */
	VRNIC_M_DETH		= BIT(0),
	VRNIC_M_RETH		= BIT(1),
	VRNIC_M_ATMETH		= BIT(2),
	VRNIC_M_AETH		= BIT(3),
	VRNIC_M_ATMACK		= BIT(4),
	VRNIC_M_IMMDT		= BIT(5),
	VRNIC_M_IETH		= BIT(6),
	VRNIC_M_PAYLOAD		= BIT(7),	/* may carry data */
	/* direction */
	VRNIC_M_REQ		= BIT(8),	/* requester -> responder */
	VRNIC_M_RESP		= BIT(9),	/* responder -> requester */
	/* operation */
	VRNIC_M_SEND		= BIT(10),
	VRNIC_M_WRITE		= BIT(11),
	VRNIC_M_READ		= BIT(12),
	VRNIC_M_ATOMIC		= BIT(13),
	/* position of the packet in its message */
	VRNIC_M_FIRST		= BIT(14),
	VRNIC_M_MIDDLE		= BIT(15),
	VRNIC_M_LAST		= BIT(16),
	/* the responder consumes a receive WQE and completes it */
	VRNIC_M_RWR		= BIT(17),
	/* the responder completes the receive WQE with this packet */
	VRNIC_M_COMP		= BIT(18),
	/* the packet carries a full MTU of payload unless it is the last */
	VRNIC_M_FULL		= BIT(19),
	/* operation: ATOMIC WRITE (IBTA 1.5), a kind of its own */
	VRNIC_M_ATOMIC_WRITE	= BIT(20),
};

/**
 * struct vrnic_opcode_info - what one BTH opcode means
 * @name: for debug output; NULL for opcodes vrnic neither sends nor accepts
 * @mask: VRNIC_M_* bits
 * @length: bytes of BTH plus extension headers
 * @off_*: byte offset of each extension header from the BTH (valid only
 *	when the matching mask bit is set)
 */
struct vrnic_opcode_info {
	const char *name;
	u32 mask;
	u8 length;
	u8 off_deth;
	u8 off_reth;
	u8 off_atmeth;
	u8 off_aeth;
	u8 off_atmack;
	u8 off_immdt;
	u8 off_ieth;
};

extern struct vrnic_opcode_info vrnic_opcode[256];
void vrnic_opcode_init(void);

#endif /* VRNIC_OPCODE_H */
