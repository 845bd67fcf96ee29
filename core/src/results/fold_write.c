/* SPDX-License-Identifier: MIT */
/* Fold, part 4: the folded trace is the loaded JSON text with a few edits
 * (insertions, and replacements of an earlier fold's "tlreplay" members),
 * streamed out in order. Only the events that get args are looked at: an
 * event with args is found through its args offset; one without is reached
 * by skipping elements from the nearest earlier event with args; the end of
 * traceEvents was recorded at load time. So a GB trace is copied at the
 * speed of the writer, without a JSON tree of it. tl_fold_write() drives the
 * other parts; tl_fold() is all of fold in one call. */
#include <stdio.h>

#include <tlreplay/store.h>

#include "base/base_internal.h"
#include "results/results_internal.h"
#include "trace/trace_internal.h"

#define WRITE_CHUNK (8u << 20)	/* resident at once while copying: dropped after each */

struct edit {
	size_t at, end;		/* replace text[at, end) (end == at: insert) */
	char *text;
	size_t len;
	size_t seq;
	bool gen; /* insert the splice's generated events here (text NULL) */
};

struct splice {
	const struct tl_trace *tr;
	const char *base, *end;
	TL_VEC(struct edit) edits;
	/* events appended as they are written (tl_trace_write_marked_gen) */
	tl_extra_event_fn gen;
	void *gen_ctx;
	size_t ngen;
};

static int bad_text(const struct splice *s, const char *at)
{
	return tl_err(-EBADMSG, "%s: unexpected JSON at byte %zu while folding", s->tr->path,
		      (size_t)((at ? at : s->end) - s->base));
}

/* Takes @text (malloc'ed) even on failure. */
static int add_edit(struct splice *s, size_t at, size_t end, char *text, size_t len)
{
	struct edit e = { .at = at, .end = end, .text = text, .len = len, .seq = s->edits.n };

	if (!text || tl_vec_push(&s->edits, e)) {
		free(text);
		return tl_err(-ENOMEM, "out of memory");
	}
	return 0;
}

/* Where the generated events go (one such edit per splice). */
static int add_gen_edit(struct splice *s, size_t at)
{
	struct edit e = { .at = at, .end = at, .seq = s->edits.n, .gen = true };

	return tl_vec_push(&s->edits, e) ? tl_err(-ENOMEM, "out of memory") : 0;
}

static int add_edit_fmt(struct splice *s, size_t at, size_t end, const char *pre,
			const char *json, const char *post)
{
	char *t = NULL;
	int n = asprintf(&t, "%s%s%s", pre, json, post);

	return add_edit(s, at, end, n < 0 ? NULL : t, n < 0 ? 0 : (size_t)n);
}

/* ------------------------------------------------------------------ walking */

static bool key_is(const char *k, size_t klen, bool esc, const char *want)
{
	char buf[64];
	long n;

	if (!esc)
		return klen == strlen(want) && !memcmp(k, want, klen);
	if (klen >= sizeof(buf))
		return false;
	n = js_unescape(k, klen, buf);
	return n >= 0 && (size_t)n == strlen(want) && !memcmp(buf, want, (size_t)n);
}

/* Skip a value; the traceEvents array is jumped over (its end is known). */
static const char *skip(const struct splice *s, const char *p, struct js_err *err)
{
	if (p == s->base + s->tr->events_open)
		return s->base + s->tr->events_close + 1;
	return js_skip_value(p, s->end, err);
}

struct members {
	const char *vs, *ve;	/* value of the last member named as asked, NULL if none */
	const char *close;	/* the object's '}' */
	bool any;		/* it has members */
};

/* Walk an object's members, from its '{' or (@after_value) from just after
 * a member's value. Returns the position after '}', NULL on bad JSON. */
static const char *walk_object(const struct splice *s, const char *p, bool after_value,
			       const char *want, struct members *m)
{
	const char *e = s->end;
	struct js_err err = { 0 };

	memset(m, 0, sizeof(*m));
	if (after_value) {
		m->any = true;
		goto after;
	}
	p = js_ws(p + 1, e);
	if (p < e && *p == '}') {
		m->close = p;
		return p + 1;
	}
	for (;;) {
		const char *k, *v;
		size_t klen;
		bool esc = false;

		m->any = true;
		p = js_key(p, e, &k, &klen, &esc, &err);
		if (!p)
			return NULL;
		v = p = js_ws(p, e);
		p = skip(s, p, &err);
		if (!p)
			return NULL;
		if (want && key_is(k, klen, esc, want)) {
			m->vs = v;
			m->ve = p;
		}
after:
		p = js_ws(p, e);
		if (p < e && *p == ',') {
			p = js_ws(p + 1, e);
			continue;
		}
		if (p < e && *p == '}') {
			m->close = p;
			return p + 1;
		}
		return NULL;
	}
}

static bool args_in_text(const struct tl_trace *tr, const struct tl_ev *ev)
{
	uint64_t off = tl_ev_args_off(tr, ev);

	return off != TL_NOARGS && !(off & TL_ARGS_EXTRA);
}

/* After an element of traceEvents: the start of the next one. */
static const char *next_element(const struct splice *s, const char *p)
{
	p = js_ws(p, s->end);
	if (p >= s->end || *p != ',')
		return NULL;
	return js_ws(p + 1, s->end);
}

/* The '{' of event @u, which has no args: skip elements from the nearest
 * earlier event that has args (its args offset is known). */
static const char *event_start(const struct splice *s, uint64_t u)
{
	const struct tl_trace *tr = s->tr;
	struct js_err err = { 0 };
	struct members m;
	uint64_t k = u;
	const char *p;

	while (k > 0 && !args_in_text(tr, &tr->ev[k - 1]))
		k--;
	if (k > 0) {
		p = js_skip_value(s->base + tl_ev_args_off(tr, &tr->ev[k - 1]), s->end, &err);
		p = p ? walk_object(s, p, true, NULL, &m) : NULL;
		p = p ? next_element(s, p) : NULL;
	} else {
		p = js_ws(s->base + tr->events_open + 1, s->end);
	}
	for (; p && k < u; k++) {
		p = js_skip_value(p, s->end, &err);
		p = p ? next_element(s, p) : NULL;
	}
	return p && p < s->end && *p == '{' ? p : NULL;
}

/* Just after the last event of traceEvents (before the whitespace that
 * precedes its ']'): where appended events go. */
static size_t last_event_end(const struct splice *s)
{
	const char *q = s->base + s->tr->events_close;

	while (q > s->base && (q[-1] == ' ' || q[-1] == '\n' || q[-1] == '\r' || q[-1] == '\t'))
		q--;
	return (size_t)(q - s->base);
}

/* The position after event @u's closing '}'. */
static const char *event_end(const struct splice *s, uint64_t u)
{
	const struct tl_ev *ev = &s->tr->ev[u];
	struct js_err err = { 0 };
	struct members m;
	const char *p;

	if (args_in_text(s->tr, ev)) {
		p = js_skip_value(s->base + tl_ev_args_off(s->tr, ev), s->end, &err);
		return p ? walk_object(s, p, true, NULL, &m) : NULL;
	}
	p = event_start(s, u);
	return p ? js_skip_value(p, s->end, &err) : NULL;
}

/* An earlier fold appended its ph:"C" events (cat "tlreplay") at the end
 * of traceEvents: cut them, so that folding a folded trace replaces its
 * tracks instead of doubling them. No other event moves. */
static int drop_old_counters(struct splice *s)
{
	const struct tl_trace *tr = s->tr;
	uint32_t cat = tl_strtab_find(&tr->strs, "tlreplay", 8);
	uint64_t k = tr->nev_src;
	const char *p;

	if (cat == UINT32_MAX)
		return 0;
	while (k > 0 && tr->ev[k - 1].ph == 'C' && tr->ev[k - 1].cat == cat)
		k--;
	if (k == tr->nev_src || k == 0)
		return 0;
	p = event_end(s, k - 1);
	if (!p)
		return bad_text(s, NULL);
	return add_edit(s, (size_t)(p - s->base), last_event_end(s), strdup(""), 0);
}

/* args[@key] = @json (a value's text) on event @u: into its args, replacing
 * a member of that name (an earlier fold's); into a new args when it has
 * none (or a non-object one). */
static int annotate_event(struct splice *s, uint64_t u, const char *key, const char *json)
{
	const struct tl_ev *ev = &s->tr->ev[u];
	struct members m;
	const char *p;
	char *kq = NULL, *pre = NULL;
	int err;

	if (asprintf(&kq, "\"%s\":", key) < 0)
		return tl_err(-ENOMEM, "out of memory");
	if (args_in_text(s->tr, ev)) {
		const char *a = s->base + tl_ev_args_off(s->tr, ev);

		p = walk_object(s, a, false, key, &m);
		if (!p)
			err = bad_text(s, a);
		else if (m.vs)
			err = add_edit_fmt(s, (size_t)(m.vs - s->base), (size_t)(m.ve - s->base), "",
					   json, "");
		else
			err = add_edit_fmt(s, (size_t)(m.close - s->base), (size_t)(m.close - s->base),
					   m.any ? "," : "", kq, json);
	} else {
		p = event_start(s, u);
		if (p)
			p = walk_object(s, p, false, "args", &m);
		if (!p)
			err = tl_err(-EBADMSG, "%s: cannot find traceEvents[%llu] in the text",
				     s->tr->path, (unsigned long long)u);
		/* args that are not an object (null): the value replaced; none:
		 * a member added */
		else if (asprintf(&pre, "%s{%s", m.vs ? "" : m.any ? ",\"args\":" : "\"args\":", kq) < 0)
			err = tl_err(-ENOMEM, "out of memory");
		else if (m.vs)
			err = add_edit_fmt(s, (size_t)(m.vs - s->base), (size_t)(m.ve - s->base), pre,
					   json, "}");
		else
			err = add_edit_fmt(s, (size_t)(m.close - s->base), (size_t)(m.close - s->base),
					   pre, json, "}");
	}
	free(kq);
	free(pre);
	return err;
}

/* args["tlreplay"] = @ann on event @u. */
static int annotate_tlreplay(struct splice *s, uint64_t u, const cJSON *ann)
{
	char *json = cJSON_PrintUnformatted(ann);
	int err;

	if (!json)
		return tl_err(-ENOMEM, "out of memory");
	err = annotate_event(s, u, "tlreplay", json);
	free(json);
	return err;
}

/* The top-level summary; a bare array is wrapped into an object. */
static int add_summary(struct splice *s, const cJSON *summary)
{
	const struct tl_trace *tr = s->tr;
	const char *p = js_ws(s->base, s->end), *q = s->end;
	char *json = cJSON_PrintUnformatted(summary);
	struct members m;
	int err;

	if (!json)
		return tl_err(-ENOMEM, "out of memory");
	if (p < s->end && *p == '[') {
		err = add_edit(s, (size_t)(p - s->base), (size_t)(p - s->base),
			       strdup("{\"traceEvents\":"), 15);
		if (!err)
			err = add_edit_fmt(s, tr->events_close + 1, tr->events_close + 1,
					   ",\"tlreplay\":", json, "}");
	} else if (cJSON_GetObjectItemCaseSensitive(tr->meta, "tlreplay")) {
		/* folded before: replace the old summary */
		if (!walk_object(s, p, false, "tlreplay", &m) || !m.vs)
			err = bad_text(s, p);
		else
			err = add_edit_fmt(s, (size_t)(m.vs - s->base), (size_t)(m.ve - s->base), "",
					   json, "");
	} else {
		while (q > p && (q[-1] == ' ' || q[-1] == '\n' || q[-1] == '\r' || q[-1] == '\t'))
			q--;
		if (q <= p || q[-1] != '}')
			err = bad_text(s, q);
		else
			err = add_edit_fmt(s, (size_t)(q - 1 - s->base), (size_t)(q - 1 - s->base),
					   ",\"tlreplay\":", json, "");
	}
	free(json);
	return err;
}

/* ------------------------------------------------------------------ output */

static int cmp_edit(const void *pa, const void *pb)
{
	const struct edit *a = pa, *b = pb;

	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* A slice of the original text, in chunks. Pages of a mapped file that
 * were copied are dropped so that the resident set stays small: from
 * *@kept (where the text still resident begins) up to the
 * end of what was written, once that is a chunk's worth. Not per slice:
 * dense edits (a mark on every other event) leave slices of a few hundred
 * bytes, and a drop rounded to whole pages inside each dropped nothing (a
 * critical path's copy of 1 M small events held 75 MB of text). */
static int emit_text(const struct splice *s, size_t from, size_t to, size_t *kept, tl_fold_write_fn write, void *ctx)
{
	const struct tl_trace *tr = s->tr;
	struct tl_text t = tl_trace_text(tr);

	while (from < to) {
		size_t n = to - from > WRITE_CHUNK ? WRITE_CHUNK : to - from;
		int err = write(s->base + from, n, ctx);

		if (err)
			return err;
		from += n;
		if (from - *kept >= WRITE_CHUNK || from == tr->text_len) {
			tl_text_drop_pages(&t, *kept, from);
			*kept = from; /* the page it is in stays: one per chunk */
		}
	}
	return 0;
}

/* "KEY":RAW, appended (RAW a JSON token as the trace wrote it). */
static int put_member(char **buf, size_t *len, size_t *cap, const char *key, const char *raw)
{
	int err = tl_text_put(buf, len, cap, "\"", 1);

	if (!err)
		err = tl_text_put(buf, len, cap, key, strlen(key));
	if (!err)
		err = tl_text_put(buf, len, cap, "\":", 2);
	if (!err)
		err = tl_text_put(buf, len, cap, raw, strlen(raw));
	if (!err)
		err = tl_text_put(buf, len, cap, ",", 1);
	return err;
}

#define GEN_MEMBERS 8192       /* the generator's buffer */
#define GEN_FLUSH   (64 << 10) /* written out in pieces of about this */

/* The generated events, each ",{pid,tid,members}", made and written in
 * pieces: never all of them at once. */
static int emit_generated(const struct splice *s, tl_fold_write_fn write, void *ctx)
{
	const struct tl_trace *tr = s->tr;
	char *members = malloc(GEN_MEMBERS), *out = NULL;
	size_t len = 0, cap = 0, i;
	int err = members ? 0 : tl_err(-ENOMEM, "out of memory");

	for (i = 0; i < s->ngen && !err; i++) {
		struct tl_extra_event x = { 0 };
		const struct tl_ev *like;

		err = s->gen(s->gen_ctx, i, &x, members, GEN_MEMBERS);
		if (err)
			break;
		if (!x.members || !*x.members) {
			err = tl_err(-EINVAL, "appended event %zu has no members", i);
			break;
		}
		like = x.like < tr->nev ? &tr->ev[x.like] : NULL;
		/* pid and tid as the event wrote them: 7 and "7" are two tracks */
		err = tl_text_put(&out, &len, &cap, ",{", 2);
		if (!err && like && like->pid)
			err = put_member(&out, &len, &cap, "pid", tl_strtab_get(&tr->strs, like->pid));
		if (!err && like && like->tid)
			err = put_member(&out, &len, &cap, "tid", tl_strtab_get(&tr->strs, like->tid));
		if (!err)
			err = tl_text_put(&out, &len, &cap, x.members, strlen(x.members));
		if (!err)
			err = tl_text_put(&out, &len, &cap, "}", 1);
		if (err) {
			err = tl_err(-ENOMEM, "out of memory");
			break;
		}
		if (len >= GEN_FLUSH || i + 1 == s->ngen) {
			err = write(out, len, ctx);
			len = 0;
		}
	}
	free(out);
	free(members);
	return err;
}

static int emit(struct splice *s, tl_fold_write_fn write, void *ctx)
{
	const struct tl_trace *tr = s->tr;
	struct tl_text t = tl_trace_text(tr);
	size_t i, pos = 0, kept = 0;
	int err;

	/* finding the edits read the text all over: let those pages go now, or
	 * the copy would hold them resident beside the pages it streams */
	tl_text_drop_pages(&t, 0, tr->text_len);

	if (s->edits.n > 1)
		tl_qsort(s->edits.v, s->edits.n, sizeof(*s->edits.v), cmp_edit);
	for (i = 0; i < s->edits.n; i++) {
		const struct edit *e = &s->edits.v[i];

		if (e->at < pos)
			return tl_err(-EINVAL, "fold: overlapping edits at byte %zu", e->at);
		err = emit_text(s, pos, e->at, &kept, write, ctx);
		if (!err && e->gen)
			err = emit_generated(s, write, ctx);
		else if (!err && e->len)
			err = write(e->text, e->len, ctx);
		if (err)
			goto fail;
		pos = e->end;
	}
	err = emit_text(s, pos, s->tr->text_len, &kept, write, ctx);
	if (!err)
		return 0;
fail:
	return tl_err(err, "%s: writing the folded trace: %s", s->tr->path, strerror(-err));
}

/* ------------------------------------------------------------------ the fold */

static cJSON *summary_of(const struct tl_fold *f, const struct fold_op *ops, size_t nops)
{
	cJSON *o = cJSON_CreateObject(), *devs = NULL;
	const struct tl_fold_result *r = &f->res;
	size_t i, j;
	bool ok;

	/* the adders return NULL when out of memory: one chain checks them all */
	ok = o && cJSON_AddStringToObject(o, "version", tl_version()) &&
	     (!f->store || cJSON_AddStringToObject(o, "store", f->store)) &&
	     cJSON_AddItemToObject(o, "trace", cJSON_Duplicate(f->id, true)) &&
	     cJSON_AddStringToObject(o, "folded_at", f->folded_at) &&
	     cJSON_AddNumberToObject(o, "records_used", (double)r->used) &&
	     cJSON_AddNumberToObject(o, "records_other_traces", (double)r->other_traces) &&
	     cJSON_AddNumberToObject(o, "records_superseded", (double)r->superseded) &&
	     cJSON_AddNumberToObject(o, "records_not_ok", (double)r->not_ok) &&
	     cJSON_AddNumberToObject(o, "records_mismatched", (double)(r->mismatched + r->invalid)) &&
	     cJSON_AddNumberToObject(o, "records_path_only", (double)r->path_only) &&
	     cJSON_AddNumberToObject(o, "ops", (double)r->ops) &&
	     cJSON_AddNumberToObject(o, "kernels", (double)r->kernels) &&
	     cJSON_AddNumberToObject(o, "counter_events", (double)r->counter_events) &&
	     cJSON_AddStringToObject(o, "counter_track", "tlreplay") &&
	     (devs = cJSON_AddArrayToObject(o, "devices"));
	for (i = 0; ok && i < nops; i++)
		for (j = 0; ok && j < ops[i].n; j++) {
			const cJSON *d;
			bool seen = false;

			cJSON_ArrayForEach(d, devs)
				seen = seen || !strcmp(d->valuestring, ops[i].recs[j].device);
			if (!seen)
				ok = cJSON_AddItemToArray(devs, cJSON_CreateString(ops[i].recs[j].device));
		}
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* Keep the results whose uid is an event of @tr named as the record's op. */
static void drop_mismatched(struct tl_fold *f, const struct tl_trace *tr)
{
	size_t i, m = 0;

	for (i = 0; i < f->recs.n; i++) {
		struct fold_rec *r = &f->recs.v[i];
		const cJSON *op = cJSON_GetObjectItemCaseSensitive(r->rec, "op");

		if (r->uid >= tl_trace_nevents(tr) ||
		    (cJSON_IsString(op) && strcmp(op->valuestring, tl_ev_name(tr, &tr->ev[r->uid])))) {
			tl_log(TL_LOG_INFO, "%s: result for uid %llu (%s) left out: the trace has %s there",
			       tr->path, (unsigned long long)r->uid,
			       cJSON_IsString(op) ? op->valuestring : "?",
			       r->uid < tl_trace_nevents(tr) ? tl_ev_name(tr, &tr->ev[r->uid])
							     : "no event");
			cJSON_Delete(r->rec);
			f->res.mismatched++;
			continue;
		}
		f->recs.v[m++] = *r;
	}
	f->recs.n = m;
}

static bool has_results(const struct fold_op *ops, size_t n, uint64_t uid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ops[mid].uid < uid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ops[lo].uid == uid;
}

static int no_data(const struct tl_fold *f, const struct tl_trace *tr)
{
	const struct tl_fold_result *r = &f->res;

	if (!r->this_trace)
		return tl_err(-ENODATA, "%s: no results for this trace (%llu records, all of other "
			      "traces)", tr->path, (unsigned long long)r->records);
	if (r->mismatched)
		return tl_err(-ENODATA, "%s: %llu results name no event of this trace (uid past the "
			      "end or another op there)", tr->path, (unsigned long long)r->mismatched);
	return tl_err(-ENODATA, "%s: %llu records for this trace, none ok (%llu failed or "
		      "unavailable)", tr->path, (unsigned long long)r->this_trace,
		      (unsigned long long)r->not_ok);
}

int tl_fold_write(struct tl_fold *f, struct tl_trace *tr, tl_fold_write_fn write, void *ctx,
		  struct tl_fold_result *res)
{
	struct splice s = { .tr = tr, .base = tr->text, .end = tr->text + tr->text_len };
	TL_VEC(struct fold_op) ops = { 0 };
	cJSON *summary = NULL;
	char *cev = NULL;
	size_t cev_len = 0, i, j;
	int err;

	/* the copy is spliced from the mapped text: refuse a file changed under us */
	err = tl_file_id_check(&tr->text_id, tr->path);
	if (err)
		return err;
	tl_fold_finish(f);
	drop_mismatched(f, tr);
	f->res.ops = f->res.kernels = f->res.counter_events = 0;
	f->res.used = f->recs.n;
	if (!f->recs.n) {
		err = no_data(f, tr);
		goto out;
	}
	/* keep whatever mode the tree was built in (python functions or not) */
	err = tl_tree_ensure(tr, tr->tree.built ? tr->tree.with_python : false);
	if (err)
		goto out;
	for (i = 0; i < f->recs.n; i = j) {
		struct fold_op op = { .uid = f->recs.v[i].uid, .recs = &f->recs.v[i] };

		for (j = i + 1; j < f->recs.n && f->recs.v[j].uid == op.uid; j++)
			;
		op.n = j - i;
		if (tl_vec_push(&ops, op)) {
			err = tl_err(-ENOMEM, "out of memory");
			goto out;
		}
		err = tl_fold_annotate(tr, &ops.v[ops.n - 1]);
		if (err)
			goto out;
	}
	for (i = 0; i < ops.n; i++) {
		const struct fold_op *op = &ops.v[i];

		/* copies merged from capture traces are not in the text: only their kernels are */
		if (op->uid < tr->nev_src) {
			err = annotate_tlreplay(&s, op->uid, op->args);
			if (err)
				goto out;
		}
		f->res.ops++;
		for (j = 0; j < op->nk; j++) {
			/* a GPU event with results of its own keeps those */
			if (op->kernels[j] >= tr->nev_src || has_results(ops.v, ops.n, op->kernels[j]))
				continue;
			err = annotate_tlreplay(&s, op->kernels[j], op->kargs);
			if (err)
				goto out;
			f->res.kernels++;
		}
	}
	err = drop_old_counters(&s);
	if (!err)
		err = tl_fold_counter_events(tr, ops.v, ops.n, &cev, &cev_len, &f->res.counter_events);
	if (err)
		goto out;
	if (cev_len) {
		err = add_edit(&s, last_event_end(&s), last_event_end(&s), cev, cev_len);
		cev = NULL;
		if (err)
			goto out;
	}
	summary = summary_of(f, ops.v, ops.n);
	if (!summary) {
		err = tl_err(-ENOMEM, "out of memory");
		goto out;
	}
	err = add_summary(&s, summary);
	if (!err)
		err = emit(&s, write, ctx);
out:
	tl_fold_copy_res(res, &f->res);
	for (i = 0; i < s.edits.n; i++)
		free(s.edits.v[i].text);
	tl_vec_free(&s.edits);
	for (i = 0; i < ops.n; i++) {
		free(ops.v[i].kernels);
		cJSON_Delete(ops.v[i].args);
		cJSON_Delete(ops.v[i].kargs);
		cJSON_Delete(ops.v[i].tracks);
	}
	tl_vec_free(&ops);
	cJSON_Delete(summary);
	free(cev);
	return err;
}

/* ------------------------------------------------------------ marked copies */

/* tl_trace_write_marked()'s events, from its array. */
static int extra_from_array(void *ctx, size_t i, struct tl_extra_event *out, char *buf, size_t size)
{
	(void)buf;
	(void)size;
	*out = ((const struct tl_extra_event *)ctx)[i];
	return 0;
}

int tl_trace_write_marked(struct tl_trace *tr, const struct tl_mark *marks, size_t nmarks,
			  const struct tl_extra_event *extra, size_t nextra, tl_fold_write_fn write,
			  void *ctx)
{
	return tl_trace_write_marked_gen(tr, marks, nmarks, extra_from_array, (void *)extra, nextra, write, ctx);
}

/* A copy of @tr's text with args members set on events and events
 * appended: the same splicing as a fold, for other writers (critpath's path). */
int tl_trace_write_marked_gen(struct tl_trace *tr, const struct tl_mark *marks, size_t nmarks, tl_extra_event_fn extra,
			      void *extra_ctx, size_t nextra, tl_fold_write_fn write, void *ctx)
{
	struct splice s = { .tr = tr,
			    .base = tr->text,
			    .end = tr->text + tr->text_len,
			    .gen = extra,
			    .gen_ctx = extra_ctx,
			    .ngen = nextra };
	struct tl_text t = tl_trace_text(tr);
	size_t i;
	int err = tl_file_id_check(&tr->text_id, tr->path);

	if (!err && nextra && !extra)
		err = tl_err(-EINVAL, "%zu events to append and nothing to make them", nextra);
	for (i = 0; i < nmarks && !err; i++) {
		/* finding a marked event faults in its part of the text (and the
		 * kernel maps up to 64 KB around each fault): a long list of marks
		 * would make all of it resident */
		if (i % 256 == 255)
			tl_text_drop_pages(&t, 0, tr->text_len);
		if (marks[i].uid >= tr->nev_src)
			err = tl_err(-EINVAL, "%s: no event %llu in the trace's text to mark", tr->path,
				     (unsigned long long)marks[i].uid);
		else
			err = annotate_event(&s, marks[i].uid, marks[i].key, marks[i].json);
	}
	if (!err && nextra)
		err = add_gen_edit(&s, last_event_end(&s));
	if (!err)
		err = emit(&s, write, ctx);
	for (i = 0; i < s.edits.n; i++)
		free(s.edits.v[i].text);
	tl_vec_free(&s.edits);
	return err;
}

/* The one-call fold: here rather than beside tl_fold_new() in fold.c, which
 * would otherwise depend on this file while this one depends on it. */
int tl_fold(struct tl_trace *tr, const cJSON *const *records, size_t n,
	    const struct tl_fold_opts *opts, tl_fold_write_fn write, void *ctx,
	    struct tl_fold_result *res)
{
	struct tl_fold_opts o = { .sz = sizeof(o) };
	struct tl_fold *f = NULL;
	size_t i;
	int err;

	if (opts)
		memcpy(&o, opts, opts->sz && opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	o.sz = sizeof(o);
	if (!o.trace_id && !o.trace_path)
		o.trace_path = tl_trace_path(tr);
	err = tl_fold_new(&o, &f);
	for (i = 0; !err && i < n; i++)
		err = tl_fold_add(f, records[i]);
	if (!err)
		err = tl_fold_write(f, tr, write, ctx, res);
	else if (res && f)
		tl_fold_stats(f, res);
	tl_fold_free(f);
	return err;
}
