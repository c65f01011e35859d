#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_init_mounts.sh - a plan whose tail of mounts is long (here
# 40 launch-class rows) has them made by the sandbox's init instead of
# bubblewrap (doc/launcher.md, "Mounts in the init").  The sandbox must be
# the same one bubblewrap would have built, and the init must leave no
# power behind: every hole holds (checked from the host side), the
# command runs as the caller's uid and gid with no capability, cannot make
# a user namespace, and a working directory inside a hole is seen through
# the hole.  As root, and again as an unprivileged uid when the suite
# runs as root.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher

# Everything below must be reachable by the unprivileged uid too.
chmod 755 "$workdir"
W=$workdir/w
mkdir -p "$W"
cd "$workdir"
{
	echo "[fs]"
	echo "rw: $W"
	i=0
	while [ "$i" -lt 20 ]; do
		mkdir "$W/d$i"
		echo "inside $i" >"$W/d$i/file"
		echo "secret $i" >"$W/f$i"
		echo "!ro: $W/d$i"
		echo "!deny: $W/f$i"
		i=$((i + 1))
	done
} >p.rules
chmod -R a+rwX "$W"
"$VBOXC" compile --target=linux --emit=plan -o p.plan p.rules
chmod 644 p.plan
P=$workdir/p.plan

set_users

host_userns_limit=$(cat /proc/sys/user/max_user_namespaces)
for who in $users; do
	want_uid=$(as_user "$who" id -u)
	want_gid=$(as_user "$who" id -g)
	run as_user "$who" "$VBOX_EXEC" --log "$P" -- sh -c '
		echo "uid $(id -u) gid $(id -g)"
		grep "^Cap" /proc/self/status | sort
		cat '"$W"'/d3/file
		echo written >'"$W"'/d3/new || echo "ro hole holds"
		cat '"$W"'/f7 || echo "deny hole holds"
		echo written >'"$W"'/f7 || echo "deny hole is read-only"
		echo fine >'"$W"'/new-'"$who"'
		unshare -U true || echo "no user namespace"
		(: >/proc/sys/kernel/hostname) 2>/dev/null || echo "sysctl read-only"
	'
	is "$rc" 0 "$who: the command runs"
	if [ "$who" = root ]; then
		# A root-started sandbox also gets the kernel-state wall's
		# /proc binds: the init makes them after its own write to
		# /proc/sys/user, so the count depends on the host's /proc.
		check "$who: the init made the mounts (kernel-state wall too)" \
			grep -q "the sandbox's init makes [0-9]* mounts (bubblewrap 1)" err
		check "$who: ... /proc/sys read-only in the sandbox" \
			grep -qx "sysctl read-only" out
	else
		# 44: the denied files' /dev/null covers are the init's
		# own, cloned read-only and checked when attached, so none
		# gets the read-only remount a cover bubblewrap made gets
		# at the end of the list (initsplit.c).
		check "$who: the init made the mounts, /dev and /proc too" \
			grep -q "the sandbox's init makes 44 mounts (bubblewrap 1)" err
	fi
	check "$who: the caller's uid and gid" \
		grep -qx "uid $want_uid gid $want_gid" out
	is "$(grep -c '^Cap[A-Za-z]*:.0000000000000000$' out)" 5 \
		"$who: no capability in any set"
	check "$who: the read-only hole is readable" grep -qx "inside 3" out
	check "$who: ... and read-only" grep -qx "ro hole holds" out
	check "$who: ... on the host too" test ! -e "$W/d3/new"
	check "$who: the denied file is unreadable" grep -qx "deny hole holds" \
		out
	check "$who: ... and unwritable" grep -qx "deny hole is read-only" out
	is "$(cat "$W/f7")" "secret 7" "$who: ... unchanged on the host"
	is "$(cat "$W/new-$who" 2>/dev/null)" fine \
		"$who: the writable root is writable"
	check "$who: user namespaces are refused" \
		grep -qx "no user namespace" out
	# The init's limit is its own user namespace's, never the host's.
	is "$(cat /proc/sys/user/max_user_namespaces)" "$host_userns_limit" \
		"$who: host side: user.max_user_namespaces unchanged"

	# A working directory inside a hole is seen through the hole.
	run as_user "$who" "$VBOX_EXEC" -C "$W/d4" "$P" -- sh -c \
		'cat file; echo x >here || echo "cwd read-only"'
	is "$rc" 0 "$who: -C inside a hole runs"
	check "$who: ... and the hole holds there" grep -qx "cwd read-only" out
	check "$who: ... on the host too" test ! -e "$W/d4/here"
done

# The dry-run line cannot carry the init's setup: bubblewrap makes every
# mount there, and the line holds them all.
run "$VBOX_EXEC" --dry-run "$P" -- true
is "$rc" 0 "--dry-run works"
# (As root the kernel-state wall adds read-only binds below /proc: only
# the binds into the workspace are counted, 20 directories and 20 files.)
is "$(tr ' ' '\n' <out | awk -v w="$W" '
	f == 1 { f = 2; next }
	f == 2 { if (index($0, w "/") == 1) n++; f = 0; next }
	$0 == "--ro-bind" { f = 1 }
	END { print n + 0 }')" 40 \
	"... with every hole in the line"
check "... and no capability kept" sh -c '! grep -q -- "--cap-add" out'

done_testing
