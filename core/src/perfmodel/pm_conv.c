/* SPDX-License-Identifier: MIT */
/* TraceLens's convolution perf models (PerfModel/perf_model.py: class CONV,
 * after torch.utils.flop_counter, and its aten_conv and aten_conv_bwd).
 * Shapes come from Input Dims, stride / padding / dilation / transposed /
 * output_padding / groups from Concrete Inputs; the output shape follows
 * from them. Forward: 2 prod(w[1:]) FLOPs per output element (per input
 * element when transposed), bytes = (x + w + out) elements, bias adding
 * out[1] elements read and prod(out) FLOPs. Backward: the input- and
 * weight-gradient convolutions. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfmodel/perfmodel_internal.h"

struct conv {
	struct pm_shape x, w, out;
	struct pm_shape stride, padding, dilation, opad;
	int transposed;			/* eval() of the flag: its truth */
	const cJSON *transposed_v;	/* the Concrete Input it came from */
	long long groups;
	int bias;			/* its truth */
	const char *dt[2];
};

/* aten_conv.str_to_tuple: the ints between the brackets of "[1, 1]", or
 * @dflt repeated when the entry is ""; one value is repeated over the
 * @nd spatial dims */
static int conv_tuple(const cJSON *v, long long dflt, int nd, struct pm_shape *s)
{
	const char *p;
	int i;

	if (!cJSON_IsString(v))
		return -EINVAL;
	p = v->valuestring;
	s->n = 0;
	if (!*p) {
		for (i = 0; i < nd && i < PM_MAX_DIMS; i++)
			s->d[s->n++] = dflt;
		return 0;
	}
	if (strlen(p) < 2)
		return -EINVAL;
	p++;
	for (;;) {
		char *end;
		long long d = strtoll(p, &end, 10);

		if (end == p || s->n == PM_MAX_DIMS)
			return -EINVAL;
		s->d[s->n++] = d;
		p = end;
		while (*p == ' ')
			p++;
		if (*p == ',') {
			p++;
			continue;
		}
		/* what is left is the closing bracket */
		if (!p[0] || p[1])
			return -EINVAL;
		break;
	}
	if (s->n == 1)
		for (i = 1; i < nd && i < PM_MAX_DIMS; i++)
			s->d[s->n++] = s->d[0];
	return 0;
}

static double prod_from(const struct pm_shape *s, int from)
{
	double p = 1;
	int i;

	for (i = from; i < s->n; i++)
		p *= (double)s->d[i];
	return p;
}

/* shape with its first two dims swapped (CONV.t), product from dim 1 */
static double prod_t_from1(const struct pm_shape *s)
{
	return s->n < 2 ? prod_from(s, 1) : (double)s->d[0] * prod_from(s, 2);
}

/* CONV.get_output_shape */
static int out_shape(struct conv *cv)
{
	int nd = cv->x.n - 2, i;

	if (cv->w.n < 2 || cv->w.n - 2 < nd || cv->stride.n < nd || cv->padding.n < nd || cv->dilation.n < nd ||
	    (cv->transposed && cv->opad.n < nd))
		return -EINVAL;
	cv->out.n = cv->x.n;
	cv->out.d[0] = cv->x.d[0];
	cv->out.d[1] = cv->transposed ? cv->w.d[1] : cv->w.d[0];
	for (i = 0; i < nd; i++) {
		long long in = cv->x.d[2 + i], k = cv->w.d[2 + i], s = cv->stride.d[i], p = cv->padding.d[i],
			  d = cv->dilation.d[i];

		if (cv->transposed) {
			cv->out.d[2 + i] = (in - 1) * s - 2 * p + d * (k - 1) + cv->opad.d[i] + 1;
		} else {
			/* get_conv_out_dim divides as floats and truncates */
			if (!s)
				return -EINVAL;
			cv->out.d[2 + i] = (long long)((double)(in + 2 * p - d * (k - 1) - 1) / (double)s + 1);
		}
	}
	return 0;
}

static int conv_finish(const struct pm_call *c, int ix, struct conv *cv, struct pm_out *out);

/* aten_conv / aten_conv_bwd get_param_details: x at Input Dims[@ix], w
 * after it, the conv arguments from Concrete Inputs[@ci] on */
static int conv_read(const struct pm_call *c, int ix, int ci, struct conv *cv, struct pm_out *out)
{
	const cJSON *ti = pm_arg(c, "Concrete Inputs"), *g;
	char *end;
	int nd;

	if (pm_shape_from_json(pm_arg_at(c, "Input Dims", ix), &cv->x) ||
	    pm_shape_from_json(pm_arg_at(c, "Input Dims", ix + 1), &cv->w))
		return pm_fail(out, "%s: Input Dims do not hold input and weight", c->name);
	if (cJSON_GetArraySize(ti) < ci + 6)
		return pm_fail(out, "%s: Concrete Inputs too short", c->name);
	nd = cv->x.n - 2;
	if (conv_tuple(cJSON_GetArrayItem(ti, ci), 1, nd, &cv->stride) ||
	    conv_tuple(cJSON_GetArrayItem(ti, ci + 1), 0, nd, &cv->padding) ||
	    conv_tuple(cJSON_GetArrayItem(ti, ci + 2), 1, nd, &cv->dilation) ||
	    conv_tuple(cJSON_GetArrayItem(ti, ci + 4), 0, nd, &cv->opad))
		return pm_fail(out, "%s: stride/padding/dilation/output_padding not int lists", c->name);
	cv->transposed_v = cJSON_GetArrayItem(ti, ci + 3);
	if (!cJSON_IsString(cv->transposed_v) ||
	    (strcmp(cv->transposed_v->valuestring, "True") && strcmp(cv->transposed_v->valuestring, "False")))
		return pm_fail(out, "%s: transposed is not True or False", c->name);
	cv->transposed = !strcmp(cv->transposed_v->valuestring, "True");
	g = cJSON_GetArrayItem(ti, ci + 5);
	if (!cJSON_IsString(g))
		return pm_fail(out, "%s: groups is not an int", c->name);
	cv->groups = strtoll(g->valuestring, &end, 10);
	if (end == g->valuestring || *end)
		return pm_fail(out, "%s: groups is not an int", c->name);
	return conv_finish(c, ix, cv, out);
}

/* The checks every conv reader ends with: same input and weight dtypes,
 * 1-3 spatial dims, an output shape. */
static int conv_finish(const struct pm_call *c, int ix, struct conv *cv, struct pm_out *out)
{
	if (pm_arg_dtype(c, ix, &cv->dt[0]) || pm_arg_dtype(c, ix + 1, &cv->dt[1]))
		return pm_fail(out, "%s: Input type does not hold input and weight", c->name);
	/* mixed precision raises */
	if (!cv->dt[0] || !cv->dt[1] ? cv->dt[0] != cv->dt[1] : strcmp(cv->dt[0], cv->dt[1]))
		return pm_fail(out, "%s: input and weight dtypes differ", c->name);
	if (cv->x.n < 3 || cv->x.n > 5)
		return pm_fail(out, "%s: input is not 3-, 4- or 5-d", c->name);
	if (out_shape(cv))
		return pm_fail(out, "%s: shapes and conv arguments do not agree", c->name);
	return 0;
}

/* The parameters, in get_param_details' order; @bias_cell is the bias. */
static int conv_params(const struct pm_call *c, int ix, const struct conv *cv, const char *bias_text,
		       int index_none, struct pm_out *out)
{
	static const char *const nd_name[] = { "conv1d", "conv2d", "conv3d" };
	const cJSON *sx = pm_arg_at(c, "Input Strides", ix), *sw = pm_arg_at(c, "Input Strides", ix + 1);
	char buf[PM_MAX_DIMS * 24 + 8];
	int err;

	err = pm_param_str(out, "convNd", nd_name[cv->x.n - 3]);
	if (!err)
		err = pm_param_shape(out, "input_shape", &cv->x);
	if (!err)
		err = pm_param_shape(out, "filter_shape", &cv->w);
	if (!err)
		err = pm_py_tuple_repr(cv->dt, 2, buf, sizeof(buf));
	if (!err)
		err = pm_param_str(out, "dtype_input_weight", buf);
	/* try/except KeyError: no Input Strides leaves them None (the
	 * ConvBias classes also catch the IndexError of a missing position) */
	if (!err && (!pm_arg(c, "Input Strides") || (index_none && (!sx || !sw)))) {
		err = pm_param_none(out, "input_stride");
		if (!err)
			err = pm_param_none(out, "weight_stride");
	} else if (!err) {
		err = pm_tuple_repr(sx, buf, sizeof(buf));
		if (!err)
			err = pm_param_str(out, "input_stride", buf);
		if (!err)
			err = pm_tuple_repr(sw, buf, sizeof(buf));
		if (!err)
			err = pm_param_str(out, "weight_stride", buf);
	}
	if (!err)
		err = bias_text ? pm_param_str(out, "bias", bias_text) : pm_param_bool(out, "bias", cv->bias);
	if (!err)
		err = pm_param_shape(out, "stride", &cv->stride);
	if (!err)
		err = pm_param_shape(out, "padding", &cv->padding);
	if (!err)
		err = pm_param_shape(out, "dilation", &cv->dilation);
	if (!err)
		err = pm_param_bool(out, "transposed_conv", cv->transposed);
	if (!err)
		err = pm_param_shape(out, "output_padding", &cv->opad);
	if (!err)
		err = pm_param_int(out, "groups", cv->groups);
	if (err)
		return pm_fail(out, "%s: strides or parameters do not fit", c->name);
	pm_compute_spec(out, "matrix", cv->dt[0]);
	return 0;
}

/* CONV.flops_func / bytes_func (elements; the caller scales by bpe) */
static double conv_flops(const struct pm_shape *x, const struct pm_shape *w, const struct pm_shape *o, int bias,
			 int transposed)
{
	double per = 2 * prod_from(w, 1);

	return (transposed ? prod_from(x, 0) : prod_from(o, 0)) * per + (bias ? prod_from(o, 0) : 0);
}

static int model_conv(const struct pm_call *c, struct pm_out *out)
{
	struct conv cv = { 0 };
	double bpe;
	int err;

	err = conv_read(c, 0, 3, &cv, out);
	if (err)
		return err;
	/* aten_conv: a bias only when exactly three inputs are recorded */
	cv.bias = cJSON_GetArraySize(pm_arg(c, "Input Dims")) == 3;
	err = conv_params(c, 0, &cv, NULL, 0, out);
	if (err)
		return err;
	out->gflops = conv_flops(&cv.x, &cv.w, &cv.out, cv.bias, cv.transposed) / 1e9;
	bpe = pm_dtype_bpe(cv.dt[0]);
	if (bpe)
		out->bytes = (prod_from(&cv.x, 0) + prod_from(&cv.w, 0) + (cv.bias ? (double)cv.out.d[1] : 0) +
			      prod_from(&cv.out, 0)) * bpe;
	return 0;
}

static int model_conv_bwd(const struct pm_call *c, struct pm_out *out)
{
	const cJSON *b = pm_arg_at(c, "Input Dims", 3);
	struct conv cv = { 0 };
	const char *bias_text = NULL;
	double px, pw, po, flops, bpe;
	int err;

	err = conv_read(c, 1, 4, &cv, out);
	if (err)
		return err;
	/* aten_conv_bwd: `len(dims) > 3 and dims[3] and len(dims[3]) > 0`:
	 * False without a fourth input, the empty list itself when it is [],
	 * else True */
	if (b && cJSON_IsArray(b) && cJSON_GetArraySize(b) == 0) {
		bias_text = "[]";
		cv.bias = 0;
	} else if (b && !cJSON_IsNull(b) && !(cJSON_IsNumber(b) && b->valuedouble == 0) &&
		   !(cJSON_IsString(b) && !*b->valuestring)) {
		if (!cJSON_IsArray(b))
			return pm_fail(out, "%s: Input Dims[3] is not a list", c->name);
		cv.bias = 1;
	}
	err = conv_params(c, 1, &cv, bias_text, 0, out);
	if (err)
		return err;
	px = prod_from(&cv.x, 0);
	pw = prod_from(&cv.w, 0);
	po = prod_from(&cv.out, 0);
	/* CONV.flops_bwd_func: the input gradient is the transposed conv of
	 * the output gradient; the weight gradient a conv over the batch */
	flops = conv_flops(&cv.out, &cv.w, &cv.x, 0, !cv.transposed);
	flops += pw * 2 * (cv.transposed ? prod_t_from1(&cv.x) : prod_t_from1(&cv.out));
	flops += cv.bias ? po : 0;
	out->gflops = flops / 1e9;
	bpe = pm_dtype_bpe(cv.dt[0]);
	/* bytes_bwd_func: both gradients move out, x and w; the bias gradient
	 * adds its elements unscaled, as TraceLens counts them */
	if (bpe)
		out->bytes = 2 * (po + pw + px) * bpe + (cv.bias ? po + (double)cv.out.d[1] : 0);
	return 0;
}

/* Fill @s with @nd copies of the int of Concrete Inputs[@pos], or of
 * @dflt when it is "" or absent (ConvBias_'s `(int(arg),) * ndims`). */
static int scalar_tuple(const cJSON *ci, int pos, long long dflt, int nd, struct pm_shape *s)
{
	const cJSON *v = cJSON_GetArraySize(ci) > pos ? cJSON_GetArrayItem(ci, pos) : NULL;
	long long d = dflt;
	int i;

	if (v && !cJSON_IsString(v))
		return -EINVAL;
	if (v && *v->valuestring) {
		char *end;

		d = strtoll(v->valuestring, &end, 10);
		while (*end == ' ')
			end++;
		if (end == v->valuestring || *end)
			return -EINVAL;
	}
	s->n = 0;
	for (i = 0; i < nd && i < PM_MAX_DIMS; i++)
		s->d[s->n++] = d;
	return 0;
}

/* ConvBias_ and ConvBiasReLU_ (MIOpen / cuDNN fused ops): input, weight and
 * bias; one stride and one padding for every spatial dim in Concrete Inputs
 * 3 and 4; no dilation, groups or transposition. The ReLU adds nothing. */
static int model_conv_bias(const struct pm_call *c, struct pm_out *out)
{
	const cJSON *ci = pm_arg(c, "Concrete Inputs");
	struct conv cv = { 0 };
	double bpe;
	int nd, i, err;

	if (!cJSON_IsArray(ci))
		return pm_fail(out, "%s: no Concrete Inputs", c->name);
	if (pm_shape_from_json(pm_arg_at(c, "Input Dims", 0), &cv.x) ||
	    pm_shape_from_json(pm_arg_at(c, "Input Dims", 1), &cv.w))
		return pm_fail(out, "%s: Input Dims do not hold input and weight", c->name);
	nd = cv.x.n - 2;
	if (scalar_tuple(ci, 3, 1, nd, &cv.stride) || scalar_tuple(ci, 4, 0, nd, &cv.padding))
		return pm_fail(out, "%s: stride or padding is not an int", c->name);
	cv.dilation.n = cv.opad.n = 0;
	for (i = 0; i < nd && i < PM_MAX_DIMS; i++) {
		cv.dilation.d[cv.dilation.n++] = 1;
		cv.opad.d[cv.opad.n++] = 0;
	}
	cv.groups = 1;
	cv.bias = 1;
	err = conv_finish(c, 0, &cv, out);
	if (!err)
		err = conv_params(c, 0, &cv, NULL, 1, out);
	if (err)
		return err;
	out->gflops = conv_flops(&cv.x, &cv.w, &cv.out, 1, 0) / 1e9;
	bpe = pm_dtype_bpe(cv.dt[0]);
	if (bpe)
		out->bytes = (prod_from(&cv.x, 0) + prod_from(&cv.w, 0) + (double)cv.out.d[1] + prod_from(&cv.out, 0)) *
			     bpe;
	return 0;
}

static const char *const conv_ops[] = { "aten::convolution", NULL };
static const char *const conv_bwd_ops[] = { "aten::convolution_backward", NULL };
static const char *const conv_bias_ops[] = { "ConvBias_", "ConvBiasReLU_", NULL };

const struct pm_class pm_conv_classes[] = {
	{ "aten_conv", "CONV_fwd", "CONV_fwd", conv_ops, model_conv },
	{ "aten_conv_bwd", "CONV_bwd", "CONV_bwd", conv_bwd_ops, model_conv_bwd },
	{ "ConvBias_", "CONV_fwd", "CONV_fwd", conv_bias_ops, model_conv_bias },
	{ 0 },
};
