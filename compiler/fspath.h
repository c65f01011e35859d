/* SPDX-License-Identifier: MIT */
/*
 * fspath.h - file patterns and queried paths: expansion, cleaning,
 * guardrails and glob matching (doc/rules.md §5).
 */
#ifndef VBOX_FSPATH_H
#define VBOX_FSPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct location;
struct diag_list;
struct target_traits;

/**
 * enum seg_kind - what one pattern segment is
 * @SEG_LIT: no wildcard: compares byte for byte (after folding)
 * @SEG_GLOB: contains '*' or '?' (a "**" inside a longer segment acts as '*')
 * @SEG_STARSTAR: exactly "**": zero or more whole segments
 */
enum seg_kind {
	SEG_LIT,
	SEG_GLOB,
	SEG_STARSTAR,
};

/**
 * struct seg - one '/'-separated segment
 * @s: the segment text, NUL-terminated, folded to lower case on folding
 *     targets; points into the owner's @segbuf
 * @len: strlen(@s)
 * @kind: see enum seg_kind (always SEG_LIT in a struct fs_path)
 */
struct seg {
	const char *s;
	uint32_t len;
	enum seg_kind kind;
};

/**
 * struct fs_pattern - a normalized file pattern
 * @text: the normalized pattern as shown to users, original case:
 *        "/srv/work/" "**", "**" "/.ssh/" "**", "/c/Users/x" (windows);
 *        owns one block holding @key, @segs and their text too
 * @key: the segments joined by '/' after folding, without a leading '/';
 *       equal keys mean identical patterns (in @text's block)
 * @segs: the segments (in @text's block), @nsegs of them; "/" has none
 * @nsegs: number of segments
 * @nlit: number of leading SEG_LIT segments
 * @wild: some segment is not SEG_LIT; without wildcards a pattern covers
 *        its whole subtree
 */
struct fs_pattern {
	char *text;
	char *key;
	struct seg *segs;
	uint32_t nsegs;
	uint32_t nlit;
	bool wild;
};

/**
 * struct fs_path - a cleaned, absolute queried path
 * @text: the cleaned path as shown ("/srv/work/out.txt"); owns one block
 *        holding @segbuf and @segs too
 * @segbuf: storage for @segs' text (in @text's block)
 * @segs: the segments, folded on folding targets (in @text's block)
 * @nsegs: number of segments
 */
struct fs_path {
	char *text;
	char *segbuf;
	struct seg *segs;
	uint32_t nsegs;
};

/**
 * struct var_source - where pattern variables come from
 * @defines: "NAME=VALUE" strings from -D, in command-line order (a later
 *           definition of the same name wins); borrowed
 * @ndefines: number of @defines
 * @environ: the environment to fall back to ("NAME=VALUE", NULL-terminated)
 *           or NULL for none; borrowed
 * @home_override: when non-NULL, used instead of the passwd entry as the
 *                 last fallback for the home directory (tests)
 */
struct var_source {
	const char *const *defines;
	size_t ndefines;
	char *const *environ;
	const char *home_override;
};

/*
 * fs_target_is_pathlike - doc/rules.md §2: does an (unexpanded) deny target
 * start like a path: '/', '~', '$', '%', "**", "\\\\", or a drive letter
 * followed by ":\\" or ":/"?
 */
bool fs_target_is_pathlike(const char *target);

/*
 * fs_pattern_compile - expand variables in @raw, convert and clean it and
 * apply the guardrails for a row with effect @is_deny (deny rows may not
 * cover everything; ro/rw rows may not cover everything, the home root or a
 * drive root).  On success fills *@out (caller frees with
 * fs_pattern_free()) and returns 0; otherwise queues an error at @loc and
 * returns -1.
 */
int fs_pattern_compile(const char *raw, bool is_deny,
		       const struct location *loc,
		       const struct target_traits *target,
		       const struct var_source *vars, struct fs_pattern *out,
		       struct diag_list *diags);
void fs_pattern_free(struct fs_pattern *p);

/*
 * fs_pattern_from_text - rebuild the pattern whose normalized text
 * (struct fs_pattern's @text, as a plan carries it) is @text: no
 * expansion, no guardrails.  0 with *@out (caller frees with
 * fs_pattern_free()), or -1 with a message in *@err (caller frees).
 */
int fs_pattern_from_text(const char *text, const struct target_traits *target,
			 struct fs_pattern *out, char **err);

/*
 * fs_path_parse - clean an absolute queried path (no expansion; on windows
 * "C:\\x" is accepted and becomes "/c/x").  Returns 0, or -1 and a message
 * in *@err (caller frees).
 */
int fs_path_parse(const char *raw, const struct target_traits *target,
		  struct fs_path *out, char **err);
void fs_path_free(struct fs_path *p);

/*
 * fs_path_resolve - resolve symbolic links of the cleaned absolute @path
 * against the host file system: every component (@follow_last) or every
 * component but the last.  The longest existing prefix is resolved and the
 * rest appended.  Returns a new string (caller frees), or NULL with errno
 * set: EINVAL for a relative path, ENAMETOOLONG past the pattern length
 * bound, or what realpath() reported (ELOOP, EACCES ...).
 */
char *fs_path_resolve(const char *path, bool follow_last);

/* fs_match - does @pattern match @path?  doc/rules.md §5. */
bool fs_match(const struct fs_pattern *pattern, const struct fs_path *path);

/*
 * fs_match_subtree - does @pattern match @path and every path below it?
 * Errs towards no: a "**" followed by another segment says no.
 */
bool fs_match_subtree(const struct fs_pattern *pattern,
		      const struct fs_path *path);

/*
 * fs_seg_glob_match - does the glob segment @pat ('*' any run, '?' one
 * UTF-8 character) match the literal segment @s?
 */
bool fs_seg_glob_match(const char *pat, size_t plen, const char *s,
		       size_t slen);

/*
 * fs_covers - sound (never wrong, may miss) proof that every path @inner
 * matches is also matched by @outer: identical patterns; @outer is
 * P + "/" "**" or has no wildcard, and @inner's first segments are covered
 * segment by segment by P (literal equal, or @outer's glob segment matches
 * @inner's literal one).
 */
bool fs_covers(const struct fs_pattern *outer, const struct fs_pattern *inner);

#endif /* VBOX_FSPATH_H */
