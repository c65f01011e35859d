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

/* The audit architecture tokens (linux/audit.h's, without its includes). */
#define AUDIT_ARCH_X86_64_ 0xc000003eu
#define AUDIT_ARCH_I386_ 0x40000003u

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

/*
 * Container mode's first filter: every call numbered from
 * SECCOMP_NEWER_FIRST up is refused with ENOSYS, on the x86-64 and x32
 * entries (the x32 bit masked off) and the i386 one.  Since Linux 5.1
 * new calls get the same number on every entry, and those from 451 on
 * are newer than Debian 12's libseccomp, which builds the other filters
 * by name and cannot name a call it does not know (nor a range): among
 * them fchmodat2, setxattrat, removexattrat, file_setattr and
 * open_tree_attr, which would change what the supervisor judges
 * (metacall.h) past it.  A C library falls back to the older call on
 * ENOSYS.  Eight instructions, written here because no rule of
 * libseccomp's can say "this number and above".
 */
int seccomp_newer_calls_load(void)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64_, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386_, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~0x40000000u),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SECCOMP_NEWER_FIRST, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	};

	return seccomp_prog_load(insns, sizeof(insns), NULL);
}

int seccomp_notify_available(void)
{
	struct seccomp_notif_sizes sizes;
	uint32_t action = SECCOMP_RET_USER_NOTIF;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		return 0;
	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}
