/* SPDX-License-Identifier: MIT */
/* The merged call tree's matcher on small traces: roots paired by position,
 * names compared without hex addresses, cuLaunchKernel == hipModuleLaunchKernel,
 * edit-distance alignment leaving a variant-only op, GPU time sums, UID
 * lookup, and a side without CPU ops. */
#include <errno.h>

#define TRACE_FIXTURE_SINGLE_QUOTES
#include "trace_fixture.h"

#define OP(name, ts, dur) "{'ph':'X','cat':'cpu_op','name':'" name "','pid':1,'tid':1,'ts':" #ts ",'dur':" #dur "}"
#define RT(name, ts, c)                                                                             \
	"{'ph':'X','cat':'cuda_runtime','name':'" name "','pid':1,'tid':1,'ts':" #ts                 \
	",'dur':1,'args':{'correlation':" #c "}}",                                                    \
		"{'ph':'s','id':" #c ",'pid':1,'tid':1,'ts':" #ts ",'cat':'ac2g','name':'ac2g'}"
#define KN(name, ts, dur, c)                                                                        \
	"{'ph':'X','cat':'kernel','name':'" name "','pid':0,'tid':7,'ts':" #ts ",'dur':" #dur         \
	",'args':{'correlation':" #c ",'stream':7,'device':0}}",                                      \
		"{'ph':'f','id':" #c ",'pid':0,'tid':7,'ts':" #ts ",'cat':'ac2g','name':'ac2g','bp':'e'}"

static void node(const struct tl_trace_diff *d, uint32_t id, struct tl_diff_node *n)
{
	if (tl_trace_diff_node(d, id, n))
		memset(n, 0, sizeof(*n));
}

int main(void)
{
	/* base: step > [A 0x1f > cuLaunchKernel > k1 (5 us), B > cudaLaunchKernel > kb (3 us)]; tail */
	struct tl_trace *b = LOAD(OP("step", 0, 100), OP("A 0x1f", 10, 10), RT("cuLaunchKernel", 12, 1),
				  KN("k1", 200, 5, 1), OP("B", 30, 10), RT("cudaLaunchKernel", 32, 2),
				  KN("kb", 210, 3, 2), OP("tail", 500, 10));
	/* variant: step > [X > cudaLaunchKernel > kx (1 us), A 0xbeef > hipModuleLaunchKernel > k2 (7 us),
	 * B > cudaLaunchKernel > kb (4 us)] */
	struct tl_trace *v = LOAD(OP("step", 0, 100), OP("X", 5, 4), RT("cudaLaunchKernel", 6, 3),
				  KN("kx", 190, 1, 3), OP("A 0xbeef", 10, 10), RT("hipModuleLaunchKernel", 12, 1),
				  KN("k2", 200, 7, 1), OP("B", 30, 10), RT("cudaLaunchKernel", 32, 2),
				  KN("kb", 210, 4, 2));
	struct tl_trace *none = LOAD("{'ph':'X','cat':'kernel','name':'k','pid':0,'tid':7,'ts':1,'dur':1}");
	struct tl_trace_diff *d = NULL;
	struct tl_diff_node n;
	int err;

	plan(22);
	err = tl_trace_diff_build(b, v, NULL, &d);
	ok(err == 0 && d, "build");
	if (!d)
		return done_testing();
	ok(tl_trace_diff_nroots(d) == 2, "roots paired by position: 2 and 1 give 2");
	node(d, tl_trace_diff_root(d, 1), &n);
	ok(n.side == TL_DIFF_BASE_ONLY && n.uid[0] == 11 && n.uid[1] == -1 && !strcmp(n.name[0], "tail"),
	   "the second base root is base-only (tail, UID 11)");
	node(d, tl_trace_diff_root(d, 0), &n);
	ok(n.side == TL_DIFF_BOTH && n.gpu_us[0] == 8 && n.gpu_us[1] == 12, "step: GPU us 5+3 and 1+7+4");
	ok(n.nchildren == 3, "step has 3 merged children");
	if (n.nchildren == 3) {
		const uint32_t *c = n.children;
		struct tl_diff_node x;

		node(d, c[0], &x);
		ok(x.side == TL_DIFF_VARIANT_ONLY && !strcmp(x.name[1], "X") && x.gpu_us[1] == 1,
		   "X is variant-only, listed first (edit-distance order)");
		node(d, c[1], &x);
		ok(x.side == TL_DIFF_BOTH && !strcmp(x.name[0], "A 0x1f") && !strcmp(x.name[1], "A 0xbeef"),
		   "A 0x1f pairs with A 0xbeef (hex addresses ignored)");
		ok(x.nchildren == 1, "A has one merged child");
		if (x.nchildren == 1) {
			struct tl_diff_node l, k;

			node(d, x.children[0], &l);
			ok(l.side == TL_DIFF_BOTH && !strcmp(l.name[0], "cuLaunchKernel") &&
				   !strcmp(l.name[1], "hipModuleLaunchKernel"),
			   "cuLaunchKernel pairs with hipModuleLaunchKernel");
			node(d, l.nchildren ? l.children[0] : 0, &k);
			ok(l.nchildren == 1 && k.side == TL_DIFF_BOTH && !strcmp(k.name[0], "k1") &&
				   !strcmp(k.name[1], "k2") && k.gpu_us[0] == 5 && k.gpu_us[1] == 7,
			   "a launch's single kernel pairs by position: k1 | k2, 5 and 7 us");
		} else {
			skip("no launch under A");
			skip("no launch under A");
		}
		node(d, c[2], &x);
		ok(x.side == TL_DIFF_BOTH && !strcmp(x.name[0], "B") && x.gpu_us[0] == 3 && x.gpu_us[1] == 4, "B pairs with B");
		ok(tl_trace_diff_find(d, 0, 1) == (int64_t)c[1] && tl_trace_diff_find(d, 1, 6) == (int64_t)c[1],
		   "UID lookup on both sides gives A's merged node");
	} else {
		for (int i = 0; i < 7; i++)
			skip("children missing");
	}
	ok(tl_trace_diff_find(d, 0, 3) == -1, "a flow event is in no merged node");
	ok(tl_trace_diff_find(d, 0, 9999) == -1, "a UID past the end: -1");
	ok(tl_trace_diff_node(d, (uint32_t)tl_trace_diff_nnodes(d), &n) == -ERANGE, "a bad merged id: -ERANGE");
	ok(tl_trace_diff_nnodes(d) == 11, "11 merged nodes (step, X+launch+kx, A+launch+k, B+launch+kb, tail)");
	ok(tl_trace_diff_trace(d, 0) == b && tl_trace_diff_trace(d, 1) == v, "the traces of each side");
	tl_trace_diff_free(d);

	d = NULL;
	err = tl_trace_diff_build(b, none, NULL, &d);
	ok(err == -ENODATA, "a variant without CPU ops: -ENODATA");
	ok(d && tl_trace_diff_nside_roots(d, 0) == 2 && tl_trace_diff_nside_roots(d, 1) == 0,
	   "the diff says which side has no CPU op");
	ok(d && tl_trace_diff_nroots(d) == 0, "and has no merged root");
	tl_trace_diff_free(d);

	/* a trace against itself (one handle on both sides): everything matched */
	d = NULL;
	err = tl_trace_diff_build(b, b, NULL, &d);
	node(d, d ? tl_trace_diff_root(d, 0) : 0, &n);
	ok(!err && n.side == TL_DIFF_BOTH && n.gpu_us[0] == n.gpu_us[1], "a trace against itself");
	tl_trace_diff_free(d);
	tl_trace_diff_free(NULL);
	ok(1, "tl_trace_diff_free(NULL) is a no-op");
	tl_trace_close(b);
	tl_trace_close(v);
	tl_trace_close(none);
	return done_testing();
}
