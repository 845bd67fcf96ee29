/* SPDX-License-Identifier: MIT */
/* The Range Profiler backend (CUPTI of CUDA 12.6 and newer): metrics
 * planned and evaluated by the Profiler Host API, counted per kernel (auto
 * range: each kernel the region launches is a range, as ncu counts) in
 * user-replay mode: the caller runs the region again for each pass CUPTI
 * asks for (cuptiRangeProfilerStop's isAllPassSubmitted). The ranges are
 * folded into one value per metric (gpu_metrics.c's tlg_agg_*). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"

/* Where the real header is at hand, check that our declarations match it. */
#if defined(__has_include)
#if __has_include(<cupti_range_profiler.h>)
#include <cupti_range_profiler.h>
#define TLG_SAME(mine, theirs, field)                                                           \
	_Static_assert(offsetof(struct mine, field) == offsetof(theirs, field) &&                \
			       sizeof(((struct mine *)0)->field) == sizeof(((theirs *)0)->field),  \
		       #mine "." #field " differs from cupti_range_profiler.h")
TLG_SAME(tlg_rp_enable, CUpti_RangeProfiler_Enable_Params, pRangeProfilerObject);
TLG_SAME(tlg_rp_enable, CUpti_RangeProfiler_Enable_Params, ctx);
TLG_SAME(tlg_rp_object_only, CUpti_RangeProfiler_Start_Params, pRangeProfilerObject);
TLG_SAME(tlg_rp_object_only, CUpti_RangeProfiler_Disable_Params, pRangeProfilerObject);
TLG_SAME(tlg_rp_object_only, CUpti_RangeProfiler_PopRange_Params, pRangeProfilerObject);
TLG_SAME(tlg_rp_set_config, CUpti_RangeProfiler_SetConfig_Params, configSize);
TLG_SAME(tlg_rp_set_config, CUpti_RangeProfiler_SetConfig_Params, pConfig);
TLG_SAME(tlg_rp_set_config, CUpti_RangeProfiler_SetConfig_Params, counterDataImageSize);
TLG_SAME(tlg_rp_set_config, CUpti_RangeProfiler_SetConfig_Params, pCounterDataImage);
TLG_SAME(tlg_rp_set_config, CUpti_RangeProfiler_SetConfig_Params, range);
TLG_SAME(tlg_rp_set_config, CUpti_RangeProfiler_SetConfig_Params, replayMode);
TLG_SAME(tlg_rp_set_config, CUpti_RangeProfiler_SetConfig_Params, maxRangesPerPass);
TLG_SAME(tlg_rp_set_config, CUpti_RangeProfiler_SetConfig_Params, numNestingLevels);
TLG_SAME(tlg_rp_set_config, CUpti_RangeProfiler_SetConfig_Params, minNestingLevel);
TLG_SAME(tlg_rp_set_config, CUpti_RangeProfiler_SetConfig_Params, passIndex);
TLG_SAME(tlg_rp_set_config, CUpti_RangeProfiler_SetConfig_Params, targetNestingLevel);
TLG_SAME(tlg_rp_stop, CUpti_RangeProfiler_Stop_Params, passIndex);
TLG_SAME(tlg_rp_stop, CUpti_RangeProfiler_Stop_Params, targetNestingLevel);
TLG_SAME(tlg_rp_stop, CUpti_RangeProfiler_Stop_Params, isAllPassSubmitted);
TLG_SAME(tlg_rp_push_range, CUpti_RangeProfiler_PushRange_Params, pRangeName);
TLG_SAME(tlg_rp_decode, CUpti_RangeProfiler_DecodeData_Params, numOfRangeDropped);
TLG_SAME(tlg_rp_counter_data_size, CUpti_RangeProfiler_GetCounterDataSize_Params, pMetricNames);
TLG_SAME(tlg_rp_counter_data_size, CUpti_RangeProfiler_GetCounterDataSize_Params, numMetrics);
TLG_SAME(tlg_rp_counter_data_size, CUpti_RangeProfiler_GetCounterDataSize_Params, maxNumOfRanges);
TLG_SAME(tlg_rp_counter_data_size, CUpti_RangeProfiler_GetCounterDataSize_Params,
	 maxNumRangeTreeNodes);
TLG_SAME(tlg_rp_counter_data_size, CUpti_RangeProfiler_GetCounterDataSize_Params, counterDataSize);
TLG_SAME(tlg_rp_counter_data_init, CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
	 counterDataSize);
TLG_SAME(tlg_rp_counter_data_init, CUpti_RangeProfiler_CounterDataImage_Initialize_Params,
	 pCounterData);
TLG_SAME(tlg_rp_counter_data_info, CUpti_RangeProfiler_GetCounterDataInfo_Params,
	 pCounterDataImage);
TLG_SAME(tlg_rp_counter_data_info, CUpti_RangeProfiler_GetCounterDataInfo_Params,
	 counterDataImageSize);
TLG_SAME(tlg_rp_counter_data_info, CUpti_RangeProfiler_GetCounterDataInfo_Params, numTotalRanges);
#endif
#endif

struct rp_state {
	struct tlg_host_object *host;
	struct tlg_rp_object *obj;
	bool started;		/* between cuptiRangeProfilerStart and Stop */
	double *values;		/* n_active, for the evaluation */
};

static struct rp_state *st_of(struct tlg *g)
{
	return g->priv;
}

static int kind_of(int host_type)
{
	switch (host_type) {
	case TLG_HOST_COUNTER:
		return TLG_KIND_COUNTER;
	case TLG_HOST_RATIO:
		return TLG_KIND_RATIO;
	case TLG_HOST_THROUGHPUT:
		return TLG_KIND_THROUGHPUT;
	default:
		return TLG_KIND_UNKNOWN;
	}
}

/* Unit and kind of each name; a name the chip does not know is marked and
 * left out, the others go on. */
static void plan_metrics(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	struct rp_state *st = st_of(g);
	CUptiResult r;
	int i;

	for (i = 0; i < g->n; i++) {
		struct tlg_host_metric_props p = { .structSize = TLG_SIZE(struct tlg_host_metric_props, metricType) };

		p.pHostObject = st->host;
		p.pMetricName = g->m[i].name;
		r = c->host_props(&p);
		if (r != CUPTI_SUCCESS) {
			int err = tlg_cupti_fail(c, "cuptiProfilerHostGetMetricProperties", r);

			tlg_metric_unsupported(g, i, err == -EIO || err == -ENOENT ? -ENOENT : err,
					       "%s is not a metric of %s (%s)", g->m[i].name,
					       g->chip, tlg_error());
			continue;
		}
		snprintf(g->m[i].unit, sizeof(g->m[i].unit), "%s", p.pDimUnit ? p.pDimUnit : "");
		g->m[i].kind = kind_of(p.metricType);
	}
}

static int make_config(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	struct rp_state *st = st_of(g);
	struct tlg_host_add_metrics add = { .structSize = TLG_SIZE(struct tlg_host_add_metrics, numMetrics) };
	struct tlg_host_config_size size = { .structSize = TLG_SIZE(struct tlg_host_config_size, configImageSize) };
	struct tlg_host_config_image image = { .structSize = TLG_SIZE(struct tlg_host_config_image, pConfigImage) };
	struct tlg_host_num_passes passes = { .structSize = TLG_SIZE(struct tlg_host_num_passes, numOfPasses) };
	CUptiResult r;

	add.pHostObject = st->host;
	add.ppMetricNames = g->active;
	add.numMetrics = (size_t)g->n_active;
	r = c->host_add(&add);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerHostConfigAddMetrics", r);
	size.pHostObject = st->host;
	r = c->host_config_size(&size);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerHostGetConfigImageSize", r);
	g->config = calloc(1, size.configImageSize ? size.configImageSize : 1);
	if (!g->config)
		return tlg_fail(-ENOMEM, "out of memory");
	g->config_size = size.configImageSize;
	image.pHostObject = st->host;
	image.configImageSize = g->config_size;
	image.pConfigImage = g->config;
	r = c->host_config_image(&image);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerHostGetConfigImage", r);
	passes.configImageSize = g->config_size;
	passes.pConfigImage = g->config;
	r = c->host_passes(&passes);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerHostGetNumOfPasses", r);
	g->passes = passes.numOfPasses ? passes.numOfPasses : 1;
	return 0;
}

/* A range per kernel, one nesting level. */
static int make_counter_data(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	struct rp_state *st = st_of(g);
	struct tlg_rp_counter_data_size size = {
		.structSize = TLG_SIZE(struct tlg_rp_counter_data_size, counterDataSize)
	};
	struct tlg_rp_counter_data_init init = { .structSize = TLG_SIZE(struct tlg_rp_counter_data_init, pCounterData) };
	CUptiResult r;

	size.pRangeProfilerObject = st->obj;
	size.pMetricNames = g->active;
	size.numMetrics = (size_t)g->n_active;
	size.maxNumOfRanges = TLG_MAX_RANGES;
	size.maxNumRangeTreeNodes = TLG_MAX_RANGES;
	r = c->rp_data_size(&size);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiRangeProfilerGetCounterDataSize", r);
	g->data = calloc(1, size.counterDataSize ? size.counterDataSize : 1);
	if (!g->data)
		return tlg_fail(-ENOMEM, "out of memory");
	g->data_size = size.counterDataSize;
	init.pRangeProfilerObject = st->obj;
	init.counterDataSize = g->data_size;
	init.pCounterData = g->data;
	r = c->rp_data_init(&init);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiRangeProfilerCounterDataImageInitialize", r);
	return 0;
}

static int rp_open(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	struct tlg_host_init hi = { .structSize = TLG_SIZE(struct tlg_host_init, pHostObject) };
	struct tlg_rp_enable en = { .structSize = TLG_SIZE(struct tlg_rp_enable, pRangeProfilerObject) };
	struct tlg_rp_set_config sc = { .structSize = TLG_SIZE(struct tlg_rp_set_config, targetNestingLevel) };
	struct rp_state *st;
	CUptiResult r;
	int err;

	st = calloc(1, sizeof(*st));
	if (!st)
		return tlg_fail(-ENOMEM, "out of memory");
	g->priv = st;	/* from here on, rp_close undoes whatever was done */
	st->values = calloc((size_t)g->n, sizeof(*st->values));
	if (!st->values)
		return tlg_fail(-ENOMEM, "out of memory");

	hi.profilerType = TLG_HOST_RANGE_PROFILER;
	hi.pChipName = g->chip;
	hi.pCounterAvailabilityImage = g->avail;
	r = c->host_init(&hi);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerHostInitialize", r);
	st->host = hi.pHostObject;

	plan_metrics(g);
	err = tlg_collect_active(g);
	if (err)
		return err;
	err = make_config(g);
	if (err)
		return err;

	en.ctx = g->ctx;
	r = c->rp_enable(&en);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiRangeProfilerEnable", r);
	st->obj = en.pRangeProfilerObject;
	err = make_counter_data(g);
	if (err)
		return err;

	sc.pRangeProfilerObject = st->obj;
	sc.configSize = g->config_size;
	sc.pConfig = g->config;
	sc.counterDataImageSize = g->data_size;
	sc.pCounterDataImage = g->data;
	sc.range = CUPTI_AutoRange;
	sc.replayMode = CUPTI_UserReplay;
	sc.maxRangesPerPass = TLG_MAX_RANGES;
	sc.numNestingLevels = 1;
	sc.minNestingLevel = 1;
	sc.passIndex = 0;
	sc.targetNestingLevel = 1;
	r = c->rp_set_config(&sc);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiRangeProfilerSetConfig", r);
	return 0;
}

static int rp_begin_pass(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	struct rp_state *st = st_of(g);
	struct tlg_rp_object_only start = { .structSize = TLG_SIZE(struct tlg_rp_object_only, pRangeProfilerObject) };
	CUptiResult r;

	start.pRangeProfilerObject = st->obj;
	r = c->rp_start(&start);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiRangeProfilerStart", r);
	st->started = true;
	return 0;
}

static int rp_end_pass(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	struct rp_state *st = st_of(g);
	struct tlg_rp_stop stop = { .structSize = TLG_SIZE(struct tlg_rp_stop, isAllPassSubmitted) };
	CUptiResult r;

	stop.pRangeProfilerObject = st->obj;
	r = c->rp_stop(&stop);
	st->started = false;
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiRangeProfilerStop", r);
	return stop.isAllPassSubmitted ? 1 : 0;
}

static int rp_evaluate(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	struct rp_state *st = st_of(g);
	struct tlg_rp_decode dec = { .structSize = TLG_SIZE(struct tlg_rp_decode, numOfRangeDropped) };
	struct tlg_rp_counter_data_info info = {
		.structSize = TLG_SIZE(struct tlg_rp_counter_data_info, numTotalRanges)
	};
	struct tlg_host_evaluate ev = { .structSize = TLG_SIZE(struct tlg_host_evaluate, pMetricValues) };
	CUptiResult r;
	size_t i;

	dec.pRangeProfilerObject = st->obj;
	r = c->rp_decode(&dec);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiRangeProfilerDecodeData", r);
	if (dec.numOfRangeDropped)
		return tlg_fail(-E2BIG,
				"the region launched more than %d kernels in a pass (CUPTI dropped %zu): count "
				"over fewer calls",
				TLG_MAX_RANGES, dec.numOfRangeDropped);
	info.pCounterDataImage = g->data;
	info.counterDataImageSize = g->data_size;
	r = c->rp_data_info(&info);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiRangeProfilerGetCounterDataInfo", r);
	if (info.numTotalRanges < 1)
		return tlg_fail(-EIO,
				"CUPTI recorded no kernel: did the region launch any on CUDA device "
				"%d's primary context?",
				g->device);
	tlg_agg_reset(g);
	for (i = 0; i < info.numTotalRanges; i++) {
		ev.pHostObject = st->host;
		ev.pCounterDataImage = g->data;
		ev.counterDataImageSize = g->data_size;
		ev.rangeIndex = i;
		ev.ppMetricNames = g->active;
		ev.numMetrics = (size_t)g->n_active;
		ev.pMetricValues = st->values;
		r = c->host_evaluate(&ev);
		if (r != CUPTI_SUCCESS)
			return tlg_cupti_fail(c, "cuptiProfilerHostEvaluateToGpuValues", r);
		tlg_agg_range(g, st->values);
	}
	tlg_agg_finish(g);
	return 0;
}

/* Best effort, in reverse order of rp_open and of an interrupted pass. */
static void rp_close(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	struct rp_state *st = st_of(g);

	if (!st)
		return;
	if (st->obj) {
		struct tlg_rp_object_only p = { .structSize = TLG_SIZE(struct tlg_rp_object_only, pRangeProfilerObject) };
		struct tlg_rp_stop stop = { .structSize = TLG_SIZE(struct tlg_rp_stop, isAllPassSubmitted) };

		p.pRangeProfilerObject = st->obj;
		stop.pRangeProfilerObject = st->obj;
		if (st->started)
			(void)c->rp_stop(&stop);
		(void)c->rp_disable(&p);
	}
	if (st->host) {
		struct tlg_host_deinit d = { .structSize = TLG_SIZE(struct tlg_host_deinit, pHostObject) };

		d.pHostObject = st->host;
		(void)c->host_deinit(&d);
	}
	free(st->values);
	free(st);
	g->priv = NULL;
}

const struct tlg_backend tlg_range_backend = {
	.name = "range profiler (a range per kernel, user replay)",
	.open = rp_open,
	.begin_pass = rp_begin_pass,
	.end_pass = rp_end_pass,
	.evaluate = rp_evaluate,
	.close = rp_close,
};
