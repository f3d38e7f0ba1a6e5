/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrnic: InfiniBand transport headers as carried by RoCEv2 (IBA vol 1,
 * chapter 9 and annex A17).
 *
 * All headers are big endian on the wire and may sit at any alignment
 * inside an skb (the BTH follows a 42 or 62 byte Ethernet/IP/UDP
 * prefix), hence the packed structures.
 */
#ifndef VRNIC_HDR_H
#define VRNIC_HDR_H

#include <linux/types.h>
#include <linux/kernel.h>

/* IBA 9.2: Base Transport Header, 12 bytes. */
struct vrnic_bth {
	u8	opcode;
	u8	flags;		/* SE, M, PadCnt, TVer */
	__be16	pkey;
	__be32	qpn;		/* byte 0 is resv8a (FECN/BECN in IBA) */
	__be32	apsn;		/* bit 31 AckReq, bits 23..0 PSN */
} __packed;

#define VRNIC_BTH_SE		0x80
#define VRNIC_BTH_MIG		0x40
#define VRNIC_BTH_PAD_SHIFT	4
#define VRNIC_BTH_PAD_MASK	0x30
#define VRNIC_BTH_TVER_MASK	0x0f
#define VRNIC_BTH_TVER		0
#define VRNIC_BTH_ACKREQ	0x80000000
#define VRNIC_QPN_MASK		0x00ffffff
#define VRNIC_PSN_MASK		0x00ffffff

/* IBA 9.3.2: RDMA Extended Transport Header, 16 bytes. */
struct vrnic_reth {
	__be64	va;
	__be32	rkey;
	__be32	len;
} __packed;

/* IBA 9.3.3: ACK Extended Transport Header, 4 bytes. */
struct vrnic_aeth {
	__be32	smsn;		/* syndrome (8) | MSN (24) */
} __packed;

/* IBA 9.3.3.2: AETH syndrome encoding. */
#define VRNIC_AETH_TYPE_MASK	0xe0
#define VRNIC_AETH_VALUE_MASK	0x1f	/* credit count, RNR timer or NAK code */
#define VRNIC_AETH_ACK		0x00	/* low 5 bits: credit count */
#define VRNIC_AETH_RNR_NAK	0x20	/* low 5 bits: RNR timer code */
#define VRNIC_AETH_NAK		0x60	/* low 5 bits: NAK code */
#define VRNIC_AETH_CREDIT_INVALID 0x1f	/* no end-to-end flow control */

enum vrnic_nak_code {
	VRNIC_NAK_PSN_SEQ	= 0,
	VRNIC_NAK_INVALID_REQ	= 1,
	VRNIC_NAK_REM_ACCESS	= 2,
	VRNIC_NAK_REM_OP	= 3,
	VRNIC_NAK_INVALID_RD	= 4,
};

/* IBA 9.3.4: Atomic Extended Transport Header, 28 bytes. */
struct vrnic_atmeth {
	__be64	va;
	__be32	rkey;
	__be64	swap_add;
	__be64	compare;
} __packed;

/* IBA 9.3.5: Atomic Acknowledge Extended Transport Header, 8 bytes. */
struct vrnic_atmack {
	__be64	orig;
} __packed;

/* IBA 9.3.1: Datagram Extended Transport Header, 8 bytes. */
struct vrnic_deth {
	__be32	qkey;
	__be32	sqp;		/* resv8 | source QP (24) */
} __packed;

/* IBA 9.3.6 / 9.3.7: Immediate data and Invalidate ETH, 4 bytes each. */
struct vrnic_immdt {
	__be32	imm;
} __packed;

struct vrnic_ieth {
	__be32	rkey;
} __packed;

#define VRNIC_BTH_BYTES		sizeof(struct vrnic_bth)
#define VRNIC_RETH_BYTES	sizeof(struct vrnic_reth)
#define VRNIC_AETH_BYTES	sizeof(struct vrnic_aeth)
#define VRNIC_ATMETH_BYTES	sizeof(struct vrnic_atmeth)
#define VRNIC_ATMACK_BYTES	sizeof(struct vrnic_atmack)
#define VRNIC_DETH_BYTES	sizeof(struct vrnic_deth)
#define VRNIC_IMMDT_BYTES	sizeof(struct vrnic_immdt)
#define VRNIC_IETH_BYTES	sizeof(struct vrnic_ieth)
#define VRNIC_ICRC_BYTES	4

/* The Q_Key of the GSI QP (IBA 13.5.4.1) and the CNP opcode (A17.9.2). */
#define VRNIC_GSI_QKEY		0x80010000
#define VRNIC_OPCODE_CNP	0x81

/* PSNs are 24-bit serial numbers: compare within half the space. */
static inline int vrnic_psn_cmp(u32 a, u32 b)
{
	return (s32)((a - b) << 8);
}

static inline u32 vrnic_psn_add(u32 psn, u32 n)
{
	return (psn + n) & VRNIC_PSN_MASK;
}

/* BTH accessors. */
static inline u8 bth_opcode(const struct vrnic_bth *bth)
{
	return bth->opcode;
}

static inline bool bth_se(const struct vrnic_bth *bth)
{
	return bth->flags & VRNIC_BTH_SE;
}

static inline u8 bth_pad(const struct vrnic_bth *bth)
{
	return (bth->flags & VRNIC_BTH_PAD_MASK) >> VRNIC_BTH_PAD_SHIFT;
}

static inline u8 bth_tver(const struct vrnic_bth *bth)
{
	return bth->flags & VRNIC_BTH_TVER_MASK;
}

static inline u16 bth_pkey(const struct vrnic_bth *bth)
{
	return be16_to_cpu(bth->pkey);
}

static inline u32 bth_qpn(const struct vrnic_bth *bth)
{
	return be32_to_cpu(bth->qpn) & VRNIC_QPN_MASK;
}

static inline u32 bth_psn(const struct vrnic_bth *bth)
{
	return be32_to_cpu(bth->apsn) & VRNIC_PSN_MASK;
}

static inline bool bth_ackreq(const struct vrnic_bth *bth)
{
	return be32_to_cpu(bth->apsn) & VRNIC_BTH_ACKREQ;
}

/* Fill a whole BTH; reserved fields are sent as zero (IBA 9.2). */
static inline void bth_set(struct vrnic_bth *bth, u8 opcode, bool se,
			   u8 pad, u16 pkey, u32 qpn, bool ackreq, u32 psn)
{
	bth->opcode = opcode;
	bth->flags = (se ? VRNIC_BTH_SE : 0) |
		     (pad << VRNIC_BTH_PAD_SHIFT) | VRNIC_BTH_TVER;
	bth->pkey = cpu_to_be16(pkey);
	bth->qpn = cpu_to_be32(qpn & VRNIC_QPN_MASK);
	bth->apsn = cpu_to_be32((ackreq ? VRNIC_BTH_ACKREQ : 0) |
				(psn & VRNIC_PSN_MASK));
}

/* AETH accessors. */
static inline u8 aeth_syn(const struct vrnic_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) >> 24;
}

static inline u32 aeth_msn(const struct vrnic_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) & 0x00ffffff;
}

static inline void aeth_set(struct vrnic_aeth *aeth, u8 syn, u32 msn)
{
	aeth->smsn = cpu_to_be32((u32)syn << 24 | (msn & 0x00ffffff));
}

/* DETH accessors. */
static inline u32 deth_qkey(const struct vrnic_deth *deth)
{
	return be32_to_cpu(deth->qkey);
}

static inline u32 deth_sqp(const struct vrnic_deth *deth)
{
	return be32_to_cpu(deth->sqp) & VRNIC_QPN_MASK;
}

static inline void deth_set(struct vrnic_deth *deth, u32 qkey, u32 sqp)
{
	deth->qkey = cpu_to_be32(qkey);
	deth->sqp = cpu_to_be32(sqp & VRNIC_QPN_MASK);
}

/* RETH accessors. */
static inline u64 reth_va(const struct vrnic_reth *reth)
{
	return be64_to_cpu(reth->va);
}

static inline u32 reth_rkey(const struct vrnic_reth *reth)
{
	return be32_to_cpu(reth->rkey);
}

static inline u32 reth_len(const struct vrnic_reth *reth)
{
	return be32_to_cpu(reth->len);
}

static inline void reth_set(struct vrnic_reth *reth, u64 va, u32 rkey,
			    u32 len)
{
	reth->va = cpu_to_be64(va);
	reth->rkey = cpu_to_be32(rkey);
	reth->len = cpu_to_be32(len);
}

/* AtomicETH accessors. */
static inline u64 atmeth_va(const struct vrnic_atmeth *a)
{
	return be64_to_cpu(a->va);
}

static inline u32 atmeth_rkey(const struct vrnic_atmeth *a)
{
	return be32_to_cpu(a->rkey);
}

static inline u64 atmeth_swap_add(const struct vrnic_atmeth *a)
{
	return be64_to_cpu(a->swap_add);
}

static inline u64 atmeth_compare(const struct vrnic_atmeth *a)
{
	return be64_to_cpu(a->compare);
}

static inline void atmeth_set(struct vrnic_atmeth *a, u64 va, u32 rkey,
			      u64 swap_add, u64 compare)
{
	a->va = cpu_to_be64(va);
	a->rkey = cpu_to_be32(rkey);
	a->swap_add = cpu_to_be64(swap_add);
	a->compare = cpu_to_be64(compare);
}

#endif /* VRNIC_HDR_H */
