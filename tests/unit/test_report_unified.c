/* SPDX-License-Identifier: MIT */
/* unified_perf_summary of tl_report_build() over tests/fixtures/report_perf.json
 * (see test_report_perf.c), with the same fake GEMM family: this binary's
 * strong pm_gemm_classes overrides the library's. By hand:
 *
 *   aten::mm M=2   UID 21  KT 50                      modelled: GFLOPS 2
 *   aten::mm M=4   UIDs 3, 12  KT 15 + 30 = 45        modelled: GFLOPS 4
 *   test::bad      UID 26  KT 5   a model that fails: has_perf_model, no numbers
 *   aten::relu     UID 31  KT 3   no model: a leaf launcher
 *
 * by Kernel Time sum, descending; percentages of the 103 µs total. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tlreplay/tlreplay.h>
#include <tlreplay/report.h>

#include "perf/perf_internal.h"
#include "tap.h"

static int fake_mm(const struct pm_call *c, struct pm_out *out)
{
	const cJSON *a = pm_arg_at(c, "Input Dims", 0);
	const cJSON *m = a ? cJSON_GetArrayItem(a, 0) : NULL;

	if (!cJSON_IsNumber(m))
		return pm_fail(out, "no M");
	out->gflops = m->valuedouble;
	out->bytes = m->valuedouble * 1e6;
	snprintf(out->compute_spec, sizeof(out->compute_spec), "matrix_fp32");
	return pm_param_int(out, "M", (long long)m->valuedouble);
}

static int fake_bad(const struct pm_call *c, struct pm_out *out)
{
	return pm_fail(out, "fake model refuses %s", c->name);
}

static const char *const mm_ops[] = { "aten::mm", NULL };
static const char *const bad_ops[] = { "test::bad", NULL };

const struct pm_class pm_gemm_classes[] = {
	{ "fake_mm", "GEMM", "GEMM", mm_ops, fake_mm },
	{ "fake_bad", "GEMM", "GEMM", bad_ops, fake_bad },
	{ 0 },
};

static void quiet(enum tl_log_level lvl, const char *msg, void *ctx)
{
	(void)lvl;
	(void)msg;
	(void)ctx;
}

static const struct tl_sheet *sh;

static const struct tl_cell *cell(size_t row, const char *col)
{
	static const struct tl_cell none = { TL_CELL_EMPTY, 0, 0, 0 };
	long c = tl_sheet_col_index(sh, col);

	if (c < 0) {
		diag("no column %s", col);
		return &none;
	}
	return tl_sheet_cell(sh, row, (size_t)c);
}

static void num_is(size_t row, const char *col, double want)
{
	const struct tl_cell *c = cell(row, col);
	double got = c->kind == TL_CELL_NUM ? c->d : c->kind == TL_CELL_INT ? (double)c->i : NAN;

	if (isnan(want))
		ok(isnan(got), "row %zu %s is NaN (got %g)", row, col, got);
	else
		ok(fabs(got - want) <= 1e-9 * fmax(1, fabs(want)), "row %zu %s = %.17g (got %.17g)", row,
		   col, want, got);
}

static void str_is(size_t row, const char *col, const char *want)
{
	char buf[64];
	const char *got = tl_cell_text(cell(row, col), buf, sizeof(buf));

	ok(!strcmp(got, want), "row %zu %s = %s (got %s)", row, col, want, got);
}

int main(void)
{
	struct tl_report_opts o = { .sz = sizeof(o), .perf_models = true };
	struct tl_report *r = NULL;
	struct tl_trace *tr = NULL;
	size_t i;
	int err;

	plan(22);
	tl_set_print(quiet, NULL);
	err = tl_trace_open("tests/fixtures/report_perf.json", NULL, &tr);
	if (!ok(!err, "open the fixture (%d)", err))
		return done_testing();
	err = tl_report_build(tr, &o, &r);
	ok(!err, "tl_report_build (%d)", err);
	for (i = 0; r && i < r->n; i++)
		if (!strcmp(tl_sheet_name(r->v[i]), "unified_perf_summary"))
			break;
	if (!ok(r && i == 4, "unified_perf_summary follows ops_unique_args (at %zu)", i))
		goto out;
	sh = r->v[i];
	if (!ok(tl_sheet_nrows(sh) == 4, "four groups (got %zu)", tl_sheet_nrows(sh)))
		goto out;
	str_is(0, "name", "aten::mm");
	num_is(0, "GFLOPS", 2);
	str_is(1, "Input Dims", "((4, 8), (8, 16))");
	num_is(1, "ex_UID", 3);
	num_is(1, "operation_count", 2);
	num_is(1, "Kernel Time (µs)_sum", 45);
	str_is(1, "perf_params", "{'M': 4}");
	str_is(1, "has_perf_model", "True");
	/* positions by total duration: gemm_b (20) before gemm_a (30) */
	str_is(1, "trunc_kernel_details",
	       "[{'name': 'gemm_b', 'stream': 7, 'mean_duration_us': np.float64(10.0)}, "
	       "{'name': 'gemm_a', 'stream': 7, 'mean_duration_us': np.float64(15.0)}]");
	/* a model that cannot read the call still counts as one */
	str_is(2, "name", "test::bad");
	str_is(2, "has_perf_model", "True");
	num_is(2, "GFLOPS", NAN);
	num_is(2, "Kernel Time (µs)_sum", 5);
	str_is(3, "name", "aten::relu");
	str_is(3, "has_perf_model", "False");
	str_is(3, "perf_params", "");
	num_is(0, "Percentage (%)", 50.0 / 103 * 100);
	num_is(1, "Cumulative Percentage (%)", 50.0 / 103 * 100 + 45.0 / 103 * 100);
out:
	tl_report_free(r);
	tl_trace_close(tr);
	return done_testing();
}
