#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_supervised.sh - supervised deny and ro globs on linux
# (issue 23; doc/launcher.md, "Supervised paths") under the real
# launcher and bubblewrap, as root and as uid 65534, judged from the host
# side wherever the host can see it.
#
# The plan is the one people write first for a workspace:
#
#     rw:  W/**
#     !deny: W/**/.env          (a glob inside the writable region)
#     !deny: **/.env            (rootless)
#     !deny: W/**/keys/*.pem    (matches a rename of "keys" moves out)
#     !ro:  **/.git/hooks/**
#     !ro: W/config, !!deny: W/secret.txt, !ro: W/docs, !!deny: W/private,
#     !!deny: W/absent-secret   (literal rows: held by mounts)
#
# - a .env (existing, created later by the host at any depth, or named
#   by the child) cannot be read, written, created, linked, renamed,
#   removed, executed, bound as a socket or have its metadata changed
#   (EACCES); an .git/hooks entry reads but refuses every write (EROFS);
#   each refused call is paired with the same call on an ordinary name,
#   which must work;
# - the indirect ways: a symlink made inside, a hard link, a rename of
#   the parent directory out of the glob (the `mv` fallback copy too),
#   openat/openat2 from a directory fd opened before the host made the
#   .env, /proc/self/fd/N of a directory or of an O_PATH fd,
#   /proc/self/cwd/.env, /proc/1/root, a denied program named on a
#   script's #! line;
# - the files and directories the literal rows cover cannot be renamed,
#   removed or replaced (the supervisor makes its calls outside the
#   sandbox's mount namespace), the denied absent path stays absent;
# - a host daemon's socket named .env cannot be reached; io_uring stays
#   refused;
# - every member of each path-call family by number (x86-64), from
#   AT_FDCWD and from a directory fd, x32 entries, the calls numbered
#   451 and up; the host checks modes and extended attributes after;
# - a thread with its own working directory (unshare(CLONE_FS)) resolves
#   relative names from it; a .env past PATH_MAX, reached by relative
#   names, is refused;
# - races: a name swapped (RENAME_EXCHANGE, by a second process)
#   between a plain entry and a symlink to a key's directory, a .env or a
#   hook while the child opens it: the plain entry or a refusal, never
#   the target; a flood of 16 processes opening a .env: all refused;
# - the host's files are intact afterwards, no secret reached the child's
#   output, nothing named .env or made through one is left;
# - a refusal says `vbox: ... row ...` on stderr, and --log names it.
#
# VBOX_SUP_MODE=container runs all of it under --mode=container
# (exec_supervised_ctr.sh).
#
# (What works beside them, SIGKILL of the launcher, the i386 entry,
# stdin, FIFOs, long paths, core dumps and container mode:
# exec_supervised_work.sh.)

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/launch/supervised_lib.sh"
# VBOX_SUP_MODE=container: the same calls under --mode=container
vx_mode=
[ "${VBOX_SUP_MODE:-ns}" = container ] && vx_mode=--mode=container

# The child's calls (W is the workspace): the refused ones, each after
# the same call on an ordinary name; then it marks "ready" and waits for
# the host to make .env files and a .git/hooks it opened nothing of.
write_ops() {
	W=$1
	cat <<EOF
# deny: an existing .env, read or written by every open call
ctl-read ok read $W/plain
env-read EACCES read $W/.env
env-deep-read EACCES read $W/a/b/c/.env
env-rawopen EACCES rawopen $W/.env
ctl-write ok write $W/plain
env-write EACCES write $W/.env
env-rdwr EACCES rdwr $W/.env
ctl-trunc ok trunc $W/plain5
env-trunc EACCES trunc $W/.env
ctl-openat ok openat $W plain
env-openat EACCES openat $W .env
ctl-openat2 ok openat2 $W plain
env-openat2 EACCES openat2 $W .env
env-openat2-deep EACCES openat2 $W/a b/c/.env
env-relative EACCES relative $W .env
env-dotdot EACCES read $W/a/../.env
env-slashes EACCES read $W//a/b//c/.env
# deny: new names
ctl-excl ok excl $W/new-file
env-excl EACCES excl $W/a/.env
ctl-creat ok creat $W/new-creat
env-creat EACCES creat $W/a/b/.env
env-creat-existing EACCES creat $W/.env
ctl-mkdir ok mkdir $W/new-dir
env-mkdir EACCES mkdir $W/new-dir/.env
ctl-mkfifo ok mkfifo $W/new-fifo
env-mkfifo EACCES mkfifo $W/ln/.env
# deny: a directory opened for its listing (opendir()'s flags)
ctl-listdir ok listdir $W/a
env-listdir EACCES listdir $W/ed/.env
env-listdir-file EACCES listdir $W/.env
ctl-listdir-file ENOTDIR listdir $W/plain
edl-made-any any symlink ../ed/.env $W/ln/edl
edl-listdir refused listdir $W/ln/edl
ctl-listdir-fifo ENOTDIR fifolist $W/new-fifo
ctl-mknod ok mknod $W/new-node
env-mknod EACCES mknod $W/new-dir/.env
ctl-symlink ok symlink plain $W/new-link
env-symlink-named EACCES symlink plain $W/a/.env
ctl-link ok link $W/plain $W/new-hard
env-link-to EACCES link $W/plain2 $W/a/b/.env
env-link-from EACCES link $W/.env $W/ln/hard
ctl-rename ok rename $W/plain3 $W/plain3-moved
env-rename-to EACCES rename $W/plain2 $W/a/.env
env-rename-from EACCES rename $W/.env $W/ln/moved
ctl-exchange ok exchange $W/plain4 $W/plain3-moved
env-exchange EACCES exchange $W/plain4 $W/.env
ctl-bind ok bind $W/sock/ok.sock
env-bind EACCES bind $W/sock/.env
env-bind-in EACCES bind $W/ed/.env/in.sock
ctl-exec ok exec $W/tools/ok.sh
env-exec EACCES exec $W/tools/.env
env-exec-shebang refused exec $W/tools/via.sh
# deny: metadata
ctl-chmod ok chmod $W/plain
env-chmod EACCES chmod $W/.env
ctl-chown ok chown $W/plain
env-chown EACCES chown $W/.env
ctl-utime ok utime $W/plain
env-utime EACCES utime $W/.env
ctl-setxattr ok setxattr $W/plain
env-setxattr EACCES setxattr $W/.env
ctl-truncate ok truncate $W/plain5
env-truncate EACCES truncate $W/.env
ctl-unlink ok unlink $W/new-file
env-unlink EACCES unlink $W/.env
# deny: the indirect ways
link-made-any any symlink $W/.env $W/ln/alias
link-read refused read $W/ln/alias
rel-link-made-any any symlink ../a/b/c/.env $W/ln/alias2
rel-link-read refused read $W/ln/alias2
dir-link-made-any any symlink ../k/keys $W/ln/kd
dir-link-read refused read $W/ln/kd/id.pem
hook-link-made-any any symlink ../repo/.git/hooks/pre-commit $W/ln/hk
hook-link-write EROFS write $W/ln/hk
procfd-dir refused procfd $W/a/b/c .env
procfd-opath refused opath $W/.env
ctl-opath ok opath $W/plain
proc-cwd refused cwd $W .env
pem-read EACCES read $W/k/keys/id.pem
pem-dir-rename EACCES|EXDEV rename $W/k/keys $W/k/open
pem-after-rename refused read $W/k/open/id.pem
pem-dir-exchange EACCES|EXDEV exchange $W/k/keys $W/new-dir
pem-after-exchange refused read $W/new-dir/id.pem
# ro: an existing .git/hooks entry reads, and refuses every write
hook-read ok read $W/repo/.git/hooks/pre-commit
hook-write EROFS write $W/repo/.git/hooks/pre-commit
hook-trunc EROFS trunc $W/repo/.git/hooks/pre-commit
hook-excl EROFS excl $W/repo/.git/hooks/post-commit
hook-creat EROFS creat $W/repo/.git/hooks/post-merge
hook-mkdir EROFS mkdir $W/repo/.git/hooks/sub
hook-mkfifo EROFS mkfifo $W/repo/.git/hooks/fifo
hook-symlink EROFS symlink $W/plain $W/repo/.git/hooks/pre-push
hook-link-to EROFS link $W/plain $W/repo/.git/hooks/pre-rebase
hook-link-from EROFS link $W/repo/.git/hooks/pre-commit $W/ln/hook
hook-rename-from EROFS rename $W/repo/.git/hooks/pre-commit $W/ln/hook2
hook-rename-to EROFS rename $W/plain2 $W/repo/.git/hooks/update
hook-dir-rename EROFS rename $W/repo/.git/hooks $W/repo/.git/hooks-away
hook-unlink EROFS unlink $W/repo/.git/hooks/pre-commit
hook-chmod EROFS chmod $W/repo/.git/hooks/pre-commit
hook-chattr EPERM chattr $W/repo/.git/hooks/pre-commit
hook-setversion EPERM setversion $W/repo/.git/hooks/pre-commit
hook-chown EROFS chown $W/repo/.git/hooks/pre-commit
hook-utime EROFS utime $W/repo/.git/hooks/pre-commit
hook-setxattr EROFS setxattr $W/repo/.git/hooks/pre-commit
hook-truncate EROFS truncate $W/repo/.git/hooks/pre-commit
hook-dir-chmod EROFS chmod $W/repo/.git/hooks
hook-git-rename EROFS|EACCES|EXDEV rename $W/repo/.git $W/repo/dotgit
ctl-git-mkdir ok mkdir $W/g1
ctl-git-mkdir2 ok mkdir $W/g1/.git
hook-mkdir-later EROFS mkdir $W/g1/.git/hooks
# created after launch by the host: a directory fd opened before
# literal rows held by mounts: the supervisor's own calls must not
# move, remove or replace what they cover
lit-ro-read ok read $W/config
lit-ro-write EROFS write $W/config
lit-ro-rename refused rename $W/config $W/sys/config.old
lit-ro-replace refused excl $W/config
lit-ro-unlink refused unlink $W/config
lit-ro-link-over refused link $W/plain $W/config
lit-deny-read any read $W/secret.txt
lit-deny-write any write $W/secret.txt
lit-deny-rename refused rename $W/secret.txt $W/sys/secret.old
lit-deny-replace refused excl $W/secret.txt
lit-deny-unlink refused unlink $W/secret.txt
lit-ro-dir-rename refused rename $W/docs $W/sys/docs.old
lit-ro-dir-replace refused mkdir $W/docs
lit-ro-dir-rmdir refused rmdir $W/docs
lit-deny-dir-read refused read $W/private/key
lit-deny-dir-rename refused rename $W/private $W/sys/private.old
lit-deny-dir-replace refused mkdir $W/private
lit-absent-create refused excl $W/absent-secret
lit-absent-rename any rename $W/absent-secret $W/sys/absent.old
lit-absent-unlink any unlink $W/absent-secret
lit-absent-rmdir any rmdir $W/absent-secret
lit-absent-create2 refused excl $W/absent-secret
lit-absent-write refused write $W/absent-secret
lit-absent-mkdir refused mkdir $W/absent-secret
# every member of each family, by number (x86-64): a .env, then a
# hook, each after the same call on an ordinary name
proc-root refused read /proc/self/root$W/.env
proc-1-root refused read /proc/1/root$W/.env
proc-1-cwd refused cwd / ../../proc/1/cwd$W/.env
ctl-dirfd-fchmodat ok sysdir $W 268 DIRFD s:plain i:0o644 i:0
env-dirfd-fchmodat EACCES sysdir $W 268 DIRFD s:.env i:0o600 i:0
env-dirfd-fchownat EACCES sysdir $W 260 DIRFD s:.env uid gid i:0
env-dirfd-utimensat EACCES sysdir $W 280 DIRFD s:.env null i:0
env-dirfd-unlinkat EACCES sysdir $W 263 DIRFD s:.env i:0
env-dirfd-renameat EACCES sysdir $W 264 DIRFD s:.env DIRFD s:moved-dirfd
env-dirfd-linkat EACCES sysdir $W 265 DIRFD s:.env DIRFD s:linked-dirfd i:0
env-dirfd-mkdirat EACCES sysdir $W/sys 258 DIRFD s:.env i:0o755
env-dirfd-symlinkat EACCES sysdir $W/sys 266 s:x DIRFD s:.env
env-dirfd-openat EACCES sysdir $W 257 DIRFD s:.env i:0
env-dirfd-openat-up EACCES sysdir $W/a/b 257 DIRFD s:../../.env i:0
ctl-sys-open ok sysfd 2 s:$W/plain i:0
env-sys-open EACCES sysfd 2 s:$W/.env i:0
env-sys-open-wr EACCES sysfd 2 s:$W/.env i:1
ctl-sys-openat ok sysfd 257 AT s:$W/plain i:0
env-sys-openat EACCES sysfd 257 AT s:$W/.env i:0
env-sys-openat-creat EACCES sysfd 257 AT s:$W/sys/.env i:0o101 i:0o644
ctl-sys-creat ok sysfd 85 s:$W/sys/c1 i:0o644
env-sys-creat EACCES sysfd 85 s:$W/sys/.env i:0o644
env-sys-x32-open refused sysfd 0x40000002 s:$W/.env i:0
env-sys-x32-openat refused sysfd 0x40000101 AT s:$W/.env i:0
ctl-sys-rename ok sys 82 s:$W/sys/c1 s:$W/sys/c2
env-sys-rename EACCES sys 82 s:$W/.env s:$W/sys/r1
env-sys-rename-to EACCES sys 82 s:$W/sys/c2 s:$W/sys/.env
ctl-sys-renameat ok sys 264 AT s:$W/sys/c2 AT s:$W/sys/c1
env-sys-renameat EACCES sys 264 AT s:$W/.env AT s:$W/sys/r1
env-sys-renameat-to EACCES sys 264 AT s:$W/sys/c1 AT s:$W/sys/.env
env-sys-renameat2 EACCES sys 316 AT s:$W/.env AT s:$W/sys/r1 i:1
env-sys-renameat2-to EACCES sys 316 AT s:$W/sys/c1 AT s:$W/sys/.env i:1
env-sys-rename-dir EACCES sys 82 s:$W/ed/.env s:$W/ed/r1
ctl-sys-link ok sys 86 s:$W/sys/c1 s:$W/sys/l1
env-sys-link EACCES sys 86 s:$W/.env s:$W/sys/l2
env-sys-link-to EACCES sys 86 s:$W/sys/c1 s:$W/sys/.env
ctl-sys-linkat ok sys 265 AT s:$W/sys/c1 AT s:$W/sys/l3 i:0
env-sys-linkat EACCES sys 265 AT s:$W/.env AT s:$W/sys/l4 i:0
env-sys-linkat-follow EACCES sys 265 AT s:$W/ln/alias AT s:$W/sys/l5 i:0x400
env-sys-linkat-to EACCES sys 265 AT s:$W/sys/c1 AT s:$W/sys/.env i:0
ctl-sys-symlink ok sys 88 s:x s:$W/sys/s1
env-sys-symlink EACCES sys 88 s:x s:$W/sys/.env
ctl-sys-symlinkat ok sys 266 s:x AT s:$W/sys/s2
env-sys-symlinkat EACCES sys 266 s:x AT s:$W/sys/.env
ctl-sys-mkdir ok sys 83 s:$W/sys/m1 i:0o755
env-sys-mkdir EACCES sys 83 s:$W/sys/.env i:0o755
ctl-sys-mkdirat ok sys 258 AT s:$W/sys/m2 i:0o755
env-sys-mkdirat EACCES sys 258 AT s:$W/sys/.env i:0o755
ctl-sys-mknod ok sys 133 s:$W/sys/n1 i:0o10644 i:0
env-sys-mknod EACCES sys 133 s:$W/sys/.env i:0o10644 i:0
ctl-sys-mknodat ok sys 259 AT s:$W/sys/n2 i:0o100644 i:0
env-sys-mknodat EACCES sys 259 AT s:$W/sys/.env i:0o100644 i:0
ctl-sys-unlink ok sys 87 s:$W/sys/n1
env-sys-unlink EACCES sys 87 s:$W/.env
ctl-sys-unlinkat ok sys 263 AT s:$W/sys/n2 i:0
env-sys-unlinkat EACCES sys 263 AT s:$W/.env i:0
ctl-sys-rmdir ok sys 84 s:$W/sys/m1
env-sys-rmdir EACCES sys 84 s:$W/ed/.env
# a directory the child filled, renamed so that its entries land under
# an ro or a deny row: made there with the child's content (refused)
ctl-plant-mkdir ok mkdir $W/sys/plant
ctl-plant-hooks ok mkdir $W/sys/plant/hooks
ctl-plant-file ok excl $W/sys/plant/hooks/pre-x
hook-plant-rename EACCES rename $W/sys/plant $W/ln/.git
ctl-plant-rename ok rename $W/sys/plant $W/sys/plant2
ctl-pk-mkdir ok mkdir $W/sys/pk
ctl-pk-file ok excl $W/sys/pk/z.pem
pem-plant-rename EACCES rename $W/sys/pk $W/sys/keys
# a denied directory's entries are no row's, but making or removing one
# writes the directory (explain: write of ed/.env is denied)
ctl-sys-mkdir-in ok sys 83 s:$W/sys/m3 i:0o755
env-sys-mkdir-in EACCES sys 83 s:$W/ed/.env/m3 i:0o755
ctl-excl-in ok excl $W/sys/new-in
env-excl-in EACCES excl $W/ed/.env/new-in
ctl-sys-unlinkat-dir ok sys 263 AT s:$W/sys/m2 i:0x200
env-sys-unlinkat-dir EACCES sys 263 AT s:$W/ed/.env i:0x200
ctl-sys-chmod ok sys 90 s:$W/plain i:0o644
env-sys-chmod EACCES sys 90 s:$W/.env i:0o644
ctl-sys-fchmodat ok sys 268 AT s:$W/plain i:0o644 i:0
env-sys-fchmodat EACCES sys 268 AT s:$W/.env i:0o644 i:0
env-sys-fchmodat2 refused sys 452 AT s:$W/.env i:0o600 i:0
env-sys-setxattrat refused setxattrat $W/.env
env-sys-removexattrat refused removexattrat $W/.env
env-sys-file-setattr refused file_setattr $W/.env
ctl-sys-chown ok sys 92 s:$W/plain uid gid
env-sys-chown EACCES sys 92 s:$W/.env uid gid
env-sys-lchown EACCES sys 94 s:$W/.env uid gid
env-sys-fchownat EACCES sys 260 AT s:$W/.env uid gid i:0
ctl-sys-utime ok sys 132 s:$W/plain null
env-sys-utime EACCES sys 132 s:$W/.env null
env-sys-utimes EACCES sys 235 s:$W/.env null
env-sys-futimesat EACCES sys 261 AT s:$W/.env null
env-sys-utimensat EACCES sys 280 AT s:$W/.env null i:0
ctl-sys-setxattr ok sys 188 s:$W/plain s:user.vbox s:1 i:1 i:0
env-sys-setxattr EACCES sys 188 s:$W/.env s:user.vbox s:1 i:1 i:0
env-sys-lsetxattr EACCES sys 189 s:$W/.env s:user.vbox s:1 i:1 i:0
ctl-sys-removexattr ok sys 197 s:$W/plain s:user.vbox
env-sys-removexattr EACCES sys 197 s:$W/.env s:user.vbox
env-sys-lremovexattr EACCES sys 198 s:$W/.env s:user.vbox
ctl-sys-truncate ok sys 76 s:$W/plain5 i:0
env-sys-truncate EACCES sys 76 s:$W/.env i:0
ctl-sys-execve ok sysexec execve $W/tools/ok.sh
env-sys-execve EACCES sysexec execve $W/tools/.env
ctl-sys-execveat ok sysexec execveat $W/tools/ok.sh
env-sys-execveat EACCES sysexec execveat $W/tools/.env
hook-sys-open-wr EROFS sysfd 2 s:$W/repo/.git/hooks/pre-commit i:1 i:0
hook-sys-creat EROFS sysfd 85 s:$W/repo/.git/hooks/c1 i:0o644
hook-sys-renameat2 EROFS sys 316 AT s:$W/repo/.git/hooks/pre-commit AT s:$W/sys/h1 i:1
hook-sys-linkat EROFS sys 265 AT s:$W/repo/.git/hooks/pre-commit AT s:$W/sys/h2 i:0
hook-sys-symlinkat EROFS sys 266 s:x AT s:$W/repo/.git/hooks/s1
hook-sys-mkdirat EROFS sys 258 AT s:$W/repo/.git/hooks/m1 i:0o755
hook-sys-mknodat EROFS sys 259 AT s:$W/repo/.git/hooks/n1 i:0o10644 i:0
hook-sys-unlinkat EROFS sys 263 AT s:$W/repo/.git/hooks/pre-commit i:0
hook-sys-fchmodat EROFS sys 268 AT s:$W/repo/.git/hooks/pre-commit i:0o755 i:0
hook-sys-fchownat EROFS sys 260 AT s:$W/repo/.git/hooks/pre-commit uid gid i:0
hook-sys-utimensat EROFS sys 280 AT s:$W/repo/.git/hooks/pre-commit null i:0
hook-sys-lsetxattr EROFS sys 189 s:$W/repo/.git/hooks/pre-commit s:user.vbox s:1 i:1 i:0
hook-sys-removexattr EROFS sys 197 s:$W/repo/.git/hooks/pre-commit s:user.vbox
hook-sys-truncate EROFS sys 76 s:$W/repo/.git/hooks/pre-commit i:0
hook-sys-fchmodat2 refused sys 452 AT s:$W/repo/.git/hooks/pre-commit i:0o700 i:0
hook-sys-setxattrat refused setxattrat $W/repo/.git/hooks/pre-commit
hook-sys-removexattrat refused removexattrat $W/repo/.git/hooks/pre-commit
hook-sys-file-setattr refused file_setattr $W/repo/.git/hooks/pre-commit
hold-dir ok hold before $W/later/d1/d2
mark-ready ok mark $W/out/ready
wait-go ok waitfor $W/out/go
later-read EACCES read $W/later/d1/d2/.env
later-deep-read EACCES read $W/later/d1/d2/d3/d4/.env
later-write EACCES write $W/later/d1/d2/.env
later-heldat EACCES heldat before .env
later-heldat2 EACCES heldat2 before .env
later-heldwrite EACCES heldwrite before .env
later-procfd refused procfd $W/later/d1/d2 .env
later-hook-read ok read $W/later/.git/hooks/pre-push
later-hook-write EROFS write $W/later/.git/hooks/pre-push
later-hook-excl EROFS excl $W/later/.git/hooks/new
later-hook-rename EROFS rename $W/later/.git/hooks $W/later/.git/away
later-hook-unlink EROFS unlink $W/later/.git/hooks/pre-push
EOF
}

one_user() {
	user_plans "$1" || return 0
	shift
	"$VBOXC" preflight --target=linux "$d/sup.rules" >"$d/pf" 2>&1 || :
	host_has "$d/pf" supervised "$lbl: preflight says the rows land supervised"

	# ---- the refused calls and their ordinary twins ---------------------
	setup_ws "$W" "$owner"
	write_ops "$W" >"$d/ops"
	chmod 644 "$d/ops"
	rc=0
	"$@" timeout -s KILL 120 "$VBOX_EXEC" $vx_mode -e HOME="$W/home" -C "$W" \
		"$d/sup.plan" \
		-- "$PY" "$workdir/ops.py" "$d/ops" >"$d/out" 2>"$d/err" &
	bg=$!
	# until the child is ready, or gone
	until_there "$W/out/ready" "$bg"
	if [ -e "$W/out/ready" ]; then
		mkdir -p "$W/later/d1/d2/d3/d4" "$W/later/.git/hooks"
		echo SECRET-LATER >"$W/later/d1/d2/.env"
		echo SECRET-LATER-DEEP >"$W/later/d1/d2/d3/d4/.env"
		echo HOOK-LATER >"$W/later/.git/hooks/pre-push"
		chown -R "$owner" "$W/later"
		touch "$W/out/go"
	fi
	wait "$bg" || rc=$?
	is "$rc" 0 "$lbl: the child's calls ran to the end"
	[ "$rc" -eq 0 ] || sed 's/^/#   err: /' "$d/err" | head -n 20
	judge_ops "$lbl" "$d/out"
	host_lacks "$d/out" SECRET "$lbl: no secret reached the child's output"
	host_lacks "$d/err" SECRET "$lbl: ... nor its stderr"
	if grep -q 'vbox:.*row' "$d/err"; then
		ok "$lbl: a refusal says 'vbox: ... row' on stderr"
	else
		not_ok "$lbl: a refusal says 'vbox: ... row' on stderr"
		sed 's/^/#   err: /' "$d/err" | head -n 10
	fi
	is "$(cat "$W/.env")" SECRET-TOP "$lbl: the host's .env is intact"
	is "$(cat "$W/later/d1/d2/.env")" SECRET-LATER \
		"$lbl: the .env the host made later is intact"
	is "$(cat "$W/repo/.git/hooks/pre-commit")" HOOK-ORIG \
		"$lbl: the hook is intact"
	is "$(cat "$W/later/.git/hooks/pre-push")" HOOK-LATER \
		"$lbl: the hook made later is intact"
	is "$(cat "$W/k/keys/id.pem")" SECRET-PEM "$lbl: the key is in place"
	is "$(cat "$W/config" "$W/secret.txt" 2>&1)" "CONFIG-ORIG
SECRET-LIT" "$lbl: the files literal ro and deny rows cover are intact"
	no_such "$lbl: ... and were not moved" "$W/sys/config.old" \
		"$W/sys/secret.old" "$W/sys/docs.old" "$W/sys/private.old"
	is "$(cat "$W/docs/readme" "$W/private/key" 2>&1)" "DOCS-ORIG
SECRET-PRIVATE" "$lbl: ... nor the directories they cover"
	no_such "$lbl: the denied path absent at launch is absent after" \
		"$W/absent-secret"
	is "$(stat -c %a "$W/.env" "$W/repo/.git/hooks/pre-commit" |
		tr '\n' ' ')" "644 755 " \
		"$lbl: the modes of the .env and the hook are the host's"
	is "$("$PY" -c 'import os, sys
print(sorted(os.listxattr(sys.argv[1]) + os.listxattr(sys.argv[2])))' \
		"$W/.env" "$W/repo/.git/hooks/pre-commit")" "[]" \
		"$lbl: ... and they carry no extended attribute"
	is "$(find "$W" -name .env | sort | tr '\n' ' ')" \
		"$W/.env $W/a/b/c/.env $W/bin/.env $W/ed/.env $W/later/d1/d2/.env $W/later/d1/d2/d3/d4/.env $W/mv/.env $W/tools/.env " \
		"$lbl: no .env but the host's"
	no_such "$lbl: nothing was made through a refused name" \
		"$W/ran-env" "$W/ran-shebang" "$W/ln/hard" "$W/ln/moved" "$W/ln/hook" \
		"$W/ln/hook2" "$W/k/open" "$W/repo/dotgit" \
		"$W/repo/.git/hooks-away" "$W/g1/.git/hooks" \
		"$W/later/.git/away" "$W/repo/.git/hooks/post-commit" \
		"$W/repo/.git/hooks/post-merge" "$W/repo/.git/hooks/sub"
	check "$lbl: the ordinary twins did their work on the host" \
		test -e "$W/ran-ok" -a -S "$W/sock/ok.sock" -a -p "$W/new-fifo" \
		-a -L "$W/new-link" -a -e "$W/new-hard" -a -e "$W/new-creat"

	# ---- a host daemon's socket named .env; io_uring ------------------
	# (a pathname socket is reachable only where the plan grants
	# writing: never at a denied name)
	mkdir -p "$W/hs"
	chown "$owner" "$W/hs"
	rm -f "$d/srv.ready"
	timeout -s KILL 60 "$PY" -c 'import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.listen(4)
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept()
    c.sendall(b"SECRET-SOCK\n")
    c.close()' "$W/hs/.env" "$d/srv.ready" &
	srv=$!
	wait_for "$d/srv.ready" || :
	run "$@" timeout -s KILL 60 "$VBOX_EXEC" $vx_mode "$d/sup.plan" -- "$PY" -c '
import ctypes, errno, socket, sys
def res(label, want, fn):
    try:
        got = fn()
    except OSError as e:
        got = errno.errorcode.get(e.errno, str(e.errno))
    print(label, want, got, flush=True)
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    print("data sock", s.recv(64))
    return "ok"
res("sock-connect-env", "refused", conn)
libc = ctypes.CDLL(None, use_errno=True)
def uring():
    params = ctypes.create_string_buffer(120)
    if libc.syscall(ctypes.c_long(425), ctypes.c_long(8), params) < 0:
        e = ctypes.get_errno()
        raise OSError(e, "io_uring_setup")
    return "ok"
res("io-uring-setup", "EPERM|ENOSYS", uring)
' "$W/hs/.env"
	kill "$srv" 2>/dev/null || :
	wait "$srv" 2>/dev/null || :
	judge_ops "$lbl" "$workdir/out"
	host_lacks "$workdir/out" SECRET "$lbl: ... and no secret came through"

	# ---- a thread with its own working directory; paths past PATH_MAX -
	# (unshare(CLONE_FS): relative names resolve from the calling
	# thread's directory; a .env whose absolute path is longer than
	# PATH_MAX, reached by relative names, is refused like any other)
	echo TOP-REL >"$W/rel.txt"
	echo A-REL >"$W/a/rel.txt"
	"$PY" -c 'import os, sys
os.mkdir(sys.argv[1])
os.chdir(sys.argv[1])
for i in range(24):
    n = "%03d" % i + "x" * 200
    os.mkdir(n)
    os.chdir(n)
open(".env", "w").write("SECRET-LONG\n")
open("plain", "w").write("LONG-PLAIN\n")' "$W/long"
	chown -R "$owner" "$W"
	run "$@" timeout -s KILL 60 "$VBOX_EXEC" $vx_mode -C "$W" "$d/sup.plan" -- \
		"$PY" -c '
import ctypes, errno, os, sys, threading
libc = ctypes.CDLL(None, use_errno=True)
def res(label, want, fn):
    try:
        got = fn()
    except OSError as e:
        got = errno.errorcode.get(e.errno, str(e.errno))
    print(label, want, got, flush=True)
def read(p):
    with open(p) as f:
        return f.read().strip()
def thread():
    if libc.unshare(0x200) != 0:
        print("thread-unshare ok", errno.errorcode[ctypes.get_errno()])
        return
    os.chdir("a")
    res("thread-rel", "A-REL", lambda: read("rel.txt"))
    res("thread-env", "EACCES", lambda: read("b/c/.env"))
t = threading.Thread(target=thread)
t.start()
t.join()
res("main-rel", "TOP-REL", lambda: read("rel.txt"))
os.chdir("long")
for i in range(24):
    os.chdir("%03d" % i + "x" * 200)
# failing closed past PATH_MAX is allowed for an ordinary file too
res("long-plain", "LONG-PLAIN|ENAMETOOLONG|EACCES", lambda: read("plain"))
res("long-env", "refused", lambda: read(".env"))
res("long-creat", "refused", lambda: os.close(os.open("sub.env/../.env2",
    os.O_CREAT | os.O_WRONLY)) or "ok")
res("long-new-env", "refused", lambda: os.close(os.open(".env.d/.env",
    os.O_CREAT | os.O_WRONLY)) or "ok")
def mk():
    os.mkdir(".env")
    return "ok"
res("long-mkdir-env", "refused", mk)
'
	is "$rc" 0 "$lbl: the thread and long-path calls ran"
	[ "$rc" -eq 0 ] || sed 's/^/#   err: /' "$workdir/err" | head -n 10
	judge_ops "$lbl" "$workdir/out"
	host_lacks "$workdir/out" SECRET "$lbl: ... and no secret was read"

	# ---- the parent directory moved by mv (its copy fallback) ----------
	run "$@" timeout -s KILL 60 "$VBOX_EXEC" $vx_mode "$d/sup.plan" -- sh -c \
		"mv $W/k2/keys $W/k2/moved; cat $W/k2/moved/id.pem; \
		 mv $W/mv $W/mv2; cat $W/mv2/.env; true"
	host_lacks "$workdir/out" SECRET \
		"$lbl: mv of a key's directory and cat of the result show no secret"
	is "$(grep -rl SECRET-PEM2 "$W" | tr '\n' ' ')" "$W/k2/keys/id.pem " \
		"$lbl: ... and no copy of the key is left on the host"

	# ---- races: a name swapped between a plain entry and a symlink ----
	# (renameat2 RENAME_EXCHANGE by a second process) while the child
	# opens it: each open gets the plain entry or a refusal, never the
	# target; the counts are shown, not asserted
	setup_ws "$W" "$owner"
	mkdir -p "$W/race/d"
	echo FREE >"$W/race/d/id.pem"
	echo FREE >"$W/race/f"
	echo FREE >"$W/race/h"
	ln -s ../k/keys "$W/race/s"
	ln -s ../.env "$W/race/g"
	ln -s ../repo/.git/hooks/pre-commit "$W/race/i"
	chown -R -h "$owner" "$W/race"
	run "$@" timeout -s KILL 120 "$VBOX_EXEC" $vx_mode "$d/sup.plan" -- "$PY" -c '
import ctypes, errno, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
def exchange(a, b):
    libc.syscall(ctypes.c_long(316), ctypes.c_int(-100), a, ctypes.c_int(-100),
                 b, ctypes.c_uint(2))
W = sys.argv[1]
for name, a, b, path, write in (("dir", "d", "s", "d/id.pem", False),
                                ("file", "f", "g", "f", False),
                                ("hook", "h", "i", "h", True)):
    a = ("%s/race/%s" % (W, a)).encode()
    b = ("%s/race/%s" % (W, b)).encode()
    pid = os.fork()
    if pid == 0:
        for _ in range(1000000):
            exchange(a, b)
        os._exit(0)
    seen = {}
    for _ in range(3000):
        try:
            if write:
                fd = os.open("%s/race/%s" % (W, path),
                             os.O_WRONLY | os.O_APPEND)
                os.write(fd, b"child-wrote\n")
                got = "opened"
            else:
                fd = os.open("%s/race/%s" % (W, path), os.O_RDONLY)
                got = os.read(fd, 64).decode(errors="replace").strip()
            os.close(fd)
        except OSError as e:
            got = errno.errorcode.get(e.errno, str(e.errno))
        seen[got] = seen.get(got, 0) + 1
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    print(name, " ".join("%s=%d" % kv for kv in sorted(seen.items())))
' "$W"
	is "$rc" 0 "$lbl: the races ran"
	sed 's/^/# race: /' "$workdir/out"
	host_lacks "$workdir/out" SECRET \
		"$lbl: swapping a symlink under an open never reaches a secret"
	is "$(cat "$W/repo/.git/hooks/pre-commit")" HOOK-ORIG \
		"$lbl: ... nor writes the hook"
	is "$(cat "$W/.env"; cat "$W/k/keys/id.pem")" "SECRET-TOP
SECRET-PEM" "$lbl: ... and the targets are intact"

	# ---- a flood: 16 processes open a .env and a plain file at once ---
	# (refusals may come from the supervisor or, when it falls behind,
	# from the filter's fallback: the content never comes)
	run "$@" timeout -s KILL 120 "$VBOX_EXEC" $vx_mode "$d/sup.plan" -- "$PY" -c '
import errno, os, sys
W = sys.argv[1]
kids = []
for k in range(16):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        seen = {}
        for i in range(400):
            p = "%s/%s" % (W, (".env", "plain")[i % 2])
            try:
                fd = os.open(p, os.O_RDONLY)
                got = p[-5:] + ":" + os.read(fd, 64).decode().strip()
                os.close(fd)
            except OSError as e:
                got = p[-5:] + ":" + errno.errorcode.get(e.errno, "?")
            seen[got] = seen.get(got, 0) + 1
        os.write(w, repr(sorted(seen.items())).encode())
        os._exit(0)
    os.close(w)
    kids.append((pid, r))
for pid, r in kids:
    out = b""
    while True:
        b = os.read(r, 4096)
        if not b:
            break
        out += b
    os.waitpid(pid, 0)
    print(out.decode())
' "$W"
	is "$rc" 0 "$lbl: a flood of 16 processes opening .env ran"
	sort "$workdir/out" | uniq -c | sed 's/^/# flood: /'
	host_lacks "$workdir/out" SECRET "$lbl: ... and never read it"
	is "$(grep -c "'/.env:EACCES', 200" "$workdir/out")" 16 \
		"$lbl: ... each of its 3200 opens refused (EACCES)"

	# ---- --log names the row -------------------------------------------
	run "$@" timeout -s KILL 60 "$VBOX_EXEC" $vx_mode --log "$d/sup.plan" -- \
		cat "$W/a/b/c/.env"
	check "$lbl: cat of a .env fails" test "$rc" -ne 0
	host_lacks "$workdir/out" SECRET "$lbl: ... and prints no secret"
	if grep 'row' "$workdir/err" | grep -q '\.env'; then
		ok "$lbl: --log names the row and the .env"
	else
		not_ok "$lbl: --log names the row and the .env"
		sed 's/^/#   err: /' "$workdir/err" | tail -n 10
	fi
}

# ---- issue 33: a plan whose supervised rows are all ro ------------------
# Its filter hands over only the calls that can write (runtime/walls/
# seccomp.c): open and openat with O_WRONLY, O_RDWR, O_CREAT, O_TRUNC or
# O_TMPFILE, openat2 and creat always, no exec.  Every write form must
# still be refused on a supervised ro path (by number too, with flags
# that carry bits above the low 32, which the kernel ignores), every read
# must work, and the reads must not reach the supervisor (--log's count),
# while the workspace plan's deny rows still see and refuse every read.
ro_ops() {
	W=$1
	H=$W/repo/.git/hooks
	# /proc/self/fd/N/NAME: the kernel's read in namespace mode; container
	# mode's supervisor judges every open and refuses that magic link
	pw=ok
	[ -z "$vx_mode" ] || pw=EACCES
	cat <<EOF
hook-read ok read $H/pre-commit
hook-rawopen ok rawopen $H/pre-commit
hook-openat ok openat $H pre-commit
hook-openat2 ok openat2 $H pre-commit
lock-read ok read $W/x.lock
hook-opath ok opath $H/pre-commit
hook-procfd $pw procfd $H pre-commit
hook-write EROFS write $H/pre-commit
hook-rdwr EROFS rdwr $H/pre-commit
hook-trunc EROFS trunc $H/pre-commit
lock-write EROFS write $W/x.lock
lock-trunc EROFS trunc $W/x.lock
hook-excl EROFS excl $H/post-commit
lock-excl EROFS excl $W/new.lock
hook-creat EROFS creat $H/post-merge
hook-tmpfile EROFS tmpfile $H
ctl-tmpfile ok tmpfile $W/sys
hook-openat2-wr EROFS openat2w $H pre-commit 0o1
hook-openat2-rdwr EROFS openat2w $H pre-commit 0o2
hook-openat2-trunc EROFS openat2w $H pre-commit 0o1000
hook-openat2-creat EROFS openat2w $H new2 0o101
hook-openat2-tmpfile EROFS openat2w $H . 0o20200001
ctl-openat2-wr ok openat2w $W plain 0o1
hook-sys-open-wr EROFS sysfd 2 s:$H/pre-commit i:1 i:0
hook-sys-open-rdwr EROFS sysfd 2 s:$H/pre-commit i:2 i:0
hook-sys-open-acc3 EROFS|EINVAL|EACCES sysfd 2 s:$H/pre-commit i:3 i:0
hook-sys-open-trunc EROFS sysfd 2 s:$H/pre-commit i:0o1000 i:0
hook-sys-open-creat EROFS sysfd 2 s:$H/n1 i:0o100 i:0o644
hook-sys-open-tmpfile EROFS sysfd 2 s:$H i:0o20200001 i:0o600
hook-sys-openat-wr EROFS sysfd 257 AT s:$H/pre-commit i:1 i:0
hook-sys-openat-rdwr EROFS sysfd 257 AT s:$H/pre-commit i:2 i:0
hook-sys-openat-trunc EROFS sysfd 257 AT s:$H/pre-commit i:0o1000 i:0
hook-sys-openat-creat EROFS sysfd 257 AT s:$H/n2 i:0o101 i:0o644
hook-sys-openat-tmpfile EROFS sysfd 257 AT s:$H i:0o20200002 i:0o600
hook-sys-creat EROFS sysfd 85 s:$H/c1 i:0o644
hook-sys-open-wr-hi EROFS sysfd 2 s:$H/pre-commit i:0x100000001 i:0
hook-sys-open-trunc-hi EROFS sysfd 2 s:$H/pre-commit i:-0xfffffe00 i:0
hook-sys-openat-rdwr-hi EROFS sysfd 257 AT s:$H/pre-commit i:0x7fffffff00000002 i:0
hook-sys-openat-creat-hi EROFS sysfd 257 AT s:$H/n3 i:-0x7fffffffffffffbf i:0o644
hook-sys-openat-tmpfile-hi EROFS sysfd 257 AT s:$H i:0x100000000410001 i:0o600
hook-sys-open-rd-hi ok sysfd 2 s:$H/pre-commit i:0x100000000 i:0
hook-sys-openat-rd-hi ok sysfd 257 AT s:$H/pre-commit i:-0x100000000 i:0
hook-sys-x32-open-wr refused sysfd 0x40000002 s:$H/pre-commit i:1 i:0
hook-sys-x32-openat-wr refused sysfd 0x40000101 AT s:$H/pre-commit i:1 i:0
hook-mkdir EROFS mkdir $H/sub
hook-mkfifo EROFS mkfifo $H/fifo
hook-symlink EROFS symlink $W/plain $H/pre-push
hook-link-to EROFS link $W/plain $H/pre-rebase
hook-link-from EROFS link $H/pre-commit $W/ln/hook
hook-rename-from EROFS rename $H/pre-commit $W/ln/hook2
hook-rename-to EROFS rename $W/plain2 $H/update
hook-unlink EROFS unlink $H/pre-commit
hook-chmod EROFS chmod $H/pre-commit
hook-chown EROFS chown $H/pre-commit
hook-utime EROFS utime $H/pre-commit
hook-setxattr EROFS setxattr $H/pre-commit
hook-truncate EROFS truncate $H/pre-commit
hook-chattr EPERM chattr $H/pre-commit
hook-bind EROFS bind $H/s.sock
hook-exec ok exec $H/post-update
ctl-write ok write $W/plain
ctl-excl ok excl $W/new-file
EOF
}

ro_user() {
	user_plans "$1" || return 0
	shift
	printf '@default write deny\n@default net deny\n[fs]\nrw: %s/**\n' \
		"$W" >"$d/ro.rules"
	printf '!ro: **/.git/hooks/**\n!ro: %s/**/*.lock\n' "$W" >>"$d/ro.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$d/ro.plan" \
		"$d/ro.rules" 2>"$d/compile.err" || {
		not_ok "$lbl: vboxc compiles ro.rules"
		sed 's/^/#   /' "$d/compile.err"
		return 0
	}
	chmod 644 "$d/ro.plan"
	setup_ws "$W" "$owner"
	echo LOCK-ORIG >"$W/x.lock"
	printf '#!/bin/sh\necho ran >%s/ran-hook\n' "$W" \
		>"$W/repo/.git/hooks/post-update"
	chmod 755 "$W/repo/.git/hooks/post-update"
	chown -R "$owner" "$W"
	ro_ops "$W" >"$d/ro.ops"
	chmod 644 "$d/ro.ops"
	run "$@" timeout -s KILL 120 "$VBOX_EXEC" $vx_mode --log "$d/ro.plan" \
		-- "$PY" "$workdir/ops.py" "$d/ro.ops"
	is "$rc" 0 "$lbl: ro only: the child's calls ran to the end"
	[ "$rc" -eq 0 ] || sed 's/^/#   err: /' "$workdir/err" | head -n 20
	judge_ops "$lbl: ro only" "$workdir/out"
	[ -n "$vx_mode" ] || host_has "$workdir/err" \
		"only the calls that can write are handed over" \
		"$lbl: ro only: --log says the filter hands over the writes only"
	is "$(cat "$W/repo/.git/hooks/pre-commit" "$W/x.lock")" "HOOK-ORIG
LOCK-ORIG" "$lbl: ro only: the hook and the lock are intact"
	is "$(stat -c %a "$W/repo/.git/hooks/pre-commit")" 755 \
		"$lbl: ro only: ... with their mode"
	is "$(find "$W/repo/.git/hooks" | sort | tr '\n' ' ')" \
		"$W/repo/.git/hooks $W/repo/.git/hooks/post-update $W/repo/.git/hooks/pre-commit " \
		"$lbl: ro only: nothing was made among the hooks"
	no_such "$lbl: ro only: nothing was made through a refused name" \
		"$W/new.lock" "$W/ln/hook" "$W/ln/hook2"
	check "$lbl: ro only: the hook ran, the ordinary twins wrote" \
		test -e "$W/ran-hook" -a -e "$W/new-file"

	# the i386 entry (int $0x80, open = 5): a writing open is handed
	# over and answered ENOSYS, as under any supervised plan; a read
	# goes to the kernel in namespace mode, as a 64-bit read does
	if [ -z "$I386_CALL" ]; then
		ok "# SKIP $lbl: ro only: no tests/launch/i386_call"
	elif ! "$I386_CALL" probe; then
		ok "# SKIP $lbl: ro only: no i386 entry (IA32_EMULATION)"
	else
		run "$@" timeout -s KILL 60 "$VBOX_EXEC" $vx_mode "$d/ro.plan" -- \
			sh -c "H=$W/repo/.git/hooks/pre-commit
			for fl in 1 2 512 64; do $I386_CALL 5 \$H \$fl; done
			$I386_CALL 5 \$H 0"
		want="ENOSYS ENOSYS ENOSYS ENOSYS ok "
		[ -z "$vx_mode" ] || want="ENOSYS ENOSYS ENOSYS ENOSYS ENOSYS "
		is "$(tr '\n' ' ' <"$workdir/out")" "$want" \
			"$lbl: ro only: i386 opens of a hook: ENOSYS for writing, a read as the mode has it"
		is "$(cat "$W/repo/.git/hooks/pre-commit")" HOOK-ORIG \
			"$lbl: ro only: ... the hook is whole"
	fi

	# The reads are not handed over: 400 opens of the hook for reading
	# and 400 of an ordinary file under --log, against the calls the
	# supervisor answered.  The workspace plan, with deny rows, answers
	# each of them (and refuses the .env).
	cat >"$d/reads.py" <<'PYEOF'
import errno, os, sys
h, plain, env = sys.argv[1:4]
n = 0
for i in range(400):
    for p in (h, plain):
        fd = os.open(p, os.O_RDONLY)
        n += len(os.read(fd, 64)) > 0
        os.close(fd)
try:
    os.close(os.open(env, os.O_RDONLY))
    print("env-read ok")
except OSError as e:
    print("env-read", errno.errorcode.get(e.errno, "?"))
print("reads", n)
PYEOF
	chmod 644 "$d/reads.py"
	env_ro=
	for p in ro sup; do
		run "$@" timeout -s KILL 120 "$VBOX_EXEC" $vx_mode --log \
			"$d/$p.plan" -- "$PY" "$d/reads.py" \
			"$W/repo/.git/hooks/pre-commit" "$W/plain" "$W/.env"
		is "$rc" 0 "$lbl: $p plan: 800 reads ran"
		host_has "$workdir/out" "reads 800" "$lbl: $p plan: ... and read"
		n=$(sed -n 's/.*socket supervisor: \([0-9]*\) calls answered.*/\1/p' \
			"$workdir/err" | tail -n 1)
		eval "calls_$p=\${n:-none}"
		[ "$p" = ro ] && env_ro=$(cat "$workdir/out")
	done
	case $env_ro in
	*"env-read ok"*) ok "$lbl: ro plan: a .env (no row there) reads" ;;
	*) not_ok "$lbl: ro plan: a .env (no row there) reads: $env_ro" ;;
	esac
	host_has "$workdir/out" "env-read EACCES" \
		"$lbl: sup plan: its deny row still refuses a read of the .env"
	if [ -n "$vx_mode" ]; then
		# container mode judges every path by its region map: every
		# call is handed over there, the count is only shown
		ok "$lbl: ro plan: $calls_ro calls answered # SKIP the ro-only filter is namespace mode's"
	elif [ "$calls_ro" != none ] && [ "$calls_ro" -lt 100 ]; then
		ok "$lbl: ro plan: the 800 reads were not handed over ($calls_ro calls answered)"
	else
		not_ok "$lbl: ro plan: the 800 reads were not handed over ($calls_ro calls answered)"
	fi
	if [ "$calls_sup" != none ] && [ "$calls_sup" -ge 800 ]; then
		ok "$lbl: sup plan: every read was handed over ($calls_sup calls answered)"
	else
		not_ok "$lbl: sup plan: every read was handed over ($calls_sup calls answered)"
	fi
}

each_user one_user
each_user ro_user

done_testing
