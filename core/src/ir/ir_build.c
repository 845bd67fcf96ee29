/* SPDX-License-Identifier: MIT */
/* The replay IR entry of one traced op (docs/ir.md).
 *
 * The profiler records, per argument of a cpu_op, a type (a dtype string for
 * a tensor, "Scalar", "ScalarList", "TensorList", or "" for None and for
 * values it drops: str, Device, Generator), the shape(s), the strides and the
 * concrete text of scalars. It does not record which overload ran. We score
 * every overload of the op's name against that profile, argument by argument,
 * keep the best (exact agreement beats mere compatibility; a recorded count
 * equal to the schema's beats one that leaves defaulted trailing arguments
 * out; ties keep registry order, the order TorchScript itself tries), and
 * type each value from the chosen schema.
 *
 * Where TraceLens stops we go on: alias annotations, optional types, list
 * defaults, TensorLists with their per-element shapes, dropped strings taking
 * their schema default, ScalarType/Layout/MemoryFormat codes, every dtype
 * string the profiler writes, integer Scalars staying integers, and index
 * tensors that get values in range instead of zeros. */
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "analysis/analysis_internal.h"
#include "ir/ir_internal.h"
#include "trace/trace_internal.h"

/* ------------------------------------------------------------------ dtypes */

/* A dtype the builder types as a tensor's (docs/ir.md's table), else NULL. */
static const struct tl_dtype *ir_dtype(const char *s)
{
	const struct tl_dtype *d = tl_dtype_find(s);

	return d && d->in_ir ? d : NULL;
}

bool tl_ir_is_tensor_dtype(const char *dtype)
{
	return ir_dtype(dtype) != NULL;
}

static const char *init_of(const char *dtype)
{
	const struct tl_dtype *d = ir_dtype(dtype);

	/* TraceLens PR #607: normal_() is not defined for integer tensors */
	return d && d->cls >= TL_DT_INT ? "zeros" : "normal";
}

static bool is_int_dtype(const char *dtype)
{
	const struct tl_dtype *d = ir_dtype(dtype);

	return d && d->cls == TL_DT_INT;
}

/* Strings the profiler drops and that have no schema default. */
static const struct {
	const char *arg;
	const char *value;
} str_defaults[] = {
	{ "kv_cache_dtype", "auto" },	/* vLLM cache ops; TraceLens PR #607 */
};

/* ------------------------------------------------------------------ index rules */

/* How the bound of an index tensor is found. */
enum ix_mode {
	IX_DIM,		/* size(fixed) of tensor `of` */
	IX_DIM_ARG,	/* size(value of argument `dim`) of tensor `of` */
	IX_NUMEL,	/* numel() of tensor `of` */
	IX_EACH,	/* a list of index tensors: element i indexes dimension i of `of` */
	IX_CLASSES,	/* class targets: size(1) of `of` (size(0) for a 1-d input) */
	IX_INT_ARG,	/* the value of int argument `of` (when > 0) */
};

/* Integer tensors that index another argument: zeros would be valid but
 * degenerate (every lookup hits row 0), random values in range are what the
 * real workload does. Op names without their in-place '_'. */
static const struct ix_rule {
	const char *op;
	const char *index;
	const char *of;
	enum ix_mode mode;
	const char *dim;
	int fixed;
} ix_rules[] = {
	{ "aten::embedding", "indices", "weight", IX_DIM, NULL, 0 },
	{ "aten::embedding_bag", "indices", "weight", IX_DIM, NULL, 0 },
	{ "aten::_embedding_bag", "indices", "weight", IX_DIM, NULL, 0 },
	{ "aten::_embedding_bag_forward_only", "indices", "weight", IX_DIM, NULL, 0 },
	{ "aten::embedding_backward", "indices", "num_weights", IX_INT_ARG, NULL, 0 },
	{ "aten::embedding_dense_backward", "indices", "num_weights", IX_INT_ARG, NULL, 0 },
	{ "aten::index_select", "index", "self", IX_DIM_ARG, "dim", 0 },
	{ "aten::index_add", "index", "self", IX_DIM_ARG, "dim", 0 },
	{ "aten::index_copy", "index", "self", IX_DIM_ARG, "dim", 0 },
	{ "aten::index_fill", "index", "self", IX_DIM_ARG, "dim", 0 },
	{ "aten::index_reduce", "index", "self", IX_DIM_ARG, "dim", 0 },
	{ "aten::gather", "index", "self", IX_DIM_ARG, "dim", 0 },
	{ "aten::scatter", "index", "self", IX_DIM_ARG, "dim", 0 },
	{ "aten::scatter_add", "index", "self", IX_DIM_ARG, "dim", 0 },
	{ "aten::scatter_reduce", "index", "self", IX_DIM_ARG, "dim", 0 },
	{ "aten::index", "indices", "self", IX_EACH, NULL, 0 },
	{ "aten::index_put", "indices", "self", IX_EACH, NULL, 0 },
	{ "aten::_index_put_impl", "indices", "self", IX_EACH, NULL, 0 },
	{ "aten::_unsafe_index", "indices", "self", IX_EACH, NULL, 0 },
	{ "aten::_unsafe_index_put", "indices", "self", IX_EACH, NULL, 0 },
	{ "aten::take", "index", "self", IX_NUMEL, NULL, 0 },
	{ "aten::nll_loss", "target", "self", IX_CLASSES, NULL, 0 },
	{ "aten::nll_loss_forward", "target", "self", IX_CLASSES, NULL, 0 },
	{ "aten::nll_loss_nd", "target", "self", IX_CLASSES, NULL, 0 },
	{ "aten::nll_loss2d", "target", "self", IX_CLASSES, NULL, 0 },
	{ "aten::nll_loss2d_forward", "target", "self", IX_CLASSES, NULL, 0 },
	{ "aten::cross_entropy_loss", "target", "self", IX_CLASSES, NULL, 0 },
	{ "aten::one_hot", "self", "num_classes", IX_INT_ARG, NULL, 0 },
};

/* ------------------------------------------------------------------ the profile */

enum pkind { P_NONE, P_TENSOR, P_SCALAR, P_SCALARLIST, P_TENSORLIST, P_OTHER };

/* What an older profiler's type names say of a scalar (no Concrete Inputs
 * there): "Int", "Double", "Bool", "GenericList". */
enum ival { IV_ANY, IV_INT, IV_DOUBLE, IV_BOOL };

/* One recorded argument. Strings point into the event's parsed args. */
struct parg {
	enum pkind kind;
	enum ival ival;		/* P_SCALAR: the kind an older profiler named */
	const char *type;	/* Input type */
	const char *conc;	/* Concrete Inputs, NULL when not recorded */
	const cJSON *dims;	/* Input Dims */
	const cJSON *strides;	/* Input Strides, NULL when not recorded */
};

struct ir_ctx {
	struct tl_trace *tr;
	uint64_t uid;
	const char *op;
	cJSON *args;
	struct parg *pa;
	size_t np;
	cJSON *unrecorded;	/* names of args whose value the profile lacks (guessed) */
	struct tl_kernel_hints kh; /* what the op's kernels say of its args */
	/* where the last TensorList's element dtype came from (its argument's
	 * tl_dtype_from), "" once said */
	char list_from[160];
};

static const cJSON *item_at(const cJSON *arr, size_t i)
{
	return cJSON_IsArray(arr) ? cJSON_GetArrayItem(arr, (int)i) : NULL;
}

/* A shape (or stride) list: every item a non-negative integer. */
/* A list of whole numbers that fit int64 (1e300 is no size: it would be
 * cast to long long below). */
static bool is_int_list(const cJSON *a)
{
	const cJSON *it;
	int64_t v;

	if (!cJSON_IsArray(a))
		return false;
	cJSON_ArrayForEach(it, a)
		if (!tl_json_i64(it, INT64_MIN, INT64_MAX, &v))
			return false;
	return true;
}

static bool is_shape_list(const cJSON *a)
{
	const cJSON *it;

	if (!cJSON_IsArray(a))
		return false;
	cJSON_ArrayForEach(it, a)
		if (!is_int_list(it))
			return false;
	return true;
}

static int read_profile(struct ir_ctx *c, const struct tl_event_info *info)
{
	const cJSON *types = cJSON_GetObjectItemCaseSensitive(c->args, "Input type");
	const cJSON *dims = cJSON_GetObjectItemCaseSensitive(c->args, "Input Dims");
	const cJSON *strides = cJSON_GetObjectItemCaseSensitive(c->args, "Input Strides");
	const cJSON *conc = cJSON_GetObjectItemCaseSensitive(c->args, "Concrete Inputs");
	size_t i, n;

	if (!cJSON_IsArray(types) || !cJSON_IsArray(dims)) {
		if (info->kind != TL_KIND_CPU_OP)
			return tl_err(-ENODATA, "uid %llu %s: a %s event, not a CPU op: nothing to replay",
				      (unsigned long long)c->uid, c->op, tl_kind_name(info->kind));
		return tl_err(-ENODATA,
			      "uid %llu %s: no recorded shapes (Input Dims/Input type); profile with record_shapes=True",
			      (unsigned long long)c->uid, c->op);
	}
	n = (size_t)cJSON_GetArraySize(types);
	if ((size_t)cJSON_GetArraySize(dims) != n)
		return tl_err(-EBADMSG, "uid %llu %s: %zu Input type entries but %d Input Dims",
			      (unsigned long long)c->uid, c->op, n, cJSON_GetArraySize(dims));
	c->pa = calloc(n ? n : 1, sizeof(*c->pa));
	if (!c->pa)
		return tl_err(-ENOMEM, "out of memory");
	c->np = n;
	for (i = 0; i < n; i++) {
		struct parg *p = &c->pa[i];
		const cJSON *t = item_at(types, i), *cv = item_at(conc, i);

		p->type = cJSON_IsString(t) ? t->valuestring : "?";
		p->conc = cJSON_IsString(cv) ? cv->valuestring : NULL;
		p->dims = item_at(dims, i);
		p->strides = item_at(strides, i);
		if (!*p->type)
			p->kind = P_NONE;
		else if (!strcmp(p->type, "Scalar"))
			p->kind = P_SCALAR;
		else if (!strcmp(p->type, "Int"))
			p->kind = P_SCALAR, p->ival = IV_INT;
		else if (!strcmp(p->type, "Double"))
			p->kind = P_SCALAR, p->ival = IV_DOUBLE;
		else if (!strcmp(p->type, "Bool"))
			p->kind = P_SCALAR, p->ival = IV_BOOL;
		else if (!strcmp(p->type, "ScalarList") || !strcmp(p->type, "GenericList"))
			p->kind = P_SCALARLIST;
		else if (!strcmp(p->type, "TensorList"))
			p->kind = P_TENSORLIST;
		else if (ir_dtype(p->type))
			p->kind = P_TENSOR;
		else
			p->kind = P_OTHER;
	}
	return 0;
}

/* ------------------------------------------------------------------ matching */

/* int[], SymInt[], float[], bool[]: what an older profiler leaves out. */
static bool scalar_list(const struct tl_schema_arg *a)
{
	return a->is_list && (a->kind == TL_ARG_INT || a->kind == TL_ARG_SYMINT ||
			      a->kind == TL_ARG_FLOAT || a->kind == TL_ARG_BOOL);
}

/* Whether an older profiler's Int/Double/Bool may be argument @a. */
static bool ival_fits(const struct parg *p, const struct tl_schema_arg *a)
{
	switch (p->ival) {
	case IV_INT:
		return a->kind == TL_ARG_INT || a->kind == TL_ARG_SYMINT || a->kind == TL_ARG_SCALAR ||
		       a->kind == TL_ARG_FLOAT || a->kind == TL_ARG_SCALARTYPE ||
		       a->kind == TL_ARG_LAYOUT || a->kind == TL_ARG_MEMFMT;
	case IV_DOUBLE:
		return a->kind == TL_ARG_FLOAT || a->kind == TL_ARG_SCALAR;
	case IV_BOOL:
		return a->kind == TL_ARG_BOOL || a->kind == TL_ARG_SCALAR;
	case IV_ANY:
	default:
		return true;
	}
}

/* How argument @a takes recorded value @p: 2 exact, 1 compatible, 0 not
 * (why says so), -ENOMEM. */
static int match_arg(const struct tl_schema_arg *a, const struct parg *p, char *why, size_t wl)
{
	cJSON *v;
	bool exact = true, nomem = false;

	switch (p->kind) {
	case P_NONE:
		/* None fits every optional; for Dimname lists (printed str[]?) and
		 * exotic types only loosely, so that the common overload wins */
		if (a->optional)
			return a->kind == TL_ARG_OTHER || (a->kind == TL_ARG_STR && a->is_list) ? 1 : 2;
		switch (a->kind) {
		case TL_ARG_STR:	/* the profiler drops strings, devices, generators */
		case TL_ARG_DEVICE:
		case TL_ARG_GENERATOR:
			return 1;
		case TL_ARG_SCALARTYPE:
		case TL_ARG_LAYOUT:
		case TL_ARG_MEMFMT:
			if (a->has_default)
				return 1;
			break;
		default:
			break;
		}
		/* an older profiler (no Concrete Inputs at all) leaves int lists
		 * out: the value is guessed, and the entry says so */
		if (!p->conc && scalar_list(a))
			return 1;
		if (a->kind == TL_ARG_TENSOR && a->is_list)
			snprintf(why, wl, "recorded as None, but %s is not optional (the profiler drops %s)",
				 a->type, a->elem_optional ? "lists of optional tensors" : "this list");
		else
			snprintf(why, wl, "recorded as None, but %s is not optional", a->type);
		return 0;
	case P_TENSOR:
		if (a->kind != TL_ARG_TENSOR || a->is_list) {
			snprintf(why, wl, "a %s tensor where the schema has %s", p->type, a->type);
			return 0;
		}
		if (!is_int_list(p->dims)) {
			snprintf(why, wl, "the tensor's shape is not recorded");
			return 0;
		}
		return 2;
	case P_TENSORLIST:
		if (a->kind != TL_ARG_TENSOR || !a->is_list) {
			snprintf(why, wl, "a TensorList where the schema has %s", a->type);
			return 0;
		}
		/* older profilers record [] for a TensorList; an empty list is
		 * nothing a real op takes */
		if (!is_shape_list(p->dims) || !cJSON_GetArraySize(p->dims)) {
			snprintf(why, wl, "the TensorList's element shapes are not recorded (older profiler)");
			return 0;
		}
		return 2;
	case P_SCALAR:
	case P_SCALARLIST:
		if (a->kind == TL_ARG_TENSOR) {
			snprintf(why, wl, "a %s (%s) where the schema has %s", p->type,
				 p->conc ? p->conc : "?", a->type);
			return 0;
		}
		if (!ival_fits(p, a)) {
			snprintf(why, wl, "recorded %s where the schema has %s", p->type, a->type);
			return 0;
		}
		if (!p->conc || !*p->conc) {
			/* an older profiler: the value is not recorded; the default
			 * or a guess stands in (the entry lists it as unrecorded) */
			if (p->kind == P_SCALARLIST && !a->is_list) {
				snprintf(why, wl, "a %s where the schema has %s", p->type, a->type);
				return 0;
			}
			if (p->kind == P_SCALAR && a->is_list) {
				snprintf(why, wl, "a %s where the schema has %s", p->type, a->type);
				return 0;
			}
			return 1;
		}
		if (p->kind == P_SCALARLIST && !a->is_list) {
			snprintf(why, wl, "a ScalarList %s where the schema has %s", p->conc, a->type);
			return 0;
		}
		v = tl_literal_json(a, p->conc, strlen(p->conc), &exact, &nomem);
		if (!v) {
			if (nomem)
				return -ENOMEM;
			snprintf(why, wl, "%s %s does not fit %s", p->type, p->conc, a->type);
			return 0;
		}
		cJSON_Delete(v);
		/* only an empty list fits a str[]/Dimname[]: the profiler's lists hold
		 * numbers, so "[]" was far more likely an int[] */
		if (a->kind == TL_ARG_STR || a->kind == TL_ARG_OTHER)
			exact = false;
		return exact ? 2 : 1;
	case P_OTHER:
	default:
		snprintf(why, wl, "recorded type '%s' is not understood", p->type);
		return 0;
	}
}

struct eval {
	bool ok;
	bool count_ok;
	bool exact_n;
	int score;
	size_t nmatch;
	char why[320];
};

static int eval_schema(const struct tl_schema *s, const struct parg *pa, size_t np, struct eval *ev)
{
	char why[256];
	size_t i, n = np < s->nargs ? np : s->nargs;
	bool failed = false;
	int r;

	memset(ev, 0, sizeof(*ev));
	if (s->varargs) {
		snprintf(ev->why, sizeof(ev->why), "it takes variadic arguments");
		return 0;
	}
	ev->count_ok = np <= s->nargs;
	ev->exact_n = np == s->nargs;
	if (np > s->nargs)
		snprintf(ev->why, sizeof(ev->why), "%zu arguments recorded, the schema has %zu", np,
			 s->nargs);
	for (i = np; i < s->nargs && ev->count_ok; i++) {
		if (s->args[i].has_default)
			continue;
		ev->count_ok = false;
		snprintf(ev->why, sizeof(ev->why),
			 "%zu arguments recorded, and argument %zu '%s' has no default", np, i,
			 s->args[i].name);
	}
	for (i = 0; i < n; i++) {
		r = match_arg(&s->args[i], &pa[i], why, sizeof(why));
		if (r < 0)
			return r;
		if (r > 0) {
			ev->nmatch++;
			ev->score += r;
		} else if (!failed) {
			failed = true;
			if (ev->count_ok)
				snprintf(ev->why, sizeof(ev->why), "argument %zu '%s' (%s): %s", i,
					 s->args[i].name, s->args[i].type, why);
		}
	}
	ev->ok = ev->count_ok && !failed;
	return 0;
}

/* The best overload, or NULL with the reason the closest one failed. */
static int pick_overload(struct ir_ctx *c, const struct tl_schema *const *cand, size_t n,
			 const struct tl_schema **best, char *why, size_t wl)
{
	const struct tl_schema *close = NULL;
	struct eval ev, bev = { 0 }, cev = { 0 };
	size_t i;
	int err;

	*best = NULL;
	for (i = 0; i < n; i++) {
		err = eval_schema(cand[i], c->pa, c->np, &ev);
		if (err)
			return err;
		if (ev.ok) {
			/* strictly better only: ties keep registry order */
			if (!*best || ev.exact_n > bev.exact_n ||
			    (ev.exact_n == bev.exact_n && ev.score > bev.score)) {
				*best = cand[i];
				bev = ev;
			} else if (ev.exact_n == bev.exact_n && ev.score == bev.score) {
				tl_log(TL_LOG_DEBUG, "uid %llu %s: overloads '%s' and '%s' match equally; keeping the first",
				       (unsigned long long)c->uid, c->op, (*best)->overload, cand[i]->overload);
			}
			continue;
		}
		if (!close || ev.count_ok > cev.count_ok ||
		    (ev.count_ok == cev.count_ok && ev.nmatch > cev.nmatch)) {
			close = cand[i];
			cev = ev;
		}
	}
	if (*best && !bev.exact_n)
		tl_log(TL_LOG_DEBUG, "uid %llu %s: %zu arguments recorded, overload '%s' has %zu (defaults for the rest)",
		       (unsigned long long)c->uid, c->op, c->np, (*best)->overload, (*best)->nargs);
	if (!*best && close)
		snprintf(why, wl, "closest %s%s%s: %s", close->name, *close->overload ? "." : "",
			 close->overload, cev.why);
	return 0;
}

/* ------------------------------------------------------------------ values */

static cJSON *tensor_value(const cJSON *dims, const cJSON *strides, const char *dtype,
			   const char *init)
{
	cJSON *v = cJSON_CreateObject(), *shape, *st;
	const cJSON *it;
	long long *cs = NULL, acc = 1;
	int n = cJSON_GetArraySize(dims), i;

	/* exactly these four keys: TraceLens builds TensorCfg(**value) */
	if (!v || !(shape = cJSON_AddArrayToObject(v, "shape")) ||
	    !cJSON_AddStringToObject(v, "dtype", dtype) || !(st = cJSON_AddArrayToObject(v, "strides")) ||
	    !(init ? cJSON_AddStringToObject(v, "init", init) : cJSON_AddNullToObject(v, "init")))
		goto fail;
	cJSON_ArrayForEach(it, dims)
		if (!cJSON_AddItemToArray(shape, tl_json_int((long long)it->valuedouble)))
			goto fail;
	if (is_int_list(strides) && cJSON_GetArraySize(strides) == n) {
		cJSON_ArrayForEach(it, strides)
			if (!cJSON_AddItemToArray(st, tl_json_int((long long)it->valuedouble)))
				goto fail;
		return v;
	}
	/* no strides recorded (older traces): contiguous (a product past
	 * int64 stays at its largest: no such tensor replays anyway) */
	cs = calloc((size_t)n + 1, sizeof(*cs));
	if (!cs)
		goto fail;
	for (i = n - 1; i >= 0; i--) {
		long long d = (long long)cJSON_GetArrayItem(dims, i)->valuedouble;

		cs[i] = acc;
		if (__builtin_mul_overflow(acc, d > 1 ? d : 1, &acc))
			acc = LLONG_MAX;
	}
	for (i = 0; i < n; i++)
		if (!cJSON_AddItemToArray(st, tl_json_int(cs[i])))
			goto fail;
	free(cs);
	return v;
fail:
	free(cs);
	cJSON_Delete(v);
	return NULL;
}

static bool same_shape(const cJSON *a, const cJSON *b)
{
	const cJSON *x, *y;

	if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
		return false;
	for (x = a->child, y = b->child; x && y; x = x->next, y = y->next)
		if (!cJSON_IsNumber(x) || !cJSON_IsNumber(y) || x->valuedouble != y->valuedouble)
			return false;
	return true;
}

/* How far back (in UIDs) to look for the ops that made a list's tensors. */
#define LIST_DTYPE_WINDOW 256

/* The profiler records a TensorList's element shapes but not their dtype. The
 * elements were made just before, on the same thread: take the dtype of the
 * latest earlier op that had a tensor of one of those shapes, else of the
 * latest earlier op with a floating tensor. Index lists (Tensor?[]) are int64. */
static void list_dtype(struct ir_ctx *c, const struct tl_schema_arg *a, const struct parg *p, const char **dtype,
		       char *buf, size_t bl)
{
	const struct tl_ev *me = &c->tr->ev[c->uid];
	double best_shape = -INFINITY, best_float = -INFINITY;
	uint64_t u, lo = c->uid > LIST_DTYPE_WINDOW ? c->uid - LIST_DTYPE_WINDOW : 0;
	size_t i;

	*dtype = "float";
	if (a && a->elem_optional) {
		*dtype = "long int";
		return;
	}
	/* the kernel's functor names the element type: the best evidence */
	if (c->kh.list_dtype[0]) {
		*dtype = c->kh.list_dtype;
		snprintf(c->list_from, sizeof(c->list_from), "kernel: %s", c->kh.list_from);
		return;
	}
	for (i = 0; i < c->np; i++)
		if (c->pa[i].kind == P_TENSOR) {
			*dtype = c->pa[i].type;
			snprintf(c->list_from, sizeof(c->list_from), "the op's tensor argument %zu", i);
			return;
		}
	buf[0] = 0;
	for (u = c->uid; u-- > lo;) {
		const struct tl_ev *e = &c->tr->ev[u];
		const cJSON *types, *dims, *t, *d, *el;
		size_t len;
		const char *txt;
		cJSON *args;

		if (e->kind != TL_KIND_CPU_OP || e->pid != me->pid || e->tid != me->tid ||
		    e->ts > me->ts || e->ts <= best_shape)
			continue;
		txt = tl_ev_args(c->tr, e, &len);
		args = txt ? cJSON_ParseWithLength(txt, len) : NULL;
		types = cJSON_GetObjectItemCaseSensitive(args, "Input type");
		dims = cJSON_GetObjectItemCaseSensitive(args, "Input Dims");
		for (t = types ? types->child : NULL, d = dims ? dims->child : NULL; t && d;
		     t = t->next, d = d->next) {
			const struct tl_dtype *k = cJSON_IsString(t) ? ir_dtype(t->valuestring) : NULL;

			if (!k)
				continue;
			if (e->ts > best_shape)
				cJSON_ArrayForEach(el, p->dims)
					if (same_shape(el, d)) {
						best_shape = e->ts;
						*dtype = k->name;
						break;
					}
			if (e->ts > best_float && best_shape == -INFINITY && k->cls == TL_DT_FLOAT) {
				best_float = e->ts;
				snprintf(buf, bl, "%s", k->name);
			}
		}
		cJSON_Delete(args);
	}
	if (best_shape == -INFINITY && buf[0])
		*dtype = buf;
	snprintf(c->list_from, sizeof(c->list_from), "%s",
		 best_shape > -INFINITY ? "an earlier op's tensor of the same shape"
		 : buf[0]		? "the latest earlier floating tensor"
					: "default (nothing in the trace says)");
	tl_log(TL_LOG_DEBUG, "uid %llu %s: TensorList dtype taken as %s (%s)", (unsigned long long)c->uid, c->op,
	       *dtype, c->list_from);
}

static cJSON *tensor_list_value(struct ir_ctx *c, const struct tl_schema_arg *a, const struct parg *p)
{
	const cJSON *d, *s;
	cJSON *arr = cJSON_CreateArray(), *v;
	const char *dtype;
	char buf[64];
	size_t i = 0;

	if (!arr)
		return NULL;
	list_dtype(c, a, p, &dtype, buf, sizeof(buf));
	cJSON_ArrayForEach(d, p->dims) {
		s = item_at(p->strides, i++);
		v = tensor_value(d, s, dtype, a && a->is_mutable ? NULL : init_of(dtype));
		if (!v) {
			cJSON_Delete(arr);
			return NULL;
		}
		cJSON_AddItemToArray(arr, v);
	}
	return arr;
}

/* A dropped string: the schema default, else a known default, else None for
 * an optional, else "". */
static cJSON *str_value(const struct ir_ctx *c, const struct tl_schema_arg *a, const struct parg *p)
{
	char *s;
	cJSON *v;
	size_t i;

	if (p->conc && *p->conc)	/* a profiler that keeps strings */
		return cJSON_CreateString(p->conc);
	if (a->has_default && (s = tl_schema_unquote(a->default_text, strlen(a->default_text)))) {
		v = cJSON_CreateString(s);
		free(s);
		return v;
	}
	for (i = 0; i < TL_ARRAY_SIZE(str_defaults); i++)
		if (!strcmp(a->name, str_defaults[i].arg)) {
			tl_log(TL_LOG_DEBUG, "uid %llu %s: str %s not recorded, using \"%s\"",
			       (unsigned long long)c->uid, c->op, a->name, str_defaults[i].value);
			return cJSON_CreateString(str_defaults[i].value);
		}
	if (a->optional)
		return cJSON_CreateNull();
	tl_log(TL_LOG_INFO, "uid %llu %s: str %s not recorded and has no default: \"\"",
	       (unsigned long long)c->uid, c->op, a->name);
	return cJSON_CreateString("");
}

/* A guess for a scalar of kind @k named @name, where the profile lacks it:
 * sizes, strides, dilations, groups and kernel sizes 1, epsilons 1e-5,
 * anything else 0 (or False). */
static cJSON *guess_scalar(enum tl_arg_kind k, const char *name)
{
	static const char *const ones[] = { "size", "stride", "dilation", "groups", "kernel" };
	size_t i;

	if (k == TL_ARG_BOOL)	/* an output mask asks for every output */
		return strstr(name, "mask") ? cJSON_CreateTrue() : cJSON_CreateFalse();
	if ((k == TL_ARG_FLOAT || k == TL_ARG_SCALAR) && (strstr(name, "eps") || strstr(name, "epsilon")))
		return cJSON_CreateRaw("1e-05");
	for (i = 0; i < TL_ARRAY_SIZE(ones); i++)
		if (strstr(name, ones[i]))
			return k == TL_ARG_FLOAT ? cJSON_CreateRaw("1.0") : tl_json_int(1);
	return k == TL_ARG_FLOAT ? cJSON_CreateRaw("0.0") : tl_json_int(0);
}

/* A scalar or list the profile recorded only the type of (older profilers,
 * no Concrete Inputs): the schema's default when it has one that is not
 * None (a recorded type means a value was passed), else a guess; the
 * argument is listed in the entry's "unrecorded_args". */
static cJSON *unrecorded_value(const struct ir_ctx *c, const struct tl_schema_arg *a)
{
	cJSON *v = NULL, *x;
	int i, n;

	if (a->has_default && strcmp(a->default_text, "None") && (v = tl_schema_default_json(a)))
		return v;
	if (c->unrecorded && !cJSON_AddItemToArray(c->unrecorded, cJSON_CreateString(a->name)))
		return NULL;
	if (!a->is_list)
		return guess_scalar(a->kind, a->name);
	/* a list of unknown length: the schema's size, else one element */
	n = a->list_size > 0 ? a->list_size : 1;
	v = cJSON_CreateArray();
	for (i = 0; v && i < n; i++) {
		x = guess_scalar(a->kind, a->name);
		if (!x || !cJSON_AddItemToArray(v, x)) {
			cJSON_Delete(x);
			cJSON_Delete(v);
			return NULL;
		}
	}
	return v;
}

/* The value of argument @a recorded as @p (which matched it). */
static cJSON *arg_value(struct ir_ctx *c, const struct tl_schema_arg *a, const struct parg *p)
{
	bool exact = true, nomem = false;
	cJSON *v;

	switch (p->kind) {
	case P_NONE:
		if (a->kind == TL_ARG_STR)
			return str_value(c, a, p);
		if (!a->optional && !p->conc && scalar_list(a))
			return unrecorded_value(c, a);
		if (!a->optional && a->has_default && (v = tl_schema_default_json(a)))
			return v;
		/* None, or a dropped Device/Generator: the replayer supplies its own */
		return cJSON_CreateNull();
	case P_TENSOR:
		return tensor_value(p->dims, p->strides, p->type, a->is_mutable ? NULL : init_of(p->type));
	case P_TENSORLIST:
		return tensor_list_value(c, a, p);
	case P_SCALAR:
	case P_SCALARLIST:
		if (!p->conc || !*p->conc)
			return unrecorded_value(c, a);
		return tl_literal_json(a, p->conc, strlen(p->conc), &exact, &nomem);
	default:
		return cJSON_CreateNull();
	}
}

/* Keep the profiler's text next to a value that JSON cannot hold (inf, nan). */
static int note_concrete(cJSON *argobj, const struct parg *p)
{
	struct tl_literal l;

	if (p->kind != P_SCALAR || !p->conc)
		return 0;
	tl_literal_parse(p->conc, strlen(p->conc), &l);
	if (l.kind != TL_LIT_FLOAT || isfinite(l.d))
		return 0;
	return cJSON_AddStringToObject(argobj, "tl_concrete", p->conc) ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------------ tl_init */

static const cJSON *value_of(cJSON *const *vals, const struct tl_schema *s, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s->args[i].name, name))
			return vals[i];
	return NULL;
}

static const char *dtype_of(const cJSON *v)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(v, "dtype");

	return cJSON_IsString(d) ? d->valuestring : NULL;
}

static long long dim_size(const cJSON *tensor, long long dim)
{
	const cJSON *shape = cJSON_GetObjectItemCaseSensitive(tensor, "shape"), *x;
	int nd = cJSON_GetArraySize(shape);
	int64_t size;

	if (!cJSON_IsArray(shape))
		return -1;
	if (nd == 0)
		return dim == 0 || dim == -1 ? 1 : -1;	/* a 0-d tensor indexes like size 1 */
	if (dim < 0)
		dim += nd;
	if (dim < 0 || dim >= nd)
		return -1;
	x = cJSON_GetArrayItem(shape, (int)dim);
	return tl_json_i64(x, 0, INT64_MAX, &size) ? size : -1;
}

/* The bound of the index argument of @r, -1 if it cannot be told. */
static long long ix_high(const struct ix_rule *r, cJSON *const *vals, const struct tl_schema *s,
			 size_t n, const cJSON *index)
{
	const cJSON *of = value_of(vals, s, n, r->of), *d, *x;
	long long high = -1, cur = 0, k;
	int64_t v;

	switch (r->mode) {
	case IX_DIM:
		return dim_size(of, r->fixed);
	case IX_DIM_ARG:
		d = value_of(vals, s, n, r->dim);
		return tl_json_i64(d, INT32_MIN, INT32_MAX, &v) ? dim_size(of, v) : -1;
	case IX_NUMEL:
		high = 1;
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(of, "shape"))
			if (!tl_json_i64(x, 0, INT64_MAX, &v) || __builtin_mul_overflow(high, v, &high))
				return -1;
		return of ? high : -1;
	case IX_CLASSES:
		k = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(of, "shape"));
		return dim_size(of, k == 1 ? 0 : 1);
	case IX_INT_ARG:
		return tl_json_i64(of, 1, INT64_MAX, &v) ? v : -1;
	case IX_EACH:
		/* element i indexes dimension i; None skips one, a bool mask its ndim;
		 * one bound for the whole list: the smallest, safe for each */
		cJSON_ArrayForEach(x, index) {
			const char *dt = dtype_of(x);

			if (dt && !strcmp(dt, "bool")) {
				cur += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(x, "shape"));
				continue;
			}
			if (dt && is_int_dtype(dt)) {
				k = dim_size(of, cur);
				if (k >= 0 && (high < 0 || k < high))
					high = k;
			}
			cur++;
		}
		return high;
	}
	return -1;
}

static bool has_int_tensor(const cJSON *v)
{
	const cJSON *x;

	if (cJSON_IsObject(v))
		return is_int_dtype(dtype_of(v));
	cJSON_ArrayForEach(x, v)
		if (is_int_dtype(dtype_of(x)))
			return true;
	return false;
}

static int add_index_inits(const char *op, const struct tl_schema *s, size_t n, cJSON *const *vals,
			   cJSON *const *objs)
{
	char base[256];
	size_t i, j, len = strlen(op);

	/* in-place and out variants share the rule: index_add_ -> index_add */
	snprintf(base, sizeof(base), "%.*s", (int)(len && op[len - 1] == '_' ? len - 1 : len), op);
	for (i = 0; i < TL_ARRAY_SIZE(ix_rules); i++) {
		const struct ix_rule *r = &ix_rules[i];
		cJSON *ti;
		long long high;

		if (strcmp(r->op, op) && strcmp(r->op, base))
			continue;
		for (j = 0; j < n && strcmp(s->args[j].name, r->index); j++)
			;
		if (j == n || !has_int_tensor(vals[j]))
			continue;
		high = ix_high(r, vals, s, n, vals[j]);
		if (high <= 0)
			continue;
		ti = cJSON_AddObjectToObject(objs[j], "tl_init");
		if (!ti || !cJSON_AddStringToObject(ti, "kind", "randint") ||
		    !cJSON_AddNumberToObject(ti, "low", 0) || !cJSON_AddItemToObject(ti, "high", tl_json_int(high)))
			return -ENOMEM;
	}
	return 0;
}

/* ------------------------------------------------------------------ entries */

static cJSON *arg_object(const char *name, const char *type, cJSON *value)
{
	cJSON *o = cJSON_CreateObject();

	if (!o || !value) {
		cJSON_Delete(o);
		cJSON_Delete(value);
		return NULL;
	}
	cJSON_AddStringToObject(o, "arg_name", name);
	cJSON_AddStringToObject(o, "arg_type", type);
	cJSON_AddItemToObject(o, "value", value);
	return cJSON_GetArraySize(o) == 3 ? o : (cJSON_Delete(o), NULL);
}

/* Layer norms whose normalized_shape an older profiler left out: it is the
 * weight's shape (else the input's last dimension), not a guess of one. */
static int guess_normalized_shape(struct ir_ctx *c, const struct tl_schema *s, cJSON **vals,
				  cJSON **objs)
{
	const cJSON *w = NULL, *in = NULL, *shape;
	size_t i, k = SIZE_MAX;
	cJSON *v;

	for (i = 0; i < c->np; i++) {
		if (!strcmp(s->args[i].name, "normalized_shape") && c->pa[i].kind == P_NONE && !c->pa[i].conc)
			k = i;
		else if (!strcmp(s->args[i].name, "weight") && cJSON_IsObject(vals[i]))
			w = vals[i];
		else if ((!strcmp(s->args[i].name, "input") || !strcmp(s->args[i].name, "self")) &&
			 cJSON_IsObject(vals[i]))
			in = vals[i];
	}
	if (k == SIZE_MAX)
		return 0;
	if (w && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(w, "shape"))) {
		v = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(w, "shape"), true);
	} else if (in && (shape = cJSON_GetObjectItemCaseSensitive(in, "shape")) && cJSON_GetArraySize(shape)) {
		cJSON *last = cJSON_Duplicate(cJSON_GetArrayItem(shape, cJSON_GetArraySize(shape) - 1), true);

		v = cJSON_CreateArray();
		if (!v || !last || !cJSON_AddItemToArray(v, last)) {
			cJSON_Delete(last);
			cJSON_Delete(v);
			return -ENOMEM;
		}
	} else {
		return 0;
	}
	if (!v)
		return -ENOMEM;
	cJSON_ReplaceItemInObjectCaseSensitive(objs[k], "value", v);
	vals[k] = v;
	/* derived from the recorded shapes: no longer a guess */
	for (i = 0; i < (size_t)cJSON_GetArraySize(c->unrecorded); i++) {
		const cJSON *n = cJSON_GetArrayItem(c->unrecorded, (int)i);

		if (cJSON_IsString(n) && !strcmp(n->valuestring, "normalized_shape")) {
			cJSON_DeleteItemFromArray(c->unrecorded, (int)i);
			break;
		}
	}
	return 0;
}

/* A TensorList's element dtype is not in the profile: its argument says where
 * it came from (tl_dtype_from), once per list. */
static int note_list_dtype(struct ir_ctx *c, cJSON *argobj)
{
	int err = 0;

	if (c->list_from[0] && !cJSON_AddStringToObject(argobj, "tl_dtype_from", c->list_from))
		err = -ENOMEM;
	c->list_from[0] = 0;
	return err;
}

/* A 0-d tensor argument that a kernel ran as a CPU scalar (AUnaryFunctor:
 * the first tensor operand, BUnaryFunctor: the second) was a Python number
 * the op wrapped: built on the device, it would make the op launch another
 * kernel (a tensor-tensor functor), and zeros would divide by zero. It is
 * built on the CPU, filled with its recorded value when it is a non-zero
 * number, else with 2. */
static int mark_cpu_scalars(struct ir_ctx *c, const struct tl_schema *s, cJSON *const *vals, cJSON *const *objs)
{
	size_t i, k = 0;

	if (!c->kh.cpu_scalar_a && !c->kh.cpu_scalar_b)
		return 0;
	for (i = 0; i < c->np; i++) {
		const struct tl_schema_arg *a = &s->args[i];
		const cJSON *shape = cJSON_GetObjectItemCaseSensitive(vals[i], "shape");
		struct tl_literal l = { 0 };
		cJSON *ti;
		double v = 2;
		bool scalar;

		if (a->kwarg_only || !cJSON_IsObject(vals[i]) || !cJSON_IsArray(shape))
			continue;
		/* the k-th tensor operand, 0-d and read-only */
		scalar = (k == 0 && c->kh.cpu_scalar_a) || (k == 1 && c->kh.cpu_scalar_b);
		k++;
		if (!scalar || cJSON_GetArraySize(shape) || a->is_mutable)
			continue;
		if (c->pa[i].conc)
			tl_literal_parse(c->pa[i].conc, strlen(c->pa[i].conc), &l);
		if ((l.kind == TL_LIT_INT || l.kind == TL_LIT_FLOAT || l.kind == TL_LIT_BOOL) && l.d != 0 &&
		    isfinite(l.d))
			v = l.d;
		ti = cJSON_AddObjectToObject(objs[i], "tl_init");
		if (!ti || !cJSON_AddStringToObject(ti, "kind", "full") || !cJSON_AddNumberToObject(ti, "value", v) ||
		    !cJSON_AddStringToObject(ti, "device", "cpu"))
			return -ENOMEM;
		tl_log(TL_LOG_DEBUG, "uid %llu %s: argument '%s' is a CPU scalar (the kernel's %s)",
		       (unsigned long long)c->uid, c->op, a->name, k == 1 ? "AUnaryFunctor" : "BUnaryFunctor");
	}
	return 0;
}

static int build_replay_ir(struct ir_ctx *c, const struct tl_schema *s, cJSON *ir)
{
	cJSON *pos = cJSON_AddArrayToObject(ir, "list_pos_args");
	cJSON *kw = cJSON_AddArrayToObject(ir, "list_kwargs");
	cJSON **vals = NULL, **objs = NULL;
	size_t i;
	int err = -ENOMEM;

	vals = calloc(c->np + 1, sizeof(*vals));
	objs = calloc(c->np + 1, sizeof(*objs));
	if (!pos || !kw || !vals || !objs)
		goto out;
	for (i = 0; i < c->np; i++) {
		const struct tl_schema_arg *a = &s->args[i];

		vals[i] = arg_value(c, a, &c->pa[i]);
		if (!vals[i]) {
			/* matched args always give a value: this is ENOMEM, or a bug */
			err = tl_err(-EINVAL, "uid %llu %s: no value for argument %zu '%s' (%s) from %s '%s'",
				     (unsigned long long)c->uid, c->op, i, a->name, a->type,
				     c->pa[i].type, c->pa[i].conc ? c->pa[i].conc : "");
			goto out;
		}
		objs[i] = arg_object(a->name, a->type, vals[i]);
		if (!objs[i])
			goto out;
		cJSON_AddItemToArray(a->kwarg_only ? kw : pos, objs[i]);
		if (note_concrete(objs[i], &c->pa[i]) || note_list_dtype(c, objs[i]))
			goto out;
	}
	err = guess_normalized_shape(c, s, vals, objs);
	if (!err)
		err = add_index_inits(c->op, s, c->np, vals, objs);
	if (!err)
		err = mark_cpu_scalars(c, s, vals, objs);
out:
	free(vals);
	free(objs);
	return err == -ENOMEM ? tl_err(err, "out of memory building an IR entry") : err;
}

/* Types from the profile alone (TraceLens PR #607's schemaless path). */
static int build_schemaless_ir(struct ir_ctx *c, cJSON *ir)
{
	cJSON *pos = cJSON_AddArrayToObject(ir, "list_pos_args");
	size_t i;

	if (!pos || !cJSON_AddArrayToObject(ir, "list_kwargs"))
		return tl_err(-ENOMEM, "out of memory building an IR entry");
	for (i = 0; i < c->np; i++) {
		const struct parg *p = &c->pa[i];
		struct tl_schema_arg a = { 0 };
		struct tl_literal l;
		const char *type = "unknown";
		char name[32];
		cJSON *v = NULL, *o;
		bool exact = true, nomem = false;

		tl_literal_parse(p->conc ? p->conc : "", p->conc ? strlen(p->conc) : 0, &l);
		snprintf(name, sizeof(name), "arg%zu", i);
		a.name = name;
		switch (p->kind) {
		case P_TENSOR:
			if (!is_int_list(p->dims))
				break;
			type = "Tensor";
			v = tensor_value(p->dims, p->strides, p->type, init_of(p->type));
			break;
		case P_TENSORLIST:
			if (!is_shape_list(p->dims) || !cJSON_GetArraySize(p->dims))
				break;
			type = "Tensor[]";
			v = tensor_list_value(c, NULL, p);
			break;
		case P_SCALAR:
			type = l.kind == TL_LIT_BOOL ? "bool" : l.kind == TL_LIT_INT ? "int" :
			       l.kind == TL_LIT_FLOAT ? "float" : "Scalar";
			a.kind = l.kind == TL_LIT_BOOL ? TL_ARG_BOOL : l.kind == TL_LIT_INT ? TL_ARG_INT :
				 TL_ARG_FLOAT;
			if (l.kind == TL_LIT_BOOL || l.kind == TL_LIT_INT || l.kind == TL_LIT_FLOAT)
				v = tl_literal_json(&a, p->conc, strlen(p->conc), &exact, &nomem);
			break;
		case P_SCALARLIST:
			a.is_list = true;
			a.kind = TL_ARG_INT;
			type = "int[]";
			v = p->conc ? tl_literal_json(&a, p->conc, strlen(p->conc), &exact, &nomem) : NULL;
			if (!v && !nomem && p->conc) {
				a.kind = TL_ARG_FLOAT;
				type = "float[]";
				v = tl_literal_json(&a, p->conc, strlen(p->conc), &exact, &nomem);
			}
			if (!v && !nomem && p->conc) {
				a.kind = TL_ARG_BOOL;
				type = "bool[]";
				v = tl_literal_json(&a, p->conc, strlen(p->conc), &exact, &nomem);
			}
			if (!v)
				type = "unknown";
			break;
		case P_NONE:
			type = "None";
			break;
		default:
			break;
		}
		if (!v && !nomem)
			v = cJSON_CreateNull();
		o = arg_object(name, type, v);
		if (!o)
			return tl_err(-ENOMEM, "out of memory building an IR entry");
		cJSON_AddItemToArray(pos, o);
		if (note_concrete(o, p) || note_list_dtype(c, o))
			return tl_err(-ENOMEM, "out of memory building an IR entry");
	}
	return 0;
}

static int cmp_uid_ts(const void *a, const void *b, void *ctx)
{
	const struct tl_trace *tr = ctx;
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	double tx = tr->ev[x].ts, ty = tr->ev[y].ts;

	if (tx != ty)
		return tx < ty ? -1 : 1;
	return (x > y) - (x < y);
}

/* kernels and gpu_time_us: the GPU events below @uid, those it launched and
 * those the ops it called launched (a child aten::copy_ of native_batch_norm):
 * what a replay of it runs. One an op below launched says which ("via"). */
static int add_kernels(struct tl_trace *tr, uint64_t uid, cJSON *entry)
{
	uint64_t *g = NULL;
	struct tl_iv *iv = NULL;
	cJSON *ks = NULL, *args = NULL;
	int64_t n, i, via;
	size_t m = 0;
	int err;

	/* keep whatever mode the tree was built in (python functions or not) */
	err = tl_tree_ensure(tr, tr->tree.built ? tr->tree.with_python : false);
	if (err)
		return err;
	n = tl_event_gpu_events(tr, uid, &g);
	if (n < 0)
		return tl_err((int)n, "out of memory listing GPU events");
	for (i = 0; i < n; i++) {
		const struct tl_ev *e = &tr->ev[g[i]];

		if ((e->flags & (EV_HAS_TS | EV_HAS_DUR)) == (EV_HAS_TS | EV_HAS_DUR))
			g[m++] = g[i];
	}
	if (m > 1)
		tl_qsort_r(g, m, sizeof(*g), cmp_uid_ts, tr);
	iv = calloc(m + 1, sizeof(*iv));
	ks = cJSON_CreateArray();
	err = -ENOMEM;
	if (!iv || !ks)
		goto out;
	for (i = 0; i < (int64_t)m; i++) {
		const struct tl_ev *e = &tr->ev[g[i]];
		cJSON *k = cJSON_CreateObject();
		const char *keys[] = { "grid", "block" };
		size_t j;

		iv[i].s = e->ts;
		iv[i].e = tl_ev_end(e);
		if (!k)
			goto out;
		cJSON_AddItemToArray(ks, k);
		if (!cJSON_AddStringToObject(k, "name", tl_ev_name(tr, e)) ||
		    !cJSON_AddNumberToObject(k, "dur", e->dur))
			goto out;
		via = tl_event_launcher(tr, g[i]);
		if (via >= 0 && via != (int64_t)uid &&
		    (!cJSON_AddStringToObject(k, "via", tl_ev_name(tr, &tr->ev[via])) ||
		     !cJSON_AddNumberToObject(k, "via_uid", (double)via)))
			goto out;
		if (tl_trace_event_args(tr, g[i], &args) == -ENOMEM)
			goto out;
		for (j = 0; j < TL_ARRAY_SIZE(keys); j++) {
			const cJSON *x = cJSON_GetObjectItemCaseSensitive(args, keys[j]);

			cJSON *dup = x ? cJSON_Duplicate(x, true) : NULL;

			if (x && (!dup || !cJSON_AddItemToObject(k, keys[j], dup))) {
				cJSON_Delete(dup);
				goto out;
			}
		}
		cJSON_Delete(args);
		args = NULL;
	}
	if (!cJSON_AddNumberToObject(entry, "gpu_time_us", tl_union_len(iv, m)) ||
	    !cJSON_AddItemToObject(entry, "kernels", ks))
		goto out;
	ks = NULL;
	err = 0;
out:
	free(g);
	free(iv);
	cJSON_Delete(ks);
	cJSON_Delete(args);
	return err == -ENOMEM ? tl_err(err, "out of memory listing kernels") : err;
}

int tl_ir_entry(struct tl_trace *tr, uint64_t uid, const struct tl_ir_opts *opts, cJSON **out)
{
	struct tl_ir_opts o = { 0 };
	struct ir_ctx c = { 0 };
	struct tl_event_info info;
	const struct tl_schema *const *cand = NULL;
	const struct tl_schema *best = NULL;
	cJSON *e = NULL, *ir, *src;
	char why[400] = "";
	size_t ncand = 0;
	int err;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (uid >= tl_trace_nevents(tr))
		return tl_err(-ERANGE, "uid %llu is not an event of %s (%llu events)",
			      (unsigned long long)uid, tl_trace_path(tr),
			      (unsigned long long)tl_trace_nevents(tr));
	tl_trace_event(tr, uid, &info);
	c.tr = tr;
	c.uid = uid;
	c.op = info.name;
	err = tl_trace_event_args(tr, uid, &c.args);
	if (err)
		return err;
	err = read_profile(&c, &info);
	if (err)
		goto out;
	/* keep whatever mode the tree was built in (python functions or not) */
	err = tl_tree_ensure(tr, tr->tree.built ? tr->tree.with_python : false);
	if (!err)
		err = tl_ir_kernel_hints(tr, uid, &c.kh);
	if (err)
		goto out;
	/* autograd nodes (CompiledFunction, torch::autograd::CppNode<...>) are
	 * recorded like ops but are no operator of any library */
	if (!strstr(c.op, "::") || !strncmp(c.op, "torch::autograd::", 17) ||
	    !strncmp(c.op, "autograd::", 10)) {
		err = tl_err(-ENOTSUP, "uid %llu %s: an autograd function, not an operator: nothing to replay",
			     (unsigned long long)uid, c.op);
		goto out;
	}

	if (o.db)
		ncand = tl_schema_db_find(o.db, c.op, &cand);
	if (ncand) {
		err = pick_overload(&c, cand, ncand, &best, why, sizeof(why));
		if (err)
			goto out;
	}
	if (!best && !o.allow_schemaless) {
		if (!o.db)
			err = tl_err(-EINVAL, "uid %llu %s: no schema database given", (unsigned long long)uid,
				     c.op);
		else if (!ncand)
			err = tl_err(-ENOENT, "uid %llu %s: op %s is not in the schema database (%s)",
				     (unsigned long long)uid, c.op, c.op, tl_schema_db_label(o.db));
		else
			err = tl_err(-EINVAL,
				     "uid %llu %s: none of its %zu overloads in %s matches the recorded arguments; %s",
				     (unsigned long long)uid, c.op, ncand, tl_schema_db_label(o.db), why);
		goto out;
	}
	if (!best)
		tl_log(TL_LOG_DEBUG, "uid %llu %s: schemaless (%s)", (unsigned long long)uid, c.op,
		       ncand ? why : "op not in the schema database");

	err = -ENOMEM;
	e = cJSON_CreateObject();
	if (!e || !cJSON_AddStringToObject(e, "op_name", c.op) ||
	    !(ir = cJSON_AddObjectToObject(e, "replay_ir")))
		goto out;
	c.unrecorded = cJSON_CreateArray();
	if (!c.unrecorded)
		goto out;
	err = best ? build_replay_ir(&c, best, ir) : build_schemaless_ir(&c, ir);
	if (err)
		goto out;

	err = -ENOMEM;
	if (!cJSON_AddNumberToObject(e, "uid", (double)uid))
		goto out;
	if (best && (!cJSON_AddStringToObject(e, "schema", best->text) ||
		     !cJSON_AddStringToObject(e, "overload", best->overload)))
		goto out;
	if (info.has_dur && !cJSON_AddNumberToObject(e, "trace_dur_us", info.dur))
		goto out;
	err = add_kernels(tr, uid, e);
	if (err)
		goto out;
	{
		cJSON *bc = NULL;

		err = tl_batch_context(tr, uid, &bc);
		if (err)
			goto out;
		if (bc)
			cJSON_AddItemToObject(e, "batch_context", bc);
	}
	err = -ENOMEM;
	src = cJSON_AddObjectToObject(e, "source");
	if (!src ||
	    !cJSON_AddStringToObject(src, "trace", o.trace_label ? o.trace_label : tl_trace_path(tr)) ||
	    !cJSON_AddStringToObject(src, "tlreplay", tl_version()) ||
	    !(o.db ? cJSON_AddStringToObject(src, "schemas", tl_schema_db_label(o.db)) :
		     cJSON_AddNullToObject(src, "schemas")))
		goto out;
	if (!best && (!cJSON_AddTrueToObject(e, "schemaless") ||
		      !cJSON_AddStringToObject(e, "schemaless_reason",
					       ncand ? why : o.db ? "op not in the schema database" : "no schemas")))
		goto out;
	if (cJSON_GetArraySize(c.unrecorded)) {
		tl_log(TL_LOG_INFO, "uid %llu %s: values not in the profile, defaults or guesses used",
		       (unsigned long long)uid, c.op);
		cJSON_AddItemToObject(e, "unrecorded_args", c.unrecorded);
		c.unrecorded = NULL;
	}
	*out = e;
	e = NULL;
	err = 0;
out:
	if (err == -ENOMEM)
		tl_err(err, "uid %llu %s: out of memory building its IR entry", (unsigned long long)uid, c.op);
	cJSON_Delete(e);
	cJSON_Delete(c.unrecorded);
	cJSON_Delete(c.args);
	free(c.pa);
	return err;
}
