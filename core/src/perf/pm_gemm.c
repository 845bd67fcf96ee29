/* SPDX-License-Identifier: MIT */
/* perf: TraceLens's GEMM family (aten_mm, aten_addmm, aten_bmm): M, N, K,
 * bias, strides and dtypes of A and B read positionally from the call's
 * args; FLOPs 2MNK (+MN with a bias) and bytes A + B + out (+N bias) at
 * the bytes-per-element of A's dtype, as TraceLens's GEMM base class
 * counts them. Still to come: scaled_mm, baddbmm, the vLLM / TE / grouped
 * GEMM classes and the kernel-name "transpose" parameter. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "perf/perf_internal.h"

/* name2bpe of TraceLens's PerfModel/utils.py, matched case-blind like it;
 * 0 when the dtype is not listed (TraceLens then has no bytes). */
static int gemm_bpe(const char *dt)
{
	static const struct { const char *n; int b; } t[] = {
		{"double", 8}, {"long int", 8}, {"float", 4}, {"scalar", 4},
		{"int", 4}, {"c10::half", 2}, {"c10::bfloat16", 2},
		{"c10::float8_e4m3fnuz", 1}, {"c10::float8_e4m3fn", 1},
		{"c10::float8_e5m2", 1}, {"c10::float8_e8m0fnu", 1},
		{"unsigned char", 1}, {"signed char", 1}, {"fp8", 1},
	};
	for (size_t i = 0; dt && i < sizeof t / sizeof t[0]; i++)
		if (!strcasecmp(dt, t[i].n))
			return t[i].b;
	return 0;
}

/* torch_dtype_map of TraceLens's utils.py: the precision in Compute Spec. */
static const char *gemm_prec(const char *dt)
{
	static const struct { const char *n, *p; } t[] = {
		{"float", "fp32"}, {"double", "fp64"}, {"c10::half", "fp16"},
		{"c10::bfloat16", "bf16"}, {"c10::float8_e4m3fnuz", "fp8"},
		{"unsigned char", "fp8"}, {"fp8", "fp8"}, {"fp4", "fp4"},
		{"mxfp4", "fp4"}, {"c10::float4_e2m1fn_x2", "fp4"},
		{"c10::float8_e4m3fn", "fp8"},
	};
	for (size_t i = 0; dt && i < sizeof t / sizeof t[0]; i++)
		if (!strcasecmp(dt, t[i].n))
			return t[i].p;
	return NULL;
}

/* Python's repr of a tuple of ints: "(768, 1)", "(5,)", "()"; "None" when
 * the strides were not recorded. */
static void gemm_tuple(const cJSON *a, char *buf, size_t n)
{
	size_t k = 0, cnt = 0;
	const cJSON *e;

	if (!cJSON_IsArray(a)) {
		snprintf(buf, n, "None");
		return;
	}
	k += snprintf(buf + k, n - k, "(");
	cJSON_ArrayForEach(e, a) {
		if (k < n)
			k += snprintf(buf + k, n - k, "%s%.0f", cnt ? ", " : "", e->valuedouble);
		cnt++;
	}
	if (k < n)
		snprintf(buf + k, n - k, cnt == 1 ? ",)" : ")");
}

/* kernel_name_parser.is_rocm_gemm: "C" + 3 axis letters, "_A" + 3, "_B" + 3
 * anywhere in the name. */
static int gemm_is_rocm(const char *k)
{
	for (; *k; k++) {
		int ok = 1;

		for (int i = 0; ok && i < 14; i++) {
			char want = i == 0 ? 'C' : i == 4 || i == 9 ? '_' : i == 5 ? 'A' : i == 10 ? 'B' : 0;

			ok = want ? k[i] == want : k[i] >= 'a' && k[i] <= 'z';
		}
		if (ok)
			return 1;
	}
	return 0;
}

static const char *gemm_pybool(int v)
{
	return v < 0 ? "None" : v ? "True" : "False";
}

/* GEMM.__init__'s "transpose": (trans_a, trans_b) of the first kernel that
 * gemm_name_parser reads (Tensile's _Ailk_/_Alik_, _Bljk_/_Bjlk_ axis
 * orders; nvjet's last "_" field, "T" for transposed). 0 when no kernel
 * reads, and no transpose param is added. */
static int gemm_transpose(const struct pm_call *c, char *buf, size_t n)
{
	for (size_t i = 0; i < c->nkernels; i++) {
		const char *k = c->kernels[i];
		int ta = -1, tb = -1;

		if (gemm_is_rocm(k)) {
			if (strstr(k, "_Ailk_"))
				ta = 0;
			else if (strstr(k, "_Alik_"))
				ta = 1;
			if (strstr(k, "_Bljk_"))
				tb = 0;
			else if (strstr(k, "_Bjlk_"))
				tb = 1;
		} else if (!strncmp(k, "nvjet", 5)) {
			const char *u = strrchr(k, '_');

			u = u ? u + 1 : k;
			if (strlen(u) < 2)
				continue;
			ta = u[0] == 'T';
			tb = u[1] == 'T';
		} else {
			continue;
		}
		snprintf(buf, n, "(%s, %s)", gemm_pybool(ta), gemm_pybool(tb));
		return 1;
	}
	return 0;
}

/* Dim @i of shape @s as an integer, or -1. */
static long long gemm_dim(const cJSON *s, int i)
{
	const cJSON *d = cJSON_GetArrayItem(s, i);

	return cJSON_IsNumber(d) ? (long long)d->valuedouble : -1;
}

/* The shared reader: A and B at positions @pa and @pa+1 of Input Dims;
 * @batched: (B, M, K) x (B, K, N) as aten_bmm reads them. */
static int gemm_read(const struct pm_call *c, struct pm_out *out, int pa, int bias, int batched)
{
	const cJSON *sa = pm_arg_at(c, "Input Dims", pa), *sb = pm_arg_at(c, "Input Dims", pa + 1);
	const cJSON *ta = pm_arg_at(c, "Input type", pa), *tb = pm_arg_at(c, "Input type", pa + 1);
	int rank = batched ? 3 : 2, o = batched ? 1 : 0, rc = 0;
	long long B = 1, M, N, K;
	char s[160];

	if (!cJSON_IsArray(sa) || !cJSON_IsArray(sb) || cJSON_GetArraySize(sa) != rank ||
	    cJSON_GetArraySize(sb) != rank)
		return pm_fail(out, "%s: Input Dims %d and %d are not %d-d shapes", c->name, pa, pa + 1, rank);
	if (!cJSON_IsString(ta) || !cJSON_IsString(tb))
		return pm_fail(out, "%s: Input type %d and %d are not dtypes", c->name, pa, pa + 1);
	M = gemm_dim(sa, o);
	K = gemm_dim(sa, o + 1);
	N = gemm_dim(sb, o + 1);
	if (batched)
		B = gemm_dim(sa, 0);
	if (M < 0 || N < 0 || K < 0 || B < 0)
		return pm_fail(out, "%s: a GEMM dim is not a number", c->name);
	rc |= pm_param_int(out, "M", M);
	rc |= pm_param_int(out, "N", N);
	rc |= pm_param_int(out, "K", K);
	rc |= pm_param_bool(out, "bias", bias);
	gemm_tuple(pm_arg_at(c, "Input Strides", pa), s, sizeof s);
	rc |= pm_param_str(out, "stride_A", s);
	gemm_tuple(pm_arg_at(c, "Input Strides", pa + 1), s, sizeof s);
	rc |= pm_param_str(out, "stride_B", s);
	snprintf(s, sizeof s, "('%s', '%s')", ta->valuestring, tb->valuestring);
	rc |= pm_param_str(out, "dtype_A_B", s);
	/* GEMM.__init__ adds B = 1 after the class's own params. */
	rc |= pm_param_int(out, "B", B);
	if (gemm_transpose(c, s, sizeof s))
		rc |= pm_param_str(out, "transpose", s);
	if (rc)
		return pm_fail(out, "%s: too many params", c->name);

	/* GEMM.flops_func / bytes_func; aten_bmm scales both by B. */
	out->gflops = (double)B * (2.0 * M * N * K + (bias ? (double)M * N : 0)) / 1e9;
	int bpe = gemm_bpe(ta->valuestring);
	if (bpe)
		out->bytes = (double)B * bpe * ((double)M * K + (double)K * N + (double)M * N + (bias ? N : 0));
	const char *p = gemm_prec(ta->valuestring);
	if (p)
		snprintf(out->compute_spec, sizeof out->compute_spec, "matrix_%s", p);
	return 0;
}

static int model_mm(const struct pm_call *c, struct pm_out *out) { return gemm_read(c, out, 0, 0, 0); }
static int model_addmm(const struct pm_call *c, struct pm_out *out) { return gemm_read(c, out, 1, 1, 0); }
static int model_bmm(const struct pm_call *c, struct pm_out *out) { return gemm_read(c, out, 0, 0, 1); }

static const char *const ops_mm[] = {"aten::mm", NULL};
static const char *const ops_addmm[] = {"aten::addmm", NULL};
static const char *const ops_bmm[] = {"aten::bmm", NULL};

const struct pm_class pm_gemm_classes[] = {
	{"aten_mm", "GEMM", "GEMM", ops_mm, model_mm},
	{"aten_addmm", "GEMM", "GEMM", ops_addmm, model_addmm},
	{"aten_bmm", "GEMM", "GEMM", ops_bmm, model_bmm},
	{0},
};
