/* SPDX-License-Identifier: MIT */
/*
 * test_parse_include.c - test_parse's @include cases on real files in a
 * temporary directory: nesting, relative and absolute paths, cycles,
 * missing and unreadable files, through load_rules(); the names artifacts
 * carry (struct input's @source) from two library prefixes.  test_parse.c's
 * main() makes the directory and calls cleanup() at the end.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "load.h"
#include "location.h"
#include "stmt.h"
#include "tap.h"
#include "test_parse_int.h"

/* --------------------------------------------------------------------- */
/* Files. */

static void run_files(struct run *r, const char *path)
{
	run_init(r);
	r->rc = load_rules(&r->inputs, &path, 1, &r->out, &r->diags);
}

char tmpdir[64];
static char *made[64];
static size_t nmade;

static char *tpath(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static void remember(char *path)
{
	if (nmade < array_size(made))
		made[nmade++] = path;
	else
		free(path);
}

__printf(2, 3) static void write_file(const char *name, const char *fmt, ...)
{
	char *path = tpath(name);
	va_list ap;
	FILE *f = fopen(path, "w");

	if (!f) {
		diag("cannot write %s: %s", path, strerror(errno));
		free(path);
		return;
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	if (fclose(f))
		diag("cannot write %s", path);
	remember(path);
}

static void make_dir(const char *name)
{
	char *path = tpath(name);

	if (mkdir(path, 0700))
		diag("cannot mkdir %s: %s", path, strerror(errno));
	remember(path);
}

void cleanup(void)
{
	while (nmade) {
		char *p = made[--nmade];

		if (unlink(p) && rmdir(p))
			diag("cannot remove %s", p);
		free(p);
	}
	if (tmpdir[0] && rmdir(tmpdir))
		diag("cannot remove %s", tmpdir);
}

/*
 * Artifacts' names (struct input's @source): the same whatever prefix
 * the rule library is installed under and however the file was named.
 */
static void load_named(struct run *r, const char *path, const char *lib,
		       const char *root)
{
	struct load_opts o = { 0 };
	char *libdir = tpath(lib), *rootdir = root ? tpath(root) : NULL;

	o.rules_dir = libdir;
	o.source_root = rootdir;
	run_init(r);
	r->rc = load_rules_opts(&r->inputs, &path, 1, &o, &r->out, &r->diags);
	free(rootdir);
	free(libdir);
}

/* The @source of every statement, joined by ' '; caller frees. */
static char *sources(const struct run *r)
{
	char *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < r->out.n; i++) {
		t = xasprintf("%s%s%s", s, i ? " " : "",
			      r->out.items[i].loc.in->source);
		free(s);
		s = t;
	}
	return s;
}

static void test_source_names(void)
{
	static const char *const libs[] = { "prefix1", "prefix2" };
	static const char want[] = "names.rules <corp> <more/x.rules> "
				   "<corp> sub/leaf.rules";
	struct run r;
	char *top, *got;
	size_t i;

	write_file("names.rules", "ro:/top\n@include <corp>\n"
		   "@include \"sub/leaf.rules\"\n");
	for (i = 0; i < array_size(libs); i++) {
		char *d = xasprintf("%s/more", libs[i]);
		char *f = xasprintf("%s/corp.rules", libs[i]);
		char *x = xasprintf("%s/more/x.rules", libs[i]);

		make_dir(libs[i]);
		make_dir(d);
		write_file(f, "deny:/corp\n@include \"more/x.rules\"\n"
			   "deny:/corp2\n");
		write_file(x, "deny:/x\n");
		free(x);
		free(f);
		free(d);
	}
	top = tpath("names.rules");
	for (i = 0; i < array_size(libs); i++) {
		load_named(&r, top, libs[i], NULL);
		got = sources(&r);
		is_str(got, want, i ? "sources: the same from another prefix" :
		       "sources: <NAME> from the library, the rest relative "
		       "to the rules file's directory");
		free(got);
		run_free(&r);
	}
	load_named(&r, top, libs[0], "sub");
	got = sources(&r);
	is_str(got, "../names.rules <corp> <more/x.rules> <corp> leaf.rules",
	       "sources: relative to the source root");
	free(got);
	run_free(&r);
	load_named(&r, top, libs[0], "nowhere");
	ok(r.rc < 0 && r.diags.nerrors == 1 &&
	   strstr(r.diags.items[0].msg, "source root"),
	   "sources: a source root that cannot be resolved is an error");
	run_free(&r);
	free(top);
}

void test_includes(void)
{
	struct run r;
	char *top, *p;
	size_t i;

	write_file("top.rules", "[net]\nallow:a.org\n"
		   "@include \"sub/inc.rules\" # c\nallow:b.org\n"
		   "@include \"sub/inc.rules\"\n");
	make_dir("sub");
	write_file("sub/inc.rules", "deny:/inc\n@include \"leaf.rules\"\n");
	write_file("sub/leaf.rules", "ro:/leaf");
	top = tpath("top.rules");
	run_files(&r, top);
	is_int(r.rc, 0, "includes: load");
	is_int(r.out.n, 6, "includes: expanded in place, twice");
	if (r.out.n == 6) {
		static const char *const want[] = {
			"a.org", "/inc", "/leaf", "b.org", "/inc", "/leaf",
		};
		const struct input *leaf = r.out.items[2].loc.in;
		bool order = true;

		for (i = 0; i < 6; i++)
			if (strcmp(r.out.items[i].value, want[i]))
				order = false;
		ok(order, "includes: depth-first order");
		is_int(r.out.items[1].section, SECTION_NONE,
		       "includes: an included file starts outside sections");
		is_int(r.out.items[3].section, SECTION_NET,
		       "includes: the includer's section goes on");
		p = xasprintf("%s/sub/leaf.rules", tmpdir);
		is_str(leaf->name, p, "includes: name joins the directory");
		free(p);
		is_int(leaf->depth, 2, "includes: depth");
		ok(leaf->parent && leaf->parent == r.out.items[1].loc.in,
		   "includes: parent");
		is_int(leaf->included_at.line, 2, "includes: included_at line");
		is_int(leaf->included_at.col, 1, "includes: included_at col");
		ok(leaf->parent && leaf->parent->parent &&
		   strcmp(leaf->parent->parent->name, top) == 0 &&
		   !leaf->parent->parent->parent,
		   "includes: chain ends at the top file");
		ok(leaf->real && leaf->real[0] == '/', "includes: real path");
	}
	is_int(r.inputs.n, 5, "includes: every input is in the set");
	run_free(&r);

	/* Absolute include paths. */
	p = tpath("sub/leaf.rules");
	write_file("abs.rules", "@include \"%s\"\n", p);
	free(p);
	p = tpath("abs.rules");
	run_files(&r, p);
	ok(r.rc == 0 && r.out.n == 1, "absolute include path");
	run_free(&r);
	free(p);

	/* Missing, directory, unreadable. */
	write_file("miss.rules", "deny:/a\n  @include \"nope.rules\"\n");
	p = tpath("miss.rules");
	run_files(&r, p);
	free(p);
	is_int(r.rc, -1, "missing include fails");
	if (r.diags.n == 1) {
		char *want = xasprintf("cannot read '%s/nope.rules': %s",
				       tmpdir, strerror(ENOENT));

		is_str(r.diags.items[0].msg, want, "missing include message");
		is_int(r.diags.items[0].loc.line, 2, "missing include line");
		is_int(r.diags.items[0].loc.col, 3, "missing include column");
		free(want);
	} else {
		ok(0, "missing include: one error");
	}
	run_free(&r);

	write_file("dir.rules", "@include \"sub\"\n");
	p = tpath("dir.rules");
	run_files(&r, p);
	free(p);
	ok(r.rc == -1 && first_msg(&r) &&
	   strstr(first_msg(&r), strerror(EISDIR)),
	   "including a directory fails");
	run_free(&r);

	if (geteuid() != 0) {
		write_file("secret.rules", "deny:/s\n");
		write_file("acc.rules", "@include \"secret.rules\"\n");
		p = tpath("secret.rules");
		if (chmod(p, 0))
			diag("chmod failed");
		free(p);
		p = tpath("acc.rules");
		run_files(&r, p);
		free(p);
		ok(r.rc == -1 && first_msg(&r) &&
		   strstr(first_msg(&r), strerror(EACCES)),
		   "unreadable include fails");
		run_free(&r);
	} else {
		ok(1, "# SKIP unreadable include: running as root");
	}

	/* Cycles. */
	write_file("cy_a.rules", "deny:/a\n@include \"cy_b.rules\"\n");
	write_file("cy_b.rules", "deny:/b\n\n@include \"cy_a.rules\"\n");
	p = tpath("cy_a.rules");
	run_files(&r, p);
	is_int(r.rc, -1, "cycle fails");
	is_int(r.diags.nerrors, 1, "cycle: one error");
	if (r.diags.n == 1) {
		char *want = xasprintf("include cycle: '%s' -> '%s/cy_b.rules' "
				       "-> '%s/cy_a.rules'", p, tmpdir,
				       tmpdir);

		is_str(r.diags.items[0].msg, want, "cycle names the chain");
		is_int(r.diags.items[0].loc.line, 3, "cycle: at the @include");
		ok(r.diags.items[0].loc.in &&
		   strstr(r.diags.items[0].loc.in->name, "cy_b.rules"),
		   "cycle: in the including file");
		free(want);
	}
	is_int(r.out.n, 2, "cycle: rows before it kept");
	run_free(&r);
	free(p);

	write_file("self.rules", "@include \"./self.rules\"\n");
	p = tpath("self.rules");
	run_files(&r, p);
	free(p);
	ok(r.rc == -1 && first_msg(&r) &&
	   strncmp(first_msg(&r), "include cycle: ", 15) == 0,
	   "self include is a cycle");
	run_free(&r);

	/* Depth: 16 nested includes are fine, the 17th is not. */
	make_dir("d16");
	make_dir("d17");
	for (i = 0; i <= 17; i++) {
		char name[64];

		snprintf(name, sizeof(name), "d16/c%zu.rules", i);
		if (i < 16)
			write_file(name, "@include \"c%zu.rules\"\n", i + 1);
		else if (i == 16)
			write_file(name, "deny:/deep\n");
		snprintf(name, sizeof(name), "d17/c%zu.rules", i);
		if (i < 17)
			write_file(name, "@include \"c%zu.rules\"\n", i + 1);
		else
			write_file(name, "deny:/deeper\n");
	}
	p = tpath("d16/c0.rules");
	run_files(&r, p);
	free(p);
	is_int(r.rc, 0, "16 nested includes are allowed");
	ok(r.out.n == 1 && r.out.items[0].loc.in->depth == 16,
	   "the 16th nested include is read");
	run_free(&r);
	p = tpath("d17/c0.rules");
	run_files(&r, p);
	free(p);
	is_int(r.rc, -1, "the 17th nested include is an error");
	ok(r.diags.n == 1 && r.diags.items[0].loc.in &&
	   r.diags.items[0].loc.in->depth == 16 &&
	   strstr(r.diags.items[0].msg, "too many nested includes"),
	   "17th include: reported at the 16th file's @include");
	is_int(r.out.n, 0, "17th include: nothing read");
	run_free(&r);

	/* Errors inside an included file carry the include chain. */
	write_file("sub/bad.rules", "\n DENY:/x\n");
	write_file("outer.rules", "deny:/ok\n@include \"sub/bad.rules\"\n");
	p = tpath("outer.rules");
	run_files(&r, p);
	free(p);
	ok(r.diags.n == 1 && r.diags.items[0].loc.in &&
	   r.diags.items[0].loc.in->parent &&
	   r.diags.items[0].loc.line == 2 && r.diags.items[0].loc.col == 2 &&
	   r.diags.items[0].loc.in->included_at.line == 2,
	   "error in an included file: location and chain");
	run_free(&r);

	/* Bad encoding in an included file. */
	write_file("sub/enc.rules", "deny:/\xff\n");
	write_file("enc.rules", "@include \"sub/enc.rules\"\nro:/after\n");
	p = tpath("enc.rules");
	run_files(&r, p);
	free(p);
	ok(r.rc == -1 && r.diags.nerrors == 1 && r.out.n == 1,
	   "bad encoding in an include: error, includer goes on");
	run_free(&r);

	/* Top-level files: several, missing, standard input. */
	{
		const char *paths[3];
		char *a = tpath("sub/leaf.rules"), *m = tpath("none.rules");

		paths[0] = a;
		paths[1] = m;
		paths[2] = a;
		run_init(&r);
		r.rc = load_rules(&r.inputs, paths, 3, &r.out, &r.diags);
		is_int(r.rc, -1, "missing top-level file fails");
		is_int(r.out.n, 2, "other top-level files still load");
		if (r.diags.n == 1) {
			char *want = xasprintf("cannot read '%s': %s", m,
					       strerror(ENOENT));

			is_str(r.diags.items[0].msg, want,
			       "missing top-level file message");
			ok(!r.diags.items[0].loc.in,
			   "missing top-level file has no location");
			free(want);
		}
		run_free(&r);
		free(a);
		free(m);
	}

	{
		int saved = dup(STDIN_FILENO), fd;

		write_file("stdin.rules", "ro:/from-stdin\n");
		p = tpath("stdin.rules");
		fd = open(p, O_RDONLY);
		free(p);
		if (saved >= 0 && fd >= 0 && dup2(fd, STDIN_FILENO) >= 0) {
			run_files(&r, "-");
			ok(r.rc == 0 && r.out.n == 1 &&
			   strcmp(r.out.items[0].loc.in->name, "<stdin>") == 0,
			   "'-' reads standard input as <stdin>");
			run_free(&r);
			if (dup2(saved, STDIN_FILENO) < 0)
				diag("cannot restore stdin");
		} else {
			ok(0, "stdin redirect");
		}
		if (fd >= 0)
			close(fd);
		if (saved >= 0)
			close(saved);
	}

	/* load_buffer resolves includes against the working directory. */
	{
		char *cwd = getcwd(NULL, 0);

		if (cwd && chdir(tmpdir) == 0) {
			run_str(&r, "@include \"sub/leaf.rules\"\n");
			ok(r.rc == 0 && r.out.n == 1 &&
			   strcmp(r.out.items[0].loc.in->name,
				  "sub/leaf.rules") == 0,
			   "load_buffer: include relative to the cwd");
			run_free(&r);
			if (chdir(cwd))
				diag("cannot chdir back");
		} else {
			ok(0, "chdir to the temporary directory");
		}
		free(cwd);
	}
	test_source_names();
	free(top);
}
