/* SPDX-License-Identifier: MIT */
/*
 * env.c - scrubbing the inherited environment and applying -e (env.h).
 */
#include <vbox.h>

#include <strings.h>

#include "env.h"
#include "grow.h"

static const char *const secret_words[] = { ENV_SECRET_WORDS };
static const char *const secret_names[] = { ENV_SECRET_NAMES };

/* Case-insensitive search for @word (upper case) in @len bytes of @s. */
static bool contains_word(const char *s, size_t len, const char *word)
{
	size_t wl = strlen(word), i, j;

	for (i = 0; i + wl <= len; i++) {
		for (j = 0; j < wl; j++) {
			char c = s[i + j];

			if (c >= 'a' && c <= 'z')
				c = (char)(c - 'a' + 'A');
			if (c != word[j])
				break;
		}
		if (j == wl)
			return true;
	}
	return false;
}

bool env_name_is_secret(const char *name, size_t len)
{
	static const char suffix[] = ENV_SECRET_SUFFIX;
	size_t i, sl = sizeof(suffix) - 1;

	for (i = 0; i < array_size(secret_words); i++)
		if (contains_word(name, len, secret_words[i]))
			return true;
	for (i = 0; i < array_size(secret_names); i++)
		if (strlen(secret_names[i]) == len &&
		    strncasecmp(name, secret_names[i], len) == 0)
			return true;
	return len >= sl && strncasecmp(name + len - sl, suffix, sl) == 0;
}

bool env_name_is_proxy(const char *name, size_t len)
{
	static const char suffix[] = "_PROXY";
	size_t sl = sizeof(suffix) - 1;

	return len >= sl && strncasecmp(name + len - sl, suffix, sl) == 0;
}

int env_check_assignment(const char *arg, char **err)
{
	const char *eq = strchr(arg, '=');

	if (!eq && !*arg) {
		*err = xasprintf("-e '': expected NAME=VALUE or NAME");
		return -1;
	}
	if (eq == arg) {
		*err = xasprintf("-e '%s': the variable name is empty", arg);
		return -1;
	}
	return 0;
}

static size_t name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq ? (size_t)(eq - entry) : strlen(entry);
}

/*
 * Names are looked up through an open-addressing hash of indexes into
 * the list, so building stays linear however large the environment is.
 */
struct env_index {
	long *slot;
	size_t mask;
};

static size_t hash_name(const char *s, size_t len)
{
	size_t h = 14695981039346656037ULL & SIZE_MAX, i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static void index_init(struct env_index *ix, size_t max)
{
	size_t n = 64;

	while (n < max * 2)
		n *= 2;
	ix->slot = xmalloc(n * sizeof(*ix->slot));
	memset(ix->slot, 0xff, n * sizeof(*ix->slot));
	ix->mask = n - 1;
}

/*
 * The slot where @name is or would go: it holds the entry's index, or -1
 * when the name is absent.
 */
static long *lookup(const struct env_index *ix, const struct env_list *env,
		    const char *name, size_t len)
{
	size_t h = hash_name(name, len) & ix->mask;
	long *s;

	for (;; h = (h + 1) & ix->mask) {
		s = &ix->slot[h];
		if (*s < 0 || (name_len(env->v[*s]) == len &&
			       memcmp(env->v[*s], name, len) == 0))
			return s;
	}
}

static void push(struct env_list *env, const char *entry)
{
	/* The entry and the terminating NULL. */
	GROW(env->v, env->cap, env->n + 2);
	env->v[env->n++] = xstrdup(entry);
	env->v[env->n] = NULL;
}

/* The entry "NAME=VALUE" of @name in @inherited, or NULL. */
static const char *inherited_entry(char *const *inherited, const char *name)
{
	size_t len = strlen(name), i;

	for (i = 0; inherited && inherited[i]; i++)
		if (strncmp(inherited[i], name, len) == 0 &&
		    inherited[i][len] == '=')
			return inherited[i];
	return NULL;
}

int env_build(char *const *inherited, const char *const *sets, size_t nsets,
	      bool replace, struct env_list *out, char **err)
{
	struct env_index ix;
	size_t i, len, total = nsets;
	long *at;

	memset(out, 0, sizeof(*out));
	out->cap = 1;
	out->v = xcalloc(1, sizeof(*out->v));
	for (i = 0; !replace && inherited && inherited[i]; i++)
		total++;
	/* The list never holds more than ENV_MAX_VARS names. */
	index_init(&ix, total < ENV_MAX_VARS ? total : ENV_MAX_VARS);
	for (i = 0; !replace && inherited && inherited[i]; i++) {
		const char *e = inherited[i];

		if (!strchr(e, '='))
			continue;
		len = name_len(e);
		if (len == 0 || env_name_is_secret(e, len) ||
		    env_name_is_proxy(e, len))
			continue;
		at = lookup(&ix, out, e, len);
		if (*at >= 0)
			continue;
		if (out->n >= ENV_MAX_VARS)
			goto too_many;
		*at = (long)out->n;
		push(out, e);
	}
	for (i = 0; i < nsets; i++) {
		const char *set = sets[i];

		/*
		 * "-e NAME" passes the launcher's own value through, as
		 * container tools do: explicit, so even a secret-looking
		 * name or --replace-env lets it in.  Unset: left out.
		 */
		if (!strchr(set, '=')) {
			set = inherited_entry(inherited, set);
			if (!set)
				continue;
		}
		at = lookup(&ix, out, set, name_len(set));
		if (*at >= 0) {
			free(out->v[*at]);
			out->v[*at] = xstrdup(set);
			continue;
		}
		if (out->n >= ENV_MAX_VARS)
			goto too_many;
		*at = (long)out->n;
		push(out, set);
	}
	free(ix.slot);
	return 0;

too_many:
	*err = xasprintf("more than %d environment variables", ENV_MAX_VARS);
	free(ix.slot);
	env_list_free(out);
	return -1;
}

const char *env_get(const struct env_list *env, const char *name)
{
	size_t len = strlen(name), i;

	for (i = 0; i < env->n; i++)
		if (name_len(env->v[i]) == len &&
		    memcmp(env->v[i], name, len) == 0)
			return env->v[i] + len + 1;
	return NULL;
}

void env_copy_with(const struct env_list *env, const char *name,
		   const char *value, struct env_list *out)
{
	size_t len = strlen(name), i;
	char *entry;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < env->n; i++)
		if (!(name_len(env->v[i]) == len &&
		      memcmp(env->v[i], name, len) == 0))
			push(out, env->v[i]);
	entry = xasprintf("%s=%s", name, value);
	push(out, entry);
	free(entry);
}

void env_list_free(struct env_list *env)
{
	size_t i;

	if (!env->v)
		return;
	for (i = 0; i < env->n; i++)
		free(env->v[i]);
	free(env->v);
	memset(env, 0, sizeof(*env));
}

/* The variables env_with_proxy() sets. */
static const char *const proxy_names[] = {
	"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy",
	"ALL_PROXY",  "all_proxy",  "NO_PROXY",	   "no_proxy",
};

static bool is_proxy_var(const char *e)
{
	size_t i, n;

	for (i = 0; i < array_size(proxy_names); i++) {
		n = strlen(proxy_names[i]);
		if (!strncmp(e, proxy_names[i], n) && e[n] == '=')
			return true;
	}
	return false;
}

char **env_with_proxy(const struct env_list *env, const char *http_url,
		      const char *socks_url)
{
	char **v = xcalloc(env->n + array_size(proxy_names) + 1, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < env->n; i++)
		if (!is_proxy_var(env->v[i]))
			v[n++] = xstrdup(env->v[i]);
	v[n++] = xasprintf("HTTP_PROXY=%s", http_url);
	v[n++] = xasprintf("http_proxy=%s", http_url);
	v[n++] = xasprintf("HTTPS_PROXY=%s", http_url);
	v[n++] = xasprintf("https_proxy=%s", http_url);
	v[n++] = xasprintf("ALL_PROXY=%s", socks_url);
	v[n++] = xasprintf("all_proxy=%s", socks_url);
	v[n++] = xstrdup("NO_PROXY=localhost,127.0.0.1,::1");
	v[n++] = xstrdup("no_proxy=localhost,127.0.0.1,::1");
	v[n] = NULL;
	return v;
}

void env_vector_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}
