#!/bin/sh
# tests/launch/exec_container_meta.sh - container mode's walls where Landlock has
# no right and namespace mode relied on its read-only mounts or its PID
# namespace (doc/launcher.md, "Container mode"): chmod, chown, utimes,
# xattrs and truncate of a file outside the writable root; the calls
# numbered 451 and up (fchmodat2); chattr; limits, niceness and affinity
# of a host process of the same uid.  Each attack is first made outside
# any sandbox as the same user (it must succeed there, or the check could
# not fail), then in the sandbox, and judged from the host side; the same
# calls on the sandbox's own files and itself still work.  As root and as
# uid 65534.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY"
"$VBOX_EXEC" --help | grep -q -- --mode= ||
	skip_all "this vbox-exec has no --mode=container"
bound_script
set_users
chmod 755 "$workdir"
cd "$workdir"

mkdir -p w files
cat >rules <<EOF2
@default write deny
@default net deny
[fs]
rw: $workdir/w/**
EOF2
"$VBOXC" compile --target=linux --emit=plan -o plan rules ||
	bail_out "cannot compile the plan"
cmode=--mode=container
run timeout -s KILL 60 "$VBOX_EXEC" $cmode plan -- true
if [ "$rc" = 125 ] && grep -q "cannot scope signals" err; then
	cmode="$cmode --accept-unscoped-signals"
fi
[ "$rc" = 125 ] && ! grep -q "cannot scope signals" err &&
	skip_all "container mode cannot run here: $(head -n 1 err)"

# The attacks: one line each, "NAME ok" or "NAME ERRNO".
cat >attack.py <<'EOF2'
import ctypes, fcntl, os, resource, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
f, pid = sys.argv[1], int(sys.argv[2])
def t(name, fn):
    try:
        fn()
        print(name, "ok")
    except OSError as e:
        print(name, e.errno)
def raw(nr, *args):
    if libc.syscall(nr, *args) < 0:
        raise OSError(ctypes.get_errno(), "")
t("chmod", lambda: os.chmod(f, 0o4777))
fd = os.open(f, os.O_RDONLY)
t("fchmod", lambda: os.fchmod(fd, 0o4777))
t("utime", lambda: os.utime(f, (1, 1)))
t("setxattr", lambda: os.setxattr(f, "user.vbox", b"1"))
t("truncate", lambda: os.truncate(f, 0))
t("fchmodat2", lambda: raw(452, -100, f.encode(), 0o4777, 0))
t("chattr", lambda: fcntl.ioctl(fd, 0x40086602, struct.pack("l", 0x4000)))
# A niceness the owner may set outside a sandbox: above the one the
# process has (tests run under "nice" too; lowering it needs a privilege)
nice = min(19, max(7, os.getpriority(os.PRIO_PROCESS, pid) + 1))
t("renice", lambda: os.setpriority(os.PRIO_PROCESS, pid, nice))
# Outside a sandbox this would renice every process of the user: only
# in the sandbox (the host process's niceness is judged after).
if len(sys.argv) > 3:
    t("renice-uid", lambda: os.setpriority(os.PRIO_USER, 0, nice))
t("prlimit", lambda: resource.prlimit(pid, resource.RLIMIT_NOFILE, (5, 5)))
t("affinity", lambda: os.sched_setaffinity(pid, {0}))
EOF2
cat >own.py <<'EOF2'
import os, resource, sys
g = sys.argv[1] + "/own.txt"
open(g, "w").write("abc")
os.chmod(g, 0o600)
os.setxattr(g, "user.vbox", b"1")
os.truncate(g, 1)
os.utime(g, (5, 5))
os.setpriority(os.PRIO_PROCESS, 0, os.getpriority(os.PRIO_PROCESS, 0) + 1)
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
st = os.stat(g)
print(oct(st.st_mode & 0o7777), int(st.st_mtime), st.st_size,
      os.getxattr(g, "user.vbox"))
EOF2

# state FILE PID - what the host sees of the file and the process
state() {
	printf '%s %s %s %s %s %s\n' "$(stat -c '%a %Y %s' "$1")" \
		"$("$PY" -c 'import os, sys
try: print(os.getxattr(sys.argv[1], "user.vbox"))
except OSError: print("-")' "$1")" \
		"$(ps -o ni= -p "$2" | tr -d ' ')" \
		"$(sed -n 's/^Max open files *\([0-9a-z]*\).*/\1/p' /proc/"$2"/limits)" \
		"$(taskset -p "$2" 2>/dev/null | sed 's/.*: //')" \
		"$(cat "$1")"
}

# One run of the own-listener case for user $1: the sandbox listens on
# a loopback port, reaches itself, lets the port go and writes it to
# w/port; the host then listens there (host.out: what it accepted,
# "nothing", or "busy" when another process holds the port) and the
# sandbox tries again (w/res).
own_listener_case() {
	rm -f w/port w/hostready w/res host.out
	run as_user "$1" timeout -s KILL 60 "$VBOX_EXEC" $cmode \
		-C "$workdir/w" plan -- "$PY" -c '
import os, socket, time
s = socket.socket()
# (inherited by the accepted socket: their closing states then never
# keep the host from binding the port with SO_REUSEADDR)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen()
port = s.getsockname()[1]
c = socket.create_connection(("127.0.0.1", port), timeout=5)
a, _ = s.accept()
own = "own-ok"
c.close(); a.close(); s.close()
open("port.tmp", "w").write(str(port))
os.rename("port.tmp", "port")	# whole when the host sees it
for i in range(600):
    if os.path.exists("hostready"):
        break
    time.sleep(0.05)
try:
    socket.create_connection(("127.0.0.1", port), timeout=5).send(b"leak")
    res = "host-reached"
except OSError as e:
    res = "refused-%d" % e.errno
open("res", "w").write(own + " " + res)
' &
	box=$!
	wait_for w/port 600 || :
	"$PY" -c '
import os, socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
import time
for i in range(60):	# a closing socket of the sandbox may linger a while
    try:
        s.bind(("127.0.0.1", int(open(sys.argv[1]).read())))
        break
    except OSError:
        time.sleep(0.05)
else:
    print("busy")
    open(sys.argv[2], "w").close()
    sys.exit(0)
s.listen()
open(sys.argv[2], "w").close()
s.settimeout(0.2)
for i in range(150):	# until the sandbox has tried (w/res), at most 30 s
    try:
        a, _ = s.accept()
        a.settimeout(5)
        print("accepted", a.recv(10))
        sys.exit(0)
    except socket.timeout:
        if os.path.exists(sys.argv[3]):
            break
print("nothing")
' w/port w/hostready w/res >host.out 2>&1 || :
	wait "$box" || :
}

for who in $users; do
	owner=0:0
	[ "$who" = nobody ] && owner=65534:65534
	for n in files/ctl files/box; do
		echo "content" >"$n.f"
		chown "$owner" "$n.f"
		chmod 644 "$n.f"
	done
	chown -R "$owner" w
	as_user "$who" sleep 300 &
	host=$!
	sleep 0.2
	hpid=$(pgrep -n -P "$host" sleep || echo "$host")
	before=$(state files/box.f "$hpid")

	# outside any sandbox the same user can do all of it
	as_user "$who" "$PY" attack.py files/ctl.f "$hpid" >ctl.out 2>&1
	miss=$(grep -v ' ok$' ctl.out | tr '\n' ' ')
	# (an unprivileged user may not raise its own limit back, nor
	# chattr: what fails outside is left out of the comparison)
	check "$who: outside a sandbox the attacks work (except: ${miss:-none})" \
		sh -c "grep -q '^chmod ok' ctl.out && grep -q '^truncate ok' ctl.out &&
		       grep -q '^renice ok' ctl.out"
	kill "$hpid" "$host" 2>/dev/null
	wait "$host" 2>/dev/null || :
	as_user "$who" sleep 300 &
	host=$!
	sleep 0.2
	hpid=$(pgrep -n -P "$host" sleep || echo "$host")
	before=$(state files/box.f "$hpid")

	run as_user "$who" timeout -s KILL 60 "$VBOX_EXEC" $cmode \
		-C "$workdir/w" plan -- "$PY" "$workdir/attack.py" \
		"$workdir/files/box.f" "$hpid" in-sandbox
	is "$rc" 0 "$who: the attacks ran in container mode"
	for a in chmod fchmod utime setxattr truncate; do
		check "$who: $a of a file outside the writable root: EROFS" \
			grep -qx "$a 30" out
	done
	check "$who: fchmodat2 (a call libseccomp cannot name): ENOSYS" \
		grep -qx "fchmodat2 38" out
	check "$who: chattr: EPERM" grep -qx "chattr 1" out
	for a in renice renice-uid prlimit affinity; do
		check "$who: $a of a host process: EPERM" grep -qx "$a 1" out
	done
	is "$(state files/box.f "$hpid")" "$before" \
		"$who: the file and the host process are as they were (host side)"
	kill "$hpid" "$host" 2>/dev/null
	wait "$host" 2>/dev/null || :

	run as_user "$who" timeout -s KILL 60 "$VBOX_EXEC" $cmode \
		-C "$workdir/w" plan -- "$PY" "$workdir/own.py" "$workdir/w"
	is "$(cat out)" "0o600 5 1 b'1'" \
		"$who: the same calls on its own file and itself work"
	[ "$rc" = 0 ] || sed 's/^/#   /' err | tail -n 5
	rm -f w/own.txt

	# Its own loopback listener it may reach; the same port once a host
	# service holds it, not (the table allows no loopback port).  The
	# host takes the port after the sandbox let it go; another process
	# of this busy machine may take it first (bind fails: "busy"), and
	# then the case is run again on a new port.
	for attempt in 1 2 3; do
		own_listener_case "$who"
		grep -qx busy host.out || break
		echo "# attempt $attempt: the port was taken by another process; again"
	done
	is "$(cat w/res 2>/dev/null)" "own-ok refused-13" \
		"$who: its own loopback listener is reached; a host service that took the port after is not"
	is "$(cat host.out)" "nothing" "... nothing reached the host service (host side)"
done

done_testing
