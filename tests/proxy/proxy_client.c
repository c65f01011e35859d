/* SPDX-License-Identifier: MIT */
/*
 * proxy_client.c - the client side of tests/proxy/test_proxy.c
 * (proxy_client.h).
 */
#include <vbox.h>

#include <vbox.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "loop.h"
#include "plan.h"
#include "planjudge.h"
#include "proxy.h"
#include "proxy_peers.h"
#include "tap.h"
#include "proxy_client.h"

char pc_tmpdir[256];
static int pc_nfile;

char *pc_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t n = 0, cap = 0;
	int c;

	if (!f)
		return xstrdup("");
	while ((c = fgetc(f)) != EOF) {
		if (n + 2 > cap) {
			cap = cap ? cap * 2 : 4096;
			s = xrealloc(s, cap);
		}
		s[n++] = (char)c;
	}
	fclose(f);
	if (!s)
		return xstrdup("");
	s[n] = '\0';
	return s;
}

bool pc_log_has(const struct host *h, const char *needle)
{
	char *s;
	bool r;
	int i;

	/* the log is written by another process: give it a moment */
	for (i = 0; i < 50; i++) {
		s = pc_slurp(h->log);
		r = strstr(s, needle) != NULL;
		free(s);
		if (r)
			return true;
		usleep(20000);
	}
	return false;
}

int pc_host_start(struct host *h, const char *rules, bool short_limits,
		  const char *env_proxy)
{
	char plan[300], cmd[1200], line[512];
	const char *vboxc = getenv("VBOXC");
	int p[2];
	FILE *f;
	ssize_t n;

	memset(h, 0, sizeof(*h));
	pc_nfile++;
	snprintf(h->rules, sizeof(h->rules), "%s/rules%d", pc_tmpdir, pc_nfile);
	snprintf(plan, sizeof(plan), "%s/plan%d", pc_tmpdir, pc_nfile);
	snprintf(h->log, sizeof(h->log), "%s/log%d", pc_tmpdir, pc_nfile);
	f = fopen(h->rules, "w");
	if (!f)
		return -1;
	fputs(rules, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "'%s' compile --target=linux --emit=plan -o '%s' '%s'",
		 vboxc ? vboxc : "vboxc", plan, h->rules);
	if (system(cmd) != 0) {
		diag("cannot compile %s", h->rules);
		return -1;
	}
	if (pipe(p) != 0)
		return -1;
	h->pid = fork();
	if (h->pid < 0)
		return -1;
	if (h->pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		/* ambient proxy variables must never be followed */
		if (env_proxy) {
			setenv("HTTP_PROXY", env_proxy, 1);
			setenv("http_proxy", env_proxy, 1);
			setenv("ALL_PROXY", env_proxy, 1);
			setenv("all_proxy", env_proxy, 1);
		}
		execl("/proc/self/exe", "test_proxy", "--host", plan, h->log,
		      short_limits ? "short" : "long", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], line, sizeof(line) - 1);
	close(p[0]);
	if (n <= 0)
		return -1;
	line[n] = '\0';
	if (sscanf(line, "%hu %hu %63s %63s", &h->http, &h->socks, h->th,
		   h->ts) != 4)
		return -1;
	return 0;
}

void pc_host_stop(struct host *h)
{
	int status = 0;

	if (h->pid > 0) {
		kill(h->pid, SIGTERM);
		waitpid(h->pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			ok(0, "the proxy host ended cleanly (status %#x)",
			   status);
	}
	h->pid = 0;
}

int pc_count_fds(pid_t pid)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int pc_tcp_to(const char *ip, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct timeval tv = { .tv_sec = 20 };
	int fd;

	memset(&ss, 0, sizeof(ss));
	if (strchr(ip, ':')) {
		struct sockaddr_in6 *s6 = (void *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		inet_pton(AF_INET6, ip, &s6->sin6_addr);
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (void *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		inet_pton(AF_INET, ip, &s4->sin_addr);
		len = sizeof(*s4);
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&ss, len) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int pc_tcp(uint16_t port)
{
	return pc_tcp_to("127.0.0.1", port);
}

char *pc_basic(const char *user, const char *pass)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq"
				"rstuvwxyz0123456789+/";
	char *pair = xasprintf("%s:%s", user, pass);
	size_t n = strlen(pair), i, o = 0;
	char *out = xmalloc(n * 2 + 8);

	for (i = 0; i < n; i += 3) {
		unsigned v = (unsigned char)pair[i] << 16;

		if (i + 1 < n)
			v |= (unsigned char)pair[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)pair[i + 2];
		out[o++] = t[v >> 18 & 63];
		out[o++] = t[v >> 12 & 63];
		out[o++] = i + 1 < n ? t[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? t[v & 63] : '=';
	}
	out[o] = '\0';
	free(pair);
	return out;
}

/* pc_status_of - the status code of the response head in @head, or -1 */
int pc_status_of(const char *head)
{
	int st;

	if (sscanf(head, "HTTP/1.%*d %d", &st) != 1)
		return -1;
	return st;
}

/*
 * pc_http_connect - CONNECT @target through @h with @token (NULL: none).
 * Returns the connected fd (200), or -status with the response in @head.
 */
int pc_http_connect(const struct host *h, const char *target,
		    const char *token, char *head, size_t hsize)
{
	char *cred, *req;
	int fd = pc_tcp(h->http), st;

	if (fd < 0)
		return -1000;
	cred = token ? pc_basic("vbox", token) : NULL;
	req = xasprintf("CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s%s%s\r\n",
			target, target, cred ? "Proxy-Authorization: Basic " : "",
			cred ? cred : "", cred ? "\r\n" : "");
	free(cred);
	if (write_all(fd, req, strlen(req)) != 0 ||
	    read_head(fd, head, hsize) <= 0) {
		free(req);
		close(fd);
		return -999;
	}
	free(req);
	st = pc_status_of(head);
	if (st == 200)
		return fd;
	close(fd);
	return -st;
}

/* pc_read_n - read @n bytes (Content-Length) into a new buffer */
char *pc_read_n(int fd, size_t n)
{
	char *b = xmalloc(n + 1);
	size_t got = 0;

	while (got < n) {
		ssize_t k = recv(fd, b + got, n - got, 0);

		if (k <= 0) {
			free(b);
			return NULL;
		}
		got += (size_t)k;
	}
	b[n] = '\0';
	return b;
}

long pc_content_length(const char *head)
{
	const char *p = strcasestr(head, "\r\ncontent-length:");

	return p ? strtol(p + 17, NULL, 10) : -1;
}

/* pc_read_rest - everything until EOF (bounded), or NULL on a reset */
char *pc_read_rest(int fd, size_t *len)
{
	char *b = xmalloc(65536);
	size_t n = 0;

	for (;;) {
		ssize_t k = recv(fd, b + n, 65535 - n, 0);

		if (k == 0)
			break;
		if (k < 0) {
			free(b);
			return NULL;
		}
		n += (size_t)k;
		if (n == 65535)
			break;
	}
	b[n] = '\0';
	*len = n;
	return b;
}

/*
 * pc_socks_open - SOCKS5 handshake; the fd on success, else -1 with *@code
 * the server's answer (method 0xFF as 0x100+0xFF, auth failure 0x200+x,
 * reply code otherwise).
 */
int pc_socks_open(const struct host *h, const char *user,
		  const char *pass, const unsigned char *methods,
		  size_t nmethods, int cmd, int atyp, const void *addr,
		  size_t alen, uint16_t port, int *code)
{
	unsigned char b[600], r[300];
	size_t n = 0;
	int fd = pc_tcp(h->socks);

	*code = -1;
	if (fd < 0)
		return -1;
	b[n++] = 5;
	b[n++] = (unsigned char)nmethods;
	memcpy(b + n, methods, nmethods);
	n += nmethods;
	if (write_all(fd, b, n) != 0 || recv(fd, r, 2, MSG_WAITALL) != 2)
		goto fail;
	if (r[1] != 2) {
		*code = 0x100 + r[1];
		goto fail;
	}
	n = 0;
	b[n++] = 1;
	b[n++] = (unsigned char)strlen(user);
	memcpy(b + n, user, strlen(user));
	n += strlen(user);
	b[n++] = (unsigned char)strlen(pass);
	memcpy(b + n, pass, strlen(pass));
	n += strlen(pass);
	if (write_all(fd, b, n) != 0 || recv(fd, r, 2, MSG_WAITALL) != 2)
		goto fail;
	if (r[1] != 0) {
		*code = 0x200 + r[1];
		goto fail;
	}
	n = 0;
	b[n++] = 5;
	b[n++] = (unsigned char)cmd;
	b[n++] = 0;
	b[n++] = (unsigned char)atyp;
	if (atyp == 3)
		b[n++] = (unsigned char)alen;
	memcpy(b + n, addr, alen);
	n += alen;
	b[n++] = (unsigned char)(port >> 8);
	b[n++] = (unsigned char)port;
	if (write_all(fd, b, n) != 0 || recv(fd, r, 10, MSG_WAITALL) != 10)
		goto fail;
	*code = r[1];
	if (r[1] == 0)
		return fd;
fail:
	close(fd);
	return -1;
}

int pc_socks_name(const struct host *h, const char *name, uint16_t port,
		  int *code)
{
	static const unsigned char m[] = { 0, 2 };

	return pc_socks_open(h, "vbox", h->ts, m, 2, 1, 3, name, strlen(name),
			     port, code);
}

/* ---- ClientHello ---------------------------------------------------- */

/* pc_hello - a ClientHello naming @sni (NULL: none), in @nrec records */
size_t pc_hello(unsigned char *out, const char *sni, int nrec)
{
	unsigned char body[1024], hs[1100];
	size_t n = 0, e0, h = 0, i, off, per;

	body[n++] = 3;
	body[n++] = 3;
	memset(body + n, 0x42, 32);
	n += 32;
	body[n++] = 0;		/* session id */
	body[n++] = 0;
	body[n++] = 4;		/* two suites */
	body[n++] = 0x13;
	body[n++] = 0x01;
	body[n++] = 0x13;
	body[n++] = 0x02;
	body[n++] = 1;
	body[n++] = 0;		/* null compression */
	e0 = n;
	n += 2;
	/* a padding extension first, then server_name */
	body[n++] = 0;
	body[n++] = 21;
	body[n++] = 0;
	body[n++] = 3;
	body[n++] = 0;
	body[n++] = 0;
	body[n++] = 0;
	if (sni) {
		size_t l = strlen(sni);

		body[n++] = 0;
		body[n++] = 0;
		body[n++] = (unsigned char)((l + 5) >> 8);
		body[n++] = (unsigned char)(l + 5);
		body[n++] = (unsigned char)((l + 3) >> 8);
		body[n++] = (unsigned char)(l + 3);
		body[n++] = 0;
		body[n++] = (unsigned char)(l >> 8);
		body[n++] = (unsigned char)l;
		memcpy(body + n, sni, l);
		n += l;
	}
	body[e0] = (unsigned char)((n - e0 - 2) >> 8);
	body[e0 + 1] = (unsigned char)(n - e0 - 2);
	hs[h++] = 1;
	hs[h++] = 0;
	hs[h++] = (unsigned char)(n >> 8);
	hs[h++] = (unsigned char)n;
	memcpy(hs + h, body, n);
	h += n;
	/* split the handshake message over @nrec records */
	per = (h + (size_t)nrec - 1) / (size_t)nrec;
	for (i = 0, off = 0; off < h; i++) {
		size_t k = h - off < per ? h - off : per;

		memcpy(out + off + 5 * (i + 1), hs + off, k);
		out[off + 5 * i] = 0x16;
		out[off + 5 * i + 1] = 3;
		out[off + 5 * i + 2] = 1;
		out[off + 5 * i + 3] = (unsigned char)(k >> 8);
		out[off + 5 * i + 4] = (unsigned char)k;
		off += k;
	}
	return h + 5 * i;
}

/* pc_echoes - does the echo behind @fd echo @n bytes of @p? */
bool pc_echoes(int fd, const unsigned char *p, size_t n)
{
	unsigned char *b = xmalloc(n);
	bool ok = write_all(fd, p, n) == 0 &&
		  recv(fd, b, n, MSG_WAITALL) == (ssize_t)n &&
		  !memcmp(b, p, n);

	free(b);
	return ok;
}

/* pc_closed - the proxy ended the connection (EOF or reset) */
bool pc_closed(int fd)
{
	char c;
	ssize_t k = recv(fd, &c, 1, 0);

	return k == 0 || (k < 0 && errno != EAGAIN);
}

/* pc_pattern_ok - are the @n bytes at @p the pattern from offset @off? */
bool pc_pattern_ok(const char *p, size_t n, uint64_t off)
{
	while (n) {
		size_t k = n < PATTERN_PERIOD ? n : PATTERN_PERIOD;

		if (memcmp(p, pattern_at(off), k))
			return false;
		p += k;
		off += k;
		n -= k;
	}
	return true;
}

/* pc_big_read - read @total pattern bytes, slowly at times; byte-exact? */
bool pc_big_read(int fd, uint64_t total, bool slow)
{
	static char buf[1 << 16];
	uint64_t off = 0, next_pause = 64 << 20;

	while (off < total) {
		size_t want = total - off < sizeof(buf) ? (size_t)(total - off) :
							  sizeof(buf);
		ssize_t k = recv(fd, buf, want, 0);

		if (k <= 0)
			return false;
		if (!pc_pattern_ok(buf, (size_t)k, off))
			return false;
		off += (uint64_t)k;
		if (slow && off >= next_pause) {
			/* a slow reader: the window fills, the proxy must
			 * hold back without losing a byte */
			usleep(150000);
			next_pause += 128 << 20;
		}
	}
	return true;
}
