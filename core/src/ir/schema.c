/* SPDX-License-Identifier: MIT */
/* PyTorch operator schemas, as str(torch._C.FunctionSchema) prints them:
 *
 *   ns::name[.overload](TYPE NAME[=DEFAULT], ..., *, KWARG...) -> RETURNS
 *
 * A real parser rather than TraceLens's comma split: types carry parentheses
 * and blanks (Tensor(a -> *), Tensor($0! -> )), defaults carry commas,
 * brackets and quotes ([1, 1], "none", '"\'\\'), and torch 1.13 and 2.x
 * print list defaults differently (int[2] stride=1 vs SymInt[2] stride=[1, 1]).
 * Every string is scanned once with bracket depth and quotes tracked.
 *
 * The database keeps the schemas in registry order (the order TorchScript
 * tries overloads in) plus an index sorted by op name for lookups. */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <strings.h>

#include <tlreplay/input.h>

#include "base/base_internal.h"
#include "ir/ir_internal.h"

struct tl_schema_db {
	struct tl_arena arena;		/* parsed schemas: args and their strings */
	struct tl_strtab texts;		/* schema texts, interned to drop duplicates */
	char *label;
	struct tl_schema *v;		/* registry order */
	size_t n;
	const struct tl_schema **by_name;	/* sorted by (name, index) */
	size_t skipped;
};

/* ------------------------------------------------------------------ scanning */

/* Bracket depth and quote state while walking a schema left to right. */
struct scan {
	int depth;
	char quote;
	bool esc;
};

/* Consume @c; returns true if it stood at top level (outside quotes and
 * brackets) before being consumed. */
static bool scan_top(struct scan *sc, char c)
{
	bool top = !sc->quote && sc->depth == 0;

	if (sc->quote) {
		if (sc->esc)
			sc->esc = false;
		else if (c == '\\')
			sc->esc = true;
		else if (c == sc->quote)
			sc->quote = 0;
	} else if (c == '"' || c == '\'') {
		sc->quote = c;
	} else if (c == '(' || c == '[') {
		sc->depth++;
	} else if (c == ')' || c == ']') {
		sc->depth--;
	}
	return top;
}

/* @s points at '(' or '['; returns its closing bracket, NULL if unbalanced. */
static const char *match_close(const char *s, const char *end)
{
	struct scan sc = { 0 };
	const char *p;

	for (p = s; p < end; p++) {
		scan_top(&sc, *p);
		if (sc.depth < 0)
			return NULL;
		if (sc.depth == 0 && !sc.quote)
			return p;
	}
	return NULL;
}

/* First top-level @c in [s, end), NULL if none. */
static const char *find_top(const char *s, const char *end, char c)
{
	struct scan sc = { 0 };
	const char *p;

	for (p = s; p < end; p++)
		if (scan_top(&sc, *p) && *p == c)
			return p;
	return NULL;
}

static void trim(const char **s, const char **e)
{
	while (*s < *e && isspace((unsigned char)**s))
		(*s)++;
	while (*e > *s && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

static bool is_ident(const char *s, const char *e)
{
	const char *p;

	if (s == e || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (p = s + 1; p < e; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	return true;
}

static int bad(char *why, size_t wl, const char *fmt, ...) TL_PRINTF(3, 4);
static int bad(char *why, size_t wl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, wl, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* ------------------------------------------------------------------ types */

static const struct {
	const char *name;
	enum tl_arg_kind kind;
} base_kinds[] = {
	{ "Tensor", TL_ARG_TENSOR },	   { "int", TL_ARG_INT },
	{ "SymInt", TL_ARG_SYMINT },	   { "float", TL_ARG_FLOAT },
	{ "SymFloat", TL_ARG_FLOAT },	   { "Scalar", TL_ARG_SCALAR },
	{ "number", TL_ARG_SCALAR },	   { "bool", TL_ARG_BOOL },
	{ "SymBool", TL_ARG_BOOL },	   { "str", TL_ARG_STR },
	{ "ScalarType", TL_ARG_SCALARTYPE }, { "Layout", TL_ARG_LAYOUT },
	{ "MemoryFormat", TL_ARG_MEMFMT }, { "Device", TL_ARG_DEVICE },
	{ "Generator", TL_ARG_GENERATOR }, { "complex", TL_ARG_COMPLEX },
};

/* Types whose parentheses hold type parameters, not an alias annotation. */
static const char *const containers[] = { "Dict", "Future", "RRef", "Union", "Optional",
					  "Tuple", "List", "Await" };

/* TYPE := (NAME | "(" types ")") ( "(" params-or-alias ")" | "[" N? "]" | "?" )* */
static int parse_type(struct tl_arena *ar, const char *t, const char *end, struct tl_schema_arg *a,
		      char *why, size_t wl)
{
	const char *p = t, *q;
	bool container = false, params = false, nested = false;
	size_t i;

	if (*p == '(') {	/* tuple type: (str, tVal)[] */
		q = match_close(p, end);
		if (!q)
			return bad(why, wl, "unbalanced '(' in type '%.*s'", (int)(end - t), t);
		a->base = "Tuple";
		params = true;
		p = q + 1;
	} else {
		for (q = p; q < end && (isalnum((unsigned char)*q) || *q == '_' || *q == '.' || *q == ':');
		     q++)
			;
		if (q == p)
			return bad(why, wl, "type '%.*s' does not start with a name", (int)(end - t), t);
		a->base = tl_arena_strndup(ar, p, (size_t)(q - p));
		if (!a->base)
			return -ENOMEM;
		for (i = 0; i < TL_ARRAY_SIZE(containers); i++)
			container |= !strcmp(a->base, containers[i]);
		p = q;
	}
	while (p < end) {
		if (*p == '(') {
			const char *s, *e;

			q = match_close(p, end);
			if (!q)
				return bad(why, wl, "unbalanced '(' in type '%.*s'", (int)(end - t), t);
			if (container && !params && !a->is_list && !a->alias) {
				params = true;
				p = q + 1;
				continue;
			}
			/* alias annotation: "a", "a!", "a -> *", "$0! -> " */
			a->alias = true;
			if (memchr(p, '!', (size_t)(q - p)))
				a->is_mutable = true;
			for (s = p + 1; s < q && isspace((unsigned char)*s); s++)
				;
			for (e = s; e < q && !strchr("!- )", *e); e++)
				;
			a->alias_set = tl_arena_strndup(ar, s, (size_t)(e - s));
			if (!a->alias_set)
				return -ENOMEM;
			p = q + 1;
		} else if (*p == '[') {
			long n = 0;

			for (q = p + 1; q < end && isdigit((unsigned char)*q); q++)
				n = n < 100000 ? n * 10 + (*q - '0') : n;
			if (q >= end || *q != ']')
				return bad(why, wl, "bad list size in type '%.*s'", (int)(end - t), t);
			if (a->is_list)
				nested = true;
			if (a->optional && !a->is_list) {
				/* "T?[]": the elements are optional, the list is not */
				a->elem_optional = true;
				a->optional = false;
			}
			a->is_list = true;
			a->list_size = (int)n;
			p = q + 1;
		} else if (*p == '?') {
			a->optional = true;
			p++;
		} else {
			return bad(why, wl, "unexpected '%c' in type '%.*s'", *p, (int)(end - t), t);
		}
	}
	a->kind = TL_ARG_OTHER;
	if (!params && !nested)
		for (i = 0; i < TL_ARRAY_SIZE(base_kinds); i++)
			if (!strcmp(a->base, base_kinds[i].name))
				a->kind = base_kinds[i].kind;
	a->type = tl_arena_strndup(ar, t, (size_t)(end - t));
	return a->type ? 0 : -ENOMEM;
}

/* One argument "TYPE NAME[=DEFAULT]" in [s, e), already trimmed. */
static int parse_arg(struct tl_arena *ar, const char *s, const char *e, struct tl_schema_arg *a,
		     char *why, size_t wl)
{
	const char *eq = find_top(s, e, '='), *de = eq ? eq : e, *sp = NULL, *p, *ts, *te, *ns;
	struct scan sc = { 0 };
	int err;

	trim(&s, &de);
	/* the name follows the last top-level blank: types have blanks only
	 * inside their parentheses */
	for (p = s; p < de; p++)
		if (scan_top(&sc, *p) && isspace((unsigned char)*p))
			sp = p;
	if (!sp)
		return bad(why, wl, "argument '%.*s' has no name", (int)(de - s), s);
	ts = s;
	te = sp;
	trim(&ts, &te);
	ns = sp + 1;
	if (!is_ident(ns, de))
		return bad(why, wl, "bad argument name '%.*s'", (int)(de - ns), ns);
	a->name = tl_arena_strndup(ar, ns, (size_t)(de - ns));
	if (!a->name)
		return -ENOMEM;
	err = parse_type(ar, ts, te, a, why, wl);
	if (err)
		return err;
	if (eq) {
		const char *ds = eq + 1, *dend = e;

		trim(&ds, &dend);
		if (ds == dend)
			return bad(why, wl, "argument '%s' has an empty default", a->name);
		a->has_default = true;
		a->default_text = tl_arena_strndup(ar, ds, (size_t)(dend - ds));
		if (!a->default_text)
			return -ENOMEM;
	}
	return 0;
}

static int count_returns(const char *s, const char *e)
{
	const char *q;
	struct scan sc = { 0 };
	int n = 1;

	if (e - s == 3 && !memcmp(s, "...", 3))
		return -1;
	if (*s != '(' || (q = match_close(s, e)) == NULL || q != e - 1)
		return 1;
	s++;
	e--;
	trim(&s, &e);
	if (s == e)
		return 0;
	for (; s < e; s++)
		if (scan_top(&sc, *s) && *s == ',')
			n++;
	return n;
}

int tl_schema_parse_arena(struct tl_arena *ar, const char *text, struct tl_schema *sc, char *why,
			  size_t wl)
{
	const char *end = text + strlen(text), *lp, *rp, *ns, *ne, *p, *rs, *dot, *colon;
	struct scan st = { 0 };
	size_t nitems = 1, i = 0;
	bool kw = false;
	int err;

	memset(sc, 0, sizeof(*sc));
	sc->text = text;
	lp = strchr(text, '(');
	if (!lp)
		return bad(why, wl, "no '(' after the op name");
	ns = text;
	ne = lp;
	trim(&ns, &ne);
	for (p = ns; p < ne; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_:.", *p))
			return bad(why, wl, "bad op name '%.*s'", (int)(ne - ns), ns);
	if (ns == ne)
		return bad(why, wl, "no op name");
	/* the overload follows the first '.' after the namespace */
	colon = NULL;
	for (p = ns; p + 1 < ne; p++)
		if (p[0] == ':' && p[1] == ':')
			colon = p + 2;
	dot = memchr(colon ? colon : ns, '.', (size_t)(ne - (colon ? colon : ns)));
	/* ".str(...)", "aten::(...)": an overload or a namespace without a name */
	if ((dot ? dot : ne) == (colon ? colon : ns))
		return bad(why, wl, "no op name before '%.*s'", (int)(ne - ns), ns);
	sc->name = tl_arena_strndup(ar, ns, (size_t)((dot ? dot : ne) - ns));
	sc->overload = dot ? tl_arena_strndup(ar, dot + 1, (size_t)(ne - dot - 1)) : "";
	if (!sc->name || !sc->overload)
		return -ENOMEM;

	rp = match_close(lp, end);
	if (!rp)
		return bad(why, wl, "unbalanced parentheses in the arguments");
	for (p = rp + 1; p < end && isspace((unsigned char)*p); p++)
		;
	if (end - p < 2 || p[0] != '-' || p[1] != '>')
		return bad(why, wl, "no '->' after the arguments");
	rs = p + 2;
	p = end;
	trim(&rs, &p);
	if (rs == p)
		return bad(why, wl, "no return type");
	sc->returns = tl_arena_strndup(ar, rs, (size_t)(p - rs));
	if (!sc->returns)
		return -ENOMEM;
	sc->nreturns = count_returns(rs, p);

	for (p = lp + 1; p < rp; p++)
		if (scan_top(&st, *p) && *p == ',')
			nitems++;
	sc->args = tl_arena_alloc(ar, nitems * sizeof(*sc->args), _Alignof(struct tl_schema_arg));
	if (!sc->args)
		return -ENOMEM;
	memset(sc->args, 0, nitems * sizeof(*sc->args));

	for (p = lp + 1; p <= rp && i < nitems; i++) {
		const char *is = p, *ie = find_top(p, rp, ',');

		if (!ie)
			ie = rp;
		p = ie + 1;
		trim(&is, &ie);
		if (is == ie) {
			if (nitems == 1)
				break;	/* "()" */
			return bad(why, wl, "empty argument %zu", i);
		}
		if (ie - is == 1 && *is == '*') {
			if (kw)
				return bad(why, wl, "two '*' in the arguments");
			kw = true;
			continue;
		}
		if (ie - is == 3 && !memcmp(is, "...", 3)) {
			sc->varargs = true;
			continue;
		}
		err = parse_arg(ar, is, ie, &sc->args[sc->nargs], why, wl);
		if (err)
			return err;
		sc->args[sc->nargs].kwarg_only = kw;
		if (!kw)
			sc->npos++;
		sc->nargs++;
	}
	return 0;
}

struct schema_box {
	struct tl_schema s;	/* first: tl_schema_free() casts back */
	struct tl_arena arena;
};

int tl_schema_parse(const char *text, struct tl_schema **out)
{
	struct schema_box *b;
	char why[256], *copy;
	int err;

	*out = NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return tl_err(-ENOMEM, "out of memory parsing a schema");
	tl_arena_init(&b->arena, 4096);
	copy = tl_arena_strndup(&b->arena, text, strlen(text));
	err = copy ? tl_schema_parse_arena(&b->arena, copy, &b->s, why, sizeof(why)) : -ENOMEM;
	if (err) {
		tl_arena_free(&b->arena);
		free(b);
		if (err == -ENOMEM)
			return tl_err(err, "out of memory parsing a schema");
		return tl_err(err, "schema '%s': %s", text, why);
	}
	*out = &b->s;
	return 0;
}

void tl_schema_free(struct tl_schema *s)
{
	struct schema_box *b = (struct schema_box *)s;

	if (!b)
		return;
	tl_arena_free(&b->arena);
	free(b);
}

/* ------------------------------------------------------------------ literals */

enum tl_lit tl_literal_parse(const char *s, size_t len, struct tl_literal *o)
{
	const char *e = s + len, *p;
	char buf[128], *end;

	trim(&s, &e);
	memset(o, 0, sizeof(*o));
	o->s = s;
	o->len = (size_t)(e - s);
	len = o->len;
	if (!len)
		return o->kind = TL_LIT_BAD;
#define IS(w) (len == sizeof(w) - 1 && !memcmp(s, w, len))
	if (IS("None"))
		return o->kind = TL_LIT_NONE;
	if (IS("True") || IS("true") || IS("False") || IS("false")) {
		o->b = *s == 'T' || *s == 't';
		return o->kind = TL_LIT_BOOL;
	}
#undef IS
	if ((*s == '"' || *s == '\'') && len >= 2 && e[-1] == *s)
		return o->kind = TL_LIT_STR;
	if ((*s == '[' && e[-1] == ']') || (*s == '(' && e[-1] == ')'))
		return o->kind = TL_LIT_LIST;
	if (len >= sizeof(buf))
		return o->kind = TL_LIT_BAD;
	memcpy(buf, s, len);
	buf[len] = 0;
	p = buf + (*buf == '-' || *buf == '+');
	if (*p && strspn(p, "0123456789") == strlen(p)) {
		errno = 0;
		o->i = strtoll(buf, NULL, 10);
		o->i_big = errno == ERANGE;
		o->d = strtod(buf, NULL);
		return o->kind = TL_LIT_INT;
	}
	o->d = strtod(buf, &end);
	if (end == buf + len && !isspace((unsigned char)*buf))
		return o->kind = TL_LIT_FLOAT;
	if (is_ident(s, e))
		return o->kind = TL_LIT_NAME;
	return o->kind = TL_LIT_BAD;
}

int tl_literal_items(const char *s, size_t len, bool (*fn)(const char *item, size_t n, void *ctx),
		     void *ctx)
{
	const char *e = s + len, *p;
	int n = 0;

	trim(&s, &e);
	if (e - s < 2 || !((*s == '[' && e[-1] == ']') || (*s == '(' && e[-1] == ')')))
		return -1;
	for (p = s + 1, e--; p <= e;) {
		const char *is = p, *ie = find_top(p, e, ',');

		if (!ie)
			ie = e;
		p = ie + 1;
		trim(&is, &ie);
		if (is == ie) {
			if (p > e)
				break;	/* "[]", or a trailing comma: "(1,)" */
			return -1;
		}
		if (!fn(is, (size_t)(ie - is), ctx))
			return -1;
		n++;
	}
	return n;
}

char *tl_schema_unquote(const char *s, size_t len)
{
	const char *e = s + len;
	char *out, *o;

	trim(&s, &e);
	if (e - s < 2 || (*s != '"' && *s != '\'') || e[-1] != *s)
		return NULL;
	s++;
	e--;
	out = o = malloc((size_t)(e - s) + 1);
	if (!out)
		return NULL;
	for (; s < e; s++) {
		if (*s != '\\' || s + 1 == e) {
			*o++ = *s;
			continue;
		}
		switch (*++s) {
		case 'n': *o++ = '\n'; break;
		case 't': *o++ = '\t'; break;
		case 'r': *o++ = '\r'; break;
		case 'f': *o++ = '\f'; break;
		case 'v': *o++ = '\v'; break;
		case '0': *o++ = '\0'; break;
		default: *o++ = *s; break;	/* \" \' \\ and anything else: the char */
		}
	}
	*o = 0;
	return out;
}

static const struct {
	enum tl_arg_kind kind;
	const char *name;
	int code;
} enum_names[] = {
	/* c10/core/ScalarType.h order; both the c10 and the Python names */
	{ TL_ARG_SCALARTYPE, "uint8", 0 },	{ TL_ARG_SCALARTYPE, "byte", 0 },
	{ TL_ARG_SCALARTYPE, "int8", 1 },	{ TL_ARG_SCALARTYPE, "char", 1 },
	{ TL_ARG_SCALARTYPE, "int16", 2 },	{ TL_ARG_SCALARTYPE, "short", 2 },
	{ TL_ARG_SCALARTYPE, "int32", 3 },	{ TL_ARG_SCALARTYPE, "int", 3 },
	{ TL_ARG_SCALARTYPE, "int64", 4 },	{ TL_ARG_SCALARTYPE, "long", 4 },
	{ TL_ARG_SCALARTYPE, "float16", 5 },	{ TL_ARG_SCALARTYPE, "half", 5 },
	{ TL_ARG_SCALARTYPE, "float32", 6 },	{ TL_ARG_SCALARTYPE, "float", 6 },
	{ TL_ARG_SCALARTYPE, "float64", 7 },	{ TL_ARG_SCALARTYPE, "double", 7 },
	{ TL_ARG_SCALARTYPE, "complexhalf", 8 }, { TL_ARG_SCALARTYPE, "complex32", 8 },
	{ TL_ARG_SCALARTYPE, "complexfloat", 9 }, { TL_ARG_SCALARTYPE, "complex64", 9 },
	{ TL_ARG_SCALARTYPE, "cfloat", 9 },	{ TL_ARG_SCALARTYPE, "complexdouble", 10 },
	{ TL_ARG_SCALARTYPE, "complex128", 10 }, { TL_ARG_SCALARTYPE, "cdouble", 10 },
	{ TL_ARG_SCALARTYPE, "bool", 11 },	{ TL_ARG_SCALARTYPE, "bfloat16", 15 },
	/* c10/core/Layout.h */
	{ TL_ARG_LAYOUT, "strided", 0 },	{ TL_ARG_LAYOUT, "sparse_coo", 1 },
	{ TL_ARG_LAYOUT, "sparse", 1 },		{ TL_ARG_LAYOUT, "sparse_csr", 2 },
	{ TL_ARG_LAYOUT, "mkldnn", 3 },		{ TL_ARG_LAYOUT, "_mkldnn", 3 },
	{ TL_ARG_LAYOUT, "sparse_csc", 4 },	{ TL_ARG_LAYOUT, "sparse_bsr", 5 },
	{ TL_ARG_LAYOUT, "sparse_bsc", 6 },	{ TL_ARG_LAYOUT, "jagged", 7 },
	/* c10/core/MemoryFormat.h */
	{ TL_ARG_MEMFMT, "contiguous_format", 0 }, { TL_ARG_MEMFMT, "contiguous", 0 },
	{ TL_ARG_MEMFMT, "preserve_format", 1 }, { TL_ARG_MEMFMT, "preserve", 1 },
	{ TL_ARG_MEMFMT, "channels_last", 2 },	{ TL_ARG_MEMFMT, "channelslast", 2 },
	{ TL_ARG_MEMFMT, "channels_last_3d", 3 }, { TL_ARG_MEMFMT, "channelslast3d", 3 },
};

int tl_schema_enum_code(enum tl_arg_kind kind, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < TL_ARRAY_SIZE(enum_names); i++)
		if (enum_names[i].kind == kind && strlen(enum_names[i].name) == len &&
		    !strncasecmp(enum_names[i].name, name, len))
			return enum_names[i].code;
	return -1;
}

cJSON *tl_json_int(long long v)
{
	char buf[32];

	/* doubles hold integers exactly up to 2^53; beyond, print the digits */
	if (v >= -(1LL << 53) && v <= (1LL << 53))
		return cJSON_CreateNumber((double)v);
	snprintf(buf, sizeof(buf), "%lld", v);
	return cJSON_CreateRaw(buf);
}

cJSON *tl_json_float(double d)
{
	char buf[64];
	int prec;

	if (isnan(d))
		return cJSON_CreateNull();
	if (isinf(d))
		d = d > 0 ? DBL_MAX : -DBL_MAX;
	/* cJSON prints "%1.15g" when that reads back about right: keep a number
	 * when it reads back exactly and still looks like a float */
	snprintf(buf, sizeof(buf), "%1.15g", d);
	if (strtod(buf, NULL) == d && strpbrk(buf, ".e"))
		return cJSON_CreateNumber(d);
	/* else the shortest exact text, with a point so that Python reads a
	 * float (an integral float Scalar must not become an int: promotion) */
	for (prec = 16; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	if (!strpbrk(buf, ".e"))
		strcat(buf, ".0");
	return cJSON_CreateRaw(buf);
}

static cJSON *int_of(const struct tl_literal *l)
{
	char buf[64];

	if (!l->i_big)
		return tl_json_int(l->i);
	snprintf(buf, sizeof(buf), "%.*s", (int)l->len, l->s);
	return cJSON_CreateRaw(buf[0] == '+' ? buf + 1 : buf);
}

/* Value of one literal for an element of kind @k; NULL if it does not fit
 * (*nomem tells ENOMEM apart). */
static cJSON *elem_json(enum tl_arg_kind k, bool may_be_none, const struct tl_literal *l,
			bool *exact, bool *nomem)
{
	cJSON *v = NULL;
	bool fit = false;
	char *str;
	int code;

	if (l->kind == TL_LIT_NONE) {
		fit = may_be_none;
		v = fit ? cJSON_CreateNull() : NULL;
		goto out;
	}
	switch (k) {
	case TL_ARG_INT:
	case TL_ARG_SYMINT:
		if ((fit = l->kind == TL_LIT_INT))
			v = int_of(l);
		break;
	case TL_ARG_FLOAT:
	case TL_ARG_COMPLEX:
		if ((fit = l->kind == TL_LIT_INT || l->kind == TL_LIT_FLOAT)) {
			*exact &= l->kind == TL_LIT_FLOAT && k == TL_ARG_FLOAT;
			v = tl_json_float(l->d);
		}
		break;
	case TL_ARG_SCALAR:
		fit = true;
		if (l->kind == TL_LIT_INT) {
			v = int_of(l);
		} else if (l->kind == TL_LIT_FLOAT) {
			v = tl_json_float(l->d);
		} else if (l->kind == TL_LIT_BOOL) {
			*exact = false;
			v = cJSON_CreateBool(l->b);
		} else {
			fit = false;
		}
		break;
	case TL_ARG_BOOL:
		if (l->kind == TL_LIT_BOOL) {
			fit = true;
			v = cJSON_CreateBool(l->b);
		} else if (l->kind == TL_LIT_INT && !l->i_big && (l->i == 0 || l->i == 1)) {
			fit = true;
			*exact = false;
			v = cJSON_CreateBool(l->i != 0);
		}
		break;
	case TL_ARG_STR:
	case TL_ARG_DEVICE:
		if (!(fit = l->kind == TL_LIT_STR))
			break;
		str = tl_schema_unquote(l->s, l->len);
		v = str ? cJSON_CreateString(str) : NULL;
		free(str);
		break;
	case TL_ARG_SCALARTYPE:
	case TL_ARG_LAYOUT:
	case TL_ARG_MEMFMT:
		if (l->kind == TL_LIT_INT && !l->i_big && l->i >= 0 && l->i < 64) {
			fit = true;
			v = tl_json_int(l->i);
		} else if (l->kind == TL_LIT_NAME && (code = tl_schema_enum_code(k, l->s, l->len)) >= 0) {
			fit = true;
			v = tl_json_int(code);
		}
		break;
	default:
		break;
	}
out:
	if (fit && !v)
		*nomem = true;
	return v;
}

struct items_ctx {
	const struct tl_schema_arg *a;
	cJSON *arr;
	bool *exact, *nomem;
};

static bool item_cb(const char *s, size_t n, void *p)
{
	struct items_ctx *c = p;
	struct tl_literal l;
	cJSON *v;

	tl_literal_parse(s, n, &l);
	v = elem_json(c->a->kind, c->a->elem_optional, &l, c->exact, c->nomem);
	if (!v)
		return false;
	cJSON_AddItemToArray(c->arr, v);
	return true;
}

cJSON *tl_literal_json(const struct tl_schema_arg *a, const char *s, size_t len, bool *exact,
		       bool *nomem)
{
	struct tl_literal l;
	cJSON *arr, *v;
	int i, n;

	*nomem = false;
	tl_literal_parse(s, len, &l);
	if (l.kind == TL_LIT_NONE) {
		if (!a->optional)
			return NULL;
		v = cJSON_CreateNull();
		*nomem = !v;
		return v;
	}
	if (!a->is_list)
		return elem_json(a->kind, false, &l, exact, nomem);
	arr = cJSON_CreateArray();
	if (!arr) {
		*nomem = true;
		return NULL;
	}
	if (l.kind == TL_LIT_LIST) {
		struct items_ctx c = { a, arr, exact, nomem };

		if (tl_literal_items(l.s, l.len, item_cb, &c) < 0)
			goto fail;
		return arr;
	}
	/* a bare scalar for a list: int[2] stride=1 means [1, 1] */
	n = a->list_size > 0 ? a->list_size : 1;
	*exact = false;
	for (i = 0; i < n; i++) {
		v = elem_json(a->kind, false, &l, exact, nomem);
		if (!v)
			goto fail;
		cJSON_AddItemToArray(arr, v);
	}
	return arr;
fail:
	cJSON_Delete(arr);
	return NULL;
}

cJSON *tl_schema_default_json(const struct tl_schema_arg *a)
{
	bool exact = true, nomem;

	if (!a->has_default)
		return NULL;
	return tl_literal_json(a, a->default_text, strlen(a->default_text), &exact, &nomem);
}

/* ------------------------------------------------------------------ database */

static int cmp_by_name(const void *x, const void *y)
{
	const struct tl_schema *a = *(const struct tl_schema *const *)x;
	const struct tl_schema *b = *(const struct tl_schema *const *)y;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return (a->index > b->index) - (a->index < b->index);
}

int tl_schema_db_from_strings(const char *const *schemas, size_t n, const char *label,
			      struct tl_schema_db **out)
{
	struct tl_schema_db *db;
	char why[256];
	size_t i;
	int err = -ENOMEM;

	*out = NULL;
	db = calloc(1, sizeof(*db));
	if (!db)
		return tl_err(-ENOMEM, "out of memory loading schemas");
	tl_arena_init(&db->arena, 1 << 16);
	if (tl_strtab_init(&db->texts))
		goto fail;
	db->label = strdup(label ? label : "schemas");
	db->v = calloc(n ? n : 1, sizeof(*db->v));
	if (!db->label || !db->v)
		goto fail;
	for (i = 0; i < n; i++) {
		const char *s = schemas[i];
		size_t before = db->texts.n;
		uint32_t id;

		if (!s || !*s) {
			db->skipped++;
			continue;
		}
		id = tl_strtab_intern(&db->texts, s, strlen(s));
		if (id == UINT32_MAX)
			goto fail;
		if (db->texts.n == before)
			continue;	/* a duplicate keeps its first position */
		err = tl_schema_parse_arena(&db->arena, tl_strtab_get(&db->texts, id), &db->v[db->n],
					    why, sizeof(why));
		if (err == -ENOMEM)
			goto fail;
		if (err) {
			db->skipped++;
			tl_log(TL_LOG_DEBUG, "%s: schema %zu skipped (%s): %s", db->label, i, why, s);
			continue;
		}
		db->v[db->n].index = db->n;
		db->n++;
	}
	db->by_name = malloc((db->n ? db->n : 1) * sizeof(*db->by_name));
	if (!db->by_name)
		goto fail;
	for (i = 0; i < db->n; i++)
		db->by_name[i] = &db->v[i];
	tl_qsort(db->by_name, db->n, sizeof(*db->by_name), cmp_by_name);
	*out = db;
	return 0;
fail:
	tl_schema_db_free(db);
	return tl_err(-ENOMEM, "out of memory loading schemas");
}

int tl_schema_db_load(const char *path, struct tl_schema_db **out)
{
	char *text;
	size_t len;
	cJSON *doc = NULL, *list, *it, *ver;
	const char **strs = NULL;
	char label[256];
	size_t n = 0;
	int err;

	*out = NULL;
	/* gzip (the bundled snapshots) or plain; a pipe too (--schemas <(...)) */
	err = tl_input_read(path, "a schema snapshot", TL_INPUT_PIPE | TL_INPUT_GUNZIP, 0, &text, &len);
	if (err)
		return err;
	doc = cJSON_ParseWithLength(text, len);
	if (!doc) {
		err = tl_err(-EBADMSG, "%s: not a schema snapshot: the JSON does not parse", path);
		goto out;
	}
	list = cJSON_IsArray(doc) ? doc : cJSON_GetObjectItemCaseSensitive(doc, "schemas");
	if (!cJSON_IsArray(list)) {
		err = tl_err(-EBADMSG, "%s: not a schema snapshot: no \"schemas\" list", path);
		goto out;
	}
	strs = malloc(((size_t)cJSON_GetArraySize(list) + 1) * sizeof(*strs));
	if (!strs) {
		err = tl_err(-ENOMEM, "%s: out of memory", path);
		goto out;
	}
	cJSON_ArrayForEach(it, list) {
		if (!cJSON_IsString(it)) {
			err = tl_err(-EBADMSG, "%s: not a schema snapshot: schemas[%zu] is not a string",
				     path, n);
			goto out;
		}
		strs[n++] = it->valuestring;
	}
	ver = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "torch") : NULL;
	if (cJSON_IsString(ver))
		snprintf(label, sizeof(label), "torch %s", ver->valuestring);
	else
		snprintf(label, sizeof(label), "%s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	err = tl_schema_db_from_strings(strs, n, label, out);
	if (!err && (*out)->skipped)
		tl_log(TL_LOG_DEBUG, "%s: %zu of %zu schemas did not parse", path, (*out)->skipped, n);
out:
	free(strs);
	cJSON_Delete(doc);
	free(text);
	return err;
}

void tl_schema_db_free(struct tl_schema_db *db)
{
	if (!db)
		return;
	tl_arena_free(&db->arena);
	tl_strtab_free(&db->texts);
	free(db->label);
	free(db->v);
	free(db->by_name);
	free(db);
}

const char *tl_schema_db_label(const struct tl_schema_db *db)
{
	return db ? db->label : "";
}

size_t tl_schema_db_count(const struct tl_schema_db *db)
{
	return db ? db->n : 0;
}

size_t tl_schema_db_skipped(const struct tl_schema_db *db)
{
	return db ? db->skipped : 0;
}

const struct tl_schema *tl_schema_db_at(const struct tl_schema_db *db, size_t i)
{
	return db && i < db->n ? &db->v[i] : NULL;
}

size_t tl_schema_db_find(const struct tl_schema_db *db, const char *name,
			 const struct tl_schema *const **out)
{
	size_t lo = 0, hi, end;

	if (!db || !name)
		return 0;
	hi = db->n;
	while (lo < hi) {	/* first entry >= name */
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(db->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < db->n && !strcmp(db->by_name[end]->name, name); end++)
		;
	if (end > lo)
		*out = db->by_name + lo;
	return end - lo;
}
