/* SPDX-License-Identifier: MIT */
/*
 * fspath.c - file patterns and queried paths: expansion, windows drive
 * forms, lexical cleaning, guardrails (doc/rules.md §5)
 * and symbolic link resolution of queries.
 *
 * A pattern is built with four allocations (segment text, segment array,
 * display text, key); all the work before that happens in fixed buffers
 * on the stack, since tables with 100,000 rows must compile quickly.
 */
#include <vbox.h>

#include <errno.h>
#include <limits.h>

#include "diag.h"
#include "fspath.h"
#include "target.h"
#include "vars.h"

/*
 * Patterns and queried paths are shorter than FS_MAX_LEN bytes on every
 * host, so a table compiles or fails the same way everywhere.
 */
#define FS_MAX_LEN VARS_MAX_LEN
/* A string shorter than FS_MAX_LEN has at most this many segments. */
#define FS_MAX_SEGS (FS_MAX_LEN / 2 + 1)

#define WINDOWS_FORMS "a windows path starts with 'X:\\', 'X:/' or '/x/'"

/* One segment of a cleaned string: @len bytes at offset @off. */
struct span {
	uint32_t off;
	uint32_t len;
};

/* The parts a pattern or a path is made of. */
struct built {
	char *text;
	char *key;
	char *segbuf;
	struct seg *segs;
	uint32_t nsegs;
};

static bool is_letter(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static char fold(char c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

bool fs_target_is_pathlike(const char *target)
{
	const char *t = target;

	if (t[0] == '/' || t[0] == '~' || t[0] == '$' || t[0] == '%')
		return true;
	if ((t[0] == '*' && t[1] == '*') || (t[0] == '\\' && t[1] == '\\'))
		return true;
	return is_letter(t[0]) && t[1] == ':' && (t[2] == '\\' || t[2] == '/');
}

/*
 * Windows forms, in place (the length does not change): backslashes
 * separate, "X:" becomes "/x".  UNC and drive-relative paths are errors
 * because no canonical "/x/..." form says the same thing.  *@on_drive
 * tells whether an absolute result starts with a drive ("/x", "/x/...")
 * or with a "**" segment; "\\x" and "/data/x" do not.  The caller reports that
 * itself, after the "covers everything" check, which says more.
 */
static int windows_convert(char *buf, bool *on_drive, const char **why)
{
	bool backslash_root = buf[0] == '\\';
	char *p;

	for (p = buf; *p; p++)
		if (*p == '\\')
			*p = '/';
	if (buf[0] == '/' && buf[1] == '/') {
		*why = "is a UNC path";
		return -1;
	}
	if (is_letter(buf[0]) && buf[1] == ':') {
		if (buf[2] != '\0' && buf[2] != '/') {
			*why = "is relative to a drive's current directory";
			return -1;
		}
		buf[1] = fold(buf[0]);
		buf[0] = '/';
	}
	if (buf[0] != '/')
		*on_drive = true;
	else if (backslash_root)
		*on_drive = false;
	else if (is_letter(buf[1]))
		*on_drive = buf[2] == '/' || buf[2] == '\0';
	else
		*on_drive = buf[1] == '*' && buf[2] == '*' &&
			    (buf[3] == '/' || buf[3] == '\0');
	return 0;
}

static bool has_wildcard(const char *s, size_t len)
{
	return memchr(s, '*', len) || memchr(s, '?', len);
}

static enum seg_kind seg_kind_of(const char *s, size_t len)
{
	if (len == 2 && s[0] == '*' && s[1] == '*')
		return SEG_STARSTAR;
	return has_wildcard(s, len) ? SEG_GLOB : SEG_LIT;
}

/*
 * Split @buf on '/', dropping empty and "." segments and applying "..":
 * above the root it stays at the root (the first @floor segments, the
 * windows drive, are the root), and in a pattern it may not follow a
 * wildcard segment (which directory would it leave?).  Returns the number
 * of segments, or -1 with *@bad set to the wildcard segment.
 */
static int split_clean(const char *buf, bool pattern, uint32_t floor,
		       struct span *sp, struct span *bad)
{
	uint32_t n = 0, i = 0, start, len;

	while (buf[i]) {
		if (buf[i] == '/') {
			i++;
			continue;
		}
		start = i;
		while (buf[i] && buf[i] != '/')
			i++;
		len = i - start;
		if (len == 1 && buf[start] == '.')
			continue;
		if (len == 2 && buf[start] == '.' && buf[start + 1] == '.') {
			if (n <= floor)
				continue;
			if (pattern &&
			    has_wildcard(buf + sp[n - 1].off, sp[n - 1].len)) {
				*bad = sp[n - 1];
				return -1;
			}
			n--;
			continue;
		}
		if (n == FS_MAX_SEGS)
			BUG("more segments than a bounded string can hold");
		sp[n].off = start;
		sp[n].len = len;
		n++;
	}
	return (int)n;
}

/*
 * Allocate and fill the text, key (when @key), segment text and segment
 * array of the @n segments @sp of @buf.  Segment text and key are folded
 * on folding targets; the text keeps the case as written except for the
 * windows drive letter, which is always lower case.
 */
static void build(const char *buf, bool absolute, const struct span *sp,
		  uint32_t n, const struct target_traits *t, bool pattern,
		  bool key, struct built *b)
{
	size_t total = 0, ti = 0, ki = 0, bi = 0;
	uint32_t i, j;

	for (i = 0; i < n; i++)
		total += sp[i].len;
	b->nsegs = n;
	b->segbuf = xmalloc(total + n + 1);
	b->segs = n ? xmalloc(n * sizeof(*b->segs)) : NULL;
	b->text = xmalloc(total + n + 2);
	b->key = key ? xmalloc(total + n + 1) : NULL;
	if (absolute && !n)
		b->text[ti++] = '/';
	for (i = 0; i < n; i++) {
		const char *s = buf + sp[i].off;
		bool drive = t->windows_paths && absolute && i == 0 &&
			     sp[i].len == 1;

		if (absolute || i)
			b->text[ti++] = '/';
		if (key && i)
			b->key[ki++] = '/';
		b->segs[i].s = b->segbuf + bi;
		b->segs[i].len = sp[i].len;
		b->segs[i].kind = pattern ? seg_kind_of(s, sp[i].len) :
					    SEG_LIT;
		for (j = 0; j < sp[i].len; j++) {
			char c = drive ? fold(s[j]) : s[j];
			char f = t->fold_case ? fold(c) : c;

			b->text[ti++] = c;
			b->segbuf[bi++] = f;
			if (key)
				b->key[ki++] = f;
		}
		b->segbuf[bi++] = '\0';
	}
	b->text[ti] = '\0';
	b->segbuf[bi] = '\0';
	if (key)
		b->key[ki] = '\0';
}

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

	if (!target->windows_paths && is_letter(raw[0]) && raw[1] == ':' &&
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
	uint32_t i, floor;
	int n, ret;

	memset(out, 0, sizeof(*out));
	if (vars_expand(raw, target, vars, buf, sizeof(buf), &err) < 0) {
		ret = diag_error(diags, loc, "%s in pattern '%s'", err, raw);
		free(err);
		return ret;
	}
	if (target->windows_paths && windows_convert(buf, &on_drive, &why)) {
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
	floor = target->windows_paths && absolute && is_letter(buf[1]);
	n = split_clean(buf, true, floor, sp, &bad);
	if (n < 0)
		return diag_error(diags, loc,
				  "'..' after the wildcard segment '%.*s' in "
				  "pattern '%s'", (int)bad.len, buf + bad.off,
				  raw);
	build(buf, absolute, sp, (uint32_t)n, target, true, true, &b);
	out->text = b.text;
	out->key = b.key;
	out->segbuf = b.segbuf;
	out->segs = b.segs;
	out->nsegs = b.nsegs;
	while (out->nlit < out->nsegs && out->segs[out->nlit].kind == SEG_LIT)
		out->nlit++;
	for (i = out->nlit; i < out->nsegs; i++)
		if (out->segs[i].kind != SEG_LIT)
			out->wild = true;
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

void fs_pattern_free(struct fs_pattern *p)
{
	if (!p)
		return;
	free(p->text);
	free(p->key);
	free(p->segbuf);
	free(p->segs);
	memset(p, 0, sizeof(*p));
}

int fs_path_parse(const char *raw, const struct target_traits *target,
		  struct fs_path *out, char **err)
{
	char buf[FS_MAX_LEN];
	struct span sp[FS_MAX_SEGS], bad;
	size_t len = strlen(raw);
	const char *why;
	struct built b;
	bool on_drive = true;
	uint32_t floor;
	int n;

	memset(out, 0, sizeof(*out));
	if (len >= sizeof(buf)) {
		*err = xasprintf("path is too long (%zu bytes, %d at most)",
				 len, FS_MAX_LEN - 1);
		return -1;
	}
	memcpy(buf, raw, len + 1);
	if (target->windows_paths && windows_convert(buf, &on_drive, &why)) {
		*err = xasprintf("path '%s' %s: %s", raw, why, WINDOWS_FORMS);
		return -1;
	}
	if (buf[0] != '/') {
		*err = xasprintf("path '%s' is not absolute%s", raw,
				 raw[0] == '~' || raw[0] == '$' ||
				 raw[0] == '%' ? " ('~' and variables are not "
				 "expanded in queries)" : "");
		return -1;
	}
	if (!on_drive) {
		*err = xasprintf("path '%s' is not on a drive: %s", raw,
				 WINDOWS_FORMS);
		return -1;
	}
	floor = target->windows_paths && is_letter(buf[1]);
	n = split_clean(buf, false, floor, sp, &bad);
	if (n < 0)
		BUG("'..' check in a queried path");
	build(buf, true, sp, (uint32_t)n, target, false, false, &b);
	out->text = b.text;
	out->segbuf = b.segbuf;
	out->segs = b.segs;
	out->nsegs = b.nsegs;
	return 0;
}

void fs_path_free(struct fs_path *p)
{
	if (!p)
		return;
	free(p->text);
	free(p->segbuf);
	free(p->segs);
	memset(p, 0, sizeof(*p));
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
