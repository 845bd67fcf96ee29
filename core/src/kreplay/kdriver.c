/* SPDX-License-Identifier: MIT */
/* The CUDA driver for kernel replay, reached with dlopen so that tlreplay
 * runs (and says what it cannot do) where there is none; the stand-in
 * driver of the tests is reached the same way ($TLREPLAY_CUDA_LIB). And
 * the database's blobs, mapped once checked against their names. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base_internal.h"
#include "kreplay/kreplay_internal.h"

int kdrv_check(const struct kdrv *d, CUresult r, const char *what)
{
	const char *name = NULL;

	if (r == CUDA_SUCCESS)
		return 0;
	if (!d->GetErrorName || d->GetErrorName(r, &name) || !name)
		name = NULL;
	if (name)
		return tl_err(-EIO, "%s: %s", what, name);
	return tl_err(-EIO, "%s: CUDA error %d", what, r);
}

int kdrv_load(struct kdrv *d)
{
	const char *env = getenv("TLREPLAY_CUDA_LIB");
	const char *path = env && *env ? env : "libcuda.so.1";
	const char *missing = NULL;
	int err;

	memset(d, 0, sizeof(*d));
	d->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!d->dl)
		return tl_err(-ENOENT, "no CUDA driver: cannot load %s (%s)", path, dlerror());
#define NEED(field, name)                                   \
	do {                                                \
		if (!missing && !tl_dlsym(d->dl, name, &d->field)) \
			missing = name;                     \
	} while (0)
	NEED(Init, "cuInit");
	NEED(DeviceGet, "cuDeviceGet");
	NEED(DeviceGetName, "cuDeviceGetName");
	NEED(DeviceGetAttribute, "cuDeviceGetAttribute");
	NEED(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	NEED(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
	NEED(CtxSetCurrent, "cuCtxSetCurrent");
	NEED(CtxSynchronize, "cuCtxSynchronize");
	NEED(MemGetAllocationGranularity, "cuMemGetAllocationGranularity");
	NEED(MemAddressReserve, "cuMemAddressReserve");
	NEED(MemAddressFree, "cuMemAddressFree");
	NEED(MemCreate, "cuMemCreate");
	NEED(MemRelease, "cuMemRelease");
	NEED(MemMap, "cuMemMap");
	NEED(MemUnmap, "cuMemUnmap");
	NEED(MemSetAccess, "cuMemSetAccess");
	NEED(MemcpyHtoD, "cuMemcpyHtoD_v2");
	NEED(MemcpyDtoH, "cuMemcpyDtoH_v2");
	NEED(MemAlloc, "cuMemAlloc_v2");
	NEED(MemFree, "cuMemFree_v2");
	NEED(MemsetD8, "cuMemsetD8_v2");
	NEED(ModuleLoadData, "cuModuleLoadData");
	NEED(ModuleUnload, "cuModuleUnload");
	NEED(ModuleGetFunction, "cuModuleGetFunction");
	NEED(FuncGetAttribute, "cuFuncGetAttribute");
	NEED(FuncSetAttribute, "cuFuncSetAttribute");
	NEED(LaunchKernel, "cuLaunchKernel");
	NEED(StreamCreate, "cuStreamCreate");
	NEED(StreamDestroy, "cuStreamDestroy_v2");
	NEED(StreamSynchronize, "cuStreamSynchronize");
	NEED(EventCreate, "cuEventCreate");
	NEED(EventRecord, "cuEventRecord");
	NEED(EventSynchronize, "cuEventSynchronize");
	NEED(EventElapsedTime, "cuEventElapsedTime");
	NEED(EventDestroy, "cuEventDestroy_v2");
#undef NEED
	tl_dlsym(d->dl, "cuLaunchKernelEx", &d->LaunchKernelEx);
	tl_dlsym(d->dl, "cuGetErrorName", &d->GetErrorName);
	if (missing) {
		err = tl_err(-ENOENT, "%s: the driver has no %s (kernel replay needs CUDA 11.2 or newer)", path,
			     missing);
		goto fail;
	}
	if ((err = kdrv_check(d, d->Init(0), "cuInit")))
		goto fail;
	return 0;
fail:
	dlclose(d->dl);
	memset(d, 0, sizeof(*d));
	return err;
}

void kdrv_unload(struct kdrv *d)
{
	/* libcuda is never unloaded by its users (its threads outlive a
	 * dlclose); the handle only goes */
	memset(d, 0, sizeof(*d));
}

/* Whether the @len bytes at @p are what blob @name holds: its name is their
 * SHA-256. *@got gets the hex digits when not. */
static bool blob_matches(const char *name, const void *p, size_t len, char got[65])
{
	struct kdb_sha256 sha;

	kdb_sha256_init(&sha);
	kdb_sha256_add(&sha, p, len);
	kdb_sha256_hex(&sha, got);
	return !strcmp(got, name);
}

int kblob_map(const struct tl_kdb *db, const char *name, uint64_t want, struct kblob *b)
{
	char path[4200], got[65];
	struct stat st;
	void *p;
	int fd;

	memset(b, 0, sizeof(*b));
	snprintf(path, sizeof(path), "%s/blobs/%s", tl_kdb_dir(db), name);
	/* a part of the database, which may come from a shared directory or an
	 * archive: no symbolic link, nothing that is not a regular file (a FIFO
	 * would hang open() without O_NONBLOCK) */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 && errno == ELOOP)
		return tl_err(-EINVAL, "%s: a symbolic link, refused: a blob must be a regular file in blobs/", path);
	if (fd < 0)
		return tl_err(-ENOENT, "%s: missing from the database (%s)", path, strerror(errno));
	if (fstat(fd, &st)) {
		int e = errno;

		close(fd);
		return tl_err(-e, "%s: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != want) {
		close(fd);
		if (!S_ISREG(st.st_mode))
			return tl_err(-EINVAL, "%s: not a regular file: a blob must be one", path);
		return tl_err(-EINVAL, "%s: %lld bytes, the index says %llu", path, (long long)st.st_size,
			      (unsigned long long)want);
	}
	if (!want) {
		close(fd);
		b->p = (const unsigned char *)"";
	} else {
		p = mmap(NULL, want, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (p == MAP_FAILED)
			return tl_err(-errno, "%s: %s", path, strerror(errno));
		b->p = p;
		b->len = want;
	}
	/* before any use: a corrupt copy would replay as a kernel that computes
	 * something else (--verify: DIFFERS), or load a broken module */
	if (!blob_matches(name, b->p, want, got)) {
		kblob_unmap(b);
		return tl_err(-EBADMSG, "%s: corrupt: its SHA-256 is %.12s..., not the %.12s... of its name "
			      "(the database's copy is damaged: copy or record it again)", path, got, name);
	}
	return 0;
}

void kblob_unmap(struct kblob *b)
{
	if (b->len)
		munmap((void *)b->p, b->len);
	memset(b, 0, sizeof(*b));
}
