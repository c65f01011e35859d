#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/diff.sh - "vboxc diff OLD NEW" (doc/reviewing.md), held
# against "vboxc explain" on both files:
#
#   - the command line: two operands, exit statuses 0 (nothing widens),
#     1 (something widens), 2 (usage, invalid rules), and text, JSON and
#     SARIF output (the SARIF log valid, a widening an error at the NEW
#     row, a narrowing a note);
#   - random pairs: a seeded table (awk) changed once (a row added,
#     removed, moved, re-levelled or given another effect, or a default
#     flipped), compared on linux, darwin and windows.  Every reported
#     class's witness is asked to explain on OLD and NEW, which must give
#     the verdicts, rows and sources diff printed; every probe (a fixed
#     list of paths and destinations) that explain decides differently
#     must fall in a reported class (its operation and both rows); and
#     changes known to change nothing (a copy of a row inserted below it,
#     two neighbours that cannot overlap swapped) must report nothing and
#     exit 0;
#   - goldens that show every change (doc/reviewing.md, "What to
#     golden"): for each pair diff says differs on a target, what the
#     page says to golden for that target (the profile; on linux with
#     --emit=table) differs between OLD and NEW.
#
# The seed is printed; VBOX_DIFF_SEED repeats a run, VBOX_DIFF_CLI_PAIRS
# sets the pairs per target (default 30).

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"
command -v jq >/dev/null 2>&1 || skip_all "jq not installed (diff's JSON is read with it)"
cd "$workdir"

# vboxc ARGS... - in a fixed environment (sanitizer settings pass).
vboxc() {
	vboxc_fixed "$@"
}

# sane - no crash, no sanitizer report in $workdir/err
sane() {
	! grep -q -e AddressSanitizer -e LeakSanitizer -e 'runtime error:' \
		"$workdir/err" && [ "$rc" -le 2 ]
}

# ---- the command line --------------------------------------------------
cat >old.rules <<'EOF'
@default write deny
!deny:/srv/work/keys
rw:/srv/work/**
allow:api.example.com:443
EOF
cat >narrow.rules <<'EOF'
@default write deny
!deny:/srv/work/keys
rw:/srv/work/**
!ro:/srv/work/vendor
EOF
cat >wide.rules <<'EOF'
@default write deny
rw:/srv/work/**
!deny:/srv/work/keys/**
allow:api.example.com:443
allow:*.cdn.example.net:443
EOF

run vboxc diff --target=linux old.rules old.rules
is "$rc:$(cat out)" "0:" "a file against itself: exit 0, nothing printed"
run vboxc diff --target=linux old.rules narrow.rules
is "$rc" 0 "only narrower: exit 0"
check "... and the classes are printed" grep -q '^narrows write /srv/work/vendor$' out
run vboxc diff --target=linux old.rules wide.rules
is "$rc" 1 "something widens: exit 1"
check "... the widening destination is named" \
	grep -q '^widens net x.cdn.example.net:443$' out
check "... with the NEW row that decides it" \
	grep -q '^  new: allow by row 1 (allow, level 0) at wide.rules:5:1: allow:\*.cdn.example.net:443$' out
check "... and what OLD did" \
	grep -q '^  old: deny by default (@default net deny)$' out
check "... and a summary" grep -q '^[0-9]* class.* differ.*: [0-9]* widen' out
run vboxc diff --target=linux old.rules
is "$rc" 2 "one operand: usage error (2)"
run vboxc diff --target=linux old.rules wide.rules narrow.rules
is "$rc" 2 "three operands: usage error (2)"
printf 'rw:/srv/**\n@defualt write rw\n' >bad.rules
run vboxc diff --target=linux old.rules bad.rules
is "$rc" 2 "invalid rules: exit 2"
check "... with the diagnostic" grep -q "^bad.rules:2:1: error: unknown directive '@defualt'" err
check "... and nothing on stdout" test ! -s out
run vboxc diff --target=linux --format=yaml old.rules wide.rules
is "$rc" 2 "an unknown format: usage error"
run vboxc diff --help
check "--help describes diff" grep -q 'Usage: vboxc diff \[OPTIONS\] OLD NEW' out

run vboxc diff --target=linux --format=json old.rules wide.rules
is "$rc" 1 "JSON: exit 1 when something widens"
check "JSON: one object" sh -c "jq -e 'type == \"object\"' out >/dev/null"
is "$(jq -r '[.target, .old, .new, (.widens|tostring), (.narrows|tostring)] | join(" ")' out)" \
	"linux old.rules wide.rules 1 0" "JSON: target, files, counts"
is "$(jq -c '.differences[] | select(.query == "net x.cdn.example.net:443") | [.domain, .change, .old.row, .new.row, .new.source, .new.rule]' out)" \
	'["net","widens",-1,1,"wide.rules:5:1","allow:*.cdn.example.net:443"]' \
	"JSON: a class with both sides"
cp out wide.json

run vboxc diff --target=linux --format=sarif old.rules wide.rules
is "$rc" 1 "SARIF: exit 1 when something widens"
cp out wide.sarif
jq -r -f "$srcdir/tests/lib/sarif_schema.jq" wide.sarif >violations || :
is "$(cat violations)" "" "SARIF: the log has the schema's required members"
is "$(jq -r '.runs[0].results[] | select(.level == "error") | .locations[0].physicalLocation | "\(.artifactLocation.uri):\(.region.startLine):\(.region.startColumn)"' wide.sarif)" \
	"wide.rules:5:1" "SARIF: the widening is an error at the NEW row"
run vboxc diff --target=linux --format=sarif old.rules narrow.rules
is "$rc:$(jq -r '[.runs[0].results[].level] | unique | join(",")' out)" \
	"0:note" "SARIF: narrowings are notes, exit 0"
run vboxc diff --target=linux --format=sarif old.rules wide.rules
if cmp -s out wide.sarif; then ok "SARIF: the same bytes again"; else not_ok "SARIF: the same bytes again"; fi

# ---- random pairs against explain ---------------------------------------
seed=${VBOX_DIFF_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
npairs=${VBOX_DIFF_CLI_PAIRS:-30}
echo "# seed $seed (VBOX_DIFF_SEED=$seed repeats this run), $npairs pairs per target"

# gen_pair N TARGET - old.rules and new.rules for pair N, and the kind of
# change on stdout ("same" when it changes nothing)
gen_pair() {
	awk -v seed="$seed" -v n="$1" -v T="$2" '
	function pick(s,   a, k) { k = split(s, a, " "); return a[1 + int(rand() * k)] }
	function row(   r, p, i, lev) {
		lev = substr("!!", 1, int(rand() * 3))
		if (rand() < 0.2)
			return lev pick("allow deny") ":" pick("api.example.com *.example.com localhost 10.0.0.1 [2001:db8::1] x.api.example.com") pick(":443 :80 :*") ""
		if (rand() < 0.3)
			return lev pick("deny ro rw") ":" pick(W)
		p = pick(R)
		for (i = int(rand() * 3); i > 0; i--)
			p = p "/" pick("a b ab x.c .env * ? a* *.c ** b?")
		return lev pick("deny ro rw") ":" p
	}
	function path_like(l,   t) { t = substr(l, index(l, ":") + 1); return t ~ /^(\/|\*\*|[A-Za-z]:)/ }
	function first(l,   t) { t = substr(l, index(l, ":") + 1); sub(/^\//, "", t); sub(/\/.*/, "", t); return tolower(t) }
	BEGIN {
		srand((seed % 20000000) * 1000 + n)
		if (T == "windows") {
			R = "C:/srv C:/srv/a D:/tmp c:/Srv"
			W = "**/.env **/*.c C:/srv/**/x.c C:/srv/*/b D:/tmp/** C:/srv"
		} else {
			R = "/srv /srv/a /tmp /Srv"
			W = "**/.env **/*.c /srv/**/x.c /srv/*/b /tmp/** /srv"
		}
		wr = pick("deny rw"); nt = T == "windows" ? "open" : pick("deny open")
		head = "@default write " wr "\n@default net " nt "\n"
		m = 1 + int(rand() * 6)
		for (i = 1; i <= m; i++)
			L[i] = row()
		for (i = 1; i <= m; i++)
			print L[i] > "old.body"
		# three in four change something, one in four nothing
		k = rand() < 0.75 ? int(rand() * 5) : 5 + int(rand() * 2)
		kind = k < 5 ? "change" : "same"; j = 1 + int(rand() * m)
		if (k == 1 && m == 1) k = 0
		if (k == 2 && m == 1) k = 3
		if (k == 0) { for (i = m; i >= j; i--) L[i + 1] = L[i]; L[j] = row(); m++ }
		else if (k == 1) { for (i = j; i < m; i++) L[i] = L[i + 1]; m-- }
		else if (k == 2) { t = L[j]; i = 1 + (j + int(rand() * (m - 1))) % m; L[j] = L[i]; L[i] = t }
		else if (k == 3) {
			lv = match(L[j], /[^!]/) - 1
			sub(/^!*/, substr("!!", 1, (lv + 1 + int(rand() * 2)) % 3), L[j])
		}
		else if (k == 4) { head = "@default write " (wr == "rw" ? "deny" : "rw") "\n@default net " nt "\n" }
		else if (k == 5) { for (i = m; i > j; i--) L[i + 1] = L[i]; L[j + 1] = L[j]; m++ }
		else {
			for (i = 1; i < m; i++)
				if (path_like(L[i]) != path_like(L[i + 1]) ||
				    (path_like(L[i]) && first(L[i]) !~ /[*?]/ && first(L[i + 1]) !~ /[*?]/ &&
				     first(L[i]) != first(L[i + 1]) && L[i] !~ /:\*\*/ && L[i + 1] !~ /:\*\*/)) {
					t = L[i]; L[i] = L[i + 1]; L[i + 1] = t; break
				}
		}
		printf "%s", head > "old.rules"
		close("old.body")
		while ((getline l < "old.body") > 0) print l > "old.rules"
		printf "%s", head > "new.rules"
		for (i = 1; i <= m; i++) print L[i] > "new.rules"
		print kind
	}'
	rm -f old.body
}

# answers - explain's JSON lines as "[ALLOW,ROW,SOURCE]", the form the
# facts of diff's JSON take (jq -c '[.allow, .row, .source]', without
# starting jq once per file)
answers() {
	sed -n 's/^.*"allow":\([a-z]*\),"row":\(-*[0-9]*\),.*"source":\("[^"]*"\|null\),.*$/[\1,\2,\3]/p'
}

# probes TARGET - read/write/net queries of the vocabulary's paths
probes() {
	_r=
	[ "$1" = windows ] && _r=/c
	for a in srv tmp a; do
		for b in "" a b ab x.c .env zz; do
			for c in "" x.c .env b q.c; do
				p=$_r/$a${b:+/$b}${c:+/$c}
				echo "read $p"
				echo "write $p"
			done
		done
	done
	for h in api.example.com x.api.example.com z.example.com example.com \
		localhost 127.0.0.2 10.0.0.1 10.0.0.2 '[2001:db8::1]' other.org; do
		for port in 443 80 22; do
			echo "net $h:$port"
		done
	done
}

# gold SIDE ARGS... - what doc/reviewing.md says to golden for the
# target of ARGS, into SIDE.gold: the profile (bwrap's list one argument
# a line) and on linux --emit=table, a refused mode as its exit status.
# Fails when every mode is refused (a table the target cannot hold).
gold() {
	_side=$1
	shift
	_modes=profile _made=
	case "$*" in *--target=linux*) _modes="profile table" ;; esac
	: >"$_side.gold"
	for _m in $_modes; do
		if vboxc compile --emit="$_m" "$@" "$_side.rules" \
			>"$_side.part" 2>/dev/null; then
			_made=1
			tr '\0' '\n' <"$_side.part" >>"$_side.gold"
		else
			echo "--emit=$_m refused" >>"$_side.gold"
		fi
	done
	[ -n "$_made" ]
}

gold_pairs=0 gold_missed=0
classes_seen=0 differing=0 same_pairs=0 bad_pairs=0 missed=0
for t in linux darwin windows; do
	probes "$t" >probes.q
	set -- --target="$t"
	[ "$t" = windows ] && set -- "$@" -D 'HOME=C:\Users\tester'
	i=0
	while [ "$i" -lt "$npairs" ]; do
		i=$((i + 1))
		kind=$(gen_pair "$i" "$t")
		run vboxc diff --format=json "$@" old.rules new.rules
		if ! sane || [ "$rc" -eq 2 ]; then
			bad_pairs=$((bad_pairs + 1))
			echo "# $t pair $i: diff failed (exit $rc)"
			sed 's/^/#   /' err | head -n 5
			continue
		fi
		cp out diff.json
		# one jq: the count, the widenings, each class's query, its
		# two sides and its key "OP OLDROW NEWROW"
		jq -r '"n \(.differences | length)", "w \(.widens)",
			(.differences[] | "q \(.query)",
			 "o \([.old.allow, .old.row, .old.source])",
			 "N \([.new.allow, .new.row, .new.source])",
			 "k \(.query | split(" ")[0]) \(.old.row) \(.new.row)")' \
			diff.json >facts
		n=$(sed -n 's/^n //p' facts)
		want_rc=0
		[ "$(sed -n 's/^w //p' facts)" -gt 0 ] && want_rc=1
		if [ "$rc" -ne "$want_rc" ]; then
			bad_pairs=$((bad_pairs + 1))
			echo "# $t pair $i: exit $rc, want $want_rc"
		fi
		if [ "$kind" = same ]; then
			same_pairs=$((same_pairs + 1))
			if [ "$n" -ne 0 ] || [ "$rc" -ne 0 ]; then
				bad_pairs=$((bad_pairs + 1))
				echo "# $t pair $i: a change that changes nothing reported $n classes"
			fi
		fi
		# every witness, explained on both files
		sed -n 's/^q //p' facts >witness.q
		sed -n 's/^o //p' facts >want.old
		sed -n 's/^N //p' facts >want.new
		sed -n 's/^k //p' facts | sort -u >classes
		for side in old new; do
			[ "$n" -gt 0 ] || break
			vboxc explain --format=json "$@" --queries=witness.q \
				$side.rules 2>/dev/null | answers >got.$side
			if ! cmp -s got.$side want.$side; then
				bad_pairs=$((bad_pairs + 1))
				echo "# $t pair $i: explain on $side.rules disagrees with a witness"
				diff want.$side got.$side | sed 's/^/#   /' | head -n 6
			fi
		done
		classes_seen=$((classes_seen + n))
		# what reviewers golden changes with every decision
		if [ "$n" -gt 0 ] && gold old "$@" && gold new "$@"; then
			gold_pairs=$((gold_pairs + 1))
			if cmp -s old.gold new.gold; then
				gold_missed=$((gold_missed + 1))
				echo "# $t pair $i: $n classes differ, the goldens do not"
				sed 's/^/#   old: /' old.rules
				sed 's/^/#   new: /' new.rules
			fi
		fi
		# every probe explain decides differently is in a reported class
		for side in old new; do
			vboxc explain --format=json "$@" --queries=probes.q \
				$side.rules 2>/dev/null | answers >p.$side
		done
		paste -d '|' probes.q p.old p.new |
			awk -F'|' '{ split($1, q, " "); split($2, o, ","); split($3, w, ",")
				if (o[1] != w[1]) print q[1], o[2], w[2] }' |
			sort -u >probe.classes
		if [ -s probe.classes ]; then
			differing=$((differing + 1))
		fi
		if [ -n "$(comm -23 probe.classes classes)" ]; then
			missed=$((missed + 1))
			echo "# $t pair $i: explain differs on probes no class covers:"
			comm -23 probe.classes classes | sed 's/^/#   /' | head -n 5
			sed 's/^/#   old: /' old.rules
			sed 's/^/#   new: /' new.rules
		fi
	done
done
echo "# $((3 * npairs)) pairs: $differing with a probe explain decides differently, $classes_seen classes, $same_pairs unchanging"
is "$bad_pairs" 0 "diff runs, its exit status follows its widenings, explain confirms every witness ($classes_seen), and changes that change nothing report nothing"
is "$missed" 0 "every probe explain decides differently falls in a reported class"
is "$gold_missed" 0 "the goldens of every pair that differs differ ($gold_pairs pairs compiled)"
check "the pairs are not all alike ($differing differ on probes, $same_pairs unchanging)" \
	test "$differing" -gt 0 -a "$same_pairs" -gt 0

done_testing
