#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_setid.sh - no set-user-ID or set-group-ID file leaves the
# sandbox (doc/launcher.md, "Walls": set-id bits).  A file the child owns
# keeps its mode on the host, where no nosuid mount follows it: a
# root-started child could otherwise leave a set-uid-root program in its
# writable root, or turn the file its output is redirected to into one.
#
# For a plan without supervised rows, one with them (namespace mode) and
# container mode, as root and as uid 65534, the child tries chmod,
# fchmod, fchmodat, fchmodat2, open(O_CREAT), openat2(O_CREAT) and
# mknod with S_ISUID or S_ISGID, on a file in its writable root and on
# its redirected stdout; each is refused, and the host finds no set-id
# bit anywhere after.  The control: chmod 0755 works.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY (the child's calls are made by it)"
[ "$(uname -m)" = x86_64 ] || skip_all "raw system call numbers are x86-64's"
set_users
chmod 755 "$workdir"

cat >"$workdir/setid.py" <<'PYEOF'
import ctypes, errno, os, stat, sys

W = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)

def raw(nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *args)
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r

class OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64),
                ("resolve", ctypes.c_uint64)]

def openat2(path, mode):
    how = OpenHow(os.O_CREAT | os.O_WRONLY, mode, 0)
    return raw(437, ctypes.c_int(-100), ctypes.c_char_p(path.encode()),
               ctypes.byref(how), ctypes.c_size_t(ctypes.sizeof(how)))

def t(label, f):
    try:
        f()
        print(label, "ok")
    except OSError as e:
        print(label, errno.errorcode.get(e.errno, e.errno))

f = W + "/f"
open(f, "w").close()
t("chmod-suid", lambda: os.chmod(f, 0o4755))
t("chmod-sgid", lambda: os.chmod(f, 0o2755))
t("fchmodat", lambda: raw(268, ctypes.c_int(-100), ctypes.c_char_p(f.encode()),
                          ctypes.c_int(0o4755), ctypes.c_int(0)))
t("fchmodat2", lambda: raw(452, ctypes.c_int(-100), ctypes.c_char_p(f.encode()),
                           ctypes.c_int(0o4755), ctypes.c_int(0)))
t("open", lambda: os.close(os.open(W + "/o", os.O_CREAT | os.O_WRONLY, 0o4755)))
t("openat2", lambda: os.close(openat2(W + "/o2", 0o4755)))
t("mknod", lambda: os.mknod(W + "/n", 0o4755 | stat.S_IFREG))
t("fchmod-stdout", lambda: os.fchmod(1, 0o6755))
t("chmod-plain", lambda: os.chmod(f, 0o755))
PYEOF
chmod 644 "$workdir/setid.py"

# The answers: namespace mode without supervised rows has openat2 ENOSYS;
# the supervisor judges it where rows land supervised.
want_plain="chmod-suid EPERM chmod-sgid EPERM fchmodat EPERM fchmodat2 ENOSYS open EPERM openat2 ENOSYS mknod EPERM fchmod-stdout EPERM chmod-plain ok "
want_sup="chmod-suid EPERM chmod-sgid EPERM fchmodat EPERM fchmodat2 ENOSYS open EPERM openat2 EPERM mknod EPERM fchmod-stdout EPERM chmod-plain ok "
# container mode judges a path outside the writable regions first
want_ctr="chmod-suid EPERM chmod-sgid EPERM fchmodat EPERM fchmodat2 ENOSYS open EPERM openat2 ENOSYS mknod EPERM fchmod-stdout EROFS chmod-plain ok "

for who in $users; do
	d=$workdir/$who
	W=$d/w
	mkdir -p "$W"
	printf '@default write deny\n[fs]\nrw: %s/**\n' "$W" >"$d/plain.rules"
	printf '@default write deny\n[fs]\nrw: %s/**\n!deny: **/.env\n' "$W" \
		>"$d/sup.rules"
	for p in plain sup; do
		"$VBOXC" compile --target=linux --emit=plan -o "$d/$p.plan" \
			"$d/$p.rules" 2>/dev/null || not_ok "$who: $p.rules compiles"
	done
	chmod -R a+rX "$d"
	[ "$who" = root ] || chown -R 65534:65534 "$W"
	for mode in plain sup container; do
		plan=$mode
		opt=
		[ "$mode" = container ] && plan=plain opt=--mode=container
		rm -rf "$W"/* "$d/out.$mode"
		: >"$d/out.$mode"
		[ "$who" = root ] || chown 65534:65534 "$d/out.$mode"
		rc=0
		# shellcheck disable=SC2086 # $opt is one word or none
		as_user "$who" timeout -s KILL 60 "$VBOX_EXEC" $opt \
			"$d/$plan.plan" -- "$PY" "$workdir/setid.py" "$W" \
			>"$d/out.$mode" 2>"$d/err.$mode" || rc=$?
		want=$want_plain
		[ "$mode" = sup ] && want=$want_sup
		[ "$mode" = container ] && want=$want_ctr
		is "$rc:$(tr '\n' ' ' <"$d/out.$mode")" "0:$want" \
			"$who, $mode: every set-id mode refused, chmod 0755 works"
		is "$(find "$W" "$d/out.$mode" -perm /6000 2>/dev/null)" "" \
			"$who, $mode: the host finds no set-id file"
	done
done

done_testing
