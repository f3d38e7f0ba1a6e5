#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""roce_wire.py - capture, decode and check RoCEv2 packets (selftests/cc_wire.sh).

    roce_wire.py selftest
        ICRC vectors made with selftests/lib/wire_pkt.h, decoder round trips.
    roce_wire.py serve IFNAME
        Captures on IFNAME and checks, one after the other, as commands
        read from stdin say (see serve(); lib/ktap.sh's wire_serve): one
        Python start-up (about a second under TCG) for a whole test.  A
        capture is of UDP 4791 (IPv4 and IPv6), both directions, kernel
        timestamps, into a nanosecond pcap file; an 802.1Q tag the kernel
        holds out of band (VLAN offload, as on a veth under a VLAN netdev)
        is put back into the frame, as libpcap does.  Stopping drains the
        socket, then writes OUT.pcap and OUT.pcap.stats (packets, drops).
    roce_wire.py check PREFIX FILE.pcap RULE...
        Decode the capture and judge each RULE; print one TAP result line
        per rule and "# " comment lines (wire_check in lib/ktap.sh relays
        them into the test's results).
    roce_wire.py inject SRC DST DQPN [cnp|truncated|ack [PSN]]
        Send one CNP (default), a truncated one (BTH and ICRC only) or an RC
        ACK of PSN, each with a correct ICRC, from SRC to DST through a raw
        IPv4 socket.
    roce_wire.py inject -
        The same for each line "SRC DST DQPN [KIND [PSN]]" read from stdin,
        answering each with one line once it is sent: one Python start-up
        (seconds under TCG) for many packets.

Rules are words, key=value; selectors sel= (req, rresp, data = req|rresp,
ack, cnp, any), src=, dst= (addresses), ce=1 (CE-marked only):
    summary                       print the capture by flow/class/DSCP/ECN
    lossless                      the capture dropped nothing
    icrc                          every packet's ICRC verifies
    pkt SEL.. dscp=N ecn=N [pcp=N] [min=K]
                                  at least K (1) packets match, all with
                                  that DSCP and ECN (and 802.1Q PCP: an
                                  untagged frame has none and fails)
    count SEL.. eq=K|le=K|ge=K [label=WORD]
                                  number of matching packets (K may name
                                  a counter: label)
    retx SEL.. ecn=N              some requests were sent again (same QP
                                  and PSN twice), every copy with ECN N
    cnpfmt src=NP dst=RP dscp=N   every CNP NP->RP has the exact IBTA A17.9
                                  format, addressed to a QPN RP uses
    cnppace src=NP dst=RP n=US [gap=F] [gapq=Q:F,..] [lo=F] [band=F] [ceall=1]
                                  per QP: CNPs <= floor(D/N) + 2 (D: first
                                  to last CE-marked request or READ
                                  response RP->NP of that QP, or every one
                                  with ceall=1, when CE is set after the
                                  capture point), >= 1; every gap between
                                  CNPs >= F*N (gap); the Q-quantile of the
                                  gaps >= F*N (gapq: the wire shows when a
                                  CNP left, and a TCG vCPU can stall between
                                  the kernel's decision and the send, so a
                                  single gap may look short); count >= F *
                                  the pacing model's (lo); count within the
                                  model's for N*(1-F)..N*(1+F) (band)

The ICRC (IBA A17.3.3, docs/wire.md): CRC-32 (zlib's) over 8 bytes of ones
standing for the LRH, the IP header with IPv4 TOS, TTL and checksum or IPv6
traffic class, flow label and hop limit set to ones, the UDP header with
its checksum set to ones, the BTH with byte 4 (FECN/BECN) set to ones, and
the rest up to the ICRC, which follows least significant byte first.
"""

import ipaddress
import json
import os
import select
import socket
import struct
import sys
import time
import zlib

ROCE_PORT = 4791
ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
PACKET_STATISTICS = 6
TP_STATUS_VLAN_VALID = 1 << 4
TP_STATUS_VLAN_TPID_VALID = 1 << 6
SO_ATTACH_FILTER = 26
SO_TIMESTAMPNS = 35
SO_RCVBUFFORCE = 33
CNP_OPCODE = 0x81
CNP_UDP_LEN = 8 + 12 + 16 + 4
ECN_NAMES = {0: "Not-ECT", 1: "ECT(1)", 2: "ECT(0)", 3: "CE"}

# ---------------------------------------------------------------- ICRC


def icrc_of(ip):
    """ICRC over @ip (from the IP header through the byte before the ICRC)."""
    b = bytearray(ip)
    if b[0] >> 4 == 4:
        ihl = (b[0] & 0xF) * 4
        b[1] = 0xFF                     # TOS
        b[8] = 0xFF                     # TTL
        b[10] = b[11] = 0xFF            # header checksum
    else:
        ihl = 40
        b[0] |= 0x0F                    # traffic class (high nibble) ...
        b[1] = b[2] = b[3] = 0xFF       # ... and flow label
        b[7] = 0xFF                     # hop limit
    b[ihl + 6] = b[ihl + 7] = 0xFF      # UDP checksum
    b[ihl + 8 + 4] = 0xFF               # BTH resv8a (FECN, BECN)
    return zlib.crc32(bytes(b"\xff" * 8) + bytes(b)) & 0xFFFFFFFF


# ---------------------------------------------------------------- decoding


def op_class(op):
    """req, rresp, ack, cnp or other for a BTH opcode."""
    if op == CNP_OPCODE:
        return "cnp"
    tr, low = op >> 5, op & 0x1F
    if tr == 3:                         # UD: SEND ONLY (+IMM)
        return "req" if low in (4, 5) else "other"
    if tr not in (0, 1):
        return "other"
    if low <= 0x0B:                     # SEND and RDMA WRITE
        return "req"
    if tr == 0:
        if low in (0x0C, 0x13, 0x14, 0x16, 0x17, 0x1D):
            return "req"                # READ req, atomics, SEND INV, ATOMIC WRITE
        if 0x0D <= low <= 0x10:
            return "rresp"
        if low in (0x11, 0x12):
            return "ack"
    return "other"


class Pkt:
    """One decoded RoCEv2 packet; .err is set when it is not one."""

    def __init__(self, ts, frame):
        self.ts = ts
        self.err = None
        try:
            self._decode(frame)
        except (IndexError, struct.error, ValueError) as e:
            self.err = "undecodable: %s" % e

    def _decode(self, f):
        etype = struct.unpack_from("!H", f, 12)[0]
        off = 14
        self.pcp = None
        if etype == 0x8100:
            tci, etype = struct.unpack_from("!HH", f, 14)
            self.pcp = tci >> 13
            off = 18
        if etype == 0x0800:
            self.ipver = 4
            ihl = (f[off] & 0xF) * 4
            tos = f[off + 1]
            tot = struct.unpack_from("!H", f, off + 2)[0]
            self.df = bool(f[off + 6] & 0x40)
            self.ttl = f[off + 8]
            if f[off + 9] != 17:
                raise ValueError("not UDP")
            self.src = str(ipaddress.IPv4Address(f[off + 12:off + 16]))
            self.dst = str(ipaddress.IPv4Address(f[off + 16:off + 20]))
            ip_end = off + tot
        elif etype == 0x86DD:
            self.ipver = 6
            ihl = 40
            vtf = struct.unpack_from("!I", f, off)[0]
            tos = (vtf >> 20) & 0xFF
            plen = struct.unpack_from("!H", f, off + 4)[0]
            if f[off + 6] != 17:
                raise ValueError("not UDP")
            self.df = True
            self.ttl = f[off + 7]
            self.src = str(ipaddress.IPv6Address(f[off + 8:off + 24]))
            self.dst = str(ipaddress.IPv6Address(f[off + 24:off + 40]))
            ip_end = off + 40 + plen
        else:
            raise ValueError("ethertype 0x%04x" % etype)
        self.dscp, self.ecn = tos >> 2, tos & 3
        u = off + ihl
        self.sport, self.dport, self.ulen, self.ucsum = struct.unpack_from("!HHHH", f, u)
        if self.dport != ROCE_PORT:
            raise ValueError("UDP port %d" % self.dport)
        if self.ulen < 8 + 12 + 4 or u + self.ulen > len(f) or u + self.ulen > ip_end:
            raise ValueError("UDP length %d" % self.ulen)
        b = u + 8
        self.op = f[b]
        self.cls = op_class(self.op)
        self.b1 = f[b + 1]
        self.pkey = struct.unpack_from("!H", f, b + 2)[0]
        self.b4 = f[b + 4]
        self.dqpn = struct.unpack_from("!I", f, b + 4)[0] & 0xFFFFFF
        self.b8 = f[b + 8]
        self.psn = struct.unpack_from("!I", f, b + 8)[0] & 0xFFFFFF
        end = u + self.ulen
        self.body = bytes(f[b + 12:end - 4])    # after the BTH, before the ICRC
        self.icrc = struct.unpack_from("<I", f, end - 4)[0]
        self.icrc_calc = icrc_of(f[off:end - 4])
        self.icrc_ok = self.icrc == self.icrc_calc

    def brief(self):
        if self.err:
            return self.err
        return ("%.6f %s>%s v%d%s%s dscp %d ecn %s ttl %d sport %d ulen %d op 0x%02x(%s) "
                "b1 0x%02x pkey 0x%04x b4 0x%02x dqpn 0x%06x b8 0x%02x psn %d icrc %s" % (
                    self.ts, self.src, self.dst, self.ipver, " DF" if self.df else "",
                    "" if self.pcp is None else " pcp %d" % self.pcp, self.dscp,
                    ECN_NAMES[self.ecn], self.ttl, self.sport, self.ulen, self.op,
                    self.cls, self.b1, self.pkey, self.b4, self.dqpn, self.b8,
                    self.psn, "ok" if self.icrc_ok else "BAD(0x%08x, want 0x%08x)" % (
                        self.icrc, self.icrc_calc)))


def read_pcap(path):
    with open(path, "rb") as fh:
        data = fh.read()
    if len(data) < 24:
        raise ValueError("%s: no pcap header" % path)
    magic = struct.unpack_from("<I", data, 0)[0]
    div = {0xA1B23C4D: 1e9, 0xA1B2C3D4: 1e6}.get(magic)
    if div is None:
        raise ValueError("%s: not a little-endian pcap" % path)
    pkts, off = [], 24
    while off + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack_from("<IIII", data, off)
        off += 16
        pkts.append(Pkt(sec + frac / div, data[off:off + incl]))
        off += incl
    return pkts


# ---------------------------------------------------------------- capture


def bpf_udp4791():
    """Classic BPF: accept IPv4/IPv6 UDP to port 4791 (unfragmented)."""
    prog, labels, fix = [], {}, []

    def ins(code, k=0, jt=None, jf=None):
        fix.append((len(prog), jt, jf))
        prog.append([code, 0, 0, k])

    def label(name):
        labels[name] = len(prog)

    ins(0x28, 12)                               # ldh [12]
    ins(0x15, 0x0800, jf="v6")                  # jeq #IPv4
    ins(0x30, 23)                               # ldb [23]: protocol
    ins(0x15, 17, jf="drop")
    ins(0x28, 20)                               # ldh [20]: frag offset
    ins(0x45, 0x1FFF, jt="drop")                # jset
    ins(0xB1, 14)                               # ldxb 4*([14]&0xf)
    ins(0x48, 16)                               # ldh [x+16]: UDP dport
    ins(0x15, ROCE_PORT, jt="ok", jf="drop")
    label("v6")
    ins(0x15, 0x86DD, jf="drop")                # A still holds the ethertype
    ins(0x30, 20)                               # ldb [20]: next header
    ins(0x15, 17, jf="drop")
    ins(0x28, 56)                               # ldh [56]: UDP dport
    ins(0x15, ROCE_PORT, jt="ok", jf="drop")
    label("ok")
    ins(0x06, 0x40000)                          # ret: whole packet
    label("drop")
    ins(0x06, 0)
    for pc, jt, jf in fix:
        if jt:
            prog[pc][1] = labels[jt] - pc - 1
        if jf:
            prog[pc][2] = labels[jf] - pc - 1
    return b"".join(struct.pack("HBBI", *i) for i in prog), len(prog)


def with_vlan_tag(frame, aux):
    """@frame with the 802.1Q tag of its tpacket_auxdata @aux put back in."""
    status, _len, _snap, _mac, _net, tci, tpid = struct.unpack_from("IIIHHHH", aux)
    if not status & TP_STATUS_VLAN_VALID and tci == 0:
        return frame
    if not status & TP_STATUS_VLAN_TPID_VALID:
        tpid = 0x8100
    return frame[:12] + struct.pack("!HH", tpid, tci) + frame[12:]


class Capture:
    """An AF_PACKET capture of UDP 4791 on one interface, into a pcap."""

    def __init__(self, ifname):
        import ctypes
        self.ifname = ifname
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)     # nothing yet
        code, n = bpf_udp4791()
        buf = ctypes.create_string_buffer(code)
        fprog = struct.pack("HL", n, ctypes.addressof(buf))
        s.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)
        try:
            s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 256 << 20)
        except OSError:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 20)
        s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        s.bind((ifname, ETH_P_ALL))
        s.setblocking(False)
        self.sock = s
        self.recs = []
        self.nots = 0

    def run(self, stopping):
        """Receive until stopping() says so, then drain the socket."""
        s = self.sock
        while True:
            stop = stopping()
            if not stop:
                select.select([s], [], [], 0.2)
            try:
                data, anc, _flags, _addr = s.recvmsg(65536, 256)
            except BlockingIOError:
                if stop:
                    break
                continue
            except InterruptedError:
                continue
            ts = None
            for lvl, typ, d in anc:
                if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS and len(d) >= 16:
                    ts = struct.unpack("qq", d[:16])
                elif lvl == SOL_PACKET and typ == PACKET_AUXDATA and len(d) >= 20:
                    data = with_vlan_tag(data, d)
            if not ts or ts == (0, 0):
                self.nots += 1
                t = time.time()
                ts = (int(t), int((t % 1) * 1e9))
            self.recs.append((ts, data))

    def write(self, out):
        """Close the socket; write OUT and OUT.stats; return the stats."""
        st = self.sock.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8)
        tp_packets, tp_drops = struct.unpack("II", st)
        self.sock.close()
        with open(out, "wb") as fh:
            fh.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
            for (sec, nsec), data in self.recs:
                fh.write(struct.pack("<IIII", sec, nsec, len(data), len(data)))
                fh.write(data)
        stats = {"packets": len(self.recs), "kernel_packets": tp_packets,
                 "drops": tp_drops, "no_timestamp": self.nots}
        with open(out + ".stats", "w") as fh:
            json.dump(stats, fh)
        return stats


def serve(ifname, lines):
    """Captures on IFNAME and checks, one process for a whole test.

    Commands, one a line, words quoted as by the shell (bash's printf %q):
      start OUT.pcap    capture (in a thread) until stop; answers "started"
      stop              write OUT.pcap and its .stats; answers "stopped STATS"
      check PREFIX FILE.pcap RULE...
                        as the check command; the TAP lines end with "#end"
    A command that fails is answered "error ..." (then "#end" for check).
    """
    import shlex
    import threading
    cap = thread = out = None
    halt = threading.Event()

    def stop():
        nonlocal cap, thread
        halt.set()
        thread.join()
        stats = cap.write(out)
        cap = thread = None
        return stats

    for line in lines:
        try:
            words = shlex.split(line)
        except ValueError as e:
            print("error: %r: %s" % (line.strip(), e), flush=True)
            continue
        if not words:
            continue
        cmd = words[0]
        try:
            if cmd == "start" and len(words) == 2:
                if cap:
                    stop()
                halt.clear()
                out = words[1]
                cap = Capture(ifname)
                thread = threading.Thread(target=cap.run, args=(halt.is_set,))
                thread.start()
                print("started", flush=True)
            elif cmd == "stop" and cap:
                print("stopped %s" % json.dumps(stop()), flush=True)
            elif cmd == "check" and len(words) >= 3:
                Check(words[1], words[2]).run(words[3:])
                print("#end", flush=True)
            else:
                print("error: %r: not a command here" % line.strip(), flush=True)
                if cmd == "check":
                    print("#end", flush=True)
        except Exception as e:      # pylint: disable=broad-except
            print("error: %s: %s: %s" % (cmd, type(e).__name__, e), flush=True)
            if cmd == "check":
                print("#end", flush=True)
    if cap:
        stop()


# ---------------------------------------------------------------- checks


class Check:
    def __init__(self, prefix, path):
        self.prefix = prefix
        self.path = path
        self.all = read_pcap(path)
        self.bad = [p for p in self.all if p.err]
        self.pkts = [p for p in self.all if not p.err]
        try:
            with open(path + ".stats") as fh:
                self.stats = json.load(fh)
        except OSError:
            self.stats = None
        self.failed = 0
        self.judged = 0

    def result(self, ok, name, why="", detail=()):
        name = "%s: %s" % (self.prefix, name)
        for line in detail:
            print("#   " + line)
        self.judged += 1
        if ok:
            print("ok %d %s" % (self.judged, name))
        else:
            self.failed += 1
            print("not ok %d %s # %s" % (self.judged, name, why))

    @staticmethod
    def args(words):
        kv = {}
        for w in words:
            k, _, v = w.partition("=")
            kv[k] = v
        return kv

    def select(self, kv):
        sel = kv.get("sel", "any")
        out = []
        for p in self.pkts:
            if sel == "data":
                if p.cls not in ("req", "rresp"):
                    continue
            elif sel != "any" and p.cls != sel:
                continue
            if "src" in kv and p.src != kv["src"]:
                continue
            if "dst" in kv and p.dst != kv["dst"]:
                continue
            if "op" in kv and p.op != int(kv["op"], 0):
                continue
            if kv.get("ce") == "1" and p.ecn != 3:
                continue
            out.append(p)
        return out

    @staticmethod
    def what(kv):
        s = {"data": "data (requests, READ responses)", "req": "requests",
             "rresp": "READ responses", "ack": "ACKs", "cnp": "CNPs",
             "any": "packets"}.get(kv.get("sel", "any"), kv.get("sel"))
        if "op" in kv:
            s += " (opcode %s)" % kv["op"]
        if kv.get("ce") == "1":
            s = "CE-marked " + s
        if "src" in kv or "dst" in kv:
            s += " %s->%s" % (kv.get("src", "*"), kv.get("dst", "*"))
        return s

    # -- rules

    def r_summary(self, kv):
        flows = {}
        tagged = any(p.pcp is not None for p in self.pkts)
        for p in self.pkts:
            k = (p.src, p.dst, p.cls, p.dscp, ECN_NAMES[p.ecn])
            if tagged:
                k += ("untagged" if p.pcp is None else "pcp %d" % p.pcp,)
            flows[k] = flows.get(k, 0) + 1
        print("# capture %s: %d packets%s" % (
            os.path.basename(self.path), len(self.all),
            ", capture stats %s" % json.dumps(self.stats) if self.stats else ""))
        for k in sorted(flows):
            print("#   %s > %s %-5s dscp %2d %-7s%s x%d" % (
                k[:5] + (" " + k[5] if tagged else "", flows[k])))
        for p in self.bad[:5]:
            print("#   undecodable frame at %.6f: %s" % (p.ts, p.err))

    def r_lossless(self, kv):
        st = self.stats
        ok = st is not None and st.get("drops", 1) == 0 and not self.bad
        self.result(ok, "capture complete (no drops, every frame decoded)",
                    "stats %s, %d undecodable" % (json.dumps(st), len(self.bad)))

    def r_icrc(self, kv):
        bad = [p for p in self.pkts if not p.icrc_ok]
        n = len(self.pkts)
        self.result(n > 0 and not bad,
                    "ICRC of every captured packet verifies",
                    "%d of %d bad" % (len(bad), n) if n else "no packets captured",
                    [p.brief() for p in bad[:3]])

    def r_pkt(self, kv):
        ps = self.select(kv)
        want = {}
        for k in ("dscp", "ecn", "ttl", "pcp"):
            if k in kv:
                want[k] = int(kv[k], 0)
        nmin = int(kv.get("min", "1"))
        wrong = [p for p in ps if any(getattr(p, k) != v for k, v in want.items())]
        desc = " ".join("%s %s" % (k.upper(), ECN_NAMES[v] if k == "ecn" else v)
                        for k, v in want.items())
        if "pcp" in want:
            seen = sorted({(p.dscp, p.ecn, -1 if p.pcp is None else p.pcp) for p in ps})
            seen_what = "(dscp, ecn, pcp; -1: untagged)"
        else:
            seen = sorted({(p.dscp, p.ecn) for p in ps})
            seen_what = "(dscp, ecn)"
        self.result(len(ps) >= nmin and not wrong,
                    "%s: %s" % (self.what(kv), desc),
                    "%d matching packets (want >= %d), %d with other values; seen "
                    "%s %s" % (len(ps), nmin, len(wrong), seen_what, seen),
                    [p.brief() for p in wrong[:3]])

    def r_count(self, kv):
        n = len(self.select(kv))
        for op, f in (("eq", lambda a, b: a == b), ("le", lambda a, b: a <= b),
                      ("ge", lambda a, b: a >= b)):
            if op not in kv:
                continue
            label = kv.get("label", kv[op])
            name = "number of %s on the wire %s %s" % (self.what(kv), op, label)
            try:
                k = int(kv[op])
            except ValueError:
                self.result(False, name, "no number to compare with (%r)" % kv[op])
                return
            self.result(f(n, k), name, "captured %d, expected %s %d" % (n, op, k),
                        ["captured %d, %s = %d" % (n, label, k)] if "label" in kv else ())
            return
        raise ValueError("count: no eq=, le= or ge=")

    def r_retx(self, kv):
        ps = self.select(kv)
        seen, again = {}, []
        for p in ps:
            k = (p.dst, p.dqpn, p.psn)
            if k in seen:
                again.append(p)
                if seen[k] not in again:
                    again.append(seen[k])
            else:
                seen[k] = p
        want = int(kv["ecn"], 0)
        wrong = [p for p in again if p.ecn != want]
        self.result(bool(again) and not wrong,
                    "retransmitted %s: ECN %s" % (self.what(kv), ECN_NAMES[want]),
                    "%d copies of resent PSNs, %d with another ECN" % (len(again), len(wrong))
                    if again else "no request was sent twice",
                    [p.brief() for p in wrong[:3]])

    def peer_qpns(self, np_, rp):
        """QPNs that the NP's packets (not CNPs) to the RP address, by UDP sport."""
        m = {}
        for p in self.pkts:
            if p.src == np_ and p.dst == rp and p.cls != "cnp":
                m.setdefault(p.dqpn, set()).add(p.sport)
        return m

    def r_cnpfmt(self, kv):
        np_, rp = kv["src"], kv["dst"]
        dscp = int(kv.get("dscp", "48"), 0)
        cnps = self.select({"sel": "cnp", "src": np_, "dst": rp})
        peers = self.peer_qpns(np_, rp)
        bad = []
        for p in cnps:
            why = []
            if p.dscp != dscp:
                why.append("DSCP %d" % p.dscp)
            if p.ecn != 2:
                why.append("ECN %s" % ECN_NAMES[p.ecn])
            if p.ulen != CNP_UDP_LEN:
                why.append("UDP length %d" % p.ulen)
            if p.b1 != 0:
                why.append("BTH byte 1 0x%02x" % p.b1)
            if p.pkey != 0xFFFF:
                why.append("P_Key 0x%04x" % p.pkey)
            if p.b4 != 0x40:
                why.append("BTH byte 4 0x%02x (BECN must be the only bit)" % p.b4)
            if p.dqpn not in peers:
                why.append("DestQP 0x%06x is no QP of the sender (it uses %s)" % (
                    p.dqpn, ",".join("0x%06x" % q for q in sorted(peers)) or "none seen"))
            if p.b8 != 0 or p.psn != 0:
                why.append("BTH byte 8 0x%02x PSN %d" % (p.b8, p.psn))
            if p.body != bytes(16):
                why.append("reserved bytes %s" % p.body.hex())
            if not p.icrc_ok:
                why.append("ICRC 0x%08x, computed 0x%08x" % (p.icrc, p.icrc_calc))
            if why:
                bad.append("%s: %s" % (p.brief(), "; ".join(why)))
        self.result(bool(cnps) and not bad,
                    "CNPs %s->%s: opcode 0x81, BECN, P_Key 0xffff, DestQP = sender's QPN, "
                    "PSN 0, 16 zero bytes, ICRC, DSCP %d, ECT(0)" % (np_, rp, dscp),
                    "%d of %d CNPs malformed" % (len(bad), len(cnps)) if cnps else "no CNP",
                    bad[:3])

    @staticmethod
    def model(marks, n):
        """CNP times of a notification point with min interval @n for @marks."""
        out, last, pending = [], None, False
        for t in marks:
            while pending and last + n <= t:
                last += n
                out.append(last)
                pending = False
            if last is None or t - last >= n:
                last = t
                out.append(t)
            else:
                pending = True
        if pending:
            out.append(last + n)
        return out

    def r_cnppace(self, kv):
        np_, rp = kv["src"], kv["dst"]
        n = int(kv["n"]) / 1e6
        gap = float(kv.get("gap", "0"))
        lo = float(kv.get("lo", "0"))
        band = float(kv.get("band", "-1"))
        gapq = [tuple(float(x) for x in q.split(":")) for q in kv.get("gapq", "").split(",") if q]
        cnps = self.select({"sel": "cnp", "src": np_, "dst": rp})
        peers = self.peer_qpns(np_, rp)
        marks = [p for p in self.select({"sel": "data", "src": rp, "dst": np_})
                 if p.ecn == 3 or kv.get("ceall") == "1"]
        by_qp = {}
        for p in cnps:
            by_qp.setdefault(p.dqpn, []).append(p.ts)
        detail, why = [], []
        if not cnps:
            why.append("no CNP")
        qps = set(by_qp)
        if len(peers) == 1:
            qps |= set(peers)
        for q in sorted(qps):
            ts = sorted(by_qp.get(q, []))
            sports = peers.get(q, set())
            m = sorted(p.ts for p in marks if p.sport in sports) if sports else []
            if not m and len(peers) <= 1:
                m = sorted(p.ts for p in marks)
            d = m[-1] - m[0] if m else 0.0
            bound = int(d / n) + 2 if m else 0
            gaps = [b - a for a, b in zip(ts, ts[1:])]
            mod = len(self.model(m, n))
            line = ("QP 0x%06x: %d CE-marked packets over %.3f s, %d CNPs (bound "
                    "floor(D/N)+2 = %d, model %d), min gap %s" % (
                        q, len(m), d, len(ts), bound, mod,
                        "%.2f ms" % (min(gaps) * 1e3) if gaps else "-"))
            detail.append(line)
            if not m:
                why.append("QP 0x%06x: CNPs without any CE-marked packet" % q)
                continue
            if not ts:
                why.append("QP 0x%06x: no CNP for %d CE-marked packets" % (q, len(m)))
            if len(ts) > bound:
                why.append("QP 0x%06x: %d CNPs > %d" % (q, len(ts), bound))
            if gaps and min(gaps) < gap * n:
                why.append("QP 0x%06x: CNPs %.3f ms apart < %.2f N" % (q, min(gaps) * 1e3, gap))
            for qq, f in gapq:
                g = sorted(gaps)
                if g and g[int(qq * (len(g) - 1))] < f * n:
                    why.append("QP 0x%06x: %.1f%% of the gaps between CNPs are below %.2f N" % (
                        q, 100.0 * sum(1 for x in g if x < f * n) / len(g), f))
            if lo and len(ts) < lo * mod:
                why.append("QP 0x%06x: %d CNPs < %.2f x model %d" % (q, len(ts), lo, mod))
            if band >= 0:
                a = len(self.model(m, n * (1 - band)))
                b = len(self.model(m, n * (1 + band)))
                if not min(a, b) <= len(ts) <= max(a, b):
                    why.append("QP 0x%06x: %d CNPs, model for N +-%d%% gives %d..%d" % (
                        q, len(ts), band * 100, min(a, b), max(a, b)))
            if len(gaps) > 12:
                g = sorted(gaps)
                detail.append("  CNP gaps (ms): min %.2f, 1%% %.2f, 10%% %.2f, median %.2f, "
                              "max %.2f; %d below N" % tuple(
                                  [x * 1e3 for x in (g[0], g[len(g) // 100], g[len(g) // 10],
                                                     g[len(g) // 2], g[-1])] +
                                  [sum(1 for x in g if x < n)]))
                pairs = [(i, ts[i], ts[i + 1]) for i in range(len(ts) - 1)
                         if ts[i + 1] - ts[i] < gap * n]
                for i, a, b in pairs[:3]:
                    prev = ts[i - 1] if i else None
                    lo_t = prev if prev is not None else a - n
                    before = [x for x in m if lo_t <= x <= a]
                    between = [x for x in m if a < x <= b]
                    ms = lambda x: "%+.2f" % ((x - a) * 1e3)
                    detail.append("  close pair (ms from its first CNP): previous CNP %s, marks %s, "
                                  "CNP +0.00, marks %s, CNP %s" % (
                                      ms(prev) if prev is not None else "-",
                                      self.span_rel(before, ms), self.span_rel(between, ms), ms(b)))
            if len(ts) <= 12:
                detail.append("  marks %s" % self.span(m))
                detail.append("  CNPs at %s" % ", ".join(
                    "%+.1f ms" % ((t - m[0]) * 1e3) for t in ts))
        what = []
        if gap:
            what.append("gaps >= %g N" % gap)
        for qq, f in gapq:
            what.append("%g%% of gaps >= %g N" % (100 * (1 - qq), f))
        if band >= 0:
            what.append("count = pacing model's")
        elif lo:
            what.append(">= %g x model" % lo)
        self.result(not why, "CNPs %s->%s per QP: 1 <= count <= floor(D/N)+2 for N = %g us%s" % (
            np_, rp, n * 1e6, ", " + ", ".join(what) if what else ""),
                    "; ".join(why[:3]), detail)

    @staticmethod
    def span_rel(xs, fmt):
        if not xs:
            return "none"
        if len(xs) <= 4:
            return ",".join(fmt(x) for x in xs)
        return "%d from %s to %s" % (len(xs), fmt(xs[0]), fmt(xs[-1]))

    @staticmethod
    def span(m):
        if len(m) <= 6:
            return ", ".join("%+.1f ms" % ((t - m[0]) * 1e3) for t in m)
        return "%d from 0 to %+.1f ms" % (len(m), (m[-1] - m[0]) * 1e3)

    def run(self, rules):
        for r in rules:
            words = r.split()
            if not words:
                continue
            kv = self.args(words[1:])
            getattr(self, "r_" + words[0])(kv)
        return 1 if self.failed else 0


# ---------------------------------------------------------------- injection


def ipv4_roce(src, dst, ib, ident=0x1234, sport=0xC000, tos=0, ttl=64):
    """IPv4 + UDP 4791 + @ib (BTH onwards, no ICRC) + ICRC."""
    ulen = 8 + len(ib) + 4
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + ulen, ident, 0x4000, ttl, 17, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    udp = struct.pack("!HHHH", sport, ROCE_PORT, ulen, 0)
    pkt = ip + udp + ib
    return pkt + struct.pack("<I", icrc_of(pkt))


def cnp_ib(dqpn):
    return struct.pack("!BBHII", CNP_OPCODE, 0, 0xFFFF, 0x40000000 | dqpn, 0) + bytes(16)


def inject(src, dst, dqpn, kind="cnp", psn=0):
    """Send a CNP, a truncated one (BTH and ICRC only) or an RC ACK of @psn."""
    if kind == "ack":
        ib = struct.pack("!BBHII", 0x11, 0, 0xFFFF, dqpn, psn & 0xFFFFFF) + struct.pack("!I", 0)
        what = "ACK PSN %d" % (psn & 0xFFFFFF)
    else:
        ib = cnp_ib(dqpn)
        what = "CNP"
        if kind == "truncated":
            ib = ib[:12]
            what = "truncated CNP"
    pkt = ipv4_roce(src, dst, ib, tos=48 << 2 | 2)
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    s.sendto(pkt, (dst, 0))
    s.close()
    print("sent a %d-byte %s %s -> %s DestQP 0x%06x" % (len(pkt), what, src, dst, dqpn),
          flush=True)


def inject_args(words):
    """inject()'s arguments from the command line's words."""
    return (words[0], words[1], int(words[2], 0), words[3] if len(words) > 3 else "cnp",
            int(words[4], 0) if len(words) > 4 else 0)


def inject_lines(lines):
    """inject() for each line; a bad line is answered with an error line."""
    for line in lines:
        words = line.split()
        if not words:
            continue
        try:
            inject(*inject_args(words))
        except (IndexError, ValueError, OSError) as e:
            print("error: %r: %s" % (line.strip(), e), flush=True)


# ---------------------------------------------------------------- self-test

# Made with wire_pkt.h (wp_finish(), 10.111.0.2 -> 10.111.0.1, IP ID 0x1234,
# sport 49152): a CNP to QP 0x000011, and an RC RDMA WRITE ONLY to QP
# 0x000022 PSN 0x123456, RETH va 0x1000 rkey 0x77 len 256, payload byte i
# = (7 * i + 3) & 0xff, for i < 256.
# The packets ipv4_roce() builds for these are byte for byte the C ones.
VEC_CNP_ICRC = 0x5518687B
VEC_WRITE_ICRC = 0x88FCA860


def selftest():
    fails = 0

    def chk(ok, what):
        nonlocal fails
        print("%s %s" % ("ok" if ok else "FAIL", what))
        if not ok:
            fails += 1

    # The masking: variant fields must not change the ICRC, others must.
    cnp = ipv4_roce("10.111.0.2", "10.111.0.1", cnp_ib(0x11))
    body = bytearray(cnp[:-4])
    ref = icrc_of(body)
    for off, what in ((1, "TOS"), (8, "TTL"), (10, "IP checksum"), (26, "UDP checksum"),
                      (32, "BTH byte 4")):
        b = bytearray(body)
        b[off] ^= 0x5A
        chk(icrc_of(b) == ref, "ICRC ignores the IPv4 %s" % what)
    for off, what in ((4, "IP ID"), (12, "IP source"), (20, "UDP sport"), (28, "BTH opcode"),
                      (33, "DestQP"), (40, "payload")):
        b = bytearray(body)
        b[off] ^= 0x01
        chk(icrc_of(b) != ref, "ICRC covers the IPv4 %s" % what)
    # Vectors from the C implementation (wire_pkt.h).
    for name, pkt, want in (("CNP", cnp, VEC_CNP_ICRC), ("RDMA WRITE ONLY", write_vec(), VEC_WRITE_ICRC)):
        got = struct.unpack("<I", pkt[-4:])[0]
        chk(got == want, "ICRC of the %s vector 0x%08x (wire_pkt.h: 0x%08x)" % (name, got, want))
    # Decoder round trip through an Ethernet frame.
    eth = bytes(12) + b"\x08\x00"
    p = Pkt(0.0, eth + cnp)
    chk(p.err is None and p.cls == "cnp" and p.b4 == 0x40 and p.pkey == 0xFFFF and
        p.dqpn == 0x11 and p.psn == 0 and p.body == bytes(16) and p.icrc_ok and
        p.ulen == CNP_UDP_LEN, "decoder: CNP fields and ICRC")
    bad = bytearray(cnp)
    bad[40] ^= 1
    chk(not Pkt(0.0, eth + bytes(bad)).icrc_ok, "decoder: a flipped payload bit fails the ICRC")
    tos = bytearray(cnp)
    tos[1] = 0x6B
    p = Pkt(0.0, eth + bytes(tos))
    chk(p.dscp == 26 and p.ecn == 3 and p.icrc_ok, "decoder: DSCP/ECN split, CE keeps the ICRC")
    aux = struct.pack("IIIHHHH", TP_STATUS_VLAN_VALID | TP_STATUS_VLAN_TPID_VALID, 0, 0, 0, 0,
                      (5 << 13) | 100, 0x8100)
    p = Pkt(0.0, with_vlan_tag(eth + bytes(tos), aux))
    chk(p.err is None and p.pcp == 5 and p.dscp == 26 and p.icrc_ok,
        "decoder: an out-of-band 802.1Q tag put back, PCP 5")
    aux = struct.pack("IIIHHHH", 0, 0, 0, 0, 0, 0, 0)
    chk(Pkt(0.0, with_vlan_tag(eth + bytes(tos), aux)).pcp is None,
        "decoder: no tag in the auxdata, frame unchanged")
    # IPv6: masking of traffic class, flow label, hop limit.
    ib = cnp_ib(0x11)
    ulen = 8 + len(ib) + 4
    ip6 = struct.pack("!IHBB16s16s", 0x60000000 | (0x6A << 20) | 0x12345, ulen, 17, 64,
                      socket.inet_pton(socket.AF_INET6, "fd00:111::2"),
                      socket.inet_pton(socket.AF_INET6, "fd00:111::1"))
    pkt6 = ip6 + struct.pack("!HHHH", 0xC000, ROCE_PORT, ulen, 0xABCD) + ib
    pkt6 += struct.pack("<I", icrc_of(pkt6))
    p = Pkt(0.0, bytes(12) + b"\x86\xdd" + pkt6)
    chk(p.err is None and p.ipver == 6 and p.dscp == 26 and p.ecn == 2 and p.icrc_ok,
        "decoder: IPv6 traffic class and ICRC")
    b = bytearray(pkt6)
    b[1] ^= 0xFF
    b[3] ^= 0x0F
    b[7] = 1
    chk(icrc_of(b[:-4]) == icrc_of(pkt6[:-4]), "ICRC ignores IPv6 traffic class, flow label, hop limit")
    b[0] ^= 0x10
    chk(icrc_of(b[:-4]) != icrc_of(pkt6[:-4]), "ICRC covers the IPv6 version")
    # The pacing model.
    m = Check.model
    chk(m([0, 0.01, 0.02], 0.1) == [0, 0.1], "model: marks inside N answered at its end")
    chk(m([0, 0.2], 0.1) == [0, 0.2], "model: marks N apart each answered at once")
    chk(len(m([i * 0.001 for i in range(1000)], 0.1)) == 11, "model: continuous marks, one per N")
    chk(m([0, 0.05, 0.12], 0.1) == [0, 0.1, 0.2], "model: a mark after a deferred CNP waits again")
    chk(m([0, 0.05], 0) == [0, 0.05], "model: N = 0 answers every mark")
    code, n = bpf_udp4791()
    chk(len(code) == 8 * n and n == 16, "BPF program assembled (%d instructions)" % n)
    return 1 if fails else 0


def write_vec():
    reth = struct.pack("!QII", 0x1000, 0x77, 256)
    bth = struct.pack("!BBHII", 0x0A, 0, 0xFFFF, 0x22, 0x80000000 | 0x123456)
    payload = bytes((7 * i + 3) & 0xFF for i in range(256))
    return ipv4_roce("10.111.0.2", "10.111.0.1", bth + reth + payload)


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmd = argv[1]
    if cmd == "selftest":
        return selftest()
    if cmd == "serve":
        serve(argv[2], sys.stdin)
        return 0
    if cmd == "check":
        return Check(argv[2], argv[3]).run(argv[4:])
    if cmd == "inject" and argv[2:] == ["-"]:
        inject_lines(sys.stdin)
        return 0
    if cmd == "inject":
        inject(*inject_args(argv[2:]))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
