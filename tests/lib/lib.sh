# SPDX-License-Identifier: MIT
# tests/lib/lib.sh - shared helpers for the TAP shell tests; source it first.
#
# Gives: strict mode, LC_ALL=C, a private $workdir removed on exit, TAP
# helpers (plan, ok, not_ok, check, is, done_testing, skip_all), run (to
# capture $rc, $workdir/out and $workdir/err) and golden_compare.

set -eu
LC_ALL=C
export LC_ALL

: "${srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$srcdir}"
golden_dir=$top_srcdir/golden

workdir=$(mktemp -d "${TMPDIR:-/tmp}/vbox-test.XXXXXX")
trap 'rm -rf "$workdir"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

tap_n=0
tap_failed=0

# plan N - announce N tests up front (or call done_testing at the end).
plan() {
	echo "1..$1"
	tap_planned=1
}

ok() {
	tap_n=$((tap_n + 1))
	printf 'ok %s - %s\n' "$tap_n" "$*"
}

not_ok() {
	tap_n=$((tap_n + 1))
	case $* in
	*"# TODO"*) ;; # TAP: a failure marked TODO is expected, not counted
	*) tap_failed=$((tap_failed + 1)) ;;
	esac
	printf 'not ok %s - %s\n' "$tap_n" "$*"
}

# check DESC CMD... - ok when CMD succeeds.
check() {
	_desc=$1
	shift
	if "$@"; then ok "$_desc"; else not_ok "$_desc"; fi
}

# is GOT WANT DESC - string equality, both sides shown on failure.
is() {
	if [ "$1" = "$2" ]; then
		ok "$3"
	else
		not_ok "$3"
		printf '%s\n' "got:  $1" "want: $2" | sed 's/^/# /'
	fi
}

# run CMD... - run CMD with stdout in $workdir/out, stderr in
# $workdir/err and its exit status in $rc; never fails itself.
run() {
	rc=0
	"$@" >"$workdir/out" 2>"$workdir/err" || rc=$?
}

# skip_all REASON - skip the whole script.  TAP's "1..0 # SKIP" with
# status 0: tap-driver.sh reports any other status as an error.
skip_all() {
	printf '1..0 # SKIP %s\n' "$*"
	exit 0
}

# done_testing - print the plan (unless given) and exit 0 only if every
# test passed.
done_testing() {
	[ -n "${tap_planned:-}" ] || echo "1..$tap_n"
	if [ "$tap_failed" -eq 0 ]; then
		exit 0
	fi
	exit 1
}

# golden_compare NAME FILE - compare FILE with golden/NAME.  On mismatch
# write golden/NAME.got and fail showing `diff -u`.  VBOX_GOLDEN=update
# rewrites existing goldens; VBOX_GOLDEN=all also creates missing ones.
golden_compare() {
	_want=$golden_dir/$1
	if [ ! -f "$_want" ]; then
		if [ "${VBOX_GOLDEN:-}" = all ]; then
			cp "$2" "$_want"
			echo "# created $_want"
			return 0
		fi
		echo "# missing golden $_want (VBOX_GOLDEN=all creates it)"
		return 1
	fi
	if cmp -s "$_want" "$2"; then
		rm -f "$_want.got"
		return 0
	fi
	case ${VBOX_GOLDEN:-} in
	update | all)
		cp "$2" "$_want"
		rm -f "$_want.got"
		echo "# updated $_want"
		return 0
		;;
	esac
	cp "$2" "$_want.got" 2>/dev/null || :
	diff -u "$_want" "$2" | sed 's/^/# /' || :
	return 1
}

# vboxc_fixed ARGS... - run $VBOXC in a fixed environment (PATH, HOME
# /home/tester, LC_ALL=C), the sanitizer option variables passed through
# so a sanitized build keeps its settings: what the vboxc suites compare
# must not depend on the caller's environment.
vboxc_fixed() {
	env -i PATH="$PATH" HOME=/home/tester LC_ALL=C \
		${ASAN_OPTIONS+"ASAN_OPTIONS=$ASAN_OPTIONS"} \
		${UBSAN_OPTIONS+"UBSAN_OPTIONS=$UBSAN_OPTIONS"} \
		${LSAN_OPTIONS+"LSAN_OPTIONS=$LSAN_OPTIONS"} \
		"$VBOXC" "$@"
}

# case_header FILE KEY - the value of the first "# KEY:" line of the test
# case FILE, CR and surrounding blanks removed.
case_header() {
	sed -n "s/^.*# $2:[ 	]*//p" "$1" | head -n 1 | tr -d '\r' |
		sed 's/[ 	]*$//'
}

# bound_script - a bound on the whole script, for the launches it waits
# for without a bound of their own: after VBOX_TEST_BOUND seconds
# (default 1800) a watchdog kills everything the script started and the
# script itself, so a launch that hangs fails the suite (exit status 137)
# instead of hanging it.  The watchdog ends with the script and holds
# none of its output.  require_launcher starts it.
bound_script() {
	_bs_self=$$
	(
		trap - EXIT HUP INT TERM
		timeout -s KILL "${VBOX_TEST_BOUND:-1800}" \
			tail --pid="$_bs_self" -s 0.2 -f /dev/null && exit 0
		read -r _bs_me _bs_rest </proc/self/stat
		cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$_bs_self" \
			-v me="$_bs_me" '
			{ pid = $1; sub(/^.*\) /, ""); pp[pid] = $2 }
			END {
				inside[root] = 1
				for (more = 1; more;) {
					more = 0
					for (p in pp)
						if (!(p in inside) && p != me &&
						    (pp[p] in inside)) {
							inside[p] = 1
							more = 1
						}
				}
				for (p in inside)
					if (p != root)
						print p
			}' | xargs -r kill -KILL 2>/dev/null || :
		kill -KILL "$_bs_self" 2>/dev/null || :
		rm -rf "$workdir"
	) </dev/null >/dev/null 2>&1 &
}

# require_launcher - skip the whole script, saying why, unless vboxc,
# vbox-exec and a bubblewrap that can make user namespaces are there.
# Sets BWRAP and exports VBOX_BWRAP, the bubblewrap vbox-exec then uses.
# Starts bound_script.
require_launcher() {
	[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"
	[ -x "$VBOX_EXEC" ] || skip_all "no vbox-exec binary at $VBOX_EXEC"
	if [ -z "${BWRAP:-}" ]; then
		BWRAP=$(command -v bwrap 2>/dev/null || :)
	fi
	[ -n "$BWRAP" ] && [ -x "$BWRAP" ] ||
		skip_all "bubblewrap (bwrap) not found"
	if ! "$BWRAP" --unshare-user --ro-bind / / /bin/true \
		2>"$workdir/err"; then
		skip_all "user namespaces unavailable: $(head -n 1 "$workdir/err")"
	fi
	VBOX_BWRAP=$BWRAP
	export VBOX_BWRAP
	bound_script
}

# as_user WHO CMD... - run CMD as root (WHO=root) or as uid/gid 65534
as_user() {
	_who=$1
	shift
	if [ "$_who" = root ]; then
		"$@"
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
	fi
}

# wait_for FILE [TRIES] - wait until FILE exists, TRIES times 50 ms at
# most (default 200: 10 s); false when it never appeared.
wait_for() {
	_i=0
	while [ ! -e "$1" ] && [ "$_i" -lt "${2:-200}" ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	[ -e "$1" ]
}

# each_user FUNC - FUNC "uid N" RUNAS... for each of $users (set_users):
# RUNAS is the command prefix that runs as that user ("env" for the
# running one).
each_user() {
	for _u in $users; do
		case $_u in
		root) "$1" "uid 0" env ;;
		nobody) "$1" "uid 65534" setpriv --reuid=65534 --regid=65534 \
			--clear-groups ;;
		*) "$1" "uid $_u" env ;;
		esac
	done
}

# nobody_can_run - can uid 65534 use this build: read the launcher, its
# init and proxy, vboxc, the probe and the rule libraries?  Not from a
# clone inside a directory closed to other users (Debian's /root is mode
# 0700): setpriv still starts the program (the exec happens with root's
# capabilities), but the launcher, without them, cannot open its init,
# and these files cannot be staged elsewhere (a build tree's vbox-exec
# takes its init from its own build tree only, never from a copy).
# Else false, with the reason in $nobody_why.
nobody_can_run() {
	nobody_why=
	command -v setpriv >/dev/null 2>&1 || {
		nobody_why="setpriv missing"
		return 1
	}
	for _f in "${VBOX_EXEC:-}" "${top_builddir:-.}/vbox-init" \
		"${top_builddir:-.}/vbox-proxy" "${VBOXC:-}" "${VBOX_PROBE:-}" \
		"$top_srcdir/rules/secrets.rules"; do
		[ -n "$_f" ] && [ -e "$_f" ] || continue
		setpriv --reuid=65534 --regid=65534 --clear-groups -- \
			head -c 1 "$_f" >/dev/null 2>&1 && continue
		nobody_why="uid 65534 cannot read $_f: a directory above it is closed to other users (a clone inside a mode-0700 directory such as /root); clone where others may enter to run these cases"
		return 1
	done
}

# set_users - $users: "root nobody" when the suite runs as root and uid
# 65534 can use the build (nobody_can_run; the launcher tests run as
# both), else the running uid, saying why uid 65534 is left out.
set_users() {
	users=root
	if [ "$(id -u)" != 0 ]; then
		users=$(id -u)
	elif nobody_can_run; then
		users="root nobody"
	else
		echo "# $nobody_why: the runs as uid 65534 are skipped"
	fi
}

# require_walls_blob - $BLOB (tests/launch/walls_blob, which hands vbox-init the
# walls of a list) and $INIT (the build's vbox-init), or skip the whole
# script saying which is missing.
require_walls_blob() {
	BLOB=${top_builddir:-.}/tests/launch/walls_blob
	INIT=${top_builddir:-.}/vbox-init
	[ -x "$BLOB" ] || skip_all "no $BLOB"
	[ -x "$INIT" ] || skip_all "no $INIT"
}

# require_podman - vboxc, vbox-exec, root, podman and runc (sets RUNC),
# or skip_all saying which is missing (build.sh installs them)
require_podman() {
	[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"
	[ -x "$VBOX_EXEC" ] || skip_all "no vbox-exec binary at $VBOX_EXEC"
	[ "$(id -u)" = 0 ] ||
		skip_all "needs root (rootless podman is not set up)"
	command -v podman >/dev/null 2>&1 || skip_all "podman not installed"
	RUNC=$(command -v runc 2>/dev/null || :)
	[ -n "$RUNC" ] || skip_all "runc not installed"
}

# node_project PROJ SCRATCH - an npm project in PROJ that depends on a
# package from a tarball in PROJ/vendor (packed in SCRATCH, offline) and
# whose `npm test` prints "tinydep ok"
node_project() {
	mkdir -p "$1/vendor" "$2/dep"
	printf '{"name":"tinydep","version":"1.0.0","main":"index.js"}\n' \
		>"$2/dep/package.json"
	echo 'module.exports = (a, b) => a + b;' >"$2/dep/index.js"
	(cd "$2/dep" && npm pack --silent >/dev/null 2>&1)
	cp "$2/dep/tinydep-1.0.0.tgz" "$1/vendor/"
	cat >"$1/package.json" <<'EOF'
{"name":"proj","version":"1.0.0","private":true,
 "dependencies":{"tinydep":"file:vendor/tinydep-1.0.0.tgz"},
 "scripts":{"test":"node test.js"}}
EOF
	cat >"$1/test.js" <<'EOF'
const add = require('tinydep');
if (add(2, 3) !== 5) { console.error('wrong sum'); process.exit(1); }
console.log('tinydep ok');
EOF
}

# start_origin TEST_PROXY SALT - tests/proxy/test_proxy --origin on
# 127.0.0.1 (HTTP on $P, echo on $P + 1) at a port it could take, the
# ports chosen from SALT and the shell's pid; sets P and opid, or fails
# (P empty) after eight ports.  It waits for the origin's "ready" line,
# printed once both listen (a start that then fails to bind, slow under
# a sanitizer, passed a look with kill -0).
start_origin() {
	P=
	opid=
	for _try in 1 2 3 4 5 6 7 8; do
		_cand=$((20000 + ($$ * $2 + _try * 131) % 30000))
		rm -f "$workdir/origin.out"
		"$1" --origin 127.0.0.1 "$_cand" </dev/null \
			>"$workdir/origin.out" 2>/dev/null &
		opid=$!
		_i=0
		while [ "$_i" -lt 200 ] && kill -0 "$opid" 2>/dev/null; do
			if grep -q '^ready$' "$workdir/origin.out" 2>/dev/null
			then
				P=$_cand
				return 0
			fi
			sleep 0.05
			_i=$((_i + 1))
		done
		kill "$opid" 2>/dev/null || :
		opid=
	done
	return 1
}
