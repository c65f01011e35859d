#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/bwrap_diff.sh - the kernel and the decision engine must agree.
#
# For each policy: build a fresh tree, write the policy with the tree's
# absolute paths, compile it for linux and instantiate it against the host
# exactly as vbox-exec will (tests/unit/test_linux --launch-args: placeholders
# replaced, glob rows expanded), run the REAL bubblewrap with that list
# (`bwrap --args 3`) around tests/launch/probe, and compare every operation the
# kernel allowed or refused with `vboxc explain --format=json`:
#
#   read P            read P
#   write P, chmod P  write P (chmod to the mode P already has)
#   create P, mkdir P write P and write dirname(P) (the kernel needs both)
#   unlink P          write P and write dirname(P), and P contains no hole
#   rename P          write P, write dirname(P), write P.vbox-renamed,
#                     and P contains no hole
#
# "Contains no hole": a writable directory above a deny or ro mount is a
# mount point itself (the launcher anchors it), so it cannot be renamed or
# removed; otherwise a rename would carry the protected path away and let
# the child recreate it unprotected.  This is the one place where the
# kernel is deliberately narrower than the engine (doc/targets.md).
#
# On the host side: nothing may be created, and nothing modified or
# removed except what an allowed "unlink" removed.  Skips only when
# bubblewrap is missing, too old, or user namespaces are unavailable.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"
: "${VBOX_PROBE:=${top_builddir:-.}/tests/launch/probe}"
[ -x "$VBOX_PROBE" ] || skip_all "no probe binary at $VBOX_PROBE"
driver=${VBOX_LINUX_DRIVER:-${top_builddir:-.}/tests/unit/test_linux}
[ -x "$driver" ] || skip_all "no tests/unit/test_linux at $driver"
if [ -z "${BWRAP:-}" ]; then
	BWRAP=$(command -v bwrap 2>/dev/null || :)
fi
if [ -z "$BWRAP" ] || [ ! -x "$BWRAP" ]; then
	skip_all "bubblewrap (bwrap) not found"
fi
if ! "$BWRAP" --unshare-user --ro-bind / / /bin/true 2>"$workdir/err"; then
	skip_all "user namespaces unavailable: $(head -n 1 "$workdir/err")"
fi
if ! "$BWRAP" --unshare-user --disable-userns --ro-bind / / /bin/true \
	2>"$workdir/err"; then
	skip_all "bubblewrap lacks --disable-userns (0.8.0 or later is" \
		"needed): $(head -n 1 "$workdir/err")"
fi

T=$workdir/t

# tree DIR... -- FILE... - a fresh tree under $T
tree() {
	rm -rf "$T"
	mkdir "$T"
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		mkdir -p "$T/$1"
		shift
	done
	[ $# -gt 0 ] && shift
	for f; do
		printf 'content of %s\n' "$f" >"$T/$f"
	done
}

# snapshot - every entry below $T with its type, mode and checksum
snapshot() {
	(
		cd "$T" || exit 1
		find . -printf '%y %m %p\n' | sort
		find . -type f -exec cksum {} + | sort
	)
}

# expectations OPS ANSWERS ARGS - the allow/deny the engine implies for
# each operation (see the header), one "OP PATH allow|deny" line each
expectations() {
	tr '\0' '\n' <"$3" | awk '
		/^--ro-bind$|^--ro-bind-try$/ { want = 2; next }
		/^--tmpfs$/ { want = 1; next }
		want { if (--want == 0 && $0 != "/") print; next }
	' >"$workdir/holes"
	awk -v holes="$workdir/holes" -v answers="$2" '
		BEGIN {
			while ((getline l < holes) > 0)
				hole[++nh] = l
			while ((getline l < answers) > 0) {
				if (l ~ /"allow":true/)
					ans[++na] = 1
				else if (l ~ /"allow":false/)
					ans[++na] = 0
				else
					ans[++na] = -1
			}
		}
		function anchored(p,    i) {
			for (i = 1; i <= nh; i++)
				if (index(hole[i], p "/") == 1)
					return 1
			return 0
		}
		{
			a1 = ans[3 * NR - 2]; a2 = ans[3 * NR - 1]
			a3 = ans[3 * NR]
			if (a1 < 0 || a2 < 0 || a3 < 0) {
				print $1, $2, "error"
				next
			}
			allow = a1
			if ($1 != "read" && $1 != "write" && $1 != "chmod")
				allow = allow && a2
			if ($1 == "rename")
				allow = allow && a3
			if (($1 == "rename" || $1 == "unlink") && anchored($2))
				allow = 0
			print $1, $2, (allow ? "allow" : "deny")
		}
	' "$1"
}

# queries OPS - three engine queries per operation (see the header)
queries() {
	while read -r op path; do
		dir=${path%/*}
		[ -n "$dir" ] || dir=/
		case $op in
		read)
			printf 'read %s\n' "$path" "$path" "$path" ;;
		write | chmod)
			printf 'write %s\n' "$path" "$path" "$path" ;;
		create | mkdir | unlink)
			printf 'write %s\n' "$path" "$dir" "$dir" ;;
		rename)
			printf 'write %s\n' "$path" "$dir" \
				"$path.vbox-renamed" ;;
		net)
			printf 'net %s\n' "$path" "$path" "$path" ;;
		*)
			echo "bad op $op" >&2
			return 1 ;;
		esac
	done <"$1"
}

# differ NAME - run the policy $workdir/NAME.rules with the operations
# $workdir/NAME.ops (one "OP PATH" a line) in bubblewrap and compare
differ() {
	_n=$1
	_r=$workdir/$_n.rules
	_o=$workdir/$_n.ops
	_a=$workdir/$_n.args
	_p=$workdir/$_n.placeholders
	if ! "$driver" --launch-args "$_r" "$_a" "$_p" 2>"$workdir/err"; then
		not_ok "$_n: instantiate the bubblewrap arguments"
		sed 's/^/#   /' "$workdir/err" | head -n 20
		return 0
	fi
	snapshot >"$workdir/before"
	while read -r _ph; do
		mkdir "$_ph"
	done <"$_p"
	set --
	while read -r _op _path; do
		set -- "$@" "$_op" "$_path"
	done <"$_o"
	_rc=0
	"$BWRAP" --args 3 -- "$VBOX_PROBE" "$@" 3<"$_a" \
		>"$workdir/got" 2>"$workdir/err" || _rc=$?
	sed -n '1!G;h;$p' "$_p" | while read -r _ph; do
		rmdir "$_ph"
	done
	if [ "$_rc" -ne 0 ]; then
		not_ok "$_n: bubblewrap runs the probe (exit $_rc)"
		sed 's/^/#   /' "$workdir/err"
		tr '\0' ' ' <"$_a" | fold -w 76 | sed 's/^/#   /'
		return 0
	fi
	ok "$_n: bubblewrap runs the probe"

	queries "$_o" >"$workdir/queries"
	"$VBOXC" explain --format=json --target=linux "$_r" \
		--queries="$workdir/queries" >"$workdir/answers" \
		2>"$workdir/err" || {
		not_ok "$_n: vboxc explain answers"
		sed 's/^/#   /' "$workdir/err"
		return 0
	}
	expectations "$_o" "$workdir/answers" "$_a" >"$workdir/want"
	awk '{ print $1, $2, $3 }' "$workdir/got" >"$workdir/got3"
	if cmp -s "$workdir/want" "$workdir/got3"; then
		ok "$_n: kernel and engine agree on $(wc -l <"$_o") operations"
	else
		not_ok "$_n: kernel and engine agree"
		paste -d '|' "$workdir/want" "$workdir/got" | awk -F'|' '
			{ split($1, w, " "); split($2, g, " ") }
			w[3] != g[3] {
				printf "#   %s %s: engine %s, kernel %s %s\n",
				       w[1], w[2], w[3], g[3], g[4]
			}'
		tr '\0' ' ' <"$_a" | fold -w 76 | sed 's/^/#   args: /'
	fi

	# Host side: only allowed unlinks may have changed anything.
	snapshot >"$workdir/after"
	awk '$1 == "unlink" && $3 == "allow" { print $2 }' "$workdir/got" |
		sed "s|^$T|.|" >"$workdir/unlinked"
	awk -v gone="$workdir/unlinked" '
		BEGIN { while ((getline l < gone) > 0) skip[l] = 1 }
		!(($3 in skip) || ($NF in skip))
	' "$workdir/before" >"$workdir/before.kept"
	if cmp -s "$workdir/before.kept" "$workdir/after"; then
		ok "$_n: the host tree is unchanged"
	else
		not_ok "$_n: the host tree is unchanged"
		diff -u "$workdir/before.kept" "$workdir/after" |
			sed 's/^/#   /'
	fi
}

# --------------------------------------------------------------------
# levels: the ordering across levels (doc/rules.md §3, "Evaluation"), a dead deny under an rw root
tree w w/secret w/secret/public w/tmp w/sub -- w/a.txt w/secret/key \
	w/secret/public/pub.txt w/tmp/t.txt w/sub/b.txt outside.txt
cat >"$workdir/levels.rules" <<EOF
rw:$T/w/**
!deny:$T/w/secret
!!ro:$T/w/secret/public
deny:$T/w/tmp
EOF
cat >"$workdir/levels.ops" <<EOF
read $T/w/a.txt
write $T/w/a.txt
create $T/w/new
mkdir $T/w/newdir
rename $T/w/sub
read $T/w/secret
chmod $T/w/secret
chmod $T/w/a.txt
chmod $T/w/secret/public
read $T/w/secret/key
write $T/w/secret/key
create $T/w/secret/new
rename $T/w/secret
rename $T/w/secret/key
read $T/w/secret/public
read $T/w/secret/public/pub.txt
write $T/w/secret/public/pub.txt
create $T/w/secret/public/new
read $T/w/tmp/t.txt
write $T/w/tmp/t.txt
create $T/w/tmp/new
read $T/outside.txt
write $T/outside.txt
create $T/new
unlink $T/w/secret/key
unlink $T/w/secret/public/pub.txt
unlink $T/w/tmp/t.txt
unlink $T/w/a.txt
EOF
differ levels

# nested holes: rw > deny > rw > ro > deny, and an rw hole two levels
# down in the denied directory
tree a a/d a/d/e a/d/e/r a/d/m/n -- a/f.txt a/d/x.txt a/d/e/y.txt \
	a/d/e/r/z.txt a/d/e/r/s.txt a/d/m/n/q.txt a/d/m/o.txt
cat >"$workdir/nested.rules" <<EOF
rw:$T/a
!deny:$T/a/d
!!rw:$T/a/d/e
!!rw:$T/a/d/m/n
!!!ro:$T/a/d/e/r
!!!!deny:$T/a/d/e/r/s.txt
EOF
cat >"$workdir/nested.ops" <<EOF
read $T/a/f.txt
write $T/a/f.txt
create $T/a/new
read $T/a/d
chmod $T/a/d
chmod $T/a/d/e
chmod $T/a/d/e/r
chmod $T/a/d/e/r/s.txt
read $T/a/d/x.txt
read $T/a/d/m
chmod $T/a/d/m
read $T/a/d/m/o.txt
create $T/a/d/m/new
read $T/a/d/m/n/q.txt
write $T/a/d/m/n/q.txt
create $T/a/d/m/n/new
write $T/a/d/x.txt
mkdir $T/a/d/new
rename $T/a/d
read $T/a/d/e
read $T/a/d/e/y.txt
write $T/a/d/e/y.txt
create $T/a/d/e/new
mkdir $T/a/d/e/newdir
rename $T/a/d/e
rename $T/a/d/e/y.txt
read $T/a/d/e/r
read $T/a/d/e/r/z.txt
write $T/a/d/e/r/z.txt
create $T/a/d/e/r/new
rename $T/a/d/e/r
read $T/a/d/e/r/s.txt
write $T/a/d/e/r/s.txt
unlink $T/a/d/e/r/s.txt
unlink $T/a/d/e/r/z.txt
unlink $T/a/d/x.txt
unlink $T/a/d/e/y.txt
unlink $T/a/f.txt
EOF
differ nested

# a denied directory, a denied file, in a writable and a read-only region
tree b b/dir ro ro/dir -- b/dir/in.txt b/file.txt b/other.txt \
	ro/dir/in.txt ro/file.txt ro/plain.txt
cat >"$workdir/denykinds.rules" <<EOF
rw:$T/b
!deny:$T/b/dir
!deny:$T/b/file.txt
deny:$T/ro/dir
deny:$T/ro/file.txt
EOF
cat >"$workdir/denykinds.ops" <<EOF
read $T/b/dir
read $T/b/dir/in.txt
write $T/b/dir/in.txt
create $T/b/dir/new
mkdir $T/b/dir/new
rename $T/b/dir
read $T/b/file.txt
write $T/b/file.txt
chmod $T/b/file.txt
chmod $T/b/dir
chmod $T/ro/dir
rename $T/b/file.txt
create $T/b/new
rename $T/b/other.txt
read $T/ro/dir
read $T/ro/dir/in.txt
write $T/ro/dir/in.txt
read $T/ro/file.txt
write $T/ro/file.txt
read $T/ro/plain.txt
write $T/ro/plain.txt
create $T/ro/new
unlink $T/b/dir/in.txt
unlink $T/b/file.txt
unlink $T/ro/file.txt
unlink $T/b/other.txt
EOF
differ denykinds

# read-only holes inside a writable root, one deep below it
tree c c/ro c/sub c/sub/deeper c/sub/deeper/ro2 -- c/w.txt c/ro/r.txt \
	c/ro-file.txt c/sub/m.txt c/sub/deeper/n.txt c/sub/deeper/ro2/q.txt
cat >"$workdir/rohole.rules" <<EOF
rw:$T/c
!ro:$T/c/ro
!ro:$T/c/ro-file.txt
!ro:$T/c/sub/deeper/ro2
EOF
cat >"$workdir/rohole.ops" <<EOF
read $T/c/ro/r.txt
write $T/c/ro/r.txt
create $T/c/ro/new
rename $T/c/ro
rename $T/c/ro/r.txt
read $T/c/ro-file.txt
write $T/c/ro-file.txt
rename $T/c/ro-file.txt
write $T/c/w.txt
create $T/c/new
rename $T/c/sub
rename $T/c/sub/deeper
rename $T/c/sub/m.txt
create $T/c/sub/deeper/new
rename $T/c/sub/deeper/n.txt
read $T/c/sub/deeper/ro2/q.txt
write $T/c/sub/deeper/ro2/q.txt
create $T/c/sub/deeper/ro2/new
unlink $T/c/ro/r.txt
unlink $T/c/ro-file.txt
unlink $T/c/sub/deeper/n.txt
unlink $T/c/w.txt
EOF
differ rohole

# rw inside ro, with both postures of @default write
tree d d/w -- d/r.txt d/w/x.txt free.txt
cat >"$workdir/rwinro.rules" <<EOF
ro:$T/d
!rw:$T/d/w
EOF
cat >"$workdir/rwinro.ops" <<EOF
read $T/d/r.txt
write $T/d/r.txt
create $T/d/new
write $T/d/w/x.txt
create $T/d/w/new
mkdir $T/d/w/newdir
rename $T/d/w
rename $T/d/w/x.txt
write $T/free.txt
create $T/new
unlink $T/d/w/x.txt
unlink $T/d/r.txt
EOF
differ rwinro

tree d d/w -- d/r.txt d/w/x.txt free.txt
{ echo "@default write rw"; cat "$workdir/rwinro.rules"; } \
	>"$workdir/rwinro-rw.rules"
cat >"$workdir/rwinro-rw.ops" <<EOF
read $T/d/r.txt
write $T/d/r.txt
create $T/d/new
write $T/d/w/x.txt
create $T/d/w/new
rename $T/d/w
write $T/free.txt
create $T/new
mkdir $T/newdir
rename $T/free.txt
rename $T/d
rename $T
unlink $T/d/w/x.txt
unlink $T/free.txt
EOF
differ rwinro-rw

# identical paths: the first row of the highest level decides
tree e e/x e/y e/z -- e/x/f e/y/f e/z/f
cat >"$workdir/identical.rules" <<EOF
rw:$T/e/x
deny:$T/e/x
!ro:$T/e/y
rw:$T/e/y
rw:$T/e/z
!!deny:$T/e/z
EOF
cat >"$workdir/identical.ops" <<EOF
read $T/e/x/f
write $T/e/x/f
create $T/e/x/new
read $T/e/y/f
write $T/e/y/f
create $T/e/y/new
read $T/e/z/f
write $T/e/z/f
create $T/e/z/new
unlink $T/e/x/f
EOF
differ identical

# denied and read-only paths that do not exist yet in a writable root
tree f f/sub -- f/a.txt f/sub/b.txt
cat >"$workdir/missing.rules" <<EOF
rw:$T/f
!deny:$T/f/missing
!deny:$T/f/gone/deeper/x
!ro:$T/f/ro-missing
!deny:$T/f/sub/later.txt
EOF
# (the engine denies f/gone/deeper/x; the kernel reports ENOENT because
# f/gone is an empty placeholder: both deny, nothing is created)
cat >"$workdir/missing.ops" <<EOF
create $T/f/missing
mkdir $T/f/missing
chmod $T/f/missing
chmod $T/f/sub
create $T/f/gone/deeper/x
create $T/f/ro-missing
mkdir $T/f/ro-missing
create $T/f/sub/later.txt
mkdir $T/f/sub/later.txt
create $T/f/sub/other
rename $T/f/sub
create $T/f/new
write $T/f/a.txt
rename $T/f/a.txt
unlink $T/f/sub/b.txt
EOF
differ missing

# @default write rw with deny and ro rows
tree g g/secret g/ro -- g/secret/k g/secret.txt g/ro/r.txt g/w.txt top.txt
cat >"$workdir/posture.rules" <<EOF
@default write rw
deny:$T/g/secret
deny:$T/g/secret.txt
ro:$T/g/ro
deny:$T/g/nothere
EOF
cat >"$workdir/posture.ops" <<EOF
read $T/g/secret
read $T/g/secret/k
write $T/g/secret/k
read $T/g/secret.txt
write $T/g/secret.txt
rename $T/g/secret.txt
rename $T/g
read $T/g/ro/r.txt
write $T/g/ro/r.txt
create $T/g/ro/new
write $T/g/w.txt
create $T/g/new
create $T/g/nothere
mkdir $T/g/nothere
write $T/top.txt
create $T/new
rename $T/top.txt
unlink $T/g/secret.txt
unlink $T/g/w.txt
EOF
differ posture

# globs, expanded at launch in read-only regions, and an rw glob
tree i i/sub i/sub/deeper j -- i/a.key i/b.key i/keep.key i/c.txt \
	i/sub/d.pem i/sub/e.txt i/sub/deeper/f.pem j/x.log j/y.txt
cat >"$workdir/globs.rules" <<EOF
deny:$T/i/*.key
deny:$T/i/**/*.pem
!ro:$T/i/keep.key
rw:$T/j/*.log
EOF
# (no "create" under the rw glob: a new j/z.log is allowed by the engine
# but j is read-only in the kernel, which only narrows)
cat >"$workdir/globs.ops" <<EOF
read $T/i/a.key
write $T/i/a.key
read $T/i/keep.key
write $T/i/keep.key
read $T/i/c.txt
write $T/i/c.txt
read $T/i/sub/d.pem
read $T/i/sub/deeper/f.pem
read $T/i/sub/e.txt
create $T/i/new.key
write $T/j/x.log
write $T/j/y.txt
rename $T/j/x.log
EOF
differ globs

# first match wins (doc/rules.md §3, "Evaluation"): deny keys, rw app,
# ro keys/pub (dead)
tree k k/keys k/keys/pub -- k/a.txt k/keys/id k/keys/pub/id.pub
cat >"$workdir/order.rules" <<EOF
deny:$T/k/keys
rw:$T/k
ro:$T/k/keys/pub
EOF
cat >"$workdir/order.ops" <<EOF
read $T/k/keys/id
read $T/k/keys/pub/id.pub
write $T/k/keys/pub/id.pub
write $T/k/a.txt
create $T/k/new
rename $T/k/keys
rename $T/k/a.txt
EOF
differ order

# network posture: a loopback listener on the host
"$VBOX_PROBE" listen "$workdir/port" &
listener=$!
n=0
while [ ! -s "$workdir/port" ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
if [ -s "$workdir/port" ]; then
	port=$(cat "$workdir/port")
	tree n -- n/f
	echo "rw:$T/n" >"$workdir/netdeny.rules"
	echo "net 127.0.0.1:$port" >"$workdir/netdeny.ops"
	differ netdeny
	tree n -- n/f
	printf '@default net open\nrw:%s/n\n' "$T" >"$workdir/netopen.rules"
	echo "net 127.0.0.1:$port" >"$workdir/netopen.ops"
	differ netopen
else
	not_ok "loopback listener for the network probes"
fi
kill "$listener" 2>/dev/null || :
wait "$listener" 2>/dev/null || :

# --disable-userns: the child cannot make a namespace of its own
tree n -- n/f
echo "rw:$T/n" >"$workdir/userns.rules"
if "$driver" --launch-args "$workdir/userns.rules" "$workdir/userns.args" \
	"$workdir/userns.ph" 2>"$workdir/err"; then
	if ! command -v unshare >/dev/null 2>&1; then
		ok "# SKIP the sandbox cannot create a user namespace (no" \
			"unshare(1))"
	elif "$BWRAP" --args 3 -- unshare -U /bin/true \
		3<"$workdir/userns.args" 2>/dev/null; then
		not_ok "the sandbox cannot create a user namespace"
	else
		ok "the sandbox cannot create a user namespace"
	fi
else
	not_ok "instantiate the userns policy"
fi

rm -rf "$T"
done_testing
