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
#include "trace/trace_internal.h"	/* tl_xplane_sniff(), from core/src/trace */

/* Enough for any gzip bomb that fits in -max_len=65536 (deflate tops out
 * near 1032:1), small enough for the RSS limit. */
#define FUZZ_MAX_INFLATE (128u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Standalone replay with TL_FUZZ_VERBOSE set: say what happened to each input. */
static int verbose;

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

static void fail(const char *what, const char *why)
{
	fprintf(stderr, "fuzz_load: %s: %s\n", what, why);
	abort();
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

#ifdef TL_FUZZ_STANDALONE
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *current;

/* Name the input that crashed: write(2) is safe in a signal handler. */
static void on_crash(int sig)
{
	static const char msg[] = "fuzz_load: crashing input: ";

	if (current) {
		(void)!write(2, msg, sizeof(msg) - 1);
		(void)!write(2, current, strlen(current));
		(void)!write(2, "\n", 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, len = 0, r;
	int ret = -1;

	if (!f) {
		fprintf(stderr, "fuzz_load: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			unsigned char *nb = realloc(buf, cap ? cap * 2 : 65536);

			if (!nb)
				goto out;
			buf = nb;
			cap = cap ? cap * 2 : 65536;
		}
		r = fread(buf + len, 1, cap - len, f);
		len += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "fuzz_load: %s: read error\n", path);
		goto out;
	}
	current = path;
	if (verbose)
		fprintf(stderr, "%s\n", path);
	LLVMFuzzerTestOneInput(buf, len);
	current = NULL;
	ret = 0;
out:
	free(buf);
	fclose(f);
	return ret;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files directly inside @dir, in name order. */
static int run_dir(const char *dir, long *nrun)
{
	struct dirent **ents = NULL;
	int n, i, bad = 0;

	n = scandir(dir, &ents, NULL, NULL);
	if (n < 0) {
		fprintf(stderr, "fuzz_load: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	qsort(ents, (size_t)n, sizeof(*ents), cmp_names);
	for (i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && !stat(path, &st) && S_ISREG(st.st_mode)) {
			if (run_file(path))
				bad = -1;
			else
				(*nrun)++;
		}
		free(ents[i]);
	}
	free(ents);
	return bad;
}

int main(int argc, char **argv)
{
	long nrun = 0;
	int i, bad = 0;

	verbose = getenv("TL_FUZZ_VERBOSE") != NULL;
	signal(SIGABRT, on_crash);
	signal(SIGSEGV, on_crash);
	signal(SIGBUS, on_crash);
	signal(SIGFPE, on_crash);
	for (i = 1; i < argc; i++) {
		struct stat st;

		if (argv[i][0] == '-') {
			/* libFuzzer flags mean nothing here. */
			fprintf(stderr, "fuzz_load (standalone replay driver): ignoring %s\n", argv[i]);
			continue;
		}
		if (stat(argv[i], &st)) {
			fprintf(stderr, "fuzz_load: %s: %s\n", argv[i], strerror(errno));
			bad = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (run_dir(argv[i], &nrun))
				bad = 1;
		} else if (run_file(argv[i])) {
			bad = 1;
		} else {
			nrun++;
		}
	}
	fprintf(stderr, "fuzz_load: ran %ld inputs\n", nrun);
	return bad;
}
#endif
