/* SPDX-License-Identifier: MIT */
/*
 * fspath.c - compiling file patterns (expansion, windows drive forms,
 * guardrails; doc/rules.md §5) and resolving queried paths' symbolic
 * links.  The lexical cleaning both share is fsclean.c, which vbox-exec
 * links too.
 *
 * A pattern is built with four allocations (segment text, segment array,
 * display text, key); all the work before that happens in fixed buffers
 * on the stack, since tables with 100,000 rows must compile quickly.
 */
#include <vbox.h>

#include <errno.h>
#include <limits.h>

#include "diag.h"
#include "fsclean.h"
#include "fspath.h"
#include "target.h"
#include "vars.h"

/*
 * The expanded text in parentheses when it differs from what was written,
 * so messages show both "$HOME/x" and what it became.
 */
static char *shown_as(const char *raw, const char *text)
{
	if (strcmp(raw, text) == 0)
		return xstrdup("");
	return xasprintf(" (that is '%s')", text);
}

/*
 * Every segment is a bare wildcard ("*", "**", "***" ...), or there is no
 * segment ("/"): the guardrails treat such a pattern as covering
 * everything (doc/rules.md §5 "Guardrails").  A segment such as "w*k" or
 * "?" only matches some names, so a pattern like "/w" "*k/" "*.txt" is an
 * ordinary one.
 */
static bool all_wild(const struct fs_pattern *p)
{
	uint32_t i;

	for (i = 0; i < p->nsegs; i++)
		if (p->segs[i].len == 0 ||
		    strspn(p->segs[i].s, "*") != p->segs[i].len)
			return false;
	return true;
}

/*
 * Is the ro/rw pattern @p literally the directory @dir (a cleaned absolute
 * path on the target) or @dir followed by "**" segments?  That is what
 * the home-root and drive-root guardrails refuse, and nothing else: a
 * pattern that merely matches @dir among other paths ("/home/" "*",
 * "/" "**" "/u", "/home/u" "*") names no directory in particular and is
 * allowed (doc/rules.md §5 "Guardrails").  Segments compare folded on
 * folding targets, since both sides were folded when they were built.  Parents
 * of @dir are fine: "/home" is not "/home/u".
 */
static bool is_dir_literally(const struct fs_pattern *p,
			     const struct fs_path *dir)
{
	uint32_t k = p->nsegs, i;

	while (k && p->segs[k - 1].kind == SEG_STARSTAR)
		k--;
	if (k != dir->nsegs || p->nlit < k)
		return false;
	for (i = 0; i < k; i++)
		if (p->segs[i].len != dir->segs[i].len ||
		    memcmp(p->segs[i].s, dir->segs[i].s, dir->segs[i].len))
			return false;
	return true;
}

/*
 * The home-root guardrail: the home root itself and HOME/"**" only.  A
 * home directory that is undefined, relative
 * or not a valid path cannot be named by a pattern that does not use it
 * (one that uses it failed to expand already), so it is skipped then.
 */
static int check_home_root(const char *raw, const struct fs_pattern *p,
			   const struct location *loc,
			   const struct target_traits *t,
			   const struct var_source *vars,
			   struct diag_list *diags)
{
	const char *home = vars_home(t, vars);
	struct fs_path hp;
	char *err = NULL, *shown;
	int ret = 0;

	if (!home || strpbrk(home, "*?"))
		return 0;
	if (fs_path_parse(home, t, &hp, &err)) {
		free(err);
		return 0;
	}
	if (is_dir_literally(p, &hp)) {
		shown = shown_as(raw, p->text);
		ret = diag_error(diags, loc,
				 "pattern '%s'%s would cover the home "
				 "directory root '%s': grant what lies below "
				 "it instead",
				 raw, shown, hp.text);
		free(shown);
	}
	fs_path_free(&hp);
	return ret;
}

static int check_guardrails(const char *raw, bool is_deny,
			    const struct fs_pattern *p,
			    const struct location *loc,
			    const struct target_traits *t,
			    const struct var_source *vars,
			    struct diag_list *diags)
{
	struct fs_path drive;
	char *shown;
	int ret = 0;

	/* The global posture is @default's job, never a row's. */
	if (all_wild(p)) {
		shown = shown_as(raw, p->text);
		ret = diag_error(diags, loc,
				 "pattern '%s'%s would cover everything: set "
				 "the global posture with '@default write'",
				 raw, shown);
		free(shown);
		return ret;
	}
	if (is_deny)
		return 0;
	if (t->windows_paths && p->nsegs && p->segs[0].kind == SEG_LIT &&
	    p->segs[0].len == 1) {
		memset(&drive, 0, sizeof(drive));
		drive.segs = p->segs;
		drive.nsegs = 1;
		if (is_dir_literally(p, &drive)) {
			shown = shown_as(raw, p->text);
			ret = diag_error(diags, loc,
					 "pattern '%s'%s would cover the whole "
					 "drive '/%s': grant what lies below "
					 "it instead", raw, shown,
					 p->segs[0].s);
			free(shown);
			return ret;
		}
	}
	return check_home_root(raw, p, loc, t, vars, diags);
}

/*
 * Why a pattern landed in the wrong form, for the two slips of a target
 * mix-up: a drive path compiled for a POSIX target, and '~' on windows
 * expanded from a POSIX HOME.  Returns "; ..." or "" (caller frees).
 */
static char *expansion_hint(const char *raw,
			    const struct target_traits *target,
			    const struct var_source *vars)
{
	const char *home;

	if (!target->windows_paths && fs_is_letter(raw[0]) && raw[1] == ':' &&
	    (raw[2] == '\\' || raw[2] == '/'))
		return xstrdup("; a drive path is a windows pattern: compile "
			       "it with --target=windows");
	if (target->windows_paths && raw[0] == '~') {
		home = vars_home(target, vars);
		if (home && home[0] == '/')
			return xasprintf("; '~' became the home directory "
					 "'%s', a POSIX path: for windows "
					 "give it with -D HOME=C:\\Users\\NAME",
					 home);
	}
	return xstrdup("");
}

int fs_pattern_compile(const char *raw, bool is_deny,
		       const struct location *loc,
		       const struct target_traits *target,
		       const struct var_source *vars, struct fs_pattern *out,
		       struct diag_list *diags)
{
	char buf[FS_MAX_LEN], *err = NULL, *shown;
	struct span sp[FS_MAX_SEGS], bad;
	const char *why;
	struct built b;
	bool absolute, on_drive = true;
	uint32_t floor;
	int n, ret;

	memset(out, 0, sizeof(*out));
	if (vars_expand(raw, target, vars, buf, sizeof(buf), &err) < 0) {
		ret = diag_error(diags, loc, "%s in pattern '%s'", err, raw);
		free(err);
		return ret;
	}
	if (target->windows_paths && fs_windows_convert(buf, &on_drive, &why)) {
		shown = expansion_hint(raw, target, vars);
		ret = diag_error(diags, loc, "pattern '%s' %s: %s%s", raw, why,
				 WINDOWS_FORMS, shown);
		free(shown);
		return ret;
	}
	absolute = buf[0] == '/';
	if (!absolute && !(buf[0] == '*' && buf[1] == '*' &&
			   (buf[2] == '/' || buf[2] == '\0'))) {
		shown = shown_as(raw, buf);
		err = expansion_hint(raw, target, vars);
		ret = diag_error(diags, loc,
				 "pattern '%s'%s is not absolute: a file "
				 "pattern starts with '/', '~', a variable or "
				 "'**/'%s", raw, shown, err);
		free(err);
		free(shown);
		return ret;
	}
	floor = target->windows_paths && absolute && fs_is_letter(buf[1]);
	n = fs_split_clean(buf, true, floor, sp, &bad);
	if (n < 0)
		return diag_error(diags, loc,
				  "'..' after the wildcard segment '%.*s' in "
				  "pattern '%s'", (int)bad.len, buf + bad.off,
				  raw);
	fs_build(buf, absolute, sp, (uint32_t)n, target, true, true, &b);
	fs_pattern_fill(out, &b);
	if (!on_drive && !all_wild(out)) {
		err = expansion_hint(raw, target, vars);
		ret = diag_error(diags, loc, "pattern '%s' is not on a drive: "
				 "%s%s", raw, WINDOWS_FORMS, err);
		free(err);
		goto out_free;
	}
	ret = check_guardrails(raw, is_deny, out, loc, target, vars, diags);
	if (!ret)
		return 0;
out_free:
	fs_pattern_free(out);
	return ret;
}


/*
 * realpath() of the longest existing prefix of the absolute @path, with
 * the rest appended.  A missing component (ENOENT, ENOTDIR) moves on to a
 * shorter prefix; any other failure (a loop, no permission) is returned
 * as NULL with errno set, because guessing would give a wrong answer.
 */
static char *resolve_prefix(const char *path)
{
	char pre[PATH_MAX], real[PATH_MAX];
	size_t len = strlen(path), cut = len, rlen;
	const char *rest;

	for (;;) {
		memcpy(pre, path, cut);
		pre[cut] = '\0';
		if (realpath(cut ? pre : "/", real))
			break;
		if (errno != ENOENT && errno != ENOTDIR)
			return NULL;
		if (!cut)
			return NULL;
		while (cut > 0 && path[cut - 1] != '/')
			cut--;
		if (cut > 0)
			cut--;
	}
	rest = path + cut;
	rlen = strlen(real);
	/* "/" + "/x" must not become "//x". */
	if (rlen == 1 && *rest)
		rlen = 0;
	if (rlen + strlen(rest) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return xasprintf("%.*s%s", (int)rlen, real, rest);
}

char *fs_path_resolve(const char *path, bool follow_last)
{
	size_t len = strlen(path);
	const char *last;
	char *parent, *res, *joined;

	if (path[0] != '/') {
		errno = EINVAL;
		return NULL;
	}
	if (len >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (follow_last || len == 1)
		return resolve_prefix(path);
	last = strrchr(path, '/');
	if (!last[1])
		return resolve_prefix(path);
	parent = xstrndup(path, last == path ? 1 : (size_t)(last - path));
	res = resolve_prefix(parent);
	free(parent);
	if (!res)
		return NULL;
	if (strlen(res) + 1 + strlen(last + 1) >= PATH_MAX) {
		free(res);
		errno = ENAMETOOLONG;
		return NULL;
	}
	joined = xasprintf("%s/%s", strcmp(res, "/") ? res : "", last + 1);
	free(res);
	return joined;
}
