/* SPDX-License-Identifier: MIT */
/**
 * @file gpu.h
 * @brief GPU peaks (dense FLOP/s per data type and unit, memory bandwidth)
 * and the roofline of one row: the roof it sits under, its % of roof and
 * whether it is compute- or memory-bound.
 *
 * A built-in table covers the parts named in docs/roofline.md, each number
 * with its vendor source in core/src/perfmodel/gpu_peaks.c. A set (struct
 * tl_gpu_set) is that table plus what spec files (--gpu-spec FILE.json, the
 * format is in docs/roofline.md) add or override; a device is looked up by
 * the name Kineto writes in deviceProperties[i].name, helped by its memory
 * size and SM/CU count where the name alone is ambiguous.
 *
 * Ownership: a set owns its devices; a const struct tl_gpu * from a set
 * lives until tl_gpu_set_free(); from the built-in table (set NULL) it is
 * static. Nothing here keeps a pointer to its arguments.
 */
#ifndef TLREPLAY_GPU_H
#define TLREPLAY_GPU_H

#include <stddef.h>
#include <stdint.h>

#include <tlreplay/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tl_trace;

/** Data types of the peaks (the part after "matrix_" / "vector_" in a
 * TraceLens Compute Spec). */
enum tl_gpu_dtype {
	TL_GPU_FP64 = 0,
	TL_GPU_FP32,
	TL_GPU_TF32,
	TL_GPU_BF16,
	TL_GPU_FP16,
	TL_GPU_FP8,
	TL_GPU_FP6,
	TL_GPU_FP4,
	TL_GPU_INT8,
	TL_GPU_INT4,
	TL_GPU_NDTYPES,
	TL_GPU_DT_UNKNOWN = -1,
};

/** The unit a peak is for: matrix (tensor cores, MFMA) or vector (CUDA cores, SIMD). */
enum tl_gpu_unit {
	TL_GPU_MATRIX = 0,
	TL_GPU_VECTOR = 1,
	TL_GPU_UNIT_UNKNOWN = -1,
};

/** One device's peaks, dense (no 2:4 sparsity), as the device PyTorch sees
 * (one GCD of an MI250X). A peak of 0: the part has no such unit. */
struct tl_gpu {
	char name[64];			/**< the table's name: "H100 SXM", "MI300X" */
	char vendor[16];		/**< "NVIDIA", "AMD", "" when unknown (spec files) */
	double peak[2][TL_GPU_NDTYPES];	/**< FLOP/s (OP/s for ints) by [unit][dtype] */
	double mem_bw;			/**< bytes/s */
	double mem_bytes;		/**< capacity in bytes; 0 when unknown */
	int sms;			/**< SMs / CUs; 0 when unknown */
	const char *source;		/**< where the numbers come from (static or owned by the set) */
};

/** Why and how a roof was chosen (flags of struct tl_gpu_roof). */
enum {
	TL_ROOF_SPEC_UNKNOWN = 1 << 0,	/**< the Compute Spec names no known dtype/unit: no compute roof */
	TL_ROOF_NO_PEAK = 1 << 1,	/**< the part has no peak for it (nor a fallback): no compute roof */
	TL_ROOF_FALLBACK = 1 << 2,	/**< another unit/dtype's peak was used (unit, dtype say which) */
	TL_ROOF_NO_BYTES = 1 << 3,	/**< bytes unknown: no intensity, the roof is the compute peak */
	TL_ROOF_NO_FLOPS = 1 << 4,	/**< FLOPs unknown or 0: judged on bandwidth alone */
};

/** Whether a row sits left (memory) or right (compute) of the ridge point. */
enum tl_gpu_bound {
	TL_BOUND_UNKNOWN = 0,
	TL_BOUND_MEMORY,
	TL_BOUND_COMPUTE,
};

/** The roofline of one row. Rates in FLOP/s and bytes/s; NaN where a value
 * cannot be had (see flags). */
struct tl_gpu_roof {
	double flops_per_s;		/**< achieved: FLOPs / time */
	double bytes_per_s;		/**< achieved: bytes / time */
	double intensity;		/**< FLOPs / bytes (0 for pure data movement) */
	double peak_flops;		/**< the compute roof for the spec (after fallback) */
	double peak_bw;			/**< the device's memory bandwidth */
	double ridge;			/**< peak_flops / peak_bw: FLOPs/byte where the roofs meet */
	double roof;			/**< min(peak_flops, peak_bw * intensity): what the row can reach */
	double pct_of_roof;		/**< 100 * flops_per_s / roof (= bandwidth % when memory-bound) */
	double pct_of_bw;		/**< 100 * bytes_per_s / peak_bw, whatever the bound */
	enum tl_gpu_bound bound;
	enum tl_gpu_unit unit;		/**< the peak actually used */
	enum tl_gpu_dtype dtype;
	unsigned flags;			/**< TL_ROOF_* */
};

struct tl_gpu_set;

/**
 * @brief A new set holding the built-in table.
 * @return 0 or -ENOMEM. Free with tl_gpu_set_free().
 */
TL_API int tl_gpu_set_new(struct tl_gpu_set **out);

/**
 * @brief Add the devices of spec file @p path to @p set (--gpu-spec): a
 * device named like one already in the set (case and punctuation ignored)
 * overrides the numbers it gives and keeps the others; a new one is added
 * and is tried first when looking up. All or nothing: on error @p set is
 * unchanged.
 * @return 0; -errno of reading the file; -EINVAL for a bad file, with
 * tl_last_error() one line naming the file and the field
 * ("gpu.json: devices[0].peak_tflops.matrix_bf16: expected a number >= 0").
 */
TL_API int tl_gpu_set_load(struct tl_gpu_set *set, const char *path);

/** @brief The same from a string (@p what names it in errors). */
TL_API int tl_gpu_set_load_json(struct tl_gpu_set *set, const char *what, const char *json, size_t len);

/** @return the number of devices in @p set (NULL: the built-in table). */
TL_API size_t tl_gpu_set_count(const struct tl_gpu_set *set);
/** @return device @p i of @p set (NULL: the built-in table), NULL when out of range. */
TL_API const struct tl_gpu *tl_gpu_set_at(const struct tl_gpu_set *set, size_t i);

/**
 * @brief The device of @p set (NULL: the built-in table) for a
 * deviceProperties name ("NVIDIA H100 80GB HBM3", "AMD Instinct MI300X").
 * @p mem_bytes (totalGlobalMem) and @p sms (numSms) tell variants apart
 * (H100 SXM / PCIe / NVL, A100 40 / 80 GB, MI250X / MI250); 0 when unknown.
 * An empty name is matched on memory, SM count and @p cc_major.@p cc_minor
 * (computeMajor/Minor) alone, when exactly one device fits.
 * @return the device; NULL with errno ENOENT (and tl_last_error()) when none fits.
 */
TL_API const struct tl_gpu *tl_gpu_find(const struct tl_gpu_set *set, const char *name, uint64_t mem_bytes,
					int sms, int cc_major, int cc_minor);

/**
 * @brief The device of trace @p tr: deviceProperties[@p index] of
 * tl_trace_metadata() (index -1: the first entry) looked up in @p set.
 * @return the device; NULL with errno ENOENT (no deviceProperties, no such
 * entry, or no device fits; tl_last_error() says which).
 */
TL_API const struct tl_gpu *tl_gpu_of_trace(const struct tl_gpu_set *set, const struct tl_trace *tr, int index);

/** @brief Release @p set (NULL is fine). */
TL_API void tl_gpu_set_free(struct tl_gpu_set *set);

/**
 * @brief Split a Compute Spec ("matrix_bf16", "vector_fp32"; TraceLens's
 * dtype spellings "bfloat16", "float", "half", "double" accepted) into unit
 * and dtype.
 * @return 0, or -EINVAL (unit and dtype then UNKNOWN) for a spec the table
 * has no type for ("vector_norm").
 */
TL_API int tl_gpu_parse_spec(const char *spec, enum tl_gpu_unit *unit, enum tl_gpu_dtype *dtype);

/** @return "fp64", "bf16", ... (static); "?" for an unknown dtype. */
TL_API const char *tl_gpu_dtype_name(enum tl_gpu_dtype dt);

/**
 * @brief The peak FLOP/s @p gpu offers for @p unit / @p dtype, falling back
 * when it has none (docs/roofline.md, "Compute Spec"): a matrix type the
 * part lacks to the next wider matrix type (fp4 -> fp6 -> fp8 -> fp16,
 * int4 -> int8 -> fp16, tf32 -> fp32), a matrix fp32/fp64 without a matrix
 * unit to the vector one, a vector type without its own vector peak to
 * vector fp32 (PyTorch's elementwise kernels compute narrow types in fp32).
 * @p used_unit / @p used_dtype (may be NULL) receive what was used.
 * @return FLOP/s, or 0 when nothing fits.
 */
TL_API double tl_gpu_peak(const struct tl_gpu *gpu, enum tl_gpu_unit unit, enum tl_gpu_dtype dtype,
			  enum tl_gpu_unit *used_unit, enum tl_gpu_dtype *used_dtype);

/**
 * @brief The roofline of one row: @p flops and @p bytes of one call (NaN:
 * unknown), @p time_us its kernel time per call, @p spec its Compute Spec
 * (NULL or "": no compute roof). See struct tl_gpu_roof and docs/roofline.md.
 * @return 0 (values that cannot be had are NaN, flags say why), or -EINVAL
 * when @p gpu or @p out is NULL or @p time_us is not > 0.
 */
TL_API int tl_gpu_roof(const struct tl_gpu *gpu, const char *spec, double flops, double bytes, double time_us,
		       struct tl_gpu_roof *out);

/** @return "memory-bound", "compute-bound" or "" (static). */
TL_API const char *tl_gpu_bound_name(enum tl_gpu_bound b);

#ifdef __cplusplus
}
#endif

#endif
