/* SPDX-License-Identifier: MIT */
/*
 * fsclean.c - lexical cleaning of file patterns and queried paths (windows
 * drive forms, '.', '..', repeated slashes; doc/rules.md §5), the parse of
 * a queried path, and the rebuild of a pattern from its normalized text.
 *
 * This is the part of fspath.c that vbox-exec needs too (it judges a
 * resolved host path against the plan's rows, doc/launcher.md "Pinned
 * paths"), so it lives in libvboxmatch: no variables, no diagnostics.
 */
#include <vbox.h>

#include <errno.h>

#include "fsclean.h"
#include "fspath.h"
#include "target.h"

bool fs_is_letter(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

char fs_fold(char c)
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
	return fs_is_letter(t[0]) && t[1] == ':' && (t[2] == '\\' || t[2] == '/');
}

/*
 * Windows forms, in place (the length does not change): backslashes
 * separate, "X:" becomes "/x".  UNC and drive-relative paths are errors
 * because no canonical "/x/..." form says the same thing.  *@on_drive
 * tells whether an absolute result starts with a drive ("/x", "/x/...")
 * or with a "**" segment; "\\x" and "/data/x" do not.  The caller reports that
 * itself, after the "covers everything" check, which says more.
 */
int fs_windows_convert(char *buf, bool *on_drive, const char **why)
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
	if (fs_is_letter(buf[0]) && buf[1] == ':') {
		if (buf[2] != '\0' && buf[2] != '/') {
			*why = "is relative to a drive's current directory";
			return -1;
		}
		buf[1] = fs_fold(buf[0]);
		buf[0] = '/';
	}
	if (buf[0] != '/')
		*on_drive = true;
	else if (backslash_root)
		*on_drive = false;
	else if (fs_is_letter(buf[1]))
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
int fs_split_clean(const char *buf, bool pattern, uint32_t floor,
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
void fs_build(const char *buf, bool absolute, const struct span *sp,
		  uint32_t n, const struct target_traits *t, bool pattern,
		  bool key, struct built *b)
{
	size_t total = 0, ti = 0, ki = 0, bi = 0, len, at;
	bool alias = false;
	uint32_t i, j;

	for (i = 0; i < n; i++)
		total += sp[i].len;
	/*
	 * One allocation, owned through @text: text, key, segment bytes,
	 * then the segments, aligned.  Four blocks a row were a third of
	 * what a million-row table's patterns cost, in malloc's headers.
	 * Without case folding the key is the text without its leading
	 * '/': it points there instead of being a copy.
	 */
	if (key && !t->fold_case)
		key = false, alias = true;
	len = total + n + 2;
	at = len + (key ? total + n + 1 : 0) + total + n + 1;
	at = (at + _Alignof(struct seg) - 1) &
	     ~(size_t)(_Alignof(struct seg) - 1);
	b->nsegs = n;
	b->text = xmalloc(at + n * sizeof(*b->segs));
	b->key = key ? b->text + len : NULL;
	b->segbuf = b->text + len + (key ? total + n + 1 : 0);
	b->segs = n ? (struct seg *)(void *)(b->text + at) : NULL;
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
			char c = drive ? fs_fold(s[j]) : s[j];
			char f = t->fold_case ? fs_fold(c) : c;

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
	if (alias)
		b->key = b->text + (absolute ? 1 : 0);
}

void fs_pattern_free(struct fs_pattern *p)
{
	if (!p)
		return;
	/* @key and @segs live in @text's block (fs_build()). */
	free(p->text);
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
	if (target->windows_paths && fs_windows_convert(buf, &on_drive, &why)) {
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
	floor = target->windows_paths && fs_is_letter(buf[1]);
	n = fs_split_clean(buf, false, floor, sp, &bad);
	if (n < 0)
		BUG("'..' check in a queried path");
	fs_build(buf, true, sp, (uint32_t)n, target, false, false, &b);
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
	memset(p, 0, sizeof(*p));
}

void fs_pattern_fill(struct fs_pattern *out, struct built *b)
{
	uint32_t i;

	out->text = b->text;
	out->key = b->key;
	out->segs = b->segs;
	out->nsegs = b->nsegs;
	out->nlit = 0;
	while (out->nlit < out->nsegs && out->segs[out->nlit].kind == SEG_LIT)
		out->nlit++;
	out->wild = false;
	for (i = out->nlit; i < out->nsegs; i++)
		if (out->segs[i].kind != SEG_LIT)
			out->wild = true;
}

int fs_pattern_from_text(const char *text, const struct target_traits *target,
			 struct fs_pattern *out, char **err)
{
	struct span sp[FS_MAX_SEGS], bad;
	struct built b;
	size_t len = strlen(text);
	uint32_t floor;
	int n;

	memset(out, 0, sizeof(*out));
	if (len >= FS_MAX_LEN) {
		*err = xasprintf("pattern is too long (%zu bytes, %d at most)",
				 len, FS_MAX_LEN - 1);
		return -1;
	}
	if (text[0] != '/' && !(text[0] == '*' && text[1] == '*' &&
				(text[2] == '/' || text[2] == '\0'))) {
		*err = xasprintf("pattern '%s' is not in normalized form", text);
		return -1;
	}
	floor = target->windows_paths && text[0] == '/' &&
		fs_is_letter(text[1]);
	n = fs_split_clean(text, true, floor, sp, &bad);
	if (n < 0) {
		*err = xasprintf("pattern '%s' is not in normalized form", text);
		return -1;
	}
	fs_build(text, text[0] == '/', sp, (uint32_t)n, target, true, true, &b);
	fs_pattern_fill(out, &b);
	return 0;
}
