/* SPDX-License-Identifier: MIT */
/*
 * planjudge.c - the judge from a loaded plan: its network rows in
 * priority order (the order explain evaluates), and its posture.
 */
#include <vbox.h>

#include "ir.h"
#include "judge.h"
#include "plan.h"
#include "planjudge.h"

const struct plan_row **plan_net_by_prio(const struct plan *p, char **err)
{
	const struct plan_row **by_prio;
	size_t i;

	by_prio = xcalloc(p->nnet ? p->nnet : 1, sizeof(*by_prio));
	for (i = 0; i < p->nnet; i++) {
		/* plan_decode checked that prio is a permutation */
		if (p->net[i].prio >= p->nnet || by_prio[p->net[i].prio]) {
			*err = xstrdup("plan: bad network row priorities");
			free(by_prio);
			return NULL;
		}
		by_prio[p->net[i].prio] = &p->net[i];
	}
	return by_prio;
}

int judge_from_plan(struct judge *j, const struct plan *p, char **err)
{
	const struct plan_row **by_prio;
	size_t i;
	int rc = 0;

	judge_init(j, p->default_net == EFFECT_ALLOW);
	by_prio = plan_net_by_prio(p, err);
	if (!by_prio) {
		judge_release(j);
		return -1;
	}
	for (i = 0; i < p->nnet; i++) {
		const struct plan_row *r = by_prio[i];

		if (judge_add_row(j, r->effect == EFFECT_ALLOW, r->target,
				  r->index, r->level, r->source, err) != 0) {
			rc = -1;
			break;
		}
	}
	free(by_prio);
	if (rc)
		judge_release(j);
	return rc;
}
