/* SPDX-License-Identifier: MIT */
/* torch.compile's fused Triton kernels (pm_triton.c), TraceLens's
 * TritonCompiledPerfModel: the class is matched by name prefix, the fused
 * ops are read off the name (ATen names with underscores kept whole, the
 * longest first), element counts from the integer Concrete Inputs, bytes
 * from the tensors' shapes and dtypes. Cases from the xDiT and vLLM traces'
 * golden sheets. */
#include "pm_test.h"

static bool can(const char *name, const char *json)
{
	struct pm_call c = { .name = name };
	bool r;

	c.args = cJSON_Parse(json);
	r = pm_can_model(pm_class_of(name), &c);
	cJSON_Delete((cJSON *)c.args);
	return r;
}

int main(void)
{
	const struct pm_class *c = pm_class_of("triton_poi_fused_addmm_gelu_view_15");

	plan(15);
	ok(c == &pm_triton_compiled_class && !c->sheet && !strcmp(c->category, "triton"),
	   "triton_poi_*: the fused Triton class, in no perf sheet");
	ok(pm_class_of("triton_red_fused_sum_0") == c && pm_class_of("triton_per_fused_mean_1") == c &&
	   !pm_class_of("triton_tem_fused_mm_0") && pm_class_of("aten::mm") != c,
	   "red_ and per_ too; a template kernel or an ATen op not");

	/* pointwise: (2,4096,9728) + (9728,) bf16, xnumel 79691776 */
	ok(run("triton_poi_fused_addmm_gelu_view_15",
	       "{\"Input Dims\":[[2,4096,9728],[9728],[]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\"],"
	       "\"Concrete Inputs\":[\"\",\"\",\"79691776\"]}") == 0,
	   "a pointwise kernel models");
	ok(!strcmp(param("fused_ops"), "aten.addmm, aten.gelu, aten.view") && !strcmp(param("xnumel"), "79691776") &&
	   !strcmp(param("rnumel"), "1"), "fused ops, xnumel, rnumel 1 (%s)", param("fused_ops"));
	/* gelu 8 FLOPs per element, addmm and view none */
	ok(near(res.gflops, 8 * 79691776e-9), "FLOPs: 8 per element (gelu)");
	/* both tensors, plus one write of xnumel elements of the first */
	ok(near(res.bytes, (79691776.0 + 9728) * 2 + 2 * 79691776.0) && !strcmp(res.compute_spec, "vector_bfloat16"),
	   "bytes: the tensors plus the pointwise write; compute spec vector_bfloat16");

	/* reduction: the last two integers are xnumel and rnumel */
	ok(run("triton_red_fused__unsafe_view_add_addmm_mul_native_layer_norm_split_unsqueeze_19",
	       "{\"Input Dims\":[[8192,1536],[1536],[]],\"Input type\":[\"c10::BFloat16\",\"c10::Float\",\"Scalar\",\"Scalar\"],"
	       "\"Concrete Inputs\":[\"\",\"\",\"8192\",\"1536\"]}") == 0 &&
	   !strcmp(param("xnumel"), "8192") && !strcmp(param("rnumel"), "1536"), "a reduction: xnumel, rnumel");
	ok(!strcmp(param("fused_ops"),
		   "aten._unsafe_view, aten.add, aten.addmm, aten.mul, aten.native_layer_norm, aten.split, aten.unsqueeze"),
	   "underscored ops stay whole: _unsafe_view, native_layer_norm (%s)", param("fused_ops"));
	/* add 1 + mul 1 per element; no pointwise write */
	ok(near(res.gflops, 2 * 8192.0 * 1536 / 1e9) && near(res.bytes, 8192.0 * 1536 * 2 + 1536 * 4),
	   "reduction FLOPs and bytes");

	/* a name that does not split into ATen ops: no fused ops, still modelled */
	ok(run("triton_poi_fused_constant_pad_nd_moe_forward_0",
	       "{\"Input Dims\":[[32,2880],[32,3072],[]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\"],"
	       "\"Concrete Inputs\":[\"\",\"\",\"98304\"]}") == 0 &&
	   !strcmp(param("fused_ops"), "") && res.gflops == 0 && near(res.bytes, (32.0 * 2880 + 32 * 3072) * 2 + 2 * 98304),
	   "moe_forward is no ATen op: fused_ops '', 0 FLOPs, the bytes still");
	/* a dtype the table lacks moves 0 bytes per element, as TraceLens's */
	ok(run("triton_poi_fused__to_copy_1",
	       "{\"Input Dims\":[[131072,64],[131072,64],[]],\"Input type\":[\"float\",\"c10::BFloat16\",\"Scalar\"],"
	       "\"Concrete Inputs\":[\"\",\"\",\"8388608\"]}") == 0 &&
	   near(res.bytes, 16.0 * 1024 * 1024) && !strcmp(param("fused_ops"), "aten._to_copy"),
	   "_to_copy: 16 MiB ('float' is not a c10 dtype name)");

	ok(!can("triton_poi_fused_0", "{\"Input Dims\":[[32],[201088,2880]],\"Input type\":[\"int\",\"c10::BFloat16\"],"
				       "\"Concrete Inputs\":[\"\",\"\"]}"),
	   "no integer Concrete Input: no model (the launcher's row)");
	ok(!can("triton_poi_fused_add_0", "{\"Input Dims\":[[4]],\"Input type\":[\"float\"]}"),
	   "no Concrete Inputs: no model");
	ok(can("aten::mm", "{}"), "other classes can model any call");
	refused("triton_poi_fused_add_0", "{\"Input Dims\":[[4]],\"Input type\":[\"float\"],\"Concrete Inputs\":[\"x\"]}",
		"a Concrete Input that is no integer");
	return done_testing();
}
