/* SPDX-License-Identifier: MIT */
/**
 * @file tlreplay_gpu.h
 * @brief libtlreplay_gpu.so: NVIDIA GPU metrics (Nsight Compute's names)
 *        over a region that the caller runs once per pass, through CUPTI.
 *
 * The replay worker (core/replay/tlreplay_worker.py) loads this library with
 * ctypes, in the process that owns the CUDA context. Nothing CUDA is linked:
 * libcupti, libnvperf_host (old CUPTI only) and libcuda are dlopen()ed by
 * tlg_open(), so the library loads everywhere and fails there, with a
 * message, where they are missing.
 *
 * Use:
 *
 *     struct tlg *g;
 *     if (tlg_open(0, names, n, &g)) -> tlg_error() says why
 *     for (pass = 0; ; pass++) {
 *         restore what the region writes (its inputs), synchronize
 *         tlg_begin_pass(g, pass);
 *         run the region (the op, once) on the device's primary context
 *         if (tlg_end_pass(g, pass) == 1) break;   // all passes submitted
 *     }
 *     tlg_values(g, values);    // one double per name, NaN where unsupported
 *     tlg_close(g);
 *
 * Values are per kernel, as ncu counts: each kernel the region launches is a
 * range (CUPTI's auto range, at most 512 a pass), and a metric's value folds
 * them: summed for a .sum metric, the largest for .max, the smallest for
 * .min, else weighted by each kernel's gpu__time_duration.sum (counted for
 * that when not asked for).
 *
 * CUPTI API: with a CUPTI that has the Range Profiler (CUDA 12.6 and newer)
 * a range per kernel in user-replay mode (cuptiRangeProfiler*, metrics planned and
 * evaluated by the Profiler Host API, cuptiProfilerHost*); with an older
 * CUPTI (CUDA 11.4 to 12.5) the Profiling API (cuptiProfilerBeginSession,
 * SetConfig, BeginPass/EndPass, Enable/DisableProfiling) with the metrics
 * planned and evaluated by NVPW (libnvperf_host). The choice is made at run
 * time from the symbols of the loaded libcupti; $TLREPLAY_CUPTI_API=legacy
 * or =range forces one.
 *
 * Which libcupti: $TLREPLAY_CUPTI_LIB (that file only); else one already
 * loaded in the process (torch's, when it has one); else libcupti.so.13,
 * .12, .11.8 ... by the loader's search, then under $CUDA_HOME (default
 * /usr/local/cuda) extras/CUPTI/lib64 and lib64. libnvperf_host.so is taken
 * from the directory of the libcupti that was loaded, then by name.
 *
 * Errors: functions returning int return a value >= 0 or -errno, and the
 * reason is in tlg_error(): -ENOENT (a library is missing, no such device),
 * -EACCES (counters restricted to admin users), -ENOTSUP (a GPU or
 * configuration CUPTI cannot profile: before Volta, MIG, vGPU without
 * profiling ...), -EBUSY (another profiler holds the GPU), -EINVAL (bad
 * arguments or call order), -EIO (any other CUPTI or CUDA failure).
 *
 * Thread-safety: one handle from one thread at a time. Only one handle may
 * count on a device at a time (a CUPTI limit).
 */
#ifndef TLREPLAY_GPU_H
#define TLREPLAY_GPU_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TLG_API __attribute__((visibility("default")))
#else
#define TLG_API
#endif

/** Bumped when a function's meaning changes; the worker checks it. */
#define TLG_ABI_VERSION 1

/** Metric kinds, as CUPTI classifies them. */
enum tlg_kind {
	TLG_KIND_UNKNOWN = -1,
	TLG_KIND_COUNTER = 0,		/**< a count (bytes, instructions, ns ...) */
	TLG_KIND_RATIO = 1,		/**< a ratio of two counters */
	TLG_KIND_THROUGHPUT = 2,	/**< a share of a unit's peak */
};

struct tlg;

/** @return TLG_ABI_VERSION of the loaded library. */
TLG_API int tlg_abi_version(void);

/**
 * @brief The last failure of this thread, one line ("" when none):
 *        static, thread-local, valid until the next failing call.
 */
TLG_API const char *tlg_error(void);

/**
 * @brief Load CUPTI and plan the metrics @p names (Nsight Compute names,
 *        e.g. "dram__bytes_read.sum") on CUDA device @p device (the CUDA
 *        ordinal, as torch numbers devices).
 *
 * The device's primary context (the one torch uses) is retained for the
 * handle's life; the region must run on it. A name CUPTI does not know on
 * this GPU does not fail the open: it is marked (tlg_metric_status(),
 * tlg_metric_why()) and the others are counted. The open fails when none
 * is left.
 *
 * @param out receives the handle; unchanged on failure.
 * @return 0 or -errno (see the file comment).
 */
TLG_API int tlg_open(int device, const char *const *names, int n, struct tlg **out);

/** @return the passes CUPTI planned for the metrics (>= 1), or -EINVAL. */
TLG_API int tlg_num_passes(const struct tlg *g);

/**
 * @return the API in use and where CUPTI came from, e.g.
 *         "range profiler, CUPTI 130001 (/usr/local/cuda/lib64/libcupti.so.13)";
 *         owned by the handle.
 */
TLG_API const char *tlg_backend(const struct tlg *g);

/** @return 0 when metric @p i is counted, else -errno (-ENOENT: unknown name). */
TLG_API int tlg_metric_status(const struct tlg *g, int i);

/** @return why metric @p i is not counted ("" when it is); owned by the handle. */
TLG_API const char *tlg_metric_why(const struct tlg *g, int i);

/**
 * @return the unit of metric @p i as CUPTI names it ("byte", "nsecond", "%",
 *         "" for a plain number); owned by the handle.
 */
TLG_API const char *tlg_metric_unit(const struct tlg *g, int i);

/** @return the tlg_kind of metric @p i. */
TLG_API int tlg_metric_kind(const struct tlg *g, int i);

/**
 * @brief Open pass @p pass (0, 1, ... in order): synchronizes the context,
 *        then starts counting. Everything the context runs until
 *        tlg_end_pass() is counted.
 * @return 0 or -errno.
 */
TLG_API int tlg_begin_pass(struct tlg *g, int pass);

/**
 * @brief Close pass @p pass: synchronizes the context, then stops counting.
 * @return 1 when CUPTI has every pass it needs, 0 when the region must run
 *         again (restore its inputs first), or -errno.
 */
TLG_API int tlg_end_pass(struct tlg *g, int pass);

/**
 * @brief After the last pass: the value of each metric of tlg_open(), in
 *        its order, into @p out (NaN for a metric not counted).
 * @return 0 or -errno (-EINVAL before the last pass).
 */
TLG_API int tlg_values(struct tlg *g, double *out);

/** @brief Stop profiling, release the context, free the handle (NULL is fine). */
TLG_API void tlg_close(struct tlg *g);

#ifdef __cplusplus
}
#endif

#endif
