/* SPDX-License-Identifier: MIT */
/*
 * pathwait.h - a supervised open that must block (a FIFO without
 * O_NONBLOCK waits for its other end), made in a thread of its own so
 * the supervisor's loop never blocks.  The file was judged before; the
 * thread opens exactly it (through /proc/self/fd of an O_PATH fd) and
 * answers the notification.  At most PATHWAIT_MAX wait at once.
 */
#ifndef VBOX_SUPERVISOR_PATHWAIT_H
#define VBOX_SUPERVISOR_PATHWAIT_H

#include <stdbool.h>
#include <stdint.h>

#define PATHWAIT_MAX 64

/*
 * pathwait_start - open @fd (an O_PATH fd, consumed) with @flags in a
 * thread and answer notification @id on @listener (borrowed: duplicated)
 * with the new fd (close-on-exec in the child when @cloexec) or the
 * errno.  0, or an errno for the child when no thread could start
 * (EAGAIN past PATHWAIT_MAX); @fd is closed then too.
 */
int pathwait_start(int listener, uint64_t id, int fd, int flags,
		   bool cloexec);

#endif /* VBOX_SUPERVISOR_PATHWAIT_H */
