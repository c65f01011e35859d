/* SPDX-License-Identifier: MIT */
/*
 * darwin_testlib.c - what the darwin profile tests share
 * (darwin_testlib.h).
 */
#include <vbox.h>

#include <stdio.h>

#include "darwin_testlib.h"
#include "diag.h"
#include "emit.h"
#include "sbpl_check.h"
#include "tap.h"
#include "testlib.h"

/* Would writing @path (an existing file, or creating it) succeed? */
bool dt_may_write(const struct sbpl_profile *prof, const char *path)
{
	bool allow = false;

	sbpl_eval_path(prof, "file-write-data", path, &allow);
	return allow || sbpl_may_create(prof, path, SBPL_VNODE_REGULAR);
}

/* The profile of @c as text (caller frees), or NULL. */
char *dt_emit(const struct tl_compiled *c, size_t *len)
{
	struct diag_list diags;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int rc;

	if (!f)
		BUG("open_memstream failed");
	diag_list_init(&diags);
	rc = emitter_darwin.emit_profile(c->table, &c->landing, f, &diags);
	diag_list_free(&diags);
	if (fclose(f) || rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

struct sbpl_profile *dt_profile_of(struct tl_compiled *c,
				       const char *rules)
{
	struct sbpl_profile *prof;
	char *text, *err = NULL;
	size_t len = 0;

	if (tl_compile(c, rules, "darwin", TL_CLASSIFY) || c->classified)
		return NULL;
	text = dt_emit(c, &len);
	if (!text)
		return NULL;
	prof = xzalloc(sizeof(*prof));
	if (sbpl_parse(text, len, prof, &err) || sbpl_check(prof, &err)) {
		diag("  checker: %s", err);
		free(err);
		sbpl_profile_free(prof);
		free(prof);
		prof = NULL;
	}
	free(text);
	return prof;
}

void dt_profile_free(struct sbpl_profile *prof)
{
	if (prof)
		sbpl_profile_free(prof);
	free(prof);
}

bool dt_may(const struct sbpl_profile *prof, const char *op,
		const char *path)
{
	bool allow = false;

	if (prof)
		sbpl_eval_path(prof, op, path, &allow);
	return allow;
}
