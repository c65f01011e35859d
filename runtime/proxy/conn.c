/* SPDX-License-Identifier: MIT */
/*
 * conn.c - the life of a client connection, from the listener that
 * accepted it (listen.c) to its end: its events and deadlines, judging,
 * resolution, dialling, the upstream handshake (proxy.h, pconn.h).
 * What the protocol does (a request read, a refusal, an established
 * tunnel or exchange) goes through the connection's operations (struct
 * pc_ops: http.c, socks.c, relay.c's forward); what every part does
 * with the connection is pconn.c's.
 */
#include <vbox.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bbuf.h"
#include "compat.h"
#include "pconn.h"

/* fail - the target cannot be served: refused as the protocol says it */
static void fail(struct pconn *pc, enum pc_fail f, const char *text)
{
	pc->ops->refuse(pc, f, text);
}

/*
 * deny - refuse a target the table denied (@v; @addr: the refused
 * address, for a forbidden class), with @body as the 403's text: the
 * decision goes to the proxy's deny callback (vbox-exec's notice) and,
 * on the HTTP endpoint, into the reason phrase and X-Vbox-Decision.
 */
static void deny(struct pconn *pc, const struct verdict *v,
		 const char *addr, const char *body)
{
	const struct judge *j = pc->px->judge;
	struct bbuf what, why;
	size_t mlen;

	if (pc->px->deny) {
		bbuf_init_heap(&what, PROXY_DENY_TEXT_MAX);
		if (pc->proto == PROXY_HTTP) {
			/* pc->what is "METHOD TARGET", printable already */
			mlen = strcspn(pc->what, " ");
			bbuf_put_printable(&what, pc->what,
					   mlen < 32 ? mlen : 32);
		} else {
			bbuf_puts(&what, pc->proto == PROXY_SOCKS5 ? "SOCKS5" :
								  "forward");
		}
		bbuf_putc(&what, ' ');
		bbuf_put_printable(&what, pc->q.text, strlen(pc->q.text));
		bbuf_init_heap(&why, PROXY_DENY_TEXT_MAX);
		verdict_brief(j, v, addr, &why);
		if (bbuf_ok(&what) && bbuf_ok(&why))
			pc->px->deny(pc->px->deny_ctx, what.s, why.s);
		else
			pc->px->deny(pc->px->deny_ctx, "(a long target)",
				     "--log shows it");
		bbuf_free(&what);
		bbuf_free(&why);
	}
	pc->ops->deny(pc, v, addr, body);
}

/* ---- dialling ------------------------------------------------------ */

static void established(struct pconn *pc, const unsigned char *extra,
			size_t n)
{
	/* @extra may point into pc->ubuf; @pc may be gone after the
	 * protocol starts the relay or the exchange, so nothing touches it
	 * after that */
	unsigned char *ubuf = pc->ubuf;
	int one = 1;

	pc->ubuf = NULL;

	(void)setsockopt(pc->ufd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	(void)setsockopt(pc->cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	free(pc->hs);
	pc->hs = NULL;
	pc_touch(pc);
	pc_arm(pc, pc->px->limits.idle_ms);
	pc->ops->established(pc, extra, n);
	free(ubuf);
}
static void dial_next(struct pconn *pc);

static void uphs_send(struct pconn *pc)
{
	while (pc->hs->nout) {
		ssize_t n = send(pc->ufd, pc->hs->out, pc->hs->nout,
				 MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			pc->err = errno;
			fail(pc, FAIL_UPSTREAM, "the upstream proxy went away");
			return;
		}
		memmove(pc->hs->out, pc->hs->out + n, pc->hs->nout - (size_t)n);
		pc->hs->nout -= (size_t)n;
	}
	pc_events(pc);
}

static void uphs_read(struct pconn *pc)
{
	const char *why = NULL;
	size_t used;
	ssize_t n;
	int rc;

	if (!pc->ubuf)
		pc->ubuf = xmalloc(PC_HEAD_MAX);
	n = recv(pc->ufd, pc->ubuf + pc->ubuflen, PC_HEAD_MAX - pc->ubuflen,
		 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		pc->err = n < 0 ? errno : ECONNRESET;
		pc_log(pc, "%s: upstream proxy closed the handshake",
		       pc->what);
		fail(pc, FAIL_UPSTREAM, "the upstream proxy closed");
		return;
	}
	pc->ubuflen += (size_t)n;
	for (;;) {
		rc = upstream_feed(pc->hs, pc->ubuf, pc->ubuflen, &used, &why);
		if (rc < 0) {
			pc_log(pc, "%s: upstream: %s", pc->what, why);
			fail(pc, FAIL_UPSTREAM, why);
			return;
		}
		memmove(pc->ubuf, pc->ubuf + used, pc->ubuflen - used);
		pc->ubuflen -= used;
		if (rc > 0) {
			established(pc, pc->ubuf, pc->ubuflen);
			return;
		}
		if (pc->hs->nout) {
			uphs_send(pc);
			return;
		}
		if (!used)
			break;
	}
	if (pc->ubuflen == PC_HEAD_MAX)
		fail(pc, FAIL_UPSTREAM, "upstream reply too large");
}

static void connected(struct pconn *pc)
{
	const struct upstream *up = pc->px->up;

	if (!up) {
		established(pc, NULL, 0);
		return;
	}
	if (up->kind == UP_HTTP && !pc->tunnel) {
		/* plain HTTP goes to an HTTP upstream in absolute form */
		established(pc, NULL, 0);
		return;
	}
	pc->hs = xmalloc(sizeof(*pc->hs));
	if (upstream_start(pc->hs, up, pc->q.host, pc->q.port,
			   up->kind == UP_SOCKS5 ?
				   (struct sockaddr *)&pc->target_addr :
				   NULL) != 0) {
		/* A target the handshake cannot carry: say so now rather
		 * than at the handshake's timeout. */
		fail(pc, FAIL_UPSTREAM, pc->hs->why ? pc->hs->why :
				"the upstream handshake cannot be made");
		return;
	}
	pc->state = PC_UPHS;
	pc_arm(pc, pc->px->limits.handshake_ms);
	uphs_send(pc);
}

static void on_upstream(struct loop *lp, struct loop_watch *w,
			uint32_t events)
{
	struct pconn *pc = w->ctx;
	int err = 0;
	socklen_t len = sizeof(err);

	(void)lp;
	if ((events & LOOP_ERR) &&
	    (pc->state == PC_TUNNEL || pc->state == PC_HTTP)) {
		pc_abort(pc, "the server's connection failed");
		return;
	}
	switch (pc->state) {
	case PC_DIAL:
		if (getsockopt(pc->ufd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
			err = errno;
		if (err) {
			pc->err = err;
			pc_close_upstream(pc);
			pc->iaddr++;
			dial_next(pc);
			return;
		}
		connected(pc);
		return;
	case PC_UPHS:
		if (events & LOOP_OUT)
			uphs_send(pc);
		else
			uphs_read(pc);
		return;
	case PC_TUNNEL:
	case PC_HTTP:
		pc->ops->pump(pc);
		return;
	case PC_READ_REQ:
	case PC_WRITE:
	case PC_RESOLVE:
	case PC_LINGER:
	default:
		/* an outbound socket with nothing to do: it hung up */
		pc_close_upstream(pc);
		return;
	}
}

static void dial_next(struct pconn *pc)
{
	struct loop *lp = pc->px->lp;
	char *text;

	for (; pc->iaddr < pc->naddrs; pc->iaddr++) {
		const struct sockaddr_storage *ss = &pc->addrs[pc->iaddr];
		socklen_t len = ss->ss_family == AF_INET ?
					sizeof(struct sockaddr_in) :
					sizeof(struct sockaddr_in6);
		int fd = compat_socket(ss->ss_family);

		if (fd < 0) {
			pc->err = errno;
			continue;
		}
		if (connect(fd, (const struct sockaddr *)ss, len) != 0 &&
		    errno != EINPROGRESS) {
			pc->err = errno;
			close(fd);
			continue;
		}
		pc->ufd = fd;
		loop_watch_init(&pc->uw, fd, on_upstream, pc);
		if (loop_watch_add(lp, &pc->uw, LOOP_OUT) != 0) {
			pc->err = errno;
			close(fd);
			pc->ufd = -1;
			continue;
		}
		pc->state = PC_DIAL;
		pc_arm(pc, pc->px->limits.connect_ms);
		pc_events(pc);
		return;
	}
	text = xasprintf("cannot connect: %s",
			 strerror(pc->err ? pc->err : ECONNREFUSED));
	pc_log(pc, "%s: %s", pc->what, text);
	fail(pc, FAIL_CONNECT, text);
	free(text);
}

/* start_dial - dial the target addresses, or the upstream proxy's */
static void start_dial(struct pconn *pc)
{
	const struct upstream *up = pc->px->up;
	unsigned i;

	if (up) {
		if (pc->naddrs)
			pc->target_addr = pc->addrs[0];
		for (i = 0; i < up->naddr && i < PC_MAX_ADDRS; i++)
			pc->addrs[i] = up->addr[i];
		pc->naddrs = i;
	}
	pc->iaddr = 0;
	pc->err = 0;
	dial_next(pc);
}

/* addr_text - @ss's address as text into @ip */
static void addr_text(const struct sockaddr_storage *ss,
		      char ip[INET6_ADDRSTRLEN])
{
	const void *a = ss->ss_family == AF_INET ?
		(const void *)&((const struct sockaddr_in *)ss)->sin_addr :
		(const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;

	if (!inet_ntop(ss->ss_family, a, ip, INET6_ADDRSTRLEN))
		strcpy(ip, "(address)");
}

/*
 * judge_addrs - keep only the authorised addresses of @cand; log and
 * refuse when none is left.  Returns true when some are.
 */
static bool judge_addrs(struct pconn *pc,
			const struct sockaddr_storage *cand, unsigned n)
{
	const struct judge *j = pc->px->judge;
	char text[INET6_ADDRSTRLEN], ftext[INET6_ADDRSTRLEN];
	struct bbuf first, line;
	struct verdict v, fv;
	unsigned i;

	bbuf_init_heap(&first, PC_TEXT_MAX);
	pc->naddrs = 0;
	for (i = 0; i < n; i++) {
		judge_addr(j, (const struct sockaddr *)&cand[i], &v);
		if (v.allow) {
			if (pc->naddrs < PC_MAX_ADDRS)
				pc->addrs[pc->naddrs++] = cand[i];
			continue;
		}
		addr_text(&cand[i], text);
		bbuf_init_heap(&line, PC_TEXT_MAX);
		verdict_format(j, &v, text, &line);
		pc_log(pc, "%s: address %s: %s%s", pc->what, text, line.s,
		       bbuf_ok(&line) ? "" : "...");
		if (!first.len) {
			bbuf_printf(&first, "net %s (address %s): %s%s",
				    pc->q.text, text, line.s,
				    bbuf_ok(&line) ? "" : "...");
			fv = v;
			memcpy(ftext, text, sizeof(ftext));
		}
		bbuf_free(&line);
	}
	if (pc->naddrs) {
		bbuf_free(&first);
		return true;
	}
	if (first.len)
		deny(pc, &fv, ftext, first.s);
	else
		fail(pc, FAIL_DENIED, "no address");
	bbuf_free(&first);
	return false;
}

static void on_resolved(void *ctx, const struct dns_answer *ans)
{
	struct pconn *pc = ctx;
	char *text;

	pc->dq = NULL;
	if (ans->status != 0) {
		/* pc->q.host is a normalized name (netaddr.c) */
		text = xasprintf("cannot resolve '%s': %s", pc->q.host,
				 dns_strerror(ans->status));
		pc_log(pc, "%s: %s", pc->what, text);
		fail(pc, FAIL_RESOLVE, text);
		free(text);
		return;
	}
	if (!judge_addrs(pc, ans->addr, ans->n))
		return;
	start_dial(pc);
}

static bool literal_addr(const struct net_target *q, const char *host,
			 struct sockaddr_storage *ss)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(q->port);
		return true;
	}
	if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(q->port);
		return true;
	}
	return false;
}

void pc_go(struct pconn *pc, const char *hostport)
{
	const struct judge *j = pc->px->judge;
	const struct upstream *up = pc->px->up;
	struct sockaddr_storage cand[2];
	char *err = NULL;
	struct verdict v;
	struct bbuf line;
	unsigned n = 0;

	if (pc->have_q)
		net_target_free(&pc->q);
	pc->have_q = false;
	bbuf_init_heap(&line, PC_TEXT_MAX);
	if (strchr(hostport, '@') ||
	    net_query_parse(hostport, &pc->q, &err) != 0 ||
	    pc->q.any_port) {
		/* @hostport is the client's: printable only */
		bbuf_puts(&line, "bad target '");
		bbuf_put_printable(&line, hostport, strlen(hostport));
		bbuf_putc(&line, '\'');
		if (err) {
			bbuf_puts(&line, ": ");
			bbuf_put_printable(&line, err, strlen(err));
		}
		free(err);
		pc_log(pc, "%s: %s%s", pc->what, line.s,
		       bbuf_ok(&line) ? "" : "...");
		fail(pc, FAIL_TARGET, bbuf_ok(&line) ? line.s : "bad target");
		bbuf_free(&line);
		return;
	}
	pc->have_q = true;
	judge_query(j, &pc->q, &v);
	verdict_format(j, &v, NULL, &line);
	if (!bbuf_ok(&line)) {
		/* a row's source beyond any sane length: say less */
		bbuf_free(&line);
		bbuf_init_heap(&line, PC_TEXT_MAX);
		bbuf_printf(&line, "%s by row %d", v.allow ? "allow" : "deny",
			    v.row);
	}
	if (strcmp(hostport, pc->q.text)) {
		struct bbuf hp;

		bbuf_init_heap(&hp, PC_TEXT_MAX);
		bbuf_put_printable(&hp, hostport, strlen(hostport));
		pc_log(pc, "%s: net %s (as %s): %s", pc->what, hp.s,
		       pc->q.text, line.s);
		bbuf_free(&hp);
	} else
		pc_log(pc, "%s: net %s: %s", pc->what, pc->q.text, line.s);
	if (!v.allow) {
		char *body = xasprintf("net %s: %s", pc->q.text, line.s);

		bbuf_free(&line);
		deny(pc, &v, NULL, body);
		free(body);
		return;
	}
	bbuf_free(&line);
	if (pc->q.kind == HOST_NAME) {
		if (up && up->kind != UP_SOCKS5) {
			/* the upstream resolves; nothing to judge here */
			pc->naddrs = 0;
			start_dial(pc);
			return;
		}
		pc->state = PC_RESOLVE;
		pc_arm(pc, pc->px->limits.handshake_ms);
		pc_events(pc);
		pc->dq = dns_resolve(&pc->px->dns, pc->q.host, pc->q.port,
				     on_resolved, pc);
		return;
	}
	if (literal_addr(&pc->q, pc->q.host, &cand[0])) {
		n = 1;
	} else {
		/* a loopback-class name: localhost, *.localhost */
		literal_addr(&pc->q, "127.0.0.1", &cand[0]);
		literal_addr(&pc->q, "::1", &cand[1]);
		n = 2;
	}
	if (!judge_addrs(pc, cand, n))
		return;
	start_dial(pc);
}

/* ---- client events, deadlines, accept ------------------------------ */

static void read_client(struct pconn *pc)
{
	ssize_t n;

	if (pc->inlen == PC_IN_CAP) {
		pc_abort(pc, "request too large");
		return;
	}
	n = recv(pc->cfd, pc->in + pc->inlen, PC_IN_CAP - pc->inlen, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		/* the client left between requests: a normal end */
		pc_free(pc);
		return;
	}
	pc->inlen += (size_t)n;
	pc->ops->on_request(pc);
}

static void on_client(struct loop *lp, struct loop_watch *w, uint32_t events)
{
	struct pconn *pc = w->ctx;
	char junk[4096];
	int rc;

	(void)lp;
	if ((events & LOOP_ERR) && pc->state == PC_READ_REQ && !pc->inlen) {
		/*
		 * The client left between requests, with a reset: a client
		 * that closes with our last reply's body unread (curl after
		 * a refused CONNECT) resets the connection.  A normal end,
		 * as a close there is (read_client()).
		 */
		pc_free(pc);
		return;
	}
	if ((events & LOOP_ERR) && pc->state != PC_LINGER) {
		pc_abort(pc, "the client's connection failed");
		return;
	}
	switch (pc->state) {
	case PC_READ_REQ:
		read_client(pc);
		return;
	case PC_WRITE:
		rc = pc_write_out(pc);
		if (rc < 0)
			pc_free(pc);
		else if (rc > 0)
			pc_after_out(pc);
		return;
	case PC_LINGER: {
		ssize_t n = recv(pc->cfd, junk, sizeof(junk), 0);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			pc_free(pc);
		return;
	}
	case PC_TUNNEL:
	case PC_HTTP:
		pc->ops->pump(pc);
		return;
	case PC_RESOLVE:
	case PC_DIAL:
	case PC_UPHS:
		if (events & (LOOP_HUP | LOOP_ERR))
			pc_abort(pc, "the client went away");
		return;
	default:
		BUG("bad state %d", (int)pc->state);
	}
}

static void on_timer(struct loop *lp, struct loop_timer *t)
{
	struct pconn *pc = t->ctx;
	double now = loop_now_ms();

	(void)lp;
	switch (pc->state) {
	case PC_TUNNEL:
	case PC_HTTP:
		if (now - pc->last_ms < pc->px->limits.idle_ms) {
			loop_timer_arm(lp, t, pc->last_ms +
					      pc->px->limits.idle_ms);
			return;
		}
		pc_abort(pc, "idle limit");
		return;
	case PC_DIAL:
		pc->err = ETIMEDOUT;
		pc_close_upstream(pc);
		pc->iaddr++;
		dial_next(pc);
		return;
	case PC_RESOLVE:
	case PC_UPHS:
		pc_log(pc, "%s: timed out", pc->what);
		fail(pc, FAIL_TIMEOUT, "timed out");
		return;
	case PC_READ_REQ:
		if (pc->kick) {
			pc->kick = false;
			pc_arm(pc, pc->px->limits.handshake_ms);
			pc->ops->on_request(pc);
			return;
		}
		pc_free(pc);
		return;
	case PC_WRITE:
	case PC_LINGER:
		pc_free(pc);
		return;
	default:
		BUG("bad state %d", (int)pc->state);
	}
}

/* ---- a new connection ------------------------------------------------ */

void pc_accepted(struct proxy *px, int fd, enum proxy_proto proto,
		 const struct pc_ops *ops, uint16_t port)
{
	struct pconn *pc;

	pc = xcalloc(1, sizeof(*pc));
	pc->px = px;
	pc->proto = proto;
	pc->ops = ops;
	pc->cfd = fd;
	pc->ufd = -1;
	pc->c2u.pipe[0] = pc->c2u.pipe[1] = -1;
	pc->u2c.pipe[0] = pc->u2c.pipe[1] = -1;
	pc->in = xmalloc(PC_IN_CAP);
	loop_watch_init(&pc->cw, fd, on_client, pc);
	loop_timer_init(&pc->tm, on_timer, pc);
	pc->next = px->conns;
	if (px->conns)
		px->conns->prev = pc;
	px->conns = pc;
	px->nconns++;
	if (loop_watch_add(px->lp, &pc->cw, LOOP_IN) != 0) {
		loop_watch_init(&pc->cw, -1, NULL, NULL);
		close(fd);
		pc->cfd = -1;
		pc_free(pc);
		return;
	}
	pc->state = PC_READ_REQ;
	pc_arm(pc, px->limits.handshake_ms);
	if (proto == PROXY_FORWARD) {
		char hp[sizeof("localhost:65535")];
		struct bbuf b;

		pc->tunnel = true;
		bbuf_init_fixed(&b, hp, sizeof(hp));
		bbuf_printf(&b, "localhost:%u", port);
		memcpy(pc->what, "forward ", 8);
		memcpy(pc->what + 8, hp, b.len + 1);
		/* no client bytes are read until the tunnel is up */
		pc->state = PC_RESOLVE;
		pc_events(pc);
		pc_go(pc, hp);
	}
}
