/* SPDX-License-Identifier: MIT */
/*
 * table.c - from assembled statements to a validated, priority-ordered
 * table.
 *
 * Every row is checked even after an error so one run reports every bad
 * row; but one bad row rejects the whole table, because leaving a row out
 * could make the sandbox wider than the policy.
 */
#include <vbox.h>

#include "blanks.h"
#include "diag.h"
#include "eval.h"
#include "grow.h"
#include "hugemem.h"
#include "ir.h"
#include "misspell.h"
#include "table_int.h"
#include "target.h"

char *row_text(const struct row *row)
{
	const char *target = row->domain == DOMAIN_FS ? row->fs.text :
							row->net.text;
	char bangs[LEVEL_MAX + 1];

	memset(bangs, '!', row->level);
	bangs[row->level] = '\0';
	return xasprintf("%s%s:%s", bangs, effect_name(row->effect), target);
}

/* What @row holds; the row itself is in the table's row pool. */
static void row_release(struct row *row)
{
	if (!row)
		return;
	switch (row->domain) {
	case DOMAIN_FS:
		fs_pattern_free(&row->fs);
		break;
	case DOMAIN_NET:
		net_target_free(&row->net);
		break;
	default:
		BUG("bad domain %d", row->domain);
	}
	if (!row->raw_is_text)
		free(row->raw);
}

void rowvec_push(struct rowvec *vec, size_t *cap, struct row *row)
{
	GROW(vec->order, *cap, vec->n + 1);
	row->index = vec->n;
	vec->order[vec->n++] = row;
}

static void rowvec_free(struct rowvec *vec)
{
	size_t i;

	for (i = 0; i < vec->n; i++)
		row_release(vec->order[i]);
	free(vec->order);
	free(vec->prio);
	memset(vec, 0, sizeof(*vec));
}

void table_free_partials(struct table *table)
{
	size_t i;

	for (i = 0; i < table->npartials; i++) {
		free(table->partials[i].example);
		free(table->partials[i].if_dir);
	}
	free(table->partials);
	table->partials = NULL;
	table->npartials = 0;
}

void table_free(struct table *table)
{
	if (!table)
		return;
	index_free(table);
	rowvec_free(&table->fs);
	rowvec_free(&table->net);
	row_pool_free(&table->rows);
	free(table->upstream_proxy);
	free(table->findings);
	table_free_partials(table);
	free(table->host_words);
	for (size_t i = 0; i < table->nblanks; i++)
		free(table->blanks[i].msg);
	free(table->blanks);
	free(table);
}

/*
 * Order is policy: higher level first, then table order.  A counting sort
 * over the 256 levels is stable and linear.
 */
void rowvec_sort_priority(struct rowvec *vec)
{
	size_t start[LEVEL_MAX + 2] = { 0 };
	size_t i;
	int level;

	vec->prio = xcalloc(vec->n ? vec->n : 1, sizeof(*vec->prio));
	for (i = 0; i < vec->n; i++)
		start[LEVEL_MAX - vec->order[i]->level + 1]++;
	for (level = 1; level <= LEVEL_MAX + 1; level++)
		start[level] += start[level - 1];
	for (i = 0; i < vec->n; i++) {
		struct row *row = vec->order[i];
		size_t pos = start[LEVEL_MAX - row->level]++;

		row->prio = pos;
		vec->prio[pos] = row;
	}
}

/* A directive set twice must agree with itself. */
static int directive_once(struct diag_list *diags, const char *what,
			  const struct location *first, bool *seen,
			  bool same, const struct stmt *s)
{
	if (*seen && !same) {
		diag_error(diags, &s->loc, "%s given twice with different "
			   "values", what);
		diag_note(diags, first, "first given here");
		return -1;
	}
	*seen = true;
	return 0;
}

/**
 * struct undef_var - an undefined variable already reported
 * @what: the variable's name ("VBOX_GIT_REPO")
 * @diag: index of its error in the diagnostic list
 * @more: further rows that use it (not reported again)
 */
struct undef_var {
	char *what;
	size_t diag;
	size_t more;
};

struct build_state {
	struct table *table;
	const struct compile_opts *opts;
	struct diag_list *diags;
	size_t fs_cap;
	size_t net_cap;
	size_t host_words_cap;
	size_t blanks_cap;
	bool seen_write;
	bool seen_net;
	bool seen_tmp;
	bool seen_upstream;
	struct undef_var *undef;
	size_t nundef;
	size_t undef_cap;
};

/* "; did you mean 'X'?" when @word is close to one of @names, else "". */
static char *did_you_mean(const char *word, const char *const *names,
			  size_t n)
{
	const char *hint = misspell_suggest(word, strlen(word), names, n);

	return hint ? xasprintf("; did you mean '%s'?", hint) : xstrdup("");
}

/* Queue "invalid value" for @default @what with a hint; returns -1. */
static int bad_default_value(struct build_state *st, const struct stmt *s,
			     const char *what, const char *a, const char *b)
{
	const char *names[] = { a, b };
	char *hint = did_you_mean(s->value, names, 2);
	int ret;

	ret = diag_error(st->diags, &s->value_loc,
			 "invalid value '%s' for '@default %s': expected "
			 "'%s' or '%s'%s", s->value, what, a, b, hint);
	free(hint);
	return ret;
}

static int handle_default(struct build_state *st, const struct stmt *s)
{
	static const char *const settings[] = { "write", "net", "tmp" };
	char *hint;
	int ret;

	struct table *t = st->table;
	enum effect value;

	if (strcmp(s->arg, "write") == 0) {
		if (strcmp(s->value, "deny") == 0)
			value = EFFECT_DENY;
		else if (strcmp(s->value, "rw") == 0)
			value = EFFECT_RW;
		else
			return bad_default_value(st, s, "write", "deny", "rw");
		if (directive_once(st->diags, "'@default write'",
				   &t->default_write_loc, &st->seen_write,
				   value == t->default_write, s))
			return -1;
		t->default_write = value;
		t->default_write_loc = s->loc;
		return 0;
	}
	if (strcmp(s->arg, "net") == 0) {
		if (strcmp(s->value, "deny") == 0)
			value = EFFECT_DENY;
		else if (strcmp(s->value, "open") == 0)
			value = EFFECT_ALLOW;
		else
			return bad_default_value(st, s, "net", "deny", "open");
		if (directive_once(st->diags, "'@default net'",
				   &t->default_net_loc, &st->seen_net,
				   value == t->default_net, s))
			return -1;
		t->default_net = value;
		t->default_net_loc = s->loc;
		return 0;
	}
	if (strcmp(s->arg, "tmp") == 0) {
		bool priv;

		if (strcmp(s->value, "private") == 0)
			priv = true;
		else if (strcmp(s->value, "host") == 0)
			priv = false;
		else
			return bad_default_value(st, s, "tmp", "host",
						 "private");
		if (directive_once(st->diags, "'@default tmp'",
				   &t->default_tmp_loc, &st->seen_tmp,
				   priv == t->tmp_private, s))
			return -1;
		t->tmp_private = priv;
		t->default_tmp_loc = s->loc;
		return 0;
	}
	hint = did_you_mean(s->arg, settings, array_size(settings));
	ret = diag_error(st->diags, &s->arg_loc,
			 "unknown '@default' setting '%s': expected 'write', "
			 "'net' or 'tmp'%s", s->arg, hint);
	free(hint);
	return ret;
}

/*
 * doc/rules.md §4 "@upstream-proxy": a scheme (http, socks5, socks5h),
 * an optional user:password@,
 * a host (IPv6 bracketed) and a port, nothing after the port.
 */
static int validate_upstream(struct build_state *st, const struct stmt *s)
{
	static const char *const schemes[] = { "http://", "socks5://",
					       "socks5h://" };
	const char *url = s->value, *rest = NULL, *at;
	struct net_target hp;
	char *err = NULL, *hostport;
	size_t i;
	int ret = 0;

	for (i = 0; i < array_size(schemes); i++) {
		if (strncmp(url, schemes[i], strlen(schemes[i])) == 0) {
			rest = url + strlen(schemes[i]);
			break;
		}
	}
	if (!rest)
		return diag_error(st->diags, &s->value_loc,
				  "invalid '@upstream-proxy' URL '%s': the "
				  "scheme must be http://, socks5:// or "
				  "socks5h://", url);
	at = strrchr(rest, '@');
	if (at) {
		const char *colon = memchr(rest, ':', at - rest);

		if (at == rest || colon == rest)
			return diag_error(st->diags, &s->value_loc,
					  "invalid '@upstream-proxy' URL '%s': "
					  "empty user name", url);
		rest = at + 1;
	}
	if (!*rest)
		return diag_error(st->diags, &s->value_loc,
				  "invalid '@upstream-proxy' URL '%s': missing "
				  "host", url);
	hostport = xstrdup(rest);
	if (net_rule_parse(hostport, &hp, &err)) {
		ret = diag_error(st->diags, &s->value_loc,
				 "invalid '@upstream-proxy' URL '%s': %s", url,
				 err);
		free(err);
		free(hostport);
		return ret;
	}
	if (hp.kind == HOST_SUFFIX)
		ret = diag_error(st->diags, &s->value_loc,
				 "invalid '@upstream-proxy' URL '%s': a "
				 "wildcard host is not a proxy", url);
	else if (hp.any_port)
		ret = diag_error(st->diags, &s->value_loc,
				 "invalid '@upstream-proxy' URL '%s': a port "
				 "is required", url);
	net_target_free(&hp);
	free(hostport);
	return ret;
}

static int handle_upstream(struct build_state *st, const struct stmt *s)
{
	struct table *t = st->table;

	if (validate_upstream(st, s))
		return -1;
	if (directive_once(st->diags, "'@upstream-proxy'", &t->upstream_loc,
			   &st->seen_upstream,
			   t->upstream_proxy &&
				   strcmp(t->upstream_proxy, s->value) == 0,
			   s))
		return -1;
	if (!t->upstream_proxy) {
		t->upstream_proxy = xstrdup(s->value);
		t->upstream_loc = s->loc;
	}
	return 0;
}

/* Which table a row goes to: doc/rules.md §2 "Sections". */
static int row_domain(struct build_state *st, const struct stmt *s,
		      enum domain *out)
{
	bool fs_effect = s->effect == EFFECT_RO || s->effect == EFFECT_RW;

	switch (s->section) {
	case SECTION_FS:
		if (s->effect == EFFECT_ALLOW)
			return diag_error(st->diags, &s->loc,
					  "'allow' row in a [fs] section: "
					  "'allow' is a network effect");
		*out = DOMAIN_FS;
		return 0;
	case SECTION_NET:
		if (fs_effect)
			return diag_error(st->diags, &s->loc,
					  "'%s' row in a [net] section: '%s' "
					  "is a file effect",
					  effect_name(s->effect),
					  effect_name(s->effect));
		*out = DOMAIN_NET;
		return 0;
	case SECTION_NONE:
		if (s->effect == EFFECT_DENY)
			*out = fs_target_is_pathlike(s->value) ? DOMAIN_FS :
								 DOMAIN_NET;
		else
			*out = fs_effect ? DOMAIN_FS : DOMAIN_NET;
		return 0;
	default:
		BUG("bad section %d", s->section);
	}
}

/*
 * A deny row outside any section is a network row when its target is not
 * path-like (doc/rules.md §2 "Sections"): "deny:id_rsa" blocks a host
 * named id_rsa and
 * protects no file.  The classification is the contract; these two say
 * so and how to write the file row the user probably meant.
 */
static bool deny_read_as_host(const struct stmt *s)
{
	return s->section == SECTION_NONE && s->effect == EFFECT_DENY;
}

static char *file_row_hint(const char *value)
{
	const char *name = value;

	/* "**" "/NAME" needs a single segment: use the last one. */
	if (strrchr(name, '/') && strrchr(name, '/')[1])
		name = strrchr(name, '/') + 1;
	return xasprintf("a deny target that is not path-like is a network "
			 "host; to deny a file write '/...', '~/...' or "
			 "'**/%s'", name);
}

static int deny_host_error(struct build_state *st, const struct stmt *s,
			   const char *err)
{
	char *hint;
	int ret;

	/* A target with a port, a user or brackets was meant as a host. */
	if (!deny_read_as_host(s) || strpbrk(s->value, ":@[") ||
	    net_text_is_range(s->value))
		return diag_error(st->diags, &s->value_loc, "%s", err);
	hint = file_row_hint(s->value);
	if (s->value[0] == '.')
		ret = diag_error(st->diags, &s->value_loc,
				 "'%s' is not a host name (it starts with "
				 "'.'): %s", s->value, hint);
	else
		ret = diag_error(st->diags, &s->value_loc, "%s; %s", err,
				 hint);
	free(hint);
	return ret;
}

static void deny_host_warning(struct build_state *st, const struct stmt *s,
			      const struct row *row)
{
	struct table *t = st->table;
	char *hint;

	if (!deny_read_as_host(s) || row->net.kind != HOST_NAME ||
	    strchr(row->net.host, '.'))
		return;
	hint = file_row_hint(s->value);
	diag_warning(st->diags, &s->value_loc, "deny target '%s' is read as "
		     "the network host '%s', not a file: %s (inside a [net] "
		     "section it stays a host, without this warning)",
		     s->value, row->net.host, hint);
	free(hint);
	GROW(t->host_words, st->host_words_cap, t->nhost_words + 1);
	t->host_words[t->nhost_words++] = row;
}

/*
 * Library variables and what their value is, for the hint of an
 * undefined-variable error; any other NAME gets "-D NAME=VALUE".
 */
static const struct {
	const char *name;
	const char *hint;
} var_hints[] = {
	{ "VBOX_GIT_REPO", "pass -D VBOX_GIT_REPO=DIR, the working tree of "
	  "the repository <git-protect> protects" },
	{ "PROJECT", "pass -D PROJECT=DIR, the project's directory (e.g. "
	  "-D PROJECT=\"$PWD\")" },
};

/* The name in "$NAME", "${NAME}" or "%NAME%" (@what, @len bytes). */
static void undef_name(const char **what, size_t *len)
{
	if (*len > 3 && (*what)[0] == '$' && (*what)[1] == '{') {
		*what += 2;
		*len -= 3;
	} else if (*len > 2 && (*what)[0] == '%') {
		*what += 1;
		*len -= 2;
	} else if (*len > 1 && (*what)[0] == '$') {
		*what += 1;
		*len -= 1;
	}
}

static char *undef_hint(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < array_size(var_hints); i++)
		if (strlen(var_hints[i].name) == len &&
		    memcmp(var_hints[i].name, name, len) == 0)
			return xstrdup(var_hints[i].hint);
	return xasprintf("pass -D %.*s=VALUE or set it in the environment",
			 (int)len, name);
}

/*
 * An fs row's pattern.  A variable that is simply undefined is reported
 * once, at its first row, with a hint how to define it; the rows after
 * that use it are counted into that error ("and N more rows"), not
 * reported again: one missing -D is one mistake, not one per row of a
 * library file.  The table fails all the same.
 */
static int compile_fs_row(struct build_state *st, const struct stmt *s,
			  struct row *row)
{
	static const char undef[] = "undefined variable '";
	struct diag_list tmp;
	const char *msg, *end;
	struct undef_var *u;
	char *hint;
	size_t i, len;
	int ret;

	diag_list_init(&tmp);
	ret = fs_pattern_compile(s->value, s->effect == EFFECT_DENY,
				 &s->value_loc, st->opts->target,
				 &st->opts->vars, &row->fs, &tmp);
	msg = tmp.n == 1 && tmp.items[0].severity == DIAG_ERROR ?
	      tmp.items[0].msg : NULL;
	end = msg && strncmp(msg, undef, strlen(undef)) == 0 ?
	      strchr(msg + strlen(undef), '\'') : NULL;
	/* Only the plain form, "undefined variable 'X' in pattern ...". */
	if (!end || strncmp(end, "' in pattern '", 14) != 0) {
		diag_list_take(st->diags, &tmp);
		return ret;
	}
	msg += strlen(undef);
	len = (size_t)(end - msg);
	undef_name(&msg, &len);
	for (i = 0; i < st->nundef; i++) {
		u = &st->undef[i];
		if (strlen(u->what) == len && memcmp(u->what, msg, len) == 0) {
			/* The first use's error fails the table already. */
			u->more++;
			diag_list_free(&tmp);
			return ret;
		}
	}
	GROW(st->undef, st->undef_cap, st->nundef + 1);
	u = &st->undef[st->nundef++];
	u->what = xstrndup(msg, len);
	u->diag = st->diags->n;
	u->more = 0;
	hint = undef_hint(msg, len);
	diag_error(st->diags, &s->value_loc, "%s; %s", tmp.items[0].msg, hint);
	free(hint);
	diag_list_free(&tmp);
	return ret;
}

/*
 * "(and N more rows)" on each undefined variable's error, now that the
 * rows are counted.  An error past the cap was not stored: nothing to do.
 */
static void finish_undef(struct build_state *st)
{
	struct diag *d;
	char *msg;
	size_t i;

	for (i = 0; i < st->nundef; i++) {
		const struct undef_var *u = &st->undef[i];

		if (u->more && u->diag < st->diags->n) {
			d = &st->diags->items[u->diag];
			msg = xasprintf("%s (used by %zu more row%s, not "
					"reported again)", d->msg, u->more,
					u->more == 1 ? "" : "s");
			free(d->msg);
			d->msg = msg;
		}
		free(u->what);
	}
	free(st->undef);
}

static void blanks_warning(struct build_state *st, const struct stmt *s,
			   const struct row *row)
{
	struct table *t = st->table;
	struct table_blank *b;
	struct location at;
	char *msg = blanks_check(s, &at);

	if (!msg)
		return;
	diag_warning(st->diags, &at, "%s", msg);
	GROW(t->blanks, st->blanks_cap, t->nblanks + 1);
	b = &t->blanks[t->nblanks++];
	b->row = row;
	b->at = at;
	b->msg = msg;
}

/*
 * The row's target as written: its normalized text when it was written
 * so, else the statement's own string when the statements are being
 * consumed (@take: where it is stored, then cleared), else a copy.  Set
 * last: the warnings read the statement.
 */
static void row_set_raw(struct row *row, const struct stmt *s, char **take)
{
	char *text = row->domain == DOMAIN_FS ? row->fs.text : row->net.text;

	if (strcmp(s->value, text) == 0) {
		row->raw = text;
		row->raw_is_text = true;
		return;
	}
	if (take) {
		row->raw = *take;
		*take = NULL;
	} else {
		row->raw = xstrdup(s->value);
	}
}

/* @take: as for row_set_raw(). */
static int handle_row(struct build_state *st, const struct stmt *s,
		      char **take)
{
	struct table *t = st->table;
	enum domain domain = DOMAIN_FS;
	struct row *row;
	char *err = NULL;

	if (s->level > LEVEL_MAX)
		return diag_error(st->diags, &s->loc,
				  "level %u is above the maximum %d", s->level,
				  LEVEL_MAX);
	if (row_domain(st, s, &domain))
		return -1;

	row = row_pool_alloc(&t->rows);
	row->domain = domain;
	row->effect = s->effect;
	row->level = s->level;
	row->loc = s->loc;
	switch (domain) {
	case DOMAIN_FS:
		if (compile_fs_row(st, s, row)) {
			row_pool_unalloc(&t->rows, row);
			return -1;
		}
		rowvec_push(&t->fs, &st->fs_cap, row);
		blanks_warning(st, s, row);
		row_set_raw(row, s, take);
		return 0;
	case DOMAIN_NET:
		if (net_rule_parse(s->value, &row->net, &err)) {
			deny_host_error(st, s, err);
			free(err);
			row_pool_unalloc(&t->rows, row);
			return -1;
		}
		rowvec_push(&t->net, &st->net_cap, row);
		deny_host_warning(st, s, row);
		row_set_raw(row, s, take);
		return 0;
	default:
		BUG("bad domain %d", domain);
	}
}

/*
 * "@default tmp private": the sandbox gets a /tmp of its own, empty and
 * writable (doc/rules.md, "@default tmp").  In the table that is one
 * more file row, "rw:/tmp", placed last (the lowest priority of level
 * 0) and located at the setting, so explain, shadow analysis, every
 * emitter and the launcher's supervisor see it as the row it is; each
 * target then says how it lands (emit.c).  The host's /tmp is not
 * visible then, so a row naming a path in it is an error: it would
 * grant or deny something that is not there.
 */
static void add_tmp_row(struct build_state *st)
{
	struct table *t = st->table;
	struct row *row;
	size_t i;
	char *text;

	/* Windows paths are drive paths: no row; the emitter refuses. */
	if (!t->tmp_private || st->opts->target->windows_paths)
		return;
	for (i = 0; i < t->fs.n; i++) {
		const struct row *r = t->fs.order[i];
		const char *p = r->fs.text;

		if (strncmp(p, "/tmp", 4) != 0 || (p[4] && p[4] != '/'))
			continue;
		text = row_text(r);
		diag_error(st->diags, &r->loc, "row %u '%s' names a path in "
			   "/tmp, which '@default tmp private' replaces with "
			   "the sandbox's own empty directory (the host's /tmp "
			   "is not visible there): drop the row or the "
			   "setting", r->index, text);
		free(text);
	}
	row = row_pool_alloc(&t->rows);
	row->domain = DOMAIN_FS;
	row->effect = EFFECT_RW;
	row->level = 0;
	row->loc = t->default_tmp_loc;
	row->raw = xstrdup("/tmp");
	if (fs_pattern_compile(row->raw, false, &row->loc, st->opts->target,
			       &st->opts->vars, &row->fs, st->diags)) {
		free(row->raw);
		row_pool_unalloc(&t->rows, row);
		return;
	}
	rowvec_push(&t->fs, &st->fs_cap, row);
	t->tmp_row = row;
}

/* How many consumed statements between two mem_release() calls. */
#define STMTS_RELEASE_EVERY 16384

/*
 * table_build() and table_build_take(): @drop, when set, is @stmts: each
 * row takes its statement's target as its @raw, each statement's strings
 * are freed once it is handled, and the pages of the statements handled
 * go back to the system as the rows are made (a million statements are
 * some 110 MB, as much as their rows), the array itself once every row
 * is made and before the table is sorted and indexed.
 */
static struct table *build(const struct stmt_list *stmts,
			   const struct compile_opts *opts,
			   struct diag_list *diags, struct stmt_list *drop)
{
	struct build_state st = {
		.opts = opts,
		.diags = diags,
	};
	size_t errors_before = diags->nerrors;
	size_t i;

	st.table = xzalloc(sizeof(*st.table));
	st.table->target = opts->target;
	st.table->default_write = EFFECT_DENY;
	st.table->default_net = EFFECT_DENY;

	for (i = 0; i < stmts->n; i++) {
		const struct stmt *s = &stmts->items[i];

		if (drop && i && i % STMTS_RELEASE_EVERY == 0)
			mem_release(drop->items, i * sizeof(*drop->items));

		switch (s->kind) {
		case STMT_ROW:
			/* A consumed statement's target becomes the row's. */
			handle_row(&st, s, drop ? &drop->items[i].value : NULL);
			break;
		case STMT_DEFAULT:
			handle_default(&st, s);
			break;
		case STMT_UPSTREAM:
			handle_upstream(&st, s);
			break;
		case STMT_INCLUDE:
			/* Already expanded in place by the loader. */
			break;
		default:
			BUG("bad statement kind %d", s->kind);
		}
		if (drop)
			stmt_consume(&drop->items[i]);
	}
	finish_undef(&st);
	if (drop) {
		/* Each statement's strings are gone: the array is left. */
		drop->n = 0;
		stmt_list_free(drop);
	}
	if (diags->nerrors == errors_before)
		add_tmp_row(&st);
	if (diags->nerrors != errors_before) {
		table_free(st.table);
		return NULL;
	}
	rowvec_sort_priority(&st.table->fs);
	rowvec_sort_priority(&st.table->net);
	index_build(st.table);
	return st.table;
}

struct table *table_build(const struct stmt_list *stmts,
			  const struct compile_opts *opts,
			  struct diag_list *diags)
{
	return build(stmts, opts, diags, NULL);
}

struct table *table_build_take(struct stmt_list *stmts,
			       const struct compile_opts *opts,
			       struct diag_list *diags)
{
	return build(stmts, opts, diags, stmts);
}
