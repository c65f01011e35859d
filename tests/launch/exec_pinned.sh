#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_pinned.sh - granted host paths are pinned (doc/launcher.md,
# "Pinned paths"): a granted or denied path that is a relative or
# absolute symbolic link, or runs through one, is mounted at the link's
# target only when the table gives the target the same effect (the
# `explain --follow` view); otherwise the launch is refused (125) naming
# the row, the link, the resolved path and what the table gives it, and
# nothing reaches the target; dangling links and loops are refused; a
# link among the mounts the sandbox's init makes is caught the same
# way; a path swapped between
# a directory and a symbolic link in a loop while vbox-exec starts either
# runs on the directory or refuses, never writes through the link.
# Checked on the host side, as the running uid and, under root, as
# uid 65534.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

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

# compile NAME LINE... - T/NAME.plan from the rule lines
compile() {
	n=$1
	shift
	printf '%s\n' "$@" >"$T/$n.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$T/$n.plan" \
		"$T/$n.rules" 2>/dev/null
	chmod 644 "$T/$n.plan"
}

round() { # WHO RUNAS...
	who=$1
	shift
	uid=$("$@" id -u)
	T=$workdir/t$uid
	mkdir -p "$T/srv/work/sub" "$T/target/inner" "$T/real/dir" \
		"$T/secret" "$T/many"
	echo key >"$T/secret/key"
	# The issue's case: a relative link planted by an earlier run.
	ln -s ../../../target "$T/srv/work/sub/out"
	ln -s "$T/target" "$T/srv/work/abs"
	ln -s "$T/target" "$T/srv/work/via"
	ln -s "$T/secret" "$T/srv/work/dlink"
	ln -s "$T/nowhere" "$T/srv/work/dangling"
	ln -s "$T/srv/work/loop2" "$T/srv/work/loop1"
	ln -s "$T/srv/work/loop1" "$T/srv/work/loop2"
	i=1
	while [ $i -le 20 ]; do
		mkdir -p "$T/many/d$i"
		i=$((i + 1))
	done
	ln -s "$T/target" "$T/many/lk"
	chmod -R a+rwX "$T"
	chmod 700 "$T/secret"
	[ "$uid" -eq 0 ] || chown -R "$uid" "$T/secret"

	compile rel '@default write deny' '[fs]' "rw: $T/srv/work/sub/out"
	compile abs '@default write deny' '[fs]' "rw: $T/srv/work/abs"
	compile via '@default write deny' '[fs]' "rw: $T/srv/work/via/inner"
	compile real '@default write deny' '[fs]' "rw: $T/real/dir"
	compile relok '@default write deny' '[fs]' "rw: $T/srv/work/sub/out" \
		"rw: $T/target"
	compile viaok '@default write deny' '[fs]' \
		"rw: $T/srv/work/via/inner" "rw: $T/target/inner"
	compile hole '@default write deny' '[fs]' "rw: $T/srv/work/abs" \
		"rw: $T/target" "!ro: $T/target/inner"
	compile rook '[fs]' "ro: $T/srv/work/abs" "ro: $T/target"
	compile rono '@default write rw' '[fs]' "ro: $T/srv/work/abs"
	compile denyok '[fs]' "rw: $T/real" "!deny: $T/srv/work/dlink" \
		"deny: $T/secret"
	compile denyno '[fs]' "rw: $T/real" "!deny: $T/srv/work/dlink"
	compile dangling '@default write deny' '[fs]' \
		"rw: $T/srv/work/dangling"
	compile loop '@default write deny' '[fs]' "rw: $T/srv/work/loop1"
	{
		echo '@default write deny'
		echo "rw: $T/many"
		i=1
		while [ $i -le 20 ]; do
			echo "!ro: $T/many/d$i"
			i=$((i + 1))
		done
		echo "!ro: $T/many/lk/inner"
	} >"$T/many.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$T/many.plan" \
		"$T/many.rules" 2>/dev/null
	chmod 644 "$T/many.plan"

	# Refused: the table does not give the link's target the effect.
	run "$@" "$VBOX_EXEC" "$T/rel.plan" -- sh -c \
		"echo x >'$T/srv/work/sub/out/f'"
	is "$rc" 125 "$who: a granted relative symbolic link to an ungranted target refuses the launch"
	has err "row 0 'rw:$T/srv/work/sub/out'" "... naming the row"
	has err "is a symbolic link (to '../../../target')" "... and the link"
	has err "would land on '$T/target' and give rw to it and everything below, but the table gives it ro (no row matches there: the default decides)" \
		"... the resolved path and what the table gives it"
	run "$@" "$VBOX_EXEC" "$T/abs.plan" -- sh -c \
		"echo x >'$T/srv/work/abs/f'"
	is "$rc" 125 "$who: a granted absolute symbolic link to an ungranted target refuses the launch"
	run "$@" "$VBOX_EXEC" "$T/via.plan" -- sh -c \
		"echo x >'$T/srv/work/via/inner/f'"
	is "$rc" 125 "$who: a granted path through a symbolic link refuses the launch"
	has err "'$T/srv/work/via' on the host is a symbolic link" \
		"... naming the link component"
	run "$@" "$VBOX_EXEC" "$T/hole.plan" -- sh -c \
		"echo x >'$T/srv/work/abs/inner/f'"
	is "$rc" 125 "$who: a link to a target with a read-only hole refuses the launch"
	has err "but the table gives part of it ro (" "... naming the hole"
	run "$@" "$VBOX_EXEC" "$T/rono.plan" -- true
	is "$rc" 125 "$who: a read-only row on a link to a target the default leaves writable refuses"
	run "$@" "$VBOX_EXEC" "$T/many.plan" -- sh -c \
		"echo x >'$T/target/f'"
	is "$rc" 125 "$who: a link among 21 holes (the sandbox's init mounts them) refuses the launch"
	has err "'$T/many/lk' on the host is a symbolic link" \
		"... naming the link"
	run "$@" "$VBOX_EXEC" "$T/dangling.plan" -- true
	is "$rc" 125 "$who: a dangling symbolic link refuses the launch"
	has err "does not resolve: No such file or directory" "... saying why"
	run "$@" "$VBOX_EXEC" "$T/loop.plan" -- true
	is "$rc" 125 "$who: a loop of symbolic links refuses the launch"
	# the C library's words for ELOOP: glibc's, or musl's (vbox-exec
	# built with musl-gcc)
	if grep -qF "does not resolve: Symbolic link loop" "$workdir/err"; then
		has err "does not resolve: Symbolic link loop" "... saying why"
	else
		has err "does not resolve: Too many levels of symbolic links" \
			"... saying why"
	fi
	run "$@" "$VBOX_EXEC" "$T/denyno.plan" -- cat "$T/srv/work/dlink/key"
	is "$rc" 125 "$who: a denied symbolic link to a readable target refuses the launch"
	has err "would land on '$T/secret' and give deny to it" \
		"... in vbox's words, naming the resolved path"
	is "$(ls -A "$T/target" | tr '\n' ' ')" "inner " \
		"$who: host side: nothing was written to the links' target"

	# Followed: the table gives the target the same effect.
	run "$@" "$VBOX_EXEC" --log "$T/relok.plan" -- sh -c \
		"echo x >'$T/srv/work/sub/out/ok1'"
	is "$rc:$(cat "$T/target/ok1" 2>/dev/null)" "0:x" \
		"$who: a relative link to a granted target is followed (host side)"
	has err "followed: " "... and --log says so"
	run "$@" "$VBOX_EXEC" "$T/viaok.plan" -- sh -c \
		"echo y >'$T/srv/work/via/inner/g' && ! echo z >'$T/target/h'"
	is "$rc:$(cat "$T/target/inner/g" 2>/dev/null):$(ls "$T/target" | grep -c '^h$')" \
		"0:y:0" "$who: a path through a link to a granted target: only the granted part is writable"
	run "$@" "$VBOX_EXEC" "$T/rook.plan" -- sh -c \
		"ls '$T/srv/work/abs/' >/dev/null && ! echo z >'$T/srv/work/abs/ro'"
	is "$rc:$(ls "$T/target" | grep -c '^ro$')" "0:0" \
		"$who: a read-only link to a read-only target is followed and stays read-only"
	run "$@" "$VBOX_EXEC" "$T/denyok.plan" -- sh -c \
		"! cat '$T/srv/work/dlink/key' 2>/dev/null && ! cat '$T/secret/key' 2>/dev/null"
	is "$rc" 0 "$who: a denied link to a denied target: neither name reads the file"
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

	# A followed link flipped between a granted and an ungranted target
	# while vbox-exec starts: the mount is made at the target checked,
	# never at the other one.
	mkdir -p "$T/flip/granted" "$T/flip/other"
	chmod 777 "$T/flip" "$T/flip/granted" "$T/flip/other"
	ln -s granted "$T/flip/l"
	compile flip '@default write deny' '[fs]' "rw: $T/flip/l" \
		"rw: $T/flip/granted"
	rm -f "$T/race.stop"
	(
		while [ ! -e "$T/race.stop" ]; do
			ln -sfn other "$T/flip/l"
			ln -sfn granted "$T/flip/l"
		done
	) &
	swapper=$!
	ok_runs=0
	i=0
	while [ $i -lt 40 ]; do
		"$@" "$VBOX_EXEC" "$T/flip.plan" -- sh -c \
			"echo x >'$T/flip/l/f$i' 2>/dev/null" \
			>/dev/null 2>&1 && ok_runs=$((ok_runs + 1))
		i=$((i + 1))
	done
	: >"$T/race.stop"
	wait "$swapper" 2>/dev/null || :
	is "$(ls -A "$T/flip/other" | wc -l | tr -d ' ')" 0 \
		"$who: flip race: nothing was written to the ungranted target ($ok_runs of 40 wrote to the granted one)"
}

round "uid $(id -u)" env
if [ "$(id -u)" -eq 0 ] && nobody_can_run; then
	round "uid 65534" setpriv --reuid=65534 --regid=65534 --clear-groups
elif [ "$(id -u)" -eq 0 ]; then
	echo "# $nobody_why: the runs as uid 65534 are skipped"
fi
done_testing
