/* SPDX-License-Identifier: MIT */
/*
 * httpmsg.h - strict HTTP/1.x message framing for the proxy: a head
 * parser and a body delimiter (RFC 9112).  Anything ambiguous, the
 * material of request smuggling, is refused rather than guessed.
 */
#ifndef VBOX_HTTPMSG_H
#define VBOX_HTTPMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Most header lines in one head. */
#define HTTP_MAX_HEADERS 100

/**
 * struct http_field - one header line, pointing into the parsed buffer
 * @name, @nlen: the field name
 * @val, @vlen: the value without surrounding white space
 */
struct http_field {
	const char *name;
	size_t nlen;
	const char *val;
	size_t vlen;
};

/**
 * struct http_head - a parsed request or status line and its fields
 * @len: bytes of the head, final empty line included
 * @method, @mlen: request method
 * @target, @tlen: request target
 * @minor: HTTP/1.@minor
 * @status: response status code
 * @fields: header fields
 * @nfields: number of @fields
 */
struct http_head {
	size_t len;
	const char *method;
	size_t mlen;
	const char *target;
	size_t tlen;
	int minor;
	int status;
	struct http_field fields[HTTP_MAX_HEADERS];
	size_t nfields;
};

/*
 * http_head_parse - parse the head at the start of @buf.  Returns 1 when
 * complete, 0 when more bytes are needed, -1 when malformed (*@why set).
 */
int http_head_parse(const char *buf, size_t len, bool response,
		    struct http_head *h, const char **why);

/* http_field_is - does field @f have name @name (case-insensitive)? */
bool http_field_is(const struct http_field *f, const char *name);

/* http_token_in - does the comma list @v contain token @tok? */
bool http_token_in(const char *v, size_t vlen, const char *tok);

/**
 * enum body_kind - how a body ends
 * @BODY_NONE: no body
 * @BODY_LENGTH: after a Content-Length
 * @BODY_CHUNKED: chunked transfer coding
 * @BODY_CLOSE: when the sender closes (responses only)
 */
enum body_kind {
	BODY_NONE,
	BODY_LENGTH,
	BODY_CHUNKED,
	BODY_CLOSE,
};

/**
 * struct body - a body being delimited
 * @kind: see enum body_kind
 * @left: bytes left (BODY_LENGTH, chunk data)
 * @state: chunked decoder state
 * @count: bytes in the current size/extension/trailer line
 * @trailer: trailer bytes so far
 * @done: the body has ended
 */
struct body {
	enum body_kind kind;
	uint64_t left;
	int state;
	unsigned count;
	unsigned trailer;
	bool done;
};

/*
 * http_request_body - how the body of request @h ends.  Returns 0, or -1
 * with *@why when framing is ambiguous (Content-Length with
 * Transfer-Encoding, several lengths, a coding other than chunked).
 */
int http_request_body(const struct http_head *h, struct body *b,
		      const char **why);

/*
 * http_response_body - the same for response @h to a request whose
 * method was HEAD when @head_request.
 */
int http_response_body(const struct http_head *h, bool head_request,
		       struct body *b, const char **why);

/*
 * body_feed - how many of @n bytes at @p belong to the body (the body
 * ends inside when b->done), or -1 for a framing error.
 */
ssize_t body_feed(struct body *b, const char *p, size_t n);

/* The most bytes a rewritten head may have (a bigger one is refused). */
#define HTTP_REWRITE_MAX 65536

/*
 * http_rewrite_response - the head @h (parsed from @raw) as it goes to
 * the client: the status line as it came, each field "name: value"
 * except the hop-by-hop ones, "Connection: close" when @close.  A new
 * string of *@len bytes, or NULL when it would pass HTTP_REWRITE_MAX.
 */
char *http_rewrite_response(const struct http_head *h, const char *raw,
			    bool close, size_t *len);

/*
 * http_rewrite_request - the request head @h as it goes to the origin
 * (origin-form PATH), or to an HTTP upstream proxy when @absolute
 * ("http://AUTH" PATH, with "Proxy-Authorization: @basic" when @basic):
 * the hop-by-hop fields and the client's Host and credentials dropped,
 * "Host: AUTH" and "Connection: close" added.  A new string of *@len
 * bytes, or NULL when it would pass HTTP_REWRITE_MAX.
 */
char *http_rewrite_request(const struct http_head *h, const char *auth,
			   size_t alen, const char *path, size_t plen,
			   bool absolute, const char *basic, size_t *len);

/*
 * http_absolute_target - split an absolute-form target "http://AUTH/PATH"
 * (@t, @n bytes) into its authority and its path (with the query).
 * Returns 0, or -1 with *@why.
 */
int http_absolute_target(const char *t, size_t n, const char **auth,
			 size_t *alen, const char **path, size_t *plen,
			 const char **why);

/*
 * http_hostport - "host:port" to judge for a CONNECT target or an
 * authority (@a, @n bytes), port @defport when the authority has none.
 * A new string, or NULL (with *@why) when @n passes HTTP_TARGET_MAX.
 */
#define HTTP_TARGET_MAX 300
char *http_hostport(const char *a, size_t n, unsigned defport,
		    const char **why);

#endif /* VBOX_HTTPMSG_H */
