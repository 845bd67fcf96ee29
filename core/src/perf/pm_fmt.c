/* SPDX-License-Identifier: MIT */
/* Dtypes and Python reprs as TraceLens's perf models use them (added with the
 * attention family; see perf_internal.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "perf/perf_internal.h"

/* TraceLens's name2bpe (PerfModel/utils.py), looked up without case. */
int pm_dtype_bpe(const char *dtype)
{
	static const struct {
		const char *name;
		int bpe;
	} map[] = {
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
	for (i = 0; i < TL_ARRAY_SIZE(map); i++)
		if (!strcasecmp(dtype, map[i].name))
			return map[i].bpe;
	return 0;
}

/* TraceLens's torch_dtype_map (PerfModel/utils.py), without case. */
const char *pm_dtype_precision(const char *dtype)
{
	static const char *const map[][2] = {
		{ "float", "fp32" }, { "double", "fp64" }, { "c10::half", "fp16" },
		{ "c10::bfloat16", "bf16" }, { "c10::float8_e4m3fnuz", "fp8" },
		{ "unsigned char", "fp8" }, { "fp8", "fp8" }, { "fp4", "fp4" },
		{ "mxfp4", "fp4" }, { "c10::float4_e2m1fn_x2", "fp4" },
		{ "c10::float8_e4m3fn", "fp8" },
	};
	size_t i;

	if (!dtype)
		return NULL;
	for (i = 0; i < TL_ARRAY_SIZE(map); i++)
		if (!strcasecmp(dtype, map[i][0]))
			return map[i][1];
	return NULL;
}

/* TreePerf's get_compute_spec: "{maf}_{precision}", nothing when either is
 * missing (an empty dtype counts as none, as the models test it for truth). */
void pm_set_compute_spec(struct pm_out *out, const char *maf, const char *dtype)
{
	const char *p = dtype && *dtype ? pm_dtype_precision(dtype) : NULL;

	if (!maf || !p)
		out->compute_spec[0] = 0;
	else
		snprintf(out->compute_spec, sizeof(out->compute_spec), "%s_%s", maf, p);
}

static int put(char *buf, size_t n, size_t *len, const char *s, size_t k)
{
	if (*len + k + 1 > n)
		return -ENOSPC;
	memcpy(buf + *len, s, k);
	*len += k;
	buf[*len] = 0;
	return 0;
}

/* Python's repr of a str: single quotes unless the text holds a single quote
 * and no double one; backslashes and the chosen quote escaped, control
 * characters as \n, \t, \r or \xNN. */
int pm_py_str_repr(const char *s, char *buf, size_t n)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
	size_t len = 0;
	int err;

	if (!n)
		return -ENOSPC;
	buf[0] = 0;
	err = put(buf, n, &len, &q, 1);
	for (; !err && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		char esc[8];

		if (ch == '\\' || ch == (unsigned char)q) {
			esc[0] = '\\';
			esc[1] = (char)ch;
			err = put(buf, n, &len, esc, 2);
		} else if (ch == '\n' || ch == '\t' || ch == '\r') {
			esc[0] = '\\';
			esc[1] = ch == '\n' ? 'n' : ch == '\t' ? 't' : 'r';
			err = put(buf, n, &len, esc, 2);
		} else if (ch < 0x20 || ch == 0x7f) {
			snprintf(esc, sizeof(esc), "\\x%02x", ch);
			err = put(buf, n, &len, esc, 4);
		} else {
			err = put(buf, n, &len, (const char *)&ch, 1);
		}
	}
	if (!err)
		err = put(buf, n, &len, &q, 1);
	return err;
}

/* Python's repr of a tuple of strs, NULL items being None: "('a', None)",
 * "('a',)", "()". */
int pm_py_tuple_repr(const char *const *items, int count, char *buf, size_t n)
{
	size_t len = 0;
	int i, err;

	if (!n)
		return -ENOSPC;
	buf[0] = 0;
	err = put(buf, n, &len, "(", 1);
	for (i = 0; !err && i < count; i++) {
		char one[512];

		if (i)
			err = put(buf, n, &len, ", ", 2);
		if (!err && !items[i])
			err = put(buf, n, &len, "None", 4);
		else if (!err && !(err = pm_py_str_repr(items[i], one, sizeof(one))))
			err = put(buf, n, &len, one, strlen(one));
	}
	if (!err && count == 1)
		err = put(buf, n, &len, ",", 1);
	if (!err)
		err = put(buf, n, &len, ")", 1);
	return err;
}

/* Python's repr of tuple(a) for a JSON array of integers: "(1, 2)", "(5,)",
 * "()". */
int pm_tuple_repr(const cJSON *a, char *buf, size_t n)
{
	const cJSON *it;
	size_t len = 0;
	int count = 0, err;

	if (!n)
		return -ENOSPC;
	buf[0] = 0;
	if (!cJSON_IsArray(a))
		return -EINVAL;
	err = put(buf, n, &len, "(", 1);
	cJSON_ArrayForEach(it, a) {
		char num[32];
		double v = it->valuedouble;

		if (err)
			break;
		if (!cJSON_IsNumber(it) || v != (double)(long long)v)
			return -EINVAL;
		snprintf(num, sizeof(num), "%s%lld", count ? ", " : "", (long long)v);
		err = put(buf, n, &len, num, strlen(num));
		count++;
	}
	if (!err && count == 1)
		err = put(buf, n, &len, ",", 1);
	if (!err)
		err = put(buf, n, &len, ")", 1);
	return err;
}
