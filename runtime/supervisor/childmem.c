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
	/*
	 * Each page is read here first and only the string's bytes are
	 * kept: the result is as long as the string, not a page.  A
	 * page-sized block for every call made some C libraries' malloc
	 * (musl's) map and unmap memory once a call, and each unmap in the
	 * threaded supervisor interrupts the other CPUs (bench/README.md).
	 */
	char page[PAGE], *buf = NULL, *nul;
	size_t have = 0, chunk, keep;
	int rc;

	*out = NULL;
	if (!addr)
		return EFAULT;
	for (;;) {
		chunk = PAGE - (size_t)((addr + have) % PAGE);
		if (chunk > max + 1 - have)
			chunk = max + 1 - have;
		rc = rd(ctx, addr + have, page, chunk);
		if (rc) {
			free(buf);
			return rc == ESRCH ? ESRCH : EFAULT;
		}
		nul = memchr(page, '\0', chunk);
		keep = nul ? (size_t)(nul - page) + 1 : chunk;
		buf = xrealloc(buf, have + keep + 1);
		memcpy(buf + have, page, keep);
		if (nul) {
			*out = buf;
			return 0;
		}
		have += chunk;
		if (have > max) {
			free(buf);
			return toolong;
		}
	}
}
