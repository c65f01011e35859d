#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_init_devproc.sh - the sandbox's init makes bubblewrap's
# --dev and --proc itself where they commute with what bubblewrap keeps
# (doc/launcher.md, "Mounts in the init").  The /dev and /proc the
# command sees must be the ones bubblewrap builds: the same entries,
# types, modes, device numbers and link targets in /dev, the same mount
# options for every mount at or below /dev and for /proc and its covers,
# a working /dev/null, /dev/urandom and /dev/ptmx, /dev/console on a
# terminal, a /proc of the sandbox's own processes whose sysrq-trigger
# cannot be written.  Compared with bubblewrap itself building the same
# list, as root and again as an unprivileged uid when the suite runs as
# root.  A plan that mounts below /dev keeps --dev with bubblewrap.
# One deliberate difference: the device nodes are read-only mounts
# (bubblewrap binds them writable), so a child that owns the host's
# /dev/null (root) cannot chmod, chown or touch it; writing to them
# works as before.  Checked from the host, both where the init makes
# /dev and where bubblewrap keeps it.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher

chmod 755 "$workdir"
W=$workdir/w
mkdir -p "$W"
chmod 777 "$W"
cd "$workdir"
printf '[fs]\nrw: %s\n' "$W" >p.rules
"$VBOXC" compile --target=linux --emit=plan -o p.plan p.rules
printf '[fs]\nrw: %s\nrw: /dev/shm\n' "$W" >shm.rules
"$VBOXC" compile --target=linux --emit=plan -o shm.plan shm.rules
chmod 644 p.plan shm.plan

# What the command reports of /dev and /proc, sorted where bubblewrap
# and the init may differ in order only (mount order of siblings).
# /proc/sys is left out: as root the kernel-state wall binds it
# read-only, which bubblewrap alone does not (exec_walls.sh checks it).
# The process count is last: the init is one process more than
# bubblewrap alone.
cat >show.sh <<'EOF'
for f in /dev/* /dev/pts/*; do
	stat -c '%n %F %a %u %g %t:%T %N' "$f"
done
awk '$5 == "/dev" || $5 ~ /^\/dev\// || $5 == "/proc" ||
     $5 == "/proc/sysrq-trigger" ||
     $5 == "/proc/irq" || $5 == "/proc/bus" {
	split($0, h, " - "); split(h[2], t, " ")
	print "mount", $5, $6, t[1], t[3] }' /proc/self/mountinfo | sort
echo x >/dev/null && echo "null writable"
[ "$(head -c 16 /dev/urandom | wc -c)" = 16 ] && echo "urandom readable"
if (exec 3<>/dev/ptmx) 2>/dev/null; then echo "ptmx opens"; fi
if (echo x >/proc/sysrq-trigger) 2>/dev/null; then echo "SYSRQ WRITTEN"; fi
echo "processes $(ls /proc | grep -c '^[0-9]')"
EOF
chmod 644 show.sh

set_users

for who in $users; do
	run as_user "$who" "$VBOX_EXEC" --log p.plan -- sh show.sh
	is "$rc" 0 "$who: the command runs"
	cp out vbox.out
	check "$who: the init made --dev, --proc and the writable root (bubblewrap keeps 1)" \
		grep -q "the sandbox's init makes [0-9]* mounts (bubblewrap 1)" \
		err
	# bubblewrap alone, with the plan's own mounts in the same order.
	run as_user "$who" "$BWRAP" --new-session --die-with-parent \
		--unshare-user --unshare-pid --unshare-ipc --unshare-uts \
		--unshare-cgroup-try --unshare-net --as-pid-1 --cap-drop ALL \
		--ro-bind / / --dev /dev --proc /proc --bind "$W" "$W" \
		--remount-ro /dev -- sh "$workdir/show.sh"
	is "$rc" 0 "$who: the same list under bubblewrap alone runs"
	cp out bwrap.out
	# the nodes are read-only mounts where bubblewrap's are writable
	grep -v '^processes ' out | sed -E \
		's#^(mount /dev/(null|zero|full|random|urandom|tty|console)) rw,#\1 ro,#' \
		>bwrap.cmp
	grep -v '^processes ' vbox.out >vbox.cmp
	if diff -u bwrap.cmp vbox.cmp >diff.out; then
		ok "$who: /dev and /proc are bubblewrap's"
	else
		not_ok "$who: /dev and /proc are bubblewrap's"
		sed 's/^/# /' diff.out
	fi
	check "$who: ... /dev/null is writable" grep -qx "null writable" vbox.out
	check "$who: ... /dev/urandom is readable" \
		grep -qx "urandom readable" vbox.out
	check "$who: ... /dev/ptmx opens (a devpts of its own)" \
		grep -qx "ptmx opens" vbox.out
	check "$who: ... /proc/sysrq-trigger cannot be written" \
		sh -c '! grep -q SYSRQ vbox.out'
	check "$who: ... /proc shows the sandbox's processes only" \
		grep -qx "processes [1-5]" vbox.out
	check "$who: ... /dev/console only on a terminal" \
		sh -c '! grep -q "^/dev/console" vbox.out'
done

# The host's device nodes: no metadata change from inside (chmod to
# the mode they have: were it made, only their ctime would change).
# Container mode has no /dev of its own: its supervisor refuses them.
for plan in p shm p-container; do
	mode=
	[ "$plan" = p-container ] && mode=--mode=container
	for who in $users; do
		before=$(stat -c %Z /dev/full /dev/null /dev/pts | tr '\n' ' ')
		sleep 1.1	# a change would move the ctime's second
		run as_user "$who" "$VBOX_EXEC" $mode "${plan%-container}.plan" \
			-- sh -c 'chmod 0666 /dev/full; echo "chmod $?"; touch /dev/null; echo "touch $?"; chmod 0755 /dev/pts; echo "pts $?"; echo x >/dev/null && echo "written"'
		# (namespace mode's /dev/pts is a devpts of its own)
		pts=0
		[ "$plan" = p-container ] && pts=1
		is "$(tr '\n' ' ' <out)" "chmod 1 touch 1 pts $pts written " \
			"$who, $plan: chmod and touch of /dev/full and /dev/null fail, and of the host's /dev/pts; writing works"
		is "$(stat -c %Z /dev/full /dev/null /dev/pts | tr '\n' ' ')" "$before" \
			"$who, $plan: ... the host's nodes are unchanged (ctime)"
	done
done

# On a terminal bubblewrap binds it as /dev/console; so does the init.
if command -v script >/dev/null 2>&1; then
	script -qec "'$VBOX_EXEC' p.plan -- sh -c 'stat -Lc \"%F %t:%T\" \
/dev/console /proc/self/fd/1'" /dev/null >tty.out 2>&1 || :
	tr -d '\r' <tty.out >tty.txt
	is "$(sed -n 1p tty.txt)" "$(sed -n 2p tty.txt)" \
		"on a terminal: /dev/console is the terminal on fd 1"
	check "... a character device" grep -q "^character special file" \
		tty.txt
	# The terminal is the host's inode: fchmod on fd 0 must not make
	# it world-writable (the host's mode is read before and after).
	for who in $users; do
		run as_user "$who" script -qec "stat -c 'before %a' \$(tty); \
'$VBOX_EXEC' p.plan -- sh -c 'chmod 0666 /proc/self/fd/0 2>/dev/null; echo chmod \$?'; \
stat -c 'after %a' \$(tty)" /dev/null
		tr -d '\r' <out >tty2.txt
		is "$(sed -n 2p tty2.txt):$(sed -n 3p tty2.txt | cut -d' ' -f2)" \
			"chmod 1:$(sed -n 1p tty2.txt | cut -d' ' -f2)" \
			"$who, on a terminal: chmod of fd 0 fails, the host's terminal keeps its mode"
		# stdout redirected: the terminal stays on fds 0 and 2
		: >"$workdir/redir.out"
		chmod 666 "$workdir/redir.out"
		run as_user "$who" script -qec "stat -c 'before %a' \$(tty); \
'$VBOX_EXEC' p.plan -- sh -c 'chmod 0666 /proc/self/fd/0 2>/dev/null; echo chmod \$?' >$workdir/redir.out; \
stat -c 'after %a' \$(tty)" /dev/null
		tr -d '\r' <out >tty4.txt
		is "$(cat "$workdir/redir.out" 2>/dev/null):$(sed -n 2p tty4.txt | cut -d' ' -f2)" \
			"chmod 1:$(sed -n 1p tty4.txt | cut -d' ' -f2)" \
			"$who, on a terminal, stdout redirected: chmod of fd 0 fails, the terminal keeps its mode"
	done
	# A launch as another uid on root's terminal (su, sudo -u): the fd
	# works, the terminal cannot be opened again; the command runs.
	if [ "$users" = "root nobody" ]; then
		script -qec "setpriv --reuid 65534 --regid 65534 --clear-groups \
'$VBOX_EXEC' $workdir/p.plan -- sh -c 'echo child-ran'; echo rc=\$?" \
			/dev/null >tty3.out 2>&1 </dev/null || :
		check "as uid 65534 on root's terminal: the command runs" \
			sh -c 'tr -d "\r" <tty3.out | grep -qx child-ran &&
				tr -d "\r" <tty3.out | grep -qx rc=0'
	else
		ok "# SKIP needs root and uid 65534"
	fi
else
	ok "# SKIP no script(1) for a terminal"
	ok "# SKIP no script(1) for a terminal"
	for who in $users; do
		ok "# SKIP no script(1) for a terminal"
		ok "# SKIP no script(1) for a terminal"
	done
	ok "# SKIP no script(1) for a terminal"
fi

# A plan that mounts below /dev: --dev must stay first, with bubblewrap.
run "$VBOX_EXEC" --log shm.plan -- sh -c 'echo x >/dev/shm/vbox-t && \
rm /dev/shm/vbox-t && echo shm'
is "$rc" 0 "a plan with a mount below /dev runs"
check "... --dev stays with bubblewrap" \
	sh -c '! grep -q "init makes [0-9]* mounts (bubblewrap 1)" err'
check "... and its mount below /dev works" grep -qx shm out

# Host mounts and the writable root (as root, who can mount on the
# host).  A host mount below a writable root: bubblewrap carries it with
# the host's flags, so the root's bind stays with bubblewrap.  A
# writable root that is itself a read-only host mount: the init's bind
# stays read-only, as bubblewrap's would.
if [ "$(id -u)" = 0 ]; then
	S=$workdir/sub-root
	R=$workdir/ro-root
	mkdir -p "$S/m" "$R"
	if mount -t tmpfs -o size=1m vbox-test "$S/m" &&
	   mount -t tmpfs -o ro,size=1m vbox-test "$R"; then
		printf '[fs]\nrw: %s\nrw: %s\n' "$S" "$R" >m.rules
		"$VBOXC" compile --target=linux --emit=plan -o m.plan m.rules
		run "$VBOX_EXEC" --log m.plan -- sh -c "
			echo x >$S/m/f && echo 'submount writable'
			echo x >$S/f && echo 'root writable'
			(echo x >$R/f) 2>/dev/null || echo 'ro root read-only'"
		is "$rc" 0 "host mounts: the command runs"
		check "... a writable root with a host mount below it stays with bubblewrap" \
			sh -c '! grep -q "init makes [0-9]* mounts (bubblewrap 1)" err'
		check "... the host mount below it is writable, as bubblewrap makes it" \
			grep -qx "submount writable" out
		check "... host side: the file is there" test -f "$S/m/f"
		check "... the root itself is writable" grep -qx "root writable" out
		check "... a read-only host mount as a writable root stays read-only" \
			grep -qx "ro root read-only" out
	else
		for i in 1 2 3 4 5 6; do
			ok "# SKIP cannot mount a tmpfs on the host"
		done
	fi
	umount "$S/m" 2>/dev/null || :
	umount "$R" 2>/dev/null || :
else
	for i in 1 2 3 4 5 6; do
		ok "# SKIP host mounts need root"
	done
fi

done_testing
