/* SPDX-License-Identifier: MIT */
/*
 * vbox_exec.c - vbox-exec [OPTIONS] PLAN -- COMMAND [ARG...]
 * (doc/launcher.md).
 *
 * Owned here: the command line (one option table, from which both the
 * parser's tables and --help are made, so they cannot drift), loading
 * the plan with the plan library, refusing a plan for another platform,
 * the working directory, --log's output, and handing over to the
 * platform's launch_run().  Every failure before the command starts
 * exits 125 with a message naming the cause: vbox-exec never runs the
 * command outside the sandbox.
 */
#include <vbox.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "exit_codes.h"
#include "ir.h"
#include "launch.h"
#include "plan.h"
#include "process.h"

extern char **environ;

bool vx_log_enabled;
bool vx_quiet;
static double t_start;

/* --timeout beyond this is a typo, not a plan (about 115 days). */
#define TIMEOUT_MAX_S 1e7
/* -e options accepted; more is certainly a mistake. */
#define MAX_SETS 4096

void vx_log(const char *fmt, ...)
{
	va_list ap;

	if (!vx_log_enabled)
		return;
	fprintf(stderr, "vbox-exec: [%9.3f ms] ", proc_now_ms() - t_start);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

double vx_log_origin(void)
{
	return t_start;
}

void vx_error(const char *fmt, ...)
{
	va_list ap;

	fputs("vbox-exec: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

void vx_timed_out(double timeout_ms)
{
	vx_error("timed out after %g s (--timeout): the command's whole "
		 "process tree was ended; exit status 124", timeout_ms / 1000);
}

char *shell_quote(const char *s)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				   "_-+=/.,:@%";
	size_t n = 2, i;
	char *out, *p;

	if (*s && strspn(s, safe) == strlen(s))
		return xstrdup(s);
	for (i = 0; s[i]; i++)
		n += s[i] == '\'' ? 4 : 1;
	out = p = xmalloc(n + 1);
	*p++ = '\'';
	for (i = 0; s[i]; i++) {
		if (s[i] == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = s[i];
		}
	}
	*p++ = '\'';
	*p = '\0';
	return out;
}

enum {
	OPT_REPLACE_ENV = 256,
	OPT_TIMEOUT,
	OPT_LOG,
	OPT_QUIET,
	OPT_DRY_RUN,
	OPT_BWRAP,
	OPT_MODE,
	OPT_ACCEPT_NARROWER,
	OPT_ACCEPT_UNSCOPED,
	OPT_HELP,
	OPT_VERSION,
};

/**
 * struct opt_spec - one option, for the parser and for --help
 * @name: the long name
 * @val: the short letter, or an OPT_* value
 * @arg: the value's name in --help, NULL for none
 * @help: one line for --help
 */
struct opt_spec {
	const char *name;
	int val;
	const char *arg;
	const char *help;
};

static const struct opt_spec opt_specs[] = {
	{ "workdir", 'C', "DIR", "working directory (grants nothing)" },
	{ "env", 'e', "NAME=VALUE",
	  "set a variable (repeatable); -e NAME: the host's value" },
	{ "replace-env", OPT_REPLACE_ENV, NULL,
	  "the environment is exactly the -e variables" },
	{ "timeout", OPT_TIMEOUT, "SECONDS",
	  "end the whole process tree after this long" },
	{ "log", OPT_LOG, NULL, "stage timings and warnings to stderr" },
	{ "quiet", OPT_QUIET, NULL,
	  "no 'vbox:' notices of denials, no hint on failure" },
	{ "dry-run", OPT_DRY_RUN, NULL,
	  "print the sandbox command line and exit" },
	{ "bwrap", OPT_BWRAP, "PATH",
	  "run this bubblewrap (absolute) instead of the built-in one" },
	{ "mode", OPT_MODE, "ns|container|auto",
	  "linux: namespaces, none, or none where they fail" },
	{ "accept-narrower", OPT_ACCEPT_NARROWER, NULL,
	  "container mode: run deny rows and holes held narrower" },
	{ "accept-unscoped-signals", OPT_ACCEPT_UNSCOPED, NULL,
	  "container mode, Landlock below ABI 6: signals not scoped" },
	{ "help", OPT_HELP, NULL, "show this help and exit" },
	{ "version", OPT_VERSION, NULL, "show the version and exit" },
};

static const char usage_head[] =
	"Usage: vbox-exec [OPTIONS] PLAN -- COMMAND [ARG...]\n"
	"Run COMMAND under the sandbox plan PLAN (vboxc compile --emit=plan).\n"
	"\n";

static const char usage_tail[] =
	"\n"
	"Options go before '--'.  The inherited environment loses variables\n"
	"whose names look like secrets (TOKEN, SECRET, PASSWORD, PASSWD,\n"
	"CREDENTIAL, API_KEY, PRIVATE_KEY, ACCESS_KEY, SESSION, COOKIE, AUTH)\n"
	"and every *_PROXY variable, unless given again with -e.\n"
	"\n"
	"Exit status: COMMAND's status; 128+N when it died of signal N; 124\n"
	"on timeout; 125 when vbox-exec failed and COMMAND did not run; 126\n"
	"COMMAND not executable; 127 COMMAND not found.\n";

static bool is_short(int val)
{
	return val > 0 && val < 256;
}

static int print_help(void)
{
	char left[64];
	size_t i;

	fputs(usage_head, stdout);
	for (i = 0; i < array_size(opt_specs); i++) {
		const struct opt_spec *o = &opt_specs[i];

		snprintf(left, sizeof(left), "%c%c%s --%s%s%s",
			 is_short(o->val) ? '-' : ' ',
			 is_short(o->val) ? o->val : ' ',
			 is_short(o->val) ? "," : " ", o->name,
			 o->arg ? "=" : "", o->arg ? o->arg : "");
		/* A long option gets its line to itself, the help below. */
		if (strlen(left) > 22)
			printf("  %s\n  %-23s%s\n", left, "", o->help);
		else
			printf("  %-23s%s\n", left, o->help);
	}
	fputs(usage_tail, stdout);
	return fflush(stdout) == 0 ? 0 : EXIT_LAUNCHER;
}

/* getopt_long()'s tables, made from opt_specs. */
static void make_getopt(struct option *longs, char *shorts)
{
	size_t i, k = 0;

	shorts[k++] = ':';
	for (i = 0; i < array_size(opt_specs); i++) {
		const struct opt_spec *o = &opt_specs[i];

		longs[i].name = o->name;
		longs[i].has_arg = o->arg ? required_argument : no_argument;
		longs[i].flag = NULL;
		longs[i].val = o->val;
		if (is_short(o->val)) {
			shorts[k++] = (char)o->val;
			if (o->arg)
				shorts[k++] = ':';
		}
	}
	memset(&longs[i], 0, sizeof(longs[i]));
	shorts[k] = '\0';
}

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

/**
 * struct options - the parsed command line
 * @plan: PLAN
 * @command: COMMAND [ARG...] (points into argv)
 * @workdir: -C, or NULL
 * @sets: -e values in order (point into argv), @nsets of them
 * @replace_env: --replace-env
 * @timeout_ms: --timeout in milliseconds, 0 for none
 * @dry_run: --dry-run
 * @bwrap: --bwrap, or NULL
 * @mode: --mode (enum launch_mode)
 * @accept_narrower, @accept_unscoped: --accept-narrower,
 *                                     --accept-unscoped-signals
 */
struct options {
	const char *plan;
	char **command;
	const char *workdir;
	const char **sets;
	size_t nsets;
	bool replace_env;
	double timeout_ms;
	bool dry_run;
	const char *bwrap;
	int mode;
	bool accept_narrower;
	bool accept_unscoped;
};

static int parse_timeout(const char *s, double *ms)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 ||
	    v > TIMEOUT_MAX_S)
		return -1;
	*ms = v * 1e3;
	return 0;
}

/*
 * Returns -1 to go on, or the exit status (0 for --help/--version, 125
 * for a usage error).
 */
static int parse_args(int argc, char **argv, struct options *o)
{
	struct option longs[array_size(opt_specs) + 1];
	char shorts[2 * array_size(opt_specs) + 2];
	char *err = NULL;
	int dd, c;

	make_getopt(longs, shorts);
	/* Options are only looked for before the first "--". */
	for (dd = 1; dd < argc && strcmp(argv[dd], "--") != 0; dd++)
		;
	opterr = 0;
	while ((c = getopt_long(dd, argv, shorts, longs, NULL)) != -1) {
		switch (c) {
		case 'C':
			o->workdir = optarg;
			break;
		case 'e':
			if (env_check_assignment(optarg, &err) < 0) {
				c = usage_error("%s", err);
				free(err);
				return c;
			}
			if (o->nsets >= MAX_SETS)
				return usage_error("more than %d -e options",
						   MAX_SETS);
			o->sets[o->nsets++] = optarg;
			break;
		case OPT_REPLACE_ENV:
			o->replace_env = true;
			break;
		case OPT_TIMEOUT:
			if (parse_timeout(optarg, &o->timeout_ms) < 0)
				return usage_error(
					"invalid --timeout '%s': expected "
					"seconds, more than 0 and at most %.0f",
					optarg, TIMEOUT_MAX_S);
			break;
		case OPT_LOG:
			vx_log_enabled = true;
			break;
		case OPT_QUIET:
			vx_quiet = true;
			break;
		case OPT_BWRAP:
			o->bwrap = optarg;
			break;
		case OPT_DRY_RUN:
			o->dry_run = true;
			break;
		case OPT_MODE:
			if (strcmp(optarg, "ns") == 0)
				o->mode = LAUNCH_NS;
			else if (strcmp(optarg, "container") == 0)
				o->mode = LAUNCH_CONTAINER;
			else if (strcmp(optarg, "auto") == 0)
				o->mode = LAUNCH_AUTO;
			else
				return usage_error("invalid --mode '%s': "
						   "expected ns, container or "
						   "auto", optarg);
			break;
		case OPT_ACCEPT_NARROWER:
			o->accept_narrower = true;
			break;
		case OPT_ACCEPT_UNSCOPED:
			o->accept_unscoped = true;
			break;
		case OPT_HELP:
			return print_help();
		case OPT_VERSION:
			printf("vbox-exec (%s) %s\n", PACKAGE_NAME,
			       PACKAGE_VERSION);
			return fflush(stdout) == 0 ? 0 : EXIT_LAUNCHER;
		case ':':
			return usage_error("option '%s' needs a value",
					   argv[optind - 1]);
		case '?':
			if (optopt)
				return usage_error("unknown option '-%c'",
						   optopt);
			return usage_error("unknown option '%s'",
					   argv[optind - 1]);
		default:
			BUG("getopt_long returned %d", c);
		}
	}
	if (optind >= dd)
		return usage_error("missing PLAN");
	if (optind + 1 < dd)
		return usage_error("unexpected argument '%s' (COMMAND goes "
				   "after '--')", argv[optind + 1]);
	o->plan = argv[optind];
	if (dd >= argc)
		return usage_error("missing '--' before COMMAND");
	if (dd + 1 >= argc)
		return usage_error("missing COMMAND after '--'");
	o->command = argv + dd + 1;
	return -1;
}

/* The row as the user wrote it: "!!ro:/srv/x". */
static char *row_label(const struct plan_row *r)
{
	char bangs[256];

	memset(bangs, '!', r->level);
	bangs[r->level] = '\0';
	return xasprintf("%s%s:%s", bangs, effect_name(r->effect), r->target);
}

static void log_plan(const char *path, const struct plan *p)
{
	const struct plan_row *rows, *row, *by;
	char *a, *b;
	size_t i, n;

	vx_log("plan loaded: %s (%s, %zu file rows, %zu network rows, "
	       "writes default to %s, network %s)", path,
	       target_id_name(p->target), p->nfs, p->nnet,
	       p->default_write == EFFECT_RW ? "rw" : "deny",
	       p->default_net == EFFECT_DENY ? "deny" : "open");
	for (i = 0; i < p->nfindings; i++) {
		const struct plan_finding *f = &p->findings[i];

		rows = f->domain == DOMAIN_FS ? p->fs : p->net;
		n = f->domain == DOMAIN_FS ? p->nfs : p->nnet;
		/* plan_decode() checked both indexes against n. */
		if (f->row >= n || f->by >= n)
			BUG("finding outside its table");
		row = &rows[f->row];
		by = &rows[f->by];
		a = row_label(row);
		b = row_label(by);
		vx_log("%s: warning: %s row %u '%s' is %s: row %u '%s' (%s) "
		       "decides first", row->source, domain_name(f->domain),
		       f->row, a, finding_kind_name(f->kind), f->by, b,
		       by->source);
		free(a);
		free(b);
	}
}

/* An absolute spelling of @dir, checked to be a directory. */
static char *check_workdir(const char *dir)
{
	struct stat st;
	char *cwd, *abs;

	if (!dir) {
		cwd = getcwd(NULL, 0);
		if (!cwd) {
			vx_error("cannot determine the current directory: %s",
				 strerror(errno));
			return NULL;
		}
		abs = xstrdup(cwd);
		free(cwd);
		return abs;
	}
	if (stat(dir, &st) < 0) {
		vx_error("-C %s: %s", dir, strerror(errno));
		return NULL;
	}
	if (!S_ISDIR(st.st_mode)) {
		vx_error("-C %s: %s", dir, strerror(ENOTDIR));
		return NULL;
	}
	if (dir[0] == '/')
		return xstrdup(dir);
	cwd = getcwd(NULL, 0);
	if (!cwd) {
		vx_error("cannot determine the current directory: %s",
			 strerror(errno));
		return NULL;
	}
	abs = xasprintf("%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", dir);
	free(cwd);
	return abs;
}

/* The step that makes a plan this vbox-exec reads, for its errors. */
static char *recompile_step(const char *plan)
{
	char *q = shell_quote(plan);
	char *step = xasprintf("recompile it with this build's vboxc: vboxc "
			       "compile --target=%s --emit=plan RULES -o %s",
			       target_id_name(launch_platform()), q);

	free(q);
	return step;
}

/*
 * hint_files - after a command that failed (@status): on Linux the
 * kernel refuses files (mounts, Landlock, seccomp) without telling
 * vbox-exec which, so no row can be named honestly; one line says how
 * to ask, as a command to paste: vboxc explain answers from the plan
 * @plan itself, named by its absolute path (quoted for the shell) so
 * the command works from any directory.  Network denials have their
 * notices from the proxy.
 */
static void hint_files(int status, const char *plan)
{
	char *real, *q;
	struct stat st;
	bool from_pipe;
	/* ended from outside (^C, a hangup, a closed pipe, kill): no file
	 * refusal explains those */
	static const int outside[] = { SIGHUP, SIGINT, SIGPIPE, SIGTERM };
	size_t i;

	if (vx_quiet || status == 0 || status == EXIT_TIMEOUT ||
	    status == EXIT_LAUNCHER || status == EXIT_NOT_EXECUTABLE ||
	    status == EXIT_NOT_FOUND)
		return;
	for (i = 0; i < array_size(outside); i++)
		if (status == 128 + outside[i])
			return;
	real = realpath(plan, NULL);
	q = shell_quote(real ? real : plan);
	/*
	 * A plan read from a pipe (/dev/stdin of `cmd | vbox-exec
	 * /dev/stdin`) is gone: naming that path would be a command that
	 * answers nothing, so the hint asks for the plan's file instead.
	 */
	from_pipe = !real || stat(real, &st) < 0 || !S_ISREG(st.st_mode);
	fprintf(stderr, "vbox: exit status %d; if a file was refused "
		"(\"Permission denied\", \"Read-only file system\", \"No "
		"such file or directory\", \"Device or resource busy\"), "
		"this names the deciding row: vboxc explain %s "
		"--read=PATH (or --write=PATH)%s%s%s\n", status,
		from_pipe ? "PLAN" : q,
		from_pipe ? ", with PLAN the plan's file (" : "",
		from_pipe ? q : "",
		from_pipe ? " is not one: the plan came from a pipe)" : "");
	fflush(stderr);
	free(q);
	free(real);
}

static int run(struct options *o)
{
	struct launch_request req;
	struct env_list env;
	struct plan plan;
	char *err = NULL, *workdir;
	int status = EXIT_LAUNCHER;
	double t0;

	t0 = proc_now_ms();
	if (plan_load(o->plan, &plan, &err) < 0) {
		/* a plan it can open but not use: say how to make one */
		char *step = access(o->plan, R_OK) == 0 &&
				     !strstr(err, "vboxc compile") ?
				     recompile_step(o->plan) : NULL;

		vx_error("%s%s%s", err, step ? "; " : "", step ? step : "");
		free(step);
		free(err);
		return EXIT_LAUNCHER;
	}
	if ((int)plan.target != launch_platform()) {
		char *step = recompile_step(o->plan);

		vx_error("%s: plan is for %s; this vbox-exec runs %s plans; %s",
			 o->plan, target_id_name(plan.target),
			 target_id_name(launch_platform()), step);
		free(step);
		goto out_plan;
	}
	log_plan(o->plan, &plan);
	vx_log("stage: plan load took %.3f ms", proc_now_ms() - t0);

	workdir = check_workdir(o->workdir);
	if (!workdir)
		goto out_plan;
	if (env_build(environ, o->sets, o->nsets, o->replace_env, &env,
		      &err) < 0) {
		vx_error("%s", err);
		free(err);
		goto out_workdir;
	}

	memset(&req, 0, sizeof(req));
	req.plan_path = o->plan;
	req.plan = &plan;
	req.command = o->command;
	req.env = &env;
	/*
	 * PWD: an explicit -e PWD=... wins; --replace-env means none;
	 * otherwise the runner sets it to the working directory (the
	 * inherited value names the launcher's directory, not the child's).
	 */
	for (size_t i = 0; i < o->nsets; i++)
		if (strncmp(o->sets[i], "PWD=", 4) == 0)
			req.pwd = o->sets[i] + 4;
	req.unset_pwd = !req.pwd && o->replace_env;
	req.workdir = workdir;
	req.timeout_ms = o->timeout_ms;
	req.bwrap = o->bwrap;
	req.mode = o->mode;
	req.accept_narrower = o->accept_narrower;
	req.accept_unscoped_signals = o->accept_unscoped;
	req.dry_run = o->dry_run;
	status = launch_run(&req);
	if (!o->dry_run)
		hint_files(status, o->plan);

	env_list_free(&env);
out_workdir:
	free(workdir);
out_plan:
	plan_release(&plan);
	return status;
}

int main(int argc, char **argv)
{
	struct options o;
	int status;

#ifdef __APPLE__
	/* The darwin shim runs inside the sandbox (runtime/darwin/). */
	if (argc > 1 && strcmp(argv[1], "--internal-shim") == 0)
		return shim_main(argc, argv);
#endif

	t_start = proc_now_ms();
	memset(&o, 0, sizeof(o));
	o.sets = xcalloc(argc > 0 ? (size_t)argc : 1, sizeof(*o.sets));
	status = parse_args(argc, argv, &o);
	if (status < 0)
		status = run(&o);
	free(o.sets);
	return status;
}
