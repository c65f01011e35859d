#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_attacks.sh - attacks a child under vbox-exec tries against
# its policy; each must fail inside the sandbox AND be checked on the
# host side: the protected files unchanged, the absent path still absent,
# no secret ever printed.  Real bubblewrap; skips only when bubblewrap or
# user namespaces are unavailable (single attacks skip when the tool
# they need is missing, saying which).
#
# The policy (levels make the holes win over the writable root):
#   !!deny  rw/secret.txt, rw/secretdir, rw/absent, outside/secret2.txt
#   !ro     rw/ro, rw/deep/a/b/ro2
#   rw      rw
# and the plan itself lies in the writable root.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
VBOX_PROBE=${VBOX_PROBE:-${top_builddir:-.}/tests/launch/probe}

T=$workdir/t
S=$T/rw/scratch
mkdir -p "$T/rw/ro" "$T/rw/deep/a/b/ro2" "$T/rw/secretdir" "$T/outside" "$S"
tag=$$
printf 'SECRET-FILE-%s\n' "$tag" >"$T/rw/secret.txt"
printf 'SECRET-DIR-%s\n' "$tag" >"$T/rw/secretdir/key"
printf 'SECRET-OUT-%s\n' "$tag" >"$T/outside/secret2.txt"
printf 'read-only\n' >"$T/rw/ro/file"
printf 'read-only 2\n' >"$T/rw/deep/a/b/ro2/file"
printf 'scratch\n' >"$S/f"
cd "$workdir"
cat >attacks.rules <<EOF
@default write deny
@default net deny
[fs]
!!deny: $T/rw/secret.txt
!!deny: $T/rw/secretdir
!!deny: $T/rw/absent
!!deny: $T/outside/secret2.txt
!ro: $T/rw/ro
!ro: $T/rw/deep/a/b/ro2
rw: $T/rw
EOF
"$VBOXC" compile --target=linux --emit=plan -o "$T/rw/plan.bin" attacks.rules
P=$T/rw/plan.bin
# Host planted before the launch: a link in the writable root.
ln -s "$T/outside/secret2.txt" "$S/hostlink"

# snapshot - the protected state: everything but the scratch area, with
# contents, modes and link counts
snapshot() {
	(cd "$T" && find . -path ./rw/scratch -prune -o \
		-printf '%y %m %n %p %l\n' | sort &&
		find . -path ./rw/scratch -prune -o -type f -exec cksum {} + |
		sort)
}
snapshot >before
: >all-output

# attack DESC SCRIPT - run SCRIPT (sh) in the sandbox; it must exit
# non-zero (each attack ends with the step that must fail) and print no
# secret; its output is kept for the final check
attack() {
	_a=$1
	shift
	attack_cmd "$_a" sh -c "$1"
}

# attack_cmd DESC COMMAND... - the same with COMMAND run directly (it is
# then the sandbox's only process besides the init, its parent)
attack_cmd() {
	_desc=$1
	shift
	rc=0
	"$VBOX_EXEC" --timeout=20 "$P" -- "$@" >out 2>err || rc=$?
	cat out err >>all-output
	if [ "$rc" -eq 0 ]; then
		not_ok "$_desc: fails"
		sed 's/^/#   /' out err | head -n 20
	elif grep -q SECRET- out err; then
		not_ok "$_desc: fails without printing the secret"
		sed 's/^/#   /' out err | head -n 20
	else
		ok "$_desc: fails (exit $rc)"
	fi
}

# ---- symlinks ------------------------------------------------------------
attack "symlink in the writable root to a denied file" \
	"ln -s '$T/rw/secret.txt' '$S/l1' && cat '$S/l1'"
attack "symlink to a denied file outside the root" \
	"ln -s '$T/outside/secret2.txt' '$S/l2' && cat '$S/l2'"
attack "symlink to a denied directory" \
	"ln -sf '$T/rw/secretdir' '$S/l3' && cat '$S/l3/key'"
attack "writing a denied file through a symlink" \
	"ln -sf '$T/rw/secret.txt' '$S/l4' && echo pwned >'$S/l4'"
attack "a symlink the host planted before the launch" \
	"cat '$S/hostlink'"
attack "a symlink swapped in for a read-only file's directory" \
	"ln -s '$T/outside' '$S/swap' && echo pwned >'$S/swap/secret2.txt'"

# ---- .. and /proc --------------------------------------------------------
attack "'..' traversal from a read-only hole" \
	"cat '$T/rw/ro/../../outside/secret2.txt'"
attack "'..' traversal into a denied directory" \
	"cat '$S/../secretdir/key'"
attack "/proc/self/root to a denied file" \
	"cat '/proc/self/root$T/outside/secret2.txt'"
attack "/proc/1/root (the sandbox's init) to a denied file" \
	"cat '/proc/1/root$T/rw/secret.txt'"
attack "/proc/self/root to write a read-only file" \
	"echo pwned >'/proc/self/root$T/rw/ro/file'"
attack "/proc/self/cwd to a denied directory" \
	"cd '$T/rw' && cat /proc/self/cwd/secretdir/key"

# ---- renames and creation ------------------------------------------------
attack "renaming a parent of a read-only hole" \
	"mv '$T/rw/deep' '$T/rw/deep.moved'"
attack "renaming the hole's own parent" \
	"mv '$T/rw/deep/a/b' '$S/b'"
attack "renaming the read-only hole away" \
	"mv '$T/rw/ro' '$T/rw/ro.moved'"
attack "removing the read-only hole's tree" \
	"rm -rf '$T/rw/deep' 2>/dev/null; test ! -e '$T/rw/deep/a/b/ro2/file' \
&& echo pwned >'$T/rw/deep/a/b/ro2/file'"
attack "creating a denied-but-absent file" "touch '$T/rw/absent'"
attack "creating a denied-but-absent directory" "mkdir '$T/rw/absent'"
attack "creating below the denied-but-absent path" \
	"mkdir -p '$T/rw/absent/x'"
attack "renaming a file onto the denied-but-absent path" \
	"mv '$S/f' '$T/rw/absent'"
attack "a symlink at the denied-but-absent path" \
	"ln -s /etc '$T/rw/absent'"
attack "replacing a denied file" \
	"rm -f '$T/rw/secret.txt' && echo mine >'$T/rw/secret.txt'"
attack "replacing a denied directory" \
	"mv '$T/rw/secretdir' '$S/sd' || rmdir '$T/rw/secretdir'"

# ---- hard links ----------------------------------------------------------
attack "hard link to a denied file" "ln '$T/rw/secret.txt' '$S/hl1'"
attack "hard link to a denied file outside" \
	"ln '$T/outside/secret2.txt' '$S/hl2'"
attack "hard link to a read-only file, to write through it" \
	"ln '$T/rw/ro/file' '$S/hl3' && echo pwned >>'$S/hl3'"

# ---- mounts and namespaces -----------------------------------------------
attack "unmounting a denied file's cover" \
	"umount '$T/rw/secret.txt' 2>/dev/null; \
umount -l '$T/rw/secret.txt' 2>/dev/null; cat '$T/rw/secret.txt'"
attack "unmounting a denied directory's cover" \
	"umount -l '$T/rw/secretdir' 2>/dev/null; cat '$T/rw/secretdir/key'"
attack "mounting over the writable root" \
	"mount -t tmpfs none '$S'"
attack "bind-mounting a denied file elsewhere" \
	"mount --bind '$T/outside/secret2.txt' '$S/f' 2>/dev/null; cat '$S/f' \
| grep -q SECRET && exit 0; exit 1"
attack "a new user namespace (unshare -U)" "unshare -U true"
attack "a new user namespace mapped to root (unshare -r)" "unshare -r true"
attack "a new mount namespace (unshare -m)" "unshare -m true"
attack "a new network namespace (unshare -n)" "unshare -n true"
attack "remounting / read-write" "mount -o remount,rw /"

# ---- the parent ----------------------------------------------------------
case $(uname -m) in
x86_64) nr_ptrace=101 ;;
aarch64) nr_ptrace=117 ;;
i?86 | armv*) nr_ptrace=26 ;;
riscv64) nr_ptrace=117 ;;
*) nr_ptrace= ;;
esac
if [ -n "$nr_ptrace" ] && command -v perl >/dev/null 2>&1; then
	# PTRACE_ATTACH is 16; perl's parent is the sandbox's init.
	attack_cmd "ptrace of the parent (PTRACE_ATTACH to getppid())" \
		perl -e "exit(syscall($nr_ptrace, 16, getppid(), 0, 0) == 0 ? \
0 : 1)"
	attack "ptrace of the sandbox's init from a shell's child" \
		"perl -e 'exit(syscall($nr_ptrace, 16, 1, 0, 0) == 0 ? 0 : 1)'"
else
	ok "# SKIP ptrace: no perl or unknown ptrace number on $(uname -m)"
	ok "# SKIP ptrace: no perl or unknown ptrace number on $(uname -m)"
fi
attack "reading the init's memory" "head -c 1 /proc/1/mem >/dev/null"
attack "reading the init's environment" "cat /proc/1/environ >/dev/null"

# ---- TIOCSTI -------------------------------------------------------------
# A child that could push characters into the terminal's input would
# have the user's shell run them after vbox-exec ends.  The outer script
# injects "touch FILE" (through vbox-exec, or directly as a control) and
# then reads one line from the terminal and runs it.
if command -v script >/dev/null 2>&1 && command -v perl >/dev/null 2>&1 &&
	command -v timeout >/dev/null 2>&1; then
	cat >inject.pl <<'EOF'
for my $c (split //, $ARGV[0] . "\n") {
	ioctl(STDIN, 0x5412, $c) or do { print STDERR "TIOCSTI: $!\n"; exit 1 };
}
exit 0;
EOF
	cat >outer.sh <<EOF
#!/bin/sh
if [ "\$1" = sandbox ]; then
	"$VBOX_EXEC" "$P" -- perl "$workdir/inject.pl" "touch \$2"
else
	perl "$workdir/inject.pl" "touch \$2"
fi
echo "inject status \$?"
timeout --foreground 2 sh -c 'read -r l && eval "\$l"'
EOF
	chmod +x outer.sh
	script -qec "$workdir/outer.sh control $workdir/ctl" /dev/null \
		</dev/null >tty.ctl 2>&1 || :
	script -qec "$workdir/outer.sh sandbox $workdir/pwned" /dev/null \
		</dev/null >tty.out 2>&1 || :
	if [ -e "$workdir/pwned" ]; then
		not_ok "TIOCSTI from the sandbox: the injected command ran"
		sed 's/^/#   /' tty.out
	elif ! grep -q 'inject status' tty.ctl tty.out; then
		ok "# SKIP TIOCSTI: script could not run a terminal:" \
			"$(head -n 1 tty.out)"
	elif [ -e "$workdir/ctl" ]; then
		ok "TIOCSTI from the sandbox fails (it works outside: control)"
	else
		ok "TIOCSTI from the sandbox fails (this kernel refuses it" \
			"everywhere: dev.tty.legacy_tiocsti=0?)"
	fi
else
	ok "# SKIP TIOCSTI: needs script, perl and timeout for a terminal"
fi

# ---- the plan ------------------------------------------------------------
attack "appending to the plan file" "echo x >>'$P'"
attack "truncating the plan file" ": >'$P'"
attack "removing the plan file" "rm -f '$P'"
attack "renaming the plan file" "mv '$P' '$S/plan.bin'"
attack "replacing the plan file by a rename" \
	"cp '$P' '$S/p2' && mv '$S/p2' '$P'"
attack "chmod of the plan file" "chmod 666 '$P'"

# ---- environment ---------------------------------------------------------
rc=0
env VBOX_TEST_SECRET_TOKEN="SECRET-ENV-$tag" \
	VBOX_TEST_PASSWORD="SECRET-ENV-$tag" \
	"$VBOX_EXEC" "$P" -- sh -c 'env; cat /proc/self/environ;
cat /proc/1/environ 2>&1; cat /proc/1/cmdline; ps e 2>&1; exit 0' \
	>out 2>&1 || rc=$?
cat out >>all-output
if [ "$rc" -eq 0 ] && ! grep -q "SECRET-ENV" out; then
	ok "a secret variable is visible nowhere inside (env, /proc)"
else
	not_ok "a secret variable is visible nowhere inside (exit $rc)"
	grep SECRET-ENV out | sed 's/^/#   /' | head -n 5
fi
env VBOX_TEST_SECRET_TOKEN="SECRET-ENV-$tag" "$VBOX_EXEC" --dry-run "$P" \
	-- true >out 2>&1
check "... nor in the --dry-run line" sh -c '! grep -q SECRET-ENV out'

# ---- network -------------------------------------------------------------
if [ -x "$VBOX_PROBE" ]; then
	"$VBOX_PROBE" listen "$workdir/port" &
	listener=$!
	_i=0
	while [ ! -s "$workdir/port" ] && [ $_i -lt 100 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	port=$(cat "$workdir/port" 2>/dev/null || echo 1)
	"$VBOX_PROBE" net "127.0.0.1:$port" >out 2>&1 || :
	has_listener=$(awk '{ print $3 }' out)
	"$VBOX_EXEC" "$P" -- "$VBOX_PROBE" net "127.0.0.1:$port" >out 2>&1 ||
		:
	printf '@default net open\n[fs]\nrw: %s\n' "$S" >open.rules
	"$VBOXC" compile --target=linux --emit=plan -o open.plan open.rules
	"$VBOX_EXEC" open.plan -- "$VBOX_PROBE" net "127.0.0.1:$port" \
		>open.out 2>&1 || :
	kill "$listener" 2>/dev/null || :
	wait "$listener" 2>/dev/null || :
	if [ "$has_listener" = allow ] &&
		[ "$(awk '{ print $3 }' out)" = deny ]; then
		ok "a host loopback listener is unreachable (deny posture)"
	else
		not_ok "a host loopback listener is unreachable" \
			"(host: $has_listener)"
		sed 's/^/#   /' out
	fi
	is "$(awk '{ print $3 }' open.out)" allow \
		"... and reachable under @default net open (host network)"
else
	ok "# SKIP network: no probe binary at $VBOX_PROBE"
	ok "# SKIP network: no probe binary at $VBOX_PROBE"
fi

# ---- the plan's other names ---------------------------------------------
# (outside $T, which the host-side snapshot covers; open to uid 65534)
A=$workdir/names
mkdir -p "$A/w" "$A/z" "$A/ro"
chmod 755 "$workdir" "$A" "$A/w"
# a second name of the plan file (a hard link) could be written wherever
# the policy lets the sandbox write it: the plan is refused, naming that,
# as root and as an ordinary user
# (a plan of its own: the attacks' plan makes placeholders in $T, which
# uid 65534 may not)
printf '[fs]\nro: %s\n' "$A" >two.rules
"$VBOXC" compile --target=linux --emit=plan -o "$A/w/two.bin" two.rules
chmod 644 "$A/w/two.bin"
ln "$A/w/two.bin" "$A/two-again.bin"
set_users
for who in $users; do
	run as_user "$who" "$VBOX_EXEC" "$A/w/two.bin" -- true
	is "$rc" 125 \
		"$who: a plan file with two names (a hard link) is refused (125)"
	check "$who: ... saying how many names and why" \
		grep -q "plan file '.*two.bin' has 2 names (hard links): a sandbox" \
		"$workdir/err"
done
# ... unless its file system is read-only (root: a read-only bind mount)
if [ "$(id -u)" -eq 0 ] && mount --bind "$A/w" "$A/ro" 2>/dev/null; then
	trap 'umount "$A/ro" 2>/dev/null; rm -rf "$workdir"' EXIT
	if mount -o remount,bind,ro "$A/ro" 2>/dev/null; then
		run "$VBOX_EXEC" "$A/ro/two.bin" -- true
		is "$rc" 0 "... and runs from a read-only file system"
	else
		ok "# SKIP a read-only bind mount: remount refused here"
	fi
	umount "$A/ro"
	trap 'rm -rf "$workdir"' EXIT
else
	ok "# SKIP a plan with two names on a read-only file system: needs" \
		"root and mount --bind"
fi
rm "$A/two-again.bin"
for who in $users; do
	run as_user "$who" "$VBOX_EXEC" "$A/w/two.bin" -- true
	is "$rc" 0 "$who: ... and runs once its other name is gone"
done
# One of the plan's directories bound elsewhere on the host, and a row
# that makes that other place read-only: the same inode under another
# path, which once let the launcher take the plan for read-only and
# leave it writable under its writable root (root only: a bind mount).
if [ "$(id -u)" -eq 0 ] && mount --bind "$A/w" "$A/z" 2>/dev/null; then
	trap 'umount "$A/z" 2>/dev/null; rm -rf "$workdir"' EXIT
	printf '[fs]\nrw: %s\n!ro: %s\n' "$A" "$A/z" >names.rules
	"$VBOXC" compile --target=linux --emit=plan -o "$A/w/alias.bin" \
		names.rules
	sum=$(cksum <"$A/w/alias.bin")
	run "$VBOX_EXEC" "$A/w/alias.bin" -- sh -c "echo x >>'$A/w/alias.bin'"
	check "a row on another path of the plan's directory: writing it fails" \
		[ "$rc" -ne 0 ]
	is "$(cksum <"$A/w/alias.bin")" "$sum" \
		"... and on the host the plan is unchanged"
	umount "$A/z"
	trap 'rm -rf "$workdir"' EXIT
else
	ok "# SKIP the plan's directory bound elsewhere: needs root and" \
		"mount --bind"
	ok "# SKIP the plan's directory bound elsewhere: needs root and" \
		"mount --bind"
fi

# ---- host side -----------------------------------------------------------
snapshot >after
if cmp -s before after; then
	ok "host side: every protected file, mode, link count and the plan" \
		"unchanged"
else
	not_ok "host side: the protected state is unchanged"
	diff -u before after | sed 's/^/#   /'
fi
check "host side: the denied-but-absent path is still absent" \
	test ! -e "$T/rw/absent" -a ! -L "$T/rw/absent"
check "host side: no output of any attack held a secret" \
	sh -c '! grep -q SECRET- all-output'
check "host side: the secret files still hold their secrets" \
	grep -q "SECRET-FILE-$tag" "$T/rw/secret.txt"

done_testing
