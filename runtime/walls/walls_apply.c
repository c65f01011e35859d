/* SPDX-License-Identifier: MIT */
/*
 * walls_apply.c - the sandbox's init puts the walls in place (walls.h).
 * Linked into the static vbox-init: libc only.
 */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landlock.h"
#include "seccomp.h"
#include "walls.h"

int walls_apply(int fd, int *listener, int *abi, const char **what)
{
	struct walls_blob_head h;
	struct stat st;
	const char **paths = NULL;
	char *blob = NULL, *p, *end;
	size_t have = 0, i, body;
	ssize_t n;
	int rc = -1;

	*listener = -1;
	*abi = 0;
	*what = "reading the walls";
	if (fstat(fd, &st) < 0)
		return -1;
	if (st.st_size < (off_t)sizeof(h) || st.st_size > WALLS_BLOB_MAX) {
		errno = EINVAL;
		return -1;
	}
	blob = malloc((size_t)st.st_size + 1);
	if (!blob)
		return -1;
	while (have < (size_t)st.st_size) {
		n = pread(fd, blob + have, (size_t)st.st_size - have,
			  (off_t)have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errno = n < 0 ? errno : EIO;
			goto out;
		}
		have += (size_t)n;
	}
	memcpy(&h, blob, sizeof(h));
	body = (size_t)h.deny_len + h.notify_len + h.paths_len;
	errno = EINVAL;
	if (h.magic != WALLS_MAGIC || h.version != WALLS_VERSION ||
	    h.deny_len == 0 || body != have - sizeof(h) ||
	    h.npaths > WALLS_PATHS_MAX ||
	    (h.paths_len && blob[have - 1] != '\0'))
		goto out;
	paths = calloc(h.npaths + 1, sizeof(*paths));
	if (!paths)
		goto out;
	p = blob + sizeof(h) + h.deny_len + h.notify_len;
	end = blob + have;
	for (i = 0; i < h.npaths; i++) {
		if (p >= end)
			goto out;
		paths[i] = p;
		p += strlen(p) + 1;
	}

	*what = "prctl(PR_SET_NO_NEW_PRIVS)";
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		goto out;
	if (h.flags & WALLS_LANDLOCK) {
		*abi = landlock_restrict(paths, h.npaths, what);
		if (*abi < 0)
			goto out;
	}
	*what = "seccomp (the deny filter)";
	if (seccomp_prog_load(blob + sizeof(h), h.deny_len, NULL) < 0)
		goto out;
	if (h.flags & WALLS_NOTIFY) {
		*what = "seccomp user notification (the socket filter)";
		if (seccomp_prog_load(blob + sizeof(h) + h.deny_len,
				      h.notify_len, listener) < 0)
			goto out;
	}
	rc = 0;
out:
	free(paths);
	free(blob);
	return rc;
}
