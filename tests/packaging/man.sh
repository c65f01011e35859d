#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/packaging/man.sh - the manual pages render with groff -man -ww without a
# single warning, have every section a page needs, and name every option
# that "--help" prints (vboxc and each of its commands, vbox-exec), so
# the pages cannot fall behind the programs.
. "${srcdir:-.}/tests/lib/lib.sh"

: "${GROFF:=groff}"
command -v "$GROFF" >/dev/null 2>&1 || skip_all "groff not installed"
man=$top_srcdir/doc/man
pages="vboxc.1 vbox-exec.1 vbox.rules.5 vbox.3"

# render PAGE - plain text, one paragraph a line (no wrapping, so no
# option is ever hyphenated or split).
render() {
	"$GROFF" -man -Tascii -P-cbou -rLL=2000n -rHY=0 "$man/$1" 2>/dev/null
}

for p in $pages; do
	# -ww: every warning; -z: no output; -Tutf8 also checks characters.
	run "$GROFF" -man -ww -z "$man/$p"
	is "$rc:$(cat "$workdir/err")" "0:" "$p renders without a warning"
	run "$GROFF" -man -ww -Tutf8 "$man/$p"
	is "$rc:$(cat "$workdir/err")" "0:" "$p renders for a UTF-8 terminal without a warning"
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT \
		FILES EXAMPLES "SEE ALSO"; do
		check "$p has the section $s" grep -q "^\.SH \"*$s\"*\$" "$man/$p"
	done
done
render vboxc.1 >"$workdir/vboxc.txt"
render vbox-exec.1 >"$workdir/vbox-exec.txt"

# options_of HELPTEXT - the options a help text lists: -X, --long,
# -Werror, each once.
options_of() {
	grep -oE -- '(^|[ ,[|])--?[A-Za-z][A-Za-z-]*' "$1" |
		sed 's/^[ ,[|]//' | sort -u
}

# in_page OPT TEXT - OPT appears in TEXT as a whole option.
in_page() {
	grep -qE -- "(^|[^A-Za-z-])$1([^A-Za-z-]|\$)" "$2"
}

"$VBOXC" --help >"$workdir/help"
for c in $(sed -n '/^Commands:/,/^$/s/^  \([a-z]*\) .*/\1/p' "$workdir/help"); do
	check "vboxc.1 describes the command '$c'" in_page "vboxc $c" \
		"$workdir/vboxc.txt"
	"$VBOXC" "$c" --help >>"$workdir/help"
done
n=0
for o in $(options_of "$workdir/help"); do
	n=$((n + 1))
	check "vboxc.1 documents $o (from vboxc --help)" in_page "$o" \
		"$workdir/vboxc.txt"
done
check "vboxc's help lists options at all ($n)" test "$n" -ge 15

"$VBOX_EXEC" --help >"$workdir/xhelp"
n=0
for o in $(options_of "$workdir/xhelp"); do
	n=$((n + 1))
	check "vbox-exec.1 documents $o (from vbox-exec --help)" in_page "$o" \
		"$workdir/vbox-exec.txt"
done
check "vbox-exec's help lists options at all ($n)" test "$n" -ge 8

# The test would notice a missing option.
printf '  --not-in-the-page   x\n' >"$workdir/fake"
o=$(options_of "$workdir/fake")
if in_page "$o" "$workdir/vboxc.txt"; then
	not_ok "an option missing from the page is noticed"
else
	ok "an option missing from the page is noticed"
fi

# vbox.rules(5) names every shipped library file; vbox(3) every function
# of the header.
for r in "$top_srcdir"/rules/*.rules; do
	r=$(basename "$r" .rules)
	check "vbox.rules.5 lists the library file <$r>" in_page "$r" \
		"$(render vbox.rules.5 >"$workdir/rules.txt"; echo "$workdir/rules.txt")"
done
render vbox.3 >"$workdir/vbox3.txt"
for f in $(sed -n 's/^[a-z].* \**\(vbox_[a-z_]*\)(.*/\1/p' \
		"$top_srcdir/include/vbox/vbox.h"); do
	check "vbox.3 documents $f() of <vbox/vbox.h>" grep -q "$f()" \
		"$workdir/vbox3.txt"
done

done_testing
