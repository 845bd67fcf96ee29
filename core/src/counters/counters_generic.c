/* SPDX-License-Identifier: MIT */
/* perf's generic event names: the hardware and software events the kernel
 * maps itself, and the hardware cache events built from the
 * PERF_COUNT_HW_CACHE_* enums with perf's spellings and its table of which
 * operations each cache has (tools/perf/util/evsel.c, parse-events.c). */
#include <stdio.h>

#include "counters/counters_internal.h"

struct generic {
	const char *name, *alias;
	uint32_t type;
	uint64_t config;
	const char *desc;
};

static const struct generic generics[] = {
	{ "cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
	  "CPU cycles" },
	{ "instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	  "instructions retired" },
	{ "cache-references", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES,
	  "cache accesses (usually last-level cache)" },
	{ "cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
	  "cache misses (usually last-level cache)" },
	{ "branches", "branch-instructions", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branch instructions retired" },
	{ "branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
	  "mispredicted branches" },
	{ "bus-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "bus cycles" },
	{ "stalled-cycles-frontend", "idle-cycles-frontend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "cycles stalled in the front end" },
	{ "stalled-cycles-backend", "idle-cycles-backend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "cycles stalled in the back end" },
	{ "ref-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES,
	  "reference cycles (not scaled by frequency changes)" },
	{ "cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
	  "CPU clock, in msec (a per-CPU timer)" },
	{ "task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
	  "time the counted threads ran, in msec" },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
	  "page faults" },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
	  "context switches" },
	{ "cpu-migrations", "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS,
	  "moves of a thread to another CPU" },
	{ "minor-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN,
	  "page faults served without I/O" },
	{ "major-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ,
	  "page faults that needed I/O" },
	{ "alignment-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS,
	  "unaligned accesses fixed up by the kernel" },
	{ "emulation-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS,
	  "instructions emulated by the kernel" },
	{ "dummy", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY,
	  "counts nothing (placeholder event)" },
	{ "bpf-output", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT,
	  "BPF output (for sampling; counts nothing)" },
	{ "cgroup-switches", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES,
	  "context switches to a task in another cgroup" },
};

/* ------------------------------------------------------- hardware caches */

/* Spellings as perf's evsel__hw_cache[], evsel__hw_cache_op[] and
 * evsel__hw_cache_result[]: the first is the canonical one. */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX][5] = {
	[PERF_COUNT_HW_CACHE_L1D] = { "L1-dcache", "l1-d", "l1d", "L1-data", NULL },
	[PERF_COUNT_HW_CACHE_L1I] = { "L1-icache", "l1-i", "l1i", "L1-instruction", NULL },
	[PERF_COUNT_HW_CACHE_LL] = { "LLC", "L2", NULL },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", "d-tlb", "Data-TLB", NULL },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", "i-tlb", "Instruction-TLB", NULL },
	[PERF_COUNT_HW_CACHE_BPU] = { "branch", "branches", "bpu", "btb", "bpc" },
	[PERF_COUNT_HW_CACHE_NODE] = { "node", NULL },
};

static const char *const cache_descs[PERF_COUNT_HW_CACHE_MAX] = {
	"L1 data cache", "L1 instruction cache", "last-level cache", "data TLB",
	"instruction TLB", "branch prediction unit", "local memory (NUMA node)",
};

static const char *const op_names[PERF_COUNT_HW_CACHE_OP_MAX][5] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "load", "loads", "read", NULL },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "store", "stores", "write", NULL },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetch", "prefetches", "speculative-read",
					      "speculative-load", NULL },
};

static const char *const result_names[PERF_COUNT_HW_CACHE_RESULT_MAX][5] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = { "refs", "Reference", "ops", "access", NULL },
	[PERF_COUNT_HW_CACHE_RESULT_MISS] = { "misses", "miss", NULL },
};

#define OPS(r, w, p)                                                                               \
	((r) << PERF_COUNT_HW_CACHE_OP_READ | (w) << PERF_COUNT_HW_CACHE_OP_WRITE |                \
	 (p) << PERF_COUNT_HW_CACHE_OP_PREFETCH)

/* Which operations perf accepts for each cache (evsel__hw_cache_stat[]). */
static const unsigned cache_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = OPS(1, 1, 1), [PERF_COUNT_HW_CACHE_L1I] = OPS(1, 0, 1),
	[PERF_COUNT_HW_CACHE_LL] = OPS(1, 1, 1),  [PERF_COUNT_HW_CACHE_DTLB] = OPS(1, 1, 1),
	[PERF_COUNT_HW_CACHE_ITLB] = OPS(1, 0, 0), [PERF_COUNT_HW_CACHE_BPU] = OPS(1, 0, 0),
	[PERF_COUNT_HW_CACHE_NODE] = OPS(1, 1, 1),
};

/* Match one of @names at the start of @s, followed by '-' or the end.
 * Returns the length matched (0: none); the longest spelling wins. */
static size_t match_word(const char *s, const char *const names[5])
{
	size_t best = 0, i, n;

	for (i = 0; i < 5 && names[i]; i++) {
		n = strlen(names[i]);
		if (n > best && !strncmp(s, names[i], n) && (s[n] == '-' || s[n] == '\0'))
			best = n;
	}
	return best;
}

/* Match one row of @table (@rows rows) at @s: returns the row, or -1. */
static int match_table(const char *s, const char *const table[][5], int rows, size_t *len)
{
	int r, found = -1;
	size_t n, best = 0;

	for (r = 0; r < rows; r++) {
		n = match_word(s, table[r]);
		if (n > best) {
			best = n;
			found = r;
		}
	}
	*len = best;
	return found;
}

/* "<cache>[-<op>][-<result>]" in either order after the cache, as perf's
 * parse_events__decode_legacy_cache(): op defaults to read, result to access. */
static int cache_lookup(const char *name, uint64_t *config)
{
	int cache, op = -1, res = -1, r;
	size_t len;
	const char *s = name;

	cache = match_table(s, cache_names, PERF_COUNT_HW_CACHE_MAX, &len);
	if (cache < 0 || s[len] != '-')
		return -ENOENT;
	s += len;
	while (*s == '-') {
		s++;
		if (op < 0 && (r = match_table(s, op_names, PERF_COUNT_HW_CACHE_OP_MAX, &len)) >= 0)
			op = r;
		else if (res < 0 && (r = match_table(s, result_names,
						      PERF_COUNT_HW_CACHE_RESULT_MAX, &len)) >= 0)
			res = r;
		else
			return -ENOENT;
		s += len;
	}
	if (*s)
		return -ENOENT;
	op = op < 0 ? PERF_COUNT_HW_CACHE_OP_READ : op;
	res = res < 0 ? PERF_COUNT_HW_CACHE_RESULT_ACCESS : res;
	if (!(cache_ops[cache] & (1u << op)))
		return -ENOENT;
	*config = (uint64_t)cache | (uint64_t)op << 8 | (uint64_t)res << 16;
	return 0;
}

int tl_cnt_generic_lookup(const char *name, struct perf_event_attr *attr)
{
	const struct generic *g;
	uint64_t config;
	size_t i;

	for (i = 0; i < TL_ARRAY_SIZE(generics); i++) {
		g = &generics[i];
		if (strcmp(name, g->name) && (!g->alias || strcmp(name, g->alias)))
			continue;
		attr->type = g->type;
		attr->config = g->config;
		return 0;
	}
	if (cache_lookup(name, &config))
		return -ENOENT;
	attr->type = PERF_TYPE_HW_CACHE;
	attr->config = config;
	return 0;
}

static void cache_foreach(tl_cnt_list_fn fn, void *ctx)
{
	char name[64], desc[128];
	int c, op;

	for (c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++) {
		for (op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			if (!(cache_ops[c] & (1u << op)))
				continue;
			/* perf's canonical spellings: L1-dcache-loads, L1-dcache-load-misses */
			snprintf(name, sizeof(name), "%s-%s", cache_names[c][0], op_names[op][1]);
			snprintf(desc, sizeof(desc), "Hardware cache event: %s %s accesses",
				 cache_descs[c], op_names[op][0]);
			fn(name, desc, ctx);
			snprintf(name, sizeof(name), "%s-%s-misses", cache_names[c][0],
				 op_names[op][0]);
			snprintf(desc, sizeof(desc), "Hardware cache event: %s %s misses",
				 cache_descs[c], op_names[op][0]);
			fn(name, desc, ctx);
		}
	}
}

void tl_cnt_generic_foreach(tl_cnt_list_fn fn, void *ctx)
{
	const struct generic *g;
	char desc[160];
	size_t i;

	for (i = 0; i < TL_ARRAY_SIZE(generics); i++) {
		g = &generics[i];
		snprintf(desc, sizeof(desc), "%s event: %s%s%s",
			 g->type == PERF_TYPE_HARDWARE ? "Hardware" : "Software", g->desc,
			 g->alias ? "; also " : "", g->alias ? g->alias : "");
		fn(g->name, desc, ctx);
		if (g->alias) {
			snprintf(desc, sizeof(desc), "%s event: %s (same as %s)",
				 g->type == PERF_TYPE_HARDWARE ? "Hardware" : "Software", g->desc,
				 g->name);
			fn(g->alias, desc, ctx);
		}
	}
	cache_foreach(fn, ctx);
}
