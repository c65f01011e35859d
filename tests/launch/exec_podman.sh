#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_podman.sh - vbox-exec in a real container (issue 21): podman
# with runc, a root file system built here from busybox and the build's
# own programs (no image registry is needed), and the errnos of Docker's
# default seccomp profile (tests/launch/ctr_docker.json), as the container's
# root and as --user 65534:65534.
#
#   --mode=ns         exits 125 naming the probed cause (the seccomp
#                     filter) and suggesting --mode=container; the
#                     command does not run.  Under podman's own default
#                     profile (unshare allowed, /proc paths masked) it
#                     exits 125 naming the masked /proc, and runs with
#                     --security-opt unmask=ALL
#   --mode=container  runs the demo plan (examples/demo.rules, its paths
#                     under /w; no flag: its deny rows are held by the
#                     path supervisor), with Docker's profile as it is (no
#                     CAP_SYS_PTRACE: pidfd_getfd refused) and as with
#                     --cap-add=SYS_PTRACE; judged from the host through
#                     the root file system: the allowed write landed, a
#                     write outside the roots and to the denied key
#                     changed nothing, no secret was printed
#
# Skips, saying why, without root, podman, runc or busybox (build.sh
# installs them), or when podman cannot start a container here.  podman's
# default runtime, crun, fails on this project's machines (cgroups in
# hybrid mode) and root lacks CAP_SYS_RESOURCE, so the test uses runc and
# a containers.conf of its own without default ulimits (CONTAINERS_CONF).

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_podman
BUSYBOX=$(command -v busybox 2>/dev/null || :)
[ -n "$BUSYBOX" ] && ! ldd "$BUSYBOX" >/dev/null 2>&1 ||
	skip_all "no static busybox (busybox-static)"
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY (to derive the SYS_PTRACE profile)"
bound_script

srcdir=$(cd "$srcdir" && pwd)
cd "$workdir"
B=$(dirname "$VBOX_EXEC")
B=$(cd "$B" && pwd)
R=$workdir/rootfs
printf '[containers]\ndefault_ulimits = []\n' >containers.conf
CONTAINERS_CONF=$workdir/containers.conf
export CONTAINERS_CONF

# copy_bin PATH - PATH at the same path in the root file system, with
# the shared libraries ldd names
copy_bin() {
	mkdir -p "$R$(dirname "$1")"
	cp -L "$1" "$R$1"
	ldd "$1" 2>/dev/null | awk '/=> \// { print $3 } /^\t\// { print $1 }' |
		while read -r _lib; do
			mkdir -p "$R$(dirname "$_lib")"
			cp -L "$_lib" "$R$_lib"
		done
}

mkdir -p "$R/bin" "$R/tmp" "$R/proc" "$R/dev" "$R/sys" "$R/etc"
chmod 1777 "$R/tmp"
cp "$BUSYBOX" "$R/bin/busybox"
for a in sh cat echo ls id grep touch; do
	ln -s busybox "$R/bin/$a"
done
echo "root:x:0:0::/:/bin/sh" >"$R/etc/passwd"
echo "nobody:x:65534:65534::/:/bin/sh" >>"$R/etc/passwd"
# The build tree's programs at their own paths: vbox-exec finds the build
# tree's vbox-init and vbox-proxy by its own path (doc/launcher.md).
for p in vbox-exec vbox-init vbox-proxy; do
	[ -x "$B/$p" ] || skip_all "no $B/$p"
	copy_bin "$B/$p"
done
BWRAP=$(command -v bwrap 2>/dev/null || :)
[ -n "$BWRAP" ] && copy_bin "$BWRAP"

# The demo plan with its paths under /w.
W=$R/w
mkdir -p "$W/srv/work/keys" "$W/build" "$W/home/.ssh" "$W/outside" \
	"$W/opt/tool chain" "$W/m"
tag=$$
printf 'SECRET-KEY-%s\n' "$tag" >"$W/srv/work/keys/release.key"
printf 'SECRET-SSH-%s\n' "$tag" >"$W/home/.ssh/id_demo"
printf 'host file\n' >"$W/outside/existing"
chmod -R a+rwX "$W"
sed -e "s|/srv/work|/w/srv/work|g" -e "s|/tmp/build|/w/build|g" \
	-e "s|\"/opt/tool chain|\"/w/opt/tool chain|" \
	"$srcdir/examples/demo.rules" >demo.rules
"$VBOXC" compile --target=linux --emit=plan -D HOME=/w/home \
	-o "$W/demo.plan" demo.rules 2>/dev/null
printf '@default write deny\n[fs]\nrw: /w/m\n' >m.rules
"$VBOXC" compile --target=linux --emit=plan -o "$W/m.plan" m.rules
cat >"$W/attack.sh" <<'EOF'
n=$1
cat /w/home/.ssh/id_demo
cat /w/srv/work/keys/release.key
echo "built-$n" >"/w/build/out-$n.txt" && echo "write-rw ok"
echo "pwned-$n" >>/w/outside/existing && echo "write-outside ok"
echo "pwned-$n" >/w/srv/work/keys/release.key && echo "write-key ok"
exit 0
EOF

cp "$srcdir/tests/launch/ctr_docker.json" docker.json
"$PY" - <<'EOF'
import json
p = json.load(open("docker.json"))
p["syscalls"] = [s for s in p["syscalls"] if "pidfd_getfd" not in s["names"]]
json.dump(p, open("docker-ptrace.json", "w"), indent=1)
EOF

# pod USER [PODMAN-OPTION...] -- COMMAND... - run COMMAND in the container
pod() {
	_u=$1
	shift
	_o=
	while [ "$1" != -- ]; do
		_o="$_o $1"
		shift
	done
	shift
	run timeout -s KILL 120 podman run --rm --runtime "$RUNC" \
		--network=none --user "$_u" $_o --rootfs "$R" "$@"
}

pod 0:0 --security-opt "seccomp=$workdir/docker.json" -- /bin/sh -c \
	'grep "^Seccomp:" /proc/self/status; id -u'
if [ "$rc" != 0 ]; then
	skip_all "podman cannot start a container here: $(head -n 1 err)"
fi
is "$(tr '\t\n' '  ' <out)" "Seccomp: 2 0 " \
	"a container runs, under the seccomp profile"

sum() {
	cksum "$W/outside/existing" "$W/srv/work/keys/release.key"
}
sum >sums.before

for u in 0:0 65534:65534; do
	rm -f "$W/m/ran"
	pod "$u" --security-opt "seccomp=$workdir/docker.json" -- \
		"$B/vbox-exec" --mode=ns --timeout=60 /w/m.plan -- \
		touch /w/m/ran
	is "$rc" 125 "user $u, namespace mode: exit 125"
	check "... naming the seccomp filter and suggesting --mode=container" \
		grep -q "user namespaces are refused here: .*refused by this process's seccomp filter.*; --mode=container" err
	check "... the command did not run (host side)" test ! -e "$W/m/ran"

	for prof in docker docker-ptrace; do
		caps=
		[ "$prof" = docker-ptrace ] && caps=--cap-add=SYS_PTRACE
		n=$prof-${u%%:*}
		pod "$u" --security-opt "seccomp=$workdir/$prof.json" $caps -- \
			"$B/vbox-exec" --mode=container \
			--timeout=60 /w/demo.plan -- /bin/sh /w/attack.sh "$n"
		_p="user $u, $prof${caps:+ $caps}, container mode:"
		if [ "$rc" = 0 ] && [ "$(cat "$W/build/out-$n.txt" 2>/dev/null)" = "built-$n" ]; then
			ok "$_p the demo plan runs; its allowed write landed" \
				"(host side)"
		else
			not_ok "$_p the demo plan runs (exit $rc)"
			sed 's/^/#   /' err | head -n 5
		fi
		sum >sums.after
		check "$_p writes outside the roots and to the denied key changed nothing (host side)" \
			cmp -s sums.before sums.after
		check "$_p no secret was printed" \
			sh -c '! grep -q SECRET- out err'
	done

	# podman's own default profile allows unshare, but masks paths of
	# /proc: bubblewrap's new /proc is refused, and the probe says so;
	# with the masks lifted, namespace mode runs
	rm -f "$W/m/ran"
	pod "$u" -- "$B/vbox-exec" --mode=ns --timeout=60 /w/m.plan -- \
		touch /w/m/ran
	is "$rc" 125 "user $u, podman's default profile, namespace mode: exit 125"
	check "... naming the masked /proc and suggesting --mode=container" \
		grep -q "namespace mode cannot start here: a new /proc cannot be mounted (mount proc: EPERM.* paths below this /proc are covered by mounts.*; --mode=container" err
	check "... the command did not run (host side)" test ! -e "$W/m/ran"
	pod "$u" --security-opt unmask=ALL -- "$B/vbox-exec" --mode=ns \
		--timeout=60 /w/m.plan -- touch /w/m/ran
	check "... with --security-opt unmask=ALL namespace mode runs (host side)" \
		test "$rc" = 0 -a -e "$W/m/ran"
done

done_testing
