#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/packaging/readme_install.sh - the README's install and libvbox steps, run
# as written.  The blocks are taken from README.md (each follows a
# "<!-- readme-test:NAME -->" line) and run line by line with sh, in a
# directory whose _build is this build.  Two things stand in for the
# real machine, both from the environment, none by editing a step:
# DESTDIR (make install writes under a temporary root, not /usr/local),
# and for that root's library directory an ldconfig wrapper (it runs
# "ldconfig -n DIR", which makes the same links without touching the
# system's cache) and LD_LIBRARY_PATH, pkg-config's sysroot and path;
# in a sanitizer build, cc gets the build's sanitizer flags.
. "${srcdir:-.}/tests/lib/lib.sh"

: "${MAKE:=make}"
: "${top_builddir:?top_builddir must name the build directory}"
for tool in pkg-config ldconfig; do
	command -v $tool >/dev/null 2>&1 || skip_all "$tool not installed"
done
command -v cc >/dev/null 2>&1 || skip_all "no cc (the README's compiler)"
readme=$top_srcdir/README.md

# block NAME - the fenced block after "<!-- readme-test:NAME -->".
block() {
	awk -v tag="<!-- readme-test:$1 -->" '
		$0 == tag { found = 1; next }
		found == 1 && /^```/ { found = 2; next }
		found == 2 && /^```/ { exit }
		found == 2 { print }
	' "$readme"
}

# run_steps FILE - each line of FILE as one step (sh -e -c), in order;
# stops at the first that fails.
run_steps() {
	while IFS= read -r _line; do
		[ -n "$_line" ] || continue
		run sh -e -c "$_line"
		if [ "$rc" -ne 0 ]; then
			not_ok "README step '$_line' succeeds (exit $rc)"
			sed 's/^/#   /' "$workdir/err" | tail -n 20
			return 1
		fi
		ok "README step '$_line' succeeds"
	done <"$1"
}

for b in install prog.c libvbox rules.txt; do
	block "$b" >"$workdir/$b.block"
	check "README.md has the '$b' block" test -s "$workdir/$b.block"
done
check "the install block is 'cd _build && make install' and 'ldconfig'" \
	sh -c 'grep -qx "cd _build && make install" "$1" &&
	       grep -qx "ldconfig" "$1"' sh "$workdir/install.block"

dest=$workdir/root
top=$workdir/top
mkdir -p "$top" "$workdir/bin"
ln -s "$(cd "$top_builddir" && pwd)" "$top/_build"
# The libdir of the install, as configure set it.
libdir=$(sed -n 's/^libdir = //p' "$top_builddir/Makefile")
prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
exec_prefix=$(sed -n 's/^exec_prefix = //p' "$top_builddir/Makefile")
libdir=$(printf '%s\n' "$libdir" |
	sed "s|\${exec_prefix}|$exec_prefix|; s|\${prefix}|$prefix|")
case $libdir in
/*) ;;
*) skip_all "cannot read libdir from $top_builddir/Makefile ($libdir)" ;;
esac
cat >"$workdir/bin/ldconfig" <<EOF
#!/bin/sh
# the README's "ldconfig", for a DESTDIR install: the links, no cache
[ \$# -eq 0 ] || { echo "ldconfig: unexpected arguments: \$*" >&2; exit 2; }
echo ran >"$workdir/ldconfig.ran"
exec "$(command -v ldconfig)" -n "$dest$libdir"
EOF
chmod +x "$workdir/bin/ldconfig"
# A sanitizer build's libvbox needs its runtime in the program too: then
# "cc" is the README's cc with the build's sanitizer flags.
if [ -n "${VBOX_TEST_CFLAGS:-}" ]; then
	cat >"$workdir/bin/cc" <<EOF
#!/bin/sh
exec "$(command -v cc)" $VBOX_TEST_CFLAGS "\$@"
EOF
	chmod +x "$workdir/bin/cc"
fi

cd "$top"
PATH=$workdir/bin:$PATH
DESTDIR=$dest
export PATH DESTDIR
run_steps "$workdir/install.block" || done_testing
check "the ldconfig step ran" test -f "$workdir/ldconfig.ran"
check "libvbox.so.0 is where ldconfig looks" test -e "$dest$libdir/libvbox.so.0"

# The libvbox example, in a directory of its own with the README's
# rules.txt.
mkdir "$workdir/ex"
cd "$workdir/ex"
cp "$workdir/rules.txt.block" rules.txt
cp "$workdir/prog.c.block" prog.c
PKG_CONFIG_SYSROOT_DIR=$dest
PKG_CONFIG_LIBDIR=$dest$libdir/pkgconfig
PKG_CONFIG_PATH=
LD_LIBRARY_PATH=$dest$libdir
export PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR PKG_CONFIG_PATH LD_LIBRARY_PATH
run_steps "$workdir/libvbox.block" || done_testing
want=$(sed -n 's/.*and prints `\(allow[^`]*\)`.*/\1/p' "$readme")
check "the README says what the example prints" test -n "$want"
is "$(cat "$workdir/out")" "$want" "the example prints what the README says"

# make uninstall, from the same place, leaves nothing of vbox.
unset LD_LIBRARY_PATH
cd "$top/_build"
run $MAKE uninstall
is "$rc" 0 "make uninstall succeeds"
is "$(find "$dest" -type f | sed "s|^$dest||" | tr '\n' ' ')" "" \
	"make uninstall leaves no file"
left=$(find "$dest" \( -name vbox -o -name rules \) -type d | sed "s|^$dest||")
is "$left" "" "make uninstall leaves no empty vbox directory"

done_testing
