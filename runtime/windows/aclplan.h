/* SPDX-License-Identifier: MIT */
/*
 * aclplan.h - what the windows launcher carries out: the ACL plan of a
 * verified plan.bin (doc/launcher.md, "Windows"), as objects with their
 * ACEs in canonical order, and the ACL model the merge, the revert and
 * the tests share.
 *
 * The contract is plan.bin: its checksum, its target byte and its rows
 * are checked by the plan library, the capability SID is derived again
 * from the rows (plan/capsid.c) and must equal the artifact's, and the
 * artifact (the .acl.json text vboxc compile writes) must say exactly
 * what its rows imply: every entry names a kernel-landing row with the
 * row's effect and text, every ACE list is the one doc/targets.md gives
 * for that effect.  Nothing the plan says is trusted beyond that.
 */
#ifndef VBOX_ACLPLAN_H
#define VBOX_ACLPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capsid.h"

struct plan;
struct bbuf;

/* ACE flags, winnt.h bit values. */
#define WACE_OI 0x01
#define WACE_CI 0x02
#define WACE_INHERITED 0x10

#define SID_OWNER_RIGHTS "S-1-3-4"

/* The longest native path accepted (UTF-8 bytes; \\?\ allows 32767). */
#define WPATH_MAX 32000

enum wace_type {
	WACE_ALLOW = 0,
	WACE_DENY = 1,
};

/**
 * struct wace - one ACE of the model
 * @type: enum wace_type
 * @flags: WACE_* (OI|CI for "OICI", WACE_INHERITED on an inherited one)
 * @mask: the access mask
 * @sid: the SID's text ("S-1-…"), owned
 */
struct wace {
	uint8_t type;
	uint8_t flags;
	uint32_t mask;
	char *sid;
};

/* struct wacl - an ACL of the model: ACEs in their order. */
struct wacl {
	struct wace *aces;
	size_t n;
	size_t cap;
};

enum wobj_role {
	WOBJ_DENY_SIDE, /* a deny or ro entry, or a pin: never downgraded */
	WOBJ_WRITE_ROOT, /* only rw entries: downgraded to read-only */
};

/**
 * struct wobj - one object the plan puts ACEs on
 * @path: the native path ("C:\Work"), as the plan spells it
 * @key: @path case-folded (ASCII), for grouping and order
 * @aces: the explicit ACEs to merge, deny before allow (@naces)
 * @role: enum wobj_role
 * @label_low: give it a low mandatory label (no-write-up, OICI)
 * @placeholder: create an empty directory when missing
 * @entry: it carries an entry, not only pins
 * @rows: the entry rows and pinned holes it carries, for messages
 */
struct wobj {
	char *path;
	char *key;
	struct wace *aces;
	size_t naces;
	enum wobj_role role;
	bool label_low;
	bool placeholder;
	bool entry;
	char *rows;
};

/**
 * struct aclplan - a checked plan, ready to carry out
 * @sid: the capability SID (derived and checked)
 * @sub: its sub-authorities (CAPSID_NSUB; the first is 3)
 * @low: the token's integrity level is low (@default write deny)
 * @objs: objects sorted by @key (parents before children), @nobjs
 */
struct aclplan {
	char sid[CAPSID_MAX];
	uint32_t sub[CAPSID_NSUB];
	bool low;
	struct wobj *objs;
	size_t nobjs;
};

/*
 * aclplan_load - check the windows plan @plan (loaded by plan_load()) and
 * its artifact as the comment above says, into *@out.  Returns 0, or -1
 * with one line in *@err (caller frees); *@out then owns nothing.
 */
int aclplan_load(const struct plan *plan, struct aclplan *out, char **err);
void aclplan_release(struct aclplan *p);

/*
 * aclplan_print - the dry run: the token, then every object in the order
 * the launcher applies them, with its ACEs in the order they will stand
 * in the object's DACL.  Deterministic: the same plan prints the same
 * bytes.
 */
void aclplan_print(const struct aclplan *p, struct bbuf *out);

/* wace_copy - a deep copy of @a into @dst. */
void wace_copy(struct wace *dst, const struct wace *a);
bool wace_equal(const struct wace *a, const struct wace *b);
/* wacl_add - append a copy of @a. */
void wacl_add(struct wacl *acl, const struct wace *a);
void wacl_free(struct wacl *acl);

/*
 * wacl_canonical - whether @acl is in canonical order: explicit deny,
 * explicit allow, inherited.
 */
bool wacl_canonical(const struct wacl *acl);

/*
 * wacl_gap - whether an object below a deny or ro entry, with DACL @acl
 * (protected when @protected), could escape the entry's inherited ACEs:
 * a protected DACL inherits nothing, and an explicit allow comes before
 * every inherited deny (doc/targets.md, "What the launcher must do", 4).
 * Such an object is given the entry's ACEs explicitly.
 */
bool wacl_gap(const struct wacl *acl, bool protected);

/*
 * wobj_walks - whether the launcher walks below @o to close those gaps:
 * it carries an inheritable deny (a deny or ro entry; a pin's deny is not
 * inherited, and an rw entry has none).
 */
bool wobj_walks(const struct wobj *o);

/*
 * aclplan_entry_at - whether @path (any case) carries one of @p's
 * entries: the gap walk stops there, that entry deciding below it.  An
 * object with pins alone decides nothing below it, so the walk goes on
 * through it (a pin can lie inside a deny entry, where an absorbed rw
 * glob makes a folder writable).
 */
bool aclplan_entry_at(const struct aclplan *p, const char *path);

/*
 * wacl_merge - @cur with @add merged in: explicit denies (the ones @cur
 * has, then the added ones it lacks), explicit allows (the same), then
 * @cur's inherited ACEs in their order.  An ACE @cur already has is not
 * added twice, so merging again changes nothing.  Returns -1 (and leaves
 * @out empty) when @cur is not canonical: reordering it could widen it.
 */
int wacl_merge(const struct wacl *cur, const struct wace *add, size_t nadd,
	       struct wacl *out);

/*
 * wacl_remove - @cur without its explicit ACEs equal to @a (type, flags,
 * mask, SID), into @out; returns how many were removed.
 */
size_t wacl_remove(const struct wacl *cur, const struct wace *a,
		   struct wacl *out);

/* wace_print - "deny  S-1-… write 0x000d0156 OICI" into @out. */
void wace_print(const struct wace *a, const char *cap_sid,
		struct bbuf *out);

/* wpath_check - whether @path is a native drive path the plan may name. */
bool wpath_check(const char *path);

#endif /* VBOX_ACLPLAN_H */
