#!/bin/sh
# proxy.sh - the egress proxy against the direct path, in one run: an
# origin on this host's own global address, allowed by an IP row; from
# inside the sandbox 1 GiB as absolute-form HTTP and through a CONNECT
# tunnel, against the same download straight on the host; new
# connections per second through CONNECT against direct; the VmHWM of
# vbox-proxy (the proxy's process) and of vbox-exec.  Every transfer is
# checked byte for byte by the client.
#
# With TEST_PROXY_POLL (tests/proxy/test_proxy_poll) also the relays against
# each other: the proxy core alone on the host's loopback (--host mode,
# no sandbox), 1 GiB through a CONNECT tunnel, once with the Linux build
# (epoll, splice) and once with darwin's choices built here (poll, the
# buffer relay), interleaved, with each proxy process's VmHWM.
# BENCH_RELAY_ONLY=1 runs that part alone.
#
# Environment: VBOXC, VBOX_EXEC, TEST_PROXY (tests/proxy/test_proxy),
# TEST_PROXY_POLL (optional), BENCH_RELAY_ONLY, BENCH_RUNS (default 5),
# BENCH_SIZE (default 1073741824), BENCH_CONNS (default 2000),
# BENCH_OUT (append the table there).
set -eu
export LC_ALL=C
: "${VBOXC:?}" "${VBOX_EXEC:?}" "${TEST_PROXY:?}"
runs=${BENCH_RUNS:-5}
size=${BENCH_SIZE:-1073741824}
conns=${BENCH_CONNS:-2000}

addr=$(ip -o -4 addr show scope global | awk '{print $4}' | cut -d/ -f1 |
	head -n 1)
if [ -z "$addr" ]; then
	echo "proxy bench: no global IPv4 address on this host; skipped"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/vbox-pbench.XXXXXX")
# The origin's ports lie below the ephemeral range: the connection-rate
# runs leave thousands of client sockets in TIME-WAIT on ephemeral ports
# of this address, and an origin port among them cannot be bound.
low=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
[ "${low:-0}" -gt 12000 ] 2>/dev/null || low=32768
origin=
for try in 1 2 3 4 5; do
	port=$((10000 + ($$ * 7 + try * 131) % (low - 12000)))
	"$TEST_PROXY" --origin "$addr" "$port" >"$work/origin.out" &
	origin=$!
	# "ready" once both ports listen
	i=0
	while [ "$i" -lt 100 ] && kill -0 "$origin" 2>/dev/null &&
		! grep -q '^ready$' "$work/origin.out"; do
		sleep 0.05
		i=$((i + 1))
	done
	grep -q '^ready$' "$work/origin.out" && break
	kill "$origin" 2>/dev/null || :
	origin=
done
trap '[ -n "$origin" ] && kill "$origin" 2>/dev/null; rm -rf "$work"' EXIT
if [ -z "$origin" ]; then
	echo "proxy bench: cannot start an origin on $addr" >&2
	exit 1
fi
echo=$((port + 1))
cat >"$work/rules" <<EOT
@default net deny
rw: $work/**
[net]
allow: $addr:$port
allow: $addr:$echo
EOT
"$VBOXC" compile --target=linux --emit=plan -o "$work/plan" "$work/rules"

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
mbps() { awk '{printf "%.1f\n", $1 / $2 / 1048576}' "$1" | median; }
cps() { awk '{printf "%.1f\n", $1 / $2}' "$1" | median; }

# relay_fetch BINARY OUT - one proxy core in --host mode from BINARY on
# 127.0.0.1, one 1 GiB CONNECT download through it into OUT, the
# proxy's VmHWM (KiB) into OUT.hwm
relay_fetch() {
	rm -f "$work/host.out"
	"$1" --host "$work/plan" "$work/host.log" long >"$work/host.out" &
	hpid=$!
	i=0
	until [ -s "$work/host.out" ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || { kill "$hpid"; return 1; }
		sleep 0.05
	done
	read -r hport _ htoken _ <"$work/host.out"
	HTTP_PROXY="http://vbox:$htoken@127.0.0.1:$hport" \
		"$TEST_PROXY" --fetch connect "$addr" "$port" "$size" >>"$2"
	awk '/^VmHWM/ {print $2}' "/proc/$hpid/status" >>"$2.hwm"
	kill "$hpid"
	wait "$hpid" || :
}

if [ -n "${TEST_PROXY_POLL:-}" ]; then
	for i in $(seq "$runs"); do
		relay_fetch "$TEST_PROXY" "$work/relay_splice"
		relay_fetch "$TEST_PROXY_POLL" "$work/relay_buffers"
	done
	s=$(mbps "$work/relay_splice")
	b=$(mbps "$work/relay_buffers")
	{
		echo "proxy relays, core alone on loopback, origin $addr, $runs interleaved runs, medians, load $(cut -d" " -f1-3 /proc/loadavg) ($(date -u +%Y-%m-%d))"
		printf '  %-36s %10s MiB/s  VmHWM %s KiB\n' "1 GiB CONNECT, epoll + splice" "$s" "$(sort -n "$work/relay_splice.hwm" | tail -n 1)"
		printf '  %-36s %10s MiB/s  VmHWM %s KiB  (%.2fx splice)\n' "1 GiB CONNECT, poll + buffers" "$b" "$(sort -n "$work/relay_buffers.hwm" | tail -n 1)" "$(echo "$b $s" | awk '{print $1/$2}')"
		echo "  every transfer byte-exact (checked by the client)"
	} | tee -a "${BENCH_OUT:-/dev/null}"
fi
[ "${BENCH_RELAY_ONLY:-0}" = 1 ] && exit 0

# One round: the direct download, then one sandbox doing the proxied
# downloads and connections, then the direct connections; rounds are
# interleaved so that a change of load on the machine hits both paths.
cat >"$work/inside.sh" <<EOT
set -e
"$TEST_PROXY" --fetch http $addr $port $size >>"$work/http"
"$TEST_PROXY" --fetch connect $addr $port $size >>"$work/connect"
"$TEST_PROXY" --rate connect $addr $echo $conns >>"$work/rate_connect"
touch "$work/done"
sleep 1
EOT
hwm=0
phwm=0
for i in $(seq "$runs"); do
	"$TEST_PROXY" --fetch direct "$addr" "$port" "$size" >>"$work/direct"
	rm -f "$work/done"
	"$VBOX_EXEC" "$work/plan" -- sh "$work/inside.sh" &
	vx=$!
	while kill -0 "$vx" 2>/dev/null; do
		if [ -e "$work/done" ]; then
			h=$(awk '/^VmHWM/ {print $2}' "/proc/$vx/status")
			[ "${h:-0}" -gt "$hwm" ] && hwm=$h
			# the proxy runs in vbox-exec's child vbox-proxy
			px=$(pgrep -P "$vx" -x vbox-proxy | head -n 1)
			h=$(awk '/^VmHWM/ {print $2}' "/proc/${px:-0}/status" 2>/dev/null)
			[ "${h:-0}" -gt "$phwm" ] && phwm=$h
			break
		fi
		sleep 0.1
	done
	wait "$vx"
	"$TEST_PROXY" --rate direct "$addr" "$echo" "$conns" >>"$work/rate_direct"
done

d=$(mbps "$work/direct")
h=$(mbps "$work/http")
c=$(mbps "$work/connect")
rd=$(cps "$work/rate_direct")
rc=$(cps "$work/rate_connect")
{
	echo "egress proxy, origin $addr, $runs interleaved runs, medians, load $(cut -d" " -f1-3 /proc/loadavg) ($(date -u +%Y-%m-%d))"
	printf '  %-36s %10s MiB/s\n' "1 GiB direct on the host" "$d"
	printf '  %-36s %10s MiB/s  (%.2fx direct)\n' "1 GiB absolute-form HTTP, sandbox" "$h" "$(echo "$h $d" | awk '{print $1/$2}')"
	printf '  %-36s %10s MiB/s  (%.2fx direct)\n' "1 GiB CONNECT tunnel, sandbox" "$c" "$(echo "$c $d" | awk '{print $1/$2}')"
	printf '  %-36s %10s conn/s\n' "new connections, direct" "$rd"
	printf '  %-36s %10s conn/s (%.2fx direct)\n' "new connections, CONNECT, sandbox" "$rc" "$(echo "$rc $rd" | awk '{print $1/$2}')"
	printf '  %-36s %10s KiB (the largest of the runs)\n' "vbox-proxy VmHWM" "$phwm"
	printf '  %-36s %10s KiB (the largest of the runs)\n' "vbox-exec VmHWM" "$hwm"
	echo "  every transfer byte-exact (checked by the client)"
} | tee -a "${BENCH_OUT:-/dev/null}"
