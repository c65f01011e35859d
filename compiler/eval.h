/* SPDX-License-Identifier: MIT */
/*
 * eval.h - decisions: may this process read/write this path, connect to
 * this host:port?  doc/rules.md §3.  Pure: never touches the host.
 */
#ifndef VBOX_EVAL_H
#define VBOX_EVAL_H

#include <stdbool.h>

struct table;
struct row;
struct fs_path;
struct net_target;
struct rowvec;

/**
 * enum fs_op - file operations
 * @FS_READ: open for reading, list, stat
 * @FS_WRITE: create, modify, delete, rename
 */
enum fs_op {
	FS_READ,
	FS_WRITE,
};

/**
 * struct decision - the answer to one query
 * @allow: the operation is allowed
 * @row: the deciding row (borrowed), or NULL when the default decided
 */
struct decision {
	bool allow;
	const struct row *row;
};

/*
 * eval_fs - decide @op on @path: the first matching row in priority
 * order decides; no match: reads allowed, writes per @default write.
 */
void eval_fs(const struct table *table, const struct fs_path *path,
	     enum fs_op op, struct decision *out);

/* eval_net - decide a connection to the query @q. */
void eval_net(const struct table *table, const struct net_target *q,
	      struct decision *out);

/*
 * eval_fs_first_match / eval_net_first_match - the first matching row in
 * priority order, or NULL.  Linear reference implementations, kept for
 * tests that check the indexes against them.
 */
const struct row *eval_fs_first_match_linear(const struct rowvec *rows,
					     const struct fs_path *path);
const struct row *eval_net_first_match_linear(const struct rowvec *rows,
					      const struct net_target *q);

/*
 * index_build - build table->fs_index and table->net_index from the
 * priority-ordered rows; index_free releases them.  Used by table_build().
 */
void index_build(struct table *table);
void index_free(struct table *table);

/*
 * index_keep_shape - free what answers queries (the trie's nodes and
 * child map, the network index) and keep the trie's shape: its @nnodes,
 * each node's @parent and each row's @row_node (index.h), which a caller
 * done evaluating may still walk (linux's regions).  Evaluating the
 * table after it is a bug (BUG(), not a wrong answer); index_free()
 * releases the rest.
 */
void index_keep_shape(struct table *table);

#endif /* VBOX_EVAL_H */
