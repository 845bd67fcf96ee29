/* SPDX-License-Identifier: MIT */
/* ranks: multi-rank jobs (tlreplay/ranks.h). Each rank's trace is reduced
 * to a rank summary, an object of its own (rank_summary.c) built from a
 * trace (rank_summary_build.c, with its collectives from
 * collectives_extract.c) or read from a summary file (rank_summary_io.c);
 * ranks are read in parallel into a rank set (ranks_load.c, ranks_name.c),
 * whose breakdown spread (ranks_breakdown.c) and collectives matched across
 * ranks (collectives_match.c, collectives_types.c) are the cross-rank
 * analyses. It depends on analysis (breakdowns, GPU classes), trace and
 * base. */
#ifndef TL_RANKS_INTERNAL_H
#define TL_RANKS_INTERNAL_H

#include <cjson/cJSON.h>
#include <tlreplay/ranks.h>
#include <tlreplay/trace.h>

#include "base/base_internal.h"

struct tl_trace;

struct tl_rank_summary {
	struct tl_rank_info info;
	struct tl_strtab strs;		/* every string of the summary (stable pointers) */
	bool has_bd[2];			/* [0] linked GPU events, [1] all */
	struct tl_breakdown bd[2];
	TL_VEC(struct tl_coll_rec) coll;	/* by ts */
	TL_VEC(struct tl_pg_info) pgs;
};

struct tl_rankset {
	struct tl_rank_summary **v;	/* by rank */
	size_t n;
	unsigned jobs;
};

/* The largest count, UID or stream a summary holds: a JSON number reads
 * back exactly up to 2^53 (cJSON and Python hold doubles), so the writer
 * never writes what its reader would round, and the reader takes no more. */
#define TL_RS_INT_MAX (INT64_C(1) << 53)

/* rank_summary.c: the object */
int tl_rs_new(struct tl_rank_summary **out);
/* (p, n) interned in the summary; NULL on ENOMEM. */
const char *tl_rs_str(struct tl_rank_summary *s, const char *p, size_t n);
static inline const char *tl_rs_cstr(struct tl_rank_summary *s, const char *p)
{
	return tl_rs_str(s, p ? p : "", p ? strlen(p) : 0);
}
/* Sort the collectives by ts, then uid, then every other field (a total
 * order: a summary read twice lists them the same way). */
void tl_rs_sort_coll(struct tl_rank_summary *s);

/* collectives_extract.c: append every collective kernel of @tr to @s. */
int tl_coll_extract(struct tl_trace *tr, struct tl_rank_summary *s);

/* collectives_types.c: a collective name from the kernel's name
 * ("AllReduce" of ncclKernel_AllReduce_RING_LL_Sum_float; "allreduce" for
 * vLLM's cross_device_reduce kernels), into buf. */
void tl_coll_kernel_token(const char *kernel, char *buf, size_t n);
/* dtype names equal up to case and a "c10::" prefix. */
bool tl_dtype_same(const char *a, const char *b);

#endif
