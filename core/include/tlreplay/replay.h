/* SPDX-License-Identifier: MIT */
/**
 * @file replay.h
 * @brief Running replay workers: a Python interpreter with torch, chosen at run
 *        time, that replays ops from IR entries (docs/replay-internals.md).
 *
 * The library never embeds Python: a worker is a child process (the chosen
 * interpreter running tlreplay_worker.py) spoken to over two pipes, one JSON
 * object per line. An op that crashes kills the worker, not the caller; the
 * next request on a dead worker fails with -EPIPE and tl_worker_restart()
 * starts a fresh one.
 *
 * Ownership: tl_worker_start() returns a handle released with tl_worker_stop().
 * Replies are new cJSON objects the caller frees with cJSON_Delete().
 */
#ifndef TLREPLAY_REPLAY_H
#define TLREPLAY_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;
struct tl_worker;

/** The Python used when none is given: Debian's, where apt installs torch. */
#define TL_DEFAULT_PYTHON "/usr/bin/python3"

/**
 * @brief The Python that replays: @p given (--python; NULL: $TLREPLAY_PYTHON),
 *        a bare name looked up on PATH; else the first that has torch of
 *        $VIRTUAL_ENV/bin/python3, $CONDA_PREFIX/bin/python3, each python3 on
 *        PATH, TL_DEFAULT_PYTHON.
 * @param out its path; @param why why it was chosen (one line).
 * @return 0; -ENOENT (tl_last_error() says what was tried).
 */
TL_API int tl_python_find(const char *given, char *out, size_t n, char *why, size_t whyn);

struct tl_worker_opts {
	size_t sz;
	/** Interpreter: NULL = tl_python_find(NULL, ...). */
	const char *python;
	/** tlreplay_worker.py: NULL = tl_worker_script_path(NULL). */
	const char *script;
	/** Pass the worker's stderr through (else it is kept and quoted when it dies). */
	bool verbose;
	/** Seconds to wait for the worker to start and answer hello (0 = 120). */
	double start_timeout_s;
};

/**
 * @brief Where the worker script is: $TLREPLAY_WORKER, else next to the program
 *        (../share/tlreplay/replay/ of its directory, or ../core/replay/ in a
 *        build tree).
 * @param argv0_dir directory of the running program, or NULL to use /proc/self/exe.
 * @return a path in a thread-local buffer (valid until this thread's next
 *         call) or $TLREPLAY_WORKER itself, or NULL if none exists.
 */
TL_API const char *tl_worker_script_path(const char *argv0_dir);

/**
 * @brief Start a worker and check it with "hello". The worker is killed
 *        (SIGKILL) when the calling thread exits, so that it never outlives
 *        the program that started it: start it from a thread that outlives it.
 *        tl_worker_restart() has the same rule.
 * @return 0; -ENOENT (no interpreter or script), -ENOEXEC (the interpreter
 *         has no usable torch: tl_last_error() names the interpreter and
 *         quotes its error), -ETIMEDOUT, -ENOMEM.
 */
TL_API int tl_worker_start(const struct tl_worker_opts *opts, struct tl_worker **out);

/** @return the hello reply (python, torch, cuda, devices...), owned by the worker. */
TL_API const struct cJSON *tl_worker_hello(const struct tl_worker *w);

/** @return the interpreter path of the worker (static for its lifetime). */
TL_API const char *tl_worker_python(const struct tl_worker *w);

/** @return the worker's process id (to count its threads), -1 when it is dead. */
TL_API pid_t tl_worker_pid(const struct tl_worker *w);

/** Region events of a replay (counting around the timed loop only). */
enum tl_region { TL_REGION_BEGIN, TL_REGION_END };

/** Called on a region event; the worker waits until it returns. Return 0 to go on. */
typedef int (*tl_region_fn)(enum tl_region ev, void *ctx);

/**
 * @brief Send @p req (a cJSON object with "cmd"; "id" is set for you) and
 *        wait for its reply.
 * @param region called for region_begin/region_end events (may be NULL).
 * @param timeout_s seconds to wait for the reply (0 = no limit).
 * @param[out] reply the reply object (caller frees).
 * @return 0 (look at reply "status"); -EPIPE if the worker died (tl_last_error()
 *         says how: exit status or signal, and its last stderr lines);
 *         -ETIMEDOUT (the worker is killed); -EBADMSG (unparsable reply).
 */
TL_API int tl_worker_request(struct tl_worker *w, struct cJSON *req, tl_region_fn region,
			     void *ctx, double timeout_s, struct cJSON **reply);

/** Called with each event message a request's worker sends before its reply
 *  (region_begin, region_end, plan: docs/replay-internals.md; the message is
 *  borrowed); the worker waits for the answer. Return 0 to go on, else stop. */
typedef int (*tl_worker_event_fn)(const struct cJSON *msg, void *ctx);

/**
 * @brief tl_worker_request() with every event message handed to @p fn (may
 *        be NULL: each answered go), for callers that want more than the
 *        region (tl_replay_one() takes the plan too).
 */
TL_API int tl_worker_request_events(struct tl_worker *w, struct cJSON *req, tl_worker_event_fn fn, void *ctx,
				    double timeout_s, struct cJSON **reply);

/** @return true while the worker process is alive and usable. */
TL_API bool tl_worker_alive(const struct tl_worker *w);

/** Replace a dead (or live) worker by a fresh one with the same options. */
TL_API int tl_worker_restart(struct tl_worker *w);

/** Ask the worker to quit (kill it after a grace period) and free the handle. NULL ok. */
TL_API void tl_worker_stop(struct tl_worker *w);

/* ------------------------------------------------------------------ replay requests */

/** How many calls a replay makes, told before it makes them (tl_replay_params.on_plan). */
struct tl_replay_plan {
	double first_call_s;		/**< the checked call's time */
	long warmup, iters;		/**< the calls to come */
	long asked_warmup, asked_iters; /**< what was asked */
	double estimate_s;		/**< first_call_s x (warmup + iters) */
	bool cut;			/**< fewer calls than asked, to fit budget_s */
};

/** What a replay asks of the worker (the "replay" request of
 *  docs/replay-internals.md). Zero-initialise and set .sz; everything is
 *  borrowed. */
struct tl_replay_params {
	size_t sz;
	const char *device;		/**< "cpu", "cuda" or "cuda:N"; NULL = "cpu" */
	long warmup, iters;		/**< untimed calls, then timed ones */
	double min_time_s;		/**< time at least this long (more calls) */
	bool flush_l2, cuda_graph, verbose;
	long seed;			/**< of the custom initializers */
	const char *const *plugins;	/**< --init-plugin files, sent as absolute paths */
	size_t nplugins;
	const char *init_kwargs;	/**< JSON text, or NULL */
	const struct cJSON *namespaces;	/**< {"ns": ["module", "FILE.py"]} to import, or NULL */
	const struct cJSON *aliases;	/**< {"op": ["other op"]}, or NULL */
	const struct cJSON *gpu_metrics;	/**< GPU metric names to count, or NULL */
	const char *gpu_lib;		/**< libtlreplay_gpu.so for them, or NULL */
	double timeout_s;		/**< of the request (0 = none) */
	/** As many calls as fit this many seconds, judged by the first (checked) call: a
	 *  tenth of them as warm-up (at most @c warmup), the rest timed (at least one). 0: the
	 *  counts asked. Not applied with @c min_time_s. */
	double budget_s;
	/** Called once the worker knows how many calls it will make (after the checked call,
	 *  before the warm-up), so that a long replay can say so; may be NULL. */
	void (*on_plan)(const struct tl_replay_plan *plan, void *ctx);
	void *plan_ctx;
};

/**
 * @brief The "replay" request of @p entry (an IR entry, added by reference:
 *        it must outlive the request) under @p p.
 * @return a cJSON object the caller frees, or NULL (out of memory).
 */
TL_API struct cJSON *tl_replay_request(const struct tl_replay_params *p, struct cJSON *entry);

/**
 * @brief Replay @p entry in @p w: the worker's reply, or a reply made here
 *        when the worker timed out ("kind": "timeout") or died ("crash"),
 *        with its error; a dead worker is restarted for the next op (a
 *        failed restart is in "restart_error").
 * @param region called at the edges of the timed loop (may be NULL).
 * @return a cJSON object the caller frees, or NULL (out of memory).
 */
TL_API struct cJSON *tl_replay_one(struct tl_worker *w, const struct tl_replay_params *p, struct cJSON *entry,
				   tl_region_fn region, void *ctx);

/**
 * @brief Whether @p device ("cpu", "cuda", "cuda:N") exists for the
 *        worker's torch, from its hello.
 * @return 0; -ENODEV (tl_last_error() names the interpreter and its torch,
 *         or how many devices it sees).
 */
TL_API int tl_worker_check_device(const struct tl_worker *w, const char *device);

/* ------------------------------------------------------------------ operator schemas */

/**
 * @brief The operator schemas of the worker's torch (the "schemas" request),
 *        after it imported @p namespaces ({"ns": ["module" or "FILE.py"]},
 *        may be NULL).
 * @param schemas set to a NULL-terminated array of schema strings, one
 *        allocation the caller frees with free().
 * @param n set to their number.
 * @param torch set to the worker's torch version ("?" when it gave none);
 *        may be NULL with @p torch_sz 0.
 * @return 0; the request's error (-ETIMEDOUT, -EPIPE ...); -EPROTO when the
 *         worker answered without a list; -ENOMEM.
 */
TL_API int tl_worker_schemas(struct tl_worker *w, const struct cJSON *namespaces, double timeout_s, char ***schemas,
			     size_t *n, char *torch, size_t torch_sz);

/**
 * @brief The newest operator-schema snapshot bundled with tlreplay: the
 *        TLREPLAY_SCHEMAS environment variable, else the highest torch
 *        version in share/tlreplay/schemas (installed) or core/replay/schemas
 *        (the source tree), found from the running program's path.
 * @return a path (per-thread storage, valid until the next call), or NULL.
 */
TL_API const char *tl_schema_snapshot_path(void);

/* ------------------------------------------------------------------ statistics */

/** Summary of per-iteration times. */
struct tl_stats {
	size_t n;
	double median, mean, std, min, max;	/**< std: sample standard deviation */
};

/** Fill @p s from @p v[0..n) (v is not modified). */
TL_API void tl_stats_compute(const double *v, size_t n, struct tl_stats *s);

#ifdef __cplusplus
}
#endif
#endif
