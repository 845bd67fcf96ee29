/* SPDX-License-Identifier: MIT */
/* FLOP rules of tl_ir_flops() for the ops that do the heavy arithmetic:
 * matrix products, convolutions and attention. Each checks the shapes it
 * relies on (-EINVAL when they cannot go together). */
#include <stdio.h>

#include "ir/ir_internal.h"

/* ------------------------------------------------------------------ matrix products */

/* a @ b with torch.matmul's rules (1-D operands, broadcast batch dims), plus
 * @bias FLOPs per output element; the output has @esize bytes per element. */
static int mm_core(struct fl_ctx *c, const struct fl_tensor *a, const struct fl_tensor *b, double bias, double esize)
{
	double M, N, K, Kb, batch = 1, da, db;
	int i, na, nb, nbatch;

	if (a->nd < 1 || b->nd < 1)
		return tl_err(-EINVAL, "%s: matrix product of a 0-d tensor", c->op);
	K = a->dim[a->nd - 1];
	M = a->nd >= 2 ? a->dim[a->nd - 2] : 1;
	Kb = b->nd >= 2 ? b->dim[b->nd - 2] : b->dim[0];
	N = b->nd >= 2 ? b->dim[b->nd - 1] : 1;
	if (K != Kb)
		return tl_err(-EINVAL, "%s: inner dimensions differ (%.0f and %.0f)", c->op, K, Kb);
	na = a->nd > 2 ? a->nd - 2 : 0;
	nb = b->nd > 2 ? b->nd - 2 : 0;
	nbatch = na > nb ? na : nb;
	for (i = 0; i < nbatch; i++) {
		/* right-aligned batch dimensions, broadcast where one is 1 */
		da = i < na ? a->dim[na - 1 - i] : 1;
		db = i < nb ? b->dim[nb - 1 - i] : 1;
		if (da != db && da != 1 && db != 1)
			return tl_err(-EINVAL, "%s: batch dimensions do not broadcast", c->op);
		batch *= da > db ? da : db;
	}
	c->flops = batch * (2 * M * N * K + bias * M * N);
	fl_add_out(c, batch * M * N, esize);
	return 0;
}

/* Expected ranks of the two operands (0: any). */
static int mm_ranks(const struct fl_ctx *c, const struct fl_tensor *a, const struct fl_tensor *b, int ra, int rb)
{
	if ((ra && a->nd != ra) || (rb && b->nd != rb))
		return tl_err(-EINVAL, "%s: operands of %d and %d dimensions (expected %d and %d)", c->op,
			      a->nd, b->nd, ra, rb);
	return 0;
}

/* mm, bmm, matmul, mv, dot: self @ (mat2|other|vec|tensor); k = rank of both
 * (0: any, as matmul), or -1 for mv. */
static int rule_mm(struct fl_ctx *c, const struct fl_rule *r)
{
	struct fl_tensor a, b;
	int err;

	if ((err = fl_need_tensor(c, "self", 0, &a)) || (err = fl_need_tensor(c, "mat2|other|vec|tensor", 1, &b)))
		return err;
	if ((err = mm_ranks(c, &a, &b, r->k < 0 ? 2 : r->k, r->k < 0 ? 1 : r->k)))
		return err;
	return mm_core(c, &a, &b, 0, a.esize);
}

/* addmm, baddbmm, addmv, addbmm: self + A @ B, one FLOP per output element
 * for the add (TraceLens's GEMM model). k = rank of A and B (-1: addmv). */
static int rule_addmm(struct fl_ctx *c, const struct fl_rule *r)
{
	struct fl_tensor a, b;
	int err;

	if ((err = fl_need_tensor(c, "mat1|batch1|mat", 1, &a)) ||
	    (err = fl_need_tensor(c, "mat2|batch2|vec", 2, &b)) ||
	    (err = mm_ranks(c, &a, &b, r->k < 0 ? 2 : r->k, r->k < 0 ? 1 : r->k)))
		return err;
	if (strcmp(c->op, "aten::addbmm") && strcmp(c->op, "aten::addbmm_"))
		return mm_core(c, &a, &b, 1, a.esize);
	/* addbmm sums the batch into one [M, N]: 2BMNK, then the add */
	if (a.dim[0] != b.dim[0] || a.dim[2] != b.dim[1])
		return tl_err(-EINVAL, "%s: batch1 and batch2 do not multiply", c->op);
	c->flops = 2 * a.dim[0] * a.dim[1] * b.dim[2] * a.dim[2] + a.dim[1] * b.dim[2];
	fl_add_out(c, a.dim[1] * b.dim[2], a.esize);
	return 0;
}

/* linear(input [*, K], weight [N, K], bias [N]?) */
static int rule_linear(struct fl_ctx *c, const struct fl_rule *r)
{
	struct fl_tensor x, w, bias;
	double K, N, M;
	int err, hb;

	TL_UNUSED(r);
	if ((err = fl_need_tensor(c, "input", 0, &x)) || (err = fl_need_tensor(c, "weight", 1, &w)))
		return err;
	if ((hb = fl_get_tensor(c, "bias", 2, &bias)) < 0)
		return hb;
	if (x.nd < 1 || w.nd < 1 || w.nd > 2)
		return tl_err(-EINVAL, "%s: input of %d and weight of %d dimensions", c->op, x.nd, w.nd);
	K = x.dim[x.nd - 1];
	N = w.nd == 2 ? w.dim[0] : 1;
	if (w.dim[w.nd - 1] != K)
		return tl_err(-EINVAL, "%s: input has %.0f features, weight %.0f", c->op, K, w.dim[w.nd - 1]);
	M = K ? x.numel / K : 0;
	c->flops = 2 * M * N * K + (hb ? M * N : 0);
	fl_add_out(c, M * N, x.esize);
	return 0;
}

/* _scaled_mm(self, mat2, scale_a, scale_b, bias?, scale_result?, out_dtype?):
 * the output dtype is out_dtype, else self's. */
static int rule_scaled_mm(struct fl_ctx *c, const struct fl_rule *r)
{
	struct fl_tensor a, b, bias;
	double esize;
	int err, hb;

	TL_UNUSED(r);
	if ((err = fl_need_tensor(c, "self", 0, &a)) || (err = fl_need_tensor(c, "mat2", 1, &b)) ||
	    (err = mm_ranks(c, &a, &b, 2, 2)))
		return err;
	if ((hb = fl_get_tensor(c, "bias", 4, &bias)) < 0)
		return hb;
	esize = fl_scalar_type_size(fl_get_num(c, "out_dtype", 6, -1));
	return mm_core(c, &a, &b, hb ? 1 : 0, isnan(esize) ? a.esize : esize);
}

/* ------------------------------------------------------------------ convolutions */

/* Positions of the arguments in each convolution schema (-1: not there). */
static const struct conv_desc {
	signed char bias, stride, pad, dil, transp, opad, groups;
	signed char transposed;	/* -1: from the transposed argument; else fixed */
} conv_descs[] = {
#define CONV_GENERIC 0		/* convolution, _convolution */
	{ 2, 3, 4, 5, 6, 7, 8, -1 },
#define CONV_ND 1		/* conv1d/2d/3d */
	{ 2, 3, 4, 5, -1, -1, 6, 0 },
#define CONV_TRANSPOSE_ND 2	/* conv_transpose1d/2d/3d: output_padding before groups */
	{ 2, 3, 4, 7, -1, 5, 6, 1 },
#define CONV_CUDNN 3		/* cudnn_convolution: padding before stride, no bias */
	{ -1, 3, 2, 4, -1, -1, 5, 0 },
#define CONV_CUDNN_T 4		/* cudnn_convolution_transpose */
	{ -1, 4, 2, 5, -1, 3, 6, 1 },
#define CONV_MIOPEN 5		/* miopen_(depthwise_)convolution, mkldnn_convolution */
	{ 2, 4, 3, 5, -1, -1, 6, 0 },
#define CONV_MIOPEN_T 6		/* miopen_convolution_transpose */
	{ 2, 5, 3, 6, -1, 4, 7, 1 },
};

struct conv_geo {
	double n;		/* batch (1 for an unbatched input) */
	double out_numel;
	double fwd_flops;	/* 2 x MACs, bias left out */
	double cout;
};

/* Output size and FLOPs of x (*) w. Transposed: w is [Cin, Cout/g, k...]
 * and every input element is spread over Cout/g * prod(k) outputs. */
static int conv_geometry(const struct fl_ctx *c, const struct fl_tensor *x, const struct fl_tensor *w, const double *st,
			 const double *pd, const double *dl, const double *op, double groups, bool transposed,
			 const char *pad_mode, struct conv_geo *g)
{
	int s = w->nd - 2, i, ch;
	double in_sp, k, o, wprod = 1, sp_out = 1, sp_in = 1, cin;

	if (s < 1 || s > 3 || (x->nd != s + 2 && x->nd != s + 1))
		return tl_err(-EINVAL, "%s: input of %d and weight of %d dimensions", c->op, x->nd, w->nd);
	if (groups < 1)
		return tl_err(-EINVAL, "%s: groups must be at least 1", c->op);
	ch = x->nd - s - 1;	/* channel dimension: 1, or 0 when unbatched */
	g->n = ch ? x->dim[0] : 1;
	cin = x->dim[ch];
	if (cin != (transposed ? w->dim[0] : w->dim[1] * groups))
		return tl_err(-EINVAL, "%s: input has %.0f channels, weight expects %.0f", c->op, cin,
			      transposed ? w->dim[0] : w->dim[1] * groups);
	g->cout = transposed ? w->dim[1] * groups : w->dim[0];
	for (i = 1; i < w->nd; i++)
		wprod *= w->dim[i];
	for (i = 0; i < s; i++) {
		in_sp = x->dim[ch + 1 + i];
		k = w->dim[2 + i];
		if (transposed)
			o = (in_sp - 1) * st[i] - 2 * pd[i] + dl[i] * (k - 1) + op[i] + 1;
		else if (pad_mode && !strcmp(pad_mode, "same"))
			o = in_sp;
		else if (st[i] < 1)
			return tl_err(-EINVAL, "%s: stride must be at least 1", c->op);
		else
			o = floor((in_sp + 2 * pd[i] - dl[i] * (k - 1) - 1) / st[i]) + 1;
		if (o < 1)
			return tl_err(-EINVAL, "%s: empty output (input %.0f, kernel %.0f)", c->op, in_sp, k);
		sp_out *= o;
		sp_in *= in_sp;
	}
	g->out_numel = g->n * g->cout * sp_out;
	g->fwd_flops = transposed ? 2 * g->n * cin * sp_in * wprod : 2 * g->out_numel * wprod;
	return 0;
}

/* The convolution parameters of descriptor @d (positions) or, for
 * convolution_backward, positions shifted by @shift. */
static int conv_params(const struct fl_ctx *c, const struct conv_desc *d, int s, double *st, double *pd, double *dl,
		       double *op, double *groups, bool *transposed, const char **pad_mode)
{
	const cJSON *pv = fl_arg_value(c, "padding", d->pad);
	int err;

	*pad_mode = cJSON_IsString(pv) ? pv->valuestring : NULL;	/* conv2d.padding: "same"/"valid" */
	if ((err = fl_get_ints(c, "stride", d->stride, s, 1, st)) || (err = fl_get_ints(c, "dilation", d->dil, s, 1, dl)) ||
	    (err = fl_get_ints(c, "output_padding", d->opad, s, 0, op)))
		return err;
	if (*pad_mode) {
		for (int i = 0; i < s; i++)
			pd[i] = 0;
	} else if ((err = fl_get_ints(c, "padding", d->pad, s, 0, pd))) {
		return err;
	}
	*groups = fl_get_num(c, "groups", d->groups, 1);
	*transposed = d->transposed >= 0 ? d->transposed : fl_get_num(c, "transposed", d->transp, 0) != 0;
	return 0;
}

/* Forward convolutions; k indexes conv_descs. The bias add is one FLOP per
 * output element (TraceLens's CONV model). */
static int rule_conv(struct fl_ctx *c, const struct fl_rule *r)
{
	const struct conv_desc *d = &conv_descs[r->k];
	double st[3], pd[3], dl[3], op[3], groups;
	struct fl_tensor x, w, bias;
	struct conv_geo g;
	const char *pad_mode;
	bool transposed;
	int err, hb = 0;

	if ((err = fl_need_tensor(c, "input|self", 0, &x)) || (err = fl_need_tensor(c, "weight", 1, &w)))
		return err;
	if (w.nd < 3 || w.nd > 5)
		return tl_err(-EINVAL, "%s: weight of %d dimensions", c->op, w.nd);
	if (d->bias >= 0 && (hb = fl_get_tensor(c, "bias", d->bias, &bias)) < 0)
		return hb;
	if ((err = conv_params(c, d, w.nd - 2, st, pd, dl, op, &groups, &transposed, &pad_mode)) ||
	    (err = conv_geometry(c, &x, &w, st, pd, dl, op, groups, transposed, pad_mode, &g)))
		return err;
	c->flops = g.fwd_flops + (hb ? g.out_numel : 0);
	fl_add_out(c, g.out_numel, x.esize);
	return 0;
}

/* convolution_backward(grad_output, input, weight, bias_sizes, stride,
 * padding, dilation, transposed, output_padding, groups, output_mask): the
 * input and the weight gradients each cost the forward's MACs; the bias
 * gradient one FLOP per grad_output element (a reduction). */
static int rule_conv_bwd(struct fl_ctx *c, const struct fl_rule *r)
{
	static const struct conv_desc d = { -1, 4, 5, 6, 7, 8, 9, -1 };
	double st[3], pd[3], dl[3], op[3], groups, mask[3];
	struct fl_tensor go, x, w;
	struct conv_geo g;
	const char *pad_mode;
	bool transposed;
	int err;

	TL_UNUSED(r);
	if ((err = fl_need_tensor(c, "grad_output", 0, &go)) || (err = fl_need_tensor(c, "input", 1, &x)) ||
	    (err = fl_need_tensor(c, "weight", 2, &w)))
		return err;
	if (w.nd < 3 || w.nd > 5)
		return tl_err(-EINVAL, "%s: weight of %d dimensions", c->op, w.nd);
	if ((err = conv_params(c, &d, w.nd - 2, st, pd, dl, op, &groups, &transposed, &pad_mode)) ||
	    (err = conv_geometry(c, &x, &w, st, pd, dl, op, groups, transposed, pad_mode, &g)))
		return err;
	if (g.out_numel != go.numel)
		return tl_err(-EINVAL, "%s: grad_output has %.0f elements, the convolution gives %.0f", c->op,
			      go.numel, g.out_numel);
	mask[2] = fl_arg_value(c, "bias_sizes", 3) != NULL;
	mask[0] = mask[1] = 1;
	if ((err = fl_get_ints(c, "output_mask", 10, 3, 1, mask)))
		return err;
	c->flops = (mask[0] != 0) * g.fwd_flops + (mask[1] != 0) * g.fwd_flops + (mask[2] != 0) * go.numel;
	if (mask[0])
		fl_add_out(c, x.numel, x.esize);
	if (mask[1])
		fl_add_out(c, w.numel, w.esize);
	if (mask[2])
		fl_add_out(c, g.cout, go.esize);
	return 0;
}

/* ------------------------------------------------------------------ attention */

/* Where the pieces of each attention op are. BHLD: [..., L, D] (batch and
 * heads first, any number of leading dims); BSHD: [B, L, H, D], or
 * [T, H, D] with cumulative sequence lengths (varlen). */
static const struct att_desc {
	bool bshd, bwd;
	signed char q;		/* query's position; key and value follow it */
	signed char causal;	/* is_causal's position, -1: none */
	signed char mask_type;	/* custom_mask_type's position (non-zero: causal), -1: none */
	signed char cum_q;	/* cum_seq_q / cu_seqlens_q position, -1: none */
} att_descs[] = {
#define ATT_SDPA 0		/* scaled_dot_product_attention, _scaled_dot_product_attention_math */
	{ false, false, 0, 5, -1, -1 },
#define ATT_SDPA_EFF 1		/* _scaled_dot_product_efficient/_cudnn_attention */
	{ false, false, 0, 6, -1, -1 },
#define ATT_SDPA_FLASH 2	/* _scaled_dot_product_flash_attention(_for_cpu) */
	{ false, false, 0, 4, -1, -1 },
#define ATT_FLASH_FWD 3		/* _flash_attention_forward */
	{ true, false, 0, 8, -1, 3 },
#define ATT_EFF_FWD 4		/* _efficient_attention_forward */
	{ true, false, 0, -1, 9, 4 },
#define ATT_SDPA_EFF_BWD 5	/* _scaled_dot_product_efficient_attention_backward */
	{ false, true, 1, 11, -1, -1 },
#define ATT_SDPA_FLASH_BWD 6	/* _scaled_dot_product_flash_attention_backward */
	{ false, true, 1, 11, -1, -1 },
#define ATT_FLASH_BWD 7		/* _flash_attention_backward */
	{ true, true, 1, 11, -1, 6 },
#define ATT_EFF_BWD 8		/* _efficient_attention_backward */
	{ true, true, 1, -1, 14, 6 },
#define ATT_SDPA_CUDNN_BWD 9	/* _scaled_dot_product_cudnn_attention_backward */
	{ false, true, 1, 14, -1, -1 },
};

/* Forward: S = Q K^T (2 Lq Lk D) and O = P V (2 Lq Lk Dv) per head, that is
 * 4 B H Lq Lk D; softmax left out (TraceLens, FlashAttention's benchmarks).
 * Backward as the fused kernels do it: recompute S, then dV, dP, dQ, dK:
 * 2 Lq Lk (3 D + 2 Dv), 2.5x the forward. Causal with Lq == Lk: half. */
static int rule_attention(struct fl_ctx *c, const struct fl_rule *r)
{
	const struct att_desc *d = &att_descs[r->k];
	struct fl_tensor q, k, v, cq;
	double heads, D, Dv, pairs, Lq, Lk;
	bool causal;
	int err, qp = d->q, varlen;

	if ((err = fl_need_tensor(c, "query", qp, &q)) || (err = fl_need_tensor(c, "key", qp + 1, &k)) ||
	    (err = fl_need_tensor(c, "value", qp + 2, &v)))
		return err;
	varlen = d->cum_q >= 0 ? fl_get_tensor(c, "cum_seq_q|cu_seqlens_q", d->cum_q, &cq) : 0;
	if (varlen < 0)
		return varlen;
	if (q.nd < 2 || k.nd != q.nd || v.nd != q.nd || (d->bshd && q.nd != (varlen ? 3 : 4)))
		return tl_err(-EINVAL, "%s: query, key and value of %d, %d and %d dimensions", c->op, q.nd, k.nd,
			      v.nd);
	D = q.dim[q.nd - 1];
	Dv = v.dim[v.nd - 1];
	if (k.dim[k.nd - 1] != D)
		return tl_err(-EINVAL, "%s: query and key head sizes differ", c->op);
	if (d->bshd) {
		heads = q.dim[q.nd - 2];
		Lq = q.dim[q.nd - 3];
		Lk = k.dim[k.nd - 3];
		pairs = varlen ? 0 : q.dim[0] * Lq * Lk;
		if (varlen) {
			/* sequences of equal length: B of them, Lq = Tq / B each
			 * (exact then; TraceLens takes B = 1, the upper bound) */
			double b = cq.numel > 1 ? cq.numel - 1 : 1;

			pairs = Lq * Lk / b;
		}
	} else {
		Lq = q.dim[q.nd - 2];
		heads = Lq * D > 0 ? q.numel / (Lq * D) : 0;	/* every leading dim */
		Lk = k.dim[k.nd - 2];
		pairs = Lq * Lk;
	}
	causal = d->causal >= 0 ? fl_get_num(c, "is_causal", d->causal, 0) != 0 :
				  fl_get_num(c, "custom_mask_type", d->mask_type, 0) != 0;
	c->flops = 2 * heads * pairs * (d->bwd ? 3 * D + 2 * Dv : D + Dv);
	if (causal && Lq == Lk)
		c->flops /= 2;
	if (d->bwd) {
		fl_add_out(c, q.numel, q.esize);
		fl_add_out(c, k.numel, k.esize);
		fl_add_out(c, v.numel, v.esize);
	} else {
		fl_add_out(c, D ? q.numel / D * Dv : 0, q.esize);
	}
	return 0;
}

/* ------------------------------------------------------------------ the table */

const struct fl_rule fl_mm_rules[] = {
	{ "aten::mm", rule_mm, 2, 0 },
	{ "aten::bmm", rule_mm, 3, 0 },
	{ "aten::matmul", rule_mm, 0, 0 },
	{ "aten::mv", rule_mm, -1, 0 },
	{ "aten::dot", rule_mm, 1, 0 },
	{ "aten::vdot", rule_mm, 1, 0 },
	{ "aten::addmm", rule_addmm, 2, 0 },
	{ "aten::baddbmm", rule_addmm, 3, 0 },
	{ "aten::addbmm", rule_addmm, 3, 0 },
	{ "aten::addmv", rule_addmm, -1, 0 },
	{ "aten::linear", rule_linear, 0, 0 },
	{ "aten::_scaled_mm", rule_scaled_mm, 0, 0 },

	{ "aten::convolution", rule_conv, CONV_GENERIC, 0 },
	{ "aten::_convolution", rule_conv, CONV_GENERIC, 0 },
	{ "aten::conv1d", rule_conv, CONV_ND, 0 },
	{ "aten::conv2d", rule_conv, CONV_ND, 0 },
	{ "aten::conv3d", rule_conv, CONV_ND, 0 },
	{ "aten::conv_transpose1d", rule_conv, CONV_TRANSPOSE_ND, 0 },
	{ "aten::conv_transpose2d", rule_conv, CONV_TRANSPOSE_ND, 0 },
	{ "aten::conv_transpose3d", rule_conv, CONV_TRANSPOSE_ND, 0 },
	{ "aten::cudnn_convolution", rule_conv, CONV_CUDNN, 0 },
	{ "aten::cudnn_convolution_transpose", rule_conv, CONV_CUDNN_T, 0 },
	{ "aten::miopen_convolution", rule_conv, CONV_MIOPEN, 0 },
	{ "aten::miopen_depthwise_convolution", rule_conv, CONV_MIOPEN, 0 },
	{ "aten::mkldnn_convolution", rule_conv, CONV_MIOPEN, 0 },
	{ "aten::miopen_convolution_transpose", rule_conv, CONV_MIOPEN_T, 0 },
	{ "aten::convolution_backward", rule_conv_bwd, 0, 0 },

	{ "aten::scaled_dot_product_attention", rule_attention, ATT_SDPA, 0 },
	{ "aten::_scaled_dot_product_attention_math", rule_attention, ATT_SDPA, 0 },
	{ "aten::_scaled_dot_product_efficient_attention", rule_attention, ATT_SDPA_EFF, 0 },
	{ "aten::_scaled_dot_product_cudnn_attention", rule_attention, ATT_SDPA_EFF, 0 },
	{ "aten::_scaled_dot_product_flash_attention", rule_attention, ATT_SDPA_FLASH, 0 },
	{ "aten::_scaled_dot_product_flash_attention_for_cpu", rule_attention, ATT_SDPA_FLASH, 0 },
	{ "aten::_flash_attention_forward", rule_attention, ATT_FLASH_FWD, 0 },
	{ "aten::_efficient_attention_forward", rule_attention, ATT_EFF_FWD, 0 },
	{ "aten::_scaled_dot_product_efficient_attention_backward", rule_attention, ATT_SDPA_EFF_BWD, 0 },
	{ "aten::_scaled_dot_product_flash_attention_backward", rule_attention, ATT_SDPA_FLASH_BWD, 0 },
	{ "aten::_scaled_dot_product_cudnn_attention_backward", rule_attention, ATT_SDPA_CUDNN_BWD, 0 },
	{ "aten::_flash_attention_backward", rule_attention, ATT_FLASH_BWD, 0 },
	{ "aten::_efficient_attention_backward", rule_attention, ATT_EFF_BWD, 0 },
};
const size_t fl_mm_nrules = sizeof(fl_mm_rules) / sizeof(fl_mm_rules[0]);
