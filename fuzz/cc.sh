#!/bin/sh
# fuzz/cc.sh SRCDIR 'COMPILER AND FLAGS' OUT ARG... - build one libFuzzer
# target in a single compiler invocation, so the instrumentation covers
# every object.  Each ARG ending in .c is a source: taken from the build
# tree when it is there (generated files), else from SRCDIR; headers are
# skipped (they are listed only as dependencies); any other ARG (a -l
# library, a flag) is passed on after the sources.
set -eu
srcdir=$1
cc=$2
out=$3
shift 3
srcs=
libs=
for f in "$@"; do
	case $f in
	*.c)
		if [ -f "$f" ]; then
			srcs="$srcs $f"
		else
			srcs="$srcs $srcdir/$f"
		fi
		;;
	*.h) ;;
	*) libs="$libs $f" ;;
	esac
done
# $cc, $srcs and $libs are word lists on purpose.
# shellcheck disable=SC2086
exec $cc -o "$out" $srcs $libs
