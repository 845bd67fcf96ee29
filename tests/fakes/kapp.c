/* SPDX-License-Identifier: MIT */
/* kapp IMAGE.so [ITERS]: a test "CUDA application" for the stand-in driver
 * (kdriver.c), written as a real driver-API program is, to be recorded and
 * replayed. It
 * - reaches the driver three ways: direct calls to libcuda.so.1's exports,
 *   pointers from cuGetProcAddress (as cudart does), and
 *   dlopen("libcuda.so.1") + dlsym("cuGetProcAddress_v2") then look-ups
 *   through that (as cudart really does);
 * - loads IMAGE.so's bytes from a malloc'ed buffer with cuModuleLoadData,
 *   and once more with cuLibraryLoadData, launching `accumulate` through its
 *   CUkernel handle used as a CUfunction (as cudart 12 does);
 * - allocates small (sub-allocated), large and cuMemAddressReserve/
 *   cuMemCreate/cuMemMap memory, builds a linked list spread over three
 *   allocations, frees one allocation after the first iteration and makes
 *   another with cuMemAllocAsync;
 * - launches each test kernel ITERS times (kernelParams, `extra`,
 *   cuLaunchKernelEx with a cluster attribute; a created stream and the
 *   NULL stream);
 * - prints one line, "kapp: checksum=%016llx", a hash of every output byte.
 * A driver error prints "kapp: <function> failed: <code>" to stderr and
 * exits 1. KAPP_SHOW_ADDRS=1 prints the device addresses to stderr. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CUDA 12 driver API declarations (as in cuda.h) */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef uint64_t cuuint64_t;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUkern_st *CUkernel;
typedef struct CUlib_st *CUlibrary;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

typedef struct {
	int type, id;
} CUmemLocation;

typedef struct {
	int type;
	int requestedHandleTypes;
	CUmemLocation location;
	void *win32HandleMetaData;
	struct {
		unsigned char compressionType;
		unsigned char gpuDirectRDMACapable;
		unsigned short usage;
		unsigned char reserved[4];
	} allocFlags;
} CUmemAllocationProp;

typedef struct {
	CUmemLocation location;
	int flags;
} CUmemAccessDesc;

typedef union {
	char pad[64];
	struct {
		unsigned int x, y, z;
	} clusterDim;
	int cooperative;
} CUlaunchAttributeValue;

typedef struct {
	int id;
	char pad[8 - sizeof(int)];
	CUlaunchAttributeValue value;
} CUlaunchAttribute;

typedef struct {
	unsigned int gridDimX, gridDimY, gridDimZ;
	unsigned int blockDimX, blockDimY, blockDimZ;
	unsigned int sharedMemBytes;
	CUstream hStream;
	CUlaunchAttribute *attrs;
	unsigned int numAttrs;
} CUlaunchConfig;

#define CU_LAUNCH_PARAM_END ((void *)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)
#define CU_LAUNCH_ATTRIBUTE_COOPERATIVE				2
#define CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION 4
#define CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED	14
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
#define CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK 1
#define CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED 102
#define CU_MEM_ALLOCATION_TYPE_PINNED 1
#define CU_MEM_LOCATION_TYPE_DEVICE 1
#define CU_MEM_ACCESS_FLAGS_PROT_READWRITE 3
#define CU_MEM_ALLOC_GRANULARITY_RECOMMENDED 1
#define CU_STREAM_NON_BLOCKING 1
#define CU_EVENT_DEFAULT 0
#define CU_GET_PROC_ADDRESS_DEFAULT 0

CUresult cuInit(unsigned int flags);
CUresult cuDriverGetVersion(int *v);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev);
CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxSynchronize(void);
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags);
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
			     int *symbolStatus);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);
CUresult cuModuleUnload(CUmodule hmod);
CUresult cuLibraryLoadData(CUlibrary *library, const void *code, int *jitOptions,
			   void **jitOptionsValues, unsigned int numJitOptions, int *libraryOptions,
			   void **libraryOptionValues, unsigned int numLibraryOptions);
CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name);
CUresult cuLibraryUnload(CUlibrary library);
CUresult cuFuncSetAttribute(CUfunction hfunc, int attrib, int value);
CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags);
CUresult cuMemFreeHost(void *p);
CUresult cuTexObjectCreate(unsigned long long *pTexObject, const void *pResDesc, const void *pTexDesc,
			   const void *pResViewDesc);
CUresult cuTexObjectDestroy(unsigned long long texObject);
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
				   unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
				   unsigned int sharedMemBytes, CUstream hStream, void **kernelParams);
CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
			unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
			unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
			void **kernelParams, void **extra);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream);
CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr);
CUresult cuStreamBeginCapture_v2(CUstream hStream, int mode);
CUresult cuStreamEndCapture(CUstream hStream, void **phGraph);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);
CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount);
CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N);
CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
				       int option);
CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
			     unsigned long long flags);
CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size);
CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
		     const CUmemAllocationProp *prop, unsigned long long flags);
CUresult cuMemRelease(CUmemGenericAllocationHandle handle);
CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
		  unsigned long long flags);
CUresult cuMemUnmap(CUdeviceptr ptr, size_t size);
CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count);
CUresult cuStreamSynchronize(CUstream hStream);
CUresult cuStreamDestroy_v2(CUstream hStream);
CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags);
CUresult cuEventRecord(CUevent hEvent, CUstream hStream);
CUresult cuEventSynchronize(CUevent hEvent);
CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd);
CUresult cuEventDestroy_v2(CUevent hEvent);

typedef CUresult pfn_getproc_v2(const char *, void **, int, cuuint64_t, int *);
typedef CUresult pfn_memalloc(CUdeviceptr *, size_t);
typedef CUresult pfn_htod(CUdeviceptr, const void *, size_t);
typedef CUresult pfn_dtoh(void *, CUdeviceptr, size_t);
typedef CUresult pfn_launch(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			    unsigned, CUstream, void **, void **);
typedef CUresult pfn_launch_ex(const CUlaunchConfig *, CUfunction, void **, void **);
typedef CUresult pfn_stream_create(CUstream *, unsigned);

#define CUDA_VER 12040

/* ------------------------------------------------------------------ */

static void check(CUresult rc, const char *expr)
{
	if (rc == 0)
		return;
	int n = (int)strcspn(expr, " (");
	fprintf(stderr, "kapp: %.*s failed: %d\n", n, expr, rc);
	exit(1);
}

#define CK(expr) check((expr), #expr)

static void die(const char *msg)
{
	fprintf(stderr, "kapp: %s\n", msg);
	exit(1);
}

/* A launch attribute: clusters of x blocks. */
static CUlaunchAttribute cluster_of(unsigned x)
{
	CUlaunchAttribute at;

	memset(&at, 0, sizeof at);
	at.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
	at.value.clusterDim.x = x;
	at.value.clusterDim.y = 1;
	at.value.clusterDim.z = 1;
	return at;
}

/* A driver function by name, as cudart looks them up. */
static void *proc_v2(pfn_getproc_v2 *gpa, const char *sym)
{
	void *p = NULL;
	int st = -1;
	CUresult rc = gpa(sym, &p, CUDA_VER, CU_GET_PROC_ADDRESS_DEFAULT, &st);
	if (rc != 0 || !p || st != 0) {
		fprintf(stderr, "kapp: cuGetProcAddress_v2(%s) failed: %d\n", sym, rc);
		exit(1);
	}
	return p;
}

static void *proc_v1(const char *sym)
{
	void *p = NULL;
	CUresult rc = cuGetProcAddress(sym, &p, CUDA_VER, CU_GET_PROC_ADDRESS_DEFAULT);
	if (rc != 0 || !p) {
		fprintf(stderr, "kapp: cuGetProcAddress(%s) failed: %d\n", sym, rc);
		exit(1);
	}
	return p;
}

static int show_addrs;

static void show(const char *what, CUdeviceptr p, size_t n)
{
	if (show_addrs)
		fprintf(stderr, "kapp: alloc %s 0x%llx %zu\n", what, p, n);
}

static uint64_t g_hash = 0xcbf29ce484222325ULL;

static void hash(const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		g_hash ^= b[i];
		g_hash *= 0x100000001b3ULL;
	}
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p)
		die("out of memory");
	return p;
}

static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die("cannot open the image");
	if (fseek(f, 0, SEEK_END) != 0)
		die("cannot read the image");
	long n = ftell(f);
	if (n <= 0 || fseek(f, 0, SEEK_SET) != 0)
		die("cannot read the image");
	unsigned char *buf = xmalloc((size_t)n);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		die("cannot read the image");
	fclose(f);
	*len = (size_t)n;
	return buf;
}

struct knode { /* as the kernel list_sum sees it */
	CUdeviceptr next;
	float value;
	unsigned pad;
};

#define N 1000      /* x, y */
#define NB 300000   /* big: y half and x half */
#define VMM_PART (1u << 20)
#define VMM_RESV (4u << 20)
#define NV (2 * VMM_PART / 4) /* floats in the mapped part of the reservation */
#define NTMP 500
#define NTMP2 750

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: kapp IMAGE.so [ITERS]\n");
		return 2;
	}
	int iters = argc == 3 ? atoi(argv[2]) : 3;
	if (iters < 1)
		die("ITERS must be at least 1");
	const char *sa = getenv("KAPP_SHOW_ADDRS");
	show_addrs = sa && *sa && strcmp(sa, "0") != 0;

	size_t image_len;
	unsigned char *image = read_file(argv[1], &image_len);

	/* --- the driver, three ways --- */
	CK(cuInit(0));
	int ver = 0, ndev = 0;
	CK(cuDriverGetVersion(&ver));
	CK(cuDeviceGetCount(&ndev));
	if (ver < 12000 || ndev < 1)
		die("unexpected driver version or device count");
	CUdevice dev;
	CK(cuDeviceGet(&dev, 0));
	char name[128];
	CK(cuDeviceGetName(name, sizeof name, dev));
	int maxthr = 0, vmm = 0;
	CK(cuDeviceGetAttribute(&maxthr, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev));
	CK(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
	if (maxthr < 256 || !vmm)
		die("unexpected device attributes");
	CUcontext ctx;
	CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CK(cuCtxSetCurrent(ctx));

	/* cuGetProcAddress, linked directly */
	pfn_memalloc *p_memalloc = (pfn_memalloc *)proc_v2(cuGetProcAddress_v2, "cuMemAlloc");
	pfn_launch *p_launch = (pfn_launch *)proc_v2(cuGetProcAddress_v2, "cuLaunchKernel");
	pfn_htod *p_htod = (pfn_htod *)proc_v1("cuMemcpyHtoD");

	/* dlopen + dlsym("cuGetProcAddress_v2"), then through that */
	void *drv = dlopen("libcuda.so.1", RTLD_NOW);
	if (!drv)
		die("dlopen libcuda.so.1 failed");
	pfn_getproc_v2 *gpa = (pfn_getproc_v2 *)dlsym(drv, "cuGetProcAddress_v2");
	if (!gpa)
		die("dlsym cuGetProcAddress_v2 failed");
	/* cudart asks for cuGetProcAddress itself too */
	pfn_getproc_v2 *gpa2 = (pfn_getproc_v2 *)proc_v2(gpa, "cuGetProcAddress");
	pfn_dtoh *p_dtoh = (pfn_dtoh *)proc_v2(gpa2, "cuMemcpyDtoH");
	pfn_launch_ex *p_launch_ex = (pfn_launch_ex *)proc_v2(gpa2, "cuLaunchKernelEx");
	pfn_stream_create *p_stream_create = (pfn_stream_create *)proc_v2(gpa2, "cuStreamCreate");

	/* --- modules --- */
	CUmodule mod;
	CK(cuModuleLoadData(&mod, image));
	CUfunction f_saxpy, f_scale, f_list, f_small, f_shared;
	CK(cuModuleGetFunction(&f_saxpy, mod, "saxpy"));
	CK(cuModuleGetFunction(&f_scale, mod, "scale_fixed"));
	CK(cuModuleGetFunction(&f_list, mod, "list_sum"));
	CK(cuModuleGetFunction(&f_small, mod, "small_block"));
	CK(cuModuleGetFunction(&f_shared, mod, "uses_shared"));
	CUlibrary lib;
	CK(cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0));
	CUkernel k_acc;
	CK(cuLibraryGetKernel(&k_acc, lib, "accumulate"));
	CK(cuFuncSetAttribute(f_shared, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 65536));

	CUstream s;
	CK(p_stream_create(&s, CU_STREAM_NON_BLOCKING));
	CUevent ev0, ev1;
	CK(cuEventCreate(&ev0, CU_EVENT_DEFAULT));
	CK(cuEventCreate(&ev1, CU_EVENT_DEFAULT));

	/* --- memory --- */
	CUdeviceptr d_x, d_y, d_out, d_na, d_nb, d_nc, d_tmp, d_big;
	CK(p_memalloc(&d_x, N * 4));
	CK(cuMemAlloc_v2(&d_y, N * 4));
	CK(cuMemAlloc_v2(&d_out, 16));
	CK(cuMemAlloc_v2(&d_na, 3 * sizeof(struct knode)));
	CK(cuMemAlloc_v2(&d_tmp, NTMP * 4));
	CK(p_memalloc(&d_nb, 2 * sizeof(struct knode)));
	CK(cuMemAlloc_v2(&d_big, 2 * (size_t)NB * 4));
	CK(cuMemAlloc_v2(&d_nc, sizeof(struct knode)));
	show("x", d_x, N * 4);
	show("y", d_y, N * 4);
	show("out", d_out, 16);
	show("nodes_a", d_na, 3 * sizeof(struct knode));
	show("tmp", d_tmp, NTMP * 4);
	show("nodes_b", d_nb, 2 * sizeof(struct knode));
	show("big", d_big, 2 * (size_t)NB * 4);
	show("nodes_c", d_nc, sizeof(struct knode));

	/* expandable-segments style: reserve, create, map, set access */
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof prop);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	size_t gran = 0;
	CK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
	if (!gran || VMM_PART % gran)
		die("unexpected granularity");
	CUdeviceptr d_vmm;
	CK(cuMemAddressReserve(&d_vmm, VMM_RESV, 0, 0, 0));
	CUmemGenericAllocationHandle h[2];
	for (int i = 0; i < 2; i++) {
		CK(cuMemCreate(&h[i], VMM_PART, &prop, 0));
		CK(cuMemMap(d_vmm + (CUdeviceptr)i * VMM_PART, VMM_PART, 0, h[i], 0));
		CK(cuMemRelease(h[i])); /* the mapping keeps it */
	}
	CUmemAccessDesc acc = { { CU_MEM_LOCATION_TYPE_DEVICE, dev }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	CK(cuMemSetAccess(d_vmm, 2 * VMM_PART, &acc, 1));
	show("vmm_reserve", d_vmm, VMM_RESV);
	show("vmm_mapped", d_vmm, 2 * VMM_PART);

	/* --- deterministic data --- */
	float *hx = xmalloc(N * 4), *hy = xmalloc(N * 4);
	for (int i = 0; i < N; i++) {
		hx[i] = (float)(i % 17) * 0.25f - 1.0f;
		hy[i] = (float)(i % 5) + 1.5f; /* no y[i] of the first saxpy is 0 */
	}
	CK(p_htod(d_x, hx, N * 4));
	CK(cuMemcpyHtoD_v2(d_y, hy, N * 4));
	float *hbig = xmalloc(2 * (size_t)NB * 4);
	for (size_t i = 0; i < 2 * (size_t)NB; i++)
		hbig[i] = (float)(i % 101) * 0.125f;
	CK(p_htod(d_big, hbig, 2 * (size_t)NB * 4));
	float *hv = xmalloc((size_t)NV * 4);
	for (size_t i = 0; i < NV; i++)
		hv[i] = (float)(i % 37) * 0.0625f;
	CK(cuMemcpyHtoD_v2(d_vmm, hv, (size_t)NV * 4));
	CK(cuMemsetD32_v2(d_out, 0, 4));

	/* the list 0 -> 1 -> 2 -> 3 -> 4 over three allocations:
	 * node 0 and 3 in nodes_a, 1 and 4 in nodes_b, 2 in nodes_c */
	CUdeviceptr node[5] = {
		d_na, d_nb, d_nc, d_na + sizeof(struct knode), d_nb + sizeof(struct knode),
	};
	static const float vals[5] = { 1.5f, 2.25f, 3.0f, 4.75f, 5.5f };
	for (int i = 0; i < 5; i++) {
		struct knode kn = { i < 4 ? node[i + 1] : 0, vals[i], 0 };
		CK(cuMemcpyHtoD_v2(node[i], &kn, sizeof kn));
	}

	/* --- the launches --- */
	int n = N, nb = NB, nv = NV, ntmp2 = NTMP2;
	CUdeviceptr d_big_x = d_big + (CUdeviceptr)NB * 4;
	CUdeviceptr d_tmp2 = 0;
	float *sums = xmalloc((size_t)iters * 4);
	float *htmp = xmalloc(NTMP * 4);

	CK(cuEventRecord(ev0, s));
	for (int it = 0; it < iters; it++) {
		/* saxpy, kernelParams, created stream, via cuGetProcAddress */
		float a = 0.5f + (float)it;
		void *pa[] = { &a, &d_x, &d_y, &n };
		CK(p_launch(f_saxpy, 4, 1, 1, 128, 1, 1, 0, s, pa, NULL));

		/* saxpy again through cuLaunchKernelEx with a cluster attribute */
		float a2 = -0.25f;
		void *pa2[] = { &a2, &d_x, &d_y, &n };
		CUlaunchAttribute at = cluster_of(2);
		CUlaunchConfig cfg = { 4, 1, 1, 64, 2, 1, 0, NULL, &at, 1 };
		CK(p_launch_ex(&cfg, f_saxpy, pa2, NULL));

		/* scale_fixed, `extra` with a packed buffer, NULL stream */
		struct {
			CUdeviceptr y;
			int n;
			float s;
		} sp = { d_vmm, nv, it % 2 ? 0.5f : 1.5f };
		size_t sp_size = sizeof sp;
		void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &sp, CU_LAUNCH_PARAM_BUFFER_SIZE,
				  &sp_size, CU_LAUNCH_PARAM_END };
		CK(cuLaunchKernel(f_scale, NV / 256, 1, 1, 256, 1, 1, 0, NULL, NULL, extra));

		/* list_sum: pointers stored in device memory */
		void *pl[] = { &node[0], &d_out };
		CK(cuLaunchKernel(f_list, 1, 1, 1, 32, 1, 1, 0, s, pl, NULL));

		/* accumulate through the library's CUkernel used as a CUfunction */
		void *pacc[] = { &d_big, &d_big_x, &nb };
		CK(cuLaunchKernel((CUfunction)k_acc, 64, 1, 1, 256, 1, 1, 0, s, pacc, NULL));

		/* small_block with 256 threads, NULL stream */
		void *psb[] = { &d_big, &nb };
		CK(cuLaunchKernel(f_small, 32, 1, 1, 256, 1, 1, 0, NULL, psb, NULL));

		/* uses_shared: 512 bytes, then 64 KiB (above the 48 KiB default) */
		void *pus[] = { &d_y, &n };
		CK(cuLaunchKernel(f_shared, 4, 1, 1, 128, 1, 1, 128 * 4, s, pus, NULL));
		CUdeviceptr d_vmm_hi = d_vmm + VMM_PART + 4096;
		int nhi = 4096;
		void *pus2[] = { &d_vmm_hi, &nhi };
		CK(cuLaunchKernel(f_shared, 2, 1, 1, 256, 1, 1, 65536, NULL, pus2, NULL));

		if (it > 0) {
			void *pt2[] = { &d_tmp2, &ntmp2 };
			CK(cuLaunchKernel(f_small, 3, 1, 1, 256, 1, 1, 0, s, pt2, NULL));
		}
		CK(cuStreamSynchronize(s));
		CK(p_dtoh(&sums[it], d_out, 4));

		/* the list changes between iterations */
		float v2 = vals[2] + (float)(it + 1);
		CK(cuMemcpyHtoD_v2(node[2] + offsetof(struct knode, value), &v2, 4));

		if (it == 0) { /* the live set changes: tmp goes, tmp2 comes */
			CK(cuMemcpyDtoD_v2(d_tmp, d_y, NTMP * 4));
			CK(p_dtoh(htmp, d_tmp, NTMP * 4));
			CK(cuMemFree_v2(d_tmp));
			/* stream-ordered, as PyTorch's cudaMallocAsync backend */
			CK(cuMemAllocAsync(&d_tmp2, NTMP2 * 4, s));
			show("tmp2", d_tmp2, NTMP2 * 4);
			CK(cuMemsetD32_v2(d_tmp2, 0x3f800000u, NTMP2)); /* 1.0f */
		}
	}
	CK(cuEventRecord(ev1, s));
	CK(cuEventSynchronize(ev1));
	float ms = 0;
	CK(cuEventElapsedTime(&ms, ev0, ev1));
	CK(cuCtxSynchronize());

	/* --- results --- */
	float *hout = xmalloc(16), *htmp2 = xmalloc(NTMP2 * 4);
	CK(p_dtoh(hx, d_x, N * 4));
	CK(p_dtoh(hy, d_y, N * 4));
	CK(p_dtoh(hout, d_out, 16));
	CK(p_dtoh(hbig, d_big, 2 * (size_t)NB * 4));
	CK(p_dtoh(hv, d_vmm, (size_t)NV * 4));
	CK(p_dtoh(htmp2, d_tmp2, NTMP2 * 4));
	hash(hx, N * 4);
	hash(hy, N * 4);
	hash(hout, 16);
	hash(hbig, 2 * (size_t)NB * 4);
	hash(hv, (size_t)NV * 4);
	hash(htmp, NTMP * 4);
	hash(htmp2, NTMP2 * 4);
	hash(sums, (size_t)iters * 4);
	/* $KAPP_COOP: coop_mark launched cooperatively twice, with
	 * cuLaunchCooperativeKernel (kernelParams) and with cuLaunchKernelEx and
	 * the cooperative attribute (an argument buffer): 4 blocks add 1 each */
	const char *coop = getenv("KAPP_COOP");
	if (coop && *coop && strcmp(coop, "0") != 0) {
		CUfunction f_coop;
		CUdeviceptr d_count;
		int count = 0;
		CK(cuModuleGetFunction(&f_coop, mod, "coop_mark"));
		CK(cuMemAlloc_v2(&d_count, 4));
		CK(cuMemsetD32_v2(d_count, 0, 1));
		void *pc[] = { &d_count };
		CK(cuLaunchCooperativeKernel(f_coop, 4, 1, 1, 32, 1, 1, 0, s, pc));
		size_t pc_size = sizeof d_count;
		void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &d_count, CU_LAUNCH_PARAM_BUFFER_SIZE, &pc_size,
				  CU_LAUNCH_PARAM_END };
		CUlaunchAttribute at;
		memset(&at, 0, sizeof at);
		at.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
		at.value.cooperative = 1;
		CUlaunchConfig cfgc = { 4, 1, 1, 32, 1, 1, 0, s, &at, 1 };
		CK(p_launch_ex(&cfgc, f_coop, NULL, extra));
		CK(cuStreamSynchronize(s));
		CK(p_dtoh(&count, d_count, 4));
		if (count != 8)
			die("coop_mark did not count 8: a launch was not cooperative");
		hash(&count, 4);
		CK(cuMemFree_v2(d_count));
	}
	/* $KAPP_HANDLES: arguments a recording cannot carry to another process:
	 * small_block on pinned host memory, handle_low given a texture object */
	const char *handles = getenv("KAPP_HANDLES");
	if (handles && *handles && strcmp(handles, "0") != 0) {
		CUfunction f_handle;
		void *host = NULL;
		unsigned long long tex = 0;
		unsigned char res[144], texdesc[104];
		int nh = 16, low = -1;
		CUdeviceptr d_host, d_low;
		CK(cuMemHostAlloc(&host, 4096, 0));
		d_host = (CUdeviceptr)(uintptr_t)host;
		void *ph[] = { &d_host, &nh };
		CK(cuLaunchKernel(f_small, 1, 1, 1, 32, 1, 1, 0, s, ph, NULL));
		memset(res, 0, sizeof res);
		memset(texdesc, 0, sizeof texdesc);
		CK(cuTexObjectCreate(&tex, res, texdesc, NULL));
		CK(cuModuleGetFunction(&f_handle, mod, "handle_low"));
		CK(cuMemAlloc_v2(&d_low, 4));
		void *pt[] = { &tex, &d_low };
		CK(cuLaunchKernel(f_handle, 1, 1, 1, 32, 1, 1, 0, s, pt, NULL));
		CK(cuStreamSynchronize(s));
		CK(p_dtoh(&low, d_low, 4));
		hash(&low, 4);
		hash(host, 64);
		CK(cuTexObjectDestroy(tex));
		CK(cuMemFree_v2(d_low));
		CK(cuMemFreeHost(host));
	}
	/* $KAPP_BIGCLUSTER: one more saxpy in clusters of 16 blocks, which the
	 * function must allow (Triton does so for its big clusters) */
	const char *big = getenv("KAPP_BIGCLUSTER");
	if (big && *big && strcmp(big, "0") != 0) {
		float a3 = 0.125f;
		void *pa3[] = { &a3, &d_x, &d_y, &n };
		CUlaunchAttribute at16 = cluster_of(16);
		CUlaunchConfig cfg16 = { 16, 1, 1, 64, 1, 1, 0, NULL, &at16, 1 };
		CK(cuFuncSetAttribute(f_saxpy, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
		CK(p_launch_ex(&cfg16, f_saxpy, pa3, NULL));
		CK(cuCtxSynchronize());
	}
	/* $KAPP_CAPTURE: one more small_block, on s while it is captured into a
	 * graph (as torch.cuda.graphs do); a recorder that synchronizes then
	 * would end the capture, and EndCapture would fail */
	const char *cap = getenv("KAPP_CAPTURE");
	if (cap && *cap && strcmp(cap, "0") != 0) {
		void *graph = NULL;
		void *pcap[] = { &d_tmp2, &ntmp2 };

		CK(cuStreamBeginCapture_v2(s, 0));
		CK(cuLaunchKernel(f_small, 3, 1, 1, 256, 1, 1, 0, s, pcap, NULL));
		CK(cuStreamEndCapture(s, &graph));
	}
	/* at the end (the addresses above stay the stand-in's first ones): a
	 * library built for CUDA 3.0 asks for cuMemAlloc too, and gets the
	 * 32-bit ABI: what the _v2 pointer calls must not change (a recorder
	 * that let the last lookup win had the _v2 wrapper call the legacy
	 * function: 4 bytes of pointer written, the size cut to 32 bits) */
	{
		void *legacy = NULL;
		int st = -1;
		CUdeviceptr probe = (CUdeviceptr)0xdeadbeefdeadbeefull, base = 0;
		size_t size = 0;

		if (gpa("cuMemAlloc", &legacy, 3000, CU_GET_PROC_ADDRESS_DEFAULT, &st) || !legacy)
			die("cuGetProcAddress_v2(cuMemAlloc, 3000) found no legacy ABI");
		CK(p_memalloc(&probe, 1 << 16));
		if ((probe >> 32) == 0xdeadbeefu || cuMemGetAddressRange_v2(&base, &size, probe) || size != 1 << 16)
			die("the _v2 cuMemAlloc pointer called the legacy ABI after a legacy lookup");
		CK(cuMemFree_v2(probe));
	}

	printf("kapp: checksum=%016llx\n", (unsigned long long)g_hash);

	/* --- teardown --- */
	CK(cuMemUnmap(d_vmm, 2 * VMM_PART));
	CK(cuMemAddressFree(d_vmm, VMM_RESV));
	CK(cuMemFreeAsync(d_tmp2, s));
	CK(cuStreamSynchronize(s));
	CUdeviceptr frees[] = { d_x, d_y, d_out, d_na, d_nb, d_nc, d_big };
	for (size_t i = 0; i < sizeof frees / sizeof frees[0]; i++)
		CK(cuMemFree_v2(frees[i]));
	CK(cuEventDestroy_v2(ev0));
	CK(cuEventDestroy_v2(ev1));
	CK(cuStreamDestroy_v2(s));
	CK(cuModuleUnload(mod));
	CK(cuLibraryUnload(lib));
	CK(cuDevicePrimaryCtxRelease_v2(dev));
	dlclose(drv);
	free(hx);
	free(hy);
	free(hbig);
	free(hv);
	free(hout);
	free(htmp);
	free(htmp2);
	free(sums);
	free(image);
	return 0;
}
