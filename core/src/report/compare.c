/* SPDX-License-Identifier: MIT */
/* Two sheets joined on their keys, as TraceLens's compare_perf_reports does
 * with pandas: an outer merge (the union of the keys, in sorted order; a key
 * held by several rows of a side gives every pairing, baseline-major), the
 * other columns prefixed with their report's tag, then for each compared
 * column its variant - baseline difference and the percentage of the
 * baseline. TraceLens compares the reports' CSVs as pandas reads them back,
 * so cells are compared as it types them: a column whose values all read as
 * numbers compares as numbers, any other as text, and an empty cell (NaN)
 * matches an empty cell. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/compare.h>

#include "report/report_internal.h"

enum mkind { M_KEY, M_DIFF, M_PCT, M_BASE, M_VAR };

struct mcol {
	enum mkind kind;
	long b, v;		/* the source column in base / var (-1: none) */
	char *name;
};

struct mrow {
	long b, v;		/* the source rows (-1: that side has none) */
};

struct join {
	const struct tl_sheet *s[2];
	struct mcol *cols;
	size_t ncols, capc;
	struct mrow *rows;
	size_t nrows, capr;
	bool *numeric;		/* per key: every value of both sides reads as a number */
	size_t nkeys;
	long *key_idx[2];	/* per side, per key: its column (-1: absent) */
};

/* A cell as pandas reads it back: a number, or NaN for anything else. */
static double num_of(const struct tl_cell *c)
{
	char *end;
	double d;

	if (!c)
		return NAN;
	switch (c->kind) {
	case TL_CELL_INT:
	case TL_CELL_BOOL:
		return (double)c->i;
	case TL_CELL_NUM:
		return c->d;
	case TL_CELL_STR:
		if (!*c->s)
			return NAN;
		d = strtod(c->s, &end);
		return *end ? NAN : d;
	default:
		return NAN;
	}
}

/* pandas' NaN: nothing, a NaN, or an empty text (an empty CSV field) */
static bool is_empty(const struct tl_cell *c)
{
	return !c || c->kind == TL_CELL_EMPTY || (c->kind == TL_CELL_NUM && isnan(c->d)) ||
	       (c->kind == TL_CELL_STR && !*c->s);
}

static bool reads_as_number(const struct tl_cell *c)
{
	return c->kind == TL_CELL_INT || c->kind == TL_CELL_NUM ||
	       (c->kind == TL_CELL_STR && !isnan(num_of(c)));
}

static const struct tl_cell *cell_at(const struct tl_sheet *s, long row, long col)
{
	return row < 0 || col < 0 ? NULL : tl_sheet_cell(s, (size_t)row, (size_t)col);
}

/* Two key values, as pandas orders them: numbers by value, text by code
 * point (UTF-8 bytes keep that order), empty last. */
static int cmp_key(const struct tl_cell *a, const struct tl_cell *b, bool numeric)
{
	char ba[64], bb[64];
	bool ea = is_empty(a), eb = is_empty(b);

	if (ea || eb)
		return ea - eb;
	if (numeric) {
		double x = num_of(a), y = num_of(b);

		return (x > y) - (x < y);
	}
	return strcmp(tl_cell_text(a, ba, sizeof(ba)), tl_cell_text(b, bb, sizeof(bb)));
}

struct krow {
	const struct join *j;
	int side;
	long row;
};

static int cmp_krow(const struct krow *x, const struct krow *y)
{
	const struct join *j = x->j;
	size_t k;

	for (k = 0; k < j->nkeys; k++) {
		int c = cmp_key(cell_at(j->s[x->side], x->row, j->key_idx[x->side][k]),
				cell_at(j->s[y->side], y->row, j->key_idx[y->side][k]), j->numeric[k]);

		if (c)
			return c;
	}
	return 0;
}

static int cmp_krow_sort(const void *a, const void *b)
{
	const struct krow *x = a, *y = b;
	int c = cmp_krow(x, y);

	/* within one key: the baseline's rows first, each side in its order */
	if (c)
		return c;
	if (x->side != y->side)
		return x->side - y->side;
	return (x->row > y->row) - (x->row < y->row);
}

static int add_col(struct join *j, enum mkind kind, long b, long v, const char *fmt,
		   const char *a1, const char *a2)
{
	struct mcol *c;

	if (tl_grow((void **)&j->cols, &j->capc, j->ncols + 1, sizeof(*j->cols)))
		return -ENOMEM;
	c = &j->cols[j->ncols];
	c->kind = kind;
	c->b = b;
	c->v = v;
	if (asprintf(&c->name, fmt, a1, a2) < 0)
		return -ENOMEM;
	j->ncols++;
	return 0;
}

static bool listed(const char *col, const char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(col, v[i]))
			return true;
	return false;
}

static void join_free(struct join *j)
{
	size_t i;

	for (i = 0; i < j->ncols; i++)
		free(j->cols[i].name);
	free(j->cols);
	free(j->rows);
	free(j->numeric);
	free(j->key_idx[0]);
	free(j->key_idx[1]);
}

/* The rows of the join: every key of either side, in sorted order, each
 * with the pairings of its rows. */
static int join_rows(struct join *j)
{
	size_t nb = tl_sheet_nrows(j->s[0]), nv = tl_sheet_nrows(j->s[1]), n = nb + nv, i, k;
	struct krow *kr = malloc((n + 1) * sizeof(*kr));
	int err = -ENOMEM;

	if (!kr)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		kr[i] = (struct krow){ j, i < nb ? 0 : 1, (long)(i < nb ? i : i - nb) };
	for (k = 0; k < j->nkeys; k++) {
		j->numeric[k] = true;
		for (i = 0; i < n && j->numeric[k]; i++) {
			const struct tl_cell *c = cell_at(j->s[kr[i].side], kr[i].row,
							  j->key_idx[kr[i].side][k]);

			if (!is_empty(c) && !reads_as_number(c))
				j->numeric[k] = false;
		}
	}
	tl_qsort(kr, n, sizeof(*kr), cmp_krow_sort);
	for (i = 0; i < n;) {
		size_t e = i, nbk = 0, a, b;

		while (e < n && !cmp_krow(&kr[i], &kr[e]))
			nbk += kr[e++].side == 0;
		/* kr[i .. i + nbk): the baseline's rows, then the variant's */
		if (!nbk || nbk == e - i) {
			for (a = i; a < e; a++) {
				if (tl_grow((void **)&j->rows, &j->capr, j->nrows + 1, sizeof(*j->rows)))
					goto out;
				j->rows[j->nrows++] = kr[a].side ? (struct mrow){ -1, kr[a].row }
								 : (struct mrow){ kr[a].row, -1 };
			}
		} else {
			for (a = i; a < i + nbk; a++)
				for (b = i + nbk; b < e; b++) {
					if (tl_grow((void **)&j->rows, &j->capr, j->nrows + 1,
						    sizeof(*j->rows)))
						goto out;
					j->rows[j->nrows++] = (struct mrow){ kr[a].row, kr[b].row };
				}
		}
		i = e;
	}
	err = 0;
out:
	free(kr);
	return err;
}

static struct tl_cell join_cell(const struct join *j, const struct mcol *c, const struct mrow *r,
				size_t key)
{
	const struct tl_cell *x;
	double b, v;

	switch (c->kind) {
	case M_KEY:
		x = r->b >= 0 ? cell_at(j->s[0], r->b, j->key_idx[0][key])
			      : cell_at(j->s[1], r->v, j->key_idx[1][key]);
		return x ? *x : tl_cell_empty();
	case M_BASE:
		x = cell_at(j->s[0], r->b, c->b);
		return x ? *x : tl_cell_empty();
	case M_VAR:
		x = cell_at(j->s[1], r->v, c->v);
		return x ? *x : tl_cell_empty();
	default:
		b = num_of(cell_at(j->s[0], r->b, c->b));
		v = num_of(cell_at(j->s[1], r->v, c->v));
		if (isnan(b) || isnan(v))
			return tl_cell_empty();
		if (c->kind == M_DIFF)
			return tl_cell_num(v - b);
		/* pandas: the baseline's zeros replaced by NA before dividing */
		return b == 0 ? tl_cell_empty() : tl_cell_num(100 * ((v - b) / b));
	}
}

/* Row order of the sort column @col (a column index of @sh), largest first,
 * empty last: pandas' sort_values(ascending=False), ties as its default
 * quicksort leaves them (tl_pandas_argsort_desc). */
static int sorted_copy(const struct tl_sheet *sh, const char *name, const size_t *rows,
		       size_t nrows, long sort_col, const bool *keep, struct tl_sheet **out)
{
	size_t nc = tl_sheet_ncols(sh), i, c, m = 0;
	const char **cols = malloc((nc + 1) * sizeof(*cols));
	struct tl_cell *row = malloc((nc + 1) * sizeof(*row));
	double *vals = malloc((nrows + 1) * sizeof(*vals));
	size_t *ord = malloc((nrows + 1) * sizeof(*ord));
	struct tl_sheet *res = NULL;
	int err = -ENOMEM;

	if (!cols || !row || !vals || !ord)
		goto out;
	for (c = 0; c < nc; c++)
		if (!keep || keep[c])
			cols[m++] = tl_sheet_col(sh, c);
	for (i = 0; i < nrows; i++) {
		ord[i] = i;
		if (sort_col >= 0)
			vals[i] = num_of(tl_sheet_cell(sh, rows[i], (size_t)sort_col));
	}
	if (sort_col >= 0)
		tl_pandas_argsort_desc(vals, nrows, ord);
	err = tl_sheet_new(name, m, cols, &res);
	for (i = 0; !err && i < nrows; i++) {
		for (c = 0, m = 0; c < nc; c++)
			if (!keep || keep[c])
				row[m++] = *tl_sheet_cell(sh, rows[ord[i]], c);
		err = tl_sheet_add_row(res, row);
	}
out:
	free(cols);
	free(row);
	free(vals);
	free(ord);
	return rpt_sheet_done(res, err, out);
}

int tl_sheet_compare(const struct tl_sheet *base, const struct tl_sheet *var, const char *tag_base,
		     const char *tag_var, const struct tl_compare_spec *spec, const char *name,
		     struct tl_sheet **out)
{
	struct join j = { .s = { base, var }, .nkeys = spec->nkeys };
	struct tl_sheet *sh = NULL;
	const char **names = NULL;
	struct tl_cell *row = NULL;
	size_t i, k, c, *all = NULL;
	int side, err = -ENOMEM;

	*out = NULL;
	if (!spec->nkeys || !strcmp(tag_base, tag_var))
		return -EINVAL;
	j.numeric = calloc(spec->nkeys, sizeof(*j.numeric));
	j.key_idx[0] = malloc(spec->nkeys * sizeof(long));
	j.key_idx[1] = malloc(spec->nkeys * sizeof(long));
	if (!j.numeric || !j.key_idx[0] || !j.key_idx[1])
		goto out;
	for (side = 0; side < 2; side++)
		for (k = 0; k < spec->nkeys; k++)
			j.key_idx[side][k] = tl_sheet_col_index(j.s[side], spec->keys[k]);
	/* keys, then each compared column's diff and pct, then the baseline's
	 * columns and the variant's, each under its tag */
	for (k = 0; k < spec->nkeys; k++)
		if ((err = add_col(&j, M_KEY, -1, -1, "%s%s", spec->keys[k], "")))
			goto out;
	for (k = 0; k < spec->ndiff; k++) {
		long b = tl_sheet_col_index(base, spec->diff_cols[k]);
		long v = tl_sheet_col_index(var, spec->diff_cols[k]);

		if (b < 0 || v < 0)
			continue;	/* pandas would fail; a column one side lacks is skipped */
		if ((err = add_col(&j, M_DIFF, b, v, "%s__%s_diff", spec->diff_cols[k], tag_var)) ||
		    (err = add_col(&j, M_PCT, b, v, "%s__%s_pct", spec->diff_cols[k], tag_var)))
			goto out;
	}
	for (side = 0; side < 2; side++)
		for (c = 0; c < tl_sheet_ncols(j.s[side]); c++) {
			const char *col = tl_sheet_col(j.s[side], c);

			if (listed(col, spec->keys, spec->nkeys) || listed(col, spec->drop, spec->ndrop) ||
			    (side && listed(col, spec->drop_variant, spec->ndrop_variant)))
				continue;
			if ((err = add_col(&j, side ? M_VAR : M_BASE, side ? -1 : (long)c,
					   side ? (long)c : -1, "%s::%s", side ? tag_var : tag_base,
					   col)))
				goto out;
		}
	err = join_rows(&j);
	if (err)
		goto out;
	err = -ENOMEM;
	names = malloc((j.ncols + 1) * sizeof(*names));
	row = malloc((j.ncols + 1) * sizeof(*row));
	all = malloc((j.nrows + 1) * sizeof(*all));
	if (!names || !row || !all)
		goto out;
	for (c = 0; c < j.ncols; c++)
		names[c] = j.cols[c].name;
	err = tl_sheet_new(name, j.ncols, names, &sh);
	for (i = 0; !err && i < j.nrows; i++) {
		for (c = 0; c < j.ncols; c++)
			row[c] = join_cell(&j, &j.cols[c], &j.rows[i], c);
		err = tl_sheet_add_row(sh, row);
	}
	if (!err && spec->sort_col) {
		char *col = NULL;
		struct tl_sheet *sorted = NULL;

		for (i = 0; i < j.nrows; i++)
			all[i] = i;
		if (asprintf(&col, "%s::%s", tag_base, spec->sort_col) < 0)
			err = -ENOMEM;
		else
			err = sorted_copy(sh, name, all, j.nrows, tl_sheet_col_index(sh, col), NULL,
					  &sorted);
		free(col);
		tl_sheet_free(sh);
		sh = sorted;
	}
out:
	free(all);
	free(names);
	free(row);
	join_free(&j);
	return rpt_sheet_done(sh, err, out);
}

/* The tag a column belongs to: "h100" of "h100::Count" or of
 * "Count__h100_diff"; NULL for a key. */
static bool col_tag_is(const char *col, const char *tag, bool *is_key)
{
	const char *p = strstr(col, "::");
	size_t n = strlen(col), t = strlen(tag);

	*is_key = false;
	if (p)
		return (size_t)(p - col) == t && !strncmp(col, tag, t);
	if ((n > 5 && !strcmp(col + n - 5, "_diff")) || (n > 4 && !strcmp(col + n - 4, "_pct"))) {
		const char *u = strstr(col, "__");

		if (u) {
			size_t end = n - (col[n - 1] == 'f' ? 5 : 4);

			return end - (size_t)(u + 2 - col) == t && !strncmp(u + 2, tag, t);
		}
	}
	*is_key = true;
	return false;
}

int tl_sheet_compare_split(const struct tl_sheet *joined, const char *name, const char *tag_base,
			   const char *tag_var, const char *check_col, const char *sort_col,
			   struct tl_sheet *out[3])
{
	static const char *const what[3] = { "intersect", "only_baseline", "only_variant" };
	size_t nr = tl_sheet_nrows(joined), nc = tl_sheet_ncols(joined), i, c, part, m;
	size_t *rows = malloc((nr + 1) * sizeof(*rows));
	bool *keep = malloc((nc + 1) * sizeof(*keep));
	char *cb = NULL, *cv = NULL, *sb = NULL, *sv = NULL, *sheet = NULL;
	long ib, iv;
	int err = -ENOMEM;

	out[0] = out[1] = out[2] = NULL;
	if (!rows || !keep || asprintf(&cb, "%s::%s", tag_base, check_col) < 0 ||
	    asprintf(&cv, "%s::%s", tag_var, check_col) < 0 ||
	    asprintf(&sb, "%s::%s", tag_base, sort_col) < 0 ||
	    asprintf(&sv, "%s::%s", tag_var, sort_col) < 0)
		goto out;
	ib = tl_sheet_col_index(joined, cb);
	iv = tl_sheet_col_index(joined, cv);
	err = 0;
	for (part = 0; part < 3 && !err; part++) {
		for (i = 0, m = 0; i < nr; i++) {
			bool hb = ib >= 0 && !is_empty(tl_sheet_cell(joined, i, (size_t)ib));
			bool hv = iv >= 0 && !is_empty(tl_sheet_cell(joined, i, (size_t)iv));

			if ((part == 0 && hb && hv) || (part == 1 && hb && !hv) ||
			    (part == 2 && !hb && hv))
				rows[m++] = i;
		}
		/* the sides this part has, and no column it leaves empty */
		for (c = 0; c < nc; c++) {
			const char *col = tl_sheet_col(joined, c);
			bool key, b = col_tag_is(col, tag_base, &key), v = col_tag_is(col, tag_var, &key);
			bool any = false;

			if (strstr(col, "::"))
				keep[c] = part == 0 ? (b || v) : part == 1 ? b : v;
			else if (key)
				keep[c] = true;
			else	/* a diff/pct column: of the variant, which only intersect keeps */
				keep[c] = part == 0;
			for (i = 0; keep[c] && !any && i < m; i++)
				any = !is_empty(tl_sheet_cell(joined, rows[i], c));
			keep[c] = keep[c] && any;
		}
		free(sheet);
		sheet = NULL;
		if (asprintf(&sheet, "%s_%s_%s", name, what[part], tag_var) < 0) {
			err = -ENOMEM;
			break;
		}
		err = sorted_copy(joined, sheet, rows, m,
				  tl_sheet_col_index(joined, part == 2 ? sv : sb), keep, &out[part]);
	}
out:
	if (err)
		for (part = 0; part < 3; part++) {
			tl_sheet_free(out[part]);
			out[part] = NULL;
		}
	free(sheet);
	free(cb);
	free(cv);
	free(sb);
	free(sv);
	free(rows);
	free(keep);
	return err;
}

/* ------------------------------------------------------------ the reports */

#define SPEC_LIST(a) a, RPT_N(a)

static const char *const unique_keys[] = { "name", "Input type", "Input Dims", "Input Strides",
					   "Concrete Inputs" };
static const char *const unique_diff[] = { "total_direct_kernel_time_sum",
					   "total_direct_kernel_time_mean", "operation_count" };
static const char *const unified_diff[] = { "Kernel Time (µs)_sum", "Kernel Time (µs)_mean",
					    "operation_count" };
static const char *const name_key[] = { "name" };
static const char *const ops_diff[] = { "total_direct_kernel_time_ms", "Count" };
static const char *const ops_drop[] = { "total_direct_kernel_time_sum" };
static const char *const kernel_key[] = { "Kernel name" };
static const char *const kernel_diff[] = { "Kernel duration (µs)_sum",
					   "Kernel duration (µs)_mean",
					   "Kernel duration (µs)_count" };
static const char *const kernel_drop[] = { "Kernel duration (µs)_min",
					   "Kernel duration (µs)_max", "Parent op category" };
static const char *const cumulative[] = { "Cumulative Percentage (%)" };
static const char *const type_key[] = { "type" };
static const char *const time_diff[] = { "time ms" };
static const char *const perf_diff[] = { "Kernel Time (µs)_sum", "Kernel Time (µs)_mean",
					 "name_count", "TFLOPS/s_mean", "TB/s_mean" };
static const char *const perf_drop_variant[] = { "GFLOPS_first", "Data Moved (MB)_first",
						 "FLOPS/Byte_first", "Input type_first",
						 "Input Dims_first", "Input Strides_first",
						 "Concrete Inputs_first" };

/* A sheet and its three splits. */
static int add_split(struct tl_report *r, const struct tl_sheet *b, const struct tl_sheet *v,
		     const char *tb, const char *tv, const struct tl_compare_spec *spec,
		     const char *name)
{
	struct tl_sheet *joined = NULL, *part[3];
	int err = tl_sheet_compare(b, v, tb, tv, spec, name, &joined), i;

	if (!err)
		err = tl_sheet_compare_split(joined, name, tb, tv, spec->diff_cols[0],
					     spec->sort_col, part);
	tl_sheet_free(joined);
	for (i = 0; !err && i < 3; i++) {
		err = rpt_report_push(r, part[i]);
		part[i] = NULL;
	}
	if (err && i < 3)
		while (i < 3)
			tl_sheet_free(part[i++]);
	return err;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A perf-model sheet: joined on name and the parameters both have. */
static int perf_sheet(struct tl_report *r, const struct tl_sheet *b, const struct tl_sheet *v,
		      const char *tb, const char *tv, const char *name)
{
	size_t nc = tl_sheet_ncols(b), c, nk = 1;
	const char **keys = malloc((nc + 1) * sizeof(*keys));
	struct tl_compare_spec spec = { .diff_cols = SPEC_LIST(perf_diff),
					.drop_variant = perf_drop_variant,
					.ndrop_variant = RPT_N(perf_drop_variant),
					.sort_col = "Kernel Time (µs)_sum" };
	int err;

	if (!keys)
		return -ENOMEM;
	keys[0] = "name";
	for (c = 0; c < nc; c++) {
		const char *col = tl_sheet_col(b, c);

		if (!strncmp(col, "param:", 6) && tl_sheet_col_index(v, col) >= 0)
			keys[nk++] = col;
	}
	tl_qsort(keys + 1, nk - 1, sizeof(*keys), cmp_str);
	spec.keys = keys;
	spec.nkeys = nk;
	err = add_split(r, b, v, tb, tv, &spec, name);
	free(keys);
	return err;
}

int tl_report_compare(const struct tl_report *base, const struct tl_report *var, const char *tb,
		      const char *tv, struct tl_report **out)
{
	static const char *const perf[][2] = {
		{ "GEMM", "GEMM" }, { "SDPA_fwd", "SDPA_fwd" }, { "SDPA_bwd", "SDPA_bwd" },
		{ "CONV_fwd", "CONV_fwd" }, { "CONV_bwd", "CONV_bwd" },
		{ "UnaryElementwise", "un_eltwise" }, { "BinaryElementwise", "bin_eltwise" },
	};
	static const char *const split[] = { "ops_unique_args", "unified_perf_summary" };
	const struct tl_compare_spec timeline = { SPEC_LIST(type_key), SPEC_LIST(time_diff),
						  NULL, 0, NULL, 0, NULL };
	const struct tl_compare_spec ops = { SPEC_LIST(name_key), SPEC_LIST(ops_diff),
					     SPEC_LIST(ops_drop), SPEC_LIST(cumulative),
					     "total_direct_kernel_time_ms" };
	const struct tl_compare_spec kernels = { SPEC_LIST(kernel_key), SPEC_LIST(kernel_diff),
						 SPEC_LIST(kernel_drop), SPEC_LIST(cumulative),
						 "Kernel duration (µs)_sum" };
	const struct tl_compare_spec unique = { SPEC_LIST(unique_keys), SPEC_LIST(unique_diff),
						NULL, 0, NULL, 0, "total_direct_kernel_time_sum" };
	const struct tl_compare_spec unified = { SPEC_LIST(unique_keys), SPEC_LIST(unified_diff),
						 NULL, 0, NULL, 0, "Kernel Time (µs)_sum" };
	const struct tl_compare_spec *const summaries[] = { &timeline, &ops, &kernels };
	static const char *const summary_names[] = { "gpu_timeline", "ops_summary",
						     "kernel_summary" };
	struct tl_report *r;
	struct tl_sheet *sh = NULL;
	size_t i;
	int err = 0;

	*out = NULL;
	if (!strcmp(tb, tv))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (i = 0; !err && i < RPT_N(summaries); i++) {
		const struct tl_sheet *b = tl_report_sheet(base, summary_names[i]);
		const struct tl_sheet *v = tl_report_sheet(var, summary_names[i]);

		if (!b || !v)
			continue;
		err = tl_sheet_compare(b, v, tb, tv, summaries[i], summary_names[i], &sh);
		if (!err)
			err = rpt_report_push(r, sh);
	}
	for (i = 0; !err && i < RPT_N(split); i++) {
		const struct tl_sheet *b = tl_report_sheet(base, split[i]);
		const struct tl_sheet *v = tl_report_sheet(var, split[i]);

		if (b && v)
			err = add_split(r, b, v, tb, tv, i ? &unified : &unique, split[i]);
	}
	/* TraceLens skips a perf sheet either report has no rows in */
	for (i = 0; !err && i < RPT_N(perf); i++) {
		const struct tl_sheet *b = tl_report_sheet(base, perf[i][0]);
		const struct tl_sheet *v = tl_report_sheet(var, perf[i][0]);

		if (b && v && tl_sheet_nrows(b) && tl_sheet_nrows(v))
			err = perf_sheet(r, b, v, tb, tv, perf[i][1]);
	}
	if (err) {
		tl_report_free(r);
		return err;
	}
	*out = r;
	return 0;
}
