/* SPDX-License-Identifier: MIT */
/*
 * linux_container.h - how a table lands in linux container mode
 * (vbox-exec --mode=container: no namespaces; Landlock, the seccomp
 * filters and the socket supervisor), for vboxc preflight and check
 * --mode=container (doc/targets.md, "linux, container mode").
 *
 * A pure function of the analysed table, like every classifier: what
 * the host file system holds (a denied path's type, a glob's matches) is
 * the launcher's business, and the reasons say so where it matters.
 */
#ifndef VBOX_LINUX_CONTAINER_H
#define VBOX_LINUX_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>

#include "emit.h"

struct table;
struct diag_list;

/**
 * enum ctr_kind - how one row lands in container mode
 * @CTR_KERNEL: Landlock holds it exactly (a write or read grant)
 * @CTR_PROXY: the egress proxy judges it; the socket supervisor admits
 *             inet connects to the proxy's loopback ports alone
 * @CTR_SUPERVISED: the socket supervisor admits direct connects to the
 *                  loopback addresses at its port (and the proxy judges
 *                  it too)
 * @CTR_ABSORBED: needs nothing (dead, redundant, or an allow whose
 *                omission only narrows)
 * @CTR_NARROWER: held, but the sandbox is narrower than the table around
 *                it; vbox-exec refuses it unless --accept-narrower
 * @CTR_UNSUPPORTED: cannot be held: vbox-exec --mode=container refuses
 *                   the plan
 */
enum ctr_kind {
	CTR_KERNEL,
	CTR_PROXY,
	CTR_SUPERVISED,
	CTR_ABSORBED,
	CTR_NARROWER,
	CTR_UNSUPPORTED,
};

/**
 * struct ctr_landings - a table's classification in container mode
 * @set: one entry per row as for a target (emit.h); @kind is the nearest
 *       enum landing_kind (kernel for supervised and narrower rows) and
 *       @label the container mode's name ("supervised", "narrower", ...)
 * @fs: the container kind of each file row, by row index
 * @net: the container kind of each network row, by row index
 * @nnarrower: number of CTR_NARROWER rows
 * @nunsupported: number of CTR_UNSUPPORTED rows
 */
struct ctr_landings {
	struct landing_set set;
	enum ctr_kind *fs;
	enum ctr_kind *net;
	size_t nnarrower;
	size_t nunsupported;
};

/*
 * linux_container_classify - classify every row of @table (analysed, for
 * the linux target) for container mode into @out (free with
 * linux_container_free()).  Never fails.
 */
void linux_container_classify(const struct table *table,
			      struct ctr_landings *out);
void linux_container_free(struct ctr_landings *c);

/*
 * linux_container_report - queue, at each row, one error per narrower
 * row on @narrower ("row N 'ROW' is narrower in container mode: REASON;
 * accepted by vbox-exec --accept-narrower"), a note instead when
 * @accept_narrower, and one error per unsupported row on @unsupported
 * ("row N 'ROW' is unsupported on linux in container mode: REASON"), in
 * table order, file rows first.  The two lists may be the same.  Returns
 * 0, or -1 when an error was queued.
 */
int linux_container_report(const struct ctr_landings *c,
			   bool accept_narrower, struct diag_list *narrower,
			   struct diag_list *unsupported);

/* ctr_kind_name - "kernel", "proxy", "supervised", ... */
const char *ctr_kind_name(enum ctr_kind kind);

#endif /* VBOX_LINUX_CONTAINER_H */
