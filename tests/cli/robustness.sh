#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/robustness.sh - no input crashes, hangs or leaks vboxc.
#
# Hostile inputs (NUL bytes, invalid UTF-8, lone CRs, huge lines and files,
# include chains and cycles, unreadable inputs, binary garbage) must give
# exit status 1 (0 where the input is valid), a FILE:LINE:COL: error: line
# where the error has a location, no sanitizer report and no timeout.
# Every file under testdata/bogons/ must give exit status 1 on every
# target.  Run under ASan+UBSan in the sanitized build.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"

cd "$workdir"

if command -v timeout >/dev/null 2>&1; then
	limit="timeout 120"
else
	limit=
fi

# vboxc ARGS... - run vboxc in a fixed environment, bounded in time, from
# $workdir with stdin from /dev/null; sets $rc, out and err.
vboxc() {
	rc=0
	# $limit is empty or "timeout 120": split on purpose.
	# shellcheck disable=SC2086
	env -i PATH="$PATH" HOME=/home/tester LC_ALL=C \
		${ASAN_OPTIONS+"ASAN_OPTIONS=$ASAN_OPTIONS"} \
		${UBSAN_OPTIONS+"UBSAN_OPTIONS=$UBSAN_OPTIONS"} \
		${LSAN_OPTIONS+"LSAN_OPTIONS=$LSAN_OPTIONS"} \
		$limit "$VBOXC" "$@" </dev/null >out 2>err || rc=$?
}

# verdict DESC WANT [FILE] - one TAP line: exit status WANT (a list like
# "0 1" allows either), no sanitizer report, no timeout; when FILE is given
# and the status is 1, stderr must hold "FILE:LINE:COL: error:".
verdict() {
	_why=
	if grep -q -e AddressSanitizer -e LeakSanitizer -e 'runtime error:' \
		err; then
		_why="sanitizer report"
	elif [ -n "$limit" ] && [ "$rc" -eq 124 ]; then
		_why="timed out"
	else
		_ok=
		for _w in $2; do
			[ "$rc" -ne "$_w" ] || _ok=1
		done
		if [ -z "$_ok" ]; then
			_why="exit status $rc, want $2"
		elif [ $# -ge 3 ] && [ "$rc" -eq 1 ] &&
			! grep -qF -e "$3:" err; then
			_why="no diagnostic names $3"
		elif [ $# -ge 3 ] && [ "$rc" -eq 1 ] &&
			! grep -Eq "^$3:[0-9]+:[0-9]+: error: " err; then
			_why="no '$3:LINE:COL: error:' line"
		fi
	fi
	if [ -z "$_why" ]; then
		ok "$1"
	else
		not_ok "$1: $_why"
		head -c 2000 err | head -n 20 | sed 's/^/#   /'
	fi
}

# bytes SEED COUNT - COUNT deterministic pseudo-random bytes (a small LCG,
# exact in every awk's floating point).
bytes() {
	awk -v seed="$1" -v n="$2" 'BEGIN {
		x = seed % 65537
		for (i = 0; i < n; i++) {
			x = (x * 75 + 74) % 65537
			printf "%c", x % 256
		}
	}'
}

# --- encoding ---------------------------------------------------------------
printf 'rw:/srv/a\0b\n' >nul.rules
vboxc check nul.rules
verdict "NUL byte in a row" 1 nul.rules

printf '# com\0ment\nrw:/srv/a\n' >nulc.rules
vboxc check nulc.rules
verdict "NUL byte in a comment" 1 nulc.rules

printf '\0' >nul1.rules
vboxc check nul1.rules
verdict "a file of one NUL byte" 1 nul1.rules

printf 'deny:/srv/\377\376x\n' >utf8.rules
vboxc check utf8.rules
verdict "invalid UTF-8 in a target" 1 utf8.rules

printf '# caf\351\nrw:/srv/a\n' >utf8c.rules
vboxc check utf8c.rules
verdict "invalid UTF-8 in a comment" 1 utf8c.rules

printf 'deny:/srv/\342\202\n' >utf8t.rules
vboxc check utf8t.rules
verdict "truncated UTF-8 sequence" 1 utf8t.rules

printf 'rw:/srv/a\rdeny:/srv/b\n' >cr.rules
vboxc check cr.rules
verdict "lone CR inside a file" 1 cr.rules

printf 'rw:/srv/a\r' >creof.rules
vboxc check creof.rules
verdict "lone CR at the end of the file" 1 creof.rules

# --- size -------------------------------------------------------------------
awk 'BEGIN { s = "aaaaaaaaaaaaaaaa"; while (length(s) < 1048576) s = s s
	print "deny:/srv/" s }' >long.rules
vboxc check long.rules
verdict "1 MiB target" "0 1" long.rules

awk 'BEGIN { s = "xxxxxxxxxxxxxxxx"; while (length(s) < 1048576) s = s s
	print "rw:/srv/ok"; print s }' >longbad.rules
vboxc check longbad.rules
verdict "1 MiB line of garbage" 1 longbad.rules
if [ "$(wc -c <err)" -lt 65536 ]; then
	ok "1 MiB bad line: diagnostics stay short"
else
	not_ok "1 MiB bad line: $(wc -c <err) bytes of diagnostics"
fi

awk 'BEGIN {
	for (i = 0; i < 1000000; i++) {
		if (i % 10 == 0)
			printf "rw:/data/d%d/**\n", i
		else if (i % 10 == 1)
			printf "allow:h%d.example.com:443\n", i
		else if (i % 10 == 2)
			printf "# comment %d\n", i
		else
			printf "deny:/srv/d%d/x\n", i
	}
}' >million.rules
vboxc check --format=json million.rules
verdict "1,000,000-line file checks in time" 0
vboxc explain --format=json --write=/data/d999990/f \
	--net=h999991.example.com:443 million.rules
verdict "1,000,000-line file explains in time" 0
if [ "$(grep -c '"allow":true' out)" -eq 2 ]; then
	ok "1,000,000-line file: the write and the connect are allowed"
else
	not_ok "1,000,000-line file: wrong answer"
	head -c 1000 out | sed 's/^/#   /'
fi

awk 'BEGIN { for (i = 0; i < 100000; i++) printf "DENY:/srv/%d\n", i }' \
	>manyerr.rules
vboxc check manyerr.rules
verdict "100,000 bad rows" 1 manyerr.rules
if [ "$(wc -l <err)" -lt 1000 ]; then
	ok "100,000 bad rows: the error count is capped"
else
	not_ok "100,000 bad rows: $(wc -l <err) lines of diagnostics"
fi

awk 'BEGIN { s = ""; for (i = 0; i < 300; i++) s = s "!"; print s "deny:/x" }' \
	>bang300.rules
vboxc check bang300.rules
verdict "300 '!'" 1 bang300.rules

awk 'BEGIN { s = ""; for (i = 0; i < 100000; i++) s = s "!"; print s }' \
	>bangs.rules
vboxc check bangs.rules
verdict "100,000 '!' and nothing else" 1 bangs.rules

awk 'BEGIN { s = "deny:"; for (i = 0; i < 10000; i++) s = s "${"
	print s }' >braces.rules
vboxc check braces.rules
verdict "10,000 nested '\${'" 1 braces.rules

awk 'BEGIN { s = "allow:["; for (i = 0; i < 10000; i++) s = s ":"
	print s "]:80" }' >colons.rules
vboxc check colons.rules
verdict "IPv6 literal of 10,000 colons" 1 colons.rules

# --- includes ---------------------------------------------------------------
# chain DIR N - DIR/main.rules followed by N nested includes.
chain() {
	mkdir "$1"
	_prev=$1/main.rules
	: >"$_prev"
	_i=1
	while [ "$_i" -le "$2" ]; do
		printf 'ro:/srv/%d\n@include "i%d.rules"\n' "$_i" "$_i" >>"$_prev"
		_prev=$1/i$_i.rules
		: >"$_prev"
		_i=$((_i + 1))
	done
	echo 'deny:/deep' >>"$_prev"
}
chain d16 16
vboxc check d16/main.rules
verdict "16 nested includes are allowed" 0
chain d17 17
vboxc check d17/main.rules
verdict "17 nested includes are an error" 1 d17/i16.rules

mkdir cyc
echo '@include "b.rules"' >cyc/a.rules
echo '@include "a.rules"' >cyc/b.rules
vboxc check cyc/a.rules
verdict "include cycle" 1 cyc/b.rules

echo '@include "self.rules"' >self.rules
vboxc check self.rules
verdict "a file including itself" 1 self.rules

mkdir incdir
echo '@include "incdir"' >incdir.rules
vboxc check incdir.rules
verdict "including a directory" 1 incdir.rules

echo '@include "missing.rules"' >incmiss.rules
vboxc check incmiss.rules
verdict "including a missing file" 1 incmiss.rules

printf '@include "nul.rules"\n' >incnul.rules
vboxc check incnul.rules
verdict "including a file with a NUL byte" 1 nul.rules

# --- unreadable inputs --------------------------------------------------------
vboxc check incdir
verdict "a directory as the rule file" 1
check "a directory as the rule file: a message" grep -q . err

vboxc check does-not-exist.rules
verdict "a missing rule file" 1
check "a missing rule file: a message" grep -q . err

vboxc check good-but-missing.rules nul.rules
verdict "a missing file next to a bad one" 1

# --- garbage ----------------------------------------------------------------
for seed in 1 2 3 4 5 6 7 8; do
	bytes "$seed" 65536 >garbage$seed.rules
	vboxc check garbage$seed.rules
	verdict "64 KiB of binary garbage (seed $seed)" 1 garbage$seed.rules
done

# Printable garbage: random lines over the rule alphabet.
awk 'BEGIN {
	a = "!:@#\"\\/*?$%{}[]~. \tdenyrwoalw-_0123456789:[]\r"
	x = 7
	for (l = 0; l < 5000; l++) {
		s = ""
		n = l % 40
		for (i = 0; i < n; i++) {
			x = (x * 75 + 74) % 65537
			s = s substr(a, x % length(a) + 1, 1)
		}
		print s
	}
}' >alpha.rules
vboxc check alpha.rules
verdict "5,000 lines over the rule alphabet" 1 alpha.rules

# --- valid edge cases ---------------------------------------------------------
: >empty.rules
vboxc check empty.rules
verdict "an empty file" 0

printf '# one\n\n   # two\n\t# three\n' >comments.rules
vboxc check comments.rules
verdict "a file of only comments" 0

printf '\357\273\277' >bomonly.rules
vboxc check bomonly.rules
verdict "a file of only a BOM" 0

printf 'rw:/srv/a' >noeol.rules
vboxc check noeol.rules
verdict "no newline at the end of the file" 0

# --- queries ------------------------------------------------------------------
printf 'read /srv/a\0b\nwrite /srv/x\n' >nul.queries
vboxc explain --format=json --queries=nul.queries comments.rules
verdict "queries file with a NUL byte" 1

bytes 42 65536 >garbage.queries
vboxc explain --format=json --queries=garbage.queries comments.rules
verdict "queries file of binary garbage" 1

# An unreadable --queries file is a usage error (exit 2), as
# tests/cli/cli_explain.sh specifies; it must still not crash.
vboxc explain --format=json --queries=incdir comments.rules
verdict "a directory as the queries file" 2

awk 'BEGIN { s = "aaaaaaaaaaaaaaaa"; while (length(s) < 1048576) s = s s
	print "net " s ".example.com:443"; print "read /" s }' >long.queries
vboxc explain --format=json --queries=long.queries comments.rules
verdict "1 MiB queries" "0 1"

# --- bogons -------------------------------------------------------------------
nb=0
for b in "$srcdir"/testdata/bogons/*; do
	[ -f "$b" ] || continue
	nb=$((nb + 1))
	for t in linux darwin windows; do
		if [ "$t" = windows ]; then
			vboxc check --target="$t" -D 'HOME=C:\Users\tester' "$b"
		else
			vboxc check --target="$t" "$b"
		fi
		verdict "bogon $(basename "$b") ($t)" 1
	done
done
[ "$nb" -gt 0 ] || not_ok "no files under testdata/bogons/"

done_testing
