/* SPDX-License-Identifier: MIT */
/**
 * @file steps.h
 * @brief Iterations of a trace: per step its wall time, GPU busy time and
 *        the TraceLens breakdown of the GPU events it launched.
 *
 * The steps are the ProfilerStep#N ranges of torch.profiler (a user_annotation
 * or, in older traces, a cpu_op; the GPU copies, gpu_user_annotation, are not
 * steps). A trace with none falls back to vLLM / SGLang iteration
 * annotations (user_annotation named execute_..._context_..._generation_...,
 * step[EXTEND|DECODE|MIXED...], prefill[...], decode[...]), numbered 0, 1, ...
 * in time order. Serving annotations that nest on one thread (SGLang writes
 * vLLM's execute_... around its own step[...]) are one iteration: the
 * outer's range, the inner's name in tl_step.inner.
 *
 * A trace with neither (an annotation-stripped trace, a plain
 * `with profile():` around a loop) has its loop found in the host call tree
 * of the threads that launch GPU work: from the top down through any event
 * holding >= 95 % of the GPU time below it, then the first level whose
 * children repeat (the same names over again, or a name starting each of
 * K >= 2 blocks of like GPU time), the blocks being iterations when each
 * waits for the GPU, steps an optimizer or runs backward (a model's layers
 * repeat too, and do none of those), and hold >= 95 % of the GPU time
 * launched in their span. With no loop, one iteration: the deepest event
 * passed through that still waits for the GPU. Such a step's name and uid
 * are its first event's; numbers are 0, 1, ... (tl_step_set.source says
 * which of the three the steps are).
 *
 * Events are assigned to steps with HTA's rule (hta/common/trace.py,
 * add_iteration): a host event belongs to step s when s.ts <= ts < s.ts +
 * s.dur; a GPU event (kernel, gpu_memcpy, gpu_memset) belongs to the step of
 * the runtime call that launched it, so a kernel that runs after its step
 * ended still counts in it, and a GPU event no runtime call launched belongs
 * to none. Where ranges overlap the later one wins, as in HTA.
 *
 * A step's breakdown is tl_breakdown()'s eight rows over its GPU events,
 * all devices pooled: total_time is its GPU span (first start to last end),
 * busy_time the union, idle_time the difference.
 *
 * Times are microseconds. Results are owned by the caller (tl_step_set_free());
 * their strings are owned by the trace.
 */
#ifndef TLREPLAY_STEPS_H
#define TLREPLAY_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tlreplay/analysis.h>
#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_trace;

/** What a serving iteration ran: prefill (new prompts), decode (one token
 *  per running request), or both. */
enum tl_phase {
	TL_PHASE_NONE,
	TL_PHASE_PREFILL,
	TL_PHASE_DECODE,
	TL_PHASE_MIXED
};

/** "prefill", "decode", "mixed", or NULL for TL_PHASE_NONE. */
TL_API const char *tl_phase_name(int phase);
/** The phase named @p name ("prefill", "decode", "mixed"), else TL_PHASE_NONE. */
TL_API int tl_phase_of_name(const char *name);

struct tl_step {
	const char *name;	/**< the annotation's name ("ProfilerStep#3") */
	const char *inner;	/**< a serving annotation nested in it, of the same iteration
				     (SGLang's step[EXTEND ...] in execute_...), or NULL */
	long long number;	/**< N of ProfilerStep#N; the index for vLLM/SGLang */
	uint64_t uid;		/**< the annotation event */
	double ts, dur;		/**< its CPU range: the wall time is dur */
	uint64_t ngpu;		/**< GPU events launched from inside it */
	double gpu_start, gpu_end;	/**< first start, last end of those (0 when none) */
	double us[TL_BD_NROWS];	/**< their breakdown (enum tl_bd_row) */
	/** A serving iteration's phase (enum tl_phase), from SGLang's step[EXTEND|DECODE|MIXED
	 *  bs=B toks=T] or vLLM's execute_..._context_C(..)_generation_G(..) (prefill when only
	 *  C > 0, decode when only G > 0, mixed when both), else from its attention's shapes
	 *  (phase_from_shapes); TL_PHASE_NONE when neither says. */
	int phase;
	long long batch_size; /**< requests in it (bs=, C + G); -1 when not said */
	long long tokens;     /**< tokens it ran (toks=, the two sides' tokens); -1 when not said */
	/** The phase, batch size and tokens were read from its attention ops' shapes (no
	 *  annotation says them; see tl_step_set.phases_from_shapes). */
	bool phase_from_shapes;
};

/** Where a trace's steps come from. */
enum tl_steps_source {
	TL_STEPS_NONE,
	TL_STEPS_PROFILER, /**< ProfilerStep#N */
	TL_STEPS_SERVING,  /**< vLLM/SGLang iteration annotations */
	TL_STEPS_CALLTREE, /**< found in the host call tree (no iteration annotation) */
};

struct tl_step_set {
	size_t n;
	struct tl_step *v;	/**< in time order */
	bool profiler_steps;	/**< ProfilerStep#N (else vLLM/SGLang annotations or the call tree) */
	int source;		/**< enum tl_steps_source */
	/** TL_STEPS_CALLTREE: the event whose children repeat (NULL: a thread's top level), how
	 *  the loop was told ("period": the same names over again, "anchor": a name that starts
	 *  each block, "one": no loop, one iteration), the iterations' share of the GPU time
	 *  launched inside their span (every thread's launches), and of all the GPU time the
	 *  trace's calls launched. */
	const char *found_under, *found_how;
	double coverage, share;
	/** Some step's phase was read from the shapes of its attention: SDPA's q and k (Lq == 1
	 *  over a longer k: decode; Lq > 1: prefill), variable-length attention's tokens against
	 *  its requests (cu_seqlens), paged attention (decode); both in one step: mixed. Only in
	 *  a trace that serves (variable-length or paged attention, or a decode-shaped SDPA,
	 *  somewhere), never for a step that runs backward, and never over an annotation's. */
	bool phases_from_shapes;
	size_t slowest;		/**< index of the longest wall time */
	/** Wall time over the steps: min, median, max, mean, std (sample; NaN for one). */
	double min_us, median_us, max_us, mean_us, std_us;
	/** TL_STEPS_CALLTREE in a capture trace (a stream capture begun, and more launch calls
	 *  that ran nothing than GPU events: their kernels went into a graph): coverage, share
	 *  and the search were by counts of launch calls, not GPU time. */
	bool found_by_launches;
};

/**
 * @brief The steps of @p tr and their breakdowns (see the file comment).
 * @return 0; -ENODATA when the trace has no step annotation; -ENOMEM.
 */
TL_API int tl_steps(struct tl_trace *tr, struct tl_step_set **out);
/** Free a result of tl_steps() (NULL is fine). */
TL_API void tl_step_set_free(struct tl_step_set *set);

/**
 * @brief The step of @p set that event @p uid belongs to, by the rule
 *        tl_steps() assigns events with (HTA's): a host event by its ts, a
 *        GPU event by the runtime call that launched it, so that a per-step
 *        view of another analysis (idle gaps, launches) splits exactly as
 *        the steps' breakdowns do.
 * @param set a result of tl_steps() for @p tr.
 * @return the index into set->v; -1 when the event belongs to none (outside
 *         every step, a GPU event no call launched, no timestamp, a bad UID).
 */
TL_API long tl_step_of_event(struct tl_trace *tr, const struct tl_step_set *set, uint64_t uid);

/**
 * @brief Keep step @p number only: every host event (cpu_op, runtime,
 *        driver, python_function, user_annotation, sync, instant) outside
 *        the step's range and every GPU event launched outside it becomes an
 *        event of kind TL_KIND_OTHER, and the call tree is rebuilt on next
 *        use, so that every later analysis sees that iteration alone.
 * @return 0; -ENODATA (no steps), -ENOENT (no step @p number:
 *         tl_last_error() lists those there are), -EBUSY (graph captures
 *         were merged already), -ENOMEM.
 */
TL_API int tl_trace_keep_step(struct tl_trace *tr, long long number);

/**
 * @brief Keep the serving iterations of phase @p phase only, as
 *        tl_trace_keep_step() keeps one.
 * @return 0; -ENODATA (no steps, or steps without phases: ProfilerStep#N),
 *         -ENOENT (no iteration of that phase: tl_last_error() says which
 *         there are), -EINVAL (@p phase is TL_PHASE_NONE), -EBUSY, -ENOMEM.
 */
TL_API int tl_trace_keep_phase(struct tl_trace *tr, int phase);

/** Why a step lies outside the steady state. */
enum tl_steady_why {
	TL_STEADY_WARMUP,  /**< before it, slower or faster than the rest */
	TL_STEADY_CAPTURE, /**< it holds a CUDA graph capture (BeginCapture, GraphInstantiate) */
	TL_STEADY_COMPILE, /**< it holds torch.compile's work (dynamo's convert_frame, inductor) */
	TL_STEADY_WRAPUP,  /**< after it */
	TL_STEADY_OUTLIER, /**< between steady runs */
};

struct tl_steady_out {
	size_t idx;   /**< into tl_step_set.v */
	int why;      /**< enum tl_steady_why */
	double ratio; /**< its wall time over its phase's steady median */
};

/** The steady state: set->v[first..last]. */
struct tl_steady {
	size_t first, last;
	double median_us, cv; /**< wall time over the window: median, std / mean */
	double min_us, max_us, mean_us, std_us; /**< ... its spread (std: sample, NaN for one) */
	size_t nout;
	struct tl_steady_out *out; /**< the steps left out, in order */
};

/**
 * @brief The steady state of @p set (a result of tl_steps() or the steps
 *        tl_trace_keep_steady() finds): the longest run of consecutive steps
 *        whose wall time is within 20 % of the median of their phase's later
 *        half (the later run of two as long), and why each other step is out.
 *        With no step within 20 %, the last step alone.
 * @return 0; -ENODATA (no steps), -ENOMEM. Free with tl_steady_free().
 */
TL_API int tl_steps_steady(struct tl_trace *tr, const struct tl_step_set *set, struct tl_steady **out);
TL_API void tl_steady_free(struct tl_steady *st);
/** "warm-up", "graph capture", "compilation", "wrap-up", "an outlier". */
TL_API const char *tl_steady_why_name(int why);

/**
 * @brief Keep the steady state's steps only, as tl_trace_keep_step() keeps one.
 * @return 0; -ENODATA (no steps), -EBUSY, -ENOMEM.
 */
TL_API int tl_trace_keep_steady(struct tl_trace *tr);

#ifdef __cplusplus
}
#endif

#endif
