#!/usr/bin/env bash
# build.sh - the one entry point on a fresh machine (Debian 12, as root).
#
#   ./build.sh demo    install missing build dependencies, build in _build/,
#                      then show "vboxc check" and "vboxc explain" on
#                      examples/demo.rules in text and JSON, then run a
#                      short script under vbox-exec with that policy
#   ./build.sh check   every test: vbox-exec.exe cross-built (mingw-w64,
#                      _build/win/), make check (its windows tests under
#                      wine), make check again under
#                      ASan+UBSan (_build-asan/), make distcheck, then
#                      fuzzing when clang is installed (60 s of the front
#                      end, 31 s of the plan loader, 20 s of each parser
#                      of sandbox and network bytes)
#   ./build.sh bench   build, then make bench (see bench/README.md)
#   ./build.sh clean   remove _build/ and _build-asan/
#
# Decisions:
# - Warnings are errors in every build this script makes (--enable-werror):
#   the tree is kept warning-free with Debian 12's gcc, and the demo should
#   run exactly what CI tested.  On another compiler, VBOX_WERROR=no turns
#   it off for demo and bench; check always keeps it.
# - Dependencies are installed with apt-get only when dpkg says one is
#   missing; without root the script names them and stops.  On a system
#   without dpkg, or with VBOX_SKIP_DEPS=1, the check is skipped.
# - podman, runc and busybox-static are for tests/launch/exec_podman.sh (a real
#   container, about 2 s; it skips where podman cannot run).
# - autoreconf -fi runs when ./configure is missing or older than
#   configure.ac/Makefile.am (always on a fresh checkout);
#   VBOX_AUTORECONF=1 forces it.  After that, automake's own rebuild rules
#   keep _build/ current.
#
# Environment: JOBS (make -j, default: number of CPUs), VBOX_FUZZ_TIME
# (seconds of fuzzing in check, default 60), CI (informational only).
set -euo pipefail

DEPS="build-essential flex bison autoconf automake libtool pkg-config libjansson-dev libseccomp-dev libc-ares-dev musl-tools clang libclang-rt-14-dev bubblewrap hyperfine groff-base jq python3 python3-pytest curl wget git npm gcc-mingw-w64-x86-64 wine64 podman runc busybox-static strace"

cd "$(dirname "${BASH_SOURCE[0]}")"
top=$PWD
jobs=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
fuzz_time=${VBOX_FUZZ_TIME:-60}

say() {
	printf '\n==> %s\n' "$*"
}

die() {
	printf 'build.sh: %s\n' "$*" >&2
	exit 1
}

usage() {
	sed -n '2,16s/^# \{0,1\}//p' "$top/build.sh" >&2
	exit 2
}

# ensure_deps - install what DEPS lists and dpkg does not have.
ensure_deps() {
	local p missing=()

	if [ "${VBOX_SKIP_DEPS:-0}" = 1 ]; then
		return 0
	fi
	if ! command -v dpkg-query >/dev/null 2>&1; then
		echo "build.sh: no dpkg-query: not checking build dependencies" >&2
		echo "build.sh: needed (Debian names): $DEPS" >&2
		return 0
	fi
	for p in $DEPS; do
		if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q 'install ok installed'; then
			# A command of the package's name from elsewhere does
			# (nodesource's nodejs bundles npm, and conflicts with
			# Debian's npm package).
			case $p in
			npm | curl | wget | git | jq | hyperfine)
				command -v "$p" >/dev/null 2>&1 && continue ;;
			esac
			missing+=("$p")
		fi
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "build.sh: missing build dependencies: ${missing[*]}" >&2
		echo "build.sh: install them as root, then run this again:" >&2
		echo "  apt-get update && apt-get install -y" \
			"--no-install-recommends ${missing[*]}" >&2
		exit 1
	fi
	say "installing build dependencies: ${missing[*]}"
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y \
		--no-install-recommends "${missing[@]}"
}

# bootstrap - generate ./configure when it is missing or stale.
bootstrap() {
	if [ "${VBOX_AUTORECONF:-0}" = 1 ] || [ ! -x configure ] ||
		[ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
		say "autoreconf -fi"
		autoreconf -fi
	fi
}

# configure_in DIR ARGS... - configure DIR (out of tree) unless it was
# already configured with exactly these arguments.
configure_in() {
	local dir=$1 stamp

	shift
	stamp="$dir/.build.sh-configure-args"
	if [ -f "$dir/Makefile" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$*" ]; then
		return 0
	fi
	say "configure in $dir/: $*"
	mkdir -p "$dir"
	rm -f "$stamp"
	if ! (cd "$dir" && "$top/configure" "$@" >configure.out 2>&1); then
		tail -n 40 "$dir/configure.out" >&2
		[ -f "$dir/config.log" ] && tail -n 40 "$dir/config.log" >&2
		die "configure failed in $dir/ (see $dir/config.log)"
	fi
	# The configuration summary is the part worth reading.
	sed -n '/configuration$/,$p' "$dir/configure.out"
	printf '%s\n' "$*" >"$stamp"
}

werror_flag() {
	if [ "${VBOX_WERROR:-yes}" = no ]; then
		echo --disable-werror
	else
		echo --enable-werror
	fi
}

# build_main [FLAG] - configure and build _build/.
build_main() {
	ensure_deps
	bootstrap
	configure_in _build "${1:-$(werror_flag)}"
	say "make -j$jobs (in _build/)"
	make -C _build -j"$jobs"
}

# ---- demo ---------------------------------------------------------------

demo_failed=0

# show WANT [-q] ARGS... - print and run "vboxc ARGS", then its exit
# status; WANT is the status the demo expects.  -q hides stderr (the
# warning that earlier steps already showed).
show() {
	local want=$1 rc=0 quiet=0

	shift
	if [ "$1" = -q ]; then
		quiet=1
		shift
	fi
	printf '$ vboxc %s\n' "$*"
	if [ "$quiet" -eq 1 ]; then
		"$top/_build/vboxc" "$@" 2>/dev/null || rc=$?
	else
		"$top/_build/vboxc" "$@" 2>&1 || rc=$?
	fi
	printf '(exit status %d)\n' "$rc"
	if [ "$rc" -ne "$want" ]; then
		echo "build.sh: expected exit status $want" >&2
		demo_failed=1
	fi
}

heading() {
	printf '\n---- %s\n' "$1"
	shift
	[ $# -gt 0 ] && printf '     %s\n' "$@"
	echo
}

cmd_demo() {
	local rules=examples/demo.rules queries=examples/demo.queries
	local home=(-D HOME=/home/demo)

	build_main
	say "demo: vboxc on $rules"
	echo "The policy (higher level first; in a level the first match wins):"
	echo
	sed 's/^/    /' "$rules"

	heading "1. vboxc check: validate and analyze the table" \
		"Errors and warnings go to stderr as FILE:LINE:COL: severity:" \
		"message, then the source line and a caret line. The ro row" \
		"below the rw row can never decide: that is a warning, with a" \
		"note at the covering row, and the exit status stays 0." \
		"-D HOME=... fixes what '~' means, so the output is the same" \
		"on every machine."
	show 0 check "${home[@]}" "$rules"

	heading "2. the same check as one JSON object (--format=json)" \
		"For scripts: \"row\" is the shadowed row, \"by\" the row that" \
		"covers it, both 0-based indexes in their domain's table."
	show 0 check --format=json "${home[@]}" "$rules"

	heading "3. -Werror: the warning now fails the check (exit status 1)"
	show 1 check -Werror "${home[@]}" "$rules"

	heading "4. vboxc explain: which row decides each query" \
		"Queries come from $queries, one a line (read PATH," \
		"write PATH, net HOST:PORT). Each answer names the deciding" \
		"row, its effect, level and source, or the default that" \
		"applied. In text mode the rules' warnings come first."
	show 0 explain "${home[@]}" --queries="$queries" "$rules"

	heading "5. the same answers as JSON, one object per line"
	show 0 -q explain --format=json "${home[@]}" --queries="$queries" \
		"$rules"

	heading "6. queries as options, answered in order" \
		"A path is cleaned and a host normalized before evaluation;" \
		"\"(as ...)\" shows the form that was evaluated. An invalid" \
		"query is answered with an error, the others still are, and" \
		"the exit status is 1."
	show 1 -q explain "${home[@]}" --read=/srv/work/keys/../keys/a.pem \
		--net=GitHub.com:443 --net=github.com:99999 \
		--write=/tmp/build/out.o "$rules"

	demo_exec "$rules"
	demo_proxy

	echo
	if [ "$demo_failed" -ne 0 ]; then
		die "demo: some command did not exit as expected"
	fi
	echo "demo: done. Next: ./build.sh check runs every test;" \
		"doc/rules.md describes the rule language, doc/launcher.md" \
		"what a sandboxed command sees."
}

# demo_exec RULES - compile RULES into a plan and run a short script
# under vbox-exec: an allowed write, a refused write, a refused read and a
# refused connection.  ~ is a scratch home with a fake key in ~/.ssh;
# /tmp/build (the rules' writable root) is made if missing and removed
# again if the demo made it.
demo_exec() {
	local rules=$1 tmp home made_build=0 rc=0 left key

	tmp=$(mktemp -d "${TMPDIR:-/tmp}/vbox-demo.XXXXXX")
	home=$tmp/home
	mkdir -p "$home/.ssh"
	echo "-----BEGIN DEMO PRIVATE KEY-----" >"$home/.ssh/id_demo"
	if [ ! -d /tmp/build ]; then
		mkdir /tmp/build
		made_build=1
	fi
	cat >"$tmp/demo.sh" <<'SCRIPT'
step() {
	printf '\n  $ %s\n' "$1"
	sh -c "$1" 2>&1 | sed 's/^/  /'
}
step 'echo built >/tmp/build/out.txt && cat /tmp/build/out.txt'
step 'echo oops >/tmp/not-granted.txt'
step 'ls ~/.ssh; cat ~/.ssh/id_demo'
step 'bash -c "exec 3<>/dev/tcp/github.com/443" && echo connected'
SCRIPT

	heading "7. vbox-exec: run a command under the policy" \
		"Compiled for linux into a plan (HOME is a scratch directory" \
		"here, with a fake key in ~/.ssh), then run with bubblewrap." \
		"The script tries: a write the rw row allows (/tmp/build), a" \
		"write no row allows (@default write deny), a read of ~/.ssh" \
		"(deny row) and a connection to github.com" \
		"(@default net deny: a direct connection has no route; only" \
		"the egress proxy of step 8 leaves the sandbox)."
	show 0 -q compile --target=linux --emit=plan -D HOME="$home" \
		-o "$tmp/demo.plan" "$rules"
	show 0 -q preflight --target=linux -D HOME="$home" "$rules"
	printf '\n$ vbox-exec %s -- sh %s\n' "$tmp/demo.plan" "$tmp/demo.sh"
	HOME=$home "$top/_build/vbox-exec" "$tmp/demo.plan" -- \
		sh "$tmp/demo.sh" 2>&1 || rc=$?
	printf '(exit status %d)\n' "$rc"
	[ "$rc" -eq 0 ] || demo_failed=1

	left="does not exist"
	if [ -e /tmp/not-granted.txt ]; then
		left="EXISTS"
		demo_failed=1
	fi
	key="is unchanged"
	if ! grep -qx -- "-----BEGIN DEMO PRIVATE KEY-----" \
		"$home/.ssh/id_demo"; then
		key="WAS CHANGED"
		demo_failed=1
	fi
	echo
	echo "On the host afterwards: /tmp/build/out.txt holds" \
		"'$(cat /tmp/build/out.txt 2>/dev/null)'," \
		"/tmp/not-granted.txt $left, the key $key."
	rm -f /tmp/build/out.txt
	if [ "$made_build" -eq 1 ]; then
		rmdir /tmp/build
	fi
	rm -rf "$tmp"
}

# demo_proxy - the egress proxy: an origin this demo starts on the host's
# loopback (never an outside address), a plan allowing one port of it,
# and curl inside the sandbox: allowed directly (the loopback forward),
# allowed through the proxy, and refused through the proxy (403).
demo_proxy() {
	local tmp port origin rc=0

	make -C "$top/_build" -s tests/proxy/test_proxy >/dev/null || {
		demo_failed=1
		return
	}
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/vbox-demo.XXXXXX")
	port=$((20000 + $$ % 20000))
	"$top/_build/tests/proxy/test_proxy" --origin 127.0.0.1 "$port" &
	origin=$!
	sleep 0.3
	printf '@default net deny\n[net]\nallow: localhost:%s\n' "$port" \
		>"$tmp/proxy.rules"
	cat >"$tmp/proxy.sh" <<'SCRIPT'
step() {
	printf '\n  $ %s\n' "$1"
	sh -c "$1" 2>&1 | sed 's/^/  /'
}
step 'echo "$HTTP_PROXY" | sed "s/:[^:@]*@/:TOKEN@/"'
step "curl -s -w ' -> %{http_code}\\n' http://127.0.0.1:$P/size/0"
step "curl -s -w ' -> %{http_code}\\n' --noproxy '' http://127.0.0.1:$P/size/0"
step "curl -s -w ' -> %{http_code}\\n' --noproxy '' http://127.0.0.1:$((P + 1))/"
SCRIPT
	heading "8. vbox-exec: the egress proxy" \
		"An origin on this machine's loopback (port $port, started by" \
		"the demo) and a table allowing only that port.  Inside the" \
		"sandbox curl reaches it directly (the loopback forward), through" \
		"the proxy (HTTP_PROXY), and is refused for the next port (403," \
		"the body names the deciding default).  --log shows each decision."
	cat "$tmp/proxy.rules"
	show 0 -q compile --target=linux --emit=plan -o "$tmp/proxy.plan" \
		"$tmp/proxy.rules"
	show 0 -q preflight --target=linux "$tmp/proxy.rules"
	printf '\n$ vbox-exec --log %s -- sh %s\n' "$tmp/proxy.plan" "$tmp/proxy.sh"
	P=$port "$top/_build/vbox-exec" --log -e P="$port" "$tmp/proxy.plan" -- \
		sh "$tmp/proxy.sh" 2>&1 | grep -v 'stage:\|bubblewrap\|plan loaded\|sandbox init' || rc=$?
	kill "$origin" 2>/dev/null || :
	wait "$origin" 2>/dev/null || :
	rm -rf "$tmp"
}

# ---- check --------------------------------------------------------------

summary=()
failed=0

# stage NAME FUNCTION - run FUNCTION in a subshell with errexit (bash
# ignores set -e in functions called from a condition, so it cannot be an
# "if"), time it and record the outcome.
stage() {
	local name=$1 fn=$2 t0 rc

	say "stage: $name"
	t0=$SECONDS
	set +e
	(set -e; "$fn")
	rc=$?
	set -e
	if [ "$rc" -eq 0 ]; then
		summary+=("$name ok $((SECONDS - t0))s")
	elif [ "$rc" -eq 77 ]; then
		summary+=("$name skipped")
	else
		summary+=("$name FAILED $((SECONDS - t0))s")
		failed=1
	fi
	return 0
}

golden_state() {
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$top" status --porcelain -- golden 2>/dev/null
	fi
}

# digest_failures STAGE DIR - each failed or erred test under DIR (its
# .trs says so): its name, its "not ok" lines, the seed a random test
# printed (the line that repeats the run) and the end of its log.  Kept
# in $failures_file and printed again after the summary: CI shows the end
# of the output, and a log thousands of lines up is a flake nobody can
# name.
digest_failures() {
	local stage=$1 dir=$2 trs log

	[ -d "$dir" ] || return 0
	find "$dir" -name '*.trs' -print 2>/dev/null | LC_ALL=C sort |
		while IFS= read -r trs; do
			grep -q '^:test-result: \(FAIL\|ERROR\)' "$trs" ||
				continue
			log=${trs%.trs}.log
			echo "$stage: ${log#"$dir"/}"
			{ grep -E '^(not ok|# seed|Bail out)' "$log" || :; } \
				2>/dev/null | head -n 12 | sed 's/^/    /'
			echo "    ... the log ends:"
			{ tail -n 6 "$log" || :; } 2>/dev/null | sed 's/^/    /'
		done >>"$failures_file" || :
}

# run_check DIR - make check in DIR; on failure print the failed tests' logs.
run_check() {
	local dir=$1

	if ! make -C "$dir" -j"$jobs" check; then
		echo "---- $dir/test-suite.log" >&2
		cat "$dir/test-suite.log" >&2 || true
		digest_failures "make check in $dir" "$dir"
		return 1
	fi
}

st_build() {
	build_main --enable-werror
}

st_check() {
	local before after got

	before=$(golden_state)
	run_check _build
	after=$(golden_state)
	if [ "$before" != "$after" ]; then
		echo "build.sh: make check changed golden/:" >&2
		git -C "$top" status --short -- golden >&2
		return 1
	fi
	got=$(find golden _build/golden -name '*.got' 2>/dev/null || true)
	if [ -n "$got" ]; then
		echo "build.sh: .got files left behind: a golden differs:" >&2
		echo "$got" >&2
		return 1
	fi
}

st_asan() {
	local reports="$top/_build-asan/sanitizer-reports"

	configure_in _build-asan --enable-werror --enable-sanitizers
	make -C _build-asan -j"$jobs"
	rm -rf "$reports"
	mkdir -p "$reports"
	# Reports go to files (instead of stderr) and abort the process; a
	# report that a test swallowed (one that only expects "non-zero")
	# still fails the stage, and is printed here.
	export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:log_path=$reports/asan"
	export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan"
	local rc=0
	run_check _build-asan || rc=$?
	if [ -n "$(ls -A "$reports")" ]; then
		echo "build.sh: sanitizer reports:" >&2
		head -n 60 "$reports"/* >&2
		return 1
	fi
	return "$rc"
}

# The tarball's build and test run use the other sandbox init: vbox-init
# built with $CC (glibc) instead of musl-gcc, as on a machine without
# musl-tools, so both ways configure can build it are tested.
st_distcheck() {
	local log="$top/_build/distcheck.log"

	if ! make -C _build -j"$jobs" distcheck \
		DISTCHECK_CONFIGURE_FLAGS="--enable-werror --without-musl-init" \
		>"$log" 2>&1; then
		tail -n 80 "$log" >&2
		echo "build.sh: make distcheck failed (full log: $log)" >&2
		# The tarball's tree is left behind when its check fails.
		for sub in _build/vbox-*/_build/sub; do
			digest_failures distcheck "$sub"
		done
		return 1
	fi
	grep -A1 'ready for distribution' "$log" || tail -n 5 "$log"
}

st_fuzz() {
	if ! grep -q '^FUZZ_CC = ..*' _build/Makefile; then
		make -C _build fuzz
		return 77
	fi
	make -C _build fuzz FUZZ_TIME="$fuzz_time"
}

# The windows launcher (doc/launcher.md, "Windows"): cross-built in
# _build/win, where make check's wine tests (tests/windows/wine.sh) find
# it; the wine prefixes they make are cached there too.
st_windows() {
	configure_in _build/win --host=x86_64-w64-mingw32 --enable-werror \
		--without-musl-init
	make -C _build/win -j"$jobs" runtime/windows/vbox-exec.exe \
		tests/windows/winprobe.exe tests/windows/winacl.exe
}

# How many enforcement cases make check reported as needing windows.
windows_needs() {
	sed -n 's/^# \([0-9][0-9]*\) enforcement cases need real Windows.*/\1/p' \
		_build/tests/windows/enforce.log 2>/dev/null | head -n 1
}

cmd_check() {
	local t0=$SECONDS line build_ok n

	ensure_deps
	bootstrap
	mkdir -p _build
	failures_file=$top/_build/failed-tests.txt
	: >"$failures_file"
	stage build st_build
	build_ok=$((1 - failed))
	if [ "$build_ok" -eq 1 ]; then
		stage "windows cross build" st_windows
	fi
	if [ "$build_ok" -eq 1 ]; then
		stage "make check" st_check
	else
		summary+=("make check skipped")
	fi
	stage asan+ubsan st_asan
	if [ "$build_ok" -eq 1 ]; then
		stage distcheck st_distcheck
		stage fuzz st_fuzz
	else
		summary+=("distcheck skipped" "fuzz skipped")
	fi
	n=$(windows_needs)
	[ -z "$n" ] || summary+=("windows: $n enforcement cases need real Windows (skipped; .github/workflows/windows.yml)")
	echo
	for line in "${summary[@]}"; do
		echo "  $line"
	done
	line=$(IFS=';'; echo "${summary[*]}")
	line=${line//;/ | }
	if [ -s "$failures_file" ]; then
		echo
		echo "failed tests (the seed line repeats a random test's run):"
		cat "$failures_file"
	fi
	if [ "$failed" -ne 0 ]; then
		echo "build.sh check: FAILED ($line; total $((SECONDS - t0))s)"
		exit 1
	fi
	echo "build.sh check: PASSED ($line; total $((SECONDS - t0))s)"
}

# ---- bench, clean -------------------------------------------------------

cmd_bench() {
	build_main
	say "make bench"
	make -C _build bench
}

cmd_clean() {
	rm -rf _build _build-asan
	echo "build.sh: removed _build/ and _build-asan/"
}

[ $# -eq 1 ] || usage
case $1 in
demo) cmd_demo ;;
check) cmd_check ;;
bench) cmd_bench ;;
clean) cmd_clean ;;
-h | --help | help) usage ;;
*) usage ;;
esac
