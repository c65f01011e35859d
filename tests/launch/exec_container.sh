#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_container.sh - vbox-exec where pipelines run (issue 21): the
# conditions of a container reproduced on this machine, not claimed.
#
#   docker  tests/launch/ctr_env --docker: the errnos of Docker's default seccomp
#           profile (unshare, mount, clone with namespace flags, clone3,
#           pidfd_getfd, process_vm_*, io_uring, ...)
#   docker-ptrace  the same as with --cap-add=SYS_PTRACE (pidfd_getfd and
#           process_vm_* allowed)
#   nested  inside `bwrap --unshare-user --disable-userns`: a user
#           namespace that allows no nested one (ENOSPC)
#   gvisor  tests/launch/ctr_env --gvisor: Landlock ENOSYS, the seccomp
#           listener EINVAL
#
# Under docker and nested, --mode=ns must exit 125 naming the probed
# cause and suggesting --mode=container, without running the command;
# --mode=container must run the demo plan (examples/demo.rules, its paths
# moved into the test's directory) while the launcher's attacks fail,
# judged from the host side: writes outside the roots, denied reads,
# direct TCP, UDP and DNS-shaped datagrams to host loopback listeners,
# io_uring, a signal to and /proc/PID/environ|mem of a host process of
# the same uid, an abstract unix socket of the host; and with an allow
# row for a loopback HTTP origin, the origin through the proxy and
# directly, a port no row allows refused both ways, the proxy refusing a
# client without its token.  Under gvisor, --mode=container exits 125
# naming Landlock.  --mode=auto runs namespace mode on the bare host
# without a word, container mode under the conditions saying why, and
# the demo plan there too: its deny rows, which Landlock alone would hold
# only narrower, are held exactly by the path supervisor, with no flag.
# --accept-narrower runs it with Landlock alone (narrower), the denied
# key unread all the same.  Below ABI 6 and 4 (the build tree's test-only cap)
# the refusals and the supervisor's hold.  As root and as uid 65534.  Every attack first runs
# outside any sandbox as the same user (the controls): each can succeed
# there, so each judgement can fail.
#
# VBOX_CTR_SELFCHECK=1 runs the container-mode part in namespace mode on
# the bare host instead (the attacks and judgements themselves checked
# against the mode that exists); VBOX_CTR_CONDS="host docker nested"
# chooses the conditions of the container-mode part (host: none).

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
CTR_ENV=${top_builddir:-.}/tests/launch/ctr_env
TEST_PROXY=${top_builddir:-.}/tests/proxy/test_proxy
PY=/usr/bin/python3
[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"
[ -x "$VBOX_EXEC" ] || skip_all "no vbox-exec binary at $VBOX_EXEC"
[ -x "$CTR_ENV" ] || skip_all "no $CTR_ENV"
[ -x "$PY" ] || skip_all "no $PY (the network ends of the attacks)"
BWRAP=${BWRAP:-$(command -v bwrap 2>/dev/null || :)}
CTR_ENV=$(cd "$(dirname "$CTR_ENV")" && pwd)/ctr_env
TEST_PROXY=$(cd "$(dirname "$TEST_PROXY")" && pwd)/test_proxy
bound_script
set_users

srcdir=$(cd "$srcdir" && pwd)
chmod 755 "$workdir"
cd "$workdir"
cp "$srcdir/tests/launch/ctr_net.py" net.py
NET=$workdir/net.py
pids=
trap 'kill $pids 2>/dev/null || :; rm -rf "$workdir"' EXIT
tag=$$

# as_who WHO CMD... - CMD as WHO of $users (set_users): "nobody" is uid
# 65534, any other the running user
as_who() {
	_who=$1
	shift
	if [ "$_who" = nobody ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
	else
		"$@"
	fi
}

# in_cond COND WHO CMD... - CMD under the condition COND as WHO (as_who),
# bounded
in_cond() {
	_c=$1
	_w=$2
	shift 2
	case $_c in
	docker | gvisor)
		as_who "$_w" timeout -s KILL 120 "$CTR_ENV" "--$_c" -- "$@" ;;
	docker-ptrace)
		as_who "$_w" timeout -s KILL 120 "$CTR_ENV" --docker --ptrace \
			-- "$@" ;;
	nested)
		as_who "$_w" timeout -s KILL 120 "$BWRAP" --unshare-user \
			--disable-userns --bind / / --proc /proc --dev /dev \
			-- "$@" ;;
	*)
		as_who "$_w" timeout -s KILL 120 "$@" ;;
	esac
}

# Which modes this vbox-exec has.
if "$VBOX_EXEC" --help 2>&1 | grep -q -- '--mode='; then
	mode_ns=--mode=ns
else
	mode_ns=
	echo "# vbox-exec has no --mode yet: namespace mode is its default"
fi
has_container=
if "$VBOX_EXEC" --help 2>&1 | grep -q 'container'; then
	has_container=1
fi
host_userns=
if [ -n "$BWRAP" ] && "$BWRAP" --unshare-user --ro-bind / / /bin/true \
	2>/dev/null; then
	host_userns=1
fi
conds="docker docker-ptrace"
if [ -n "$BWRAP" ] && "$BWRAP" --help 2>&1 | grep -q -- --disable-userns &&
	[ -n "$host_userns" ]; then
	conds="$conds nested"
else
	echo "# no bubblewrap with --disable-userns here: the nested" \
		"condition is not reproduced"
fi

# ---- the helper's own conditions ---------------------------------------
run "$CTR_ENV" --docker --probe --
is "$(tr '\n' ' ' <out)" "unshare0 EPERM pidfd_getfd EPERM clone3 ENOSYS \
landlock_create_ruleset ok seccomp_listener EFAULT io_uring_setup EPERM " \
	"ctr_env --docker: what a process then sees"
run "$CTR_ENV" --gvisor --probe --
check "ctr_env --gvisor: Landlock ENOSYS, the listener EINVAL" \
	sh -c 'grep -qx "landlock_create_ruleset ENOSYS" out &&
grep -qx "seccomp_listener EINVAL" out && grep -qx "unshare0 ok" out'

# ---- namespace mode names the cause ------------------------------------
mkdir m
chmod 777 m
printf '@default write deny\n[fs]\nrw: %s/m\n' "$workdir" >m.rules
"$VBOXC" compile --target=linux --emit=plan -o m.plan m.rules

ns_refused() {
	_cond=$1
	_who=$2
	_want=$3
	rm -f m/ran
	run in_cond "$_cond" "$_who" "$VBOX_EXEC" $mode_ns --timeout=60 \
		m.plan -- touch "$workdir/m/ran"
	is "$rc" 125 "$_cond, $_who, namespace mode: exit 125"
	if grep -q "^vbox-exec: user namespaces are refused here: .*$_want.*; --mode=container sandboxes without them" err; then
		ok "... the message names the probed cause ($_want) and" \
			"suggests --mode=container"
	else
		not_ok "... the message names the probed cause ($_want)"
		sed 's/^/#   /' err | head -n 5
	fi
	check "... the command did not run (host side)" test ! -e m/ran
}

for who in $users; do
	if [ -n "$host_userns" ]; then
		rm -f m/ran
		run in_cond host "$who" "$VBOX_EXEC" $mode_ns --timeout=60 \
			m.plan -- touch "$workdir/m/ran"
		check "control, $who: the same launch runs without the condition" \
			test "$rc" = 0 -a -e m/ran
	else
		ok "# SKIP control, $who: user namespaces are refused on" \
			"this host itself"
	fi
	ns_refused docker "$who" "refused by this process's seccomp filter"
	case " $conds " in
	*" nested "*)
		ns_refused nested "$who" "ENOSPC.*allows no nested one" ;;
	esac
done

# ---- container mode ----------------------------------------------------
if [ -n "${VBOX_CTR_SELFCHECK:-}" ]; then
	cmode=$mode_ns
	cconds=host
	narrower=
	echo "# VBOX_CTR_SELFCHECK: the attacks in namespace mode on the host"
elif [ -n "$has_container" ]; then
	cmode="--mode=container ${VBOX_CTR_FLAGS:-}"
	narrower=
	cconds=${VBOX_CTR_CONDS:-$conds}
	# Below Landlock ABI 6 (Linux 6.12) signals cannot be scoped:
	# container mode then needs --accept-unscoped-signals, and the
	# signal attack is skipped, saying why.
	run timeout -s KILL 120 "$VBOX_EXEC" $cmode --timeout=60 m.plan -- true
	if [ "$rc" = 125 ] && grep -q "cannot scope signals" err; then
		cmode="$cmode --accept-unscoped-signals"
		unscoped=$(head -n 1 err)
	fi
else
	ok "# SKIP container mode: this vbox-exec has no --mode=container"
	done_testing
fi

# The demo plan, its paths in the test's directory.  Every path an
# attack aims at is open to everyone by its mode bits: only the sandbox
# stands in the way (the controls below show it).
W=$workdir/w
mkdir -p "$W/srv/work/keys" "$W/srv/work/vendor" "$W/build" "$W/home/.ssh" \
	"$W/outside" "$W/opt/tool chain"
printf 'SECRET-KEY-%s\n' "$tag" >"$W/srv/work/keys/release.key"
printf 'SECRET-SSH-%s\n' "$tag" >"$W/home/.ssh/id_demo"
printf 'host file\n' >"$W/outside/existing"
chmod -R a+rwX "$W"
sed -e "s|/srv/work|$W/srv/work|g" -e "s|/tmp/build|$W/build|g" \
	-e "s|\"/opt/tool chain|\"$W/opt/tool chain|" \
	"$srcdir/examples/demo.rules" >demo.rules
"$VBOXC" compile --target=linux --emit=plan -D HOME="$W/home" -o demo.plan \
	demo.rules 2>/dev/null

if [ -z "${VBOX_CTR_SELFCHECK:-}" ]; then
	# No flag: the deny rows are held exactly, by the path supervisor.
	rm -f "$W/build/ran"
	run timeout -s KILL 120 "$VBOX_EXEC" $cmode --log --timeout=60 \
		demo.plan -- sh -c 'touch "$1/build/ran"; cat "$1/srv/work/keys/release.key"' \
		sh "$W"
	check "container mode runs the demo plan with no flag (host side)" \
		sh -c "test -e '$W/build/ran' && grep -q 'path supervisor: every path call judged' err"
	check "... and the denied key stays unread" \
		sh -c "! grep -q SECRET-KEY out"
	# --accept-narrower: Landlock alone, narrower, the key unread too.
	rm -f "$W/build/ran"
	run timeout -s KILL 120 "$VBOX_EXEC" $cmode --accept-narrower --log \
		--timeout=60 demo.plan -- sh -c 'touch "$1/build/ran"; cat "$1/srv/work/keys/release.key"' \
		sh "$W"
	check "with --accept-narrower: Landlock alone, the rows said narrower (--log)" \
		sh -c "test -e '$W/build/ran' && grep -q 'held narrower by Landlock alone, no path supervisor: .*row 0' err"
	check "... and the denied key stays unread" \
		sh -c "! grep -q SECRET-KEY out"
fi

# the host's listeners, each logging what reaches it
"$PY" net.py listen tcp tcp.port tcp.log </dev/null >/dev/null 2>&1 &
pids="$pids $!"
"$PY" net.py listen udp udp.port udp.log </dev/null >/dev/null 2>&1 &
pids="$pids $!"
"$PY" net.py listen abstract "vbox-ctr-$tag" abs.ready abs.log </dev/null >/dev/null 2>&1 &
pids="$pids $!"
if ! wait_for tcp.port || ! wait_for udp.port || ! wait_for abs.ready; then
	not_ok "the host's loopback listeners started"
	done_testing
fi
: >tcp.log
: >udp.log
: >abs.log
chmod 666 tcp.log udp.log abs.log
TP=$(cat tcp.port)
UP=$(cat udp.port)
ABS=vbox-ctr-$tag

cat >attack.sh <<'EOF'
n=$1 W=$2 PY=$3 NET=$4 TP=$5 UP=$6 ABS=$7 HP=$8 CTR_ENV=$9
cat "$W/home/.ssh/id_demo"
cat "$W/srv/work/keys/release.key"
ls "$W/home/.ssh"
echo "built-$n" >"$W/build/out-$n.txt" && echo "write-rw ok"
echo "pwned-$n" >>"$W/outside/existing" && echo "write-outside ok"
echo "pwned-$n" >"$W/outside/new-$n" && echo "create-outside ok"
echo "pwned-$n" >"$W/srv/work/keys/release.key" && echo "write-denied ok"
"$PY" "$NET" send tcp "$TP" "tcp-$n"
"$PY" "$NET" send udp "$UP" "udp-$n"
"$PY" "$NET" send dns "$UP" "dns-$n.exfil.example"
"$PY" "$NET" send abstract "$ABS" "abs-$n"
"$CTR_ENV" --uring
cat "/proc/$HP/environ"
"$PY" "$NET" open "/proc/$HP/mem"
kill -TERM "$HP" && echo "kill ok"
exit 0
EOF

# host_proc WHO - a host process of WHO's uid with a secret in its
# environment; its pid in $hp
host_proc() {
	# not through as_who: $! must be the process itself
	if [ "$1" != nobody ]; then
		env VBOX_CTR_SECRET="SECRET-ENV-$tag" sleep 600 </dev/null \
			>/dev/null 2>&1 &
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups -- \
			env VBOX_CTR_SECRET="SECRET-ENV-$tag" sleep 600 \
			</dev/null >/dev/null 2>&1 &
	fi
	hp=$!
	pids="$pids $hp"
	# until it is sleep, with its uid and the secret
	_i=0
	while ! tr '\0' '\n' <"/proc/$hp/environ" 2>/dev/null |
		grep -q "^VBOX_CTR_SECRET=" && [ "$_i" -lt 200 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
}

sum() {
	cksum "$W/outside/existing" "$W/srv/work/keys/release.key"
}

# The controls: each attack, as WHO, outside any sandbox, succeeds.
for who in $users; do
	host_proc "$who"
	n=ctl-$who
	run as_who "$who" timeout -s KILL 60 sh attack.sh "$n" "$W" "$PY" \
		"$NET" "$TP" "$UP" "$ABS" "$hp" "$CTR_ENV"
	sleep 0.3
	miss=
	grep -q "write-outside ok" out || miss="$miss write-outside"
	grep -q "write-denied ok" out || miss="$miss write-key"
	grep -q "SECRET-SSH-$tag" out || miss="$miss read-ssh"
	grep -q "SECRET-KEY-$tag" out || miss="$miss read-key"
	grep -q "tcp-$n" tcp.log || miss="$miss tcp"
	grep -q "udp-$n" udp.log || miss="$miss udp"
	grep -q "dns-$n" udp.log || miss="$miss dns"
	grep -q "abs-$n" abs.log || miss="$miss abstract"
	grep -q "io_uring_setup ok" out || miss="$miss io_uring"
	grep -q "SECRET-ENV-$tag" out || miss="$miss environ"
	grep -q "open ok" out || miss="$miss mem"
	grep -q "kill ok" out || miss="$miss kill"
	is "$miss" "" "control, $who: every attack succeeds outside a sandbox"
	printf 'SECRET-KEY-%s\n' "$tag" >"$W/srv/work/keys/release.key"
	printf 'host file\n' >"$W/outside/existing"
	rm -f "$W/outside/new-$n" "$W/build/out-$n.txt"
done
sum >sums.before

# demo_attacks COND WHO - the demo plan's run and the attacks in it
# (container mode holds its deny rows with the path supervisor)
demo_attacks() {
	_c=$1
	_w=$2
	n=$_c-$_w
	host_proc "$_w"
	run in_cond "$_c" "$_w" "$VBOX_EXEC" $cmode $narrower --timeout=60 \
		demo.plan -- \
		sh "$workdir/attack.sh" "$n" "$W" "$PY" "$NET" "$TP" "$UP" \
		"$ABS" "$hp" "$CTR_ENV"
	cp out "out.$n"
	cp err "err.$n"
	sleep 0.3
	_p="$_c, $_w:"
	if [ "$rc" = 0 ] &&
		[ "$(cat "$W/build/out-$n.txt" 2>/dev/null)" = "built-$n" ]; then
		ok "$_p the demo plan runs; its allowed write landed (host side)"
	else
		not_ok "$_p the demo plan runs (exit $rc)"
		sed 's/^/#   /' err | head -n 8
	fi
	sum >sums.after
	check "$_p writes outside the roots and to the denied key changed nothing (host side)" \
		sh -c "cmp -s sums.before sums.after && test ! -e '$W/outside/new-$n'"
	check "$_p denied reads showed no secret" \
		sh -c "! grep -q 'SECRET-SSH-\|SECRET-KEY-' out err"
	check "$_p direct TCP to a host loopback listener: nothing arrived" \
		sh -c "! grep -q 'tcp-$n' tcp.log"
	check "$_p UDP and DNS-shaped datagrams to a host listener: nothing arrived" \
		sh -c "! grep -q -e 'udp-$n' -e 'dns-$n' udp.log"
	check "$_p an abstract unix socket of the host: nothing arrived" \
		sh -c "! grep -q 'abs-$n' abs.log"
	check "$_p io_uring refused" \
		sh -c "grep -q '^io_uring_setup E' out"
	if [ -n "${unscoped:-}" ]; then
		ok "# SKIP $_p a signal to a host process: $unscoped"
	else
		check "$_p a signal to a host process of the same uid: it lives" \
			kill -0 "$hp"
	fi
	check "$_p /proc/PID/environ and /proc/PID/mem of that process: neither read" \
		sh -c "! grep -q 'SECRET-ENV-' out err && ! grep -q '^open ok' out"
	rm -f "$W/build/out-$n.txt"
}

# ---- the proxy and a loopback allow row ----------------------------------
P=
if command -v curl >/dev/null 2>&1 && [ -x "$TEST_PROXY" ] &&
	start_origin "$TEST_PROXY" 7; then
	pids="$pids $opid"
fi
if [ -n "$P" ]; then
	printf '@default write deny\n@default net deny\n[net]\nallow: localhost:%s\n' \
		"$P" >proxy.rules
	"$VBOXC" compile --target=linux --emit=plan -o proxy.plan proxy.rules
fi
cat >proxy.sh <<'EOF'
n=$1 P=$2 TP=$3
c() {
	curl -s -o /dev/null -w "%{http_code}" --max-time 10 "$@"
	echo " $?"
}
echo "via-proxy $(c --noproxy '' "http://127.0.0.1:$P/size/10")"
echo "via-proxy-refused $(c --noproxy '' "http://127.0.0.1:$TP/proxy-$n")"
echo "direct-allowed $(c --noproxy '*' "http://127.0.0.1:$P/size/10")"
echo "direct-refused $(c --noproxy '*' "http://127.0.0.1:$TP/direct-$n")"
echo "no-token $(c --noproxy '' -x "http://127.0.0.1:${HTTP_PROXY##*:}" \
	"http://127.0.0.1:$P/size/1")"
exit 0
EOF

proxy_attacks() {
	_c=$1
	_w=$2
	n=$_c-$_w
	_p="$_c, $_w:"
	if [ -z "$P" ]; then
		ok "# SKIP $_p the proxy: no curl, or no origin on loopback"
		return
	fi
	run in_cond "$_c" "$_w" "$VBOX_EXEC" $cmode --timeout=60 proxy.plan \
		-- sh "$workdir/proxy.sh" "$n" "$P" "$TP"
	cp out "pout.$n"
	cp err "perr.$n"
	sleep 0.3
	_got=$(tr '\n' ' ' <out | sed 's/ 0 / /g')
	is "$_got" \
		"via-proxy 200 via-proxy-refused 403 direct-allowed 200 direct-refused 000 7 no-token 407 " \
		"$_p an allowed origin through the proxy and directly; another port refused both ways; no token, no proxy"
	case $_got in
	"via-proxy 200 "*) ;;
	*) sed 's/^/#   /' err | head -n 8 ;;
	esac
	check "$_p ... nothing reached the refused port (host side)" \
		sh -c "! grep -q -e 'proxy-$n' -e 'direct-$n' tcp.log"
}

for cond in $cconds; do
	for who in $users; do
		demo_attacks "$cond" "$who"
		proxy_attacks "$cond" "$who"
	done
done

# ---- --mode=auto: container mode where ns cannot start, never silent ----
if [ -z "${VBOX_CTR_SELFCHECK:-}" ] && [ -z "${unscoped:-}" ]; then
	for who in $users; do
		rm -f m/ran
		run in_cond host "$who" "$VBOX_EXEC" --mode=auto --timeout=60 \
			m.plan -- touch "$workdir/m/ran"
		check "auto, $who, on the host: namespace mode, nothing said" \
			sh -c "test $rc = 0 -a -e m/ran && ! grep -q -- --mode=auto err"
		for cond in $conds; do
			rm -f m/ran
			run in_cond "$cond" "$who" "$VBOX_EXEC" --mode=auto \
				--timeout=60 m.plan -- touch "$workdir/m/ran"
			if [ "$rc" = 0 ] && [ -e m/ran ] &&
				grep -q '^vbox-exec: --mode=auto: .*; running in container mode' err; then
				ok "auto, $who, $cond: container mode runs the plan (host side) and says why"
			else
				not_ok "auto, $who, $cond: container mode runs the plan (host side) and says why (exit $rc)"
				sed 's/^/#   /' err | head -n 5
			fi
			rm -f "$W/build/ran"
			run in_cond "$cond" "$who" "$VBOX_EXEC" --mode=auto \
				--timeout=60 demo.plan -- touch "$W/build/ran"
			check "... and the demo plan, its deny rows held by the path supervisor (host side)" \
				sh -c "test $rc = 0 -a -e '$W/build/ran'"
		done
	done
fi

# ---- gVisor's answers: container mode cannot start, and says why -------
if [ -z "${VBOX_CTR_SELFCHECK:-}" ]; then
	for who in $users; do
		rm -f m/ran
		run in_cond gvisor "$who" "$VBOX_EXEC" $cmode --timeout=60 \
			m.plan -- touch "$workdir/m/ran"
		is "$rc" 125 "gvisor, $who, container mode: exit 125"
		check "... naming Landlock" grep -qi landlock err
		check "... the command did not run (host side)" test ! -e m/ran
	done
fi

# ---- below Landlock ABI 6 and 4: the build tree's test-only cap --------
# (VBOX_TEST_LANDLOCK_ABI, honoured by the build tree's vbox-exec only)
# ABI 5: signals unscoped, refused unless accepted; abstract sockets are
# then the supervisor's to refuse.  ABI 3: no TCP port rules either; the
# supervisor alone keeps direct TCP from the host's listener.
if [ -z "${VBOX_CTR_SELFCHECK:-}" ] && [ -z "${unscoped:-}" ]; then
	for abi in 5 3; do
		for who in $users; do
			rm -f m/ran
			run as_who "$who" env VBOX_TEST_LANDLOCK_ABI=$abi \
				timeout -s KILL 120 "$VBOX_EXEC" $cmode \
				--timeout=60 m.plan -- touch "$workdir/m/ran"
			is "$rc" 125 "ABI $abi, $who: container mode refuses unscoped signals by default"
			check "... naming the ABI and --accept-unscoped-signals; the command did not run" \
				sh -c "grep -q 'Landlock ABI $abi cannot scope signals.*--accept-unscoped-signals' err && test ! -e m/ran"
			n=abi$abi-$who
			run as_who "$who" env VBOX_TEST_LANDLOCK_ABI=$abi \
				timeout -s KILL 120 "$VBOX_EXEC" $cmode \
				--accept-unscoped-signals $narrower --timeout=60 \
				demo.plan -- sh -c '"$1" "$2" send tcp "$3" "tcp-$4"
"$1" "$2" send abstract "$5" "abs-$4"
echo "built-$4" >"$6/build/out-$4.txt"' sh \
				"$PY" "$NET" "$TP" "$n" "$ABS" "$W"
			sleep 0.3
			check "ABI $abi, $who, --accept-unscoped-signals: the demo plan runs; its allowed write landed" \
				test "$(cat "$W/build/out-$n.txt" 2>/dev/null)" = "built-$n"
			check "... direct TCP and an abstract socket of the host: nothing arrived" \
				sh -c "! grep -q 'tcp-$n' tcp.log && ! grep -q 'abs-$n' abs.log"
			rm -f "$W/build/out-$n.txt"
		done
	done
fi

# ---- the host's devices: a root-started child reads no disk -------------
# Container mode shows the host's (or the container's) own /dev, where a
# disk is root's to read without a capability; only the devices a program
# needs are opened there.  Judged against the same read outside.
disk=
for d in /dev/vda /dev/sda /dev/nvme0n1 /dev/xvda /dev/loop0; do
	[ -b "$d" ] && head -c 1 "$d" >/dev/null 2>&1 && { disk=$d; break; }
done
if [ -n "$disk" ] && [ "$(id -u)" = 0 ]; then
	run timeout -s KILL 60 "$VBOX_EXEC" $cmode m.plan -- \
		head -c 1 "$disk"
	check "root, container mode: the disk $disk cannot be read" \
		sh -c "test $rc -ne 0 && test ! -s out"
	run timeout -s KILL 60 "$VBOX_EXEC" $cmode m.plan -- \
		sh -c 'echo x >/dev/null && head -c 4 /dev/urandom | wc -c'
	is "$(cat out)" 4 "root, container mode: /dev/null and /dev/urandom still work"
else
	ok "# SKIP no block device readable here as root to try"
fi

done_testing
