#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_closed_clone.sh - the suite runs from any clone
# (issue 34): launch suites that run as root and as uid 65534, run from a
# copy of this tree whose directory is mode 0700 (as a clone under
# Debian's /root is), pass: each case uid 65534 could not reach is
# skipped with the reason printed, none fails for the clone's location.
#
# The copy is a copy-on-write view at the same path (an overlay in a
# private mount namespace, its top directory made 0700 there): the
# build's vbox-exec knows its init and proxy by their build-tree paths,
# so the tree must keep its path; nothing outside the namespace changes.
# VBOX_CLOSED_SUITES chooses the suites (default: exec_examples.sh,
# exec_hints.sh, exec_placeholders.sh, exec_basic.sh).
. "${srcdir:-$(dirname "$0")/../..}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
[ "$(id -u)" = 0 ] || skip_all "needs root (uid 65534 runs, a mount namespace)"
command -v setpriv >/dev/null 2>&1 || skip_all "setpriv missing"
command -v unshare >/dev/null 2>&1 || skip_all "unshare missing"
require_launcher

src=$(cd "$top_srcdir" && pwd)
bld=$(cd "${top_builddir:-.}" && pwd)
# The directory to close: the source tree when the build lies in it,
# else the build tree (and the source tree too).
case $bld/ in
"$src"/*) close=$src ;;
*) close="$src $bld" ;;
esac
nobody_can_run ||
	skip_all "uid 65534 cannot use this build already ($nobody_why)"

suites=${VBOX_CLOSED_SUITES:-exec_examples.sh exec_hints.sh exec_placeholders.sh exec_basic.sh}
chmod 755 "$workdir"

# closed CMD... - run CMD in a private mount namespace where each of
# $close is an overlay of itself with mode 0700 at its top.
cat >"$workdir/closed.sh" <<'EOF'
set -eu
ovl=$1
shift
n=0
for d in $CLOSE; do
	n=$((n + 1))
	mkdir -p "$ovl/u$n" "$ovl/w$n"
	mount -t overlay overlay \
		-o "lowerdir=$d,upperdir=$ovl/u$n,workdir=$ovl/w$n" "$d"
	chmod 700 "$d"
done
exec "$@"
EOF

# Can it be done here at all (overlayfs, mount namespaces)?
mkdir -p "$workdir/probe"
if ! CLOSE="$close" unshare -m --propagation private sh "$workdir/closed.sh" \
	"$workdir/probe" sh -c \
	'! setpriv --reuid=65534 --regid=65534 --clear-groups -- head -c 1 "$1" >/dev/null 2>&1' \
	sh "$VBOX_EXEC" >"$workdir/out" 2>"$workdir/err"; then
	skip_all "cannot make the closed view (overlayfs in a mount namespace): $(head -n 1 "$workdir/err")"
fi
ok "in the closed view uid 65534 cannot read the build's vbox-exec"

for s in $suites; do
	mkdir -p "$workdir/ovl-$s"
	rc=0
	CLOSE="$close" unshare -m --propagation private sh "$workdir/closed.sh" \
		"$workdir/ovl-$s" sh "$src/tests/launch/$s" >"$workdir/$s.out" \
		2>"$workdir/$s.err" || rc=$?
	echo "# $s: $(grep -c '^ok' "$workdir/$s.out" || :) cases passed"
	is "$rc" 0 "$s from a closed clone: exit status 0"
	n=$(grep -c '^not ok' "$workdir/$s.out" || :)
	is "$n" 0 "$s from a closed clone: no case fails"
	[ "$n" -eq 0 ] && [ "$rc" -eq 0 ] ||
		grep '^not ok' "$workdir/$s.out" | head -n 10 | sed 's/^/#   /'
	check "$s from a closed clone: the skipped uid 65534 runs say why" \
		grep -q 'uid 65534 cannot read .*closed to other users' \
		"$workdir/$s.out"
	check "$s from a closed clone: the cases as root ran" \
		grep -q '^ok ' "$workdir/$s.out"
done

done_testing
