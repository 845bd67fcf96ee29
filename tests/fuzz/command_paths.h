/* SPDX-License-Identifier: MIT */
/*
 * What the command does with a trace around the library's analyses, for the
 * analyses fuzz target (tests/fuzz/fuzz_analyses.c), with the command's own
 * code linked in: report's outputs (the CSV directory, the workbook, the
 * roofline sheet and chart on the trace's GPU, the --html page), diff's (the
 * merged tree printed and its CSVs, the comparison of the two reports),
 * `kernels --short`, a directory of ranks (collectives, stragglers, the
 * breakdown's spread, their chart and page), and the options every command
 * takes before it analyses: --capture DIR and --step N. Outputs go under a
 * scratch directory of the process, emptied after each input.
 *
 * Header-only, for one includer, which defines cp_check() (told what library
 * call was made and what it returned) and cp_load() (the input loaded, and
 * linked if asked, or NULL). The command's functions must return 0, or 1
 * after printing why (cp_cmd()).
 */
#ifndef TLREPLAY_TESTS_COMMAND_PATHS_H
#define TLREPLAY_TESTS_COMMAND_PATHS_H

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tlreplay/compare.h>
#include <tlreplay/tlreplay.h>

#include "all_analyses.h"
#include "chart/chart-roofline.h"	/* perf-plugin: the command's code */
#include "util/cli.h"
#include "chart/coll-chart.h"
#include "report/diff-tree.h"
#include "html/html-report.h"
#include "report/kernels-short.h"
#include "report/roofline-sheet.h"
#include "report/sheets-out.h"

static void cp_check(const char *what, int err);
static struct tl_trace *cp_load(const uint8_t *data, size_t size, const char *label, bool link);

/* the command's functions return 0, or 1 after printing why */
static void cp_cmd(const char *what, int rc)
{
	if (rc != 0 && rc != 1) {
		fprintf(stderr, "fuzz_analyses: %s returned %d, not 0 or 1\n", what, rc);
		abort();
	}
}

static char cp_dir[PATH_MAX];	/* the scratch directory, made at the first input */
static FILE *cp_null;		/* printed output goes here */

static int cp_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level)	/* the directory itself stays until exit */
		remove(path);
	return 0;
}

/* everything written for the last input goes */
static void cp_clear(void)
{
	nftw(cp_dir, cp_rm, 16, FTW_DEPTH | FTW_PHYS);
}

static void cp_remove_dir(void)
{
	cp_clear();
	rmdir(cp_dir);
}

/* The scratch directory in $TMPDIR (run.sh points it into the target's work
 * folder, so a crash leaves nothing in /tmp). */
static void cp_init(void)
{
	const char *t = getenv("TMPDIR");

	if (cp_dir[0])
		return;
	snprintf(cp_dir, sizeof(cp_dir), "%s/tlreplay-fuzz-XXXXXX", t && *t ? t : "/tmp");
	cp_null = fopen("/dev/null", "w");
	if (!mkdtemp(cp_dir) || !cp_null) {
		perror("fuzz: scratch directory");
		abort();
	}
	atexit(cp_remove_dir);
}

/* @name under the scratch directory, in a static buffer of its own per slot */
static const char *cp_path(int slot, const char *name)
{
	static char buf[8][PATH_MAX + 64];

	snprintf(buf[slot], sizeof(buf[slot]), "%s/%s", cp_dir, name);
	return buf[slot];
}

static void cp_write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		perror(path);
		abort();
	}
}

/* report -o DIR, -o FILE.xlsx, --roofline FILE.svg and --html FILE.html as
 * cmd_report does them, with every sheet option (--recompute and
 * --by-module exclude each other: @alt picks); @ranks for -i DIR */
static void cp_report(struct tl_trace *tr, bool alt, const struct tl_rankset *ranks, int rank)
{
	struct tl_report_opts ro = { .sz = sizeof(ro), .split_recompute = !alt, .by_module = alt,
				     .kernel_summary = true, .perf_models = true, .short_kernels = true,
				     .include_nccl = alt };
	struct roofline_opts rop = { NULL, "fuzz", 6 };
	struct tl_gpu_set *gpus = NULL;
	const struct tl_gpu *gpu = NULL;
	struct roofline_point *pts;
	struct tl_report *r = NULL;
	struct tl_sheet *rf = NULL;
	int err;

	if (tl_gpu_set_new(&gpus))
		abort();
	err = tl_report_build(tr, &ro, &r);
	cp_check("report", err);
	if (r) {
		gpu = tl_gpu_of_trace(gpus, tr, -1);
		cp_check("roofline sheet on the trace's GPU",
			 tl_sheet_roofline(r, gpu, gpu ? NULL : tl_last_error(), &rf));
	}
	if (rf && gpu) {
		pts = roofline_points_of_sheet(rf);
		if (!pts)
			abort();
		cp_cmd("report --roofline", roofline_chart_write(cp_path(0, "roofline.svg"), gpu, pts,
								   tl_sheet_nrows(rf), &rop));
		free(pts);
	}
	if (rf && tl_sheet_nrows(rf)) {
		struct tl_sheet **nv = realloc(r->v, (r->n + 1) * sizeof(*nv));

		if (!nv)
			abort();
		r->v = nv;
		r->v[r->n++] = rf;
		rf = NULL;
	}
	if (r) {
		const char *dir = cp_path(0, "report");

		cp_cmd("report -o DIR", sheets_make_dir("report", dir) || sheets_write_dir("report", dir, r));
		cp_check("report -o FILE.xlsx", tl_sheets_write_xlsx(r->v, r->n, cp_path(0, "report.xlsx")));
	}
	if (r || err == -ENODATA) {
		struct html_report_in hi = { .tr = tr, .input = "fuzz",
					     .roofline = r ? tl_report_sheet(r, "roofline") : NULL,
					     .gpu = gpu, .ranks = ranks, .rank = rank,
					     .store = cp_path(1, "no-store.jsonl") };

		cp_cmd("report --html", html_report_write(cp_path(0, "report.html"), &hi));
	}
	tl_sheet_free(rf);
	tl_report_free(r);
	tl_gpu_set_free(gpus);
}

/* diff --tree (every root, and under the first event), diff -o DIR's tree
 * CSVs and the comparison of the two reports, as diff_pair does them */
static void cp_diff(struct tl_trace *base, struct tl_trace *var)
{
	static const char *const names[2] = { "base", "variant" };
	struct tl_report_opts ro = { .sz = sizeof(ro), .kernel_summary = true, .perf_models = true };
	struct tl_report *rep[2] = { NULL, NULL }, *cmp = NULL;
	const char *dir = cp_path(0, "diff");
	struct sheets_stage st = { .cmd = "diff", .dir = dir };

	cp_cmd("diff --tree", diff_tree_print(base, var, names, -1, cp_null));
	(void)diff_tree_print(base, var, names, 0, cp_null);	/* UID 0 may be no CPU op: 1 */
	cp_cmd("diff -o DIR: tree", sheets_make_dir("diff", dir) || diff_tree_write(base, var, names, &st));
	if (tl_report_build(base, &ro, &rep[0]) || tl_report_build(var, &ro, &rep[1]))
		goto out;
	cp_check("diff: compare", tl_report_compare(rep[0], rep[1], names[0], names[1], &cmp));
	if (cmp) {
		for (size_t k = 0; k < cmp->n; k++)
			cp_cmd("diff -o DIR: sheets", sheets_stage_put(&st, cmp->v[k]));
		cp_cmd("diff -o DIR: named", sheets_stage_commit(&st));
		cp_check("diff -o FILE.xlsx", tl_sheets_write_xlsx(cmp->v, cmp->n, cp_path(0, "diff.xlsx")));
	}
out:
	sheets_stage_abort(&st);
	tl_report_free(cmp);
	tl_report_free(rep[0]);
	tl_report_free(rep[1]);
}

/* kernels --short, as a table, as CSV and as JSON lines, with its bins */
static void cp_kernels_short(struct tl_trace *tr)
{
	struct out_fmt o = { .f = cp_null };
	uint64_t counts[TL_KIND_COUNT];

	tl_trace_kind_counts(tr, counts);
	if (!counts[TL_KIND_KERNEL])
		return;	/* the command says there is none: not this target's business */
	cp_cmd("kernels --short", kernels_short(tr, &o, NULL, 0));
	o.sep = ",";
	cp_cmd("kernels --short -x,", kernels_short(tr, &o, "1000", 7));
	o.sep = NULL;
	o.json = true;
	cp_cmd("kernels --short -j", kernels_short(tr, &o, "0.5", 1));
}

/* -i DIR of two ranks: the trace's summary as rank 0 and @again's as rank 1,
 * written as rank summary files and read back as collectives and breakdown
 * read a directory (the traces' own ranks would collide); the set, for
 * report --html's page of the ranks, or NULL */
static struct tl_rankset *cp_ranks(struct tl_trace *tr, struct tl_trace *again)
{
	struct tl_ranks_opts ko = { .sz = sizeof(ko), .jobs = 1 };
	struct tl_trace *side[2] = { tr, again };
	struct tl_rankset *set = NULL;
	struct tl_coll_table *ct = NULL;
	struct tl_coll_summary *cs = NULL;
	struct tl_coll_rank_stats *st = NULL;
	struct tl_bd_spread spread;
	char **paths = NULL;
	size_t n = 0;
	int k;

	if (mkdir(cp_path(0, "ranks"), 0700))
		abort();
	for (k = 0; k < 2; k++) {
		struct tl_rank_summary_opts so = { .sz = sizeof(so), .rank = k };
		struct tl_rank_summary *s = NULL;
		char *text = NULL, name[32];
		size_t len;

		snprintf(name, sizeof(name), "ranks/rank%d.jsonl", k);
		cp_check("rank summary", tl_rank_summary_build(side[k], &so, &s));
		if (!s)
			return NULL;
		cp_check("rank summary write", tl_rank_summary_write(s, &text, &len));
		tl_rank_summary_free(s);
		if (!text)
			return NULL;
		cp_write_file(cp_path(1, name), text, len);
		free(text);
	}
	cp_check("ranks list", tl_ranks_list_dir(cp_path(0, "ranks"), &paths, &n));
	if (!paths)
		return NULL;
	/* what one writer wrote, its reader takes (fuzz_summary_roundtrip's rule) */
	if (tl_ranks_open((const char *const *)paths, n, &ko, &set)) {
		fprintf(stderr, "fuzz_analyses: two ranks' summaries do not read back: %s\n", tl_last_error());
		abort();
	}
	tl_ranks_paths_free(paths, n);
	cp_check("breakdown spread", tl_rankset_breakdown_spread(set, true, &spread));
	cp_check("collectives", tl_collectives(set, NULL, &ct));
	if (ct) {
		cp_check("collectives summary", tl_coll_summarize(ct, &cs));
		cp_check("stragglers", tl_coll_stragglers(ct, &st));
		cp_cmd("collectives --chart", coll_chart_write(cp_path(0, "coll.svg"), ct, "fuzz"));
	}
	tl_coll_rank_stats_free(st);
	tl_coll_summary_free(cs);
	tl_coll_table_free(ct);
	return set;
}

/* --capture DIR with the input as the capture trace too (its own graph
 * launches and capture windows meet), then what reads the merged tree */
static void cp_capture(const uint8_t *data, size_t size)
{
	struct tl_capture_result res = { .sz = sizeof(res) };
	struct tl_link_opts lo = { .sz = sizeof(lo), .with_python = true };
	struct tl_trace *tr = cp_load(data, size, "fuzz", false);
	int err;

	if (!tr)
		abort();	/* it loaded once */
	if (mkdir(cp_path(0, "capture"), 0700))
		abort();
	cp_write_file(cp_path(1, "capture/capture.json"), data, size);
	err = tl_trace_merge_capture(tr, cp_path(0, "capture"), &res);
	cp_check("--capture", err);
	if (!err && res.events_added) {
		cp_check("link after --capture", tl_trace_link(tr, &lo));
		aa_summaries(tr, cp_check);
		aa_timelines(tr, cp_check);
		aa_report_ir_fold(tr, "fuzz", cp_check);
	}
	tl_trace_close(tr);
}

/* --step N for the first step and the slowest, then the analyses and the
 * report of that step alone */
static void cp_steps(const uint8_t *data, size_t size, struct tl_trace *linked)
{
	struct tl_link_opts lo = { .sz = sizeof(lo), .with_python = true };
	struct tl_report_opts ro = { .sz = sizeof(ro), .kernel_summary = true, .perf_models = true };
	struct tl_report *r = NULL;
	struct tl_step_set *steps = NULL;
	long long want[2];
	int k, phase;

	if (tl_steps(linked, &steps))
		return;
	want[0] = steps->v[0].number;
	want[1] = steps->v[steps->slowest].number;
	phase = steps->v[0].phase;
	tl_step_set_free(steps);
	/* split by iteration and by phase: every file must come back as a trace
	 * that loads (the text the loader accepted, cut at element bounds) */
	for (k = 0; k < 2; k++) {
		struct tl_split_opts so = { sizeof(so), k ? TL_SPLIT_PHASE : TL_SPLIT_ITERATION, k == 1 };
		struct tl_split_result *sr = NULL;
		struct tl_trace *tr = cp_load(data, size, "fuzz", false), *part;
		size_t j;

		if (!tr)
			abort();
		cp_check("split", tl_split(tr, cp_path(0, "split"), &so, &sr));
		for (j = 0; sr && j < sr->n && j < 4; j++) {
			char path[PATH_MAX];

			snprintf(path, sizeof(path), "%s/%s", cp_path(0, "split"), sr->v[j].file);
			if (tl_trace_open(path, NULL, &part)) {
				fprintf(stderr, "fuzz_analyses: split file %s does not load: %s\n", path,
					tl_last_error());
				abort();
			}
			tl_trace_close(part);
		}
		tl_split_result_free(sr);
		tl_trace_close(tr);
	}
	/* --phase of the first step's phase (when it has one), and --steady */
	for (k = 0; k < 2; k++) {
		struct tl_trace *tr;

		if (!k && !phase)
			continue;
		tr = cp_load(data, size, "fuzz", false);
		if (!tr)
			abort();
		cp_check(k ? "--steady" : "--phase", k ? tl_trace_keep_steady(tr) : tl_trace_keep_phase(tr, phase));
		cp_check("link after --phase/--steady", tl_trace_link(tr, &lo));
		aa_summaries(tr, cp_check);
		tl_trace_close(tr);
	}
	for (k = 0; k < 2 && (!k || want[1] != want[0]); k++) {
		struct tl_trace *tr = cp_load(data, size, "fuzz", false);

		if (!tr)
			abort();
		cp_check("--step", tl_trace_keep_step(tr, want[k]));
		cp_check("link after --step", tl_trace_link(tr, &lo));
		aa_summaries(tr, cp_check);
		aa_timelines(tr, cp_check);
		cp_check("report --step", tl_report_build(tr, &ro, &r));
		tl_report_free(r);
		r = NULL;
		tl_trace_close(tr);
	}
}

#endif
