#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/exec_pinned.sh - granted host paths are pinned (doc/launcher.md,
# "Pinned paths"): a granted path that is a relative or absolute symbolic
# link, or runs through one, refuses the launch (125) naming the row and
# the link, and nothing reaches the link's target; a path swapped between
# a directory and a symbolic link in a loop while vbox-exec starts either
# runs on the directory or refuses, never writes through the link.
# Checked on the host side, as the running uid and, under root, as
# uid 65534.

. "${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
chmod 755 "$workdir"
cd "$workdir"

# has FILE TEXT DESC - FILE (out or err of the last run) holds TEXT
has() {
	if grep -qF -- "$2" "$workdir/$1"; then
		ok "$3"
	else
		not_ok "$3"
		sed 's/^/#   /' "$workdir/$1" | head -n 20
	fi
}

round() { # WHO RUNAS...
	who=$1
	shift
	uid=$("$@" id -u)
	T=$workdir/t$uid
	mkdir -p "$T/srv/work/sub" "$T/target" "$T/real/dir"
	chmod -R a+rwX "$T"
	# The issue's case: a relative link planted by an earlier run.
	ln -s ../../target "$T/srv/work/sub/out"
	ln -s "$T/target" "$T/srv/work/abs"
	ln -s "$T/target" "$T/srv/work/via"
	printf '@default write deny\n[fs]\nrw: %s\n' \
		"$T/srv/work/sub/out" >"$T/rel.rules"
	printf '@default write deny\n[fs]\nrw: %s\n' \
		"$T/srv/work/abs" >"$T/abs.rules"
	printf '@default write deny\n[fs]\nrw: %s\n' \
		"$T/srv/work/via/inner" >"$T/via.rules"
	mkdir -p "$T/target/inner"
	chmod 777 "$T/target/inner"
	printf '@default write deny\n[fs]\nrw: %s\n' "$T/real/dir" \
		>"$T/real.rules"
	for n in rel abs via real; do
		"$VBOXC" compile --target=linux --emit=plan -o "$T/$n.plan" \
			"$T/$n.rules"
		chmod 644 "$T/$n.plan"
	done

	run "$@" "$VBOX_EXEC" "$T/rel.plan" -- sh -c \
		"echo x >'$T/srv/work/sub/out/f'"
	is "$rc" 125 "$who: a granted relative symbolic link refuses the launch"
	has err "row 0 'rw:$T/srv/work/sub/out'" "... naming the row"
	has err "is a symbolic link (to '../../target')" "... and the link"
	run "$@" "$VBOX_EXEC" "$T/abs.plan" -- sh -c \
		"echo x >'$T/srv/work/abs/f'"
	is "$rc" 125 "$who: a granted absolute symbolic link refuses the launch"
	run "$@" "$VBOX_EXEC" "$T/via.plan" -- sh -c \
		"echo x >'$T/srv/work/via/inner/f'"
	is "$rc" 125 "$who: a granted path through a symbolic link refuses the launch"
	has err "'$T/srv/work/via' on the host is a symbolic link" \
		"... naming the link component"
	is "$(ls -A "$T/target" | tr '\n' ' ')" "inner " \
		"$who: host side: nothing was written to the links' target"
	run "$@" "$VBOX_EXEC" "$T/real.plan" -- sh -c \
		"echo x >'$T/real/dir/f'"
	is "$rc:$(cat "$T/real/dir/f" 2>/dev/null)" "0:x" \
		"$who: a granted real directory works"

	# The race: 'dir' swapped between a directory and a link to target.
	printf '@default write deny\n[fs]\nrw: %s\n' "$T/race/dir" \
		>"$T/race.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$T/race.plan" \
		"$T/race.rules"
	chmod 644 "$T/race.plan"
	mkdir -p "$T/race/dir"
	chmod 777 "$T/race" "$T/race/dir"
	(
		while [ ! -e "$T/race.stop" ]; do
			rmdir "$T/race/dir" 2>/dev/null &&
				ln -s "$T/target" "$T/race/dir"
			rm -f "$T/race/dir" 2>/dev/null &&
				mkdir -m 777 "$T/race/dir"
		done
	) &
	swapper=$!
	ok_runs=0
	refused=0
	other=0
	i=0
	while [ $i -lt 40 ]; do
		rc=0
		"$@" "$VBOX_EXEC" "$T/race.plan" -- sh -c \
			"echo x >'$T/race/dir/f$i' 2>/dev/null" \
			>/dev/null 2>&1 || rc=$?
		case $rc in
		0) ok_runs=$((ok_runs + 1)) ;;
		125) refused=$((refused + 1)) ;;
		*) other=$((other + 1)) ;;
		esac
		i=$((i + 1))
	done
	: >"$T/race.stop"
	wait "$swapper" 2>/dev/null || :
	is "$(ls "$T/target" | grep -c '^f' || :)" 0 \
		"$who: swap race: nothing was written through the link ($ok_runs ran, $refused refused, $other other)"
}

round "uid $(id -u)" env
if [ "$(id -u)" -eq 0 ]; then
	round "uid 65534" setpriv --reuid=65534 --regid=65534 --clear-groups
fi
done_testing
