/* SPDX-License-Identifier: MIT */
/*
 * test_procname.c - proc_name() and child_proc_path()
 * (runtime/supervisor/childpath.h), the /proc names the supervisor makes
 * for every supervised call without the C library's formatted printing:
 * each the same bytes snprintf() makes, for numbers of every length from
 * 0 to LONG_MAX, with and without a tail, filling a buffer exactly.
 */
#include <vbox.h>

#include <limits.h>
#include <stdio.h>

#include "supervisor/childpath.h"
#include "tap.h"

/* proc_name() against snprintf() of the same pieces */
static void same(const char *pre, long n, const char *post)
{
	char got[96], want[96];

	memset(got, 'x', sizeof(got));
	proc_name(got, sizeof(got), pre, n, post);
	snprintf(want, sizeof(want), "%s%ld%s", pre, n, post);
	is_str(got, want, "%s%ld%s", pre, n, post);
}

int main(void)
{
	static const long numbers[] = { 0, 1, 9, 10, 99, 100, 4194304,
					INT_MAX, LONG_MAX };
	char buf[32], want[32];
	size_t i;
	long n;

	for (i = 0; i < array_size(numbers); i++) {
		same("/proc/self/fd/", numbers[i], "");
		same("/proc/", numbers[i], "/cwd");
	}
	same("", 12345, "");
	/* every length of a number: 1 to 19 digits */
	for (n = 1, i = 0; i < 18; i++, n *= 10)
		same("/proc/", n * 10 - 1, "/status");

	/* exactly filling the buffer: the NUL in its last byte */
	memset(buf, 'x', sizeof(buf));
	proc_name(buf, 18, "/proc/self/fd/", 123, "");
	is_str(buf, "/proc/self/fd/123", "a name that fills its buffer");
	ok(buf[18] == 'x', "... and nothing written past it");

	child_proc_path(buf, sizeof(buf), 4242, "fdinfo/7");
	snprintf(want, sizeof(want), "/proc/%d/%s", 4242, "fdinfo/7");
	is_str(buf, want, "child_proc_path(): /proc/TID/WHAT");
	child_proc_path(buf, sizeof(buf), 1, "cwd");
	is_str(buf, "/proc/1/cwd", "child_proc_path(): a pid of one digit");
	return done_testing();
}
