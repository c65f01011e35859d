#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/proxy/proxy_dns_poll.sh - tests/proxy/proxy_dns.sh (names, rebinding, the
# forbidden classes, in private namespaces) against the proxy built as
# on darwin: tests/proxy/test_proxy_poll (the poll loop, with c-ares's sockets
# on it, the buffer relay, runtime/proxy/compat.h).  proxy_dns.sh runs
# $top_builddir/tests/proxy/test_proxy, so it gets a build directory of one
# link, named so, to test_proxy_poll.

builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
src=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ ! -x "$builddir/tests/proxy/test_proxy_poll" ]; then
	echo "1..0 # SKIP no test_proxy_poll binary in $builddir/tests"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vbox-dnspoll.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests/proxy"
ln -s "$builddir/tests/proxy/test_proxy_poll" "$tmp/tests/proxy/test_proxy"
rc=0
top_builddir=$tmp sh "$src/tests/proxy/proxy_dns.sh" || rc=$?
exit $rc
