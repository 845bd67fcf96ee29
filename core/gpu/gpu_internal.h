/* SPDX-License-Identifier: MIT */
/* Internals of libtlreplay_gpu.so: the dlopen()ed entry points of libcuda,
 * libcupti and libnvperf_host, the handle, and the two backends (the Range
 * Profiler and the legacy Profiling API). Nothing here is exported. */
#ifndef TLG_GPU_INTERNAL_H
#define TLG_GPU_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda.h>
#include <cupti_profiler_target.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <nvperf_cuda_host.h>
#include <nvperf_host.h>
#include <nvperf_target.h>

#include "cupti_abi.h"
#include "tlreplay_gpu.h"

#if defined(__GNUC__)
#define TLG_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TLG_PRINTF(a, b)
#endif

/* The message CUPTI's and NVPW's "insufficient privileges" become. */
#define TLG_PERM_MSG                                                                   \
	"GPU performance counters are restricted to admin users "                      \
	"(NVreg_RestrictProfilingToAdminUsers=1; see /proc/driver/nvidia/params)"

/* Record this thread's last error and return @err (a -errno value) (gpu_error.c). */
int tlg_fail(int err, const char *fmt, ...) TLG_PRINTF(2, 3);

/* ------------------------------------------------------------ libcuda */

struct tlg_cuda {
	CUresult (*init)(unsigned int flags);
	CUresult (*device_get)(CUdevice *dev, int ordinal);
	CUresult (*device_count)(int *n);
	CUresult (*device_name)(char *name, int len, CUdevice dev);
	CUresult (*primary_retain)(CUcontext *ctx, CUdevice dev);
	CUresult (*primary_release)(CUdevice dev);
	CUresult (*ctx_push)(CUcontext ctx);
	CUresult (*ctx_pop)(CUcontext *ctx);
	CUresult (*ctx_sync)(void);
	CUresult (*error_string)(CUresult r, const char **s);
};

/* ------------------------------------------------------------ libcupti */

/* typed entry points: a mismatch with the parameter blocks is a compile error */
#define TLG_FN(name, params) CUptiResult (*name)(params *p)

struct tlg_cupti {
	char path[4096];
	uint32_t version;
	CUptiResult (*get_version)(uint32_t *v);
	CUptiResult (*result_string)(CUptiResult r, const char **s);
	CUptiResult (*error_message)(CUptiResult r, const char **s);	/* newer CUPTI only */
	/* shared by both backends */
	TLG_FN(profiler_init, CUpti_Profiler_Initialize_Params);
	TLG_FN(profiler_deinit, CUpti_Profiler_DeInitialize_Params);
	TLG_FN(chip_name, CUpti_Device_GetChipName_Params);
	TLG_FN(counter_availability, CUpti_Profiler_GetCounterAvailability_Params);
	/* Range Profiler + Profiler Host (CUDA 12.6+) */
	bool has_range;
	TLG_FN(rp_enable, struct tlg_rp_enable);
	TLG_FN(rp_disable, struct tlg_rp_object_only);
	TLG_FN(rp_set_config, struct tlg_rp_set_config);
	TLG_FN(rp_start, struct tlg_rp_object_only);
	TLG_FN(rp_stop, struct tlg_rp_stop);
	TLG_FN(rp_push, struct tlg_rp_push_range);
	TLG_FN(rp_pop, struct tlg_rp_object_only);
	TLG_FN(rp_decode, struct tlg_rp_decode);
	TLG_FN(rp_data_size, struct tlg_rp_counter_data_size);
	TLG_FN(rp_data_init, struct tlg_rp_counter_data_init);
	TLG_FN(rp_data_info, struct tlg_rp_counter_data_info);
	TLG_FN(host_init, struct tlg_host_init);
	TLG_FN(host_deinit, struct tlg_host_deinit);
	TLG_FN(host_props, struct tlg_host_metric_props);
	TLG_FN(host_add, struct tlg_host_add_metrics);
	TLG_FN(host_config_size, struct tlg_host_config_size);
	TLG_FN(host_config_image, struct tlg_host_config_image);
	TLG_FN(host_passes, struct tlg_host_num_passes);
	TLG_FN(host_evaluate, struct tlg_host_evaluate);
	/* the legacy Profiling API */
	bool has_legacy;
	TLG_FN(image_size, CUpti_Profiler_CounterDataImage_CalculateSize_Params);
	TLG_FN(image_init, CUpti_Profiler_CounterDataImage_Initialize_Params);
	TLG_FN(scratch_size, CUpti_Profiler_CounterDataImage_CalculateScratchBufferSize_Params);
	TLG_FN(scratch_init, CUpti_Profiler_CounterDataImage_InitializeScratchBuffer_Params);
	TLG_FN(begin_session, CUpti_Profiler_BeginSession_Params);
	TLG_FN(end_session, CUpti_Profiler_EndSession_Params);
	TLG_FN(set_config, CUpti_Profiler_SetConfig_Params);
	TLG_FN(unset_config, CUpti_Profiler_UnsetConfig_Params);
	TLG_FN(begin_pass, CUpti_Profiler_BeginPass_Params);
	TLG_FN(end_pass, CUpti_Profiler_EndPass_Params);
	TLG_FN(enable, CUpti_Profiler_EnableProfiling_Params);
	TLG_FN(disable, CUpti_Profiler_DisableProfiling_Params);
	TLG_FN(push_range, CUpti_Profiler_PushRange_Params);
	TLG_FN(pop_range, CUpti_Profiler_PopRange_Params);
	TLG_FN(flush, CUpti_Profiler_FlushCounterData_Params);
};

/* ------------------------------------------------------------ libnvperf_host */

#define TLG_NVPW(name, params) NVPA_Status (*name)(params *p)

struct tlg_nvpw {
	char path[4096];
	TLG_NVPW(init_host, NVPW_InitializeHost_Params);
	TLG_NVPW(eval_scratch_size, NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params);
	TLG_NVPW(eval_init, NVPW_CUDA_MetricsEvaluator_Initialize_Params);
	TLG_NVPW(eval_destroy, NVPW_MetricsEvaluator_Destroy_Params);
	TLG_NVPW(eval_request, NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params);
	TLG_NVPW(eval_raw_deps, NVPW_MetricsEvaluator_GetMetricRawDependencies_Params);
	TLG_NVPW(eval_dim_units, NVPW_MetricsEvaluator_GetMetricDimUnits_Params);
	TLG_NVPW(eval_dim_unit_string, NVPW_MetricsEvaluator_DimUnitToString_Params);
	TLG_NVPW(eval_set_device, NVPW_MetricsEvaluator_SetDeviceAttributes_Params);
	TLG_NVPW(eval_values, NVPW_MetricsEvaluator_EvaluateToGpuValues_Params);
	TLG_NVPW(num_ranges, NVPW_CounterData_GetNumRanges_Params);
	TLG_NVPW(config_create, NVPW_CUDA_RawMetricsConfig_Create_V2_Params);
	TLG_NVPW(config_destroy, NVPW_RawMetricsConfig_Destroy_Params);
	TLG_NVPW(config_availability, NVPW_RawMetricsConfig_SetCounterAvailability_Params);
	TLG_NVPW(config_begin_group, NVPW_RawMetricsConfig_BeginPassGroup_Params);
	TLG_NVPW(config_add, NVPW_RawMetricsConfig_AddMetrics_Params);
	TLG_NVPW(config_end_group, NVPW_RawMetricsConfig_EndPassGroup_Params);
	TLG_NVPW(config_generate, NVPW_RawMetricsConfig_GenerateConfigImage_Params);
	TLG_NVPW(config_image, NVPW_RawMetricsConfig_GetConfigImage_Params);
	TLG_NVPW(config_passes, NVPW_RawMetricsConfig_GetNumPasses_V2_Params);
	TLG_NVPW(builder_create, NVPW_CUDA_CounterDataBuilder_Create_Params);
	TLG_NVPW(builder_destroy, NVPW_CounterDataBuilder_Destroy_Params);
	TLG_NVPW(builder_add, NVPW_CounterDataBuilder_AddMetrics_Params);
	TLG_NVPW(builder_prefix, NVPW_CounterDataBuilder_GetCounterDataPrefix_Params);
};

/* Loaded once each and kept for the life of the process (CUPTI hooks into
 * the driver); a failed load caches nothing. Return 0 or -errno. */
int tlg_load_cupti(const struct tlg_cupti **out);
int tlg_load_nvpw(const struct tlg_cupti *cupti, const struct tlg_nvpw **out);
int tlg_load_cuda(const struct tlg_cuda **out);

/* -errno and message for a failed CUPTI / NVPW / CUDA call named @what (gpu_error.c). */
int tlg_cupti_fail(const struct tlg_cupti *c, const char *what, CUptiResult r);
int tlg_nvpw_fail(const char *what, NVPA_Status s);
int tlg_cuda_fail(const struct tlg_cuda *cu, const char *what, CUresult r);

/* ------------------------------------------------------------ the handle */

struct tlg_metric {
	char *name;
	int status;		/* 0 or -errno */
	int kind;		/* enum tlg_kind */
	char unit[64];
	char why[320];
	double value;
};

enum tlg_state { TLG_READY, TLG_IN_PASS, TLG_SUBMITTED, TLG_DECODED, TLG_BROKEN };

struct tlg {
	const struct tlg_cuda *cu;
	const struct tlg_cupti *cupti;
	const struct tlg_nvpw *nvpw;		/* legacy backend only */
	const struct tlg_backend *be;
	int device;
	CUdevice dev;
	CUcontext ctx;				/* the retained primary context */
	bool ctx_retained, profiler_inited;
	char chip[64];
	char backend[4200];
	uint8_t *avail;				/* counter availability image */
	size_t avail_size;

	/* m[0, n_user) are the caller's metrics; m[n_user, n) the one
	 * counted to weigh the kernels (gpu__time_duration.sum) when the
	 * caller did not ask for it */
	int n, n_user;
	struct tlg_metric *m;
	int weight;				/* index in m of gpu__time_duration.sum, -1 */
	const char **active;			/* names of the counted metrics */
	int *active_idx;			/* their index in m */
	int n_active;

	/* each kernel is a range (CUPTI's auto range): the metrics over the
	 * ranges, per active metric (gpu_metrics.c) */
	double *agg_sum, *agg_wsum, *agg_max, *agg_min;
	double agg_w; /* the weights' sum */
	size_t agg_ranges;

	uint8_t *config;
	size_t config_size;
	uint8_t *data;				/* counter data image */
	size_t data_size;
	size_t passes;				/* planned */
	int pass;				/* passes run */
	enum tlg_state state;
	void *priv;				/* the backend's own state */
};

struct tlg_backend {
	const char *name;
	/* plan g->m (unit, kind, status) and g->active, make the images,
	 * start the session: 0 or -errno */
	int (*open)(struct tlg *g);
	int (*begin_pass)(struct tlg *g);
	/* 1 when all passes are submitted, 0 when another is needed */
	int (*end_pass)(struct tlg *g);
	/* decode and evaluate into g->m[].value */
	int (*evaluate)(struct tlg *g);
	void (*close)(struct tlg *g);
};

extern const struct tlg_backend tlg_range_backend;
extern const struct tlg_backend tlg_legacy_backend;

/* gpu_metrics.c: mark metric @i as not counted (first reason wins). */
void tlg_metric_unsupported(struct tlg *g, int i, int err, const char *fmt, ...) TLG_PRINTF(4, 5);
/* Collect the counted metrics into g->active / g->active_idx. */
int tlg_collect_active(struct tlg *g);

/* What weighs each kernel's ratios and rates in an op's value. */
#define WEIGHT_METRIC "gpu__time_duration.sum"

/* The most kernels one pass may launch: each is a range of CUPTI's auto
 * range mode, and the counter data image holds this many. */
#define TLG_MAX_RANGES 512
/* gpu_metrics.c: the values of one range (one kernel), @v[k] for active
 * metric k, into the aggregate; then, once every range is in, each active
 * metric's value as ncu gives an op's: summed over its kernels for a .sum
 * counter, the largest for .max, the smallest for .min, else the mean
 * weighted by each kernel's time (gpu__time_duration.sum). */
void tlg_agg_reset(struct tlg *g);
void tlg_agg_range(struct tlg *g, const double *v);
void tlg_agg_finish(struct tlg *g);

#endif
