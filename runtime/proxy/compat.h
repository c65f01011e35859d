/* SPDX-License-Identifier: MIT */
/*
 * compat.h - the only calls of the proxy that differ between Linux and
 * macOS, in one place (doc/proxy.md "macOS").
 *
 * VBOX_PORTABLE selects what macOS has: it is set on darwin, and by the
 * second build of the proxy on Linux (libproxy_portable.la), so that the
 * darwin paths run under the same tests.  There the loop is poll()
 * (runtime/loop_poll.c), tunnels are relayed through user-space buffers
 * instead of splice() (relay.c), sockets get their flags with fcntl()
 * instead of SOCK_NONBLOCK/SOCK_CLOEXEC and accept4(), and tokens come
 * from getentropy() instead of getrandom().
 */
#ifndef VBOX_PROXY_COMPAT_H
#define VBOX_PROXY_COMPAT_H

#include <stddef.h>
#include <sys/socket.h>

#if defined(__APPLE__) && !defined(VBOX_PORTABLE)
#define VBOX_PORTABLE 1
#endif

/* Tunnels go through splice() only on Linux's own build. */
#if !defined(VBOX_PORTABLE) && defined(__linux__)
#define VBOX_RELAY_SPLICE 1
#endif

/*
 * macOS has no MSG_NOSIGNAL (older SDKs): there every socket of the
 * proxy gets SO_NOSIGPIPE instead (compat_socket(), compat_accept()).
 */
#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif

/*
 * compat_socket - a non-blocking, close-on-exec stream socket of
 * @family that never raises SIGPIPE.  The fd or -1 with errno.
 */
int compat_socket(int family);

/*
 * compat_accept - accept on the listening socket @lfd a connection that
 * is non-blocking, close-on-exec and never raises SIGPIPE.  The fd or -1
 * with errno.
 */
int compat_accept(int lfd);

/* compat_random - fill @buf with @n random bytes.  0 or -errno. */
int compat_random(void *buf, size_t n);

/* compat_relay_name - "splice" or "buffers", for logs and test names. */
const char *compat_relay_name(void);

#endif /* VBOX_PROXY_COMPAT_H */
