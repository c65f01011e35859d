/* SPDX-License-Identifier: MIT */
/*
 * darwin.h - what the files of the darwin emitter share; private to
 * emitters/darwin*.c (the target itself is emitter_darwin, in emit.h).
 *
 *	darwin_forms.c     a file row's pattern as SBPL filters: every
 *	                   spelling of it (/private aliases, /dev/fd) and
 *	                   the guards of its ancestors
 *	darwin_classify.c  where each row lands on darwin, and why: the
 *	                   rename holes Seatbelt cannot close (doc/darwin.md)
 *	darwin.c           the profile text and struct emitter
 */
#ifndef VBOX_DARWIN_H
#define VBOX_DARWIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbpl.h"

struct diag_list;
struct fs_pattern;
struct landing_set;
struct row;
struct seg;
struct table;

/*
 * One spelling of a pattern: a segment list (the array is owned, the
 * segment text borrowed from the row or from static strings) and whether
 * it covers the subtree of the path it names.
 */
struct form {
	struct seg *segs;
	uint32_t nsegs;
	bool subtree;
};

/*
 * What one file row writes: its pattern in every spelling, and for ro
 * and deny rows the ancestor guards.  @longest is the longest string any
 * of those built needs (FS_PLAN_FIT: at most that, when it is within
 * SBPL_MAX_STRING); past SBPL_MAX_STRING the row is unsupported and
 * @guards is not computed.  @kind: the first filter's kind; @nspellings:
 * the distinct filters (both known with FS_PLAN_FILTERS or FS_PLAN_FIT).
 * @guarded: the row has ancestor guards (known whichever part was
 * built).  The *_cap members are the allocated slots (GROW()).
 */
struct fs_plan {
	struct sbpl_filter *filters;
	size_t nfilters;
	size_t filters_cap;
	struct sbpl_filter *guards;
	size_t nguards;
	size_t guards_cap;
	size_t longest;
	enum sbpl_filter_kind kind;
	size_t nspellings;
	bool guarded;
};

/*
 * What darwin_fs_plan_build() builds.  A guard is a proper prefix of one
 * of the row's spellings, without "**", written with no subtree: never a
 * longer string than that spelling's filter.  So whether a row fits is
 * decided by its filters alone, and the rules build only the filters;
 * the guard section builds only the guards.  The classification asks
 * only whether the filters fit (FS_PLAN_FIT): a row with one spelling
 * is counted, not built, when a bound of its filter's size is within the
 * limit (sbpl_filter_bound()); any other is built.
 */
enum fs_plan_part {
	FS_PLAN_FILTERS = 1,
	FS_PLAN_GUARDS = 2,
	FS_PLAN_FIT = 4,
};

/*
 * darwin_segs_copy - copy @n segments into @dst (room for @n), with
 * consecutive "**" merged into one; returns how many were written.
 */
uint32_t darwin_segs_copy(struct seg *dst, const struct seg *src, uint32_t n);

/*
 * darwin_forms_build - every spelling of @p into *@forms (*@nforms of
 * them; free with darwin_forms_free()).
 */
void darwin_forms_build(const struct fs_pattern *p, struct form **forms,
			size_t *nforms);
void darwin_forms_free(struct form *forms, size_t n);

/* darwin_row_guarded - does @row (a file row) get ancestor guards? */
bool darwin_row_guarded(const struct row *row);

/*
 * darwin_fs_plan_build - what file row @row of @table writes, the parts
 * @parts (enum fs_plan_part) names; release with darwin_fs_plan_free().
 * Guards alone are built only for a row whose filters fit (a kernel
 * landing).
 */
void darwin_fs_plan_build(const struct table *table, const struct row *row,
			  unsigned parts, struct fs_plan *plan);
void darwin_fs_plan_free(struct fs_plan *plan);

/* darwin_net_open - is the table's network posture open? */
bool darwin_net_open(const struct table *table);

/*
 * darwin_check_table - emitter_darwin.check_table: a note when rows
 * land in the egress proxy, since the profile then names the launcher's
 * port parameters and is not complete on its own.  A note, not a
 * warning: a plan for vbox-exec is complete, and -Werror must not
 * refuse every table with a proxy row.  Never fails.
 */
int darwin_check_table(const struct table *table, struct diag_list *diags);

/* darwin_classify - emitter_darwin.classify (see struct emitter). */
void darwin_classify(const struct table *table, struct landing_set *out);

/*
 * darwin_reserved_param - the SBPL parameter that carries the port of
 * reserved entry @entry (one darwin_classify() added).
 */
const char *darwin_reserved_param(const char *entry);

#endif /* VBOX_DARWIN_H */
