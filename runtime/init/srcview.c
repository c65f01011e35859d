/* SPDX-License-Identifier: MIT */
/*
 * srcview.c - where the init clones a bind's source from (srcview.h).
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "fnv1a.h"
#include "mounts_int.h"
#include "nolink.h"
#include "srcview.h"

/* What is known of a path noted: a mount of the init lies strictly below
 * it; one that is not a same-path bind lies at it. */
enum {
	NOTE_BELOW = 1,
	NOTE_AT_OTHER = 2,
};

struct srcview_slot {
	uint32_t hash;
	uint32_t len;		/* 0: free (no path noted is empty) */
	size_t off;		/* of its bytes in @names */
	uint8_t flags;
};

/* The notes never take more than this; past it the view is dropped and
 * every bind clones from the sandbox. */
#define SRCVIEW_MAX_BYTES (64u << 20)

/* An absolute path with no empty, "." or ".." component and no trailing
 * '/' ("/" itself is one): the only spelling the rules compare. */
static bool clean(const char *p)
{
	const char *c = p;

	if (p[0] != '/')
		return false;
	if (!p[1])
		return true;
	while (*c == '/') {
		const char *e = ++c;

		while (*e && *e != '/')
			e++;
		if (e == c || (e - c == 1 && c[0] == '.') ||
		    (e - c == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c = e;
	}
	return true;
}

static void drop(struct srcview *v)
{
	if (v->root >= 0)
		close(v->root);
	free(v->slots);
	free(v->names);
	memset(v, 0, sizeof(*v));
	v->root = -1;
}

static struct srcview_slot *find(const struct srcview *v, const char *p,
				 size_t n, uint32_t h)
{
	size_t i = h & v->mask;

	for (;;) {
		struct srcview_slot *s = &v->slots[i];

		if (!s->len || (s->hash == h && s->len == n &&
				memcmp(v->names + s->off, p, n) == 0))
			return s;
		i = (i + 1) & v->mask;
	}
}

/* Twice the slots (1,024 at first), every note moved over. */
static bool grow(struct srcview *v)
{
	size_t oldn = v->slots ? v->mask + 1 : 0, newn, i;
	struct srcview_slot *old = v->slots;

	newn = oldn ? oldn * 2 : 1024;
	if (newn > SRCVIEW_MAX_BYTES / sizeof(*old))
		return false;
	v->slots = calloc(newn, sizeof(*v->slots));
	if (!v->slots) {
		v->slots = old;
		return false;
	}
	v->mask = newn - 1;
	for (i = 0; i < oldn; i++)
		if (old[i].len)
			*find(v, v->names + old[i].off, old[i].len,
			      old[i].hash) = old[i];
	free(old);
	return true;
}

/* @flag on the first @n bytes of @p; false: out of room. */
static bool mark(struct srcview *v, const char *p, size_t n, uint8_t flag)
{
	uint32_t h = fnv1a32(p, n);
	struct srcview_slot *s;
	size_t cap;
	char *names;

	if ((!v->slots || (v->n + 1) * 2 > v->mask + 1) && !grow(v))
		return false;
	s = find(v, p, n, h);
	if (s->len) {
		s->flags |= flag;
		return true;
	}
	if (n > SRCVIEW_MAX_BYTES - v->len)
		return false;
	if (v->len + n > v->cap) {
		cap = v->cap ? v->cap : 4096;
		while (cap < v->len + n)
			cap *= 2;
		names = realloc(v->names, cap);
		if (!names)
			return false;
		v->names = names;
		v->cap = cap;
	}
	memcpy(v->names + v->len, p, n);
	*s = (struct srcview_slot){ h, (uint32_t)n, v->len, flag };
	v->len += n;
	v->n++;
	return true;
}

static uint8_t flags_of(const struct srcview *v, const char *p, size_t n)
{
	const struct srcview_slot *s;

	if (!v->n)
		return 0;
	s = find(v, p, n, fnv1a32(p, n));
	return s->len ? s->flags : 0;
}

void srcview_open(struct srcview *v, size_t nbinds)
{
	memset(v, 0, sizeof(*v));
	v->root = -1;
	if (nbinds < SRCVIEW_MIN_BINDS)
		return;
	/* (A kernel without open_tree(): -1, nothing changes.) */
	v->root = (int)syscall(SYS_open_tree, AT_FDCWD, "/",
			       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
			       AT_RECURSIVE);
}

void srcview_note(struct srcview *v, const char *dest, bool same_path_bind)
{
	size_t n = strlen(dest), i;
	bool ok;

	if (v->root < 0)
		return;
	/* A spelling the rules cannot compare: no view from here on. */
	ok = clean(dest) && n < UINT32_MAX;
	if (ok && !same_path_bind)
		ok = mark(v, dest, n, NOTE_AT_OTHER);
	/* Each proper ancestor: "/", then "/a", "/a/b", ... */
	if (ok && n > 1)
		ok = mark(v, "/", 1, NOTE_BELOW);
	for (i = 1; ok && i < n; i++)
		if (dest[i] == '/')
			ok = mark(v, dest, i, NOTE_BELOW);
	if (!ok)
		drop(v);
}

int srcview_take(struct srcview *v, const char *src)
{
	size_t n, i;

	if (v->root < 0 || !clean(src) || !src[1])
		return -1;
	n = strlen(src);
	if (flags_of(v, src, n) & (NOTE_BELOW | NOTE_AT_OTHER) ||
	    flags_of(v, "/", 1) & NOTE_AT_OTHER)
		return -1;
	for (i = 1; i < n; i++)
		if (src[i] == '/' && (flags_of(v, src, i) & NOTE_AT_OTHER))
			return -1;
	return nolink_open(v->root, src + 1, 0, RESOLVE_BENEATH);
}

void srcview_close(struct srcview *v)
{
	drop(v);
}
