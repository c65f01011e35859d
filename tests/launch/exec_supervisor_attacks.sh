#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_supervisor_attacks.sh - the socket supervisor (runtime/walls/
# unixsock.c, sockcall.c) under attack from a sandboxed child
# (tests/launch/sup_attack.c), through the real launcher and bubblewrap, as
# root and as uid 65534, judged from the host side:
#
#   net deny: connect() with AF_UNIX addresses of 110..129 bytes (the
#   review's stack overflow) gets the kernel's EINVAL; a 108-byte
#   sun_path without NUL reaches the host's socket of that name; control
#   data whose cmsg_len runs past msg_controllen, 254 fds, a short
#   cmsg_len: EINVAL; SCM_CREDENTIALS: EOPNOTSUPP; one fd passes;
#   sendmmsg() sends all five messages with each msg_len; a 3 MiB stream
#   send is a short count, a 3 MiB datagram EMSGSIZE; the host's server
#   reads SO_PEERCRED: vbox-exec, the launching uid.  vbox-exec survives
#   and exits with the child's status (7).
#
#   net open: an explicit abstract bind() is refused (EACCES) and the
#   host cannot connect to the name (ECONNREFUSED); autobind works; a
#   pathname bind in the writable directory works, with the child's
#   umask and the launching uid as owner, and the host reaches it.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY (the host's servers need it)"
ATTACK=${top_builddir:-.}/tests/launch/sup_attack
[ -x "$ATTACK" ] || skip_all "no $ATTACK"
set_users

chmod 755 "$workdir"
T=$workdir/t
mkdir -p "$T/rw"
chmod 755 "$T"
chmod 1777 "$T/rw"
cp "$ATTACK" "$T/sup_attack"
chmod 755 "$T/sup_attack"
tag=vbox-squat-$$

compile() { # NAME NET
	printf '@default net %s\n[fs]\nrw: %s\n' "$2" "$T/rw" \
		>"$workdir/$1.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$workdir/$1.plan" \
		"$workdir/$1.rules"
	chmod 644 "$workdir/$1.plan"
}
compile deny deny
compile open open

# A socket whose sun_path is exactly 108 bytes, in the writable directory.
p108=$T/rw/
while [ ${#p108} -lt 108 ]; do p108=${p108}x; done

# The host's servers: SO_PEERCRED of each connection to peer.sock (with
# the peer's command name), and the 108-byte name (counts connections).
cat >"$workdir/servers.py" <<'PYEOF'
import os, socket, struct, sys, threading
log, peer, p108 = sys.argv[1], sys.argv[2], sys.argv[3]
def serve(path, fn):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # by its name in its directory: a 108-byte path is too long here
    os.chdir(os.path.dirname(path))
    s.bind(os.path.basename(path))
    os.chmod(path, 0o777)
    s.listen(16)
    def loop():
        while True:
            c, _ = s.accept()
            fn(c)
            c.close()
    threading.Thread(target=loop, daemon=True).start()
def on_peer(c):
    pid, uid, gid = struct.unpack("3i", c.getsockopt(
        socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    try:
        comm = open("/proc/%d/comm" % pid).read().strip()
    except OSError:
        comm = "?"
    line = "%s %d %d" % (comm, uid, gid)
    with open(log, "a") as fh:
        fh.write("peer " + line + "\n")
    c.sendall((line + "\n").encode())
def on_108(c):
    with open(log, "a") as fh:
        fh.write("p108\n")
serve(peer, on_peer)
serve(p108, on_108)
open(log + ".ready", "w").close()
threading.Event().wait()
PYEOF
"$PY" "$workdir/servers.py" "$workdir/servers.log" "$T/rw/peer.sock" \
	"$p108" &
servers=$!
trap 'kill $servers 2>/dev/null; rm -rf "$workdir"' EXIT
wait_for "$workdir/servers.log.ready" ||
	skip_all "the host's servers did not start"

# expect OUT NAME WANT WHO - the child printed "NAME WANT"
expect() {
	if grep -qx "$2 $3" "$1"; then
		ok "$4: $2 -> $3"
	else
		not_ok "$4: $2 -> $3"
		grep "^$2 " "$1" | sed 's/^/# got: /'
	fi
}

# host_connect ADDR - connect from the host: ok or the errno's name
host_connect() {
	"$PY" -c '
import errno, socket, sys
a = sys.argv[1]
if a.startswith("@"):
    a = "\0" + a[1:]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(10)
try:
    s.connect(a)
    print("ok", s.recv(16).decode().strip())
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
' "$1"
}

for who in $users; do
	uid=0
	[ "$who" = root ] || uid=65534
	[ "$(id -u)" = 0 ] || uid=$(id -u)

	# ---- net deny: the attacks
	out=$workdir/deny.$who
	: >"$workdir/servers.log"
	rc=0
	as_user "$who" timeout 120 "$VBOX_EXEC" "$workdir/deny.plan" -- \
		"$T/sup_attack" deny "$T/rw" "$p108" >"$out" 2>"$out.err" ||
		rc=$?
	is "$rc" 7 "$who: vbox-exec survived and exited with the child's status"
	[ "$rc" -eq 7 ] || sed 's/^/# /' "$out.err"
	expect "$out" longaddr-110 ENOENT "$who"
	len=111
	while [ $len -le 129 ]; do
		expect "$out" "longaddr-$len" EINVAL "$who"
		len=$((len + 1))
	done
	expect "$out" longaddr-0 EINVAL "$who"
	expect "$out" path108 ok "$who"
	check "$who: host side: the 108-byte name was reached" \
		grep -qx p108 "$workdir/servers.log"
	expect "$out" cmsg-len-past-control EINVAL "$who"
	expect "$out" cmsg-254-fds EINVAL "$who"
	expect "$out" cmsg-len-short EINVAL "$who"
	expect "$out" cmsg-credentials EOPNOTSUPP "$who"
	expect "$out" cmsg-one-fd ok "$who"
	expect "$out" cmsg-one-fd-received ok "$who"
	expect "$out" sendmmsg-count 5 "$who"
	expect "$out" sendmmsg-lens ok "$who"
	expect "$out" sendmmsg-received ok "$who"
	expect "$out" stream-3MiB short "$who"
	expect "$out" dgram-3MiB EMSGSIZE "$who"
	# SO_PEERCRED: the launcher connected, with the launching uid
	expect "$out" peer-seen "vbox-exec $uid $uid" "$who"
	check "$who: host side: the server saw vbox-exec as the peer" \
		grep -qx "peer vbox-exec $uid $uid" "$workdir/servers.log"

	# ---- net open: binds
	out=$workdir/open.$who
	rm -f "$T/rw/ready" "$T/rw/done" "$T/rw/bound.sock"
	rc=0
	as_user "$who" timeout 120 "$VBOX_EXEC" "$workdir/open.plan" -- \
		"$T/sup_attack" open "$T/rw" "$tag" >"$out" 2>"$out.err" &
	launch=$!
	wait_for "$T/rw/ready" 400 || :
	is "$(host_connect "@/tmp/.X11-unix/X0-$tag")" ECONNREFUSED \
		"$who: host side: the abstract name the child tried to bind is not there"
	is "$(host_connect "$T/rw/bound.sock")" "ok hello" \
		"$who: host side: the child's pathname socket is reached"
	is "$(stat -c '%A %u' "$T/rw/bound.sock" 2>&1)" "srwx------ $uid" \
		"$who: host side: the bound file has the child's umask and uid"
	touch "$T/rw/done"
	wait $launch || rc=$?
	is "$rc" 7 "$who: net open: the child's status"
	[ "$rc" -eq 7 ] || sed 's/^/# /' "$out.err"
	expect "$out" bind-abstract EACCES "$who"
	expect "$out" bind-autobind ok "$who"
	expect "$out" autobind-abstract ok "$who"
	expect "$out" bind-path ok "$who"
	expect "$out" bind-path-again EADDRINUSE "$who"
	expect "$out" listen-path ok "$who"
done
done_testing
