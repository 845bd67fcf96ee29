/* SPDX-License-Identifier: MIT */
/* Operator schemas and IR entries: the parser on tricky strings of both torch
 * styles, a round trip of every schema of the torch 1.13 snapshot, and
 * overload matching on small hand-written traces. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <tlreplay/tlreplay.h>

#include "ir/ir_internal.h"
#define TRACE_FIXTURE_SINGLE_QUOTES
#include "trace_fixture.h"

static struct tl_schema_db *db;

/* ------------------------------------------------------------------ helpers */

static const struct tl_schema_arg *sarg(const struct tl_schema *s, const char *name)
{
	size_t i;

	for (i = 0; s && i < s->nargs; i++)
		if (!strcmp(s->args[i].name, name))
			return &s->args[i];
	return NULL;
}



/* A cpu_op with the four recorded-argument lists. */
#define OP(name, ts, dur, types, dims, strides, conc)                                          \
	"{'ph':'X','cat':'cpu_op','name':'" name "','pid':1,'tid':1,'ts':" #ts ",'dur':" #dur \
	",'args':{'Input type':[" types "],'Input Dims':[" dims "],'Input Strides':[" strides \
	"],'Concrete Inputs':[" conc "]}}"
#define RT(ts, corr)                                                                           \
	"{'ph':'X','cat':'cuda_runtime','name':'cudaLaunchKernel','pid':1,'tid':1,'ts':" #ts   \
	",'dur':1,'args':{'correlation':" #corr "}}"
#define KN(name, ts, dur, corr)                                                                \
	"{'ph':'X','cat':'kernel','name':'" name "','pid':0,'tid':7,'ts':" #ts ",'dur':" #dur  \
	",'args':{'correlation':" #corr ",'stream':7,'device':0,'grid':[4,1,1],'block':[128,1,1]}}"
#define FS(corr, ts) "{'ph':'s','cat':'ac2g','name':'ac2g','id':" #corr ",'pid':1,'tid':1,'ts':" #ts "}"
#define FF(corr, ts) "{'ph':'f','cat':'ac2g','name':'ac2g','bp':'e','id':" #corr ",'pid':0,'tid':7,'ts':" #ts "}"

static cJSON *entry_of(struct tl_trace *tr, uint64_t uid, const struct tl_schema_db *d, bool schemaless,
		       int *err)
{
	struct tl_ir_opts o = { .sz = sizeof(o), .db = d, .allow_schemaless = schemaless };
	cJSON *e = NULL;

	*err = tl_ir_entry(tr, uid, &o, &e);
	if (*err)
		diag("uid %llu: %d %s", (unsigned long long)uid, *err, tl_last_error());
	return e;
}

static const cJSON *arg_in(const cJSON *e, const char *name, const char *list)
{
	const cJSON *ir = cJSON_GetObjectItemCaseSensitive(e, "replay_ir"), *a;

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(ir, list)) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(a, "arg_name");

		if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
			return a;
	}
	return NULL;
}

static const cJSON *arg_of(const cJSON *e, const char *name)
{
	const cJSON *a = arg_in(e, name, "list_pos_args");

	return a ? a : arg_in(e, name, "list_kwargs");
}

/* Printed JSON of @item (unformatted), in a static ring of buffers. */
static const char *js(const cJSON *item)
{
	static char ring[8][2048];
	static int k;
	char *s = item ? cJSON_PrintUnformatted(item) : NULL;
	char *out = ring[k++ % 8];

	snprintf(out, sizeof(ring[0]), "%s", s ? s : "(none)");
	free(s);
	return out;
}

static const char *val(const cJSON *e, const char *name)
{
	return js(cJSON_GetObjectItemCaseSensitive(arg_of(e, name), "value"));
}

static const char *key(const cJSON *o, const char *k)
{
	return js(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* The typed default of argument @name as JSON text. */
static const char *dflt(const struct tl_schema *s, const char *name)
{
	const struct tl_schema_arg *a = sarg(s, name);
	cJSON *v = a ? tl_schema_default_json(a) : NULL;
	const char *r = js(v);

	cJSON_Delete(v);
	return r;
}

/* ------------------------------------------------------------------ parser */

static struct tl_schema *parse(const char *text)
{
	struct tl_schema *s = NULL;

	if (tl_schema_parse(text, &s))
		diag("parse failed: %s", tl_last_error());
	return s;
}

static void test_parse_basic(void)
{
	struct tl_schema *s = parse("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
	const struct tl_schema_arg *a;

	ok(s && !strcmp(s->name, "aten::add") && !strcmp(s->overload, "Tensor"), "name and overload");
	ok(s && s->nargs == 3 && s->npos == 2 && s->nreturns == 1, "3 args, 2 positional, 1 return");
	a = sarg(s, "alpha");
	ok(a && a->kwarg_only && a->kind == TL_ARG_SCALAR && a->has_default &&
	   !strcmp(a->default_text, "1") && !strcmp(dflt(s, "alpha"), "1"),
	   "alpha: keyword-only Scalar, default 1 (an integer)");
	tl_schema_free(s);

	s = parse("aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor");
	ok(s && !strcmp(s->overload, "") && s->npos == 3 && s->nargs == 5, "default overload is \"\"");
	tl_schema_free(s);
}

static void test_parse_lists(void)
{
	/* torch 2.x prints list defaults as lists, torch 1.13 as a bare int */
	struct tl_schema *s2 = parse("aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, "
				     "SymInt[2] stride=[1, 1], SymInt[2] padding=[0, 0], "
				     "SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor");
	struct tl_schema *s1 = parse("aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, "
				     "int[2] stride=1, int[2] padding=0, int[2] dilation=1, int groups=1) -> Tensor");
	const struct tl_schema_arg *a;

	ok(s2 && s2->nargs == 7 && s1 && s1->nargs == 7, "conv2d: 7 args in both styles");
	a = sarg(s2, "stride");
	ok(a && a->is_list && a->list_size == 2 && a->kind == TL_ARG_SYMINT &&
	   !strcmp(a->type, "SymInt[2]") && !strcmp(a->default_text, "[1, 1]"),
	   "SymInt[2] stride=[1, 1]: list of 2, default text kept");
	ok(!strcmp(dflt(s2, "stride"), "[1,1]") && !strcmp(dflt(s1, "stride"), "[1,1]") &&
	   !strcmp(dflt(s1, "padding"), "[0,0]"), "int[2] stride=1 means [1, 1] too");
	a = sarg(s2, "bias");
	ok(a && a->optional && a->kind == TL_ARG_TENSOR && !strcmp(dflt(s2, "bias"), "null"),
	   "Tensor? bias=None: optional, default null");
	a = sarg(s2, "groups");
	ok(a && a->kind == TL_ARG_SYMINT && !a->is_list, "SymInt groups");
	tl_schema_free(s1);
	tl_schema_free(s2);

	s1 = parse("aten::linalg_matrix_norm.str_ord(Tensor self, str ord=\"fro\", int[] dim=[-2, -1], "
		   "bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
	ok(s1 && s1->nargs == 5 && !strcmp(dflt(s1, "dim"), "[-2,-1]") && !strcmp(dflt(s1, "ord"), "\"fro\"") &&
	   !strcmp(dflt(s1, "keepdim"), "false"), "defaults with commas and quotes: [-2, -1], \"fro\", False");
	tl_schema_free(s1);

	s1 = parse("aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
		   "int[2] dilation=1, bool ceil_mode=False) -> Tensor");
	ok(s1 && !strcmp(dflt(s1, "stride"), "[]") && !strcmp(dflt(s1, "dilation"), "[1,1]"),
	   "int[2] stride=[] is an empty list");
	tl_schema_free(s1);

	s1 = parse("aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)");
	a = sarg(s1, "size");
	ok(a && a->is_list && a->list_size == 0 && a->kind == TL_ARG_SYMINT && !a->optional, "SymInt[]");
	tl_schema_free(s1);

	s1 = parse("aten::len.t(t[] a) -> int");
	a = sarg(s1, "a");
	ok(a && a->is_list && a->kind == TL_ARG_OTHER && !strcmp(a->base, "t"), "t[]: a generic list");
	tl_schema_free(s1);

	s1 = parse("aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor");
	a = sarg(s1, "indices");
	ok(a && a->is_list && a->elem_optional && !a->optional && !strcmp(a->type, "Tensor?[]"),
	   "Tensor?[]: a list of optional tensors, not an optional list");
	tl_schema_free(s1);

	s1 = parse("aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
	a = sarg(s1, "dim");
	ok(a && a->is_list && a->optional && a->list_size == 1 && !a->elem_optional, "int[1]?: an optional list");
	tl_schema_free(s1);
}

static void test_parse_alias(void)
{
	struct tl_schema *s = parse("_C_cache_ops::reshape_and_cache(Tensor key, Tensor value, "
				    "Tensor($0! -> ) key_cache, Tensor($1! -> ) value_cache, "
				    "Tensor slot_mapping, str kv_cache_dtype, Tensor k_scale, Tensor v_scale) -> ()");
	const struct tl_schema_arg *a = sarg(s, "key_cache");

	ok(s && s->nargs == 8 && s->nreturns == 0, "vLLM reshape_and_cache: 8 args, returns ()");
	ok(a && a->alias && a->is_mutable && !strcmp(a->alias_set, "$0") && !strcmp(a->type, "Tensor($0! -> )") &&
	   a->kind == TL_ARG_TENSOR, "Tensor($0! -> ) key_cache: written, alias set $0");
	a = sarg(s, "kv_cache_dtype");
	ok(a && a->kind == TL_ARG_STR && !a->has_default, "str kv_cache_dtype");
	tl_schema_free(s);

	s = parse("aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]");
	a = sarg(s, "self");
	ok(a && a->alias && !a->is_mutable && !strcmp(a->type, "Tensor(a -> *)") && !strcmp(a->alias_set, "a") &&
	   !strcmp(s->returns, "Tensor(a)[]"), "Tensor(a -> *): aliased, not written");
	tl_schema_free(s);

	s = parse("aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()");
	a = sarg(s, "self");
	ok(a && a->is_list && a->is_mutable && a->kind == TL_ARG_TENSOR && !strcmp(a->type, "Tensor(a!)[]"),
	   "Tensor(a!)[]: a written list");
	tl_schema_free(s);

	s = parse("aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
	ok(s && sarg(s, "self")->is_mutable && !strcmp(s->returns, "Tensor(a!)") && s->nreturns == 1,
	   "returns Tensor(a!)");
	tl_schema_free(s);

	s = parse("aten::append.t(t[](a!) self, t(c -> *) el) -> t[](a!)");
	a = sarg(s, "self");
	ok(a && a->is_list && a->is_mutable && a->kind == TL_ARG_OTHER, "t[](a!): annotation after the list");
	tl_schema_free(s);
}

static void test_parse_defaults(void)
{
	struct tl_schema *s = parse("aten::gelu(Tensor self, *, str approximate=\"none\") -> Tensor");

	ok(s && !strcmp(sarg(s, "approximate")->default_text, "\"none\"") &&
	   !strcmp(dflt(s, "approximate"), "\"none\""), "str approximate=\"none\"");
	tl_schema_free(s);

	s = parse("aten::foo(Tensor self, str reduction='mean', float eps=1e-05, float rtol=1.0000000000000001e-05, "
		  "int ignore_index=-100, bool flag=True, float? value=None, float p=0., "
		  "MemoryFormat memory_format=contiguous_format, ScalarType dtype=long, Layout layout=strided, "
		  "Scalar big=9223372036854775807) -> (Tensor, Tensor)");
	ok(s && s->nargs == 12 && s->nreturns == 2, "12 args, 2 returns");
	ok(!strcmp(dflt(s, "reduction"), "\"mean\""), "'mean' in single quotes");
	ok(!strcmp(dflt(s, "eps"), "1e-05") && !strcmp(dflt(s, "rtol"), "1e-05"),
	   "1e-05 and 1.0000000000000001e-05: the same double, printed shortest");
	ok(!strcmp(dflt(s, "ignore_index"), "-100") && !strcmp(dflt(s, "flag"), "true") &&
	   !strcmp(dflt(s, "value"), "null"), "-100, True, None");
	ok(!strcmp(dflt(s, "p"), "0.0"), "0. stays a float: 0.0 (got %s)", dflt(s, "p"));
	ok(!strcmp(dflt(s, "memory_format"), "0") && !strcmp(dflt(s, "dtype"), "4") &&
	   !strcmp(dflt(s, "layout"), "0"), "contiguous_format, long, strided: c10 codes 0, 4, 0");
	ok(!strcmp(dflt(s, "big"), "9223372036854775807"), "an int64 beyond 2^53 printed exactly (%s)",
	   dflt(s, "big"));
	tl_schema_free(s);

	s = parse("aten::_test_string_default(Tensor dummy, str a=\"\\\"\\'\\\\\", str b='\"\\'\\\\') -> Tensor");
	ok(s && s->nargs == 3 && !strcmp(dflt(s, "a"), "\"\\\"'\\\\\"") && !strcmp(dflt(s, "b"), "\"\\\"'\\\\\""),
	   "escaped quotes and backslashes in defaults (%s)", s ? dflt(s, "a") : "");
	tl_schema_free(s);

	s = parse("aten::strip(str self, str chars=\" \\n\\t\\f\\v\") -> str");
	ok(s && !strcmp(dflt(s, "chars"), "\" \\n\\t\\f\\u000b\""), "C escapes decoded (%s)",
	   s ? dflt(s, "chars") : "");
	tl_schema_free(s);
}

static void test_parse_odd(void)
{
	struct tl_schema *s = parse("prim::ChunkSizes(...) -> ...");
	const struct tl_schema_arg *a;

	ok(s && s->varargs && s->nargs == 0 && s->nreturns == -1, "(...) -> ...");
	tl_schema_free(s);
	s = parse("aten::format(str self, ...) -> str");
	ok(s && s->varargs && s->nargs == 1, "varargs after an argument");
	tl_schema_free(s);
	s = parse("aten::dict.str((str, tVal)[] inputs) -> Dict(str, tVal)");
	a = sarg(s, "inputs");
	ok(a && a->is_list && a->kind == TL_ARG_OTHER && !strcmp(a->type, "(str, tVal)[]"), "tuple element type");
	tl_schema_free(s);
	s = parse("aten::update.str(Dict(str, t)(a!) self, Dict(str, t)(a!) to_add) -> ()");
	a = sarg(s, "self");
	ok(a && !strcmp(a->base, "Dict") && a->is_mutable && a->kind == TL_ARG_OTHER, "Dict(str, t)(a!)");
	tl_schema_free(s);
	s = parse("aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
	ok(s && s->nreturns == 2, "named returns");
	tl_schema_free(s);
	s = parse("profiler::_record_function_enter_new(str name, str? args=None) -> "
		  "__torch__.torch.classes.profiler._RecordFunction");
	ok(s && s->nargs == 2 && sarg(s, "args")->optional, "class return type");
	tl_schema_free(s);
	s = parse("aten::zeros() -> Tensor");
	ok(s && s->nargs == 0, "no arguments");
	tl_schema_free(s);
}

static void test_parse_errors(void)
{
	static const char *const bad[] = {
		"aten::foo(Tensor self -> Tensor",
		"aten::foo(Tensor) -> Tensor",
		"garbage",
		"aten::foo(Tensor self)",
		"aten::foo(Tensor self, , int x) -> Tensor",
		"aten::foo(Tensor self, *, *, int x) -> Tensor",
		"aten::foo(Tensor self=) -> Tensor",
		"aten::foo(Tensor[2 self) -> Tensor",
		"aten::foo(Tensor self) -> ",
		"aten:: foo bar(Tensor self) -> Tensor",
		"(Tensor self) -> Tensor",
		"aten::foo(Tensor(a! self) -> Tensor",
		"aten::foo(Tensor 1x) -> Tensor",
		"",
		".str(str self) -> str",	/* no name (fuzz_schema) */
		"aten::.x(Tensor self) -> Tensor",
		"aten::(Tensor self) -> Tensor",
	};
	const char *mixed[] = { "aten::a(Tensor self) -> Tensor", "aten::b(Tensor) -> Tensor", "",
				"aten::a(Tensor self) -> Tensor", "aten::a.x(int y) -> int" };
	struct tl_schema_db *d = NULL;
	const struct tl_schema *const *c;
	struct tl_schema *s;
	size_t i, nbad = 0;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s = NULL;
		if (tl_schema_parse(bad[i], &s) == -EINVAL && !s && *tl_last_error())
			nbad++;
		else
			diag("accepted: '%s'", bad[i]);
		tl_schema_free(s);
	}
	ok(nbad == sizeof(bad) / sizeof(bad[0]), "%zu malformed schemas refused with -EINVAL", nbad);
	ok(tl_schema_db_from_strings(mixed, 5, "mixed", &d) == 0 && tl_schema_db_count(d) == 2 &&
	   tl_schema_db_skipped(d) == 2 && !strcmp(tl_schema_db_label(d), "mixed"),
	   "a database skips bad strings and duplicates");
	ok(tl_schema_db_find(d, "aten::a", &c) == 2 && !strcmp(c[0]->overload, "") &&
	   !strcmp(c[1]->overload, "x") && tl_schema_db_find(d, "aten::b", &c) == 0,
	   "lookup by name, overloads in registry order");
	tl_schema_db_free(d);
}

/* ------------------------------------------------------------------ snapshot */

/* Print a parsed schema back: it must give the string it came from. */
static void unparse(const struct tl_schema *s, char *buf, size_t n)
{
	size_t i, len = 0;
	bool star = false;

	len += (size_t)snprintf(buf + len, n - len, "%s%s%s(", s->name, *s->overload ? "." : "", s->overload);
	for (i = 0; i < s->nargs && len < n; i++) {
		const struct tl_schema_arg *a = &s->args[i];

		if (a->kwarg_only && !star) {
			len += (size_t)snprintf(buf + len, n - len, "%s*", i ? ", " : "");
			star = true;
		}
		len += (size_t)snprintf(buf + len, n - len, "%s%s %s%s%s", i || star ? ", " : "", a->type,
					a->name, a->has_default ? "=" : "",
					a->has_default ? a->default_text : "");
	}
	if (s->varargs && len < n)
		len += (size_t)snprintf(buf + len, n - len, "%s...", s->nargs ? ", " : "");
	if (len < n)
		snprintf(buf + len, n - len, ") -> %s", s->returns);
}

static void test_snapshot(void)
{
	size_t i, n = tl_schema_db_count(db), same = 0, named = 0;
	char buf[4096];

	ok(n > 4000 && tl_schema_db_skipped(db) == 0, "every schema of the snapshot parses (%zu, %zu skipped)",
	   n, tl_schema_db_skipped(db));
	for (i = 0; i < n; i++) {
		const struct tl_schema *s = tl_schema_db_at(db, i);
		const struct tl_schema *const *c;
		size_t k, nc;

		unparse(s, buf, sizeof(buf));
		if (!strcmp(buf, s->text))
			same++;
		else if (same + 5 > i)
			diag("round trip: '%s' -> '%s'", s->text, buf);
		nc = tl_schema_db_find(db, s->name, &c);
		for (k = 0; k < nc && c[k] != s; k++)
			;
		named += k < nc;
	}
	ok(same == n, "%zu of %zu schemas print back to their string (names, types, defaults, *)", same, n);
	ok(named == n, "every schema is found under its name (%zu)", named);
	diag("snapshot %s: %zu schemas", tl_schema_db_label(db), n);
}

/* ------------------------------------------------------------------ matching */

#define BF "'c10::BFloat16'"

static void test_addmm(void)
{
	struct tl_trace *tr = LOAD(OP("aten::addmm", 10, 20, BF "," BF "," BF ",'Scalar','Scalar'",
				      "[512],[141,512],[512,512],[],[]", "[1],[512,1],[1,512],[],[]",
				      "'','','','1','1'"),
				   RT(12, 5), FS(5, 12), KN("gemm", 40, 6, 5), FF(5, 40));
	const cJSON *ks;
	cJSON *e;
	int err;

	e = entry_of(tr, 0, db, false, &err);
	ok(e && !strcmp(key(e, "overload"), "\"\"") && strstr(key(e, "schema"), "aten::addmm(Tensor self"),
	   "addmm: default overload and its schema");
	ok(arg_in(e, "beta", "list_kwargs") && !strcmp(val(e, "beta"), "1") && !strcmp(val(e, "alpha"), "1"),
	   "beta/alpha in list_kwargs, integers (not 1.0)");
	ok(!strcmp(val(e, "mat2"),
		   "{\"shape\":[512,512],\"dtype\":\"c10::BFloat16\",\"strides\":[1,512],\"init\":\"normal\"}"),
	   "mat2: shape, dtype, strides, init normal (%s)", val(e, "mat2"));
	ks = cJSON_GetObjectItemCaseSensitive(e, "kernels");
	ok(cJSON_GetArraySize(ks) == 1 && !strcmp(key(ks->child, "grid"), "[4,1,1]") &&
	   !strcmp(key(ks->child, "block"), "[128,1,1]") && !strcmp(key(ks->child, "name"), "\"gemm\"") &&
	   !strcmp(key(e, "gpu_time_us"), "6"), "kernels with grid/block and gpu_time_us");
	ok(!strcmp(key(e, "uid"), "0") && !strcmp(key(e, "trace_dur_us"), "20") &&
	   !strcmp(key(cJSON_GetObjectItemCaseSensitive(e, "source"), "schemas"), "\"torch 1.13.0a0\"") &&
	   !strcmp(key(cJSON_GetObjectItemCaseSensitive(e, "source"), "trace"), "\"test\""),
	   "uid, trace_dur_us and source");
	cJSON_Delete(e);
	tl_trace_close(tr);
}

static void test_conv(void)
{
	struct tl_trace *tr = LOAD(
		OP("aten::conv2d", 0, 10, "'float','float','float','ScalarList','ScalarList','ScalarList','Scalar'",
		   "[1,3,8,8],[4,3,3,3],[4],[],[],[],[]", "[192,64,8,1],[27,9,3,1],[1],[],[],[],[]",
		   "'','','','[2, 2]','[1, 1]','[1, 1]','1'"),
		OP("aten::convolution", 20, 10,
		   "'float','float','','ScalarList','ScalarList','ScalarList','Scalar','ScalarList','Scalar'",
		   "[1,3,8,8],[4,3,3,3],[],[],[],[],[],[],[]", "[192,64,8,1],[27,9,3,1],[],[],[],[],[],[],[]",
		   "'','','','[1, 1]','[0, 0]','[1, 1]','False','[0, 0]','1'"),
		OP("aten::conv2d", 40, 10, "'float','float','','Scalar','ScalarList','ScalarList','Scalar'",
		   "[1,3,8,8],[4,3,3,3],[],[],[],[],[]", "[192,64,8,1],[27,9,3,1],[],[],[],[],[]",
		   "'','','','2','[0, 0]','[1, 1]','1'"));
	cJSON *e;
	int err;

	e = entry_of(tr, 0, db, false, &err);
	ok(e && !strcmp(key(e, "overload"), "\"\"") && !strcmp(val(e, "stride"), "[2,2]") &&
	   !strcmp(val(e, "groups"), "1"), "conv2d: int lists from ScalarList (not conv2d.padding)");
	cJSON_Delete(e);
	e = entry_of(tr, 1, db, false, &err);
	ok(e && !strcmp(val(e, "bias"), "null") && !strcmp(val(e, "transposed"), "false") &&
	   !strcmp(val(e, "output_padding"), "[0,0]") &&
	   !strcmp(key(arg_of(e, "stride"), "arg_type"), "\"int[]\""),
	   "convolution: None bias, bool, int[] values, types verbatim");
	cJSON_Delete(e);
	e = entry_of(tr, 2, db, false, &err);
	ok(e && !strcmp(val(e, "stride"), "[2,2]"), "a bare Scalar for an int[2] repeats: [2,2]");
	cJSON_Delete(e);
	tl_trace_close(tr);
}

static void test_add_overloads(void)
{
	struct tl_trace *tr = LOAD(
		OP("aten::add", 0, 1, "'float','float','Scalar'", "[4],[4],[]", "[1],[1],[]", "'','','1'"),
		OP("aten::add", 2, 1, "'float','Scalar','Scalar'", "[4],[],[]", "[1],[],[]", "'','2','1'"),
		OP("aten::add", 4, 1, "'float','Scalar','Scalar'", "[4],[],[]", "[1],[],[]", "'','0.5','2.'"),
		OP("aten::add", 6, 1, "'float','double','Scalar'", "[4],[],[]", "[1],[],[]", "'','','1'"),
		OP("aten::add_", 8, 1, "'float','float','Scalar'", "[4],[4],[]", "[1],[1],[]", "'','','1'"),
		OP("aten::add", 10, 1, "'float','float','Scalar','float'", "[4],[4],[],[4]", "[1],[1],[],[1]",
		   "'','','1',''"));
	cJSON *e;
	int err;

	e = entry_of(tr, 0, db, false, &err);
	ok(e && !strcmp(key(e, "overload"), "\"Tensor\""), "add(Tensor, Tensor): add.Tensor");
	cJSON_Delete(e);
	e = entry_of(tr, 1, db, false, &err);
	ok(e && !strcmp(key(e, "overload"), "\"Scalar\"") && !strcmp(val(e, "other"), "2"),
	   "add(Tensor, Scalar 2): add.Scalar, other an integer");
	cJSON_Delete(e);
	e = entry_of(tr, 2, db, false, &err);
	ok(e && !strcmp(val(e, "other"), "0.5") && !strcmp(val(e, "alpha"), "2.0"),
	   "float Scalars stay floats: 0.5 and 2. -> 2.0 (%s)", e ? val(e, "alpha") : "");
	cJSON_Delete(e);
	e = entry_of(tr, 3, db, false, &err);
	ok(e && !strcmp(key(e, "overload"), "\"Tensor\"") &&
	   !strcmp(val(e, "other"), "{\"shape\":[],\"dtype\":\"double\",\"strides\":[],\"init\":\"normal\"}"),
	   "a 0-d double tensor: add.Tensor with shape []");
	cJSON_Delete(e);
	e = entry_of(tr, 4, db, false, &err);
	ok(e && !strcmp(key(e, "overload"), "\"Tensor\"") &&
	   !strcmp(key(cJSON_GetObjectItemCaseSensitive(arg_of(e, "self"), "value"), "init"), "null") &&
	   !strcmp(key(cJSON_GetObjectItemCaseSensitive(arg_of(e, "other"), "value"), "init"), "\"normal\"") &&
	   !strcmp(key(arg_of(e, "self"), "arg_type"), "\"Tensor(a!)\""),
	   "add_: the in-place target is left uninitialised (init null)");
	cJSON_Delete(e);
	e = entry_of(tr, 5, db, false, &err);
	ok(e && !strcmp(key(e, "overload"), "\"out\"") && arg_in(e, "out", "list_kwargs") &&
	   !strcmp(key(cJSON_GetObjectItemCaseSensitive(arg_of(e, "out"), "value"), "init"), "null"),
	   "add.out: out is a keyword argument with init null");
	cJSON_Delete(e);
	tl_trace_close(tr);
}

static void test_str_and_enums(void)
{
	struct tl_trace *tr = LOAD(
		OP("aten::gelu", 0, 1, "'c10::BFloat16',''", "[2,8],[]", "[8,1],[]", "'',''"),
		OP("aten::to", 2, 1, "'float','Scalar','Scalar','Scalar',''", "[4],[],[],[],[]", "[1],[],[],[],[]",
		   "'','15','False','false',''"),
		OP("aten::empty", 4, 1, "'ScalarList','Scalar','Scalar','','',''", "[],[],[],[],[],[]",
		   "[],[],[],[],[],[]", "'[0]','15','0','','',''"),
		OP("aten::to", 6, 1, "'float','','Scalar','Scalar','Scalar',''", "[4],[],[],[],[],[]",
		   "[1],[],[],[],[],[]", "'','','6','False','true',''"),
		OP("aten::slice", 8, 1, "'long int','Scalar','Scalar','Scalar','Scalar'", "[1,512],[],[],[],[]",
		   "[512,1],[],[],[],[]", "'','0','0','9223372036854775807','1'"),
		OP("aten::masked_fill_", 10, 1, "'float','bool','Scalar'", "[4],[4],[]", "[1],[1],[]",
		   "'','','-inf'"),
		OP("aten::gelu", 12, 1, "'float'", "[4]", "[1]", "''"),
		OP("aten::sum", 14, 1, "'float',''", "[4],[]", "[1],[]", "'',''"));
	cJSON *e;
	int err;

	e = entry_of(tr, 0, db, false, &err);
	ok(e && !strcmp(val(e, "approximate"), "\"none\"") && arg_in(e, "approximate", "list_kwargs"),
	   "gelu: the dropped str takes the schema default \"none\"");
	cJSON_Delete(e);
	e = entry_of(tr, 1, db, false, &err);
	ok(e && !strcmp(key(e, "overload"), "\"dtype\"") && !strcmp(val(e, "dtype"), "15") &&
	   !strcmp(val(e, "non_blocking"), "false") && !strcmp(val(e, "copy"), "false") &&
	   !strcmp(val(e, "memory_format"), "null"),
	   "to: ScalarType code 15 stays an integer, False/false are booleans");
	cJSON_Delete(e);
	e = entry_of(tr, 2, db, false, &err);
	ok(e && !strcmp(key(e, "overload"), "\"memory_format\"") && !strcmp(val(e, "size"), "[0]") &&
	   !strcmp(val(e, "layout"), "0") && !strcmp(val(e, "device"), "null"),
	   "empty: Layout code, dropped Device is null");
	cJSON_Delete(e);
	e = entry_of(tr, 3, db, false, &err);
	ok(e && !strcmp(key(e, "overload"), "\"device\"") && !strcmp(val(e, "device"), "null") &&
	   !strcmp(val(e, "copy"), "true"), "to.device: a dropped Device matches loosely");
	cJSON_Delete(e);
	e = entry_of(tr, 4, db, false, &err);
	ok(e && !strcmp(val(e, "end"), "9223372036854775807"), "slice end INT64_MAX printed exactly");
	cJSON_Delete(e);
	e = entry_of(tr, 5, db, false, &err);
	ok(e && !strcmp(val(e, "value"), "-1.7976931348623157e+308") &&
	   !strcmp(key(arg_of(e, "value"), "tl_concrete"), "\"-inf\"") &&
	   !strcmp(key(cJSON_GetObjectItemCaseSensitive(arg_of(e, "mask"), "value"), "init"), "\"zeros\""),
	   "-inf: -DBL_MAX (JSON has no inf) with the text in tl_concrete; a bool mask inits zeros");
	cJSON_Delete(e);
	e = entry_of(tr, 6, db, false, &err);
	ok(e && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(e, "replay_ir"), "list_kwargs")) == 0 &&
	   !strcmp(key(e, "overload"), "\"\""),
	   "fewer recorded arguments: trailing defaults left out, only the recorded ones emitted");
	cJSON_Delete(e);
	e = entry_of(tr, 7, db, false, &err);
	ok(e && !strcmp(key(e, "overload"), "\"\"") && arg_in(e, "dtype", "list_kwargs"),
	   "sum(Tensor, None): the overload with exactly 2 arguments beats sum.dim_IntList");
	cJSON_Delete(e);
	tl_trace_close(tr);
}

static void test_lists(void)
{
	struct tl_trace *tr = LOAD(
		OP("aten::neg", 0, 1, BF, "[2,3]", "[3,1]", "''"),
		OP("aten::cat", 2, 1, "'TensorList','Scalar'", "[[2,3],[2,3]],[]", "[[3,1],[1,2]],[]", "'','-1'"),
		OP("aten::cat", 4, 1, "'TensorList','Scalar'", "[],[]", "[],[]", "'','0'"),
		OP("aten::index", 6, 1, "'float','TensorList'", "[5,7],[[3],[3]]", "[7,1],[[1],[1]]", "'',''"),
		OP("aten::index", 8, 1, "'float',''", "[5,7],[]", "[7,1],[]", "'',''"));
	const cJSON *v;
	cJSON *e;
	int err;

	e = entry_of(tr, 1, db, false, &err);
	v = cJSON_GetObjectItemCaseSensitive(arg_of(e, "tensors"), "value");
	ok(e && cJSON_GetArraySize(v) == 2 &&
	   !strcmp(js(cJSON_GetArrayItem(v, 1)),
		   "{\"shape\":[2,3],\"dtype\":\"c10::BFloat16\",\"strides\":[1,2],\"init\":\"normal\"}") &&
	   !strcmp(val(e, "dim"), "-1"),
	   "cat: a TensorList with per-element shapes and strides, dtype from the op that made them");
	cJSON_Delete(e);
	e = entry_of(tr, 2, db, false, &err);
	ok(!e && err == -EINVAL && strstr(tl_last_error(), "element shapes are not recorded"),
	   "cat without element shapes: -EINVAL saying so");
	e = entry_of(tr, 3, db, false, &err);
	v = cJSON_GetObjectItemCaseSensitive(arg_of(e, "indices"), "value");
	ok(e && cJSON_GetArraySize(v) == 2 && !strcmp(key(cJSON_GetArrayItem(v, 0), "dtype"), "\"long int\"") &&
	   !strcmp(key(arg_of(e, "indices"), "tl_init"), "{\"kind\":\"randint\",\"low\":0,\"high\":5}"),
	   "index with Tensor?[] elements: int64, randint below the smallest indexed size (%s)",
	   key(arg_of(e, "indices"), "tl_init"));
	cJSON_Delete(e);
	e = entry_of(tr, 4, db, false, &err);
	ok(!e && err == -EINVAL && strstr(tl_last_error(), "argument 1 'indices'") &&
	   strstr(tl_last_error(), "drops lists of optional tensors"),
	   "index with the list dropped: -EINVAL naming the argument");
	tl_trace_close(tr);
}

/* What the kernels say: a multi-tensor kernel's functor gives its TensorList's
 * element dtype (over the earlier op's float tensor of the same shape), and
 * says so in tl_dtype_from; kernels of two dtypes say nothing; a BUnaryFunctor
 * kernel makes the 0-d tensor operand a CPU scalar, built non-zero. */
#define MTA(T)                                                                                           \
	"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "      \
	"namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<" T \
	", 1, 1, 0>, std::multiplies<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<1>)"
#define FOREACH_MUL(ts) \
	OP("aten::_foreach_mul_", ts, 20, "'TensorList','Scalar'", "[[1024],[4,4]],[]", "[[1],[4,1]],[]", "'','0.5'")

static void test_kernel_hints(void)
{
	struct tl_trace *tr = LOAD(
		OP("aten::neg", 0, 1, "'float'", "[1024]", "[1]", "''"), FOREACH_MUL(10), RT(12, 5), FS(5, 12),
		KN(MTA("c10::BFloat16"), 40, 6, 5), FF(5, 40), FOREACH_MUL(60),
		OP("aten::div", 100, 5, "'float','long int'", "[16,8],[]", "[8,1],[]", "'',''"), RT(102, 9), FS(9, 102),
		KN("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::"
		   "BUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > >"
		   "(at::TensorIteratorBase&)",
		   110, 3, 9),
		FF(9, 110), FOREACH_MUL(200), RT(202, 11), FS(11, 202), KN(MTA("c10::BFloat16"), 210, 2, 11),
		FF(11, 210), RT(203, 12), FS(12, 203), KN(MTA("float"), 213, 2, 12), FF(12, 213),
		OP("aten::neg", 300, 50, "'float'", "[4]", "[1]", "''"),
		OP("aten::copy_", 305, 10, "'float','float','Scalar'", "[4],[4],[]", "[1],[1],[]", "'','','False'"),
		RT(306, 20), FS(20, 306), KN("copy_kernel", 400, 4, 20), FF(20, 400), RT(320, 21), FS(21, 320),
		KN("neg_kernel", 410, 3, 21), FF(21, 410));
	const cJSON *a, *v;
	cJSON *e;
	int err;

	e = entry_of(tr, 1, db, false, &err);
	a = arg_of(e, "self");
	v = cJSON_GetObjectItemCaseSensitive(a, "value");
	ok(e && cJSON_GetArraySize(v) == 2 && !strcmp(key(cJSON_GetArrayItem(v, 0), "dtype"), "\"c10::BFloat16\"") &&
		   !strcmp(key(cJSON_GetArrayItem(v, 1), "dtype"), "\"c10::BFloat16\"") &&
		   !strcmp(key(a, "tl_dtype_from"), "\"kernel: BinaryOpScalarFunctor<c10::BFloat16, 1, 1, 0>\""),
	   "_foreach_mul_: the list's dtype from its kernel's functor, said in tl_dtype_from (%s)",
	   key(a, "tl_dtype_from"));
	cJSON_Delete(e);
	e = entry_of(tr, 6, db, false, &err);
	a = arg_of(e, "self");
	v = cJSON_GetObjectItemCaseSensitive(a, "value");
	ok(e && !strcmp(key(cJSON_GetArrayItem(v, 0), "dtype"), "\"float\"") &&
		   !strcmp(key(a, "tl_dtype_from"), "\"an earlier op's tensor of the same shape\""),
	   "no kernel: the earlier op's dtype, and tl_dtype_from says so (%s)", key(a, "tl_dtype_from"));
	cJSON_Delete(e);
	e = entry_of(tr, 7, db, false, &err);
	ok(e && !strcmp(key(arg_of(e, "other"), "tl_init"), "{\"kind\":\"full\",\"value\":2,\"device\":\"cpu\"}") &&
		   !cJSON_GetObjectItemCaseSensitive(arg_of(e, "self"), "tl_init"),
	   "div by a wrapped number (BUnaryFunctor): the 0-d operand on the CPU, non-zero (%s)",
	   key(arg_of(e, "other"), "tl_init"));
	cJSON_Delete(e);
	e = entry_of(tr, 12, db, false, &err);
	a = arg_of(e, "self");
	ok(e && !strncmp(key(a, "tl_dtype_from"), "\"an earlier", 11),
	   "kernels of two element types: no dtype from them (%s)", key(a, "tl_dtype_from"));
	cJSON_Delete(e);
	e = entry_of(tr, 21, db, false, &err);
	a = cJSON_GetObjectItemCaseSensitive(e, "kernels");
	ok(e && cJSON_GetArraySize(a) == 2 && !strcmp(key(cJSON_GetArrayItem(a, 0), "via"), "\"aten::copy_\"") &&
		   !strcmp(key(cJSON_GetArrayItem(a, 0), "via_uid"), "22") &&
		   !cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(a, 1), "via") &&
		   !strcmp(key(e, "gpu_time_us"), "7"),
	   "kernels: the op's own and its child op's (via), gpu_time_us over both (%s)", js(a));
	cJSON_Delete(e);
	tl_trace_close(tr);
}

static void test_index_inits(void)
{
	struct tl_trace *tr = LOAD(
		OP("aten::embedding", 0, 1, BF ",'long int','Scalar','Scalar','Scalar'",
		   "[30522,512],[1,141],[],[],[]", "[512,1],[141,1],[],[],[]", "'','','0','False','False'"),
		OP("aten::index_select", 2, 1, "'float','Scalar','long int'", "[4,7],[],[5]", "[7,1],[],[1]",
		   "'','-1',''"),
		OP("aten::nll_loss", 4, 1, "'float','long int','','Scalar','Scalar'", "[8,10],[8],[],[],[]",
		   "[10,1],[1],[],[],[]", "'','','','1','-100'"),
		OP("aten::gather", 6, 1, "'float','Scalar','long int','Scalar'", "[6,9],[],[6,2],[]",
		   "[9,1],[],[2,1],[]", "'','0','','False'"),
		OP("aten::one_hot", 8, 1, "'long int','Scalar'", "[16],[]", "[1],[]", "'','12'"),
		OP("aten::index_add_", 10, 1, "'float','Scalar','int','float','Scalar'", "[3,4],[],[2],[2,4],[]",
		   "[4,1],[],[1],[4,1],[]", "'','0','','','1'"));
	cJSON *e;
	int err;

	e = entry_of(tr, 0, db, false, &err);
	ok(e && !strcmp(key(arg_of(e, "indices"), "tl_init"), "{\"kind\":\"randint\",\"low\":0,\"high\":30522}") &&
	   !strcmp(key(cJSON_GetObjectItemCaseSensitive(arg_of(e, "indices"), "value"), "init"), "\"zeros\"") &&
	   !strcmp(key(cJSON_GetObjectItemCaseSensitive(arg_of(e, "indices"), "value"), "dtype"), "\"long int\"") &&
	   !cJSON_GetObjectItemCaseSensitive(arg_of(e, "weight"), "tl_init"),
	   "embedding: long int indices init zeros, tl_init randint [0, 30522)");
	cJSON_Delete(e);
	e = entry_of(tr, 1, db, false, &err);
	ok(e && !strcmp(key(arg_of(e, "index"), "tl_init"), "{\"kind\":\"randint\",\"low\":0,\"high\":7}"),
	   "index_select dim -1: index < self.size(-1) = 7");
	cJSON_Delete(e);
	e = entry_of(tr, 2, db, false, &err);
	ok(e && !strcmp(key(arg_of(e, "target"), "tl_init"), "{\"kind\":\"randint\",\"low\":0,\"high\":10}"),
	   "nll_loss: target < input.size(1)");
	cJSON_Delete(e);
	e = entry_of(tr, 3, db, false, &err);
	ok(e && !strcmp(key(arg_of(e, "index"), "tl_init"), "{\"kind\":\"randint\",\"low\":0,\"high\":6}"),
	   "gather dim 0: index < self.size(0)");
	cJSON_Delete(e);
	e = entry_of(tr, 4, db, false, &err);
	ok(e && !strcmp(key(arg_of(e, "self"), "tl_init"), "{\"kind\":\"randint\",\"low\":0,\"high\":12}"),
	   "one_hot: self < num_classes");
	cJSON_Delete(e);
	e = entry_of(tr, 5, db, false, &err);
	ok(e && !strcmp(key(arg_of(e, "index"), "tl_init"), "{\"kind\":\"randint\",\"low\":0,\"high\":3}") &&
	   !strcmp(key(cJSON_GetObjectItemCaseSensitive(arg_of(e, "self"), "value"), "init"), "null"),
	   "index_add_ (in place, int32 index): the rule of index_add");
	cJSON_Delete(e);
	tl_trace_close(tr);
}

static void test_custom_db(void)
{
	const char *schemas[] = {
		"_C_cache_ops::reshape_and_cache(Tensor key, Tensor value, Tensor($0! -> ) key_cache, "
		"Tensor($1! -> ) value_cache, Tensor slot_mapping, str kv_cache_dtype, Tensor k_scale, "
		"Tensor v_scale) -> ()",
	};
	struct tl_schema_db *d = NULL;
	struct tl_trace *tr = LOAD(OP("_C_cache_ops::reshape_and_cache", 0, 1,
				      BF "," BF "," BF "," BF ",'long int','','float','float'",
				      "[4,8],[4,8],[16,8],[16,8],[4],[],[],[]",
				      "[8,1],[8,1],[8,1],[8,1],[1],[],[],[]", "'','','','','','','',''"));
	cJSON *e;
	int err;

	ok(tl_schema_db_from_strings(schemas, 1, "worker", &d) == 0 && tl_schema_db_count(d) == 1,
	   "a database from the strings a worker sends");
	e = entry_of(tr, 0, d, false, &err);
	ok(e && !strcmp(val(e, "kv_cache_dtype"), "\"auto\"") &&
	   !strcmp(key(cJSON_GetObjectItemCaseSensitive(arg_of(e, "key_cache"), "value"), "init"), "null") &&
	   !strcmp(key(arg_of(e, "key_cache"), "arg_type"), "\"Tensor($0! -> )\"") &&
	   !strcmp(key(cJSON_GetObjectItemCaseSensitive(e, "source"), "schemas"), "\"worker\""),
	   "reshape_and_cache: kv_cache_dtype \"auto\", written caches init null");
	cJSON_Delete(e);
	tl_trace_close(tr);
	tl_schema_db_free(d);
}

static void test_errors(void)
{
	struct tl_trace *tr = LOAD(
		OP("aten::no_such_op", 0, 1, "'float'", "[4]", "[1]", "''"),
		OP("aten::addmm", 2, 1, BF ",'Scalar'," BF ",'Scalar','Scalar'", "[4],[],[4,4],[],[]",
		   "[1],[],[4,1],[],[]", "'','3','','1','1'"),
		"{'ph':'X','cat':'cpu_op','name':'aten::mm','pid':1,'tid':1,'ts':4,'dur':1,'args':{}}",
		OP("myns::fused", 6, 1, "'float','Scalar','Scalar','ScalarList','','TensorList','Scalar','ScalarList'",
		   "[2,2],[],[],[],[],[[2],[3]],[],[]", "[2,1],[],[],[],[],[[1],[1]],[],[]",
		   "'','3','0.5','[1, 2]','','','True','[0.5, 1]'"),
		"{'ph':'X','cat':'kernel','name':'k','pid':0,'tid':7,'ts':8,'dur':1,'args':{}}");
	const cJSON *a;
	cJSON *e;
	int err;

	e = entry_of(tr, 0, db, false, &err);
	ok(!e && err == -ENOENT && strstr(tl_last_error(), "aten::no_such_op") &&
	   strstr(tl_last_error(), "torch 1.13.0a0") && strstr(tl_last_error(), "uid 0"),
	   "an op not in the database: -ENOENT naming it and the database");
	e = entry_of(tr, 1, db, false, &err);
	ok(!e && err == -EINVAL && strstr(tl_last_error(), "argument 1 'mat1'") &&
	   strstr(tl_last_error(), "Scalar (3)"), "an unmatched argument: -EINVAL naming it (%s)",
	   tl_last_error());
	e = entry_of(tr, 2, db, false, &err);
	ok(!e && err == -ENODATA && strstr(tl_last_error(), "record_shapes=True"),
	   "no recorded shapes: -ENODATA with the hint");
	e = entry_of(tr, 4, db, false, &err);
	ok(!e && err == -ENODATA && strstr(tl_last_error(), "not a CPU op"), "a kernel: -ENODATA");
	e = entry_of(tr, 99, db, false, &err);
	ok(!e && err == -ERANGE, "a bad UID: -ERANGE");
	e = entry_of(tr, 1, NULL, false, &err);
	ok(!e && err == -EINVAL, "no database and no schemaless: -EINVAL");

	e = entry_of(tr, 3, db, true, &err);
	a = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "replay_ir"), "list_pos_args");
	ok(e && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "schemaless")) && cJSON_GetArraySize(a) == 8 &&
	   !cJSON_GetObjectItemCaseSensitive(e, "schema"), "schemaless entry for a custom op");
	ok(e && !strcmp(key(arg_of(e, "arg0"), "arg_type"), "\"Tensor\"") &&
	   !strcmp(key(arg_of(e, "arg1"), "arg_type"), "\"int\"") && !strcmp(val(e, "arg1"), "3") &&
	   !strcmp(key(arg_of(e, "arg2"), "arg_type"), "\"float\"") && !strcmp(val(e, "arg2"), "0.5") &&
	   !strcmp(key(arg_of(e, "arg3"), "arg_type"), "\"int[]\"") && !strcmp(val(e, "arg3"), "[1,2]") &&
	   !strcmp(key(arg_of(e, "arg4"), "arg_type"), "\"None\"") && !strcmp(val(e, "arg4"), "null") &&
	   !strcmp(key(arg_of(e, "arg5"), "arg_type"), "\"Tensor[]\"") &&
	   !strcmp(key(arg_of(e, "arg6"), "arg_type"), "\"bool\"") && !strcmp(val(e, "arg6"), "true") &&
	   !strcmp(key(arg_of(e, "arg7"), "arg_type"), "\"float[]\"") && !strcmp(val(e, "arg7"), "[0.5,1.0]"),
	   "schemaless types from the profile: Tensor int float int[] None Tensor[] bool float[]");
	cJSON_Delete(e);
	e = entry_of(tr, 1, db, true, &err);
	ok(e && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "schemaless")),
	   "an unmatched op falls back to schemaless when allowed");
	cJSON_Delete(e);
	e = entry_of(tr, 3, NULL, true, &err);
	ok(e && !strcmp(key(cJSON_GetObjectItemCaseSensitive(e, "source"), "schemas"), "null"),
	   "schemaless without a database");
	cJSON_Delete(e);
	tl_trace_close(tr);
}

static void test_dtypes(void)
{
	static const char *const all[] = {
		"float", "double", "c10::Half", "c10::BFloat16", "long int", "long", "int", "short int",
		"short", "signed char", "char", "unsigned char", "unsigned int", "bool",
		"c10::Float8_e4m3fn", "c10::Float8_e4m3fnuz", "c10::Float8_e5m2", "c10::Float8_e5m2fnuz",
		"c10::Float8_e8m0fnu", "c10::complex<float>", "c10::complex<double>", "c10::complex<c10::Half>",
	};
	struct tl_trace *tr = LOAD(
		OP("aten::neg", 0, 1, "'signed char'", "[4]", "[1]", "''"),
		OP("aten::neg", 2, 1, "'c10::complex<float>'", "[4]", "[1]", "''"),
		OP("aten::neg", 4, 1, "'c10::Float8_e4m3fn'", "[4]", "[1]", "''"),
		OP("aten::neg", 6, 1, "'short int'", "[4]", "", "''"));
	size_t i, n = 0;
	cJSON *e;
	int err;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		n += tl_ir_is_tensor_dtype(all[i]);
	ok(n == sizeof(all) / sizeof(all[0]) && !tl_ir_is_tensor_dtype("Scalar") &&
	   !tl_ir_is_tensor_dtype("TensorList") && !tl_ir_is_tensor_dtype(""),
	   "every dtype string of docs/ir.md is a tensor dtype (%zu)", n);
	e = entry_of(tr, 0, db, false, &err);
	ok(e && !strcmp(key(cJSON_GetObjectItemCaseSensitive(arg_of(e, "self"), "value"), "init"), "\"zeros\""),
	   "signed char: init zeros");
	cJSON_Delete(e);
	e = entry_of(tr, 1, db, false, &err);
	ok(e && !strcmp(key(cJSON_GetObjectItemCaseSensitive(arg_of(e, "self"), "value"), "init"), "\"normal\""),
	   "complex: init normal");
	cJSON_Delete(e);
	e = entry_of(tr, 2, db, false, &err);
	ok(e && !strcmp(key(cJSON_GetObjectItemCaseSensitive(arg_of(e, "self"), "value"), "init"), "\"normal\""),
	   "float8: init normal");
	cJSON_Delete(e);
	e = entry_of(tr, 3, db, false, &err);
	ok(e && !strcmp(val(e, "self"), "{\"shape\":[4],\"dtype\":\"short int\",\"strides\":[1],\"init\":\"zeros\"}"),
	   "no strides recorded: contiguous strides (%s)", e ? val(e, "self") : "");
	cJSON_Delete(e);
	tl_trace_close(tr);
}

/* ------------------------------------------------------------------ batch context */

#define ANN(name, ts, dur)                                                                     \
	"{'ph':'X','cat':'user_annotation','name':'" name "','pid':1,'tid':1,'ts':" #ts        \
	",'dur':" #dur "}"

static void test_batch_context(void)
{
	struct tl_trace *tr = LOAD(ANN("execute_context_2(640)_generation_30(30)", 0, 100),
				   OP("vllm::paged_attention", 10, 5, BF, "[4,8]", "[8,1]", "''"),
				   ANN("execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)"
				       "_generation_37(sq37sk34489sqsq37sqsk34489)", 200, 100),
				   OP("vllm::paged_attention", 210, 5, BF, "[4,8]", "[8,1]", "''"),
				   ANN("execute_context_1(888_788544)_generation_0(0)", 400, 100),
				   OP("vllm::paged_attention", 410, 5, BF, "[4,8]", "[8,1]", "''"),
				   OP("vllm::paged_attention", 600, 5, BF, "[4,8]", "[8,1]", "''"));
	cJSON *e;
	int err;

	e = entry_of(tr, 1, db, true, &err);
	ok(e && !strcmp(key(e, "batch_context"),
			"{\"n_prefill\":2,\"prefill_tokens\":640,\"n_decode\":30,\"decode_tokens\":30}"),
	   "batch_context from execute_context_N(T)_generation_M(U): %s", key(e, "batch_context"));
	cJSON_Delete(e);
	e = entry_of(tr, 3, db, true, &err);
	ok(e && !strcmp(key(e, "batch_context"),
			"{\"n_prefill\":9,\"prefill_tokens\":8155,\"n_decode\":37,\"decode_tokens\":37,"
			"\"prefill_kv_tokens\":8430,\"decode_kv_tokens\":34489}"),
	   "batch_context from the sq/sk spelling, with KV tokens: %s", key(e, "batch_context"));
	cJSON_Delete(e);
	e = entry_of(tr, 5, db, true, &err);
	ok(e && !strcmp(key(e, "batch_context"),
			"{\"n_prefill\":1,\"prefill_tokens\":888,\"n_decode\":0,\"decode_tokens\":0}"),
	   "batch_context from the tokens_sumsquares spelling: %s", key(e, "batch_context"));
	cJSON_Delete(e);
	e = entry_of(tr, 6, db, true, &err);
	ok(e && !cJSON_GetObjectItemCaseSensitive(e, "batch_context"),
	   "no batch_context outside every iteration annotation");
	cJSON_Delete(e);
	tl_trace_close(tr);
}

/* ------------------------------------------------------------------ older profilers */

/* Profilers before Concrete Inputs existed record scalar types as Int,
 * Double, Bool and GenericList with no value. */
#define OLDOP(name, types, dims)                                                              \
	"{'ph':'X','cat':'cpu_op','name':'" name "','pid':1,'tid':1,'ts':0,'dur':1,"           \
	"'args':{'Input type':[" types "],'Input Dims':[" dims "]}}"

static void test_old_profiler(void)
{
	struct tl_trace *tr = LOAD(OLDOP("aten::fill_", "'float','Scalar'", "[4,5],[]"),
				   OLDOP("aten::add_", "'float','float','Int'", "[4],[4],[]"),
				   OLDOP("aten::native_batch_norm", "'float','float','float','float','float','Bool','Double','Double'",
					 "[2,3,4,4],[3],[3],[3],[3],[],[],[]"),
				   OLDOP("aten::max_pool2d_with_indices", "'float','GenericList','GenericList','GenericList','GenericList','Bool'",
					 "[1,3,8,8],[],[],[],[],[]"),
				   OLDOP("CompiledFunction", "'float'", "[4]"),
				   OLDOP("aten::embedding", "'float','long int','Double'", "[10,4],[3],[]"),
				   OLDOP("aten::native_layer_norm", "'float','','float','float','Scalar'",
					 "[4,8],[],[8],[8],[]"));
	cJSON *e;
	int err;

	e = entry_of(tr, 0, db, false, &err);
	ok(e && !strcmp(key(e, "overload"), "\"Scalar\"") && !strcmp(val(e, "value"), "0") &&
	   !strcmp(key(e, "unrecorded_args"), "[\"value\"]"),
	   "fill_ with an unrecorded Scalar: fill_.Scalar, value guessed 0 and listed as unrecorded");
	cJSON_Delete(e);
	e = entry_of(tr, 1, db, false, &err);
	ok(e && !strcmp(key(e, "overload"), "\"Tensor\"") && !strcmp(val(e, "alpha"), "1") &&
	   !cJSON_GetObjectItemCaseSensitive(e, "unrecorded_args"),
	   "add_ with an Int alpha: the schema default 1 stands in (not a guess): %s", val(e, "alpha"));
	cJSON_Delete(e);
	e = entry_of(tr, 2, db, false, &err);
	ok(e && !strcmp(val(e, "training"), "false") && !strcmp(val(e, "eps"), "1e-05") &&
	   !strcmp(key(e, "unrecorded_args"), "[\"training\",\"momentum\",\"eps\"]"),
	   "native_batch_norm: Bool and Double typed, eps guessed 1e-05: %s", key(e, "unrecorded_args"));
	cJSON_Delete(e);
	e = entry_of(tr, 3, db, false, &err);
	ok(e && !strcmp(val(e, "kernel_size"), "[1,1]") && !strcmp(val(e, "stride"), "[]") &&
	   !strcmp(val(e, "padding"), "[0,0]"),
	   "max_pool2d: GenericList sizes from the schema (int[2]); defaults where there are: %s %s %s",
	   val(e, "kernel_size"), val(e, "stride"), val(e, "padding"));
	cJSON_Delete(e);
	e = entry_of(tr, 4, db, true, &err);
	ok(!e && err == -ENOTSUP, "an autograd function (CompiledFunction) is no operator: -ENOTSUP");
	e = entry_of(tr, 5, db, false, &err);
	ok(!e && err == -EINVAL && strstr(tl_last_error(), "recorded Double where the schema has int"),
	   "a Double where embedding has an int padding_idx: no overload, and the reason says so");
	cJSON_Delete(e);
	e = entry_of(tr, 6, db, false, &err);
	ok(e && !strcmp(val(e, "normalized_shape"), "[8]") && !strcmp(key(e, "unrecorded_args"), "[\"eps\"]"),
	   "layer norm without normalized_shape: the weight's shape, not a guess (%s); eps guessed",
	   val(e, "normalized_shape"));
	cJSON_Delete(e);
	tl_trace_close(tr);
}

int main(void)
{
	const char *snap = getenv("TLREPLAY_SCHEMAS");

	if (!snap || !*snap)
		snap = "core/replay/schemas/torch-1.13.json.gz";
	test_parse_basic();
	test_parse_lists();
	test_parse_alias();
	test_parse_defaults();
	test_parse_odd();
	test_parse_errors();
	if (tl_schema_db_load(snap, &db)) {
		ok(0, "load the schema snapshot %s: %s", snap, tl_last_error());
		return done_testing();
	}
	test_snapshot();
	test_addmm();
	test_conv();
	test_add_overloads();
	test_str_and_enums();
	test_lists();
	test_index_inits();
	test_kernel_hints();
	test_custom_db();
	test_batch_context();
	test_old_profiler();
	test_errors();
	test_dtypes();
	tl_schema_db_free(db);
	return done_testing();
}
