#!/bin/sh
# diff.sh - "vboxc diff OLD NEW" of two 10,000-row tables (target: each
# under 2 s).  Run by run.sh ("make bench"); see bench/README.md.
#
# OLD is gen_rules.awk's BENCH_DIFF_ROWS-row table; NEW is OLD edited the
# way a pull request edits a policy, or another table altogether:
#
#   same        OLD against itself (nothing differs)
#   add net     a network allow row inserted in the middle (widens)
#   remove      a 'deny:/home/...' row from the middle on removed
#   relevel     an 'rw:' row from the middle on raised to level 3
#   move        that 'rw:' row moved to the top of the table
#   unrelated   another seed's table: every row differs, the worst case
#
# each on linux and darwin (case folding makes the segment classes
# differ).  Every pair is run once untimed first: diff must exit 0 or 1
# (2 is an error, which fails the benchmark); the timed runs then let
# exit 1 through (hyperfine --ignore-failure).
#
# Environment:
#   VBOXC             vboxc (required)
#   AWK               awk (default: awk)
#   BENCH_DIFF_ROWS   rows of each table (default: 10000)
#   BENCH_RUNS        timed runs per workload, at least 5 (default: 5)
#   BENCH_TIMER       hyperfine|date (default: hyperfine when installed)
#   BENCH_RESULTS     also append the result lines to this file
set -eu
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
: "${VBOXC:?set VBOXC to the vboxc binary}"
AWK=${AWK:-awk}
rows=${BENCH_DIFF_ROWS:-10000}
runs=${BENCH_RUNS:-5}
[ "$runs" -ge 5 ] 2>/dev/null || runs=5
results=${BENCH_RESULTS:-/dev/null}
. "$here/timer.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/vbox-diff.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# median CMD... - the median wall-clock seconds of running CMD (its
# arguments, no shell) $runs times after one warm-up run.
median() {
	if [ "$BENCH_TIMER" = hyperfine ]; then
		# One word per argument: no shell splits them again.
		if ! hyperfine -N --ignore-failure --style none \
			--runs "$runs" --warmup 1 \
			--export-csv "$work/hf.csv" "$*" \
			>/dev/null 2>"$work/hf.err"; then
			cat "$work/hf.err" >&2
			return 1
		fi
		tail -n 1 "$work/hf.csv" | "$AWK" -F, '{ print $(NF - 4) }'
		return
	fi
	: >"$work/times"
	_i=0
	while [ "$_i" -lt "$runs" ]; do
		_t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || :
		_t1=$(date +%s%N)
		echo "$_t0 $_t1" | "$AWK" '{ printf "%.6f\n", ($2 - $1) / 1e9 }' \
			>>"$work/times"
		_i=$((_i + 1))
	done
	sort -n "$work/times" | "$AWK" '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2];
		else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

old=$work/old.rules
"$AWK" -v rows="$rows" -f "$here/gen_rules.awk" >"$old"
"$AWK" -v rows="$rows" -v seed=7 -f "$here/gen_rules.awk" >"$work/unrelated"
# pick RE - the number of the first line from the middle on matching RE
pick() {
	"$AWK" -v m="$(($(wc -l <"$old") / 2))" -v re="$1" \
		'NR >= m && $0 ~ re { print NR; exit }' "$old"
}
mid=$(pick '^[!a-z]')
home=$(pick '^deny:/home/')
rw=$(pick '^rw:')
cp "$old" "$work/same"
"$AWK" -v m="$mid" 'NR == m { print "allow:review.example.net:443" } { print }' \
	"$old" >"$work/add"
"$AWK" -v m="$home" 'NR != m' "$old" >"$work/remove"
"$AWK" -v m="$rw" 'NR == m { $0 = "!!!" $0 } { print }' "$old" >"$work/relevel"
"$AWK" -v m="$rw" 'NR == m { next } /^[!a-z]/ && !done { print line; done = 1 }
	{ print }' line="$(sed -n "${rw}p" "$old")" "$old" >"$work/move"

for t in linux darwin; do
	for w in same add remove relevel move unrelated; do
		status=0
		"$VBOXC" diff --target="$t" "$old" "$work/$w" \
			>"$work/out" 2>"$work/err" || status=$?
		if [ "$status" -gt 1 ]; then
			head -n 20 "$work/err" >&2
			echo "bench: vboxc diff failed ($status) on $w, $t" >&2
			exit 1
		fi
		classes=$(sed -n 's/^\([0-9]*\) class.*/\1/p' "$work/out")
		s=$(median "$VBOXC" diff --target="$t" "$old" "$work/$w")
		ok=$("$AWK" -v s="$s" 'BEGIN { print (s < 2) ? "ok" : "MISSED" }')
		printf '%-28s %9s %9s %11.4f  %s\n' "diff $w ($t)" "$rows" \
			"${classes:-0}" "$s" "exit $status; target < 2 s: $ok" |
			tee -a "$results"
	done
done
