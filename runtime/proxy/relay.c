/* SPDX-License-Identifier: MIT */
/*
 * relay.c - tunnels: splice() from one socket through a pipe into the
 * other, one pipe per direction, so payload bytes never enter our
 * address space; a half-close is passed on once the pipe is drained, and
 * any error resets both sides.  Until the SNI check is decided the
 * client's first bytes are read into a buffer instead, and the server's
 * bytes flow at once (pconn.h).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pconn.h"
#include "sni.h"

/* Rounds per wake-up, so one busy tunnel cannot starve the others. */
#define RELAY_ROUNDS 16

static void dir_init(struct rdir *d, int from, int to)
{
	d->from = from;
	d->to = to;
	d->inpipe = 0;
	d->eof = d->shut = false;
}

static void dir_free(struct rdir *d)
{
	if (d->pipe[0] >= 0)
		close(d->pipe[0]);
	if (d->pipe[1] >= 0)
		close(d->pipe[1]);
	d->pipe[0] = d->pipe[1] = -1;
	free(d->pend);
	d->pend = NULL;
	d->plen = d->poff = d->pcap = 0;
}

void relay_free(struct pconn *pc)
{
	dir_free(&pc->c2u);
	dir_free(&pc->u2c);
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

/* pipe_cap - the capacity of @d's pipe, making it on first use */
static size_t pipe_cap(struct pconn *pc, struct rdir *d)
{
	int sz;

	if (d->pipe[0] >= 0)
		return d->cap;
	if (pipe2(d->pipe, O_NONBLOCK | O_CLOEXEC) != 0)
		return 0;	/* no pipe now (fds): nothing read, retried */
	if (pc->px->pipe_size)
		(void)fcntl(d->pipe[1], F_SETPIPE_SZ, pc->px->pipe_size);
	sz = fcntl(d->pipe[1], F_GETPIPE_SZ);
	d->cap = sz > 0 ? (size_t)sz : 65536;
	return d->cap;
}

/*
 * sni_decide - the SNI check on the held client bytes.  Returns 1 when
 * the bytes may go, 0 when more are needed, -1 when the tunnel must close
 * (logged).
 */
static int sni_decide(struct pconn *pc)
{
	struct rdir *d = &pc->c2u;
	char name[256], hp[300], line[400], *err = NULL;
	struct net_target sq;
	struct verdict v;

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
	case SNI_FOUND:
		break;
	default:
		BUG("bad sni result");
	}
	if (pc->q.kind == HOST_NAME ||
	    (pc->q.kind == HOST_LOOPBACK && !strchr(pc->q.host, ':') &&
	     !(pc->q.host[0] >= '0' && pc->q.host[0] <= '9'))) {
		if (!strcmp(name, pc->q.host))
			return 1;
		snprintf(line, sizeof(line),
			 "TLS server name '%s' is not the judged host '%s'",
			 name, pc->q.host);
		pc_abort(pc, line);
		return -1;
	}
	/* an address target: the server name must be allowed too */
	snprintf(hp, sizeof(hp), "%s:%u", name, pc->q.port);
	if (net_query_parse(hp, &sq, &err) != 0) {
		snprintf(line, sizeof(line), "TLS server name '%s': %s", name,
			 err);
		free(err);
		pc_abort(pc, line);
		return -1;
	}
	judge_query(pc->px->judge, &sq, &v);
	verdict_format(pc->px->judge, &v, NULL, line, sizeof(line));
	pc_log(pc, "%s: TLS server name: net %s: %s", pc->what, sq.text,
	       line);
	net_target_free(&sq);
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
		size_t cap;

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
			while (!d->plen && d->inpipe) {
				n = splice(d->pipe[0], NULL, d->to, NULL,
					   d->inpipe,
					   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
				if (n < 0) {
					if (errno == EINTR)
						continue;
					if (errno == EAGAIN)
						break;
					goto fail;
				}
				d->inpipe -= (size_t)n;
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
		} else if (!d->eof && !d->plen &&
			   d->inpipe < (cap = pipe_cap(pc, d))) {
			n = splice(d->from, NULL, d->pipe[1], NULL,
				   cap - d->inpipe,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				goto fail;
			if (n == 0)
				d->eof = true;
			if (n > 0)
				d->inpipe += (size_t)n;
			if (n >= 0)
				progress = true;
		}
		if (d->eof && !d->shut && !hold && !d->plen && !d->inpipe) {
			if (shutdown(d->to, SHUT_WR) != 0 && errno != ENOTCONN)
				goto fail;
			d->shut = true;
		}
		if (!progress)
			break;
	}
	return 0;
fail: {
		char why[128];

		snprintf(why, sizeof(why), "%s", strerror(errno));
		pc_abort(pc, why);
		return -1;
	}
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

	c_read = !c->eof && (pc->sni_wait ||
			     (!c->plen && (c->pipe[0] < 0 || c->inpipe < c->cap)));
	u_read = !u->eof && !u->plen && (u->pipe[0] < 0 || u->inpipe < u->cap);
	*cev = (c_read ? EPOLLIN : 0) |
	       ((u->plen > u->poff || u->inpipe) ? EPOLLOUT : 0);
	*uev = (u_read ? EPOLLIN : 0) |
	       (!pc->sni_wait && (c->plen > c->poff || c->inpipe) ? EPOLLOUT :
								    0);
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
