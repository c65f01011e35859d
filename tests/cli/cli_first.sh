#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/cli_first.sh - issue 24's compiler messages for the first hour:
# a pasted URL as a network row, CIDR ranges, allow rows without a port,
# the error cap's "N more errors" line and --max-errors, the darwin
# profile that needs the launcher's parameters, and the one hint for an
# undefined variable of the rule library, preflight's rows grouped by
# reason, and how "@default tmp private" compiles for each target.  Each
# test pins the key words of one message.

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

# count FILE FIXED-STRING N DESC - FILE has N lines with the string.
count() {
	_n=$(grep -cF -- "$2" "$1" || :)
	is "$_n" "$3" "$4"
}

# jq_is FILTER FILE DESC - jq -e FILTER holds on FILE (skipped, saying so,
# without jq)
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

# --- a pasted URL ------------------------------------------------------------
printf 'allow: https://registry.npmjs.org/\n' >url.rules
run "$VBOXC" check --target=linux url.rules
is "$rc" 1 "URL row: exit 1"
has err "url.rules:1:8: error: 'https://registry.npmjs.org/' is a URL, not a network target" \
	"URL row: named a URL, at the URL's column"
has err "did you mean 'registry.npmjs.org:443'?" \
	"https URL: did you mean HOST:443"
lacks err "invalid port" "URL row: no 'invalid port'"
# The caret spans the URL.
has err "       ^~~~~~~~~~~~~~~~~~~~~~~~~~~" "URL row: the caret is under the URL"
printf 'allow: https://user@example.com:8443/path?q#f\n' >url2.rules
run "$VBOXC" check --target=linux url2.rules
has err "did you mean 'example.com:8443'?" \
	"URL with user, port and path: did you mean HOST:PORT"
lacks err "IPv6" "URL with a port: no IPv6 message"
printf 'allow: http://[2001:db8::1]/\nallow: git://git.example.org/r\n' >url3.rules
run "$VBOXC" check --target=linux url3.rules
has err "did you mean '[2001:db8::1]:80'?" "http URL, IPv6 host: [ADDR]:80"
has err "did you mean 'git.example.org:9418'?" "git URL: port 9418"
printf 'allow: foo://h.example/\n' >url4.rules
run "$VBOXC" check --target=linux url4.rules
has err "did you mean 'h.example:PORT'?" "unknown scheme: HOST:PORT"
printf 'allow: x.example:443\n' >plain.rules
run "$VBOXC" explain --net=https://pypi.org/simple/ plain.rules
is "$rc" 1 "explain --net=URL: exit 1"
has out "a URL, not a network target: a query names HOST[:PORT]" \
	"explain --net=URL: named a URL"
has out "did you mean 'pypi.org:443'?" "explain --net=URL: did you mean"

# --- CIDR --------------------------------------------------------------------
printf 'deny: 10.0.0.0/8\n' >cidr.rules
run "$VBOXC" check --target=linux cidr.rules
is "$rc" 1 "deny:10.0.0.0/8: exit 1"
has err "cidr.rules:1:7: error: '10.0.0.0/8' is an address range (CIDR): network rows do not support ranges" \
	"CIDR: says ranges are not supported"
has err "the proxy refuses private, loopback and link-local addresses no row names" \
	"CIDR: says what covers private ranges"
lacks err "'**/8'" "CIDR: no file-row hint '**/8'"
printf 'allow: [fd00::]/8\nallow: fe80::/10\n' >cidr6.rules
run "$VBOXC" check --target=linux cidr6.rules
count err "is an address range (CIDR)" 2 "IPv6 ranges, bracketed or not"
printf 'deny: /srv/x/8\n' >file.rules
run "$VBOXC" check --target=linux file.rules
is "$rc" 0 "a path ending in /8 is still a file row"

# --- allow rows without a port -----------------------------------------------
printf 'allow: example.org\nallow: *.example.net\nallow: a.example:*\nallow: b.example:443\ndeny: c.example\n' >port.rules
run "$VBOXC" check --target=linux port.rules
is "$rc" 0 "port-less allow rows: exit 0"
has err "port.rules:1:1: note: row 0 'allow:example.org:*' names no port: it allows every port of example.org (write 'example.org:443' for HTTPS only)" \
	"check notes an allow row without a port"
has err "every port of *.example.net" "the note for a wildcard row"
count err "names no port" 2 "no note for ':*', a port, or a deny row"
run "$VBOXC" check -Werror --target=linux port.rules
is "$rc" 0 "the note does not fail -Werror"
run "$VBOXC" compile --target=linux --emit=ir -o port.ir port.rules
has err "names no port" "compile notes it too"
run "$VBOXC" check --format=json --target=linux port.rules
jq_is '[.notes[] | select(.kind == "any-port")] | length == 2 and
	.[0].row == 0 and .[1].row == 1' out \
	"JSON: 'any-port' notes with their rows"

# --- the error cap -----------------------------------------------------------
# 25 errors of 9 reasons, none more than 3 times: none folds (repeats of
# one reason fold outside the cap: tests/cli/cli_fold.sh)
i=0
: >many.rules
while [ "$i" -lt 3 ]; do
	{
		echo "allow: bad host$i"
		echo "@foo$i write deny"
		echo "[sec$i]"
		echo "DENY: /x$i"
		echo "rw: \"/a$i\\q\""
		echo "rw: \"/b$i"
		echo "rw: ~user$i/x"
		echo "rw: relative$i"
	} >>many.rules
	i=$((i + 1))
done
echo "rw: /" >>many.rules
run "$VBOXC" check many.rules
is "$rc" 1 "25 errors: exit 1"
count err ": error: " 20 "20 errors shown"
has err "vboxc: note: 5 more errors not shown" "the 'N more errors' line"
run "$VBOXC" check --format=json many.rules
jq_is '(.errors | length) == 21 and .errors[20].source == null and
	.errors[20].message == "5 more errors not shown"' out \
	"JSON: the last entry says 5 more"
run "$VBOXC" check --max-errors=0 many.rules
count err ": error: " 25 "--max-errors=0: every error"
lacks err "not shown" "--max-errors=0: no 'not shown' line"
run "$VBOXC" check --max-errors=3 many.rules
has err "22 more errors not shown" "--max-errors=3: 22 more"
run "$VBOXC" check --max-errors=-1 many.rules
is "$rc" 2 "--max-errors=-1: usage error"
run "$VBOXC" check --help
has out "--max-errors=N" "--help lists --max-errors"

# --- darwin: a profile that needs the launcher's parameters -----------------
printf '@default net deny\nallow: example.org:443\n' >proxy.rules
run "$VBOXC" compile --target=darwin -o proxy.sb proxy.rules
is "$rc" 0 "darwin compile with a proxy row: exit 0"
has err "vboxc: note: the darwin profile is not complete on its own: 1 row lands in the egress proxy" \
	"darwin compile says the profile is not complete"
has err "-D VBOX_PROXY_HTTP_PORT=N -D VBOX_PROXY_SOCKS_PORT=M" \
	"the note names the parameters to pass"
check "the profile does name the parameter" grep -qF \
	'(param "VBOX_PROXY_HTTP_PORT")' proxy.sb
run "$VBOXC" compile --target=darwin -Werror --emit=plan -o proxy.plan proxy.rules
is "$rc" 0 "a note: -Werror still compiles the plan for vbox-exec"
run "$VBOXC" check --target=darwin proxy.rules
has err "not complete on its own" "check --target=darwin says it too"
run "$VBOXC" check --format=json --target=darwin proxy.rules
jq_is '[.notes[] | select(.kind == "target")] | length == 1' out \
	"JSON: a 'target' note"
printf '@default net deny\nallow: localhost:8080\n' >lo.rules
run "$VBOXC" compile --target=darwin -o lo.sb lo.rules
is "$rc:$(cat err)" "0:" "loopback rows only: nothing said"
check "... and no parameter" sh -c '! grep -q param lo.sb'

# --- an undefined variable of the rule library ------------------------------
printf '@include <git-protect>\nrw:/srv/work/**\n' >git.rules
run "$VBOXC" check -I "$top_srcdir/rules" git.rules
is "$rc" 1 "<git-protect> without VBOX_GIT_REPO: exit 1"
count err ": error: " 1 "one error, not one per row"
has err "pass -D VBOX_GIT_REPO=DIR" "the error says to pass -D VBOX_GIT_REPO=DIR"
has err "(used by 2 more rows, not reported again)" \
	"the other rows are counted"
run "$VBOXC" check -I "$top_srcdir/rules" -D VBOX_GIT_REPO=/srv/work/r git.rules
is "$rc" 0 "with -D VBOX_GIT_REPO: exit 0"
printf 'rw:$NOPE_A/x\nro:${NOPE_A}/y\nrw:$NOPE_B/z\n' >vars.rules
run "$VBOXC" check vars.rules
count err ": error: " 2 "one error per undefined variable"
has err "pass -D NOPE_A=VALUE or set it in the environment (used by 1 more row" \
	"\$NAME and \${NAME} are one variable"

# --- preflight: rows grouped by reason ---------------------------------------
printf '@default write deny\n!deny:/srv/work/keys\nrw:/srv/work/**\n!deny:/srv/work/.env\nrw:/var/cache/b\n[net]\nallow:a.example:443\nallow:b.example:443\n' >pf.rules
run "$VBOXC" preflight --target=linux pf.rules
is "$rc" 0 "preflight: exit 0"
count out "launch: denied path: " 1 "a shared reason is printed once"
count out "kernel: writable bind mount (--bind-try)" 1 \
	"... for each reason"
count out "proxy: the egress proxy" 1 "... network rows too"
# The rows below their reason, in table order, the groups in the order of
# their first row.
cat >pf.want <<'EOF'
launch: denied path: *
    fs 0 pf.rules:2:1 '!deny:/srv/work/keys'
    fs 2 pf.rules:4:1 '!deny:/srv/work/.env'
kernel: writable bind mount (--bind-try)
    fs 1 pf.rules:3:1 'rw:/srv/work/**'
    fs 3 pf.rules:5:1 'rw:/var/cache/b'
proxy: the egress proxy, bridged into the sandbox's network namespace
    net 0 pf.rules:7:1 'allow:a.example:443'
    net 1 pf.rules:8:1 'allow:b.example:443'
EOF
sed 's/^\(launch: denied path: \).*/\1*/' out >pf.got
if cmp -s pf.want pf.got; then
	ok "groups in first-row order, rows in table order"
else
	not_ok "groups in first-row order, rows in table order"
	diff pf.want pf.got | sed 's/^/#   /'
fi
run "$VBOXC" preflight --target=linux --per-row pf.rules
is "$(grep -c "^fs [0-9] pf.rules:[0-9]*:1 '[^']*': [a-z]*: " out)" 4 \
	"--per-row: one line per file row"
check "--per-row: the reason on every row" grep -q \
	"^fs 2 pf.rules:4:1 '!deny:/srv/work/.env': launch: denied path: " out
run "$VBOXC" preflight --target=linux --format=json pf.rules
cp out pf.json
run "$VBOXC" preflight --target=linux --format=json --per-row pf.rules
check "JSON: the same with or without --per-row" cmp -s pf.json out
jq_is '(keys_unsorted == ["target","fs","net","reserved","unsupported"]) and
	(.fs | length == 4) and (.net | length == 2)' pf.json \
	"JSON: unchanged, one entry per row"
run "$VBOXC" check --per-row pf.rules
is "$rc" 2 "--per-row is preflight's only"

# --- @default tmp private ----------------------------------------------------
printf '@default write deny\n@default tmp private\nrw:/srv/work/**\n' >tmp.rules
run "$VBOXC" explain --target=linux --write=/tmp/x --write=/srv/work/a \
	--write=/etc/x tmp.rules
is "$rc" 0 "@default tmp private: explain exits 0"
has out "write /tmp/x: allow by row 1 (rw, level 0) at tmp.rules:2:1" \
	"explain: a write in /tmp is allowed by the setting's row, at the setting"
has out "write /etc/x: deny by default" "explain: other writes still deny"
run "$VBOXC" compile --target=linux tmp.rules
check "linux static list: a tmpfs at /tmp, before the rows" sh -c \
	'tr "\0" " " <"$1" | grep -q -- "--proc /proc --perms 01777 --tmpfs /tmp --bind-try /srv/work"' \
	sh "$workdir/out"
run "$VBOXC" preflight --target=linux --per-row tmp.rules
has out "fs 1 tmp.rules:2:1 'rw:/tmp': kernel: private /tmp: a tmpfs of the sandbox's own" \
	"preflight: the private /tmp lands in the kernel on linux"
run "$VBOXC" compile --target=darwin -o tmp.sb tmp.rules
is "$rc" 1 "darwin refuses the private /tmp"
has err "tmp.rules:2:1: error: row 1 'rw:/tmp' is unsupported on darwin: seatbelt filters paths and mounts nothing" \
	"darwin: says why, at the setting"
printf '@default tmp private\nrw:C:\\work\\**\n' >tmpw.rules
run "$VBOXC" compile --target=windows -D 'HOME=C:\Users\me' tmpw.rules
is "$rc" 1 "windows refuses the private /tmp"
has err "tmpw.rules:1:1: error: '@default tmp private' is unsupported on windows" \
	"windows: says why, at the setting"
printf '@default tmp private\nrw:/tmp/build\n!deny:/tmp\n' >tmpbad.rules
run "$VBOXC" check tmpbad.rules
is "$rc" 1 "rows in /tmp with a private /tmp: exit 1"
count err "names a path in /tmp, which '@default tmp private' replaces" 2 \
	"each row naming the host's /tmp is an error"
printf '@default tmp host\n@default tmp private\n' >tmptwice.rules
run "$VBOXC" check tmptwice.rules
has err "'@default tmp'" "two different '@default tmp' values are an error"
printf '@default tmp privat\n' >tmptypo.rules
run "$VBOXC" check tmptypo.rules
has err "expected 'host' or 'private'; did you mean 'private'?" \
	"a misspelt value gets a did-you-mean"
printf '@default tmp host\nrw:/tmp/build\n' >tmphost.rules
run "$VBOXC" check tmphost.rules
is "$rc" 0 "@default tmp host: rows in /tmp as before"

done_testing
