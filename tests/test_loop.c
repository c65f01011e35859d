/* SPDX-License-Identifier: MIT */
/*
 * test_loop.c - the event loop (runtime/loop.c) on real pipes: readiness,
 * timer order, re-arming and cancelling, and a watch removed (and freed)
 * by an earlier callback of the same round never being called.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "loop.h"
#include "tap.h"

struct pipe_end {
	struct loop_watch w;
	int other;		/* the write end */
	int calls;
	struct pipe_end *victim; /* removed and freed by this one's callback */
	bool *victim_freed;
};

static void on_readable(struct loop *lp, struct loop_watch *w, uint32_t ev)
{
	struct pipe_end *p = w->ctx;
	char buf[16];

	(void)ev;
	p->calls++;
	if (read(w->fd, buf, sizeof(buf)) < 0)
		diag("read: %s", strerror(errno));
	if (p->victim) {
		loop_watch_remove(lp, &p->victim->w);
		close(p->victim->w.fd);
		close(p->victim->other);
		free(p->victim);
		*p->victim_freed = true;
		p->victim = NULL;
	}
	loop_watch_remove(lp, w);
}

static struct pipe_end *pipe_end_alloc(void)
{
	struct pipe_end *p = xzalloc(sizeof(*p));
	int fds[2];

	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
		BUG("pipe2: %s", strerror(errno));
	loop_watch_init(&p->w, fds[0], on_readable, p);
	p->other = fds[1];
	return p;
}

static void pipe_end_free(struct pipe_end *p)
{
	close(p->w.fd);
	close(p->other);
	free(p);
}

static int order[8], norder;

static void on_timer(struct loop *lp, struct loop_timer *t)
{
	(void)lp;
	order[norder++] = (int)(intptr_t)t->ctx;
}

static void test_timers(void)
{
	struct loop lp;
	struct loop_timer t[5];
	double now, t0;
	int i;

	is_int(loop_init(&lp), 0, "loop_init");
	now = loop_now_ms();
	for (i = 0; i < 5; i++)
		loop_timer_init(&t[i], on_timer, (void *)(intptr_t)i);
	/* armed out of order; 3 re-armed later, 1 cancelled */
	loop_timer_arm(&lp, &t[0], now + 40);
	loop_timer_arm(&lp, &t[1], now + 10);
	loop_timer_arm(&lp, &t[2], now + 20);
	loop_timer_arm(&lp, &t[3], now + 1);
	loop_timer_arm(&lp, &t[4], now + 30);
	loop_timer_arm(&lp, &t[3], now + 50);
	loop_timer_cancel(&lp, &t[1]);
	ok(!loop_timer_armed(&t[1]), "a cancelled timer is disarmed");
	ok(loop_timer_armed(&t[3]), "a re-armed timer is armed");
	t0 = loop_now_ms();
	is_int(loop_run(&lp), 0, "loop_run returns 0 when nothing is left");
	ok(loop_now_ms() - t0 >= 49, "the last timer did not fire early");
	is_int(norder, 4, "four timers fired");
	ok(norder == 4 && order[0] == 2 && order[1] == 4 && order[2] == 0 &&
		   order[3] == 3,
	   "timers fire in deadline order, the re-armed one at its new time");
	loop_release(&lp);
}

static void test_removal_in_batch(void)
{
	struct loop lp;
	struct pipe_end *a, *b;
	bool b_freed = false;

	is_int(loop_init(&lp), 0, "loop_init");
	a = pipe_end_alloc();
	b = pipe_end_alloc();
	/* Whichever is delivered first removes and frees the other. */
	a->victim = b;
	a->victim_freed = &b_freed;
	is_int(loop_watch_add(&lp, &a->w, EPOLLIN), 0, "add a");
	is_int(loop_watch_add(&lp, &b->w, EPOLLIN), 0, "add b");
	is_int(loop_watch_add(&lp, &b->w, EPOLLIN), -EEXIST,
	       "adding an active watch again is refused");
	/* Both readable before the loop runs, a first: one epoll round
	 * delivers a, whose callback frees b while b's event is queued. */
	if (write(a->other, "x", 1) != 1 || write(b->other, "x", 1) != 1)
		BUG("write: %s", strerror(errno));
	is_int(loop_run(&lp), 0, "loop_run ends when no watch is left");
	ok(b_freed, "the victim was removed and freed by a's callback");
	is_int(a->calls, 1, "a was called once");
	/* Had b been delivered after being freed, ASan would report it. */
	pipe_end_free(a);
	loop_release(&lp);
}

static void stop_now(struct loop *lp, struct loop_timer *t)
{
	(void)t;
	loop_stop(lp);
}

static void test_stop(void)
{
	struct loop lp;
	struct loop_timer stop, later;
	struct pipe_end *p;

	is_int(loop_init(&lp), 0, "loop_init");
	p = pipe_end_alloc();
	is_int(loop_watch_add(&lp, &p->w, EPOLLIN), 0,
	       "a watch that never becomes ready");
	loop_timer_init(&stop, stop_now, NULL);
	loop_timer_init(&later, on_timer, (void *)(intptr_t)7);
	norder = 0;
	loop_timer_arm(&lp, &stop, loop_now_ms() + 5);
	loop_timer_arm(&lp, &later, loop_now_ms() + 60000);
	is_int(loop_run(&lp), 0, "loop_stop ends loop_run");
	is_int(norder, 0, "a later timer did not fire");
	is_int(p->calls, 0, "an idle watch was not called");
	loop_watch_remove(&lp, &p->w);
	loop_timer_cancel(&lp, &later);
	pipe_end_free(p);
	loop_release(&lp);
}

int main(void)
{
	test_timers();
	test_removal_in_batch();
	test_stop();
	return done_testing();
}
