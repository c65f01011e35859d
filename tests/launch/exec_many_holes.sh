#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_many_holes.sh - a table with more binds than the
# sandbox's init clones from the sandbox itself (runtime/init/srcview.h:
# from SRCVIEW_MIN_BINDS on, a same-path bind's source is cloned from a
# copy of the tree bubblewrap left, where the init's own mounts do not
# pile up).  What the command sees must not change: a writable root with
# 300 read-only holes and 300 denied files, the holes' own holes (a
# writable directory in each fifth hole, a denied file in each seventh),
# judged from inside (every write into a hole refused, every denied file
# unreadable, the writable places written) and on the host (no file
# appeared where a write was refused).  As root and as uid 65534.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher

N=300
chmod 755 "$workdir"
cd "$workdir"
W=$workdir/w
mkdir -p "$W"
i=0
{
	printf '[fs]\nrw: %s\n' "$W"
	while [ $i -lt $N ]; do
		mkdir -p "$W/h$i"
		echo "secret $i" >"$W/f$i"
		printf '!ro: %s/h%d\n!deny: %s/f%d\n' "$W" $i "$W" $i
		if [ $((i % 5)) = 0 ]; then
			mkdir -p "$W/h$i/open"
			printf '!!rw: %s/h%d/open\n' "$W" $i
		fi
		if [ $((i % 7)) = 0 ]; then
			echo "inner $i" >"$W/h$i/inner"
			printf '!!deny: %s/h%d/inner\n' "$W" $i
		fi
		i=$((i + 1))
	done
} >holes.rules
"$VBOXC" compile --target=linux --emit=plan -o holes.plan holes.rules \
	2>compile.err || { cat compile.err; exit 1; }
chmod 644 holes.plan
chmod -R a+rwX "$W"

# Inside: the counts of what went through that must not have.
cat >probe.sh <<EOF
w=0 r=0 o=0 n=0 i=0
while [ \$i -lt $N ]; do
	(echo x >"$W/h\$i/new") 2>/dev/null && w=\$((w + 1))
	cat "$W/f\$i" >/dev/null 2>&1 && r=\$((r + 1))
	[ -e "$W/h\$i/inner" ] && cat "$W/h\$i/inner" >/dev/null 2>&1 &&
		n=\$((n + 1))
	if [ \$((i % 5)) = 0 ]; then
		(echo x >"$W/h\$i/open/new") 2>/dev/null || o=\$((o + 1))
	fi
	i=\$((i + 1))
done
echo x >"$W/root-written" || exit 9
echo "holes written \$w, denied read \$r, inner read \$n, open refused \$o"
EOF
chmod 644 probe.sh

set_users
for who in $users; do
	rm -f "$W/root-written" "$W"/h*/new "$W"/h*/open/new
	run as_user "$who" "$VBOX_EXEC" holes.plan -- sh "$workdir/probe.sh"
	is "$rc" 0 "$who: the launch of $N holes ran"
	is "$(cat out)" \
		"holes written 0, denied read 0, inner read 0, open refused 0" \
		"$who: inside, every hole read-only, every denied file unreadable, every open directory writable"
	check "$who: ... host side: the writable root was written" \
		test -e "$W/root-written"
	check "$who: ... host side: nothing appeared in a hole" \
		sh -c "! ls $W/h*/new 2>/dev/null | grep -q ."
	is "$(ls "$W"/h*/open/new 2>/dev/null | wc -l)" $(((N + 4) / 5)) \
		"$who: ... host side: every open directory was written"
done
done_testing
