#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_explain_plan.sh - the hint after a refused launch is
# a command to paste (doc/launcher.md, "Saying why"): vbox-exec is given
# a plan by a relative path (in a directory with a blank in its name),
# the command reads a denied file and writes outside the writable roots;
# the command is copied from vbox-exec's own stderr, PATH replaced by the
# refused file, and run from another directory: it names the deciding
# row and its source.  Runs as the user the suite runs as.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
VBOXC=$(cd "$(dirname "$VBOXC")" && pwd)/$(basename "$VBOXC")
VBOX_EXEC=$(cd "$(dirname "$VBOX_EXEC")" && pwd)/$(basename "$VBOX_EXEC")

cd "$workdir"
mkdir -p srv/work srv/sec "my plans" elsewhere
echo secret >srv/sec/key
cat >"my plans/job.rules" <<EOF
rw: $workdir/srv/work
!deny: $workdir/srv/sec
EOF
"$VBOXC" compile --emit=plan -o "my plans/job.bin" "my plans/job.rules"

# pasted OP FILE - the hint's command from $workdir/err with --OP=FILE
# for PATH, run from elsewhere with vboxc first on PATH; its output in
# $workdir/answer.
pasted() {
	sed -n 's/.*this names the deciding row: \(vboxc explain .*\) --read=PATH (or --write=PATH)$/\1/p' \
		"$workdir/err" >"$workdir/cmd"
	[ -s "$workdir/cmd" ] || return 1
	(cd "$workdir/elsewhere" &&
		PATH=$(dirname "$VBOXC"):$PATH sh -c "$(cat "$workdir/cmd") --$1=$2") \
		>"$workdir/answer" 2>&1
}

run "$VBOX_EXEC" "my plans/job.bin" -- cat "$workdir/srv/sec/key"
check "a refused read: the command fails" [ "$rc" -ne 0 ]
check "the hint names the plan by its absolute path, quoted" \
	grep -q "vboxc explain '$workdir/my plans/job.bin' --read=PATH (or --write=PATH)\$" err
check "the hint's command, pasted, runs" pasted read "$workdir/srv/sec/key"
is "$(cat answer)" "read $workdir/srv/sec/key: deny by row 1 (deny, level 1) at job.rules:2:1" \
	"... and names the row that refused the read"

run "$VBOX_EXEC" "my plans/job.bin" -- sh -c "echo x >'$workdir/srv/out'"
check "a refused write: the command fails" [ "$rc" -ne 0 ]
check "the hint's command, pasted with --write, runs" \
	pasted write "$workdir/srv/out"
is "$(cat answer)" "write $workdir/srv/out: deny by default (@default write deny)" \
	"... and says the default refused the write"
run "$VBOX_EXEC" "my plans/job.bin" -- sh -c "echo x >'$workdir/srv/work/out'"
is "$rc:$(cat err)" "0:" "an allowed write: no hint"

# A plan read from a pipe is gone after the launch: the hint asks for the
# plan's file instead of naming /dev/stdin.
cat "my plans/job.bin" | "$VBOX_EXEC" /dev/stdin -- \
	cat "$workdir/srv/sec/key" >out 2>err && rc=0 || rc=$?
check "a plan from a pipe, a refused read: the command fails" [ "$rc" -ne 0 ]
check "... the hint asks for the plan's file, saying it came from a pipe" \
	grep -q "vboxc explain PLAN --read=PATH (or --write=PATH), with PLAN the plan's file (/dev/stdin is not one: the plan came from a pipe)\$" err
check "... and gives no command that names the pipe" \
	sh -c '! grep -q "vboxc explain /dev/stdin" err'

done_testing
