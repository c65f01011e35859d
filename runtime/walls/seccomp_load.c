/* SPDX-License-Identifier: MIT */
/*
 * seccomp_load.c - load a seccomp program with the raw system call, and
 * probe for user notification; see seccomp.h.  No libseccomp here: the
 * programs are built with it at build time (gen_seccomp.c) and by the
 * tests, and vbox-exec and its shim only load bytes.
 */
#include <config.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp.h"

#ifndef SECCOMP_GET_NOTIF_SIZES
#define SECCOMP_GET_NOTIF_SIZES 3
#endif

int seccomp_prog_load(const void *insns, size_t len, int *listener)
{
	struct sock_fprog prog;
	unsigned long flags = 0;
	long rc;

	if (len == 0 || len % sizeof(struct sock_filter) != 0 ||
	    len / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		errno = EINVAL;
		return -1;
	}
	prog.len = (unsigned short)(len / sizeof(struct sock_filter));
	prog.filter = (struct sock_filter *)insns;
	if (listener)
		flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
	rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
	if (rc < 0)
		return -1;
	if (listener)
		*listener = (int)rc;
	return 0;
}

int seccomp_notify_available(void)
{
	struct seccomp_notif_sizes sizes;
	uint32_t action = SECCOMP_RET_USER_NOTIF;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		return 0;
	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}
