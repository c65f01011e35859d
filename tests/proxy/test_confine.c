/* SPDX-License-Identifier: MIT */
/*
 * test_confine.c - the egress proxy process's walls
 * (runtime/proxy/confine.h), on the real kernel: a child gives up its
 * privileges and confines itself as vbox-proxy does, then tries what
 * code that took over the proxy would try, and what the proxy itself
 * must still do.  As root, both ways of choosing its uid are taken (the
 * system user vbox-proxy and the fallback when /etc/passwd has
 * no such user): the one this machine takes with PROXY_USER, the other
 * with a user named by the test.  Then all again as uid 65534, which
 * keeps its uid.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confine.h"
#include "tap.h"
#include "walls/landlock.h"

#ifndef AF_PACKET
#define AF_PACKET 17
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_IS_SET 1
#endif

/* A name no /etc/passwd has: the fallback path. */
#define NO_SUCH_USER "vbox-proxy-test-no-such-user"

/* What the confined child saw: one errno (or 0, or a value) per item. */
struct seen {
	int dropped;
	int confined;
	int who;
	int bounding_cleared;
	uid_t uid[3];
	gid_t gid[3];
	int ngroups;
	uint32_t cap_eff[2], cap_prm[2], cap_inh[2];
	int ambient;
	int bounding;
	int securebits;
	int pdeathsig;
	int setuid_root;
	int setgid_root;
	int write_file;
	int create_file;
	int read_file;
	int list_dir;
	int read_passwd;
	int exec;
	int ptrace_parent;
	int vm_read_parent;
	int signal_parent;
	int read_hosts;
	int read_resolv;
	int tcp_connect;
	int tcp_bind;
	int udp_socket;
	int inet6_socket;
	int netlink_socket;
	int raw_socket;
	int packet_socket;
	int unix_socket;
	int unix_pair;
	int seqpacket_socket;
	int dumpable;
	int nnp;
};

static int err_of(int rc)
{
	return rc < 0 ? errno : 0;
}

/* socket() and close: 0, or its errno. */
static int try_socket(int family, int type, int proto)
{
	int fd = socket(family, type | SOCK_CLOEXEC, proto);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* open() for reading and close: 0, or its errno. */
static int try_open(const char *path, int flags)
{
	int fd = open(path, flags | O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* Whether some capability is in the ambient (or else the bounding) set. */
static int any_cap(bool ambient)
{
	unsigned long cap;
	int rc;

	for (cap = 0; cap < 1024; cap++) {
		rc = ambient ?
			prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) :
			prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		if (rc < 0)
			return 0;
		if (rc > 0)
			return 1;
	}
	return 1;
}

static void child(int out, const char *dir, const char *user, pid_t parent,
		  uint16_t port)
{
	struct __user_cap_header_struct ch = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct cd[2];
	struct proxy_creds pc;
	struct seen s;
	struct sockaddr_in sin;
	struct iovec local, remote;
	char path[512], buf[16], *err = NULL;
	char *argv[] = { (char *)"/bin/true", NULL };
	int fd, rc, pair[2], sig = 0;

	memset(&s, 0, sizeof(s));
	rc = proxy_drop_privileges(user, &pc, &err);
	s.dropped = rc;
	if (rc < 0) {
		printf("# proxy_drop_privileges: %s\n", err);
		fflush(stdout);
	}
	s.who = (int)pc.who;
	s.bounding_cleared = pc.bounding_cleared;
	rc = proxy_confine(&err);
	s.confined = rc < 0 ? -1 : rc;
	if (rc < 0) {
		printf("# proxy_confine: %s\n", err);
		fflush(stdout);
	}
	getresuid(&s.uid[0], &s.uid[1], &s.uid[2]);
	getresgid(&s.gid[0], &s.gid[1], &s.gid[2]);
	s.ngroups = getgroups(0, NULL);
	memset(cd, 0xff, sizeof(cd));
	if (syscall(SYS_capget, &ch, cd) == 0) {
		s.cap_eff[0] = cd[0].effective;
		s.cap_eff[1] = cd[1].effective;
		s.cap_prm[0] = cd[0].permitted;
		s.cap_prm[1] = cd[1].permitted;
		s.cap_inh[0] = cd[0].inheritable;
		s.cap_inh[1] = cd[1].inheritable;
	}
	s.ambient = any_cap(true);
	s.bounding = any_cap(false);
	s.securebits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
	if (prctl(PR_GET_PDEATHSIG, &sig, 0, 0, 0) == 0)
		s.pdeathsig = sig;
	s.setuid_root = err_of(setresuid(0, 0, 0));
	s.setgid_root = err_of(setresgid(0, 0, 0));
	snprintf(path, sizeof(path), "%s/existing", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	s.write_file = fd < 0 ? errno : 0;
	s.read_file = try_open(path, 0);
	s.list_dir = try_open(dir, O_DIRECTORY);
	snprintf(path, sizeof(path), "%s/new", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	s.create_file = fd < 0 ? errno : 0;
	s.read_passwd = try_open("/etc/passwd", 0);
	s.read_hosts = try_open("/etc/hosts", 0);
	s.read_resolv = access("/etc/resolv.conf", F_OK) == 0 ?
			try_open("/etc/resolv.conf", 0) : 0;
	s.exec = err_of(execve("/bin/true", argv, NULL));
	s.ptrace_parent = err_of((int)ptrace(PTRACE_ATTACH, parent, NULL, NULL));
	local.iov_base = buf;
	local.iov_len = sizeof(buf);
	remote.iov_base = &s;
	remote.iov_len = sizeof(buf);
	s.vm_read_parent = err_of((int)process_vm_readv(parent, &local, 1,
							&remote, 1, 0));
	s.signal_parent = err_of(kill(parent, 0));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	s.tcp_connect = fd < 0 ? errno :
		err_of(connect(fd, (struct sockaddr *)&sin, sizeof(sin)));
	if (s.tcp_connect == EINPROGRESS)
		s.tcp_connect = 0;
	if (fd >= 0)
		close(fd);
	sin.sin_port = 0;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	s.tcp_bind = fd < 0 ? errno :
		err_of(bind(fd, (struct sockaddr *)&sin, sizeof(sin)));
	if (fd >= 0)
		close(fd);
	s.udp_socket = try_socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	s.inet6_socket = try_socket(AF_INET6, SOCK_STREAM, 0);
	s.netlink_socket = try_socket(AF_NETLINK, SOCK_RAW, 0);
	s.raw_socket = try_socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	s.packet_socket = try_socket(AF_PACKET, SOCK_RAW, 0);
	s.unix_socket = try_socket(AF_UNIX, SOCK_STREAM, 0);
	s.unix_pair = err_of(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					0, pair));
	s.seqpacket_socket = try_socket(AF_INET, SOCK_SEQPACKET, 0);
	s.dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	s.nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	if (write(out, &s, sizeof(s)) != (ssize_t)sizeof(s))
		_exit(3);
	_exit(0);
}

/* How a run expects the child's ids to come out. */
struct want {
	const char *who;	/* for the messages */
	const char *user;	/* what proxy_drop_privileges() is given */
	enum proxy_who path;
	uid_t uid;
	gid_t gid;
};

static void check_ids(const struct want *w, const struct seen *s)
{
	int locked = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
		     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
		     SECBIT_NO_CAP_AMBIENT_RAISE |
		     SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;

	is_int(s->dropped, 0, "%s: it gives up its privileges", w->who);
	is_int(s->who, (int)w->path, "%s: the uid is taken from where it "
	       "should be", w->who);
	ok(s->uid[0] == w->uid && s->uid[1] == w->uid && s->uid[2] == w->uid,
	   "%s: real, effective and saved uid are %lu", w->who,
	   (unsigned long)w->uid);
	ok(s->gid[0] == w->gid && s->gid[1] == w->gid && s->gid[2] == w->gid,
	   "%s: real, effective and saved gid are %lu", w->who,
	   (unsigned long)w->gid);
	ok(!s->cap_eff[0] && !s->cap_eff[1] && !s->cap_prm[0] &&
	   !s->cap_prm[1] && !s->cap_inh[0] && !s->cap_inh[1],
	   "%s: no effective, permitted or inheritable capability", w->who);
	is_int(s->ambient, 0, "%s: no ambient capability", w->who);
	is_int(s->pdeathsig, SIGKILL, "%s: the parent-death SIGKILL is set "
	       "again", w->who);
	if (w->path == PROXY_WHO_CALLER) {
		is_int(s->setuid_root, EPERM, "%s: setresuid(0) is refused",
		       w->who);
		diag("bounding set %s (an unprivileged process cannot empty "
		     "it)", s->bounding ? "kept" : "empty");
		return;
	}
	is_int(s->bounding, 0, "%s: the bounding set is empty", w->who);
	is_int(s->bounding_cleared, 1, "%s: and it says so", w->who);
	is_int(s->ngroups, 0, "%s: no supplementary group", w->who);
	is_int(s->setuid_root, EPERM, "%s: it cannot be uid 0 again", w->who);
	is_int(s->setgid_root, EPERM, "%s: nor gid 0", w->who);
	ok(s->securebits >= 0 && (s->securebits & locked) == locked &&
	   !(s->securebits & (SECBIT_KEEP_CAPS | SECBIT_NO_SETUID_FIXUP)),
	   "%s: root's securebits are locked (0x%x)", w->who, s->securebits);
}

static void check_walls(const struct want *w, const struct seen *s, int abi)
{
	const char *who = w->who;

	ok(s->confined >= 0, "%s: vbox-proxy's walls go up (landlock ABI %d)",
	   who, s->confined);
	is_int(s->exec, EPERM, "%s: execve() is refused (EPERM)", who);
	is_int(s->ptrace_parent, EPERM, "%s: ptrace() of another process is "
	       "refused (EPERM)", who);
	is_int(s->vm_read_parent, EPERM, "%s: process_vm_readv() is refused "
	       "(EPERM)", who);
	is_int(s->dumpable, 0, "%s: it is not dumpable", who);
	is_int(s->nnp, 1, "%s: no_new_privs is set", who);
	is_int(s->netlink_socket, EPERM, "%s: no netlink socket", who);
	is_int(s->raw_socket, EPERM, "%s: no raw IPv4 socket", who);
	is_int(s->packet_socket, EPERM, "%s: no packet socket", who);
	is_int(s->unix_socket, EPERM, "%s: no unix socket", who);
	is_int(s->unix_pair, EPERM, "%s: no unix socket pair", who);
	is_int(s->seqpacket_socket, EPERM, "%s: no IPv4 socket but stream "
	       "and datagram", who);
	is_int(s->tcp_connect, 0, "%s: a TCP connection can still be made",
	       who);
	is_int(s->udp_socket, 0, "%s: a UDP socket can still be made (DNS)",
	       who);
	ok(s->inet6_socket == 0 || s->inet6_socket == EAFNOSUPPORT,
	   "%s: an IPv6 socket can still be made (or IPv6 is off: %d)", who,
	   s->inet6_socket);
	is_int(s->read_hosts, 0, "%s: /etc/hosts can still be read (c-ares)",
	       who);
	is_int(s->read_resolv, 0, "%s: /etc/resolv.conf can still be read",
	       who);
	if (abi > 0) {
		is_int(s->read_passwd, EACCES, "%s: /etc/passwd cannot be read "
		       "(landlock)", who);
		is_int(s->read_file, EACCES, "%s: a file any user may read "
		       "cannot be (landlock)", who);
		is_int(s->list_dir, EACCES, "%s: a directory any user may list "
		       "cannot be (landlock)", who);
		is_int(s->write_file, EACCES, "%s: an existing file cannot be "
		       "opened for writing (landlock)", who);
		is_int(s->create_file, EACCES, "%s: no file can be created "
		       "(landlock)", who);
	} else {
		ok(1, "# SKIP this kernel has no Landlock");
		ok(1, "# SKIP this kernel has no Landlock");
		ok(1, "# SKIP this kernel has no Landlock");
		ok(1, "# SKIP this kernel has no Landlock");
		ok(1, "# SKIP this kernel has no Landlock");
	}
	if (abi >= 4)
		is_int(s->tcp_bind, EACCES, "%s: no TCP port can be bound "
		       "(landlock)", who);
	else
		ok(1, "# SKIP landlock ABI %d has no network rules", abi);
	if (abi >= 6)
		is_int(s->signal_parent, EPERM, "%s: no signal to a process "
		       "outside it (landlock scope)", who);
	else
		ok(1, "# SKIP landlock ABI %d has no signal scope", abi);
}

/* One run: a confined child as the calling user, judged by @w. */
static void run_checks(const struct want *w)
{
	char dir[] = "/tmp/vbox-confine-XXXXXX", path[512];
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	struct seen s;
	int p[2], lfd, fd, status, abi;
	pid_t pid;

	if (!mkdtemp(dir) || chmod(dir, 0755) != 0)
		BUG("mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/existing", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || fchmod(fd, 0644) != 0 || close(fd) != 0)
		BUG("cannot make %s", path);
	/* a loopback listener: the proxy's own job must still work */
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    listen(lfd, 4) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&sin, &len) != 0 ||
	    pipe(p) != 0)
		BUG("cannot set up: %s", strerror(errno));
	abi = landlock_abi();
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		BUG("fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		child(p[1], dir, w->user, getppid(), ntohs(sin.sin_port));
	}
	close(p[1]);
	memset(&s, 0, sizeof(s));
	if (read(p[0], &s, sizeof(s)) != (ssize_t)sizeof(s))
		s.confined = s.dropped = -2;
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "%s: the confined process ran to its end", w->who);
	check_ids(w, &s);
	check_walls(w, &s, abi);
	snprintf(path, sizeof(path), "%s/new", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/existing", dir);
	unlink(path);
	rmdir(dir);
	close(lfd);
	close(p[0]);
}

/* @name's ids in /etc/passwd, where vbox-proxy looks; false: none. */
static bool user_ids(const char *name, uid_t *uid, gid_t *gid)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw;
	bool found = false;

	if (!f)
		return false;
	while (!found && (pw = fgetpwent(f)) != NULL) {
		if (strcmp(pw->pw_name, name) == 0) {
			*uid = pw->pw_uid;
			*gid = pw->pw_gid;
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* The runs as root: the path this machine takes, then the other one. */
static void root_runs(void)
{
	static const char *const others[] = {
		"daemon", "bin", "sys", "games", "man", "lp", "mail",
	};
	struct want w = { .user = PROXY_USER };
	size_t i;

	if (user_ids(PROXY_USER, &w.uid, &w.gid)) {
		diag("this machine has the user %s (uid %lu): the dedicated "
		     "user's path", PROXY_USER, (unsigned long)w.uid);
		w.who = "root, user " PROXY_USER;
		w.path = PROXY_WHO_USER;
		run_checks(&w);
		w.who = "root, no such user (the fallback)";
		w.user = NO_SUCH_USER;
		w.path = PROXY_WHO_FALLBACK;
		w.uid = w.gid = PROXY_FALLBACK_ID;
		run_checks(&w);
		return;
	}
	diag("this machine has no user %s: the fallback's path, uid and "
	     "gid %d", PROXY_USER, PROXY_FALLBACK_ID);
	w.who = "root, no user " PROXY_USER " (the fallback)";
	w.path = PROXY_WHO_FALLBACK;
	w.uid = w.gid = PROXY_FALLBACK_ID;
	run_checks(&w);
	/* the dedicated user's path, with a system user that exists */
	for (i = 0; i < array_size(others); i++) {
		if (!user_ids(others[i], &w.uid, &w.gid) || !w.uid || !w.gid ||
		    w.uid == PROXY_FALLBACK_ID)
			continue;
		diag("the dedicated user's path with the user %s (uid %lu)",
		     others[i], (unsigned long)w.uid);
		w.who = "root, a system user of its own";
		w.user = others[i];
		w.path = PROXY_WHO_USER;
		run_checks(&w);
		return;
	}
	ok(1, "# SKIP no system user to take the dedicated user's path with");
}

int main(void)
{
	struct { int n, failed; } sub;
	struct want w = { .user = PROXY_USER, .path = PROXY_WHO_CALLER };
	int p[2], status;
	pid_t pid;

	if (geteuid() != 0) {
		w.who = "this user";
		w.uid = getuid();
		w.gid = getgid();
		run_checks(&w);
		ok(1, "# SKIP not root: the runs as root and as uid 65534 "
		   "need root");
		return done_testing();
	}
	root_runs();
	/* again as an ordinary user, who keeps its uid */
	if (pipe(p) != 0)
		BUG("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		BUG("fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		if (setgroups(0, NULL) != 0 || setgid(65534) != 0 ||
		    setuid(65534) != 0)
			_exit(2);
		w.who = "uid 65534";
		w.uid = 65534;
		w.gid = 65534;
		run_checks(&w);
		sub.n = tap_n;
		sub.failed = tap_failed;
		fflush(stdout);
		_exit(write(p[1], &sub, sizeof(sub)) == (ssize_t)sizeof(sub) ?
		      0 : 3);
	}
	close(p[1]);
	memset(&sub, 0, sizeof(sub));
	if (read(p[0], &sub, sizeof(sub)) != (ssize_t)sizeof(sub) ||
	    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		ok(0, "the run as uid 65534 reported its results");
	} else {
		/* its points were printed by it, numbered on from ours */
		tap_n = sub.n;
		tap_failed = sub.failed;
	}
	close(p[0]);
	return done_testing();
}
