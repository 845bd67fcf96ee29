/* SPDX-License-Identifier: MIT */
/* The recorder's parameter layouts from module images (core/record/
 * rec_nvinfo.c), for drivers without cuFuncGetParamInfo: cubins and fatbins
 * that nvcc made from tests/fixtures/cuda/kernels.cu (its README says how),
 * with the layouts the source gives: kp(char, int, double, S, float *, short)
 * with S of 24 bytes, and tk<float>(float *, int, float). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"

#include "../../core/record/rec_image.c"
#include "../../core/record/rec_nvinfo.c"

/* rec_hooks.c's, without the interposer around it */
void *rec_real_in(void *handle, const char *name)
{
	return dlsym(handle, name);
}

#define FIX "tests/fixtures/cuda/"

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
	long n;

	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) && (p = malloc((size_t)n)) &&
	    fread(p, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	else {
		free(p);
		p = NULL;
	}
	if (f)
		fclose(f);
	return p;
}

static const size_t kp[6][2] = { { 0, 1 }, { 4, 4 }, { 8, 8 }, { 16, 24 }, { 40, 8 }, { 48, 2 } };
static const size_t tk[3][2] = { { 0, 8 }, { 8, 4 }, { 12, 4 } };

static int same(size_t (*got)[2], size_t n, const size_t (*want)[2], size_t wn)
{
	size_t i;

	if (n != wn)
		return 0;
	for (i = 0; i < n; i++)
		if (got[i][0] != want[i][0] || got[i][1] != want[i][1])
			return 0;
	return 1;
}

static void check(const char *file, int arch, int expect_ok, const char *what)
{
	size_t len = 0, (*lay)[2] = NULL, n = 0;
	unsigned char *img = slurp(file, &len);
	const void *data = img;
	enum rec_image_kind kind = REC_IMG_OTHER;
	size_t ilen;
	int r;

	if (!img) {
		ok(0, "%s: cannot read %s", what, file);
		return;
	}
	ilen = rec_image_len(&data, &kind);
	ok(ilen == len, "%s: the image's length from its headers (%zu of %zu)", what, ilen, len);
	r = rec_nvinfo_layout(img, len, kind, "kp", arch, &lay, &n);
	if (expect_ok)
		ok(!r && same(lay, n, kp, 6), "%s: kp's six parameters, by offset", what);
	else
		ok(r == -1 && !lay && !n, "%s: no cubin for sm_%d: no layout", what, arch);
	free(lay);
	lay = NULL;
	r = rec_nvinfo_layout(img, len, kind, "_Z2tkIfEvPT_iS0_", arch, &lay, &n);
	if (expect_ok)
		ok(!r && same(lay, n, tk, 3), "%s: tk<float>'s three parameters", what);
	free(lay);
	lay = NULL;
	r = rec_nvinfo_layout(img, len, kind, "nosuchkernel", arch, &lay, &n);
	ok(r == -1 && !lay, "%s: an unknown kernel has no layout", what);
	free(img);
}

int main(void)
{
	void *z = dlopen("libzstd.so.1", RTLD_NOW);

	check(FIX "kernels.sm90.cubin", 90, 1, "cubin");
	check(FIX "kernels.fatbin", 90, 1, "fatbin sm_90");
	check(FIX "kernels.fatbin", 80, 1, "fatbin sm_80");
	check(FIX "kernels.fatbin", 75, 0, "fatbin sm_75");
	if (z) {
		check(FIX "kernels.zstd.fatbin", 90, 1, "zstd fatbin");
		dlclose(z);
	} else {
		skip("no libzstd.so.1: compressed fatbins are not read");
	}
	/* a truncated cubin is refused, not read past its end */
	{
		size_t len = 0, (*lay)[2] = NULL, n = 0;
		unsigned char *img = slurp(FIX "kernels.sm90.cubin", &len);

		ok(img && rec_nvinfo_layout(img, 200, REC_IMG_CUBIN, "kp", 90, &lay, &n) == -1 && !lay,
		   "a truncated cubin gives no layout");
		free(img);
	}
	return done_testing();
}
