#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/spec_examples.sh - every example of SPEC.md, one TAP line per row of
# testdata/spec_examples.txt (its header comment documents the columns).
#
# The expected values in the table were written from the SPEC text, never
# by running vboxc: a failure here is a disagreement with the contract.
# Each row runs in a fresh directory under $workdir with the rules in
# main.rules and an environment of only PATH, HOME=/home/tester and
# LC_ALL=C (plus the row's E: variables; for --target=windows
# -D HOME=C:\Users\tester unless the row names HOME).

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"
table=$srcdir/testdata/spec_examples.txt
[ -f "$table" ] || skip_all "no table at $table"

set -f

# trim TEXT - TEXT without leading and trailing blanks.
trim() {
	_t=$1
	_t=${_t#"${_t%%[! 	]*}"}
	_t=${_t%"${_t##*[! 	]}"}
	printf '%s' "$_t"
}

# write_rules DIR RULES - write the row's rule files into DIR.
write_rules() {
	case $2 in
	%b:*)
		printf '%b' "${2#%b:}" >"$1/main.rules"
		;;
	%chain:*)
		_n=${2#%chain:}
		_i=1
		: >"$1/main.rules"
		_prev=$1/main.rules
		while [ "$_i" -le "$_n" ]; do
			printf '@include "inc%d.rules"\n' "$_i" >>"$_prev"
			_prev=$1/inc$_i.rules
			: >"$_prev"
			_i=$((_i + 1))
		done
		echo 'deny:/deep' >>"$_prev"
		;;
	%cycle)
		echo '@include "a.rules"' >"$1/main.rules"
		echo '@include "b.rules"' >"$1/a.rules"
		echo '@include "a.rules"' >"$1/b.rules"
		;;
	%twice)
		printf '@include "x.rules"\n@include "x.rules"\n' >"$1/main.rules"
		echo 'deny:/twice' >"$1/x.rules"
		;;
	*)
		printf '%s\n' "$2" | awk '{ gsub(/ ;; /, "\n"); print }' \
			>"$1/main.rules"
		;;
	esac
}

# json_member NAME - the raw value of member NAME in the first line of
# $workdir/out (compact JSON: "name":value).
json_member() {
	head -n 1 "$workdir/out" |
		sed -En "s/.*\"$1\":(\"[^\"]*\"|-?[0-9]+|true|false|null).*/\1/p"
}

# has_warning KIND ROW BY DOMAIN - check --format=json output lists it.
has_warning() {
	tr -d '\n' <"$workdir/out" | grep -o '{"kind":[^{}]*}' |
		grep -F "\"kind\":\"$1\"" | grep -E "\"row\":$2[,}]" |
		grep -E "\"by\":$3[,}]" | grep -qF "\"domain\":\"$4\""
}

# sanitized - true when stderr holds a sanitizer report.
sanitized() {
	grep -q -e AddressSanitizer -e LeakSanitizer -e 'runtime error:' \
		"$workdir/err"
}

# error_line TEXT - an error with a location whose message contains TEXT:
# a "FILE:LINE:COL: error:" line on stderr (text format) or an entry of
# "errors" with a "FILE:LINE:COL" source (JSON format).
error_line() {
	if grep -E '^[^ :]+:[0-9]+:[0-9]+: error: ' "$workdir/err" |
		grep -qF -- "$1"; then
		return 0
	fi
	sed -n 's/^{"errors":\[\(.*\)\],"warnings":.*/\1/p' "$workdir/out" |
		grep -o '{"source":"[^"]*:[0-9][0-9]*:[0-9][0-9]*","message":"[^}]*}' |
		grep -qF -- "$1"
}

# judge EXPECT - compare $rc, $workdir/out and $workdir/err with EXPECT;
# sets $why (empty when the row passes).
judge() {
	why=
	if sanitized; then
		why="sanitizer report"
		return
	fi
	# shellcheck disable=SC2086 # split the expectation into words
	set -- $1
	case $1 in
	allow | deny)
		if [ "$rc" -ne 0 ]; then
			why="exit status $rc, want 0"
			return
		fi
		_a=$(json_member allow)
		_r=$(json_member row)
		_e=$(json_member effect)
		_l=$(json_member level)
		[ "$1" = allow ] && _wa=true || _wa=false
		if [ "$_a" != "$_wa" ]; then
			why="allow is '$_a', want $_wa"
		elif [ "$_r" != "$2" ]; then
			why="row is '$_r', want $2"
		elif [ $# -ge 3 ] && [ "$3" = null ] && [ "$_e" != null ]; then
			why="effect is '$_e', want null"
		elif [ $# -ge 3 ] && [ "$3" != null ] && [ "$_e" != "\"$3\"" ]; then
			why="effect is '$_e', want \"$3\""
		elif [ $# -ge 4 ] && [ "$_l" != "$4" ]; then
			why="level is '$_l', want $4"
		fi
		;;
	qerror)
		if [ "$rc" -ne 1 ]; then
			why="exit status $rc, want 1"
		elif ! head -n 1 "$workdir/out" | grep -q '"error":'; then
			why="no \"error\" member in the answer"
		fi
		;;
	error)
		shift
		if [ "$rc" -ne 1 ]; then
			why="exit status $rc, want 1"
		elif ! error_line "$*"; then
			why="no 'FILE:LINE:COL: error: ...$*...' line"
		fi
		;;
	ok)
		if [ "$rc" -ne 0 ]; then
			why="exit status $rc, want 0"
		elif ! grep -qF '"warnings":[]' "$workdir/out"; then
			why="unexpected warnings"
		fi
		;;
	warn)
		if [ "$rc" -ne 0 ]; then
			why="exit status $rc, want 0"
		elif ! has_warning "$2" "$3" "$4" "$5"; then
			why="no $2 warning for $5 row $3 by row $4"
		fi
		;;
	werror)
		if [ "$rc" -ne 1 ]; then
			why="exit status $rc, want 1"
		elif grep -qF '"warnings":[]' "$workdir/out" ||
			! grep -qF '"warnings":[' "$workdir/out"; then
			why="the warning is not kept under \"warnings\""
		fi
		;;
	*)
		why="bad expectation '$*' in the table"
		;;
	esac
}

n=0
while IFS= read -r line; do
	case $line in
	'' | '#'*) continue ;;
	esac
	n=$((n + 1))
	IFS='|' read -r id target vars rules query expect ref <<EOF
$line
EOF
	id=$(trim "$id")
	target=$(trim "$target")
	vars=$(trim "$vars")
	rules=$(trim "$rules")
	query=$(trim "$query")
	expect=$(trim "$expect")
	ref=$(trim "$ref")
	desc="$id ($target) $ref: $query -> $expect"
	# lib.sh prints descriptions with echo, which may interpret
	# backslashes (dash: "\c" ends the output): spell them %5C.
	desc=$(printf '%s' "$desc" | sed 's/\\/%5C/g')

	dir=$workdir/$n
	mkdir "$dir"
	write_rules "$dir" "$rules"

	# The environment and the -D options.
	set -- env -i PATH="$PATH" LC_ALL=C
	home=/home/tester
	home_named=
	for v in $vars; do
		case $v in
		-) ;;
		U:HOME) home= ;;
		E:HOME=*) home=${v#E:HOME=} ;;
		E:*) set -- "$@" "${v#E:}" ;;
		esac
		case $v in *:HOME | *:HOME=*) home_named=1 ;; esac
	done
	[ -z "$home" ] || set -- "$@" HOME="$home"
	set -- "$@" ${ASAN_OPTIONS+"ASAN_OPTIONS=$ASAN_OPTIONS"} \
		${UBSAN_OPTIONS+"UBSAN_OPTIONS=$UBSAN_OPTIONS"} \
		${LSAN_OPTIONS+"LSAN_OPTIONS=$LSAN_OPTIONS"}
	set -- "$@" "$VBOXC"
	case $query in
	check) set -- "$@" check --format=json ;;
	check-Werror) set -- "$@" check --format=json -Werror ;;
	read\ *) set -- "$@" explain --format=json --read="${query#read }" ;;
	write\ *) set -- "$@" explain --format=json --write="${query#write }" ;;
	net\ *) set -- "$@" explain --format=json --net="${query#net }" ;;
	*)
		not_ok "$desc: bad query column"
		continue
		;;
	esac
	set -- "$@" --target="$target"
	for v in $vars; do
		case $v in D:*) set -- "$@" -D "${v#D:}" ;; esac
	done
	if [ "$target" = windows ] && [ -z "$home_named" ]; then
		set -- "$@" -D 'HOME=C:\Users\tester'
	fi
	set -- "$@" main.rules

	rc=0
	(cd "$dir" && exec "$@") </dev/null >"$workdir/out" \
		2>"$workdir/err" || rc=$?
	judge "$expect"
	if [ -z "$why" ]; then
		ok "$desc"
	else
		not_ok "$desc: $why"
		{
			echo "rules:"
			cat "$dir/main.rules"
			echo "stdout:"
			cat "$workdir/out"
			echo "stderr:"
			head -n 20 "$workdir/err"
		} | sed 's/^/#   /'
	fi
done <"$table"

[ "$n" -gt 0 ] || not_ok "no rows in $table"
done_testing
