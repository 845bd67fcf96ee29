/* SPDX-License-Identifier: MIT */
/* The standalone replayer that `tlreplay pack --kdb` ships with a recorded
 * kernel launch: it needs a C compiler and a CUDA driver, nothing else (no
 * CUDA toolkit: the driver is opened with dlopen and the few types it takes
 * are declared below). It reads the launch's description (launch-N.txt),
 * puts every recorded allocation back at its recorded address, loads the
 * kernel's module, launches it with its recorded arguments, times it with
 * CUDA events and compares the memory with the recorded outputs.
 *
 *     make && ./replay launch-0.txt [REPEATS]
 *
 * Exit status: 0 when the outputs match, 1 when they differ, 2 on an error.
 * TLREPLAY_CUDA_LIB names another driver library. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef void *handle;
typedef struct {
	int type, id;
} CUmemLocation;
typedef struct {
	int type, requestedHandleTypes;
	CUmemLocation location;
	void *win32HandleMetaData;
	unsigned char flags[8];
} CUmemAllocationProp;
typedef struct {
	CUmemLocation location;
	int flags;
} CUmemAccessDesc;
typedef struct {
	int id;
	char pad[4];
	unsigned char value[64];
} CUlaunchAttribute;
typedef struct {
	unsigned gx, gy, gz, bx, by, bz, shared;
	handle stream;
	CUlaunchAttribute *attrs;
	unsigned nattrs;
} CUlaunchConfig;

static struct {
	CUresult (*Init)(unsigned);
	CUresult (*DeviceGet)(int *, int);
	CUresult (*PrimaryCtxRetain)(handle *, int);
	CUresult (*CtxSetCurrent)(handle);
	CUresult (*CtxSynchronize)(void);
	CUresult (*Granularity)(size_t *, const CUmemAllocationProp *, int);
	CUresult (*AddressReserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
	CUresult (*MemCreate)(unsigned long long *, size_t, const CUmemAllocationProp *, unsigned long long);
	CUresult (*MemMap)(CUdeviceptr, size_t, size_t, unsigned long long, unsigned long long);
	CUresult (*MemSetAccess)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
	CUresult (*HtoD)(CUdeviceptr, const void *, size_t);
	CUresult (*DtoH)(void *, CUdeviceptr, size_t);
	CUresult (*ModuleLoadData)(handle *, const void *);
	CUresult (*ModuleGetFunction)(handle *, handle, const char *);
	CUresult (*FuncSetAttribute)(handle, int, int);
	CUresult (*LaunchKernel)(handle, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
				 handle, void **, void **);
	CUresult (*LaunchKernelEx)(const CUlaunchConfig *, handle, void **, void **);
	CUresult (*EventCreate)(handle *, unsigned);
	CUresult (*EventRecord)(handle, handle);
	CUresult (*EventSynchronize)(handle);
	CUresult (*EventElapsedTime)(float *, handle, handle);
} cu;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("replay: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static void check(CUresult r, const char *what)
{
	if (r)
		die("%s failed: CUDA error %d", what, r);
}

struct mem {
	CUdeviceptr base;
	size_t size;
	char before[80], after[80];
	unsigned char *in, *out;
};

static struct {
	char kernel[4096];
	unsigned grid[3], block[3], shared;
	int max_shared;
	char module[80], params[80];
	size_t module_size, params_size;
	CUlaunchAttribute attrs[16];
	unsigned nattrs;
	struct mem *mem;
	size_t nmem;
	int nonportable;   /* clusters over 8 blocks allowed */
	CUdeviceptr arena; /* the recorder's arena (0: none) */
	unsigned long long arena_size;
} L;

static unsigned char *slurp(const char *dir, const char *name, size_t want)
{
	char path[8192];
	unsigned char *p = malloc(want ? want : 1);
	FILE *f;

	snprintf(path, sizeof(path), "%s/blobs/%s", dir, name);
	f = fopen(path, "rb");
	if (!f || !p)
		die("%s: cannot read", path);
	if (fread(p, 1, want, f) != want || fgetc(f) != EOF)
		die("%s: not %zu bytes", path, want);
	fclose(f);
	return p;
}

static void read_manifest(const char *path)
{
	char line[8192], word[64];
	FILE *f = fopen(path, "r");
	unsigned n = 0;

	if (!f)
		die("%s: cannot open", path);
	if (!fgets(line, sizeof(line), f) || strncmp(line, "tlreplay-kernel 1", 17))
		die("%s: not a tlreplay kernel launch (first line 'tlreplay-kernel 1')", path);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (sscanf(line, "%63s", word) != 1)
			continue;
		if (!strcmp(word, "kernel") && sscanf(line, "kernel %4095s", L.kernel) == 1)
			continue;
		if (!strcmp(word, "grid") && sscanf(line, "grid %u %u %u", &L.grid[0], &L.grid[1], &L.grid[2]) == 3)
			continue;
		if (!strcmp(word, "block") &&
		    sscanf(line, "block %u %u %u", &L.block[0], &L.block[1], &L.block[2]) == 3)
			continue;
		if (!strcmp(word, "shared") && sscanf(line, "shared %u %d", &L.shared, &L.max_shared) == 2)
			continue;
		if (!strcmp(word, "module") && sscanf(line, "module %79s %zu", L.module, &L.module_size) == 2)
			continue;
		if (!strcmp(word, "params") && sscanf(line, "params %79s %zu", L.params, &L.params_size) == 2)
			continue;
		if (!strcmp(word, "attr") && L.nattrs < 16) {
			char hex[160];
			unsigned i, v;
			CUlaunchAttribute *a = &L.attrs[L.nattrs];

			if (sscanf(line, "attr %d %159s", &a->id, hex) != 2 || strlen(hex) != 128)
				die("%s:%u: bad attr line", path, n + 1);
			for (i = 0; i < 64; i++) {
				sscanf(hex + 2 * i, "%2x", &v);
				a->value[i] = (unsigned char)v;
			}
			L.nattrs++;
			continue;
		}
		if (!strcmp(word, "nonportable") && sscanf(line, "nonportable %d", &L.nonportable) == 1)
			continue;
		if (!strcmp(word, "arena")) {
			if (sscanf(line, "arena %llx %llu", &L.arena, &L.arena_size) != 2 || !L.arena ||
			    !L.arena_size || L.arena + L.arena_size < L.arena)
				die("%s:%u: bad arena line", path, n + 1);
			continue;
		}
		if (!strcmp(word, "mem")) {
			struct mem m;

			memset(&m, 0, sizeof(m));
			if (sscanf(line, "mem %llx %zu %79s %79s", &m.base, &m.size, m.before, m.after) != 4)
				die("%s:%u: bad mem line", path, n + 1);
			L.mem = realloc(L.mem, (L.nmem + 1) * sizeof(*L.mem));
			if (!L.mem)
				die("out of memory");
			L.mem[L.nmem++] = m;
			continue;
		}
		die("%s:%u: cannot read '%s'", path, n + 1, word);
	}
	fclose(f);
	if (!L.kernel[0] || !L.grid[0] || !L.block[0] || !L.module[0] || !L.params[0])
		die("%s: kernel, grid, block, module and params are needed", path);
}

static void *sym(void *dl, const char *name, int need)
{
	void *p = dlsym(dl, name);

	if (!p && need)
		die("the CUDA driver has no %s", name);
	return p;
}

static void load_driver(void)
{
	const char *lib = getenv("TLREPLAY_CUDA_LIB");
	void *dl = dlopen(lib && *lib ? lib : "libcuda.so.1", RTLD_NOW);

	if (!dl)
		die("no CUDA driver: %s", dlerror());
	*(void **)&cu.Init = sym(dl, "cuInit", 1);
	*(void **)&cu.DeviceGet = sym(dl, "cuDeviceGet", 1);
	*(void **)&cu.PrimaryCtxRetain = sym(dl, "cuDevicePrimaryCtxRetain", 1);
	*(void **)&cu.CtxSetCurrent = sym(dl, "cuCtxSetCurrent", 1);
	*(void **)&cu.CtxSynchronize = sym(dl, "cuCtxSynchronize", 1);
	*(void **)&cu.Granularity = sym(dl, "cuMemGetAllocationGranularity", 1);
	*(void **)&cu.AddressReserve = sym(dl, "cuMemAddressReserve", 1);
	*(void **)&cu.MemCreate = sym(dl, "cuMemCreate", 1);
	*(void **)&cu.MemMap = sym(dl, "cuMemMap", 1);
	*(void **)&cu.MemSetAccess = sym(dl, "cuMemSetAccess", 1);
	*(void **)&cu.HtoD = sym(dl, "cuMemcpyHtoD_v2", 1);
	*(void **)&cu.DtoH = sym(dl, "cuMemcpyDtoH_v2", 1);
	*(void **)&cu.ModuleLoadData = sym(dl, "cuModuleLoadData", 1);
	*(void **)&cu.ModuleGetFunction = sym(dl, "cuModuleGetFunction", 1);
	*(void **)&cu.FuncSetAttribute = sym(dl, "cuFuncSetAttribute", 1);
	*(void **)&cu.LaunchKernel = sym(dl, "cuLaunchKernel", 1);
	*(void **)&cu.LaunchKernelEx = sym(dl, "cuLaunchKernelEx", 0);
	*(void **)&cu.EventCreate = sym(dl, "cuEventCreate", 1);
	*(void **)&cu.EventRecord = sym(dl, "cuEventRecord", 1);
	*(void **)&cu.EventSynchronize = sym(dl, "cuEventSynchronize", 1);
	*(void **)&cu.EventElapsedTime = sym(dl, "cuEventElapsedTime", 1);
}

static int in_arena(CUdeviceptr p)
{
	return L.arena && p >= L.arena && p - L.arena < L.arena_size;
}

/* The recorder's arena, as far as the recorded memory reaches, reserved
 * at its base: its end, or 0 when no memory is in it. */
static CUdeviceptr reserve_arena(size_t g)
{
	CUdeviceptr hi = 0, got = 0;
	size_t i;

	for (i = 0; i < L.nmem; i++) {
		CUdeviceptr e = (L.mem[i].base + L.mem[i].size + g - 1) & ~(CUdeviceptr)(g - 1);

		if (in_arena(L.mem[i].base) && e > hi)
			hi = e;
	}
	if (!hi)
		return 0;
	if (L.arena % g || cu.AddressReserve(&got, hi - L.arena, g, L.arena, 0) || got != L.arena)
		die("cannot have the recorder's arena 0x%llx-0x%llx (the driver offered 0x%llx)", L.arena, hi, got);
	return hi;
}

/* Every allocation back at its address: granularity-aligned ranges,
 * reserved at the recorded address (in the arena, reserved first, when the
 * recorder served it), backed; filled later. */
static void map_memory(int dev)
{
	CUmemAllocationProp prop = { 1, 0, { 1, dev }, NULL, { 0 } };
	CUmemAccessDesc acc = { { 1, dev }, 3 };
	size_t g = 0, i = 0;
	CUdeviceptr arena_end;

	check(cu.Granularity(&g, &prop, 0), "cuMemGetAllocationGranularity");
	arena_end = reserve_arena(g);
	while (i < L.nmem) {
		CUdeviceptr lo = L.mem[i].base & ~(CUdeviceptr)(g - 1), hi, got = 0;
		unsigned long long h;

		hi = (L.mem[i].base + L.mem[i].size + g - 1) & ~(CUdeviceptr)(g - 1);
		for (i++; i < L.nmem && (L.mem[i].base & ~(CUdeviceptr)(g - 1)) <= hi; i++) {
			CUdeviceptr e = (L.mem[i].base + L.mem[i].size + g - 1) & ~(CUdeviceptr)(g - 1);

			if (e > hi)
				hi = e;
		}
		if ((lo < L.arena || hi > arena_end) && (cu.AddressReserve(&got, hi - lo, g, lo, 0) || got != lo))
			die("cannot have 0x%llx-0x%llx at its address (the driver offered 0x%llx)", lo, hi, got);
		check(cu.MemCreate(&h, hi - lo, &prop, 0), "cuMemCreate");
		check(cu.MemMap(lo, hi - lo, 0, h, 0), "cuMemMap");
		check(cu.MemSetAccess(lo, hi - lo, &acc, 1), "cuMemSetAccess");
	}
}

static void restore(int all)
{
	size_t i;

	for (i = 0; i < L.nmem; i++)
		if (all || strcmp(L.mem[i].before, L.mem[i].after))
			check(cu.HtoD(L.mem[i].base, L.mem[i].in, L.mem[i].size), "restoring memory");
}

static int by_time(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	const char *manifest = argc > 1 ? argv[1] : "launch-0.txt";
	int reps = argc > 2 ? atoi(argv[2]) : 20, dev = 0, i, differ = 0;
	char dir[4096];
	unsigned char *image, *params, *buf;
	handle ctx, mod, fn, ev[2];
	size_t psize, k;
	void *extra[5];
	float *ms;

	if (reps < 1)
		die("bad REPEATS '%s'", argv[2]);
	snprintf(dir, sizeof(dir), "%s", manifest);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = 0;
	else
		strcpy(dir, ".");
	read_manifest(manifest);
	load_driver();
	check(cu.Init(0), "cuInit");
	check(cu.DeviceGet(&dev, 0), "cuDeviceGet");
	check(cu.PrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
	check(cu.CtxSetCurrent(ctx), "cuCtxSetCurrent");
	/* the device ranges before the files are read into the heap (one
	 * address space under UVA) */
	map_memory(dev);
	image = slurp(dir, L.module, L.module_size);
	params = slurp(dir, L.params, L.params_size);
	for (k = 0; k < L.nmem; k++) {
		L.mem[k].in = slurp(dir, L.mem[k].before, L.mem[k].size);
		L.mem[k].out = slurp(dir, L.mem[k].after, L.mem[k].size);
	}
	restore(1);
	check(cu.ModuleLoadData(&mod, image), "cuModuleLoadData");
	check(cu.ModuleGetFunction(&fn, mod, L.kernel), L.kernel);
	/* clusters over 8 blocks, as the recorded function allowed them */
	if (L.nonportable)
		check(cu.FuncSetAttribute(fn, 14, 1), "cuFuncSetAttribute(non-portable cluster size)");
	if (L.max_shared > 48 * 1024 || (int)L.shared > 48 * 1024)
		check(cu.FuncSetAttribute(fn, 8, L.max_shared > (int)L.shared ? L.max_shared : (int)L.shared),
		      "cuFuncSetAttribute");
	check(cu.EventCreate(&ev[0], 0), "cuEventCreate");
	check(cu.EventCreate(&ev[1], 0), "cuEventCreate");
	psize = L.params_size;
	extra[0] = (void *)1, extra[1] = params, extra[2] = (void *)2, extra[3] = &psize, extra[4] = NULL;
	ms = calloc((size_t)reps, sizeof(*ms));
	if (!ms)
		die("out of memory");
	for (i = 0; i <= reps; i++) {	/* one more: the verified launch */
		CUlaunchConfig c = { L.grid[0], L.grid[1], L.grid[2], L.block[0], L.block[1], L.block[2],
				     L.shared, NULL, L.attrs, L.nattrs };

		restore(0);
		check(cu.CtxSynchronize(), "cuCtxSynchronize");
		check(cu.EventRecord(ev[0], NULL), "cuEventRecord");
		if (L.nattrs && cu.LaunchKernelEx)
			check(cu.LaunchKernelEx(&c, fn, NULL, extra), L.kernel);
		else
			check(cu.LaunchKernel(fn, L.grid[0], L.grid[1], L.grid[2], L.block[0], L.block[1], L.block[2],
					      L.shared, NULL, NULL, extra), L.kernel);
		check(cu.EventRecord(ev[1], NULL), "cuEventRecord");
		check(cu.EventSynchronize(ev[1]), L.kernel);
		if (i < reps)
			check(cu.EventElapsedTime(&ms[i], ev[0], ev[1]), "cuEventElapsedTime");
	}
	qsort(ms, (size_t)reps, sizeof(*ms), by_time);
	printf("%s: grid %ux%ux%u block %ux%ux%u shared %u: median %.3f us, min %.3f us (%d launches)\n", L.kernel,
	       L.grid[0], L.grid[1], L.grid[2], L.block[0], L.block[1], L.block[2], L.shared, ms[reps / 2] * 1e3,
	       ms[0] * 1e3, reps);
	for (k = 0; k < L.nmem; k++) {
		buf = malloc(L.mem[k].size);
		if (!buf)
			die("out of memory");
		check(cu.DtoH(buf, L.mem[k].base, L.mem[k].size), "reading memory");
		if (memcmp(buf, L.mem[k].out, L.mem[k].size)) {
			printf("allocation 0x%llx (%zu bytes) differs from the recorded output\n", L.mem[k].base,
			       L.mem[k].size);
			differ = 1;
		}
		free(buf);
	}
	printf("%s\n", differ ? "outputs DIFFER" : "outputs match the recording");
	return differ;
}
