/* SPDX-License-Identifier: MIT */
/* The kernel verdicts of a replay against the trace (perf-plugin/replay/kernel-verdict.c):
 * MATCH, FAMILY, LIBRARY, SUBSET, MISMATCH, on kernel names from the H100 and H200 runs
 * (../shared/gpu-runs/2026-11-28-h200/). */
#include <string.h>

#include "replay/kernel-verdict.c"
#include "tap.h"

#define ADD(V, T)                                                                               \
	"void at::native::vectorized_elementwise_kernel<" #V ", at::native::CUDAFunctor_add<" T \
	">, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<" T ">, std::array<char*, 3ul>)"
#define ADD_UNROLLED(T)                                                                   \
	"void at::native::unrolled_elementwise_kernel<at::native::CUDAFunctor_add<" T     \
	">, std::array<char*, 3ul>, 4, TrivialOffsetCalculator<2, unsigned int>, "        \
	"TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<2>, " \
	"at::native::memory::StoreWithCast<1> >(int, at::native::CUDAFunctor_add<" T ">)"
#define MTA(T)                                                                                           \
	"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "      \
	"namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<" T \
	", 1, 1, 0>, std::multiplies<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<1>)"
#define DIVK                                                                                                        \
	"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::BinaryFunctor<float, " \
	"float, float, at::native::binary_internal::DivFunctor<float> > >(at::TensorIteratorBase&)"
#define MULK                                                                                                        \
	"void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::BUnaryFunctor<" \
	"float, float, float, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&)"
#define CUBLAS                                                                                                         \
	"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel_" \
	"_5x_cublas"
#define NVJET "nvjet_sm90_tst_64x16_64x16_2x4_h_bz_bias_TNT"
#define CONV1 "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x64x64_cudnn"
#define CONV2 "cudnn_generated_fort_native_conv_fprop_kernel"

/* The verdict of a replay of @nr kernels against a trace of @nt. */
static const char *verdict(const char *const *t, size_t nt, const char *const *r, size_t nr)
{
	static char out[16];
	cJSON *e = cJSON_CreateObject(), *ks = cJSON_AddArrayToObject(e, "kernels");
	cJSON *rep = cJSON_CreateObject(), *rk = cJSON_AddArrayToObject(rep, "kernels");
	const char *v;
	size_t i;

	for (i = 0; i < nt; i++) {
		cJSON *k = cJSON_CreateObject();

		cJSON_AddStringToObject(k, "name", t[i]);
		cJSON_AddItemToArray(ks, k);
	}
	for (i = 0; i < nr; i++)
		cJSON_AddItemToArray(rk, cJSON_CreateString(r[i]));
	v = kernel_verdict(e, rep);
	snprintf(out, sizeof(out), "%s", v ? v : "(null)");
	cJSON_Delete(e);
	cJSON_Delete(rep);
	return out;
}

#define V(T, R) verdict(T, sizeof(T) / sizeof(*T), R, sizeof(R) / sizeof(*R))

int main(void)
{
	char a[1024], b[1024];

	{
		const char *t[] = { ADD(4, "float"), CUBLAS }, *r[] = { CUBLAS, ADD(4, "float") };
		ok(!strcmp(V(t, r), "MATCH"), "the same names in another order: MATCH");
	}
	{
		const char *t[] = { ADD(4, "c10::BFloat16") }, *r[] = { ADD(8, "c10::BFloat16") },
			   *u[] = { ADD_UNROLLED("c10::BFloat16") };
		ok(!strcmp(V(t, r), "FAMILY"), "vectorized <4> vs <8> (H100 vs H200): FAMILY");
		ok(!strcmp(V(t, u), "FAMILY"), "vectorized vs unrolled loop of one functor: FAMILY");
	}
	{
		const char *t[] = { ADD(4, "float") }, *r[] = { ADD(4, "c10::BFloat16") };
		ok(!strcmp(V(t, r), "MISMATCH"), "another element type is another kernel: MISMATCH");
	}
	{
		const char *t[] = { MTA("float") }, *r[] = { MTA("c10::BFloat16") };
		ok(!strcmp(V(t, r), "MISMATCH"), "foreach in bf16 where the trace ran fp32 (issue 26.1): MISMATCH");
	}
	{
		const char *t[] = { MULK }, *r[] = { DIVK };
		ok(!strcmp(V(t, r), "MISMATCH"), "BUnaryFunctor<Mul> vs BinaryFunctor<Div> (issue 26.2): MISMATCH");
	}
	{
		const char *t[] = { CUBLAS, ADD(4, "float") }, *r[] = { NVJET, ADD(8, "float") };
		ok(!strcmp(V(t, r), "LIBRARY"), "cuBLAS's xmma GEMM vs nvjet, and an add's family: LIBRARY");
	}
	{
		const char *t[] = { CONV1 }, *r[] = { CONV2 }, *g[] = { CUBLAS };
		ok(!strcmp(V(t, r), "LIBRARY"), "two cuDNN convolutions: LIBRARY");
		ok(!strcmp(V(t, g), "MISMATCH"), "a convolution vs a GEMM: MISMATCH");
	}
	{
		const char *t[] = { "ampere_sgemm_128x64_nn" }, *r[] = { "ampere_sgemm_64x64_nn" };
		ok(!strcmp(V(t, r), "FAMILY"), "a library kernel's other tile size: FAMILY");
	}
	{
		const char *t[] = { ADD(4, "float"), CUBLAS }, *r[] = { CUBLAS }, *x[] = { "other" };
		ok(!strcmp(V(t, r), "SUBSET"), "fewer of the trace's kernels: SUBSET");
		ok(!strcmp(V(t, x), "MISMATCH"), "a kernel the trace lacks: MISMATCH");
	}
	{
		const char *t[] = { CUBLAS };
		cJSON *e = cJSON_CreateObject(), *rep = cJSON_CreateObject();

		cJSON_AddArrayToObject(rep, "kernels");
		ok(kernel_verdict(e, rep) == NULL && !strcmp(V(t, t), "MATCH"), "no kernels on a side: no verdict");
		cJSON_Delete(e);
		cJSON_Delete(rep);
	}
	kernel_family(ADD(8, "c10::BFloat16"), a, sizeof(a));
	kernel_family(MULK, b, sizeof(b));
	ok(!strcmp(a, "elementwise_kernel<BFloat16,CUDAFunctor_add>") &&
		   !strcmp(b, "elementwise_kernel<BUnaryFunctor,MulFunctor,float>"),
	   "families: %s, %s", a, b);
	kernel_family(MTA("float"), a, 8);
	ok(strlen(a) == 7, "a family is cut to the room given (%s)", a);
	ok(!strcmp(kernel_library(NVJET), "gemm") && !strcmp(kernel_library(CONV1), "convolution") &&
		   !strcmp(kernel_library("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), "collective") &&
		   !strcmp(kernel_library("flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>>"), "attention") &&
		   !kernel_library(ADD(4, "float")),
	   "library kinds");
	return done_testing();
}
