/* SPDX-License-Identifier: MIT */
/*
 * unixsock_op.c - what every part of the socket supervisor does with a
 * notification it holds (unixsock_int.h): asks whether its caller still
 * waits in it, answers it, reads the child's memory and takes its fds
 * for it, drops vbox-exec's capabilities around the call, and frees the
 * op.  The lowest file of the socket supervisor: the loop (unixsock.c)
 * and the parts it calls (unixsock_dest.c, unixsock_emul.c,
 * unixsock_perform.c) use it, it uses none of them.
 */
#include <vbox.h>

#include <errno.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "supervisor/childpath.h"
#include "sockcall.h"
#include "unixsock.h"
#include "unixsock_int.h"

int us_notif_valid(const struct unixsock *us, uint64_t id)
{
	uint64_t v = id;

	return ioctl(us->w.fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &v) == 0;
}

void us_respond(struct unixsock *us, uint64_t id, int64_t val, int err)
{
	struct seccomp_notif_resp *resp = us->resp;

	/* us->resp is the kernel's size (SECCOMP_GET_NOTIF_SIZES). */
	memset(resp, 0, us->resp_size);
	resp->id = id;
	resp->val = err ? 0 : val;
	resp->error = err ? -err : 0;
	resp->flags = 0;
	if (ioctl(us->w.fd, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0)
		us->stats.gone++;	/* the caller went away (ENOENT) */
	else
		us->stats.handled++;
	if (err == EACCES)
		us->stats.refused++;
}

/* child_read_fn over child_peek(): the decoder's view of the child. */
int us_read_child(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct op *op = ctx;

	return child_peek(op->tid, addr, buf, len);
}

/* Take fd @fd of thread @tid (childpath.h: the last caller's pidfd). */
int us_take_fd(struct unixsock *us, pid_t tid, int fd, int *out)
{
	return child_take_fd(&us->fds, tid, fd, out);
}

/*
 * The calls made for the child run without vbox-exec's effective
 * capabilities (when it has any: run as root), so they never pass a
 * permission check the child would fail: a socket file or a directory
 * the child could not open or search, through CAP_DAC_OVERRIDE or
 * CAP_DAC_READ_SEARCH.  Taking fds and reading memory need none (the
 * owner of the sandbox's user namespace has every capability in it).
 * Per thread; vbox-exec gets them back for its own work.
 */
void us_caps_effective(const struct unixsock *us, bool on)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	/* The permitted sets, read once (unixsock_alloc()): a notification
	 * costs two system calls here, not four. */
	memcpy(d, us->caps, sizeof(d));
	d[0].effective = on ? d[0].permitted : 0;
	d[1].effective = on ? d[1].permitted : 0;
	if (syscall(SYS_capset, &h, d) < 0)
		BUG("cannot %s the effective capabilities: %s",
		    on ? "restore" : "drop", strerror(errno));
}

void us_op_free(struct op *op)
{
	size_t i, j;

	if (!op)
		return;
	if (op->sock >= 0)
		close(op->sock);
	for (i = 0; op->dest && i < op->call.nmsgs; i++) {
		if (op->dest[i].target >= 0)
			close(op->dest[i].target);
		for (j = 0; j < op->dest[i].nfds; j++)
			close(op->dest[i].fds[j]);
		free(op->dest[i].fds);
	}
	if (op->bind_dir >= 0)
		close(op->bind_dir);
	free(op->bind_name);
	free(op->dest);
	free(op->sent);
	sockcall_release(&op->call);
	free(op);
}
