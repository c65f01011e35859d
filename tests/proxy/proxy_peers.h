/* SPDX-License-Identifier: MIT */
/*
 * proxy_peers.h - servers and helpers for the proxy tests.
 */
#ifndef VBOX_PROXY_PEERS_H
#define VBOX_PROXY_PEERS_H

#include <stdint.h>
#include <sys/types.h>

/**
 * enum peer_kind - what a test server does
 * @PEER_HTTP: HTTP/1.1 origin: /size/N, /echo, /chunked, /close, /smuggle
 * @PEER_ECHO: echoes until EOF, then half-closes
 * @PEER_BANNER: speaks first ("220 banner"), then echoes
 */
enum peer_kind {
	PEER_HTTP,
	PEER_ECHO,
	PEER_BANNER,
};

/**
 * struct dns_fixed - one fixed answer (A or AAAA by the address's form)
 * @name: the name asked
 * @addr: the address text
 */
struct dns_fixed {
	const char *name;
	const char *addr;
};

/* The test pattern's period (bytes). */
#define PATTERN_PERIOD 65521
/* pattern_at - PATTERN_PERIOD bytes of the pattern from offset @off */
const uint8_t *pattern_at(uint64_t off);
uint8_t pattern_byte(uint64_t i);
int write_all(int fd, const void *p, size_t n);
ssize_t read_head(int fd, char *buf, size_t cap);
int listen_on(const char *ip, uint16_t port, int type);
uint16_t local_port(int fd);
/* peer_start - serve @kind on @ip:@port (0: any) in threads; the port */
uint16_t peer_start(const char *ip, uint16_t port, enum peer_kind kind);
/* origin_log_take - what the HTTP origins saw ("REQ M PATH host=H\n") */
char *origin_log_take(void);
/* dns_start - answer from @table (NULL-terminated) on @ip:53/udp */
int dns_start(const char *ip, const struct dns_fixed *table);

#endif /* VBOX_PROXY_PEERS_H */
