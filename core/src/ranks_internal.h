/* SPDX-License-Identifier: MIT */
/* Rank summaries and rank sets (ranks.h): what one rank's trace reduces to,
 * shared by the object (rank_summary.c), the builder (rank_summary_build.c,
 * collectives_extract.c), the file format (rank_summary_io.c), the parallel
 * loader (ranks_load.c) and the cross-rank analyses (ranks_breakdown.c,
 * collectives_match.c). */
#ifndef TL_RANKS_INTERNAL_H
#define TL_RANKS_INTERNAL_H

#include <cjson/cJSON.h>
#include <tlreplay/ranks.h>
#include <tlreplay/trace.h>

#include "strtab.h"
#include "util.h"

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

/* rank_summary.c: the object */
int tl_rs_new(struct tl_rank_summary **out);
/* (p, n) interned in the summary; NULL on ENOMEM. */
const char *tl_rs_str(struct tl_rank_summary *s, const char *p, size_t n);
static inline const char *tl_rs_cstr(struct tl_rank_summary *s, const char *p)
{
	return tl_rs_str(s, p ? p : "", p ? strlen(p) : 0);
}
/* Sort the collectives by ts (then uid). */
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
