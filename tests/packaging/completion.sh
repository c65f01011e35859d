#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/packaging/completion.sh - the bash completions load in bash and complete
# commands, options, targets, emit modes, formats and file names.
. "${srcdir:-.}/tests/lib/lib.sh"

command -v bash >/dev/null 2>&1 || skip_all "bash not installed"
comp=$top_srcdir/completion

# complete_words FILE WORD... - source FILE in a fresh bash, complete the
# last WORD of the command line WORD... as bash would after a TAB (with
# '=' as a word break, bash's default) and print the candidates sorted,
# one a line.
complete_words() {
	_file=$1
	shift
	bash --norc --noprofile -c '
		. "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		fn=$(complete -p "$1" | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
		"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort
	' sh "$_file" "$@"
}

# candidates WANT FILE WORD... - the candidates, space-separated, are WANT.
candidates() {
	_want=$1
	shift
	_got=$(complete_words "$@" | tr '\n' ' ' | sed 's/ $//')
	is "$_got" "$_want" "complete '$(echo "$*" | cut -d' ' -f2-)'"
}

run bash --norc --noprofile -c ". '$comp/vboxc' && complete -p vboxc"
is "$rc:$(cat "$workdir/out")" "0:complete -F _vboxc vboxc" \
	"vboxc completion loads and registers _vboxc"
run bash --norc --noprofile -c ". '$comp/vbox-exec' && complete -p vbox-exec"
is "$rc:$(cat "$workdir/out")" "0:complete -F _vbox_exec vbox-exec" \
	"vbox-exec completion loads and registers _vbox_exec"

v=$comp/vboxc
candidates "check compile diff explain help preflight" "$v" vboxc ""
candidates "compile" "$v" vboxc co
candidates "darwin linux windows" "$v" vboxc compile --target =  ""
candidates "linux" "$v" vboxc compile --target = li
candidates "--target=linux" "$v" vboxc check --target=li
candidates "ir plan profile table" "$v" vboxc compile --emit = ""
candidates "json sarif text" "$v" vboxc check --format = ""
candidates "json text" "$v" vboxc explain --format = ""
candidates "json sarif text" "$v" vboxc diff --format = ""
candidates "--output=" "$v" vboxc compile --o
candidates "--emit=" "$v" vboxc compile --e
candidates "--format=" "$v" vboxc check --f
candidates "--follow --format=" "$v" vboxc explain --fo
candidates "--include-dir=" "$v" vboxc explain --in
candidates "--max-errors=" "$v" vboxc check --ma
candidates "--per-row" "$v" vboxc preflight --pe
candidates "container ns" "$v" vboxc preflight --mode = ""
candidates "--accept-narrower" "$v" vboxc check --acc
candidates "--mode=" "$v" vboxc preflight --mo
candidates "explain" "$v" vboxc help e

# File names: the RULES operands, -o, --queries and -I (directories).
mkdir "$workdir/d" "$workdir/d/sub"
: >"$workdir/d/a.rules"
: >"$workdir/d/b.queries"
candidates "$workdir/d/a.rules" "$v" vboxc check "$workdir/d/a"
candidates "$workdir/d/b.queries" "$v" vboxc explain --queries = \
	"$workdir/d/b"
candidates "$workdir/d/sub" "$v" vboxc check -I "$workdir/d/s"
candidates "$workdir/d/sub" "$v" vboxc check -I "$workdir/d/"

x=$comp/vbox-exec
candidates "--dry-run" "$x" vbox-exec --dr
candidates "--replace-env" "$x" vbox-exec --re
candidates "$workdir/d/sub" "$x" vbox-exec -C "$workdir/d/"
candidates "$workdir/d/a.rules" "$x" vbox-exec plan -- cat "$workdir/d/a"

done_testing
