// SPDX-License-Identifier: GPL-2.0
/*
 * vrnic: the RoCEv2 Invariant CRC (IBA annex A17.3.3).
 *
 * The ICRC is the Ethernet CRC-32 (reflected, polynomial 0x04c11db7)
 * computed over
 *   - 8 bytes of 0xff standing in for the LRH a RoCEv2 packet lacks,
 *   - the IP header with the fields routers may change set to all ones
 *     (IPv4: TOS, TTL, header checksum; IPv6: traffic class, flow label,
 *     hop limit),
 *   - the UDP header with the checksum set to all ones,
 *   - the BTH with its reserved byte resv8a (FECN/BECN) set to all ones,
 *   - the remaining transport headers, the payload and the pad bytes,
 * and sent inverted, least significant byte first, after the pad.
 *
 * The CRC itself comes from the crypto API's "crc32" shash, as in
 * rdma_rxe, so that an architecture's implementation is used when one is
 * registered (on x86, crc32-pclmul uses carry-less multiply for buffers
 * of 79 bytes or more and crc32_le() below that).
 */
#include <linux/crc32.h>
#include <linux/skbuff.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <crypto/hash.h>

#include "vrnic.h"
#include "hdr.h"
#include "transport.h"

static struct crypto_shash *vrnic_crc_tfm;
static u32 vrnic_crc_seed;

static u32 vrnic_crc32(u32 crc, const void *buf, size_t len)
{
	SHASH_DESC_ON_STACK(desc, vrnic_crc_tfm);
	u32 *ctx = shash_desc_ctx(desc);

	desc->tfm = vrnic_crc_tfm;
	/* The "crc32" shash keeps the running, non-inverted CRC here. */
	*ctx = crc;
	if (unlikely(crypto_shash_update(desc, buf, len)))
		return crc32_le(crc, buf, len);
	crc = *ctx;
	barrier_data(ctx);
	return crc;
}

/* Continue @crc over @len bytes of @skb from @offset (of skb->data). */
static u32 vrnic_crc32_skb(u32 crc, const struct sk_buff *skb, u32 offset,
			   u32 len)
{
	struct skb_seq_state st;
	unsigned int n, done = 0;
	const u8 *data;

	if (offset + len <= skb_headlen(skb))
		return vrnic_crc32(crc, skb->data + offset, len);
	skb_prepare_seq_read((struct sk_buff *)skb, offset, offset + len, &st);
	while ((n = skb_seq_read(done, &data, &st))) {
		/* The last run may reach past @len. */
		n = min(n, len - done);
		crc = vrnic_crc32(crc, data, n);
		done += n;
		if (done == len) {
			skb_abort_seq_read(&st);
			break;
		}
	}
	return crc;
}

/**
 * vrnic_icrc_compute - ICRC of a RoCEv2 packet
 * @skb: packet whose network and transport headers are set and whose UDP
 *	header is immediately followed by the BTH at @bth
 * @bth: start of the BTH, in the linear area
 * @len: bytes from the BTH up to, not including, the ICRC; those past
 *	the BTH may lie in the skb's fragments
 *
 * Return: the value to put (little endian) in the ICRC field.
 */
u32 vrnic_icrc_compute(const struct sk_buff *skb, const u8 *bth, u32 len)
{
	u8 pseudo[sizeof(struct ipv6hdr) + sizeof(struct udphdr) +
		  VRNIC_BTH_BYTES];
	struct udphdr *udph;
	u32 iplen, crc;

	if (ip_hdr(skb)->version == 4) {
		struct iphdr *iph = (struct iphdr *)pseudo;

		iplen = sizeof(*iph);
		memcpy(iph, ip_hdr(skb), iplen);
		iph->tos = 0xff;
		iph->ttl = 0xff;
		iph->check = (__force __sum16)0xffff;
	} else {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)pseudo;

		iplen = sizeof(*ip6h);
		memcpy(ip6h, ipv6_hdr(skb), iplen);
		/* version stays; traffic class and flow label all ones */
		ip6h->priority = 0xf;
		memset(ip6h->flow_lbl, 0xff, sizeof(ip6h->flow_lbl));
		ip6h->hop_limit = 0xff;
	}
	udph = (struct udphdr *)(pseudo + iplen);
	memcpy(udph, udp_hdr(skb), sizeof(*udph));
	udph->check = (__force __sum16)0xffff;
	memcpy(udph + 1, bth, VRNIC_BTH_BYTES);
	((struct vrnic_bth *)(udph + 1))->qpn |= cpu_to_be32(0xff000000);

	crc = vrnic_crc32(vrnic_crc_seed, pseudo,
			  iplen + sizeof(*udph) + VRNIC_BTH_BYTES);
	crc = vrnic_crc32_skb(crc, skb, bth + VRNIC_BTH_BYTES - skb->data,
			      len - VRNIC_BTH_BYTES);
	return ~crc;
}

/**
 * vrnic_icrc_ok - does a received packet carry the right ICRC?
 * @skb, @bth, @len: as for vrnic_icrc_compute(); the ICRC follows the
 *	@len bytes, in the linear area or not
 */
bool vrnic_icrc_ok(const struct sk_buff *skb, const u8 *bth, u32 len)
{
	__le32 icrc;

	if (skb_copy_bits(skb, bth + len - skb->data, &icrc, sizeof(icrc)))
		return false;
	return vrnic_icrc_compute(skb, bth, len) == le32_to_cpu(icrc);
}

int vrnic_icrc_init(void)
{
	static const u8 masked_lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	struct crypto_shash *tfm;

	tfm = crypto_alloc_shash("crc32", 0, 0);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	vrnic_crc_tfm = tfm;
	/* Start value: the CRC state after the masked LRH. */
	vrnic_crc_seed = vrnic_crc32(~0U, masked_lrh, sizeof(masked_lrh));
	return 0;
}

void vrnic_icrc_exit(void)
{
	crypto_free_shash(vrnic_crc_tfm);
	vrnic_crc_tfm = NULL;
}
