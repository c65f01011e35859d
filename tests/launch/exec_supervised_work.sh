#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_supervised_work.sh - the plan exec_supervised.sh
# attacks (its header draws it), under the real launcher and bubblewrap,
# as root and as uid 65534: what must keep working beside the refusals,
# and the ways around the supervisor that are not a path call.
#
# - a real git workflow, a make -j2 build, python3 files, a FIFO and
#   bash process substitution work in the same workspace; listing
#   /proc/1/task is a TODO (refused today);
# - SIGKILL of vbox-exec while the child keeps opening a .env: the
#   child never gets the content (the same run without the deny rows
#   does: the check can fail);
# - the i386 entry (int $0x80) of truncate64, which libseccomp's
#   "truncate" does not name, empties no .env, key or hook (ENOSYS);
# - a hook opened for reading, then moved (by the host; the child's
#   rename is refused) below a path longer than the kernel prints
#   (PATH_MAX): reopening its fd for writing, fchmod and fsetxattr on it
#   are refused (such a file was taken for a pipe);
# - a core dump, which the kernel writes without a call the filter
#   sees, lands in no supervised read-only or denied directory (with a
#   core_pattern that writes into the working directory);
# - --mode=container holds the plan too (the path supervisor: the .env
#   refused and named); the same plan without the deny rows lets the
#   child read .env.  (exec_supervised_ctr.sh runs exec_supervised.sh's
#   refused calls in container mode.)

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/launch/supervised_lib.sh"

one_user() {
	user_plans "$1" || return 0
	shift

	# ---- everything else works -----------------------------------------
	setup_ws "$W" "$owner"
	cat >"$W/build/main.c" <<'EOF'
#include <stdio.h>
int add(int a, int b);
int main(void)
{
	printf("sum %d\n", add(40, 2));
	return 0;
}
EOF
	printf 'int add(int a, int b)\n{\n\treturn a + b;\n}\n' >"$W/build/add.c"
	printf 'prog: main.o add.o\n\t$(CC) -o $@ main.o add.o\n' \
		>"$W/build/Makefile"
	chown -R "$owner" "$W"
	run "$@" timeout -s KILL 300 "$VBOX_EXEC" -e HOME="$W/home" \
		-e GIT_CONFIG_NOSYSTEM=1 -C "$W" "$d/sup.plan" -- sh -c '
		cd proj &&
		git init -q --template= . &&
		echo hello >a.txt &&
		git add a.txt &&
		git -c user.name=t -c user.email=t@example.invalid \
			commit -q -m first &&
		git status --porcelain >../out/status &&
		git checkout -q -b topic &&
		echo more >>a.txt &&
		git -c user.name=t -c user.email=t@example.invalid \
			commit -q -am second &&
		git log --oneline >../out/log &&
		cd ../build && make -s -j2 >../out/make 2>&1 &&
		cd .. &&
		"$0" -c "open(\"out/py\", \"w\").write(\"py-data\\n\")
print(open(\"out/py\").read(), end=\"\")" >out/py-read &&
		cd fifo && mkfifo p && { cat p >../out/fifo & } &&
		echo hi >p && wait && cd .. &&
		bash -c "cat <(echo x)" >out/procsub' "$PY"
	is "$rc" 0 "$lbl: git, make, python3, a FIFO and <(...) ran"
	[ "$rc" -eq 0 ] || sed 's/^/#   err: /' "$workdir/err" | head -n 20
	is "$(git -c safe.directory='*' -C "$W/proj" log --format=%s topic \
		2>/dev/null | tr '\n' ' ')" "second first " \
		"$lbl: git: two commits on branch topic, seen by the host"
	is "$(git -c safe.directory='*' -C "$W/proj" branch --list master main \
		2>/dev/null | wc -l | tr -d ' ')" 1 "$lbl: git: ... and the first branch"
	check "$lbl: git status was clean" test -f "$W/out/status" -a \
		! -s "$W/out/status"
	is "$(wc -l <"$W/out/log" 2>/dev/null | tr -d ' ')" 2 \
		"$lbl: git log in the sandbox saw both commits"
	is "$("$W/build/prog" 2>/dev/null)" "sum 42" \
		"$lbl: make -j2 built the two-file program (run by the host)"
	is "$(cat "$W/out/py" 2>/dev/null)" py-data "$lbl: python3 wrote a file"
	is "$(cat "$W/out/py-read" 2>/dev/null)" py-data "$lbl: ... and read it"
	is "$(cat "$W/out/fifo" 2>/dev/null)" hi "$lbl: a shell FIFO works"

	# A program reached through a link with "..", as /usr/bin/npm ->
	# ../share/nodejs/..., while the host renames files as fast as it
	# can: the supervisor resolves it with RESOLVE_IN_ROOT, which gives
	# up (EAGAIN) at a ".." step whenever a rename or mount happens on
	# the host meanwhile.  That was an exec refused (EACCES) now and
	# then; it must be retried, never refused.
	mkdir -p "$W/tools/lib" "$W/tools/bin"
	printf '#!/bin/sh\necho tool-ran\n' >"$W/tools/lib/tool.sh"
	chmod 755 "$W/tools/lib/tool.sh"
	ln -sf ../lib/tool.sh "$W/tools/bin/tool"
	chown -R "$owner" "$W/tools"
	touch "$workdir/storm-a" "$workdir/storm-on"
	"$PY" -c 'import os, sys
a, b = sys.argv[1], sys.argv[1] + ".b"
while os.path.exists(sys.argv[2]):
    try:
        os.rename(a, b); os.rename(b, a)
    except OSError:
        pass' "$workdir/storm-a" "$workdir/storm-on" &
	storm=$!
	bad=0
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		run "$@" timeout -s KILL 60 "$VBOX_EXEC" -C "$W" "$d/sup.plan" \
			-- "$W/tools/bin/tool"
		[ "$rc" -eq 0 ] && grep -q tool-ran "$workdir/out" ||
			bad=$((bad + 1))
	done
	rm -f "$workdir/storm-on"
	wait "$storm" 2>/dev/null || :
	rm -f "$workdir/storm-a" "$workdir/storm-a.b"
	is "$bad" 0 "$lbl: a program behind a link with '..' runs every time while the host renames files"
	[ "$bad" -eq 0 ] || sed 's/^/#   err: /' "$workdir/err" | head -n 5
	is "$(cat "$W/out/procsub" 2>/dev/null)" x \
		"$lbl: bash process substitution works"

	# ps -L, top -H and LeakSanitizer list another process's threads
	# (doc/launcher.md, "/proc": its directories can be read)
	run "$@" timeout -s KILL 60 "$VBOX_EXEC" "$d/sup.plan" -- sh -c \
		'ls /proc/1/task >/dev/null'
	if [ "$rc" -eq 0 ]; then
		ok "$lbl: /proc/1/task can be listed"
	else
		not_ok "$lbl: /proc/1/task can be listed # TODO EACCES under" \
			"a supervised plan: reported to the launcher"
	fi

	# ---- SIGKILL of vbox-exec while the child opens a .env -------------
	for p in plain sup; do
		setup_ws "$W" "$owner"
		rm -f "$d/pid"
		chmod 777 "$d"
		rc=0
		# (in a subshell: timeout dies of its child's SIGKILL, and
		# the shell would say so on stderr)
		("$@" timeout -s KILL 60 sh -c 'echo $$ >"$0"; exec "$@"' \
			"$d/pid" "$VBOX_EXEC" "$d/$p.plan" -- "$PY" -c '
import os, sys, time
leak = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
st = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(st, b"started\n")
n = 0
t0 = time.monotonic()
while time.monotonic() - t0 < 20:
    try:
        fd = os.open(sys.argv[3], os.O_RDONLY)
    except OSError:
        n += 1
        continue
    os.write(leak, os.read(fd, 4096))
    break
os.write(st, b"end %d\n" % n)
' "$W/out/leak" "$W/out/status" "$W/a/b/c/.env" >/dev/null \
			2>"$d/kill.err" || exit "$?") &
		bg=$!
		until_there "$W/out/status" "$bg"
		# let a few refused opens pass first (no time is asserted)
		i=0
		while [ "$p" = sup ] && [ "$i" -lt 20 ] &&
			! grep -q 'vbox:' "$d/kill.err"; do
			sleep 0.05
			i=$((i + 1))
		done
		[ -s "$d/pid" ] && kill -KILL "$(cat "$d/pid")" 2>/dev/null || :
		wait "$bg" || rc=$?
		# wait until no process holds the status file any more
		i=0
		while [ "$i" -lt 600 ] && find /proc/[0-9]*/fd -lname \
			"$W/out/status" 2>/dev/null | grep -q .; do
			sleep 0.05
			i=$((i + 1))
		done
		if [ "$p" = plain ]; then
			host_has "$W/out/leak" SECRET-DEEP \
				"$lbl: without the deny rows the killed run's child copies .env (the check can fail)"
		else
			host_lacks "$W/out/leak" SECRET "$lbl: vbox-exec killed" \
				"while the child opens .env: it never reads it"
			echo "# $lbl: the child's status: $(tr '\n' ' ' \
				<"$W/out/status" 2>/dev/null)"
		fi
	done
	chmod 755 "$d"

	# ---- i386 truncate64 (int $0x80): refused like truncate ----------
	if [ -z "$I386_CALL" ]; then
		ok "# SKIP $lbl: no tests/launch/i386_call (build it: make check)"
	elif ! "$I386_CALL" probe; then
		ok "# SKIP $lbl: this kernel has no i386 entry (IA32_EMULATION)"
	else
		setup_ws "$W" "$owner"
		run "$@" timeout -s KILL 60 "$VBOX_EXEC" "$d/sup.plan" -- sh -c \
			"for f in $W/.env $W/k/keys/id.pem $W/repo/.git/hooks/pre-commit; do $I386_CALL 193 \$f 0; done"
		is "$(tr '\n' ' ' <"$workdir/out")" "ENOSYS ENOSYS ENOSYS " \
			"$lbl: i386 truncate64 of a .env, a key and a hook: ENOSYS"
		is "$(cat "$W/.env" "$W/k/keys/id.pem" \
			"$W/repo/.git/hooks/pre-commit" | tr '\n' ' ')" \
			"SECRET-TOP SECRET-PEM HOOK-ORIG " \
			"$lbl: ... the host's files are whole"
		run "$@" timeout -s KILL 60 "$VBOX_EXEC" "$d/plain.plan" -- \
			"$I386_CALL" 193 "$W/plain" 0
		is "$rc:$(wc -c <"$W/plain")" 0:0 \
			"$lbl: ... without the supervised rows it truncates (the check can fail)"
	fi

	# ---- a file handed in on stdin, reopened for writing -------------
	# The fd is on the host's mount: outside every writable region, and
	# where a literal ro row binds the same path read-only, the table's
	# "the mounts hold it" says nothing of it (both were written).
	setup_ws "$W" "$owner"
	echo INPUT-ORIG >"$d/input.txt"
	chown "$owner" "$d/input.txt"
	chmod 600 "$d/input.txt"
	for f in "$d/input.txt" "$W/config"; do
		run "$@" timeout -s KILL 60 "$VBOX_EXEC" "$d/sup.plan" -- "$PY" -c '
import errno, os
try:
    os.write(os.open("/proc/self/fd/0", os.O_WRONLY | os.O_APPEND), b"CHILD\n")
    print("reopened")
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
' <"$f"
		is "$(cat "$workdir/out")" EACCES \
			"$lbl: a file on stdin (${f##*/}): not reopened for writing"
	done
	is "$(cat "$d/input.txt" "$W/config" | tr '\n' ' ')" \
		"INPUT-ORIG CONFIG-ORIG " "$lbl: ... both are whole (host side)"
	run "$@" timeout -s KILL 60 "$VBOX_EXEC" "$d/sup.plan" -- "$PY" -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.write(os.open("/proc/self/fd/%d" % fd, os.O_WRONLY | os.O_APPEND), b"more\n")
print("reopened")
' "$W/plain2"
	is "$rc:$(cat "$workdir/out"):$(tail -n 1 "$W/plain2")" "0:reopened:more" \
		"$lbl: ... a file of the writable root, opened for reading, is"

	# ---- FIFO opens whose callers were killed ------------------------
	# Each blocking FIFO open waits in a thread of the supervisor (at
	# most 64): one whose caller is killed must give its slot back.
	setup_ws "$W" "$owner"
	run "$@" timeout -s KILL 120 "$VBOX_EXEC" "$d/sup.plan" -- "$PY" -c '
import os, signal, sys, time
W = sys.argv[1]
os.mkfifo(W + "/fifo/lone")
for i in range(80):
    pid = os.fork()
    if pid == 0:
        os.open(W + "/fifo/lone", os.O_RDONLY)
        os._exit(0)
    time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
time.sleep(1)
os.mkfifo(W + "/fifo/pair")
pid = os.fork()
if pid == 0:
    fd = os.open(W + "/fifo/pair", os.O_WRONLY)
    os.write(fd, b"paired")
    os._exit(0)
print(os.read(os.open(W + "/fifo/pair", os.O_RDONLY), 100).decode())
os.waitpid(pid, 0)
' "$W"
	is "$rc:$(cat "$workdir/out")" 0:paired \
		"$lbl: 80 FIFO openers killed while they waited: a FIFO pair still opens"

	# ---- an fd whose path is longer than PATH_MAX -------------------
	# The child opens a hook for reading; the host then moves .git
	# below a 4 KiB directory chain (the child's own rename of it is
	# refused: the entries would leave every row's reach).
	setup_ws "$W" "$owner"
	rc=0
	"$@" timeout -s KILL 60 "$VBOX_EXEC" "$d/sup.plan" -- "$PY" -c '
import errno, os, sys, time
W = sys.argv[1]
def t(label, f):
    try:
        f()
        print(label, "ok")
    except OSError as e:
        print(label, errno.errorcode.get(e.errno, e.errno))
fd = os.open(W + "/repo/.git/hooks/pre-commit", os.O_RDONLY)
t("rename", lambda: os.rename(W + "/repo/.git", W + "/sys/" + "c" * 200))
open(W + "/out/deep-ready", "w").close()
for i in range(1200):
    if os.path.exists(W + "/out/deep-go"):
        break
    time.sleep(0.05)
t("reopen", lambda: os.write(os.open("/proc/self/fd/%d" % fd,
                                     os.O_WRONLY | os.O_APPEND), b"PWNED\n"))
t("fchmod", lambda: os.fchmod(fd, 0o777))
t("fsetxattr", lambda: os.setxattr(fd, "user.vbox", b"1"))
' "$W" >"$workdir/out" 2>"$workdir/err" &
	bg=$!
	until_there "$W/out/deep-ready" "$bg"
	"$PY" -c '
import os, sys
W = sys.argv[1]
os.chdir(W + "/sys")
n = len(W + "/sys")
while n + 201 < 4060:
    os.mkdir("c" * 200)
    os.chdir("c" * 200)
    n += 201
os.mkdir("e" * (4075 - n - 1))
os.chdir("e" * (4075 - n - 1))
os.rename(W + "/repo/.git", ".git")
' "$W" && chown -R "$owner" "$W/sys"
	touch "$W/out/deep-go"
	wait "$bg" || rc=$?
	is "$rc:$(tr '\n' ' ' <"$workdir/out")" \
		"0:rename EACCES reopen EACCES fchmod EACCES fsetxattr EACCES " \
		"$lbl: a hook moved past PATH_MAX: its fd not reopened for writing, nor changed"
	# (found where it went: its path is too long for cat)
	is "$(find "$W/sys" -path '*/.git/hooks/pre-commit' \
		-execdir sh -c 'printf "%s:" "$(cat pre-commit)"; stat -c %a pre-commit' \; \
		2>/dev/null)" "HOOK-ORIG:755" \
		"$lbl: ... the hook is whole (host side)"

	# ---- a core dump into a supervised directory ---------------------
	case $(cat /proc/sys/kernel/core_pattern 2>/dev/null) in
	'' | '|'* | */*)
		ok "# SKIP $lbl: core_pattern '$(cat /proc/sys/kernel/core_pattern 2>/dev/null)' does not write into the working directory"
		;;
	*)
		setup_ws "$W" "$owner"
		for p in sup plain; do
			run "$@" timeout -s KILL 60 "$VBOX_EXEC" "$d/$p.plan" -- \
				"$PY" -c '
import os, resource, sys
try:
    resource.setrlimit(resource.RLIMIT_CORE,
                       (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
except (ValueError, OSError):
    pass
os.chdir(sys.argv[1])
pid = os.fork()
if pid == 0:
    os.abort()
print("dumped" if os.WCOREDUMP(os.waitpid(pid, 0)[1]) else "no dump")
' "$W/repo/.git/hooks"
			echo "# $lbl: $p plan: $(cat "$workdir/out")"
			ls "$W/repo/.git/hooks" | grep '^core' >"$d/cores.$p" || :
			rm -f "$W/repo/.git/hooks"/core*
		done
		is "$(cat "$d/cores.sup")" "" \
			"$lbl: no core file in the supervised ro directory .git/hooks"
		check "$lbl: ... the same run without the supervised rows leaves one (the check can fail)" \
			test -s "$d/cores.plain"
		;;
	esac

	# ---- container mode holds the plan too; no deny rows, no refusal --
	setup_ws "$W" "$owner"
	run "$@" timeout -s KILL 60 "$VBOX_EXEC" --mode=container "$d/sup.plan" \
		-- sh -c 'touch "$1/ran-ctr"; cat "$1/.env"; echo x >"$1/a/b/c/.env"' \
		sh "$W"
	check "$lbl: --mode=container runs the plan (host side)" \
		test -e "$W/ran-ctr"
	host_lacks "$workdir/out" SECRET "$lbl: ... and refuses the .env's read"
	check "$lbl: ... naming the row on stderr" \
		grep -q "vbox: refused open of $W/\\.env (read) by row [0-9]" \
		"$workdir/err"
	host_has "$W/a/b/c/.env" SECRET-DEEP "$lbl: ... nor rewrites a .env (host side)"
	run "$@" timeout -s KILL 60 "$VBOX_EXEC" "$d/plain.plan" -- cat "$W/.env"
	is "$rc:$(cat "$workdir/out")" 0:SECRET-TOP \
		"$lbl: the same plan without the deny rows reads .env"
}

each_user one_user

done_testing
