/* SPDX-License-Identifier: MIT */
/*
 * above.c - the plan's rows by priority, indexed by literal prefix, for
 * the instantiation's "decided above?" question (above.h).
 */
#include <vbox.h>

#include "above.h"
#include "fspath.h"
#include "grow.h"
#include "strbuf.h"
#include "target.h"

/* vbox-exec runs linux plans only: case kept, no drive letters. */
static const struct target_traits above_paths = {
	.id = TARGET_LINUX,
	.name = "linux",
};

/* "/seg0/seg1/..." of the first @n segments of @segs ("/" for none). */
static char *prefix_text(const struct seg *segs, uint32_t n)
{
	struct strbuf b = { 0 };
	size_t len = 1;
	uint32_t i;

	if (!n)
		return xstrdup("/");
	for (i = 0; i < n; i++)
		len += segs[i].len + 1;
	strbuf_reserve(&b, len);	/* one allocation, not one a doubling */
	for (i = 0; i < n; i++) {
		strbuf_putc(&b, '/');
		strbuf_add(&b, segs[i].s, segs[i].len);
	}
	return b.s;
}

static void push_prio(uint32_t **v, size_t *n, size_t *cap, uint32_t prio)
{
	GROW(*v, *cap, *n + 1);
	(*v)[(*n)++] = prio;
}

/* Hang pattern @prio (compiled) by its literal prefix. */
static void hang(struct above_index *a, uint32_t prio)
{
	const struct fs_pattern *p = &a->pats[prio];
	size_t g;
	char *key;

	if (p->nlit == 0) {
		push_prio(&a->wild, &a->nwild, &a->wildcap, prio);
		return;
	}
	key = prefix_text(p->segs, p->nlit);
	if (pathmap_get(&a->groups, key, &g)) {
		free(key);
	} else {
		g = a->ngroups++;
		if (a->ngroups > a->groups_cap) {
			/* the four arrays grow together, doubling */
			size_t c = a->groups_cap;

			GROW(a->keys, c, a->ngroups);
			a->members = xreallocarray(a->members, c,
						   sizeof(*a->members));
			a->nmembers = xreallocarray(a->nmembers, c,
						    sizeof(*a->nmembers));
			a->cap = xreallocarray(a->cap, c, sizeof(*a->cap));
			a->groups_cap = c;
		}
		a->keys[g] = key;
		a->members[g] = NULL;
		a->nmembers[g] = a->cap[g] = 0;
		pathmap_put_max(&a->groups, key, g);
	}
	push_prio(&a->members[g], &a->nmembers[g], &a->cap[g], prio);
}

int above_extend(struct above_index *a, const char *const *texts, size_t n,
		 char **err)
{
	char *msg = NULL;

	if (a->texts != texts) {
		above_release(a);
		a->texts = texts;
	}
	if (n <= a->n)
		return 0;
	GROW(a->pats, a->pats_cap, n);
	for (; a->n < n; a->n++) {
		if (fs_pattern_from_text(texts[a->n], &above_paths,
					 &a->pats[a->n], &msg) < 0) {
			*err = xasprintf("a row before it: %s", msg);
			free(msg);
			return -1;
		}
		hang(a, (uint32_t)a->n);
	}
	return 0;
}

/* Does a pattern of @prios (ascending), tried before @nabove, decide? */
static bool any_decides(const struct above_index *a, const uint32_t *prios,
			size_t n, size_t nabove, const struct fs_path *q,
			bool subtree)
{
	size_t i;

	for (i = 0; i < n && prios[i] < nabove; i++)
		if (subtree ? fs_match_subtree(&a->pats[prios[i]], q) :
			      fs_match(&a->pats[prios[i]], q))
			return true;
	return false;
}

bool above_decides(const struct above_index *a, size_t nabove,
		   const char *path, bool subtree)
{
	struct fs_path q;
	struct strbuf key = { 0 };
	char *err = NULL;
	bool hit = false;
	uint32_t d;
	size_t g;

	if (!nabove)
		return false;
	if (nabove > a->n)
		BUG("above_decides: %zu rows asked, %zu compiled", nabove,
		    a->n);
	if (fs_path_parse(path, &above_paths, &q, &err) < 0) {
		free(err);
		return false;
	}
	hit = any_decides(a, a->wild, a->nwild, nabove, &q, subtree);
	/* "/", then each ancestor, then the path itself: never longer than
	 * @path (one allocation, not one a doubling) */
	strbuf_reserve(&key, strlen(path) + 2);
	strbuf_puts(&key, "/");
	for (d = 0; !hit && d <= q.nsegs; d++) {
		if (d > 0) {
			if (d > 1)
				strbuf_putc(&key, '/');
			strbuf_add(&key, q.segs[d - 1].s, q.segs[d - 1].len);
		}
		if (pathmap_get(&a->groups, key.s, &g))
			hit = any_decides(a, a->members[g], a->nmembers[g],
					  nabove, &q, subtree);
	}
	free(key.s);
	fs_path_free(&q);
	return hit;
}

void above_release(struct above_index *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		fs_pattern_free(&a->pats[i]);
	free(a->pats);
	pathmap_release(&a->groups);
	for (i = 0; i < a->ngroups; i++) {
		free(a->keys[i]);
		free(a->members[i]);
	}
	free(a->keys);
	free(a->members);
	free(a->nmembers);
	free(a->cap);
	free(a->wild);
	memset(a, 0, sizeof(*a));
}
