/* SPDX-License-Identifier: MIT */
/*
 * pathjudge.c - the table's answer for supervised path calls
 * (pathjudge.h).
 */
#include <vbox.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>

#include "landing.h"
#include "follow.h"
#include "ir.h"
#include "launch.h"
#include "supervisor/paths/pathcall_run.h"
#include "pathjudge.h"
#include "plan.h"
#include "strbuf.h"
#include "walls/container_rules.h"

/* The most bytes of a path shown in a notice (then "..."). */
#define NOTICE_PATH_MAX 240

struct pathjudge {
	const struct plan *plan;
	struct follow_view *view;	/* read only once made */
	const struct container_rules *regions;	/* container mode */
	/* the notices: the paths thread and the loop (bind) both judge */
	pthread_mutex_t lock;
	char *notice[PATHJUDGE_NOTICES_MAX];
	size_t nnotice;
	unsigned long more;
};

struct pathjudge *pathjudge_new(const struct plan *plan, char **err)
{
	struct pathjudge *pj = xzalloc(sizeof(*pj));

	pj->plan = plan;
	pj->view = follow_view_new(plan, err);
	if (!pj->view) {
		free(pj);
		return NULL;
	}
	pthread_mutex_init(&pj->lock, NULL);
	return pj;
}

void pathjudge_free(struct pathjudge *pj)
{
	size_t i;

	if (!pj)
		return;
	if (pj->more)
		fprintf(stderr, "vbox: %lu more file refusals not shown "
			"(--log shows each)\n", pj->more);
	for (i = 0; i < pj->nnotice; i++)
		free(pj->notice[i]);
	pthread_mutex_destroy(&pj->lock);
	follow_view_free(pj->view);
	free(pj);
}

/* @path as a notice shows it: printable ASCII, bounded, escaped. */
static void shown_path(struct strbuf *b, const char *path)
{
	size_t i;

	for (i = 0; path[i] && i < NOTICE_PATH_MAX; i++) {
		unsigned char c = (unsigned char)path[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			strbuf_putc(b, (char)c);
		else {
			char hex[5];

			snprintf(hex, sizeof(hex), "\\x%02x", c);
			strbuf_puts(b, hex);
		}
	}
	if (path[i])
		strbuf_puts(b, "...");
}

static void notice(struct pathjudge *pj, const char *what, const char *path,
		   unsigned want, const struct plan_row *row)
{
	struct strbuf line = { 0 };
	size_t i;

	char *tail;

	strbuf_puts(&line, "vbox: refused ");
	strbuf_puts(&line, what);
	strbuf_puts(&line, " of ");
	shown_path(&line, path);
	tail = xasprintf(" (%s) by row %u '%s: %s' (%s)",
			 want & PJ_WRITE ? "write" : "read", row->index,
			 effect_name((enum effect)row->effect), row->target,
			 row->source);
	strbuf_puts(&line, tail);
	free(tail);
	pthread_mutex_lock(&pj->lock);
	vx_log("supervisor: %s", line.s);
	if (vx_quiet)
		goto out;
	for (i = 0; i < pj->nnotice; i++)
		if (strcmp(pj->notice[i], line.s) == 0)
			goto out;
	if (pj->nnotice == PATHJUDGE_NOTICES_MAX) {
		pj->more++;
		goto out;
	}
	pj->notice[pj->nnotice++] = line.s;
	line.s = NULL;
	fprintf(stderr, "%s\n", pj->notice[pj->nnotice - 1]);
	fflush(stderr);
out:
	pthread_mutex_unlock(&pj->lock);
	free(line.s);
}

void pathjudge_hold_regions(struct pathjudge *pj,
			    const struct container_rules *regions)
{
	pj->regions = regions;
}

/*
 * Container mode: what the mounts would say in namespace mode, from the
 * same instantiated mount list read as a map of regions
 * (container_rules.h).  A region of none is a deny cover (EACCES), one
 * without write a read-only mount (EROFS).  Two regions grant less than
 * a whole subtree: the container's /dev, which lists but opens only the
 * devices that have a region of their own, and those devices, which are
 * written but neither made nor removed (/dev/pts is one, a directory):
 * there the kind of the file decides, looked at with lstat() (nothing
 * of the sandbox can make, remove or rename an entry there).
 */
static int judge_region(const struct pathjudge *pj, const char *path,
			unsigned want)
{
	uint64_t r = container_rights_at(pj->regions, path);
	struct stat st;
	bool dir;

	if (!(r & CR_READ))
		return EACCES;			/* a deny cover */
	if ((r & CR_ALL) == CR_ALL)
		return 0;			/* a writable bind */
	if ((r & CR_READ) == CR_READ && !(r & CR_WRITE))
		return want & PJ_WRITE ? EROFS : 0;	/* read-only */
	/* /dev, and the devices it opens */
	dir = lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
	if ((want & PJ_READ) && !(r & CR_READ_FILE) && !dir)
		return EACCES;
	if (want & PJ_WRITE)
		return (r & CR_WRITE_FILE) && !dir ? 0 : EROFS;
	return 0;
}

int pathjudge_judge(void *ctx, const char *path, unsigned want,
		    const char *what)
{
	struct pathjudge *pj = ctx;
	const struct plan_row *row;
	int rc;

	if (follow_decide(pj->view, path, &row) < 0)
		return EACCES;	/* not a path the table can judge */
	if ((!row || row->landing != LANDING_SUPERVISED) && pj->regions) {
		rc = judge_region(pj, path, want);
		if (rc && what)
			vx_log("supervisor: refused %s of %s (%s): %s", what,
			       path, want & PJ_WRITE ? "write" : "read",
			       rc == EROFS ? "read-only there" :
			       "denied there");
		return rc;
	}
	if (!row || row->landing != LANDING_SUPERVISED)
		return 0;	/* the mounts hold it */
	if (row->effect == EFFECT_DENY)
		rc = EACCES;
	else if (row->effect == EFFECT_RO && (want & PJ_WRITE))
		rc = EROFS;
	else
		return 0;
	if (what)
		notice(pj, what, path, want, row);
	return rc;
}

/* Does a region start at or below @dir? */
static bool region_below(const struct container_rules *cr, const char *dir)
{
	size_t i, n = strlen(dir);

	for (i = 0; i < cr->nregions; i++) {
		const char *p = cr->regions[i].path;

		if (strncmp(p, dir, n) == 0 && (p[n] == '/' || !p[n] ||
						 (n == 1 && dir[0] == '/')))
			return true;
	}
	return false;
}

bool pathjudge_below(void *ctx, const char *a, const char *b)
{
	const struct pathjudge *pj = ctx;

	if (!pj->regions)
		return follow_below_may_differ(pj->view, a, b,
					       LANDING_SUPERVISED);
	/* container mode: every row is the supervisor's, and every region */
	return follow_below_may_differ(pj->view, a, b, FOLLOW_ANY_LANDING) ||
	       region_below(pj->regions, a) || region_below(pj->regions, b);
}
