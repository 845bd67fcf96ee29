/* SPDX-License-Identifier: MIT */
/* The profiler's spelling of every tensor dtype (docs/ir.md's table), with
 * its element size and kind: the one table the IR builder (which dtypes are
 * tensors, how to fill them) and the FLOPs counter (bytes per element) read. */
#include "ir/ir_internal.h"

/* @in_ir: in docs/ir.md's table, so the builder types arguments of this
 * dtype as tensors. The others are spellings the FLOPs counter sizes but the
 * builder has never taken as tensors (replay has no torch dtype for them). */
static const struct tl_dtype dtypes[] = {
	{ "float", 4, TL_DT_FLOAT, true },
	{ "double", 8, TL_DT_FLOAT, true },
	{ "c10::Half", 2, TL_DT_FLOAT, true },
	{ "c10::BFloat16", 2, TL_DT_FLOAT, true },
	{ "long int", 8, TL_DT_INT, true },
	{ "long", 8, TL_DT_INT, true },
	{ "int", 4, TL_DT_INT, true },
	{ "short int", 2, TL_DT_INT, true },
	{ "short", 2, TL_DT_INT, true },
	{ "signed char", 1, TL_DT_INT, true },
	{ "char", 1, TL_DT_INT, true },
	{ "unsigned char", 1, TL_DT_INT, true },
	{ "unsigned short", 2, TL_DT_INT, false },
	{ "unsigned int", 4, TL_DT_INT, true },
	{ "unsigned long", 8, TL_DT_INT, false },
	{ "bool", 1, TL_DT_BOOL, true },
	{ "c10::Float8_e4m3fn", 1, TL_DT_FLOAT, true },
	{ "c10::Float8_e4m3fnuz", 1, TL_DT_FLOAT, true },
	{ "c10::Float8_e5m2", 1, TL_DT_FLOAT, true },
	{ "c10::Float8_e5m2fnuz", 1, TL_DT_FLOAT, true },
	{ "c10::Float8_e8m0fnu", 1, TL_DT_FLOAT, true },
	{ "c10::Float4_e2m1fn_x2", 1, TL_DT_FLOAT, false },
	{ "c10::complex<float>", 8, TL_DT_COMPLEX, true },
	{ "c10::complex<double>", 16, TL_DT_COMPLEX, true },
	{ "c10::complex<c10::Half>", 4, TL_DT_COMPLEX, true },
};

const struct tl_dtype *tl_dtype_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < TL_ARRAY_SIZE(dtypes); i++)
		if (!strcmp(name, dtypes[i].name))
			return &dtypes[i];
	return NULL;
}
