/* SPDX-License-Identifier: MIT */
/*
 * test_hugemem.c - large allocations on huge pages (util/hugemem.h) and
 * the growth paths that use them: an array grown past the large size
 * keeps every element, a large block and the large-mode heap carry the
 * kernel's huge page hint, the heap is put on huge pages only when the
 * program asks the loader for it (never for libvbox's loads), and a row
 * pool's growing chunks keep every row where it was handed out.
 */
#include <vbox.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

int main(void)
{
	test_grow_keeps_elements();
	test_hints();
	test_row_pool();
	return done_testing();
}
