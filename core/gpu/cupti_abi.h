/* SPDX-License-Identifier: MIT */
/* The parameter blocks of CUPTI's Range Profiler API (cupti_range_profiler.h,
 * CUDA 12.6+) and Profiler Host API (cupti_profiler_host.h), declared here
 * for two reasons: cupti_profiler_host.h is C++ only (it includes <string>),
 * and a build against an older toolkit must still drive a newer libcupti
 * that torch brings along. Each block starts with its size: CUPTI reads no
 * field past structSize, and later CUPTI versions only append fields, so
 * these prefixes stay valid. gpu_range.c checks them against
 * cupti_range_profiler.h when that header is present; the Host blocks were
 * checked against CUDA 13.0's header with a C++ compiler. */
#ifndef TLG_CUPTI_ABI_H
#define TLG_CUPTI_ABI_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>
#include <cupti_profiler_target.h>

/* the size CUPTI expects: up to the end of the last field we know */
#define TLG_SIZE(type, last) (offsetof(type, last) + sizeof(((type *)0)->last))

/* ------------------------------------------------------------ Range Profiler */

struct tlg_rp_object;

struct tlg_rp_enable {
	size_t structSize;
	void *pPriv;
	CUcontext ctx;
	struct tlg_rp_object *pRangeProfilerObject;	/* out */
};

/* Disable, Start and PopRange take just the object. */
struct tlg_rp_object_only {
	size_t structSize;
	void *pPriv;
	struct tlg_rp_object *pRangeProfilerObject;
};

struct tlg_rp_set_config {
	size_t structSize;
	void *pPriv;
	struct tlg_rp_object *pRangeProfilerObject;
	size_t configSize;
	const uint8_t *pConfig;
	size_t counterDataImageSize;
	uint8_t *pCounterDataImage;
	CUpti_ProfilerRange range;
	CUpti_ProfilerReplayMode replayMode;
	size_t maxRangesPerPass;
	uint16_t numNestingLevels;
	uint16_t minNestingLevel;
	size_t passIndex;
	uint16_t targetNestingLevel;
};

struct tlg_rp_stop {
	size_t structSize;
	void *pPriv;
	struct tlg_rp_object *pRangeProfilerObject;
	size_t passIndex;		/* out */
	size_t targetNestingLevel;	/* out */
	uint8_t isAllPassSubmitted;	/* out */
};

struct tlg_rp_push_range {
	size_t structSize;
	void *pPriv;
	struct tlg_rp_object *pRangeProfilerObject;
	const char *pRangeName;
};

struct tlg_rp_decode {
	size_t structSize;
	void *pPriv;
	struct tlg_rp_object *pRangeProfilerObject;
	size_t numOfRangeDropped;	/* out */
};

struct tlg_rp_counter_data_size {
	size_t structSize;
	void *pPriv;
	struct tlg_rp_object *pRangeProfilerObject;
	const char **pMetricNames;
	size_t numMetrics;
	size_t maxNumOfRanges;
	uint32_t maxNumRangeTreeNodes;
	size_t counterDataSize;		/* out */
};

struct tlg_rp_counter_data_init {
	size_t structSize;
	void *pPriv;
	struct tlg_rp_object *pRangeProfilerObject;
	size_t counterDataSize;
	uint8_t *pCounterData;
};

struct tlg_rp_counter_data_info {
	size_t structSize;
	void *pPriv;
	const uint8_t *pCounterDataImage;
	size_t counterDataImageSize;
	size_t numTotalRanges;		/* out */
};

/* ------------------------------------------------------------ Profiler Host */

enum tlg_host_profiler_type {
	TLG_HOST_RANGE_PROFILER = 0,	/* CUPTI_PROFILER_TYPE_RANGE_PROFILER */
};

enum tlg_host_metric_type {		/* CUpti_MetricType */
	TLG_HOST_COUNTER = 0,
	TLG_HOST_RATIO = 1,
	TLG_HOST_THROUGHPUT = 2,
};

struct tlg_host_object;

struct tlg_host_init {
	size_t structSize;
	void *pPriv;
	int profilerType;			/* enum tlg_host_profiler_type */
	const char *pChipName;
	const uint8_t *pCounterAvailabilityImage;
	struct tlg_host_object *pHostObject;	/* out */
};

struct tlg_host_deinit {
	size_t structSize;
	void *pPriv;
	struct tlg_host_object *pHostObject;
};

struct tlg_host_metric_props {
	size_t structSize;
	void *pPriv;
	struct tlg_host_object *pHostObject;
	const char *pMetricName;
	const char *pDescription;	/* out */
	const char *pHwUnit;		/* out */
	const char *pDimUnit;		/* out */
	int metricType;			/* out: enum tlg_host_metric_type */
};

struct tlg_host_add_metrics {
	size_t structSize;
	void *pPriv;
	struct tlg_host_object *pHostObject;
	const char **ppMetricNames;
	size_t numMetrics;
};

struct tlg_host_config_size {
	size_t structSize;
	void *pPriv;
	struct tlg_host_object *pHostObject;
	size_t configImageSize;		/* out */
};

struct tlg_host_config_image {
	size_t structSize;
	void *pPriv;
	struct tlg_host_object *pHostObject;
	size_t configImageSize;
	uint8_t *pConfigImage;
};

struct tlg_host_num_passes {
	size_t structSize;
	void *pPriv;
	size_t configImageSize;
	uint8_t *pConfigImage;
	size_t numOfPasses;		/* out */
};

struct tlg_host_evaluate {
	size_t structSize;
	void *pPriv;
	struct tlg_host_object *pHostObject;
	const uint8_t *pCounterDataImage;
	size_t counterDataImageSize;
	size_t rangeIndex;
	const char **ppMetricNames;
	size_t numMetrics;
	double *pMetricValues;		/* out: numMetrics values */
};

#endif
