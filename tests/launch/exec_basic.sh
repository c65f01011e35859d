#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_basic.sh - vbox-exec's contract (doc/launcher.md)
# against the real bubblewrap: the exit-status mapping, binary-safe
# stdin/stdout/stderr, the environment (scrub, -e, --replace-env, PWD),
# -C, --dry-run (whose line must run by hand), --log, only fds 0-2 in the
# child, the kernel agreeing with `vboxc explain` for plans with launch
# rows, and the 125 refusals: corrupt, truncated, other-version and
# other-platform plans, missing or failing bubblewrap, a glob walk past
# its bound, a missing -C directory, usage errors.  Every refusal is
# also checked on the host side: the command never ran.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
# vbox-exec finds bubblewrap itself; the tests use the configured one.

W=$workdir/w
mkdir -p "$W/rw/sub" "$W/ro"
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

# hasnt FILE FIXED-STRING DESC
hasnt() {
	if grep -qF -- "$2" "$1"; then
		not_ok "$3"
		sed 's/^/#   /' "$1" | head -n 20
	else
		ok "$3"
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

# absent PATH DESC - the command did not run: its marker is not there
absent() {
	if [ -e "$1" ] || [ -L "$1" ]; then
		not_ok "$2"
	else
		ok "$2"
	fi
}

# compile RULES PLAN [TARGET]
compile() {
	"$VBOXC" compile --target="${3:-linux}" --emit=plan -o "$2" "$1" \
		2>"$workdir/compile.err" || {
		echo "# vboxc compile $1 failed:"
		sed 's/^/#   /' "$workdir/compile.err"
		return 1
	}
}

cat >basic.rules <<EOF
@default write deny
@default net deny
[fs]
rw: $W/rw
ro: $W/ro
EOF
compile basic.rules basic.plan
P=$workdir/basic.plan
M=$W/rw/marker

# ---- exit statuses -------------------------------------------------------
run "$VBOX_EXEC" "$P" -- true
status 0 "exit status 0 passes through"
run "$VBOX_EXEC" "$P" -- sh -c 'exit 3'
status 3 "exit status 3 passes through"
run "$VBOX_EXEC" "$P" -- sh -c 'exit 255'
status 255 "exit status 255 passes through"
run "$VBOX_EXEC" "$P" -- sh -c 'kill -TERM $$'
status 143 "death by SIGTERM is 128+15"
run "$VBOX_EXEC" "$P" -- sh -c 'kill -KILL $$'
status 137 "death by SIGKILL is 128+9"
run "$VBOX_EXEC" "$P" -- sh -c 'kill -SEGV $$'
status 139 "death by SIGSEGV is 128+11"
run "$VBOX_EXEC" "$P" -- vbox-no-such-command-$$
status 127 "a command not found inside the sandbox is 127"
has err "vbox-exec: vbox-no-such-command-$$: not found" \
	"... with a message naming it"
run "$VBOX_EXEC" "$P" -- "$W/rw/no-such-file"
status 127 "a missing path is 127"
printf 'data\n' >"$W/rw/not-exec"
chmod 644 "$W/rw/not-exec"
run "$VBOX_EXEC" "$P" -- "$W/rw/not-exec"
status 126 "a file without execute permission is 126"
has err "cannot execute" "... with a message saying why"
run "$VBOX_EXEC" "$P" -- "$W/rw"
status 126 "a directory as command is 126"
run "$VBOX_EXEC" "$P" -- sh -c 'exit 127'
status 127 "a command's own 127 is indistinguishable, as with a shell"
t0=$(date +%s)
run "$VBOX_EXEC" --timeout=1 "$P" -- sleep 30
t1=$(date +%s)
status 124 "--timeout ends the command with 124"
if [ $((t1 - t0)) -le 5 ]; then
	ok "... within the grace period ($((t1 - t0)) s)"
else
	not_ok "... within the grace period ($((t1 - t0)) s)"
fi
run "$VBOX_EXEC" --timeout 0.5 "$P" -- sh -c 'trap "" TERM; sleep 30'
status 124 "--timeout SECONDS (separate) kills a command ignoring SIGTERM"
run "$VBOX_EXEC" --timeout=10 "$P" -- sh -c 'exit 7'
status 7 "a command ending before its timeout keeps its status"

# ---- stdin, stdout, stderr ----------------------------------------------
head -c 300000 /dev/urandom >bin
run "$VBOX_EXEC" "$P" -- cat <bin
check "stdin to stdout is binary-safe (300 KB of random bytes)" \
	cmp -s bin "$workdir/out"
rc=0
"$VBOX_EXEC" "$P" -- sh -c 'cat >&2' <bin >out 2>err2 || rc=$?
check "stdin to stderr is binary-safe" cmp -s bin err2
check "... and stdout stays empty" test ! -s out
n=$("$VBOX_EXEC" "$P" -- head -c 5000000 /dev/zero | wc -c | tr -d ' ')
is "$n" 5000000 "5 MB through a pipe arrive whole"
run "$VBOX_EXEC" "$P" -- cat </dev/null
check "stdin at EOF ends the command" test "$rc" -eq 0 -a ! -s out
run "$VBOX_EXEC" "$P" -- true
check "vbox-exec itself prints nothing without --log" test ! -s err

# ---- fds -----------------------------------------------------------------
exec 7</dev/null 8>"$workdir/fd8"
run "$VBOX_EXEC" "$P" -- sh -c 'ls /proc/$$/fd'
exec 7<&- 8>&-
is "$(tr '\n' ' ' <out)" "0 1 2 " "only fds 0, 1 and 2 reach the child"

# ---- environment ---------------------------------------------------------
run env -i PATH="$PATH" HOME=/home/tester KEEP_ME=kept \
	MY_SECRET=zz-secret-1 GITHUB_TOKEN=zz-secret-2 \
	db_password=zz-secret-3 X_PASSWD=zz-secret-4 \
	aws_access_key_id=zz-secret-5 OPENAI_API_KEY=zz-secret-6 \
	SSH_PRIVATE_KEY=zz-secret-7 DB_CREDENTIALS=zz-secret-8 \
	SESSION_ID=zz-secret-9 Cookie_jar=zz-secret-10 \
	AUTH_HEADER=zz-secret-11 http_proxy=zz-proxy-1 HTTPS_PROXY=zz-proxy-2 \
	ALL_PROXY=zz-proxy-3 no_proxy=zz-proxy-4 ftp_proxy=zz-proxy-5 \
	"$VBOX_EXEC" "$P" -- env
has out "KEEP_ME=kept" "an ordinary variable is inherited"
has out "HOME=/home/tester" "HOME is inherited"
hasnt out "zz-secret" \
	"variables that look like secrets are scrubbed (11 words, any case)"
hasnt out "zz-proxy" "ambient *_PROXY variables are never inherited"
has out "PWD=$workdir" "PWD is the child's working directory"
run env -i PATH="$PATH" MY_SECRET=zz-secret \
	"$VBOX_EXEC" -e MY_SECRET=given --env=NEW=1 -e KEEP=a=b "$P" -- env
has out "MY_SECRET=given" "-e passes a secret-looking variable explicitly"
has out "NEW=1" "--env=NAME=VALUE sets a variable"
has out "KEEP=a=b" "-e splits at the first '='"
run env -i PATH="$PATH" A=old "$VBOX_EXEC" -e A=1 -e A=2 "$P" -- env
has out "A=2" "the last -e of a name wins"
hasnt out "A=old" "... over the inherited value"
run env -i PATH="$PATH" X=1 "$VBOX_EXEC" --replace-env -e B=2 -e A=1 "$P" \
	-- /usr/bin/env
is "$(cat out)" "B=2
A=1" "--replace-env gives exactly the -e variables, in order"
run "$VBOX_EXEC" --replace-env "$P" -- /usr/bin/env
is "$(cat out)" "" "--replace-env alone gives an empty environment"
run "$VBOX_EXEC" -e PWD=/custom "$P" -- /usr/bin/env
has out "PWD=/custom" "-e PWD=... is honoured"
run "$VBOX_EXEC" -e '' "$P" -- true
status 125 "-e with an empty name is a usage error (125)"

# ---- -C ------------------------------------------------------------------
run "$VBOX_EXEC" -C "$W/rw/sub" "$P" -- pwd
is "$(cat out)" "$W/rw/sub" "-C sets the working directory"
run sh -c 'cd "$1" && "$2" --workdir=sub "$3" -- pwd' sh "$W/rw" \
	"$VBOX_EXEC" "$P"
is "$(cat out)" "$W/rw/sub" "--workdir=DIR accepts a relative directory"
run "$VBOX_EXEC" -C "$W/ro" "$P" -- sh -c 'touch x'
check "-C grants nothing: a read-only directory stays read-only" \
	test "$rc" -ne 0 -a ! -e "$W/ro/x"
run "$VBOX_EXEC" -C "$W/nonexistent" "$P" -- touch "$M"
status 125 "-C to a missing directory is 125"
has err "$W/nonexistent" "... naming the directory"
absent "$M" "... and the command did not run"
run "$VBOX_EXEC" -C "$W/rw/not-exec" "$P" -- touch "$M"
status 125 "-C to a file is 125"

# ---- --dry-run -----------------------------------------------------------
run "$VBOX_EXEC" --dry-run "$P" -- sh -c 'echo "dry run"; exit 5'
status 0 "--dry-run exits 0"
is "$(wc -l <out | tr -d ' ')" 1 "... printing one line"
cp out dry.line
run sh -c "$(cat dry.line)"
is "$rc:$(cat out)" "5:dry run" "... that runs by hand with the same result"
run "$VBOX_EXEC" --dry-run "$P" -- touch "$M"
absent "$M" "--dry-run starts nothing"
has out "--unshare-pid" "the line holds the hardening flags"
has out "/proc/self/fd/3 -- " "... and the sandbox's init"

# ---- --log ---------------------------------------------------------------
cat >shadow.rules <<EOF
[fs]
rw: $W/rw
ro: $W/rw/sub
EOF
compile shadow.rules shadow.plan
run "$VBOX_EXEC" --log shadow.plan -- true
status 0 "--log runs the command"
for stage in "plan loaded" "stage: plan load" "stage: instantiation" \
	"stage: sandbox start" "stage: child exit"; do
	has err "$stage" "--log prints '$stage'"
done
has err "is ineffective" "--log prints the plan's shadow findings"
has err "shadow.rules:3:1" "... with their source"

# ---- refusals: 125, and the command never ran ---------------------------
run "$VBOX_EXEC" "$workdir/no-such.plan" -- touch "$M"
status 125 "a missing plan is 125"
absent "$M" "... and the command did not run"
: >empty.plan
run "$VBOX_EXEC" empty.plan -- touch "$M"
status 125 "an empty plan is 125"
size=$(wc -c <"$P" | tr -d ' ')
head -c $((size - 1)) "$P" >trunc.plan
run "$VBOX_EXEC" trunc.plan -- touch "$M"
status 125 "a truncated plan is 125"
has err "truncated" "... saying so"
absent "$M" "... and the command did not run"
cp "$P" corrupt.plan
printf 'X' | dd of=corrupt.plan bs=1 seek=$((size / 2)) conv=notrunc \
	2>/dev/null
run "$VBOX_EXEC" corrupt.plan -- touch "$M"
status 125 "a plan with one byte changed is 125"
has err "checksum" "... naming the checksum"
absent "$M" "... and the command did not run"
cp "$P" version.plan
printf '\143' | dd of=version.plan bs=1 seek=8 conv=notrunc 2>/dev/null
run "$VBOX_EXEC" version.plan -- touch "$M"
status 125 "a plan of another format version is 125"
has err "version" "... naming the version"
absent "$M" "... and the command did not run"
cat >portable.rules <<EOF
[fs]
rw: $W/rw
EOF
compile portable.rules darwin.plan darwin
run "$VBOX_EXEC" darwin.plan -- touch "$M"
status 125 "a darwin plan is 125"
has err "plan is for darwin; this vbox-exec runs linux plans" \
	"... with the platform message"
absent "$M" "... and the command did not run"
printf '@default net open\n[fs]\nrw: C:/work\n' >windows.rules
compile windows.rules windows.plan windows
run "$VBOX_EXEC" windows.plan -- touch "$M"
status 125 "a windows plan is 125"
absent "$M" "... and the command did not run"

run "$VBOX_EXEC" --bwrap="$workdir/no-bwrap" "$P" -- touch "$M"
status 125 "a missing bubblewrap is 125"
has err "bubblewrap not found" "... saying so"
absent "$M" "... and the command did not run"
printf '#!/bin/sh\necho "fake bwrap: cannot set up" >&2\nexit 1\n' \
	>"$workdir/failing-bwrap"
chmod +x "$workdir/failing-bwrap"
run "$VBOX_EXEC" --bwrap="$workdir/failing-bwrap" "$P" -- touch "$M"
status 125 "bubblewrap failing before the command starts is 125"
has err "failed before the command started" "... saying so"
absent "$M" "... and the command did not run"
# The same bubblewrap, given the early list (doc/launcher.md, "The
# early argument list"), may fail and end while vbox-exec still looks at
# a large table, before the init's setup goes out: its message and the
# usual one are what the user reads, not the init channel's.
mkdir -p "$W/many"
{
	printf '[fs]\nrw: %s/rw\n' "$W"
	i=0
	while [ $i -lt 1500 ]; do
		: >"$W/many/f$i"
		printf '!deny: %s/many/f%d\n' "$W" $i
		i=$((i + 1))
	done
} >many.rules
compile many.rules many.plan
printf '#!/bin/sh\ncat <&4 >/dev/null\necho "fake bwrap: cannot set up" >&2\nexit 1\n' \
	>"$workdir/reading-bwrap"
chmod +x "$workdir/reading-bwrap"
run "$VBOX_EXEC" --bwrap="$workdir/reading-bwrap" many.plan -- touch "$M"
status 125 "bubblewrap failing on the early list is 125"
has err "fake bwrap: cannot set up" "... with bubblewrap's message"
has err "failed before the command started" "... and saying so"
hasnt err "cannot send the sandbox's setup" "... not the init channel's"
absent "$M" "... and the command did not run"
printf '#!/bin/sh\nexit 0\n' >"$workdir/silent-bwrap"
chmod +x "$workdir/silent-bwrap"
run "$VBOX_EXEC" --bwrap="$workdir/silent-bwrap" "$P" -- true
status 125 "a bubblewrap that exits 0 without starting the command is 125"
# Which bubblewrap runs is never chosen by the environment.
mkdir -p "$workdir/pathbin"
cp "$workdir/failing-bwrap" "$workdir/pathbin/bwrap"
run env VBOX_BWRAP="$workdir/failing-bwrap" PATH="$workdir/pathbin:$PATH" \
	"$VBOX_EXEC" "$P" -- true
status 0 "an ambient VBOX_BWRAP or PATH does not choose bubblewrap"

mkdir "$W/big"
(cd "$W/big" && awk 'BEGIN { for (i = 0; i <= 10000; i++) print "f" i }' |
	xargs touch)
cat >walk.rules <<EOF
[fs]
rw: $W/rw
deny: $W/big/*.key
EOF
compile walk.rules walk.plan
run "$VBOX_EXEC" walk.plan -- touch "$M"
status 125 "a glob walk past its bound (10,000 entries) is 125"
has err "more than 10000 entries" "... naming the bound"
absent "$M" "... and the command did not run"
rm -rf "$W/big"

# ---- usage ---------------------------------------------------------------
run "$VBOX_EXEC" --help
check "--help exits 0 and prints the usage" \
	grep -q '^Usage: vbox-exec' "$workdir/out"
run "$VBOX_EXEC" --version
check "--version exits 0" test "$rc" -eq 0 -a -s out
run "$VBOX_EXEC" "$P" touch "$M"
status 125 "a missing '--' is a usage error (125)"
absent "$M" "... and the command did not run"
run "$VBOX_EXEC" --bogus "$P" -- true
status 125 "an unknown option is 125"
run "$VBOX_EXEC" --timeout=soon "$P" -- true
status 125 "a malformed --timeout is 125"
run "$VBOX_EXEC" --timeout=0 "$P" -- true
status 125 "--timeout=0 is 125"
run "$VBOX_EXEC" "$P" --
status 125 "a missing COMMAND is 125"
run "$VBOX_EXEC" -- true
status 125 "a missing PLAN is 125"

# ---- the kernel agrees with vboxc explain --------------------------------
# For each policy, probe inside vbox-exec and compare with explain:
# read P -> read P; write P -> write P; create P -> write P and its
# directory (the kernel needs both).
VBOX_PROBE=${VBOX_PROBE:-${top_builddir:-.}/tests/launch/probe}

agree() {
	_n=$1
	set --
	: >"$_n.queries"
	while read -r _op _path; do
		set -- "$@" "$_op" "$_path"
		case $_op in
		read) printf 'read %s\n' "$_path" "$_path" ;;
		write) printf 'write %s\n' "$_path" "$_path" ;;
		create) printf 'write %s\n' "$_path" "${_path%/*}" ;;
		esac >>"$_n.queries"
	done <"$_n.ops"
	compile "$_n.rules" "$_n.plan" || {
		not_ok "$_n: compiles"
		return 0
	}
	"$VBOXC" explain --format=json --target=linux "$_n.rules" \
		--queries="$_n.queries" >"$_n.answers" 2>/dev/null
	awk '{ a = ($0 ~ /"allow":true/); if (NR % 2) p = a;
	       else print (p && a) ? "allow" : "deny" }' \
		"$_n.answers" >"$_n.want"
	chmod 644 "$_n.plan"
	for _who in $users; do
		# the tree is the running user's (its writes judged by DAC too)
		[ "$_who" != nobody ] || chown -R 65534:65534 "$T"
		run as_user "$_who" "$VBOX_EXEC" "$_n.plan" -- "$VBOX_PROBE" "$@"
		[ "$_who" != nobody ] || chown -R 0:0 "$T"
		awk '{ print $3 }' out >"$_n.got"
		if [ "$rc" -eq 0 ] && cmp -s "$_n.want" "$_n.got"; then
			ok "$_n, $_who: vbox-exec and explain agree on" \
				"$(wc -l <"$_n.ops") operations"
		else
			not_ok "$_n, $_who: vbox-exec and explain agree" \
				"(exit $rc)"
			paste -d ' ' "$_n.ops" "$_n.want" out | sed 's/^/#   /'
			sed 's/^/#   err: /' err | head -n 10
		fi
	done
}

if [ -x "$VBOX_PROBE" ]; then
	set_users
	chmod 755 "$workdir"
	T=$workdir/t
	mkdir -p "$T/w/secret" "$T/w/ro" "$T/data/a" "$T/data/b" "$T/plain"
	for f in w/f.txt w/secret/key w/ro/r.txt data/a/x.key data/a/x.txt \
		data/b/y.key plain/p.txt; do
		echo "content $f" >"$T/$f"
	done
	cat >holes.rules <<EOF
@default write deny
[fs]
rw: $T/w
!deny: $T/w/secret
!deny: $T/w/absent
!ro: $T/w/ro
deny: $T/data/*/*.key
EOF
	cat >holes.ops <<EOF
read $T/w/f.txt
write $T/w/f.txt
create $T/w/new.txt
read $T/w/secret/key
write $T/w/secret/key
create $T/w/secret/new
create $T/w/absent
read $T/w/ro/r.txt
write $T/w/ro/r.txt
create $T/w/ro/new
read $T/data/a/x.key
read $T/data/a/x.txt
read $T/data/b/y.key
write $T/data/a/x.txt
read $T/plain/p.txt
write $T/plain/p.txt
create $T/plain/new
EOF
	agree holes
	absent "$T/w/absent" "holes: the placeholder is gone after the run"
	cat >openw.rules <<EOF
@default write rw
[fs]
ro: $T/plain
deny: $T/w/secret/key
!rw: $T/plain/p.txt
EOF
	cat >openw.ops <<EOF
write $T/w/f.txt
create $T/w/new2.txt
read $T/w/secret/key
write $T/w/secret/key
read $T/plain/p.txt
write $T/plain/p.txt
create $T/plain/new
write $T/data/a/x.txt
EOF
	agree openw
	# A glob match a higher row decides is that row's: the !ro row is
	# absorbed (no mount of its own), so the deny glob must leave its
	# match alone at launch.
	cat >over.rules <<EOF
@default write deny
[fs]
deny: $T/data/*/*.key
!ro: $T/data/a
EOF
	cat >over.ops <<EOF
read $T/data/a/x.key
read $T/data/b/y.key
read $T/data/a/x.txt
write $T/data/a/x.key
EOF
	agree over
	# A literal deny row under a higher rw glob expanded at launch: the
	# glob's bind of the same file lies on the deny row's /dev/null, and
	# the cover's read-only remount at the end must not land on that
	# bind (it made the granted file read-only: EROFS).
	cat >rwglob.rules <<EOF
@default write deny
[fs]
rw: $T/data/*/x.txt
deny: $T/data/a/x.txt
deny: $T/data/b/y.key
EOF
	cat >rwglob.ops <<EOF
read $T/data/a/x.txt
write $T/data/a/x.txt
read $T/data/b/y.key
write $T/data/b/y.key
EOF
	agree rwglob
	# A glob row above that decides a directory alone does not excuse a
	# deny below it: `rw: .../?` matches data/a itself, not data/a/x.txt,
	# so the deny of data/a and everything below must still be mounted
	# (it was skipped: the file was readable).
	cat >dironly.rules <<EOF
@default write deny
[fs]
rw: $T/data/?
deny: $T/data/*/**
EOF
	cat >dironly.ops <<EOF
read $T/data/a/x.txt
write $T/data/a/x.txt
read $T/data/b/y.key
read $T/plain/p.txt
EOF
	agree dironly
	# A higher glob's match inside a region of its own kind is not
	# redundant when a lower row's hole lies below it: a deny with '**'
	# in the middle (the compiler cannot see it covers the hole) over a
	# denied directory holding an ro hole left the file readable.
	cat >deeper.rules <<EOF
@default write deny
[fs]
ro: $T/data/a/x.txt
deny: $T/data
!deny: $T/data/**/a/**
EOF
	cat >deeper.ops <<EOF
read $T/data/a/x.txt
read $T/data/b/y.key
write $T/data/a/x.txt
EOF
	agree deeper
	# A lower literal row a higher glob decides makes no mount of its
	# own: the file stays renamable (a mount point answers EBUSY), as
	# explain says a write of its directory is allowed.
	cat >renamable.rules <<EOF
@default write rw
[fs]
rw: $T/data/*/x.txt
ro: $T/data/a/x.txt
EOF
	compile renamable.rules renamable.plan
	chmod 644 renamable.plan
	for who in $users; do
		[ "$who" != nobody ] || chown -R 65534:65534 "$T"
		run as_user "$who" "$VBOX_EXEC" renamable.plan -- \
			"$VBOX_PROBE" rename "$T/data/a/x.txt" \
			write "$T/data/a/x.txt"
		[ "$who" != nobody ] || chown -R 0:0 "$T"
		is "$rc $(awk '{ print $3 }' out | tr '\n' ' ')" \
			"0 allow allow " \
			"$who: a file a higher glob grants back: renamed and written (no mount)"
	done
else
	ok "# SKIP no probe binary at $VBOX_PROBE"
fi

done_testing
