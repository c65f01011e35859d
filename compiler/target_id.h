/* SPDX-License-Identifier: MIT */
/*
 * target_id.h - the one registry of targets.
 *
 * Every table that is per target (the compiler's language traits in
 * target.c, the emitters in emit.c, the plan's target byte in plan.h) is
 * indexed by enum target_id, and every name comes from here, so adding a
 * target is one line in TARGET_LIST and one entry in each of those
 * tables (which are checked to be complete).  The numbers are stored in
 * plan.bin: never renumber.
 */
#ifndef VBOX_TARGET_ID_H
#define VBOX_TARGET_ID_H

/* The names, spelled once; tables that need a constant use these. */
#define TARGET_DARWIN_NAME "darwin"
#define TARGET_LINUX_NAME "linux"
#define TARGET_WINDOWS_NAME "windows"

/* X(ID, number, name): every target, in name order. */
#define TARGET_LIST(X)                                  \
	X(TARGET_DARWIN, 1, TARGET_DARWIN_NAME)         \
	X(TARGET_LINUX, 2, TARGET_LINUX_NAME)           \
	X(TARGET_WINDOWS, 3, TARGET_WINDOWS_NAME)

/**
 * enum target_id - a target; 0 is "none"
 * @TARGET_DARWIN: macOS, Seatbelt
 * @TARGET_LINUX: Linux, bubblewrap
 * @TARGET_WINDOWS: Windows, restricted token + ACL plan
 */
enum target_id {
#define TARGET_ENUM(id, num, name) id = num,
	TARGET_LIST(TARGET_ENUM)
#undef TARGET_ENUM
};

#define TARGET_ID_MIN TARGET_DARWIN
#define TARGET_ID_MAX TARGET_WINDOWS

/* target_id_of - the target named @name (NULL allowed), or 0. */
enum target_id target_id_of(const char *name);

/* target_id_name - "darwin", "linux", "windows"; "unknown" otherwise. */
const char *target_id_name(enum target_id id);

/* target_id_names - "darwin|linux|windows", for usage messages. */
const char *target_id_names(void);

#endif /* VBOX_TARGET_ID_H */
