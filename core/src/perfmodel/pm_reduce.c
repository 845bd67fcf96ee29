/* SPDX-License-Identifier: MIT */
/* TraceLens's reduce perf model (aten_reduce, of the Reduce family): sum,
 * mean, max, norm and the like read every input element once (FLOPs = input
 * elements) and write the reduced output. TraceLens puts a call on the
 * Reduce_fwd sheet, and the same call again on Reduce_bwd when it has
 * linked backward ops; for this model the backward FLOPs and bytes are the
 * forward ones, so one class serves both sheets and the report decides. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "perfmodel/perfmodel_internal.h"

/* A dtype of the args (Input type[0], Output type[0]): a string or None. */
static int dtype_of(const cJSON *v, const char **dt)
{
	*dt = NULL;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v))
		return -EINVAL;
	*dt = v->valuestring;
	return 0;
}

static bool is_int(const cJSON *v)
{
	int64_t x;

	return tl_json_i64(v, INT64_MIN, INT64_MAX, &x);
}

/* aten_reduce's reading of the reduced dims and keepdim from Concrete
 * Inputs after the tensor: the last bool is keepdim; the last other entry
 * that is an int or a list of ints is the dims. Profiler traces record
 * every concrete input as text, which this rule skips: there the output is
 * a single element. *found 0: no dims given. */
static void reduce_dims(const cJSON *concrete, struct pm_shape *dims, int *found, bool *keepdim)
{
	int n = cJSON_GetArraySize(concrete), keep_idx = -1, i;

	*found = 0;
	*keepdim = false;
	dims->n = 0;
	if (!cJSON_IsArray(concrete) || n < 2)
		return;
	for (i = n - 1; i >= 1; i--) {
		const cJSON *v = cJSON_GetArrayItem(concrete, i);

		if (cJSON_IsBool(v)) {
			*keepdim = cJSON_IsTrue(v);
			keep_idx = i;
			break;
		}
	}
	for (i = n - 1; i >= 1; i--) {
		const cJSON *v = cJSON_GetArrayItem(concrete, i), *e;
		bool ok = true;

		if (i == keep_idx || !v || cJSON_IsNull(v) || cJSON_IsString(v))
			continue;
		if (cJSON_IsArray(v)) {
			dims->n = 0;
			/* int() of each entry: numbers, bools and digit strings */
			cJSON_ArrayForEach(e, v) {
				char *end = NULL;
				long long d = 0;

				if (cJSON_IsBool(e)) {
					d = cJSON_IsTrue(e);
				} else if (cJSON_IsNumber(e)) {
					int64_t x = 0;

					ok = tl_dbl_to_i64(trunc(e->valuedouble), INT64_MIN, INT64_MAX, &x);
					d = x;
				} else if (cJSON_IsString(e)) {
					d = strtoll(e->valuestring, &end, 10);
					ok = end != e->valuestring && !*end;
				} else {
					ok = false;
				}
				if (ok && dims->n == PM_MAX_DIMS)
					ok = false;
				if (!ok)
					break;
				dims->d[dims->n++] = d;
			}
			if (!ok)
				continue;
			*found = 1;
			return;
		}
		if (is_int(v)) {
			dims->d[0] = (long long)v->valuedouble;
			dims->n = 1;
			*found = 1;
			return;
		}
		/* a float or an object: not a dim spec, look further left */
	}
}

static int cmp_desc(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

static int model_reduce(const struct pm_call *c, struct pm_out *out)
{
	const cJSON *d0 = pm_arg_at(c, "Input Dims", 0), *types = pm_arg(c, "Input type");
	const cJSON *otype = pm_arg(c, "Output type");
	const char *dt[2] = { NULL, NULL }, *rtype;
	struct pm_shape in, dims, shape;
	double nin, nout;
	char buf[256];
	bool keepdim;
	int found, i, err, bin, bout;

	if (!d0 || cJSON_IsNull(d0)) {
		/* no input recorded: zero elements and unknown dtypes */
		err = pm_param_int(out, "num_input_elems", 0);
		if (!err)
			err = pm_param_int(out, "num_output_elems", 0);
		if (!err)
			err = pm_param_str(out, "dtype_in_out", "(None, None)");
		if (err)
			return pm_fail(out, "the parameters do not fit the result");
		out->gflops = 0;
		return 0;
	}
	if (cJSON_GetArraySize(types) > 0 && dtype_of(cJSON_GetArrayItem(types, 0), &dt[0]))
		return pm_fail(out, "%s: dtype of input 0 is not a string", c->name);
	if (cJSON_IsArray(otype) && cJSON_GetArraySize(otype) > 0 &&
	    dtype_of(cJSON_GetArrayItem(otype, 0), &dt[1]))
		return pm_fail(out, "%s: Output type[0] is not a string", c->name);
	if (pm_shape_from_json(d0, &in))
		return pm_fail(out, "%s: input 0 is not a shape", c->name);
	nin = pm_shape_numel(&in);
	reduce_dims(pm_arg(c, "Concrete Inputs"), &dims, &found, &keepdim);
	if (strstr(c->name, "cumsum") || strstr(c->name, "cumprod")) {
		nout = nin;	/* a scan keeps the shape */
	} else if (found && dims.n > 0) {
		shape = in;
		for (i = 0; i < dims.n; i++)
			if (dims.d[i] < 0)
				dims.d[i] += in.n;
		tl_qsort(dims.d, (size_t)dims.n, sizeof(dims.d[0]), cmp_desc);
		for (i = 0; i < dims.n; i++) {
			long long d = dims.d[i];

			if (d < 0 || d >= shape.n)
				continue;
			if (keepdim) {
				shape.d[d] = 1;
			} else {
				memmove(&shape.d[d], &shape.d[d + 1], (size_t)(shape.n - d - 1) * sizeof(shape.d[0]));
				shape.n--;
			}
		}
		nout = shape.n ? pm_shape_numel(&shape) : 1;
	} else {
		nout = 1;
	}
	/* the reduce type is read from the op name, first match wins */
	if (strstr(c->name, "mean"))
		rtype = "mean";
	else if (strstr(c->name, "max"))
		rtype = "max";
	else if (strstr(c->name, "min"))
		rtype = "min";
	else if (strstr(c->name, "norm"))
		rtype = "norm";
	else
		rtype = "sum";
	err = pm_param_int(out, "num_input_elems", (long long)nin);
	if (!err)
		err = pm_param_int(out, "num_output_elems", (long long)nout);
	if (!err)
		err = pm_py_tuple_repr(dt, 2, buf, sizeof(buf));
	if (!err)
		err = pm_param_str(out, "dtype_in_out", buf);
	if (!err)
		err = pm_param_str(out, "reduce_type", rtype);
	if (err)
		return pm_fail(out, "the parameters do not fit the result");
	/* an empty or unsized input dtype leaves bytes None; no output dtype
	 * means the input's */
	bin = dt[0] && *dt[0] ? pm_dtype_bpe(dt[0]) : 0;
	bout = dt[1] ? (*dt[1] ? pm_dtype_bpe(dt[1]) : 0) : bin;
	out->gflops = nin / 1e9;
	out->bytes = bin && bout ? nin * bin + nout * bout : NAN;
	pm_compute_spec(out, "vector", dt[0]);
	return 0;
}

static const char *const reduce_ops[] = {
	"aten::sum", "aten::mean", "aten::max", "aten::min", "aten::norm", "aten::linalg_norm",
	"aten::std", "aten::var", "aten::logsumexp", "aten::cumsum", "aten::cumprod",
	"aten::amin", "aten::amax", NULL,
};

const struct pm_class pm_reduce_classes[] = {
	{ "aten_reduce", "Reduce_fwd", "reduce", reduce_ops, model_reduce },
	{ 0 },
};
