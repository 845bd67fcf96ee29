/* SPDX-License-Identifier: MIT */
/* Helpers of the normalization and extension models: dtypes as TraceLens
 * sizes and names them, Python reprs of tuples, Python list literals. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perf/perf_internal.h"

int pm_param_none(struct pm_out *out, const char *name)
{
	int err = pm_param_str(out, name, "");

	if (!err)
		out->params[out->nparams - 1] = tl_cell_empty();
	return err;
}

int pm_param_count(struct pm_out *out, const char *name, double v)
{
	if (v == floor(v) && fabs(v) < 9.2e18)
		return pm_param_int(out, name, (long long)v);
	return pm_param_num(out, name, v);
}

/* TraceLens's name2bpe (PerfModel/utils.py), matched case blind as it lowers
 * the name first. */
double pm_dtype_bpe(const char *dtype)
{
	static const struct {
		const char *name;
		double bpe;
	} tab[] = {
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
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcasecmp(dtype, tab[i].name))
			return tab[i].bpe;
	return 0;
}

/* TraceLens's torch_dtype_map (PerfModel/utils.py), case blind likewise. */
const char *pm_dtype_precision(const char *dtype)
{
	static const struct {
		const char *name, *prec;
	} tab[] = {
		{ "float", "fp32" }, { "double", "fp64" }, { "c10::half", "fp16" },
		{ "c10::bfloat16", "bf16" }, { "c10::float8_e4m3fnuz", "fp8" },
		{ "unsigned char", "fp8" }, { "fp8", "fp8" }, { "fp4", "fp4" },
		{ "mxfp4", "fp4" }, { "c10::float4_e2m1fn_x2", "fp4" },
		{ "c10::float8_e4m3fn", "fp8" },
	};
	size_t i;

	if (!dtype)
		return NULL;
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcasecmp(dtype, tab[i].name))
			return tab[i].prec;
	return NULL;
}

void pm_compute_spec(struct pm_out *out, const char *maf, const char *dtype)
{
	const char *prec = pm_dtype_precision(dtype);

	if (prec && maf)
		snprintf(out->compute_spec, sizeof(out->compute_spec), "%s_%s", maf, prec);
	else
		out->compute_spec[0] = 0;
}

static int is_int(const cJSON *v)
{
	return cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 9.007199254740992e15;
}

int pm_tuple_repr(const cJSON *a, char *buf, size_t n)
{
	const cJSON *v;
	size_t len = 0, count = 0;
	int w;

	if (!cJSON_IsArray(a) || n < 3)
		return -EINVAL;
	buf[len++] = '(';
	cJSON_ArrayForEach(v, a) {
		if (!is_int(v))
			return -EINVAL;
		w = snprintf(buf + len, n - len, "%s%.0f", count ? ", " : "", v->valuedouble);
		if (w < 0 || (size_t)w >= n - len)
			return -ENOSPC;
		len += (size_t)w;
		count++;
	}
	/* a one-element tuple keeps its comma: (5,) */
	w = snprintf(buf + len, n - len, "%s", count == 1 ? ",)" : ")");
	if (w < 0 || (size_t)w >= n - len)
		return -ENOSPC;
	return 0;
}

double pm_dims_prod(const cJSON *a)
{
	const cJSON *v;
	double p = 1;

	if (!cJSON_IsArray(a))
		return -1;
	cJSON_ArrayForEach(v, a) {
		if (!is_int(v))
			return -1;
		p *= v->valuedouble;
	}
	return p;
}

int pm_parse_list(const char *s, double *v, int max)
{
	const char *p = s;
	int n = 0;

	if (!s)
		return -EINVAL;
	while (*p == ' ')
		p++;
	if (*p++ != '[')
		return -EINVAL;
	for (;;) {
		char *end;

		while (*p == ' ')
			p++;
		if (*p == ']' && n == 0)
			break;
		if (n == max)
			return -EINVAL;
		if (!strncmp(p, "True", 4)) {
			v[n++] = 1;
			p += 4;
		} else if (!strncmp(p, "False", 5)) {
			v[n++] = 0;
			p += 5;
		} else {
			long long x = strtoll(p, &end, 10);

			if (end == p)
				return -EINVAL;
			v[n++] = (double)x;
			p = end;
		}
		while (*p == ' ')
			p++;
		if (*p == ',') {
			p++;
			while (*p == ' ')
				p++;
			if (*p == ']')	/* [5,] */
				break;
			continue;
		}
		if (*p == ']')
			break;
		return -EINVAL;
	}
	p++;
	while (*p == ' ')
		p++;
	return *p ? -EINVAL : n;
}

const char *pm_sheet_inference(const struct pm_class *c)
{
	if (c && c->sheet && !strcmp(c->sheet, "Normalization"))
		return "Normalization_fwd";
	return c ? c->sheet : NULL;
}
