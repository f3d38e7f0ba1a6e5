#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The far host of selftests/bench_hosts.sh: runs what the near host asks.

    bench_peer.py ADDR PORT

Two guests joined by one link (selftests/vm/pair.sh) need one of them to
start perftest servers, NVMe targets and devices when the other says so.
This process listens on ADDR:PORT, an address of that private link only,
and serves one request per TCP connection, a line the near host writes
with bash's /dev/tcp (no Python start on its side: a TCG guest takes
seconds for one):

  run TIMEOUT CMDLINE        run "bash -c CMDLINE", at most TIMEOUT s
  start NAME PORT CMDLINE    start it in the background, output kept as
                             NAME; PORT > 0: answer once a socket listens
                             on TCP port PORT (at most 60 s)
  wait NAME TIMEOUT          wait for NAME (killed after TIMEOUT s)
  quit                       answer, then exit

CMDLINE is base64-encoded (it may span lines; a request is one).

The answer is the command's output, then a line "@rc N" (N: its exit
status; 124 on a timeout, 127 on a malformed request).  Test traffic
only: it runs whatever the other guest sends, so it must never listen
anywhere but on a link between two throw-away guests.
"""
import base64
import binascii
import os
import socket
import subprocess
import sys
import tempfile
import time

JOBS = {}
TMP = tempfile.mkdtemp(prefix="bench_peer.")


def listening(port):
    """A TCP socket in LISTEN (state 0A) on PORT, IPv4 or IPv6."""
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                next(f)
                for line in f:
                    w = line.split()
                    if w[3] == "0A" and int(w[1].rsplit(":", 1)[1], 16) == port:
                        return True
        except OSError:
            pass
    return False


def run(timeout, cmdline):
    try:
        p = subprocess.run(["bash", "-c", cmdline], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or b"").decode(errors="replace")


def start(name, port, cmdline):
    out = open(os.path.join(TMP, name), "w+")
    JOBS[name] = (subprocess.Popen(["bash", "-c", cmdline], stdout=out,
                                   stderr=subprocess.STDOUT), out)
    if port <= 0:
        return 0, ""
    for _ in range(600):
        if listening(port):
            return 0, ""
        if JOBS[name][0].poll() is not None:
            break
        time.sleep(0.1)
    out.seek(0)
    return 1, "not listening on %d: %s" % (port, out.read())


def wait(name, timeout):
    if name not in JOBS:
        return 127, "no job %s\n" % name
    proc, out = JOBS.pop(name)
    try:
        rc = proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = 124
        proc.wait()
    out.seek(0)
    text = out.read()
    out.close()
    return rc, text


def decode(field):
    return base64.b64decode(field, validate=True).decode()


def serve(addr, port):
    srv = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, port))
    srv.listen(4)
    while True:
        conn, _ = srv.accept()
        with conn, conn.makefile("rw") as f:
            w = f.readline().rstrip("\n").split(" ", 3)
            rc, text, done = 127, "bad request %r\n" % w, False
            try:
                if w[0] == "run" and len(w) == 3:
                    rc, text = run(float(w[1]), decode(w[2]))
                elif w[0] == "start" and len(w) == 4:
                    rc, text = start(w[1], int(w[2]), decode(w[3]))
                elif w[0] == "wait" and len(w) == 3:
                    rc, text = wait(w[1], float(w[2]))
                elif w[0] == "quit":
                    rc, text, done = 0, "", True
            except (ValueError, OSError, binascii.Error) as e:
                text = "%s: %s\n" % (type(e).__name__, e)
            if text and not text.endswith("\n"):
                text += "\n"
            f.write("%s@rc %d\n" % (text, rc))
        if done:
            return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(serve(sys.argv[1], int(sys.argv[2])))
