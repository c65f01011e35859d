#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/packaging/elf_hardening.sh - every program the build ships (vboxc,
# vbox-exec, vbox-init, vbox-proxy) and libvbox.so carries the hardening
# configure gives it (doc/packaging.md, "Hardened builds"), read from
# its ELF with readelf (and objdump), one TAP line per program and
# property:
#   - position-independent: ELF type DYN, and for a program FLAGS_1 PIE
#     (static PIE for the static ones);
#   - full RELRO: a PT_GNU_RELRO segment and immediate binding (BIND_NOW
#     or FLAGS_1 NOW);
#   - PT_GNU_STACK present and not executable;
#   - the stack protector: __stack_chk_fail imported (dynamic) or linked
#     in (static), and every compilation unit of our own (DW_AT_comp_dir
#     is this build tree) compiled with -fstack-protector-strong,
#     -fstack-clash-protection and, on x86, -fcf-protection, as the
#     compiler recorded in DW_AT_producer (skipped without -g);
#   - fortified calls (__*_chk) in the glibc programs, unless the
#     sanitizers are on; musl has no _FORTIFY_SOURCE;
#   - on x86, CET: a .note.gnu.property with IBT and SHSTK, or, where
#     the link dropped it (Debian 12's C library start files carry
#     none, and the linker keeps only what every input has), endbr64
#     as the first instruction of main (vbox_version in libvbox).

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

top_builddir=${top_builddir:-.}
command -v readelf >/dev/null 2>&1 || skip_all "no readelf (binutils)"
command -v objdump >/dev/null 2>&1 || skip_all "no objdump (binutils)"
[ "$(uname -s)" = Linux ] || skip_all "not an ELF system"

lib=$top_builddir/lib/.libs/libvbox.so
[ -e "$lib" ] || lib=$top_builddir/lib/libvbox.so
case $(uname -m) in
x86_64 | i?86) x86=1 ;;
*) x86=0 ;;
esac
case " ${VBOX_TEST_CFLAGS:-} " in
*-fsanitize=*) sanitized=1 ;;
*) sanitized=0 ;;
esac
# The build tree as the compiler saw it (gcc records $PWD when it names
# the working directory, else the physical path): our compilation units.
builddir=$(cd "$top_builddir" && pwd)
builddir_p=$(cd "$top_builddir" && pwd -P)

# prop PROGRAM DESC CMD... - one property of PROGRAM: ok when CMD succeeds
prop() {
	_p=$1
	_d=$2
	shift 2
	if "$@"; then
		ok "$_p: $_d"
	else
		not_ok "$_p: $_d"
	fi
}

has_line() {
	grep -Eq -- "$2" "$1"
}

check_one() {
	name=$1
	f=$2
	if [ ! -f "$f" ]; then
		not_ok "$name: built ($f)"
		return
	fi
	readelf -W -h -l -d "$f" >"$workdir/hdr" 2>&1
	readelf -W -s --dyn-syms "$f" >"$workdir/syms" 2>&1
	readelf -W -n "$f" >"$workdir/notes" 2>&1
	static=0
	has_line "$workdir/hdr" '^ *INTERP ' ||
		has_line "$workdir/hdr" '\(NEEDED\)' || static=1
	libc=other
	if has_line "$workdir/hdr" '\(NEEDED\).*\[libc\.so\.6\]' ||
		has_line "$workdir/syms" ' (__libc_start_call_main|_dl_relocate_static_pie)$'; then
		libc=glibc
	elif has_line "$workdir/syms" ' __init_libc$' ||
		has_line "$workdir/hdr" '\(NEEDED\).*\[libc\.musl'; then
		libc=musl
	fi
	kind=program
	[ "$name" = libvbox.so ] && kind=library
	[ $static -eq 1 ] && kind="static program"
	echo "# $name: $kind, $libc ($f)"

	if [ "$kind" = library ]; then
		prop "$name" "shared object (ELF type DYN)" \
			has_line "$workdir/hdr" '^ *Type: +DYN '
	else
		prop "$name" "position-independent executable (DYN, FLAGS_1 PIE)" \
			sh -c 'grep -Eq "^ *Type: +DYN " "$1" &&
				grep -Eq "\(FLAGS_1\).*PIE" "$1"' sh "$workdir/hdr"
	fi
	prop "$name" "PT_GNU_RELRO segment" \
		has_line "$workdir/hdr" '^ *GNU_RELRO '
	prop "$name" "immediate binding (BIND_NOW / FLAGS_1 NOW)" \
		has_line "$workdir/hdr" '\(BIND_NOW\)|\(FLAGS\).*BIND_NOW|\(FLAGS_1\).*NOW'
	prop "$name" "PT_GNU_STACK present and not executable" \
		has_line "$workdir/hdr" '^ *GNU_STACK( +0x[0-9a-f]+){5} RW '
	if [ $static -eq 1 ]; then
		prop "$name" "stack protector (__stack_chk_fail linked in)" \
			has_line "$workdir/syms" ' FUNC +[A-Z]+ +[A-Z]+ +[0-9]+ __stack_chk_fail$'
	else
		prop "$name" "stack protector (__stack_chk_fail imported)" \
			has_line "$workdir/syms" ' UND __stack_chk_fail(@|$)'
	fi
	check_units
	if [ "$libc" = musl ]; then
		ok "$name: fortified calls # SKIP musl has no _FORTIFY_SOURCE"
	elif [ $sanitized -eq 1 ]; then
		ok "$name: fortified calls # SKIP not with the sanitizers (configure)"
	elif [ "$libc" = glibc ]; then
		n=$(grep -E ' __[a-z0-9_]+_chk(@|$)' "$workdir/syms" |
			grep -v __stack_chk | wc -l | tr -d ' ')
		prop "$name" "fortified calls (_FORTIFY_SOURCE: $n __*_chk symbols)" \
			test "$n" -gt 0
	else
		not_ok "$name: fortified calls: neither glibc nor musl recognized"
	fi
	if [ $x86 -eq 0 ]; then
		ok "$name: CET # SKIP not x86"
	elif has_line "$workdir/notes" 'x86 feature: .*IBT.*SHSTK'; then
		ok "$name: CET note (.note.gnu.property: IBT, SHSTK)"
	else
		sym=main
		[ "$kind" = library ] && sym=vbox_version
		first=$(objdump -d --no-show-raw-insn --disassemble="$sym" "$f" 2>/dev/null |
			awk -v s="<$sym>:" '$2 == s { getline; print $2; exit }')
		prop "$name" "CET: no IBT/SHSTK note (an input of the link has none); $sym starts with endbr64 (-fcf-protection)" \
			test "$first" = endbr64
	fi
}

# check_units - the compile flags of our own compilation units in $f
check_units() {
	readelf --debug-dump=info --dwarf-depth=1 "$f" 2>/dev/null |
		awk -v dir="$builddir" -v dir_p="$builddir_p" '
		function val(s) {
			sub(/^[^:]*: /, "", s)
			if (s ~ /^\(indirect/)
				sub(/^[^)]*\): /, "", s)
			return s
		}
		function flush() {
			if (cu && (comp == dir || comp == dir_p))
				print (prod == "" ? "-" : prod) "\t" nm
			cu = 0; prod = ""; nm = ""; comp = ""
		}
		/Compilation Unit @/ { flush(); cu = 1; next }
		/DW_AT_producer/ && prod == "" { prod = val($0) }
		/DW_AT_name/ && nm == "" { nm = val($0) }
		/DW_AT_comp_dir/ && comp == "" { comp = val($0) }
		END { flush() }' >"$workdir/units"
	units=$(wc -l <"$workdir/units" | tr -d ' ')
	if [ "$units" -eq 0 ]; then
		ok "$name: compile flags of its units # SKIP no debug information (built without -g)"
		return
	fi
	for flag in -fstack-protector-strong -fstack-clash-protection \
		-fcf-protection; do
		if [ "$flag" = -fcf-protection ] && [ $x86 -eq 0 ]; then
			continue
		fi
		case $flag in
		-fcf-protection) neg=" -fcf-protection=none" ;;
		*) neg=" -fno-${flag#-f}" ;;
		esac
		awk -F '\t' -v f=" $flag" -v n="$neg" \
			'index($1, f) == 0 || index($1, n) > 0' \
			"$workdir/units" >"$workdir/miss"
		if [ -s "$workdir/miss" ]; then
			not_ok "$name: all $units units of this build compiled with $flag"
			sed 's/^.*	/#   without it: /' "$workdir/miss" | head -n 5
		else
			ok "$name: all $units units of this build compiled with $flag"
		fi
	done
}

check_one vboxc "$top_builddir/vboxc"
check_one vbox-exec "$top_builddir/vbox-exec"
check_one vbox-init "$top_builddir/vbox-init"
check_one vbox-proxy "$top_builddir/vbox-proxy"
check_one libvbox.so "$lib"

done_testing
