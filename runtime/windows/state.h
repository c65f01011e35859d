/* SPDX-License-Identifier: MIT */
/*
 * state.h - the windows launcher's reconciliation state file
 * (%APPDATA%\vbox\sandbox\deny_acl_state.json; doc/launcher.md,
 * "Windows: the state file").
 *
 * A record says "this launcher (the holder) put this ACE, label or
 * placeholder on this object".  The protocol, all under the state's lock
 * (the caller's struct state_ops makes it: LockFileEx on windows, flock in
 * the unit tests):
 *
 *   start   state_open; state_add every record this run will make and
 *           state_write them (an intent: a launcher killed while applying
 *           leaves records a later run finds); apply them on the host;
 *           state_sweep: revoke what dead holders left and nobody alive
 *           needs; state_write; state_close
 *   end     state_open; state_finish (drop our records, revoke what no
 *           live holder needs); state_write; state_close
 *
 * The new set is applied before the old one is revoked, so an object
 * both need is never left without its ACEs in between.  The file is
 * replaced whole (write a temporary, then rename), so a reader sees the
 * old or the new state, never a torn one.
 */
#ifndef VBOX_WSTATE_H
#define VBOX_WSTATE_H

#include <stdbool.h>
#include <stddef.h>

#include "aclplan.h"

enum srec_kind {
	SREC_ACE = 0,
	SREC_LABEL = 1,
	SREC_PLACEHOLDER = 2,
};

/**
 * struct srec - one record
 * @holder: who made it ("PID:START", the process and its start time)
 * @path: the object's native path
 * @kind: enum srec_kind
 * @ace: SREC_ACE: the ACE (its @sid owned); else zero
 */
struct srec {
	char *holder;
	char *path;
	unsigned kind;
	struct wace ace;
};

struct sstate {
	struct srec *recs;
	size_t n;
	size_t cap;
};

/* The state file is at most this large (corrupt beyond). */
#define STATE_MAX_BYTES (16u << 20)

/**
 * struct state_ops - the host side of the protocol
 * @lock: take the state's exclusive lock (blocking); 0 or -1 with *@err
 * @unlock: release it
 * @read: the file's bytes into *@buf and *@len (caller frees), or *@buf
 *        NULL when there is no file yet; 0 or -1 with *@err
 * @write: replace the file atomically; 0 or -1 with *@err
 * @alive: whether @holder still runs
 * @revoke: undo @r on the host; 0 when done or nothing was there, -1
 *          when it could not (the record is kept for a later run)
 */
struct state_ops {
	void *ctx;
	int (*lock)(void *ctx, char **err);
	void (*unlock)(void *ctx);
	int (*read)(void *ctx, char **buf, size_t *len, char **err);
	int (*write)(void *ctx, const char *buf, size_t len, char **err);
	bool (*alive)(void *ctx, const char *holder);
	int (*revoke)(void *ctx, const struct srec *r);
};

int sstate_parse(const char *buf, size_t len, struct sstate *out,
		 char **err);
/* sstate_format - the file's bytes (deterministic), caller frees. */
char *sstate_format(const struct sstate *s, size_t *len);
void sstate_free(struct sstate *s);
void sstate_add(struct sstate *s, const char *holder, const char *path,
		unsigned kind, const struct wace *ace);
/*
 * sstate_drop - forget @holder's ACE and label records on @path (an
 * object the launcher found it could not touch, so nothing is there to
 * revoke); placeholders stay.
 */
void sstate_drop(struct sstate *s, const char *holder, const char *path);

/* state_open - lock, then read and parse; on failure nothing is held. */
int state_open(const struct state_ops *ops, struct sstate *s, char **err);
int state_write(const struct state_ops *ops, const struct sstate *s,
		char **err);
void state_close(const struct state_ops *ops, struct sstate *s);

/*
 * state_sweep - revoke and drop the records of holders that are not
 * alive, except that a record some live holder (or @self) also has is
 * only dropped.  Returns how many revocations failed.
 */
size_t state_sweep(const struct state_ops *ops, struct sstate *s,
		   const char *self);
/*
 * state_finish - drop @self's records, revoking those no live holder
 * also has; dead holders' records are swept as well.  Returns how many
 * revocations failed (their records stay, under a dead holder).
 */
size_t state_finish(const struct state_ops *ops, struct sstate *s,
		    const char *self);

/*
 * state_records_for - the records carrying out @plan's objects for
 * @holder, into @s: every ACE of every object, a label for each object
 * with label_low.  (Placeholders are added when they are made.)
 */
void state_records_for(const struct aclplan *plan, const char *holder,
		       struct sstate *s);

#endif /* VBOX_WSTATE_H */
