/* SPDX-License-Identifier: MIT */
/*
 * exit_codes.h - vbox-exec's own exit statuses (doc/launcher.md, "Exit
 * status"), shared with the sandbox's init.
 */
#ifndef VBOX_EXIT_CODES_H
#define VBOX_EXIT_CODES_H

#define EXIT_TIMEOUT 124
#define EXIT_LAUNCHER 125
#define EXIT_NOT_EXECUTABLE 126
#define EXIT_NOT_FOUND 127

#endif /* VBOX_EXIT_CODES_H */
