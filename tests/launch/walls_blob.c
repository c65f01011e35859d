/* SPDX-License-Identifier: MIT */
/*
 * walls_blob.c - test helper: prepare the walls vbox-exec would for one
 * mount list, and run a command line (bubblewrap and vbox-init) whose
 * init gets them, as vbox-exec would hand them over:
 *
 *   walls_blob MOUNT... -- PROGRAM [ARG...]
 *
 * MOUNT is "--bind SRC DEST", "--ro-bind SRC DEST", "--dev DEST" or
 * "--proc DEST"; "--pin PATH" pins PATH as vbox-exec pins a granted
 * path (its device and inode now, checked by the init on the mount
 * point PATH).  The walls are prepared as under "@default net open"
 * (without the socket supervisor the launcher would run: see
 * reports()), sent in CH_SETUP on a socket pair
 * whose init end is fd 3 of PROGRAM (pass vbox-init --channel=3), and
 * PROGRAM is exec'd.  Prints "landlock ABI" on stderr first.
 *
 * tests/launch/exec_walls_landlock.sh uses it to show that Landlock refuses a
 * write that the mounts of a different, hand-built list allow;
 * tests/launch/exec_pin_mountpoint.sh that a pin does not hold where the bind
 * did not land.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "channel.h"
#include "linux_artifact.h"
#include "pin.h"
#include "walls/walls.h"

/*
 * With a socket filter (w.notify) the command's process reports the
 * filter's listener and waits until vbox-exec says it took it.  No
 * supervisor runs here: a child of ours reads the reports on @sock and
 * answers "taken" without taking it, so the init closes the listener and
 * a supervised call fails (ENOSYS) instead of waiting.  The commands
 * these tests run make none.  @init_end is the init's end of the pair.
 * Returns 0 in the caller (which keeps no end of @sock), -1 when it
 * cannot fork.
 */
static int reports(int sock, int init_end)
{
	struct ch_msg *m;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(sock);
		return 0;
	}
	/* Only the init holds its end: its exit ends the loop below. */
	close(init_end);
	m = xmalloc(sizeof(*m));
	while (ch_recv(sock, m, 0) > 0) {
		ch_close_fds(m);
		if (ch_type_of(m) != CH_STARTED)
			continue;
		ch_init(m, CH_LISTENER_TAKEN);
		if (ch_send_plain(sock, m) < 0)
			break;
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	struct lx_artifact lx;
	struct pin pins[8];
	size_t npins = 0;
	struct stat st;
	struct ch_msg *m;
	struct walls w;
	char *err = NULL;
	int i, sv[2];

	memset(&lx, 0, sizeof(lx));
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--bind") == 0 && i + 2 < argc) {
			lx_add(&lx, LX_BIND_RW, argv[i + 1], argv[i + 2], 0,
			       LX_ROW_NONE);
			i += 2;
		} else if (strcmp(argv[i], "--ro-bind") == 0 && i + 2 < argc) {
			lx_add(&lx, LX_BIND_RO, argv[i + 1], argv[i + 2], 0,
			       LX_ROW_NONE);
			i += 2;
		} else if (strcmp(argv[i], "--dev") == 0 && i + 1 < argc) {
			lx_add(&lx, LX_DEV, NULL, argv[++i], 0, LX_ROW_NONE);
		} else if (strcmp(argv[i], "--pin") == 0 && i + 1 < argc &&
			   npins < array_size(pins)) {
			if (stat(argv[++i], &st) < 0) {
				fprintf(stderr, "walls_blob: %s: %s\n",
					argv[i], strerror(errno));
				return 2;
			}
			pins[npins].dest = argv[i];
			pins[npins].dev = (uint64_t)st.st_dev;
			pins[npins].ino = (uint64_t)st.st_ino;
			npins++;
		} else if (strcmp(argv[i], "--proc") == 0 && i + 1 < argc) {
			lx_add(&lx, LX_PROC, NULL, argv[++i], 0, LX_ROW_NONE);
		} else {
			fprintf(stderr, "walls_blob: cannot read '%s'\n",
				argv[i]);
			return 2;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "usage: walls_blob MOUNT... -- PROGRAM...\n");
		return 2;
	}
	if (walls_prepare(&lx, true, WALLS_PATHS_NONE, pins, npins, &w,
			  &err) < 0) {
		fprintf(stderr, "walls_blob: %s\n", err);
		return 1;
	}
	fprintf(stderr, "landlock %d\n", w.landlock_abi);
	m = xmalloc(sizeof(*m));
	ch_init(m, CH_SETUP);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0 ||
	    ch_put_fd(m, CH_FD_WALLS, w.fd) < 0 || ch_send(sv[0], m) < 0) {
		fprintf(stderr, "walls_blob: %s\n", strerror(errno));
		return 1;
	}
	if (w.notify && reports(sv[0], sv[1]) < 0) {
		fprintf(stderr, "walls_blob: fork: %s\n", strerror(errno));
		return 1;
	}
	/* The init's end is fd 3. */
	if (sv[1] != 3 && (dup2(sv[1], 3) < 0 || close(sv[1]) < 0))
		return 1;
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "walls_blob: %s: %s\n", argv[i + 1], strerror(errno));
	return 127;
}
