/* SPDX-License-Identifier: MIT */
/*
 * linux_artifact.h - the linux artifact: bubblewrap's sandbox as typed
 * operations (doc/targets.md, "Linux").
 *
 * The linux emitter builds a struct lx_artifact from the table; `vboxc
 * compile --emit=profile` renders it into the NUL-separated argument
 * list `bwrap --args FD` reads, and plan.bin stores it encoded (below),
 * with one LX_LAUNCH operation where a launch-class row's mounts belong.
 * The launcher decodes it, replaces each LX_LAUNCH by the row's mounts
 * (runtime/linux/mounts.c), adds its own flags and mounts, and renders
 * the result once (lx_render) for bubblewrap.  Nothing re-parses an
 * argument list: every decision about a mount looks at these fields.
 *
 * Encoding (inside plan.bin's artifact section, little-endian):
 *   u32 flags (enum lx_flag bits; unknown bits are corrupt)
 *   u32 count, then count mounts, each:
 *     u8 kind, u8 zero, u16 mode, u32 row, string source, string dest
 */
#ifndef VBOX_LINUX_ARTIFACT_H
#define VBOX_LINUX_ARTIFACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wbuf;
struct wire_reader;

/*
 * Walk bounds for expanding one glob at launch (runtime/linux/glob.c):
 * directory entries looked at (each readdir entry and each literal
 * lookup counts) and directory levels below the literal prefix.  Past
 * either the launch is refused.  Here because the compile side names
 * them in its reasons.
 */
#define LINUX_WALK_MAX_ENTRIES 10000
#define LINUX_WALK_MAX_DEPTH 32

/*
 * enum lx_flag - bubblewrap's namespace and process flags, rendered in
 * this order (the order of the bits) before every mount.
 */
enum lx_flag {
	LX_NEW_SESSION = 1u << 0,	/* --new-session */
	LX_DIE_WITH_PARENT = 1u << 1,	/* --die-with-parent */
	LX_UNSHARE_USER = 1u << 2,	/* --unshare-user */
	LX_DISABLE_USERNS = 1u << 3,	/* --disable-userns */
	LX_UNSHARE_PID = 1u << 4,	/* --unshare-pid */
	LX_UNSHARE_IPC = 1u << 5,	/* --unshare-ipc */
	LX_UNSHARE_UTS = 1u << 6,	/* --unshare-uts */
	LX_UNSHARE_CGROUP_TRY = 1u << 7, /* --unshare-cgroup-try */
	LX_UNSHARE_NET = 1u << 8,	/* --unshare-net */
	LX_AS_PID_1 = 1u << 9,		/* --as-pid-1 (the launcher's init) */
	LX_CAP_DROP_ALL = 1u << 10,	/* --cap-drop ALL */
	LX_UID_0 = 1u << 11,		/* --uid 0 --gid 0 (launcher only) */
	LX_CAP_ADD_ALL = 1u << 12,	/* --cap-add ALL (launcher only) */
};
#define LX_FLAGS_ALL ((1u << 13) - 1)
/*
 * The flags a plan may carry.  LX_UID_0 and LX_CAP_ADD_ALL give the
 * sandbox's init the capabilities to mount inside the sandbox; only the
 * launcher sets them, together with the init's setup that drops them
 * (runtime/init/init.c), never a plan.
 */
#define LX_FLAGS_PLAN ((1u << 11) - 1)

/**
 * enum lx_kind - one mount operation, in bubblewrap's terms
 * @LX_BIND_RO: --ro-bind SOURCE DEST
 * @LX_BIND_RW: --bind SOURCE DEST
 * @LX_BIND_RO_TRY: --ro-bind-try SOURCE DEST (skipped when SOURCE is
 *                  missing)
 * @LX_BIND_RW_TRY: --bind-try SOURCE DEST
 * @LX_DEV: --dev DEST, bubblewrap's own minimal /dev
 * @LX_PROC: --proc DEST
 * @LX_TMPFS: --perms MODE --tmpfs DEST
 * @LX_DIR: --perms MODE --dir DEST (a directory made inside a tmpfs)
 * @LX_REMOUNT_RO: --remount-ro DEST
 * @LX_LAUNCH: plans only: the mounts of launch-class file row @row go
 *             here; never rendered
 */
enum lx_kind {
	LX_BIND_RO = 1,
	LX_BIND_RW,
	LX_BIND_RO_TRY,
	LX_BIND_RW_TRY,
	LX_DEV,
	LX_PROC,
	LX_TMPFS,
	LX_DIR,
	LX_REMOUNT_RO,
	LX_LAUNCH,
};
#define LX_KIND_MAX LX_LAUNCH

/* No row: a mount of the base view or of the launcher itself. */
#define LX_ROW_NONE UINT32_MAX

/*
 * The mode of the private /tmp ("@default tmp private"): an LX_TMPFS of
 * "/tmp" with this mode and no row is that /tmp, in a static list as in
 * a plan (the launcher makes it a directory of its own, sandbox.c).
 */
#define LX_PRIVATE_TMP_MODE 01777

/**
 * struct lx_mount - one typed mount operation
 * @kind: enum lx_kind
 * @mode: LX_TMPFS and LX_DIR: the permission bits (<= 07777); else 0
 * @row: the file row the mount enforces, or LX_ROW_NONE
 * @src: binds only: the host path (owned); NULL for the others
 * @dest: where, inside the sandbox (owned); NULL for LX_LAUNCH
 */
struct lx_mount {
	uint8_t kind;
	uint16_t mode;
	uint32_t row;
	char *src;
	char *dest;
};

/**
 * struct lx_artifact - a bubblewrap sandbox
 * @flags: enum lx_flag bits
 * @m: the mounts, in order: a later mount covers an earlier one
 * @n: number of @m
 * @cap: allocated @m
 * @chdir: launcher only: --chdir DIR, rendered last (owned; not encoded)
 */
struct lx_artifact {
	uint32_t flags;
	struct lx_mount *m;
	size_t n;
	size_t cap;
	char *chdir;
};

/*
 * lx_take - append *@m with its strings, which @a owns from here (the
 * entry @m was in must no longer free them).  Returns the new entry.
 */
struct lx_mount *lx_take(struct lx_artifact *a, const struct lx_mount *m);

/* lx_kind_is_bind - @kind takes a source. */
bool lx_kind_is_bind(unsigned kind);

/*
 * lx_add - append a mount (copies @src and @dest; either may be NULL
 * where @kind takes none).  Returns the new entry.
 */
struct lx_mount *lx_add(struct lx_artifact *a, enum lx_kind kind,
			const char *src, const char *dest, unsigned mode,
			uint32_t row);

/*
 * lx_encode - append the encoding of @a (not @a->chdir) to @out: its head
 * (lx_encode_head()), then each mount in order (lx_encode_mount()), the
 * parts for a writer that streams a large artifact.
 */
void lx_encode(const struct lx_artifact *a, struct wbuf *out);
void lx_encode_head(const struct lx_artifact *a, struct wbuf *out);
void lx_encode_mount(const struct lx_mount *m, struct wbuf *out);

/*
 * lx_decode - read an artifact from the whole of @r into *@out, checking
 * every field (kind, mode, paths absolute, operands present exactly where
 * the kind takes them).  Returns 0, or -1 with the message in *@r->err;
 * *@out is released on failure.
 */
int lx_decode(struct wire_reader *r, struct lx_artifact *out);

/*
 * lx_render - append @a as the NUL-separated argument list `bwrap --args
 * FD` reads to @out: the flags, the mounts, then --chdir.  An LX_LAUNCH
 * mount cannot be rendered: BUG (callers expand or refuse it first).
 */
void lx_render(const struct lx_artifact *a, struct wbuf *out);

/* lx_artifact_release - free what @a holds; @a is empty again. */
void lx_artifact_release(struct lx_artifact *a);

#endif /* VBOX_LINUX_ARTIFACT_H */
