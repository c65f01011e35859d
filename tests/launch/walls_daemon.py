# SPDX-License-Identifier: MIT
# tests/launch/walls_daemon.py - a host "daemon" for tests/launch/exec_walls.sh: listens
# on the unix stream sockets and datagram sockets named on the command
# line ("s:PATH", "d:PATH", "a:NAME" abstract) and appends one line per
# connection or datagram to LOG.  Runs until killed.
import os
import select
import socket
import sys

log = sys.argv[1]
socks = {}
for spec in sys.argv[2:]:
    kind, name = spec.split(":", 1)
    if kind == "d":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    else:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if kind == "a":
        s.bind("\0" + name)
    else:
        s.bind(name)
        os.chmod(name, 0o777)
    if kind != "d":
        s.listen(256)
    socks[s.fileno()] = (s, kind, name)
with open(log + ".ready", "w") as f:
    f.write("ready\n")
while True:
    r, _, _ = select.select(list(socks), [], [])
    for fd in r:
        s, kind, name = socks[fd]
        if kind == "d":
            s.recv(65536)
        else:
            c, _ = s.accept()
            c.close()
        with open(log, "a") as f:
            f.write(name + "\n")
