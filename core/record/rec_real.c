/* SPDX-License-Identifier: MIT */
/* What every file of the recorder uses: its messages on stderr (rec_say)
 * and the real symbols under the ones it interposes (rec_real*: glibc's
 * dlsym, found past ours, and libcuda.so.1 as the program loaded it). In a
 * file of its own so that the wrappers (rec_hooks.c) and what they call
 * (rec_capture.c, rec_nvinfo.c) do not depend on each other both ways. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>

#include "rec.h"

void rec_say(const char *fmt, ...)
{
	char line[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n] = '\n';
	fprintf(stderr, "tlreplay-record: %.*s", n + 1, line);
}

/* ---- the real dlsym and the driver's handle */

/* The lookups below run in whichever of the program's threads calls first;
 * two may look at once and find the same answer, so the cached pointers are
 * read and written atomically (a plain pointer would be a data race). */
dlsym_fn *rec_real_dlsym(void)
{
	static dlsym_fn *cached;
	dlsym_fn *fn = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);

	if (!fn) {
		fn = (dlsym_fn *)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
		if (!fn)
			fn = (dlsym_fn *)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
		__atomic_store_n(&cached, fn, __ATOMIC_RELEASE);
	}
	return fn;
}

void *rec_cuda_handle(void)
{
	static void *cached;
	void *h = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);

	if (!h) {
		/* the program has it loaded already when a wrapper runs */
		h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
		if (!h)
			h = dlopen("libcuda.so.1", RTLD_NOW);
		__atomic_store_n(&cached, h, __ATOMIC_RELEASE);
	}
	return h;
}

void *rec_real_global(const char *name)
{
	return rec_real_in(RTLD_DEFAULT, name);
}

void *rec_real_in(void *handle, const char *name)
{
	dlsym_fn *ds = rec_real_dlsym();

	return ds ? ds(handle, name) : NULL;
}

void *rec_real(const char *name)
{
	dlsym_fn *ds = rec_real_dlsym();

	return ds && rec_cuda_handle() ? ds(rec_cuda_handle(), name) : NULL;
}
