/* SPDX-License-Identifier: MIT */
/*
 * target_id.c - names of the registered targets (target_id.h).
 */
#include <vbox.h>

#include "target_id.h"

static const char *const names[] = {
#define TARGET_NAME(id, num, name) [num] = name,
	TARGET_LIST(TARGET_NAME)
#undef TARGET_NAME
};

enum target_id target_id_of(const char *name)
{
	size_t i;

	if (!name)
		return 0;
	for (i = TARGET_ID_MIN; i <= TARGET_ID_MAX; i++)
		if (strcmp(names[i], name) == 0)
			return (enum target_id)i;
	return 0;
}

const char *target_id_name(enum target_id id)
{
	if (id < TARGET_ID_MIN || id > TARGET_ID_MAX)
		return "unknown";
	return names[id];
}

const char *target_id_names(void)
{
#define TARGET_JOIN(id, num, name) "|" name
	static const char all[] = TARGET_LIST(TARGET_JOIN);
#undef TARGET_JOIN

	return all + 1;
}
