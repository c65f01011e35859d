/* SPDX-License-Identifier: MIT */
/*
 * diff.h - what two tables decide differently (vboxc diff,
 * doc/reviewing.md): every class of paths (read, write) and of
 * destinations (host, port) on which their decisions differ, each with a
 * witness the evaluator confirms on both tables.
 *
 * A class is the set of queries that the same row of each table decides
 * (or its default), for one operation.  The classes come from the
 * patterns' automata, not from samples, so when no class is reported no
 * path or destination decides differently; doc/reviewing.md argues it
 * and names the bounds past which table_diff() gives up instead of
 * guessing.
 */
#ifndef VBOX_DIFF_H
#define VBOX_DIFF_H

#include <stdbool.h>
#include <stddef.h>

struct row;
struct table;

/**
 * enum diff_op - what a class of queries asks
 * @DIFF_READ: may the process read PATH?
 * @DIFF_WRITE: may it write PATH?
 * @DIFF_NET: may it connect to HOST:PORT?
 */
enum diff_op {
	DIFF_READ,
	DIFF_WRITE,
	DIFF_NET,
};

/**
 * struct diff_class - queries both tables decide, differently
 * @op: see enum diff_op
 * @witness: one query of the class: a cleaned absolute path, or the
 *           canonical "HOST:PORT" (owned); "vboxc explain" on either
 *           table answers it with the rows and verdicts below
 * @old_allow: the first table's verdict
 * @old_row: the first table's deciding row, NULL for its default
 *           (borrowed from that table)
 * @new_allow: the second table's verdict
 * @new_row: the second table's deciding row, or NULL (borrowed)
 */
struct diff_class {
	enum diff_op op;
	char *witness;
	bool old_allow;
	const struct row *old_row;
	bool new_allow;
	const struct row *new_row;
};

/**
 * struct diff_stats - what the comparison cost, for tests and benchmarks
 * @fs_states: path classes explored (states of the product automaton)
 * @seg_partitions: segment alphabets partitioned (not counting cached)
 * @changed_rows: file rows outside the two tables' common subsequence,
 *                old then new: only paths they match can differ
 * @net_queries: destinations evaluated
 */
struct diff_stats {
	size_t fs_states;
	size_t seg_partitions;
	size_t changed_rows[2];
	size_t net_queries;
};

/**
 * struct diff_result - the classes on which two tables differ
 * @classes: sorted by operation, then witness (owned)
 * @n: number of @classes
 * @stats: see struct diff_stats
 */
struct diff_result {
	struct diff_class *classes;
	size_t n;
	struct diff_stats stats;
};

/*
 * table_diff - fill @out with every class of queries @old_t and @new_t
 * decide differently; both tables must be built for the same target.
 * Each class's witness has been evaluated again on both tables and
 * confirmed.  Returns 0, or -1 with a message in *@err (caller frees)
 * when a bound on the exploration is reached or a pattern cannot be
 * compared exactly: the comparison then says nothing, it never returns
 * a partial answer.  Free @out with diff_result_free() either way.
 */
int table_diff(const struct table *old_t, const struct table *new_t,
	       struct diff_result *out, char **err);
void diff_result_free(struct diff_result *r);

/* diff_class_widens - something newly allowed (read, write, connect). */
bool diff_class_widens(const struct diff_class *c);

/* diff_op_name - "read", "write", "net": explain's query words. */
const char *diff_op_name(enum diff_op op);

#endif /* VBOX_DIFF_H */
