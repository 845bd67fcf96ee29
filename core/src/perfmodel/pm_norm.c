/* SPDX-License-Identifier: MIT */
/* TraceLens's normalization models (PerfModel/perf_model.py: Normalization
 * and its BatchNorm, LayerNorm, GroupNorm, InstanceNorm, RMSNorm classes,
 * forward and backward) and its RMSNorm extensions
 * (PerfModel/extensions/rmsnorm_perf_model_extensions.py). Every class reads
 * the same eight parameters (backward ones a ninth, output_mask) and shares
 * the FLOP and byte formulas of Normalization unless it has its own. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfmodel/perfmodel_internal.h"

#define MAX_MASK 8

/* Normalization's param_details, plus what its formulas need. */
struct norm {
	const cJSON *shape, *stride;
	const char *dtype;
	double nelems;		/* prod(op_shape) */
	double channels;	/* num_channels: a float only for GroupNormBwd */
	int channels_float;
	int has_bias, is_affine, is_training;
	int nmask;		/* -1: no output_mask parameter */
	double mask[MAX_MASK];
	double bpe;
};

enum norm_rule {
	NORM_FWD,		/* Normalization.flops_func / bytes_func */
	NORM_BWD,		/* Normalization.flops_func_bwd / bytes_func_bwd */
	RMS_FWD,		/* RMSNorm.flops / bytes */
	RMS_BWD,		/* RMSNormBwd.flops_bwd / bytes_bwd */
};

static const cJSON *dims_at(const struct pm_call *c, int i)
{
	return pm_arg_at(c, "Input Dims", i);
}

/* Python's `x is not None` on args["Input Dims"][i]: false only for a JSON
 * null; a missing position is an error (IndexError in TraceLens). */
static int present(const struct pm_call *c, int i, int *out, struct pm_out *o)
{
	const cJSON *d = dims_at(c, i);

	if (!d)
		return pm_fail(o, "no Input Dims[%d]", i);
	*out = !cJSON_IsNull(d);
	return 0;
}

/* Python's bool() of args["Concrete Inputs"][i]: a non-empty string. */
static int concrete_truth(const struct pm_call *c, int i, int *out, struct pm_out *o)
{
	const cJSON *v = pm_arg_at(c, "Concrete Inputs", i);

	if (!v)
		return pm_fail(o, "no Concrete Inputs[%d]", i);
	if (cJSON_IsString(v))
		*out = v->valuestring[0] != 0;
	else
		*out = !cJSON_IsNull(v) && !cJSON_IsFalse(v) && !(cJSON_IsNumber(v) && v->valuedouble == 0);
	return 0;
}

static const char *concrete_str(const struct pm_call *c, int i)
{
	const cJSON *v = pm_arg_at(c, "Concrete Inputs", i);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* prod(parse_list(Concrete Inputs[i], int)): LayerNorm's normalized_shape. */
static int concrete_prod(const struct pm_call *c, int i, double *out, struct pm_out *o)
{
	double v[16];
	int n = pm_parse_list(concrete_str(c, i), v, 16), k;

	if (n < 0)
		return pm_fail(o, "Concrete Inputs[%d] is not a list of integers", i);
	*out = 1;
	for (k = 0; k < n; k++)
		*out *= v[k];
	return 0;
}

static int concrete_mask(const struct pm_call *c, int i, struct norm *n, struct pm_out *o)
{
	n->nmask = pm_parse_list(concrete_str(c, i), n->mask, MAX_MASK);
	if (n->nmask < 0)
		return pm_fail(o, "Concrete Inputs[%d] is not an output mask", i);
	return 0;
}

/* op_shape, dtype and strides of input @i. */
static int read_input(const struct pm_call *c, int i, struct norm *n, struct pm_out *o)
{
	const cJSON *t = pm_arg_at(c, "Input type", i);

	n->shape = dims_at(c, i);
	n->stride = pm_arg_at(c, "Input Strides", i);
	n->nelems = pm_dims_prod(n->shape);
	if (n->nelems < 0)
		return pm_fail(o, "Input Dims[%d] is not a tensor shape", i);
	if (!cJSON_IsArray(n->stride))
		return pm_fail(o, "Input Strides[%d] is not a stride list", i);
	if (!cJSON_IsString(t))
		return pm_fail(o, "Input type[%d] is not a dtype", i);
	n->dtype = t->valuestring;
	n->bpe = pm_dtype_bpe(n->dtype);
	n->nmask = -1;
	return 0;
}

/* Dimension @k of Input Dims[@i] (weight.shape[0], op_shape[1]). */
static int dim_of(const struct pm_call *c, int i, int k, double *out, struct pm_out *o)
{
	const cJSON *d = cJSON_GetArrayItem(dims_at(c, i), k);

	if (!cJSON_IsNumber(d))
		return pm_fail(o, "Input Dims[%d] has no dimension %d", i, k);
	*out = d->valuedouble;
	return 0;
}

static int mask_repr(const struct norm *n, char *buf, size_t len)
{
	size_t at = 0;
	int k, w;

	buf[at++] = '[';
	for (k = 0; k < n->nmask; k++) {
		w = snprintf(buf + at, len - at, "%s%s", k ? ", " : "", n->mask[k] ? "True" : "False");
		if (w < 0 || (size_t)w >= len - at)
			return -ENOSPC;
		at += (size_t)w;
	}
	if (at + 2 > len)
		return -ENOSPC;
	memcpy(buf + at, "]", 2);
	return 0;
}

/* The parameters in TraceLens's order, then the formulas of @rule. */
static int finish(const struct norm *n, enum norm_rule rule, struct pm_out *o)
{
	char buf[256], dt[160];
	double N = n->nelems, C = n->channels, b = n->bpe, flops, bytes;
	int err;

	if (!(b > 0))
		return pm_fail(o, "dtype %s has no size", n->dtype);
	if (!(C > 0))
		return pm_fail(o, "num_channels is %g", C);
	err = pm_tuple_repr(n->shape, buf, sizeof(buf));
	err = err ? err : pm_param_str(o, "op_shape", buf);
	if (!err) {
		snprintf(dt, sizeof(dt), "('%s', None)", n->dtype);
		err = pm_param_str(o, "dtype_in_out", dt);
	}
	if (!err && !n->stride)
		err = pm_param_none(o, "stride_input");
	else if (!err && !pm_tuple_repr(n->stride, buf, sizeof(buf)))
		err = pm_param_str(o, "stride_input", buf);
	else if (!err)
		return pm_fail(o, "Input Strides is not a stride list");
	err = err ? err : pm_param_none(o, "stride_output");
	if (!err)
		err = n->channels_float ? pm_param_num(o, "num_channels", C)
					: pm_param_count(o, "num_channels", C);
	err = err ? err : pm_param_bool(o, "has_bias", n->has_bias);
	err = err ? err : pm_param_bool(o, "is_affine", n->is_affine);
	err = err ? err : pm_param_bool(o, "is_training", n->is_training);
	if (!err && n->nmask >= 0) {
		err = mask_repr(n, buf, sizeof(buf));
		err = err ? err : pm_param_str(o, "output_mask", buf);
	}
	if (err)
		return pm_fail(o, "parameters do not fit");

	switch (rule) {
	case NORM_FWD: {
		/* per-channel scale and shift, the statistics when training,
		 * 1/std, then a multiply-add per element */
		double weights = 2;

		flops = C * 3;
		if (n->is_training)
			flops += N * 3;
		flops += C * 3;
		flops += 2 * N;
		if (n->is_affine)
			weights += n->has_bias ? 2 : 1;
		if (n->is_training)
			weights += 2;
		bytes = N * b + N * b + weights * C * b;
		break;
	}
	case NORM_BWD: {
		double per = N / C, fpc;
		int m0 = n->nmask > 0 && n->mask[0];

		if (n->nmask == 0)
			return pm_fail(o, "empty output mask");
		fpc = n->is_training ? 0 : 3;
		fpc += 4 * per;
		if (m0) {
			if (n->is_training)
				fpc += 5 * per;
		} else {
			fpc += 2 * per;
		}
		flops = C * fpc;
		bytes = N * b + N * b * (m0 && n->is_training ? 2 : 1);
		if (n->is_training)
			bytes += C * b;
		if (n->is_affine) {
			bytes += C * b;
			if (n->is_training)
				bytes += C * b * (n->has_bias ? 2 : 1);
		}
		break;
	}
	case RMS_FWD:
		flops = N / C * (2 * C + 2) + N * (n->is_affine ? 2 : 1);
		bytes = N * b + N * b + (n->is_affine ? C * b : 0);
		break;
	case RMS_BWD:
		if (n->nmask < 2)
			return pm_fail(o, "output mask has %d entries, needs 2", n->nmask);
		flops = n->is_affine ? N : 0;
		flops += N;
		if (n->mask[0]) {
			flops += 2 * N;
			flops += 4 * N;
		}
		if (n->mask[1] && n->is_affine) {
			flops += N;
			if (N / C > 1)
				flops += N;
		}
		bytes = N * b + N * b * 2;
		if (n->is_affine)
			bytes += C * b * 2;
		break;
	default:
		return pm_fail(o, "no such rule");
	}
	o->gflops = flops / 1e9;
	o->bytes = bytes;
	pm_compute_spec(o, "vector", n->dtype);
	return 0;
}

static int setup(const struct pm_call *c, struct norm *n, struct pm_out *o)
{
	memset(n, 0, sizeof(*n));
	if (!c || !c->args || !cJSON_IsArray(pm_arg(c, "Input Dims")))
		return pm_fail(o, "no Input Dims");
	return 0;
}

/* BatchNorm and InstanceNorm (forward): input 0, channels = dim 1, affine
 * when a weight is given, training from Concrete Inputs[5]
 * (training / use_input_stats), which TraceLens tests as a non-empty string. */
static int model_batch_norm(const struct pm_call *c, struct pm_out *o)
{
	struct norm n;
	int err;

	if ((err = setup(c, &n, o)) || (err = read_input(c, 0, &n, o)) ||
	    (err = dim_of(c, 0, 1, &n.channels, o)) || (err = present(c, 2, &n.is_affine, o)) ||
	    (err = concrete_truth(c, 5, &n.is_training, o)))
		return err;
	n.has_bias = 1;
	return finish(&n, NORM_FWD, o);
}

/* BatchNormBwd: cudnn/miopen variants put the input first and are never
 * training; native_batch_norm_backward has grad_out first and training at
 * Concrete Inputs[7]. output_mask is [grad_out given]. */
static int model_batch_norm_bwd(const struct pm_call *c, struct pm_out *o)
{
	int vendor = c && c->name && (!strcmp(c->name, "aten::cudnn_batch_norm_backward") ||
				      !strcmp(c->name, "aten::miopen_batch_norm_backward"));
	int in = vendor ? 0 : 1, has_out = 1;
	struct norm n;
	int err;

	if ((err = setup(c, &n, o)))
		return err;
	if (!vendor) {
		if ((err = present(c, 0, &has_out, o)) || (err = concrete_truth(c, 7, &n.is_training, o)))
			return err;
	}
	if ((err = read_input(c, in, &n, o)) || (err = dim_of(c, in, 1, &n.channels, o)) ||
	    (err = present(c, 2, &n.is_affine, o)))
		return err;
	n.has_bias = 1;
	n.nmask = 1;
	n.mask[0] = has_out;
	return finish(&n, NORM_BWD, o);
}

/* LayerNorm: channels = prod(normalized_shape) (Concrete Inputs[1]), affine
 * and bias from whether weight and bias are given; always training. */
static int model_layer_norm(const struct pm_call *c, struct pm_out *o)
{
	struct norm n;
	int err;

	if ((err = setup(c, &n, o)) || (err = read_input(c, 0, &n, o)) ||
	    (err = concrete_prod(c, 1, &n.channels, o)) || (err = present(c, 3, &n.has_bias, o)) ||
	    (err = present(c, 2, &n.is_affine, o)))
		return err;
	n.is_training = 1;
	return finish(&n, NORM_FWD, o);
}

/* LayerNormBwd: input 1, normalized_shape at Concrete Inputs[2], and the
 * output mask at [7] says affine ([1]) and bias ([2]). */
static int model_layer_norm_bwd(const struct pm_call *c, struct pm_out *o)
{
	struct norm n;
	int err;

	if ((err = setup(c, &n, o)) || (err = concrete_prod(c, 2, &n.channels, o)) ||
	    (err = read_input(c, 1, &n, o)) || (err = concrete_mask(c, 7, &n, o)))
		return err;
	if (n.nmask < 3)
		return pm_fail(o, "output mask has %d entries, needs 3", n.nmask);
	n.is_affine = n.mask[1] != 0;
	n.has_bias = n.mask[2] != 0;
	n.is_training = 1;
	return finish(&n, NORM_BWD, o);
}

/* GroupNorm (also aiter::_groupnorm_run): channels = dim 1; training. */
static int model_group_norm(const struct pm_call *c, struct pm_out *o)
{
	struct norm n;
	int err;

	if ((err = setup(c, &n, o)) || (err = read_input(c, 0, &n, o)) ||
	    (err = dim_of(c, 0, 1, &n.channels, o)) || (err = present(c, 2, &n.is_affine, o)))
		return err;
	n.has_bias = 1;
	n.is_training = 1;
	return finish(&n, NORM_FWD, o);
}

/* GroupNormBwd: input 1, channels = dim 1 / groups (Concrete Inputs[8]), a
 * Python float; affine from Input Dims[5]; output mask at [9]. */
static int model_group_norm_bwd(const struct pm_call *c, struct pm_out *o)
{
	const char *g;
	char *end;
	long long groups;
	struct norm n;
	int err;

	if ((err = setup(c, &n, o)) || (err = read_input(c, 1, &n, o)) ||
	    (err = dim_of(c, 1, 1, &n.channels, o)) || (err = present(c, 5, &n.is_affine, o)) ||
	    (err = concrete_mask(c, 9, &n, o)))
		return err;
	g = concrete_str(c, 8);
	groups = g ? strtoll(g, &end, 10) : 0;
	if (!g || end == g || *end || groups <= 0)
		return pm_fail(o, "Concrete Inputs[8] is not a group count");
	n.channels /= (double)groups;
	n.channels_float = 1;
	n.has_bias = 1;
	n.is_training = 1;
	return finish(&n, NORM_BWD, o);
}

/* InstanceNormBwd: TraceLens defines no model (the op does not exist). */
static int model_instance_norm_bwd(const struct pm_call *c, struct pm_out *o)
{
	(void)c;
	return pm_fail(o, "TraceLens has no backward model for instance norm");
}

/* RMSNorm (aten::_fused_rms_norm): normalized_shape at Concrete Inputs[1];
 * never bias nor training. */
static int model_rms_norm(const struct pm_call *c, struct pm_out *o)
{
	struct norm n;
	int err;

	if ((err = setup(c, &n, o)) || (err = read_input(c, 0, &n, o)) ||
	    (err = present(c, 2, &n.is_affine, o)) || (err = concrete_prod(c, 1, &n.channels, o)))
		return err;
	return finish(&n, RMS_FWD, o);
}

/* RMSNormBwd: input 1, weight at Input Dims[4], normalized_shape at
 * Concrete Inputs[2], output mask at [5]. */
static int model_rms_norm_bwd(const struct pm_call *c, struct pm_out *o)
{
	struct norm n;
	int err;

	if ((err = setup(c, &n, o)) || (err = read_input(c, 1, &n, o)) ||
	    (err = present(c, 4, &n.is_affine, o)) || (err = concrete_prod(c, 2, &n.channels, o)) ||
	    (err = concrete_mask(c, 5, &n, o)))
		return err;
	return finish(&n, RMS_BWD, o);
}

/* FusedLnModulate (primus::fused_ln_modulate) and its backward: x (or
 * grad_out) is (T, B, H), channels H; the strides are None when the trace
 * has none. Their own formulas: LayerNorm plus a scale/shift modulation,
 * with FP32 mean and rstd per row. */
static int ln_modulate(const struct pm_call *c, struct pm_out *o, int bwd)
{
	const cJSON *t, *strides = pm_arg(c, "Input Strides");
	double T, B, H, N, b;
	struct norm n;
	int err;

	if ((err = setup(c, &n, o)))
		return err;
	n.shape = dims_at(c, 0);
	t = pm_arg_at(c, "Input type", 0);
	if (cJSON_GetArraySize(n.shape) < 3)
		return pm_fail(o, "Input Dims[0] is not (T, B, H)");
	if (!cJSON_IsString(t))
		return pm_fail(o, "Input type[0] is not a dtype");
	n.dtype = t->valuestring;
	n.bpe = pm_dtype_bpe(n.dtype);
	n.nelems = pm_dims_prod(n.shape);
	if (n.nelems < 0)
		return pm_fail(o, "Input Dims[0] is not a tensor shape");
	/* TraceLens takes the strides when it can index them, else None */
	n.stride = cJSON_IsArray(strides) ? cJSON_GetArrayItem(strides, 0) : NULL;
	if ((err = dim_of(c, 0, 0, &T, o)) || (err = dim_of(c, 0, 1, &B, o)) || (err = dim_of(c, 0, 2, &H, o)))
		return err;
	n.channels = H;
	n.has_bias = n.is_affine = n.is_training = 1;
	n.nmask = -1;
	if (bwd) {
		n.nmask = 3;
		n.mask[0] = n.mask[1] = n.mask[2] = 1;
	}
	if ((err = finish(&n, bwd ? NORM_BWD : NORM_FWD, o)))
		return err;
	N = n.nelems;
	b = n.bpe;
	if (bwd) {
		o->gflops = N * 15 / 1e9;
		o->bytes = 2 * N * b + 2 * B * T * 4 + N * b + 2 * B * H * b + B * H * b;
	} else {
		o->gflops = N * 12 / 1e9;
		o->bytes = N * b + N * b + 2 * B * H * b + 2 * T * B * 4;
	}
	return 0;
}

static int model_ln_modulate(const struct pm_call *c, struct pm_out *o)
{
	return ln_modulate(c, o, 0);
}

static int model_ln_modulate_bwd(const struct pm_call *c, struct pm_out *o)
{
	return ln_modulate(c, o, 1);
}

/* ------------------------------------------------ RMSNorm extensions.
 * Each reads the input tensor at @in and the channels from the weight's
 * length at Input Dims[@w][0]; always affine, never bias nor training. */
static int rms_ext(const struct pm_call *c, int in, int w, struct norm *n, struct pm_out *o)
{
	int err;

	if ((err = setup(c, n, o)) || (err = read_input(c, in, n, o)) || (err = dim_of(c, w, 0, &n->channels, o)))
		return err;
	n->is_affine = 1;
	return 0;
}

/* Concrete Inputs[@i] as Python's int(); -EINVAL when it is not one. */
static int concrete_int(const struct pm_call *c, int i, long long *v, struct pm_out *o)
{
	const char *s = concrete_str(c, i);
	char *end;

	if (!s)
		return pm_fail(o, "no Concrete Inputs[%d]", i);
	while (*s == ' ')
		s++;
	*v = strtoll(s, &end, 10);
	while (*end == ' ')
		end++;
	if (end == s || *end)
		return pm_fail(o, "Concrete Inputs[%d] is not an integer", i);
	return 0;
}

/* RMSNorm's FLOPs exactly as TraceLens sums them (not via gflops). */
static double rms_flops(const struct norm *n)
{
	double N = n->nelems, C = n->channels;

	return N / C * (2 * C + 2) + N * (n->is_affine ? 2 : 1);
}

/* aiter_rms_norm: rms_norm(x, weight, eps). */
static int model_aiter_rms_norm(const struct pm_call *c, struct pm_out *o)
{
	struct norm n;
	int err = rms_ext(c, 0, 1, &n, o);

	return err ? err : finish(&n, RMS_FWD, o);
}

/* aiter_rmsnorm: rmsnorm(out, input, weight, eps). */
static int model_aiter_rmsnorm(const struct pm_call *c, struct pm_out *o)
{
	struct norm n;
	int err = rms_ext(c, 1, 2, &n, o);

	return err ? err : finish(&n, RMS_FWD, o);
}

/* aiter_rmsnorm2d_fwd_with_add_ck (and add_rmsnorm): the residual add and
 * RMSNorm; reads input, residual and weight, writes out and residual. */
static int model_rms_with_add(const struct pm_call *c, struct pm_out *o)
{
	struct norm n;
	int err = rms_ext(c, 1, 4, &n, o);

	if (err || (err = finish(&n, RMS_FWD, o)))
		return err;
	o->gflops = (n.nelems + rms_flops(&n)) / 1e9;
	o->bytes = 2 * n.nelems * n.bpe + n.channels * n.bpe + 2 * n.nelems * n.bpe;
	return 0;
}

/* M (rows) and the FP32 scales of a per-group FP8 quant of N columns. */
static double quant_scales(const struct norm *n, long long group)
{
	double M = floor(n->nelems / n->channels);
	double groups = ceil(n->channels / (double)group);

	return M * groups * 4;
}

/* aiter_rmsnorm2d_fwd_with_dynamicquant_ck: RMSNorm then a per-token FP8
 * quant: FP8 out (1 byte) and one FP32 scale per row. */
static int model_rms_dynquant(const struct pm_call *c, struct pm_out *o)
{
	struct norm n;
	int err = rms_ext(c, 1, 3, &n, o);

	if (err || (err = finish(&n, RMS_FWD, o)))
		return err;
	o->gflops = (rms_flops(&n) + 2 * n.nelems) / 1e9;
	o->bytes = n.nelems * n.bpe + n.channels * n.bpe + n.nelems * 1 + floor(n.nelems / n.channels) * 1 * 4;
	return 0;
}

/* aiter_rmsnorm_quant: per-group FP8 quant, group size at Concrete
 * Inputs[5] (0, a whole row, when it does not read). */
static int model_rms_quant(const struct pm_call *c, struct pm_out *o)
{
	long long gs = 0;
	struct pm_out scratch;
	struct norm n;
	int err = rms_ext(c, 1, 3, &n, o);

	if (err || (err = finish(&n, RMS_FWD, o)))
		return err;
	pm_out_init(&scratch);
	if (concrete_int(c, 5, &gs, &scratch) || gs <= 0)
		gs = n.channels < 9e15 ? (long long)n.channels : 0;
	o->gflops = (rms_flops(&n) + 2 * n.nelems) / 1e9;
	o->bytes = n.nelems * n.bpe + n.channels * n.bpe + n.nelems * 1 + quant_scales(&n, gs);
	return 0;
}

/* vllm_rocm_aiter_rmsnorm_fp8_group_quant: rmsnorm_fp8_group_quant(x,
 * weight, eps, group_size). */
static int model_rms_fp8_group(const struct pm_call *c, struct pm_out *o)
{
	long long gs;
	struct norm n;
	int err = rms_ext(c, 0, 1, &n, o);

	if (err || (err = concrete_int(c, 3, &gs, o)))
		return err;
	if (gs <= 0)
		return pm_fail(o, "group size %lld", gs);
	if ((err = finish(&n, RMS_FWD, o)))
		return err;
	o->gflops = (rms_flops(&n) + 2 * n.nelems) / 1e9;
	o->bytes = n.nelems * n.bpe + n.channels * n.bpe + n.nelems * 1 + quant_scales(&n, gs);
	return 0;
}

/* vllm_rocm_aiter_rmsnorm_with_add_fp8_group_quant: (x, residual, weight,
 * eps, group_size): add, RMSNorm and a per-group FP8 quant. */
static int model_rms_add_fp8_group(const struct pm_call *c, struct pm_out *o)
{
	long long gs;
	struct norm n;
	int err = rms_ext(c, 0, 2, &n, o);
	double N, b;

	if (err || (err = concrete_int(c, 4, &gs, o)))
		return err;
	if (gs <= 0)
		return pm_fail(o, "group size %lld", gs);
	if ((err = finish(&n, RMS_FWD, o)))
		return err;
	N = n.nelems;
	b = n.bpe;
	o->gflops = (rms_flops(&n) + 3 * N) / 1e9;
	o->bytes = N * b + N * b + n.channels * b + N * 1 + N * b + quant_scales(&n, gs);
	return 0;
}

/* vllm_rocm_aiter_triton_add_rmsnorm_pad: add, RMSNorm and an output padded
 * to a multiple of Concrete Inputs[4]. */
static int model_rms_add_pad(const struct pm_call *c, struct pm_out *o)
{
	long long pad;
	struct norm n;
	double C, M, nout;
	int err;

	memset(&n, 0, sizeof(n));
	if ((err = concrete_int(c, 4, &pad, o)) || (err = rms_ext(c, 0, 1, &n, o)) ||
	    (err = finish(&n, RMS_FWD, o)))
		return err;
	C = n.channels;
	M = floor(n.nelems / C);
	nout = pad > 0 ? ceil(C / (double)pad) * (double)pad : C;
	o->gflops = (n.nelems + rms_flops(&n)) / 1e9;
	o->bytes = 2 * n.nelems * n.bpe + C * n.bpe + M * nout * n.bpe + M * C * n.bpe;
	return 0;
}

/* fused_rms_mxfp4_quant: optional residual add (Input Dims[6] a matrix) and
 * second RMSNorm (Input Dims[3] a matrix), then MXFP4 quant of x1: half a
 * byte per element plus a byte per 32-element block. */
static int model_rms_mxfp4(const struct pm_call *c, struct pm_out *o)
{
	const cJSON *dims;
	int ndims, has_x2, has_res;
	double N, C, M, b, flops, bytes, n2 = 0, base;
	struct norm n;
	int err;

	if ((err = rms_ext(c, 0, 1, &n, o)) || (err = finish(&n, RMS_FWD, o)))
		return err;
	dims = pm_arg(c, "Input Dims");
	ndims = cJSON_GetArraySize(dims);
	has_x2 = ndims > 3 && cJSON_GetArraySize(cJSON_GetArrayItem(dims, 3)) == 2;
	has_res = ndims > 6 && cJSON_GetArraySize(cJSON_GetArrayItem(dims, 6)) == 2;
	if (has_x2 && (err = dim_of(c, 3, 1, &n2, o)))
		return err;
	N = n.nelems;
	C = n.channels;
	b = n.bpe;
	M = floor(N / C);
	base = rms_flops(&n);
	flops = base;
	if (has_res)
		flops += M * C;
	if (has_x2)
		flops += trunc(base * (M * n2) / (N > 1 ? N : 1));
	flops += 2 * N;
	bytes = N * b + C * b + N * 0.5 + floor(N / 32) * 1;
	if (has_res) {
		bytes += N * b;
		bytes += N * b;
	}
	if (has_x2) {
		bytes += M * n2 * b;
		bytes += n2 * b;
		bytes += M * n2 * b;
	}
	o->gflops = flops / 1e9;
	o->bytes = bytes;
	return 0;
}

/* ------------------------------------------------------------ the table */

static const char *const batch_norm_ops[] = {
	"aten::batch_norm", "aten::native_batch_norm", "aten::miopen_batch_norm",
	"aten::cudnn_batch_norm", NULL,
};
static const char *const batch_norm_bwd_ops[] = {
	"aten::batch_norm_backward", "aten::native_batch_norm_backward",
	"aten::miopen_batch_norm_backward", "aten::cudnn_batch_norm_backward", NULL,
};
static const char *const layer_norm_ops[] = {
	"aten::layer_norm", "aten::native_layer_norm", "aten::miopen_layer_norm",
	"aten::cudnn_layer_norm", NULL,
};
static const char *const layer_norm_bwd_ops[] = {
	"aten::layer_norm_backward", "aten::native_layer_norm_backward",
	"aten::miopen_layer_norm_backward", "aten::cudnn_layer_norm_backward", NULL,
};
static const char *const group_norm_ops[] = {
	"aten::group_norm", "aten::native_group_norm", "aten::miopen_group_norm",
	"aten::cudnn_group_norm", "aiter::_groupnorm_run", NULL,
};
static const char *const group_norm_bwd_ops[] = {
	"aten::group_norm_backward", "aten::native_group_norm_backward",
	"aten::miopen_group_norm_backward", "aten::cudnn_group_norm_backward", NULL,
};
static const char *const instance_norm_ops[] = {
	"aten::instance_norm", "aten::native_instance_norm", "aten::miopen_instance_norm",
	"aten::cudnn_instance_norm", NULL,
};
static const char *const instance_norm_bwd_ops[] = {
	"aten::instance_norm_backward", "aten::native_instance_norm_backward",
	"aten::miopen_instance_norm_backward", "aten::cudnn_instance_norm_backward", NULL,
};
static const char *const rms_norm_ops[] = { "aten::_fused_rms_norm", NULL };
static const char *const rms_norm_bwd_ops[] = {
	"aten::rms_norm_backward", "aten::native_rms_norm_backward",
	"aten::miopen_rms_norm_backward", "aten::cudnn_rms_norm_backward",
	"aten::_fused_rms_norm_backward", NULL,
};
static const char *const ln_modulate_ops[] = { "primus::fused_ln_modulate", NULL };
static const char *const ln_modulate_bwd_ops[] = { "primus::fused_ln_modulate_backward", NULL };
static const char *const aiter_rms_norm_ops[] = { "aiter::rms_norm", "aiter::rmsnorm2d_fwd_ck", NULL };
static const char *const aiter_rmsnorm_ops[] = { "aiter::rmsnorm", NULL };
static const char *const rms_with_add_ops[] = {
	"aiter::rmsnorm2d_fwd_with_add_ck", "aiter::add_rmsnorm", NULL,
};
static const char *const rms_dynquant_ops[] = { "aiter::rmsnorm2d_fwd_with_dynamicquant_ck", NULL };
static const char *const rms_quant_ops[] = { "aiter::rmsnorm_quant", NULL };
static const char *const rms_fp8_group_ops[] = { "vllm::rocm_aiter_rmsnorm_fp8_group_quant", NULL };
static const char *const rms_add_fp8_group_ops[] = {
	"vllm::rocm_aiter_rmsnorm_with_add_fp8_group_quant", NULL,
};
static const char *const rms_add_pad_ops[] = {
	"vllm::rocm_aiter_triton_add_rmsnorm_pad", "aiter::fused_add_rmsnorm_pad_", NULL,
};
static const char *const rms_mxfp4_ops[] = {
	"sglang_profiler::fused_mxfp4_quant_fused_rms_mxfp4_quant", "aiter::_fuse_rmsnorm_fp4_quant", NULL,
};

/* The core classes all go to TraceLens's Normalization sheet (its
 * sheet_category); the extension RMSNorm family has a sheet of its own, which
 * both reports split by direction (RMSNorm_fwd). */
const struct pm_class pm_norm_classes[] = {
	{ "BatchNorm", "Normalization", "NORM_fwd", batch_norm_ops, model_batch_norm },
	{ "BatchNormBwd", "Normalization", "NORM_bwd", batch_norm_bwd_ops, model_batch_norm_bwd },
	{ "LayerNorm", "Normalization", "NORM_fwd", layer_norm_ops, model_layer_norm },
	{ "LayerNormBwd", "Normalization", "NORM_bwd", layer_norm_bwd_ops, model_layer_norm_bwd },
	{ "GroupNorm", "Normalization", "NORM_fwd", group_norm_ops, model_group_norm },
	{ "GroupNormBwd", "Normalization", "NORM_bwd", group_norm_bwd_ops, model_group_norm_bwd },
	/* InstanceNorm reads its args as BatchNorm does */
	{ "InstanceNorm", "Normalization", "NORM_fwd", instance_norm_ops, model_batch_norm },
	{ "InstanceNormBwd", "Normalization", "NORM_bwd", instance_norm_bwd_ops, model_instance_norm_bwd },
	{ "RMSNorm", "Normalization", "NORM_fwd", rms_norm_ops, model_rms_norm },
	{ "RMSNormBwd", "Normalization", "NORM_bwd", rms_norm_bwd_ops, model_rms_norm_bwd },
	{ "FusedLnModulate", "Normalization", "NORM_fwd", ln_modulate_ops, model_ln_modulate },
	{ "FusedLnModulateBackward", "Normalization", "NORM_bwd", ln_modulate_bwd_ops, model_ln_modulate_bwd },
	{ "aiter_rms_norm", "RMSNorm_fwd", "RMSNorm", aiter_rms_norm_ops, model_aiter_rms_norm },
	{ "aiter_rmsnorm", "RMSNorm_fwd", "RMSNorm", aiter_rmsnorm_ops, model_aiter_rmsnorm },
	{ "aiter_rmsnorm2d_fwd_with_add_ck", "RMSNorm_fwd", "RMSNorm", rms_with_add_ops, model_rms_with_add },
	{ "aiter_rmsnorm2d_fwd_with_dynamicquant_ck", "RMSNorm_fwd", "RMSNorm", rms_dynquant_ops,
	  model_rms_dynquant },
	{ "aiter_rmsnorm_quant", "RMSNorm_fwd", "RMSNorm", rms_quant_ops, model_rms_quant },
	{ "vllm_rocm_aiter_rmsnorm_fp8_group_quant", "RMSNorm_fwd", "RMSNorm", rms_fp8_group_ops,
	  model_rms_fp8_group },
	{ "vllm_rocm_aiter_rmsnorm_with_add_fp8_group_quant", "RMSNorm_fwd", "RMSNorm", rms_add_fp8_group_ops,
	  model_rms_add_fp8_group },
	{ "vllm_rocm_aiter_triton_add_rmsnorm_pad", "RMSNorm_fwd", "RMSNorm", rms_add_pad_ops,
	  model_rms_add_pad },
	{ "fused_rms_mxfp4_quant", "RMSNorm_fwd", "RMSNorm", rms_mxfp4_ops, model_rms_mxfp4 },
	{ 0 },
};
