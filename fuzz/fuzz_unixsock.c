/* SPDX-License-Identifier: MIT */
/*
 * fuzz_unixsock.c - libFuzzer target for the socket supervisor's decoding
 * of a notification (runtime/supervisor/sockets/sockcall.c, cmsg_iter.c): the very
 * code vbox-exec runs on a supervised connect(), bind(), sendto(),
 * sendmsg() or sendmmsg(), fed arbitrary bytes as the seccomp_data and as
 * the child's memory, through the same reader callback the supervisor
 * uses (there it is process_vm_readv()).  No system call is made, no
 * socket touched.
 *
 * Input: byte 0 picks the call (and architecture), bytes 1-3 the
 * socket's family, type and send buffer; then six 32-bit arguments; the
 * rest is the child's memory, mapped at CHILD_MEM_BASE (a read outside it is
 * EFAULT, as for the child).  A decoded call is checked against the
 * bounds sockcall.h promises, and its SCM_RIGHTS fds are rewritten in
 * place as the supervisor rewrites them (unixsock_dest.c,
 * us_take_dest()), so a control walk that strays past the buffer is a
 * sanitizer report.
 *
 * Seeds: fuzz/seeds/unixsock/ (ordinary calls: a connect to a path, an
 * abstract connect, a bind, a sendto, a sendmsg passing one fd, a
 * sendmmsg of two messages).
 */
#include <vbox.h>

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "child_mem.h"
#include "supervisor/sockets/cmsg_iter.h"
#include "supervisor/metacall.h"
#include "supervisor/sockets/sockcall.h"

#define HEAD 28

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
	uint32_t arch;
	int nr;
} calls[] = {
	{ AUDIT_ARCH_X86_64, __NR_connect },
	{ AUDIT_ARCH_X86_64, __NR_bind },
	{ AUDIT_ARCH_X86_64, __NR_sendto },
	{ AUDIT_ARCH_X86_64, __NR_sendmsg },
	{ AUDIT_ARCH_X86_64, __NR_sendmmsg },
	{ AUDIT_ARCH_X86_64, 0x40000000 | 518 },	/* x32 sendmsg */
	{ AUDIT_ARCH_I386, 362 },			/* i386 connect */
	{ AUDIT_ARCH_I386, 369 },			/* i386 sendto */
	{ AUDIT_ARCH_X86_64, __NR_listen },
	{ AUDIT_ARCH_I386, 363 },			/* i386 listen */
	/* container mode's metadata calls (metacall.h) */
	{ AUDIT_ARCH_X86_64, __NR_chmod },
	{ AUDIT_ARCH_X86_64, __NR_fchownat },
	{ AUDIT_ARCH_X86_64, __NR_utime },
	{ AUDIT_ARCH_X86_64, __NR_utimes },
	{ AUDIT_ARCH_X86_64, __NR_utimensat },
	{ AUDIT_ARCH_X86_64, __NR_setxattr },
	{ AUDIT_ARCH_X86_64, __NR_fsetxattr },
	{ AUDIT_ARCH_X86_64, __NR_lremovexattr },
};

static void check_msg(const struct sockcall *c, const struct sockcall_msg *m,
		      const struct sockcall_sock *sk)
{
	size_t i;
	int fd = 3;

	if (m->to.len > sizeof(struct sockaddr_storage))
		BUG("address of %u bytes", (unsigned)m->to.len);
	if (m->to.unix_kind == SOCKCALL_PATH &&
	    (!m->to.path || !m->to.path[0] ||
	     strlen(m->to.path) > sizeof(((struct sockaddr_un *)0)->sun_path)))
		BUG("bad unix path");
	if (m->to.unix_kind != SOCKCALL_PATH && m->to.path)
		BUG("a path for another kind");
	if (m->to.unix_kind == SOCKCALL_AUTOBIND && c->kind != SOCKCALL_BIND)
		BUG("autobind outside bind()");
	if (sk->type == SOCK_STREAM && m->len > SOCKCALL_DATA_MAX)
		BUG("stream data of %zu bytes", m->len);
	if (m->len > SOCKCALL_DGRAM_MAX || m->controllen >
	    SOCKCALL_CONTROL_MAX || m->nfds > CMSG_ITER_MAX_FD)
		BUG("bounds passed");
	/* touch every byte handed out: ASan sees a short allocation */
	for (i = 0; i < m->len; i++)
		fd += m->data[i];
	for (i = 0; i < m->nfds; i++) {
		memcpy(m->control + m->fd_off[i], &fd, sizeof(fd));
		if (m->fd_off[i] + sizeof(int) > m->controllen)
			BUG("fd offset past the control data");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int families[] = { AF_UNIX, AF_INET, AF_NETLINK, -1 };
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
	struct seccomp_data d;
	struct sockcall_sock sk;
	struct sockcall c;
	struct child_mem m;
	size_t i, nfds = 0;
	uint32_t a;
	int rc;

	if (size < HEAD)
		return 0;
	memset(&d, 0, sizeof(d));
	d.arch = calls[data[0] % array_size(calls)].arch;
	d.nr = calls[data[0] % array_size(calls)].nr;
	sk.family = families[data[1] % array_size(families)];
	sk.type = types[data[2] % array_size(types)];
	sk.sndbuf = (size_t)data[3] << 14;
	for (i = 0; i < 6; i++) {
		memcpy(&a, data + 4 + 4 * i, sizeof(a));
		d.args[i] = a;
	}
	m.p = data + HEAD;
	m.len = size - HEAD;
	/* Container mode's metadata calls. */
	if (metacall_is(&d)) {
		struct metacall mc;

		rc = metacall_decode(&d, child_mem_read, &m, &mc);
		if (!rc) {
			if (mc.name && strlen(mc.name) > METACALL_XATTR_NAME_MAX)
				BUG("an xattr name past its bound");
			if (mc.size > METACALL_XATTR_SIZE_MAX)
				BUG("an xattr value past its bound");
			metacall_release(&mc);
		}
		return 0;
	}
	rc = sockcall_decode(&d, &sk, child_mem_read, &m, &c);
	if (rc) {
		if (c.msgs || c.nmsgs)
			BUG("an error left messages behind");
		return 0;
	}
	if (!c.mmsg && c.nmsgs != 1)
		BUG("%zu messages for one call", c.nmsgs);
	if (c.nmsgs > SOCKCALL_VLEN_MAX)
		BUG("%zu messages", c.nmsgs);
	for (i = 0; i < c.nmsgs; i++) {
		check_msg(&c, &c.msgs[i], &sk);
		nfds += c.msgs[i].nfds;
	}
	if (nfds > CMSG_ITER_MAX_FD)
		BUG("%zu fds in one call", nfds);
	sockcall_release(&c);
	return 0;
}
