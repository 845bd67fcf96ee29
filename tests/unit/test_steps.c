/* SPDX-License-Identifier: MIT */
/* tl_steps(), tl_trace_keep_step() and tl_annotations() on small traces:
 * half-open ranges, overlapping steps (the later wins, as in HTA), a step
 * without GPU events, unlinked kernels, one step (no stdev), errors. */
#include <errno.h>
#include <math.h>

#define TRACE_FIXTURE_SINGLE_QUOTES
#include "trace_fixture.h"

#include <tlreplay/annotations.h>
#include <tlreplay/steps.h>

/* a launch call on thread TID and its kernel, linked by correlation */
#define RT(tid, ts, c) \
	"{'ph':'X','cat':'cuda_runtime','name':'cudaLaunchKernel','pid':1,'tid':" #tid ",'ts':" #ts ",'dur':1,'args':{'correlation':" #c "}}"
#define K(ts, dur, c) \
	"{'ph':'X','cat':'kernel','name':'k','pid':0,'tid':7,'ts':" #ts ",'dur':" #dur ",'args':{'correlation':" #c "}}"
#define ANN(name, tid, ts, dur) \
	"{'ph':'X','cat':'user_annotation','name':'" name "','pid':1,'tid':" #tid ",'ts':" #ts ",'dur':" #dur "}"

int main(void)
{
	struct tl_trace *tr;
	struct tl_step_set *set = NULL;
	struct tl_ann_set *as = NULL;
	struct tl_ann_opts ao = { .sz = sizeof(ao) };

	plan(20);

	/* step 1 [0,100), step 2 [100,200), step 3 [150,160) inside step 2,
	 * step 4 [300,310) with nothing launched inside */
	tr = LOAD(ANN("ProfilerStep#1", 1, 0, 100), ANN("ProfilerStep#2", 1, 100, 100),
		  ANN("ProfilerStep # 3", 1, 150, 10), ANN("ProfilerStep#4", 1, 300, 10),
		  RT(1, 10, 1), K(20, 10, 1),		/* step 1 */
		  RT(1, 100, 2), K(120, 10, 2),		/* at step 1's end: step 2 */
		  RT(1, 155, 3), K(170, 5, 3),		/* in 2 and 3: the later, 3 */
		  RT(2, 50, 4), K(30, 10, 4),		/* another thread: still step 1 */
		  K(400, 10, 99),			/* unlinked: no step */
		  ANN("inner", 1, 5, 10), ANN("inner", 2, 45, 20));
	ok(tr != NULL, "fixture loads");
	ok(tl_steps(tr, &set) == 0 && set->n == 4, "4 steps");
	if (set && set->n == 4) {
		ok(set->profiler_steps && set->v[2].number == 3, "\"ProfilerStep # 3\" is step 3 (HTA's regex)");
		ok(set->v[0].ngpu == 2 && set->v[0].us[TL_BD_BUSY] == 20 && set->v[0].gpu_start == 20 &&
			   set->v[0].gpu_end == 40,
		   "step 1: its kernel and the other thread's, busy 20, span 20-40");
		ok(set->v[1].ngpu == 1 && set->v[1].us[TL_BD_BUSY] == 10,
		   "a launch at a step's end belongs to the next step");
		ok(set->v[2].ngpu == 1 && set->v[2].us[TL_BD_TOTAL] == 5,
		   "overlapping steps: the later one takes the launch");
		ok(set->v[3].ngpu == 0 && set->v[3].us[TL_BD_BUSY] == 0 && set->v[3].gpu_end == 0,
		   "a step without GPU events: zeros");
		ok(set->slowest == 0 && set->min_us == 10 && set->max_us == 100 && set->median_us == 55,
		   "slowest step 1; min 10, median 55, max 100");
	} else {
		skip("no steps");
		skip("no steps");
		skip("no steps");
		skip("no steps");
		skip("no steps");
		skip("no steps");
	}
	tl_step_set_free(set);
	set = NULL;

	ok(tl_annotations(tr, &ao, &as) == 0 && as->n == 5, "annotations: 5 names");
	if (as && as->n == 5) {
		size_t i;
		const struct tl_ann_row *in = NULL;

		for (i = 0; i < as->n; i++)
			if (!strcmp(as->v[i].name, "inner"))
				in = &as->v[i];
		ok(in && in->count == 2 && in->cpu_us == 30 && in->nkernels == 2 && in->busy_us == 20 &&
			   in->proj_us == 20,
		   "inner: one kernel per range (its own thread), busy 20, projected 20");
		ok(as->gpu_busy_us == 35, "GPU busy of the linked kernels: 35 (the unlinked one is out)");
	} else {
		skip("no annotations");
		skip("no annotations");
	}
	tl_ann_set_free(as);
	as = NULL;
	ao.name_regex = "(";
	ok(tl_annotations(tr, &ao, &as) == -EINVAL && !as, "bad regex: -EINVAL");
	ao.name_regex = "^nothing$";
	ok(tl_annotations(tr, &ao, &as) == -ENODATA, "no name matches: -ENODATA");

	ok(tl_trace_keep_step(tr, 7) == -ENOENT && strstr(tl_last_error(), "the steps are 1, 2, 3, 4"),
	   "keep step 7: -ENOENT, the steps listed");
	ok(tl_trace_keep_step(tr, 2) == 0, "keep step 2");
	ok(tl_steps(tr, &set) == 0 && set->n == 2 && set->v[0].number == 2 && set->v[0].ngpu == 1 &&
		   set->v[1].number == 3 && set->v[1].ngpu == 0,
	   "then steps 2 and 3 (inside 2) are left: step 2 with its kernel, step 3 with none (its kernel was not step 2's)");
	tl_step_set_free(set);
	set = NULL;
	tl_trace_close(tr);

	/* no annotation: the call tree's one iteration (tests/cli/test_steps_calltree.sh has the rest) */
	tr = LOAD(RT(1, 10, 1), K(20, 10, 1));
	ok(tl_steps(tr, &set) == 0 && set->n == 1 && set->source == TL_STEPS_CALLTREE && set->v[0].ngpu == 1 &&
		   !strcmp(set->found_how, "one"),
	   "no annotation: one iteration found in the call tree");
	tl_step_set_free(set);
	set = NULL;
	tl_trace_close(tr);
	/* nothing launched from a host thread: nothing to find steps by */
	tr = LOAD(ANN("fwd", 1, 0, 50), K(20, 10, 1));
	ok(tl_steps(tr, &set) == -ENODATA && !set, "no steps: -ENODATA");
	ok(tl_trace_keep_step(tr, 0) == -ENODATA, "keep a step of a trace without steps: -ENODATA");
	tl_trace_close(tr);

	/* vLLM annotations when there is no ProfilerStep */
	tr = LOAD(ANN("execute_context_1(5)_generation_0(0)", 1, 0, 50), RT(1, 10, 1), K(20, 10, 1));
	ok(tl_steps(tr, &set) == 0 && set->n == 1 && !set->profiler_steps && set->v[0].number == 0 &&
		   set->v[0].ngpu == 1 && isnan(set->std_us),
	   "a vLLM iteration annotation is step 0; one step has no stdev");
	tl_step_set_free(set);
	tl_trace_close(tr);
	return done_testing();
}
