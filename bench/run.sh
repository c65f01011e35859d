#!/bin/sh
# run.sh - vboxc benchmarks: parse+check of growing tables, and explain
# throughput.  Run through "make bench" (or ./build.sh bench); see
# bench/README.md for the targets and how to read the table.
#
# Environment:
#   VBOXC            the vboxc binary (required)
#   AWK              awk to run gen_rules.awk with (default: awk)
#   BENCH_SIZES      table sizes for "check" (default: 1000 10000 100000 1000000)
#   BENCH_RUNS       timed runs per workload, at least 5 (default: 5)
#   BENCH_QUERIES    queries for "explain" (default: 1000000)
#   BENCH_QUERY_ROWS rows of the table the queries run against (default: 1000)
#   BENCH_TARGET     --target for vboxc (default: linux)
#   BENCH_OUT        also write the result table to this file
#   BENCH_STRICT     1: exit 1 when a target is missed (default: report only)
#   BENCH_TIMER      hyperfine|date (default: hyperfine when installed)
#   VBOX_EXEC, VBOX_EXEC_BEFORE, BENCH_WALLS_RUNS, BENCH_WALLS_REPS
#                    for bench/walls.sh (the walls' cost)
# shellcheck disable=SC2016 # awk programs are single-quoted on purpose
set -eu
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
gen="$here/gen_rules.awk"
: "${VBOXC:?set VBOXC to the vboxc binary}"
AWK=${AWK:-awk}
sizes=${BENCH_SIZES:-1000 10000 100000 1000000}
runs=${BENCH_RUNS:-5}
nqueries=${BENCH_QUERIES:-1000000}
qrows=${BENCH_QUERY_ROWS:-1000}
target=${BENCH_TARGET:-linux}
strict=${BENCH_STRICT:-0}

[ "$runs" -ge 5 ] 2>/dev/null || runs=5
. "$here/timer.sh"

hf_noshell=
if [ "$BENCH_TIMER" = hyperfine ] &&
	hyperfine --help 2>/dev/null | grep -q -- '--shell'; then
	hyperfine --help | grep -q -- '-N,' && hf_noshell=-N
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/vbox-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# median_of FILE - the median of one number per line (mean of the middle
# two for an even count).
median_of() {
	sort -n "$1" | "$AWK" '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# time_cmd NAME CMD - run the shell command CMD $runs times (output
# discarded; a non-zero exit fails the benchmark) and print the median
# wall-clock time in seconds.
time_cmd() {
	if [ "$BENCH_TIMER" = hyperfine ]; then
		# -N (no intermediate shell) keeps millisecond runs accurate;
		# hyperfine splits the command with shell quoting rules.
		if ! hyperfine $hf_noshell --style none --runs "$runs" \
			--warmup 1 --command-name "$1" \
			--export-csv "$work/hf.csv" "$2" \
			>/dev/null 2>"$work/hf.err"; then
			cat "$work/hf.err" >&2
			echo "bench: command failed: $2" >&2
			return 1
		fi
		# command,mean,stddev,median,user,system,min,max: count from
		# the end, since a quoted command name may hold commas.
		tail -n 1 "$work/hf.csv" | "$AWK" -F, '{ print $(NF - 4) }'
		return
	fi
	: >"$work/times"
	i=0
	while [ "$i" -lt "$runs" ]; do
		t0=$(date +%s%N)
		sh -c "$2" >/dev/null 2>&1 || {
			echo "bench: command failed: $2" >&2
			return 1
		}
		t1=$(date +%s%N)
		echo "$t0 $t1" | "$AWK" '{ printf "%.6f\n", ($2 - $1) / 1e9 }' \
			>>"$work/times"
		i=$((i + 1))
	done
	median_of "$work/times"
}

# calc A OP B - floating-point arithmetic and comparisons through awk.
calc() {
	"$AWK" -v a="$1" -v b="$3" -v op="$2" 'BEGIN {
		if (op == "/") printf "%.2f\n", a / b
		else if (op == "dps") printf "%.0f\n", b / a
		else if (op == "<") print (a < b) ? "yes" : "no"
		else if (op == "<=") print (a <= b) ? "yes" : "no"
		else if (op == ">=") print (a >= b) ? "yes" : "no" }'
}

# note_target YES|NO - the verdict word; misses are counted from the
# table at the end (this runs in a command substitution).
note_target() {
	if [ "$1" = yes ]; then
		echo "ok"
	else
		echo "MISSED"
	fi
}

# vq STRING - STRING quoted for sh -c.
vq() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

version=$("$VBOXC" --version 2>/dev/null | head -n 1 || true)
out="$work/results"
{
	echo "vbox benchmarks: ${version:-vboxc}, target $target," \
		"$runs runs each, timer $BENCH_TIMER, median wall-clock"
	echo "host: $(uname -srm), $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') CPUs"
	printf '%-28s %9s %9s %11s  %s\n' workload rows warnings "median s" note
} >"$out"
cat "$out"

prev_rows=
prev_time=
for n in $sizes; do
	table="$work/table-$n.rules"
	"$AWK" -v rows="$n" -f "$gen" >"$table"
	# One untimed run checks that the table is valid and counts the
	# shadow warnings it produces.
	status=0
	"$VBOXC" check --target="$target" --format=json "$table" \
		>"$work/check.json" 2>/dev/null || status=$?
	if [ "$status" -ne 0 ]; then
		echo "bench: vboxc check failed ($status) on the generated" \
			"$n-row table" >&2
		"$VBOXC" check --target="$target" "$table" 2>&1 | head -n 20 >&2
		exit 1
	fi
	warnings=$(grep -o '"kind"' "$work/check.json" | wc -l | tr -d ' ')
	t=$(time_cmd "check $n" \
		"$(vq "$VBOXC") check --target=$target $(vq "$table")")
	note=
	if [ "$n" -eq 100000 ]; then
		note="target < 1 s: $(note_target "$(calc "$t" '<' 1)")"
	fi
	if [ -n "$prev_rows" ] && [ "$n" -eq $((prev_rows * 10)) ]; then
		ratio=$(calc "$t" / "$prev_time")
		scale="x$ratio vs $prev_rows rows (<= 15: $(note_target \
			"$(calc "$ratio" '<=' 15)"))"
		note="${note:+$note; }$scale"
	fi
	printf '%-28s %9s %9s %11.4f  %s\n' "check" "$n" "$warnings" "$t" \
		"$note" | tee -a "$out"
	prev_rows=$n
	prev_time=$t
	rm -f "$table"
done

table="$work/table-q.rules"
queries="$work/queries.txt"
"$AWK" -v rows="$qrows" -f "$gen" >"$table"
"$AWK" -v rows="$qrows" -v queries="$nqueries" -f "$gen" >"$queries"
status=0
"$VBOXC" explain --target="$target" --queries="$queries" "$table" \
	>"$work/explain.out" 2>/dev/null || status=$?
if [ "$status" -ne 0 ]; then
	echo "bench: vboxc explain failed ($status) on the generated queries" >&2
	"$VBOXC" explain --target="$target" --queries="$queries" "$table" \
		2>&1 >/dev/null | head -n 20 >&2
	exit 1
fi
answers=$(wc -l <"$work/explain.out" | tr -d ' ')
t=$(time_cmd "explain $nqueries" "$(vq "$VBOXC") explain --target=$target \
--queries=$(vq "$queries") $(vq "$table")")
dps=$(calc "$t" dps "$nqueries")
note="$dps decisions/s (>= 200000: $(note_target "$(calc "$dps" '>=' 200000)"))"
[ "$answers" -ge "$nqueries" ] || note="$note; only $answers answer lines"
printf '%-28s %9s %9s %11.4f  %s\n' "explain $nqueries queries" "$qrows" - \
	"$t" "$note" | tee -a "$out"

# linux compile scaling and explain's JSON rate (bench/scale.sh)
VBOXC=$VBOXC AWK=$AWK BENCH_TIMER=$BENCH_TIMER BENCH_RUNS=$runs \
	BENCH_RESULTS=$out sh "$here/scale.sh"
# vboxc diff of two 10,000-row tables (bench/diff.sh)
VBOXC=$VBOXC AWK=$AWK BENCH_TIMER=$BENCH_TIMER BENCH_RUNS=$runs \
	BENCH_RESULTS=$out sh "$here/diff.sh"
VBOXC=$VBOXC AWK=$AWK BENCH_TIMER=$BENCH_TIMER BENCH_RESULTS=$out \
	sh "$here/launch.sh"
# how a launch grows with the table, 1 to 100,000 rows (bench/bigtable.sh)
VBOXC=$VBOXC BENCH_RESULTS=$out sh "$here/bigtable.sh"
# the walls' cost (bench/walls.sh; set VBOX_EXEC_BEFORE to a vbox-exec
# built before the walls for the launch ratio)
VBOXC=$VBOXC sh "$here/walls.sh" | tee -a "$out"
# container mode against namespace mode (bench/container.sh)
VBOXC=$VBOXC sh "$here/container.sh" | tee -a "$out"
if [ -n "${BENCH_OUT:-}" ]; then
	cp "$out" "$BENCH_OUT"
	echo "results written to $BENCH_OUT"
fi
missed=$(grep -c MISSED "$out" || true)
if [ "$missed" -gt 0 ]; then
	echo "bench: $missed target(s) missed"
	[ "$strict" = 1 ] && exit 1
fi
exit 0
