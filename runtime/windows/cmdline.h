/* SPDX-License-Identifier: MIT */
/*
 * cmdline.h - windows command lines: CreateProcessW takes one string,
 * and the child splits it again (CommandLineToArgvW, the C runtime).
 * cmdline_quote() makes the string those rules split back into exactly
 * the argument vector given; cmdline_split() is those rules, for the
 * tests and for the launcher's own command line.
 */
#ifndef VBOX_CMDLINE_H
#define VBOX_CMDLINE_H

#include <stddef.h>

/* A command line is at most 32767 UTF-16 units; in UTF-8 bytes, less. */
#define CMDLINE_MAX 32767

/*
 * cmdline_quote - the command line for @argv (NULL-terminated, UTF-8).
 * The program name is quoted without escapes, as CommandLineToArgvW
 * reads it: it may not contain '"'.  Returns NULL with *@err set when
 * that, or the length limit, makes the vector unrepresentable.
 */
char *cmdline_quote(char *const *argv, char **err);

/*
 * cmdline_split - split @line as CommandLineToArgvW does (the program
 * name, then the arguments with its backslash and quote rules).  Returns
 * a NULL-terminated vector (caller frees each and it), *@argc set.
 */
char **cmdline_split(const char *line, size_t *argc);

void cmdline_free(char **argv);

#endif /* VBOX_CMDLINE_H */
