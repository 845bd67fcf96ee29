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

#include "../fuzz/all_analyses.h"

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

static void *own_handles(void *arg)
{
	int k;

	(void)arg;
	for (k = 0; k < rounds; k++) {
		struct tl_trace *tr = open_linked(trace_path);
		struct tl_trace *other = tr ? open_linked(variant_path ? variant_path : trace_path) : NULL;

		if (tr && other)
			aa_all(tr, other, trace_path, check);
		tl_trace_close(other);
		tl_trace_close(tr);
		if (!tr || !other)
			break;
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
