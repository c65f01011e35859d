/* SPDX-License-Identifier: MIT */
/*
 * env.h - the environment vbox-exec gives the child (doc/launcher.md,
 * "Environment").
 *
 * The child's environment is built once, before anything starts, from
 * the launcher's own environment and the -e options:
 *
 *   1. unless --replace-env, every inherited "NAME=VALUE" whose NAME does
 *      not look like a secret (ENV_SECRET_WORDS, case-insensitive
 *      substrings, ENV_SECRET_NAMES and ENV_SECRET_SUFFIX) and is not an ambient proxy variable (NAME ends in
 *      "_PROXY", any case); an entry without '=' and a repeated NAME
 *      (getenv() sees only the first) are dropped too;
 *   2. then each -e NAME=VALUE in command-line order, replacing a variable
 *      of the same name (the last -e of a name wins);
 *   3. then, when an egress proxy runs, its variables, which nothing can
 *      override (env_with_proxy()).
 */
#ifndef VBOX_ENV_H
#define VBOX_ENV_H

#include <stdbool.h>
#include <stddef.h>

/*
 * What marks an inherited variable as a secret (SPEC 3.2), all compared
 * without regard to case: a name containing one of ENV_SECRET_WORDS, a
 * name that is one of ENV_SECRET_NAMES, or a name ending in
 * ENV_SECRET_SUFFIX (a personal access token: GITHUB_PAT, GITLAB_PAT).
 */
#define ENV_SECRET_WORDS                                                    \
	"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "API_KEY",   \
		"PRIVATE_KEY", "ACCESS_KEY", "SESSION", "COOKIE", "AUTH",   \
		"PASSPHRASE", "JWT"
#define ENV_SECRET_NAMES "DATABASE_URL", "MYSQL_PWD", "PGPASSWORD"
#define ENV_SECRET_SUFFIX "_PAT"

/*
 * Bounds on what the launcher accepts, so that no input makes it build an
 * environment without limit (the kernel refuses far less at execve()).
 */
#define ENV_MAX_VARS 65536

/**
 * struct env_list - a NULL-terminated "NAME=VALUE" vector in order
 * @v: the entries (each owned) followed by NULL; never NULL itself
 * @n: number of entries
 * @cap: allocated slots in @v, the NULL included
 */
struct env_list {
	char **v;
	size_t n;
	size_t cap;
};

/* env_name_is_secret - does variable @name look like a secret? */
bool env_name_is_secret(const char *name, size_t len);

/* env_name_is_proxy - is @name an ambient proxy variable ("*_PROXY")? */
bool env_name_is_proxy(const char *name, size_t len);

/*
 * env_check_assignment - is @arg a valid "-e" value: "NAME=VALUE" with a
 * non-empty NAME, or a bare "NAME" (pass the launcher's own value
 * through; env_build() leaves it out when the launcher has none)?
 * Returns 0, or -1 with a message in *@err (caller frees).
 */
int env_check_assignment(const char *arg, char **err);

/*
 * env_build - fill *@out (caller frees with env_list_free()) with the
 * child's environment from @inherited (NULL-terminated, may be NULL) and
 * the @nsets assignments @sets (each checked by env_check_assignment()),
 * following the rules above.  Returns 0, or -1 with a message in *@err
 * when the result would exceed ENV_MAX_VARS.
 */
int env_build(char *const *inherited, const char *const *sets, size_t nsets,
	      bool replace, struct env_list *out, char **err);

/* env_get - the value of @name in @env, or NULL. */
const char *env_get(const struct env_list *env, const char *name);

/*
 * env_copy_with - *@out (free with env_list_free()): @env with @name set
 * to @value, last, whatever @env gave it.
 */
void env_copy_with(const struct env_list *env, const char *name,
		   const char *value, struct env_list *out);

void env_list_free(struct env_list *env);

/*
 * env_with_proxy - a new NULL-terminated vector (caller frees with
 * env_vector_free()): @env without any of the proxy's variables, then
 * HTTP_PROXY, HTTPS_PROXY (both @http_url), ALL_PROXY (@socks_url) and
 * NO_PROXY (loopback), each in upper and lower case, last, so nothing the
 * caller gave overrides them (doc/proxy.md, "The child's environment").
 */
char **env_with_proxy(const struct env_list *env, const char *http_url,
		      const char *socks_url);
void env_vector_free(char **v);

#endif /* VBOX_ENV_H */
