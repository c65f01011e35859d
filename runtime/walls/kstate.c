/* SPDX-License-Identifier: MIT */
/*
 * kstate.c - which procfs and sysfs parts to make read-only; kstate.h.
 */
#include <vbox.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kstate.h"
#include "linux_artifact.h"

/* Bounds on host input: entries of /proc, lines of mountinfo. */
#define KSTATE_MAX_ENTRIES 4096
#define KSTATE_MAX_MOUNTS 65536

/*
 * File systems that are kernel state, wherever they are mounted: a
 * write to them configures the kernel or the host (cgroups, binfmt_misc
 * handlers, tracing, BPF pins, EFI variables), not a user's files.
 */
static const char *const kernel_fs[] = {
	"proc", "sysfs", "cgroup", "cgroup2", "debugfs", "tracefs",
	"securityfs", "bpf", "configfs", "pstore", "efivarfs",
	"binfmt_misc", "fusectl", "selinuxfs", "smackfs", "apparmorfs",
	"devtmpfs", "rpc_pipefs", "nfsd", "hugetlbfs", "mqueue",
};

static void push(char ***v, size_t *n, char *s)
{
	*v = xreallocarray(*v, *n + 2, sizeof(**v));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/*
 * Files only root may read that the kernel also gates behind a
 * capability the child never has at open: no need to hide them (kcore:
 * CAP_SYS_RAWIO, kmsg: CAP_SYSLOG).  (kpageflags and its kin are not:
 * uid 0 reads them without a capability.)
 */
static bool cap_gated(const char *name)
{
	return strcmp(name, "kcore") == 0 || strcmp(name, "kmsg") == 0;
}

/* One /proc entry (not a pid) of the scan: bind, mask or skip it. */
static void scan_entry(struct kstate *ks, int dfd, const char *name,
		       unsigned char type)
{
	struct stat st;

	/*
	 * bubblewrap covers irq and bus itself where they are writable;
	 * pressure is writable by every user by design (per-fd PSI
	 * triggers).
	 */
	if (name[0] == '.' || strcmp(name, "irq") == 0 ||
	    strcmp(name, "bus") == 0 || strcmp(name, "pressure") == 0)
		return;
	/*
	 * Every other directory is bound read-only without looking inside:
	 * walking them (fs, tty, driver, acpi, ...) to skip those without
	 * a writable file cost the launch more than the few extra mounts
	 * the sandbox's init makes, and a directory bound whole cannot grow
	 * a writable entry later (a module loaded after the scan).  The
	 * type comes from getdents; only files are stat()ed, for their mode.
	 */
	if (type == DT_DIR) {
		push(&ks->proc, &ks->nproc, xstrdup(name));
		return;
	}
	if (type != DT_REG && type != DT_UNKNOWN)
		return;		/* links (mounts, net), ... */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;		/* gone meanwhile */
	if (S_ISDIR(st.st_mode))
		push(&ks->proc, &ks->nproc, xstrdup(name));
	else if (!S_ISREG(st.st_mode))
		return;
	else if (!(st.st_mode & S_IROTH)) {
		if (!cap_gated(name))
			push(&ks->mask, &ks->nmask, xstrdup(name));
	} else if (st.st_mode & 0222)
		push(&ks->proc, &ks->nproc, xstrdup(name));
}

/*
 * The top level of /proc.  The kernel lists its own entries first, then
 * "self", "thread-self" and one directory per process
 * (proc_root_readdir() in fs/proc/root.c), so the scan reads in small
 * batches and stops at the first process: listing every process cost a
 * launch time in proportion to the host's process count (and more than
 * KSTATE_MAX_ENTRIES of them made it fail).  Entries after the first
 * process would be missed, so any other order (a process before "self"
 * and "thread-self", another entry after them) fails the scan.
 */
static int scan_proc(struct kstate *ks, const char *proc_dir, char **err)
{
	union {
		char bytes[2048];
		struct dirent64 align;
	} buf;
	size_t seen = 0, off;
	bool self = false, thread_self = false, done = false;
	ssize_t n = 0;
	int dfd;

	dfd = open(proc_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		*err = xasprintf("cannot list %s: %s", proc_dir,
				 strerror(errno));
		return -1;
	}
	while (!done && (n = getdents64(dfd, (void *)buf.bytes, sizeof(buf))) > 0) {
		for (off = 0; off < (size_t)n && !done;) {
			const struct dirent64 *de =
				(const void *)(buf.bytes + off);

			off += de->d_reclen;
			if (++seen > KSTATE_MAX_ENTRIES) {
				*err = xasprintf("%s has more than %d entries "
						 "before its processes",
						 proc_dir, KSTATE_MAX_ENTRIES);
				close(dfd);
				return -1;
			}
			if (strcmp(de->d_name, "self") == 0) {
				self = true;
			} else if (strcmp(de->d_name, "thread-self") == 0) {
				thread_self = true;
			} else if (all_digits(de->d_name) && self &&
				   thread_self) {
				done = true;	/* the processes: the end */
			} else if (all_digits(de->d_name) || self ||
				   thread_self) {
				*err = xasprintf("%s lists '%s' out of the "
						 "kernel's order (its own "
						 "entries, then self, "
						 "thread-self and the "
						 "processes); not trusting "
						 "the scan", proc_dir,
						 de->d_name);
				close(dfd);
				return -1;
			} else {
				scan_entry(ks, dfd, de->d_name, de->d_type);
			}
		}
	}
	if (n < 0) {
		*err = xasprintf("cannot list %s: %s", proc_dir,
				 strerror(errno));
		close(dfd);
		return -1;
	}
	close(dfd);
	/* readdir order is the kernel's; sort for a stable list. */
	if (ks->nproc)
		qsort(ks->proc, ks->nproc, sizeof(*ks->proc), cmp_str);
	if (ks->nmask)
		qsort(ks->mask, ks->nmask, sizeof(*ks->mask), cmp_str);
	return 0;
}

/* Undo mountinfo's octal escapes (\040 for a space, ...) in place. */
static void unescape(char *s)
{
	char *o = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
}

static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || !path[n]);
}

static bool is_kernel_fs(const char *type)
{
	size_t i;

	for (i = 0; i < array_size(kernel_fs); i++)
		if (strcmp(type, kernel_fs[i]) == 0)
			return true;
	return false;
}

static int scan_mounts(struct kstate *ks, const char *mountinfo, char **err)
{
	char *line = NULL, *f[10], *p, *sep, *type;
	size_t cap = 0, lines = 0, i;
	FILE *fp;

	fp = fopen(mountinfo, "re");
	if (!fp) {
		*err = xasprintf("cannot read %s: %s", mountinfo,
				 strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, fp) > 0) {
		if (++lines > KSTATE_MAX_MOUNTS) {
			*err = xasprintf("%s has more than %d mounts",
					 mountinfo, KSTATE_MAX_MOUNTS);
			goto fail;
		}
		line[strcspn(line, "\n")] = '\0';
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - TYPE */
		p = line;
		for (i = 0; i < 5; i++) {
			f[i] = strsep(&p, " ");
			if (!f[i] || !p)
				break;
		}
		sep = p ? strstr(p, " - ") : NULL;
		if (i < 5 || !sep) {
			*err = xasprintf("%s: cannot parse line %zu",
					 mountinfo, lines);
			goto fail;
		}
		type = sep + 3;
		type[strcspn(type, " ")] = '\0';
		unescape(f[4]);
		if (f[4][0] != '/')
			continue;
		push(&ks->host, &ks->nhost, xstrdup(f[4]));
		/* The sandbox has its own /proc and /dev. */
		if (below(f[4], "/proc") || below(f[4], "/dev"))
			continue;
		if (below(f[4], "/sys") || is_kernel_fs(type))
			push(&ks->mounts, &ks->nmounts, xstrdup(f[4]));
	}
	if (ferror(fp)) {
		*err = xasprintf("cannot read %s: %s", mountinfo,
				 strerror(errno));
		goto fail;
	}
	free(line);
	fclose(fp);
	if (ks->nhost)
		qsort(ks->host, ks->nhost, sizeof(*ks->host), cmp_str);
	return 0;
fail:
	free(line);
	fclose(fp);
	return -1;
}

int kstate_scan(struct kstate *ks, const char *proc_dir, const char *mountinfo,
		bool root, char **err)
{
	memset(ks, 0, sizeof(*ks));
	if ((root && scan_proc(ks, proc_dir, err) < 0) ||
	    scan_mounts(ks, mountinfo, err) < 0) {
		kstate_free(ks);
		return -1;
	}
	return 0;
}

static void list_free(char **v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

void kstate_free(struct kstate *ks)
{
	if (!ks)
		return;
	list_free(ks->proc);
	list_free(ks->mask);
	list_free(ks->host);
	list_free(ks->mounts);
	memset(ks, 0, sizeof(*ks));
}

/* A "-try" bind whose source is absent mounts nothing. */
static bool skipped_try(const struct lx_mount *m)
{
	struct stat st;

	return (m->kind == LX_BIND_RO_TRY || m->kind == LX_BIND_RW_TRY) &&
	       lstat(m->src, &st) < 0;
}

/*
 * Is host mount @mp writable in sandbox @a?  The last mount at @mp or an
 * ancestor decides: a read-write bind of the same host tree carries @mp
 * along writable, a read-only one read-only (bubblewrap remounts every
 * submount of a read-only bind), anything else (a tmpfs, /dev/null, a
 * bind of another tree) replaces it.
 */
static bool writable_in(const char *mp, const struct lx_artifact *a)
{
	const struct lx_mount *m;
	bool rw = true;
	size_t i;

	for (i = 0; i < a->n; i++) {
		m = &a->m[i];
		if (!m->dest || m->kind == LX_DIR || m->kind == LX_REMOUNT_RO ||
		    !below(mp, m->dest))
			continue;
		if (lx_kind_is_bind(m->kind))
			rw = (m->kind == LX_BIND_RW ||
			      m->kind == LX_BIND_RW_TRY) &&
			     strcmp(m->src, m->dest) == 0 && !skipped_try(m);
		else
			rw = false;
	}
	return rw;
}

/* The /proc binds and masks of @ks, appended to @b. */
static size_t add_proc_mounts(const struct kstate *ks, struct lx_artifact *b)
{
	size_t k, added = 0;
	char *p;

	for (k = 0; k < ks->nproc; k++, added++) {
		p = xasprintf("/proc/%s", ks->proc[k]);
		lx_add(b, LX_BIND_RO, p, p, 0, LX_ROW_NONE);
		free(p);
	}
	for (k = 0; k < ks->nmask; k++, added++) {
		p = xasprintf("/proc/%s", ks->mask[k]);
		lx_add(b, LX_BIND_RO, "/dev/null", p, 0, LX_ROW_NONE);
		free(p);
	}
	return added;
}

/*
 * May the /proc binds go to the end of @a's list instead of right after
 * its procfs?  Only when nothing after the procfs mounts at, above or
 * below /proc: then the two orders give the same sandbox, and at the end
 * they join the tail of mounts the sandbox's init makes, each with three
 * syscalls where bubblewrap re-reads the mount table (sandbox.h).
 */
static bool proc_mounts_commute(const struct lx_artifact *a)
{
	const struct lx_mount *m;
	bool past_proc = false;
	size_t i;

	for (i = 0; i < a->n; i++) {
		m = &a->m[i];
		if (!past_proc) {
			past_proc = m->kind == LX_PROC &&
				    strcmp(m->dest, "/proc") == 0;
			continue;
		}
		if (m->dest && (below(m->dest, "/proc") ||
				below("/proc", m->dest)))
			return false;
	}
	return past_proc;
}

size_t kstate_apply(const struct kstate *ks, struct lx_artifact *a)
{
	struct lx_artifact b;
	const struct lx_mount *m;
	size_t i, added = 0;
	bool past_proc = false, at_end = proc_mounts_commute(a);

	memset(&b, 0, sizeof(b));
	b.flags = a->flags;
	b.chdir = a->chdir;
	a->chdir = NULL;
	/* @a's mounts move to @b, strings and all (a copy of each was an
	 * allocation a row on a large table's every launch). */
	for (i = 0; i < a->n; i++) {
		m = &a->m[i];
		lx_take(&b, m);
		if (at_end || past_proc || m->kind != LX_PROC ||
		    strcmp(m->dest, "/proc") != 0)
			continue;
		past_proc = true;
		added += add_proc_mounts(ks, &b);
	}
	if (at_end)
		added += add_proc_mounts(ks, &b);
	/* Host kernel mounts a read-write bind carries in. */
	for (i = 0; i < ks->nmounts; i++) {
		if (!writable_in(ks->mounts[i], &b))
			continue;
		lx_add(&b, LX_REMOUNT_RO, NULL, ks->mounts[i], 0, LX_ROW_NONE);
		added++;
	}
	/* The plan's own read-write binds below /proc and /sys. */
	for (i = 0, past_proc = false; i < a->n; i++) {
		m = &a->m[i];
		if (m->kind == LX_PROC && strcmp(m->dest, "/proc") == 0) {
			past_proc = true;
			continue;
		}
		if (!past_proc || (m->kind != LX_BIND_RW &&
				   m->kind != LX_BIND_RW_TRY) ||
		    skipped_try(m) ||
		    !(below(m->dest, "/proc") || below(m->dest, "/sys")))
			continue;
		lx_add(&b, LX_REMOUNT_RO, NULL, m->dest, 0, LX_ROW_NONE);
		added++;
	}
	/* Its strings are @b's now: only @a's array goes. */
	free(a->m);
	*a = b;
	return added;
}
