// SPDX-License-Identifier: MIT
/*
 * cli_spool.c - vboxc compile's output, rendered before a byte reaches
 * its destination (cli_spool.h): in memory, or in an unlinked temporary
 * file when a large artifact would make memory the compile's peak.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_spool.h"

/* Write all @len bytes at @buf to @fd; -1 with errno set on failure. */
static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}


/* The buffer of a spool file's stream. */
#define SPOOL_BUF_BYTES ((size_t)1 << 20)

/* An unlinked temporary file in @dir, or -1. */
static int spool_file(const char *dir)
{
	char *tmp = xasprintf("%s/vboxc-out-XXXXXX", dir);
	int fd = mkstemp(tmp);

	/* Nobody needs its name: gone on any exit, even a crash. */
	if (fd >= 0)
		unlink(tmp);
	free(tmp);
	return fd;
}

/* Render into the file @fd (taken); false (and @fd closed) on failure. */
static bool spool_on(struct spool *sp, int fd)
{
	sp->f = fdopen(fd, "w+");
	if (!sp->f) {
		close(fd);
		return false;
	}
	/*
	 * A large profile is hundreds of MB: written in 4 KiB pieces
	 * (stdio's default here) it was a system call each, 6 % of a
	 * million-row darwin compile.
	 */
	sp->buf = xmalloc(SPOOL_BUF_BYTES);
	if (setvbuf(sp->f, sp->buf, _IOFBF, SPOOL_BUF_BYTES))
		BUG("setvbuf on a new stream failed");
	return true;
}

int spool_open_in(struct spool *sp, const char *dir)
{
#ifdef O_TMPFILE
	int fd;

	memset(sp, 0, sizeof(*sp));
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 && spool_on(sp, fd)) {
		sp->dir = xstrdup(dir);
		return 0;
	}
#else
	(void)dir;
#endif
	return spool_open(sp);
}

int spool_link(struct spool *sp, const char *path)
{
	char fdpath[64];

	if (!sp->dir || !sp->f) {
		errno = EINVAL;
		return -1;
	}
	/* Linking a nameless file needs privilege, except through /proc. */
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fileno(sp->f));
	return linkat(AT_FDCWD, fdpath, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

int spool_open(struct spool *sp)
{
	const char *dir = getenv("TMPDIR");
	int fd = -1;

	memset(sp, 0, sizeof(*sp));
	if (dir && dir[0] == '/')
		fd = spool_file(dir);
	if (fd < 0)
		fd = spool_file("/tmp");
	if (fd >= 0 && spool_on(sp, fd))
		return 0;
	sp->mem = true;
	sp->f = open_memstream(&sp->data, &sp->mlen);
	if (!sp->f) {
		fprintf(stderr, "%s: cannot open a memory stream: %s\n",
			CLI_PROGNAME, strerror(errno));
		return -1;
	}
	return 0;
}

/* Finish rendering; -1 after a message when a write failed. */
int spool_close(struct spool *sp)
{
	bool bad = fflush(sp->f) != 0 || ferror(sp->f) != 0;

	if (sp->mem) {
		/* A memory stream's bytes are complete once it is closed. */
		if (fclose(sp->f) != 0)
			bad = true;
		sp->f = NULL;
		sp->len = (off_t)sp->mlen;
	} else if (!bad) {
		sp->len = ftello(sp->f);
		bad = sp->len < 0;
	}
	if (bad) {
		fprintf(stderr, "%s: cannot build the output: %s\n",
			CLI_PROGNAME, strerror(errno));
		return -1;
	}
	return 0;
}

FILE *spool_reader(struct spool *sp)
{
	if (!sp->mem)
		return fseeko(sp->f, 0, SEEK_SET) < 0 ? NULL : sp->f;
	if (!sp->f)
		/* open_memstream's bytes end in a NUL: never an empty buffer */
		sp->f = fmemopen(sp->data, sp->mlen ? sp->mlen : 1, "r");
	return sp->f;
}

void spool_free(struct spool *sp)
{
	if (sp->f)
		fclose(sp->f);
	free(sp->data);
	free(sp->buf);
	free(sp->dir);
	memset(sp, 0, sizeof(*sp));
}

/*
 * Copy the rendered bytes to @fd (@out NULL) or to the stream @out.
 * Returns 0, or -1 with errno set.
 */
int spool_copy(struct spool *sp, int fd, FILE *out)
{
	char buf[64 * 1024];
	size_t n;

	if (sp->mem) {
		if (out)
			return fwrite(sp->data, 1, sp->mlen, out) == sp->mlen ?
			       0 : -1;
		return write_all(fd, sp->data, sp->mlen);
	}
	if (fseeko(sp->f, 0, SEEK_SET) < 0)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), sp->f)) > 0) {
		if (out ? fwrite(buf, 1, n, out) != n :
			  write_all(fd, buf, n) < 0)
			return -1;
	}
	if (ferror(sp->f)) {
		errno = EIO;
		return -1;
	}
	return 0;
}
