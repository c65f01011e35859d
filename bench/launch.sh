#!/bin/sh
# launch.sh - vbox-exec launch overhead against bare bubblewrap, and how
# launch time grows with the plan (10, 100, 1,000 rows).  Run by run.sh
# ("make bench"); see bench/README.md.
#
# First two targets, each one run of interleaved hyperfine rounds
# (medians_of() below):
#
#   launch cost   vbox-exec PLAN -- /bin/true for the one-row plan
#                 "rw: W" against the bare
#                 bwrap --unshare-all --die-with-parent --new-session
#                   --ro-bind / / --dev /dev --proc /proc --bind W W
#                   -- /bin/true
#                 target: ratio of medians <= 1.2
#   many rows     vbox-exec with "rw: W" and 200 launch-class rows in W
#                 (100 read-only directory holes, 100 denied files)
#                 against the one-row plan; target <= 1.5
#
# Then the curve:
#
# For each table size N a tree and a policy of N file rows are generated
# (one writable root, then read-only directory holes and denied files in
# it, alternating: every hole is a launch-class row the launcher checks
# and anchors on the host).  Three commands are timed in one hyperfine
# run, each `true` under the same sandbox:
#
#   vbox-exec   vbox-exec PLAN -- true
#   dry-run     the line `vbox-exec --dry-run PLAN -- true` prints, run by
#               the shell: bubblewrap with the same arguments, vbox-init
#               (fd 3) and `env -i`
#   bare        that bubblewrap command line alone, running `true` itself:
#               no env, no init
#
# The note gives two ratios of medians.  vbox-exec / dry-run is the
# launcher's own cost (start, plan load, instantiation, the memfd, the
# status channels, supervision) over the very command line it runs:
# target <= 1.2.  vbox-exec / bare adds what the sandbox's first program
# costs (vbox-init's exec, its fork as the sandbox's init, `env -i` is not
# part of it), reported without a target (bench/README.md).
#
# Environment:
#   VBOXC              vboxc (required); VBOX_EXEC defaults to its sibling
#   VBOX_EXEC          the vbox-exec binary
#   BWRAP, VBOX_BWRAP  bubblewrap (default: bwrap from PATH)
#   AWK                awk (default: awk)
#   BENCH_LAUNCH_ROWS  table sizes (default: 10 100 1000)
#   BENCH_LAUNCH_RUNS  timed runs per command, at least 10 (default: 60;
#                      10 for tables over 100 rows, where bubblewrap
#                      itself takes seconds)
#   BENCH_LAUNCH_ROUNDS the first two targets' runs are split into this
#                      many interleaved hyperfine rounds (default: 6)
#   BENCH_TIMER        hyperfine|date (default: hyperfine when installed)
#   BENCH_RESULTS      also append the result lines to this file
set -eu
export LC_ALL=C

: "${VBOXC:?set VBOXC to the vboxc binary}"
VBOX_EXEC=${VBOX_EXEC:-$(dirname "$VBOXC")/vbox-exec}
AWK=${AWK:-awk}
sizes=${BENCH_LAUNCH_ROWS:-10 100 1000}
runs=${BENCH_LAUNCH_RUNS:-60}
[ "$runs" -ge 10 ] 2>/dev/null || runs=10
rounds=${BENCH_LAUNCH_ROUNDS:-6}
[ "$rounds" -ge 1 ] 2>/dev/null || rounds=1
results=${BENCH_RESULTS:-/dev/null}
. "$(cd "$(dirname "$0")" && pwd)/timer.sh"

line() {
	printf '%-28s %9s %9s %11s  %s\n' "$@" | tee -a "$results"
}

skip() {
	line "launch" - - - "skipped: $*"
	exit 0
}

[ -x "$VBOX_EXEC" ] || skip "no vbox-exec at $VBOX_EXEC (run make first)"
bwrap=${VBOX_BWRAP:-${BWRAP:-$(command -v bwrap 2>/dev/null || :)}}
[ -n "$bwrap" ] && [ -x "$bwrap" ] || skip "bubblewrap (bwrap) not found"
"$bwrap" --unshare-user --ro-bind / / /bin/true 2>/dev/null ||
	skip "user namespaces unavailable"
VBOX_BWRAP=$bwrap
export VBOX_BWRAP

work=$(mktemp -d "${TMPDIR:-/tmp}/vbox-launch.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# medians RUNS A B C - run the three shell commands A, B, C RUNS times
# each in one measurement and print their three medians in milliseconds
medians() {
	_runs=$1
	shift
	if [ "$BENCH_TIMER" = hyperfine ]; then
		if ! hyperfine --style none --runs "$_runs" --warmup 3 \
			--export-csv "$work/hf.csv" "$1" "$2" "$3" \
			>/dev/null 2>"$work/hf.err"; then
			cat "$work/hf.err" >&2
			echo "bench: launch: a command failed" >&2
			return 1
		fi
		# median is the 4th column from the end (commands hold commas)
		tail -n 3 "$work/hf.csv" |
			"$AWK" -F, '{ printf "%.2f ", $(NF - 4) * 1e3 }'
		echo
		return
	fi
	for _c in "$1" "$2" "$3"; do
		: >"$work/times"
		_i=0
		while [ "$_i" -lt "$_runs" ]; do
			_t0=$(date +%s%N)
			sh -c "$_c" >/dev/null 2>&1 || {
				echo "bench: launch: command failed: $_c" >&2
				return 1
			}
			_t1=$(date +%s%N)
			echo "$_t0 $_t1" |
				"$AWK" '{ printf "%.6f\n", ($2 - $1) / 1e9 }' \
					>>"$work/times"
			_i=$((_i + 1))
		done
		sort -n "$work/times" | "$AWK" '{ v[NR] = $1 } END {
			h = NR / 2
			m = NR % 2 ? v[(NR + 1) / 2] : (v[h] + v[h + 1]) / 2
			printf "%.2f ", m * 1e3 }'
	done
	echo
}

# medians_of RUNS CMD... - every CMD RUNS times, in BENCH_LAUNCH_ROUNDS
# interleaved hyperfine rounds (hyperfine runs one command's runs in a
# block; on a shared machine the speed drifts between blocks, which
# alone moved the ratio by +-0.1), without a shell between (-N: these
# commands take a few ms, less than the shell's start hyperfine would
# subtract); the medians of all runs of each CMD, in milliseconds.
medians_of() {
	_runs=$1
	shift
	_per=$(( (_runs + rounds - 1) / rounds ))
	[ "$_per" -ge 3 ] || _per=3
	: >"$work/times"
	_r=0
	while [ "$_r" -lt "$rounds" ]; do
		if ! hyperfine -N --style none --runs "$_per" --warmup 3 \
			--export-json "$work/hf.json" "$@" >/dev/null \
			2>"$work/hf.err"; then
			cat "$work/hf.err" >&2
			echo "bench: launch: a command failed" >&2
			return 1
		fi
		jq -r '.results | to_entries[] | .key as $k |
			.value.times[] | "\($k) \(.)"' "$work/hf.json" \
			>>"$work/times"
		_r=$((_r + 1))
	done
	_k=0
	for _c in "$@"; do
		"$AWK" -v k="$_k" '$1 == k { print $2 }' "$work/times" |
			sort -g | "$AWK" '{ v[NR] = $1 } END {
				h = NR / 2
				m = NR % 2 ? v[(NR + 1) / 2] : (v[h] + v[h + 1]) / 2
				printf "%.2f ", m * 1e3 }'
		_k=$((_k + 1))
	done
	echo
}

ratio() {
	"$AWK" -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}

verdict() {
	"$AWK" -v r="$1" -v t="$2" 'BEGIN { print (r <= t) ? "ok" : "MISSED" }'
}

if [ "$BENCH_TIMER" = hyperfine ] && ! command -v jq >/dev/null 2>&1; then
	line "launch cost" - - - "skipped: no jq to read hyperfine's runs"
elif [ "$BENCH_TIMER" = hyperfine ]; then
	w=$work/cost
	mkdir -p "$w/root"
	printf '[fs]\nrw: %s\n' "$w/root" >"$w/one.rules"
	cp "$w/one.rules" "$w/many.rules"
	i=0
	while [ "$i" -lt 100 ]; do
		mkdir "$w/root/d$i"
		echo secret >"$w/root/f$i"
		printf '!ro: %s\n!deny: %s\n' "$w/root/d$i" "$w/root/f$i"
		i=$((i + 1))
	done >>"$w/many.rules"
	for p in one many; do
		"$VBOXC" compile --target=linux --emit=plan -o "$w/$p.plan" \
			"$w/$p.rules"
	done
	# shellcheck disable=SC2046 # two numbers
	set -- $(cd "$w" && medians_of "$runs" \
		"'$VBOX_EXEC' '$w/one.plan' -- /bin/true" \
		"'$bwrap' --unshare-all --die-with-parent --new-session --ro-bind / / --dev /dev --proc /proc --bind '$w/root' '$w/root' -- /bin/true")
	r=$(ratio "$1" "$2")
	line "launch cost, median ms" 1 "$1" "$2" \
		"vbox-exec, bare bwrap; x$r (<= 1.2: $(verdict "$r" 1.2))"
	# shellcheck disable=SC2046 # two numbers
	set -- $(cd "$w" && medians_of "$runs" \
		"'$VBOX_EXEC' '$w/many.plan' -- /bin/true" \
		"'$VBOX_EXEC' '$w/one.plan' -- /bin/true")
	r=$(ratio "$1" "$2")
	line "launch many rows, median ms" 201 "$1" "$2" \
		"201 rows, 1 row; x$r (<= 1.5: $(verdict "$r" 1.5))"
fi

line "launch, median ms" rows vbox-exec dry-run "bare bwrap; note"
for n in $sizes; do
	d=$work/t$n
	mkdir -p "$d"
	{
		echo "@default write deny"
		echo "[fs]"
		echo "rw: $d"
	} >"$work/p$n.rules"
	i=1
	while [ "$i" -lt "$n" ]; do
		if [ $((i % 2)) -eq 1 ]; then
			mkdir "$d/d$i"
			echo "!ro: $d/d$i"
		else
			echo secret >"$d/f$i"
			echo "!deny: $d/f$i"
		fi
		i=$((i + 1))
	done >>"$work/p$n.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$work/p$n.plan" \
		"$work/p$n.rules"
	plan=$work/p$n.plan
	# The dry-run line, and its bubblewrap part with `true` for the shim.
	dry=$(cd "$work" && "$VBOX_EXEC" --dry-run "$plan" -- true)
	bare=$(printf '%s\n' "$dry" | "$AWK" -v b=" $bwrap " '{
		i = index($0, b); s = substr($0, i + 1)
		j = index(s, " -- /proc/self/fd/3 ")
		print substr(s, 1, j - 1) " -- true" }')
	(cd "$work" && sh -c "$bare") || {
		echo "bench: launch: the bare bubblewrap command fails:" >&2
		printf '%s\n' "$bare" | cut -c 1-300 >&2
		exit 1
	}
	r=$runs
	[ "$n" -le 100 ] || r=10
	# shellcheck disable=SC2046 # three numbers
	set -- $(cd "$work" && medians "$r" "'$VBOX_EXEC' '$plan' -- true" \
		"$dry" "$bare")
	rdry=$("$AWK" -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }')
	rbare=$("$AWK" -v a="$1" -v c="$3" 'BEGIN { printf "%.2f", a / c }')
	verdict=$("$AWK" -v r="$rdry" \
		'BEGIN { print (r <= 1.2) ? "ok" : "MISSED" }')
	line "launch" "$n" "$1" "$2" \
		"$3; x$rdry vs dry-run (<= 1.2: $verdict), x$rbare vs bare"
done
