/* SPDX-License-Identifier: MIT */
/*
 * container_rules.c - the sandbox's mounts as one Landlock ruleset, for
 * container mode (container_rules.h).
 *
 * The mounts become a tree of the paths they name (struct node): each
 * mount point is a region with its rights; a later mount at or above a
 * path covers what was mounted below it, as in a mount namespace.  Then,
 * for each right on its own, place() grants it as high as the whole
 * subtree allows and splits a directory where a deeper region lacks it.
 */
#include <vbox.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container_rules.h"
#include "nolink.h"

/* Rights that mean something only on a directory. */
#define CR_DIR_ONLY (CR_READ_DIR | CR_MAKE | CR_REMOVE)

enum node_kind { NODE_ABSENT, NODE_DIR, NODE_OTHER };

/**
 * struct node - a path the mounts name, or a directory above one
 * @name: the last component ("" for /)
 * @path: the whole path (owned)
 * @parent: NULL for /
 * @kids, @nkids: the paths below it that the tree holds, by name
 * @region: a mount starts a region here, with @rights, for file row @row
 * @kind: what the host has there now
 * @entries, @nentries, @listed: its host entries, once listed for a split
 * @entry_grant: per entry, the rights granted to it
 * @grant: the rights granted here
 */
struct node {
	char *name;
	char *path;
	struct node *parent;
	struct node **kids;
	size_t nkids;
	bool region;
	uint64_t rights;
	uint32_t row;
	enum node_kind kind;
	char **entries;
	size_t nentries;
	bool listed;
	uint64_t *entry_grant;
	uint64_t grant;
};

struct build {
	struct node *root;
	struct container_rules *out;
	bool supervised;
	char **err;
};

static struct node *node_new(struct node *parent, const char *name, size_t len)
{
	struct node *n = xzalloc(sizeof(*n));

	n->name = xstrndup(name, len);
	n->parent = parent;
	n->row = LX_ROW_NONE;
	if (!parent)
		n->path = xstrdup("/");
	else if (!parent->parent)
		n->path = xasprintf("/%s", n->name);
	else
		n->path = xasprintf("%s/%s", parent->path, n->name);
	return n;
}

static void node_free(struct node *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	for (i = 0; i < n->nentries; i++)
		free(n->entries[i]);
	free(n->entries);
	free(n->entry_grant);
	free(n->kids);
	free(n->name);
	free(n->path);
	free(n);
}

static struct node *kid_find(const struct node *n, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < n->nkids; i++)
		if (strlen(n->kids[i]->name) == len &&
		    memcmp(n->kids[i]->name, name, len) == 0)
			return n->kids[i];
	return NULL;
}

/* The node of absolute, normalized @path, made with its parents if new. */
static struct node *node_at(struct node *root, const char *path)
{
	struct node *n = root, *k;
	const char *p = path, *end;

	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchr(p, '/');
		if (!end)
			end = p + strlen(p);
		k = kid_find(n, p, (size_t)(end - p));
		if (!k) {
			k = node_new(n, p, (size_t)(end - p));
			n->kids = xreallocarray(n->kids, n->nkids + 1,
						sizeof(*n->kids));
			n->kids[n->nkids++] = k;
		}
		n = k;
		p = end;
	}
	return n;
}

/* A mount at @n covers whatever was mounted below it. */
static void uncover(struct node *n)
{
	size_t i;

	for (i = 0; i < n->nkids; i++) {
		n->kids[i]->region = false;
		uncover(n->kids[i]);
	}
}

static void set_region(struct node *root, const char *path, uint64_t rights,
		       uint32_t row)
{
	struct node *n = node_at(root, path);

	uncover(n);
	n->region = true;
	n->rights = rights;
	n->row = row;
}

static bool below(const char *path, const char *top)
{
	size_t n = strlen(top);

	return strncmp(path, top, n) == 0 && (path[n] == '/' || !path[n]);
}

/* Is @src the private /tmp's directory (or its template)? */
static bool private_tmp_dir(const char *src)
{
	size_t n = strlen(CONTAINER_PRIVATE_TMP_PREFIX);

	return strncmp(src, CONTAINER_PRIVATE_TMP_PREFIX, n) == 0 &&
	       src[n] && !strchr(src + n, '/');
}

/*
 * The regions of one mount.  /proc and /sys are the host's in container
 * mode and never writable (as in namespace mode, where the kernel-state
 * wall makes them read-only): the launcher's own mounts there are its
 * kernel-state wall and are left out; a row may not hide anything there.
 */
static int add_mount(struct build *b, const struct lx_mount *m)
{
	const char *d = m->dest;
	bool kernel = below(d, "/proc") || below(d, "/sys");
	struct stat st;

	switch (m->kind) {
	case LX_BIND_RO_TRY:
	case LX_BIND_RW_TRY:
		if (stat(m->src, &st) < 0)
			return 0;	/* bubblewrap skips it too */
		/* fall through */
	case LX_BIND_RO:
	case LX_BIND_RW:
		if (strcmp(m->src, "/dev/null") == 0 &&
		    m->kind == LX_BIND_RO) {
			if (kernel && m->row == LX_ROW_NONE)
				return 0;
			if (kernel)
				goto kernel_row;
			set_region(b->root, d, 0, m->row);
			return 0;
		}
		if (m->kind == LX_BIND_RW && m->row == LX_ROW_NONE &&
		    strcmp(d, "/tmp") == 0 && private_tmp_dir(m->src)) {
			/*
			 * "@default tmp private": no tmpfs of the sandbox's
			 * own without a mount namespace.  The host's /tmp is
			 * neither read nor written; the launch's own
			 * directory in it is the sandbox's ($TMPDIR).
			 */
			set_region(b->root, "/tmp", 0, m->row);
			set_region(b->root, m->src, CR_ALL, m->row);
			return 0;
		}
		if (strcmp(m->src, d) != 0) {
			*b->err = xasprintf("a bind of '%s' onto '%s' shows a "
					    "path elsewhere, which needs a "
					    "mount namespace", m->src, d);
			return -1;
		}
		if (kernel)
			return 0;	/* read-only there in any case */
		set_region(b->root, d, m->kind == LX_BIND_RO ||
			   m->kind == LX_BIND_RO_TRY ? CR_READ : CR_ALL,
			   m->row);
		return 0;
	case LX_DEV:
		/*
		 * The container's (or the host's) own /dev, not bubblewrap's
		 * minimal one: listed, but only the devices below are opened
		 * (a root-started child could otherwise read a disk, the
		 * kernel's log or the keyboard).
		 */
		set_region(b->root, d, CR_READ_DIR, m->row);
		return 0;
	case LX_PROC:
		set_region(b->root, d, CR_READ, m->row);
		return 0;
	case LX_TMPFS:
		if (kernel && m->row == LX_ROW_NONE)
			return 0;
		if (kernel)
			goto kernel_row;
		if (m->mode & 0222) {
			*b->err = xasprintf("a writable tmpfs at '%s' needs a "
					    "mount namespace", d);
			return -1;
		}
		/* A deny cover (0111), or a read-only placeholder (0555)
		 * over a missing path: what the host makes there later is
		 * readable, as an ro row lets it be. */
		set_region(b->root, d, (m->mode & 0444) ? CR_READ : 0, m->row);
		return 0;
	case LX_DIR:
		return 0;	/* inside a cover: nothing to see there */
	case LX_REMOUNT_RO: {
		struct node *n = node_at(b->root, d);

		if (kernel || strcmp(d, "/dev") == 0)
			return 0;
		if (!n->region) {
			*b->err = xasprintf("a read-only remount of '%s', which "
					    "no mount of the list starts", d);
			return -1;
		}
		n->rights &= CR_READ;
		return 0;
	}
	default:
		*b->err = xasprintf("a mount of kind %u at '%s'",
				    (unsigned)m->kind, d ? d : "?");
		return -1;
	}
kernel_row:
	*b->err = xasprintf("'%s' is below /proc or /sys, which are the "
			    "host's in container mode and cannot hide a path",
			    d);
	return -1;
}

/*
 * The devices a program needs: /dev is the container's own (not a
 * private one, as bubblewrap makes), so only these are opened at all.
 */
static const char *const dev_writable[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
	"/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts",
};

/* What is at @n's path on the host: no symbolic link may be on the way. */
static int probe_kind(struct build *b, struct node *n)
{
	struct stat st;
	size_t i;
	int fd;

	fd = nolink_open(AT_FDCWD, n->path, 0, 0);
	/* The devices the launcher adds may be links (/dev/ptmx to
	 * pts/ptmx): access through a link is checked at its target. */
	if (fd < 0 && errno == ELOOP && n->region && n->row == LX_ROW_NONE &&
	    below(n->path, "/dev")) {
		n->kind = NODE_ABSENT;
		return 0;
	}
	if (fd < 0 && errno == ELOOP) {
		*b->err = xasprintf("'%s' has a symbolic link on its way; "
				    "container mode grants and denies by "
				    "name, so it is refused", n->path);
		return -1;
	}
	if (fd < 0) {
		n->kind = NODE_ABSENT;
	} else {
		n->kind = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) ?
			  NODE_DIR : NODE_OTHER;
		close(fd);
	}
	for (i = 0; i < n->nkids; i++)
		if (probe_kind(b, n->kids[i]) < 0)
			return -1;
	return 0;
}

/* The rights of the region @n lies in. */
static uint64_t eff(const struct node *n)
{
	while (n && !n->region)
		n = n->parent;
	return n ? n->rights : 0;
}

/* Does a region start below @n (a later mount may have covered one)? */
static bool region_below(const struct node *n)
{
	size_t i;

	for (i = 0; i < n->nkids; i++)
		if (n->kids[i]->region || region_below(n->kids[i]))
			return true;
	return false;
}

/* Must @n itself have right @r? */
static bool needs(const struct node *n, uint64_t r)
{
	if (n->kind == NODE_OTHER && (r & CR_DIR_ONLY))
		return true;	/* means nothing on a file */
	/* A path below which a region starts stays where it is. */
	if (n->kind != NODE_OTHER && (r & CR_REMOVE) && region_below(n))
		return false;
	/*
	 * Nor is anything created beside it: an absent path a region names
	 * must stay absent, and an entry made there could not be removed
	 * again (the right to remove is gone).
	 */
	if (n->kind != NODE_OTHER && (r & CR_MAKE) && region_below(n))
		return false;
	return (eff(n) & r) != 0;
}

static bool all_need(const struct node *n, uint64_t r)
{
	size_t i;

	if (!needs(n, r))
		return false;
	for (i = 0; i < n->nkids; i++)
		if (!all_need(n->kids[i], r))
			return false;
	return true;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The host entries of directory @n, once, sorted. */
static int list(struct build *b, struct node *n)
{
	struct dirent *de;
	DIR *d;

	if (n->listed)
		return 0;
	n->listed = true;
	d = opendir(n->path);
	if (!d) {
		/* Nothing the launcher can list gets a right of its own. */
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (++b->out->nlisted > CONTAINER_LIST_MAX) {
			closedir(d);
			*b->err = xasprintf("more than %d host entries would "
					    "need a rule of their own (last in "
					    "'%s')", CONTAINER_LIST_MAX,
					    n->path);
			return -1;
		}
		n->entries = xreallocarray(n->entries, n->nentries + 1,
					   sizeof(*n->entries));
		n->entries[n->nentries++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n->nentries)
		qsort(n->entries, n->nentries, sizeof(*n->entries), by_name);
	n->entry_grant = xcalloc(n->nentries ? n->nentries : 1,
				 sizeof(*n->entry_grant));
	return 0;
}

static const char *why(uint64_t r)
{
	if (r == CR_READ_DIR)
		return "the directories above it cannot be listed (Landlock "
		       "grants whole subtrees)";
	if (r & CR_READ)
		return "read is granted entry by entry beside it: what "
		       "appears there later cannot be read";
	return "the directories above it inside the writable region lose "
	       "the right to create, remove or rename entries";
}

static void blame_one(struct build *b, const struct node *d, const char *what)
{
	struct container_rules *o = b->out;
	size_t i;

	for (i = 0; i < o->nnarrowed; i++)
		if (o->narrowed[i].row == d->row &&
		    o->narrowed[i].what == what)
			return;
	o->narrowed = xreallocarray(o->narrowed, o->nnarrowed + 1,
				    sizeof(*o->narrowed));
	o->narrowed[o->nnarrowed].row = d->row;
	o->narrowed[o->nnarrowed].path = xstrdup(d->path);
	o->narrowed[o->nnarrowed].what = what;
	o->nnarrowed++;
}

/* @n was split for right @r: the regions below it that caused it. */
static void blame(struct build *b, const struct node *n, uint64_t r)
{
	size_t i;
	const struct node *k;

	for (i = 0; i < n->nkids; i++) {
		k = n->kids[i];
		if (k->region && ((r & CR_REMOVE) || (r & CR_MAKE) ||
				  !(k->rights & r)))
			blame_one(b, k, why(r));
		blame(b, k, r);
	}
}

/*
 * Supervised paths (container_rules.h): right @r granted at the highest
 * nodes whose own region has it, whatever lies below; the supervisor
 * judges every path call there by the region map itself.
 */
static void place_coarse(struct node *n, uint64_t r)
{
	size_t i;

	if (n->kind == NODE_ABSENT)
		return;
	if (eff(n) & r) {
		if (!(n->kind == NODE_OTHER && (r & CR_DIR_ONLY)))
			n->grant |= r;
		return;
	}
	for (i = 0; i < n->nkids; i++)
		place_coarse(n->kids[i], r);
}

static int place(struct build *b, struct node *n, uint64_t r)
{
	size_t i;
	struct node *k;

	if (b->supervised) {
		place_coarse(n, r);
		return 0;
	}
	if (n->kind == NODE_ABSENT)
		return 0;
	if (all_need(n, r)) {
		if (!(n->kind == NODE_OTHER && (r & CR_DIR_ONLY)))
			n->grant |= r;
		return 0;
	}
	if ((eff(n) & r) && n->kind == NODE_DIR) {
		if (list(b, n) < 0)
			return -1;
		for (i = 0; i < n->nentries; i++) {
			k = kid_find(n, n->entries[i], strlen(n->entries[i]));
			if (k) {
				if (place(b, k, r) < 0)
					return -1;
			} else {
				n->entry_grant[i] |= r;
			}
		}
		/* A kid the listing did not show (absent) gets nothing. */
		blame(b, n, r);
		return 0;
	}
	for (i = 0; i < n->nkids; i++)
		if (place(b, n->kids[i], r) < 0)
			return -1;
	return 0;
}

static int add_rule(struct build *b, const char *path, uint64_t rights,
		    bool listed)
{
	struct container_rules *o = b->out;

	if (o->nrules >= CONTAINER_RULES_MAX) {
		*b->err = xasprintf("more than %d Landlock rules would be "
				    "needed", CONTAINER_RULES_MAX);
		return -1;
	}
	o->rules = xreallocarray(o->rules, o->nrules + 1, sizeof(*o->rules));
	o->rules[o->nrules].path = xstrdup(path);
	o->rules[o->nrules].rights = rights;
	o->rules[o->nrules].listed = listed;
	o->nrules++;
	return 0;
}

static int collect(struct build *b, const struct node *n)
{
	size_t i;
	char *p;
	int rc;

	if (n->grant && add_rule(b, n->path, n->grant, false) < 0)
		return -1;
	for (i = 0; i < n->nentries; i++) {
		if (!n->entry_grant[i])
			continue;
		p = n->parent ? xasprintf("%s/%s", n->path, n->entries[i]) :
			xasprintf("/%s", n->entries[i]);
		rc = add_rule(b, p, n->entry_grant[i], true);
		free(p);
		if (rc < 0)
			return -1;
	}
	for (i = 0; i < n->nkids; i++)
		if (collect(b, n->kids[i]) < 0)
			return -1;
	return 0;
}

static void regions(struct container_rules *o, const struct node *n)
{
	size_t i;

	if (n->region) {
		o->regions = xreallocarray(o->regions, o->nregions + 1,
					   sizeof(*o->regions));
		o->regions[o->nregions].path = xstrdup(n->path);
		o->regions[o->nregions].rights = n->rights;
		o->nregions++;
	}
	for (i = 0; i < n->nkids; i++)
		regions(o, n->kids[i]);
}

static int by_rule_path(const void *a, const void *b)
{
	return strcmp(((const struct container_rule *)a)->path,
		      ((const struct container_rule *)b)->path);
}

static int by_row(const void *a, const void *b)
{
	const struct container_narrowing *x = a, *y = b;

	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	return strcmp(x->what, y->what);
}

int container_rules_build(const struct lx_artifact *lx, bool supervised,
			  struct container_rules *out, char **err)
{
	struct build b = { 0 };
	struct node *dev;
	size_t i;
	unsigned bit;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	b.root = node_new(NULL, "", 0);
	b.out = out;
	b.supervised = supervised;
	b.err = err;
	for (i = 0; i < lx->n; i++) {
		if (add_mount(&b, &lx->m[i]) < 0) {
			char *why_msg = *err;

			*err = lx->m[i].row == LX_ROW_NONE ?
			       xasprintf("container mode cannot hold the "
					 "launcher's own mount: %s", why_msg) :
			       xasprintf("row %u: container mode cannot hold "
					 "it: %s", lx->m[i].row, why_msg);
			free(why_msg);
			goto out;
		}
	}
	/* Whatever the rows say, /proc and /sys stay read-only. */
	set_region(b.root, "/proc", CR_READ, LX_ROW_NONE);
	set_region(b.root, "/sys", CR_READ, LX_ROW_NONE);
	dev = node_at(b.root, "/dev");
	if (dev->region && dev->rights == CR_READ_DIR)
		for (i = 0; i < array_size(dev_writable); i++) {
			struct node *n = node_at(b.root, dev_writable[i]);

			if (!n->region)
				set_region(b.root, dev_writable[i],
					   CR_READ | CR_WRITE_CONTENT,
					   LX_ROW_NONE);
		}
	if (probe_kind(&b, b.root) < 0)
		goto out;
	for (bit = 0; bit < 16; bit++)
		if (place(&b, b.root, 1ULL << bit) < 0)
			goto out;
	if (collect(&b, b.root) < 0)
		goto out;
	/* (qsort() takes no NULL array, even of no element.) */
	if (out->nrules)
		qsort(out->rules, out->nrules, sizeof(*out->rules),
		      by_rule_path);
	if (out->nnarrowed)
		qsort(out->narrowed, out->nnarrowed, sizeof(*out->narrowed),
		      by_row);
	regions(out, b.root);
	out->supervised = supervised;
	rc = 0;
out:
	node_free(b.root);
	if (rc < 0)
		container_rules_release(out);
	return rc;
}

uint64_t container_rights_at(const struct container_rules *cr, const char *path)
{
	size_t i, best = 0, len;
	uint64_t rights = 0;

	for (i = 0; i < cr->nregions; i++) {
		len = strlen(cr->regions[i].path);
		if ((len == 1 || below(path, cr->regions[i].path)) &&
		    len >= best) {
			best = len;
			rights = cr->regions[i].rights;
		}
	}
	return rights;
}

uint64_t container_granted_at(const struct container_rules *cr,
			      const char *path)
{
	uint64_t r = 0;
	size_t i;

	for (i = 0; i < cr->nrules; i++)
		if (strcmp(cr->rules[i].path, "/") == 0 ||
		    below(path, cr->rules[i].path))
			r |= cr->rules[i].rights;
	return r;
}

void container_rules_release(struct container_rules *cr)
{
	size_t i;

	for (i = 0; i < cr->nrules; i++)
		free(cr->rules[i].path);
	for (i = 0; i < cr->nregions; i++)
		free(cr->regions[i].path);
	for (i = 0; i < cr->nnarrowed; i++)
		free(cr->narrowed[i].path);
	free(cr->rules);
	free(cr->regions);
	free(cr->narrowed);
	memset(cr, 0, sizeof(*cr));
}
