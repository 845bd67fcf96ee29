/* SPDX-License-Identifier: MIT */
/* libtlreplay_gpu.so without a GPU: loaded with dlopen() as the worker
 * loads it (ctypes), from $TLREPLAY_BUILD or the build directory above this
 * program; skipped when it was not built (no CUDA headers). First the
 * failures with CUPTI missing or not CUPTI and bad arguments, then against
 * a fake libcupti (Range Profiler + Profiler Host) and a fake libcuda
 * (tests/unit/fake_cupti.c, fake_cuda.c, built next to this program): no
 * driver, no such device, counters restricted to admin users, a busy GPU,
 * unknown metrics, the pass sequence and its misuse, the values, and that
 * every CUPTI object, context push and context retain is undone. */
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../core/gpu/tlreplay_gpu.h"
#include "tap.h"

static struct {
	int (*abi_version)(void);
	const char *(*error)(void);
	int (*open)(int device, const char *const *names, int n, struct tlg **out);
	int (*num_passes)(const struct tlg *g);
	const char *(*backend)(const struct tlg *g);
	int (*metric_status)(const struct tlg *g, int i);
	const char *(*metric_why)(const struct tlg *g, int i);
	const char *(*metric_unit)(const struct tlg *g, int i);
	int (*metric_kind)(const struct tlg *g, int i);
	int (*begin_pass)(struct tlg *g, int pass);
	int (*end_pass)(struct tlg *g, int pass);
	int (*values)(struct tlg *g, double *out);
	void (*close)(struct tlg *g);
} L;

static struct {
	int (*cupti_live)(void);
	int (*cupti_passes)(void);
	const char *(*cupti_why)(void);
	int (*cuda_syncs)(void);
	int (*cuda_depth)(void);
	int (*cuda_retained)(void);
} F;

static char build_dir[PATH_MAX];

static int has(const char *s, const char *sub)
{
	return s && strstr(s, sub) != NULL;
}

static int sym(void *dl, const char *name, void *fnp)
{
	void *p = dlsym(dl, name);

	memcpy(fnp, &p, sizeof(p));
	return p != NULL;
}

/* $TLREPLAY_BUILD, else the directory above this program ($(O)/tests/..). */
static void find_build_dir(void)
{
	const char *env = getenv("TLREPLAY_BUILD");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(build_dir, sizeof(build_dir), "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	snprintf(build_dir, sizeof(build_dir), "%s/..", dirname(exe));
}

static void *load_gpu_lib(void)
{
	char path[PATH_MAX + 32];
	void *dl;

	snprintf(path, sizeof(path), "%s/libtlreplay_gpu.so", build_dir);
	if (access(path, R_OK))
		return NULL;
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		diag("cannot load %s: %s", path, dlerror());
		return NULL;
	}
	if (!sym(dl, "tlg_abi_version", &L.abi_version) || !sym(dl, "tlg_error", &L.error) ||
	    !sym(dl, "tlg_open", &L.open) || !sym(dl, "tlg_num_passes", &L.num_passes) ||
	    !sym(dl, "tlg_backend", &L.backend) || !sym(dl, "tlg_metric_status", &L.metric_status) ||
	    !sym(dl, "tlg_metric_why", &L.metric_why) || !sym(dl, "tlg_metric_unit", &L.metric_unit) ||
	    !sym(dl, "tlg_metric_kind", &L.metric_kind) || !sym(dl, "tlg_begin_pass", &L.begin_pass) ||
	    !sym(dl, "tlg_end_pass", &L.end_pass) || !sym(dl, "tlg_values", &L.values) ||
	    !sym(dl, "tlg_close", &L.close)) {
		diag("%s lacks a tlg_ function", path);
		return NULL;
	}
	return dl;
}

/* The fakes, loaded first so that the library's dlopen() of the same
 * files returns these very copies, whose counters we read. */
static int load_fakes(char *cupti, char *cuda, size_t size)
{
	void *a, *b;

	snprintf(cupti, size, "%s/tests/libfake_cupti.so", build_dir);
	snprintf(cuda, size, "%s/tests/libfake_cuda.so", build_dir);
	a = dlopen(cupti, RTLD_NOW | RTLD_LOCAL);
	b = dlopen(cuda, RTLD_NOW | RTLD_LOCAL);
	if (!a || !b)
		return 0;
	return sym(a, "fake_cupti_live_objects", &F.cupti_live) &&
	       sym(a, "fake_cupti_passes_run", &F.cupti_passes) &&
	       sym(a, "fake_cupti_why", &F.cupti_why) && sym(b, "fake_cuda_syncs", &F.cuda_syncs) &&
	       sym(b, "fake_cuda_depth", &F.cuda_depth) &&
	       sym(b, "fake_cuda_retained", &F.cuda_retained);
}

static const char *const GOOD[] = { "dram__bytes_read.sum", "not__a_metric.sum",
				    "sm__throughput.avg.pct_of_peak_sustained_elapsed" };

/* ------------------------------------------------------------ no CUPTI */

static void test_without_cupti(void)
{
	struct tlg *g = NULL;
	const char *empty[] = { "" };
	int r;

	ok(L.abi_version() == TLG_ABI_VERSION, "ABI version %d", L.abi_version());

	setenv("TLREPLAY_CUPTI_LIB", "/nonexistent/libcupti.so.12", 1);
	r = L.open(0, GOOD, 3, &g);
	ok(r == -ENOENT && !g, "libcupti missing: -ENOENT (%d)", r);
	ok(has(L.error(), "libcupti is not available") &&
		   has(L.error(), "/nonexistent/libcupti.so.12") && has(L.error(), "TLREPLAY_CUPTI_LIB"),
	   "the message says so and names the file: %s", L.error());

	setenv("TLREPLAY_CUPTI_LIB", "libm.so.6", 1);
	r = L.open(0, GOOD, 3, &g);
	ok(r == -ENOENT && has(L.error(), "is not a CUPTI"), "a library that is not CUPTI: %d %s", r,
	   L.error());

	ok(L.open(-1, GOOD, 3, &g) == -EINVAL, "negative device: -EINVAL");
	ok(L.open(0, GOOD, 0, &g) == -EINVAL && L.open(0, NULL, 1, &g) == -EINVAL,
	   "no metric: -EINVAL");
	ok(L.open(0, empty, 1, &g) == -EINVAL && has(L.error(), "empty"), "an empty name: -EINVAL");
	ok(L.open(0, GOOD, 3, NULL) == -EINVAL, "no handle pointer: -EINVAL");
	L.close(NULL);
	ok(L.num_passes(NULL) == -EINVAL && L.metric_status(NULL, 0) == -EINVAL &&
		   !strcmp(L.metric_unit(NULL, 0), "") && L.metric_kind(NULL, 0) == TLG_KIND_UNKNOWN &&
		   L.begin_pass(NULL, 0) == -EINVAL && L.end_pass(NULL, 0) == -EINVAL &&
		   L.values(NULL, NULL) == -EINVAL,
	   "NULL handles are refused, not crashed on");
}

/* ------------------------------------------------------------ fakes */

static int clean(void)
{
	return F.cupti_live() == 0 && F.cuda_depth() == 0 && F.cuda_retained() == 0;
}

static void test_failures(const char *cupti, const char *cuda)
{
	const char *unknown[] = { "a__b.sum", "c__d.max" };
	struct tlg *g = NULL;
	int r;

	setenv("TLREPLAY_CUPTI_LIB", cupti, 1);
	setenv("TLREPLAY_CUDA_LIB", "/nonexistent/libcuda.so.1", 1);
	r = L.open(0, GOOD, 3, &g);
	ok(r == -ENOENT && has(L.error(), "CUDA driver is not available"),
	   "no CUDA driver: -ENOENT (%d): %s", r, L.error());

	setenv("TLREPLAY_CUDA_LIB", cuda, 1);
	r = L.open(1, GOOD, 3, &g);
	ok(r == -ENOENT && has(L.error(), "CUDA device 1: the driver sees 1 device"),
	   "no such device: -ENOENT (%d): %s", r, L.error());

	setenv("FAKE_CUPTI_MODE", "noperm", 1);
	r = L.open(0, GOOD, 3, &g);
	ok(r == -EACCES && !g, "counters restricted: -EACCES (%d)", r);
	ok(has(L.error(), "GPU performance counters are restricted to admin users") &&
		   has(L.error(), "NVreg_RestrictProfilingToAdminUsers=1") &&
		   has(L.error(), "/proc/driver/nvidia/params"),
	   "with the admin-only message: %s", L.error());
	ok(clean(), "nothing left behind after a failed open (live %d, depth %d, retained %d)",
	   F.cupti_live(), F.cuda_depth(), F.cuda_retained());

	setenv("FAKE_CUPTI_MODE", "busy", 1);
	r = L.open(0, GOOD, 3, &g);
	ok(r == -EBUSY && has(L.error(), "cuptiRangeProfilerEnable") &&
		   has(L.error(), "HARDWARE_BUSY") && clean(),
	   "another profiler holds the GPU: -EBUSY (%d): %s", r, L.error());
	unsetenv("FAKE_CUPTI_MODE");

	r = L.open(0, unknown, 2, &g);
	ok(r == -ENOENT && has(L.error(), "none of the 2 metrics can be counted on FAKE100") &&
		   has(L.error(), "a__b.sum is not a metric of FAKE100") && clean(),
	   "only unknown metrics: -ENOENT (%d): %s", r, L.error());

	setenv("TLREPLAY_CUPTI_API", "legacy", 1);
	r = L.open(0, GOOD, 3, &g);
	ok(r == -ENOTSUP && has(L.error(), "no Profiling API"),
	   "legacy forced on a CUPTI without it: -ENOTSUP (%d): %s", r, L.error());
	setenv("TLREPLAY_CUPTI_API", "bogus", 1);
	r = L.open(0, GOOD, 3, &g);
	ok(r == -EINVAL && has(L.error(), "TLREPLAY_CUPTI_API=bogus"), "a bad TLREPLAY_CUPTI_API: %d",
	   r);
	setenv("TLREPLAY_CUPTI_API", "range", 1);
	r = L.open(0, GOOD, 3, &g);
	ok(r == 0 && g, "range forced: opens");
	L.close(g);
	g = NULL;
	unsetenv("TLREPLAY_CUPTI_API");
	ok(clean(), "and closes clean");
}

static void test_passes(void)
{
	struct tlg *g = NULL;
	double v[3] = { 0, 0, 0 };
	int r, pass, syncs, done = 0;

	setenv("FAKE_CUPTI_PASSES", "3", 1);
	r = L.open(0, GOOD, 3, &g);
	ok(r == 0 && g, "open with two known metrics and one unknown (%d %s)", r, r ? L.error() : "");
	if (!g)
		return;
	ok(has(L.backend(g), "range profiler") && has(L.backend(g), "libfake_cupti.so") &&
		   has(L.backend(g), "FAKE100"),
	   "backend: %s", L.backend(g));
	ok(L.num_passes(g) == 3, "3 passes planned (%d)", L.num_passes(g));
	ok(L.metric_status(g, 0) == 0 && L.metric_status(g, 2) == 0 &&
		   L.metric_status(g, 1) == -ENOENT,
	   "statuses: counted, unknown, counted");
	ok(has(L.metric_why(g, 1), "not__a_metric.sum is not a metric of FAKE100") &&
		   !strcmp(L.metric_why(g, 0), ""),
	   "why: %s", L.metric_why(g, 1));
	ok(!strcmp(L.metric_unit(g, 0), "byte") && !strcmp(L.metric_unit(g, 2), "%") &&
		   !strcmp(L.metric_unit(g, 1), ""),
	   "units: byte, '', %%");
	ok(L.metric_kind(g, 0) == TLG_KIND_COUNTER && L.metric_kind(g, 2) == TLG_KIND_THROUGHPUT &&
		   L.metric_kind(g, 1) == TLG_KIND_UNKNOWN && L.metric_kind(g, 3) == TLG_KIND_UNKNOWN,
	   "kinds: counter, unknown, throughput");
	ok(F.cuda_depth() == 0 && F.cuda_retained() == 1,
	   "the primary context is retained, and not left current");

	ok(L.values(g, v) == -EINVAL, "values before the passes: -EINVAL");
	ok(L.begin_pass(g, 1) == -EINVAL && has(L.error(), "pass 1, but 0 is next"),
	   "passes run in order: %s", L.error());
	ok(L.end_pass(g, 0) == -EINVAL, "end without begin: -EINVAL");
	syncs = F.cuda_syncs();
	for (pass = 0; pass < 10 && !done; pass++) {
		r = L.begin_pass(g, pass);
		if (r) {
			diag("begin_pass %d: %s (%s)", pass, L.error(), F.cupti_why());
			break;
		}
		if (pass == 0)
			ok(L.begin_pass(g, 0) == -EINVAL && has(L.error(), "already open"),
			   "no pass inside a pass");
		done = L.end_pass(g, pass);
		if (done < 0) {
			diag("end_pass %d: %s (%s)", pass, L.error(), F.cupti_why());
			break;
		}
	}
	ok(done == 1 && pass == 3 && F.cupti_passes() == 3, "done after 3 passes (%d, fake ran %d)",
	   pass, F.cupti_passes());
	ok(F.cuda_syncs() - syncs == 6, "the context synchronized at each begin and end (%d)",
	   F.cuda_syncs() - syncs);
	ok(F.cuda_depth() == 0, "and is never left current");
	ok(L.begin_pass(g, 3) == -EINVAL && has(L.error(), "no pass is left"),
	   "no pass after the last: %s", L.error());
	r = L.values(g, v);
	ok(r == 0 && v[0] == 4096 && isnan(v[1]) && v[2] == 42.5,
	   "values: %g, %g (NaN: unknown), %g (%d %s)", v[0], v[1], v[2], r, r ? L.error() : "");
	v[0] = 0;
	ok(L.values(g, v) == 0 && v[0] == 4096, "values can be read again");
	L.close(g);
	ok(clean(), "close releases everything (live %d, depth %d, retained %d)", F.cupti_live(),
	   F.cuda_depth(), F.cuda_retained());

	/* closed in the middle of a pass: the range is popped and stopped */
	g = NULL;
	setenv("FAKE_CUPTI_PASSES", "1", 1);
	r = L.open(0, GOOD + 2, 1, &g);
	ok(r == 0 && L.num_passes(g) == 1, "one metric, one pass");
	if (g) {
		ok(L.begin_pass(g, 0) == 0, "a pass begins");
		L.close(g);
		ok(clean(), "closing inside a pass releases everything (%s)", F.cupti_why());
	}
	g = NULL;
	r = L.open(0, GOOD, 1, &g);
	if (g) {
		ok(L.begin_pass(g, 0) == 0 && L.end_pass(g, 0) == 1, "a single pass is the last");
		ok(L.values(g, v) == 0 && v[0] == 4096, "and gives the value");
		L.close(g);
	}
	unsetenv("FAKE_CUPTI_PASSES");
	ok(clean(), "all clean at the end");
}

/* Run every pass of @g; 1 when all were submitted. */
static int run_passes(struct tlg *g)
{
	int pass, done = 0;

	for (pass = 0; pass < 10 && !done; pass++) {
		if (L.begin_pass(g, pass))
			return 0;
		done = L.end_pass(g, pass);
		if (done < 0)
			return 0;
	}
	return done == 1;
}

/* Each kernel is a range: an op's value folds its kernels as ncu gives
 * them, .sum counters summed, the others weighted by each kernel's time
 * (counted for that when not asked for). */
static void test_kernels(void)
{
	static const char *const names[] = { "dram__bytes_read.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
					     "gpu__time_duration.sum" };
	struct tlg *g = NULL;
	double v[3] = { 0, 0, 0 };
	int r;

	setenv("FAKE_CUPTI_PASSES", "2", 1);
	setenv("FAKE_CUPTI_KERNELS", "2", 1);
	r = L.open(0, names, 3, &g);
	ok(r == 0 && g && has(L.backend(g), "a range per kernel"), "open: %s", g ? L.backend(g) : L.error());
	if (g) {
		/* kernel 0: 4096 B, 42.5 %, 1234.5 ns; kernel 1: 8192 B, 52.5 %, 2469 ns */
		ok(run_passes(g) && L.values(g, v) == 0 && v[0] == 4096 * 3 && v[2] == 1234.5 * 3 &&
			   fabs(v[1] - (42.5 * 1 + 52.5 * 2) / 3) < 1e-9,
		   "two kernels: bytes summed (%g), time summed (%g), throughput weighted by time (%g)", v[0], v[2],
		   v[1]);
		L.close(g);
	}
	g = NULL;
	r = L.open(0, names + 1, 1, &g);
	ok(r == 0 && g && L.metric_status(g, 1) == -EINVAL && run_passes(g) && L.values(g, v) == 0 &&
		   fabs(v[0] - (42.5 * 1 + 52.5 * 2) / 3) < 1e-9,
	   "the throughput alone: still weighted by the kernels' time, counted unasked and unseen (%g)", v[0]);
	if (g)
		L.close(g);
	g = NULL;
	setenv("FAKE_CUPTI_KERNELS", "600", 1);
	r = L.open(0, names, 1, &g);
	if (g) {
		ok(run_passes(g) && L.values(g, v) == -E2BIG && has(L.error(), "more than 512 kernels in a pass"),
		   "more kernels than ranges: -E2BIG saying so (%s)", L.error());
		L.close(g);
	}
	unsetenv("FAKE_CUPTI_KERNELS");
	unsetenv("FAKE_CUPTI_PASSES");
	ok(clean(), "all clean after the kernel ranges");
}

int main(void)
{
	char cupti[PATH_MAX + 32], cuda[PATH_MAX + 32];

	find_build_dir();
	if (!load_gpu_lib())
		skip_all("libtlreplay_gpu.so is not built (no CUDA headers)");
	test_without_cupti();
	if (load_fakes(cupti, cuda, sizeof(cupti))) {
		test_failures(cupti, cuda);
		test_passes();
		test_kernels();
	} else {
		skip("the fake libcupti/libcuda are not built beside this program");
	}
	unsetenv("TLREPLAY_CUPTI_LIB");
	unsetenv("TLREPLAY_CUDA_LIB");
	return done_testing();
}
