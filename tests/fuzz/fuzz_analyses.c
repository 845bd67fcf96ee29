/* SPDX-License-Identifier: MIT */
/* libFuzzer target for everything after the loader: what tl_trace_open_mem()
 * accepts goes through every analysis, every report sheet (all options, the
 * comparison, the roofline), the IR of every cpu_op, the trace diff (against
 * a second load of itself and against a small fixed trace), pseudo ops
 * (all_analyses.h); through what the command does around them, with its code
 * linked in: report -o DIR / FILE.xlsx / --roofline / --html, diff --tree and
 * -o DIR, kernels --short, a directory of ranks with its collectives, the
 * JAX report (a trace named .xplane.pb), --capture DIR and --step N
 * (command_paths.h); and through the writers whose copies of the trace must
 * load again: fold with a result for each op, and critpath --fold's marked
 * copy. Errors are the library's to give; a crash, a sanitizer report, a
 * positive return from the library or a copy that does not load is a bug.
 * The loader's own checks are fuzz_load.c's.
 *
 * Built with -DTL_FUZZ_STANDALONE it replays files instead (standalone.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "standalone.h"	/* main() without libFuzzer, and verbose */
#include "builtin.h"	/* perf-plugin: critpath --fold */
#include "command_paths.h"

/* the other side of the diff: a launcher, its runtime call and its kernel */
static const char fixed[] =
	"{\"traceEvents\":["
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,"
	"\"args\":{\"External id\":1,\"Input Dims\":[[2,3],[3,4]],\"Input type\":[\"float\",\"float\"]}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":1,"
	"\"dur\":2,\"args\":{\"External id\":1,\"correlation\":5}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":4,\"dur\":3,"
	"\"args\":{\"External id\":1,\"correlation\":5,\"device\":0,\"stream\":7}}]}";

static void cp_check(const char *what, int err)
{
	if (err > 0) {
		fprintf(stderr, "fuzz_analyses: %s returned %d, not 0 or -errno\n", what, err);
		abort();
	}
	if (verbose && err)
		fprintf(stderr, "  %s: %s\n", what, tl_last_error());
}

static struct tl_trace *cp_load(const uint8_t *data, size_t size, const char *label, bool link)
{
	struct tl_open_opts opts = { .sz = sizeof(opts), .rank = -1 };
	struct tl_link_opts lo = { .sz = sizeof(lo), .with_python = true };
	struct tl_trace *tr = NULL;

	if (tl_trace_open_mem(data, size, label, &opts, &tr))
		return NULL;
	if (link)
		cp_check("link", tl_trace_link(tr, &lo));
	return tr;
}

/* ------------------------------------------------------------------ copies */

/* A copy of the trace that a writer made must load, with @nev events or more. */
static void must_load(const char *what, const char *path, uint64_t nev)
{
	struct tl_trace *copy = NULL;

	if (tl_trace_open(path, NULL, &copy) || tl_trace_nevents_file(copy) < nev) {
		fprintf(stderr, "fuzz_analyses: %s of the trace: %s\n", what,
			copy ? "events lost" : tl_last_error());
		abort();
	}
	tl_trace_close(copy);
}

static int file_write(const void *buf, size_t len, void *f)
{
	return fwrite(buf, 1, len, f) == len ? 0 : -EIO;
}

/* fold: a replay result for each of the first cpu_ops, folded into a copy */
static void fold_copy(struct tl_trace *tr)
{
	struct tl_fold_opts fo = { .sz = sizeof(fo), .store = "s.jsonl", .folded_at = "2025-01-01T00:00:00Z" };
	cJSON *id = cJSON_Parse("{\"path\":\"/t.json\",\"size\":1,\"sig\":\"0011223344556677\"}");
	const char *path = cp_path(0, "folded.json");
	struct tl_event_info ev;
	cJSON *recs[64];
	size_t n = 0, i;
	uint64_t u;
	FILE *f;
	int err;

	if (!id)
		abort();
	for (u = 0; u < tl_trace_nevents(tr) && n < 64; u++) {
		cJSON *r, *t;

		if (tl_trace_event(tr, u, &ev) || ev.kind != TL_KIND_CPU_OP)
			continue;
		r = cJSON_CreateObject();
		t = cJSON_AddObjectToObject(r, "time_us");
		cJSON_AddNumberToObject(r, "v", 1);
		cJSON_AddStringToObject(r, "time", "2025-01-01T00:00:00Z");
		cJSON_AddStringToObject(r, "command", n % 2 ? "replay" : "uid");
		cJSON_AddStringToObject(r, "device", "cuda:0");
		cJSON_AddItemToObject(r, "trace", cJSON_Duplicate(id, true));
		cJSON_AddNumberToObject(r, "uid", (double)u);
		cJSON_AddStringToObject(r, "op", ev.name);
		cJSON_AddStringToObject(r, "status", "ok");
		cJSON_AddNumberToObject(r, "iters", 10);
		cJSON_AddNumberToObject(t, "median", 1.5 + (double)n);
		cJSON_AddNumberToObject(t, "mean", 1.5);
		cJSON_AddNumberToObject(t, "min", 1);
		cJSON_AddNumberToObject(t, "max", 2);
		cJSON_AddNumberToObject(t, "std", 0.25);
		recs[n++] = r;
	}
	fo.trace_id = id;
	f = fopen(path, "w");
	if (!f)
		abort();
	err = tl_fold(tr, (const cJSON *const *)recs, n, &fo, file_write, f, NULL);
	if (fclose(f))
		abort();
	cp_check("fold", err);
	if (!err)
		must_load("fold's copy", path, tl_trace_nevents_file(tr));
	for (i = 0; i < n; i++)
		cJSON_Delete(recs[i]);
	cJSON_Delete(id);
}

/* critpath --fold: the command's copy with the path marked */
static void marked_copy(struct tl_trace *tr)
{
	struct tl_critpath_opts co = { .sz = sizeof(co), .step = -1 };
	struct tl_critpath *cp = NULL;
	const char *path = cp_path(0, "critpath.json");
	int rc;

	if (tl_critpath(tr, &co, &cp))
		return;
	rc = critpath_fold(tr, path, cp);
	cp_cmd("critpath --fold", rc);
	if (!rc)
		must_load("critpath --fold's copy", path, tl_trace_nevents_file(tr));
	tl_critpath_free(cp);
}

/* ------------------------------------------------------------------ driver */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	struct tl_trace *tr, *again = NULL, *other = NULL, *jax = NULL;
	struct tl_report_opts ro = { .sz = sizeof(ro), .kernel_summary = true, .perf_models = true,
				     .short_kernels = true };
	struct tl_report *r = NULL;
	struct tl_rankset *ranks;

	if (!quiet) {
		/* the library's warnings are no findings (read once, at the first log) */
		setenv("TLREPLAY_LOG_LEVEL", "error", 0);
		quiet = 1;
	}
	tr = cp_load(data, size, "fuzz", true);
	if (!tr)
		return 0;
	cp_init();
	again = cp_load(data, size, "fuzz", true);
	other = cp_load((const uint8_t *)fixed, sizeof(fixed) - 1, "fixed", true);
	/* TraceLens's JAX report is for a trace named .xplane.pb, whatever it holds */
	jax = cp_load(data, size, "fuzz.xplane.pb", true);
	if (!again || !other || !jax)
		abort();	/* what loaded once loads again; the fixed trace always */
	aa_diff(tr, other, cp_check);
	aa_diff(other, tr, cp_check);
	cp_diff(other, again);
	cp_check("JAX report", tl_report_build(jax, &ro, &r));
	tl_report_free(r);
	ranks = cp_ranks(tr, again);
	cp_report(again, size && (data[size - 1] & 1), ranks, 0);
	tl_rankset_free(ranks);
	cp_kernels_short(again);
	fold_copy(again);
	marked_copy(again);
	cp_steps(data, size, again);
	cp_capture(data, size);
	aa_all(tr, again, "fuzz", cp_check);	/* last: its pseudo ops change tr */
	cp_clear();
	tl_trace_close(jax);
	tl_trace_close(other);
	tl_trace_close(again);
	tl_trace_close(tr);
	return 0;
}
