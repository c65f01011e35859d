/* SPDX-License-Identifier: MIT */
/*
 * test_hugemem.c - large allocations on huge pages (util/hugemem.h) and
 * the growth paths that use them: an array grown past the large size
 * keeps every element, a large block and the large-mode heap carry the
 * kernel's huge page hint, the heap is put on huge pages only when the
 * program asks the loader for it (never for libvbox's loads), a row
 * pool's growing chunks keep every row where it was handed out, and the
 * pages of a large block's consumed part go back to the system while the
 * rest stays (a table built from a large list of statements keeps every
 * row).
 */
#include <vbox.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "diag.h"
#include "grow.h"
#include "hugemem.h"
#include "ir.h"
#include "load.h"
#include "location.h"
#include "rowpool.h"
#include "stmt.h"
#include "tap.h"
#include "target.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

/* GROW() from empty to 3M elements: the copy into a new large block. */
static void test_grow_keeps_elements(void)
{
	uint32_t *v = NULL;
	size_t cap = 0, n, bad = 0;
	const size_t want = (size_t)3 << 20;

	for (n = 0; n < want; n++) {
		GROW(v, cap, n + 1);
		v[n] = (uint32_t)(n * 2654435761u);
	}
	for (n = 0; n < want; n++)
		if (v[n] != (uint32_t)(n * 2654435761u))
			bad++;
	ok(cap * sizeof(*v) >= MEM_LARGE_MIN, "the array grew past %zu bytes",
	   (size_t)MEM_LARGE_MIN);
	is_int((long long)bad, 0, "every one of %zu elements kept", want);
	free(v);

	v = mem_grow_block(NULL, 0, MEM_LARGE_MIN * 2);
	v[0] = 7;
	v = mem_grow_block(v, MEM_LARGE_MIN * 2, 64);
	is_int(v[0], 7, "a block made smaller keeps its start");
	free(v);
}

/*
 * Whether the kernel may give huge pages on request; NULL if so, else
 * why not.
 */
static const char *thp_unavailable(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128];

	if (!f)
		return "this kernel has no transparent huge pages";
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	if (strstr(line, "[never]"))
		return "transparent huge pages are set to never";
	return NULL;
}

/*
 * Whether the mapping holding @p carries the huge page hint ("hg" in
 * /proc/self/smaps' VmFlags); -1 if the mapping is not found.
 */
static int mapping_hinted(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	uintptr_t a = (uintptr_t)p;
	bool inside = false;
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			inside = a >= lo && a < hi;
			continue;
		}
		if (inside && strncmp(line, "VmFlags:", 8) == 0) {
			ret = strstr(line, " hg") != NULL;
			break;
		}
	}
	fclose(f);
	return ret;
}

/*
 * The last byte of malloc's heap after 64 MiB more of small blocks
 * (more than the loads freed): memory the heap grew by just now, which
 * only large-heap mode hints.  (A large block once carved from the heap
 * keeps its hint where it was.)
 */
static char *grow_heap(void)
{
	char *small;
	size_t i;

	for (i = 0; i < 64 * 1024; i++) {
		small = xmalloc(1000);
		small[0] = 1;
	}
	return (char *)sbrk(0) - 1;
}

/* Load @path (a rule file of some 5 MiB) with @large_heap; 0 on success. */
static int load_with(const char *path, bool large_heap)
{
	struct load_opts o = { .large_heap = large_heap };
	struct input_set inputs = { 0 };
	struct stmt_list stmts = { 0 };
	struct diag_list diags;
	const char *paths[] = { path };
	int ret;

	diag_list_init(&diags);
	ret = load_rules_opts(&inputs, paths, 1, &o, &stmts, &diags);
	stmt_list_free(&stmts);
	input_set_free(&inputs);
	diag_list_free(&diags);
	return ret;
}

/* 5 MiB of rules, 200,000 rows, to @f; false on a write error. */
static bool write_rules(FILE *f)
{
	size_t i;

	fputs("[fs]\n", f);
	for (i = 0; i < 200000; i++)
		fprintf(f, "deny: /srv/d%06zu/x\n", i);
	return fflush(f) == 0 && !ferror(f);
}

static void test_hints(void)
{
	const char *why = thp_unavailable();
	char path[] = "/tmp/test_hugemem-XXXXXX";
	FILE *f;
	char *big;
	int fd;
	size_t i;

	if (why) {
		for (i = 0; i < 5; i++)
			ok(1, "# SKIP %s", why);
		return;
	}
	big = xmalloc(MEM_LARGE_MIN);
	big[0] = 1;
	is_int(mapping_hinted(big + MEM_LARGE_MIN / 2), 1,
	       "a large block is hinted for huge pages");
	free(big);

#if defined(__GLIBC__) && !UNDER_ASAN
	fd = mkstemp(path);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (fd >= 0)
		unlink(path);
	if (!f || !write_rules(f)) {
		for (i = 0; i < 4; i++)
			ok(0, "cannot write a temporary rule file");
		if (f)
			fclose(f);
		else if (fd >= 0)
			close(fd);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	is_int(load_with(path, false), 0, "a 5 MiB rule file loads");
	is_int(mapping_hinted(grow_heap()), 0,
	       "without load_opts.large_heap (libvbox) the heap is left alone");
	is_int(load_with(path, true), 0, "... and loads with large_heap");
	is_int(mapping_hinted(grow_heap()), 1,
	       "with it (vboxc) the grown heap is hinted too");
	fclose(f);
#else
	(void)path;
	(void)f;
	(void)fd;
	(void)grow_heap;
	(void)load_with;
	(void)write_rules;
	for (i = 0; i < 4; i++)
		ok(1, "# SKIP large-heap mode is for glibc's malloc (not this one)");
#endif
}

/* 200,000 rows: chunks of growing size, every row where it was put. */
static void test_row_pool(void)
{
	struct row_pool pool = { 0 };
	struct row **rows = xcalloc(200000, sizeof(*rows));
	size_t i, bad = 0, dup = 0;
	struct row *last;

	for (i = 0; i < 200000; i++) {
		rows[i] = row_pool_alloc(&pool);
		if (rows[i]->index || rows[i]->raw)
			bad++;
		rows[i]->index = (uint32_t)i;
	}
	for (i = 0; i < 200000; i++) {
		if (rows[i]->index != i)
			bad++;
		if (i && rows[i] == rows[i - 1])
			dup++;
	}
	is_int((long long)bad, 0, "200,000 rows zeroed and kept apart");
	is_int((long long)dup, 0, "no row handed out twice in a row");
	row_pool_unalloc(&pool, rows[199999]);
	last = row_pool_alloc(&pool);
	ok(last == rows[199999] && last->index == 0,
	   "a row given back is handed out again, zeroed");
	row_pool_free(&pool);
	ok(pool.last == NULL, "a freed pool is empty");
	free(rows);
}

/* Is the page holding @p in memory (mincore)?  1, 0, or -1 on error. */
static int resident(const void *p)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char vec = 0;
	uintptr_t at = (uintptr_t)p & ~((uintptr_t)page - 1);

	if (page <= 0 || mincore((void *)at, (size_t)page, &vec) < 0)
		return -1;
	return vec & 1;
}

static void test_release(void)
{
	size_t big = 4 * MEM_LARGE_MIN, half = big / 2, i, bad = 0;
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *b = xmalloc(big), *small = xmalloc(4096);

	memset(b, 0xab, big);
	memset(small, 0xcd, 4096);
	mem_release(b, half);
	is_int(resident(b + half / 2), 0,
	       "a page wholly inside the released part is given back");
	for (i = (size_t)page; i < half - (size_t)page; i += (size_t)page)
		if (b[i] != 0)
			bad++;
	is_int((long long)bad, 0, "... and reads as zeros");
	ok(b[0] == 0xab && b[half + (size_t)page] == 0xab &&
	   b[big - 1] == 0xab,
	   "the block's first page (malloc's header) and the rest are kept");
	mem_release(small, 4096);
	ok(small[0] == 0xcd && small[4095] == 0xcd,
	   "a block below the large size is left alone");
	free(small);
	free(b);
}

/*
 * 60,000 statements (a list of 7 MB, past the large size and several
 * release steps): every row is made from its own statement.
 */
static void test_build_take(void)
{
	const size_t nrows = 60000;
	struct compile_opts opts = { .target = target_lookup("linux") };
	struct input_set inputs = { 0 };
	struct stmt_list stmts = { 0 };
	struct diag_list diags;
	struct table *t = NULL;
	size_t i, bad = 0;
	char *text = NULL, want[64];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	diag_list_init(&diags);
	if (!f) {
		ok(0, "cannot open a memory stream");
		return;
	}
	fputs("[fs]\n", f);
	for (i = 0; i < nrows; i++)
		fprintf(f, "%s: /srv/t%06zu/x\n", i % 3 ? "deny" : "ro", i);
	if (fclose(f) != 0) {
		ok(0, "cannot write the rules");
		free(text);
		return;
	}
	if (load_buffer(&inputs, "big.rules", text, len, &stmts, &diags) == 0)
		t = table_build_take(&stmts, &opts, &diags);
	ok(t && t->fs.n == nrows, "a table of %zu rows is built", nrows);
	ok(stmts.n == 0 && !stmts.items, "the statements are consumed");
	for (i = 0; t && i < t->fs.n; i++) {
		const struct row *r = t->fs.order[i];

		snprintf(want, sizeof(want), "/srv/t%06zu/x", i);
		if (strcmp(r->raw, want) || strcmp(r->fs.text, want) ||
		    r->effect != (i % 3 ? EFFECT_DENY : EFFECT_RO) ||
		    r->loc.line != i + 2)
			bad++;
	}
	is_int((long long)bad, 0, "each row has its own statement's target, "
	       "effect and line");
	table_free(t);
	input_set_free(&inputs);
	diag_list_free(&diags);
	free(text);
}

int main(void)
{
	test_grow_keeps_elements();
	test_hints();
	test_row_pool();
	test_release();
	test_build_take();
	return done_testing();
}
