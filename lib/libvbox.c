// SPDX-License-Identifier: MIT
/*
 * libvbox.c - the public interface of <vbox/vbox.h>: load rule files into
 * a table and answer queries, on top of the compiler's own libraries.
 *
 * Nothing here decides anything about a policy: loading is what
 * "vboxc check" does (load, build, analyse), a query is what
 * "vboxc explain" does, so the library and the program cannot disagree.
 * Only the vbox_* functions are exported (lib/libvbox.map).
 */
#include <vbox.h>

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include <vbox/vbox.h>

#include "diag.h"
#include "eval.h"
#include "fspath.h"
#include "ir.h"
#include "load.h"
#include "location.h"
#include "netaddr.h"
#include "shadow.h"
#include "stmt.h"
#include "target.h"

/* The program name diagnostics without a file position start with. */
#define LIBVBOX_NAME "vbox"

/**
 * struct vbox_policy - a loaded policy
 * @inputs: every rule file read (row locations point into them)
 * @table: the built and analysed table
 * @fs_sources: "FILE:LINE:COL" of each file row, by row index (owned)
 * @net_sources: the same for the network rows (owned)
 */
struct vbox_policy {
	struct input_set inputs;
	struct table *table;
	char **fs_sources;
	char **net_sources;
};

/* The locations of @rows as strings, by row index; decisions borrow them. */
static char **sources_of(const struct rowvec *rows)
{
	char **out = xcalloc(rows->n + 1, sizeof(*out));
	size_t i;

	for (i = 0; i < rows->n; i++)
		out[i] = location_format(&rows->order[i]->loc);
	return out;
}

static void sources_free(char **sources, size_t n)
{
	size_t i;

	if (!sources)
		return;
	for (i = 0; i < n; i++)
		free(sources[i]);
	free(sources);
}

void vbox_policy_free(struct vbox_policy *p)
{
	if (!p)
		return;
	if (p->table) {
		sources_free(p->fs_sources, p->table->fs.n);
		sources_free(p->net_sources, p->table->net.n);
		table_free(p->table);
	}
	input_set_free(&p->inputs);
	free(p);
}

/* Print @fmt to @diag (may be NULL) as "vbox: error: ..."; returns -1. */
__printf(2, 3) static int usage_error(FILE *diag, const char *fmt, ...)
{
	va_list ap;

	if (!diag)
		return -1;
	fprintf(diag, "%s: error: ", LIBVBOX_NAME);
	va_start(ap, fmt);
	vfprintf(diag, fmt, ap);
	va_end(ap);
	fputc('\n', diag);
	return -1;
}

/* Check the arguments of vbox_policy_load(); returns 0 or -1. */
static int check_args(struct vbox_policy **out, const char *const files[],
		      size_t nfiles, const char *const defines[],
		      size_t ndefines, FILE *diag)
{
	size_t i;

	if (!out)
		return usage_error(diag, "no place to store the policy");
	if (!files || nfiles == 0)
		return usage_error(diag, "no rule file given");
	for (i = 0; i < nfiles; i++)
		if (!files[i] || !files[i][0])
			return usage_error(diag, "rule file %zu has no name",
					   i);
	if (ndefines && !defines)
		return usage_error(diag, "%zu definitions but no array",
				   ndefines);
	for (i = 0; i < ndefines; i++) {
		const char *eq = defines[i] ? strchr(defines[i], '=') : NULL;

		if (!eq || eq == defines[i])
			return usage_error(diag, "invalid definition '%s' "
					   "(expected NAME=VALUE)",
					   defines[i] ? defines[i] : "(null)");
	}
	return 0;
}

int vbox_policy_load(struct vbox_policy **out, const char *target,
		     const char *const files[], size_t nfiles,
		     const char *const defines[], size_t ndefines,
		     FILE *diagnostics)
{
	struct compile_opts copts;
	struct diag_list diags;
	struct stmt_list stmts = { 0 };
	struct vbox_policy *p;
	int loaded, ret = -1;

	if (out)
		*out = NULL;
	if (check_args(out, files, nfiles, defines, ndefines, diagnostics))
		return -1;
	memset(&copts, 0, sizeof(copts));
	copts.target = target ? target_lookup(target) : target_host();
	if (!copts.target)
		return usage_error(diagnostics, "unknown target '%s' "
				   "(expected %s)", target, target_names());
	copts.vars.defines = (const char **)defines;
	copts.vars.ndefines = ndefines;
	copts.vars.environ = environ;
	copts.vars.home_override = NULL;

	p = xzalloc(sizeof(*p));
	diag_list_init(&diags);
	diags.max_errors = DIAG_DEFAULT_MAX_ERRORS;
	/* As vboxc: statements that parsed are still checked after an error. */
	loaded = load_rules(&p->inputs, (const char *const *)files, nfiles,
			    &stmts, &diags) == 0 && !diags.nerrors;
	p->table = table_build(&stmts, &copts, &diags);
	if (p->table && loaded) {
		shadow_analyze(p->table, &diags);
		if (!diags.nerrors)
			ret = 0;
	}
	if (diagnostics)
		diag_print(diagnostics, &diags, LIBVBOX_NAME);
	diag_list_free(&diags);
	stmt_list_free(&stmts);
	if (ret) {
		vbox_policy_free(p);
		return -1;
	}
	p->fs_sources = sources_of(&p->table->fs);
	p->net_sources = sources_of(&p->table->net);
	*out = p;
	return 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Split "OP ARG" as a --queries line is split: blanks around both, one
 * word, then the rest.  Returns the operation, or -1 when @query has no
 * known operation or no argument; *@arg is a new string the caller frees.
 */
static int split_query(const char *query, char **arg)
{
	static const char *const ops[] = { "read", "write", "net" };
	const char *word, *rest, *end;
	size_t wlen, i;

	for (word = query; is_blank(*word); word++)
		;
	for (wlen = 0; word[wlen] && !is_blank(word[wlen]); wlen++)
		;
	for (rest = word + wlen; is_blank(*rest); rest++)
		;
	end = rest + strlen(rest);
	while (end > rest && is_blank(end[-1]))
		end--;
	if (end == rest)
		return -1;
	for (i = 0; i < array_size(ops); i++) {
		if (strlen(ops[i]) == wlen &&
		    strncmp(word, ops[i], wlen) == 0) {
			*arg = xstrndup(rest, (size_t)(end - rest));
			return (int)i;
		}
	}
	return -1;
}

int vbox_explain(const struct vbox_policy *p, const char *query,
		 struct vbox_decision *out)
{
	struct decision dec = { 0 };
	char *arg = NULL, *err = NULL;
	char *const *sources;
	int op, ret = -1;

	if (!out)
		return -1;
	memset(out, 0, sizeof(*out));
	out->row = -1;
	if (!p || !query)
		return -1;
	op = split_query(query, &arg);
	if (op < 0)
		return -1;

	if (op == 2) {
		struct net_target t;

		memset(&t, 0, sizeof(t));
		if (net_query_parse(arg, &t, &err) < 0)
			goto out;
		eval_net(p->table, &t, &dec);
		net_target_free(&t);
		sources = p->net_sources;
	} else {
		struct fs_path path;

		memset(&path, 0, sizeof(path));
		if (fs_path_parse(arg, p->table->target, &path, &err) < 0)
			goto out;
		eval_fs(p->table, &path, op == 1 ? FS_WRITE : FS_READ, &dec);
		fs_path_free(&path);
		sources = p->fs_sources;
	}
	out->allow = dec.allow;
	if (dec.row) {
		out->row = (int)dec.row->index;
		out->level = dec.row->level;
		out->effect = effect_name(dec.row->effect);
		out->source = sources[dec.row->index];
	}
	ret = 0;
out:
	free(err);
	free(arg);
	return ret;
}

const char *vbox_version(void)
{
	return PACKAGE_VERSION;
}
