/* SPDX-License-Identifier: MIT */
/*
 * index.h - lookup structures over a table's rows, shared by evaluation
 * and shadow analysis so neither compares all pairs of rows.
 *
 * File rows hang in a trie keyed by their leading literal segments: a row
 * can only match a path whose first segments equal that literal prefix, so
 * a query visits one node per path segment.  Network rows hang in lists
 * keyed by their host set (exact host, suffix, loopback class).
 */
#ifndef VBOX_INDEX_H
#define VBOX_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct row;
struct seg;
struct net_target;

#define INDEX_NONE UINT32_MAX

/**
 * struct idx_list - rows stored under one key, ascending priority position
 * @many: @cap > 1: the priority positions (indexes into the domain's prio
 *        array), owned
 * @one: @cap == 1: the only entry, kept in place: most lists hold one
 *       row, and a block of 4 bytes costs malloc 32
 * @n: number of entries
 * @cap: allocated entries (32 bits, like @n: a trie node is 32 bytes,
 *       and a million-row table has about as many nodes as rows)
 *
 * Read the entries with idx_list_prio().
 */
struct idx_list {
	union {
		uint32_t *many;
		uint32_t one;
	};
	uint32_t n;
	uint32_t cap;
};

/* idx_list_prio - the list's @n priority positions (borrowed). */
static inline const uint32_t *idx_list_prio(const struct idx_list *l)
{
	return l->cap > 1 ? l->many : &l->one;
}

/**
 * struct pnode - one trie node: the rows whose literal prefix ends here
 * @rows: those rows
 * @min_subtree: the highest-priority row here that covers the node's whole
 *               subtree ("/a/b" or "/a/b/" "**"), or INDEX_NONE
 * @first_child: the first child node, or 0 (the root is nobody's child)
 * @next_sibling: the next child of the same parent, or 0
 * @key_row: the priority position of a row whose literal prefix passes
 *           through this node: its segment at the node's depth - 1 is the
 *           node's key (the map keeps keys only as hashes of borrowed
 *           bytes; table diffs walk the children by name)
 */
struct pnode {
	struct idx_list rows;
	uint32_t min_subtree;
	uint32_t first_child;
	uint32_t next_sibling;
	uint32_t key_row;
};

struct hslot;

/**
 * struct hmap - open-addressing map from (tag, bytes) to a uint32_t
 * @slots: the slots, a power of two of them
 * @mask: number of slots - 1
 * @n: slots in use
 */
struct hmap {
	struct hslot *slots;
	size_t mask;
	size_t n;
};

/**
 * struct path_index - the file-row trie
 * @nodes: node 0 is the root
 * @nnodes: nodes in use
 * @cap: nodes allocated
 * @children: (parent node, segment) -> child node
 * @parent: each node's parent (the root's is 0), @cap entries
 * @row_node: for each row, by priority position, the node of its whole
 *            literal prefix: walking a row's own prefix then needs no
 *            hash probe (at a million rows those probes, cache misses in
 *            a 48 MB map, were a sixth of a compile)
 */
struct path_index {
	struct pnode *nodes;
	uint32_t nnodes;
	size_t cap;
	struct hmap children;
	uint32_t *parent;
	uint32_t *row_node;
};

/**
 * struct net_index - network rows grouped by host set
 * @lists: one list per distinct host key
 * @nlists: lists in use
 * @cap: lists allocated
 * @keys: (host kind tag, host) -> list number
 * @tags: each list's host kind tag (@cap entries)
 */
struct net_index {
	struct idx_list *lists;
	uint32_t nlists;
	size_t cap;
	struct hmap keys;
	uint32_t *tags;
};

/* path_index_child - the child of @node for segment @s, or 0 (none). */
uint32_t path_index_child(const struct path_index *idx, uint32_t node,
			  const struct seg *s);

/*
 * path_index_prefix - the nodes of the literal prefix of the row at
 * priority position @prio, root first: (*@chain)[d] is the node of its
 * first d segments, for d = 0 .. @nlit (the row's fs.nlit).  *@chain
 * (*@cap entries, caller frees) grows as needed.
 */
void path_index_prefix(const struct path_index *idx, uint32_t prio,
		       uint32_t nlit, uint32_t **chain, size_t *cap);

/* Host-set key tags: exact host (name or address), suffix, loopback. */
enum net_key_tag {
	NET_KEY_EXACT,
	NET_KEY_SUFFIX,
	NET_KEY_LOOPBACK,
};

/*
 * net_index_list - the rows whose host set is (@tag, @host[0..@len)), or
 * NULL.  For NET_KEY_LOOPBACK @host is "".
 */
const struct idx_list *net_index_list(const struct net_index *idx,
				      enum net_key_tag tag, const char *host,
				      size_t len);

/* is_subtree_pattern - does @row's pattern cover its literal prefix's
 * whole subtree ("/a/b" or "/a/b/" "**")? */
bool is_subtree_pattern(const struct row *row);

#endif /* VBOX_INDEX_H */
