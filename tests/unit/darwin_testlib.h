/* SPDX-License-Identifier: MIT */
/*
 * darwin_testlib.h - what the darwin profile tests share: a compiled
 * table's profile as text and as a parsed, checked profile, and the
 * questions they ask of it (sbpl_check.h decides like Seatbelt).
 */
#ifndef VBOX_DARWIN_TESTLIB_H
#define VBOX_DARWIN_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>

struct diag_list;
struct sbpl_profile;
struct tl_compiled;

/* The darwin profile of @c as text (caller frees), or NULL. */
char *dt_emit(const struct tl_compiled *c, size_t *len);

/*
 * Compile @rules for darwin into @c (caller frees @c with
 * tl_compiled_free()) and return its profile, parsed and checked (free
 * with dt_profile_free()), or NULL when the table is refused or the
 * profile does not check.
 */
struct sbpl_profile *dt_profile_of(struct tl_compiled *c, const char *rules);
void dt_profile_free(struct sbpl_profile *prof);

/* Does @prof allow operation @op on @path? */
bool dt_may(const struct sbpl_profile *prof, const char *op, const char *path);

/* Would writing @path (an existing file, or creating it) succeed? */
bool dt_may_write(const struct sbpl_profile *prof, const char *path);

#endif /* VBOX_DARWIN_TESTLIB_H */
