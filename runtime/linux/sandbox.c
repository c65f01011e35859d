/* SPDX-License-Identifier: MIT */
/*
 * sandbox.c - the final sandbox for a linux plan (sandbox.h).
 *
 * Owned here: what the launcher refuses in a plan, the flags and mounts
 * it adds whatever the plan says (its hardening, the plan file's guard,
 * the working directory), the host placeholders' life, and the rows whose
 * effect depended on the host, as lines and on stderr.  The row
 * expansion is mounts.c's; rendering for bubblewrap is lx_render()'s.
 */
#include <vbox.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "landing.h"
#include "ir.h"
#include "launch.h"
#include "linux_artifact.h"
#include "mounts.h"
#include "pathmap.h"
#include "plan.h"
#include "sandbox.h"
#include "walls/kstate.h"

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

	const char **by_prio;

	/*
	 * One array after the rows: every row's pattern in priority order,
	 * so the rows tried before row R are its first R.prio entries
	 * (plan_decode() checked the priorities are a permutation).
	 */
	*rows = xcalloc(plan->nfs + 1, sizeof(**rows) + sizeof(*by_prio));
	by_prio = (const char **)(void *)(*rows + plan->nfs + 1);
	for (i = 0; i < plan->nfs; i++)
		by_prio[plan->fs[i].prio] = plan->fs[i].target;
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
			(*rows)[*nrows].above = by_prio;
			(*rows)[*nrows].nabove = r->prio;
			(*nrows)++;
			break;
		case LANDING_SUPERVISED:
			/* the supervisor judges it (pathjudge.h) */
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
			/* the egress proxy judges it (runtime/linux/bridge.c),
			 * which only runs under @default net deny */
			if (plan->default_net != EFFECT_DENY)
				return row_error(r, err, "lands in the egress "
						 "proxy, but the network is "
						 "open");
			break;
		case LANDING_UNSUPPORTED:
			return row_error(r, err, "is unsupported on linux");
		case LANDING_LAUNCH:
		case LANDING_RESERVED:
		case LANDING_SUPERVISED:
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
 * Every launch row must be named by exactly one LX_LAUNCH mount: a row
 * the artifact forgot would silently not be enforced.
 */
static int check_launch_mounts(const struct plan *plan,
			       const struct linux_launch_row *rows,
			       size_t nrows, char **err)
{
	size_t *seen, lo, hi, mid, i;
	uint32_t idx;
	int ret = 0;

	seen = xcalloc(nrows ? nrows : 1, sizeof(*seen));
	for (i = 0; i < plan->lx.n; i++) {
		if (plan->lx.m[i].kind != LX_LAUNCH)
			continue;
		idx = plan->lx.m[i].row;
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

static bool has_mount(const struct lx_artifact *a, enum lx_kind kind,
		      const char *dest)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->m[i].kind == kind && strcmp(a->m[i].dest, dest) == 0)
			return true;
	return false;
}

/*
 * The flags the launcher's process management and hardening rely on
 * (doc/launcher.md), whatever the artifact says.  Returns how many were
 * added.
 */
static size_t add_hardening(struct lx_artifact *a, const struct plan *plan,
			    bool disable_userns)
{
	uint32_t want = LX_NEW_SESSION | LX_DIE_WITH_PARENT | LX_UNSHARE_USER |
			LX_UNSHARE_PID | LX_CAP_DROP_ALL |
			/* The init is the sandbox's PID 1 (runtime/init/). */
			LX_AS_PID_1;
	uint32_t before = a->flags;
	size_t added = 0, bit;

	if (disable_userns)
		want |= LX_DISABLE_USERNS;
	if (plan->default_net == EFFECT_DENY)
		want |= LX_UNSHARE_NET;
	a->flags |= want;
	for (bit = 0; bit < 32; bit++)
		if ((a->flags & ~before) & (1u << bit))
			added++;
	return added;
}

/*
 * What the final mounts make of a host path: the last mount whose
 * destination, resolved, is the path or one of its ancestors decides
 * (on_plan_path()).
 */
enum cover {
	COVER_RO,
	COVER_RW,
	COVER_HIDDEN,
};

/*
 * The plan file or one of its directories: its identity, from stat(),
 * and the length of its path, a prefix of the plan's real path (0: "/").
 */
struct file_id {
	dev_t dev;
	ino_t ino;
	size_t len;
};

/*
 * Is the mount at @dest on the plan's real path @real or one of its
 * directories (@ids)?  The device and inode find a candidate, its
 * resolved path decides: a hard link of the plan file, or one of its
 * directories bound elsewhere on the host, has the same inode under
 * another path, and a mount there covers nothing of the plan's path (a
 * deny row on a hard link of the plan once left the plan writable).
 * 1 or 0; -1 with *@err when a candidate cannot be resolved.
 */
static int on_plan_path(const char *dest, const char *real,
			const struct file_id *ids, size_t nids,
			const struct linux_launch *l, char **err)
{
	struct stat st;
	char *rp = NULL;
	size_t i, n, k;
	int hit = 0;

	/* What the instantiation's lstat() found (no link), else stat(). */
	if (pathmap_get(&l->host_ids, dest, &k)) {
		st.st_dev = l->host_idv[k].dev;
		st.st_ino = l->host_idv[k].ino;
	} else if (stat(dest, &st) < 0) {
		return 0;
	}
	for (i = 0; i < nids && !hit; i++) {
		if (ids[i].dev != st.st_dev || ids[i].ino != st.st_ino)
			continue;
		if (!rp && !(rp = realpath(dest, NULL))) {
			*err = xasprintf("cannot tell whether the mount on "
					 "'%s' covers the plan file: %s", dest,
					 strerror(errno));
			return -1;
		}
		n = strlen(rp);
		hit = ids[i].len ? n == ids[i].len &&
				   strncmp(rp, real, n) == 0 :
				   strcmp(rp, "/") == 0;
	}
	free(rp);
	return hit;
}

/*
 * What the sandbox shows at the plan's real path @real: the last mount
 * on it or on one of its directories decides.  0, or -1 with *@err.
 */
static int covering(const struct linux_launch *l, const char *real,
		    const struct file_id *ids, size_t nids, enum cover *c,
		    char **err)
{
	const struct lx_artifact *a = &l->sandbox;
	size_t i;
	int on;

	*c = COVER_RO;
	for (i = 0; i < a->n; i++) {
		const struct lx_mount *m = &a->m[i];

		switch ((enum lx_kind)m->kind) {
		case LX_BIND_RO:
		case LX_BIND_RW:
		case LX_BIND_RO_TRY:
		case LX_BIND_RW_TRY:
			on = on_plan_path(m->dest, real, ids, nids, l, err);
			if (on < 0)
				return -1;
			if (!on)
				break;
			if (strcmp(m->src, "/dev/null") == 0)
				*c = COVER_HIDDEN;
			else if (m->kind == LX_BIND_RW ||
				 m->kind == LX_BIND_RW_TRY)
				*c = COVER_RW;
			else
				*c = COVER_RO;
			break;
		case LX_TMPFS:
		case LX_DEV:
		case LX_PROC:
			on = on_plan_path(m->dest, real, ids, nids, l, err);
			if (on < 0)
				return -1;
			if (on)
				*c = COVER_HIDDEN;
			break;
		case LX_DIR:
		case LX_REMOUNT_RO:
			break;
		case LX_LAUNCH:
		default:
			/* (the instantiation leaves none: refused, not
			 * guessed, should one ever be left) */
			*err = xasprintf("cannot tell whether the plan file "
					 "is writable inside the sandbox: "
					 "mount %zu is of kind %u", i,
					 (unsigned)m->kind);
			return -1;
		}
	}
	return 0;
}

/*
 * A plan file with another name (a hard link) could be rewritten through
 * it wherever the policy lets the sandbox write that name, which the
 * read-only bind of the plan's own path does not cover, and nothing
 * finds another name of a file short of walking every file system: such
 * a plan is refused, unless its file system is read-only (a store whose
 * identical files share an inode).  0, or -1 with *@err.
 */
static int one_name(const char *real, char **err)
{
	struct statvfs vfs;
	struct stat st;

	if (stat(real, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink < 2)
		return 0;
	if (statvfs(real, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
		return 0;
	*err = xasprintf("the plan file '%s' has %ju names (hard links): a "
			 "sandbox that may write another of them could rewrite "
			 "the plan later launches trust; give the plan a file "
			 "of its own (cp PLAN PLAN.new && mv PLAN.new PLAN)",
			 real, (uintmax_t)st.st_nlink);
	return -1;
}

/*
 * The plan file must not be writable from inside: a child that rewrites
 * it would widen every later launch.  When the policy leaves its path
 * writable, it is bound read-only onto itself (last, so it covers every
 * other mount); a plan the policy hides stays hidden.  *@guard: the path
 * to bind, or NULL.  0, or -1 with *@err.
 */
static int plan_guard(const struct linux_launch *l, const char *plan_path,
		      char **guard, char **err)
{
	struct file_id ids[PATH_MAX / 2];
	size_t nids = 0;
	struct stat st;
	char *real, *p;
	enum cover c;

	*guard = NULL;
	real = realpath(plan_path, NULL);
	if (!real)
		return 0;
	if (one_name(real, err) < 0) {
		free(real);
		return -1;
	}
	for (p = real + strlen(real); nids < array_size(ids);) {
		char saved = *p;

		*p = '\0';
		if (stat(*real ? real : "/", &st) == 0) {
			ids[nids].dev = st.st_dev;
			ids[nids].ino = st.st_ino;
			ids[nids].len = (size_t)(p - real);
			nids++;
		}
		*p = saved;
		if (p == real)
			break;
		while (--p > real && *p != '/')
			;
	}
	if (covering(l, real, ids, nids, &c, err) < 0) {
		free(real);
		return -1;
	}
	if (c == COVER_RW) {
		*guard = real;
		return 0;
	}
	free(real);
	return 0;
}

/* Host notes in table order; a row's own notes as they came. */
static int cmp_note(const void *a, const void *b)
{
	const struct linux_host_note *x = *(const struct linux_host_note *const *)a;
	const struct linux_host_note *y = *(const struct linux_host_note *const *)b;

	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * The instantiation's host notes as lines naming each row, in the
 * table's order (the instantiation makes them lowest priority first).
 */
static void host_notes(const struct plan *plan, const struct linux_launch *l,
		       struct sandbox *out)
{
	const struct linux_host_note **order;
	size_t i;

	order = xreallocarray(NULL, l->nnotes ? l->nnotes : 1, sizeof(*order));
	/* one flag and at most one reason per note: sized once */
	out->host_note_warn = xreallocarray(out->host_note_warn,
					    out->host_notes.n + l->nnotes + 1,
					    sizeof(bool));
	out->warning_what = xreallocarray(out->warning_what,
					  out->warnings.n + l->nnotes + 1,
					  sizeof(char *));
	for (i = 0; i < l->nnotes; i++)
		order[i] = &l->notes[i];
	qsort(order, l->nnotes, sizeof(*order), cmp_note);
	for (i = 0; i < l->nnotes; i++) {
		const struct linux_host_note *n = order[i];
		char *text, *line;

		if (n->row >= plan->nfs)
			continue;
		text = row_label(&plan->fs[n->row]);
		line = xasprintf("row %u '%s' (%s): '%s' %s", n->row, text,
				 plan->fs[n->row].source, n->path, n->what);
		out->host_note_warn[out->host_notes.n] = n->warn;
		strv_add(&out->host_notes, line);
		if (n->warn) {
			out->warning_what[out->warnings.n] = n->what;
			strv_add(&out->warnings, line);
		}
		free(line);
		free(text);
	}
	free(order);
}

/*
 * A row that grants less than it says is never silent; every row whose
 * effect depended on the host is listed under --log and --dry-run (on
 * stderr: the dry-run line stays runnable).  Warnings are folded by
 * reason: the first WARN_FOLD of each named, then how many more (when
 * two or more are left: a single one is named).
 */
#define WARN_FOLD 3

void sandbox_say_notes(const struct sandbox *sa, bool all)
{
	size_t i, k, shown, more, total, limit;

	if (all) {
		for (i = 0; i < sa->host_notes.n; i++)
			vx_error("%s: %s", sa->host_note_warn[i] ? "warning" :
				 "host", sa->host_notes.v[i]);
		return;
	}
	for (i = 0; i < sa->warnings.n; i++) {
		/* each reason once, at its first row (reasons are static) */
		for (k = 0; k < i; k++)
			if (sa->warning_what[k] == sa->warning_what[i])
				break;
		if (k < i)
			continue;
		for (k = i, total = 0; k < sa->warnings.n; k++)
			total += sa->warning_what[k] == sa->warning_what[i];
		/* one more is named: a fold line would take its place */
		limit = total == WARN_FOLD + 1 ? total : WARN_FOLD;
		for (k = i, shown = more = 0; k < sa->warnings.n; k++) {
			if (sa->warning_what[k] != sa->warning_what[i])
				continue;
			if (shown++ < limit)
				vx_error("warning: %s", sa->warnings.v[k]);
			else
				more++;
		}
		if (more)
			vx_error("warning: ... and %zu more row%s of which "
				 "the same is said (--log names each)", more,
				 more == 1 ? "" : "s");
	}
}

/*
 * The private /tmp of "@default tmp private" (sandbox.h): the plan's
 * tmpfs at /tmp becomes a read-write bind whose source, the template,
 * creates_make() replaces by the directory it makes.  Until then the
 * list names the template, which exists nowhere: a launch that could
 * not make the directory fails in bubblewrap, never with the host's
 * /tmp.
 */
static void private_tmp_bind(struct lx_artifact *a, struct sandbox *out)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		struct lx_mount *m = &a->m[i];

		if (m->kind != LX_TMPFS || m->row != LX_ROW_NONE ||
		    strcmp(m->dest, "/tmp") != 0 ||
		    m->mode != LX_PRIVATE_TMP_MODE)
			continue;
		m->kind = LX_BIND_RW;
		free(m->src);
		m->src = xstrdup(SANDBOX_PRIVATE_TMP);
		m->mode = 0;
		out->private_tmp = true;
		out->private_tmp_template = SANDBOX_PRIVATE_TMP;
	}
}

/* The list names the template until private_tmp_make() made it. */
static void private_tmp_source(struct sandbox *sa, const char *from,
			       const char *to)
{
	size_t i;

	for (i = 0; i < sa->lx.n; i++) {
		struct lx_mount *m = &sa->lx.m[i];

		if (m->kind == LX_BIND_RW && m->src &&
		    strcmp(m->src, from) == 0) {
			free(m->src);
			m->src = xstrdup(to);
		}
	}
}

void sandbox_private_tmp_in(struct sandbox *sa, const char *tmpl)
{
	if (!sa->private_tmp || sa->private_tmp_dir)
		return;
	private_tmp_source(sa, sa->private_tmp_template, tmpl);
	sa->private_tmp_template = tmpl;
}

void sandbox_private_tmp_adopt(struct sandbox *to, struct sandbox *from)
{
	if (!to->private_tmp || to->private_tmp_dir || !from->private_tmp_dir)
		return;
	private_tmp_source(to, to->private_tmp_template,
			   from->private_tmp_dir);
	to->private_tmp_dir = from->private_tmp_dir;
	from->private_tmp_dir = NULL;
}

void sandbox_private_tmp_make(struct sandbox *sa)
{
	char *dir;

	if (!sa->private_tmp || sa->private_tmp_dir)
		return;
	dir = xstrdup(sa->private_tmp_template);
	if (!mkdtemp(dir)) {
		vx_error("cannot make the private /tmp '%s': %s; the launch "
			 "fails", sa->private_tmp_template, strerror(errno));
		free(dir);
		return;
	}
	private_tmp_source(sa, sa->private_tmp_template, dir);
	sa->private_tmp_dir = dir;
	vx_log("private /tmp: '%s' (mode 0700), removed after the run", dir);
}

static int rm_entry(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP ? rmdir(path) : unlink(path))
		return -1;
	return 0;
}

/* Remove the private /tmp and everything the sandbox left in it. */
static void private_tmp_remove(struct sandbox *sa)
{
	if (!sa->private_tmp_dir)
		return;
	if (nftw(sa->private_tmp_dir, rm_entry, 16,
		 FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0)
		vx_error("warning: cannot remove all of the private /tmp "
			 "'%s': %s", sa->private_tmp_dir, strerror(errno));
	free(sa->private_tmp_dir);
	sa->private_tmp_dir = NULL;
}

static int build(const struct plan *plan, const char *plan_path,
		 const char *workdir, bool disable_userns, bool frame,
		 const struct launch_stop *stop, struct sandbox *out,
		 char **err)
{
	struct linux_launch_row *rows = NULL;
	struct linux_launch l;
	struct kstate ks;
	size_t nrows = 0;
	char *msg = NULL, *guard;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	memset(&l, 0, sizeof(l));
	*err = NULL;
	if (!frame && (check_rows(plan, &rows, &nrows, err) < 0 ||
		       check_launch_mounts(plan, rows, nrows, err) < 0))
		goto out;
	if ((frame ? linux_launch_instantiate_frame(&plan->lx, stop, &l,
						    &msg) :
	     linux_launch_instantiate(&plan->lx, rows, nrows, stop, &l,
				      &msg)) < 0) {
		*err = xasprintf("cannot instantiate the plan: %s", msg);
		free(msg);
		goto out;
	}
	if (!has_mount(&l.sandbox, LX_PROC, "/proc")) {
		*err = xstrdup("the plan's artifact mounts no /proc, which "
			       "the launcher needs inside the sandbox");
		goto out;
	}
	private_tmp_bind(&l.sandbox, out);
	out->added = add_hardening(&l.sandbox, plan, disable_userns);
	/* bubblewrap before 0.8 rejects the flag it lacks. */
	if (!disable_userns && (l.sandbox.flags & LX_DISABLE_USERNS)) {
		l.sandbox.flags &= ~(uint32_t)LX_DISABLE_USERNS;
		out->dropped_disable_userns = true;
	}
	if (plan_guard(&l, plan_path, &guard, err) < 0)
		goto out;
	if (guard) {
		lx_add(&l.sandbox, LX_BIND_RO, guard, guard, 0, LX_ROW_NONE);
		out->guarded_plan = true;
		free(guard);
	}
	/* The kernel-state wall (walls/kstate.h), over the plan's mounts. */
	if (kstate_scan(&ks, "/proc", "/proc/self/mountinfo", geteuid() == 0,
			err) < 0)
		goto out;
	out->kstate = kstate_apply(&ks, &l.sandbox);
	out->host_mounts = ks.host;
	out->nhost_mounts = ks.nhost;
	ks.host = NULL;
	ks.nhost = 0;
	kstate_free(&ks);
	l.sandbox.chdir = xstrdup(workdir);

	out->lx = l.sandbox;
	memset(&l.sandbox, 0, sizeof(l.sandbox));
	out->placeholders = l.placeholders;
	out->nplaceholders = l.nplaceholders;
	l.placeholders = NULL;
	l.nplaceholders = 0;
	out->nlaunch = nrows;
	if (!frame)
		host_notes(plan, &l, out);
	out->creates = l.creates;
	out->ncreates = l.ncreates;
	l.creates = NULL;
	l.ncreates = 0;
	ret = 0;
out:
	linux_launch_release(&l);
	free(rows);
	return ret;
}

int sandbox_build(const struct plan *plan, const char *plan_path,
		  const char *workdir, bool disable_userns,
		  const struct launch_stop *stop, struct sandbox *out,
		  char **err)
{
	return build(plan, plan_path, workdir, disable_userns, false, stop,
		     out, err);
}

int sandbox_build_frame(const struct plan *plan, const char *plan_path,
			const char *workdir, bool disable_userns,
			struct sandbox *out, char **err)
{
	return build(plan, plan_path, workdir, disable_userns, true, NULL,
		     out, err);
}

void creates_make(struct sandbox *sa)
{
	size_t i;
	char *p, *q;

	sandbox_private_tmp_make(sa);
	for (i = 0; i < sa->ncreates; i++) {
		bool ok = true;

		p = xstrdup(sa->creates[i]);
		for (q = p + 1;; q++) {
			if (*q && *q != '/')
				continue;
			*q = '\0';
			if (mkdir(p, 0700) < 0 && errno != EEXIST) {
				vx_error("warning: cannot create '%s': %s; its "
					 "row's mount is skipped", p,
					 strerror(errno));
				ok = false;
				break;
			}
			if (!sa->creates[i][q - p])
				break;
			*q = '/';
		}
		if (ok)
			vx_log("created the missing writable root '%s' (mode "
			       "0700)", sa->creates[i]);
		free(p);
	}
}

void sandbox_release(struct sandbox *sa)
{
	size_t i;

	private_tmp_remove(sa);
	lx_artifact_release(&sa->lx);
	lx_artifact_release(&sa->init_mounts);
	for (i = 0; i < sa->nplaceholders; i++)
		free(sa->placeholders[i]);
	free(sa->placeholders);
	for (i = 0; i < sa->nhost_mounts; i++)
		free(sa->host_mounts[i]);
	free(sa->host_mounts);
	strv_release(&sa->host_notes);
	free(sa->host_note_warn);
	sa->host_note_warn = NULL;
	strv_release(&sa->warnings);
	free(sa->warning_what);
	sa->warning_what = NULL;
	for (i = 0; i < sa->ncreates; i++)
		free(sa->creates[i]);
	free(sa->creates);
	memset(sa, 0, sizeof(*sa));
}
