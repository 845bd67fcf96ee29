/* SPDX-License-Identifier: MIT */
/* The recording of one launch. Every launch is counted by kernel name (the
 * ordinal `tlreplay record --uid` asks for is the trace's count of that
 * name); the selected ones are recorded: the device is synchronised, the
 * live allocations copied to blobs, the kernel launched as the program
 * asked, synchronised again, and the allocations it changed stored once
 * more. Launches that are not selected go straight to the driver: the
 * recorder never touches their memory or their streams. */
#include <errno.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rec.h"

/* ---- what to record ($TLREPLAY_RECORD_*, set by `tlreplay record`) */
static struct {
	bool on;		/* a DB and a selector */
	bool have_re;
	regex_t re;		/* TLREPLAY_RECORD_KERNEL */
	char *name;		/* TLREPLAY_RECORD_NAME, spaces removed */
	unsigned long nth, count;	/* record matches nth .. nth+count-1 (count 0: all) */
	bool args_only;		/* TLREPLAY_RECORD_ARGS_ONLY: memory reachable from the arguments */
	unsigned long matched;	/* matching launches so far */
	unsigned seq;		/* launches recorded */
} sel;
static pthread_once_t sel_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t sel_lock = PTHREAD_MUTEX_INITIALIZER;
/* one recording at a time: they synchronise the whole device */
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;

static char *squeeze(const char *s)
{
	char *o = malloc(strlen(s) + 1), *q = o;

	if (!o)
		return NULL;
	for (; *s; s++)
		if (*s != ' ' && *s != '\t')
			*q++ = *s;
	*q = 0;
	return o;
}

static void sel_init(void)
{
	const char *re = getenv("TLREPLAY_RECORD_KERNEL"), *name = getenv("TLREPLAY_RECORD_NAME");
	const char *nth = getenv("TLREPLAY_RECORD_NTH"), *count = getenv("TLREPLAY_RECORD_COUNT");
	const char *args = getenv("TLREPLAY_RECORD_ARGS_ONLY");

	if (!rec_db_dir())
		return;
	/* a demangled name ("f<int>(float*, int)") is no regular expression
	 * (or not the one meant): the pattern also matches as a whole name */
	if (re && *re) {
		if (!regcomp(&sel.re, re, REG_EXTENDED | REG_NOSUB))
			sel.have_re = true;
		if (!name || !*name)
			name = re;
	}
	if (name && *name)
		sel.name = squeeze(name);
	sel.nth = nth ? strtoul(nth, NULL, 10) : 0;
	sel.count = count ? strtoul(count, NULL, 10) : 1;
	sel.args_only = args && *args == '1';
	sel.on = sel.have_re || sel.name;
}

/* __cxa_demangle, looked up once by whichever thread launches first */
typedef char *cxa_fn(const char *, char *, size_t *, int *);
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;
static cxa_fn *cxa;

static void cxa_find(void)
{
	cxa = (cxa_fn *)rec_real_global("__cxa_demangle");
}

/* The demangled form of @name into @out (the name itself when it is not a
 * C++ name or the program has no C++ runtime to ask). */
static void demangle(const char *name, char *out, size_t len)
{
	int status = -1;
	char *d = NULL;

	pthread_once(&cxa_once, cxa_find);
	if (cxa && name[0] == '_' && name[1] == 'Z')
		d = cxa(name, NULL, NULL, &status);
	snprintf(out, len, "%s", d && !status ? d : name);
	free(d);
}

static bool matches(const char *mangled, const char *demangled)
{
	bool ok = false;

	if (sel.have_re)
		ok = !regexec(&sel.re, demangled, 0, NULL, 0) || !regexec(&sel.re, mangled, 0, NULL, 0);
	if (!ok && sel.name) {
		char *a = squeeze(demangled);

		ok = !strcmp(sel.name, mangled) || (a && !strcmp(sel.name, a));
		free(a);
	}
	return ok;
}

/* ---- the driver calls a recording makes */
typedef CUresult sync_fn(void);
typedef CUresult capturing_fn(CUstream, int *);
typedef CUresult dtoh_fn(void *, CUdeviceptr, size_t);
typedef CUresult getparam_fn(CUfunction, size_t, size_t *, size_t *);
typedef CUresult kgetfn_fn(CUfunction *, CUkernel);
typedef CUresult funcattr_fn(int *, int, CUfunction);
typedef CUresult getname_fn(const char **, CUfunction);
typedef CUresult ctxdev_fn(CUdevice *);
typedef CUresult devname_fn(char *, int, CUdevice);
typedef CUresult devattr_fn(int *, int, CUdevice);
typedef CUresult drvver_fn(int *);

#define REAL(T, name) ((T *)rec_real(name))

/* ---- the argument buffer */
struct params {
	unsigned char *buf;
	size_t size;
	size_t (*layout)[2];	/* offset, size per parameter */
	size_t n;
};

static int params_layout(CUfunction f, struct params *p)
{
	getparam_fn *info = REAL(getparam_fn, "cuFuncGetParamInfo");
	size_t off, size;

	if (!info)
		return -ENOSYS;
	for (p->n = 0;; p->n++) {
		CUresult r = info(f, p->n, &off, &size);
		void *grown;

		if (r == CUDA_ERROR_INVALID_VALUE && p->n)
			break;
		if (r)
			return r == CUDA_ERROR_INVALID_VALUE ? 0 : -ENOSYS;	/* no parameters, or no answer */
		grown = realloc(p->layout, (p->n + 1) * sizeof(*p->layout));
		if (!grown)
			return -ENOMEM;
		p->layout = grown;
		p->layout[p->n][0] = off;
		p->layout[p->n][1] = size;
		if (off + size > p->size)
			p->size = off + size;
	}
	return 0;
}

/* The layout from the image's .nv.info, for drivers without
 * cuFuncGetParamInfo. */
static int params_layout_image(const struct rec_image *img, const char *name, int arch, struct params *p)
{
	size_t (*lay)[2] = NULL, n = 0, i;

	if (!img->data || rec_nvinfo_layout(img->data, img->len, img->kind, name, arch, &lay, &n))
		return -ENOSYS;
	free(p->layout);
	p->layout = lay;
	p->n = n;
	p->size = 0;
	for (i = 0; i < n; i++)
		if (lay[i][0] + lay[i][1] > p->size)
			p->size = lay[i][0] + lay[i][1];
	return 0;
}

/* The bytes the kernel receives: `extra`'s buffer as given, or the
 * kernelParams packed by the driver's layout (or the image's). */
static int params_get(const struct rec_launch *l, CUfunction f, const struct rec_image *img, const char *name,
		      int arch, struct params *p)
{
	void *ptr = NULL;
	size_t size = 0, i;
	int err;

	for (i = 0; l->extra && l->extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
		if (l->extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
			ptr = l->extra[i + 1];
		else if (l->extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
			size = *(size_t *)l->extra[i + 1];
	}
	err = params_layout(f, p);
	if (err == -ENOSYS)
		err = params_layout_image(img, name, arch, p);
	if (ptr) {
		p->size = size;
		p->buf = malloc(size ? size : 1);
		if (!p->buf)
			return -ENOMEM;
		memcpy(p->buf, ptr, size);
		return 0;
	}
	if (err)
		return err;
	p->buf = calloc(1, p->size ? p->size : 1);
	if (!p->buf)
		return -ENOMEM;
	for (i = 0; i < p->n && l->params; i++)
		memcpy(p->buf + p->layout[i][0], l->params[i], p->layout[i][1]);
	return 0;
}

/* ---- memory */
#define CHUNK ((size_t)64 << 20)

struct mem {
	struct rec_alloc a;
	char before[65], after[65];
	bool saved;
};

/* Copy [base, base+size) to a blob (@write) or only hash it. The chunk
 * buffer @buf holds CHUNK bytes; @scan, when set, is called on each chunk. */
static int copy_out(const struct rec_alloc *a, bool write, unsigned char *buf, char hex[65],
		    void (*scan)(const unsigned char *, size_t, void *), void *sctx)
{
	dtoh_fn *dtoh = REAL(dtoh_fn, "cuMemcpyDtoH_v2");
	struct rec_blob *b = rec_blob_begin(write);
	size_t off;
	int err = 0;

	if (!b)
		return -ENOMEM;
	for (off = 0; off < a->size && !err; off += CHUNK) {
		size_t n = a->size - off < CHUNK ? a->size - off : CHUNK;
		CUresult r = dtoh ? dtoh(buf, a->base + off, n) : CUDA_ERROR_NOT_FOUND;

		if (r) {
			rec_say("cannot read device memory at 0x%llx (%zu bytes): driver error %d",
				(unsigned long long)(a->base + off), n, r);
			err = -EIO;
			break;
		}
		if (scan)
			scan(buf, n, sctx);
		err = rec_blob_add(b, buf, n);
	}
	if (err) {
		char ignore[65];

		rec_blob_end(b, ignore);
		return err;
	}
	return rec_blob_end(b, hex);
}

/* --args-only: the allocations reachable from the argument buffer through
 * 8-byte-aligned words that point into them, transitively (a kernel that
 * follows pointers stored in device memory gets what they point at). */
struct reach {
	struct mem *m;
	size_t n;
	bool *want;
	size_t *queue, nq;
};

static void reach_word(struct reach *r, uint64_t v)
{
	size_t lo = 0, hi = r->n;

	if (!r->n || v < r->m[0].a.base || v >= r->m[r->n - 1].a.base + r->m[r->n - 1].a.size)
		return;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->m[mid].a.base <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && v < r->m[lo - 1].a.base + r->m[lo - 1].a.size && !r->want[lo - 1]) {
		r->want[lo - 1] = true;
		r->queue[r->nq++] = lo - 1;
	}
}

static void reach_scan(const unsigned char *p, size_t n, void *ctx)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t v;

		memcpy(&v, p + i, 8);
		reach_word(ctx, v);
	}
}

/* Store the "before" contents of the allocations (all, or those reachable
 * from the arguments). */
static int save_before(struct mem *m, size_t n, const struct params *p, unsigned char *buf)
{
	struct reach r = { m, n, NULL, NULL, 0 };
	size_t i;
	int err = 0;

	if (!sel.args_only) {
		for (i = 0; i < n && !err; i++)
			if (!(err = copy_out(&m[i].a, true, buf, m[i].before, NULL, NULL)))
				m[i].saved = true;
		return err;
	}
	r.want = calloc(n ? n : 1, sizeof(*r.want));
	r.queue = malloc((n ? n : 1) * sizeof(*r.queue));
	if (!r.want || !r.queue) {
		err = -ENOMEM;
		goto out;
	}
	/* pointers in the argument buffer may sit at any 4-byte offset of a
	 * struct parameter; 8-byte alignment is what the ABI gives pointers */
	reach_scan(p->buf, p->size, &r);
	while (r.nq && !err) {
		i = r.queue[--r.nq];
		if (!(err = copy_out(&m[i].a, true, buf, m[i].before, reach_scan, &r)))
			m[i].saved = true;
	}
out:
	free(r.want);
	free(r.queue);
	return err;
}

static int save_after(struct mem *m, size_t n, unsigned char *buf)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		if (!m[i].saved)
			continue;
		err = copy_out(&m[i].a, false, buf, m[i].after, NULL, NULL);
		/* changed: store it (a second copy, to keep host memory small) */
		if (!err && strcmp(m[i].after, m[i].before))
			err = copy_out(&m[i].a, true, buf, m[i].after, NULL, NULL);
	}
	return err;
}

/* ---- the launch's JSON */
static const char *kind_name(enum rec_image_kind k)
{
	return k == REC_IMG_FATBIN ? "fatbin" : k == REC_IMG_CUBIN ? "cubin" : k == REC_IMG_PTX ? "ptx" : "other";
}

static const char *mem_kind(enum rec_mem_kind k)
{
	return k == REC_MEM_ASYNC ? "async" : k == REC_MEM_MAPPED ? "mapped" : "alloc";
}

static bool portable_attr(int id)
{
	switch (id) {
	case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
	case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
	case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
	case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
	case CU_LAUNCH_ATTRIBUTE_PRIORITY:
	case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
	case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
	case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
	case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
		return true;
	default:
		return false;	/* events and windows name this process's objects */
	}
}

struct device_info {
	char name[256];
	int major, minor, driver;
};

static void device_info(struct device_info *d)
{
	CUdevice dev = 0;

	memset(d, 0, sizeof(*d));
	if (REAL(ctxdev_fn, "cuCtxGetDevice") && REAL(ctxdev_fn, "cuCtxGetDevice")(&dev))
		dev = 0;
	if (REAL(devname_fn, "cuDeviceGetName"))
		REAL(devname_fn, "cuDeviceGetName")(d->name, sizeof(d->name) - 1, dev);
	if (REAL(devattr_fn, "cuDeviceGetAttribute")) {
		REAL(devattr_fn, "cuDeviceGetAttribute")(&d->major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
		REAL(devattr_fn, "cuDeviceGetAttribute")(&d->minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
	}
	if (REAL(drvver_fn, "cuDriverGetVersion"))
		REAL(drvver_fn, "cuDriverGetVersion")(&d->driver);
}

static char *launch_json(const struct rec_launch *l, const char *name, const char *demangled, unsigned long ordinal,
			 const struct rec_image *img, const char *img_hex, const struct params *p,
			 const char *params_hex, int max_dyn_shared, int non_portable, const struct mem *m, size_t n,
			 const struct rec_str *notes)
{
	struct rec_str b = { 0 };
	struct device_info d;
	char when[64];
	time_t now = time(NULL);
	struct tm tm;
	size_t i, k, arena_size;
	CUdeviceptr arena;
	unsigned seq = sel.seq;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	device_info(&d);
	rec_str_add(&b, "{\"v\":1,\"kernel\":");
	rec_str_json(&b, name);
	rec_str_add(&b, ",\"demangled\":");
	rec_str_json(&b, demangled);
	rec_str_add(&b, ",\"pid\":%d,\"seq\":%u,\"time\":\"%s\",\"ordinal\":%lu,\"api\":\"%s\",", (int)getpid(),
		    seq, when, ordinal, l->api);
	rec_str_add(&b, "\"module\":{\"blob\":\"%s\",\"size\":%zu,\"kind\":\"%s\"},", img_hex, img->len,
		    kind_name(img->kind));
	rec_str_add(&b, "\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],\"shared_bytes\":%u,", l->grid[0], l->grid[1],
		    l->grid[2], l->block[0], l->block[1], l->block[2], l->shared);
	/* a stream handle means nothing in another process: what kind it was */
	rec_str_add(&b, "\"stream\":\"%s\",",
		    l->stream ? "created" : strstr(l->api, "_ptsz") ? "per-thread default" : "legacy default");
	/* clusters over 8 blocks need the function's non-portable attribute
	 * (Triton sets it): replay sets it too */
	rec_str_add(&b, "\"max_dynamic_shared_bytes\":%d,\"non_portable_cluster\":%d,\"attrs\":[", max_dyn_shared,
		    non_portable ? 1 : 0);
	for (i = k = 0; i < l->nattrs; i++) {
		unsigned j;

		if (!portable_attr(l->attrs[i].id))
			continue;
		rec_str_add(&b, "%s{\"id\":%d,\"value\":\"", k++ ? "," : "", l->attrs[i].id);
		for (j = 0; j < sizeof(l->attrs[i].value); j++)
			rec_str_add(&b, "%02x", l->attrs[i].value[j]);
		rec_str_add(&b, "\"}");
	}
	/* cuLaunchCooperativeKernel is cuLaunchKernelEx with the cooperative
	 * attribute: said as one, so that replay launches it cooperatively */
	if (!strncmp(l->api, "cuLaunchCooperativeKernel", 25))
		rec_str_add(&b, "%s{\"id\":%d,\"value\":\"01%0126d\"}", k++ ? "," : "", CU_LAUNCH_ATTRIBUTE_COOPERATIVE,
			    0);
	rec_str_add(&b, "],\"params\":{\"blob\":\"%s\",\"size\":%zu,\"layout\":[", params_hex, p->size);
	for (i = 0; i < p->n; i++)
		rec_str_add(&b, "%s[%zu,%zu]", i ? "," : "", p->layout[i][0], p->layout[i][1]);
	rec_str_add(&b, "]},\"device\":{\"name\":");
	rec_str_json(&b, d.name);
	rec_str_add(&b, ",\"cc\":[%d,%d],\"driver\":%d},\"snapshot\":\"%s\",", d.major, d.minor, d.driver,
		    sel.args_only ? "args" : "all");
	/* where the arena was: replay reserves it first */
	if (rec_arena_range(&arena, &arena_size))
		rec_str_add(&b, "\"arena\":{\"base\":\"0x%llx\",\"size\":%zu},", (unsigned long long)arena, arena_size);
	if (notes->len && !notes->oom)
		rec_str_add(&b, "\"notes\":[%s],", notes->s);
	rec_str_add(&b, "\"memory\":[");
	for (i = k = 0; i < n; i++) {
		if (!m[i].saved)
			continue;
		rec_str_add(&b, "%s{\"base\":\"0x%llx\",\"size\":%zu,\"kind\":\"%s\",\"before\":\"%s\",\"after\":\"%s\"}",
			    k++ ? "," : "", (unsigned long long)m[i].a.base, m[i].a.size, mem_kind(m[i].a.kind),
			    m[i].before, m[i].after);
	}
	rec_str_add(&b, "]}\n");
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* ---- one recording */
struct launch_ctx {
	const struct rec_launch *l;
	rec_launch_fn launch;
	void *ctx;
	bool launched;
	CUresult result;
};

static CUresult do_launch(struct launch_ctx *c)
{
	if (!c->launched) {
		c->result = c->launch(c->l, c->ctx);
		c->launched = true;
	}
	return c->result;
}

typedef CUresult ptrattr_fn(void *, int, CUdeviceptr);

/* Whether @v lies in one of the @n live allocations (sorted by base). */
static bool in_live(const struct rec_alloc *live, size_t n, uint64_t v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (live[mid].base <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && v - live[lo - 1].base < live[lo - 1].size;
}

/* Arguments a recording cannot carry to another process: a texture or
 * surface object (a handle of this process), a pointer to pinned or mapped
 * host memory or to managed memory the recorder did not see allocated (not
 * saved). Each is said, and kept in @notes (JSON strings, comma-separated)
 * for the launch's "notes", so that a replay that differs can be
 * understood. Without a parameter layout every 8-byte word is looked at as
 * a pointer; object handles (small numbers) only where the layout says a
 * parameter is 8 bytes. */
static void check_args(const struct params *p, const struct rec_alloc *live, size_t n, const char *name,
		       struct rec_str *notes)
{
	ptrattr_fn *attr = REAL(ptrattr_fn, "cuPointerGetAttribute");
	size_t i, words = p->n ? p->n : p->size / 8;

	for (i = 0; i < words; i++) {
		size_t off = p->n ? p->layout[i][0] : i * 8;
		unsigned type = 0, managed = 0;
		enum rec_object_kind obj;
		char what[512];
		uint64_t v;

		if ((p->n && p->layout[i][1] != 8) || off % 8 || off + 8 > p->size)
			continue;
		memcpy(&v, p->buf + off, 8);
		if (!v || in_live(live, n, v))
			continue;
		what[0] = 0;
		if (p->n && (obj = rec_object_kind(v)))
			snprintf(what, sizeof(what),
				 "%.200s: parameter %zu is %s object %llu: the handle names an object of the recorded "
				 "process; replay passes the number",
				 name, i, obj == REC_OBJ_TEXTURE ? "texture" : "surface", (unsigned long long)v);
		else if (attr && !attr(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, v) && managed)
			snprintf(what, sizeof(what),
				 "%.200s: parameter %zu points to managed memory (0x%llx) allocated where the recorder "
				 "did not see it: not saved, replay reads what is there",
				 name, i, (unsigned long long)v);
		else if (attr && !attr(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, v) && type == CU_MEMORYTYPE_HOST)
			snprintf(
				what, sizeof(what),
				"%.200s: parameter %zu points to pinned or mapped host memory (0x%llx): not saved, and "
				"the address means nothing in another process",
				name, i, (unsigned long long)v);
		if (!what[0])
			continue;
		rec_say("%s", what);
		rec_str_add(notes, "%s", notes->len ? "," : "");
		rec_str_json(notes, what);
	}
}

static void record(struct launch_ctx *c, CUfunction f, const char *name, const char *demangled,
		   unsigned long ordinal, const struct rec_image *img)
{
	const struct rec_launch *l = c->l;
	sync_fn *sync = REAL(sync_fn, "cuCtxSynchronize");
	struct device_info dev;
	struct params p = { 0 };
	struct rec_str notes = { 0 };
	struct rec_alloc *live = NULL;
	struct mem *m = NULL;
	unsigned char *buf = NULL;
	char img_hex[65], params_hex[65], *json = NULL;
	size_t n = 0, i, bytes = 0, count = 0;
	int err, max_dyn = 0, non_portable = 0;
	CUresult r;

	if (!img->data || !img->len) {
		rec_say("cannot record %s: its module image was not seen (loaded before the recorder, or by a "
			"call it does not know)", name);
		return;
	}
	/* recording synchronizes the context, which ends a stream capture (a
	 * CUDA graph being made, as torch.cuda.graphs do): such a launch runs
	 * unrecorded, and the capture goes on */
	{
		capturing_fn *cap = REAL(capturing_fn, "cuStreamIsCapturing");
		int status = 0;

		if (cap && !cap(l->stream, &status) && status != 0) {
			rec_say("not recorded: %s was launched on a stream being captured into a CUDA graph "
				"(recording would synchronize and end the capture); select a launch outside it",
				name);
			return;
		}
	}
	device_info(&dev);
	err = params_get(l, f, img, name, dev.major * 10 + dev.minor, &p);
	if (err) {
		rec_say("cannot record %s: %s", name,
			err == -ENOSYS ? "the driver does not give the parameter layout (cuFuncGetParamInfo, CUDA "
					 "12.4), nor does its module image (no .nv.info for it)"
				       : "out of memory");
		goto out;
	}
	if (REAL(funcattr_fn, "cuFuncGetAttribute")) {
		REAL(funcattr_fn, "cuFuncGetAttribute")(&max_dyn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f);
		REAL(funcattr_fn, "cuFuncGetAttribute")
		(&non_portable, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, f);
	}
	/* the inputs as the kernel will see them: everything queued before it
	 * on any stream has finished */
	r = sync ? sync() : CUDA_ERROR_NOT_FOUND;
	if (r) {
		rec_say("cannot record %s: cuCtxSynchronize failed (%d; a stream being captured into a graph?)",
			name, r);
		goto out;
	}
	live = rec_alloc_snapshot(&n);
	m = calloc(n ? n : 1, sizeof(*m));
	buf = malloc(CHUNK);
	if (!m || !buf) {
		rec_say("cannot record %s: out of memory", name);
		goto out;
	}
	for (i = 0; i < n; i++)
		m[i].a = live[i];
	check_args(&p, live, n, demangled, &notes);
	if ((err = rec_db_blob(img->data, img->len, img_hex)) || (err = rec_db_blob(p.buf, p.size, params_hex)) ||
	    (err = save_before(m, n, &p, buf))) {
		rec_say("cannot record %s into %s: %s", name, rec_db_dir(), strerror(-err));
		goto out;
	}
	do_launch(c);
	r = sync ? sync() : CUDA_ERROR_NOT_FOUND;
	if (c->result || r) {
		rec_say("not recorded: %s failed (launch %d, synchronise %d)", name, c->result, r);
		goto out;
	}
	if ((err = save_after(m, n, buf))) {
		rec_say("cannot record %s into %s: %s", name, rec_db_dir(), strerror(-err));
		goto out;
	}
	json = launch_json(l, name, demangled, ordinal, img, img_hex, &p, params_hex, max_dyn, non_portable, m, n,
			   &notes);
	if (!json || (err = rec_db_launch(json, sel.seq))) {
		rec_say("cannot record %s into %s: %s", name, rec_db_dir(), json ? strerror(-err) : "out of memory");
		goto out;
	}
	sel.seq++;
	for (i = 0; i < n; i++)
		if (m[i].saved) {
			bytes += m[i].a.size;
			count++;
		}
	rec_say("recorded %s (launch %lu of it; %zu allocations, %.1f MiB) into %s", demangled, ordinal, count,
		bytes / 1048576.0, rec_db_dir());
out:
	free(json);
	free(notes.s);
	free(buf);
	free(m);
	free(live);
	free(p.buf);
	free(p.layout);
}

/* rec_function_launch()'s verdict on a function's name */
static int selected(const char *name)
{
	char demangled[8192];

	demangle(name, demangled, sizeof(demangled));
	return matches(name, demangled);
}

CUresult rec_launch(const struct rec_launch *l, rec_launch_fn launch, void *ctx)
{
	struct launch_ctx c = { l, launch, ctx, false, 0 };
	char name[4096], demangled[8192];
	struct rec_image img;
	bool is_kernel = false, want;
	unsigned long ordinal = 0, idx;
	CUfunction f = l->f;
	int verdict;

	pthread_once(&sel_once, sel_init);
	if (!sel.on)
		return launch(l, ctx);
	verdict = rec_function_launch(l->f, selected, name, sizeof(name), &img, &is_kernel, &ordinal);
	if (verdict < 0) {
		/* a function loaded where the recorder did not see it: known by
		 * name from now on (its image stays unknown) */
		getname_fn *getname = REAL(getname_fn, "cuFuncGetName");
		const char *nm = NULL;

		if (!getname || getname(&nm, l->f) || !nm)
			return launch(l, ctx);
		rec_function_add(l->f, NULL, nm);
		verdict = rec_function_launch(l->f, selected, name, sizeof(name), &img, &is_kernel, &ordinal);
	}
	if (verdict <= 0)
		return launch(l, ctx);
	demangle(name, demangled, sizeof(demangled));
	pthread_mutex_lock(&sel_lock);
	idx = sel.matched++;
	pthread_mutex_unlock(&sel_lock);
	want = idx >= sel.nth && (!sel.count || idx - sel.nth < sel.count);
	if (!want)
		return launch(l, ctx);
	if (is_kernel) {
		kgetfn_fn *kf = REAL(kgetfn_fn, "cuKernelGetFunction");

		if (!kf || kf(&f, (CUkernel)l->f))
			f = l->f;
	}
	pthread_mutex_lock(&rec_lock);
	record(&c, f, name, demangled, ordinal, &img);
	pthread_mutex_unlock(&rec_lock);
	return do_launch(&c);
}
