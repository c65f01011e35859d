/* SPDX-License-Identifier: MIT */
/*
 * instantiate.c - the final bubblewrap argument list for a linux plan
 * (instantiate.h).  The row expansion itself is the linux emitter's
 * linux_launch_instantiate(), shared so that the compile side and the
 * launch side agree on every mount; this file checks the plan around it
 * and adds what the launcher guarantees.
 */
#include <vbox.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emit.h"
#include "instantiate.h"
#include "ir.h"
#include "launch.h"
#include "linux.h"
#include "plan.h"

static char *row_label(const struct plan_row *r)
{
	char bangs[256];

	memset(bangs, '!', r->level);
	bangs[r->level] = '\0';
	return xasprintf("%s%s:%s", bangs, effect_name(r->effect), r->target);
}

static __printf(3, 4) int row_error(const struct plan_row *r, char **err,
				    const char *fmt, ...)
{
	char *label = row_label(r), *msg;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	*err = xasprintf("%s: row %u '%s' %s", r->source, r->index, label,
			 msg ? msg : "cannot be launched");
	free(msg);
	free(label);
	return -1;
}

/*
 * Refuse what this launcher cannot enforce, and collect the launch rows
 * into *@rows (borrowing the plan's strings).
 */
static int check_rows(const struct plan *plan, struct linux_launch_row **rows,
		      size_t *nrows, char **err)
{
	const struct plan_row *r;
	size_t i;

	*rows = xcalloc(plan->nfs ? plan->nfs : 1, sizeof(**rows));
	*nrows = 0;
	for (i = 0; i < plan->nfs; i++) {
		r = &plan->fs[i];
		switch ((enum landing_kind)r->landing) {
		case LANDING_KERNEL:
		case LANDING_ABSORBED:
			break;
		case LANDING_LAUNCH:
			(*rows)[*nrows].index = r->index;
			(*rows)[*nrows].effect = r->effect;
			(*rows)[*nrows].pattern = r->target;
			(*nrows)++;
			break;
		case LANDING_UNSUPPORTED:
			return row_error(r, err, "is unsupported on linux");
		case LANDING_PROXY:
		case LANDING_RESERVED:
		default:
			return row_error(r, err, "has landing '%s', which no "
					 "file row can have",
					 landing_kind_name(r->landing));
		}
	}
	for (i = 0; i < plan->nnet; i++) {
		r = &plan->net[i];
		switch ((enum landing_kind)r->landing) {
		case LANDING_KERNEL:
		case LANDING_ABSORBED:
			break;
		case LANDING_PROXY:
			return row_error(r, err, "lands in the egress proxy, "
					 "which this vbox-exec does not run "
					 "yet");
		case LANDING_UNSUPPORTED:
			return row_error(r, err, "is unsupported on linux");
		case LANDING_LAUNCH:
		case LANDING_RESERVED:
		default:
			return row_error(r, err, "has landing '%s', which "
					 "this vbox-exec cannot enforce for "
					 "a network row",
					 landing_kind_name(r->landing));
		}
	}
	return 0;
}

/*
 * Every launch row must be named by exactly one placeholder: a row the
 * artifact forgot would silently not be enforced.
 */
static int check_placeholders(const struct plan *plan,
			      const struct linux_launch_row *rows,
			      size_t nrows, char **err)
{
	const char *a = (const char *)plan->artifact, *end, *nul;
	size_t *seen, lo, hi, mid;
	unsigned long idx;
	char *stop;
	int ret = 0;

	seen = xcalloc(nrows ? nrows : 1, sizeof(*seen));
	end = a + plan->artifact_len;
	for (; a < end; a = nul + 1) {
		nul = memchr(a, '\0', (size_t)(end - a));
		if (!nul)
			break;
		if (strcmp(a, LINUX_LAUNCH_ARG) != 0 || nul + 1 >= end ||
		    !memchr(nul + 1, '\0', (size_t)(end - nul - 1)))
			continue;
		errno = 0;
		idx = strtoul(nul + 1, &stop, 10);
		if (errno || *stop || stop == nul + 1)
			continue;
		/* @rows are in table order: indexes ascend. */
		for (lo = 0, hi = nrows; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (rows[mid].index < idx)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nrows && rows[lo].index == idx)
			seen[lo]++;
	}
	for (lo = 0; lo < nrows && !ret; lo++) {
		if (seen[lo] == 1)
			continue;
		*err = xasprintf("the plan's artifact names launch row %u %zu "
				 "times (expected once)", rows[lo].index,
				 seen[lo]);
		ret = -1;
	}
	free(seen);
	return ret;
}

static bool has_arg(const struct linux_launch *l, const char *a,
		    const char *b)
{
	size_t i;

	for (i = 0; i < l->argc; i++)
		if (strcmp(l->argv[i], a) == 0 &&
		    (!b || (i + 1 < l->argc && strcmp(l->argv[i + 1], b) == 0)))
			return true;
	return false;
}

/* A growing argument vector; every entry is owned. */
struct argv_builder {
	char **v;
	size_t n;
	size_t cap;
};

static void add(struct argv_builder *b, const char *s)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->v = xreallocarray(b->v, b->cap, sizeof(*b->v));
	}
	b->v[b->n++] = xstrdup(s);
}

/*
 * The flags the launcher's process management and hardening rely on
 * (doc/launcher.md), whatever the artifact says.
 */
static void add_hardening(struct argv_builder *b, const struct linux_launch *l,
			  const struct plan *plan, bool disable_userns,
			  size_t *added)
{
	static const char *const flags[] = {
		"--new-session",
		"--die-with-parent",
		"--unshare-user",
		"--unshare-pid",
	};
	size_t i;

	for (i = 0; i < array_size(flags); i++) {
		if (has_arg(l, flags[i], NULL))
			continue;
		add(b, flags[i]);
		(*added)++;
	}
	/* The shim is the sandbox's init (shim.c, run_as_init()). */
	if (!has_arg(l, "--as-pid-1", NULL)) {
		add(b, "--as-pid-1");
		(*added)++;
	}
	if (!has_arg(l, "--cap-drop", "ALL")) {
		add(b, "--cap-drop");
		add(b, "ALL");
		(*added)++;
	}
	if (disable_userns && !has_arg(l, "--disable-userns", NULL)) {
		add(b, "--disable-userns");
		(*added)++;
	}
	if (plan->default_net == EFFECT_DENY &&
	    !has_arg(l, "--unshare-net", NULL)) {
		add(b, "--unshare-net");
		(*added)++;
	}
}

/*
 * What the final mounts make of a host path: the last mount whose
 * destination is the path or one of its ancestors decides.  Paths are
 * compared by identity (device, inode), which sees through symbolic
 * links on either side.
 */
enum cover {
	COVER_RO,
	COVER_RW,
	COVER_HIDDEN,
	COVER_UNKNOWN,
};

/* A path's identity, from stat(). */
struct file_id {
	dev_t dev;
	ino_t ino;
};

static bool is_ancestor(const char *dest, const struct file_id *ids,
			size_t nids)
{
	struct stat st;
	size_t i;

	if (stat(dest, &st) < 0)
		return false;
	for (i = 0; i < nids; i++)
		if (ids[i].dev == st.st_dev && ids[i].ino == st.st_ino)
			return true;
	return false;
}

static enum cover covering(const struct linux_launch *l,
			   const struct file_id *ids, size_t nids)
{
	static const char *const one[] = {
		"--tmpfs", "--dev", "--proc", "--mqueue", "--remount-ro",
		"--dir", "--perms", "--cap-drop", "--chdir", "--size",
	};
	enum cover c = COVER_RO;
	size_t i = 0, k;

	while (i < l->argc) {
		const char *a = l->argv[i];

		if (strcmp(a, "--bind") == 0 || strcmp(a, "--bind-try") == 0 ||
		    strcmp(a, "--ro-bind") == 0 ||
		    strcmp(a, "--ro-bind-try") == 0) {
			if (i + 2 >= l->argc)
				return COVER_UNKNOWN;
			if (is_ancestor(l->argv[i + 2], ids, nids)) {
				if (strcmp(l->argv[i + 1], "/dev/null") == 0)
					c = COVER_HIDDEN;
				else
					c = a[2] == 'b' ? COVER_RW : COVER_RO;
			}
			i += 3;
			continue;
		}
		for (k = 0; k < array_size(one); k++)
			if (strcmp(a, one[k]) == 0)
				break;
		if (k < array_size(one)) {
			if (i + 1 >= l->argc)
				return COVER_UNKNOWN;
			if (k < 4 && is_ancestor(l->argv[i + 1], ids, nids))
				c = COVER_HIDDEN;
			i += 2;
			continue;
		}
		if (strncmp(a, "--", 2) != 0 || strcmp(a, "--vbox-launch") == 0)
			return COVER_UNKNOWN;
		i++;
	}
	return c;
}

/*
 * The plan file must not be writable from inside: a child that rewrites
 * it would widen every later launch.  When the policy leaves its path
 * writable, it is bound read-only onto itself (last, so it covers every
 * other mount); a plan the policy hides stays hidden.  Returns the path
 * to bind, or NULL.
 */
static char *plan_guard(const struct linux_launch *l, const char *plan_path)
{
	struct file_id ids[PATH_MAX / 2];
	size_t nids = 0;
	struct stat st;
	char *real, *p;
	enum cover c;

	real = realpath(plan_path, NULL);
	if (!real)
		return NULL;
	for (p = real + strlen(real); nids < array_size(ids);) {
		char saved = *p;

		*p = '\0';
		if (stat(*real ? real : "/", &st) == 0) {
			ids[nids].dev = st.st_dev;
			ids[nids].ino = st.st_ino;
			nids++;
		}
		*p = saved;
		if (p == real)
			break;
		while (--p > real && *p != '/')
			;
	}
	c = covering(l, ids, nids);
	if (c == COVER_RW)
		return real;
	if (c == COVER_UNKNOWN)
		vx_log("note: cannot tell whether the plan file is writable "
		       "inside the sandbox; not guarding it");
	free(real);
	return NULL;
}

int instantiate_linux(const struct plan *plan, const char *plan_path,
		      const char *workdir, bool disable_userns,
		      struct sandbox_args *out, char **err)
{
	struct linux_launch_row *rows = NULL;
	struct argv_builder b = { 0 };
	struct linux_launch l;
	size_t nrows = 0, i;
	char *msg = NULL, *guard;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	memset(&l, 0, sizeof(l));
	*err = NULL;
	if (check_rows(plan, &rows, &nrows, err) < 0 ||
	    check_placeholders(plan, rows, nrows, err) < 0)
		goto out;
	if (linux_launch_instantiate(plan->artifact, plan->artifact_len, rows,
				     nrows, &l, &msg) < 0) {
		*err = xasprintf("cannot instantiate the plan: %s", msg);
		free(msg);
		goto out;
	}
	if (!has_arg(&l, "--proc", "/proc")) {
		*err = xstrdup("the plan's artifact mounts no /proc, which "
			       "the launcher needs inside the sandbox");
		goto out;
	}
	add_hardening(&b, &l, plan, disable_userns, &out->added);
	for (i = 0; i < l.argc; i++) {
		/* bubblewrap before 0.8 rejects the flag it lacks. */
		if (!disable_userns &&
		    strcmp(l.argv[i], "--disable-userns") == 0) {
			out->dropped_disable_userns = true;
			continue;
		}
		add(&b, l.argv[i]);
	}
	guard = plan_guard(&l, plan_path);
	if (guard) {
		add(&b, "--ro-bind");
		add(&b, guard);
		add(&b, guard);
		out->guarded_plan = true;
		free(guard);
	}
	add(&b, "--chdir");
	add(&b, workdir);

	out->argv = b.v;
	out->argc = b.n;
	memset(&b, 0, sizeof(b));
	out->placeholders = l.placeholders;
	out->nplaceholders = l.nplaceholders;
	l.placeholders = NULL;
	l.nplaceholders = 0;
	out->nlaunch = nrows;
	ret = 0;
out:
	for (i = 0; i < b.n; i++)
		free(b.v[i]);
	free(b.v);
	linux_launch_free(&l);
	free(rows);
	return ret;
}

int placeholders_create(struct sandbox_args *sa, char **err)
{
	for (sa->created = 0; sa->created < sa->nplaceholders; sa->created++) {
		const char *p = sa->placeholders[sa->created];

		if (mkdir(p, PLACEHOLDER_MODE) == 0)
			continue;
		if (errno == EEXIST)
			*err = xasprintf("placeholder '%s' appeared after the "
					 "plan was instantiated (another "
					 "launch, or the host changed); not "
					 "starting", p);
		else
			*err = xasprintf("cannot create placeholder '%s': %s",
					 p, strerror(errno));
		placeholders_remove(sa);
		return -1;
	}
	return 0;
}

void placeholders_remove(struct sandbox_args *sa)
{
	while (sa->created > 0) {
		const char *p = sa->placeholders[--sa->created];

		if (rmdir(p) < 0 && errno != ENOENT)
			vx_error("warning: cannot remove placeholder '%s': %s",
				 p, strerror(errno));
	}
}

void sandbox_args_free(struct sandbox_args *sa)
{
	size_t i;

	for (i = 0; i < sa->argc; i++)
		free(sa->argv[i]);
	free(sa->argv);
	for (i = 0; i < sa->nplaceholders; i++)
		free(sa->placeholders[i]);
	free(sa->placeholders);
	memset(sa, 0, sizeof(*sa));
}
