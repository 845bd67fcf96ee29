/* SPDX-License-Identifier: MIT */
/* common: source that libtlreplay and the kernel recorder (core/record,
 * preloaded into any program, linking nothing of libtlreplay) both compile.
 *
 * This header: the part of the CUDA driver API's ABI that kernel record and
 * replay use, declared here so that both build without the CUDA toolkit
 * (they reach libcuda.so.1 with dlopen/dlsym only). Every value and layout
 * is cuda.h's (CUDA 12 and 13; tests/kreplay/test_cuda_abi.sh checks them
 * against the toolkit's cuda.h where there is one); the driver's ABI is
 * stable across versions, which is what lets one build serve any driver.
 * The test program tests/kreplay/cuda/rr_modload.c takes it where the
 * toolkit has no cuda.h. The stand-in driver (tests/fakes) and the
 * standalone replayer that `pack --kdb` ships keep copies of their own, on
 * purpose: test_cuda_abi.sh says why. */
#ifndef TLREPLAY_COMMON_CUDA_DRIVER_H
#define TLREPLAY_COMMON_CUDA_DRIVER_H

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

/* cuStreamCreate's flags */
#define CU_STREAM_NON_BLOCKING 0x1

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
#define CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED 14

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

/* cuPointerGetAttribute */
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CU_POINTER_ATTRIBUTE_IS_MANAGED	 8
#define CU_MEMORYTYPE_HOST		 1

/* The virtual memory management API (cuMemCreate / cuMemMap). */
#define CU_MEM_ALLOCATION_TYPE_PINNED 0x1
#define CU_MEM_LOCATION_TYPE_DEVICE 0x1
#define CU_MEM_ACCESS_FLAGS_PROT_READWRITE 0x3
#define CU_MEM_ALLOC_GRANULARITY_MINIMUM 0x0
#define CU_MEM_ALLOC_GRANULARITY_RECOMMENDED 0x1

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

#endif
