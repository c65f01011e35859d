#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/cases.sh - the data-driven rule-file cases in testdata/.
#
# Every testdata/ok_*.rules and bad_*.rules file carries header comments:
#   # DESCRIPTION: what the case shows
#   # EXPECT: ok|fail              the exit status of `check` (0 or 1)
#   # TARGETS: linux darwin windows  the targets to run it for
#   # DEFINES: NAME=VALUE ...      optional -D variables (no blanks inside)
# For each case and target: `vboxc check --format=json` is compared with
# golden/CASE.TARGET.check.json; a failing case, or a valid one with
# shadow warnings, also has its text diagnostics compared with
# golden/CASE.TARGET.stderr; a sibling
# CASE.queries file is run through `vboxc explain --format=json --queries`
# and compared with golden/CASE.TARGET.explain.jsonl (exit 0, or 1 when the
# queries file holds a "# EXPECT: fail" line).  Exit status 2, a crash or
# a sanitizer report always fails.
#
# Compilation (doc/targets.md; doc/rules.md §11, "Exit statuses"): for
# a valid case, `vboxc
# compile --target=T` writes the profile to golden/CASE.T.sb (darwin),
# .bwrap (linux; the NUL-separated list stored one argument a line with
# `tr '\0' '\n'`) or .acl.json (windows), --emit=ir to CASE.T.ir.json and
# --emit=plan to CASE.T.plan.hex (`od -An -tx1 -v`), and for linux, whose
# argument list cannot show the rows of the proxy or of the launch,
# --emit=table to CASE.linux.table (doc/reviewing.md); its stderr must be
# check's (the same warnings, or nothing).  A mode that refuses (a row
# unsupported on T, or a linux launch-class row that only a plan can
# carry) must exit 1 with nothing on stdout; the first refusal's errors go
# to golden/CASE.T.compile.stderr and a later mode that refuses must print
# the same.  For an invalid case, compile and
# preflight must fail exactly like check: exit 1, nothing on stdout, the
# same diagnostics (golden/CASE.T.stderr).
#
# vboxc runs in testdata/ with relative file names (so locations in the
# goldens do not depend on the checkout) and an environment of only PATH,
# HOME=/home/tester and LC_ALL=C.  For --target=windows the home directory
# must be a drive path, so HOME=C:\Users\tester is passed with -D unless
# the case defines HOME itself.
#
# Regenerate goldens with `make update-golden` (VBOX_GOLDEN=all: it also
# makes a new case's), and read every changed or new golden.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"
[ -d "$srcdir/testdata" ] || skip_all "no testdata directory in $srcdir"

cd "$srcdir/testdata"

# vboxc ARGS... - run vboxc in the fixed environment; the sanitizer option
# variables pass through so a sanitized build keeps its settings.
# shellcheck disable=SC2317 # called through run
vboxc() {
	vboxc_fixed "$@"
}

# sane DESC WANT - one TAP line: $rc is WANT and nothing crashed.  Exit
# status 2 (usage), any other status but 0 and 1 (signals, crashes) and
# sanitizer reports always fail.
sane() {
	_why=
	if grep -q -e AddressSanitizer -e LeakSanitizer -e 'runtime error:' \
		"$workdir/err"; then
		_why="sanitizer report"
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
		_why="exit status $rc (usage error or crash)"
	elif [ "$rc" -ne "$2" ]; then
		_why="exit status $rc, want $2"
	fi
	if [ -z "$_why" ]; then
		ok "$1"
	else
		not_ok "$1: $_why"
		sed 's/^/#   /' "$workdir/err" | head -n 40
	fi
}

# golden DESC NAME FILE - one TAP line for golden_compare.
golden() {
	if golden_compare "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1"
	fi
}

# profile_ext TARGET - the golden extension of TARGET's profile.
profile_ext() {
	case $1 in
	darwin) echo sb ;;
	linux) echo bwrap ;;
	windows) echo acl.json ;;
	*) echo "$1.profile" ;;
	esac
}

# same_file DESC FILE WANT - one TAP line: FILE has WANT's bytes (WANT may
# be absent, meaning empty).
same_file() {
	if [ -f "$3" ] && cmp -s "$2" "$3"; then
		ok "$1"
	elif [ ! -f "$3" ] && [ ! -s "$2" ]; then
		ok "$1"
	else
		not_ok "$1"
		if [ -f "$3" ]; then
			diff -u "$3" "$2" | sed 's/^/#   /' | head -n 40 || :
		else
			sed 's/^/#   /' "$2" | head -n 40
		fi
	fi
}

# empty_out DESC - one TAP line: nothing was written to stdout.
empty_out() {
	if [ ! -s "$workdir/out" ]; then
		ok "$1"
	else
		not_ok "$1"
	fi
}

# compile_case ID TARGET ARGS... - the compile goldens of a valid case
# (see the header); $workdir/check.err holds check's text stderr.
compile_case() {
	_id=$1
	_t=$2
	shift 2
	_refused=
	_modes="profile ir plan"
	[ "$_t" = linux ] && _modes="$_modes table"
	for _m in $_modes; do
		run vboxc compile --emit="$_m" "$@"
		if [ "$rc" -eq 1 ]; then
			# Refused: the errors name the rows, nothing is written.
			sane "$_id: compile --emit=$_m refuses (exit 1)" 1
			empty_out "$_id: compile --emit=$_m writes nothing"
			if [ -n "$_refused" ]; then
				same_file "$_id: compile --emit=$_m names the same rows" \
					"$workdir/err" "$workdir/refused.err"
			else
				golden "$_id: compile errors match golden" \
					"$_id.compile.stderr" "$workdir/err"
				cp "$workdir/err" "$workdir/refused.err"
				_refused=$_m
			fi
			continue
		fi
		sane "$_id: compile --emit=$_m exits 0" 0
		same_file "$_id: compile --emit=$_m warns exactly like check" \
			"$workdir/err" "$workdir/check.err"
		case $_m in
		profile)
			tr '\0' '\n' <"$workdir/out" >"$workdir/golden.out"
			_ext=$(profile_ext "$_t")
			;;
		ir)
			cp "$workdir/out" "$workdir/golden.out"
			_ext=ir.json
			;;
		plan)
			od -An -tx1 -v "$workdir/out" >"$workdir/golden.out"
			_ext=plan.hex
			;;
		table)
			cp "$workdir/out" "$workdir/golden.out"
			_ext=table
			;;
		esac
		golden "$_id: compile --emit=$_m matches golden" \
			"$_id.$_ext" "$workdir/golden.out"
	done
}

# reject_case ID ARGS... - an invalid case: compile and preflight fail
# exactly like check, whose text stderr is in $workdir/check.err.
reject_case() {
	_id=$1
	shift
	for _c in compile preflight; do
		run vboxc "$_c" "$@"
		sane "$_id: $_c exits 1" 1
		empty_out "$_id: $_c writes nothing on stdout"
		same_file "$_id: $_c reports what check reports" \
			"$workdir/err" "$workdir/check.err"
	done
}

ncases=0
for f in ok_*.rules bad_*.rules; do
	# The list is expanded; from here on, wildcards in -D values must
	# reach vboxc untouched.
	set -f
	[ -f "$f" ] || continue
	case=${f%.rules}
	expect=$(case_header "$f" EXPECT)
	targets=$(case_header "$f" TARGETS)
	defines=$(case_header "$f" DEFINES)
	case $expect in
	ok) want=0 ;;
	fail) want=1 ;;
	*)
		not_ok "$case: header '# EXPECT: ok|fail' missing or wrong"
		continue
		;;
	esac
	if [ -z "$targets" ] || [ -z "$(case_header "$f" DESCRIPTION)" ]; then
		not_ok "$case: header '# TARGETS:' or '# DESCRIPTION:' missing"
		continue
	fi
	case $case in
	ok_*) [ "$want" -eq 0 ] || not_ok "$case: ok_ case expects fail" ;;
	bad_*) [ "$want" -eq 1 ] || not_ok "$case: bad_ case expects ok" ;;
	esac
	ncases=$((ncases + 1))

	for t in $targets; do
		case $t in
		linux | darwin | windows) ;;
		*)
			not_ok "$case: unknown target '$t'"
			continue
			;;
		esac

		# The common options: target and variables.
		set -- --target="$t"
		home_given=
		for d in $defines; do
			set -- "$@" -D "$d"
			case $d in HOME=*) home_given=1 ;; esac
		done
		if [ "$t" = windows ] && [ -z "$home_given" ]; then
			set -- "$@" -D 'HOME=C:\Users\tester'
		fi

		id="$case.$t"
		run vboxc check --format=json "$@" "$f"
		sane "$id: check exits $want" "$want"
		golden "$id: check --format=json matches golden" \
			"$id.check.json" "$workdir/out"

		if [ "$want" -eq 0 ] && { ! grep -qF '"warnings":[]' \
			"$workdir/out" || grep -qF '"notes":' "$workdir/out"; }
		then
			# Shadowed rows, notes: the text warnings and notes too.
			run vboxc check "$@" "$f"
			sane "$id: check (text) exits 0" 0
			golden "$id: text warnings match golden" \
				"$id.stderr" "$workdir/err"
			cp "$workdir/err" "$workdir/check.err"
		elif [ "$want" -eq 1 ]; then
			run vboxc check "$@" "$f"
			sane "$id: check (text) exits 1" 1
			if grep -Eq '^[^ :]+:[0-9]+:[0-9]+: error: ' \
				"$workdir/err"; then
				ok "$id: text diagnostics have FILE:LINE:COL: error:"
			else
				not_ok "$id: no FILE:LINE:COL: error: line"
			fi
			golden "$id: text diagnostics match golden" \
				"$id.stderr" "$workdir/err"
			cp "$workdir/err" "$workdir/check.err"
		else
			: >"$workdir/check.err"
		fi

		if [ "$want" -eq 0 ]; then
			compile_case "$id" "$t" "$@" "$f"
		else
			reject_case "$id" "$@" "$f"
		fi

		q=$case.queries
		if [ -f "$q" ]; then
			qwant=0
			if grep -q '^# EXPECT: fail' "$q"; then
				qwant=1
			fi
			run vboxc explain --format=json "$@" --queries="$q" "$f"
			sane "$id: explain exits $qwant" "$qwant"
			golden "$id: explain --format=json matches golden" \
				"$id.explain.jsonl" "$workdir/out"
		fi
	done
done

if [ "$ncases" -lt 1 ]; then
	not_ok "no cases found in $srcdir/testdata"
fi
done_testing
