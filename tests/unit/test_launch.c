/* SPDX-License-Identifier: MIT */
/* tl_launch_stats() on small traces: one launch (the percentiles of a single
 * value, no gap), a graph launch with two kernels, clock skew (negative
 * latency, delay clipped), streams that queue apart, the op of a call with
 * no cpu_op, options and errors. */
#include <errno.h>
#include <math.h>

#define TRACE_FIXTURE_SINGLE_QUOTES
#include "trace_fixture.h"

#define RT(name, ts, dur, c) \
	"{'ph':'X','cat':'cuda_runtime','name':'" name "','pid':1,'tid':1,'ts':" #ts ",'dur':" #dur ",'args':{'correlation':" #c "}}"
#define K(name, tid, ts, dur, c) \
	"{'ph':'X','cat':'kernel','name':'" name "','pid':0,'tid':" #tid ",'ts':" #ts ",'dur':" #dur ",'args':{'correlation':" #c "}}"
#define OP(name, ts, dur) \
	"{'ph':'X','cat':'cpu_op','name':'" name "','pid':1,'tid':1,'ts':" #ts ",'dur':" #dur ",'args':{}}"

static struct tl_launch_set *run(struct tl_trace *tr, const struct tl_launch_opts *o)
{
	struct tl_launch_set *s = NULL;

	if (tl_launch_stats(tr, o, &s))
		diag("tl_launch_stats: %s", tl_last_error());
	return s;
}

int main(void)
{
	struct tl_trace *tr;
	struct tl_launch_set *s;
	struct tl_launch_opts o = { .sz = sizeof(o) };
	int err;

	/* one launch, opts NULL: every percentile is the value; no gap, not bound */
	tr = LOAD(OP("aten::mul", 0, 20), RT("cudaLaunchKernel", 2, 3, 1), K("k", 7, 10, 4, 1));
	s = run(tr, NULL);
	ok(s && s->n == 1 && s->all.delay.p50 == 5 && s->all.delay.p99 == 5 && s->all.delay.max == 5 &&
		   s->all.latency.mean == 8 && s->all.queue.p90 == 8 && s->nop == 1 &&
		   !strcmp(s->op[0].name, "aten::mul") && s->l[0].op_uid == 0 && s->l[0].call_uid == 1,
	   "one launch: delay 5, latency and queue 8, every percentile the value; op aten::mul");
	ok(s && s->nstream == 1 && s->stream[0].idle_us == 0 && !s->stream[0].launch_bound &&
		   s->stream[0].cadence_p50_us == 0 && s->launch_bound_us == TL_LAUNCH_BOUND_US &&
		   s->runtime_cutoff_us == TL_LAUNCH_RUNTIME_CUTOFF_US &&
		   s->delay_cutoff_us == TL_LAUNCH_DELAY_CUTOFF_US,
	   "one launch: no idle, not launch-bound; opts NULL: the default thresholds");
	tl_launch_set_free(s);
	tl_trace_close(tr);

	/* a graph launch: one call, two kernels on one stream; the second queues
	 * behind the first. A call with no cpu_op is its own op. */
	tr = LOAD(RT("cudaGraphLaunch", 0, 10, 1), K("g1", 7, 20, 5, 1), K("g2", 7, 30, 5, 1));
	s = run(tr, NULL);
	ok(s && s->n == 2 && s->l[0].call_uid == 0 && s->l[1].call_uid == 0 && s->l[1].queue_us == 5 &&
		   s->l[0].queue_us == 20 && s->l[1].delay_us == 20 && s->nop == 1 &&
		   !strcmp(s->op[0].name, "cudaGraphLaunch") && s->op[0].n == 2 && s->nkernel == 2,
	   "graph launch: both kernels from one call, the second queued 5 us after the first; op = the call");
	tl_launch_set_free(s);
	tl_trace_close(tr);

	/* clock skew: the kernel starts before its call: latency < 0, delay 0 */
	tr = LOAD(RT("cudaLaunchKernel", 100, 10, 1), K("k", 7, 95, 2, 1));
	s = run(tr, NULL);
	ok(s && s->l[0].latency_us == -5 && s->l[0].delay_us == 0 && s->l[0].queue_us == -5,
	   "kernel before its call: latency -5, delay clipped to 0");
	tl_launch_set_free(s);
	tl_trace_close(tr);

	/* two streams: each queues after its own previous event only; the device
	 * gap 12-20 is bound (both short, call 15 after the end 12) */
	tr = LOAD(RT("cudaLaunchKernel", 0, 1, 1), RT("cudaLaunchKernel", 2, 1, 2),
		  RT("cudaLaunchKernel", 15, 1, 3), K("a", 7, 5, 5, 1), K("b", 8, 6, 6, 2),
		  K("c", 7, 20, 2, 3));
	s = run(tr, NULL);
	ok(s && s->nstream == 2 && s->ndev == 1 && s->l[1].queue_us == 4 && s->l[2].queue_us == 5 &&
		   s->dev[0].idle_us == 8 && s->dev[0].n_bound_gaps == 1 && s->dev[0].launch_bound &&
		   s->stream[0].idle_us == 10 && s->stream[0].n_bound_gaps == 1 &&
		   !strcmp(s->stream[0].stream, "7") && s->l[2].stream == 0 && s->l[1].stream == 1,
	   "two streams: queue per stream; the device's 8 us gap and stream 7's 10 us are bound");
	o.launch_bound_us = 2;
	tl_launch_set_free(s);
	s = run(tr, &o);
	ok(s && s->dev[0].n_short == 0 && s->dev[0].n_bound_gaps == 0 && !s->dev[0].launch_bound,
	   "--launch-bound-thresh-us 2: no event is short, no bound gap");
	tl_launch_set_free(s);
	o.launch_bound_us = NAN;
	s = NULL;
	err = tl_launch_stats(tr, &o, &s);
	ok(err == -EINVAL && !s, "a NaN threshold: -EINVAL");
	o.launch_bound_us = 0;
	o.delay_cutoff_us = -1;
	err = tl_launch_stats(tr, &o, &s);
	ok(err == -EINVAL && !s, "a negative cutoff: -EINVAL");
	tl_trace_close(tr);

	/* no launch */
	tr = LOAD(OP("aten::mul", 0, 20), K("k", 7, 10, 4, 9));
	err = tl_launch_stats(tr, NULL, &s);
	ok(err == -ENODATA && !s && strstr(tl_last_error(), "none of the 1 GPU events"),
	   "an unlinked kernel only: -ENODATA, said");
	tl_trace_close(tr);
	tr = LOAD(OP("aten::mul", 0, 20));
	err = tl_launch_stats(tr, NULL, &s);
	ok(err == -ENODATA && strstr(tl_last_error(), "no GPU events"), "no GPU event: -ENODATA, said");
	tl_trace_close(tr);
	tl_launch_set_free(NULL);
	ok(1, "tl_launch_set_free(NULL)");
	return done_testing();
}
