#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_hints.sh - what vbox-exec says in the first hour, against
# the real bubblewrap, as root and as an ordinary uid: one stderr line on
# --timeout, -e NAME passing the host's value through, a missing "#!"
# interpreter (127, as a shell says it), a nested vbox-exec, and a rules
# file given where the plan goes.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

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
if [ "$(id -u)" -eq 0 ] && ! nobody_can_run; then
	echo "# $nobody_why: the runs as uid 65534 are skipped"
elif [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 &&
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

	# The scrub's names beyond the eleven words (SPEC 3.2): PASSPHRASE
	# and JWT anywhere, three whole names, a "_PAT" ending, any case;
	# names that only come near them are inherited.
	run as "$u" env -i PATH="$PATH" DB_PASSPHRASE=zz-s1 my_jwt=zz-s2 \
		JWT=zz-s3 DATABASE_URL=zz-s4 mysql_pwd=zz-s5 PGPASSWORD=zz-s6 \
		GITHUB_PAT=zz-s7 gitlab_pat=zz-s8 MY_PATH=k1 PATTERN=k2 \
		X_PAT_Y=k3 DATABASE=k4 MYSQL_PWD_FILE=k5 \
		"$VBOX_EXEC" "$W/hints.plan" -- /usr/bin/env
	status 0 "$u: env runs with secret-looking variables set"
	if grep -q zz-s "$workdir/out"; then
		not_ok "$u: *PASSPHRASE*, *JWT*, DATABASE_URL, MYSQL_PWD, PGPASSWORD and *_PAT are scrubbed"
		grep zz-s "$workdir/out" | sed 's/^/#   left: /'
	else
		ok "$u: *PASSPHRASE*, *JWT*, DATABASE_URL, MYSQL_PWD, PGPASSWORD and *_PAT are scrubbed"
	fi
	is "$(grep -c '=k[1-5]$' "$workdir/out")" 5 \
		"$u: MY_PATH, PATTERN, X_PAT_Y, DATABASE, MYSQL_PWD_FILE are inherited"

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

	# Missing writable roots: created when the table grants their
	# creation, else a warning naming the row; --dry-run and --log
	# list every row whose effect depended on the host.
	H=$W/home-$u
	rm -rf "$H"
	mkdir -p "$H"
	[ "$u" = root ] || chown "$NOBODY:$NOBODY" "$H"
	printf '%s\n' '@default write deny' "rw: $H/.cache/**" \
		"rw: $H/gone/deeper/**" "rw: $W/rw" "!deny: $W/rw/not-there" \
		>"$W/roots-$u.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$W/roots-$u.plan" \
		"$W/roots-$u.rules"
	chmod 0644 "$W/roots-$u.plan"
	run as "$u" "$VBOX_EXEC" --dry-run "$W/roots-$u.plan" -- true
	status 0 "$u: --dry-run with missing roots exits 0"
	has "$workdir/err" "host: row 0 'rw:$H/.cache/**' (" \
		"$u: --dry-run lists the root it would create"
	has "$workdir/err" "'$H/.cache' did not exist on the host; the table lets it be created" \
		"$u: ... and why it may"
	has "$workdir/err" "warning: row 1 'rw:$H/gone/deeper/**' (" \
		"$u: --dry-run warns about the root it may not create"
	has "$workdir/err" "host: row 3 '!deny:$W/rw/not-there' (" \
		"$u: --dry-run lists the missing denied path"
	has "$workdir/err" "an empty read-only placeholder keeps it absent" \
		"$u: ... and what is done about it"
	# (Only listed here: launching a deny on a link is the walls'
	# business.)
	mkdir -p "$H/target"
	ln -s "$H/target" "$H/link"
	printf '%s\n' "rw: $W/rw" "!deny: $H/link" >"$W/link-$u.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$W/link-$u.plan" \
		"$W/link-$u.rules"
	chmod 0644 "$W/link-$u.plan"
	run as "$u" "$VBOX_EXEC" --dry-run "$W/link-$u.plan" -- true
	has "$workdir/err" "host: row 1 '!deny:$H/link' (" \
		"$u: --dry-run lists the row on a symbolic link"
	has "$workdir/err" "'$H/link' is a symbolic link: the mount moves to its target only where the table gives the target the row's effect" \
		"$u: ... and says when the mount follows it"
	rm -f "$H/link"
	mkdir -p "$H/g/a"
	: >"$H/g/a/k.pem"
	printf '%s\n' "rw: $W/rw" "deny: $H/g/*/*.pem" "deny: $H/g/*/*.key" \
		>"$W/glob-$u.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$W/glob-$u.plan" \
		"$W/glob-$u.rules"
	chmod 0644 "$W/glob-$u.plan"
	run as "$u" "$VBOX_EXEC" --dry-run "$W/glob-$u.plan" -- true
	has "$workdir/err" "host: row 1 'deny:$H/g/*/*.pem' (" \
		"$u: --dry-run lists a glob row"
	has "$workdir/err" "is a glob expanded on the host now: each match is mounted for the row" \
		"$u: ... expanded on the host"
	has "$workdir/err" "'$H/g/*/*.key' is a glob that matches nothing on the host now: the row mounts nothing" \
		"$u: ... and a glob that matches nothing"
	if [ -e "$H/.cache" ]; then
		not_ok "$u: --dry-run creates nothing"
	else
		ok "$u: --dry-run creates nothing"
	fi
	run as "$u" "$VBOX_EXEC" --dry-run "$W/roots-$u.plan" -- true
	cp "$workdir/out" "$workdir/line"
	run as "$u" sh -c "$(cat "$workdir/line")"
	status 0 "$u: the dry-run line runs by hand"
	if [ -d "$H/.cache" ]; then
		ok "$u: the dry-run line creates the granted root too"
	else
		not_ok "$u: the dry-run line creates the granted root too"
	fi
	rm -rf "$H/.cache"
	run as "$u" "$VBOX_EXEC" "$W/roots-$u.plan" -- sh -c \
		"mkdir -p '$H/.cache/pip' && echo made"
	status 0 "$u: a granted missing root: the command runs"
	is "$(cat "$workdir/out")" "made" \
		"$u: mkdir -p below a created root works in the sandbox"
	has "$workdir/err" "vbox-exec: warning: row 1 'rw:$H/gone/deeper/**' (" \
		"$u: without --log the ungranted root is still a warning"
	has "$workdir/err" "'$H/gone/deeper' does not exist on the host: the row makes nothing writable there" \
		"$u: ... saying what it means"
	want_uid=0
	[ "$u" = root ] || want_uid=$NOBODY
	got=$(stat -c '%a %u' "$H/.cache" 2>/dev/null || echo none)
	is "$got" "700 $want_uid" \
		"$u: the created root is private and the invoking user's"
	if [ -e "$H/gone" ]; then
		not_ok "$u: an ungranted root is not created"
	else
		ok "$u: an ungranted root is not created"
	fi
	# In the invoking user's home ($HOME here), a missing root's
	# missing parents are made too (a recipe's cache on a new runner),
	# mode 0700, quietly; only the root is writable in the sandbox.
	run as "$u" env HOME="$H" "$VBOX_EXEC" "$W/roots-$u.plan" -- sh -c \
		"touch '$H/gone/deeper/x' && ! touch '$H/gone/y' 2>/dev/null && echo made"
	is "$(cat "$workdir/out")" "made" \
		"$u: a root in \$HOME with a missing parent is made, only it writable"
	if grep -q 'warning:' "$workdir/err"; then
		not_ok "$u: ... without a warning"
	else
		ok "$u: ... without a warning"
	fi
	is "$(stat -c '%a %u' "$H/gone" 2>/dev/null || echo none)" \
		"700 $want_uid" "$u: ... its parent made private and the user's"
	rm -rf "$H/gone"
	# A hole below a created root holds like any hole.
	printf '%s\n' "rw: $H/fresh/**" "!deny: $H/fresh/secret" \
		>"$W/fresh-$u.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$W/fresh-$u.plan" \
		"$W/fresh-$u.rules"
	chmod 0644 "$W/fresh-$u.plan"
	run as "$u" "$VBOX_EXEC" "$W/fresh-$u.plan" -- sh -c \
		"touch '$H/fresh/ok' && ! mkdir '$H/fresh/secret/x' 2>/dev/null && ! ls '$H/fresh/secret' >/dev/null 2>&1 && echo held"
	is "$(cat "$workdir/out")" "held" \
		"$u: a created root is writable and the deny below it holds"
	if [ -e "$H/fresh/ok" ] && [ ! -e "$H/fresh/secret" ]; then
		ok "$u: the root stays, the placeholder below it is gone"
	else
		not_ok "$u: the root stays, the placeholder below it is gone"
	fi
	run as "$u" "$VBOX_EXEC" --log "$W/roots-$u.plan" -- true
	has "$workdir/err" "host: row 3 '!deny:$W/rw/not-there'" \
		"$u: --log lists the rows that depended on the host"
done

# A plan compiled by root for '~' and run by another user.
if [ "$users" = "root nobody" ] &&
	! setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
		test -x /root 2>/dev/null; then
	printf 'rw: %s\ndeny: ~/.vbox-hints-test\n' "$W/rw" >"$W/home.rules"
	env HOME=/root "$VBOXC" compile --target=linux --emit=plan \
		-o "$W/home.plan" "$W/home.rules"
	chmod 0644 "$W/home.plan"
	run as nobody "$VBOX_EXEC" "$W/home.plan" -- true
	status 125 "a plan compiled for root's '~', run by nobody: 125"
	has "$workdir/err" "'/root/.vbox-hints-test': Permission denied (it is under the home directory of 'root', /root: '~' and \$HOME in rules are expanded when the plan is compiled" \
		"... says '~' was expanded at compile time"
else
	echo "# compile-time '~' note not tested: needs root, nobody and a /root nobody cannot enter"
fi

done_testing
