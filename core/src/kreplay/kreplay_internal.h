/* SPDX-License-Identifier: MIT */
/* Kernel replay's insides: the driver as reached by dlopen (kdriver.c), the
 * session (kreplay.c) and the comparison with recorded outputs (kverify.c).
 *
 * First, the part of the CUDA driver API's ABI that kernel record and replay
 * use, declared here so that both build without the CUDA toolkit (the
 * recorder, core/record/, includes this header for it: it reaches
 * libcuda.so.1 with dlopen/dlsym only). Every value and layout is cuda.h's
 * (CUDA 12 and 13); the driver's ABI is stable across versions, which is
 * what lets one build serve any driver. */
#ifndef TLREPLAY_KREPLAY_INTERNAL_H
#define TLREPLAY_KREPLAY_INTERNAL_H

#include <tlreplay/kreplay.h>

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUkern_st *CUkernel;
typedef struct CUlib_st *CUlibrary;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmemPoolHandle_st *CUmemoryPool;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_INVALID_IMAGE 200
#define CUDA_ERROR_INVALID_HANDLE 400
#define CUDA_ERROR_NOT_FOUND 500
#define CUDA_ERROR_NOT_SUPPORTED 801

/* cuLaunchKernel's `extra` keys */
#define CU_LAUNCH_PARAM_END ((void *)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)

/* cuGetProcAddress flags */
#define CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM (1 << 1)

/* CUdevice_attribute */
#define CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK 1
#define CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X 5
#define CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y 6
#define CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z 7
#define CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK 8
#define CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE 38
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN 97

/* CUfunction_attribute */
#define CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK 0
#define CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES 1
#define CU_FUNC_ATTRIBUTE_NUM_REGS 4
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8

/* CUlaunchAttributeID values whose payload holds no process-local handle,
 * so that a recorded attribute means the same thing in another process */
#define CU_LAUNCH_ATTRIBUTE_COOPERATIVE 2
#define CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION 4
#define CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE 5
#define CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION 6
#define CU_LAUNCH_ATTRIBUTE_PRIORITY 8
#define CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP 9
#define CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN 10
#define CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION 11
#define CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT 14

/* The value union is 64 bytes; the id is padded to 8. */
typedef struct CUlaunchAttribute_st {
	int id;
	char pad[4];
	unsigned char value[64];
} CUlaunchAttribute;

typedef struct CUlaunchConfig_st {
	unsigned int gridDimX, gridDimY, gridDimZ;
	unsigned int blockDimX, blockDimY, blockDimZ;
	unsigned int sharedMemBytes;
	CUstream hStream;
	CUlaunchAttribute *attrs;
	unsigned int numAttrs;
} CUlaunchConfig;

/* The virtual memory management API (cuMemCreate / cuMemMap). */
#define CU_MEM_ALLOCATION_TYPE_PINNED 0x1
#define CU_MEM_LOCATION_TYPE_DEVICE 0x1
#define CU_MEM_ACCESS_FLAGS_PROT_READWRITE 0x3
#define CU_MEM_ALLOC_GRANULARITY_MINIMUM 0x0

typedef struct CUmemLocation_st {
	int type;
	int id;
} CUmemLocation;

typedef struct CUmemAllocationProp_st {
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

typedef struct CUmemAccessDesc_st {
	CUmemLocation location;
	int flags;
} CUmemAccessDesc;

/* Module images as the driver takes them (cuModuleLoadData): a fatbin
 * (possibly behind cudart's wrapper), an ELF cubin, or NUL-terminated PTX. */
#define TL_FATBIN_MAGIC 0xBA55ED50u
#define TL_FATBIN_WRAPPER_MAGIC 0x466243B1u


/* The driver functions replay calls. */
struct kdrv {
	void *dl;
	CUresult (*Init)(unsigned);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
	CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*PrimaryCtxRelease)(CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*CtxSynchronize)(void);
	CUresult (*MemGetAllocationGranularity)(size_t *, const CUmemAllocationProp *, int);
	CUresult (*MemAddressReserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
	CUresult (*MemAddressFree)(CUdeviceptr, size_t);
	CUresult (*MemCreate)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
			      unsigned long long);
	CUresult (*MemRelease)(CUmemGenericAllocationHandle);
	CUresult (*MemMap)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
	CUresult (*MemUnmap)(CUdeviceptr, size_t);
	CUresult (*MemSetAccess)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
	CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
	CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
	CUresult (*ModuleLoadData)(CUmodule *, const void *);
	CUresult (*ModuleUnload)(CUmodule);
	CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*FuncGetAttribute)(int *, int, CUfunction);
	CUresult (*FuncSetAttribute)(CUfunction, int, int);
	CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
				 CUstream, void **, void **);
	CUresult (*LaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **);	/* may be NULL */
	CUresult (*StreamCreate)(CUstream *, unsigned);
	CUresult (*StreamDestroy)(CUstream);
	CUresult (*StreamSynchronize)(CUstream);
	CUresult (*EventCreate)(CUevent *, unsigned);
	CUresult (*EventRecord)(CUevent, CUstream);
	CUresult (*EventSynchronize)(CUevent);
	CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
	CUresult (*EventDestroy)(CUevent);
	CUresult (*GetErrorName)(CUresult, const char **);	/* may be NULL */
};

/* Load the driver ($TLREPLAY_CUDA_LIB, else libcuda.so.1) and cuInit it.
 * 0, or -ENOENT / -EIO after tl_err(). */
int kdrv_load(struct kdrv *d);
void kdrv_unload(struct kdrv *d);
/* -EIO after tl_err("@what: CUDA_ERROR_..."), or 0 when @r is CUDA_SUCCESS. */
int kdrv_check(const struct kdrv *d, CUresult r, const char *what);

/* Blobs of the database, mapped read-only. kblob_map() refuses a blob that
 * is not a regular file of blobs/ (no symbolic link) or whose SHA-256 is
 * not its name (a corrupt copy), naming it, before anything runs. */
struct kblob {
	const unsigned char *p;
	size_t len;
};
int kblob_map(const struct tl_kdb *db, const char *name, uint64_t want, struct kblob *b);
void kblob_unmap(struct kblob *b);

/* SHA-256 (sha256.c, compiled into the recorder too): blobs are named by
 * the 64 hex digits of theirs. */
struct kdb_sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t fill;
};
void kdb_sha256_init(struct kdb_sha256 *s);
void kdb_sha256_add(struct kdb_sha256 *s, const void *data, size_t len);
void kdb_sha256_hex(struct kdb_sha256 *s, char hex[65]);

/* Compare @n bytes of @got with @want into @d (counts accumulate; @off is
 * where the piece starts in its allocation). */
void kverify_piece(const unsigned char *got, const unsigned char *want, size_t n, uint64_t off,
		   enum tl_kdtype dt, double tol, struct tl_kdiff *d);

#endif
