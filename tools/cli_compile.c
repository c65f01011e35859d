// SPDX-License-Identifier: MIT
/*
 * cli_compile.c - "vboxc compile" and "vboxc preflight": classify every
 * row for one target (doc/targets.md), then write an artifact or the landing
 * table.
 *
 * compile: the rules are loaded and analysed, every row is classified,
 * and the whole artifact is rendered (into an unlinked temporary file,
 * struct spool) before a byte is written.
 * Any unsupported row (one error each, at the row), any invalid rule or
 * a warning under -Werror writes nothing and exits 1.  A named output
 * file is written to a temporary file beside it and renamed into place,
 * so a failed or interrupted compile never leaves a partial artifact and
 * never touches an existing file.
 *
 * preflight: text format on stdout, file rows first, then network rows,
 * each in table order, then the reserved entries, grouped by landing and
 * reason (the reason once, its rows below it):
 *
 *   LANDING: REASON
 *       fs|net INDEX FILE:LINE:COL 'ROW'
 *       reserved 'ENTRY'
 *
 * or with --per-row one line each:
 *
 *   fs|net INDEX FILE:LINE:COL 'ROW': LANDING: REASON
 *   reserved 'ENTRY': reserved: REASON
 *
 * JSON format, one object on stdout:
 *
 *   {"target":T,"fs":[{"row":N,"source":S,"rule":ROW,"landing":L,
 *     "reason":R}...],"net":[...],"reserved":[{"entry":E,"reason":R}...],
 *    "unsupported":N}
 *
 * The table is printed even when some row is unsupported (or the target
 * refuses the table as a whole, e.g. its network posture); the exit
 * status is then 1.  In text format the diagnostics (warnings, the
 * unsupported rows) also go to stderr; in JSON format only when the
 * exit status is 1, to say why.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "cli_spool.h"
#include "diag.h"
#include "emit.h"
#include "eval.h"
#include "ir.h"
#include "ir_json.h"
#include "linux_container.h"
#include "location.h"
#include "plan.h"
#include "plan_encode.h"
#include "preflight_text.h"
#include "table_text.h"
#include "target.h"

/*
 * The artifact a plan carries: the emitter's plan artifact when it has
 * one (linux leaves "--vbox-launch ROW" placeholders for the launcher,
 * plan.h PLAN_SEC_ARTIFACT), otherwise the profile itself.
 */
static int render_artifact(const struct emitter *em, struct cli_session *s,
			   const struct landing_set *landing, FILE *out)
{
	if (em->emit_plan_artifact)
		return em->emit_plan_artifact(s->table, landing, out,
					      &s->diags);
	return em->emit_profile(s->table, landing, out, &s->diags);
}

/* The directory of @path ("." for a bare name; allocated). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	return xasprintf("%.*s", (int)(slash == path ? 1 : slash - path),
			 path);
}

/*
 * The directory of the regular file (or the name of none yet) that
 * --output names, following a symbolic link as write_output() does: the
 * output is rendered there, to become the file (replace_file()).  NULL
 * for standard output and anything else.
 */
static char *output_dir(const struct cli_opts *opts)
{
	const char *path = opts->output;
	char *real = NULL, *dir;
	struct stat st;

	if (!path || strcmp(path, "-") == 0)
		return NULL;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? dir_of(path) : NULL;
	if (S_ISLNK(st.st_mode)) {
		real = realpath(path, NULL);
		if (!real || stat(real, &st) < 0) {
			free(real);
			return NULL;
		}
		path = real;
	}
	dir = S_ISREG(st.st_mode) ? dir_of(path) : NULL;
	free(real);
	return dir;
}

/*
 * Render what --emit asks for into @out (rewound on return).  Returns 0,
 * or -1 with errors queued on s->diags or a message printed.
 */
static int render(const struct cli_opts *opts, const struct emitter *em,
		  struct cli_session *s, const struct landing_set *landing,
		  struct spool *out)
{
	struct spool art;
	FILE *reader;
	char *dir = output_dir(opts);
	int ret;

	ret = dir ? spool_open_in(out, dir) : spool_open(out);
	free(dir);
	if (ret < 0)
		return -1;
	switch (opts->emit) {
	case CLI_EMIT_PROFILE:
		ret = em->emit_profile(s->table, landing, out->f, &s->diags);
		break;
	case CLI_EMIT_IR:
		ret = ir_json_write(s->table, landing, em->name, out->f,
				    &s->diags);
		break;
	case CLI_EMIT_TABLE:
		fprintf(out->f, "# the table as vboxc compiles it for target "
			"%s: rows in evaluation order,\n# each with its "
			"landing (doc/targets.md); doc/reviewing.md\n",
			em->name);
		ret = table_text_write(s->table, landing,
				       TABLE_TEXT_FS | TABLE_TEXT_NET, "",
				       out->f);
		if (ret < 0)
			diag_error(&s->diags, NULL, "cannot write the table");
		break;
	case CLI_EMIT_PLAN:
		/* Rendered apart (a file when it can), then streamed in. */
		if (spool_open(&art) < 0) {
			ret = -1;
			break;
		}
		/*
		 * Classified: nothing evaluates the table any more (a plan
		 * artifact is built from the rows and their landings, emit.h;
		 * a profile may evaluate), and its indexes (some 110 bytes a
		 * row) would share the peak with the artifact and the plan
		 * being encoded.
		 */
		if (em->emit_plan_artifact)
			index_free(s->table);
		ret = render_artifact(em, s, landing, art.f);
		if (spool_close(&art) < 0)
			ret = -1;
		index_free(s->table);
		if (ret == 0) {
			reader = spool_reader(&art);
			if (!reader ||
			    plan_encode_to(out->f, s->table, landing, em->name,
					   reader, (uint64_t)art.len) < 0) {
				fprintf(stderr, "%s: cannot build the plan: "
					"%s\n", CLI_PROGNAME, strerror(errno));
				ret = -1;
			}
		}
		spool_free(&art);
		break;
	default:
		BUG("bad emit mode %d", opts->emit);
	}
	if (spool_close(out) < 0)
		ret = -1;
	return ret;
}

/* The mode a new file gets: what open(2) with 0666 and the umask gives. */
static mode_t new_file_mode(void)
{
	mode_t mask = umask(022);

	umask(mask);
	return 0666 & ~mask;
}

/* Was @out rendered in @path's directory (output_dir())? */
static bool spool_here(const struct spool *out, const char *path)
{
	char *dir;
	bool here;

	if (!out->dir)
		return false;
	dir = dir_of(path);
	here = strcmp(dir, out->dir) == 0;
	free(dir);
	return here;
}

/*
 * Write @out to the regular file @path (which may not exist yet) through
 * a temporary name in the same directory and rename(2), so @path holds
 * either its old content or the whole new one.  A spool rendered in that
 * directory is given the temporary name itself; any other is copied
 * there.  An existing file keeps its permission bits.
 */
static int replace_file(const char *path, const struct stat *old,
			struct spool *out)
{
	const char *slash = strrchr(path, '/');
	mode_t mode = old ? old->st_mode & 0777 : new_file_mode();
	char *tmp;
	int fd, err;

	if (slash)
		tmp = xasprintf("%.*s.%s.vboxc-XXXXXX", (int)(slash + 1 - path),
				path, slash + 1);
	else
		tmp = xasprintf(".%s.vboxc-XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot create a temporary file for '%s': "
			"%s\n", CLI_PROGNAME, path, strerror(errno));
		free(tmp);
		return -1;
	}
	if (spool_here(out, path)) {
		/* The spool itself becomes the file: no copy of it. */
		close(fd);
		if (unlink(tmp) == 0 && fchmod(fileno(out->f), mode) == 0 &&
		    fsync(fileno(out->f)) == 0 && spool_link(out, tmp) == 0)
			goto named;
		/* Not linkable after all (no /proc, say): copy it. */
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0) {
			err = errno;
			goto fail;
		}
	}
	if (fchmod(fd, mode) < 0 || spool_copy(out, fd, NULL) < 0 ||
	    fsync(fd) < 0) {
		err = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) < 0) {
		err = errno;
		goto fail;
	}
named:
	if (rename(tmp, path) < 0) {
		err = errno;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	fprintf(stderr, "%s: cannot write '%s': %s\n", CLI_PROGNAME, path,
		strerror(err));
	free(tmp);
	return -1;
}

/*
 * Write to an existing file that is not a regular file (a FIFO, a device
 * like /dev/null): it cannot be replaced, only opened.
 */
static int write_special(const struct cli_command *cmd, const char *path,
			 struct spool *out, bool binary)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC), err;

	if (fd < 0) {
		fprintf(stderr, "%s: cannot open '%s': %s\n", CLI_PROGNAME,
			path, strerror(errno));
		return CLI_EXIT_FAIL;
	}
	if (binary && isatty(fd)) {
		close(fd);
		return cli_usage_error(cmd, "refusing to write a binary plan "
				       "to the terminal '%s'", path);
	}
	if (spool_copy(out, fd, NULL) < 0) {
		err = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) < 0) {
		err = errno;
		goto fail;
	}
	return CLI_EXIT_OK;
fail:
	fprintf(stderr, "%s: cannot write '%s': %s\n", CLI_PROGNAME, path,
		strerror(err));
	return CLI_EXIT_FAIL;
}

/* Is the file @st one of the rule files read? */
static bool is_input(const struct cli_session *s, const struct stat *st)
{
	struct stat in;
	size_t i;

	for (i = 0; i < s->inputs.n; i++) {
		const struct input *input = s->inputs.items[i];

		if (input->real && stat(input->real, &in) == 0 &&
		    in.st_dev == st->st_dev && in.st_ino == st->st_ino)
			return true;
	}
	return false;
}

/*
 * Write @out to -o FILE or standard output.  Returns an exit status.  A
 * symbolic link is followed so that the link stays and its target is
 * replaced.
 */
static int write_output(const struct cli_opts *opts,
			const struct cli_session *s, struct spool *out)
{
	const char *path = opts->output;
	char *real = NULL;
	struct stat st;
	int status;

	if (!path || strcmp(path, "-") == 0) {
		if (out->len && spool_copy(out, -1, stdout) < 0) {
			fprintf(stderr, "%s: error writing standard output: "
				"%s\n", CLI_PROGNAME, strerror(errno));
			return CLI_EXIT_FAIL;
		}
		return CLI_EXIT_OK;
	}
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT) {
			fprintf(stderr, "%s: cannot access '%s': %s\n",
				CLI_PROGNAME, path, strerror(errno));
			return CLI_EXIT_FAIL;
		}
		return replace_file(path, NULL, out) < 0 ?
			CLI_EXIT_FAIL : CLI_EXIT_OK;
	}
	if (S_ISLNK(st.st_mode)) {
		real = realpath(path, NULL);
		if (!real || stat(real, &st) < 0) {
			fprintf(stderr, "%s: cannot resolve '%s': %s\n",
				CLI_PROGNAME, path, strerror(errno));
			free(real);
			return CLI_EXIT_FAIL;
		}
		path = real;
	}
	if (is_input(s, &st)) {
		status = cli_usage_error(&cli_compile_command,
			"refusing to overwrite the rule file '%s'",
			opts->output);
	} else if (S_ISREG(st.st_mode)) {
		status = replace_file(path, &st, out) < 0 ?
			CLI_EXIT_FAIL : CLI_EXIT_OK;
	} else if (S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", CLI_PROGNAME,
			opts->output, strerror(EISDIR));
		status = CLI_EXIT_FAIL;
	} else {
		status = write_special(&cli_compile_command, path, out,
				       opts->emit == CLI_EMIT_PLAN);
	}
	free(real);
	return status;
}

/* Is @path a directory?  errno says why not. */
static bool dir_exists(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return false;
	}
	return true;
}

static bool to_stdout(const struct cli_opts *opts)
{
	return !opts->output || strcmp(opts->output, "-") == 0;
}

static int compile_run(const struct cli_opts *opts)
{
	const struct emitter *em = emitter_for(opts->target);
	struct landing_set landing;
	struct cli_session s;
	struct spool out;
	size_t nerrors;
	int status;

	/* Refused before any work: a plan on a terminal is never wanted. */
	if (opts->emit == CLI_EMIT_PLAN && to_stdout(opts) &&
	    isatty(STDOUT_FILENO))
		return cli_usage_error(&cli_compile_command,
			"refusing to write a binary plan to a terminal "
			"(use -o FILE or redirect standard output)");

	/* Like an unreadable --queries file: the command line is wrong. */
	if (opts->source_root && !dir_exists(opts->source_root))
		return cli_usage_error(&cli_compile_command, "cannot use the "
				       "source root '%s': %s",
				       opts->source_root, strerror(errno));

	memset(&landing, 0, sizeof(landing));
	memset(&out, 0, sizeof(out));
	cli_session_load(&s, opts);
	if (cli_failed(&s, opts)) {
		cli_print_diags(&s, opts);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	/* Every unsupported row is named, not just the first few. */
	s.diags.max_errors = 0;
	status = CLI_EXIT_OK;
	/* Loaded and analysed: only the emitter may still query (emit.h). */
	switch (em->index_use) {
	case EMIT_INDEX_NONE:
		index_free(s.table);
		break;
	case EMIT_INDEX_SHAPE:
		index_keep_shape(s.table);
		break;
	case EMIT_INDEX_QUERIES:
		break;
	default:
		BUG("emitter %s: bad index use %d", em->name, em->index_use);
	}
	/* cli_failed() again: the target may have added a warning */
	if (emit_classify(em, s.table, &landing, &s.diags) < 0)
		status = CLI_EXIT_FAIL;
	else
		emit_supervised_notes(em, &landing, &s.diags);
	nerrors = s.diags.nerrors;
	if (status != CLI_EXIT_OK ||
	    render(opts, em, &s, &landing, &out) < 0 || s.diags.nerrors ||
	    cli_failed(&s, opts))
		status = CLI_EXIT_FAIL;
	/* An artifact's own refusals (a static list) are not check's. */
	if (s.diags.nerrors != nerrors)
		s.diags.fold_hint = NULL;
	cli_any_port_notes(&s);
	cli_print_diags(&s, opts);
	if (status == CLI_EXIT_OK)
		status = write_output(opts, &s, &out);
out:
	spool_free(&out);
	landing_set_free(&landing);
	cli_session_free(&s);
	return status;
}

static const char compile_description[] =
	"Compile the rules for one target: classify every row (kernel,\n"
	"launch, proxy, supervised, absorbed, reserved or unsupported) and\n"
	"write the artifact.  Any unsupported row, invalid rule, or warning\n"
	"under -Werror fails the compile, naming the rows, and writes\n"
	"nothing.  Rows that land at launch (e.g. linux globs and denied\n"
	"paths) or supervised (linux deny and ro rows that mounts cannot\n"
	"hold; a note names each) fit only in a plan: the profile refuses\n"
	"them.\n";

static const char compile_notes[] =
	"RULES may be '-' for standard input.  Warnings go to stderr.\n"
	"\n"
	"Exit status: 0 success, 1 invalid rules, a row unsupported on the\n"
	"target, a warning under -Werror or an output error, 2 usage\n"
	"error.\n";

const struct cli_command cli_compile_command = {
	.name = "compile",
	.summary = "emit an artifact for one target",
	.synopsis = "compile [OPTIONS] RULES...",
	.description = compile_description,
	.notes = compile_notes,
	.flags = CLI_OPT_COMPILE,
	.run = compile_run,
};

/* ---- preflight -------------------------------------------------------- */

static size_t count_unsupported(const struct landing *l, size_t n)
{
	size_t i, count = 0;

	for (i = 0; i < n; i++)
		if (l[i].kind == LANDING_UNSUPPORTED)
			count++;
	return count;
}

static void add_rows_text(struct pf_text *pt, const struct landing *l,
			  size_t n)
{
	char *text;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct row *row = l[i].row;

		text = row_text(row);
		pf_text_add(pt, domain_name(row->domain), row->index,
			    location_format(&row->loc),
			    cli_sanitize(text, strlen(text)), landing_name(&l[i]),
			    cli_sanitize(l[i].reason, strlen(l[i].reason)));
		free(text);
	}
}

/*
 * The table as text: grouped by landing and reason, or with --per-row
 * one line per row (preflight_text.h).
 */
static void preflight_print_text(const struct landing_set *landing,
				 bool per_row)
{
	struct pf_text pt;
	size_t i;

	pf_text_init(&pt);
	add_rows_text(&pt, landing->fs, landing->nfs);
	add_rows_text(&pt, landing->net, landing->nnet);
	for (i = 0; i < landing->nreserved; i++) {
		const struct landing *l = &landing->reserved[i];

		pf_text_add(&pt, NULL, 0, NULL,
			    cli_sanitize(l->entry, strlen(l->entry)),
			    landing_kind_name(l->kind),
			    cli_sanitize(l->reason, strlen(l->reason)));
	}
	pf_text_print(&pt, per_row, stdout);
	pf_text_free(&pt);
}

/* The "fs" or "net" array. */
static json_t *rows_json(const struct landing *l, size_t n)
{
	json_t *arr = json_array(), *e;
	char *text;
	size_t i;

	if (!arr)
		return NULL;
	for (i = 0; i < n; i++) {
		text = row_text(l[i].row);
		e = cli_json_pack("{s:I, s:o, s:o, s:s, s:o}",
				  "row", (json_int_t)l[i].row->index,
				  "source", cli_json_location(&l[i].row->loc),
				  "rule", cli_json_string(text),
				  "landing", landing_name(&l[i]),
				  "reason", cli_json_string(l[i].reason));
		free(text);
		if (!e || json_array_append_new(arr, e) != 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static json_t *reserved_json(const struct landing_set *landing)
{
	json_t *arr = json_array(), *e;
	size_t i;

	if (!arr)
		return NULL;
	for (i = 0; i < landing->nreserved; i++) {
		const struct landing *l = &landing->reserved[i];

		e = cli_json_pack("{s:o, s:o}",
				  "entry", cli_json_string(l->entry),
				  "reason", cli_json_string(l->reason));
		if (!e || json_array_append_new(arr, e) != 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/*
 * With --mode the object says which ("mode"); container mode also counts
 * its narrower rows ("narrower").  Without --mode it is unchanged.
 */
static int preflight_print_json(const struct emitter *em,
				const struct cli_opts *opts,
				const struct landing_set *landing,
				size_t unsupported, size_t narrower)
{
	json_t *fs = rows_json(landing->fs, landing->nfs);
	json_t *net = rows_json(landing->net, landing->nnet);
	json_t *reserved = reserved_json(landing);

	if (!fs || !net || !reserved) {
		json_decref(fs);
		json_decref(net);
		json_decref(reserved);
		fprintf(stderr, "%s: cannot build the JSON report\n",
			CLI_PROGNAME);
		return -1;
	}
	return cli_json_print(cli_json_pack("{s:s, s:s*, s:o, s:o, s:o, s:I, "
					    "s:o*}",
					    "target", em->name,
					    "mode", !opts->mode_given ? NULL :
					    opts->mode == CLI_MODE_CONTAINER ?
					    "container" : "ns",
					    "fs", fs, "net", net,
					    "reserved", reserved,
					    "unsupported",
					    (json_int_t)unsupported,
					    "narrower",
					    opts->mode == CLI_MODE_CONTAINER ?
					    json_integer((json_int_t)narrower) :
					    NULL));
}

/*
 * preflight --mode=container: the container mode's landings in @ctr,
 * which then stand in for the target's.  Unsupported rows are errors:
 * vbox-exec would refuse them.  Narrower rows (--accept-narrower) are
 * notes, and the rows the path supervisor holds one note for them all.
 */
static int preflight_container(const struct cli_opts *opts,
			       struct cli_session *s, struct ctr_landings *ctr)
{
	linux_container_classify(s->table, opts->accept_narrower, ctr);
	if (linux_container_report(ctr, &s->diags, &s->diags) < 0 ||
	    cli_failed(s, opts))
		return CLI_EXIT_FAIL;
	return CLI_EXIT_OK;
}

static int preflight_run(const struct cli_opts *opts)
{
	const struct emitter *em = emitter_for(opts->target);
	const struct landing_set *shown;
	struct landing_set landing;
	struct ctr_landings ctr;
	struct cli_session s;
	size_t unsupported;
	int status;

	memset(&landing, 0, sizeof(landing));
	memset(&ctr, 0, sizeof(ctr));
	shown = &landing;
	cli_session_load(&s, opts);
	if (cli_failed(&s, opts)) {
		cli_print_diags(&s, opts);
		status = CLI_EXIT_FAIL;
		goto out;
	}
	s.diags.max_errors = 0;
	if (opts->mode == CLI_MODE_CONTAINER) {
		status = preflight_container(opts, &s, &ctr);
		shown = &ctr.set;
	} else {
		/* Also fails on what no row carries, e.g. a network posture. */
		status = emit_classify(em, s.table, &landing, &s.diags) < 0 ||
				 cli_failed(&s, opts) ?
			 CLI_EXIT_FAIL : CLI_EXIT_OK;
	}
	unsupported = count_unsupported(shown->fs, shown->nfs) +
		      count_unsupported(shown->net, shown->nnet);
	if (opts->format == CLI_FORMAT_TEXT) {
		cli_print_diags(&s, opts);
		preflight_print_text(shown, opts->per_row);
	} else if (preflight_print_json(em, opts, shown, unsupported,
					ctr.nnarrower) < 0) {
		cli_print_diags(&s, opts);
		status = CLI_EXIT_FAIL;
	} else if (status != CLI_EXIT_OK) {
		/* A failure is never silent: say why on stderr. */
		cli_print_diags(&s, opts);
	}
out:
	linux_container_free(&ctr);
	landing_set_free(&landing);
	cli_session_free(&s);
	return status;
}

static const char preflight_description[] =
	"Print how every row of the rules lands on one target: kernel\n"
	"(the OS mechanism), launch (instantiated by vbox-exec), proxy\n"
	"(the egress proxy), supervised (each path call judged by\n"
	"vbox-exec's supervisor), absorbed (needs nothing), or\n"
	"unsupported (compile refuses it), each with its reason, then the\n"
	"reserved entries vbox-exec adds.  With --mode=container, how\n"
	"each row lands in vbox-exec's container mode: kernel (Landlock),\n"
	"proxy, supervised (the path supervisor judges every path call,\n"
	"or the socket supervisor a loopback row), absorbed, narrower\n"
	"(--accept-narrower: Landlock alone, narrower than the table) or\n"
	"unsupported.\n"
	"\n"
	"Text format: the rows grouped by landing and reason, the reason\n"
	"once and its rows below it, in table order:\n"
	"  LANDING: REASON\n"
	"      fs|net INDEX FILE:LINE:COL 'ROW'\n"
	"      reserved 'ENTRY'\n"
	"With --per-row, one line each:\n"
	"  fs|net INDEX FILE:LINE:COL 'ROW': LANDING: REASON\n"
	"  reserved 'ENTRY': reserved: REASON\n";

static const char preflight_format_help[] =
	"text (default; warnings and\n"
	"unsupported rows also on stderr) or\n"
	"json (one object on stdout;\n"
	"diagnostics on stderr only when\n"
	"the exit status is 1)";

static const char preflight_notes[] =
	"RULES may be '-' for standard input.\n"
	"\n"
	"Exit status: 0 the target supports the table, 1 invalid rules,\n"
	"a row or a posture unsupported on the target or the mode (the\n"
	"table is still printed) or a warning under -Werror, 2 usage\n"
	"error.\n";

const struct cli_command cli_preflight_command = {
	.name = "preflight",
	.summary = "per-row landing table for one target",
	.synopsis = "preflight [OPTIONS] RULES...",
	.description = preflight_description,
	.format_help = preflight_format_help,
	.formats = CLI_FORMATS(CLI_FORMAT_TEXT) | CLI_FORMATS(CLI_FORMAT_JSON),
	.notes = preflight_notes,
	.flags = CLI_OPT_FORMAT | CLI_OPT_MODE | CLI_OPT_PREFLIGHT,
	.run = preflight_run,
};
