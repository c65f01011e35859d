/* SPDX-License-Identifier: MIT */
/*
 * follow.h - the table's view of a resolved host path, for mounts whose
 * host path runs through a symbolic link (doc/launcher.md, "Pinned
 * paths").
 *
 * A mount on a path that runs through a link lands on the link's target.
 * That is faithful only when the plan gives the target, and everything
 * below it, the very effect the mount gives: the `vboxc explain --follow`
 * view.  The launcher then mounts the target itself; otherwise it
 * refuses.  The question is answered from the plan's rows alone, with
 * the compiler's own matcher, so `explain --follow` and the launcher
 * cannot disagree about a path.
 */
#ifndef VBOX_FOLLOW_H
#define VBOX_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>

struct plan;
struct follow_view;

/*
 * follow_view_new - compile @plan's file rows, in priority order.
 * Returns the view (caller frees with follow_view_free()), or NULL with a
 * message in *@err (caller frees) when a row's pattern does not parse.
 */
struct follow_view *follow_view_new(const struct plan *plan, char **err);
void follow_view_free(struct follow_view *v);

/*
 * follow_same_effect - does the table give the cleaned absolute @path and
 * every path below it @effect (EFFECT_DENY, EFFECT_RO or EFFECT_RW)?
 * Reads are allowed and writes follow @default write where no row
 * matches.  *@decider is the row that decides @path itself, or UINT32_MAX
 * when the default does; *@effect_out is the effect at @path.  Where the
 * answer is "no" because a row decides some path below @path differently,
 * *@decider names that row, *@effect_out is its effect and *@below is
 * set.
 */
bool follow_same_effect(const struct follow_view *v, const char *path,
			uint8_t effect, uint32_t *decider, uint8_t *effect_out,
			bool *below);

/*
 * follow_decide - *@row: the row that decides the absolute @path (the
 * first that matches, in priority order: `vboxc explain`'s answer), or
 * NULL when none matches (the defaults decide).  0, or -1 when @path
 * does not parse (the caller refuses).
 */
struct plan_row;
int follow_decide(const struct follow_view *v, const char *path,
		  const struct plan_row **row);

/*
 * follow_below_may_differ - might a row landing @landing (any row:
 * FOLLOW_ANY_LANDING, where a row that decides everything below both
 * ends the look, since no later row decides there) decide some path
 * below @a differently from the same path below @b?  Errs towards yes;
 * "no" for rows that match by a path's last segment alone and have no
 * row before them that might meet @a or @b.
 */
#define FOLLOW_ANY_LANDING 0xffu
bool follow_below_may_differ(const struct follow_view *v, const char *a,
			     const char *b, uint8_t landing);

#endif /* VBOX_FOLLOW_H */
