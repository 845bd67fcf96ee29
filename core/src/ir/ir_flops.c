/* SPDX-License-Identifier: MIT */
/* FLOPs and bytes of one call of an IR entry (docs/ir.md), for the roofline
 * of `tlreplay sweep` and anyone else who wants achieved FLOP/s and B/s:
 * the entry point and the choice of a rule. The rules are in ir_flops_mm.c
 * and ir_flops_elem.c; the argument model they share in ir_flops_args.c.
 *
 * Everything comes from the entry alone: tensor shapes and dtypes, and the
 * scalar arguments (stride, padding, is_causal, dim, ...). Arguments are found
 * by name when the entry has a schema, by position in schemaless entries
 * (arg0, arg1, ...), whose positions are those of the op's torch schema.
 *
 * The counts follow TraceLens's perf models where it has one (GEMM with the
 * bias add, convolution, SDPA with causal halving) so that the numbers agree
 * with its roofline sheets; the per-element counts of elementwise ops, norms
 * and reductions are conventions (ir.h lists them).
 *
 * Bytes are a compulsory-traffic model: every tensor argument read once,
 * every output written once; an out= argument (or a vLLM-style output first
 * argument) is written, not read. Small side outputs (softmax statistics,
 * batch-norm saved mean/invstd, attention logsumexp, RNG state) are left out.
 * Values are doubles: counts of big ops exceed 2^32, and double is exact up
 * to 2^53 which no realistic count reaches. */
#include "ir/ir_internal.h"

/* Read the byte counts of every tensor argument (and tensor list element). */
static int scan_args(struct fl_ctx *c)
{
	const cJSON *lists[2] = { c->pos, c->kw }, *a, *v, *n, *ty, *e;
	struct fl_tensor t;
	size_t i;
	int r;

	for (i = 0; i < 2; i++) {
		cJSON_ArrayForEach(a, lists[i]) {
			bool out;

			if (!cJSON_IsObject(a))
				return tl_err(-EINVAL, "%s: an argument is not an object", c->op);
			v = cJSON_GetObjectItemCaseSensitive(a, "value");
			n = cJSON_GetObjectItemCaseSensitive(a, "arg_name");
			ty = cJSON_GetObjectItemCaseSensitive(a, "arg_type");
			/* out= arguments: mutable (the "!" of the schema) and named out* */
			out = cJSON_IsString(n) && !strncmp(n->valuestring, "out", 3) && cJSON_IsString(ty) &&
			      strchr(ty->valuestring, '!');
			if (cJSON_IsArray(v)) {
				cJSON_ArrayForEach(e, v) {
					if ((r = fl_tensor_of(c, e, &t)) < 0)
						return r;
					if (r)
						c->in_bytes += fl_bytes(&t);
					c->ntensors += r;
				}
				continue;
			}
			if ((r = fl_tensor_of(c, v, &t)) <= 0) {
				if (r < 0)
					return r;
				continue;
			}
			if (out) {
				c->out_bytes += fl_bytes(&t);
				c->has_out = true;
				continue;
			}
			c->in_bytes += fl_bytes(&t);
			c->ntensors++;
			if (fl_bytes(&t) > c->big_bytes || isnan(fl_bytes(&t)))
				c->big_bytes = fl_bytes(&t);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ the entry */

static const struct fl_rule *find_in(const struct fl_rule *rules, size_t n, const char *op, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(rules[i].name) == len && !strncmp(rules[i].name, op, len))
			return &rules[i];
	return NULL;
}

static const struct fl_rule *find_rule(const char *op, bool *inplace)
{
	const struct fl_rule *r;
	size_t n = strlen(op);

	*inplace = false;
	if ((r = find_in(fl_mm_rules, fl_mm_nrules, op, n)) || (r = find_in(fl_elem_rules, fl_elem_nrules, op, n)))
		return r;
	/* in-place variants: add_ is add writing into self */
	if (n < 2 || op[n - 1] != '_' || op[n - 2] == '_')
		return NULL;
	r = find_in(fl_mm_rules, fl_mm_nrules, op, n - 1);
	if (!r)
		r = find_in(fl_elem_rules, fl_elem_nrules, op, n - 1);
	*inplace = r != NULL;
	return r;
}

int tl_ir_flops(const cJSON *entry, double *flops, double *bytes)
{
	const cJSON *op = cJSON_GetObjectItemCaseSensitive(entry, "op_name");
	const cJSON *ir = cJSON_GetObjectItemCaseSensitive(entry, "replay_ir");
	struct fl_ctx c = { 0 };
	const struct fl_rule *r;
	double f = NAN, b = NAN;
	int err;

	if (!cJSON_IsObject(entry) || !cJSON_IsString(op) || !cJSON_IsObject(ir)) {
		err = tl_err(-EINVAL, "not an IR entry (op_name and replay_ir are needed)");
		goto out;
	}
	c.op = op->valuestring;
	c.pos = cJSON_GetObjectItemCaseSensitive(ir, "list_pos_args");
	c.kw = cJSON_GetObjectItemCaseSensitive(ir, "list_kwargs");
	if (!cJSON_IsArray(c.pos) || (c.kw && !cJSON_IsArray(c.kw))) {
		err = tl_err(-EINVAL, "%s: replay_ir.list_pos_args/list_kwargs are not lists", c.op);
		goto out;
	}
	c.schemaless = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(entry, "schemaless"));
	if ((err = scan_args(&c)))
		goto out;
	r = find_rule(c.op, &c.inplace);
	err = r ? r->fn(&c, r) : tl_err(-ENOTSUP, "%s: no FLOP count for this op", c.op);
	if (err == -ENOTSUP) {
		/* flops unknown; bytes: the inputs and an output as large as the largest */
		b = c.ntensors ? c.in_bytes + c.big_bytes : NAN;
	} else if (!err) {
		f = c.flops;
		b = c.in_bytes + c.out_bytes;
	}
out:
	if (flops)
		*flops = f;
	if (bytes)
		*bytes = b;
	return err;
}
