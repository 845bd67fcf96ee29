/* SPDX-License-Identifier: MIT */
/* The argument model of tl_ir_flops(), shared by the entry (ir_flops.c) and
 * the rules (ir_flops_mm.c, ir_flops_elem.c): arguments found by name or by
 * position, tensors with their shapes and element sizes, scalars, int[]
 * lists, and the outputs counted. Apart from the entry, so that the rules
 * depend on it and the entry on the rules, without a cycle. */
#include "ir/ir_internal.h"

/* ------------------------------------------------------------------ dtypes */

/* Element size of a ScalarType code (c10/core/ScalarType.h order), as a
 * dtype= argument carries it; NAN when unknown. */
double fl_scalar_type_size(double code)
{
	static const signed char sz[] = {
		1, 1, 2, 4, 8, 2, 4, 8,	/* uint8 int8 int16 int32 int64 half float double */
		4, 8, 16, 1, 1, 1, 4, 2,	/* complex32/64/128 bool qint8 quint8 qint32 bfloat16 */
		1, 1, -1, -1, -1, -1, -1,	/* quint4x2 quint2x4 bits types */
		1, 1, 1, 1,		/* float8 e5m2 e4m3fn e5m2fnuz e4m3fnuz */
	};

	if (isnan(code) || code < 0 || code >= (double)TL_ARRAY_SIZE(sz) || sz[(int)code] < 0)
		return NAN;
	return sz[(int)code];
}

/* ------------------------------------------------------------------ arguments */

/* A number: JSON number, bool, or the cJSON_Raw text tl_ir_entry() uses for
 * numbers whose kind must survive ("2.0", integers beyond 2^53). */
bool fl_num(const cJSON *v, double *out)
{
	char *end;

	if (cJSON_IsNumber(v)) {
		*out = v->valuedouble;
		return true;
	}
	if (cJSON_IsBool(v)) {
		*out = cJSON_IsTrue(v);
		return true;
	}
	if (cJSON_IsRaw(v) && v->valuestring) {
		*out = strtod(v->valuestring, &end);
		return end != v->valuestring && !*end;
	}
	return false;
}

/* The argument called @names ("input|self": any of them), else, in a
 * schemaless entry, the positional argument @pos; NULL when absent. */
static const cJSON *arg_item(const struct fl_ctx *c, const char *names, int pos)
{
	const cJSON *lists[2] = { c->pos, c->kw }, *a, *n;
	const char *p, *bar;
	size_t i, len;

	for (p = names; *p; p = *bar ? bar + 1 : bar) {
		bar = strchr(p, '|');
		if (!bar)
			bar = p + strlen(p);
		len = (size_t)(bar - p);
		for (i = 0; i < 2; i++) {
			cJSON_ArrayForEach(a, lists[i]) {
				n = cJSON_GetObjectItemCaseSensitive(a, "arg_name");
				if (cJSON_IsString(n) && strlen(n->valuestring) == len &&
				    !strncmp(n->valuestring, p, len))
					return a;
			}
		}
	}
	if (c->schemaless && pos >= 0)
		return cJSON_GetArrayItem(c->pos, pos);
	return NULL;
}

/* The value of an argument; NULL when absent or None. */
const cJSON *fl_arg_value(const struct fl_ctx *c, const char *names, int pos)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(arg_item(c, names, pos), "value");

	return cJSON_IsNull(v) ? NULL : v;
}

/* @v as a tensor: 1 if it is one, 0 if it is not a tensor value, -EINVAL
 * if it looks like one but is malformed. */
int fl_tensor_of(const struct fl_ctx *c, const cJSON *v, struct fl_tensor *t)
{
	const cJSON *shape = cJSON_GetObjectItemCaseSensitive(v, "shape");
	const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(v, "dtype"), *d;
	const struct tl_dtype *dt;
	double x;

	if (!cJSON_IsObject(v) || (!shape && !dtype))
		return 0;
	if (!cJSON_IsArray(shape) || !cJSON_IsString(dtype))
		return tl_err(-EINVAL, "%s: a tensor value needs a shape list and a dtype string", c->op);
	t->nd = 0;
	t->numel = 1;
	dt = tl_dtype_find(dtype->valuestring);
	t->esize = dt ? dt->size : NAN;
	cJSON_ArrayForEach(d, shape) {
		/* 1e400 reads as infinity, which floor() keeps */
		if (!fl_num(d, &x) || !isfinite(x) || x < 0 || x != floor(x))
			return tl_err(-EINVAL, "%s: tensor shape holds a value that is not a size", c->op);
		if (t->nd < FL_MAXDIM)
			t->dim[t->nd] = x;
		t->nd++;
		t->numel *= x;
	}
	/* sizes that are each finite may still multiply past a double */
	if (!isfinite(t->numel))
		return tl_err(-EINVAL, "%s: tensor shape of more elements than can be counted", c->op);
	return 1;
}

double fl_bytes(const struct fl_tensor *t)
{
	return t->numel * t->esize;
}

/* Tensor argument @names/@pos into @t: 1, 0 if absent or not a tensor, -EINVAL. */
int fl_get_tensor(const struct fl_ctx *c, const char *names, int pos, struct fl_tensor *t)
{
	int r = fl_tensor_of(c, fl_arg_value(c, names, pos), t);

	if (r > 0 && t->nd > FL_MAXDIM)
		return tl_err(-ENOTSUP, "%s: tensor of more than %d dimensions", c->op, FL_MAXDIM);
	return r;
}

int fl_need_tensor(const struct fl_ctx *c, const char *names, int pos, struct fl_tensor *t)
{
	int r = fl_get_tensor(c, names, pos, t);

	if (r == 0)
		return tl_err(-EINVAL, "%s: argument %s is not a tensor", c->op, names);
	return r < 0 ? r : 0;
}

/* A scalar argument, @dflt when absent or not a number. */
double fl_get_num(const struct fl_ctx *c, const char *names, int pos, double dflt)
{
	double x;

	return fl_num(fl_arg_value(c, names, pos), &x) ? x : dflt;
}

/* An int[] argument for @n spatial dimensions into @out: a single value (or
 * a 1-list) stands for all of them, as in conv2d(stride=2). */
int fl_get_ints(const struct fl_ctx *c, const char *name, int pos, int n, double dflt, double *out)
{
	const cJSON *v = fl_arg_value(c, name, pos), *x;
	int i = 0;

	if (!v || (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 0)) {
		for (i = 0; i < n; i++)
			out[i] = dflt;
		return 0;
	}
	if (fl_num(v, &out[0]) || (cJSON_GetArraySize(v) == 1 && fl_num(cJSON_GetArrayItem(v, 0), &out[0]))) {
		for (i = 1; i < n; i++)
			out[i] = out[0];
		return 0;
	}
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
		return tl_err(-EINVAL, "%s: %s should hold %d values", c->op, name, n);
	cJSON_ArrayForEach(x, v)
		if (!fl_num(x, &out[i++]))
			return tl_err(-EINVAL, "%s: %s holds a value that is not a number", c->op, name);
	return 0;
}

/* An output of @numel elements of @esize bytes; outputs that are arguments
 * (out=) were counted when the arguments were read. */
void fl_add_out(struct fl_ctx *c, double numel, double esize)
{
	if (!c->has_out)
		c->out_bytes += numel * esize;
}
