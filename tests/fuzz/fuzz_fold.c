/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the results store into `fold`: the input is a store
 * (JSON Lines), written to a scratch file and read by the store's reader
 * (tl_store_read: the record limit, torn tails, corrupt lines), each record
 * offered to a fold of a small trace held here (its identity is ID below, so
 * that seeds' records belong to it), the folded copy written to memory.
 *
 * Rules: the reader refuses only with -EBADMSG, -EFBIG or -ENOMEM and one
 * line; a fold's counts add up (records = this trace + other traces; used
 * <= this trace); what tl_fold_write() writes is a trace the loader accepts,
 * with every event of the original (and the counter events it says it
 * appended), and a top-level "tlreplay" summary; the kept results are as
 * many as tl_fold_nkept() says. Any breach aborts. Built with
 * -DTL_FUZZ_STANDALONE it replays files (standalone.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <tlreplay/fold.h>
#include <tlreplay/store.h>
#include <tlreplay/tlreplay.h>

#define FUZZ_TARGET "fuzz_fold"
#include "refusal.h"
#include "standalone.h"

#define ID "{\"path\":\"/fuzz/trace.json\",\"size\":2048,\"sig\":\"0123456789abcdef\"}"

/* uid 0 aten::linear around 1 aten::addmm, which launches kernel 4 (uid 4);
 * 6 aten::relu launches 9; 7 has no args; 8 is metadata. */
static const char trace_text[] =
	"{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H200\"}],\n"
	"\"traceEvents\": [\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":50,\"args\":{\"External id\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":20,\"args\":{\"External id\":2,\"Input Dims\":[[4],[3,8],[8,4]],\"Input type\":[\"float\",\"float\",\"float\"]}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":112,\"dur\":2,\"args\":{\"correlation\":7}},\n"
	"{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":112},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":140,\"dur\":8,\"args\":{\"correlation\":7,\"stream\":7,\"device\":0}},\n"
	"{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":7,\"pid\":0,\"tid\":7,\"ts\":140,\"bp\":\"e\"},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":10,\"args\":{\"External id\":3}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::empty\",\"pid\":1,\"tid\":1,\"ts\":220,\"dur\":5},\n"
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"python\"}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"relu_kernel\",\"pid\":0,\"tid\":7,\"ts\":205,\"dur\":3,\"args\":{\"correlation\":9,\"stream\":7,\"device\":0}}\n"
	"]}\n";

static struct tl_trace *tr;
static cJSON *trace_id;

/* The folded copy into an open_memstream() */
static int file_write(const void *d, size_t n, void *ctx)
{
	return fwrite(d, 1, n, ctx) == n ? 0 : -ENOMEM;
}

static int offer(const cJSON *rec, size_t line, void *ctx)
{
	(void)line;
	return tl_fold_add(ctx, rec);
}

static void check_output(const char *text, size_t len, const struct tl_fold_result *res)
{
	struct tl_trace *back = NULL;
	cJSON *doc;
	char why[700];
	uint64_t want = tl_trace_nevents(tr) + res->counter_events;

	if (tl_trace_open_mem(text, len, "folded.json", NULL, &back)) {
		snprintf(why, sizeof(why), "the loader refuses the folded trace: %.600s", tl_last_error());
		fail("fold", why);
	}
	if (tl_trace_nevents(back) < want) {
		snprintf(why, sizeof(why), "%llu events folded back, %llu expected",
			 (unsigned long long)tl_trace_nevents(back), (unsigned long long)want);
		fail("fold", why);
	}
	tl_trace_close(back);
	doc = cJSON_ParseWithLength(text, len);
	if (!doc || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "tlreplay")))
		fail("fold", "no top-level tlreplay summary in the folded trace");
	cJSON_Delete(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tl_fold_opts o = { .sz = sizeof(o), .store = "fuzz.jsonl", .folded_at = "2026-01-01T00:00:00.000Z" };
	struct tl_fold_result res = { .sz = sizeof(res) };
	const char *tmp = getenv("TMPDIR");
	struct tl_fold *f = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	char path[4096];
	size_t i, n;
	FILE *fp;
	int fd, err;

	if (!tr && (tl_trace_open_mem(trace_text, strlen(trace_text), "/fuzz/trace.json", NULL, &tr) ||
		    !(trace_id = cJSON_Parse(ID))))
		abort();
	o.trace_id = trace_id;
	if (tl_fold_new(&o, &f))
		abort();
	snprintf(path, sizeof(path), "%s/fuzz-store.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || !(fp = fdopen(fd, "wb")) || fwrite(data, 1, size, fp) != size || fclose(fp))
		abort();
	err = tl_store_read(path, offer, f, NULL);
	unlink(path);
	if (err && ((err != -EBADMSG && err != -EFBIG && err != -ENOMEM) || !*tl_last_error() ||
		    strchr(tl_last_error(), '\n')))
		fail("store", "a refusal that is not -EBADMSG, -EFBIG or -ENOMEM with one line");
	tl_fold_stats(f, &res);
	if (res.records != res.this_trace + res.other_traces || res.used > res.this_trace)
		fail("fold", "counts that do not add up");
	n = tl_fold_nkept(f);
	for (i = 0; i < n; i++)
		if (!tl_fold_kept(f, i))
			fail("fold", "a kept result missing");
	if (tl_fold_kept(f, n))
		fail("fold", "a kept result past the end");
	if (!(mem = open_memstream(&text, &len)))
		abort();
	err = tl_fold_write(f, tr, file_write, mem, &res);
	if (fclose(mem))
		abort();
	if (getenv("TL_FUZZ_VERBOSE"))
		fprintf(stderr, "fuzz_fold: %llu records, %llu used, %llu counter events: %s\n",
			(unsigned long long)res.records, (unsigned long long)res.used,
			(unsigned long long)res.counter_events, err ? tl_last_error() : "written");
	if (!err)
		check_output(text, len, &res);
	else if (err != -ENODATA && err != -ENOMEM)
		fail("fold", tl_last_error());
	free(text);
	tl_fold_free(f);
	return 0;
}
