/* SPDX-License-Identifier: MIT */
/*
 * grow.h - the one growth helper for hand-rolled arrays.
 *
 *	GROW(v, cap, n + 1);
 *	v[n++] = x;
 *
 * makes room for at least the given number of elements in the array @v
 * whose allocated size is @cap, doubling (from 16) so that appending is
 * amortised O(1).  Allocation failure aborts, as with every x*alloc().
 */
#ifndef VBOX_GROW_H
#define VBOX_GROW_H

#include <stddef.h>

/*
 * grow_array - make *(void **)@arrp hold at least @need elements of
 * @size bytes, updating *@cap.  Use GROW().
 */
void grow_array(void *arrp, size_t *cap, size_t need, size_t size);

/*
 * mem_grow_block - the block @p, of which the first @old_bytes are
 * kept, grown to @new_bytes (as xrealloc(); @p may be NULL with
 * @old_bytes 0).  A large block is hinted for huge pages before it is
 * written (hugemem.h).
 */
void *mem_grow_block(void *p, size_t old_bytes, size_t new_bytes);

#define GROW(arr, cap, need) \
	grow_array(&(arr), &(cap), (need), sizeof(*(arr)))

#endif /* VBOX_GROW_H */
