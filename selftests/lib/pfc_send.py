#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send IEEE 802.1Qbb PFC or 802.3x PAUSE frames from a raw socket.

    pfc_send.py IFNAME pfc VECTOR QUANTA INTERVAL_MS SECONDS [STOPFILE]
    pfc_send.py IFNAME pause - QUANTA INTERVAL_MS SECONDS [STOPFILE]
    pfc_send.py IFNAME raw HEX - - -      (one frame: the MAC control payload)

VECTOR is the class-enable vector (bit N: priority N, e.g. 0x01), QUANTA the
pause time of every enabled class in units of 512 bit times (0 = XON).
Frames go to the MAC control address 01:80:c2:00:00:01 with EtherType
0x8808, one every INTERVAL_MS for SECONDS; prints how many were sent.
With STOPFILE, frames go on until that file exists (SECONDS is then only
an upper bound): a test can measure while they arrive, however long that
takes in a loaded guest, and end them when it is done.
QUANTA may be a comma-separated list: then one frame per value, in order,
INTERVAL_MS apart, and SECONDS is ignored (one process for a series: a
TCG guest takes seconds to start Python).
"""
import os
import socket
import struct
import sys
import time

ETH_P_PAUSE = 0x8808
DST = bytes.fromhex("0180c2000001")


def frame(ifname, payload):
    with open("/sys/class/net/%s/address" % ifname) as f:
        src = bytes.fromhex(f.read().strip().replace(":", ""))
    body = payload + bytes(max(0, 46 - len(payload)))  # minimum frame
    return DST + src + struct.pack("!H", ETH_P_PAUSE) + body


def main(argv):
    ifname, kind = argv[1], argv[2]
    if kind == "raw":
        payload = bytes.fromhex(argv[3])
        interval, seconds = 0, 0
    else:
        series = [int(q, 0) for q in argv[4].split(",")]
        interval, seconds = float(argv[5]) / 1000, float(argv[6])
        if kind == "pfc":
            payloads = [struct.pack("!HH8H", 0x0101, int(argv[3], 0), *([q] * 8))
                        for q in series]
        else:
            payloads = [struct.pack("!HH", 0x0001, q) for q in series]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    if kind == "raw" or len(payloads) == 1:
        pkt = frame(ifname, payload if kind == "raw" else payloads[0])
        stopfile = argv[7] if len(argv) > 7 else None
        sent = 0
        end = time.monotonic() + seconds
        while True:
            s.send(pkt)
            sent += 1
            if time.monotonic() >= end:
                break
            if stopfile and os.path.exists(stopfile):
                break
            time.sleep(interval)
    else:
        for i, p in enumerate(payloads):
            if i:
                time.sleep(interval)
            s.send(frame(ifname, p))
        sent = len(payloads)
    print("sent %d frames" % sent)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
