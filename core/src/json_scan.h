/* SPDX-License-Identifier: MIT */
/* A validating, zero-copy JSON scanner for the hot path of trace loading.
 *
 * It never builds a tree: callers walk objects key by key, take the few
 * values they need and skip the rest, keeping raw slices of what they skip
 * (the "args" of each event) for cJSON to parse later, on demand.
 * It accepts the RFC 8259 grammar (literals, numbers, strings with valid
 * escapes, nesting up to JS_MAX_DEPTH) with one leniency shared with cJSON:
 * raw control characters inside strings are let through. */
#ifndef TL_JSON_SCAN_H
#define TL_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define JS_MAX_DEPTH 512

/* Where and why scanning failed. */
struct js_err {
	const char *at;		/* position of the problem */
	const char *what;	/* static description */
};

static inline const char *js_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

/* @p points just after an opening quote. Returns the position after the
 * closing quote, or NULL (e->at/what set) for an unterminated string or a
 * bad escape. *has_esc is set if the string contains backslashes. */
static inline const char *js_string_end(const char *p, const char *end, bool *has_esc,
					struct js_err *e)
{
	const char *start = p;

	for (;;) {
#if defined(__SSE2__)
		const __m128i q = _mm_set1_epi8('"');
		const __m128i bs = _mm_set1_epi8('\\');

		while (end - p >= 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
			int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q),
							       _mm_cmpeq_epi8(v, bs)));
			if (m) {
				p += __builtin_ctz((unsigned)m);
				goto found;
			}
			p += 16;
		}
#endif
		while (p < end && *p != '"' && *p != '\\')
			p++;
		if (p >= end) {
			e->at = start - 1;
			e->what = "truncated JSON (the file ends inside a string)";
			return NULL;
		}
#if defined(__SSE2__)
found:
#endif
		if (*p == '"')
			return p + 1;
		*has_esc = true;
		if (end - p < 2)
			goto bad_end;
		switch (p[1]) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
			p += 2;
			break;
		case 'u': {
			int i;

			if (end - p < 6)
				goto bad_end;
			for (i = 2; i < 6; i++) {
				char c = p[i];

				if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
				      (c >= 'A' && c <= 'F'))) {
					e->at = p;
					e->what = "invalid \\u escape in string";
					return NULL;
				}
			}
			p += 6;
			break;
		}
		default:
			e->at = p;
			e->what = "invalid escape in string";
			return NULL;
		}
	}
bad_end:
	e->at = start - 1;
	e->what = "truncated JSON (the file ends inside a string)";
	return NULL;
}

/* Skip any JSON value starting at @p (leading whitespace allowed).
 * Returns the position after it, or NULL with @e filled. */
const char *js_skip_value(const char *p, const char *end, struct js_err *e);

/* Parse a number. Returns the end of it or NULL. *d gets the correctly
 * rounded double; if the literal is an integer that fits, *is_int is set and
 * *iv holds it. */
const char *js_number(const char *p, const char *end, double *d, int64_t *iv, bool *is_int,
		      struct js_err *e);

/* Decode the body of a JSON string (without quotes) into @dst, which must
 * have room for @len bytes. Returns the decoded length, or -1 if invalid. */
long js_unescape(const char *src, size_t len, char *dst);

#endif
