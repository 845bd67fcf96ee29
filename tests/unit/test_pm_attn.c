/* SPDX-License-Identifier: MIT */
/* The attention perf models (core/src/perfmodel/pm_sdpa*.c) on hand-built calls:
 * TraceLens's numbers for a few shapes, and a one-line -EINVAL (never a
 * crash) for args they cannot read. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfmodel/perfmodel_internal.h"
#include "tap.h"

static const struct pm_class *cls(const char *op)
{
	const struct pm_class *c = pm_class_of(op);

	if (!c)
		diag("no class for %s", op);
	return c;
}

/* run op's model on args (JSON text) with an optional annotation */
static int run(const char *op, const char *args, const char *ann, struct pm_out *out)
{
	const struct pm_class *c = cls(op);
	struct pm_call call;
	int err;

	memset(&call, 0, sizeof(call));
	call.name = op;
	call.args = args ? cJSON_Parse(args) : NULL;
	call.annotation = ann;
	pm_out_init(out);
	err = c ? c->model(&call, out) : -ENOENT;
	cJSON_Delete((cJSON *)call.args);
	return err;
}

static const char *param(const struct pm_out *o, const char *name, char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < o->nparams; i++)
		if (!strcmp(o->param_names[i], name))
			return tl_cell_text(&o->params[i], buf, n);
	return "(absent)";
}

static int close_to(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

static int one_line_note(const struct pm_out *o)
{
	return o->note[0] && !strchr(o->note, '\n');
}

#define BERT_ARGS                                                                             \
	"{\"Input Dims\": [[1, 8, 141, 64], [1, 8, 141, 64], [1, 8, 141, 64], [], [], [], []],"  \
	" \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\","  \
	" \"Scalar\", \"Scalar\", \"Scalar\"],"                                                   \
	" \"Concrete Inputs\": [\"\", \"\", \"\", \"0.\", \"False\", \"False\", \"0.125\"]}"

int main(void)
{
	static const char *const bad_args[] = {
		NULL, "{}", "{\"Input Dims\": 5}", "{\"Input Dims\": [[1], [2], \"x\"]}",
		"{\"Input Dims\": [[1,2,3,4,5], [], [], [], [], [], [], [], [], [], [], []],"
		" \"Input type\": [7], \"Concrete Inputs\": [1, 2, 3]}",
		"{\"Input Dims\": [[1.5, 2, 3, 4], [1, 2, 3, 4], [1, 2, 3, 4]], \"Input type\": [],"
		" \"Concrete Inputs\": []}",
	};
	const struct pm_class *c;
	struct pm_out o;
	struct pm_chunk st;
	char buf[256];
	size_t k;
	int err, all;

	/* aten::_scaled_dot_product_flash_attention, the bert row of the golden
	 * SDPA_fwd sheets */
	err = run("aten::_scaled_dot_product_flash_attention", BERT_ARGS, NULL, &o);
	ok(err == 0 && close_to(o.gflops, 0.040716288) && close_to(o.bytes / 1048576.0, 0.55078125),
	   "aten flash: GFLOPS %g, MB %g (rc %d %s)", o.gflops, o.bytes / 1048576.0, err, o.note);
	ok(!strcmp(o.compute_spec, "matrix_bf16") && o.nparams == 11 &&
	   !strcmp(param(&o, "dtype_A_B", buf, sizeof(buf)), "('c10::BFloat16', 'c10::BFloat16')"),
	   "aten flash: matrix_bf16, 11 params, dtype_A_B %s", param(&o, "dtype_A_B", buf, sizeof(buf)));
	ok(!strcmp(param(&o, "causal", buf, sizeof(buf)), "False") &&
	   !strcmp(param(&o, "dropout", buf, sizeof(buf)), "0.0"), "aten flash: causal False, dropout 0.0");

	/* causal with N_Q != N_KV: TraceLens raises, the row has no model */
	err = run("aten::_scaled_dot_product_flash_attention",
		  "{\"Input Dims\": [[1, 8, 16, 64], [1, 8, 32, 64], [1, 8, 32, 64]],"
		  " \"Input type\": [\"float\", \"float\"],"
		  " \"Concrete Inputs\": [\"\", \"\", \"\", \"0.\", \"True\", \"False\"]}", NULL, &o);
	ok(err == -EINVAL && one_line_note(&o), "causal, N_Q != N_KV: -EINVAL (%s)", o.note);
	/* q, k, v batches differ (extract_sdpa_cfg) */
	err = run("aten::_scaled_dot_product_efficient_attention",
		  "{\"Input Dims\": [[2, 8, 16, 64], [1, 8, 16, 64], [1, 8, 16, 64]],"
		  " \"Input type\": [\"float\"], \"Concrete Inputs\": [\"\",\"\",\"\",\"\",\"\",\"0.\",\"False\"]}",
		  NULL, &o);
	ok(err == -EINVAL && one_line_note(&o), "batch mismatch: -EINVAL (%s)", o.note);

	/* every class, on args it cannot read: -EINVAL and a one-line note */
	all = 1;
	for (c = pm_sdpa_classes; c->name; c++)
		for (k = 0; k < TL_ARRAY_SIZE(bad_args); k++) {
			err = run(c->ops[0], bad_args[k], "not an annotation", &o);
			if (err != -EINVAL || !one_line_note(&o)) {
				diag("%s on %s: rc %d, note '%s'", c->name, bad_args[k] ? bad_args[k] : "NULL",
				     err, o.note);
				all = 0;
			}
		}
	ok(all, "bad args: every class says -EINVAL in one line");

	/* flash_attn::_flash_attn_backward: backward FLOPs, bytes at dtype size */
	err = run("flash_attn::_flash_attn_backward",
		  "{\"Input Dims\": [[2, 16, 4, 32], [2, 16, 4, 32], [2, 16, 2, 32], [2, 16, 2, 32]],"
		  " \"Input type\": [\"float\", \"float\"], \"Input Strides\": [[1], [2048, 128, 32, 1],"
		  " [1024, 64, 32, 1], [1024, 64, 32, 1]], \"Concrete Inputs\": []}", NULL, &o);
	/* B 2, N 16, H_Q 4, H_KV 2, d 32, causal (default True): recompute + 4
	 * products of 2*B*H*N*N*d each = 5 * 2*2*4*16*16*32, plus the two GQA
	 * reductions 2 * B*N*d*(H_Q/H_KV - 1), halved */
	ok(err == 0 && close_to(o.gflops * 1e9, (5.0 * 2 * 2 * 4 * 16 * 16 * 32 + 2 * 2 * 16 * 32) / 2) &&
	   close_to(o.bytes, 4.0 * (2 * (2 * 16 * 4 * 32 + 2 * 16 * 2 * 32 * 2) + 2 * 16 * 4 * 32)) &&
	   !strcmp(param(&o, "k_stride", buf, sizeof(buf)), "(1024, 64, 32, 1)") &&
	   !strcmp(o.compute_spec, "matrix_fp32"),
	   "flash_attn backward: GFLOPS %g, bytes %g, k_stride %s (rc %d %s)", o.gflops, o.bytes,
	   param(&o, "k_stride", buf, sizeof(buf)), err, o.note);
	ok(!strcmp(cls("flash_attn::_flash_attn_backward")->sheet, "SDPA_fwd") &&
	   !strcmp(cls("flash_attn::_flash_attn_varlen_backward")->sheet, "SDPA_bwd"),
	   "sheets: the flash-attn backward rows in SDPA_fwd, varlen backward in SDPA_bwd");

	/* EvoformerAttention: N_seq folds into the batch, dtype_A_B is a list */
	err = run("EvoformerAttention", "{\"Input Dims\": [[2, 3, 10, 4, 8]], \"Input type\": [\"float\"]}",
		  NULL, &o);
	ok(err == 0 && !strcmp(param(&o, "B", buf, sizeof(buf)), "6") &&
	   !strcmp(param(&o, "dtype_A_B", buf, sizeof(buf)), "['float']") &&
	   close_to(o.gflops * 1e9, 6.0 * 4 * (2 * 10 * 10 * 8) * 2),
	   "evoformer: B 6, dtype_A_B ['float'] (rc %d %s)", err, o.note);

	/* the backward row of a forward op (SDPA_bwd through bwd_events) */
	{
		struct pm_call call;

		memset(&call, 0, sizeof(call));
		call.name = "aten::_scaled_dot_product_flash_attention";
		call.args = cJSON_Parse(BERT_ARGS);
		pm_out_init(&o);
		err = pm_sdpa_bwd(cls(call.name), &call, &o);
		ok(err == 0 && close_to(o.gflops * 1e9, 5.0 * 2 * 8 * 141 * 141 * 64) &&
		   close_to(o.bytes, 2.0 * 7 * 141 * 8 * 64),
		   "pm_sdpa_bwd: backward GFLOPS %g (rc %d %s)", o.gflops, err, o.note);
		pm_out_init(&o);
		ok(pm_sdpa_bwd(cls("sglang::store_cache"), &call, &o) == -ENOENT,
		   "pm_sdpa_bwd: no backward for a non-SDPA class");
		cJSON_Delete((cJSON *)call.args);
	}

	/* iteration annotations (TraceUtils' IterationAnnotation.chunk_stats) */
	ok(!pm_chunk_stats("execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)",
			   &st) && st.g_sq == 32 && st.g_sk == 55086 && st.g_sqsk == 55086 && st.c_sq == 0,
	   "vLLM detailed annotation");
	ok(!pm_chunk_stats("step[MIXED bs=2 c=1 g=1 c_sq=5 c_sk=8 c_sqsq=25 c_sqsk=40 g_sq=1 g_sk=12 "
			   "g_sqsq=1 g_sqsk=12]", &st) && st.c_sq == 5 && st.c_sqsk == 40 && st.g_sk == 12,
	   "SGLang detailed annotation");
	ok(!pm_chunk_stats("decode[bs=32 tok=128 d=32 spec=3 sqsq=512 sqsk=262144 sk=65536]", &st) &&
	   st.g_sq == 128 && st.g_sk == 65536 && st.g_sqsq == 512 && st.g_sqsk == 262144 && st.c_sq == 0,
	   "ATOM detailed annotation");
	ok(pm_chunk_stats("execute_context_2(14721)_generation_0(0)", &st) == -EINVAL &&
	   pm_chunk_stats("prefill[bs=2 tok=14721 ctx=[7803, 6918]]", &st) == -EINVAL &&
	   pm_chunk_stats("step[DECODE bs=64]", &st) == -EINVAL && pm_chunk_stats(NULL, &st) == -EINVAL,
	   "native annotations carry no sq/sk: -EINVAL");

	/* vllm::unified_attention_with_output, the vllm_decode_full golden row */
	{
		static const char args[] =
			"{\"Input Dims\": [[32, 64, 64], [32, 8, 64], [32, 8, 64], [32, 64, 64], [], [], [], [0]],"
			" \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\","
			" \"c10::BFloat16\", \"\", \"\", \"\", \"c10::BFloat16\"]}";

		err = run("vllm::unified_attention_with_output", args,
			  "execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)", &o);
		ok(err == 0 && close_to(o.gflops, 0.902529024) && close_to(o.bytes / 1048576.0, 108.08984375) &&
		   o.nparams == 22 && !strcmp(o.compute_spec, "matrix_bf16"),
		   "vLLM attention: GFLOPS %g, MB %g, %zu params (rc %d %s)", o.gflops,
		   o.bytes / 1048576.0, o.nparams, err, o.note);
		err = run("vllm::unified_attention_with_output", args, NULL, &o);
		ok(err == -EINVAL && one_line_note(&o), "vLLM attention without annotation: -EINVAL (%s)",
		   o.note);
	}

	/* sglang::store_cache shares the InferenceAttention sheet */
	err = run("sglang::store_cache",
		  "{\"Input Dims\": [[32, 1024], [32, 1024], [835874, 1024], [835874, 1024], [32], [], []],"
		  " \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"]}", NULL, &o);
	ok(err == 0 && o.gflops == 0 && o.bytes == 262144 && !strcmp(o.compute_spec, "vector_bf16") &&
	   !strcmp(param(&o, "op_shape", buf, sizeof(buf)), "(32, 1024)") &&
	   !strcmp(cls("sglang::store_cache")->sheet, "InferenceAttention_fwd"),
	   "store_cache: 0.25 MB, vector_bf16, op_shape (32, 1024) (rc %d %s)", err, o.note);

	/* Python reprs */
	ok(!pm_py_str_repr("it's", buf, sizeof(buf)) && !strcmp(buf, "\"it's\""), "repr of it's: %s", buf);
	{
		const char *items[1] = { "float" };

		ok(!pm_py_tuple_repr(items, 1, buf, sizeof(buf)) && !strcmp(buf, "('float',)"),
		   "one-item tuple: %s", buf);
	}
	ok(pm_py_str_repr("abcdef", buf, 4) == -ENOSPC, "a repr too long for its buffer: -ENOSPC");
	return done_testing();
}
