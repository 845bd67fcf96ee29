/* SPDX-License-Identifier: MIT */
/* What uid, replay, stat and pack share: the replay options, the worker,
 * schema databases (live registry or snapshot), IR entries, result output. */
#ifndef TLREPLAY_REPLAY_COMMON_H
#define TLREPLAY_REPLAY_COMMON_H

#include <cjson/cJSON.h>
#include <tlreplay/ir.h>
#include <tlreplay/replay.h>

#include "util/cli.h"

/* Seconds of calls per op on the CPU when -r and --min-time say nothing
 * (--budget), and from how long an op's replay is said before it runs. */
#define REPLAY_BUDGET_S	   10.0
#define REPLAY_SAY_AFTER_S 3.0

struct replay_opts {
	const char *python;		/* --python */
	const char *device;		/* --device, default "cpu" */
	long iters, warmup;		/* -r, --warmup */
	double min_time_s;		/* --min-time */
	bool flush_l2, cuda_graph, verbose;
	long seed;
	const char *plugins[16];	/* --init-plugin */
	size_t nplugins;
	const char *init_kwargs;	/* --init-kwargs JSON */
	const char *schemas;		/* --schemas FILE */
	const char *namespaces[16];	/* --namespace NS=MOD[,MOD] */
	size_t nnamespaces;
	const char *aliases[16];	/* --alias OP=OTHER[,OTHER] */
	size_t naliases;
	const char *control;		/* --control fd:CTL,ACK | fifo:CTL,ACK (perf stat's) */
	const cJSON *gpu_metrics;	/* GPU metrics the worker counts (stat), borrowed */
	const char *gpu_lib;		/* libtlreplay_gpu.so for them */
	const char *store;		/* --store FILE */
	bool no_store;			/* --no-store */
	double timeout_s;		/* --timeout */
	bool iters_given;		/* -r was given: no budget */
	double budget_s;		/* --budget: seconds of calls per op on the CPU (default 10) */
	const char *progress;		/* "[12/86]": a batch's place, for the plan's progress line */
	bool quiet_plan;		/* no plan line: stat -x/-j writes its table to stderr */
};

void replay_opts_init(struct replay_opts *ro);
/* The options over struct replay_opts, in the help order of uid and replay:
 * -r/--iters, --warmup ... --no-store, -v/--verbose. */
extern const struct opt opts_replay[];

/* Start a worker for @ro (prints why on failure). */
int replay_worker(const struct replay_opts *ro, struct tl_worker **w);
/* tl_worker_start() that also passes tlreplay's SIGINT/SIGTERM/SIGHUP on to the
 * worker (child-signals.h); 0 or -errno, nothing printed. Every worker started
 * so is stopped with replay_worker_stop() (NULL is fine). */
int replay_worker_start(const struct tl_worker_opts *wo, struct tl_worker **w);
void replay_worker_stop(struct tl_worker *w);
/* Refuse early when --device names CUDA and the worker has none. */
int replay_check_device(const struct replay_opts *ro, struct tl_worker *w);

/* A schema database: --schemas FILE; else the worker's live registry (asking it
 * to import @namespaces); else the newest bundled snapshot. */
int replay_schemas(const struct replay_opts *ro, struct tl_worker *w, const char *const *namespaces, size_t nns,
		   struct tl_schema_db **db);

/* A replay request for @entry (borrowed: detached before return). */
cJSON *replay_request(const struct replay_opts *ro, cJSON *entry);

/* One replay: returns the worker's reply, or a synthesized {"status": "failed"}
 * when the worker died (it is restarted). Never NULL unless out of memory. */
cJSON *replay_one(const struct replay_opts *ro, struct tl_worker *w, cJSON *entry,
		  tl_region_fn region, void *ctx);

/* An IR file (.json or .json.gz): its list of entries, or NULL after
 * printing why (unreadable, not JSON, not a list). */
cJSON *replay_read_ir(const char *path);

/* One op of a trace, ready to replay: the trace, a worker, the IR entry. */
struct uid_job {
	struct tl_trace *tr;
	struct tl_worker *w;
	cJSON *entry;
	cJSON *trace_id;	/* tl_store_trace_id() of the trace */
	unsigned long long uid;
	const char *name;	/* the op's name (owned by tr) */
};

/* Open the trace of @co, start a worker, build the IR entry of @uid_str with
 * the worker's live schemas. Returns 0, or 1 after printing why. */
int uid_job_prepare(struct uid_job *job, const struct common_opts *co, const struct replay_opts *ro,
		    const char *cmd, const char *uid_str);
void uid_job_done(struct uid_job *job);

/* The length of the namespace of op name @op ("vllm" of "vllm::rms_norm"),
 * 0 when it has none or needs no import (aten, prims). */
size_t op_namespace_len(const char *op);

/* Status string of a reply ("ok", "failed", "unavailable"). */
const char *reply_status(const cJSON *reply);
/* Per-iteration times of an ok reply into @s. */
void reply_stats(const cJSON *reply, struct tl_stats *s);

/* kernel-verdict.c: the kernels of a GPU replay (the reply's "kernels", names)
 * against the trace's (the entry's "kernels", objects with a name): "MATCH"
 * (the same set of names), "FAMILY" (the same kernels by kernel_family),
 * "LIBRARY" (the same kinds by kernel_library, the others by family),
 * "SUBSET" (the replay ran only kernels the trace has), "MISMATCH", or NULL
 * when either side has none. A static string. */
const char *kernel_verdict(const cJSON *entry, const cJSON *reply);
/* @name's family into @out (@cap bytes, truncated): its function's name (any
 * elementwise loop as elementwise_kernel) and the sorted words of its
 * template arguments that say what it computes (functors, the functions
 * whose lambdas it runs, element types); numbers and namespaces go. A name
 * without a template: itself with each run of digits as '#'. */
void kernel_family(const char *name, char *out, size_t cap);
/* The library kind of kernel @name is ("gemm", "convolution", "attention",
 * "collective"), by the words vendors' kernels carry; NULL for none. */
const char *kernel_library(const char *name);

#endif
