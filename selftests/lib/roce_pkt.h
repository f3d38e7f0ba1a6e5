/* SPDX-License-Identifier: GPL-2.0 */
/*
 * roce_pkt.h - hand-built RoCEv2 packets for the wire tests
 * (wire_malformed.c, wire_fuzz.c): the ICRC, and an IPv4 + UDP framing
 * with a correct (or deliberately wrong) ICRC, ready for a raw socket
 * (IPPROTO_RAW, so the test controls every byte the ICRC covers).
 */
#ifndef VRNIC_ROCE_PKT_H
#define VRNIC_ROCE_PKT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define RP_ROCE_PORT	4791
#define RP_IP		20
#define RP_UDP		8
#define RP_BTH		12
#define RP_ICRC		4
#define RP_MAX_IB	4200	/* BTH through payload, ICRC excluded */

/* ---- ICRC (IBA A17.3.3): CRC-32 over the invariant fields ---- */

static uint32_t rp_crc_table[256];

static void rp_crc_init(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
		rp_crc_table[i] = c;
	}
}

static uint32_t rp_crc(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--)
		crc = rp_crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

/*
 * ICRC of a packet that starts with its IPv4 header: 8 bytes of ones for
 * the LRH RoCEv2 does not have, then IP, UDP and BTH with their variant
 * fields (TOS, TTL, IP checksum, UDP checksum, BTH resv8a) set to ones.
 * @len (>= IP + UDP + BTH) covers everything up to the ICRC.
 */
static uint32_t rp_icrc(const uint8_t *pkt, size_t len)
{
	static const uint8_t lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	uint8_t hdr[RP_IP + RP_UDP + RP_BTH];
	uint32_t crc;

	memcpy(hdr, pkt, sizeof(hdr));
	hdr[1] = 0xff;				/* TOS */
	hdr[8] = 0xff;				/* TTL */
	hdr[10] = hdr[11] = 0xff;		/* IP checksum */
	hdr[20 + 6] = hdr[20 + 7] = 0xff;	/* UDP checksum */
	hdr[28 + 4] = 0xff;			/* BTH resv8a */
	crc = rp_crc(0xffffffff, lrh, sizeof(lrh));
	crc = rp_crc(crc, hdr, sizeof(hdr));
	crc = rp_crc(crc, pkt + sizeof(hdr), len - sizeof(hdr));
	return ~crc;
}

/* ---- a small generator for fuzzing (xorshift64); seed rp_rng != 0 ---- */

static uint64_t rp_rng = 1;

static __attribute__((unused)) uint32_t rp_rand(void)
{
	rp_rng ^= rp_rng << 13;
	rp_rng ^= rp_rng >> 7;
	rp_rng ^= rp_rng << 17;
	return rp_rng >> 16;
}

/* ---- packets ---- */

struct rp_pkt {
	uint8_t buf[RP_IP + RP_UDP + RP_MAX_IB + RP_ICRC];
	size_t ib_len;		/* bytes from the BTH on, ICRC excluded */
	size_t len;		/* the whole datagram, after rp_frame() */
};

static inline uint8_t *rp_ib(struct rp_pkt *p)
{
	return p->buf + RP_IP + RP_UDP;
}

/*
 * Put IPv4 (@src -> @dst) and UDP (-> 4791) headers in front of the IB
 * bytes and an ICRC (right, or deliberately wrong) behind them.  @cut
 * shortens the UDP datagram by that many bytes (the ICRC first).  When
 * the IB part is shorter than a BTH, the ICRC is computed as if it were
 * one (the receiver rejects the length before looking at the ICRC).
 */
static void rp_frame(struct rp_pkt *p, struct in_addr src, struct in_addr dst,
		     uint16_t id, bool good_icrc, size_t cut)
{
	size_t udp_len = RP_UDP + p->ib_len + RP_ICRC - cut;
	size_t len = RP_IP + udp_len, covered;
	uint8_t *ip = p->buf, *udp = p->buf + RP_IP;
	uint32_t icrc;

	memset(ip, 0, RP_IP);
	ip[0] = 0x45;
	ip[2] = len >> 8;
	ip[3] = len & 0xff;
	ip[4] = id >> 8;		/* nonzero: the kernel keeps it */
	ip[5] = id & 0xff;
	ip[6] = 0x40;			/* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	udp[0] = 0xc0;			/* source port 49152 */
	udp[1] = 0x00;
	udp[2] = RP_ROCE_PORT >> 8;
	udp[3] = RP_ROCE_PORT & 0xff;
	udp[4] = udp_len >> 8;
	udp[5] = udp_len & 0xff;
	udp[6] = udp[7] = 0;		/* no UDP checksum, as RoCEv2 sends */

	covered = p->ib_len < RP_BTH ? RP_BTH : p->ib_len;
	icrc = rp_icrc(p->buf, RP_IP + RP_UDP + covered);
	if (!good_icrc)
		icrc ^= 0x5a5a5a5a;
	memcpy(rp_ib(p) + p->ib_len, &icrc, RP_ICRC);	/* little endian */
	p->len = len;
}

/* ---- what the receiver counted ---- */

/* Port 1 hw counter @name of device @dev (what "rdma statistic" shows). */
static __attribute__((unused)) long long rp_counter(const char *dev,
						    const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

#endif /* VRNIC_ROCE_PKT_H */
