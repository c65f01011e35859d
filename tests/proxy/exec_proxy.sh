#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/proxy/exec_proxy.sh - vbox-exec's egress proxy bridged into the
# sandbox's network namespace (doc/proxy.md, "What the child sees
# (Linux)"), with the real bubblewrap and curl inside the sandbox: the
# variables (set last, not overridable, lower-case too), a loopback row
# forwarded at its own port and through the proxy (HTTP, CONNECT,
# SOCKS5h), a refusal with its 403 line and --log line, and that nothing
# reaches the host's network except through the proxy.  Origins are
# tests/proxy/test_proxy --origin on the host's loopback.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"

# preflight: every live network row lands in the proxy; a loopback row
# without a port is warned about (clients honouring NO_PROXY skip it)
printf '@default net deny\n[net]\nallow: example.com:443\nallow: localhost\ndeny: evil.example.com\n' \
	>"$workdir/pf.rules"
run "$VBOXC" preflight --target=linux --per-row "$workdir/pf.rules"
is "$rc" 0 "preflight of a table with proxy rows: exit 0"
is "$(grep -c "': proxy: " "$workdir/out")" 3 "preflight says proxy for every network row"
check "preflight warns on a loopback row without a port" \
	grep -q "pf.rules:4:1: warning: on linux, loopback row 'localhost:\*' without a port is served through the egress proxy only" "$workdir/err"
run "$VBOXC" preflight --target=linux -Werror "$workdir/pf.rules"
is "$rc" 1 "preflight -Werror fails on it"

require_launcher
command -v curl >/dev/null 2>&1 || skip_all "curl not found"
T=${top_builddir:-.}/tests/proxy/test_proxy
[ -x "$T" ] || skip_all "no test_proxy binary at $T"

cd "$workdir"
# an origin (HTTP on P, echo on P+1) on the host's loopback
start_origin "$T" 7 || :
[ -n "$P" ] || skip_all "cannot start an origin on loopback"
trap 'kill "$opid" 2>/dev/null; rm -rf "$workdir"' EXIT
Q=$((P + 1))

cat >rules <<EOT
@default net deny
[net]
allow: localhost:$P
EOT
"$VBOXC" compile --target=linux --emit=plan -o plan rules

run "$VBOX_EXEC" plan -- env
check "the command runs with the proxy" [ "$rc" = 0 ]
for v in HTTP_PROXY http_proxy HTTPS_PROXY https_proxy ALL_PROXY all_proxy \
	NO_PROXY no_proxy; do
	check "$v is set" grep -q "^$v=" out
done
check "HTTP_PROXY carries vbox:TOKEN in its user-info" \
	grep -Eq '^HTTP_PROXY=http://vbox:[A-Za-z0-9_-]{32}@127\.0\.0\.1:[0-9]+$' out
check "ALL_PROXY is socks5h:// with its own token" \
	grep -Eq '^all_proxy=socks5h://vbox:[A-Za-z0-9_-]{32}@127\.0\.0\.1:[0-9]+$' out
check "NO_PROXY names the loopback" \
	grep -q '^NO_PROXY=localhost,127.0.0.1,::1$' out
th=$(sed -n 's/^HTTP_PROXY=http:\/\/vbox:\([^@]*\)@.*/\1/p' out)
ts=$(sed -n 's/^ALL_PROXY=socks5h:\/\/vbox:\([^@]*\)@.*/\1/p' out)
check "the endpoints' tokens differ" [ -n "$th" ] && [ "$th" != "$ts" ]

run env HTTP_PROXY=http://127.0.0.1:9 "$VBOX_EXEC" -e HTTPS_PROXY=x \
	-e no_proxy=everything plan -- env
check "-e cannot override a proxy variable" \
	sh -c '! grep -q "^HTTPS_PROXY=x$" out && ! grep -q "^no_proxy=everything$" out'
check "the launcher's own HTTP_PROXY is not inherited" \
	sh -c '! grep -q "127.0.0.1:9$" out'
run "$VBOX_EXEC" --replace-env -e A=1 plan -- env
check "--replace-env keeps the proxy variables" grep -q '^ALL_PROXY=' out

# curl STYLE: run curl in the sandbox, print "CODE SIZE"
incurl() {
	run "$VBOX_EXEC" --log plan -- curl -s -o /dev/null \
		-w '%{http_code} %{size_download}' --max-time 20 "$@"
}
incurl "http://127.0.0.1:$P/size/100000"
is "$(cat out)" "200 100000" "the loopback row is forwarded at its own port (NO_PROXY honoured)"
check "--log names the row for the forward" \
	grep -q "forward localhost:$P: net localhost:$P: allow by row 0 (allow, level 0) at rules:3:1" err
incurl --noproxy '' "http://127.0.0.1:$P/size/100000"
is "$(cat out)" "200 100000" "through the proxy: absolute-form HTTP"
incurl --noproxy '' -p "http://localhost:$P/size/100000"
is "$(cat out)" "200 100000" "through the proxy: a CONNECT tunnel"
run "$VBOX_EXEC" plan -- sh -c 'curl -s -o /dev/null -w "%{http_code} %{size_download}" --noproxy "" -x "$ALL_PROXY" "$1"' sh "http://localhost:$P/size/1000"
is "$(cat out)" "200 1000" "through the proxy: SOCKS5 with the endpoint's credentials"
incurl --noproxy '' "http://127.0.0.1:$Q/"
is "$(cut -d' ' -f1 out)" "403" "a port no row allows: 403"
check "--log names the default that refused it" \
	grep -q "GET http://127.0.0.1:$Q/: net 127.0.0.1:$Q: deny by default (@default net deny)" err
incurl --noproxy '' -x "http://127.0.0.1:3128" "http://127.0.0.1:$P/size/1"
is "$(cut -d' ' -f1 out)" "407" "without credentials: 407"
incurl "http://127.0.0.1:$Q/"
check "a loopback port no row names is not reachable directly" \
	[ "$(cat out)" = "000 0" ]

# nothing reaches the host's network without the proxy
addr=$(ip -o -4 addr show scope global 2>/dev/null | awk '{print $4}' |
	cut -d/ -f1 | head -n 1)
if [ -n "$addr" ]; then
	incurl --noproxy '*' --connect-timeout 3 "http://$addr:$P/"
	check "the host's global address $addr is unreachable directly" \
		[ "$(cat out)" = "000 0" ]
else
	ok "# SKIP no global address on this host"
fi
run "$VBOX_EXEC" plan -- sh -c 'exec 3<>/dev/tcp/127.0.0.1/22' 2>/dev/null
check "no other host loopback port is reachable" [ "$rc" != 0 ]

# the same as an ordinary user (vbox-exec's proxy needs no privilege)
if [ "$(id -u)" = 0 ] && nobody_can_run; then
	chmod 755 "$workdir"
	chmod 644 plan
	run setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$VBOX_EXEC" plan -- sh -c 'id -u; curl -s -o /dev/null -w "%{http_code}\n" "$1"; curl -s -o /dev/null -w "%{http_code}\n" -p --noproxy "" "$1"' \
		sh "http://127.0.0.1:$P/size/1000"
	is "$(tr '\n' ' ' <out)" "65534 200 200 " \
		"as uid 65534: the forward and a CONNECT through the proxy"
else
	ok "as uid 65534 # SKIP ${nobody_why:-not root}: the ordinary-user run needs root and a build uid 65534 can use"
fi

# The proxy runs in its own process, vbox-proxy.  After a launch it is
# gone and reaped; while the command runs it is confined; killed from
# the host, its end is reported and the command's connections through it
# fail: nothing falls back to a direct path.  As root and as uid 65534,
# judged from the host side.
proxy_pid() {
	sed -n 's/.*served by .*vbox-proxy (host pid \([0-9]*\)).*/\1/p' "$1"
}
# Started by root, vbox-proxy runs as the system user vbox-proxy when
# /etc/passwd has it, else as uid and gid 65534; started by another
# user, as that user.
if pw=$(grep '^vbox-proxy:' /etc/passwd); then
	root_proxy_ids="$(echo "$pw" | cut -d: -f3) $(echo "$pw" | cut -d: -f4)"
	root_proxy_says="user vbox-proxy (uid ${root_proxy_ids% *}, gid ${root_proxy_ids#* })"
	echo "# this machine has the user vbox-proxy: root's vbox-proxy runs as it"
else
	root_proxy_ids="65534 65534"
	root_proxy_says="uid 65534, gid 65534 (no user vbox-proxy)"
	echo "# this machine has no user vbox-proxy: root's vbox-proxy runs as the fallback, 65534"
fi
# pfield NAME - the values of the line NAME: of pstatus, one space apart
pfield() {
	awk -v f="$1:" '$1 == f { $1 = ""; print substr($0, 2) }' pstatus
}
# What the host sees of the running vbox-proxy: its ids, capabilities,
# walls (/proc/PID/status) and environment (/proc/PID/environ: only
# what its resolvers read, none of the variables planted in vbox-exec's).
proxy_seen() {
	who=$1 pid=$2
	case $who in
	root) ids=$root_proxy_ids says=$root_proxy_says ;;
	nobody) ids="65534 65534" says="the caller's uid 65534" ;;
	*) ids="$(id -u) $(id -g)" says="the caller's uid $(id -u)" ;;
	esac
	u=${ids% *} g=${ids#* }
	cp "/proc/$pid/status" pstatus 2>/dev/null || : >pstatus
	is "$(pfield Uid)" "$u $u $u $u" "$who: vbox-proxy's uids (real, effective, saved, fs) are $u"
	is "$(pfield Gid)" "$g $g $g $g" "$who: its gids are $g"
	is "$(pfield Groups)" "" "$who: it has no supplementary group"
	for c in CapInh CapPrm CapEff CapAmb; do
		is "$(pfield "$c")" 0000000000000000 "$who: $c is empty"
	done
	if [ "$who" = root ]; then
		is "$(pfield CapBnd)" 0000000000000000 "$who: CapBnd is empty"
	else
		echo "# $who: CapBnd $(pfield CapBnd) (an unprivileged process cannot empty it)"
	fi
	is "$(pfield NoNewPrivs)" 1 "$who: NoNewPrivs is set"
	is "$(pfield Seccomp)" 2 "$who: it has a seccomp filter"
	check "$who: --log says whose uid it runs with: $says" \
		grep -qF "egress proxy: vbox-proxy confined: runs as $says, no capabilities" err
	if [ "$(id -u)" = 0 ]; then
		tr '\0' '\n' <"/proc/$pid/environ" >penv 2>/dev/null || : >penv
		check "$who: the host reads its environment: the resolver's RES_OPTIONS is there" \
			grep -qx 'RES_OPTIONS=timeout:2' penv
		check "$who: no AWS_SECRET_ACCESS_KEY in it" \
			sh -c '! grep -q AWS_SECRET_ACCESS_KEY penv'
		check "$who: nor any other variable of vbox-exec's" \
			sh -c '! grep -qvE "^(RES_OPTIONS|LOCALDOMAIN|ASAN_OPTIONS|UBSAN_OPTIONS|LSAN_OPTIONS)=" penv'
	else
		ok "# SKIP not root: vbox-proxy's environ is not readable (not dumpable)"
		ok "# SKIP as above"
		ok "# SKIP as above"
	fi
}
proxy_lifecycle() {
	who=$1
	run as_user "$who" timeout 60 "$VBOX_EXEC" --log plan -- true
	ppid_=$(proxy_pid err)
	check "$who: --log names vbox-proxy's pid" [ -n "$ppid_" ]
	check "$who: vbox-proxy is gone and reaped after the launch" \
		sh -c '[ -n "$1" ] && [ ! -e "/proc/$1" ]' sh "$ppid_"
	# (err still holds the first launch's log: its "sandbox init" line
	# must not be taken for this one's)
	rm -f go err
	as_user "$who" timeout 120 env AWS_SECRET_ACCESS_KEY=vbox-test-planted \
		VBOX_TEST_PLANTED=1 RES_OPTIONS=timeout:2 \
		"$VBOX_EXEC" --log plan -- sh -c 'i=0; while [ ! -e go ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; curl -s -o /dev/null -w "%{http_code}" --noproxy "" --max-time 10 "$1"; echo " curl $?"' \
		sh "http://127.0.0.1:$P/size/10" >out 2>err &
	vpid=$!
	i=0
	# the proxy serves before the init gets its setup: both are logged
	while ! grep -q "sandbox init is host pid" err && [ $i -lt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	ppid_=$(proxy_pid err)
	[ -n "$ppid_" ] || sed 's/^/# err: /' err
	proxy_seen "$who" "${ppid_:-0}"
	[ -n "$ppid_" ] && kill -9 "$ppid_"
	touch go
	rc=0
	wait "$vpid" || rc=$?
	is "$rc" 0 "$who: the command ran to its end without vbox-proxy"
	check "$who: a request through the killed proxy fails (no direct path)" \
		grep -Eq '^000 curl [1-9][0-9]*$' out
	check "$who: vbox-proxy's end is reported" \
		grep -q "the egress proxy (vbox-proxy) ended (signal 9) while the command ran" err
	check "$who: and it was reaped" \
		sh -c '[ -n "$1" ] && [ ! -e "/proc/$1" ]' sh "$ppid_"
}
# everything the unprivileged run needs must be reachable by it
chmod 755 "$workdir"
chmod 644 plan
set_users
for u in $users; do
	proxy_lifecycle "$u"
done

# vbox-proxy that cannot start says why on its control socket and exits
# (vbox-exec then ends the tree and refuses the launch, 125); run
# directly, without vbox-exec's descriptors, it says so on stderr.
PX=$(dirname "$VBOX_EXEC")/vbox-proxy
if [ -x "$PX" ]; then
	run "$PX"
	is "$rc" 1 "vbox-proxy without vbox-exec: exit 1"
	check "... saying why" grep -q "vbox-proxy is started by vbox-exec only" err
	printf 'VBPX\001\000not a configuration' >badconfig
	run /usr/bin/python3 -c '
import fcntl, os, socket, subprocess, sys
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
cfg = os.open(sys.argv[2], os.O_RDONLY | os.O_CLOEXEC)
def setup():
    # above every fd first, so neither dup2 clobbers the other source
    hb = fcntl.fcntl(b.fileno(), fcntl.F_DUPFD, 10)
    hc = fcntl.fcntl(cfg, fcntl.F_DUPFD, 10)
    os.dup2(hb, 3)
    os.dup2(hc, 4)
p = subprocess.Popen([sys.argv[1]], close_fds=False, preexec_fn=setup)
b.close()
os.close(cfg)
a.settimeout(10)
print(a.recv(1100).decode(errors="replace"))
print("exit", p.wait())
' "$PX" badconfig
	check "a damaged configuration: 'E' and the reason on the control socket" \
		grep -q "^Ecorrupt plan: proxy configuration" out
	check "... and exit status 1" grep -q "^exit 1$" out
else
	ok "# SKIP no vbox-proxy beside $VBOX_EXEC"
	ok "# SKIP as above"
	ok "# SKIP as above"
	ok "# SKIP as above"
fi

# A proxy that cannot start refuses the launch before the command runs:
# an upstream proxy whose name does not resolve (.invalid never does;
# RES_OPTIONS, which vbox-proxy's resolver reads, keeps it short).
printf '@default net deny\n@upstream-proxy http://vbox-test.invalid:3128\n[net]\nallow: example.com:443\n' >up.rules
"$VBOXC" compile --target=linux --emit=plan -o up.plan up.rules
rm -f ran
run env RES_OPTIONS='timeout:1 attempts:1' "$VBOX_EXEC" up.plan -- touch ran
is "$rc" 125 "an upstream proxy that does not resolve: the launch is refused (125)"
check "... saying the proxy cannot start, and why" \
	grep -q "the egress proxy cannot start: upstream proxy 'vbox-test.invalid'" err
check "... once (the tree vbox-exec ended is not reported as a failure)" \
	sh -c '! grep -q "bubblewrap failed" err'
check "the command did not run" [ ! -e ran ]

# An upstream that resolves names itself (http://, socks5h://) is warned
# about at every launch: SPEC 4's forbidden address classes cannot be
# applied to what it resolves (doc/proxy.md, "@upstream-proxy");
# socks5:// gets addresses judged here, and no warning.
for scheme in http socks5h socks5; do
	printf '@default net deny\n@upstream-proxy %s://127.0.0.1:%s\n[net]\nallow: example.com:443\n' \
		"$scheme" "$P" >upw.rules
	"$VBOXC" compile --target=linux --emit=plan -o upw.plan upw.rules
	run timeout 60 "$VBOX_EXEC" upw.plan -- true
	is "$rc" 0 "@upstream-proxy $scheme://: the launch runs"
	if [ "$scheme" = socks5 ]; then
		check "... with no warning about names" \
			sh -c '! grep -q "resolves names itself" err'
	else
		check "... warned: the $scheme:// upstream resolves names itself" \
			grep -q "vbox-proxy: warning: the $scheme:// @upstream-proxy resolves names itself: a name row reaches whatever address it resolves" err
	fi
done

# a loopback row below 1024: the sandbox may not listen there, so it is
# served through the proxy only, and the launch still works
printf '@default net deny\n[net]\nallow: localhost:80\n' >low.rules
"$VBOXC" compile --target=linux --emit=plan -o low.plan low.rules
run "$VBOX_EXEC" --log low.plan -- sh -c 'echo "$HTTP_PROXY"'
is "$rc" 0 "a loopback row for port 80 does not stop the launch"
check "--log says port 80 is served through the proxy" \
	grep -q "loopback port 80 is below 1024" err

done_testing
