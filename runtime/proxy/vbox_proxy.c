/* SPDX-License-Identifier: MIT */
/*
 * vbox_proxy.c - vbox-proxy, the egress proxy's own process
 * (doc/proxy.md "The proxy's process").
 *
 * vbox-exec starts it for a plan whose network rows need the proxy, with
 * the control socket on fd 3 and the sealed configuration on fd 4
 * (pconfig.h).  It judges and relays the sandbox's connections on its
 * own event loop, apart from vbox-exec's supervisor: the code that
 * parses what the sandbox sends (HTTP, SOCKS5, TLS hellos) and resolves
 * names (c-ares) runs in a process that holds nothing else of the
 * launch, and vbox-exec itself needs neither c-ares nor the proxy core.
 * It ends when vbox-exec closes the control socket or dies (vbox-exec
 * starts it with a parent-death SIGKILL).  Before it reads anything it
 * gives up its privileges (started by root, it runs as a user of its
 * own, with no capability); before it serves it confines itself
 * (confine.h): no exec, no ptrace, no file written, only the resolver's
 * files read, only TCP and UDP sockets.
 */
#include <vbox.h>

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confine.h"
#include "judge.h"
#include "loop.h"
#include "pconfig.h"
#include "proxy.h"

/*
 * Distinct denials remembered, so that each is told to vbox-exec once;
 * past that many every denial is told (vbox-exec bounds what it shows).
 */
#define NOTICE_SEEN_MAX 1024

struct helper {
	uint64_t seen[NOTICE_SEEN_MAX];
	size_t nseen;
	uint32_t lost;
	struct proxy_creds creds;
	struct loop lp;
	struct judge judge;
	struct pconfig cfg;
	struct proxy px;
	bool px_ready;
	struct loop_watch ctl;
};

static void say(const char *fmt, ...) __printf(1, 2);

static void say(const char *fmt, ...)
{
	va_list ap;

	fputs("vbox-proxy: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* --log lines in vbox-exec's format and on its clock. */
static void log_line(void *ctx, const char *line)
{
	const struct helper *h = ctx;

	fprintf(stderr, "vbox-exec: [%9.3f ms] %s\n",
		loop_now_ms() - h->cfg.t0_ms, line);
	fflush(stderr);
}

/* FNV-1a over @s and its NUL, from @h. */
static uint64_t hash_str(uint64_t h, const char *s)
{
	do {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	} while (*s++);
	return h;
}

/*
 * A denial, for vbox-exec's one-line notice (pconfig.h "D"): once per
 * distinct request and decision.  Never waits for vbox-exec: a notice
 * that does not fit the socket now is counted, and the count goes with
 * the next one.
 */
static void on_deny(void *ctx, const char *what, const char *why)
{
	struct helper *h = ctx;
	uint8_t msg[PCONFIG_MAX_MSG];
	uint64_t key = hash_str(hash_str(0xcbf29ce484222325ull, what), why);
	size_t i, n;

	for (i = 0; i < h->nseen; i++)
		if (h->seen[i] == key)
			return;
	if (h->nseen < NOTICE_SEEN_MAX)
		h->seen[h->nseen++] = key;
	n = pconfig_denial_encode(msg, h->lost, what, why);
	if (!n)
		BUG("a denial notice that is not printable or too long");
	if (send(PCONFIG_FD_CONTROL, msg, n, MSG_NOSIGNAL | MSG_DONTWAIT) ==
	    (ssize_t)n)
		h->lost = 0;
	else if (h->lost < UINT32_MAX)
		h->lost++;
}

/* The configuration, read whole from its memory file. */
static int read_config(struct helper *h, char **err)
{
	struct stat st;
	uint8_t *buf;
	size_t off = 0;
	ssize_t n;
	int rc;

	if (fstat(PCONFIG_FD_CONFIG, &st) != 0 || !S_ISREG(st.st_mode)) {
		*err = xstrdup("no configuration on fd 4: vbox-proxy is "
			       "started by vbox-exec only");
		return -1;
	}
	if (st.st_size <= 0 || (uint64_t)st.st_size > PCONFIG_MAX_BYTES) {
		*err = xasprintf("configuration of %lld bytes",
				 (long long)st.st_size);
		return -1;
	}
	buf = xmalloc((size_t)st.st_size);
	while (off < (size_t)st.st_size) {
		n = pread(PCONFIG_FD_CONFIG, buf + off,
			  (size_t)st.st_size - off, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*err = xasprintf("cannot read the configuration: %s",
					 n ? strerror(errno) : "short file");
			free(buf);
			return -1;
		}
		off += (size_t)n;
	}
	close(PCONFIG_FD_CONFIG);
	rc = pconfig_decode(buf, off, &h->cfg, &h->judge, err);
	free(buf);
	return rc;
}

/* To vbox-exec; 0, or -1 when there is nobody to tell. */
static int send_msg(const void *msg, size_t len)
{
	return send(PCONFIG_FD_CONTROL, msg, len, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/* A listening socket for @port: serve what the port is for. */
static void take_listener(struct helper *h, uint16_t port, int fd)
{
	int rc;
	size_t i;

	if (port == h->cfg.ports[0])
		rc = proxy_listen(&h->px, fd, PROXY_HTTP);
	else if (port == h->cfg.ports[1])
		rc = proxy_listen(&h->px, fd, PROXY_SOCKS5);
	else {
		for (i = 2; i < h->cfg.nports && h->cfg.ports[i] != port; i++)
			;
		if (i == h->cfg.nports) {
			say("a listening socket for port %u, which is not "
			    "served: closed", port);
			close(fd);
			return;
		}
		rc = proxy_listen_forward(&h->px, fd, port);
	}
	if (rc < 0)
		say("cannot serve port %u: %s", port, strerror(-rc));
}

static void on_control(struct loop *lp, struct loop_watch *w, uint32_t ev)
{
	struct helper *h = w->ctx;
	uint16_t port;
	int fd, rc;

	(void)ev;
	rc = pconfig_recv_listener(w->fd, &port, &fd);
	if (rc < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (rc < 0)
		say("the control socket: %s: ended", errno == EPROTO ?
		    "a message it does not know" : strerror(errno));
	if (rc <= 0) {
		/* vbox-exec is done (or gone, or confused): so are we */
		loop_stop(lp);
		return;
	}
	take_listener(h, port, fd);
}

static int start(struct helper *h, char **err)
{
	int rc, abi;

	/* first: nothing is read or resolved with root's privileges */
	if (proxy_drop_privileges(PROXY_USER, &h->creds, err) < 0)
		return -1;
	if (read_config(h, err) < 0)
		return -1;
	rc = loop_init(&h->lp);
	if (rc) {
		*err = xasprintf("cannot make the event loop: %s",
				 strerror(-rc));
		return -1;
	}
	if (proxy_init(&h->px, &h->lp, &h->judge, h->cfg.upstream, err) != 0)
		return -1;
	h->px_ready = true;
	proxy_set_tokens(&h->px, h->cfg.token[PROXY_HTTP],
			 h->cfg.token[PROXY_SOCKS5]);
	if (h->cfg.log) {
		h->px.log = log_line;
		h->px.log_ctx = h;
	}
	h->px.deny = on_deny;
	h->px.deny_ctx = h;
	/* Everything it reads at its start is read: the walls go up. */
	abi = proxy_confine(err);
	if (abi < 0)
		return -1;
	if (h->cfg.log) {
		char *who = proxy_who_name(&h->creds);
		char *ll = abi > 0 ? xasprintf("reads only the resolver's "
					       "files, writes none (landlock "
					       "ABI %d)", abi) :
				     xstrdup("no landlock on this kernel");
		char *line = xasprintf("egress proxy: vbox-proxy confined: "
				       "runs as %s, no capabilities%s, not "
				       "dumpable, no_new_privs, no exec or "
				       "ptrace, no socket but TCP and UDP "
				       "(seccomp), %s", who,
				       h->creds.bounding_cleared ?
				       " (bounding set empty)" : "", ll);

		log_line(h, line);
		free(line);
		free(ll);
		free(who);
	}
	loop_watch_init(&h->ctl, PCONFIG_FD_CONTROL, on_control, h);
	rc = loop_watch_add(&h->lp, &h->ctl, LOOP_IN);
	if (rc) {
		*err = xasprintf("cannot watch the control socket: %s",
				 strerror(-rc));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct helper *h = xzalloc(sizeof(*h));
	char *err = NULL, *msg;
	int rc, status = 0;

	(void)argv;
	h->lp.fd = -1;
	/* a client that went away is an EPIPE, not the end of the proxy */
	signal(SIGPIPE, SIG_IGN);
	if (argc != 1) {
		say("started by vbox-exec only, with no arguments");
		return 2;
	}
	if (start(h, &err) < 0) {
		/* vbox-exec says it; a caller that is not vbox-exec sees it */
		msg = xasprintf("E%s", err);
		if (send_msg(msg, strnlen(msg, PCONFIG_MAX_MSG)) < 0)
			say("%s", err);
		free(msg);
		free(err);
		status = 1;
	} else if (send_msg("R", 1) < 0) {
		say("no control socket on fd 3: vbox-proxy is started by "
		    "vbox-exec only");
		status = 1;
	} else {
		rc = loop_run(&h->lp);
		if (rc) {
			say("the event loop failed: %s", strerror(-rc));
			status = 1;
		}
		loop_watch_remove(&h->lp, &h->ctl);
	}
	if (h->px_ready)
		proxy_release(&h->px);
	if (h->lp.fd >= 0)
		loop_release(&h->lp);
	judge_release(&h->judge);
	pconfig_release(&h->cfg);
	free(h);
	return status;
}
