#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/source/continue_sites.sh - every place a supervisor lets a call go on as
# the child made it (SECCOMP_USER_NOTIF_FLAG_CONTINUE) is listed in
# doc/launcher.md's "What continues" table with its reason, and nothing
# else is (issue 29).  A continued call lets the kernel read the child's
# memory again after the judgement, so each such site must say why that
# cannot change the decision.
#
# In the code, a site is a line that uses the flag outside a comment; the
# nearest "continue-site: NAME" above it (within 30 lines) names it.  In
# the doc, a site is a row "| `NAME` |" of the table under the heading
# "### What continues".  The check runs on the tree, then on a copy with a
# site planted without an entry and on one whose entry was removed: both
# must fail, or the check could not fail.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

plan 5

# sites ROOT - "FILE:LINE NAME" for every use of the flag in ROOT/runtime
# (NAME "-" when no marker names it)
sites() {
	find "$1/runtime" -name '*.c' | LC_ALL=C sort | while read -r f; do
		awk -v file="${f#$1/}" '
			/continue-site: / {
				m = $0
				sub(/.*continue-site: /, "", m)
				sub(/[^A-Za-z0-9_-].*/, "", m)
				name = m
				at = NR
			}
			/SECCOMP_USER_NOTIF_FLAG_CONTINUE/ {
				line = $0
				sub(/^[ \t]+/, "", line)
				if (line ~ /^(\/\*|\*)/)
					next
				print file ":" NR " " \
				    (name != "" && NR - at <= 30 ? name : "-")
			}' "$f"
	done
}

# listed ROOT - the NAMEs of doc/launcher.md's "What continues" table
listed() {
	awk '
		/^### / { inside = ($0 == "### What continues") ; next }
		/^## / { inside = 0 }
		inside && /^\| `[A-Za-z0-9_-]+` \|/ {
			n = $0
			sub(/^\| `/, "", n)
			sub(/`.*/, "", n)
			print n
		}' "$1/doc/launcher.md" | LC_ALL=C sort -u
}

# check_tree ROOT - empty output when code and doc agree
check_tree() {
	sites "$1" >"$workdir/sites"
	listed "$1" >"$workdir/listed"
	awk '$2 == "-" { print "unnamed site " $1 }' "$workdir/sites"
	cut -d' ' -f2 "$workdir/sites" | grep -v '^-$' | LC_ALL=C sort -u \
		>"$workdir/named"
	comm -23 "$workdir/named" "$workdir/listed" |
		sed 's/^/site not in doc\/launcher.md: /'
	comm -13 "$workdir/named" "$workdir/listed" |
		sed 's/^/doc entry without a site: /'
}

top=$(cd "$srcdir" && pwd)
out=$(check_tree "$top")
is "$out" "" "every continue site of runtime/ is in doc/launcher.md's table, and every entry has its site"
n=$(sites "$top" | wc -l)
check "the code has at least one site (the checker finds them: $n)" \
	test "$n" -ge 1
listed "$top" >"$workdir/l"
check "the doc's table lists at least one site" test -s "$workdir/l"

# a planted site without an entry, and an entry without its site
mkdir -p "$workdir/t1/runtime" "$workdir/t1/doc"
cp -R "$top/runtime/." "$workdir/t1/runtime/"
cp "$top/doc/launcher.md" "$workdir/t1/doc/"
printf 'static void planted(struct seccomp_notif_resp *r)\n{\n\tr->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;\n}\n' \
	>"$workdir/t1/runtime/planted.c"
out=$(check_tree "$workdir/t1")
check "a planted site without a name or an entry fails the check" \
	test -n "$out"
mkdir -p "$workdir/t2/runtime" "$workdir/t2/doc"
cp -R "$top/runtime/." "$workdir/t2/runtime/"
awk '/^### What continues/ { inside = 1 }
     inside && /^\| `/ && !done { done = 1; next }
     { print }' "$top/doc/launcher.md" >"$workdir/t2/doc/launcher.md"
out=$(check_tree "$workdir/t2")
check "a site whose entry was removed fails the check" test -n "$out"

done_testing
