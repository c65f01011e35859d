#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_absent_ancestors.sh - many absent rows that share
# their ancestors (doc/launcher.md, "Placeholders"): the launcher looks at
# each host ancestor once per launch and reuses what it saw for every
# later row, so each row must still get what it would get alone.
# Judged from inside the sandbox and from the host, as the running uid
# and, under root, as uid 65534:
#
#   - 40 deny and ro rows below one missing directory of a writable root:
#     none of their paths can be created inside, the directory stays
#     absent on the host after the launch;
#   - rows below a regular file (an ancestor that is no directory): the
#     file is covered (unreadable inside), unchanged on the host;
#   - rows below a dangling symbolic link: the launch is refused naming
#     the link, the first row and a later one alike;
#   - rows whose missing ancestor lies under a read-only region: nothing
#     to cover, nothing created.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
set_users
chmod 755 "$workdir"

round() { # LABEL RUNAS...
	label=$1
	shift
	uid=$("$@" id -u)
	T=$workdir/t$uid
	rm -rf "$T"
	mkdir -p "$T/rw" "$T/ro/sub"
	echo content >"$T/rw/file"
	ln -s "$T/nowhere" "$T/rw/dangling"
	chmod -R a+rX "$T"
	chmod 1777 "$T/rw"
	{
		printf '@default write deny\n[fs]\nrw: %s/rw\n' "$T"
		i=0
		while [ $i -lt 20 ]; do
			printf '!deny: %s/rw/gone/d%s/secret\n' "$T" $i
			printf '!ro: %s/rw/gone/r%s\n' "$T" $i
			printf '!deny: %s/rw/file/x%s\n' "$T" $i
			printf '!deny: %s/ro/sub/missing/m%s\n' "$T" $i
			i=$((i + 1))
		done
	} >"$T/p.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$T/p.plan" \
		"$T/p.rules" 2>"$T/compile.err"
	chmod 644 "$T/p.plan"
	run "$@" env -u XDG_RUNTIME_DIR "$VBOX_EXEC" "$T/p.plan" -- sh -c '
		T=$1
		i=0
		while [ $i -lt 20 ]; do
			mkdir -p "$T/rw/gone/d$i/secret" 2>/dev/null &&
				echo "BREACH d$i"
			mkdir -p "$T/rw/gone/r$i" 2>/dev/null &&
				echo "BREACH r$i"
			i=$((i + 1))
		done
		mkdir "$T/rw/gone/new" 2>/dev/null && echo "BREACH gone"
		cat "$T/rw/file" 2>/dev/null && echo "BREACH file read"
		mkdir -p "$T/ro/sub/missing" 2>/dev/null && echo "BREACH ro"
		echo done' sh "$T"
	is "$rc" 0 "$label: 80 rows on shared absent ancestors launch"
	is "$(cat "$workdir/out")" done \
		"$label: inside, no row's path can be made, the file is covered"
	check "$label: on the host, the missing directory is still absent" \
		test ! -e "$T/rw/gone"
	is "$(cat "$T/rw/file")" content \
		"$label: on the host, the covered file is unchanged"
	check "$label: nothing was made below the read-only region" \
		test ! -e "$T/ro/sub/missing"

	# The same rows below a dangling link: refused, first and later.
	for n in 1 7; do
		{
			printf '@default write deny\n[fs]\nrw: %s/rw\n' "$T"
			i=0
			while [ $i -lt $n ]; do
				printf '!deny: %s/rw/gone/d%s/secret\n' "$T" $i
				i=$((i + 1))
			done
			printf '!deny: %s/rw/dangling/x\n' "$T"
			printf '!deny: %s/rw/dangling/y\n' "$T"
		} >"$T/l.rules"
		"$VBOXC" compile --target=linux --emit=plan -o "$T/l.plan" \
			"$T/l.rules" 2>"$T/compile.err"
		chmod 644 "$T/l.plan"
		run "$@" env -u XDG_RUNTIME_DIR "$VBOX_EXEC" "$T/l.plan" -- \
			true
		check "$label: a dangling link below $n other rows refuses the launch" \
			test "$rc" -ne 0
		check "$label: ... naming the link" \
			grep -q "'$T/rw/dangling' is a dangling symbolic link" \
			"$workdir/err"
	done
}

each_user round
done_testing
