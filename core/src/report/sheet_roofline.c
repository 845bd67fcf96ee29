/* SPDX-License-Identifier: MIT */
/* The roofline sheet (ours, not TraceLens's): one row per row of the
 * report's perf-model sheets with its achieved rates, the roof it sits under
 * on the trace's device, its % of roof and its bound. It reads the perf
 * sheets themselves, so its numbers are the report's own, and leaves them
 * untouched (they stay byte-compatible with TraceLens's). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/gpu.h>

#include "report/report_internal.h"

#define MIB (1024.0 * 1024.0)	/* TraceLens's "Data Moved (MB)" is bytes / 2^20 */

struct rf_row {
	const struct tl_sheet *sh;
	size_t row;
	double kt_sum;
	size_t order;		/* position in the report: ties keep it */
};

static const char *const rf_cols[] = {
	"sheet", "name", "params", "calls", "UID_first", "GFLOPS", "Data Moved (MB)",
	"Kernel Time (µs)_sum", "Kernel Time (µs)_mean", "TFLOPS/s_mean", "TB/s_mean", "FLOPS/Byte",
	"Compute Spec", "device", "roof (TFLOP/s)", "% of roof", "bound", "why",
};

/* A numeric cell as a double; NaN when empty or text. */
static double num_at(const struct tl_sheet *sh, size_t row, long col)
{
	const struct tl_cell *c;

	if (col < 0)
		return NAN;
	c = tl_sheet_cell(sh, row, (size_t)col);
	if (c->kind == TL_CELL_NUM)
		return c->d;
	if (c->kind == TL_CELL_INT)
		return (double)c->i;
	return NAN;
}

double tl_sheet_num(const struct tl_sheet *sh, size_t row, const char *col)
{
	return num_at(sh, row, tl_sheet_col_index(sh, col));
}

const char *tl_sheet_str(const struct tl_sheet *sh, size_t row, const char *col)
{
	long c = tl_sheet_col_index(sh, col);
	const struct tl_cell *x;

	if (c < 0)
		return NULL;
	x = tl_sheet_cell(sh, row, (size_t)c);
	return x->kind == TL_CELL_STR ? x->s : NULL;
}

static struct tl_cell cell_at(const struct tl_sheet *sh, size_t row, long col)
{
	return col < 0 ? tl_cell_empty() : *tl_sheet_cell(sh, row, (size_t)col);
}

/* A perf-model sheet is one with the model's and the kernels' columns;
 * no other sheet of the report has GFLOPS_first. */
static bool is_perf_sheet(const struct tl_sheet *sh)
{
	return tl_sheet_col_index(sh, "GFLOPS_first") >= 0 &&
	       tl_sheet_col_index(sh, "Kernel Time (µs)_sum") >= 0;
}

static int cmp_rf(const void *a, const void *b)
{
	const struct rf_row *x = a, *y = b;
	double kx = isnan(x->kt_sum) ? -1 : x->kt_sum, ky = isnan(y->kt_sum) ? -1 : y->kt_sum;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* "a=1, b=(2, 3)": the "param: " columns of the row that have a value. */
static char *params_of(const struct tl_sheet *sh, size_t row)
{
	char *buf = NULL, num[40];
	size_t len = 0, c;
	FILE *f = open_memstream(&buf, &len);
	bool first = true;

	if (!f)
		return NULL;
	for (c = 0; c < tl_sheet_ncols(sh); c++) {
		const char *col = tl_sheet_col(sh, c), *v;

		if (strncmp(col, "param: ", 7))
			continue;
		v = tl_cell_text(tl_sheet_cell(sh, row, c), num, sizeof(num));
		if (!*v || !strcmp(v, "nan"))
			continue;
		fprintf(f, "%s%s=%s", first ? "" : ", ", col + 7, v);
		first = false;
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Why a row has no roof (NULL: it has one). */
static const char *why_of(const struct tl_gpu *gpu, const char *no_gpu, double kt, const struct tl_gpu_roof *r)
{
	if (!gpu)
		return no_gpu ? no_gpu : "device unknown: give --gpu-spec";
	if (!(kt > 0))
		return "no kernel time";
	if (r->flags & TL_ROOF_SPEC_UNKNOWN)
		return "Compute Spec names no data type the table has";
	if (r->flags & TL_ROOF_NO_PEAK)
		return "the device has no peak for this Compute Spec";
	if (r->flags & TL_ROOF_NO_FLOPS)
		return "no FLOPs in the perf model";
	if (r->flags & TL_ROOF_NO_BYTES)
		return "no bytes in the perf model";
	return NULL;
}

static struct tl_cell num_or_empty(double v)
{
	return isfinite(v) ? tl_cell_num(v) : tl_cell_empty();
}

static int add_row(struct tl_sheet *out, const struct rf_row *x, const struct tl_gpu *gpu, const char *no_gpu)
{
	const struct tl_sheet *sh = x->sh;
	struct tl_cell row[RPT_N(rf_cols)];
	struct tl_gpu_roof rf;
	double gflops = num_at(sh, x->row, tl_sheet_col_index(sh, "GFLOPS_first"));
	double mb = num_at(sh, x->row, tl_sheet_col_index(sh, "Data Moved (MB)_first"));
	double kt = num_at(sh, x->row, tl_sheet_col_index(sh, "Kernel Time (µs)_mean"));
	const struct tl_cell *spec_c;
	const char *spec = NULL, *why;
	char *params = params_of(sh, x->row);
	long spec_col = tl_sheet_col_index(sh, "Compute Spec");
	size_t n = 0;
	int err = -ENOMEM;

	if (!params)
		goto out;
	if (spec_col >= 0) {
		spec_c = tl_sheet_cell(sh, x->row, (size_t)spec_col);
		if (spec_c->kind == TL_CELL_STR)
			spec = spec_c->s;
	}
	memset(&rf, 0, sizeof(rf));
	rf.roof = rf.pct_of_roof = rf.intensity = NAN;
	if (gpu && kt > 0)
		tl_gpu_roof(gpu, spec, gflops * 1e9, mb * MIB, kt, &rf);
	else if (gflops >= 0 && mb > 0)
		rf.intensity = gflops * 1e9 / (mb * MIB);
	why = why_of(gpu, no_gpu, kt, &rf);
	row[n++] = tl_cell_str(tl_sheet_name(sh));
	row[n++] = cell_at(sh, x->row, tl_sheet_col_index(sh, "name"));
	row[n++] = tl_cell_str(params);
	row[n++] = cell_at(sh, x->row, tl_sheet_col_index(sh, "name_count"));
	row[n++] = cell_at(sh, x->row, tl_sheet_col_index(sh, "UID_first"));
	row[n++] = num_or_empty(gflops);
	row[n++] = num_or_empty(mb);
	row[n++] = num_or_empty(x->kt_sum);
	row[n++] = num_or_empty(kt);
	row[n++] = cell_at(sh, x->row, tl_sheet_col_index(sh, "TFLOPS/s_mean"));
	row[n++] = cell_at(sh, x->row, tl_sheet_col_index(sh, "TB/s_mean"));
	row[n++] = num_or_empty(rf.intensity);
	row[n++] = tl_cell_str(spec);
	row[n++] = tl_cell_str(gpu ? gpu->name : NULL);
	row[n++] = num_or_empty(rf.roof / 1e12);
	row[n++] = num_or_empty(rf.pct_of_roof);
	row[n++] = tl_cell_str(rf.bound == TL_BOUND_COMPUTE ? "compute" :
			       rf.bound == TL_BOUND_MEMORY ? "memory" : NULL);
	row[n++] = tl_cell_str(why);
	err = tl_sheet_add_row(out, row);
out:
	free(params);
	return err;
}

int tl_sheet_roofline(const struct tl_report *r, const struct tl_gpu *gpu, const char *no_gpu,
		      struct tl_sheet **out)
{
	struct tl_sheet *sh = NULL;
	struct rf_row *v = NULL;
	size_t n = 0, cap = 0, i, j;
	int err;

	if (!r || !out)
		return -EINVAL;
	err = tl_sheet_new("roofline", RPT_N(rf_cols), rf_cols, &sh);
	if (err)
		goto out;
	for (i = 0; i < r->n; i++) {
		const struct tl_sheet *ps = r->v[i];
		long kcol;

		if (!is_perf_sheet(ps))
			continue;
		kcol = tl_sheet_col_index(ps, "Kernel Time (µs)_sum");
		for (j = 0; j < tl_sheet_nrows(ps); j++) {
			if (n == cap) {
				struct rf_row *nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

				if (!nv) {
					err = -ENOMEM;
					goto out;
				}
				v = nv;
			}
			v[n].sh = ps;
			v[n].row = j;
			v[n].kt_sum = num_at(ps, j, kcol);
			v[n].order = n;
			n++;
		}
	}
	if (n)
		tl_qsort(v, n, sizeof(*v), cmp_rf);
	for (i = 0; i < n && !err; i++)
		err = add_row(sh, &v[i], gpu, no_gpu);
out:
	free(v);
	return rpt_sheet_done(sh, err, out);
}
