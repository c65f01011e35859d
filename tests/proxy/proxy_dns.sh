#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/proxy/proxy_dns.sh - the egress proxy's names, in a private network
# namespace this script makes: its own /etc/resolv.conf and /etc/hosts
# (a private mount namespace), a DNS responder on its loopback, and a
# "public" origin (198.51.100.10, TEST-NET-2) in a second namespace
# behind a veth pair; 198.51.100.1 is the proxy side's own address.
# Nothing outside the namespaces is ever addressed.  The TAP lines come
# from tests/proxy/test_proxy --dns.

. "${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/lib.sh"

: "${VBOXC:?VBOXC must name the vboxc binary}"
T=${top_builddir:-.}/tests/proxy/test_proxy
[ -x "$T" ] || skip_all "no test_proxy binary at $T"
for tool in unshare nsenter ip mount; do
	command -v "$tool" >/dev/null 2>&1 || skip_all "$tool not found"
done
unshare -rnm true 2>/dev/null ||
	skip_all "cannot make user+network+mount namespaces (unshare -rnm)"

printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:2\n' \
	>"$workdir/resolv.conf"
printf '127.0.0.1 localhost\n::1 localhost\n' >"$workdir/hosts"

unshare -rnm sh -eu -c '
	w=$1 t=$2
	mount --bind "$w/resolv.conf" /etc/resolv.conf
	mount --bind "$w/hosts" /etc/hosts
	ip link set lo up
	unshare -n sleep 600 &
	peer=$!
	i=0
	until [ "$(readlink /proc/$peer/ns/net)" != "$(readlink /proc/self/ns/net)" ]; do
		i=$((i + 1)); [ $i -lt 100 ] || exit 3; sleep 0.05
	done
	ip link add v0 type veth peer name v1 netns "$peer"
	ip addr add 198.51.100.1/24 dev v0
	ip link set v0 up
	nsenter -t "$peer" -n sh -c "ip link set lo up &&
		ip addr add 198.51.100.10/24 dev v1 && ip link set v1 up"
	nsenter -t "$peer" -n "$t" --origin 198.51.100.10 8080 &
	origin=$!
	i=0
	until nsenter -t "$peer" -n ip -o addr show dev v1 | grep -q 198.51.100.10 &&
	      [ -n "$(nsenter -t "$peer" -n ss -Htln "sport = :8081" 2>/dev/null)" ]; do
		i=$((i + 1)); [ $i -lt 100 ] || exit 3; sleep 0.05
	done
	rc=0
	"$t" --dns || rc=$?
	kill "$origin" "$peer" 2>/dev/null || true
	exit $rc
' sh "$workdir" "$T"
