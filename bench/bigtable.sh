#!/bin/sh
# bigtable.sh - how a launch grows with the table: `vbox-exec PLAN -- true`
# for tables of 1 to 100,000 rows, in two shapes.  Run by run.sh ("make
# bench"); see bench/README.md, "Large tables".
#
#   absent   a writable root that does not exist (and may not be made),
#            then ro directories and denied files below it, alternating:
#            every row is instantiated (a stat or two), none needs a
#            placeholder; the launcher warns once, folded
#   holes    a writable root that exists, then ro directories and denied
#            files below it that do not: every row gets a placeholder (a
#            directory on the host and its registry entry)
#
# Each size is one hyperfine run of BENCH_BIG_RUNS launches (fewer for
# the largest tables); the median is printed with its ratio to the
# one-row plan's.  With BENCH_OLD_VBOXC and BENCH_OLD_EXEC (an older
# build) the same tables are compiled and launched by it too, beside.
#
# Environment:
#   VBOXC, VBOX_EXEC    the build to time (VBOX_EXEC defaults to vboxc's
#                       sibling)
#   BENCH_OLD_VBOXC, BENCH_OLD_EXEC  an older build to time beside it
#   BENCH_OLD_MAX_ROWS  the largest table the older build gets (default
#                       10000: a quadratic launch of 100,000 rows runs
#                       for many minutes)
#   BENCH_BIG_ROWS      sizes (default: 1 200 1000 8000 10000 100000)
#   BENCH_BIG_SHAPES    shapes (default: absent holes)
#   BENCH_BIG_MAX_HOLES the largest "holes" table (default 10000: each
#                       placeholder is a host directory and an open file)
#   BENCH_BIG_RUNS      runs per size up to 1,000 rows (default 10; 3
#                       above)
#   BENCH_RESULTS       also append the result lines to this file
set -eu
export LC_ALL=C

: "${VBOXC:?set VBOXC to the vboxc binary}"
VBOX_EXEC=${VBOX_EXEC:-$(dirname "$VBOXC")/vbox-exec}
sizes=${BENCH_BIG_ROWS:-1 200 1000 8000 10000 100000}
shapes=${BENCH_BIG_SHAPES:-absent holes}
max_holes=${BENCH_BIG_MAX_HOLES:-10000}
runs=${BENCH_BIG_RUNS:-10}
old_max=${BENCH_OLD_MAX_ROWS:-10000}
command -v hyperfine >/dev/null 2>&1 || {
	echo "bigtable.sh: hyperfine is needed" >&2
	exit 1
}

work=$(mktemp -d /var/tmp/vbox-bench-big.XXXXXX)
trap 'rm -rf "$work"' EXIT
W=$work/w
mkdir -p "$W"

# rules SHAPE N FILE
rules() {
	awk -v shape="$1" -v n="$2" -v w="$W" 'BEGIN {
		print "[fs]"
		root = shape == "absent" ? w "/absent/sub" : w
		print "rw: " root (shape == "absent" ? "" : "/**")
		for (i = 1; i < n; i++)
			if (i % 2)
				print "!deny: " root "/d" i "/secret"
			else
				print "!ro: " root "/r" i
	}' >"$3"
}

# median CMD - the median of hyperfine's runs of CMD, in ms
median() {
	_r=$runs
	[ "$2" -le 1000 ] || _r=3
	hyperfine -N --style none --warmup 1 --runs "$_r" \
		--export-json "$work/h.json" "$1" >/dev/null 2>&1 || {
		echo "bigtable.sh: failed: $1" >&2
		echo "-"
		return
	}
	awk '/"median"/ { gsub(/[^0-9.e-]/, "", $2); printf "%.1f\n", $2 * 1000; exit }' \
		"$work/h.json"
}

say() {
	echo "$*"
	[ -z "${BENCH_RESULTS:-}" ] || echo "$*" >>"$BENCH_RESULTS"
}

for shape in $shapes; do
	say "bigtable $shape: rows  median-ms  ratio-to-1-row${BENCH_OLD_EXEC:+  old-median-ms  old-ratio}"
	one= old_one=
	for n in $sizes; do
		if [ "$shape" = holes ] && [ "$n" -gt "$max_holes" ]; then
			continue
		fi
		rules "$shape" "$n" "$work/t.rules"
		"$VBOXC" compile --target=linux --emit=plan -o "$work/t.plan" \
			"$work/t.rules" 2>/dev/null
		m=$(median "$VBOX_EXEC $work/t.plan -- true" "$n")
		[ -n "$one" ] || one=$m
		line=$(awk -v m="$m" -v o="$one" -v n="$n" 'BEGIN {
			printf "%8d  %9s  %6.2f", n, m, (o > 0 ? m / o : 0) }')
		if [ -n "${BENCH_OLD_EXEC:-}" ] && [ "$n" -gt "$old_max" ]; then
			line="$line  $(printf '%13s  %9s' - -)"
		elif [ -n "${BENCH_OLD_EXEC:-}" ]; then
			"$BENCH_OLD_VBOXC" compile --target=linux --emit=plan \
				-o "$work/old.plan" "$work/t.rules" 2>/dev/null
			om=$(median "$BENCH_OLD_EXEC $work/old.plan -- true" "$n")
			[ -n "$old_one" ] || old_one=$om
			line="$line$(awk -v m="$om" -v o="$old_one" 'BEGIN {
				printf "  %13s  %9.2f", m, (o > 0 ? m / o : 0) }')"
		fi
		say "bigtable $shape: $line"
	done
done
