/* SPDX-License-Identifier: MIT */
/*
 * childmem.c - a bounded string of the child's memory (childmem.h).
 */
#include <vbox.h>

#include <errno.h>

#include "childmem.h"

/* Strings are read a page at a time: a page past the string's end may be
 * unmapped. */
#define PAGE 4096u

int child_read_str(child_read_fn rd, void *ctx, uint64_t addr, size_t max,
		   int toolong, char **out)
{
	char *buf = NULL, *nul;
	size_t have = 0, chunk;
	int rc;

	*out = NULL;
	if (!addr)
		return EFAULT;
	for (;;) {
		chunk = PAGE - (size_t)((addr + have) % PAGE);
		if (chunk > max + 1 - have)
			chunk = max + 1 - have;
		buf = xrealloc(buf, have + chunk + 1);
		rc = rd(ctx, addr + have, buf + have, chunk);
		if (rc) {
			free(buf);
			return rc == ESRCH ? ESRCH : EFAULT;
		}
		nul = memchr(buf + have, '\0', chunk);
		have += chunk;
		if (nul) {
			*out = buf;
			return 0;
		}
		if (have > max) {
			free(buf);
			return toolong;
		}
	}
}
