/* SPDX-License-Identifier: MIT */
/*
 * pconfig.c - the egress proxy process's configuration (pconfig.h).
 *
 * Layout, little-endian: "VBPX", u8 version, u8 flags (1: --log, 2: the
 * network posture allows), u64 t0 in microseconds, the two tokens as
 * strings, u8 port count and u16 ports, the upstream URL as a string
 * ("" for none), u32 row count, then per row in priority order: u8
 * allow, u8 level, u32 index, the target, u8 "has a source", the source.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "compat.h"
#include "ir.h"
#include "judge.h"
#include "pconfig.h"
#include "plan.h"
#include "planjudge.h"
#include "wire.h"

#define PCONFIG_MAGIC "VBPX"
#define PCONFIG_VERSION 1
#define PCONFIG_LOG 1u
#define PCONFIG_DEFAULT_ALLOW 2u
/* allow, level, index, target length, source flag */
#define PCONFIG_ROW_MIN_BYTES (1 + 1 + 4 + 4 + 1)

void pconfig_encode(struct wbuf *out, const struct pconfig *c,
		    const struct plan *p)
{
	const struct plan_row **by_prio;
	char *err = NULL;
	uint64_t t0_us;
	size_t i;

	by_prio = plan_net_by_prio(p, &err);
	if (!by_prio)
		BUG("pconfig_encode: %s (judge_from_plan checks this first)",
		    err);
	if (c->nports < 2 || c->nports > PCONFIG_MAX_PORTS)
		BUG("pconfig_encode: %zu ports", c->nports);
	wbuf_put(out, PCONFIG_MAGIC, 4);
	wbuf_u8(out, PCONFIG_VERSION);
	wbuf_u8(out, (c->log ? PCONFIG_LOG : 0) |
			     (p->default_net == EFFECT_ALLOW ?
				      PCONFIG_DEFAULT_ALLOW : 0));
	t0_us = c->t0_ms > 0 ? (uint64_t)(c->t0_ms * 1e3 + 0.5) : 0;
	wbuf_le(out, t0_us, 8);
	wbuf_string(out, c->token[PROXY_HTTP]);
	wbuf_string(out, c->token[PROXY_SOCKS5]);
	wbuf_u8(out, (unsigned)c->nports);
	for (i = 0; i < c->nports; i++)
		wbuf_u16(out, c->ports[i]);
	wbuf_string(out, c->upstream ? c->upstream : "");
	wbuf_u32(out, (uint32_t)p->nnet);
	for (i = 0; i < p->nnet; i++) {
		const struct plan_row *r = by_prio[i];

		wbuf_u8(out, r->effect == EFFECT_ALLOW);
		wbuf_u8(out, r->level);
		wbuf_u32(out, r->index);
		wbuf_string(out, r->target);
		wbuf_u8(out, r->source != NULL);
		wbuf_string(out, r->source ? r->source : "");
	}
	free(by_prio);
}

static int read_token(struct wire_reader *r, char *out, const char *what)
{
	char *s = NULL;

	if (wire_string(r, &s, what))
		return -1;
	if (strlen(s) != PROXY_TOKEN_LEN) {
		free(s);
		return wire_corrupt(r, "%s: not %d characters", what,
				    PROXY_TOKEN_LEN);
	}
	memcpy(out, s, PROXY_TOKEN_LEN + 1);
	free(s);
	return 0;
}

static int read_rows(struct wire_reader *r, struct judge *j)
{
	uint32_t n, i;

	if (wire_count(r, &n, PCONFIG_ROW_MIN_BYTES, PLAN_MAX_ROWS))
		return -1;
	for (i = 0; i < n; i++) {
		uint8_t allow, level, has_source;
		char *target = NULL, *source = NULL;
		uint32_t index;
		int rc;

		snprintf(r->ctx, sizeof(r->ctx), "proxy configuration, row %u",
			 i);
		if (wire_u8(r, &allow, "allow") || wire_u8(r, &level, "level") ||
		    wire_u32(r, &index, "index") ||
		    wire_string(r, &target, "target"))
			return -1;
		if (wire_u8(r, &has_source, "source flag") ||
		    wire_string(r, &source, "source")) {
			free(target);
			return -1;
		}
		rc = allow > 1 || has_source > 1 ?
			     wire_corrupt(r, "a flag is not 0 or 1") :
			     judge_add_row(j, allow, target, index, level,
					   has_source ? source : NULL, r->err);
		free(target);
		free(source);
		if (rc)
			return -1;
	}
	return 0;
}

int pconfig_decode(const uint8_t *buf, size_t len, struct pconfig *c,
		   struct judge *j, char **err)
{
	struct wire_reader r = { .p = buf, .len = len, .err = err };
	uint8_t version, flags, nports;
	uint16_t port;
	uint64_t t0_us;
	size_t i;

	memset(c, 0, sizeof(*c));
	judge_init(j, false);
	snprintf(r.ctx, sizeof(r.ctx), "proxy configuration");
	if (len < 4 + 1 + 1 + 8 || memcmp(buf, PCONFIG_MAGIC, 4) != 0) {
		wire_corrupt(&r, "no proxy configuration");
		goto fail;
	}
	r.off = 4;
	if (wire_u8(&r, &version, "version") || wire_u8(&r, &flags, "flags"))
		goto fail;
	if (version != PCONFIG_VERSION ||
	    (flags & ~(PCONFIG_LOG | PCONFIG_DEFAULT_ALLOW))) {
		wire_corrupt(&r, "version %u, flags %#x: not this build's",
			     version, flags);
		goto fail;
	}
	t0_us = le_load(buf + r.off, 8);
	r.off += 8;
	c->log = flags & PCONFIG_LOG;
	c->t0_ms = (double)t0_us / 1e3;
	judge_init(j, flags & PCONFIG_DEFAULT_ALLOW);
	if (read_token(&r, c->token[PROXY_HTTP], "HTTP token") ||
	    read_token(&r, c->token[PROXY_SOCKS5], "SOCKS5 token") ||
	    wire_u8(&r, &nports, "port count"))
		goto fail;
	if (nports < 2 || nports > PCONFIG_MAX_PORTS) {
		wire_corrupt(&r, "%u ports", nports);
		goto fail;
	}
	for (i = 0; i < nports; i++) {
		if (wire_u16(&r, &port, "port"))
			goto fail;
		if (port == 0) {
			wire_corrupt(&r, "port 0");
			goto fail;
		}
		c->ports[c->nports++] = port;
	}
	if (wire_string(&r, &c->upstream, "upstream proxy"))
		goto fail;
	if (!c->upstream[0]) {
		free(c->upstream);
		c->upstream = NULL;
	}
	if (read_rows(&r, j))
		goto fail;
	if (wire_left(&r)) {
		wire_corrupt(&r, "%zu bytes after the rows", wire_left(&r));
		goto fail;
	}
	return 0;
fail:
	pconfig_release(c);
	judge_release(j);
	return -1;
}

void pconfig_release(struct pconfig *c)
{
	free(c->upstream);
	memset(c, 0, sizeof(*c));
}

/* macOS has no MSG_CMSG_CLOEXEC: there the fd is marked after. */
#ifndef MSG_CMSG_CLOEXEC
#define MSG_CMSG_CLOEXEC 0
#endif

/* One fd's worth of SCM_RIGHTS space, aligned for struct cmsghdr. */
union fd_cmsg {
	char buf[CMSG_SPACE(sizeof(int))];
	struct cmsghdr align;
};

/* @mh over @len bytes at @buf (through @iov), with @cbuf for one fd. */
static void msg_init(struct msghdr *mh, struct iovec *iov, void *buf,
		     size_t len, union fd_cmsg *cbuf)
{
	memset(mh, 0, sizeof(*mh));
	memset(cbuf, 0, sizeof(*cbuf));
	iov->iov_base = buf;
	iov->iov_len = len;
	mh->msg_iov = iov;
	mh->msg_iovlen = 1;
	mh->msg_control = cbuf->buf;
	mh->msg_controllen = sizeof(cbuf->buf);
}

int pconfig_send_listener(int sock, uint16_t port, int fd)
{
	unsigned char msg[3] = { 'L', (unsigned char)(port & 0xff),
				 (unsigned char)(port >> 8) };
	union fd_cmsg cbuf;
	struct iovec iov;
	struct msghdr mh;
	struct cmsghdr *cm;

	msg_init(&mh, &iov, msg, sizeof(msg), &cbuf);
	cm = CMSG_FIRSTHDR(&mh);
	if (!cm)
		BUG("no room for SCM_RIGHTS in a control buffer of its size");
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(msg) ? 0 :
									-1;
}

int pconfig_recv_listener(int sock, uint16_t *port, int *fd)
{
	unsigned char msg[8];
	union fd_cmsg cbuf;
	struct iovec iov;
	struct msghdr mh;
	struct cmsghdr *cm;
	ssize_t n;

	*fd = -1;
	msg_init(&mh, &iov, msg, sizeof(msg), &cbuf);
	n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n <= 0)
		return n == 0 ? 0 : -1;
	/*
	 * The kernel wrote these headers, so libc's walk is safe here (the
	 * sandbox's own control data is walked by
	 * supervisor/sockets/cmsg_iter.h).  The proxy parses what the
	 * sandbox sends: a message with more than the
	 * one fd is refused, and every fd it carried is closed.
	 */
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t i, nfd;
		int got;

		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len < CMSG_LEN(0))
			continue;
		nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < nfd; i++) {
			memcpy(&got, CMSG_DATA(cm) + i * sizeof(int),
			       sizeof(int));
			if (*fd < 0 && nfd == 1) {
				*fd = got;
			} else {
				close(got);
				n = -1;	/* refused below */
			}
		}
	}
	if (n != 3 || msg[0] != 'L' || *fd < 0 ||
	    (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		errno = EPROTO;
		return -1;
	}
	if (!MSG_CMSG_CLOEXEC)
		(void)fcntl(*fd, F_SETFD, FD_CLOEXEC);
	*port = (uint16_t)(msg[1] | msg[2] << 8);
	return 1;
}

/* The bytes of a notice's text: printable ASCII, 1 to the bound. */
static bool notice_text_ok(const uint8_t *p, size_t n)
{
	size_t i;

	if (n < 1 || n > PROXY_DENY_TEXT_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] > 0x7e)
			return false;
	return true;
}

_Static_assert(1 + 4 + 2 * PROXY_DENY_TEXT_MAX + 2 <= PCONFIG_MAX_MSG,
	       "a denial notice fits a control message");

size_t pconfig_denial_encode(uint8_t *out, uint32_t lost, const char *what,
			     const char *why)
{
	size_t nw = strlen(what), ny = strlen(why);

	if (!notice_text_ok((const uint8_t *)what, nw) ||
	    !notice_text_ok((const uint8_t *)why, ny))
		return 0;
	out[0] = 'D';
	le_store(out + 1, lost, 4);
	memcpy(out + 5, what, nw);
	out[5 + nw] = '\0';
	memcpy(out + 6 + nw, why, ny);
	out[6 + nw + ny] = '\0';
	return 7 + nw + ny;
}

int pconfig_denial_decode(const uint8_t *msg, size_t n, uint32_t *lost,
			  char *what, char *why)
{
	const uint8_t *sep;
	size_t nw, ny;

	if (n < 1 + 4 + 2 + 2 || n > PCONFIG_MAX_MSG || msg[0] != 'D' ||
	    msg[n - 1] != '\0')
		return -1;
	sep = memchr(msg + 5, '\0', n - 5);
	if (!sep)
		return -1;
	nw = (size_t)(sep - (msg + 5));
	ny = n - 5 - nw - 2;
	/* printable texts hold no NUL: one NUL after each, no other */
	if (!notice_text_ok(msg + 5, nw) || !notice_text_ok(sep + 1, ny))
		return -1;
	*lost = (uint32_t)le_load(msg + 1, 4);
	memcpy(what, msg + 5, nw);
	what[nw] = '\0';
	memcpy(why, sep + 1, ny);
	why[ny] = '\0';
	return 0;
}
