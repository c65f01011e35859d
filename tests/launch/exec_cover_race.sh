#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/launch/exec_cover_race.sh - deny covers are pinned (doc/launcher.md,
# "Pinned paths"): host processes swap a denied directory and a denied
# file with symbolic links (renameat2(RENAME_EXCHANGE),
# tests/launch/swap_exchange.c) and back in a tight loop while many launches
# start; the tmpfs over the directory and the /dev/null over the file
# must never land elsewhere.  The real directory, with
# the secret, spends the swapped half of its time in a second denied
# directory that is never swapped; the links point to an allowed
# directory and file.  Each child tries to read the secret through the denied
# path, through the place the directory is swapped to and through the
# link's target.  Judged on the host side: the secret is never printed,
# and every launch either ran (the cover in place) or failed closed with
# 125 and a message that says why.  As the running uid and, under root,
# as uid 65534.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
: "${VBOX_EXEC:?VBOX_EXEC must name the vbox-exec binary}"
require_launcher
SWAP=${top_builddir:-.}/tests/launch/swap_exchange
[ -x "$SWAP" ] || skip_all "no $SWAP"
: "${VBOX_RACE_LAUNCHES:=200}"
chmod 755 "$workdir"
set_users

round() { # WHO RUNAS...
	who=$1
	shift
	uid=$("$@" id -u)
	T=$workdir/t$uid
	secret="SECRET-$uid-$$"
	mkdir -p "$T/pub/denied" "$T/pub/decoy" "$T/vault"
	printf '%s\n' "$secret" >"$T/pub/denied/secret"
	printf '%s\n' "$secret" >"$T/pub/file"
	echo decoy >"$T/pub/decoy/decoy"
	ln -s "$T/pub/decoy" "$T/vault/slot"
	ln -s "$T/pub/decoy/decoy" "$T/vault/fslot"
	printf '%s\n' '[fs]' "deny: $T/pub/denied" "deny: $T/pub/file" \
		"deny: $T/vault" >"$T/race.rules"
	"$VBOXC" compile --target=linux --emit=plan -o "$T/race.plan" \
		"$T/race.rules"
	chmod -R a+rX "$T"
	[ "$uid" -eq 0 ] || chown -R "$uid" "$T"

	# Without the swapper: the cover is there, the secret is not read.
	for f in denied/secret file; do
		run timeout 60 "$@" "$VBOX_EXEC" "$T/race.plan" -- \
			cat "$T/pub/$f"
		check "$who: the denied '$f' is covered (status $rc)" \
			test "$rc" -ne 0 -a "$rc" -ne 125 -a "$rc" -ne 124
		check "$who: ... and the secret is not printed" \
			test ! -s "$workdir/out"
	done

	rm -f "$T/stop"
	"$@" "$SWAP" "$T/pub/denied" "$T/vault/slot" "$T/stop" \
		>"$T/swaps" 2>"$T/swap.err" &
	swapper=$!
	"$@" "$SWAP" "$T/pub/file" "$T/vault/fslot" "$T/stop" \
		>"$T/fswaps" 2>"$T/fswap.err" &
	fswapper=$!
	ran=0 closed=0 leaks=0 other=0
	i=0
	while [ $i -lt "$VBOX_RACE_LAUNCHES" ]; do
		rc=0
		timeout 60 "$@" "$VBOX_EXEC" "$T/race.plan" -- sh -c '
			for n in 1 2 3 4 5 6 7 8 9 10; do
				cat "$1/pub/denied/secret" "$1/vault/slot/secret" \
					"$1/pub/decoy/secret" "$1/pub/file" \
					"$1/vault/fslot"
			done 2>/dev/null
			exit 0' sh "$T" >"$T/out" 2>"$T/err" || rc=$?
		if grep -qF "$secret" "$T/out" "$T/err"; then
			leaks=$((leaks + 1))
			[ "$leaks" -gt 1 ] ||
				sed 's/^/# leak: /' "$T/err" | head -n 5
		elif [ "$rc" -eq 0 ]; then
			ran=$((ran + 1))
		elif [ "$rc" -eq 125 ] && grep -qE \
			"changed while the sandbox was built|is a symbolic link" \
			"$T/err"; then
			closed=$((closed + 1))
		else
			other=$((other + 1))
			[ "$other" -gt 3 ] || {
				echo "# other: status $rc"
				sed 's/^/#   /' "$T/err" | head -n 5
			}
		fi
		i=$((i + 1))
	done
	: >"$T/stop"
	src=0
	wait "$swapper" || src=$?
	wait "$fswapper" || src=$?
	swaps=$(cat "$T/swaps" 2>/dev/null || :)
	fswaps=$(cat "$T/fswaps" 2>/dev/null || :)
	check "$who: the swappers ran to the end (${swaps:-0} and ${fswaps:-0} swaps)" \
		test "$src" -eq 0 -a "${swaps:-0}" -gt 0 -a "${fswaps:-0}" -gt 0
	is "$leaks" 0 "$who: swap race: the secret was never printed ($ran ran, $closed failed closed, of $VBOX_RACE_LAUNCHES)"
	is "$other" 0 "$who: swap race: every launch ran or failed closed with 125 saying why"
	check "$who: the denied directory and file are back in place" \
		test -f "$T/pub/denied/secret" -a -L "$T/vault/slot" \
		-a -f "$T/pub/file" -a -L "$T/vault/fslot"
}

each_user round
done_testing
