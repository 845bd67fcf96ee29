/* SPDX-License-Identifier: MIT */
/* The elementwise and reduce perf models on hand-built calls: the numbers
 * and parameters TraceLens's classes give, and -EINVAL with a one-line note
 * (never a crash) for args they cannot read. */
#include "pm_test.h"

int main(void)
{
	char buf[128];
	struct pm_shape s = { 2, { 3, 4 } }, one = { 1, { 5 } }, none = { 0, { 0 } };
	const char *dt[2] = { "c10::BFloat16", NULL };

	plan(38);

	ok(pm_class_of("aten::mul") && !strcmp(pm_class_of("aten::mul")->sheet, "BinaryElementwise"),
	   "aten::mul goes to BinaryElementwise");
	ok(pm_class_of("aten::amax") && !strcmp(pm_class_of("aten::amax")->sheet, "Reduce_fwd"),
	   "aten::amax goes to Reduce_fwd");
	ok(pm_class_of("sgl_kernel::silu_and_mul") &&
	   !strcmp(pm_class_of("sgl_kernel::silu_and_mul")->sheet, "UnaryElementwise"),
	   "sgl_kernel::silu_and_mul goes to UnaryElementwise");

	/* Python reprs */
	ok(!pm_shape_repr(&s, 0, buf, sizeof(buf)) && !strcmp(buf, "(3, 4)"), "tuple repr %s", buf);
	ok(!pm_shape_repr(&one, 0, buf, sizeof(buf)) && !strcmp(buf, "(5,)"), "1-tuple repr %s", buf);
	ok(!pm_shape_repr(&none, 0, buf, sizeof(buf)) && !strcmp(buf, "()"), "empty tuple repr %s", buf);
	ok(!pm_py_tuple_repr(dt, 2, buf, sizeof(buf)) && !strcmp(buf, "('c10::BFloat16', None)"),
	   "dtype tuple repr %s", buf);
	ok(pm_shape_repr(&s, 0, buf, 4) == -ENOSPC, "a short buffer is -ENOSPC");

	/* binary with a scalar: the output takes the tensor's dtype */
	ok(run("aten::add", "{\"Input Dims\":[[16,559,1],[],[]],\"Input type\":[\"float\",\"double\",\"Scalar\"],"
			    "\"Input Strides\":[[559,1,1],[],[]],\"Concrete Inputs\":[\"\",\"\",\"1\"]}") == 0,
	   "aten::add tensor + scalar");
	ok(names_are("shape_in1,shape_in2,dtype_in1_in2_out,stride_input1,stride_input2,stride_output"),
	   "binary param names");
	ok(!strcmp(param("dtype_in1_in2_out"), "('float', 'double', None)") && !strcmp(param("shape_in2"), "()") &&
	   !strcmp(param("stride_output"), ""), "binary params: dtypes, () for a scalar, None output");
	ok(near(res.gflops, 8944e-9) && near(res.bytes, 8944 * 4 + 8 + 8944 * 4), "binary gflops and bytes");
	ok(!strcmp(res.compute_spec, "vector_fp32"), "binary compute spec vector_fp32");

	/* binary broadcast of two tensors: the wider dtype is the output's */
	ok(run("aten::mul", "{\"Input Dims\":[[2,1,4],[3,1]],\"Input type\":[\"c10::BFloat16\",\"float\"],"
			    "\"Input Strides\":[[4,4,1],[1,1]]}") == 0 &&
	   near(res.gflops, 24e-9) && near(res.bytes, 8 * 2 + 3 * 4 + 24 * 4),
	   "aten::mul broadcasts (2,1,4) x (3,1) to (2,3,4)");
	refused("aten::mul", "{\"Input Dims\":[[2,3],[4]],\"Input type\":[\"float\",\"float\"],"
			     "\"Input Strides\":[[3,1],[1]]}", "shapes that do not broadcast");

	/* unary: copy_ reads its source's dtype as the output's */
	ok(run("aten::copy_", "{\"Input Dims\":[[2,3],[2,3],[]],\"Input type\":[\"c10::BFloat16\",\"float\",\"Scalar\"],"
			      "\"Input Strides\":[[3,1],[1,2],[]],\"Concrete Inputs\":[\"\",\"\",\"False\"]}") == 0 &&
	   names_are("op_shape,dtype_in_out,stride_input,stride_output") &&
	   !strcmp(param("dtype_in_out"), "('c10::BFloat16', 'float')") && !strcmp(param("stride_output"), "(1, 2)") &&
	   near(res.bytes, 6 * 2 + 6 * 4) && !strcmp(res.compute_spec, "vector_bf16"),
	   "aten::copy_ params and bytes");
	ok(run("aten::silu", "{\"Input Dims\":[[7]],\"Input type\":[\"weird\"],\"Input Strides\":[[1]]}") == 0 &&
	   isnan(res.bytes) && !res.compute_spec[0] && !strcmp(param("stride_output"), ""),
	   "an unknown dtype leaves bytes None and no compute spec");
	refused("aten::silu", "", "no args");
	refused("aten::silu", "{\"Input Dims\":5}", "Input Dims not a list");
	refused("aten::silu", "{\"Input Dims\":[[2,[3]]],\"Input type\":[\"float\"],\"Input Strides\":[[1,1]]}",
		"a nested shape");
	refused("aten::neg", "{\"Input Dims\":[[2]],\"Input type\":[3],\"Input Strides\":[[1]]}", "a dtype that is a number");

	/* resize ops */
	ok(run("aten::upsample_nearest2d", "{\"Input Dims\":[[1,2,4,4],[],[],[]],"
					   "\"Input type\":[\"c10::BFloat16\",\"ScalarList\",\"Scalar\",\"Scalar\"],"
					   "\"Input Strides\":[[32,16,4,1],[],[],[]],"
					   "\"Concrete Inputs\":[\"\",\"[8, 8]\",\"\",\"\"]}") == 0 &&
	   names_are("input_shape,output_shape,op_shape,dtype_in_out,stride_input,stride_output") &&
	   !strcmp(param("output_shape"), "(1, 2, 8, 8)") && near(res.gflops, 128e-9) &&
	   near(res.bytes, 32 * 2 + 128 * 2), "upsample_nearest2d: output from Concrete Inputs[1]");
	refused("aten::upsample_nearest2d", "{\"Input Dims\":[[1,2,4,4],[]],\"Input type\":[\"float\",\"\"],"
					    "\"Input Strides\":[[32,16,4,1],[]],\"Concrete Inputs\":[\"\",\"\"]}",
		"no output size");
	ok(run("aten::replication_pad2d", "{\"Input Dims\":[[1,1,4,4],[]],\"Input type\":[\"float\",\"ScalarList\"],"
					  "\"Input Strides\":[[16,16,4,1],[]],\"Concrete Inputs\":[\"\",\"[1, 1, 2, 2]\"]}") == 0 &&
	   names_are("input_shape,output_shape,padding,op_shape,dtype_in_out,stride_input,stride_output") &&
	   !strcmp(param("op_shape"), "(1, 1, 8, 6)") && !strcmp(param("padding"), "[1, 1, 2, 2]") &&
	   near(res.bytes, 16 * 4 + 48 * 4), "replication_pad2d pads the last dims first");
	refused("aten::replication_pad1d", "{\"Input Dims\":[[1,1,4],[]],\"Input type\":[\"float\",\"\"],"
					   "\"Input Strides\":[[4,4,1],[]],\"Concrete Inputs\":[\"\",\"[1, x]\"]}",
		"padding that is not ints");
	refused("aten::replication_pad1d", "{\"Input Dims\":[[1,1,4],[]],\"Input type\":[\"bool\",\"\"],"
					   "\"Input Strides\":[[4,4,1],[]],\"Concrete Inputs\":[\"\",\"[1, 1]\"]}",
		"a dtype without a size");

	/* extension models on these sheets */
	ok(run("sgl_kernel::silu_and_mul", "{\"Input Dims\":[[32,128],[32,256]],"
					   "\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"],"
					   "\"Input Strides\":[[256,1],[256,1]]}") == 0 &&
	   near(res.gflops, 5.0 * 4096 / 1e9) && near(res.bytes, 2 * 4096 * 2 + 4096 * 2) &&
	   !strcmp(param("stride_input"), "(256, 1)"), "silu_and_mul: 5 FLOPs an output element");
	ok(run("aiter::dynamic_per_token_scaled_quant",
	       "{\"Input Dims\":[[4,8],[4,8],[4,1]],\"Input type\":[\"c10::Float8_e4m3fnuz\",\"c10::BFloat16\",\"float\"],"
	       "\"Input Strides\":[[8,1],[8,1],[1,1]]}") == 0 &&
	   names_are("shape_in1,shape_in2,shape_out,dtype_in1_in2_out,stride_input1,stride_input2,stride_output") &&
	   near(res.gflops, 32 * 2.59375 / 1e9) && near(res.bytes, 32 + 64 + 16), "per_group_quant");
	ok(run("vllm::triton_per_token_group_quant_fp8",
	       "{\"Input Dims\":[[4,300],[]],\"Input type\":[\"c10::BFloat16\",\"Scalar\"],"
	       "\"Concrete Inputs\":[\"\",\"128\"]}") == 0 &&
	   !strcmp(param("num_groups"), "3") && near(res.bytes, 1200 * 2 + 1200 + 4 * 3 * 4),
	   "triton group quant: 300 in groups of 128 is 3 groups");

	/* reduce */
	ok(run("aten::mean", "{\"Input Dims\":[[10,512,7,7],[],[],[]],"
			     "\"Input type\":[\"c10::BFloat16\",\"ScalarList\",\"Scalar\",\"\"],"
			     "\"Concrete Inputs\":[\"\",\"[-1, -2]\",\"True\",\"\"]}") == 0 &&
	   names_are("num_input_elems,num_output_elems,dtype_in_out,reduce_type") &&
	   !strcmp(param("num_output_elems"), "1") && !strcmp(param("num_input_elems"), "250880") &&
	   !strcmp(param("dtype_in_out"), "('c10::BFloat16', None)") && !strcmp(param("reduce_type"), "mean") &&
	   near(res.bytes, 250880 * 2 + 2), "aten::mean: traces' text dims reduce to one element");
	{
		/* the backward row of a reduction (Reduce_bwd): the forward's counts */
		struct pm_call c = { .name = "aten::mean" };
		double fwd_gflops = res.gflops, fwd_bytes = res.bytes;

		c.args = cJSON_Parse("{\"Input Dims\":[[10,512,7,7],[],[],[]],"
				     "\"Input type\":[\"c10::BFloat16\",\"ScalarList\",\"Scalar\",\"\"],"
				     "\"Concrete Inputs\":[\"\",\"[-1, -2]\",\"True\",\"\"]}");
		pm_out_init(&res);
		ok(pm_model_bwd(pm_class_of("aten::mean"), &c, &res) == 0 &&
		   near(res.gflops, fwd_gflops) && near(res.bytes, fwd_bytes) &&
		   near(res.gflops, 250880 / 1e9),
		   "pm_model_bwd: a reduction's backward FLOPs and bytes are the forward's");
		pm_out_init(&res);
		ok(pm_model_bwd(pm_class_of("aten::mm"), &c, &res) == -ENOENT,
		   "pm_model_bwd: no backward model for a GEMM (its sheet covers both passes)");
		cJSON_Delete((cJSON *)c.args);
	}
	ok(run("aten::sum", "{\"Input Dims\":[[4,5,6]],\"Input type\":[\"float\"],"
			    "\"Concrete Inputs\":[\"\",[-1],true]}") == 0 &&
	   !strcmp(param("num_output_elems"), "20"), "aten::sum: typed dims and keepdim (4,5,6) -> 20");
	ok(run("aten::amax", "{\"Input Dims\":[[4,5,6]],\"Input type\":[\"float\"],"
			     "\"Concrete Inputs\":[\"\",[0,2],false]}") == 0 &&
	   !strcmp(param("num_output_elems"), "5") && !strcmp(param("reduce_type"), "max"),
	   "aten::amax over dims 0 and 2 -> 5");
	ok(run("aten::cumsum", "{\"Input Dims\":[[32],[],[]],\"Input type\":[\"int\",\"Scalar\",\"\"],"
			       "\"Concrete Inputs\":[\"\",\"0\",\"\"]}") == 0 &&
	   !strcmp(param("num_output_elems"), "32") && !res.compute_spec[0] && near(res.bytes, 256),
	   "aten::cumsum keeps its shape; int has no compute spec");
	ok(run("aten::max", "{\"Input type\":[\"float\"]}") == 0 &&
	   names_are("num_input_elems,num_output_elems,dtype_in_out") && !strcmp(param("dtype_in_out"), "(None, None)") &&
	   res.gflops == 0 && isnan(res.bytes), "aten::max without Input Dims: zero elements");
	refused("aten::max", "{\"Input Dims\":[7]}", "an input that is not a shape");
	refused("aten::max", "{\"Input Dims\":[[7]],\"Input type\":[{}]}", "a dtype that is an object");

	return tap_failed ? 1 : 0;
}
