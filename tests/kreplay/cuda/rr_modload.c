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
 * so it builds with cuda.h alone: a toolkit needs no stub libcuda for it.
 * IMAGE is rr_scale.cubin on a GPU and the stand-in driver's libkkernels.so
 * without one. Prints "rr_modload: checksum=HEX", or the failing call and
 * its code (exit 1). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#define CK(call)                                                                        \
	do {                                                                            \
		CUresult r_ = (call);                                                   \
		if (r_ != CUDA_SUCCESS) {                                               \
			fprintf(stderr, "rr_modload: %s failed: %d\n", #call, (int)r_); \
			exit(1);                                                        \
		}                                                                       \
	} while (0)

/* each entry point under the name cuda.h's macros give it (cuMemAlloc is
 * cuMemAlloc_v2): the symbol the driver exports */
#define DRIVER_FUNCS(X)                  \
	X(cuInit)                        \
	X(cuDeviceGet)                   \
	X(cuDevicePrimaryCtxRetain)      \
	X(cuCtxSetCurrent)               \
	X(cuModuleLoadData)              \
	X(cuModuleGetFunction)           \
	X(cuStreamCreate)                \
	X(cuMemGetAllocationGranularity) \
	X(cuMemAddressReserve)           \
	X(cuMemCreate)                   \
	X(cuMemMap)                      \
	X(cuMemRelease)                  \
	X(cuMemSetAccess)                \
	X(cuMemAlloc)                    \
	X(cuMemcpyHtoD)                  \
	X(cuLaunchKernel)                \
	X(cuLaunchKernelEx)              \
	X(cuStreamSynchronize)           \
	X(cuMemcpyDtoH)                  \
	X(cuMemUnmap)                    \
	X(cuMemAddressFree)              \
	X(cuMemFree)                     \
	X(cuStreamDestroy)               \
	X(cuModuleUnload)                \
	X(cuDevicePrimaryCtxRelease)
#define XSTR(x)	   STR(x)
#define STR(x)	   #x
#define DECLARE(f) static __typeof__(&f) p_##f;
DRIVER_FUNCS(DECLARE)

static void load_driver(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		fprintf(stderr, "rr_modload: no driver: %s\n", dlerror());
		exit(1);
	}
#define RESOLVE(f)                                                              \
	if (!(*(void **)&p_##f = dlsym(lib, XSTR(f)))) {                        \
		fprintf(stderr, "rr_modload: the driver has no %s\n", XSTR(f)); \
		exit(1);                                                        \
	}
	DRIVER_FUNCS(RESOLVE)
#undef RESOLVE
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
