/* SPDX-License-Identifier: MIT */
/* Fold: results records spliced into a copy of a small in-memory trace.
 * The output must parse (cJSON, tlreplay, Python's json without duplicate
 * keys), keep every original event as it was apart from args["tlreplay"],
 * annotate the right op and its kernels, and draw counter tracks. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <tlreplay/fold.h>
#include <tlreplay/tlreplay.h>

#include "tap.h"

#define ID "{\"path\":\"/traces/t.json\",\"size\":1000,\"sig\":\"00112233aabbccdd\"}"
#define OTHER_ID "{\"path\":\"/traces/other.json\",\"size\":999,\"sig\":\"ffffffffffffffff\"}"
#define PATH_ONLY_ID "{\"path\":\"/traces/t.json\",\"size\":1000,\"sig\":\"0000000000000000\"}"

/* 0 linear [100.5, 150.75) around 1 addmm [110.125, 130.125), which
 * launches kernel 4; 6 has no args, 7 empty args, 8 null args and a
 * string pid. */
static const char trace1[] =
	"{\"schemaVersion\": 1, \"baseTimeNanoseconds\": 1700000000000000000,\n"
	"\"traceEvents\": [\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":100.5,\"dur\":50.25,\"args\":{\"External id\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1,\"tid\":1,\"ts\":110.125,\"dur\":20,\"args\":{\"External id\":2,\"Input Dims\":[[4],[3,8],[8,4]]}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":112,\"dur\":2,\"args\":{\"correlation\":7}},\n"
	"{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":112},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":140,\"dur\":8,\"args\":{\"correlation\":7,\"stream\":7,\"device\":0}},\n"
	"{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":7,\"pid\":0,\"tid\":7,\"ts\":140,\"bp\":\"e\"},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":10},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::empty\",\"pid\":1,\"tid\":1,\"ts\":220,\"dur\":5,\"args\":{ }},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::zeros\",\"pid\":\"Spans\",\"tid\":1,\"ts\":230,\"dur\":5,\"args\":null},\n"
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"python\"}}\n"
	"]}\n";
#define NEV1 10

/* ------------------------------------------------------------------ helpers */

struct buf {
	char *p;
	size_t n, cap;
	int calls, fail_after;
};

static int buf_write(const void *d, size_t n, void *ctx)
{
	struct buf *b = ctx;

	if (b->fail_after && b->calls >= b->fail_after)
		return -ENOSPC;
	b->calls++;
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
	b->p[b->n] = 0;
	return 0;
}

static struct tl_trace *open_text(const char *text)
{
	struct tl_trace *tr = NULL;

	if (tl_trace_open_mem(text, strlen(text), "t.json", NULL, &tr))
		diag("load failed: %s", tl_last_error());
	return tr;
}

/* A record; @extra is more members (with a leading comma) or "". */
static cJSON *rec(const char *trace, int uid, const char *op, const char *device,
		  const char *command, const char *time, double median, const char *extra)
{
	char buf[2048];
	cJSON *r;

	snprintf(buf, sizeof(buf),
		 "{\"v\":1,\"time\":\"%s\",\"host\":\"h\",\"command\":\"%s\",\"device\":\"%s\","
		 "\"torch\":\"2.4.0\",\"trace\":%s,\"uid\":%d,\"op\":\"%s\",\"status\":\"ok\","
		 "\"iters\":100,\"warmup\":10,\"time_us\":{\"median\":%g,\"mean\":%g,\"std\":0.1,"
		 "\"min\":%g,\"max\":%g}%s}",
		 time, command, device, trace, uid, op, median, median, median, median, extra);
	r = cJSON_Parse(buf);
	if (!r)
		diag("bad record JSON: %s", buf);
	return r;
}

static int fold(struct tl_trace *tr, cJSON **recs, size_t n, struct buf *out,
		struct tl_fold_result *res)
{
	struct tl_fold_opts o = { .sz = sizeof(o), .store = "/s/results.jsonl",
				  .folded_at = "2025-01-01T00:00:00.000Z" };
	cJSON *id = cJSON_Parse(ID);
	int err;

	o.trace_id = id;
	res->sz = sizeof(*res);
	err = tl_fold(tr, (const cJSON *const *)recs, n, &o, buf_write, out, res);
	cJSON_Delete(id);
	return err;
}

static const cJSON *ev_at(const cJSON *doc, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "traceEvents"), i);
}

static const cJSON *ann(const cJSON *doc, int i)
{
	return cJSON_GetObjectItem(cJSON_GetObjectItem(ev_at(doc, i), "args"), "tlreplay");
}

static const char *sv(const cJSON *v)
{
	return cJSON_IsString(v) ? v->valuestring : "";
}

static double numv(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Events 0..n-1 of @in and @out are equal once args.tlreplay (and an args
 * that only holds it) is taken out of @out's. */
static bool originals_unchanged(const cJSON *in, const cJSON *out, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		cJSON *o = cJSON_Duplicate(ev_at(out, i), true), *args;
		const cJSON *orig = ev_at(in, i);
		bool same;

		args = cJSON_GetObjectItem(o, "args");
		cJSON_DeleteItemFromObjectCaseSensitive(args, "tlreplay");
		if (cJSON_IsObject(args) && !args->child) {
			const cJSON *a = cJSON_GetObjectItem(orig, "args");

			if (!a || cJSON_IsNull(a))
				cJSON_DeleteItemFromObjectCaseSensitive(o, "args");
			if (cJSON_IsNull(a))
				cJSON_AddNullToObject(o, "args");
		}
		same = cJSON_Compare(orig, o, true);
		if (!same)
			diag("event %d differs", i);
		cJSON_Delete(o);
		if (!same)
			return false;
	}
	return true;
}

/* Python's json reads it, and no object has a key twice. */
static int python_check(const char *text)
{
	char path[] = "/tmp/tlreplay-fold.XXXXXX", cmd[512];
	FILE *f;
	int fd, rc;

	if (access("/usr/bin/python3", X_OK))
		return -1;
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 -c 'import json,sys\n"
		 "def hook(p):\n"
		 "    k=[a for a,_ in p]\n"
		 "    assert len(k)==len(set(k)), k\n"
		 "    return dict(p)\n"
		 "json.load(open(sys.argv[1]), object_pairs_hook=hook)' %s", path);
	rc = system(cmd);
	unlink(path);
	return rc == 0 ? 0 : 1;
}

/* The C event on @pid at @ts (raw text match on the ts). */
static const cJSON *counter_at(const cJSON *doc, const char *pid, double ts)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "traceEvents")) {
		const cJSON *p = cJSON_GetObjectItem(e, "pid");
		char pb[64];

		if (strcmp(sv(cJSON_GetObjectItem(e, "ph")), "C"))
			continue;
		if (cJSON_IsString(p))
			snprintf(pb, sizeof(pb), "\"%s\"", p->valuestring);
		else
			snprintf(pb, sizeof(pb), "%d", p ? p->valueint : -1);
		if (!strcmp(pb, pid) && numv(e, "ts") == ts)
			return cJSON_GetObjectItem(e, "args");
	}
	return NULL;
}

/* ------------------------------------------------------------------ tests */

#define T(s) "2025-01-01T00:00:0" #s ".000Z"

static void test_main(void)
{
	struct tl_trace *tr = open_text(trace1), *back = NULL;
	struct tl_fold_result res;
	struct buf out = { 0 };
	cJSON *recs[16], *in = cJSON_Parse(trace1), *doc = NULL;
	const cJSON *a, *reps, *top, *c;
	size_t n = 0, i;
	int err;

	recs[n++] = rec(ID, 1, "aten::addmm", "cpu", "uid", T(1), 10, "");
	recs[n++] = rec(ID, 1, "aten::addmm", "cpu", "uid", T(2), 12, "");
	recs[n++] = rec(ID, 1, "aten::addmm", "cuda:0", "uid", T(3), 4,
			",\"kernels_vs_trace\":\"MATCH\",\"kernels\":[\"gemm\"],\"energy_j_per_call\":0.002");
	recs[n++] = rec(ID, 1, "aten::addmm", "cpu", "stat", T(4), 11,
			",\"counters\":[{\"event\":\"cycles\",\"value\":1000,\"unit\":\"\",\"raw\":1000,"
			"\"enabled_ns\":5,\"running_ns\":5,\"status\":\"counted\",\"per_call\":10,\"variance\":0.5},"
			"{\"event\":\"instructions\",\"value\":null,\"unit\":\"\",\"status\":\"not supported\"},"
			"{\"event\":\"task-clock\",\"value\":0.5,\"unit\":\"msec\",\"status\":\"counted\",\"per_call\":0.005}]");
	recs[n++] = rec(ID, 0, "aten::linear", "cpu", "uid", T(5), 30, "");
	recs[n++] = rec(ID, 6, "aten::relu", "cpu", "uid", T(6), 3, "");
	recs[n++] = rec(ID, 7, "aten::empty", "cpu", "uid", T(6), 1, "");
	recs[n++] = rec(ID, 8, "aten::zeros", "cpu", "uid", T(6), 2, "");
	recs[n++] = rec(OTHER_ID, 1, "aten::addmm", "cpu", "uid", T(7), 77, "");
	recs[n++] = rec(ID, 1, "aten::addmm", "cpu", "uid", T(8), 0, "");
	cJSON_ReplaceItemInObject(recs[n - 1], "status", cJSON_CreateString("failed"));
	recs[n++] = rec(ID, 999, "aten::addmm", "cpu", "uid", T(8), 5, "");
	recs[n++] = rec(ID, 4, "aten::mm", "cpu", "uid", T(8), 5, "");
	recs[n++] = rec(PATH_ONLY_ID, 1, "aten::addmm", "cuda:1", "uid", T(8), 5, "");
	recs[n++] = rec("null", 1, "aten::addmm", "cpu", "replay", T(9), 55, "");
	/* older by its time, though later in the store: loses */
	recs[n++] = rec(ID, 6, "aten::relu", "cpu", "uid", "2024-12-31T23:59:59.000Z", 99, "");

	err = fold(tr, recs, n, &out, &res);
	ok(err == 0 && out.p, "fold writes (%d: %s)", err, err ? tl_last_error() : "");
	doc = out.p ? cJSON_Parse(out.p) : NULL;
	ok(doc != NULL, "the output is JSON (cJSON)");
	ok(python_check(out.p ? out.p : "") <= 0, "Python's json reads it, no duplicate keys");
	ok(res.records == 15 && res.other_traces == 2 && res.this_trace == 13 && res.not_ok == 1 &&
		   res.superseded == 2 && res.mismatched == 2 && res.path_only == 1 && res.used == 8,
	   "counts: 15 records, 2 other traces, 1 failed, 2 superseded, 2 mismatched, 8 used "
	   "(%llu %llu %llu %llu %llu %llu)", (unsigned long long)res.records,
	   (unsigned long long)res.other_traces, (unsigned long long)res.not_ok,
	   (unsigned long long)res.superseded, (unsigned long long)res.mismatched,
	   (unsigned long long)res.used);
	ok(res.ops == 5 && res.kernels == 1 && res.counter_events > 0, "5 ops, 1 kernel, %llu C events",
	   (unsigned long long)res.counter_events);
	ok(doc && originals_unchanged(in, doc, NEV1), "every original event unchanged but for args.tlreplay");
	ok(doc && cJSON_GetArraySize(cJSON_GetObjectItem(doc, "traceEvents")) == NEV1 + (int)res.counter_events,
	   "the counter events are appended after the originals (UIDs unchanged)");
	ok(out.p && strstr(out.p, "\"baseTimeNanoseconds\": 1700000000000000000"),
	   "baseTimeNanoseconds untouched");

	a = doc ? ann(doc, 1) : NULL;
	ok(numv(a, "cpu_median_us") == 12, "op: cpu_median_us from the latest uid record, not stat (12)");
	ok(numv(a, "cuda_median_us") == 4 && numv(a, "cuda1_median_us") == 5,
	   "op: cuda_median_us (cuda:0) and cuda1_median_us (matched by path)");
	ok(numv(a, "trace_gpu_us") == 8 && numv(a, "replay_over_trace") == 0.5,
	   "op: trace_gpu_us 8 and replay_over_trace 0.5");
	ok(numv(a, "cuda_energy_j_per_call") == 0.002, "op: energy per call of the GPU replay");
	reps = cJSON_GetObjectItem(a, "replays");
	ok(cJSON_GetArraySize(reps) == 4, "op: 4 replays (cpu stat, cpu uid, cuda:0, cuda:1)");
	c = cJSON_GetArrayItem(reps, 0);
	ok(!strcmp(sv(cJSON_GetObjectItem(c, "command")), "stat") &&
		   numv(cJSON_GetObjectItem(c, "counters"), "cycles") == 1000 &&
		   !strcmp(sv(cJSON_GetObjectItem(cJSON_GetObjectItem(c, "counters"),
								      "instructions")),
			   "<not supported>") &&
		   numv(cJSON_GetObjectItem(c, "per_call"), "cycles") == 10 &&
		   !strcmp(sv(cJSON_GetObjectItem(cJSON_GetObjectItem(c, "counter_units"),
								      "task-clock")),
			   "msec"),
	   "replays[0]: counters, <not supported> kept, per_call, units");
	c = cJSON_GetArrayItem(reps, 2);
	ok(!strcmp(sv(cJSON_GetObjectItem(c, "kernels_vs_trace")), "MATCH") &&
		   numv(cJSON_GetObjectItem(c, "time_us"), "median") == 4 &&
		   cJSON_GetArraySize(cJSON_GetObjectItem(c, "replay_kernels")) == 1 &&
		   !strcmp(sv(cJSON_GetObjectItem(c, "time")), T(3)),
	   "replays[2]: the GPU replay with its verdict, kernels and time");

	a = doc ? ann(doc, 4) : NULL;
	ok(numv(a, "op_uid") == 1 && !strcmp(sv(cJSON_GetObjectItem(a, "op")),
					     "aten::addmm") &&
		   numv(a, "cuda_median_us") == 4 && numv(a, "replay_over_trace") == 0.5,
	   "kernel: op_uid, op, the op's medians and ratio");
	ok(doc && !ann(doc, 2) && !ann(doc, 3) && !ann(doc, 9), "events without results get nothing");
	ok(numv(ann(doc, 0), "cpu_median_us") == 30 && numv(ann(doc, 0), "trace_gpu_us") == 8,
	   "the parent op has its own result and the trace time of the GPU work below it (its child's kernel, "
	   "which the child annotates)");
	ok(numv(ann(doc, 6), "cpu_median_us") == 3, "an event without args gets one; the latest by time wins");
	ok(numv(ann(doc, 7), "cpu_median_us") == 1, "empty args");
	ok(numv(ann(doc, 8), "cpu_median_us") == 2, "args: null is replaced");

	/* counter tracks on pid 1: linear 30, addmm 12 inside it, back to 30, then 0 */
	ok(numv(counter_at(doc, "1", 100.5), "cpu replay us") == 30 &&
		   numv(counter_at(doc, "1", 110.125), "cpu replay us") == 12 &&
		   numv(counter_at(doc, "1", 130.125), "cpu replay us") == 30 &&
		   numv(counter_at(doc, "1", 150.75), "cpu replay us") == 0,
	   "cpu track: nested ops show the inner value, then the outer again, then 0");
	ok(numv(counter_at(doc, "1", 110.125), "cuda:0 replay us") == 4 &&
		   numv(counter_at(doc, "1", 130.125), "cuda:0 replay us") == 0 &&
		   numv(counter_at(doc, "1", 110.125), "cpu cycles per call") == 10 &&
		   numv(counter_at(doc, "1", 130.125), "cpu cycles per call") == 0,
	   "cuda:0 and per-call counter tracks, one key each");
	ok(numv(counter_at(doc, "\"Spans\"", 230), "cpu replay us") == 2 &&
		   numv(counter_at(doc, "\"Spans\"", 235), "cpu replay us") == 0,
	   "a string pid is kept as the op's");
	ok(out.p && strstr(out.p, "\"ts\":110.125,") && strstr(out.p, "\"ts\":150.75,") &&
		   strstr(out.p, "\"ts\":200,"),
	   "counter ts written in the input's units and precision");

	top = cJSON_GetObjectItem(doc, "tlreplay");
	ok(numv(top, "records_used") == 8 && numv(top, "records_other_traces") == 2 &&
		   numv(top, "ops") == 5 && cJSON_GetArraySize(cJSON_GetObjectItem(top, "devices")) == 3 &&
		   !strcmp(sv(cJSON_GetObjectItem(top, "store")),
			   "/s/results.jsonl") &&
		   !strcmp(sv(cJSON_GetObjectItem(top, "version")), tl_version()) &&
		   !strcmp(sv(cJSON_GetObjectItem(top, "folded_at")),
			   "2025-01-01T00:00:00.000Z") &&
		   cJSON_GetObjectItem(cJSON_GetObjectItem(top, "trace"), "sig"),
	   "top-level tlreplay summary");

	ok(out.p && tl_trace_open_mem(out.p, out.n, "folded", NULL, &back) == 0 &&
		   tl_trace_nevents(back) == NEV1 + res.counter_events,
	   "tlreplay loads the folded trace");

	/* folding the folded trace again: members replaced, tracks not doubled */
	if (back) {
		struct buf out2 = { 0 };
		struct tl_fold_result res2;
		cJSON *doc2;

		err = fold(back, recs, n, &out2, &res2);
		doc2 = out2.p ? cJSON_Parse(out2.p) : NULL;
		ok(err == 0 && doc2 && python_check(out2.p) <= 0 &&
			   cJSON_GetArraySize(cJSON_GetObjectItem(doc2, "traceEvents")) ==
				   cJSON_GetArraySize(cJSON_GetObjectItem(doc, "traceEvents")) &&
			   cJSON_Compare(doc, doc2, true),
		   "folding the folded trace gives the same trace (no duplicate keys, tracks replaced)");
		cJSON_Delete(doc2);
		free(out2.p);
		tl_trace_close(back);
	}

	for (i = 0; i < n; i++)
		cJSON_Delete(recs[i]);
	cJSON_Delete(doc);
	cJSON_Delete(in);
	free(out.p);
	tl_trace_close(tr);
}

static void test_bare_array(void)
{
	static const char bare[] =
		"  [{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\",\"pid\":3,\"tid\":3,\"ts\":5,\"dur\":5},\n"
		"   {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":3,\"tid\":3,\"ts\":20,\"dur\":5,\"args\":{\"a\":[1,{\"b\":\"}\"}]}},\n"
		"   {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::sub\",\"pid\":3,\"tid\":3,\"ts\":30,\"dur\":5}]\n";
	struct tl_trace *tr = open_text(bare), *back = NULL;
	cJSON *recs[3] = { rec(ID, 0, "aten::mul", "cpu", "uid", T(1), 7, ""),
			   rec(ID, 1, "aten::add", "cpu", "uid", T(1), 8, ""),
			   rec(ID, 2, "aten::sub", "cpu", "uid", T(1), 9, "") };
	struct tl_fold_result res;
	struct buf out = { 0 };
	cJSON *doc, *in = cJSON_CreateObject();
	int err;

	err = fold(tr, recs, 3, &out, &res);
	doc = out.p ? cJSON_Parse(out.p) : NULL;
	cJSON_AddItemToObject(in, "traceEvents", cJSON_Parse(bare));
	ok(err == 0 && doc && cJSON_IsArray(cJSON_GetObjectItem(doc, "traceEvents")) &&
		   cJSON_IsObject(cJSON_GetObjectItem(doc, "tlreplay")) && python_check(out.p) <= 0,
	   "a bare array becomes {\"traceEvents\": [...], \"tlreplay\": {...}}");
	ok(doc && originals_unchanged(in, doc, 3) && numv(ann(doc, 0), "cpu_median_us") == 7 &&
		   numv(ann(doc, 1), "cpu_median_us") == 8 && numv(ann(doc, 2), "cpu_median_us") == 9,
	   "its events annotated (the first one without args too), otherwise unchanged");
	ok(out.p && tl_trace_open_mem(out.p, out.n, "folded", NULL, &back) == 0 &&
		   tl_trace_nevents(back) == 3 + res.counter_events,
	   "and tlreplay loads it");
	tl_trace_close(back);
	cJSON_Delete(doc);
	cJSON_Delete(in);
	cJSON_Delete(recs[0]);
	cJSON_Delete(recs[1]);
	cJSON_Delete(recs[2]);
	free(out.p);
	tl_trace_close(tr);
}

static void test_nothing_to_fold(void)
{
	struct tl_trace *tr = open_text(trace1);
	cJSON *recs[2] = { rec(OTHER_ID, 1, "aten::addmm", "cpu", "uid", T(1), 7, ""),
			   rec("null", 1, "aten::addmm", "cpu", "replay", T(1), 8, "") };
	struct tl_fold_result res;
	struct buf out = { 0 };
	int err;

	err = fold(tr, recs, 2, &out, &res);
	ok(err == -ENODATA && out.calls == 0 && res.other_traces == 2 &&
		   strstr(tl_last_error(), "no results for this trace"),
	   "records of other traces only: -ENODATA, nothing written (%s)", tl_last_error());
	cJSON_Delete(recs[0]);
	recs[0] = rec(ID, 1, "aten::addmm", "cpu", "uid", T(1), 7, "");
	cJSON_ReplaceItemInObject(recs[0], "status", cJSON_CreateString("unavailable"));
	err = fold(tr, recs, 1, &out, &res);
	ok(err == -ENODATA && out.calls == 0 && res.not_ok == 1 && strstr(tl_last_error(), "none ok"),
	   "only failed results: -ENODATA (%s)", tl_last_error());
	cJSON_Delete(recs[0]);
	cJSON_Delete(recs[1]);
	tl_trace_close(tr);
}

static void test_write_error(void)
{
	struct tl_trace *tr = open_text(trace1);
	cJSON *r = rec(ID, 1, "aten::addmm", "cpu", "uid", T(1), 7, "");
	struct tl_fold_result res;
	struct buf out = { .fail_after = 2 };
	int err;

	err = fold(tr, &r, 1, &out, &res);
	ok(err == -ENOSPC && strstr(tl_last_error(), "No space"),
	   "a write error stops the fold and is returned (%s)", tl_last_error());
	cJSON_Delete(r);
	free(out.p);
	tl_trace_close(tr);
}

static void test_ts_units(void)
{
	static const char t[] =
		"{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":7,\"tid\":7,"
		"\"ts\":1700000000123456,\"dur\":25,\"args\":{}},\n"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::bmm\",\"pid\":8,\"tid\":8,"
		"\"ts\":198093488368.463,\"dur\":12.345,\"args\":{}}]}";
	struct tl_trace *tr = open_text(t);
	cJSON *r[2] = { rec(ID, 0, "aten::mm", "cpu", "uid", T(1), 7.25, ""),
			rec(ID, 1, "aten::bmm", "cpu", "uid", T(1), 7.25, "") };
	struct tl_fold_result res;
	struct buf out = { 0 };

	ok(fold(tr, r, 2, &out, &res) == 0 && out.p && strstr(out.p, "\"ts\":1700000000123456,") &&
		   strstr(out.p, "\"ts\":1700000000123481,") && !strstr(out.p, "e+15"),
	   "integer microsecond ts stay integers (start and end)");
	ok(out.p && strstr(out.p, "\"ts\":198093488368.463,") && strstr(out.p, "\"ts\":198093488380.808,"),
	   "fractional ts keep their precision (ns), without float noise");
	cJSON_Delete(r[0]);
	cJSON_Delete(r[1]);
	free(out.p);
	tl_trace_close(tr);
}

/* ------------------------------------------------------------ marked copies */

struct gen_state {
	size_t asked;
	int fail_at; /* return -EIO for this index (-1: never) */
};

/* Appended event i: like event 4 (the kernel: pid 0, tid 7), then event 0,
 * its members written into the library's buffer */
static int gen_event(void *ctx, size_t i, struct tl_extra_event *out, char *buf, size_t size)
{
	struct gen_state *g = ctx;

	if (g->asked++ != i || size < 4096)
		return -EPROTO;
	if ((int)i == g->fail_at)
		return -EIO;
	out->like = i ? 0 : 4;
	snprintf(buf, size, "\"ph\":\"i\",\"name\":\"extra_%zu\",\"ts\":%zu", i, 300 + i);
	out->members = buf;
	return 0;
}

static void test_write_marked_gen(void)
{
	struct tl_trace *tr = open_text(trace1), *back = NULL;
	struct tl_mark m = { 1, "critical", "1" };
	struct gen_state g = { 0, -1 };
	struct buf out = { 0 }, old = { 0 };
	struct tl_extra_event arr[2] = { { 4, "\"ph\":\"i\",\"name\":\"extra_0\",\"ts\":300" },
					 { 0, "\"ph\":\"i\",\"name\":\"extra_1\",\"ts\":301" } };
	int err;

	err = tl_trace_write_marked_gen(tr, &m, 1, gen_event, &g, 2, buf_write, &out);
	ok(err == 0 && g.asked == 2 && out.p &&
		   strstr(out.p, "{\"pid\":0,\"tid\":7,\"ph\":\"i\",\"name\":\"extra_0\",\"ts\":300}") &&
		   strstr(out.p, "{\"pid\":1,\"tid\":1,\"ph\":\"i\",\"name\":\"extra_1\",\"ts\":301}"),
	   "write_marked_gen: each event asked once, in order, with the pid and tid of its like");
	ok(out.p && tl_trace_open_mem(out.p, out.n, "marked", NULL, &back) == 0 &&
		   tl_trace_nevents_file(back) == NEV1 + 2,
	   "the copy loads: the trace's %d events and the 2 appended", NEV1);
	tl_trace_close(back);
	err = tl_trace_write_marked(tr, &m, 1, arr, 2, buf_write, &old);
	ok(err == 0 && old.p && out.p && !strcmp(old.p, out.p),
	   "tl_trace_write_marked with the same events as an array: the same bytes");
	free(out.p);
	memset(&out, 0, sizeof(out));
	g = (struct gen_state){ 0, 1 };
	err = tl_trace_write_marked_gen(tr, &m, 1, gen_event, &g, 2, buf_write, &out);
	ok(err == -EIO && g.asked == 2, "a generator's error ends the write and is returned (%d)", err);
	free(out.p);
	memset(&out, 0, sizeof(out));
	err = tl_trace_write_marked_gen(tr, &m, 1, NULL, NULL, 2, buf_write, &out);
	ok(err == -EINVAL && !out.p, "events to append and no generator: -EINVAL, nothing written (%s)",
	   tl_last_error());
	free(out.p);
	free(old.p);
	tl_trace_close(tr);
}

int main(void)
{
	test_main();
	test_bare_array();
	test_nothing_to_fold();
	test_write_error();
	test_ts_units();
	test_write_marked_gen();
	return done_testing();
}
