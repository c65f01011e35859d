/* SPDX-License-Identifier: MIT */
/*
 * table_int.h - what table.c shares with table_specs.c, which rebuilds a
 * table from a plan's rows.
 */
#ifndef VBOX_TABLE_INT_H
#define VBOX_TABLE_INT_H

#include <stddef.h>

struct row;
struct rowvec;

/*
 * rowvec_push - append @row (its storage the table's row pool) in table
 * order, setting its index; *@cap is @vec's allocated size.
 */
void rowvec_push(struct rowvec *vec, size_t *cap, struct row *row);

/*
 * rowvec_sort_priority - fill @vec's priority order (level descending,
 * then table order) and each row's prio.
 */
void rowvec_sort_priority(struct rowvec *vec);

#endif /* VBOX_TABLE_INT_H */
