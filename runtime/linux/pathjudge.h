/* SPDX-License-Identifier: MIT */
/*
 * pathjudge.h - the table's answer for a supervised path call
 * (doc/launcher.md, "Supervised paths"): the row that decides a path is
 * found with the compiler's own matcher (follow.h: `vboxc explain`'s
 * answer); when that row lands `supervised`, the supervisor enforces it
 * (deny: EACCES; ro: EROFS for a write); any other row is held by the
 * mounts, and the supervisor adds nothing.  In container mode there are
 * no mounts: what they would hold, the region map of the same mount list
 * holds (pathjudge_hold_regions()).  Refusals are noticed on
 * stderr, one line per distinct refusal (at most PATHJUDGE_NOTICES_MAX,
 * then counted; none with --quiet), and each one with --log.
 */
#ifndef VBOX_PATHJUDGE_H
#define VBOX_PATHJUDGE_H

#include <stdbool.h>

struct container_rules;
struct plan;
struct pathjudge;

#define PATHJUDGE_NOTICES_MAX 20

/* pathjudge_new - for @plan (borrowed: it outlives the judge).  NULL with
 * *@err when a row's pattern does not parse. */
struct pathjudge *pathjudge_new(const struct plan *plan, char **err);

/*
 * pathjudge_hold_regions - container mode: the paths no supervised row
 * decides are judged by @regions (borrowed: it outlives the judge), as
 * the mounts of the same list would hold them in namespace mode; a
 * rename's look below a directory considers every row and region.
 */
void pathjudge_hold_regions(struct pathjudge *pj,
			    const struct container_rules *regions);

/* Prints the "N more refusals" line, if any, and frees. */
void pathjudge_free(struct pathjudge *pj);

/* pathcall_judge_fn (pathcall_run.h) on a struct pathjudge. */
int pathjudge_judge(void *ctx, const char *path, unsigned want,
		    const char *what);

/* pathcall_below_fn: might a supervised row tell a path below @a from
 * the same path below @b? */
bool pathjudge_below(void *ctx, const char *a, const char *b);

#endif /* VBOX_PATHJUDGE_H */
