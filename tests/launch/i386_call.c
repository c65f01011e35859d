/* SPDX-License-Identifier: MIT */
/*
 * i386_call.c - make one i386 system call (int $0x80) from 64-bit code,
 * for the launch tests that check a 32-bit entry is refused as its
 * 64-bit twin is (tests/launch/exec_supervised.sh).
 *
 *   i386_call probe            exit 0 when the i386 entry works here,
 *                              3 when it does not (no IA32_EMULATION)
 *   i386_call NR PATH [N]      the call NR with the address of PATH
 *                              (copied below 4 GiB: the 32-bit ABI
 *                              passes 32-bit pointers) and the number N
 *                              (0 if absent); prints "ok" or the errno's
 *                              name (ENOSYS, EACCES, ...)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "i386_entry.h"

static const char *errno_name(int e)
{
	switch (e) {
	case ENOSYS: return "ENOSYS";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EROFS: return "EROFS";
	case ENOENT: return "ENOENT";
	default: return NULL;
	}
}

int main(int argc, char **argv)
{
	size_t len;
	char *low, *end;
	long nr, n = 0, r;
	const char *name;

	if (argc == 2 && strcmp(argv[1], "probe") == 0)
		return i386_probe() == 0 ? 0 : 3;
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: i386_call probe | NR PATH [N]\n");
		return 2;
	}
	errno = 0;
	nr = strtol(argv[1], &end, 10);
	if (errno || *end || nr < 0) {
		fprintf(stderr, "i386_call: bad number '%s'\n", argv[1]);
		return 2;
	}
	if (argc == 4) {
		n = strtol(argv[3], &end, 10);
		if (errno || *end) {
			fprintf(stderr, "i386_call: bad number '%s'\n",
				argv[3]);
			return 2;
		}
	}
	len = strlen(argv[2]) + 1;
	low = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (low == MAP_FAILED) {
		perror("i386_call: mmap");
		return 2;
	}
	memcpy(low, argv[2], len);
	r = i386_call(nr, (long)(unsigned long)low, n);
	if (r >= 0) {
		puts("ok");
		return 0;
	}
	name = errno_name((int)-r);
	if (name)
		puts(name);
	else
		printf("errno %ld\n", -r);
	return 1;
}
