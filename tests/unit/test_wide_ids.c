/* SPDX-License-Identifier: MIT */
/* The event table keeps ids in 32-bit slots and args in a packed word
 * (struct tl_ev, 64 bytes); what those cannot say is kept beside the table.
 * Nothing may be lost that way:
 *  - correlation, External id and Sequence number of every width (0, +-1,
 *    the int32 edges and one past them, INT64_MIN + 1, INT64_MAX) read back
 *    exactly through tl_trace_event(), with one load thread and with two;
 *  - launches joined by correlation ids (flow ids) past int32, ids equal in
 *    their low 32 bits included, still link to their kernels;
 *  - an XProf trace's correlation ids past 2^53 (written as strings) link;
 *  - args objects of 16 MiB - 2 (the longest the word holds), 16 MiB - 1
 *    and 17 MiB come back whole, the events after them in place;
 *  - the setters move values in and out of the side store and copy it
 *    across traces (as graph-capture merges do). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/tlreplay.h>

#include "tap.h"
#include "trace/trace_internal.h"

static const int64_t vals[] = {
	0,
	1,
	-1,
	INT32_MAX,
	(int64_t)INT32_MAX + 1,
	INT32_MIN,
	INT32_MIN + 1,
	(int64_t)INT32_MIN - 1,
	INT64_MIN + 1,
	INT64_MAX,
	(int64_t)1 << 32,
	-((int64_t)1 << 40),
};
#define NVALS (sizeof(vals) / sizeof(vals[0]))

/* Launch ids: past int32 either way, the sentinel, and two (2^32 + 5, 5)
 * that a 32-bit slot would mix up. */
static const int64_t launch_ids[] = {
	(int64_t)INT32_MAX + 1, INT32_MIN, INT64_MIN + 1, INT64_MAX, ((int64_t)1 << 32) + 5, 5, -1,
};
#define NLAUNCH (sizeof(launch_ids) / sizeof(launch_ids[0]))

struct buf {
	char *p;
	size_t n, cap;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
		va_end(ap);
		if ((size_t)n < b->cap - b->n)
			break;
		b->cap = b->cap * 2 + (size_t)n + 1;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	b->n += (size_t)n;
}

/* The id events (@reps copies of the value rounds) and the launches. UIDs:
 * 0 the outer op, then per launch j (4 each): runtime, flow s, flow f,
 * kernel; then the id events; then one without args and one with "{}". */
static char *small_trace(int reps, size_t *len)
{
	struct buf b = { malloc(4096), 0, 4096 };
	size_t i, j;
	int r;

	put(&b, "{\"traceEvents\": [\n");
	put(&b, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000}");
	for (j = 0; j < NLAUNCH; j++) {
		long long c = (long long)launch_ids[j];

		put(&b,
		    ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
		    "\"ts\":%zu,\"dur\":2,\"args\":{\"correlation\":%lld,\"External id\":%lld}}",
		    10 + 10 * j, c, c);
		put(&b,
		    ",\n{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%lld,\"pid\":1,\"tid\":1,\"ts\":%zu}",
		    c, 10 + 10 * j);
		put(&b,
		    ",\n{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%lld,\"pid\":0,\"tid\":7,\"ts\":%zu,"
		    "\"bp\":\"e\"}",
		    c, 500 + 10 * j);
		put(&b,
		    ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%zu\",\"pid\":0,\"tid\":7,\"ts\":%zu,\"dur\":5,"
		    "\"args\":{\"correlation\":%lld,\"stream\":7,\"device\":0}}",
		    j, 500 + 10 * j, c);
	}
	for (r = 0; r < reps; r++)
		for (i = 0; i < NVALS; i++)
			put(&b,
			    ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"id%zu\",\"pid\":9,\"tid\":9,\"ts\":%zu,"
			    "\"dur\":0.5,\"args\":{\"correlation\":%lld,\"External id\":%lld,"
			    "\"Sequence number\":%lld,\"i\":%zu}}",
			    i, 2000 + (size_t)r * NVALS + i, (long long)vals[i], (long long)vals[(i + 1) % NVALS],
			    (long long)vals[(i + 2) % NVALS], i);
	put(&b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"noargs\",\"pid\":9,\"tid\":9,\"ts\":1,\"dur\":0.5}");
	put(&b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"empty\",\"pid\":9,\"tid\":9,\"ts\":2,\"dur\":0.5,"
		"\"args\":{}}");
	put(&b, "\n]}\n");
	*len = b.n;
	return b.p;
}

#define ID0 (1 + 4 * NLAUNCH) /* the first id event */

static struct tl_trace *open_buf(const char *buf, size_t len, const char *threads)
{
	struct tl_trace *tr = NULL;

	setenv("TLREPLAY_THREADS", threads, 1);
	if (tl_trace_open_mem(buf, len, "wide.json", NULL, &tr))
		diag("load failed: %s", tl_last_error());
	unsetenv("TLREPLAY_THREADS");
	return tr;
}

/* Every id event of @tr holds its values and args text. */
static bool ids_exact(struct tl_trace *tr, int reps)
{
	size_t k, n = (size_t)reps * NVALS;
	struct tl_event_info e;
	char want[256];

	if (tl_trace_nevents(tr) != ID0 + n + 2)
		return false;
	for (k = 0; k < n; k++) {
		size_t i = k % NVALS;
		int wl;

		if (tl_trace_event(tr, ID0 + k, &e))
			return false;
		wl = snprintf(want, sizeof(want),
			      "{\"correlation\":%lld,\"External id\":%lld,\"Sequence number\":%lld,\"i\":%zu}",
			      (long long)vals[i], (long long)vals[(i + 1) % NVALS], (long long)vals[(i + 2) % NVALS],
			      i);
		if (e.correlation != vals[i] || e.external_id != vals[(i + 1) % NVALS] ||
		    e.seq != vals[(i + 2) % NVALS] || !e.args || e.args_len != (size_t)wl ||
		    memcmp(e.args, want, (size_t)wl) || e.stream != TL_NOID) {
			diag("event %zu: correlation %lld, External id %lld, seq %lld, args %.*s", ID0 + k,
			     (long long)e.correlation, (long long)e.external_id, (long long)e.seq,
			     (int)(e.args_len < 200 ? e.args_len : 200), e.args ? e.args : "");
			return false;
		}
	}
	return true;
}

static void check_ids(const char *buf, size_t len, int reps)
{
	size_t end = ID0 + (size_t)reps * NVALS;
	struct tl_trace *tr = open_buf(buf, len, "1");
	struct tl_event_info e;

	ok(tr != NULL, "a trace of ids of every width loads");
	if (!tr)
		return;
	{
		bool good = true;
		size_t k;

		for (k = 0; k < NVALS && good; k++) {
			size_t i = k;

			good = !tl_trace_event(tr, ID0 + k, &e) && e.correlation == vals[i] &&
			       e.external_id == vals[(i + 1) % NVALS] && e.seq == vals[(i + 2) % NVALS];
		}
		ok(good, "correlation, External id, Sequence number: 0, +-1, int32 edges and one past, "
			 "INT64_MIN + 1, INT64_MAX, 2^32, -2^40 read back exactly");
	}
	ok(!tl_trace_event(tr, end, &e) && e.correlation == TL_NOID && e.external_id == TL_NOID && e.seq == TL_NOID &&
		   !e.args && e.args_len == 0,
	   "an event without args: no ids (TL_NOID), no args");
	ok(!tl_trace_event(tr, end + 1, &e) && e.correlation == TL_NOID && e.external_id == TL_NOID &&
		   e.seq == TL_NOID && e.args && e.args_len == 2 && !memcmp(e.args, "{}", 2),
	   "an event with empty args: no ids, args \"{}\"");
	/* 7 of the values, in 3 fields of each round; 5 of the launch ids, in
	 * the runtime call (2), its flows and its kernel */
	ok(tr->aside.n == 7 * 3 * (size_t)reps + 5 * 5,
	   "only the values past int32 (and INT32_MIN) are kept aside: %zu", tr->aside.n);
	tl_trace_close(tr);
}

/* Every launch's kernel is linked to its runtime call, under "outer". */
static bool launches_link(struct tl_trace *tr, const char *what)
{
	size_t j;
	bool good = true;

	if (tl_trace_link(tr, NULL)) {
		diag("%s: link: %s", what, tl_last_error());
		return false;
	}
	for (j = 0; j < NLAUNCH; j++) {
		uint64_t rt = 1 + 4 * j, s = rt + 1, f = rt + 2, k = rt + 3;
		struct tl_event_info e1, e2;

		if (tl_event_parent(tr, k) != (int64_t)rt || tl_event_launcher(tr, k) != 0 || !tl_event_linked(tr, k) ||
		    tl_trace_event(tr, s, &e1) || e1.correlation != launch_ids[j] || tl_trace_event(tr, f, &e2) ||
		    e2.correlation != launch_ids[j] || tl_trace_event(tr, k, &e1) || e1.correlation != launch_ids[j] ||
		    tl_trace_event(tr, rt, &e2) || e2.correlation != launch_ids[j] || e2.external_id != launch_ids[j]) {
			diag("%s: launch %lld: kernel %llu's parent %lld, launcher %lld", what,
			     (long long)launch_ids[j], (unsigned long long)k, (long long)tl_event_parent(tr, k),
			     (long long)tl_event_launcher(tr, k));
			good = false;
		}
	}
	return good;
}

static void check_launches_and_threads(void)
{
	int reps = 400; /* about 1 MB: the second half parsed by the helper */
	size_t len;
	char *buf = small_trace(reps, &len);
	struct tl_trace *one, *two;

	check_ids(buf, len, reps);
	setenv("TLREPLAY_PARALLEL_MIN", "1", 1);
	one = open_buf(buf, len, "1");
	two = open_buf(buf, len, "2");
	unsetenv("TLREPLAY_PARALLEL_MIN");
	ok(one && ids_exact(one, reps), "one load thread: %d x %zu id events exact", reps, NVALS);
	ok(two && ids_exact(two, reps), "two load threads: the same, the helper's side values merged");
	ok(one && two && one->aside.n == two->aside.n &&
		   !memcmp(one->aside.v, two->aside.v, one->aside.n * sizeof(*one->aside.v)),
	   "both loads keep the same values aside, in key order (%zu)", one ? one->aside.n : 0);
	ok(one && launches_link(one, "one thread"),
	   "launches joined by correlation/flow ids past int32 (and 2^32 + 5 beside 5) link: runtime -> kernel, "
	   "launcher the outer op");
	ok(two && launches_link(two, "two threads"), "the same after a two-thread load");
	tl_trace_close(one);
	tl_trace_close(two);
	free(buf);
}

/* XProf: kinds and links from process/thread names; correlation_id past
 * 2^53 is written as a string. */
static void check_xprof(void)
{
	static const char json[] =
		"{\"traceEvents\":["
		"{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/device:GPU:0\"}},"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"Stream "
		"#1(Compute)\"}},"
		"{\"ph\":\"M\",\"pid\":701,\"name\":\"process_name\",\"args\":{\"name\":\"/host:CPU\"}},"
		"{\"ph\":\"M\",\"pid\":701,\"tid\":5,\"name\":\"thread_name\",\"args\":{\"name\":\"tf_launch\"}},"
		"{\"ph\":\"X\",\"pid\":701,\"tid\":5,\"name\":\"cuLaunchKernel\",\"ts\":10,\"dur\":5,"
		"\"args\":{\"correlation_id\":\"9007199254740993\"}},"
		"{\"ph\":\"X\",\"pid\":701,\"tid\":5,\"name\":\"cuLaunchKernel\",\"ts\":20,\"dur\":5,"
		"\"args\":{\"correlation_id\":\"1\"}},"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"gemm\",\"ts\":30,\"dur\":10,"
		"\"args\":{\"correlation_id\":\"9007199254740993\"}},"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"name\":\"gemm2\",\"ts\":50,\"dur\":10,"
		"\"args\":{\"correlation_id\":1}}"
		"]}";
	struct tl_trace *tr = NULL;
	struct tl_event_info e;
	int err = tl_trace_open_mem(json, sizeof(json) - 1, "xprof.json", NULL, &tr);

	ok(!err && !tl_trace_event(tr, 6, &e) && e.kind == TL_KIND_KERNEL && e.correlation == 9007199254740993LL &&
		   e.external_id == 9007199254740993LL && !tl_trace_event(tr, 4, &e) && e.kind == TL_KIND_RUNTIME &&
		   e.correlation == 9007199254740993LL,
	   "XProf: correlation_id 2^53 + 1 (a string) is the kernel's and the launch's correlation and External id");
	ok(!err && !tl_trace_link(tr, NULL) && tl_event_parent(tr, 6) == 4 && tl_event_parent(tr, 7) == 5,
	   "XProf: each kernel links to its launch, the one past int32 too");
	tl_trace_close(tr);
}

/* args objects of @n bytes: {"correlation":3000000000,"pad":"aaa..."} */
static void big_args(struct buf *b, size_t n, int i)
{
	static const char pre[] = "{\"correlation\":3000000000,\"pad\":\"";
	size_t pad = n - (sizeof(pre) - 1) - 2;

	put(b, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"big%d\",\"pid\":9,\"tid\":9,\"ts\":%d,\"dur\":1,\"args\":%s",
	    i, 10 * i, pre);
	if (b->n + pad + 64 > b->cap) {
		b->cap = b->n + pad + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memset(b->p + b->n, 'a', pad);
	b->n += pad;
	put(b, "\"}}");
	put(b,
	    ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"after%d\",\"pid\":9,\"tid\":9,\"ts\":%d,\"dur\":1,"
	    "\"args\":{\"External id\":%d}}",
	    i, 10 * i + 5, i);
}

static void check_big_args(void)
{
	static const size_t lens[] = { (16u << 20) - 2, (16u << 20) - 1, 16u << 20, 17u << 20 };
	struct buf b = { malloc(4096), 0, 4096 };
	struct tl_trace *tr = NULL;
	size_t i;
	int err;

	put(&b, "{\"traceEvents\": [\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"first\",\"pid\":9,\"tid\":9,\"ts\":0,"
		"\"dur\":1,\"args\":{\"a\":1}}");
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		big_args(&b, lens[i], (int)i);
	put(&b, "\n]}\n");
	err = tl_trace_open_mem(b.p, b.n, "big.json", NULL, &tr);
	ok(!err, "a trace with args of 16 MiB - 2 to 17 MiB loads%s%s", err ? ": " : "", err ? tl_last_error() : "");
	for (i = 0; !err && i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct tl_event_info e, a;
		char gap[256];
		int ng = snprintf(gap, sizeof(gap),
				  "},\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"after%d\",\"pid\":9,\"tid\":9,"
				  "\"ts\":%d,\"dur\":1,\"args\":",
				  (int)i, 10 * (int)i + 5);
		bool whole;

		tl_trace_event(tr, 1 + 2 * i, &e);
		whole = e.args && e.args_len == lens[i] &&
			!memcmp(e.args, "{\"correlation\":3000000000,\"pad\":\"aaa", 36) &&
			e.args[lens[i] - 3] == 'a' && !memcmp(e.args + lens[i] - 2, "\"}", 2) &&
			e.correlation == 3000000000LL;
		ok(whole, "args of %zu bytes (%s) come back whole, correlation 3000000000", lens[i],
		   lens[i] < (16u << 20) - 1 ? "held by the packed word" : "kept aside");
		ok(!tl_trace_event(tr, 2 + 2 * i, &a) && a.external_id == (int64_t)i && a.args &&
			   !memcmp(a.args, "{\"External id\":", 15) && a.args == e.args + e.args_len + ng &&
			   !memcmp(e.args + e.args_len, gap, (size_t)ng),
		   "the event after it keeps its args, where they are");
	}
	tl_trace_close(tr);
	free(b.p);
}

/* The setters, on a loaded trace: in and out of the side store. */
static void check_setters(void)
{
	static const char json[] =
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,"
		"\"args\":{\"correlation\":5000000000}},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,"
		"\"args\":{\"correlation\":7,\"Sequence number\":-6000000000}},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1}"
		"]}";
	struct tl_trace *tr = NULL, *dst = NULL;
	struct tl_ev *e;
	bool good;

	ok(sizeof(struct tl_ev) == 64, "struct tl_ev is 64 bytes");
	if (tl_trace_open_mem(json, sizeof(json) - 1, "set.json", NULL, &tr) ||
	    tl_trace_open_mem(json, sizeof(json) - 1, "dst.json", NULL, &dst)) {
		ok(0, "load the setters' traces: %s", tl_last_error());
		tl_trace_close(tr);
		return;
	}
	ok(tr->aside.n == 2 && tl_ev_corr(tr, &tr->ev[0]) == 5000000000LL &&
		   tl_ev_seq(tr, &tr->ev[1]) == -6000000000LL && tl_ev_corr(tr, &tr->ev[1]) == 7,
	   "two values kept aside after the load");
	e = &tr->ev[1];
	/* out of order: event 1 then 0's extid, between the loader's entries */
	good = !tl_ev_set_corr(tr, e, INT64_MIN) && !tl_ev_set_extid(tr, &tr->ev[0], -3000000000LL) &&
	       tl_ev_corr(tr, e) == INT64_MIN && tl_ev_extid(tr, &tr->ev[0]) == -3000000000LL &&
	       tl_ev_corr(tr, &tr->ev[0]) == 5000000000LL && tl_ev_seq(tr, e) == -6000000000LL && tr->aside.n == 4;
	good = good && !tl_ev_set_corr(tr, e, 9) && tl_ev_corr(tr, e) == 9 && tr->aside.n == 3 &&
	       !tl_ev_set_seq(tr, e, INT32_MIN) && tl_ev_seq(tr, e) == INT32_MIN && tr->aside.n == 3;
	ok(good, "set aside, out of key order, back inline (its entry dropped), INT32_MIN itself aside");
	good = !tl_ev_set_args(tr, &tr->ev[2], TL_ARGS_EXTRA | 5, 3) &&
	       tl_ev_args_off(tr, &tr->ev[2]) == (TL_ARGS_EXTRA | 5) && tl_ev_args_len(tr, &tr->ev[2]) == 3 &&
	       tr->aside.n == 3 && !tl_ev_set_args(tr, &tr->ev[2], TL_EV_ARGS_OFF_MAX + 1, 40u << 20) &&
	       tl_ev_args_off(tr, &tr->ev[2]) == TL_EV_ARGS_OFF_MAX + 1 &&
	       tl_ev_args_len(tr, &tr->ev[2]) == 40u << 20 && tr->aside.n == 5 &&
	       !tl_ev_set_args(tr, &tr->ev[2], TL_NOARGS, 0) && tl_ev_args_off(tr, &tr->ev[2]) == TL_NOARGS &&
	       tl_ev_args_len(tr, &tr->ev[2]) == 0 && tr->aside.n == 3;
	ok(good, "args: in extra inline; past 512 GiB and 40 MiB aside; none again (entries dropped)");
	good = !tl_ev_copy(dst, &dst->ev[2], tr, &tr->ev[0]) && tl_ev_corr(dst, &dst->ev[2]) == 5000000000LL &&
	       tl_ev_extid(dst, &dst->ev[2]) == -3000000000LL && dst->ev[2].name == tr->ev[0].name &&
	       tl_ev_args_len(dst, &dst->ev[2]) == tl_ev_args_len(tr, &tr->ev[0]) &&
	       !tl_ev_copy(dst, &dst->ev[0], tr, &tr->ev[1]) && tl_ev_corr(dst, &dst->ev[0]) == 9 &&
	       tl_ev_seq(dst, &dst->ev[0]) == INT32_MIN && tl_ev_extid(dst, &dst->ev[0]) == 0 &&
	       tl_ev_corr(dst, &dst->ev[2]) == 5000000000LL && dst->aside.n == 4;
	ok(good, "copies across traces carry what is kept aside, and drop what the old event kept (%zu)", dst->aside.n);
	tl_trace_close(tr);
	tl_trace_close(dst);
}

int main(void)
{
	check_setters();
	check_launches_and_threads();
	check_xprof();
	check_big_args();
	return done_testing();
}
