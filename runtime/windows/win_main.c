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
#include "win_host.h"

#define TIMEOUT_MAX_S 1e7
#define MAX_SETS 4096
/* 128 + SIGINT, as on linux, when Ctrl-C ended the tree. */
#define EXIT_INTERRUPTED 130

static bool log_on;
static ULONGLONG t_start;
static HANDLE the_job;
static volatile LONG interrupted;

static void vx_vprint(const char *tag, const char *fmt, va_list ap)
{
	fprintf(stderr, "vbox-exec: %s", tag);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	fflush(stderr);
}

static void vx_error(const char *fmt, ...) __printf(1, 2);

static void vx_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vx_vprint("", fmt, ap);
	va_end(ap);
}

void host_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vx_vprint("warning: ", fmt, ap);
	va_end(ap);
}

static void vx_log(const char *fmt, ...) __printf(1, 2);

static void vx_log(const char *fmt, ...)
{
	va_list ap;

	if (!log_on)
		return;
	fprintf(stderr, "vbox-exec: [%9llu ms] ",
		(unsigned long long)(GetTickCount64() - t_start));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

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

/*
 * Wait for @h until @ms passed (0: for ever): WAIT_OBJECT_0,
 * WAIT_TIMEOUT or WAIT_FAILED.  One wait takes a DWORD of milliseconds,
 * INFINITE included, so a longer bound is waited for in slices.
 */
static DWORD wait_bounded(HANDLE h, ULONGLONG ms)
{
	ULONGLONG end = GetTickCount64() + ms, now;
	DWORD w;

	if (!ms)
		return WaitForSingleObject(h, INFINITE);
	for (;;) {
		now = GetTickCount64();
		if (now >= end)
			return WAIT_TIMEOUT;
		w = WaitForSingleObject(h, end - now > 0x7fffffff ?
						   0x7fffffff :
						   (DWORD)(end - now));
		if (w != WAIT_TIMEOUT)
			return w;
	}
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
/* The token. */

static void free_groups(TOKEN_GROUPS *g)
{
	free(g);
}

static void *token_info(HANDLE tok, TOKEN_INFORMATION_CLASS cls)
{
	DWORD len = 0;
	void *buf;

	GetTokenInformation(tok, cls, NULL, 0, &len);
	if (!len)
		return NULL;
	buf = xmalloc(len);
	if (!GetTokenInformation(tok, cls, buf, len, &len)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * The restricted token (doc/targets.md, "The token"): no privileges but
 * SeChangeNotify, restricting SIDs the capability SID, the user and
 * every enabled group (logon SID included), and under @default write
 * deny a low integrity level.
 */
static HANDLE make_token(const struct aclplan *ap, char **err)
{
	HANDLE tok = NULL, rtok = NULL;
	TOKEN_USER *user = NULL;
	TOKEN_GROUPS *groups = NULL;
	SID_AND_ATTRIBUTES *res = NULL;
	TOKEN_MANDATORY_LABEL tml;
	SID_IDENTIFIER_AUTHORITY ml = { SECURITY_MANDATORY_LABEL_AUTHORITY };
	BYTE lowbuf[SECURITY_MAX_SID_SIZE];
	PSID cap = capability_sid_new(ap->sub), low = (PSID)lowbuf;
	char *text, *e;
	DWORD i, n = 0;

	text = sid_text(cap);
	if (!text || strcmp(text, ap->sid)) {
		*err = xasprintf("the capability SID built (%s) is not the "
				 "plan's",
				 text ? text : "?");
		free(text);
		goto out;
	}
	vx_log("capability SID %s (9 sub-authorities, built in place)", text);
	free(text);
	if (!OpenProcessToken(GetCurrentProcess(),
			      TOKEN_DUPLICATE | TOKEN_QUERY |
				      TOKEN_ASSIGN_PRIMARY |
				      TOKEN_ADJUST_DEFAULT,
			      &tok)) {
		e = win_strerror(GetLastError());
		*err = xasprintf("cannot open the launcher's token: %s", e);
		free(e);
		goto out;
	}
	user = token_info(tok, TokenUser);
	groups = token_info(tok, TokenGroups);
	if (!user || !groups) {
		*err = xstrdup("cannot read the launcher's user and groups");
		goto out;
	}
	res = xcalloc(groups->GroupCount + 2, sizeof(*res));
	res[n++].Sid = cap;
	res[n++].Sid = user->User.Sid;
	for (i = 0; i < groups->GroupCount; i++) {
		DWORD a = groups->Groups[i].Attributes;

		if (!(a & SE_GROUP_ENABLED) || (a & SE_GROUP_INTEGRITY) ||
		    (a & SE_GROUP_USE_FOR_DENY_ONLY))
			continue;
		res[n++].Sid = groups->Groups[i].Sid;
	}
	if (!CreateRestrictedToken(tok, DISABLE_MAX_PRIVILEGE, 0, NULL, 0,
				   NULL, n, res, &rtok)) {
		e = win_strerror(GetLastError());
		*err = xasprintf("CreateRestrictedToken: %s", e);
		free(e);
		rtok = NULL;
		goto out;
	}
	vx_log("restricted token: DISABLE_MAX_PRIVILEGE, %lu restricting "
	       "SIDs",
	       (unsigned long)n);
	if (ap->low) {
		if (!InitializeSid(low, &ml, 1))
			BUG("InitializeSid refused the low level");
		*GetSidSubAuthority(low, 0) = SECURITY_MANDATORY_LOW_RID;
		tml.Label.Sid = low;
		tml.Label.Attributes = SE_GROUP_INTEGRITY;
		if (!SetTokenInformation(rtok, TokenIntegrityLevel, &tml,
					 sizeof(tml) + GetLengthSid(low))) {
			e = win_strerror(GetLastError());
			*err = xasprintf("cannot lower the token's integrity "
					 "level: %s",
					 e);
			free(e);
			CloseHandle(rtok);
			rtok = NULL;
			goto out;
		}
		vx_log("integrity level low");
	}
out:
	free(res);
	free(user);
	free_groups(groups);
	free(cap);
	if (tok)
		CloseHandle(tok);
	return rtok;
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
/* The child. */

/*
 * Ctrl-C, Ctrl-Break, the console closed: the whole tree ends, 130.  The
 * child is in a process group of its own (CREATE_NEW_PROCESS_GROUP), so
 * the console's Ctrl-C reaches only this handler, and the status does
 * not depend on whether the child or the handler is quicker.
 */
static BOOL WINAPI on_ctrl(DWORD type)
{
	(void)type;
	InterlockedExchange(&interrupted, 1);
	if (the_job)
		TerminateJobObject(the_job, EXIT_INTERRUPTED);
	return TRUE;
}

static int create_failed(const char *name)
{
	DWORD e = GetLastError();
	char *m = win_strerror(e);
	int rc;

	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
		rc = EXIT_NOT_FOUND;
		break;
	case ERROR_ACCESS_DENIED:
	case ERROR_BAD_EXE_FORMAT:
	case ERROR_EXE_MACHINE_TYPE_MISMATCH:
		rc = EXIT_NOT_EXECUTABLE;
		break;
	default:
		rc = EXIT_LAUNCHER;
		break;
	}
	vx_error("%s: %s", name, m);
	free(m);
	return rc;
}

/* The handles the child inherits: its standard ones, and nothing else. */
static size_t std_handles(HANDLE out[3])
{
	static const DWORD which[3] = { STD_INPUT_HANDLE, STD_OUTPUT_HANDLE,
					STD_ERROR_HANDLE };
	size_t i, n = 0;
	HANDLE h, d;

	for (i = 0; i < 3; i++) {
		h = GetStdHandle(which[i]);
		out[i] = NULL;
		if (!h || h == INVALID_HANDLE_VALUE)
			continue;
		if (!DuplicateHandle(GetCurrentProcess(), h,
				     GetCurrentProcess(), &d, 0, TRUE,
				     DUPLICATE_SAME_ACCESS))
			continue;
		out[i] = d;
	}
	/* Each is a duplicate of its own: the list never names one twice. */
	for (i = 0; i < 3; i++)
		n += out[i] != NULL;
	return n;
}

static int run_child(struct run *r, HANDLE token, const wchar_t *cmdline,
		     wchar_t *env, const wchar_t *cwd)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim;
	STARTUPINFOEXW si;
	PROCESS_INFORMATION pi;
	HANDLE inherit[3], list[3];
	SIZE_T attr_size = 0;
	DWORD wait, code = EXIT_LAUNCHER;
	size_t i, nlist = 0;
	char *e;
	int rc = EXIT_LAUNCHER;

	the_job = CreateJobObjectW(NULL, NULL);
	if (!the_job) {
		e = win_strerror(GetLastError());
		vx_error("cannot create the job object: %s", e);
		free(e);
		return EXIT_LAUNCHER;
	}
	memset(&lim, 0, sizeof(lim));
	lim.BasicLimitInformation.LimitFlags =
		JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE |
		JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
	if (!SetInformationJobObject(the_job, JobObjectExtendedLimitInformation,
				     &lim, sizeof(lim))) {
		e = win_strerror(GetLastError());
		vx_error("cannot set the job's kill-on-close limit: %s", e);
		free(e);
		goto out_job;
	}
	SetConsoleCtrlHandler(on_ctrl, TRUE);

	std_handles(inherit);
	memset(&si, 0, sizeof(si));
	si.StartupInfo.cb = sizeof(si);
	si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	si.StartupInfo.hStdInput = inherit[0];
	si.StartupInfo.hStdOutput = inherit[1];
	si.StartupInfo.hStdError = inherit[2];
	for (i = 0; i < 3; i++)
		if (inherit[i])
			list[nlist++] = inherit[i];
	InitializeProcThreadAttributeList(NULL, 1, 0, &attr_size);
	si.lpAttributeList = xzalloc(attr_size);
	if (!InitializeProcThreadAttributeList(si.lpAttributeList, 1, 0,
					       &attr_size) ||
	    (nlist && !UpdateProcThreadAttribute(
			      si.lpAttributeList, 0,
			      PROC_THREAD_ATTRIBUTE_HANDLE_LIST, list,
			      nlist * sizeof(HANDLE), NULL, NULL))) {
		e = win_strerror(GetLastError());
		vx_error("cannot build the handle list: %s", e);
		free(e);
		goto out_attr;
	}
	vx_log("handle list: %zu standard handles", nlist);
	if (!CreateProcessAsUserW(token, NULL, (wchar_t *)cmdline, NULL, NULL,
				  nlist > 0,
				  CREATE_SUSPENDED |
					  EXTENDED_STARTUPINFO_PRESENT |
					  CREATE_UNICODE_ENVIRONMENT |
					  CREATE_NEW_PROCESS_GROUP,
				  env, cwd, &si.StartupInfo, &pi)) {
		rc = create_failed(r->o->command[0]);
		goto out_list;
	}
	if (!AssignProcessToJobObject(the_job, pi.hProcess)) {
		e = win_strerror(GetLastError());
		vx_error("cannot put the command into its job: %s", e);
		free(e);
		TerminateProcess(pi.hProcess, EXIT_LAUNCHER);
		goto out_proc;
	}
	if (ResumeThread(pi.hThread) == (DWORD)-1) {
		e = win_strerror(GetLastError());
		vx_error("cannot resume the command: %s", e);
		free(e);
		TerminateJobObject(the_job, EXIT_LAUNCHER);
		goto out_proc;
	}
	vx_log("stage: command started (pid %lu)",
	       (unsigned long)pi.dwProcessId);
	wait = wait_bounded(pi.hProcess, r->o->timeout_ms);
	if (wait == WAIT_TIMEOUT) {
		TerminateJobObject(the_job, EXIT_TIMEOUT);
		WaitForSingleObject(pi.hProcess, INFINITE);
		vx_error("timed out after %g s (--timeout): the command's "
			 "whole process tree was ended; exit status 124",
			 (double)r->o->timeout_ms / 1e3);
		rc = EXIT_TIMEOUT;
		goto out_proc;
	}
	if (wait != WAIT_OBJECT_0 || !GetExitCodeProcess(pi.hProcess, &code)) {
		e = win_strerror(GetLastError());
		vx_error("cannot wait for the command: %s", e);
		free(e);
		TerminateJobObject(the_job, EXIT_LAUNCHER);
		goto out_proc;
	}
	/* The command is done: what it left running ends with it. */
	TerminateJobObject(the_job, code);
	rc = interrupted ? EXIT_INTERRUPTED : (int)code;
	vx_log("stage: command exited with status %lu", (unsigned long)code);
out_proc:
	CloseHandle(pi.hThread);
	CloseHandle(pi.hProcess);
out_list:
	DeleteProcThreadAttributeList(si.lpAttributeList);
out_attr:
	free(si.lpAttributeList);
	for (i = 0; i < 3; i++)
		if (inherit[i])
			CloseHandle(inherit[i]);
out_job:
	return rc;
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
	status = run_child(&r, token, wline, wenv, wcwd);
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
