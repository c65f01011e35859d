/* SPDX-License-Identifier: MIT */
/*
 * load.h - reading rule files and assembling the statement table.
 */
#ifndef VBOX_LOAD_H
#define VBOX_LOAD_H

#include <stdbool.h>
#include <stddef.h>

struct input;
struct input_set;
struct stmt_list;
struct diag_list;

/* Bounds on external input: exceeding one is an error, never a truncation. */
#define LOAD_MAX_FILE_BYTES (256u << 20)
#define LOAD_MAX_INCLUDE_DEPTH 16
/* Longest NAME of '@include <NAME>'. */
#define LOAD_MAX_LIBRARY_NAME 64

/*
 * The installed rule library, searched last for '@include <NAME>'
 * (configure sets it to $(datadir)/vbox/rules).
 */
#ifndef VBOX_RULES_DIR
#define VBOX_RULES_DIR "/usr/local/share/vbox/rules"
#endif

/**
 * struct load_opts - how a load resolves '@include <NAME>'
 * @include_dirs: directories searched for NAME.rules, in order, before
 *                @rules_dir (borrowed; -I on the command line)
 * @ninclude_dirs: number of @include_dirs
 * @rules_dir: the installed rule library, searched last; NULL means
 *             VBOX_RULES_DIR
 * @source_root: the directory artifacts name rule files relative to
 *               (struct input's @source); NULL means the directory of
 *               the first file named (the working directory when only
 *               standard input is read)
 * @large_heap: a program's own choice, never a library's: an input of
 *              4 MiB or more puts the whole process's heap on huge
 *              pages (mem_large_heap_begin(), util/hugemem.h), which a
 *              process that has started threads must not ask for
 */
struct load_opts {
	const char *const *include_dirs;
	size_t ninclude_dirs;
	const char *rules_dir;
	const char *source_root;
	bool large_heap;
};

/*
 * parse_input - grammar/: scan and parse one input into statements appended
 * to @out.  @include statements are queued, not followed.  Recovers per
 * line, to the end (past the error cap errors are only counted).  Returns
 * 0, or -1 with errors queued.
 */
int parse_input(const struct input *in, struct stmt_list *out,
		struct diag_list *diags);

/*
 * load_rules - read every file in @paths ("-" is standard input) in order,
 * check its encoding (UTF-8, no NUL byte, no lone CR; a leading BOM is
 * skipped), parse it and expand @include statements in place, depth first,
 * into the assembled statement list @out.  Include paths are relative to
 * the including file's directory; a cycle or a 17th nested include is an
 * error.  Every input read is added to @inputs, which owns it.  Returns 0,
 * or -1 with errors queued on @diags (@out may then be partial).
 */
int load_rules(struct input_set *inputs, const char *const *paths,
	       size_t npaths, struct stmt_list *out, struct diag_list *diags);

/*
 * load_rules_opts - load_rules() with @opts (NULL: the defaults) saying
 * where '@include <NAME>' looks: NAME.rules in each include directory in
 * order, then the installed rule library.  NAME is letters, digits, '.',
 * '_' and '-' (no '/', no '..'); an invalid or unknown NAME is an error
 * that lists the directories searched.  Each input's @source is named
 * against @opts->source_root (see struct load_opts); a source root that
 * cannot be resolved is an error.
 */
int load_rules_opts(struct input_set *inputs, const char *const *paths,
		    size_t npaths, const struct load_opts *opts,
		    struct stmt_list *out, struct diag_list *diags);

/*
 * load_buffer - like load_rules for one in-memory file named @name
 * (fuzzing, tests); @include is resolved relative to the working directory.
 * The buffer is copied.
 */
int load_buffer(struct input_set *inputs, const char *name, const char *buf,
		size_t len, struct stmt_list *out, struct diag_list *diags);

#endif /* VBOX_LOAD_H */
