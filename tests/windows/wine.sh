#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/windows/wine.sh - the windows launcher's plumbing, under wine:
# vbox-exec.exe and the small child tests/windows/winprobe.exe from the
# cross build ($VBOX_WIN_BUILD, configured --host=x86_64-w64-mingw32;
# ./build.sh makes it), plans compiled by this build's vboxc.
#
# What wine can show: the command line and the plan (every fail-closed
# path), --dry-run's ACEs in order for every golden windows plan,
# argument and environment passing, exit statuses (125, 126, 127, codes
# beyond 255), --timeout and Ctrl-C, the job object ending grandchildren
# when the command ends and when the launcher is killed, the explicit handle
# list, \\?\ paths, placeholders, the state file (repair after a killed
# launcher, a corrupt state refused), and the DACL merge and revocation
# on a registry key (tests/windows/winacl.c), whose security descriptor
# wine keeps.  What it cannot: wine ignores restricting SIDs and keeps no
# file DACL (it makes one up from the mode bits), so nothing here
# asserts enforcement;
# tests/windows/enforce/ does, on a real windows machine (enforce.sh).
#
# Each user of set_users gets a private wine prefix under the cross
# build directory, made once (wineboot, bounded by a timeout) and kept
# for the next run.  WINEDEBUG=-all.  Every wine command is bounded.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

win=${VBOX_WIN_BUILD:-}
[ -n "$win" ] || skip_all "VBOX_WIN_BUILD is not set (make check sets it)"
exe=$win/runtime/windows/vbox-exec.exe
probe=$win/tests/windows/winprobe.exe
winacl=$win/tests/windows/winacl.exe
WINE=${WINE:-}
if [ -z "$WINE" ]; then
	for w in wine64 /usr/lib/wine/wine64 wine; do
		if command -v "$w" >/dev/null 2>&1; then
			WINE=$(command -v "$w")
			break
		fi
	done
fi
[ -n "$WINE" ] || skip_all "no wine64 (Debian: apt-get install wine64):" \
	"the windows launcher's plumbing is not tested here"
[ -x "$WINE" ] || skip_all "WINE=$WINE is not a program"
[ -f "$exe" ] && [ -f "$probe" ] && [ -f "$winacl" ] ||
	skip_all "no cross-built vbox-exec.exe in $win (VBOX_WIN_BUILD;" \
		"./build.sh check makes _build/win: configure" \
		"--host=x86_64-w64-mingw32)"
[ -x "${VBOXC:-}" ] || skip_all "no vboxc binary at ${VBOXC:-}"
bound_script
set_users

# winpath PATH - the wine spelling of a host path (drive Z: is /).
winpath() {
	printf 'Z:%s' "$1" | tr / '\\'
}

# prefix_for WHO - make (once) and print the wine prefix of WHO.
prefix_for() {
	_p=$win/wineprefix-$1
	_lock=$win/wineprefix.lock
	(
		flock 9
		if [ ! -f "$_p/.vbox-ready" ]; then
			rm -rf "$_p" "$_p.home"
			mkdir -p "$_p" "$_p.home"
			[ "$1" = root ] || chown 65534:65534 "$_p" "$_p.home"
			if as_user "$1" env WINEPREFIX="$_p" HOME="$_p.home" \
				WINEDEBUG=-all timeout -s KILL 180 "$WINE" \
				wineboot --init >"$_p.boot.log" 2>&1 &&
				as_user "$1" env WINEPREFIX="$_p" \
					timeout -s KILL 60 "$wineserver" -w \
					>/dev/null 2>&1; then
				: >"$_p/.vbox-ready"
			fi
		fi
	) 9>"$_lock"
	[ -f "$_p/.vbox-ready" ] || return 1
	echo "$_p"
}

# wineserver of this wine (wine64 -> wineserver64, wine -> wineserver).
wineserver=$(dirname "$WINE")/wineserver
[ -x "${wineserver}64" ] && wineserver=${wineserver}64

# w ARGS... - run the windows program ARGS under wine as $who, bounded.
w() {
	as_user "$who" env WINEPREFIX="$pfx" HOME="$pfx.home" WINEDEBUG=-all \
		LC_ALL=C.UTF-8 ${VX_ENV:-} timeout -s KILL "${VX_BOUND:-60}" "$WINE" "$@"
}

# vx ARGS... - vbox-exec.exe ARGS, output in $workdir/out and err, $rc.
vx() {
	run w "$exe" "$@"
	tr -d '\r' <"$workdir/out" >"$workdir/out.u" &&
		mv "$workdir/out.u" "$workdir/out"
}

# expect_compare NAME FILE - golden_compare against tests/windows/expect/.
expect_compare() {
	golden_dir=$top_srcdir/tests/windows/expect golden_compare "$@"
	_r=$?
	golden_dir=$top_srcdir/golden
	return $_r
}

compile() {
	"$VBOXC" compile --target=windows --emit=plan -o "$2" "$1" \
		2>"$workdir/cerr"
}

each_case() {
	tag=$1
	who=root
	[ "$tag" = "uid 65534" ] && who=nobody
	if ! pfx=$(prefix_for "$who"); then
		not_ok "$tag: wine prefix made (wineboot; see $win/wineprefix-$who.boot.log)"
		return
	fi
	d=$workdir/$who
	mkdir -p "$d"
	[ "$who" = root ] || chown 65534:65534 "$d"
	chmod 755 "$workdir"
	D=$(winpath "$d")
	state="$D\\state"
	P=$(winpath "$probe")

	# -------------------------------------------------------------- cli
	vx --version
	check "$tag: --version exits 0" [ "$rc" -eq 0 ]
	vx --help
	check "$tag: --help exits 0 and names --state-dir" \
		sh -c '[ "$1" -eq 0 ] && grep -q -- --state-dir "$2"' _ "$rc" \
		"$workdir/out"
	for args in "" "--bogus x -- y" "plan" "plan --" "--bwrap=/x plan -- y" \
		"--timeout=0 plan -- y" "-e =x plan -- y"; do
		# shellcheck disable=SC2086 # word splitting wanted
		vx $args
		check "$tag: usage error '$args' exits 125" [ "$rc" -eq 125 ]
	done

	# ------------------------------------------------------ fail closed
	mkdir -p "$d/work"
	[ "$who" = root ] || chown 65534:65534 "$d/work"
	printf '@default net open\nrw:%s\n!deny:%s\n' "$D\\work\\**" \
		"$D\\work\\secret" >"$d/r.rules"
	compile "$d/r.rules" "$d/p.plan" ||
		not_ok "$tag: vboxc compiles the test plan: $(cat "$workdir/cerr")"
	chmod 644 "$d/p.plan"
	cp "$d/p.plan" "$d/bad.plan"
	printf 'X' | dd of="$d/bad.plan" bs=1 seek=100 conv=notrunc 2>/dev/null
	vx --state-dir="$state" "$D\\bad.plan" -- "$P" exit 0
	check "$tag: a corrupt plan is refused (125, checksum)" \
		sh -c '[ "$1" -eq 125 ] && grep -q checksum "$2"' _ "$rc" \
		"$workdir/err"
	head -c 40 "$d/p.plan" >"$d/short.plan"
	vx --state-dir="$state" "$D\\short.plan" -- "$P" exit 0
	check "$tag: a truncated plan is refused (125)" [ "$rc" -eq 125 ]
	vx --state-dir="$state" "$D\\r.rules" -- "$P" exit 0
	check "$tag: a rules file given as the plan is refused (125)" \
		[ "$rc" -eq 125 ]
	vx --state-dir="$state" "$D\\missing.plan" -- "$P" exit 0
	check "$tag: a missing plan is refused (125)" [ "$rc" -eq 125 ]
	printf '@default net open\nrw:/tmp/**\n' >"$d/l.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$d/l.plan" \
		"$d/l.rules" 2>/dev/null
	chmod 644 "$d/l.plan"
	vx --state-dir="$state" "$D\\l.plan" -- "$P" exit 0
	check "$tag: a linux plan is refused (125, 'plan is for linux')" \
		sh -c '[ "$1" -eq 125 ] && grep -q "plan is for linux" "$2"' \
		_ "$rc" "$workdir/err"
	# A deny hole whose parent is missing: its placeholder cannot be
	# made, and a deny never downgrades.
	printf '@default net open\nrw:%s\n!deny:%s\n' "$D\\work\\**" \
		"$D\\work\\no\\such\\secret" >"$d/m.rules"
	compile "$d/m.rules" "$d/m.plan"
	chmod 644 "$d/m.plan"
	vx --state-dir="$state" "$D\\m.plan" -- "$P" exit 0
	check "$tag: a deny target that cannot be made is refused (125)" \
		sh -c '[ "$1" -eq 125 ] && grep -q "never downgraded" "$2"' \
		_ "$rc" "$workdir/err"
	check "$tag: and leaves no record in the state" \
		sh -c '! grep -q "\"holder\"" "$1"' _ \
		"$d/state/deny_acl_state.json"
	# A missing deny target nothing can create (no writable parent).
	printf '@default net open\ndeny:%s\n' "$D\\gone" >"$d/g.rules"
	compile "$d/g.rules" "$d/g.plan"
	chmod 644 "$d/g.plan"
	vx --log --state-dir="$state" "$D\\g.plan" -- "$P" exit 0
	check "$tag: a missing deny target with no writable parent is skipped" \
		sh -c '[ "$1" -eq 0 ] && grep -q "missing, skipped" "$2"' _ \
		"$rc" "$workdir/err"

	# ---------------------------------------------------------- dry run
	for hex in "$top_srcdir"/golden/*.windows.plan.hex; do
		name=$(basename "$hex" .windows.plan.hex)
		perl -ne 's/\s+//g; print pack("H*", $_)' "$hex" \
			>"$d/$name.plan"
		chmod 644 "$d/$name.plan"
		vx --dry-run "$D\\$name.plan" -- cmd /c "echo a b"
		cp "$workdir/out" "$d/$name.dry1"
		cp "$workdir/err" "$d/$name.err1"
		rc1=$rc
		vx --dry-run "$D\\$name.plan" -- cmd /c "echo a b"
		if [ "$rc1" -eq 0 ] && [ "$rc" -eq 0 ] &&
			cmp -s "$d/$name.dry1" "$workdir/out"; then
			ok "$tag: $name: --dry-run exits 0, byte-identical twice"
		else
			not_ok "$tag: $name: --dry-run exits 0, byte-identical twice"
			echo "#   exits $rc1 and $rc; the first run's stderr:"
			tr -d '\r' <"$d/$name.err1" | sed 's/^/#   /' | head -n 20
			echo "#   the second run's:"
			tr -d '\r' <"$workdir/err" | sed 's/^/#   /' | head -n 20
			diff "$d/$name.dry1" "$workdir/out" | sed 's/^/#   /' |
				head -n 20
		fi
		# The expected dry runs are goldens of their own:
		# VBOX_GOLDEN=update rewrites them, =all makes a missing one.
		check "$tag: $name: --dry-run prints the expected ACEs in order" \
			expect_compare "$name.dryrun" "$workdir/out"
	done

	# ------------------------------------------------------------- runs
	vx --state-dir="$state" "$D\\p.plan" -- "$P" args a "b c" 'd"e' \
		'f\' 'g\\"h' '' "tab	x" 'é'
	printf '[a]\n[b c]\n[d"e]\n[f\\]\n[g\\\\"h]\n[]\n[tab\tx]\n[é]\n' \
		>"$d/want"
	check "$tag: arguments arrive as given (CommandLineToArgvW)" \
		sh -c '[ "$1" -eq 0 ] && cmp -s "$2" "$3"' _ "$rc" "$d/want" \
		"$workdir/out"
	VX_ENV="KEEP_ME=1 MY_TOKEN=s3cret HTTP_PROXY=http://x" \
		vx --state-dir="$state" -e SET=2 "$D\\p.plan" -- "$P" env \
		KEEP_ME MY_TOKEN HTTP_PROXY SET
	printf 'KEEP_ME=1\nMY_TOKEN unset\nHTTP_PROXY unset\nSET=2\n' >"$d/want"
	check "$tag: environment: kept, secret and proxy dropped, -e set" \
		sh -c '[ "$1" -eq 0 ] && cmp -s "$2" "$3"' _ "$rc" "$d/want" \
		"$workdir/out"
	VX_ENV="KEEP_ME=1 OTHER=1" vx --state-dir="$state" --replace-env \
		-e ONLY=1 -e KEEP_ME "$D\\p.plan" -- "$P" env KEEP_ME ONLY OTHER
	printf 'KEEP_ME=1\nONLY=1\nOTHER unset\n' >"$d/want"
	check "$tag: --replace-env: only the -e variables" \
		sh -c '[ "$1" -eq 0 ] && cmp -s "$2" "$3"' _ "$rc" "$d/want" \
		"$workdir/out"
	vx --state-dir="$state" "$D\\p.plan" -- "$P" exit 3
	check "$tag: exit status 3 passes through" [ "$rc" -eq 3 ]
	for code in 125 300 65536 4294967295; do
		run w "$probe" run "$exe" --state-dir="$state" "$D\\p.plan" -- \
			"$P" exit "$code"
		check "$tag: exit status $code passes through whole (32 bits)" \
			grep -q "^exit $code" "$workdir/out"
	done
	vx --state-dir="$state" "$D\\p.plan" -- "$D\\no-such.exe"
	check "$tag: a missing command exits 127" [ "$rc" -eq 127 ]
	printf 'not a program\n' >"$d/text.exe"
	chmod 644 "$d/text.exe"
	vx --state-dir="$state" "$D\\p.plan" -- "$D\\text.exe"
	check "$tag: a command that is not a program exits 126" \
		[ "$rc" -eq 126 ]
	vx --state-dir="$state" -C "$D\\nowhere" "$D\\p.plan" -- "$P" exit 0
	check "$tag: -C to a missing directory exits 125" [ "$rc" -eq 125 ]
	vx --state-dir="$state" --timeout=9999999 "$D\\p.plan" -- "$P" exit 5
	check "$tag: a --timeout past a DWORD of milliseconds is no error" \
		[ "$rc" -eq 5 ]
	vx --state-dir="$state" --timeout=1 "$D\\p.plan" -- "$P" sleep 120
	check "$tag: --timeout ends the command: 124" \
		sh -c '[ "$1" -eq 124 ] && grep -q "timed out" "$2"' _ "$rc" \
		"$workdir/err"

	# The job: grandchildren end with the command ...
	rm -f "$d/gc.pid"
	vx --state-dir="$state" "$D\\p.plan" -- "$P" spawn-exit "$D\\gc.pid"
	gc=$(cat "$d/gc.pid" 2>/dev/null || echo none)
	run w "$probe" alive "$gc"
	check "$tag: a grandchild ends when the command ends ($gc)" \
		[ "$rc" -eq 1 ]
	# ... and when the launcher is killed (KILL_ON_JOB_CLOSE).
	rm -f "$d/gc.pid"
	w "$exe" --state-dir="$state" "$D\\p.plan" -- "$P" spawn "$D\\gc.pid" \
		>/dev/null 2>&1 &
	launcher=$!
	if wait_for "$d/gc.pid" 400; then
		gc=$(cat "$d/gc.pid")
		run w "$probe" alive "$gc"
		check "$tag: the grandchild runs while the launcher does" \
			[ "$rc" -eq 0 ]
		# The wine process that runs vbox-exec.exe: the bounded
		# timeout's child.
		for p in $(pgrep -P "$launcher" 2>/dev/null) $launcher; do
			for q in $(pgrep -P "$p" 2>/dev/null); do
				kill -KILL "$q" 2>/dev/null || :
			done
		done
		wait "$launcher" 2>/dev/null || :
		i=0
		while run w "$probe" alive "$gc" && [ "$rc" -eq 0 ] &&
			[ $i -lt 50 ]; do
			sleep 0.2
			i=$((i + 1))
		done
		check "$tag: the grandchild ends when the launcher is killed" \
			[ "$rc" -eq 1 ]
		check "$tag: the killed launcher's records stay in the state" \
			grep -q '"holder"' "$d/state/deny_acl_state.json"
		cp "$d/state/deny_acl_state.json" "$workdir/state.before"
		vx --log --state-dir="$state" "$D\\g.plan" -- "$P" exit 0
		if [ "$rc" -eq 0 ] &&
			! grep -q '"holder"' "$d/state/deny_acl_state.json"; then
			ok "$tag: the next launch repairs: no record is left"
		else
			not_ok "$tag: the next launch repairs: no record is left"
			echo "#   exit $rc; its stderr, the state before, after:"
			tr -d '\r' <"$workdir/err" | sed 's/^/#   /' | head -n 30
			sed 's/^/#   /' "$workdir/state.before"
			sed 's/^/#   /' "$d/state/deny_acl_state.json"
		fi
	else
		not_ok "$tag: the grandchild's pid file appeared"
		kill "$launcher" 2>/dev/null || :
		wait "$launcher" 2>/dev/null || :
	fi

	# Ctrl-C (wine turns SIGINT into CTRL_C_EVENT; timeout passes it on)
	# ends the whole tree: 130, as 128 + SIGINT on linux.
	rm -f "$d/gc.pid"
	w "$exe" --state-dir="$state" "$D\\p.plan" -- "$P" spawn "$D\\gc.pid" \
		>/dev/null 2>&1 &
	launcher=$!
	if wait_for "$d/gc.pid" 400; then
		gc=$(cat "$d/gc.pid")
		# $! is w's subshell, which ignores SIGINT (a background
		# job); its child is timeout, which passes SIGINT on.
		for p in $(pgrep -P "$launcher" 2>/dev/null); do
			kill -INT "$p" 2>/dev/null || :
		done
		r=0
		wait "$launcher" || r=$?
		check "$tag: Ctrl-C ends the launch with 130 ($r)" [ "$r" -eq 130 ]
		run w "$probe" alive "$gc"
		check "$tag: and the grandchild with it" [ "$rc" -eq 1 ]
	else
		not_ok "$tag: the grandchild's pid file appeared (Ctrl-C)"
		kill "$launcher" 2>/dev/null || :
		wait "$launcher" 2>/dev/null || :
	fi

	# The handle list: an inheritable handle of the launcher's parent
	# reaches a child started plainly, not the sandboxed one.
	run w "$probe" run-inherit "$P" handle-env
	check "$tag: control: a plain child inherits the handle" \
		grep -q '^open' "$workdir/out"
	run w "$probe" run-inherit "$exe" --state-dir="$state" "$D\\p.plan" \
		-- "$P" handle-env
	check "$tag: the sandboxed child does not (handle list)" \
		grep -q '^closed' "$workdir/out"

	# The DACL round trip, on a registry key (wine keeps a key's
	# security descriptor; a file's it makes up from the mode bits):
	# the launcher's merge puts the plan's deny first, keeps the key's
	# own ACEs in order, changes nothing the second time, and its
	# revocation gives the DACL back exactly.
	run w "$winacl" "$D\\p.plan"
	tr -d '\r' <"$workdir/out" >"$d/acl.out"
	check "$tag: registry key: the merged DACL is canonical, deny first" \
		sh -c 'grep -q "^canonical yes" "$1" &&
			grep -q "^merged D:(D;" "$1"' _ "$d/acl.out"
	check "$tag: registry key: merging again changes nothing" \
		grep -q '^idempotent yes' "$d/acl.out"
	check "$tag: registry key: revoking restores the DACL exactly" \
		grep -q '^restored yes' "$d/acl.out"

	# Gaps below a deny: wine makes up every file's DACL with explicit
	# allows, so each existing object below the hole is given the hole's
	# ACEs explicitly (and revoked after), and the walk stops at entries.
	rm -rf "$d/work/secret"
	mkdir -p "$d/work/secret/sub"
	echo k >"$d/work/secret/k.txt"
	echo f >"$d/work/secret/sub/f.txt"
	[ "$who" = root ] || chown -R 65534:65534 "$d/work/secret"
	vx --log --state-dir="$state" "$D\\p.plan" -- "$P" exit 0
	check "$tag: the 3 objects below a deny hole are walked and given its ACEs" \
		sh -c '[ "$1" -eq 0 ] &&
			grep -q "secret: 3 objects below it given its ACEs" "$2"' \
		_ "$rc" "$workdir/err"
	check "$tag: and the state is empty after the run" \
		grep -q '"records": \[\]' "$d/state/deny_acl_state.json"

	# Rows on files (issue 34): a deny row and a read-only hole that
	# name a file are carried out as on a directory: the file's own
	# DACL gets the row's ACEs, and nothing is listed below it.
	rm -rf "$d/work/secret"
	echo k >"$d/work/secret"
	echo n >"$d/work/notes.txt"
	[ "$who" = root ] ||
		chown 65534:65534 "$d/work/secret" "$d/work/notes.txt"
	printf '@default net open\nrw:%s\n!deny:%s\n!ro:%s\n' \
		"$D\\work\\**" "$D\\work\\secret" "$D\\work\\notes.txt" \
		>"$d/f.rules"
	compile "$d/f.rules" "$d/f.plan" ||
		not_ok "$tag: vboxc compiles the file-row plan: $(cat "$workdir/cerr")"
	chmod 644 "$d/f.plan"
	vx --log --state-dir="$state" "$D\\f.plan" -- "$P" exit 0
	check "$tag: a deny row on a file is carried out (0, not listed as a directory)" \
		sh -c '[ "$1" -eq 0 ] && grep -q "secret: [0-9]* ACEs merged" "$2" &&
			! grep -q "cannot list" "$2"' _ "$rc" "$workdir/err"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$workdir/err"
	check "$tag: ... and so is a read-only hole on a file" \
		grep -q "notes.txt: [0-9]* ACEs merged" "$workdir/err"
	check "$tag: ... both files stay, and the state is empty after the run" \
		sh -c '[ -f "$1/secret" ] && [ -f "$1/notes.txt" ] &&
			grep -q "\"records\": \[\]" "$2"' _ "$d/work" \
		"$d/state/deny_acl_state.json"
	rm -f "$d/work/secret" "$d/work/notes.txt"

	# Placeholders: made for the run, removed after.
	rm -rf "$d/work/secret"
	vx --log --state-dir="$state" "$D\\p.plan" -- "$P" exit 0
	check "$tag: a missing pinned deny hole gets a placeholder" \
		grep -q 'secret: placeholder made' "$workdir/err"
	check "$tag: which is gone after the run" [ ! -e "$d/work/secret" ]

	# Long paths.  Every object is opened as \\?\PATH.  Wine 8's
	# GetFinalPathNameByHandleW cannot answer past MAX_PATH (it asks
	# NtQueryObject into a MAX_PATH buffer: ERROR_MORE_DATA), and the
	# launcher writes no ACE on a path it cannot verify: such a root is
	# refused (125) and nothing is left behind.  Within wine's limit the
	# same plan is carried out.  (Real windows: enforce/, long paths.)
	for n in 5 7; do
		long=$d/work
		i=0
		while [ $i -lt $n ]; do
			long=$long/a-directory-name-of-forty-characters-xx
			i=$((i + 1))
		done
		mkdir -p "$long"
		[ "$who" = root ] || chown -R 65534:65534 "$d/work"
		L=$(winpath "$long")
		printf '@default net open\nrw:%s\n!ro:%s\n' "$L\\**" \
			"$L\\keep" >"$d/long$n.rules"
		compile "$d/long$n.rules" "$d/long$n.plan"
		chmod 644 "$d/long$n.plan"
		vx --log --state-dir="$state" "$D\\long$n.plan" -- "$P" exit 0
		if [ ${#L} -lt 256 ]; then
			check "$tag: a root of ${#L} characters: applied, its hole's placeholder made and removed" \
				sh -c '[ "$1" -eq 0 ] &&
					grep -q "keep: placeholder made" "$2" &&
					[ ! -e "$3/keep" ]' _ "$rc" "$workdir/err" "$long"
		else
			check "$tag: a root of ${#L} characters (past wine's final-path limit): refused, 125" \
				sh -c '[ "$1" -eq 125 ] &&
					grep -q "cannot read its final path" "$2"' \
				_ "$rc" "$workdir/err"
			check "$tag: and no record is left in the state" \
				sh -c '! grep -q "\"holder\"" "$1"' _ \
				"$d/state/deny_acl_state.json"
		fi
	done

	# A corrupt state file is refused, and says how to recover.
	printf '{"format": "x"}' >"$d/state/deny_acl_state.json"
	vx --state-dir="$state" "$D\\p.plan" -- "$P" exit 0
	check "$tag: a corrupt state file is refused (125)" \
		sh -c '[ "$1" -eq 125 ] && grep -q "state file is corrupt" "$2"' \
		_ "$rc" "$workdir/err"
	rm -f "$d/state/deny_acl_state.json"

	# Two launchers at once do not tear the state.
	w "$exe" --state-dir="$state" "$D\\p.plan" -- "$P" exit 0 \
		>/dev/null 2>&1 &
	one=$!
	w "$exe" --state-dir="$state" "$D\\p.plan" -- "$P" exit 0 \
		>/dev/null 2>&1 &
	two=$!
	r1=0
	r2=0
	wait "$one" || r1=$?
	wait "$two" || r2=$?
	check "$tag: two launchers at once both run, the state stays whole" \
		sh -c '[ "$1" -eq 0 ] && [ "$2" -eq 0 ] &&
			grep -q "\"records\": \[\]" "$3"' _ "$r1" "$r2" \
		"$d/state/deny_acl_state.json"

	as_user "$who" env WINEPREFIX="$pfx" timeout -s KILL 30 \
		"$wineserver" -k >/dev/null 2>&1 || :
}

each_user each_case
done_testing
