/* SPDX-License-Identifier: MIT */
/*
 * test_childmem.c - child_read_str() (runtime/supervisor/childmem.h),
 * the supervisors' reader of a string in the child's memory, over a
 * fake memory of three pages whose third is unmapped: strings within a
 * page, across a page boundary, ending on a page's last byte, running
 * into the unmapped page, of exactly the bound and one past it; the
 * reader asked for one page at most and never past the string's page;
 * the result's block as long as the string, not a page.
 */
#include <vbox.h>

#include <errno.h>
#include <malloc.h>
#include <stdio.h>

#include "supervisor/childmem.h"
#include "tap.h"

#define PAGE 4096u
#define BASE 0x10000u		/* the fake memory's address */
#define MAPPED (2 * PAGE)	/* two pages mapped, the third not */

struct fake {
	char mem[MAPPED];
	size_t calls;
	size_t longest;		/* the largest read asked for */
	uint64_t furthest;	/* the end of the furthest read */
	int fail_at_call;	/* this call fails (0: none) */
	int fail_with;
};

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct fake *f = ctx;

	f->calls++;
	if (len > f->longest)
		f->longest = len;
	if (addr + len > f->furthest)
		f->furthest = addr + len;
	if (f->fail_at_call && (int)f->calls == f->fail_at_call)
		return f->fail_with;
	if (addr < BASE || addr + len > BASE + MAPPED)
		return EFAULT;
	memcpy(buf, f->mem + (addr - BASE), len);
	return 0;
}

/* Put @len bytes of 'a'..'z' and a NUL at offset @at; its address. */
static uint64_t put(struct fake *f, size_t at, size_t len)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	memset(f->mem, 'x', sizeof(f->mem));
	for (i = 0; i < len; i++)
		f->mem[at + i] = (char)('a' + i % 26);
	f->mem[at + len] = '\0';
	return BASE + at;
}

/* Read the string of @len bytes at @at; whether it came back whole. */
static bool reads_back(struct fake *f, size_t at, size_t len, size_t max)
{
	char *s = NULL;
	int rc;

	rc = child_read_str(fake_read, f, put(f, at, len), max, ENAMETOOLONG,
			    &s);
	if (rc || !s || strlen(s) != len ||
	    memcmp(s, f->mem + at, len + 1) != 0) {
		diag("at %zu, %zu bytes: rc %d", at, len, rc);
		free(s);
		return false;
	}
	free(s);
	return true;
}

/* A string across a page whose second read fails with @err. */
static int fail_second_page(struct fake *f, int err, char **s)
{
	uint64_t addr = put(f, PAGE - 10, 30);

	f->fail_at_call = 2;
	f->fail_with = err;
	return child_read_str(fake_read, f, addr, 4095, ENAMETOOLONG, s);
}

int main(void)
{
	struct fake f;
	char *s;
	int rc;

	ok(reads_back(&f, 100, 20, 4095), "a short string within a page");
	is_int(f.calls, 1, "... one read");
	ok(f.longest <= PAGE && f.furthest == BASE + PAGE,
	   "... of the rest of its page, no further");

	ok(reads_back(&f, PAGE - 10, 30, 4095), "a string across a page");
	is_int(f.calls, 2, "... two reads");
	ok(f.furthest <= BASE + MAPPED, "... within the mapped pages");

	ok(reads_back(&f, PAGE - 21, 20, 4095),
	   "a string whose NUL is its page's last byte");
	is_int(f.calls, 1, "... one read, the next page untouched");

	/* The NUL is the mapped memory's last byte: the unmapped page
	 * after it is never read. */
	ok(reads_back(&f, MAPPED - 101, 100, 4095),
	   "a string that ends just before an unmapped page");
	ok(f.furthest == BASE + MAPPED, "... which is never read");

	ok(reads_back(&f, 5, 4095, 4095), "a string of exactly the bound");
	rc = child_read_str(fake_read, &f, put(&f, 5, 4096), 4095,
			    ENAMETOOLONG, &s);
	is_int(rc, ENAMETOOLONG, "one byte past the bound: too long");
	ok(s == NULL, "... and no string");

	/* No NUL before the unmapped page. */
	memset(&f, 0, sizeof(f));
	memset(f.mem, 'y', sizeof(f.mem));
	rc = child_read_str(fake_read, &f, BASE + MAPPED - 50, 4095,
			    ENAMETOOLONG, &s);
	is_int(rc, EFAULT, "a string running into an unmapped page: EFAULT");
	ok(s == NULL, "... and no string");

	rc = child_read_str(fake_read, &f, 0, 4095, ENAMETOOLONG, &s);
	is_int(rc, EFAULT, "a NULL address: EFAULT");

	rc = fail_second_page(&f, ESRCH, &s);
	is_int(rc, ESRCH, "the child gone between two pages: ESRCH");
	ok(s == NULL, "... and no string");
	rc = fail_second_page(&f, EIO, &s);
	is_int(rc, EFAULT, "any other failure of a read: EFAULT");
	ok(s == NULL, "... and no string");

	/* A block the size of a page for every call made musl's malloc
	 * map and unmap memory once a call (bench/README.md). */
	rc = child_read_str(fake_read, &f, put(&f, 100, 20), 4095,
			    ENAMETOOLONG, &s);
	ok(rc == 0 && s && malloc_usable_size(s) < 256,
	   "the string's block is as long as the string, not a page");
	free(s);

	ok(reads_back(&f, 0, 0, 4095), "the empty string");
	ok(reads_back(&f, 7, 3000, 4000),
	   "a long string across a page, below its bound");
	return done_testing();
}
