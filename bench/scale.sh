#!/bin/sh
# scale.sh - the linux compile of growing workspace tables, and the rate
# of explain's JSON answers against its text answers.  Run by run.sh
# ("make bench"); see bench/README.md.
#
#   linux compile N   vboxc compile --target=linux --emit=plan of an
#                     N-row table from gen_linux.awk (workspaces with
#                     read-only and denied holes, read-only trees, denied
#                     globs outside writable regions, network rows);
#                     targets: 100,000 rows under 3 s, and at most 15x the
#                     time of the 10x smaller table
#   explain json      vboxc explain --format=json and the same queries in
#                     text (gen_rules.awk: BENCH_JSON_QUERIES queries
#                     against a BENCH_JSON_ROWS-row table), timed in one
#                     run; target: JSON rate >= 0.5x the text rate
#
# Environment:
#   VBOXC               vboxc (required)
#   AWK                 awk (default: awk)
#   BENCH_LINUX_SIZES   table sizes (default: 1000 10000 100000)
#   BENCH_JSON_QUERIES  queries (default: 200000)
#   BENCH_JSON_ROWS     rows of their table (default: 1000)
#   BENCH_RUNS          timed runs per workload, at least 5 (default: 5)
#   BENCH_TIMER         hyperfine|date (default: hyperfine when installed)
#   BENCH_RESULTS       also append the result lines to this file
set -eu
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
: "${VBOXC:?set VBOXC to the vboxc binary}"
AWK=${AWK:-awk}
sizes=${BENCH_LINUX_SIZES:-1000 10000 100000}
nqueries=${BENCH_JSON_QUERIES:-200000}
qrows=${BENCH_JSON_ROWS:-1000}
runs=${BENCH_RUNS:-5}
[ "$runs" -ge 5 ] 2>/dev/null || runs=5
results=${BENCH_RESULTS:-/dev/null}
. "$here/timer.sh"

# -N (no intermediate shell) keeps millisecond runs accurate; hyperfine
# then splits each command with shell quoting rules.
hf_noshell=
if [ "$BENCH_TIMER" = hyperfine ] &&
	hyperfine --help 2>/dev/null | grep -q -- '-N,'; then
	hf_noshell=-N
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/vbox-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

line() {
	printf '%-28s %9s %9s %11s  %s\n' "$@" | tee -a "$results"
}

# calc A OP B - awk arithmetic: "/" (two decimals), "<" and "<=" (yes/no)
calc() {
	"$AWK" -v a="$1" -v b="$3" -v op="$2" 'BEGIN {
		if (op == "/") printf "%.2f\n", a / b
		else if (op == "<") print (a < b) ? "yes" : "no"
		else if (op == "<=") print (a <= b) ? "yes" : "no"
		else if (op == ">=") print (a >= b) ? "yes" : "no" }'
}

verdict() {
	if [ "$1" = yes ]; then echo ok; else echo MISSED; fi
}

# medians CMD... - run the shell commands (output discarded; a failure
# fails the benchmark) $runs times each, in one measurement, and print
# each one's median wall-clock seconds, one a line, in order.
medians() {
	if [ "$BENCH_TIMER" = hyperfine ]; then
		if ! hyperfine $hf_noshell --style none --runs "$runs" \
			--warmup 1 \
			--export-csv "$work/hf.csv" "$@" \
			>/dev/null 2>"$work/hf.err"; then
			cat "$work/hf.err" >&2
			echo "bench: a command failed: $*" >&2
			return 1
		fi
		# command,mean,stddev,median,user,system,min,max: count
		# from the end, since a quoted command may hold commas.
		tail -n +2 "$work/hf.csv" | "$AWK" -F, '{ print $(NF - 4) }'
		return
	fi
	for _cmd in "$@"; do
		: >"$work/times"
		_i=0
		while [ "$_i" -lt "$runs" ]; do
			_t0=$(date +%s%N)
			sh -c "$_cmd" >/dev/null 2>&1 || {
				echo "bench: command failed: $_cmd" >&2
				return 1
			}
			_t1=$(date +%s%N)
			echo "$_t0 $_t1" | "$AWK" \
				'{ printf "%.6f\n", ($2 - $1) / 1e9 }' \
				>>"$work/times"
			_i=$((_i + 1))
		done
		sort -n "$work/times" | "$AWK" '{ v[NR] = $1 } END {
			if (NR % 2) print v[(NR + 1) / 2];
			else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
	done
}

# vq STRING - STRING quoted for sh -c.
vq() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

prev_rows=
prev_time=
for n in $sizes; do
	table="$work/linux-$n.rules"
	"$AWK" -v rows="$n" -f "$here/gen_linux.awk" >"$table"
	# One untimed run checks that the table compiles.
	if ! "$VBOXC" compile --target=linux --emit=plan -o "$work/plan" \
		"$table" 2>"$work/err"; then
		head -n 20 "$work/err" >&2
		echo "bench: the $n-row linux table does not compile" >&2
		exit 1
	fi
	t=$(medians "$(vq "$VBOXC") compile --target=linux --emit=plan \
-o /dev/null $(vq "$table")")
	note=
	if [ "$n" -eq 100000 ]; then
		note="target < 3 s: $(verdict "$(calc "$t" '<' 3)")"
	fi
	if [ -n "$prev_rows" ]; then
		ratio=$(calc "$t" / "$prev_time")
		note="${note:+$note; }x$ratio vs $prev_rows rows"
		# The target is on the 10k -> 100k step; below 10k rows a
		# compile takes a few milliseconds and start-up dominates.
		[ "$n" -eq 100000 ] && [ "$prev_rows" -eq 10000 ] &&
			note="$note (<= 15: $(verdict "$(calc "$ratio" '<=' 15)"))"
	fi
	line "linux compile" "$n" - "$(printf '%.4f' "$t")" "$note"
	prev_rows=$n
	prev_time=$t
	rm -f "$table"
done

table="$work/json.rules"
queries="$work/json.queries"
"$AWK" -v rows="$qrows" -f "$here/gen_rules.awk" >"$table"
"$AWK" -v rows="$qrows" -v queries="$nqueries" -f "$here/gen_rules.awk" \
	>"$queries"
for fmt in text json; do
	if ! "$VBOXC" explain --target=linux --format=$fmt \
		--queries="$queries" "$table" >"$work/out.$fmt" 2>/dev/null; then
		echo "bench: vboxc explain --format=$fmt failed" >&2
		exit 1
	fi
done
answers=$(wc -l <"$work/out.json" | tr -d ' ')
cmd="$(vq "$VBOXC") explain --target=linux --queries=$(vq "$queries") \
$(vq "$table")"
medians "$cmd" "$cmd --format=json" >"$work/m"
t_text=$(sed -n 1p "$work/m")
t_json=$(sed -n 2p "$work/m")
# Rates are queries per second, so JSON / text = text time / JSON time.
rate=$(calc "$t_text" / "$t_json")
line "explain text $nqueries" "$qrows" - "$(printf '%.4f' "$t_text")" ""
note="json rate ${rate}x text (>= 0.5: $(verdict "$(calc "$rate" '>=' 0.5)"))"
[ "$answers" -ge "$nqueries" ] || note="$note; only $answers answer lines"
line "explain json $nqueries" "$qrows" - "$(printf '%.4f' "$t_json")" \
	"$note"
