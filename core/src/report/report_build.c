/* SPDX-License-Identifier: MIT */
/* tl_report_build(): TraceLens's perf report of a PyTorch trace, sheet by
 * sheet in the order its generate_perf_report_pytorch writes them. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/report_sheets.h>
#include <tlreplay/tree.h>

#include "analysis/analysis_internal.h"
#include "report/report_internal.h"
#include "trace/trace_internal.h"

/* Bytes of text per event under which the report lets the args' pages go as
 * it reads them (see tl_report_build) */
#define RPT_THIN_TEXT 192

int rpt_report_push(struct tl_report *r, struct tl_sheet *sh)
{
	struct tl_sheet **v = realloc(r->v, (r->n + 1) * sizeof(*v));

	if (!v) {
		tl_sheet_free(sh);
		return -ENOMEM;
	}
	r->v = v;
	r->v[r->n++] = sh;
	return 0;
}

static void progress(const struct tl_report_opts *o, const char *sheet)
{
	if (o->progress)
		o->progress(sheet, o->progress_ctx);
}

/* Whether @tr has a cpu_op: the first is near the start of any trace that
 * has them, and counting every kind walks all the events (a tenth of a
 * second on a big trace). */
static bool has_cpu_ops(const struct tl_trace *tr)
{
	size_t i;

	for (i = 0; i < tr->nev; i++)
		if (tr->ev[i].kind == TL_KIND_CPU_OP)
			return true;
	return false;
}

/* opts->summary_only, where the caller's struct has it. */
static bool summary_only(const struct tl_report_opts *o)
{
	return o->sz >= offsetof(struct tl_report_opts, summary_only) + sizeof(bool) && o->summary_only;
}

/* The sheets of the ops: by category, by name, by recorded args. TraceLens
 * leaves out an empty one, and all three for a trace without CPU ops. */
static int op_sheets(struct tl_trace *tr, const struct tl_report_opts *o, struct tl_report *r,
		     bool *gpu_only)
{
	struct tl_launcher_opts lo = { .sz = sizeof(lo), .include_nccl = o->include_nccl,
				       .detect_recompute = o->split_recompute,
				       .with_python = o->by_module };
	struct tl_ops_opts oo = { .sz = sizeof(oo), .split_recompute = o->split_recompute,
				  .by_module = o->by_module, .include_nccl = o->include_nccl };
	struct tl_launcher_group_opts go = { .sz = sizeof(go), .include_nccl = o->include_nccl,
					     .by_thread = true };
	struct tl_launcher_group_set *gs = NULL;
	struct tl_launcher_set *ls = NULL;
	struct tl_op_table *ot = NULL;
	struct tl_sheet *sh = NULL;
	struct rpt_meta *meta = NULL;
	int err;

	progress(o, "ops_summary");
	/* no cpu_op at all: a GPU-only trace, which gets none of these */
	*gpu_only = !has_cpu_ops(tr);
	if (*gpu_only)
		return 0;
	err = tl_launchers(tr, &lo, &ls);
	if (err || !ls->n)
		goto out;
	err = tl_ops_summary(tr, &oo, &ot);
	if (err)
		goto out;
	if (o->by_module)
		err = rpt_sheet_by_category_module(ot, &sh);
	else
		err = tl_sheet_ops_by_category(ls, o->split_recompute, &sh);
	if (!err)
		err = rpt_report_push(r, sh);
	if (!err)
		err = tl_sheet_ops_summary(ot, &oo, &sh);
	/* the command prints ex_UID beside the sheet's columns; the report
	 * writes TraceLens's (its inference variant keeps none either) */
	if (!err)
		err = rpt_sheet_drop_col(sh, "ex_UID");
	if (!err)
		err = rpt_report_push(r, sh);
	if (err || summary_only(o))
		goto out;
	progress(o, "ops_unique_args");
	/* the inference form groups the launchers itself, those without args too */
	if (o->by_module && !o->split_recompute) {
		err = rpt_meta_load(tr, &meta);
		if (!err)
			err = rpt_sheet_unique_args_infer(ls, tr, meta, &sh);
		if (!err)
			err = rpt_report_push(r, sh);
		goto out;
	}
	err = tl_launcher_groups(tr, &go, &gs);
	if (!err && gs->n)
		err = rpt_meta_load(tr, &meta);
	if (!err && gs->n) {
		err = o->split_recompute ? rpt_sheet_unique_args_recompute(gs, ls, tr, meta, &sh)
					 : rpt_sheet_unique_args(gs, NULL, tr, meta, &sh);
		if (!err)
			err = rpt_report_push(r, sh);
	}
out:
	rpt_meta_free(meta);
	tl_launcher_group_set_free(gs);
	tl_op_table_free(ot);
	tl_launcher_set_free(ls);
	return err;
}

/* TraceLens reads a JAX profile only from an .xplane.pb and writes its JAX
 * report for it (generate_perf_report_jax); the trace's name is what says so. */
static bool is_jax(const struct tl_trace *tr)
{
	const char *p = tl_trace_path(tr);

	return p && strstr(p, ".xplane.pb");
}

/* The index in @set of the @i-th GPU in TraceLens's order: it lists the GPU
 * pids of a Python set of small ints, which iterates in hash-table slot order
 * (pid modulo the table size: 8 slots under 5 pids, 32 under 19, then 128),
 * so two GPUs come out 8, 1, not sorted. A colliding pid takes the next free
 * slot (CPython's linear probe); pids go in in the breakdown's order. */
static size_t set_order(const struct tl_breakdown_set *set, size_t i)
{
	size_t slots = set->n < 5 ? 8 : set->n < 19 ? 32 : 128, tab[128], j, k, s;

	if (set->n > 76)
		return i;
	for (s = 0; s < slots; s++)
		tab[s] = SIZE_MAX;
	for (j = 0; j < set->n; j++) {
		s = (size_t)strtoull(set->v[j].device ? set->v[j].device : "0", NULL, 10) % slots;
		while (tab[s] != SIZE_MAX)
			s = (s + 1) % slots;
		tab[s] = j;
	}
	for (s = 0, k = 0; s < slots; s++) {
		if (tab[s] == SIZE_MAX)
			continue;
		if (k++ == i)
			return tab[s];
	}
	return i;
}

/* The JAX gpu_timeline: one block per GPU, its pid in a last gpu_pid column
 * (TraceLens's JaxTreePerfAnalyzer), rather than the PyTorch report's
 * leading device column. */
static int jax_gpu_timeline(const struct tl_breakdown_set *set, struct tl_sheet **out)
{
	static const char *const cols[] = { "type", "time ms", "percent", "gpu_pid" };
	struct tl_sheet *sh = NULL;
	size_t i;
	int r, err;

	err = tl_sheet_new("gpu_timeline", 4, cols, &sh);
	for (i = 0; !err && i < set->n; i++) {
		const struct tl_breakdown *bd = &set->v[set_order(set, i)];
		double total = bd->us[TL_BD_TOTAL];

		for (r = 0; r < TL_BD_NROWS && !err; r++) {
			struct tl_cell row[4] = {
				tl_cell_str(tl_bd_row_name(r)), tl_cell_num(bd->us[r] / 1e3),
				tl_cell_num(total > 0 ? bd->us[r] / total * 100 : 0),
				tl_cell_int(bd->device ? strtoll(bd->device, NULL, 10) : 0),
			};

			err = tl_sheet_add_row(sh, row);
		}
	}
	return rpt_sheet_done(sh, err, out);
}

/* TraceLens's JAX report, in its order; of its perf-model sheets, op_conv
 * (op_gemm and op_te are not written yet). */
static int jax_sheets(struct tl_trace *tr, const struct tl_report_opts *o, struct tl_report *r)
{
	static int (*const build[])(struct tl_trace *, struct tl_sheet **) = {
		tl_sheet_jax_gpu_events_averages,
		tl_sheet_jax_kernel_launchers,
		tl_sheet_jax_kernel_launchers_summary,
		tl_sheet_jax_kernel_launchers_summary_by_category,
		tl_sheet_jax_kernel_launchers_unique_args,
		tl_sheet_jax_xla_perf,
		tl_sheet_jax_xla_summary,
	};
	struct tl_breakdown_opts bo = { .sz = sizeof(bo), .group = TL_BD_GROUP_DEVICE };
	struct tl_breakdown_set *bd = NULL;
	struct tl_sheet *sh = NULL;
	size_t i;
	int err;

	progress(o, "gpu_timeline");
	err = tl_breakdown(tr, &bo, &bd);
	if (!err)
		err = jax_gpu_timeline(bd, &sh);
	if (!err)
		err = rpt_report_push(r, sh);
	for (i = 0; !err && i < sizeof(build) / sizeof(build[0]); i++) {
		progress(o, "JAX sheets");
		err = build[i](tr, &sh);
		if (!err)
			err = rpt_report_push(r, sh);
	}
	/* the perf-model sheets, op_<category>, when a kernel has a model */
	if (!err)
		err = tl_sheet_jax_op_conv(tr, &sh);
	if (!err && sh)
		err = rpt_report_push(r, sh);
	tl_breakdown_free(bd);
	return err;
}

/* The unified sheet is the report's largest piece and reads the trace only:
 * it is built on a second thread while this one builds the breakdown and the
 * perf-model sheets. Everything that could still change the trace (the call
 * tree's mode, the op summary's interned names) is done before it starts. */
struct unified_job {
	struct tl_trace *tr;
	bool recompute, inference;
	struct tl_sheet *sh;
	int err;
	char msg[1024];		/* its tl_last_error(), which is per thread */
};

static void *unified_main(void *arg)
{
	struct unified_job *j = arg;

	j->err = rpt_sheet_unified(j->tr, j->recompute, j->inference, &j->sh);
	if (j->err)
		snprintf(j->msg, sizeof(j->msg), "%s", tl_last_error());
	return NULL;
}

/* short_kernels_summary when no kernel is short, as TraceLens writes it: the
 * aggregate of an empty table, whose column index has two levels (the column
 * and the aggregate), so the CSV is those two header lines and no row. */
static int empty_short_summary(struct tl_sheet **out)
{
	static const char *const cols[] = { "Kernel duration (µs)", "Kernel duration (µs)", "Kernel duration (µs)" };
	struct tl_cell row[3] = { tl_cell_str("sum"), tl_cell_str("count"), tl_cell_str("mean") };
	int err = tl_sheet_new("short_kernels_summary", 3, cols, out);

	if (!err)
		err = tl_sheet_add_row(*out, row);
	if (err) {
		tl_sheet_free(*out);
		*out = NULL;
	}
	return err;
}

int tl_report_build(struct tl_trace *tr, const struct tl_report_opts *opts, struct tl_report **out)
{
	static const struct tl_report_opts none = { .sz = sizeof(none) };
	const struct tl_report_opts *o = opts ? opts : &none;
	struct tl_breakdown_opts bo = { .sz = sizeof(bo),
					.split_recompute = o->split_recompute,
					.include_unlinked = o->include_unlinked };
	struct tl_link_opts lk = { .sz = sizeof(lk) };
	struct unified_job uj = { .tr = tr, .recompute = o->split_recompute, .inference = o->by_module };
	struct tl_breakdown_set *bd = NULL;
	struct tl_kernel_table *kt = NULL;
	struct tl_report *r;
	struct tl_sheet *sh = NULL, *sum = NULL, *timeline = NULL, **ops = NULL;
	size_t nops = 0, i;
	pthread_t th;
	bool gpu_only = false, threaded = false;
	int err;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	/* the inference report's view of names and annotations, for as long as
	 * it reads the trace (every thread it starts is joined before out:) */
	tr->inference_view = o->by_module;
	if (is_jax(tr)) {
		err = jax_sheets(tr, o, r);
		goto done;
	}
	/* the call tree first, in the one mode every sheet below reads it
	 * (python functions for the recompute split and the by-module
	 * grouping): nothing below rebuilds it or changes the trace, so the
	 * unified sheet is built on a second thread meanwhile */
	lk.with_python = o->split_recompute || o->by_module;
	gpu_only = !has_cpu_ops(tr);
	if (!gpu_only) {
		err = tl_trace_link(tr, &lk);
		if (err)
			goto done;
		/* the report reads every op's args: of a big gzipped text
		 * (inflated into a file of its own) it keeps only what it is
		 * reading resident, 0.99x -> 0.85x of a 276 MB text. Not of a
		 * plain file, where refaulting its pages costs a sixth of the
		 * time, unless its events are small: the report keeps some 165
		 * bytes per event of its own, and a text of fewer than
		 * RPT_THIN_TEXT bytes per event kept whole as well would take it
		 * over twice the text (10 M events in 1.37 GB: 2.1x, 1.2x with) */
		if (!summary_only(o) && tr->text_len > (128u << 20) &&
		    (tr->text_inflated || tr->text_len / tr->nev < RPT_THIN_TEXT))
			tl_trace_set_text_window(tr, true);
		/* the inference report's unified sheet waits for the pseudo ops */
		if (!summary_only(o) && !o->by_module)
			threaded = !pthread_create(&th, NULL, unified_main, &uj);
	}
	/* the op sheets into their own list, spliced in their place below */
	err = op_sheets(tr, o, r, &gpu_only);
	ops = r->v;
	nops = r->n;
	r->v = NULL;
	r->n = 0;
	/* TraceLens's inference report puts pseudo ops in the tree (vLLM's
	 * MoE kernels each under an op of its own) for the unified and perf
	 * sheets; its op sheets read what the tree held before them */
	if (!err && !gpu_only && o->by_module && !summary_only(o)) {
		size_t added;

		err = tl_trace_add_pseudo_ops(tr, &added);
		if (!err)
			threaded = !pthread_create(&th, NULL, unified_main, &uj);
	}
	if (!err && !gpu_only && !threaded && !summary_only(o))
		unified_main(&uj);	/* no thread to be had: in turn */
	if (!err) {
		progress(o, "gpu_timeline");
		err = tl_breakdown(tr, &bo, &bd);
	}
	if (!err)
		err = tl_sheet_gpu_timeline(bd, TL_BD_GROUP_NONE, o->split_recompute, &timeline);
	if (!err && o->perf_models && !gpu_only && !summary_only(o)) {
		progress(o, "perf models");
		err = rpt_perf_sheets(tr, o->by_module, o->split_recompute, &r->v, &r->n);
	}
	if (threaded)
		pthread_join(th, NULL);
	if (!err && uj.err)
		err = tl_err(uj.err, "%s", uj.msg);
	if (err)
		goto done;
	/* in TraceLens's order: gpu_timeline, the op sheets, unified, perf */
	{
		size_t before = 1 + nops + (uj.sh ? 1 : 0);
		struct tl_sheet **v = realloc(r->v, (r->n + before) * sizeof(*v));

		if (!v) {
			err = -ENOMEM;
			goto done;
		}
		memmove(v + before, v, r->n * sizeof(*v));
		v[0] = timeline;
		for (i = 0; i < nops; i++)
			v[1 + i] = ops[i];
		if (uj.sh)
			v[1 + nops] = uj.sh;
		r->v = v;
		r->n += before;
		timeline = NULL;
		uj.sh = NULL;
		nops = 0;
	}
	/* the sheets that go last, once the unified sheet's thread is done:
	 * kernel_summary reads the launchers without python functions, which
	 * rebuilds the call tree of a --recompute or --by-module report */
	if (!err && o->kernel_summary) {
		progress(o, "kernel_summary");
		err = tl_kernel_summary(tr, &kt);
		if (!err)
			err = tl_sheet_kernel_summary(kt, &sh);
		if (!err)
			err = rpt_report_push(r, sh);
	}
	if (!err && o->short_kernels) {
		progress(o, "short kernels");
		err = tl_sheet_short_kernel_histogram(tr, NULL, &sh);
		if (!err)
			err = rpt_report_push(r, sh);
		if (!err)
			err = tl_sheet_short_kernels_summary(tr, NULL, &sum);
		/* no kernel is short: TraceLens writes its empty groupby's
		 * two-line header */
		if (!err && !tl_sheet_nrows(sum)) {
			tl_sheet_free(sum);
			sum = NULL;
			err = empty_short_summary(&sum);
		}
		if (!err)
			err = rpt_report_push(r, sum);
		else
			tl_sheet_free(sum);
	}
	/* TraceLens's coll_analysis: not for a GPU-only trace, nor when empty */
	if (!err && !gpu_only) {
		progress(o, "coll_analysis");
		err = tl_sheet_coll_analysis(tr, &sh);
		if (!err && tl_sheet_nrows(sh))
			err = rpt_report_push(r, sh);
		else if (!err)
			tl_sheet_free(sh);
	}
done:
	if (err)
		goto out;
	*out = r;
	r = NULL;
out:
	for (i = 0; i < nops; i++)
		tl_sheet_free(ops[i]);
	free(ops);
	tl_sheet_free(uj.sh);
	tl_sheet_free(timeline);
	tl_kernel_table_free(kt);
	tl_breakdown_free(bd);
	tl_report_free(r);
	tr->inference_view = false;
	return err;
}

const struct tl_sheet *tl_report_sheet(const struct tl_report *r, const char *name)
{
	size_t i;

	for (i = 0; r && i < r->n; i++)
		if (!strcmp(tl_sheet_name(r->v[i]), name))
			return r->v[i];
	return NULL;
}

void tl_report_free(struct tl_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++)
		tl_sheet_free(r->v[i]);
	free(r->v);
	free(r);
}
