#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_walls_landlock.sh - Landlock is a second wall under the
# mounts: the walls prepared for the real list (writable: $T/rw only) are
# applied by vbox-init under a hand-built bubblewrap list that binds the
# whole machine writable (no read-only mount at all).  A write
# outside $T/rw, and a write to a sysctl (its own value), must still be
# refused; a write inside must work.  Checked on the host side.  As the
# running uid and, under root, as uid 65534.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
: "${VBOXC:=${top_builddir:-.}/vboxc}"
require_launcher
require_walls_blob

chmod 755 "$workdir"
T=$workdir/t
mkdir -p "$T/rw" "$T/outside"
chmod 755 "$T"
chmod 1777 "$T/rw" "$T/outside"
real="--ro-bind / / --dev /dev --proc /proc --bind $T/rw $T/rw"
abi=$(timeout 60 "$BLOB" $real -- true 2>&1 >/dev/null |
	sed -n 's/^landlock //p')
[ "${abi:-0}" -gt 0 ] || skip_all "this kernel has no Landlock"
[ "$abi" -ge 6 ] || skip_all "landlock ABI $abi < 6: the helper cannot run without a socket supervisor"
lease=$(cat /proc/sys/fs/lease-break-time)

run_as() { # WHO RUNAS...
	who=$1
	shift
	rm -f "$T/outside/x" "$T/rw/x"
	# The mounts allow everything: the whole machine writable.
	"$@" timeout 60 "$BLOB" $real -- "$BWRAP" --unshare-user --unshare-pid \
		--cap-drop ALL --bind / / --dev /dev --proc /proc -- \
		"$INIT" --channel=3 -- sh -c '
		echo in >"$1/rw/x" && echo "inside ok"
		echo out >"$1/outside/x" 2>/dev/null && echo "outside WRITTEN"
		v=$(cat /proc/sys/fs/lease-break-time)
		(echo "$v" >/proc/sys/fs/lease-break-time) 2>/dev/null &&
			echo "sysctl WRITTEN"
		grep -q "^Seccomp:.*2" /proc/self/status && echo "seccomp on"
		true' sh "$T" >"$workdir/out" 2>"$workdir/err"
	check "$who: landlock ABI $abi: a write inside the writable region works" \
		grep -qx "inside ok" "$workdir/out"
	check "$who: landlock: a write the mounts allow outside it is refused" \
		sh -c '! grep -q "outside WRITTEN" "$1"' sh "$workdir/out"
	check "$who: landlock: the sysctl write the mounts allow is refused" \
		sh -c '! grep -q "sysctl WRITTEN" "$1"' sh "$workdir/out"
	check "$who: host side: nothing written outside" \
		test ! -e "$T/outside/x"
	check "$who: host side: the inside file is there" test -e "$T/rw/x"
	is "$(cat /proc/sys/fs/lease-break-time)" "$lease" \
		"$who: host side: fs.lease-break-time unchanged"
	check "$who: the init loaded seccomp too" \
		grep -qx "seccomp on" "$workdir/out"
}

# Control: the same hand-built list without the walls lets the write
# through, so the checks below can fail.
timeout 60 "$BWRAP" --unshare-user --unshare-pid --cap-drop ALL --bind / / \
	--dev /dev --proc /proc -- "$INIT" -- sh -c \
	'echo out >"$1/outside/x" && echo "outside WRITTEN"' sh "$T" \
	>"$workdir/out" 2>&1 || :
check "control: without the walls the hand-built list allows the write" \
	grep -qx "outside WRITTEN" "$workdir/out"

run_as "uid $(id -u)" env
if [ "$(id -u)" -eq 0 ] && nobody_can_run; then
	run_as "uid 65534" setpriv --reuid=65534 --regid=65534 --clear-groups
elif [ "$(id -u)" -eq 0 ]; then
	echo "# $nobody_why: the runs as uid 65534 are skipped"
fi
done_testing
