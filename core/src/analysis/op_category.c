/* SPDX-License-Identifier: MIT */
/* TraceLens's op categories (PerfModel/torch_op_mapping.py categorize_torch_op):
 * an exact-name registry, then name patterns (^triton, ^record_param_comms),
 * then the first kernel's name when it is an at::native elementwise, reduce
 * or multi_tensor_apply kernel, else "other". The registry below holds the
 * core mapping plus the inference extensions seen in TraceLens's reports. */
#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

struct cat_entry {
	const char *name;
	const char *cat;
};

/* Sorted by name (strcmp) for bsearch; checked by the unit tests. */
static const struct cat_entry registry[] = {
	{ "ConvBiasReLU_", "CONV_fwd" },
	{ "ConvBiasReLU_Backward", "CONV_bwd" },
	{ "ConvBias_", "CONV_fwd" },
	{ "ConvBias_Backward", "CONV_bwd" },
	{ "CrossEntropyFunction", "CrossEntropy_fwd" },
	{ "CrossEntropyFunctionBackward", "CrossEntropy_bwd" },
	{ "DaoAILab::_causal_conv1d_bwd_cpp", "SSM_bwd" },
	{ "DaoAILab::_causal_conv1d_fwd_cpp", "SSM_fwd" },
	{ "EvoformerAttention", "SDPA_fwd" },
	{ "FlashAttnFunc", "SDPA_fwd" },
	{ "FlashAttnFuncBackward", "SDPA_bwd" },
	{ "FusedAttnFuncBackward", "SDPA_bwd" },
	{ "FusedRoPEFunc", "RoPE_fwd" },
	{ "FusedRoPEFuncBackward", "RoPE_bwd" },
	{ "LigerSiLUMulFunction", "elementwise" },
	{ "MambaSplitConv1dScanCombinedFn", "SSM_fwd" },
	{ "MambaSplitConv1dScanCombinedFnBackward", "SSM_bwd" },
	{ "MoECombine", "MoE_comm_fwd" },
	{ "MoECombineBackward", "MoE_comm_bwd" },
	{ "MoEDispatch", "MoE_comm_fwd" },
	{ "MoEDispatchBackward", "MoE_comm_bwd" },
	{ "TokenPermuteMaskMap", "MoE_comm_fwd" },
	{ "TokenPermuteMaskMapBackward", "MoE_comm_bwd" },
	{ "_C_cache_ops::reshape_and_cache_flash", "InferenceAttention" },
	{ "_LayerNormLinearBackward_wgrad_mm", "GEMM" },
	{ "_LayerNormLinearBackward_xgrad_mm", "GEMM" },
	{ "_LayerNormLinear_yfwd_mm", "GEMM" },
	{ "_LinearBackward_wgrad_mm", "GEMM" },
	{ "_LinearBackward_xgrad_mm", "GEMM" },
	{ "_Linear_yfwd_mm", "GEMM" },
	{ "_OperationFuserAutogradFunction", "MoE_comm_fwd" },
	{ "_OperationFuserAutogradFunctionBackward", "MoE_comm_bwd" },
	{ "_moe_C::moe_align_block_size", "MoE_aux" },
	{ "aiter::_flash_attn_backward", "SDPA_bwd" },
	{ "aiter::_flash_attn_forward", "SDPA_fwd" },
	{ "aiter::_gemm_a4w4_asm", "GEMM" },
	{ "aiter::_groupnorm_run", "NORM_fwd" },
	{ "aiter::add_rmsnorm", "RMSNorm" },
	{ "aiter::fmha_v3_fwd", "SDPA_fwd" },
	{ "aiter::gelu_and_mul", "elementwise" },
	{ "aiter::gelu_tanh_and_mul", "elementwise" },
	{ "aiter::gemm_a4w4", "GEMM" },
	{ "aiter::grouped_topk", "MoE_aux" },
	{ "aiter::mha_batch_prefill", "InferenceAttention" },
	{ "aiter::mha_bwd", "SDPA_bwd" },
	{ "aiter::mha_fwd", "SDPA_fwd" },
	{ "aiter::mha_varlen_fwd", "InferenceAttention" },
	{ "aiter::moe_align_block_size", "MoE_aux" },
	{ "aiter::moe_fused_gate", "MoE_aux" },
	{ "aiter::moe_sorting_opus_fwd", "MoE_aux" },
	{ "aiter::moe_sum", "MoE_aux" },
	{ "aiter::rms_norm", "RMSNorm" },
	{ "aiter::rmsnorm", "RMSNorm" },
	{ "aiter::rmsnorm2d_fwd_with_add_ck", "RMSNorm" },
	{ "aiter::rmsnorm2d_fwd_with_dynamicquant_ck", "RMSNorm" },
	{ "aiter::topk_sigmoid", "MoE_aux" },
	{ "aiter::topk_softmax", "MoE_aux" },
	{ "aiter::topk_softmax_asm", "MoE_aux" },
	{ "aiter::wrapper_fmha_v3_bwd", "SDPA_bwd" },
	{ "aiter::wrapper_fmha_v3_fwd", "SDPA_fwd" },
	{ "aten::_efficient_attention_backward", "SDPA_bwd" },
	{ "aten::_efficient_attention_forward", "SDPA_fwd" },
	{ "aten::_fused_rms_norm", "NORM_fwd" },
	{ "aten::_fused_rms_norm_backward", "NORM_bwd" },
	{ "aten::_scaled_dot_product_cudnn_attention", "SDPA_fwd" },
	{ "aten::_scaled_dot_product_cudnn_attention_backward", "SDPA_bwd" },
	{ "aten::_scaled_dot_product_efficient_attention", "SDPA_fwd" },
	{ "aten::_scaled_dot_product_efficient_attention_backward", "SDPA_bwd" },
	{ "aten::_scaled_dot_product_flash_attention", "SDPA_fwd" },
	{ "aten::_scaled_dot_product_flash_attention_backward", "SDPA_bwd" },
	{ "aten::_scaled_mm", "GEMM" },
	{ "aten::add", "elementwise" },
	{ "aten::add_", "elementwise" },
	{ "aten::addmm", "GEMM" },
	{ "aten::amax", "reduce" },
	{ "aten::amin", "reduce" },
	{ "aten::baddbmm", "GEMM" },
	{ "aten::batch_norm", "NORM_fwd" },
	{ "aten::batch_norm_backward", "NORM_bwd" },
	{ "aten::bmm", "GEMM" },
	{ "aten::clamp_max", "elementwise" },
	{ "aten::clamp_max_", "elementwise" },
	{ "aten::clamp_min", "elementwise" },
	{ "aten::clamp_min_", "elementwise" },
	{ "aten::convolution", "CONV_fwd" },
	{ "aten::convolution_backward", "CONV_bwd" },
	{ "aten::copy", "elementwise" },
	{ "aten::copy_", "elementwise" },
	{ "aten::cudnn_batch_norm", "NORM_fwd" },
	{ "aten::cudnn_batch_norm_backward", "NORM_bwd" },
	{ "aten::cudnn_convolution", "CONV_fwd" },
	{ "aten::cudnn_group_norm", "NORM_fwd" },
	{ "aten::cudnn_group_norm_backward", "NORM_bwd" },
	{ "aten::cudnn_instance_norm", "NORM_fwd" },
	{ "aten::cudnn_instance_norm_backward", "NORM_bwd" },
	{ "aten::cudnn_layer_norm", "NORM_fwd" },
	{ "aten::cudnn_layer_norm_backward", "NORM_bwd" },
	{ "aten::cudnn_rms_norm_backward", "NORM_bwd" },
	{ "aten::cumprod", "reduce" },
	{ "aten::cumsum", "reduce" },
	{ "aten::div", "elementwise" },
	{ "aten::div_", "elementwise" },
	{ "aten::group_norm", "NORM_fwd" },
	{ "aten::group_norm_backward", "NORM_bwd" },
	{ "aten::instance_norm", "NORM_fwd" },
	{ "aten::instance_norm_backward", "NORM_bwd" },
	{ "aten::layer_norm", "NORM_fwd" },
	{ "aten::layer_norm_backward", "NORM_bwd" },
	{ "aten::linalg_norm", "reduce" },
	{ "aten::logsumexp", "reduce" },
	{ "aten::max", "reduce" },
	{ "aten::mean", "reduce" },
	{ "aten::min", "reduce" },
	{ "aten::miopen_batch_norm", "NORM_fwd" },
	{ "aten::miopen_batch_norm_backward", "NORM_bwd" },
	{ "aten::miopen_convolution", "CONV_fwd" },
	{ "aten::miopen_group_norm", "NORM_fwd" },
	{ "aten::miopen_group_norm_backward", "NORM_bwd" },
	{ "aten::miopen_instance_norm", "NORM_fwd" },
	{ "aten::miopen_instance_norm_backward", "NORM_bwd" },
	{ "aten::miopen_layer_norm", "NORM_fwd" },
	{ "aten::miopen_layer_norm_backward", "NORM_bwd" },
	{ "aten::miopen_rms_norm_backward", "NORM_bwd" },
	{ "aten::mm", "GEMM" },
	{ "aten::mul", "elementwise" },
	{ "aten::mul_", "elementwise" },
	{ "aten::native_batch_norm", "NORM_fwd" },
	{ "aten::native_batch_norm_backward", "NORM_bwd" },
	{ "aten::native_group_norm", "NORM_fwd" },
	{ "aten::native_group_norm_backward", "NORM_bwd" },
	{ "aten::native_instance_norm", "NORM_fwd" },
	{ "aten::native_instance_norm_backward", "NORM_bwd" },
	{ "aten::native_layer_norm", "NORM_fwd" },
	{ "aten::native_layer_norm_backward", "NORM_bwd" },
	{ "aten::native_rms_norm_backward", "NORM_bwd" },
	{ "aten::neg", "elementwise" },
	{ "aten::norm", "reduce" },
	{ "aten::pow", "elementwise" },
	{ "aten::replication_pad1d", "elementwise" },
	{ "aten::replication_pad2d", "elementwise" },
	{ "aten::replication_pad3d", "elementwise" },
	{ "aten::rms_norm_backward", "NORM_bwd" },
	{ "aten::rsqrt", "elementwise" },
	{ "aten::sigmoid", "elementwise" },
	{ "aten::sigmoid_backward", "elementwise" },
	{ "aten::silu", "elementwise" },
	{ "aten::std", "reduce" },
	{ "aten::sum", "reduce" },
	{ "aten::threshold_backward", "elementwise" },
	{ "aten::upsample_nearest1d", "elementwise" },
	{ "aten::upsample_nearest2d", "elementwise" },
	{ "aten::upsample_nearest3d", "elementwise" },
	{ "aten::var", "reduce" },
	{ "bitsandbytes::int8_linear_matmul", "GEMM" },
	{ "flash_attn::_flash_attn_backward", "SDPA_bwd" },
	{ "flash_attn::_flash_attn_forward", "SDPA_fwd" },
	{ "flash_attn::_flash_attn_varlen_backward", "SDPA_bwd" },
	{ "flash_attn::_flash_attn_varlen_forward", "SDPA_fwd" },
	{ "flash_attn_3::fwd", "SDPA_fwd" },
	{ "primus::fused_ln_modulate", "NORM_fwd" },
	{ "primus::fused_ln_modulate_backward", "NORM_bwd" },
	{ "primus_turbo::grouped_gemm", "GroupedGEMM_fwd" },
	{ "primus_turbo::grouped_gemm_impl", "GroupedGEMM_fwd" },
	{ "primus_turbo::grouped_gemm_variable_k", "GroupedGEMM_bwd" },
	{ "primus_turbo::grouped_gemm_variable_k_impl", "GroupedGEMM_bwd" },
	{ "primus_turbo::hipblaslt_gemm_fp4", "GEMM" },
	{ "primus_turbo::hipblaslt_gemm_fp8", "GEMM" },
	{ "primus_turbo_cpp_extension::ck_grouped_gemm", "GroupedGEMM_fwd" },
	{ "primus_turbo_cpp_extension::ck_grouped_gemm_variable_k", "GroupedGEMM_bwd" },
	{ "primus_turbo_cpp_extension::grouped_gemm", "GroupedGEMM_fwd" },
	{ "primus_turbo_cpp_extension::grouped_gemm_variable_k", "GroupedGEMM_bwd" },
	{ "primus_turbo_cpp_extension::hipblaslt_gemm_fp4", "GEMM" },
	{ "primus_turbo_cpp_extension::hipblaslt_gemm_fp8", "GEMM" },
	{ "sgl_kernel::gelu_and_mul", "elementwise" },
	{ "sgl_kernel::gelu_tanh_and_mul", "elementwise" },
	{ "sgl_kernel::rotary_embedding", "RoPE_fwd" },
	{ "sgl_kernel::silu_and_mul", "elementwise" },
	{ "sglang::store_cache", "InferenceAttention" },
	{ "sglang_profiler::attention_paged_attention_ragged", "InferenceAttention" },
	{ "tex_ts::te_gemm_ts", "GEMM" },
	{ "trtllm::cublas_scaled_mm", "GEMM" },
	{ "vllm::gemm_with_dynamic_quant", "GEMM" },
	{ "vllm::unified_attention_with_output", "InferenceAttention" },
};

static int cmp_entry(const void *key, const void *elem)
{
	return strcmp(key, ((const struct cat_entry *)elem)->name);
}

/* sglang's profiler names each call site "sglang_profiler::<fn>_<counter>";
 * TraceLens reports them without the counter so that calls group together. */
const char *tl_op_norm_name(const char *name, char *buf, size_t n)
{
	size_t len = strlen(name), k = len;

	if (strncmp(name, "sglang_profiler::", 17))
		return name;
	while (k > 17 && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	if (k == len || name[k - 1] != '_' || k - 1 >= n)
		return name;
	memcpy(buf, name, k - 1);
	buf[k - 1] = 0;
	return buf;
}

const char *tl_op_view_name(const struct tl_trace *tr, const char *name, char *buf, size_t n)
{
	return tr->inference_view ? tl_op_norm_name(name, buf, n) : name;
}

const char *tl_op_category_by_name(const char *raw_name, const char *first_kernel)
{
	char buf[512];
	const char *name = tl_op_norm_name(raw_name, buf, sizeof(buf));
	const struct cat_entry *e = bsearch(name, registry, TL_ARRAY_SIZE(registry),
					    sizeof(registry[0]), cmp_entry);

	if (e)
		return e->cat;
	if (!strncmp(name, "triton", 6))
		return "triton";
	if (!strncmp(name, "record_param_comms", 18))
		return "record_param_comms";
	if (first_kernel && !strncmp(first_kernel, "void at::native", 15)) {
		if (strstr(first_kernel, "elementwise"))
			return "elementwise";
		if (strstr(first_kernel, "reduce"))
			return "reduce";
		if (strstr(first_kernel, "multi_tensor_apply"))
			return "multi_tensor_apply";
	}
	return "other";
}

bool tl_op_category_registry_sorted(void)
{
	size_t i;

	for (i = 1; i < TL_ARRAY_SIZE(registry); i++)
		if (strcmp(registry[i - 1].name, registry[i].name) >= 0)
			return false;
	return true;
}

const char *tl_op_category(const struct tl_trace *tr, uint64_t uid, int64_t first_kernel)
{
	const char *k = NULL;

	if (uid >= tr->nev)
		return "other";
	if (first_kernel >= 0 && (uint64_t)first_kernel < tr->nev)
		k = tl_strtab_get(&tr->strs, tr->ev[first_kernel].name);
	return tl_op_category_by_name(tl_strtab_get(&tr->strs, tr->ev[uid].name), k);
}
