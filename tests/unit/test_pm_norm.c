/* SPDX-License-Identifier: MIT */
/* The normalization, RMSNorm, RoPE, MoE and other extension perf models
 * (pm_norm.c, pm_rope.c, pm_misc.c, pm_collective.c, pm_moe.c) on calls
 * built by hand: the values TraceLens's classes give for the same args
 * (checked against its Python), and bad args refused with -EINVAL and a
 * one-line note, never a crash. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "perfmodel/perfmodel_internal.h"
#include "tap.h"

static int model(const char *name, const char *args_json, const char *kernel, struct pm_out *out)
{
	const char *kernels[1] = { kernel };
	struct pm_call c = { .name = name, .kernels = kernels, .nkernels = kernel ? 1 : 0 };
	const struct pm_class *cls = pm_class_of(name);
	cJSON *args = args_json ? cJSON_Parse(args_json) : NULL;
	int err;

	pm_out_init(out);
	if (!cls) {
		cJSON_Delete(args);
		return -ENOENT;
	}
	c.args = args;
	err = cls->model(&c, out);
	cJSON_Delete(args);
	return err;
}

static int close_to(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

/* The text of parameter @name, "" when None, NULL when absent. */
static const char *param(const struct pm_out *o, const char *name, char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < o->nparams; i++)
		if (!strcmp(o->param_names[i], name))
			return tl_cell_text(&o->params[i], buf, n);
	return NULL;
}

/* pm_tuple_repr of a JSON text. */
static int tuple(const char *json, char *buf, size_t n)
{
	cJSON *a = cJSON_Parse(json);
	int err = pm_tuple_repr(a, buf, n);

	cJSON_Delete(a);
	return err;
}

static void check(const char *name, const char *args, const char *kernel, double gflops, double bytes,
		  const char *spec, const char *pname, const char *pval)
{
	struct pm_out o;
	char buf[256];
	const char *v;
	int err = model(name, args, kernel, &o);

	ok(err == 0, "%s models (%s)", name, o.note);
	ok(close_to(o.gflops, gflops), "%s: GFLOPS %.17g, TraceLens %.17g", name, o.gflops, gflops);
	ok(isnan(bytes) ? isnan(o.bytes) : close_to(o.bytes, bytes), "%s: bytes %.17g, TraceLens %.17g", name,
	   o.bytes, bytes);
	ok(!strcmp(o.compute_spec, spec), "%s: Compute Spec '%s'", name, o.compute_spec);
	v = param(&o, pname, buf, sizeof(buf));
	ok(v && !strcmp(v, pval), "%s: %s = '%s' ('%s')", name, pname, v ? v : "(absent)", pval);
}

static void refuse(const char *name, const char *args, const char *kernel, const char *why)
{
	struct pm_out o;
	int err = model(name, args, kernel, &o);

	ok(err == -EINVAL && o.note[0] && !strchr(o.note, '\n'), "%s refuses %s: %s", name, why, o.note);
}

#define BF "\"c10::BFloat16\""

int main(void)
{
	const struct pm_class *tabs[] = { pm_norm_classes, pm_rope_classes, pm_misc_classes, pm_coll_classes,
					  pm_moe_classes };
	char buf[64];
	double v[4];
	struct pm_out o;
	size_t t;

	/* every table is linked and every class has a model */
	for (t = 0; t < TL_ARRAY_SIZE(tabs); t++) {
		const struct pm_class *c;
		int good = tabs[t] != NULL;

		for (c = tabs[t]; good && c->name; c++)
			good = c->sheet && c->category && c->ops && c->ops[0] && c->model;
		ok(good, "family table %zu is complete", t);
	}
	ok(pm_class_of("aten::native_layer_norm") && !strcmp(pm_class_of("aten::native_layer_norm")->name, "LayerNorm"),
	   "aten::native_layer_norm is LayerNorm");
	ok(!strcmp(pm_sheet_inference(pm_class_of("aten::batch_norm")), "Normalization_fwd") &&
	   !strcmp(pm_class_of("aten::batch_norm")->sheet, "Normalization"),
	   "Normalization in the training report, Normalization_fwd in the inference one");
	ok(!strcmp(pm_sheet_inference(pm_class_of("aiter::rms_norm")), "RMSNorm_fwd"), "RMSNorm_fwd in both");

	/* helpers */
	ok(!tuple("[5]", buf, sizeof(buf)) && !strcmp(buf, "(5,)"), "(5,)");
	ok(!tuple("[]", buf, sizeof(buf)) && !strcmp(buf, "()"), "()");
	ok(tuple("[1.5]", buf, sizeof(buf)) == -EINVAL, "a tuple of integers only");
	ok(pm_parse_list("[True, False, 3]", v, 4) == 3 && v[0] == 1 && v[1] == 0 && v[2] == 3, "[True, False, 3]");
	ok(pm_parse_list("[]", v, 4) == 0, "[]");
	ok(pm_parse_list("[1,", v, 4) == -EINVAL && pm_parse_list("", v, 4) == -EINVAL &&
	   pm_parse_list(NULL, v, 4) == -EINVAL && pm_parse_list("[1, 2, 3, 4, 5]", v, 4) == -EINVAL,
	   "bad lists refused");
	ok(pm_dtype_bpe("c10::bfloat16") == 2 && pm_dtype_bpe("long int") == 8 && pm_dtype_bpe("bool") == 0,
	   "bytes per element as name2bpe");
	ok(!strcmp(pm_dtype_precision("unsigned char"), "fp8") && !pm_dtype_precision("c10::Float8_e5m2"),
	   "precision as torch_dtype_map");

	/* golden rows: bert's layer norm, resnet's batch norm backward */
	check("aten::layer_norm",
	      "{\"Input Dims\":[[1,141,512],[],[512],[512],[],[]],\"Input type\":[" BF ",\"ScalarList\"," BF "," BF
	      ",\"Scalar\",\"Scalar\"],\"Input Strides\":[[72192,512,1],[],[1],[1],[],[]],"
	      "\"Concrete Inputs\":[\"\",\"[512]\",\"\",\"\",\"1e-12\",\"True\"]}",
	      NULL, 0.000364032, 294912, "vector_bf16", "stride_output", "");
	model("aten::layer_norm",
	      "{\"Input Dims\":[[1,141,512],[],[512],[512],[],[]],\"Input type\":[" BF ",\"ScalarList\"," BF "," BF
	      ",\"Scalar\",\"Scalar\"],\"Input Strides\":[[72192,512,1],[],[1],[1],[],[]],"
	      "\"Concrete Inputs\":[\"\",\"[512]\",\"\",\"\",\"1e-12\",\"True\"]}", NULL, &o);
	ok(o.nparams == 8 && !strcmp(param(&o, "dtype_in_out", buf, sizeof(buf)), "('c10::BFloat16', None)") &&
	   !strcmp(param(&o, "op_shape", buf, sizeof(buf)), "(1, 141, 512)"),
	   "layer norm: eight params, dtype_in_out and op_shape as Python writes them");
	check("aten::native_batch_norm_backward",
	      "{\"Input Dims\":[[10,64,112,112],[10,64,112,112],[64],[64],[64],[64],[64],[],[],[]],"
	      "\"Input type\":[" BF "," BF "," BF ",\"float\",\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\","
	      "\"ScalarList\"],\"Input Strides\":[[802816,12544,112,1],[802816,12544,112,1],[1],[1],[1],[1],[1],[],[],[]],"
	      "\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"True\",\"1e-05\",\"[True, True, True]\"]}",
	      NULL, 0.07225344, 45.93798828125 * 1048576, "vector_bf16", "output_mask", "[True]");

	/* the rest against TraceLens's classes on the same args */
	check("aten::cudnn_batch_norm_backward",
	      "{\"Input Dims\":[[8,16,4,4],[8,16,4,4],[16],[16],[16],[16],[16],[],[]],\"Input type\":[\"c10::Half\","
	      "\"c10::Half\",\"c10::Half\",\"c10::Half\",\"c10::Half\",\"c10::Half\",\"c10::Half\",\"Scalar\",\"Scalar\"],"
	      "\"Input Strides\":[[256,16,4,1],[256,16,4,1],[1],[1],[1],[1],[1],[],[]],"
	      "\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\"]}",
	      NULL, 8.24e-06, 8224, "vector_fp16", "is_training", "False");
	check("aten::native_layer_norm_backward",
	      "{\"Input Dims\":[[2,7,64],[2,7,64],[],[2,7,1],[2,7,1],[64],[64],[]],\"Input type\":[" BF "," BF
	      ",\"ScalarList\",\"float\",\"float\"," BF "," BF ",\"ScalarList\"],\"Input Strides\":[[448,64,1],"
	      "[448,64,1],[],[7,1,1],[7,1,1],[1],[1],[]],\"Concrete Inputs\":[\"\",\"\",\"[64]\",\"\",\"\",\"\",\"\","
	      "\"[True, True, False]\"]}",
	      NULL, 8.064e-06, 5760, "vector_bf16", "has_bias", "False");
	check("aten::native_group_norm_backward",
	      "{\"Input Dims\":[[4,32,8,8],[4,32,8,8],[4,8],[4,8],[32],[],[],[],[],[]],\"Input type\":[" BF "," BF
	      ",\"float\",\"float\"," BF ",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"ScalarList\"],"
	      "\"Input Strides\":[[2048,64,8,1],[2048,64,8,1],[8,1],[8,1],[1],[],[],[],[],[]],"
	      "\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"4\",\"32\",\"64\",\"5\",\"[True, False, True]\"]}",
	      NULL, 7.3728e-05, 49203.200000000004, "vector_bf16", "num_channels", "6.4");
	check("aten::instance_norm",
	      "{\"Input Dims\":[[4,32,8,8],[32],[32],null,null,[],[],[],[]],\"Input type\":[\"float\",\"float\","
	      "\"float\",\"\",\"\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"],\"Input Strides\":[[2048,64,8,1],[1],"
	      "[1],[],[],[],[],[],[]],\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"True\",\"0.1\",\"1e-05\","
	      "\"False\"]}",
	      NULL, 4.1152e-05, 66304, "vector_fp32", "num_channels", "32");
	check("aten::_fused_rms_norm_backward",
	      "{\"Input Dims\":[[3,5,128],[3,5,128],[],[3,5,1],[128],[]],\"Input type\":[" BF "," BF
	      ",\"ScalarList\",\"float\"," BF ",\"ScalarList\"],\"Input Strides\":[[640,128,1],[640,128,1],[],"
	      "[5,1,1],[1],[]],\"Concrete Inputs\":[\"\",\"\",\"[128]\",\"\",\"\",\"[True, True]\"]}",
	      NULL, 1.92e-05, 12032, "vector_bf16", "output_mask", "[True, True]");
	check("vllm::rocm_aiter_triton_add_rmsnorm_pad",
	      "{\"Input Dims\":[[64,2880],[2880],[],[64,2880],[]],\"Input type\":[" BF "," BF ",\"Scalar\"," BF
	      ",\"Scalar\"],\"Input Strides\":[[2880,1],[1],[],[2880,1],[]],"
	      "\"Concrete Inputs\":[\"\",\"\",\"1e-05\",\"\",\"256\"]}",
	      NULL, 0.000921728, 1504896, "vector_bf16", "num_channels", "2880");
	check("aiter::_fuse_rmsnorm_fp4_quant",
	      "{\"Input Dims\":[[33,7168],[7168],[],[33,512],[512],[],[33,7168],[],[],[]],\"Input type\":[" BF "," BF
	      ",\"Scalar\"," BF "," BF ",\"Scalar\"," BF ",\"Scalar\",\"Scalar\",\"Scalar\"],\"Input Strides\":"
	      "[[7168,1],[1],[],[512,1],[1],[],[7168,1],[],[],[]],\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\","
	      "\"\",\"\",\"\",\"\"]}",
	      NULL, 0.001723462, 1627872, "vector_bf16", "is_affine", "True");
	check("aiter::rope_cached_positions_2c_fwd_impl",
	      "{\"Input Dims\":[[1,9,32,128],[1,9,8,128],[1,9,32,128],[1,9,8,128],[4096,1,1,64],[4096,1,1,64],[1,9]],"
	      "\"Input type\":[" BF "," BF "," BF "," BF "," BF "," BF ",\"long int\"]}",
	      NULL, 0.00013824, 184320, "vector_bf16", "y_shape", "(1, 9, 8, 128)");
	check("FusedRoPEFunc", "{\"Input Dims\":[[128,2,16,64],[128,1,1,64]],\"Input type\":[\"\",\"\"]}", NULL,
	      0.000786432, 1048576, "", "head_dim", "64");
	check("MoECombine", "{\"Input Dims\":[[1024]],\"Input type\":[\"float\"]}", NULL, 0, NAN, "", "hidden_dim",
	      "");
	check("pseudo_op::moe_triton_unfused_up",
	      "{\"Input Dims\":[[7,2048],[7,64],[],[]],\"Input type\":[" BF "," BF ",\"\",\"\"],\"MoE topk\":6,"
	      "\"MoE GEMM gated\":true}",
	      "_matmul_ogs_fp8e4m3_swiglu", 0.704643072, 267542298.671875, "matrix_fp8", "weight_dtype", "FP8");

	check("pseudo_op::moe_aiter_fused_1stage",
	      "{\"Input Dims\":[[33,7168],[256,4096,7168],[256,7168,2048],[33,8],[33,8]],\"Input type\":[" BF
	      ",\"c10::Float8_e4m3fnuz\",\"c10::Float8_e4m3fnuz\",\"float\",\"int\"]}",
	      NULL, 23.256769536, 7320879183.540997, "matrix_bf16", "gated", "True");
	check("aiter::fmoe_fp8_blockscale_g1u1",
	      "{\"Input Dims\":[[5,7168],[5,7168],[256,4096,7168],[256,7168,2048]],\"Input type\":[" BF
	      ",\"c10::Float8_e4m3fnuz\",\"c10::Float8_e4m3fnuz\",\"c10::Float8_e4m3fnuz\"],"
	      "\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"8\"]}",
	      NULL, 3.52375296, 1655001936, "matrix_fp8", "output_dtype", "c10::BFloat16");
	check("aiter::ck_moe_stage2",
	      "{\"Input Dims\":[[5,8,2048],[],[256,7168,2048],[40]],\"Input type\":[" BF "," BF
	      ",\"Float8_e5m2\",\"int\"]}",
	      NULL, 1.17440512, 551866992, "matrix_bf16", "weight_dtype", "Float8_e5m2");
	check("sglang_profiler::fused_moe_triton_kernels_invoke_fused_moe_kernel",
	      "{\"Input Dims\":[[7,2048],[64,1536,2048],[7,4,1536],[],[],[7,4],[7,4],[40],[7,4]],\"Input type\":["
	      BF ",\"c10::Float8_e4m3fn\",\"\",\"\",\"\",\"float\",\"int\",\"int\",\"int\"]}",
	      NULL, 0.176160768, 73382764.75, "matrix_fp8", "m_work", "28");
	check("aiter::biased_grouped_topk_hip",
	      "{\"Input Dims\":[[33,256],[256],[33,8],[33,8],[],[],[],[]],\"Input type\":[\"float\"," BF
	      ",\"float\",\"int\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]}",
	      NULL, 8.448e-06, 36416, "vector_fp32", "operands",
	      "[((33, 256), 'float'), ((256,), 'c10::BFloat16'), ((33, 8), 'float'), ((33, 8), 'int')]");
	check("MambaSplitConv1dScanCombinedFn",
	      "{\"Input Dims\":[[2,512,3352],[1792,4],[1792],[24],[24],[24],[]],\"Input type\":[" BF "," BF "," BF
	      ",\"float\",\"float\",\"float\"],\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\","
	      "\"256\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"64\",\"1\"]}",
	      NULL, 1.692401664, 10028832, "matrix_bf16", "N", "128");
	check("aiter::fused_qk_rope_concat_and_cache_mla",
	      "{\"Input Dims\":[[9,16,512],[9,16,64],[9,512],[9,64],[100,576]],\"Input type\":[" BF "," BF "," BF
	      "," BF ",\"\"]}",
	      NULL, 2.9376e-05, 352512, "vector_bf16", "dtype_out", "c10::BFloat16");
	check("CrossEntropyFunction", "{\"Input Dims\":[[4,32000],[4]]}", NULL, 0.00064, 256048, "",
	      "logits_shape", "[4, 32000]");
	check("aiter::mhc_fused_post_pre_gemm_sqrsum",
	      "{\"Input Dims\":[[2,9,24],[2,9],[9,4,4096],[9,4096],[9,4],[9,4,4],[9,4,4096],[24,16384]],"
	      "\"Input type\":[\"float\",\"float\"," BF ",\"c10::Half\",\"float\",\"float\"," BF ",\"float\"]}",
	      NULL, 0.008552448, 2533848, "matrix_fp16", "split_k", "2");
	check("aiter::mhc_post", "{\"Input Dims\":[[9,4],[9,4096]]}", NULL, 0.00147456, 664272, "vector_bf16", "hc3",
	      "");

	check("aiter::fused_allreduce_rmsnorm_",
	      "{\"Input Dims\":[[33,7000],[33,7000],[7000],[]],\"Input type\":[\"float\",\"float\",\"float\","
	      "\"Scalar\"],\"Input Strides\":[[7000,1],[7000,1],[1],[]]}",
	      NULL, 0.001155066, 3724000, "", "num_channels", "7000");
	check("sglang::reg_all_gather_into_tensor",
	      "{\"Input Dims\":[[64,4096],[8,4096]],\"Input type\":[\"float\"," BF "]}", NULL, 0, 1179648, "",
	      "out_shape", "(64, 4096)");

	check("sglang_profiler::fused_moe_triton_kernels_fused_append_shared_experts",
	      "{\"Input Dims\":[[33,8],[],[]],\"Input type\":[\"long int\",\"\",\"Scalar\"]}", NULL, 2.64e-07,
	      2 * (264 * 8 + 264 * 4), "", "dtype_in1_in2_out", "('long int', '', '')");

	check("aiter::dynamic_per_group_scaled_quant_fp4",
	      "{\"Input Dims\":[[33,3584],[33,7168]],\"Input type\":[\"unsigned char\"," BF "]}", NULL, 0.000473088,
	      473088 + 118272 + 7392, "vector_bf16", "stride_input", "");

	/* bad args: -EINVAL and a note, never a crash */
	refuse("aten::layer_norm", NULL, NULL, "a call without args");
	refuse("aten::layer_norm", "{}", NULL, "no Input Dims");
	refuse("aten::layer_norm", "{\"Input Dims\":[[2,4]],\"Input type\":[\"float\"],\"Input Strides\":[[4,1]]}",
	       NULL, "a short Input Dims");
	refuse("aten::layer_norm",
	       "{\"Input Dims\":[[2,4],[],[4],[4]],\"Input type\":[\"float\"],\"Input Strides\":[[4,1]],"
	       "\"Concrete Inputs\":[\"\",\"4\"]}",
	       NULL, "a normalized shape that is not a list");
	refuse("aten::layer_norm",
	       "{\"Input Dims\":[[2,\"x\"],[],[4],[4]],\"Input type\":[\"float\"],\"Input Strides\":[[4,1]],"
	       "\"Concrete Inputs\":[\"\",\"[4]\"]}",
	       NULL, "a shape of strings");
	refuse("aten::layer_norm",
	       "{\"Input Dims\":[[2,4],[],[4],[4]],\"Input type\":[\"bool\"],\"Input Strides\":[[4,1]],"
	       "\"Concrete Inputs\":[\"\",\"[4]\"]}",
	       NULL, "a dtype without a size");
	refuse("aten::batch_norm", "{\"Input Dims\":[[2],[],[4]],\"Input type\":[\"float\"],\"Input Strides\":[[1]]}",
	       NULL, "a 1-D input");
	refuse("aten::native_layer_norm_backward",
	       "{\"Input Dims\":[[2,4],[2,4]],\"Input type\":[\"float\",\"float\"],\"Input Strides\":[[4,1],[4,1]],"
	       "\"Concrete Inputs\":[\"\",\"\",\"[4]\",\"\",\"\",\"\",\"\",\"[True]\"]}",
	       NULL, "a short output mask");
	refuse("aten::native_group_norm_backward",
	       "{\"Input Dims\":[[4,32],[4,32],[],[],[],[32]],\"Input type\":[\"float\",\"float\"],"
	       "\"Input Strides\":[[32,1],[32,1]],\"Concrete Inputs\":[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"0\","
	       "\"[True, True, True]\"]}",
	       NULL, "zero groups");
	refuse("aten::_fused_rms_norm",
	       "{\"Input Dims\":[[2,4],[],[4]],\"Input type\":[\"float\"],\"Input Strides\":[[4,1]],"
	       "\"Concrete Inputs\":[\"\",\"[0]\"]}",
	       NULL, "zero channels");
	refuse("aten::native_instance_norm_backward", "{\"Input Dims\":[]}", NULL, "a class TraceLens leaves out");
	refuse("aiter::rms_norm", "{\"Input Dims\":[[4,512]],\"Input type\":[" BF "],\"Input Strides\":[[512,1]]}",
	       NULL, "no weight");
	refuse("vllm::rocm_aiter_rmsnorm_fp8_group_quant",
	       "{\"Input Dims\":[[4,1536],[1536],[],[]],\"Input type\":[" BF "," BF ",\"Scalar\",\"Scalar\"],"
	       "\"Input Strides\":[[1536,1],[1],[],[]],\"Concrete Inputs\":[\"\",\"\",\"1e-06\",\"x\"]}",
	       NULL, "a group size that is not a number");
	refuse("sgl_kernel::rotary_embedding", "{\"Input Dims\":[[32],[32,4096]],\"Input type\":[\"long int\"," BF "]}",
	       NULL, "no key");
	refuse("sgl_kernel::rotary_embedding",
	       "{\"Input Dims\":[[32],[32,4096],[32,1024]],\"Input type\":[\"long int\"," BF "," BF "],"
	       "\"Concrete Inputs\":[\"\",\"\",\"\",\"0\"]}",
	       NULL, "a zero head size");
	refuse("FusedRoPEFunc", "{\"Input Dims\":[[128,2]]}", NULL, "a 2-D input");
	refuse("pseudo_op::moe_triton_unfused_up",
	       "{\"Input Dims\":[[7,2048],[7,64]],\"Input type\":[" BF "," BF "],\"MoE GEMM gated\":true}",
	       "_matmul_ogs_mxfp4", "no MoE topk");
	refuse("pseudo_op::moe_triton_unfused_down",
	       "{\"Input Dims\":[[7,2048],[7,64]],\"Input type\":[" BF "," BF "],\"MoE topk\":2,"
	       "\"MoE GEMM gated\":false}",
	       NULL, "no kernel");
	refuse("pseudo_op::moe_triton_unfused_down",
	       "{\"Input Dims\":[[7,2048],[7,64]],\"Input type\":[" BF "," BF "],\"MoE topk\":2,"
	       "\"MoE GEMM gated\":false}",
	       "_matmul_ogs_bf16", "a weight dtype it cannot tell");
	refuse("MoEDispatch", NULL, NULL, "a call without args");
	refuse("pseudo_op::moe_aiter_fused_1stage",
	       "{\"Input Dims\":[[33,7168],[256,4096],[256,7168,2048],[33,8]],\"Input type\":[" BF "," BF "]}", NULL,
	       "a 2-D w1");
	refuse("pseudo_op::moe_aiter_fused_1stage",
	       "{\"Input Dims\":[[33,7168],[256,4096,0],[256,7168,2048],[33,8]],\"Input type\":[" BF "," BF "]}",
	       NULL, "a zero packing divisor");
	refuse("aiter::fmoe_g1u1",
	       "{\"Input Dims\":[[5,7168],[5,7168],[256,4096,7168],[256,7168,2048]],\"Input type\":[" BF "," BF ","
	       BF "]}",
	       NULL, "no topk");
	refuse("sglang_profiler::fused_moe_triton_kernels_invoke_fused_moe_kernel",
	       "{\"Input Dims\":[[7,2048],[64,1536,2048]]}", NULL, "fewer than 9 inputs");
	refuse("MambaSplitConv1dScanCombinedFn",
	       "{\"Input Dims\":[[2,512,100],[1792,4],[1792],[24]],\"Input type\":[" BF "]}", NULL,
	       "a combined dim that leaves no state");
	refuse("aiter::mhc_pre_gemm_sqrsum", "{\"Input Dims\":[[2,9,24],[2,9],[9,4]]}", NULL, "a short input");
	refuse("sglang_profiler::fused_moe_triton_kernels_fused_append_shared_experts",
	       "{\"Input Dims\":[[33,8],[32,8]],\"Input type\":[\"int\",\"float\"]}", NULL, "shapes that do not broadcast");
	refuse("aiter::reduce_scatter", "{\"Input Dims\":[[],[64,4096],[8,4096]],\"Input type\":[\"int\",\"bool\"],"
	       "\"Input Strides\":[[],[4096,1]]}", NULL, "an unsized dtype");
	refuse("aiter::fused_qk_rope_cat_and_cache_mla", "{\"Input Dims\":[[9,16],[9,16,64],[9,1,512]]}", NULL,
	       "a 2-D q");

	/* every class on malformed args: 0 or -EINVAL with a note, never a crash */
	{
		static const char *const junk[] = {
			NULL, "{}", "{\"Input Dims\":5}", "{\"Input Dims\":[]}", "{\"Input Dims\":[null,null,null]}",
			"{\"Input Dims\":[[1,2],[\"a\"],[1.5],[[1]],{},[],[],[],[],[],[]],\"Input type\":[1,null],"
			"\"Input Strides\":[5],\"Concrete Inputs\":[1,[],\"[\",\"[1,\",\"x\",\"\",\"\",\"[True\","
			"\"\",\"[]\"]}",
			"{\"Input Dims\":[[0,0,0],[0,0,0],[0,0,0],[0,0,0],[0],[0],[0,0],[0,0],[0,0]],\"Input type\":[\"\","
			"\"\",\"\",\"\",\"\",\"\",\"\",\"\"],\"Input Strides\":[[],[],[],[],[],[]],"
			"\"Concrete Inputs\":[\"\",\"[]\",\"[]\",\"0\",\"0\",\"[]\",\"0\",\"[]\",\"0\",\"[]\"],"
			"\"MoE topk\":0,\"MoE GEMM gated\":null}",
		};
		size_t j, bad = 0, calls = 0;

		for (t = 0; t < TL_ARRAY_SIZE(tabs); t++) {
			const struct pm_class *cls;

			for (cls = tabs[t]; cls && cls->name; cls++)
				for (j = 0; j < sizeof(junk) / sizeof(junk[0]); j++) {
					int err = model(cls->ops[0], junk[j], j & 1 ? "k" : NULL, &o);

					calls++;
					if (!(err == 0 || (err == -EINVAL && o.note[0] && !strchr(o.note, '\n')))) {
						bad++;
						diag("%s on %s: %d '%s'", cls->ops[0], junk[j] ? junk[j] : "NULL", err,
						     o.note);
					}
				}
		}
		ok(bad == 0, "%zu calls on malformed args: each models or refuses with a note", calls);
	}

	return done_testing();
}
