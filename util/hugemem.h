/* SPDX-License-Identifier: MIT */
/*
 * hugemem.h - large allocations on transparent huge pages, and the
 * pages of a large block's consumed part given back early.
 *
 * A million-row table fills some 400 MB that nothing touched before,
 * one 4 KiB page fault at a time: 130,000 faults, a third of `vboxc
 * check`'s time on a virtual machine, where a fault is dear.  Where the
 * system gives huge pages on request (Linux's "madvise" setting, the
 * default of most distributions), a 2 MiB page costs one fault.
 *
 * The huge page calls are hints: they change no byte, their failure is
 * ignored, and where the system has no such hint they do nothing.  A
 * large block malloc carved from its heap keeps the hint on those pages
 * after it is freed (the kernel hints ranges, not blocks).
 * mem_release() is the one call that changes bytes: its caller promises
 * not to read them again.
 */
#ifndef VBOX_HUGEMEM_H
#define VBOX_HUGEMEM_H

#include <stddef.h>

/* Blocks from this size are hinted (two huge pages: one whole at least). */
#define MEM_LARGE_MIN ((size_t)4 << 20)

/*
 * mem_after_alloc - called by the x*alloc() functions with each block
 * they return: a block of at least MEM_LARGE_MIN bytes is hinted before
 * its caller writes it, and in large-heap mode the part of the heap
 * that grew since the last call is hinted too.
 */
void mem_after_alloc(void *p, size_t n);

/*
 * mem_large_heap_begin - large-heap mode, for a process about to build
 * a large table out of small blocks (glibc only): malloc grows its heap
 * 64 MiB at a time and never gives it back, and each growth is hinted
 * (mem_after_alloc()).  Costs address space, not memory: a page is only
 * backed once written.  Call before any thread starts; there is no way
 * back.  It changes the whole process's malloc: a program's choice, never
 * a library's (vboxc asks its loader for it, load_opts.large_heap, for an
 * input of 4 MiB or more; libvbox never does).
 */
void mem_large_heap_begin(void);

/*
 * mem_release - [@p, @p + @n) is part of a block from x*alloc() that its
 * owner will not read again before it frees the block: the pages wholly
 * inside go back to the system (Linux: MADV_DONTNEED; read again, they
 * are zeros).  Below MEM_LARGE_MIN, or where the system has no such
 * call, it does nothing.  For a consumer of a large array, so that the
 * array and what is built from it do not peak together.
 */
void mem_release(void *p, size_t n);

#endif /* VBOX_HUGEMEM_H */
