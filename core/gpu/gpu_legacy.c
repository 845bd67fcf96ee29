/* SPDX-License-Identifier: MIT */
/* The legacy backend, for CUPTI without the Range Profiler (CUDA 11.4 to
 * 12.5): the Profiling API (cuptiProfilerBeginSession ... EndSession) in
 * user-range, user-replay mode, with NVPW (libnvperf_host) turning metric
 * names into raw counters, the config image and the counter data prefix,
 * and evaluating the result. A range per kernel (auto range), folded into
 * one value per metric, as in gpu_range.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"

/* an auto range is named after its kernel: room for a long template name */
#define RANGE_NAME_MAX 2048
struct lg_state {
	NVPW_MetricsEvaluator *eval;
	uint8_t *eval_scratch;
	NVPW_MetricEvalRequest *reqs;	/* one per metric (valid where counted) */
	NVPW_MetricEvalRequest *active_reqs;
	uint8_t *prefix;
	size_t prefix_size;
	uint8_t *scratch;
	size_t scratch_size;
	double *values;
	bool session, config_set, in_pass, enabled;
};

static struct lg_state *st_of(struct tlg *g)
{
	return g->priv;
}

/* "byte/second" from NVPW's dimensional factors, singular names as ncu
 * prints them. */
static void unit_of(struct tlg *g, const NVPW_MetricEvalRequest *req, char *out, size_t size)
{
	const struct tlg_nvpw *p = g->nvpw;
	struct lg_state *st = st_of(g);
	NVPW_MetricsEvaluator_GetMetricDimUnits_Params du = {
		.structSize = NVPW_MetricsEvaluator_GetMetricDimUnits_Params_STRUCT_SIZE
	};
	NVPW_DimUnitFactor f[8];
	size_t i, len = 0;
	int sign;

	out[0] = '\0';
	du.pMetricsEvaluator = st->eval;
	du.pMetricEvalRequest = req;
	du.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
	du.pDimUnits = f;
	du.numDimUnits = sizeof(f) / sizeof(f[0]);
	du.dimUnitFactorStructSize = NVPW_DimUnitFactor_STRUCT_SIZE;
	if (p->eval_dim_units(&du) != NVPA_STATUS_SUCCESS)
		return;
	/* numerator factors first, then the denominator's after a '/' */
	for (sign = 1; sign >= -1; sign -= 2) {
		bool first = true;

		for (i = 0; i < du.numDimUnits && len + 1 < size; i++) {
			NVPW_MetricsEvaluator_DimUnitToString_Params s = {
				.structSize = NVPW_MetricsEvaluator_DimUnitToString_Params_STRUCT_SIZE
			};
			int e = f[i].exponent;

			if ((sign > 0) != (e > 0) || e == 0)
				continue;
			s.pMetricsEvaluator = st->eval;
			s.dimUnit = f[i].dimUnit;
			if (p->eval_dim_unit_string(&s) != NVPA_STATUS_SUCCESS || !s.pSingularName)
				continue;
			len += (size_t)snprintf(out + len, size - len, "%s%s", !first ? "*" :
						sign > 0 ? "" : len ? "/" : "1/", s.pSingularName);
			if ((e > 0 ? e : -e) > 1 && len + 1 < size)
				len += (size_t)snprintf(out + len, size - len, "^%d", e > 0 ? e : -e);
			first = false;
		}
	}
	if (len >= size)
		out[size - 1] = '\0';
}

static int make_evaluator(struct tlg *g)
{
	const struct tlg_nvpw *p = g->nvpw;
	struct lg_state *st = st_of(g);
	NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params size = {
		.structSize = NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params_STRUCT_SIZE
	};
	NVPW_CUDA_MetricsEvaluator_Initialize_Params init = {
		.structSize = NVPW_CUDA_MetricsEvaluator_Initialize_Params_STRUCT_SIZE
	};
	NVPA_Status s;

	size.pChipName = g->chip;
	size.pCounterAvailabilityImage = g->avail;
	s = p->eval_scratch_size(&size);
	if (s != NVPA_STATUS_SUCCESS)
		return tlg_nvpw_fail("NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize", s);
	st->eval_scratch = calloc(1, size.scratchBufferSize ? size.scratchBufferSize : 1);
	if (!st->eval_scratch)
		return tlg_fail(-ENOMEM, "out of memory");
	init.pScratchBuffer = st->eval_scratch;
	init.scratchBufferSize = size.scratchBufferSize;
	init.pChipName = g->chip;
	init.pCounterAvailabilityImage = g->avail;
	s = p->eval_init(&init);
	if (s != NVPA_STATUS_SUCCESS)
		return tlg_nvpw_fail("NVPW_CUDA_MetricsEvaluator_Initialize", s);
	st->eval = init.pMetricsEvaluator;
	return 0;
}

static void plan_metrics(struct tlg *g)
{
	const struct tlg_nvpw *p = g->nvpw;
	struct lg_state *st = st_of(g);
	NVPA_Status s;
	int i;

	for (i = 0; i < g->n; i++) {
		NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params cv = {
			.structSize = NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params_STRUCT_SIZE
		};

		cv.pMetricsEvaluator = st->eval;
		cv.pMetricName = g->m[i].name;
		cv.pMetricEvalRequest = &st->reqs[i];
		cv.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
		s = p->eval_request(&cv);
		if (s != NVPA_STATUS_SUCCESS) {
			tlg_nvpw_fail("NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest", s);
			tlg_metric_unsupported(g, i, -ENOENT, "%s is not a metric of %s (%s)",
					       g->m[i].name, g->chip, tlg_error());
			continue;
		}
		g->m[i].kind = st->reqs[i].metricType <= NVPW_METRIC_TYPE_THROUGHPUT ?
				       (int)st->reqs[i].metricType : TLG_KIND_UNKNOWN;
		unit_of(g, &st->reqs[i], g->m[i].unit, sizeof(g->m[i].unit));
	}
}

/* The raw counters behind the counted metrics, as NVPW requests. The
 * names point into the evaluator, which outlives their use. */
static int raw_requests(struct tlg *g, NVPA_RawMetricRequest **out, size_t *n_out)
{
	const struct tlg_nvpw *p = g->nvpw;
	struct lg_state *st = st_of(g);
	NVPW_MetricsEvaluator_GetMetricRawDependencies_Params deps = {
		.structSize = NVPW_MetricsEvaluator_GetMetricRawDependencies_Params_STRUCT_SIZE
	};
	NVPA_RawMetricRequest *reqs = NULL;
	const char **names = NULL;
	NVPA_Status s;
	size_t i, n;
	int err = 0;

	deps.pMetricsEvaluator = st->eval;
	deps.pMetricEvalRequests = st->active_reqs;
	deps.numMetricEvalRequests = (size_t)g->n_active;
	deps.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
	deps.metricEvalRequestStrideSize = sizeof(NVPW_MetricEvalRequest);
	s = p->eval_raw_deps(&deps);	/* first the count */
	if (s != NVPA_STATUS_SUCCESS) {
		err = tlg_nvpw_fail("NVPW_MetricsEvaluator_GetMetricRawDependencies", s);
		goto out;
	}
	n = deps.numRawDependencies;
	names = calloc(n ? n : 1, sizeof(*names));
	reqs = calloc(n ? n : 1, sizeof(*reqs));
	if (!names || !reqs) {
		err = tlg_fail(-ENOMEM, "out of memory");
		goto out;
	}
	deps.ppRawDependencies = names;
	deps.numRawDependencies = n;
	s = p->eval_raw_deps(&deps);
	if (s != NVPA_STATUS_SUCCESS) {
		err = tlg_nvpw_fail("NVPW_MetricsEvaluator_GetMetricRawDependencies", s);
		goto out;
	}
	for (i = 0; i < deps.numRawDependencies; i++) {
		reqs[i].structSize = NVPA_RAW_METRIC_REQUEST_STRUCT_SIZE;
		reqs[i].pMetricName = names[i];
		reqs[i].isolated = 1;
		reqs[i].keepInstances = 1;
	}
	*out = reqs;
	*n_out = deps.numRawDependencies;
	reqs = NULL;
out:
	free(names);
	free(reqs);
	return err;
}

static int make_config(struct tlg *g, const NVPA_RawMetricRequest *raw, size_t n_raw)
{
	const struct tlg_nvpw *p = g->nvpw;
	NVPW_CUDA_RawMetricsConfig_Create_V2_Params create = {
		.structSize = NVPW_CUDA_RawMetricsConfig_Create_V2_Params_STRUCT_SIZE
	};
	NVPW_RawMetricsConfig_SetCounterAvailability_Params avail = {
		.structSize = NVPW_RawMetricsConfig_SetCounterAvailability_Params_STRUCT_SIZE
	};
	NVPW_RawMetricsConfig_BeginPassGroup_Params begin = {
		.structSize = NVPW_RawMetricsConfig_BeginPassGroup_Params_STRUCT_SIZE
	};
	NVPW_RawMetricsConfig_AddMetrics_Params add = { .structSize = NVPW_RawMetricsConfig_AddMetrics_Params_STRUCT_SIZE };
	NVPW_RawMetricsConfig_EndPassGroup_Params end = {
		.structSize = NVPW_RawMetricsConfig_EndPassGroup_Params_STRUCT_SIZE
	};
	NVPW_RawMetricsConfig_GenerateConfigImage_Params gen = {
		.structSize = NVPW_RawMetricsConfig_GenerateConfigImage_Params_STRUCT_SIZE
	};
	NVPW_RawMetricsConfig_GetConfigImage_Params image = {
		.structSize = NVPW_RawMetricsConfig_GetConfigImage_Params_STRUCT_SIZE
	};
	NVPW_RawMetricsConfig_GetNumPasses_V2_Params passes = {
		.structSize = NVPW_RawMetricsConfig_GetNumPasses_V2_Params_STRUCT_SIZE
	};
	NVPW_RawMetricsConfig_Destroy_Params destroy = { .structSize = NVPW_RawMetricsConfig_Destroy_Params_STRUCT_SIZE };
	const char *what = NULL;
	NVPA_Status s;
	int err = 0;

	create.activityKind = NVPA_ACTIVITY_KIND_PROFILER;
	create.pChipName = g->chip;
	create.pCounterAvailabilityImage = g->avail;
	s = p->config_create(&create);
	if (s != NVPA_STATUS_SUCCESS)
		return tlg_nvpw_fail("NVPW_CUDA_RawMetricsConfig_Create_V2", s);
	avail.pRawMetricsConfig = create.pRawMetricsConfig;
	avail.pCounterAvailabilityImage = g->avail;
	begin.pRawMetricsConfig = create.pRawMetricsConfig;
	add.pRawMetricsConfig = create.pRawMetricsConfig;
	add.pRawMetricRequests = raw;
	add.numMetricRequests = n_raw;
	end.pRawMetricsConfig = create.pRawMetricsConfig;
	gen.pRawMetricsConfig = create.pRawMetricsConfig;
	image.pRawMetricsConfig = create.pRawMetricsConfig;
	passes.pRawMetricsConfig = create.pRawMetricsConfig;
	if ((s = p->config_availability(&avail)) != NVPA_STATUS_SUCCESS)
		what = "NVPW_RawMetricsConfig_SetCounterAvailability";
	else if ((s = p->config_begin_group(&begin)) != NVPA_STATUS_SUCCESS)
		what = "NVPW_RawMetricsConfig_BeginPassGroup";
	else if ((s = p->config_add(&add)) != NVPA_STATUS_SUCCESS)
		what = "NVPW_RawMetricsConfig_AddMetrics";
	else if ((s = p->config_end_group(&end)) != NVPA_STATUS_SUCCESS)
		what = "NVPW_RawMetricsConfig_EndPassGroup";
	else if ((s = p->config_generate(&gen)) != NVPA_STATUS_SUCCESS)
		what = "NVPW_RawMetricsConfig_GenerateConfigImage";
	else if ((s = p->config_image(&image)) != NVPA_STATUS_SUCCESS)	/* the size */
		what = "NVPW_RawMetricsConfig_GetConfigImage";
	if (what) {
		err = tlg_nvpw_fail(what, s);
		goto out;
	}
	g->config = calloc(1, image.bytesCopied ? image.bytesCopied : 1);
	if (!g->config) {
		err = tlg_fail(-ENOMEM, "out of memory");
		goto out;
	}
	g->config_size = image.bytesCopied;
	image.bytesAllocated = g->config_size;
	image.pBuffer = g->config;
	if ((s = p->config_image(&image)) != NVPA_STATUS_SUCCESS)
		what = "NVPW_RawMetricsConfig_GetConfigImage";
	else if ((s = p->config_passes(&passes)) != NVPA_STATUS_SUCCESS)
		what = "NVPW_RawMetricsConfig_GetNumPasses_V2";
	if (what) {
		err = tlg_nvpw_fail(what, s);
		goto out;
	}
	g->passes = passes.numPasses ? passes.numPasses : 1;	/* one nesting level */
out:
	destroy.pRawMetricsConfig = create.pRawMetricsConfig;
	(void)p->config_destroy(&destroy);
	return err;
}

static int make_prefix(struct tlg *g, const NVPA_RawMetricRequest *raw, size_t n_raw)
{
	const struct tlg_nvpw *p = g->nvpw;
	struct lg_state *st = st_of(g);
	NVPW_CUDA_CounterDataBuilder_Create_Params create = {
		.structSize = NVPW_CUDA_CounterDataBuilder_Create_Params_STRUCT_SIZE
	};
	NVPW_CounterDataBuilder_AddMetrics_Params add = {
		.structSize = NVPW_CounterDataBuilder_AddMetrics_Params_STRUCT_SIZE
	};
	NVPW_CounterDataBuilder_GetCounterDataPrefix_Params prefix = {
		.structSize = NVPW_CounterDataBuilder_GetCounterDataPrefix_Params_STRUCT_SIZE
	};
	NVPW_CounterDataBuilder_Destroy_Params destroy = {
		.structSize = NVPW_CounterDataBuilder_Destroy_Params_STRUCT_SIZE
	};
	const char *what = NULL;
	NVPA_Status s;
	int err = 0;

	create.pChipName = g->chip;
	create.pCounterAvailabilityImage = g->avail;
	s = p->builder_create(&create);
	if (s != NVPA_STATUS_SUCCESS)
		return tlg_nvpw_fail("NVPW_CUDA_CounterDataBuilder_Create", s);
	add.pCounterDataBuilder = create.pCounterDataBuilder;
	add.pRawMetricRequests = raw;
	add.numMetricRequests = n_raw;
	prefix.pCounterDataBuilder = create.pCounterDataBuilder;
	if ((s = p->builder_add(&add)) != NVPA_STATUS_SUCCESS)
		what = "NVPW_CounterDataBuilder_AddMetrics";
	else if ((s = p->builder_prefix(&prefix)) != NVPA_STATUS_SUCCESS)	/* the size */
		what = "NVPW_CounterDataBuilder_GetCounterDataPrefix";
	if (what) {
		err = tlg_nvpw_fail(what, s);
		goto out;
	}
	st->prefix = calloc(1, prefix.bytesCopied ? prefix.bytesCopied : 1);
	if (!st->prefix) {
		err = tlg_fail(-ENOMEM, "out of memory");
		goto out;
	}
	st->prefix_size = prefix.bytesCopied;
	prefix.bytesAllocated = st->prefix_size;
	prefix.pBuffer = st->prefix;
	s = p->builder_prefix(&prefix);
	if (s != NVPA_STATUS_SUCCESS)
		err = tlg_nvpw_fail("NVPW_CounterDataBuilder_GetCounterDataPrefix", s);
out:
	destroy.pCounterDataBuilder = create.pCounterDataBuilder;
	(void)p->builder_destroy(&destroy);
	return err;
}

/* The counter data image for one range, and its scratch buffer. */
static int make_counter_data(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	struct lg_state *st = st_of(g);
	CUpti_Profiler_CounterDataImageOptions opt = { .structSize = CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE };
	CUpti_Profiler_CounterDataImage_CalculateSize_Params size = {
		.structSize = CUpti_Profiler_CounterDataImage_CalculateSize_Params_STRUCT_SIZE
	};
	CUpti_Profiler_CounterDataImage_Initialize_Params init = {
		.structSize = CUpti_Profiler_CounterDataImage_Initialize_Params_STRUCT_SIZE
	};
	CUpti_Profiler_CounterDataImage_CalculateScratchBufferSize_Params ssize = {
		.structSize = CUpti_Profiler_CounterDataImage_CalculateScratchBufferSize_Params_STRUCT_SIZE
	};
	CUpti_Profiler_CounterDataImage_InitializeScratchBuffer_Params sinit = {
		.structSize = CUpti_Profiler_CounterDataImage_InitializeScratchBuffer_Params_STRUCT_SIZE
	};
	CUptiResult r;

	opt.pCounterDataPrefix = st->prefix;
	opt.counterDataPrefixSize = st->prefix_size;
	opt.maxNumRanges = TLG_MAX_RANGES;
	opt.maxNumRangeTreeNodes = TLG_MAX_RANGES;
	opt.maxRangeNameLength = RANGE_NAME_MAX;
	size.sizeofCounterDataImageOptions = CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE;
	size.pOptions = &opt;
	r = c->image_size(&size);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerCounterDataImageCalculateSize", r);
	g->data = calloc(1, size.counterDataImageSize ? size.counterDataImageSize : 1);
	if (!g->data)
		return tlg_fail(-ENOMEM, "out of memory");
	g->data_size = size.counterDataImageSize;
	init.sizeofCounterDataImageOptions = CUpti_Profiler_CounterDataImageOptions_STRUCT_SIZE;
	init.pOptions = &opt;
	init.counterDataImageSize = g->data_size;
	init.pCounterDataImage = g->data;
	r = c->image_init(&init);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerCounterDataImageInitialize", r);
	ssize.counterDataImageSize = g->data_size;
	ssize.pCounterDataImage = g->data;
	r = c->scratch_size(&ssize);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerCounterDataImageCalculateScratchBufferSize", r);
	st->scratch = calloc(1, ssize.counterDataScratchBufferSize ? ssize.counterDataScratchBufferSize : 1);
	if (!st->scratch)
		return tlg_fail(-ENOMEM, "out of memory");
	st->scratch_size = ssize.counterDataScratchBufferSize;
	sinit.counterDataImageSize = g->data_size;
	sinit.pCounterDataImage = g->data;
	sinit.counterDataScratchBufferSize = st->scratch_size;
	sinit.pCounterDataScratchBuffer = st->scratch;
	r = c->scratch_init(&sinit);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerCounterDataImageInitializeScratchBuffer", r);
	return 0;
}

static int start_session(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	struct lg_state *st = st_of(g);
	CUpti_Profiler_BeginSession_Params bs = { .structSize = CUpti_Profiler_BeginSession_Params_STRUCT_SIZE };
	CUpti_Profiler_SetConfig_Params sc = { .structSize = CUpti_Profiler_SetConfig_Params_STRUCT_SIZE };
	CUptiResult r;

	bs.ctx = g->ctx;
	bs.counterDataImageSize = g->data_size;
	bs.pCounterDataImage = g->data;
	bs.counterDataScratchBufferSize = st->scratch_size;
	bs.pCounterDataScratchBuffer = st->scratch;
	bs.range = CUPTI_AutoRange;
	bs.replayMode = CUPTI_UserReplay;
	bs.maxRangesPerPass = TLG_MAX_RANGES;
	bs.maxLaunchesPerPass = TLG_MAX_RANGES;
	r = c->begin_session(&bs);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerBeginSession", r);
	st->session = true;
	sc.ctx = g->ctx;
	sc.pConfig = g->config;
	sc.configSize = g->config_size;
	sc.minNestingLevel = 1;
	sc.numNestingLevels = 1;
	sc.passIndex = 0;
	sc.targetNestingLevel = 1;
	r = c->set_config(&sc);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerSetConfig", r);
	st->config_set = true;
	return 0;
}

static int lg_open(struct tlg *g)
{
	NVPA_RawMetricRequest *raw = NULL;
	struct lg_state *st;
	size_t n_raw = 0;
	int err, k;

	st = calloc(1, sizeof(*st));
	if (!st)
		return tlg_fail(-ENOMEM, "out of memory");
	g->priv = st;	/* from here on, lg_close undoes whatever was done */
	st->reqs = calloc((size_t)g->n, sizeof(*st->reqs));
	st->active_reqs = calloc((size_t)g->n, sizeof(*st->active_reqs));
	st->values = calloc((size_t)g->n, sizeof(*st->values));
	if (!st->reqs || !st->active_reqs || !st->values)
		return tlg_fail(-ENOMEM, "out of memory");
	err = make_evaluator(g);
	if (err)
		return err;
	plan_metrics(g);
	err = tlg_collect_active(g);
	if (err)
		return err;
	for (k = 0; k < g->n_active; k++)
		st->active_reqs[k] = st->reqs[g->active_idx[k]];
	err = raw_requests(g, &raw, &n_raw);
	if (!err)
		err = make_config(g, raw, n_raw);
	if (!err)
		err = make_prefix(g, raw, n_raw);
	free(raw);
	if (err)
		return err;
	err = make_counter_data(g);
	if (err)
		return err;
	return start_session(g);
}

static int lg_begin_pass(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	struct lg_state *st = st_of(g);
	CUpti_Profiler_BeginPass_Params bp = { .structSize = CUpti_Profiler_BeginPass_Params_STRUCT_SIZE };
	CUpti_Profiler_EnableProfiling_Params en = { .structSize = CUpti_Profiler_EnableProfiling_Params_STRUCT_SIZE };
	CUptiResult r;

	bp.ctx = g->ctx;
	r = c->begin_pass(&bp);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerBeginPass", r);
	st->in_pass = true;
	en.ctx = g->ctx;
	r = c->enable(&en);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerEnableProfiling", r);
	st->enabled = true;
	return 0;
}

static int lg_end_pass(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	struct lg_state *st = st_of(g);
	CUpti_Profiler_DisableProfiling_Params dis = { .structSize = CUpti_Profiler_DisableProfiling_Params_STRUCT_SIZE };
	CUpti_Profiler_EndPass_Params ep = { .structSize = CUpti_Profiler_EndPass_Params_STRUCT_SIZE };
	CUptiResult r;

	dis.ctx = g->ctx;
	r = c->disable(&dis);
	st->enabled = false;
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerDisableProfiling", r);
	ep.ctx = g->ctx;
	r = c->end_pass(&ep);
	st->in_pass = false;
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerEndPass", r);
	return ep.allPassesSubmitted ? 1 : 0;
}

/* Ends the session: the counter data is complete once flushed. */
static void end_session(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	struct lg_state *st = st_of(g);
	CUpti_Profiler_UnsetConfig_Params us = { .structSize = CUpti_Profiler_UnsetConfig_Params_STRUCT_SIZE };
	CUpti_Profiler_EndSession_Params es = { .structSize = CUpti_Profiler_EndSession_Params_STRUCT_SIZE };

	us.ctx = g->ctx;
	es.ctx = g->ctx;
	if (st->config_set)
		(void)c->unset_config(&us);
	if (st->session)
		(void)c->end_session(&es);
	st->config_set = st->session = false;
}

static int lg_evaluate(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	const struct tlg_nvpw *p = g->nvpw;
	struct lg_state *st = st_of(g);
	CUpti_Profiler_FlushCounterData_Params fl = { .structSize = CUpti_Profiler_FlushCounterData_Params_STRUCT_SIZE };
	NVPW_MetricsEvaluator_SetDeviceAttributes_Params dev = {
		.structSize = NVPW_MetricsEvaluator_SetDeviceAttributes_Params_STRUCT_SIZE
	};
	NVPW_MetricsEvaluator_EvaluateToGpuValues_Params ev = {
		.structSize = NVPW_MetricsEvaluator_EvaluateToGpuValues_Params_STRUCT_SIZE
	};
	NVPW_CounterData_GetNumRanges_Params nr = { .structSize = NVPW_CounterData_GetNumRanges_Params_STRUCT_SIZE };
	CUptiResult r;
	NVPA_Status s;
	size_t i;

	fl.ctx = g->ctx;
	r = c->flush(&fl);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerFlushCounterData", r);
	if (fl.numRangesDropped)
		return tlg_fail(-E2BIG,
				"the region launched more than %d kernels in a pass (CUPTI dropped %zu): count "
				"over fewer calls",
				TLG_MAX_RANGES, fl.numRangesDropped);
	end_session(g);
	dev.pMetricsEvaluator = st->eval;
	dev.pCounterDataImage = g->data;
	dev.counterDataImageSize = g->data_size;
	s = p->eval_set_device(&dev);
	if (s != NVPA_STATUS_SUCCESS)
		return tlg_nvpw_fail("NVPW_MetricsEvaluator_SetDeviceAttributes", s);
	nr.pCounterDataImage = g->data;
	s = p->num_ranges(&nr);
	if (s != NVPA_STATUS_SUCCESS)
		return tlg_nvpw_fail("NVPW_CounterData_GetNumRanges", s);
	if (nr.numRanges < 1)
		return tlg_fail(-EIO,
				"CUPTI recorded no kernel: did the region launch any on CUDA device "
				"%d's primary context?",
				g->device);
	tlg_agg_reset(g);
	for (i = 0; i < nr.numRanges; i++) {
		ev.pMetricsEvaluator = st->eval;
		ev.pMetricEvalRequests = st->active_reqs;
		ev.numMetricEvalRequests = (size_t)g->n_active;
		ev.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
		ev.metricEvalRequestStrideSize = sizeof(NVPW_MetricEvalRequest);
		ev.pCounterDataImage = g->data;
		ev.counterDataImageSize = g->data_size;
		ev.rangeIndex = i;
		ev.isolated = 1;
		ev.pMetricValues = st->values;
		s = p->eval_values(&ev);
		if (s != NVPA_STATUS_SUCCESS)
			return tlg_nvpw_fail("NVPW_MetricsEvaluator_EvaluateToGpuValues", s);
		tlg_agg_range(g, st->values);
	}
	tlg_agg_finish(g);
	return 0;
}

/* Best effort, in reverse order of lg_open and of an interrupted pass. */
static void lg_close(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	const struct tlg_nvpw *p = g->nvpw;
	struct lg_state *st = st_of(g);

	if (!st)
		return;
	if (st->enabled) {
		CUpti_Profiler_DisableProfiling_Params dis = {
			.structSize = CUpti_Profiler_DisableProfiling_Params_STRUCT_SIZE
		};

		dis.ctx = g->ctx;
		(void)c->disable(&dis);
	}
	if (st->in_pass) {
		CUpti_Profiler_EndPass_Params ep = { .structSize = CUpti_Profiler_EndPass_Params_STRUCT_SIZE };

		ep.ctx = g->ctx;
		(void)c->end_pass(&ep);
	}
	end_session(g);
	if (st->eval) {
		NVPW_MetricsEvaluator_Destroy_Params d = { .structSize = NVPW_MetricsEvaluator_Destroy_Params_STRUCT_SIZE };

		d.pMetricsEvaluator = st->eval;
		(void)p->eval_destroy(&d);
	}
	free(st->eval_scratch);
	free(st->reqs);
	free(st->active_reqs);
	free(st->prefix);
	free(st->scratch);
	free(st->values);
	free(st);
	g->priv = NULL;
}

const struct tlg_backend tlg_legacy_backend = {
	.name = "profiling API (a range per kernel, user replay) with NVPW",
	.open = lg_open,
	.begin_pass = lg_begin_pass,
	.end_pass = lg_end_pass,
	.evaluate = lg_evaluate,
	.close = lg_close,
};
