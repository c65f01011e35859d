#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_process.sh - vbox-exec's process management against the
# real bubblewrap: SIGINT, SIGTERM, SIGHUP and SIGQUIT are forwarded to
# the command; a signal to vbox-exec's whole process group (a terminal's
# Ctrl-C) reaches the command once; and --timeout, SIGTERM to vbox-exec,
# SIGKILL to vbox-exec and a command that exits while daemons of its own
# still run leave nothing behind, as root and as uid 65534.  "Nothing"
# is checked on the host side by PID: every process of the tree
# (vbox-exec, bubblewrap, the sandbox's init, the command and what it
# started, sessions of their own included) is recorded with its start
# time while it runs, and none of them may exist afterwards, not even as
# a zombie.
#
# Every launch the test waits for has a bound (launch_wait, timeout):
# a launch that hangs fails its test instead of the suite.  The signals
# the test sends go back to their default action first (defaults), so
# a suite started with them ignored (nohup, some CI runners) still runs.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
[ -r /proc/self/stat ] || skip_all "no /proc to check processes by PID"

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/launch/process_lib.sh"
process_plan

reset() {
	rm -f "$W/ready" "$W/go" "$W/got" "$W/ints"
}

# A tree with a daemon in a session of its own and a double fork.
TREE='sleep 300 & setsid sleep 301 & (sleep 302 &); echo > '"$W/ready"

# ---- forwarding ----------------------------------------------------------
# processes_as WHO - the tests above and below as WHO: root, or uid
# 65534 (the launch through setpriv, which execs: $bg stays vbox-exec's
# pid); every process is still judged from the host, by PID
processes_as() {
	who=$1
	asu=
	[ "$who" = root ] ||
		asu="setpriv --reuid=65534 --regid=65534 --clear-groups --"
	for sig in INT TERM HUP QUIT; do
		reset
		# shellcheck disable=SC2086 # $asu, $defaults: command prefixes
		$asu $defaults "$VBOX_EXEC" "$P" -- sh -c "trap 'echo $sig >$W/got; \
	exit 7' $sig; echo >$W/ready; while :; do sleep 0.05; done" 2>err &
		bg=$!
		settle
		kill -"$sig" "$bg"
		launch_wait
		if [ "$rc" -eq 7 ] && [ "$(cat "$W/got" 2>/dev/null)" = "$sig" ]; then
			ok "$who: SIG$sig to vbox-exec is forwarded to the command"
		else
			not_ok "$who: SIG$sig to vbox-exec is forwarded (exit $rc)"
			sed 's/^/#   /' err
		fi
	done

	reset
	# shellcheck disable=SC2086 # $asu, $defaults: command prefixes
	$asu $defaults setsid "$VBOX_EXEC" "$P" -- sh -c "trap 'echo int >> $W/ints' INT; \
	echo > $W/ready; while [ ! -e $W/go ]; do sleep 0.05; done" 2>err &
	bg=$!
	settle
	kill -INT "-$bg"
	sleep 0.5
	touch "$W/go"
	launch_wait
	is "$rc:$(cat "$W/ints" 2>/dev/null)" "0:int" \
		"$who: SIGINT to vbox-exec's process group reaches the command once"

	reset
	$asu $defaults "$VBOX_EXEC" --timeout=3 "$P" -- sh -c "trap '' TERM; \
	echo > $W/ready; while :; do sleep 0.05; done" 2>err &
	bg=$!
	settle
	kill -TERM "$bg"
	launch_wait
	is "$rc" 124 "$who: a command ignoring a forwarded SIGTERM runs on, until --timeout"

	# ---- nothing left behind -------------------------------------------------
	reset
	t0=$(date +%s)
	$asu $defaults "$VBOX_EXEC" --timeout=2 "$P" -- sh -c "trap '' TERM; $TREE; wait" 2>err &
	bg=$!
	settle
	tree_of "$bg" >tree
	launch_wait
	t1=$(date +%s)
	is "$rc" 124 "$who: --timeout exits 124"
	check "$who: ... within timeout + grace ($((t1 - t0)) s)" test $((t1 - t0)) -le 8
	check "$who: ... the tree had its processes" test "$(wc -l <tree)" -ge 6
	gone "$who: --timeout leaves no process behind" tree

	reset
	$asu $defaults "$VBOX_EXEC" "$P" -- sh -c "$TREE; wait" 2>err &
	bg=$!
	settle
	tree_of "$bg" >tree
	kill -TERM "$bg"
	launch_wait
	is "$rc" 143 "$who: SIGTERM to vbox-exec: the command dies of it (143)"
	gone "$who: SIGTERM to vbox-exec leaves no process behind" tree

	reset
	$asu $defaults "$VBOX_EXEC" "$P" -- sh -c "$TREE; wait" 2>err &
	bg=$!
	settle
	tree_of "$bg" >tree
	kill -KILL "$bg"
	launch_wait
	is "$rc" 137 "$who: SIGKILL to vbox-exec kills it"
	gone "$who: SIGKILL to vbox-exec leaves no process behind (within 5 s)" tree 5

	reset
	$asu $defaults "$VBOX_EXEC" "$P" -- sh -c "$TREE; \
	while [ ! -e $W/go ]; do sleep 0.05; done; exit 4" 2>err &
	bg=$!
	settle
	tree_of "$bg" >tree
	touch "$W/go"
	launch_wait
	is "$rc" 4 "$who: a command that exits keeps its status"
	gone "$who: ... and the daemons it left are gone when vbox-exec exits" tree

	reset
	$asu $defaults "$VBOX_EXEC" "$P" -- sh -c "sleep 300 & exec sleep 0.2" 2>err &
	bg=$!
	tree_of "$bg" >tree
	sleep 0.1
	tree_of "$bg" >>tree
	launch_wait
	is "$rc" 0 "$who: a short command exits 0"
	gone "$who: ... and leaves nothing" tree
}

# what the unprivileged run needs: the plan, and W to write in (for
# both: the sandbox's root has no capability over another uid's files)
chmod 755 "$workdir"
chmod 644 "$P"
chmod 777 "$W"
set_users
for u in $users; do
	processes_as "$u"
done

# bubblewrap is started off vbox-exec's processor (process.c), which
# must not narrow the processors the command may run on
mine=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
run timeout -k 10 "$bound" "$VBOX_EXEC" "$P" -- sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' \
	/proc/self/status
is "$(cat "$workdir/out")" "$mine" "the command may run on the processors vbox-exec may ($mine)"
if command -v taskset >/dev/null 2>&1; then
	first=$(printf '%s\n' "$mine" | sed 's/[-,].*//')
	run timeout -k 10 "$bound" taskset -c "$first" "$VBOX_EXEC" "$P" -- \
		sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status
	is "$(cat "$workdir/out")" "$first" "... and no more: started on processor $first alone, it stays there"
else
	ok "# SKIP no taskset"
fi

done_testing
