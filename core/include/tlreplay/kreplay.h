/* SPDX-License-Identifier: MIT */
/**
 * @file kreplay.h
 * @brief Kernel record/replay: the database `tlreplay record` writes and
 *        the replay of one recorded launch in this process (docs/kernel-replay.md).
 *
 * A database is a directory: index.json (the recorded launches), blobs/
 * (module images, argument buffers and memory contents, each named by its
 * SHA-256) and, while a recording runs, launches/ (one JSON file per launch,
 * which tl_kdb_gather() moves into index.json).
 *
 * Replay reaches the CUDA driver with dlopen (libcuda.so.1, or the file in
 * $TLREPLAY_CUDA_LIB): nothing CUDA is linked, and without a driver
 * tl_kreplay_open() fails with a message.
 *
 * Ownership: a struct tl_kdb owns every string and array its launches
 * point to; a struct tl_kreplay borrows its database, which must outlive
 * it. Errors: 0 or -errno, the reason in tl_last_error().
 * Thread-safety: one handle from one thread at a time.
 */
#ifndef TLREPLAY_KREPLAY_H
#define TLREPLAY_KREPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;
struct tl_kdb;
struct tl_kreplay;

/** Version of index.json's format ("v"). */
#define TL_KDB_VERSION 1

/** One device allocation of a recorded launch. */
struct tl_kdb_mem {
	uint64_t base, size;
	const char *kind;		/**< "alloc", "async" or "mapped" */
	const char *before, *after;	/**< blob names (after == before: unchanged) */
};

/** A launch attribute (cuLaunchKernelEx) that replays as recorded. */
struct tl_kdb_attr {
	int id;
	unsigned char value[64];
};

/** One recorded launch, as index.json describes it (read-only). */
struct tl_kdb_launch {
	const char *kernel;		/**< the function's (mangled) name */
	const char *demangled;
	const char *api;		/**< "cuLaunchKernel", "cuLaunchKernelEx", ... */
	unsigned long ordinal;		/**< launches of this kernel before it in its process */
	int pid;
	unsigned grid[3], block[3], shared_bytes;
	int max_dynamic_shared;		/**< the function's attribute when recorded */
	bool non_portable_cluster;	/**< it allowed clusters over 8 blocks (a function attribute) */
	const char *module_blob, *module_kind;
	uint64_t module_size;
	const char *params_blob;
	uint64_t params_size;
	const uint64_t (*layout)[2];	/**< offset, size of each parameter */
	size_t nparams;
	const struct tl_kdb_attr *attrs;
	size_t nattrs;
	const struct tl_kdb_mem *mem;
	size_t nmem;
	/** the recorder's arena, which replay reserves first (0, 0: none; the
	 *  memory was where the driver put it) */
	uint64_t arena_base, arena_size;
	const char *device_name;
	int cc_major, cc_minor, driver;
	const struct cJSON *source;	/**< {"trace": identity, "uid": N, "trace_us": T, "command": [...]} or NULL */
	const struct cJSON *notes;	/**< the recorder's notes on arguments it could not carry (strings), or NULL */
};

/**
 * @brief Open the database in @p dir: index.json, plus launches/ files not
 *        gathered yet (a recording that was killed).
 * @return 0; -ENOENT (no database there), -EINVAL (a malformed index: the
 *         file and the launch are named), -ENOMEM.
 */
TL_API int tl_kdb_open(const char *dir, struct tl_kdb **out);
TL_API void tl_kdb_free(struct tl_kdb *db);
TL_API size_t tl_kdb_count(const struct tl_kdb *db);
TL_API const struct tl_kdb_launch *tl_kdb_launch(const struct tl_kdb *db, size_t i);
/** @return the directory the database was opened from. */
TL_API const char *tl_kdb_dir(const struct tl_kdb *db);

/**
 * @brief Move the launches/ files of @p dir into index.json (written
 *        atomically), adding @p source (borrowed; may be NULL) to each of
 *        them. Launches already in the index stay.
 * @param added the number of launches gathered, or NULL.
 */
TL_API int tl_kdb_gather(const char *dir, const struct cJSON *source, size_t *added);

/** A launch configuration; zeros take the recorded value. */
struct tl_kconfig {
	unsigned grid[3], block[3];
	unsigned shared_bytes;
	bool shared_set;	/**< shared_bytes given (else the recorded value) */
};

/**
 * @brief Make launch @p i of @p db ready to run in this process: load the
 *        driver, make a context on device @p device, reserve every recorded
 *        address range at its address (cuMemAddressReserve), map memory
 *        there, copy the recorded contents in and load the module.
 * @return 0; -ENOENT (no driver, no such device, a blob missing), -EADDRINUSE
 *         (a recorded range cannot be had at its address: the allocation
 *         and the range are named), -EIO (the driver refused: its error is
 *         named), -ENOMEM.
 */
TL_API int tl_kreplay_open(const struct tl_kdb *db, size_t i, int device, struct tl_kreplay **out);
TL_API void tl_kreplay_close(struct tl_kreplay *k);
/** @return the device's name ("NVIDIA H100 80GB HBM3"). */
TL_API const char *tl_kreplay_device(const struct tl_kreplay *k);

/**
 * @brief Whether the kernel can take configuration @p c (threads per block,
 *        shared memory, the device's grid limits).
 * @return 0, or -EINVAL with the reason.
 */
TL_API int tl_kreplay_check(struct tl_kreplay *k, const struct tl_kconfig *c);

/**
 * @brief Launch with @p c, @p warmup untimed then @p reps timed times, each
 *        launch timed alone with CUDA events; the memory the kernel changed
 *        when recorded is restored before every launch (outside the timed
 *        span), and with @p flush_l2 the L2 cache is flushed there too.
 * @param ms @p reps times in milliseconds.
 * @param region when not NULL, called with 1 before the timed launches and
 *        0 after them (to open counters around them only).
 */
TL_API int tl_kreplay_time(struct tl_kreplay *k, const struct tl_kconfig *c, unsigned warmup, unsigned reps,
			   bool flush_l2, double *ms, void (*region)(int begin, void *ctx), void *ctx);

/** Run the region once more for a metric pass (no timing): restore, launch,
 *  synchronise. */
TL_API int tl_kreplay_once(struct tl_kreplay *k, const struct tl_kconfig *c);

/** How floats are compared when bitwise equality fails. */
enum tl_kdtype { TL_KDT_BYTES, TL_KDT_F32, TL_KDT_F16, TL_KDT_BF16, TL_KDT_F64 };

/** One allocation whose contents differ from the recorded outputs. */
struct tl_kdiff {
	uint64_t base, size;
	uint64_t first;		/**< offset of the first differing byte */
	uint64_t bytes;		/**< bytes that differ */
	uint64_t elems;		/**< elements beyond the tolerance (dtype given) */
	double max_abs;		/**< largest |difference| (dtype given) */
};

struct tl_kverify {
	size_t ndiffs;
	struct tl_kdiff *diffs;	/**< owned; tl_kverify_clear() frees */
	uint64_t compared;	/**< bytes compared */
};

/**
 * @brief Restore the inputs, launch once with @p c, and compare every
 *        recorded allocation with its recorded output: bitwise, or with
 *        @p dtype elements within @p tol (|a-b| <= tol + tol*|b|).
 * @return 0 (then @p out->ndiffs says whether it matched), or -errno.
 */
TL_API int tl_kreplay_verify(struct tl_kreplay *k, const struct tl_kconfig *c, enum tl_kdtype dtype, double tol,
			     struct tl_kverify *out);
TL_API void tl_kverify_clear(struct tl_kverify *v);

#ifdef __cplusplus
}
#endif

#endif
