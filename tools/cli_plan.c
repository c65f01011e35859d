// SPDX-License-Identifier: MIT
/*
 * cli_plan.c - a plan where rules are expected: "vboxc explain PLAN"
 * answers from the table plan.bin carries (cli.h).
 *
 * A plan holds every row as it was compiled: its normalized target,
 * effect, level and "SOURCE:LINE:COL".  The table is rebuilt from those
 * (compiler/table.c, table_from_specs()), so explain answers with the
 * same matcher and the same words as for the rules; a row's location
 * names its file as the plan does (relative to the source root,
 * doc/rules.md), the other queries' answers are the same bytes.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "diag.h"
#include "ir.h"
#include "location.h"
#include "plan.h"
#include "target.h"
#include "target_id.h"

bool cli_file_is_plan(const char *path)
{
	char magic[sizeof(PLAN_MAGIC) - 1];
	struct stat st;
	ssize_t n;
	int fd;

	if (strcmp(path, "-") == 0)
		return false;
	/*
	 * Only a regular file can be a plan, and only its name is looked at
	 * before the open: opening a FIFO (RULES as a named pipe), even
	 * O_NONBLOCK, lets its writer in, and the bytes it then writes and
	 * closes on are lost when this fd closes; the loader's own open
	 * waited for a writer that had gone, forever.  Reading a pipe
	 * (RULES as <(...)) would take bytes from the rules.
	 */
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return false;
	/* the same check on what was opened (the name may have changed) */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	do
		n = read(fd, magic, sizeof(magic));
	while (n < 0 && errno == EINTR);
	close(fd);
	return n == (ssize_t)sizeof(magic) &&
	       memcmp(magic, PLAN_MAGIC, sizeof(magic)) == 0;
}

/* The input named @name among @set's, added (empty) when new. */
static const struct input *source_input(struct input_set *set,
					const char *name, size_t len)
{
	struct input *in;
	size_t i;

	for (i = 0; i < set->n; i++)
		if (strlen(set->items[i]->name) == len &&
		    memcmp(set->items[i]->name, name, len) == 0)
			return set->items[i];
	in = xzalloc(sizeof(*in));
	in->name = xstrndup(name, len);
	in->source = xstrndup(name, len);
	in->buf = xstrdup("");
	return input_set_add(set, in);
}

/* A decimal number of 1..UINT_MAX at @s (@len bytes), or 0. */
static unsigned parse_uint(const char *s, size_t len)
{
	unsigned long v = 0;
	size_t i;

	if (!len || len > 10)
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	return v <= UINT_MAX ? (unsigned)v : 0;
}

/*
 * The location "FILE:LINE:COL" names, with an input of @set for FILE; no
 * input (the answer prints no source) when @source is not of that form.
 */
static struct location source_location(struct input_set *set,
				       const char *source)
{
	struct location loc = { 0 };
	const char *col = strrchr(source, ':'), *line;

	if (!col || col == source)
		return loc;
	for (line = col - 1; line > source && line[-1] != ':'; line--)
		;
	if (line <= source + 1)
		return loc;
	loc.line = parse_uint(line, (size_t)(col - line));
	loc.col = parse_uint(col + 1, strlen(col + 1));
	if (!loc.line || !loc.col) {
		memset(&loc, 0, sizeof(loc));
		return loc;
	}
	loc.last_col = loc.col;
	loc.in = source_input(set, source, (size_t)(line - 1 - source));
	return loc;
}

static struct row_spec *row_specs(struct input_set *set,
				  const struct plan_row *rows, size_t n)
{
	struct row_spec *specs = xcalloc(n ? n : 1, sizeof(*specs));
	size_t i;

	for (i = 0; i < n; i++) {
		specs[i].effect = (enum effect)rows[i].effect;
		specs[i].level = rows[i].level;
		specs[i].text = rows[i].target;
		specs[i].loc = source_location(set, rows[i].source);
	}
	return specs;
}

/* A plan cannot take what changes how rules compile: say which. */
static int plan_options_error(struct cli_session *s,
			      const struct cli_opts *opts, const char *path,
			      const struct target_traits *target)
{
	if (opts->nrules != 1)
		return diag_error(&s->diags, NULL, "'%s' is a plan: explain "
				  "reads one plan alone, or rule files",
				  path);
	if (opts->ndefines)
		return diag_error(&s->diags, NULL, "-D does not apply to the "
				  "plan '%s': its patterns were expanded when "
				  "it was compiled", path);
	if (opts->ninclude_dirs)
		return diag_error(&s->diags, NULL, "-I does not apply to the "
				  "plan '%s': its includes were read when it "
				  "was compiled", path);
	if (opts->target_given && opts->target != target)
		return diag_error(&s->diags, NULL, "the plan '%s' is for %s, "
				  "not --target=%s", path, target->name,
				  opts->target->name);
	return 0;
}

int cli_session_load_plan(struct cli_session *s, const struct cli_opts *opts)
{
	const char *path = opts->rules[0];
	const struct target_traits *target;
	struct row_spec *fs = NULL, *net = NULL;
	struct plan plan;
	char *err = NULL;
	int ret = -1;

	memset(s, 0, sizeof(*s));
	diag_list_init(&s->diags);
	s->diags.max_errors = opts->max_errors;
	if (plan_load(path, &plan, &err) < 0) {
		diag_error(&s->diags, NULL, "%s", err);
		free(err);
		return -1;
	}
	target = target_lookup(target_id_name(plan.target));
	if (!target) {
		diag_error(&s->diags, NULL, "%s: a plan for an unknown target",
			   path);
		goto out;
	}
	if (plan_options_error(s, opts, path, target))
		goto out;
	fs = row_specs(&s->inputs, plan.fs, plan.nfs);
	net = row_specs(&s->inputs, plan.net, plan.nnet);
	s->table = table_from_specs(target, (enum effect)plan.default_write,
				    (enum effect)plan.default_net, fs,
				    plan.nfs, net, plan.nnet, &err);
	if (!s->table) {
		diag_error(&s->diags, NULL, "%s: %s", path, err);
		free(err);
		goto out;
	}
	ret = 0;
out:
	free(fs);
	free(net);
	plan_release(&plan);
	return ret;
}
