/* SPDX-License-Identifier: MIT */
/*
 * container.c - container mode's decisions before the start
 * (container.h; doc/launcher.md, "Container mode").
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bwrap.h"
#include "container.h"
#include "exit_codes.h"
#include "ir.h"
#include "launch.h"
#include "netaddr.h"
#include "plan.h"
#include "planjudge.h"
#include "sandbox.h"
#include "strbuf.h"
#include "walls/seccomp.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif

/* The Landlock ABI, or -1 with errno (ENOSYS, EOPNOTSUPP). */
static int landlock_version(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);

	if (v < 0)
		return -1;
	return v > 1000 ? 1000 : (int)v;
}

/*
 * Can a filter with a listener be loaded?  Tried in a child (a filter
 * cannot be removed): gVisor, for one, answers EINVAL.  0 or an errno.
 */
static int listener_probe(void)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { 1, &allow };
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(errno & 0x7f);
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog) < 0)
			_exit(errno & 0x7f);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return errno;
	if (!WIFEXITED(status))
		return EIO;
	return WEXITSTATUS(status);
}

/* Does pidfd_getfd() work on our own process?  0 or an errno. */
static int getfd_probe(void)
{
	int pidfd, fd, err = 0;

	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0)
		return errno;
	fd = (int)syscall(SYS_pidfd_getfd, pidfd, pidfd, 0);
	if (fd < 0)
		err = errno;
	else
		close(fd);
	close(pidfd);
	return err;
}

/*
 * Without pidfd_getfd() no send is stopped, which holds because no
 * socket the sandbox can make counts a destination on a send
 * (seccomp.c, build_container_nogetfd_sends()).  A socket it inherits as
 * fd 0, 1 or 2 was not made there: one for which a send's destination
 * counts (a datagram socket, say) is refused.  0, or -1 with *@err.
 */
static int std_fds_hold(char **err)
{
	int fd, domain, type, proto;
	socklen_t sl;
	bool ok;

	for (fd = 0; fd <= 2; fd++) {
		sl = sizeof(domain);
		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &sl) < 0)
			continue;	/* not a socket (or not open) */
		sl = sizeof(type);
		if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &sl) < 0)
			type = -1;
		sl = sizeof(proto);
		if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &sl) < 0)
			proto = -1;
		ok = (domain == AF_UNIX &&
		      (type == SOCK_STREAM || type == SOCK_SEQPACKET)) ||
		     ((domain == AF_INET || domain == AF_INET6) &&
		      type == SOCK_STREAM && proto == IPPROTO_TCP);
		if (!ok) {
			*err = xasprintf("container mode: fd %d is a socket "
					 "(family %d, type %d) whose sends "
					 "could name any destination, and "
					 "pidfd_getfd() is refused here, so "
					 "the supervisor cannot judge them: "
					 "give the command another fd %d (a "
					 "pipe, a file, a stream socket)",
					 fd, domain, type, fd);
			return -1;
		}
	}
	return 0;
}

int container_probe(struct container *c, bool accept_unscoped, char **err)
{
	const char *cap;
	int abi, e = 0;

	abi = landlock_version();
	if (abi < 0) {
		e = errno;
		*err = xasprintf("container mode needs Landlock, and this "
				 "kernel %s (landlock_create_ruleset: %s)",
				 e == EOPNOTSUPP ? "has it disabled at boot "
				 "(the lsm= list does not name landlock)" :
				 e == ENOSYS ? "has none (or a container "
				 "runtime hides it, as gVisor does)" :
				 "refuses it", strerror(e));
		return -1;
	}
	/* The test suite's cap, honoured by the build tree's binary only. */
	cap = launcher_in_build_tree() ? getenv("VBOX_TEST_LANDLOCK_ABI") :
	      NULL;
	if (cap && atoi(cap) > 0 && atoi(cap) < abi)
		abi = atoi(cap);
	c->abi = abi;
	if (abi < 6 && !accept_unscoped) {
		*err = xasprintf("container mode: Landlock ABI %d cannot scope "
				 "signals to the sandbox (ABI 6, Linux 6.12): "
				 "the child could signal every process of its "
				 "uid outside it; --accept-unscoped-signals "
				 "accepts that", abi);
		return -1;
	}
	if (!seccomp_notify_available() || (e = listener_probe()) != 0) {
		*err = xasprintf("container mode needs seccomp user "
				 "notification for its socket supervisor, and "
				 "it is refused here (%s; gVisor, for one, "
				 "refuses it)", seccomp_notify_available() ?
				 strerror(e) : "not available");
		return -1;
	}
	e = getfd_probe();
	if (e == EPERM || e == ENOSYS || e == EACCES) {
		c->no_getfd = true;
		vx_log("container mode: pidfd_getfd() is refused here (%s; "
		       "Docker's default profile refuses it without "
		       "CAP_SYS_PTRACE): connect() and bind() are emulated, "
		       "sendto() with an address and unix sockets other than "
		       "stream and seqpacket refused", strerror(e));
		if (std_fds_hold(err) < 0)
			return -1;
	} else if (e) {
		*err = xasprintf("container mode: pidfd_getfd() fails here: %s",
				 strerror(e));
		return -1;
	}
	if (abi != landlock_version())
		vx_log("container mode: probed: landlock ABI %d (capped to %d "
		       "for the test suite)", landlock_version(), abi);
	else
		vx_log("container mode: probed: landlock ABI %d", abi);
	vx_log("container mode: probed: seccomp user notification with a "
	       "listener; pidfd_getfd() %s",
	       c->no_getfd ? "refused (emulated)" : "works");
	return 0;
}

/* "row N '!!deny:/x' (rules:3:1)" for messages. */
static char *narrow_row_text(const struct plan *p, uint32_t row)
{
	const struct plan_row *r;
	char bangs[256];

	if (row >= p->nfs)
		return xstrdup("a mount of the launcher's own");
	r = &p->fs[row];
	memset(bangs, '!', r->level);
	bangs[r->level] = '\0';
	return xasprintf("row %u '%s%s:%s' (%s)", row, bangs,
			 effect_name(r->effect), r->target, r->source);
}

/* The rows of the launch (not the launcher's own mounts) it narrowed. */
static size_t narrowed_rows(const struct container_rules *cr)
{
	size_t i, n = 0;

	for (i = 0; i < cr->nnarrowed; i++)
		if (cr->narrowed[i].row != LX_ROW_NONE &&
		    (i == 0 || cr->narrowed[i - 1].row != cr->narrowed[i].row))
			n++;
	return n;
}

/* "row 3 '!!deny:/x' (rules:3:1) at '/x': why; row 7 ...": each row once. */
static char *narrowed_text(const struct plan *p, const struct container_rules *cr)
{
	struct strbuf msg = { 0 };
	size_t i, n = 0;
	char *t;

	for (i = 0; i < cr->nnarrowed; i++) {
		const struct container_narrowing *w = &cr->narrowed[i];
		bool first = i == 0 || cr->narrowed[i - 1].row != w->row;

		if (w->row == LX_ROW_NONE)
			continue;
		if (first) {
			t = narrow_row_text(p, w->row);
			strbuf_puts(&msg, n++ ? "; " : "");
			strbuf_puts(&msg, t);
			strbuf_puts(&msg, " at '");
			strbuf_puts(&msg, w->path);
			strbuf_puts(&msg, "': ");
			free(t);
		} else {
			strbuf_puts(&msg, ", and ");
		}
		strbuf_puts(&msg, w->what);
	}
	return msg.s ? msg.s : xstrdup("");
}

/* A refusal of the mount list: what to change, never "--mode=ns". */
static char *rules_refusal(char *why)
{
	char *t = xasprintf("%s (change that row of the table, or run where "
			    "user namespaces are allowed: namespace mode "
			    "holds it)", why);

	free(why);
	return t;
}

int container_prepare(struct container *c, const struct launch_request *req,
		      const struct sandbox *sa, bool supervise, char **err)
{
	const struct plan *p = req->plan;
	size_t n;
	char *t;

	/*
	 * Landlock alone where it holds the table exactly; where it would
	 * hold a row only narrower (a deny row, a hole in a writable root,
	 * the private /tmp), the supervisor judges every path call instead
	 * and Landlock keeps the coarse shape.  --accept-narrower keeps the
	 * narrower Landlock-only wall (no path supervisor, faster) for
	 * tables whose every row it can hold so.
	 */
	if (container_rules_build(&sa->lx, supervise, &c->rules, err) < 0) {
		*err = rules_refusal(*err);
		return -1;
	}
	n = narrowed_rows(&c->rules);
	if (n && req->accept_narrower && req->mode != LAUNCH_AUTO) {
		t = narrowed_text(p, &c->rules);
		vx_log("container mode: --accept-narrower: %zu row%s held "
		       "narrower by Landlock alone, no path supervisor: %s", n,
		       n == 1 ? "" : "s", t);
		free(t);
	} else if (n) {
		container_rules_release(&c->rules);
		if (container_rules_build(&sa->lx, true, &c->rules, err) < 0) {
			*err = rules_refusal(*err);
			return -1;
		}
	}
	c->supervised = c->rules.supervised;
	c->net_deny = p->default_net == EFFECT_DENY;
	if (c->net_deny) {
		if (judge_from_plan(&c->judge, p, err) != 0)
			return -1;
		c->have_judge = true;
	}
	return 0;
}

static bool loopback(const struct sockaddr *sa, uint16_t *port, bool *v4_1)
{
	const struct sockaddr_in *s4 = (const void *)sa;
	const struct sockaddr_in6 *s6 = (const void *)sa;
	const uint8_t *a = s6->sin6_addr.s6_addr;
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					    0xff, 0xff };

	if (sa->sa_family == AF_INET) {
		*port = ntohs(s4->sin_port);
		*v4_1 = ntohl(s4->sin_addr.s_addr) == INADDR_LOOPBACK;
		return ntohl(s4->sin_addr.s_addr) >> 24 == 127;
	}
	if (sa->sa_family != AF_INET6)
		return false;
	*port = ntohs(s6->sin6_port);
	if (memcmp(a, mapped, sizeof(mapped)) == 0) {
		*v4_1 = a[12] == 127 && !a[13] && !a[14] && a[15] == 1;
		return a[12] == 127;
	}
	*v4_1 = false;
	return IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
}

bool container_admit(void *ctx, const struct sockaddr *sa)
{
	const struct container *c = ctx;
	struct net_target q;
	struct verdict v;
	char hp[32], *qerr = NULL;
	uint16_t port = 0;
	bool v4_1 = false;

	if (!c->net_deny)
		return true;
	if (!loopback(sa, &port, &v4_1) || port == 0)
		return false;
	/* The proxy listens on 127.0.0.1 alone. */
	if (v4_1 && (port == c->proxy_ports[0] || port == c->proxy_ports[1]))
		return true;
	if (!c->have_judge)
		return false;
	snprintf(hp, sizeof(hp), "localhost:%u", port);
	if (net_query_parse(hp, &q, &qerr) != 0) {
		free(qerr);
		return false;
	}
	judge_query(&c->judge, &q, &v);
	net_target_free(&q);
	return v.allow;
}

/* "rxl wti cdm": what a rule grants, in short. */
static void rights_text(uint64_t r, char *buf)
{
	static const struct {
		uint64_t bit;
		char c;
	} k[] = {
		{ CR_READ_FILE, 'r' }, { CR_EXECUTE, 'x' },
		{ CR_READ_DIR, 'l' }, { CR_WRITE_FILE, 'w' },
		{ CR_TRUNCATE, 't' }, { CR_IOCTL_DEV, 'i' },
		{ CR_MAKE, 'c' }, { CR_REMOVE_DIR | CR_REMOVE_FILE, 'd' },
		{ CR_REFER, 'm' },
	};
	size_t i;

	for (i = 0; i < array_size(k); i++)
		buf[i] = (r & k[i].bit) == k[i].bit ? k[i].c :
			 (r & k[i].bit) ? '+' : '-';
	buf[i] = '\0';
}

void container_log(const struct container *c, const struct launch_request *req,
		   bool always)
{
	size_t i;
	char *t;

	if (!always && !vx_log_enabled)
		return;
	vx_error("container mode: no namespaces; landlock ABI %d: %zu rules "
		 "(%zu host entries listed for splits); seccomp container "
		 "filter; socket supervisor: inet connects %s; %s",
		 c->abi, c->rules.nrules, c->rules.nlisted,
		 c->net_deny ? "to the proxy's ports and the loopback ports "
		 "the table allows only" : "as given (net open)",
		 c->supervised ? "path supervisor: every path call judged by "
		 "the table (its deny and read-only rows, the private /tmp)" :
		 "no path supervisor (Landlock holds the table)");
	for (i = 0; i < c->rules.nnarrowed; i++) {
		const struct container_narrowing *w = &c->rules.narrowed[i];

		t = narrow_row_text(req->plan, w->row);
		vx_error("container mode: narrower: %s at '%s': %s", t,
			 w->path, w->what);
		free(t);
	}
}

int container_dry_run(const struct container *c,
		      const struct launch_request *req)
{
	char r[16];
	size_t i;

	container_log(c, req, true);
	printf("# vbox-exec --mode=container: landlock ABI %d, %zu rules "
	       "(r read, x execute, l list, w write, t truncate, i device "
	       "ioctl, c create, d remove, m rename across; + some)\n",
	       c->abi, c->rules.nrules);
	for (i = 0; i < c->rules.nrules; i++) {
		rights_text(c->rules.rules[i].rights, r);
		printf("landlock %s %s%s\n", r, c->rules.rules[i].path,
		       c->rules.rules[i].listed ? " (listed)" : "");
	}
	if (!c->net_deny)
		printf("supervisor: inet connects as given (@default net "
		       "open); abstract unix addresses refused\n");
	else
		printf("supervisor: inet connects only to 127.0.0.1 at the "
		       "proxy's ports (chosen at launch) and to loopback "
		       "ports the table allows (judged per connect); inet "
		       "bind and listen on loopback only; abstract unix "
		       "addresses refused; pathname sockets where the rules "
		       "grant writing\n");
	if (c->supervised)
		printf("supervisor: every path call (open, create, remove, "
		       "rename, link, exec, metadata) judged by the table and "
		       "made by the supervisor; Landlock above is the coarse "
		       "shape\n");
	printf("exec %s --channel=3 --", init_path());
	for (i = 0; req->command[i]; i++) {
		char *q = shell_quote(req->command[i]);

		printf(" %s", q);
		free(q);
	}
	printf("\n");
	return fflush(stdout) == 0 ? 0 : EXIT_LAUNCHER;
}

void container_release(struct container *c)
{
	container_rules_release(&c->rules);
	if (c->have_judge)
		judge_release(&c->judge);
	c->have_judge = false;
}
