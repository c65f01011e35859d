#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_bigtable.sh - large tables and impatient users,
# against the real bubblewrap (issue: launches that stay linear, a
# registry lock with a bound, signals in every phase):
#
#   - launch warnings of one reason are folded: three rows named, then
#     "... and N more rows"; --log names every row;
#   - a launch waiting for the placeholder registry says so after a
#     second, naming the holder, counts the wait in --timeout (124) and
#     ends at SIGTERM or SIGINT;
#   - SIGTERM, SIGINT and SIGHUP end a launch of a large table while it
#     loads the plan, instantiates it and makes placeholders; it exits
#     128 + the signal, says so, and leaves nothing on the host: no
#     placeholder, no created writable root, no registry entry.
#
# Timing is not judged here (bench/README.md does); each launch has a
# bound only so that a hang fails.  The launches run as uid 65534 with a
# registry of their own ($XDG_RUNTIME_DIR), so that holding its lock
# stalls no other test.  The phase a signal lands in is found in the
# --log stream: it is sent when the line that ends the phase before
# appears.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
[ "$(id -u)" = 0 ] || skip_all "needs root (the launches run as uid 65534)"
nobody_can_run || skip_all "$nobody_why"
command -v setpriv >/dev/null 2>&1 || skip_all "no setpriv"
command -v flock >/dev/null 2>&1 || skip_all "no flock(1)"
command -v python3 >/dev/null 2>&1 || skip_all "no python3 (makes the tables)"

cd "$workdir"
chmod 755 "$workdir"
W=$workdir/w
XDG=$workdir/xdg
mkdir -p "$W" "$XDG"
chown 65534:65534 "$W" "$XDG"
chmod 700 "$XDG"
REG=$XDG/vbox/placeholders
bg=
holder=
trap '[ -z "$bg" ] || kill -KILL "$bg" 2>/dev/null || :
[ -z "$holder" ] || kill -KILL "$holder" 2>/dev/null || :
rm -rf "$workdir"' EXIT

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/launch/process_lib.sh"
AS="setpriv --reuid=65534 --regid=65534 --clear-groups -- $defaults"
ENV="env XDG_RUNTIME_DIR=$XDG"

# table FILE N SHAPE - N rows: "warn" (writable roots that do not exist
# and cannot be made), "holes" (deny and ro of absent paths in the
# writable $W: a placeholder each), "absent" (a writable root that does
# not exist and may not be made, ro and deny rows below it: the shape of
# the issue's measurement; a warning, no placeholder)
table() {
	python3 - "$1" "$2" "$3" "$W" <<'EOF'
import sys
out, n, shape, w = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
with open(out, "w") as f:
    f.write("[fs]\n")
    if shape == "warn":
        for i in range(n):
            f.write(f"rw: {w}/absent/nowrite/d{i}\n")
        f.write(f"ro: {w}/absent\n")
    elif shape == "holes":
        f.write(f"rw: {w}/**\n")
        for i in range(n):
            f.write(f"!deny: {w}/d{i}/secret\n" if i % 2 else
                    f"!ro: {w}/r{i}\n")
    else:
        f.write(f"rw: {w}/absent/sub\n")
        for i in range(n):
            f.write(f"!deny: {w}/absent/sub/d{i}/secret\n" if i % 2 else
                    f"!ro: {w}/absent/sub/r{i}\n")
EOF
	"$VBOXC" compile --target=linux --emit=plan -o "${1%.rules}.plan" "$1" \
		2>compile.err || {
		not_ok "compile $1"
		sed 's/^/#   /' compile.err
	}
	chmod 644 "${1%.rules}.plan"
}

# ---- warnings folded -------------------------------------------------------
table warn.rules 50 warn
run $AS $ENV "$VBOX_EXEC" warn.plan -- true
is "$rc" 0 "a table of 50 missing writable roots launches"
is "$(grep -c '^vbox-exec: warning: ' err)" 4 \
	"its 50 warnings of one reason are 4 lines"
check "... the first three rows named, in table order" \
	sh -c "sed -n 1,3p '$workdir/err' | grep -c \"row [012] 'rw:\" | grep -qx 3"
check "... then how many more" \
	grep -q '^vbox-exec: warning: \.\.\. and 47 more rows of which the same is said (--log names each)$' err
run $AS $ENV "$VBOX_EXEC" --log warn.plan -- true
is "$(grep -c "^vbox-exec: warning: row [0-9]* 'rw:" err)" 50 \
	"--log names every row"
# four of one reason: all four named, no line that would hide one
table warn4.rules 4 warn
run $AS $ENV "$VBOX_EXEC" warn4.plan -- true
is "$(grep -c "^vbox-exec: warning: row [0-3] 'rw:" err)" 4 \
	"4 warnings of one reason: all 4 rows named"
is "$(grep -c 'more rows of which' err)" 0 "... and no fold line"

# ---- the registry's lock ---------------------------------------------------
table hole.rules 2 holes
# the registry exists once a launch made it
run $AS $ENV "$VBOX_EXEC" hole.plan -- true
is "$rc" 0 "a launch with placeholders runs (and makes the registry)"
check "the registry is where XDG_RUNTIME_DIR says" test -e "$REG/.lock"

# wait_exec - wait until $bg is vbox-exec itself: a signal must reach it,
# not setpriv or env before it (which may still ignore it: a background
# job of a non-interactive shell starts with SIGINT ignored)
VBOX_EXEC_REAL=$(readlink -f "$VBOX_EXEC")
wait_exec() {
	_i=0
	while [ "$(readlink "/proc/$bg/exe" 2>/dev/null)" != "$VBOX_EXEC_REAL" ] &&
		[ $_i -lt 2000 ]; do
		sleep 0.005
		_i=$((_i + 1))
	done
}

# wait_line PATTERN - wait (up to 20 s) until the launch's stderr (err)
# has a line matching PATTERN
wait_line() {
	_i=0
	while ! grep -q "$1" err 2>/dev/null && [ $_i -lt 2000 ]; do
		sleep 0.01
		_i=$((_i + 1))
	done
}

# signum NAME - the number of signal NAME
signum() {
	case $1 in
	HUP) echo 1 ;;
	INT) echo 2 ;;
	TERM) echo 15 ;;
	*) echo 0 ;;
	esac
}

# hold_lock - a process of uid 65534 holds the registry's lock, having
# written its pid into it (as a launch does)
hold_lock() {
	rm -f "$XDG/held"
	$AS sh -c "echo \$\$ > '$REG/.lock'; exec flock '$REG/.lock' \
		sh -c 'echo > $XDG/held; exec sleep 60'" &
	holder=$!
	wait_for "$XDG/held" || not_ok "the lock holder never got the lock"
}

release_lock() {
	kill -KILL "$holder" 2>/dev/null || :
	wait "$holder" 2>/dev/null || :
	holder=
}

# nothing_left DESC - no placeholder and no registry entry is left
nothing_left() {
	_left=$(find "$W" -mindepth 1 -maxdepth 1 ! -name 'absent' | head -3)
	_reg=$(find "$REG" -name '*.lock' ! -name '.lock' 2>/dev/null | head -3)
	if [ -z "$_left$_reg" ]; then
		ok "$1: nothing left on the host"
	else
		not_ok "$1: nothing left on the host"
		echo "$_left $_reg" | sed 's/^/#   left: /'
	fi
}

hold_lock
t0=$(date +%s)
$AS $ENV "$VBOX_EXEC" --timeout=2 hole.plan -- true 2>err &
bg=$!
bound=30
launch_wait
t1=$(date +%s)
is "$rc" 124 "--timeout=2 ends a launch that waits for the registry (124)"
check "... within 6 s ($((t1 - t0)) s)" test $((t1 - t0)) -le 6
check "... it said what it waited for, naming the holder" \
	grep -q "^vbox-exec: waiting for the placeholder registry, held by pid $holder (another launch of this user; $REG)\$" err
check "... and why it ended" \
	grep -q "timeout passed while waiting for the placeholder registry" err
nothing_left "--timeout during the wait"

for sig in TERM INT; do
	rm -f err
	$AS $ENV "$VBOX_EXEC" --timeout=60 hole.plan -- true 2>err &
	bg=$!
	wait_exec
	wait_line "waiting for the placeholder registry"
	kill -"$sig" "$bg"
	launch_wait
	want=$((128 + $(signum "$sig")))
	is "$rc" "$want" "SIG$sig during the wait for the registry ends the launch ($want)"
	check "... saying so" grep -q "the launch ended before the command ran" err
	nothing_left "SIG$sig during the wait"
done
release_lock

run $AS $ENV "$VBOX_EXEC" hole.plan -- true
is "$rc" 0 "once the lock is free, the launch runs"
nothing_left "after the launch"

# ---- signals in every phase -------------------------------------------------
# signal_at SIG LINE PLAN DESC - launch PLAN with --log; when LINE (a
# pattern) appears in its log, send SIG; it must end with 128 + SIG
# before the command ran and leave nothing.  An empty LINE: as soon as
# vbox-exec runs (it then loads the plan, or has just begun to
# instantiate it).
signal_at() {
	_sig=$1 _line=$2 _plan=$3 _desc=$4
	rm -f err
	$AS $ENV "$VBOX_EXEC" --log "$_plan" -- true 2>err &
	bg=$!
	wait_exec
	[ -z "$_line" ] || wait_line "$_line"
	kill -"$_sig" "$bg"
	launch_wait
	_want=$((128 + $(signum "$_sig")))
	if [ "$rc" = "$_want" ]; then
		ok "SIG$_sig $_desc ends the launch ($_want)"
	elif [ "$rc" = 0 ]; then
		# the phase ended before the signal came: nothing judged
		not_ok "SIG$_sig $_desc: the launch ran to its end first (table too small for this machine?)"
	else
		not_ok "SIG$_sig $_desc ends the launch (exit $rc, want $_want)"
		tail -3 err | sed 's/^/#   /'
	fi
	check "... before the command ran" sh -c "! grep -q 'stage: sandbox start' '$workdir/err'"
	nothing_left "SIG$_sig $_desc"
}

table load.rules 100000 absent
signal_at TERM "" load.plan "while the plan of 100,000 rows loads"
signal_at INT "stage: plan load took" load.plan "while 100,000 rows are instantiated"
table many.rules 5000 holes
signal_at HUP "^vbox-exec: .*pinned " many.plan "while 5,000 placeholders are made"

done_testing
