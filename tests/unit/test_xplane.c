/* SPDX-License-Identifier: MIT */
/* JAX profiles: XSpace protobufs (.xplane.pb) and XProf's JSON export.
 *  - format detection by content (protobuf, JSON, gzip of either);
 *  - tests/fixtures/tiny.xplane.pb (hand-encoded by make_tiny_xplane.py)
 *    loads into the events, kinds, links and per-GPU breakdown worked out
 *    by hand, and exactly like tiny.xprof.json, the JSON XProf writes for it;
 *  - XSpaces packed with protobuf-c: display ids and names, step names,
 *    aggregated events, huge and negative times, plane ids out of range, TPU
 *    planes, bad UTF-8, stats of every type;
 *  - every truncation and thousands of random bit flips and overwrites of the
 *    fixture: a trace or a one-line error, never a crash (run it under ASan
 *    and valgrind). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cjson/cJSON.h>
#include <tlreplay/tlreplay.h>

#include "tap.h"
#include "trace/trace_internal.h"
#include "xplane.pb-c.h"

#define ARRAY_N(a) (sizeof(a) / sizeof((a)[0]))

static char fixtures[512];

static void *read_file(const char *name, size_t *len)
{
	char path[1024];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", fixtures, name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static bool one_line(const char *label)
{
	const char *m = tl_last_error();

	return *m && !strchr(m, '\n') && strstr(m, label);
}

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b));
}

/* ----------------------------------------------------------------- sniff */

static void test_sniff(void)
{
	static const unsigned char plane123[] = { 0x0a, '{' };
	unsigned char framed[2 + 123];

	ok(!tl_xplane_sniff("{\"traceEvents\":[]}", 18), "sniff: a JSON object is JSON");
	ok(!tl_xplane_sniff("\n  [1]", 6), "sniff: white space then an array is JSON");
	ok(!tl_xplane_sniff("\n{\"a\":1}", 8), "sniff: \\n{ that does not frame as protobuf is JSON");
	ok(!tl_xplane_sniff("\"a string\"", 10), "sniff: a JSON string is not an XSpace");
	ok(!tl_xplane_sniff("  \n ", 4), "sniff: white space only is not an XSpace");
	ok(!tl_xplane_sniff("hello", 5), "sniff: text is not an XSpace");
	ok(tl_xplane_sniff("\x12\x03" "abc", 5), "sniff: an errors field is an XSpace");
	ok(tl_xplane_sniff("\x0a\x05" "abcde", 7), "sniff: a planes field is an XSpace");
	ok(tl_xplane_sniff("\x22\x02" "ab", 4), "sniff: a hostnames field that frames is an XSpace");
	/* a first plane of exactly 123 bytes reads "\n{": only framing tells */
	memset(framed, 0, sizeof(framed));
	memcpy(framed, plane123, 2);
	framed[2] = 0x12;	/* plane name, 121 bytes */
	framed[3] = 121;
	ok(tl_xplane_sniff((const char *)framed, sizeof(framed)), "sniff: a 123-byte plane (\"\\n{\") is an XSpace");
	ok(!tl_xplane_sniff((const char *)framed, sizeof(framed) - 1),
	   "sniff: ... unless it does not frame (then it is JSON and fails as JSON)");
}

/* ----------------------------------------------------------------- fixture */

struct expect_bd {
	const char *dev;
	double us[TL_BD_NROWS];
};

static const struct tl_breakdown *find_dev(const struct tl_breakdown_set *s, const char *dev)
{
	size_t i;

	for (i = 0; s && i < s->n; i++)
		if (s->v[i].device && !strcmp(s->v[i].device, dev))
			return &s->v[i];
	return NULL;
}

static void check_breakdown(struct tl_trace *tr, const char *what, bool unlinked)
{
	/* GPU 0: compute [1100,1200), memcpy [1180,1260), nccl [1300,1320);
	 * GPU 1: [1050,1060) and a 1 ps event at 1070. */
	double e1 = 1070.0 + 1e-6;
	struct expect_bd want[2] = {
		{ "1", { 100, 20, 60, 180, 40, 220, 20, 80 } },
		{ "2", { 10 + (e1 - 1070.0), 0, 0, 10 + (e1 - 1070.0), 10, e1 - 1050.0, 0, 0 } },
	};
	struct tl_breakdown_opts o = { .sz = sizeof(o), .group = TL_BD_GROUP_DEVICE,
				       .include_unlinked = unlinked };
	struct tl_breakdown_set *s = NULL;
	int err = tl_breakdown(tr, &o, &s);
	size_t d, r;

	ok(!err && s && s->n == 2, "%s: two GPUs (pids 1, 2)%s", what, err ? tl_last_error() : "");
	for (d = 0; d < 2; d++) {
		const struct tl_breakdown *b = find_dev(s, want[d].dev);
		bool good = b != NULL;

		for (r = 0; good && r < TL_BD_NROWS; r++)
			if (!near(b->us[r], want[d].us[r])) {
				diag("device %s %s: %.17g, want %.17g", want[d].dev, tl_bd_row_name(r),
				     b->us[r], want[d].us[r]);
				good = false;
			}
		ok(good, "%s: device %s breakdown as worked out by hand", what, want[d].dev);
	}
	tl_breakdown_free(s);
}

static uint64_t find_event(struct tl_trace *tr, const char *name, uint64_t from)
{
	uint64_t i, n = tl_trace_nevents(tr);
	struct tl_event_info e;

	for (i = from; i < n; i++)
		if (!tl_trace_event(tr, i, &e) && !strcmp(e.name, name))
			return i;
	return UINT64_MAX;
}

static void check_fixture_events(struct tl_trace *tr, const char *what)
{
	uint64_t counts[TL_KIND_COUNT], u;
	struct tl_event_info e;
	cJSON *args = NULL, *v;

	tl_trace_kind_counts(tr, counts);
	ok(tl_trace_nevents(tr) == 33 && counts[TL_KIND_METADATA] == 18 && counts[TL_KIND_KERNEL] == 5 &&
		   counts[TL_KIND_MEMCPY] == 1 && counts[TL_KIND_RUNTIME] == 6 &&
		   counts[TL_KIND_CPU_OP] == 1 && counts[TL_KIND_OTHER] == 2,
	   "%s: 33 events: 18 metadata, 5 kernels, 1 memcpy, 6 launches, 1 cpu_op, 2 other (%llu)", what,
	   (unsigned long long)tl_trace_nevents(tr));
	ok(find_event(tr, "MemoryAllocation", 0) == UINT64_MAX, "%s: internal events are left out", what);
	u = find_event(tr, "gemm", 0);
	ok(u != UINT64_MAX && !tl_trace_event(tr, u, &e) && e.kind == TL_KIND_KERNEL &&
		   !strcmp(e.pid, "1") && !strcmp(e.tid, "1") && e.ts == 1140.0 && e.dur == 60.0 &&
		   e.correlation == 2 && e.device == 0 && e.stream == 1,
	   "%s: kernel 'gemm' (display name) on pid 1 tid 1, 1140 us + 60 us, correlation 2, device 0 stream 1",
	   what);
	if (u != UINT64_MAX && !tl_trace_event_args(tr, u, &args)) {
		ok(args && args->child && !strcmp(args->child->string, "group_id") &&
			   cJSON_GetObjectItem(args, "group_id")->valuedouble == 7,
		   "%s: group_id comes first in args", what);
		v = cJSON_GetObjectItem(args, "long_name");
		ok(cJSON_IsString(v) && !strcmp(v->valuestring, "Cijk_Ailk_Bljk_long_gemm_kernel_name"),
		   "%s: the full name is args.long_name", what);
		cJSON_Delete(args);
		args = NULL;
	} else {
		ok(0, "%s: gemm args", what);
		ok(0, "%s: gemm args", what);
	}
	u = find_event(tr, "fusion_kernel", 0);
	if (u != UINT64_MAX && !tl_trace_event_args(tr, u, &args)) {
		v = cJSON_GetObjectItem(args, "hlo_op");
		ok(cJSON_IsString(v) && !strcmp(v->valuestring, "fusion.1") &&
			   cJSON_IsString(cJSON_GetObjectItem(args, "hlo_module")),
		   "%s: hlo_op (a ref stat) and hlo_module in args", what);
		cJSON_Delete(args);
		args = NULL;
	} else {
		ok(0, "%s: fusion_kernel args", what);
	}
	u = find_event(tr, "small_kernel", find_event(tr, "small_kernel", 0) + 1);
	ok(u != UINT64_MAX && !tl_trace_event(tr, u, &e) && e.ts == 1070.0 && e.dur == 1e-6,
	   "%s: a zero-length event lasts 1 ps", what);
	u = find_event(tr, "fusion.1", 0);
	ok(u != UINT64_MAX && !tl_trace_event(tr, u, &e) && e.kind == TL_KIND_OTHER && !strcmp(e.tid, "3735928564"),
	   "%s: the XLA Ops line is not GPU work; its 32-bit tid", what);
	u = find_event(tr, "CopyDeviceToDevice", 0);
	ok(u != UINT64_MAX && !tl_trace_event(tr, u, &e) && e.kind == TL_KIND_MEMCPY && e.stream == 2 &&
		   tl_gpu_event_class(tr, u) == TL_GPU_MEMCPY,
	   "%s: CopyDeviceToDevice on stream 2 is a memcpy", what);
	u = find_event(tr, "ncclDevKernel_AllReduce_Sum_f32", 0);
	ok(u != UINT64_MAX && tl_gpu_event_class(tr, u) == TL_GPU_COMM, "%s: the NCCL kernel is communication",
	   what);
	u = find_event(tr, "hipMemcpyDtoDAsync", 0);
	ok(u != UINT64_MAX && !tl_trace_event(tr, u, &e) && e.kind == TL_KIND_RUNTIME && !strcmp(e.pid, "701") &&
		   e.correlation == 3,
	   "%s: the host launch (pid 701) is a runtime call with its correlation id", what);
	u = find_event(tr, "ExecuteHelper", 0);
	ok(u != UINT64_MAX && !tl_trace_event(tr, u, &e) && e.kind == TL_KIND_CPU_OP, "%s: py_xla threads hold cpu_ops",
	   what);
	ok(!tl_trace_link(tr, NULL) && tl_event_linked(tr, find_event(tr, "gemm", 0)) &&
		   tl_event_parent(tr, find_event(tr, "gemm", 0)) == (int64_t)find_event(tr, "hipModuleLaunchKernel", find_event(tr, "hipModuleLaunchKernel", 0) + 1),
	   "%s: kernels hang under their launch", what);
	u = find_event(tr, "process_name", 0);
	if (u != UINT64_MAX && !tl_trace_event_args(tr, u, &args)) {
		v = cJSON_GetObjectItem(args, "name");
		ok(cJSON_IsString(v) && !strcmp(v->valuestring, "tinyhost /device:GPU:0"),
		   "%s: process names are \"host plane\" (%s)", what, cJSON_IsString(v) ? v->valuestring : "?");
		cJSON_Delete(args);
	} else {
		ok(0, "%s: process_name", what);
	}
}

/* Both loads carry the same events: XProf's JSON and ours agree. */
static void compare_traces(struct tl_trace *a, struct tl_trace *b)
{
	static const char *const extras[] = { "kernel_details", "grid", "block", "registers per thread",
					      "shared memory" };
	uint64_t i, n = tl_trace_nevents(a);
	bool same = n == tl_trace_nevents(b);
	char why[256] = "";

	for (i = 0; same && i < n; i++) {
		struct tl_event_info x, y;
		cJSON *ax = NULL, *ay = NULL;
		size_t k;

		tl_trace_event(a, i, &x);
		tl_trace_event(b, i, &y);
		same = !strcmp(x.name, y.name) && x.kind == y.kind && !strcmp(x.pid, y.pid) &&
		       !strcmp(x.tid, y.tid) && x.ts == y.ts && x.dur == y.dur && x.has_ts == y.has_ts &&
		       x.correlation == y.correlation && x.stream == y.stream && x.device == y.device;
		tl_trace_event_args(a, i, &ax);
		tl_trace_event_args(b, i, &ay);
		for (k = 0; ax && k < ARRAY_N(extras); k++)
			cJSON_DeleteItemFromObjectCaseSensitive(ax, extras[k]);
		if (ax && !ax->child) {
			cJSON_Delete(ax);
			ax = NULL;
		}
		if (same && (!ax != !ay || (ax && !cJSON_Compare(ax, ay, true))))
			same = false;
		if (!same)
			snprintf(why, sizeof(why), "event %llu (%s / %s) differs", (unsigned long long)i, x.name,
				 y.name);
		cJSON_Delete(ax);
		cJSON_Delete(ay);
	}
	ok(same, "the .xplane.pb and XProf's JSON export give the same %llu events %s", (unsigned long long)n,
	   why);
}

static void test_fixture(void)
{
	struct tl_trace *pb = NULL, *js = NULL, *mem = NULL, *gz = NULL;
	char path[1024];
	const cJSON *meta, *d;
	void *raw = NULL;
	size_t len = 0;
	int err;

	snprintf(path, sizeof(path), "%s/tiny.xplane.pb", fixtures);
	err = tl_trace_open(path, NULL, &pb);
	ok(!err, "tiny.xplane.pb loads%s%s", err ? ": " : "", err ? tl_last_error() : "");
	if (err)
		return;
	check_fixture_events(pb, "pb");
	check_breakdown(pb, "pb", false);
	check_breakdown(pb, "pb with unlinked events", true);
	meta = tl_trace_metadata(pb);
	d = cJSON_GetObjectItem(meta, "deviceProperties");
	ok(cJSON_GetArraySize(d) == 2 && cJSON_GetObjectItem(cJSON_GetArrayItem(d, 0), "numSms") &&
		   cJSON_GetObjectItem(cJSON_GetArrayItem(d, 0), "numSms")->valuedouble == 304 &&
		   !strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(d, 0), "name")->valuestring, "AMD /device:GPU:0"),
	   "deviceProperties from the GPU planes' stats");
	d = cJSON_GetObjectItem(meta, "xspace");
	ok(cJSON_IsObject(d) &&
		   !strcmp(cJSON_GetArrayItem(cJSON_GetObjectItem(d, "hostnames"), 0)->valuestring, "tinyhost") &&
		   !strcmp(cJSON_GetArrayItem(cJSON_GetObjectItem(d, "warnings"), 0)->valuestring, "one warning"),
	   "xspace: host names and warnings kept");

	snprintf(path, sizeof(path), "%s/tiny.xprof.json", fixtures);
	err = tl_trace_open(path, NULL, &js);
	ok(!err, "tiny.xprof.json (XProf's JSON export) loads%s%s", err ? ": " : "", err ? tl_last_error() : "");
	if (!err) {
		check_fixture_events(js, "xprof json");
		check_breakdown(js, "xprof json", false);
		compare_traces(pb, js);
	}

	raw = read_file("tiny.xplane.pb", &len);
	err = raw ? tl_trace_open_mem(raw, len, "mem.xplane.pb", NULL, &mem) : -ENOENT;
	ok(!err && tl_trace_nevents(mem) == tl_trace_nevents(pb) &&
		   tl_trace_text_size(mem) == tl_trace_text_size(pb),
	   "tl_trace_open_mem reads it the same");
	if (raw) {
		/* gzip it (as a .xplane.pb.gz would be) */
		uLongf cap = compressBound(len) + 64;
		unsigned char *z = malloc(cap);
		z_stream zs;

		memset(&zs, 0, sizeof(zs));
		deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
		zs.next_in = raw;
		zs.avail_in = (uInt)len;
		zs.next_out = z;
		zs.avail_out = (uInt)cap;
		deflate(&zs, Z_FINISH);
		err = tl_trace_open_mem(z, zs.total_out, "gz.xplane.pb.gz", NULL, &gz);
		deflateEnd(&zs);
		ok(!err && tl_trace_nevents(gz) == tl_trace_nevents(pb), "a gzipped .xplane.pb loads too");
		free(z);
	}
	free(raw);
	tl_trace_close(pb);
	tl_trace_close(js);
	tl_trace_close(mem);
	tl_trace_close(gz);
}

/* ------------------------------------------------------- bad input, fuzzing */

/* Load @buf; an accepted trace gets every accessor and a breakdown. */
static bool survives(const void *buf, size_t len, int *err_out)
{
	struct tl_trace *tr = NULL;
	int err = tl_trace_open_mem(buf, len, "fuzz.xplane.pb", NULL, &tr);

	*err_out = err;
	if (err)
		return (err == -EBADMSG || err == -ENODATA) && one_line("fuzz.xplane.pb") && !tr;
	{
		struct tl_breakdown_opts o = { .sz = sizeof(o), .group = TL_BD_GROUP_STREAM,
					       .include_unlinked = true };
		struct tl_breakdown_set *s = NULL;
		uint64_t i, n = tl_trace_nevents(tr);
		struct tl_event_info e;
		cJSON *a = NULL;
		bool good = true;

		for (i = 0; i < n && good; i++) {
			good = !tl_trace_event(tr, i, &e) && e.name && e.pid && e.tid;
			if (e.args)
				good = good && !tl_trace_event_args(tr, i, &a) && cJSON_IsObject(a);
			cJSON_Delete(a);
			a = NULL;
		}
		tl_breakdown(tr, &o, &s);
		tl_breakdown_free(s);
		tl_trace_link(tr, NULL);
		tl_trace_close(tr);
		return good;
	}
}

static void test_damage(void)
{
	unsigned char *raw, *buf;
	size_t len = 0, i, bad_trunc = 0, said_truncated = 0, bad_flip = 0, loaded = 0;
	unsigned long long seed = 0x5eed1234abcdULL;
	int err;

	raw = read_file("tiny.xplane.pb", &len);
	if (!raw) {
		ok(0, "read tiny.xplane.pb");
		return;
	}
	buf = malloc(len + 1);
	/* every truncation */
	for (i = 1; i < len; i++) {
		memcpy(buf, raw, i);
		if (!survives(buf, i, &err))	/* a cut between planes can be a valid XSpace */
			bad_trunc++;
		if (err == -EBADMSG && strstr(tl_last_error(), "truncated"))
			said_truncated++;
	}
	ok(bad_trunc == 0, "all %zu truncations: a trace or a one-line error (%zu not)", len - 1, bad_trunc);
	ok(said_truncated > len / 2, "most of them say 'truncated' (%zu)", said_truncated);
	memcpy(buf, raw, len / 2);
	err = tl_trace_open_mem(buf, len / 2, "half.xplane.pb", NULL, &(struct tl_trace *){ NULL });
	ok(err == -EBADMSG && one_line("half.xplane.pb") && strstr(tl_last_error(), "truncated XSpace protobuf") &&
		   strstr(tl_last_error(), "plane"),
	   "a file cut in half: %s", tl_last_error());

	/* random bit flips and byte overwrites */
	for (i = 0; i < 4000; i++) {
		int k, nflip;

		memcpy(buf, raw, len);
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		nflip = 1 + (int)((seed >> 33) % 4);
		for (k = 0; k < nflip; k++) {
			size_t at;

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			at = (size_t)((seed >> 20) % len);
			if (i % 3 == 0)
				buf[at] = (unsigned char)(seed >> 12);
			else
				buf[at] ^= (unsigned char)(1u << ((seed >> 8) % 8));
		}
		if (!survives(buf, len, &err)) {
			bad_flip++;
			if (getenv("XP_DUMP")) {
				char name[64];
				FILE *f;

				snprintf(name, sizeof(name), "/tmp/xp/bad%zu.pb", i);
				f = fopen(name, "wb");
				fwrite(buf, 1, len, f);
				fclose(f);
				diag("%s: %d %s", name, err, tl_last_error());
			}
		}
		loaded += !err;
	}
	ok(bad_flip == 0, "4000 damaged copies: a trace or a one-line error each (%zu loaded, %zu bad)", loaded,
	   bad_flip);
	free(buf);
	free(raw);
}

/* ------------------------------------------------- XSpaces from protobuf-c */

/* Everything allocated for one XSpace, freed at once. */
static void *keep[4096];
static size_t nkeep;

static void *mk(size_t n)
{
	void *p = calloc(1, n);

	if (p && nkeep < ARRAY_N(keep))
		keep[nkeep++] = p;
	return p;
}

static void free_all(void)
{
	while (nkeep)
		free(keep[--nkeep]);
}

#define PUSH(arr, n, x)                                                                        \
	do {                                                                                   \
		void *np_ = mk(((n) + 1) * sizeof(*(arr)));                                   \
		if ((n))                                                                       \
			memcpy(np_, (arr), (n) * sizeof(*(arr)));                              \
		(arr) = np_;                                                                   \
		(arr)[(n)++] = (x);                                                            \
	} while (0)

static TlXplane__XPlane *mk_plane(TlXplane__XSpace *sp, int64_t id, const char *name)
{
	TlXplane__XPlane *p = mk(sizeof(*p));

	tl_xplane__xplane__init(p);
	p->id = id;
	p->name = (char *)name;
	PUSH(sp->planes, sp->n_planes, p);
	return p;
}

static void stat_meta(TlXplane__XPlane *p, int64_t id, const char *name)
{
	TlXplane__XPlane__StatMetadataEntry *e = mk(sizeof(*e));
	TlXplane__XStatMetadata *m = mk(sizeof(*m));

	tl_xplane__xplane__stat_metadata_entry__init(e);
	tl_xplane__xstat_metadata__init(m);
	m->id = id;
	m->name = (char *)name;
	e->key = id;
	e->value = m;
	PUSH(p->stat_metadata, p->n_stat_metadata, e);
}

static TlXplane__XEventMetadata *event_meta(TlXplane__XPlane *p, int64_t id, const char *name,
					    const char *display)
{
	TlXplane__XPlane__EventMetadataEntry *e = mk(sizeof(*e));
	TlXplane__XEventMetadata *m = mk(sizeof(*m));

	tl_xplane__xplane__event_metadata_entry__init(e);
	tl_xplane__xevent_metadata__init(m);
	m->id = id;
	m->name = (char *)name;
	if (display)
		m->display_name = (char *)display;
	e->key = id;
	e->value = m;
	PUSH(p->event_metadata, p->n_event_metadata, e);
	return m;
}

static TlXplane__XLine *mk_line(TlXplane__XPlane *p, int64_t id, int64_t display_id, const char *name,
				const char *display, int64_t ts_ns)
{
	TlXplane__XLine *l = mk(sizeof(*l));

	tl_xplane__xline__init(l);
	l->id = id;
	l->display_id = display_id;
	l->name = (char *)name;
	if (display)
		l->display_name = (char *)display;
	l->timestamp_ns = ts_ns;
	PUSH(p->lines, p->n_lines, l);
	return l;
}

static TlXplane__XEvent *mk_event(TlXplane__XLine *l, int64_t meta, int64_t off_ps, int64_t dur_ps)
{
	TlXplane__XEvent *e = mk(sizeof(*e));

	tl_xplane__xevent__init(e);
	e->metadata_id = meta;
	e->data_case = TL_XPLANE__XEVENT__DATA_OFFSET_PS;
	e->offset_ps = off_ps;
	e->duration_ps = dur_ps;
	PUSH(l->events, l->n_events, e);
	return e;
}

static TlXplane__XStat *mk_stat(TlXplane__XStat ***arr, size_t *n, int64_t meta)
{
	TlXplane__XStat *s = mk(sizeof(*s));

	tl_xplane__xstat__init(s);
	s->metadata_id = meta;
	PUSH(*arr, *n, s);
	return s;
}

static struct tl_trace *open_space(TlXplane__XSpace *sp, const char *label, int *err)
{
	size_t len = tl_xplane__xspace__get_packed_size(sp);
	uint8_t *buf = malloc(len + 1);
	struct tl_trace *tr = NULL;

	tl_xplane__xspace__pack(sp, buf);
	*err = tl_trace_open_mem(buf, len, label, NULL, &tr);
	free(buf);
	return tr;
}

static void test_packed(void)
{
	TlXplane__XSpace sp = TL_XPLANE__XSPACE__INIT;
	TlXplane__XPlane *gpu, *host, *far;
	TlXplane__XLine *l;
	TlXplane__XEvent *e;
	TlXplane__XStat *s;
	struct tl_trace *tr;
	struct tl_event_info ev;
	cJSON *args = NULL;
	uint64_t u;
	int err;

	/* GPU plane 3 -> pid 4; two lines sharing display id 9 (one thread
	 * named by the last), a step-named event, an aggregated one, stats of
	 * every kind, a name that is not UTF-8 */
	gpu = mk_plane(&sp, 3, "/device:GPU:3");
	stat_meta(gpu, 1, "correlation_id");
	stat_meta(gpu, 2, "step_name");
	stat_meta(gpu, 3, "ratio");
	stat_meta(gpu, 4, "big");
	stat_meta(gpu, 5, "note");
	stat_meta(gpu, 6, "blob");
	stat_meta(gpu, 7, "neg");
	stat_meta(gpu, 8, "_pt");
	event_meta(gpu, 1, "k1", NULL);
	event_meta(gpu, 2, "bad\xff\xfename", NULL);
	l = mk_line(gpu, 100, 9, "raw stream", "Stream #9(Kernel)", 2000);
	e = mk_event(l, 1, 5 * 1000000, 2 * 1000000);
	s = mk_stat(&e->stats, &e->n_stats, 2);
	s->value_case = TL_XPLANE__XSTAT__VALUE_STR_VALUE;
	s->str_value = "train step 7";
	s = mk_stat(&e->stats, &e->n_stats, 3);
	s->value_case = TL_XPLANE__XSTAT__VALUE_DOUBLE_VALUE;
	s->double_value = 0.25;
	s = mk_stat(&e->stats, &e->n_stats, 4);
	s->value_case = TL_XPLANE__XSTAT__VALUE_UINT64_VALUE;
	s->uint64_value = UINT64_MAX;
	s = mk_stat(&e->stats, &e->n_stats, 5);
	s->value_case = TL_XPLANE__XSTAT__VALUE_STR_VALUE;
	s->str_value = "quote \" backslash \\ tab \t bell \a";
	s = mk_stat(&e->stats, &e->n_stats, 6);
	s->value_case = TL_XPLANE__XSTAT__VALUE_BYTES_VALUE;
	s->bytes_value.len = 3;
	s->bytes_value.data = (uint8_t *)"abc";
	s = mk_stat(&e->stats, &e->n_stats, 7);
	s->value_case = TL_XPLANE__XSTAT__VALUE_INT64_VALUE;
	s->int64_value = -5;
	s = mk_stat(&e->stats, &e->n_stats, 8);
	s->value_case = TL_XPLANE__XSTAT__VALUE_INT64_VALUE;
	s->int64_value = 1;
	l = mk_line(gpu, 101, 9, "other raw", "Stream #9(Kernel)", 2000);
	e = mk_event(l, 2, -1000000, 1000000);	/* negative offset */
	e = mk_event(l, 1, 0, 0);
	e->data_case = TL_XPLANE__XEVENT__DATA_NUM_OCCURRENCES;
	e->num_occurrences = 4;
	/* a plane id past XProf's 500 devices: shown as pid 1 */
	far = mk_plane(&sp, 900, "/device:GPU:900");
	event_meta(far, 1, "far_kernel", NULL);
	l = mk_line(far, 1, 0, "Stream #1(Kernel)", NULL, INT64_MAX / 10);	/* ts_ns * 1000 overflows */
	mk_event(l, 1, 1000, 1000);
	/* the host with no launches: GPU events stay unlinked */
	host = mk_plane(&sp, 0, "/host:CPU");
	event_meta(host, 1, "work", NULL);
	l = mk_line(host, 7, 0, "py_xla_execute/7", NULL, 0);
	mk_event(l, 1, 0, 10);

	tr = open_space(&sp, "packed.xplane.pb", &err);
	ok(!err, "a protobuf-c packed XSpace loads%s%s", err ? ": " : "", err ? tl_last_error() : "");
	if (!err) {
		u = find_event(tr, "train step 7", 0);
		ok(u != UINT64_MAX && !tl_trace_event(tr, u, &ev) && !strcmp(ev.pid, "4") && !strcmp(ev.tid, "9") &&
			   ev.ts == 2.0 + 5.0 && ev.dur == 2.0 && ev.kind == TL_KIND_KERNEL && ev.stream == 9 &&
			   ev.device == 3,
		   "step_name renames; pid = plane id + 1; tid = display id; stream 9, device 3");
		if (u != UINT64_MAX && !tl_trace_event_args(tr, u, &args)) {
			const cJSON *big = cJSON_GetObjectItem(args, "big"), *note = cJSON_GetObjectItem(args, "note");

			ok(cJSON_GetObjectItem(args, "ratio")->valuedouble == 0.25 && cJSON_IsString(big) &&
				   !strcmp(big->valuestring, "18446744073709551615") &&
				   cJSON_GetObjectItem(args, "neg")->valuedouble == -5 && cJSON_IsString(note) &&
				   !strcmp(note->valuestring, "quote \" backslash \\ tab \t bell \a") &&
				   !cJSON_GetObjectItem(args, "blob") && !cJSON_GetObjectItem(args, "_pt"),
			   "stats: double, uint64 past 2^53 quoted, int64, escaped string; bytes and plumbing left out");
			cJSON_Delete(args);
			args = NULL;
		} else {
			ok(0, "args of the step");
		}
		u = find_event(tr, "bad\xef\xbf\xbd\xef\xbf\xbdname", 0);
		ok(u != UINT64_MAX && !tl_trace_event(tr, u, &ev) && ev.ts == 2.0 - 1.0,
		   "bytes that are not UTF-8 become U+FFFD; negative offsets count back");
		u = find_event(tr, "k1", 0);
		ok(u != UINT64_MAX && !tl_trace_event(tr, u, &ev) && ev.ts == 2.0 && ev.dur == 1e-6,
		   "an aggregated event sits at its line's start");
		u = find_event(tr, "far_kernel", 0);
		memset(&ev, 0, sizeof(ev));
		if (u != UINT64_MAX)
			tl_trace_event(tr, u, &ev);
		ok(u != UINT64_MAX && ev.pid && !strcmp(ev.pid, "1") && isfinite(ev.ts) && ev.ts > 9e14,
		   "plane id 900 shows as pid 1; a timestamp past 64-bit picoseconds stays finite (%.17g)",
		   ev.ts);
		{
			struct tl_breakdown_opts o = { .sz = sizeof(o), .group = TL_BD_GROUP_DEVICE };
			struct tl_breakdown_set *bs = NULL;

			/* Kineto's rule leaves GPU work no launch links out of the
			 * breakdown; TraceLens's JAX rule counts every stream event
			 * (timeline.c applies it to XProf traces when told to). */
			err = tl_breakdown(tr, &o, &bs);
			ok((err == -ENODATA && strstr(tl_last_error(), "linked")) ||
				   (!err && bs->n == 2 && find_dev(bs, "4") && find_dev(bs, "4")->nevents == 3),
			   "GPU work without a host launch: %s",
			   err ? tl_last_error() : "counted, as TraceLens counts JAX stream events");
			tl_breakdown_free(bs);
			bs = NULL;
			o.include_unlinked = true;
			err = tl_breakdown(tr, &o, &bs);
			ok(!err && bs->n == 2 && find_dev(bs, "4") && find_dev(bs, "4")->nevents == 3,
			   "--include-unlinked counts it (pid 4: 3 events)");
			tl_breakdown_free(bs);
		}
		tl_trace_close(tr);
	}
	free_all();

	/* nothing to show: a metadata plane only */
	{
		TlXplane__XSpace sp2 = TL_XPLANE__XSPACE__INIT;
		TlXplane__XPlane *m = mk_plane(&sp2, 0, "/host:metadata");

		event_meta(m, 1, "jit_f", NULL);
		tr = open_space(&sp2, "empty.xplane.pb", &err);
		ok(err == -ENODATA && !tr && one_line("empty.xplane.pb") && strstr(tl_last_error(), "no events"),
		   "an XSpace with no events: %s", tl_last_error());
		free_all();
	}

	/* TPU planes are shown when there is no GPU; they are not GPU streams */
	{
		TlXplane__XSpace sp3 = TL_XPLANE__XSPACE__INIT;
		TlXplane__XPlane *t = mk_plane(&sp3, 0, "/device:TPU:0");
		struct tl_breakdown_set *bs = NULL;

		event_meta(t, 1, "fusion", NULL);
		l = mk_line(t, 1, 0, "XLA Ops", NULL, 0);
		mk_event(l, 1, 0, 1000);
		tr = open_space(&sp3, "tpu.xplane.pb", &err);
		ok(!err && tl_trace_nevents(tr) == 5 && tl_breakdown(tr, NULL, &bs) == -ENODATA,
		   "TPU planes load; no GPU events in them");
		tl_breakdown_free(bs);
		tl_trace_close(tr);
		free_all();
	}

	/* protobuf-c refuses what the wire walk lets through: a double stat
	 * written as a varint */
	{
		static const unsigned char bad_stat[] = {
			0x0a, 0x1e,				/* plane, 30 bytes */
			0x12, 0x0d, '/', 'd', 'e', 'v', 'i', 'c', 'e', ':', 'G', 'P', 'U', ':', '0',
			0x1a, 0x0d,				/* line, 13 bytes */
			0x12, 0x03, 'S', 't', 'r',
			0x22, 0x06,				/* event, 6 bytes */
			0x08, 0x01, 0x22, 0x02, 0x10, 0x05,	/* stat: field 2 (double) as varint */
		};

		tr = NULL;
		err = tl_trace_open_mem(bad_stat, sizeof(bad_stat), "badstat.xplane.pb", NULL, &tr);
		ok(err == -EBADMSG && one_line("badstat.xplane.pb") && strstr(tl_last_error(), "protobuf-c") &&
			   strstr(tl_last_error(), "byte"),
		   "a bad stat: %s", tl_last_error());
		tl_trace_close(tr);
	}
}

/* XProf JSON whose metadata come after the events: thread kinds still
 * follow their process, and "Stream #N" makes a stream only on a GPU. */
static void test_metadata_last(void)
{
	static const char doc[] =
		"{\"traceEvents\":["
		"{\"pid\":1,\"tid\":5,\"name\":\"k\",\"ts\":10,\"dur\":2,\"ph\":\"X\","
		"\"args\":{\"correlation_id\":7}},"
		"{\"pid\":701,\"tid\":9,\"name\":\"launch\",\"ts\":8,\"dur\":1,\"ph\":\"X\","
		"\"args\":{\"correlation_id\":7}},"
		"{\"pid\":701,\"tid\":3,\"name\":\"op\",\"ts\":7,\"dur\":4,\"ph\":\"X\"},"
		"{\"pid\":701,\"tid\":4,\"name\":\"s\",\"ts\":7,\"dur\":4,\"ph\":\"X\"},"
		"{\"pid\":1,\"tid\":5,\"name\":\"thread_name\",\"ph\":\"M\",\"args\":{\"name\":\"Stream #3\"}},"
		"{\"pid\":701,\"tid\":3,\"name\":\"thread_name\",\"ph\":\"M\","
		"\"args\":{\"name\":\"Framework Name Scope\"}},"
		"{\"pid\":701,\"tid\":4,\"name\":\"thread_name\",\"ph\":\"M\",\"args\":{\"name\":\"Stream #4\"}},"
		"{\"pid\":1,\"name\":\"process_name\",\"ph\":\"M\",\"args\":{\"name\":\"/device:GPU:0\"}},"
		"{\"pid\":701,\"name\":\"process_name\",\"ph\":\"M\",\"args\":{\"name\":\"/host:CPU\"}}"
		"]}";
	struct tl_trace *tr = NULL;
	struct tl_event_info e;
	int err = tl_trace_open_mem(doc, sizeof(doc) - 1, "late-metadata.json", NULL, &tr);

	ok(!err, "XProf JSON with its metadata last loads%s%s", err ? ": " : "", err ? tl_last_error() : "");
	if (err)
		return;
	ok(!tl_trace_event(tr, 0, &e) && e.kind == TL_KIND_KERNEL && e.stream == 3 && e.device == 0 &&
		   e.correlation == 7,
	   "metadata last: a GPU stream's event is a kernel on stream 3 of device 0");
	ok(!tl_trace_event(tr, 1, &e) && e.kind == TL_KIND_RUNTIME && e.correlation == 7,
	   "metadata last: a host event with a correlation_id is its launch");
	ok(!tl_trace_event(tr, 2, &e) && e.kind == TL_KIND_CPU_OP,
	   "metadata last: Framework Name Scope holds cpu_ops");
	ok(!tl_trace_event(tr, 3, &e) && e.kind == TL_KIND_OTHER,
	   "metadata last: \"Stream #4\" on the host is no stream");
	tl_trace_close(tr);
}

/* ---- the HLO of the "/host:metadata" plane (xplane_hlo.c) */

struct pbuf {
	uint8_t b[512];
	size_t n;
};

static void pb_varint(struct pbuf *p, uint64_t v)
{
	do {
		p->b[p->n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void pb_int(struct pbuf *p, unsigned num, uint64_t v)
{
	pb_varint(p, (uint64_t)num << 3);
	pb_varint(p, v);
}

static void pb_bytes(struct pbuf *p, unsigned num, const void *d, size_t n)
{
	pb_varint(p, (uint64_t)num << 3 | 2);
	pb_varint(p, n);
	memcpy(p->b + p->n, d, n);
	p->n += n;
}

static void pb_str(struct pbuf *p, unsigned num, const char *s)
{
	pb_bytes(p, num, s, strlen(s));
}

static void pb_msg(struct pbuf *p, unsigned num, const struct pbuf *m)
{
	pb_bytes(p, num, m->b, m->n);
}

/* A module "m": parameter p bf16[2,3]{1,0}, a custom-call cc on (p, p)
 * with metadata and a target, and the root r (left out). */
static void test_hlo(void)
{
	struct pbuf shp = { 0 }, lay = { 0 }, dims = { 0 }, scal = { 0 }, md = { 0 }, ids = { 0 };
	struct pbuf a = { 0 }, c = { 0 }, r = { 0 }, comp = { 0 }, mod = { 0 }, hlo = { 0 };
	struct pbuf stat = { 0 }, em = { 0 }, entry = { 0 }, plane = { 0 };
	const char *want = "\"hloOps\":{\"m\":{\"p\":{\"output\":\"bf16[2,3]{1,0}\",\"operands\":\"\"},"
			   "\"cc\":{\"output\":\"f32[]\",\"operands\":\"bf16[2,3]{1,0}%p,bf16[2,3]{1,0}%p\","
			   "\"metadata\":\"metadata={op_name=\\\"op/x\\\" source_line=7}\","
			   "\"custom_call_target\":\"custom_call_target=\\\"__cublas$gemm\\\"\"}}},";
	char *out = NULL;
	size_t n = 0;
	int err;

	pb_varint(&dims, 2);
	pb_varint(&dims, 3);
	pb_varint(&lay, 1);
	pb_varint(&lay, 0);
	{
		struct pbuf l = { 0 };

		pb_msg(&l, 1, &lay);
		pb_int(&shp, 2, 16);	/* BF16 */
		pb_msg(&shp, 3, &dims);
		pb_msg(&shp, 5, &l);
	}
	pb_int(&scal, 2, 11);	/* F32, rank 0 */
	pb_str(&md, 2, "op/x");
	pb_int(&md, 4, 7);
	pb_varint(&ids, 1);
	pb_varint(&ids, 1);
	pb_str(&a, 1, "p");
	pb_str(&a, 2, "parameter");
	pb_msg(&a, 3, &shp);
	pb_int(&a, 35, 1);
	pb_str(&c, 1, "cc");
	pb_str(&c, 2, "custom-call");
	pb_msg(&c, 3, &scal);
	pb_msg(&c, 7, &md);
	pb_str(&c, 28, "__cublas$gemm");
	pb_int(&c, 35, 2);
	pb_msg(&c, 36, &ids);
	pb_str(&r, 1, "r");
	pb_msg(&r, 3, &scal);
	pb_int(&r, 35, 3);
	pb_str(&comp, 1, "main");
	pb_msg(&comp, 2, &a);
	pb_msg(&comp, 2, &c);
	pb_msg(&comp, 2, &r);
	pb_int(&comp, 6, 3);
	pb_str(&mod, 1, "m");
	pb_msg(&mod, 3, &comp);
	pb_msg(&hlo, 1, &mod);
	pb_int(&stat, 1, 1);
	pb_msg(&stat, 6, &hlo);
	pb_int(&em, 1, 1);
	pb_str(&em, 2, "m(1)");
	pb_msg(&em, 5, &stat);
	pb_int(&entry, 1, 1);
	pb_msg(&entry, 2, &em);
	pb_int(&plane, 1, 99);
	pb_str(&plane, 2, "/host:metadata");
	pb_msg(&plane, 4, &entry);
	err = tl_xplane_hlo_json(plane.b, plane.n, &out, &n);
	ok(!err && out && n == strlen(out), "HLO of a metadata plane read (%d)", err);
	ok(out && !strcmp(out, want), "HLO ops: operand shapes with layouts, metadata, target, no root");
	if (out && strcmp(out, want))
		diag("got  %s\nwant %s", out, want);
	free(out);
	/* a plane without HLO: an empty object; a cut one: -EBADMSG */
	{
		struct pbuf e = { 0 };

		pb_str(&e, 2, "/host:metadata");
		err = tl_xplane_hlo_json(e.b, e.n, &out, &n);
		ok(!err && out && !strcmp(out, "\"hloOps\":{},"), "no HLO: an empty hloOps");
		free(out);
	}
	err = tl_xplane_hlo_json(plane.b, plane.n - 3, &out, &n);
	ok(err == -EBADMSG || (!err && out), "a cut plane is an error or skipped, never a crash (%d)", err);
	if (!err)
		free(out);
}

int main(int argc, char **argv)
{
	const char *src = __FILE__, *slash = strrchr(src, '/');

	(void)argc;
	(void)argv;
	/* tests/unit/test_xplane.c -> tests/fixtures */
	snprintf(fixtures, sizeof(fixtures), "%.*s/../fixtures", slash ? (int)(slash - src) : 1,
		 slash ? src : ".");
	test_sniff();
	test_fixture();
	test_damage();
	test_packed();
	test_metadata_last();
	test_hlo();
	return done_testing();
}
