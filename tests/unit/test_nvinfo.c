/* SPDX-License-Identifier: MIT */
/* The recorder's parameter layouts from module images (core/record/
 * rec_nvinfo.c), for drivers without cuFuncGetParamInfo: cubins and fatbins
 * that nvcc made from tests/fixtures/cuda/kernels.cu (its README says how),
 * with the layouts the source gives: kp(char, int, double, S, float *, short)
 * with S of 24 bytes, and tk<float>(float *, int, float). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The LZ4 block reader on blocks written by hand: what it must make, and
 * what it must refuse without touching memory outside its buffers (the
 * sanitizer and valgrind runs of this test check that). */
static void test_unlz4(void)
{
	/* literals "abc", then a match 3 back of 4 + 5 = 9 bytes (overlapping:
	 * "abcabcabc"), then the last literals "Z" */
	static const unsigned char block[] = { 0x35, 'a', 'b', 'c', 3, 0, 0x10, 'Z' };
	/* 15 + 3 = 18 literals, the length's extra byte */
	static const unsigned char longlit[] = { 0xf0, 3,   'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H',
						 'I',  'J', 'K', 'L', 'M', 'N', 'O', 'P', 'Q', 'R' };
	static const struct {
		const char *what;
		unsigned char b[8];
		size_t n;
	} bad[] = {
		{ "a match 0 back", { 0x10, 'a', 0, 0, 0x10, 'b' }, 6 },
		{ "a match further back than what was written", { 0x10, 'a', 2, 0, 0x10, 'b' }, 6 },
		{ "literals past the input's end", { 0x50, 'a', 'b' }, 3 },
		{ "a cut offset", { 0x10, 'a', 1 }, 3 },
		{ "a length that never ends", { 0xf0, 255, 255 }, 3 },
		{ "a match that ends the block", { 0x10, 'a', 1, 0 }, 4 },
	};
	unsigned char out[64];
	size_t i, got;

	got = unlz4(out, sizeof(out), block, sizeof(block));
	ok(got == 13 && !memcmp(out, "abcabcabcabcZ", 13), "unlz4: literals, an overlapping match, last literals (%zu)",
	   got);
	got = unlz4(out, 12, block, sizeof(block));
	ok(got == 0, "unlz4: output that does not fit its buffer: refused");
	got = unlz4(out, sizeof(out), longlit, sizeof(longlit));
	ok(got == 18 && !memcmp(out, "ABCDEFGHIJKLMNOPQR", 18), "unlz4: a literal length of 15 + an extra byte");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(unlz4(out, sizeof(out), bad[i].b, bad[i].n) == 0, "unlz4: %s: refused", bad[i].what);
}

/* Every byte of the LZ4 fatbin's compressed cubin flipped in turn: a layout
 * or none, never a read or write out of bounds. */
static void test_lz4_corrupt(void)
{
	size_t len = 0, (*lay)[2] = NULL, n = 0, i, hs, body, clen, good = 0, none = 0;
	unsigned char *img = slurp(FIX "kernels.lz4.fatbin", &len);
	uint32_t c32;

	if (!img || len < 16 + 64) {
		ok(0, "cannot read kernels.lz4.fatbin");
		free(img);
		return;
	}
	hs = (size_t)img[6] | (size_t)img[7] << 8;
	memcpy(&c32, img + hs + 16, 4);
	body = hs + 64;
	clen = c32;
	for (i = body; i < body + clen && i < len; i++) {
		img[i] ^= 0xff;
		if (rec_nvinfo_layout(img, len, REC_IMG_FATBIN, "kp", 90, &lay, &n))
			none++;
		else
			good++;
		free(lay);
		lay = NULL;
		img[i] ^= 0xff;
	}
	ok(clen > 100 && good + none == clen && none > 0,
	   "lz4 fatbin, each of its %zu compressed bytes flipped: %zu read a layout, %zu none, nothing out of bounds",
	   clen, good, none);
	free(img);
}

int main(void)
{
	void *z = dlopen("libzstd.so.1", RTLD_NOW);

	test_unlz4();
	/* LZ4 is read here, no library needed */
	check(FIX "kernels.lz4.fatbin", 90, 1, "lz4 fatbin");
	test_lz4_corrupt();

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
