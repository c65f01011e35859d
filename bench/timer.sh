# SPDX-License-Identifier: MIT
# bench/timer.sh - sourced by the bench scripts: BENCH_TIMER, the timer
# they use, defaults to hyperfine when installed, else date (one run
# each, coarser).  See bench/README.md, "Running".
if [ -z "${BENCH_TIMER:-}" ]; then
	if command -v hyperfine >/dev/null 2>&1; then
		BENCH_TIMER=hyperfine
	else
		BENCH_TIMER=date
	fi
fi
