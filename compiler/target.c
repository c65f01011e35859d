/* SPDX-License-Identifier: MIT */
/*
 * target.c - the three targets' language-level traits (see target.h).
 */
#include <vbox.h>

#include <strings.h>

#include "misspell.h"
#include "target.h"
#include "target_id.h"

static const char *const unix_home_vars[] = { "HOME", NULL };
static const char *const windows_home_vars[] = { "HOME", "USERPROFILE", NULL };

/* Indexed by enum target_id; target_lookup() checks each entry. */
static const struct target_traits targets[] = {
	[TARGET_DARWIN] = {
		.id = TARGET_DARWIN,
		.name = TARGET_DARWIN_NAME,
		/* APFS and HFS+ are case-insensitive by default. */
		.fold_case = true,
		.home_vars = unix_home_vars,
		.passwd_home = true,
		.config_home_suffix = "/Library/Application Support",
	},
	[TARGET_LINUX] = {
		.id = TARGET_LINUX,
		.name = TARGET_LINUX_NAME,
		.home_vars = unix_home_vars,
		.passwd_home = true,
		.config_var = "XDG_CONFIG_HOME",
		/* The XDG spec says relative values are invalid. */
		.config_var_must_be_absolute = true,
		.config_home_suffix = "/.config",
	},
	[TARGET_WINDOWS] = {
		.id = TARGET_WINDOWS,
		.name = TARGET_WINDOWS_NAME,
		.fold_case = true,
		.windows_paths = true,
		.vars_fold_case = true,
		.home_vars = windows_home_vars,
		.config_var = "AppData",
	},
};

const struct target_traits *target_lookup(const char *name)
{
	enum target_id id = target_id_of(name);

	if (!id)
		return NULL;
	if (id >= array_size(targets) || targets[id].id != id ||
	    strcmp(targets[id].name, name) != 0)
		BUG("target '%s' has no traits", name);
	return &targets[id];
}

const struct target_traits *target_host(void)
{
#if defined(__APPLE__)
	return target_lookup(target_id_name(TARGET_DARWIN));
#elif defined(_WIN32)
	return target_lookup(target_id_name(TARGET_WINDOWS));
#else
	return target_lookup(target_id_name(TARGET_LINUX));
#endif
}

const char *target_names(void)
{
	return target_id_names();
}

const char *target_suggest(const char *name)
{
	/* What people call these systems when they do not say the kernel. */
	static const struct {
		const char *alias;
		const char *target;
	} aliases[] = {
		{ "macos", "darwin" },	{ "mac", "darwin" },
		{ "macosx", "darwin" },	{ "osx", "darwin" },
		{ "apple", "darwin" },	{ "win", "windows" },
		{ "win32", "windows" }, { "win64", "windows" },
		{ "gnu-linux", "linux" }, { "gnu/linux", "linux" },
	};
	static const char *const names[] = { "darwin", "linux", "windows" };
	size_t i;

	for (i = 0; i < array_size(aliases); i++)
		if (strcasecmp(name, aliases[i].alias) == 0)
			return aliases[i].target;
	return misspell_suggest(name, strlen(name), names, array_size(names));
}
