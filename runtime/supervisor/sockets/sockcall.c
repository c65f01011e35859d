/* SPDX-License-Identifier: MIT */
/*
 * sockcall.c - decode a supervised socket call; see sockcall.h.
 *
 * The structs are read as a 64-bit kernel reads them (struct msghdr64,
 * iovec64, mmsghdr64 below), whatever the C library declares.
 */
#include <vbox.h>

#include <errno.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "cmsg_iter.h"
#include "sockcall.h"

#define X32_BIT 0x40000000u
/* The kernel's MAX_RW_COUNT: one call moves at most this many bytes. */
#define RW_MAX ((size_t)(INT_MAX & ~4095))
#define SUN_PATH_OFF offsetof(struct sockaddr_un, sun_path)

struct msghdr64 {
	uint64_t name;
	uint32_t namelen;
	uint32_t pad0;
	uint64_t iov;
	uint64_t iovlen;
	uint64_t control;
	uint64_t controllen;
	uint32_t flags;
	uint32_t pad1;
};

struct iovec64 {
	uint64_t base;
	uint64_t len;
};

struct mmsghdr64 {
	struct msghdr64 hdr;
	uint32_t len;
	uint32_t pad;
};

/* Where a sendmmsg() decode stopped early: not an error for the child. */
#define STOP (-1)

/**
 * struct dec - one decode
 * @d: the notification's data
 * @sk: the socket
 * @rd, @ctx: the child's memory
 * @kind: the call
 * @total: bytes copied so far (data and control, every message)
 * @nfds: SCM_RIGHTS fds so far (every message)
 * @first: decoding the first (or only) message: nothing is left over
 * @cut: the last message's data was cut to SOCKCALL_DATA_MAX (a stream)
 */
struct dec {
	const struct seccomp_data *d;
	const struct sockcall_sock *sk;
	child_read_fn rd;
	void *ctx;
	enum sockcall_kind kind;
	size_t total;
	size_t nfds;
	bool first;
	bool cut;
};

int sockcall_fd(const struct seccomp_data *d, enum sockcall_kind *kind,
		int *fd)
{
	unsigned nr = (unsigned)d->nr & ~X32_BIT;
	int c = 0;

	if (d->arch == AUDIT_ARCH_X86_64) {
		/* x86-64 and x32 share these numbers below 512. */
		if (nr == __NR_connect)
			c = 'c';
		else if (nr == __NR_bind)
			c = 'b';
		else if (nr == __NR_sendto)
			c = 't';
		else if (nr == __NR_sendmsg || nr == 518)
			c = 'm';
		else if (nr == __NR_sendmmsg || nr == 538)
			c = 'M';
		else if (nr == __NR_listen)
			c = 'l';
		if ((c == 'm' || c == 'M') && (d->nr & X32_BIT))
			return EACCES;
	} else if (d->arch == AUDIT_ARCH_I386) {
		if (nr == 362)
			c = 'c';
		else if (nr == 361)
			c = 'b';
		else if (nr == 369)
			c = 't';
		else if (nr == 363)
			c = 'l';
		else if (nr == 370 || nr == 345)
			return EACCES;
	}
	switch (c) {
	case 'c':
		*kind = SOCKCALL_CONNECT;
		break;
	case 'b':
		*kind = SOCKCALL_BIND;
		break;
	case 'l':
		*kind = SOCKCALL_LISTEN;
		break;
	case 't':
	case 'm':
	case 'M':
		*kind = SOCKCALL_SEND;
		break;
	default:
		return ENOSYS;
	}
	/* The kernel takes the fd as an int. */
	*fd = (int)(uint32_t)d->args[0];
	return 0;
}

static void addr_release(struct sockcall_addr *a)
{
	free(a->path);
	a->path = NULL;
}

static void msg_release(struct sockcall_msg *m)
{
	addr_release(&m->to);
	free(m->data);
	free(m->control);
	free(m->fd_off);
	memset(m, 0, sizeof(*m));
}

void sockcall_release(struct sockcall *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nmsgs; i++)
		msg_release(&c->msgs[i]);
	free(c->msgs);
	c->msgs = NULL;
	c->nmsgs = 0;
}

/*
 * The address at @at of @len bytes (already checked: 0 .. sizeof(sa)):
 * copied and, on a unix socket, classified.
 */
static int take_addr(struct dec *x, uint64_t at, size_t len,
		     struct sockcall_addr *a)
{
	const struct sockaddr_un *sun = (const struct sockaddr_un *)&a->sa;
	size_t n;
	int rc;

	memset(&a->sa, 0, sizeof(a->sa));
	a->has = true;
	a->len = (socklen_t)len;
	a->unix_kind = SOCKCALL_AS_GIVEN;
	if (len) {
		rc = x->rd(x->ctx, at, &a->sa, len);
		if (rc)
			return rc;
	}
	/* Only a unix socket's unix address is judged; the kernel answers
	 * every other pairing itself, before reaching anything. */
	if (x->sk->family != AF_UNIX || len < sizeof(sa_family_t) ||
	    a->sa.ss_family != AF_UNIX)
		return 0;
	if (x->kind == SOCKCALL_BIND && len == SUN_PATH_OFF) {
		a->unix_kind = SOCKCALL_AUTOBIND;
		return 0;
	}
	/* unix_validate_addr(): the kernel says EINVAL, before a lookup. */
	if (len <= SUN_PATH_OFF || len > sizeof(struct sockaddr_un))
		return 0;
	if (sun->sun_path[0] == '\0') {
		a->unix_kind = SOCKCALL_ABSTRACT;
		return 0;
	}
	/* unix_mkname_bsd(): the name ends at the first NUL or at the end
	 * of the address, which may be all 108 bytes of sun_path. */
	n = strnlen(sun->sun_path, len - SUN_PATH_OFF);
	a->path = xmalloc(n + 1);
	memcpy(a->path, sun->sun_path, n);
	a->path[n] = '\0';
	a->unix_kind = SOCKCALL_PATH;
	return 0;
}

/*
 * How many of @want bytes to copy for one message, or an errno: a stream
 * takes a prefix, a datagram all or nothing (sockcall.h).
 */
static int data_bound(struct dec *x, size_t want, size_t *copy)
{
	size_t room;

	if (x->sk->type == SOCK_STREAM) {
		*copy = want < SOCKCALL_DATA_MAX ? want : SOCKCALL_DATA_MAX;
		x->cut = *copy < want;
	} else {
		if (want > SOCKCALL_DATA_MAX &&
		    (x->sk->sndbuf < 32 || want > x->sk->sndbuf - 32 ||
		     want > SOCKCALL_DGRAM_MAX))
			return EMSGSIZE;
		*copy = want;
	}
	/* sendmmsg(): a later message that would pass the total waits. */
	room = SOCKCALL_TOTAL_MAX > x->total ? SOCKCALL_TOTAL_MAX - x->total
					     : 0;
	if (!x->first && *copy > room)
		return STOP;
	return 0;
}

/* Copy @copy bytes of the @n iovecs at @iov into m->data. */
static int take_data(struct dec *x, const struct iovec64 *iov, size_t n,
		     size_t copy, struct sockcall_msg *m)
{
	size_t i, have = 0, part;
	int rc;

	if (!copy)
		return 0;
	m->data = xmalloc(copy);
	for (i = 0; i < n && have < copy; i++) {
		part = iov[i].len < copy - have ? (size_t)iov[i].len
						: copy - have;
		if (!part)
			continue;
		rc = x->rd(x->ctx, iov[i].base, m->data + have, part);
		if (rc)
			return rc;
		have += part;
	}
	m->len = have;
	x->total += have;
	return 0;
}

/* Walk m->control: note where each SCM_RIGHTS fd is; refuse the rest. */
static int take_control(struct dec *x, struct sockcall_msg *m)
{
	struct cmsg_iter it;
	struct cmsg_item c;
	size_t n, i;
	int rc;

	cmsg_iter_init(&it, m->control, m->controllen);
	while ((rc = cmsg_iter_next(&it, &c)) > 0) {
		if (c.level != SOL_SOCKET)
			continue;
		if (c.type == SCM_CREDENTIALS)
			return EOPNOTSUPP;
		if (c.type != SCM_RIGHTS)
			continue;
		n = cmsg_rights_count(c.data_len);
		if (!n)
			continue;
		/* scm_fp_copy(): SCM_MAX_FD per message, else EINVAL. */
		if (n > CMSG_ITER_MAX_FD - m->nfds)
			return EINVAL;
		if (!x->first && n > CMSG_ITER_MAX_FD - x->nfds)
			return STOP;
		m->fd_off = xreallocarray(m->fd_off, m->nfds + n,
					  sizeof(*m->fd_off));
		for (i = 0; i < n; i++)
			m->fd_off[m->nfds++] = c.data_off + i * sizeof(int);
		x->nfds += n;
	}
	return rc < 0 ? -rc : 0;
}

/* One native struct msghdr at @at, and what it points to. */
static int take_msghdr(struct dec *x, const struct msghdr64 *h,
		       struct sockcall_msg *m)
{
	struct iovec64 *iov = NULL;
	size_t i, want = 0, copy = 0, namelen;
	int rc;

	/* __copy_msghdr(): an int; negative is EINVAL, long is cut. */
	if (h->name && h->namelen) {
		if ((int32_t)h->namelen < 0)
			return EINVAL;
		namelen = h->namelen;
		if (namelen > sizeof(struct sockaddr_storage))
			namelen = sizeof(struct sockaddr_storage);
		rc = take_addr(x, h->name, namelen, &m->to);
		if (rc)
			return rc;
	}
	if (h->iovlen > SOCKCALL_IOV_MAX)
		return EMSGSIZE;
	if (h->iovlen) {
		iov = xcalloc((size_t)h->iovlen, sizeof(*iov));
		rc = x->rd(x->ctx, h->iov, iov, (size_t)h->iovlen *
						 sizeof(*iov));
		if (rc)
			goto out;
		/* __import_iovec(): a negative length is EINVAL; the total
		 * is cut at MAX_RW_COUNT. */
		for (i = 0; i < h->iovlen; i++) {
			if ((int64_t)iov[i].len < 0) {
				rc = EINVAL;
				goto out;
			}
			if (iov[i].len > RW_MAX - want)
				iov[i].len = RW_MAX - want;
			want += (size_t)iov[i].len;
		}
	}
	if (h->controllen > INT_MAX || h->controllen > SOCKCALL_CONTROL_MAX) {
		rc = ENOBUFS;
		goto out;
	}
	rc = data_bound(x, want, &copy);
	if (rc)
		goto out;
	if (!x->first && h->controllen > SOCKCALL_TOTAL_MAX - x->total - copy) {
		rc = STOP;
		goto out;
	}
	if (h->controllen) {
		m->control = xmalloc((size_t)h->controllen);
		m->controllen = (size_t)h->controllen;
		rc = x->rd(x->ctx, h->control, m->control, m->controllen);
		if (rc)
			goto out;
		x->total += m->controllen;
		rc = take_control(x, m);
		if (rc)
			goto out;
	}
	rc = take_data(x, iov, (size_t)h->iovlen, copy, m);
out:
	free(iov);
	return rc;
}

/* connect(), bind() and sendto(): addresses by register. */
static int take_plain_addr(struct dec *x, uint64_t at, uint64_t len64,
			   struct sockcall_msg *m)
{
	int32_t len = (int32_t)(uint32_t)len64;

	/* move_addr_to_kernel() */
	if (len < 0 || (size_t)len > sizeof(struct sockaddr_storage))
		return EINVAL;
	return take_addr(x, at, (size_t)len, &m->to);
}

static int decode_mmsg(struct dec *x, struct sockcall *out)
{
	struct mmsghdr64 e;
	uint64_t base = x->d->args[1];
	size_t vlen = (uint32_t)x->d->args[2], k;
	int rc;

	out->mmsg = true;
	out->flags = (int)(uint32_t)x->d->args[3];
	if (vlen > SOCKCALL_VLEN_MAX)
		vlen = SOCKCALL_VLEN_MAX;
	if (!vlen)
		return 0;
	out->msgs = xcalloc(vlen, sizeof(*out->msgs));
	for (k = 0; k < vlen; k++) {
		struct sockcall_msg *m = &out->msgs[k];

		x->first = k == 0;
		rc = x->rd(x->ctx, base + k * sizeof(e), &e, sizeof(e));
		if (!rc) {
			m->len_at = base + k * sizeof(e) +
				    offsetof(struct mmsghdr64, len);
			rc = take_msghdr(x, &e.hdr, m);
		}
		if (rc) {
			msg_release(m);
			/* The kernel sends those before and reports their
			 * count; an error only when none was sent. */
			if (k == 0)
				return rc == STOP ? 0 : rc;
			break;
		}
		out->nmsgs = k + 1;
		/* A message cut short ends the batch, as a partial send
		 * does in __sys_sendmmsg(). */
		if (x->cut)
			break;
	}
	return 0;
}

int sockcall_decode(const struct seccomp_data *d,
		    const struct sockcall_sock *sk, child_read_fn rd,
		    void *ctx, struct sockcall *out)
{
	struct dec x = { d, sk, rd, ctx, SOCKCALL_SEND, 0, 0, true, false };
	struct msghdr64 h;
	struct sockcall_msg *m;
	unsigned nr = (unsigned)d->nr & ~X32_BIT;
	size_t copy;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = sockcall_fd(d, &out->kind, &out->fd);
	if (rc)
		return rc;
	x.kind = out->kind;
	if (d->arch == AUDIT_ARCH_X86_64 &&
	    (nr == __NR_sendmmsg || nr == 538)) {
		rc = decode_mmsg(&x, out);
		goto done;
	}
	out->msgs = xcalloc(1, sizeof(*out->msgs));
	out->nmsgs = 1;
	m = &out->msgs[0];
	switch (out->kind) {
	case SOCKCALL_CONNECT:
	case SOCKCALL_BIND:
		rc = take_plain_addr(&x, d->args[1], d->args[2], m);
		break;
	case SOCKCALL_LISTEN:
		/* The kernel takes the backlog as an int. */
		out->backlog = (int)(uint32_t)d->args[1];
		break;
	case SOCKCALL_SEND:
		if (d->arch == AUDIT_ARCH_X86_64 &&
		    (nr == __NR_sendmsg || nr == 518)) {
			out->flags = (int)(uint32_t)d->args[2];
			rc = rd(ctx, d->args[1], &h, sizeof(h));
			if (!rc)
				rc = take_msghdr(&x, &h, m);
			break;
		}
		/* sendto(): the filter stops it only with an address. */
		out->flags = (int)(uint32_t)d->args[3];
		if (d->args[4]) {
			rc = take_plain_addr(&x, d->args[4], d->args[5], m);
			if (rc)
				break;
			if (!m->to.len)
				m->to.has = false;
		}
		{
			size_t want = d->args[2] > RW_MAX ? RW_MAX :
				      (size_t)d->args[2];
			struct iovec64 one = { d->args[1], want };

			rc = data_bound(&x, want, &copy);
			if (!rc)
				rc = take_data(&x, &one, 1, copy, m);
		}
		break;
	default:
		BUG("sockcall kind %d", (int)out->kind);
	}
done:
	if (rc)
		sockcall_release(out);
	return rc;
}
