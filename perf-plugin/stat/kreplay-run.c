/* SPDX-License-Identifier: MIT */
/* Recorded kernel launches replayed, timed, verified and counted
 * (kreplay-run.h). */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <tlreplay/counters.h>
#include <tlreplay/kreplay.h>
#include <tlreplay/replay.h>
#include <tlreplay/store.h>

#include <dlfcn.h>

#include "stat/kreplay-run.h"
#include "stat/gpu-events.h"
#include "replay/results.h"
#include "stat/stat-format.h"
#include "stat/stat-run.h"
#include "chart/sweep-chart.h"


static int parse_dims(const char *what, const char *list, unsigned (**out)[3], size_t *n)
{
	const char *p = list;

	*out = NULL;
	*n = 0;
	while (*p) {
		unsigned d[3] = { 1, 1, 1 }, (*grown)[3];
		int k;

		for (k = 0; k < 3; k++) {
			char *end;
			unsigned long v;

			errno = 0;
			v = strtoul(p, &end, 10);
			if (errno || end == p || !v || v > 2147483647UL || *p == '-')
				goto bad;
			d[k] = (unsigned)v;
			p = end;
			if (*p != 'x')
				break;
			p++;
		}
		if (*p && *p != ',')
			goto bad;
		grown = realloc(*out, (*n + 1) * sizeof(**out));
		if (!grown)
			return cli_error("out of memory");
		*out = grown;
		memcpy((*out)[(*n)++], d, sizeof(d));
		if (*p == ',' && !*++p)
			goto bad;
	}
	if (!*n)
		goto bad;
	return 0;
bad:
	free(*out);
	*out = NULL;
	return cli_error("kreplay: bad --%s '%s' (sizes X or XxYxZ, comma-separated: 128,256,512x2)", what, list);
}


struct counting {
	struct tl_counters *c;
	int err;
	struct timespec t0;
	double elapsed_s;	/* wall time of the region */
};

static void region(int begin, void *ctx)
{
	struct counting *k = ctx;
	struct timespec t;

	if (k->c && !k->err)
		k->err = begin ? tl_counters_enable(k->c) : tl_counters_disable(k->c);
	clock_gettime(CLOCK_MONOTONIC, &t);
	if (begin)
		k->t0 = t;
	else
		k->elapsed_s = (double)(t.tv_sec - k->t0.tv_sec) + (t.tv_nsec - k->t0.tv_nsec) / 1e9;
}

static double source_num(const struct tl_kdb_launch *l, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(l->source, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void dims(char *buf, size_t n, const unsigned d[3])
{
	snprintf(buf, n, "%ux%ux%u", d[0], d[1], d[2]);
}

/* ------------------------------------------------------------ GPU metrics */

/* libtlreplay_gpu.so (core/gpu/tlreplay_gpu.h), loaded when asked for. */
struct tlg;
struct gpu_api {
	void *dl;
	int (*open)(int, const char *const *, int, struct tlg **);
	int (*begin)(struct tlg *, int);
	int (*end)(struct tlg *, int);
	int (*values)(struct tlg *, double *);
	int (*status)(const struct tlg *, int);
	const char *(*why)(const struct tlg *, int);
	const char *(*unit)(const struct tlg *, int);
	void (*close)(struct tlg *);
	const char *(*error)(void);
};

static const char *gpu_api_load(struct gpu_api *a)
{
	const char *path = gpu_lib_path();

	memset(a, 0, sizeof(*a));
	if (!path)
		return "libtlreplay_gpu.so is not installed beside tlreplay (built where the CUDA headers are)";
	a->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!a->dl)
		return dlerror();
	*(void **)&a->open = dlsym(a->dl, "tlg_open");
	*(void **)&a->begin = dlsym(a->dl, "tlg_begin_pass");
	*(void **)&a->end = dlsym(a->dl, "tlg_end_pass");
	*(void **)&a->values = dlsym(a->dl, "tlg_values");
	*(void **)&a->status = dlsym(a->dl, "tlg_metric_status");
	*(void **)&a->why = dlsym(a->dl, "tlg_metric_why");
	*(void **)&a->unit = dlsym(a->dl, "tlg_metric_unit");
	*(void **)&a->close = dlsym(a->dl, "tlg_close");
	*(void **)&a->error = dlsym(a->dl, "tlg_error");
	if (!a->open || !a->begin || !a->end || !a->values || !a->status || !a->why || !a->unit || !a->close ||
	    !a->error)
		return "libtlreplay_gpu.so lacks the tlg_* functions (another version?)";
	return NULL;
}

/* Count the GPU metrics @names (as typed: nvgpu/M/, nvgpuN/M/) on launch
 * @k, one launch per CUPTI pass, into @rep. A metric that cannot be counted
 * reads <not supported> with the reason, as stat says it. Returns 0, or 1
 * after printing why (a replay that failed). */
static int count_gpu(struct tl_kreplay *k, int device, const cJSON *names, struct stat_report *rep)
{
	size_t n = (size_t)cJSON_GetArraySize(names), i = 0, m = 0;
	const char **metric = calloc(n + 1, sizeof(*metric));
	int *slot = calloc(n + 1, sizeof(*slot));
	double *val = calloc(n + 1, sizeof(*val));
	char **why = calloc(n + 1, sizeof(*why));
	struct gpu_api a = { 0 };
	struct tlg *g = NULL;
	const char *fail = NULL;
	const cJSON *it;
	int rc = 1, pass, r = 0;

	if (!metric || !slot || !val || !why) {
		cli_error("out of memory");
		goto out;
	}
	/* nvgpuN/ names a device: only this replay's is counted */
	cJSON_ArrayForEach(it, names) {
		const char *t = it->valuestring, *p = t + 5, *end;
		char *num_end;
		long dev = strtol(p, &num_end, 10);

		slot[i] = -1;
		if (num_end != p && dev != device) {
			if (asprintf(&why[i], "the kernel is replayed on cuda:%d", device) < 0)
				why[i] = NULL;
		} else {
			p = strchr(t, '/');
			end = p ? strrchr(p + 1, '/') : NULL;
			if (!p || !end || end == p + 1) {
				why[i] = strdup("not a GPU metric: nvgpu/METRIC/");
			} else if ((metric[m] = strndup(p + 1, (size_t)(end - p - 1)))) {
				slot[i] = (int)m++;
			}
		}
		i++;
	}
	if (m && !(fail = gpu_api_load(&a)) && a.open(device, metric, (int)m, &g))
		fail = a.error();
	for (pass = 0; g && !fail; pass++) {
		int err;

		if (a.begin(g, pass)) {
			fail = a.error();
			break;
		}
		if ((err = tl_kreplay_once(k, NULL))) {
			cli_error("kreplay: metric pass %d: %s", pass, tl_last_error());
			goto out;
		}
		r = a.end(g, pass);
		if (r < 0)
			fail = a.error();
		if (r)
			break;
	}
	if (g && !fail && a.values(g, val))
		fail = a.error();
	i = 0;
	cJSON_ArrayForEach(it, names) {
		int s = slot[i];
		bool counted = s >= 0 && !fail && !a.status(g, s);
		double v = counted ? val[s < 0 ? 0 : s] : 0;
		const char *reason = why[i] ? why[i] : fail ? fail : s >= 0 && g ? a.why(g, s) : "out of memory";

		/* one launch per pass: the value is the kernel's */
		if (stat_report_add_gpu(rep, it->valuestring, s >= 0 && g ? a.unit(g, s) : "", counted, v, 1, false,
					reason))
			goto out;
		i++;
	}
	rc = 0;
out:
	if (g)
		a.close(g);
	for (i = 0; metric && i < n; i++) {
		free((char *)metric[i]);
		free(why ? why[i] : NULL);
	}
	free(metric);
	free(slot);
	free(val);
	free(why);
	return rc;
}

/* CUDA events give float milliseconds (about 0.5 us resolution): in
 * microseconds, rounded to the nanosecond so that the float's noise digits
 * do not show. */
static void to_us(double *ms, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ms[i] = round(ms[i] * 1e6) / 1e3;
}

/* An integer field of -x output. */
static void out_int(struct out_fmt *f, unsigned long long v, bool last)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", v);
	out_field(f, buf, last);
}

/* Time (and count, and verify) launch @r->idx with its recorded configuration. */
int kreplay_run_one(const struct kreplay_opts *o, const struct tl_kdb *db, struct run *r, double tol,
		   enum tl_kdtype dt)
{
	struct tl_kreplay *k = NULL;
	struct counting cnt = { 0 };
	struct event_split sp = { .energy_dev = -1 };
	double *ms = calloc(o->reps, sizeof(*ms));
	unsigned long long run, runs = o->runs ? o->runs : 1;
	int rc = 1, err;

	if (!ms)
		return cli_error("out of memory");
	if (o->events && event_split(o->events, &sp))
		goto out;
	if (sp.energy_dev >= 0) {
		cli_error("kreplay: %s: GPU energy is counted by stat and sweep only", sp.energy_name);
		goto out;
	}
	if ((err = tl_kreplay_open(db, r->idx, (int)o->device, &k))) {
		cli_error("kreplay: %s: %s", r->l->demangled, tl_last_error());
		goto out;
	}
	snprintf(r->device, sizeof(r->device), "%s", tl_kreplay_device(k));
	if (sp.perf) {
		struct tl_counters_opts co = { .sz = sizeof(co), .no_scale = o->no_scale };

		if ((err = tl_counters_open(sp.perf, &co, &cnt.c))) {
			rc = cli_lib_error(err);
			goto out;
		}
	}
	if (o->events) {
		r->rep.what = o->what ? o->what : "tlreplay kreplay";
		r->rep.op = r->l->demangled;
		r->rep.device = r->device;
		r->rep.calls_per_run = (long)o->reps;
		r->rep.runs = runs;
		r->rep.repeat = o->repeat_given;
		r->counted = true;
	}
	/* the times are the last run's */
	for (run = 0; run < runs; run++) {
		const struct tl_counter_value *v;
		size_t n;

		if ((err = tl_kreplay_time(k, NULL, (unsigned)o->warmup, (unsigned)o->reps, o->flush_l2, ms, region,
					   &cnt))) {
			cli_error("kreplay: %s: %s", r->l->demangled, tl_last_error());
			goto out;
		}
		if (o->events)
			welford_add(&r->rep.elapsed_s, cnt.elapsed_s);
		if (!cnt.c)
			continue;
		if (cnt.err || (err = tl_counters_read(cnt.c, &v, &n))) {
			rc = cli_lib_error(cnt.err ? cnt.err : err);
			goto out;
		}
		if (stat_report_add(&r->rep, v, n))
			goto out;
	}
	if (sp.gpu && count_gpu(k, (int)o->device, sp.gpu, &r->rep))
		goto out;
	to_us(ms, o->reps);
	tl_stats_compute(ms, o->reps, &r->st);
	if (o->verify) {
		if ((err = tl_kreplay_verify(k, NULL, o->tolerance ? dt : TL_KDT_BYTES, tol, &r->v))) {
			cli_error("kreplay: %s: verify: %s", r->l->demangled, tl_last_error());
			goto out;
		}
		r->verified = true;
		r->matched = !r->v.ndiffs;
	}
	rc = 0;
out:
	tl_counters_close(cnt.c);
	event_split_free(&sp);
	tl_kreplay_close(k);
	free(ms);
	return rc;
}

/* How many of the launch's allocations came from the recorder's arena. */
static size_t in_arena(const struct tl_kdb_launch *l)
{
	size_t i, n = 0;

	for (i = 0; i < l->nmem; i++)
		if (l->arena_size && l->mem[i].base >= l->arena_base && l->mem[i].base - l->arena_base < l->arena_size)
			n++;
	return n;
}

/* Where the recorded memory lies: the arena is what a fresh process can
 * have; what the driver placed may be taken here. */
static void print_memory(FILE *f, const struct tl_kdb_launch *l)
{
	size_t n = in_arena(l);
	uint64_t bytes = 0;
	const cJSON *note;
	size_t i;

	for (i = 0; i < l->nmem; i++)
		bytes += l->mem[i].size;
	fprintf(f, "  memory %zu allocations, %.1f MiB", l->nmem, bytes / 1048576.0);
	if (!l->arena_size)
		fprintf(f, ", where the driver put them (recorded without the arena)\n");
	else if (n == l->nmem)
		fprintf(f, ", in the recorder's arena at 0x%llx\n", (unsigned long long)l->arena_base);
	else
		fprintf(f, ", %zu in the recorder's arena at 0x%llx, %zu where the driver put them\n", n,
			(unsigned long long)l->arena_base, l->nmem - n);
	/* what the recorder could not carry over, said when it recorded */
	cJSON_ArrayForEach(note, l->notes)
		if (cJSON_IsString(note))
			fprintf(f, "  note   %s\n", note->valuestring);
}

static void print_diffs(FILE *f, const struct tl_kverify *v, const char *indent)
{
	size_t i;

	for (i = 0; i < v->ndiffs; i++) {
		const struct tl_kdiff *d = &v->diffs[i];

		fprintf(f, "%sallocation 0x%llx (%llu bytes): %llu bytes differ, the first at +%llu", indent,
			(unsigned long long)d->base, (unsigned long long)d->size, (unsigned long long)d->bytes,
			(unsigned long long)d->first);
		if (d->elems)
			fprintf(f, "; %llu elements beyond the tolerance, max |diff| %g", (unsigned long long)d->elems,
				d->max_abs);
		fputc('\n', f);
	}
}

void kreplay_print_run(struct out_fmt *f, const struct run *r, const char *device)
{
	char g[40], b[40], t[32];
	double trace_us = source_num(r->l, "trace_us");

	dims(g, sizeof(g), r->l->grid);
	dims(b, sizeof(b), r->l->block);
	if (f->json) {
		cJSON *o = cJSON_CreateObject();
		char *s;

		cJSON_AddNumberToObject(o, "launch", (double)r->idx);
		cJSON_AddStringToObject(o, "kernel", r->l->demangled);
		cJSON_AddStringToObject(o, "grid", g);
		cJSON_AddStringToObject(o, "block", b);
		cJSON_AddNumberToObject(o, "shared_bytes", r->l->shared_bytes);
		cJSON_AddStringToObject(o, "device", device);
		cJSON_AddNumberToObject(o, "in_arena", (double)in_arena(r->l));
		cJSON_AddNumberToObject(o, "allocations", (double)r->l->nmem);
		if (r->l->notes)
			cJSON_AddItemToObject(o, "notes", cJSON_Duplicate(r->l->notes, true));
		cJSON_AddNumberToObject(o, "iters", (double)r->st.n);
		cJSON_AddNumberToObject(o, "median_us", r->st.median);
		cJSON_AddNumberToObject(o, "mean_us", r->st.mean);
		cJSON_AddNumberToObject(o, "std_us", isfinite(r->st.std) ? r->st.std : 0);
		cJSON_AddNumberToObject(o, "min_us", r->st.min);
		cJSON_AddNumberToObject(o, "max_us", r->st.max);
		if (isfinite(trace_us))
			cJSON_AddNumberToObject(o, "trace_us", trace_us);
		if (r->verified)
			cJSON_AddStringToObject(o, "verify", r->matched ? "match" : "differs");
		if (r->counted)
			cJSON_AddItemToObject(o, "counters", stat_counters_json(&r->rep));
		s = cJSON_PrintUnformatted(o);
		if (s)
			fprintf(f->f, "%s\n", s);
		free(s);
		cJSON_Delete(o);
		return;
	}
	if (f->sep) {
		char num[64];

		snprintf(num, sizeof(num), "%zu", r->idx);
		out_field(f, num, false);
		out_field(f, r->l->demangled, false);
		out_field(f, g, false);
		out_field(f, b, false);
		out_int(f, r->l->shared_bytes, false);
		out_field(f, device, false);
		out_int(f, r->st.n, false);
		out_num(f, r->st.median, false);
		out_num(f, r->st.mean, false);
		out_num(f, isfinite(r->st.std) ? r->st.std : 0, false);
		out_num(f, r->st.min, false);
		out_num(f, r->st.max, false);
		if (isfinite(trace_us))
			out_num(f, trace_us, false);
		else
			out_field(f, "", false);
		out_field(f, !r->verified ? "" : r->matched ? "match" : "differs", true);
		return;
	}
	fprintf(f->f, "%s\n  launch %zu: grid %s, block %s, %u B shared, on %s\n", r->l->demangled, r->idx, g, b,
		r->l->shared_bytes, device);
	print_memory(f->f, r->l);
	fmt_us(t, sizeof(t), r->st.median);
	fprintf(f->f, "  time   median %s", t);
	fmt_us(t, sizeof(t), r->st.mean);
	fprintf(f->f, ", mean %s", t);
	fmt_us(t, sizeof(t), r->st.min);
	fprintf(f->f, ", min %s", t);
	fmt_us(t, sizeof(t), r->st.max);
	fprintf(f->f, ", max %s (%zu launches)\n", t, r->st.n);
	if (isfinite(trace_us)) {
		fmt_us(t, sizeof(t), trace_us);
		fprintf(f->f, "  trace  %s (UID %.0f); replay/trace %.2f\n", t, source_num(r->l, "uid"),
			trace_us > 0 ? r->st.median / trace_us : NAN);
	}
	if (r->verified) {
		fprintf(f->f, "  verify %s (%zu allocations, %.1f MiB compared)\n",
			r->matched ? "match" : "DIFFERS", r->l->nmem, r->v.compared / 1048576.0);
		print_diffs(f->f, &r->v, "         ");
	}
}

cJSON *kreplay_run_record(const struct kreplay_opts *o, const struct tl_kdb *db, const struct run *r,
			 const char *device, const char *error)
{
	cJSON *rec = result_new(o->what ? "stat" : "kreplay"), *t, *kd;
	const cJSON *trace = cJSON_GetObjectItemCaseSensitive(r->l->source, "trace");
	char dev[32];
	char *abs;

	if (!rec)
		return NULL;
	snprintf(dev, sizeof(dev), "cuda:%llu", o->device);
	cJSON_AddStringToObject(rec, "device", dev);
	cJSON_AddStringToObject(rec, "device_name", device ? device : "?");
	if (cJSON_IsObject(trace))
		cJSON_AddItemToObject(rec, "trace", cJSON_Duplicate(trace, true));
	else
		cJSON_AddNullToObject(rec, "trace");
	kd = cJSON_AddObjectToObject(rec, "kdb");
	abs = realpath(tl_kdb_dir(db), NULL);
	cJSON_AddStringToObject(kd, "path", abs ? abs : tl_kdb_dir(db));
	free(abs);
	cJSON_AddNumberToObject(kd, "launch", (double)r->idx);
	if (isfinite(source_num(r->l, "uid")))
		cJSON_AddNumberToObject(rec, "uid", source_num(r->l, "uid"));
	cJSON_AddStringToObject(rec, "op", r->l->demangled);
	cJSON_AddStringToObject(rec, "status", error ? "failed" : "ok");
	if (error)
		cJSON_AddStringToObject(rec, "error", error);
	cJSON_AddNumberToObject(rec, "warmup", (double)o->warmup);
	if (!error) {
		cJSON *k = cJSON_AddArrayToObject(rec, "kernels");

		cJSON_AddNumberToObject(rec, "iters", (double)r->st.n);
		t = cJSON_AddObjectToObject(rec, "time_us");
		cJSON_AddNumberToObject(t, "median", r->st.median);
		cJSON_AddNumberToObject(t, "mean", r->st.mean);
		cJSON_AddNumberToObject(t, "std", isfinite(r->st.std) ? r->st.std : 0);
		cJSON_AddNumberToObject(t, "min", r->st.min);
		cJSON_AddNumberToObject(t, "max", r->st.max);
		cJSON_AddItemToArray(k, cJSON_CreateString(r->l->demangled));
		/* the same kernel, replayed from its recorded launch */
		cJSON_AddNumberToObject(rec, "kernel_us", r->st.median);
		if (cJSON_IsObject(trace))
			cJSON_AddStringToObject(rec, "kernels_vs_trace", "MATCH");
		if (r->verified)
			cJSON_AddStringToObject(rec, "verify", r->matched ? "match" : "differs");
		if (r->counted)
			cJSON_AddItemToObject(rec, "counters", stat_counters_json(&r->rep));
	}
	if (isfinite(source_num(r->l, "trace_us")))
		cJSON_AddNumberToObject(rec, "trace_gpu_us", source_num(r->l, "trace_us"));
	return rec;
}

int kreplay_store(const struct kreplay_opts *o, const cJSON *rec)
{
	struct replay_opts ro = { .store = o->store, .no_store = o->no_store };

	return result_store(&ro, rec);
}

/* ------------------------------------------------------------ grid search */

struct cfg_row {
	unsigned grid[3], block[3];
	const char *status;	/* "ok", "refused", "failed" */
	char why[256];
	struct tl_stats st;
	const char *verify;	/* "match", "differs" */
	char label[128];
};

int kreplay_grid_search(const struct kreplay_opts *o, const struct tl_kdb *db, size_t idx, double tol,
		       enum tl_kdtype dt, struct out_fmt *f)
{
	const struct tl_kdb_launch *l = tl_kdb_launch(db, idx);
	unsigned(*grids)[3] = NULL, (*blocks)[3] = NULL;
	size_t ng = 1, nb = 1, i, j, n = 0;
	struct cfg_row *rows = NULL;
	struct chart_op *ops = NULL;
	struct tl_kreplay *k = NULL;
	double *ms = calloc(o->reps, sizeof(*ms)), base = NAN, best = INFINITY;
	size_t best_i = 0;
	int rc = 1, err;

	if (!ms)
		return cli_error("out of memory");
	if ((o->grid && parse_dims("grid", o->grid, &grids, &ng)) ||
	    (o->block && parse_dims("block", o->block, &blocks, &nb)))
		goto out;
	rows = calloc(ng * nb + 1, sizeof(*rows));
	if (!rows) {
		rc = cli_error("out of memory");
		goto out;
	}
	if ((err = tl_kreplay_open(db, idx, (int)o->device, &k))) {
		rc = cli_error("kreplay: %s: %s", l->demangled, tl_last_error());
		goto out;
	}
	/* the recorded configuration first: the baseline */
	for (i = 0; i <= ng * nb; i++) {
		struct cfg_row *r = &rows[n];
		struct tl_kconfig c = { { 0 }, { 0 }, 0, false };
		struct tl_kverify v;
		char g[40], b[40];

		if (i) {
			memcpy(c.grid, grids ? grids[(i - 1) / nb] : l->grid, sizeof(c.grid));
			memcpy(c.block, blocks ? blocks[(i - 1) % nb] : l->block, sizeof(c.block));
			if (!memcmp(c.grid, l->grid, sizeof(c.grid)) && !memcmp(c.block, l->block, sizeof(c.block)))
				continue;	/* the baseline */
		} else {
			memcpy(c.grid, l->grid, sizeof(c.grid));
			memcpy(c.block, l->block, sizeof(c.block));
		}
		memcpy(r->grid, c.grid, sizeof(r->grid));
		memcpy(r->block, c.block, sizeof(r->block));
		dims(g, sizeof(g), r->grid);
		dims(b, sizeof(b), r->block);
		snprintf(r->label, sizeof(r->label), "grid %s, block %s%s", g, b, i ? "" : " (recorded)");
		n++;
		if (tl_kreplay_check(k, &c)) {
			r->status = "refused";
			snprintf(r->why, sizeof(r->why), "%s", tl_last_error());
			continue;
		}
		if ((err = tl_kreplay_time(k, &c, (unsigned)o->warmup, (unsigned)o->reps, o->flush_l2, ms, NULL, NULL)) ||
		    (err = tl_kreplay_verify(k, &c, o->tolerance ? dt : TL_KDT_BYTES, tol, &v))) {
			r->status = "failed";
			snprintf(r->why, sizeof(r->why), "%s", tl_last_error());
			if (!i) {
				rc = cli_error("kreplay: %s: the recorded configuration fails: %s", l->demangled, r->why);
				goto out;
			}
			continue;
		}
		to_us(ms, o->reps);
		tl_stats_compute(ms, o->reps, &r->st);
		r->status = "ok";
		r->verify = v.ndiffs ? "differs" : "match";
		tl_kverify_clear(&v);
		if (!i)
			base = r->st.median;
		if (!strcmp(r->verify, "match") && r->st.median < best) {
			best = r->st.median;
			best_i = n - 1;
		}
	}
	if (!f->json && !f->sep && f->f == stdout && !o->co.output)
		fprintf(stderr, "tlreplay: %s: %zu configurations on %s\n", l->demangled, n, tl_kreplay_device(k));
	/* CSV by default (-x, to another separator; -j: JSON lines) */
	if (!f->json) {
		const char *cols[] = { "kernel", "grid", "block", "shared_bytes", "status", "median_us", "mean_us",
				       "std_us", "min_us", "verify", "speedup", "why" };

		for (i = 0; i < TL_ARRAY_N(cols); i++)
			out_field(f, cols[i], i + 1 == TL_ARRAY_N(cols));
	}
	for (i = 0; i < n; i++) {
		struct cfg_row *r = &rows[i];
		char g[40], b[40];
		bool ok = !strcmp(r->status, "ok");

		dims(g, sizeof(g), r->grid);
		dims(b, sizeof(b), r->block);
		if (f->json) {
			cJSON *jo = cJSON_CreateObject();
			char *s;

			cJSON_AddStringToObject(jo, "kernel", l->demangled);
			cJSON_AddStringToObject(jo, "grid", g);
			cJSON_AddStringToObject(jo, "block", b);
			cJSON_AddNumberToObject(jo, "shared_bytes", l->shared_bytes);
			cJSON_AddStringToObject(jo, "status", r->status);
			if (ok) {
				cJSON_AddNumberToObject(jo, "median_us", r->st.median);
				cJSON_AddNumberToObject(jo, "mean_us", r->st.mean);
				cJSON_AddNumberToObject(jo, "std_us", isfinite(r->st.std) ? r->st.std : 0);
				cJSON_AddNumberToObject(jo, "min_us", r->st.min);
				cJSON_AddStringToObject(jo, "verify", r->verify);
				cJSON_AddNumberToObject(jo, "speedup", base / r->st.median);
			} else {
				cJSON_AddStringToObject(jo, "why", r->why);
			}
			s = cJSON_PrintUnformatted(jo);
			if (s)
				fprintf(f->f, "%s\n", s);
			free(s);
			cJSON_Delete(jo);
			continue;
		}
		out_field(f, l->demangled, false);
		out_field(f, g, false);
		out_field(f, b, false);
		out_int(f, l->shared_bytes, false);
		out_field(f, r->status, false);
		if (ok) {
			out_num(f, r->st.median, false);
			out_num(f, r->st.mean, false);
			out_num(f, isfinite(r->st.std) ? r->st.std : 0, false);
			out_num(f, r->st.min, false);
			out_field(f, r->verify, false);
			out_num(f, base / r->st.median, false);
			out_field(f, "", true);
		} else {
			for (j = 0; j < 6; j++)
				out_field(f, "", false);
			out_field(f, r->why, true);
		}
	}
	if (isfinite(best))
		fprintf(stderr, "tlreplay: fastest verified: %s: %.3f us, %.2fx the recorded configuration\n",
			rows[best_i].label, best, base / best);
	if (o->chart) {
		struct chart_opts co = { 0 };
		char title[300], sub[300];

		ops = calloc(n, sizeof(*ops));
		if (!ops) {
			rc = cli_error("out of memory");
			goto out;
		}
		for (i = 0; i < n; i++) {
			bool ok = !strcmp(rows[i].status, "ok");

			ops[i].label = rows[i].label;
			ops[i].detail = !ok ? rows[i].why : !strcmp(rows[i].verify, "match") ? "outputs match"
											    : "OUTPUTS DIFFER";
			ops[i].replay_us = ok ? rows[i].st.median : NAN;
			ops[i].device = tl_kreplay_device(k);
			ops[i].trace_gpu_us = NAN;
			ops[i].flops = ops[i].bytes = NAN;
		}
		snprintf(title, sizeof(title), "tlreplay kreplay: %.200s", l->demangled);
		if (isfinite(source_num(l, "trace_us")))
			snprintf(sub, sizeof(sub), "on %s, median of %llu launches; %.3f us in the trace",
				 tl_kreplay_device(k), o->reps, source_num(l, "trace_us"));
		else
			snprintf(sub, sizeof(sub), "on %s, median of %llu launches", tl_kreplay_device(k), o->reps);
		co.title = title;
		co.noun = n == 1 ? "configuration" : "configurations";
		co.keep_order = true;
		co.subtitle = sub;
		if (chart_write(o->chart, ops, n, &co))
			goto out;
	}
	rc = 0;
out:
	free(ops);
	tl_kreplay_close(k);
	free(rows);
	free(grids);
	free(blocks);
	free(ms);
	return rc;
}

/* ------------------------------------------------------------ stat's target */

int kreplay_stat(struct kreplay_stat_req *q, struct stat_report *rep)
{
	struct kreplay_opts o = { .reps = (unsigned long long)q->iters, .warmup = (unsigned long long)q->warmup,
				  .flush_l2 = q->flush_l2, .events = q->events ? q->events : TL_COUNTERS_DEFAULT_EVENTS,
				  .device = (unsigned long long)q->device, .store = q->store, .no_store = q->no_store,
				  .runs = q->runs, .repeat_given = q->repeat_given, .no_scale = q->no_scale };
	struct tl_kdb *db = NULL;
	struct run r = { 0 };
	cJSON *rec = NULL;
	size_t idx = 0;
	int rc = 1, err;

	if ((err = tl_kdb_open(q->db, &db)))
		return cli_lib_error(err);
	if (q->launch) {
		char *end;

		errno = 0;
		idx = strtoul(q->launch, &end, 10);
		if (errno || end == q->launch || *end || *q->launch == '-' || idx >= tl_kdb_count(db)) {
			cli_error("stat: bad launch '%s' (%s has %zu, from 0)", q->launch, q->db, tl_kdb_count(db));
			goto out;
		}
	} else if (tl_kdb_count(db) != 1) {
		cli_error("stat: %s holds %zu launches: which one? (tlreplay stat ... kreplay DB N)", q->db,
			  tl_kdb_count(db));
		goto out;
	}
	snprintf(q->what, sizeof(q->what), "tlreplay kreplay %s %zu", q->db, idx);
	o.what = q->what;
	r.l = tl_kdb_launch(db, idx);
	r.idx = idx;
	if (kreplay_run_one(&o, db, &r, 0, TL_KDT_BYTES))
		goto out;
	rec = kreplay_run_record(&o, db, &r, r.device, NULL);
	rc = kreplay_store(&o, rec);
	/* the report outlives the database: its names point into @q */
	snprintf(q->op, sizeof(q->op), "%s", r.l->demangled);
	snprintf(q->device_name, sizeof(q->device_name), "%s", r.device);
	*rep = r.rep;
	memset(&r.rep, 0, sizeof(r.rep));
	rep->what = q->what;
	rep->op = q->op;
	rep->device = q->device_name;
out:
	cJSON_Delete(rec);
	stat_report_free(&r.rep);
	tl_kdb_free(db);
	return rc;
}

