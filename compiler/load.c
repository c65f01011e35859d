/* SPDX-License-Identifier: MIT */
/*
 * load.c - reading rule files, checking their encoding and expanding
 * @include into the assembled statement list.
 *
 * Everything here is about bytes and files: the grammar turns one checked
 * input into statements, and the compiler judges what they mean.
 */
#include <vbox.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "hugemem.h"
#include "load.h"
#include "location.h"
#include "stmt.h"
#include "strbuf.h"


/* struct location keeps an offset into an input in 32 bits. */
_Static_assert(LOAD_MAX_FILE_BYTES < UINT32_MAX, "line_offset is 32 bits");
/**
 * struct loader - one load_rules()/load_buffer() call
 * @inputs: owns every input read
 * @out: the assembled statement list
 * @diags: where errors go
 * @opts: where '@include <NAME>' looks
 * @root: the canonical source root inputs are named against (owned), or
 *        NULL to name them as read
 */
struct loader {
	struct input_set *inputs;
	struct stmt_list *out;
	struct diag_list *diags;
	const struct load_opts *opts;
	char *root;
};

static const struct load_opts default_opts;

/*
 * A large rule file makes a large table out of small blocks, a few per
 * row: when the program asked for it (load_opts.large_heap), the heap
 * they come from is put on huge pages.  The file's own buffer is a
 * large block, hinted already.
 */
static void large_input(const struct loader *ld, size_t len)
{
	if (ld->opts->large_heap && len >= MEM_LARGE_MIN)
		mem_large_heap_begin();
}

static int load_input(struct loader *ld, struct input *in);

/*
 * Read all of @fd into a new NUL-terminated buffer.  Returns 0, an errno
 * value, or EFBIG when the file exceeds LOAD_MAX_FILE_BYTES: a rule file
 * is never silently truncated.
 */
static int read_all(int fd, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	struct stat st;
	char *buf;

	if (fstat(fd, &st) < 0)
		return errno;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	/* Known too large: refuse before reading (or allocating) anything. */
	if (S_ISREG(st.st_mode) &&
	    (uintmax_t)st.st_size > LOAD_MAX_FILE_BYTES)
		return EFBIG;
	if (S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uintmax_t)st.st_size < LOAD_MAX_FILE_BYTES)
		cap = (size_t)st.st_size + 2;

	buf = xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			/* One byte past the limit is enough to know. */
			if (len > LOAD_MAX_FILE_BYTES)
				break;
			cap = cap * 2 > LOAD_MAX_FILE_BYTES + 2 ?
			      LOAD_MAX_FILE_BYTES + 2 : cap * 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			free(buf);
			return err;
		}
		if (n == 0)
			break;
		len += n;
	}
	if (len > LOAD_MAX_FILE_BYTES) {
		free(buf);
		return EFBIG;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

static const char *read_strerror(int err)
{
	if (err == EFBIG)
		return "file larger than 256 MiB";
	return strerror(err);
}

/* Read the file @path.  Returns 0 or an errno value. */
static int read_file(const char *path, char **bufp, size_t *lenp)
{
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return errno;
	err = read_all(fd, bufp, lenp);
	close(fd);
	return err;
}

static struct input *input_new(struct loader *ld, char *name, char *real,
			       char *buf, size_t len)
{
	struct input *in = xzalloc(sizeof(*in));

	/* The BOM is not content: columns count from after it. */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
		memmove(buf, buf + 3, len - 3 + 1);
		len -= 3;
	}
	in->name = name;
	in->real = real;
	in->buf = buf;
	in->len = len;
	return input_set_add(ld->inputs, in);
}

/*
 * Length of the UTF-8 character at @s (@n bytes left), or 0 with *@why
 * set when the bytes there are not valid UTF-8.
 */
static size_t utf8_check(const unsigned char *s, size_t n, const char **why)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc0) {
		*why = "unexpected continuation byte";
		return 0;
	}
	if (s[0] < 0xc2) {
		*why = "overlong encoding";
		return 0;
	}
	if (s[0] < 0xe0)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] < 0xf0)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] < 0xf5)
		len = 4, cp = s[0] & 0x07;
	else if (s[0] < 0xf8) {
		*why = "code point above U+10FFFF";
		return 0;
	} else {
		*why = "byte that starts no character";
		return 0;
	}
	for (i = 1; i < len; i++) {
		if (i >= n || (s[i] & 0xc0) != 0x80) {
			*why = "truncated sequence";
			return 0;
		}
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)) {
		*why = "overlong encoding";
		return 0;
	}
	if (cp >= 0xd800 && cp <= 0xdfff) {
		*why = "surrogate code point";
		return 0;
	}
	if (cp > 0x10ffff) {
		*why = "code point above U+10FFFF";
		return 0;
	}
	return len;
}

/*
 * Check that @in is text the grammar may see: UTF-8, no NUL byte, no CR
 * outside a CRLF.  Reports at most one error a line; returns the number
 * of errors.  Bytes the scanner never sees cannot confuse it, and a path
 * with an invalid byte in it would mean different files on different
 * systems.
 */
static size_t check_encoding(const struct input *in, struct diag_list *diags)
{
	const unsigned char *s = (const unsigned char *)in->buf;
	struct location loc = { .in = in, .line = 1, .col = 1 };
	size_t i = 0, nerr = 0;

	while (i < in->len) {
		const char *why = NULL;
		size_t n = 1;

		if (s[i] == '\n') {
			loc.line++;
			loc.col = 1;
			loc.line_offset = (uint32_t)++i;
			continue;
		}
		if (s[i] == '\0') {
			why = "invalid NUL byte";
		} else if (s[i] == '\r') {
			if (i + 1 >= in->len || s[i + 1] != '\n')
				why = "lone carriage return: lines end with "
				      "LF or CRLF";
		} else {
			n = utf8_check(s + i, in->len - i, &why);
		}
		if (why) {
			loc.last_col = loc.col;
			if (s[i] == '\0' || s[i] == '\r')
				diag_error(diags, &loc, "%s", why);
			else
				diag_error(diags, &loc, "invalid UTF-8: %s "
					   "(byte 0x%02x)", why, s[i]);
			nerr++;
			/* One error a line: resume at the next line. */
			while (i < in->len && s[i] != '\n')
				i++;
			continue;
		}
		if (s[i] == '\t')
			loc.col = (loc.col - 1) / 8 * 8 + 9;
		else if (loc.col < UINT_MAX)
			loc.col++;
		i += n;
	}
	return nerr;
}

/* The directory part of @name with its slash, or "" for none. */
static char *dir_of(const char *name)
{
	const char *slash = strrchr(name, '/');

	return slash ? xstrndup(name, slash - name + 1) : xstrdup("");
}

/*
 * The canonical path @real relative to the canonical directory @base
 * ("sub/x.rules", "../x.rules"); @real itself when it is not absolute.
 * Both sides are canonical, so neither the spelling of the paths nor
 * the working directory changes the result.
 */
static char *relative_to(const char *base, const char *real)
{
	struct strbuf b = { 0 };
	const char *bp = base, *rp = real;
	size_t bl, rl;

	if (real[0] != '/' || base[0] != '/')
		return xstrdup(real);
	/* Drop the components both paths start with. */
	for (;;) {
		bp += strspn(bp, "/");
		rp += strspn(rp, "/");
		bl = strcspn(bp, "/");
		rl = strcspn(rp, "/");
		if (!bl || bl != rl || memcmp(bp, rp, bl))
			break;
		bp += bl;
		rp += rl;
	}
	/* Climb out of what is left of @base, then down into @real. */
	for (; *bp; bp += strcspn(bp, "/"), bp += strspn(bp, "/"))
		strbuf_puts(&b, "../");
	strbuf_puts(&b, rp);
	if (!b.len)
		strbuf_puts(&b, ".");
	return b.s;
}

/* The directory of the canonical path @real (canonical too). */
static char *real_dir(const char *real)
{
	const char *slash = strrchr(real, '/');

	if (!slash || slash == real)
		return xstrdup("/");
	return xstrndup(real, (size_t)(slash - real));
}

/*
 * Name @in for artifacts (struct input's @source): as the rule library
 * names it when it came from the library, else against the source root.
 * @lib_name is NAME for '@include <NAME>', else NULL.
 */
static void name_source(const struct loader *ld, struct input *in,
			const char *lib_name)
{
	const struct input *parent = in->parent;
	char *rel;

	if (lib_name) {
		in->source = xasprintf("<%s>", lib_name);
		in->lib_dir = real_dir(in->real);
	} else if (parent && parent->lib_dir) {
		rel = relative_to(parent->lib_dir, in->real);
		in->source = xasprintf("<%s>", rel);
		in->lib_dir = xstrdup(parent->lib_dir);
		free(rel);
	} else if (in->real && ld->root) {
		in->source = relative_to(ld->root, in->real);
	} else {
		in->source = xstrdup(in->name);
	}
}

/* Describe the include chain from the input whose real path is @real. */
static char *cycle_chain(const struct input *parent, const char *real,
			 const char *name)
{
	const struct input *p, *chain[LOAD_MAX_INCLUDE_DEPTH + 1];
	size_t n = 0, i;
	char *msg, *tmp;

	for (p = parent; p && n < array_size(chain); p = p->parent) {
		chain[n++] = p;
		if (p->real && strcmp(p->real, real) == 0)
			break;
	}
	msg = xstrdup("");
	for (i = n; i-- > 0;) {
		tmp = xasprintf("%s'%s' -> ", msg, chain[i]->name);
		free(msg);
		msg = tmp;
	}
	tmp = xasprintf("%s'%s'", msg, name);
	free(msg);
	return tmp;
}

/*
 * A rule library name is one plain file name: no '/', no '..', nothing
 * that could climb out of the library directory or name a hidden file.
 */
static bool library_name_ok(const char *name)
{
	size_t i, len = strlen(name);

	if (len == 0 || len > LOAD_MAX_LIBRARY_NAME || name[0] == '.' ||
	    strstr(name, ".."))
		return false;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return false;
	}
	return true;
}

/* Edit distance of two library names (each at most the name limit). */
static size_t name_distance(const char *a, const char *b)
{
	size_t row[LOAD_MAX_LIBRARY_NAME + 1], alen = strlen(a);
	size_t blen = strlen(b), i, j, diag, tmp;

	if (alen > LOAD_MAX_LIBRARY_NAME || blen > LOAD_MAX_LIBRARY_NAME)
		return SIZE_MAX;
	for (j = 0; j <= blen; j++)
		row[j] = j;
	for (i = 1; i <= alen; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= blen; j++) {
			tmp = row[j];
			row[j] = diag + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			if (tmp + 1 < row[j])
				row[j] = tmp + 1;
			diag = tmp;
		}
	}
	return row[blen];
}

/*
 * The library name in @dir closest to @name, if within two edits and
 * closer than *@best (ties: the smaller name, so the hint does not depend
 * on directory order).  Updates *@best and *@hint (owned).  At most a
 * bounded number of entries is looked at: a hint is worth little time.
 */
static void closest_name(const char *dir, const char *name, size_t *best,
			 char **hint)
{
	struct dirent *e;
	size_t seen = 0, d, len;
	char *cand;
	DIR *dp;

	dp = opendir(dir);
	if (!dp)
		return;
	while ((e = readdir(dp)) && seen++ < 4096) {
		len = strlen(e->d_name);
		if (len <= 6 || strcmp(e->d_name + len - 6, ".rules") != 0)
			continue;
		cand = xstrndup(e->d_name, len - 6);
		d = library_name_ok(cand) ? name_distance(name, cand) :
					    SIZE_MAX;
		if (d <= 2 && (d < *best ||
			       (d == *best && strcmp(cand, *hint) < 0))) {
			free(*hint);
			*hint = cand;
			*best = d;
			continue;
		}
		free(cand);
	}
	closedir(dp);
}

/* The directory searched at position @i (the installed one is last). */
static const char *library_dir(const struct loader *ld, size_t i)
{
	const struct load_opts *o = ld->opts;

	if (i < o->ninclude_dirs)
		return o->include_dirs[i];
	return o->rules_dir ? o->rules_dir : VBOX_RULES_DIR;
}

/*
 * The path of the rule library file for '@include <NAME>' (caller frees),
 * or NULL after an error naming every directory that was searched.  The
 * first directory holding NAME.rules wins, whether or not it can be read:
 * skipping an unreadable file would silently pick another policy.
 */
static char *find_library(struct loader *ld, const struct stmt *s)
{
	size_t i, ndirs = ld->opts->ninclude_dirs + 1, best = SIZE_MAX;
	char *path, *where, *tmp, *hint = NULL;
	struct stat st;

	if (!library_name_ok(s->value)) {
		diag_error(ld->diags, &s->value_loc, "invalid rule library "
			   "name '<%s>': a name is letters, digits, '.', '_' "
			   "and '-', without '/' or '..'", s->value);
		return NULL;
	}
	for (i = 0; i < ndirs; i++) {
		path = xasprintf("%s/%s.rules", library_dir(ld, i), s->value);
		if (stat(path, &st) == 0)
			return path;
		free(path);
	}
	where = xstrdup("");
	for (i = 0; i < ndirs; i++) {
		tmp = xasprintf("%s%s'%s'", where, i ? ", " : "",
				library_dir(ld, i));
		free(where);
		where = tmp;
	}
	for (i = 0; i < ndirs; i++)
		closest_name(library_dir(ld, i), s->value, &best, &hint);
	if (hint)
		diag_error(ld->diags, &s->value_loc, "rule library '<%s>' not "
			   "found: no '%s.rules' in %s; did you mean '<%s>'?",
			   s->value, s->value, where, hint);
	else
		diag_error(ld->diags, &s->value_loc, "rule library '<%s>' not "
			   "found: no '%s.rules' in %s", s->value, s->value,
			   where);
	free(hint);
	free(where);
	return NULL;
}

/* Read and expand the file named by the @include statement @s. */
static int load_include(struct loader *ld, const struct input *parent,
			const struct stmt *s)
{
	const struct input *p;
	struct input *in;
	char *name, *real, *buf;
	size_t len;
	int err;

	if (parent->depth >= LOAD_MAX_INCLUDE_DEPTH)
		return diag_error(ld->diags, &s->loc, "too many nested "
				  "includes: at most %d levels are allowed",
				  LOAD_MAX_INCLUDE_DEPTH);

	if (!s->quoted) {
		/* '@include <NAME>': the rule library. */
		name = find_library(ld, s);
		if (!name)
			return -1;
	} else if (s->value[0] == '/' || !parent->real) {
		/* Buffers and stdin resolve against the working dir. */
		name = xstrdup(s->value);
	} else {
		char *dir = dir_of(parent->name);

		name = xasprintf("%s%s", dir, s->value);
		free(dir);
	}

	real = realpath(name, NULL);
	if (!real) {
		err = errno;
		goto out_read_error;
	}
	for (p = parent; p; p = p->parent) {
		if (p->real && strcmp(p->real, real) == 0) {
			char *chain = cycle_chain(parent, real, name);

			diag_error(ld->diags, &s->loc, "include cycle: %s",
				   chain);
			free(chain);
			free(real);
			free(name);
			return -1;
		}
	}
	err = read_file(name, &buf, &len);
	if (err) {
		free(real);
		goto out_read_error;
	}
	large_input(ld, len);
	in = input_new(ld, name, real, buf, len);
	in->parent = parent;
	in->included_at = s->loc;
	in->depth = parent->depth + 1;
	name_source(ld, in, s->quoted ? NULL : s->value);
	return load_input(ld, in);

out_read_error:
	diag_error(ld->diags, &s->loc, "cannot read '%s': %s", name,
		   read_strerror(err));
	free(name);
	return -1;
}

/*
 * plan.bin's magic (plan/plan.h, a room above this one): a plan given
 * where rules are expected is said in one line, not as a NUL byte error
 * on every line with its binary shown.
 */
static const char plan_magic[] = "VBOXPLAN";

/*
 * Check, parse and expand one input: its statements go to the assembled
 * list in order, each @include replaced by the statements it reads.
 */
static int load_input(struct loader *ld, struct input *in)
{
	struct stmt_list *out = ld->out;
	struct stmt_list tail = { 0 };
	size_t start = out->n, i;
	int ret = 0;

	if (in->len >= sizeof(plan_magic) - 1 &&
	    memcmp(in->buf, plan_magic, sizeof(plan_magic) - 1) == 0)
		return diag_error(ld->diags, NULL, "'%s' is a plan compiled by "
				  "vboxc, not a rule file: 'vboxc explain %s "
				  "--read=PATH' answers from it; the other "
				  "commands read the rules it was compiled "
				  "from", in->name, in->real ? in->name :
				  "PLAN");
	if (check_encoding(in, ld->diags))
		return -1;
	if (parse_input(in, out, ld->diags))
		ret = -1;
	for (i = start; i < out->n; i++)
		if (out->items[i].kind == STMT_INCLUDE)
			break;
	if (i == out->n)
		return ret;

	/*
	 * Move everything from the first @include on aside and append it
	 * back one statement at a time, expanding each @include in place.
	 * Files without includes (the large ones) are never copied.
	 */
	tail.n = tail.cap = out->n - i;
	tail.items = xreallocarray(NULL, tail.n, sizeof(*tail.items));
	memcpy(tail.items, out->items + i, tail.n * sizeof(*tail.items));
	out->n = i;
	for (i = 0; i < tail.n; i++) {
		struct stmt *s = &tail.items[i];

		if (s->kind != STMT_INCLUDE) {
			stmt_list_push(out, s);
			continue;
		}
		if (load_include(ld, in, s))
			ret = -1;
		free(s->arg);
		free(s->value);
	}
	/* The other statements' strings now belong to @out. */
	free(tail.items);
	return ret;
}

int load_rules(struct input_set *inputs, const char *const *paths,
	       size_t npaths, struct stmt_list *out, struct diag_list *diags)
{
	return load_rules_opts(inputs, paths, npaths, NULL, out, diags);
}

/*
 * The canonical source root: @opts->source_root, else the directory of
 * the first file named, else the working directory.  NULL after an
 * error (a source root that cannot be resolved).
 */
static char *source_root(const struct load_opts *opts,
			 const char *const *paths, size_t npaths,
			 struct diag_list *diags)
{
	char *real;
	size_t i;

	if (opts->source_root) {
		real = realpath(opts->source_root, NULL);
		if (!real)
			diag_error(diags, NULL, "cannot use the source root "
				   "'%s': %s", opts->source_root,
				   strerror(errno));
		return real;
	}
	for (i = 0; i < npaths; i++) {
		if (strcmp(paths[i], "-") == 0)
			continue;
		real = realpath(paths[i], NULL);
		if (real) {
			char *dir = real_dir(real);

			free(real);
			return dir;
		}
		/* Unreadable: reported when it is read; name the rest. */
	}
	real = realpath(".", NULL);
	return real ? real : xstrdup("/");
}

int load_rules_opts(struct input_set *inputs, const char *const *paths,
		    size_t npaths, const struct load_opts *opts,
		    struct stmt_list *out, struct diag_list *diags)
{
	struct loader ld = { inputs, out, diags,
			     opts ? opts : &default_opts, NULL };
	size_t i, len;
	int ret = 0;

	ld.root = source_root(ld.opts, paths, npaths, diags);
	if (!ld.root)
		return -1;

	for (i = 0; i < npaths; i++) {
		bool is_stdin = strcmp(paths[i], "-") == 0;
		struct input *in;
		char *buf, *real;
		int err;

		if (is_stdin)
			err = read_all(STDIN_FILENO, &buf, &len);
		else
			err = read_file(paths[i], &buf, &len);
		if (err) {
			ret = diag_error(diags, NULL, "cannot read '%s': %s",
					 is_stdin ? "<stdin>" : paths[i],
					 read_strerror(err));
			continue;
		}
		large_input(&ld, len);
		real = NULL;
		if (!is_stdin) {
			/* Non-NULL real: includes resolve next to it. */
			real = realpath(paths[i], NULL);
			if (!real)
				real = xstrdup(paths[i]);
		}
		in = input_new(&ld, xstrdup(is_stdin ? "<stdin>" : paths[i]),
			       real, buf, len);
		name_source(&ld, in, NULL);
		if (load_input(&ld, in))
			ret = -1;
	}
	free(ld.root);
	return ret;
}

int load_buffer(struct input_set *inputs, const char *name, const char *buf,
		size_t len, struct stmt_list *out, struct diag_list *diags)
{
	struct loader ld = { inputs, out, diags, &default_opts, NULL };
	struct input *in;
	char *copy;

	if (len > LOAD_MAX_FILE_BYTES)
		return diag_error(diags, NULL, "cannot read '%s': %s", name,
				  read_strerror(EFBIG));
	copy = xmalloc(len + 1);
	if (len)
		memcpy(copy, buf, len);
	copy[len] = '\0';
	in = input_new(&ld, xstrdup(name), NULL, copy, len);
	name_source(&ld, in, NULL);
	return load_input(&ld, in);
}
