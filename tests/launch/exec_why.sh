#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_why.sh - why something failed, said where the user looks
# (doc/proxy.md "What clients print", doc/launcher.md "Saying why"):
# the real curl, wget, git and npm inside the sandbox, against the proxy
# and a loopback origin, print the decision of a refusal as each can (the
# reason phrase, X-Vbox-Decision); vbox-exec prints one notice per
# distinct denial, bounded, off with --quiet; a failed command gets the
# vboxc explain hint; a directory as the command says so; a plan that
# cannot be used ends its error with the recompile step; the manual does
# not document VBOX_BWRAP as honoured.  As root and as uid 65534, judged
# from the host side.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"

page=$(cd "$top_srcdir" && pwd)/doc/man/vbox-exec.1
T=$(cd "${top_builddir:-.}" && pwd)/tests/proxy/test_proxy
cd "$workdir"

# ---- plans vbox-exec cannot use: the step that makes one -----------------
step="recompile it with this build's vboxc: vboxc compile --target=linux --emit=plan RULES -o"
printf '@default net deny\n' >small.rules
"$VBOXC" compile --target=linux --emit=plan -o good.plan small.rules 2>/dev/null
head -c 100 good.plan >cut.plan
run "$VBOX_EXEC" cut.plan -- true
is "$rc" 125 "a damaged plan: exit 125"
check "a damaged plan's error ends with the recompile step" \
	grep -q "^vbox-exec: cut.plan: truncated: .*; $step cut.plan\$" err
"$VBOXC" compile --target=darwin --emit=plan -o mac.plan small.rules 2>/dev/null
run "$VBOX_EXEC" mac.plan -- true
check "another platform's plan: the recompile step with --target=linux" \
	grep -q "plan is for darwin; this vbox-exec runs linux plans; $step mac.plan\$" err
run "$VBOX_EXEC" small.rules -- true
is "$(grep -c 'vboxc compile' err)" 1 "a rules file given as the plan: its own hint, once"
run "$VBOX_EXEC" missing.plan -- true
check "a missing plan: no recompile step" sh -c '! grep -q recompile err'

# ---- the manual and the code agree on VBOX_BWRAP -------------------------
if command -v groff >/dev/null 2>&1; then
	groff -man -Tascii -P-cbou -rLL=2000n -rHY=0 "$page" \
		2>/dev/null >page.txt || :
	check "vbox-exec.1 says VBOX_BWRAP is ignored" \
		sh -c "grep -A1 '^ *VBOX_BWRAP *\$' page.txt | grep -q '^ *Ignored'"
	check "vbox-exec.1 documents --quiet" grep -q -- '--quiet' page.txt
else
	ok "# SKIP groff not installed"
	ok "# SKIP groff not installed"
fi

require_launcher
for c in curl wget git; do
	command -v "$c" >/dev/null 2>&1 ||
		skip_all "$c not installed (build.sh installs it)"
done
set_users
[ -x "$T" ] || skip_all "no test_proxy binary at $T"

# an origin (HTTP on P, echo on P+1) on the host's loopback
start_origin "$T" 11 || :
[ -n "$P" ] || skip_all "cannot start an origin on loopback"
trap 'kill "$opid" 2>/dev/null; rm -rf "$workdir"' EXIT
Q=$((P + 1))

chmod 755 "$workdir"
cat >rules <<EOT
@default net deny
[net]
allow: localhost:$P
deny: blocked.example:443
EOT
"$VBOXC" compile --target=linux --emit=plan -o plan rules
chmod 644 plan
row="row 1 at rules:4:1"
phrase="vbox: denied by row 1 (rules:4:1)"

# inbox WHO RUNAS... -- ARGS: vbox-exec ARGS as WHO, bounded
inbox() {
	run timeout 120 "$@"
}

# shown WHO DESC FILE CMD... - ok when CMD succeeds, else FILE is shown:
# a launch that failed otherwise says why there
shown() {
	shown_what="$1: $2" shown_file=$3
	shift 3
	if "$@"; then
		ok "$shown_what"
	else
		not_ok "$shown_what"
		sed 's/^/#   /' "$shown_file" | head -n 20
	fi
}

# has WHO DESC FILE TEXT - FILE has the line TEXT exactly
has() {
	shown "$1" "$2" "$3" grep -qxF -- "$4" "$3"
}

# has_notice WHO DESC FILE TEXT - FILE has vbox-exec's notice TEXT, within
# a line: the proxy hands a denial to vbox-exec and never waits for it
# (vbox_proxy.c on_deny), so the notice can be written while the command
# is half-way through a line of its own on the same stderr
has_notice() {
	shown "$1" "$2" "$3" grep -qF -- "$4" "$3"
}

clients() {
	who=$1
	shift
	h=$workdir/home-${who#uid }
	mkdir -p "$h"
	chmod 777 "$h"

	# curl: CONNECT to a name a deny row refuses
	inbox "$@" "$VBOX_EXEC" plan -- curl -sS https://blocked.example/
	check "$who: curl fails" [ "$rc" != 0 ]
	has_notice "$who" "curl: the notice names the row" err \
		"vbox: denied CONNECT blocked.example:443 ($row)"
	check "$who: curl prints its own error (no reason for CONNECT)" \
		grep -q 'CONNECT tunnel failed, response 403' err
	inbox "$@" "$VBOX_EXEC" --quiet plan -- curl -v -sS https://blocked.example/
	tr -d '\r' <err >err.lf && mv err.lf err
	has "$who" "curl -v: the reason phrase names the row" err \
		"< HTTP/1.1 403 $phrase"
	has "$who" "curl -v: X-Vbox-Decision with row, level, source" err \
		'< X-Vbox-Decision: deny; row=1; level=0; source="rules:4:1"'
	check "$who: --quiet: no notice" sh -c '! grep -q "^vbox:" err'

	# curl: plain HTTP to a loopback port no row allows
	inbox "$@" "$VBOX_EXEC" plan -- curl -sS -i --noproxy '' \
		"http://127.0.0.1:$Q/"
	check "$who: plain HTTP: the status line names the default" \
		grep -q "^HTTP/1.1 403 vbox: denied by default (@default net deny)" out
	check "$who: plain HTTP: X-Vbox-Decision names the default" \
		grep -q '^X-Vbox-Decision: deny; row=default; posture="@default net deny"' out
	has_notice "$who" "plain HTTP: the notice" err \
		"vbox: denied GET 127.0.0.1:$Q (@default net deny)"
	# the proxy serves what a row allows (the same clients, a 200)
	inbox "$@" "$VBOX_EXEC" plan -- curl -sS -o /dev/null -w '%{http_code}' \
		--noproxy '' -p "http://localhost:$P/size/10"
	is "$(cat out):$(grep -c '^vbox:' err)" "200:0" \
		"$who: an allowed CONNECT to the loopback origin: 200, no notice"

	# wget prints the reason phrase for a CONNECT and for plain HTTP
	inbox "$@" "$VBOX_EXEC" plan -- wget -O /dev/null https://blocked.example/
	check "$who: wget: 'Proxy tunneling failed: $phrase'" \
		grep -q "^Proxy tunneling failed: $phrase" err
	inbox "$@" "$VBOX_EXEC" plan -- sh -c 'unset no_proxy NO_PROXY
		exec wget -O /dev/null "$1"' sh "http://127.0.0.1:$Q/"
	check "$who: wget: 'ERROR 403: vbox: denied by default ...'" \
		grep -q "ERROR 403: vbox: denied by default (@default net deny)" err

	# git (libcurl): the notice; the phrase with GIT_CURL_VERBOSE
	inbox "$@" "$VBOX_EXEC" -e HOME="$h" plan -- git ls-remote \
		https://blocked.example/r.git
	is "$rc" 128 "$who: git fails (128)"
	has_notice "$who" "git: the notice names the row" err \
		"vbox: denied CONNECT blocked.example:443 ($row)"
	inbox "$@" "$VBOX_EXEC" -e HOME="$h" -e GIT_CURL_VERBOSE=1 plan -- \
		git ls-remote https://blocked.example/r.git
	check "$who: git with GIT_CURL_VERBOSE: the reason phrase" \
		grep -q "Recv header: HTTP/1.1 403 $phrase" err

	# npm prints the reason phrase in its own error
	if command -v npm >/dev/null 2>&1; then
		inbox "$@" "$VBOX_EXEC" -e HOME="$h" plan -- npm view left-pad \
			--registry=https://blocked.example/ --cache="$h/npm" \
			--no-update-notifier --fetch-retries=0
		check "$who: npm fails" [ "$rc" != 0 ]
		check "$who: npm: '403 $phrase'" \
			grep -q "403 $phrase" err
		has_notice "$who" "npm: the notice names the row" err \
			"vbox: denied CONNECT blocked.example:443 ($row)"
	else
		ok "# SKIP npm not installed"
		ok "# SKIP npm not installed"
		ok "# SKIP npm not installed"
	fi

	# one notice per distinct decision
	inbox "$@" "$VBOX_EXEC" plan -- sh -c 'for i in 1 2 3; do
		curl -s https://blocked.example/; curl -s https://example.com/
	done; :'
	is "$(grep -c '^vbox: denied' err)" 2 \
		"$who: six denials, two distinct: two notices"
	has_notice "$who" "the default's notice" err \
		"vbox: denied CONNECT example.com:443 (@default net deny)"
	# bounded: 20 notices, then one line for the rest
	inbox "$@" "$VBOX_EXEC" plan -- sh -c 'i=0; while [ $i -lt 30 ]; do
		curl -s "https://h$i.example/"; i=$((i + 1)); done; :'
	is "$(grep -c '^vbox: denied CONNECT h[0-9]*\.example:443 (@default net deny)$' err)" 20 \
		"$who: 30 distinct denials: 20 notices"
	has_notice "$who" "... then how many more" err \
		"vbox: 10 more denials not shown (--log shows each)"
	# --log: a refused CONNECT is not followed by a reset line
	inbox "$@" "$VBOX_EXEC" --log plan -- curl -s https://example.com/
	check "$who: --log names the decision" \
		grep -q "CONNECT example.com:443: net example.com:443: deny by default" err
	check "$who: --log: no '(no request): connection reset' after it" \
		sh -c '! grep -q "no request" err'

	# a failed command: the explain hint, once; none on success
	inbox "$@" "$VBOX_EXEC" plan -- sh -c 'exit 3'
	is "$rc" 3 "$who: exit 3 passes through"
	is "$(grep -c '^vbox: exit status 3; .*vboxc explain /[^ ]*/plan --read=PATH (or --write=PATH)$' err)" 1 \
		"$who: a failed command: one hint naming vboxc explain PLAN"
	inbox "$@" "$VBOX_EXEC" --quiet plan -- sh -c 'exit 3'
	is "$rc:$(wc -c <err)" "3:0" "$who: --quiet: no hint"
	inbox "$@" "$VBOX_EXEC" plan -- sh -c 'kill -SEGV $$'
	is "$rc:$(grep -c '^vbox: exit status 139; ' err)" "139:1" \
		"$who: death by SIGSEGV: the hint"
	inbox "$@" "$VBOX_EXEC" plan -- sh -c 'kill -TERM $$'
	is "$rc:$(wc -c <err)" "143:0" \
		"$who: ended from outside (SIGTERM): no hint"
	inbox "$@" "$VBOX_EXEC" plan -- true
	is "$rc:$(wc -c <err)" "0:0" "$who: success: nothing on stderr"

	# a directory as the command
	inbox "$@" "$VBOX_EXEC" plan -- /tmp
	is "$rc:$(cat err)" "126:vbox-exec: /tmp: is a directory" \
		"$who: a directory: 'is a directory', 126, no hint"
}
each_user clients

done_testing
