#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_walls.sh - the walls of the Linux sandbox (doc/launcher.md, "Walls")
# against the real bubblewrap and the real launcher, each attack checked
# from the host side too: sysctls written back with their own value
# (unchanged on the host either way), kernel mounts read-only, the
# seccomp list refused, Seccomp 2 / NoNewPrivs 1 / no capabilities, a
# host daemon's unix sockets outside the writable regions never reached
# (the daemon counts what reaches it), the host's abstract sockets never
# reached; and the controls: sockets in the writable root, socketpair,
# python, a shell pipeline, git status, a compiler.
#
# Runs every posture (@default write deny and rw; net deny and open) as
# the running uid and, when that is root, again as uid 65534 through
# setpriv.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY (the probe and the host daemon need it)"

tag=$$
chmod 755 "$workdir"
T=$workdir/t
mkdir -p "$T/rw" "$T/ro"
chmod 755 "$T" "$T/ro"
chmod 1777 "$T/rw"
cp "$top_srcdir/tests/launch/walls_probe.py" "$T/probe.py"
chmod 644 "$T/probe.py"

# The host daemon: sockets outside the writable regions, one inside, an
# abstract one.
"$PY" "$top_srcdir/tests/launch/walls_daemon.py" "$workdir/daemon.log" \
	"s:$T/ro/s" "d:$T/ro/d" "s:$T/rw/daemon.sock" "a:vbox-walls-$tag" &
daemon=$!
trap 'kill $daemon 2>/dev/null; rm -rf "$workdir"' EXIT
wait_for "$workdir/daemon.log.ready" 100 ||
	skip_all "the host daemon did not start"
: >"$workdir/daemon.log"
chmod 666 "$workdir/daemon.log"

# A repository and a C file for the controls.
git init -q "$T/rw/repo" && (cd "$T/rw/repo" && echo x >f &&
	git add f && git -c user.email=t@t -c user.name=t commit -qm x)
printf 'int main(void) { return 0; }\n' >"$T/rw/c.c"
chmod -R a+rwX "$T/rw"

compile() { # NAME WRITE NET EXTRA-ROW
	printf '@default write %s\n@default net %s\n[fs]\n%s\n' "$2" "$3" \
		"$4" >"$workdir/$1.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$workdir/$1.plan" \
		"$workdir/$1.rules"
	chmod 644 "$workdir/$1.plan"
}
compile deny deny deny "rw: $T/rw"
compile rw rw deny "ro: $T/ro"
compile open deny open "rw: $T/rw"

core_before=$(cat /proc/sys/kernel/core_pattern)
lease_before=$(cat /proc/sys/fs/lease-break-time)

# expect OUT NAME WANT WHO - the probe printed "NAME WANT"
expect() {
	if grep -qx "$2 $3" "$1"; then
		ok "$4: $2 -> $3"
	else
		not_ok "$4: $2 -> $3"
		grep "^$2 " "$1" | sed 's/^/# got: /'
	fi
}

# suite POSTURE RUNAS... - one posture as one uid
suite() {
	posture=$1
	shift
	who="$posture as uid $("$@" id -u)"
	out=$workdir/out.$posture.$("$@" id -u)
	rm -f "$T/rw/lnk" "$T/rw/swap" "$T/rw/own.sock"
	: >"$workdir/daemon.log"
	rc=0
	"$@" "$VBOX_EXEC" "$workdir/$posture.plan" -- \
		"$PY" "$T/probe.py" "$T" "$tag" >"$out" 2>"$out.err" || rc=$?
	is "$rc" 0 "$who: the probe ran"
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$out.err"

	for s in sysctl-core_pattern sysctl-lease_break; do
		if grep -qx "$s ok" "$out"; then
			not_ok "$who: $s written"
		else
			ok "$who: $s refused ($(grep "^$s " "$out" | cut -d' ' -f2))"
		fi
	done
	if grep -q '^kernel-mount-writable' "$out"; then
		not_ok "$who: every /sys and /proc/X mount is read-only"
		grep '^kernel-mount-writable' "$out" | sed 's/^/# /'
	else
		check "$who: every /sys and /proc/X mount is read-only" \
			grep -qx 'kernel-mounts checked' "$out"
	fi
	if grep -q '^proc-.* READ$' "$out"; then
		not_ok "$who: root-only /proc files read nothing"
		grep '^proc-.* READ$' "$out" | sed 's/^/# /'
	else
		ok "$who: root-only /proc files read nothing ($(grep -c '^proc-' "$out") checked)"
	fi
	expect "$out" status-Seccomp 2 "$who"
	expect "$out" status-NoNewPrivs 1 "$who"
	expect "$out" status-CapEff 0000000000000000 "$who"
	for c in io_uring_setup add_key keyctl request_key bpf \
		perf_event_open userfaultfd unshare-user mount setns \
		open_by_handle_at init_module kexec_load ioctl-TIOCSTI \
		socket-AF_PACKET; do
		expect "$out" "$c" EPERM "$who"
	done
	expect "$out" clone3 ENOSYS "$who"

	for a in unix-direct unix-symlink unix-dotdot unix-proc-self-root \
		unix-relative unix-relative-dotdot unix-dgram-sendto \
		unix-dgram-sendmsg; do
		if [ "$posture" = open ]; then
			# net open: pathname sockets are not restricted
			expect "$out" "$a" ok "$who"
		else
			expect "$out" "$a" EACCES "$who"
		fi
	done
	if [ "$posture" = open ]; then
		expect "$out" unix-abstract EPERM "$who"
	else
		expect "$out" unix-abstract ECONNREFUSED "$who"
	fi
	expect "$out" unix-swap-race-unexpected 0 "$who"
	expect "$out" unix-daemon-in-rw ok "$who"
	expect "$out" unix-own-in-rw ok "$who"
	expect "$out" socketpair ok "$who"
	# host side
	if [ "$posture" = open ]; then
		check "$who: host side: the daemon outside was reached (net open)" \
			grep -q "^$T/ro/s$" "$workdir/daemon.log"
	else
		is "$(grep -c "^$T/ro/" "$workdir/daemon.log" || :)" 0 \
			"$who: host side: nothing reached the daemon's sockets outside the writable region"
	fi
	is "$(grep -c "vbox-walls-$tag" "$workdir/daemon.log" || :)" 0 \
		"$who: host side: nothing reached the host's abstract socket"
	check "$who: host side: the daemon's socket in the writable root was reached" \
		grep -q "^$T/rw/daemon.sock$" "$workdir/daemon.log"
	is "$(cat /proc/sys/kernel/core_pattern)" "$core_before" \
		"$who: host side: kernel.core_pattern unchanged"
	is "$(cat /proc/sys/fs/lease-break-time)" "$lease_before" \
		"$who: host side: fs.lease-break-time unchanged"

	# controls: a shell pipeline, git status, a compiler
	run "$@" "$VBOX_EXEC" "$workdir/$posture.plan" -- sh -c \
		'echo a b | tr a-z A-Z | grep -c A'
	is "$rc:$(cat "$workdir/out")" "0:1" "$who: a shell pipeline works"
	run "$@" "$VBOX_EXEC" -C "$T/rw/repo" "$workdir/$posture.plan" -- \
		git -c safe.directory='*' status --porcelain
	is "$rc:$(cat "$workdir/out")" "0:" "$who: git status works"
	run "$@" "$VBOX_EXEC" -C "$T/rw" -e TMPDIR="$T/rw" \
		"$workdir/$posture.plan" -- sh -c \
		'cc -o c.out c.c && ./c.out && rm -f c.out'
	is "$rc" 0 "$who: a compiler works"
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$workdir/err"
}

as_nobody=
if [ "$(id -u)" -eq 0 ]; then
	if nobody_can_run; then
		as_nobody=1
	else
		echo "# $nobody_why: the runs as uid 65534 are skipped"
	fi
fi
for posture in deny rw open; do
	suite "$posture" env
	if [ -n "$as_nobody" ]; then
		suite "$posture" setpriv --reuid=65534 --regid=65534 \
			--clear-groups env
	fi
done
done_testing
