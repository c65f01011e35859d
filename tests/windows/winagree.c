/* SPDX-License-Identifier: MIT */
/*
 * winagree.c - the access-check agreement test of the windows target
 * (doc/launcher.md, "The access-check agreement test"): what the real
 * vboxc plans, carried out on a model of a Windows host by the launcher's
 * own portable code and judged by a model of Windows' access checks
 * (winmodel.c), must never let the child do what `vboxc explain
 * --target=windows` denies.
 *
 * Tables: a fixed set (the cases issue 35 found, and the nestings) and
 * random ones, seeded: the seed is printed, VBOX_WINAGREE_SEED repeats a
 * run, VBOX_WINAGREE_TABLES sets how many (default 120).  Each table is
 * compiled by $VBOXC into plan.bin and explained on every probe path;
 * the plan is loaded by the launcher's aclplan_load() and applied to
 * three hosts (a profile, a folder under C:\ with the user's full
 * control, one with Authenticated Users' modify).  A hole fails; each
 * narrower answer must be in a documented class.  Then every fault of
 * wa_fault_name() is planted in turn and must make the judgement fail;
 * VBOX_WINAGREE_FAULT=NAME[,NAME] plants faults in the main run.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aclplan.h"
#include "plan.h"
#include "tap.h"
#include "winagree_int.h"
#include "wjson.h"

#define HOME_DEF "HOME=C:\\Users\\me"
#define MAX_ROWS 8

static const char *vboxc;
static char tmpdir[] = "/tmp/vbox-winagree-XXXXXX";

/* ------------------------------------------------------------------ */
/* Tables. */

/*
 * @old: the fault that gives a table the plan, or the launcher, as it
 * was before issue 35 (pins without FILE_DELETE_CHILD; no placeholder
 * right below a drive root; a gap walk that stopped at pins): with it,
 * the table must show holes.
 */
static const struct {
	const char *what;
	const char *rules; /* "$B": the host's base folder */
	unsigned old;
} fixed[] = {
	{ "class 1: an ro folder in a writable parent (FILE_DELETE_CHILD)",
	  "@default write rw\n!!ro: $B\\a\\c\\\n", WA_FAULT_PIN_FDC },
	{ "class 1: a denied file in a writable parent",
	  "@default write rw\ndeny: $B\\a\\g\n", WA_FAULT_PIN_FDC },
	{ "class 1: a deny below pinned folders of a writable root",
	  "rw: $B\\a\\**\n!deny: $B\\a\\c\\f\n", WA_FAULT_PIN_FDC },
	{ "class 2: a missing deny right below the drive root",
	  "@default write rw\ndeny: C:/Z/**\n", WA_FAULT_DRIVE_PH },
	{ "class 2: a missing ro right below the drive root",
	  "@default write rw\nro: C:\\Z\n", WA_FAULT_DRIVE_PH },
	{ "gaps: a deny over a protected DACL, an ro over an explicit allow",
	  "deny: $B\\a\nro: $B\\b\n" },
	{ "an ro hole inside a deny", "deny: $B\\a\n!ro: $B\\a\\c\n" },
	{ "rw in ro in rw, a deny innermost",
	  "rw: $B\\**\n!ro: $B\\a\n!!rw: $B\\a\\c\n!!!deny: $B\\a\\c\\f\n" },
	{ "a missing ro in a writable root: a placeholder",
	  "rw: $B\\a\\**\n!ro: $B\\a\\n\n" },
	{ "@default write rw: ro, rw inside, deny inside that",
	  "@default write rw\nro: $B\\a\n!rw: $B\\a\\c\n!!deny: $B\\a\\c\\f\n"
	  "deny: $B\\e\n" },
	{ "the base read-only, a writable folder inside",
	  "@default write rw\nro: $B\n!rw: $B\\b\n" },
	{ "a pin inside a deny (an absorbed rw glob): the gap walk goes on",
	  "!!rw: $B\\*\ndeny: $B\\a\\g\ndeny: $B\n", WA_FAULT_WALK_PINS },
};

/* Random targets below the base ("" is the base itself) or absolute. */
static const char *const targets[] = {
	"a",	   "a\\c",  "a\\c\\f", "a\\d",	 "a\\g",    "b",
	"b\\h",	   "e",	    "m",       "m\\y",	 "a\\n",    "a\\c\\x",
	"",	   "C:\\Z", "C:\\Z\\q", "a\\*", "*",
};

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	/* xorshift64*: a fixed sequence per seed and table. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 33) % n;
}

/*
 * Table @t of @seed (or fixed table @t when @t < array_size(fixed)),
 * for the base @base, into @out.
 */
static void table_text(unsigned long seed, size_t t, const char *base,
		       char *out, size_t size)
{
	size_t len, r, nrows, k;
	const char *tg, *eff;
	char path[WM_PATH_MAX];
	bool upper, slash;

	len = (size_t)snprintf(out, size, "@default net open\n");
	if (t < array_size(fixed)) {
		const char *p;

		for (p = fixed[t].rules; *p && len + 16 < size; p++) {
			if (p[0] == '$' && p[1] == 'B') {
				len += (size_t)snprintf(out + len, size - len,
							"%s", base);
				p++;
			} else {
				out[len++] = *p;
			}
		}
		out[len] = '\0';
		return;
	}
	rng_state = (seed + 1) * 0x9e3779b97f4a7c15ull ^
		    (t * 0xbf58476d1ce4e5b9ull);
	if (!rng_state)
		rng_state = 1;
	if (rnd(2))
		len += (size_t)snprintf(out + len, size - len,
					"@default write rw\n");
	for (r = 0, nrows = 1 + rnd(5); r < nrows; r++) {
		tg = targets[rnd(array_size(targets))];
		eff = (const char *[]){ "deny", "ro", "rw", "rw" }[rnd(4)];
		/* Globs: rw ones are absorbed, deny and ro ones refused. */
		if (strchr(tg, '*') && rnd(4))
			eff = "rw";
		if (tg[0] == 'C')
			snprintf(path, sizeof(path), "%s", tg);
		else
			snprintf(path, sizeof(path), "%s%s%s", base,
				 *tg ? "\\" : "", tg);
		upper = !rnd(5);
		slash = !rnd(5);
		for (k = 3; path[k]; k++) {
			if (slash && path[k] == '\\')
				path[k] = '/';
			if (upper && path[k] >= 'a' && path[k] <= 'z')
				path[k] -= 32;
		}
		len += (size_t)snprintf(out + len, size - len, "%.*s%s: %s%s\n",
					(int)(rnd(5) < 3 ? 0 : rnd(3)), "!!",
					eff, path,
					!strchr(tg, '*') && !rnd(3) ? "\\**" :
								      "");
	}
}

/* The row texts of @text, by index (its file rows, in order). */
static size_t table_rows(const char *text, char rows[MAX_ROWS][256])
{
	const char *p = text, *nl;
	size_t n = 0;

	for (; *p && n < MAX_ROWS; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		if (*p != '@')
			snprintf(rows[n++], 256, "%.*s", (int)(nl - p), p);
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* vboxc. */

/* Run vboxc @argv (argv[0] unused), stdout to @out; its exit status. */
static int run_vboxc(const char **argv, const char *out)
{
	char err[sizeof(tmpdir) + 16];
	int status, fo, fe;
	pid_t pid;

	snprintf(err, sizeof(err), "%s/err", tmpdir);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(126);
		argv[0] = vboxc;
		execv(vboxc, (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	bool good;

	if (!f)
		return false;
	good = fputs(text, f) >= 0;
	return fclose(f) == 0 && good;
}

/* The first "error:" line vboxc printed, for messages. */
static void first_error(char *out, size_t size)
{
	char path[sizeof(tmpdir) + 16], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/err", tmpdir);
	snprintf(out, size, "(no message)");
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "error:")) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, size, "%s", line);
			break;
		}
	fclose(f);
}

/*
 * Compile @rules into plan.bin and explain every path of @u: 0, 1 when
 * vboxc refuses the table (*@why), -1 when something else failed.
 */
static int vboxc_table(const char *rules, struct wa_universe *u,
		       struct plan *plan, char *why, size_t whysize)
{
	char rpath[64], ppath[64], qpath[64], apath[64], qarg[80], *perr;
	const char *cargv[] = { NULL, "compile", "--target=windows",
				"--emit=plan", "-D", HOME_DEF, "-o", ppath,
				rpath, NULL };
	const char *eargv[] = { NULL, "explain", "--format=json",
				"--target=windows", "-D", HOME_DEF, rpath,
				qarg, NULL };
	char line[1024];
	struct wjson v;
	const struct wjson *allow, *row;
	size_t k = 0;
	FILE *f;

	snprintf(rpath, sizeof(rpath), "%s/rules", tmpdir);
	snprintf(ppath, sizeof(ppath), "%s/plan", tmpdir);
	snprintf(qpath, sizeof(qpath), "%s/queries", tmpdir);
	snprintf(apath, sizeof(apath), "%s/answers", tmpdir);
	snprintf(qarg, sizeof(qarg), "--queries=%s", qpath);
	if (!write_file(rpath, rules))
		return -1;
	if (run_vboxc(cargv, apath) != 0) {
		first_error(why, whysize);
		return 1;
	}
	f = fopen(qpath, "w");
	if (!f)
		return -1;
	for (k = 0; k < u->n; k++)
		fprintf(f, "read %s\nwrite %s\n", u->p[k].path, u->p[k].path);
	if (fclose(f) || run_vboxc(eargv, apath) != 0)
		return -1;
	f = fopen(apath, "r");
	if (!f)
		return -1;
	for (k = 0; k < 2 * u->n && fgets(line, sizeof(line), f); k++) {
		perr = NULL;
		if (wjson_parse(line, strlen(line), &v, &perr) < 0) {
			free(perr);
			break;
		}
		allow = wjson_get(&v, "allow");
		row = wjson_get(&v, "row");
		if (!allow || allow->type != WJSON_BOOL || !row ||
		    row->type != WJSON_INT) {
			wjson_free(&v);
			break;
		}
		if (k % 2 == 0) {
			u->p[k / 2].rd = allow->b;
		} else {
			u->p[k / 2].wr = allow->b;
			u->p[k / 2].wrow = (int)row->i;
		}
		wjson_free(&v);
	}
	fclose(f);
	if (k != 2 * u->n)
		return -1;
	if (plan_load(ppath, plan, &perr) < 0) {
		snprintf(why, whysize, "plan_load: %s", perr);
		free(perr);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Running the tables. */

/**
 * struct host_run - what one host saw over the whole run
 * @tables: tables compared; @refused: launches the launcher refuses
 * @placeholders, @gaps: what applying the plans did
 * @c: the probes' counts, the main run
 * @fault: holes and unclassified answers per planted fault
 */
struct host_run {
	size_t tables;
	size_t refused;
	size_t placeholders;
	size_t gaps;
	struct wa_counts c;
	size_t fault[16];
};

static struct host_run runs[WA_NHOSTS];
static size_t compiled, refused_compile, shown, show = 24;

/* Apply and probe @ap's plan on @h with @faults; false when refused. */
static bool judge_one(enum wa_host h, const struct plan *plan,
		      const struct wa_universe *u, const char *text,
		      unsigned faults, bool quiet, const char *name,
		      struct wa_counts *c, struct wa_applied *applied)
{
	char rows[MAX_ROWS][256];
	const char *rowp[MAX_ROWS];
	struct wm_token child, user;
	struct wa_judge j;
	struct aclplan ap;
	struct wm_state st;
	char *err = NULL;
	size_t k, n;

	if (aclplan_load(plan, &ap, &err) < 0) {
		if (!quiet)
			ok(0, "%s: the launcher loads the plan: %s", name, err);
		free(err);
		return false;
	}
	wa_mutate(&ap, faults);
	wa_host_build(h, &st);
	wa_apply(&st, &ap, faults, applied);
	if (applied->refused) {
		wm_state_free(&st);
		aclplan_release(&ap);
		return false;
	}
	n = table_rows(text, rows);
	for (k = 0; k < n; k++)
		rowp[k] = rows[k];
	wa_child_token(&child, ap.sid, ap.low && !(faults & WA_FAULT_TOKEN));
	wa_user_token(&user);
	j = (struct wa_judge){ .u = u, .rules = rowp, .nrules = n,
			       .applied = applied, .child = &child,
			       .user = &user, .name = name, .text = text,
			       .quiet = quiet, .shown = &shown,
			       .show = show };
	wa_probe_all(&j, &st, c);
	wm_state_free(&st);
	aclplan_release(&ap);
	return true;
}

/*
 * Table @t on the hosts of one base: its holes and unclassified answers,
 * summed; each planted fault's in @per_fault (16 counters) when not NULL.
 */
static size_t run_table(unsigned long seed, size_t t, bool data,
			unsigned faults, size_t *per_fault)
{
	enum wa_host first = data ? WA_FULL : WA_PROFILE;
	enum wa_host last = data ? WA_MODIFY : WA_PROFILE;
	char text[2048], why[512], name[96];
	struct wa_universe u;
	struct wa_applied applied;
	struct wa_counts c;
	struct plan plan;
	unsigned bit;
	size_t holes = 0;
	int h, r;

	wa_universe_build(first, &u);
	table_text(seed, t, wa_host_base(first), text, sizeof(text));
	r = vboxc_table(text, &u, &plan, why, sizeof(why));
	if (r < 0) {
		ok(0, "table %zu: vboxc compiles and explains it (%s)", t,
		   why);
		return 1;
	}
	if (r > 0) {
		refused_compile++;
		if (t < array_size(fixed))
			diag("fixed table %zu on %s: vboxc refuses it: %s", t,
			     wa_host_name(first), why);
		return 0;
	}
	compiled++;
	for (h = first; h <= (int)last; h++) {
		snprintf(name, sizeof(name), "table %zu on %s", t,
			 wa_host_name(h));
		memset(&c, 0, sizeof(c));
		if (!judge_one(h, &plan, &u, text, faults, false, name, &c,
			       &applied)) {
			runs[h].refused++;
			if (runs[h].refused <= 2)
				diag("%s: the launcher refuses it (%s)", name,
				     applied.why);
			continue;
		}
		runs[h].tables++;
		runs[h].placeholders += applied.placeholders;
		runs[h].gaps += applied.gaps;
		for (r = 0; r < WA_NCLASSES; r++)
			runs[h].c.narrow[r] += c.narrow[r];
		runs[h].c.probes += c.probes;
		runs[h].c.deep += c.deep;
		runs[h].c.holes += c.holes;
		runs[h].c.unclassified += c.unclassified;
		holes += c.holes + c.unclassified;
		/* Every fault planted in turn must be seen. */
		for (bit = 0; bit < 16 && !faults; bit++) {
			if (!((1u << bit) & WA_FAULT_ALL))
				continue;
			memset(&c, 0, sizeof(c));
			/* A refused launch is no failure: not counted. */
			if (!judge_one(h, &plan, &u, text, 1u << bit, true,
				       name, &c, &applied))
				continue;
			runs[h].fault[bit] += c.holes + c.unclassified;
			if (per_fault)
				per_fault[bit] += c.holes + c.unclassified;
		}
	}
	plan_release(&plan);
	return holes;
}

static void report(unsigned faults)
{
	char classes[256];
	size_t len, k, total = 0;
	unsigned bit;
	int h;

	for (h = 0; h < WA_NHOSTS; h++) {
		const struct host_run *r = &runs[h];

		len = 0;
		for (k = 0; k < WA_NCLASSES; k++)
			len += (size_t)snprintf(classes + len,
						sizeof(classes) - len,
						"%s%s %zu", k ? ", " : "",
						wa_class_name(k),
						r->c.narrow[k]);
		is_int(r->c.holes, 0,
		       "%s: %zu tables, %zu probes (%zu after one change): "
		       "no hole (launches refused: %zu; placeholders %zu, "
		       "gaps closed %zu)",
		       wa_host_name(h), r->tables, r->c.probes, r->c.deep,
		       r->refused, r->placeholders, r->gaps);
		is_int(r->c.unclassified, 0,
		       "%s: every narrower answer is in a documented class "
		       "(%s)",
		       wa_host_name(h), classes);
		total += r->tables;
	}
	ok(compiled >= 100, "%zu tables compiled and compared (%zu refused by "
			    "vboxc)",
	   compiled, refused_compile);
	if (faults)
		return;
	for (bit = 0; bit < 16; bit++) {
		if (!((1u << bit) & WA_FAULT_ALL))
			continue;
		total = 0;
		for (h = 0; h < WA_NHOSTS; h++)
			total += runs[h].fault[bit];
		ok(total > 0, "planted fault '%s' is caught (%zu failures)",
		   wa_fault_name(1u << bit), total);
	}
}

/* Remove the scratch files and their directory. */
static void cleanup(void)
{
	static const char *const names[] = { "rules", "plan", "queries",
					     "answers", "err" };
	char path[sizeof(tmpdir) + 16];
	size_t k;

	for (k = 0; k < array_size(names); k++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, names[k]);
		if (unlink(path) && errno != ENOENT)
			diag("unlink %s: %s", path, strerror(errno));
	}
	if (rmdir(tmpdir))
		diag("rmdir %s: %s", tmpdir, strerror(errno));
}

int main(void)
{
	const char *s;
	unsigned long seed;
	unsigned faults = 0;
	size_t ntables = 120, t, holes;
	char *end;
	FILE *f;

	vboxc = getenv("VBOXC");
	if (!vboxc || access(vboxc, X_OK)) {
		printf("1..0 # SKIP no vboxc binary (VBOXC=%s)\n",
		       vboxc ? vboxc : "");
		return 0;
	}
	s = getenv("VBOX_WINAGREE_SEED");
	if (s && *s) {
		seed = strtoul(s, &end, 10);
		if (*end) {
			printf("Bail out! VBOX_WINAGREE_SEED=%s\n", s);
			return 1;
		}
	} else {
		f = fopen("/dev/urandom", "rb");
		if (!f || fread(&seed, sizeof(seed), 1, f) != 1)
			seed = (unsigned long)getpid();
		if (f)
			fclose(f);
		seed %= 1000000000ul;
	}
	s = getenv("VBOX_WINAGREE_TABLES");
	if (s && *s)
		ntables = strtoul(s, NULL, 10);
	s = getenv("VBOX_WINAGREE_SHOW");
	if (s && *s)
		show = strtoul(s, NULL, 10);
	s = getenv("VBOX_WINAGREE_FAULT");
	if (s && *s && wa_fault_parse(s, &faults) < 0) {
		printf("Bail out! unknown VBOX_WINAGREE_FAULT=%s\n", s);
		return 1;
	}
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	diag("seed %lu (VBOX_WINAGREE_SEED=%lu repeats this run), %zu random "
	     "tables and %zu fixed ones, each on 3 hosts%s%s",
	     seed, seed, ntables, array_size(fixed),
	     faults ? "; planted: " : "",
	     faults ? getenv("VBOX_WINAGREE_FAULT") : "");
	s = getenv("VBOX_WINAGREE_ONLY");
	if (s && *s) {
		/* One table, for a closer look. */
		t = strtoul(s, NULL, 10);
		run_table(seed, t, false, faults, NULL);
		run_table(seed, t, true, faults, NULL);
		report(faults);
		cleanup();
		return done_testing();
	}
	for (t = 0; t < array_size(fixed); t++) {
		size_t per_fault[16] = { 0 };
		unsigned bit;

		holes = run_table(seed, t, false, faults, per_fault) +
			run_table(seed, t, true, faults, per_fault);
		is_int(holes, 0, "fixed table %zu (%s): no hole on any host",
		       t, fixed[t].what);
		if (!fixed[t].old || faults)
			continue;
		for (bit = 0; bit < 15 && !(fixed[t].old & (1u << bit)); bit++)
			;
		ok(per_fault[bit] > 0,
		   "fixed table %zu: as before issue 35 ('%s'), it has "
		   "holes there (%zu)",
		   t, wa_fault_name(1u << bit), per_fault[bit]);
	}
	for (t = array_size(fixed); t < array_size(fixed) + ntables; t++) {
		run_table(seed, t, false, faults, NULL);
		run_table(seed, t, true, faults, NULL);
	}
	report(faults);
	cleanup();
	return done_testing();
}
