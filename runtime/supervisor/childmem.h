/* SPDX-License-Identifier: MIT */
/*
 * childmem.h - the child's memory as the supervisors' decoders read it:
 * through a callback (child_peek() in vbox-exec, a buffer in the fuzz
 * harnesses), every string bounded.  Pure and fuzzed (fuzz_pathcall.c,
 * fuzz_unixsock.c).
 */
#ifndef VBOX_SUPERVISOR_CHILDMEM_H
#define VBOX_SUPERVISOR_CHILDMEM_H

#include <stddef.h>
#include <stdint.h>

/*
 * child_read_fn - read @len bytes of the child's memory at @addr into
 * @buf: 0, or the errno for the child (EFAULT; ESRCH when it is gone).
 */
typedef int (*child_read_fn)(void *ctx, uint64_t addr, void *buf,
			     size_t len);

/*
 * child_read_str - a NUL-terminated string of at most @max bytes before
 * its NUL at @addr, read page by page through @rd (a string that ends
 * just before an unmapped page is fine).  0 with *@out (caller frees),
 * or EFAULT, ESRCH, or @toolong.
 */
int child_read_str(child_read_fn rd, void *ctx, uint64_t addr, size_t max,
		   int toolong, char **out);

#endif /* VBOX_SUPERVISOR_CHILDMEM_H */
