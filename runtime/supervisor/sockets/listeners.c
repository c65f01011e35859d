/* SPDX-License-Identifier: MIT */
/*
 * listeners.c - TCP listeners on a port, by NETLINK_SOCK_DIAG
 * (listeners.h).  One dump per family of the sockets in the LISTEN
 * state (a host has few), filtered by port here.
 */
#include <vbox.h>

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "listeners.h"

#define TCP_LISTEN_STATE 10

/* One family's dump; appends to @ino. */
static int dump(int fd, int family, uint16_t port, uint64_t *ino, size_t max,
		size_t *n)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	static char buf[32768] __attribute__((aligned(8)));
	const struct nlmsghdr *h;
	const struct inet_diag_msg *m;
	ssize_t len;

	memset(&req, 0, sizeof(req));
	req.nlh.nlmsg_len = sizeof(req);
	req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.r.sdiag_family = (uint8_t)family;
	req.r.sdiag_protocol = IPPROTO_TCP;
	req.r.idiag_states = 1u << TCP_LISTEN_STATE;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		return -1;
	for (;;) {
		len = recv(fd, buf, sizeof(buf), 0);
		if (len < 0 && errno == EINTR)
			continue;
		if (len <= 0)
			return -1;
		for (h = (const struct nlmsghdr *)(const void *)buf;
		     NLMSG_OK(h, (size_t)len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				errno = EPROTO;
				return -1;
			}
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
				continue;
			m = NLMSG_DATA(h);
			if (ntohs(m->id.idiag_sport) != port)
				continue;
			if (*n < max)
				ino[*n] = m->idiag_inode;
			(*n)++;
		}
	}
}

int tcp_listeners(uint16_t port, uint64_t *ino, size_t max, size_t *n)
{
	int fd, rc, saved;

	*n = 0;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -1;
	rc = dump(fd, AF_INET, port, ino, max, n);
	if (rc == 0)
		rc = dump(fd, AF_INET6, port, ino, max, n);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}
