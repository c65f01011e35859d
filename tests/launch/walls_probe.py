# SPDX-License-Identifier: MIT
# tests/launch/walls_probe.py - runs inside the sandbox for tests/launch/exec_walls.sh
# and prints one line "NAME RESULT" per attack or control, RESULT being
# "ok" or the errno's name.  Argument: the test's directory T.
import ctypes
import errno
import os
import socket
import sys
import threading

T = sys.argv[1]
tag = sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)


def res(name, fn):
    try:
        fn()
        print(name, "ok")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, str(e.errno)))
    sys.stdout.flush()


def sysc(nr, *args):
    def f():
        a = [ctypes.c_long(x) if isinstance(x, int) else x for x in args]
        r = libc.syscall(ctypes.c_long(nr), *a)
        if r < 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
    return f


def write_back(path):
    def f():
        with open(path) as fh:
            v = fh.read()
        with open(path, "w") as fh:
            fh.write(v)
    return f


# kernel state: write the same value back
res("sysctl-core_pattern", write_back("/proc/sys/kernel/core_pattern"))
res("sysctl-lease_break", write_back("/proc/sys/fs/lease-break-time"))
with open("/proc/self/mountinfo") as fh:
    for line in fh:
        f = line.split()
        mp, opts = f[4], f[5]
        top = mp.split("/")[2] if mp.count("/") >= 2 else ""
        if (mp == "/sys" or mp.startswith("/sys/") or
                (mp.startswith("/proc/") and not top.isdigit())):
            if not opts.startswith("ro"):
                print("kernel-mount-writable", mp)
print("kernel-mounts checked")

# root-only /proc files (host root's view) are hidden
for name in ("kmsg", "kcore", "timer_list", "slabinfo", "vmallocinfo",
             "pagetypeinfo", "kpageflags"):
    p = "/proc/" + name
    if os.path.exists(p):
        try:
            with open(p, "rb") as fh:
                data = fh.read(64)
            print("proc-" + name, "empty" if not data else "READ")
        except OSError as e:
            print("proc-" + name, "empty")

# status
with open("/proc/self/status") as fh:
    for line in fh:
        k = line.split(":")[0]
        if k in ("Seccomp", "NoNewPrivs", "CapEff"):
            print("status-" + k, line.split()[1])

# system calls (x86-64 numbers)
res("io_uring_setup", sysc(425, 1, None))
res("add_key", sysc(248, b"user", b"vbox", b"x", 1, -3))
res("keyctl", sysc(250, 0, -3, 0))
res("request_key", sysc(249, b"user", b"vbox", None, 0))
res("bpf", sysc(321, 0, None, 0))
res("perf_event_open", sysc(298, None, 0, -1, -1, 0))
res("userfaultfd", sysc(323, 0))
res("unshare-user", sysc(272, 0x10000000))
res("mount", sysc(165, b"none", b"/tmp", b"tmpfs", 0, None))
res("setns", sysc(308, 0, 0))
res("clone3", sysc(435, None, 0))
res("open_by_handle_at", sysc(304, -1, None, 0))
res("init_module", sysc(175, None, 0, b""))
res("kexec_load", sysc(246, 0, 0, None, 0))
res("ioctl-TIOCSTI", sysc(16, 0, 0x5412, b"x"))
res("socket-AF_PACKET", lambda: socket.socket(17, socket.SOCK_RAW, 0))


# unix sockets
def conn(path):
    def f():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
        finally:
            s.close()
    return f


def dgram(path, use_sendmsg):
    def f():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            if use_sendmsg:
                s.sendmsg([b"x"], [], 0, path)
            else:
                s.sendto(b"x", path)
        finally:
            s.close()
    return f


ro = T + "/ro/s"
res("unix-direct", conn(ro))
os.symlink(ro, T + "/rw/lnk")
res("unix-symlink", conn(T + "/rw/lnk"))
res("unix-dotdot", conn(T + "/rw/../ro/s"))
res("unix-proc-self-root", conn("/proc/self/root" + ro))
os.chdir(T + "/ro")
res("unix-relative", conn("s"))
os.chdir(T + "/rw")
res("unix-relative-dotdot", conn("../ro/s"))
res("unix-dgram-sendto", dgram(T + "/ro/d", False))
res("unix-dgram-sendmsg", dgram(T + "/ro/d", True))
res("unix-abstract", conn("\0vbox-walls-" + tag))

stop = False


def swapper():
    while not stop:
        for target in (ro, T + "/rw/daemon.sock"):
            try:
                os.symlink(target, T + "/rw/swap.tmp")
                os.rename(T + "/rw/swap.tmp", T + "/rw/swap")
            except OSError:
                pass


th = threading.Thread(target=swapper)
th.start()
bad = 0
for i in range(300):
    try:
        conn(T + "/rw/swap")()
    except OSError as e:
        if e.errno not in (errno.EACCES, errno.ENOENT):
            bad += 1
stop = True
th.join()
print("unix-swap-race-unexpected", bad)

# positive controls
res("unix-daemon-in-rw", conn(T + "/rw/daemon.sock"))
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(T + "/rw/own.sock")
srv.listen(1)
res("unix-own-in-rw", conn(T + "/rw/own.sock"))
srv.close()
res("socketpair", lambda: socket.socketpair())
