#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/macos/run.sh - run on a Mac: does Seatbelt hold what vboxc's
# darwin profiles promise?
#
# The test suite judges darwin profiles with an interpreter of its own
# (tests/unit/sbpl_eval.c) on machines without macOS.  This script checks, on
# a real Mac with sandbox-exec, the facts that interpreter relies on and
# the attacks doc/darwin.md describes (holes 1-6): for each table it
# compiles a profile with vboxc, runs the attack under "sandbox-exec -f",
# and prints one TAP line, "ok" or "not ok" (a table darwin must refuse:
# "ok" when vboxc refuses it).  A control action that must succeed
# runs under every profile first, so a profile that denies everything
# cannot pass by accident.
#
# Usage:  VBOXC=path/to/vboxc sh tests/macos/run.sh
#         (default: vboxc from PATH, or _build/vboxc next to the tree)
# Exit status: 0 when every line is ok or skipped, 1 otherwise, 77 when
# this is not a Mac.  Nothing outside a temporary directory is written;
# connections go to loopback only.
set -eu
export LC_ALL=C

if [ "$(uname -s)" != Darwin ] || ! command -v sandbox-exec >/dev/null; then
	echo "1..0 # SKIP not macOS, or no sandbox-exec"
	exit 77
fi

here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${VBOXC:-}" ]; then
	if command -v vboxc >/dev/null; then
		VBOXC=vboxc
	else
		VBOXC=$here/../../_build/vboxc
	fi
fi

# Seatbelt sees resolved paths: work under the real path of the temp dir.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vbox-macos.XXXXXX")
W=$(cd "$tmp" && pwd -P)
trap 'chmod -R u+w "$W" 2>/dev/null; rm -rf "$W"' EXIT INT TERM

n=0
failed=0

report() {	# report STATUS DESCRIPTION (STATUS 0 = ok)
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=1
	fi
}

skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# compile NAME RULES: write $W/NAME.sb from the rules text.
compile() {
	printf '%s\n' "$2" >"$W/$1.rules"
	"$VBOXC" compile --target=darwin -D "W=$W" -o "$W/$1.sb" \
		"$W/$1.rules"
}

# inside PROFILE COMMAND: run COMMAND with sh under the profile.
inside() {
	sandbox-exec -f "$1" /bin/sh -c "$2" >/dev/null 2>&1
}

# allowed / refused DESCRIPTION PROFILE COMMAND
allowed() {
	if inside "$2" "$3"; then report 0 "$1"; else report 1 "$1"; fi
}
refused() {
	if inside "$2" "$3"; then report 1 "$1"; else report 0 "$1"; fi
}

# ---- the model the interpreter uses ----

# A raw profile from the text on stdin, with $W substituted.
raw() {
	sed "s|@W@|$W|g" >"$W/$1.sb"
}

touch "$W/f"
raw specific <<'EOF'
(version 1)
(allow default)
(allow file-write-data (literal "@W@/f"))
(deny file-write* (literal "@W@/f"))
EOF
allowed "model: a rule on file-write-data beats a later file-write* rule" \
	"$W/specific.sb" "echo x >>'$W/f'"

raw unfiltered <<'EOF'
(version 1)
(allow default)
(allow file-write* (subpath "@W@"))
(deny file-write*)
EOF
allowed "model: an unfiltered rule is the operation's default, wherever written" \
	"$W/unfiltered.sb" "echo x >>'$W/f'"

mkdir "$W/src"
raw renamedst <<'EOF'
(version 1)
(allow default)
(deny file-write-create (literal "@W@/dst"))
EOF
refused "model: the new name of rename(2) is checked as file-write-create" \
	"$W/renamedst.sb" "mv '$W/src' '$W/dst'"
raw symlink <<'EOF'
(version 1)
(allow default)
(deny file-write-create (vnode-type SYMLINK))
EOF
refused "model: symlink(2) is file-write-create with vnode type SYMLINK" \
	"$W/symlink.sb" "ln -s '$W/f' '$W/lnk'"
allowed "model: ... and mkdir is not" "$W/symlink.sb" "mkdir '$W/d2'"
raw renamesrc <<'EOF'
(version 1)
(allow default)
(deny file-write-unlink (literal "@W@/src"))
EOF
refused "model: rename(2) of a directory is file-write-unlink of the source" \
	"$W/renamesrc.sb" "mv '$W/src' '$W/src2'"

# Loopback: needs a listener and 127.0.0.2 on lo0 (not there by default:
# "sudo ifconfig lo0 alias 127.0.0.2 up" adds it).
listener=
if command -v python3 >/dev/null; then
	python3 - "$W/port" <<'EOF' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 0))
s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(60)
try:
    while True:
        s.accept()[0].close()
except Exception:
    pass
EOF
	listener=$!
	i=0
	while [ ! -s "$W/port" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
fi
connect() {	# connect HOST PORT, in python3 (no nc option differences)
	echo "import socket; socket.create_connection(('$1', $2), 2).close()"
}
if [ -z "$listener" ] || [ ! -s "$W/port" ]; then
	skip "model: (remote ip \"localhost:P\") misses 127.0.0.2" \
		"python3 not found"
elif ! python3 -c "$(connect 127.0.0.2 "$(cat "$W/port")")" 2>/dev/null
then
	skip "model: (remote ip \"localhost:P\") misses 127.0.0.2" \
		"127.0.0.2 is not configured on lo0"
else
	port=$(cat "$W/port")
	raw lo <<EOF
(version 1)
(allow default)
(deny network-outbound (remote ip "localhost:$port"))
EOF
	refused "model: (remote ip \"localhost:P\") covers 127.0.0.1" \
		"$W/lo.sb" "python3 -c \"$(connect 127.0.0.1 "$port")\""
	allowed "model: ... but not 127.0.0.2 (why open posture refuses loopback deny rows)" \
		"$W/lo.sb" "python3 -c \"$(connect 127.0.0.2 "$port")\""
fi

# ---- hole 1: device allowances and rows ----

if compile tty 'deny:/dev/tty'; then
	if sh -c ': >/dev/tty' 2>/dev/null; then
		refused "hole 1: deny:/dev/tty refuses writing /dev/tty" \
			"$W/tty.sb" ": >/dev/tty"
	else
		skip "hole 1: deny:/dev/tty refuses writing /dev/tty" \
			"no controlling terminal"
	fi
	allowed "hole 1: deny:/dev/tty leaves /dev/null writable" \
		"$W/tty.sb" "echo x >/dev/null"
else
	report 1 "hole 1: deny:/dev/tty compiles"
fi
if compile devro '@default write rw
ro:/dev/**'; then
	allowed "hole 1: control: writes elsewhere work" "$W/devro.sb" \
		"echo x >'$W/devro.ok'"
	refused "hole 1: ro:/dev/** refuses writing /dev/null" \
		"$W/devro.sb" "echo x >/dev/null"
	refused "hole 1: ro:/dev/** refuses writing /dev/fd/1" \
		"$W/devro.sb" "echo x >/dev/fd/1"
else
	report 1 "hole 1: ro:/dev/** compiles"
fi

# ---- hole 2: loopback deny rows in open posture ----

if compile open '@default net open
deny:localhost:22' 2>"$W/open.err"; then
	report 1 "hole 2: open posture with deny:localhost:22 is refused"
else
	grep -q 'is unsupported on darwin' "$W/open.err" && st=0 || st=1
	report "$st" "hole 2: open posture with deny:localhost:22 is refused"
fi

# ---- hole 3: a read-only hole inside a writable root ----

mkdir -p "$W/srv/work"
echo original >"$W/srv/work/config"
# In the rules below "$W" is for vboxc to expand (-D W=...), not the shell.
# shellcheck disable=SC2016
if compile ro 'rw:$W/srv/**
!ro:$W/srv/work/config'; then
	allowed "hole 3: control: the writable root is writable" \
		"$W/ro.sb" "echo x >'$W/srv/work/other'"
	refused "hole 3: the read-only file is not writable" \
		"$W/ro.sb" "echo x >'$W/srv/work/config'"
	refused "hole 3: mv srv/work srv/w2 is refused" \
		"$W/ro.sb" "mv '$W/srv/work' '$W/srv/w2'"
	grep -q original "$W/srv/work/config" 2>/dev/null && st=0 || st=1
	report "$st" "hole 3: the read-only file is unchanged"
else
	report 1 "hole 3: the table compiles"
fi

# ---- hole 4: planting an absent denied path through its ancestor ----

# Each attack starts from the same state: srv/x prepared with a .env,
# srv/a present, srv/app and srv/a/b absent.
reset_plant() {
	rm -rf "$W/srv/app" "$W/srv/a/b" "$W/srv/x"
	mkdir -p "$W/srv/x" "$W/srv/a"
	echo planted >"$W/srv/x/.env"
}

# shellcheck disable=SC2016
if compile plant 'rw:$W/srv/**
!deny:$W/srv/app/.env
!deny:$W/srv/a/b/c'; then
	reset_plant
	allowed "hole 4: control: the writable root is writable" \
		"$W/plant.sb" "mkdir '$W/srv/y'"
	refused "hole 4: ln -s srv/x srv/app is refused" \
		"$W/plant.sb" "ln -s '$W/srv/x' '$W/srv/app'"
	reset_plant
	refused "hole 4: mv srv/x srv/app (prepared elsewhere) is refused" \
		"$W/plant.sb" "mv '$W/srv/x' '$W/srv/app'"
	reset_plant
	refused "hole 4: mkdir srv/app is refused (narrower)" \
		"$W/plant.sb" "mkdir '$W/srv/app'"
	reset_plant
	refused "hole 4: ln -s srv/x srv/a/b (deeper ancestor) is refused" \
		"$W/plant.sb" "ln -s '$W/srv/x' '$W/srv/a/b'"
	reset_plant
	refused "hole 4: mv srv/x srv/a/b (deeper ancestor) is refused" \
		"$W/plant.sb" "mv '$W/srv/x' '$W/srv/a/b'"
	test ! -e "$W/srv/app" && test ! -e "$W/srv/a/b" && st=0 || st=1
	report "$st" "hole 4: the ancestors are still absent after the last attack"
else
	report 1 "hole 4: the table compiles"
fi

# ---- hole 5: a glob's inner directories moved out and back, or linked ----

# The attack is real: under a profile denying only the glob, a directory
# below the prefix is moved out of the match, filled, and moved back.
mkdir -p "$W/g/srv/app" "$W/g/out"
raw globonly <<'EOF'
(version 1)
(allow default)
(deny file-write* (regex "^@W@/g/srv(/.*)?/\\.env$"))
EOF
allowed "model: a glob deny alone lets mv out, write, mv back through" \
	"$W/globonly.sb" "mv '$W/g/srv/app' '$W/g/out/d' &&
		echo x >'$W/g/out/d/.env' && mv '$W/g/out/d' '$W/g/srv/app'"
test -s "$W/g/srv/app/.env" && st=0 || st=1
report "$st" "model: ... so srv/app/.env has content the glob denies"
rm -rf "$W/g/srv/app" "$W/g/out/d"
allowed "model: ... and so does a symbolic link to elsewhere" \
	"$W/globonly.sb" "ln -s '$W/g/out' '$W/g/srv/app' &&
		echo x >'$W/g/srv/app/.env'"
rm -rf "$W/g/srv/app" "$W/g/out/.env"
mkdir -p "$W/g/srv/app"

# shellcheck disable=SC2016
if compile movable 'rw:$W/g/srv/**
rw:$W/g/out/**
!deny:$W/g/srv/**/.env' 2>"$W/movable.err"; then
	report 1 "hole 5: !deny:.../srv/**/.env in a writable root is refused"
else
	grep -q 'is unsupported on darwin' "$W/movable.err" && st=0 || st=1
	report "$st" "hole 5: !deny:.../srv/**/.env in a writable root is refused"
fi
# shellcheck disable=SC2016
if compile anyenv 'rw:$W/g/srv/**
rw:$W/g/out/**
!deny:**/.env'; then
	allowed "hole 5: control: !deny:**/.env leaves directories movable" \
		"$W/anyenv.sb" "mv '$W/g/srv/app' '$W/g/out/d'"
	refused "hole 5: !deny:**/.env: .env is denied where the directory went" \
		"$W/anyenv.sb" "echo x >'$W/g/out/d/.env'"
	refused "hole 5: !deny:**/.env: ... and through a link" \
		"$W/anyenv.sb" "ln -s '$W/g/out/d' '$W/g/srv/app' &&
			echo x >'$W/g/srv/app/.env'"
else
	report 1 "hole 5: !deny:**/.env compiles"
fi

# ---- hole 6: a higher rw row opening a directory in a protected region ----

mkdir -p "$W/c/srv/app" "$W/c/out"
raw carve <<'EOF'
(version 1)
(allow default)
(deny file-write* (subpath "@W@/c/srv"))
(allow file-write* (regex "^@W@/c/srv/[^/]+$"))
EOF
allowed "model: a directory a later rule opens moves out, fills, back" \
	"$W/carve.sb" "mv '$W/c/srv/app' '$W/c/out/d' &&
		echo x >'$W/c/out/d/x' && mv '$W/c/out/d' '$W/c/srv/app'"
test -s "$W/c/srv/app/x" && st=0 || st=1
report "$st" "model: ... so srv/app/x has content the subpath denies"

# shellcheck disable=SC2016
if compile carve2 'rw:$W/c/out/**
!rw:$W/c/srv/*
ro:$W/c/srv/**' 2>"$W/carve2.err"; then
	report 1 "hole 6: ro:.../srv/** below !rw:.../srv/* is refused"
else
	grep -q 'is unsupported on darwin' "$W/carve2.err" && st=0 || st=1
	report "$st" "hole 6: ro:.../srv/** below !rw:.../srv/* is refused"
fi

if [ -n "$listener" ]; then
	kill "$listener" 2>/dev/null || :
fi
echo "1..$n"
exit $failed
