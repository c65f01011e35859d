#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_placeholders.sh - concurrent launches share placeholders
# (doc/launcher.md, "Placeholders"): 20 launches of one plan at once,
# whose denied paths do not exist, each child trying again and again to
# create them while the others start and end, 5 of the launches killed
# with SIGKILL.  No child may ever create a denied path, and when all
# have ended nothing is left on the host: no denied path, no placeholder,
# no lock file in the registry.  As the running uid and, under root,
# again as uid 65534.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher

N=20
chmod 755 "$workdir"

# registry UID - where vbox-exec run as UID keeps the registry
registry() {
	if [ "$1" -eq 0 ]; then
		echo /run/vbox/placeholders
	else
		echo "/tmp/vbox-$1/placeholders"
	fi
}

round() { # WHO RUNAS...
	who=$1
	shift
	uid=$("$@" id -u)
	T=$workdir/t$uid
	mkdir -p "$T/rw"
	chmod 755 "$T"
	chmod 1777 "$T/rw"
	printf '@default write deny\n[fs]\nrw: %s/rw\n!deny: %s/rw/absent\n!deny: %s/rw/gone/deeper\n' \
		"$T" "$T" "$T" >"$T/p.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$T/p.plan" "$T/p.rules"
	chmod 644 "$T/p.plan"
	i=0
	pids=
	while [ $i -lt $N ]; do
		# Each child keeps trying for about 2 s, while the others
		# start and end around it.
		"$@" env -u XDG_RUNTIME_DIR "$VBOX_EXEC" "$T/p.plan" -- sh -c '
			j=0
			while [ $j -lt 40 ]; do
				mkdir "$1/rw/absent/x" 2>/dev/null && echo BREACH
				mkdir -p "$1/rw/gone/deeper/x" 2>/dev/null &&
					echo BREACH
				sleep 0.05
				j=$((j + 1))
			done' sh "$T" >"$T/out.$i" 2>&1 &
		pids="$pids $!"
		sleep 0.0$((i % 10))
		i=$((i + 1))
	done
	sleep 0.5
	# SIGKILL five of the launchers (vbox-exec itself, not the tree).
	k=0
	for p in $pids; do
		k=$((k + 1))
		case $k in 3 | 7 | 11 | 15 | 19)
			pkill -KILL -P "$p" -x vbox-exec 2>/dev/null || :
			kill -KILL "$p" 2>/dev/null || :
			;;
		esac
	done
	for p in $pids; do
		wait "$p" 2>/dev/null || :
	done
	# The killed launches' watchdogs sweep shortly after.
	sleep 1
	is "$(cat "$T"/out.* | grep -c BREACH || :)" 0 \
		"$who: no child of $N concurrent launches ever created a denied path"
	check "$who: host side: the denied paths do not exist" \
		test ! -e "$T/rw/absent" -a ! -e "$T/rw/gone"
	is "$(ls "$T/rw")" "" "$who: host side: nothing is left in the writable root"
	reg=$(registry "$uid")
	# (the registry is the uid's, shared with any other launch on the
	# machine: only the lock files that record this test's paths count)
	is "$(grep -lsF -- "$T/" "$reg"/*.lock | wc -l)" 0 \
		"$who: host side: no lock file is left in the registry"
	if grep -v BREACH "$T"/out.* | grep -q .; then
		grep -v BREACH "$T"/out.* | sort | uniq -c | head -5 |
			sed 's/^/# /'
	fi
}

round "uid $(id -u)" env
if [ "$(id -u)" -eq 0 ] && nobody_can_run; then
	round "uid 65534" setpriv --reuid=65534 --regid=65534 --clear-groups
elif [ "$(id -u)" -eq 0 ]; then
	echo "# $nobody_why: the runs as uid 65534 are skipped"
fi
done_testing
