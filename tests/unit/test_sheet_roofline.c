/* tl_sheet_roofline() on a hand-made report: a perf sheet of two rows and a
 * sheet without the model's columns (not read). The roof, % of roof and
 * bound are computed here by hand from docs/roofline.md for an H100 SXM
 * (3352 GB/s, vector bf16 134 TFLOP/s, matrix bf16 989 TFLOP/s). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <tlreplay/gpu.h>
#include <tlreplay/report.h>

#include "tap.h"

static const char *const pcols[] = {
	"name", "param: M", "GFLOPS_first", "Data Moved (MB)_first", "TB/s_mean", "TFLOPS/s_mean",
	"Compute Spec", "Kernel Time (µs)_mean", "Kernel Time (µs)_sum", "name_count", "UID_first",
};

static double num(const struct tl_sheet *sh, size_t row, const char *col)
{
	const struct tl_cell *c = tl_sheet_cell(sh, row, (size_t)tl_sheet_col_index(sh, col));

	return c->kind == TL_CELL_NUM ? c->d : c->kind == TL_CELL_INT ? (double)c->i : NAN;
}

static const char *str(const struct tl_sheet *sh, size_t row, const char *col)
{
	const struct tl_cell *c = tl_sheet_cell(sh, row, (size_t)tl_sheet_col_index(sh, col));

	return c->kind == TL_CELL_STR ? c->s : "";
}

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fabs(b);
}

int main(void)
{
	struct tl_sheet *perf = NULL, *other = NULL, *rf = NULL, *sheets[2];
	struct tl_report r = { 2, sheets };
	const char *ocols[] = { "name", "count" };
	const struct tl_gpu *h100 = tl_gpu_find(NULL, "NVIDIA H100 80GB HBM3", 85045264384ULL, 132, 9, 0);
	/* an elementwise row: 2^20 FLOPs, 6 MiB, 4 us a call, 2 calls; a GEMM row:
	 * 2 GFLOP, 24 MiB, 10 us, 1 call, less kernel time in all */
	struct tl_cell a[] = { tl_cell_str("aten::mul"), tl_cell_str("1024"), tl_cell_num(0.001048576),
			       tl_cell_num(6.0), tl_cell_num(1.572864), tl_cell_num(0.262144),
			       tl_cell_str("vector_bf16"), tl_cell_num(4.0), tl_cell_num(8.0), tl_cell_int(2),
			       tl_cell_int(10) };
	struct tl_cell b[] = { tl_cell_str("aten::mm"), tl_cell_empty(), tl_cell_num(2.0), tl_cell_num(24.0),
			       tl_cell_num(2.5165824), tl_cell_num(200.0), tl_cell_str("matrix_bf16"),
			       tl_cell_num(7.0), tl_cell_num(7.0), tl_cell_int(1), tl_cell_int(20) };
	struct tl_cell o[] = { tl_cell_str("x"), tl_cell_int(1) };

	plan(17);
	ok(h100 && !strcmp(h100->name, "H100 SXM"), "H100 SXM in the table");
	tl_sheet_new("Perf", sizeof(pcols) / sizeof(*pcols), pcols, &perf);
	tl_sheet_add_row(perf, b);
	tl_sheet_add_row(perf, a);
	tl_sheet_new("ops_summary", 2, ocols, &other);
	tl_sheet_add_row(other, o);
	sheets[0] = other;
	sheets[1] = perf;

	ok(!tl_sheet_roofline(&r, h100, NULL, &rf), "roofline sheet built");
	ok(rf && tl_sheet_nrows(rf) == 2, "one row per perf row, other sheets not read");
	ok(!strcmp(str(rf, 0, "name"), "aten::mul") && !strcmp(str(rf, 1, "name"), "aten::mm"),
	   "by Kernel Time sum, descending");
	ok(!strcmp(str(rf, 0, "params"), "M=1024") && !strcmp(str(rf, 1, "params"), ""),
	   "params: the param cells that have a value");
	ok(num(rf, 0, "calls") == 2 && num(rf, 0, "UID_first") == 10, "calls, UID_first");
	/* mul: I = 2^20 / 6 MiB = 1/6, roof = 3.352e12 / 6, achieved 2^20 / 4e-6 */
	ok(near(num(rf, 0, "FLOPS/Byte"), 1.0 / 6), "mul FLOPS/Byte");
	ok(near(num(rf, 0, "roof (TFLOP/s)"), 3.352 / 6), "mul roof %g", num(rf, 0, "roof (TFLOP/s)"));
	ok(near(num(rf, 0, "% of roof"), 100 * 1.572864 / 3.352), "mul %% of roof %g", num(rf, 0, "% of roof"));
	ok(!strcmp(str(rf, 0, "bound"), "memory"), "mul memory-bound");
	/* mm: I = 2e9 / (24 * 2^20) = 79.5, left of the bf16 matrix ridge
	 * 989 / 3.352 = 295: memory-bound under 3.352e12 * 79.5 = 266.4 TFLOP/s;
	 * it achieves 2e9 / 7e-6 = 285.7 (the made-up numbers beat the roof) */
	ok(near(num(rf, 1, "roof (TFLOP/s)"), 3.352e12 * (2e9 / (24.0 * 1048576)) / 1e12), "mm roof");
	ok(near(num(rf, 1, "% of roof"), 100 * (2e9 / 7e-6) / (3.352e12 * (2e9 / (24.0 * 1048576)))),
	   "mm %% of roof");
	ok(!strcmp(str(rf, 1, "device"), "H100 SXM") && !*str(rf, 1, "why"), "device, no why");
	tl_sheet_free(rf);
	rf = NULL;

	ok(!tl_sheet_roofline(&r, NULL, "GPU 'X': not in the table", &rf), "no device: built");
	ok(rf && isnan(num(rf, 0, "roof (TFLOP/s)")) && isnan(num(rf, 0, "% of roof")) &&
		   !*str(rf, 0, "bound"),
	   "no device: roof columns empty");
	ok(rf && !strcmp(str(rf, 0, "why"), "GPU 'X': not in the table") &&
		   near(num(rf, 0, "TB/s_mean"), 1.572864) && near(num(rf, 0, "FLOPS/Byte"), 1.0 / 6),
	   "no device: why given, achieved numbers kept");
	ok(tl_sheet_roofline(NULL, h100, NULL, &rf) == -EINVAL, "NULL report: -EINVAL");
	tl_sheet_free(rf);
	tl_sheet_free(perf);
	tl_sheet_free(other);
	return done_testing();
}
