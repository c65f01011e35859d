/* SPDX-License-Identifier: MIT */
/*
 * proxy_cases_tunnel.c - the loopback cases on what flows through the
 * proxy (proxy_cases.c's proxy_run_loopback_tests() runs them on its
 * proxy host): SNI at the tunnel's door, transfers both ways and 1 GiB
 * under a slow reader (CONNECT and absolute-form HTTP), 500 tunnels at
 * once, and clients that vanish mid-transfer leaving no fd behind.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy.h"
#include "proxy_peers.h"
#include "tap.h"
#include "proxy_cases.h"
#include "proxy_client.h"

void test_sni(const struct host *h, uint16_t echo, uint16_t banner)
{
	unsigned char ch[2048];
	char head[4096], target[64];
	size_t n;
	int fd;

	snprintf(target, sizeof(target), "localhost:%u", echo);
	fd = pc_http_connect(h, target, h->th, head, sizeof(head));
	n = pc_hello(ch, "localhost", 1);
	ok(fd >= 0 && pc_echoes(fd, ch, n),
	   "a ClientHello naming the judged host passes");
	if (fd >= 0)
		close(fd);
	fd = pc_http_connect(h, target, h->th, head, sizeof(head));
	n = pc_hello(ch, "LocalHost.", 3);
	ok(fd >= 0 && pc_echoes(fd, ch, n),
	   "the same, case-folded, trailing dot, over three records");
	if (fd >= 0)
		close(fd);
	fd = pc_http_connect(h, target, h->th, head, sizeof(head));
	n = pc_hello(ch, "evil.example.com", 1);
	ok(fd >= 0 && write_all(fd, ch, n) == 0 && pc_closed(fd),
	   "a ClientHello naming another host closes the tunnel");
	if (fd >= 0)
		close(fd);
	ok(pc_log_has(h, "TLS server name 'evil.example.com' is not the judged "
		      "host 'localhost'"),
	   "the mismatch is logged");
	/* fragmented: the hello in two records sent in five segments */
	fd = pc_http_connect(h, target, h->th, head, sizeof(head));
	n = pc_hello(ch, "evil.example.com", 2);
	if (fd >= 0) {
		size_t i, step = n / 5 + 1;
		int nodelay = 1;

		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay,
			   sizeof(nodelay));
		for (i = 0; i < n; i += step) {
			(void)write_all(fd, ch + i, i + step > n ? n - i : step);
			usleep(20000);
		}
	}
	ok(fd >= 0 && pc_closed(fd), "a fragmented ClientHello is seen whole");
	if (fd >= 0)
		close(fd);
	/* an IP target: the server name must be allowed by the table */
	snprintf(target, sizeof(target), "127.0.0.1:%u", echo);
	fd = pc_http_connect(h, target, h->th, head, sizeof(head));
	n = pc_hello(ch, "evil.example.com", 1);
	ok(fd >= 0 && write_all(fd, ch, n) == 0 && pc_closed(fd),
	   "IP target, SNI for a name the table refuses: closed");
	if (fd >= 0)
		close(fd);
	fd = pc_http_connect(h, target, h->th, head, sizeof(head));
	n = pc_hello(ch, NULL, 1);
	ok(fd >= 0 && pc_echoes(fd, ch, n), "a ClientHello without SNI passes");
	if (fd >= 0)
		close(fd);
	fd = pc_http_connect(h, target, h->th, head, sizeof(head));
	ok(fd >= 0 && pc_echoes(fd, (const unsigned char *)"\x16\x03", 2) ==
			      false,
	   "a truncated ClientHello is held, not passed");
	if (fd >= 0)
		close(fd);
	/* server speaks first; a silent client just works */
	snprintf(target, sizeof(target), "127.0.0.1:%u", banner);
	fd = pc_http_connect(h, target, h->th, head, sizeof(head));
	memset(head, 0, sizeof(head));
	ok(fd >= 0 && recv(fd, head, 12, MSG_WAITALL) == 12 &&
		   !memcmp(head, "220 banner\r\n", 12),
	   "a server that speaks first is heard at once");
	ok(fd >= 0 && pc_echoes(fd, (const unsigned char *)"EHLO x\r\n", 8),
	   "then a non-TLS client is relayed");
	if (fd >= 0)
		close(fd);
}

void test_big(const struct host *h, uint16_t origin)
{
	const uint64_t size = 1ull << 30;
	char head[4096], target[64], *req, *cred = pc_basic("vbox", h->th);
	int fd;

	snprintf(target, sizeof(target), "127.0.0.1:%u", origin);
	fd = pc_http_connect(h, target, h->th, head, sizeof(head));
	req = xasprintf("GET /size/%llu HTTP/1.1\r\nHost: x\r\n"
			"Connection: close\r\n\r\n",
			(unsigned long long)size);
	ok(fd >= 0 && write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   pc_big_read(fd, size, true),
	   "1 GiB through a CONNECT tunnel, slow reader: byte-exact");
	ok(fd >= 0 && pc_closed(fd), "then the end of the stream");
	if (fd >= 0)
		close(fd);
	free(req);
	fd = pc_tcp(h->http);
	req = xasprintf("GET http://127.0.0.1:%u/size/%llu HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n",
			origin, (unsigned long long)size, cred);
	ok(fd >= 0 && write_all(fd, req, strlen(req)) == 0 &&
		   read_head(fd, head, sizeof(head)) > 0 &&
		   pc_content_length(head) == (long)size &&
		   pc_big_read(fd, size, true),
	   "1 GiB as absolute-form HTTP, slow reader: byte-exact");
	if (fd >= 0)
		close(fd);
	free(req);
	free(cred);
}

/*
 * test_both_ways - @total pattern bytes up a CONNECT tunnel to the echo
 * peer and back at the same time, the reader pausing now and then so
 * that both directions fill and hold back, then a half-close: every byte
 * comes back in order, then the end of the stream.
 */
void test_both_ways(const struct host *h, uint16_t echo, uint64_t total)
{
	static char buf[1 << 16];
	uint64_t sent = 0, got = 0, next_pause = 16 << 20;
	char head[4096], target[64];
	bool good = true, eof = false;
	int fd;

	snprintf(target, sizeof(target), "127.0.0.1:%u", echo);
	fd = pc_http_connect(h, target, h->th, head, sizeof(head));
	if (fd < 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0)
		good = false;
	while (good && !eof) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (sent < total)
			pfd.events |= POLLOUT;
		if (poll(&pfd, 1, 20000) <= 0) {
			diag("both ways: stalled at %llu sent, %llu back",
			     (unsigned long long)sent, (unsigned long long)got);
			good = false;
			break;
		}
		if ((pfd.revents & POLLOUT) && sent < total) {
			size_t k = total - sent < PATTERN_PERIOD ?
					   (size_t)(total - sent) :
					   PATTERN_PERIOD;

			n = send(fd, pattern_at(sent), k, MSG_NOSIGNAL);
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				good = false;
			if (n > 0)
				sent += (uint64_t)n;
			if (sent == total && shutdown(fd, SHUT_WR) != 0)
				good = false;
		}
		if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
			n = recv(fd, buf, sizeof(buf), 0);
			if (n == 0)
				eof = true;
			else if (n < 0 && errno != EAGAIN && errno != EINTR)
				good = false;
			else if (n > 0 && !pc_pattern_ok(buf, (size_t)n, got))
				good = false;
			if (n > 0)
				got += (uint64_t)n;
			if (got >= next_pause) {
				usleep(100000);
				next_pause += 64 << 20;
			}
		}
	}
	ok(good && sent == total && got == total && eof,
	   "%llu MiB up a tunnel and back at once, slow reader, then a "
	   "half-close: byte-exact, then EOF",
	   (unsigned long long)(total >> 20));
	if (fd >= 0)
		close(fd);
}

void test_many(const struct host *h, uint16_t echo)
{
	enum { N = 500 };
	static int fds[N];
	char head[4096], target[64], msg[32], got[32];
	int i, opened = 0, good = 0;

	snprintf(target, sizeof(target), "127.0.0.1:%u", echo);
	for (i = 0; i < N; i++) {
		fds[i] = pc_http_connect(h, target, h->th, head, sizeof(head));
		opened += fds[i] >= 0;
	}
	is_int(opened, N, "500 tunnels open at once");
	for (i = 0; i < N; i++) {
		snprintf(msg, sizeof(msg), "tunnel %05d", i);
		if (fds[i] >= 0)
			(void)write_all(fds[i], msg, strlen(msg));
	}
	for (i = 0; i < N; i++) {
		snprintf(msg, sizeof(msg), "tunnel %05d", i);
		memset(got, 0, sizeof(got));
		if (fds[i] >= 0 &&
		    recv(fds[i], got, strlen(msg), MSG_WAITALL) ==
			    (ssize_t)strlen(msg) &&
		    !strcmp(got, msg))
			good++;
	}
	is_int(good, N, "each of the 500 got its own bytes back");
	for (i = 0; i < N; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static int settle_fds(pid_t pid, int want)
{
	int i, n = -1;

	for (i = 0; i < 100; i++) {
		n = pc_count_fds(pid);
		if (n == want)
			break;
		usleep(50000);
	}
	return n;
}

void test_vanish(const struct host *h, uint16_t origin, int base)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	char head[4096], target[64], buf[65536], *req, *cred;
	int fd, i;
	size_t got = 0;

	is_int(settle_fds(h->pid, base), base,
	       "after the earlier tunnels closed, the proxy holds only its "
	       "own fds");
	snprintf(target, sizeof(target), "127.0.0.1:%u", origin);
	fd = pc_http_connect(h, target, h->th, head, sizeof(head));
	req = xasprintf("GET /size/%llu HTTP/1.1\r\nHost: x\r\n\r\n",
			1ull << 30);
	if (fd >= 0 && write_all(fd, req, strlen(req)) == 0)
		while (got < (8u << 20)) {
			ssize_t k = recv(fd, buf, sizeof(buf), 0);

			if (k <= 0)
				break;
			got += (size_t)k;
		}
	ok(got >= (8u << 20), "a tunnel is mid-transfer");
	ok(pc_count_fds(h->pid) > base,
	   "the proxy holds its sockets and pipes");
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
	free(req);
	is_int(settle_fds(h->pid, base), base,
	       "the client vanished: every fd of the tunnel is closed");
	/* the same for plain HTTP and for a client gone while resolving or
	 * mid-request */
	cred = pc_basic("vbox", h->th);
	fd = pc_tcp(h->http);
	req = xasprintf("GET http://127.0.0.1:%u/size/%llu HTTP/1.1\r\n"
			"Proxy-Authorization: Basic %s\r\n\r\n",
			origin, 1ull << 30, cred);
	got = 0;
	if (fd >= 0 && write_all(fd, req, strlen(req)) == 0)
		while (got < (8u << 20)) {
			ssize_t k = recv(fd, buf, sizeof(buf), 0);

			if (k <= 0)
				break;
			got += (size_t)k;
		}
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
	free(req);
	is_int(settle_fds(h->pid, base), base,
	       "plain HTTP, client vanished mid-body: no fd left");
	for (i = 0; i < 20; i++) {
		fd = pc_tcp(h->http);
		(void)write_all(fd, "GET http://127.0.0.1/ HTT", 25);
		close(fd);
	}
	is_int(settle_fds(h->pid, base), base,
	       "20 clients gone mid-head: no fd left");
	free(cred);
}
