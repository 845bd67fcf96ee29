/* SPDX-License-Identifier: MIT */
/* libFuzzer target for everything after the loader: what tl_trace_open_mem()
 * accepts goes through every analysis, every report sheet (all options, the
 * comparison, the roofline), the IR of every cpu_op, fold, the trace diff
 * (against a second load of itself and against a small fixed trace), pseudo
 * ops, and the HTML page of `report --html` (the command's code, linked in).
 * Errors are the library's to give; a crash, a sanitizer report or a
 * positive return is a bug. The loader's own checks are fuzz_load.c's.
 *
 * Built with -DTL_FUZZ_STANDALONE it replays files instead (standalone.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "all_analyses.h"
#include "standalone.h"	/* main() without libFuzzer, and verbose */
#include "html-report.h"	/* perf-plugin: the page of report --html */

/* the other side of the diff: a launcher, its runtime call and its kernel */
static const char fixed[] =
	"{\"traceEvents\":["
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,"
	"\"args\":{\"External id\":1,\"Input Dims\":[[2,3],[3,4]],\"Input type\":[\"float\",\"float\"]}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":1,"
	"\"dur\":2,\"args\":{\"External id\":1,\"correlation\":5}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":4,\"dur\":3,"
	"\"args\":{\"External id\":1,\"correlation\":5,\"device\":0,\"stream\":7}}]}";

static void on_result(const char *what, int err)
{
	if (err > 0) {
		fprintf(stderr, "fuzz_analyses: %s returned %d, not 0 or -errno\n", what, err);
		abort();
	}
	if (verbose && err)
		fprintf(stderr, "  %s: %s\n", what, tl_last_error());
}

static struct tl_trace *load(const uint8_t *data, size_t size)
{
	struct tl_open_opts opts = { .sz = sizeof(opts), .rank = -1 };
	struct tl_link_opts lo = { .sz = sizeof(lo), .with_python = true };
	struct tl_trace *tr = NULL;

	if (tl_trace_open_mem(data, size, "fuzz", &opts, &tr))
		return NULL;
	on_result("link", tl_trace_link(tr, &lo));
	return tr;
}

/* the page, into a file of this process that is removed after */
static void html(struct tl_trace *tr)
{
	struct html_report_in in = { .tr = tr, .input = "fuzz", .store = "/nonexistent/tlreplay-fuzz.jsonl" };
	char path[64];

	snprintf(path, sizeof(path), "/tmp/tlreplay-fuzz-%d.html", (int)getpid());
	if (html_report_write(path, &in) > 1)
		abort();
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	struct tl_trace *tr, *again = NULL, *other = NULL;

	if (!quiet) {
		/* the library's warnings are no findings (read once, at the first log) */
		setenv("TLREPLAY_LOG_LEVEL", "error", 0);
		quiet = 1;
	}
	tr = load(data, size);
	if (!tr)
		return 0;
	again = load(data, size);
	other = load((const uint8_t *)fixed, sizeof(fixed) - 1);
	if (!again || !other)
		abort();	/* what loaded once loads again; the fixed trace always */
	aa_diff(tr, other, on_result);
	aa_diff(other, tr, on_result);
	aa_all(tr, again, "fuzz", on_result);
	html(again);
	tl_trace_close(other);
	tl_trace_close(again);
	tl_trace_close(tr);
	return 0;
}
