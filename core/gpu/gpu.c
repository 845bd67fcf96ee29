/* SPDX-License-Identifier: MIT */
/* The public API of libtlreplay_gpu.so (tlreplay_gpu.h): argument checks,
 * the device's context, the pass sequence, and the choice of backend. The
 * CUPTI work itself is in gpu_range.c (Range Profiler) and gpu_legacy.c
 * (Profiling API + NVPW); errors in gpu_error.c, the metric list the
 * backends plan in gpu_metrics.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"

#define TLG_MAX_METRICS 256
#define TLG_MAX_NAME 256

int tlg_abi_version(void)
{
	return TLG_ABI_VERSION;
}

/* The retained primary context is made current around each CUPTI step:
 * CUPTI's calls act on the current context, and the caller's thread may
 * have none (torch sets it lazily) or another device's. */
static int ctx_enter(struct tlg *g)
{
	CUresult r = g->cu->ctx_push(g->ctx);

	return r == CUDA_SUCCESS ? 0 : tlg_cuda_fail(g->cu, "cuCtxPushCurrent", r);
}

static void ctx_leave(struct tlg *g)
{
	CUcontext old;

	(void)g->cu->ctx_pop(&old);
}

/* Which API: the Range Profiler when this CUPTI has it, unless
 * $TLREPLAY_CUPTI_API says otherwise. */
static int pick_backend(struct tlg *g)
{
	const char *want = getenv("TLREPLAY_CUPTI_API");
	const struct tlg_cupti *c = g->cupti;

	if (!want || !*want || !strcmp(want, "auto")) {
		g->be = c->has_range ? &tlg_range_backend : &tlg_legacy_backend;
	} else if (!strcmp(want, "range")) {
		if (!c->has_range)
			return tlg_fail(-ENOTSUP, "TLREPLAY_CUPTI_API=range, but %s has no Range "
					"Profiler (CUDA 12.6 or newer)", c->path);
		g->be = &tlg_range_backend;
	} else if (!strcmp(want, "legacy")) {
		if (!c->has_legacy)
			return tlg_fail(-ENOTSUP, "TLREPLAY_CUPTI_API=legacy, but %s has no "
					"Profiling API", c->path);
		g->be = &tlg_legacy_backend;
	} else {
		return tlg_fail(-EINVAL, "TLREPLAY_CUPTI_API=%s: expected range, legacy or auto", want);
	}
	return 0;
}

static int check_names(const char *const *names, int n)
{
	int i;

	if (!names || n <= 0 || n > TLG_MAX_METRICS)
		return tlg_fail(-EINVAL, "between 1 and %d metric names are needed, not %d",
				TLG_MAX_METRICS, n);
	for (i = 0; i < n; i++) {
		if (!names[i] || !*names[i] || strlen(names[i]) >= TLG_MAX_NAME)
			return tlg_fail(-EINVAL, "metric %d: empty or too long a name", i);
	}
	return 0;
}

/* The chip's name and what counters this context can use: both shape the
 * metric plan, and the availability image must be read before a session
 * starts (CUPTI refuses it during one). */
static int query_device(struct tlg *g)
{
	const struct tlg_cupti *c = g->cupti;
	CUpti_Device_GetChipName_Params chip = { .structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE };
	CUpti_Profiler_GetCounterAvailability_Params av = {
		.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE
	};
	CUptiResult r;

	chip.deviceIndex = (size_t)g->device;
	r = c->chip_name(&chip);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiDeviceGetChipName", r);
	snprintf(g->chip, sizeof(g->chip), "%s", chip.pChipName ? chip.pChipName : "?");

	av.ctx = g->ctx;
	r = c->counter_availability(&av);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerGetCounterAvailability", r);
	g->avail = calloc(1, av.counterAvailabilityImageSize ? av.counterAvailabilityImageSize : 1);
	if (!g->avail)
		return tlg_fail(-ENOMEM, "out of memory");
	g->avail_size = av.counterAvailabilityImageSize;
	av.pCounterAvailabilityImage = g->avail;
	r = c->counter_availability(&av);
	if (r != CUPTI_SUCCESS)
		return tlg_cupti_fail(c, "cuptiProfilerGetCounterAvailability", r);
	return 0;
}

static int open_device(struct tlg *g)
{
	const struct tlg_cuda *cu = g->cu;
	CUresult r;
	int count = 0;

	r = cu->init(0);
	if (r != CUDA_SUCCESS)
		return tlg_cuda_fail(cu, "cuInit", r);
	r = cu->device_count(&count);
	if (r != CUDA_SUCCESS)
		return tlg_cuda_fail(cu, "cuDeviceGetCount", r);
	if (g->device >= count)
		return tlg_fail(-ENOENT, "CUDA device %d: the driver sees %d device%s", g->device,
				count, count == 1 ? "" : "s");
	r = cu->device_get(&g->dev, g->device);
	if (r != CUDA_SUCCESS)
		return tlg_cuda_fail(cu, "cuDeviceGet", r);
	/* torch runs on the primary context: retaining it gives us the same one */
	r = cu->primary_retain(&g->ctx, g->dev);
	if (r != CUDA_SUCCESS)
		return tlg_cuda_fail(cu, "cuDevicePrimaryCtxRetain", r);
	g->ctx_retained = true;
	return 0;
}

int tlg_open(int device, const char *const *names, int n, struct tlg **out)
{
	CUpti_Profiler_Initialize_Params init = { .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE };
	struct tlg *g = NULL;
	bool entered = false;
	CUptiResult r;
	int err, i;

	if (!out || device < 0)
		return tlg_fail(-EINVAL, "tlg_open: bad device %d or no handle pointer", device);
	err = check_names(names, n);
	if (err)
		return err;
	g = calloc(1, sizeof(*g));
	if (!g)
		return tlg_fail(-ENOMEM, "out of memory");
	g->device = device;
	g->n = g->n_user = n;
	g->weight = -1;
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], WEIGHT_METRIC))
			g->weight = i;
	/* each kernel's time weighs its ratios: counted when not asked for */
	if (g->weight < 0)
		g->weight = g->n++;
	g->m = calloc((size_t)g->n, sizeof(*g->m));
	g->active = calloc((size_t)g->n, sizeof(*g->active));
	g->active_idx = calloc((size_t)g->n, sizeof(*g->active_idx));
	g->agg_sum = calloc((size_t)g->n, sizeof(*g->agg_sum));
	g->agg_wsum = calloc((size_t)g->n, sizeof(*g->agg_wsum));
	g->agg_max = calloc((size_t)g->n, sizeof(*g->agg_max));
	g->agg_min = calloc((size_t)g->n, sizeof(*g->agg_min));
	if (!g->m || !g->active || !g->active_idx || !g->agg_sum || !g->agg_wsum || !g->agg_max || !g->agg_min) {
		err = tlg_fail(-ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < g->n; i++) {
		g->m[i].name = strdup(i < n ? names[i] : WEIGHT_METRIC);
		g->m[i].kind = TLG_KIND_UNKNOWN;
		g->m[i].value = NAN;
		if (!g->m[i].name) {
			err = tlg_fail(-ENOMEM, "out of memory");
			goto out;
		}
	}
	/* CUPTI first: without it nothing else matters, and its absence is
	 * the common case on machines without a GPU */
	err = tlg_load_cupti(&g->cupti);
	if (err)
		goto out;
	err = pick_backend(g);
	if (err)
		goto out;
	if (g->be == &tlg_legacy_backend) {
		err = tlg_load_nvpw(g->cupti, &g->nvpw);
		if (err)
			goto out;
	}
	err = tlg_load_cuda(&g->cu);
	if (err)
		goto out;
	err = open_device(g);
	if (err)
		goto out;
	err = ctx_enter(g);
	if (err)
		goto out;
	entered = true;
	r = g->cupti->profiler_init(&init);
	if (r != CUPTI_SUCCESS) {
		err = tlg_cupti_fail(g->cupti, "cuptiProfilerInitialize", r);
		goto out;
	}
	g->profiler_inited = true;
	err = query_device(g);
	if (err)
		goto out;
	err = g->be->open(g);
	if (err)
		goto out;
	snprintf(g->backend, sizeof(g->backend), "%s, CUPTI %u (%s), chip %s", g->be->name,
		 g->cupti->version, g->cupti->path, g->chip);
	g->state = TLG_READY;
out:
	if (entered)
		ctx_leave(g);
	if (err) {
		tlg_close(g);
		return err;
	}
	*out = g;
	return 0;
}

int tlg_num_passes(const struct tlg *g)
{
	if (!g)
		return tlg_fail(-EINVAL, "no handle");
	return (int)g->passes;
}

const char *tlg_backend(const struct tlg *g)
{
	return g ? g->backend : "";
}

int tlg_metric_status(const struct tlg *g, int i)
{
	if (!g || i < 0 || i >= g->n_user)
		return tlg_fail(-EINVAL, "no metric %d", i);
	return g->m[i].status;
}

const char *tlg_metric_why(const struct tlg *g, int i)
{
	return g && i >= 0 && i < g->n_user ? g->m[i].why : "";
}

const char *tlg_metric_unit(const struct tlg *g, int i)
{
	return g && i >= 0 && i < g->n_user ? g->m[i].unit : "";
}

int tlg_metric_kind(const struct tlg *g, int i)
{
	return g && i >= 0 && i < g->n_user ? g->m[i].kind : TLG_KIND_UNKNOWN;
}

/* A CUPTI that keeps asking for passes past its own plan would make the
 * caller loop forever: give up well after the plan. */
static bool too_many_passes(const struct tlg *g)
{
	return (size_t)g->pass > 2 * g->passes + 8;
}

int tlg_begin_pass(struct tlg *g, int pass)
{
	CUresult r;
	int err;

	if (!g)
		return tlg_fail(-EINVAL, "no handle");
	if (g->state != TLG_READY)
		return tlg_fail(-EINVAL, "tlg_begin_pass: %s", g->state == TLG_IN_PASS ?
				"a pass is already open" : "no pass is left to run");
	if (pass != g->pass)
		return tlg_fail(-EINVAL, "tlg_begin_pass: pass %d, but %d is next", pass, g->pass);
	err = ctx_enter(g);
	if (err)
		return err;
	/* what ran before (the caller's restore copies) must not be counted */
	r = g->cu->ctx_sync();
	if (r != CUDA_SUCCESS)
		err = tlg_cuda_fail(g->cu, "cuCtxSynchronize", r);
	else
		err = g->be->begin_pass(g);
	ctx_leave(g);
	g->state = err ? TLG_BROKEN : TLG_IN_PASS;
	return err;
}

int tlg_end_pass(struct tlg *g, int pass)
{
	CUresult r;
	int err, done = 0;

	if (!g)
		return tlg_fail(-EINVAL, "no handle");
	if (g->state != TLG_IN_PASS || pass != g->pass)
		return tlg_fail(-EINVAL, "tlg_end_pass: pass %d is not open", pass);
	err = ctx_enter(g);
	if (err)
		return err;
	/* the region's kernels must finish inside the range */
	r = g->cu->ctx_sync();
	if (r != CUDA_SUCCESS)
		err = tlg_cuda_fail(g->cu, "cuCtxSynchronize", r);
	else
		done = err = g->be->end_pass(g);
	ctx_leave(g);
	if (err < 0) {
		g->state = TLG_BROKEN;
		return err;
	}
	g->pass++;
	g->state = done ? TLG_SUBMITTED : TLG_READY;
	if (!done && too_many_passes(g)) {
		g->state = TLG_BROKEN;
		return tlg_fail(-EIO, "CUPTI still wants passes after %d (it planned %zu)", g->pass,
				g->passes);
	}
	return done;
}

int tlg_values(struct tlg *g, double *out)
{
	int err = 0, i;

	if (!g || !out)
		return tlg_fail(-EINVAL, "no handle or output");
	if (g->state == TLG_SUBMITTED) {
		err = ctx_enter(g);
		if (err)
			return err;
		err = g->be->evaluate(g);
		ctx_leave(g);
		g->state = err ? TLG_BROKEN : TLG_DECODED;
		if (err)
			return err;
	}
	if (g->state != TLG_DECODED)
		return tlg_fail(-EINVAL, "tlg_values: CUPTI has not had all its passes yet");
	for (i = 0; i < g->n_user; i++)
		out[i] = g->m[i].status ? NAN : g->m[i].value;
	return 0;
}

void tlg_close(struct tlg *g)
{
	CUpti_Profiler_DeInitialize_Params deinit = { .structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE };
	int i;

	if (!g)
		return;
	/* a direct push: a failure here must not replace the error being reported */
	if (g->ctx_retained && g->cu->ctx_push(g->ctx) == CUDA_SUCCESS) {
		if (g->be && g->priv)
			g->be->close(g);
		if (g->profiler_inited)
			(void)g->cupti->profiler_deinit(&deinit);
		ctx_leave(g);
	}
	if (g->ctx_retained)
		(void)g->cu->primary_release(g->dev);
	for (i = 0; g->m && i < g->n; i++)
		free(g->m[i].name);
	free(g->m);
	free(g->active);
	free(g->active_idx);
	free(g->agg_sum);
	free(g->agg_wsum);
	free(g->agg_max);
	free(g->agg_min);
	free(g->avail);
	free(g->config);
	free(g->data);
	free(g);
}
