/* SPDX-License-Identifier: MIT */
/* analysis: what a trace says about GPU time, read from the event table and
 * the call tree: the TraceLens GPU timeline breakdown (timeline.c), the ops
 * and kernels summaries (summary_ops.c, summary_kernels.c) with TraceLens's
 * op categories (op_category.c), kernel launchers and their groups
 * (launchers.c, launcher_groups.c), activation recompute (recompute.c), the
 * vLLM/SGLang iteration around an op (batch_context.c), the health check
 * (health.c), launch statistics (launch_stats.c), iterations (steps.c) and
 * user annotations on the GPU (annotations.c), the critical path
 * (critpath*.c). It depends on trace and base. */
#ifndef TL_ANALYSIS_INTERNAL_H
#define TL_ANALYSIS_INTERNAL_H

#include <cjson/cJSON.h>

#include "base/base_internal.h"
#include "trace/trace_internal.h"

/* =========================================================== op_category.c */

/* Op categories, by op name and first kernel name (TraceLens rules). */

/* @first_kernel may be NULL. Returns a static string. */
const char *tl_op_category_by_name(const char *name, const char *first_kernel);
/* Op name as the summaries group it (sglang_profiler call counters dropped):
 * @name itself, or @buf filled. */
const char *tl_op_norm_name(const char *name, char *buf, size_t n);

/* hta_view.c: the trace as HTA's Trace holds it (--hta). */
struct tl_hta_view {
	/* fractional timestamps: HTA rounds them to whole us */
	bool rounded;
	/* only CPU events that start before this (the last ProfilerStep's
	 * start, rounded as HTA does), else INFINITY */
	double before_us;
	/* that start as the trace has it (INFINITY: none) */
	double last_step_us;
};
/* 0 or -ENOMEM. */
int tl_hta_view_of(const struct tl_trace *tr, struct tl_hta_view *v);
/* @e's start and duration as HTA has them (start up, end down, when rounded). */
void tl_hta_times(const struct tl_hta_view *v, const struct tl_ev *e, double *ts, double *dur);
/* An op's name as the report reading @tr sees it: tl_op_norm_name() under
 * TraceLens's inference view (tr->inference_view), else @name itself. */
const char *tl_op_view_name(const struct tl_trace *tr, const char *name, char *buf, size_t n);
/* summary_ops.c: TraceLens's nn.Module call stack of op @uid (the op, then
 * its "nn.Module" ancestors, innermost first) as a Python list repr,
 * malloc'ed (NULL when out of memory); @parent_module gets its second frame
 * without "_<digits>", or "NA". Reads the trace only. */
char *tl_op_module_stack(const struct tl_trace *tr, uint64_t uid, char *parent_module, size_t pmn);
/* For the unit tests: the registry must be sorted for bsearch. */
bool tl_op_category_registry_sorted(void);

/* ============================================================= recompute.c */

/* Activation-recompute detection (torch.utils.checkpoint). */

/* Build the tree with python functions and mark every event below a
 * python_function whose name holds "torch/utils/checkpoint.py" and
 * "recompute_fn" (TraceLens's --detect_recompute). *out: malloc'ed, one byte
 * per UID (0/1). */
int tl_recompute_flags(struct tl_trace *tr, uint8_t **out);

/* ============================================================== timeline.c */

/* The GPU class of a GPU event. */
enum tl_gpu_class tl_classify_gpu(const struct tl_trace *tr, const struct tl_ev *e);
/* Per-name GPU class table (malloc'ed, indexed by strtab id). */
int tl_gpu_classes(const struct tl_trace *tr, uint8_t **out);
/* The eight rows of @bd for the GPU events @uids (all zero when n is 0);
 * @cls from tl_gpu_classes(). 0 or -ENOMEM. */
int tl_breakdown_uids(const struct tl_trace *tr, const uint32_t *uids, size_t n, const uint8_t *cls,
		      struct tl_breakdown *bd);

/* ========================================================= batch_context.c */

/* The iteration annotation around event @uid as
 * {n_prefill, prefill_tokens, n_decode, decode_tokens[, *_kv_tokens]};
 * *out NULL when there is none. */
int tl_batch_context(struct tl_trace *tr, uint64_t uid, cJSON **out);
/* The phase (enum tl_phase) of serving iteration annotation @name, its batch
 * size and tokens (-1 when not said); TL_PHASE_NONE when it says none. */
int tl_serving_phase(const char *name, long long *batch, long long *tokens);
/* ================================================== steps_assign.c */
/* The step of @set whose range holds time @ts (the later of overlapping
 * ones, as HTA), or -1. */
int64_t tl_step_at(const struct tl_step_set *set, double ts);
/* The number of steps of @set (in time order) that start at or before @ts. */
size_t tl_steps_starting_by(const struct tl_step_set *set, double ts);

/* ========================================================= steps.c */
/* The steps of @tr without their GPU numbers (0; -ENODATA said when none). */
int tl_steps_load(struct tl_trace *tr, struct tl_step_set *set);
/* Keep the steps of @set marked in @keep only, as tl_trace_keep_step(). */
int tl_steps_keep(struct tl_trace *tr, const struct tl_step_set *set, const bool *keep);

/* ================================================ steps_calltree.c */
/* Iterations found in the host call tree (steps_calltree.c's comment), for a
 * trace with no iteration annotation: v[0..n) in time order (name, uid, ts,
 * dur set; malloc'ed, the caller's), the event whose children repeat (NULL:
 * a thread's top level), how they were found ("period", "anchor", "one"),
 * their share of the GPU time launched in their span, and of all the GPU
 * time the trace's calls launched. n = 0 when the
 * trace launches no GPU work. Needs the runtime -> GPU links. */
struct tl_steps_found {
	struct tl_step *v;
	size_t n;
	const char *under, *how;
	double coverage, share;
	bool by_launches; /* weighed by launch calls, not GPU time (a capture trace) */
};
int tl_steps_from_calltree(const struct tl_trace *tr, struct tl_steps_found *out);

/* ==================================================== steps_phase.c */
/* The phase, batch size and tokens of each step of @set that has no phase,
 * from its attention ops' shapes (steps_phase.c's comment). 0 or -ENOMEM. */
int tl_steps_phase_from_shapes(struct tl_trace *tr, struct tl_step_set *set);

/* ====================================== trace_diff*.c (the merged call tree) */

#include <tlreplay/trace_diff.h>

/* A growable list of UIDs. */
struct td_vec {
	int64_t *v;
	size_t n, cap;
};

static inline int td_push(struct td_vec *v, int64_t x)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		int64_t *nv = realloc(v->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = x;
	return 0;
}

/* One step of an alignment: a pair (i, j), a baseline-only i (j = -1) or a
 * variant-only j (i = -1); indices into the two children lists. */
enum td_op_kind { TD_MATCH, TD_DELETE, TD_INSERT };
struct td_op {
	enum td_op_kind kind;
	long i, j;
};
struct td_ops {
	struct td_op *v;
	size_t n, cap;
};
int td_ops_add(struct td_ops *o, enum td_op_kind kind, long i, long j);

/* What the merge needs of one trace, indexed by UID. */
struct td_side {
	struct tl_trace *tr;
	uint64_t n;
	double *gpu_us;		/* GPU time under each event */
	uint32_t *ngpu;		/* GPU events under each event */
	struct td_norm_cache *nc; /* the normalised names, one copy per distinct raw name */
	uint8_t *kind;
	double *ts;
	uint32_t *merged; /* merged id + 1 holding the UID, 0 for none (nodes < 2^31:
				 * each holds a UID of a side, each side < 2^30) */
};

struct td_node {
	int64_t uid[2];
	uint32_t *children;
	size_t nchildren;
};

struct tl_trace_diff {
	struct td_side s[2];
	struct td_vec roots_side[2];
	struct td_node *nodes;
	size_t nnodes, cap;
	uint32_t *roots;
	size_t nroots;
	/* the diff_stats rows, made once for both sheets by the report
	 * (sheet_diff.c) and freed with the diff */
	void *stats;
	void (*stats_free)(void *);
};

/* trace_diff_side.c */
int td_side_init(struct td_side *s, struct tl_trace *tr);
void td_side_free(struct td_side *s);
/* The children of @uid (@all) and those on a GPU path (@gpu), appended. */
int td_gpu_children(const struct td_side *s, int64_t uid, struct td_vec *all, struct td_vec *gpu);
/* Stable sort by timestamp. 0 or -ENOMEM. */
int td_sort_by_ts(const struct td_side *s, struct td_vec *v);
const char *td_raw_name(const struct td_side *s, uint64_t uid);
/* The name TraceDiff compares (hex addresses and .py line numbers blanked,
 * kernel launch calls of CUDA and HIP made equal; @strip: python_function
 * details dropped too). Owned by the side; NULL for a nameless event. */
const char *td_norm(const struct td_side *s, uint64_t uid, bool strip);
bool td_gpu_path(const struct td_side *s, uint64_t uid);
/* A runtime/driver call other than a graph launch. */
bool td_is_dispatch(const struct td_side *s, uint64_t uid);
int td_collapse(const struct td_side *s, int64_t uid, struct td_vec *kids, int64_t *out);

/* trace_diff_align.c */
/* Edit-distance alignment of @a (baseline) and @b (variant) by name, then
 * same-name candidates re-paired by the shape of their subtrees. */
int td_align(struct tl_trace_diff *d, const struct td_vec *a, const struct td_vec *b, bool strip,
	     struct td_ops *out);
/* Phase 3 of TraceLens's merge: unmatched wrappers of the other side's op
 * replaced by their GPU-path children (re-sorted), the earlier
 * pairs kept, the rest aligned again. Updates @c and @ops. */
int td_reconcile(struct tl_trace_diff *d, struct td_vec c[2], struct td_ops *ops);
/* Phase 4 of TraceLens's merge: leftover unmatched children of both sides
 * collapsed through single-child wrappers and aligned again (then once more
 * ignoring python_function details). Updates @c and @ops. */
int td_realign_leftovers(struct tl_trace_diff *d, struct td_vec c[2], struct td_ops *ops);

/* timeline.c: the error of an analysis that found no GPU event to count
 * (@considered: how many there were before the linked-only filter):
 * -ENODATA, with a message naming the trace and --include-unlinked. */
int tl_err_no_linked_gpu(const struct tl_trace *tr, size_t considered);

/* ============================================ critpath*.c: the critical path */

/* The graph of tl_critpath() (critpath.c builds it and finds its longest
 * path; critpath_graph.c adds its edges; critpath_host.c makes the host
 * threads' edges as HTA's call stacks do). */
#include <tlreplay/critpath.h>

/* An event of the graph: its nodes are 2*i (start) and 2*i+1 (end). The
 * graph of a whole trace has most of its events and two edges per event:
 * events and edges are kept to 48 and 24 bytes (UIDs fit in 32 bits: the
 * loader takes at most 2^30 events), and what is read once (the name and
 * stream of a synchronize call) is read from the trace. */
struct cp_ev {
	double s, e;
	int64_t corr;
	const char *pid, *tid;
	uint32_t uid;
	uint8_t kind;
};

struct cp_gedge {
	uint32_t from, to; /* nodes */
	double w;
	uint32_t attr; /* a UID */
	uint8_t type;
	uint8_t pr; /* which wins a tie (critpath.c's prio()) */
};

/* What the longest path reads of an event: once the edges are made, the
 * events (struct cp_ev) give way to these (24 bytes). */
struct cp_node {
	double s, e;
	uint32_t uid;
	uint8_t kind;
};

struct cp_graph {
	struct cp_ev *ev;
	struct cp_node *node; /* ev, once the edges are made */
	size_t nev, cev_cap;
	struct cp_gedge *ed;
	size_t ned, ed_cap;
	int32_t *idx; /* uid -> event index, -1; freed once the edges are made */
	struct tl_critpath *cp;
	/* the window: events that start in [t0, t1], or all of them */
	double t0, t1;
	bool all;
	/* HTA's numbers (tl_critpath_opts.hta): its timestamps, its events */
	bool hta;
	struct tl_hta_view hv;
	bool sync_calls; /* tl_critpath_opts.sync_calls */
};

/* Event @uid's start and end as the graph takes them: HTA's whole
 * microseconds with hta, else the trace's. */
static inline void tl_cp_times(const struct cp_graph *g, const struct tl_trace *tr, uint64_t uid, double *s, double *e)
{
	const struct tl_ev *x = &tr->ev[uid];
	double ts = x->ts, dur = x->dur;

	if (g->hta)
		tl_hta_times(&g->hv, x, &ts, &dur);
	*s = ts;
	*e = ts + dur;
}

/* Adds an edge of weight @w (negative allowed: HTA's call-stack edges can
 * run back in time) attributed to UID @attr. 0 or -ENOMEM. */
int tl_cp_add_edge(struct cp_graph *g, size_t from, size_t to, double w, uint64_t attr, int type);
/* Sets the tie priority of the edge just added. */
void tl_cp_set_pr(struct cp_graph *g, int pr);
/* The graph index of event @uid, or -1 (not in the graph, or @uid < 0). */
int64_t tl_cp_gidx(const struct cp_graph *g, int64_t uid);
/* Whether events of kind @k are host nodes of the graph (ops and calls). */
bool tl_cp_is_host(enum tl_kind k);
/* The op and dependency edges of the host threads and the CUDA runtime
 * lock's edges, as HTA's call stacks make them (critpath_host.c). 0 or
 * -ENOMEM. */
int tl_cp_host_edges(struct cp_graph *g, struct tl_trace *tr);

#endif
