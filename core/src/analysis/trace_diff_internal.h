/* SPDX-License-Identifier: MIT */
/* Internals of the merged call tree (trace_diff.c, trace_diff_align.c). */
#ifndef TL_TRACE_DIFF_INTERNAL_H
#define TL_TRACE_DIFF_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <tlreplay/trace.h>
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
			return -12; /* -ENOMEM */
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
	char **norm;		/* normalised names, made on demand */
	char **norm_strip;	/* the same without python_function details */
	uint8_t *kind;
	double *ts;
	int64_t *merged;	/* merged id holding the UID, -1 */
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
};

const char *td_raw_name(const struct td_side *s, uint64_t uid);
/* The name TraceDiff compares (hex addresses and .py line numbers blanked,
 * kernel launch calls of CUDA and HIP made equal; @strip: python_function
 * details dropped too). Owned by the side; NULL for a nameless event. */
const char *td_norm(const struct td_side *s, uint64_t uid, bool strip);
bool td_gpu_path(const struct td_side *s, uint64_t uid);
/* A runtime/driver call other than a graph launch. */
bool td_is_dispatch(const struct td_side *s, uint64_t uid);
int td_collapse(const struct td_side *s, int64_t uid, struct td_vec *kids, int64_t *out);

/* Edit-distance alignment of @a (baseline) and @b (variant) by name, then
 * same-name candidates re-paired by the shape of their subtrees. */
int td_align(struct tl_trace_diff *d, const struct td_vec *a, const struct td_vec *b, bool strip,
	     struct td_ops *out);
/* Phase 3 of TraceLens's merge: unmatched wrappers of the other side's op
 * replaced by their GPU-path children (re-sorted with @sort), the earlier
 * pairs kept, the rest aligned again. Updates @c and @ops. */
int td_reconcile(struct tl_trace_diff *d, struct td_vec c[2], struct td_ops *ops,
		 int (*sort)(const struct td_side *, struct td_vec *));
/* Phase 4 of TraceLens's merge: leftover unmatched children of both sides
 * collapsed through single-child wrappers and aligned again (then once more
 * ignoring python_function details). Updates @c and @ops. */
int td_realign_leftovers(struct tl_trace_diff *d, struct td_vec c[2], struct td_ops *ops);

#endif
