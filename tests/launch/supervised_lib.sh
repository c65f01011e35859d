# SPDX-License-Identifier: MIT
# tests/launch/supervised_lib.sh - what exec_supervised.sh and
# exec_supervised_work.sh share: the child's calls by number (ops.py),
# the judgements, the workspace and its rules, and a user's plans.
# Sourced after tests/lib/lib.sh; sets PY and I386_CALL.

PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY (the child's system calls are made by it)"
for t in git cc make bash mkfifo; do
	command -v "$t" >/dev/null 2>&1 || skip_all "$t not found"
done
set_users
chmod 755 "$workdir"
I386_CALL=$workdir/i386_call
cp "${top_builddir:-.}/tests/launch/i386_call" "$I386_CALL" 2>/dev/null &&
	chmod 755 "$I386_CALL" || I386_CALL=

# ops.py OPS - one line of OPS a call: "LABEL WANT OP ARG...", printed
# back as "LABEL WANT GOT", GOT "ok" or the errno's name.  What a read
# returns is printed as "data LABEL BYTES" (the host looks for secrets in
# the output).  Raw system calls (open, creat, openat2, renameat2) by
# number on x86-64; elsewhere those lines say "skip".
cat >"$workdir/ops.py" <<'PYEOF'
import ctypes, errno, os, socket, stat, sys, time

libc = ctypes.CDLL(None, use_errno=True)
X86 = os.uname().machine == "x86_64"
NR = {"open": 2, "creat": 85, "openat2": 437, "renameat2": 316}
held = {}

def raw(name, *args):
    if not X86:
        raise LookupError
    r = libc.syscall(ctypes.c_long(NR[name]), *args)
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r

# sys NR ARG...: AT (AT_FDCWD), null, uid, gid, s:STRING, i:NUMBER
def raw_nr(nr, *args):
    if not X86:
        raise LookupError
    r = libc.syscall(ctypes.c_long(nr), *args)
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r

def conv(x):
    if x == "AT":
        return ctypes.c_long(-100)
    if x == "null":
        return ctypes.c_void_p(None)
    if x in ("uid", "gid"):
        return ctypes.c_long(os.getuid() if x == "uid" else os.getgid())
    if x.startswith("s:"):
        return ctypes.c_char_p(x[2:].encode())
    if x.startswith("i:"):
        return ctypes.c_long(int(x[2:], 0))
    raise SystemExit("ops.py: bad argument " + x)

class XattrArgs(ctypes.Structure):
    _fields_ = [("value", ctypes.c_uint64), ("size", ctypes.c_uint32),
                ("flags", ctypes.c_uint32)]

class OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64),
                ("resolve", ctypes.c_uint64)]

def openat2(dirfd, name, flags=os.O_RDONLY, mode=0):
    how = OpenHow(flags, mode, 0)
    return raw("openat2", ctypes.c_int(dirfd), ctypes.c_char_p(name.encode()),
               ctypes.byref(how), ctypes.c_size_t(ctypes.sizeof(how)))

def reads(label, fd):
    data = os.read(fd, 4096)
    os.close(fd)
    print("data %s %r" % (label, data))

LISTING = os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK | os.O_CLOEXEC

def fifo_list(fifo):
    pid = os.fork()
    if pid == 0:
        os.close(os.open(fifo, os.O_WRONLY))
        os._exit(0)
    try:
        # until the writer sleeps (in its open: it does nothing else), at
        # most 10 s; /proc/PID/stat is what the child may read of another
        for _ in range(200):
            with open("/proc/%d/stat" % pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "S":
                    break
            time.sleep(0.05)
        else:
            raise OSError(errno.ETIMEDOUT, "the writer never waited")
        try:
            os.close(os.open(fifo, LISTING))
            err = None
        except OSError as e:
            err = e
        time.sleep(0.2)
        if os.waitpid(pid, os.WNOHANG) != (0, 0):
            pid = 0
            raise OSError(errno.EBADE, "the writer was let through")
    finally:
        if pid:
            r = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            os.waitpid(pid, 0)
            os.close(r)
    if err:
        raise err

def run_exec(p):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            os.execv(p, [p])
        except OSError as e:
            os.write(w, str(e.errno).encode())
        os._exit(127)
    os.close(w)
    err = os.read(r, 64)
    os.close(r)
    _, st = os.waitpid(pid, 0)
    if err:
        raise OSError(int(err), "exec")
    if os.waitstatus_to_exitcode(st) != 0:
        raise OSError(errno.EIO, "exit status")

def do(label, op, a):
    if op == "read":
        reads(label, os.open(a[0], os.O_RDONLY))
    elif op == "rawopen":
        # (a mode of 0: whatever the register held could carry set-id
        # bits, which the filter refuses where it reads the call)
        reads(label, raw("open", ctypes.c_char_p(a[0].encode()),
                         ctypes.c_int(os.O_RDONLY), ctypes.c_int(0)))
    elif op == "write":
        fd = os.open(a[0], os.O_WRONLY | os.O_APPEND)
        os.write(fd, b"child-wrote\n")
        os.close(fd)
    elif op == "rdwr":
        os.close(os.open(a[0], os.O_RDWR))
    elif op == "trunc":
        os.close(os.open(a[0], os.O_WRONLY | os.O_TRUNC))
    elif op == "excl":
        os.close(os.open(a[0], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    elif op == "creat":
        os.close(raw("creat", ctypes.c_char_p(a[0].encode()),
                     ctypes.c_int(0o644)))
    elif op == "openat":
        d = os.open(a[0], os.O_RDONLY | os.O_DIRECTORY)
        try:
            reads(label, os.open(a[1], os.O_RDONLY, dir_fd=d))
        finally:
            os.close(d)
    elif op == "openat2":
        d = os.open(a[0], os.O_RDONLY | os.O_DIRECTORY)
        try:
            reads(label, openat2(d, a[1]))
        finally:
            os.close(d)
    elif op == "openat2w":
        # openat2w DIR NAME FLAGS: the flags in struct open_how, which
        # the filter cannot read
        d = os.open(a[0], os.O_RDONLY | os.O_DIRECTORY)
        try:
            fl = int(a[2], 0)
            os.close(openat2(d, a[1], fl,
                             0o644 if fl & (os.O_CREAT | os.O_TMPFILE) else 0))
        finally:
            os.close(d)
    elif op == "tmpfile":
        os.close(os.open(a[0], os.O_TMPFILE | os.O_WRONLY, 0o600))
    elif op == "listdir":
        # opendir()'s open: the supervisor opens such a directory at once
        # and judges it before the child gets it (pathcall_open.c)
        fd = os.open(a[0], LISTING)
        try:
            print("data %s %r" % (label, sorted(os.listdir(fd))))
        finally:
            os.close(fd)
    elif op == "fifolist":
        # a writer waits in open() on the FIFO a[0]; opening it for a
        # listing fails (ENOTDIR) and must not let the writer through
        fifo_list(a[0])
    elif op == "hold":
        held[a[0]] = os.open(a[1], os.O_RDONLY | os.O_DIRECTORY)
    elif op == "heldat":
        reads(label, os.open(a[1], os.O_RDONLY, dir_fd=held[a[0]]))
    elif op == "heldat2":
        reads(label, openat2(held[a[0]], a[1]))
    elif op == "heldwrite":
        fd = os.open(a[1], os.O_WRONLY | os.O_APPEND, dir_fd=held[a[0]])
        os.write(fd, b"child-wrote\n")
        os.close(fd)
    elif op == "procfd":
        d = os.open(a[0], os.O_RDONLY | os.O_DIRECTORY)
        try:
            reads(label, os.open("/proc/self/fd/%d/%s" % (d, a[1]),
                                 os.O_RDONLY))
        finally:
            os.close(d)
    elif op == "opath":
        p = os.open(a[0], os.O_PATH)
        try:
            reads(label, os.open("/proc/self/fd/%d" % p, os.O_RDONLY))
        finally:
            os.close(p)
    elif op == "cwd":
        old = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
        os.chdir(a[0])
        try:
            reads(label, os.open("/proc/self/cwd/" + a[1], os.O_RDONLY))
        finally:
            os.fchdir(old)
            os.close(old)
    elif op == "relative":
        old = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
        os.chdir(a[0])
        try:
            reads(label, os.open(a[1], os.O_RDONLY))
        finally:
            os.fchdir(old)
            os.close(old)
    elif op == "mkdir":
        os.mkdir(a[0])
    elif op == "mkfifo":
        os.mkfifo(a[0])
    elif op == "mknod":
        os.mknod(a[0], stat.S_IFREG | 0o644)
    elif op == "symlink":
        os.symlink(a[0], a[1])
    elif op == "link":
        os.link(a[0], a[1])
    elif op == "rename":
        os.rename(a[0], a[1])
    elif op == "exchange":
        raw("renameat2", ctypes.c_int(-100), ctypes.c_char_p(a[0].encode()),
            ctypes.c_int(-100), ctypes.c_char_p(a[1].encode()),
            ctypes.c_uint(2))
    elif op == "unlink":
        os.unlink(a[0])
    elif op == "rmdir":
        os.rmdir(a[0])
    elif op == "chmod":
        os.chmod(a[0], stat.S_IMODE(os.lstat(a[0]).st_mode))
    elif op == "chown":
        os.chown(a[0], os.getuid(), os.getgid())
    elif op == "utime":
        os.utime(a[0])
    elif op == "setxattr":
        os.setxattr(a[0], "user.vbox", b"1")
    elif op == "truncate":
        os.truncate(a[0], 0)
    elif op in ("chattr", "setversion"):
        # FS_IOC_GETFLAGS/SETFLAGS, EXT4_IOC_GETVERSION/SETVERSION: set
        # what it has, on a file opened for reading
        import array, fcntl
        get, put = {"chattr": (0x80086601, 0x40086602),
                    "setversion": (0x80086603, 0x40086604)}[op]
        fd = os.open(a[0], os.O_RDONLY)
        try:
            val = array.array("l", [0])
            fcntl.ioctl(fd, get, val, True)
            fcntl.ioctl(fd, put, val, True)
        finally:
            os.close(fd)
    elif op == "exec":
        run_exec(a[0])
    elif op == "bind":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.bind(a[0])
        finally:
            s.close()
    elif op in ("sys", "sysfd"):
        r = raw_nr(int(a[0], 0), *[conv(x) for x in a[1:]])
        if op == "sysfd":
            os.close(r)
    elif op == "sysdir":
        # sysdir DIR NR ARG...: DIRFD is a directory fd of DIR
        d = os.open(a[0], os.O_RDONLY | os.O_DIRECTORY)
        try:
            raw_nr(int(a[1], 0), *[ctypes.c_long(d) if x == "DIRFD"
                                   else conv(x) for x in a[2:]])
        finally:
            os.close(d)
    elif op in ("setxattrat", "removexattrat", "file_setattr"):
        # the calls numbered 451 and up (kernel 6.6 to 6.17)
        path = ctypes.c_char_p(a[0].encode())
        if op == "setxattrat":
            v = ctypes.create_string_buffer(b"1")
            xa = XattrArgs(ctypes.addressof(v), 1, 0)
            raw_nr(463, ctypes.c_long(-100), path, ctypes.c_long(0),
                   ctypes.c_char_p(b"user.vbox"), ctypes.byref(xa),
                   ctypes.c_long(ctypes.sizeof(xa)))
        elif op == "removexattrat":
            raw_nr(466, ctypes.c_long(-100), path, ctypes.c_long(0),
                   ctypes.c_char_p(b"user.vbox"))
        else:
            fa = (ctypes.c_uint8 * 24)()
            raw_nr(469, ctypes.c_long(-100), path, ctypes.byref(fa),
                   ctypes.c_long(24), ctypes.c_long(0))
    elif op == "sysexec":
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            path = a[-1].encode()
            argv = (ctypes.c_char_p * 2)(path, None)
            envp = (ctypes.c_char_p * 1)(None)
            try:
                if a[0] == "execve":
                    raw_nr(59, ctypes.c_char_p(path), argv, envp)
                else:
                    raw_nr(322, ctypes.c_long(-100), ctypes.c_char_p(path),
                           argv, envp, ctypes.c_long(0))
            except OSError as e:
                os.write(w, str(e.errno).encode())
            except LookupError:
                os.write(w, b"skip")
            os._exit(127)
        os.close(w)
        err = os.read(r, 64)
        os.close(r)
        _, st = os.waitpid(pid, 0)
        if err == b"skip":
            raise LookupError
        if err:
            raise OSError(int(err), "exec")
        if os.waitstatus_to_exitcode(st) != 0:
            raise OSError(errno.EIO, "exit status")
    elif op == "mark":
        fd = os.open(a[0], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, b"ready\n")
        os.close(fd)
    elif op == "waitfor":
        for _ in range(1200):
            if os.path.exists(a[0]):
                return
            time.sleep(0.05)
        raise OSError(errno.ETIMEDOUT, "waitfor")
    else:
        raise SystemExit("ops.py: unknown operation " + op)

for line in open(sys.argv[1]):
    w = line.split()
    if not w or w[0].startswith("#"):
        continue
    try:
        do(w[0], w[2], w[3:])
        got = "ok"
    except LookupError:
        got = "skip"
    except OSError as e:
        got = errno.errorcode.get(e.errno, "E%d" % e.errno)
    print(w[0], w[1], got, flush=True)
PYEOF

# judge_ops LBL OUT - one TAP line per "LABEL WANT GOT" line of OUT.
# WANT: "ok", an errno name, names joined by "|", "refused" (anything
# but ok) or "any".
judge_ops() {
	_n=0
	while read -r _label _want _got; do
		case $_label in data) continue ;; esac
		_n=$((_n + 1))
		_pass=no
		case $_got in
		skip)
			ok "$1: $_label # SKIP raw system call numbers are" \
				"known for x86-64 only"
			continue
			;;
		esac
		case $_want in
		any) _pass=yes ;;
		refused) [ "$_got" = ok ] || _pass=yes ;;
		*)
			case "|$_want|" in *"|$_got|"*) _pass=yes ;; esac
			;;
		esac
		if [ "$_pass" = yes ]; then
			ok "$1: $_label: $_got"
		else
			not_ok "$1: $_label: got $_got, want $_want"
		fi
	done <"$2"
	[ "$_n" -gt 0 ] || not_ok "$1: the child's calls ran"
}

# host_has FILE TEXT DESC / host_lacks FILE TEXT DESC
host_has() {
	if grep -qF -- "$2" "$1" 2>/dev/null; then ok "$3"; else
		not_ok "$3"
		sed 's/^/#   /' "$1" 2>/dev/null | head -n 10
	fi
}
host_lacks() {
	if grep -qF -- "$2" "$1" 2>/dev/null; then
		not_ok "$3"
		grep -F -- "$2" "$1" | sed 's/^/#   /' | head -n 10
	else
		ok "$3"
	fi
}

# no_such LBL PATH... - none of the paths exists on the host
no_such() {
	_l=$1
	shift
	_left=
	for _p in "$@"; do
		[ -e "$_p" ] || [ -L "$_p" ] && _left="$_left $_p"
	done
	if [ -z "$_left" ]; then
		ok "$_l"
	else
		not_ok "$_l:$_left"
	fi
}

# until_there FILE PID - wait until FILE exists or PID is gone (60 s at
# most)
until_there() {
	_i=0
	while [ ! -e "$1" ] && [ "$_i" -lt 1200 ] &&
		kill -0 "$2" 2>/dev/null; do
		sleep 0.05
		_i=$((_i + 1))
	done
}

# setup_ws W OWNER - the workspace before a launch
setup_ws() {
	rm -rf "$1"
	mkdir -p "$1/a/b/c" "$1/tools" "$1/sock" "$1/later/d1/d2" \
		"$1/k/keys" "$1/k2/keys" "$1/repo/.git/hooks" "$1/home" \
		"$1/proj" "$1/build" "$1/fifo" "$1/out" "$1/ln" "$1/mv" \
		"$1/ed/.env" "$1/sys"
	echo SECRET-TOP >"$1/.env"
	chmod 644 "$1/.env"
	echo SECRET-DEEP >"$1/a/b/c/.env"
	echo SECRET-MV >"$1/mv/.env"
	echo SECRET-PEM >"$1/k/keys/id.pem"
	echo SECRET-PEM2 >"$1/k2/keys/id.pem"
	echo HOOK-ORIG >"$1/repo/.git/hooks/pre-commit"
	echo CONFIG-ORIG >"$1/config"
	mkdir -p "$1/docs" "$1/private"
	echo DOCS-ORIG >"$1/docs/readme"
	echo SECRET-PRIVATE >"$1/private/key"
	echo SECRET-LIT >"$1/secret.txt"
	chmod 755 "$1/repo/.git/hooks/pre-commit"
	for f in plain plain2 plain3 plain4 plain5; do
		echo "$f" >"$1/$f"
	done
	printf '#!/bin/sh\necho ran >%s/ran-env\n' "$1" >"$1/tools/.env"
	printf '#!/bin/sh\necho ran >%s/ran-ok\n' "$1" >"$1/tools/ok.sh"
	# a denied program run as a script's interpreter (#! line), which
	# the kernel opens without a system call of the child's
	mkdir -p "$1/bin"
	cp /usr/bin/touch "$1/bin/.env"
	printf '#!%s/bin/.env %s/ran-shebang\n' "$1" "$1" >"$1/tools/via.sh"
	chmod 755 "$1/tools/.env" "$1/tools/ok.sh" "$1/bin/.env" \
		"$1/tools/via.sh"
	chown -R "$2" "$1"
}

# rules W DENY - the workspace plan's rules, with or without the
# supervised rows
rules() {
	printf '@default write deny\n@default net deny\n[fs]\nrw: %s/**\n' "$1"
	[ "$2" = yes ] || return 0
	printf '!deny: %s/**/.env\n!deny: **/.env\n' "$1"
	printf '!deny: %s/**/keys/*.pem\n!ro: **/.git/hooks/**\n' "$1"
	# literal rows the launcher mounts, beside the supervised ones
	printf '!ro: %s/config\n!!deny: %s/secret.txt\n' "$1" "$1"
	printf '!ro: %s/docs\n!!deny: %s/private\n!!deny: %s/absent-secret\n' \
		"$1" "$1" "$1"
}

# user_plans LBL - the user's directory d, workspace W, owner, and its
# two plans compiled (with and without the supervised rows); false when
# vboxc refuses one (said)
user_plans() {
	lbl=$1
	who=$(echo "$lbl" | tr ' ' _)
	d=$workdir/$who
	W=$d/w
	owner=0:0
	[ "$lbl" = "uid 0" ] || owner=65534:65534
	mkdir -p "$d"
	rules "$W" yes >"$d/sup.rules"
	rules "$W" no >"$d/plain.rules"
	for p in sup plain; do
		"$VBOXC" compile --target=linux --emit=plan -o "$d/$p.plan" \
			"$d/$p.rules" 2>"$d/compile.err" || {
			not_ok "$lbl: vboxc compiles $p.rules"
			sed 's/^/#   /' "$d/compile.err"
			return 1
		}
		chmod 644 "$d/$p.plan"
	done
}
