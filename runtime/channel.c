/* SPDX-License-Identifier: MIT */
/*
 * channel.c - framing, fds and credentials of the init channel
 * (channel.h).  libc only: the static init links it.
 */
#include <config.h>

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "channel.h"

#define ALIGN4(n) (((n) + 3) & ~(size_t)3)

static void put16(uint8_t *p, unsigned v)
{
	uint16_t x = (uint16_t)v;

	memcpy(p, &x, 2);
}

static unsigned get16(const uint8_t *p)
{
	uint16_t x;

	memcpy(&x, p, 2);
	return x;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t x;

	memcpy(&x, p, 4);
	return x;
}

void ch_init(struct ch_msg *m, enum ch_type type)
{
	m->len = CH_HEADER_SIZE;
	m->nfds = 0;
	m->pid = 0;
	put16(m->buf, type);
	put16(m->buf + 2, CH_VERSION);
	put32(m->buf + 4, 0);
}

unsigned ch_type_of(const struct ch_msg *m)
{
	return get16(m->buf);
}

int ch_put(struct ch_msg *m, unsigned attr, const void *val, size_t len)
{
	size_t need = 4 + ALIGN4(len);

	if (len > 0xffff || attr > 0xffff || need > sizeof(m->buf) - m->len) {
		errno = E2BIG;
		return -1;
	}
	put16(m->buf + m->len, attr);
	put16(m->buf + m->len + 2, (unsigned)len);
	if (len)
		memcpy(m->buf + m->len + 4, val, len);
	memset(m->buf + m->len + 4 + len, 0, ALIGN4(len) - len);
	m->len += need;
	put32(m->buf + 4, (uint32_t)(m->len - CH_HEADER_SIZE));
	return 0;
}

int ch_put_u32(struct ch_msg *m, unsigned attr, uint32_t v)
{
	return ch_put(m, attr, &v, sizeof(v));
}

int ch_put_str(struct ch_msg *m, unsigned attr, const char *s)
{
	return ch_put(m, attr, s, strlen(s));
}

int ch_put_fd(struct ch_msg *m, unsigned role, int fd)
{
	uint32_t v[2];

	if (m->nfds == CH_MAX_FDS || fd < 0) {
		errno = fd < 0 ? EBADF : E2BIG;
		return -1;
	}
	v[0] = role;
	v[1] = (uint32_t)m->nfds;
	if (ch_put(m, CH_A_FD, v, sizeof(v)) < 0)
		return -1;
	m->fds[m->nfds++] = fd;
	return 0;
}

int ch_send(int sock, const struct ch_msg *m)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * CH_MAX_FDS)];
		struct cmsghdr align;
	} u;
	struct msghdr msg;
	struct iovec iov;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	iov.iov_base = (void *)m->buf;
	iov.iov_len = m->len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (m->nfds) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * m->nfds);
		c = CMSG_FIRSTHDR(&msg);
		if (!c) {
			errno = EINVAL;
			return -1;
		}
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * m->nfds);
		memcpy(CMSG_DATA(c), m->fds, sizeof(int) * m->nfds);
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if ((size_t)n != m->len) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

void ch_close_fds(struct ch_msg *m)
{
	size_t i;

	for (i = 0; i < m->nfds; i++)
		close(m->fds[i]);
	m->nfds = 0;
}

/* Take the fds and credentials out of a received message's controls. */
static void take_controls(struct msghdr *msg, struct ch_msg *m, bool *extra)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
			struct ucred cred;

			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			m->pid = cred.pid;
		} else if (c->cmsg_type == SCM_RIGHTS) {
			size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			size_t i;
			int fd;

			for (i = 0; i < n; i++) {
				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int),
				       sizeof(int));
				if (m->nfds < CH_MAX_FDS) {
					m->fds[m->nfds++] = fd;
				} else {
					close(fd);
					*extra = true;
				}
			}
		}
	}
}

int ch_send_plain(int sock, const struct ch_msg *m)
{
	ssize_t n;

	if (m->nfds) {
		errno = EINVAL;
		return -1;
	}
	do
		n = send(sock, m->buf, m->len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if ((size_t)n != m->len) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

int ch_recv(int sock, struct ch_msg *m, int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred)) +
			 CMSG_SPACE(sizeof(int) * CH_MAX_FDS)];
		struct cmsghdr align;
	} u;
	struct msghdr msg;
	struct iovec iov;
	bool extra = false;
	ssize_t n;

	m->len = 0;
	m->nfds = 0;
	m->pid = 0;
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = m->buf;
	iov.iov_len = sizeof(m->buf);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	do
		n = recvmsg(sock, &msg, flags | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	/* The peer closed with our message unread: it is gone all the same. */
	if (n < 0 && errno == ECONNRESET)
		return 0;
	if (n < 0)
		return -1;
	take_controls(&msg, m, &extra);
	if (n == 0 && !m->nfds)
		return 0;
	m->len = (size_t)n;
	if (extra || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    m->len < CH_HEADER_SIZE || get16(m->buf + 2) != CH_VERSION ||
	    get32(m->buf + 4) != m->len - CH_HEADER_SIZE) {
		ch_close_fds(m);
		errno = EPROTO;
		return -1;
	}
	return 1;
}

int ch_next(const struct ch_msg *m, size_t *off, struct ch_attr_view *a)
{
	size_t pos = CH_HEADER_SIZE + *off, len;

	if (pos == m->len)
		return 0;
	if (m->len - pos < 4)
		return -1;
	len = get16(m->buf + pos + 2);
	if (ALIGN4(len) > m->len - pos - 4)
		return -1;
	a->attr = get16(m->buf + pos);
	a->len = len;
	a->val = m->buf + pos + 4;
	*off += 4 + ALIGN4(len);
	return 1;
}

int ch_u32(const struct ch_attr_view *a, uint32_t *v)
{
	if (a->len != 4)
		return -1;
	memcpy(v, a->val, 4);
	return 0;
}

int ch_str(const struct ch_attr_view *a, char *buf, size_t size)
{
	if (a->len >= size || memchr(a->val, '\0', a->len))
		return -1;
	memcpy(buf, a->val, a->len);
	buf[a->len] = '\0';
	return 0;
}

int ch_fd(const struct ch_msg *m, const struct ch_attr_view *a,
	  unsigned *role)
{
	uint32_t v[2];

	if (a->attr != CH_A_FD || a->len != sizeof(v))
		return -1;
	memcpy(v, a->val, sizeof(v));
	if (v[1] >= m->nfds)
		return -1;
	*role = v[0];
	return m->fds[v[1]];
}
