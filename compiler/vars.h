/* SPDX-License-Identifier: MIT */
/*
 * vars.h - expansion of '~' and variables in file patterns
 * (doc/rules.md §5 "Expansion").
 *
 * Lookups go -D definitions first, then the environment; the home
 * directory goes through the target's home variables and then the passwd
 * entry.  Everything that differs between targets comes from struct
 * target_traits.  Only file patterns are expanded: queried paths and
 * network targets never are.
 */
#ifndef VBOX_VARS_H
#define VBOX_VARS_H

#include <stdbool.h>
#include <stddef.h>

struct target_traits;
struct var_source;

/*
 * VARS_MAX_LEN - an expanded pattern must be shorter than this many bytes
 * (it is at most a path, and paths are shorter than PATH_MAX on every
 * host we build for).
 */
#define VARS_MAX_LEN 4096

/*
 * vars_lookup - the value of the variable @name (@len bytes, not
 * NUL-terminated): the last -D definition of it, else the environment.
 * Names compare case-insensitively when @t->vars_fold_case.  Returns a
 * pointer borrowed from @src, or NULL when the variable is undefined or
 * empty; an empty -D definition hides the environment.  Plain lookup only:
 * "HOME" and "UserConfigDir" get no special treatment here.
 */
const char *vars_lookup(const struct target_traits *t,
			const struct var_source *src, const char *name,
			size_t len);

/*
 * vars_home - the home directory: the first defined of @t->home_vars (each
 * looked up with vars_lookup()), then, when @t->passwd_home, the passwd
 * entry of the current user or @src->home_override if set.  Returns a
 * borrowed pointer (from @src or a process-wide cache of the passwd entry),
 * or NULL when no source defines it.
 */
const char *vars_home(const struct target_traits *t,
		      const struct var_source *src);

/*
 * vars_expand - expand a leading "~" or "~/", "$NAME", "${NAME}" and
 * "%NAME%" in @raw into @buf (@size bytes, NUL-terminated on success).
 * "$UserConfigDir" is the target's config directory unless -D defines
 * UserConfigDir; "$HOME" is vars_home().  Values are inserted as they are
 * (never expanded again) and may not contain '*' or '?'.  Returns the
 * length of the result, or -1 with a message in *@err (caller frees) that
 * names the offending variable but not the pattern.
 */
int vars_expand(const char *raw, const struct target_traits *t,
		const struct var_source *src, char *buf, size_t size,
		char **err);

#endif /* VBOX_VARS_H */
