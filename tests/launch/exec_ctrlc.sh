#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_ctrlc.sh - a terminal's signals work as they do
# without vbox: SIGINT and SIGQUIT to vbox-exec reach the command's whole
# process group in the sandbox, so a shell script ends with its current
# child and a pipeline with all its members; a program that catches
# SIGINT answers it its own way; SIGTSTP stops the command's group and
# vbox-exec, SIGCONT continues both.  In namespace and container mode,
# as root and as uid 65534, against the real bubblewrap; every process
# is judged from the host by PID.
#
# vbox-exec runs in a session of its own (setsid), so only the signals
# the test sends to it reach the sandbox: what reaches the command's
# other processes came through vbox-exec.  A command here waits 60 s if
# the signal does not reach it; the bound on a launch that should end
# at once is 15 s (launches here take well under 1 s), so a forward
# that reaches the command's process only fails.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
[ -r /proc/self/stat ] || skip_all "no /proc to check processes by PID"
command -v bash >/dev/null 2>&1 || skip_all "no bash (its scripts are tested)"

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/launch/process_lib.sh"
process_plan

reset() {
	rm -f "$W/ready" "$W/got" "$W/after" "$W/count"
}

# A script whose current child is a long sleep, as in a terminal.
cat >"$W/child.sh" <<EOF
#!/bin/sh
echo > $W/ready
sleep 60
echo after > $W/after
EOF
chmod 755 "$W/child.sh"

# state PID - the state letter of PID (R, S, T, Z ...), or "gone"
state() {
	_l=$(cat "/proc/$1/stat" 2>/dev/null) || {
		echo gone
		return
	}
	_l=${_l##*) }
	echo "${_l%% *}"
}

# wait_state PID LETTER - wait up to 10 s until PID is in state LETTER
wait_state() {
	_i=0
	while [ "$(state "$1")" != "$2" ] && [ $_i -lt 200 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	[ "$(state "$1")" = "$2" ]
}

# start MODE CMD... - vbox-exec in a session of its own, in the
# background ($bg), as $who
start() {
	_mode=$1
	shift
	reset
	# shellcheck disable=SC2086 # $asu, $defaults: command prefixes
	$asu $defaults setsid "$VBOX_EXEC" --mode="$_mode" "$P" -- "$@" \
		2>err &
	bg=$!
	settle
}

# ended DESC WANT_RC - the launch ended at once with WANT_RC, and nothing
# of its tree (recorded in ./tree) is left
ended() {
	bound=15
	launch_wait
	bound=120
	is "$rc" "$2" "$1"
	gone "... and nothing of its tree is left" tree 5
}

ctrlc_as() {
	who=$1
	mode=$2
	asu=
	[ "$who" = root ] ||
		asu="setpriv --reuid=65534 --regid=65534 --clear-groups --"
	tag="$who, $mode mode"

	start "$mode" sh "$W/child.sh"
	tree_of "$bg" >tree
	kill -INT "$bg"
	ended "$tag: SIGINT ends a script and its current child (130)" 130
	check "$tag: ... the script did not go on past its child" \
		test ! -e "$W/after"

	# bash, unlike dash, lets the child it waits for answer SIGINT
	# first: only a signal to the whole group ends it at once.
	start "$mode" bash "$W/child.sh"
	tree_of "$bg" >tree
	kill -INT "$bg"
	ended "$tag: SIGINT ends a bash script and its current child (130)" 130
	check "$tag: ... bash did not go on past its child" \
		test ! -e "$W/after"

	start "$mode" sh -c "echo > $W/ready; sleep 60 | cat; \
		echo after > $W/after"
	tree_of "$bg" >tree
	kill -INT "$bg"
	ended "$tag: SIGINT ends every member of a pipeline (130)" 130
	check "$tag: ... the shell did not go on" test ! -e "$W/after"

	start "$mode" sh -c "trap 'echo caught > $W/got; exit 3' INT; \
		echo > $W/ready; sleep 60; echo after > $W/after"
	tree_of "$bg" >tree
	kill -INT "$bg"
	ended "$tag: a program that catches SIGINT answers it (its exit 3)" 3
	is "$(cat "$W/got" 2>/dev/null)" caught \
		"$tag: ... its handler ran, once the child it waited for ended"

	start "$mode" sh "$W/child.sh"
	tree_of "$bg" >tree
	kill -QUIT "$bg"
	ended "$tag: SIGQUIT ends a script and its current child (131)" 131

	# Job control: a counter that stops with vbox-exec and goes on
	# after SIGCONT.
	start "$mode" sh -c "i=0; echo > $W/ready; while :; do \
		i=\$((i + 1)); echo \$i > $W/count; sleep 0.05; done"
	tree_of "$bg" >tree
	kill -TSTP "$bg"
	if wait_state "$bg" T; then
		ok "$tag: SIGTSTP stops vbox-exec, as a job's process"
	else
		not_ok "$tag: SIGTSTP stops vbox-exec (state $(state "$bg"))"
	fi
	sleep 0.3
	c1=$(cat "$W/count")
	sleep 0.5
	c2=$(cat "$W/count")
	is "$c2" "$c1" "$tag: ... and the command's group: its counter stands"
	kill -CONT "$bg"
	if wait_state "$bg" S; then
		ok "$tag: SIGCONT continues vbox-exec"
	else
		not_ok "$tag: SIGCONT continues vbox-exec (state $(state "$bg"))"
	fi
	_i=0
	while [ "$(cat "$W/count")" = "$c2" ] && [ $_i -lt 200 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	check "$tag: ... and the command's group: its counter goes on" \
		test "$(cat "$W/count")" != "$c2"
	kill -TERM "$bg"
	ended "$tag: SIGTERM then ends it (143)" 143
}

# what the unprivileged run needs: the plan, and W to write in
chmod 755 "$workdir"
chmod 644 "$P"
chmod 777 "$W"
set_users
for u in $users; do
	for m in ns container; do
		ctrlc_as "$u" "$m"
	done
done

done_testing
