#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_placeholder_kill.sh - a placeholder is registered before it
# is made (doc/launcher.md, "Placeholders"): vbox-exec killed with
# SIGKILL right after its mkdir() of a placeholder, or right before it
# (tests/launch/kill_at_mkdir.c, under ptrace, at that very call), leaves no
# directory the registry does not name (another launch's sweep may have
# removed it already), and the next launch removes it;
# nothing is left on the host.  Judged on the host side, as the running
# uid and, under root, as uid 65534.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
KILL=${top_builddir:-.}/tests/launch/kill_at_mkdir
[ -x "$KILL" ] || skip_all "no $KILL"
chmod 755 "$workdir"
set_users

# registry UID - where vbox-exec run as UID keeps the registry
registry() {
	if [ "$1" -eq 0 ]; then
		echo /run/vbox/placeholders
	else
		echo "/tmp/vbox-$1/placeholders"
	fi
}

# registered UID PATH - a lock file of UID's registry names PATH
registered() {
	grep -rqxF -- "$2" "$(registry "$1")" 2>/dev/null
}

round() { # WHO RUNAS...
	who=$1
	shift
	uid=$("$@" id -u)
	T=$workdir/t$uid
	mkdir -p "$T/rw"
	chmod 755 "$T"
	chmod 1777 "$T/rw"
	printf '@default write deny\n[fs]\nrw: %s/rw\n!deny: %s/rw/absent\n' \
		"$T" "$T" >"$T/p.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$T/p.plan" "$T/p.rules"
	chmod 644 "$T/p.plan"
	ph=$T/rw/absent

	for when in after before; do
		flag=
		[ "$when" = after ] || flag=-b
		run timeout 60 "$@" env -u XDG_RUNTIME_DIR "$KILL" $flag "$ph" \
			-- "$VBOX_EXEC" "$T/p.plan" -- true
		is "$rc" 0 "$who: vbox-exec killed $when its mkdir of the placeholder"
		if [ "$when" = after ]; then
			# (kill_at_mkdir kills "after" only when the mkdir
			# returned 0.)  Still there, or removed since by
			# another launch's sweep, as a parallel make check
			# runs other launches of the same uid.
			check "$who: ... the placeholder was made (and is there, or swept)" \
				eval "test -d '$ph' || ! registered $uid '$ph'"
		else
			check "$who: ... the placeholder was not made" \
				test ! -e "$ph"
		fi
		# Registered, or already removed by another launch's sweep
		# (the registry is the uid's, shared with every launch).
		check "$who: ... and is registered" eval \
			"registered $uid '$ph' || test ! -e '$ph'"
		run timeout 60 "$@" env -u XDG_RUNTIME_DIR "$VBOX_EXEC" \
			"$T/p.plan" -- sh -c 'mkdir "$1/x" 2>/dev/null &&
				echo BREACH; exit 0' sh "$ph"
		is "$rc/$(cat "$workdir/out")" 0/ \
			"$who: the next launch runs, its child cannot create the denied path"
		check "$who: ... and nothing is left on the host" \
			test ! -e "$ph"
		is "$(ls -A "$T/rw")" "" "$who: ... nothing in the writable root"
		check "$who: ... and the registry no longer names it" \
			eval "! registered $uid '$ph'"
	done
}

each_user round
done_testing
