/* SPDX-License-Identifier: MIT */
/* Reading events back out of a loaded trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "trace/trace_internal.h"

const char *tl_trace_path(const struct tl_trace *tr)
{
	return tr->path;
}

uint64_t tl_trace_nevents(const struct tl_trace *tr)
{
	return tr->nev;
}

uint64_t tl_trace_nevents_file(const struct tl_trace *tr)
{
	return tr->nev_src;
}

uint64_t tl_trace_text_size(const struct tl_trace *tr)
{
	return tr->text_len;
}

void tl_trace_set_text_window(struct tl_trace *tr, bool on)
{
	const char *env = getenv("TLREPLAY_TEXT_WINDOW");

	if (env && !strcmp(env, "always"))
		on = true;
	else if (env && !strcmp(env, "never"))
		on = false;
	tr->text_window = on && tr->text_is_file;
}

const struct cJSON *tl_trace_metadata(const struct tl_trace *tr)
{
	return tr->meta;
}

const char *tl_ev_name(const struct tl_trace *tr, const struct tl_ev *e)
{
	return tl_strtab_get(&tr->strs, e->name);
}

/* pid/tid are interned as raw JSON tokens so that 7 and "7" stay distinct
 * keys, as they are for TraceLens; this gives their printable form. */
int tl_trace_prepare_display(struct tl_trace *tr)
{
	size_t i, n = tr->strs.n;

	/* current already: leave it, as readers on other threads may use it */
	if (tr->disp && tr->disp_nstrs == n)
		return 0;
	free(tr->disp);
	tr->disp = malloc(n * sizeof(*tr->disp) + 1);
	if (!tr->disp)
		return tl_err(-ENOMEM, "out of memory");
	tr->ndisp = n;
	for (i = 0; i < n; i++)
		tr->disp[i] = (uint32_t)i;
	/* Raw string tokens (pid/tid values) are the only interned strings that
	 * start with a quote: names and categories are interned unquoted. */
	for (i = 0; i < n; i++) {
		const char *s = tl_strtab_get(&tr->strs, (uint32_t)i);
		uint32_t len = tl_strtab_len(&tr->strs, (uint32_t)i);
		char *buf;
		long n2;
		uint32_t id;

		if (len < 2 || s[0] != '"' || s[len - 1] != '"')
			continue;
		buf = malloc(len);
		if (!buf)
			return tl_err(-ENOMEM, "out of memory");
		n2 = js_unescape(s + 1, len - 2, buf);
		id = n2 < 0 ? (uint32_t)i : tl_strtab_intern(&tr->strs, buf, (size_t)n2);
		free(buf);
		if (id == UINT32_MAX)
			return tl_err(-ENOMEM, "out of memory");
		/* new ids (the unquoted forms) display as themselves: i < ndisp */
		tr->disp[i] = id;
	}
	tr->disp_nstrs = tr->strs.n;
	return 0;
}

const char *tl_tok_display_c(const struct tl_trace *tr, uint32_t tok)
{
	if (tok < tr->ndisp)
		tok = tr->disp[tok];
	return tl_strtab_get(&tr->strs, tok);
}

const char *tl_tok_display(struct tl_trace *tr, uint32_t tok)
{
	return tl_tok_display_c(tr, tok);
}

int tl_trace_event(const struct tl_trace *tr, uint64_t uid, struct tl_event_info *o)
{
	const struct tl_ev *e;

	if (uid >= tr->nev)
		return tl_err(-ERANGE, "%s: no event with UID %llu (the trace has %zu events, UIDs 0-%zu)",
			      tr->path, (unsigned long long)uid, tr->nev, tr->nev ? tr->nev - 1 : 0);
	e = &tr->ev[uid];
	memset(o, 0, sizeof(*o));
	o->uid = uid;
	o->name = tl_strtab_get(&tr->strs, e->name);
	o->cat = tl_strtab_get(&tr->strs, e->cat);
	o->kind = (enum tl_kind)e->kind;
	o->ph = e->ph;
	o->has_ts = e->flags & EV_HAS_TS;
	o->has_dur = e->flags & EV_HAS_DUR;
	o->ts = e->ts;
	o->dur = e->dur;
	o->pid = tl_tok_display_c(tr, e->pid);
	o->tid = tl_tok_display_c(tr, e->tid);
	o->args = tl_ev_args(tr, e, &o->args_len);
	o->correlation = (e->flags & EV_HAS_CORR) ? tl_ev_corr(tr, e) : TL_NOID;
	o->external_id = (e->flags & EV_HAS_EXTID) ? tl_ev_extid(tr, e) : TL_NOID;
	o->seq = (e->flags & EV_HAS_SEQ) ? tl_ev_seq(tr, e) : TL_NOID;
	o->stream = (e->flags & EV_HAS_STREAM) ? e->stream : TL_NOID;
	o->device = (e->flags & EV_HAS_DEVICE) ? e->device : TL_NOID;
	return 0;
}

static _Thread_local struct tl_args_window args_win[2];
static _Thread_local unsigned args_win_next;

/* Let the pages of @w's span go. A private read-only file mapping that
 * nothing writes: MADV_DONTNEED only unmaps pages, and a thread reading them
 * faults them back. */
static void window_release(const struct tl_trace *tr, struct tl_args_window *w)
{
	size_t pg = 4096, lo = (size_t)w->lo & ~(pg - 1), hi = (size_t)w->hi & ~(pg - 1);

	/* the page being read (at hi) stays */
	if (tr->text_is_file && hi > lo && hi <= tr->map_len)
		madvise((void *)(tr->text + lo), hi - lo, MADV_DONTNEED);
	w->moves = 0;
	w->lo = UINT64_MAX;
	w->hi = 0;
}

void tl_trace_text_touch(const struct tl_trace *tr, uint64_t off, uint64_t len)
{
	struct tl_args_window *w = &args_win[0];

	if (w->text != tr->text) {
		w = &args_win[1];
		if (w->text != tr->text) {
			/* a trace this thread has not read yet: the older slot */
			w = &args_win[args_win_next];
			args_win_next ^= 1;
			*w = (struct tl_args_window){ .text = tr->text, .lo = UINT64_MAX,
						      .last_page = UINT64_MAX };
		}
	}
	if (off >> 12 == w->last_page)
		return;
	w->last_page = off >> 12;
	if (off < w->lo)
		w->lo = off;
	if (off + len > w->hi)
		w->hi = off + len;
	if (++w->moves >= TL_ARGS_DROP_PAGES)
		window_release(tr, w);
}

bool tl_meta_name(const struct tl_trace *tr, const struct tl_ev *e, char *buf, size_t n)
{
	size_t len;
	const char *a = tl_ev_args(tr, e, &len);
	cJSON *j, *v;
	bool ok = false;

	if (!a)
		return false;
	j = cJSON_ParseWithLength(a, len);
	v = cJSON_GetObjectItemCaseSensitive(j, "name");
	if (cJSON_IsString(v)) {
		snprintf(buf, n, "%s", v->valuestring);
		ok = true;
	}
	cJSON_Delete(j);
	return ok;
}

int tl_trace_process_name(const struct tl_trace *tr, const char *pid, char *buf, size_t size)
{
	size_t i;

	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];

		if (e->kind == TL_KIND_METADATA && e->pid && !strcmp(tl_ev_name(tr, e), "process_name") &&
		    !strcmp(tl_tok_display_c(tr, e->pid), pid) && tl_meta_name(tr, e, buf, size))
			return 0;
	}
	return -ENOENT;
}

int tl_trace_event_args(const struct tl_trace *tr, uint64_t uid, struct cJSON **out)
{
	const struct tl_ev *e;

	*out = NULL;
	if (uid >= tr->nev)
		return tl_err(-ERANGE, "%s: no event with UID %llu", tr->path,
			      (unsigned long long)uid);
	e = &tr->ev[uid];
	{
		size_t len;
		const char *a = tl_ev_args(tr, e, &len);

		if (!a)
			return 0;
		*out = cJSON_ParseWithLength(a, len);
	}
	if (!*out)
		return tl_err(-EBADMSG, "%s: args of event %llu do not parse", tr->path,
			      (unsigned long long)uid);
	return 0;
}

void tl_trace_kind_counts(const struct tl_trace *tr, uint64_t counts[TL_KIND_COUNT])
{
	size_t i;

	memset(counts, 0, sizeof(uint64_t) * TL_KIND_COUNT);
	for (i = 0; i < tr->nev; i++)
		counts[tr->ev[i].kind]++;
}
