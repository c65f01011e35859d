/* SPDX-License-Identifier: MIT */
/*
 * bwrap.c - which bubblewrap, what it knows, what it is given
 * (bwrap.h).
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bwrap.h"
#include "env.h"
#include "launch.h"
#include "linux_artifact.h"
#include "nsprobe.h"
#include "process.h"
#include "sandbox.h"
#include "strbuf.h"
#include "wire.h"

#ifndef BWRAP_PATH
#define BWRAP_PATH "/usr/bin/bwrap"
#endif
#ifndef VBOX_INIT_PATH
#error "VBOX_INIT_PATH must name the installed vbox-init"
#endif

static bool is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/*
 * The bubblewrap to run: @explicit (--bwrap=PATH) when given, else the
 * path configure found (BWRAP_PATH).  Never an ambient variable or PATH:
 * the walls rely on what bubblewrap does, so which one runs is decided by
 * whoever built or explicitly runs vbox-exec (doc/launcher.md).
 */
char *bwrap_find(const char *explicit, char **err)
{
	if (explicit) {
		if (explicit[0] == '/' && is_executable_file(explicit))
			return xstrdup(explicit);
		*err = xasprintf("bubblewrap not found: --bwrap=%s is not an "
				 "executable file given by absolute path",
				 explicit);
		return NULL;
	}
	if (is_executable_file(BWRAP_PATH))
		return xstrdup(BWRAP_PATH);
	*err = xasprintf("bubblewrap not found: not at %s (the path "
			 "configure found; --bwrap=PATH names another); "
			 "install bubblewrap", BWRAP_PATH);
	return NULL;
}

static bool bwrap_probe(const char *bwrap, const char *opt);

bool bwrap_knows(const char *bwrap, const char *opt)
{
#ifdef BWRAP_KNOWS_DISABLE_USERNS
	/* configure asked this very binary (see configure.ac). */
	if (strcmp(opt, "--disable-userns") == 0 &&
	    strcmp(bwrap, BWRAP_PATH) == 0)
		return true;
#endif
	return bwrap_probe(bwrap, opt);
}

/*
 * Does the bubblewrap binary know @opt?  Its option names are string
 * literals in the binary; reading it is far cheaper than running
 * "bwrap --help" on every launch.
 */
static bool bwrap_probe(const char *bwrap, const char *opt)
{
	size_t olen = strlen(opt), have = 0, total = 0;
	char buf[65536];
	bool found = false;
	ssize_t n;
	int fd;

	fd = open(bwrap, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* bubblewrap is about 100 KiB; a 64 MiB cap bounds the read. */
	while (!found && total < (64u << 20)) {
		n = read(fd, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (size_t)n;
		have += (size_t)n;
		found = memmem(buf, have, opt, olen) != NULL;
		/* Keep a tail so a match across reads is seen. */
		if (have >= olen) {
			memmove(buf, buf + have - (olen - 1), olen - 1);
			have = olen - 1;
		}
	}
	close(fd);
	return found;
}

/*
 * The checks that user namespaces can work, before anything is started.
 * A setuid bubblewrap does not need them.  The probe (nsprobe.h) forks,
 * so it runs up front only where something here can refuse them; after
 * a failed start bwrap_diagnose_userns() runs it in any case.
 */
int bwrap_check_userns(const char *bwrap, char **err)
{
	struct stat st;

	/* bubblewrap would fail with "No space left on device". */
	if (ns_inside_vbox()) {
		*err = xstrdup("already inside a vbox sandbox: nested "
			       "sandboxes are not allowed");
		return -1;
	}

	if (stat(bwrap, &st) == 0 && (st.st_mode & S_ISUID) && st.st_uid == 0)
		return 0;
	if (ns_suspect() && ns_probe_message(err) < 0)
		return -1;
	return 0;
}

/* After bubblewrap failed: was it because user namespaces do not work? */
void bwrap_diagnose_userns(void)
{
	char *msg;

	if (ns_probe_message(&msg) == 0)
		return;
	vx_error("%s", msg);
	free(msg);
}

/* Is this the build tree's vbox-exec (init_path())? */
bool launcher_in_build_tree(void)
{
#ifdef VBOX_BUILD_EXE_PATH
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		return strcmp(self, VBOX_BUILD_EXE_PATH) == 0;
	}
#endif
	return false;
}

const char *init_path(void)
{
#ifdef VBOX_BUILD_INIT_PATH
	if (launcher_in_build_tree())
		return VBOX_BUILD_INIT_PATH;
#endif
	return VBOX_INIT_PATH;
}

const char *proxy_path(void)
{
#ifdef VBOX_BUILD_PROXY_PATH
	if (launcher_in_build_tree())
		return VBOX_BUILD_PROXY_PATH;
#endif
	return VBOX_PROXY_PATH;
}

/* The init's part of the command line, from "--" on. */
static void init_args(const struct launch_request *req, bool channel,
		      char **v, size_t *k)
{
	size_t i;

	v[(*k)++] = xstrdup("--");
	v[(*k)++] = xasprintf("/proc/self/fd/%d", 3 + BWRAP_FD_INIT);
	if (channel)
		v[(*k)++] = xasprintf("--channel=%d", 3 + BWRAP_FD_CHANNEL);
	v[(*k)++] = xstrdup("--");
	for (i = 0; req->command[i]; i++)
		v[(*k)++] = xstrdup(req->command[i]);
}

static size_t count_command(const struct launch_request *req)
{
	size_t n = 0;

	while (req->command[n])
		n++;
	return n;
}

char **bwrap_argv(const char *bwrap, const struct launch_request *req)
{
	char **v = xcalloc(count_command(req) + 12, sizeof(*v));
	size_t k = 0;

	v[k++] = xstrdup(bwrap);
	v[k++] = xstrdup("--args");
	v[k++] = xasprintf("%d", 3 + BWRAP_FD_ARGS);
	init_args(req, true, v, &k);
	v[k] = NULL;
	return v;
}

void bwrap_argv_free(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static void sb_word(struct strbuf *b, const char *w)
{
	char *q = shell_quote(w);

	if (b->len)
		strbuf_add(b, " ", 1);
	strbuf_add(b, q, strlen(q));
	free(q);
}

int bwrap_print_dry_run(const struct launch_request *req, const char *bwrap,
			const struct sandbox *sa)
{
	struct strbuf b = { 0 };
	struct wbuf args = { 0 };
	char **init, *q;
	size_t ninit = 0, i, start;
	int ret = 0;

	/* Missing writable roots the table lets be created: kept after. */
	if (sa->ncreates) {
		strbuf_add(&b, "(umask 077 && mkdir -p --", 25);
		for (i = 0; i < sa->ncreates; i++)
			sb_word(&b, sa->creates[i]);
		strbuf_add(&b, ") &&", 4);
	}
	if (sa->nplaceholders) {
		sb_word(&b, "mkdir");
		sb_word(&b, "-m");
		strbuf_add(&b, " 0700 --", 8);
		for (i = 0; i < sa->nplaceholders; i++)
			sb_word(&b, sa->placeholders[i]);
		strbuf_add(&b, " && {", 5);
	}
	sb_word(&b, "env");
	sb_word(&b, "-i");
	sb_word(&b, "--");
	for (i = 0; i < req->env->n; i++)
		sb_word(&b, req->env->v[i]);
	sb_word(&b, bwrap);
	lx_render(&sa->lx, &args);
	for (start = i = 0; i < args.len; i++) {
		if (args.p[i])
			continue;
		sb_word(&b, (const char *)args.p + start);
		start = i + 1;
	}
	wbuf_release(&args);
	init = xcalloc(count_command(req) + 8, sizeof(*init));
	init_args(req, false, init, &ninit);
	for (i = 0; i < ninit; i++) {
		sb_word(&b, init[i]);
		free(init[i]);
	}
	free(init);
	q = shell_quote(init_path());
	strbuf_add(&b, " 3<", 3);
	strbuf_add(&b, q, strlen(q));
	free(q);
	if (sa->nplaceholders) {
		strbuf_add(&b, "; s=$?; rmdir --", 16);
		for (i = sa->nplaceholders; i-- > 0;)
			sb_word(&b, sa->placeholders[i]);
		strbuf_add(&b, "; (exit \"$s\"); }", 16);
	}
	if (printf("%s\n", b.s) < 0 || fflush(stdout) != 0) {
		vx_error("cannot write the command line: %s", strerror(errno));
		ret = EXIT_LAUNCHER;
	}
	/* doc/launcher.md, "--dry-run": never a wider sandbox unsaid. */
	fprintf(stderr, "vbox-exec: note: the printed line carries no walls "
		"(no seccomp, Landlock or socket supervisor): it runs a wider "
		"sandbox than the launch\n");
	free(b.s);
	return ret;
}

void bwrap_args_render(const struct sandbox *sa, struct wbuf *out)
{
	/* The one place the sandbox becomes bubblewrap's arguments. */
	lx_render(&sa->lx, out);
}

int bwrap_args_write(int fd, const struct wbuf *args, char **err)
{
	const uint8_t *p = args->p;
	size_t len = args->len;

	while (len > 0) {
		/* No SIGPIPE: a bubblewrap that died is reported as such. */
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*err = xasprintf("cannot hand bubblewrap its "
					 "arguments: %s",
					 n < 0 ? strerror(errno) : "short");
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
