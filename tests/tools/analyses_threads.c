// SPDX-License-Identifier: MIT
/*
 * Every analysis of the library at once, in threads, for ThreadSanitizer
 * (tests/tsan/test_analyses.sh) and as a plain smoke test (tests/cli).
 *
 *   analyses_threads [-t THREADS] [-n ROUNDS] TRACE [VARIANT]
 *
 * common.h promises: distinct handles may be used from distinct threads, and
 * one loaded, linked handle may be read concurrently. So each of THREADS
 * threads opens TRACE (and VARIANT, for the diff) on its own handles and runs
 * every analysis that takes a trace (breakdown, launchers and their groups,
 * ops and kernel summaries, unique kernels, health, annotations, critpath,
 * idle, launch statistics, steps, kernel n-grams, op patterns, the whole
 * report with every option, the IR of every cpu_op, the trace diff, fold into
 * memory, pseudo ops); meanwhile THREADS more threads read one shared linked
 * handle (events, args, parents, children, GPU events, launchers). A library
 * that keeps state in a global shared between handles (critpath's sort
 * context did) is a race ThreadSanitizer reports. Exit 0 when every call
 * returned 0 or a documented "nothing to do" (-ENODATA, -ENOENT).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <tlreplay/tlreplay.h>

static const char *trace_path, *variant_path;
static int rounds = 1;
static atomic_int failures;

/* check NAME ERR: a failure other than "no data for this" is counted and said */
static void check(const char *name, int err)
{
	if (err && err != -ENODATA && err != -ENOENT) {
		fprintf(stderr, "analyses_threads: %s: %s (%d): %s\n", name, strerror(-err), err,
			tl_last_error());
		atomic_fetch_add(&failures, 1);
	}
}

static int count_bytes(const void *buf, size_t len, void *ctx)
{
	(void)buf;
	*(size_t *)ctx += len;
	return 0;
}

static struct tl_trace *open_linked(const char *path)
{
	struct tl_trace *tr = NULL;
	struct tl_link_opts lo = { .sz = sizeof(lo), .with_python = true };
	int err = tl_trace_open(path, NULL, &tr);

	check("open", err);
	if (!err)
		check("link", tl_trace_link(tr, &lo));
	return tr;
}

static void summaries(struct tl_trace *tr)
{
	struct tl_breakdown_opts bo = { .sz = sizeof(bo), .split_recompute = true };
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

	check("breakdown", tl_breakdown(tr, &bo, &bd));
	check("launchers", tl_launchers(tr, &lo, &ls));
	check("launcher groups", tl_launcher_groups(tr, &go, &lg));
	check("ops summary", tl_ops_summary(tr, &oo, &ops));
	check("kernel summary", tl_kernel_summary(tr, &kt));
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

static void timelines(struct tl_trace *tr)
{
	struct tl_ann_opts ao = { .sz = sizeof(ao) };
	struct tl_critpath_opts co = { .sz = sizeof(co), .step = -1 };
	struct tl_idle_opts io = { .sz = sizeof(io), .keep_gaps = true };
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

static void report_ir_fold(struct tl_trace *tr)
{
	struct tl_report_opts ro = { .sz = sizeof(ro), .split_recompute = true, .kernel_summary = true,
				     .perf_models = true, .short_kernels = true };
	struct tl_ir_opts io = { .sz = sizeof(io), .allow_schemaless = true };
	struct tl_fold_opts fo = { .sz = sizeof(fo), .trace_path = trace_path };
	struct tl_event_info ev;
	struct tl_report *r = NULL;
	size_t folded = 0;
	uint64_t u;

	check("report", tl_report_build(tr, &ro, &r));
	tl_report_free(r);
	r = NULL;
	ro.split_recompute = false;
	ro.by_module = true;
	ro.include_nccl = true;
	check("report --by-module", tl_report_build(tr, &ro, &r));
	tl_report_free(r);
	for (u = 0; u < tl_trace_nevents(tr); u++) {
		cJSON *e = NULL;

		if (tl_trace_event(tr, u, &ev) || ev.kind != TL_KIND_CPU_OP)
			continue;
		check("ir", tl_ir_entry(tr, u, &io, &e));
		cJSON_Delete(e);
	}
	check("fold", tl_fold(tr, NULL, 0, &fo, count_bytes, &folded, NULL));
}

static void diff(struct tl_trace *a)
{
	struct tl_trace_diff_opts o = { .sz = sizeof(o) };
	struct tl_trace *b = open_linked(variant_path ? variant_path : trace_path);
	struct tl_trace_diff *d = NULL;
	struct tl_sheet *s = NULL;

	if (!b)
		return;
	check("diff", tl_trace_diff_build(a, b, &o, &d));
	if (d) {
		check("diff stats", tl_sheet_diff_stats(d, &s));
		tl_sheet_free(s);
	}
	tl_trace_diff_free(d);
	tl_trace_close(b);
}

static void *own_handles(void *arg)
{
	int k;

	(void)arg;
	for (k = 0; k < rounds; k++) {
		struct tl_trace *tr = open_linked(trace_path);
		size_t added = 0;

		if (!tr)
			break;
		summaries(tr);
		timelines(tr);
		report_ir_fold(tr);
		diff(tr);
		check("pseudo ops", tl_trace_add_pseudo_ops(tr, &added));
		summaries(tr);
		tl_trace_close(tr);
	}
	return NULL;
}

/* Reads of one linked handle, as common.h allows from many threads. */
static void *shared_reads(void *arg)
{
	struct tl_trace *tr = arg;
	uint64_t u, n = tl_trace_nevents(tr), *gpu;
	struct tl_event_info ev;
	int k;

	for (k = 0; k < rounds; k++)
		for (u = 0; u < n; u++) {
			cJSON *args = NULL;
			int64_t m;

			check("event", tl_trace_event(tr, u, &ev));
			(void)tl_event_parent(tr, u);
			(void)tl_event_first_child(tr, u);
			(void)tl_event_next_sibling(tr, u);
			(void)tl_event_linked(tr, u);
			if (tl_kind_is_gpu(ev.kind))
				(void)tl_event_launcher(tr, u);
			m = tl_event_gpu_events(tr, u, &gpu);
			if (m > 0)
				free(gpu);
			if (!tl_trace_event_args(tr, u, &args))
				cJSON_Delete(args);
		}
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = 4, opt, i;
	pthread_t *th;
	struct tl_trace *shared;

	while ((opt = getopt(argc, argv, "t:n:")) != -1) {
		if (opt == 't')
			nthreads = atoi(optarg);
		else if (opt == 'n')
			rounds = atoi(optarg);
		else
			goto usage;
	}
	if (optind >= argc || argc - optind > 2 || nthreads < 1 || rounds < 1)
		goto usage;
	trace_path = argv[optind];
	variant_path = optind + 1 < argc ? argv[optind + 1] : NULL;
	shared = open_linked(trace_path);
	if (!shared)
		return 1;
	th = calloc(2 * (size_t)nthreads, sizeof(*th));
	if (!th)
		return 1;
	for (i = 0; i < 2 * nthreads; i++)
		if (pthread_create(&th[i], NULL, i % 2 ? shared_reads : own_handles, i % 2 ? shared : NULL)) {
			perror("analyses_threads: pthread_create");
			return 1;
		}
	for (i = 0; i < 2 * nthreads; i++)
		pthread_join(th[i], NULL);
	free(th);
	tl_trace_close(shared);
	if (atomic_load(&failures)) {
		fprintf(stderr, "analyses_threads: %d calls failed\n", atomic_load(&failures));
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: analyses_threads [-t THREADS] [-n ROUNDS] TRACE [VARIANT]\n");
	return 2;
}
