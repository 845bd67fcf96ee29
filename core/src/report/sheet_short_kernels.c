/* SPDX-License-Identifier: MIT */
/* TraceLens's short-kernel study (generate_perf_report_pytorch's
 * get_dfs_short_kernels): the kernels shorter than a threshold, as a
 * histogram of their durations and as a summary grouped by the cpu_op that
 * launched them. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <tlreplay/analysis.h>
#include <tlreplay/report_sheets.h>
#include <tlreplay/trace.h>
#include <tlreplay/tree.h>

#include "report/report_internal.h"
#include "trace/trace_internal.h"

#define SK_THRESHOLD_US 10.0	/* TraceLens's --short_kernel_threshold_us */
#define SK_BINS 100		/* --short_kernel_histogram_bins */

struct sk_opts {
	double thr;
	unsigned bins;
	size_t topk;
	const char *device;
};

static struct sk_opts sk_opts_of(const struct tl_short_kernel_opts *o)
{
	struct sk_opts r = { SK_THRESHOLD_US, SK_BINS, 0, NULL };

	if (o && o->sz >= offsetof(struct tl_short_kernel_opts, threshold_us) + sizeof(double) &&
	    o->threshold_us > 0)
		r.thr = o->threshold_us;
	if (o && o->sz >= offsetof(struct tl_short_kernel_opts, bins) + sizeof(unsigned) && o->bins)
		r.bins = o->bins;
	if (o && o->sz >= offsetof(struct tl_short_kernel_opts, topk) + sizeof(size_t))
		r.topk = o->topk;
	if (o && o->sz >= offsetof(struct tl_short_kernel_opts, device) + sizeof(const char *))
		r.device = o->device;
	return r;
}

/* Is @e a kernel TraceLens's get_df_kernels counts as short? */
static bool is_short(const struct tl_event_info *e, double thr)
{
	return e->kind == TL_KIND_KERNEL && e->has_dur && e->dur < thr;
}

/* ------------------------------------------------------------------ histogram */

int tl_sheet_short_kernel_histogram(struct tl_trace *tr, const struct tl_short_kernel_opts *opts,
				    struct tl_sheet **out)
{
	static const char *const cols[] = { "bin_start", "bin_end", "count" };
	struct sk_opts o = sk_opts_of(opts);
	TL_VEC(double) v = { 0 };
	uint64_t *counts = NULL;
	double lo = INFINITY, hi = -INFINITY, step;
	struct tl_sheet *sh = NULL;
	uint64_t uid, n = tl_trace_nevents(tr);
	size_t i;
	int err;

	*out = NULL;
	err = tl_sheet_new("short_kernel_histogram", 3, cols, &sh);
	if (err)
		goto out;
	for (uid = 0; uid < n; uid++) {
		struct tl_event_info e;

		if (tl_trace_event(tr, uid, &e) || !is_short(&e, o.thr) ||
		    (o.device && strcmp(e.pid, o.device)))
			continue;
		if (tl_vec_push(&v, e.dur)) {
			err = -ENOMEM;
			goto out;
		}
		lo = e.dur < lo ? e.dur : lo;
		hi = e.dur > hi ? e.dur : hi;
	}
	if (!v.n)
		goto out;
	/* numpy widens an empty range by half a unit either side */
	if (lo == hi) {
		lo -= 0.5;
		hi += 0.5;
	}
	counts = calloc(o.bins, sizeof(*counts));
	if (!counts) {
		err = -ENOMEM;
		goto out;
	}
	step = (hi - lo) / o.bins;
	for (i = 0; i < v.n; i++) {
		/* numpy's rule: the index from the scaled offset, then moved by
		 * one where float rounding put the value past an edge; the last
		 * bin is closed */
		long b = (long)((v.v[i] - lo) * (o.bins / (hi - lo)));

		if (b >= (long)o.bins)
			b = (long)o.bins - 1;
		if (b > 0 && v.v[i] < lo + b * step)
			b--;
		else if (b + 1 < (long)o.bins && v.v[i] >= lo + (b + 1) * step)
			b++;
		counts[b]++;
	}
	for (i = 0; i < o.bins; i++) {
		/* linspace: start + i * step, the last edge exactly the stop */
		double a = lo + (double)i * step;
		double z = i + 1 == o.bins ? hi : lo + (double)(i + 1) * step;
		struct tl_cell row[3] = { tl_cell_num(a), tl_cell_num(z), tl_cell_int((long long)counts[i]) };

		err = tl_sheet_add_row(sh, row);
		if (err)
			goto out;
	}
out:
	free(counts);
	tl_vec_free(&v);
	if (err)
		tl_sheet_free(sh);
	else
		*out = sh;
	return err;
}

/* ------------------------------------------------------------------ summary */

struct sk_group {
	uint32_t key;		/* interned "op\x1fdims\x1fstrides\x1fconcrete\x1fkernel" */
	uint64_t count;
	double sum, comp;	/* Kahan sum, as pandas' groupby sums floats */
	size_t first;		/* order of first appearance (groupby sort=False) */
};

static int cmp_group(const void *pa, const void *pb)
{
	const struct sk_group *a = pa, *b = pb;
	double ma = a->sum / (double)a->count, mb = b->sum / (double)b->count;

	/* sum descending, then the other columns ascending; pandas' sort on
	 * several keys is stable, so first appearance breaks the rest */
	if (a->sum != b->sum)
		return a->sum > b->sum ? -1 : 1;
	if (a->count != b->count)
		return a->count < b->count ? -1 : 1;
	if (ma != mb)
		return ma < mb ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

/* The lowest cpu_op at or above @p uid's launcher, or -1. */
static int64_t parent_cpu_op(const struct tl_trace *tr, uint64_t uid)
{
	int64_t p = tl_event_parent(tr, uid);
	struct tl_event_info e;

	for (; p >= 0; p = tl_event_parent(tr, (uint64_t)p))
		if (!tl_trace_event(tr, (uint64_t)p, &e) && e.kind == TL_KIND_CPU_OP)
			return p;
	return -1;
}

/* The group key of a short kernel into *key; 1 when the kernel belongs to
 * no group (pandas drops rows with a missing key: no cpu_op above it, or a
 * cpu_op that recorded no shapes), 0, or -errno. */
static int group_key(struct tl_trace *tr, const struct tl_event_info *k, bool gpu_only,
		     char **key, size_t *len, size_t *cap)
{
	static const char *const fields[] = { "Input Dims", "Input Strides", "Concrete Inputs" };
	struct tl_event_info op;
	cJSON *args = NULL;
	int64_t p;
	size_t i;
	int err = 0;

	*len = 0;
	if (gpu_only)
		goto name;
	p = parent_cpu_op(tr, k->uid);
	if (p < 0 || tl_trace_event(tr, (uint64_t)p, &op))
		return 1;
	err = tl_trace_event_args(tr, (uint64_t)p, &args);
	if (err)
		goto out;
	err = tl_grow((void **)key, cap, strlen(op.name) + 2, 1);
	if (err)
		goto out;
	*len = (size_t)sprintf(*key, "%s\x1f", op.name);
	for (i = 0; i < TL_ARRAY_SIZE(fields); i++) {
		const cJSON *f = args ? cJSON_GetObjectItemCaseSensitive(args, fields[i]) : NULL;

		if (!f || cJSON_IsNull(f)) {
			err = 1;
			goto out;
		}
		err = tl_pyrepr_tuple(f, key, len, cap);
		if (!err)
			err = tl_grow((void **)key, cap, *len + 2, 1);
		if (err)
			goto out;
		(*key)[(*len)++] = '\x1f';
	}
name:
	err = tl_grow((void **)key, cap, *len + strlen(k->name) + 1, 1);
	if (!err) {
		strcpy(*key + *len, k->name);
		*len += strlen(k->name);
	}
out:
	cJSON_Delete(args);
	return err;
}

/* TraceLens's check_gpu_only: no event of category "cpu_op" or
 * "python_func" (its spelling, which Kineto's "python_function" is not):
 * such a trace is grouped by kernel name alone. */
static bool is_gpu_only(const struct tl_trace *tr)
{
	uint64_t uid, n = tl_trace_nevents(tr);
	struct tl_event_info e;

	for (uid = 0; uid < n; uid++)
		if (!tl_trace_event(tr, uid, &e) && (!strcmp(e.cat, "cpu_op") || !strcmp(e.cat, "python_func")))
			return false;
	return true;
}

static double total_time_us(struct tl_trace *tr)
{
	struct tl_breakdown_opts bo = { .sz = sizeof(bo) };
	struct tl_breakdown_set *bd = NULL;
	double t = NAN;

	if (!tl_breakdown(tr, &bo, &bd) && bd->n)
		t = bd->v[0].us[TL_BD_TOTAL];
	tl_breakdown_free(bd);
	return t;
}

static int add_group_row(struct tl_sheet *sh, const struct sk_group *g, const char *key,
			 double total_us)
{
	struct tl_cell row[9];
	char *copy = strdup(key), *s, *f;
	size_t n = 0;
	int err;

	if (!copy)
		return -ENOMEM;
	for (s = copy; (f = strsep(&s, "\x1f")) && n < 5;)
		row[n++] = tl_cell_str(f);
	row[n++] = tl_cell_num(g->sum);
	row[n++] = tl_cell_int((long long)g->count);
	row[n++] = tl_cell_num(g->sum / (double)g->count);
	row[n++] = tl_cell_num(g->sum / total_us * 100);
	err = tl_sheet_add_row(sh, row);
	free(copy);
	return err;
}

int tl_sheet_short_kernels_summary(struct tl_trace *tr, const struct tl_short_kernel_opts *opts,
				   struct tl_sheet **out)
{
	static const char *const cols[] = {
		"Parent cpu_op", "Input dims", "Input strides", "Concrete Inputs", "Kernel name",
		"Short Kernel duration (µs) sum", "Short Kernel count",
		"Short Kernel duration (µs) mean",
		"Short Kernel duration (µs) percent of total time",
	};
	struct sk_opts o = sk_opts_of(opts);
	struct tl_strtab keys;
	TL_VEC(struct sk_group) g = { 0 };
	struct tl_sheet *sh = NULL;
	char *key = NULL;
	size_t klen = 0, kcap = 0, i, j, nseen = 0;
	uint64_t uid, n = tl_trace_nevents(tr);
	double total;
	bool gpu_only;
	int err;

	*out = NULL;
	if (tl_strtab_init(&keys))
		return -ENOMEM;
	gpu_only = is_gpu_only(tr);
	err = gpu_only ? tl_sheet_new("short_kernels_summary", 5, cols + 4, &sh)
		       : tl_sheet_new("short_kernels_summary", 9, cols, &sh);
	/* the call tree as the caller built it: the lowest cpu_op above a
	 * kernel is the same with or without python functions in the tree,
	 * so no rebuild for it */
	if (!err)
		err = tl_tree_ensure(tr, tr->tree.built && tr->tree.with_python);
	if (err)
		goto out;
	for (uid = 0; uid < n; uid++) {
		struct tl_event_info e;
		uint32_t id;

		if (tl_trace_event(tr, uid, &e) || !is_short(&e, o.thr))
			continue;
		err = group_key(tr, &e, gpu_only, &key, &klen, &kcap);
		if (err < 0)
			goto out;
		if (err) {
			err = 0;
			continue;
		}
		id = tl_strtab_intern(&keys, key, klen);
		if (id == UINT32_MAX) {
			err = -ENOMEM;
			goto out;
		}
		/* a group per id, at index id: ids are dense, 0 being "" (a GPU-only
		 * trace's kernel with no name, or an empty one; indexing id - 1 wrote
		 * before the array for it); first-seen order is counted apart */
		while (g.n <= id) {
			struct sk_group ng = { .key = (uint32_t)g.n };

			if (tl_vec_push(&g, ng)) {
				err = -ENOMEM;
				goto out;
			}
		}
		{
			struct sk_group *x = &g.v[id];
			double y = e.dur - x->comp, t = x->sum + y;

			if (!x->count)
				x->first = nseen++;

			x->comp = (t - x->sum) - y;
			x->sum = t;
			x->count++;
		}
	}
	total = total_time_us(tr);
	/* the groups no kernel fell in ("" when none was nameless) go */
	for (i = j = 0; i < g.n; i++)
		if (g.v[i].count)
			g.v[j++] = g.v[i];
	g.n = j;
	tl_qsort(g.v, g.n, sizeof(*g.v), cmp_group);
	for (i = 0; i < g.n && (!o.topk || i < o.topk); i++) {
		err = add_group_row(sh, &g.v[i], tl_strtab_get(&keys, g.v[i].key), total);
		if (err)
			goto out;
	}
out:
	free(key);
	tl_vec_free(&g);
	tl_strtab_free(&keys);
	if (err) {
		tl_sheet_free(sh);
		return err == -ENOMEM ? tl_err(err, "short_kernels_summary: out of memory") : err;
	}
	*out = sh;
	return 0;
}
