/* SPDX-License-Identifier: MIT */
/*
 * target.h - what a compilation target changes in the rule language.
 *
 * The compiler core never switches on a target's name: everything that
 * differs between linux, darwin and windows is a field here.
 */
#ifndef VBOX_TARGET_H
#define VBOX_TARGET_H

#include <stdbool.h>

#include "target_id.h"

/**
 * struct target_traits - language-level properties of one target
 * @id: the target in the registry (target_id.h)
 * @name: its name, target_id_name(@id)
 * @fold_case: paths compare case-insensitively (ASCII folding)
 * @windows_paths: patterns are drive paths ("C:\x", "C:/x", "/c/x"),
 *                 backslash separates, "/c" and "/c/" "**" are drive roots,
 *                 drive-less and UNC paths are errors
 * @vars_fold_case: variable names compare case-insensitively
 * @home_vars: variables tried in order for "~" and $HOME, NULL-terminated;
 *             after them the passwd entry (when @passwd_home)
 * @passwd_home: fall back to the passwd entry of the current user
 * @config_var: variable whose value is $UserConfigDir (NULL: none); for
 *              linux a relative value is ignored
 * @config_var_must_be_absolute: ignore a relative @config_var value
 * @config_home_suffix: when @config_var is unset, home + this suffix
 *                      (NULL: $UserConfigDir then needs @config_var)
 */
struct target_traits {
	enum target_id id;
	const char *name;
	bool fold_case;
	bool windows_paths;
	bool vars_fold_case;
	const char *const *home_vars;
	bool passwd_home;
	const char *config_var;
	bool config_var_must_be_absolute;
	const char *config_home_suffix;
};

/* target_lookup - the traits named @name, or NULL for an unknown name. */
const struct target_traits *target_lookup(const char *name);

/* target_host - the traits of the platform vboxc was built for. */
const struct target_traits *target_host(void);

/* target_names - "darwin|linux|windows", for usage messages. */
const char *target_names(void);

/*
 * target_suggest - the target an unknown @name probably means: a common
 * alias ("macos" is darwin, "win" windows) or a near spelling; NULL when
 * none fits.
 */
const char *target_suggest(const char *name);

#endif /* VBOX_TARGET_H */
