/* SPDX-License-Identifier: MIT */
/*
 * dns.c - c-ares on the event loop (dns.h).
 *
 * c-ares tells us which of its sockets to watch through the socket-state
 * callback; we give each a loop watch and hand readiness back with
 * ares_process_fd().  Its timeouts ride one loop timer, re-armed after
 * every step.  Answers are delivered through a zero-delay timer so that a
 * caller is never re-entered from inside dns_resolve().
 */
#include <vbox.h>

#include <ares.h>
#include <netinet/in.h>

#include "dns.h"

/**
 * struct dns_sock - one c-ares socket being watched
 * @w: its watch
 * @d: the resolver
 */
struct dns_sock {
	struct loop_watch w;
	struct dns *d;
};

/**
 * struct dns_query - one lookup
 * @d: the resolver
 * @fn, @ctx: whom to tell
 * @port: the port to put in each address
 * @cancelled: the caller gave up; c-ares still owns a callback to us
 * @done: c-ares answered; @deliver is armed
 * @deliver: delivers @ans from the loop
 * @prev, @next: the resolver's list of live queries
 * @ans: the answer
 */
struct dns_query {
	struct dns *d;
	dns_fn fn;
	void *ctx;
	uint16_t port;
	bool cancelled;
	bool done;
	struct loop_timer deliver;
	struct dns_query *prev, *next;
	struct dns_answer ans;
};

static void query_unlink_free(struct dns_query *q)
{
	if (q->prev)
		q->prev->next = q->next;
	else
		q->d->live = q->next;
	if (q->next)
		q->next->prev = q->prev;
	free(q);
}

static void dns_rearm(struct dns *d)
{
	struct timeval tv, *tvp;

	tvp = ares_timeout(d->channel, NULL, &tv);
	if (!tvp) {
		loop_timer_cancel(d->lp, &d->timer);
		return;
	}
	loop_timer_arm(d->lp, &d->timer, loop_now_ms() +
		       (double)tvp->tv_sec * 1e3 + (double)tvp->tv_usec / 1e3);
}

static void on_sock(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	struct dns_sock *s = w->ctx;
	struct dns *d = s->d;
	int fd = w->fd;
	bool rd = events & (LOOP_IN | LOOP_HUP | LOOP_ERR);
	bool wr = events & (LOOP_OUT | LOOP_ERR);

	(void)lp;
	ares_process_fd(d->channel, rd ? fd : ARES_SOCKET_BAD,
			wr ? fd : ARES_SOCKET_BAD);
	dns_rearm(d);
}

static void on_timer(struct loop *lp, struct loop_timer *t)
{
	struct dns *d = t->ctx;

	(void)lp;
	ares_process_fd(d->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
	dns_rearm(d);
}

static void sock_state(void *data, ares_socket_t fd, int readable,
		       int writable)
{
	struct dns *d = data;
	uint32_t ev = (readable ? LOOP_IN : 0) | (writable ? LOOP_OUT : 0);
	struct dns_sock *s;
	unsigned i;

	for (i = 0; i < d->nsocks; i++)
		if (d->socks[i]->w.fd == fd)
			break;
	if (i == d->nsocks) {
		if (!ev)
			return;
		s = xcalloc(1, sizeof(*s));
		s->d = d;
		loop_watch_init(&s->w, fd, on_sock, s);
		if (loop_watch_add(d->lp, &s->w, ev) != 0)
			BUG("cannot watch a resolver socket");
		d->socks = xreallocarray(d->socks, d->nsocks + 1,
					 sizeof(*d->socks));
		d->socks[d->nsocks++] = s;
		return;
	}
	s = d->socks[i];
	if (ev) {
		if (loop_watch_modify(d->lp, &s->w, ev) != 0)
			BUG("cannot watch a resolver socket");
		return;
	}
	loop_watch_remove(d->lp, &s->w);
	free(s);
	d->socks[i] = d->socks[--d->nsocks];
}

int dns_init(struct dns *d, struct loop *lp, char **err)
{
	struct ares_options opts;
	ares_channel ch;
	int rc;

	memset(d, 0, sizeof(*d));
	d->lp = lp;
	loop_timer_init(&d->timer, on_timer, d);
	rc = ares_library_init(ARES_LIB_INIT_ALL);
	if (rc != ARES_SUCCESS) {
		*err = xasprintf("resolver: %s", ares_strerror(rc));
		return -1;
	}
	memset(&opts, 0, sizeof(opts));
	opts.sock_state_cb = sock_state;
	opts.sock_state_cb_data = d;
	rc = ares_init_options(&ch, &opts, ARES_OPT_SOCK_STATE_CB);
	if (rc != ARES_SUCCESS) {
		ares_library_cleanup();
		*err = xasprintf("resolver: %s", ares_strerror(rc));
		return -1;
	}
	d->channel = ch;
	d->ready = true;
	return 0;
}

static void on_deliver(struct loop *lp, struct loop_timer *t)
{
	struct dns_query *q = t->ctx;

	(void)lp;
	q->fn(q->ctx, &q->ans);
	query_unlink_free(q);
}

static void on_answer(void *arg, int status, int timeouts,
		      struct ares_addrinfo *res)
{
	struct dns_query *q = arg;
	struct ares_addrinfo_node *n;

	(void)timeouts;
	if (q->cancelled || status == ARES_EDESTRUCTION) {
		ares_freeaddrinfo(res);
		query_unlink_free(q);
		return;
	}
	q->ans.status = status;
	for (n = res ? res->nodes : NULL; n && q->ans.n < DNS_MAX_ADDRS;
	     n = n->ai_next) {
		struct sockaddr_storage *ss = &q->ans.addr[q->ans.n];

		if (n->ai_family == AF_INET &&
		    n->ai_addrlen >= sizeof(struct sockaddr_in)) {
			memcpy(ss, n->ai_addr, sizeof(struct sockaddr_in));
			((struct sockaddr_in *)ss)->sin_port = htons(q->port);
		} else if (n->ai_family == AF_INET6 &&
			   n->ai_addrlen >= sizeof(struct sockaddr_in6)) {
			memcpy(ss, n->ai_addr, sizeof(struct sockaddr_in6));
			((struct sockaddr_in6 *)ss)->sin6_port =
				htons(q->port);
		} else {
			continue;
		}
		q->ans.n++;
	}
	if (status == ARES_SUCCESS && q->ans.n == 0)
		q->ans.status = ARES_ENODATA;
	ares_freeaddrinfo(res);
	q->done = true;
	loop_timer_arm(q->d->lp, &q->deliver, 0);
}

struct dns_query *dns_resolve(struct dns *d, const char *name, uint16_t port,
			      dns_fn fn, void *ctx)
{
	struct ares_addrinfo_hints hints;
	struct dns_query *q = xcalloc(1, sizeof(*q));

	q->d = d;
	q->fn = fn;
	q->ctx = ctx;
	q->port = port;
	loop_timer_init(&q->deliver, on_deliver, q);
	q->next = d->live;
	if (d->live)
		d->live->prev = q;
	d->live = q;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	ares_getaddrinfo(d->channel, name, NULL, &hints, on_answer, q);
	dns_rearm(d);
	return q;
}

void dns_cancel(struct dns_query *q)
{
	if (q->done) {
		loop_timer_cancel(q->d->lp, &q->deliver);
		query_unlink_free(q);
		return;
	}
	q->cancelled = true;
}

void dns_release(struct dns *d)
{
	struct dns_query *q, *next;
	unsigned i;

	if (!d->ready)
		return;
	for (q = d->live; q; q = q->next)
		if (!q->done)
			q->cancelled = true;
	ares_destroy(d->channel);
	for (q = d->live; q; q = next) {
		next = q->next;
		loop_timer_cancel(d->lp, &q->deliver);
		query_unlink_free(q);
	}
	for (i = 0; i < d->nsocks; i++) {
		loop_watch_remove(d->lp, &d->socks[i]->w);
		free(d->socks[i]);
	}
	free(d->socks);
	loop_timer_cancel(d->lp, &d->timer);
	ares_library_cleanup();
	memset(d, 0, sizeof(*d));
}

const char *dns_strerror(int status)
{
	return ares_strerror(status);
}
