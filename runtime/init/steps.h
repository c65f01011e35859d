/* SPDX-License-Identifier: MIT */
/*
 * steps.h - the steps of the sandbox's init that need privilege: the
 * mounts vbox-exec hands it, the nested user namespace, dropping every
 * capability (doc/launcher.md, "Mounts in the init").  Each returns 0,
 * or -1 with a one-line reason in @err (@errlen bytes).  libc only.
 */
#ifndef VBOX_INIT_STEPS_H
#define VBOX_INIT_STEPS_H

#include <stddef.h>
#include <stdint.h>

/*
 * init_mounts_apply - make the mounts encoded in the memfd @fd (plan/
 * linux_artifact.h's encoding; binds, --dev, --proc, tmpfs, directories,
 * read-only remounts), in order, with the new mount API; then re-enter
 * the working directory so that it is seen through the new mounts.
 * @limit (NULL: none) runs while /proc/sys is writable: right after the
 * list's procfs is mounted, else before the first mount.
 */
int init_mounts_apply(int fd, int (*limit)(char *, size_t), char *err,
		      size_t errlen);

/*
 * init_limit_userns - make user namespaces impossible to create below
 * the one init_enter_userns() makes (user.max_user_namespaces = 1, as
 * bubblewrap's --disable-userns).  Runs before the mounts, which may
 * make /proc/sys read-only (the kernel-state wall).
 */
int init_limit_userns(char *err, size_t errlen);

/*
 * init_enter_userns - move into a nested user namespace mapping @uid and
 * @gid to this one's 0 (setgroups denied); init_limit_userns() first.
 */
int init_enter_userns(uint32_t uid, uint32_t gid, char *err, size_t errlen);

/*
 * init_drop_caps - no capability left in any set (effective, permitted,
 * inheritable, ambient, bounding), checked after dropping.
 */
int init_drop_caps(char *err, size_t errlen);

#endif /* VBOX_INIT_STEPS_H */
