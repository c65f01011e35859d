#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_examples.sh - the shipped recipes examples/node.rules,
# examples/python.rules and examples/git.rules, each compiled for a
# project given with -D PROJECT=DIR and run with the real tool, offline,
# under vbox-exec, as root and as uid 65534 (node and python with their
# private /tmp, which the tools write in): npm installs a dependency
# from a tarball in the project and runs the project's tests, pytest runs
# a suite, git commits.  Judged from the host side: what the tool made
# is there, and what the recipe keeps (the npm token, git's hooks and
# configuration, the home directory, the project's .env) is untouched,
# a .env neither read nor made, and the refusal named on stderr.
#
# Each recipe runs unchanged in both modes: namespace mode on the host,
# and container mode (--mode=container, no flag) in the reproduced
# conditions of Docker's default seccomp profile (tests/launch/ctr_env
# --docker: no namespaces, no pidfd_getfd(), no unshare()), where its
# deny rows, <git-protect>'s holes, `**/.env` and the private /tmp are
# held by the path supervisor (doc/launcher.md, "Container mode").
# VBOX_EXAMPLES_MODES chooses the modes ("ns container").
. "${srcdir:-$(dirname "$0")/../..}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
set_users
CTR_ENV=${top_builddir:-.}/tests/launch/ctr_env
modes=${VBOX_EXAMPLES_MODES:-ns container}
case " $modes " in
*" container "*)
	if [ ! -x "$CTR_ENV" ]; then
		echo "# container mode: no $CTR_ENV (make check builds it):" \
			"namespace mode only"
		modes=ns
	else
		CTR_ENV=$(cd "$(dirname "$CTR_ENV")" && pwd)/ctr_env
	fi
	;;
esac

rules=$top_srcdir/rules
ex=$top_srcdir/examples
# The projects lie outside /tmp (node and python have a private /tmp,
# and a row naming the host's /tmp is an error then); the uid 65534
# runs need to reach their directories.
top=$(mktemp -d /var/tmp/vbox-test-examples.XXXXXX)
chmod 755 "$top"
trap 'rm -rf "$workdir" "$top"' EXIT

have_npm=
command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1 &&
	have_npm=1
py=
for p in /usr/bin/python3 python3; do
	if "$p" -m pytest --version >/dev/null 2>&1; then
		py=$(command -v "$p")
		break
	fi
done

# setup WHO MODE - $base (owned by WHO) with a fresh home directory
# $home: no ~/.npm, no ~/.cache yet, as on a new runner (the recipes'
# caches are made by the launcher, doc/launcher.md).
setup() {
	base=$top/$1-$2
	home=$base/home
	mkdir -p "$home"
	printf '//registry.npmjs.org/:_authToken=NPM-SECRET-TOKEN\n' \
		>"$home/.npmrc"
	[ "$1" = root ] || chown -R 65534:65534 "$base"
}

# vx WHO PLAN DIR CMD... - run CMD under vbox-exec with PLAN as WHO, in
# DIR, with HOME=$home, bounded, in $mode (container: under Docker's
# reproduced errnos); stdout, stderr and $rc as run() sets.
vx() {
	_w=$1
	_p=$2
	_d=$3
	shift 3
	if [ "$mode" = container ]; then
		set -- "$CTR_ENV" --docker -- "$VBOX_EXEC" --mode=container \
			-C "$_d" -e GIT_AUTHOR_NAME=t \
			-e GIT_AUTHOR_EMAIL=t@example.org \
			-e GIT_COMMITTER_NAME=t \
			-e GIT_COMMITTER_EMAIL=t@example.org ${VX_OPTS:-} "$_p" \
			-- "$@"
	else
		set -- "$VBOX_EXEC" ${VX_OPTS:-} -C "$_d" -e GIT_AUTHOR_NAME=t \
			-e GIT_AUTHOR_EMAIL=t@example.org \
			-e GIT_COMMITTER_NAME=t \
			-e GIT_COMMITTER_EMAIL=t@example.org "$_p" -- "$@"
	fi
	run as_user "$_w" env HOME="$home" timeout 300 "$@"
}

# quiet LABEL - the launch just run printed no warning on stderr
quiet() {
	if grep -q 'warning:' "$workdir/err"; then
		not_ok "$1: ... and it printed no warning"
		grep 'warning:' "$workdir/err" | sed 's/^/#   /'
	else
		ok "$1: ... and it printed no warning"
	fi
}

# dotenv LABEL PLAN DIR - the project's .env is neither read nor made,
# and the refusal names the row
dotenv() {
	printf 'API_KEY=DOTENV-SECRET\n' >"$3/.env"
	[ "$who" = root ] || chown 65534:65534 "$3/.env"
	vx "$who" "$2" "$3" sh -c 'cat .env; cat sub/.env'
	check "$1: the project's .env cannot be read" \
		sh -c "test $rc -ne 0 && ! grep -q DOTENV-SECRET '$workdir/out'"
	check "$1: ... and the refusal names the row on stderr" \
		grep -q "vbox: refused open of .*/\\.env (read) by row [0-9]* 'deny: \\*\\*/\\.env'" \
		"$workdir/err"
	vx "$who" "$2" "$3" sh -c 'mkdir -p sub && echo X=1 >sub/.env'
	check "$1: ... nor can a new .env be made" test ! -e "$3/sub/.env"
	check "$1: ... the .env is unchanged (host side)" \
		grep -qx 'API_KEY=DOTENV-SECRET' "$3/.env"
	rm -rf "$3/sub"
}

# plan WHO EXAMPLE PROJECT - compile examples/EXAMPLE.rules as WHO for
# PROJECT into $base/EXAMPLE.plan.
plan() {
	run as_user "$1" "$VBOXC" compile --target=linux --emit=plan \
		-I "$rules" -D HOME="$home" -D PROJECT="$3" \
		-o "$base/$2.plan" "$ex/$2.rules"
	is "$rc" 0 "$lbl: examples/$2.rules compiles with -D PROJECT=$3"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$workdir/err"
}

node_case() {
	who=$1
	if [ -z "$have_npm" ]; then
		ok "$lbl: npm # SKIP npm or node not installed"
		return
	fi
	proj=$base/node-proj
	node_project "$proj" "$base"
	[ "$who" = root ] || chown -R 65534:65534 "$base"
	plan "$who" node "$proj"
	vx "$who" "$base/node.plan" "$proj" npm install --offline --no-audit \
		--no-fund --no-update-notifier
	is "$rc" 0 "$lbl: npm install --offline in the sandbox"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$workdir/err" | tail -n 20
	quiet "$lbl: npm install, a fresh home"
	check "$lbl: ... npm's cache ~/.npm was made, and used" \
		test -d "$home/.npm/_cacache"
	check "$lbl: ... node_modules/tinydep is in the project" \
		test -f "$proj/node_modules/tinydep/index.js"
	vx "$who" "$base/node.plan" "$proj" npm test --no-update-notifier
	is "$rc" 0 "$lbl: npm test in the sandbox"
	check "$lbl: ... the project's test ran" grep -q 'tinydep ok' \
		"$workdir/out"
	vx "$who" "$base/node.plan" "$proj" node -e \
		"require('fs').readFileSync(process.env.HOME + '/.npmrc')"
	check "$lbl: the npm token in ~/.npmrc is not readable inside" \
		test "$rc" -ne 0
	vx "$who" "$base/node.plan" "$proj" node -e \
		"require('fs').writeFileSync(process.env.HOME + '/planted', 'x')"
	check "$lbl: ... nor is the home directory writable" \
		test ! -e "$home/planted"
	check "$lbl: ... and ~/.npmrc is unchanged" grep -q NPM-SECRET-TOKEN \
		"$home/.npmrc"
	dotenv "$lbl: npm" "$base/node.plan" "$proj"
}

python_case() {
	who=$1
	if [ -z "$py" ]; then
		ok "$lbl: pytest # SKIP pytest (python3 -m pytest) not installed"
		return
	fi
	proj=$base/py-proj
	mkdir -p "$proj"
	cat >"$proj/test_calc.py" <<'EOF'
import os


def add(a, b):
    return a + b


def test_add():
    assert add(2, 3) == 5


def test_home_is_not_writable():
    try:
        with open(os.path.join(os.environ["HOME"], "planted"), "w") as f:
            f.write("x")
    except OSError:
        return
    raise AssertionError("wrote into the home directory")
EOF
	[ "$who" = root ] || chown -R 65534:65534 "$base"
	plan "$who" python "$proj"
	vx "$who" "$base/python.plan" "$proj" "$py" -m pytest -q
	is "$rc" 0 "$lbl: pytest passes in the sandbox"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$workdir/out" | tail -n 20
	quiet "$lbl: pytest, a fresh home without ~/.cache"
	check "$lbl: ... both tests ran" grep -q '2 passed' "$workdir/out"
	check "$lbl: ... pytest's cache is in the project" \
		test -d "$proj/.pytest_cache"
	check "$lbl: ... and nothing was planted in the home directory" \
		test ! -e "$home/planted"
	vx "$who" "$base/python.plan" "$proj" sh -c \
		'echo c >"$HOME/.cache/pip/probe" && ! echo x >"$HOME/.cache/other"'
	check "$lbl: ... pip's cache ~/.cache/pip was made, writable; ~/.cache is not" \
		sh -c "test $rc -eq 0 && test -f '$home/.cache/pip/probe' &&
			test ! -e '$home/.cache/other'"
	dotenv "$lbl: python" "$base/python.plan" "$proj"
}

git_case() {
	who=$1
	proj=$base/repo
	mkdir -p "$proj"
	git -C "$proj" init -q
	echo one >"$proj/a.txt"
	[ "$who" = root ] || chown -R 65534:65534 "$base"
	plan "$who" git "$proj"
	vx "$who" "$base/git.plan" "$proj" sh -c \
		'git add a.txt && git commit -q -m one'
	is "$rc" 0 "$lbl: git commit in the sandbox"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$workdir/err"
	quiet "$lbl: git commit, a fresh home"
	is "$(git -c safe.directory="$proj" -C "$proj" log --format=%s 2>/dev/null)" one \
		"$lbl: ... the commit is in the repository"
	vx "$who" "$base/git.plan" "$proj" sh -c \
		'echo "#!/bin/sh" >.git/hooks/pre-commit'
	check "$lbl: a hook cannot be planted" test ! -e "$proj/.git/hooks/pre-commit"
	vx "$who" "$base/git.plan" "$proj" git config core.hooksPath /x
	check "$lbl: .git/config cannot be written" \
		sh -c '! grep -q hooksPath "$1/.git/config"' sh "$proj"
}

# every_example WHO - each examples/*.rules, compiled for a project, as
# on a new runner (a fresh home, no caches), launches without a warning.
every_example() {
	_h=$home
	home=$base/fresh-home
	mkdir -p "$home" "$base/any-proj"
	[ "$1" = root ] || chown -R 65534:65534 "$home" "$base/any-proj"
	for _r in "$ex"/*.rules; do
		_n=$(basename "$_r" .rules)
		# demo.rules (./build.sh demo, as root) names host paths
		# (/srv/work, /tmp/build) that only root may make
		[ "$_n" != demo ] || [ "$1" = root ] || continue
		plan "$1" "$_n" "$base/any-proj"
		# (set and cleared: an assignment before a function call
		# may outlive it in some shells)
		VX_OPTS=--dry-run
		vx "$1" "$base/$_n.plan" "$base/any-proj" true
		VX_OPTS=
		sed -n "s/.*'\(.*\)' did not exist on the host.*/\1/p" \
			"$workdir/err" >"$base/made"
		vx "$1" "$base/$_n.plan" "$base/any-proj" true
		is "$rc" 0 "$lbl: examples/$_n.rules launches on a fresh home"
		[ "$rc" -eq 0 ] || sed 's/^/#   /' "$workdir/err"
		quiet "$lbl: examples/$_n.rules"
		# the writable roots it made outside the test's directory go,
		# so the next launch starts as fresh
		while IFS= read -r _c; do
			case $_c in "$top"/*) ;; *) rmdir "$_c" 2>/dev/null || : ;; esac
		done <"$base/made"
	done
	home=$_h
}

for mode in $modes; do
	for who in $users; do
		case $who in root) lbl="uid 0" ;; *) lbl="uid 65534" ;; esac
		lbl="$mode, $lbl"
		setup "$who" "$mode"
		every_example "$who"
		node_case "$who"
		python_case "$who"
		git_case "$who"
		# container mode: the private /tmp is the sandbox's $TMPDIR
		# in the host's /tmp, written there and gone after the run
		[ "$mode" = container ] || continue
		vx "$who" "$base/python.plan" "$base" sh -c \
			'echo "$TMPDIR"; echo x >"$TMPDIR/t" && cat "$TMPDIR/t"; ls /tmp'
		_t=$(head -n 1 "$workdir/out")
		check "$lbl: \$TMPDIR is the launch's own directory in /tmp, writable" \
			sh -c "case '$_t' in /tmp/vbox-tmp.??????) ;; *) exit 1 ;; esac &&
				sed -n 2p '$workdir/out' | grep -qx x"
		check "$lbl: ... the host's /tmp is not listed" \
			grep -q "ls: cannot open directory '/tmp'" "$workdir/err"
		check "$lbl: ... and the directory is gone after the run" \
			test ! -e "$_t"
	done
done

done_testing
