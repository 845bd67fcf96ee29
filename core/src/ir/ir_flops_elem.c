/* SPDX-License-Identifier: MIT */
/* FLOP rules of tl_ir_flops() for the ops that touch every element a few
 * times: elementwise ops (1 FLOP per output element, whatever the op),
 * copies (0), softmax and norms (a few per element), reductions and scans
 * (1 per input element). Their outputs take the broadcast shape of the
 * inputs, the input's shape, or the reduced shape. */
#include <stdio.h>

#include "ir/ir_internal.h"

/* ------------------------------------------------------------------ per element */

/* Broadcast every tensor argument (not lists) into @out; its element size is
 * that of the highest-rank operand (0-d tensors take no part in promotion),
 * the larger on ties. */
static int broadcast_all(struct fl_ctx *c, struct fl_tensor *out)
{
	const cJSON *lists[2] = { c->pos, c->kw }, *a;
	struct fl_tensor t;
	int i, j, r, best = -1;

	out->nd = 0;
	out->esize = NAN;
	for (i = 0; i < 2; i++) {
		cJSON_ArrayForEach(a, lists[i]) {
			if ((r = fl_tensor_of(c, cJSON_GetObjectItemCaseSensitive(a, "value"), &t)) <= 0) {
				if (r < 0)
					return r;
				continue;
			}
			if (t.nd > FL_MAXDIM)
				return tl_err(-ENOTSUP, "%s: tensor of more than %d dimensions", c->op, FL_MAXDIM);
			if (t.nd > best || (t.nd == best && t.esize > out->esize))
				out->esize = t.esize;
			if (t.nd > best)
				best = t.nd;
			for (j = 0; j < t.nd; j++) {
				/* right-aligned */
				int oj = out->nd - t.nd + j;
				double td = t.dim[j];

				if (oj < 0)
					continue;
				if (out->dim[oj] != td && out->dim[oj] != 1 && td != 1)
					return tl_err(-EINVAL, "%s: shapes do not broadcast", c->op);
				if (td != 1)
					out->dim[oj] = td;
			}
			if (t.nd > out->nd) {
				/* the new leading dims come from t */
				memmove(out->dim + (t.nd - out->nd), out->dim, (size_t)out->nd * sizeof(double));
				for (j = 0; j < t.nd - out->nd; j++)
					out->dim[j] = t.dim[j];
				out->nd = t.nd;
			}
		}
	}
	if (best < 0)
		return tl_err(-EINVAL, "%s: no tensor argument", c->op);
	out->numel = 1;
	for (j = 0; j < out->nd; j++)
		out->numel *= out->dim[j];
	return 0;
}

/* Elementwise ops: k FLOPs per output element (1 for every arithmetic op,
 * whatever it costs in instructions; 0 for copies and fills). */
static int rule_pointwise(struct fl_ctx *c, const struct fl_rule *r)
{
	struct fl_tensor out, self;
	double esize;
	int err, hs;

	if ((err = broadcast_all(c, &out)))
		return err;
	esize = out.esize;
	if ((hs = fl_get_tensor(c, "self", 0, &self)) < 0)
		return hs;
	if (c->inplace && hs)
		esize = self.esize;
	if (r->flags & FL_BOOL_OUT)
		esize = 1;
	else if (!isnan(fl_get_num(c, "dtype", -1, NAN)))
		esize = fl_scalar_type_size(fl_get_num(c, "dtype", -1, NAN));	/* _to_copy(dtype=) */
	if ((r->flags & FL_SELF_WO) && hs)
		c->in_bytes -= fl_bytes(&self);	/* copy_, fill_: self is only written */
	c->flops = r->k * out.numel;
	fl_add_out(c, out.numel, esize);
	return 0;
}

/* cat(tensors, dim): a copy into one tensor as large as all of them. */
static int rule_cat(struct fl_ctx *c, const struct fl_rule *r)
{
	const cJSON *e;
	struct fl_tensor t;
	double esize = NAN;
	int n = 0, rc;

	TL_UNUSED(r);
	if (!fl_arg_value(c, "tensors", 0))
		return tl_err(-ENOTSUP, "%s: the shapes of the tensors are not recorded", c->op);
	cJSON_ArrayForEach(e, fl_arg_value(c, "tensors", 0)) {
		if ((rc = fl_tensor_of(c, e, &t)) < 0)
			return rc;
		if (!rc)
			continue;
		if (!n++ || !(t.esize <= esize))
			esize = t.esize;	/* type promotion: the widest */
		fl_add_out(c, t.numel, 1);	/* element counts, times esize below */
	}
	if (!n)
		return tl_err(-EINVAL, "%s: tensors is not a list of tensors", c->op);
	if (!c->has_out)
		c->out_bytes *= esize;
	c->flops = 0;
	return 0;
}

/* Softmax and norms: k FLOPs per input element; the output has the input's
 * shape. Softmax 5 (max, subtract, exp, sum, divide); layer/group/batch norm
 * with statistics 8 (mean 1, variance 3, normalise 2, affine 2); batch norm
 * in eval 4 (normalise 2, affine 2); RMS norm 4 (square, sum, scale,
 * weight). */
static int rule_norm(struct fl_ctx *c, const struct fl_rule *r)
{
	struct fl_tensor x, res;
	double k = r->k, esize;
	int err, hr;

	if (r->flags & FL_ARG0_OUT) {
		/* vLLM's rms_norm(out, input, weight, epsilon): out is written */
		struct fl_tensor o;

		if ((err = fl_need_tensor(c, "out|result", 0, &o)) || (err = fl_need_tensor(c, "input", 1, &x)))
			return err;
		c->in_bytes -= fl_bytes(&o);
		c->out_bytes += fl_bytes(&o);
		c->flops = k * x.numel;
		return 0;
	}
	if ((err = fl_need_tensor(c, "input|self", 0, &x)))
		return err;
	esize = x.esize;
	if (!strcmp(c->op, "_C::fused_add_rms_norm")) {
		/* input += residual; residual = input; input = rms_norm(input) */
		if ((hr = fl_get_tensor(c, "residual", 1, &res)) < 0)
			return hr;
		c->flops = (k + 1) * x.numel;
		fl_add_out(c, x.numel, x.esize);
		if (hr)
			fl_add_out(c, res.numel, res.esize);
		return 0;
	}
	if (strstr(c->op, "batch_norm") && !strstr(c->op, "no_training") &&
	    !fl_get_num(c, "training", 5, 1))
		k = 4;	/* eval: running statistics, nothing to compute */
	if (strstr(c->op, "softmax")) {
		if (fl_get_num(c, "half_to_float", 2, 0))
			esize = 4;
		else if (!isnan(fl_scalar_type_size(fl_get_num(c, "dtype", 2, -1))))
			esize = fl_scalar_type_size(fl_get_num(c, "dtype", 2, -1));
	}
	c->flops = k * x.numel;
	fl_add_out(c, x.numel, esize);
	return 0;
}

/* Mark in @red the dimensions that @dv (dim=: an int, a list, absent or
 * empty for all) reduces. */
static int reduced_dims(const struct fl_ctx *c, const cJSON *dv, int nd, bool *red)
{
	const cJSON *e;
	double d;
	int i;

	if (!dv || (cJSON_IsArray(dv) && !cJSON_GetArraySize(dv))) {
		for (i = 0; i < nd; i++)
			red[i] = true;
		return 0;
	}
	if (!cJSON_IsArray(dv) && !fl_num(dv, &d))
		return tl_err(-EINVAL, "%s: dim is neither an integer nor a list", c->op);
	for (e = cJSON_IsArray(dv) ? dv->child : dv; e; e = cJSON_IsArray(dv) ? e->next : NULL) {
		if (!fl_num(e, &d) || d != floor(d))
			return tl_err(-EINVAL, "%s: dim holds a value that is not an integer", c->op);
		if (d < 0)
			d += nd;
		if (d < 0 || d >= (nd ? nd : 1))
			return tl_err(-EINVAL, "%s: dim out of range", c->op);
		if (d < nd)
			red[(int)d] = true;
	}
	return 0;
}

/* Reductions and scans: one FLOP per input element. The output keeps the
 * dimensions not in dim (all reduced when dim is absent or empty); k is the
 * position of dim in schemaless entries. */
static int rule_reduce(struct fl_ctx *c, const struct fl_rule *r)
{
	bool red[FL_MAXDIM] = { false };
	const cJSON *dv;
	struct fl_tensor x, other;
	double out = 1, esize;
	int err, i, ho;

	if ((err = fl_need_tensor(c, "self|input", 0, &x)))
		return err;
	/* max(self, other) and min(self, other) are elementwise */
	if ((ho = fl_get_tensor(c, "other", 1, &other)) != 0)
		return ho < 0 ? ho : rule_pointwise(c, &(struct fl_rule){ c->op, rule_pointwise, 1, 0 });
	dv = fl_arg_value(c, "dim", r->k);
	if ((err = reduced_dims(c, dv, x.nd, red)))
		return err;
	for (i = 0; i < x.nd; i++)
		if (!red[i])
			out *= x.dim[i];
	if (strstr(c->op, "::cum"))
		out = x.numel;	/* scans keep the shape */
	esize = x.esize;
	if (strstr(c->op, "::arg"))
		esize = 8;
	else if (!strcmp(c->op, "aten::any") || !strcmp(c->op, "aten::all"))
		esize = 1;
	else if (!isnan(fl_scalar_type_size(fl_get_num(c, "dtype", -1, -1))))
		esize = fl_scalar_type_size(fl_get_num(c, "dtype", -1, -1));
	c->flops = x.numel;
	fl_add_out(c, out, esize);
	if ((r->flags & FL_INDICES) && dv)
		fl_add_out(c, out, 8);
	return 0;
}

/* ------------------------------------------------------------------ the table */

#define PW(n) { "aten::" n, rule_pointwise, 1, 0 }
#define CMP(n) { "aten::" n, rule_pointwise, 1, FL_BOOL_OUT }
#define RED(n, dimpos) { "aten::" n, rule_reduce, dimpos, 0 }

const struct fl_rule fl_elem_rules[] = {
	{ "aten::softmax", rule_norm, 5, 0 },
	{ "aten::_softmax", rule_norm, 5, 0 },
	{ "aten::log_softmax", rule_norm, 5, 0 },
	{ "aten::_log_softmax", rule_norm, 5, 0 },
	{ "aten::layer_norm", rule_norm, 8, 0 },
	{ "aten::native_layer_norm", rule_norm, 8, 0 },
	{ "aten::group_norm", rule_norm, 8, 0 },
	{ "aten::native_group_norm", rule_norm, 8, 0 },
	{ "aten::batch_norm", rule_norm, 8, 0 },
	{ "aten::native_batch_norm", rule_norm, 8, 0 },
	{ "aten::_batch_norm_impl_index", rule_norm, 8, 0 },
	{ "aten::cudnn_batch_norm", rule_norm, 8, 0 },
	{ "aten::miopen_batch_norm", rule_norm, 8, 0 },
	{ "aten::_native_batch_norm_legit", rule_norm, 8, 0 },
	{ "aten::_native_batch_norm_legit_no_training", rule_norm, 4, 0 },
	{ "aten::rms_norm", rule_norm, 4, 0 },
	{ "aten::_fused_rms_norm", rule_norm, 4, 0 },
	{ "_C::rms_norm", rule_norm, 4, FL_ARG0_OUT },
	{ "_C::fused_add_rms_norm", rule_norm, 4, 0 },

	RED("sum", 1), RED("mean", 1), RED("nansum", 1), RED("prod", 1), RED("amax", 1), RED("amin", 1),
	RED("argmax", 1), RED("argmin", 1), RED("any", 1), RED("all", 1), RED("logsumexp", 1),
	RED("var", 1), RED("std", 1), RED("var_mean", 1), RED("std_mean", 1), RED("count_nonzero", 1),
	RED("cumsum", 1), RED("cumprod", 1), RED("norm", 2), RED("linalg_vector_norm", 2),
	{ "aten::max", rule_reduce, 1, FL_INDICES },
	{ "aten::min", rule_reduce, 1, FL_INDICES },

	{ "aten::copy", rule_pointwise, 0, FL_SELF_WO },
	{ "aten::fill", rule_pointwise, 0, FL_SELF_WO },
	{ "aten::zero", rule_pointwise, 0, FL_SELF_WO },
	{ "aten::clone", rule_pointwise, 0, 0 },
	{ "aten::contiguous", rule_pointwise, 0, 0 },
	{ "aten::_to_copy", rule_pointwise, 0, 0 },
	{ "aten::to", rule_pointwise, 0, 0 },
	{ "aten::cat", rule_cat, 0, 0 },

	PW("add"), PW("sub"), PW("rsub"), PW("mul"), PW("div"), PW("true_divide"), PW("floor_divide"),
	PW("remainder"), PW("fmod"), PW("pow"), PW("neg"), PW("abs"), PW("sign"), PW("sgn"), PW("square"),
	PW("reciprocal"), PW("sqrt"), PW("rsqrt"), PW("exp"), PW("exp2"), PW("expm1"), PW("log"),
	PW("log1p"), PW("log2"), PW("log10"), PW("sin"), PW("cos"), PW("tan"), PW("asin"), PW("acos"),
	PW("atan"), PW("atan2"), PW("sinh"), PW("cosh"), PW("tanh"), PW("erf"), PW("erfc"), PW("erfinv"),
	PW("floor"), PW("ceil"), PW("round"), PW("trunc"), PW("frac"), PW("sigmoid"), PW("relu"),
	PW("relu6"), PW("gelu"), PW("silu"), PW("mish"), PW("hardswish"), PW("hardsigmoid"),
	PW("hardtanh"), PW("leaky_relu"), PW("elu"), PW("selu"), PW("celu"), PW("softplus"),
	PW("threshold"), PW("clamp"), PW("clamp_min"), PW("clamp_max"), PW("clip"), PW("maximum"),
	PW("minimum"), PW("fmax"), PW("fmin"), PW("hypot"), PW("lerp"), PW("addcmul"), PW("addcdiv"),
	PW("where"), PW("masked_fill"), PW("nan_to_num"), PW("bitwise_and"), PW("bitwise_or"),
	PW("bitwise_xor"), PW("bitwise_not"), PW("threshold_backward"), PW("gelu_backward"),
	PW("silu_backward"), PW("sigmoid_backward"), PW("tanh_backward"), PW("hardswish_backward"),
	PW("leaky_relu_backward"), PW("elu_backward"),
	CMP("eq"), CMP("ne"), CMP("lt"), CMP("le"), CMP("gt"), CMP("ge"), CMP("logical_and"),
	CMP("logical_or"), CMP("logical_xor"), CMP("logical_not"), CMP("isnan"), CMP("isinf"),
	CMP("isfinite"),
};
const size_t fl_elem_nrules = sizeof(fl_elem_rules) / sizeof(fl_elem_rules[0]);
