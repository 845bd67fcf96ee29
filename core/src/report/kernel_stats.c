/* SPDX-License-Identifier: MIT */
/* TraceLens's _summarize_kernel_stats and trunc_kernel_details: the kernels
 * of a group's calls, position by position, as the Python literal its
 * pandas writes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

static void put_np(FILE *f, const char *key, double v)
{
	char b[64];

	tl_fmt_pyfloat(b, sizeof(b), v);
	fprintf(f, ", '%s': np.float64(%s)", key, b);
}

static void put_stream(FILE *f, int64_t stream)
{
	if (stream == TL_NOID)
		fputs(", 'stream': None", f);
	else
		fprintf(f, ", 'stream': %lld", (long long)stream);
}

/* round() of numpy's float64 (what TraceLens's means are): scale, round
 * half to even, scale back: 1.505 -> 1.5, 2.645 -> 2.64. */
static double round2(double v)
{
	return rint(v * 100) / 100;
}

/* numpy's pairwise sum of doubles (what np.sum and np.mean add up): 8
 * running sums over blocks of up to 128, halves (at a multiple of 8) above;
 * a plain loop under 8. Sums of many kernels differ from a plain loop's in
 * the last bits, which the rounded means show. */
static double np_sum(const double *a, size_t n)
{
	double r[8], res = 0;
	size_t i, j, n2;

	if (n < 8) {
		for (i = 0; i < n; i++)
			res += a[i];
		return res;
	}
	if (n > 128) {
		n2 = n / 2;
		n2 -= n2 % 8;
		return np_sum(a, n2) + np_sum(a + n2, n - n2);
	}
	for (j = 0; j < 8; j++)
		r[j] = a[j];
	for (i = 8; i < n - n % 8; i += 8)
		for (j = 0; j < 8; j++)
			r[j] += a[i + j];
	res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
	for (; i < n; i++)
		res += a[i];
	return res;
}

/* TraceLens's summary lists the positions by total duration, then name
 * (a stable sort: ties keep the template's order). */
static void order_positions(const struct rpt_klist *t, const struct tl_agg *a, size_t *ord)
{
	size_t i, j;

	for (i = 0; i < t->nk; i++) {
		size_t x = i;

		for (j = i; j > 0; j--) {
			size_t y = ord[j - 1];

			if (a[y].sum < a[x].sum ||
			    (a[y].sum == a[x].sum && strcmp(t->k[y].name, t->k[x].name) <= 0))
				break;
			ord[j] = y;
		}
		ord[j] = x;
	}
}

char *rpt_kernel_stats(const struct rpt_klist *v, size_t n, bool trunc)
{
	return rpt_kernel_stats_ord(v, n, trunc, NULL);
}

char *rpt_kernel_stats_ord(const struct rpt_klist *v, size_t n, bool trunc, size_t **order)
{
	const struct rpt_klist *t = NULL;
	double *tmp = malloc((n ? n : 1) * sizeof(*tmp)), *var = NULL;
	double *dev = malloc((n ? n : 1) * sizeof(*dev));
	struct tl_agg *agg = NULL;
	size_t *cnt = NULL, *ord = NULL;
	char *buf = NULL;
	size_t len = 0, i, k, q;
	FILE *f = NULL;

	for (i = 0; i < n && !t; i++)
		if (v[i].nk)
			t = &v[i];
	if (!tmp || !dev || (!t && trunc)) {
		bool ok = tmp && dev;

		free(tmp);
		free(dev);
		return ok ? strdup("") : NULL;
	}
	if (t) {
		agg = calloc(t->nk, sizeof(*agg));
		var = calloc(t->nk, sizeof(*var));
		cnt = calloc(t->nk, sizeof(*cnt));
		ord = calloc(t->nk, sizeof(*ord));
		if (!agg || !var || !cnt || !ord)
			goto out;
	}
	for (k = 0; t && k < t->nk; k++) {
		size_t m = 0;
		double sum;

		for (i = 0; i < n; i++)
			if (v[i].nk == t->nk)
				tmp[m++] = v[i].k[k].dur;
		/* np.mean and np.std's way, in the calls' order: before
		 * tl_aggregate, which sorts tmp */
		sum = np_sum(tmp, m);
		for (i = 0; i < m; i++)
			dev[i] = (tmp[i] - sum / (double)m) * (tmp[i] - sum / (double)m);
		var[k] = np_sum(dev, m);
		tl_aggregate(tmp, m, &agg[k]);
		if (m) {
			agg[k].sum = sum;
			agg[k].mean = sum / (double)m;
		}
		cnt[k] = m;
	}
	if (t)
		order_positions(t, agg, ord);
	f = open_memstream(&buf, &len);
	if (!f)
		goto out;
	fputc('[', f);
	for (q = 0; t && q < t->nk; q++) {
		const struct tl_agg *a = &agg[ord[q]];

		k = ord[q];
		fputs(q ? ", {'name': " : "{'name': ", f);
		if (trunc && strlen(t->k[k].name) > 64) {
			char cut[68];

			memcpy(cut, t->k[k].name, 64);
			memcpy(cut + 64, "...", 4);
			rpt_put_pystr(f, cut);
		} else {
			rpt_put_pystr(f, t->k[k].name);
		}
		put_stream(f, t->k[k].stream);
		if (trunc) {
			put_np(f, "mean_duration_us", round2(a->mean));
		} else {
			fprintf(f, ", 'count': %zu", cnt[k]);
			put_np(f, "total_duration_us", a->sum);
			put_np(f, "mean_duration_us", a->mean);
			put_np(f, "median_duration_us", a->median);
			put_np(f, "std_dev_duration_us", sqrt(var[k] / (double)cnt[k]));
			put_np(f, "min_duration_us", a->min);
			put_np(f, "max_duration_us", a->max);
		}
		fputc('}', f);
	}
	fputc(']', f);
	if (fclose(f)) {
		free(buf);
		buf = NULL;
	}
	if (buf && order) {
		*order = ord;
		ord = NULL;
	}
out:
	free(ord);
	free(cnt);
	free(var);
	free(agg);
	free(tmp);
	free(dev);
	return buf;
}
