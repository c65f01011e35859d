/* SPDX-License-Identifier: MIT */
/*
 * emit.h - targets as a table: every target first classifies every row
 * (doc/targets.md), and only a table with no unsupported row is written.
 *
 * The compiler core never switches on the target; the programs look up an
 * emitter by the target's traits and call it through this interface.
 */
#ifndef VBOX_EMIT_H
#define VBOX_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "landing.h"
#include "target_id.h"

struct row;
struct table;
struct diag_list;
struct strpool;
struct target_traits;

/**
 * struct landing - the classification of one row or reserved entry
 * @kind: see enum landing_kind
 * @row: the user row (borrowed from the table), NULL for reserved entries
 * @reason: one line saying why it lands there, lower case, no trailing
 *          period, e.g. "glob expanded against the host file system at
 *          launch" (interned in @pool, which owns it)
 * @pool: where landing_set_reason() interns @reason: the set's (set by
 *        landing_set_init()), or the caller's for a landing of its own
 * @entry: reserved entries only (@row NULL): what the launcher adds,
 *         written like a rule ("!!!...allow:localhost:${VBOX_PROXY_HTTP_PORT}")
 *         (owned)
 * @label: row entries only: NULL, or the landing's name where a launcher
 *         mode names it apart from @kind (linux container mode's
 *         "supervised" and "narrower": linux_container.h); static.  The
 *         two share their place: 40 bytes an entry, a million of them.
 */
struct landing {
	enum landing_kind kind;
	const struct row *row;
	const char *reason;
	struct strpool *pool;
	union {
		char *entry;
		const char *label;
	};
};

/**
 * struct landing_set - a whole table's classification on one target
 * @fs: one entry per file row, in table order (fs[i].row->index == i)
 * @nfs: number of file rows
 * @net: one entry per network row, in table order
 * @nnet: number of network rows
 * @reserved: reserved entries, in the order the launcher adds them
 * @nreserved: number of reserved entries
 * @reserved_cap: allocated slots of @reserved
 * @reasons: the reasons of every entry, each distinct one kept once
 *           (owned; a million rows share a few dozen)
 */
struct landing_set {
	struct landing *fs;
	size_t nfs;
	struct landing *net;
	size_t nnet;
	struct landing *reserved;
	size_t nreserved;
	size_t reserved_cap;
	struct strpool *reasons;
};

/**
 * struct emitter - one target
 * @id: the target (target_id.h); its name is target_id_name(@id)
 * @name: the same name, for messages (TARGET_*_NAME)
 * @profile_ext: file extension of the profile for goldens ("sb",
 *               "bwrap", "acl.json")
 * @check_table: optional; refuse what no single row carries, e.g. a
 *               network posture the target cannot enforce.  Returns 0, or
 *               -1 with errors queued.  emit_classify() runs it, so
 *               compile and preflight refuse alike.
 * @classify: set a landing and a reason on every entry of @out, which
 *            emit_classify() has initialised with landing_set_init()
 *            (every entry LANDING_KERNEL, its row set, no reason), for
 *            @table, whose shadow_analyze() has run (row->shadowed_by is
 *            set).  Must not fail.
 * @emit_profile: write the profile (SBPL text, bwrap NUL-separated
 *                argument list, ACL plan JSON) for a table whose
 *                classification has no unsupported entry.  Output is a
 *                pure function of the table and @landing: no time, host
 *                state, environment or locale.  Returns 0, or -1 with
 *                errors queued (e.g. a profile that cannot exist without
 *                launch-time data).
 * @index_use: what @check_table, @classify and @emit_profile read of the
 *             table's indexes (enum emit_index_use).  vboxc compile frees
 *             the rest before it classifies, so that they do not share
 *             the peak (some 110 bytes a row).
 * @emit_plan_artifact: optional; the artifact stored in plan.bin when it
 *                      differs from the profile (linux: launch rows as
 *                      placeholders the launcher fills in).  NULL: the
 *                      plan stores what @emit_profile writes.  Built
 *                      from the rows and @landing alone: the table's
 *                      indexes are freed before it is called (vboxc
 *                      compile --emit=plan, so that they do not share
 *                      the peak), so it evaluates nothing.
 */
/*
 * enum emit_index_use - what an emitter reads of the table's indexes
 * @EMIT_INDEX_NONE: nothing
 * @EMIT_INDEX_SHAPE: the trie's shape only (index_keep_shape())
 * @EMIT_INDEX_QUERIES: it evaluates paths or hosts (eval_fs() ...)
 */
enum emit_index_use {
	EMIT_INDEX_NONE,
	EMIT_INDEX_SHAPE,
	EMIT_INDEX_QUERIES,
};

struct emitter {
	enum target_id id;
	const char *name;
	const char *profile_ext;
	int (*check_table)(const struct table *table, struct diag_list *diags);
	void (*classify)(const struct table *table, struct landing_set *out);
	enum emit_index_use index_use;
	int (*emit_profile)(const struct table *table,
			    const struct landing_set *landing, FILE *out,
			    struct diag_list *diags);
	int (*emit_plan_artifact)(const struct table *table,
				  const struct landing_set *landing, FILE *out,
				  struct diag_list *diags);
};

extern const struct emitter emitter_darwin;
extern const struct emitter emitter_linux;
extern const struct emitter emitter_windows;

/* emitter_for - the emitter of @target (never NULL for a known target). */
const struct emitter *emitter_for(const struct target_traits *target);

/*
 * emit_classify - initialise @out, run @em->classify into it, then queue
 * one error per unsupported entry, at the row's location: "row N
 * 'EFFECT:TARGET' is unsupported on TARGET: REASON", and run
 * @em->check_table.  Returns 0, or -1 when anything is unsupported (@out
 * stays filled for preflight; free it with landing_set_free() either way).
 */
int emit_classify(const struct emitter *em, const struct table *table,
		  struct landing_set *out, struct diag_list *diags);

/*
 * landing_set_init - size @set for @table and point each entry at its row
 * (kind LANDING_KERNEL, no reason yet); emit_classify() calls it.
 * landing_set_reason - set entry @l's kind and its reason (printf format),
 * interned in @l->pool.
 * landing_set_like - give entry @l the kind and reason of @like, an
 * entry of the same set already classified (a classifier that meets the
 * same verdict many times formats it once).
 * landing_set_add_reserved - append a reserved entry.
 * landing_set_free - free every string and array.
 */
void landing_set_init(struct landing_set *set, const struct table *table);
__attribute__((format(printf, 3, 4))) void
landing_set_reason(struct landing *l, enum landing_kind kind,
		   const char *fmt, ...);
void landing_set_like(struct landing *l, const struct landing *like);
__attribute__((format(printf, 3, 4))) void
landing_set_add_reserved(struct landing_set *set, const char *entry,
			 const char *fmt, ...);
void landing_set_free(struct landing_set *set);

/*
 * emit_supervised_notes - queue one note per supervised file row of @set
 * (classified for @em), at the row: "row N 'ROW' lands supervised on
 * TARGET: REASON", so compile and check say what each such row costs
 * (preflight shows it in its table).
 */
void emit_supervised_notes(const struct emitter *em,
			   const struct landing_set *set,
			   struct diag_list *diags);

/* landing_name - @l's label when it has one, else its kind's name. */
const char *landing_name(const struct landing *l);

#endif /* VBOX_EMIT_H */
