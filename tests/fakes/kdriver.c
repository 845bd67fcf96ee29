/* SPDX-License-Identifier: MIT */
/* A stand-in CUDA driver (libcuda.so.1) for machines without a GPU: it runs
 * host-compiled functions as "kernels" on host memory, so that a record and
 * replay of a CUDA process can be tested end to end.
 *
 * - Module images are ELF shared objects (see kdriver_kernel.h for the
 *   kernel ABI). An image's length is computed from its ELF64 headers only,
 *   as a recorder must compute a cubin's; the bytes go into a memfd that is
 *   dlopen'ed.
 * - Device memory is host memory at fixed addresses from FAKE_KDRV_VA_BASE
 *   (hex, default 0x300000000000, away from the recorder's arena) upwards,
 *   so another process can reserve
 *   the same addresses. Allocations under 64 KiB are sub-allocated from
 *   64 KiB chunks (256-byte aligned: all but a chunk's first are not
 *   granularity-aligned); the virtual memory API (cuMemAddressReserve/Create/Map/
 *   SetAccess) maps memfds into PROT_NONE reservations.
 * - All work is synchronous: a launch runs the kernel, block after block,
 *   before it returns; streams and events only check their handles (events
 *   take CLOCK_MONOTONIC when recorded).
 * - cuGetProcAddress resolves names to this library's own functions through
 *   a table of their internal (non-interposable) addresses: the same
 *   addresses the exported symbols have, whatever an LD_PRELOAD'ed
 *   interposer exports or does to dlsym.
 *
 * Environment: FAKE_KDRV_VA_BASE (hex), FAKE_KDRV_LOG=1 (one line per launch
 * on stderr, and dlerror() when a module image fails to load),
 * FAKE_KDRV_NO_PARAMINFO=1 (cuFuncGetParamInfo and
 * cuKernelGetParamInfo answer CUDA_ERROR_NOT_SUPPORTED and cuGetProcAddress
 * does not find them, as on a driver older than 12.4).
 *
 * The types below are declared here, ABI-compatible with CUDA 12's cuda.h;
 * no CUDA header is needed. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kdriver_kernel.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* ------------------------------------------------------------------ */
/* CUDA 12 driver API types (values as in cuda.h)                       */

typedef enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_INVALID_IMAGE = 200,
	CUDA_ERROR_INVALID_CONTEXT = 201,
	CUDA_ERROR_FILE_NOT_FOUND = 301,
	CUDA_ERROR_OPERATING_SYSTEM = 304,
	CUDA_ERROR_INVALID_HANDLE = 400,
	CUDA_ERROR_NOT_FOUND = 500,
	CUDA_ERROR_NOT_READY = 600,
	CUDA_ERROR_NOT_PERMITTED = 800,
	CUDA_ERROR_NOT_SUPPORTED = 801,
	CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
	CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
	CUDA_ERROR_INVALID_CLUSTER_SIZE = 912,
	CUDA_ERROR_UNKNOWN = 999,
} CUresult;

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef uint64_t cuuint64_t;
typedef unsigned long long CUmemGenericAllocationHandle;

typedef struct kctx *CUcontext;
typedef struct kmod *CUmodule;
typedef struct klib *CUlibrary;
typedef struct kfunc *CUfunction;
typedef struct kfunc *CUkernel; /* same struct, tagged: a CUkernel works as a CUfunction */
typedef struct kstream *CUstream;
typedef struct kevent *CUevent;

typedef int CUdevice_attribute;
typedef int CUfunction_attribute;
typedef int CUjit_option;
typedef int CUlibraryOption;
typedef int CUmemAllocationGranularity_flags;
typedef int CUdriverProcAddressQueryResult;

typedef struct {
	char bytes[16];
} CUuuid;

typedef struct {
	int type; /* CUmemLocationType */
	int id;
} CUmemLocation;

typedef struct {
	int type;                 /* CUmemAllocationType */
	int requestedHandleTypes; /* CUmemAllocationHandleType */
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
	int flags; /* CUmemAccess_flags */
} CUmemAccessDesc;

typedef union {
	char pad[64];
	struct {
		unsigned int x, y, z;
	} clusterDim;
	int cooperative;
} CUlaunchAttributeValue;

typedef struct {
	int id; /* CUlaunchAttributeID */
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

_Static_assert(sizeof(CUmemAllocationProp) == 32, "CUmemAllocationProp");
_Static_assert(offsetof(CUmemAllocationProp, win32HandleMetaData) == 16, "CUmemAllocationProp");
_Static_assert(sizeof(CUmemAccessDesc) == 12, "CUmemAccessDesc");
_Static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute");
_Static_assert(offsetof(CUlaunchAttribute, value) == 8, "CUlaunchAttribute");
_Static_assert(offsetof(CUlaunchConfig, hStream) == 32, "CUlaunchConfig");
_Static_assert(offsetof(CUlaunchConfig, attrs) == 40, "CUlaunchConfig");
_Static_assert(offsetof(CUlaunchConfig, numAttrs) == 48, "CUlaunchConfig");
_Static_assert(sizeof(CUlaunchConfig) == 56, "CUlaunchConfig");

#define CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK 1
#define CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X 2
#define CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y 3
#define CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z 4
#define CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X 5
#define CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y 6
#define CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z 7
#define CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK 8
#define CU_DEVICE_ATTRIBUTE_WARP_SIZE 10
#define CU_DEVICE_ATTRIBUTE_CLOCK_RATE 13
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE 36
#define CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH 37
#define CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE 38
#define CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING 41
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN 97
#define CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED 102
#define CU_DEVICE_ATTRIBUTE_MAX 148 /* one past the last valid one (CUDA 13.0's list) */

#define CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK 0
#define CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES 1
#define CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES 2
#define CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES 3
#define CU_FUNC_ATTRIBUTE_NUM_REGS 4
#define CU_FUNC_ATTRIBUTE_PTX_VERSION 5
#define CU_FUNC_ATTRIBUTE_BINARY_VERSION 6
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
#define CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT 9
#define CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED 14

#define CU_LAUNCH_PARAM_END ((void *)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)
#define CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION 4

#define CU_LAUNCH_ATTRIBUTE_COOPERATIVE 2

#define CU_STREAM_LEGACY ((CUstream)0x1)
#define CU_STREAM_PER_THREAD ((CUstream)0x2)
#define CU_EVENT_DISABLE_TIMING 0x2

#define CU_MEM_ALLOCATION_TYPE_PINNED 0x1
#define CU_MEM_LOCATION_TYPE_DEVICE 0x1
#define CU_MEM_ACCESS_FLAGS_PROT_NONE 0x0
#define CU_MEM_ACCESS_FLAGS_PROT_READ 0x1
#define CU_MEM_ACCESS_FLAGS_PROT_READWRITE 0x3
#define CU_MEM_ALLOC_GRANULARITY_MINIMUM 0x0
#define CU_MEM_ALLOC_GRANULARITY_RECOMMENDED 0x1

#define CU_GET_PROC_ADDRESS_LEGACY_STREAM 0x1
#define CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM 0x2
#define CU_GET_PROC_ADDRESS_SUCCESS 0
#define CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND 1
#define CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT 2

/* ------------------------------------------------------------------ */
/* The stand-in's constants                                             */

#define KDRV_VERSION 12040
#define KDRV_GRAN 65536ULL             /* allocation granularity */
#define KDRV_SMALL_ALIGN 256ULL        /* sub-allocation alignment */
#define KDRV_VA_BASE	   0x300000000000ULL /* default device address base */
#define KDRV_TOTAL_MEM (80ULL << 30)
#define KDRV_MAX_THREADS 1024u
#define KDRV_SHMEM_DEFAULT 49152
#define KDRV_SHMEM_OPTIN 232448
#define KDRV_MAX_PARAMS 4096u
#define KDRV_MAX_IMAGE (1ULL << 32) /* sanity bound on an ELF image's length */

/* ------------------------------------------------------------------ */
/* Objects                                                              */

struct kctx {
	struct kctx *gnext;
	int dead, primary;
	int refs; /* primary context retains */
	unsigned flags;
};

struct kfunc;

struct kmod {
	struct kmod *gnext;
	void *dl;
	int fd; /* the memfd holding the image (kept for debuggers) */
	int dead;
	struct klib *lib; /* the library it belongs to, or NULL */
	struct kfunc *funcs;
};

struct klib {
	struct klib *gnext;
	struct kmod *mod;
	struct kfunc *kerns;
	int dead;
};

enum { KF_FUNC = 1, KF_KERNEL = 2 };

struct kfunc {
	struct kfunc *gnext; /* every function and kernel ever made */
	struct kfunc *next;  /* in its module's / library's list */
	int kind, dead;
	struct kmod *mod;
	struct kfunc *target; /* a kernel's function */
	char *name;
	tlk_kernel_fn *fn;
	unsigned nparams;
	size_t *poff, *psize;
	size_t pend; /* end of the last parameter */
	unsigned max_threads;
	int max_dyn_shmem;
	int carveout;
	int non_portable; /* clusters over 8 blocks allowed */
};

struct kstream {
	struct kstream *gnext;
	int dead;
	int capturing; /* CUstreamCaptureStatus: 0 none, 1 active, 2 invalidated */
	unsigned flags;
	int prio;
};

struct kevent {
	struct kevent *gnext;
	int dead;
	unsigned flags;
	int recorded;
	struct timespec ts;
};

/* A chunk of small allocations: 64 KiB, handed out 256-byte aligned from its
 * start (so only the first allocation in a chunk is granularity-aligned, as
 * with a fresh pool of the real driver). */
struct kchunk {
	struct kchunk *next;
	CUdeviceptr base;
	size_t size;
	size_t off;    /* bump offset */
	unsigned live; /* allocations in it */
};

struct kalloc {
	struct kalloc *next;
	CUdeviceptr base;
	size_t size;     /* as asked for */
	size_t map_size; /* own mapping's size (0 in a chunk) */
	struct kchunk *chunk;
};

struct kresv { /* cuMemAddressReserve */
	struct kresv *next;
	CUdeviceptr base;
	size_t size;
};

struct khandle { /* cuMemCreate */
	struct khandle *next;
	unsigned long long id;
	int fd;
	size_t size;
	int released;
	unsigned maps;
};

struct kmap { /* cuMemMap */
	struct kmap *next;
	CUdeviceptr base;
	size_t size;
	struct khandle *h;
	int prot;
};

/* ------------------------------------------------------------------ */
/* State (one recursive mutex around all of it)                         */

static pthread_mutex_t g_mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static _Atomic int g_inited;

static struct kctx g_primary = { .primary = 1 };
static struct kctx *g_ctxs = &g_primary;
static struct kmod *g_mods;
static struct klib *g_libs;
static struct kfunc *g_funcs;
static struct kstream *g_streams;
static struct kevent *g_events;

static int g_va_ready;
static uintptr_t g_va_base, g_va_next, g_va_high;
static struct kchunk *g_chunks;
static struct kalloc *g_allocs;
static struct kresv *g_resvs;
static struct khandle *g_handles;
static struct kmap *g_maps;
static unsigned long long g_handle_seq;
static size_t g_live_bytes;
static unsigned long long g_cluster_attrs;

static _Thread_local struct kctx *tls_stack[32];
static _Thread_local int tls_depth;

static void unlock_cb(int *unused)
{
	(void)unused;
	pthread_mutex_unlock(&g_mu);
}

#define LOCK_SCOPE()                                                           \
	int kdrv_lock_ __attribute__((cleanup(unlock_cb), unused)) =           \
		(pthread_mutex_lock(&g_mu), 0)

static struct kctx *cur_ctx(void)
{
	struct kctx *c = tls_depth ? tls_stack[tls_depth - 1] : NULL;
	return c && !c->dead ? c : NULL;
}

#define NEED_INIT()                                                            \
	do {                                                                   \
		if (!g_inited)                                                 \
			return CUDA_ERROR_NOT_INITIALIZED;                     \
	} while (0)

#define NEED_CTX()                                                             \
	do {                                                                   \
		NEED_INIT();                                                   \
		if (!cur_ctx())                                                \
			return CUDA_ERROR_INVALID_CONTEXT;                     \
	} while (0)

static int env_on(const char *name)
{
	const char *s = getenv(name);
	return s && *s && strcmp(s, "0") != 0;
}

static struct kctx *find_ctx(CUcontext c)
{
	for (struct kctx *p = g_ctxs; p; p = p->gnext)
		if (p == c)
			return p->dead ? NULL : p;
	return NULL;
}

static struct kmod *find_mod(CUmodule m)
{
	for (struct kmod *p = g_mods; p; p = p->gnext)
		if (p == m)
			return p->dead ? NULL : p;
	return NULL;
}

static struct klib *find_lib(CUlibrary l)
{
	for (struct klib *p = g_libs; p; p = p->gnext)
		if (p == l)
			return p->dead ? NULL : p;
	return NULL;
}

/* The object behind a CUfunction or CUkernel handle (of kind `want`, or
 * either when 0), NULL if it is not a live one. */
static struct kfunc *find_kfunc(const struct kfunc *h, int want)
{
	for (struct kfunc *p = g_funcs; p; p = p->gnext)
		if (p == h)
			return p->dead || (want && p->kind != want) ? NULL : p;
	return NULL;
}

/* A CUfunction or a CUkernel used as one: the function it runs. */
static struct kfunc *resolve_fn(CUfunction h)
{
	struct kfunc *f = find_kfunc(h, 0);
	if (f && f->kind == KF_KERNEL)
		f = f->target && !f->target->dead ? f->target : NULL;
	return f;
}

static struct kstream *find_stream(CUstream s)
{
	for (struct kstream *p = g_streams; p; p = p->gnext)
		if (p == s)
			return p->dead ? NULL : p;
	return NULL;
}

static int stream_ok(CUstream s)
{
	return s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD || find_stream(s);
}

static struct kevent *find_event(CUevent e)
{
	for (struct kevent *p = g_events; p; p = p->gnext)
		if (p == e)
			return p->dead ? NULL : p;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Address space                                                        */

static uintptr_t round_up(uintptr_t v, uintptr_t a)
{
	return (v + a - 1) / a * a;
}

static void va_init(void)
{
	if (g_va_ready)
		return;
	g_va_base = KDRV_VA_BASE;
	const char *s = getenv("FAKE_KDRV_VA_BASE");
	if (s && *s) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(s, &end, 16);
		if (!errno && *end == '\0' && v)
			g_va_base = round_up((uintptr_t)v, KDRV_GRAN);
	}
	g_va_next = g_va_high = g_va_base;
	g_va_ready = 1;
}

/* mmap exactly at addr without replacing anything; 0 if it is taken. */
static int map_exact(uintptr_t addr, size_t size, int prot, int extra)
{
	void *p = mmap((void *)addr, size, prot,
		       MAP_FIXED_NOREPLACE | MAP_PRIVATE | MAP_ANONYMOUS | extra, -1, 0);
	if (p == (void *)addr)
		return 1;
	if (p != MAP_FAILED) /* a kernel that took the flag as a hint */
		munmap(p, size);
	return 0;
}

/* Takes the next free range of `size` bytes from the bump pointer,
 * skipping ranges that are taken. 0 when none is found. */
static uintptr_t va_take(size_t size, size_t align, int prot, int extra)
{
	va_init();
	uintptr_t a = round_up(g_va_next, align);
	for (int tries = 0; tries < 65536; tries++) {
		if (a + size < a)
			return 0;
		if (map_exact(a, size, prot, extra)) {
			g_va_next = a + size;
			if (g_va_next > g_va_high)
				g_va_high = g_va_next;
			return a;
		}
		if (errno != EEXIST && errno != 0)
			return 0;
		a = round_up(a + (size > KDRV_GRAN ? size : KDRV_GRAN), align);
	}
	return 0;
}

static struct kalloc *alloc_containing(CUdeviceptr p)
{
	for (struct kalloc *a = g_allocs; a; a = a->next)
		if (p >= a->base && p - a->base < a->size)
			return a;
	return NULL;
}

static struct kmap *map_containing(CUdeviceptr p)
{
	for (struct kmap *m = g_maps; m; m = m->next)
		if (p >= m->base && p - m->base < m->size)
			return m;
	return NULL;
}

static struct kresv *resv_containing(CUdeviceptr p, size_t n)
{
	for (struct kresv *r = g_resvs; r; r = r->next)
		if (p >= r->base && p - r->base < r->size && n <= r->size - (p - r->base))
			return r;
	return NULL;
}

/* Is [p, p+n) inside one live allocation, or covered by mapped ranges
 * whose access allows it? */
static int dev_range_ok(CUdeviceptr p, size_t n, int write)
{
	if (n == 0)
		return 1;
	if (p + n < p)
		return 0;
	struct kalloc *a = alloc_containing(p);
	if (a)
		return n <= a->size - (p - a->base);
	int need = write ? PROT_READ | PROT_WRITE : PROT_READ;
	CUdeviceptr cur = p, end = p + n;
	while (cur < end) {
		struct kmap *m = map_containing(cur);
		if (!m || (m->prot & need) != need)
			return 0;
		cur = m->base + m->size;
	}
	return 1;
}

/* Does p lie in device address space (where unified copies must find a
 * live allocation)? */
static int in_dev_space(CUdeviceptr p)
{
	if (g_va_ready && p >= g_va_base && p < g_va_high)
		return 1;
	return resv_containing(p, 1) != NULL || alloc_containing(p) != NULL;
}

/* The maps that exactly tile [p, p+n), in address order, or 0 when they do
 * not (a hole, or a map sticking out at either end). */
static int maps_tile(CUdeviceptr p, size_t n)
{
	if (n == 0 || p + n < p)
		return 0;
	CUdeviceptr cur = p, end = p + n;
	while (cur < end) {
		struct kmap *m = map_containing(cur);
		if (!m || m->base != cur || m->size > end - cur)
			return 0;
		cur += m->size;
	}
	return 1;
}

static void handle_drop(struct khandle *h)
{
	if (!h->released || h->maps)
		return;
	close(h->fd);
	for (struct khandle **pp = &g_handles; *pp; pp = &(*pp)->next)
		if (*pp == h) {
			*pp = h->next;
			break;
		}
	g_live_bytes -= h->size;
	free(h);
}

/* ------------------------------------------------------------------ */
/* Errors                                                               */

static const struct {
	int code;
	const char *name, *text;
} k_errors[] = {
	{ 0, "CUDA_SUCCESS", "no error" },
	{ 1, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
	{ 2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
	{ 3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
	{ 4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down" },
	{ 100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
	{ 101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
	{ 200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid" },
	{ 201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
	{ 209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device" },
	{ 301, "CUDA_ERROR_FILE_NOT_FOUND", "file not found" },
	{ 304, "CUDA_ERROR_OPERATING_SYSTEM", "OS call failed or operation not supported on this OS" },
	{ 400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
	{ 500, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
	{ 600, "CUDA_ERROR_NOT_READY", "device not ready" },
	{ 700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered" },
	{ 701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch" },
	{ 719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure" },
	{ 800, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted" },
	{ 801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported" },
	{ 900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "operation not permitted when stream is capturing" },
	{ 901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "operation failed due to a previous error during capture" },
	{ 912, "CUDA_ERROR_INVALID_CLUSTER_SIZE", "invalid cluster size" },
	{ 999, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

static CUresult k_cuGetErrorString(CUresult error, const char **pStr)
{
	if (!pStr)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < sizeof k_errors / sizeof k_errors[0]; i++)
		if (k_errors[i].code == (int)error) {
			*pStr = k_errors[i].text;
			return CUDA_SUCCESS;
		}
	*pStr = NULL;
	return CUDA_ERROR_INVALID_VALUE;
}

static CUresult k_cuGetErrorName(CUresult error, const char **pStr)
{
	if (!pStr)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < sizeof k_errors / sizeof k_errors[0]; i++)
		if (k_errors[i].code == (int)error) {
			*pStr = k_errors[i].name;
			return CUDA_SUCCESS;
		}
	*pStr = NULL;
	return CUDA_ERROR_INVALID_VALUE;
}

/* ------------------------------------------------------------------ */
/* Initialization, device                                               */

static CUresult k_cuInit(unsigned int flags)
{
	if (flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	va_init();
	g_inited = 1;
	return CUDA_SUCCESS;
}

static CUresult k_cuDriverGetVersion(int *driverVersion)
{
	if (!driverVersion)
		return CUDA_ERROR_INVALID_VALUE;
	/* FAKE_KDRV_VERSION: another version to report (a CUDA 13 cudart wants 13000) */
	const char *v = getenv("FAKE_KDRV_VERSION");
	*driverVersion = v && atoi(v) > 0 ? atoi(v) : KDRV_VERSION;
	return CUDA_SUCCESS;
}

static CUresult k_cuDeviceGetCount(int *count)
{
	NEED_INIT();
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	*count = 1;
	return CUDA_SUCCESS;
}

static CUresult k_cuDeviceGet(CUdevice *device, int ordinal)
{
	NEED_INIT();
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	if (ordinal != 0)
		return CUDA_ERROR_INVALID_DEVICE;
	*device = 0;
	return CUDA_SUCCESS;
}

#define NEED_DEV(dev)                                                          \
	do {                                                                   \
		NEED_INIT();                                                   \
		if ((dev) != 0)                                                \
			return CUDA_ERROR_INVALID_DEVICE;                      \
	} while (0)

static CUresult k_cuDeviceGetName(char *name, int len, CUdevice dev)
{
	NEED_DEV(dev);
	if (!name || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(name, (size_t)len, "%s", "tlreplay stand-in GPU");
	return CUDA_SUCCESS;
}

static CUresult uuid_of(CUuuid *uuid, CUdevice dev)
{
	static const char u[16] = { 't', 'l', 'r', 'e', 'p', 'l', 'a', 'y',
				    '-', 'k', 'd', 'r', 'v', '-', '0', '0' };
	NEED_DEV(dev);
	if (!uuid)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(uuid->bytes, u, sizeof u);
	return CUDA_SUCCESS;
}

static CUresult k_cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
	return uuid_of(uuid, dev);
}

static CUresult k_cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
	return uuid_of(uuid, dev);
}

static CUresult k_cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	NEED_DEV(dev);
	if (!bytes)
		return CUDA_ERROR_INVALID_VALUE;
	*bytes = KDRV_TOTAL_MEM;
	return CUDA_SUCCESS;
}

static CUresult k_cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	NEED_DEV(dev);
	if (!pi || attrib < 1 || attrib >= CU_DEVICE_ATTRIBUTE_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	int v = 0;
	switch (attrib) {
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: v = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: v = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: v = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: v = 64; break;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: v = 2147483647; break;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: v = 65535; break;
	case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: v = 65535; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: v = KDRV_SHMEM_DEFAULT; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: v = KDRV_SHMEM_OPTIN; break;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: v = 4; break;
	case CU_DEVICE_ATTRIBUTE_WARP_SIZE: v = 32; break;
	case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: v = 1048576; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: v = 9; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: v = 0; break;
	case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: v = 1980000; break;        /* kHz */
	case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: v = 2619000; break; /* kHz */
	case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: v = 5120; break;
	case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: v = 1; break;
	case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: v = 1; break;
	default: v = 0; break;
	}
	*pi = v;
	return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Contexts                                                             */

static CUresult k_cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	NEED_DEV(dev);
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	g_primary.refs++;
	*pctx = &g_primary;
	return CUDA_SUCCESS;
}

static CUresult k_cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	NEED_DEV(dev);
	LOCK_SCOPE();
	if (g_primary.refs <= 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	g_primary.refs--;
	return CUDA_SUCCESS;
}

static CUresult k_cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
	NEED_DEV(dev);
	if (!flags || !active)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	*flags = g_primary.flags;
	*active = g_primary.refs > 0;
	return CUDA_SUCCESS;
}

static CUresult k_cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	NEED_DEV(dev);
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	if (tls_depth >= (int)(sizeof tls_stack / sizeof tls_stack[0]))
		return CUDA_ERROR_OUT_OF_MEMORY;
	struct kctx *c = calloc(1, sizeof *c);
	if (!c)
		return CUDA_ERROR_OUT_OF_MEMORY;
	c->flags = flags;
	c->gnext = g_ctxs->gnext; /* after the primary */
	g_ctxs->gnext = c;
	tls_stack[tls_depth++] = c;
	*pctx = c;
	return CUDA_SUCCESS;
}

static CUresult k_cuCtxDestroy_v2(CUcontext ctx)
{
	NEED_INIT();
	LOCK_SCOPE();
	struct kctx *c = find_ctx(ctx);
	if (!c || c->primary)
		return CUDA_ERROR_INVALID_CONTEXT;
	c->dead = 1;
	if (tls_depth && tls_stack[tls_depth - 1] == c)
		tls_depth--;
	return CUDA_SUCCESS;
}

static CUresult k_cuCtxSetCurrent(CUcontext ctx)
{
	NEED_INIT();
	LOCK_SCOPE();
	if (!ctx) {
		if (tls_depth)
			tls_depth--;
		return CUDA_SUCCESS;
	}
	if (!find_ctx(ctx))
		return CUDA_ERROR_INVALID_CONTEXT;
	if (tls_depth)
		tls_stack[tls_depth - 1] = ctx;
	else
		tls_stack[tls_depth++] = ctx;
	return CUDA_SUCCESS;
}

static CUresult k_cuCtxGetCurrent(CUcontext *pctx)
{
	NEED_INIT();
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	*pctx = tls_depth ? tls_stack[tls_depth - 1] : NULL;
	return CUDA_SUCCESS;
}

static CUresult k_cuCtxPushCurrent_v2(CUcontext ctx)
{
	NEED_INIT();
	LOCK_SCOPE();
	if (!find_ctx(ctx))
		return CUDA_ERROR_INVALID_CONTEXT;
	if (tls_depth >= (int)(sizeof tls_stack / sizeof tls_stack[0]))
		return CUDA_ERROR_OUT_OF_MEMORY;
	tls_stack[tls_depth++] = ctx;
	return CUDA_SUCCESS;
}

static CUresult k_cuCtxPopCurrent_v2(CUcontext *pctx)
{
	NEED_INIT();
	if (!tls_depth)
		return CUDA_ERROR_INVALID_CONTEXT;
	struct kctx *c = tls_stack[--tls_depth];
	if (pctx)
		*pctx = c;
	return CUDA_SUCCESS;
}

static CUresult k_cuCtxGetDevice(CUdevice *device)
{
	NEED_CTX();
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	*device = 0;
	return CUDA_SUCCESS;
}

/* As the real driver: a context-wide synchronize while a stream captures
 * (in the default, global mode) is refused and invalidates the capture. */
static CUresult k_cuCtxSynchronize(void)
{
	NEED_CTX();
	LOCK_SCOPE();
	int refused = 0;
	for (struct kstream *p = g_streams; p; p = p->gnext)
		if (!p->dead && p->capturing == 1) {
			p->capturing = 2;
			refused = 1;
		}
	return refused ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Modules and libraries                                                */

static int add_end(uint64_t *end, uint64_t off, uint64_t len)
{
	if (off > KDRV_MAX_IMAGE || len > KDRV_MAX_IMAGE - off)
		return 0;
	if (off + len > *end)
		*end = off + len;
	return 1;
}

/* The length of an ELF64 image in memory, from its headers only: the
 * furthest byte of the ELF header, the program and section header tables,
 * every segment's file bytes and every section's (but SHT_NOBITS) bytes.
 * 0 when it is not a (sane) ELF64 image. */
static size_t elf_image_len(const unsigned char *img)
{
	Elf64_Ehdr eh;

	if (memcmp(img, ELFMAG, SELFMAG) != 0)
		return 0;
	memcpy(&eh, img, sizeof eh);
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return 0;
	uint64_t end = eh.e_ehsize > sizeof eh ? eh.e_ehsize : sizeof eh;
	uint64_t phnum = eh.e_phnum, shnum = eh.e_shnum;

	if (eh.e_shoff) {
		Elf64_Shdr sh0;
		if (eh.e_shentsize < sizeof sh0 || eh.e_shoff > KDRV_MAX_IMAGE)
			return 0;
		memcpy(&sh0, img + eh.e_shoff, sizeof sh0);
		if (shnum == 0) /* extended numbering: the count is in section 0 */
			shnum = sh0.sh_size;
		if (phnum == PN_XNUM)
			phnum = sh0.sh_info;
		if (shnum > 0xffffff || !add_end(&end, eh.e_shoff, shnum * eh.e_shentsize))
			return 0;
		for (uint64_t i = 0; i < shnum; i++) {
			Elf64_Shdr sh;
			memcpy(&sh, img + eh.e_shoff + i * eh.e_shentsize, sizeof sh);
			if (sh.sh_type != SHT_NOBITS && !add_end(&end, sh.sh_offset, sh.sh_size))
				return 0;
		}
	} else {
		shnum = 0;
	}
	if (phnum && eh.e_phoff) {
		if (eh.e_phentsize < sizeof(Elf64_Phdr) || phnum > 0xffffff ||
		    !add_end(&end, eh.e_phoff, phnum * eh.e_phentsize))
			return 0;
		for (uint64_t i = 0; i < phnum; i++) {
			Elf64_Phdr ph;
			memcpy(&ph, img + eh.e_phoff + i * eh.e_phentsize, sizeof ph);
			if (!add_end(&end, ph.p_offset, ph.p_filesz))
				return 0;
		}
	}
	return (size_t)end;
}

static void kdrv_log_dlerror(const char *what)
{
	if (env_on("FAKE_KDRV_LOG")) {
		const char *e = dlerror();
		fprintf(stderr, "kdrv: %s: %s\n", what, e ? e : "?");
	}
}

/* Loads `len` bytes of an ELF image through a memfd. */
static CUresult load_image(const void *image, size_t len, struct kmod **out)
{
	int fd = memfd_create("kdrv-module", MFD_CLOEXEC);
	if (fd < 0)
		return CUDA_ERROR_OPERATING_SYSTEM;
	const unsigned char *p = image;
	size_t left = len;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return CUDA_ERROR_OPERATING_SYSTEM;
		}
		p += w;
		left -= (size_t)w;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		kdrv_log_dlerror("dlopen of a module image failed");
		close(fd);
		return CUDA_ERROR_INVALID_IMAGE;
	}
	struct kmod *m = calloc(1, sizeof *m);
	if (!m) {
		dlclose(dl);
		close(fd);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	m->dl = dl;
	m->fd = fd;
	m->gnext = g_mods;
	g_mods = m;
	*out = m;
	return CUDA_SUCCESS;
}

static CUresult load_data(const void *image, struct kmod **out)
{
	if (!image)
		return CUDA_ERROR_INVALID_VALUE;
	size_t len = elf_image_len(image);
	if (!len)
		return CUDA_ERROR_INVALID_IMAGE;
	return load_image(image, len, out);
}

static CUresult load_file(const char *path, struct kmod **out)
{
	if (!path)
		return CUDA_ERROR_INVALID_VALUE;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return CUDA_ERROR_FILE_NOT_FOUND;
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size <= 0) {
		close(fd);
		return CUDA_ERROR_INVALID_IMAGE;
	}
	size_t n = (size_t)st.st_size;
	unsigned char *buf = malloc(n);
	if (!buf) {
		close(fd);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	CUresult rc;
	size_t len = got >= sizeof(Elf64_Ehdr) && got == n ? elf_image_len(buf) : 0;
	if (!len || len > n)
		rc = CUDA_ERROR_INVALID_IMAGE;
	else
		rc = load_image(buf, len, out);
	free(buf);
	return rc;
}

static void unload_mod(struct kmod *m)
{
	for (struct kfunc *f = m->funcs; f; f = f->next)
		f->dead = 1;
	dlclose(m->dl);
	close(m->fd);
	m->dl = NULL;
	m->fd = -1;
	m->dead = 1;
}

static CUresult k_cuModuleLoadData(CUmodule *module, const void *image)
{
	NEED_CTX();
	if (!module)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	return load_data(image, module);
}

static CUresult k_cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
				     CUjit_option *options, void **optionValues)
{
	(void)options;
	(void)optionValues;
	(void)numOptions;
	return k_cuModuleLoadData(module, image);
}

static CUresult k_cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
	return k_cuModuleLoadData(module, fatCubin);
}

static CUresult k_cuModuleLoad(CUmodule *module, const char *fname)
{
	NEED_CTX();
	if (!module)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	return load_file(fname, module);
}

static CUresult k_cuModuleUnload(CUmodule hmod)
{
	NEED_INIT();
	LOCK_SCOPE();
	struct kmod *m = find_mod(hmod);
	if (!m)
		return CUDA_ERROR_INVALID_HANDLE;
	if (m->lib)
		return CUDA_ERROR_NOT_PERMITTED;
	unload_mod(m);
	return CUDA_SUCCESS;
}

/* "offset:size,offset:size,..." → the function's parameter arrays. */
static int parse_params(struct kfunc *f, const char *s)
{
	unsigned n = 0;
	if (*s) {
		n = 1;
		for (const char *c = s; *c; c++)
			n += *c == ',';
	}
	if (n > KDRV_MAX_PARAMS)
		return 0;
	f->nparams = n;
	f->poff = calloc(n ? n : 1, sizeof *f->poff);
	f->psize = calloc(n ? n : 1, sizeof *f->psize);
	if (!f->poff || !f->psize)
		return 0;
	const char *c = s;
	for (unsigned i = 0; i < n; i++) {
		char *e;
		if (*c < '0' || *c > '9')
			return 0;
		unsigned long off = strtoul(c, &e, 10);
		if (*e != ':' || e[1] < '0' || e[1] > '9')
			return 0;
		unsigned long size = strtoul(e + 1, &e, 10);
		if (size == 0 || off > (1ul << 20) || size > (1ul << 20))
			return 0;
		if (*e != (i + 1 < n ? ',' : '\0'))
			return 0;
		f->poff[i] = off;
		f->psize[i] = size;
		if (off + size > f->pend)
			f->pend = off + size;
		c = e + 1;
	}
	return 1;
}

/* The function NAME of module m (made once, then the same handle). */
static CUresult get_function(struct kmod *m, const char *name, struct kfunc **out)
{
	for (struct kfunc *f = m->funcs; f; f = f->next)
		if (strcmp(f->name, name) == 0) {
			*out = f;
			return CUDA_SUCCESS;
		}
	size_t nl = strlen(name);
	char *sym = malloc(nl + sizeof TLK_MAX_THREADS_SUFFIX + sizeof TLK_PARAMS_SUFFIX);
	if (!sym)
		return CUDA_ERROR_OUT_OF_MEMORY;
	void *fn = dlsym(m->dl, name);
	memcpy(sym, name, nl);
	strcpy(sym + nl, TLK_PARAMS_SUFFIX);
	const char *params = dlsym(m->dl, sym);
	strcpy(sym + nl, TLK_MAX_THREADS_SUFFIX);
	const unsigned *maxt = dlsym(m->dl, sym);
	free(sym);
	if (!fn || !params)
		return CUDA_ERROR_NOT_FOUND;

	struct kfunc *f = calloc(1, sizeof *f);
	if (!f)
		return CUDA_ERROR_OUT_OF_MEMORY;
	f->kind = KF_FUNC;
	f->mod = m;
	f->name = strdup(name);
	f->fn = (tlk_kernel_fn *)fn;
	f->max_threads = maxt && *maxt && *maxt < KDRV_MAX_THREADS ? *maxt : KDRV_MAX_THREADS;
	f->max_dyn_shmem = KDRV_SHMEM_DEFAULT;
	f->carveout = -1;
	/* linked in first: a half-made one stays reachable, and dead */
	f->gnext = g_funcs;
	g_funcs = f;
	if (!f->name || !parse_params(f, params)) {
		f->dead = 1;
		return f->name ? CUDA_ERROR_INVALID_IMAGE : CUDA_ERROR_OUT_OF_MEMORY;
	}
	f->next = m->funcs;
	m->funcs = f;
	*out = f;
	return CUDA_SUCCESS;
}

static CUresult k_cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
	NEED_INIT();
	if (!hfunc || !name)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	struct kmod *m = find_mod(hmod);
	if (!m)
		return CUDA_ERROR_INVALID_HANDLE;
	return get_function(m, name, hfunc);
}

static CUresult lib_wrap(struct kmod *m, CUlibrary *library)
{
	struct klib *l = calloc(1, sizeof *l);
	if (!l) {
		unload_mod(m);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	l->mod = m;
	m->lib = l;
	l->gnext = g_libs;
	g_libs = l;
	*library = l;
	return CUDA_SUCCESS;
}

static CUresult k_cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
				    void **jitOptionsValues, unsigned int numJitOptions,
				    CUlibraryOption *libraryOptions, void **libraryOptionValues,
				    unsigned int numLibraryOptions)
{
	(void)jitOptions, (void)jitOptionsValues, (void)numJitOptions;
	(void)libraryOptions, (void)libraryOptionValues, (void)numLibraryOptions;
	NEED_INIT();
	if (!library)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	struct kmod *m;
	CUresult rc = load_data(code, &m);
	return rc ? rc : lib_wrap(m, library);
}

static CUresult k_cuLibraryLoadFromFile(CUlibrary *library, const char *fileName,
					CUjit_option *jitOptions, void **jitOptionsValues,
					unsigned int numJitOptions, CUlibraryOption *libraryOptions,
					void **libraryOptionValues, unsigned int numLibraryOptions)
{
	(void)jitOptions, (void)jitOptionsValues, (void)numJitOptions;
	(void)libraryOptions, (void)libraryOptionValues, (void)numLibraryOptions;
	NEED_INIT();
	if (!library)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	struct kmod *m;
	CUresult rc = load_file(fileName, &m);
	return rc ? rc : lib_wrap(m, library);
}

static CUresult k_cuLibraryUnload(CUlibrary library)
{
	NEED_INIT();
	LOCK_SCOPE();
	struct klib *l = find_lib(library);
	if (!l)
		return CUDA_ERROR_INVALID_HANDLE;
	for (struct kfunc *k = l->kerns; k; k = k->next)
		k->dead = 1;
	unload_mod(l->mod);
	l->dead = 1;
	return CUDA_SUCCESS;
}

static CUresult k_cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
	NEED_INIT();
	if (!pKernel || !name)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	struct klib *l = find_lib(library);
	if (!l)
		return CUDA_ERROR_INVALID_HANDLE;
	for (struct kfunc *k = l->kerns; k; k = k->next)
		if (strcmp(k->name, name) == 0) {
			*pKernel = k;
			return CUDA_SUCCESS;
		}
	struct kfunc *f;
	CUresult rc = get_function(l->mod, name, &f);
	if (rc)
		return rc;
	struct kfunc *k = calloc(1, sizeof *k);
	if (!k)
		return CUDA_ERROR_OUT_OF_MEMORY;
	k->kind = KF_KERNEL;
	k->mod = l->mod;
	k->target = f;
	k->name = f->name;
	k->gnext = g_funcs;
	g_funcs = k;
	k->next = l->kerns;
	l->kerns = k;
	*pKernel = k;
	return CUDA_SUCCESS;
}

static CUresult k_cuLibraryGetModule(CUmodule *pMod, CUlibrary library)
{
	NEED_INIT();
	if (!pMod)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	struct klib *l = find_lib(library);
	if (!l)
		return CUDA_ERROR_INVALID_HANDLE;
	*pMod = l->mod;
	return CUDA_SUCCESS;
}

static CUresult k_cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
	NEED_CTX();
	if (!pFunc)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	struct kfunc *k = find_kfunc(kernel, KF_KERNEL);
	if (!k || !k->target || k->target->dead)
		return CUDA_ERROR_INVALID_HANDLE;
	*pFunc = k->target;
	return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Function attributes and parameters                                   */

static CUresult func_get_attr(int *pi, CUfunction_attribute attrib, struct kfunc *f)
{
	if (!pi)
		return CUDA_ERROR_INVALID_VALUE;
	switch (attrib) {
	case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = (int)f->max_threads; break;
	case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
	case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
	case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = 0; break;
	case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = 32; break;
	case CU_FUNC_ATTRIBUTE_PTX_VERSION:
	case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = 90; break;
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = f->max_dyn_shmem; break;
	case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
		*pi = f->non_portable;
		break;
	default: return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

static CUresult func_set_attr(struct kfunc *f, CUfunction_attribute attrib, int value)
{
	switch (attrib) {
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
		if (value < 0 || value > KDRV_SHMEM_OPTIN)
			return CUDA_ERROR_INVALID_VALUE;
		f->max_dyn_shmem = value;
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
		if (value < -1 || value > 100)
			return CUDA_ERROR_INVALID_VALUE;
		f->carveout = value;
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
		if (value != 0 && value != 1)
			return CUDA_ERROR_INVALID_VALUE;
		f->non_portable = value;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

static CUresult k_cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
	NEED_INIT();
	LOCK_SCOPE();
	struct kfunc *f = resolve_fn(hfunc);
	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	return func_get_attr(pi, attrib, f);
}

static CUresult k_cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
	NEED_INIT();
	LOCK_SCOPE();
	struct kfunc *f = resolve_fn(hfunc);
	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	return func_set_attr(f, attrib, value);
}

static CUresult k_cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel,
				       CUdevice dev)
{
	NEED_DEV(dev);
	LOCK_SCOPE();
	struct kfunc *f = resolve_fn(kernel);
	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	return func_get_attr(pi, attrib, f);
}

static CUresult k_cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel,
				       CUdevice dev)
{
	NEED_DEV(dev);
	LOCK_SCOPE();
	struct kfunc *f = resolve_fn(kernel);
	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	return func_set_attr(f, attrib, val);
}

static CUresult get_name(const char **name, struct kfunc *h)
{
	NEED_INIT();
	if (!name)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	struct kfunc *f = resolve_fn(h);
	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	*name = f->name;
	return CUDA_SUCCESS;
}

static CUresult k_cuFuncGetName(const char **name, CUfunction hfunc)
{
	return get_name(name, hfunc);
}

static CUresult k_cuKernelGetName(const char **name, CUkernel hfunc)
{
	return get_name(name, hfunc);
}

static CUresult k_cuFuncGetModule(CUmodule *hmod, CUfunction hfunc)
{
	NEED_INIT();
	if (!hmod)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	struct kfunc *f = resolve_fn(hfunc);
	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	*hmod = f->mod;
	return CUDA_SUCCESS;
}

static CUresult param_info(struct kfunc *h, size_t paramIndex, size_t *paramOffset,
			   size_t *paramSize)
{
	NEED_INIT();
	if (env_on("FAKE_KDRV_NO_PARAMINFO"))
		return CUDA_ERROR_NOT_SUPPORTED;
	LOCK_SCOPE();
	struct kfunc *f = resolve_fn(h);
	if (!f)
		return CUDA_ERROR_INVALID_HANDLE;
	if (paramIndex >= f->nparams || (!paramOffset && !paramSize))
		return CUDA_ERROR_INVALID_VALUE;
	if (paramOffset)
		*paramOffset = f->poff[paramIndex];
	if (paramSize)
		*paramSize = f->psize[paramIndex];
	return CUDA_SUCCESS;
}

static CUresult k_cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
				     size_t *paramSize)
{
	return param_info(func, paramIndex, paramOffset, paramSize);
}

static CUresult k_cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset,
				       size_t *paramSize)
{
	return param_info(kernel, paramIndex, paramOffset, paramSize);
}

/* ------------------------------------------------------------------ */
/* Launch                                                               */

struct launch {
	unsigned g[3], b[3], shmem;
	CUstream stream;
	int cluster; /* a cluster dimension attribute was given */
	unsigned cl[3];
	int coop; /* cuLaunchCooperativeKernel, or the cooperative attribute */
};

static CUresult launch(CUfunction h, const struct launch *c, void **kernelParams, void **extra)
{
	tlk_kernel_fn *fn;
	const char *name;
	unsigned char *args;

	{
		LOCK_SCOPE();
		NEED_CTX();
		struct kfunc *f = resolve_fn(h);
		if (!f)
			return CUDA_ERROR_INVALID_HANDLE;
		if (!stream_ok(c->stream))
			return CUDA_ERROR_INVALID_HANDLE;
		if (!c->g[0] || !c->g[1] || !c->g[2] || !c->b[0] || !c->b[1] || !c->b[2])
			return CUDA_ERROR_INVALID_VALUE;
		if (c->g[0] > 2147483647u || c->g[1] > 65535 || c->g[2] > 65535 ||
		    c->b[0] > 1024 || c->b[1] > 1024 || c->b[2] > 64)
			return CUDA_ERROR_INVALID_VALUE;
		unsigned long long threads = (unsigned long long)c->b[0] * c->b[1] * c->b[2];
		if (threads > KDRV_MAX_THREADS || threads > f->max_threads)
			return CUDA_ERROR_INVALID_VALUE;
		if (c->shmem > (unsigned)f->max_dyn_shmem)
			return CUDA_ERROR_INVALID_VALUE;
		if (kernelParams && extra)
			return CUDA_ERROR_INVALID_VALUE;

		const unsigned char *from = NULL;
		if (extra) {
			void *ptr = NULL;
			size_t *sizep = NULL;
			for (unsigned i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
				if (i >= 64)
					return CUDA_ERROR_INVALID_VALUE;
				if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
					ptr = extra[i + 1];
				else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
					sizep = extra[i + 1];
				else
					return CUDA_ERROR_INVALID_VALUE;
			}
			if (f->pend && (!ptr || !sizep || *sizep < f->pend))
				return CUDA_ERROR_INVALID_VALUE;
			from = ptr;
		} else if (!kernelParams && f->nparams) {
			return CUDA_ERROR_INVALID_VALUE;
		} else if (kernelParams) {
			for (unsigned i = 0; i < f->nparams; i++)
				if (!kernelParams[i])
					return CUDA_ERROR_INVALID_VALUE;
		}

		args = calloc(1, f->pend ? f->pend : 1);
		if (!args)
			return CUDA_ERROR_OUT_OF_MEMORY;
		if (from)
			memcpy(args, from, f->pend);
		else if (kernelParams)
			for (unsigned i = 0; i < f->nparams; i++)
				memcpy(args + f->poff[i], kernelParams[i], f->psize[i]);
		fn = f->fn;
		name = f->name;
	}

	if (env_on("FAKE_KDRV_LOG")) {
		if (c->cluster)
			fprintf(stderr, "kdrv: launch %s grid=%u,%u,%u block=%u,%u,%u shmem=%u cluster=%u,%u,%u\n",
				name, c->g[0], c->g[1], c->g[2], c->b[0], c->b[1], c->b[2], c->shmem,
				c->cl[0], c->cl[1], c->cl[2]);
		else
			fprintf(stderr, "kdrv: launch %s grid=%u,%u,%u block=%u,%u,%u shmem=%u\n", name,
				c->g[0], c->g[1], c->g[2], c->b[0], c->b[1], c->b[2], c->shmem);
	}

	void *shared = NULL;
	if (c->shmem) {
		shared = malloc(c->shmem);
		if (!shared) {
			free(args);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
	}
	struct tlk_launch l = {
		.grid = { c->g[0], c->g[1], c->g[2] },
		.block = { c->b[0], c->b[1], c->b[2] },
		.shared_bytes = c->shmem,
		.shared = shared,
		.cooperative = (unsigned)c->coop,
	};
	for (unsigned z = 0; z < c->g[2]; z++)
		for (unsigned y = 0; y < c->g[1]; y++)
			for (unsigned x = 0; x < c->g[0]; x++) {
				l.block_idx = (struct tlk_dim3){ x, y, z };
				if (shared)
					memset(shared, 0, c->shmem);
				fn(&l, args);
			}
	free(shared);
	free(args);
	return CUDA_SUCCESS;
}

/* A launch given by its dimensions (cuLaunchKernel, cuLaunchCooperativeKernel). */
static CUresult launch_dims(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
			    unsigned shmem, CUstream s, int coop, void **kernelParams, void **extra)
{
	struct launch c = { .g = { gx, gy, gz }, .b = { bx, by, bz }, .shmem = shmem, .stream = s, .coop = coop };

	return launch(f, &c, kernelParams, extra);
}

static CUresult k_cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
				 unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
				 unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
				 void **kernelParams, void **extra)
{
	return launch_dims(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, 0,
			   kernelParams, extra);
}

static CUresult k_cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
				      unsigned int gridDimZ, unsigned int blockDimX,
				      unsigned int blockDimY, unsigned int blockDimZ,
				      unsigned int sharedMemBytes, CUstream hStream,
				      void **kernelParams, void **extra)
{
	return launch_dims(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, 0,
			   kernelParams, extra);
}

static CUresult launch_ex(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
			  void **extra)
{
	if (!config || (config->numAttrs && !config->attrs))
		return CUDA_ERROR_INVALID_VALUE;
	struct launch c = { .g = { config->gridDimX, config->gridDimY, config->gridDimZ },
			    .b = { config->blockDimX, config->blockDimY, config->blockDimZ },
			    .shmem = config->sharedMemBytes,
			    .stream = config->hStream };
	unsigned nclusters = 0;
	for (unsigned i = 0; i < config->numAttrs; i++) {
		if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE)
			c.coop = config->attrs[i].value.cooperative != 0;
		if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
			nclusters++;
			c.cluster = 1;
			c.cl[0] = config->attrs[i].value.clusterDim.x;
			c.cl[1] = config->attrs[i].value.clusterDim.y;
			c.cl[2] = config->attrs[i].value.clusterDim.z;
		}
	}
	if (nclusters) {
		LOCK_SCOPE();
		g_cluster_attrs += nclusters;
		/* as the hardware: 8 blocks a cluster, 16 where the function allows it */
		struct kfunc *kf = resolve_fn(f);
		unsigned blocks = c.cl[0] * c.cl[1] * c.cl[2];
		if (kf && (blocks > 16 || (blocks > 8 && !kf->non_portable)))
			return CUDA_ERROR_INVALID_CLUSTER_SIZE;
	}
	return launch(f, &c, kernelParams, extra);
}

/* Cooperative launches take kernelParams only, as CUDA's; their blocks may
 * synchronise across the grid, which the kernel sees (tlk_launch.cooperative). */
static CUresult k_cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
					    unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
					    unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
					    void **kernelParams)
{
	return launch_dims(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, 1,
			   kernelParams, NULL);
}

static CUresult k_cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
						 unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
						 unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
						 void **kernelParams)
{
	return k_cuLaunchCooperativeKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
					   sharedMemBytes, hStream, kernelParams);
}

static CUresult k_cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
				   void **extra)
{
	return launch_ex(config, f, kernelParams, extra);
}

static CUresult k_cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f,
					void **kernelParams, void **extra)
{
	return launch_ex(config, f, kernelParams, extra);
}

/* How many CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION attributes cuLaunchKernelEx
 * has been given (a test hook; not a CUDA function). */
__attribute__((visibility("default"))) unsigned long long kdrv_cluster_attr_count(void);
unsigned long long kdrv_cluster_attr_count(void)
{
	LOCK_SCOPE();
	return g_cluster_attrs;
}

/* ------------------------------------------------------------------ */
/* Memory                                                               */

static CUresult mem_alloc(CUdeviceptr *dptr, size_t bytesize)
{
	NEED_CTX();
	if (!dptr || bytesize == 0)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	struct kalloc *a = calloc(1, sizeof *a);
	if (!a)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (bytesize < KDRV_GRAN) {
		size_t need = round_up(bytesize, KDRV_SMALL_ALIGN);
		struct kchunk *c = NULL, **tail = &g_chunks;
		for (struct kchunk *k = g_chunks; k; k = k->next) {
			if (!c && k->size - k->off >= need)
				c = k;
			tail = &k->next;
		}
		if (!c) {
			size_t csize = round_up(need, KDRV_GRAN);
			uintptr_t base = va_take(csize, KDRV_GRAN, PROT_READ | PROT_WRITE, 0);
			if (!base || !(c = calloc(1, sizeof *c))) {
				if (base)
					munmap((void *)base, csize);
				free(a);
				return CUDA_ERROR_OUT_OF_MEMORY;
			}
			c->base = base;
			c->size = csize;
			*tail = c;
		}
		a->base = c->base + c->off;
		a->chunk = c;
		c->off += need;
		c->live++;
	} else {
		size_t map = round_up(bytesize, KDRV_GRAN);
		if (map < bytesize) {
			free(a);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		uintptr_t base = va_take(map, KDRV_GRAN, PROT_READ | PROT_WRITE, 0);
		if (!base) {
			free(a);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		a->base = base;
		a->map_size = map;
	}
	a->size = bytesize;
	a->next = g_allocs;
	g_allocs = a;
	g_live_bytes += bytesize;
	*dptr = a->base;
	return CUDA_SUCCESS;
}

static CUresult mem_free(CUdeviceptr dptr)
{
	NEED_CTX();
	if (!dptr)
		return CUDA_SUCCESS;
	LOCK_SCOPE();
	for (struct kalloc **pp = &g_allocs; *pp; pp = &(*pp)->next) {
		struct kalloc *a = *pp;
		if (a->base != dptr)
			continue;
		*pp = a->next;
		if (a->chunk) {
			if (--a->chunk->live == 0)
				a->chunk->off = 0; /* its space is free again */
		} else {
			munmap((void *)(uintptr_t)a->base, a->map_size);
		}
		g_live_bytes -= a->size;
		free(a);
		return CUDA_SUCCESS;
	}
	return CUDA_ERROR_INVALID_VALUE;
}

static CUresult k_cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	return mem_alloc(dptr, bytesize);
}

static CUresult k_cuMemFree_v2(CUdeviceptr dptr)
{
	return mem_free(dptr);
}

/* The CUDA 3.0 ABI, which cuGetProcAddress still hands out for an older
 * cudaVersion: 32-bit pointers and sizes. As the real driver's, it writes
 * 4 bytes through dptr: a caller of the _v2 ABI that reaches it gets a
 * truncated size and the upper half of its pointer left as it was. */
static CUresult k_cuMemAlloc(unsigned int *dptr, unsigned int bytesize)
{
	CUdeviceptr p = 0;
	CUresult r = mem_alloc(&p, bytesize);

	if (r == CUDA_SUCCESS && dptr)
		*dptr = (unsigned int)p;
	return r;
}

static CUresult k_cuMemFree(unsigned int dptr)
{
	return mem_free((CUdeviceptr)dptr);
}

static CUresult k_cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	{
		LOCK_SCOPE();
		if (!stream_ok(hStream))
			return CUDA_ERROR_INVALID_HANDLE;
	}
	return mem_alloc(dptr, bytesize);
}

static CUresult k_cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
	{
		LOCK_SCOPE();
		if (!stream_ok(hStream))
			return CUDA_ERROR_INVALID_HANDLE;
	}
	return mem_free(dptr);
}

static CUresult k_cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
				     size_t Height, unsigned int ElementSizeBytes)
{
	NEED_CTX();
	if (!pPitch || !WidthInBytes || !Height ||
	    (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
		return CUDA_ERROR_INVALID_VALUE;
	size_t pitch = round_up(WidthInBytes, 512);
	if (pitch < WidthInBytes || Height > SIZE_MAX / pitch)
		return CUDA_ERROR_OUT_OF_MEMORY;
	CUresult rc = mem_alloc(dptr, pitch * Height);
	if (rc == CUDA_SUCCESS)
		*pPitch = pitch;
	return rc;
}

static CUresult k_cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
	NEED_CTX();
	if (!free_bytes || !total)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	*total = KDRV_TOTAL_MEM;
	*free_bytes = g_live_bytes < KDRV_TOTAL_MEM ? KDRV_TOTAL_MEM - g_live_bytes : 0;
	return CUDA_SUCCESS;
}

static CUresult k_cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
	NEED_CTX();
	LOCK_SCOPE();
	struct kalloc *a = alloc_containing(dptr);
	if (a) {
		if (pbase)
			*pbase = a->base;
		if (psize)
			*psize = a->size;
		return CUDA_SUCCESS;
	}
	struct kmap *m = map_containing(dptr);
	if (m) {
		if (pbase)
			*pbase = m->base;
		if (psize)
			*psize = m->size;
		return CUDA_SUCCESS;
	}
	return CUDA_ERROR_NOT_FOUND;
}

/* Pinned host memory (cuMemHostAlloc), known to cuPointerGetAttribute. */
struct khost {
	struct khost *next;
	void *p;
	size_t size;
};
static struct khost *g_hosts;
static unsigned long long g_objects; /* texture and surface objects made */

static CUresult k_cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
	(void)Flags;
	NEED_CTX();
	if (!pp || !bytesize)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	struct khost *h = calloc(1, sizeof *h);
	if (!h || !(h->p = calloc(1, bytesize))) {
		free(h);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	h->size = bytesize;
	h->next = g_hosts;
	g_hosts = h;
	*pp = h->p;
	return CUDA_SUCCESS;
}

static CUresult k_cuMemFreeHost(void *p)
{
	NEED_INIT();
	LOCK_SCOPE();
	for (struct khost **pp = &g_hosts; *pp; pp = &(*pp)->next)
		if ((*pp)->p == p) {
			struct khost *h = *pp;
			*pp = h->next;
			free(h->p);
			free(h);
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_INVALID_VALUE;
}

/* CU_POINTER_ATTRIBUTE_MEMORY_TYPE (device or host) and _IS_MANAGED (never
 * here) of memory the driver knows; anything else is not a pointer to it. */
static CUresult k_cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr)
{
	NEED_INIT();
	if (!data)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	unsigned type = 0;
	if (alloc_containing(ptr) || map_containing(ptr))
		type = 2; /* CU_MEMORYTYPE_DEVICE */
	for (struct khost *h = g_hosts; h && !type; h = h->next)
		if (ptr >= (uintptr_t)h->p && ptr - (uintptr_t)h->p < h->size)
			type = 1; /* CU_MEMORYTYPE_HOST */
	if (!type)
		return CUDA_ERROR_INVALID_VALUE;
	if (attribute == 2) {
		*(unsigned *)data = type;
		return CUDA_SUCCESS;
	}
	if (attribute == 8) {
		*(unsigned *)data = 0;
		return CUDA_SUCCESS;
	}
	return CUDA_ERROR_INVALID_VALUE;
}

/* Texture and surface objects: handles only (no kernel here samples them). */
static CUresult object_create(unsigned long long *obj, const void *res)
{
	NEED_CTX();
	if (!obj || !res)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	*obj = ++g_objects;
	return CUDA_SUCCESS;
}

static CUresult k_cuTexObjectCreate(unsigned long long *pTexObject, const void *pResDesc, const void *pTexDesc,
				    const void *pResViewDesc)
{
	(void)pResViewDesc;
	return pTexDesc ? object_create(pTexObject, pResDesc) : CUDA_ERROR_INVALID_VALUE;
}

static CUresult k_cuTexObjectDestroy(unsigned long long texObject)
{
	NEED_INIT();
	return texObject && texObject <= g_objects ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult k_cuSurfObjectCreate(unsigned long long *pSurfObject, const void *pResDesc)
{
	return object_create(pSurfObject, pResDesc);
}

static CUresult k_cuSurfObjectDestroy(unsigned long long surfObject)
{
	return k_cuTexObjectDestroy(surfObject);
}

static CUresult k_cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
						CUmemAllocationGranularity_flags option)
{
	NEED_INIT();
	if (!granularity || !prop ||
	    (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
		return CUDA_ERROR_INVALID_VALUE;
	*granularity = KDRV_GRAN;
	return CUDA_SUCCESS;
}

static CUresult k_cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
				      CUdeviceptr addr, unsigned long long flags)
{
	(void)flags;
	NEED_INIT();
	if (!ptr || size == 0 || size % KDRV_GRAN || addr % KDRV_GRAN ||
	    (alignment & (alignment - 1)))
		return CUDA_ERROR_INVALID_VALUE;
	size_t align = alignment > KDRV_GRAN ? alignment : KDRV_GRAN;
	LOCK_SCOPE();
	va_init();
	struct kresv *r = calloc(1, sizeof *r);
	if (!r)
		return CUDA_ERROR_OUT_OF_MEMORY;
	uintptr_t base = 0;
	/* addr is a hint: when its range is taken, reserve elsewhere */
	if (addr && addr % align == 0 && addr + size > addr &&
	    map_exact((uintptr_t)addr, size, PROT_NONE, MAP_NORESERVE))
		base = (uintptr_t)addr;
	if (!base)
		base = va_take(size, align, PROT_NONE, MAP_NORESERVE);
	if (!base) {
		free(r);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	r->base = base;
	r->size = size;
	r->next = g_resvs;
	g_resvs = r;
	*ptr = base;
	return CUDA_SUCCESS;
}

static CUresult k_cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	NEED_INIT();
	LOCK_SCOPE();
	for (struct kresv **pp = &g_resvs; *pp; pp = &(*pp)->next) {
		struct kresv *r = *pp;
		if (r->base != ptr || r->size != size)
			continue;
		for (struct kmap *m = g_maps; m; m = m->next)
			if (m->base >= r->base && m->base - r->base < r->size)
				return CUDA_ERROR_INVALID_VALUE; /* still mapped */
		munmap((void *)(uintptr_t)r->base, r->size);
		*pp = r->next;
		free(r);
		return CUDA_SUCCESS;
	}
	return CUDA_ERROR_INVALID_VALUE;
}

static CUresult k_cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
			      const CUmemAllocationProp *prop, unsigned long long flags)
{
	NEED_INIT();
	if (!handle || !prop || size == 0 || size % KDRV_GRAN || flags != 0 ||
	    prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
	    prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_INVALID_VALUE;
	if (prop->location.id != 0)
		return CUDA_ERROR_INVALID_DEVICE;
	LOCK_SCOPE();
	struct khandle *h = calloc(1, sizeof *h);
	if (!h)
		return CUDA_ERROR_OUT_OF_MEMORY;
	h->fd = memfd_create("kdrv-vmm", MFD_CLOEXEC);
	if (h->fd < 0 || ftruncate(h->fd, (off_t)size) != 0) {
		if (h->fd >= 0)
			close(h->fd);
		free(h);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	h->id = ++g_handle_seq;
	h->size = size;
	h->next = g_handles;
	g_handles = h;
	g_live_bytes += size;
	*handle = h->id;
	return CUDA_SUCCESS;
}

static struct khandle *find_handle(CUmemGenericAllocationHandle id)
{
	for (struct khandle *h = g_handles; h; h = h->next)
		if (h->id == id)
			return h->released ? NULL : h;
	return NULL;
}

static CUresult k_cuMemRelease(CUmemGenericAllocationHandle handle)
{
	NEED_INIT();
	LOCK_SCOPE();
	struct khandle *h = find_handle(handle);
	if (!h)
		return CUDA_ERROR_INVALID_VALUE;
	h->released = 1;
	handle_drop(h);
	return CUDA_SUCCESS;
}

static CUresult k_cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			   CUmemGenericAllocationHandle handle, unsigned long long flags)
{
	NEED_INIT();
	if (!ptr || size == 0 || ptr % KDRV_GRAN || size % KDRV_GRAN || offset % KDRV_GRAN ||
	    flags != 0)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	struct khandle *h = find_handle(handle);
	if (!h || offset > h->size || size > h->size - offset)
		return CUDA_ERROR_INVALID_VALUE;
	if (!resv_containing(ptr, size))
		return CUDA_ERROR_INVALID_VALUE;
	for (struct kmap *m = g_maps; m; m = m->next)
		if (ptr < m->base + m->size && m->base < ptr + size)
			return CUDA_ERROR_INVALID_VALUE; /* overlaps a mapping */
	struct kmap *m = calloc(1, sizeof *m);
	if (!m)
		return CUDA_ERROR_OUT_OF_MEMORY;
	void *p = mmap((void *)(uintptr_t)ptr, size, PROT_NONE, MAP_SHARED | MAP_FIXED, h->fd,
		       (off_t)offset);
	if (p != (void *)(uintptr_t)ptr) {
		free(m);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	m->base = ptr;
	m->size = size;
	m->h = h;
	m->prot = PROT_NONE;
	m->next = g_maps;
	g_maps = m;
	h->maps++;
	return CUDA_SUCCESS;
}

static CUresult k_cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	NEED_INIT();
	LOCK_SCOPE();
	if (!maps_tile(ptr, size))
		return CUDA_ERROR_INVALID_VALUE;
	void *p = mmap((void *)(uintptr_t)ptr, size, PROT_NONE,
		       MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p != (void *)(uintptr_t)ptr)
		return CUDA_ERROR_UNKNOWN;
	for (struct kmap **pp = &g_maps; *pp;) {
		struct kmap *m = *pp;
		if (m->base >= ptr && m->base - ptr < size) {
			*pp = m->next;
			m->h->maps--;
			handle_drop(m->h);
			free(m);
		} else {
			pp = &m->next;
		}
	}
	return CUDA_SUCCESS;
}

static CUresult k_cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
				 size_t count)
{
	NEED_INIT();
	if (!desc || count == 0)
		return CUDA_ERROR_INVALID_VALUE;
	int prot = -1;
	for (size_t i = 0; i < count; i++) {
		if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE)
			return CUDA_ERROR_INVALID_VALUE;
		if (desc[i].location.id != 0)
			return CUDA_ERROR_INVALID_DEVICE;
		switch (desc[i].flags) {
		case CU_MEM_ACCESS_FLAGS_PROT_NONE: prot = PROT_NONE; break;
		case CU_MEM_ACCESS_FLAGS_PROT_READ: prot = PROT_READ; break;
		case CU_MEM_ACCESS_FLAGS_PROT_READWRITE: prot = PROT_READ | PROT_WRITE; break;
		default: return CUDA_ERROR_INVALID_VALUE;
		}
	}
	LOCK_SCOPE();
	if (!maps_tile(ptr, size))
		return CUDA_ERROR_INVALID_VALUE;
	if (mprotect((void *)(uintptr_t)ptr, size, prot) != 0)
		return CUDA_ERROR_UNKNOWN;
	for (struct kmap *m = g_maps; m; m = m->next)
		if (m->base >= ptr && m->base - ptr < size)
			m->prot = prot;
	return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Copies and sets                                                      */

static CUresult copy_h2d(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
	NEED_CTX();
	LOCK_SCOPE();
	if (!stream_ok(s))
		return CUDA_ERROR_INVALID_HANDLE;
	if (n == 0)
		return CUDA_SUCCESS;
	if (!src || !dev_range_ok(dst, n, 1))
		return CUDA_ERROR_INVALID_VALUE;
	memmove((void *)(uintptr_t)dst, src, n);
	return CUDA_SUCCESS;
}

static CUresult copy_d2h(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
	NEED_CTX();
	LOCK_SCOPE();
	if (!stream_ok(s))
		return CUDA_ERROR_INVALID_HANDLE;
	if (n == 0)
		return CUDA_SUCCESS;
	if (!dst || !dev_range_ok(src, n, 0))
		return CUDA_ERROR_INVALID_VALUE;
	memmove(dst, (const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

static CUresult copy_d2d(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
	NEED_CTX();
	LOCK_SCOPE();
	if (!stream_ok(s))
		return CUDA_ERROR_INVALID_HANDLE;
	if (n == 0)
		return CUDA_SUCCESS;
	if (!dev_range_ok(dst, n, 1) || !dev_range_ok(src, n, 0))
		return CUDA_ERROR_INVALID_VALUE;
	memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

/* Unified addressing: either side may be host or device memory. */
static CUresult copy_any(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
	NEED_CTX();
	LOCK_SCOPE();
	if (!stream_ok(s))
		return CUDA_ERROR_INVALID_HANDLE;
	if (n == 0)
		return CUDA_SUCCESS;
	if (!dst || !src)
		return CUDA_ERROR_INVALID_VALUE;
	if ((in_dev_space(dst) && !dev_range_ok(dst, n, 1)) ||
	    (in_dev_space(src) && !dev_range_ok(src, n, 0)))
		return CUDA_ERROR_INVALID_VALUE;
	memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

static CUresult set_d8(CUdeviceptr dst, unsigned char uc, size_t n, CUstream s)
{
	NEED_CTX();
	LOCK_SCOPE();
	if (!stream_ok(s))
		return CUDA_ERROR_INVALID_HANDLE;
	if (n == 0)
		return CUDA_SUCCESS;
	if (!dev_range_ok(dst, n, 1))
		return CUDA_ERROR_INVALID_VALUE;
	memset((void *)(uintptr_t)dst, uc, n);
	return CUDA_SUCCESS;
}

static CUresult set_d32(CUdeviceptr dst, unsigned int ui, size_t n, CUstream s)
{
	NEED_CTX();
	LOCK_SCOPE();
	if (!stream_ok(s))
		return CUDA_ERROR_INVALID_HANDLE;
	if (n == 0)
		return CUDA_SUCCESS;
	if (dst % 4 || n > SIZE_MAX / 4 || !dev_range_ok(dst, n * 4, 1))
		return CUDA_ERROR_INVALID_VALUE;
	unsigned int *p = (unsigned int *)(uintptr_t)dst;
	for (size_t i = 0; i < n; i++)
		p[i] = ui;
	return CUDA_SUCCESS;
}

static CUresult k_cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
	return copy_h2d(dstDevice, srcHost, ByteCount, NULL);
}

static CUresult k_cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
	return copy_d2h(dstHost, srcDevice, ByteCount, NULL);
}

static CUresult k_cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
	return copy_d2d(dstDevice, srcDevice, ByteCount, NULL);
}

static CUresult k_cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
				       CUstream hStream)
{
	return copy_h2d(dstDevice, srcHost, ByteCount, hStream);
}

static CUresult k_cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
				       CUstream hStream)
{
	return copy_d2h(dstHost, srcDevice, ByteCount, hStream);
}

static CUresult k_cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
				       size_t ByteCount, CUstream hStream)
{
	return copy_d2d(dstDevice, srcDevice, ByteCount, hStream);
}

static CUresult k_cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
	return copy_any(dst, src, ByteCount, NULL);
}

static CUresult k_cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
				CUstream hStream)
{
	return copy_any(dst, src, ByteCount, hStream);
}

static CUresult k_cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
	return set_d8(dstDevice, uc, N, NULL);
}

static CUresult k_cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
	return set_d32(dstDevice, ui, N, NULL);
}

static CUresult k_cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N,
				  CUstream hStream)
{
	return set_d8(dstDevice, uc, N, hStream);
}

static CUresult k_cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N,
				   CUstream hStream)
{
	return set_d32(dstDevice, ui, N, hStream);
}

/* ------------------------------------------------------------------ */
/* Streams and events (all work is done by the time a call returns)     */

static CUresult stream_create(CUstream *phStream, unsigned int flags, int priority)
{
	NEED_CTX();
	if (!phStream)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	struct kstream *s = calloc(1, sizeof *s);
	if (!s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	s->flags = flags;
	s->prio = priority;
	s->gnext = g_streams;
	g_streams = s;
	*phStream = s;
	return CUDA_SUCCESS;
}

static CUresult k_cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
	return stream_create(phStream, Flags, 0);
}

static CUresult k_cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
	return stream_create(phStream, flags, priority);
}

static CUresult k_cuStreamDestroy_v2(CUstream hStream)
{
	NEED_INIT();
	LOCK_SCOPE();
	struct kstream *s = find_stream(hStream);
	if (!s)
		return CUDA_ERROR_INVALID_HANDLE;
	s->dead = 1;
	return CUDA_SUCCESS;
}

static CUresult stream_check(CUstream hStream)
{
	NEED_CTX();
	LOCK_SCOPE();
	return stream_ok(hStream) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult k_cuStreamSynchronize(CUstream hStream)
{
	return stream_check(hStream);
}

/* Stream capture, as far as the recorder needs it: the state, and what a
 * synchronize does to it. The stand-in still runs what is launched during
 * a capture (it has no graphs); EndCapture gives no graph. */
static CUresult k_cuStreamBeginCapture_v2(CUstream hStream, int mode)
{
	(void)mode;
	NEED_CTX();
	LOCK_SCOPE();
	struct kstream *s = find_stream(hStream);
	if (!s)
		return CUDA_ERROR_INVALID_HANDLE;
	s->capturing = 1;
	return CUDA_SUCCESS;
}

static CUresult k_cuStreamEndCapture(CUstream hStream, void **phGraph)
{
	NEED_CTX();
	LOCK_SCOPE();
	struct kstream *s = find_stream(hStream);
	if (!s || !phGraph)
		return CUDA_ERROR_INVALID_HANDLE;
	int was = s->capturing;
	s->capturing = 0;
	*phGraph = NULL;
	return was == 2 ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED : CUDA_SUCCESS;
}

static CUresult k_cuStreamIsCapturing(CUstream hStream, int *captureStatus)
{
	NEED_CTX();
	LOCK_SCOPE();
	if (!captureStatus || !stream_ok(hStream))
		return CUDA_ERROR_INVALID_VALUE;
	struct kstream *s = find_stream(hStream);
	*captureStatus = s ? s->capturing : 0;
	return CUDA_SUCCESS;
}

static CUresult k_cuStreamQuery(CUstream hStream)
{
	return stream_check(hStream);
}

static CUresult k_cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
	(void)Flags;
	CUresult rc = stream_check(hStream);
	if (rc)
		return rc;
	LOCK_SCOPE();
	return find_event(hEvent) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult k_cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
	NEED_CTX();
	if (!phEvent)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	struct kevent *e = calloc(1, sizeof *e);
	if (!e)
		return CUDA_ERROR_OUT_OF_MEMORY;
	e->flags = Flags;
	e->gnext = g_events;
	g_events = e;
	*phEvent = e;
	return CUDA_SUCCESS;
}

static CUresult k_cuEventRecord(CUevent hEvent, CUstream hStream)
{
	NEED_CTX();
	LOCK_SCOPE();
	struct kevent *e = find_event(hEvent);
	if (!e || !stream_ok(hStream))
		return CUDA_ERROR_INVALID_HANDLE;
	clock_gettime(CLOCK_MONOTONIC, &e->ts);
	e->recorded = 1;
	return CUDA_SUCCESS;
}

static CUresult event_check(CUevent hEvent)
{
	NEED_INIT();
	LOCK_SCOPE();
	return find_event(hEvent) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult k_cuEventSynchronize(CUevent hEvent)
{
	return event_check(hEvent);
}

static CUresult k_cuEventQuery(CUevent hEvent)
{
	return event_check(hEvent);
}

static CUresult elapsed(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
	NEED_INIT();
	if (!pMilliseconds)
		return CUDA_ERROR_INVALID_VALUE;
	LOCK_SCOPE();
	struct kevent *a = find_event(hStart), *b = find_event(hEnd);
	if (!a || !b || !a->recorded || !b->recorded || (a->flags & CU_EVENT_DISABLE_TIMING) ||
	    (b->flags & CU_EVENT_DISABLE_TIMING))
		return CUDA_ERROR_INVALID_HANDLE;
	double ns = (double)(b->ts.tv_sec - a->ts.tv_sec) * 1e9 + (double)(b->ts.tv_nsec - a->ts.tv_nsec);
	*pMilliseconds = (float)(ns / 1e6);
	return CUDA_SUCCESS;
}

static CUresult k_cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
	return elapsed(pMilliseconds, hStart, hEnd);
}

static CUresult k_cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
	return elapsed(pMilliseconds, hStart, hEnd);
}

static CUresult k_cuEventDestroy_v2(CUevent hEvent)
{
	NEED_INIT();
	LOCK_SCOPE();
	struct kevent *e = find_event(hEvent);
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	e->dead = 1;
	return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Entry points by name                                                 */

static CUresult k_cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
	if (env_on("FAKE_KDRV_LOG") && pExportTableId) {
		fprintf(stderr, "kdrv: cuGetExportTable(");
		for (int i = 0; i < 16; i++)
			fprintf(stderr, "%02x", (unsigned char)pExportTableId->bytes[i]);
		fprintf(stderr, "): none\n");
	}
	if (ppExportTable)
		*ppExportTable = NULL;
	return CUDA_ERROR_NOT_SUPPORTED;
}

static CUresult get_proc(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
			 CUdriverProcAddressQueryResult *status);

static CUresult k_cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
	return get_proc(symbol, pfn, cudaVersion, flags, NULL);
}

static CUresult k_cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
				      cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
	return get_proc(symbol, pfn, cudaVersion, flags, symbolStatus);
}

/* Every exported CUDA function, with the CUDA version that introduced that
 * ABI version of it (0: old enough not to matter). Each is exported as an
 * alias of its static k_ function; cuGetProcAddress hands out the k_
 * function's address, which is the export's address (taking the export's
 * own address here would go through the GOT, which an LD_PRELOAD'ed
 * interposer of the same name takes over). */
#define KDRV_SYMBOLS(X)                         \
	X(cuInit, 0)                            \
	X(cuDriverGetVersion, 0)                \
	X(cuGetErrorString, 0)                  \
	X(cuGetErrorName, 0)                    \
	X(cuGetProcAddress, 11030)              \
	X(cuGetProcAddress_v2, 12000)           \
	X(cuGetExportTable, 0)                  \
	X(cuDeviceGetCount, 0)                  \
	X(cuDeviceGet, 0)                       \
	X(cuDeviceGetName, 0)                   \
	X(cuDeviceGetUuid, 9020)                \
	X(cuDeviceGetUuid_v2, 11040)            \
	X(cuDeviceTotalMem_v2, 3020)            \
	X(cuDeviceGetAttribute, 0)              \
	X(cuDevicePrimaryCtxRetain, 7000)       \
	X(cuDevicePrimaryCtxRelease_v2, 11000)  \
	X(cuDevicePrimaryCtxGetState, 7000)     \
	X(cuCtxCreate_v2, 3020)                 \
	X(cuCtxDestroy_v2, 4000)                \
	X(cuCtxSetCurrent, 4000)                \
	X(cuCtxGetCurrent, 4000)                \
	X(cuCtxPushCurrent_v2, 4000)            \
	X(cuCtxPopCurrent_v2, 4000)             \
	X(cuCtxGetDevice, 0)                    \
	X(cuCtxSynchronize, 0)                  \
	X(cuModuleLoad, 0)                      \
	X(cuModuleLoadData, 0)                  \
	X(cuModuleLoadDataEx, 0)                \
	X(cuModuleLoadFatBinary, 0)             \
	X(cuModuleUnload, 0)                    \
	X(cuModuleGetFunction, 0)               \
	X(cuLibraryLoadData, 12000)             \
	X(cuLibraryLoadFromFile, 12000)         \
	X(cuLibraryUnload, 12000)               \
	X(cuLibraryGetKernel, 12000)            \
	X(cuLibraryGetModule, 12000)            \
	X(cuKernelGetFunction, 12000)           \
	X(cuKernelGetAttribute, 12000)          \
	X(cuKernelSetAttribute, 12000)          \
	X(cuKernelGetName, 12030)               \
	X(cuKernelGetParamInfo, 12040)          \
	X(cuFuncGetAttribute, 0)                \
	X(cuFuncSetAttribute, 9000)             \
	X(cuFuncGetName, 12030)                 \
	X(cuFuncGetModule, 11000)               \
	X(cuFuncGetParamInfo, 12040)            \
	X(cuLaunchKernel, 4000)                 \
	X(cuLaunchKernel_ptsz, 7000)            \
	X(cuLaunchKernelEx, 11060)              \
	X(cuLaunchKernelEx_ptsz, 11060)         \
	X(cuLaunchCooperativeKernel, 9000)      \
	X(cuLaunchCooperativeKernel_ptsz, 9000) \
	X(cuMemAlloc, 0)                        \
	X(cuMemFree, 0)                         \
	X(cuMemAlloc_v2, 3020)                  \
	X(cuMemFree_v2, 3020)                   \
	X(cuMemAllocAsync, 11020)               \
	X(cuMemFreeAsync, 11020)                \
	X(cuMemAllocPitch_v2, 3020)             \
	X(cuMemHostAlloc, 2020)                 \
	X(cuMemFreeHost, 0)                     \
	X(cuPointerGetAttribute, 4000)          \
	X(cuTexObjectCreate, 5000)              \
	X(cuTexObjectDestroy, 5000)             \
	X(cuSurfObjectCreate, 5000)             \
	X(cuSurfObjectDestroy, 5000)            \
	X(cuMemGetInfo_v2, 3020)                \
	X(cuMemGetAddressRange_v2, 3020)        \
	X(cuMemGetAllocationGranularity, 10020) \
	X(cuMemAddressReserve, 10020)           \
	X(cuMemAddressFree, 10020)              \
	X(cuMemCreate, 10020)                   \
	X(cuMemRelease, 10020)                  \
	X(cuMemMap, 10020)                      \
	X(cuMemUnmap, 10020)                    \
	X(cuMemSetAccess, 10020)                \
	X(cuMemcpyHtoD_v2, 3020)                \
	X(cuMemcpyDtoH_v2, 3020)                \
	X(cuMemcpyDtoD_v2, 3020)                \
	X(cuMemcpyHtoDAsync_v2, 3020)           \
	X(cuMemcpyDtoHAsync_v2, 3020)           \
	X(cuMemcpyDtoDAsync_v2, 3020)           \
	X(cuMemcpy, 4000)                       \
	X(cuMemcpyAsync, 4000)                  \
	X(cuMemsetD8_v2, 3020)                  \
	X(cuMemsetD32_v2, 3020)                 \
	X(cuMemsetD8Async, 0)                   \
	X(cuMemsetD32Async, 0)                  \
	X(cuStreamCreate, 0)                    \
	X(cuStreamCreateWithPriority, 5050)     \
	X(cuStreamDestroy_v2, 4000)             \
	X(cuStreamSynchronize, 0)               \
	X(cuStreamBeginCapture_v2, 10010)       \
	X(cuStreamEndCapture, 10000)            \
	X(cuStreamIsCapturing, 10000)           \
	X(cuStreamQuery, 0)                     \
	X(cuStreamWaitEvent, 0)                 \
	X(cuEventCreate, 0)                     \
	X(cuEventRecord, 0)                     \
	X(cuEventSynchronize, 0)                \
	X(cuEventQuery, 0)                      \
	X(cuEventElapsedTime, 0)                \
	X(cuEventElapsedTime_v2, 12080)         \
	X(cuEventDestroy_v2, 4000)

#define KDRV_EXPORT(name, ver)                                                 \
	extern __typeof__(k_##name) name                                       \
		__attribute__((alias("k_" #name), visibility("default")));
KDRV_SYMBOLS(KDRV_EXPORT)

static const struct {
	const char *name;
	void *fn;
	int since;
} k_syms[] = {
#define KDRV_ENTRY(name, ver) { #name, (void *)k_##name, ver },
	KDRV_SYMBOLS(KDRV_ENTRY)
};

/* 1: found; 0: not exported; -1: exported, but newer than cudaVersion. */
static int sym_lookup(const char *name, int cudaVersion, void **fn)
{
	if ((strcmp(name, "cuFuncGetParamInfo") == 0 || strcmp(name, "cuKernelGetParamInfo") == 0) &&
	    env_on("FAKE_KDRV_NO_PARAMINFO"))
		return 0;
	for (size_t i = 0; i < sizeof k_syms / sizeof k_syms[0]; i++)
		if (strcmp(k_syms[i].name, name) == 0) {
			if (k_syms[i].since > cudaVersion)
				return -1;
			*fn = k_syms[i].fn;
			return 1;
		}
	return 0;
}

/* The real driver's resolution: the newest ABI version of `symbol` that
 * `cudaVersion` knows (NAME_v3, NAME_v2, then NAME), the _ptsz form first
 * for the launch functions when per-thread default stream is asked for. */
static CUresult get_proc(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
			 CUdriverProcAddressQueryResult *status)
{
	if (pfn)
		*pfn = NULL;
	if (status)
		*status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	if (!symbol || !pfn ||
	    (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM |
				   CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)))
		return CUDA_ERROR_INVALID_VALUE;
	size_t n = strlen(symbol);
	if (n == 0 || n > 200)
		return CUDA_ERROR_NOT_FOUND;
	char name[224];
	const char *suffixes[4];
	int ns = 0;
	if ((flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) &&
	    (strcmp(symbol, "cuLaunchKernel") == 0 || strcmp(symbol, "cuLaunchKernelEx") == 0 ||
	     strcmp(symbol, "cuLaunchCooperativeKernel") == 0))
		suffixes[ns++] = "_ptsz";
	suffixes[ns++] = "_v3";
	suffixes[ns++] = "_v2";
	suffixes[ns++] = "";
	int too_new = 0;
	for (int i = 0; i < ns; i++) {
		snprintf(name, sizeof name, "%s%s", symbol, suffixes[i]);
		void *fn = NULL;
		int r = sym_lookup(name, cudaVersion, &fn);
		if (r > 0) {
			*pfn = fn;
			if (status)
				*status = CU_GET_PROC_ADDRESS_SUCCESS;
			return CUDA_SUCCESS;
		}
		too_new |= r < 0;
	}
	if (status && too_new)
		*status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
	if (env_on("FAKE_KDRV_LOG"))
		fprintf(stderr, "kdrv: cuGetProcAddress(%s, %d): not found\n", symbol, cudaVersion);
	return CUDA_ERROR_NOT_FOUND;
}
