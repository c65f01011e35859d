/* SPDX-License-Identifier: MIT */
/*
 * mounts_int.h - what the init's mount code shares between its files:
 * mounts.c (the list, binds, covers, remounts) and devproc.c (--dev and
 * --proc).  libc only.
 */
#ifndef VBOX_INIT_MOUNTS_INT_H
#define VBOX_INIT_MOUNTS_INT_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "fail.h"

/* From linux/mount.h, which glibc's sys/mount.h may clash with. */
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef MOVE_MOUNT_T_EMPTY_PATH
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif
#ifndef FSOPEN_CLOEXEC
#define FSOPEN_CLOEXEC 0x00000001
#endif
#ifndef FSMOUNT_CLOEXEC
#define FSMOUNT_CLOEXEC 0x00000001
#endif
#ifndef FSCONFIG_SET_STRING
#define FSCONFIG_SET_STRING 1
#define FSCONFIG_CMD_CREATE 6
#endif
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#define MOUNT_ATTR_NOSUID 0x00000002
#define MOUNT_ATTR_NODEV 0x00000004
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_fsconfig
#define SYS_fsconfig 431
#endif
#ifndef SYS_fsmount
#define SYS_fsmount 432
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_open_tree_attr
#define SYS_open_tree_attr 467
#endif

/* plan/linux_artifact.h's LX_ROW_NONE: a mount of no row. */
#define ROW_NONE UINT32_MAX

/* The kinds of plan/linux_artifact.h the init makes. */
enum {
	K_BIND_RO = 1,
	K_BIND_RW = 2,
	K_BIND_RO_TRY = 3,
	K_BIND_RW_TRY = 4,
	K_DEV = 5,
	K_PROC = 6,
	K_TMPFS = 7,
	K_DIR = 8,
	K_REMOUNT_RO = 9,
};

/* Same layout as struct mount_attr (linux/mount.h). */
struct attr {
	uint64_t attr_set;
	uint64_t attr_clr;
	uint64_t propagation;
	uint64_t userns_fd;
};



/* mkdir -p of @path's parents (and of @path itself when @dir). */
int make_path(char *path, bool dir, mode_t mode);

/* @dest into @buf (PATH_MAX), which make_path() may write into. */
char *path_copy(char *buf, const char *dest);

/* mount_setattr() of @path (relative to @dfd, with @flags). */
int setattr(int dfd, const char *path, unsigned flags, uint64_t set,
	    uint64_t clr);

/*
 * bind_mount - a bind of @src onto @dest with bubblewrap's flags for
 * @kind (a K_BIND_*); @listed: one of the list's own, which the view may
 * serve (srcview.h), not one --dev or --proc makes of what they mounted.
 * 0, or -1 with @err.
 */
int bind_mount(unsigned kind, const char *src, char *dest, uint32_t row,
	       bool listed, char *err, size_t errlen);

/* make_dev - --dev at @dest, with @tty as /dev/console (NULL: none). */
int make_dev(const char *tty, const char *dest, char *err, size_t errlen);

/* make_proc - --proc at @dest; @limit runs while /proc/sys is writable. */
int make_proc(const char *dest, int (*limit)(char *, size_t), char *err,
	      size_t errlen);

#endif /* VBOX_INIT_MOUNTS_INT_H */
