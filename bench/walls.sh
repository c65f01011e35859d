#!/bin/sh
# walls.sh - the cost of the sandbox's walls (doc/launcher.md, "Walls"):
#
#   launch   `vbox-exec PLAN -- true` with the walls (VBOX_EXEC) and
#            without (VBOX_EXEC_BEFORE, a vbox-exec built before them),
#            one hyperfine run, medians and their ratio (target <= 1.10);
#   connect  10,000 unix connect+accept rounds inside the writable root
#            (a python loop), supervised (VBOX_EXEC) and not (the same
#            loop under VBOX_EXEC_BEFORE); the difference of the
#            per-round medians over BENCH_WALLS_REPS runs is the
#            supervisor's cost per connect (target < 50 us).
#
# Environment: VBOXC, VBOX_EXEC, VBOX_EXEC_BEFORE (required for the
# comparison; without it only the walls' numbers are printed),
# BENCH_WALLS_RUNS (hyperfine runs, default 40), BENCH_WALLS_REPS
# (connect-loop repetitions, default 5).  See bench/README.md.
set -eu
export LC_ALL=C

: "${VBOXC:?set VBOXC to the vboxc binary}"
VBOX_EXEC=${VBOX_EXEC:-$(dirname "$VBOXC")/vbox-exec}
runs=${BENCH_WALLS_RUNS:-40}
reps=${BENCH_WALLS_REPS:-5}
PY=/usr/bin/python3
command -v hyperfine >/dev/null 2>&1 || { echo "walls: skipped: no hyperfine"; exit 0; }
[ -x "$PY" ] || { echo "walls: skipped: no $PY"; exit 0; }

work=$(mktemp -d "${TMPDIR:-/tmp}/vbox-walls.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/rw"
printf '@default write deny\n@default net deny\n[fs]\nrw: %s/rw\n' \
	"$work" >"$work/b.rules"
"$VBOXC" compile --target=linux --emit=plan -o "$work/b.plan" "$work/b.rules"
cat >"$work/conn.py" <<'PYEOF'
import os, socket, sys, time
p = sys.argv[1] + "/bench.sock"
if os.path.exists(p):
    os.unlink(p)
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(p)
srv.listen(4096)
n = int(sys.argv[2])
t = time.perf_counter()
for i in range(n):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect(p)
    a, _ = srv.accept()
    a.close()
    c.close()
print("%.2f" % ((time.perf_counter() - t) / n * 1e6))
PYEOF

median() {
	sort -n | awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2);
		if (NR % 2) print v[m]; else printf "%.2f\n", (v[m] + v[m + 1]) / 2 }'
}

echo "== launch (hyperfine, $runs runs each)"
if [ -n "${VBOX_EXEC_BEFORE:-}" ]; then
	hyperfine -N -w 3 -r "$runs" --export-json "$work/l.json" \
		-n before "$VBOX_EXEC_BEFORE $work/b.plan -- /bin/true" \
		-n walls "$VBOX_EXEC $work/b.plan -- /bin/true" >/dev/null
	"$PY" - "$work/l.json" <<'PYEOF'
import json, sys
r = {x["command"]: x["median"] * 1000 for x in json.load(open(sys.argv[1]))["results"]}
print("launch median: before %.2f ms, walls %.2f ms, ratio %.3f" %
      (r["before"], r["walls"], r["walls"] / r["before"]))
PYEOF
else
	hyperfine -N -w 3 -r "$runs" "$VBOX_EXEC $work/b.plan -- /bin/true"
fi

echo "== 10,000 unix connects inside the writable root ($reps runs each)"
for i in $(seq "$reps"); do
	"$VBOX_EXEC" "$work/b.plan" -- "$PY" "$work/conn.py" "$work/rw" 10000 \
		>>"$work/walls.txt"
	if [ -n "${VBOX_EXEC_BEFORE:-}" ]; then
		"$VBOX_EXEC_BEFORE" "$work/b.plan" -- "$PY" "$work/conn.py" \
			"$work/rw" 10000 >>"$work/before.txt"
	fi
done
w=$(median <"$work/walls.txt")
if [ -n "${VBOX_EXEC_BEFORE:-}" ]; then
	b=$(median <"$work/before.txt")
	awk -v w="$w" -v b="$b" 'BEGIN {
		printf "connect+accept round median: unsupervised %.2f us, ", b
		printf "supervised %.2f us, the supervisor %.2f us per connect\n",
			w, w - b }'
else
	echo "connect+accept round median, supervised: $w us"
fi
