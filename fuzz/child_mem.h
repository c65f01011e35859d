/* SPDX-License-Identifier: MIT */
/*
 * child_mem.h - the sandboxed child's memory as the supervisor's decoders
 * read it (child_read_fn), for the fuzz targets of those decoders: the
 * input's tail mapped at CHILD_MEM_BASE; a read outside it is EFAULT, as
 * for the child.
 */
#ifndef VBOX_FUZZ_CHILD_MEM_H
#define VBOX_FUZZ_CHILD_MEM_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CHILD_MEM_BASE 0x10000u

struct child_mem {
	const uint8_t *p;
	size_t len;
};

static inline int child_mem_read(void *ctx, uint64_t addr, void *buf,
				 size_t len)
{
	const struct child_mem *m = ctx;

	if (addr < CHILD_MEM_BASE || addr - CHILD_MEM_BASE > m->len ||
	    len > m->len - (addr - CHILD_MEM_BASE))
		return EFAULT;
	memcpy(buf, m->p + (addr - CHILD_MEM_BASE), len);
	return 0;
}

#endif /* VBOX_FUZZ_CHILD_MEM_H */
