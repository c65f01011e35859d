/* SPDX-License-Identifier: MIT */
/*
 * probe.c - runs inside bubblewrap and reports what the kernel allowed.
 *
 *   probe OP PATH [OP PATH]...     one line per operation, in order:
 *                                  "OP PATH allow" or "OP PATH deny ERRNO"
 *   probe listen PORTFILE          (outside the sandbox) accept TCP
 *                                  connections on 127.0.0.1 for 60 s,
 *                                  writing the port to PORTFILE
 *
 * Operations, each the smallest system call that needs the permission:
 *   read PATH    open(O_RDONLY), then read one byte (a file) or one
 *                directory entry (a directory)
 *   write PATH   open(O_WRONLY | O_APPEND) of an existing file; nothing
 *                is written, so a successful probe changes nothing
 *   create PATH  open(O_WRONLY | O_CREAT | O_EXCL), undone by unlink
 *   mkdir PATH   mkdir, undone by rmdir
 *   rename PATH  rename to PATH.vbox-renamed in the same directory,
 *                undone by renaming back
 *   unlink PATH  unlink (not undone: the caller orders it last)
 *   chmod PATH   chmod to the mode it already has: the permission check
 *                of a metadata write (owner, read-only mount) and no
 *                change; a sandbox that forgot to remount a tmpfs
 *                read-only lets its owner chmod it and then write
 *   net HOST:PORT  connect to an IPv4 address
 *
 * An operation is "deny" exactly when it fails with one of the errors a
 * sandbox produces: EACCES (mode bits, a nodev mount, a 0111 directory),
 * EPERM, EROFS (read-only mount), EBUSY (a mount point cannot be moved or
 * removed), ENOENT (the path is hidden: the caller only probes paths that
 * exist on the host, or whose parent does), EEXIST (a placeholder
 * occupies a path the caller knows is absent on the host), and for
 * connections ECONNREFUSED and ENETUNREACH (an empty network namespace).
 * Any other error, or a failed undo, prints "OP PATH error ERRNO" so the
 * test fails instead of guessing.  The exit status is 0 unless the
 * arguments are malformed.
 */
#include <vbox.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
	int err;
	const char *name;
} errnames[] = {
	{ EACCES, "EACCES" }, { EPERM, "EPERM" }, { EROFS, "EROFS" },
	{ EBUSY, "EBUSY" }, { ENOENT, "ENOENT" }, { EEXIST, "EEXIST" },
	{ ECONNREFUSED, "ECONNREFUSED" }, { ENETUNREACH, "ENETUNREACH" },
	{ ENOTDIR, "ENOTDIR" }, { EISDIR, "EISDIR" }, { EXDEV, "EXDEV" },
	{ EINVAL, "EINVAL" }, { ENOTEMPTY, "ENOTEMPTY" }, { ELOOP, "ELOOP" },
	{ ENOSPC, "ENOSPC" }, { EIO, "EIO" }, { ENXIO, "ENXIO" },
};

static const char *errname(int err)
{
	static char buf[32];
	size_t i;

	for (i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (errnames[i].err == err)
			return errnames[i].name;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

static int is_deny_errno(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
	case EROFS:
	case EBUSY:
	case ENOENT:
	case EEXIST:
	case ECONNREFUSED:
	case ENETUNREACH:
		return 1;
	default:
		return 0;
	}
}

static void report(const char *op, const char *path, int err)
{
	if (!err)
		printf("%s %s allow\n", op, path);
	else if (is_deny_errno(err))
		printf("%s %s deny %s\n", op, path, errname(err));
	else
		printf("%s %s error %s\n", op, path, errname(err));
}

static void undo_failed(const char *op, const char *path, int err)
{
	printf("%s %s error undo-%s\n", op, path, errname(err));
}

static int do_read(const char *path)
{
	struct stat st;
	char c;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return errno;
	if (fstat(fd, &st) < 0) {
		err = errno;
	} else if (S_ISDIR(st.st_mode)) {
		DIR *d = fdopendir(fd);

		if (!d) {
			err = errno;
		} else {
			errno = 0;
			if (!readdir(d) && errno)
				err = errno;
			closedir(d);
			return err;
		}
	} else if (read(fd, &c, 1) < 0) {
		err = errno;
	}
	close(fd);
	return err;
}

static int do_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static void op_fs(const char *op, const char *path)
{
	char *renamed;
	int err = 0, fd;

	if (strcmp(op, "read") == 0) {
		err = do_read(path);
	} else if (strcmp(op, "write") == 0) {
		err = do_write(path);
	} else if (strcmp(op, "create") == 0) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			err = errno;
		} else {
			close(fd);
			if (unlink(path) < 0) {
				undo_failed(op, path, errno);
				return;
			}
		}
	} else if (strcmp(op, "mkdir") == 0) {
		if (mkdir(path, 0755) < 0) {
			err = errno;
		} else if (rmdir(path) < 0) {
			undo_failed(op, path, errno);
			return;
		}
	} else if (strcmp(op, "rename") == 0) {
		renamed = malloc(strlen(path) + sizeof(".vbox-renamed"));
		if (!renamed) {
			undo_failed(op, path, ENOMEM);
			return;
		}
		strcpy(renamed, path);
		strcat(renamed, ".vbox-renamed");
		if (rename(path, renamed) < 0) {
			err = errno;
		} else if (rename(renamed, path) < 0) {
			free(renamed);
			undo_failed(op, path, errno);
			return;
		}
		free(renamed);
	} else if (strcmp(op, "unlink") == 0) {
		if (unlink(path) < 0)
			err = errno;
	} else if (strcmp(op, "chmod") == 0) {
		struct stat st;

		if (lstat(path, &st) < 0 || chmod(path, st.st_mode & 07777) < 0)
			err = errno;
	}
	report(op, path, err);
}

static void op_net(const char *target)
{
	struct sockaddr_in sa;
	const char *colon = strrchr(target, ':');
	char host[64];
	int fd, err = 0;
	size_t hl;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	hl = colon ? (size_t)(colon - target) : 0;
	if (!colon || hl >= sizeof(host)) {
		report("net", target, EINVAL);
		return;
	}
	memcpy(host, target, hl);
	host[hl] = '\0';
	sa.sin_port = htons((unsigned short)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		report("net", target, EINVAL);
		return;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		report("net", target, errno);
		return;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		err = errno;
	close(fd);
	report("net", target, err);
}

/* Outside the sandbox: a loopback listener for the "net" probes. */
static int listen_mode(const char *portfile)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	FILE *f;
	int fd, c;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 16) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		perror("probe: listen");
		return 1;
	}
	f = fopen(portfile, "w");
	if (!f || fprintf(f, "%u\n", ntohs(sa.sin_port)) < 0 || fclose(f)) {
		perror("probe: port file");
		return 1;
	}
	/* Bounded: a forgotten listener ends by itself. */
	alarm(60);
	for (;;) {
		c = accept(fd, NULL, NULL);
		if (c >= 0)
			close(c);
	}
}

int main(int argc, char **argv)
{
	int i;

	if (argc == 3 && strcmp(argv[1], "listen") == 0)
		return listen_mode(argv[2]);
	if (argc < 3 || (argc - 1) % 2) {
		fprintf(stderr, "usage: probe OP PATH [OP PATH]...\n"
				"       probe listen PORTFILE\n");
		return 2;
	}
	for (i = 1; i < argc; i += 2) {
		if (strcmp(argv[i], "net") == 0) {
			op_net(argv[i + 1]);
		} else if (strcmp(argv[i], "read") == 0 ||
			   strcmp(argv[i], "write") == 0 ||
			   strcmp(argv[i], "create") == 0 ||
			   strcmp(argv[i], "mkdir") == 0 ||
			   strcmp(argv[i], "rename") == 0 ||
			   strcmp(argv[i], "chmod") == 0 ||
			   strcmp(argv[i], "unlink") == 0) {
			op_fs(argv[i], argv[i + 1]);
		} else {
			fprintf(stderr, "probe: unknown operation '%s'\n",
				argv[i]);
			return 2;
		}
		fflush(stdout);
	}
	return 0;
}
