// SPDX-License-Identifier: MIT
/*
 * cli_spool.h - where vboxc compile renders its output before a byte is
 * written, struct spool (an unlinked temporary file, else memory), and
 * copying the result out.  A plan's artifact is rendered into one too,
 * then streamed into the plan (plan_encode_to()).
 */
#ifndef VBOX_CLI_SPOOL_H
#define VBOX_CLI_SPOOL_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/**
 * struct spool - the output, rendered before anything is written
 * @f: the stream it is rendered through (owned); for a file, open for
 *     reading and writing
 * @len: number of bytes rendered, known once spool_close() succeeded
 * @data: in memory only: the bytes (owned, from open_memstream)
 * @mlen: in memory only: open_memstream's length of @data
 * @mem: rendered in memory (no temporary file could be made)
 * @buf: for a file, @f's buffer (owned; freed after @f is closed)
 * @dir: spool_open_in() made the file in this directory (owned), where
 *       spool_link() can give it a name; NULL otherwise
 *
 * The whole artifact is rendered before a byte reaches its destination,
 * into an unlinked temporary file rather than memory when one can be
 * made: a darwin profile of a million rows is some 380 MB, which held in
 * memory was most of the compile's peak.  Without a usable temporary
 * directory it is rendered in memory, as it always was.
 */
struct spool {
	FILE *f;
	off_t len;
	char *data;
	size_t mlen;
	bool mem;
	char *buf;
	char *dir;
};

int spool_open(struct spool *sp);
/*
 * spool_open_in - spool_open(), the file made without a name in @dir
 * (O_TMPFILE) when the system can: the output file to replace lives
 * there, and the spool can become it (spool_link()) instead of being
 * copied into it (a million-row darwin profile is some 380 MB).
 */
int spool_open_in(struct spool *sp, const char *dir);
/*
 * spool_link - after spool_close(), for a spool that spool_open_in() made
 * in a directory: give it the name @path there (which must not exist).
 * Returns 0, or -1 with errno set (the caller copies instead).
 */
int spool_link(struct spool *sp, const char *path);
/*
 * spool_reader - after spool_close(): a stream reading the rendered bytes
 * from the start (owned by @sp), or NULL with errno set.
 */
FILE *spool_reader(struct spool *sp);
int spool_close(struct spool *sp);
void spool_free(struct spool *sp);
int spool_copy(struct spool *sp, int fd, FILE *out);

#endif
