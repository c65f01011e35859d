#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_supervisor_idle.sh - the path supervisor's thread
# rests once no process of the sandbox uses the seccomp filter (issue 33,
# item 7; doc/launcher.md, "Supervised paths").  From then on the
# kernel's wait for a call returns ENOENT at once, every time; a thread
# that looped on it spun a CPU through the whole teardown of the sandbox
# (thousands of waits per launch): vbox-exec's CPU for `-- true` was
# 1.6 times a plain launch's with an ro-only plan, 2.3 times with a deny
# row, before the command had made a single supervised call.
#
# Judged from the host: vbox-exec runs under strace, which counts the
# supervisor's waits that returned ENOENT.  A resting thread gets one
# (the wait that finds the filter unused) and one more for each caller
# that went away while waiting (none here: the command's creating opens
# are answered); a spinning one got 75 to 1,500 in the runs that showed
# the fault.  The plan's only supervised row is ro, which hands no
# exec over: a program that strace traces could not exec under a plan
# that does (exec_supervisor_child.sh).  In namespace mode, as root and
# as uid 65534; each launch must still end with the command's status.
# Not in container mode, which judges every exec (doc/launcher.md), so
# that strace's tracing refuses the command; its supervisor runs the
# same thread.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
command -v strace >/dev/null 2>&1 ||
	skip_all "no strace (it counts the supervisor's waits from outside)"
set_users
chmod 755 "$workdir"
# The workspace lies outside /tmp, which the plan makes private.
W=$(mktemp -d "${VBOX_VARTMP:-/var/tmp}/vbox-idle.XXXXXX")
trap 'rm -rf "$workdir" "$W"' EXIT
chmod 1777 "$W"

# The command fills its private /tmp with 10,000 files, which vbox-exec
# removes after the sandbox has ended: the time a spinning thread had.
# The most ENOENT answers a resting thread gets in one launch: the
# callers that went away while it waited (none here) and the one wait
# that finds the filter unused.  A spinning thread gets thousands.
MOST=5

cat >"$workdir/idle.rules" <<EOF
@default net deny
@default tmp private
[fs]
rw: $W
!ro: **/.git/hooks/**
EOF
"$VBOXC" compile --target=linux --emit=plan -o "$workdir/idle.plan" \
	"$workdir/idle.rules" 2>"$workdir/err" || {
	sed 's/^/# /' "$workdir/err"
	skip_all "the plan does not compile"
}
chmod 644 "$workdir/idle.plan"

# one WHO MODE - one launch under strace; checks its status and waits
one() {
	_out=$W/strace.$1.$2
	rm -f "$_out"
	rc=0
	# LeakSanitizer cannot work under ptrace: a sanitized build's
	# vbox-exec would abort at its exit.  Every other suite's runs look
	# for its leaks.
	as_user "$1" env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		timeout -s KILL 120 strace -f -qq -e trace=ioctl \
		-o "$_out" "$VBOX_EXEC" --mode="$2" "$workdir/idle.plan" -- \
		/bin/sh -c 'mkdir /tmp/m && cd /tmp/m &&
			seq 10000 | xargs touch; exit 7' \
		>"$workdir/out" 2>"$workdir/err" || rc=$?
	if [ "$rc" != 7 ]; then
		not_ok "$1, $2 mode: the command's status (got $rc)"
		sed 's/^/# /' "$workdir/err" | head -n 20
		return
	fi
	ok "$1, $2 mode: the command's status"
	_recv=$(grep -c 'SECCOMP_IOCTL_NOTIF_RECV' "$_out" || :)
	_gone=$(grep 'SECCOMP_IOCTL_NOTIF_RECV\|ioctl resumed' "$_out" |
		grep -c 'ENOENT' || :)
	if [ "$_recv" -eq 0 ]; then
		not_ok "$1, $2 mode: the supervisor waited for calls (no wait seen)"
		return
	fi
	if [ "$_gone" -le "$MOST" ]; then
		ok "$1, $2 mode: the supervisor rests after the sandbox ends ($_gone waits answered ENOENT, at most $MOST)"
	else
		not_ok "$1, $2 mode: the supervisor rests after the sandbox ends ($_gone waits answered ENOENT, more than $MOST)"
	fi
}

cd "$W"
for who in $users; do
	one "$who" ns
done
done_testing
