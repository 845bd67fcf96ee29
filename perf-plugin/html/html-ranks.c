/* SPDX-License-Identifier: MIT */
/* The HTML report's section on the ranks of a directory: each rank's
 * breakdown (its rank summary, as `tlreplay breakdown -i DIR`), the
 * collectives matched across them (tl_collectives()) drawn as `tlreplay
 * collectives --chart` draws them, and their summary by kind. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chart/chart-svg.h"
#include "util/cli.h"
#include "chart/coll-chart.h"
#include "html/html-page.h"
#include "html/html-sections.h"

static const struct hp_seg legend[] = {
	{ 0, HP_COMPUTE, "computation" },
	{ 0, HP_COMM, "exposed comm" },
	{ 0, HP_MEMCPY, "exposed memcpy" },
	{ 0, HP_IDLE, "idle" },
};

static int rank_bars(FILE *f, const struct tl_rankset *set)
{
	size_t n = tl_rankset_n(set), i, k = 0, m;
	struct hp_bar_row *rows = calloc(n + 1, sizeof(*rows));
	char (*lab)[96] = calloc(n + 1, sizeof(*lab));

	if (!rows || !lab) {
		free(rows);
		free(lab);
		return cli_error("report: out of memory");
	}
	for (i = 0; i < n; i++) {
		const struct tl_rank_summary *s = tl_rankset_get(set, i);
		const struct tl_rank_info *ri = tl_rank_summary_info(s);
		const struct tl_breakdown *b = tl_rank_summary_breakdown(s, false);

		if (!b)
			b = tl_rank_summary_breakdown(s, true);
		if (!b)
			continue;
		snprintf(lab[k], sizeof(lab[k]), "rank %d (%s)", ri->rank, cli_base(ri->file));
		rows[k].label = lab[k];
		rows[k].total = b->us[TL_BD_TOTAL];
		for (m = 0; m < TL_ARRAY_N(legend); m++)
			rows[k].seg[m] = legend[m];
		rows[k].seg[0].v = b->us[TL_BD_COMPUTATION];
		rows[k].seg[1].v = b->us[TL_BD_EXPOSED_COMM];
		rows[k].seg[2].v = b->us[TL_BD_EXPOSED_MEMCPY];
		rows[k].seg[3].v = b->us[TL_BD_IDLE];
		rows[k].nseg = TL_ARRAY_N(legend);
		k++;
	}
	if (k) {
		hp_h3(f, "Each rank's GPU time");
		hp_p(f, "note", "TraceLens's GPU timeline of each rank (its trace's span, to scale).");
		hp_bars(f, "rank-bars", rows, k, false);
		hp_legend(f, legend, TL_ARRAY_N(legend));
	}
	free(rows);
	free(lab);
	return 0;
}

static int coll_summary(FILE *f, const struct tl_coll_table *t)
{
	static const char *const cols[] = { "collective", "dtype", "#size", "#ranks", "#count", "#latency (mean)",
					    "#start skew (mean)", "#bus bandwidth (mean)", "#total latency" };
	struct tl_coll_summary *s = NULL;
	size_t i;
	int err = tl_coll_summarize(t, &s);

	if (err)
		return cli_lib_error(err);
	hp_table(f, NULL, cols, TL_ARRAY_N(cols));
	for (i = 0; i < s->n && i < 20; i++) {
		const struct tl_coll_group *g = &s->v[i];
		char sz[32];

		hp_tr(f);
		hp_td(f, g->name, 40);
		hp_td(f, *g->dtype ? g->dtype : "\xe2\x80\x93", 16);
		if (isfinite(g->size_bytes))
			fmt_si(sz, sizeof(sz), g->size_bytes, "B");
		else
			snprintf(sz, sizeof(sz), "\xe2\x80\x93");
		hp_td(f, sz, 16);
		hp_td_count(f, (unsigned long long)(g->group_size > 0 ? g->group_size : 0));
		hp_td_count(f, g->count);
		hp_td_time(f, g->latency_us.mean);
		hp_td_time(f, g->start_skew_us.mean);
		hp_td_num(f, "%.1f GB/s", g->busbw_gbps.mean);
		hp_td_time(f, g->total_latency_us);
		hp_tr_end(f);
	}
	hp_table_end(f);
	tl_coll_summary_free(s);
	return 0;
}

int hs_ranks(FILE *f, const struct html_ctx *c, bool *written)
{
	struct tl_coll_table *t = NULL;
	char *svg = NULL, intro[256];
	size_t len = 0, n;
	int rc = 1, err;

	*written = false;
	if (!c->ranks)
		return 0;
	n = tl_rankset_n(c->ranks);
	err = tl_collectives(c->ranks, NULL, &t);
	if (err)
		return cli_lib_error(err);
	snprintf(intro, sizeof(intro),
		 "%zu ranks (tlreplay breakdown -i DIR, tlreplay collectives -i DIR); the other sections are "
		 "those of rank %d's trace.",
		 n, c->rank);
	hp_section(f, "ranks", "Ranks and collectives", intro);
	if (rank_bars(f, c->ranks))
		goto out;
	if (t->n) {
		/* the chart's subtitle: the directory's name ("profiles" of "run/profiles/") */
		char sub[256];
		size_t l;

		snprintf(sub, sizeof(sub), "%s", c->input);
		for (l = strlen(sub); l > 1 && sub[l - 1] == '/'; l--)
			sub[l - 1] = 0;
		if (coll_chart_svg(t, cli_base(sub), &svg, &len))
			goto out;
		hp_h3(f, "Collectives across ranks");
		hp_p(f, "note", "Who waited for whom: each rank's collective kernel, pale while it waits for the last "
				"rank to arrive, solid once all are in; the rank that arrived last outlined.");
		fputs("<div class=\"chart\" id=\"coll\">", f);
		hp_img_svg(f, svg, len, "the collectives across ranks", "tl-chart coll");
		fputs("</div>\n", f);
		if (coll_summary(f, t))
			goto out;
	} else {
		hp_p(f, "note", "No NCCL/RCCL kernel in any rank.");
	}
	hp_section_end(f);
	*written = true;
	rc = 0;
out:
	free(svg);
	tl_coll_table_free(t);
	return rc;
}
