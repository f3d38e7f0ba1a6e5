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

    pfc_send.py IFNAME serve

reads those commands (without IFNAME, SECONDS required, no STOPFILE) from
stdin, one per line, for a test that sends many: one Python start for all
of them.  A command that repeats a frame (one QUANTA, SECONDS > 0) answers
"started" once the first frame is out and sends until the line "stop" (or
SECONDS), which answers "sent N"; every other command answers "sent N"
when it is done; a command it cannot parse answers "error: WHY".
"""
import os
import select
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


def parse(ifname, args):
    """(frames, interval in s, seconds, repeat) of one command's arguments."""
    kind = args[0]
    if kind == "raw":
        return [frame(ifname, bytes.fromhex(args[1]))], 0.0, 0.0, False
    if kind not in ("pfc", "pause"):
        raise ValueError("unknown kind %r" % kind)
    series = [int(q, 0) for q in args[2].split(",")]
    interval, seconds = float(args[3]) / 1000, float(args[4])
    if kind == "pfc":
        payloads = [struct.pack("!HH8H", 0x0101, int(args[1], 0), *([q] * 8))
                    for q in series]
    else:
        payloads = [struct.pack("!HH", 0x0001, q) for q in series]
    frames = [frame(ifname, p) for p in payloads]
    return frames, interval, seconds, len(frames) == 1 and seconds > 0


def send_series(s, frames, interval):
    for i, f in enumerate(frames):
        if i:
            time.sleep(interval)
        s.send(f)
    return len(frames)


def repeat(s, pkt, interval, seconds, stopped):
    """Send @pkt every @interval until @seconds pass or stopped() says so."""
    sent = 0
    end = time.monotonic() + seconds
    while True:
        s.send(pkt)
        sent += 1
        if time.monotonic() >= end or stopped(interval):
            return sent


def serve(ifname, s):
    def reply(text):
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    pending = b""

    def next_line(wait=None):
        # The next line of stdin ("" at its end), or None if none comes
        # within @wait seconds.  Read from the descriptor itself: a
        # buffered reader could hold a line that select() no longer sees.
        nonlocal pending
        while b"\n" not in pending:
            if wait is not None and not select.select([0], [], [], wait)[0]:
                return None
            chunk = os.read(0, 4096)
            if not chunk:
                line, pending = pending, b""
                return line.decode()
            pending += chunk
        line, _, pending = pending.partition(b"\n")
        return line.decode() + "\n"

    def stop_line(wait):
        # The next line, if one comes within @wait: only "stop" is valid
        # while a frame repeats.
        line = next_line(wait)
        if line is None:
            return False
        if line.strip() != "stop":
            reply("error: %r while frames repeat (only stop)" % line.strip())
        return True

    while True:
        line = next_line()
        if not line:
            break
        args = line.split()
        # "stop" after SECONDS ended the frames: its "sent N" is out.
        if not args or args == ["stop"]:
            continue
        try:
            frames, interval, seconds, rep = parse(ifname, args)
        except (IndexError, ValueError) as e:
            reply("error: %s" % e)
            continue
        if rep:
            reply("started")
            reply("sent %d" % repeat(s, frames[0], interval, seconds, stop_line))
        else:
            reply("sent %d" % send_series(s, frames, interval))
    return 0


def main(argv):
    ifname = argv[1]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    if argv[2] == "serve":
        return serve(ifname, s)
    frames, interval, seconds, rep = parse(ifname, argv[2:7])
    if rep or len(frames) == 1:
        stopfile = argv[7] if len(argv) > 7 else None

        def stopped(wait):
            if stopfile and os.path.exists(stopfile):
                return True
            time.sleep(wait)
            return False
        sent = repeat(s, frames[0], interval, seconds, stopped)
    else:
        sent = send_series(s, frames, interval)
    print("sent %d frames" % sent)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
