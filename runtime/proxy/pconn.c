/* SPDX-License-Identifier: MIT */
/*
 * pconn.c - what every part of the proxy does with one client connection
 * (pconn.h): its log lines, its deadline, the events it waits for, a
 * reply written and what follows it (the next request, or a linger and
 * the close), a reset, and its end.  The lowest file of a connection:
 * conn.c (judging, dialling), the protocols (http.c, socks.c) and the
 * relay (relay.c) use it, and it calls them only through the
 * connection's own operations (struct pc_ops).
 */
#include <vbox.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bbuf.h"
#include "pconn.h"

/* Linger after our last reply: enough for a client to read it. */
#define PC_LINGER_MS 2000.0

/*
 * A log line's bound.  Its parts are bounded already (a request as
 * pc->what, a name of 253 bytes, a verdict with its row's source), so
 * only a plan with a very long source path could pass it.
 */
#define PC_LOG_MAX 16384

static const char *proto_name(enum proxy_proto p)
{
	return p == PROXY_HTTP ? "http" : p == PROXY_SOCKS5 ? "socks5" :
							       "forward";
}

void pc_log(struct pconn *pc, const char *fmt, ...)
{
	struct bbuf b;
	va_list ap;

	if (!pc->px->log)
		return;
	bbuf_init_heap(&b, PC_LOG_MAX);
	bbuf_printf(&b, "proxy[%s]: ", proto_name(pc->proto));
	va_start(ap, fmt);
	bbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (bbuf_ok(&b))
		pc->px->log(pc->px->log_ctx, b.s);
	else
		pc->px->log(pc->px->log_ctx, "proxy: a log line of more than "
					     "16384 bytes was dropped");
	bbuf_free(&b);
}

void px_log(struct proxy *px, const char *fmt, ...)
{
	struct bbuf b;
	va_list ap;

	if (!px->log)
		return;
	bbuf_init_heap(&b, PC_LOG_MAX);
	bbuf_puts(&b, "proxy: ");
	va_start(ap, fmt);
	bbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (bbuf_ok(&b))
		px->log(px->log_ctx, b.s);
	bbuf_free(&b);
}

void pc_touch(struct pconn *pc)
{
	pc->last_ms = loop_now_ms();
}

void pc_arm(struct pconn *pc, double ms)
{
	loop_timer_arm(pc->px->lp, &pc->tm, loop_now_ms() + ms);
}

void pc_close_upstream(struct pconn *pc)
{
	if (pc->ufd < 0)
		return;
	loop_watch_remove(pc->px->lp, &pc->uw);
	close(pc->ufd);
	pc->ufd = -1;
}

void pc_free(struct pconn *pc)
{
	struct proxy *px = pc->px;

	if (pc->dq)
		dns_cancel(pc->dq);
	loop_timer_cancel(px->lp, &pc->tm);
	if (pc->ops)
		pc->ops->release(pc);
	pc_close_upstream(pc);
	if (pc->cfd >= 0) {
		loop_watch_remove(px->lp, &pc->cw);
		close(pc->cfd);
	}
	if (pc->have_q)
		net_target_free(&pc->q);
	free(pc->hs);
	free(pc->ubuf);
	free(pc->in);
	free(pc->out);
	if (pc->prev)
		pc->prev->next = pc->next;
	else
		px->conns = pc->next;
	if (pc->next)
		pc->next->prev = pc->prev;
	px->nconns--;
	free(pc);
	/* its fds are free: a listener set aside for want of them is
	 * watched again (listen.c) */
	if (px->fds_freed)
		px->fds_freed(px);
}

static void reset_fd(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (fd >= 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
}

/*
 * pc_abort - end both sides with a reset, so that neither peer can take
 * a cut-short stream for a complete one.
 */
void pc_abort(struct pconn *pc, const char *why)
{
	if (why)
		pc_log(pc, "%s: connection reset: %s",
		       pc->what[0] ? pc->what : "(no request)", why);
	reset_fd(pc->cfd);
	reset_fd(pc->ufd);
	pc_free(pc);
}

static void linger_start(struct pconn *pc)
{
	pc_close_upstream(pc);
	if (shutdown(pc->cfd, SHUT_WR) != 0) {
		pc_free(pc);
		return;
	}
	pc->state = PC_LINGER;
	pc_arm(pc, PC_LINGER_MS);
	pc_events(pc);
}

void pc_events(struct pconn *pc)
{
	struct loop *lp = pc->px->lp;
	uint32_t cev = 0, uev = 0;

	switch (pc->state) {
	case PC_READ_REQ:
	case PC_LINGER:
		cev = LOOP_IN;
		break;
	case PC_WRITE:
		cev = LOOP_OUT;
		break;
	case PC_RESOLVE:
		break;
	case PC_DIAL:
		uev = LOOP_OUT;
		break;
	case PC_UPHS:
		uev = pc->hs->nout ? LOOP_OUT : LOOP_IN;
		break;
	case PC_TUNNEL:
	case PC_HTTP:
		pc->ops->events(pc, &cev, &uev);
		break;
	default:
		BUG("bad state %d", (int)pc->state);
	}
	if (pc->cfd >= 0 && loop_watch_modify(lp, &pc->cw, cev) != 0)
		BUG("loop_watch_modify failed");
	if (pc->ufd >= 0 && pc->uw.active &&
	    loop_watch_modify(lp, &pc->uw, uev) != 0)
		BUG("loop_watch_modify failed");
}

/* write_out - write the pending reply; true when it is all written */
int pc_write_out(struct pconn *pc)
{
	while (pc->outoff < pc->outlen) {
		ssize_t n = send(pc->cfd, pc->out + pc->outoff,
				 pc->outlen - pc->outoff, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -1;
		}
		pc->outoff += (size_t)n;
	}
	free(pc->out);
	pc->out = NULL;
	pc->outlen = pc->outoff = 0;
	return 1;
}

void pc_read_next(struct pconn *pc)
{
	pc->state = PC_READ_REQ;
	pc->what[0] = '\0';
	if (pc->have_q) {
		net_target_free(&pc->q);
		pc->have_q = false;
	}
	pc->naddrs = pc->iaddr = 0;
	/* the next request may be buffered already: parse it from the
	 * loop, not from inside this call chain */
	pc->kick = pc->inlen > 0;
	pc_arm(pc, pc->kick ? 0 : pc->px->limits.idle_ms);
	pc_events(pc);
}

void pc_after_out(struct pconn *pc)
{
	if (pc->after == AFTER_CLOSE)
		linger_start(pc);
	else
		pc_read_next(pc);
}

void pc_reply(struct pconn *pc, const char *bytes, size_t n,
	      enum pc_after after)
{
	int rc;

	free(pc->out);
	pc->out = xmalloc(n);
	memcpy(pc->out, bytes, n);
	pc->outlen = n;
	pc->outoff = 0;
	pc->after = after;
	pc_close_upstream(pc);
	rc = pc_write_out(pc);
	if (rc < 0) {
		pc_free(pc);
		return;
	}
	if (rc > 0) {
		pc_after_out(pc);
		return;
	}
	pc->state = PC_WRITE;
	pc_arm(pc, pc->px->limits.handshake_ms);
	pc_events(pc);
}
