/* SPDX-License-Identifier: MIT */
/*
 * winmodel.h - a model of Windows' file access checks, for the windows
 * agreement test (tests/windows/test_winagree; doc/launcher.md,
 * "Windows", "The access-check agreement test"): objects with DACLs
 * (explicit and inherited ACEs, protected or not, inheritance computed
 * as Windows computes it when a DACL is set or an object is made), an
 * owner and a mandatory label; tokens with their SIDs, restricting SIDs
 * and integrity level; and the checks the operations need: the access
 * check of MS-DTYP 2.5.3.2 (owner rights and OWNER RIGHTS, deny before
 * allow in DACL order, a restricted token's second pass over its
 * restricting SIDs) after the mandatory check of 2.5.3.3 (no-write-up
 * leaves a lower token only read and execute rights), a delete by
 * DELETE or the parent's FILE_DELETE_CHILD, rename and create.
 *
 * What it leaves out (privileges, junctions, 8.3 names, alternate
 * streams, per-directory case sensitivity, FAT volumes, object ACEs) is
 * listed in doc/launcher.md.  SID texts are interned (wm_sid()), so two
 * equal SIDs are one pointer and the model compares pointers.
 */
#ifndef VBOX_WINMODEL_H
#define VBOX_WINMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aclplan.h"

/* Access rights (winnt.h values). */
#define WM_READ_DATA 0x00000001u /* list a directory */
#define WM_ADD_FILE 0x00000002u /* WRITE_DATA */
#define WM_ADD_SUBDIR 0x00000004u /* APPEND_DATA */
#define WM_DELETE_CHILD 0x00000040u
#define WM_DELETE 0x00010000u
#define WM_READ_CONTROL 0x00020000u
#define WM_WRITE_DAC 0x00040000u
#define WM_WRITE_OWNER 0x00080000u
#define WM_FULL 0x001f01ffu
/* FILE_GENERIC_READ; the data, EA and attribute writes of FILE_GENERIC_WRITE */
#define WM_READ 0x00120089u
#define WM_WRITE 0x00000116u
/* What no-write-up leaves a lower token: FILE_GENERIC_READ | _EXECUTE. */
#define WM_NO_WRITE_UP_KEEPS 0x001200a9u

/* ACE flags besides aclplan.h's OI, CI and INHERITED. */
#define WM_NP 0x04
#define WM_IO 0x08

enum wm_il {
	WM_IL_NONE = 0, /* no label: medium for the check */
	WM_IL_LOW = 1,
	WM_IL_MEDIUM = 2,
	WM_IL_HIGH = 3,
};

/**
 * struct wm_label - a mandatory label ACE (always NO_WRITE_UP)
 * @level: enum wm_il; WM_IL_NONE when there is none
 * @flags: OI, CI, NP, IO, INHERITED
 */
struct wm_label {
	uint8_t level;
	uint8_t flags;
};

#define WM_PATH_MAX 160
#define WM_MAX_OBJS 96
#define WM_MAX_SIDS 16

/**
 * struct wm_obj - one file or directory of the model
 * @path: its native path ("C:\Data\a"); the drive root is "C:\"
 * @parent: its parent's index, -1 for the drive root
 * @dir: a directory
 * @exists: false once deleted (indexes stay stable)
 * @owner: the owner's SID (interned)
 * @dacl: explicit ACEs, then the inherited ones, SIDs interned (not
 *	owned: free the array only)
 * @protected: inherits nothing
 * @label: its explicit label (@label.level WM_IL_NONE: none)
 * @ilabel: the label it inherits (when it has no explicit one)
 */
struct wm_obj {
	char path[WM_PATH_MAX];
	int parent;
	bool dir;
	bool exists;
	const char *owner;
	struct wacl dacl;
	bool protected;
	struct wm_label label;
	struct wm_label ilabel;
};

/* struct wm_state - the objects of one host; wm_state_copy() deep-copies. */
struct wm_state {
	struct wm_obj obj[WM_MAX_OBJS];
	size_t n;
};

/**
 * struct wm_token - an access token
 * @user: the user SID, also the owner of what it creates
 * @sids: the user and the enabled groups (@nsids)
 * @rsids: the restricting SIDs (@nrsids); a second pass over them when
 *	@restricted
 * @il: its integrity level (enum wm_il)
 */
struct wm_token {
	const char *user;
	const char *sids[WM_MAX_SIDS];
	size_t nsids;
	const char *rsids[WM_MAX_SIDS];
	size_t nrsids;
	bool restricted;
	uint8_t il;
};

/* wm_sid - @text interned: equal texts give one pointer, kept to exit. */
const char *wm_sid(const char *text);
/* wm_acl_intern - point every SID of @acl into the pool (frees the copies). */
void wm_acl_intern(struct wacl *acl);
/* wm_acl_release - free @acl's array (its SIDs are the pool's). */
void wm_acl_release(struct wacl *acl);

void wm_state_init(struct wm_state *st);
void wm_state_free(struct wm_state *st);
/* wm_state_copy - a deep copy of @src into @dst (uninitialized). */
void wm_state_copy(struct wm_state *dst, const struct wm_state *src);

/* wm_find - the existing object at @path (ASCII case folded), or -1. */
int wm_find(const struct wm_state *st, const char *path);
/* wm_parent_path - @path without its last component, into @out. */
void wm_parent_path(const char *path, char out[WM_PATH_MAX]);

/*
 * wm_root - the drive root "C:\" (owner @owner, @dacl's ACEs, the label
 * @label), the first object.  Returns its index.
 */
int wm_root(struct wm_state *st, const char *owner, const struct wace *dacl,
	    size_t n, struct wm_label label);
/*
 * wm_make - a new object @name in the directory @parent, made by a
 * process of @maker: its owner is @maker's user, its DACL the inherited
 * one, its label the inherited one or, from a token below medium, the
 * token's.  Returns its index, or -1 when the model is full.
 */
int wm_make(struct wm_state *st, int parent, const char *name, bool dir,
	    const struct wm_token *maker);
/* wm_set_dacl - @idx's DACL (a copy of @dacl) and protection; propagates. */
void wm_set_dacl(struct wm_state *st, int idx, const struct wacl *dacl,
		 bool protected);
/* wm_set_label - @idx's explicit label; propagates. */
void wm_set_label(struct wm_state *st, int idx, struct wm_label label);
/*
 * wm_propagate - recompute the inherited ACEs and labels of every
 * descendant of @idx, as SetSecurityInfo does after a change.
 */
void wm_propagate(struct wm_state *st, int idx);

/*
 * wm_access - whether @tok is granted every right of @desired on @idx:
 * the mandatory check, then the DACL for the token's SIDs and, for a
 * restricted token, again for its restricting SIDs.
 */
bool wm_access(const struct wm_state *st, int idx, const struct wm_token *tok,
	       uint32_t desired);

/* The operations.  @idx must exist. */
bool wm_can_read(const struct wm_state *st, int idx,
		 const struct wm_token *tok);
bool wm_can_write(const struct wm_state *st, int idx,
		  const struct wm_token *tok);
bool wm_can_setacl(const struct wm_state *st, int idx,
		   const struct wm_token *tok);
/*
 * wm_can_delete - @idx and everything below it removed, deepest first:
 * each needs DELETE on itself or FILE_DELETE_CHILD on its parent.  (The
 * drive root is never deleted.)
 */
bool wm_can_delete(const struct wm_state *st, int idx,
		   const struct wm_token *tok);
/*
 * wm_can_rename - @idx moved to @to (absent; its parent must exist):
 * DELETE on it or FILE_DELETE_CHILD on its parent, and the right to add
 * a file or a directory to @to's parent.
 */
bool wm_can_rename(const struct wm_state *st, int idx, const char *to,
		   const struct wm_token *tok);
/*
 * wm_can_create - @path made with every missing directory above it, as
 * "mkdir -p" then the leaf (a directory when @dir): each step needs the
 * right to add to the directory above, checked on the objects as they
 * are made.  False when @path exists.  With @st_out (initialized by
 * the call when it returns true) the state after the creation.
 */
bool wm_can_create(const struct wm_state *st, const char *path, bool dir,
		   const struct wm_token *tok, struct wm_state *st_out);

/* The effects of a delete and a rename, for exploring two steps. */
void wm_do_delete(struct wm_state *st, int idx);
void wm_do_rename(struct wm_state *st, int idx, const char *to);

#endif /* VBOX_WINMODEL_H */
