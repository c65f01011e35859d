#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_race.sh - the supervisor raced from inside (issue 29;
# doc/launcher.md, "What continues"): tests/launch/race_args makes every call
# the supervisor judges in a loop while a second thread, and then a
# second process sharing the memory (MAP_SHARED), flips one pointer
# argument between an allowed and a denied value: the path, a struct
# open_how together with its path, the new name or the source of a
# link, a rename's either name, the program of an execve(), a socket
# address, a msghdr's name or the whole msghdr (no name against a host
# socket's name), on a datagram and on a SOCK_RAW unix socket.
#
# Judged from the host: the secret never reached the output, the
# read-only file kept its content, mode, times, owner change time and
# extended attributes, nothing was made at the denied name, the denied
# files and directory are still there, the denied program never ran, and
# the host's sockets outside the writable region got no connection and
# no datagram.  Each case must also have succeeded on its allowed value
# (the race ran both ways), and the harness counts what it saw itself.
#
# Where: namespace mode with supervised rows; container mode, the same
# plan (its path supervisor judges every path call there), under
# Docker's errnos with SYS_PTRACE (pidfd_getfd works) and without
# (pidfd_getfd refused: the supervisor cannot take the child's sockets,
# nor unshare its thread's file-system context); and container mode
# with a plan Landlock holds alone (no path supervisor: the loop judges
# the metadata calls and the sockets), without pidfd_getfd.  As root and
# as uid 65534.  First, as each user outside any sandbox, a short run of
# every case must win (the controls: each judgement can fail).
#
# VBOX_RACE_MS sets each case's time (default 150 ms).

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY (the host's sockets)"
RACE=${top_builddir:-.}/tests/launch/race_args
[ -x "$RACE" ] || skip_all "no $RACE"
CTR_ENV=${top_builddir:-.}/tests/launch/ctr_env
[ -x "$CTR_ENV" ] || skip_all "no $CTR_ENV"
CTR_ENV=$(cd "$(dirname "$CTR_ENV")" && pwd)/ctr_env
set_users
chmod 755 "$workdir"
cd "$workdir"
cp "$RACE" race_args
chmod 755 race_args
RACE=$workdir/race_args
ms=${VBOX_RACE_MS:-150}
tag=$$
SECRET=SECRET-RACE-$tag
pids=
trap 'kill $pids 2>/dev/null || :; rm -rf "$workdir"' EXIT

# The host's sockets, in a directory no plan makes writable: each logs
# what reaches it (one line a connection or datagram).
cat >hostsock.py <<'PYEOF'
import os, socket, sys, threading
d = sys.argv[1]
st = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
st.bind(os.path.join(d, "stream.sock"))
st.listen(512)
dg = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
dg.bind(os.path.join(d, "dgram.sock"))
os.chmod(os.path.join(d, "stream.sock"), 0o777)
os.chmod(os.path.join(d, "dgram.sock"), 0o777)
log = open(os.path.join(d, "log"), "a", buffering=1)
def accept():
    while True:
        c, _ = st.accept()
        log.write("connection\n")
        c.close()
threading.Thread(target=accept, daemon=True).start()
open(os.path.join(d, "ready"), "w").close()
while True:
    data = dg.recv(64)
    log.write("datagram %r\n" % data)
PYEOF

# xattr.py set FILE... | show FILE - user.keep=1 on each; the list
cat >xattr.py <<'PYEOF2'
import os, sys
if sys.argv[1] == "set":
    for f in sys.argv[2:]:
        os.setxattr(f, "user.keep", b"1")
else:
    f = sys.argv[2]
    print(sorted((n, os.getxattr(f, n, follow_symlinks=False))
                 for n in os.listxattr(f, follow_symlinks=False)))
PYEOF2

# layout DIR WHO - a workspace W=DIR/w and host directory H=DIR/host
layout() {
	_d=$1
	rm -rf "$_d"
	mkdir -p "$_d/w/.git/hooks" "$_d/w/sub" "$_d/w/e/.env" "$_d/w/keys" \
		"$_d/host"
	printf 'ok-content\n' >"$_d/w/ok.txt"
	printf '%s\n' "$SECRET" >"$_d/w/.env"
	printf 'HOOK\n' >"$_d/w/.git/hooks/pre-commit"
	printf 'RO-FILE\n' >"$_d/host/ro.txt"
	cp "$RACE" "$_d/w/keys/tool.pem"
	chmod 755 "$_d/w/keys/tool.pem"
	"$PY" xattr.py set "$_d/w/.git/hooks/pre-commit" "$_d/host/ro.txt" \
		"$_d/w/ok.txt"
	chmod 644 "$_d/host/ro.txt" "$_d/w/.git/hooks/pre-commit"
	chmod 777 "$_d/host"
	if [ "$2" = nobody ]; then
		chown -R 65534:65534 "$_d/w"
		chown 65534:65534 "$_d/host/ro.txt"
	fi
	"$PY" hostsock.py "$_d/host" </dev/null >/dev/null 2>&1 &
	pids="$pids $!"
	wait_for "$_d/host/ready" || echo "# the host sockets of $_d did not start"
	chmod 755 "$_d/host"
}

# state FILE... - what the host checks stays as it is
state() {
	for _f in "$@"; do
		if [ -e "$_f" ]; then
			stat -c '%n %s %a %u %Y %Z' "$_f"
			[ -d "$_f" ] || cat "$_f"
			"$PY" xattr.py show "$_f"
		else
			echo "$_f absent"
		fi
	done
}

# ---- the controls: outside any sandbox every case wins ------------------
path_cases="open-read openat-read openat2-read open-write openat-write
openat2-path-how openat2-how-write creat openat-creat openat2-creat mkdir
mkdirat mknod mknodat symlink symlinkat link-new linkat-new link-src
linkat-src unlink unlinkat rmdir rename-src renameat-src renameat2-src
rename-dst execve execveat"
meta_cases="truncate chmod fchmodat chown lchown fchownat utimes utimensat
setxattr lsetxattr removexattr"
sock_cases="connect sendto sendmsg-name sendmsg-header sendmmsg-name
raw-sendmsg-header"

for who in $users; do
	# one workspace a case: the winning ones change it
	lost=
	for c in $path_cases $meta_cases $sock_cases bind; do
		# a busy machine can let a short run go by without a win:
		# up to five runs, each twice as long (at a load of 10 on two
		# CPUs, three runs of sendmsg-name and lchown all went by)
		cms=60
		case $c in exec*) cms=400 ;; esac
		for try in 1 2 3 4 5; do
			layout "$workdir/ctl" "$who"
			W=$workdir/ctl/w
			run as_user "$who" timeout -s KILL 60 "$RACE" --ms "$cms" \
				"$W" "$workdir/ctl/host" "$SECRET" "$c"
			sleep 0.05
			won=
			case $c in
			connect | send* | raw-*)
				grep -q . "$workdir/ctl/host/log" 2>/dev/null &&
					won=1 ;;
			setxattr | lsetxattr | removexattr)
				{ grep -q "^$c skip" out ||
				  grep -q "^$c tries=.* won=[1-9]" out; } && won=1 ;;
			*)
				grep -q "^$c tries=.* won=[1-9]" out && won=1 ;;
			esac
			kill $pids 2>/dev/null || :
			pids=
			[ -n "$won" ] && break
			cms=$((cms * 2))
		done
		[ -n "$won" ] || lost="$lost $c"
	done
	is "$lost" "" "control, $who: every case wins outside a sandbox"
done

# ---- the plans ---------------------------------------------------------
rules_ns() {
	printf '@default net deny\n@default write deny\n'
	printf 'rw: %s/**\n!deny: **/.env\n!deny: %s/**/keys/*.pem\n' "$1" "$1"
	printf '!ro: **/.git/hooks/**\n'
}
rules_ctr() {
	printf '@default net deny\n@default write deny\nrw: %s/**\n' "$1"
}

# judge LABEL DIR CASES... - the run's output (out) and the host's view
judge() {
	_l=$1
	_d=$2
	shift 2
	_bad=
	for _c in "$@"; do
		if grep -q "^$_c skip" out; then
			# without pidfd_getfd() no unix socket but stream and
			# seqpacket can be made (SOCK_RAW is a datagram one)
			case "$_l:$_c" in
			docker,*:send* | docker,*:raw-*)
				grep -q "^$_c skip .*Operation not permitted" out ||
					_bad="$_bad $_c(skipped: not EPERM)" ;;
			*) _bad="$_bad $_c(skipped)" ;;
			esac
			continue
		fi
		grep -q "^$_c tries=[0-9]* ok=[1-9][0-9]* won=0$" out ||
			_bad="$_bad $_c($(grep "^$_c " out | head -n 1 |
				cut -d' ' -f2-))"
	done
	is "$_bad" "" "$_l: every case ran both ways, none won inside"
	check "$_l: no secret, no denied program in the output" sh -c \
		"! grep -q -e '$SECRET' -e EXEC-MARKER out"
	state "$_d/w/.env" "$_d/w/.git/hooks/pre-commit" "$_d/w/sub/.env" \
		"$_d/w/e/.env" "$_d/host/ro.txt" "$_d/host/x.sock" >state.after
	if cmp -s state.before state.after; then
		ok "$_l: the denied and read-only files, judged from the host"
	else
		not_ok "$_l: the denied and read-only files, judged from the host"
		diff state.before state.after | sed 's/^/#   /' | head -n 20
	fi
	if grep -q . "$_d/host/log" 2>/dev/null; then
		not_ok "$_l: the host's sockets were reached"
		sed 's/^/#   /' "$_d/host/log" | head -n 5
	else
		ok "$_l: the host's sockets outside the writable region got nothing"
	fi
}

# race LABEL COND WHO PLAN ARGS... - one run of race_args in the sandbox
race() {
	_l=$1
	_cond=$2
	_who=$3
	_plan=$4
	shift 4
	case $_cond in
	ns) set -- "$VBOX_EXEC" --mode=ns --timeout=300 "$_plan" -- "$@" ;;
	docker) set -- "$CTR_ENV" --docker -- "$VBOX_EXEC" --mode=container \
		--timeout=300 "$_plan" -- "$@" ;;
	docker-ptrace) set -- "$CTR_ENV" --docker --ptrace -- "$VBOX_EXEC" \
		--mode=container --timeout=300 "$_plan" -- "$@" ;;
	esac
	run as_user "$_who" timeout -s KILL 400 "$@"
	if [ "$rc" != 0 ]; then
		not_ok "$_l: vbox-exec exits 0 (got $rc)"
		sed 's/^/#   /' err | head -n 10
	fi
}

# one_plan LABEL COND DIR RULES EXTRA CASES... - lay out DIR for $who,
# compile RULES (rules_ns or rules_ctr) for it, race CASES there in
# COND (EXTRA: race_args options), judge, and stop the host's sockets
one_plan() {
	_l=$1 _cond=$2 _d=$3 _rules=$4 _extra=$5
	shift 5
	layout "$_d" "$who"
	"$_rules" "$_d/w" >plan.rules
	"$VBOXC" compile --target=linux --emit=plan -o plan.bin plan.rules \
		2>/dev/null
	state "$_d/w/.env" "$_d/w/.git/hooks/pre-commit" "$_d/w/sub/.env" \
		"$_d/w/e/.env" "$_d/host/ro.txt" "$_d/host/x.sock" >state.before
	# shellcheck disable=SC2086 # the flags and options are words
	race "$_l" "$_cond" "$who" plan.bin "$RACE" $flag --ms "$ms" $_extra \
		"$_d/w" "$_d/host" "$SECRET" "$@"
	judge "$_l" "$_d" "$@"
	kill $pids 2>/dev/null || :
	pids=
}

for who in $users; do
	for mem in thread shared; do
		flag=
		[ "$mem" = shared ] && flag=--shared
		# namespace mode, supervised rows: every case; container
		# mode, the same plan (its path supervisor): every case
		for cond in ns docker-ptrace docker; do
			one_plan "$cond, $who, $mem" "$cond" "$workdir/$cond" \
				rules_ns "" $path_cases $meta_cases $sock_cases bind
		done
		# container mode, Landlock alone: the calls the loop judges
		d=$workdir/plain
		one_plan "docker, plain plan, $who, $mem" docker "$d" rules_ctr \
			"--ro $d/host/ro.txt --denied $d/host/x.sock" \
			$meta_cases $sock_cases bind
	done
done

done_testing
