/* SPDX-License-Identifier: MIT */
/* How the extension models (pm_rope.c, pm_misc.c, pm_collective.c,
 * pm_moe.c) read a call's recorded args: a type, a dimension, a whole
 * shape, and the check that there are Input Dims at all. */
#include "perfmodel/perfmodel_internal.h"

const char *pm_ext_type_at(const struct pm_call *c, int i)
{
	const cJSON *t = pm_arg_at(c, "Input type", i);

	return cJSON_IsString(t) ? t->valuestring : NULL;
}

int pm_ext_check_call(const struct pm_call *c, struct pm_out *o)
{
	if (!c || !c->args || !cJSON_IsArray(pm_arg(c, "Input Dims")))
		return pm_fail(o, "no Input Dims");
	return 0;
}

/* Dimension @k of Input Dims[@i]; Python's negative index when @k < 0. */
int pm_ext_dim_of(const struct pm_call *c, int i, int k, double *out, struct pm_out *o)
{
	const cJSON *a = pm_arg_at(c, "Input Dims", i), *d;

	if (!cJSON_IsArray(a))
		return pm_fail(o, "no Input Dims[%d]", i);
	if (k < 0)
		k += cJSON_GetArraySize(a);
	d = cJSON_GetArrayItem(a, k);
	if (!cJSON_IsNumber(d))
		return pm_fail(o, "Input Dims[%d] has no dimension %d", i, k);
	*out = d->valuedouble;
	return 0;
}

/* A JSON array of exactly @n integers (Python's tuple unpacking). */
int pm_ext_shape_n(const struct pm_call *c, int i, int n, double *v, struct pm_out *o)
{
	const cJSON *a = pm_arg_at(c, "Input Dims", i), *d;
	int k = 0;

	if (!cJSON_IsArray(a) || (n >= 0 && cJSON_GetArraySize(a) != n))
		return pm_fail(o, "Input Dims[%d] is not %d-D", i, n);
	cJSON_ArrayForEach(d, a) {
		if (!cJSON_IsNumber(d))
			return pm_fail(o, "Input Dims[%d] is not a tensor shape", i);
		if (k < 8)
			v[k++] = d->valuedouble;
	}
	return 0;
}
