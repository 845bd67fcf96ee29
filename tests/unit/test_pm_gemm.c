/* SPDX-License-Identifier: MIT */
/* The GEMM and convolution perf models on hand-built calls: the numbers and
 * parameters TraceLens's classes give, the transpose flags its
 * gemm_name_parser reads from kernel names, and -EINVAL with a one-line note
 * (never a crash) for args they cannot read. */
#include "pm_test.h"

int main(void)
{
	int t[2];

	plan(38);

	ok(pm_class_of("aten::mm") && !strcmp(pm_class_of("aten::mm")->sheet, "GEMM"), "aten::mm goes to GEMM");
	ok(pm_class_of("aten::convolution_backward") &&
	   !strcmp(pm_class_of("aten::convolution_backward")->sheet, "CONV_bwd"),
	   "aten::convolution_backward goes to CONV_bwd");

	/* gemm_name_parser */
	ok(pm_gemm_transpose("Cijk_Alik_Bljk_BBS_BH_MT64x16x64", t) == 1 && t[0] == 1 && t[1] == 0,
	   "Tensile Alik_Bljk: (True, False)");
	ok(pm_gemm_transpose("Custom_Cijk_Ailk_Bjlk_SB", t) == 1 && t[0] == 0 && t[1] == 1,
	   "Tensile Ailk_Bjlk with a prefix: (False, True)");
	ok(pm_gemm_transpose("Cijk_Axyz_Bxyz_S", t) == 1 && t[0] == -1 && t[1] == -1,
	   "Tensile with other layouts: (None, None)");
	ok(pm_gemm_transpose("nvjet_tst_128x64_64x4_1x2_h_bz_coopA_NT", t) == 1 && t[0] == 0 && t[1] == 1,
	   "nvjet ..._NT: (False, True)");
	ok(pm_gemm_transpose("nvjet_x_T", t) == -1, "nvjet with a one-letter tail cannot be read");
	ok(pm_gemm_transpose("sm90_xmma_gemm_bf16bf16", t) == 0 && pm_gemm_transpose("CIJK_A_B", t) == 0,
	   "other kernels say nothing");

	/* aten::mm: M, N, K from A (M, K) and B (K, N) */
	ok(runk("aten::mm", "{\"Input Dims\":[[8,4],[4,16]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"],"
			    "\"Input Strides\":[[4,1],[1,4]]}", "Cijk_Alik_Bljk_BBS") == 0, "aten::mm");
	ok(names_are("M,N,K,bias,stride_A,stride_B,dtype_A_B,B,transpose"), "aten::mm param names");
	ok(!strcmp(param("M"), "8") && !strcmp(param("N"), "16") && !strcmp(param("K"), "4") &&
	   !strcmp(param("bias"), "False") && !strcmp(param("stride_B"), "(1, 4)") &&
	   !strcmp(param("dtype_A_B"), "('c10::BFloat16', 'c10::BFloat16')") && !strcmp(param("B"), "1") &&
	   !strcmp(param("transpose"), "(True, False)"), "aten::mm params");
	ok(near(res.gflops, 2.0 * 8 * 16 * 4 / 1e9) && near(res.bytes, (32 + 64 + 128) * 2.0) &&
	   !strcmp(res.compute_spec, "matrix_bf16"), "aten::mm gflops, bytes, matrix_bf16");

	/* aten::addmm: C first, a bias of N */
	ok(run("aten::addmm", "{\"Input Dims\":[[16],[8,4],[4,16]],\"Input type\":[\"float\",\"float\",\"float\"]}") ==
		   0 && !strcmp(param("stride_A"), "") && !strcmp(param("bias"), "True") &&
	   near(res.gflops, (2.0 * 8 * 16 * 4 + 8 * 16) / 1e9) && near(res.bytes, (32 + 64 + 128 + 16) * 4.0) &&
	   !strcmp(res.compute_spec, "matrix_fp32"), "aten::addmm without strides: None, bias counted");

	/* aten::bmm: B first, every number times B */
	ok(run("aten::bmm", "{\"Input Dims\":[[3,8,4],[3,4,16]],\"Input type\":[\"c10::Half\",\"c10::Half\"],"
			    "\"Input Strides\":[[32,4,1],[64,16,1]]}") == 0 &&
	   names_are("B,M,N,K,bias,stride_A,stride_B,dtype_A_B") && near(res.gflops, 3 * 2.0 * 8 * 16 * 4 / 1e9) &&
	   near(res.bytes, 3 * (32 + 64 + 128) * 2.0) && !strcmp(res.compute_spec, "matrix_fp16"), "aten::bmm");
	refused("aten::bmm", "{\"Input Dims\":[[8,4],[4,16]],\"Input type\":[\"float\",\"float\"]}", "2-d inputs");

	/* aten::_scaled_mm: fp8 inputs write 2-byte outputs */
	ok(run("aten::_scaled_mm", "{\"Input Dims\":[[8,4],[4,16],[],[]],"
				   "\"Input type\":[\"c10::Float8_e4m3fn\",\"c10::Float8_e4m3fn\",\"float\",\"float\"],"
				   "\"Input Strides\":[[4,1],[1,4],[],[]]}") == 0 &&
	   near(res.bytes, 32 + 64 + 128 * 2.0) && !strcmp(res.compute_spec, "matrix_fp8"),
	   "aten::_scaled_mm fp8");

	/* an unknown dtype: bytes None, no spec */
	ok(run("aten::mm", "{\"Input Dims\":[[8,4],[4,16]],\"Input type\":[\"weird\",\"weird\"]}") == 0 &&
	   isnan(res.bytes) && !res.compute_spec[0], "an unknown dtype leaves bytes None");

	/* the aiter / vllm extensions */
	ok(run("aiter::gemm_a16w16", "{\"Input Dims\":[[32,64],[128,64],[],[]],"
				     "\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"\",\"Scalar\"]}") == 0 &&
	   names_are("B,M,N,K,bias,dtype_A_B") && near(res.bytes, (32 * 64 + 128 * 64 + 32 * 128) * 2.0),
	   "aiter::gemm_a16w16: w is (N, K)");
	ok(run("vllm::rocm_unquantized_gemm", "{\"Input Dims\":[[32,64],[128,64],[128]],"
					      "\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]}") ==
		   0 && names_are("M,N,K,bias,dtype_A_B,B") && !strcmp(param("bias"), "True"),
	   "vllm::rocm_unquantized_gemm with a bias");

	refused("aten::mm", "", "no args");
	refused("aten::mm", "{\"Input Dims\":[[8,4]],\"Input type\":[\"float\"]}", "one input");
	refused("aten::mm", "{\"Input Dims\":[[8,4],[4,16]],\"Input type\":[\"float\",\"float\"],\"Input Strides\":[[4,1]]}",
		"a missing stride");
	ok(runk("aten::mm", "{\"Input Dims\":[[8,4],[4,16]],\"Input type\":[\"float\",\"float\"]}", "nvjet_a_T") ==
		   -EINVAL && res.note[0], "a nvjet kernel whose flags cannot be read");

	/* convolution: out = (in + 2p - d(k-1) - 1) / s + 1 */
	ok(run("aten::convolution", "{\"Input Dims\":[[2,3,8,8],[4,3,3,3],[],[],[],[],[],[],[]],"
				    "\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"\",\"ScalarList\",\"ScalarList\","
				    "\"ScalarList\",\"Scalar\",\"ScalarList\",\"Scalar\"],"
				    "\"Input Strides\":[[192,64,8,1],[27,9,3,1],[],[],[],[],[],[],[]],"
				    "\"Concrete Inputs\":[\"\",\"\",\"\",\"[2]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0]\",\"1\"]}") == 0,
	   "aten::convolution");
	ok(names_are("convNd,input_shape,filter_shape,dtype_input_weight,input_stride,weight_stride,bias,stride,"
		     "padding,dilation,transposed_conv,output_padding,groups") &&
	   !strcmp(param("stride"), "(2, 2)") && !strcmp(param("output_padding"), "(0, 0)") &&
	   !strcmp(param("convNd"), "conv2d") && !strcmp(param("bias"), "False"), "conv params, one value broadcast");
	/* out (2, 4, 4, 4): 128 elements of 2*27 FLOPs */
	ok(near(res.gflops, 128 * 54 / 1e9) && near(res.bytes, (384 + 108 + 128) * 2.0) &&
	   !strcmp(res.compute_spec, "matrix_bf16"), "conv gflops and bytes");
	ok(run("aten::convolution_backward",
	       "{\"Input Dims\":[[2,4,4,4],[2,3,8,8],[4,3,3,3],[],[],[],[],[],[],[],[]],"
	       "\"Input type\":[\"float\",\"float\",\"float\"],"
	       "\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"[0, 0]\",\"1\",\"\"]}") == 0 &&
	   !strcmp(param("bias"), "[]") && !strcmp(param("input_stride"), "") &&
	   near(res.gflops, 2 * 128 * 54 / 1e9) && near(res.bytes, 2 * (128 + 108 + 384) * 4.0),
	   "conv backward: bias [], twice the forward FLOPs");
	refused("aten::convolution", "{\"Input Dims\":[[2,3,8,8],[4,3,3,3]],\"Input type\":[\"float\",\"c10::Half\"],"
				     "\"Concrete Inputs\":[\"\",\"\",\"\",\"[1]\",\"[0]\",\"[1]\",\"False\",\"[0]\",\"1\"]}",
		"mixed dtypes");
	refused("aten::convolution", "{\"Input Dims\":[[2,3,8,8],[4,3,3,3]],\"Input type\":[\"float\",\"float\"],"
				     "\"Concrete Inputs\":[\"\",\"\",\"\",\"[1]\"]}", "short Concrete Inputs");
	refused("aten::convolution", "{\"Input Dims\":[[2,3],[4,3]],\"Input type\":[\"float\",\"float\"],"
				     "\"Concrete Inputs\":[\"\",\"\",\"\",\"[1]\",\"[0]\",\"[1]\",\"False\",\"[0]\",\"1\"]}",
		"a 2-d input");
	/* the extension GEMMs */
	ok(run("aiter::gemm_a8w8_blockscale_ck", "{\"Input Dims\":[[32,7168],[4096,7168],[32,56],[32,56]],"
						 "\"Input type\":[\"c10::Float8_e4m3fnuz\",\"c10::Float8_e4m3fnuz\",\"float\",\"float\"]}") == 0 &&
	   names_are("B,M,N,K,bias,dtype_A_B,quant_scheme,quant_granularity,block_k,block_n,scale_dtype,output_shape,"
		     "output_dtype") &&
	   !strcmp(param("block_k"), "128") && !strcmp(param("block_n"), "128") &&
	   !strcmp(param("output_shape"), "(32, 4096)") && near(res.bytes, 32.0 * 7168 + 4096.0 * 7168 + 32.0 * 4096 * 2) &&
	   !strcmp(res.compute_spec, "matrix_fp8"), "gemm_a8w8_blockscale: block sizes from the scale shapes");
	ok(run("aiter::gemm_afp4wfp4_", "{\"Input Dims\":[[32,256],[128,256]],\"Input type\":[\"unsigned char\",\"unsigned char\"]}") == 0 &&
	   !strcmp(param("K"), "512") && near(res.bytes, (32.0 * 512 + 128.0 * 512) / 2 + 32.0 * 128 * 2) &&
	   !strcmp(res.compute_spec, "matrix_fp4"), "gemm_afp4wfp4: packed K, half a byte an element, fp4");
	ok(run("primus_turbo::hipblaslt_gemm_fp8", "{\"Input Dims\":[[64,32],[],[128,64]],"
						   "\"Input type\":[\"c10::Float8_e4m3fnuz\",\"float\",\"c10::Float8_e4m3fnuz\",\"float\"],"
						   "\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"15\",\"False\",\"True\",\"True\",\"\"]}") == 0 &&
	   !strcmp(param("M"), "128") && !strcmp(param("K"), "64") && !strcmp(param("N"), "64") &&
	   !strcmp(param("dtype_scaleA"), "float") && !strcmp(param("stride_A"), ""),
	   "hipblaslt_gemm_fp8: transC swaps A and B");

	ok(run("aiter::gemm_a4w4", "{\"Input Dims\":[[64,128],[96,128],[64,8],[96,8]],"
				   "\"Input type\":[\"c10::Float4_e2m1fn_x2\",\"c10::Float4_e2m1fn_x2\",\"c10::Float8_e8m0fnu\","
				   "\"c10::Float8_e8m0fnu\"]}") == 0 &&
	   !strcmp(param("K"), "256") && !strcmp(param("N"), "96") &&
	   near(res.bytes, 64.0 * 128 + 96.0 * 128 + 64.0 * 8 + 96.0 * 8 + 64.0 * 96 * 2) &&
	   !strcmp(res.compute_spec, "matrix_fp4"), "aiter::gemm_a4w4: packed fp4 with E8M0 scales");

	/* grouped GEMM */
	ok(run("primus_turbo::grouped_gemm_impl", "{\"Input Dims\":[[64,32],[4,128,32],[4]],"
						  "\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"long int\"]}") == 0 &&
	   !strcmp(pm_class_of("primus_turbo::grouped_gemm_impl")->sheet, "GroupedGEMM_fwd") &&
	   names_are("M,K,N,G,bpe_in,bpe_out") && !strcmp(param("N"), "128") &&
	   near(res.gflops, 2.0 * 64 * 32 * 128 / 1e9) && near(res.bytes, (64.0 * 32 + 4.0 * 32 * 128) * 2 + 64.0 * 128 * 2),
	   "grouped_gemm: W as [G, N, K]");
	ok(run("primus_turbo::grouped_gemm_variable_k", "{\"Input Dims\":[[[16,32],[48,24]],[[32,8],[24,8]]],"
							"\"Input type\":[\"float\",\"c10::BFloat16\"]}") == 0 &&
	   !strcmp(param("group_pairs"), "[((16, 32), (32, 8)), ((48, 24), (24, 8))]") &&
	   near(res.gflops, 2.0 * (16 * 32 * 8 + 48 * 24 * 8) / 1e9), "grouped_gemm_variable_k: group by group");
	refused("primus_turbo::grouped_gemm", "{\"Input Dims\":[[64,32],[4,7,9]],\"Input type\":[\"float\"]}",
		"W without K");

	/* ConvBias_: one stride and padding for both spatial dims, a bias */
	ok(run("ConvBias_", "{\"Input Dims\":[[2,3,8,8],[4,3,3,3],[4]],\"Input type\":[\"c10::Half\",\"c10::Half\",\"c10::Half\"],"
			    "\"Concrete Inputs\":[\"\",\"\",\"\",\"2\",\"1\"]}") == 0 &&
	   !strcmp(param("stride"), "(2, 2)") && !strcmp(param("bias"), "True") &&
	   near(res.gflops, (128 * 54 + 128) / 1e9) && near(res.bytes, (384 + 108 + 4 + 128) * 2.0),
	   "ConvBias_");
	return done_testing();
}
