/* SPDX-License-Identifier: MIT */
/*
 * target.c - the three targets' language-level traits (see target.h).
 */
#include <vbox.h>

#include "target.h"

static const char *const unix_home_vars[] = { "HOME", NULL };
static const char *const windows_home_vars[] = { "HOME", "USERPROFILE", NULL };

static const struct target_traits targets[] = {
	{
		.name = "darwin",
		/* APFS and HFS+ are case-insensitive by default. */
		.fold_case = true,
		.home_vars = unix_home_vars,
		.passwd_home = true,
		.config_home_suffix = "/Library/Application Support",
	},
	{
		.name = "linux",
		.home_vars = unix_home_vars,
		.passwd_home = true,
		.config_var = "XDG_CONFIG_HOME",
		/* The XDG spec says relative values are invalid. */
		.config_var_must_be_absolute = true,
		.config_home_suffix = "/.config",
	},
	{
		.name = "windows",
		.fold_case = true,
		.windows_paths = true,
		.vars_fold_case = true,
		.home_vars = windows_home_vars,
		.config_var = "AppData",
	},
};

const struct target_traits *target_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < array_size(targets); i++)
		if (strcmp(targets[i].name, name) == 0)
			return &targets[i];
	return NULL;
}

const struct target_traits *target_host(void)
{
#if defined(__APPLE__)
	return target_lookup("darwin");
#elif defined(_WIN32)
	return target_lookup("windows");
#else
	return target_lookup("linux");
#endif
}

const char *target_names(void)
{
	return "darwin|linux|windows";
}
