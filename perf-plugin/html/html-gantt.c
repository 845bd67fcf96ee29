/* SPDX-License-Identifier: MIT */
/* The HTML report's timeline data (html-gantt.h): lanes of intervals,
 * reduced to a budget, as JSON.
 *
 * Format (read by perf-plugin/html/assets/report.js):
 *   {"t0": µs of the trace at 0, "q": µs per tick, "res": resolution µs,
 *    "span": µs, "cats": [{"name", "color"}...], "names": [...],
 *    "lanes": [{"label", "group", "kind": "cpu"|"idle"|"gpu", "n": events,
 *               "iv": [gap, width, code, name, ...]}...],
 *    "steps": [{"name", "a", "b", "phase" (serving iterations)}...]}
 * Each interval is four integers: the ticks from the end of the one before
 * (from 0 for the first), its width in ticks, its code (category | busy
 * level << 3 | 64 when it merges several events) and the index of its name
 * (the longest event in it) in "names". */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/analysis.h>
#include <tlreplay/tree.h>

#include "html/html-gantt.h"
#include "html/html-page.h"

/* The categories of the lanes' intervals: the JSON's "cats", in this order. */
enum { GC_COMPUTE, GC_COMM, GC_MEMCPY, GC_LAUNCH, GC_HOST_WAIT, GC_KERNEL_WAIT, GC_OTHER_WAIT, GC_N };

static const struct {
	const char *name, *color;
} gcats[GC_N] = {
	{ "compute", HP_COMPUTE },	   { "comm", HP_COMM },
	{ "memcpy", HP_MEMCPY },	   { "CPU launch call", HP_LAUNCH },
	{ "idle: host wait", HP_HOST_WAIT }, { "idle: kernel wait", HP_KERNEL_WAIT },
	{ "idle: other", HP_OTHER_WAIT },
};

enum lane_kind { LK_CPU, LK_IDLE, LK_GPU };

struct raw {
	double s, e;
	uint32_t name;
	uint8_t cat;
};

struct lane {
	const char *pid, *tid;	/* owned by the trace */
	enum lane_kind kind;
	struct raw *v;
	size_t n, cap;
};

/* Interned names: open addressing over an array of names in first-seen order. */
struct names {
	const char **v;
	size_t n, cap;
	uint32_t *slot;	/* index + 1, 0 = empty */
	size_t nslot;
	uint32_t *out;	/* index in the JSON's "names" + 1, 0 = not written yet */
};

struct gantt {
	struct lane *lane;
	size_t nlane, cap;
	struct names nm;
	size_t last;	/* the lane found last: events come in runs of one lane */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int name_id(struct names *nm, const char *s, uint32_t *out)
{
	size_t i;

	if (nm->n * 2 >= nm->nslot) {
		size_t ns = nm->nslot ? nm->nslot * 2 : 1024, k;
		uint32_t *slot = calloc(ns, sizeof(*slot));

		if (!slot)
			return -ENOMEM;
		for (k = 0; k < nm->n; k++) {
			for (i = hash_str(nm->v[k]) & (ns - 1); slot[i]; i = (i + 1) & (ns - 1))
				;
			slot[i] = (uint32_t)k + 1;
		}
		free(nm->slot);
		nm->slot = slot;
		nm->nslot = ns;
	}
	for (i = hash_str(s) & (nm->nslot - 1); nm->slot[i]; i = (i + 1) & (nm->nslot - 1))
		if (!strcmp(nm->v[nm->slot[i] - 1], s)) {
			*out = nm->slot[i] - 1;
			return 0;
		}
	if (nm->n == nm->cap) {
		size_t c = nm->cap ? nm->cap * 2 : 256;
		const char **v = realloc(nm->v, c * sizeof(*v));

		if (!v)
			return -ENOMEM;
		nm->v = v;
		nm->cap = c;
	}
	nm->v[nm->n] = s;
	nm->slot[i] = (uint32_t)++nm->n;
	*out = (uint32_t)nm->n - 1;
	return 0;
}

static bool same(const char *a, const char *b)
{
	return a == b || !strcmp(a, b);
}

/* The lane of (@kind, @pid, @tid), made when new; NULL when out of memory. */
static struct lane *lane_of(struct gantt *g, enum lane_kind kind, const char *pid, const char *tid)
{
	struct lane *l;
	size_t i;

	if (g->last < g->nlane) {
		l = &g->lane[g->last];
		if (l->kind == kind && same(l->pid, pid) && same(l->tid, tid))
			return l;
	}
	for (i = 0; i < g->nlane; i++) {
		l = &g->lane[i];
		if (l->kind == kind && same(l->pid, pid) && same(l->tid, tid)) {
			g->last = i;
			return l;
		}
	}
	if (g->nlane == g->cap) {
		size_t c = g->cap ? g->cap * 2 : 16;
		struct lane *v = realloc(g->lane, c * sizeof(*v));

		if (!v)
			return NULL;
		g->lane = v;
		g->cap = c;
	}
	g->last = g->nlane;
	l = &g->lane[g->nlane++];
	*l = (struct lane){ .pid = pid, .tid = tid, .kind = kind };
	return l;
}

static int add(struct gantt *g, enum lane_kind kind, const char *pid, const char *tid, double s, double e,
	       int cat, const char *name)
{
	struct lane *l = lane_of(g, kind, pid, tid);
	uint32_t id;

	if (!l || name_id(&g->nm, name, &id))
		return -ENOMEM;
	if (l->n == l->cap) {
		size_t c = l->cap ? l->cap * 2 : 64;
		struct raw *v = realloc(l->v, c * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = c;
	}
	l->v[l->n++] = (struct raw){ s, e > s ? e : s, id, (uint8_t)cat };
	return 0;
}

/* The GPU events, their device's idle gaps, the CPU launch calls. */
static int collect(struct gantt *g, const struct gantt_in *in, size_t *ngpu)
{
	uint64_t i, n = tl_trace_nevents(in->tr);
	static const int idle_cat[TL_IDLE_NCATS] = { GC_HOST_WAIT, GC_KERNEL_WAIT, GC_OTHER_WAIT };
	size_t k;
	uint64_t j;

	*ngpu = 0;
	for (i = 0; i < n; i++) {
		struct tl_event_info e;

		if (tl_trace_event(in->tr, i, &e) || !tl_kind_is_gpu(e.kind) || !e.has_ts || !e.has_dur ||
		    !isfinite(e.ts) || !(e.dur >= 0))
			continue;
		if (add(g, LK_GPU, e.pid, e.tid, e.ts, e.ts + e.dur, (int)tl_gpu_event_class(in->tr, i), e.name))
			return -ENOMEM;
		++*ngpu;
	}
	if (!*ngpu)
		return -ENODATA;
	for (k = 0; in->idle && k < in->idle->ndev; k++) {
		const struct tl_idle_row *r = &in->idle->dev[k];

		for (j = 0; r->gaps && j < r->ngaps; j++) {
			const struct tl_idle_gap *gp = &r->gaps[j];
			const char *why = gp->cause ? tl_idle_cause_name(gp->cause) : tl_idle_cat_name(gp->cat);

			if (gp->cat < TL_IDLE_NCATS &&
			    add(g, LK_IDLE, r->device, "", gp->start, gp->end, idle_cat[gp->cat], why))
				return -ENOMEM;
		}
	}
	for (k = 0; in->launches && k < in->launches->n; k++) {
		struct tl_event_info c;

		if (tl_trace_event(in->tr, in->launches->l[k].call_uid, &c) || !c.has_ts)
			continue;
		if (add(g, LK_CPU, c.pid, c.tid, c.ts, c.ts + (c.has_dur ? c.dur : 0), GC_LAUNCH, c.name))
			return -ENOMEM;
	}
	return 0;
}

static int cmp_raw(const void *a, const void *b)
{
	const struct raw *x = a, *y = b;

	return x->s < y->s ? -1 : x->s > y->s ? 1 : x->e < y->e ? -1 : x->e > y->e;
}

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x > y ? -1 : x < y;
}

/* Numbers as numbers ("2" before "10"), else as text. */
static int cmp_id(const char *a, const char *b)
{
	char *ea, *eb;
	long long x = strtoll(a, &ea, 10), y = strtoll(b, &eb, 10);

	if (*a && *b && !*ea && !*eb && x != y)
		return x < y ? -1 : 1;
	return strcmp(a, b);
}

/* CPU threads first (the launches above the GPU), then each device: its
 * idle lane, then its streams. */
static int cmp_lane(const void *a, const void *b)
{
	const struct lane *x = a, *y = b;
	int c;

	if ((x->kind == LK_CPU) != (y->kind == LK_CPU))
		return x->kind == LK_CPU ? -1 : 1;
	if ((c = cmp_id(x->pid, y->pid)))
		return c;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return cmp_id(x->tid, y->tid);
}

/* The smallest resolution that keeps the intervals within @budget: a gap
 * between two intervals of a lane (after joining those that overlap) up to
 * it is merged; 0 when every gap can stay. */
static int resolution(const struct gantt *g, size_t budget, double *res)
{
	size_t i, k, ngaps = 0, cap = 0, nonempty = 0;
	double *gaps = NULL, end;

	for (i = 0; i < g->nlane; i++) {
		const struct lane *l = &g->lane[i];

		cap += l->n;
		nonempty += l->n > 0;
	}
	*res = 0;
	if (cap <= budget)
		return 0;
	gaps = malloc(cap * sizeof(*gaps));
	if (!gaps)
		return -ENOMEM;
	for (i = 0; i < g->nlane; i++) {
		const struct lane *l = &g->lane[i];

		for (k = 0, end = -INFINITY; k < l->n; k++) {
			if (k && l->v[k].s > end)
				gaps[ngaps++] = l->v[k].s - end;
			end = fmax(end, l->v[k].e);
		}
	}
	if (ngaps + nonempty > budget) {
		qsort(gaps, ngaps, sizeof(*gaps), cmp_desc);
		/* keep the budget - nonempty widest gaps: merge up to the next one */
		*res = budget > nonempty ? gaps[budget - nonempty] : INFINITY;
	}
	free(gaps);
	return 0;
}

/* A lane's label and group ("GPU 0", "stream 7"; "CPU", "thread 12 (pid 3)"). */
static void lane_names(struct tl_trace *tr, const struct lane *l, char *group, size_t gn, char *label, size_t ln)
{
	char pn[128];
	bool named = !tl_trace_process_name(tr, l->pid, pn, sizeof(pn)) && *pn;

	if (l->kind == LK_CPU) {
		snprintf(group, gn, "CPU launches");
		snprintf(label, ln, "thread %s (pid %s)", l->tid, l->pid);
		return;
	}
	/* Kineto names every process after the program ("python3") and labels
	 * the GPUs elsewhere; XProf names them "host /device:GPU:0": only a
	 * name that says GPU or device adds to the pid */
	if (named && (strcasestr(pn, "gpu") || strcasestr(pn, "device")) && strcmp(pn, l->pid))
		snprintf(group, gn, "device %s: %s", l->pid, pn);
	else
		snprintf(group, gn, "device %s", l->pid);
	if (l->kind == LK_IDLE)
		snprintf(label, ln, "idle gaps (why)");
	else if (*l->tid >= '0' && *l->tid <= '9')
		snprintf(label, ln, "stream %s", l->tid);
	else
		snprintf(label, ln, "%s", l->tid);
}

/* One interval drawn: ticks from the end of the one before, width, code, name. */
struct civ {
	long long gap, w;
	int code;
	uint32_t name;
};

/* The intervals of one lane merged at @res into @out (room for l->n), their
 * names marked used in g->nm.out; returns how many. */
static size_t merge_lane(struct gantt *g, const struct lane *l, double t0, double q, double res, struct civ *out)
{
	long long prev = 0;
	size_t k = 0, nout = 0;

	while (k < l->n) {
		double s = l->v[k].s, e = l->v[k].e, busy = e - s, longest = e - s, cat_us[GC_N] = { 0 };
		uint32_t name = l->v[k].name;
		size_t m = 1, c, best = l->v[k].cat;
		long long S, E;
		int level;

		cat_us[l->v[k].cat] += e - s;
		/* those that overlap it, or start within @res of its end */
		while (++k < l->n && (l->v[k].s <= e || l->v[k].s - e <= res)) {
			const struct raw *r = &l->v[k];

			busy += fmax(0, r->e - fmax(r->s, e));
			cat_us[r->cat] += r->e - r->s;
			if (r->e - r->s > longest) {
				longest = r->e - r->s;
				name = r->name;
			}
			e = fmax(e, r->e);
			m++;
		}
		for (c = 0; c < GC_N; c++)
			if (cat_us[c] > cat_us[best])
				best = c;
		/* how busy: a quarter, half, three quarters or full */
		level = m == 1 || e <= s ? 3 : (int)fmax(0, fmin(3, floor(busy / (e - s) * 4 + 0.5) - 1));
		S = llround((s - t0) / q);
		E = llround((e - t0) / q);
		g->nm.out[name] = 1;
		out[nout++] = (struct civ){ S - prev, E - S, (int)best | level << 3 | (m > 1 ? 64 : 0), name };
		prev = E;
	}
	return nout;
}

static void gantt_free(struct gantt *g)
{
	size_t i;

	for (i = 0; i < g->nlane; i++)
		free(g->lane[i].v);
	free(g->lane);
	free(g->nm.v);
	free(g->nm.slot);
	free(g->nm.out);
}

int gantt_write_json(FILE *f, const struct gantt_in *in, struct gantt_stats *st)
{
	struct gantt g = { 0 };
	size_t i, k, ngpu = 0, budget = in->max_intervals ? in->max_intervals : GANTT_MAX_INTERVALS;
	double t0 = INFINITY, t1 = -INFINITY, res, q;
	char group[160], label[160];
	struct civ **ivs = NULL;
	size_t *niv = NULL;
	int err;

	memset(st, 0, sizeof(*st));
	err = collect(&g, in, &ngpu);
	if (err)
		goto out;
	err = -ENOMEM;
	for (i = 0; i < g.nlane; i++) {
		struct lane *l = &g.lane[i];

		qsort(l->v, l->n, sizeof(*l->v), cmp_raw);
		for (k = 0; k < l->n; k++) {
			t0 = fmin(t0, l->v[k].s);
			t1 = fmax(t1, l->v[k].e);
		}
	}
	qsort(g.lane, g.nlane, sizeof(*g.lane), cmp_lane);
	g.last = SIZE_MAX;
	if (resolution(&g, budget, &res))
		goto out;
	/* ticks fine enough for the finest interval drawn (10 ns at full
	 * detail), coarse enough to keep the numbers short */
	q = res > 0 && isfinite(res) ? fmax(0.01, pow(10, floor(log10(res / 16)))) : 0.01;
	g.nm.out = calloc(g.nm.n + 1, sizeof(*g.nm.out));
	ivs = calloc(g.nlane + 1, sizeof(*ivs));
	niv = calloc(g.nlane + 1, sizeof(*niv));
	if (!g.nm.out || !ivs || !niv)
		goto out;
	/* the lanes merged first: the names they use are known after */
	for (i = 0; i < g.nlane; i++) {
		ivs[i] = malloc((g.lane[i].n + 1) * sizeof(**ivs));
		if (!ivs[i])
			goto out;
		niv[i] = merge_lane(&g, &g.lane[i], t0, q, res, ivs[i]);
		st->intervals += niv[i];
	}
	fprintf(f, "{\"t0\":%.3f,\"q\":%g,\"res\":%.6g,\"span\":%.3f,\"cats\":[", t0, q,
		isfinite(res) ? res : t1 - t0, t1 - t0);
	for (i = 0; i < GC_N; i++)
		fprintf(f, "%s{\"name\":\"%s\",\"color\":\"%s\"}", i ? "," : "", gcats[i].name, gcats[i].color);
	/* only the names the intervals use, numbered in order */
	fputs("],\n\"names\":[", f);
	for (i = 0, k = 0; i < g.nm.n; i++) {
		if (!g.nm.out[i])
			continue;
		fputs(k ? "," : "", f);
		hp_json_str(f, g.nm.v[i], 160);
		g.nm.out[i] = (uint32_t)++k;
	}
	fputs("],\n\"lanes\":[", f);
	for (i = 0; i < g.nlane; i++) {
		static const char *const kinds[] = { "cpu", "idle", "gpu" };
		const struct lane *l = &g.lane[i];

		lane_names(in->tr, l, group, sizeof(group), label, sizeof(label));
		fprintf(f, "%s\n{\"label\":", i ? "," : "");
		hp_json_str(f, label, 80);
		fputs(",\"group\":", f);
		hp_json_str(f, group, 80);
		fprintf(f, ",\"kind\":\"%s\",\"n\":%zu,\"iv\":[", kinds[l->kind], l->n);
		for (k = 0; k < niv[i]; k++) {
			const struct civ *c = &ivs[i][k];

			fprintf(f, "%s%lld,%lld,%d,%u", k ? "," : "", c->gap, c->w, c->code, g.nm.out[c->name] - 1);
		}
		fputs("]}", f);
	}
	fputs("]", f);
	fputs(",\n\"steps\":[", f);
	for (i = 0; in->steps && i < in->steps->n; i++) {
		const struct tl_step *s = &in->steps->v[i];
		double a = s->ts, z = s->ts + s->dur;

		if (s->ngpu) {
			a = fmin(a, s->gpu_start);
			z = fmax(z, s->gpu_end);
		}
		fprintf(f, "%s{\"name\":", i ? "," : "");
		hp_json_str(f, s->name, 60);
		fprintf(f, ",\"a\":%.3f,\"b\":%.3f", a - t0, z - t0);
		if (tl_phase_name(s->phase))
			fprintf(f, ",\"phase\":\"%s\"", tl_phase_name(s->phase));
		fputc('}', f);
	}
	fputs("]}", f);
	st->lanes = g.nlane;
	st->gpu_events = ngpu;
	st->resolution_us = isfinite(res) ? res : t1 - t0;
	st->span_us = t1 - t0;
	err = 0;
out:
	for (i = 0; ivs && i < g.nlane; i++)
		free(ivs[i]);
	free(ivs);
	free(niv);
	gantt_free(&g);
	return err;
}
