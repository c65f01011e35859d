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
 * (no socket supervisor when Landlock scopes abstract sockets; the
 * helper refuses to run otherwise), sent in CH_SETUP on a socket pair
 * whose init end is fd 3 of PROGRAM (pass vbox-init --channel=3), and
 * PROGRAM is exec'd.  Prints "landlock ABI" on stderr first.
 *
 * tests/exec_walls_landlock.sh uses it to show that Landlock refuses a
 * write that the mounts of a different, hand-built list allow;
 * tests/exec_pin_mountpoint.sh that a pin does not hold where the bind
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
	if (walls_prepare(&lx, true, pins, npins, &w, &err) < 0) {
		fprintf(stderr, "walls_blob: %s\n", err);
		return 1;
	}
	fprintf(stderr, "landlock %d\n", w.landlock_abi);
	if (w.notify) {
		fprintf(stderr, "walls_blob: this kernel needs a socket "
			"supervisor, which this helper does not run\n");
		return 3;
	}
	m = xmalloc(sizeof(*m));
	ch_init(m, CH_SETUP);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0 ||
	    ch_put_fd(m, CH_FD_WALLS, w.fd) < 0 || ch_send(sv[0], m) < 0) {
		fprintf(stderr, "walls_blob: %s\n", strerror(errno));
		return 1;
	}
	/* The init's end is fd 3; ours stays open (reports queue in it). */
	if (sv[1] != 3 && (dup2(sv[1], 3) < 0 || close(sv[1]) < 0))
		return 1;
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "walls_blob: %s: %s\n", argv[i + 1], strerror(errno));
	return 127;
}
