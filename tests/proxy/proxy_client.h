/* SPDX-License-Identifier: MIT */
/*
 * proxy_client.h - the client side of tests/proxy/test_proxy.c: a proxy host
 * process started from a rules file, plain blocking sockets, HTTP
 * CONNECT and SOCKS5 handshakes, a TLS ClientHello to peek at.
 */
#ifndef VBOX_PROXY_CLIENT_H
#define VBOX_PROXY_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Where pc_host_start() writes its rules, plans and logs (set by main). */
extern char pc_tmpdir[256];

/**
 * struct host - a running proxy
 * @pid: its process
 * @http, @socks: its ports on 127.0.0.1
 * @th, @ts: their tokens
 * @log: its decision log file
 * @rules: the rules file
 */
struct host {
	pid_t pid;
	uint16_t http, socks;
	char th[64], ts[64];
	char log[300];
	char rules[300];
};

/* pc_slurp - the whole file @path (caller frees), or NULL */
char *pc_slurp(const char *path);

/* pc_log_has - does @h's decision log hold @needle? */
bool pc_log_has(const struct host *h, const char *needle);

/*
 * pc_host_start - compile @rules and start this program as a proxy host
 * (--host), with short handshake limits when @short_limits and the
 * ambient proxy variables set to @env_proxy (which it must ignore).
 * 0 with *@h filled, or -1.
 */
int pc_host_start(struct host *h, const char *rules, bool short_limits,
		  const char *env_proxy);

/* pc_host_stop - SIGTERM the host; it must end cleanly (a test point) */
void pc_host_stop(struct host *h);

/* pc_count_fds - how many fds process @pid has open, or -1 */
int pc_count_fds(pid_t pid);

/* pc_tcp_to - a blocking TCP connection to @ip:@port, or -1 */
int pc_tcp_to(const char *ip, uint16_t port);

/* pc_tcp - pc_tcp_to() 127.0.0.1 */
int pc_tcp(uint16_t port);

/* pc_basic - BASE64("@user:@pass"), a Basic credential (caller frees) */
char *pc_basic(const char *user, const char *pass);

/* pc_status_of - the status code of the response head in @head, or -1 */
int pc_status_of(const char *head);

/*
 * pc_http_connect - CONNECT @target through @h with @token (NULL: none).
 * Returns the connected fd (200), or -status with the response in @head.
 */
int pc_http_connect(const struct host *h, const char *target,
		    const char *token, char *head, size_t hsize);

/* pc_read_n - read @n bytes (Content-Length) into a new buffer */
char *pc_read_n(int fd, size_t n);

/* pc_content_length - Content-Length of @head, or -1 */
long pc_content_length(const char *head);

/* pc_read_rest - everything until EOF (bounded), or NULL on a reset */
char *pc_read_rest(int fd, size_t *len);

/*
 * pc_socks_open - SOCKS5 handshake; the fd on success, else -1 with *@code
 * the server's answer (method 0xFF as 0x100+0xFF, auth failure 0x200+x,
 * reply code otherwise).
 */
int pc_socks_open(const struct host *h, const char *user,
		  const char *pass, const unsigned char *methods,
		  size_t nmethods, int cmd, int atyp, const void *addr,
		  size_t alen, uint16_t port, int *code);

/* pc_socks_name - pc_socks_open() CONNECT to @name:@port, with the token */
int pc_socks_name(const struct host *h, const char *name, uint16_t port,
		  int *code);

/* pc_hello - a ClientHello naming @sni (NULL: none), in @nrec records */
size_t pc_hello(unsigned char *out, const char *sni, int nrec);

/* pc_echoes - does the echo behind @fd echo @n bytes of @p? */
bool pc_echoes(int fd, const unsigned char *p, size_t n);

/* pc_closed - the proxy ended the connection (EOF or reset) */
bool pc_closed(int fd);

/* pc_pattern_ok - are the @n bytes at @p the pattern from offset @off? */
bool pc_pattern_ok(const char *p, size_t n, uint64_t off);

/* pc_big_read - read @total pattern bytes, slowly at times; byte-exact? */
bool pc_big_read(int fd, uint64_t total, bool slow);

#endif /* VBOX_PROXY_CLIENT_H */
