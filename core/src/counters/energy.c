/* SPDX-License-Identifier: MIT */
/* A GPU's energy counter through NVML, loaded with dlopen() so that the
 * library neither links nor needs the NVIDIA driver (see energy.h). Only
 * the handful of NVML entry points used here are declared: they are part of
 * NVML's stable C ABI (the _v2 names exist since 2012's NVML 5.x), so no
 * nvml.h is needed to build. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include <tlreplay/energy.h>

#include "base/base_internal.h"
#include "counters/counters_internal.h"

#define NVML_DEFAULT_LIB "libnvidia-ml.so.1"
#define ENERGY_MIN_WINDOW_S 1.0

/* nvmlReturn_t values that get their own message or errno */
enum {
	NVML_OK = 0,
	NVML_E_INVALID_ARGUMENT = 2,
	NVML_E_NOT_SUPPORTED = 3,
	NVML_E_NO_PERMISSION = 4,
	NVML_E_NOT_FOUND = 6,
	NVML_E_DRIVER_NOT_LOADED = 9,
	NVML_E_LIBRARY_NOT_FOUND = 12,
	NVML_E_FUNCTION_NOT_FOUND = 13,
	NVML_E_LIB_RM_VERSION_MISMATCH = 18,
};

typedef int nvml_ret;
typedef struct nvml_device *nvml_dev;

struct nvml_api {
	nvml_ret (*init)(void);
	nvml_ret (*shutdown)(void);
	nvml_ret (*count)(unsigned int *n);
	nvml_ret (*handle)(unsigned int index, nvml_dev *dev);
	nvml_ret (*energy)(nvml_dev dev, unsigned long long *mj);
	nvml_ret (*name)(nvml_dev dev, char *buf, unsigned int len);	/* optional */
	const char *(*error_string)(nvml_ret r);			/* optional */
};

struct tl_energy {
	const struct nvml_api *api;
	nvml_dev dev;
	int index;
};

/* One loaded NVML per file name, kept for the life of the process: NVML
 * keeps global state that outlives nvmlShutdown(), and unloading it is not
 * something its users do. A failed load caches nothing, so that a later
 * open with another $TLREPLAY_NVML_LIB tries again. */
struct nvml_lib {
	struct nvml_lib *next;
	struct nvml_api api;
	char path[];
};

static struct nvml_lib *libs;
static pthread_mutex_t libs_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *nvml_error(const struct nvml_api *api, nvml_ret r)
{
	static _Thread_local char buf[32];
	const char *s = api->error_string ? api->error_string(r) : NULL;

	if (s && *s)
		return s;
	snprintf(buf, sizeof(buf), "NVML error %d", r);
	return buf;
}

/* The loaded NVML for @path, loading it when needed. */
static int nvml_load(const char *path, const struct nvml_api **out)
{
	struct nvml_lib *lib;
	const char *missing = NULL;
	void *dl = NULL;
	int err = 0;

	pthread_mutex_lock(&libs_lock);
	for (lib = libs; lib; lib = lib->next) {
		if (!strcmp(lib->path, path))
			goto out;
	}
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		const char *why = dlerror();

		err = tl_err(-ENOENT, "NVML is not available: cannot load %s (%s); "
			     "the NVIDIA driver is not installed here", path, why ? why : "?");
		goto out;
	}
	lib = calloc(1, sizeof(*lib) + strlen(path) + 1);
	if (!lib) {
		err = tl_err(-ENOMEM, "out of memory");
		goto out;
	}
	if (!tl_dlsym(dl, "nvmlInit_v2", &lib->api.init))
		missing = "nvmlInit_v2";
	else if (!tl_dlsym(dl, "nvmlShutdown", &lib->api.shutdown))
		missing = "nvmlShutdown";
	else if (!tl_dlsym(dl, "nvmlDeviceGetCount_v2", &lib->api.count))
		missing = "nvmlDeviceGetCount_v2";
	else if (!tl_dlsym(dl, "nvmlDeviceGetHandleByIndex_v2", &lib->api.handle))
		missing = "nvmlDeviceGetHandleByIndex_v2";
	else if (!tl_dlsym(dl, "nvmlDeviceGetTotalEnergyConsumption", &lib->api.energy))
		missing = "nvmlDeviceGetTotalEnergyConsumption";
	if (missing) {
		err = tl_err(-ENOENT, "NVML is not available: %s has no %s (NVML too old, "
			     "or not NVML)", path, missing);
		free(lib);
		lib = NULL;
		goto out;
	}
	tl_dlsym(dl, "nvmlDeviceGetName", &lib->api.name);
	tl_dlsym(dl, "nvmlErrorString", &lib->api.error_string);
	strcpy(lib->path, path);
	lib->next = libs;
	libs = lib;
	dl = NULL;	/* owned by the cache now */
out:
	pthread_mutex_unlock(&libs_lock);
	if (dl)
		dlclose(dl);
	if (!err)
		*out = &lib->api;
	return err;
}

/* errno for an NVML failure while starting up or probing. */
static int nvml_errno(nvml_ret r)
{
	switch (r) {
	case NVML_E_DRIVER_NOT_LOADED:
	case NVML_E_LIBRARY_NOT_FOUND:
	case NVML_E_LIB_RM_VERSION_MISMATCH:
	case NVML_E_NOT_FOUND:
	case NVML_E_INVALID_ARGUMENT:
		return -ENOENT;
	case NVML_E_NOT_SUPPORTED:
	case NVML_E_FUNCTION_NOT_FOUND:
		return -ENOTSUP;
	case NVML_E_NO_PERMISSION:
		return -EACCES;
	default:
		return -EIO;
	}
}

int tl_energy_open(int device, struct tl_energy **out)
{
	const char *path = getenv("TLREPLAY_NVML_LIB");
	const struct nvml_api *api = NULL;
	struct tl_energy *e = NULL;
	bool started = false;
	unsigned long long mj;
	unsigned int n = 0;
	char name[96] = "";
	nvml_ret r;
	int err;

	if (device < 0 || !out)
		return tl_err(-EINVAL, "energy: bad GPU index %d", device);
	path = path && *path ? path : NVML_DEFAULT_LIB;
	err = nvml_load(path, &api);
	if (err)
		goto out;
	r = api->init();
	if (r != NVML_OK) {
		err = tl_err(nvml_errno(r), "NVML could not start: %s", nvml_error(api, r));
		goto out;
	}
	started = true;
	r = api->count(&n);
	if (r != NVML_OK) {
		err = tl_err(-ENOENT, "NVML lists no GPU: %s", nvml_error(api, r));
		goto out;
	}
	if ((unsigned int)device >= n) {
		err = tl_err(-ENOENT, "GPU %d: NVML sees %u GPU%s", device, n, n == 1 ? "" : "s");
		goto out;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		err = tl_err(-ENOMEM, "out of memory");
		goto out;
	}
	e->api = api;
	e->index = device;
	r = api->handle((unsigned int)device, &e->dev);
	if (r != NVML_OK) {
		err = tl_err(nvml_errno(r), "GPU %d: %s", device, nvml_error(api, r));
		goto out;
	}
	if (api->name && api->name(e->dev, name, sizeof(name)) != NVML_OK)
		name[0] = '\0';
	/* One read now, so that a GPU without the counter fails here and not
	 * in the middle of a measurement. */
	r = api->energy(e->dev, &mj);
	if (r == NVML_E_NOT_SUPPORTED) {
		err = tl_err(-ENOTSUP, "GPU %d%s%s%s has no energy counter (NVML reports it "
			     "on Volta and newer GPUs)", device, *name ? " (" : "", name,
			     *name ? ")" : "");
		goto out;
	}
	if (r != NVML_OK) {
		err = tl_err(nvml_errno(r), "GPU %d: reading the energy counter: %s", device,
			     nvml_error(api, r));
		goto out;
	}
	*out = e;
	e = NULL;
out:
	free(e);
	if (err && started)
		api->shutdown();
	return err;
}

int tl_energy_read_mj(struct tl_energy *e, uint64_t *mj)
{
	unsigned long long v = 0;
	nvml_ret r;

	if (!e || !mj)
		return tl_err(-EINVAL, "energy: NULL argument");
	r = e->api->energy(e->dev, &v);
	if (r != NVML_OK) {
		return tl_err(-EIO, "GPU %d: reading the energy counter: %s", e->index,
			      nvml_error(e->api, r));
	}
	*mj = (uint64_t)v;
	return 0;
}

void tl_energy_close(struct tl_energy *e)
{
	if (!e)
		return;
	e->api->shutdown();
	free(e);
}

double tl_energy_min_window_s(void)
{
	return ENERGY_MIN_WINDOW_S;
}
