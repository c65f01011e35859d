/* SPDX-License-Identifier: MIT */
/*
 * blanks.h - blanks inside an unquoted file pattern that look like text
 * the pattern was not meant to hold (doc/rules.md §2, "Unquoted targets").
 */
#ifndef VBOX_BLANKS_H
#define VBOX_BLANKS_H

struct stmt;
struct location;

/*
 * blanks_check - for the row @s with an unquoted file pattern: when the
 * pattern holds a tab, a run of two or more blanks, or a blank right
 * after a wildcard segment (one with a '*': "*", "**", "x*"), the warning
 * to give at the first such blank run: its message (caller frees, it
 * shows the quoted spelling that keeps the text) with *@at set; else
 * NULL.  A single space between plain words ("C:/Program Files/" "**")
 * is silent.
 */
char *blanks_check(const struct stmt *s, struct location *at);

#endif /* VBOX_BLANKS_H */
