/* SPDX-License-Identifier: MIT */
/* tl_idle_breakdown() on small traces: the edges of the gap sweep (touching,
 * nested and simultaneous events), the launch that decides host wait, sync
 * names, thresholds, options and errors. */
#include <errno.h>
#include <math.h>

#define TRACE_FIXTURE_SINGLE_QUOTES
#include "trace_fixture.h"

/* a launch call and its kernel, linked by correlation (no flow events) */
#define RT(ts, dur, c) \
	"{'ph':'X','cat':'cuda_runtime','name':'cudaLaunchKernel','pid':1,'tid':1,'ts':" #ts ",'dur':" #dur ",'args':{'correlation':" #c "}}"
#define K(pid, tid, ts, dur, c) \
	"{'ph':'X','cat':'kernel','name':'k','pid':" #pid ",'tid':" #tid ",'ts':" #ts ",'dur':" #dur ",'args':{'correlation':" #c "}}"
#define CALL(name, ts, dur) \
	"{'ph':'X','cat':'cuda_runtime','name':'" name "','pid':1,'tid':1,'ts':" #ts ",'dur':" #dur ",'args':{}}"

static double cat_us(const struct tl_idle_row *r, int c)
{
	double s = 0;
	int k;

	for (k = 0; k < TL_IDLE_NCAUSES; k++)
		s += r->us[c][k];
	return s;
}

static struct tl_idle_set *run(struct tl_trace *tr, const struct tl_idle_opts *o)
{
	struct tl_idle_set *set = NULL;

	if (tl_idle_breakdown(tr, o, &set))
		diag("tl_idle_breakdown: %s", tl_last_error());
	return set;
}

int main(void)
{
	struct tl_trace *tr;
	struct tl_idle_set *set;
	struct tl_idle_opts o = { .sz = sizeof(o) };

	ok(!strcmp(tl_idle_cat_name(TL_IDLE_KERNEL_WAIT), "kernel_wait") &&
		   !strcmp(tl_idle_cause_name(TL_IDLE_MICRO), "micro_idle") &&
		   !strcmp(tl_idle_cat_name(TL_IDLE_NCATS), "?"),
	   "category and cause names");

	/* one kernel: no gap, and the default options with opts NULL */
	tr = LOAD(RT(0, 1, 1), K(0, 7, 10, 5, 1));
	set = run(tr, NULL);
	ok(set && set->ndev == 1 && set->nstream == 1 && set->dev[0].ngaps == 0 &&
		   set->dev[0].idle_us == 0 && set->dev[0].span_us == 5 && !set->dev[0].gaps &&
		   set->kernel_wait_us == TL_IDLE_KERNEL_WAIT_US && set->micro_idle_us == 0,
	   "one kernel: no gap; opts NULL means HTA's 30 us and no micro idle");
	tl_idle_set_free(set);
	tl_trace_close(tr);

	/* touching (10-20, 20-30), nested (40-60 holds 45-50) on two streams:
	 * the device has one gap (30-40), stream 7 two, stream 8 none */
	tr = LOAD(RT(0, 1, 1), K(0, 7, 10, 10, 1), RT(1, 1, 2), K(0, 7, 20, 10, 2), RT(2, 1, 3),
		  K(0, 8, 40, 20, 3), RT(3, 1, 4), K(0, 7, 45, 5, 4));
	o.keep_gaps = true;
	set = run(tr, &o);
	ok(set && set->dev[0].ngaps == 1 && set->dev[0].gaps[0].start == 30 &&
		   set->dev[0].gaps[0].end == 40 && set->dev[0].idle_us == 10 && set->dev[0].busy_us == 40,
	   "touching events leave no gap, a nested one adds nothing (as breakdown's union)");
	ok(set && set->nstream == 2 && !strcmp(set->stream[0].stream, "7") && set->stream[0].ngaps == 1 &&
		   set->stream[0].gaps[0].start == 30 && set->stream[0].gaps[0].end == 45 &&
		   set->stream[1].ngaps == 0,
	   "per stream: stream 7's own gap runs to its next kernel (30-45)");
	ok(set && set->dev[0].gaps[0].cat == TL_IDLE_KERNEL_WAIT && set->dev[0].gaps[0].next_uid == 5 &&
		   set->dev[0].gaps[0].cause == TL_IDLE_CAUSE_NONE && set->dev[0].gaps[0].cause_uid == -1,
	   "launched before the gap and short: kernel wait; next_uid is the kernel after it");
	tl_idle_set_free(set);
	o.keep_gaps = false;

	/* a negative threshold: no gap is kernel wait */
	o.kernel_wait_us = -1;
	set = run(tr, &o);
	ok(set && set->dev[0].n[TL_IDLE_OTHER][0] == 1 && set->dev[0].n[TL_IDLE_KERNEL_WAIT][0] == 0 &&
		   !set->dev[0].gaps,
	   "kernel_wait_us < 0: the queued gap is other; no gaps kept unless asked");
	tl_idle_set_free(set);
	o.kernel_wait_us = 0;
	tl_trace_close(tr);

	/* two kernels start together after a 30 us gap (20-50): the first in
	 * the file was launched during the gap (30), the other before it (15) */
	tr = LOAD(RT(0, 1, 1), K(0, 7, 10, 10, 1), RT(30, 1, 3), K(0, 8, 50, 5, 3), RT(15, 1, 2),
		  K(0, 7, 50, 5, 2));
	o.keep_gaps = true;
	set = run(tr, &o);
	ok(set && set->dev[0].ngaps == 1 && set->dev[0].gaps[0].cat == TL_IDLE_OTHER &&
		   set->dev[0].gaps[0].next_uid == 5,
	   "simultaneous next events: the one launched first decides (queued, 30 us is not < 30: other)");
	ok(set && set->nstream == 2 && set->stream[0].ngaps == 1 && set->stream[0].gaps[0].cat == TL_IDLE_OTHER &&
		   set->stream[1].ngaps == 0,
	   "per stream: stream 7's gap is other, stream 8 has none");
	tl_idle_set_free(set);
	o.keep_gaps = false;
	tl_trace_close(tr);

	/* host wait and the sync names: a suffixed sync counts, a longer name not */
	tr = LOAD(RT(0, 1, 1), K(0, 7, 10, 10, 1), CALL("cudaStreamSynchronize_ptsz", 5, 20),
		  RT(40, 1, 2), K(0, 7, 50, 5, 2), CALL("cudaDeviceSynchronizeFoo", 54, 10),
		  RT(70, 1, 3), K(0, 7, 80, 5, 3), RT(87, 1, 4), K(0, 7, 90, 5, 4));
	o.keep_gaps = true;
	o.micro_idle_us = 6;
	set = run(tr, &o);
	ok(set && set->nsync == 1 && set->dev[0].ngaps == 3 && set->dev[0].gaps[0].cat == TL_IDLE_HOST_WAIT &&
		   set->dev[0].gaps[0].cause == TL_IDLE_SYNC_DRAIN && set->dev[0].gaps[0].cause_uid == 2,
	   "a host wait begun in cudaStreamSynchronize_ptsz is a sync drain (cause_uid the call)");
	ok(set && set->dev[0].gaps[1].cat == TL_IDLE_HOST_WAIT && set->dev[0].gaps[1].cause == TL_IDLE_CAUSE_NONE,
	   "cudaDeviceSynchronizeFoo is no sync; 25 us host wait, above the micro threshold");
	ok(set && set->dev[0].gaps[2].cat == TL_IDLE_HOST_WAIT && set->dev[0].gaps[2].cause == TL_IDLE_MICRO &&
		   set->dev[0].us[TL_IDLE_HOST_WAIT][TL_IDLE_MICRO] == 5,
	   "a 5 us host wait under micro_idle_us 6 is micro idle");
	ok(set && set->dev[0].idle_us == 30 + 25 + 5 && cat_us(&set->dev[0], TL_IDLE_HOST_WAIT) == 60,
	   "the gaps add up to the idle time");
	tl_idle_set_free(set);

	/* filters and errors */
	o.device = "3";
	ok(tl_idle_breakdown(tr, &o, &set) == -ENOENT && !set && strstr(tl_last_error(), "devices: 0"),
	   "an unknown device: -ENOENT naming the devices");
	o.device = "0";
	o.stream = "9";
	ok(tl_idle_breakdown(tr, &o, &set) == -ENOENT && strstr(tl_last_error(), "streams: 7"),
	   "an unknown stream: -ENOENT naming the streams");
	o.stream = "7";
	set = run(tr, &o);
	ok(set && set->ndev == 0 && set->nstream == 1, "a stream: its row only, no device row");
	tl_idle_set_free(set);
	o.device = o.stream = NULL;
	o.micro_idle_us = NAN;
	ok(tl_idle_breakdown(tr, &o, &set) == -EINVAL, "a NaN threshold: -EINVAL");
	o.micro_idle_us = -1;
	ok(tl_idle_breakdown(tr, &o, &set) == -EINVAL, "a negative micro threshold: -EINVAL");
	o.micro_idle_us = 0;
	{
		struct tl_idle_opts small = { .sz = sizeof(size_t) };

		set = run(tr, &small);
		ok(set && set->kernel_wait_us == 30 && set->dev[0].ngaps == 3,
		   "an opts struct of an older size: the rest is defaults");
		tl_idle_set_free(set);
	}
	tl_trace_close(tr);

	/* opts.hta: overlapping events on a stream give HTA a negative gap,
	 * which counts (kernel wait); no device rows */
	tr = LOAD(RT(0, 1, 1), K(0, 7, 10, 20, 1), RT(1, 1, 2), K(0, 7, 20, 5, 2), RT(2, 1, 3),
		  K(0, 7, 40, 10, 3));
	o.hta = true;
	set = run(tr, &o);
	ok(set && set->ndev == 0 && set->nstream == 1 && set->stream[0].ngaps == 2 &&
		   set->stream[0].us[TL_IDLE_KERNEL_WAIT][0] == -10 + 15 && set->stream[0].idle_us == 5 &&
		   isinf(set->hta_before_us) && !set->hta_rounded,
	   "hta: gaps from the previous event in start order (-10, then 15), per stream only");
	tl_idle_set_free(set);
	o.hta = false;
	set = run(tr, &o);
	ok(set && set->ndev == 1 && set->stream[0].ngaps == 1 && set->stream[0].idle_us == 10,
	   "without hta: the gap of the union (30-40)");
	tl_idle_set_free(set);
	tl_trace_close(tr);

	/* devices sort numerically */
	tr = LOAD(RT(0, 1, 1), K(10, 7, 10, 10, 1), RT(1, 1, 2), K(2, 7, 20, 10, 2));
	set = run(tr, NULL);
	ok(set && set->ndev == 2 && !strcmp(set->dev[0].device, "2") && !strcmp(set->dev[1].device, "10"),
	   "devices in numeric order");
	tl_idle_set_free(set);
	tl_trace_close(tr);

	tr = LOAD(CALL("cudaMalloc", 0, 1));
	ok(tl_idle_breakdown(tr, NULL, &set) == -ENODATA && !set, "no GPU events: -ENODATA");
	tl_trace_close(tr);
	tl_idle_set_free(NULL);
	return done_testing();
}
