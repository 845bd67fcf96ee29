/* SPDX-License-Identifier: MIT */
/* Which perf-model class models an op: the family tables, searched in order. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "base/base_internal.h"

#include "perfmodel/perfmodel_internal.h"

/* Each family file defines one table ending with a { 0 } row. */
static const struct pm_class *const families[] = {
	pm_gemm_classes,	/* pm_gemm.c: GEMM and grouped GEMM */
	pm_conv_classes,	/* pm_conv.c: convolutions, forward and backward */
	pm_sdpa_classes,	/* pm_sdpa.c: attention (SDPA, flash, inference attention) */
	pm_eltwise_classes,	/* pm_eltwise.c: unary and binary elementwise */
	pm_reduce_classes,	/* pm_reduce.c: reductions */
	pm_norm_classes,	/* pm_norm.c: normalizations, RMSNorm */
	pm_rope_classes,	/* pm_rope.c: RoPE and MLA RoPE */
	pm_misc_classes,	/* pm_misc.c: CrossEntropy, SSM, mHC, MXFP4 quant and other extensions */
	pm_coll_classes,	/* pm_collective.c: custom collectives */
	pm_moe_classes,		/* pm_moe.c: MoE, fused and unfused, aux and comm */
};

/* Op name -> class, an open-addressing table built once: the report asks
 * for every cpu_op of a trace, and a linear search of the family tables
 * (hundreds of names) was a tenth of its time. The first family to name an
 * op wins, as in the tables' order. */
#define SLOTS 4096

static struct slot {
	const char *op;
	const struct pm_class *cls;
} table[SLOTS];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static bool table_full;	/* more names than slots allow: search linearly */

static size_t slot_of(const char *name)
{
	return (size_t)tl_hash_bytes(name, strlen(name)) & (SLOTS - 1);
}

static const struct pm_class *search(const char *name)
{
	size_t f;

	for (f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		const struct pm_class *c;

		for (c = families[f]; c->name; c++) {
			const char *const *op;

			for (op = c->ops; *op; op++)
				if (!strcmp(*op, name))
					return c;
		}
	}
	return NULL;
}

static void build_table(void)
{
	size_t f, used = 0;

	for (f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		const struct pm_class *c;

		for (c = families[f]; c->name; c++) {
			const char *const *op;

			for (op = c->ops; *op; op++) {
				size_t s = slot_of(*op);

				while (table[s].op && strcmp(table[s].op, *op))
					s = (s + 1) & (SLOTS - 1);
				if (table[s].op)
					continue;	/* an earlier family has it */
				if (++used > SLOTS / 2) {
					table_full = true;
					return;
				}
				table[s] = (struct slot){ *op, c };
			}
		}
	}
}

static const struct pm_class *by_table(const char *name)
{
	size_t s;

	pthread_once(&table_once, build_table);
	if (table_full)
		return search(name);
	for (s = slot_of(name); table[s].op; s = (s + 1) & (SLOTS - 1))
		if (!strcmp(table[s].op, name))
			return table[s].cls;
	return NULL;
}

const struct pm_class *pm_class_of(const char *name)
{
	const struct pm_class *c = by_table(name);

	/* TraceLens's pattern matchers, after its op map */
	if (!c && pm_is_triton_compiled(name))
		c = &pm_triton_compiled_class;
	return c;
}

const struct pm_class *pm_class_of_event(const struct tl_trace *tr, uint64_t uid, const char *name)
{
	const struct pm_class *c = pm_class_of(name);
	struct pm_call call;
	bool ok;

	/* only a pattern-matched class reads the call before it models it */
	if (c != &pm_triton_compiled_class)
		return c;
	if (pm_call_of(tr, uid, &call))
		return NULL;
	ok = pm_can_model(c, &call);
	pm_call_release(&call);
	return ok ? c : NULL;
}

size_t pm_class_list(const struct pm_class **v, size_t max)
{
	size_t f, n = 0;

	for (f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		const struct pm_class *c;

		for (c = families[f]; c->name; c++, n++)
			if (n < max)
				v[n] = c;
	}
	return n;
}

int pm_model_bwd(const struct pm_class *cls, const struct pm_call *c, struct pm_out *out)
{
	int err = pm_sdpa_bwd(cls, c, out);

	if (err != -ENOENT)
		return err;
	/* Reduce.flops_bwd / bytes_bwd: grad_output read, grad_input written,
	 * the same counts as the forward's */
	if (cls && !strcmp(cls->name, "aten_reduce"))
		return cls->model(c, out);
	return -ENOENT;
}
