/* SPDX-License-Identifier: MIT */
/* Finding and loading libcupti, libnvperf_host and libcuda at run time
 * (their error codes become -errno in gpu_error.c). Nothing is linked, so
 * libtlreplay_gpu.so loads on machines without CUDA and says there what is
 * missing. Each library is loaded once and kept: CUPTI hooks itself into
 * the driver and must not be unloaded under it. */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_internal.h"

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tlg_cupti cupti;
static bool cupti_ok;
static struct tlg_nvpw nvpw;
static bool nvpw_ok;
static struct tlg_cuda cuda;
static bool cuda_ok;

/* Newest first: with several toolkits installed the newest CUPTI knows the
 * most chips. The worker preloads the one matching torch's CUDA, which the
 * RTLD_NOLOAD pass below then finds first. */
static const char *const cupti_names[] = {
	"libcupti.so.13", "libcupti.so.12", "libcupti.so.11.8", "libcupti.so.11.7",
	"libcupti.so.11.6", "libcupti.so.11.5", "libcupti.so.11.4", "libcupti.so",
};

/* POSIX's way to turn dlsym()'s void * into a function pointer. */
static bool sym(void *dl, const char *name, void *fnp)
{
	void *p = dlsym(dl, name);

	memcpy(fnp, &p, sizeof(p));
	return p != NULL;
}

static void dirname_of(const char *path, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (n >= size)
		n = 0;
	memcpy(dir, path, n);
	dir[n] = '\0';
}

/* The file a dlopen() handle came from (for messages and its neighbours). */
static void handle_path(void *dl, const char *fallback, char *out, size_t size)
{
	struct link_map *lm = NULL;

	if (!dlinfo(dl, RTLD_DI_LINKMAP, &lm) && lm && lm->l_name && *lm->l_name)
		snprintf(out, size, "%s", lm->l_name);
	else
		snprintf(out, size, "%s", fallback);
}

/* ------------------------------------------------------------ libcupti */

/* Try @name as given (loader search) and under the CUDA toolkit dirs. */
static void *open_cupti_named(const char *name, char *why, size_t why_size)
{
	const char *roots[3] = { getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda" };
	static const char *const subdirs[] = { "extras/CUPTI/lib64", "lib64", "lib" };
	char path[PATH_MAX];
	void *dl;
	size_t i, j;

	dl = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (dl)
		return dl;
	if (!*why)
		snprintf(why, why_size, "%s", dlerror());
	for (i = 0; i < 3; i++) {
		if (!roots[i] || !*roots[i])
			continue;
		for (j = 0; j < sizeof(subdirs) / sizeof(subdirs[0]); j++) {
			snprintf(path, sizeof(path), "%s/%s/%s", roots[i], subdirs[j], name);
			if (access(path, R_OK))
				continue;
			dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
			if (dl)
				return dl;
			snprintf(why, why_size, "%s", dlerror());
		}
	}
	return NULL;
}

static void *open_cupti(char *why, size_t why_size)
{
	const char *env = getenv("TLREPLAY_CUPTI_LIB");
	size_t i, n = sizeof(cupti_names) / sizeof(cupti_names[0]);
	void *dl;

	if (env && *env) {
		dl = dlopen(env, RTLD_NOW | RTLD_LOCAL);
		if (!dl)
			snprintf(why, why_size, "cannot load TLREPLAY_CUPTI_LIB=%s (%s)", env, dlerror());
		return dl;
	}
	/* one already in the process first: torch's, or what the worker preloaded */
	for (i = 0; i < n; i++) {
		dl = dlopen(cupti_names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
		if (dl)
			return dl;
	}
	for (i = 0; i < n; i++) {
		dl = open_cupti_named(cupti_names[i], why, why_size);
		if (dl)
			return dl;
	}
	return NULL;
}

/* CUPTI loads libnvperf_host.so by its soname: when CUPTI came from a
 * directory the loader does not search, preloading the copies beside it
 * (same toolkit, same version) makes that lookup find them. */
static void preload_neighbours(const char *cupti_path)
{
	static const char *const libs[] = { "libnvperf_host.so", "libnvperf_target.so" };
	char dir[PATH_MAX], path[PATH_MAX + 32];
	size_t i;

	dirname_of(cupti_path, dir, sizeof(dir));
	if (!*dir)
		return;
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, libs[i]);
		if (!access(path, R_OK))
			(void)dlopen(path, RTLD_NOW | RTLD_LOCAL);	/* kept for good */
	}
}

static bool load_range_api(void *dl, struct tlg_cupti *c)
{
	return sym(dl, "cuptiRangeProfilerEnable", &c->rp_enable) &&
	       sym(dl, "cuptiRangeProfilerDisable", &c->rp_disable) &&
	       sym(dl, "cuptiRangeProfilerSetConfig", &c->rp_set_config) &&
	       sym(dl, "cuptiRangeProfilerStart", &c->rp_start) &&
	       sym(dl, "cuptiRangeProfilerStop", &c->rp_stop) &&
	       sym(dl, "cuptiRangeProfilerPushRange", &c->rp_push) &&
	       sym(dl, "cuptiRangeProfilerPopRange", &c->rp_pop) &&
	       sym(dl, "cuptiRangeProfilerDecodeData", &c->rp_decode) &&
	       sym(dl, "cuptiRangeProfilerGetCounterDataSize", &c->rp_data_size) &&
	       sym(dl, "cuptiRangeProfilerCounterDataImageInitialize", &c->rp_data_init) &&
	       sym(dl, "cuptiRangeProfilerGetCounterDataInfo", &c->rp_data_info) &&
	       sym(dl, "cuptiProfilerHostInitialize", &c->host_init) &&
	       sym(dl, "cuptiProfilerHostDeinitialize", &c->host_deinit) &&
	       sym(dl, "cuptiProfilerHostGetMetricProperties", &c->host_props) &&
	       sym(dl, "cuptiProfilerHostConfigAddMetrics", &c->host_add) &&
	       sym(dl, "cuptiProfilerHostGetConfigImageSize", &c->host_config_size) &&
	       sym(dl, "cuptiProfilerHostGetConfigImage", &c->host_config_image) &&
	       sym(dl, "cuptiProfilerHostGetNumOfPasses", &c->host_passes) &&
	       sym(dl, "cuptiProfilerHostEvaluateToGpuValues", &c->host_evaluate);
}

static bool load_legacy_api(void *dl, struct tlg_cupti *c)
{
	return sym(dl, "cuptiProfilerCounterDataImageCalculateSize", &c->image_size) &&
	       sym(dl, "cuptiProfilerCounterDataImageInitialize", &c->image_init) &&
	       sym(dl, "cuptiProfilerCounterDataImageCalculateScratchBufferSize", &c->scratch_size) &&
	       sym(dl, "cuptiProfilerCounterDataImageInitializeScratchBuffer", &c->scratch_init) &&
	       sym(dl, "cuptiProfilerBeginSession", &c->begin_session) &&
	       sym(dl, "cuptiProfilerEndSession", &c->end_session) &&
	       sym(dl, "cuptiProfilerSetConfig", &c->set_config) &&
	       sym(dl, "cuptiProfilerUnsetConfig", &c->unset_config) &&
	       sym(dl, "cuptiProfilerBeginPass", &c->begin_pass) &&
	       sym(dl, "cuptiProfilerEndPass", &c->end_pass) &&
	       sym(dl, "cuptiProfilerEnableProfiling", &c->enable) &&
	       sym(dl, "cuptiProfilerDisableProfiling", &c->disable) &&
	       sym(dl, "cuptiProfilerPushRange", &c->push_range) &&
	       sym(dl, "cuptiProfilerPopRange", &c->pop_range) &&
	       sym(dl, "cuptiProfilerFlushCounterData", &c->flush);
}

int tlg_load_cupti(const struct tlg_cupti **out)
{
	struct tlg_cupti c;
	char why[PATH_MAX + 200] = "";
	void *dl = NULL;
	int err = 0;

	pthread_mutex_lock(&load_lock);
	if (cupti_ok)
		goto out;
	memset(&c, 0, sizeof(c));
	dl = open_cupti(why, sizeof(why));
	if (!dl) {
		err = tlg_fail(-ENOENT, "libcupti is not available: %s; install the CUDA toolkit's "
			       "CUPTI or set TLREPLAY_CUPTI_LIB to its path", *why ? why : "not found");
		goto out;
	}
	if (!sym(dl, "cuptiGetResultString", &c.result_string) ||
	    !sym(dl, "cuptiProfilerInitialize", &c.profiler_init) ||
	    !sym(dl, "cuptiProfilerDeInitialize", &c.profiler_deinit) ||
	    !sym(dl, "cuptiDeviceGetChipName", &c.chip_name) ||
	    !sym(dl, "cuptiProfilerGetCounterAvailability", &c.counter_availability)) {
		handle_path(dl, "libcupti", c.path, sizeof(c.path));
		err = tlg_fail(-ENOENT, "%s is not a CUPTI with the Profiling API (CUDA 11.4 or "
			       "newer is needed)", c.path);
		goto out;
	}
	handle_path(dl, "libcupti", c.path, sizeof(c.path));
	sym(dl, "cuptiGetErrorMessage", &c.error_message);
	if (sym(dl, "cuptiGetVersion", &c.get_version) && c.get_version(&c.version) != CUPTI_SUCCESS)
		c.version = 0;
	c.has_range = load_range_api(dl, &c);
	c.has_legacy = load_legacy_api(dl, &c);
	if (!c.has_range && !c.has_legacy) {
		err = tlg_fail(-ENOENT, "%s has neither the Range Profiler nor the Profiling API",
			       c.path);
		goto out;
	}
	preload_neighbours(c.path);
	cupti = c;
	cupti_ok = true;
	dl = NULL;
out:
	pthread_mutex_unlock(&load_lock);
	if (dl)
		dlclose(dl);
	if (!err)
		*out = &cupti;
	return err;
}

/* ------------------------------------------------------------ libnvperf_host */

static void *open_nvpw(const struct tlg_cupti *c, char *why, size_t why_size)
{
	const char *env = getenv("TLREPLAY_NVPERF_LIB");
	char dir[PATH_MAX], path[PATH_MAX + 32];
	void *dl;

	if (env && *env) {
		dl = dlopen(env, RTLD_NOW | RTLD_LOCAL);
		if (!dl)
			snprintf(why, why_size, "cannot load TLREPLAY_NVPERF_LIB=%s (%s)", env, dlerror());
		return dl;
	}
	dl = dlopen("libnvperf_host.so", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (dl)
		return dl;
	/* the copy beside libcupti: the same toolkit, hence the same version */
	dirname_of(c->path, dir, sizeof(dir));
	if (*dir) {
		snprintf(path, sizeof(path), "%s/libnvperf_host.so", dir);
		dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (dl)
			return dl;
	}
	dl = dlopen("libnvperf_host.so", RTLD_NOW | RTLD_LOCAL);
	if (!dl)
		snprintf(why, why_size, "%s", dlerror());
	return dl;
}

int tlg_load_nvpw(const struct tlg_cupti *c, const struct tlg_nvpw **out)
{
	struct tlg_nvpw p;
	char why[PATH_MAX + 200] = "";
	NVPW_InitializeHost_Params init = { .structSize = NVPW_InitializeHost_Params_STRUCT_SIZE };
	NVPA_Status s;
	void *dl = NULL;
	int err = 0;

	pthread_mutex_lock(&load_lock);
	if (nvpw_ok)
		goto out;
	memset(&p, 0, sizeof(p));
	dl = open_nvpw(c, why, sizeof(why));
	if (!dl) {
		err = tlg_fail(-ENOENT, "libnvperf_host is not available (%s): the Profiling API of "
			       "%s needs it", *why ? why : "not found", c->path);
		goto out;
	}
	if (!sym(dl, "NVPW_InitializeHost", &p.init_host) ||
	    !sym(dl, "NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize", &p.eval_scratch_size) ||
	    !sym(dl, "NVPW_CUDA_MetricsEvaluator_Initialize", &p.eval_init) ||
	    !sym(dl, "NVPW_MetricsEvaluator_Destroy", &p.eval_destroy) ||
	    !sym(dl, "NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest", &p.eval_request) ||
	    !sym(dl, "NVPW_MetricsEvaluator_GetMetricRawDependencies", &p.eval_raw_deps) ||
	    !sym(dl, "NVPW_MetricsEvaluator_GetMetricDimUnits", &p.eval_dim_units) ||
	    !sym(dl, "NVPW_MetricsEvaluator_DimUnitToString", &p.eval_dim_unit_string) ||
	    !sym(dl, "NVPW_MetricsEvaluator_SetDeviceAttributes", &p.eval_set_device) ||
	    !sym(dl, "NVPW_MetricsEvaluator_EvaluateToGpuValues", &p.eval_values) ||
	    !sym(dl, "NVPW_CounterData_GetNumRanges", &p.num_ranges) ||
	    !sym(dl, "NVPW_CUDA_RawMetricsConfig_Create_V2", &p.config_create) ||
	    !sym(dl, "NVPW_RawMetricsConfig_Destroy", &p.config_destroy) ||
	    !sym(dl, "NVPW_RawMetricsConfig_SetCounterAvailability", &p.config_availability) ||
	    !sym(dl, "NVPW_RawMetricsConfig_BeginPassGroup", &p.config_begin_group) ||
	    !sym(dl, "NVPW_RawMetricsConfig_AddMetrics", &p.config_add) ||
	    !sym(dl, "NVPW_RawMetricsConfig_EndPassGroup", &p.config_end_group) ||
	    !sym(dl, "NVPW_RawMetricsConfig_GenerateConfigImage", &p.config_generate) ||
	    !sym(dl, "NVPW_RawMetricsConfig_GetConfigImage", &p.config_image) ||
	    !sym(dl, "NVPW_RawMetricsConfig_GetNumPasses_V2", &p.config_passes) ||
	    !sym(dl, "NVPW_CUDA_CounterDataBuilder_Create", &p.builder_create) ||
	    !sym(dl, "NVPW_CounterDataBuilder_Destroy", &p.builder_destroy) ||
	    !sym(dl, "NVPW_CounterDataBuilder_AddMetrics", &p.builder_add) ||
	    !sym(dl, "NVPW_CounterDataBuilder_GetCounterDataPrefix", &p.builder_prefix)) {
		err = tlg_fail(-ENOENT, "libnvperf_host has no metrics evaluator (%s): CUDA 11.4 or "
			       "newer is needed", dlerror());
		goto out;
	}
	handle_path(dl, "libnvperf_host.so", p.path, sizeof(p.path));
	s = p.init_host(&init);
	if (s != NVPA_STATUS_SUCCESS) {
		err = tlg_nvpw_fail("NVPW_InitializeHost", s);
		goto out;
	}
	nvpw = p;
	nvpw_ok = true;
	dl = NULL;
out:
	pthread_mutex_unlock(&load_lock);
	if (dl)
		dlclose(dl);
	if (!err)
		*out = &nvpw;
	return err;
}

/* ------------------------------------------------------------ libcuda */

int tlg_load_cuda(const struct tlg_cuda **out)
{
	const char *env = getenv("TLREPLAY_CUDA_LIB");
	const char *name = env && *env ? env : "libcuda.so.1";
	struct tlg_cuda c;
	void *dl = NULL;
	int err = 0;

	pthread_mutex_lock(&load_lock);
	if (cuda_ok)
		goto out;
	memset(&c, 0, sizeof(c));
	dl = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (!dl)
		dl = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		err = tlg_fail(-ENOENT, "the CUDA driver is not available: cannot load %s (%s)",
			       name, dlerror());
		goto out;
	}
	/* the _v2 names are the ones cuda.h maps the plain names to since CUDA 4-11 */
	if (!sym(dl, "cuInit", &c.init) || !sym(dl, "cuDeviceGet", &c.device_get) ||
	    !sym(dl, "cuDeviceGetCount", &c.device_count) ||
	    !sym(dl, "cuDeviceGetName", &c.device_name) ||
	    !sym(dl, "cuDevicePrimaryCtxRetain", &c.primary_retain) ||
	    (!sym(dl, "cuDevicePrimaryCtxRelease_v2", &c.primary_release) &&
	     !sym(dl, "cuDevicePrimaryCtxRelease", &c.primary_release)) ||
	    !sym(dl, "cuCtxPushCurrent_v2", &c.ctx_push) ||
	    !sym(dl, "cuCtxPopCurrent_v2", &c.ctx_pop) ||
	    !sym(dl, "cuCtxSynchronize", &c.ctx_sync) ||
	    !sym(dl, "cuGetErrorString", &c.error_string)) {
		err = tlg_fail(-ENOENT, "%s is not a usable CUDA driver (%s)", name, dlerror());
		goto out;
	}
	cuda = c;
	cuda_ok = true;
	dl = NULL;
out:
	pthread_mutex_unlock(&load_lock);
	if (dl)
		dlclose(dl);
	if (!err)
		*out = &cuda;
	return err;
}
