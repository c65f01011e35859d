#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_pin_mountpoint.sh - a pinned path (doc/launcher.md, "Pinned
# paths") holds only where its bind landed.  A path component swapped
# for a link while the mount is made, and swapped back before the check,
# carries the bind elsewhere and leaves the granted path the unmounted
# original, whose device and inode still match.  vbox-init is handed the
# walls of a list that pins $T/rw under hand-built bubblewrap lists:
# with the bind at $T/rw the command runs; with no bind there (where a
# swap would leave it) the init refuses (125) before the command runs;
# with a link in the path it refuses too.  As the running uid and, under
# root, as uid 65534.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
: "${VBOXC:=${top_builddir:-.}/vboxc}"
require_launcher
require_walls_blob

chmod 755 "$workdir"
T=$workdir/t
mkdir -p "$T/rw" "$T/rw2" "$T/elsewhere" "$T/sub/x"
ln -s rw "$T/link"
chmod 755 "$T"
chmod 755 "$T/sub"
chmod 1777 "$T/rw" "$T/rw2" "$T/elsewhere" "$T/sub/x"
walls="--ro-bind / / --dev /dev --proc /proc --bind $T/rw $T/rw"
abi=$(timeout 60 "$BLOB" $walls -- true 2>&1 >/dev/null |
	sed -n 's/^landlock //p')
[ "${abi:-0}" -ge 6 ] ||
	skip_all "landlock ABI ${abi:-0} < 6: the helper cannot run without a socket supervisor"

# attempt WHO LABEL PINS MOUNT... - the walls pin each of PINS (paths
# separated by spaces, checked in that order); bubblewrap makes
# MOUNT...; the command says "ran".
attempt() {
	_who=$1 _label=$2 _pins=
	for _p in $3; do
		_pins="$_pins --pin $_p"
	done
	shift 3
	rc=0
	# shellcheck disable=SC2086 # $_pins: words
	as_user "$_who" timeout 60 "$BLOB" $walls $_pins -- "$BWRAP" \
		--unshare-user --unshare-pid --cap-drop ALL --ro-bind / / \
		--dev /dev --proc /proc "$@" -- "$INIT" --channel=3 -- \
		sh -c 'echo ran' >"$workdir/out" 2>"$workdir/err" || rc=$?
}

set_users
for who in $users; do
	attempt "$who" bound "$T/rw" --bind "$T/rw" "$T/rw"
	is "$rc" 0 "$who: the bind at the pinned path: the command runs"
	check "$who: ... and said so" grep -qx ran "$workdir/out"

	# The bind went elsewhere; the pinned path is the unmounted original.
	attempt "$who" elsewhere "$T/rw" --bind "$T/elsewhere" "$T/elsewhere"
	is "$rc" 125 "$who: no bind at the pinned path: refused (125)"
	check "$who: ... before the command ran" \
		sh -c '! grep -q ran "$1"' sh "$workdir/out"
	check "$who: ... naming the path" \
		grep -q "granted path '$T/rw' is not the one checked" \
		"$workdir/err"

	# A link on the way: the mount point is reached through it.
	attempt "$who" link "$T/link" --bind "$T/rw" "$T/rw"
	is "$rc" 125 "$who: a link in the pinned path: refused (125)"

	# Pins in one directory share the walk to it (walls_apply.c):
	# each is still checked on its own.
	attempt "$who" siblings "$T/rw $T/rw2" \
		--bind "$T/rw" "$T/rw" --bind "$T/rw2" "$T/rw2"
	is "$rc" 0 "$who: two pins in one directory, both bound: runs"
	attempt "$who" sibling-unbound "$T/rw $T/rw2" --bind "$T/rw" "$T/rw"
	is "$rc" 125 "$who: the second of two siblings not bound: refused"
	check "$who: ... naming it" \
		grep -q "granted path '$T/rw2' is not the one checked" \
		"$workdir/err"
	attempt "$who" sibling-first "$T/rw2 $T/rw" --bind "$T/rw" "$T/rw"
	is "$rc" 125 "$who: the first of two siblings not bound: refused"
	check "$who: ... naming it" \
		grep -q "granted path '$T/rw2' is not the one checked" \
		"$workdir/err"
	# Another directory between two siblings: its own parent, then
	# the first one's again.
	attempt "$who" between "$T/rw $T/sub/x $T/rw2" --bind "$T/rw" "$T/rw" \
		--bind "$T/sub/x" "$T/sub/x"
	is "$rc" 125 "$who: a sibling after another directory, unbound: refused"
	check "$who: ... naming it" \
		grep -q "granted path '$T/rw2' is not the one checked" \
		"$workdir/err"
	attempt "$who" between-bound "$T/rw $T/sub/x $T/rw2" \
		--bind "$T/rw" "$T/rw" --bind "$T/sub/x" "$T/sub/x" \
		--bind "$T/rw2" "$T/rw2"
	is "$rc" 0 "$who: pins in two directories, all bound: runs"
	check "$who: ... and said so" grep -qx ran "$workdir/out"
done
done_testing
