/* SPDX-License-Identifier: MIT */
/*
 * container_rules.h - container mode's file wall: the sandbox's mounts
 * turned into one Landlock ruleset (doc/launcher.md, "Container mode").
 *
 * Namespace mode shows the child the host through mounts; container mode
 * has no mount namespace, so the same instantiated mount list (the
 * plan's typed mounts with every launch row expanded) is read as a map
 * of regions instead: the last mount at or above a path decides what may
 * be done there (none: a deny cover; read: a read-only bind, the base
 * view, /proc; read and write: a writable bind).  Landlock only grants,
 * and a rule grants its rights to a whole subtree, so a right is granted
 * at the highest directory whose whole subtree has it; where a deeper
 * region lacks it, the directory is split: each entry it holds on the
 * host gets the right itself, and the directory does not (computed per
 * right, so a read-only hole in a writable root keeps its parents
 * readable and listable and takes only the right to create, remove and
 * rename entries from them).  A split is narrower than the table (what
 * the host creates there later gets nothing; a directory above a denied
 * directory cannot be listed): every row that caused one is reported,
 * and vbox-exec refuses such a table unless --accept-narrower.
 *
 * What a child must also never do there: remove, rename or replace a
 * path below which a region starts (that would move the hole away), or
 * create a denied path that is absent.  The parent of such a path gets
 * no right to remove, rename or (for an absent one) create entries.
 *
 * With supervised paths (the supervisor judges every path call by the
 * region map and the table, as namespace mode's supervisor judges its
 * supervised rows), nothing is split: each right is granted at the
 * highest directory whose own region has it, holes included, and the
 * supervisor holds the holes exactly (runtime/linux/pathjudge.h).
 *
 * "@default tmp private" has no tmpfs here: the launch's directory made
 * from CONTAINER_PRIVATE_TMP (the sandbox's $TMPDIR), bound over /tmp in
 * the list, is read as a region of every right inside a /tmp of none.
 */
#ifndef VBOX_CONTAINER_RULES_H
#define VBOX_CONTAINER_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux_artifact.h"
#include "strv.h"

/* The private /tmp's directory in container mode (a mkdtemp() template),
 * and what such a directory's path starts with. */
#define CONTAINER_PRIVATE_TMP "/tmp/vbox-tmp.XXXXXX"
#define CONTAINER_PRIVATE_TMP_PREFIX "/tmp/vbox-tmp."

/* At most this many rules, and host entries listed for splits. */
#define CONTAINER_RULES_MAX 4096
#define CONTAINER_LIST_MAX 10000

/**
 * struct container_rule - one Landlock rule
 * @path: absolute, as the host (and the child) names it
 * @rights: Landlock filesystem rights granted beneath it
 * @listed: a host entry of a split directory: when it is a symbolic link
 *          or gone by the time the rule is added, it is skipped (access
 *          through a link is checked at its target); any other rule's
 *          path must be there without a link, or the launch fails
 */
struct container_rule {
	char *path;
	uint64_t rights;
	bool listed;
};

/**
 * struct container_region - a region of the map, for the supervisor
 * @path: where it starts
 * @rights: what may be done beneath it (CR_* of container_rules.c)
 */
struct container_region {
	char *path;
	uint64_t rights;
};

/**
 * struct container_narrowing - a row that made the wall narrower
 * @row: the file row (LX_ROW_NONE: a mount of the launcher's own)
 * @path: the path of the region that caused it
 * @what: why, in words (static)
 */
struct container_narrowing {
	uint32_t row;
	char *path;
	const char *what;
};

/**
 * struct container_rules - the wall for one launch
 * @rules, @nrules: the Landlock rules, sorted by path
 * @regions, @nregions: the region map, in mount order
 * @narrowed, @nnarrowed: rows that made it narrower (one entry per row
 *                        and reason, in row order)
 * @nlisted: host directory entries listed for splits
 * @supervised: built for supervised paths (no split, nothing narrowed)
 */
struct container_rules {
	struct container_rule *rules;
	size_t nrules;
	struct container_region *regions;
	size_t nregions;
	struct container_narrowing *narrowed;
	size_t nnarrowed;
	size_t nlisted;
	bool supervised;
};

/* The rights a region can have (Landlock's bits, ABI 1-5). */
#define CR_EXECUTE (1ULL << 0)
#define CR_WRITE_FILE (1ULL << 1)
#define CR_READ_FILE (1ULL << 2)
#define CR_READ_DIR (1ULL << 3)
#define CR_REMOVE_DIR (1ULL << 4)
#define CR_REMOVE_FILE (1ULL << 5)
#define CR_MAKE_CHAR (1ULL << 6)
#define CR_MAKE_DIR (1ULL << 7)
#define CR_MAKE_REG (1ULL << 8)
#define CR_MAKE_SOCK (1ULL << 9)
#define CR_MAKE_FIFO (1ULL << 10)
#define CR_MAKE_BLOCK (1ULL << 11)
#define CR_MAKE_SYM (1ULL << 12)
#define CR_REFER (1ULL << 13)
#define CR_TRUNCATE (1ULL << 14)
#define CR_IOCTL_DEV (1ULL << 15)

#define CR_READ (CR_EXECUTE | CR_READ_FILE | CR_READ_DIR)
#define CR_WRITE_CONTENT (CR_WRITE_FILE | CR_TRUNCATE | CR_IOCTL_DEV)
#define CR_MAKE (CR_MAKE_CHAR | CR_MAKE_DIR | CR_MAKE_REG | CR_MAKE_SOCK | \
		 CR_MAKE_FIFO | CR_MAKE_BLOCK | CR_MAKE_SYM)
#define CR_REMOVE (CR_REMOVE_DIR | CR_REMOVE_FILE | CR_REFER)
#define CR_WRITE (CR_WRITE_CONTENT | CR_MAKE | CR_REMOVE)
#define CR_ALL (CR_READ | CR_WRITE)

/*
 * container_rules_build - the wall for the instantiated sandbox @lx (every
 * launch row expanded), against the host as it is now; @supervised: for
 * supervised paths (above).  0, or -1 with *@err naming the mount (its
 * row) that container mode cannot express, a granted path with a
 * symbolic link, or a bound passed.
 */
int container_rules_build(const struct lx_artifact *lx, bool supervised,
			  struct container_rules *out, char **err);

/*
 * container_rights_at - what the map lets the child do at @path
 * (absolute, normalized): the rights of the last region at or above it.
 */
uint64_t container_rights_at(const struct container_rules *cr, const char *path);

/*
 * container_granted_at - what the Landlock rules grant at @path (absolute,
 * as the kernel names it): the rights of every rule at or above it, as
 * Landlock adds them up.
 */
uint64_t container_granted_at(const struct container_rules *cr,
			      const char *path);

void container_rules_release(struct container_rules *cr);

#endif /* VBOX_CONTAINER_RULES_H */
