/* SPDX-License-Identifier: MIT */
/*
 * listeners.h - which TCP sockets listen on a port (sock_diag), for the
 * container supervisor (unixsock.h): the sandbox may connect to a
 * loopback port of its own listener only while every listener on that
 * port is still one of its own, never to a host service that took the
 * port after the sandbox let it go.
 */
#ifndef VBOX_SUPERVISOR_LISTENERS_H
#define VBOX_SUPERVISOR_LISTENERS_H

#include <stddef.h>
#include <stdint.h>

/*
 * tcp_listeners - the inodes of the TCP sockets (IPv4 and IPv6) in the
 * LISTEN state on local port @port, in this network namespace, into
 * @ino (at most @max; *@n counts them all).  0, or -1 with errno.
 */
int tcp_listeners(uint16_t port, uint64_t *ino, size_t max, size_t *n);

#endif /* VBOX_SUPERVISOR_LISTENERS_H */
