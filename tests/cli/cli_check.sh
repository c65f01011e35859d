#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/cli_check.sh - the `vboxc check` contract (doc/rules.md §9
# "Diagnostics", §11 "Exit statuses"): exit
# statuses, option forms, text diagnostics and the JSON report.

. "${srcdir:-$(dirname "$0")/../..}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"

cd "$workdir"

# jq_e FILTER FILE - jq -e without its output
jq_e() {
	jq -e "$@" >/dev/null
}

# has FILE FIXED-STRING DESC
has() {
	if grep -qF -- "$2" "$1"; then
		ok "$3"
	else
		not_ok "$3"
		sed 's/^/#   /' "$1"
	fi
}

# empty FILE DESC
empty() {
	if [ ! -s "$1" ]; then
		ok "$2"
	else
		not_ok "$2"
		sed 's/^/#   /' "$1"
	fi
}

cat >good.rules <<'EOF'
# a valid table without shadowed rows
!deny:/srv/work/secret
rw:/srv/work/**
allow:example.com:443
@default write deny
EOF

cat >shadow.rules <<'EOF'
rw:/srv/work/**
deny:/srv/work/secret
allow:*.example.com
deny:evil.example.com:443
EOF

cat >bad.rules <<'EOF'
rw:/srv/work/**
@defualt write deny
EOF

# --- program-level options --------------------------------------------------
run "$VBOXC" --version
is "$rc" 0 "--version exits 0"
check "--version prints 'vboxc (vbox) VERSION'" \
	grep -Eq '^vboxc \(vbox\) [0-9]+\.[0-9]+' out

run "$VBOXC" --help
is "$rc" 0 "--help exits 0"
check "--help matches golden" golden_compare cli_help.out out

run "$VBOXC" check --help
is "$rc" 0 "check --help exits 0"
check "check --help matches golden" golden_compare cli_check_help.out out
cp out check_help.out

run "$VBOXC" help check
is "$rc" 0 "help check exits 0"
check "help check prints the same text as check --help" \
	cmp -s out check_help.out

run "$VBOXC"
is "$rc" 2 "no command is a usage error"
run "$VBOXC" frobnicate good.rules
is "$rc" 2 "unknown command is a usage error"
has err "unknown command 'frobnicate'" "unknown command is named"
run "$VBOXC" help frobnicate
is "$rc" 2 "help for an unknown command is a usage error"

# compile and preflight are tested in tests/cli/compile.sh.

# --- exit statuses ----------------------------------------------------------
run "$VBOXC" check good.rules
is "$rc" 0 "valid rules: exit 0"
empty out "valid rules: nothing on stdout"
empty err "valid rules: nothing on stderr"

run "$VBOXC" check
is "$rc" 2 "missing RULES: exit 2"
has err "missing RULES" "missing RULES is named"

run "$VBOXC" check --bogus good.rules
is "$rc" 2 "unknown option: exit 2"
has err "unknown option '--bogus'" "unknown option is named"

run "$VBOXC" check --read=/x good.rules
is "$rc" 2 "explain-only option refused by check"

run "$VBOXC" check --target=plan9 good.rules
is "$rc" 2 "bad --target: exit 2"
has err "unknown target 'plan9'" "bad --target is named"

run "$VBOXC" check --format=yaml good.rules
is "$rc" 2 "bad --format: exit 2"

run "$VBOXC" check --target
is "$rc" 2 "--target without a value: exit 2"

run "$VBOXC" check -D NOEQUALS good.rules
is "$rc" 2 "-D without '=': exit 2"
run "$VBOXC" check -D =value good.rules
is "$rc" 2 "-D with an empty NAME: exit 2"

run "$VBOXC" check missing.rules
is "$rc" 1 "unreadable RULES: exit 1"

run "$VBOXC" check bad.rules
is "$rc" 1 "invalid rules: exit 1"
empty out "invalid rules: nothing on stdout"
check "caret diagnostic matches golden" golden_compare cli_check_bad.err err
check "diagnostic has FILE:LINE:COL: error:" \
	grep -Eq '^bad\.rules:2:[0-9]+: error: ' err
check "diagnostic shows the source line" grep -qxF '@defualt write deny' err
check "diagnostic has a caret line" grep -Eq '^ *\^~*$' err

# --- warnings and -Werror ---------------------------------------------------
run "$VBOXC" check shadow.rules
is "$rc" 0 "shadowed rows are warnings: exit 0"
check "text warning has FILE:LINE:COL: warning:" \
	grep -Eq '^shadow\.rules:2:[0-9]+: warning: ' err
check "net warning at line 4" grep -Eq '^shadow\.rules:4:[0-9]+: warning: ' err
empty out "warnings: nothing on stdout"

run "$VBOXC" check -Werror shadow.rules
is "$rc" 1 "-Werror makes a warning fail"
has err "treated as error" "-Werror says why it failed"

run "$VBOXC" check shadow.rules -Werror
is "$rc" 1 "-Werror after RULES works too"

run "$VBOXC" check --Werror shadow.rules
is "$rc" 1 "--Werror is accepted as well"

run "$VBOXC" check -Werror good.rules
is "$rc" 0 "-Werror without warnings: exit 0"

# "--" ends options: a file named -Werror is a rule file, not the option.
cp shadow.rules ./-Werror
run "$VBOXC" check -- -Werror
is "$rc" 0 "'-- -Werror' names a file"
check "the file was read" grep -Eq '^-Werror:2:[0-9]+: warning: ' err

run "$VBOXC" check -- --help
is "$rc" 1 "'-- --help' names a (missing) file"

# --- option value forms -----------------------------------------------------
run "$VBOXC" check --target linux good.rules
is "$rc" 0 "--target VALUE"
run "$VBOXC" check --target=linux good.rules
is "$rc" 0 "--target=VALUE"

printf 'rw:$PROJ/**\n' >var.rules
run env -u PROJ "$VBOXC" check var.rules
is "$rc" 1 "undefined variable: exit 1"
run env -u PROJ "$VBOXC" check -D PROJ=/srv/p var.rules
is "$rc" 0 "-D NAME=VALUE"
run env -u PROJ "$VBOXC" check -DPROJ=/srv/p var.rules
is "$rc" 0 "-DNAME=VALUE"
run env -u PROJ "$VBOXC" check --define PROJ=/srv/p var.rules
is "$rc" 0 "--define NAME=VALUE"
run env -u PROJ "$VBOXC" check --define=PROJ=/srv/p var.rules
is "$rc" 0 "--define=NAME=VALUE"
run env PROJ=/srv/env "$VBOXC" check var.rules
is "$rc" 0 "variable from the environment"

# --- standard input ---------------------------------------------------------
rc=0
"$VBOXC" check - <good.rules >out 2>err || rc=$?
is "$rc" 0 "'-' reads the rules from standard input"
rc=0
"$VBOXC" check - <bad.rules >out 2>err || rc=$?
is "$rc" 1 "invalid rules on standard input: exit 1"
check "stdin diagnostics name <stdin>" grep -Eq '^<stdin>:2:[0-9]+: error: ' err
rc=0
"$VBOXC" check - - <good.rules >out 2>err || rc=$?
is "$rc" 2 "standard input twice: exit 2"

# --- JSON -------------------------------------------------------------------
run "$VBOXC" check --format=json good.rules
is "$rc" 0 "json, valid rules: exit 0"
is "$(cat out)" '{"errors":[],"warnings":[]}' "json, valid rules: empty report"
empty err "json: nothing on stderr"
is "$(wc -l <out | tr -d ' ')" 1 "json: one line"

run "$VBOXC" check --format json shadow.rules
is "$rc" 0 "json, warnings: exit 0 (--format VALUE)"
empty err "json, warnings: nothing on stderr"
w1=$(sed -n 's/.*"warnings":\[\({[^}]*}\).*/\1/p' out)
check "json warning members in order" sh -c \
	'printf "%s\n" "$1" | grep -Eq "^\{\"kind\":\"[a-z]+\",\"row\":[0-9]+,\"domain\":\"(fs|net)\",\"by\":[0-9]+,\"source\":\"[^\"]*\",\"message\":\"[^\"]*\"\}$"' \
	sh "$w1"
check "fs row 1 is ineffective, covered by row 0" grep -qF \
	'{"kind":"ineffective","row":1,"domain":"fs","by":0,"source":"shadow.rules:2:' out
check "net row 1 is dead, covered by row 0" grep -qF \
	'{"kind":"dead","row":1,"domain":"net","by":0,"source":"shadow.rules:4:' out
check "json report ends in a newline" sh -c '[ "$(tail -c 1 out | od -An -c | tr -d " ")" = "\n" ]'

run "$VBOXC" check --format=json -Werror shadow.rules
is "$rc" 1 "json, -Werror: exit 1"
check "json, -Werror: warnings stay warnings" grep -qF '"errors":[],"warnings":[{' out
empty err "json, -Werror: nothing on stderr"

run "$VBOXC" check --format=json bad.rules
is "$rc" 1 "json, invalid rules: exit 1"
empty err "json, invalid rules: nothing on stderr"
check "json error has source and message" grep -Eq \
	'^\{"errors":\[\{"source":"bad\.rules:2:[0-9]+","message":"[^"]+"\}' out
check "json error report has an empty warnings array" grep -qF \
	'],"warnings":[]}' out

if command -v jq >/dev/null 2>&1; then
	run "$VBOXC" check --format=json shadow.rules
	check "jq parses the report" jq_e '.warnings | length == 2' out
else
	ok "# SKIP jq not installed"
fi

# --- check --target: the emitter's table check -----------------------------
# A loopback allow row with any port, under @default net deny, reaches the
# child on linux only through the egress proxy, which clients honouring
# NO_PROXY skip for loopback: compile and preflight warn from the linux
# emitter's table check, and check --target=linux gives the same warning
# (doc/targets.md, linux "Network"), in every format, counted by -Werror.
lo_warning='without a port is served through the egress proxy only'
for lo in '127.0.0.1:*' localhost '[::1]'; do
	printf '@default net deny\nallow:%s\n' "$lo" >lo.rules

	run "$VBOXC" check --target=linux lo.rules
	is "$rc" 0 "check --target=linux, allow:$lo: exit 0"
	has err "lo.rules:2:1: warning: on linux, loopback row" \
		"check --target=linux, allow:$lo: a warning at the row"
	has err "$lo_warning" "check --target=linux, allow:$lo: says why"
	grep ': warning: ' err >check_warning.out

	"$VBOXC" compile --target=linux -o lo.bwrap lo.rules 2>err || :
	grep ': warning: ' err >compile_warning.out
	check "check --target=linux, allow:$lo: compile's warning, word for word" \
		cmp -s check_warning.out compile_warning.out

	run "$VBOXC" check --target=linux -Werror lo.rules
	is "$rc" 1 "check --target=linux -Werror, allow:$lo: exit 1"
	has err "1 warning treated as error (-Werror)" \
		"check --target=linux -Werror, allow:$lo: says why it fails"

	run "$VBOXC" check --target=linux --format=json lo.rules
	is "$rc" 0 "json, allow:$lo: exit 0"
	empty err "json, allow:$lo: nothing on stderr"
	has out '"warnings":[{"kind":"target","target":"linux","source":"lo.rules:2:1","message":"on linux, loopback row' \
		"json, allow:$lo: the warning, of kind target"
	run "$VBOXC" check --target=linux --format=json -Werror lo.rules
	is "$rc" 1 "json -Werror, allow:$lo: exit 1"

	run "$VBOXC" check --target=linux --format=sarif lo.rules
	is "$rc" 0 "sarif, allow:$lo: exit 0"
	if command -v jq >/dev/null 2>&1; then
		check "sarif, allow:$lo: a warning result at line 2" jq_e \
			'[.runs[0].results[] | select(.level == "warning" and
			  (.message.text | contains("loopback row")) and
			  .locations[0].physicalLocation.region.startLine == 2)]
			 | length == 1' out
	else
		has out '"ruleId": "warning"' "sarif, allow:$lo: a warning result"
	fi
	run "$VBOXC" check --target=linux --format=sarif -Werror lo.rules
	is "$rc" 1 "sarif -Werror, allow:$lo: exit 1"
done

# Not for a row with a port, not without --target, not on darwin.
printf '@default net deny\nallow:127.0.0.1:8080\n' >lo_port.rules
run "$VBOXC" check --target=linux -Werror lo_port.rules
is "$rc" 0 "loopback row with a port: no warning, exit 0 under -Werror"
empty err "loopback row with a port: nothing on stderr"
printf '@default net deny\nallow:127.0.0.1:*\n' >lo.rules
run "$VBOXC" check -Werror lo.rules
is "$rc" 0 "check without --target: no target warning"
run "$VBOXC" check --target=darwin -Werror lo.rules
is "$rc" 0 "check --target=darwin: no linux warning"
empty err "check --target=darwin: nothing on stderr"

# --- output errors ----------------------------------------------------------
if [ -w /dev/full ]; then
	rc=0
	"$VBOXC" check --format=json good.rules >/dev/full 2>err || rc=$?
	is "$rc" 1 "a write error on stdout: exit 1"
	has err "error writing standard output" "the write error is reported"
else
	ok "# SKIP no /dev/full"
	ok "# SKIP no /dev/full"
fi

done_testing
