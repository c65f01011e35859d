/* SPDX-License-Identifier: MIT */
/*
 * win_host.h - the windows launcher's host side: text conversion, SIDs,
 * ACEs and labels on objects (win_host.c), the state file (win_state.c).
 * Windows only; everything it decides is in the portable files.
 */
#ifndef VBOX_WIN_HOST_H
#define VBOX_WIN_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include <windows.h>
#include <aclapi.h>

#include "capsid.h"

struct aclplan;
struct sstate;
struct wobj;
struct srec;
struct state_ops;
struct wace;
struct wacl;

wchar_t *utf8_to_wide(const char *s);
char *wide_to_utf8(const wchar_t *w);
/* win_strerror - "The system cannot find the file specified (error 2)". */
char *win_strerror(DWORD code);

/* capability_sid_new - the binary SID (free()) of @sub. */
PSID capability_sid_new(const uint32_t sub[CAPSID_NSUB]);
/* sid_text - "S-1-…" (free()), or NULL. */
char *sid_text(PSID sid);

/* host_read_dacl - @h's DACL as the model, and whether it is protected. */
int host_read_dacl(HANDLE h, SE_OBJECT_TYPE type, struct wacl *m,
		   bool *protected, char **why);

/*
 * host_merge_handle - merge @add into the DACL of the open object @h of
 * @type (a file; the wine tests use a registry key, whose security
 * descriptor wine keeps), in canonical order; with @only_gap only when
 * the DACL has a gap (wacl_gap()).  Returns 1 when written, 0 when not
 * needed, -1 with *@why; *@wrote once the DACL may have changed.
 */
int host_merge_handle(HANDLE h, SE_OBJECT_TYPE type, const struct wace *add,
		      size_t nadd, bool only_gap, bool *wrote, char **why);
/*
 * host_remove_handle - remove the explicit ACEs equal to @a from @h's
 * DACL: 1 when removed, 0 when there were none, -1 with *@why.
 */
int host_remove_handle(HANDLE h, SE_OBJECT_TYPE type, const struct wace *a,
		       char **why);

/*
 * host_apply - merge @o's ACEs into its DACL (and its label).  Returns 0,
 * 1 when it is missing (and has no placeholder), -1 with *@why; *@created
 * when a placeholder directory was made, *@wrote once its security
 * descriptor may have changed.
 */
int host_apply(const struct wobj *o, bool *created, bool *wrote, char **why);
/*
 * host_close_gaps - below @o (wobj_walks()), give each existing object
 * whose DACL has a gap (wacl_gap()) @o's inheritable ACEs explicitly,
 * recorded in @s for @holder.  The walk does not enter reparse points and
 * stops at @plan's other entries (aclplan_entry_at(); not at pins).
 * Returns how many objects got ACEs, or -1 with *@why.
 */
long host_close_gaps(const struct aclplan *plan, const struct wobj *o,
		     struct sstate *s, const char *holder, char **why);

/* host_revoke - undo one state record; 0, or -1 with *@why. */
int host_revoke(const struct srec *rec, char **why);

/* holder_self - this process as a state holder ("PID:START"). */
char *holder_self(void);
bool holder_alive(const char *holder);

/* host_state_ops - the state file in @dir (made when missing). */
int host_state_ops(const char *dir, struct state_ops *ops, char **err);
void host_state_ops_free(struct state_ops *ops);


#endif /* VBOX_WIN_HOST_H */
