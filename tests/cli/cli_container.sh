#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/cli_container.sh - `vboxc preflight` and `vboxc check` with
# --mode=container (doc/targets.md, "linux, container mode"): each
# landing in text and JSON, the exit statuses with and without
# --accept-narrower, and --mode refused where it means nothing.

. "${srcdir:-$(dirname "$0")/../..}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
[ -x "$VBOXC" ] || skip_all "no vboxc binary at $VBOXC"

cd "$workdir"

# One text line per row: with grouped output by default, --per-row.
per_row=
if "$VBOXC" preflight --help | grep -q -- --per-row; then
	per_row=--per-row
fi

# has FILE FIXED-STRING DESC
has() {
	if grep -qF -- "$2" "$1"; then
		ok "$3"
	else
		not_ok "$3"
		sed 's/^/#   /' "$1" | head -n 30
	fi
}

# hasnt FILE FIXED-STRING DESC
hasnt() {
	if grep -qF -- "$2" "$1"; then
		not_ok "$3"
		grep -F -- "$2" "$1" | sed 's/^/#   /' | head -n 10
	else
		ok "$3"
	fi
}

# lands ROWPREFIX LANDING DESC - the preflight text line that starts with
# ROWPREFIX ("fs 3 ") says LANDING
lands() {
	_line=$(grep -F -- "$1" out | head -n 1)
	case $_line in
	*"': $2: "*) ok "$3" ;;
	*)
		not_ok "$3"
		printf '# line: %s\n' "$_line"
		;;
	esac
}

# status WANT DESC
status() {
	if [ "$rc" -eq "$1" ]; then
		ok "$2"
	else
		not_ok "$2 (exit status $rc, want $1)"
		sed 's/^/#   err: /' err | head -n 20
	fi
}

# Row by row (file rows 0..10, network rows 0..2):
#  fs 0  rw: a writable root                           kernel
#  fs 1  ro hole in it                                 narrower (hole)
#  fs 2  deny in it                                    narrower (both)
#  fs 3  deny outside every writable region            narrower (deny)
#  fs 4  ro inside that denied region                  kernel
#  fs 5  ro outside every writable region              absorbed
#  fs 6  deny glob outside writable regions            narrower (deny)
#  fs 7  ro glob inside the writable root              unsupported
#  fs 8  deny pattern starting with a wildcard         unsupported
#  fs 9  rw covered by row 0                           absorbed (dead)
#  fs 10 deny inside an already denied region          absorbed
#  net 0 loopback row with a port                      supervised
#  net 1 a host                                        proxy
#  net 2 loopback row without a port                   supervised
cat >all.rules <<'EOF'
@default write deny
@default net deny
[fs]
rw: /srv/work
!ro: /srv/work/ro
!deny: /srv/work/secret
deny: /srv/private
!ro: /srv/private/pub
ro: /etc
deny: /srv/data/*.key
!ro: /srv/work/*.lock
deny: **/.git
!rw: /srv/work/sub
!deny: /srv/private/inner
[net]
allow: localhost:5432
allow: example.com:443
allow: 127.0.0.1
EOF

# The same without the unsupported rows (7, 8): only narrower ones.
grep -v -e '\*\.lock' -e '\*\*/\.git' all.rules >narrow.rules

# Nothing narrower: a writable root, an ro row outside it, proxy rows.
cat >plain.rules <<'EOF'
@default write deny
[fs]
rw: /srv/work
ro: /etc
[net]
allow: example.com:443
allow: localhost:8080
EOF

# --- preflight, text ---------------------------------------------------------
run "$VBOXC" preflight $per_row --target=linux --mode=container all.rules
status 1 "preflight --mode=container exits 1 with unsupported rows"
lands "fs 0 " kernel "rw row: kernel"
has out "fs 0 all.rules:4:1 'rw:/srv/work': kernel: landlock: " \
	"rw row: the reason says landlock"
lands "fs 1 " narrower "ro hole in a writable root: narrower"
has out "read-only hole '/srv/work/ro' in a region row 0 makes writable" \
	"ro hole: the reason names the hole and the region's row"
has out "the directories above it cannot create, remove or rename" \
	"ro hole: the reason says what the directories above lose"
lands "fs 2 " narrower "deny in a writable root: narrower"
lands "fs 3 " narrower "deny outside writable regions: narrower"
has out "denied path '/srv/private': read is granted on every sibling" \
	"deny: the reason says how it is held"
has out "a directory above a denied directory cannot be listed" \
	"deny: the reason says what the directories above lose"
lands "fs 4 " kernel "ro inside a denied region: kernel"
lands "fs 5 " absorbed "ro outside every writable region: absorbed"
lands "fs 6 " narrower "deny glob: narrower"
lands "fs 7 " unsupported "ro glob in a writable root: unsupported"
lands "fs 8 " unsupported "deny starting with a wildcard: unsupported"
lands "fs 9 " absorbed "dead rw row: absorbed"
lands "fs 10 " absorbed "deny in a denied region: absorbed"
has out "fs 10 all.rules:14:1 '!deny:/srv/private/inner': absorbed: redundant: already denied through row 3" \
	"deny in a denied region: the reason names the row"
lands "net 0 " supervised "loopback row with a port: supervised"
has out "direct connects to 127.0.0.1 and ::1 at port 5432" \
	"supervised: the reason names the port"
lands "net 1 " proxy "host row: proxy"
lands "net 2 " supervised "loopback row without a port: supervised"
has out "reserved 'allow:localhost:\${VBOX_PROXY_HTTP_PORT}': reserved:" \
	"the proxy's ports are reserved entries"
has err "all.rules:11:1: error: row 7 '!ro:/srv/work/*.lock' is unsupported on linux in container mode: " \
	"an unsupported row is an error on stderr, at the row"
has err "all.rules:6:1: error: row 2 '!deny:/srv/work/secret' is narrower in container mode: " \
	"a narrower row is an error on stderr, at the row"

run "$VBOXC" preflight $per_row --target=linux --mode=container --accept-narrower \
	all.rules
status 1 "--accept-narrower does not accept unsupported rows"
hasnt err ": error: row 1 " "--accept-narrower: no narrower error"
has err "note: row 1 '!ro:/srv/work/ro' is narrower in container mode: " \
	"--accept-narrower: a narrower row is a note"

run "$VBOXC" preflight $per_row --target=linux --mode=container narrow.rules
status 1 "preflight exits 1 on narrower rows without --accept-narrower"
run "$VBOXC" preflight $per_row --target=linux --mode=container --accept-narrower \
	narrow.rules
status 0 "preflight exits 0 on narrower rows with --accept-narrower"
run "$VBOXC" preflight $per_row --target=linux --mode=container plain.rules
status 0 "preflight exits 0 when nothing is narrower"
lands "fs 1 " absorbed "plain: ro outside the writable root: absorbed"
lands "net 1 " supervised "plain: localhost:8080: supervised"

# Namespace mode is unchanged by the option.
run "$VBOXC" preflight --target=linux all.rules
cp out ns.default
run "$VBOXC" preflight --target=linux --mode=ns all.rules
if cmp -s out ns.default; then
	ok "--mode=ns prints what no --mode prints"
else
	not_ok "--mode=ns prints what no --mode prints"
fi
hasnt out ": narrower: " "namespace mode has no narrower rows"

# Open posture: a deny row stays unsupported, an allow row is absorbed.
cat >open.rules <<'EOF'
@default net open
[net]
deny: example.com
allow: example.org:443
EOF
run "$VBOXC" preflight $per_row --target=linux --mode=container open.rules
status 1 "open posture: a network deny row fails preflight"
lands "net 0 " unsupported "open posture: network deny row: unsupported"
lands "net 1 " absorbed "open posture: allow row: absorbed"

# Deny posture without a live allow row: deny rows need nothing.
printf '[net]\ndeny: example.com\n' >closed.rules
run "$VBOXC" preflight $per_row --target=linux --mode=container closed.rules
status 0 "deny posture without allow rows: exit 0"
lands "net 0 " absorbed "deny posture, no proxy: deny row absorbed"

# @default write rw: every hole is narrower, an rw row redundant.
cat >openw.rules <<'EOF'
@default write rw
[fs]
ro: /srv/ro
rw: /srv/rw
EOF
run "$VBOXC" preflight $per_row --target=linux --mode=container openw.rules
lands "fs 0 " narrower "@default write rw: an ro row is a hole"
has out "in a region @default write rw makes writable" \
	"@default write rw: the reason names the posture"
lands "fs 1 " absorbed "@default write rw: an rw row is redundant"

# /proc and /sys are the host's: a row cannot hide a path there, and
# they stay read-only whatever the rows say.
cat >kernel.rules <<'EOF'
[fs]
deny: /proc/version
ro: /sys/kernel
rw: /sys/fs/cgroup
deny: /process
EOF
run "$VBOXC" preflight $per_row --target=linux --mode=container kernel.rules
status 1 "a deny row below /proc fails preflight"
lands "fs 0 " unsupported "deny below /proc: unsupported"
has out "'/proc/version' is below /proc or /sys, which are the host's in container mode and cannot hide a path" \
	"deny below /proc: the reason says why"
lands "fs 1 " absorbed "ro below /sys: absorbed"
lands "fs 2 " absorbed "rw below /sys: absorbed (read-only anyway)"
lands "fs 3 " narrower "/process is not below /proc: narrower"

# A private /tmp is a tmpfs of the sandbox's own: no mount namespace,
# no such /tmp.
printf '@default tmp private\n[fs]\nrw: /srv/x\n' >tmp.rules
run "$VBOXC" preflight $per_row --target=linux --mode=container tmp.rules
status 1 "@default tmp private fails preflight --mode=container"
lands "fs 1 " unsupported "the private /tmp row: unsupported"
has err "tmp.rules:1:1: error: row 1 'rw:/tmp' is unsupported on linux in container mode: private /tmp" \
	"the private /tmp: the error is at the setting"
run "$VBOXC" preflight $per_row --target=linux tmp.rules
lands "fs 1 " kernel "the private /tmp in namespace mode: kernel"

# --- preflight, JSON ---------------------------------------------------------
if command -v jq >/dev/null 2>&1; then
	run "$VBOXC" preflight --target=linux --mode=container --format=json \
		all.rules
	status 1 "preflight --format=json exits 1 too"
	is "$(jq -r '.mode' out)" container "JSON: mode is container"
	is "$(jq -r '[.fs[].landing] | join(",")' out)" \
		"kernel,narrower,narrower,narrower,kernel,absorbed,narrower,unsupported,unsupported,absorbed,absorbed" \
		"JSON: the file rows' landings"
	is "$(jq -r '[.net[].landing] | join(",")' out)" \
		"supervised,proxy,supervised" "JSON: the network rows' landings"
	is "$(jq -r '.unsupported, .narrower' out | tr '\n' ' ')" "2 4 " \
		"JSON: unsupported and narrower counts"
	is "$(jq -r 'keys_unsorted | join(",")' out)" \
		"target,mode,fs,net,reserved,unsupported,narrower" \
		"JSON: members in order"
	run "$VBOXC" preflight --target=linux --format=json all.rules
	is "$(jq -r 'keys_unsorted | join(",")' out)" \
		"target,fs,net,reserved,unsupported" \
		"JSON without --mode: the members are unchanged"
	run "$VBOXC" preflight --target=linux --mode=ns --format=json all.rules
	is "$(jq -r '.mode' out),$(jq -r 'has("narrower")' out)" "ns,false" \
		"JSON with --mode=ns: mode ns, no narrower count"
else
	ok "# SKIP preflight JSON (no jq)"
fi

# --- check -------------------------------------------------------------------
run "$VBOXC" check --target=linux --mode=container narrow.rules
status 1 "check --mode=container exits 1 on narrower rows"
for r in "5:1: error: row 1 '!ro:/srv/work/ro'" \
	"6:1: error: row 2 '!deny:/srv/work/secret'" \
	"7:1: error: row 3 'deny:/srv/private'" \
	"10:1: error: row 6 'deny:/srv/data/*.key'"; do
	has err "narrow.rules:$r is narrower in container mode: " \
		"check names narrower row ${r#*row }"
done
has err "; accepted by vbox-exec --accept-narrower" \
	"check says which flag accepts it"
is "$(grep -c ': error: ' err)" 4 "check: one error per narrower row"

run "$VBOXC" check --target=linux --mode=container --accept-narrower \
	narrow.rules
status 0 "check --accept-narrower exits 0"
is "$(grep -c ': note: row [0-9]* .* is narrower in container mode' err)" 4 \
	"check --accept-narrower: each narrower row is a note"
run "$VBOXC" check --target=linux --mode=container --accept-narrower \
	-Werror narrow.rules
status 0 "check --accept-narrower -Werror: notes are not warnings"

run "$VBOXC" check --mode=container all.rules
status 1 "check without --target (linux host) takes --mode too"
has err "note: 'vbox-exec --mode=container' would refuse this: row 8 'deny:**/.git' is unsupported on linux in container mode" \
	"check: an unsupported row is a note naming vbox-exec"
run "$VBOXC" check --mode=container --accept-narrower all.rules
status 0 "check: unsupported rows alone do not fail check (SPEC 5)"

run "$VBOXC" check --target=linux --mode=container plain.rules
status 0 "check exits 0 when nothing is narrower"
run "$VBOXC" check --target=linux narrow.rules
status 0 "check without --mode: namespace mode, nothing narrower"

if command -v jq >/dev/null 2>&1; then
	run "$VBOXC" check --target=linux --mode=container --format=json \
		narrow.rules
	status 1 "check --format=json exits 1 on narrower rows"
	is "$(jq '[.errors[] | select(.message | test("is narrower in container mode"))] | length' out)" \
		4 "check JSON: one error per narrower row"
	is "$(jq -r '.errors[0].source' out)" narrow.rules:5:1 \
		"check JSON: the error's source is the row"
	run "$VBOXC" check --target=linux --mode=container --format=json \
		all.rules
	is "$(jq '[.notes[]? | select(.kind == "unsupported")] | length' out)" \
		2 "check JSON: the unsupported rows are notes"
	run "$VBOXC" check --target=linux --mode=container --accept-narrower \
		--format=json narrow.rules
	status 0 "check --accept-narrower --format=json exits 0"
	is "$(jq -c '[(.errors | length), ([.notes[]? | select(.kind == "narrower")] | length)]' out)" \
		"[0,4]" "check JSON --accept-narrower: no errors, 4 narrower notes"
else
	ok "# SKIP check JSON (no jq)"
fi

# --- usage errors ------------------------------------------------------------
for t in darwin windows; do
	for c in check preflight; do
		run "$VBOXC" $c --target=$t --mode=container plain.rules
		status 2 "$c --target=$t --mode=container is a usage error"
		has err "--mode is for --target=linux only" \
			"$c --target=$t: the message says why"
		run "$VBOXC" $c --mode=ns --target=$t plain.rules
		status 2 "$c --mode=ns --target=$t is a usage error too"
	done
done
run "$VBOXC" check --target=linux --mode=contianer plain.rules
status 2 "an unknown mode is a usage error"
has err "unknown mode 'contianer' (expected ns|container); did you mean 'container'?" \
	"an unknown mode gets a hint"
run "$VBOXC" check --target=linux --accept-narrower plain.rules
status 2 "--accept-narrower without --mode=container is a usage error"
has err "--accept-narrower needs --mode=container" \
	"--accept-narrower alone: the message says why"
run "$VBOXC" compile --target=linux --mode=container plain.rules
status 2 "compile takes no --mode (vbox-exec chooses the mode)"
run "$VBOXC" explain --target=linux --mode=container plain.rules \
	--read=/etc/passwd
status 2 "explain takes no --mode"

# --- help ----------------------------------------------------------------------
for c in check preflight; do
	run "$VBOXC" $c --help
	has out "--mode=MODE" "$c --help lists --mode"
	has out "--accept-narrower" "$c --help lists --accept-narrower"
done

done_testing
