/* SPDX-License-Identifier: MIT */
/* A stand-in for libcupti with the Range Profiler and Profiler Host APIs,
 * built as a shared object for test_gpu and the worker's GPU-metric tests
 * ($TLREPLAY_CUPTI_LIB points at it). It checks what a real CUPTI would
 * refuse or what would be a bug on our side (structure sizes, call order,
 * the mode of the session: a range per kernel, user replay) and answers as
 * if each pass had launched $FAKE_CUPTI_KERNELS kernels (default 1), kernel
 * i (from 0) with these values:
 *
 *   gpu__time_duration.sum                            1234.5 (i+1) nsecond (counter)
 *   dram__bytes_read.sum                              4096 (i+1)   byte    (counter)
 *   smsp__inst_executed.sum                           1e6 (i+1)    inst    (counter)
 *   sm__throughput.avg.pct_of_peak_sustained_elapsed  42.5 + 10 i  %       (throughput)
 *   any other name: CUPTI_ERROR_INVALID_METRIC_NAME
 *
 * (past the ranges SetConfig allows, the rest are dropped), over
 * $FAKE_CUPTI_PASSES passes (default 3). $FAKE_CUPTI_MODE picks a
 * failure: "noperm" (counter availability: insufficient privileges), "busy"
 * (cuptiRangeProfilerEnable: hardware busy). The fake_cupti_* functions let
 * the tests see what happened. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti_target.h>

#include "cupti_abi.h"

#define F_OK_ 0
#define F_INVALID_PARAMETER 1
#define F_INVALID_OPERATION 7
#define F_INVALID_METRIC_NAME 17
#define F_HARDWARE_BUSY 26
#define F_INSUFFICIENT_PRIVILEGES 35

static const struct {
	const char *name, *unit;
	int type;
	double value;
} metrics[] = {
	{ "gpu__time_duration.sum", "nsecond", TLG_HOST_COUNTER, 1234.5 },
	{ "dram__bytes_read.sum", "byte", TLG_HOST_COUNTER, 4096 },
	{ "smsp__inst_executed.sum", "inst", TLG_HOST_COUNTER, 1e6 },
	{ "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", TLG_HOST_THROUGHPUT, 42.5 },
};
#define N_METRICS (sizeof(metrics) / sizeof(metrics[0]))

static struct {
	int inited;		/* cuptiProfilerInitialize minus DeInitialize */
	int hosts;		/* live host objects */
	int enabled;		/* live range profiler objects */
	int configured, started, pushed, decoded;
	size_t passes, pass;	/* planned, run */
	size_t max_ranges;	/* SetConfig's maxRangesPerPass */
	size_t n_added;
	const char *added[16];
	char why[256];
} f;

static struct tlg_host_object *const HOST = (struct tlg_host_object *)&f.hosts;
static struct tlg_rp_object *const OBJ = (struct tlg_rp_object *)&f.enabled;

static CUptiResult bad(const char *why)
{
	snprintf(f.why, sizeof(f.why), "%s", why);
	return (CUptiResult)F_INVALID_OPERATION;
}

static int mode_is(const char *m)
{
	const char *s = getenv("FAKE_CUPTI_MODE");

	return s && !strcmp(s, m);
}

/* The kernels each pass launched ($FAKE_CUPTI_KERNELS). */
static size_t kernels(void)
{
	const char *s = getenv("FAKE_CUPTI_KERNELS");
	int n = s ? atoi(s) : 1;

	return n > 0 ? (size_t)n : 1;
}

/* Kernel @r's value of metric @m. */
static double value_of(int m, size_t r)
{
	if (metrics[m].type == TLG_HOST_THROUGHPUT)
		return metrics[m].value + 10.0 * (double)r;
	return metrics[m].value * (double)(r + 1);
}

static int find(const char *name)
{
	size_t i;

	for (i = 0; name && i < N_METRICS; i++) {
		if (!strcmp(metrics[i].name, name))
			return (int)i;
	}
	return -1;
}

#define CHECK_SIZE(p, type, last)                                                               \
	do {                                                                                    \
		if (!(p) || (p)->structSize != TLG_SIZE(type, last))                            \
			return bad(#type ": wrong structSize");                                 \
	} while (0)

/* ------------------------------------------------------------ general */

CUptiResult cuptiGetResultString(CUptiResult r, const char **s);
CUptiResult cuptiGetVersion(uint32_t *v);
CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p);
CUptiResult cuptiProfilerDeInitialize(CUpti_Profiler_DeInitialize_Params *p);
CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p);
CUptiResult cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params *p);

CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
	switch ((int)r) {
	case F_OK_: *s = "CUPTI_SUCCESS"; break;
	case F_INVALID_OPERATION: *s = "CUPTI_ERROR_INVALID_OPERATION"; break;
	case F_INVALID_METRIC_NAME: *s = "CUPTI_ERROR_INVALID_METRIC_NAME"; break;
	case F_HARDWARE_BUSY: *s = "CUPTI_ERROR_HARDWARE_BUSY"; break;
	case F_INSUFFICIENT_PRIVILEGES: *s = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"; break;
	default: *s = "CUPTI_ERROR_UNKNOWN"; break;
	}
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiGetVersion(uint32_t *v)
{
	*v = 990001;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p)
{
	CHECK_SIZE(p, CUpti_Profiler_Initialize_Params, pPriv);
	f.inited++;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiProfilerDeInitialize(CUpti_Profiler_DeInitialize_Params *p)
{
	CHECK_SIZE(p, CUpti_Profiler_DeInitialize_Params, pPriv);
	f.inited--;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p)
{
	CHECK_SIZE(p, CUpti_Device_GetChipName_Params, pChipName);
	if (!f.inited)
		return bad("chip name before cuptiProfilerInitialize");
	p->pChipName = "FAKE100";
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params *p)
{
	CHECK_SIZE(p, CUpti_Profiler_GetCounterAvailability_Params, pCounterAvailabilityImage);
	if (!p->ctx)
		return bad("counter availability without a context");
	if (f.enabled)
		return bad("counter availability during a session");
	if (mode_is("noperm"))
		return (CUptiResult)F_INSUFFICIENT_PRIVILEGES;
	if (p->pCounterAvailabilityImage)
		memset(p->pCounterAvailabilityImage, 0xab, p->counterAvailabilityImageSize);
	p->counterAvailabilityImageSize = 16;
	return (CUptiResult)F_OK_;
}

/* ------------------------------------------------------------ Profiler Host */

CUptiResult cuptiProfilerHostInitialize(struct tlg_host_init *p);
CUptiResult cuptiProfilerHostDeinitialize(struct tlg_host_deinit *p);
CUptiResult cuptiProfilerHostGetMetricProperties(struct tlg_host_metric_props *p);
CUptiResult cuptiProfilerHostConfigAddMetrics(struct tlg_host_add_metrics *p);
CUptiResult cuptiProfilerHostGetConfigImageSize(struct tlg_host_config_size *p);
CUptiResult cuptiProfilerHostGetConfigImage(struct tlg_host_config_image *p);
CUptiResult cuptiProfilerHostGetNumOfPasses(struct tlg_host_num_passes *p);
CUptiResult cuptiProfilerHostEvaluateToGpuValues(struct tlg_host_evaluate *p);

CUptiResult cuptiProfilerHostInitialize(struct tlg_host_init *p)
{
	CHECK_SIZE(p, struct tlg_host_init, pHostObject);
	if (p->profilerType != TLG_HOST_RANGE_PROFILER || !p->pChipName ||
	    strcmp(p->pChipName, "FAKE100"))
		return (CUptiResult)F_INVALID_PARAMETER;
	if (!p->pCounterAvailabilityImage || p->pCounterAvailabilityImage[0] != 0xab)
		return bad("host initialized without the availability image");
	f.hosts++;
	p->pHostObject = HOST;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiProfilerHostDeinitialize(struct tlg_host_deinit *p)
{
	CHECK_SIZE(p, struct tlg_host_deinit, pHostObject);
	if (p->pHostObject != HOST || !f.hosts)
		return (CUptiResult)F_INVALID_PARAMETER;
	f.hosts--;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiProfilerHostGetMetricProperties(struct tlg_host_metric_props *p)
{
	int i;

	CHECK_SIZE(p, struct tlg_host_metric_props, metricType);
	if (p->pHostObject != HOST)
		return (CUptiResult)F_INVALID_PARAMETER;
	i = find(p->pMetricName);
	if (i < 0)
		return (CUptiResult)F_INVALID_METRIC_NAME;
	p->pDescription = "a fake metric";
	p->pHwUnit = "fake";
	p->pDimUnit = metrics[i].unit;
	p->metricType = metrics[i].type;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiProfilerHostConfigAddMetrics(struct tlg_host_add_metrics *p)
{
	size_t i;

	CHECK_SIZE(p, struct tlg_host_add_metrics, numMetrics);
	if (p->pHostObject != HOST || !p->numMetrics || p->numMetrics > 16)
		return (CUptiResult)F_INVALID_PARAMETER;
	for (i = 0; i < p->numMetrics; i++) {
		if (find(p->ppMetricNames[i]) < 0)
			return (CUptiResult)F_INVALID_METRIC_NAME;
		f.added[i] = metrics[find(p->ppMetricNames[i])].name;
	}
	f.n_added = p->numMetrics;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiProfilerHostGetConfigImageSize(struct tlg_host_config_size *p)
{
	CHECK_SIZE(p, struct tlg_host_config_size, configImageSize);
	if (!f.n_added)
		return bad("config image size before adding metrics");
	p->configImageSize = 64;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiProfilerHostGetConfigImage(struct tlg_host_config_image *p)
{
	CHECK_SIZE(p, struct tlg_host_config_image, pConfigImage);
	if (p->configImageSize != 64 || !p->pConfigImage)
		return (CUptiResult)F_INVALID_PARAMETER;
	memset(p->pConfigImage, 0xc0, 64);
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiProfilerHostGetNumOfPasses(struct tlg_host_num_passes *p)
{
	const char *s = getenv("FAKE_CUPTI_PASSES");

	CHECK_SIZE(p, struct tlg_host_num_passes, numOfPasses);
	if (p->configImageSize != 64 || !p->pConfigImage || p->pConfigImage[0] != 0xc0)
		return (CUptiResult)F_INVALID_PARAMETER;
	f.passes = s ? (size_t)atoi(s) : 3;
	if (f.passes < 1)
		f.passes = 1;
	p->numOfPasses = f.passes;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiProfilerHostEvaluateToGpuValues(struct tlg_host_evaluate *p)
{
	size_t i;

	CHECK_SIZE(p, struct tlg_host_evaluate, pMetricValues);
	if (!f.decoded)
		return bad("evaluation before decoding");
	if (p->pHostObject != HOST || p->rangeIndex >= kernels() || p->rangeIndex >= f.max_ranges ||
	    p->numMetrics != f.n_added || !p->pCounterDataImage || p->counterDataImageSize != 128)
		return (CUptiResult)F_INVALID_PARAMETER;
	for (i = 0; i < p->numMetrics; i++) {
		int m = find(p->ppMetricNames[i]);

		if (m < 0)
			return (CUptiResult)F_INVALID_METRIC_NAME;
		p->pMetricValues[i] = value_of(m, p->rangeIndex);
	}
	return (CUptiResult)F_OK_;
}

/* ------------------------------------------------------------ Range Profiler */

CUptiResult cuptiRangeProfilerEnable(struct tlg_rp_enable *p);
CUptiResult cuptiRangeProfilerDisable(struct tlg_rp_object_only *p);
CUptiResult cuptiRangeProfilerGetCounterDataSize(struct tlg_rp_counter_data_size *p);
CUptiResult cuptiRangeProfilerCounterDataImageInitialize(struct tlg_rp_counter_data_init *p);
CUptiResult cuptiRangeProfilerSetConfig(struct tlg_rp_set_config *p);
CUptiResult cuptiRangeProfilerStart(struct tlg_rp_object_only *p);
CUptiResult cuptiRangeProfilerPushRange(struct tlg_rp_push_range *p);
CUptiResult cuptiRangeProfilerPopRange(struct tlg_rp_object_only *p);
CUptiResult cuptiRangeProfilerStop(struct tlg_rp_stop *p);
CUptiResult cuptiRangeProfilerDecodeData(struct tlg_rp_decode *p);
CUptiResult cuptiRangeProfilerGetCounterDataInfo(struct tlg_rp_counter_data_info *p);

CUptiResult cuptiRangeProfilerEnable(struct tlg_rp_enable *p)
{
	CHECK_SIZE(p, struct tlg_rp_enable, pRangeProfilerObject);
	if (!f.inited || !p->ctx)
		return bad("enable before initialize, or without a context");
	if (mode_is("busy"))
		return (CUptiResult)F_HARDWARE_BUSY;
	f.enabled++;
	f.configured = f.started = f.pushed = f.decoded = 0;
	f.pass = 0;
	p->pRangeProfilerObject = OBJ;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiRangeProfilerDisable(struct tlg_rp_object_only *p)
{
	CHECK_SIZE(p, struct tlg_rp_object_only, pRangeProfilerObject);
	if (p->pRangeProfilerObject != OBJ || !f.enabled)
		return (CUptiResult)F_INVALID_PARAMETER;
	if (f.started || f.pushed)
		return bad("disabled inside a pass");
	f.enabled--;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiRangeProfilerGetCounterDataSize(struct tlg_rp_counter_data_size *p)
{
	CHECK_SIZE(p, struct tlg_rp_counter_data_size, counterDataSize);
	if (p->pRangeProfilerObject != OBJ || p->numMetrics != f.n_added || p->maxNumOfRanges < 1 ||
	    p->maxNumRangeTreeNodes < p->maxNumOfRanges)
		return (CUptiResult)F_INVALID_PARAMETER;
	p->counterDataSize = 128;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiRangeProfilerCounterDataImageInitialize(struct tlg_rp_counter_data_init *p)
{
	CHECK_SIZE(p, struct tlg_rp_counter_data_init, pCounterData);
	if (p->pRangeProfilerObject != OBJ || p->counterDataSize != 128 || !p->pCounterData)
		return (CUptiResult)F_INVALID_PARAMETER;
	memset(p->pCounterData, 0xda, 128);
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiRangeProfilerSetConfig(struct tlg_rp_set_config *p)
{
	CHECK_SIZE(p, struct tlg_rp_set_config, targetNestingLevel);
	if (p->pRangeProfilerObject != OBJ || !p->pConfig || p->configSize != 64 ||
	    !p->pCounterDataImage || p->counterDataImageSize != 128 || p->pCounterDataImage[0] != 0xda)
		return (CUptiResult)F_INVALID_PARAMETER;
	if (p->range != CUPTI_AutoRange || p->replayMode != CUPTI_UserReplay)
		return bad("not a range per kernel in user replay");
	if (p->maxRangesPerPass < 1 || p->numNestingLevels != 1 || p->minNestingLevel != 1 || p->passIndex != 0 ||
	    p->targetNestingLevel != 1)
		return (CUptiResult)F_INVALID_PARAMETER;
	f.max_ranges = p->maxRangesPerPass;
	f.configured = 1;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiRangeProfilerStart(struct tlg_rp_object_only *p)
{
	CHECK_SIZE(p, struct tlg_rp_object_only, pRangeProfilerObject);
	if (!f.configured || f.started)
		return bad("start without a config, or twice");
	if (f.pass >= f.passes)
		return bad("start after all passes were submitted");
	f.started = 1;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiRangeProfilerPushRange(struct tlg_rp_push_range *p)
{
	CHECK_SIZE(p, struct tlg_rp_push_range, pRangeName);
	return bad("push in auto range mode (each kernel is a range)");
}

CUptiResult cuptiRangeProfilerPopRange(struct tlg_rp_object_only *p)
{
	CHECK_SIZE(p, struct tlg_rp_object_only, pRangeProfilerObject);
	if (!f.pushed)
		return bad("pop without push");
	f.pushed = 0;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiRangeProfilerStop(struct tlg_rp_stop *p)
{
	CHECK_SIZE(p, struct tlg_rp_stop, isAllPassSubmitted);
	if (!f.started || f.pushed)
		return bad("stop outside a pass, or with a range open");
	f.started = 0;
	f.pass++;
	p->passIndex = f.pass;
	p->targetNestingLevel = 1;
	p->isAllPassSubmitted = f.pass >= f.passes;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiRangeProfilerDecodeData(struct tlg_rp_decode *p)
{
	CHECK_SIZE(p, struct tlg_rp_decode, numOfRangeDropped);
	if (f.pass < f.passes)
		return bad("decode before all passes");
	f.decoded = 1;
	p->numOfRangeDropped = kernels() > f.max_ranges ? kernels() - f.max_ranges : 0;
	return (CUptiResult)F_OK_;
}

CUptiResult cuptiRangeProfilerGetCounterDataInfo(struct tlg_rp_counter_data_info *p)
{
	CHECK_SIZE(p, struct tlg_rp_counter_data_info, numTotalRanges);
	if (!p->pCounterDataImage || p->counterDataImageSize != 128)
		return (CUptiResult)F_INVALID_PARAMETER;
	p->numTotalRanges = !f.decoded ? 0 : kernels() < f.max_ranges ? kernels() : f.max_ranges;
	return (CUptiResult)F_OK_;
}

/* ------------------------------------------------------------ for the tests */

int fake_cupti_passes_run(void);
int fake_cupti_live_objects(void);
const char *fake_cupti_why(void);

int fake_cupti_passes_run(void)
{
	return (int)f.pass;
}

/* profiler initializations, host objects and range profilers not released */
int fake_cupti_live_objects(void)
{
	return f.inited + f.hosts + f.enabled;
}

const char *fake_cupti_why(void)
{
	return f.why;
}
