#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/exec_hints.sh - what vbox-exec says in the first hour, against
# the real bubblewrap, as root and as an ordinary uid: one stderr line on
# --timeout, -e NAME passing the host's value through, a missing "#!"
# interpreter (127, as a shell says it), a nested vbox-exec, and a rules
# file given where the plan goes.

. "${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher

# The ordinary uid: nobody, when setpriv exists and bubblewrap works
# for it (unprivileged user namespaces).
NOBODY=65534
chmod 0755 "$workdir"
W=$workdir/w
mkdir -p "$W/rw"
chown -R "$NOBODY:$NOBODY" "$W" 2>/dev/null || :
cd "$workdir"

# has FILE FIXED-STRING DESC
has() {
	if grep -qF -- "$2" "$1"; then
		ok "$3"
	else
		not_ok "$3"
		sed 's/^/#   /' "$1" | head -n 20
	fi
}

# status WANT DESC - the last run's exit status
status() {
	if [ "$rc" -eq "$1" ]; then
		ok "$2"
	else
		not_ok "$2 (exit status $rc, want $1)"
		sed 's/^/#   err: /' "$workdir/err" | head -n 20
	fi
}

cat >"$W/hints.rules" <<EOF
@default write deny
rw: $W/rw
EOF
"$VBOXC" compile --target=linux --emit=plan -o "$W/hints.plan" \
	"$W/hints.rules"
printf '#!/usr/bin/nope-vbox-test\necho ran\n' >"$W/rw/bad.sh"
chmod 0755 "$W/rw/bad.sh"
chmod 0644 "$W/hints.rules" "$W/hints.plan"

users="root"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 &&
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
		"$BWRAP" --unshare-user --ro-bind / / /bin/true 2>/dev/null; then
	users="root nobody"
else
	echo "# ordinary uid not tested: needs root, setpriv and unprivileged user namespaces"
fi

# as USER CMD... - run CMD as USER (root: as is)
as() {
	_u=$1
	shift
	if [ "$_u" = root ]; then
		"$@"
	else
		setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"
	fi
}

for u in $users; do
	# --timeout: exit 124 and one line saying so.
	run as "$u" "$VBOX_EXEC" --timeout=0.3 "$W/hints.plan" -- sleep 10
	status 124 "$u: --timeout exits 124"
	has "$workdir/err" "vbox-exec: timed out after 0.3 s (--timeout): the command's whole process tree was ended" \
		"$u: --timeout says so on stderr"

	# -e NAME: the host's value, even for a scrubbed name.
	run as "$u" env VBOX_T_SECRET_TOKEN=tok VBOX_T_FOO=bar \
		"$VBOX_EXEC" -e VBOX_T_SECRET_TOKEN -e VBOX_T_UNSET \
		"$W/hints.plan" -- sh -c \
		'printf "%s|%s|%s" "$VBOX_T_SECRET_TOKEN" "$VBOX_T_FOO" "${VBOX_T_UNSET-unset}"'
	status 0 "$u: -e NAME runs"
	is "$(cat "$workdir/out")" "tok|bar|unset" \
		"$u: -e NAME passes the host value; an unset NAME stays unset"
	run as "$u" env VBOX_T_FOO=bar "$VBOX_EXEC" --replace-env \
		-e VBOX_T_FOO "$W/hints.plan" -- /usr/bin/env
	is "$(cat "$workdir/out")" "VBOX_T_FOO=bar" \
		"$u: --replace-env -e NAME: exactly that variable"

	# A script whose interpreter is missing: 127, as a shell says it.
	run as "$u" "$VBOX_EXEC" "$W/hints.plan" -- "$W/rw/bad.sh"
	status 127 "$u: a missing #! interpreter exits 127"
	has "$workdir/err" "bad.sh: bad interpreter: /usr/bin/nope-vbox-test: No such file" \
		"$u: a missing #! interpreter is named"
	run as "$u" "$VBOX_EXEC" "$W/hints.plan" -- /nonexistent-vbox-cmd
	status 127 "$u: a missing command still exits 127"
	has "$workdir/err" "/nonexistent-vbox-cmd: not found" \
		"$u: a missing command is still 'not found'"

	# vbox-exec inside vbox-exec.
	run as "$u" "$VBOX_EXEC" "$W/hints.plan" -- \
		"$VBOX_EXEC" "$W/hints.plan" -- true
	status 125 "$u: a nested vbox-exec exits 125"
	has "$workdir/err" "already inside a vbox sandbox: nested sandboxes are not allowed" \
		"$u: a nested vbox-exec says why"

	# The rules file where the plan goes.
	run as "$u" "$VBOX_EXEC" "$W/hints.rules" -- true
	status 125 "$u: a rules file as the plan exits 125"
	has "$workdir/err" "not a vbox plan (it looks like a rules file: make a plan with 'vboxc compile --emit=plan" \
		"$u: a rules file as the plan points at vboxc compile --emit=plan"
done

done_testing
