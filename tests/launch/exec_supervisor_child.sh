#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_supervisor_child.sh - the launcher never dies of what the
# child chose, never lets it join a host service, and nothing sandboxed
# outlives it (issue 29, items 3 and 4; doc/launcher.md, "What
# continues", "Nothing outlives vbox-exec").  As root and as uid 65534,
# judged from the host:
#
#   - under supervised rows, a program a debugger traces cannot exec
#     (EPERM, said on stderr: its exec cannot be watched), an untraced
#     one can, and without supervised rows the traced one can too;
#   - bind() of a relative unix name of exactly 108 bytes without a NUL
#     (legal for the kernel) makes that socket and vbox-exec exits with
#     the child's status, in namespace mode with supervised rows, under
#     @default net open, and in container mode with and without
#     pidfd_getfd();
#   - 1100 threads in a blocking connect() to a listener that never
#     accepts: past the supervisor's bound the calls fail with ENOBUFS,
#     said once on stderr, and vbox-exec lives on;
#   - container mode: a socket with SO_REUSEPORT bound to the port a host
#     service of the same uid listens on cannot listen (EADDRINUSE), and
#     the host service gets every connection (outside a sandbox the same
#     script joins it: the control);
#   - container mode: vbox-exec killed with SIGKILL, or SIGABRT, while
#     the command runs a setsid job: no process of the tree is left and
#     the job writes no more; the command cannot signal the init that
#     guards the tree (EPERM);
#   - container mode: vbox-exec killed with SIGKILL while a process of
#     the tree takes long to die (it frees 3 GiB) and its child writes
#     ticks: the child, orphaned only after that exit, is ended too (the
#     guard's rounds once ran out in about 50 ms and left it running).

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY (the host's listener)"
ATTACK=${top_builddir:-.}/tests/launch/sup_attack
[ -x "$ATTACK" ] || skip_all "no $ATTACK"
CTR_ENV=${top_builddir:-.}/tests/launch/ctr_env
[ -x "$CTR_ENV" ] || skip_all "no $CTR_ENV"
CTR_ENV=$(cd "$(dirname "$CTR_ENV")" && pwd)/ctr_env
set_users
chmod 755 "$workdir"
cd "$workdir"
cp "$ATTACK" sup_attack
chmod 755 sup_attack
pids=
W=$workdir/w
# stop_jobs - end what the suite started in the background: $pids are
# the shells that run them (as_user is a function, so $! is a subshell
# and killing it left reuse.py's host service running after the suite:
# one root and one uid 65534 process from every run), so the host
# service is ended by its command line, which names this $W.
stop_jobs() {
	kill $pids 2>/dev/null || :
	pkill -f -- "reuse.py host $W/port" 2>/dev/null || :
	pids=
}
trap 'stop_jobs; rm -rf "$workdir"' EXIT
mkdir -p "$W"
chmod 1777 "$W"

# in_cond COND WHO CMD... - CMD under COND (ns, docker, docker-ptrace)
in_cond() {
	_c=$1
	_w=$2
	shift 2
	case $_c in
	docker) as_user "$_w" timeout -s KILL 120 "$CTR_ENV" --docker -- "$@" ;;
	docker-ptrace) as_user "$_w" timeout -s KILL 120 "$CTR_ENV" \
		--docker --ptrace -- "$@" ;;
	*) as_user "$_w" timeout -s KILL 120 "$@" ;;
	esac
}
mode_of() {
	case $1 in
	ns*) echo --mode=ns ;;
	*) echo --mode=container ;;
	esac
}

plan() { # NAME RULES...
	_n=$1
	shift
	printf '%s\n' "$@" >"$_n.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$_n.plan" \
		"$_n.rules" 2>/dev/null
}
plan deny '@default net deny' '@default write deny' "rw: $W/**"
plan open '@default net open' '@default write deny' "rw: $W/**"
plan sup '@default net deny' '@default write deny' "rw: $W/**" \
	'!deny: **/.env'

# ---- a 108-byte name ---------------------------------------------------
name108=$(printf '%0108d' 0 | tr 0 b)
for who in $users; do
	for c in ns-sup ns-open docker-ptrace docker; do
		case $c in
		ns-sup) p=sup.plan ;;
		ns-open) p=open.plan ;;
		*) p=deny.plan ;;
		esac
		rm -f "$W/$name108"
		run in_cond "${c%%-*}" "$who" "$VBOX_EXEC" "$(mode_of "$c")" \
			--timeout=60 "$p" -- "$workdir/sup_attack" bind108 "$W"
		if [ "$rc" = 7 ] && grep -qx "bind108 ok" out &&
			[ -S "$W/$name108" ]; then
			ok "bind108, $c, $who: the socket is made, vbox-exec" \
				"exits with the child's status"
		else
			not_ok "bind108, $c, $who: exit $rc, $(head -n 1 out)"
			sed 's/^/#   /' err | head -n 5
		fi
	done
done

# ---- a traced program's exec under supervised rows ---------------------
for who in $users; do
	run as_user "$who" timeout -s KILL 60 "$VBOX_EXEC" --timeout=60 \
		sup.plan -- "$workdir/sup_attack" traced-exec "$W"
	if grep -qx "traced-exec EPERM" out && grep -qx "untraced-exec ok" out &&
		grep -q "^vbox: refused exec in the sandbox .*traces it already" err; then
		ok "traced exec, $who: refused (EPERM, said on stderr); an untraced one runs"
	else
		not_ok "traced exec, $who: $(tr '\n' ' ' <out)"
		sed 's/^/#   /' err | head -n 5
	fi
	run as_user "$who" timeout -s KILL 60 "$VBOX_EXEC" --timeout=60 \
		deny.plan -- "$workdir/sup_attack" traced-exec "$W"
	check "traced exec, $who, no supervised rows: a debugger's exec runs" \
		grep -qx "traced-exec ok" out
done

# ---- more waiting calls than the bound -------------------------------------
for who in $users; do
	for c in ns docker-ptrace docker; do
		rm -f "$W/flood.sock"
		run in_cond "$c" "$who" "$VBOX_EXEC" "$(mode_of "$c")" \
			--timeout=60 deny.plan -- "$workdir/sup_attack" flood "$W"
		n=$(sed -n 's/^flood-enobufs //p' out)
		if [ "$rc" = 7 ] && [ "${n:-0}" -gt 0 ] &&
			grep -q "^vbox: 256 socket calls of the sandbox wait already; more fail with ENOBUFS$" err; then
			ok "flood, $c, $who: $n calls past the bound get ENOBUFS," \
				"said once; vbox-exec lives on"
		else
			not_ok "flood, $c, $who: exit $rc, flood-enobufs ${n:-?}"
			sed 's/^/#   /' err | head -n 5
		fi
	done
done

# ---- a host service's port (container mode) -----------------------------
cat >reuse.py <<'PYEOF'
import os, socket, sys, threading, time
mode = sys.argv[1]
if mode == "host":
    # listen with SO_REUSEPORT; count what is accepted; print the port
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    open(sys.argv[2] + ".tmp", "w").write(str(s.getsockname()[1]))
    os.rename(sys.argv[2] + ".tmp", sys.argv[2])
    log = open(sys.argv[3], "a", buffering=1)
    while True:
        c, _ = s.accept()
        log.write("accepted\n")
        c.close()
elif mode == "join":
    # the sandbox's side: join the port, accept for two seconds
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        s.bind(("127.0.0.1", int(sys.argv[2])))
        s.listen(64)
    except OSError as e:
        print("join", e.strerror)
        sys.exit(0)
    print("join ok", flush=True)
    open(sys.argv[3], "w").close()
    s.settimeout(0.2)
    got = 0
    end = time.time() + 3
    while time.time() < end:
        try:
            c, _ = s.accept()
            got += 1
            c.close()
        except socket.timeout:
            pass
    print("stolen", got)
else:
    # the host's client: 40 connections
    for i in range(40):
        c = socket.create_connection(("127.0.0.1", int(sys.argv[2])))
        c.close()
PYEOF

for who in $users; do
	rm -f "$W/port" "$W/joined"
	: >log
	chmod 666 log
	as_user "$who" "$PY" reuse.py host "$W/port" log </dev/null \
		>/dev/null 2>&1 &
	pids="$pids $!"
	wait_for "$W/port" || { not_ok "the host service started"; continue; }
	P=$(cat "$W/port")
	# the control: outside a sandbox the join works and steals
	as_user "$who" "$PY" reuse.py join "$P" "$W/joined" >ctl.out 2>&1 &
	j=$!
	wait_for "$W/joined" 60 && "$PY" reuse.py connect "$P"
	wait $j || :
	stolen=$(sed -n 's/^stolen //p' ctl.out)
	check "reuseport, control, $who: outside a sandbox a socket joins the host's port and takes some of its connections" \
		test "${stolen:-0}" -gt 0
	for c in docker-ptrace docker; do
		: >log
		rm -f "$W/joined"
		run in_cond "$c" "$who" "$VBOX_EXEC" --mode=container \
			--timeout=60 deny.plan -- "$PY" "$workdir/reuse.py" join \
			"$P" "$W/joined"
		"$PY" reuse.py connect "$P"
		sleep 0.2
		if grep -qx "join Address already in use" out &&
			[ "$(grep -c accepted log)" = 40 ]; then
			ok "reuseport, $c, $who: EADDRINUSE; the host service" \
				"got all 40 connections"
		else
			not_ok "reuseport, $c, $who: $(head -n 1 out)," \
				"$(grep -c accepted log) of 40 to the host"
			sed 's/^/#   /' err | head -n 5
		fi
	done
	stop_jobs
done

# ---- nothing outlives vbox-exec (container mode) ------------------------
tag=vbox-guard-$$
cat >job.sh <<EOF
#!/bin/sh
# a setsid job that writes a tick every 0.1 s; the command waits
setsid sh -c 'while :; do date +%s%N >"$W/tick-\$1"; sleep 0.1; done' \
	$tag "\$1" </dev/null >/dev/null 2>&1 &
kill -9 \$PPID 2>/dev/null && echo "guard killed" || echo "guard EPERM"
while :; do sleep 1; done
EOF
chmod 755 job.sh

# left TAG - processes of the tree still there (by the job's tag)
left() {
	pgrep -f -- "$tag" 2>/dev/null | wc -l
}

for who in $users; do
	for c in docker-ptrace docker; do
		for sig in KILL ABRT; do
			t=$c-$who-$sig
			rm -f "$W/tick-$t"
			in_cond "$c" "$who" "$VBOX_EXEC" --mode=container \
				deny.plan -- "$workdir/job.sh" "$t" \
				>"out.$t" 2>"err.$t" &
			vx=$!
			if ! wait_for "$W/tick-$t"; then
				not_ok "guard, $t: the job started"
				sed 's/^/#   /' "err.$t" | head -n 5
				continue
			fi
			sleep 0.3
			# vbox-exec itself (ctr_env and setpriv exec it)
			for p in $(pgrep -f -- "vbox-exec --mode=container deny.plan -- $workdir/job.sh $t"); do
				kill -"$sig" "$p" 2>/dev/null || :
			done
			wait "$vx" 2>/dev/null || :
			sleep 0.5
			a=$(cat "$W/tick-$t" 2>/dev/null)
			sleep 0.6
			b=$(cat "$W/tick-$t" 2>/dev/null)
			n=$(left)
			if [ "$a" = "$b" ] && [ "$n" = 0 ] &&
				grep -q "guard EPERM" "out.$t"; then
				ok "guard, $t: the command could not signal the" \
					"guard; after SIG$sig of vbox-exec no" \
					"process of the tree is left"
			else
				not_ok "guard, $t: ticks $a / $b, $n left," \
					"$(head -n 1 "out.$t")"
				pkill -KILL -f -- "$tag" 2>/dev/null || :
			fi
		done
	done
done

# ---- a process slow to die: its child is ended too -------------------------
# wait_for_ticks FILE - FILE holds two ticks (lines) or more (at most 20 s)
wait_for_ticks() {
	_i=0
	while [ "$(wc -l <"$1" 2>/dev/null || echo 0)" -lt 2 ] &&
		[ "$_i" -lt 400 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	[ "$(wc -l <"$1" 2>/dev/null || echo 0)" -ge 2 ]
}
# The exit of a process with 3 GiB of small pages takes 0.1 s or more
# (more on a busy machine); its child is orphaned, and killed by the
# guard, only after that.  Filling them took 0.5 s to 50 s on this
# virtual machine, so the wait for "ready" is long (2 minutes).
slow_mib=3072
for who in $users; do
	t=$tag-slow-$who
	rm -f "$W/tick-$t" "$W/ready-$t"
	in_cond docker "$who" "$VBOX_EXEC" --mode=container deny.plan -- \
		"$workdir/sup_attack" slow-exit "$W" "$t" "$slow_mib" \
		>"out.$t" 2>"err.$t" &
	vx=$!
	# ready, and ticking (the ticks are appended: judged by the size)
	if ! wait_for "$W/ready-$t" 2400 ||
		! wait_for_ticks "$W/tick-$t"; then
		not_ok "guard, slow exit, $who: the job started and ticks"
		sed 's/^/#   /' "err.$t" | head -n 5
		pkill -KILL -f -- "$t" 2>/dev/null || :
		wait "$vx" 2>/dev/null || :
		continue
	fi
	for p in $(pgrep -f -- "vbox-exec --mode=container deny.plan -- $workdir/sup_attack slow-exit $W $t"); do
		kill -KILL "$p" 2>/dev/null || :
	done
	wait "$vx" 2>/dev/null || :
	# the tree's end may take a few seconds on a busy machine: wait for
	# it (bounded), then judge
	i=0
	while [ "$(left)" != 0 ] && [ "$i" -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	a=$(wc -c <"$W/tick-$t")
	sleep 0.6
	b=$(wc -c <"$W/tick-$t")
	n=$(left)
	if [ "$a" = "$b" ] && [ "$n" = 0 ]; then
		ok "guard, slow exit, $who: after SIGKILL of vbox-exec, the" \
			"child of a process slow to die is ended too"
	else
		not_ok "guard, slow exit, $who: tick file $a / $b bytes," \
			"$n left"
		sed 's/^/#   /' "err.$t" | head -n 5
		pkill -KILL -f -- "$tag" 2>/dev/null || :
	fi
done

done_testing
