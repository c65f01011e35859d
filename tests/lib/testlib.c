/* SPDX-License-Identifier: MIT */
/*
 * testlib.c - the shared fixture of the C unit tests: see testlib.h.
 */
#include <vbox.h>

#include <dirent.h>
#include <stdio.h>

#include "diag.h"
#include "emit.h"
#include "ir.h"
#include "load.h"
#include "shadow.h"
#include "stmt.h"
#include "target.h"
#include "testlib.h"

/* A case file larger than this is refused rather than read in part. */
#define TL_CASE_MAX (1u << 20)

static char tl_home_var[] = "HOME=" TL_HOME;
char *const tl_environ[] = { tl_home_var, NULL };

int tl_compile_source(struct tl_compiled *c, const struct tl_source *src)
{
	const struct target_traits *target = target_lookup(src->target);
	struct compile_opts opts = {
		.target = target,
		.vars = {
			.defines = src->defines,
			.ndefines = src->ndefines,
			.environ = src->environ ? src->environ : tl_environ,
		},
	};
	const struct emitter *em;
	int ret;

	if (!target)
		BUG("unknown target '%s'", src->target);
	if (!src->text && !src->path)
		BUG("neither rules text nor a rules file to compile");
	memset(c, 0, sizeof(*c));
	diag_list_init(&c->diags);
	if (src->text)
		ret = load_buffer(&c->inputs, "t.rules", src->text,
				  strlen(src->text), &c->stmts, &c->diags);
	else
		ret = load_rules(&c->inputs, &src->path, 1, &c->stmts,
				 &c->diags);
	if (ret)
		goto fail;
	c->table = table_build(&c->stmts, &opts, &c->diags);
	if (!c->table)
		goto fail;
	if (!(src->flags & (TL_SHADOW | TL_CLASSIFY | TL_LANDINGS)))
		return 0;
	shadow_analyze(c->table, &c->diags);
	em = emitter_for(target);
	if (src->flags & TL_CLASSIFY) {
		c->classified = emit_classify(em, c->table, &c->landing,
					      &c->diags);
	} else if (src->flags & TL_LANDINGS) {
		landing_set_init(&c->landing, c->table);
		em->classify(c->table, &c->landing);
	}
	return 0;
fail:
	if (!(src->flags & TL_QUIET))
		diag_print(stdout, &c->diags, "# test");
	return -1;
}

int tl_compile(struct tl_compiled *c, const char *text, const char *target,
	       unsigned flags)
{
	const struct tl_source src = {
		.text = text,
		.target = target,
		.flags = flags,
	};

	return tl_compile_source(c, &src);
}

void tl_compiled_free(struct tl_compiled *c)
{
	landing_set_free(&c->landing);
	table_free(c->table);
	stmt_list_free(&c->stmts);
	input_set_free(&c->inputs);
	diag_list_free(&c->diags);
}

bool tl_has_error(const struct diag_list *d, const char *needle)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->items[i].severity == DIAG_ERROR &&
		    strstr(d->items[i].msg, needle))
			return true;
	return false;
}

/* ---- testdata cases ---- */

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tl_cases_open(struct tl_cases *cases)
{
	const char *srcdir = getenv("srcdir");
	struct dirent *de;
	DIR *d;
	size_t len;

	memset(cases, 0, sizeof(*cases));
	cases->dir = xasprintf("%s/testdata", srcdir ? srcdir : ".");
	d = opendir(cases->dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (len < 9 || strncmp(de->d_name, "ok_", 3) ||
		    strcmp(de->d_name + len - 6, ".rules"))
			continue;
		cases->names = xreallocarray(cases->names, cases->n + 1,
					     sizeof(*cases->names));
		cases->names[cases->n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (cases->n)
		qsort(cases->names, cases->n, sizeof(*cases->names),
		      name_cmp);
	return 0;
}

void tl_cases_free(struct tl_cases *cases)
{
	size_t i;

	for (i = 0; i < cases->n; i++)
		free(cases->names[i]);
	free(cases->names);
	free(cases->dir);
	memset(cases, 0, sizeof(*cases));
}

/* The whole file, NUL-terminated (caller frees), or NULL. */
static char *read_case(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;
	int err;

	if (!f)
		return NULL;
	buf = xmalloc(TL_CASE_MAX + 1);
	n = fread(buf, 1, TL_CASE_MAX + 1, f);
	err = ferror(f);
	fclose(f);
	/* A case cut at the limit would test something else: refuse it. */
	if (err || n > TL_CASE_MAX) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/*
 * The value of the "# KEY:" line among the leading '#' lines of @text
 * (after a UTF-8 byte-order mark, which the loader skips too), blanks
 * trimmed (caller frees), or NULL.
 */
static char *case_header(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text, *eol, *v;

	if (!strncmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	while (*p == '#') {
		eol = p + strcspn(p, "\r\n");
		if (!strncmp(p, "# ", 2) && !strncmp(p + 2, key, klen) &&
		    p[2 + klen] == ':') {
			v = p + 3 + klen;
			v += strspn(v, " \t");
			while (eol > v && (eol[-1] == ' ' || eol[-1] == '\t'))
				eol--;
			return xstrndup(v, (size_t)(eol - v));
		}
		p = eol + strspn(eol, "\r\n");
	}
	return NULL;
}

/* Is @word one of the blank-separated words of @list? */
static bool has_word(const char *list, const char *word)
{
	size_t wlen = strlen(word), n;
	const char *p = list;

	for (;;) {
		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (!n)
			return false;
		if (n == wlen && !strncmp(p, word, n))
			return true;
		p += n;
	}
}

/*
 * Read case @name of @dir and call @fn with it when its TARGETS name
 * @target.  Returns 0, or -1 when the file cannot be read.
 */
static int case_run(const char *dir, const char *name, const char *target,
		    void (*fn)(const struct tl_case *tc, void *ctx), void *ctx)
{
	char *path = xasprintf("%s/%s", dir, name), *text, *targets;
	char *defines = NULL, *w, *save = NULL;
	const char **defs = NULL;
	size_t ndefs = 0;

	text = read_case(path);
	if (!text) {
		printf("# %s: cannot read, or over %u bytes\n", path,
		       TL_CASE_MAX);
		free(path);
		return -1;
	}
	targets = case_header(text, "TARGETS");
	if (targets && has_word(targets, target)) {
		struct tl_case tc = {
			.name = name, .path = path, .text = text,
		};

		defines = case_header(text, "DEFINES");
		for (w = defines ? strtok_r(defines, " \t", &save) : NULL; w;
		     w = strtok_r(NULL, " \t", &save)) {
			defs = xreallocarray(defs, ndefs + 1, sizeof(*defs));
			defs[ndefs++] = w;
		}
		tc.defines = defs;
		tc.ndefines = ndefs;
		fn(&tc, ctx);
	}
	free(defs);
	free(defines);
	free(targets);
	free(text);
	free(path);
	return 0;
}

size_t tl_cases_foreach(const struct tl_cases *cases, const char *target,
			void (*fn)(const struct tl_case *tc, void *ctx),
			void *ctx)
{
	size_t i, nunread = 0;

	for (i = 0; i < cases->n; i++)
		if (case_run(cases->dir, cases->names[i], target, fn, ctx))
			nunread++;
	return nunread;
}
