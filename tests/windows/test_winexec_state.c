/* SPDX-License-Identifier: MIT */
/*
 * test_winexec_state.c - test_winexec's state file cases: reconciliation
 * (apply, revoke, a launcher killed in the middle) against an in-memory
 * host, and two writers at once as real processes on real files.  The
 * golden plans and the file helpers are test_winexec.c's
 * (test_winexec_int.h).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aclplan.h"
#include "plan.h"
#include "state.h"
#include "tap.h"
#include "test_winexec_int.h"

/* ------------------------------------------------------------------ */
/* Reconciliation against an in-memory host. */

struct host {
	char *paths[16];
	struct wacl acls[16];
	bool exists[16];
	size_t n;
	char *file;
	size_t file_len;
	const char *alive[8];
	size_t nalive;
	bool fail_revoke;
	unsigned locked;
};

static struct wacl *host_acl(struct host *h, const char *path)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		if (!strcasecmp(h->paths[i], path))
			return &h->acls[i];
	if (h->n == array_size(h->paths))
		BUG("test host full");
	h->paths[h->n] = xstrdup(path);
	h->exists[h->n] = true;
	memset(&h->acls[h->n], 0, sizeof(h->acls[0]));
	return &h->acls[h->n++];
}

static void host_free(struct host *h)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		free(h->paths[i]);
		wacl_free(&h->acls[i]);
	}
	free(h->file);
}

/* Apply @obj's ACEs as the launcher does. */
static void host_apply_obj(struct host *h, const struct wobj *o)
{
	struct wacl *acl = host_acl(h, o->path), next;

	if (wacl_merge(acl, o->aces, o->naces, &next) < 0)
		BUG("test host not canonical");
	wacl_free(acl);
	*acl = next;
}

static size_t host_count(struct host *h, const char *sid)
{
	size_t i, j, n = 0;

	for (i = 0; i < h->n; i++)
		for (j = 0; j < h->acls[i].n; j++)
			n += !strcmp(h->acls[i].aces[j].sid, sid);
	return n;
}

static int h_lock(void *ctx, char **err)
{
	struct host *h = ctx;

	(void)err;
	if (h->locked++)
		BUG("test lock taken twice");
	return 0;
}

static void h_unlock(void *ctx)
{
	struct host *h = ctx;

	h->locked--;
}

static int h_read(void *ctx, char **buf, size_t *len, char **err)
{
	struct host *h = ctx;

	(void)err;
	*buf = h->file ? xstrndup(h->file, h->file_len) : NULL;
	*len = h->file_len;
	return 0;
}

static int h_write(void *ctx, const char *buf, size_t len, char **err)
{
	struct host *h = ctx;

	(void)err;
	free(h->file);
	h->file = xstrndup(buf, len);
	h->file_len = len;
	return 0;
}

static bool h_alive(void *ctx, const char *holder)
{
	struct host *h = ctx;
	size_t i;

	for (i = 0; i < h->nalive; i++)
		if (!strcmp(h->alive[i], holder))
			return true;
	return false;
}

static int h_revoke(void *ctx, const struct srec *r)
{
	struct host *h = ctx;
	struct wacl *acl, next;

	if (h->fail_revoke)
		return -1;
	if (r->kind != SREC_ACE)
		return 0;
	acl = host_acl(h, r->path);
	wacl_remove(acl, &r->ace, &next);
	wacl_free(acl);
	*acl = next;
	return 0;
}

/* A launch of @ap by @holder: intent, apply (@upto objects), sweep. */
static void launch_start(struct host *h, const struct state_ops *ops,
			 const struct aclplan *ap, const char *holder,
			 size_t upto)
{
	struct sstate s;
	char *err = NULL;
	size_t i;

	if (state_open(ops, &s, &err) < 0)
		BUG("state_open: %s", err);
	state_records_for(ap, holder, &s);
	if (state_write(ops, &s, &err) < 0)
		BUG("state_write: %s", err);
	for (i = 0; i < ap->nobjs && i < upto; i++)
		host_apply_obj(h, &ap->objs[i]);
	if (upto < ap->nobjs) {
		/* Killed here: the lock dies with the process. */
		ops->unlock(ops->ctx);
		sstate_free(&s);
		return;
	}
	state_sweep(ops, &s, holder);
	if (state_write(ops, &s, &err) < 0)
		BUG("state_write: %s", err);
	state_close(ops, &s);
}

static size_t launch_end(const struct state_ops *ops, const char *holder)
{
	struct sstate s;
	char *err = NULL;
	size_t failed;

	if (state_open(ops, &s, &err) < 0)
		BUG("state_open: %s", err);
	failed = state_finish(ops, &s, holder);
	if (state_write(ops, &s, &err) < 0)
		BUG("state_write: %s", err);
	state_close(ops, &s);
	return failed;
}

static size_t state_count(struct host *h)
{
	struct sstate s;
	char *err = NULL;
	size_t n;

	if (!h->file)
		return 0;
	if (sstate_parse(h->file, h->file_len, &s, &err) < 0) {
		diag("state does not parse: %s", err);
		free(err);
		return (size_t)-1;
	}
	n = s.n;
	sstate_free(&s);
	return n;
}

void test_state(void)
{
	struct plan p1, p2;
	struct aclplan a1, a2;
	struct host h = { 0 };
	struct state_ops ops = { &h, h_lock, h_unlock, h_read,
				 h_write, h_alive, h_revoke };
	struct sstate s;
	char *err = NULL, *f1, *f2;
	size_t len1, len2;

	if (golden_plan("ok_winacl_1.windows.plan.hex", &p1) < 0 ||
	    golden_plan("ok_guard_4.windows.plan.hex", &p2) < 0 ||
	    aclplan_load(&p1, &a1, &err) < 0 ||
	    aclplan_load(&p2, &a2, &err) < 0) {
		ok(0, "the state tests' plans load: %s", err ? err : "?");
		free(err);
		return;
	}
	/* Apply, then revoke: the host is as it was. */
	h.alive[h.nalive++] = "100:1";
	launch_start(&h, &ops, &a1, "100:1", (size_t)-1);
	ok(host_count(&h, a1.sid) > 0, "apply: the capability SID's ACEs "
				       "are on the host");
	ok(state_count(&h) > 0, "apply: the state names them");
	h.nalive = 0;
	is_int(launch_end(&ops, "100:1"), 0, "end: nothing failed");
	is_int(host_count(&h, a1.sid), 0, "end: no ACE of the SID is left");
	is_int(host_count(&h, SID_OWNER_RIGHTS), 0,
	       "end: no OWNER RIGHTS ACE is left");
	is_int(state_count(&h), 0, "end: the state is empty");

	/* Killed in the middle of applying: the next launch repairs. */
	launch_start(&h, &ops, &a1, "200:1", 2);
	ok(host_count(&h, a1.sid) > 0, "crash: a partial apply is on the host");
	ok(state_count(&h) > 0, "crash: its intent is in the state");
	h.alive[h.nalive++] = "300:1";
	launch_start(&h, &ops, &a2, "300:1", (size_t)-1);
	is_int(host_count(&h, a1.sid) + host_count(&h, SID_OWNER_RIGHTS), 0,
	       "the next launch (another plan) revoked the dead launch's "
	       "ACEs");
	h.nalive = 0;
	launch_end(&ops, "300:1");
	is_int(state_count(&h), 0, "and the state is empty when it ends");

	/* Killed, then the same plan again: its ACEs stay, one owner. */
	launch_start(&h, &ops, &a1, "210:1", 3);
	h.alive[0] = "310:1";
	h.nalive = 1;
	launch_start(&h, &ops, &a1, "310:1", (size_t)-1);
	ok(host_count(&h, a1.sid) > 0,
	   "the same plan again: the ACEs it needs stay");
	{
		struct sstate t;
		size_t i, others = 0;

		if (sstate_parse(h.file, h.file_len, &t, &err) == 0) {
			for (i = 0; i < t.n; i++)
				others += strcmp(t.recs[i].holder, "310:1") != 0;
			sstate_free(&t);
		}
		is_int(others, 0, "and the dead launch's records are gone");
	}
	h.nalive = 0;
	launch_end(&ops, "310:1");
	is_int(host_count(&h, a1.sid) + host_count(&h, SID_OWNER_RIGHTS), 0,
	       "and revoked when it ended");

	/* Two live launchers of one plan: the first to end revokes nothing. */
	h.alive[h.nalive++] = "400:1";
	h.alive[h.nalive++] = "500:1";
	launch_start(&h, &ops, &a1, "400:1", (size_t)-1);
	launch_start(&h, &ops, &a1, "500:1", (size_t)-1);
	h.alive[0] = "500:1";
	h.nalive = 1;
	launch_end(&ops, "400:1");
	ok(host_count(&h, a1.sid) > 0, "a live launcher's ACEs stay when "
				       "another ends");
	h.nalive = 0;
	launch_end(&ops, "500:1");
	is_int(host_count(&h, a1.sid), 0, "and go when the last one ends");
	is_int(state_count(&h), 0, "the state is empty again");

	/* A revocation that fails keeps its record for the next run. */
	launch_start(&h, &ops, &a1, "600:1", (size_t)-1);
	h.fail_revoke = true;
	ok(launch_end(&ops, "600:1") > 0, "failed revocations are counted");
	ok(state_count(&h) > 0, "and their records kept");
	h.fail_revoke = false;
	h.alive[0] = "800:1";
	h.nalive = 1;
	launch_start(&h, &ops, &a2, "800:1", (size_t)-1);
	is_int(host_count(&h, a1.sid), 0, "a later run revokes them");
	h.nalive = 0;
	launch_end(&ops, "800:1");
	is_int(state_count(&h), 0, "the state is empty again");

	/* The file: deterministic, and corrupt ones are refused. */
	memset(&s, 0, sizeof(s));
	state_records_for(&a1, "9:9", &s);
	sstate_add(&s, "9:9", "C:\\work\\secret", SREC_PLACEHOLDER, NULL);
	f1 = sstate_format(&s, &len1);
	sstate_free(&s);
	ok(f1 && sstate_parse(f1, len1, &s, &err) == 0, "the state parses");
	f2 = f1 ? sstate_format(&s, &len2) : NULL;
	ok(f1 && f2 && len1 == len2 && !memcmp(f1, f2, len1),
	   "and formats to the same bytes");
	sstate_free(&s);
	free(f2);
	free(h.file);
	h.file = replace_once(f1, "\"kind\": \"ace\"", "\"kind\": \"acl\"");
	h.file_len = strlen(h.file);
	ok(state_open(&ops, &s, &err) < 0 && !h.locked,
	   "a corrupt state is refused, and the lock released");
	if (err)
		diag("  %s", err);
	free(err);
	free(f1);
	aclplan_release(&a1);
	aclplan_release(&a2);
	plan_release(&p1);
	plan_release(&p2);
	host_free(&h);
}

/* ------------------------------------------------------------------ */
/* Two writers at once, as real processes on real files. */

struct fctx {
	const char *dir;
	int lockfd;
};

static int f_lock(void *ctx, char **err)
{
	struct fctx *c = ctx;
	char *p = xasprintf("%s/state.lock", c->dir);

	c->lockfd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	free(p);
	if (c->lockfd < 0 || flock(c->lockfd, LOCK_EX) < 0) {
		*err = xasprintf("lock: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void f_unlock(void *ctx)
{
	struct fctx *c = ctx;

	close(c->lockfd);
}

static int f_read(void *ctx, char **buf, size_t *len, char **err)
{
	struct fctx *c = ctx;
	char *p = xasprintf("%s/state.json", c->dir);

	(void)err;
	*buf = slurp(p, len);
	free(p);
	return 0;
}

static int f_write(void *ctx, const char *buf, size_t len, char **err)
{
	struct fctx *c = ctx;
	char *tmp = xasprintf("%s/state.json.%d.tmp", c->dir, (int)getpid());
	char *dst = xasprintf("%s/state.json", c->dir);
	FILE *f = fopen(tmp, "wb");
	int ret = 0;

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) ||
	    rename(tmp, dst) < 0) {
		*err = xstrdup("write failed");
		ret = -1;
	}
	free(tmp);
	free(dst);
	return ret;
}

static bool f_alive(void *ctx, const char *holder)
{
	(void)ctx;
	(void)holder;
	return true;
}

static int f_revoke(void *ctx, const struct srec *r)
{
	(void)ctx;
	(void)r;
	return 0;
}

#define WRITES 40

void test_two_writers(void)
{
	char tmpl[] = "/tmp/vbox-winstate.XXXXXX", *dir, *p, *buf;
	struct fctx c = { 0 };
	struct state_ops ops = { &c, f_lock, f_unlock, f_read,
				 f_write, f_alive, f_revoke };
	struct sstate s;
	pid_t pids[2];
	int st, i, k, good = 0;
	size_t len;
	char *err = NULL;

	dir = mkdtemp(tmpl);
	if (!dir) {
		ok(0, "mkdtemp");
		return;
	}
	c.dir = dir;
	for (k = 0; k < 2; k++) {
		pids[k] = fork();
		if (pids[k] == 0) {
			for (i = 0; i < WRITES; i++) {
				char holder[32];
				struct sstate t;

				snprintf(holder, sizeof(holder), "%d:%d", k, i);
				if (state_open(&ops, &t, &err) < 0)
					_exit(1);
				sstate_add(&t, holder, "C:\\x", SREC_LABEL,
					   NULL);
				if (state_write(&ops, &t, &err) < 0)
					_exit(1);
				state_close(&ops, &t);
			}
			_exit(0);
		}
	}
	for (k = 0; k < 2; k++)
		if (pids[k] > 0 && waitpid(pids[k], &st, 0) == pids[k] &&
		    WIFEXITED(st) && WEXITSTATUS(st) == 0)
			good++;
	is_int(good, 2, "two writers ran to the end");
	p = xasprintf("%s/state.json", dir);
	buf = slurp(p, &len);
	ok(buf && sstate_parse(buf, len, &s, &err) == 0,
	   "the state they left parses (no torn write)");
	is_int(buf ? (long long)s.n : -1, 2 * WRITES,
	       "and holds every record both wrote (no lost update)");
	if (buf)
		sstate_free(&s);
	free(buf);
	unlink(p);
	free(p);
	p = xasprintf("%s/state.lock", dir);
	unlink(p);
	free(p);
	rmdir(dir);
}
