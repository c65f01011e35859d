#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/determinism.sh - principle 3 of doc/rules.md ("Deterministic"):
# the same rules, target and
# variables give byte-identical output.
#
# For every valid testdata/ case, each of its targets and each emit mode
# (profile, plan, ir), `vboxc compile` runs in these conditions, and its
# stdout, stderr and exit status must not change:
#
#   base      in a copy of testdata/, relative rule path, an environment
#             of PATH, HOME, LC_ALL=C and TZ=UTC
#   again     the same command a second time
#   cwd       another copy of testdata/ at another place, the same
#             relative path
#   env       random extra variables, another HOME (the rules' home
#             comes from -D HOME), USER, PWD, TMPDIR, XDG_RUNTIME_DIR
#   locale    LC_ALL=C.UTF-8, LANG and LC_* set to other locales, TZ
#             far from UTC
#   abs       an absolute rule path, run from two different directories
#             (compared with each other; and the artifact with base's:
#             artifacts name rule files relative to the source root,
#             diagnostics as typed; tests/cli/reproducible.sh does more)
#
# A refused compile (an unsupported row) must be refused alike.  One TAP
# line per case, target and mode.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"
[ -d "$srcdir/testdata" ] || skip_all "no testdata directory in $srcdir"

mkdir "$workdir/a" "$workdir/b" "$workdir/b/deeper" "$workdir/o"
cp -R "$srcdir/testdata" "$workdir/a/testdata"
cp -R "$srcdir/testdata" "$workdir/b/deeper/testdata"
home_dir=$workdir/home
mkdir "$home_dir"

# rnd - a random decimal number (different in every call).
rnd() {
	od -An -N4 -tu4 /dev/urandom | tr -d ' '
}

# runv TAG DIR VARS ARGS... - run `vboxc compile ARGS` in DIR with an
# environment of PATH, the sanitizer settings and VARS (blank-separated
# NAME=VALUE words); $workdir/o/TAG.{out,err,rc} keep the results.
runv() {
	_tag=$1
	_dir=$2
	_vars=$3
	shift 3
	_rc=0
	# shellcheck disable=SC2086 # VARS is a word list on purpose
	(cd "$_dir" && exec env -i PATH="$PATH" \
		${ASAN_OPTIONS+"ASAN_OPTIONS=$ASAN_OPTIONS"} \
		${UBSAN_OPTIONS+"UBSAN_OPTIONS=$UBSAN_OPTIONS"} \
		${LSAN_OPTIONS+"LSAN_OPTIONS=$LSAN_OPTIONS"} \
		$_vars "$VBOXC" compile "$@") \
		>"$workdir/o/$_tag.out" 2>"$workdir/o/$_tag.err" || _rc=$?
	echo "$_rc" >"$workdir/o/$_tag.rc"
}

# same A B - A's results equal B's (stdout, stderr and exit status).
same() {
	cmp -s "$workdir/o/$1.out" "$workdir/o/$2.out" &&
		cmp -s "$workdir/o/$1.err" "$workdir/o/$2.err" &&
		cmp -s "$workdir/o/$1.rc" "$workdir/o/$2.rc"
}

# show A B - the first differences, as TAP comments.
show() {
	for _s in rc out err; do
		cmp -s "$workdir/o/$1.$_s" "$workdir/o/$2.$_s" && continue
		echo "# $_s differs between $1 and $2:"
		if [ "$_s" = out ]; then
			od -An -c "$workdir/o/$1.out" >"$workdir/o/x1"
			od -An -c "$workdir/o/$2.out" >"$workdir/o/x2"
			diff -u "$workdir/o/x1" "$workdir/o/x2" | sed 1,2d |
				head -n 20 | sed 's/^/#   /' || :
		else
			diff -u "$workdir/o/$1.$_s" "$workdir/o/$2.$_s" |
				sed 1,2d | head -n 20 | sed 's/^/#   /' || :
		fi
	done
}

# sane TAG - no crash, usage error or sanitizer report.
sane_run() {
	_r=$(cat "$workdir/o/$1.rc")
	if [ "$_r" -ne 0 ] && [ "$_r" -ne 1 ]; then
		return 1
	fi
	! grep -q -e AddressSanitizer -e LeakSanitizer -e 'runtime error:' \
		"$workdir/o/$1.err"
}

base_vars="HOME=/home/tester LC_ALL=C TZ=UTC"
ncases=0
for path in "$srcdir"/testdata/ok_*.rules; do
	# The list is expanded; -D values must reach vboxc untouched.
	set -f
	[ -f "$path" ] || continue
	f=${path##*/}
	case=${f%.rules}
	targets=$(case_header "$path" TARGETS)
	defines=$(case_header "$path" DEFINES)
	ncases=$((ncases + 1))
	for t in $targets; do
		# The cases.sh options, with HOME always given by -D so that
		# the environment's HOME is free to vary.
		set -- --target="$t"
		home_given=
		for d in $defines; do
			set -- "$@" -D "$d"
			case $d in HOME=*) home_given=1 ;; esac
		done
		if [ -z "$home_given" ]; then
			if [ "$t" = windows ]; then
				set -- "$@" -D 'HOME=C:\Users\tester'
			else
				set -- "$@" -D HOME=/home/tester
			fi
		fi
		for m in profile plan ir; do
			id="$case.$t --emit=$m"
			runv base "$workdir/a/testdata" "$base_vars" \
				--emit="$m" "$@" "$f"
			if ! sane_run base; then
				not_ok "$id: crashed or usage error"
				sed 's/^/#   /' "$workdir/o/base.err" |
					head -n 20
				continue
			fi
			runv again "$workdir/a/testdata" "$base_vars" \
				--emit="$m" "$@" "$f"
			runv cwd "$workdir/b/deeper/testdata" "$base_vars" \
				--emit="$m" "$@" "$f"
			runv env "$workdir/a/testdata" "HOME=$home_dir LC_ALL=C \
TZ=UTC VBOXDET_$(rnd)=$(rnd) VBOXDET_X=$(rnd) USER=u$(rnd) \
PWD=/nowhere/$(rnd) OLDPWD=/ TMPDIR=/var/tmp/$(rnd) \
XDG_RUNTIME_DIR=/run/user/$(rnd) SHELL=/bin/false HOSTNAME=h$(rnd)" \
				--emit="$m" "$@" "$f"
			runv locale "$workdir/a/testdata" "HOME=/home/tester \
LC_ALL=C.UTF-8 LANG=tr_TR.UTF-8 LC_CTYPE=tr_TR.UTF-8 \
LC_COLLATE=de_DE.UTF-8 LC_NUMERIC=de_DE.UTF-8 TZ=Pacific/Chatham" \
				--emit="$m" "$@" "$f"
			runv abs1 "$workdir/b" "$base_vars" \
				--emit="$m" "$@" "$workdir/a/testdata/$f"
			runv abs2 / "$base_vars" \
				--emit="$m" "$@" "$workdir/a/testdata/$f"

			why=
			for v in again cwd env locale; do
				if ! same base "$v"; then
					why="$why $v"
				fi
			done
			same abs1 abs2 || why="$why abs"
			cmp -s "$workdir/o/base.out" "$workdir/o/abs1.out" ||
				why="$why abs-artifact"
			if [ -z "$why" ]; then
				ok "$id: the same bytes in every run"
			else
				not_ok "$id: output changed:$why"
				for v in again cwd env locale; do
					show base "$v"
				done
				show abs1 abs2
			fi
		done
	done
done

if [ "$ncases" -lt 1 ]; then
	not_ok "no ok_ cases found in $srcdir/testdata"
fi
done_testing
