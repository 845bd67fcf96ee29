/* SPDX-License-Identifier: MIT */
/* Shapes, dtypes and Python reprs for the perf models: what TraceLens's
 * models compute with Python tuples (math.prod, broadcasting) and what its
 * sheets show of them (str() of a tuple, the bytes per element of a dtype
 * name, the "vector_bf16" Compute Spec). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perfmodel/perfmodel_internal.h"

int pm_shape_from_json(const cJSON *a, struct pm_shape *s)
{
	const cJSON *e;

	s->n = 0;
	if (!cJSON_IsArray(a))
		return -EINVAL;
	cJSON_ArrayForEach(e, a) {
		int64_t v;

		if (!cJSON_IsNumber(e) || s->n == PM_MAX_DIMS)
			return -EINVAL;
		/* a dim or stride is a Python int; anything else makes
		 * TraceLens's prod() or repr differ from ours */
		if (!tl_json_i64(e, INT64_MIN, INT64_MAX, &v))
			return -EINVAL;
		s->d[s->n++] = v;
	}
	return 0;
}

double pm_shape_numel(const struct pm_shape *s)
{
	double n = 1;
	int i;

	/* math.prod(()) is 1: a 0-d tensor holds one element */
	for (i = 0; i < s->n; i++)
		n *= (double)s->d[i];
	return n;
}

int pm_shape_repr(const struct pm_shape *s, int as_list, char *buf, size_t n)
{
	size_t len = 0;
	int i, w;

	w = snprintf(buf, n, "%c", as_list ? '[' : '(');
	if (w < 0 || (size_t)w >= n)
		return -ENOSPC;
	len = (size_t)w;
	for (i = 0; i < s->n; i++) {
		w = snprintf(buf + len, n - len, "%s%lld", i ? ", " : "", s->d[i]);
		if (w < 0 || (size_t)w >= n - len)
			return -ENOSPC;
		len += (size_t)w;
	}
	/* Python writes a 1-tuple as "(5,)" */
	w = snprintf(buf + len, n - len, "%s%c", !as_list && s->n == 1 ? "," : "",
		     as_list ? ']' : ')');
	if (w < 0 || (size_t)w >= n - len)
		return -ENOSPC;
	return 0;
}

int pm_shape_broadcast(const struct pm_shape *a, const struct pm_shape *b, struct pm_shape *out)
{
	int n = a->n > b->n ? a->n : b->n, i;

	/* numpy's rule, as TraceLens's BinaryElementwise.get_broadcast_shape
	 * applies it: align right, a dim of 1 stretches, others must agree */
	for (i = 0; i < n; i++) {
		int ia = i - (n - a->n), ib = i - (n - b->n);
		long long da = ia >= 0 ? a->d[ia] : 1, db = ib >= 0 ? b->d[ib] : 1;

		if (da != db && da != 1 && db != 1)
			return -EINVAL;
		out->d[i] = da > db ? da : db;
	}
	out->n = n;
	return 0;
}

int pm_parse_int_list(const char *text, struct pm_shape *s)
{
	const char *p = text;
	char close;

	/* the Python literal of a flat list or tuple of ints, as
	 * ast.literal_eval reads a Concrete Inputs entry ("[16, 240, 240]") */
	s->n = 0;
	while (isspace((unsigned char)*p))
		p++;
	if (*p != '[' && *p != '(')
		return -EINVAL;
	close = *p == '[' ? ']' : ')';
	p++;
	for (;;) {
		char *end;
		long long v;

		while (isspace((unsigned char)*p))
			p++;
		if (*p == close)
			break;
		if (!isdigit((unsigned char)*p) && *p != '-' && *p != '+')
			return -EINVAL;
		errno = 0;
		v = strtoll(p, &end, 10);
		if (end == p || errno || s->n == PM_MAX_DIMS)
			return -EINVAL;
		s->d[s->n++] = v;
		p = end;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p != close)
			return -EINVAL;
		break;
	}
	/* "(5)" is the int 5, not a tuple: tuple(5) raises */
	if (close == ')' && s->n == 1 && !strchr(text, ','))
		return -EINVAL;
	p++;
	while (isspace((unsigned char)*p))
		p++;
	return *p ? -EINVAL : 0;
}

int pm_py_str_repr(const char *s, char *buf, size_t n)
{
	/* repr(str): single quotes unless the text holds ' and no " */
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
	size_t len = 0;

	if (n < 3)
		return -ENOSPC;
	buf[len++] = q;
	for (; *s; s++) {
		int esc = *s == q || *s == '\\';

		if (len + 2 + (size_t)esc >= n)
			return -ENOSPC;
		if (esc)
			buf[len++] = '\\';
		buf[len++] = *s;
	}
	buf[len++] = q;
	buf[len] = '\0';
	return 0;
}

int pm_py_tuple_repr(const char *const *items, int count, char *buf, size_t n)
{
	size_t len;
	int i, err;

	if (n < 2)
		return -ENOSPC;
	buf[0] = '(';
	len = 1;
	for (i = 0; i < count; i++) {
		if (i) {
			if (len + 2 >= n)
				return -ENOSPC;
			buf[len++] = ',';
			buf[len++] = ' ';
		}
		if (items[i]) {
			err = pm_py_str_repr(items[i], buf + len, n - len);
			if (err)
				return err;
			len += strlen(buf + len);
		} else {
			if (len + 4 >= n)
				return -ENOSPC;
			memcpy(buf + len, "None", 4);
			len += 4;
		}
	}
	if (len + 3 >= n)
		return -ENOSPC;
	if (count == 1)
		buf[len++] = ',';
	buf[len++] = ')';
	buf[len] = '\0';
	return 0;
}

int pm_param_none(struct pm_out *out, const char *name)
{
	/* a None parameter: pandas' astype(str) keeps it missing, so the
	 * sheet shows an empty field */
	int err = pm_param_str(out, name, "");

	if (!err)
		out->params[out->nparams - 1] = tl_cell_empty();
	return err;
}

int pm_param_shape(struct pm_out *out, const char *name, const struct pm_shape *s)
{
	char buf[PM_MAX_DIMS * 24 + 8];
	int err = pm_shape_repr(s, 0, buf, sizeof(buf));

	return err ? err : pm_param_str(out, name, buf);
}

double pm_dtype_bpe(const char *dtype)
{
	static const struct {
		const char *name;
		int bpe;
	} t[] = {
		/* TraceLens's name2bpe, matched without case as it does */
		{ "double", 8 }, { "long int", 8 },
		{ "float", 4 }, { "scalar", 4 }, { "int", 4 },
		{ "c10::half", 2 }, { "c10::bfloat16", 2 },
		{ "c10::float8_e4m3fnuz", 1 }, { "c10::float8_e4m3fn", 1 },
		{ "c10::float8_e5m2", 1 }, { "c10::float8_e8m0fnu", 1 },
		{ "unsigned char", 1 }, { "signed char", 1 }, { "fp8", 1 },
		{ "c10::float4_e2m1fn_x2", 1 }, { "fp4", 1 },
	};
	size_t i;

	if (!dtype)
		return 0;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcasecmp(dtype, t[i].name))
			return t[i].bpe;
	return 0;
}

const char *pm_dtype_precision(const char *dtype)
{
	static const struct {
		const char *name, *prec;
	} t[] = {
		/* TraceLens's torch_dtype_map (no int types: they get no spec) */
		{ "float", "fp32" }, { "double", "fp64" },
		{ "c10::half", "fp16" }, { "c10::bfloat16", "bf16" },
		{ "c10::float8_e4m3fnuz", "fp8" }, { "unsigned char", "fp8" },
		{ "fp8", "fp8" }, { "fp4", "fp4" }, { "mxfp4", "fp4" },
		{ "c10::float4_e2m1fn_x2", "fp4" }, { "c10::float8_e4m3fn", "fp8" },
	};
	size_t i;

	if (!dtype)
		return NULL;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcasecmp(dtype, t[i].name))
			return t[i].prec;
	return NULL;
}

void pm_compute_spec(struct pm_out *out, const char *maf, const char *dtype)
{
	/* get_compute_spec: "{maf}_{precision}", nothing when the dtype is
	 * None, empty or has no precision */
	const char *prec = dtype && *dtype ? pm_dtype_precision(dtype) : NULL;

	if (prec)
		snprintf(out->compute_spec, sizeof(out->compute_spec), "%s_%s", maf, prec);
	else
		out->compute_spec[0] = '\0';
}

int pm_arg_dtype(const struct pm_call *c, int pos, const char **dtype)
{
	const cJSON *t = pm_arg_at(c, "Input type", pos);

	/* a dtype is a string, or None (null); a missing position is the
	 * IndexError that drops TraceLens's row */
	*dtype = NULL;
	if (cJSON_IsString(t)) {
		*dtype = t->valuestring;
		return 0;
	}
	return cJSON_IsNull(t) ? 0 : -EINVAL;
}
