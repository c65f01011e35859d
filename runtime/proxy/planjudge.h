/* SPDX-License-Identifier: MIT */
/*
 * planjudge.h - build the proxy's judge from a plan (emitters/plan.h).
 */
#ifndef VBOX_PLANJUDGE_H
#define VBOX_PLANJUDGE_H

struct judge;
struct plan;
struct plan_row;

/*
 * plan_net_by_prio - @p's network rows in priority order, checked to be
 * a permutation: a new array of borrowed rows (caller frees the array),
 * or NULL with *@err.
 */
const struct plan_row **plan_net_by_prio(const struct plan *p, char **err);

/*
 * judge_from_plan - @j gets @p's network rows in priority order and its
 * network posture.  Returns 0, or -1 with *@err (caller frees).
 */
int judge_from_plan(struct judge *j, const struct plan *p, char **err);

#endif /* VBOX_PLANJUDGE_H */
