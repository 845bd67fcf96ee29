/* SPDX-License-Identifier: MIT */
/*
 * Every analysis of the library on one loaded trace, for the programs that
 * must reach all of them: the analyses fuzz target (tests/fuzz/fuzz_analyses.c:
 * whatever the loader accepts must not crash any of them) and the threads
 * driver (tests/tools/analyses_threads.c: all of them at once under
 * ThreadSanitizer). What each call returns goes to the caller's @check, which
 * decides what a failure means to it. Header-only: each includer gets its own
 * static copy.
 */
#ifndef TLREPLAY_TESTS_ALL_ANALYSES_H
#define TLREPLAY_TESTS_ALL_ANALYSES_H

#include <stdlib.h>

#include <cjson/cJSON.h>
#include <tlreplay/compare.h>
#include <tlreplay/tlreplay.h>
#include <tlreplay/trace_diff.h>

/* told what was called and what it returned */
typedef void (*aa_check_fn)(const char *what, int err);

static int aa_count_bytes(const void *buf, size_t len, void *ctx)
{
	(void)buf;
	*(size_t *)ctx += len;
	return 0;
}

/* breakdowns, launchers and their groups, the op and kernel tables, health */
static void aa_summaries(struct tl_trace *tr, aa_check_fn check)
{
	struct tl_breakdown_opts bo = { .sz = sizeof(bo), .split_recompute = true, .include_unlinked = true };
	struct tl_launcher_opts lo = { .sz = sizeof(lo), .detect_recompute = true, .with_python = true };
	struct tl_launcher_group_opts go = { .sz = sizeof(go), .by_thread = true };
	struct tl_ops_opts oo = { .sz = sizeof(oo), .by_module = true };
	struct tl_breakdown_set *bd = NULL;
	struct tl_launcher_set *ls = NULL;
	struct tl_launcher_group_set *lg = NULL;
	struct tl_op_table *ops = NULL;
	struct tl_kernel_table *kt = NULL;
	struct tl_kernel_unique_table *ku = NULL;
	struct tl_health *h = NULL;
	struct tl_sheet *sh = NULL;

	check("breakdown", tl_breakdown(tr, &bo, &bd));
	if (bd) {
		check("gpu_timeline sheet", tl_sheet_gpu_timeline(bd, TL_BD_GROUP_NONE, true, &sh));
		tl_sheet_free(sh);
		sh = NULL;
		tl_breakdown_free(bd);
		bd = NULL;
	}
	bo.group = TL_BD_GROUP_STREAM;
	check("breakdown per stream", tl_breakdown(tr, &bo, &bd));
	if (bd) {
		check("gpu_timeline sheet per stream", tl_sheet_gpu_timeline(bd, TL_BD_GROUP_STREAM, true, &sh));
		tl_sheet_free(sh);
		sh = NULL;
	}
	check("launchers", tl_launchers(tr, &lo, &ls));
	if (ls) {
		check("ops_summary_by_category sheet", tl_sheet_ops_by_category(ls, true, &sh));
		tl_sheet_free(sh);
		sh = NULL;
	}
	check("launcher groups", tl_launcher_groups(tr, &go, &lg));
	if (lg) {
		check("ops_unique_args sheet", tl_sheet_ops_unique_args(lg, &sh));
		tl_sheet_free(sh);
		sh = NULL;
	}
	check("ops summary", tl_ops_summary(tr, &oo, &ops));
	if (ops) {
		check("ops_summary sheet", tl_sheet_ops_summary(ops, &oo, &sh));
		tl_sheet_free(sh);
		sh = NULL;
	}
	check("kernel summary", tl_kernel_summary(tr, &kt));
	if (kt) {
		check("kernel_summary sheet", tl_sheet_kernel_summary(kt, &sh));
		tl_sheet_free(sh);
	}
	check("kernel unique", tl_kernel_unique(tr, &ku));
	check("health", tl_health_check(tr, &h));
	tl_breakdown_free(bd);
	tl_launcher_set_free(ls);
	tl_launcher_group_set_free(lg);
	tl_op_table_free(ops);
	tl_kernel_table_free(kt);
	tl_kernel_unique_free(ku);
	tl_health_free(h);
}

/* what `info` and `nav` read (metadata, kinds, each event's place in the
 * tree, its GPU events, forward and backward), and `kernels --short`'s
 * histogram per device with a threshold and bins of its own */
static void aa_reads(struct tl_trace *tr, aa_check_fn check)
{
	struct tl_short_kernel_opts so = { .sz = sizeof(so), .threshold_us = 1000, .bins = 3, .topk = 2 };
	uint64_t counts[TL_KIND_COUNT], u, n = tl_trace_nevents(tr), bwd[4], *gpu;
	struct tl_event_info ev;
	struct tl_sheet *sh = NULL;
	const char **devs = NULL;
	int64_t nd, i;
	char pname[256];

	(void)tl_trace_metadata(tr);
	(void)tl_trace_linking_key(tr);
	tl_trace_kind_counts(tr, counts);
	for (u = 0; u < n; u++) {
		(void)tl_event_parent(tr, u);
		(void)tl_event_first_child(tr, u);
		(void)tl_event_next_sibling(tr, u);
		(void)tl_event_in_tree(tr, u);
		(void)tl_event_linked(tr, u);
		(void)tl_event_launcher(tr, u);
		(void)tl_event_fwd(tr, u);
		(void)tl_event_bwd(tr, u, bwd, 4);
		if (u % (1 + n / 1024))
			continue;	/* a subtree's walk each: a sample on big traces */
		gpu = NULL;
		if (tl_event_gpu_events(tr, u, &gpu) >= 0)
			free(gpu);
		if (!tl_trace_event(tr, u, &ev) && *ev.pid)
			(void)tl_trace_process_name(tr, ev.pid, pname, sizeof(pname));
	}
	nd = tl_kernel_devices(tr, &devs);
	check("kernel devices", nd < 0 ? (int)nd : 0);
	for (i = 0; i < nd; i++) {
		so.device = devs[i];
		check("short kernel histogram", tl_sheet_short_kernel_histogram(tr, &so, &sh));
		tl_sheet_free(sh);
		sh = NULL;
	}
	free(devs);
	check("short kernels summary", tl_sheet_short_kernels_summary(tr, &so, &sh));
	tl_sheet_free(sh);
}

/* the analyses of time: annotations, critical path, idle, launches, steps,
 * kernel sequences */
static void aa_timelines(struct tl_trace *tr, aa_check_fn check)
{
	struct tl_ann_opts ao = { .sz = sizeof(ao) };
	struct tl_critpath_opts co = { .sz = sizeof(co), .step = -1 };
	struct tl_idle_opts io = { .sz = sizeof(io), .keep_gaps = true, .include_unlinked = true };
	struct tl_launch_opts lo = { .sz = sizeof(lo) };
	struct tl_ngram_opts no = { .sz = sizeof(no), .min_len = 1, .max_len = 3 };
	struct tl_op_pattern_opts po = { .sz = sizeof(po), .op = "aten" };
	struct tl_ann_set *ann = NULL;
	struct tl_critpath *cp = NULL;
	struct tl_idle_set *idle = NULL;
	struct tl_launch_set *launch = NULL;
	struct tl_step_set *steps = NULL;
	struct tl_ngram_table *ng = NULL;
	struct tl_op_pattern_table *pt = NULL;

	check("annotations", tl_annotations(tr, &ao, &ann));
	check("critpath", tl_critpath(tr, &co, &cp));
	check("idle", tl_idle_breakdown(tr, &io, &idle));
	check("launch stats", tl_launch_stats(tr, &lo, &launch));
	check("steps", tl_steps(tr, &steps));
	if (steps) {
		uint64_t u, n = tl_trace_nevents(tr);
		struct tl_steady *st = NULL;

		for (u = 0; u < n; u += 1 + n / 64)
			(void)tl_step_of_event(tr, steps, u);
		check("steady state", tl_steps_steady(tr, steps, &st));
		if (st &&
		    (st->first > st->last || st->last >= steps->n || st->nout != steps->n - (st->last - st->first + 1)))
			abort();
		tl_steady_free(st);
	}
	check("kernel n-grams", tl_kernel_ngrams(tr, &no, &ng));
	check("op patterns", tl_op_kernel_patterns(tr, &po, &pt));
	tl_ann_set_free(ann);
	tl_critpath_free(cp);
	tl_idle_set_free(idle);
	tl_launch_set_free(launch);
	tl_step_set_free(steps);
	tl_ngram_table_free(ng);
	tl_op_pattern_table_free(pt);
}

/* the report with every option (and its comparison with itself, and the
 * roofline sheet without a GPU), the IR of every cpu_op, fold into memory */
static void aa_report_ir_fold(struct tl_trace *tr, const char *path, aa_check_fn check)
{
	struct tl_report_opts ro = { .sz = sizeof(ro), .split_recompute = true, .kernel_summary = true,
				     .perf_models = true, .short_kernels = true };
	struct tl_ir_opts io = { .sz = sizeof(io), .allow_schemaless = true };
	struct tl_fold_opts fo = { .sz = sizeof(fo), .trace_path = path };
	struct tl_event_info ev;
	struct tl_report *r = NULL, *r2 = NULL, *cmp = NULL;
	struct tl_sheet *roof = NULL;
	size_t folded = 0;
	uint64_t u;

	check("report", tl_report_build(tr, &ro, &r));
	ro.split_recompute = false;
	ro.by_module = true;
	ro.include_nccl = true;
	check("report --by-module", tl_report_build(tr, &ro, &r2));
	if (r) {
		check("roofline sheet", tl_sheet_roofline(r, NULL, NULL, &roof));
		tl_sheet_free(roof);
		if (r2) {
			check("report compare", tl_report_compare(r, r2, "a", "b", &cmp));
			tl_report_free(cmp);
		}
	}
	tl_report_free(r);
	tl_report_free(r2);
	for (u = 0; u < tl_trace_nevents(tr); u++) {
		cJSON *e = NULL;
		double flops, bytes;

		if (tl_trace_event(tr, u, &ev) || ev.kind != TL_KIND_CPU_OP)
			continue;
		check("ir", tl_ir_entry(tr, u, &io, &e));
		if (e)
			(void)tl_ir_flops(e, &flops, &bytes);
		cJSON_Delete(e);
	}
	check("fold", tl_fold(tr, NULL, 0, &fo, aa_count_bytes, &folded, NULL));
}

/* the trace diff of @a and @b and its sheets */
static void aa_diff(struct tl_trace *a, struct tl_trace *b, aa_check_fn check)
{
	struct tl_trace_diff_opts o = { .sz = sizeof(o) };
	struct tl_trace_diff *d = NULL;
	struct tl_sheet *s = NULL;

	check("diff", tl_trace_diff_build(a, b, &o, &d));
	if (d) {
		check("diff stats", tl_sheet_diff_stats(d, &s));
		tl_sheet_free(s);
		s = NULL;
		check("diff stats unique args", tl_sheet_diff_stats_unique_args(d, &s));
		tl_sheet_free(s);
	}
	tl_trace_diff_free(d);
}

/* Everything on @tr (linked by the caller), diffed against @other (may be
 * @tr); last the pseudo ops, which change @tr, and the summaries again. */
static void aa_all(struct tl_trace *tr, struct tl_trace *other, const char *path, aa_check_fn check)
{
	size_t added = 0;

	aa_summaries(tr, check);
	aa_reads(tr, check);
	aa_timelines(tr, check);
	aa_report_ir_fold(tr, path, check);
	aa_diff(tr, other, check);
	check("pseudo ops", tl_trace_add_pseudo_ops(tr, &added));
	aa_summaries(tr, check);
}

#endif
