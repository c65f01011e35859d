#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_container_agree.sh - container mode agrees with `vboxc
# explain` (doc/targets.md, "linux, container mode").
#
# Random tables (seeded; the seed is printed, VBOX_AGREE_SEED repeats a
# run) of rw, ro and deny rows over a temporary tree, literal paths,
# launch globs, deny and ro globs inside writable regions and patterns
# that start with a wildcard (rows that land supervised), under both
# `@default write` postures, each run under `vbox-exec --mode=container`
# with tests/launch/probe as root and as uid 65534, and judged from the
# host side against `vboxc explain`.  The probes read, write, chmod and
# rename files, list directories, and create entries in every directory
# (in writable roots, beside denied and read-only paths):
#
# - with no flag, every table vbox-exec accepts must agree with explain
#   on every probe (deny rows and holes are held by the path supervisor:
#   doc/launcher.md, "Container mode"); the tables it refuses (exit 125)
#   are counted and their share printed;
# - a table whose rows `vboxc preflight --accept-narrower` calls narrower
#   (no row lands supervised) runs again with --accept-narrower, Landlock
#   alone: never wider than explain, and each operation it denies that
#   explain allows one the report calls narrower (creating, removing or
#   renaming an entry in a directory above a narrower row's path, or
#   listing a directory above a denied one).
#
# Every disagreement is printed.  VBOX_AGREE_MODE=ns runs the same
# tables in namespace mode (no --mode), which must agree exactly: a
# check of the harness itself.

. "${srcdir:-$(dirname "$0")/../..}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
VBOX_PROBE=${VBOX_PROBE:-${top_builddir:-.}/tests/launch/probe}
[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"
[ -x "$VBOX_EXEC" ] || skip_all "no vbox-exec binary at $VBOX_EXEC"
[ -x "$VBOX_PROBE" ] || skip_all "no probe binary at $VBOX_PROBE"
command -v jq >/dev/null 2>&1 || skip_all "jq not found"
mode=${VBOX_AGREE_MODE:-container}
if [ "$mode" = container ]; then
	"$VBOX_EXEC" --help 2>&1 | grep -q -- --mode= ||
		skip_all "vbox-exec has no --mode=container yet"
	mode_args=--mode=container
	bound_script
else
	require_launcher	# starts bound_script
	mode_args=
fi
set_users

seed=${VBOX_AGREE_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
ntables=${VBOX_AGREE_TABLES:-20}
echo "# seed $seed (VBOX_AGREE_SEED=$seed repeats this run), $ntables tables"

# uid 65534 must reach the tree, the plans and the probe's answers.
chmod 0755 "$workdir"
T=$workdir/t
for d in d0 d1 d2; do
	for s in s0 s1; do
		mkdir -p "$T/$d/$s"
		echo "content $d/$s/f0" >"$T/$d/$s/f0"
	done
	echo "content $d/f0" >"$T/$d/f0"
	echo "content $d/f1" >"$T/$d/f1"
done
chmod -R a+rwX "$T"
cd "$workdir"
find "$T" | sort >tree.want

# The operations, the same for every table: read, create, mkdir and
# chmod in or of each directory, read, write and chmod of each file,
# create each absent path a row may name.  A chmod is a metadata write:
# explain's "write" (a read-only mount refuses it in namespace mode).
: >ops
for d in d0 d1 d2; do
	for p in "$d" "$d/s0" "$d/s1"; do
		printf 'read %s\ncreate %s/new.vbox\nmkdir %s/dir.vbox\n' \
			"$T/$p" "$T/$p" "$T/$p" >>ops
		printf 'chmod %s\n' "$T/$p" >>ops
	done
	for f in "$d/f0" "$d/f1" "$d/s0/f0" "$d/s1/f0"; do
		printf 'read %s\nwrite %s\nchmod %s\n' "$T/$f" "$T/$f" \
			"$T/$f" >>ops
	done
	printf 'create %s\n' "$T/$d/absent" >>ops
	printf 'rename %s\n' "$T/$d/f1" >>ops
done
nops=$(wc -l <ops)
# explain's queries: two per operation (create needs the path and its
# directory writable), "allow" only when both are allowed.
while read -r op path; do
	case $op in
	read) printf 'read %s\nread %s\n' "$path" "$path" ;;
	write | chmod) printf 'write %s\nwrite %s\n' "$path" "$path" ;;
	rename) printf 'write %s\nwrite %s\n' "$path" "${path%/*}" ;;
	create | mkdir) printf 'write %s\nwrite %s\n' "$path" "${path%/*}" ;;
	esac
done <ops >queries
set -- $(cat ops)
probe_args="$*"

# gen_table N - table N of this seed on stdout: a posture and 1..6 rows
gen_table() {
	awk -v seed="$seed" -v n="$1" -v T="$T" 'BEGIN {
		# srand() of mawk takes a 32-bit value: larger ones all
		# give the same numbers
		srand((seed % 20000000) * 100 + n)
		printf "@default write %s\n[fs]\n", rand() < 0.7 ? "deny" : "rw"
		split("d0 d1 d2", D, " ")
		split("s0 s1", S, " ")
		rows = 1 + int(rand() * 6)
		for (i = 0; i < rows; i++) {
			r = rand()
			eff = r < 0.4 ? "rw" : r < 0.7 ? "ro" : "deny"
			d = D[1 + int(rand() * 3)]
			s = S[1 + int(rand() * 2)]
			k = int(rand() * 12)
			if (k == 9) { p = "**/f1"; if (eff == "rw") eff = "deny" }
			else if (k == 10) p = d "/**/f0"
			else if (k == 11) p = d "/s*/f0"
			else if (k == 0) p = d
			else if (k == 1) p = d "/" s
			else if (k == 2) p = d "/f" int(rand() * 2)
			else if (k == 3) p = d "/" s "/f0"
			else if (k == 4) p = d "/absent"
			else if (k == 5) p = d "/*/f0"
			else if (k == 6) p = d "/" s
			else if (k == 7) p = d
			else p = d "/" s "/f0"
			if (k == 9)
				printf "%s%s: %s\n", rand() < 0.3 ? "!" : "",
				       eff, p
			else
				printf "%s%s: %s/%s\n", rand() < 0.3 ? "!" : "",
				       eff, T, p
		}
	}'
}

# explained OP PATH - is this denial one the report calls narrower?
# (narrower.paths: "deny|hole PATH" for each narrower row, globs
# expanded as the launcher does)
explained() {
	_op=$1
	_p=$2
	while read -r _kind _n; do
		case $_op in
		create | mkdir | write | chmod | rename)
			# the entry's directory lies above the narrower path
			case $_n in "${_p%/*}"/*) return 0 ;; esac
			;;
		read)
			# a directory above a denied directory (or absent path)
			[ "$_kind" = deny ] && [ -d "$_p" ] || continue
			[ -f "$_n" ] && continue
			case $_n in "$_p"/*) return 0 ;; esac
			;;
		esac
	done <narrower.paths
	return 1
}

# narrower_paths RULES - narrower.paths for RULES from preflight's JSON
narrower_paths() {
	jq -r '.fs[] | select(.landing == "narrower") |
		(if (.rule | test("^!*deny:")) then "deny" else "hole" end)
		+ " " + (.rule | sub("^!*[a-z]+:"; ""))' pf.json |
	while read -r _kind _pat; do
		# shellcheck disable=SC2086 # the glob expands here on purpose
		for _x in $_pat; do
			printf '%s %s\n' "$_kind" "$_x"
		done
	done >narrower.paths
	jq -r '.fs[] | select(.landing == "narrower") | .reason' pf.json \
		>pf.reasons
}

# judge NAME EXACT USER - compare got (the probe's lines) with want
judge() {
	_name=$1
	_exact=$2
	_who=$3
	paste -d ' ' ops want got >cmp
	_wider=0
	_unexplained=0
	_narrower=0
	while read -r _op _path _want _got _err; do
		[ "$_want" = "$_got" ] && continue
		if [ "$_want" = deny ] && [ "$_got" = allow ]; then
			echo "#   WIDER: $_op $_path: explain denies, $_who allowed"
			_wider=$((_wider + 1))
		elif [ "$_exact" = yes ] || [ "$_got" != deny ] ||
			! explained "$_op" "$_path"; then
			echo "#   DISAGREE: $_op $_path: explain $_want, got" \
				"$_got $_err"
			_unexplained=$((_unexplained + 1))
		else
			echo "#   narrower (explained): $_op $_path: explain" \
				"allows, got deny $_err"
			_narrower=$((_narrower + 1))
		fi
	done <cmp
	if [ "$_wider" -eq 0 ] && [ "$_unexplained" -eq 0 ]; then
		if [ "$_exact" = yes ]; then
			ok "$_name: $_who: agrees with explain on $nops operations"
		else
			ok "$_name: $_who: never wider than explain," \
				"$_narrower narrower operations, all reported"
		fi
	else
		not_ok "$_name: $_who: $_wider wider and $_unexplained" \
			"unexplained disagreements with explain"
		sed 's/^/#   rules: /' rules
	fi
}

# one_user NAME EXACT WHO OWNER RUNAS... - run the probe under the plan,
# the tree owned by OWNER (uid:gid), the user it runs as: mode bits then
# allow what the sandbox must decide, chmod included
one_user() {
	_name=$1
	_exact=$2
	_who=$3
	chown -R "$4" "$T"
	shift 4
	if [ "$_exact" = no ]; then
		set -- "$@" timeout 60 "$VBOX_EXEC" $mode_args --accept-narrower
	else
		set -- "$@" timeout 60 "$VBOX_EXEC" $mode_args
	fi
	rc=0
	# shellcheck disable=SC2086 # the operations are words
	"$@" plan -- "$VBOX_PROBE" $probe_args >out 2>err || rc=$?
	if [ "$rc" -ne 0 ] || [ "$(wc -l <out)" -ne "$nops" ]; then
		not_ok "$_name: $_who: the probe ran (exit $rc)"
		sed 's/^/#   err: /' err | head -n 10
		sed 's/^/#   rules: /' rules
		return 0
	fi
	# "allow", "deny ERRNO" or "error ERRNO"
	awk '{ print $3, $4 }' out >got
	judge "$_name" "$_exact" "$_who"
	# The probe undoes what it did; the launcher removes its
	# placeholders.  Whatever is left would decide the next run, except
	# a missing writable root, which the launcher creates on purpose
	# (doc/launcher.md): that one is removed here.
	sed -n 's/^!*rw: *//p' rules | while read -r _p; do
		case $_p in *'*'*) continue ;; esac
		grep -qxF -- "$_p" tree.want || rmdir -- "$_p" 2>/dev/null || :
	done
	find "$T" | sort >tree.got
	if cmp -s tree.want tree.got; then
		ok "$_name: $_who: the tree is as it was"
	else
		not_ok "$_name: $_who: the tree is as it was"
		diff tree.want tree.got | sed 's/^/#   /'
		rm -rf "$T"
		mkdir -p "$T"
		# put it back as it was for the next table
		while read -r _p; do
			[ "$_p" = "$T" ] && continue
			case $_p in
			*/f[01]) echo "content ${_p#"$T"/}" >"$_p" ;;
			*) mkdir -p "$_p" ;;
			esac
		done <tree.want
		chmod -R a+rwX "$T"
	fi
}

ran=0
refused=0
ctr_refused=0
narrow=0
i=0
while [ "$i" -lt "$ntables" ]; do
	i=$((i + 1))
	name="table $i"
	gen_table "$i" >rules
	if ! "$VBOXC" compile --target=linux --emit=plan -o plan rules \
		>/dev/null 2>compile.err; then
		# Unsupported on linux (e.g. a supervised ro glob over what
		# a lower deny hides): refused before any launch.
		echo "# $name: compile refuses it: $(grep -m1 error: compile.err)"
		refused=$((refused + 1))
		continue
	fi
	chmod a+r plan
	"$VBOXC" explain --format=json --target=linux rules \
		--queries=queries >answers 2>/dev/null
	awk '{ a = ($0 ~ /"allow":true/); if (NR % 2) p = a;
	       else print (p && a) ? "allow" : "deny" }' answers >want
	ran=$((ran + 1))
	echo "# $name ($(grep -c ': ' rules) rows):"
	sed 's/^/#   /' rules
	if [ "$mode" = container ]; then
		rc=0
		timeout 60 "$VBOX_EXEC" --mode=container plan -- /bin/true \
			>/dev/null 2>err || rc=$?
		if [ "$rc" -ne 0 ]; then
			echo "# $name: container mode refuses it (exit $rc):"
			sed 's/^/#   err: /' err | head -n 3
			ctr_refused=$((ctr_refused + 1))
			check "$name: a refusal names a row and never advises --mode=ns" \
				sh -c "test $rc = 125 && grep -q 'row [0-9]' err && ! grep -q -- '--mode=ns' err"
			continue
		fi
	fi
	for u in $users; do
		case $u in
		root) one_user "$name" yes "uid 0" 0:0 env ;;
		nobody) one_user "$name" yes "uid 65534" 65534:65534 \
			setpriv --reuid=65534 --regid=65534 --clear-groups ;;
		*) one_user "$name" yes "uid $u" "$u" env ;;
		esac
	done
	# Landlock alone (--accept-narrower), where the report says so.
	[ "$mode" = container ] || continue
	"$VBOXC" preflight --format=json --target=linux --mode=container \
		--accept-narrower rules >pf.json 2>/dev/null || :
	[ "$(jq '[.fs[] | select(.landing == "narrower")] | length' \
		pf.json)" -gt 0 ] || continue
	narrower_paths
	narrow=$((narrow + 1))
	for u in $users; do
		case $u in
		root) one_user "$name, --accept-narrower" no "uid 0" 0:0 env ;;
		nobody) one_user "$name, --accept-narrower" no "uid 65534" \
			65534:65534 setpriv --reuid=65534 --regid=65534 \
			--clear-groups ;;
		*) one_user "$name, --accept-narrower" no "uid $u" "$u" env ;;
		esac
	done
done
echo "# $ran tables compiled, $refused refused by compile;" \
	"container mode refused $ctr_refused of $ran" \
	"($((ran ? ctr_refused * 100 / ran : 0)) %); $narrow also run with" \
	"--accept-narrower"
[ "$ran" -gt 0 ] || not_ok "no table was run (seed $seed)"

done_testing
