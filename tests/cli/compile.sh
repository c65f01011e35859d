#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/compile.sh - the `vboxc compile` and `vboxc preflight` contract
# (doc/targets.md; doc/rules.md §11, "Exit statuses"): exit statuses, -o and its all-or-nothing writes, no
# binary on a terminal, unsupported rows named with row, target and
# reason, the preflight table in text and JSON, and plan.bin's header.
# The per-case artifacts are compared with goldens in tests/cli/cases.sh.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"

cd "$workdir"

targets="darwin linux windows"

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
		sed 's/^/#   /' "$1" | head -n 40
	fi
}

# empty FILE DESC
empty() {
	if [ ! -s "$1" ]; then
		ok "$2"
	else
		not_ok "$2"
		sed 's/^/#   /' "$1" | head -n 40
	fi
}

# no_sanitizer DESC - stderr of the last run holds no sanitizer report.
no_sanitizer() {
	if grep -q -e AddressSanitizer -e LeakSanitizer -e 'runtime error:' \
		err; then
		not_ok "$1"
		sed 's/^/#   /' err | head -n 40
	else
		ok "$1"
	fi
}

# home TARGET - the -D HOME value a target accepts.
home() {
	if [ "$1" = windows ]; then
		printf '%s\n' 'HOME=C:\Users\tester'
	else
		printf '%s\n' HOME=/home/tester
	fi
}

# vc TARGET COMMAND ARGS... - vboxc COMMAND with --target and a fixed
# home directory; the output goes to out/err as with run.
vc() {
	_t=$1
	_c=$2
	shift 2
	run "$VBOXC" "$_c" --target="$_t" -D "$(home "$_t")" "$@"
}

# unix_or_win TARGET UNIX WINDOWS - the path form the target accepts.
unix_or_win() {
	if [ "$1" = windows ]; then
		printf '%s\n' "$3"
	else
		printf '%s\n' "$2"
	fi
}

# good.rules: kernel rows only on every target (open network posture,
# which windows requires; two writable roots).
write_good() {
	printf '%s\n' '@default net open' "rw:$(unix_or_win "$1" \
		/srv/work/\*\* 'C:\work\**')" "rw:$(unix_or_win "$1" \
		/srv/data 'C:\data')" >"good.$1.rules"
}

# unsupported.rules: a non-loopback network deny row in open posture is
# unsupported on every target (doc/targets.md), and here it is row 1 of the
# network table, on line 4.
write_unsupported() {
	printf '%s\n' '@default net open' "rw:$(unix_or_win "$1" \
		/srv/work/\*\* 'C:\work\**')" 'deny:localhost:8080' \
		'deny:evil.example.com' >"unsupported.$1.rules"
}

# shadow.rules: valid, supported, with one shadowed row (a warning).
write_shadow() {
	printf '%s\n' '@default net open' "rw:$(unix_or_win "$1" \
		/srv/work/\*\* 'C:\work\**')" "rw:$(unix_or_win "$1" \
		/srv/work/sub 'C:\work\sub')" >"shadow.$1.rules"
}

printf 'rw:/srv/work/**\n@defualt write deny\n' >bad.rules
for t in $targets; do
	write_good "$t"
	write_unsupported "$t"
	write_shadow "$t"
done

# --- help -------------------------------------------------------------------
for cmd in compile preflight; do
	run "$VBOXC" "$cmd" --help
	is "$rc" 0 "$cmd --help exits 0"
	check "$cmd --help matches golden" \
		golden_compare "cli_${cmd}_help.out" out
	cp out "$cmd.help"
	run "$VBOXC" help "$cmd"
	check "help $cmd prints the same text" cmp -s out "$cmd.help"
done

# --- usage errors: exit 2, nothing written ----------------------------------
usage() {
	_desc=$1
	shift
	run "$VBOXC" "$@"
	is "$rc" 2 "$_desc: exit 2"
	empty out "$_desc: nothing on stdout"
}
usage "compile without RULES" compile
usage "preflight without RULES" preflight --target=linux
usage "unknown --emit" compile --emit=sbpl good.linux.rules
has err "unknown emit mode 'sbpl' (expected profile|plan|ir|table)" \
	"unknown --emit is named"
usage "unknown target" compile --target=plan9 good.linux.rules
usage "compile takes no --format" compile --format=json good.linux.rules
usage "preflight takes no --emit" preflight --emit=ir good.linux.rules
usage "preflight takes no -o" preflight -o x good.linux.rules
usage "-o without a value" compile good.linux.rules -o
usage "empty -o" compile -o '' good.linux.rules
check "no file is created by usage errors" test ! -e x

# --- compile: exit statuses and where the bytes go --------------------------
for t in $targets; do
	vc "$t" compile "good.$t.rules"
	is "$rc" 0 "$t: good rules compile (exit 0)"
	empty err "$t: good rules compile silently"
	check "$t: the profile goes to stdout" test -s out
	cp out "good.$t.default"

	vc "$t" compile -o "good.$t.out" "good.$t.rules"
	is "$rc" 0 "$t: -o FILE exits 0"
	empty out "$t: -o FILE writes nothing on stdout"
	check "$t: -o FILE holds the bytes of stdout" \
		cmp -s "good.$t.out" "good.$t.default"
	vc "$t" compile --output "good.$t.out2" "good.$t.rules"
	check "$t: --output FILE works alike" \
		cmp -s "good.$t.out2" "good.$t.default"
	vc "$t" compile -o - "good.$t.rules"
	check "$t: -o - is standard output" cmp -s out "good.$t.default"

	vc "$t" compile - <"good.$t.rules"
	is "$rc" 0 "$t: rules from standard input compile"

	vc "$t" compile "shadow.$t.rules"
	is "$rc" 0 "$t: a warning alone does not fail compile"
	has err "warning: row 1 'rw:" "$t: the warning goes to stderr"
	check "$t: warnings never reach the artifact" \
		sh -c '! grep -q "warning:" out'
	vc "$t" compile -Werror -o "shadow.$t.out" "shadow.$t.rules"
	is "$rc" 1 "$t: -Werror makes the warning fatal (exit 1)"
	has err "treated as error" "$t: -Werror says so"
	check "$t: -Werror writes nothing" test ! -e "shadow.$t.out"

	for m in profile plan ir table; do
		vc "$t" compile --emit="$m" "good.$t.rules"
		is "$rc" 0 "$t: --emit=$m exits 0"
		no_sanitizer "$t: --emit=$m runs clean"
		cp out "good.$t.$m"
	done
	check "$t: --emit=profile is the default" \
		cmp -s "good.$t.default" "good.$t.profile"
	if command -v jq >/dev/null 2>&1; then
		check "$t: --emit=ir is valid JSON" \
			jq_e . "good.$t.ir"
		if [ "$t" = windows ]; then
			check "$t: the ACL plan is valid JSON" \
				jq_e . "good.$t.profile"
		fi
	else
		ok "# SKIP $t: JSON validity (no jq)"
	fi
done
check "linux: the profile is a NUL-separated argument list" \
	sh -c "tr -d '\\n' <good.linux.profile | od -An -c | grep -q '\\\\0'"
check "darwin: the profile starts with (version 1)" \
	grep -q '^(version 1)' good.darwin.profile

# --- plan.bin ---------------------------------------------------------------
# hexle FILE OFFSET COUNT - COUNT little-endian bytes at OFFSET as decimal.
hexle() {
	od -An -tu1 -j "$2" -N "$3" -v "$1" |
		awk '{ for (i = 1; i <= NF; i++) b[n++] = $i }
		     END { v = 0; for (i = n - 1; i >= 0; i--) v = v * 256 + b[i];
			   print v }'
}
t_code_darwin=1
t_code_linux=2
t_code_windows=3
for t in $targets; do
	p=good.$t.plan
	is "$(od -An -c -N 8 "$p" | tr -d ' \n')" VBOXPLAN "$t: plan magic"
	is "$(hexle "$p" 8 2)" 2 "$t: plan format version 2"
	eval "want=\$t_code_$t"
	is "$(hexle "$p" 10 1)" "$want" "$t: plan target byte"
	is "$(hexle "$p" 12 4)" 32 "$t: plan header size"
	is "$(hexle "$p" 16 8)" "$(wc -c <"$p" | tr -d ' ')" \
		"$t: plan size field is the file size"
	vc "$t" compile --emit=plan -o "good.$t.plan2" "good.$t.rules"
	check "$t: --emit=plan -o FILE holds the same bytes" \
		cmp -s "good.$t.plan2" "$p"
done

# --- binary never on a terminal ---------------------------------------------
if command -v script >/dev/null 2>&1 &&
	script -qec true /dev/null >/dev/null 2>&1; then
	cat >tty.sh <<EOF
"$VBOXC" compile --target=linux --emit=plan good.linux.rules
echo "status=\$?"
EOF
	script -qec "sh tty.sh" /dev/null >tty.out 2>&1 </dev/null || :
	has tty.out "status=2" "--emit=plan to a terminal exits 2"
	has tty.out "refusing to write a binary plan to a terminal" \
		"--emit=plan to a terminal says why"
	check "--emit=plan to a terminal prints no plan" \
		sh -c '! grep -q VBOXPLAN tty.out'
	cat >tty2.sh <<EOF
"$VBOXC" compile --target=linux --emit=plan -o /dev/tty good.linux.rules
echo "status=\$?"
EOF
	script -qec "sh tty2.sh" /dev/null >tty2.out 2>&1 </dev/null || :
	has tty2.out "status=2" "--emit=plan -o /dev/tty exits 2"
	check "--emit=plan -o /dev/tty prints no plan" \
		sh -c '! grep -q VBOXPLAN tty2.out'
	cat >tty3.sh <<EOF
"$VBOXC" compile --target=linux --emit=ir good.linux.rules
echo "status=\$?"
EOF
	script -qec "sh tty3.sh" /dev/null >tty3.out 2>&1 </dev/null || :
	has tty3.out "status=0" "--emit=ir (text) may go to a terminal"
else
	ok "# SKIP binary to a terminal: script(1) with -e is not available"
fi

# --- unsupported rows: named with row, target and reason --------------------
for t in $targets; do
	f=unsupported.$t.rules
	printf 'precious\n' >keep.out
	cp keep.out keep.orig
	for m in profile plan ir; do
		vc "$t" compile --emit="$m" -o keep.out "$f"
		is "$rc" 1 "$t: --emit=$m refuses an unsupported row (exit 1)"
		check "$t: --emit=$m leaves the existing -o file untouched" \
			cmp -s keep.out keep.orig
		empty out "$t: --emit=$m writes nothing on stdout"
	done
	has err \
		"$f:4:1: error: row 1 'deny:evil.example.com:*' is unsupported on $t: " \
		"$t: the error names location, row, target"
	check "$t: the error gives a reason" grep -Eq \
		"is unsupported on $t: [^ ]" err
	is "$(grep -c ': error: ' err)" \
		"$(grep -c "is unsupported on $t" err)" \
		"$t: every error is an unsupported row"
	check "$t: no temporary file is left behind" \
		sh -c '! ls -a | grep -q vboxc-'

	# preflight prints the table anyway, then exits 1.
	vc "$t" preflight --per-row "$f"
	is "$rc" 1 "$t: preflight exits 1 on an unsupported row"
	has out "net 1 $f:4:1 'deny:evil.example.com:*': unsupported: " \
		"$t: preflight text names the unsupported row"
	has err "is unsupported on $t" \
		"$t: preflight text also reports it on stderr"
	vc "$t" preflight --format=json "$f"
	is "$rc" 1 "$t: preflight --format=json exits 1 too"
	if command -v jq >/dev/null 2>&1; then
		check "$t: JSON counts the unsupported rows" jq_e \
			'.unsupported as $n | $n >= 1 and
			 ([.fs[], .net[] | select(.landing == "unsupported")] |
			  length == $n)' out
		check "$t: JSON names the row" jq_e \
			'.net[1] | .row == 1 and .landing == "unsupported" and
			 .rule == "deny:evil.example.com:*" and
			 .source == "'"$f"':4:1" and (.reason | length > 0)' out
	else
		ok "# SKIP $t: preflight JSON content (no jq)"
	fi
	has err "is unsupported on $t" \
		"$t: preflight --format=json says why it fails on stderr"
done

# Every unsupported row is counted, not just the first twenty: the text
# names the first three and folds the rest into one line (doc/rules.md,
# "Repeats"); JSON keeps every row.
{
	echo '@default net open'
	i=0
	while [ "$i" -lt 30 ]; do
		echo "deny:host$i.example.com"
		i=$((i + 1))
	done
} >many.rules
vc linux compile many.rules
is "$rc" 1 "30 unsupported rows: exit 1"
is "$(grep -c 'is unsupported on linux' err)" 3 \
	"30 unsupported rows: the first 3 named"
is "$(grep -c '^vboxc: note: \.\.\. and 27 more rows with this error (vboxc check --format=json lists every row)$' err)" 1 \
	"30 unsupported rows: ... and 27 more rows, and where each is listed"
vc linux check --format=json many.rules
is "$(grep -o 'is unsupported on linux' out | wc -l | tr -d ' ')" 30 \
	"30 unsupported rows: check --format=json lists each, as the fold says"
# One more than the three named is named too: a fold line would take the
# place of the row it hides.
head -n 5 many.rules >four.rules
vc linux compile four.rules
is "$(grep -c 'is unsupported on linux' err)" 4 \
	"4 unsupported rows: all 4 named"
is "$(grep -c 'more row' err)" 0 "4 unsupported rows: no fold line"
vc linux check --format=json many.rules
is "$(jq '[.notes[] | select(.kind == "unsupported")] | length' out 2>/dev/null)" 30 \
	"30 unsupported rows: check --format=json keeps every row"

# --- partial-output safety --------------------------------------------------
printf 'precious\n' >keep.out
cp keep.out keep.orig
vc linux compile -o keep.out bad.rules
is "$rc" 1 "invalid rules: exit 1"
check "invalid rules leave the -o file untouched" cmp -s keep.out keep.orig
vc linux compile --emit=plan -o keep.out bad.rules
check "invalid rules (plan) leave the -o file untouched" \
	cmp -s keep.out keep.orig
vc linux compile -o new.out bad.rules
check "invalid rules create no -o file" test ! -e new.out
vc linux compile -o keep.out good.linux.rules
is "$rc" 0 "a successful compile replaces the -o file"
check "the -o file holds the whole artifact" \
	cmp -s keep.out good.linux.profile
check "no temporary file is left behind" sh -c '! ls -a | grep -q vboxc-'

chmod 640 keep.out
vc linux compile -o keep.out good.linux.rules
is "$(ls -l keep.out | cut -c1-10)" "-rw-r-----" \
	"replacing a file keeps its permissions"

ln -s keep.out link.out
vc linux compile --emit=ir -o link.out good.linux.rules
is "$rc" 0 "-o through a symbolic link exits 0"
check "the link stays a link" test -L link.out
check "the link's target gets the bytes" cmp -s keep.out good.linux.ir

cp good.linux.rules self.rules
vc linux compile -o self.rules self.rules
is "$rc" 2 "-o naming a rule file is a usage error"
check "the rule file is untouched" cmp -s self.rules good.linux.rules

mkdir adir
vc linux compile -o adir good.linux.rules
is "$rc" 1 "-o naming a directory fails"
vc linux compile -o /dev/null good.linux.rules
is "$rc" 0 "-o /dev/null is written, not replaced"
check "/dev/null is still a character device" test -c /dev/null
vc linux compile -o nodir/x.out good.linux.rules
is "$rc" 1 "-o in a missing directory fails"
has err "nodir/x.out" "... naming the file"

if [ -w /dev/full ]; then
	rc=0
	"$VBOXC" compile --target=linux good.linux.rules >/dev/full \
		2>err || rc=$?
	is "$rc" 1 "a full standard output fails (exit 1)"
	has err "error writing standard output" "... and says so"
else
	ok "# SKIP write errors: no /dev/full"
fi

# --- preflight --------------------------------------------------------------
for t in $targets; do
	f=good.$t.rules
	vc "$t" preflight --per-row "$f"
	is "$rc" 0 "$t: preflight of supported rules exits 0"
	empty err "$t: ... with nothing on stderr"
	is "$(grep -c '^fs [0-9]* ' out)" 2 "$t: one line per file row"
	is "$(grep -c '^net [0-9]* ' out)" 0 "$t: no network row, no line"
	line_re="^((fs|net) [0-9]+ $f:[0-9]+:[0-9]+ '[^']*'|reserved '[^']*')"
	line_re="$line_re: (kernel|launch|proxy|absorbed|reserved): .+"
	check "$t: every line is DOMAIN INDEX SOURCE 'ROW': LANDING: REASON" \
		sh -c '! grep -Ev "$1" out' sh "$line_re"
	has out "fs 1 $f:3:1 'rw:" "$t: the second row's line"
	cp out "pf.$t.text"
	vc "$t" preflight --format=json "$f"
	is "$rc" 0 "$t: preflight --format=json exits 0"
	is "$(wc -l <out | tr -d ' ')" 1 "$t: one JSON object, one line"
	if command -v jq >/dev/null 2>&1; then
		check "$t: JSON has the documented members" jq_e \
			'(keys_unsorted ==
			  ["target","fs","net","reserved","unsupported"]) and
			 .target == "'"$t"'" and .unsupported == 0 and
			 (.fs | length == 2) and (.net | length == 0) and
			 (.fs[0] | keys_unsorted ==
			  ["row","source","rule","landing","reason"]) and
			 ([.reserved[] | keys_unsorted == ["entry","reason"]] |
			  all)' out
		sed -n "s/^[a-z]* [0-9]* [^ ]* '[^']*': \\([a-z]*\\): .*/\\1/p" \
			"pf.$t.text" >"pf.$t.landings"
		jq -r '.fs[], .net[] | .landing' out >"pf.$t.jlandings"
		check "$t: JSON and text agree on the landings" \
			cmp -s "pf.$t.jlandings" "pf.$t.landings"
	else
		ok "# SKIP $t: preflight JSON members (no jq)"
	fi
	vc "$t" preflight --per-row "shadow.$t.rules"
	is "$rc" 0 "$t: preflight with a warning exits 0"
	has out "fs 1 shadow.$t.rules:3:1 'rw:" "$t: the shadowed row is listed"
	check "$t: ... as absorbed" grep -q "^fs 1 .*: absorbed: " out
	has err "warning:" "$t: the warning goes to stderr"
	vc "$t" preflight -Werror "shadow.$t.rules"
	is "$rc" 1 "$t: preflight -Werror with a warning exits 1"
done

# linux: a denied path needs host facts, so it lands at launch: only a
# plan can carry it, a static bwrap list cannot (linux.h).
printf 'rw:/srv/work/**\n!deny:/srv/work/secret\n' >launch.rules
vc linux preflight --per-row launch.rules
is "$rc" 0 "linux: preflight of a launch-class row exits 0"
check "linux: the deny row lands at launch" \
	grep -q "^fs 1 launch.rules:2:1 '!deny:/srv/work/secret': launch: " out
vc linux compile -o launch.out launch.rules
is "$rc" 1 "linux: the static profile refuses a launch-class row"
has err "launch.rules:2:1: error: row 1 '!deny:/srv/work/secret'" \
	"linux: ... naming the row"
has err "--emit=plan" "linux: ... and pointing to --emit=plan"
check "linux: ... writing nothing" test ! -e launch.out
vc linux compile --emit=plan -o launch.plan launch.rules
is "$rc" 0 "linux: --emit=plan carries the launch-class row"
# An LX_LAUNCH mount (kind 10) for row 1, with no source and no
# destination (plan/linux_artifact.h).
check "linux: ... as a launch mount for the row" sh -c \
	"od -An -tx1 -v launch.plan | tr -d ' \\n' |
	 grep -q 0a000000010000000000000000000000"
vc darwin compile launch.rules
is "$rc" 0 "darwin: the same rules are kernel rows"

# linux: deny and ro rows that no mount made at launch can hold (globs
# inside a writable region, patterns starting with '**') land supervised
# (doc/targets.md): preflight says so with the cost, compile and check
# note each row, only a plan carries them; container mode holds them
# with its path supervisor too, and darwin keeps its own answer.
printf '%s\n' 'rw:/srv/work/**' '!deny:/srv/work/**/.env' '!deny:**/.env' \
	'!ro:/srv/work/**/.git/hooks/**' >sup.rules
sup_why="judged per path call by the launcher's supervisor: files created later are covered; every open, create, rename, link, unlink and metadata change in the sandbox costs a round trip (bench/README.md)"
vc linux preflight --per-row sup.rules
is "$rc" 0 "linux: preflight of supervised rows exits 0"
empty err "linux: ... with nothing on stderr"
has out "fs 0 sup.rules:1:1 'rw:/srv/work/**': kernel: " \
	"linux: the workspace is a kernel row"
has out "fs 1 sup.rules:2:1 '!deny:/srv/work/**/.env': supervised: $sup_why" \
	"linux: a deny glob in the workspace lands supervised, with its cost"
has out "fs 2 sup.rules:3:1 '!deny:**/.env': supervised: $sup_why" \
	"linux: a deny pattern starting with '**' lands supervised"
has out "fs 3 sup.rules:4:1 '!ro:/srv/work/**/.git/hooks/**': supervised: $sup_why" \
	"linux: an ro glob in the workspace lands supervised"
vc linux preflight --format=json sup.rules
is "$rc" 0 "linux: preflight --format=json of supervised rows exits 0"
if command -v jq >/dev/null 2>&1; then
	check "linux: JSON says supervised, and nothing is unsupported" jq_e \
		'.unsupported == 0 and
		 ([.fs[].landing] ==
		  ["kernel","supervised","supervised","supervised"])' out
else
	ok "# SKIP linux: supervised JSON (no jq)"
fi
vc linux compile --emit=plan -o sup.plan sup.rules
is "$rc" 0 "linux: --emit=plan carries supervised rows"
has err "sup.rules:3:1: note: row 2 '!deny:**/.env' lands supervised on linux: $sup_why" \
	"linux: ... and compile notes each one"
is "$(grep -c ': note: row [0-9]* .* lands supervised on linux' err)" 3 \
	"linux: ... one note per supervised row"
vc linux compile -o sup.out sup.rules
is "$rc" 1 "linux: the static profile refuses supervised rows"
has err "sup.rules:3:1: error: row 2 '!deny:**/.env' is judged by vbox-exec's supervisor: a static bubblewrap list cannot hold it; use --emit=plan with vbox-exec" \
	"linux: ... naming the row and pointing to --emit=plan"
check "linux: ... writing nothing" test ! -e sup.out
run "$VBOXC" check --target=linux sup.rules
is "$rc" 0 "linux: check --target=linux of supervised rows exits 0"
has err "sup.rules:2:1: note: row 1 '!deny:/srv/work/**/.env' lands supervised on linux: $sup_why" \
	"linux: check notes a supervised row with its cost"
check "linux: ... and no refusal" sh -c '! grep -q "would refuse" err'
run "$VBOXC" check --target=linux --format=json sup.rules
if command -v jq >/dev/null 2>&1; then
	check "linux: check JSON has one target note per supervised row" jq_e \
		'[.notes[] | select(.kind == "target" and .target == "linux" and
		  (.message | test("^row [123] .* lands supervised on linux: ")))] |
		 length == 3' out
else
	ok "# SKIP linux: check JSON notes (no jq)"
fi
vc linux preflight --per-row --mode=container sup.rules
is "$rc" 0 "linux container mode: supervised rows are held there too"
has out "fs 2 sup.rules:3:1 '!deny:**/.env': supervised: the path supervisor judges every path call, as in namespace mode" \
	"linux container mode: ... by the path supervisor"
# Nothing writable, nothing denied: an ro row starting with '**' is
# redundant in both modes, and needs no supervisor.
printf 'ro:**/.git/hooks/**\n' >ro-only.rules
vc linux preflight --per-row ro-only.rules
has out "fs 0 ro-only.rules:1:1 'ro:**/.git/hooks/**': absorbed: redundant: the root is mounted read-only (@default write deny) and no lower row makes anything writable" \
	"linux: an ro row starting with '**' over a read-only machine is absorbed"
vc linux preflight --per-row --mode=container ro-only.rules
has out "fs 0 ro-only.rules:1:1 'ro:**/.git/hooks/**': absorbed: reads are open and writes outside the writable regions are denied: nothing to grant" \
	"linux container mode: ... and absorbed there, for that reason"
vc darwin preflight --per-row sup.rules
check "darwin: keeps its own answer (no supervised landing)" \
	sh -c '! grep -q ": supervised: " out'
has out "fs 2 sup.rules:3:1 '!deny:**/.env': kernel: " \
	"darwin: '**/.env' is a kernel row there"
# A supervised ro row cannot show what a lower row's mount hides.
printf '%s\n' 'rw:/srv/work/**' '!ro:/srv/work/**/.git/hooks/**' \
	'!deny:/srv/work/keys' >hide.rules
vc linux preflight --per-row hide.rules
is "$rc" 1 "linux: a supervised ro row over a lower deny is refused"
has out "fs 1 hide.rules:2:1 '!ro:/srv/work/**/.git/hooks/**': unsupported: a supervised read-only row cannot show what the mounts of row 2 hide" \
	"linux: ... naming the lower row"

# windows: the deny network posture is refused for the table as a
# whole, by compile and preflight alike, even with no network row.
printf 'rw:C:\\work\\**\n' >posture.rules
vc windows compile -o posture.out posture.rules
is "$rc" 1 "windows: compile refuses the deny network posture"
has err "unsupported on windows" "windows: ... saying so"
check "windows: ... writing nothing" test ! -e posture.out
vc windows preflight --format=json posture.rules
is "$rc" 1 "windows: preflight exits 1 for the posture too"
check "windows: ... still printing the table" grep -q '"target":"windows"' out
has err "unsupported on windows" "windows: ... and saying why on stderr"

vc linux preflight bad.rules
is "$rc" 1 "preflight of invalid rules exits 1"
empty out "... printing no table"
has err "bad.rules:2:1: error: unknown directive '@defualt'" \
	"... and the diagnostics on stderr"

done_testing
