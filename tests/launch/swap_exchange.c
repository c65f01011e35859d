/* SPDX-License-Identifier: MIT */
/*
 * swap_exchange.c - a host process that swaps two paths in a tight loop
 * (tests/launch/exec_cover_race.sh): renameat2(RENAME_EXCHANGE) of @a and @b,
 * again and again, until the file @stop exists; it stops on an even
 * count, so both paths are as they were.  Prints the number of swaps.
 *
 *   swap_exchange A B STOP
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static int exchange(const char *a, const char *b)
{
	return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b,
			    RENAME_EXCHANGE);
}

int main(int argc, char **argv)
{
	unsigned long n = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: swap_exchange A B STOP\n");
		return 2;
	}
	for (;;) {
		if (exchange(argv[1], argv[2]) < 0 ||
		    exchange(argv[1], argv[2]) < 0) {
			fprintf(stderr, "swap_exchange: %s <-> %s: %s\n",
				argv[1], argv[2], strerror(errno));
			return 1;
		}
		n += 2;
		if (n % 64 == 0 && access(argv[3], F_OK) == 0)
			break;
	}
	printf("%lu\n", n);
	return 0;
}
