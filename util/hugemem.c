/* SPDX-License-Identifier: MIT */
/*
 * hugemem.c - large allocations on transparent huge pages, and pages
 * given back early (hugemem.h).
 */
#include <vbox.h>

#include <stdbool.h>
#include <stdint.h>

#include "hugemem.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__linux__) && defined(MADV_HUGEPAGE)
#define HAVE_HUGE_HINT 1
#else
#define HAVE_HUGE_HINT 0
#endif

#define PAGE_MASK_4K ((uintptr_t)4095)

#if HAVE_HUGE_HINT && defined(__GLIBC__)
#define HAVE_LARGE_HEAP 1
/* Large-heap mode (mem_large_heap_begin()), and how far it hinted. */
static bool large_heap;
static uintptr_t heap_hinted_end;
#else
#define HAVE_LARGE_HEAP 0
#endif

#if HAVE_HUGE_HINT
/*
 * Hint the pages that hold [@start, @end).  The kernel gives a huge page
 * only where a whole aligned 2 MiB lies inside the hinted range; the
 * rest of the block keeps small pages.
 */
static void hint_range(uintptr_t start, uintptr_t end)
{
	start &= ~PAGE_MASK_4K;
	end = (end + PAGE_MASK_4K) & ~PAGE_MASK_4K;
	if (end > start)
		(void)madvise((void *)start, end - start, MADV_HUGEPAGE);
}
#endif

#if HAVE_LARGE_HEAP
/* The heap's end, where malloc's brk heap grows. */
static uintptr_t heap_end(void)
{
	void *end = sbrk(0);

	return end == (void *)-1 ? 0 : (uintptr_t)end;
}
#endif

void mem_after_alloc(void *p, size_t n)
{
#if HAVE_HUGE_HINT
	if (p && n >= MEM_LARGE_MIN && (uintptr_t)p <= UINTPTR_MAX - n)
		hint_range((uintptr_t)p, (uintptr_t)p + n);
#if HAVE_LARGE_HEAP
	if (large_heap) {
		uintptr_t end = heap_end() & ~PAGE_MASK_4K;

		/*
		 * malloc grew the heap (by 64 MiB and what was asked): the
		 * growth is a new mapping, without the hint, and only the
		 * block malloc just carved from it was written yet.
		 */
		if (end > heap_hinted_end) {
			hint_range(heap_hinted_end, end);
			heap_hinted_end = end;
		}
	}
#endif
#else
	(void)p;
	(void)n;
#endif
}

void mem_large_heap_begin(void)
{
#if HAVE_LARGE_HEAP
	if (large_heap)
		return;
	/*
	 * Grow in large steps, so that most of the heap is hinted before it
	 * is written; never shrink, which would give back hinted pages to
	 * grow again without the hint.  The process is short-lived.
	 */
	if (mallopt(M_TRIM_THRESHOLD, INT32_MAX) != 1 ||
	    mallopt(M_TOP_PAD, 64 << 20) != 1)
		return;
	heap_hinted_end = (heap_end() + PAGE_MASK_4K) & ~PAGE_MASK_4K;
	large_heap = heap_hinted_end != 0;
#endif
}

void mem_release(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_DONTNEED)
	long pagesize = sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)p, end, mask;

	if (!p || n < MEM_LARGE_MIN || pagesize <= 0 ||
	    start > UINTPTR_MAX - n)
		return;
	mask = (uintptr_t)pagesize - 1;
	end = (start + n) & ~mask;
	/* Whole pages only: the block's first holds malloc's header. */
	start = (start + mask) & ~mask;
	if (end > start)
		(void)madvise((void *)start, end - start, MADV_DONTNEED);
#else
	(void)p;
	(void)n;
#endif
}
