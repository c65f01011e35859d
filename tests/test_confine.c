/* SPDX-License-Identifier: MIT */
/*
 * test_confine.c - the egress proxy process's walls
 * (runtime/proxy/confine.h), on the real kernel: a child confines itself
 * as vbox-proxy does, then tries what code that took over the proxy
 * would try, and what the proxy itself must still do.
 */
#include <vbox.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confine.h"
#include "tap.h"
#include "walls/landlock.h"

/* What the confined child saw: one errno (or 0) per attempt. */
struct seen {
	int confined;
	int write_file;
	int create_file;
	int exec;
	int ptrace_parent;
	int vm_read_parent;
	int signal_parent;
	int read_hosts;
	int tcp_connect;
	int dumpable;
	int nnp;
};

static int err_of(int rc)
{
	return rc < 0 ? errno : 0;
}

static void child(int out, const char *dir, pid_t parent, uint16_t port)
{
	struct seen s;
	struct sockaddr_in sin;
	struct iovec local, remote;
	char path[512], buf[16], *err = NULL;
	char *argv[] = { (char *)"/bin/true", NULL };
	int fd, rc;

	memset(&s, 0, sizeof(s));
	rc = proxy_confine(&err);
	s.confined = rc < 0 ? -1 : rc;
	snprintf(path, sizeof(path), "%s/existing", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	s.write_file = fd < 0 ? errno : 0;
	snprintf(path, sizeof(path), "%s/new", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	s.create_file = fd < 0 ? errno : 0;
	s.exec = err_of(execve("/bin/true", argv, NULL));
	s.ptrace_parent = err_of((int)ptrace(PTRACE_ATTACH, parent, NULL, NULL));
	local.iov_base = buf;
	local.iov_len = sizeof(buf);
	remote.iov_base = &s;
	remote.iov_len = sizeof(buf);
	s.vm_read_parent = err_of((int)process_vm_readv(parent, &local, 1,
							&remote, 1, 0));
	s.signal_parent = err_of(kill(parent, 0));
	fd = open("/etc/hosts", O_RDONLY | O_CLOEXEC);
	s.read_hosts = fd < 0 ? errno : 0;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s.tcp_connect = fd < 0 ? errno :
		err_of(connect(fd, (struct sockaddr *)&sin, sizeof(sin)));
	s.dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	s.nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	if (write(out, &s, sizeof(s)) != (ssize_t)sizeof(s))
		_exit(3);
	_exit(0);
}

/* The checks, as the calling user (@who, for the messages). */
static void run_checks(const char *who)
{
	char dir[] = "/tmp/vbox-confine-XXXXXX", path[512];
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	struct seen s;
	int p[2], lfd, status, abi;
	pid_t pid;

	if (!mkdtemp(dir))
		BUG("mkdtemp: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/existing", dir);
	if (close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) != 0)
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
	pid = fork();
	if (pid < 0)
		BUG("fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		child(p[1], dir, getppid(), ntohs(sin.sin_port));
	}
	close(p[1]);
	memset(&s, 0, sizeof(s));
	if (read(p[0], &s, sizeof(s)) != (ssize_t)sizeof(s))
		s.confined = -2;
	waitpid(pid, &status, 0);
	ok(s.confined >= 0, "%s: vbox-proxy's walls go up (landlock ABI %d)",
	   who, s.confined);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "the confined process ran to its end");
	is_int(s.exec, EPERM, "execve() is refused (EPERM)");
	is_int(s.ptrace_parent, EPERM, "ptrace() of another process of the "
	       "user is refused (EPERM)");
	is_int(s.vm_read_parent, EPERM, "process_vm_readv() is refused (EPERM)");
	is_int(s.dumpable, 0, "it is not dumpable");
	is_int(s.nnp, 1, "no_new_privs is set");
	if (abi > 0) {
		is_int(s.write_file, EACCES, "an existing file cannot be opened "
		       "for writing (landlock)");
		is_int(s.create_file, EACCES, "no file can be created (landlock)");
	} else {
		ok(1, "# SKIP this kernel has no Landlock");
		ok(1, "# SKIP this kernel has no Landlock");
	}
	if (abi >= 6)
		is_int(s.signal_parent, EPERM, "no signal to a process outside "
		       "it (landlock scope)");
	else
		ok(1, "# SKIP landlock ABI %d has no signal scope", abi);
	is_int(s.read_hosts, 0, "/etc/hosts can still be read (c-ares)");
	is_int(s.tcp_connect, 0, "a TCP connection can still be made");
	snprintf(path, sizeof(path), "%s/new", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/existing", dir);
	unlink(path);
	rmdir(dir);
	close(lfd);
	close(p[0]);
}

int main(void)
{
	struct { int n, failed; } sub;
	int p[2], status;
	pid_t pid;

	run_checks(geteuid() == 0 ? "root" : "this user");
	if (geteuid() != 0) {
		ok(1, "# SKIP not root: the run as uid 65534 needs root");
		return done_testing();
	}
	/* again as an ordinary user, whose own processes it could trace */
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
		run_checks("uid 65534");
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
