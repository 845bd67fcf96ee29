/* SPDX-License-Identifier: MIT */
/* The transpose flags of a GEMM kernel read from its name, as TraceLens's
 * kernel_name_parser.gemm_name_parser reads them: hipBLASLt/Tensile names
 * (Cijk_Alik_Bljk_...) on ROCm, nvjet names on CUDA. Other kernels (cutlass,
 * sm90_xmma, ...) say nothing, which is why the H100 sheets of older traces
 * have no transpose column and the MI300 ones do. */
#include <string.h>

#include "perfmodel/perfmodel_internal.h"

/* is_rocm_gemm: "C" + 3 lowercase + "_A" + 3 lowercase + "_B" + 3 lowercase
 * anywhere in the name */
static int is_tensile(const char *k)
{
	size_t n = strlen(k), i, j;

	for (i = 0; i + 14 <= n; i++) {
		static const char pat[] = "Cxxx_Axxx_Bxxx";
		int ok = 1;

		for (j = 0; j < 14 && ok; j++)
			ok = pat[j] == 'x' ? k[i + j] >= 'a' && k[i + j] <= 'z' : k[i + j] == pat[j];
		if (ok)
			return 1;
	}
	return 0;
}

int pm_gemm_transpose(const char *kernel, int t[2])
{
	const char *last;

	t[0] = t[1] = -1;
	if (!kernel)
		return 0;
	if (is_tensile(kernel)) {
		/* parse_rocm_gemm: an absent layout leaves the flag None */
		if (strstr(kernel, "_Ailk_"))
			t[0] = 0;
		else if (strstr(kernel, "_Alik_"))
			t[0] = 1;
		if (strstr(kernel, "_Bljk_"))
			t[1] = 0;
		else if (strstr(kernel, "_Bjlk_"))
			t[1] = 1;
		return 1;
	}
	if (strncmp(kernel, "nvjet", 5))
		return 0;
	/* parse_cuda_gemm: the two letters after the last '_' ("..._TN");
	 * a shorter tail is the IndexError that drops TraceLens's row */
	last = strrchr(kernel, '_');
	last = last ? last + 1 : kernel;
	if (strlen(last) < 2)
		return -1;
	t[0] = last[0] == 'T';
	t[1] = last[1] == 'T';
	return 1;
}
