#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/cli/cli_container.sh - `vboxc preflight` and `vboxc check` with
# --mode=container (doc/targets.md, "linux, container mode"): each
# landing in text and JSON (the rows the path supervisor holds, the
# narrower ones of --accept-narrower), the one note for the supervised
# rows, the exit statuses, refusals that say what to change (never
# --mode=ns), and --mode refused where it means nothing.

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

# nomodens FILE DESC - no container-mode message advises --mode=ns (its
# namespaces are exactly what cannot start where container mode runs)
nomodens() {
	hasnt "$1" "mode=ns" "$2"
}

# The one note for the rows the path supervisor holds.
sup_note="note: container mode holds"
sup_cost="with the path supervisor (every path call judged; a round trip per call, bench/README.md)"

# Row by row (file rows 0..10, network rows 0..2):
#  fs 0  rw: a writable root                           kernel
#  fs 1  ro hole in it                                 supervised (hole)
#  fs 2  deny in it                                    supervised (deny)
#  fs 3  deny outside every writable region            supervised (deny)
#  fs 4  ro inside that denied region                  kernel
#  fs 5  ro outside every writable region              absorbed
#  fs 6  deny glob outside writable regions            supervised (deny)
#  fs 7  ro glob inside the writable root              supervised (as ns)
#  fs 8  deny pattern starting with a wildcard         supervised (as ns)
#  fs 9  rw covered by row 0                           absorbed (dead)
#  fs 10 deny inside an already denied region          absorbed
#  net 0 loopback row with a port                      supervised
#  net 1 a host                                        proxy
#  net 2 loopback row without a port                   supervised
# With --accept-narrower rows 1, 2, 3 and 6 stay supervised: rows 7 and
# 8 need the path supervisor anyway.
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

# The same without rows 7 and 8: no row namespace mode supervises, so
# --accept-narrower makes rows 1, 2, 3 and 6 narrower (Landlock alone).
grep -v -e '\*\.lock' -e '\*\*/\.git' all.rules >narrow.rules

# Nothing denied, no hole: a writable root, an ro row outside it, proxy
# rows.
cat >plain.rules <<'EOF'
@default write deny
[fs]
rw: /srv/work
ro: /etc
[net]
allow: example.com:443
allow: localhost:8080
EOF

# Like examples/node.rules: <secrets>'s deny rows, <git-protect>'s holes,
# a pattern starting with a wildcard, the private /tmp.
cat >node.rules <<'EOF'
@default write deny
@default net deny
@default tmp private
@include <secrets>
@include <git-protect>
[fs]
rw: /srv/p/**
!deny: **/.env
rw: /home/u/.npm/**
[net]
allow: registry.npmjs.org:443
EOF

# node_run COMMAND ARGS... - run vboxc COMMAND with the rule library and
# the variables node.rules needs
# (the library's rows are named by where it lies: "every line short"
# counts its path, which distcheck makes long, as one character)
node_run() {
	_c=$1
	shift
	run "$VBOXC" "$_c" -I "$top_srcdir/rules" -D HOME=/home/u \
		-D VBOX_GIT_REPO=/srv/p "$@"
}

# --- preflight, text ---------------------------------------------------------
run "$VBOXC" preflight $per_row --target=linux --mode=container all.rules
status 0 "preflight --mode=container exits 0: supervised rows are held"
lands "fs 0 " kernel "rw row: kernel"
has out "fs 0 all.rules:4:1 'rw:/srv/work': kernel: landlock: " \
	"rw row: the reason says landlock"
lands "fs 1 " supervised "ro hole in a writable root: supervised"
has out "fs 1 all.rules:5:1 '!ro:/srv/work/ro': supervised: read-only hole in a region row 0 makes writable: the path supervisor refuses writes there" \
	"ro hole: the reason names the region's row and the supervisor"
lands "fs 2 " supervised "deny in a writable root: supervised"
lands "fs 3 " supervised "deny outside writable regions: supervised"
has out "fs 3 all.rules:7:1 'deny:/srv/private': supervised: denied path: the path supervisor refuses every path call there" \
	"deny: the reason says the supervisor refuses every call there"
lands "fs 4 " kernel "ro inside a denied region: kernel"
lands "fs 5 " absorbed "ro outside every writable region: absorbed"
lands "fs 6 " supervised "deny glob: supervised"
lands "fs 7 " supervised "ro glob in a writable root: supervised"
lands "fs 8 " supervised "deny starting with a wildcard: supervised"
has out "fs 8 all.rules:12:1 'deny:**/.git': supervised: the path supervisor judges every path call, as in namespace mode" \
	"a row namespace mode supervises: the reason says so"
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
hasnt err ": error: " "supervised rows are no errors"
has err "vboxc: $sup_note 6 rows $sup_cost: rows 1-3, 6-8" \
	"one note names the supervised file rows, runs as ranges"
is "$(grep -c "$sup_note" err)" 1 "... once for all of them"
hasnt err "is narrower" "nothing is narrower without --accept-narrower"

run "$VBOXC" preflight $per_row --target=linux --mode=container --accept-narrower \
	all.rules
status 0 "--accept-narrower: exit 0 too"
lands "fs 1 " supervised \
	"--accept-narrower: a hole stays supervised where rows need the supervisor"
lands "fs 3 " supervised "--accept-narrower: ... and so does a deny row"
hasnt err "is narrower" "--accept-narrower: ... so nothing is narrower"
has err "$sup_note 6 rows" "--accept-narrower: ... and the note is the same"

run "$VBOXC" preflight $per_row --target=linux --mode=container narrow.rules
status 0 "no row namespace mode supervises: exit 0"
lands "fs 1 " supervised "... a hole is supervised without --accept-narrower"
lands "fs 6 " supervised "... and so is a deny glob"
has out "fs 6 narrow.rules:10:1 'deny:/srv/data/*.key': supervised: each match of the glob is denied: the path supervisor refuses every path call there" \
	"... whose reason says so"
has err "$sup_note 4 rows $sup_cost: rows 1-3, 6" "... in one note"

run "$VBOXC" preflight $per_row --target=linux --mode=container --accept-narrower \
	narrow.rules
status 0 "--accept-narrower: narrower rows exit 0"
lands "fs 1 " narrower "--accept-narrower: a hole is narrower"
has out "read-only hole '/srv/work/ro' in a region row 0 makes writable" \
	"narrower hole: the reason names the hole and the region's row"
has out "the directories above it cannot create, remove or rename" \
	"narrower hole: the reason says what the directories above lose"
lands "fs 2 " narrower "--accept-narrower: a deny in a writable root is narrower"
lands "fs 3 " narrower "--accept-narrower: a deny outside is narrower"
has out "denied path '/srv/private': read is granted on every sibling" \
	"narrower deny: the reason says how it is held"
has out "a directory above a denied directory cannot be listed" \
	"narrower deny: the reason says what the directories above lose"
lands "fs 6 " narrower "--accept-narrower: a deny glob is narrower"
has err "narrow.rules:5:1: note: row 1 '!ro:/srv/work/ro' is narrower in container mode: " \
	"--accept-narrower: a narrower row is a note at the row"
has err "; accepted by --accept-narrower" "... saying which flag accepts it"
is "$(grep -c ': note: row [0-9]* .* is narrower in container mode' err)" 4 \
	"--accept-narrower: one note per narrower row"
hasnt err "$sup_note" "--accept-narrower: no path supervisor, no note"
hasnt err ": error: " "--accept-narrower: no error"

run "$VBOXC" preflight $per_row --target=linux --mode=container plain.rules
status 0 "preflight exits 0 when nothing is denied"
lands "fs 1 " absorbed "plain: ro outside the writable root: absorbed"
lands "net 1 " supervised "plain: localhost:8080: supervised"
hasnt err "$sup_note" "plain: no path supervisor, no note"

# A table like examples/node.rules: no error, one note, short lines.
node_run preflight --target=linux --mode=container node.rules
status 0 "node-like table: preflight --mode=container exits 0"
hasnt err ": error: " "node-like table: no error"
is "$(grep -c 'container mode' err)" 1 \
	"node-like table: one container-mode line on stderr"
has err "vboxc: $sup_note 30 rows $sup_cost: rows 0-27, 29, 31" \
	"node-like table: ... the path supervisor's note"
has out "supervised: denied path: the path supervisor refuses every path call there" \
	"node-like table: <secrets>'s deny rows are supervised"
is "$(grep -c '^supervised: denied path: ' out)" 1 \
	"node-like table: ... in one group, their reason printed once"
has out "supervised: read-only hole in a region row " \
	"node-like table: <git-protect>'s holes are supervised"
has out "supervised: private /tmp: the launch's own directory in the host's /tmp is the sandbox's \$TMPDIR; the host's /tmp is neither read nor written" \
	"node-like table: the private /tmp is supervised"
# (a partial-override note with its condition, "… if 'hooks' is a
# directory", is the longest: about 205 characters)
check "node-like table: every line short" \
	sh -c "! sed 's|$top_srcdir|S|g' out err | awk 'length > 220' | grep -q ."
node_run preflight --per-row --target=linux --mode=container node.rules
lands "'!deny:**/.env'" supervised "node-like table: '**/.env' is supervised"
lands "'rw:/tmp'" supervised "node-like table: --per-row: the private /tmp too"
check "node-like table: --per-row: every line short" \
	sh -c "! sed 's|$top_srcdir|S|g' out | awk 'length > 200' | grep -q ."
node_run preflight --target=linux --mode=container --accept-narrower \
	node.rules
status 0 "node-like table: --accept-narrower changes nothing"
hasnt err "is narrower" "node-like table: ... nothing is narrower"
run "$VBOXC" preflight --target=linux --mode=container -I "$top_srcdir/rules" \
	-D PROJECT=/srv/p -D HOME=/home/u "$top_srcdir/examples/node.rules"
status 0 "examples/node.rules: preflight --mode=container exits 0"
is "$(grep -c '' err)" 1 "examples/node.rules: one line on stderr"
has err "$sup_note " "examples/node.rules: ... the path supervisor's note"

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
has err "use @default net deny with allow rows for what the command needs" \
	"open posture: the error says what to change"
nomodens err "open posture: the error does not advise --mode=ns"
lands "net 1 " absorbed "open posture: allow row: absorbed"

# Deny posture without a live allow row: deny rows need nothing.
printf '[net]\ndeny: example.com\n' >closed.rules
run "$VBOXC" preflight $per_row --target=linux --mode=container closed.rules
status 0 "deny posture without allow rows: exit 0"
lands "net 0 " absorbed "deny posture, no proxy: deny row absorbed"

# @default write rw: every hole is supervised (narrower with the flag),
# an rw row redundant.
cat >openw.rules <<'EOF'
@default write rw
[fs]
ro: /srv/ro
rw: /srv/rw
EOF
run "$VBOXC" preflight $per_row --target=linux --mode=container openw.rules
lands "fs 0 " supervised "@default write rw: an ro row is a supervised hole"
has out "read-only hole in a region @default write rw makes writable" \
	"@default write rw: the reason names the posture"
lands "fs 1 " absorbed "@default write rw: an rw row is redundant"
run "$VBOXC" preflight $per_row --target=linux --mode=container \
	--accept-narrower openw.rules
lands "fs 0 " narrower \
	"@default write rw, --accept-narrower: the hole is narrower"

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
has out "'/proc/version' is below /proc or /sys, which are the host's in container mode and cannot hide a path; drop the row" \
	"deny below /proc: the reason says why and what to change"
nomodens err "deny below /proc: the error does not advise --mode=ns"
lands "fs 1 " absorbed "ro below /sys: absorbed"
lands "fs 2 " absorbed "rw below /sys: absorbed (read-only anyway)"
lands "fs 3 " supervised "/process is not below /proc: supervised"

# Rows namespace mode refuses: refused here too, saying what to change.
printf '%s\n' 'rw:/srv/work/**' '!ro:/srv/work/**/.git/hooks/**' \
	'!deny:/srv/work/keys' >hide.rules
run "$VBOXC" preflight $per_row --target=linux --mode=container hide.rules
status 1 "a row namespace mode refuses fails preflight"
lands "fs 1 " unsupported "... it is unsupported"
has out "a supervised read-only row cannot show what the mounts of row 2 hide; vboxc compile refuses it for linux in either mode: change the row" \
	"... the reason says what to change"
nomodens err "... and does not advise --mode=ns"

# The private /tmp: the launch's own directory, the sandbox's $TMPDIR;
# the path supervisor holds it, so --accept-narrower changes nothing.
printf '@default tmp private\n[fs]\nrw: /srv/x\n!ro: /srv/x/ro\n' >tmp.rules
run "$VBOXC" preflight $per_row --target=linux --mode=container tmp.rules
status 0 "@default tmp private: preflight --mode=container exits 0"
lands "fs 2 " supervised "the private /tmp row: supervised"
has out "private /tmp: the launch's own directory in the host's /tmp is the sandbox's \$TMPDIR" \
	"the private /tmp: the reason says where it is"
has err "$sup_note 2 rows $sup_cost: rows 1-2" \
	"the private /tmp: in the path supervisor's note"
run "$VBOXC" preflight $per_row --target=linux --mode=container \
	--accept-narrower tmp.rules
lands "fs 1 " supervised \
	"the private /tmp: --accept-narrower leaves the hole supervised"
hasnt err "is narrower" "the private /tmp: ... nothing is narrower"
run "$VBOXC" preflight $per_row --target=linux tmp.rules
lands "fs 2 " kernel "the private /tmp in namespace mode: kernel"

# --- preflight, JSON ---------------------------------------------------------
if command -v jq >/dev/null 2>&1; then
	run "$VBOXC" preflight --target=linux --mode=container --format=json \
		all.rules
	status 0 "preflight --format=json exits 0 too"
	is "$(jq -r '.mode' out)" container "JSON: mode is container"
	is "$(jq -r '[.fs[].landing] | join(",")' out)" \
		"kernel,supervised,supervised,supervised,kernel,absorbed,supervised,supervised,supervised,absorbed,absorbed" \
		"JSON: the file rows' landings"
	is "$(jq -r '[.net[].landing] | join(",")' out)" \
		"supervised,proxy,supervised" "JSON: the network rows' landings"
	is "$(jq -r '.unsupported, .narrower' out | tr '\n' ' ')" "0 0 " \
		"JSON: unsupported and narrower counts"
	is "$(jq -r 'keys_unsorted | join(",")' out)" \
		"target,mode,fs,net,reserved,unsupported,narrower" \
		"JSON: members in order"
	run "$VBOXC" preflight --target=linux --mode=container --format=json \
		--accept-narrower narrow.rules
	is "$(jq -r '[.fs[].landing] | join(",")' out)" \
		"kernel,narrower,narrower,narrower,kernel,absorbed,narrower,absorbed,absorbed" \
		"JSON --accept-narrower: the file rows' landings"
	is "$(jq -r '.unsupported, .narrower' out | tr '\n' ' ')" "0 4 " \
		"JSON --accept-narrower: unsupported and narrower counts"
	run "$VBOXC" preflight --target=linux --mode=container --format=json \
		kernel.rules
	status 1 "JSON: an unsupported row still exits 1"
	is "$(jq -r '.unsupported' out)" 1 "JSON: ... and is counted"
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
status 0 "check --mode=container exits 0 on supervised rows"
hasnt err ": error: " "check: supervised rows are no errors"
has err "vboxc: $sup_note 4 rows $sup_cost: rows 1-3, 6" \
	"check: one note for the supervised rows"
is "$(grep -c "$sup_note" err)" 1 "check: ... once"
run "$VBOXC" check --target=linux --mode=container -Werror narrow.rules
status 0 "check -Werror: the note is no warning"

run "$VBOXC" check --target=linux --mode=container --accept-narrower \
	narrow.rules
status 0 "check --accept-narrower exits 0"
is "$(grep -c ': note: row [0-9]* .* is narrower in container mode' err)" 4 \
	"check --accept-narrower: each narrower row is a note"
has err "narrow.rules:10:1: note: row 6 'deny:/srv/data/*.key' is narrower in container mode: " \
	"check --accept-narrower: ... at the row"
hasnt err "$sup_note" "check --accept-narrower: no path supervisor note"
run "$VBOXC" check --target=linux --mode=container --accept-narrower \
	-Werror narrow.rules
status 0 "check --accept-narrower -Werror: notes are not warnings"

run "$VBOXC" check --mode=container all.rules
status 0 "check without --target (linux host) takes --mode too"
has err "$sup_note 6 rows" "check without --target: the same note"

node_run check --target=linux --mode=container node.rules
status 0 "node-like table: check --mode=container exits 0"
is "$(grep -c 'container mode' err)" 1 \
	"node-like table: check prints one container-mode note"

run "$VBOXC" check --target=linux --mode=container kernel.rules
status 0 "check: unsupported rows alone do not fail check (SPEC 5)"
has err "note: 'vbox-exec --mode=container' would refuse this: row 0 'deny:/proc/version' is unsupported on linux in container mode" \
	"check: an unsupported row is a note naming vbox-exec"
nomodens err "check: the note does not advise --mode=ns"

run "$VBOXC" check --target=linux --mode=container plain.rules
status 0 "check exits 0 when nothing is denied"
is "$(grep -c '' err)" 0 "check: nothing to say of a plain table"
run "$VBOXC" check --target=linux narrow.rules
status 0 "check without --mode: namespace mode, nothing to say"
hasnt err "path supervisor" "check without --mode: no container note"

if command -v jq >/dev/null 2>&1; then
	run "$VBOXC" check --target=linux --mode=container --format=json \
		narrow.rules
	status 0 "check --format=json exits 0 on supervised rows"
	is "$(jq -c '[(.errors | length), ([.notes[]? | select(.kind == "supervised")] | length)]' out)" \
		"[0,1]" "check JSON: no errors, one supervised note"
	is "$(jq -r '.notes[] | select(.kind == "supervised") | [.target, (.source | tostring)] | join(",")' out)" \
		"linux,null" "check JSON: ... for linux, at no row"
	run "$VBOXC" check --target=linux --mode=container --format=json \
		kernel.rules
	is "$(jq '[.notes[]? | select(.kind == "unsupported")] | length' out)" \
		1 "check JSON: the unsupported rows are notes"
	run "$VBOXC" check --target=linux --mode=container --accept-narrower \
		--format=json narrow.rules
	status 0 "check --accept-narrower --format=json exits 0"
	is "$(jq -c '[(.errors | length), ([.notes[]? | select(.kind == "narrower")] | length), ([.notes[]? | select(.kind == "supervised")] | length)]' out)" \
		"[0,4,0]" "check JSON --accept-narrower: no errors, 4 narrower notes"
	is "$(jq -r '[.notes[] | select(.kind == "narrower")][0].source' out)" \
		narrow.rules:5:1 "check JSON --accept-narrower: a note's source is the row"
else
	ok "# SKIP check JSON (no jq)"
fi

# No container-mode message advises --mode=ns, whatever the table.
: >all.msgs
for f in all narrow plain node open closed openw kernel hide tmp; do
	for c in check preflight; do
		for a in "" --accept-narrower; do
			node_run "$c" --target=linux --mode=container \
				${a:+"$a"} "$f.rules"
			cat out err >>all.msgs
		done
	done
done
nomodens all.msgs "no container-mode message advises --mode=ns"

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
