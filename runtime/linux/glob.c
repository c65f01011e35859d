/* SPDX-License-Identifier: MIT */
/*
 * glob.c - expanding a pattern against the host file system at launch
 * (glob.h).  Owned here: the bounded directory walk; nothing else of the
 * launcher reads directories.
 */
#include <vbox.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fspath.h"
#include "glob.h"
#include "strv.h"

/*
 * Split the normalized absolute @text (modified: '/' become NULs) into
 * segments.  Returns the count, or -1 when there are too many.
 */
size_t glob_seg_bound(const char *text)
{
	size_t n = 1;

	/* every segment but the first follows a '/' */
	for (; *text; text++)
		n += *text == '/';
	return n < GLOB_MAX_SEGS ? n : GLOB_MAX_SEGS;
}

int glob_split(char *text, struct pseg *segs, size_t max)
{
	size_t n = 0;
	char *p = text;

	while (*p) {
		char *start;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		if (n == max)
			return -1;
		start = p;
		while (*p && *p != '/')
			p++;
		if (*p)
			*p++ = '\0';
		segs[n].s = start;
		segs[n].len = strlen(start);
		if (strcmp(start, "**") == 0)
			segs[n].kind = SEG_STARSTAR;
		else if (strpbrk(start, "*?"))
			segs[n].kind = SEG_GLOB;
		else
			segs[n].kind = SEG_LIT;
		n++;
	}
	return (int)n;
}

struct walk {
	const struct pseg *segs;
	size_t nsegs;
	size_t nlit;
	size_t entries;
	struct strv out;
	char *err;
};

static char *path_join(const char *dir, const char *name)
{
	if (strcmp(dir, "/") == 0)
		return xasprintf("/%s", name);
	return xasprintf("%s/%s", dir, name);
}

static int walk_count(struct walk *w)
{
	if (++w->entries <= GLOB_WALK_MAX_ENTRIES)
		return 0;
	w->err = xasprintf("the walk looks at more than %d entries",
			   GLOB_WALK_MAX_ENTRIES);
	return -1;
}

static int walk(struct walk *w, const char *dir, size_t i, size_t depth);

/* Are segments @i and after all "**" (or none): the path matches here? */
static bool rest_starstar(const struct walk *w, size_t i)
{
	for (; i < w->nsegs; i++)
		if (w->segs[i].kind != SEG_STARSTAR)
			return false;
	return true;
}

/* Segment @i is literal: one lookup, following symbolic links. */
static int walk_lit(struct walk *w, const char *dir, size_t i, size_t depth)
{
	char *child = path_join(dir, w->segs[i].s);
	struct stat st;
	int ret = 0;

	if (walk_count(w) < 0)
		goto out;
	if (i + 1 == w->nsegs) {
		if (lstat(child, &st) == 0)
			strv_add(&w->out, child);
		goto out;
	}
	if (stat(child, &st) == 0 && S_ISDIR(st.st_mode))
		ret = walk(w, child, i + 1, depth + (i >= w->nlit));
	else if (lstat(child, &st) == 0 && rest_starstar(w, i + 1))
		strv_add(&w->out, child);
out:
	free(child);
	return w->err ? -1 : ret;
}

/*
 * Segment @i is a glob or "**": read @dir.  Entries reached through a
 * wildcard are never descended through a symbolic link, so the walk stays
 * inside the tree and cannot loop.
 */
static int walk_dir(struct walk *w, const char *dir, size_t i, size_t depth)
{
	const struct pseg *seg = &w->segs[i];
	struct strv names = { 0 };
	struct dirent *de;
	size_t k;
	DIR *d;
	int ret = 0;

	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		w->err = xasprintf("cannot read directory '%s': %s", dir,
				   strerror(errno));
		return -1;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (walk_count(w) < 0) {
			ret = -1;
			break;
		}
		strv_add(&names, de->d_name);
	}
	if (!ret && errno) {
		w->err = xasprintf("cannot read directory '%s': %s", dir,
				   strerror(errno));
		ret = -1;
	}
	closedir(d);
	for (k = 0; !ret && k < names.n; k++) {
		char *child = path_join(dir, names.v[k]);
		struct stat st;
		bool isdir = lstat(child, &st) == 0 && S_ISDIR(st.st_mode);

		if (seg->kind == SEG_STARSTAR) {
			/* "**" takes this entry and stays for the next. */
			if (isdir)
				ret = walk(w, child, i, depth + 1);
			else if (rest_starstar(w, i + 1))
				strv_add(&w->out, child);
		} else if (fs_seg_glob_match(seg->s, seg->len, names.v[k],
					     strlen(names.v[k]))) {
			if (rest_starstar(w, i + 1))
				strv_add(&w->out, child);
			if (isdir && i + 1 < w->nsegs)
				ret = walk(w, child, i + 1, depth + 1);
		}
		free(child);
	}
	strv_release(&names);
	return ret;
}

static int walk(struct walk *w, const char *dir, size_t i, size_t depth)
{
	int ret;

	if (depth > GLOB_WALK_MAX_DEPTH) {
		w->err = xasprintf("the walk goes more than %d levels deep",
				   GLOB_WALK_MAX_DEPTH);
		return -1;
	}
	if (i == w->nsegs) {
		strv_add(&w->out, dir);
		return 0;
	}
	switch (w->segs[i].kind) {
	case SEG_LIT:
		return walk_lit(w, dir, i, depth);
	case SEG_STARSTAR:
		/* Zero segments first, then one more per directory level. */
		ret = walk(w, dir, i + 1, depth);
		if (ret < 0)
			return ret;
		return walk_dir(w, dir, i, depth);
	case SEG_GLOB:
		return walk_dir(w, dir, i, depth);
	default:
		BUG("bad segment kind");
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int glob_expand(const char *pattern, char ***paths, size_t *npaths,
		      char **err)
{
	struct pseg *segs;
	struct walk w;
	char *text;
	size_t i, n, max;
	int nsegs, ret = -1;

	*paths = NULL;
	*npaths = 0;
	*err = NULL;
	if (pattern[0] != '/' || strlen(pattern) >= PATH_MAX) {
		*err = xasprintf("'%s' is not an absolute pattern", pattern);
		return -1;
	}
	text = xstrdup(pattern);
	max = glob_seg_bound(text);
	segs = xcalloc(max, sizeof(*segs));
	nsegs = glob_split(text, segs, max);
	memset(&w, 0, sizeof(w));
	if (nsegs < 0) {
		*err = xasprintf("'%s' has too many segments", pattern);
		goto out;
	}
	w.segs = segs;
	w.nsegs = (size_t)nsegs;
	while (w.nlit < w.nsegs && segs[w.nlit].kind == SEG_LIT)
		w.nlit++;
	if (w.nlit == 0 && w.nsegs > 0) {
		*err = xasprintf("'%s' starts with a wildcard", pattern);
		goto out;
	}
	if (walk(&w, "/", 0, 0) < 0) {
		*err = xasprintf("cannot expand '%s': %s", pattern, w.err);
		strv_release(&w.out);
		goto out;
	}
	if (w.out.n)	/* qsort(NULL, 0) is undefined */
		qsort(w.out.v, w.out.n, sizeof(*w.out.v), cmp_str);
	/* "**" can reach one path along several routes. */
	for (i = n = 0; i < w.out.n; i++) {
		if (n && strcmp(w.out.v[n - 1], w.out.v[i]) == 0) {
			free(w.out.v[i]);
			continue;
		}
		w.out.v[n++] = w.out.v[i];
	}
	*paths = w.out.v;
	*npaths = n;
	ret = 0;
out:
	free(w.err);
	free(segs);
	free(text);
	return ret;
}

char *glob_prefix(const char *text, size_t nlit)
{
	size_t pos = 0, i;

	if (text[0] != '/' || nlit == 0)
		return xstrdup("/");
	for (i = 0; i < nlit && text[pos] == '/'; i++) {
		pos++;
		while (text[pos] && text[pos] != '/')
			pos++;
	}
	return xstrndup(text, pos);
}
