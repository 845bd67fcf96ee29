/* SPDX-License-Identifier: MIT */
/* The PMU's own event names through libpfm4, loaded with dlopen() so that
 * the library neither links nor needs it: where libpfm.so.4 is missing
 * (the GPU machines), such names are simply unknown and the error says why.
 * $TLREPLAY_LIBPFM names another file to load (a bundle's copy; tests). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "counters/counters_internal.h"

/* The headers give the structures' layout; nothing is linked from them. */
#if defined(__has_include)
#if __has_include(<perfmon/pfmlib_perf_event.h>)
#define TL_HAVE_PFM 1
#include <perfmon/pfmlib_perf_event.h>
#endif
#endif

#ifdef TL_HAVE_PFM

static struct {
	pfm_err_t (*initialize)(void);
	const char *(*strerror)(int code);
	pfm_err_t (*encode)(const char *str, int dfl_plm, pfm_os_t os, void *args);
	pfm_err_t (*pmu_info)(pfm_pmu_t pmu, pfm_pmu_info_t *info);
	int (*event_next)(int idx);
	pfm_err_t (*event_info)(int idx, pfm_os_t os, pfm_event_info_t *info);
	bool ok;
	char why[300];
} pfm;

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;

/* Loaded once and never unloaded: libpfm4 keeps its tables in globals. */
static void pfm_load(void)
{
	const char *lib = getenv("TLREPLAY_LIBPFM");
	void *dl;
	int r;

	lib = lib && *lib ? lib : "libpfm.so.4";
	dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		snprintf(pfm.why, sizeof(pfm.why), "libpfm4 could not be loaded (%s)", dlerror());
		return;
	}
	if (!tl_dlsym(dl, "pfm_initialize", &pfm.initialize) ||
	    !tl_dlsym(dl, "pfm_strerror", &pfm.strerror) ||
	    !tl_dlsym(dl, "pfm_get_os_event_encoding", &pfm.encode) ||
	    !tl_dlsym(dl, "pfm_get_pmu_info", &pfm.pmu_info) ||
	    !tl_dlsym(dl, "pfm_get_event_next", &pfm.event_next) ||
	    !tl_dlsym(dl, "pfm_get_event_info", &pfm.event_info)) {
		snprintf(pfm.why, sizeof(pfm.why), "%s is not libpfm4 (%s)", lib, dlerror());
		dlclose(dl);
		return;
	}
	r = pfm.initialize();
	if (r != PFM_SUCCESS) {
		snprintf(pfm.why, sizeof(pfm.why), "libpfm4 failed to start: %s", pfm.strerror(r));
		return;
	}
	pfm.ok = true;
	tl_log(TL_LOG_DEBUG, "counters: libpfm4 loaded from %s", lib);
}

const char *tl_cnt_pfm_unavailable(void)
{
	pthread_once(&pfm_once, pfm_load);
	return pfm.ok ? NULL : pfm.why;
}

/* Whether a libpfm4 string sets its own privilege levels (":u", ":k=1"). */
static bool pfm_has_priv(const char *name)
{
	const char *s = strchr(name, ':');

	for (; s; s = strchr(s + 1, ':')) {
		if (s[1] && strchr("ukh", s[1]) && (s[2] == ':' || s[2] == '=' || s[2] == '\0'))
			return true;
	}
	return false;
}

int tl_cnt_pfm_encode(const char *name, struct perf_event_attr *attr, bool *priv)
{
	pfm_perf_encode_arg_t arg;
	struct perf_event_attr a;
	int r;

	if (tl_cnt_pfm_unavailable())
		return -ENOTSUP;
	memset(&a, 0, sizeof(a));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &a;
	arg.size = sizeof(arg);
	/* Both levels unless the name says otherwise; the caller narrows an
	 * event without its own levels as it does perf's names. */
	r = pfm.encode(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (r == PFM_ERR_NOTFOUND)
		return -ENOENT;
	if (r != PFM_SUCCESS)
		return tl_err(-EINVAL, "libpfm4 knows '%s' but cannot encode it: %s", name,
			      pfm.strerror(r));
	/* Counting only: drop what libpfm4 may set for sampling. */
	a.sample_period = 0;
	a.sample_type = 0;
	a.freq = 0;
	*attr = a;
	*priv = pfm_has_priv(name);
	return 0;
}

/* One line of description: libpfm4's may run over several sentences. */
static void pfm_event_line(const pfm_pmu_info_t *pi, const pfm_event_info_t *ei,
			   tl_cnt_list_fn fn, void *ctx)
{
	char name[256], desc[256];
	const char *d = ei->desc ? ei->desc : "";
	size_t n = strcspn(d, "\n");

	snprintf(name, sizeof(name), "%s::%s", pi->name, ei->name);
	snprintf(desc, sizeof(desc), "libpfm4 %s event: %.*s", pi->name,
		 (int)(n > 180 ? 180 : n), d);
	fn(name, desc, ctx);
}

void tl_cnt_pfm_foreach(tl_cnt_list_fn fn, void *ctx, size_t max)
{
	pfm_pmu_info_t pi;
	pfm_event_info_t ei;
	size_t shown = 0, left = 0;
	char note[200];
	int p, i;

	if (tl_cnt_pfm_unavailable())
		return;
	for (p = 0; p < PFM_PMU_MAX; p++) {
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		/* perf and perf_raw repeat the generic names listed above */
		if (pfm.pmu_info((pfm_pmu_t)p, &pi) != PFM_SUCCESS || !pi.is_present ||
		    !strcmp(pi.name, "perf") || !strcmp(pi.name, "perf_raw"))
			continue;
		for (i = pi.first_event; i != -1; i = pfm.event_next(i)) {
			memset(&ei, 0, sizeof(ei));
			ei.size = sizeof(ei);
			if (pfm.event_info(i, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
				continue;
			if (shown >= max) {
				left++;
				continue;
			}
			pfm_event_line(&pi, &ei, fn, ctx);
			shown++;
		}
	}
	if (left) {
		snprintf(note, sizeof(note), "... and %zu more libpfm4 events (libpfm4's "
			 "showevtinfo lists them all)", left);
		fn("", note, ctx);
	}
}

#else /* !TL_HAVE_PFM */

const char *tl_cnt_pfm_unavailable(void)
{
	return "libtlreplay was built without libpfm4's headers (libpfm4-dev)";
}

int tl_cnt_pfm_encode(const char *name, struct perf_event_attr *attr, bool *priv)
{
	TL_UNUSED(name);
	TL_UNUSED(attr);
	TL_UNUSED(priv);
	return -ENOTSUP;
}

void tl_cnt_pfm_foreach(tl_cnt_list_fn fn, void *ctx, size_t max)
{
	TL_UNUSED(fn);
	TL_UNUSED(ctx);
	TL_UNUSED(max);
}

#endif
