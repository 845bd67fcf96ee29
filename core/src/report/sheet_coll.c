/* SPDX-License-Identifier: MIT */
/* TraceLens's coll_analysis sheet: NcclAnalyser's build_df_summary_long over
 * the one trace of a report. Every linked NCCL/RCCL kernel is a row of the
 * collective metadata its args record; rows are grouped by all of it, the
 * groups get their durations' sum, mean, std, min, max and count. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <tlreplay/report_sheets.h>
#include <tlreplay/trace.h>

#include "report/report_internal.h"

/* The args TraceLens groups by, after the rank, in its order. */
static const char *const fields[] = {
	"Process Group Name", "Process Group Ranks", "Collective name", "Group size", "dtype",
	"In msg nelems", "Out msg nelems", "In split size", "Out split size", "stream",
};
#define NF TL_ARRAY_SIZE(fields)
enum { F_PG = 0, F_NAME = 2, F_DTYPE = 4, F_IN = 5, F_OUT = 6, F_STREAM = 9 };

/* One value of a field: absent (pandas' None/NaN), a number or text (a list
 * is its tuple repr, as TraceLens turns lists into tuples). */
struct val {
	enum { V_NONE = 0, V_NUM, V_STR } kind;
	double d;
	char *s;
};

struct crow {
	struct val f[NF];
	double dur, in_mb, out_mb;	/* sizes NaN when unknown */
	size_t order;
};

/* pandas' groupby orders keys: numbers by value, text by code point */
static int cmp_val(const struct val *a, const struct val *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->kind == V_NUM)
		return tl_cmp_double(a->d, b->d);
	if (a->kind == V_STR)
		return strcmp(a->s, b->s);
	return 0;
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct crow *a = pa, *b = pb;
	size_t i;
	int c;

	for (i = 0; i < NF; i++)
		if ((c = cmp_val(&a->f[i], &b->f[i])))
			return c;
	return a->order < b->order ? -1 : a->order > b->order;
}

static bool comm_kernel_name(const char *s)
{
	/* TraceLens's COMMUNICATION_KEYS and its default custom collective,
	 * searched without case */
	return strcasestr(s, "nccl") || strcasestr(s, "rccl") || strcasestr(s, "cross_device_reduce");
}

/* NcclAnalyser's dtype2bytes: only these names give a message size */
static int dtype_bytes(const char *d)
{
	static const struct { const char *n; int b; } t[] = {
		{ "Float", 4 }, { "Int", 4 }, { "Long", 8 }, { "BFloat16", 2 }, { "Bool", 1 },
		{ "Byte", 1 }, { "Double", 8 }, { "Half", 2 }, { "Short", 2 },
	};
	size_t i;

	for (i = 0; d && i < TL_ARRAY_SIZE(t); i++)
		if (!strcmp(d, t[i].n))
			return t[i].b;
	return 0;
}

static int read_val(const cJSON *v, struct val *out)
{
	size_t len = 0, cap = 0;

	memset(out, 0, sizeof(*out));
	if (!v || cJSON_IsNull(v))
		return 0;
	if (cJSON_IsNumber(v)) {
		out->kind = V_NUM;
		out->d = v->valuedouble;
		return 0;
	}
	out->kind = V_STR;
	if (cJSON_IsString(v))
		out->s = strdup(v->valuestring);
	else if (tl_pyrepr_tuple(v, &out->s, &len, &cap))
		return -ENOMEM;
	return out->s ? 0 : -ENOMEM;
}

static void free_rows(struct crow *r, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < NF; j++)
			free(r[i].f[j].s);
	free(r);
}

/* Read every collective kernel of the trace as a row. */
static int read_rows(struct tl_trace *tr, struct crow **rows, size_t *nrows)
{
	TL_VEC(struct crow) v = { 0 };
	uint64_t uid, n = tl_trace_nevents(tr);
	cJSON *args = NULL;
	int err = 0;

	for (uid = 0; uid < n && !err; uid++) {
		struct tl_event_info e;
		struct crow r = { .order = v.n };
		size_t i;
		int b;

		if (tl_trace_event(tr, uid, &e) || strcmp(e.cat, "kernel") || !comm_kernel_name(e.name) ||
		    (e.correlation == TL_NOID && e.external_id == TL_NOID))
			continue;
		err = tl_trace_event_args(tr, uid, &args);
		for (i = 0; !err && i < NF; i++)
			err = read_val(args ? cJSON_GetObjectItemCaseSensitive(args, fields[i]) : NULL, &r.f[i]);
		cJSON_Delete(args);
		args = NULL;
		if (!err && r.f[F_NAME].kind == V_NONE && strcasestr(e.name, "cross_device_reduce")) {
			r.f[F_NAME].kind = V_STR;
			r.f[F_NAME].s = strdup("allreduce");
			err = r.f[F_NAME].s ? 0 : -ENOMEM;
		}
		r.dur = e.dur;
		b = r.f[F_DTYPE].kind == V_STR ? dtype_bytes(r.f[F_DTYPE].s) : 0;
		r.in_mb = b && r.f[F_IN].kind == V_NUM ? r.f[F_IN].d * b / (1024.0 * 1024.0) : NAN;
		r.out_mb = b && r.f[F_OUT].kind == V_NUM ? r.f[F_OUT].d * b / (1024.0 * 1024.0) : NAN;
		if (!err && tl_vec_push(&v, r))
			err = -ENOMEM;
		if (err) {
			for (i = 0; i < NF; i++)
				free(r.f[i].s);
		}
	}
	if (err) {
		free_rows(v.v, v.n);
		return err;
	}
	*rows = v.v;
	*nrows = v.n;
	return 0;
}

/* Rows without a process group: TraceLens calls them all "all" when no row
 * has one and the kernels ran on one stream, else "Unknown_Group". */
static int fill_pg(struct crow *r, size_t n)
{
	bool any_pg = false, one_stream = true;
	const struct val *stream = NULL;
	const char *name;
	size_t i;

	for (i = 0; i < n; i++) {
		if (r[i].f[F_PG].kind != V_NONE &&
		    !(r[i].f[F_PG].kind == V_STR && !strcmp(r[i].f[F_PG].s, "Unknown_Group")))
			any_pg = true;
		/* pandas' nunique: rows without a stream do not count */
		if (r[i].f[F_STREAM].kind == V_NONE)
			continue;
		if (!stream)
			stream = &r[i].f[F_STREAM];
		else if (cmp_val(&r[i].f[F_STREAM], stream))
			one_stream = false;
	}
	name = !any_pg && one_stream ? "all" : "Unknown_Group";
	for (i = 0; i < n; i++) {
		if (!any_pg && one_stream)
			free(r[i].f[F_PG].s);
		else if (r[i].f[F_PG].kind != V_NONE)
			continue;
		r[i].f[F_PG].kind = V_STR;
		r[i].f[F_PG].s = strdup(name);
		if (!r[i].f[F_PG].s)
			return -ENOMEM;
	}
	return 0;
}

struct cgroup {
	size_t first, n;	/* rows [first, first + n) of the sorted rows */
	double sum;
};

static int cmp_group(const void *pa, const void *pb)
{
	const struct cgroup *a = pa, *b = pb;

	if (a->sum != b->sum)
		return a->sum > b->sum ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

static struct tl_cell val_cell(const struct val *v, bool as_float)
{
	if (v->kind == V_STR)
		return tl_cell_str(v->s);
	if (v->kind == V_NUM)
		return as_float ? tl_cell_num(v->d) : tl_cell_int((long long)v->d);
	return tl_cell_empty();
}

/* The group's first size that is known (pandas' "first" skips NaN). */
static double first_known(const struct crow *r, size_t n, bool in)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isnan(in ? r[i].in_mb : r[i].out_mb))
			return in ? r[i].in_mb : r[i].out_mb;
	return NAN;
}

static int add_group(struct tl_sheet *sh, const struct crow *r, size_t n, const bool *as_float)
{
	struct tl_cell row[NF + 9];
	double sum = 0, mean, ss = 0, mn = INFINITY, mx = -INFINITY;
	size_t i, c = 0;

	for (i = 0; i < n; i++) {
		sum += r[i].dur;
		mn = r[i].dur < mn ? r[i].dur : mn;
		mx = r[i].dur > mx ? r[i].dur : mx;
	}
	mean = sum / (double)n;
	for (i = 0; i < n; i++)
		ss += (r[i].dur - mean) * (r[i].dur - mean);
	row[c++] = tl_cell_int(0);	/* the report's one trace is rank 0 */
	for (i = 0; i < NF; i++)
		row[c++] = val_cell(&r[0].f[i], as_float[i]);
	row[c++] = tl_cell_num(first_known(r, n, true));
	row[c++] = tl_cell_num(first_known(r, n, false));
	row[c++] = tl_cell_num(sum);
	row[c++] = tl_cell_num(mean);
	row[c++] = tl_cell_num(n > 1 ? sqrt(ss / (double)(n - 1)) : NAN);
	row[c++] = tl_cell_num(mn);
	row[c++] = tl_cell_num(mx);
	row[c++] = tl_cell_int((long long)n);
	return tl_sheet_add_row(sh, row);
}

int tl_sheet_coll_analysis(struct tl_trace *tr, struct tl_sheet **out)
{
	static const char *const cols[] = {
		"rank", "Process Group Name", "Process Group Ranks", "Collective name", "Group size",
		"dtype", "In msg nelems", "Out msg nelems", "In split size", "Out split size", "stream",
		"In msg size (MB)_first", "Out msg size (MB)_first", "dur_sum", "dur_mean", "dur_std",
		"dur_min", "dur_max", "operation_count",
	};
	struct crow *r = NULL;
	TL_VEC(struct cgroup) g = { 0 };
	struct tl_sheet *sh = NULL;
	bool as_float[NF] = { 0 };
	size_t n = 0, i, j, k;
	int err;

	*out = NULL;
	err = tl_sheet_new("coll_analysis", TL_ARRAY_SIZE(cols), cols, &sh);
	if (!err)
		err = read_rows(tr, &r, &n);
	if (!err && n)
		err = fill_pg(r, n);
	if (err)
		goto out;
	/* a column of numbers with a gap is float64 in pandas: 8 prints 8.0 */
	for (j = 0; j < NF; j++) {
		bool gap = false, num = false, str = false;

		for (i = 0; i < n; i++) {
			gap |= r[i].f[j].kind == V_NONE;
			num |= r[i].f[j].kind == V_NUM;
			str |= r[i].f[j].kind == V_STR;
			/* past int64 no integer column holds it (nor may it be cast) */
			if (r[i].f[j].kind == V_NUM &&
			    (r[i].f[j].d != floor(r[i].f[j].d) || !(fabs(r[i].f[j].d) < 9.2e18)))
				gap = true;
		}
		as_float[j] = num && !str && gap;
	}
	tl_qsort(r, n, sizeof(*r), cmp_row);
	for (i = 0; i < n; i = k) {
		struct cgroup cg = { .first = i };
		bool dropped = false;

		for (k = i; k < n; k++) {
			for (j = 0; j < NF && !cmp_val(&r[k].f[j], &r[i].f[j]); j++)
				;
			if (j < NF)
				break;
			cg.sum += r[k].dur;
		}
		cg.n = k - i;
		/* groupby drops rows with a missing key */
		for (j = 0; j < NF; j++)
			dropped |= r[i].f[j].kind == V_NONE;
		if (!dropped && tl_vec_push(&g, cg)) {
			err = -ENOMEM;
			goto out;
		}
	}
	/* stable: equal sums keep groupby's key order */
	tl_qsort(g.v, g.n, sizeof(*g.v), cmp_group);
	for (i = 0; i < g.n && !err; i++)
		err = add_group(sh, r + g.v[i].first, g.v[i].n, as_float);
out:
	free_rows(r, n);
	tl_vec_free(&g);
	if (err) {
		tl_sheet_free(sh);
		return tl_err(err, "coll_analysis: %s", strerror(-err));
	}
	*out = sh;
	return 0;
}
