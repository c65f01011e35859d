/* SPDX-License-Identifier: MIT */
/*
 * ir.h - the compiled policy table.
 *
 * Ownership rule, written once: a function taking a non-const pointer to an
 * IR object consumes or modifies it as its docblock says; a const pointer
 * borrows.  The table owns its rows; rows own their targets.
 */
#ifndef VBOX_IR_H
#define VBOX_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "location.h"
#include "stmt.h"
#include "fspath.h"
#include "netaddr.h"
#include "rowpool.h"

struct diag_list;
struct target_traits;
struct path_index;
struct net_index;

#define LEVEL_MAX 255

/**
 * enum domain - which table a row belongs to
 * @DOMAIN_FS: file rows (deny/ro/rw)
 * @DOMAIN_NET: network rows (allow/deny)
 */
enum domain {
	DOMAIN_FS,
	DOMAIN_NET,
};

/**
 * struct row - one rule of the assembled table
 * @domain: file or network
 * @effect: what the row decides
 * @level: number of '!' (0..255); higher levels are evaluated first
 * @index: 0-based position in its domain's table, in assembled order
 * @prio: 0-based position in its domain's priority order
 * @loc: where the row was written (column of its first character)
 * @raw: the target as written, quotes removed: owned, or, when
 *       @raw_is_text, the normalized text itself (@fs.text or @net.text),
 *       which most rows are written as (a million of them spared a copy)
 * @raw_is_text: see @raw
 * @shadowed_by: set by shadow_analyze(): the first higher-priority row
 *               proven to cover this one (it can never decide), or NULL
 * @fs: DOMAIN_FS: the normalized pattern
 * @net: DOMAIN_NET: the normalized target
 */
struct row {
	enum domain domain;
	enum effect effect;
	uint8_t level;
	bool raw_is_text;
	uint32_t index;
	uint32_t prio;
	struct location loc;
	char *raw;
	const struct row *shadowed_by;
	union {
		struct fs_pattern fs;
		struct net_target net;
	};
};

/**
 * enum finding_kind - what shadow analysis found out about a row
 * @FINDING_INEFFECTIVE: a deny/ro row covered by a higher-priority rw row
 * @FINDING_DEAD: any other row covered by a higher-priority row
 * @FINDING_PARTIAL: a restrictive row (deny, ro) that a more permissive
 *                   higher-priority row overrides on part of what it
 *                   matches; a note, kept apart from the other two (it is
 *                   not in plans nor in the IR)
 */
enum finding_kind {
	FINDING_INEFFECTIVE,
	FINDING_DEAD,
	FINDING_PARTIAL,
};

/**
 * struct finding - one shadowed row
 * @kind: see enum finding_kind
 * @row: the row that can never decide (borrowed from the table)
 * @by: the first covering row in evaluation order (borrowed); for
 *       FINDING_PARTIAL the row that decides @example
 * @example: FINDING_PARTIAL: a path or host:port that @row matches and
 *           @by decides (owned); NULL for the other kinds
 * @if_dir: FINDING_PARTIAL: the path @by names when @example lies below
 *          it and nothing in the table says it is a directory (it may
 *          be a file, and then @example cannot exist); owned, or NULL
 */
struct finding {
	enum finding_kind kind;
	const struct row *row;
	const struct row *by;
	char *example;
	char *if_dir;
};

/**
 * struct rowvec - rows of one domain
 * @order: the rows in assembled (table) order; owns what they hold (their
 *         storage is the table's row pool)
 * @prio: the same rows in priority order (level descending, then index)
 * @n: number of rows
 */
struct rowvec {
	struct row **order;
	struct row **prio;
	size_t n;
};

/**
 * struct table_blank - a blanks warning (blanks.h) kept for JSON
 * @row: the row (borrowed from the table)
 * @at: where the suspicious blanks are
 * @msg: the warning's message (owned)
 */
struct table_blank {
	const struct row *row;
	struct location at;
	char *msg;
};

/**
 * struct table - a whole compiled policy
 * @target: the traits it was compiled for (static, borrowed)
 * @fs: the file table
 * @net: the network table
 * @default_write: EFFECT_DENY or EFFECT_RW: writes that match no row
 * @default_net: EFFECT_DENY or EFFECT_ALLOW ("open"): unmatched connects
 * @default_write_loc: where @default_write was set (.in NULL: built in)
 * @default_net_loc: where @default_net was set (.in NULL: built in)
 * @upstream_proxy: the @upstream-proxy URL, or NULL (owned)
 * @upstream_loc: where it was set
 * @findings: shadow findings, file rows first, each domain by row index
 *            (owned array), filled by shadow_analyze()
 * @nfindings: number of @findings
 * @partials: FINDING_PARTIAL findings, in the same order (owned)
 * @npartials: number of @partials
 * @blanks: file rows whose unquoted pattern holds blanks that look like
 *          trailing text (blanks.h), in table order (owned array)
 * @nblanks: number of @blanks
 * @host_words: deny rows read as a network host whose target is a single
 *              label ("deny:id_rsa"): likely meant as files (borrowed)
 * @nhost_words: number of @host_words
 * @fs_index: lookup index over @fs for evaluation (owned)
 * @net_index: lookup index over @net for evaluation (owned)
 * @rows: the storage of every row of @fs and @net (owned)
 */
struct table {
	const struct target_traits *target;
	struct rowvec fs;
	struct rowvec net;
	enum effect default_write;
	enum effect default_net;
	struct location default_write_loc;
	struct location default_net_loc;
	char *upstream_proxy;
	struct location upstream_loc;
	bool tmp_private;
	struct location default_tmp_loc;
	const struct row *tmp_row;
	struct finding *findings;
	size_t nfindings;
	struct finding *partials;
	size_t npartials;
	struct table_blank *blanks;
	size_t nblanks;
	const struct row **host_words;
	size_t nhost_words;
	struct path_index *fs_index;
	struct net_index *net_index;
	struct row_pool rows;
};

/**
 * struct compile_opts - how to turn statements into a table
 * @target: the target's traits
 * @vars: where pattern variables come from
 */
struct compile_opts {
	const struct target_traits *target;
	struct var_source vars;
};

/*
 * table_build - validate the assembled statements @stmts (directives,
 * domains, targets, variables, guardrails), sort the rows into priority
 * order and build the evaluation indexes.  Returns a new table (free with
 * table_free()), or NULL with every error queued on @diags: one invalid
 * row rejects the whole table, since dropping a row could widen it.
 */
struct table *table_build(const struct stmt_list *stmts,
			  const struct compile_opts *opts,
			  struct diag_list *diags);
/*
 * table_build_take - table_build() that consumes @stmts: each row takes
 * its statement's target string instead of a copy, each statement's
 * strings are freed once it is handled and the pages of a large list's
 * handled part go back to the system as the rows are made
 * (mem_release()); the list is left empty before the sorting and the
 * indexes, which then need not share the peak with it (some 110 bytes a
 * statement).
 */
struct table *table_build_take(struct stmt_list *stmts,
			       const struct compile_opts *opts,
			       struct diag_list *diags);
void table_free(struct table *table);

/**
 * struct row_spec - a row already normalized, as a plan carries it
 * @effect: what the row decides (valid for its domain)
 * @level: number of '!'
 * @text: the normalized target: struct fs_pattern's @text, or the
 *        network target's "host:port" text (borrowed)
 * @loc: where the row was written (copied; its input is borrowed)
 */
struct row_spec {
	enum effect effect;
	uint8_t level;
	const char *text;
	struct location loc;
};

/*
 * table_from_specs - a table of rows that were already compiled once
 * (vboxc explain PLAN): each target is rebuilt from its normalized text
 * (no expansion, no guardrails), the rows keep the order given as their
 * table order and are sorted into priority order as table_build() does.
 * No shadow analysis.  Returns a new table (free with table_free()), or
 * NULL with a one-line message in *@err (caller frees) naming the row
 * whose text does not rebuild.
 */
struct table *table_from_specs(const struct target_traits *target,
			       enum effect default_write,
			       enum effect default_net,
			       const struct row_spec *fs, size_t nfs,
			       const struct row_spec *net, size_t nnet,
			       char **err);
/* table_free_partials - drop the table's FINDING_PARTIAL findings. */
void table_free_partials(struct table *table);

/*
 * row_text - the row as users see it in messages: "!!effect:TARGET" with
 * the normalized target (caller frees).
 */
char *row_text(const struct row *row);

/* effect_name - "deny", "ro", "rw", "allow". */
const char *effect_name(enum effect effect);
/* domain_name - "fs", "net". */
const char *domain_name(enum domain domain);
/* finding_kind_name - "ineffective", "dead", "partial". */
const char *finding_kind_name(enum finding_kind kind);

#endif /* VBOX_IR_H */
