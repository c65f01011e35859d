#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/exec_early_start.sh - vbox-exec starts bubblewrap before it has
# decided the sandbox, with the argument list to come (doc/launcher.md,
# "Start-up").  A launch refused after that start (a granted path that
# is a link the table does not follow, a placeholder that appeared)
# must exit 125 with its message, run nothing, and leave no process
# behind: checked by running vbox-exec under a subreaper that counts
# what is left to reap once vbox-exec has exited.

. "${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
command -v python3 >/dev/null 2>&1 || skip_all "no python3"

cd "$workdir"
mkdir -p w
ln -s /etc w/link
printf '[fs]\nrw: %s/w\n' "$workdir" >ok.rules
printf '[fs]\nrw: %s/w/link\n' "$workdir" >link.rules
"$VBOXC" compile --target=linux --emit=plan -o ok.plan ok.rules
"$VBOXC" compile --target=linux --emit=plan -o link.plan link.rules

# reap CMD... - run CMD as a child of a subreaper; print its exit status
# and how many processes were left to reap after it exited.
cat >reap.py <<'PYEOF'
import ctypes, os, subprocess, sys, time
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(36, 1, 0, 0, 0) != 0:   # PR_SET_CHILD_SUBREAPER
    sys.exit("prctl failed")
rc = subprocess.call(sys.argv[1:])
left = 0
deadline = time.time() + 5
while time.time() < deadline:
    try:
        pid, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        break
    if pid:
        left += 1
    else:
        time.sleep(0.01)
print(rc, left)
PYEOF

run python3 reap.py "$VBOX_EXEC" link.plan -- sh -c "echo ran >$workdir/w/marker"
is "$(cat out)" "125 0" "refused after the start: 125, nothing left to reap"
check "... the refusal names the link" grep -q "is a symbolic link" err
check "... the command never ran" test ! -e w/marker

run python3 reap.py "$VBOX_EXEC" ok.plan -- sh -c "echo ran >$workdir/w/marker"
is "$(cat out)" "0 0" "a launch that runs: 0, nothing left to reap"
check "... the command ran" test -e w/marker

done_testing
