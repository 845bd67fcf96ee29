/* SPDX-License-Identifier: MIT */
/* TraceLens's elementwise perf models: the classes whose rows go to the
 * UnaryElementwise and BinaryElementwise sheets. Unary ops move every
 * element in and out once (FLOPs = elements); binary ops read two
 * broadcastable inputs and write their broadcast (FLOPs = output elements).
 * The extension models that subclass them (gated activations, quantize ops)
 * keep those sheets and change the shapes read or the counts. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "perfmodel/perfmodel_internal.h"

/* One unary call as UnaryElementwise holds it. */
struct unary {
	struct pm_shape op_shape;
	const char *dt_in, *dt_out;	/* dt_out NULL: None (the input's) */
	const struct pm_shape *stride_in, *stride_out;	/* NULL: None */
	struct pm_shape sin, sout;	/* storage for the two above */
};

/* One binary call as BinaryElementwise holds it. */
struct binary {
	struct pm_shape in1, in2;
	const char *dt[3];		/* in1, in2, out; NULL: None */
	const struct pm_shape *stride[3];	/* NULL: None */
	struct pm_shape s[3];
};

static int read_shape(const struct pm_call *c, const char *field, int pos, struct pm_shape *s)
{
	return pm_shape_from_json(pm_arg_at(c, field, pos), s);
}

/* Whether an optional input of the args is there: Python's truth of
 * Input Dims[i]. A true value other than a shape is refused (-EINVAL):
 * TraceLens would read it as a tuple of whatever it holds. */
static int optional_input(const struct pm_call *c, int pos, int *present)
{
	const cJSON *dims = pm_arg(c, "Input Dims");
	const cJSON *v = cJSON_GetArraySize(dims) > pos ? cJSON_GetArrayItem(dims, pos) : NULL;

	*present = 0;
	if (!v || cJSON_IsNull(v) || cJSON_IsFalse(v) || (cJSON_IsNumber(v) && v->valuedouble == 0) ||
	    (cJSON_IsString(v) && !*v->valuestring) ||
	    ((cJSON_IsArray(v) || cJSON_IsObject(v)) && !cJSON_GetArraySize(v)))
		return 0;
	if (!cJSON_IsArray(v))
		return -EINVAL;
	*present = 1;
	return 0;
}

static int param_opt_shape(struct pm_out *out, const char *name, const struct pm_shape *s)
{
	return s ? pm_param_shape(out, name, s) : pm_param_none(out, name);
}

static int param_dtypes(struct pm_out *out, const char *name, const char *const *dt, int n)
{
	char buf[256];
	int err = pm_py_tuple_repr(dt, n, buf, sizeof(buf));

	return err ? err : pm_param_str(out, name, buf);
}

static double bytes_or_nan(int known, double bytes)
{
	/* a dtype without a size makes TraceLens's bytes None: no Data Moved */
	return known ? bytes : NAN;
}

/* The four parameters every UnaryElementwise row has, then the numbers. */
static int unary_emit(struct pm_out *out, const struct unary *u, double flops, double bytes)
{
	const char *dt[2] = { u->dt_in, u->dt_out };
	int err;

	err = pm_param_shape(out, "op_shape", &u->op_shape);
	if (!err)
		err = param_dtypes(out, "dtype_in_out", dt, 2);
	if (!err)
		err = param_opt_shape(out, "stride_input", u->stride_in);
	if (!err)
		err = param_opt_shape(out, "stride_output", u->stride_out);
	if (err)
		return pm_fail(out, "the parameters do not fit the result");
	out->gflops = flops / 1e9;
	out->bytes = bytes;
	pm_compute_spec(out, "vector", u->dt_in);
	return 0;
}

/* aten_unary_elementwise: input 0 is the operand; a non-empty input 1 (the
 * destination of copy_, ...) gives the output's dtype and strides. */
static int model_unary(const struct pm_call *c, struct pm_out *out)
{
	struct unary u = { 0 };
	int bin, bout, has_out;
	double n;

	if (read_shape(c, "Input Dims", 0, &u.op_shape) || pm_arg_dtype(c, 0, &u.dt_in) ||
	    read_shape(c, "Input Strides", 0, &u.sin))
		return pm_fail(out, "%s: no shape, dtype and strides of input 0", c->name);
	u.stride_in = &u.sin;
	if (optional_input(c, 1, &has_out))
		return pm_fail(out, "%s: input 1 is not a shape", c->name);
	if (has_out) {
		if (pm_arg_dtype(c, 1, &u.dt_out) || read_shape(c, "Input Strides", 1, &u.sout))
			return pm_fail(out, "%s: no dtype and strides of input 1", c->name);
		u.stride_out = &u.sout;
	}
	bin = pm_dtype_bpe(u.dt_in);
	bout = u.dt_out ? pm_dtype_bpe(u.dt_out) : bin;
	n = pm_shape_numel(&u.op_shape);
	return unary_emit(out, &u, n, bytes_or_nan(bin && bout, n * bin + n * bout));
}

/* The input of a pad or upsample: one tensor whose dtype the output keeps. */
static int read_resize_input(const struct pm_call *c, struct pm_out *out, struct pm_shape *in,
			     struct unary *u, const char **size_arg)
{
	const cJSON *ci = pm_arg_at(c, "Concrete Inputs", 1);

	if (read_shape(c, "Input Dims", 0, in) || pm_arg_dtype(c, 0, &u->dt_in) ||
	    read_shape(c, "Input Strides", 0, &u->sin))
		return pm_fail(out, "%s: no shape, dtype and strides of input 0", c->name);
	if (!cJSON_IsString(ci))
		return pm_fail(out, "%s: no Concrete Inputs[1]", c->name);
	u->dt_out = u->dt_in;
	u->stride_in = &u->sin;
	*size_arg = ci->valuestring;
	return 0;
}

/* Both resize models read the input and write the output once; an unsized
 * dtype is a TypeError in their bytes(), so the row is dropped. */
static int resize_finish(const struct pm_call *c, struct pm_out *out, const struct unary *u,
			 const struct pm_shape *in)
{
	int bpe = pm_dtype_bpe(u->dt_in);
	double nout = pm_shape_numel(&u->op_shape);

	if (!bpe)
		return pm_fail(out, "%s: dtype %s has no size", c->name, u->dt_in ? u->dt_in : "None");
	return unary_emit(out, u, nout, pm_shape_numel(in) * bpe + nout * bpe);
}

/* aten_replication_pad: Concrete Inputs[1] is the padding, pairs from the
 * last dim inwards; the output grows by each pair. */
static int model_replication_pad(const struct pm_call *c, struct pm_out *out)
{
	struct pm_shape in, pad = { 0 };
	struct unary u = { 0 };
	char buf[PM_MAX_DIMS * 24 + 8], *p, *tok, *save = NULL;
	const char *text, *end;
	size_t len;
	int err, i;

	err = read_resize_input(c, out, &in, &u, &text);
	if (err)
		return err;
	/* the padding text loses its outer brackets, then its spaces, then
	 * each comma-separated piece must be an int */
	while (*text == '[' || *text == ']')
		text++;
	end = text + strlen(text);
	while (end > text && (end[-1] == '[' || end[-1] == ']'))
		end--;
	for (len = 0; text < end; text++) {
		if (*text == ' ')
			continue;
		if (len + 1 == sizeof(buf))
			return pm_fail(out, "%s: padding too long", c->name);
		buf[len++] = *text;
	}
	buf[len] = '\0';
	if (!len || buf[len - 1] == ',' || buf[0] == ',' || strstr(buf, ",,"))
		return pm_fail(out, "%s: padding is not a list of ints", c->name);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long long v = strtoll(tok, &p, 10);

		if (p == tok || *p || pad.n == PM_MAX_DIMS)
			return pm_fail(out, "%s: padding is not a list of ints", c->name);
		pad.d[pad.n++] = v;
	}
	u.op_shape = in;
	for (i = 0; i < pad.n / 2; i++) {
		int d = in.n - 1 - i;

		/* a negative index counts from the end, as in Python */
		if (d < 0)
			d += in.n;
		if (d < 0)
			return pm_fail(out, "%s: more padding pairs than dims", c->name);
		u.op_shape.d[d] += pad.d[2 * i] + pad.d[2 * i + 1];
	}
	err = pm_param_shape(out, "input_shape", &in);
	if (!err)
		err = pm_param_shape(out, "output_shape", &u.op_shape);
	if (!err)
		err = pm_shape_repr(&pad, 1, buf, sizeof(buf));
	if (!err)
		err = pm_param_str(out, "padding", buf);
	if (err)
		return pm_fail(out, "the parameters do not fit the result");
	return resize_finish(c, out, &u, &in);
}

/* aten_upsample_nearest: Concrete Inputs[1] is the output's spatial size;
 * batch and channels stay. */
static int model_upsample_nearest(const struct pm_call *c, struct pm_out *out)
{
	struct pm_shape in, size;
	struct unary u = { 0 };
	const char *text;
	int err, i, keep;

	err = read_resize_input(c, out, &in, &u, &text);
	if (err)
		return err;
	if (pm_parse_int_list(text, &size))
		return pm_fail(out, "%s: output size '%s' is not a list of ints", c->name, text);
	keep = in.n < 2 ? in.n : 2;
	if (keep + size.n > PM_MAX_DIMS)
		return pm_fail(out, "%s: too many dims", c->name);
	u.op_shape.n = keep + size.n;
	for (i = 0; i < keep; i++)
		u.op_shape.d[i] = in.d[i];
	for (i = 0; i < size.n; i++)
		u.op_shape.d[keep + i] = size.d[i];
	err = pm_param_shape(out, "input_shape", &in);
	if (!err)
		err = pm_param_shape(out, "output_shape", &u.op_shape);
	if (err)
		return pm_fail(out, "the parameters do not fit the result");
	return resize_finish(c, out, &u, &in);
}

/* The gated activations of the extensions (aiter_silu_and_mul and its
 * subclasses): input 0 is the output [..., d], input 1 the gate and up
 * halves [..., 2d]; both halves are read, the output written. */
static int gated_act(const struct pm_call *c, struct pm_out *out, double flops_per_elem)
{
	struct unary u = { 0 };
	int bin, bout;
	double n;

	if (read_shape(c, "Input Dims", 0, &u.op_shape) || pm_arg_dtype(c, 1, &u.dt_in) ||
	    pm_arg_dtype(c, 0, &u.dt_out) || read_shape(c, "Input Strides", 1, &u.sin) ||
	    read_shape(c, "Input Strides", 0, &u.sout))
		return pm_fail(out, "%s: no shapes, dtypes and strides of out and input", c->name);
	u.stride_in = &u.sin;
	u.stride_out = &u.sout;
	bin = pm_dtype_bpe(u.dt_in);
	bout = u.dt_out ? pm_dtype_bpe(u.dt_out) : bin;
	if (!bin || !bout)
		return pm_fail(out, "%s: a dtype has no size", c->name);
	n = pm_shape_numel(&u.op_shape);
	return unary_emit(out, &u, flops_per_elem * n, 2 * n * bin + n * bout);
}

static int model_silu_and_mul(const struct pm_call *c, struct pm_out *out)
{
	return gated_act(c, out, 5);	/* aiter_silu_and_mul */
}

static int model_gelu_and_mul(const struct pm_call *c, struct pm_out *out)
{
	return gated_act(c, out, 8);	/* aiter_gelu_and_mul: erf GELU */
}

static int model_gelu_tanh_and_mul(const struct pm_call *c, struct pm_out *out)
{
	return gated_act(c, out, 10);	/* aiter_gelu_tanh_and_mul */
}

/* primus_turbo_quantize_fp8 / _mxfp4_dual: input 0 is quantized to a fixed
 * low-precision dtype; strides are None when the trace lacks them. */
static int quantize_read(const struct pm_call *c, struct pm_out *out, struct unary *u,
			 const char *dt_out)
{
	const cJSON *st = pm_arg(c, "Input Strides");

	if (read_shape(c, "Input Dims", 0, &u->op_shape) || pm_arg_dtype(c, 0, &u->dt_in))
		return pm_fail(out, "%s: no shape and dtype of input 0", c->name);
	u->dt_out = dt_out;
	if (cJSON_GetArraySize(st) > 0) {
		if (read_shape(c, "Input Strides", 0, &u->sin))
			return pm_fail(out, "%s: strides of input 0 are not ints", c->name);
		u->stride_in = &u->sin;
	}
	return 0;
}

static int model_quantize_fp8(const struct pm_call *c, struct pm_out *out)
{
	struct unary u = { 0 };
	int err = quantize_read(c, out, &u, "c10::Float8_e4m3fnuz"), bin;
	double n;

	if (err)
		return err;
	bin = pm_dtype_bpe(u.dt_in);
	n = pm_shape_numel(&u.op_shape);
	return unary_emit(out, &u, n, bytes_or_nan(bin, n * bin + n * 1));
}

static int model_quantize_mxfp4_dual(const struct pm_call *c, struct pm_out *out)
{
	struct unary u = { 0 };
	int err = quantize_read(c, out, &u, "c10::Float4_e2m1fn_x2"), bin;
	double m, n, bytes;

	if (err)
		return err;
	/* the byte model unpacks a 2-D (M, N) input */
	if (u.op_shape.n != 2)
		return pm_fail(out, "%s: input 0 is not 2-D", c->name);
	m = (double)u.op_shape.d[0];
	n = (double)u.op_shape.d[1];
	bin = pm_dtype_bpe(u.dt_in);
	/* read the input; write the row- and column-wise packed FP4 copies
	 * (two values a byte) and one E8M0 scale per 32-element block */
	bytes = m * n * bin + 2 * floor((m * n + 1) / 2) + m * floor((n + 31) / 32) +
		n * floor((m + 31) / 32);
	return unary_emit(out, &u, m * n, bytes_or_nan(bin, bytes));
}

/* The six parameters of a BinaryElementwise row, with @shape_out (the
 * GroupQuant models' explicit output) after the inputs when given. */
static int binary_params(struct pm_out *out, const struct binary *b, const struct pm_shape *shape_out)
{
	int err;

	err = pm_param_shape(out, "shape_in1", &b->in1);
	if (!err)
		err = pm_param_shape(out, "shape_in2", &b->in2);
	if (!err && shape_out)
		err = pm_param_shape(out, "shape_out", shape_out);
	if (!err)
		err = param_dtypes(out, "dtype_in1_in2_out", b->dt, 3);
	if (!err)
		err = param_opt_shape(out, "stride_input1", b->stride[0]);
	if (!err)
		err = param_opt_shape(out, "stride_input2", b->stride[1]);
	if (!err)
		err = param_opt_shape(out, "stride_output", b->stride[2]);
	return err ? pm_fail(out, "the parameters do not fit the result") : 0;
}

/* BinaryElementwise: the output is the broadcast of the inputs; without an
 * output dtype it is the wider input's when both are tensors, else the
 * first input's. */
static int binary_finish(const struct pm_call *c, struct pm_out *out, const struct binary *b)
{
	struct pm_shape bc;
	int b1 = pm_dtype_bpe(b->dt[0]), b2 = pm_dtype_bpe(b->dt[1]), bo;
	double n1 = pm_shape_numel(&b->in1), n2 = pm_shape_numel(&b->in2), no;
	int err;

	if (pm_shape_broadcast(&b->in1, &b->in2, &bc))
		return pm_fail(out, "%s: input shapes do not broadcast", c->name);
	if (b->dt[2])
		bo = pm_dtype_bpe(b->dt[2]);
	else if (b1 && b2)
		bo = b->in1.n && b->in2.n ? (b1 > b2 ? b1 : b2) : b1;
	else
		bo = 0;
	err = binary_params(out, b, NULL);
	if (err)
		return err;
	no = pm_shape_numel(&bc);
	out->gflops = no / 1e9;
	out->bytes = bytes_or_nan(b1 && b2 && bo, n1 * b1 + n2 * b2 + no * bo);
	pm_compute_spec(out, "vector", b->dt[0]);
	return 0;
}

/* Inputs 0 and 1 of a binary call: shapes, dtypes, strides. */
static int binary_read_inputs(const struct pm_call *c, struct pm_out *out, struct binary *b)
{
	if (read_shape(c, "Input Dims", 0, &b->in1) || read_shape(c, "Input Dims", 1, &b->in2) ||
	    pm_arg_dtype(c, 0, &b->dt[0]) || pm_arg_dtype(c, 1, &b->dt[1]) ||
	    read_shape(c, "Input Strides", 0, &b->s[0]) || read_shape(c, "Input Strides", 1, &b->s[1]))
		return pm_fail(out, "%s: no shapes, dtypes and strides of inputs 0 and 1", c->name);
	b->stride[0] = &b->s[0];
	b->stride[1] = &b->s[1];
	return 0;
}

/* aten_binary_elementwise: a non-empty input 2 is the out= tensor. */
static int model_binary(const struct pm_call *c, struct pm_out *out)
{
	struct binary b = { 0 };
	int err = binary_read_inputs(c, out, &b), has_out;

	if (err)
		return err;
	if (optional_input(c, 2, &has_out))
		return pm_fail(out, "%s: input 2 is not a shape", c->name);
	if (has_out) {
		if (pm_arg_dtype(c, 2, &b.dt[2]) || read_shape(c, "Input Strides", 2, &b.s[2]))
			return pm_fail(out, "%s: no dtype and strides of input 2", c->name);
		b.stride[2] = &b.s[2];
	}
	return binary_finish(c, out, &b);
}

/* liger_silu_mul_function: SiLU(a) * b, the output never recorded. */
static int model_liger_silu_mul(const struct pm_call *c, struct pm_out *out)
{
	struct binary b = { 0 };
	int err = binary_read_inputs(c, out, &b);

	return err ? err : binary_finish(c, out, &b);
}

/* per_group_quant (GroupQuant): inputs are (out, input, scales); the output
 * is its own shape, not a broadcast, and every dtype must have a size. */
static int model_per_group_quant(const struct pm_call *c, struct pm_out *out)
{
	struct binary b = { 0 };
	struct pm_shape so;
	int bo, b1, b2, err;

	if (read_shape(c, "Input Dims", 1, &b.in1) || read_shape(c, "Input Dims", 2, &b.in2) ||
	    read_shape(c, "Input Dims", 0, &so) || pm_arg_dtype(c, 1, &b.dt[0]) ||
	    pm_arg_dtype(c, 2, &b.dt[1]) || pm_arg_dtype(c, 0, &b.dt[2]) ||
	    read_shape(c, "Input Strides", 0, &b.s[2]) || read_shape(c, "Input Strides", 1, &b.s[0]) ||
	    read_shape(c, "Input Strides", 2, &b.s[1]))
		return pm_fail(out, "%s: no shapes, dtypes and strides of out, input and scales", c->name);
	b.stride[0] = &b.s[0];
	b.stride[1] = &b.s[1];
	b.stride[2] = &b.s[2];
	b1 = pm_dtype_bpe(b.dt[0]);
	b2 = pm_dtype_bpe(b.dt[1]);
	bo = pm_dtype_bpe(b.dt[2]);
	if (!b1 || !b2 || !bo)
		return pm_fail(out, "%s: a dtype has no size", c->name);
	err = binary_params(out, &b, &so);
	if (err)
		return err;
	/* FLOPs per output element measured with rocprof counters */
	out->gflops = pm_shape_numel(&so) * 2.59375 / 1e9;
	out->bytes = pm_shape_numel(&so) * bo + pm_shape_numel(&b.in1) * b1 +
		     pm_shape_numel(&b.in2) * b2;
	pm_compute_spec(out, "vector", b.dt[0]);
	return 0;
}

/* Python's int() of a Concrete Inputs text, or @dflt when it is not one. */
static long long concrete_int(const char *s, long long dflt)
{
	char *end;
	long long v;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return dflt;
	errno = 0;
	v = strtoll(s, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	return end == s || *end || errno ? dflt : v;
}

/* vllm_triton_per_token_group_quant_fp8: x (M, N) in groups of group_size
 * along N, written as FP8 with one FP32 scale per group. */
static int model_triton_group_quant_fp8(const struct pm_call *c, struct pm_out *out)
{
	const cJSON *dims = pm_arg(c, "Input Dims"), *types = pm_arg(c, "Input type");
	const cJSON *ci = pm_arg_at(c, "Concrete Inputs", 1);
	const char *dt_x = "", *dt[3];
	struct pm_shape x = { 0 };
	long long m = 1, n = 1, gs = 128, ng;
	int64_t gsv;
	int err = 0, bx;

	if (cJSON_GetArraySize(dims) > 0 && read_shape(c, "Input Dims", 0, &x))
		return pm_fail(out, "%s: input 0 is not a shape", c->name);
	if (x.n >= 2) {
		m = x.d[0];
		n = x.d[1];
	} else if (x.n == 1) {
		n = x.d[0];
	}
	/* no Input type makes dtype_x ""; a null one is None */
	if (cJSON_GetArraySize(types) > 0 && pm_arg_dtype(c, 0, &dt_x))
		return pm_fail(out, "%s: dtype of input 0 is not a string", c->name);
	if (cJSON_IsString(ci) && strcasecmp(ci->valuestring, "none"))
		gs = concrete_int(ci->valuestring, gs);
	else if (tl_json_i64(ci, INT64_MIN, INT64_MAX, &gsv))
		gs = gsv;
	if (!gs)
		return pm_fail(out, "%s: group size 0", c->name);
	ng = (n + gs - 1) / gs;
	if ((n + gs - 1) % gs && ((n + gs - 1) < 0) != (gs < 0))
		ng--;		/* Python's // floors */
	if (ng < 1)
		ng = 1;
	dt[0] = dt_x;
	dt[1] = NULL;
	dt[2] = "c10::float8_e4m3fn";
	err = pm_param_int(out, "M", m);
	if (!err)
		err = pm_param_int(out, "N", n);
	if (!err)
		err = pm_param_int(out, "group_size", gs);
	if (!err)
		err = pm_param_int(out, "num_groups", ng);
	if (!err)
		err = pm_param_shape(out, "shape_x", &x);
	if (!err)
		err = dt_x ? pm_param_str(out, "dtype_x", dt_x) : pm_param_none(out, "dtype_x");
	if (!err)
		err = pm_param_shape(out, "shape_in1", &x);
	if (!err)
		err = pm_param_shape(out, "shape_in2", &(struct pm_shape){ 0 });
	if (!err)
		err = pm_param_shape(out, "shape_out", &x);
	if (!err)
		err = param_dtypes(out, "dtype_in1_in2_out", dt, 3);
	if (!err)
		err = pm_param_none(out, "stride_input1");
	if (!err)
		err = pm_param_none(out, "stride_input2");
	if (!err)
		err = pm_param_none(out, "stride_output");
	if (err)
		return pm_fail(out, "the parameters do not fit the result");
	bx = pm_dtype_bpe(dt_x);
	out->gflops = 6.0 * (double)m * (double)n / 1e9;
	out->bytes = bytes_or_nan(bx, (double)m * n * bx + (double)m * n + (double)m * ng * 4);
	pm_compute_spec(out, "vector", dt_x);
	return 0;
}

static const char *const unary_ops[] = {
	"aten::copy", "aten::copy_", "aten::clamp_min", "aten::clamp_min_", "aten::clamp_max",
	"aten::clamp_max_", "aten::sigmoid", "aten::rsqrt", "aten::silu", "aten::neg", "aten::pow",
	NULL,
};
static const char *const replication_pad_ops[] = {
	"aten::replication_pad1d", "aten::replication_pad2d", "aten::replication_pad3d", NULL,
};
static const char *const upsample_ops[] = {
	"aten::upsample_nearest1d", "aten::upsample_nearest2d", "aten::upsample_nearest3d", NULL,
};
static const char *const silu_and_mul_ops[] = { "aiter::silu_and_mul", "_C::silu_and_mul", NULL };
static const char *const sgl_silu_and_mul_ops[] = { "sgl_kernel::silu_and_mul", NULL };
static const char *const gelu_and_mul_ops[] = { "aiter::gelu_and_mul", NULL };
static const char *const gelu_tanh_and_mul_ops[] = { "aiter::gelu_tanh_and_mul", NULL };
static const char *const quantize_fp8_ops[] = {
	"primus_turbo_cpp_extension::quantize_fp8_tensorwise", "primus_turbo::quantize_fp8_tensorwise", NULL,
};
static const char *const quantize_mxfp4_ops[] = {
	"primus_turbo_cpp_extension::quantize_mxfp4_dual", "primus_turbo::quantize_mxfp4_dual",
	"primus::quantize_mxfp4_dual", NULL,
};
static const char *const binary_ops[] = {
	"aten::div", "aten::div_", "aten::mul", "aten::mul_", "aten::add", "aten::add_",
	"aten::sigmoid_backward", "aten::threshold_backward", NULL,
};
static const char *const liger_ops[] = { "LigerSiLUMulFunction", NULL };
static const char *const per_group_quant_ops[] = {
	"aiter::dynamic_per_token_scaled_quant", "aiter::dynamic_per_group_scaled_quant",
	"aiter::dynamic_per_tensor_quant", NULL,
};
static const char *const triton_group_quant_ops[] = { "vllm::triton_per_token_group_quant_fp8", NULL };

/* The category is TraceLens's class attribute (the GroupQuant models keep
 * the BinaryElementwise sheet but a category of their own). */
const struct pm_class pm_eltwise_classes[] = {
	{ "aten_unary_elementwise", "UnaryElementwise", "elementwise", unary_ops, model_unary },
	{ "aten_replication_pad", "UnaryElementwise", "elementwise", replication_pad_ops,
	  model_replication_pad },
	{ "aten_upsample_nearest", "UnaryElementwise", "elementwise", upsample_ops,
	  model_upsample_nearest },
	{ "aiter_silu_and_mul", "UnaryElementwise", "elementwise", silu_and_mul_ops, model_silu_and_mul },
	{ "sgl_kernel_silu_and_mul", "UnaryElementwise", "elementwise", sgl_silu_and_mul_ops,
	  model_silu_and_mul },
	{ "aiter_gelu_and_mul", "UnaryElementwise", "elementwise", gelu_and_mul_ops, model_gelu_and_mul },
	{ "aiter_gelu_tanh_and_mul", "UnaryElementwise", "elementwise", gelu_tanh_and_mul_ops,
	  model_gelu_tanh_and_mul },
	{ "primus_turbo_quantize_fp8", "UnaryElementwise", "elementwise", quantize_fp8_ops,
	  model_quantize_fp8 },
	{ "primus_turbo_quantize_mxfp4_dual", "UnaryElementwise", "elementwise", quantize_mxfp4_ops,
	  model_quantize_mxfp4_dual },
	{ "aten_binary_elementwise", "BinaryElementwise", "elementwise", binary_ops, model_binary },
	{ "liger_silu_mul_function", "BinaryElementwise", "elementwise", liger_ops, model_liger_silu_mul },
	{ "per_group_quant", "BinaryElementwise", "GroupQuant", per_group_quant_ops, model_per_group_quant },
	{ "vllm_triton_per_token_group_quant_fp8", "BinaryElementwise", "GroupQuant",
	  triton_group_quant_ops, model_triton_group_quant_fp8 },
	{ 0 },
};
