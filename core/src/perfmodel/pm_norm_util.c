/* SPDX-License-Identifier: MIT */
/* Helpers of the normalization and extension models: dtypes as TraceLens
 * sizes and names them, Python reprs of tuples, Python list literals. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perfmodel/perfmodel_internal.h"

int pm_param_count(struct pm_out *out, const char *name, double v)
{
	if (v == floor(v) && fabs(v) < 9.2e18)
		return pm_param_int(out, name, (long long)v);
	return pm_param_num(out, name, v);
}

static int is_int(const cJSON *v)
{
	return cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 9.007199254740992e15;
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
