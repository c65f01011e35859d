/* SPDX-License-Identifier: MIT */
/*
 * relay.c - tunnels: bytes move from one socket into a store and from
 * the store into the other socket, one store per direction, at most its
 * capacity held, so a slow reader holds the writer back (the socket
 * stops being read) and no byte is dropped.  A half-close is passed on
 * once the store is drained, and any error resets both sides.  Until the
 * SNI check is decided the client's first bytes are read into a buffer
 * instead, and the server's bytes flow at once (pconn.h).
 *
 * The store is the only platform split (compat.h): on Linux a pipe
 * filled and drained with splice(), so payload bytes never enter our
 * address space; elsewhere (VBOX_PORTABLE: macOS, and the second test
 * build on Linux) a ring buffer filled with recvmsg() and drained with
 * sendmsg().  Either is sized within the proxy's budget (proxy.h): it
 * starts small, doubles while it fills up, and the stores of all tunnels
 * together never pass @relay_mem_max; both are made before the tunnel's
 * reply, so a tunnel without room is refused cleanly (relay_prepare()).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bbuf.h"
#include "compat.h"
#include "pconn.h"
#include "sni.h"

/* Rounds per wake-up, so one busy tunnel cannot starve the others. */
#define RELAY_ROUNDS 16

static void dir_init(struct rdir *d, int from, int to)
{
	d->from = from;
	d->to = to;
	d->held = 0;
	d->eof = d->shut = false;
}

/* relay_page - the smallest store: one page */
static size_t relay_page(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	return pg > 0 ? (size_t)pg : 4096;
}

/*
 * store_want - the capacity a new store asks for within @px's budget
 * (proxy.h), or 0 when not even a page is left.
 */
static size_t store_want(const struct proxy *px)
{
	size_t first = PROXY_RELAY_FIRST, page = relay_page();

	if (first < page)
		first = page;
	if (px->relay_mem + first <= px->relay_mem_max / 2)
		return first;
	if (px->relay_mem + page <= px->relay_mem_max)
		return page;
	return 0;
}

static void account(struct proxy *px, size_t add, size_t sub)
{
	px->relay_mem = px->relay_mem + add - sub;
	if (px->relay_mem > px->stats.relay_peak)
		px->stats.relay_peak = px->relay_mem;
}

/* ---- the store: a pipe and splice(), or a ring buffer ------------- */

#ifdef VBOX_RELAY_SPLICE

static void store_free(struct proxy *px, struct rdir *d)
{
	if (d->pipe[0] >= 0)
		close(d->pipe[0]);
	if (d->pipe[1] >= 0)
		close(d->pipe[1]);
	d->pipe[0] = d->pipe[1] = -1;
	account(px, 0, d->cap);
	d->cap = 0;
}

/*
 * store_make - a pipe of about @want bytes for @d: its capacity is what
 * the kernel gave (F_SETPIPE_SZ rounds to pages and may refuse: an
 * unprivileged user past fs.pipe-user-pages-soft gets small pipes).
 * Returns 0 or -errno.
 */
static int store_make(struct rdir *d, size_t want)
{
	int sz, err;

	if (pipe2(d->pipe, O_NONBLOCK | O_CLOEXEC) != 0) {
		d->pipe[0] = d->pipe[1] = -1;
		return -errno;
	}
	(void)fcntl(d->pipe[1], F_SETPIPE_SZ, (int)want);
	sz = fcntl(d->pipe[1], F_GETPIPE_SZ);
	if (sz <= 0) {
		err = sz < 0 ? errno : EINVAL;
		close(d->pipe[0]);
		close(d->pipe[1]);
		d->pipe[0] = d->pipe[1] = -1;
		return -err;
	}
	d->cap = (size_t)sz;
	return 0;
}

/* store_grow - make @d's pipe hold @want bytes; 0 or -1 (it keeps its size) */
static int store_grow(struct rdir *d, size_t want)
{
	int sz;

	if (fcntl(d->pipe[1], F_SETPIPE_SZ, (int)want) < 0)
		return -1;
	sz = fcntl(d->pipe[1], F_GETPIPE_SZ);
	if (sz <= 0 || (size_t)sz < d->cap)
		return -1;
	d->cap = (size_t)sz;
	return 0;
}

/* store_fill - read up to @room bytes from @d->from into the store */
static ssize_t store_fill(struct rdir *d, size_t room)
{
	ssize_t n = splice(d->from, NULL, d->pipe[1], NULL, room,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

	if (n > 0)
		d->held += (size_t)n;
	return n;
}

/* store_drain - write held bytes to @d->to */
static ssize_t store_drain(struct rdir *d)
{
	ssize_t n = splice(d->pipe[0], NULL, d->to, NULL, d->held,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

	if (n > 0)
		d->held -= (size_t)n;
	return n;
}

#else /* the buffer relay */

static void store_free(struct proxy *px, struct rdir *d)
{
	free(d->buf);
	d->buf = NULL;
	account(px, 0, d->cap);
	d->cap = 0;
}

static int store_make(struct rdir *d, size_t want)
{
	d->buf = xmalloc(want);
	d->cap = want;
	d->boff = 0;
	return 0;
}

/* store_grow - a larger ring, the held bytes moved to its front */
static int store_grow(struct rdir *d, size_t want)
{
	unsigned char *nb = xmalloc(want);
	size_t first = d->cap - d->boff < d->held ? d->cap - d->boff :
						    d->held;

	memcpy(nb, d->buf + d->boff, first);
	memcpy(nb + first, d->buf, d->held - first);
	free(d->buf);
	d->buf = nb;
	d->boff = 0;
	d->cap = want;
	return 0;
}

/*
 * The held bytes are @buf[@boff ...] wrapping at @cap: at most two
 * pieces, so one recvmsg() or sendmsg() moves all that fits.
 */
static ssize_t store_fill(struct rdir *d, size_t room)
{
	size_t tail, first;
	struct iovec iov[2];
	struct msghdr m;
	ssize_t n;

	if (!d->held)
		d->boff = 0;	/* empty: start at the front, one piece */
	tail = (d->boff + d->held) % d->cap;
	first = d->cap - tail < room ? d->cap - tail : room;
	iov[0].iov_base = d->buf + tail;
	iov[0].iov_len = first;
	iov[1].iov_base = d->buf;
	iov[1].iov_len = room - first;
	memset(&m, 0, sizeof(m));
	m.msg_iov = iov;
	m.msg_iovlen = room > first ? 2 : 1;
	n = recvmsg(d->from, &m, MSG_DONTWAIT);
	if (n > 0)
		d->held += (size_t)n;
	return n;
}

static ssize_t store_drain(struct rdir *d)
{
	size_t first = d->cap - d->boff < d->held ? d->cap - d->boff :
						    d->held;
	struct iovec iov[2];
	struct msghdr m;
	ssize_t n;

	iov[0].iov_base = d->buf + d->boff;
	iov[0].iov_len = first;
	iov[1].iov_base = d->buf;
	iov[1].iov_len = d->held - first;
	memset(&m, 0, sizeof(m));
	m.msg_iov = iov;
	m.msg_iovlen = d->held > first ? 2 : 1;
	n = sendmsg(d->to, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n > 0) {
		d->held -= (size_t)n;
		d->boff = (d->boff + (size_t)n) % d->cap;
	}
	return n;
}

#endif

/*
 * store_open - @d's store, within the budget.  Returns 0, or -errno
 * (ENOBUFS: the budget has no room).
 */
static int store_open(struct proxy *px, struct rdir *d)
{
	size_t want = store_want(px);
	int rc;

	if (!want)
		return -ENOBUFS;
	rc = store_make(d, want);
	if (rc)
		return rc;
	account(px, d->cap, 0);
	if (px->relay_mem > px->relay_mem_max) {
		/* the kernel gave more than asked: give it back */
		store_free(px, d);
		return -ENOBUFS;
	}
	return 0;
}

/*
 * store_more - @d is full: double it while the stores' total stays within
 * half the budget, up to @px->relay_max.
 */
static void store_more(struct proxy *px, struct rdir *d)
{
	size_t old = d->cap, want = 2 * old;

	if (want > px->relay_max || px->relay_mem + old > px->relay_mem_max / 2)
		return;
	if (store_grow(d, want) != 0)
		return;
	account(px, d->cap, old);
	px->stats.relay_grown++;
}

static void dir_free(struct proxy *px, struct rdir *d)
{
	store_free(px, d);
	free(d->pend);
	d->pend = NULL;
	d->plen = d->poff = d->pcap = 0;
}

void relay_free(struct pconn *pc)
{
	dir_free(pc->px, &pc->c2u);
	dir_free(pc->px, &pc->u2c);
}

int relay_prepare(struct pconn *pc)
{
	int rc = store_open(pc->px, &pc->c2u);

	if (!rc)
		rc = store_open(pc->px, &pc->u2c);
	if (rc) {
		relay_free(pc);
		pc->px->stats.relay_refused++;
	}
	return rc;
}

static void pend_add(struct rdir *d, const unsigned char *p, size_t n)
{
	if (!n)
		return;
	if (d->plen + n > d->pcap) {
		d->pcap = d->plen + n;
		d->pend = xrealloc(d->pend, d->pcap);
	}
	memcpy(d->pend + d->plen, p, n);
	d->plen += n;
}

/*
 * sni_decide - the SNI check on the held client bytes.  Returns 1 when
 * the bytes may go, 0 when more are needed, -1 when the tunnel must close
 * (logged).
 */
static int sni_decide(struct pconn *pc)
{
	struct rdir *d = &pc->c2u;
	char name[256], *hp, *err = NULL;
	struct net_target sq;
	struct verdict v;
	struct bbuf b;
	int rc;

	if (!d->plen && d->eof)
		return 1;	/* a silent client: nothing to check */
	switch (sni_parse(d->pend, d->plen, name, sizeof(name))) {
	case SNI_NEED_MORE:
		if (d->eof) {
			pc_abort(pc, "the client ended inside a TLS ClientHello");
			return -1;
		}
		return 0;
	case SNI_NOT_TLS:
	case SNI_NONE:
		return 1;
	case SNI_BAD:
		pc_abort(pc, "malformed TLS ClientHello");
		return -1;
	case SNI_NOT_FIRST:
		pc_abort(pc, "a TLS record before the ClientHello");
		return -1;
	case SNI_FOUND:
		break;
	default:
		BUG("bad sni result");
	}
	/* @name is at most 253 bytes of [a-z0-9._-] (sni.c) */
	bbuf_init_heap(&b, 1024);
	if (pc->q.kind == HOST_NAME ||
	    (pc->q.kind == HOST_LOOPBACK && !strchr(pc->q.host, ':') &&
	     !(pc->q.host[0] >= '0' && pc->q.host[0] <= '9'))) {
		if (!strcmp(name, pc->q.host)) {
			bbuf_free(&b);
			return 1;
		}
		bbuf_printf(&b, "TLS server name '%s' is not the judged host '",
			    name);
		bbuf_put_printable(&b, pc->q.host, strlen(pc->q.host));
		bbuf_putc(&b, '\'');
		pc_abort(pc, b.s);
		bbuf_free(&b);
		return -1;
	}
	/* an address target: the server name must be allowed too */
	hp = xasprintf("%s:%u", name, pc->q.port);
	rc = net_query_parse(hp, &sq, &err);
	free(hp);
	if (rc != 0) {
		bbuf_printf(&b, "TLS server name '%s': ", name);
		bbuf_put_printable(&b, err, strlen(err));
		free(err);
		pc_abort(pc, b.s);
		bbuf_free(&b);
		return -1;
	}
	judge_query(pc->px->judge, &sq, &v);
	verdict_format(pc->px->judge, &v, NULL, &b);
	pc_log(pc, "%s: TLS server name: net %s: %s%s", pc->what, sq.text, b.s,
	       bbuf_ok(&b) ? "" : "...");
	net_target_free(&sq);
	bbuf_free(&b);
	if (v.allow)
		return 1;
	pc_abort(pc, "TLS server name not allowed");
	return -1;
}

/*
 * dir_pump - move what can move in @d.  Returns 0, or -1 after the
 * connection was aborted (@pc is gone).
 */
static int dir_pump(struct pconn *pc, struct rdir *d, bool hold)
{
	int round;
	ssize_t n;

	for (round = 0; round < RELAY_ROUNDS; round++) {
		bool progress = false;

		if (!hold) {
			while (d->poff < d->plen) {
				n = send(d->to, d->pend + d->poff,
					 d->plen - d->poff,
					 MSG_NOSIGNAL | MSG_DONTWAIT);
				if (n < 0) {
					if (errno == EINTR)
						continue;
					if (errno == EAGAIN)
						break;
					goto fail;
				}
				d->poff += (size_t)n;
				progress = true;
			}
			if (d->plen && d->poff == d->plen) {
				free(d->pend);
				d->pend = NULL;
				d->plen = d->poff = d->pcap = 0;
			}
			while (!d->plen && d->held) {
				n = store_drain(d);
				if (n < 0) {
					if (errno == EINTR)
						continue;
					if (errno == EAGAIN)
						break;
					goto fail;
				}
				progress = true;
			}
		}
		if (!d->eof && hold) {
			unsigned char buf[4096];

			if (d->plen >= SNI_MAX_HELLO) {
				pc_abort(pc, "TLS ClientHello too large");
				return -1;
			}
			n = recv(d->from, buf,
				 sizeof(buf) < SNI_MAX_HELLO - d->plen ?
					 sizeof(buf) :
					 SNI_MAX_HELLO - d->plen,
				 0);
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				goto fail;
			if (n == 0)
				d->eof = true;
			if (n > 0)
				pend_add(d, buf, (size_t)n);
			if (n >= 0) {
				int rc = sni_decide(pc);

				if (rc < 0)
					return -1;
				if (rc > 0) {
					pc->sni_wait = false;
					hold = false;
				}
				progress = true;
			}
		} else if (!d->eof && !d->plen && d->held < d->cap) {
			n = store_fill(d, d->cap - d->held);
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				goto fail;
			if (n == 0)
				d->eof = true;
			if (n >= 0)
				progress = true;
			if (d->held == d->cap)
				store_more(pc->px, d);
		}
		if (d->eof && !d->shut && !hold && !d->plen && !d->held) {
			if (shutdown(d->to, SHUT_WR) != 0 && errno != ENOTCONN)
				goto fail;
			d->shut = true;
		}
		if (!progress)
			break;
	}
	return 0;
fail:
	pc_abort(pc, strerror(errno));
	return -1;
}

void relay_pump(struct pconn *pc)
{
	pc_touch(pc);
	if (dir_pump(pc, &pc->u2c, false) < 0)
		return;
	if (dir_pump(pc, &pc->c2u, pc->sni_wait) < 0)
		return;
	if (pc->c2u.shut && pc->u2c.shut) {
		pc_free(pc);	/* both ends closed cleanly */
		return;
	}
	pc_events(pc);
}

void relay_events(struct pconn *pc, uint32_t *cev, uint32_t *uev)
{
	struct rdir *c = &pc->c2u, *u = &pc->u2c;
	bool c_read, u_read;

	/* the stores are made before the tunnel starts (relay_prepare()) */
	c_read = !c->eof && (pc->sni_wait || (!c->plen && c->held < c->cap));
	u_read = !u->eof && !u->plen && u->held < u->cap;
	*cev = (c_read ? LOOP_IN : 0) |
	       ((u->plen > u->poff || u->held) ? LOOP_OUT : 0);
	*uev = (u_read ? LOOP_IN : 0) |
	       (!pc->sni_wait && (c->plen > c->poff || c->held) ? LOOP_OUT : 0);
}

void relay_start(struct pconn *pc, const unsigned char *prefix, size_t n)
{
	dir_init(&pc->c2u, pc->cfd, pc->ufd);
	dir_init(&pc->u2c, pc->ufd, pc->cfd);
	/* the reply to the client (in @out) goes first, then early server
	 * bytes; early client bytes wait for the SNI check */
	if (pc->out) {
		pend_add(&pc->u2c, (unsigned char *)pc->out + pc->outoff,
			 pc->outlen - pc->outoff);
		free(pc->out);
		pc->out = NULL;
		pc->outlen = pc->outoff = 0;
	}
	pend_add(&pc->u2c, prefix, n);
	pend_add(&pc->c2u, pc->in, pc->inlen);
	free(pc->in);
	pc->in = NULL;
	pc->inlen = 0;
	/* a plain forward is not a proxy tunnel: nothing to check */
	pc->sni_wait = pc->proto != PROXY_FORWARD;
	pc->state = PC_TUNNEL;
	if (pc->sni_wait && pc->c2u.plen) {
		int rc = sni_decide(pc);

		if (rc < 0)
			return;
		pc->sni_wait = rc == 0;
	}
	relay_pump(pc);
}

int relay_ready(struct pconn *pc)
{
	int rc = relay_prepare(pc);
	const char *text;

	if (!rc)
		return 0;
	text = rc == -ENOBUFS ? "no room for another tunnel (the proxy's "
				"tunnel memory is spent)" :
				"no room for another tunnel (out of file "
				"descriptors)";
	pc_log(pc, "%s: %s", pc->what, text);
	pc->ops->refuse(pc, FAIL_RESOURCE, text);
	return -1;
}

/* ---- the operations of a plain forward (pconn.h) --------------------- */

/* A forward reads no request: it dials at once (pc_accepted()). */
static void forward_request(struct pconn *pc)
{
	pc_abort(pc, "a forward reads no request");
}

/* A plain forward has no way to say why: it is reset. */
static void forward_refuse(struct pconn *pc, enum pc_fail f, const char *text)
{
	(void)f;
	(void)text;
	pc_abort(pc, NULL);
}

static void forward_deny(struct pconn *pc, const struct verdict *v,
			 const char *addr, const char *body)
{
	(void)v;
	(void)addr;
	(void)body;
	pc_abort(pc, NULL);
}

static void forward_established(struct pconn *pc, const unsigned char *extra,
				size_t n)
{
	if (relay_ready(pc) < 0)
		return;
	relay_start(pc, extra, n);
}

const struct pc_ops forward_ops = {
	.on_request = forward_request,
	.refuse = forward_refuse,
	.deny = forward_deny,
	.established = forward_established,
	.events = relay_events,
	.pump = relay_pump,
	.release = relay_free,
};
