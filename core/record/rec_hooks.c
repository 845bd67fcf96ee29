/* SPDX-License-Identifier: MIT */
/* The driver functions the recorder interposes, and the three ways a
 * program reaches them:
 *  - by the dynamic linker (a program linked with -lcuda, Triton's launcher):
 *    our exports come first through LD_PRELOAD;
 *  - through cuGetProcAddress (cudart asks it for every driver function
 *    since CUDA 11.3, PyTorch for the virtual memory API): ours calls the
 *    driver's and hands back our wrapper of what it found;
 *  - through dlsym on libcuda's handle (how cudart finds cuGetProcAddress
 *    itself): dlsym is interposed too, and a lookup that lands on one of the
 *    driver functions we wrap gets the wrapper.
 * Each wrapper does its bookkeeping around the real function, which it
 * finds in libcuda.so.1 as the program loaded it. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"

/* ---- the table of wrapped functions */
struct hook {
	const char *name;	/* the driver's export */
	const char *base;	/* the name cuGetProcAddress is asked for */
	bool ptsz;		/* the per-thread-default-stream variant */
	void *wrapper;
	void *real;		/* resolved once */
	/* the cudaVersions whose lookups of base have the wrapper's ABI: an
	 * older one gets another (cuMemAlloc for 3.0: 32-bit pointers) */
	int since, until;
};

static struct hook hooks[];
static size_t nhooks;

static struct hook *hook_named(const char *name)
{
	size_t i;

	for (i = 0; i < nhooks; i++)
		if (!strcmp(hooks[i].name, name))
			return &hooks[i];
	return NULL;
}

static void *hook_real(struct hook *h)
{
	dlsym_fn *ds;

	void *real = __atomic_load_n(&h->real, __ATOMIC_ACQUIRE);

	if (!real && (ds = rec_real_dlsym()) && rec_cuda_handle()) {
		real = ds(rec_cuda_handle(), h->name);
		__atomic_store_n(&h->real, real, __ATOMIC_RELEASE);
	}
	return real;
}

#define REAL_OF(idx, T) ((T *)hook_real(&hooks[idx]))

/* ---- modules */
typedef CUresult load_fn(CUmodule *, const void *);
typedef CUresult loadex_fn(CUmodule *, const void *, unsigned, int *, void **);
typedef CUresult loadfile_fn(CUmodule *, const char *);
typedef CUresult unload_fn(CUmodule);
typedef CUresult getfunc_fn(CUfunction *, CUmodule, const char *);
typedef CUresult libload_fn(CUlibrary *, const void *, int *, void **, unsigned, int *, void **, unsigned);
typedef CUresult libfile_fn(CUlibrary *, const char *, int *, void **, unsigned, int *, void **, unsigned);
typedef CUresult libunload_fn(CUlibrary);
typedef CUresult libkernel_fn(CUkernel *, CUlibrary, const char *);
typedef CUresult libmodule_fn(CUmodule *, CUlibrary);
typedef CUresult kernfunc_fn(CUfunction *, CUkernel);
typedef CUresult getproc_fn(const char *, void **, int, uint64_t);
typedef CUresult getproc2_fn(const char *, void **, int, uint64_t, int *);

enum {
	H_LOAD, H_LOADEX, H_LOADFAT, H_LOADFILE, H_UNLOAD, H_GETFUNC, H_LIBLOAD, H_LIBFILE, H_LIBUNLOAD,
	H_LIBKERNEL, H_LIBMODULE, H_KERNFUNC, H_ALLOC, H_ALLOCPITCH, H_ALLOCMANAGED, H_FREE, H_ALLOCASYNC,
	H_ALLOCASYNC_PTSZ, H_POOLASYNC, H_POOLASYNC_PTSZ, H_FREEASYNC, H_FREEASYNC_PTSZ, H_MAP, H_UNMAP,
	H_LAUNCH, H_LAUNCH_PTSZ, H_LAUNCHEX, H_LAUNCHEX_PTSZ, H_COOP, H_COOP_PTSZ, H_GETPROC, H_GETPROC2,
	H_RESERVE,
	H_ADDRFREE,
	H_TEXCREATE,
	H_TEXDESTROY,
	H_SURFCREATE,
	H_SURFDESTROY,
};

static void note_image(const void *handle, const void *image)
{
	const void *data = image;
	enum rec_image_kind kind;
	size_t len = rec_image_len(&data, &kind);

	if (len)
		rec_module_add(handle, data, len, kind);
}

/* A module read from a file: the recorder keeps its bytes. */
static void note_file(const void *handle, const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long len;

	if (!f)
		return;
	if (!fseek(f, 0, SEEK_END) && (len = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (buf = malloc((size_t)len + 1)) && fread(buf, 1, (size_t)len, f) == (size_t)len) {
		const void *data = buf;
		enum rec_image_kind kind;

		buf[len] = 0;
		if (rec_image_len(&data, &kind))
			rec_module_add(handle, buf, (size_t)len, kind);
	}
	free(buf);
	fclose(f);
}

REC_EXPORT CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
	CUresult r = REAL_OF(H_LOAD, load_fn)(m, image);

	if (!r)
		note_image(*m, image);
	return r;
}

REC_EXPORT CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n, int *opts, void **vals)
{
	CUresult r = REAL_OF(H_LOADEX, loadex_fn)(m, image, n, opts, vals);

	if (!r)
		note_image(*m, image);
	return r;
}

REC_EXPORT CUresult cuModuleLoadFatBinary(CUmodule *m, const void *image)
{
	CUresult r = REAL_OF(H_LOADFAT, load_fn)(m, image);

	if (!r)
		note_image(*m, image);
	return r;
}

REC_EXPORT CUresult cuModuleLoad(CUmodule *m, const char *path)
{
	CUresult r = REAL_OF(H_LOADFILE, loadfile_fn)(m, path);

	if (!r)
		note_file(*m, path);
	return r;
}

REC_EXPORT CUresult cuModuleUnload(CUmodule m)
{
	CUresult r = REAL_OF(H_UNLOAD, unload_fn)(m);

	if (!r)
		rec_module_drop(m);
	return r;
}

REC_EXPORT CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	CUresult r = REAL_OF(H_GETFUNC, getfunc_fn)(f, m, name);

	if (!r)
		rec_function_add(*f, m, name);
	return r;
}

REC_EXPORT CUresult cuLibraryLoadData(CUlibrary *lib, const void *code, int *jo, void **jv, unsigned njo, int *lo,
				      void **lv, unsigned nlo)
{
	CUresult r = REAL_OF(H_LIBLOAD, libload_fn)(lib, code, jo, jv, njo, lo, lv, nlo);

	if (!r)
		note_image(*lib, code);
	return r;
}

REC_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary *lib, const char *path, int *jo, void **jv, unsigned njo,
					  int *lo, void **lv, unsigned nlo)
{
	CUresult r = REAL_OF(H_LIBFILE, libfile_fn)(lib, path, jo, jv, njo, lo, lv, nlo);

	if (!r)
		note_file(*lib, path);
	return r;
}

REC_EXPORT CUresult cuLibraryUnload(CUlibrary lib)
{
	CUresult r = REAL_OF(H_LIBUNLOAD, libunload_fn)(lib);

	if (!r)
		rec_module_drop(lib);
	return r;
}

REC_EXPORT CUresult cuLibraryGetKernel(CUkernel *k, CUlibrary lib, const char *name)
{
	CUresult r = REAL_OF(H_LIBKERNEL, libkernel_fn)(k, lib, name);

	if (!r)
		rec_kernel_add(*k, lib, name);
	return r;
}

REC_EXPORT CUresult cuLibraryGetModule(CUmodule *m, CUlibrary lib)
{
	CUresult r = REAL_OF(H_LIBMODULE, libmodule_fn)(m, lib);

	if (!r)
		rec_module_alias(*m, lib);
	return r;
}

REC_EXPORT CUresult cuKernelGetFunction(CUfunction *f, CUkernel k)
{
	CUresult r = REAL_OF(H_KERNFUNC, kernfunc_fn)(f, k);

	if (!r)
		rec_function_alias(*f, k);
	return r;
}

/* ---- memory */
typedef CUresult alloc_fn(CUdeviceptr *, size_t);
typedef CUresult allocpitch_fn(CUdeviceptr *, size_t *, size_t, size_t, unsigned);
typedef CUresult allocmanaged_fn(CUdeviceptr *, size_t, unsigned);
typedef CUresult free_fn(CUdeviceptr);
typedef CUresult allocasync_fn(CUdeviceptr *, size_t, CUstream);
typedef CUresult poolasync_fn(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
typedef CUresult freeasync_fn(CUdeviceptr, CUstream);
typedef CUresult map_fn(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
typedef CUresult unmap_fn(CUdeviceptr, size_t);
typedef CUresult reserve_fn(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
typedef CUresult addrfree_fn(CUdeviceptr, size_t);

/* Device memory comes from the recorder's arena when it can
 * (rec_arena.c), else from the driver. */
REC_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	CUresult r;

	if (!rec_arena_alloc(p, n, NULL, false, &r))
		r = REAL_OF(H_ALLOC, alloc_fn)(p, n);

	if (!r)
		rec_alloc_add(*p, n, REC_MEM_ALLOC);
	return r;
}

REC_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *p, size_t *pitch, size_t w, size_t h, unsigned elem)
{
	CUresult r = REAL_OF(H_ALLOCPITCH, allocpitch_fn)(p, pitch, w, h, elem);

	if (!r)
		rec_alloc_add(*p, *pitch * h, REC_MEM_ALLOC);
	return r;
}

REC_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *p, size_t n, unsigned flags)
{
	CUresult r = REAL_OF(H_ALLOCMANAGED, allocmanaged_fn)(p, n, flags);

	if (!r)
		rec_alloc_add(*p, n, REC_MEM_ALLOC);
	return r;
}

REC_EXPORT CUresult cuMemFree_v2(CUdeviceptr p)
{
	CUresult r;

	if (!rec_arena_free(p, NULL, false, &r))
		r = REAL_OF(H_FREE, free_fn)(p);

	if (!r)
		rec_alloc_drop(p);
	return r;
}

REC_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *p, size_t n, CUstream s)
{
	CUresult r;

	if (!rec_arena_alloc(p, n, s, true, &r))
		r = REAL_OF(H_ALLOCASYNC, allocasync_fn)(p, n, s);

	if (!r)
		rec_alloc_add(*p, n, REC_MEM_ASYNC);
	return r;
}

REC_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *p, size_t n, CUstream s)
{
	CUresult r;

	if (!rec_arena_alloc(p, n, s, true, &r))
		r = REAL_OF(H_ALLOCASYNC_PTSZ, allocasync_fn)(p, n, s);

	if (!r)
		rec_alloc_add(*p, n, REC_MEM_ASYNC);
	return r;
}

REC_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t n, CUmemoryPool pool, CUstream s)
{
	CUresult r;

	if (!rec_arena_alloc(p, n, s, true, &r))
		r = REAL_OF(H_POOLASYNC, poolasync_fn)(p, n, pool, s);

	if (!r)
		rec_alloc_add(*p, n, REC_MEM_ASYNC);
	return r;
}

REC_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *p, size_t n, CUmemoryPool pool, CUstream s)
{
	CUresult r;

	if (!rec_arena_alloc(p, n, s, true, &r))
		r = REAL_OF(H_POOLASYNC_PTSZ, poolasync_fn)(p, n, pool, s);

	if (!r)
		rec_alloc_add(*p, n, REC_MEM_ASYNC);
	return r;
}

REC_EXPORT CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s)
{
	CUresult r;

	if (!rec_arena_free(p, s, true, &r))
		r = REAL_OF(H_FREEASYNC, freeasync_fn)(p, s);

	if (!r)
		rec_alloc_drop(p);
	return r;
}

REC_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s)
{
	CUresult r;

	if (!rec_arena_free(p, s, true, &r))
		r = REAL_OF(H_FREEASYNC_PTSZ, freeasync_fn)(p, s);

	if (!r)
		rec_alloc_drop(p);
	return r;
}

/* PyTorch's expandable segments reserve a range (from the arena when it
 * can) and map physical chunks into it: each mapping is memory a kernel can
 * reach. */
REC_EXPORT CUresult cuMemAddressReserve(CUdeviceptr *p, size_t size, size_t align, CUdeviceptr addr,
					unsigned long long flags)
{
	CUresult r;

	if (!rec_arena_reserve(p, size, align, &r))
		r = REAL_OF(H_RESERVE, reserve_fn)(p, size, align, addr, flags);
	return r;
}

REC_EXPORT CUresult cuMemAddressFree(CUdeviceptr p, size_t size)
{
	CUresult r;

	if (!rec_arena_address_free(p, size, &r))
		r = REAL_OF(H_ADDRFREE, addrfree_fn)(p, size);
	return r;
}

REC_EXPORT CUresult cuMemMap(CUdeviceptr p, size_t size, size_t off, CUmemGenericAllocationHandle h,
			     unsigned long long flags)
{
	CUresult r = REAL_OF(H_MAP, map_fn)(p, size, off, h, flags);

	if (!r)
		rec_alloc_add(p, size, REC_MEM_MAPPED);
	return r;
}

REC_EXPORT CUresult cuMemUnmap(CUdeviceptr p, size_t size)
{
	CUresult r = REAL_OF(H_UNMAP, unmap_fn)(p, size);

	if (!r)
		rec_alloc_drop(p);
	return r;
}

/* ---- texture and surface objects: their handles mean nothing in another
 * process, so a recording says when a launch is given one */
typedef CUresult texcreate_fn(uint64_t *, const void *, const void *, const void *);
typedef CUresult surfcreate_fn(uint64_t *, const void *);
typedef CUresult objdestroy_fn(uint64_t);

static CUresult object_made(CUresult r, const uint64_t *obj, enum rec_object_kind kind)
{
	if (!r && obj)
		rec_object_add(*obj, kind);
	return r;
}

static CUresult object_gone(CUresult r, uint64_t obj)
{
	if (!r)
		rec_object_drop(obj);
	return r;
}

REC_EXPORT CUresult cuTexObjectCreate(uint64_t *obj, const void *res, const void *tex, const void *view)
{
	return object_made(REAL_OF(H_TEXCREATE, texcreate_fn)(obj, res, tex, view), obj, REC_OBJ_TEXTURE);
}

REC_EXPORT CUresult cuTexObjectDestroy(uint64_t obj)
{
	return object_gone(REAL_OF(H_TEXDESTROY, objdestroy_fn)(obj), obj);
}

REC_EXPORT CUresult cuSurfObjectCreate(uint64_t *obj, const void *res)
{
	return object_made(REAL_OF(H_SURFCREATE, surfcreate_fn)(obj, res), obj, REC_OBJ_SURFACE);
}

REC_EXPORT CUresult cuSurfObjectDestroy(uint64_t obj)
{
	return object_gone(REAL_OF(H_SURFDESTROY, objdestroy_fn)(obj), obj);
}

/* ---- launches */
typedef CUresult launch_fn(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			   CUstream, void **, void **);
typedef CUresult launchex_fn(const CUlaunchConfig *, CUfunction, void **, void **);
typedef CUresult coop_fn(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			 CUstream, void **);

struct real_launch {
	int hook;
	const CUlaunchConfig *cfg;
};

static CUresult call_real(const struct rec_launch *l, void *ctx)
{
	const struct real_launch *rl = ctx;
	struct hook *h = &hooks[rl->hook];

	switch (rl->hook) {
	case H_LAUNCH:
	case H_LAUNCH_PTSZ:
		return ((launch_fn *)hook_real(h))(l->f, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
						   l->block[2], l->shared, l->stream, l->params, l->extra);
	case H_LAUNCHEX:
	case H_LAUNCHEX_PTSZ:
		return ((launchex_fn *)hook_real(h))(rl->cfg, l->f, l->params, l->extra);
	default:
		return ((coop_fn *)hook_real(h))(l->f, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
						 l->block[2], l->shared, l->stream, l->params);
	}
}

static CUresult launch_common(int hook, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
			      unsigned by, unsigned bz, unsigned shared, CUstream s, void **params, void **extra)
{
	struct rec_launch l = { f, { gx, gy, gz }, { bx, by, bz }, shared, s, params, extra, NULL, 0,
				hooks[hook].name };
	struct real_launch rl = { hook, NULL };

	if (!hook_real(&hooks[hook]))
		return CUDA_ERROR_NOT_INITIALIZED;
	return rec_launch(&l, call_real, &rl);
}

REC_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
				   unsigned bz, unsigned shared, CUstream s, void **params, void **extra)
{
	return launch_common(H_LAUNCH, f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
}

REC_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
					unsigned by, unsigned bz, unsigned shared, CUstream s, void **params,
					void **extra)
{
	return launch_common(H_LAUNCH_PTSZ, f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
}

REC_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
					      unsigned by, unsigned bz, unsigned shared, CUstream s, void **params)
{
	return launch_common(H_COOP, f, gx, gy, gz, bx, by, bz, shared, s, params, NULL);
}

REC_EXPORT CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
						   unsigned bx, unsigned by, unsigned bz, unsigned shared, CUstream s,
						   void **params)
{
	return launch_common(H_COOP_PTSZ, f, gx, gy, gz, bx, by, bz, shared, s, params, NULL);
}

static CUresult launchex_common(int hook, const CUlaunchConfig *c, CUfunction f, void **params, void **extra)
{
	struct rec_launch l = { f,
				{ c->gridDimX, c->gridDimY, c->gridDimZ },
				{ c->blockDimX, c->blockDimY, c->blockDimZ },
				c->sharedMemBytes,
				c->hStream,
				params,
				extra,
				c->attrs,
				c->numAttrs,
				hooks[hook].name };
	struct real_launch rl = { hook, c };

	if (!hook_real(&hooks[hook]))
		return CUDA_ERROR_NOT_INITIALIZED;
	return rec_launch(&l, call_real, &rl);
}

REC_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params, void **extra)
{
	return launchex_common(H_LAUNCHEX, c, f, params, extra);
}

REC_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **params, void **extra)
{
	return launchex_common(H_LAUNCHEX_PTSZ, c, f, params, extra);
}

/* ---- lookups */

/* The wrapper to hand out for what the driver found for @symbol at
 * @version, or the driver's own function when we do not wrap it. The driver
 * answers with one of its exports (cuMemAlloc -> cuMemAlloc_v2,
 * cuLaunchKernel with the per-thread flag -> cuLaunchKernel_ptsz). A lookup
 * for an older cudaVersion gets an older ABI (cuMemAlloc for 3.0: 32-bit
 * pointers and sizes), which no wrapper of ours has: it is handed out as it
 * is. Were it taken as the wrapper's real function, every caller holding
 * the wrapper (cudart) would call the old ABI from then on: a truncated
 * size, half a pointer written. If the driver answers a version we wrap
 * with another function than its export, the wrapper of that name and
 * variant calls it from then on (the same ABI). */
static void *wrap_found(const char *symbol, void *found, int version, uint64_t flags)
{
	struct hook *pick = NULL;
	bool ptsz = flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
	size_t i;

	if (!found)
		return found;
	for (i = 0; i < nhooks; i++) {
		if (strcmp(hooks[i].base, symbol) || version < hooks[i].since || version > hooks[i].until)
			continue;
		if (hook_real(&hooks[i]) == found)
			return hooks[i].wrapper;
		if (!pick || hooks[i].ptsz == ptsz)
			pick = &hooks[i];
	}
	if (!pick)
		return found;
	if (getenv("TLREPLAY_RECORD_DEBUG"))
		rec_say("cuGetProcAddress(%s) gave a function other than %s: wrapping it", symbol, pick->name);
	__atomic_store_n(&pick->real, found, __ATOMIC_RELEASE);
	return pick->wrapper;
}

REC_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, uint64_t flags)
{
	getproc_fn *real = REAL_OF(H_GETPROC, getproc_fn);
	CUresult r;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	r = real(symbol, pfn, version, flags);
	if (!r && pfn)
		*pfn = wrap_found(symbol, *pfn, version, flags);
	return r;
}

REC_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags, int *status)
{
	getproc2_fn *real = REAL_OF(H_GETPROC2, getproc2_fn);
	CUresult r;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	r = real(symbol, pfn, version, flags, status);
	if (!r && pfn)
		*pfn = wrap_found(symbol, *pfn, version, flags);
	return r;
}

/* dlsym(libcuda, "cuGetProcAddress_v2") is how cudart starts: a lookup that
 * lands on a driver function we wrap gets the wrapper instead.
 *
 * dlsym(RTLD_NEXT, ...) depends on who calls it (the next object after the
 * caller's): forwarded from a C function, glibc would take the recorder for
 * the caller, and a library preloaded after it that wraps, say, fopen would
 * get its own fopen back and recurse. So dlsym is a trampoline that jumps
 * (not calls) to glibc's for RTLD_NEXT, leaving the caller's return address
 * in place, and calls rec_dlsym for any other handle. */
void *rec_dlsym(void *handle, const char *name);
void *rec_dlsym_resolve(void);
void *rec_dlsym_next;	/* glibc's dlsym, for the trampoline */

__attribute__((visibility("hidden"))) void *rec_dlsym(void *handle, const char *name)
{
	dlsym_fn *real = rec_real_dlsym();
	void *p = real ? real(handle, name) : NULL;
	struct hook *h;

	if (p && name[0] == 'c' && name[1] == 'u' && (h = hook_named(name)) && hook_real(h) == p)
		return h->wrapper;
	return p;
}

/* glibc's dlsym, found on the first RTLD_NEXT lookup: that may come before
 * our constructor runs (ASan's runtime finds what it intercepts from its
 * preinit, before any constructor), and must still reach glibc's with the
 * caller's return address, or the sanitizer's "next" would be itself. */
__attribute__((visibility("hidden"))) void *rec_dlsym_resolve(void)
{
	void *p = (void *)rec_real_dlsym();

	__atomic_store_n(&rec_dlsym_next, p, __ATOMIC_RELEASE);
	return p;
}

__attribute__((constructor)) static void rec_init(void)
{
	rec_dlsym_resolve();
}

#if defined(__x86_64__)
/* the stack is 16-byte aligned at the call: entry (8) + two pushes + 8 */
__asm__(".text\n"
	".globl dlsym\n"
	".type dlsym, @function\n"
	"dlsym:\n"
	"	cmpq $-1, %rdi\n" /* RTLD_NEXT */
	"	jne rec_dlsym\n"
	"	movq rec_dlsym_next(%rip), %rax\n"
	"	testq %rax, %rax\n"
	"	jnz 1f\n"
	"	pushq %rdi\n"
	"	pushq %rsi\n"
	"	subq $8, %rsp\n"
	"	call rec_dlsym_resolve\n"
	"	addq $8, %rsp\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
	"	testq %rax, %rax\n"
	"	jz rec_dlsym\n"
	"1:	jmp *%rax\n"
	".size dlsym, .-dlsym\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl dlsym\n"
	".type dlsym, %function\n"
	"dlsym:\n"
	"	cmn x0, #1\n" /* RTLD_NEXT */
	"	b.ne rec_dlsym\n"
	"	adrp x16, rec_dlsym_next\n"
	"	ldr x16, [x16, :lo12:rec_dlsym_next]\n"
	"	cbnz x16, 1f\n"
	"	stp x29, x30, [sp, #-32]!\n"
	"	stp x0, x1, [sp, #16]\n"
	"	bl rec_dlsym_resolve\n"
	"	mov x16, x0\n"
	"	ldp x0, x1, [sp, #16]\n"
	"	ldp x29, x30, [sp], #32\n"
	"	cbnz x16, 1f\n"
	"	b rec_dlsym\n"
	"1:	br x16\n"
	".size dlsym, .-dlsym\n");
#else
/* elsewhere RTLD_NEXT lookups see the recorder as their caller */
REC_EXPORT void *dlsym(void *handle, const char *name)
{
	return rec_dlsym(handle, name);
}
#endif

/* HOOK: a wrapper for every version; HOOKV: for the cudaVersions [since, until] */
#define HOOKV(idx, name, base, ptsz, since, until) [idx] = { #name, base, ptsz, (void *)name, NULL, since, until }
#define HOOK(idx, name, base, ptsz)		   HOOKV(idx, name, base, ptsz, 0, INT_MAX)

static struct hook hooks[] = {
	HOOK(H_LOAD, cuModuleLoadData, "cuModuleLoadData", false),
	HOOK(H_LOADEX, cuModuleLoadDataEx, "cuModuleLoadDataEx", false),
	HOOK(H_LOADFAT, cuModuleLoadFatBinary, "cuModuleLoadFatBinary", false),
	HOOK(H_LOADFILE, cuModuleLoad, "cuModuleLoad", false),
	HOOK(H_UNLOAD, cuModuleUnload, "cuModuleUnload", false),
	HOOK(H_GETFUNC, cuModuleGetFunction, "cuModuleGetFunction", false),
	HOOK(H_LIBLOAD, cuLibraryLoadData, "cuLibraryLoadData", false),
	HOOK(H_LIBFILE, cuLibraryLoadFromFile, "cuLibraryLoadFromFile", false),
	HOOK(H_LIBUNLOAD, cuLibraryUnload, "cuLibraryUnload", false),
	HOOK(H_LIBKERNEL, cuLibraryGetKernel, "cuLibraryGetKernel", false),
	HOOK(H_LIBMODULE, cuLibraryGetModule, "cuLibraryGetModule", false),
	HOOK(H_KERNFUNC, cuKernelGetFunction, "cuKernelGetFunction", false),
	HOOKV(H_ALLOC, cuMemAlloc_v2, "cuMemAlloc", false, 3020, INT_MAX),
	HOOKV(H_ALLOCPITCH, cuMemAllocPitch_v2, "cuMemAllocPitch", false, 3020, INT_MAX),
	HOOK(H_ALLOCMANAGED, cuMemAllocManaged, "cuMemAllocManaged", false),
	HOOKV(H_FREE, cuMemFree_v2, "cuMemFree", false, 3020, INT_MAX),
	HOOK(H_ALLOCASYNC, cuMemAllocAsync, "cuMemAllocAsync", false),
	HOOK(H_ALLOCASYNC_PTSZ, cuMemAllocAsync_ptsz, "cuMemAllocAsync", true),
	HOOK(H_POOLASYNC, cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", false),
	HOOK(H_POOLASYNC_PTSZ, cuMemAllocFromPoolAsync_ptsz, "cuMemAllocFromPoolAsync", true),
	HOOK(H_FREEASYNC, cuMemFreeAsync, "cuMemFreeAsync", false),
	HOOK(H_FREEASYNC_PTSZ, cuMemFreeAsync_ptsz, "cuMemFreeAsync", true),
	HOOK(H_MAP, cuMemMap, "cuMemMap", false),
	HOOK(H_UNMAP, cuMemUnmap, "cuMemUnmap", false),
	HOOK(H_RESERVE, cuMemAddressReserve, "cuMemAddressReserve", false),
	HOOK(H_ADDRFREE, cuMemAddressFree, "cuMemAddressFree", false),
	HOOK(H_TEXCREATE, cuTexObjectCreate, "cuTexObjectCreate", false),
	HOOK(H_TEXDESTROY, cuTexObjectDestroy, "cuTexObjectDestroy", false),
	HOOK(H_SURFCREATE, cuSurfObjectCreate, "cuSurfObjectCreate", false),
	HOOK(H_SURFDESTROY, cuSurfObjectDestroy, "cuSurfObjectDestroy", false),
	HOOK(H_LAUNCH, cuLaunchKernel, "cuLaunchKernel", false),
	HOOK(H_LAUNCH_PTSZ, cuLaunchKernel_ptsz, "cuLaunchKernel", true),
	HOOK(H_LAUNCHEX, cuLaunchKernelEx, "cuLaunchKernelEx", false),
	HOOK(H_LAUNCHEX_PTSZ, cuLaunchKernelEx_ptsz, "cuLaunchKernelEx", true),
	HOOK(H_COOP, cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel", false),
	HOOK(H_COOP_PTSZ, cuLaunchCooperativeKernel_ptsz, "cuLaunchCooperativeKernel", true),
	HOOKV(H_GETPROC, cuGetProcAddress, "cuGetProcAddress", false, 0, 11999),
	HOOKV(H_GETPROC2, cuGetProcAddress_v2, "cuGetProcAddress", false, 12000, INT_MAX),
};
static size_t nhooks = sizeof(hooks) / sizeof(hooks[0]);
