#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/reproducible.sh - artifacts independent of the machine
# (doc/reviewing.md, "What to golden"): the same rules, variables and
# target give byte-identical --emit=profile, plan and ir output whatever
#
#   - the prefix the rule library is installed under: '@include <NAME>'
#     is found in two copies of rules/ at two prefixes (as -I
#     directories, which '@include <NAME>' searches exactly like the
#     installed library and names alike: '<NAME>'), and a file such a
#     library file includes is named '<PATH>' relative to it;
#   - the working directory and the spelling of the rules path
#     (relative from two directories, absolute from a third);
#   - where the policy tree itself lives (a copy somewhere else), since
#     rule files are named relative to the source root;
#   - with --source-root, the directory compile is run from.
#
# And what the names are: '<secrets>:L:C' and 'sub/x.rules:L:C' in the IR.
. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"
[ -f "$top_srcdir/rules/secrets.rules" ] ||
	skip_all "no rule library in $top_srcdir/rules"

# Two installs of the rule library, plus a team library that includes a
# file of its own by a quoted path.
for p in "$workdir/usr/share/vbox/rules" "$workdir/opt/vbox-9/rules"; do
	mkdir -p "$p/team"
	cp "$top_srcdir"/rules/*.rules "$p/"
	printf '@include "team/extra.rules"\n!deny: ~/.team-token\n' \
		>"$p/team.rules"
	printf 'deny: ~/.team-extra\n' >"$p/team/extra.rules"
done
lib1=$workdir/usr/share/vbox/rules
lib2=$workdir/opt/vbox-9/rules

# The policy tree, and a copy of it at another place.
mkdir -p "$workdir/srv/nu/policies/common"
cat >"$workdir/srv/nu/policies/node.rules" <<'EOF'
@include <secrets>
@include <team>
@include "common/base.rules"
rw: /srv/nu/work/**
allow: registry.npmjs.org:443
EOF
cat >"$workdir/srv/nu/policies/win.rules" <<'EOF'
@default net open
@include <team>
@include "common/base-win.rules"
rw: C:/nu/work/**
allow: registry.npmjs.org:443
EOF
cat >"$workdir/srv/nu/policies/common/base-win.rules" <<'EOF'
ro: C:/nu/work/.git
EOF
cat >"$workdir/srv/nu/policies/common/base.rules" <<'EOF'
ro: /srv/nu/work/.git
deny: /srv/nu/work/.env
EOF
mkdir -p "$workdir/elsewhere/deep"
cp -R "$workdir/srv/nu" "$workdir/elsewhere/deep/nu"
mkdir "$workdir/o" "$workdir/empty"

# out TAG DIR ARGS... - `vboxc compile ARGS` run in DIR; stdout in
# $workdir/o/TAG.out, the exit status appended to it (stderr names the
# file as typed, so it is not compared).
out() {
	_tag=$1 _dir=$2
	shift 2
	_rc=0
	(cd "$_dir" && exec "$VBOXC" compile "$@") >"$workdir/o/$_tag.out" \
		2>"$workdir/o/$_tag.err" || _rc=$?
	printf '\nexit %s\n' "$_rc" >>"$workdir/o/$_tag.out"
}

pol=$workdir/srv/nu/policies
for t in linux darwin windows; do
	case $t in
	windows) set -- -D 'HOME=C:\Users\tester'; f=win.rules ;;
	*) set -- -D HOME=/home/tester; f=node.rules ;;
	esac
	for m in profile plan ir; do
		id="$t --emit=$m"
		out base "$pol" --target="$t" --emit="$m" "$@" -I "$lib1" \
			"$f"
		out prefix "$pol" --target="$t" --emit="$m" "$@" -I "$lib2" \
			"$f"
		out cwd "$workdir/srv" --target="$t" --emit="$m" "$@" \
			-I "$lib1" "nu/policies/$f"
		out abs "$workdir/empty" --target="$t" --emit="$m" "$@" \
			-I "$lib2" "$pol/$f"
		out moved "$workdir/elsewhere" --target="$t" --emit="$m" \
			"$@" -I "$lib1" "deep/nu/policies/$f"
		# A linux profile cannot hold <secrets> (rows at launch):
		# refused alike everywhere; every other artifact is made.
		want=0
		[ "$t.$m" = linux.profile ] && want=1
		[ "$(tail -n 1 "$workdir/o/base.out")" = "exit $want" ] ||
			not_ok "$id: compile exits $want" \
				"(got $(tail -n 1 "$workdir/o/base.out"))"
		why=
		for v in prefix cwd abs moved; do
			cmp -s "$workdir/o/base.out" "$workdir/o/$v.out" ||
				why="$why $v"
		done
		if [ -z "$why" ]; then
			ok "$id: the same bytes from two prefixes and three directories"
		else
			not_ok "$id: output changed:$why"
			sed 's/^/#   /' "$workdir/o/base.err" | head -n 5
		fi

		# --source-root: names relative to it, whatever the cwd.
		out root1 "$workdir" --target="$t" --emit="$m" "$@" \
			-I "$lib1" --source-root=srv/nu "srv/nu/policies/$f"
		out root2 "$pol/common" --target="$t" --emit="$m" "$@" \
			-I "$lib2" --source-root="$workdir/srv/nu" "../$f"
		if cmp -s "$workdir/o/root1.out" "$workdir/o/root2.out"; then
			ok "$id --source-root: the same bytes from two directories"
		else
			not_ok "$id --source-root: output changed"
		fi
	done
done

# The names themselves.
(cd "$pol" && "$VBOXC" compile --target=linux --emit=ir -D HOME=/home/t \
	-I "$lib1" node.rules) >"$workdir/ir.json"
sources() {
	sed -n 's/^ *"source": "\(.*\):[0-9]*:[0-9]*",*$/\1/p' \
		"$workdir/ir.json" | sort -u | tr '\n' ' '
}
is "$(sources)" "<secrets> <team/extra.rules> <team> common/base.rules node.rules " \
	"IR names library files <NAME>, rule files relative to their directory"
(cd "$workdir" && "$VBOXC" compile --target=linux --emit=ir \
	-D HOME=/home/t -I "$lib1" --source-root=srv srv/nu/policies/node.rules) \
	>"$workdir/ir.json"
case $(sources) in
*" nu/policies/node.rules "*) ok "--source-root names files relative to it" ;;
*) not_ok "--source-root names files relative to it (got $(sources))" ;;
esac

run "$VBOXC" compile --target=linux --emit=ir -D HOME=/home/t \
	--source-root="$workdir/none" "$pol/node.rules"
is "$rc" 2 "a source root that is not a directory: exit 2"
case $(cat "$workdir/err") in
*"source root"*) ok "the bad source root is named" ;;
*) not_ok "the bad source root is named" ;;
esac
done_testing
