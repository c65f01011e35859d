/* SPDX-License-Identifier: MIT */
/*
 * vars.c - '~' and variable expansion for file patterns (see vars.h).
 *
 * Every failure is an error, never a silent skip: a pattern whose variable
 * cannot be expanded would otherwise vanish from the table, and a dropped
 * deny row widens the sandbox.
 */
#include <vbox.h>

#include <pwd.h>
#include <unistd.h>
#include <sys/types.h>

#include "fspath.h"
#include "target.h"
#include "vars.h"

/* The expansion output: a bounded buffer that reports overflow. */
struct obuf {
	char *p;
	size_t len;
	size_t size;
};

static bool name_eq(const struct target_traits *t, const char *a, size_t alen,
		    const char *b, size_t blen)
{
	size_t i;

	if (alen != blen)
		return false;
	if (!t->vars_fold_case)
		return memcmp(a, b, alen) == 0;
	for (i = 0; i < alen; i++) {
		unsigned char x = a[i], y = b[i];

		if (x >= 'A' && x <= 'Z')
			x += 'a' - 'A';
		if (y >= 'A' && y <= 'Z')
			y += 'a' - 'A';
		if (x != y)
			return false;
	}
	return true;
}

/*
 * Find NAME in a "NAME=VALUE" entry; returns the value or NULL.  An entry
 * without '=' defines NAME with an empty value.
 */
static const char *entry_value(const struct target_traits *t, const char *e,
			       const char *name, size_t len)
{
	const char *eq = strchr(e, '=');
	size_t elen = eq ? (size_t)(eq - e) : strlen(e);

	if (!name_eq(t, e, elen, name, len))
		return NULL;
	return eq ? eq + 1 : "";
}

/* The last -D definition of @name (possibly ""), or NULL if none. */
static const char *define_find(const struct target_traits *t,
			       const struct var_source *src, const char *name,
			       size_t len)
{
	size_t i;

	for (i = src->ndefines; i > 0; i--) {
		const char *v = entry_value(t, src->defines[i - 1], name, len);

		if (v)
			return v;
	}
	return NULL;
}

const char *vars_lookup(const struct target_traits *t,
			const struct var_source *src, const char *name,
			size_t len)
{
	const char *v = define_find(t, src, name, len);
	size_t i;

	/* An empty -D value means "undefined", without the environment. */
	if (v)
		return *v ? v : NULL;
	if (!src->environ)
		return NULL;
	for (i = 0; src->environ[i]; i++) {
		v = entry_value(t, src->environ[i], name, len);
		if (v)
			return *v ? v : NULL;
	}
	return NULL;
}

/*
 * The passwd entry does not change during a run; caching it keeps
 * compiling many patterns from re-reading the user database per pattern.
 * The cache is a fixed buffer so nothing stays allocated at exit; a home
 * too long for it could not be expanded into a pattern anyway.
 */
static const char *passwd_home(void)
{
	static bool looked, found;
	static uid_t cached_uid;
	static char cached_home[VARS_MAX_LEN];
	uid_t uid = getuid();
	struct passwd *pw;

	if (looked && cached_uid == uid)
		return found ? cached_home : NULL;
	pw = getpwuid(uid);
	found = pw && pw->pw_dir && *pw->pw_dir &&
		strlen(pw->pw_dir) < sizeof(cached_home);
	if (found)
		strcpy(cached_home, pw->pw_dir);
	cached_uid = uid;
	looked = true;
	return found ? cached_home : NULL;
}

const char *vars_home(const struct target_traits *t,
		      const struct var_source *src)
{
	const char *const *hv;
	const char *v;

	for (hv = t->home_vars; hv && *hv; hv++) {
		v = vars_lookup(t, src, *hv, strlen(*hv));
		if (v)
			return v;
	}
	if (!t->passwd_home)
		return NULL;
	if (src->home_override)
		return *src->home_override ? src->home_override : NULL;
	return passwd_home();
}

/*
 * What was tried for the home directory, for messages: "HOME is not set",
 * "neither HOME nor USERPROFILE is set".
 */
static char *home_undefined(const struct target_traits *t, const char *what)
{
	const char *const *hv;
	char *list = xstrdup(""), *n, *msg;
	size_t count = 0;

	for (hv = t->home_vars; hv && *hv; hv++, count++) {
		n = xasprintf("%s%s%s", list, count ? " nor " : "", *hv);
		free(list);
		list = n;
	}
	if (t->passwd_home) {
		n = xasprintf("%s%sthe passwd entry", list,
			      count ? " nor " : "");
		free(list);
		list = n;
		count++;
	}
	if (!count)
		msg = xasprintf("undefined home directory for '%s': the "
				"target has no source for it", what);
	else
		msg = xasprintf("undefined home directory for '%s': %s%s %s "
				"set", what, count > 1 ? "neither " : "", list,
				count > 1 ? "is" : "is not");
	free(list);
	return msg;
}

static int obuf_put(struct obuf *ob, const char *s, size_t len, char **err)
{
	if (len >= ob->size - ob->len) {
		*err = xasprintf("pattern is too long after expansion (%d "
				 "bytes at most)", VARS_MAX_LEN - 1);
		return -1;
	}
	memcpy(ob->p + ob->len, s, len);
	ob->len += len;
	ob->p[ob->len] = '\0';
	return 0;
}

/* Insert a variable's value: a value may never add wildcards. */
static int put_value(struct obuf *ob, const char *what, size_t wlen,
		     const char *value, char **err)
{
	if (strpbrk(value, "*?")) {
		*err = xasprintf("variable '%.*s' has the value '%s', which "
				 "contains a wildcard: a variable must never "
				 "widen a rule", (int)wlen, what, value);
		return -1;
	}
	return obuf_put(ob, value, strlen(value), err);
}

static int put_home(const struct target_traits *t,
		    const struct var_source *src, struct obuf *ob,
		    const char *what, size_t wlen, char **err)
{
	const char *home = vars_home(t, src);
	char *w;

	if (!home) {
		w = xstrndup(what, wlen);
		*err = home_undefined(t, w);
		free(w);
		return -1;
	}
	return put_value(ob, what, wlen, home, err);
}

static bool is_absolute(const struct target_traits *t, const char *v)
{
	if (v[0] == '/')
		return true;
	return t->windows_paths &&
	       ((v[0] >= 'A' && v[0] <= 'Z') || (v[0] >= 'a' && v[0] <= 'z')) &&
	       v[1] == ':' && (v[2] == '/' || v[2] == '\\');
}

static int put_config_dir(const struct target_traits *t,
			  const struct var_source *src, struct obuf *ob,
			  const char *what, size_t wlen, char **err)
{
	static const char ucd[] = "UserConfigDir";
	const char *v = define_find(t, src, ucd, sizeof(ucd) - 1);

	if (v) {
		if (!*v) {
			*err = xasprintf("undefined variable '%.*s' (defined "
					 "empty with -D)", (int)wlen, what);
			return -1;
		}
		return put_value(ob, what, wlen, v, err);
	}
	if (t->config_var) {
		v = vars_lookup(t, src, t->config_var, strlen(t->config_var));
		/* A relative XDG_CONFIG_HOME is invalid by the XDG spec. */
		if (v && (!t->config_var_must_be_absolute || is_absolute(t, v)))
			return put_value(ob, what, wlen, v, err);
	}
	if (!t->config_home_suffix) {
		*err = xasprintf("undefined variable '%.*s': it needs %s",
				 (int)wlen, what,
				 t->config_var ? t->config_var : "-D");
		return -1;
	}
	if (put_home(t, src, ob, what, wlen, err))
		return -1;
	return obuf_put(ob, t->config_home_suffix,
			strlen(t->config_home_suffix), err);
}

static bool is_name_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static bool is_pct_name_char(char c)
{
	return is_name_char(c) || c == '(' || c == ')';
}

/* Is @name in the environment (with an empty value, when not found)? */
static bool environ_has(const struct target_traits *t,
			const struct var_source *src, const char *name,
			size_t len)
{
	size_t i;

	for (i = 0; src->environ && src->environ[i]; i++)
		if (entry_value(t, src->environ[i], name, len))
			return true;
	return false;
}

/*
 * Expand one variable: @name/@nlen is its name, @what/@wlen the text as
 * written ("${HOME}") for messages.
 */
static int put_var(const struct target_traits *t,
		   const struct var_source *src, struct obuf *ob,
		   const char *name, size_t nlen, const char *what,
		   size_t wlen, char **err)
{
	const char *v;

	if (name_eq(t, name, nlen, "UserConfigDir", 13))
		return put_config_dir(t, src, ob, what, wlen, err);
	if (name_eq(t, name, nlen, "HOME", 4))
		return put_home(t, src, ob, what, wlen, err);
	v = vars_lookup(t, src, name, nlen);
	if (!v && define_find(t, src, name, nlen))
		*err = xasprintf("undefined variable '%.*s': it was set empty "
				 "with '-D %.*s=' (an empty value counts as "
				 "undefined)", (int)wlen, what, (int)nlen,
				 name);
	else if (!v && environ_has(t, src, name, nlen))
		*err = xasprintf("undefined variable '%.*s': it is set empty "
				 "in the environment (an empty value counts "
				 "as undefined)", (int)wlen, what);
	else if (!v)
		*err = xasprintf("undefined variable '%.*s'", (int)wlen, what);
	if (!v)
		return -1;
	return put_value(ob, what, wlen, v, err);
}

/*
 * If a variable reference starts at @s, set its name and total length and
 * return true; a '$' or '%' that starts none is literal.
 */
static bool scan_var(const char *s, const char **name, size_t *nlen,
		     size_t *total)
{
	size_t n = 0;

	if (s[0] == '$' && s[1] == '{') {
		if (!is_name_start(s[2]))
			return false;
		for (n = 1; is_name_char(s[2 + n]); n++)
			;
		if (s[2 + n] != '}')
			return false;
		*name = s + 2;
		*nlen = n;
		*total = n + 3;
		return true;
	}
	if (s[0] == '$') {
		if (!is_name_start(s[1]))
			return false;
		for (n = 1; is_name_char(s[1 + n]); n++)
			;
		*name = s + 1;
		*nlen = n;
		*total = n + 1;
		return true;
	}
	if (s[0] == '%') {
		while (is_pct_name_char(s[1 + n]))
			n++;
		if (!n || s[1 + n] != '%')
			return false;
		*name = s + 1;
		*nlen = n;
		*total = n + 2;
		return true;
	}
	return false;
}

int vars_expand(const char *raw, const struct target_traits *t,
		const struct var_source *src, char *buf, size_t size,
		char **err)
{
	struct obuf ob = { .p = buf, .len = 0, .size = size };
	const char *s = raw, *lit, *name;
	size_t nlen, total;

	if (!size)
		BUG("vars_expand with an empty buffer");
	buf[0] = '\0';
	if (s[0] == '~') {
		if (s[1] != '\0' && s[1] != '/' &&
		    !(t->windows_paths && s[1] == '\\')) {
			*err = xasprintf("'~user' is not supported: write the "
					 "home directory as an absolute path");
			return -1;
		}
		if (put_home(t, src, &ob, "~", 1, err))
			return -1;
		s++;
	}
	while (*s) {
		if ((*s == '$' || *s == '%') &&
		    scan_var(s, &name, &nlen, &total)) {
			if (put_var(t, src, &ob, name, nlen, s, total, err))
				return -1;
			s += total;
			continue;
		}
		/* Copy the run up to the next possible variable at once. */
		lit = s++;
		while (*s && *s != '$' && *s != '%')
			s++;
		if (obuf_put(&ob, lit, s - lit, err))
			return -1;
	}
	return (int)ob.len;
}
