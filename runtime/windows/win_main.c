/* SPDX-License-Identifier: MIT */
/*
 * win_main.c - vbox-exec.exe [OPTIONS] PLAN -- COMMAND [ARG...]
 * (doc/launcher.md, "Windows"; vbox-exec(1)).
 *
 * In order: the command line (UTF-16, split by the system, converted to
 * UTF-8), plan.bin verified and its ACL plan checked (aclplan.c), then
 * either the dry run, or: the ACEs applied under the state's lock and
 * what dead launchers left revoked (state.c, win_host.c), the restricted
 * token, the child started suspended with an explicit handle list inside
 * a job object that kills the whole tree when it closes, resumed, waited
 * for (bounded by --timeout, ended by Ctrl-C), the tree ended, the ACEs
 * revoked, and the child's exit status returned whole (32 bits).  Every
 * failure before the child runs exits 125 and leaves no ACE behind.
 */
#include <vbox.h>

#include <stdarg.h>
#include <stdio.h>

#include <windows.h>
#include <shellapi.h>

#include "aclplan.h"
#include "bbuf.h"
#include "cmdline.h"
#include "env.h"
#include "exit_codes.h"
#include "plan.h"
#include "state.h"
#include "win_child.h"
#include "win_host.h"
#include "win_log.h"
#include "win_token.h"

#define TIMEOUT_MAX_S 1e7
#define MAX_SETS 4096


/* ------------------------------------------------------------------ */
/* The command line. */

struct options {
	const char *plan;
	char **command;
	const char *workdir;
	const char **sets;
	size_t nsets;
	bool replace_env;
	ULONGLONG timeout_ms;
	bool dry_run;
	const char *state_dir;
};

static const char usage_text[] =
	"Usage: vbox-exec [OPTIONS] PLAN -- COMMAND [ARG...]\n"
	"Run COMMAND under the sandbox plan PLAN (vboxc compile "
	"--target=windows --emit=plan).\n"
	"\n"
	"  -C, --workdir=DIR        working directory (grants nothing)\n"
	"  -e, --env=NAME=VALUE     set a variable (repeatable); -e NAME: "
	"the host's value\n"
	"      --replace-env        the environment is exactly the -e "
	"variables\n"
	"      --timeout=SECONDS    end the whole process tree after this "
	"long\n"
	"      --log                stage timings and warnings to stderr\n"
	"      --quiet              accepted; windows prints no notices\n"
	"      --dry-run            print the token and the ACEs, in order, "
	"and exit\n"
	"      --state-dir=DIR      the reconciliation state's directory\n"
	"                           (default %APPDATA%\\vbox\\sandbox)\n"
	"      --help               show this help and exit\n"
	"      --version            show the version and exit\n"
	"\n"
	"Exit status: COMMAND's status (all 32 bits); 124 on timeout; 125 "
	"when\nvbox-exec failed and COMMAND did not run; 126 COMMAND not "
	"executable;\n127 COMMAND not found; 130 when Ctrl-C ended it.\n";

static int usage_error(const char *fmt, ...) __printf(1, 2);

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("vbox-exec: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'vbox-exec --help' for more information.\n", stderr);
	return EXIT_LAUNCHER;
}

static int parse_timeout(const char *s, ULONGLONG *ms)
{
	char *end;
	double v;

	v = strtod(s, &end);
	if (end == s || *end || !(v > 0) || v > TIMEOUT_MAX_S)
		return -1;
	/* At most 1e10 ms: past a DWORD, so waited for in slices. */
	*ms = (ULONGLONG)(v * 1e3) ? (ULONGLONG)(v * 1e3) : 1;
	return 0;
}


/* "--name=VALUE" or "--name VALUE": the value, or NULL when absent. */
static const char *long_value(int argc, char **argv, int *i,
			      const char *name, bool *matched)
{
	size_t n = strlen(name);
	const char *a = argv[*i];

	*matched = false;
	if (strncmp(a, name, n))
		return NULL;
	if (a[n] == '=') {
		*matched = true;
		return a + n + 1;
	}
	if (a[n])
		return NULL;
	*matched = true;
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

/* -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, struct options *o)
{
	const char *v;
	char *err;
	bool m;
	int i, dd;

	for (dd = 1; dd < argc && strcmp(argv[dd], "--"); dd++)
		;
	for (i = 1; i < dd; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			return fflush(stdout) ? EXIT_LAUNCHER : 0;
		}
		if (!strcmp(a, "--version")) {
			printf("vbox-exec (%s) %s (windows)\n", PACKAGE_NAME,
			       PACKAGE_VERSION);
			return fflush(stdout) ? EXIT_LAUNCHER : 0;
		}
		if (!strcmp(a, "--replace-env")) {
			o->replace_env = true;
			continue;
		}
		if (!strcmp(a, "--log")) {
			log_on = true;
			continue;
		}
		/* No "vbox:" notice lines on windows: nothing to silence. */
		if (!strcmp(a, "--quiet"))
			continue;
		if (!strcmp(a, "--dry-run")) {
			o->dry_run = true;
			continue;
		}
		if (!strncmp(a, "-C", 2) && strncmp(a, "--", 2)) {
			v = a[2] ? a + 2 : i + 1 < dd ? argv[++i] : NULL;
			if (!v)
				return usage_error("option '-C' needs a value");
			o->workdir = v;
			continue;
		}
		if (!strncmp(a, "-e", 2) && strncmp(a, "--", 2)) {
			v = a[2] ? a + 2 : i + 1 < dd ? argv[++i] : NULL;
			if (!v)
				return usage_error("option '-e' needs a value");
			goto set;
		}
		v = long_value(dd, argv, &i, "--workdir", &m);
		if (m) {
			if (!v)
				return usage_error("option '--workdir' needs a "
						   "value");
			o->workdir = v;
			continue;
		}
		v = long_value(dd, argv, &i, "--state-dir", &m);
		if (m) {
			if (!v)
				return usage_error("option '--state-dir' needs "
						   "a value");
			o->state_dir = v;
			continue;
		}
		v = long_value(dd, argv, &i, "--timeout", &m);
		if (m) {
			if (!v || parse_timeout(v, &o->timeout_ms) < 0)
				return usage_error(
					"invalid --timeout '%s': expected "
					"seconds, more than 0 and at most %.0f",
					v ? v : "", TIMEOUT_MAX_S);
			continue;
		}
		v = long_value(dd, argv, &i, "--env", &m);
		if (m) {
			if (!v)
				return usage_error("option '--env' needs a "
						   "value");
			goto set;
		}
		if (!strncmp(a, "--bwrap", 7))
			return usage_error("--bwrap: there is no bubblewrap on "
					   "windows");
		if (a[0] == '-' && a[1])
			return usage_error("unknown option '%s'", a);
		if (o->plan)
			return usage_error("unexpected argument '%s' (COMMAND "
					   "goes after '--')",
					   a);
		o->plan = a;
		continue;
set:
		if (env_check_assignment(v, &err) < 0) {
			i = usage_error("%s", err);
			free(err);
			return i;
		}
		if (o->nsets >= MAX_SETS)
			return usage_error("more than %d -e options", MAX_SETS);
		o->sets[o->nsets++] = v;
	}
	if (!o->plan)
		return usage_error("missing PLAN");
	if (dd >= argc)
		return usage_error("missing '--' before COMMAND");
	if (dd + 1 >= argc)
		return usage_error("missing COMMAND after '--'");
	o->command = argv + dd + 1;
	return -1;
}

/* ------------------------------------------------------------------ */
/* The plan. */

static int load_plan(const char *path, struct plan *plan, char **err)
{
	wchar_t *w = utf8_to_wide(path);
	LARGE_INTEGER size;
	uint8_t *buf;
	DWORD got;
	HANDLE h;
	char *e;
	int ret;

	if (!w) {
		*err = xasprintf("%s: not valid UTF-8", path);
		return -1;
	}
	h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING,
			FILE_ATTRIBUTE_NORMAL, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		e = win_strerror(GetLastError());
		*err = xasprintf("%s: %s", path, e);
		free(e);
		return -1;
	}
	if (!GetFileSizeEx(h, &size) || size.QuadPart < 0 ||
	    size.QuadPart > PLAN_MAX_FILE_BYTES) {
		CloseHandle(h);
		*err = xasprintf("%s: not a plan (cannot size it, or larger "
				 "than %u bytes)",
				 path, PLAN_MAX_FILE_BYTES);
		return -1;
	}
	buf = xmalloc((size_t)size.QuadPart + 1);
	if (!ReadFile(h, buf, (DWORD)size.QuadPart, &got, NULL) ||
	    got != (DWORD)size.QuadPart) {
		CloseHandle(h);
		free(buf);
		*err = xasprintf("%s: short read", path);
		return -1;
	}
	CloseHandle(h);
	ret = plan_decode(buf, got, plan, &e);
	free(buf);
	if (ret < 0) {
		*err = xasprintf("%s: %s", path, e);
		free(e);
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* The environment block. */

static int env_cmp(const void *a, const void *b)
{
	return _wcsicmp(*(wchar_t *const *)a, *(wchar_t *const *)b);
}

/* A CREATE_UNICODE_ENVIRONMENT block, sorted as windows wants it. */
static wchar_t *env_block(const struct env_list *env, char **err)
{
	wchar_t **w = xcalloc(env->n ? env->n : 1, sizeof(*w)), *blk, *p;
	size_t i, total = 2, n;

	for (i = 0; i < env->n; i++) {
		w[i] = utf8_to_wide(env->v[i]);
		if (!w[i]) {
			*err = xasprintf("-e or the environment: '%s' is not "
					 "valid UTF-8",
					 env->v[i]);
			while (i--)
				free(w[i]);
			free(w);
			return NULL;
		}
		total += wcslen(w[i]) + 1;
	}
	if (env->n)
		qsort(w, env->n, sizeof(*w), env_cmp);
	blk = p = xcalloc(total, sizeof(*blk));
	for (i = 0; i < env->n; i++) {
		n = wcslen(w[i]) + 1;
		memcpy(p, w[i], n * sizeof(*p));
		p += n;
		free(w[i]);
	}
	*p = L'\0';
	free(w);
	return blk;
}

static char **host_environ(void)
{
	wchar_t *blk = GetEnvironmentStringsW(), *p;
	size_t n = 0, i = 0;
	char **v;

	if (!blk)
		return xcalloc(1, sizeof(char *));
	for (p = blk; *p; p += wcslen(p) + 1)
		n++;
	v = xcalloc(n + 1, sizeof(*v));
	for (p = blk; *p; p += wcslen(p) + 1) {
		/* "=C:=C:\x": the per-drive directories, not variables. */
		if (*p == L'=')
			continue;
		v[i] = wide_to_utf8(p);
		if (v[i])
			i++;
	}
	FreeEnvironmentStringsW(blk);
	return v;
}

/* ------------------------------------------------------------------ */
/* Applying and revoking the plan. */

struct run {
	struct options *o;
	struct aclplan ap;
	struct state_ops ops;
	bool ops_ready;
	char *self;
	bool applied;
};

static char *default_state_dir(void)
{
	const wchar_t *app = _wgetenv(L"APPDATA");
	char *a, *d;

	if (!app || !*app)
		return NULL;
	a = wide_to_utf8(app);
	if (!a)
		return NULL;
	d = xasprintf("%s\\vbox\\sandbox", a);
	free(a);
	return d;
}

/* Undo what this run recorded; failures stay for the next run. */
static void revert(struct run *r)
{
	struct sstate s;
	char *err = NULL;
	size_t failed;

	if (!r->applied)
		return;
	r->applied = false;
	if (state_open(&r->ops, &s, &err) < 0) {
		host_warn("cannot revert this launch's ACEs now (%s): the next "
			  "launch will",
			  err);
		free(err);
		return;
	}
	failed = state_finish(&r->ops, &s, r->self);
	if (state_write(&r->ops, &s, &err) < 0) {
		host_warn("%s", err);
		free(err);
	}
	state_close(&r->ops, &s);
	vx_log("stage: revert done (%zu left for a later run)", failed);
}

/* 0, or EXIT_LAUNCHER after a message. */
static int apply(struct run *r)
{
	struct sstate s;
	char *err = NULL, *why = NULL, *dir;
	const struct wobj *obj;
	bool created, wrote;
	size_t i, failed;
	long gaps;
	int rc;

	dir = r->o->state_dir ? xstrdup(r->o->state_dir) : default_state_dir();
	if (!dir) {
		vx_error("no state directory: APPDATA is not set (give "
			 "--state-dir)");
		return EXIT_LAUNCHER;
	}
	rc = host_state_ops(dir, &r->ops, &err);
	free(dir);
	if (rc < 0) {
		vx_error("%s", err);
		free(err);
		return EXIT_LAUNCHER;
	}
	r->ops_ready = true;
	r->self = holder_self();
	if (state_open(&r->ops, &s, &err) < 0) {
		vx_error("%s", err);
		free(err);
		return EXIT_LAUNCHER;
	}
	/* The intent first: a launcher killed while applying is repaired. */
	state_records_for(&r->ap, r->self, &s);
	if (state_write(&r->ops, &s, &err) < 0) {
		vx_error("%s", err);
		free(err);
		state_close(&r->ops, &s);
		return EXIT_LAUNCHER;
	}
	r->applied = true;
	for (i = 0; i < r->ap.nobjs; i++) {
		obj = &r->ap.objs[i];
		rc = host_apply(obj, &created, &wrote, &why);
		/* Untouched: nothing there for a later run to revoke. */
		if (rc != 0 && !wrote)
			sstate_drop(&s, r->self, obj->path);
		if (created) {
			sstate_add(&s, r->self, obj->path, SREC_PLACEHOLDER,
				   NULL);
			vx_log("%s: placeholder made", obj->path);
		}
		if (rc == 0) {
			vx_log("%s: %zu ACEs merged (%s)", obj->path,
			       obj->naces, obj->rows);
			if (!wobj_walks(obj))
				continue;
			gaps = host_close_gaps(&r->ap, obj, &s, r->self, &why);
			if (gaps >= 0) {
				vx_log("%s: %ld objects below it given its ACEs "
				       "explicitly (protected DACLs, explicit "
				       "allows)",
				       obj->path, gaps);
				continue;
			}
		}
		if (rc == 1) {
			vx_log("%s: missing, skipped (%s)", obj->path,
			       obj->rows);
			continue;
		}
		if (rc != 0 && obj->role == WOBJ_WRITE_ROOT) {
			/* Narrows: the root stays read-only. */
			host_warn("%s: write-root unavailable in sandbox (%s)",
				  obj->path, why);
			free(why);
			why = NULL;
			continue;
		}
		vx_error("%s: cannot carry out %s: %s; a deny is never "
			 "downgraded, so COMMAND does not run",
			 obj->path, obj->rows, why);
		free(why);
		if (state_write(&r->ops, &s, &err) < 0) {
			host_warn("%s", err);
			free(err);
		}
		state_close(&r->ops, &s);
		revert(r);
		return EXIT_LAUNCHER;
	}
	failed = state_sweep(&r->ops, &s, r->self);
	if (state_write(&r->ops, &s, &err) < 0) {
		vx_error("%s", err);
		free(err);
		state_close(&r->ops, &s);
		revert(r);
		return EXIT_LAUNCHER;
	}
	state_close(&r->ops, &s);
	vx_log("stage: ACEs applied; earlier launches' leftovers revoked "
	       "(%zu kept for a later run)",
	       failed);
	return 0;
}

/* ------------------------------------------------------------------ */

static int run(struct options *o)
{
	struct run r = { .o = o };
	struct env_list env;
	struct plan plan;
	struct bbuf out;
	char *err = NULL, *line = NULL, **inherited;
	wchar_t *wline = NULL, *wenv = NULL, *wcwd = NULL;
	HANDLE token = NULL;
	int status = EXIT_LAUNCHER;

	if (load_plan(o->plan, &plan, &err) < 0) {
		vx_error("%s", err);
		free(err);
		return EXIT_LAUNCHER;
	}
	if (plan.target != TARGET_WINDOWS) {
		vx_error("%s: plan is for %s; this vbox-exec runs windows "
			 "plans",
			 o->plan, target_id_name(plan.target));
		goto out_plan;
	}
	if (aclplan_load(&plan, &r.ap, &err) < 0) {
		vx_error("%s: %s", o->plan, err);
		free(err);
		goto out_plan;
	}
	vx_log("plan loaded: %s (%zu file rows, %zu objects, writes default "
	       "to %s)",
	       o->plan, plan.nfs, r.ap.nobjs, r.ap.low ? "deny" : "rw");
	line = cmdline_quote(o->command, &err);
	if (!line) {
		vx_error("%s", err);
		free(err);
		goto out_ap;
	}
	if (o->dry_run) {
		bbuf_init_heap(&out, 64u << 20);
		aclplan_print(&r.ap, &out);
		bbuf_puts(&out, "command ");
		bbuf_puts(&out, line);
		bbuf_putc(&out, '\n');
		if (!bbuf_ok(&out)) {
			vx_error("the dry run's text passes 64 MiB");
		} else if (fwrite(out.s, 1, out.len, stdout) != out.len ||
			   fflush(stdout)) {
			vx_error("cannot write the dry run");
		} else {
			status = 0;
		}
		bbuf_free(&out);
		goto out_ap;
	}
	wline = utf8_to_wide(line);
	if (o->workdir) {
		DWORD attr;

		wcwd = utf8_to_wide(o->workdir);
		attr = wcwd ? GetFileAttributesW(wcwd) :
			      INVALID_FILE_ATTRIBUTES;
		if (attr == INVALID_FILE_ATTRIBUTES ||
		    !(attr & FILE_ATTRIBUTE_DIRECTORY)) {
			vx_error("-C %s: not a directory", o->workdir);
			goto out_ap;
		}
	}
	inherited = host_environ();
	if (env_build(inherited, o->sets, o->nsets, o->replace_env, &env,
		      &err) < 0) {
		env_vector_free(inherited);
		vx_error("%s", err);
		free(err);
		goto out_ap;
	}
	env_vector_free(inherited);
	wenv = env_block(&env, &err);
	env_list_free(&env);
	if (!wenv || !wline) {
		vx_error("%s", wenv ? "the command line is not valid UTF-8" :
				      err);
		free(err);
		goto out_ap;
	}
	token = make_token(&r.ap, &err);
	if (!token) {
		vx_error("%s", err);
		free(err);
		goto out_ap;
	}
	status = apply(&r);
	if (status)
		goto out_ap;
	status = run_child(r.o->command[0], r.o->timeout_ms, token, wline, wenv,
			   wcwd);
	revert(&r);
out_ap:
	if (token)
		CloseHandle(token);
	if (r.ops_ready)
		host_state_ops_free(&r.ops);
	free(r.self);
	free(wline);
	free(wenv);
	free(wcwd);
	free(line);
	aclplan_release(&r.ap);
out_plan:
	plan_release(&plan);
	return status;
}

int main(void)
{
	struct options o;
	wchar_t **wargv;
	char **argv;
	int argc, i, status;

	t_start = GetTickCount64();
	/* Our own messages are UTF-8; the child's output is its own. */
	wargv = CommandLineToArgvW(GetCommandLineW(), &argc);
	if (!wargv) {
		fputs("vbox-exec: cannot read the command line\n", stderr);
		return EXIT_LAUNCHER;
	}
	argv = xcalloc((size_t)argc + 1, sizeof(*argv));
	for (i = 0; i < argc; i++) {
		argv[i] = wide_to_utf8(wargv[i]);
		if (!argv[i]) {
			fputs("vbox-exec: an argument is not valid UTF-16\n",
			      stderr);
			return EXIT_LAUNCHER;
		}
	}
	LocalFree(wargv);
	memset(&o, 0, sizeof(o));
	o.sets = xcalloc((size_t)argc + 1, sizeof(*o.sets));
	status = parse_args(argc, argv, &o);
	if (status < 0)
		status = run(&o);
	free(o.sets);
	for (i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	fflush(stdout);
	fflush(stderr);
	/* The status whole: a windows exit code has 32 bits. */
	ExitProcess((UINT)status);
}
