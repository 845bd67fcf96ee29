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

char *rpt_kernel_stats(const struct rpt_klist *v, size_t n, bool trunc)
{
	const struct rpt_klist *t = NULL;
	double *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	char *buf = NULL;
	size_t len = 0, i, k;
	FILE *f = NULL;

	for (i = 0; i < n && !t; i++)
		if (v[i].nk)
			t = &v[i];
	if (!tmp || (!t && trunc)) {
		free(tmp);
		return tmp ? strdup("") : NULL;
	}
	f = open_memstream(&buf, &len);
	if (!f) {
		free(tmp);
		return NULL;
	}
	fputc('[', f);
	for (k = 0; t && k < t->nk; k++) {
		struct tl_agg a;
		double var = 0;
		size_t m = 0;

		for (i = 0; i < n; i++)
			if (v[i].nk == t->nk)
				tmp[m++] = v[i].k[k].dur;
		tl_aggregate(tmp, m, &a);
		for (i = 0; i < m; i++)
			var += (tmp[i] - a.mean) * (tmp[i] - a.mean);
		fputs(k ? ", {'name': " : "{'name': ", f);
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
			put_np(f, "mean_duration_us", round2(a.mean));
		} else {
			fprintf(f, ", 'count': %zu", m);
			put_np(f, "total_duration_us", a.sum);
			put_np(f, "mean_duration_us", a.mean);
			put_np(f, "median_duration_us", a.median);
			put_np(f, "std_dev_duration_us", sqrt(var / (double)m));
			put_np(f, "min_duration_us", a.min);
			put_np(f, "max_duration_us", a.max);
		}
		fputc('}', f);
	}
	fputc(']', f);
	fclose(f);
	free(tmp);
	return buf;
}

