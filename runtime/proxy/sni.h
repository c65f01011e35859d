/* SPDX-License-Identifier: MIT */
/*
 * sni.h - find the server name in a TLS ClientHello, defensively: the
 * hello may come in several records and several segments; every length
 * is checked against its container; the whole is bounded.
 */
#ifndef VBOX_SNI_H
#define VBOX_SNI_H

#include <stddef.h>

/* Largest ClientHello accepted, records included. */
#define SNI_MAX_HELLO 32768

/**
 * enum sni_result - what the first client bytes are
 * @SNI_NEED_MORE: nothing yet, or a ClientHello has started; more bytes
 *                 are needed
 * @SNI_NOT_TLS: the first byte is not a TLS record type: nothing to check
 * @SNI_NONE: a complete ClientHello without a server name
 * @SNI_FOUND: a complete ClientHello naming a server (see @name)
 * @SNI_BAD: it starts like TLS but is malformed or too large
 * @SNI_NOT_FIRST: a TLS record that is not a handshake comes first (an
 *                 alert, say): what follows would go unchecked
 */
enum sni_result {
	SNI_NEED_MORE,
	SNI_NOT_TLS,
	SNI_NONE,
	SNI_FOUND,
	SNI_BAD,
	SNI_NOT_FIRST,
};

/*
 * sni_parse - look at the first @len client bytes.  Any first byte that
 * is a TLS record type (20 to 24) makes them TLS, which must begin with
 * handshake records carrying a ClientHello; other bytes are not TLS.
 * On SNI_FOUND, @name (of @size bytes) holds the host name, lower-cased,
 * without a trailing dot; a longer name than @size - 1 bytes is SNI_BAD.
 */
enum sni_result sni_parse(const unsigned char *buf, size_t len, char *name,
			  size_t size);

#endif /* VBOX_SNI_H */
