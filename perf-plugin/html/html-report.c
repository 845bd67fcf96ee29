/* SPDX-License-Identifier: MIT */
/* The HTML report (html-report.h): runs the analyses that several sections
 * share once (steps, idle gaps, launches), has each section write itself
 * (html-sections.h), and wraps them in the page: head with the stylesheet,
 * a header with the trace's facts and a table of contents of the sections
 * written, the script that draws the timeline. The stylesheet and script are
 * perf-plugin/html/assets/report.{css,js}, compiled in ($(O)/gen/html-assets.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "chart/chart-svg.h"
#include "util/cli.h"
#include "html-assets.h"
#include "html/html-page.h"
#include "html/html-report.h"
#include "html/html-sections.h"

/* The sections in page order, with their table-of-contents titles. */
static const struct {
	const char *id, *title;
	int (*fn)(FILE *f, const struct html_ctx *c, bool *written);
} sections[] = {
	{ "breakdown", "Breakdown", hs_breakdown },
	{ "timeline", "Timeline", hs_timeline },
	{ "top", "Top ops and kernels", hs_top },
	{ "idle", "Idle and launches", hs_idle },
	{ "ranks", "Ranks and collectives", hs_ranks },
	{ "replay", "Replays", hs_replay },
	{ "health", "Health", hs_health },
};

/* The analyses several sections draw; one that has nothing for the trace
 * (-ENODATA) leaves its pointer NULL. The idle gaps twice: of the linked
 * GPU events for the idle section (the numbers of tlreplay idle and of the
 * breakdown), of all of them for the timeline, which draws them all.
 * Returns 0, or 1 after printing why. */
static int shared_analyses(struct tl_trace *tr, struct tl_step_set **steps, struct tl_idle_set **idle,
			   struct tl_idle_set **idle_all, struct tl_launch_set **launches)
{
	struct tl_idle_opts io = { .sz = sizeof(io), .keep_gaps = true };
	int err;

	err = tl_steps(tr, steps);
	if (err && err != -ENODATA)
		return cli_lib_error(err);
	/* no annotation and no loop in the call tree: the one iteration is the
	 * busiest call, nothing a per-iteration part could add, unless it says
	 * what the trace ran: a serving phase read from the shapes (decode
	 * bs=32), or a graph capture run (found by its launch calls) */
	if (*steps && (*steps)->source == TL_STEPS_CALLTREE &&
	    ((*steps)->n == 0 ||
	     ((*steps)->n == 1 && !tl_phase_name((*steps)->v[0].phase) && !(*steps)->found_by_launches))) {
		tl_step_set_free(*steps);
		*steps = NULL;
	}
	err = tl_idle_breakdown(tr, &io, idle);
	if (err && err != -ENODATA)
		return cli_lib_error(err);
	io.include_unlinked = true;
	err = tl_idle_breakdown(tr, &io, idle_all);
	if (err && err != -ENODATA)
		return cli_lib_error(err);
	/* a GPU-only trace: no launch links its events, so the section takes them all */
	if (!*idle && *idle_all) {
		*idle = *idle_all;
		*idle_all = NULL;
	}
	err = tl_launch_stats(tr, NULL, launches);
	if (err && err != -ENODATA)
		return cli_lib_error(err);
	return 0;
}

/* The GPU's name: the table's, else deviceProperties[0].name. */
static const char *device_name(const struct html_report_in *in)
{
	const cJSON *devs = cJSON_GetObjectItemCaseSensitive(tl_trace_metadata(in->tr), "deviceProperties");
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(devs, 0), "name");

	if (in->gpu)
		return in->gpu->name;
	return cJSON_IsString(name) ? name->valuestring : NULL;
}

static void header(FILE *f, const struct html_report_in *in, const struct html_ctx *c, const bool *written)
{
	const char *dev = device_name(in), *name = cli_base(in->input ? in->input : tl_trace_path(in->tr));
	char size[32], when[40];
	struct stat st;
	time_t now = time(NULL);
	struct tm tm;
	size_t i;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
	fputs("<header>\n<h1>", f);
	hp_esc(f, name, 120);
	fputs("</h1>\n<p class=\"facts\">", f);
	if (!stat(tl_trace_path(in->tr), &st)) {
		fmt_si(size, sizeof(size), (double)st.st_size, "B");
		fprintf(f, "<span>%s on disk</span>", size);
	}
	fprintf(f, "<span>%llu events</span>", (unsigned long long)tl_trace_nevents(in->tr));
	if (dev) {
		fputs("<span>", f);
		hp_esc(f, dev, 80);
		fputs("</span>", f);
	}
	if (c->steps)
		fprintf(f, "<span>%zu iteration%s</span>", c->steps->n, c->steps->n == 1 ? "" : "s");
	if (in->ranks) {
		fprintf(f, "<span>%zu ranks: compared under Ranks and collectives, the rest is rank %d's trace, ",
			tl_rankset_n(in->ranks), in->rank);
		hp_esc(f, cli_base(tl_trace_path(in->tr)), 80);
		fputs("</span>", f);
	}
	fputs("</p>\n<nav>", f);
	for (i = 0; i < TL_ARRAY_N(sections); i++)
		if (written[i])
			fprintf(f, "<a href=\"#%s\">%s</a>", sections[i].id, sections[i].title);
	fputs("</nav>\n", f);
	fputs("<p class=\"gen\">tlreplay ", f);
	hp_esc(f, tl_version(), 20);
	fprintf(f, " report, %s, of ", when);
	hp_esc(f, in->input ? in->input : tl_trace_path(in->tr), 200);
	fputs("</p>\n</header>\n", f);
}

int html_report_write(const char *path, const struct html_report_in *in)
{
	struct tl_step_set *steps = NULL;
	struct tl_idle_set *idle = NULL, *idle_all = NULL;
	struct tl_launch_set *launches = NULL;
	struct html_ctx c = { 0 };
	bool written[TL_ARRAY_N(sections)] = { false };
	struct out_fmt o = { 0 };
	char *body = NULL;
	size_t blen = 0, i;
	FILE *b = NULL;
	int rc = 1;

	if (shared_analyses(in->tr, &steps, &idle, &idle_all, &launches))
		goto out;
	c = (struct html_ctx){ .tr = in->tr,
			       .name = cli_base(tl_trace_path(in->tr)),
			       .input = in->input ? in->input : tl_trace_path(in->tr),
			       .roofline = in->roofline,
			       .gpu = in->gpu,
			       .steps = steps,
			       .idle = idle,
			       .idle_all = idle_all ? idle_all : idle,
			       .launches = launches,
			       .ranks = in->ranks,
			       .rank = in->rank,
			       .store = in->store };
	/* the sections first: the header lists those written */
	b = open_memstream(&body, &blen);
	if (!b) {
		cli_error("report: out of memory");
		goto out;
	}
	for (i = 0; i < TL_ARRAY_N(sections); i++)
		if (sections[i].fn(b, &c, &written[i]))
			goto out;
	if (fclose(b)) {
		b = NULL;
		cli_error("report: out of memory");
		goto out;
	}
	b = NULL;
	if (out_open(&o, path))
		goto out;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"tlreplay\">\n<title>tlreplay report: ",
	      o.f);
	hp_esc(o.f, cli_base(in->input ? in->input : tl_trace_path(in->tr)), 120);
	fprintf(o.f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", html_report_css);
	header(o.f, in, &c, written);
	fputs("<main>\n", o.f);
	fwrite(body, 1, blen, o.f);
	fprintf(o.f, "</main>\n<script>\n%s</script>\n</body>\n</html>\n", html_report_js);
	rc = out_close(&o, false);
out:
	if (b)
		fclose(b);
	free(body);
	tl_step_set_free(steps);
	tl_idle_set_free(idle);
	tl_idle_set_free(idle_all);
	tl_launch_set_free(launches);
	return rc;
}
