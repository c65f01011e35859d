# SPDX-License-Identifier: MIT
# tests/launch/ctr_net.py - the network ends of tests/launch/exec_container.sh.
#
# Host side (outside any sandbox), a listener that logs what reaches it:
#   ctr_net.py listen tcp|udp READY LOG     on 127.0.0.1, an unused port
#                                           written to READY
#   ctr_net.py listen abstract NAME READY LOG   the abstract unix name NAME
# Each connection's or datagram's first bytes are appended to LOG, one
# line each; the listener ends after 300 s or when READY is removed.
#
# Sandbox side, one attempt, one line "KIND ok" or "KIND ERRNO":
#   ctr_net.py send tcp|udp PORT DATA       to 127.0.0.1:PORT
#   ctr_net.py send dns PORT NAME           a DNS query for NAME (A) to
#                                           127.0.0.1:PORT over UDP
#   ctr_net.py send abstract NAME DATA      to the abstract unix name NAME
#   ctr_net.py open PATH                    open PATH for reading (e.g.
#                                           /proc/PID/mem), nothing read
# Exit status 0 when the attempt worked, 1 when it was refused.
import errno
import os
import select
import socket
import struct
import sys
import time


def listen(kind, a, b, c=None):
    if kind == "abstract":
        name, ready, log = a, b, c
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind("\0" + name)
        s.listen(16)
        open(ready, "w").write(name + "\n")
    else:
        ready, log = a, b
        typ = socket.SOCK_STREAM if kind == "tcp" else socket.SOCK_DGRAM
        s = socket.socket(socket.AF_INET, typ)
        s.bind(("127.0.0.1", 0))
        if kind == "tcp":
            s.listen(16)
        open(ready + ".tmp", "w").write("%d\n" % s.getsockname()[1])
        os.rename(ready + ".tmp", ready)
    end = time.time() + 300
    while time.time() < end and os.path.exists(ready):
        r, _, _ = select.select([s], [], [], 0.2)
        if not r:
            continue
        if kind == "udp":
            data = s.recv(2048)
        else:
            c, _ = s.accept()
            c.settimeout(2)
            try:
                data = c.recv(2048)
            except OSError:
                data = b""
            c.close()
            data = data or b"(connected)"
        with open(log, "a") as f:
            f.write(data.decode("latin-1").replace("\n", " ") + "\n")


def dns_query(name):
    q = struct.pack(">HHHHHH", 0x5642, 0x0100, 1, 0, 0, 0)
    for label in name.split("."):
        q += bytes([len(label)]) + label.encode()
    return q + b"\0" + struct.pack(">HH", 1, 1)


def send(kind, a, b):
    try:
        if kind == "abstract":
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect("\0" + a)
            s.sendall(b.encode())
        elif kind == "tcp":
            s = socket.create_connection(("127.0.0.1", int(a)), timeout=5)
            s.sendall(b.encode())
        else:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            data = dns_query(b) if kind == "dns" else b.encode()
            s.sendto(data, ("127.0.0.1", int(a)))
        s.close()
    except OSError as e:
        print("%s %s" % (kind, errno.errorcode.get(e.errno, str(e))))
        return 1
    print("%s ok" % kind)
    return 0


def main(argv):
    if len(argv) >= 4 and argv[1] == "listen":
        listen(*argv[2:])
        return 0
    if len(argv) == 5 and argv[1] == "send":
        return send(argv[2], argv[3], argv[4])
    if len(argv) == 3 and argv[1] == "open":
        try:
            os.close(os.open(argv[2], os.O_RDONLY))
        except OSError as e:
            print("open %s" % errno.errorcode.get(e.errno, str(e)))
            return 1
        print("open ok")
        return 0
    sys.stderr.write("usage: see tests/launch/ctr_net.py\n")
    return 2


sys.exit(main(sys.argv))
