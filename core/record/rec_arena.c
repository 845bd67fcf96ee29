/* SPDX-License-Identifier: MIT */
/* The recorder's arena: one range of device addresses, reserved at a fixed
 * base far from where the driver and the kernel's mmap put things, from
 * which the process's device allocations are served while it is recorded
 * (cuMemAlloc, stream-ordered and pool allocations, and the address
 * reservations of the VMM API, which PyTorch's expandable segments map into).
 * A fresh process can then have every recorded address by reserving that one
 * range first thing (kreplay does): the H200 showed that addresses the
 * driver picks in one process are, two times in three, taken in another.
 *
 * Memory is served as the VMM API gives it: cuMemCreate of whole granules,
 * cuMemMap into the arena, cuMemSetAccess for the current context's device.
 * A free unmaps after the context has finished with it (cuMemFree's own
 * promise; cuMemUnmap makes none): cuMemFree synchronises the context,
 * cuMemFreeAsync records an event on its stream and the granules go back
 * once it has passed. What the arena cannot serve (pitched and managed
 * memory, work being captured into a graph, an arena that is full or could
 * not be had) goes to the driver as before, and replay reserves it at its
 * own address as before.
 *
 * $TLREPLAY_RECORD_ARENA: "BASE[:SIZE]" (hex or decimal, SIZE with K/M/G/T),
 * or "off". Default 0x200000000000 (32 TiB), 1 TiB: inside the gap that
 * glibc, the kernel's mmap, the CUDA driver and the sanitizers' layouts leave
 * (tested on an H200 with and without torch: docs/kernel-replay.md). */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"

#define ARENA_BASE		0x200000000000ULL
#define ARENA_SIZE		(1ULL << 40)
#define CU_EVENT_DISABLE_TIMING 0x2

/* A piece of the arena in use: memory we created and mapped (h != 0), or a
 * range the program reserved and maps itself (h == 0). */
struct piece {
	CUdeviceptr lo;
	size_t size;
	CUmemGenericAllocationHandle h;
};

/* A free of stream-ordered memory waiting for its stream. */
struct pending {
	struct piece p;
	CUevent ev;
};

struct span {
	CUdeviceptr lo;
	size_t size;
};

static struct {
	pthread_mutex_t lock;
	int state; /* 0 not tried, 1 in use, -1 off */
	CUdeviceptr base;
	size_t size, gran;
	struct span *free; /* sorted by address, neighbours merged */
	size_t nfree, capfree;
	struct piece *used; /* sorted by address */
	size_t nused, capused;
	struct pending *pend;
	size_t npend, cappend;
	bool said_full, said_back;
} A = { .lock = PTHREAD_MUTEX_INITIALIZER };

typedef CUresult reserve_fn(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
typedef CUresult addrfree_fn(CUdeviceptr, size_t);
typedef CUresult gran_fn(size_t *, const CUmemAllocationProp *, int);
typedef CUresult create_fn(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
typedef CUresult release_fn(CUmemGenericAllocationHandle);
typedef CUresult map_fn(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
typedef CUresult unmap_fn(CUdeviceptr, size_t);
typedef CUresult access_fn(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
typedef CUresult ctxdev_fn(CUdevice *);
typedef CUresult sync_fn(void);
typedef CUresult evcreate_fn(CUevent *, unsigned);
typedef CUresult evrecord_fn(CUevent, CUstream);
typedef CUresult evquery_fn(CUevent);
typedef CUresult evdestroy_fn(CUevent);
typedef CUresult capturing_fn(CUstream, int *);

#define REAL(T, name) ((T *)rec_real(name))

static bool grow(void **p, size_t *cap, size_t want, size_t each)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (want <= *cap)
		return true;
	while (n < want)
		n *= 2;
	q = realloc(*p, n * each);
	if (!q)
		return false;
	*p = q;
	*cap = n;
	return true;
}

/* "1T", "64G", "0x1000000000": 0 when it is not a size. */
static unsigned long long parse_size(const char *s, char **end)
{
	static const char units[] = "KMGT";
	const char *u;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, end, 0);
	if (errno || *end == s)
		return 0;
	/* a binary suffix: K, M, G or T */
	u = **end ? strchr(units, toupper((unsigned char)**end)) : NULL;
	if (u) {
		unsigned shift = 10 * (unsigned)(u - units + 1);

		if (v >> (64 - shift))
			return 0;
		v <<= shift;
		(*end)++;
	}
	return v;
}

/* The arena asked for: false for "off" (or one that does not parse, said). */
static bool arena_wanted(unsigned long long *base, unsigned long long *size)
{
	const char *s = getenv("TLREPLAY_RECORD_ARENA");
	char *end;

	*base = ARENA_BASE;
	*size = ARENA_SIZE;
	if (!s || !*s)
		return true;
	if (!strcmp(s, "off"))
		return false;
	*base = parse_size(s, &end);
	if (*base && *end == ':')
		*size = parse_size(end + 1, &end);
	if (!*base || !*size || *end || *base + *size < *base) {
		rec_say("TLREPLAY_RECORD_ARENA=%s is not BASE[:SIZE] or off: no arena", s);
		return false;
	}
	return true;
}

static int cur_device(void)
{
	CUdevice d = 0;
	ctxdev_fn *f = REAL(ctxdev_fn, "cuCtxGetDevice");

	return f && !f(&d) ? d : 0;
}

static void prop_for(CUmemAllocationProp *prop, int dev)
{
	memset(prop, 0, sizeof(*prop));
	prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop->location.id = dev;
}

/* Called with the lock held, on the first allocation (a context exists). */
static void arena_start(void)
{
	unsigned long long base, size;
	reserve_fn *reserve = REAL(reserve_fn, "cuMemAddressReserve");
	addrfree_fn *addrfree = REAL(addrfree_fn, "cuMemAddressFree");
	gran_fn *granf = REAL(gran_fn, "cuMemGetAllocationGranularity");
	CUmemAllocationProp prop;
	CUdeviceptr got = 0;
	CUresult r;

	A.state = -1;
	if (!arena_wanted(&base, &size))
		return;
	if (!reserve || !addrfree || !granf || !REAL(create_fn, "cuMemCreate") || !REAL(map_fn, "cuMemMap") ||
	    !REAL(access_fn, "cuMemSetAccess")) {
		rec_say("the driver has no virtual memory API: no arena, device memory is where the driver puts it");
		return;
	}
	prop_for(&prop, cur_device());
	if (granf(&A.gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) || !A.gran || (A.gran & (A.gran - 1)) ||
	    base % A.gran || size % A.gran) {
		rec_say("the arena 0x%llx (%llu bytes) is not in whole granules of the driver (%zu): no arena", base,
			size, A.gran);
		return;
	}
	r = reserve(&got, size, A.gran, base, 0);
	if (r || got != base) {
		if (!r)
			addrfree(got, size);
		rec_say("cannot have the arena 0x%llx-0x%llx (the driver %s 0x%llx): device memory is where the "
			"driver puts it, and replay needs those addresses free (--arena BASE[:SIZE] picks another)",
			base, base + size, r ? "failed, error" : "offered",
			r ? (unsigned long long)r : (unsigned long long)got);
		return;
	}
	A.free = malloc(sizeof(*A.free));
	if (!A.free) {
		addrfree(got, size);
		return;
	}
	A.free[0].lo = base;
	A.free[0].size = size;
	A.nfree = A.capfree = 1;
	A.base = base;
	A.size = size;
	A.state = 1;
	if (getenv("TLREPLAY_RECORD_DEBUG"))
		rec_say("arena 0x%llx-0x%llx", base, base + size);
}

/* Give [lo, lo+size) back, merging with its neighbours. */
static void give(CUdeviceptr lo, size_t size)
{
	size_t i = 0;

	while (i < A.nfree && A.free[i].lo < lo)
		i++;
	if (i && A.free[i - 1].lo + A.free[i - 1].size == lo) {
		A.free[i - 1].size += size;
		if (i < A.nfree && lo + size == A.free[i].lo) {
			A.free[i - 1].size += A.free[i].size;
			memmove(&A.free[i], &A.free[i + 1], (A.nfree - i - 1) * sizeof(*A.free));
			A.nfree--;
		}
		return;
	}
	if (i < A.nfree && lo + size == A.free[i].lo) {
		A.free[i].lo = lo;
		A.free[i].size += size;
		return;
	}
	/* no room for a new span: the range is lost to the arena, not to the
	 * program (it is only addresses) */
	if (!grow((void **)&A.free, &A.capfree, A.nfree + 1, sizeof(*A.free)))
		return;
	memmove(&A.free[i + 1], &A.free[i], (A.nfree - i) * sizeof(*A.free));
	A.free[i].lo = lo;
	A.free[i].size = size;
	A.nfree++;
}

/* Take @size bytes aligned to @align from the free spans (first fit): the
 * span leaves the list and what is left of it on either side goes back. */
static CUdeviceptr take(size_t size, size_t align)
{
	size_t i;

	for (i = 0; i < A.nfree; i++) {
		struct span sp = A.free[i];
		CUdeviceptr lo = (sp.lo + align - 1) & ~(CUdeviceptr)(align - 1);
		size_t lead = lo - sp.lo;

		if (lo < sp.lo || lead > sp.size || sp.size - lead < size)
			continue;
		memmove(&A.free[i], &A.free[i + 1], (A.nfree - i - 1) * sizeof(*A.free));
		A.nfree--;
		if (lead)
			give(sp.lo, lead);
		if (sp.size - lead - size)
			give(lo + size, sp.size - lead - size);
		return lo;
	}
	return 0;
}

static size_t used_at(CUdeviceptr p, bool *found)
{
	size_t lo = 0, hi = A.nused;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (A.used[mid].lo < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < A.nused && A.used[lo].lo == p;
	return lo;
}

static bool used_add(const struct piece *pc)
{
	bool found;
	size_t i = used_at(pc->lo, &found);

	if (!grow((void **)&A.used, &A.capused, A.nused + 1, sizeof(*A.used)))
		return false;
	memmove(&A.used[i + 1], &A.used[i], (A.nused - i) * sizeof(*A.used));
	A.used[i] = *pc;
	A.nused++;
	return true;
}

static void used_remove(size_t i)
{
	memmove(&A.used[i], &A.used[i + 1], (A.nused - i - 1) * sizeof(*A.used));
	A.nused--;
}

/* Unmap and release a piece of memory and give its addresses back. */
static CUresult unback(const struct piece *pc)
{
	CUresult r = REAL(unmap_fn, "cuMemUnmap")(pc->lo, pc->size);

	if (r)
		return r;
	REAL(release_fn, "cuMemRelease")(pc->h);
	give(pc->lo, pc->size);
	return CUDA_SUCCESS;
}

/* Stream-ordered frees whose stream has passed them (all of them, waiting,
 * with @wait: before an allocation is refused for want of memory). */
static void reap(bool wait)
{
	evquery_fn *query = REAL(evquery_fn, "cuEventQuery");
	evdestroy_fn *destroy = REAL(evdestroy_fn, "cuEventDestroy_v2");
	sync_fn *sync = REAL(sync_fn, "cuCtxSynchronize");
	size_t i = 0;

	if (wait && A.npend && sync)
		sync();
	while (i < A.npend) {
		struct pending *q = &A.pend[i];

		if (query && query(q->ev) == CUDA_SUCCESS && !unback(&q->p)) {
			if (destroy)
				destroy(q->ev);
			A.pend[i] = A.pend[--A.npend];
			continue;
		}
		i++;
	}
}

/* Create @size bytes (whole granules) of device memory and map it at @lo. */
static CUresult back(CUdeviceptr lo, size_t size, CUmemGenericAllocationHandle *h)
{
	int dev = cur_device();
	CUmemAllocationProp prop;
	CUmemAccessDesc acc = { { CU_MEM_LOCATION_TYPE_DEVICE, dev }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	CUresult r;

	prop_for(&prop, dev);
	r = REAL(create_fn, "cuMemCreate")(h, size, &prop, 0);
	if (r)
		return r;
	r = REAL(map_fn, "cuMemMap")(lo, size, 0, *h, 0);
	if (r) {
		REAL(release_fn, "cuMemRelease")(*h);
		return r;
	}
	r = REAL(access_fn, "cuMemSetAccess")(lo, size, &acc, 1);
	if (r) {
		REAL(unmap_fn, "cuMemUnmap")(lo, size);
		REAL(release_fn, "cuMemRelease")(*h);
	}
	return r;
}

static bool ready(void)
{
	if (!A.state)
		arena_start();
	return A.state > 0;
}

static void say_full(size_t n)
{
	if (A.said_full)
		return;
	A.said_full = true;
	rec_say("the arena 0x%llx-0x%llx has no room for %zu bytes: this allocation and later ones it cannot "
		"hold come from the driver (--arena BASE:SIZE for a larger one)",
		(unsigned long long)A.base, (unsigned long long)(A.base + A.size), n);
}

bool rec_arena_alloc(CUdeviceptr *p, size_t n, CUstream s, bool stream_ordered, CUresult *res)
{
	struct piece pc = { 0, 0, 0 };
	bool served = false;
	int tries;

	if (!p || !n)
		return false;
	if (stream_ordered) {
		capturing_fn *cap = REAL(capturing_fn, "cuStreamIsCapturing");
		int st = 0;

		/* in a capture it becomes a graph's memory node: the driver's */
		if (!cap || cap(s, &st) || st)
			return false;
	}
	pthread_mutex_lock(&A.lock);
	if (!ready())
		goto out;
	reap(false);
	pc.size = (n + A.gran - 1) & ~(A.gran - 1);
	for (tries = 0; tries < 2; tries++) {
		pc.lo = take(pc.size, A.gran);
		if (!pc.lo) {
			say_full(n);
			goto out;
		}
		*res = back(pc.lo, pc.size, &pc.h);
		if (!*res)
			break;
		give(pc.lo, pc.size);
		if (*res != CUDA_ERROR_OUT_OF_MEMORY || !A.npend)
			break;
		reap(true);
	}
	if (*res && *res != CUDA_ERROR_OUT_OF_MEMORY) {
		/* the driver will not back the arena: it serves, as without us */
		if (!A.said_back) {
			A.said_back = true;
			rec_say("the arena's memory could not be created or mapped (error %d): allocations come from "
				"the driver",
				(int)*res);
		}
		goto out;
	}
	served = true;
	if (*res)
		goto out;
	if (!used_add(&pc)) {
		unback(&pc);
		*res = CUDA_ERROR_OUT_OF_MEMORY;
		goto out;
	}
	*p = pc.lo;
out:
	pthread_mutex_unlock(&A.lock);
	return served;
}

bool rec_arena_free(CUdeviceptr p, CUstream s, bool stream_ordered, CUresult *res)
{
	bool found = false;
	size_t i;

	pthread_mutex_lock(&A.lock);
	if (A.state <= 0 || p < A.base || p - A.base >= A.size)
		goto out;
	found = true;
	i = used_at(p, &found);
	if (!found || !A.used[i].h) {
		/* inside the arena but not an allocation of it: as the driver says */
		found = true;
		*res = CUDA_ERROR_INVALID_VALUE;
		goto out;
	}
	if (stream_ordered) {
		evcreate_fn *create = REAL(evcreate_fn, "cuEventCreate");
		evrecord_fn *record = REAL(evrecord_fn, "cuEventRecord");
		struct pending q = { A.used[i], NULL };

		*res = create ? create(&q.ev, CU_EVENT_DISABLE_TIMING) : CUDA_ERROR_NOT_INITIALIZED;
		if (!*res && (*res = record(q.ev, s)))
			REAL(evdestroy_fn, "cuEventDestroy_v2")(q.ev);
		if (!*res && !grow((void **)&A.pend, &A.cappend, A.npend + 1, sizeof(*A.pend))) {
			REAL(evdestroy_fn, "cuEventDestroy_v2")(q.ev);
			*res = CUDA_ERROR_OUT_OF_MEMORY;
		}
		if (*res)
			goto out;
		A.pend[A.npend++] = q;
		used_remove(i);
		goto out;
	}
	/* cuMemFree waits for the work that may use the memory; unmapping
	 * does not, so the context finishes first */
	*res = REAL(sync_fn, "cuCtxSynchronize")();
	if (!*res && !(*res = unback(&A.used[i])))
		used_remove(i);
out:
	pthread_mutex_unlock(&A.lock);
	return found;
}

bool rec_arena_reserve(CUdeviceptr *p, size_t size, size_t align, CUresult *res)
{
	struct piece pc = { 0, size, 0 };
	bool served = false;

	if (!p || !size)
		return false;
	pthread_mutex_lock(&A.lock);
	if (!ready() || size % A.gran || (align & (align - 1)))
		goto out;
	pc.lo = take(size, align > A.gran ? align : A.gran);
	if (!pc.lo) {
		say_full(size);
		goto out;
	}
	if (!used_add(&pc)) {
		give(pc.lo, pc.size);
		goto out;
	}
	served = true;
	*res = CUDA_SUCCESS;
	*p = pc.lo;
out:
	pthread_mutex_unlock(&A.lock);
	return served;
}

bool rec_arena_address_free(CUdeviceptr p, size_t size, CUresult *res)
{
	bool found = false;
	size_t i;

	pthread_mutex_lock(&A.lock);
	if (A.state <= 0 || p < A.base || p - A.base >= A.size)
		goto out;
	i = used_at(p, &found);
	found = true;
	if (i >= A.nused || A.used[i].lo != p || A.used[i].h || A.used[i].size != size) {
		*res = CUDA_ERROR_INVALID_VALUE;
		goto out;
	}
	give(p, size);
	used_remove(i);
	*res = CUDA_SUCCESS;
out:
	pthread_mutex_unlock(&A.lock);
	return found;
}

bool rec_arena_range(CUdeviceptr *base, size_t *size)
{
	bool on;

	pthread_mutex_lock(&A.lock);
	on = A.state > 0;
	*base = A.base;
	*size = A.size;
	pthread_mutex_unlock(&A.lock);
	return on;
}
