#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/explain_plan.sh - `vboxc explain PLAN` answers from a plan
# file alone exactly as explaining the rules it was compiled from
# (doc/rules.md, "explain"): text and JSON, the same bytes, for every
# valid testdata/ case on each of its targets (its .queries file and
# queries near every row of its table) and for random tables on the
# three targets; and every other command given a plan says so in one
# line, as explain does for a plan mixed with rules, -D, -I or another
# --target.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY (the queries are generated with it)"
gen="$PY $(cd "$srcdir" && pwd)/tests/cli/explain_plan_gen.py"
data=$(cd "$srcdir/testdata" && pwd)

vboxc() {
	vboxc_fixed "$@"
}

# same NAME TARGET RULES QUERIES DEFS... - explain the rules and the plan
# compiled from them (in the rules' directory, so both name files alike)
# in text and JSON; true when every answer and the exit statuses agree.
# Sets $compiled to no when the target refuses the rules.
same() {
	_n=$1 _t=$2 _r=$3 _q=$4
	shift 4
	compiled=yes
	if ! vboxc compile --target="$_t" --emit=plan "$@" \
		-o "$workdir/p.bin" "$_r" 2>"$workdir/cerr"; then
		compiled=no
		return 0
	fi
	for _f in text json; do
		_a=0 _b=0
		vboxc explain --target="$_t" --format=$_f "$@" "$_r" \
			--queries="$_q" >"$workdir/a" 2>/dev/null || _a=$?
		vboxc explain --format=$_f "$workdir/p.bin" \
			--queries="$_q" >"$workdir/b" 2>"$workdir/berr" || _b=$?
		if [ "$_a" != "$_b" ] || ! cmp -s "$workdir/a" "$workdir/b" ||
			[ -s "$workdir/berr" ]; then
			echo "# $_n $_t $_f: exit $_a vs $_b"
			diff "$workdir/a" "$workdir/b" | head -n 6 |
				sed 's/^/# /' || :
			sed 's/^/# stderr: /' "$workdir/berr" | head -n 3
			return 1
		fi
	done
	nq=$((nq + $(grep -c . "$workdir/a")))
}

# ---- every valid testdata case, on each of its targets -------------------
cd "$data"
ncase=0 nq=0 nrefused=0 bad=
for f in ok_*.rules; do
	[ "$(case_header "$f" EXPECT)" = ok ] || continue
	name=${f%.rules}
	# shellcheck disable=SC2046 # the DEFINES words are -D arguments
	set -- $(for d in $(case_header "$f" DEFINES); do printf ' -D %s' "$d"; done)
	for t in $(case_header "$f" TARGETS); do
		defs="$*"
		case $t:$defs in
		windows:*HOME=*) ;;
		windows:*) set -- "$@" -D 'HOME=C:\Users\tester' ;;
		esac
		vboxc compile --target="$t" --emit=ir "$@" "$f" \
			>"$workdir/ir.json" 2>/dev/null || :
		: >"$workdir/q"
		[ ! -s "$workdir/ir.json" ] ||
			$gen queries "$workdir/ir.json" >"$workdir/q"
		[ ! -f "$name.queries" ] || cat "$name.queries" >>"$workdir/q"
		if ! same "$name" "$t" "$f" "$workdir/q" "$@"; then
			bad="$bad $name.$t"
		elif [ "$compiled" = yes ]; then
			ncase=$((ncase + 1))
		else
			nrefused=$((nrefused + 1))
		fi
		# shellcheck disable=SC2086 # back to the case's own -D words
		set -- $defs
	done
done
is "${bad:-none}" none \
	"testdata: explain PLAN = explain RULES ($ncase plans, $nq answers; $nrefused refused by their target)"
check "testdata: at least 50 case plans compared" [ "$ncase" -ge 50 ]

# ---- random tables --------------------------------------------------------
mkdir "$workdir/rand"
cd "$workdir/rand"
for t in linux darwin windows; do
	$gen random 34 "$t" . 60
	ncase=0 nq=0 bad=
	for f in rand_*.rules; do
		if ! same "${f%.rules}" "$t" "$f" "${f%.rules}.queries"; then
			bad="$bad ${f%.rules}"
		elif [ "$compiled" = yes ]; then
			ncase=$((ncase + 1))
		fi
	done
	is "${bad:-none}" none "random $t tables: explain PLAN = explain RULES ($ncase plans, $nq answers)"
	check "random $t tables: at least 15 plans compared" [ "$ncase" -ge 15 ]
	rm -f rand_*
done

# ---- a plan where rules are expected: one line ----------------------------
cd "$workdir"
printf 'rw: /srv/work\n!deny: /srv/work/keys\n' >r.rules
vboxc compile --target=linux --emit=plan -o plan.bin r.rules
for cmd in check compile preflight; do
	run vboxc "$cmd" --target=linux plan.bin
	is "$rc:$(wc -l <err)" "1:1" "$cmd PLAN: exit 1, one line"
	check "$cmd PLAN: the line says it is a plan and names explain" \
		grep -q "^vboxc: error: 'plan.bin' is a plan compiled by vboxc, not a rule file: 'vboxc explain plan.bin --read=PATH' answers from it" err
done
run vboxc diff r.rules plan.bin
is "$rc:$(wc -l <err)" "2:1" "diff RULES PLAN: exit 2 (trouble), one line"
run vboxc check - <plan.bin
check "check - with a plan on stdin: names explain with PLAN" \
	grep -q "'<stdin>' is a plan .*'vboxc explain PLAN --read=PATH'" err
run vboxc explain r.rules plan.bin --read=/srv/work/keys/k
is "$rc:$(wc -l <err)" "1:1" "explain RULES PLAN: exit 1, one line"
run vboxc explain plan.bin r.rules --read=/srv/work/keys/k
check "explain PLAN RULES: one plan alone" \
	grep -q "^vboxc: error: 'plan.bin' is a plan: explain reads one plan alone, or rule files$" err
run vboxc explain -D X=1 plan.bin --read=/x
check "explain -D PLAN: -D does not apply" grep -q "^vboxc: error: -D does not apply" err
run vboxc explain -I . plan.bin --read=/x
check "explain -I PLAN: -I does not apply" grep -q "^vboxc: error: -I does not apply" err
run vboxc explain --target=darwin plan.bin --read=/x
is "$rc:$(cat err)" "1:vboxc: error: the plan 'plan.bin' is for linux, not --target=darwin" \
	"explain --target=OTHER PLAN: says which target the plan is for"
run vboxc explain --target=linux plan.bin --write=/srv/work/keys/k
is "$rc:$(cat out)" "0:write /srv/work/keys/k: deny by row 1 (deny, level 1) at r.rules:2:1" \
	"explain --target=SAME PLAN: answered, naming the row and its source"
# Rules through a named pipe, 10 times: a peek that opened the FIFO let
# the writer in and lost its bytes, and the loader's open then waited
# for a writer forever (one run in six); each run is bounded.
mkfifo fifo.rules
fifo_bad=
for i in 1 2 3 4 5 6 7 8 9 10; do
	cat r.rules >fifo.rules &
	writer=$!
	run timeout 20 "$VBOXC" explain fifo.rules --write=/srv/work/keys/k
	kill "$writer" 2>/dev/null || :
	wait "$writer" 2>/dev/null || :
	[ "$rc:$(cat out)" = "0:write /srv/work/keys/k: deny by row 1 (deny, level 1) at fifo.rules:2:1" ] ||
		fifo_bad="$fifo_bad $i:$rc"
done
is "$fifo_bad" "" "rules through a named pipe: not peeked at for a plan, read whole (10 runs)"
head -c 100 plan.bin >cut.bin
run vboxc explain cut.bin --read=/x
is "$rc:$(wc -l <err)" "1:1" "a damaged plan: exit 1, one line"
check "a damaged plan: says what is wrong" grep -q "^vboxc: error: cut.bin: truncated" err

done_testing
