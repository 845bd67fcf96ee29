/* SPDX-License-Identifier: MIT */
/* Call tree, CPU -> runtime -> GPU links and launchers on small
 * hand-written traces, one rule per test. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/tlreplay.h>

#include "trace_fixture.h"

/* Wrap event objects into a trace and load it. */

#define OP(name, ts, dur) "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur "}"
#define RT(name, ts, dur, corr) "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"correlation\":" #corr "}}"
#define KN(name, ts, dur, corr, stream) "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #stream ",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"correlation\":" #corr ",\"stream\":" #stream ",\"device\":0}}"
#define FS(corr, ts) "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":" #corr ",\"pid\":1,\"tid\":1,\"ts\":" #ts "}"
#define FF(corr, ts, stream) "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\",\"id\":" #corr ",\"pid\":0,\"tid\":" #stream ",\"ts\":" #ts "}"

static void test_basic_link(void)
{
	struct tl_trace *tr = LOAD(OP("aten::mm", 10, 20), RT("cudaLaunchKernel", 12, 5, 7),
				   FS(7, 12), KN("gemm", 40, 8, 7, 7), FF(7, 40, 7));
	uint64_t *g = NULL;

	ok(tr && tl_trace_link(tr, NULL) == 0, "link a minimal trace");
	ok(tl_event_parent(tr, 1) == 0 && tl_event_parent(tr, 3) == 1, "kernel -> runtime -> op");
	ok(tl_event_linked(tr, 3) && tl_event_launcher(tr, 3) == 0, "kernel linked, launcher is the op");
	ok(tl_event_gpu_events(tr, 0, &g) == 1 && g[0] == 3, "GPU events below the op");
	ok(!strcmp(tl_trace_linking_key(tr), "correlation"), "linking key is correlation");
	free(g);
	tl_trace_close(tr);
}

static void test_tie_order(void)
{
	/* equal ts, child listed first: TraceLens keeps file order for ties, so
	 * the longer event comes second and ends after the first: left out */
	struct tl_trace *tr = LOAD(OP("child", 10, 5), OP("parent", 10, 10), OP("later", 21, 1));

	tl_trace_link(tr, NULL);
	ok(tl_event_parent(tr, 0) == -1 && tl_event_parent(tr, 1) == -1 && !tl_event_in_tree(tr, 1),
	   "equal-ts pair in child-first order: the parent is left out, as in TraceLens");
	tl_trace_close(tr);
	tr = LOAD(OP("parent", 10, 10), OP("child", 10, 5));
	tl_trace_link(tr, NULL);
	ok(tl_event_parent(tr, 1) == 0, "equal-ts pair in parent-first order nests");
	tl_trace_close(tr);
}

static void test_partial_overlap(void)
{
	struct tl_trace *tr = LOAD(OP("a", 0, 10), OP("b", 5, 10), OP("c", 10, 2));

	tl_trace_link(tr, NULL);
	ok(!tl_event_in_tree(tr, 1) && tl_event_parent(tr, 1) == -1,
	   "an event ending after its would-be parent is left out");
	ok(tl_event_parent(tr, 2) == -1 && tl_event_in_tree(tr, 2),
	   "containment is end-exclusive (ts == parent end starts a new root)");
	tl_trace_close(tr);
}

static void test_flows(void)
{
	/* f without s; s without f; f on a different stream than the kernel */
	struct tl_trace *tr = LOAD(RT("cudaLaunchKernel", 0, 1, 1), KN("k1", 5, 1, 1, 7), FF(1, 5, 7),
				   RT("cudaLaunchKernel", 2, 1, 2), FS(2, 2), KN("k2", 6, 1, 2, 7),
				   RT("cudaLaunchKernel", 3, 1, 3), FS(3, 3), FF(3, 7, 9),
				   KN("k3", 7, 1, 3, 7));

	tl_trace_link(tr, NULL);
	ok(!tl_event_linked(tr, 1), "flow end without a start: not linked");
	ok(!tl_event_linked(tr, 5), "flow start without an end: not linked");
	ok(!tl_event_linked(tr, 9), "flow end on another stream: the kernel is not found");
	tl_trace_close(tr);
}

static void test_graph_launch(void)
{
	struct tl_trace *tr = LOAD(OP("graph_replay", 0, 50), RT("hipGraphLaunch", 1, 10, 42),
				   KN("g1", 20, 2, 42, 0), KN("g2", 23, 2, 42, 0), KN("g3", 26, 2, 42, 0),
				   KN("other", 30, 1, 43, 0));
	uint64_t *g = NULL;

	tl_trace_link(tr, NULL);
	ok(tl_event_parent(tr, 2) == 1 && tl_event_parent(tr, 3) == 1 && tl_event_parent(tr, 4) == 1,
	   "a graph launch links every GPU event with its correlation, without flows");
	ok(!tl_event_linked(tr, 5), "other correlations stay unlinked");
	ok(tl_event_gpu_events(tr, 0, &g) == 3, "three GPU events below the op");
	free(g);
	tl_trace_close(tr);
}

static void test_launcher_skips(void)
{
	struct tl_trace *tr = LOAD(
		OP("conv_bn_fused", 0, 100), OP("execute", 1, 90),
		"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"x.py(1): f\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":80}",
		RT("cudaLaunchKernel", 3, 5, 9), FS(9, 3), KN("k", 50, 5, 9, 7), FF(9, 50, 7));
	struct tl_link_opts lo = { .sz = sizeof(lo), .with_python = true };

	tl_trace_link(tr, &lo);
	ok(tl_event_parent(tr, 3) == 2 && tl_event_parent(tr, 2) == 1,
	   "with python functions: runtime under python under execute");
	ok(tl_event_launcher(tr, 5) == 0, "launcher skips python functions and 'execute'");
	tl_trace_close(tr);
}

static void test_legacy(void)
{
	/* torch 1.8-era: Operator/Runtime/Kernel, async flows, string tids */
	struct tl_trace *tr = LOAD(
		"{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::conv2d\",\"pid\":5,\"tid\":\"5\",\"ts\":0,\"dur\":20}",
		"{\"ph\":\"X\",\"cat\":\"Runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":5,\"tid\":\"5\",\"ts\":2,\"dur\":3,\"args\":{\"correlation\":77,\"external id\":3}}",
		"{\"ph\":\"s\",\"id\":77,\"pid\":5,\"tid\":5,\"ts\":2,\"cat\":\"async\",\"name\":\"launch\"}",
		"{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"implicit_gemm\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":30,\"dur\":4,\"args\":{\"correlation\":77,\"stream\":7}}",
		"{\"ph\":\"f\",\"id\":77,\"pid\":0,\"tid\":\"stream 7\",\"ts\":30,\"cat\":\"async\",\"name\":\"launch\",\"bp\":\"e\"}");
	struct tl_event_info e;

	tl_trace_link(tr, NULL);
	ok(tl_event_launcher(tr, 3) == 0, "legacy categories and flows link kernel to Operator");
	tl_trace_event(tr, 3, &e);
	ok(!strcmp(e.tid, "stream 7") && e.kind == TL_KIND_KERNEL, "string tid kept, legacy Kernel kind");
	tl_trace_event(tr, 1, &e);
	ok(e.external_id == 3, "legacy lowercase 'external id' read");
	tl_trace_close(tr);
}

static void test_external_id_key(void)
{
	struct tl_trace *tr = LOAD(
		"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,\"args\":{\"External id\":5}}",
		"{\"ph\":\"s\",\"cat\":\"ac2g\",\"id\":5,\"pid\":1,\"tid\":1,\"ts\":0}",
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":3,\"dur\":1,\"args\":{\"External id\":5}}",
		"{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":5,\"pid\":0,\"tid\":7,\"ts\":3}");

	tl_trace_link(tr, NULL);
	ok(!strcmp(tl_trace_linking_key(tr), "External id") && tl_event_linked(tr, 2),
	   "old traces without correlation link by External id");
	tl_trace_close(tr);
}

static void test_fwd_bwd(void)
{
	struct tl_trace *tr = LOAD(
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,\"args\":{\"Sequence number\":3}}",
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":5,\"args\":{\"Sequence number\":3}}",
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"autograd::engine::evaluate_function: AddmmBackward0\",\"pid\":1,\"tid\":2,\"ts\":50,\"dur\":5,\"args\":{\"Sequence number\":3}}");
	uint64_t b[4];

	tl_trace_link(tr, NULL);
	ok(tl_event_fwd(tr, 2) == 1, "backward links to the latest forward op with its sequence number");
	ok(tl_event_bwd(tr, 1, b, 4) == 1 && b[0] == 2, "and the forward op back to it");
	tl_trace_close(tr);
}

static void test_classes_and_breakdown(void)
{
	struct tl_trace *tr = LOAD(
		RT("hipLaunchKernel", 0, 1, 1), FS(1, 0), KN("MEMORY_COPY_HOST_TO_DEVICE", 10, 5, 1, 0), FF(1, 10, 0),
		RT("hipLaunchKernel", 1, 1, 2), FS(2, 1), KN("__amd_rocclr_fillBufferAligned.kd", 20, 5, 2, 0), FF(2, 20, 0),
		RT("hipLaunchKernel", 2, 1, 3), FS(3, 2), KN("ncclDevKernel_Generic", 22, 10, 3, 1), FF(3, 22, 1),
		RT("hipLaunchKernel", 3, 1, 4), FS(4, 3), KN("cross_device_reduce_1stage", 40, 2, 4, 0), FF(4, 40, 0),
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"compute\",\"pid\":1,\"tid\":0,\"ts\":100,\"dur\":10,\"args\":{\"correlation\":5}}",
		RT("cudaLaunchKernel", 4, 1, 5), FS(5, 4), FF(5, 100, 0));
	struct tl_breakdown_opts bo = { .sz = sizeof(bo) };
	struct tl_breakdown_set *set = NULL;
	const struct tl_breakdown *b;
	double sum;

	tl_trace_link(tr, NULL);
	ok(tl_gpu_event_class(tr, 2) == TL_GPU_MEMCPY, "ROCm legacy copy kernel is memcpy");
	ok(tl_gpu_event_class(tr, 6) == TL_GPU_COMPUTE, "rocclr fill kernel is computation");
	ok(tl_gpu_event_class(tr, 10) == TL_GPU_COMM && tl_gpu_event_class(tr, 14) == TL_GPU_COMM,
	   "nccl and cross_device_reduce are communication");
	ok(!tl_event_linked(tr, 16), "kernel on another device pid with no flow end there is unlinked");
	ok(tl_breakdown(tr, &bo, &set) == 0 && set->n == 1, "pooled breakdown");
	b = &set->v[0];
	/* memcpy [10,15], compute [20,25], comm [22,32] u [40,42] */
	ok(b->us[TL_BD_TOTAL] == 32 && b->us[TL_BD_COMPUTATION] == 5 &&
		   b->us[TL_BD_EXPOSED_COMM] == 9 && b->us[TL_BD_EXPOSED_MEMCPY] == 5 &&
		   b->us[TL_BD_BUSY] == 19 && b->us[TL_BD_IDLE] == 13,
	   "rows: total 32, compute 5, exposed comm 9, exposed memcpy 5, busy 19, idle 13");
	sum = b->us[TL_BD_COMPUTATION] + b->us[TL_BD_EXPOSED_COMM] + b->us[TL_BD_EXPOSED_MEMCPY] +
	      b->us[TL_BD_IDLE];
	ok(fabs(sum - b->us[TL_BD_TOTAL]) < 1e-9, "compute + exposed comm + exposed memcpy + idle = total");
	tl_breakdown_free(set);
	bo.group = TL_BD_GROUP_STREAM;
	ok(tl_breakdown(tr, &bo, &set) == 0 && set->n == 2 && !strcmp(set->v[0].stream, "0") &&
		   !strcmp(set->v[1].stream, "1"),
	   "per-stream breakdown: streams 0 and 1");
	tl_breakdown_free(set);
	bo.group = TL_BD_GROUP_DEVICE;
	bo.include_unlinked = true;
	ok(tl_breakdown(tr, &bo, &set) == 0 && set->n == 2 && set->v[1].nevents == 1,
	   "per-device with unlinked events: device 1 has its one kernel");
	tl_breakdown_free(set);
	tl_trace_close(tr);
}

static void test_no_gpu(void)
{
	struct tl_trace *tr = LOAD(OP("aten::add", 0, 1));
	struct tl_breakdown_set *set = NULL;
	int err = tl_breakdown(tr, NULL, &set);

	ok(err == -ENODATA && strstr(tl_last_error(), "no GPU events"), "breakdown without GPU events: %s",
	   tl_last_error());
	tl_trace_close(tr);
}

int main(void)
{
	test_basic_link();
	test_tie_order();
	test_partial_overlap();
	test_flows();
	test_graph_launch();
	test_launcher_skips();
	test_legacy();
	test_external_id_key();
	test_fwd_bwd();
	test_classes_and_breakdown();
	test_no_gpu();
	return done_testing();
}
