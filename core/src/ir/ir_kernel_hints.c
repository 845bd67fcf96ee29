/* SPDX-License-Identifier: MIT */
/* What an op's kernels say about its arguments (ir_internal.h, "ir_kernel_hints.c").
 *
 * The profiler records a TensorList's element shapes but not their dtype, and a
 * Python number passed where the schema has a Tensor only as a 0-d tensor of
 * the number's type. The kernels the op launched name both in their template
 * arguments: ATen's multi-tensor kernels take their functor's element type
 * first (`BinaryOpScalarFunctor<float, 1, 1, 0>`), and TensorIterator runs a
 * binary op whose other operand is a CPU scalar with AUnaryFunctor (the scalar
 * is the first operand) or BUnaryFunctor (the second). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir_internal.h"
#include "trace/trace_internal.h"

/* C++ spellings of element types in kernel names, and the profiler's name of
 * each (ir_dtype.c's table). */
static const struct {
	const char *cxx, *dtype;
} cxx_types[] = {
	{ "float", "float" },
	{ "double", "double" },
	{ "c10::BFloat16", "c10::BFloat16" },
	{ "c10::Half", "c10::Half" },
	{ "at::BFloat16", "c10::BFloat16" },
	{ "at::Half", "c10::Half" },
	{ "c10::complex<float>", "c10::complex<float>" },
	{ "c10::complex<double>", "c10::complex<double>" },
	{ "c10::complex<c10::Half>", "c10::complex<c10::Half>" },
	{ "c10::Float8_e4m3fn", "c10::Float8_e4m3fn" },
	{ "c10::Float8_e5m2", "c10::Float8_e5m2" },
	{ "long", "long int" },
	{ "int", "int" },
	{ "short", "short int" },
	{ "signed char", "signed char" },
	{ "unsigned char", "unsigned char" },
	{ "bool", "bool" },
};

/* The profiler's dtype of the C++ type at @s (ending at ',' or '>'), NULL if
 * it is none of the element types. */
static const char *dtype_at(const char *s)
{
	size_t i;

	while (*s == ' ')
		s++;
	for (i = 0; i < TL_ARRAY_SIZE(cxx_types); i++) {
		size_t n = strlen(cxx_types[i].cxx);
		const char *e = s + n;

		while (*e == ' ')
			e++;
		if (!strncmp(s, cxx_types[i].cxx, n) && (*e == ',' || *e == '>'))
			return cxx_types[i].dtype;
	}
	return NULL;
}

/* The element type of a multi-tensor kernel's functor: the first template
 * argument of its first "...Functor<" after multi_tensor_apply_kernel<. */
static const char *multi_tensor_dtype(const char *name, const char **functor)
{
	const char *p = strstr(name, "multi_tensor_apply_kernel<"), *f;

	if (!p)
		return NULL;
	for (f = strstr(p, "Functor<"); f; f = strstr(f + 1, "Functor<")) {
		const char *d = dtype_at(f + strlen("Functor<"));

		if (d) {
			/* back to the functor's name, for the note */
			while (f > p && (f[-1] == '_' || (f[-1] >= 'a' && f[-1] <= 'z') ||
					 (f[-1] >= 'A' && f[-1] <= 'Z') || (f[-1] >= '0' && f[-1] <= '9')))
				f--;
			*functor = f;
			return d;
		}
	}
	return NULL;
}

int tl_ir_kernel_hints(struct tl_trace *tr, uint64_t uid, struct tl_kernel_hints *h)
{
	uint64_t *g = NULL;
	int64_t n, i;
	bool disagree = false;

	memset(h, 0, sizeof(*h));
	n = tl_event_gpu_events(tr, uid, &g);
	if (n < 0)
		return (int)n;
	for (i = 0; i < n; i++) {
		const struct tl_ev *e = &tr->ev[g[i]];
		const char *name, *d, *functor = NULL;

		if (e->kind != TL_KIND_KERNEL || tl_event_launcher(tr, g[i]) != (int64_t)uid)
			continue;
		name = tl_ev_name(tr, e);
		if (strstr(name, "AUnaryFunctor<"))
			h->cpu_scalar_a = true;
		if (strstr(name, "BUnaryFunctor<"))
			h->cpu_scalar_b = true;
		d = multi_tensor_dtype(name, &functor);
		if (!d)
			continue;
		if (!h->list_dtype[0]) {
			size_t k = strcspn(functor, ">");

			snprintf(h->list_dtype, sizeof(h->list_dtype), "%s", d);
			snprintf(h->list_from, sizeof(h->list_from), "%.*s%s", (int)(k < 80 ? k : 80), functor,
				 functor[k] == '>' && k < 80 ? ">" : "...");
		} else if (strcmp(h->list_dtype, d)) {
			disagree = true;
		}
	}
	free(g);
	/* kernels of several element types (a list of mixed dtypes split by
	 * ATen): no one dtype for the list */
	if (disagree)
		h->list_dtype[0] = h->list_from[0] = 0;
	return 0;
}
