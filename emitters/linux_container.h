/* SPDX-License-Identifier: MIT */
/*
 * linux_container.h - how a table lands in linux container mode
 * (vbox-exec --mode=container: no namespaces; Landlock, the seccomp
 * filters, the socket supervisor and, where Landlock cannot hold a row
 * exactly, the path supervisor), for vboxc preflight and check
 * --mode=container (doc/targets.md, "linux, container mode").
 *
 * Deny rows, holes in writable regions, the rows namespace mode
 * supervises and the private /tmp land "supervised": the path
 * supervisor judges every path call by the table, so they are held
 * exactly, at a round trip per path call.  Only --accept-narrower, for
 * a table with no row namespace mode supervises and no private /tmp,
 * makes deny rows and holes "narrower" (Landlock alone: the directories
 * around them lose rights), as vbox-exec --accept-narrower runs them.
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
 * @CTR_SUPERVISED: a file row: the path supervisor judges every path
 *                  call (held exactly); a network row: the socket
 *                  supervisor admits direct connects to the loopback
 *                  addresses at its port (and the proxy judges it too)
 * @CTR_ABSORBED: needs nothing (dead, redundant, or an allow whose
 *                omission only narrows)
 * @CTR_NARROWER: held by Landlock alone, the sandbox narrower than the
 *                table around it (only with --accept-narrower)
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
 * @npaths: number of file rows the path supervisor holds (CTR_SUPERVISED
 *          file rows); vbox-exec runs it when this is not 0
 */
struct ctr_landings {
	struct landing_set set;
	enum ctr_kind *fs;
	enum ctr_kind *net;
	size_t nnarrower;
	size_t nunsupported;
	size_t npaths;
};

/*
 * linux_container_classify - classify every row of @table (analysed, for
 * the linux target) for container mode into @out (free with
 * linux_container_free()); @accept_narrower: as vbox-exec
 * --accept-narrower (above).  Never fails.
 */
void linux_container_classify(const struct table *table,
			      bool accept_narrower, struct ctr_landings *out);
void linux_container_free(struct ctr_landings *c);

/*
 * linux_container_report - queue, in table order, file rows first, one
 * error at each unsupported row on @unsupported ("row N 'ROW' is
 * unsupported on linux in container mode: REASON") and one note at each
 * narrower row on @notes ("row N 'ROW' is narrower in container mode:
 * REASON; accepted by --accept-narrower"); then, when the path
 * supervisor holds rows, one note for all of them, at no location, on
 * @notes ("container mode holds N rows with the path supervisor (...):
 * rows 0-24, 30").  Supervised rows are no error.  The two lists may be
 * the same.  Returns 0, or -1 when an error was queued.
 */
int linux_container_report(const struct ctr_landings *c,
			   struct diag_list *notes,
			   struct diag_list *unsupported);

/* ctr_kind_name - "kernel", "proxy", "supervised", ... */
const char *ctr_kind_name(enum ctr_kind kind);

#endif /* VBOX_LINUX_CONTAINER_H */
