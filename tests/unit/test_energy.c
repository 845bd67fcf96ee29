/* SPDX-License-Identifier: MIT */
/* The NVML energy counter (core/src/counters/energy.c) without a GPU: NVML missing
 * or not NVML gives -ENOENT and a message naming the file; then, against a
 * fake NVML (tests/unit/fake_nvml.c, built as libfake_nvml.so next to this
 * program, or $FAKE_NVML_SO), a counter advancing 5000 mJ per read, an
 * unknown GPU, a GPU without the counter, no driver, a GPU lost after open,
 * and that every nvmlInit_v2 is paired with nvmlShutdown. */
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <tlreplay/energy.h>

#include "tap.h"

static int has(const char *s, const char *sub)
{
	return s && strstr(s, sub) != NULL;
}

/* libfake_nvml.so beside this executable (where the Makefile builds it). */
static const char *fake_path(void)
{
	static char path[PATH_MAX];
	char exe[PATH_MAX];
	const char *env = getenv("FAKE_NVML_SO");
	ssize_t n;

	if (env && *env)
		return access(env, R_OK) ? NULL : env;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	snprintf(path, sizeof(path), "%s/libfake_nvml.so", dirname(exe));
	return access(path, R_OK) ? NULL : path;
}

/* nvmlInit_v2 calls not yet shut down, as the fake counts them. */
static int fake_inits(const char *path)
{
	void *dl = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	int (*fn)(void) = NULL;
	void *p;
	int n = -1;

	if (!dl)
		return -1;
	p = dlsym(dl, "fake_nvml_inits");
	memcpy(&fn, &p, sizeof(p));
	if (fn)
		n = fn();
	dlclose(dl);
	return n;
}

static void test_no_nvml(void)
{
	struct tl_energy *e = NULL;
	int r;

	setenv("TLREPLAY_NVML_LIB", "/nonexistent/libnvidia-ml.so.1", 1);
	r = tl_energy_open(0, &e);
	ok(r == -ENOENT && !e, "NVML missing: -ENOENT (%d)", r);
	ok(has(tl_last_error(), "NVML is not available") &&
		   has(tl_last_error(), "/nonexistent/libnvidia-ml.so.1"),
	   "the message says NVML is missing and names the file: %s", tl_last_error());

	setenv("TLREPLAY_NVML_LIB", "libm.so.6", 1);
	r = tl_energy_open(0, &e);
	ok(r == -ENOENT && has(tl_last_error(), "has no nvmlInit_v2"),
	   "a library that is not NVML: -ENOENT (%d): %s", r, tl_last_error());

	unsetenv("TLREPLAY_NVML_LIB");
	r = tl_energy_open(0, &e);
	if (r == -ENOENT) {
		ok(has(tl_last_error(), "libnvidia-ml.so.1") || has(tl_last_error(), "NVML"),
		   "without a driver here, the default library gives -ENOENT: %s", tl_last_error());
	} else {
		diag("a real NVML answered: %d %s", r, r ? tl_last_error() : "");
		skip("this machine has NVML");
		tl_energy_close(e);
		e = NULL;
	}

	ok(tl_energy_open(-1, &e) == -EINVAL && tl_energy_open(0, NULL) == -EINVAL,
	   "bad arguments: -EINVAL");
	ok(tl_energy_read_mj(NULL, NULL) == -EINVAL, "read without a handle: -EINVAL");
	tl_energy_close(NULL);
	ok(tl_energy_min_window_s() >= 1.0, "minimum window: %.1f s", tl_energy_min_window_s());
}

static void test_fake(const char *path)
{
	struct tl_energy *e = NULL;
	uint64_t a = 0, b = 0, c = 0;
	int r;

	setenv("TLREPLAY_NVML_LIB", path, 1);
	unsetenv("FAKE_NVML_MODE");
	r = tl_energy_open(0, &e);
	ok(r == 0 && e, "fake NVML: GPU 0 opens (%d %s)", r, r ? tl_last_error() : "");
	if (!e)
		return;
	ok(tl_energy_read_mj(e, &a) == 0 && tl_energy_read_mj(e, &b) == 0 &&
		   tl_energy_read_mj(e, &c) == 0,
	   "three reads");
	ok(b - a == 5000 && c - b == 5000, "the counter advances 5000 mJ per read (%llu, %llu)",
	   (unsigned long long)(b - a), (unsigned long long)(c - b));
	ok(a > 0, "reads are absolute millijoules (%llu)", (unsigned long long)a);
	ok(fake_inits(path) == 1, "NVML initialised once while open (%d)", fake_inits(path));
	tl_energy_close(e);
	ok(fake_inits(path) == 0, "and shut down at close (%d)", fake_inits(path));

	e = NULL;
	r = tl_energy_open(1, &e);
	ok(r == -ENOENT && !e && has(tl_last_error(), "GPU 1: NVML sees 1 GPU"),
	   "an unknown GPU: -ENOENT (%d): %s", r, tl_last_error());

	setenv("FAKE_NVML_MODE", "no-energy", 1);
	r = tl_energy_open(0, &e);
	ok(r == -ENOTSUP && !e && has(tl_last_error(), "has no energy counter") &&
		   has(tl_last_error(), "Fake P100") && has(tl_last_error(), "Volta"),
	   "a GPU without the counter: -ENOTSUP (%d): %s", r, tl_last_error());

	setenv("FAKE_NVML_MODE", "no-driver", 1);
	r = tl_energy_open(0, &e);
	ok(r == -ENOENT && !e && has(tl_last_error(), "Driver Not Loaded"),
	   "no driver loaded: -ENOENT (%d): %s", r, tl_last_error());

	setenv("FAKE_NVML_MODE", "lost", 1);
	r = tl_energy_open(0, &e);
	ok(r == 0 && e, "lost mode: opens (the probe read works)");
	if (e) {
		r = tl_energy_read_mj(e, &a);
		ok(r == -EIO && has(tl_last_error(), "GPU is lost"),
		   "a GPU lost after open: -EIO (%d): %s", r, tl_last_error());
		tl_energy_close(e);
	}
	ok(fake_inits(path) == 0, "every nvmlInit_v2 was shut down, failures included (%d)",
	   fake_inits(path));
	unsetenv("FAKE_NVML_MODE");
	unsetenv("TLREPLAY_NVML_LIB");
}

int main(void)
{
	const char *path;

	test_no_nvml();
	path = fake_path();
	if (path)
		test_fake(path);
	else
		skip("libfake_nvml.so is not built beside this program (tests/unit/fake_nvml.c)");
	return done_testing();
}
