/* SPDX-License-Identifier: MIT */
/* tl_split() (include/tlreplay/split.h): every source event is given a part
 * (an iteration, a phase, every part, or none), then the loaded text is
 * walked once per batch of parts, each traceEvents element copied byte for
 * byte into the files of its part through buffered writes. */
#include <stdio.h>

#include <cjson/cJSON.h>

#include <tlreplay/output.h>
#include <tlreplay/split.h>
#include <tlreplay/steps.h>

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

#define PART_NONE   (-1)
#define PART_ALL    (-2)
#define SPLIT_BATCH 256		/* files open at once */
#define SPLIT_BUF   (64u << 10) /* buffered per file */
#define SPLIT_DROP  (8u << 20)	/* text walked between two drops of its pages */

struct writer {
	struct tl_output o;
	char *buf;
	size_t len;
	int err;
	bool any; /* an event written (a comma goes before the next) */
};

static void w_flush(struct writer *w)
{
	if (w->len && !w->err)
		w->err = tl_output_write(&w->o, w->buf, w->len);
	w->len = 0;
}

static void w_put(struct writer *w, const char *p, size_t n)
{
	if (w->err)
		return;
	if (w->len + n > SPLIT_BUF) {
		w_flush(w);
		if (n > SPLIT_BUF) {
			if (!w->err)
				w->err = tl_output_write(&w->o, p, n);
			return;
		}
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void w_event(struct writer *w, const char *p, size_t n)
{
	if (w->any)
		w_put(w, ",\n", 2);
	w->any = true;
	w_put(w, p, n);
}

/* A flow's start: the part of the event it starts on, for its other ends. */
struct flow_end {
	uint32_t cat;
	int64_t id;
	int32_t part;
};

static int cmp_flow(const void *a, const void *b)
{
	const struct flow_end *x = a, *y = b;

	if (x->cat != y->cat)
		return x->cat < y->cat ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static bool is_flow(const struct tl_ev *e)
{
	return e->kind == TL_KIND_FLOW_LAUNCH || e->kind == TL_KIND_FLOW_FWDBWD;
}

/* The part of every source event, by UID (PART_ALL, PART_NONE, or 0..). */
static int assign(struct tl_trace *tr, const struct tl_step_set *set, const int32_t *part_of_step, int32_t **out)
{
	size_t i, n = tr->nev_src;
	int32_t *pt = malloc((n ? n : 1) * sizeof(*pt));
	TL_VEC(struct flow_end) fl = { 0 };

	if (!pt)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct tl_ev *e = &tr->ev[i];
		long s;

		if (e->ph == 'M' || !(e->flags & EV_HAS_TS)) {
			pt[i] = PART_ALL;
			continue;
		}
		/* flows, instants and counters have a time but no duration */
		s = e->flags & EV_HAS_DUR ? tl_step_of_event(tr, set, i) : (long)tl_step_at(set, e->ts);
		pt[i] = s >= 0 ? part_of_step[s] : PART_NONE;
		if (is_flow(e) && e->ph == 's') {
			struct flow_end f = { e->cat, tl_ev_corr(tr, e), pt[i] };

			if (tl_vec_push(&fl, f)) {
				free(pt);
				tl_vec_free(&fl);
				return -ENOMEM;
			}
		}
	}
	/* a flow's other ends go with its start: a kernel that ran after its
	 * iteration ended stays linked to its launch */
	if (fl.n)
		tl_qsort(fl.v, fl.n, sizeof(*fl.v), cmp_flow);
	for (i = 0; fl.n && i < n; i++) {
		const struct tl_ev *e = &tr->ev[i];
		struct flow_end key = { e->cat, tl_ev_corr(tr, e), 0 }, *hit;

		if (!is_flow(e) || e->ph == 's' || !(e->flags & EV_HAS_TS))
			continue;
		hit = bsearch(&key, fl.v, fl.n, sizeof(*fl.v), cmp_flow);
		if (hit)
			pt[i] = hit->part;
	}
	tl_vec_free(&fl);
	*out = pt;
	return 0;
}

/* The trace's top-level members other than traceEvents, as written, joined
 * by commas, into @hdr (malloc'ed; "" for a bare array). */
static int header(const struct tl_trace *tr, char **hdr, size_t *hlen)
{
	const char *base = tr->text, *end = tr->text + tr->text_len, *p;
	TL_VEC(char) h = { 0 };
	struct js_err je = { 0 };

	*hdr = NULL;
	*hlen = 0;
	p = js_ws(base, end);
	if (p < end && *p == '{') {
		p = js_ws(p + 1, end);
		while (p < end && *p != '}') {
			const char *ks = p, *k, *v, *ve;
			size_t klen, j;
			bool esc = false;

			p = js_key(p, end, &k, &klen, &esc, &je);
			if (!p)
				goto bad;
			v = js_ws(p, end);
			ve = v == base + tr->events_open ? base + tr->events_close + 1 : js_skip_value(v, end, &je);
			if (!ve)
				goto bad;
			if (v != base + tr->events_open) {
				if (h.n && tl_vec_push(&h, ','))
					goto nomem;
				for (j = 0; j < (size_t)(ve - ks); j++)
					if (tl_vec_push(&h, ks[j]))
						goto nomem;
			}
			p = js_ws(ve, end);
			if (p < end && *p == ',')
				p = js_ws(p + 1, end);
		}
	}
	if (tl_vec_push(&h, 0))
		goto nomem;
	*hdr = h.v;
	*hlen = h.n - 1;
	return 0;
bad:
	tl_vec_free(&h);
	return tl_err(-EBADMSG, "%s: unexpected JSON at byte %zu while splitting", tr->path,
		      (size_t)((je.at ? je.at : end) - base));
nomem:
	tl_vec_free(&h);
	return -ENOMEM;
}

/* Write parts [lo, hi) of @r into @dir in one walk over the text. */
static int write_batch(const struct tl_trace *tr, const char *dir, struct tl_split_result *r, size_t lo, size_t hi,
		       const int32_t *pt, const char *hdr, size_t hlen)
{
	const char *base = tr->text, *end = tr->text + tr->text_len, *p;
	struct writer *w = calloc(hi - lo, sizeof(*w));
	struct tl_output *outs = calloc(hi - lo, sizeof(*outs));
	struct js_err je = { 0 };
	struct tl_text text = tl_trace_text(tr);
	size_t k, uid = 0, dropped = 0;
	int err = 0;

	if (!w || !outs) {
		err = -ENOMEM;
		goto out;
	}
	for (k = 0; k < hi - lo; k++)
		w[k].o = outs[k] = (struct tl_output){ .fd = -1, .slot = -1 };
	for (k = 0; k < hi - lo; k++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, r->v[lo + k].file);
		if (!(w[k].buf = malloc(SPLIT_BUF))) {
			err = -ENOMEM;
			goto out;
		}
		if ((err = tl_output_open(&w[k].o, path)))
			goto out;
		w_put(&w[k], "{", 1);
		w_put(&w[k], hdr, hlen);
		if (hlen)
			w_put(&w[k], ",\n", 2);
		w_put(&w[k], "\"traceEvents\":[\n", 16);
	}
	/* the walk reads the whole text: its pages go behind it, so that the
	 * resident set stays the loader's */
	tl_text_drop_pages(&text, 0, tr->text_len);
	p = js_ws(base + tr->events_open + 1, end);
	while (p < end && *p != ']') {
		const char *q = js_skip_value(p, end, &je);
		int32_t part = uid < tr->nev_src ? pt[uid] : PART_NONE;

		if ((size_t)(p - base) - dropped >= SPLIT_DROP) {
			tl_text_drop_pages(&text, dropped, (size_t)(p - base));
			dropped = (size_t)(p - base);
		}

		if (!q) {
			err = tl_err(-EBADMSG, "%s: unexpected JSON at byte %zu while splitting", tr->path,
				     (size_t)((je.at ? je.at : end) - base));
			goto out;
		}
		if (part == PART_ALL) {
			for (k = 0; k < hi - lo; k++)
				w_event(&w[k], p, (size_t)(q - p));
		} else if (part >= (int32_t)lo && part < (int32_t)hi) {
			w_event(&w[part - lo], p, (size_t)(q - p));
		}
		uid++;
		p = js_ws(q, end);
		if (p < end && *p == ',')
			p = js_ws(p + 1, end);
	}
	tl_text_drop_pages(&text, 0, tr->text_len);
	for (k = 0; k < hi - lo; k++) {
		w_put(&w[k], "\n]}\n", 4);
		w_flush(&w[k]);
		if (!err && w[k].err)
			err = w[k].err;
		/* the outputs move to @outs, which commit or abort releases */
		outs[k] = w[k].o;
		w[k].o = (struct tl_output){ .fd = -1, .slot = -1 };
	}
	if (!err)
		err = tl_output_commit_all(outs, hi - lo);
	else
		for (k = 0; k < hi - lo; k++)
			tl_output_abort(&outs[k]);
out:
	for (k = 0; w && k < hi - lo; k++) {
		tl_output_abort(&w[k].o);
		free(w[k].buf);
	}
	free(w);
	free(outs);
	return err;
}

/* The parts: one per kept step, or one per phase among them. */
static int plan_parts(const struct tl_step_set *set, const struct tl_split_opts *o, const bool *keep,
		      int32_t *part_of_step, struct tl_split_result *r)
{
	int phase_part[4] = { -1, -1, -1, -1 };
	size_t i;

	r->v = calloc(set->n ? set->n : 1, sizeof(*r->v));
	if (!r->v)
		return -ENOMEM;
	for (i = 0; i < set->n; i++) {
		const struct tl_step *s = &set->v[i];
		struct tl_split_part *pt;
		char name[96];

		part_of_step[i] = PART_NONE;
		if (!keep[i] || (o->by == TL_SPLIT_PHASE && !s->phase))
			continue;
		if (o->by == TL_SPLIT_PHASE && phase_part[s->phase] >= 0) {
			pt = &r->v[phase_part[s->phase]];
		} else {
			pt = &r->v[r->n];
			if (o->by == TL_SPLIT_PHASE) {
				phase_part[s->phase] = (int)r->n;
				pt->number = -1;
				pt->name = tl_phase_name(s->phase);
				snprintf(name, sizeof(name), "%s.json", pt->name);
			} else {
				pt->number = s->number;
				pt->name = s->name;
				/* ProfilerStep numbers repeat in a trace of several processes */
				if (r->n && r->v[r->n - 1].number == s->number)
					snprintf(name, sizeof(name), "iteration-%lld-%zu.json", s->number, i);
				else
					snprintf(name, sizeof(name), "iteration-%lld.json", s->number);
			}
			pt->phase = s->phase;
			pt->ts = s->ts;
			pt->file = strdup(name);
			if (!pt->file)
				return -ENOMEM;
			r->n++;
		}
		part_of_step[i] = (int32_t)(pt - r->v);
		if (s->ts < pt->ts)
			pt->ts = s->ts;
		if (s->ts + s->dur > pt->end)
			pt->end = s->ts + s->dur;
		pt->steps++;
	}
	return 0;
}

static int write_manifest(const struct tl_trace *tr, const char *dir, const struct tl_split_opts *o,
			  const struct tl_split_result *r)
{
	cJSON *m = cJSON_CreateObject(), *parts;
	struct tl_output out = { .fd = -1, .slot = -1 };
	char path[4096], *text = NULL;
	size_t i;
	int err = -ENOMEM;

	if (!m)
		goto out;
	cJSON_AddStringToObject(m, "trace", tr->path);
	cJSON_AddStringToObject(m, "by", o->by == TL_SPLIT_PHASE ? "phase" : "iteration");
	cJSON_AddBoolToObject(m, "steady", o->steady);
	cJSON_AddNumberToObject(m, "gpu_us", r->gpu_us);
	cJSON_AddNumberToObject(m, "coverage", r->coverage);
	parts = cJSON_AddArrayToObject(m, "parts");
	for (i = 0; parts && i < r->n; i++) {
		const struct tl_split_part *p = &r->v[i];
		cJSON *j = cJSON_CreateObject();

		if (!j || !cJSON_AddItemToArray(parts, j))
			goto out;
		cJSON_AddStringToObject(j, "file", p->file);
		if (p->number >= 0)
			cJSON_AddNumberToObject(j, "iteration", (double)p->number);
		cJSON_AddStringToObject(j, "name", p->name);
		if (tl_phase_name(p->phase))
			cJSON_AddStringToObject(j, "phase", tl_phase_name(p->phase));
		else
			cJSON_AddNullToObject(j, "phase");
		cJSON_AddNumberToObject(j, "steps", (double)p->steps);
		cJSON_AddNumberToObject(j, "ts", p->ts);
		cJSON_AddNumberToObject(j, "end", p->end);
		cJSON_AddNumberToObject(j, "events", (double)p->events);
		cJSON_AddNumberToObject(j, "gpu_events", (double)p->gpu_events);
		cJSON_AddNumberToObject(j, "gpu_us", p->gpu_us);
		cJSON_AddNumberToObject(j, "gpu_share", r->gpu_us > 0 ? p->gpu_us / r->gpu_us : 0);
	}
	text = cJSON_Print(m);
	if (!parts || !text)
		goto out;
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	if ((err = tl_output_open(&out, path)) || (err = tl_output_write(&out, text, strlen(text))) ||
	    (err = tl_output_write(&out, "\n", 1)))
		goto out;
	err = tl_output_commit(&out);
out:
	if (err)
		tl_output_abort(&out);
	free(text);
	cJSON_Delete(m);
	return err;
}

int tl_split(struct tl_trace *tr, const char *dir, const struct tl_split_opts *opts, struct tl_split_result **out)
{
	struct tl_split_opts o = { sizeof(o), TL_SPLIT_ITERATION, false };
	struct tl_split_result *r = calloc(1, sizeof(*r));
	struct tl_step_set *set = NULL;
	struct tl_steady *st = NULL;
	int32_t *part_of_step = NULL, *pt = NULL;
	bool *keep = NULL;
	char *hdr = NULL;
	size_t i, hlen = 0, nall = 0;
	int err;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (!r)
		return tl_err(-ENOMEM, "out of memory splitting");
	if (!tr->text || tr->events_close <= tr->events_open) {
		err = tl_err(-ENOTSUP, "%s: only a JSON trace can be split", tr->path);
		goto out;
	}
	if (tr->merged || tr->pseudo_ops) {
		err = tl_err(-EBUSY, "%s: a trace with merged captures or pseudo ops cannot be split", tr->path);
		goto out;
	}
	if ((err = tl_steps(tr, &set)) || (o.steady && (err = tl_steps_steady(tr, set, &st))))
		goto out;
	err = -ENOMEM;
	keep = calloc(set->n, sizeof(*keep));
	part_of_step = calloc(set->n, sizeof(*part_of_step));
	if (!keep || !part_of_step)
		goto out;
	for (i = 0; i < set->n; i++)
		keep[i] = !st || (i >= st->first && i <= st->last);
	if ((err = plan_parts(set, &o, keep, part_of_step, r)))
		goto out;
	if (!r->n) {
		err = tl_err(o.by == TL_SPLIT_PHASE ? -ENOENT : -ENODATA, "%s: %s", tr->path,
			     o.by == TL_SPLIT_PHASE ? "no iteration has a phase (phases come from vLLM/SGLang "
						      "iteration annotations)"
						    : "no iteration to split by");
		goto out;
	}
	if ((err = assign(tr, set, part_of_step, &pt)) || (err = header(tr, &hdr, &hlen)))
		goto out;
	/* what each part holds, for the manifest */
	for (i = 0; i < tr->nev_src; i++) {
		const struct tl_ev *e = &tr->ev[i];
		bool gpu = tl_kind_is_gpu(e->kind) && (e->flags & EV_HAS_DUR);

		if (gpu)
			r->gpu_us += e->dur;
		if (pt[i] >= 0) {
			r->v[pt[i]].events++;
			if (gpu) {
				r->v[pt[i]].gpu_events++;
				r->v[pt[i]].gpu_us += e->dur;
			}
		} else if (pt[i] == PART_ALL) {
			nall++;
		}
	}
	/* metadata goes to every part */
	for (i = 0; i < r->n; i++) {
		r->v[i].events += nall;
		r->coverage += r->v[i].gpu_us;
	}
	r->coverage = r->gpu_us > 0 ? r->coverage / r->gpu_us : 1;
	if ((err = tl_output_mkdirs(dir)))
		goto out;
	for (i = 0; i < r->n && !err; i += SPLIT_BATCH)
		err = write_batch(tr, dir, r, i, i + SPLIT_BATCH < r->n ? i + SPLIT_BATCH : r->n, pt, hdr, hlen);
	if (!err)
		err = write_manifest(tr, dir, &o, r);
	if (err == -ENOMEM)
		err = tl_err(err, "out of memory splitting");
out:
	free(hdr);
	free(pt);
	free(keep);
	free(part_of_step);
	tl_steady_free(st);
	tl_step_set_free(set);
	if (err) {
		tl_split_result_free(r);
		return err;
	}
	*out = r;
	return 0;
}

void tl_split_result_free(struct tl_split_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; r->v && i < r->n; i++)
		free(r->v[i].file);
	free(r->v);
	free(r);
}
