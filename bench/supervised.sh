#!/bin/sh
# supervised.sh - the cost of supervised paths (issue 23, doc/launcher.md):
# real workloads under vbox-exec with a plan that has one `!deny: **/.env`
# row (which lands supervised on linux: every path call of the sandbox is
# judged by the launcher's supervisor) against the same plan without it.
#
# The base plan, for a workspace W made under $TMPDIR (default /var/tmp):
#
#   @default net deny
#   @default tmp private
#   [fs]
#   rw: W
#
# and the supervised plan is the same plus `!deny: **/.env`.  Reads stay
# open (nothing denies them); writes go to W, where TMPDIR points too.
# The ro-only plan is the base plan plus `!ro: **/.git/hooks/**` (its
# only supervised row is `ro`: the filter hands over the writing opens
# and the other calls that write, no read; doc/launcher.md).
#
# Workloads, each in W (made once, before any timing):
#
#   git status     in a repository of 3,000 small files in 150 nested
#                  directories, committed (git 2.x, no fsmonitor)
#   git checkout   switch from branch a to branch b, which differ in 500
#                  files (hyperfine's --prepare switches back to a)
#   make -j2       a C project of 20 .c files and 20 headers, each file
#                  including four of the headers, main.c all of them
#                  (--prepare: make clean)
#   npm install    --offline --cache W/npm-cache of a project with 20
#                  local tarball dependencies (`npm pack` of 20 tiny
#                  packages, 10 files each), package-lock.json written by
#                  an install before the timing (--prepare: rm -rf
#                  node_modules); nothing reaches the network
#   pytest         python3 -m pytest -q of 50 tests in 5 files, each test
#                  writing and reading files in its tmp_path
#
# Each workload is timed as three commands, in BENCH_SUP_ROUNDS
# interleaved hyperfine rounds (hyperfine runs one command's runs in a
# block; the machine's speed drifts between blocks): `plain` (no
# sandbox, for context), `base` (vbox-exec, the base plan) and
# `supervised` (vbox-exec, the plan with the row).  The line gives the
# three medians of all runs, the ratio supervised / base (target
# <= 1.3; issue 33: <= 1.5 for git status and make), then `ro` (the
# ro-only plan, a fourth command in the same rounds) and `ro/b`, its
# ratio to base (issue 33: <= 1.1), `calls`: the calls the supervisor
# answered in one run under the supervised plan beyond those under the
# base plan (vbox-exec --log's "socket supervisor: N calls answered"),
# then after a slash the same under the ro-only plan, `us/call`: the difference of
# the medians divided by that count, the cost of one supervised call,
# `cpu/c`: the part of it that is the supervisor's own
# CPU time (vbox-exec --log, see supcpu() below), `hit%`: how many of the
# names the calls judge a cache of decisions by (directory inode, name)
# would have answered (see hits()), and `%file`: all the path calls
# strace counts outside the sandbox (the stat family too, which is not
# supervised), for context.
#
# Environment:
#   VBOXC            vboxc (required); VBOX_EXEC defaults to its sibling
#   VBOX_EXEC        the vbox-exec binary
#   BENCH_SUP_RUNS   timed runs per command, at least 3 (default: 9);
#                    git status, which takes milliseconds, runs 5 times
#                    as often, git checkout twice as often
#   BENCH_SUP_ROUNDS the runs are split into this many rounds (default: 3)
#   BENCH_SUP_ONLY   the workloads to run, by name (default: all of
#                    "status checkout make npm pytest")
#   BENCH_SUP_CALLS  strace -e trace= set of the supervised calls, for
#                    hit% (default: the list below)
#   BENCH_SUP_CTR    the workloads also run in container mode with the
#                    supervised plan, against namespace mode (default:
#                    "status npm"; empty: none)
#   BENCH_SUP_KEEP   1: keep the work directory and say where it is
#   BENCH_SUP_EXTRA  0: leave out cpu/c, hit% and %file (the extra runs
#                    under strace and --log; default 1)
#   VBOX_EXEC_BEFORE another vbox-exec (an older build) timed in the same
#                    rounds under the supervised and ro-only plans: a
#                    second line per workload, "before", with its two
#                    ratios to this build's base (a loaded machine drifts
#                    too much between two runs of the script)
#   BENCH_RESULTS    also append the result lines to this file
#   TMPDIR           where the work directory is made (default /var/tmp;
#                    not under /tmp, which the sandbox replaces)
# See bench/README.md, "Supervised paths".
set -eu
export LC_ALL=C

: "${VBOXC:?set VBOXC to the vboxc binary}"
VBOX_EXEC=${VBOX_EXEC:-$(dirname "$VBOXC")/vbox-exec}
runs=${BENCH_SUP_RUNS:-9}
[ "$runs" -ge 3 ] 2>/dev/null || runs=3
rounds=${BENCH_SUP_ROUNDS:-3}
[ "$rounds" -ge 1 ] 2>/dev/null || rounds=1
only=${BENCH_SUP_ONLY:-status checkout make npm pytest}
results=${BENCH_RESULTS:-/dev/null}
PY=/usr/bin/python3

line() {
	printf '%-9s %7s %7s %10s %5s %7s %5s %6s %7s %5s %6s %6s  %s\n' "$@" |
		tee -a "$results"
}

skip() {
	line "supervised" - - - - - - - - - - - "skipped: $*"
	exit 0
}

command -v hyperfine >/dev/null 2>&1 || skip "no hyperfine"
command -v jq >/dev/null 2>&1 || skip "no jq to read hyperfine's runs"
[ -x "$VBOX_EXEC" ] || skip "no vbox-exec at $VBOX_EXEC (run make first)"
[ -x "$PY" ] || skip "no $PY"
for t in git make cc npm; do
	command -v "$t" >/dev/null 2>&1 || skip "no $t"
done
"$PY" -c 'import pytest' 2>/dev/null || skip "no pytest for $PY"
strace=$(command -v strace 2>/dev/null || :)

case ${TMPDIR:-/var/tmp}/ in
/tmp/*) skip "TMPDIR is under /tmp, which the sandbox replaces" ;;
esac
work=$(mktemp -d "${TMPDIR:-/var/tmp}/vbox-supb.XXXXXX")
if [ "${BENCH_SUP_KEEP:-0}" = 1 ]; then
	trap 'echo "supervised: kept $work" >&2' EXIT
else
	trap 'rm -rf "$work"' EXIT
fi
trap 'exit 130' INT TERM
W=$work/w
mkdir "$W" "$W/home" "$W/tmp"
# the same environment outside and inside: a HOME of the workspace's own
# (npm and git look there), no update checks; TMPDIR in the workspace,
# so that the plain runs do not share the host's /tmp (pytest keeps and
# prunes its last three base directories there, cc puts its temporary
# files there)
HOME=$W/home
TMPDIR=$W/tmp
npm_config_update_notifier=false
npm_config_fund=false
npm_config_audit=false
GIT_CONFIG_NOSYSTEM=1
export HOME TMPDIR npm_config_update_notifier npm_config_fund npm_config_audit \
	GIT_CONFIG_NOSYSTEM
git config --global user.name bench
git config --global user.email bench@localhost
git config --global init.defaultBranch a
git config --global advice.detachedHead false

printf '@default net deny\n@default tmp private\n[fs]\nrw: %s\n' "$W" \
	>"$work/base.rules"
cp "$work/base.rules" "$work/sup.rules"
printf '!deny: **/.env\n' >>"$work/sup.rules"
cp "$work/base.rules" "$work/ro.rules"
printf '!ro: **/.git/hooks/**\n' >>"$work/ro.rules"
"$VBOXC" compile --target=linux --emit=plan -o "$work/ro.plan" \
	"$work/ro.rules" 2>"$work/compile.err" ||
	skip "the ro-only plan does not compile: $(head -n 1 "$work/compile.err")"
"$VBOXC" compile --target=linux --emit=plan -o "$work/base.plan" \
	"$work/base.rules" 2>"$work/compile.err" ||
	skip "the base plan does not compile: $(head -n 1 "$work/compile.err")"
sup_why=
"$VBOXC" compile --target=linux --emit=plan -o "$work/sup.plan" \
	"$work/sup.rules" 2>"$work/compile.err" ||
	sup_why="does not compile: $(grep -m 1 error: "$work/compile.err")"
if [ -z "$sup_why" ] &&
	! "$VBOX_EXEC" "$work/sup.plan" -- /bin/true 2>"$work/exec.err"; then
	sup_why="refused by vbox-exec: $(head -n 1 "$work/exec.err")"
fi
if [ -z "$sup_why" ]; then
	# the row must hold, or the numbers measure nothing
	if "$VBOX_EXEC" "$work/sup.plan" -- /bin/sh -c \
		"echo x >'$W/.env'" 2>/dev/null || [ -e "$W/.env" ]; then
		echo "supervised: the plan's !deny: **/.env did not hold" >&2
		exit 1
	fi
	# and the ro-only plan's row: a hook is read, never written
	mkdir -p "$W/chk/.git/hooks"
	echo old >"$W/chk/.git/hooks/pre-commit"
	if ! "$VBOX_EXEC" "$work/ro.plan" -- /bin/cat \
		"$W/chk/.git/hooks/pre-commit" >/dev/null 2>&1 ||
		"$VBOX_EXEC" "$work/ro.plan" -- /bin/sh -c \
		"echo x >'$W/chk/.git/hooks/pre-commit'" 2>/dev/null ||
		[ "$(cat "$W/chk/.git/hooks/pre-commit")" != old ]; then
		echo "supervised: the plan's !ro: **/.git/hooks/** did not hold" >&2
		exit 1
	fi
	rm -rf "$W/chk"
fi

# ---- the fixtures, made once
"$PY" - "$W" <<'PYEOF'
import os, sys
w = sys.argv[1]

# a repository of 3,000 files: 10 top directories, 15 below each, 20 files
r = os.path.join(w, "repo")
for i in range(10):
    for j in range(15):
        d = os.path.join(r, "d%02d" % i, "s%02d" % j)
        os.makedirs(d)
        for k in range(20):
            with open(os.path.join(d, "f%02d.txt" % k), "w") as f:
                f.write("file %d %d %d\n" % (i, j, k) * 8)

# a C project: 20 .c files, 20 headers
c = os.path.join(w, "cproj")
os.makedirs(os.path.join(c, "include"))
for i in range(20):
    with open(os.path.join(c, "include", "m%02d.h" % i), "w") as f:
        f.write("#ifndef M%02d_H\n#define M%02d_H\n#include <stddef.h>\n"
                "int m%02d_f(const char *s, size_t n);\n#endif\n" % (i, i, i))
    with open(os.path.join(c, "m%02d.c" % i), "w") as f:
        f.write("#include <stdio.h>\n#include <string.h>\n"
                "#include <stdlib.h>\n")
        hs = range(20) if i == 0 else \
            sorted({i, (i + 1) % 20, (i + 7) % 20, (i + 13) % 20})
        for h in hs:
            f.write('#include "m%02d.h"\n' % h)
        f.write("int m%02d_f(const char *s, size_t n)\n{\n"
                "\tint v = 0;\n\tfor (size_t k = 0; k < n; k++)\n"
                "\t\tv = v * 31 + s[k];\n\treturn v ^ %d;\n}\n" % (i, i))
        if i == 0:
            f.write("int main(int argc, char **argv)\n{\n\tint v = 0;\n"
                    "\tfor (int k = 1; k < argc; k++) {\n")
            for h in range(1, 20):
                f.write("\t\tv += m%02d_f(argv[k], strlen(argv[k]));\n" % h)
            f.write('\t}\n\tprintf("%d\\n", v);\n\treturn 0;\n}\n')
objs = " ".join("m%02d.o" % i for i in range(20))
with open(os.path.join(c, "Makefile"), "w") as f:
    f.write("CFLAGS = -O2 -Wall -Iinclude\nOBJS = %s\n"
            "prog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n"
            "%%.o: %%.c\n\t$(CC) $(CFLAGS) -c -o $@ $<\n"
            "clean:\n\trm -f prog $(OBJS)\n" % objs)

# 20 tiny npm packages and a project that depends on their tarballs
for i in range(20):
    p = os.path.join(w, "npm-src", "pkg%02d" % i)
    os.makedirs(os.path.join(p, "lib"))
    with open(os.path.join(p, "package.json"), "w") as f:
        f.write('{"name": "vbox-bench-pkg%02d", "version": "1.0.%d", '
                '"main": "index.js", "license": "MIT"}\n' % (i, i))
    with open(os.path.join(p, "index.js"), "w") as f:
        f.write("".join("exports.f%d = require('./lib/f%d');\n" % (k, k)
                        for k in range(8)))
    for k in range(8):
        with open(os.path.join(p, "lib", "f%d.js" % k), "w") as f:
            f.write("module.exports = (x) => x * %d + %d;\n" % (k, i))
    with open(os.path.join(p, "README.md"), "w") as f:
        f.write("# pkg%02d\n" % i)
os.makedirs(os.path.join(w, "npm-tgz"))
os.makedirs(os.path.join(w, "npm-proj"))
with open(os.path.join(w, "npm-proj", "package.json"), "w") as f:
    deps = ", ".join('"vbox-bench-pkg%02d": "file:../npm-tgz/'
                     'vbox-bench-pkg%02d-1.0.%d.tgz"' % (i, i, i)
                     for i in range(20))
    f.write('{"name": "proj", "version": "1.0.0", "private": true, '
            '"dependencies": {%s}}\n' % deps)

# a pytest suite: 5 files of 10 tests, each writing and reading tmp files
t = os.path.join(w, "pytest")
os.makedirs(t)
for i in range(5):
    with open(os.path.join(t, "test_s%d.py" % i), "w") as f:
        f.write("import json, os\nimport pytest\n\n"
                "@pytest.mark.parametrize('n', range(10))\n"
                "def test_files(tmp_path, n):\n"
                "    d = tmp_path / 'd'\n    d.mkdir()\n"
                "    for k in range(5):\n"
                "        (d / ('f%d.json' % k)).write_text(\n"
                "            json.dumps({'n': n, 'k': k}))\n"
                "    got = sorted(json.loads(p.read_text())['k']\n"
                "                 for p in d.iterdir())\n"
                "    assert got == list(range(5))\n"
                "    os.rename(d / 'f0.json', d / 'g0.json')\n"
                "    assert (d / 'g0.json').exists()\n")
PYEOF

# the repository: everything on a, then 500 files changed on b
(
	cd "$W/repo"
	git init -q --template= .
	git add -A
	git commit -q -m a
	git checkout -q -b b
	find d0[0-1] d02/s0[0-9] -name 'f*.txt' | sort | head -n 500 |
		while read -r f; do echo changed >>"$f"; done
	git commit -q -a -m b
	[ "$(git diff --name-only a b | wc -l)" -eq 500 ]
	git checkout -q a
	git status --porcelain >/dev/null
)
# the npm tarballs, the lock file and the cache (one install, offline)
(
	cd "$W/npm-tgz"
	for p in "$W"/npm-src/pkg*; do
		npm pack -q --cache "$W/npm-cache" "$p" >/dev/null
	done
	cd "$W/npm-proj"
	npm install -q --offline --cache "$W/npm-cache" >/dev/null
	[ -f package-lock.json ] && [ -d node_modules/vbox-bench-pkg19 ]
)

# ---- how each workload runs: name, directory, command, prepare (or -)
wl_dir() {
	case $1 in
	status | checkout) echo "$W/repo" ;;
	make) echo "$W/cproj" ;;
	npm) echo "$W/npm-proj" ;;
	pytest) echo "$W/pytest" ;;
	esac
}
wl_cmd() {
	case $1 in
	status) echo "git status" ;;
	checkout) echo "git checkout -q b" ;;
	make) echo "make -s -j2" ;;
	npm) echo "npm install -q --offline --cache $W/npm-cache" ;;
	pytest) echo "$PY -m pytest -q" ;;
	esac
}
wl_prep() {
	case $1 in
	status) echo "git status --porcelain" ;;
	checkout) echo "git checkout -q a" ;;
	make) echo "make -s clean" ;;
	npm) echo "rm -rf node_modules" ;;
	pytest) echo "true" ;;
	esac
}
wl_runs() {
	case $1 in
	status) echo $((runs * 5)) ;;
	checkout) echo $((runs * 2)) ;;
	*) echo "$runs" ;;
	esac
}

# the calls the supervisor judges (runtime/walls/seccomp.c's path_calls;
# bind is left out, none of the workloads makes one), whose names strace
# collects for hit%; for context strace also counts every call of
# its %file class (also the stat family, access, readlink, getcwd,
# chdir), which the supervisor does not see
calls=${BENCH_SUP_CALLS:-open,openat,openat2,creat,mkdir,mkdirat,mknod,\
mknodat,symlink,symlinkat,link,linkat,unlink,unlinkat,rmdir,rename,\
renameat,renameat2,execve,execveat,truncate,chmod,fchmod,fchmodat,chown,\
fchown,lchown,fchownat,utime,utimes,futimesat,utimensat,setxattr,\
lsetxattr,fsetxattr,removexattr,lremovexattr,fremovexattr}

# medians_of RUNS DIR PREP CMD... - every CMD RUNS times, in interleaved
# rounds, PREP before each run; prints the medians in milliseconds
medians_of() {
	_runs=$1 _dir=$2 _prep=$3
	shift 3
	_per=$(( (_runs + rounds - 1) / rounds ))
	: >"$work/times"
	_r=0
	while [ "$_r" -lt "$rounds" ]; do
		if ! (cd "$_dir" && hyperfine -N --style none --runs "$_per" \
			--warmup 1 --prepare "$_prep" \
			--export-json "$work/hf.json" "$@") >/dev/null \
			2>"$work/hf.err"; then
			cat "$work/hf.err" >&2
			echo "bench: supervised: a command failed; once more:" >&2
			for _c in "$@"; do
				# shellcheck disable=SC2086 # split into words
				(cd "$_dir" && $_prep >/dev/null 2>&1 &&
					$_c >/dev/null 2>"$work/one.err") ||
					{ echo "exit $?: $_c" >&2
					  tail -n 5 "$work/one.err" >&2; }
			done
			return 1
		fi
		jq -r '.results | to_entries[] | .key as $k |
			.value.times[] | "\($k) \(.)"' "$work/hf.json" \
			>>"$work/times"
		_r=$((_r + 1))
	done
	_k=0
	for _c in "$@"; do
		awk -v k="$_k" '$1 == k { print $2 }' "$work/times" |
			sort -g | awk '{ v[NR] = $1 } END {
				h = NR / 2
				m = NR % 2 ? v[(NR + 1) / 2] : (v[h] + v[h + 1]) / 2
				printf "%.1f ", m * 1e3 }'
		_k=$((_k + 1))
	done
	echo
}

# answered DIR PREP CMD PLAN - how many calls the supervisor answered in
# one run of CMD under PLAN (vbox-exec --log)
answered() {
	# shellcheck disable=SC2086 # the commands are split into words
	(cd "$1" && $2 >/dev/null 2>&1 &&
		"$VBOX_EXEC" --log "$work/$4.plan" -- $3 >/dev/null \
			2>"$work/log.txt") || { echo -; return; }
	sed -n 's/.*socket supervisor: \([0-9]*\) calls answered.*/\1/p' \
		"$work/log.txt" | tail -n 1
}

# count DIR PREP CMD SET - the calls of SET that CMD makes (strace -f
# -c, no sandbox)
count() {
	[ "${BENCH_SUP_EXTRA:-1}" != 0 ] && [ -n "$strace" ] || { echo -; return; }
	# shellcheck disable=SC2086 # the commands are split into words
	(cd "$1" && $2 >/dev/null 2>&1 &&
		$strace -f -c -o "$work/strace.txt" -e trace="$4" $3 \
			>/dev/null 2>&1) || { echo -; return; }
	awk '$NF == "total" { print $4 }' "$work/strace.txt"
}

# hits DIR PREP CMD - the percentage of the names the supervised calls of
# CMD judge (strace -ff -y, no sandbox) that a cache of decisions by
# (directory inode, name) would have answered: every name but the first
# of each different (directory, name).  A relative name is taken against its
# directory fd (strace -y names AT_FDCWD's directory too) or, for the
# calls without one (open, mkdir, rename...), the workload's directory
hits() {
	[ "${BENCH_SUP_EXTRA:-1}" != 0 ] && [ -n "$strace" ] || { echo -; return; }
	rm -rf "$work/ff"
	mkdir "$work/ff"
	# shellcheck disable=SC2086 # the commands are split into words
	(cd "$1" && $2 >/dev/null 2>&1 &&
		$strace -ff -y -qq -s 4096 -e signal=none -e trace="$calls" \
			-o "$work/ff/t" $3 >/dev/null 2>&1) || { echo -; return; }
	"$PY" - "$1" "$work"/ff/t.* <<'PYEOF'
import os, re, sys
cwd = sys.argv[1]
arg = re.compile(r'(?:AT_FDCWD|-?\d+)<((?:[^>\\]|\\.)*)>'
                 r'|"((?:[^"\\]|\\.)*)"')
keys, total = set(), 0
# each path string is a name, taken against the directory fd before it
# (strace -y prints it as N</path>); a rename or link judges two names,
# every other call one; the fd-only calls name their fd's file
two = ("rename", "renameat", "renameat2", "link", "linkat")
for f in sys.argv[2:]:
    for line in open(f, errors="replace"):
        m = re.match(r"(\w+)\((.*)", line)
        if not m or line.rstrip().endswith("<unfinished ...>"):
            continue
        name, rest = m.group(1), m.group(2).rsplit(") = ", 1)[0]
        if name in ("symlink", "symlinkat"):
            rest = rest[rest.index(",") + 1:]     # the link's contents
        if name.startswith("execve"):
            rest = rest[:rest.find("[")]          # argv and envp
        names = []
        d = cwd
        for t in arg.finditer(rest):
            if t.group(1) is not None:
                d = t.group(1)
                if name in ("fchmod", "fchown", "fsetxattr", "fremovexattr"):
                    names.append(d)
            elif t.group(2) is not None:
                names.append(os.path.join(d, t.group(2)) if t.group(2)
                             else d)
                d = cwd
        for n in names[:2 if name in two else 1]:
            n = os.path.normpath(n)
            keys.add((os.path.dirname(n), os.path.basename(n)))
            total += 1
# the share of the names a cache would have answered: all but the first
# of each key
print("%.0f" % (100.0 * (total - len(keys)) / total) if total else "-")
PYEOF
}

# supcpu DIR PREP CMD N - the supervisor's own CPU time per supervised
# call beyond the base plan's, in microseconds: vbox-exec --log's
# "vbox-exec cpu" line (getrusage of vbox-exec itself: every thread of it,
# the supervisors included, and none of the sandbox's processes), median
# of three runs under each plan, divided by the N calls
supcpu() {
	[ "${BENCH_SUP_EXTRA:-1}" != 0 ] || { echo -; return; }
	for _p in base sup; do
		for _i in 1 2 3; do
			# shellcheck disable=SC2086 # split into words
			(cd "$1" && $2 >/dev/null 2>&1 &&
				"$VBOX_EXEC" --log "$work/$_p.plan" -- $3 \
					>/dev/null 2>"$work/cpu.log") ||
				{ echo -; return; }
			sed -n 's/.*vbox-exec cpu: \([0-9.]*\) ms.*/\1/p' \
				"$work/cpu.log"
		done | sort -g | sed -n 2p >"$work/cpu.$_p"
	done
	awk -v n="$4" -v b="$(cat "$work/cpu.base")" \
		-v s="$(cat "$work/cpu.sup")" 'BEGIN {
		if (n + 0 > 0 && b != "" && s != "")
			printf "%.1f", (s - b) * 1e3 / n
		else print "-" }'
}

echo "== supervised paths: plan with !deny: **/.env (sup), with" \
	"!ro: **/.git/hooks/** (ro) vs without (base)" \
	"($runs runs each, status x5, checkout x2; ms, medians)" | tee -a "$results"
[ -z "$sup_why" ] || echo "supervised plan $sup_why" | tee -a "$results"
line workload plain base supervised ratio ro "ro/b" calls "us/call" \
	"cpu/c" "hit%" "%file" ""
for w in $only; do
	d=$(wl_dir "$w")
	c=$(wl_cmd "$w")
	p=$(wl_prep "$w")
	[ -n "$d" ] || { echo "bench: supervised: no workload $w" >&2; exit 2; }
	f=$(count "$d" "$p" "$c" %file)
	k=$(hits "$d" "$p" "$c")
	# shellcheck disable=SC2086 # the medians are split into $1 $2 $3
	if [ -z "$sup_why" ]; then
		# shellcheck disable=SC2086 # no before: two fewer commands
		m=$(medians_of "$(wl_runs "$w")" "$d" "$p" "$c" \
			"$VBOX_EXEC $work/base.plan -- $c" \
			"$VBOX_EXEC $work/sup.plan -- $c" \
			"$VBOX_EXEC $work/ro.plan -- $c" \
			${VBOX_EXEC_BEFORE:+"$VBOX_EXEC_BEFORE $work/sup.plan -- $c"} \
			${VBOX_EXEC_BEFORE:+"$VBOX_EXEC_BEFORE $work/ro.plan -- $c"}) ||
			exit 1
		set -- $m
		n=$(awk -v s="$(answered "$d" "$p" "$c" sup)" \
			-v b="$(answered "$d" "$p" "$c" base)" 'BEGIN {
			print (s ~ /^[0-9]+$/ && b ~ /^[0-9]+$/) ? s - b : "-" }')
		nr=$(awk -v s="$(answered "$d" "$p" "$c" ro)" \
			-v b="$(answered "$d" "$p" "$c" base)" 'BEGIN {
			print (s ~ /^[0-9]+$/ && b ~ /^[0-9]+$/) ? s - b : "-" }')
		r=$(awk -v a="$3" -v b="$2" 'BEGIN { printf "%.2f", a / b }')
		o=$(awk -v a="$4" -v b="$2" 'BEGIN { printf "%.2f", a / b }')
		v=$(awk -v r="$r" 'BEGIN { print (r <= 1.3) ? "ok" : "MISSED" }')
		u=$(awk -v a="$3" -v b="$2" -v n="$n" 'BEGIN {
			if (n + 0 > 0) printf "%.1f", (a - b) * 1e3 / n
			else print "-" }')
		q=$(supcpu "$d" "$p" "$c" "$n")
		line "$w" "$1" "$2" "$3" "$r" "$4" "$o" "$n/$nr" "$u" "$q" "$k" \
			"$f" "$v"
		if [ -n "${VBOX_EXEC_BEFORE:-}" ]; then
			line "  before" - "$2" "$5" \
				"$(awk -v a="$5" -v b="$2" 'BEGIN { printf "%.2f", a / b }')" \
				"$6" \
				"$(awk -v a="$6" -v b="$2" 'BEGIN { printf "%.2f", a / b }')" \
				- - - - - ""
		fi
	else
		m=$(medians_of "$(wl_runs "$w")" "$d" "$p" "$c" \
			"$VBOX_EXEC $work/base.plan -- $c") || exit 1
		set -- $m
		line "$w" "$1" "$2" - - - - - - - "$k" "$f" \
			"supervised: not measured"
	fi
done

# ---- container mode: the same supervised plan, both modes (issue 31)
ctr_only=${BENCH_SUP_CTR-status npm}
if [ -n "$sup_why" ] || [ -z "$ctr_only" ] ||
	! "$VBOX_EXEC" --mode=container "$work/sup.plan" -- /bin/true \
		>/dev/null 2>"$work/ctr.err"; then
	[ -n "$ctr_only" ] || sup_why="BENCH_SUP_CTR is empty"
	echo "== container mode: not measured: ${sup_why:-$(head -n 1 "$work/ctr.err" 2>/dev/null)}" |
		tee -a "$results"
	exit 0
fi
echo "== container mode vs namespace mode, the supervised plan (ms," \
	"medians; container mode holds the row and the private /tmp with" \
	"its path supervisor)" | tee -a "$results"
printf '%-9s %9s %9s %7s\n' workload ns container ratio | tee -a "$results"
for w in $ctr_only; do
	d=$(wl_dir "$w")
	c=$(wl_cmd "$w")
	p=$(wl_prep "$w")
	m=$(medians_of "$(wl_runs "$w")" "$d" "$p" \
		"$VBOX_EXEC $work/sup.plan -- $c" \
		"$VBOX_EXEC --mode=container $work/sup.plan -- $c") || exit 1
	# shellcheck disable=SC2086 # the medians are split into $1 $2
	set -- $m
	printf '%-9s %9s %9s %7s\n' "$w" "$1" "$2" \
		"$(awk -v a="$2" -v b="$1" 'BEGIN { printf "%.2f", a / b }')" |
		tee -a "$results"
done

