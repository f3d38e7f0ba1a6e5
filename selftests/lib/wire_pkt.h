/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wire_pkt.h - hand-built RoCEv2 packets (IPv4) for the wire tests
 * (wire_malformed.c, wire_hostile.c, wire_fuzz.c, dp_hostile.c): headers,
 * ICRC, sending from a raw socket or from an ordinary UDP socket, a
 * generator for fuzzing, the port counters, and running a sender as an
 * unprivileged user in another network namespace.
 *
 * A packet is built in wp_pkt.buf: 20 bytes of IPv4 header, 8 of UDP,
 * then the IB transport headers and payload (wp_ib()), then the ICRC.
 */
#ifndef VRNIC_WIRE_PKT_H
#define VRNIC_WIRE_PKT_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define WP_ROCE_PORT	4791
#define WP_PKEY		0xffff
#define WP_GSI_QKEY	0x80010000u
#define WP_BTH		12
#define WP_DETH		8
#define WP_ICRC		4
#define WP_GRH		40
#define WP_MAD		256
#define WP_MAX_IB	4200	/* BTH through payload, ICRC excluded */
#define WP_RC_SEND_ONLY	0x04
#define WP_RC_WRITE_FIRST 0x06
#define WP_RC_WRITE_ONLY 0x0a
#define WP_RC_ACK	0x11
#define WP_UD_SEND_ONLY	0x64
#define WP_NOBODY	65534	/* uid and gid of the unprivileged sender */

/* Not every test uses every helper. */
#define WP_MAYBE_UNUSED __attribute__((unused))

/* ---- ICRC (IBA A17.3.3): CRC-32 over the invariant fields ---- */

static uint32_t wp_crc_table[256];

static WP_MAYBE_UNUSED void wp_crc_init(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320 ^ (c >> 1) : c >> 1;
		wp_crc_table[i] = c;
	}
}

static WP_MAYBE_UNUSED uint32_t wp_crc(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--)
		crc = wp_crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

/*
 * ICRC of a packet that starts with its IPv4 header: 8 bytes of ones for
 * the LRH RoCEv2 does not have, then IP, UDP and BTH with their variant
 * fields (TOS, TTL, IP checksum, UDP checksum, BTH resv8a) set to ones.
 */
static WP_MAYBE_UNUSED uint32_t wp_icrc(const uint8_t *pkt, size_t len)
{
	static const uint8_t lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	uint8_t hdr[20 + 8 + WP_BTH];
	uint32_t crc;

	if (!wp_crc_table[1])
		wp_crc_init();
	memcpy(hdr, pkt, sizeof(hdr));
	hdr[1] = 0xff;				/* TOS */
	hdr[8] = 0xff;				/* TTL */
	hdr[10] = hdr[11] = 0xff;		/* IP checksum */
	hdr[20 + 6] = hdr[20 + 7] = 0xff;	/* UDP checksum */
	hdr[28 + 4] = 0xff;			/* BTH resv8a */
	crc = wp_crc(0xffffffff, lrh, sizeof(lrh));
	crc = wp_crc(crc, hdr, sizeof(hdr));
	crc = wp_crc(crc, pkt + sizeof(hdr), len - sizeof(hdr));
	return ~crc;
}

/* ---- a small generator for fuzzing (xorshift64); seed wp_rng != 0 ---- */

static uint64_t wp_rng = 1;

static WP_MAYBE_UNUSED uint32_t wp_rand(void)
{
	wp_rng ^= wp_rng << 13;
	wp_rng ^= wp_rng >> 7;
	wp_rng ^= wp_rng << 17;
	return wp_rng >> 16;
}

/* ---- packets ---- */

struct wp_pkt {
	uint8_t buf[20 + 8 + WP_MAX_IB + WP_ICRC];
	size_t ib_len;		/* bytes from the BTH on, ICRC excluded */
};

static WP_MAYBE_UNUSED uint8_t *wp_ib(struct wp_pkt *p)
{
	return p->buf + 20 + 8;
}

static WP_MAYBE_UNUSED void wp_bth(struct wp_pkt *p, uint8_t opcode, uint16_t pkey,
		   uint32_t qpn, uint32_t psn)
{
	uint8_t *b = wp_ib(p);

	b[0] = opcode;
	b[1] = 0;			/* SE 0, MigReq 0, pad 0, TVer 0 */
	b[2] = pkey >> 8;
	b[3] = pkey & 0xff;
	b[4] = 0;
	b[5] = qpn >> 16;
	b[6] = qpn >> 8;
	b[7] = qpn;
	b[8] = 0;
	b[9] = psn >> 16;
	b[10] = psn >> 8;
	b[11] = psn;
	p->ib_len = WP_BTH;
}

static WP_MAYBE_UNUSED void wp_put(struct wp_pkt *p, const void *data, size_t len)
{
	memcpy(wp_ib(p) + p->ib_len, data, len);
	p->ib_len += len;
}

/* @len payload bytes of a repeating pattern. */
static WP_MAYBE_UNUSED void wp_fill(struct wp_pkt *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		wp_ib(p)[p->ib_len + i] = i * 7;
	p->ib_len += len;
}

static WP_MAYBE_UNUSED void wp_deth(struct wp_pkt *p, uint32_t qkey,
				    uint32_t src_qpn)
{
	uint8_t d[WP_DETH] = {
		qkey >> 24, qkey >> 16, qkey >> 8, qkey,
		0, src_qpn >> 16, src_qpn >> 8, src_qpn,
	};

	wp_put(p, d, sizeof(d));
}

/*
 * Write the IPv4 and UDP headers in front of the IB part and the ICRC
 * (right, or deliberately wrong) behind it.  @cut shortens the UDP
 * datagram by that many bytes (the ICRC first).  When the IB part is
 * shorter than a BTH, the ICRC is computed as if it were one (a receiver
 * rejects the length before it looks at the ICRC).  Return the
 * datagram's UDP payload length.
 */
static WP_MAYBE_UNUSED size_t wp_finish(struct wp_pkt *p, struct in_addr src,
			struct in_addr dst, uint16_t sport, uint16_t ip_id,
			bool good_icrc, size_t cut)
{
	size_t udp_len = 8 + p->ib_len + WP_ICRC - cut;
	size_t len = 20 + udp_len;
	uint8_t *ip = p->buf, *udp = p->buf + 20;
	uint32_t icrc;

	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = len >> 8;
	ip[3] = len & 0xff;
	ip[4] = ip_id >> 8;
	ip[5] = ip_id & 0xff;
	ip[6] = 0x40;			/* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	udp[0] = sport >> 8;
	udp[1] = sport & 0xff;
	udp[2] = WP_ROCE_PORT >> 8;
	udp[3] = WP_ROCE_PORT & 0xff;
	udp[4] = udp_len >> 8;
	udp[5] = udp_len & 0xff;
	udp[6] = udp[7] = 0;		/* no UDP checksum, as RoCEv2 sends */

	icrc = wp_icrc(p->buf, 20 + 8 +
		       (p->ib_len < WP_BTH ? WP_BTH : p->ib_len));
	if (!good_icrc)
		icrc ^= 0x5a5a5a5a;
	memcpy(wp_ib(p) + p->ib_len, &icrc, WP_ICRC);	/* little endian */
	return udp_len - 8;
}

/*
 * Send @p from a raw socket (IPPROTO_RAW: the test writes the IP header,
 * so it chooses the source address; needs CAP_NET_RAW).
 */
static WP_MAYBE_UNUSED int wp_send_raw(int fd, struct in_addr src,
				       struct in_addr dst, struct wp_pkt *p,
				       bool good_icrc, size_t cut)
{
	static uint16_t id = 1;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = dst };
	size_t len;

	/* Nonzero: the kernel keeps it (the ICRC covers it). */
	len = 20 + 8 + wp_finish(p, src, dst, 0xc000, id, good_icrc, cut);
	id = id == 0xffff ? 1 : id + 1;
	if (sendto(fd, p->buf, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

/*
 * What any user can do: an ordinary UDP socket, bound to @src:@sport
 * with IP_PMTUDISC_DO and not connected, so the kernel sends with DF
 * and IP ID 0 and every field the ICRC covers is known in advance.
 */
static WP_MAYBE_UNUSED int wp_udp_socket(struct in_addr src, uint16_t sport)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_addr = src,
		.sin_port = htons(sport),
	};
	int fd, v = IP_PMTUDISC_DO;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof(v)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		v = -errno;
		close(fd);
		return v;
	}
	return fd;
}

static WP_MAYBE_UNUSED int wp_send_udp(int fd, struct in_addr src,
				       uint16_t sport, struct in_addr dst,
				       struct wp_pkt *p)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_addr = dst,
		.sin_port = htons(WP_ROCE_PORT),
	};
	size_t len = wp_finish(p, src, dst, sport, 0, true, 0);

	if (sendto(fd, wp_ib(p), len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		return -errno;
	return 0;
}

/* ---- namespaces and users ---- */

/* Enter network namespace @ns (a name from "ip netns"); 0 or -errno. */
static WP_MAYBE_UNUSED int wp_enter_netns(const char *ns)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (setns(fd, CLONE_NEWNET))
		ret = -errno;
	close(fd);
	return ret;
}

/* A socket() in namespace @ns; the caller stays in its own. */
static WP_MAYBE_UNUSED int wp_socket_in(const char *ns, int domain, int type,
					int proto)
{
	int self, fd, err;

	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return -errno;
	err = wp_enter_netns(ns);
	fd = err ? err : socket(domain, type, proto);
	if (fd < 0 && !err)
		fd = -errno;
	if (setns(self, CLONE_NEWNET) && fd >= 0) {
		close(fd);
		fd = -errno;
	}
	close(self);
	return fd;
}

/*
 * Run @fn(@arg) in a child process, in network namespace @ns (NULL: this
 * one), as user and group nobody with no capabilities left.  Return the
 * child's exit status (@fn's return value), or -1.
 */
static WP_MAYBE_UNUSED int wp_run_unprivileged(const char *ns,
					       int (*fn)(void *), void *arg)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (ns && wp_enter_netns(ns))
			_exit(120);
		if (setgroups(0, NULL) || setresgid(WP_NOBODY, WP_NOBODY,
						     WP_NOBODY) ||
		    setresuid(WP_NOBODY, WP_NOBODY, WP_NOBODY))
			_exit(121);
		if (!geteuid())
			_exit(122);
		_exit(fn(arg));
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* The number in file @path (sysfs, cgroupfs), or -1. */
static WP_MAYBE_UNUSED long long wp_read_number(const char *path)
{
	long long v = -1;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* ---- the device's port counters ---- */

static WP_MAYBE_UNUSED long long wp_counter(const char *dev, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	return wp_read_number(path);
}

/* Wait up to 2 s for @name to reach @want; return its last value. */
static WP_MAYBE_UNUSED long long wp_wait_counter(const char *dev,
						 const char *name,
						 long long want)
{
	long long v = -1;
	int i;

	for (i = 0; i < 200; i++) {
		v = wp_counter(dev, name);
		if (v >= want)
			break;
		usleep(10 * 1000);
	}
	return v;
}

#endif /* VRNIC_WIRE_PKT_H */
