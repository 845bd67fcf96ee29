/* SPDX-License-Identifier: MIT */
/* TraceLens's short-kernel study: the kernels shorter than a threshold as a
 * histogram of their durations (numpy's histogram, 100 equal bins) and
 * grouped by parent cpu_op, its recorded args and kernel name. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <tlreplay/tree.h>

#include "report/report_internal.h"

#define NBINS 100

struct skern {
	uint64_t uid;
	double dur;
	const char *name;
	char *key[4];		/* parent cpu_op, Input dims, Input strides, Concrete Inputs; NULL: NaN */
};

struct sgroup {
	size_t first;
	double sum;
	size_t n;
};

/* numpy.histogram(v, bins=100): equal bins from min to max (widened by 0.5
 * each side when they are equal), the last bin closed. */
static int histogram(const struct skern *k, size_t n, struct tl_sheet **out)
{
	static const char *const cols[] = { "bin_start", "bin_end", "count" };
	double edges[NBINS + 1], lo = INFINITY, hi = -INFINITY, norm;
	long long counts[NBINS] = { 0 };
	struct tl_sheet *sh = NULL;
	size_t i;
	int err;

	err = tl_sheet_new("short_kernel_histogram", 3, cols, &sh);
	if (err || !n)
		goto done;
	for (i = 0; i < n; i++) {
		lo = fmin(lo, k[i].dur);
		hi = fmax(hi, k[i].dur);
	}
	if (lo == hi) {
		lo -= 0.5;
		hi += 0.5;
	}
	/* linspace: start + i * step, the last edge exactly the stop */
	for (i = 0; i <= NBINS; i++)
		edges[i] = lo + (double)i * ((hi - lo) / NBINS);
	edges[NBINS] = hi;
	norm = NBINS / (hi - lo);
	for (i = 0; i < n; i++) {
		double v = k[i].dur;
		long b = (long)((v - lo) * norm);

		if (b == NBINS)
			b--;
		/* numpy's correction of the float estimate against the edges */
		if (v < edges[b])
			b--;
		else if (b != NBINS - 1 && v >= edges[b + 1])
			b++;
		counts[b]++;
	}
	for (i = 0; i < NBINS && !err; i++) {
		struct tl_cell row[3] = { tl_cell_num(edges[i]), tl_cell_num(edges[i + 1]),
					  tl_cell_int(counts[i]) };

		err = tl_sheet_add_row(sh, row);
	}
done:
	if (err) {
		tl_sheet_free(sh);
		return err;
	}
	*out = sh;
	return 0;
}

static bool same_key(const struct skern *a, const struct skern *b, bool gpu_only)
{
	size_t i;

	if (strcmp(a->name, b->name))
		return false;
	for (i = 0; !gpu_only && i < 4; i++)
		if (strcmp(a->key[i], b->key[i]))
			return false;
	return true;
}

/* by sum descending, then count, then mean: the other columns ascending */
static int cmp_group(const void *a, const void *b)
{
	const struct sgroup *x = a, *y = b;
	double mx = x->sum / (double)x->n, my = y->sum / (double)y->n;

	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	if (mx != my)
		return mx < my ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int summary(const struct skern *k, size_t n, bool gpu_only, double total_us,
		   struct tl_sheet **out)
{
	static const char *const cols[] = {
		"Parent cpu_op", "Input dims", "Input strides", "Concrete Inputs", "Kernel name",
		"Short Kernel duration (µs) sum", "Short Kernel count",
		"Short Kernel duration (µs) mean", "Short Kernel duration (µs) percent of total time",
	};
	struct sgroup *g = calloc(n ? n : 1, sizeof(*g));
	size_t ng = 0, i, j, skip = gpu_only ? 4 : 0;
	struct tl_sheet *sh = NULL;
	int err = -ENOMEM;

	if (!g)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		/* pandas' groupby drops the rows with a NaN key */
		if (!gpu_only && (!k[i].key[0] || !k[i].key[1] || !k[i].key[2] || !k[i].key[3]))
			continue;
		for (j = 0; j < ng; j++)
			if (same_key(&k[g[j].first], &k[i], gpu_only))
				break;
		if (j == ng)
			g[ng++].first = i;
		g[j].sum += k[i].dur;
		g[j].n++;
	}
	qsort(g, ng, sizeof(*g), cmp_group);
	err = tl_sheet_new("short_kernels_summary", RPT_N(cols) - skip, cols + skip, &sh);
	for (j = 0; j < ng && !err; j++) {
		const struct skern *f = &k[g[j].first];
		struct tl_cell row[RPT_N(cols)];
		size_t c = 0;

		for (i = 0; !gpu_only && i < 4; i++)
			row[c++] = tl_cell_str(f->key[i]);
		row[c++] = tl_cell_str(f->name);
		row[c++] = tl_cell_num(g[j].sum);
		row[c++] = tl_cell_int((long long)g[j].n);
		row[c++] = tl_cell_num(g[j].sum / (double)g[j].n);
		row[c++] = tl_cell_num(g[j].sum / total_us * 100);
		err = tl_sheet_add_row(sh, row);
	}
	free(g);
	if (err) {
		tl_sheet_free(sh);
		return err;
	}
	*out = sh;
	return 0;
}

/* The lowest cpu_op above the kernel's launch, and its recorded args as
 * TraceLens's list_to_tuple() prints them. */
static int parent_of(struct tl_trace *tr, struct skern *s)
{
	static const char *const fields[3] = { "Input Dims", "Input Strides", "Concrete Inputs" };
	int64_t p = tl_event_parent(tr, s->uid);
	struct tl_event_info e;
	cJSON *args = NULL;
	size_t i;

	while (p >= 0 && !tl_trace_event(tr, (uint64_t)p, &e) && e.kind != TL_KIND_CPU_OP)
		p = tl_event_parent(tr, (uint64_t)p);
	if (p < 0 || tl_trace_event(tr, (uint64_t)p, &e))
		return 0;
	if (!(s->key[0] = strdup(e.name)))
		return -ENOMEM;
	if (tl_trace_event_args(tr, (uint64_t)p, &args) || !args)
		return 0;
	for (i = 0; i < 3; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, fields[i]);

		if (v && !cJSON_IsNull(v) && !(s->key[i + 1] = rpt_pyrepr(v, true))) {
			cJSON_Delete(args);
			return -ENOMEM;
		}
	}
	cJSON_Delete(args);
	return 0;
}

int rpt_short_kernel_sheets(struct tl_trace *tr, double threshold_us, double total_us, bool gpu_only,
			    struct tl_sheet **hist, struct tl_sheet **sum)
{
	uint64_t uid, n = tl_trace_nevents(tr);
	struct skern *k = NULL;
	size_t nk = 0, cap = 0, i, j;
	int err = 0;

	*hist = *sum = NULL;
	for (uid = 0; uid < n && !err; uid++) {
		struct tl_event_info e;

		if (tl_trace_event(tr, uid, &e) || e.kind != TL_KIND_KERNEL || !(e.dur < threshold_us))
			continue;
		if (nk == cap) {
			struct skern *v = realloc(k, (cap ? 2 * cap : 256) * sizeof(*v));

			if (!v) {
				err = -ENOMEM;
				break;
			}
			k = v;
			cap = cap ? 2 * cap : 256;
		}
		memset(&k[nk], 0, sizeof(k[nk]));
		k[nk].uid = uid;
		k[nk].dur = e.dur;
		k[nk].name = e.name;
		nk++;
		if (!gpu_only)
			err = parent_of(tr, &k[nk - 1]);
	}
	if (!err)
		err = histogram(k, nk, hist);
	if (!err && nk)
		err = summary(k, nk, gpu_only, total_us, sum);
	for (i = 0; i < nk; i++)
		for (j = 0; j < 4; j++)
			free(k[i].key[j]);
	free(k);
	if (err) {
		tl_sheet_free(*hist);
		*hist = NULL;
	}
	return err;
}
