#!/bin/sh
# fuzz/run.sh TARGET SECONDS SEEDS [DICT] - run the libFuzzer binary
# TARGET (fuzz/fuzz_NAME) for SECONDS on a copy of the seed directory
# SEEDS (fuzz/seeds/NAME: seeds and every crash kept as a regression case,
# all replayed first), with the dictionary DICT when given.  A crash,
# leak, sanitizer report, timeout or out-of-memory fails, prints the end
# of the log and leaves the input in fuzz-crashes/ of the build tree.
set -eu
target=$1
seconds=$2
seeds=$3
dict=${4:-}
name=$(basename "$target")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vbox-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/corpus"
if [ -d "$seeds" ]; then
	cp "$seeds"/* "$tmp/corpus/" 2>/dev/null || :
fi
crashes=$PWD/fuzz-crashes
mkdir -p "$crashes"
echo "$name: $(ls "$tmp/corpus" | wc -l) seeds, $seconds s"
set -- -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
	-rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$crashes/$name-"
if [ -n "$dict" ]; then
	set -- "$@" -dict="$dict"
fi
status=0
TMPDIR=$tmp "$target" "$@" "$tmp/corpus" >"$tmp/fuzz.log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
	tail -n 60 "$tmp/fuzz.log"
	echo "$name: FAILED (status $status); input(s) in $crashes:"
	ls -l "$crashes"
	echo "$name: reproduce with: $target FILE; once fixed, keep it:"
	echo "$name:   cp FILE $seeds/crash-SHORT-NAME"
	exit 1
fi
grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' \
	"$tmp/fuzz.log" || :
rmdir "$crashes" 2>/dev/null || :
echo "$name: no crash in $seconds s"
