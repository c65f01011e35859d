#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/cli_hints.sh - the messages a new user meets in the first hour:
# deny rows read as hosts, partly overridden rows, what compile would
# refuse, did-you-mean for every word, target and expansion hints, "any
# port", the empty table, and the input limits.  Each test pins the key
# words of one message.

. "${srcdir:-$(dirname "$0")/../..}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"

cd "$workdir"

# has FILE FIXED-STRING DESC
has() {
	if grep -qF -- "$2" "$1"; then
		ok "$3"
	else
		not_ok "$3"
		sed 's/^/#   /' "$1"
	fi
}

# lacks FILE FIXED-STRING DESC
lacks() {
	if grep -qF -- "$2" "$1"; then
		not_ok "$3"
		sed 's/^/#   /' "$1"
	else
		ok "$3"
	fi
}

# jq_is FILTER FILE DESC - jq -e FILTER holds on FILE (build.sh installs
# jq; without it these checks are skipped, saying so)
jq_is() {
	if ! command -v jq >/dev/null 2>&1; then
		ok "$3 # SKIP jq is not installed"
	elif jq -e "$1" "$2" >/dev/null; then
		ok "$3"
	else
		not_ok "$3"
		sed 's/^/#   /' "$2"
	fi
}

# --- a deny row read as a host ----------------------------------------------
printf 'rw:/srv/work/**\ndeny: id_rsa\n!deny:node_modules\n' >host.rules
run "$VBOXC" check --target=linux host.rules
is "$rc" 0 "deny:id_rsa: check still exits 0 (a warning)"
has err "host.rules:2:7: warning: deny target 'id_rsa' is read as the network host 'id_rsa', not a file" \
	"deny:id_rsa: warning names the host reading"
has err "to deny a file write '/...', '~/...' or '**/id_rsa'" \
	"deny:id_rsa: warning says how to write the file row"
has err "deny target 'node_modules' is read as the network host" \
	"!deny:node_modules warns too"
run "$VBOXC" check -Werror --target=linux host.rules
is "$rc" 1 "the host warning fails -Werror"
run "$VBOXC" check --format=json --target=linux host.rules
jq_is '[.warnings[] | select(.kind == "deny-host")] | length == 2 and
	.[0].row == 0 and .[0].domain == "net"' out \
	"JSON: the warning is a 'deny-host' warning with its row"
printf 'deny:localhost\ndeny:example.com\n[net]\ndeny:intranet\n' >hosts.rules
run "$VBOXC" check --target=linux hosts.rules
is "$rc" 0 "real hosts: exit 0"
lacks err "read as the network host" \
	"no warning for localhost, a dotted name, or a host in [net]"
printf 'deny:.env\n' >dot.rules
run "$VBOXC" check --target=linux dot.rules
is "$rc" 1 "deny:.env is an error"
has err "dot.rules:1:6: error: '.env' is not a host name (it starts with '.')" \
	"deny:.env: the error says why"
has err "or '**/.env'" "deny:.env: the error says how to write the file row"
lacks err "empty label" "deny:.env: no 'empty label'"

# --- partial shadowing -------------------------------------------------------
printf 'rw:/proj/**\ndeny:**/.env\n' >partial.rules
run "$VBOXC" check -Werror --target=darwin partial.rules
is "$rc" 0 "partial: a note never fails -Werror"
has err "partial.rules:2:1: note: row 1 'deny:**/.env' is partly overridden: higher-priority rw row 0 'rw:/proj/**' decides part of what it matches, e.g. /proj/.env" \
	"partial: the note names the row, the overriding row and an example"
has err "partial.rules:1:1: note: row 0 is here" \
	"partial: a second note points at the overriding row"
run "$VBOXC" check --format=json --target=darwin partial.rules
jq_is '.warnings == [] and (.notes | length == 1) and
	.notes[0].kind == "partial" and .notes[0].row == 1 and
	.notes[0].by == 0 and .notes[0].example == "/proj/.env" and
	.notes[0].domain == "fs"' out \
	"partial: JSON note with kind, row, by and example"
printf '!deny:**/.env\nrw:/proj/**\n' >hole.rules
run "$VBOXC" check --target=darwin hole.rules
lacks err "partly overridden" "an intended hole (deny above rw) is no note"
printf 'allow:*.example.com:443\ndeny:evil.example.com\n' >netp.rules
run "$VBOXC" check --format=json --target=darwin netp.rules
jq_is '.notes[0].kind == "partial" and .notes[0].domain == "net" and
	.notes[0].example == "evil.example.com:443"' out \
	"partial: network rows, with a host:port example"

# --- check --target: what compile would refuse -------------------------------
# A supervised ro row over what a lower row's mount hides (doc/targets.md).
printf '!ro:/proj/**/hooks/**\nrw:/proj/**\n!deny:/proj/keys\n' >refuse.rules
run "$VBOXC" check --target=linux refuse.rules
is "$rc" 0 "check --target=linux: still exit 0"
has err "refuse.rules:1:1: note: 'vboxc compile --target=linux' would refuse this: row 0 '!ro:/proj/**/hooks/**' is unsupported on linux: a supervised read-only row cannot show what the mounts of row 2 hide" \
	"check --target=linux notes the ro glob over a lower deny"
run "$VBOXC" compile --target=linux refuse.rules
is "$rc" 1 "... and compile does refuse it"
run "$VBOXC" check --format=json --target=linux refuse.rules
jq_is '[.notes[] | select(.kind == "unsupported")] | length == 1 and
	.[0].target == "linux"' out "JSON: an 'unsupported' note with the target"
run "$VBOXC" check refuse.rules
lacks err "would refuse" "without --target, no target notes"
# No row bound: the classifiers are near-linear (bench/README.md), so a
# large table gets the notes too, here for its last row.
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "ro:/srv/r%d\n", i
	     print "!ro:/proj/**/hooks/**"; print "rw:/proj/**"
	     print "!deny:/proj/keys" }' >many.rules
run "$VBOXC" check --target=linux many.rules
is "$rc" 0 "a 5,003-row table: check --target=linux exits 0"
has err "many.rules:5001:1: note: 'vboxc compile --target=linux' would refuse this: row 5000 '!ro:/proj/**/hooks/**' is unsupported on linux:" \
	"a 5,003-row table: its refused row is still noted"
lacks err "not checked" "a 5,003-row table: nothing is skipped"

# --- did you mean ------------------------------------------------------------
printf 'dney:/x\n[fss]\n@defualt write deny\n@default wirte deny\n@default write rww\n@default net opn\n' >typo.rules
run "$VBOXC" check --target=linux typo.rules
has err "unknown effect 'dney'; did you mean 'deny'?" "dney: did you mean deny"
has err "unknown section header '[fss]'; did you mean '[fs]'?" \
	"[fss]: did you mean [fs]"
has err "unknown directive '@defualt'; did you mean '@default'?" \
	"@defualt: did you mean @default"
has err "unknown '@default' setting 'wirte': expected 'write', 'net' or 'tmp'; did you mean 'write'?" \
	"@default wirte: did you mean write"
has err "invalid value 'rww' for '@default write': expected 'deny' or 'rw'; did you mean 'rw'?" \
	"@default write rww: did you mean rw"
has err "invalid value 'opn' for '@default net': expected 'deny' or 'open'; did you mean 'open'?" \
	"@default net opn: did you mean open"
: >empty.rules
for pair in target=macos:darwin target=osx:darwin target=linx:linux \
	target=win:windows format=jsn:json; do
	opt=${pair%%:*}
	want=${pair#*:}
	run "$VBOXC" check "--$opt" empty.rules
	is "$rc" 2 "--$opt: usage error"
	has err "; did you mean '$want'?" "--$opt: did you mean '$want'"
done
run "$VBOXC" compile --emit=plna empty.rules
has err "unknown emit mode 'plna' (expected profile|plan|ir|table); did you mean 'plan'?" \
	"--emit=plna: did you mean plan"
run "$VBOXC" check --taget=linux empty.rules
has err "unknown option '--taget'; did you mean '--target'?" \
	"--taget: did you mean --target"
# Single-dash misspellings: the whole word is named, with the option it
# probably means, one-dash (-Werror) or long (--target); "-W" alone would
# be all getopt says.  Nothing is run.
for pair in check:-Werrror:-Werror check:-Wrror:-Werror check:-werror:-Werror \
	check:-WError:-Werror compile:-Werro:-Werror \
	check:-tagret=linux:--target check:-target=linux:--target \
	check:-formt=json:--format compile:-emit=ir:--emit \
	explain:-raed=/etc:--read; do
	cmd=${pair%%:*}
	rest=${pair#*:}
	typo=${rest%:*}
	want=${rest##*:}
	run "$VBOXC" "$cmd" "$typo" empty.rules
	is "$rc" 2 "$cmd $typo: usage error"
	has err "vboxc: unknown option '${typo%%=*}'; did you mean '$want'?" \
		"$cmd $typo: did you mean $want"
	check "$cmd $typo: nothing on stdout" test ! -s out
done
run "$VBOXC" check -Werror=yes empty.rules
is "$rc" 2 "-Werror=yes: usage error"
has err "vboxc: option '-Werror' takes no argument" \
	"-Werror=yes: the option takes no argument"
# In order with the other options, and never in an option's value or
# after "--".
run "$VBOXC" check --taget=linux -Werrror empty.rules
has err "unknown option '--taget'" "the first bad option is reported first"
run "$VBOXC" check -Werrror --taget=linux empty.rules
has err "unknown option '-Werrror'; did you mean '-Werror'?" \
	"... whichever it is"
run "$VBOXC" check -D -Werrror empty.rules
has err "invalid definition '-Werrror'" "a -D value is not an option"
run "$VBOXC" check -- -Werrror
has err "cannot read '-Werrror'" "after --, -Werrror is a file name"
# A word near no option keeps getopt's report.
run "$VBOXC" check -Wxyz empty.rules
is "$rc" 2 "-Wxyz: usage error"
has err "vboxc: unknown option '-W'" "-Wxyz: near nothing, '-W' is named"
printf 'raed /etc/passwd\n' >typo.queries
run "$VBOXC" explain --queries=typo.queries empty.rules
has out "did you mean 'read'?" "query 'raed': did you mean read"

# --- target and expansion hints -----------------------------------------------
printf 'rw:C:\\work\\**\n' >drive.rules
run "$VBOXC" check --target=linux drive.rules
has err "a drive path is a windows pattern: compile it with --target=windows" \
	"a drive path on linux points at --target=windows"
printf 'deny:~/.ssh\n' >tilde.rules
run env HOME=/home/u "$VBOXC" check --target=windows tilde.rules
has err "'~' became the home directory '/home/u', a POSIX path: for windows give it with -D HOME=" \
	"windows: '~' from a POSIX HOME suggests -D HOME="
printf 'rw:$CI_CACHE/**\n' >empty_var.rules
run "$VBOXC" check --target=linux -D CI_CACHE= empty_var.rules
has err "undefined variable '\$CI_CACHE': it was set empty with '-D CI_CACHE='" \
	"-D CI_CACHE= says it was set empty"
run env CI_CACHE= "$VBOXC" check --target=linux empty_var.rules
has err "it is set empty in the environment" \
	"an empty environment variable says so"

# --- explain: any port ----------------------------------------------------------
printf 'allow:github.com:443\n' >port.rules
run "$VBOXC" explain --target=linux --net=github.com --net=github.com:443 \
	port.rules
has out "net github.com (as github.com:*): allow by row 0 (allow, level 0) at port.rules:1:1; any port was asked: the row decides port 443 only" \
	"explain --net=HOST: says any port was asked"
if [ "$(grep -c 'any port' out)" -eq 1 ]; then
	ok "explain --net=HOST:443: no any-port remark"
else
	not_ok "explain --net=HOST:443: no any-port remark"
fi
run "$VBOXC" explain --format=json --target=linux --net=github.com port.rules
jq_is '.allow == true and .row == 0 and (keys | index("any_port") == null)' \
	out "explain JSON members unchanged"

# --- an empty table --------------------------------------------------------------
printf '# nothing yet\n' >norows.rules
run "$VBOXC" check --target=linux norows.rules
is "$rc" 0 "an empty table: exit 0"
has err "note: the table has no rows: reads are allowed, writes follow '@default write' (deny)" \
	"an empty table gets a note"
run "$VBOXC" check --format=json --target=linux norows.rules
jq_is '.notes == [{"kind":"empty","source":null,"message":"the table has no rows"}]' \
	out "JSON: an 'empty' note"

# --- limits --------------------------------------------------------------------------
# A sparse 300 MiB file: refused from its size, before reading.  Under a
# 64 MiB address-space limit, reading it first would die of "out of
# memory" instead (sanitizer builds reserve far more: not limited there).
truncate -s 300M big.rules
if nm "$VBOXC" 2>/dev/null | grep -q __asan_init; then
	run "$VBOXC" check --target=linux big.rules
	ok "# SKIP address-space limit under AddressSanitizer"
else
	run sh -c 'ulimit -v 65536 && exec "$0" check --target=linux big.rules' \
		"$VBOXC"
	is "$rc" 1 "a 300 MiB file: exit 1 under a 64 MiB memory limit"
fi
has err "cannot read 'big.rules': file larger than 256 MiB" \
	"a 300 MiB file: 'file larger than 256 MiB'"
rm -f big.rules
run sh -c 'head -c 268435460 /dev/zero | "$0" check --target=linux -' \
	"$VBOXC"
is "$rc" 1 "standard input past 256 MiB: exit 1"
has err "file larger than 256 MiB" "standard input past 256 MiB: the message"
awk 'BEGIN { printf "rw:/"; for (i = 0; i < 100000; i++) printf "a"; print "" }' \
	>long.rules
run "$VBOXC" check --target=linux long.rules
is "$rc" 1 "a 100 kB pattern: exit 1"
has err "pattern is too long after expansion (4095 bytes at most)" \
	"a 100 kB pattern: the limit is named"
if [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' err)" -lt 400 ]; then
	ok "a 100 kB pattern: every message line is short"
else
	not_ok "a 100 kB pattern: every message line is short"
fi
has "$srcdir/doc/rules.md" "| pattern after expansion | 4,095 bytes |" \
	"doc/rules.md: the limits table has the pattern limit"

done_testing
