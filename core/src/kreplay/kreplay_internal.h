/* SPDX-License-Identifier: MIT */
/* Kernel replay's insides: the driver as reached by dlopen (kdriver.c), the
 * session (kreplay.c) and the comparison with recorded outputs (kverify.c).
 * The driver's ABI and the blobs' SHA-256 are in common/, which the recorder
 * (core/record) shares. It depends on base and common. */
#ifndef TLREPLAY_KREPLAY_INTERNAL_H
#define TLREPLAY_KREPLAY_INTERNAL_H

#include <tlreplay/kreplay.h>

#include <stddef.h>
#include <stdint.h>

#include "common/cuda_driver.h"
#include "common/sha256.h"



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


/* Compare @n bytes of @got with @want into @d (counts accumulate; @off is
 * where the piece starts in its allocation). */
void kverify_piece(const unsigned char *got, const unsigned char *want, size_t n, uint64_t off,
		   enum tl_kdtype dt, double tol, struct tl_kdiff *d);

#endif
