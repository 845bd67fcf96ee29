/* SPDX-License-Identifier: MIT */
/* `tlreplay kernels --short`: one TraceLens short_kernel_histogram per
 * device that ran a kernel, from the report's own sheet code. */
#include <math.h>
#include <stdlib.h>

#include <tlreplay/kernel_seq.h>
#include <tlreplay/report.h>
#include <tlreplay/report_sheets.h>

#include "report/kernels-short.h"

static double parse_thresh(const char *s)
{
	char *end;
	double v;

	if (!s)
		return 10.0;
	v = strtod(s, &end);
	return end != s && !*end && isfinite(v) && v > 0 ? v : NAN;
}

int kernels_short_check(const char *thresh, unsigned long long bins)
{
	if (isnan(parse_thresh(thresh)))
		return cli_error("kernels: bad --short-thresh-us '%s' (microseconds, a number > 0)", thresh);
	if (bins > 1000000)
		return cli_error("kernels: bad --bins %llu (1 to 1000000)", bins);
	return 0;
}

/* The rows of one device's histogram. */
static void print_device(struct out_fmt *o, const char *dev, const struct tl_sheet *sh)
{
	size_t r, n = tl_sheet_nrows(sh);
	unsigned long long tot = 0;

	for (r = 0; r < n; r++)
		tot += (unsigned long long)tl_sheet_cell(sh, r, 2)->i;
	if (!o->sep && !o->json)
		fprintf(o->f, "device %s: %llu short kernels\n%14s %14s %10s\n", dev, tot, "bin start us",
			"bin end us", "count");
	for (r = 0; r < n; r++) {
		double a = tl_sheet_cell(sh, r, 0)->d, z = tl_sheet_cell(sh, r, 1)->d;
		long long c = tl_sheet_cell(sh, r, 2)->i;
		char cb[32];

		snprintf(cb, sizeof(cb), "%lld", c);
		if (o->json) {
			fputs("{\"device\":", o->f);
			json_str(o->f, dev);
			fputs(",\"bin_start_us\":", o->f);
			out_num(o, a, false);
			fputs(",\"bin_end_us\":", o->f);
			out_num(o, z, false);
			fprintf(o->f, ",\"count\":%s}\n", cb);
		} else if (o->sep) {
			out_field(o, dev, false);
			out_num(o, a, false);
			out_num(o, z, false);
			out_field(o, cb, true);
		} else {
			fprintf(o->f, "%14.4f %14.4f %10s\n", a, z, cb);
		}
	}
}

int kernels_short(struct tl_trace *tr, struct out_fmt *o, const char *thresh, unsigned long long bins)
{
	struct tl_short_kernel_opts so = { .sz = sizeof(so) };
	const char **devs = NULL;
	int64_t nd = tl_kernel_devices(tr, &devs), i;
	int rc = 1, err;

	if (nd < 0)
		return cli_lib_error((int)nd);
	if (!nd)
		return cli_error("kernels: no kernel events in the trace");
	so.threshold_us = parse_thresh(thresh);
	so.bins = (unsigned)bins;
	if (o->sep)
		fprintf(o->f, "device%sbin_start_us%sbin_end_us%scount\n", o->sep, o->sep, o->sep);
	for (i = 0; i < nd; i++) {
		struct tl_sheet *sh = NULL;

		so.device = devs[i];
		err = tl_sheet_short_kernel_histogram(tr, &so, &sh);
		if (err) {
			cli_lib_error(err);
			goto out;
		}
		if (!o->sep && !o->json && i)
			fputc('\n', o->f);
		print_device(o, devs[i], sh);
		tl_sheet_free(sh);
	}
	rc = 0;
out:
	free(devs);
	return rc;
}
