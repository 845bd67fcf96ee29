/* SPDX-License-Identifier: MIT */
/* GPU peaks (tlreplay/gpu.h): the roof of hand-computed rows, Compute Spec
 * parsing and fallbacks, looking up the deviceProperties of the shared
 * TraceLens traces (as recorded here, and read from the traces themselves
 * when TLREPLAY_SHARED has them), and --gpu-spec files, good and bad. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tlreplay/gpu.h>
#include <tlreplay/trace.h>

#include "tap.h"

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

static const struct tl_gpu *named(const char *name)
{
	size_t i;

	for (i = 0; i < tl_gpu_set_count(NULL); i++)
		if (!strcmp(tl_gpu_set_at(NULL, i)->name, name))
			return tl_gpu_set_at(NULL, i);
	return NULL;
}

/* ------------------------------------------------------------------ the roof */

static void test_roof(void)
{
	const struct tl_gpu *h = named("H100 SXM"), *a = named("A100 SXM 80GB"), *m = named("MI300X");
	struct tl_gpu_roof r;

	if (!ok(h && a && m, "H100 SXM, A100 SXM 80GB and MI300X are in the table"))
		return;
	/* A 4096^3 bf16 GEMM: 2*4096^3 = 137438953472 FLOPs, 3 * 4096^2 * 2 =
	 * 100663296 bytes, intensity 1365.33 > ridge 989.4e12/3352e9 = 295.17:
	 * compute-bound, roof 989.4 TFLOP/s; in 200 us it does 687.19 TFLOP/s,
	 * 69.46% of it. */
	ok(!tl_gpu_roof(h, "matrix_bf16", 137438953472.0, 100663296.0, 200, &r), "roof of a bf16 GEMM");
	ok(near(r.intensity, 137438953472.0 / 100663296.0) && near(r.ridge, 989.4e12 / 3352e9),
	   "intensity %.2f, ridge %.2f FLOP/B", r.intensity, r.ridge);
	ok(r.bound == TL_BOUND_COMPUTE && near(r.roof, 989.4e12) && near(r.peak_flops, 989.4e12),
	   "compute-bound under 989.4 TFLOP/s (%s, %g)", tl_gpu_bound_name(r.bound), r.roof);
	ok(near(r.flops_per_s, 137438953472.0 / 200e-6) && near(r.pct_of_roof, 100 * 687.19476736e12 / 989.4e12),
	   "687.19 TFLOP/s is %.4f%% of the roof", r.pct_of_roof);
	ok(r.unit == TL_GPU_MATRIX && r.dtype == TL_GPU_BF16 && !r.flags, "matrix bf16 peak, no fallback");
	/* An fp32 add of 2^24 elements: 2^24 FLOPs, 3 * 4 * 2^24 bytes,
	 * intensity 1/12, memory roof 3352e9/12 = 279.33 GFLOP/s; in 80 us it
	 * moves 2516.58 GB/s = 75.08% of 3352 GB/s, which is its % of roof. */
	ok(!tl_gpu_roof(h, "vector_fp32", 16777216.0, 201326592.0, 80, &r) && r.bound == TL_BOUND_MEMORY,
	   "an fp32 add is memory-bound");
	ok(near(r.roof, 3352e9 / 12) && near(r.peak_flops, 66.9e12), "roof = bandwidth x intensity = %g", r.roof);
	ok(near(r.pct_of_roof, 100 * (201326592.0 / 80e-6) / 3352e9) && near(r.pct_of_roof, r.pct_of_bw),
	   "memory-bound: %% of roof %.4f = %% of bandwidth %.4f", r.pct_of_roof, r.pct_of_bw);
	/* exactly on the ridge: compute-bound (the roofs are equal) */
	ok(!tl_gpu_roof(h, "matrix_bf16", 989.4e12 / 3352e9 * 1e9, 1e9, 1e6, &r) && r.bound == TL_BOUND_COMPUTE &&
		   near(r.roof, 989.4e12),
	   "on the ridge point: compute-bound");
	/* a copy: no FLOPs, memory-bound, judged on bandwidth */
	ok(!tl_gpu_roof(m, "vector_bf16", 0, 5.3e9, 1e3, &r) && r.bound == TL_BOUND_MEMORY && near(r.pct_of_roof, 100) &&
		   r.intensity == 0 && (r.flags & TL_ROOF_NO_FLOPS),
	   "a copy at 5.3 TB/s on MI300X: 100%% of roof, memory-bound");
	/* bytes unknown: the compute peak is the roof, bound unknown */
	ok(!tl_gpu_roof(m, "matrix_fp8", 2614.9e12 * 1e-3, NAN, 2e3, &r) && r.bound == TL_BOUND_UNKNOWN &&
		   near(r.pct_of_roof, 50) && isnan(r.intensity) && (r.flags & TL_ROOF_NO_BYTES),
	   "bytes unknown: %% of the fp8 peak (%.2f), bound unknown", r.pct_of_roof);
	/* a spec the table has no type for: no compute roof, bandwidth still */
	ok(!tl_gpu_roof(h, "vector_norm", 1e9, 1e9, 1e3, &r) && (r.flags & TL_ROOF_SPEC_UNKNOWN) && isnan(r.roof) &&
		   isnan(r.pct_of_roof) && r.bound == TL_BOUND_UNKNOWN && near(r.pct_of_bw, 100 * 1e12 / 3352e9),
	   "vector_norm: no roof, %% of bandwidth %.2f", r.pct_of_bw);
	ok(!tl_gpu_roof(h, NULL, 1e9, 1e9, 1e3, &r) && (r.flags & TL_ROOF_SPEC_UNKNOWN), "no spec: no compute roof");
	/* fallbacks */
	ok(!tl_gpu_roof(h, "matrix_fp32", 1e12, 1e9, 1e5, &r) && (r.flags & TL_ROOF_FALLBACK) &&
		   r.unit == TL_GPU_VECTOR && r.dtype == TL_GPU_FP32 && near(r.peak_flops, 66.9e12),
	   "matrix_fp32 on H100: the CUDA cores' 66.9 TFLOP/s (TF32 off)");
	ok(!tl_gpu_roof(m, "matrix_fp32", 1e12, 1e9, 1e5, &r) && !r.flags && near(r.peak_flops, 163.4e12),
	   "matrix_fp32 on MI300X: its MFMA fp32 peak");
	ok(!tl_gpu_roof(a, "matrix_fp8", 1e12, 1e9, 1e5, &r) && (r.flags & TL_ROOF_FALLBACK) &&
		   r.dtype == TL_GPU_FP16 && near(r.peak_flops, 312e12),
	   "matrix_fp8 on A100 (no fp8): the fp16 tensor peak");
	ok(!tl_gpu_roof(h, "matrix_fp4", 1e12, 1e9, 1e5, &r) && r.dtype == TL_GPU_FP8 && near(r.peak_flops, 1978.9e12),
	   "matrix_fp4 on H100: the fp8 peak");
	ok(!tl_gpu_roof(m, "vector_bf16", 1e12, 1e9, 1e5, &r) && r.dtype == TL_GPU_FP32 && r.unit == TL_GPU_VECTOR &&
		   near(r.peak_flops, 163.4e12),
	   "vector_bf16 on MI300X (no vector bf16 figure): vector fp32");
	ok(!tl_gpu_roof(h, "vector_bfloat16", 1e12, 1e9, 1e5, &r) && !r.flags && near(r.peak_flops, 133.8e12),
	   "vector_bfloat16 (torch's spelling) on H100: its vector bf16 peak");
	ok(!tl_gpu_roof(named("L40S"), "matrix_fp64", 1e12, 1e9, 1e5, &r) && r.unit == TL_GPU_VECTOR &&
		   near(r.peak_flops, 1.431e12),
	   "matrix_fp64 on L40S: vector fp64");
	ok(tl_gpu_roof(h, "matrix_bf16", 1, 1, 0, &r) == -EINVAL && tl_gpu_roof(NULL, "matrix_bf16", 1, 1, 1, &r) == -EINVAL &&
		   tl_gpu_roof(h, "matrix_bf16", 1, 1, NAN, &r) == -EINVAL,
	   "no time, no device: -EINVAL (%s)", tl_last_error());
}

static void test_specs(void)
{
	enum tl_gpu_unit u;
	enum tl_gpu_dtype d;

	ok(!tl_gpu_parse_spec("matrix_bf16", &u, &d) && u == TL_GPU_MATRIX && d == TL_GPU_BF16, "matrix_bf16");
	ok(!tl_gpu_parse_spec("vector_float", &u, &d) && u == TL_GPU_VECTOR && d == TL_GPU_FP32, "vector_float");
	ok(!tl_gpu_parse_spec("matrix_float8_e4m3fn", &u, &d) && d == TL_GPU_FP8, "matrix_float8_e4m3fn");
	ok(!tl_gpu_parse_spec("MATRIX_FP4", &u, &d) && d == TL_GPU_FP4, "case ignored");
	ok(tl_gpu_parse_spec("matrix_rows", &u, &d) == -EINVAL && u == TL_GPU_UNIT_UNKNOWN && d == TL_GPU_DT_UNKNOWN,
	   "matrix_rows: unknown");
	ok(tl_gpu_parse_spec("scalar_fp32", &u, &d) == -EINVAL && tl_gpu_parse_spec("", &u, &d) == -EINVAL,
	   "other units and empty: unknown");
	ok(!strcmp(tl_gpu_dtype_name(TL_GPU_TF32), "tf32") && !strcmp(tl_gpu_dtype_name(TL_GPU_DT_UNKNOWN), "?"),
	   "dtype names");
}

/* ------------------------------------------------------------------ lookup */

/* deviceProperties[0] of every trace under traces/TraceLens/tests/traces,
 * as read with Python (name, totalGlobalMem, numSms, computeMajor.Minor). */
static const struct {
	const char *trace, *name;
	uint64_t mem;
	int sms, ma, mi;
	const char *want;
} shared_props[] = {
	{ "b200/eager_trace", "NVIDIA B200", 191503138816ULL, 148, 10, 0, "B200" },
	{ "h100/*", "NVIDIA H100 80GB HBM3", 85018279936ULL, 132, 9, 0, "H100 SXM" },
	{ "inference/sglang_*, xdit_sd_3.5, mi300/resnet", "AMD Instinct MI300X", 206141652992ULL, 304, 9, 4, "MI300X" },
	{ "inference/vllm_* (no name)", "", 206141652992ULL, 304, 9, 4, "MI300X" },
	{ "mi210/gpu_only_trace", "AMD Instinct MI210", 68702699520ULL, 104, 9, 0, "MI210" },
	{ "mi300/Qwen, bert", "AMD Instinct MI300X VF", 205571227648ULL, 304, 9, 4, "MI300X" },
};

/* Names as drivers write them, with the memory and SM count they report. */
static const struct {
	const char *name;
	double gib;
	int sms;
	const char *want;
} names[] = {
	{ "NVIDIA H100 PCIe", 79.6, 114, "H100 PCIe" },
	{ "NVIDIA H100", 79.6, 114, "H100 PCIe" },	/* no variant in the name: the SM count says */
	{ "NVIDIA H100", 79.2, 132, "H100 SXM" },
	{ "NVIDIA H100 NVL", 93.6, 132, "H100 NVL" },
	{ "NVIDIA H100 SXM5 80GB", 0, 0, "H100 SXM" },
	{ "NVIDIA H200", 140.4, 132, "H200" },
	{ "NVIDIA H200 NVL", 140.4, 132, "H200 NVL" },
	{ "NVIDIA GB200", 185.0, 152, "GB200" },
	{ "NVIDIA A100-SXM4-80GB", 79.2, 108, "A100 SXM 80GB" },
	{ "NVIDIA A100-SXM4-40GB", 39.4, 108, "A100 SXM 40GB" },
	{ "NVIDIA A100 80GB PCIe", 79.2, 108, "A100 PCIe 80GB" },
	{ "NVIDIA A100-PCIE-40GB", 39.4, 108, "A100 PCIe 40GB" },
	{ "NVIDIA A100", 39.4, 108, "A100 SXM 40GB" },	/* memory tells 40 from 80 GB */
	{ "NVIDIA L40S", 44.5, 142, "L40S" },
	{ "AMD Instinct MI325X", 256, 304, "MI325X" },
	{ "AMD Instinct MI355X", 288, 256, "MI355X" },
	{ "AMD Instinct MI250X/MI250", 64, 110, "MI250X" },
	{ "AMD Instinct MI250X/MI250", 64, 104, "MI250" },
	{ "AMD Instinct MI250X", 64, 110, "MI250X" },
	{ "AMD Instinct MI210", 64, 104, "MI210" },
};

static void test_lookup(void)
{
	const struct tl_gpu *g;
	size_t i;

	for (i = 0; i < sizeof(shared_props) / sizeof(shared_props[0]); i++) {
		g = tl_gpu_find(NULL, shared_props[i].name, shared_props[i].mem, shared_props[i].sms, shared_props[i].ma,
				shared_props[i].mi);
		ok(g && !strcmp(g->name, shared_props[i].want), "%s: '%s' is %s (%s)", shared_props[i].trace,
		   shared_props[i].name, g ? g->name : "nothing", g ? "" : tl_last_error());
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		g = tl_gpu_find(NULL, names[i].name, (uint64_t)(names[i].gib * 1073741824.0), names[i].sms, -1, -1);
		ok(g && !strcmp(g->name, names[i].want), "'%s' (%.1f GiB, %d SMs) is %s", names[i].name, names[i].gib,
		   names[i].sms, g ? g->name : "nothing");
	}
	errno = 0;
	ok(!tl_gpu_find(NULL, "NVIDIA GeForce RTX 4090", 0, 0, 8, 9) && errno == ENOENT &&
		   strstr(tl_last_error(), "RTX 4090") && strstr(tl_last_error(), "--gpu-spec"),
	   "an unknown part: ENOENT (%s)", tl_last_error());
	ok(!tl_gpu_find(NULL, "NVIDIA L40", 0, 0, 8, 9), "L40 is not L40S");
	ok(!tl_gpu_find(NULL, "AMD Instinct MI300A", 0, 0, 9, 4), "MI300A is not MI300X");
	ok(!tl_gpu_find(NULL, "", 68702699520ULL, 104, 9, 0), "no name, 104 CUs, 64 GB: MI210 or MI250, refused");
	for (i = 0; i < tl_gpu_set_count(NULL); i++) {
		g = tl_gpu_set_at(NULL, i);
		if (!(g->mem_bw > 0) || !g->source || !*g->source || !(g->peak[TL_GPU_VECTOR][TL_GPU_FP32] > 0))
			break;
	}
	ok(i == tl_gpu_set_count(NULL), "every device has a bandwidth, vector fp32 and a source (%zu devices)", i);
}

/* The traces themselves, where they are. */
static void test_traces(void)
{
	static const struct {
		const char *path, *want;
	} tr[] = {
		{ "b200/eager_trace.json.gz", "B200" },
		{ "h100/gaunernst_bert-small-uncased__1016001.json.gz", "H100 SXM" },
		{ "mi300/gaunernst_bert-small-uncased__1016001.json.gz", "MI300X" },
		{ "mi210/gpu_only_trace/gpu_only_trace.json.gz", "MI210" },
		{ "inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz", "MI300X" },
		{ "inference/vllm_decode_full/graph_execution.json.gz", "MI300X" },
	};
	const char *shared = getenv("TLREPLAY_SHARED");
	char path[4096];
	struct tl_trace *t;
	const struct tl_gpu *g;
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(tr) / sizeof(tr[0]); i++) {
		snprintf(path, sizeof(path), "%s/traces/TraceLens/tests/traces/%s", shared ? shared : "", tr[i].path);
		if (!shared || !*shared || stat(path, &st)) {
			skip("shared traces absent (TLREPLAY_SHARED)");
			continue;
		}
		if (tl_trace_open(path, NULL, &t)) {
			ok(0, "open %s: %s", tr[i].path, tl_last_error());
			continue;
		}
		g = tl_gpu_of_trace(NULL, t, -1);
		ok(g && !strcmp(g->name, tr[i].want), "%s: %s", tr[i].path, g ? g->name : tl_last_error());
		tl_trace_close(t);
	}
}

/* ------------------------------------------------------------------ spec files */

static char dir[] = "/tmp/test_gpu_peaks.XXXXXX";

static int load_text(struct tl_gpu_set *set, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	fclose(f);
	return tl_gpu_set_load(set, path);
}

static void test_spec_files(void)
{
	/* TraceLens's own arch file, as it ships */
	static const char tracelens_mi355x[] =
		"{\n    \"name\": \"MI355X\",\n    \"mem_bw_gbps\": 8000,\n    \"memory_gb\": 288,\n"
		"    \"max_achievable_tflops\": {\n        \"matrix_fp16\": 1518,\n        \"matrix_bf16\": 1613,\n"
		"        \"matrix_fp8\": 2905,\n        \"vector_fp32\": 157\n    }\n}\n";
	static const char two[] = "{\"devices\": [\n"
				  " {\"name\": \"RTX 4090\", \"match\": [\"GeForce RTX 4090\"], \"mem_bw_gbps\": 1008,\n"
				  "  \"peak_tflops\": {\"matrix_bf16\": 165.2, \"vector_fp32\": 82.6},\n"
				  "  \"source\": \"NVIDIA Ada GPU Architecture whitepaper (2022)\"},\n"
				  " {\"name\": \"h100-sxm\", \"peak_tflops\": {\"matrix_bf16\": 800}}\n]}\n";
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "{\"name\": \"X\", \"mem_bw_gbps\": 1, \"peak_tflops\": {\"matrix_bf16\": -1}}",
		  "bad.json: peak_tflops.matrix_bf16: expected a number >= 0" },
		{ "{\"name\": \"X\", \"mem_bw_gbps\": 1, \"peak_tflops\": {\"matrix_bf61\": 1}}",
		  "bad.json: peak_tflops.matrix_bf61: not a Compute Spec" },
		{ "{\"devices\": [{\"name\": \"X\", \"mem_bw_gbps\": 1}, {\"mem_bw_gbps\": 2}]}",
		  "bad.json: devices[1].name: missing" },
		{ "{\"devices\": [{\"name\": \"X\", \"mem_bw_gbps\": \"fast\"}]}",
		  "bad.json: devices[0].mem_bw_gbps: expected a number > 0" },
		{ "{\"name\": \"New GPU\", \"peak_tflops\": {\"matrix_bf16\": 1}}",
		  "bad.json: 'New GPU' is a new device: mem_bw_gbps is required" },
		{ "{\"name\": \"X\",\n \"mem_bw_gbps\": 1,,\n}", "bad.json: not JSON (error near line 2)" },
		{ "[1, 2]", "bad.json: expected an object" },
		{ "{\"devices\": {}}", "bad.json: devices: expected an array" },
		{ "{\"name\": \"X\", \"mem_bw_gbps\": 1, \"match\": \"X\"}", "bad.json: match: expected an array" },
	};
	struct tl_gpu_set *set = NULL;
	const struct tl_gpu *g;
	struct tl_gpu_roof r;
	char path[256];
	size_t i, n;
	int ret;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	if (!ok(!tl_gpu_set_new(&set), "a new set"))
		return;
	n = tl_gpu_set_count(set);
	ok(n == tl_gpu_set_count(NULL), "holds the built-in table (%zu devices)", n);
	ok(!load_text(set, "MI355X.json", tracelens_mi355x), "TraceLens's MI355X.json loads: %s", tl_last_error());
	g = tl_gpu_find(set, "AMD Instinct MI355X", 0, 0, 9, 5);
	ok(g && tl_gpu_set_count(set) == n && near(g->peak[TL_GPU_MATRIX][TL_GPU_BF16], 1613e12) &&
		   near(g->mem_bw, 8000e9) && near(g->peak[TL_GPU_MATRIX][TL_GPU_FP4], 10066.3e12),
	   "it overrides the numbers it gives and keeps the others");
	ok(g && strstr(g->source, "MI355X.json"), "its source names the file (%s)", g ? g->source : "");
	ok(!load_text(set, "two.json", two), "a file of two devices loads: %s", tl_last_error());
	g = tl_gpu_find(set, "NVIDIA GeForce RTX 4090", 0, 128, 8, 9);
	ok(g && !strcmp(g->name, "RTX 4090") && tl_gpu_set_count(set) == n + 1, "a new device is added and found");
	ok(g && !tl_gpu_roof(g, "matrix_bf16", 165.2e12 * 1e-3, 1e9, 1e3, &r) && near(r.pct_of_roof, 100),
	   "its roof is the file's");
	g = tl_gpu_find(set, "NVIDIA H100 80GB HBM3", 85018279936ULL, 132, 9, 0);
	ok(g && !strcmp(g->name, "H100 SXM") && near(g->peak[TL_GPU_MATRIX][TL_GPU_BF16], 800e12) &&
		   near(g->mem_bw, 3352e9),
	   "'h100-sxm' overrides H100 SXM (case and punctuation ignored), still found by its trace name");
	ok(!tl_gpu_find(set, "NVIDIA GeForce RTX 4080", 0, 0, 8, 9), "the new device's match is a whole-token one");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = load_text(set, "bad.json", bad[i].text);
		ok(ret == -EINVAL && strstr(tl_last_error(), bad[i].want) && !strchr(tl_last_error(), '\n'),
		   "bad file %zu: one line: %s", i, tl_last_error());
	}
	g = tl_gpu_find(set, "NVIDIA H100 80GB HBM3", 0, 0, 9, 0);
	ok(tl_gpu_set_count(set) == n + 1 && g && near(g->peak[TL_GPU_MATRIX][TL_GPU_BF16], 800e12),
	   "a bad file leaves the set as it was");
	snprintf(path, sizeof(path), "%s/none.json", dir);
	ok(tl_gpu_set_load(set, path) == -ENOENT && strstr(tl_last_error(), "none.json"),
	   "a missing file: -ENOENT naming it (%s)", tl_last_error());
	tl_gpu_set_free(set);
	tl_gpu_set_free(NULL);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path))
		diag("could not remove %s", dir);
}

int main(void)
{
	test_roof();
	test_specs();
	test_lookup();
	test_traces();
	test_spec_files();
	return done_testing();
}
