/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the kernel recorder's module-image reader
 * (core/record/rec_nvinfo.c): the parameter layout of a kernel from the
 * .nv.info section of a cubin, or of the cubin for one architecture inside a
 * fatbin, plain, zstd- or LZ4-compressed. The recorder reads these from the
 * recorded program's memory, for drivers older than 12.4; a malformed image
 * must give no layout, never a read outside it. Each input is read twice:
 * as an image of the kind its magic gives (a fatbin's, else a cubin) for
 * sm_90, and past a two-byte prefix as the kind its first byte picks (even:
 * fatbin, odd: cubin) for the architecture its second byte gives. Seeds:
 * tests/fixtures/cuda's nvcc-made images (cubin; fatbin plain, zstd, LZ4).
 *
 * Rules: 0 with a layout sorted by offset, or -1 with none; a layout's
 * entries as the section wrote them (no size over 0x3fff). Any breach
 * aborts. Built with -DTL_FUZZ_STANDALONE it replays files (standalone.h). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_TARGET "fuzz_images"
#include "refusal.h"
#include "standalone.h"

#include "../../core/record/rec_nvinfo.c"

/* rec_hooks.c's, without the interposer around it */
void *rec_real_in(void *handle, const char *name)
{
	return dlsym(handle, name);
}

static void layout_of(const unsigned char *img, size_t n, enum rec_image_kind kind, const char *kernel, int arch)
{
	size_t(*lay)[2] = NULL, nl = 7, i;
	/* a copy of exactly n bytes: a read past it is the sanitizer's to see */
	unsigned char *copy = malloc(n ? n : 1);
	int r;

	if (!copy)
		return;
	memcpy(copy, img, n);
	r = rec_nvinfo_layout(copy, n, kind, kernel, arch, &lay, &nl);
	if (r != 0 && r != -1)
		fail(kernel, "a return other than 0 or -1");
	if (r == -1 && (lay || nl))
		fail(kernel, "no layout, yet entries");
	for (i = 0; r == 0 && i < nl; i++) {
		if (lay[i][1] > 0x3fff)
			fail(kernel, "a parameter size the section cannot hold");
		if (i && lay[i][0] < lay[i - 1][0])
			fail(kernel, "a layout not sorted by offset");
	}
	free(lay);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const kernels[] = { "kp", "_Z2tkIfEvPT_iS0_" };
	size_t k;

	/* as an image whose kind its magic gives (the seeds as they are) */
	for (k = 0; k < 2; k++) {
		uint32_t magic = 0;

		if (size >= 4)
			memcpy(&magic, data, 4);
		layout_of(data, size, magic == TL_FATBIN_MAGIC ? REC_IMG_FATBIN : REC_IMG_CUBIN, kernels[k], 90);
	}
	/* a prefix choosing the kind and the architecture */
	if (size >= 2)
		for (k = 0; k < 2; k++)
			layout_of(data + 2, size - 2, data[0] & 1 ? REC_IMG_CUBIN : REC_IMG_FATBIN, kernels[k],
				  data[1]);
	return 0;
}
