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
};

int spool_open(struct spool *sp);
/*
 * spool_reader - after spool_close(): a stream reading the rendered bytes
 * from the start (owned by @sp), or NULL with errno set.
 */
FILE *spool_reader(struct spool *sp);
int spool_close(struct spool *sp);
void spool_free(struct spool *sp);
int spool_copy(struct spool *sp, int fd, FILE *out);

#endif
