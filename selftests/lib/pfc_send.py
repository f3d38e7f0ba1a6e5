#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send IEEE 802.1Qbb PFC or 802.3x PAUSE frames from a raw socket.

    pfc_send.py IFNAME pfc VECTOR QUANTA INTERVAL_MS SECONDS
    pfc_send.py IFNAME pause - QUANTA INTERVAL_MS SECONDS
    pfc_send.py IFNAME raw HEX - - -      (one frame: the MAC control payload)

VECTOR is the class-enable vector (bit N: priority N, e.g. 0x01), QUANTA the
pause time of every enabled class in units of 512 bit times (0 = XON).
Frames go to the MAC control address 01:80:c2:00:00:01 with EtherType
0x8808, one every INTERVAL_MS for SECONDS; prints how many were sent.
"""
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
        quanta = int(argv[4], 0)
        interval, seconds = float(argv[5]) / 1000, float(argv[6])
        if kind == "pfc":
            payload = struct.pack("!HH8H", 0x0101, int(argv[3], 0), *([quanta] * 8))
        else:
            payload = struct.pack("!HH", 0x0001, quanta)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    pkt = frame(ifname, payload)
    sent = 0
    end = time.monotonic() + seconds
    while True:
        s.send(pkt)
        sent += 1
        if time.monotonic() >= end:
            break
        time.sleep(interval)
    print("sent %d frames" % sent)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
