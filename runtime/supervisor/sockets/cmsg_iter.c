/* SPDX-License-Identifier: MIT */
/*
 * cmsg_iter.c - the checked control-message walk; see cmsg_iter.h.
 */
#include <vbox.h>

#include <errno.h>

#include "cmsg_iter.h"

#define HDR sizeof(struct cmsg_khdr)
#define ALIGN_TO sizeof(uint64_t)

void cmsg_iter_init(struct cmsg_iter *it, void *buf, size_t len)
{
	it->buf = buf;
	it->len = len;
	it->off = 0;
	/* CMSG_FIRSTHDR: none unless a whole header fits. */
	it->done = !buf || len < HDR;
}

int cmsg_iter_next(struct cmsg_iter *it, struct cmsg_item *c)
{
	struct cmsg_khdr h;
	size_t left, step;

	if (it->done)
		return 0;
	/* it->off + HDR <= it->len holds here (init and the step below). */
	left = it->len - it->off;
	memcpy(&h, it->buf + it->off, HDR);
	/* CMSG_OK */
	if (h.len < HDR || h.len > left) {
		it->done = true;
		return -EINVAL;
	}
	c->level = h.level;
	c->type = h.type;
	c->off = it->off;
	c->data_off = it->off + HDR;
	c->data_len = (size_t)h.len - HDR;
	/*
	 * __cmsg_nxthdr: CMSG_ALIGN(cmsg_len) further on, if a whole
	 * header fits there.  cmsg_len <= left <= it->len, so the rounding
	 * cannot wrap.
	 */
	step = (size_t)((h.len + ALIGN_TO - 1) & ~(uint64_t)(ALIGN_TO - 1));
	if (step > left || left - step < HDR)
		it->done = true;
	else
		it->off += step;
	return 1;
}

size_t cmsg_rights_count(size_t data_len)
{
	return data_len / sizeof(int);
}
