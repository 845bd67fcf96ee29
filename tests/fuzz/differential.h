/* SPDX-License-Identifier: MIT */
/* Differential check of the trace loader, shared by the fuzz target
 * (tests/fuzz/fuzz_load.c) and the unit test over real traces
 * (tests/unit/test_differential.c).
 *
 * Three independent readings of the same JSON text are compared:
 *
 *  1. the library (tl_trace_open*), whose verdict and events are given;
 *  2. a strict grammar check written here (diff_validate), which accepts what
 *     the loader documents it accepts: RFC 8259 JSON, except that raw control
 *     characters and any byte >= 0x80 are let through inside strings, as the
 *     loader (and cJSON) let them through;
 *  3. cJSON, as the reference for values. It reads the text one traceEvents
 *     element (or one top-level value) at a time, this file walking only the
 *     punctuation between them, so that a 60 MB trace never costs more than
 *     one event's tree: the comparison stays linear and small.
 *
 * What must hold:
 *  - the library accepts the text  =>  the grammar check accepts it, and if
 *    cJSON reads it too, every element matches the event with the same UID
 *    (name, cat, ph, ts, dur, pid, tid, args, the linking ids, the kind), the
 *    counts match and the metadata matches the other top-level keys;
 *  - the grammar check and cJSON accept a non-empty trace that nests less
 *    than 500 deep  =>  the library accepts it, unless a ts or dur is
 *    infinite or beyond +-2^63 ns (TL_TIME_MAX_US), which it must refuse.
 *
 * Known, intended differences that are tolerated:
 *  - duplicate keys in an event: the loader keeps the last value, as Python
 *    does, cJSON's lookup returns the first: such events are not compared
 *    (a repeated top-level traceEvents is followed: the last one counts);
 *  - pid/tid (and name/cat when they are not strings) are reported as
 *    printable text: the token as written, or the unquoted string;
 *  - a NUL in a string or key (raw or \u0000) cannot be seen whole through
 *    cJSON's C strings: such events are not compared (such top-level keys
 *    leave the document without a reference);
 *  - "ts"/"dur"/"id" given as strings holding numbers are read by the loader
 *    from their raw text, so one written with escapes may be ignored by it.
 *
 * Not tolerated, on purpose: keys written with escapes ("n\u0061me") must
 * mean what they decode to, and "ph" is the first character of its decoded
 * value, as for Python's json module.
 *
 * All functions are static inline: each includer uses a different subset. */
#ifndef TL_TESTS_DIFFERENTIAL_H
#define TL_TESTS_DIFFERENTIAL_H

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <zlib.h>

#include <tlreplay/tlreplay.h>

#include "trace/trace_internal.h"	/* tl_kind_from_cat(), from core/src/trace */

#if defined(__GNUC__)
#define DIFF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define DIFF_PRINTF(a, b)
#endif

/* The library rejecting a valid trace is only reported below this depth:
 * the loader caps nesting at 512 levels below the event (JS_MAX_DEPTH). */
#define DIFF_MAX_CHECKED_DEPTH 500

enum diff_verdict {
	DIFF_SAME,	/* both read the text and agree (or both reject it) */
	DIFF_NO_REF,	/* cJSON cannot serve as a reference for this text */
	DIFF_MISMATCH,
};

struct diff_result {
	enum diff_verdict verdict;
	uint64_t compared;	/* events compared field by field */
	uint64_t skipped;	/* events left out (duplicate keys, \u0000) */
	char why[768];		/* the first mismatch, or why there is no reference */
};

/* Record the first message only: later ones are usually consequences. */
static inline void diff_say(char *buf, size_t n, const char *fmt, ...) DIFF_PRINTF(3, 4);
static inline void diff_say(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (buf[0])
		return;
	va_start(ap, fmt);
	vsnprintf(buf, n, fmt, ap);
	va_end(ap);
}

static inline bool diff_same_double(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a));
}

static inline bool diff_is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static inline const char *diff_ws(const char *p, const char *end)
{
	while (p < end && diff_is_ws(*p))
		p++;
	return p;
}

static inline bool diff_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool diff_is_hex(char c)
{
	return diff_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* ------------------------------------------------------------ the grammar */

/* A JSON number at @p: returns its end, or NULL. */
static inline const char *diff_number_end(const char *p, const char *end)
{
	if (p < end && *p == '-')
		p++;
	if (p >= end || !diff_is_digit(*p))
		return NULL;
	if (*p == '0')
		p++;
	else
		while (p < end && diff_is_digit(*p))
			p++;
	if (p < end && *p == '.') {
		p++;
		if (p >= end || !diff_is_digit(*p))
			return NULL;
		while (p < end && diff_is_digit(*p))
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || !diff_is_digit(*p))
			return NULL;
		while (p < end && diff_is_digit(*p))
			p++;
	}
	return p;
}

/* Is all of @s (a C string) one JSON number? */
static inline bool diff_is_number_text(const char *s)
{
	const char *end = s + strlen(s);

	return diff_number_end(s, end) == end;
}

/* @p just after an opening quote: returns the position after the closing
 * quote, or NULL. */
static inline const char *diff_string_end(const char *p, const char *end)
{
	while (p < end) {
		if (*p == '"')
			return p + 1;
		if (*p != '\\') {
			p++;
			continue;
		}
		if (end - p < 2)
			return NULL;
		if (p[1] == 'u') {
			if (end - p < 6 || !diff_is_hex(p[2]) || !diff_is_hex(p[3]) ||
			    !diff_is_hex(p[4]) || !diff_is_hex(p[5]))
				return NULL;
			p += 6;
		} else if (memchr("\"\\/bfnrt", p[1], 8)) {
			p += 2;
		} else {
			return NULL;
		}
	}
	return NULL;
}

struct diff_valid {
	bool ok;
	size_t at;		/* byte offset of the first error */
	const char *what;
	size_t max_depth;
};

/* Check that [s, s+n) is one JSON value surrounded by whitespace. */
static inline void diff_validate(const char *s, size_t n, struct diff_valid *v)
{
	const char *p = s, *end = s + n, *q;
	char *stack = NULL;	/* closing bracket of each open container */
	size_t depth = 0, cap = 0;

	memset(v, 0, sizeof(*v));
value:
	p = diff_ws(p, end);
	if (p >= end)
		goto bad_eof;
	switch (*p) {
	case '{':
	case '[':
		if (depth == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			char *ns = realloc(stack, ncap);

			if (!ns) {
				v->what = "out of memory";
				goto bad;
			}
			stack = ns;
			cap = ncap;
		}
		stack[depth++] = *p == '{' ? '}' : ']';
		if (depth > v->max_depth)
			v->max_depth = depth;
		p = diff_ws(p + 1, end);
		if (p < end && *p == stack[depth - 1]) {
			depth--;
			p++;
			goto after;
		}
		if (stack[depth - 1] == '}')
			goto key;
		goto value;
	case '"':
		q = diff_string_end(p + 1, end);
		if (!q) {
			v->what = "bad string";
			goto bad;
		}
		p = q;
		goto after;
	case 't':
		q = (end - p >= 4 && !memcmp(p, "true", 4)) ? p + 4 : NULL;
		break;
	case 'f':
		q = (end - p >= 5 && !memcmp(p, "false", 5)) ? p + 5 : NULL;
		break;
	case 'n':
		q = (end - p >= 4 && !memcmp(p, "null", 4)) ? p + 4 : NULL;
		break;
	default:
		q = diff_number_end(p, end);
		break;
	}
	if (!q) {
		v->what = "bad value";
		goto bad;
	}
	p = q;
	goto after;
key:
	p = diff_ws(p, end);
	if (p >= end)
		goto bad_eof;
	if (*p != '"') {
		v->what = "expected a key";
		goto bad;
	}
	q = diff_string_end(p + 1, end);
	if (!q) {
		v->what = "bad key";
		goto bad;
	}
	p = diff_ws(q, end);
	if (p >= end)
		goto bad_eof;
	if (*p != ':') {
		v->what = "expected ':'";
		goto bad;
	}
	p++;
	goto value;
after:
	p = diff_ws(p, end);
	if (depth == 0) {
		if (p != end) {
			v->what = "data after the value";
			goto bad;
		}
		v->ok = true;
		goto out;
	}
	if (p >= end)
		goto bad_eof;
	if (*p == ',') {
		p++;
		if (stack[depth - 1] == '}')
			goto key;
		goto value;
	}
	if (*p == stack[depth - 1]) {
		depth--;
		p++;
		goto after;
	}
	v->what = "expected ',' or a closing bracket";
	goto bad;
bad_eof:
	v->what = "truncated";
bad:
	v->at = (size_t)(p - s);
out:
	free(stack);
}

/* ------------------------------------------------------------ JSON values */

/* Exact equality: same types, same order, bit-identical numbers. Stricter
 * than cJSON_Compare(a, b, true), which ignores key order and cannot compare
 * infinities (1e400: inf - inf is NaN). */
static inline bool diff_same_json(const cJSON *a, const cJSON *b)
{
	const cJSON *x, *y;

	if (!a || !b)
		return a == b;
	if ((a->type & 0xff) != (b->type & 0xff))
		return false;
	switch (a->type & 0xff) {
	case cJSON_Number:
		return diff_same_double(a->valuedouble, b->valuedouble);
	case cJSON_String:
	case cJSON_Raw:
		return !strcmp(a->valuestring, b->valuestring);
	case cJSON_Array:
	case cJSON_Object:
		for (x = a->child, y = b->child; x && y; x = x->next, y = y->next) {
			if ((a->type & 0xff) == cJSON_Object && strcmp(x->string, y->string))
				return false;
			if (!diff_same_json(x, y))
				return false;
		}
		return !x && !y;
	default:
		return true;	/* true, false, null */
	}
}

static inline int diff_cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Does object @o hold some key twice? */
static inline bool diff_has_dup_keys(const cJSON *o)
{
	const char *small[32], **names = small;
	const cJSON *c;
	size_t n = 0, i;
	bool dup = false;

	for (c = o->child; c; c = c->next)
		n++;
	if (n < 2)
		return false;
	if (n > 32) {
		names = malloc(n * sizeof(*names));
		if (!names)
			return true;	/* cannot tell: leave the event out */
	}
	for (i = 0, c = o->child; c; c = c->next)
		names[i++] = c->string;
	qsort(names, n, sizeof(*names), diff_cmp_names);
	for (i = 1; i < n && !dup; i++)
		dup = !strcmp(names[i - 1], names[i]);
	if (names != small)
		free(names);
	return dup;
}

/* cJSON reads one value at @*p (already past whitespace) and moves @*p past
 * it. cJSON itself would skip a BOM and any byte <= ' ' first, so the first
 * byte is checked here. */
static inline cJSON *diff_parse_at(const char **p, const char *end)
{
	const char *q = NULL;
	cJSON *v;

	if (*p >= end || !memchr("{[\"-0123456789tfn", **p, 17))
		return NULL;
	v = cJSON_ParseWithLengthOpts(*p, (size_t)(end - *p), &q, false);
	if (v)
		*p = q;
	return v;
}

/* Text that the library reports verbatim (pid 7, "name": null, ...): it must
 * be the JSON token that cJSON read. */
static inline bool diff_token_matches(const char *lib, const cJSON *ref)
{
	/* With require_null_terminated, cJSON wants to see the NUL itself. */
	cJSON *v = cJSON_ParseWithLengthOpts(lib, strlen(lib) + 1, NULL, true);
	bool same = v && diff_same_json(v, ref);

	cJSON_Delete(v);
	return same;
}

/* ------------------------------------------------------------ kinds, ids */

/* The kind of an event from its cat and ph, as the loader's own mapping
 * (tl_kind_from_cat, internal) gives it: the event table must agree with it
 * whatever the loader caches per category or merges between threads. The
 * table itself is not duplicated here, so that it can grow. */
static inline enum tl_kind diff_ref_kind(const char *cat, char ph)
{
	return tl_kind_from_cat(cat, strlen(cat), ph);
}

enum diff_int { DIFF_INT_NO, DIFF_INT_YES, DIFF_INT_UNSURE };

/* Which integer the library should see in number @d (cJSON's double): ids
 * are taken when integral and in int64 range. The library reads integer
 * literals of up to 19 digits exactly, so it may hold an int64 whose double
 * is 2^63 (9223372036854775807): that single value is left open. */
static inline enum diff_int diff_ref_int(double d, bool flow_id, double *out)
{
	(void)flow_id;
	if (!isfinite(d) || d != floor(d))
		return DIFF_INT_NO;
	*out = d;
	if (d > -9223372036854775808.0 && d < 9223372036854775808.0)
		return DIFF_INT_YES;
	if (d == 9223372036854775808.0)
		return DIFF_INT_UNSURE;
	if (d == -9223372036854775808.0)
		return DIFF_INT_UNSURE;	/* INT64_MIN reads as TL_NOID through the API */
	return DIFF_INT_NO;
}

/* An id from args: a number token only. */
static inline enum diff_int diff_ref_arg_int(const cJSON *args, const char *key, double *out)
{
	const cJSON *it = args ? cJSON_GetObjectItemCaseSensitive(args, key) : NULL;

	if (!cJSON_IsNumber(it))
		return DIFF_INT_NO;
	return diff_ref_int(it->valuedouble, false, out);
}

/* ------------------------------------------------------------ the walk */

struct diff_ctx {
	const struct tl_trace *tr;	/* NULL when the library rejected the text */
	uint64_t nev;
	const char *base, *end;
	/* the traceEvents array read last */
	bool saw_events, all_objects;
	unsigned nkeys_events;	/* traceEvents keys seen */
	uint64_t count, compared, skipped;
	char ev_why[512];	/* first mismatch in it */
	/* a ts or dur out of range, in any traceEvents read: the library must
	 * refuse the trace (unsure: in a string with escapes it may not see) */
	bool time_bad, time_unsure;
	char ref_why[256];	/* why cJSON gave up */
	cJSON *meta;		/* the other top-level keys, as the loader keeps them */
};

static inline void diff_check_str(struct diff_ctx *c, uint64_t uid, const cJSON *o,
				  const char *key, const char *lib)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!lib) {
		diff_say(c->ev_why, sizeof(c->ev_why), "event %llu: %s is NULL",
			 (unsigned long long)uid, key);
		return;
	}
	if (!it) {
		if (*lib)
			diff_say(c->ev_why, sizeof(c->ev_why),
				 "event %llu: no %s in JSON but library says \"%.80s\"",
				 (unsigned long long)uid, key, lib);
	} else if (cJSON_IsString(it)) {
		if (strcmp(lib, it->valuestring))
			diff_say(c->ev_why, sizeof(c->ev_why),
				 "event %llu: %s \"%.80s\" in JSON, \"%.80s\" from library",
				 (unsigned long long)uid, key, it->valuestring, lib);
	} else if (!diff_token_matches(lib, it)) {
		diff_say(c->ev_why, sizeof(c->ev_why),
			 "event %llu: %s is a non-string token, library text \"%.80s\" differs",
			 (unsigned long long)uid, key, lib);
	}
}

/* ts or dur: a number, or a string holding one. */
static inline void diff_check_num(struct diff_ctx *c, uint64_t uid, const cJSON *o,
				  const char *key, bool has, double lib, bool raw_escapes)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
	double want;

	if (cJSON_IsNumber(it)) {
		want = it->valuedouble;
	} else if (cJSON_IsString(it) && diff_is_number_text(it->valuestring)) {
		want = strtod(it->valuestring, NULL);
		/* Written with escapes, the loader (reading raw text) may not see it. */
		if (!has && raw_escapes)
			return;
	} else {
		if (has)
			diff_say(c->ev_why, sizeof(c->ev_why),
				 "event %llu: %s is not numeric in JSON but library has %.17g",
				 (unsigned long long)uid, key, lib);
		return;
	}
	if (!has)
		diff_say(c->ev_why, sizeof(c->ev_why), "event %llu: %s %.17g missing in library",
			 (unsigned long long)uid, key, want);
	else if (!diff_same_double(lib, want))
		diff_say(c->ev_why, sizeof(c->ev_why),
			 "event %llu: %s is %.17g (%a) by strtod, %.17g (%a) by the library",
			 (unsigned long long)uid, key, want, want, lib, lib);
}

static inline void diff_check_id(struct diff_ctx *c, uint64_t uid, const char *what,
				 int64_t lib, enum diff_int want, double v)
{
	if (want == DIFF_INT_UNSURE)
		return;
	if (want == DIFF_INT_NO && lib != TL_NOID)
		diff_say(c->ev_why, sizeof(c->ev_why),
			 "event %llu: library has %s %lld, JSON has no integer there",
			 (unsigned long long)uid, what, (long long)lib);
	else if (want == DIFF_INT_YES && (lib == TL_NOID || (double)lib != v))
		diff_say(c->ev_why, sizeof(c->ev_why), "event %llu: %s %.17g in JSON, %lld from library",
			 (unsigned long long)uid, what, v, (long long)lib);
}

/* The ids the loader extracts for linking. */
static inline void diff_check_ids(struct diff_ctx *c, uint64_t uid, const cJSON *o,
				  const cJSON *args, const struct tl_event_info *ev, bool raw_escapes)
{
	enum diff_int w;
	double v = 0;

	if (args && diff_has_dup_keys(args))
		return;	/* last one wins in the loader, first in cJSON */
	if (ev->kind == TL_KIND_FLOW_LAUNCH || ev->kind == TL_KIND_FLOW_FWDBWD) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id");

		w = DIFF_INT_NO;
		if (cJSON_IsNumber(id)) {
			w = diff_ref_int(id->valuedouble, true, &v);
		} else if (cJSON_IsString(id) && diff_is_number_text(id->valuestring)) {
			w = diff_ref_int(strtod(id->valuestring, NULL), true, &v);
			if (w == DIFF_INT_YES && raw_escapes && ev->correlation == TL_NOID)
				w = DIFF_INT_UNSURE;
		}
		diff_check_id(c, uid, "flow id", ev->correlation, w, v);
	} else {
		w = diff_ref_arg_int(args, "correlation", &v);
		diff_check_id(c, uid, "correlation", ev->correlation, w, v);
	}
	w = diff_ref_arg_int(args, "External id", &v);
	if (w == DIFF_INT_NO)
		w = diff_ref_arg_int(args, "external id", &v);
	diff_check_id(c, uid, "External id", ev->external_id, w, v);
	w = diff_ref_arg_int(args, "Sequence number", &v);
	diff_check_id(c, uid, "Sequence number", ev->seq, w, v);
	w = diff_ref_arg_int(args, "stream", &v);
	if (w == DIFF_INT_YES && (v < INT32_MIN || v > INT32_MAX))
		w = DIFF_INT_NO;
	diff_check_id(c, uid, "stream", ev->stream, w, v);
	w = diff_ref_arg_int(args, "device", &v);
	if (w == DIFF_INT_YES && (v < INT32_MIN || v > INT32_MAX))
		w = DIFF_INT_NO;
	diff_check_id(c, uid, "device", ev->device, w, v);
}

/* Every ts and dur member of event @o (repeated keys too: the loader reads
 * each): one that is infinite or beyond +-2^63 ns must make the library
 * refuse the trace, unless cJSON may not see what the loader sees (a string
 * value, or any key, that a NUL cuts short for it: @strings_unsure,
 * @keys_unsure). */
static inline void diff_check_times(struct diff_ctx *c, const cJSON *o, bool strings_unsure, bool keys_unsure)
{
	const cJSON *it;

	for (it = o->child; it; it = it->next) {
		double d;

		if (strcmp(it->string, "ts") && strcmp(it->string, "dur"))
			continue;
		if (cJSON_IsNumber(it)) {
			d = it->valuedouble;
		} else if (cJSON_IsString(it) && diff_is_number_text(it->valuestring)) {
			d = strtod(it->valuestring, NULL);
		} else {
			continue;
		}
		if (d >= -TL_TIME_MAX_US && d <= TL_TIME_MAX_US)
			continue;
		if ((cJSON_IsString(it) && strings_unsure) || keys_unsure)
			c->time_unsure = true;
		else
			c->time_bad = true;
	}
}

/* Element @uid of traceEvents, as cJSON read it from [raw, raw+rawlen). */
static inline void diff_event(struct diff_ctx *c, uint64_t uid, const cJSON *o, const char *raw,
			      size_t rawlen)
{
	struct tl_event_info ev;
	const cJSON *it, *args;
	cJSON *lib_args = NULL;
	bool raw_escapes = memchr(raw, '\\', rawlen) != NULL;
	char ph;
	int err;

	if (uid >= c->nev) {
		diff_say(c->ev_why, sizeof(c->ev_why), "element %llu has no event in the library (%llu)",
			 (unsigned long long)uid, (unsigned long long)c->nev);
		return;
	}
	err = tl_trace_event(c->tr, uid, &ev);
	if (err || ev.uid != uid) {
		diff_say(c->ev_why, sizeof(c->ev_why), "tl_trace_event(%llu) = %d",
			 (unsigned long long)uid, err);
		return;
	}
	if (diff_has_dup_keys(o) || memchr(raw, 0, rawlen) ||
	    (raw_escapes && memmem(raw, rawlen, "\\u0000", 6))) {
		c->skipped++;
		return;
	}
	c->compared++;
	diff_check_str(c, uid, o, "name", ev.name);
	diff_check_str(c, uid, o, "cat", ev.cat);
	diff_check_str(c, uid, o, "pid", ev.pid);
	diff_check_str(c, uid, o, "tid", ev.tid);
	it = cJSON_GetObjectItemCaseSensitive(o, "ph");
	ph = cJSON_IsString(it) ? it->valuestring[0] : 0;
	if (ph != ev.ph)
		diff_say(c->ev_why, sizeof(c->ev_why), "event %llu: ph '%c' (%d) in JSON, '%c' (%d) from library",
			 (unsigned long long)uid, ph ? ph : '0', ph, ev.ph ? ev.ph : '0', ev.ph);
	diff_check_num(c, uid, o, "ts", ev.has_ts, ev.ts, raw_escapes);
	diff_check_num(c, uid, o, "dur", ev.has_dur, ev.dur, raw_escapes);
	if (ev.cat && ev.kind != diff_ref_kind(ev.cat, ev.ph))
		diff_say(c->ev_why, sizeof(c->ev_why), "event %llu: kind %s for cat \"%.80s\" ph %d, expected %s",
			 (unsigned long long)uid, tl_kind_name(ev.kind), ev.cat, ev.ph,
			 tl_kind_name(diff_ref_kind(ev.cat, ev.ph)));

	it = cJSON_GetObjectItemCaseSensitive(o, "args");
	args = cJSON_IsObject(it) ? it : NULL;
	err = tl_trace_event_args(c->tr, uid, &lib_args);
	if (err) {
		diff_say(c->ev_why, sizeof(c->ev_why), "event %llu: tl_trace_event_args = %d: %s",
			 (unsigned long long)uid, err, tl_last_error());
	} else if (!args != !ev.args || !args != !lib_args) {
		diff_say(c->ev_why, sizeof(c->ev_why), "event %llu: args %s in JSON, %s in library",
			 (unsigned long long)uid, args ? "present" : "absent",
			 ev.args ? "present" : "absent");
	} else if (args) {
		struct diff_valid sv;

		/* The raw slice must be exactly the args object: one value, nothing
		 * around it (cJSON alone would ignore what follows). */
		diff_validate(ev.args, ev.args_len, &sv);
		if (!sv.ok || ev.args[0] != '{' || diff_is_ws(ev.args[ev.args_len - 1]))
			diff_say(c->ev_why, sizeof(c->ev_why),
				 "event %llu: raw args slice (%zu bytes) is not exactly one object: %.*s",
				 (unsigned long long)uid, ev.args_len, (int)(ev.args_len < 80 ? ev.args_len : 80),
				 ev.args);
		else if (!diff_same_json(lib_args, args))
			diff_say(c->ev_why, sizeof(c->ev_why), "event %llu: args differ: %.*s",
				 (unsigned long long)uid, (int)(ev.args_len < 200 ? ev.args_len : 200),
				 ev.args);
	}
	cJSON_Delete(lib_args);
	diff_check_ids(c, uid, o, args, &ev, raw_escapes);
}

/* A traceEvents array at @p ('['): returns the position after it, or NULL
 * when cJSON gives up. */
static inline const char *diff_events(struct diff_ctx *c, const char *p)
{
	const char *e = c->end;

	/* A later traceEvents key replaces an earlier one, in the loader as in Python. */
	c->nkeys_events++;
	c->saw_events = true;
	c->all_objects = true;
	c->count = c->compared = c->skipped = 0;
	c->ev_why[0] = 0;
	p = diff_ws(p + 1, e);
	if (p < e && *p == ']')
		return p + 1;
	for (;;) {
		const char *start = p;
		cJSON *o = diff_parse_at(&p, e);

		if (!o) {
			snprintf(c->ref_why, sizeof(c->ref_why),
				 "cJSON rejects traceEvents[%llu] at byte %zu",
				 (unsigned long long)c->count, (size_t)(start - c->base));
			return NULL;
		}
		if (!cJSON_IsObject(o)) {
			c->all_objects = false;
			diff_say(c->ev_why, sizeof(c->ev_why),
				 "traceEvents[%llu] is not an object, yet the library accepted the trace",
				 (unsigned long long)c->count);
		} else {
			size_t n = (size_t)(p - start);

			/* A string with an escape or a raw NUL may read otherwise
			 * through cJSON (a NUL ends its C string: "-1e308\0..." is a
			 * number to it, not to the loader), and so may a key with a
			 * NUL, raw or \u0000 ("dur\0x" is "dur" to cJSON only). */
			bool nul = memchr(start, 0, n) || memmem(start, n, "\\u0000", 6);

			diff_check_times(c, o, memchr(start, '\\', n) || nul, nul);
			if (c->tr)
				diff_event(c, c->count, o, start, (size_t)(p - start));
		}
		cJSON_Delete(o);
		c->count++;
		p = diff_ws(p, e);
		if (p < e && *p == ',') {
			p = diff_ws(p + 1, e);
			continue;
		}
		if (p < e && *p == ']')
			return p + 1;
		snprintf(c->ref_why, sizeof(c->ref_why), "bad punctuation at byte %zu",
			 (size_t)(p - c->base));
		return NULL;
	}
}

/* A top-level key other than traceEvents: kept the way the loader keeps it. */
static inline void diff_meta_add(struct diff_ctx *c, const char *key, cJSON *v)
{
	if (cJSON_GetObjectItemCaseSensitive(c->meta, key))
		cJSON_ReplaceItemInObjectCaseSensitive(c->meta, key, v);
	else
		cJSON_AddItemToObject(c->meta, key, v);
}

/* Walk the document. Returns false when cJSON (or the punctuation) gives up. */
static inline bool diff_document(struct diff_ctx *c)
{
	const char *p = diff_ws(c->base, c->end), *e = c->end;

	if (p >= e)
		return false;
	if (*p == '[') {
		p = diff_events(c, p);
		if (!p)
			return false;
	} else if (*p == '{') {
		p = diff_ws(p + 1, e);
		if (p < e && *p == '}')
			p++;
		else
			for (;;) {
				const char *kp = p;
				cJSON *k = diff_parse_at(&p, e), *v;

				if (!cJSON_IsString(k)) {
					cJSON_Delete(k);
					snprintf(c->ref_why, sizeof(c->ref_why),
						 "cJSON rejects the key at byte %zu", (size_t)(kp - c->base));
					return false;
				}
				/* A C string cannot hold a NUL: such a key is out of reach. */
				if (memchr(kp, 0, (size_t)(p - kp)) ||
				    memmem(kp, (size_t)(p - kp), "\\u0000", 6)) {
					cJSON_Delete(k);
					snprintf(c->ref_why, sizeof(c->ref_why),
						 "top-level key with a NUL at byte %zu", (size_t)(kp - c->base));
					return false;
				}
				p = diff_ws(p, e);
				if (p >= e || *p != ':') {
					cJSON_Delete(k);
					return false;
				}
				p = diff_ws(p + 1, e);
				if (!strcmp(k->valuestring, "traceEvents") && p < e && *p == '[') {
					cJSON_Delete(k);
					p = diff_events(c, p);
					if (!p)
						return false;
				} else if (!strcmp(k->valuestring, "traceEvents")) {
					/* Python would fail on it: not a trace. */
					cJSON_Delete(k);
					v = diff_parse_at(&p, e);
					cJSON_Delete(v);
					if (!v)
						return false;
					c->nkeys_events++;
					c->saw_events = false;
					c->ev_why[0] = 0;
					diff_say(c->ev_why, sizeof(c->ev_why),
						 "traceEvents is not an array, yet the library accepted the trace");
				} else {
					v = diff_parse_at(&p, e);
					if (!v) {
						cJSON_Delete(k);
						snprintf(c->ref_why, sizeof(c->ref_why),
							 "cJSON rejects the value at byte %zu",
							 (size_t)(p - c->base));
						return false;
					}
					diff_meta_add(c, k->valuestring, v);
					cJSON_Delete(k);
				}
				p = diff_ws(p, e);
				if (p < e && *p == ',') {
					p = diff_ws(p + 1, e);
					continue;
				}
				if (p < e && *p == '}') {
					p++;
					break;
				}
				return false;
			}
	} else {
		return false;
	}
	return diff_ws(p, e) == e;
}

/**
 * Compare the library's reading of a trace with the JSON text it came from.
 * @tr:       the loaded trace, or NULL if loading failed (with @lib_err).
 * @text/len: the (decompressed) JSON text.
 */
static inline void diff_trace(const struct tl_trace *tr, int lib_err, const char *text,
			      size_t len, struct diff_result *res)
{
	struct diff_ctx c;
	struct diff_valid v;
	bool cjson_ok;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	c.tr = tr;
	c.nev = tr ? tl_trace_nevents(tr) : 0;
	c.base = text;
	c.end = text + len;
	c.meta = cJSON_CreateObject();
	if (!c.meta) {
		res->verdict = DIFF_NO_REF;
		snprintf(res->why, sizeof(res->why), "out of memory");
		return;
	}
	diff_validate(text, len, &v);
	if (tr && !v.ok) {
		res->verdict = DIFF_MISMATCH;
		snprintf(res->why, sizeof(res->why),
			 "the library accepted text that is not JSON: %s at byte %zu", v.what, v.at);
		goto out;
	}
	cjson_ok = diff_document(&c);
	res->compared = c.compared;
	res->skipped = c.skipped;
	if (!cjson_ok) {
		res->verdict = DIFF_NO_REF;
		snprintf(res->why, sizeof(res->why), "cJSON does not read it: %s",
			 c.ref_why[0] ? c.ref_why : "bad document");
		goto out;
	}
	if (tr && c.time_bad) {
		res->verdict = DIFF_MISMATCH;
		snprintf(res->why, sizeof(res->why),
			 "the library accepted a ts or dur that is infinite or beyond +-2^63 ns");
		goto out;
	}
	if (!tr) {
		/* Both the grammar check and cJSON read a trace: so must the library.
		 * With traceEvents given twice, the loader may stop at the first
		 * (not an array, not objects) where Python would take the last. A
		 * time out of range is refused on purpose. */
		if (v.ok && c.saw_events && c.all_objects && c.count > 0 && c.nkeys_events <= 1 &&
		    !c.time_bad && !c.time_unsure &&
		    v.max_depth < DIFF_MAX_CHECKED_DEPTH && lib_err != -ENOMEM) {
			res->verdict = DIFF_MISMATCH;
			snprintf(res->why, sizeof(res->why),
				 "the library rejected a valid trace of %llu events (%d): %s",
				 (unsigned long long)c.count, lib_err, tl_last_error());
		}
		goto out;
	}
	if (c.ev_why[0]) {
		res->verdict = DIFF_MISMATCH;
		snprintf(res->why, sizeof(res->why), "%s", c.ev_why);
	} else if (!c.saw_events || c.count != c.nev) {
		res->verdict = DIFF_MISMATCH;
		snprintf(res->why, sizeof(res->why), "%llu events in JSON, %llu in the library",
			 (unsigned long long)c.count, (unsigned long long)c.nev);
	} else if (!diff_same_json(c.meta, (const cJSON *)tl_trace_metadata(tr))) {
		char *a = cJSON_PrintUnformatted(c.meta);
		char *b = cJSON_PrintUnformatted((const cJSON *)tl_trace_metadata(tr));

		res->verdict = DIFF_MISMATCH;
		snprintf(res->why, sizeof(res->why), "metadata differs: JSON %.300s, library %.300s",
			 a ? a : "?", b ? b : "?");
		free(a);
		free(b);
	}
out:
	cJSON_Delete(c.meta);
}

/* ------------------------------------------------------------ API checks */

/* A failed open: a known -errno and a one-line message. */
static inline bool diff_check_error(int err, char *why, size_t n)
{
	const char *m = tl_last_error();

	why[0] = 0;
	if (err != -EBADMSG && err != -ENODATA && err != -ENOMEM)
		diff_say(why, n, "unexpected error code %d (%s)", err, m);
	else if (!m || !*m)
		diff_say(why, n, "error %d with an empty tl_last_error()", err);
	else if (strchr(m, '\n') || strchr(m, '\r'))
		diff_say(why, n, "tl_last_error() spans several lines: %s", m);
	return !why[0];
}

/* Every accessor on every event, without a reference: what must hold for
 * any trace the library accepts. @parse_args: also parse every event's args
 * (diff_trace() does it too, where there is a reference). */
static inline bool diff_check_api(const struct tl_trace *tr, bool parse_args, char *why, size_t n)
{
	uint64_t nev = tl_trace_nevents(tr), uid, counts[TL_KIND_COUNT], sum = 0;
	const cJSON *meta = (const cJSON *)tl_trace_metadata(tr);
	struct tl_event_info ev;
	cJSON *args = NULL;
	int err, k;

	why[0] = 0;
	if (!nev)
		diff_say(why, n, "an accepted trace with no events");
	if (!cJSON_IsObject(meta))
		diff_say(why, n, "tl_trace_metadata() is not an object");
	for (uid = 0; uid < nev && !why[0]; uid++) {
		err = tl_trace_event(tr, uid, &ev);
		if (err || ev.uid != uid || !ev.name || !ev.cat || !ev.pid || !ev.tid ||
		    (unsigned)ev.kind >= TL_KIND_COUNT) {
			diff_say(why, n, "tl_trace_event(%llu): %d, bad fields", (unsigned long long)uid, err);
			break;
		}
		if (ev.args && (!ev.args_len || ev.args[0] != '{' || ev.args[ev.args_len - 1] != '}'))
			diff_say(why, n, "event %llu: raw args is not braced", (unsigned long long)uid);
		if (!parse_args)
			continue;
		err = tl_trace_event_args(tr, uid, &args);
		if (err == -EBADMSG) {
			char msg[256];

			/* e.g. a lone surrogate, which cJSON refuses */
			if (!diff_check_error(err, msg, sizeof(msg)))
				diff_say(why, n, "event %llu args: %s", (unsigned long long)uid, msg);
		} else if (err)
			diff_say(why, n, "tl_trace_event_args(%llu) = %d", (unsigned long long)uid, err);
		else if (!args != !ev.args || (args && !cJSON_IsObject(args)))
			diff_say(why, n, "event %llu: args object and raw args disagree",
				 (unsigned long long)uid);
		cJSON_Delete(args);
		args = NULL;
	}
	if (!why[0] && tl_trace_event(tr, nev, &ev) != -ERANGE)
		diff_say(why, n, "tl_trace_event(nevents) is not -ERANGE");
	if (!why[0] && (tl_trace_event_args(tr, nev, &args) != -ERANGE || args))
		diff_say(why, n, "tl_trace_event_args(nevents) is not -ERANGE");
	if (!why[0] && (!*tl_last_error() || strchr(tl_last_error(), '\n')))
		diff_say(why, n, "bad -ERANGE message: %s", tl_last_error());
	tl_trace_kind_counts(tr, counts);
	for (k = 0; k < TL_KIND_COUNT; k++)
		sum += counts[k];
	if (sum != nev)
		diff_say(why, n, "kind counts add up to %llu, not %llu", (unsigned long long)sum,
			 (unsigned long long)nev);
	return !why[0];
}

/* Two loads of the same trace (from a path and from memory) must agree. */
static inline bool diff_same_traces(const struct tl_trace *a, const struct tl_trace *b,
				    char *why, size_t n)
{
	uint64_t nev = tl_trace_nevents(a), uid;
	struct tl_event_info x, y;

	why[0] = 0;
	if (nev != tl_trace_nevents(b) || tl_trace_text_size(a) != tl_trace_text_size(b)) {
		diff_say(why, n, "%llu vs %llu events, %llu vs %llu bytes", (unsigned long long)nev,
			 (unsigned long long)tl_trace_nevents(b),
			 (unsigned long long)tl_trace_text_size(a),
			 (unsigned long long)tl_trace_text_size(b));
		return false;
	}
	for (uid = 0; uid < nev && !why[0]; uid++) {
		if (tl_trace_event(a, uid, &x) || tl_trace_event(b, uid, &y)) {
			diff_say(why, n, "tl_trace_event(%llu) failed", (unsigned long long)uid);
			break;
		}
		if (strcmp(x.name, y.name) || strcmp(x.cat, y.cat) || strcmp(x.pid, y.pid) ||
		    strcmp(x.tid, y.tid) || x.kind != y.kind || x.ph != y.ph ||
		    x.has_ts != y.has_ts || x.has_dur != y.has_dur ||
		    !diff_same_double(x.ts, y.ts) || !diff_same_double(x.dur, y.dur) ||
		    x.args_len != y.args_len || !x.args != !y.args ||
		    (x.args && memcmp(x.args, y.args, x.args_len)) ||
		    x.correlation != y.correlation || x.external_id != y.external_id ||
		    x.seq != y.seq || x.stream != y.stream || x.device != y.device)
			diff_say(why, n, "event %llu differs", (unsigned long long)uid);
	}
	if (!why[0] && !diff_same_json((const cJSON *)tl_trace_metadata(a),
				       (const cJSON *)tl_trace_metadata(b)))
		diff_say(why, n, "metadata differs");
	return !why[0];
}

/* ------------------------------------------------------------ gzip */

/* Inflate gzip data with zlib the way the loader treats it: members follow
 * each other, anything after the last member that is not a gzip header is
 * ignored. Returns 0, or -1 (corrupt, or more than @max bytes). */
static inline int diff_gunzip(const unsigned char *in, size_t len, size_t max, char **out,
			      size_t *out_len)
{
	size_t cap = len * 4 + 4096, n = 0;
	char *buf = malloc(cap);
	z_stream zs;
	int zr, ret = -1;

	*out = NULL;
	*out_len = 0;
	memset(&zs, 0, sizeof(zs));
	if (!buf || inflateInit2(&zs, 15 + 32) != Z_OK) {
		free(buf);
		return -1;
	}
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (uInt)len;
	for (;;) {
		if (cap - n < 4096) {
			char *nb;

			if (cap >= max)
				goto out;
			nb = realloc(buf, cap * 2);
			if (!nb)
				goto out;
			buf = nb;
			cap *= 2;
		}
		zs.next_out = (unsigned char *)buf + n;
		zs.avail_out = (uInt)(cap - n);
		zr = inflate(&zs, Z_NO_FLUSH);
		n = cap - zs.avail_out;
		if (zr == Z_STREAM_END) {
			if (zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
				inflateReset(&zs);
				continue;
			}
			break;
		}
		if (zr == Z_BUF_ERROR && zs.avail_in == 0)
			goto out;	/* truncated */
		if (zr != Z_OK && zr != Z_BUF_ERROR)
			goto out;
	}
	*out = buf;
	*out_len = n;
	buf = NULL;
	ret = 0;
out:
	inflateEnd(&zs);
	free(buf);
	return ret;
}

#endif
