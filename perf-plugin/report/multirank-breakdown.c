/* SPDX-License-Identifier: MIT */
/* tlreplay breakdown over several ranks: one block per rank (each rank's
 * devices and streams pooled, as TraceLens does for one trace), then the
 * spread of every row over the ranks: min, median, max. */
#include <string.h>

#include "report/multirank.h"

static void human_rank(struct out_fmt *o, const struct tl_rank_summary *s, bool all)
{
	const struct tl_rank_info *ri = tl_rank_summary_info(s);
	const struct tl_breakdown *bd = tl_rank_summary_breakdown(s, all);
	int r;

	fprintf(o->f, "\nrank %d (%s): %s", ri->rank, tl_rank_source_name(ri->rank_from), ri->file);
	if (strcmp(ri->file, ri->trace))
		fprintf(o->f, " (summary of %s)", cli_base(ri->trace));
	fputs(": ", o->f);
	if (!bd) {
		fprintf(o->f, "no %sGPU events\n", all ? "" : "linked ");
		return;
	}
	fprintf(o->f, "%llu GPU events\n", (unsigned long long)bd->nevents);
	for (r = 0; r < TL_BD_NROWS; r++) {
		double total = bd->us[TL_BD_TOTAL];

		fprintf(o->f, "  %-22s %14.6f ms %8.2f%%\n", tl_bd_row_name(r), bd->us[r] / 1e3,
			total > 0 ? bd->us[r] / total * 100 : 0);
	}
}

static void human_spread(struct out_fmt *o, const struct tl_bd_spread *sp)
{
	int r;

	fprintf(o->f, "\nspread over %zu rank%s %15s %8s %15s %15s %8s\n", sp->nranks, sp->nranks == 1 ? " " : "s",
		"min", "(rank)", "median", "max", "(rank)");
	for (r = 0; r < TL_BD_NROWS; r++) {
		const struct tl_bd_spread_row *w = &sp->row[r];
		char a[24], b[24];

		snprintf(a, sizeof(a), "(%d)", w->min_rank);
		snprintf(b, sizeof(b), "(%d)", w->max_rank);
		fprintf(o->f, "  %-22s %12.6f ms %8s %12.6f ms %12.6f ms %8s\n", tl_bd_row_name(r), w->min_us / 1e3, a,
			w->median_us / 1e3, w->max_us / 1e3, b);
	}
}

static void sep_row(struct out_fmt *o, const char *rank, int row, double us, double pct)
{
	char a[64], b[64];

	fmt_pyfloat(a, sizeof(a), us / 1e3);
	fmt_pyfloat(b, sizeof(b), pct);
	out_field(o, rank, false);
	out_field(o, tl_bd_row_name(row), false);
	out_field(o, a, false);
	out_field(o, b, true);
}

static void json_rank(struct out_fmt *o, const struct tl_rank_summary *s, bool all)
{
	const struct tl_rank_info *ri = tl_rank_summary_info(s);
	const struct tl_breakdown *bd = tl_rank_summary_breakdown(s, all);
	int r;

	for (r = 0; bd && r < TL_BD_NROWS; r++) {
		double total = bd->us[TL_BD_TOTAL];
		char a[64], b[64];

		fmt_pyfloat(a, sizeof(a), bd->us[r] / 1e3);
		fmt_pyfloat(b, sizeof(b), total > 0 ? bd->us[r] / total * 100 : 0);
		fprintf(o->f, "{\"rank\":%d,\"type\":\"%s\",\"time_ms\":%s,\"percent\":%s,\"events\":%llu,\"file\":",
			ri->rank, tl_bd_row_name(r), a, b, (unsigned long long)bd->nevents);
		json_str(o->f, ri->file);
		fputs("}\n", o->f);
	}
}

static void json_spread(struct out_fmt *o, const struct tl_bd_spread *sp)
{
	int r;

	for (r = 0; r < TL_BD_NROWS; r++) {
		const struct tl_bd_spread_row *w = &sp->row[r];
		double v[6] = { w->min_us / 1e3, w->median_us / 1e3, w->max_us / 1e3,
				w->min_pct, w->median_pct, w->max_pct };
		static const char *const k[6] = { "min_ms", "median_ms", "max_ms",
						  "min_percent", "median_percent", "max_percent" };
		char num[64];
		int i;

		fprintf(o->f, "{\"spread\":true,\"type\":\"%s\",\"ranks\":%zu", tl_bd_row_name(r), sp->nranks);
		for (i = 0; i < 6; i++) {
			fmt_pyfloat(num, sizeof(num), v[i]);
			fprintf(o->f, ",\"%s\":%s", k[i], num);
		}
		fprintf(o->f, ",\"min_rank\":%d,\"max_rank\":%d}\n", w->min_rank, w->max_rank);
	}
}

int mr_breakdown(const struct mr_inputs *in, const struct common_opts *co, bool all)
{
	struct tl_rankset *set = NULL;
	struct tl_bd_spread sp;
	struct out_fmt o = { 0 };
	size_t i, n;
	int rc = 1, err, r;

	if (mr_open(in, &set))
		return 1;
	n = tl_rankset_n(set);
	err = tl_rankset_breakdown_spread(set, all, &sp);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (out_open_opts(&o, co))
		goto out;
	if (o.sep) {
		out_field(&o, "rank", false);
		out_field(&o, "type", false);
		out_field(&o, "time ms", false);
		out_field(&o, "percent", true);
	} else if (!o.json) {
		fprintf(o.f, "GPU time breakdown of %zu rank%s (%s GPU events; each rank's devices and streams "
			"pooled)\n", n, n == 1 ? "" : "s", all ? "all" : "linked");
	}
	for (i = 0; i < n; i++) {
		const struct tl_rank_summary *s = tl_rankset_get(set, i);
		const struct tl_breakdown *bd = tl_rank_summary_breakdown(s, all);

		if (o.json) {
			json_rank(&o, s, all);
		} else if (o.sep) {
			char rk[16];

			snprintf(rk, sizeof(rk), "%d", tl_rank_summary_info(s)->rank);
			for (r = 0; bd && r < TL_BD_NROWS; r++)
				sep_row(&o, rk, r, bd->us[r],
					bd->us[TL_BD_TOTAL] > 0 ? bd->us[r] / bd->us[TL_BD_TOTAL] * 100 : 0);
		} else {
			human_rank(&o, s, all);
		}
	}
	if (o.json) {
		json_spread(&o, &sp);
	} else if (o.sep) {
		static const char *const what[3] = { "min", "median", "max" };
		int k;

		for (k = 0; k < 3; k++)
			for (r = 0; r < TL_BD_NROWS; r++) {
				const struct tl_bd_spread_row *w = &sp.row[r];
				double us = k == 0 ? w->min_us : k == 1 ? w->median_us : w->max_us;
				double pct = k == 0 ? w->min_pct : k == 1 ? w->median_pct : w->max_pct;

				sep_row(&o, what[k], r, us, pct);
			}
	} else if (n > 1) {
		human_spread(&o, &sp);
	}
	rc = out_close(&o, false);
out:
	tl_rankset_free(set);
	return rc;
}
