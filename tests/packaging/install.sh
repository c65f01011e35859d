#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/packaging/install.sh - "make install DESTDIR=..." places everything (the
# programs, libvbox with its header and vbox.pc, the manual pages, the
# rule library, the bash completion); a C program built with
# "pkg-config --cflags --libs vbox" against that tree answers queries as
# "vboxc explain" does; libvbox exports only vbox_*; "make uninstall"
# removes every file again.
. "${srcdir:-.}/tests/lib/lib.sh"

for tool in pkg-config jq objdump; do
	command -v $tool >/dev/null 2>&1 || skip_all "$tool not installed"
done
: "${MAKE:=make}"
: "${CC:=cc}"
dest=$workdir/dest

run $MAKE -C "$top_builddir" install DESTDIR="$dest"
is "$rc" 0 "make install DESTDIR=... succeeds"
[ "$rc" -eq 0 ] || { tail -n 30 "$workdir/out" "$workdir/err" | sed 's/^/# /'; done_testing; }

pc=$(find "$dest" -name vbox.pc)
check "vbox.pc is installed under a pkgconfig directory" \
	sh -c 'case "$1" in */pkgconfig/vbox.pc) true ;; *) false ;; esac' sh "$pc"
PKG_CONFIG_PATH=$(dirname "$pc")
PKG_CONFIG_SYSROOT_DIR=$dest
PKG_CONFIG_LIBDIR=$PKG_CONFIG_PATH
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
# With a sysroot, pkg-config prefixes the directories with it.
prefix=$(pkg-config --variable=prefix vbox)
libdir=$(pkg-config --variable=libdir vbox)
includedir=$(pkg-config --variable=includedir vbox)
rulesdir=$(pkg-config --variable=rulesdir vbox)
check "pkg-config's directories lie in the DESTDIR tree" \
	sh -c 'case "$1" in "$2"/*) true ;; *) false ;; esac' sh "$libdir" "$dest"
is "$(pkg-config --modversion vbox)" "$("$VBOXC" --version | sed 's/.* //')" \
	"vbox.pc has the version of vboxc"

# Every part of the package, where the GNU directories say.
for f in "$prefix/bin/vboxc" "$prefix/bin/vbox-exec"; do
	check "installed: ${f#$prefix/} (executable)" test -x "$f"
done
check "installed: <vbox/vbox.h>" test -f "$includedir/vbox/vbox.h"
check "installed: libvbox.so.0" test -f "$libdir/libvbox.so.0"
check "installed: libvbox.so for -lvbox" test -e "$libdir/libvbox.so"
for m in man1/vboxc.1 man1/vbox-exec.1 man5/vbox.rules.5 man3/vbox.3; do
	check "installed: $m" test -f "$prefix/share/man/$m"
done
for r in secrets dotfiles git-protect registries; do
	check "installed: the rule library's $r.rules" test -f "$rulesdir/$r.rules"
done
comp=$(find "$dest" -path '*/bash-completion/completions/vboxc')
check "installed: the bash completion of vboxc" test -f "$comp"
check "installed: the bash completion of vbox-exec" \
	test -f "$(dirname "$comp")/vbox-exec"

# The shared library: SONAME, and nothing exported but vbox_*.
so=$libdir/libvbox.so.0
is "$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')" "libvbox.so.0" \
	"SONAME is libvbox.so.0"
objdump -T "$so" | awk '$2 == "g" && $4 != "*UND*" && $4 != "*ABS*" { print $NF }' |
	sort >"$workdir/exports"
is "$(tr '\n' ' ' <"$workdir/exports")" \
	"vbox_explain vbox_policy_free vbox_policy_load vbox_version " \
	"libvbox exports exactly the four vbox_* functions"
is "$(objdump -T "$so" | awk '$4 == ".text" && $NF !~ /^vbox_/' | wc -l)" 0 \
	"no other function is in the dynamic symbol table"
check "the header compiles on its own, in C and with -pedantic" \
	sh -c 'printf "#include <vbox/vbox.h>\nint main(void) { return vbox_version() == 0; }\n" |
		$1 -std=c99 -pedantic -Wall -Werror -fsyntax-only -I"$2" -x c -' \
	sh "$CC" "$includedir"

# A program built only with pkg-config against the installed tree.
flags=$(pkg-config --cflags --libs vbox)
check "pkg-config --cflags --libs points into the installed tree" \
	sh -c 'case "$1" in *"-I$2"*"-L$3"*|*"-L$3"*"-I$2"*) true ;; *) false ;; esac' \
	sh "$flags" "$includedir" "$libdir"
# shellcheck disable=SC2086
run $CC ${VBOX_TEST_CFLAGS:-} -Wall -Wextra -Werror -o "$workdir/client" \
	"$top_srcdir/tests/packaging/libvbox_client.c" $flags
is "$rc" 0 "the client builds with pkg-config's flags"
[ "$rc" -eq 0 ] || sed 's/^/# /' "$workdir/err"

LD_LIBRARY_PATH=$libdir
export LD_LIBRARY_PATH
ivboxc=$prefix/bin/vboxc
check "the installed vboxc runs and reports the library's version" \
	sh -c '"$1" --version | grep -qx "vboxc (vbox) $2"' sh "$ivboxc" \
	"$(pkg-config --modversion vbox)"

cd "$workdir"
cat >rules.txt <<'EOF'
@default write deny
!deny:/srv/work/keys
rw:/srv/work/**
ro:/srv/work/vendor
deny:~/.ssh
[net]
allow:api.example.com:443
deny:*.evil.example
EOF
set -- "read /srv/work/keys/id" "write /srv/work/out.txt" \
	"write /srv/work/vendor/x" "read /etc/passwd" "write /etc/passwd" \
	"read /home/u/.ssh/id_rsa" "write /srv/work/keys/../a" \
	"net api.example.com:443" "net api.example.com:80" \
	"net www.evil.example" "net [::1]:22" "net 127.1:8080" \
	"  write   /srv/work/b  "
printf '%s\n' "$@" >queries
"$ivboxc" explain --format=json -D HOME=/home/u --queries=queries rules.txt \
	2>/dev/null | jq -r '[.query, (.allow | tostring), (.row | tostring),
		(.level | tostring), (.effect // "null"), (.source // "null")] |
		join("\t")' >want
run "$workdir/client" -D HOME=/home/u rules.txt -- "$@"
is "$rc" 0 "the client loads the rules and answers every query"
# The query column is as each side spells it; the answers must agree.
sed '$d' "$workdir/out" | cut -f2- >got
cut -f2- want >want.answers
if diff -u want.answers got >diff; then
	ok "libvbox answers $# queries exactly as vboxc explain"
else
	not_ok "libvbox answers $# queries exactly as vboxc explain"
	sed 's/^/# /' diff
fi
is "$(tail -n 1 "$workdir/out")" "version $(pkg-config --modversion vbox)" \
	"vbox_version() is the package version"

run "$workdir/client" -t windows -D 'HOME=C:\Users\u' rules.txt -- "read /x"
is "$rc" 2 "a load that fails returns -1 (windows: rows are no drive paths)"
check "... and prints diagnostics as FILE:LINE:COL: error:" \
	grep -q "^rules.txt:2:[0-9]*: error: " "$workdir/err"
run "$workdir/client" -t plan9 rules.txt -- "read /x"
check "an unknown target fails the load" grep -q "unknown target 'plan9'" \
	"$workdir/err"
run "$workdir/client" missing.rules -- "read /x"
is "$rc" 2 "a missing rule file fails the load"

printf 'rw:/srv/work/**\n' >clean.rules
run "$workdir/client" clean.rules -- "net bad_host!" \
	"read relative/path" "frob /x" "read" "" "net *.example.com" \
	"write /srv/work/ok"
is "$rc" 1 "invalid queries make vbox_explain() return -1"
is "$(grep -c '	invalid$' "$workdir/out")" 6 "each invalid query is -1"
check "a valid query after invalid ones is still answered" \
	grep -q '^write /srv/work/ok	true	0	0	rw	clean.rules:1:1$' \
	"$workdir/out"
is "$(cat "$workdir/err")" "" "vbox_explain() prints nothing, not even for invalid queries"

# The installed vboxc finds the installed rule library through -I.
printf 'rw:/home/u/work/**\n@include <secrets>\n' >lib.rules
run "$ivboxc" explain -I "$rulesdir" -D HOME=/home/u \
	--read=/home/u/.ssh/id_rsa lib.rules
check "installed vboxc: '@include <secrets>' with -I the installed rules" \
	grep -q "deny by row .* at $rulesdir/secrets.rules:" "$workdir/out"

# The installed manual pages render without a warning.
if command -v groff >/dev/null 2>&1; then
	for m in man1/vboxc.1 man1/vbox-exec.1 man5/vbox.rules.5 man3/vbox.3; do
		run groff -man -ww -z "$prefix/share/man/$m"
		is "$rc:$(cat "$workdir/err")" "0:" "installed $m renders without warnings"
	done
fi

unset LD_LIBRARY_PATH
run $MAKE -C "$top_builddir" uninstall DESTDIR="$dest"
is "$rc" 0 "make uninstall DESTDIR=... succeeds"
is "$(find "$dest" -type f -o -type l | sed "s|^$dest||" | tr '\n' ' ')" "" \
	"make uninstall leaves no file behind"
for d in "$rulesdir" "$(dirname "$rulesdir")" "$includedir/vbox" \
	"$prefix/libexec/vbox"; do
	check "make uninstall removes the empty ${d#$prefix/}" test ! -e "$d"
done

done_testing
