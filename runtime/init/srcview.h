/* SPDX-License-Identifier: MIT */
/*
 * srcview.h - where the init clones a bind's source from (mounts.c;
 * doc/launcher.md, "Mounts in the init").
 *
 * A bind is a recursive clone of its source as the sandbox shows it.  The
 * kernel looks at every mount below the mount the source lies on for each
 * clone (open_tree(): copy_tree(), and has_locked_children() when not
 * recursive), and the init's own mounts pile up there: a table of N holes
 * in one writable root cost N^2/2 of those looks (2,000 read-only holes:
 * 16 µs a bind instead of 5.5).  So for a long list the init first takes
 * a detached copy of the tree bubblewrap left (the *view*), where its own
 * mounts never land, and clones a same-path bind's source from there
 * whenever that shows exactly what the sandbox shows at that path:
 *
 *   - no mount the init made so far lies strictly below the source (the
 *     sandbox's recursive clone would carry it; the view's lacks it);
 *   - every mount the init made so far at the source or above it is a
 *     bind of the same host path (which shows the host's files there, as
 *     the view does); a tmpfs, --dev, --proc, a /dev/null cover or a
 *     read-only remount there makes the sandbox differ from the view.
 *
 * The source is resolved in the view with no symbolic link (openat2()
 * RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH): the two rules compare paths as
 * written, which only a path without links makes sound.  Anything else
 * (a link, a kernel that cannot clone from a detached tree, no memory)
 * clones from the sandbox as before.  Host mounts made after the view was
 * taken are not in it: a clone of the sandbox taken then would not carry
 * a host mount made a moment later either.  libc only.
 */
#ifndef VBOX_INIT_SRCVIEW_H
#define VBOX_INIT_SRCVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Fewer binds than this in the list clone from the sandbox: below it the
 * path walk in the view costs what the kernel's looks save (200 read-only
 * holes: 5.3 µs a bind either way; bench/README.md).
 */
#define SRCVIEW_MIN_BINDS 256

struct srcview_slot;

/**
 * struct srcview - the view and what the init mounted so far
 * @root: the view's root (a detached recursive clone of "/"), or -1
 * @slots: open addressing over the paths noted, @mask + 1 of them
 * @n: slots used
 * @names: the paths' bytes, one after the other (@len used, @cap held)
 */
struct srcview {
	int root;
	struct srcview_slot *slots;
	size_t mask;
	size_t n;
	char *names;
	size_t len;
	size_t cap;
};

/*
 * srcview_open - take the view when the list holds @nbinds binds or more
 * (SRCVIEW_MIN_BINDS); before the init's first mount.  Without it (too
 * few binds, or a failure) @v clones nothing: srcview_take() says -1.
 */
void srcview_open(struct srcview *v, size_t nbinds);

/*
 * srcview_note - the init made a mount, or a read-only remount, at
 * @dest; @same_path_bind: a bind of the same host path (its source is
 * @dest, not /dev/null).
 */
void srcview_note(struct srcview *v, const char *dest, bool same_path_bind);

/*
 * srcview_take - an O_PATH fd of @src (absolute, clean) in the view, to
 * clone from, when the view shows what the sandbox shows there (above);
 * else -1: clone from the sandbox.  The caller closes the fd.
 */
int srcview_take(struct srcview *v, const char *src);

/* srcview_close - release the view and the notes. */
void srcview_close(struct srcview *v);

#endif /* VBOX_INIT_SRCVIEW_H */
