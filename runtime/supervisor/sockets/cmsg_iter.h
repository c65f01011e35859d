/* SPDX-License-Identifier: MIT */
/*
 * cmsg_iter.h - one checked walk over control messages, as the kernel
 * walks them (include/linux/socket.h: for_each_cmsghdr, CMSG_OK,
 * __cmsg_nxthdr).
 *
 * The buffer is bytes the sandbox chose: nothing in it is trusted.  A
 * header is read with memcpy (the buffer need not be aligned); each one
 * is checked against the buffer before its payload is handed out:
 *
 *   - the first header exists when the buffer holds a whole header;
 *   - a header is malformed (-EINVAL, the kernel's answer) unless
 *     sizeof(struct cmsghdr) <= cmsg_len <= bytes left from it;
 *   - the next header starts CMSG_ALIGN(cmsg_len) further on and exists
 *     when a whole header fits there; trailing bytes shorter than a
 *     header are ignored, as the kernel ignores them.
 *
 * The layout is the kernel's for a 64-bit process (struct cmsg_khdr:
 * a 64-bit cmsg_len, then level and type), not the C library's: musl
 * declares cmsg_len as 32 bits with padding, which would hide the upper
 * half the kernel reads.  Pure code: no allocation, no system call.
 */
#ifndef VBOX_SUPERVISOR_CMSG_ITER_H
#define VBOX_SUPERVISOR_CMSG_ITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct cmsg_khdr - a control message header as a 64-bit kernel reads it
 * @len: cmsg_len, header included
 * @level: cmsg_level
 * @type: cmsg_type
 */
struct cmsg_khdr {
	uint64_t len;
	int32_t level;
	int32_t type;
};

/* The kernel's SCM_MAX_FD: at most this many fds in one message. */
#define CMSG_ITER_MAX_FD 253

/**
 * struct cmsg_iter - a walk over one control buffer
 * @buf: the control data (borrowed)
 * @len: its bytes (msg_controllen)
 * @off: offset of the next header to return
 * @done: no header left
 */
struct cmsg_iter {
	unsigned char *buf;
	size_t len;
	size_t off;
	bool done;
};

/**
 * struct cmsg_item - one control message, inside the buffer
 * @level: cmsg_level
 * @type: cmsg_type
 * @off: offset of its header in the buffer
 * @data_off: offset of its payload (CMSG_DATA) in the buffer
 * @data_len: bytes of payload (cmsg_len minus the header)
 */
struct cmsg_item {
	int level;
	int type;
	size_t off;
	size_t data_off;
	size_t data_len;
};

/* cmsg_iter_init - start a walk over @len bytes at @buf (borrowed). */
void cmsg_iter_init(struct cmsg_iter *it, void *buf, size_t len);

/*
 * cmsg_iter_next - the next message into *@c: 1; 0 when there is none
 * left; -EINVAL for a malformed header (the walk is then over).
 */
int cmsg_iter_next(struct cmsg_iter *it, struct cmsg_item *c);

/*
 * cmsg_rights_count - how many fds an SCM_RIGHTS payload of @data_len
 * bytes carries, as the kernel counts them (whole ints; a remainder is
 * ignored).
 */
size_t cmsg_rights_count(size_t data_len);

#endif /* VBOX_SUPERVISOR_CMSG_ITER_H */
