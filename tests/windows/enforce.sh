#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/windows/enforce.sh - the enforcement cases of the windows
# launcher (tests/windows/enforce/enforce.ps1), which need a real windows
# machine: restricted tokens, integrity levels and file DACLs, none of
# which wine enforces.  Here each is reported as skipped with that
# reason, so the count shows in every run; .github/workflows/windows.yml
# runs them on a windows runner as a fresh standard user.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

script=$srcdir/tests/windows/enforce/enforce.ps1
[ -f "$script" ] || skip_all "no $script"
sed -n "s/^Case '\(.*\)' {\$/\1/p" "$script" | sed "s/''/'/g" \
	>"$workdir/cases"
n=$(wc -l <"$workdir/cases")
[ "$n" -gt 0 ] || {
	not_ok "enforce.ps1 lists its cases"
	done_testing
}
echo "# $n enforcement cases need real Windows (wine ignores restricting" \
	"SIDs and keeps no file DACL): .github/workflows/windows.yml runs them"
while IFS= read -r name; do
	tap_n=$((tap_n + 1))
	printf 'ok %s - %s # SKIP needs real Windows\n' "$tap_n" "$name"
done <"$workdir/cases"
done_testing
