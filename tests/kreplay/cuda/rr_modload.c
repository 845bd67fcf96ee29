/* SPDX-License-Identifier: MIT */
/* rr_modload IMAGE [CHUNKS]: a driver-API program for kernel record/replay
 * (issue 27.1) that does what Triton and PyTorch's expandable segments do:
 * reads a module image from a file into the heap, loads it with
 * cuModuleLoadData (then frees the bytes), finds `rr_scale`, and runs it on
 * memory that is a cuMemAddressReserve'd range into which CHUNKS (default 3)
 * cuMemCreate'd chunks are mapped one by one as it grows, plus a cuMemAlloc
 * buffer; launches with kernelParams, then once with cuLaunchKernelEx.
 * rr_scale(float *y, const float *x, float a, int n): y = a*x + y.
 * Finds the driver as Triton's launcher does, dlopen("libcuda.so.1") and
 * dlsym of each entry point (the recorder must catch lookups made that way),
 * each through a pointer type of its own, so it links no libcuda. It takes
 * the driver's types and values from the toolkit's cuda.h where there is
 * one, else from the ABI that record and replay declare for themselves
 * (core/src/common/cuda_driver.h, checked against cuda.h by
 * test_cuda_abi.sh): a toolkit without the driver's headers and stub
 * (cuda-driver-dev) still builds it.
 * IMAGE is rr_scale.cubin on a GPU and the stand-in driver's libkkernels.so
 * without one. Prints "rr_modload: checksum=HEX", or the failing call and
 * its code (exit 1). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<cuda.h>)
#include <cuda.h>
#define RR_CUDA_H 1
#endif
#endif
#ifndef RR_CUDA_H
#include "cuda_driver.h"
#endif

#define CK(call)                                                                        \
	do {                                                                            \
		CUresult r_ = (call);                                                   \
		if (r_ != CUDA_SUCCESS) {                                               \
			fprintf(stderr, "rr_modload: %s failed: %d\n", #call, (int)r_); \
			exit(1);                                                        \
		}                                                                       \
	} while (0)

/* the entry points, each under the symbol the driver exports (cuda.h's
 * macros make cuMemAlloc cuMemAlloc_v2, and so on) */
static CUresult (*p_cuInit)(unsigned int);
static CUresult (*p_cuDeviceGet)(CUdevice *, int);
static CUresult (*p_cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
static CUresult (*p_cuCtxSetCurrent)(CUcontext);
static CUresult (*p_cuModuleLoadData)(CUmodule *, const void *);
static CUresult (*p_cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
static CUresult (*p_cuStreamCreate)(CUstream *, unsigned int);
static CUresult (*p_cuMemGetAllocationGranularity)(size_t *, const CUmemAllocationProp *, int);
static CUresult (*p_cuMemAddressReserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
static CUresult (*p_cuMemCreate)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
				 unsigned long long);
static CUresult (*p_cuMemMap)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
static CUresult (*p_cuMemRelease)(CUmemGenericAllocationHandle);
static CUresult (*p_cuMemSetAccess)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
static CUresult (*p_cuMemAlloc)(CUdeviceptr *, size_t);
static CUresult (*p_cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
static CUresult (*p_cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
				    unsigned int, unsigned int, CUstream, void **, void **);
static CUresult (*p_cuLaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **);
static CUresult (*p_cuStreamSynchronize)(CUstream);
static CUresult (*p_cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
static CUresult (*p_cuMemUnmap)(CUdeviceptr, size_t);
static CUresult (*p_cuMemAddressFree)(CUdeviceptr, size_t);
static CUresult (*p_cuMemFree)(CUdeviceptr);
static CUresult (*p_cuStreamDestroy)(CUstream);
static CUresult (*p_cuModuleUnload)(CUmodule);
static CUresult (*p_cuDevicePrimaryCtxRelease)(CUdevice);

static const struct {
	const char *sym;
	void **slot;
} driver_funcs[] = {
	{ "cuInit", (void **)&p_cuInit },
	{ "cuDeviceGet", (void **)&p_cuDeviceGet },
	{ "cuDevicePrimaryCtxRetain", (void **)&p_cuDevicePrimaryCtxRetain },
	{ "cuCtxSetCurrent", (void **)&p_cuCtxSetCurrent },
	{ "cuModuleLoadData", (void **)&p_cuModuleLoadData },
	{ "cuModuleGetFunction", (void **)&p_cuModuleGetFunction },
	{ "cuStreamCreate", (void **)&p_cuStreamCreate },
	{ "cuMemGetAllocationGranularity", (void **)&p_cuMemGetAllocationGranularity },
	{ "cuMemAddressReserve", (void **)&p_cuMemAddressReserve },
	{ "cuMemCreate", (void **)&p_cuMemCreate },
	{ "cuMemMap", (void **)&p_cuMemMap },
	{ "cuMemRelease", (void **)&p_cuMemRelease },
	{ "cuMemSetAccess", (void **)&p_cuMemSetAccess },
	{ "cuMemAlloc_v2", (void **)&p_cuMemAlloc },
	{ "cuMemcpyHtoD_v2", (void **)&p_cuMemcpyHtoD },
	{ "cuLaunchKernel", (void **)&p_cuLaunchKernel },
	{ "cuLaunchKernelEx", (void **)&p_cuLaunchKernelEx },
	{ "cuStreamSynchronize", (void **)&p_cuStreamSynchronize },
	{ "cuMemcpyDtoH_v2", (void **)&p_cuMemcpyDtoH },
	{ "cuMemUnmap", (void **)&p_cuMemUnmap },
	{ "cuMemAddressFree", (void **)&p_cuMemAddressFree },
	{ "cuMemFree_v2", (void **)&p_cuMemFree },
	{ "cuStreamDestroy_v2", (void **)&p_cuStreamDestroy },
	{ "cuModuleUnload", (void **)&p_cuModuleUnload },
	{ "cuDevicePrimaryCtxRelease_v2", (void **)&p_cuDevicePrimaryCtxRelease },
};

static void load_driver(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!lib) {
		fprintf(stderr, "rr_modload: no driver: %s\n", dlerror());
		exit(1);
	}
	for (i = 0; i < sizeof(driver_funcs) / sizeof(driver_funcs[0]); i++)
		if (!(*driver_funcs[i].slot = dlsym(lib, driver_funcs[i].sym))) {
			fprintf(stderr, "rr_modload: the driver has no %s\n", driver_funcs[i].sym);
			exit(1);
		}
}

static void *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;
	char *p;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(p = malloc((size_t)n + 1)) || fread(p, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "rr_modload: cannot read %s\n", path);
		exit(1);
	}
	p[n] = 0;
	fclose(f);
	return p;
}

int main(int argc, char **argv)
{
	int chunks = argc > 2 ? atoi(argv[2]) : 3, n, i, it;
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUstream s;
	CUmemAllocationProp prop;
	CUmemAccessDesc acc;
	CUdeviceptr seg, x;
	CUmemGenericAllocationHandle h[16];
	size_t gran = 0, seg_size;
	float *hy, *hx, a = 0.5f;
	uint64_t hash = 1469598103934665603ULL;
	void *image;

	if (argc < 2 || chunks < 1 || chunks > 16) {
		fprintf(stderr, "usage: rr_modload IMAGE [CHUNKS 1..16]\n");
		return 2;
	}
	load_driver();
	CK(p_cuInit(0));
	CK(p_cuDeviceGet(&dev, 0));
	CK(p_cuDevicePrimaryCtxRetain(&ctx, dev));
	CK(p_cuCtxSetCurrent(ctx));
	image = slurp(argv[1]);
	CK(p_cuModuleLoadData(&mod, image));
	free(image); /* the driver has it: Triton keeps no copy either */
	CK(p_cuModuleGetFunction(&fn, mod, "rr_scale"));
	CK(p_cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

	/* an expandable segment: a big reservation, chunks mapped as it grows */
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	CK(p_cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
	seg_size = 16 * gran;
	CK(p_cuMemAddressReserve(&seg, seg_size, 0, 0, 0));
	memset(&acc, 0, sizeof(acc));
	acc.location = prop.location;
	acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	for (i = 0; i < chunks; i++) {
		CK(p_cuMemCreate(&h[i], gran, &prop, 0));
		CK(p_cuMemMap(seg + (CUdeviceptr)i * gran, gran, 0, h[i], 0));
		CK(p_cuMemRelease(h[i]));
		CK(p_cuMemSetAccess(seg + (CUdeviceptr)i * gran, gran, &acc, 1));
	}
	n = (int)(chunks * gran / 4);
	CK(p_cuMemAlloc(&x, (size_t)n * 4));
	hy = malloc((size_t)n * 4);
	hx = malloc((size_t)n * 4);
	for (i = 0; i < n; i++) {
		hy[i] = (float)(i % 11) - 5.0f;
		hx[i] = (float)(i % 3) * 0.75f;
	}
	CK(p_cuMemcpyHtoD(seg, hy, (size_t)n * 4));
	CK(p_cuMemcpyHtoD(x, hx, (size_t)n * 4));
	for (it = 0; it < 3; it++) {
		void *params[] = { &seg, &x, &a, &n };

		CK(p_cuLaunchKernel(fn, 132, 1, 1, 256, 1, 1, 0, s, params, NULL));
	}
	{
		void *params[] = { &seg, &x, &a, &n };
		CUlaunchConfig cfg;

		memset(&cfg, 0, sizeof(cfg));
		cfg.gridDimX = 66;
		cfg.gridDimY = cfg.gridDimZ = 1;
		cfg.blockDimX = 128;
		cfg.blockDimY = cfg.blockDimZ = 1;
		cfg.hStream = s;
		CK(p_cuLaunchKernelEx(&cfg, fn, params, NULL));
	}
	CK(p_cuStreamSynchronize(s));
	CK(p_cuMemcpyDtoH(hy, seg, (size_t)n * 4));
	for (i = 0; i < n * 4; i++)
		hash = (hash ^ ((unsigned char *)hy)[i]) * 1099511628211ULL;
	CK(p_cuMemUnmap(seg, (size_t)chunks * gran));
	CK(p_cuMemAddressFree(seg, seg_size));
	CK(p_cuMemFree(x));
	CK(p_cuStreamDestroy(s));
	CK(p_cuModuleUnload(mod));
	CK(p_cuDevicePrimaryCtxRelease(dev));
	free(hy);
	free(hx);
	printf("rr_modload: checksum=%016llx\n", (unsigned long long)hash);
	return 0;
}
