#!/bin/sh
# container.sh - the launch cost of container mode (doc/launcher.md,
# "Container mode") against namespace mode and a bare start:
#
#   bare       setpriv --no-new-privs /bin/true (the floor: an exec with
#              no_new_privs, what every launcher pays at least)
#   ns         vbox-exec PLAN -- /bin/true (bubblewrap, namespaces)
#   container  vbox-exec --mode=container PLAN -- /bin/true
#
# for two plans: "root" (one writable root: no split, a handful of
# Landlock rules) and "deny" (the same with `deny:` of a directory in the
# user's home and of an absent path inside the root: container mode holds
# them with the path supervisor; "narrower" is the same launch with
# --accept-narrower: Landlock alone, reads split at /, entries listed).
# One hyperfine run per plan, -N, medians and the ratio container/ns
# (target <= 1.0).
#
# Environment: VBOXC, VBOX_EXEC, BENCH_CONTAINER_RUNS (default 40).
set -eu
export LC_ALL=C

: "${VBOXC:?set VBOXC to the vboxc binary}"
VBOX_EXEC=${VBOX_EXEC:-$(dirname "$VBOXC")/vbox-exec}
runs=${BENCH_CONTAINER_RUNS:-40}
PY=/usr/bin/python3
command -v hyperfine >/dev/null 2>&1 || { echo "container: skipped: no hyperfine"; exit 0; }
command -v setpriv >/dev/null 2>&1 || { echo "container: skipped: no setpriv"; exit 0; }
[ -x "$PY" ] || { echo "container: skipped: no $PY"; exit 0; }
if ! "$VBOX_EXEC" --help | grep -q -- --mode=; then
	echo "container: skipped: this vbox-exec has no --mode"
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/vbox-ctr.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/rw" "$work/home/.ssh"
printf '@default write deny\n@default net deny\n[fs]\nrw: %s/rw/**\n' \
	"$work" >"$work/root.rules"
printf '@default write deny\n@default net deny\n[fs]\n!deny: %s/rw/.env\nrw: %s/rw/**\ndeny: %s/home/.ssh\n' \
	"$work" "$work" "$work" >"$work/deny.rules"
for p in root deny; do
	"$VBOXC" compile --target=linux --emit=plan -o "$work/$p.plan" \
		"$work/$p.rules"
done

for p in root deny; do
	echo "== launch, plan '$p' (hyperfine, $runs runs each)"
	if [ "$p" = deny ]; then
		set -- -n narrower \
			"$VBOX_EXEC --mode=container --accept-narrower $work/$p.plan -- /bin/true"
	else
		set --
	fi
	hyperfine -N -w 3 -r "$runs" --export-json "$work/$p.json" \
		-n bare "setpriv --no-new-privs /bin/true" \
		-n ns "$VBOX_EXEC $work/$p.plan -- /bin/true" \
		-n container "$VBOX_EXEC --mode=container $work/$p.plan -- /bin/true" \
		"$@" >/dev/null
	"$PY" - "$work/$p.json" "$p" <<'PYEOF'
import json, sys
r = {x["command"]: x["median"] * 1000 for x in json.load(open(sys.argv[1]))["results"]}
extra = ""
if "narrower" in r:
    extra = ", container --accept-narrower (Landlock alone) %.2f ms" % r["narrower"]
print("launch median, plan %s: bare %.2f ms, ns %.2f ms, container %.2f ms%s; "
      "container/ns %.3f" % (sys.argv[2], r["bare"], r["ns"], r["container"],
                             extra, r["container"] / r["ns"]))
PYEOF
done
