/* SPDX-License-Identifier: MIT */
/*
 * listen.c - the proxy's life and its listening sockets (proxy.h):
 * start, tokens, listeners, accepting new connections (conn.c takes each
 * from there, pc_accepted()), and what happens at the fd limit: the
 * listeners are set aside, not spun on.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "compat.h"
#include "pconn.h"

/* While the listeners are set aside: one line about it per minute. */
#define ACCEPT_LOG_EVERY_MS 60000.0

/**
 * struct plisten - one listening socket
 * @w: its watch
 * @px: the proxy
 * @proto: what it speaks
 * @port: PROXY_FORWARD: the host loopback port
 * @next: the proxy's list
 */
struct plisten {
	struct loop_watch w;
	struct proxy *px;
	enum proxy_proto proto;
	uint16_t port;
	struct plisten *next;
};

/* ---- the listeners, and the fd limit --------------------------------- */

/*
 * accept_pause - accept() found no fd (or memory) for a new connection:
 * stop watching the listeners, whose pending connections would wake the
 * loop at once and for ever, until a connection closes (pc_free()) or
 * the retry timer (on_accept_timer()) finds room.  The connections wait
 * in the listen backlog meanwhile.
 */
static void accept_pause(struct proxy *px, int err)
{
	double now = loop_now_ms();
	struct plisten *l;

	px->stats.accept_fails++;
	for (l = px->listeners; l; l = l->next)
		loop_watch_remove(px->lp, &l->w);
	if (!loop_timer_armed(&px->accept_tm))
		loop_timer_arm(px->lp, &px->accept_tm,
			       now + PROXY_ACCEPT_RETRY_MS);
	if (px->accept_paused)
		return;
	px->accept_paused = true;
	px->stats.accept_pauses++;
	if (!px->stats.accept_logged_ms ||
	    now - px->stats.accept_logged_ms >= ACCEPT_LOG_EVERY_MS) {
		px_log(px, "cannot accept a connection: %s; new connections "
			   "wait until one closes (paused %llu times so far, "
			   "logged at most once a minute)",
		       strerror(err),
		       (unsigned long long)px->stats.accept_pauses);
		px->stats.accept_logged_ms = now;
	}
}

/* fds_freed of struct proxy: watch listeners set aside at the fd limit
 * again */
static void proxy_accept_resume(struct proxy *px)
{
	struct plisten *l;

	if (!px->accept_paused)
		return;
	px->accept_paused = false;
	loop_timer_cancel(px->lp, &px->accept_tm);
	for (l = px->listeners; l; l = l->next) {
		if (l->w.active)
			continue;
		if (loop_watch_add(px->lp, &l->w, LOOP_IN) != 0) {
			/* the loop itself is short of memory: later */
			px->accept_paused = true;
			loop_timer_arm(px->lp, &px->accept_tm,
				       loop_now_ms() + PROXY_ACCEPT_RETRY_MS);
		}
	}
}

/*
 * accept_some - accept up to 64 pending connections of @l.  Returns 0,
 * or -1 when accept() found no fd or memory (the listeners are set aside
 * then).
 */
/* The operations of a connection accepted for @proto (pconn.h). */
static const struct pc_ops *ops_of(enum proxy_proto proto)
{
	return proto == PROXY_HTTP ? &http_ops :
	       proto == PROXY_SOCKS5 ? &socks_ops : &forward_ops;
}

static int accept_some(struct plisten *l)
{
	struct proxy *px = l->px;
	int fd, k;

	for (k = 0; k < 64; k++) {
		px->stats.accepts++;
		fd = compat_accept(l->w.fd);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				accept_pause(px, errno);
				return -1;
			}
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			/* the pending connection failed (ECONNABORTED,
			 * a network error): the next one */
			continue;
		}
		if (px->nconns >= px->limits.max_conns) {
			close(fd);
			continue;
		}
		pc_accepted(px, fd, l->proto, ops_of(l->proto), l->port);
	}
	return 0;
}

static void on_accept(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	(void)lp;
	(void)events;
	(void)accept_some(w->ctx);
}

/*
 * on_accept_timer - while set aside, try each listener from here (a
 * failure keeps them aside and re-arms the timer); when all accepted
 * what they had, watch them again.
 */
static void on_accept_timer(struct loop *lp, struct loop_timer *t)
{
	struct proxy *px = t->ctx;
	struct plisten *l;

	(void)lp;
	px->stats.accept_retries++;
	for (l = px->listeners; l; l = l->next)
		if (accept_some(l) < 0)
			return;
	proxy_accept_resume(px);
}

int proxy_init(struct proxy *px, struct loop *lp, struct judge *j,
	       const char *upstream, char **err)
{
	int rc;

	memset(px, 0, sizeof(*px));
	px->lp = lp;
	px->judge = j;
	px->fds_freed = proxy_accept_resume;
	px->limits.handshake_ms = 30e3;
	px->limits.connect_ms = 15e3;
	px->limits.idle_ms = 3600e3;
	px->limits.max_conns = 4096;
	px->relay_mem_max = PROXY_RELAY_MEM;
#ifdef VBOX_RELAY_SPLICE
	px->relay_max = 1u << 20;
#else
	px->relay_max = 256u << 10;
#endif
	loop_timer_init(&px->accept_tm, on_accept_timer, px);
	rc = proxy_token_make(px->token[PROXY_HTTP]);
	if (!rc)
		rc = proxy_token_make(px->token[PROXY_SOCKS5]);
	if (rc) {
		*err = xasprintf("random bytes for the tokens: %s",
				 strerror(-rc));
		return -1;
	}
	rc = judge_read_host_addrs(j);
	if (rc) {
		*err = xasprintf("getifaddrs: %s", strerror(-rc));
		return -1;
	}
	if (upstream && upstream[0] &&
	    upstream_parse(upstream, &px->up, err) != 0)
		return -1;
	if (dns_init(&px->dns, lp, err) != 0) {
		upstream_free(px->up);
		px->up = NULL;
		return -1;
	}
	return 0;
}

void proxy_set_tokens(struct proxy *px, const char *http, const char *socks)
{
	if (strlen(http) != PROXY_TOKEN_LEN || strlen(socks) != PROXY_TOKEN_LEN)
		BUG("proxy_set_tokens: a token is not %d characters",
		    PROXY_TOKEN_LEN);
	memcpy(px->token[PROXY_HTTP], http, PROXY_TOKEN_LEN + 1);
	memcpy(px->token[PROXY_SOCKS5], socks, PROXY_TOKEN_LEN + 1);
}

static int add_listener(struct proxy *px, int fd, enum proxy_proto proto,
			uint16_t port)
{
	struct plisten *l;
	int rc;

	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	l = xcalloc(1, sizeof(*l));
	l->px = px;
	l->proto = proto;
	l->port = port;
	loop_watch_init(&l->w, fd, on_accept, l);
	rc = loop_watch_add(px->lp, &l->w, LOOP_IN);
	if (rc) {
		close(fd);
		free(l);
		return rc;
	}
	l->next = px->listeners;
	px->listeners = l;
	return 0;
}

int proxy_listen(struct proxy *px, int fd, enum proxy_proto proto)
{
	return add_listener(px, fd, proto, 0);
}

int proxy_listen_forward(struct proxy *px, int fd, uint16_t port)
{
	return add_listener(px, fd, PROXY_FORWARD, port);
}

void proxy_release(struct proxy *px)
{
	struct plisten *l, *next;

	loop_timer_cancel(px->lp, &px->accept_tm);
	px->accept_paused = false;
	while (px->conns)
		pc_free(px->conns);
	for (l = px->listeners; l; l = next) {
		next = l->next;
		loop_watch_remove(px->lp, &l->w);
		close(l->w.fd);
		free(l);
	}
	px->listeners = NULL;
	dns_release(&px->dns);
	upstream_free(px->up);
	px->up = NULL;
}
