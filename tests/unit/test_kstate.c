/* SPDX-License-Identifier: MIT */
/*
 * test_kstate.c - the kernel-state wall (runtime/walls/kstate.c) against
 * the real bubblewrap: with the arguments kstate adds, a sandbox built
 * like the launcher's (write rw: "--bind / /") cannot write a sysctl
 * (the same value is written back, so a failure changes nothing), and
 * every mount at or below /sys and every /proc entry kstate covers is
 * read-only in the sandbox's mount table.  Without them (the control)
 * the write succeeds when the test runs as root.  Also the selection
 * logic on hand-made argument lists.
 */
#include <vbox.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux_artifact.h"
#include "walls/kstate.h"
#include "tap.h"

#ifndef BWRAP_PATH
#define BWRAP_PATH "/usr/bin/bwrap"
#endif

static bool has(char **v, const char *s)
{
	for (; v && *v; v++)
		if (strcmp(*v, s) == 0)
			return true;
	return false;
}

/* Does @a remount @dest read-only? */
static bool remounts(const struct lx_artifact *a, const char *dest)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->m[i].kind == LX_REMOUNT_RO &&
		    strcmp(a->m[i].dest, dest) == 0)
			return true;
	return false;
}

/*
 * The sandbox's script: write the sysctl's value back; then print every
 * mount of /sys and /proc that is not read-only.
 */
static const char script[] =
	"v=$(cat /proc/sys/fs/lease-break-time) || exit 3\n"
	"if (printf '%s\\n' \"$v\" > /proc/sys/fs/lease-break-time) "
	"2>/dev/null; then echo WROTE; fi\n"
	"awk '$5 ~ /^\\/(sys|proc\\/)/ && $6 !~ /^ro/ {print \"RW \" $5}' "
	"/proc/self/mountinfo\n";

/* Run bwrap with the mounts of @a (binds, dev, proc, remounts). */
static char *run_bwrap(const struct lx_artifact *a)
{
	char *argv[512], buf[8192];
	size_t k = 0, i, have = 0;
	int p[2], status;
	ssize_t n;
	pid_t pid;

	argv[k++] = (char *)BWRAP_PATH;
	argv[k++] = (char *)"--unshare-user";
	argv[k++] = (char *)"--unshare-pid";
	argv[k++] = (char *)"--unshare-net";
	argv[k++] = (char *)"--cap-drop";
	argv[k++] = (char *)"ALL";
	for (i = 0; i < a->n && k < 500; i++) {
		const struct lx_mount *m = &a->m[i];

		switch (m->kind) {
		case LX_BIND_RW:
			argv[k++] = (char *)"--bind";
			break;
		case LX_BIND_RO:
			argv[k++] = (char *)"--ro-bind";
			break;
		case LX_DEV:
			argv[k++] = (char *)"--dev";
			break;
		case LX_PROC:
			argv[k++] = (char *)"--proc";
			break;
		case LX_REMOUNT_RO:
			argv[k++] = (char *)"--remount-ro";
			break;
		default:
			BUG("kind %u", m->kind);
		}
		if (m->src)
			argv[k++] = m->src;
		argv[k++] = m->dest;
	}
	argv[k++] = (char *)"sh";
	argv[k++] = (char *)"-c";
	argv[k++] = (char *)script;
	argv[k] = NULL;
	if (pipe(p) < 0)
		BUG("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], buf + have, sizeof(buf) - 1 - have)) > 0)
		have += (size_t)n;
	buf[have] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		diag("bwrap status %d", status);
	return xstrdup(buf);
}

/* The launcher's base view: the whole machine, @rw or read-only. */
static void base(struct lx_artifact *a, bool rw)
{
	memset(a, 0, sizeof(*a));
	lx_add(a, rw ? LX_BIND_RW : LX_BIND_RO, "/", "/", 0, LX_ROW_NONE);
	lx_add(a, LX_DEV, NULL, "/dev", 0, LX_ROW_NONE);
	lx_add(a, LX_PROC, NULL, "/proc", 0, LX_ROW_NONE);
}

static void test_selection(void)
{
	struct kstate ks = { 0 };
	char *mounts[] = { (char *)"/sys", (char *)"/sys/fs/cgroup",
			   (char *)"/srv/chroot/proc", (char *)"/hidden/cg",
			   NULL };
	struct lx_artifact a;

	ks.mounts = mounts;
	ks.nmounts = 4;
	base(&a, true);
	lx_add(&a, LX_TMPFS, NULL, "/hidden", 0700, LX_ROW_NONE);
	lx_add(&a, LX_BIND_RW, "/sys/kernel", "/sys/kernel", 0, 1);
	lx_add(&a, LX_BIND_RW_TRY, "/vbox-no-such-path", "/proc/x", 0, 2);
	lx_add(&a, LX_BIND_RO, "/dev/null", "/srv/chroot", 0, 3);
	kstate_apply(&ks, &a);
	ok(remounts(&a, "/sys") && remounts(&a, "/sys/fs/cgroup"),
	   "kstate: /sys and its submounts are remounted under a rw /");
	ok(!remounts(&a, "/hidden/cg"), "kstate: a mount under a tmpfs the "
	   "plan put over it is not (it does not exist in the sandbox)");
	ok(!remounts(&a, "/srv/chroot/proc"), "kstate: a mount under a "
	   "/dev/null bind is not");
	ok(remounts(&a, "/sys/kernel"), "kstate: the plan's own rw bind "
	   "below /sys is remounted too");
	ok(!remounts(&a, "/proc/x"), "kstate: a -try bind with no source "
	   "is not");
	lx_artifact_release(&a);
	base(&a, false);
	kstate_apply(&ks, &a);
	ok(!remounts(&a, "/sys") && !remounts(&a, "/sys/fs/cgroup"),
	   "kstate: nothing to remount under a read-only /");
	lx_artifact_release(&a);
}

/*
 * Every top-level /proc directory (not a pid, not irq and bus, which
 * bubblewrap covers, not pressure) is in ks->proc, whatever it holds.
 */
static bool every_proc_dir_covered(const struct kstate *ks)
{
	struct dirent *de;
	struct stat st;
	bool all = true;
	DIR *d = opendir("/proc");

	if (!d)
		return false;
	while ((de = readdir(d)) != NULL) {
		const char *n = de->d_name;

		if (n[0] == '.' || (n[0] >= '0' && n[0] <= '9') ||
		    strcmp(n, "irq") == 0 || strcmp(n, "bus") == 0 ||
		    strcmp(n, "pressure") == 0 ||
		    fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (!has(ks->proc, n)) {
			diag("/proc/%s is not covered", n);
			all = false;
		}
	}
	closedir(d);
	return all;
}

/*
 * The scan stops at the first process, so it refuses a listing in
 * another order than the kernel's: a process before "self" and
 * "thread-self" (a hand-made directory standing in for /proc).
 */
static void test_order(void)
{
	char dir[] = "/tmp/vbox-kstate-XXXXXX", p[64], *err = NULL;
	struct kstate ks;
	int rc;

	if (!mkdtemp(dir))
		BUG("mkdtemp: %s", strerror(errno));
	snprintf(p, sizeof(p), "%s/1", dir);
	if (mkdir(p, 0755) < 0)
		BUG("mkdir %s: %s", p, strerror(errno));
	rc = kstate_scan(&ks, dir, "/proc/self/mountinfo", true, &err);
	ok(rc < 0 && err && strstr(err, "out of the kernel's order"),
	   "kstate: a process listed before self and thread-self fails the "
	   "scan (%s)", err ? err : "no error");
	if (rc == 0)
		kstate_free(&ks);
	free(err);
	rmdir(p);
	rmdir(dir);
}

int main(void)
{
	struct kstate ks;
	struct lx_artifact a;
	char *err = NULL, *out;

	test_selection();
	if (kstate_scan(&ks, "/proc", "/proc/self/mountinfo", true, &err) < 0) {
		ok(0, "kstate_scan: %s", err);
		return done_testing();
	}
	ok(has(ks.proc, "sys"), "kstate: /proc/sys is covered");
	ok(every_proc_dir_covered(&ks), "kstate: every directory of /proc "
	   "but irq, bus and pressure is bound whole");
	ok(access("/proc/sysrq-trigger", F_OK) < 0 ||
	   has(ks.proc, "sysrq-trigger"), "kstate: /proc/sysrq-trigger is "
	   "covered where it exists");
	ok(has(ks.mounts, "/sys") || access("/sys/kernel", F_OK) < 0,
	   "kstate: /sys is a mount to remount");
	test_order();
	diag("%zu /proc entries, %zu masks, %zu mounts", ks.nproc, ks.nmask,
	     ks.nmounts);

	if (access(BWRAP_PATH, X_OK) < 0) {
		ok(1, "# SKIP bubblewrap runs: %s not found", BWRAP_PATH);
		kstate_free(&ks);
		return done_testing();
	}
	base(&a, true);
	out = run_bwrap(&a);
	if (geteuid() == 0)
		ok(strstr(out, "WROTE") != NULL, "control: as root, without "
		   "the wall, the sandbox can write a sysctl");
	else
		diag("control as uid %d: %s", (int)geteuid(), out);
	free(out);
	kstate_apply(&ks, &a);
	out = run_bwrap(&a);
	ok(strstr(out, "WROTE") == NULL, "with the wall, writing "
	   "fs.lease-break-time fails (uid %d)", (int)geteuid());
	ok(strstr(out, "RW ") == NULL, "with the wall, every /sys and "
	   "/proc/X mount is read-only");
	if (strstr(out, "RW "))
		diag("%s", out);
	free(out);
	lx_artifact_release(&a);
	kstate_free(&ks);
	return done_testing();
}
