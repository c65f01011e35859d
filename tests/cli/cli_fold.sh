#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/cli_fold.sh - repeats fold in text (doc/rules.md, "Repeats"):
# a home that is not a drive path, compiled for windows with the rule
# library's <dotfiles>, makes one error per row; compile, check and
# preflight show the first three and "... and N more rows with this
# error", outside the error cap; check's JSON and SARIF keep every row.
# Shadow warnings fold the same way, and -Werror still counts each.  A
# fold hides two rows or more: four of one reason are all shown.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"
command -v jq >/dev/null 2>&1 || skip_all "no jq (the JSON is read with it)"
lib=$(cd "$srcdir/rules" && pwd)

cd "$workdir"
printf '@default net open\n@include <dotfiles>\nrw: ~/work\n' >home.rules
rows=$(grep -c '^!*[a-z]*: *~' "$lib/dotfiles.rules")
rows=$((rows + 1))

vboxc() {
	env -i PATH="$PATH" HOME=/home/u LC_ALL=C "$VBOXC" "$@"
}

for cmd in compile check preflight; do
	run vboxc "$cmd" --target=windows -I "$lib" home.rules
	is "$rc" 1 "$cmd: exit 1"
	is "$(grep -c "is not on a drive" err)" 3 "$cmd: the first 3 rows named"
	is "$(grep -c "^vboxc: note: \.\.\. and $((rows - 3)) more rows with this error (vboxc check --format=json lists every row)\$" err)" 1 \
		"$cmd: then '... and $((rows - 3)) more rows' ($rows rows)"
	check "$cmd: no error cap note (folded errors are outside it)" \
		sh -c '! grep -q "more errors not shown" err'
done
run vboxc check --target=windows -I "$lib" --format=json home.rules
is "$(jq '[.errors[] | select(.message | test("not on a drive"))] | length' out)" "$rows" \
	"check --format=json keeps every row"
run vboxc check --target=windows -I "$lib" --format=sarif home.rules
is "$(jq '[.runs[0].results[] | select(.message.text | test("not on a drive"))] | length' out)" "$rows" \
	"check --format=sarif keeps every row"
run vboxc check --target=windows -I "$lib" --max-errors=2 home.rules
is "$(grep -c "is not on a drive" err):$(grep -c '^vboxc: note: 1 more error not shown$' err)" "2:1" \
	"--max-errors=2: two shown, the third counted"

# different reasons are not folded together; four of one reason are
{
	echo 'rw: /srv/**'
	for d in a b c d; do echo "ro: /srv/$d"; done
	echo 'deny: /srv/e'
} >shadow.rules
run vboxc check -Werror shadow.rules
is "$(grep -c "is ineffective" err)" 3 "warnings: the first 3 of one reason shown"
is "$(grep -c '^vboxc: note: \.\.\. and 2 more rows with this warning (vboxc check --format=json lists every row)$' err)" 1 \
	"warnings: then '... and 2 more rows' (ro and deny rows alike)"
check "-Werror counts every warning" \
	grep -q '^vboxc: error: 5 warnings treated as errors (-Werror)$' err

# four of one reason: all four shown, no line in the place of the fourth
head -n 5 shadow.rules >four.rules
run vboxc check four.rules
is "$(grep -c "is ineffective" err):$(grep -c 'more row' err)" "4:0" \
	"warnings: four of one reason are all shown, no fold line"

done_testing
