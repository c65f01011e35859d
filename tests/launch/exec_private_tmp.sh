#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_private_tmp.sh - "@default tmp private" under vbox-exec, as
# root and as uid 65534: the sandbox's /tmp is empty, writable under
# "@default write deny", shows nothing of the host's /tmp and leaves
# nothing in it, and is gone after the run; without the setting /tmp is
# the host's and read-only.  Judged from the host side.
. "${srcdir:-$(dirname "$0")/../..}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
set_users
chmod 755 "$workdir"
# The project must lie outside /tmp: a row naming the host's /tmp is an
# error under "@default tmp private".
base=$(mktemp -d /var/tmp/vbox-test-ptmp.XXXXXX)
chmod 755 "$base"

# A file of the host's /tmp the sandbox must not see, and a name the
# sandbox writes that must not reach the host's /tmp.
marker=$(mktemp /tmp/vbox-private-tmp-host.XXXXXX)
inside=vbox-private-tmp-inside.$$
trap 'rm -rf "$workdir" "$base" "$marker" "/tmp/$inside"' EXIT
echo host-secret >"$marker"
chmod 644 "$marker"

one_user() {
	lbl=$1
	shift
	who=$(echo "$lbl" | tr ' ' _)
	d=$base/$who
	mkdir -p "$d/proj"
	printf '@default write deny\n@default net deny\n@default tmp private\nrw:%s/proj/**\n' \
		"$d" >"$d/private.rules"
	printf '@default write deny\n@default net deny\nrw:%s/proj/**\n' \
		"$d" >"$d/host.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$d/private.plan" \
		"$d/private.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$d/host.plan" \
		"$d/host.rules"
	[ "$lbl" = "uid 0" ] || chown -R 65534:65534 "$d"

	run "$@" timeout 60 "$VBOX_EXEC" --log -C "$d/proj" "$d/private.plan" -- \
		sh -c 'echo one >/tmp/'"$inside"' && cat /tmp/'"$inside"' &&
		       f=$(mktemp) && echo two >"$f" && cat "$f" &&
		       ls -A /tmp | wc -l && cat '"$marker"
	check "$lbl: /tmp is writable under @default write deny" \
		grep -qx one "$workdir/out"
	check "$lbl: ... mktemp works there" grep -qx two "$workdir/out"
	check "$lbl: ... the host's /tmp file is not there" test "$rc" -ne 0
	check "$lbl: ... nor is its content" \
		sh -c '! grep -q host-secret "$1"' sh "$workdir/out"
	check "$lbl: what the sandbox wrote is not in the host's /tmp" \
		test ! -e "/tmp/$inside"
	dir=$(sed -n "s|.*private /tmp: '\\([^']*\\)'.*|\\1|p" "$workdir/err")
	check "$lbl: --log names the private directory" test -n "$dir"
	check "$lbl: ... which is gone after the run" test ! -e "${dir:-/nonexistent-dir}"
	is "$(cat "$marker")" host-secret "$lbl: the host's /tmp file is intact"

	run "$@" timeout 60 "$VBOX_EXEC" -C "$d/proj" "$d/host.plan" -- \
		sh -c 'echo x >/tmp/'"$inside"
	check "$lbl: without the setting /tmp is the host's, read-only" \
		test "$rc" -ne 0 -a ! -e "/tmp/$inside"

	run "$@" timeout 60 "$VBOX_EXEC" --dry-run "$d/private.plan" -- true
	check "$lbl: --dry-run shows the bind of the directory made at launch" \
		grep -q -- "--bind /dev/shm/vbox-tmp.XXXXXX /tmp" "$workdir/out"
}

each_user one_user

done_testing
