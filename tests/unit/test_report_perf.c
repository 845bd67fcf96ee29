/* SPDX-License-Identifier: MIT */
/* The perf-model sheets of tl_report_build(), with a fake GEMM family: this
 * binary's strong pm_gemm_classes overrides the library's weak (empty) one.
 * Over tests/fixtures/report_perf.json, every number is worked out by hand:
 *
 *   UID  3 aten::mm M=4  kernels gemm_a [100,110) gemm_b [105,115)  KT 15
 *   UID 12 aten::mm M=4  kernels gemm_a [200,220) gemm_b [230,240)  KT 30
 *   UID 21 aten::mm M=2  kernel  gemm_c [300,350)                   KT 50
 *   UID 26 test::bad     kernel  bad_kernel [400,405)  (the model fails: no row)
 *
 * The fake model: GFLOPs = M, bytes = M * 1e6, one parameter M. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tlreplay/tlreplay.h>
#include <tlreplay/report.h>

#include "perfmodel/perfmodel_internal.h"
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
	(void)c;
	return pm_fail(out, "fake model refuses %s", c->name);
}

static const char *const mm_ops[] = { "aten::mm", NULL };
static const char *const bad_ops[] = { "test::bad", NULL };

const struct pm_class pm_gemm_classes[] = {
	{ "fake_mm", "GEMM", "GEMM", mm_ops, fake_mm },
	{ "fake_bad", "GEMM", "GEMM", bad_ops, fake_bad },
	{ 0 },
};

static char logged[512];

static void log_cb(enum tl_log_level lvl, const char *msg, void *ctx)
{
	(void)ctx;
	if (lvl == TL_LOG_WARN && strstr(msg, "fake model refuses"))
		snprintf(logged, sizeof(logged), "%s", msg);
}

/* the sheet cell() reads: the GEMM sheet, then unified_perf_summary */
static const struct tl_sheet *gemm, *cur;

static const struct tl_cell *cell(size_t row, const char *col)
{
	static const struct tl_cell none = { TL_CELL_EMPTY, 0, 0, 0 };
	long c = tl_sheet_col_index(cur, col);

	if (c < 0) {
		diag("no column %s", col);
		return &none;
	}
	return tl_sheet_cell(cur, row, (size_t)c);
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

/* unified_perf_summary over the same calls, by Kernel Time sum:
 *   aten::mm M=2 (UID 21, 50), aten::mm M=4 (UIDs 3 and 12, 45),
 *   test::bad (5: a model that fails still counts as one), aten::relu (3: no
 *   model, a leaf launcher); percentages of the 103 µs total. */
static void unified_checks(const struct tl_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(tl_sheet_name(r->v[i]), "unified_perf_summary"))
			break;
	if (!ok(i == 4, "unified_perf_summary follows ops_unique_args (at %zu)", i))
		return;
	cur = r->v[i];
	if (!ok(tl_sheet_nrows(cur) == 4, "four groups (got %zu)", tl_sheet_nrows(cur)))
		return;
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
}

static char *csv_of(const struct tl_sheet *sh)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	tl_sheet_write_csv(sh, f);
	fclose(f);
	return buf;
}

/* summary_only: the four sheets a comparison's summary reads, each the same
 * as in the whole report, and nothing else. */
static void summary_only_checks(struct tl_trace *tr)
{
	static const char *const want[] = { "gpu_timeline", "ops_summary_by_category", "ops_summary",
					     "kernel_summary" };
	struct tl_report_opts full_o = { .sz = sizeof(full_o), .perf_models = true, .kernel_summary = true };
	struct tl_report_opts sum_o = full_o;
	struct tl_report *full = NULL, *sum = NULL;
	size_t i;
	int err, same = 1;

	sum_o.summary_only = true;
	err = tl_report_build(tr, &full_o, &full) || tl_report_build(tr, &sum_o, &sum);
	if (!ok(!err && sum->n == 4, "summary_only: %zu sheets (want 4)", sum ? sum->n : 0))
		goto out;
	for (i = 0; i < 4; i++) {
		const struct tl_sheet *a = tl_report_sheet(full, want[i]);
		char *x = a ? csv_of(a) : NULL, *y = csv_of(sum->v[i]);

		if (strcmp(tl_sheet_name(sum->v[i]), want[i]) || !x || !y || strcmp(x, y)) {
			diag("summary_only: sheet %zu '%s' differs from the whole report's", i,
			     tl_sheet_name(sum->v[i]));
			same = 0;
		}
		free(x);
		free(y);
	}
	ok(same, "summary_only: gpu_timeline, ops_summary_by_category, ops_summary, kernel_summary, "
	   "each as in the whole report (of %zu sheets)", full->n);
out:
	tl_report_free(full);
	tl_report_free(sum);
}

int main(void)
{
	static const char *const want_cols[] = {
		"name", "param: M", "GFLOPS_first", "Data Moved (MB)_first", "FLOPS/Byte_first",
		"TB/s_mean", "TB/s_median", "TB/s_std", "TB/s_min", "TB/s_max",
		"TFLOPS/s_mean", "TFLOPS/s_median", "TFLOPS/s_std", "TFLOPS/s_min", "TFLOPS/s_max",
		"process_name_first", "process_label_first", "thread_name_first", "Compute Spec",
		"kernel_details__summarize_kernel_stats", "trunc_kernel_details",
		"Input Dims_first", "Input type_first", "Input Strides_first", "Concrete Inputs_first",
		"Kernel Time (µs)_mean", "Kernel Time (µs)_median", "Kernel Time (µs)_std",
		"Kernel Time (µs)_min", "Kernel Time (µs)_max", "Kernel Time (µs)_sum", "name_count",
		"UID_first",
	};
	struct tl_report_opts o = { .sz = sizeof(o), .perf_models = true };
	struct tl_report *r = NULL;
	struct tl_trace *tr = NULL;
	double std15_30 = sqrt(2 * 7.5 * 7.5);	/* sample std of {15, 30} */
	size_t i, c;
	int err;

	plan(61);
	tl_set_print(log_cb, NULL);
	err = tl_trace_open("tests/fixtures/report_perf.json", NULL, &tr);
	if (!ok(!err, "open the fixture (%d)", err))
		return done_testing();
	err = tl_report_build(tr, &o, &r);
	ok(!err, "tl_report_build (%d)", err);
	for (i = 0; r && i < r->n; i++)
		if (!strcmp(tl_sheet_name(r->v[i]), "GEMM"))
			gemm = cur = r->v[i];
	if (!ok(gemm != NULL, "the report has a GEMM sheet"))
		goto out;
	ok(!strcmp(tl_sheet_name(r->v[5]), "GEMM"),
	   "GEMM comes after ops_unique_args and unified_perf_summary (got %s)",
	   tl_sheet_name(r->v[5]));
	for (c = 0; c < tl_sheet_ncols(gemm) && c < sizeof(want_cols) / sizeof(want_cols[0]); c++)
		if (strcmp(tl_sheet_col(gemm, c), want_cols[c]))
			break;
	ok(c == sizeof(want_cols) / sizeof(want_cols[0]) && c == tl_sheet_ncols(gemm),
	   "TraceLens's columns in its order (first difference at %zu)", c);
	/* TraceLens's build_df_perf_metrics skips a call whose model raises
	 * (the xdit golden has no row for its unmodelled upsample calls) */
	ok(tl_sheet_nrows(gemm) == 2, "two groups: M=2, M=4; test::bad dropped (got %zu)",
	   tl_sheet_nrows(gemm));

	/* by Kernel Time sum: M=2 (50), M=4 (45), the failed call (5) */
	str_is(0, "name", "aten::mm");
	str_is(0, "param: M", "2");
	num_is(0, "Kernel Time (µs)_sum", 50);
	num_is(0, "UID_first", 21);
	num_is(0, "name_count", 1);
	num_is(0, "Kernel Time (µs)_std", NAN);
	num_is(0, "TFLOPS/s_mean", (2 / 1e3) / (50 / 1e6));
	num_is(0, "TB/s_max", (2e6 / 1e12) / (50 / 1e6));

	str_is(1, "param: M", "4");
	num_is(1, "UID_first", 3);
	num_is(1, "name_count", 2);
	num_is(1, "GFLOPS_first", 4);
	num_is(1, "Data Moved (MB)_first", 4e6 / 1048576.0);
	num_is(1, "FLOPS/Byte_first", 4e9 / 4e6);
	num_is(1, "Kernel Time (µs)_mean", 22.5);
	num_is(1, "Kernel Time (µs)_median", 22.5);
	num_is(1, "Kernel Time (µs)_std", std15_30);
	num_is(1, "Kernel Time (µs)_min", 15);
	num_is(1, "Kernel Time (µs)_max", 30);
	num_is(1, "Kernel Time (µs)_sum", 45);
	/* TFLOPS/s of the two calls: 4e-3 / 15e-6 and 4e-3 / 30e-6 */
	num_is(1, "TFLOPS/s_mean", (4e-3 / 15e-6 + 4e-3 / 30e-6) / 2);
	num_is(1, "TFLOPS/s_min", 4e-3 / 30e-6);
	num_is(1, "TFLOPS/s_max", 4e-3 / 15e-6);
	num_is(1, "TFLOPS/s_std", (4e-3 / 15e-6 - 4e-3 / 30e-6) / sqrt(2));
	num_is(1, "TB/s_median", (4e-6 / 15e-6 + 4e-6 / 30e-6) / 2);
	str_is(1, "process_name_first", "python3");
	str_is(1, "process_label_first", "CPU");
	str_is(1, "thread_name_first", "main");
	str_is(1, "Compute Spec", "matrix_fp32");
	str_is(1, "Input Dims_first", "[[4, 8], [8, 16]]");
	/* per kernel position over both calls: gemm_a {10, 20}, gemm_b {10, 10};
	 * positions by total duration, shortest first, as every golden sheet
	 * lists them */
	str_is(1, "kernel_details__summarize_kernel_stats",
	       "[{'name': 'gemm_b', 'stream': 7, 'count': 2, "
	       "'total_duration_us': np.float64(20.0), 'mean_duration_us': np.float64(10.0), "
	       "'median_duration_us': np.float64(10.0), 'std_dev_duration_us': np.float64(0.0), "
	       "'min_duration_us': np.float64(10.0), 'max_duration_us': np.float64(10.0)}, "
	       "{'name': 'gemm_a', 'stream': 7, 'count': 2, 'total_duration_us': np.float64(30.0), "
	       "'mean_duration_us': np.float64(15.0), 'median_duration_us': np.float64(15.0), "
	       "'std_dev_duration_us': np.float64(5.0), 'min_duration_us': np.float64(10.0), "
	       "'max_duration_us': np.float64(20.0)}]");
	str_is(1, "trunc_kernel_details",
	       "[{'name': 'gemm_b', 'stream': 7, 'mean_duration_us': np.float64(10.0)}, "
	       "{'name': 'gemm_a', 'stream': 7, 'mean_duration_us': np.float64(15.0)}]");

	/* the call the model refused: no row, a note in the log */
	ok(logged[0] != 0, "the model's note went to the log: %s", logged);
	unified_checks(r);
	summary_only_checks(tr);
out:
	tl_report_free(r);
	tl_trace_close(tr);
	return done_testing();
}
