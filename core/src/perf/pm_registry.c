/* SPDX-License-Identifier: MIT */
/* Which perf-model class models an op: the family tables, searched in order. */
#include <string.h>

#include "perf/perf_internal.h"

/* Each family file defines one table ending with a { 0 } row. */
static const struct pm_class *const families[] = {
	pm_gemm_classes,	/* pm_gemm.c: GEMM and grouped GEMM */
	pm_conv_classes,	/* pm_conv.c: convolutions, forward and backward */
	pm_sdpa_classes,	/* pm_sdpa.c: attention (SDPA, flash, inference attention) */
	pm_eltwise_classes,	/* pm_eltwise.c: unary and binary elementwise */
	pm_reduce_classes,	/* pm_reduce.c: reductions */
	pm_norm_classes,	/* pm_norm.c: normalizations, RMSNorm */
	pm_misc_classes,	/* pm_misc.c: RoPE, MoE and the other extension models */
};

const struct pm_class *pm_class_of(const char *name)
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
