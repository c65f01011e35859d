/* SPDX-License-Identifier: MIT */
/*
 * linux_artifact.c - typed bubblewrap sandboxes: build, encode, decode,
 * render (linux_artifact.h).  The only place that knows bubblewrap's
 * option spellings for mounts and namespace flags.
 */
#include <vbox.h>

#include <stdio.h>

#include "grow.h"
#include "linux_artifact.h"
#include "wire.h"

/* Bits of enum lx_flag in order, with their options. */
static const struct {
	uint32_t bit;
	const char *arg;
	const char *arg2;
} flag_args[] = {
	{ LX_NEW_SESSION, "--new-session", NULL },
	{ LX_DIE_WITH_PARENT, "--die-with-parent", NULL },
	{ LX_UNSHARE_USER, "--unshare-user", NULL },
	{ LX_DISABLE_USERNS, "--disable-userns", NULL },
	{ LX_UNSHARE_PID, "--unshare-pid", NULL },
	{ LX_UNSHARE_IPC, "--unshare-ipc", NULL },
	{ LX_UNSHARE_UTS, "--unshare-uts", NULL },
	{ LX_UNSHARE_CGROUP_TRY, "--unshare-cgroup-try", NULL },
	{ LX_UNSHARE_NET, "--unshare-net", NULL },
	{ LX_AS_PID_1, "--as-pid-1", NULL },
	{ LX_CAP_DROP_ALL, "--cap-drop", "ALL" },
	{ LX_UID_0, "--uid", "0" },
	{ LX_UID_0, "--gid", "0" },
	{ LX_CAP_ADD_ALL, "--cap-add", "ALL" },
};

/* The option of each kind, indexed by enum lx_kind. */
static const char *const kind_args[] = {
	[LX_BIND_RO] = "--ro-bind",
	[LX_BIND_RW] = "--bind",
	[LX_BIND_RO_TRY] = "--ro-bind-try",
	[LX_BIND_RW_TRY] = "--bind-try",
	[LX_DEV] = "--dev",
	[LX_PROC] = "--proc",
	[LX_TMPFS] = "--tmpfs",
	[LX_DIR] = "--dir",
	[LX_REMOUNT_RO] = "--remount-ro",
	[LX_LAUNCH] = NULL,
};

/* Smallest encoding of one mount. */
#define MOUNT_MIN_BYTES (1 + 1 + 2 + 4 + 4 + 4)
/* A plan holds no more mounts than this. */
#define MOUNTS_MAX (1u << 24)

bool lx_kind_is_bind(unsigned kind)
{
	return kind >= LX_BIND_RO && kind <= LX_BIND_RW_TRY;
}

static bool kind_has_mode(unsigned kind)
{
	return kind == LX_TMPFS || kind == LX_DIR;
}

struct lx_mount *lx_add(struct lx_artifact *a, enum lx_kind kind,
			const char *src, const char *dest, unsigned mode,
			uint32_t row)
{
	struct lx_mount *m;

	GROW(a->m, a->cap, a->n + 1);
	m = &a->m[a->n++];
	m->kind = (uint8_t)kind;
	m->mode = (uint16_t)mode;
	m->row = row;
	m->src = src ? xstrdup(src) : NULL;
	m->dest = dest ? xstrdup(dest) : NULL;
	return m;
}

struct lx_mount *lx_take(struct lx_artifact *a, const struct lx_mount *m)
{
	GROW(a->m, a->cap, a->n + 1);
	a->m[a->n] = *m;
	return &a->m[a->n++];
}

void lx_encode_head(const struct lx_artifact *a, struct wbuf *out)
{
	if (a->n > MOUNTS_MAX)
		BUG("%zu mounts", a->n);
	wbuf_u32(out, a->flags);
	wbuf_u32(out, (uint32_t)a->n);
}

void lx_encode_mount(const struct lx_mount *m, struct wbuf *out)
{
	wbuf_u8(out, m->kind);
	wbuf_u8(out, 0);
	wbuf_u16(out, m->mode);
	wbuf_u32(out, m->row);
	wbuf_string(out, m->src ? m->src : "");
	wbuf_string(out, m->dest ? m->dest : "");
}

void lx_encode(const struct lx_artifact *a, struct wbuf *out)
{
	size_t i;

	lx_encode_head(a, out);
	for (i = 0; i < a->n; i++)
		lx_encode_mount(&a->m[i], out);
}

static int check_mount(struct wire_reader *r, struct lx_mount *m)
{
	if (m->kind < LX_BIND_RO || m->kind > LX_KIND_MAX)
		return wire_corrupt(r, "mount kind %u is out of range",
				    m->kind);
	if (m->mode > 07777 || (m->mode && !kind_has_mode(m->kind)))
		return wire_corrupt(r, "mode %o does not fit the mount",
				    m->mode);
	if (lx_kind_is_bind(m->kind) != (*m->src != '\0'))
		return wire_corrupt(r, "source '%s' does not fit the mount",
				    m->src);
	if (m->kind == LX_LAUNCH) {
		if (*m->dest || m->row == LX_ROW_NONE)
			return wire_corrupt(r, "a launch mount names a row "
					    "and nothing else");
	} else if (m->dest[0] != '/') {
		return wire_corrupt(r, "destination '%s' is not absolute",
				    m->dest);
	}
	if (*m->src && m->src[0] != '/')
		return wire_corrupt(r, "source '%s' is not absolute", m->src);
	/* Absent operands are NULL, as lx_add() makes them. */
	if (!*m->src) {
		free(m->src);
		m->src = NULL;
	}
	if (!*m->dest) {
		free(m->dest);
		m->dest = NULL;
	}
	return 0;
}

int lx_decode(struct wire_reader *r, struct lx_artifact *out)
{
	char ctx[sizeof(r->ctx)];
	uint32_t n, i;
	uint8_t zero;

	memset(out, 0, sizeof(*out));
	memcpy(ctx, r->ctx, sizeof(ctx));
	if (wire_u32(r, &out->flags, "flags"))
		goto fail;
	if (out->flags & ~LX_FLAGS_PLAN) {
		wire_corrupt(r, "unknown flags 0x%x",
			     out->flags & ~LX_FLAGS_PLAN);
		goto fail;
	}
	if (wire_count(r, &n, MOUNT_MIN_BYTES, MOUNTS_MAX))
		goto fail;
	GROW(out->m, out->cap, n);
	for (i = 0; i < n; i++) {
		struct lx_mount *m = &out->m[i];

		snprintf(r->ctx, sizeof(r->ctx), "%.40s, mount %u", ctx, i);
		memset(m, 0, sizeof(*m));
		out->n++;
		if (wire_u8(r, &m->kind, "kind") ||
		    wire_u8(r, &zero, "padding") ||
		    wire_u16(r, &m->mode, "mode") ||
		    wire_u32(r, &m->row, "row") ||
		    wire_string(r, &m->src, "source") ||
		    wire_string(r, &m->dest, "destination"))
			goto fail;
		if (zero) {
			wire_corrupt(r, "padding byte is %u, not 0", zero);
			goto fail;
		}
		if (check_mount(r, m))
			goto fail;
	}
	memcpy(r->ctx, ctx, sizeof(ctx));
	if (wire_left(r)) {
		wire_corrupt(r, "%zu unused bytes at the end", wire_left(r));
		goto fail;
	}
	return 0;
fail:
	lx_artifact_release(out);
	return -1;
}

static void put_arg(struct wbuf *out, const char *s)
{
	wbuf_put(out, s, strlen(s) + 1);
}

void lx_render(const struct lx_artifact *a, struct wbuf *out)
{
	char mode[16];
	size_t i;

	for (i = 0; i < array_size(flag_args); i++) {
		if (!(a->flags & flag_args[i].bit))
			continue;
		put_arg(out, flag_args[i].arg);
		if (flag_args[i].arg2)
			put_arg(out, flag_args[i].arg2);
	}
	for (i = 0; i < a->n; i++) {
		const struct lx_mount *m = &a->m[i];

		if (m->kind < LX_BIND_RO || m->kind >= LX_LAUNCH)
			BUG("mount %zu of kind %u cannot be rendered", i,
			    m->kind);
		if (kind_has_mode(m->kind)) {
			snprintf(mode, sizeof(mode), "0%o", m->mode);
			put_arg(out, "--perms");
			put_arg(out, mode);
		}
		put_arg(out, kind_args[m->kind]);
		if (lx_kind_is_bind(m->kind))
			put_arg(out, m->src);
		put_arg(out, m->dest);
	}
	if (a->chdir) {
		put_arg(out, "--chdir");
		put_arg(out, a->chdir);
	}
}

void lx_artifact_release(struct lx_artifact *a)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		free(a->m[i].src);
		free(a->m[i].dest);
	}
	free(a->m);
	free(a->chdir);
	memset(a, 0, sizeof(*a));
}
