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
#
# The early argument list (doc/launcher.md, "The early argument list"):
# bubblewrap is given the sandbox the table has without its launch rows
# before they are looked at.  A launch row that only bubblewrap can
# mount (a read-only hole in a denied directory) makes that list wrong:
# bubblewrap, and the init it may have started, are killed and it is
# started again; the command sees the real sandbox (judged from inside
# and on the host) and nothing is left behind.  A launch refused after
# the early list went out leaves nothing either.

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

# hole: a launch row the init mounts (the early list holds); bwr: a
# launch row bubblewrap must mount (started again); linkrow: a launch
# row through a link to what the table makes writable (refused after
# the early list went out).
mkdir -p w/hole w/x/y w/x/z w/tgt
echo hello >w/x/y/f
echo secret >w/x/z/s
ln -s "$workdir/w/tgt" w/linkrow
chmod -R a+rwX w
printf '[fs]\nrw: %s/w\n!ro: %s/w/hole\n' "$workdir" "$workdir" >hole.rules
printf '[fs]\nrw: %s/w\n!deny: %s/w/x\n!!ro: %s/w/x/y\n' "$workdir" \
	"$workdir" "$workdir" >bwr.rules
printf '[fs]\nrw: %s/w\n!ro: %s/w/linkrow\n' "$workdir" "$workdir" \
	>linkrow.rules
for p in hole bwr linkrow; do
	"$VBOXC" compile --target=linux --emit=plan -o $p.plan $p.rules \
		2>/dev/null
done

chmod 644 ok.plan link.plan hole.plan bwr.plan linkrow.plan reap.py
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

	# The early list is this sandbox's: one bubblewrap, the hole holds.
	rm -f w/marker w/hole/new
	run as_user "$who" "$PY" reap.py "$VBOX_EXEC" --log hole.plan -- \
		sh -c "echo ran >$workdir/w/marker
		       (echo x >$workdir/w/hole/new) 2>/dev/null || exit 7"
	is "$(tail -n 1 out)" "7 0" \
		"$who: early list kept: the hole's write fails, nothing left"
	check "$who: ... --log says the early list was bubblewrap's" \
		grep -q "bubblewrap's list: the early one" err
	check "$who: ... and not that it started bubblewrap again" \
		sh -c '! grep -q "started again" err'
	check "$who: ... host side: the writable root was written" \
		test -e w/marker
	check "$who: ... host side: the read-only hole was not" \
		test ! -e w/hole/new

	# A launch row only bubblewrap can mount: started again.
	run as_user "$who" "$PY" reap.py "$VBOX_EXEC" --log bwr.plan -- \
		sh -c "cat $workdir/w/x/y/f; cat $workdir/w/x/z/s
		       (echo x >$workdir/w/x/y/new) 2>/dev/null || exit 7"
	is "$(tail -n 1 out)" "7 0" \
		"$who: early list wrong: the command ran, nothing left to reap"
	check "$who: ... --log says bubblewrap was started again" \
		grep -q "bubblewrap is started again" err
	check "$who: ... the first init ended without a word" \
		sh -c '! grep -q "went away" err'
	check "$who: ... the hole in the denied directory is readable" \
		grep -q '^hello$' out
	check "$who: ... the rest of the denied directory is not" \
		sh -c '! grep -q secret out'
	check "$who: ... host side: the hole was not written" \
		test ! -e w/x/y/new

	# Refused after the early list went out.
	rm -f w/marker
	run as_user "$who" "$PY" reap.py "$VBOX_EXEC" --log linkrow.plan -- \
		sh -c "echo ran >$workdir/w/marker"
	is "$(tail -n 1 out)" "125 0" \
		"$who: refused after the early list: 125, nothing left to reap"
	check "$who: ... the early list had gone out" \
		grep -q "bubblewrap's early list sent" err
	check "$who: ... the refusal names the link" \
		grep -q "is a symbolic link" err
	check "$who: ... the unused init ended without a word" \
		sh -c '! grep -q "went away" err'
	check "$who: ... host side: the command never ran" test ! -e w/marker
done
done_testing
