/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the trace loader: tl_trace_open_mem() on arbitrary
 * bytes (JSON or gzip), every accessor on what it accepts, a one-line error
 * for what it rejects, and the differential check of differential.h against
 * cJSON and an independent grammar check. Any disagreement aborts.
 *
 * Built with -DTL_FUZZ_STANDALONE it is a plain program that runs the target
 * over files and directories of files named on the command line, for
 * compilers without libFuzzer and to replay a corpus or a crash. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "differential.h"
#define FUZZ_TARGET "fuzz_load"
#include "refusal.h"
#include "standalone.h"	/* main() without libFuzzer, and verbose */
#include "trace/trace_internal.h"	/* tl_xplane_sniff(), from core/src/trace */

/* Enough for any gzip bomb that fits in -max_len=65536 (deflate tops out
 * near 1032:1), small enough for the RSS limit. */
#define FUZZ_MAX_INFLATE (128u << 20)

struct progress {
	uint64_t last, calls;
};

/* The callback must see a non-decreasing count that never passes the total. */
static void on_progress(uint64_t done, uint64_t total, void *ctx)
{
	struct progress *pr = ctx;

	if (done > total || done < pr->last) {
		fprintf(stderr, "progress went from %llu to %llu of %llu\n",
			(unsigned long long)pr->last, (unsigned long long)done,
			(unsigned long long)total);
		abort();
	}
	pr->last = done;
	pr->calls++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct progress pr = { 0, 0 };
	struct tl_open_opts opts;
	struct tl_trace *tr = NULL;
	struct diff_result res;
	char why[512];
	char *inflated = NULL;
	const char *text = (const char *)data;
	size_t len = size;
	int err;

	/* Half the inputs go through the two-thread parse, which normally starts at
	 * 16 MiB, far above -max_len. */
	if (size & 1)
		setenv("TLREPLAY_PARALLEL_MIN", "64", 1);
	else
		unsetenv("TLREPLAY_PARALLEL_MIN");
	memset(&opts, 0, sizeof(opts));
	opts.sz = sizeof(opts);
	opts.progress = on_progress;
	opts.progress_ctx = &pr;
	opts.rank = -1;
	err = tl_trace_open_mem(data, size, "fuzz", &opts, &tr);
	if (err) {
		if (tr)
			fail("open", "failed but set the handle");
		if (!diff_check_error(err, why, sizeof(why)))
			fail("error", why);
	} else {
		if (!tr)
			fail("open", "succeeded without a handle");
		if (!diff_check_api(tr, true, why, sizeof(why)))
			fail("api", why);
		if (strcmp(tl_trace_path(tr), "fuzz"))
			fail("path", tl_trace_path(tr));
	}

	/* The reference reads the same JSON text: inflate gzip first. */
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		if (diff_gunzip(data, size, FUZZ_MAX_INFLATE, &inflated, &len))
			goto out;	/* zlib cannot read it: no reference */
		text = inflated;
	}
	/* An XSpace protobuf is loaded as the JSON XProf would write for it:
	 * there is no JSON to compare with (test_xplane.c covers it). */
	if (tl_xplane_sniff(text, len))
		goto out;
	if (tr && len != tl_trace_text_size(tr)) {
		snprintf(why, sizeof(why), "%zu bytes of text by zlib, %llu by the library", len,
			 (unsigned long long)tl_trace_text_size(tr));
		fail("text size", why);
	}
	diff_trace(tr, err, text, len, &res);
	if (res.verdict == DIFF_MISMATCH)
		fail("differential", res.why);
	if (verbose)
		fprintf(stderr, "  %s; %s: %llu events compared, %llu skipped%s%s\n",
			err ? tl_last_error() : "loaded",
			res.verdict == DIFF_SAME ? "same" : "no reference",
			(unsigned long long)res.compared, (unsigned long long)res.skipped,
			res.why[0] ? "; " : "", res.why);
out:
	free(inflated);
	tl_trace_close(tr);
	return 0;
}

