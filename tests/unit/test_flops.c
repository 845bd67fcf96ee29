/* SPDX-License-Identifier: MIT */
/* tl_ir_flops(): FLOPs and bytes of hand-made IR entries against values
 * worked out by hand, and of one op of a real trace (when ../shared is
 * there). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <tlreplay/tlreplay.h>

#include "tap.h"

/* Entries as JSON text: T(shape, dtype) a tensor value, A(name, type, value)
 * an argument, E(op, positional args, keyword args) the entry. */
#define T(shape, dt) "{\"shape\":" shape ",\"dtype\":\"" dt "\",\"strides\":[],\"init\":\"normal\"}"
#define A(name, type, val) "{\"arg_name\":\"" name "\",\"arg_type\":\"" type "\",\"value\":" val "}"
#define E(op, pos, kw) "{\"op_name\":\"" op "\",\"replay_ir\":{\"list_pos_args\":[" pos "],\"list_kwargs\":[" kw "]}}"
#define E_SCHEMALESS(op, pos) \
	"{\"op_name\":\"" op "\",\"schemaless\":true,\"replay_ir\":{\"list_pos_args\":[" pos "],\"list_kwargs\":[]}}"

static int count(const char *json, double *flops, double *bytes)
{
	cJSON *e = cJSON_Parse(json);
	int err;

	if (!e) {
		diag("test entry does not parse: %s", json);
		return -999;
	}
	err = tl_ir_flops(e, flops, bytes);
	cJSON_Delete(e);
	return err;
}

/* One case: the return code, and the FLOPs and bytes when expected (NAN: not checked). */
static void check(const char *what, const char *json, int want_err, double want_flops, double want_bytes)
{
	double f = -1, b = -1;
	int err = count(json, &f, &b);

	if (!ok(err == want_err, "%s: returns %d", what, want_err)) {
		diag("got %d (%s)", err, tl_last_error());
		return;
	}
	if (!isnan(want_flops) && !ok(f == want_flops, "%s: %.0f FLOPs", what, want_flops))
		diag("got %.17g", f);
	if (!isnan(want_bytes) && !ok(b == want_bytes, "%s: %.0f bytes", what, want_bytes))
		diag("got %.17g", b);
}

static void test_gemm(void)
{
	/* [3,5] x [5,7] float: 2*M*N*K; bytes (15 + 35 + 21) * 4 */
	check("mm", E("aten::mm", A("self", "Tensor", T("[3,5]", "float")) "," A("mat2", "Tensor", T("[5,7]", "float")), ""),
	      0, 2.0 * 3 * 7 * 5, (15 + 35 + 21) * 4.0);
	/* + M*N for the bias add; bias [7] read too; bf16 */
	check("addmm",
	      E("aten::addmm",
		A("self", "Tensor", T("[7]", "c10::BFloat16")) "," A("mat1", "Tensor", T("[3,5]", "c10::BFloat16")) ","
		A("mat2", "Tensor", T("[5,7]", "c10::BFloat16")),
		A("beta", "Scalar", "1") "," A("alpha", "Scalar", "1")),
	      0, 2.0 * 3 * 7 * 5 + 3 * 7, (7 + 15 + 35 + 21) * 2.0);
	check("bmm", E("aten::bmm", A("self", "Tensor", T("[4,3,5]", "c10::Half")) "," A("mat2", "Tensor", T("[4,5,7]", "c10::Half")), ""),
	      0, 4 * 2.0 * 3 * 7 * 5, (60 + 140 + 84) * 2.0);
	check("baddbmm",
	      E("aten::baddbmm",
		A("self", "Tensor", T("[4,3,7]", "float")) "," A("batch1", "Tensor", T("[4,3,5]", "float")) ","
		A("batch2", "Tensor", T("[4,5,7]", "float")), ""),
	      0, 4 * (2.0 * 3 * 7 * 5 + 3 * 7), (84 + 60 + 140 + 84) * 4.0);
	/* matmul broadcasts [2,1,3,5] @ [6,5,7] to a [2,6] batch */
	check("matmul broadcast",
	      E("aten::matmul", A("self", "Tensor", T("[2,1,3,5]", "float")) "," A("other", "Tensor", T("[6,5,7]", "float")), ""),
	      0, 12 * 2.0 * 3 * 7 * 5, (30 + 210 + 12 * 21) * 4.0);
	check("matmul vector", E("aten::matmul", A("self", "Tensor", T("[3,5]", "float")) "," A("other", "Tensor", T("[5]", "float")), ""),
	      0, 2.0 * 3 * 5, (15 + 5 + 3) * 4.0);
	/* linear with a 3-D input: M = 2*3 rows; weight [N, K]; + M*N bias */
	check("linear 3-D input",
	      E("aten::linear",
		A("input", "Tensor", T("[2,3,4]", "float")) "," A("weight", "Tensor", T("[5,4]", "float")) ","
		A("bias", "Tensor?", T("[5]", "float")), ""),
	      0, 2.0 * 6 * 5 * 4 + 6 * 5, (24 + 20 + 5 + 30) * 4.0);
	check("linear without bias",
	      E("aten::linear",
		A("input", "Tensor", T("[2,3,4]", "float")) "," A("weight", "Tensor", T("[5,4]", "float")) "," A("bias", "Tensor?", "null"), ""),
	      0, 2.0 * 6 * 5 * 4, (24 + 20 + 30) * 4.0);
	check("addmv",
	      E("aten::addmv",
		A("self", "Tensor", T("[3]", "float")) "," A("mat", "Tensor", T("[3,5]", "float")) "," A("vec", "Tensor", T("[5]", "float")), ""),
	      0, 2.0 * 3 * 5 + 3, (3 + 15 + 5 + 3) * 4.0);
	check("mm inner dims differ",
	      E("aten::mm", A("self", "Tensor", T("[3,5]", "float")) "," A("mat2", "Tensor", T("[4,7]", "float")), ""),
	      -EINVAL, NAN, NAN);
}

static void test_conv(void)
{
	/* By hand: x [2, 8, 32, 30], w [16, 4, 3, 5], groups 2 (8 = 4*2),
	 * stride (2, 1), padding (1, 2), dilation (2, 1):
	 *   Hout = floor((32 + 2*1 - 2*(3-1) - 1) / 2) + 1 = floor(29/2) + 1 = 15
	 *   Wout = floor((30 + 2*2 - 1*(5-1) - 1) / 1) + 1 = 30
	 *   MACs = N * Cout * Hout * Wout * (Cin/g) * kh * kw = 2*16*15*30*4*3*5 = 864000
	 * FLOPs 2*MACs + the bias add on 2*16*15*30 = 14400 outputs = 1742400.
	 * bytes: (15360 + 960 + 16 + 14400) * 2 (bf16) = 61472 */
	const char *conv2d =
		E("aten::conv2d",
		  A("input", "Tensor", T("[2,8,32,30]", "c10::BFloat16")) "," A("weight", "Tensor", T("[16,4,3,5]", "c10::BFloat16")) ","
		  A("bias", "Tensor?", T("[16]", "c10::BFloat16")) "," A("stride", "SymInt[2]", "[2,1]") ","
		  A("padding", "SymInt[2]", "[1,2]") "," A("dilation", "SymInt[2]", "[2,1]") "," A("groups", "SymInt", "2"), "");
	/* the same as aten::convolution, schemaless (found by position), no bias */
	const char *conv_pos =
		E_SCHEMALESS("aten::convolution",
			     A("arg0", "Tensor", T("[2,8,32,30]", "c10::BFloat16")) "," A("arg1", "Tensor", T("[16,4,3,5]", "c10::BFloat16")) ","
			     A("arg2", "None", "null") "," A("arg3", "int[]", "[2,1]") "," A("arg4", "int[]", "[1,2]") ","
			     A("arg5", "int[]", "[2,1]") "," A("arg6", "bool", "false") "," A("arg7", "int[]", "[0,0]") ","
			     A("arg8", "int", "2"));
	/* cudnn_convolution: padding comes before stride; single values broadcast */
	const char *cudnn =
		E("aten::cudnn_convolution",
		  A("self", "Tensor", T("[4,3,224,224]", "c10::BFloat16")) "," A("weight", "Tensor", T("[768,3,16,16]", "c10::BFloat16")) ","
		  A("padding", "int[]", "[0]") "," A("stride", "int[]", "[16]") "," A("dilation", "int[]", "[1]") ","
		  A("groups", "int", "1"), "");
	/* Transposed, by hand: x [1, 4, 5, 5], w [4, 3, 3, 3] (Cin, Cout/g, k),
	 * stride 2, padding 1, output_padding 1: out = (5-1)*2 - 2 + 2 + 1 + 1 = 10;
	 * every input element feeds Cout*k*k = 27 outputs: 2 * 100 * 27 = 5400 */
	const char *convt =
		E("aten::convolution",
		  A("input", "Tensor", T("[1,4,5,5]", "float")) "," A("weight", "Tensor", T("[4,3,3,3]", "float")) ","
		  A("bias", "Tensor?", "null") "," A("stride", "SymInt[]", "[2,2]") "," A("padding", "SymInt[]", "[1,1]") ","
		  A("dilation", "SymInt[]", "[1,1]") "," A("transposed", "bool", "true") "," A("output_padding", "SymInt[]", "[1,1]") ","
		  A("groups", "SymInt", "1"), "");
	/* backward of a 3x3 conv, stride 1, padding 1 on [10, 64, 7, 7]:
	 * MACs 10*64*49*64*9 = 18063360; input and weight grads: 2 * 2 * MACs */
	const char *bwd =
		E("aten::convolution_backward",
		  A("grad_output", "Tensor", T("[10,64,7,7]", "c10::BFloat16")) "," A("input", "Tensor", T("[10,64,7,7]", "c10::BFloat16")) ","
		  A("weight", "Tensor", T("[64,64,3,3]", "c10::BFloat16")) "," A("bias_sizes", "SymInt[]?", "[0]") ","
		  A("stride", "int[]", "[1,1]") "," A("padding", "int[]", "[1,1]") "," A("dilation", "int[]", "[1,1]") ","
		  A("transposed", "bool", "false") "," A("output_padding", "int[]", "[0,0]") "," A("groups", "int", "1") ","
		  A("output_mask", "bool[3]", "[true,true,false]"), "");

	check("conv2d stride/padding/dilation/groups", conv2d, 0, 1742400, 61472);
	check("convolution schemaless (positions)", conv_pos, 0, 1728000, (15360 + 960 + 14400) * 2.0);
	check("cudnn_convolution", cudnn, 0, 2.0 * 4 * 768 * 14 * 14 * 3 * 16 * 16, NAN);
	check("transposed convolution", convt, 0, 5400, (100 + 108 + 300) * 4.0);
	check("convolution_backward", bwd, 0, 4.0 * 18063360, (3 * 31360 + 2 * 36864) * 2.0);
	check("conv2d channel mismatch",
	      E("aten::conv2d", A("input", "Tensor", T("[2,3,8,8]", "float")) "," A("weight", "Tensor", T("[4,5,3,3]", "float")), ""),
	      -EINVAL, NAN, NAN);
}

static void test_attention(void)
{
	/* [B, H, L, D] = [2, 4, 16, 8] queries on 32 keys: 4*B*H*Lq*Lk*D */
	check("_scaled_dot_product_efficient_attention",
	      E("aten::_scaled_dot_product_efficient_attention",
		A("query", "Tensor", T("[2,4,16,8]", "c10::Half")) "," A("key", "Tensor", T("[2,4,32,8]", "c10::Half")) ","
		A("value", "Tensor", T("[2,4,32,8]", "c10::Half")) "," A("attn_bias", "Tensor?", "null") ","
		A("compute_log_sumexp", "bool", "false") "," A("dropout_p", "float", "0.0") "," A("is_causal", "bool", "false"), ""),
	      0, 4.0 * 2 * 4 * 16 * 32 * 8, (1024 + 2048 + 2048 + 1024) * 2.0);
	/* causal with Lq == Lk: half */
	check("_scaled_dot_product_flash_attention causal",
	      E("aten::_scaled_dot_product_flash_attention",
		A("query", "Tensor", T("[1,2,8,4]", "c10::BFloat16")) "," A("key", "Tensor", T("[1,2,8,4]", "c10::BFloat16")) ","
		A("value", "Tensor", T("[1,2,8,4]", "c10::BFloat16")) "," A("dropout_p", "float", "0.0") "," A("is_causal", "bool", "true"), ""),
	      0, 4.0 * 1 * 2 * 8 * 8 * 4 / 2, NAN);
	/* _flash_attention_forward is [B, L, H, D] and schemaless with torch 1.13 */
	check("_flash_attention_forward (BSHD, schemaless)",
	      E_SCHEMALESS("aten::_flash_attention_forward",
			   A("arg0", "Tensor", T("[4,197,12,64]", "c10::BFloat16")) "," A("arg1", "Tensor", T("[4,197,12,64]", "c10::BFloat16")) ","
			   A("arg2", "Tensor", T("[4,197,12,64]", "c10::BFloat16")) "," A("arg3", "None", "null") ","
			   A("arg4", "None", "null") "," A("arg5", "int", "197") "," A("arg6", "int", "197") ","
			   A("arg7", "float", "0.0") "," A("arg8", "bool", "false")),
	      0, 4.0 * 4 * 12 * 197 * 197 * 64, 4 * 605184 * 2.0);
}

static void test_elementwise(void)
{
	/* [4,1,3] + [5,1] broadcast to [4,5,3]: 60 FLOPs; bytes (12 + 5 + 60) * 2 */
	check("add broadcast",
	      E("aten::add", A("self", "Tensor", T("[4,1,3]", "c10::BFloat16")) "," A("other", "Tensor", T("[5,1]", "c10::BFloat16")),
		A("alpha", "Scalar", "1")),
	      0, 60, (12 + 5 + 60) * 2.0);
	/* in place: the output is self, read and written */
	check("mul_ in place",
	      E("aten::mul_", A("self", "Tensor(a!)", T("[4,5,3]", "float")) "," A("other", "Tensor", T("[]", "float")), ""),
	      0, 60, (60 + 1 + 60) * 4.0);
	check("gelu", E("aten::gelu", A("self", "Tensor", T("[10,10]", "c10::Half")), ""), 0, 100, 400);
	check("eq gives bool", E("aten::eq", A("self", "Tensor", T("[10]", "long int")) "," A("other", "Tensor", T("[10]", "long int")), ""),
	      0, 10, 170);
	/* copy_: self is only written */
	check("copy_", E("aten::copy_", A("self", "Tensor(a!)", T("[8]", "float")) "," A("src", "Tensor", T("[8]", "c10::Half")), ""),
	      0, 0, 48);
	/* out=: the output is the argument, written not read */
	check("add.out",
	      E("aten::add", A("self", "Tensor", T("[6]", "float")) "," A("other", "Tensor", T("[6]", "float")),
		A("alpha", "Scalar", "1") "," A("out", "Tensor(a!)", T("[6]", "float"))),
	      0, 6, 72);
	check("softmax", E("aten::_softmax", A("self", "Tensor", T("[4,16]", "float")) "," A("dim", "int", "-1") "," A("half_to_float", "bool", "false"), ""),
	      0, 5 * 64, 512);
	check("native_layer_norm",
	      E("aten::native_layer_norm",
		A("input", "Tensor", T("[4,16]", "float")) "," A("normalized_shape", "SymInt[]", "[16]") ","
		A("weight", "Tensor?", T("[16]", "float")) "," A("bias", "Tensor?", T("[16]", "float")) "," A("eps", "float", "1e-05"), ""),
	      0, 8 * 64, (64 + 32 + 64) * 4.0);
	/* sum over dim 1 of [4,5,6]: 120 FLOPs, a [4,1,6] output */
	check("sum.dim_IntList",
	      E("aten::sum", A("self", "Tensor", T("[4,5,6]", "float")) "," A("dim", "int[1]?", "[1]") "," A("keepdim", "bool", "true"),
		A("dtype", "ScalarType?", "null")),
	      0, 120, (120 + 24) * 4.0);
	/* a copy into one tensor: every input read, as much written */
	check("cat", E("aten::cat", A("tensors", "Tensor[]", "[" T("[2,3]", "float") "," T("[4,3]", "float") "]") "," A("dim", "int", "0"), ""),
	      0, 0, (6 + 12) * 2 * 4.0);
	check("mean of everything", E("aten::mean", A("self", "Tensor", T("[4,5,6]", "float")), A("dtype", "ScalarType?", "null")), 0, 120,
	      121 * 4.0);
}

static void test_errors(void)
{
	double f = 0, b = 0;

	/* unknown op: no FLOPs; bytes estimated as inputs + the largest again */
	check("unknown op",
	      E("aten::index_select", A("self", "Tensor", T("[100,8]", "float")) "," A("dim", "int", "0") "," A("index", "Tensor", T("[10]", "long int")), ""),
	      -ENOTSUP, NAN, 3200 + 80 + 3200.0);
	count(E("vllm::moe_forward", A("arg0", "Tensor", T("[2]", "float")), ""), &f, &b);
	ok(isnan(f), "-ENOTSUP leaves FLOPs NAN");
	/* older profilers record no TensorList shapes: nothing to count */
	ok(count(E_SCHEMALESS("aten::cat", A("arg0", "unknown", "null") "," A("arg1", "int", "0")), &f, &b) == -ENOTSUP &&
		   isnan(f) && isnan(b),
	   "cat without recorded shapes: -ENOTSUP, bytes unknown");
	check("no replay_ir", "{\"op_name\":\"aten::mm\"}", -EINVAL, NAN, NAN);
	check("negative size", E("aten::gelu", A("self", "Tensor", T("[-1,4]", "float")), ""), -EINVAL, NAN, NAN);
	/* fuzz_ir: 1e400 parses as infinity; sizes each finite can overflow together */
	check("infinite size", E("aten::gelu", A("self", "Tensor", T("[1e400]", "float")), ""), -EINVAL, NAN, NAN);
	check("sizes whose product overflows", E("aten::gelu", A("self", "Tensor", T("[1e200,1e200]", "float")), ""),
	      -EINVAL, NAN, NAN);
	check("infinite size in a tensor list",
	      E("aten::_foreach_add_",
		A("self", "Tensor[]", "[" T("[4]", "float") "," T("[1e400]", "float") "]") "," A("other", "Scalar",
												 "1"),
		""),
	      -EINVAL, NAN, NAN);
	check("tensor without dtype", E("aten::gelu", A("self", "Tensor", "{\"shape\":[4]}"), ""), -EINVAL, NAN, NAN);
	count(E("aten::gelu", A("self", "Tensor", T("[4]", "c10::Mystery")), ""), &f, &b);
	ok(f == 4 && isnan(b), "a dtype of unknown size: FLOPs known, bytes NAN");
	ok(tl_ir_flops(NULL, NULL, NULL) == -EINVAL, "NULL entry and outputs");
}

/* uid 48 of the bert trace: aten::addmm, bias [512] + [141,512] x [512,512] bf16. */
static void test_real_trace(void)
{
	const char *shared = getenv("TLREPLAY_SHARED");
	char path[4096];
	struct tl_schema_db *db = NULL;
	struct tl_trace *tr = NULL;
	struct stat st;
	cJSON *e = NULL;
	double f, b;

	if (!shared || !*shared)
		shared = "../shared";
	snprintf(path, sizeof(path), "%s/traces/TraceLens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz",
		 shared);
	if (stat(path, &st)) {
		skip("../shared/traces absent");
		skip("../shared/traces absent");
		skip("../shared/traces absent");
		return;
	}
	if (tl_schema_db_load("core/replay/schemas/torch-1.13.json.gz", &db) || tl_trace_open(path, NULL, &tr) ||
	    tl_ir_entry(tr, 48, &(struct tl_ir_opts){ .sz = sizeof(struct tl_ir_opts), .db = db }, &e)) {
		ok(0, "IR entry of uid 48: %s", tl_last_error());
		ok(0, "(not counted)");
		ok(0, "(not counted)");
		goto out;
	}
	if (!ok(tl_ir_flops(e, &f, &b) == 0, "bert uid 48: counted"))
		diag("%s", tl_last_error());
	ok(f == 2.0 * 141 * 512 * 512 + 141 * 512,
	   "bert uid 48 addmm: 2*141*512*512 + 141*512 (bias add) FLOPs, got %.0f", f);
	ok(b == (512 + 141 * 512 + 512 * 512 + 141 * 512) * 2.0, "bert uid 48 addmm: bytes of bias, mat1, mat2, output (bf16), got %.0f",
	   b);
out:
	cJSON_Delete(e);
	tl_trace_close(tr);
	tl_schema_db_free(db);
}

int main(void)
{
	test_gemm();
	test_conv();
	test_attention();
	test_elementwise();
	test_errors();
	test_real_trace();
	return done_testing();
}
