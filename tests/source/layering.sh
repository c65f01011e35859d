#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/source/layering.sh - no room of the tree includes a higher one
# (doc/design.md, "Rooms"), read from the include lines of every C file:
#
#   0  include/, util/         what every layer uses
#   1  compiler/               statements, the table, evaluation,
#                              analysis, the matchers
#   2  grammar/                rule text into the compiler's statements
#                              (the compiler calls it through load.h's
#                              parse_input(), which the scanner defines)
#   3  plan/                   plan.bin and the linux artifact
#   4  emitters/               one file per target
#   5  tools/, lib/, runtime/  the programs and the library
#
# and inside runtime/supervisor/ (doc/design.md): the room's top
# (childmem, childpath, metacall) includes neither part, paths/ does not
# include sockets/ (sockets/ starts the paths thread: the one way).
# fuzz/ and tests/ stand above all and may include anything.
#
# An include is found as the compiler finds it: beside the file first,
# then by its path from the tree's roots (runtime/, the top), then by its
# name (every header name but vbox.h is unique in the tree).  A header
# the tree does not hold (config.h, the generated parser.h, the system's)
# is not ours.  The check runs on the tree, then on copies with a back
# arrow planted (compiler/ including an emitter's header, supervisor's
# paths/ including sockets/): both must fail, or it could not.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY (the include graph is read with it)"

cat >"$workdir/layering.py" <<'PYEOF'
import os, re, sys

top = sys.argv[1]
LEVEL = [("include/", 0), ("util/", 0), ("compiler/", 1), ("grammar/", 2),
         ("plan/", 3), ("emitters/", 4), ("tools/", 5), ("lib/", 5),
         ("runtime/", 5)]
# inside runtime/supervisor/: the top, then the two parts, paths lower
SUB = [("runtime/supervisor/paths/", 1), ("runtime/supervisor/sockets/", 2),
       ("runtime/supervisor/", 0)]

def level(path):
    for prefix, n in LEVEL:
        if path.startswith(prefix):
            return n
    return None            # fuzz/, tests/: above all

def sublevel(path):
    for prefix, n in SUB:
        if path.startswith(prefix):
            return n
    return None

files = []
for root in ("include", "util", "grammar", "compiler", "plan", "emitters",
             "tools", "lib", "runtime"):
    for d, _, names in os.walk(os.path.join(top, root)):
        for n in names:
            if n.endswith((".c", ".h", ".y", ".l")):
                files.append(os.path.relpath(os.path.join(d, n), top))
by_name = {}
for f in files:
    by_name.setdefault(os.path.basename(f), []).append(f)

inc = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
bad = []
for f in sorted(files):
    here = os.path.dirname(f)
    with open(os.path.join(top, f), errors="replace") as fh:
        for no, line in enumerate(fh, 1):
            m = inc.match(line)
            if not m:
                continue
            kind, name = m.groups()
            if kind == "<":
                if name in ("vbox.h", "vbox/vbox.h"):
                    continue        # include/: level 0
                continue            # the system's
            cands = [os.path.normpath(os.path.join(here, name)),
                     os.path.normpath(os.path.join("runtime", name)),
                     os.path.normpath(name)]
            target = next((c for c in cands
                           if os.path.isfile(os.path.join(top, c))), None)
            if target is None and "/" not in name:
                found = by_name.get(name, [])
                target = found[0] if len(found) == 1 else None
            if target is None:
                continue            # config.h, parser.h: not in the tree
            a, b = level(f), level(target)
            if a is not None and b is not None and b > a:
                bad.append("%s:%d: includes %s, a higher room" %
                           (f, no, target))
            sa, sb = sublevel(f), sublevel(target)
            if sa is not None and sb is not None and sb > sa:
                bad.append("%s:%d: includes %s, above it in the "
                           "supervisor" % (f, no, target))
for b in bad:
    print(b)
PYEOF

# check ROOT - the back arrows of ROOT's tree, one a line
check_tree() {
	"$PY" "$workdir/layering.py" "$1"
}

top=$(cd "$srcdir" && pwd)
out=$(check_tree "$top")
is "$out" "" "no room includes a higher one; inside the supervisor, one way"
n=$(grep -rh '^#include "' "$top/compiler" "$top/runtime" | wc -l)
check "the check read the include lines ($n in compiler/ and runtime/)" \
	test "$n" -gt 100

copy() { # DIR - a copy of the rooms the check reads
	mkdir -p "$1"
	for d in include util grammar compiler plan emitters tools lib runtime; do
		cp -R "$top/$d" "$1/"
	done
}
copy "$workdir/t1"
printf '#include "emit.h"\n' >>"$workdir/t1/compiler/table.c"
out=$(check_tree "$workdir/t1")
case $out in
*"compiler/table.c:"*"includes emitters/emit.h, a higher room"*)
	ok "a back arrow planted in compiler/ (emit.h) fails the check" ;;
*) not_ok "a back arrow planted in compiler/ (emit.h) fails the check"
	printf '%s\n' "$out" | sed 's/^/#   /' ;;
esac
copy "$workdir/t2"
printf '#include "supervisor/sockets/sockcall.h"\n' \
	>>"$workdir/t2/runtime/supervisor/paths/pathcall.c"
out=$(check_tree "$workdir/t2")
case $out in
*"paths/pathcall.c:"*"above it in the supervisor"*)
	ok "paths/ including sockets/ fails the check" ;;
*) not_ok "paths/ including sockets/ fails the check"
	printf '%s\n' "$out" | sed 's/^/#   /' ;;
esac

done_testing
