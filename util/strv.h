/* SPDX-License-Identifier: MIT */
/*
 * strv.h - a growable vector of owned strings.
 */
#ifndef VBOX_STRV_H
#define VBOX_STRV_H

#include <stdbool.h>
#include <stddef.h>

/**
 * struct strv - strings in order
 * @v: the entries (each owned)
 * @n: number of entries
 * @cap: allocated entries
 */
struct strv {
	char **v;
	size_t n;
	size_t cap;
};

/* strv_push - append @s, which the vector then owns. */
void strv_push(struct strv *sv, char *s);
/* strv_add - append a copy of @s. */
void strv_add(struct strv *sv, const char *s);
/* strv_has - is @s an entry (linear)? */
bool strv_has(const struct strv *sv, const char *s);
/* strv_release - free every entry and the array; @sv is empty again. */
void strv_release(struct strv *sv);

#endif /* VBOX_STRV_H */
