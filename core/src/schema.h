/* SPDX-License-Identifier: MIT */
/* Operator schema parsing, the schema database and Python-literal values
 * (schema.c), shared with the IR builder (ir_build.c). */
#ifndef TL_SCHEMA_H
#define TL_SCHEMA_H

#include <cjson/cJSON.h>
#include <tlreplay/ir.h>

#include "util.h"

/* Parse @text into @out; every string (and the args array) is allocated from
 * @arena. On failure returns -EINVAL with a short reason in @why (and no
 * tl_last_error(): the database skips bad strings quietly). */
int tl_schema_parse_arena(struct tl_arena *arena, const char *text, struct tl_schema *out,
			  char *why, size_t whylen);

/* ------------------------------------------------------------------ literals */

/* The literals of schema defaults and of the profiler's Concrete Inputs: both
 * are written the Python way ("True", "0.", "1e-05", "[1, 1]", "\"none\""). */
enum tl_lit {
	TL_LIT_BAD = 0,		/* empty or not understood */
	TL_LIT_NONE,		/* None */
	TL_LIT_BOOL,		/* True False true false */
	TL_LIT_INT,		/* -?[0-9]+ */
	TL_LIT_FLOAT,		/* anything else strtod takes whole: 0. 1e-05 inf -inf nan */
	TL_LIT_STR,		/* "..." or '...' */
	TL_LIT_LIST,		/* [...] or (...) */
	TL_LIT_NAME,		/* an identifier: contiguous_format, long, Mean */
};

struct tl_literal {
	enum tl_lit kind;
	bool b;
	long long i;
	bool i_big;		/* an integer outside int64: kept as text */
	double d;		/* value of an int or float */
	const char *s;		/* the trimmed text (not NUL-terminated) */
	size_t len;
};

/* Classify the literal in s[0, len) (surrounding blanks ignored). */
enum tl_lit tl_literal_parse(const char *s, size_t len, struct tl_literal *out);

/* Call @fn on each top-level item of a list literal "[a, b]" (brackets
 * included in @s); returns the number of items, or -1 if @fn returned
 * false or the text is not a list. */
int tl_literal_items(const char *s, size_t len,
		     bool (*fn)(const char *item, size_t n, void *ctx), void *ctx);

/* A string literal without its quotes, C escapes decoded, malloc'ed; NULL if
 * @text is not a quoted string or on ENOMEM. */
char *tl_schema_unquote(const char *text, size_t len);

/* c10 code of an enum name used in defaults (ScalarType "long", Layout
 * "strided", MemoryFormat "contiguous_format"); -1 if unknown. */
int tl_schema_enum_code(enum tl_arg_kind kind, const char *name, size_t len);

/* JSON numbers that keep their kind when printed: an integer beyond 2^53 and
 * an integral float ("2.0") are cJSON_Raw items; inf becomes +-DBL_MAX and
 * nan null (the caller notes the original text). NULL on ENOMEM. */
cJSON *tl_json_int(long long v);
cJSON *tl_json_float(double d);

/* The JSON value of literal s[0, len) for argument @a (element-wise for a
 * list; a bare scalar for an int[N] repeats N times, the torch 1.13 default
 * form "int[2] stride=1"). Sets *exact to false when the literal is only
 * compatible (an int for a float, 0/1 for a bool). NULL if the literal does
 * not fit the type, or on ENOMEM (*nomem set). */
cJSON *tl_literal_json(const struct tl_schema_arg *a, const char *s, size_t len, bool *exact,
		       bool *nomem);

/* The default of @a as a JSON value (NULL if none or not understood). */
cJSON *tl_schema_default_json(const struct tl_schema_arg *a);

#endif
