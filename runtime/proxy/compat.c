/* SPDX-License-Identifier: MIT */
/*
 * compat.c - sockets and random bytes on Linux and on macOS (compat.h).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/random.h> /* getrandom(); getentropy(): glibc 2.25, macOS */
#include <unistd.h>

#include "compat.h"

const char *compat_relay_name(void)
{
#ifdef VBOX_RELAY_SPLICE
	return "splice";
#else
	return "buffers";
#endif
}

#if defined(VBOX_PORTABLE) || !defined(__linux__)

/* set_flags - non-blocking, close-on-exec, no SIGPIPE; closes on error */
static int set_flags(int fd)
{
	int fl, saved;

	if (fd < 0)
		return -1;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
		goto fail;
#ifdef SO_NOSIGPIPE
	{
		int one = 1;

		if (setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one,
			       sizeof(one)) != 0)
			goto fail;
	}
#endif
	return fd;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

/*
 * Between socket() or accept() and FD_CLOEXEC only a fork in another
 * thread could inherit the fd: vbox-exec has one thread, and the darwin
 * runner closes every fd it is not passed anyway (poll_supervise.c).
 */
int compat_socket(int family)
{
	return set_flags(socket(family, SOCK_STREAM, 0));
}

int compat_accept(int lfd)
{
	return set_flags(accept(lfd, NULL, NULL));
}

int compat_random(void *buf, size_t n)
{
	unsigned char *p = buf;

	/* getentropy() gives at most 256 bytes per call */
	while (n) {
		size_t k = n < 256 ? n : 256;

		if (getentropy(p, k) != 0)
			return -errno;
		p += k;
		n -= k;
	}
	return 0;
}

#else /* Linux */

int compat_socket(int family)
{
	return socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

int compat_accept(int lfd)
{
	return accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int compat_random(void *buf, size_t n)
{
	unsigned char *p = buf;

	while (n) {
		ssize_t k = getrandom(p, n, 0);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

#endif
