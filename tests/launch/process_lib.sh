# SPDX-License-Identifier: MIT
# tests/launch/process_lib.sh - what exec_process.sh and exec_ctrlc.sh
# share: a bound on every launch they wait for, the processes of a tree
# recorded by PID and start time and checked from the host, and signals
# at their default action.  Sourced after tests/lib/lib.sh; uses $bg (the
# launch's pid) and the file err in the current directory.

# process_plan - in $workdir (the current directory from here on): W, a
# writable directory, and P, the plan "rw: W".  The tree's processes
# must not survive the test, the test's own must: a launch still running
# ($bg) is killed when the test ends.
process_plan() {
	W=$workdir/w
	mkdir -p "$W"
	cd "$workdir" || exit 1
	printf '[fs]\nrw: %s\n' "$W" >p.rules
	"$VBOXC" compile --target=linux --emit=plan -o p.plan p.rules
	P=$workdir/p.plan
	trap '[ -z "$bg" ] || kill -KILL "$bg" 2>/dev/null || :
rm -rf "$workdir"' EXIT
	bg=
}

# The bound on each launch (seconds): far above what any launch here
# takes, only there so a hang ends.
bound=120

# launch_wait - wait for the launch $bg, at most $bound s, then kill it
# (bubblewrap dies with it: --die-with-parent); its exit status in $rc.
# One that had to be killed is a failed test of its own.
launch_wait() {
	(
		timeout -s KILL "$bound" tail --pid="$bg" -s 0.1 \
			-f /dev/null &&
			exit 0
		kill -KILL "$bg"
		exit 3
	) >/dev/null 2>&1 &
	_watch=$!
	rc=0
	wait "$bg" || rc=$?
	_w=0
	wait "$_watch" || _w=$?
	if [ "$_w" -eq 3 ]; then
		not_ok "vbox-exec (pid $bg) ended within $bound s"
		sed 's/^/#   /' err 2>/dev/null || :
	fi
	bg=
}

# tree_of PID - "PID STARTTIME" of PID and all its descendants
tree_of() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$1" '
		{ pid = $1; sub(/^.*\) /, ""); pp[pid] = $2; st[pid] = $20 }
		END {
			inside[root] = 1
			for (more = 1; more;) {
				more = 0
				for (p in pp) {
					if ((p in inside) || !(pp[p] in inside))
						continue
					inside[p] = 1
					more = 1
				}
			}
			for (p in inside)
				if (p in st)
					print p, st[p]
		}'
}

# alive FILE - the processes of FILE ("PID STARTTIME" lines) that still
# exist, zombies included
alive() {
	while read -r _pid _start; do
		_l=$(cat "/proc/$_pid/stat" 2>/dev/null) || continue
		_l=${_l##*) }
		# shellcheck disable=SC2086 # split the fields on purpose
		set -- $_l
		[ "${20}" = "$_start" ] && echo "$_pid ($1)"
	done <"$1"
}

# wait_for FILE - wait up to 20 s for FILE to appear
wait_for() {
	_i=0
	while [ ! -e "$1" ] && [ $_i -lt 400 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	[ -e "$1" ]
}

# gone DESC FILE [SECONDS] - nothing of FILE is left, at once or, with
# SECONDS, within that long
gone() {
	_i=0
	_n=$((${3:-0} * 20))
	while [ -n "$(alive "$2")" ] && [ $_i -lt $_n ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	_left=$(alive "$2")
	if [ -z "$_left" ]; then
		ok "$1 ($(wc -l <"$2" | tr -d ' ') processes checked)"
	else
		not_ok "$1"
		echo "$_left" | sed 's/^/#   left: /'
	fi
}

# settle - wait (up to 20 s) until the command wrote $W/ready
settle() {
	if ! wait_for "$W/ready"; then
		echo "# the command never got ready"
		cat err 2>/dev/null | sed 's/^/#   /'
	fi
	sleep 0.2
}

# Started with default dispositions of every signal the test sends: a
# non-interactive shell starts background jobs with SIGINT and SIGQUIT
# ignored, nohup ignores SIGHUP, and vbox-exec keeps a signal ignored at
# start ignored (nohup semantics).
defaults=
if env --default-signal=INT true 2>/dev/null; then
	defaults="env --default-signal=INT,QUIT,HUP,TERM,TSTP,CONT"
elif command -v perl >/dev/null 2>&1; then
	defaults='perl -e $SIG{INT}=$SIG{QUIT}=$SIG{HUP}=$SIG{TERM}=$SIG{TSTP}=$SIG{CONT}=q(DEFAULT);exec@ARGV --'
else
	skip_all "cannot reset ignored signals (no env --default-signal, no perl)"
fi
