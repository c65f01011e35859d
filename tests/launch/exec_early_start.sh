#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_early_start.sh - vbox-exec starts bubblewrap before it has
# decided the sandbox, with the argument list to come (doc/launcher.md,
# "Start-up").  A launch refused after that start (a granted path that
# is a link the table does not follow, a placeholder that appeared)
# must exit 125 with its message, run nothing, and leave no process
# behind: checked by running vbox-exec under a subreaper that counts
# what is left to reap once vbox-exec has exited, and on the host side
# (no marker file).  As root and, under root, as uid 65534.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
# The system python3: one reachable by uid 65534 too.
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY"

chmod 755 "$workdir"
cd "$workdir"
mkdir -p w
chmod 777 w
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

chmod 644 ok.plan link.plan reap.py
set_users
for who in $users; do
	rm -f w/marker
	run as_user "$who" "$PY" reap.py "$VBOX_EXEC" link.plan -- \
		sh -c "echo ran >$workdir/w/marker"
	is "$(cat out)" "125 0" \
		"$who: refused after the start: 125, nothing left to reap"
	check "$who: ... the refusal names the link" \
		grep -q "is a symbolic link" err
	check "$who: ... host side: the command never ran" test ! -e w/marker

	run as_user "$who" "$PY" reap.py "$VBOX_EXEC" ok.plan -- \
		sh -c "echo ran >$workdir/w/marker"
	is "$(cat out)" "0 0" "$who: a launch that runs: 0, nothing left to reap"
	check "$who: ... host side: the command ran" test -e w/marker
done
done_testing
