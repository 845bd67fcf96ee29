/* SPDX-License-Identifier: MIT */
/* Replaying one recorded launch in this process: every recorded allocation
 * goes back to its address (cuMemAddressReserve at that address, memory
 * mapped there), so the argument buffer and the pointers stored in device
 * memory mean what they meant when recorded; then the module is loaded from
 * its blob and the kernel launched as often as asked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_internal.h"
#include "kreplay/kreplay_internal.h"

/* A granularity-aligned range made of the recorded allocations in it. */
struct region {
	CUdeviceptr lo;
	size_t size;
	CUmemGenericAllocationHandle h;
	bool reserved, created, mapped;
	size_t first_mem;	/* the first allocation in it, for messages */
};

struct tl_kreplay {
	const struct tl_kdb *db;
	const struct tl_kdb_launch *l;
	struct kdrv d;
	CUdevice dev;
	CUcontext ctx;
	char device[256];
	struct region *regions;
	size_t nregions;
	CUdeviceptr arena; /* the part of the recorder's arena reserved */
	size_t arena_len;
	struct kblob *before, *after;	/* one per allocation */
	bool *changed;			/* after != before */
	struct kblob module, params;
	CUmodule mod;
	CUfunction fn;
	CUstream stream;
	CUevent ev[2];
	CUdeviceptr flush;		/* --flush-l2's buffer */
	size_t flush_len;
	int shared_limit;		/* the dynamic shared memory now allowed */
	bool non_portable_set;		/* the non-portable cluster attribute set */
};

static const char *kind_err(const struct tl_kdb_launch *l, size_t i)
{
	static __thread char buf[160];

	snprintf(buf, sizeof(buf), "allocation %zu (0x%llx, %llu bytes, %s)", i, (unsigned long long)l->mem[i].base,
		 (unsigned long long)l->mem[i].size, l->mem[i].kind);
	return buf;
}

/* Group the allocations into granularity-aligned regions: small
 * allocations share pages (the driver sub-allocates them), and a range can
 * only be reserved and mapped in whole granules. */
static int plan_regions(struct tl_kreplay *k, size_t gran)
{
	const struct tl_kdb_launch *l = k->l;
	size_t i, cap = 0;

	for (i = 0; i < l->nmem; i++) {
		CUdeviceptr lo = l->mem[i].base & ~(CUdeviceptr)(gran - 1);
		CUdeviceptr hi = (l->mem[i].base + l->mem[i].size + gran - 1) & ~(CUdeviceptr)(gran - 1);
		struct region *last = k->nregions ? &k->regions[k->nregions - 1] : NULL;

		if (last && lo <= last->lo + last->size) {
			if (hi > last->lo + last->size)
				last->size = hi - last->lo;
			continue;
		}
		if (tl_grow((void **)&k->regions, &cap, k->nregions + 1, sizeof(*k->regions)))
			return -ENOMEM;
		memset(&k->regions[k->nregions], 0, sizeof(*k->regions));
		k->regions[k->nregions].lo = lo;
		k->regions[k->nregions].size = hi - lo;
		k->regions[k->nregions].first_mem = i;
		k->nregions++;
	}
	return 0;
}

/* The recording's memory that came from the recorder's arena lies in one
 * range at the arena's base, chosen to be free in a fresh process: reserve
 * that range (as far as the recorded memory reaches) before anything else. */
static int reserve_arena(struct tl_kreplay *k, size_t gran)
{
	const struct tl_kdb_launch *l = k->l;
	CUdeviceptr hi = 0, got = 0;
	CUresult cr;
	size_t i;

	for (i = 0; l->arena_size && i < l->nmem; i++) {
		CUdeviceptr end = (l->mem[i].base + l->mem[i].size + gran - 1) & ~(CUdeviceptr)(gran - 1);

		if (l->mem[i].base >= l->arena_base && l->mem[i].base - l->arena_base < l->arena_size && end > hi)
			hi = end;
	}
	if (!hi)
		return 0;
	if (l->arena_base % gran)
		return tl_err(-EINVAL, "the recorder's arena at 0x%llx is not aligned to this driver's granularity %zu",
			      (unsigned long long)l->arena_base, gran);
	cr = k->d.MemAddressReserve(&got, hi - l->arena_base, gran, l->arena_base, 0);
	if (cr == CUDA_SUCCESS && got != l->arena_base)
		k->d.MemAddressFree(got, hi - l->arena_base);
	if (cr != CUDA_SUCCESS || got != l->arena_base)
		return tl_err(-EADDRINUSE,
			      "cannot have the recorder's arena 0x%llx-0x%llx (the part the recording used) in this "
			      "process: the driver %s 0x%llx",
			      (unsigned long long)l->arena_base, (unsigned long long)hi,
			      cr ? "failed, error" : "offered", cr ? (unsigned long long)cr : (unsigned long long)got);
	k->arena = l->arena_base;
	k->arena_len = hi - l->arena_base;
	return 0;
}

/* Reserve @r at its recorded address. */
static int reserve_region(struct tl_kreplay *k, struct region *r, size_t gran)
{
	CUdeviceptr got = 0;
	CUresult cr = k->d.MemAddressReserve(&got, r->size, gran, r->lo, 0);

	if (cr == CUDA_SUCCESS && got != r->lo)
		k->d.MemAddressFree(got, r->size);
	if (cr != CUDA_SUCCESS || got != r->lo)
		return tl_err(
			-EADDRINUSE,
			"cannot have 0x%llx-0x%llx at its address for %s: the range is taken in this process (the "
			"driver offered 0x%llx)",
			(unsigned long long)r->lo, (unsigned long long)(r->lo + r->size), kind_err(k->l, r->first_mem),
			(unsigned long long)got);
	r->reserved = true;
	return 0;
}

static int map_regions(struct tl_kreplay *k)
{
	CUmemAllocationProp prop = { 0 };
	CUmemAccessDesc acc = { { CU_MEM_LOCATION_TYPE_DEVICE, k->dev }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	size_t gran = 0, i;
	char what[256];
	int err;

	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = k->dev;
	if ((err = kdrv_check(&k->d, k->d.MemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
			      "cuMemGetAllocationGranularity")))
		return err;
	if (!gran || (gran & (gran - 1)))
		return tl_err(-EIO, "the driver's allocation granularity %zu is not a power of two", gran);
	if ((err = plan_regions(k, gran)) || (err = reserve_arena(k, gran)))
		return err;
	for (i = 0; i < k->nregions; i++) {
		struct region *r = &k->regions[i];
		bool in_arena = k->arena_len && r->lo >= k->arena && r->lo + r->size <= k->arena + k->arena_len;

		/* a range in the arena lies in its reservation already */
		if (!in_arena && (err = reserve_region(k, r, gran)))
			return err;
		snprintf(what, sizeof(what), "cuMemCreate(%zu bytes) for 0x%llx", r->size, (unsigned long long)r->lo);
		if ((err = kdrv_check(&k->d, k->d.MemCreate(&r->h, r->size, &prop, 0), what)))
			return err;
		r->created = true;
		snprintf(what, sizeof(what), "cuMemMap at 0x%llx", (unsigned long long)r->lo);
		if ((err = kdrv_check(&k->d, k->d.MemMap(r->lo, r->size, 0, r->h, 0), what)))
			return err;
		r->mapped = true;
		if ((err = kdrv_check(&k->d, k->d.MemSetAccess(r->lo, r->size, &acc, 1), "cuMemSetAccess")))
			return err;
	}
	return 0;
}

/* Put the recorded inputs back: every allocation (@all), or those the
 * kernel changed when recorded. */
static int restore(struct tl_kreplay *k, bool all)
{
	size_t i;
	int err;

	for (i = 0; i < k->l->nmem; i++) {
		if (!all && !k->changed[i])
			continue;
		if ((err = kdrv_check(&k->d, k->d.MemcpyHtoD(k->l->mem[i].base, k->before[i].p, k->before[i].len),
				      "restoring device memory")))
			return tl_err(err, "restoring %s: %s", kind_err(k->l, i), tl_last_error());
	}
	return 0;
}

static int load_blobs(struct tl_kreplay *k)
{
	const struct tl_kdb_launch *l = k->l;
	size_t i;
	int err;

	k->before = calloc(l->nmem ? l->nmem : 1, sizeof(*k->before));
	k->after = calloc(l->nmem ? l->nmem : 1, sizeof(*k->after));
	k->changed = calloc(l->nmem ? l->nmem : 1, sizeof(*k->changed));
	if (!k->before || !k->after || !k->changed)
		return -ENOMEM;
	if ((err = kblob_map(k->db, l->module_blob, l->module_size, &k->module)) ||
	    (err = kblob_map(k->db, l->params_blob, l->params_size, &k->params)))
		return err;
	for (i = 0; i < l->nmem; i++) {
		if ((err = kblob_map(k->db, l->mem[i].before, l->mem[i].size, &k->before[i])) ||
		    (err = kblob_map(k->db, l->mem[i].after, l->mem[i].size, &k->after[i])))
			return err;
		k->changed[i] = strcmp(l->mem[i].before, l->mem[i].after) != 0;
	}
	return 0;
}

int tl_kreplay_open(const struct tl_kdb *db, size_t i, int device, struct tl_kreplay **out)
{
	struct tl_kreplay *k;
	const struct tl_kdb_launch *l = tl_kdb_launch(db, i);
	char what[4300];
	int err;

	*out = NULL;
	if (!l)
		return tl_err(-EINVAL, "%s: no launch %zu (the database has %zu)", tl_kdb_dir(db), i, tl_kdb_count(db));
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->db = db;
	k->l = l;
	if ((err = kdrv_load(&k->d)))
		goto fail;
	snprintf(what, sizeof(what), "device %d", device);
	if ((err = kdrv_check(&k->d, k->d.DeviceGet(&k->dev, device), what)))
		goto fail;
	if ((err = kdrv_check(&k->d, k->d.PrimaryCtxRetain(&k->ctx, k->dev), "cuDevicePrimaryCtxRetain")) ||
	    (err = kdrv_check(&k->d, k->d.CtxSetCurrent(k->ctx), "cuCtxSetCurrent")))
		goto fail;
	k->d.DeviceGetName(k->device, sizeof(k->device) - 1, k->dev);
	/* the recorded ranges first, before anything of ours takes addresses:
	 * the saved files are mapped after (a host mapping of a big blob could
	 * land where a device range must go: one address space under UVA) */
	if ((err = map_regions(k)) || (err = load_blobs(k)) || (err = restore(k, true)))
		goto fail;
	if ((err = kdrv_check(&k->d, k->d.ModuleLoadData(&k->mod, k->module.p), "loading the recorded module")))
		goto fail;
	snprintf(what, sizeof(what), "the recorded module has no function %s", l->kernel);
	if ((err = kdrv_check(&k->d, k->d.ModuleGetFunction(&k->fn, k->mod, l->kernel), what)))
		goto fail;
	if ((err = kdrv_check(&k->d, k->d.StreamCreate(&k->stream, 0), "cuStreamCreate")) ||
	    (err = kdrv_check(&k->d, k->d.EventCreate(&k->ev[0], 0), "cuEventCreate")) ||
	    (err = kdrv_check(&k->d, k->d.EventCreate(&k->ev[1], 0), "cuEventCreate")))
		goto fail;
	*out = k;
	return 0;
fail:
	tl_kreplay_close(k);
	return err;
}

void tl_kreplay_close(struct tl_kreplay *k)
{
	size_t i;

	if (!k)
		return;
	if (k->d.dl) {
		if (k->ctx)
			k->d.CtxSynchronize();
		if (k->flush)
			k->d.MemFree(k->flush);
		for (i = 0; i < 2; i++)
			if (k->ev[i])
				k->d.EventDestroy(k->ev[i]);
		if (k->stream)
			k->d.StreamDestroy(k->stream);
		if (k->mod)
			k->d.ModuleUnload(k->mod);
		for (i = 0; i < k->nregions; i++) {
			struct region *r = &k->regions[i];

			if (r->mapped)
				k->d.MemUnmap(r->lo, r->size);
			if (r->created)
				k->d.MemRelease(r->h);
			if (r->reserved)
				k->d.MemAddressFree(r->lo, r->size);
		}
		if (k->arena_len)
			k->d.MemAddressFree(k->arena, k->arena_len);
		if (k->ctx)
			k->d.PrimaryCtxRelease(k->dev);
		kdrv_unload(&k->d);
	}
	for (i = 0; k->before && i < k->l->nmem; i++) {
		kblob_unmap(&k->before[i]);
		kblob_unmap(&k->after[i]);
	}
	kblob_unmap(&k->module);
	kblob_unmap(&k->params);
	free(k->before);
	free(k->after);
	free(k->changed);
	free(k->regions);
	free(k);
}

const char *tl_kreplay_device(const struct tl_kreplay *k)
{
	return k->device;
}

/* The configuration to launch: @c's values, the recorded ones where 0. */
static void resolve(const struct tl_kreplay *k, const struct tl_kconfig *c, struct tl_kconfig *out)
{
	int i;

	*out = c ? *c : (struct tl_kconfig){ { 0 }, { 0 }, 0, false };
	for (i = 0; i < 3; i++) {
		if (!out->grid[i])
			out->grid[i] = k->l->grid[i];
		if (!out->block[i])
			out->block[i] = k->l->block[i];
	}
	if (!out->shared_set)
		out->shared_bytes = k->l->shared_bytes;
}

static const struct tl_kdb_attr *attr_of(const struct tl_kdb_launch *l, int id)
{
	size_t i;

	for (i = 0; i < l->nattrs; i++)
		if (l->attrs[i].id == id)
			return &l->attrs[i];
	return NULL;
}

int tl_kreplay_check(struct tl_kreplay *k, const struct tl_kconfig *c)
{
	struct tl_kconfig r;
	const struct tl_kdb_attr *cluster = attr_of(k->l, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
	int max_threads = 0, optin = 0, lim[3] = { 0 }, i;
	unsigned long long threads;

	resolve(k, c, &r);
	threads = (unsigned long long)r.block[0] * r.block[1] * r.block[2];
	k->d.FuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn);
	if (max_threads > 0 && threads > (unsigned long long)max_threads)
		return tl_err(-EINVAL, "block %ux%ux%u has %llu threads; %s takes at most %d per block", r.block[0],
			      r.block[1], r.block[2], threads, k->l->kernel, max_threads);
	k->d.DeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, k->dev);
	if (optin > 0 && r.shared_bytes > (unsigned)optin)
		return tl_err(-EINVAL, "%u bytes of dynamic shared memory; the device allows %d per block",
			      r.shared_bytes, optin);
	k->d.DeviceGetAttribute(&lim[0], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, k->dev);
	k->d.DeviceGetAttribute(&lim[1], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, k->dev);
	k->d.DeviceGetAttribute(&lim[2], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, k->dev);
	for (i = 0; i < 3; i++) {
		if (lim[i] > 0 && r.grid[i] > (unsigned)lim[i])
			return tl_err(-EINVAL, "grid %ux%ux%u exceeds the device's %d in dimension %c", r.grid[0],
				      r.grid[1], r.grid[2], lim[i], "xyz"[i]);
	}
	if (cluster) {
		unsigned cd[3];

		memcpy(cd, cluster->value, sizeof(cd));
		for (i = 0; i < 3; i++)
			if (cd[i] && r.grid[i] % cd[i])
				return tl_err(-EINVAL, "grid %ux%ux%u is not a multiple of the kernel's cluster %ux%ux%u",
					      r.grid[0], r.grid[1], r.grid[2], cd[0], cd[1], cd[2]);
	}
	return 0;
}

/* One launch on our stream, with the recorded argument buffer. */
static int launch(struct tl_kreplay *k, const struct tl_kconfig *r)
{
	size_t size = k->params.len;
	void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, (void *)k->params.p, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
			  CU_LAUNCH_PARAM_END };
	int want = (int)r->shared_bytes > k->l->max_dynamic_shared ? (int)r->shared_bytes : k->l->max_dynamic_shared;
	bool coop = !strncmp(k->l->api, "cuLaunchCooperativeKernel", 25);
	CUresult cr;
	int err;

	/* kernels with more than 48 KiB of dynamic shared memory were allowed
	 * it by the program (cuFuncSetAttribute); so are they here */
	if (want > 48 * 1024 && want != k->shared_limit) {
		if ((err = kdrv_check(&k->d,
				      k->d.FuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, want),
				      "allowing the dynamic shared memory")))
			return err;
		k->shared_limit = want;
	}
	/* clusters over 8 blocks: the function allowed them in the program */
	if (k->l->non_portable_cluster && !k->non_portable_set) {
		if ((err = kdrv_check(&k->d,
				      k->d.FuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
							    1),
				      "allowing non-portable cluster sizes")))
			return err;
		k->non_portable_set = true;
	}
	if (k->l->nattrs || coop) {
		CUlaunchAttribute attrs[17];
		CUlaunchConfig cfg = { r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1], r->block[2],
				       r->shared_bytes, k->stream, attrs, 0 };
		size_t i;

		if (!k->d.LaunchKernelEx)
			return tl_err(-ENOTSUP,
				      "%s: the driver has no cuLaunchKernelEx (CUDA 11.8 and newer) to launch "
				      "with the recorded attributes%s",
				      k->l->kernel, coop ? " (cooperative)" : "");
		for (i = 0; i < k->l->nattrs && i < 16; i++) {
			memset(&attrs[i], 0, sizeof(attrs[i]));
			attrs[i].id = k->l->attrs[i].id;
			memcpy(attrs[i].value, k->l->attrs[i].value, sizeof(attrs[i].value));
		}
		/* a recording of cuLaunchCooperativeKernel from before the recorder
		 * said it as the attribute */
		if (coop && !attr_of(k->l, CU_LAUNCH_ATTRIBUTE_COOPERATIVE)) {
			memset(&attrs[i], 0, sizeof(attrs[i]));
			attrs[i].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
			attrs[i++].value[0] = 1;
		}
		cfg.numAttrs = (unsigned)i;
		cr = k->d.LaunchKernelEx(&cfg, k->fn, NULL, extra);
	} else {
		cr = k->d.LaunchKernel(k->fn, r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1], r->block[2],
				       r->shared_bytes, k->stream, NULL, extra);
	}
	return kdrv_check(&k->d, cr, k->l->kernel);
}

/* Evict the L2 cache: write a buffer twice its size. */
static int flush_l2(struct tl_kreplay *k)
{
	int l2 = 0, err;

	if (!k->flush) {
		k->d.DeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, k->dev);
		k->flush_len = (size_t)(l2 > 0 ? l2 : 64 << 20) * 2;
		if ((err = kdrv_check(&k->d, k->d.MemAlloc(&k->flush, k->flush_len), "allocating the L2 flush buffer")))
			return err;
	}
	return kdrv_check(&k->d, k->d.MemsetD8(k->flush, 0x5a, k->flush_len), "flushing the L2 cache");
}

int tl_kreplay_time(struct tl_kreplay *k, const struct tl_kconfig *c, unsigned warmup, unsigned reps,
		    bool flush, double *ms, void (*region)(int begin, void *ctx), void *ctx)
{
	struct tl_kconfig r;
	unsigned i;
	int err = 0;

	if ((err = tl_kreplay_check(k, c)))
		return err;
	resolve(k, c, &r);
	for (i = 0; i < warmup + reps && !err; i++) {
		float t = 0;

		if ((err = restore(k, false)) || (flush && (err = flush_l2(k))) ||
		    (err = kdrv_check(&k->d, k->d.CtxSynchronize(), "cuCtxSynchronize")))
			break;
		if (i == warmup && region)
			region(1, ctx);
		if ((err = kdrv_check(&k->d, k->d.EventRecord(k->ev[0], k->stream), "cuEventRecord")) ||
		    (err = launch(k, &r)) ||
		    (err = kdrv_check(&k->d, k->d.EventRecord(k->ev[1], k->stream), "cuEventRecord")) ||
		    (err = kdrv_check(&k->d, k->d.EventSynchronize(k->ev[1]), k->l->kernel)) ||
		    (err = kdrv_check(&k->d, k->d.EventElapsedTime(&t, k->ev[0], k->ev[1]), "cuEventElapsedTime")))
			break;
		if (i >= warmup)
			ms[i - warmup] = t;
	}
	if (region && warmup + reps > warmup && i > warmup)
		region(0, ctx);
	return err;
}

int tl_kreplay_once(struct tl_kreplay *k, const struct tl_kconfig *c)
{
	struct tl_kconfig r;
	int err;

	if ((err = tl_kreplay_check(k, c)))
		return err;
	resolve(k, c, &r);
	if ((err = restore(k, false)) || (err = kdrv_check(&k->d, k->d.CtxSynchronize(), "cuCtxSynchronize")) ||
	    (err = launch(k, &r)))
		return err;
	return kdrv_check(&k->d, k->d.StreamSynchronize(k->stream), k->l->kernel);
}

#define VCHUNK ((size_t)64 << 20)

int tl_kreplay_verify(struct tl_kreplay *k, const struct tl_kconfig *c, enum tl_kdtype dt, double tol,
		      struct tl_kverify *out)
{
	unsigned char *buf = NULL;
	size_t i, cap = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = tl_kreplay_once(k, c)))
		return err;
	buf = malloc(VCHUNK);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < k->l->nmem && !err; i++) {
		const struct tl_kdb_mem *m = &k->l->mem[i];
		struct tl_kdiff d = { m->base, m->size, 0, 0, 0, 0 };
		uint64_t off;

		for (off = 0; off < m->size; off += VCHUNK) {
			size_t n = m->size - off < VCHUNK ? (size_t)(m->size - off) : VCHUNK;

			if ((err = kdrv_check(&k->d, k->d.MemcpyDtoH(buf, m->base + off, n), "reading device memory")))
				break;
			kverify_piece(buf, k->after[i].p + off, n, off, dt, tol, &d);
			out->compared += n;
		}
		if (!err && d.bytes && (dt == TL_KDT_BYTES || d.elems)) {
			if (tl_grow((void **)&out->diffs, &cap, out->ndiffs + 1, sizeof(*out->diffs)))
				err = -ENOMEM;
			else
				out->diffs[out->ndiffs++] = d;
		}
	}
	free(buf);
	if (err)
		tl_kverify_clear(out);
	return err;
}

void tl_kverify_clear(struct tl_kverify *v)
{
	free(v->diffs);
	memset(v, 0, sizeof(*v));
}
