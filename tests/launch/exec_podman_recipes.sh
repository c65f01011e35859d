#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_podman_recipes.sh - the shipped recipes, unchanged, in
# a real container (issue 31): podman with runc, Docker's default seccomp
# profile (tests/launch/ctr_docker.json: no namespaces, no pidfd_getfd(),
# no unshare()), as the container's root and as --user 65534:65534.
#
# The container's root file system is built here: the host's /usr
# mounted read-only (node, npm, python3 with pytest, git) and the build
# tree's programs at their own paths, with a project and a home
# directory of its own.  In it, `vbox-exec --mode=container` with no
# flag runs examples/node.rules (npm install from a tarball in the
# project, npm test), examples/python.rules (pytest) and
# examples/git.rules (git commit); their deny rows (<secrets>),
# <git-protect>'s holes, `**/.env` and the private /tmp are held by the
# path supervisor.  Judged from the host through the root file system:
# what each tool made is there, the npm token, the hooks and the .env are
# untouched and unread, a .env cannot be made, and the refusal of the
# .env is named on stderr.
#
# Skips, saying why, without root, podman or runc (build.sh installs
# them), without npm or pytest on the host (that case alone), or when
# podman cannot start a container here (CONTAINERS.md in the project's
# notes: runc, and no default ulimits).

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_podman
bound_script

srcdir=$(cd "$srcdir" && pwd)
B=$(dirname "$VBOX_EXEC")
B=$(cd "$B" && pwd)
for p in vbox-exec vbox-init vbox-proxy; do
	[ -x "$B/$p" ] || skip_all "no $B/$p"
done
case $B in
/usr | /usr/*) skip_all "the build tree lies in /usr, which is mounted" ;;
esac
# The root file system lies outside /tmp: the recipes' private /tmp is
# the container's /tmp, and their projects may not name it.
top=$(mktemp -d /var/tmp/vbox-test-recipes.XXXXXX)
trap 'rm -rf "$workdir" "$top"' EXIT
printf '[containers]\ndefault_ulimits = []\n' >"$top/containers.conf"
CONTAINERS_CONF=$top/containers.conf
export CONTAINERS_CONF

have_npm=
command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1 &&
	have_npm=1
have_pytest=
/usr/bin/python3 -m pytest --version >/dev/null 2>&1 && have_pytest=1

# rootfs WHO - $R for WHO (uid:gid): the host's /usr (mounted), its own
# /etc, /tmp, a project directory /p and a home /p/home
rootfs() {
	R=$top/root-${1%%:*}
	mkdir -p "$R/etc" "$R/tmp" "$R/proc" "$R/dev" "$R/sys" "$R/usr" \
		"$R/var/tmp" "$R/p/home/.npm" "$R/p/home/.cache/pip"
	chmod 1777 "$R/tmp" "$R/var/tmp"
	for l in bin lib lib64 sbin; do
		ln -s "usr/$l" "$R/$l"
	done
	printf 'root:x:0:0::/p/home:/bin/sh\nnobody:x:65534:65534::/p/home:/bin/sh\n' \
		>"$R/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$R/etc/group"
	printf '//registry.npmjs.org/:_authToken=NPM-SECRET-TOKEN\n' \
		>"$R/p/home/.npmrc"
	printf 'API_KEY=DOTENV-SECRET\n' >"$R/p/.env"
	chown -R "$1" "$R/p"
}

# pod WHO CMD... - CMD in the container as WHO, under Docker's profile
pod() {
	_u=$1
	shift
	run timeout -s KILL 300 podman run --rm --runtime "$RUNC" \
		--network=none --user "$_u" \
		--security-opt "seccomp=$srcdir/tests/launch/ctr_docker.json" \
		-v /usr:/usr:ro -v "$B:$B:ro" -e HOME=/p/home \
		-e GIT_AUTHOR_NAME=t -e GIT_AUTHOR_EMAIL=t@example.org \
		-e GIT_COMMITTER_NAME=t -e GIT_COMMITTER_EMAIL=t@example.org \
		--rootfs "$R" "$@"
}

# vx WHO EXAMPLE DIR CMD... - CMD under examples/EXAMPLE.rules (compiled
# for the project /p/DIR) in container mode, no flag, in the container
vx() {
	_u=$1
	_e=$2
	_d=$3
	shift 3
	pod "$_u" "$B/vbox-exec" --mode=container -C "/p/$_d" \
		-e GIT_AUTHOR_NAME -e GIT_AUTHOR_EMAIL -e GIT_COMMITTER_NAME \
		-e GIT_COMMITTER_EMAIL "/p/$_e.plan" -- "$@"
}

# plan EXAMPLE DIR - examples/EXAMPLE.rules for the project /p/DIR
plan() {
	run "$VBOXC" compile --target=linux --emit=plan -I "$srcdir/rules" \
		-D HOME=/p/home -D PROJECT="/p/$2" -o "$R/p/$1.plan" \
		"$srcdir/examples/$1.rules"
	is "$rc" 0 "$lbl: examples/$1.rules compiles for /p/$2"
	chmod 644 "$R/p/$1.plan"
}

# dotenv WHO EXAMPLE DIR - the .env stays unread and unmade
dotenv() {
	cp "$R/p/.env" "$R/p/$3/.env"
	chown "$1" "$R/p/$3/.env"
	vx "$1" "$2" "$3" /bin/sh -c 'cat .env; mkdir -p sub; echo X=1 >sub/.env'
	check "$lbl: $2: the project's .env is not read" \
		sh -c "! grep -q DOTENV-SECRET '$workdir/out'"
	check "$lbl: $2: ... the refusal names the row on stderr" \
		grep -q "vbox: refused open of /p/$3/\\.env (read) by row [0-9]* 'deny: \\*\\*/\\.env'" \
		"$workdir/err"
	check "$lbl: $2: ... and no .env was made (host side)" \
		test ! -e "$R/p/$3/sub/.env"
}

started=
for u in 0:0 65534:65534; do
	lbl="podman, user $u, container mode"
	rootfs "$u"
	pod "$u" /bin/sh -c 'grep "^Seccomp:" /proc/self/status'
	if [ "$rc" != 0 ]; then
		[ -n "$started" ] && not_ok "$lbl: a container runs (exit $rc)"
		[ -n "$started" ] || skip_all "podman cannot start a container here: $(head -n 1 "$workdir/err")"
		continue
	fi
	started=1
	is "$(tr '\t\n' '  ' <"$workdir/out")" "Seccomp: 2 " \
		"$lbl: a container runs, under the seccomp profile"

	# ---- node: npm install from a tarball in the project, npm test ---
	if [ -n "$have_npm" ]; then
		P=$R/p/node-proj
		node_project "$P" "$top"
		chown -R "$u" "$R/p"
		plan node node-proj
		vx "$u" node node-proj npm install --offline --no-audit \
			--no-fund --no-update-notifier
		is "$rc" 0 "$lbl: npm install --offline"
		[ "$rc" -eq 0 ] || sed 's/^/#   /' "$workdir/err" | tail -n 15
		check "$lbl: ... node_modules/tinydep is in the project (host side)" \
			test -f "$P/node_modules/tinydep/index.js"
		vx "$u" node node-proj npm test --no-update-notifier
		is "$rc" 0 "$lbl: npm test"
		check "$lbl: ... the project's test ran" grep -q 'tinydep ok' \
			"$workdir/out"
		vx "$u" node node-proj /bin/sh -c 'cat /p/home/.npmrc'
		check "$lbl: ~/.npmrc is not read" \
			sh -c "test $rc -ne 0 && ! grep -q NPM-SECRET '$workdir/out'"
		dotenv "$u" node node-proj
	else
		ok "$lbl: npm # SKIP npm or node not installed on the host"
	fi

	# ---- python: pytest --------------------------------------------
	if [ -n "$have_pytest" ]; then
		P=$R/p/py-proj
		mkdir -p "$P"
		cat >"$P/test_calc.py" <<'EOF'
import os
import tempfile


def test_add():
    assert 2 + 3 == 5


def test_tmp_is_private():
    with tempfile.NamedTemporaryFile() as f:
        assert f.name.startswith(os.environ["TMPDIR"] + "/")


def test_home_is_not_writable():
    try:
        with open(os.path.join(os.environ["HOME"], "planted"), "w") as f:
            f.write("x")
    except OSError:
        return
    raise AssertionError("wrote into the home directory")
EOF
		chown -R "$u" "$R/p"
		plan python py-proj
		vx "$u" python py-proj /usr/bin/python3 -m pytest -q -p no:cacheprovider
		is "$rc" 0 "$lbl: pytest passes"
		[ "$rc" -eq 0 ] || sed 's/^/#   /' "$workdir/out" | tail -n 15
		check "$lbl: ... its three tests ran" grep -q '3 passed' \
			"$workdir/out"
		check "$lbl: ... and nothing was planted in the home directory (host side)" \
			test ! -e "$R/p/home/planted"
		dotenv "$u" python py-proj
	else
		ok "$lbl: pytest # SKIP python3 -m pytest not installed on the host"
	fi

	# ---- git: commit; hooks and configuration kept -----------------
	P=$R/p/repo
	mkdir -p "$P"
	git -C "$P" init -q
	echo one >"$P/a.txt"
	chown -R "$u" "$R/p"
	plan git repo
	vx "$u" git repo /bin/sh -c 'git add a.txt && git commit -q -m one'
	is "$rc" 0 "$lbl: git commit"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$workdir/err" | tail -n 10
	is "$(git -c safe.directory="$P" -C "$P" log --format=%s 2>/dev/null)" one \
		"$lbl: ... the commit is in the repository (host side)"
	vx "$u" git repo /bin/sh -c 'echo "#!/bin/sh" >.git/hooks/pre-commit'
	check "$lbl: a hook cannot be planted (host side)" \
		test ! -e "$P/.git/hooks/pre-commit"
	vx "$u" git repo git config core.hooksPath /x
	check "$lbl: .git/config cannot be written (host side)" \
		sh -c '! grep -q hooksPath "$1/.git/config"' sh "$P"
done

done_testing
