#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/cli_explain.sh - the `vboxc explain` contract (doc/rules.md §8,
# "Queries"): query order, text and JSON answers, invalid queries,
# --queries files, --follow/--no-follow and exit statuses.

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

# line N FILE - the Nth line of FILE
line() {
	sed -n "$1p" "$2"
}

cat >rules.txt <<'EOF'
# explain fixture
!!deny:/srv/work/secret
!ro:/srv/work/docs
rw:/srv/work/**
allow:example.com:443
deny:*.evil.com
@default net deny
EOF

# --- text format ------------------------------------------------------------
run "$VBOXC" explain --target=linux rules.txt \
	--write=/srv/work/out.txt --write=/srv/work/docs/a \
	--read=/srv/work/docs/a --read=/srv/work/secret/k \
	--write=/etc/passwd --read=/etc/passwd \
	--net=example.com:443 --net=example.com:80 --net=a.evil.com
is "$rc" 0 "valid queries: exit 0"
is "$(wc -l <out | tr -d ' ')" 9 "one line per query"
is "$(line 1 out)" \
	"write /srv/work/out.txt: allow by row 2 (rw, level 0) at rules.txt:4:1" \
	"write allowed by an rw row"
is "$(line 2 out)" \
	"write /srv/work/docs/a: deny by row 1 (ro, level 1) at rules.txt:3:1" \
	"write denied by a higher-level ro row"
is "$(line 3 out)" \
	"read /srv/work/docs/a: allow by row 1 (ro, level 1) at rules.txt:3:1" \
	"read allowed by an ro row"
is "$(line 4 out)" \
	"read /srv/work/secret/k: deny by row 0 (deny, level 2) at rules.txt:2:1" \
	"read denied by a deny row"
is "$(line 5 out)" "write /etc/passwd: deny by default (@default write deny)" \
	"unmatched write: default deny"
is "$(line 6 out)" "read /etc/passwd: allow by default (reads are always allowed)" \
	"unmatched read: allowed"
is "$(line 7 out)" \
	"net example.com:443: allow by row 0 (allow, level 0) at rules.txt:5:1" \
	"net allowed by a row"
is "$(line 8 out)" "net example.com:80: deny by default (@default net deny)" \
	"unmatched connect: default deny"
check "a wildcard net row decides" grep -q \
	'^net a\.evil\.com.*: deny by row 1 (deny, level 0) at rules\.txt:6:1$' out
empty_err=$(cat err)
is "$empty_err" "" "no diagnostics for a clean table"

run "$VBOXC" explain rules.txt --write=/srv/work//x/../out.txt
is "$(cat out)" \
	"write /srv/work//x/../out.txt (as /srv/work/out.txt): allow by row 2 (rw, level 0) at rules.txt:4:1" \
	"the cleaned path is shown when it differs"

# --- JSON format ------------------------------------------------------------
run "$VBOXC" explain --format=json rules.txt \
	--write=/srv/work/out.txt --write=/etc/passwd --net=example.com:443
is "$rc" 0 "json: exit 0"
is "$(line 1 out)" \
	'{"query":"write /srv/work/out.txt","allow":true,"row":2,"level":0,"effect":"rw","source":"rules.txt:4:1","domain":"fs","target":"/srv/work/**"}' \
	"json: row decision, members in order"
is "$(line 2 out)" \
	'{"query":"write /etc/passwd","allow":false,"row":-1,"level":0,"effect":null,"source":null,"domain":"fs","target":null}' \
	"json: default decision"
is "$(line 3 out)" \
	'{"query":"net example.com:443","allow":true,"row":0,"level":0,"effect":"allow","source":"rules.txt:5:1","domain":"net","target":"example.com:443"}' \
	"json: net decision"
is "$(wc -l <out | tr -d ' ')" 3 "json: one object per line"

run "$VBOXC" explain --format json rules.txt --read /srv/work/secret/x
is "$(line 1 out)" \
	'{"query":"read /srv/work/secret/x","allow":false,"row":0,"level":2,"effect":"deny","source":"rules.txt:2:1","domain":"fs","target":"/srv/work/secret"}' \
	"'--opt value' forms"

# --- invalid queries --------------------------------------------------------
run "$VBOXC" explain --format=json rules.txt \
	--net='bad host!' --read=relative/path --read=/etc/hosts
is "$rc" 1 "an invalid query makes the exit status 1"
check "invalid net query answered with an error" grep -Eq \
	'^\{"query":"net bad host!","error":"[^"]+"\}$' out
check "relative path is an invalid query" grep -Eq \
	'^\{"query":"read relative/path","error":"[^"]+"\}$' out
is "$(line 3 out)" \
	'{"query":"read /etc/hosts","allow":true,"row":-1,"level":0,"effect":null,"source":null,"domain":"fs","target":null}' \
	"the other queries are still answered"

run "$VBOXC" explain rules.txt --net='*.example.com' --read=/etc/hosts
is "$rc" 1 "a wildcard host in a query is invalid"
check "text error line" grep -q '^net \*\.example\.com: error: ' out
is "$(line 2 out)" "read /etc/hosts: allow by default (reads are always allowed)" \
	"text: the next query is answered"

# --- --queries files --------------------------------------------------------
cat >q.txt <<'EOF'
# queries, mixed with comments and blank lines

write /srv/work/a
	# an indented comment
net example.com:443   
read /srv/work/secret
EOF
run "$VBOXC" explain rules.txt --read=/first --queries=q.txt --write=/last
is "$rc" 0 "--queries: exit 0"
is "$(cut -d: -f1 out | tr '\n' '|')" \
	"read /first|write /srv/work/a|net example.com|read /srv/work/secret|write /last|" \
	"--queries lines answered at the file's position"

run "$VBOXC" explain rules.txt --queries q.txt
is "$rc" 0 "--queries FILE form"
is "$(wc -l <out | tr -d ' ')" 3 "blank and comment lines are skipped"

printf 'read /a\nfrobnicate /b\nwrite\nread /c\n' >badq.txt
run "$VBOXC" explain --format=json rules.txt --queries=badq.txt
is "$rc" 1 "a malformed query line: exit 1"
is "$(wc -l <out | tr -d ' ')" 4 "every line is answered"
check "malformed line answered with an error" grep -Eq \
	'^\{"query":"frobnicate /b","error":"badq\.txt:2: [^"]+"\}$' out
check "an op without argument is malformed" grep -Eq \
	'^\{"query":"write","error":"badq\.txt:3: [^"]+"\}$' out
check "the line after is answered" grep -qF '{"query":"read /c","allow":true' out

printf 'read /a\r\nwrite /srv/work/x\r\n' >crlf.txt
run "$VBOXC" explain rules.txt --queries=crlf.txt
is "$rc" 0 "CRLF query file"
check "CR is not part of the path" grep -qx \
	'write /srv/work/x: allow by row 2 (rw, level 0) at rules.txt:4:1' out

{
	printf 'read /'
	head -c 70000 /dev/zero | tr '\0' a
	printf '\nread /after\n'
} >long.txt
run "$VBOXC" explain --format=json rules.txt --queries=long.txt
is "$rc" 1 "an overlong query line is an invalid query"
check "overlong line reports an error" grep -q '"error":"long.txt:1: query line longer' out
check "the query after an overlong line is answered" grep -qF \
	'{"query":"read /after","allow":true' out

printf 'read /a\000b\n\377\376\001read\nread /\303\251t\303\251\n' >bin.txt
run "$VBOXC" explain --format=json rules.txt --queries=bin.txt
is "$rc" 1 "binary query file: exit 1, no crash"
is "$(wc -l <out | tr -d ' ')" 3 "binary query file: one answer per line"
check "NUL byte is an invalid query" grep -q 'contains a NUL byte' out
check "invalid UTF-8 is escaped in the JSON" grep -qF '"query":"\\xff\\xfe\\x01read"' out
check "valid UTF-8 is kept" grep -qF '"query":"read /été"' out
if command -v jq >/dev/null 2>&1; then
	check "jq parses every answer" jq_e . out
else
	ok "# SKIP jq not installed"
fi

run "$VBOXC" explain rules.txt --queries=does-not-exist.txt
is "$rc" 2 "unreadable --queries file: exit 2"
run "$VBOXC" explain rules.txt --queries=.
is "$rc" 2 "a directory as --queries file: exit 2"

: >empty.txt
run "$VBOXC" explain rules.txt --queries=empty.txt
is "$rc" 0 "an empty --queries file answers nothing"
empty_out=$(cat out)
is "$empty_out" "" "... and prints nothing"

# --- --follow / --no-follow -------------------------------------------------
real=$(pwd -P)
mkdir real
: >real/file
ln -s real link
ln -s real/file flink
printf 'deny:%s/real\n' "$real" >follow.rules
run "$VBOXC" explain --format=json follow.rules --read="$real/link/file"
check "without --follow, the link is not resolved" \
	grep -q '"row":-1' out
run "$VBOXC" explain --format=json --follow follow.rules --read="$real/link/file"
check "--follow resolves a symlinked directory" grep -q '"row":0,' out
run "$VBOXC" explain --follow follow.rules --read="$real/link/file"
has out "$real/link/file (as $real/real/file): deny by row 0" \
	"text shows the resolved path"
run "$VBOXC" explain --format=json --no-follow follow.rules --read="$real/flink"
check "--no-follow keeps the last component" grep -q '"row":-1' out
run "$VBOXC" explain --format=json --follow follow.rules --read="$real/flink"
check "--follow resolves the last component" grep -q '"row":0,' out
run "$VBOXC" explain --format=json --no-follow follow.rules \
	--read="$real/link/file"
check "--no-follow resolves the directories" grep -q '"row":0,' out

ln -s loop2 loop1
ln -s loop1 loop2
run "$VBOXC" explain --format=json --follow follow.rules \
	--read="$real/loop1/x" --read="$real/link/file"
is "$rc" 1 "a symlink loop is an invalid query"
check "the loop is reported" grep -q "^{\"query\":\"read $real/loop1/x\",\"error\":" out
check "the next query is still answered" grep -q '"row":0,' out

# --- targets ----------------------------------------------------------------
printf 'deny:/Users/X/secret\n' >case.rules
run "$VBOXC" explain --target=darwin --format=json case.rules \
	--read=/users/x/SECRET/a
check "darwin folds case" grep -q '"allow":false,"row":0' out
run "$VBOXC" explain --target linux --format=json case.rules \
	--read=/users/x/SECRET/a
check "linux compares exactly" grep -q '"allow":true,"row":-1' out

# --- exit statuses and usage ------------------------------------------------
run "$VBOXC" explain rules.txt
is "$rc" 2 "explain without a query: exit 2"
has err "no query" "missing query is named"
run "$VBOXC" explain --read=/x
is "$rc" 2 "explain without RULES: exit 2"
run "$VBOXC" explain --read rules.txt
is "$rc" 2 "--read consumes the next argument"
run "$VBOXC" explain --fo rules.txt --read=/x
is "$rc" 2 "an ambiguous abbreviation: exit 2"
has err "ambiguous option '--fo'" "ambiguity is named"
run "$VBOXC" explain --follow=yes rules.txt --read=/x
is "$rc" 2 "a value for a flag option: exit 2"
run "$VBOXC" explain --format=xml rules.txt --read=/x
is "$rc" 2 "bad --format: exit 2"
run "$VBOXC" explain --target=beos rules.txt --read=/x
is "$rc" 2 "bad --target: exit 2"

printf 'rw:/srv/**\n@bogus\n' >bad.rules
run "$VBOXC" explain --format=json bad.rules --read=/srv/x
is "$rc" 1 "invalid rules: exit 1"
empty_out=$(cat out)
is "$empty_out" "" "invalid rules: nothing answered"
check "invalid rules: diagnostics on stderr" grep -q '^bad\.rules:2:' err

printf 'rw:/srv/**\ndeny:/srv/x\n' >warn.rules
run "$VBOXC" explain warn.rules --read=/srv/x
is "$rc" 0 "warnings do not fail explain"
check "text mode shows warnings on stderr" grep -q '^warn\.rules:2:[0-9]*: warning:' err
run "$VBOXC" explain -Werror warn.rules --read=/srv/x
is "$rc" 1 "-Werror: a warning fails explain"
empty_out=$(cat out)
is "$empty_out" "" "-Werror: nothing answered"

cp rules.txt ./-rules.txt
run "$VBOXC" explain --read=/etc/hosts -- -rules.txt
is "$rc" 0 "'--' ends options"

rc=0
"$VBOXC" explain - --write=/srv/work/y <rules.txt >out 2>err || rc=$?
is "$rc" 0 "rules from standard input"
has out "write /srv/work/y: allow by row 2 (rw, level 0) at <stdin>:4:1" \
	"standard input is named <stdin>"
rc=0
"$VBOXC" explain - --queries=- <rules.txt >out 2>err || rc=$?
is "$rc" 2 "rules and queries both from standard input: exit 2"

run "$VBOXC" explain --help
is "$rc" 0 "explain --help exits 0"
check "explain --help matches golden" golden_compare cli_explain_help.out out

done_testing
