/* SPDX-License-Identifier: MIT */
/* Loading a trace: one streaming pass over the JSON text that fills the
 * event table. Each event keeps its scalar fields (name, cat, ph, pid, tid,
 * ts, dur, flow id), the handful of args that linking needs (correlation,
 * External id, Sequence number, stream, device) and the raw slice of its
 * args object; nothing else is allocated per event. Top-level keys other
 * than traceEvents are small and go through cJSON. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/base_internal.h"
#include "trace/trace_internal.h"

#define PROGRESS_STEP (16u << 20)
#define DROP_STEP (8u << 20)	/* resident text while loading: about two of these per thread */
#define MERGE_STEP 65536u	/* events copied from the helper thread's table between releases */
#define META_MAX (16u << 20)	/* largest top-level value kept (deviceProperties, ...) */

/* Where parsed events and their strings go: the trace itself, or a private
 * table of a helper thread that is merged in afterwards. */
struct sink {
	struct tl_strtab *strs;
	uint8_t **kinds;	/* kind+1 by cat id (a cache) */
	size_t *nkinds;
	struct tl_ev **ev;
	size_t *nev, *cap;
	struct tl_aside *aside; /* what ev's slots cannot hold, by index in ev */
};

struct loader {
	struct tl_trace *tr;
	struct sink out;
	struct tl_text *text;
	const char *base, *end;
	struct js_err err;
	uint64_t ev_index;	/* element being parsed, for messages */
	bool in_events;
	tl_progress_fn progress;
	void *pctx;
	size_t next_progress, next_drop, dropped_to;
	size_t dropped_base;	/* where this loader started (helper threads) */
	size_t reported;	/* last progress value given */
	char *tmp;		/* unescape buffer */
	size_t tmpcap;
	_Atomic size_t *helper_done;	/* bytes scanned by the helper thread */
	bool is_helper;
	struct {
		char *key;
		const char *v;
		size_t len;
	} *meta;
	size_t nmeta, metacap;
};

/* ------------------------------------------------------------------ kinds */

enum tl_kind tl_kind_from_cat(const char *c, size_t n, char ph)
{
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(c, lit, n))
	if (ph == 'M')
		return TL_KIND_METADATA;
	if (IS("cpu_op") || IS("Operator"))
		return TL_KIND_CPU_OP;
	if (IS("kernel") || IS("Kernel"))
		return TL_KIND_KERNEL;
	if (IS("cuda_runtime") || IS("Runtime") || IS("xpu_runtime") || IS("mtia_runtime") ||
	    IS("privateuse1_runtime"))
		return TL_KIND_RUNTIME;
	if (IS("cuda_driver") || IS("xpu_driver") || IS("privateuse1_driver"))
		return TL_KIND_DRIVER;
	if (IS("gpu_memcpy") || IS("Memcpy"))
		return TL_KIND_MEMCPY;
	if (IS("gpu_memset") || IS("Memset"))
		return TL_KIND_MEMSET;
	if (IS("ac2g") || IS("async") || IS("async_cpu_to_gpu") || IS("async_gpu"))
		return (ph == 's' || ph == 'f' || ph == 't') ? TL_KIND_FLOW_LAUNCH : TL_KIND_OTHER;
	if (IS("fwdbwd"))
		return (ph == 's' || ph == 'f' || ph == 't') ? TL_KIND_FLOW_FWDBWD : TL_KIND_OTHER;
	if (IS("python_function"))
		return TL_KIND_PYTHON;
	if (IS("user_annotation"))
		return TL_KIND_USER_ANNOTATION;
	if (IS("gpu_user_annotation"))
		return TL_KIND_GPU_ANNOTATION;
	if (IS("cpu_instant_event"))
		return TL_KIND_INSTANT;
	if (IS("cuda_sync"))
		return TL_KIND_SYNC;
	if (IS("Trace"))
		return TL_KIND_TRACE_SPAN;
	return TL_KIND_OTHER;
#undef IS
}

const char *tl_kind_name(enum tl_kind k)
{
	static const char *const names[TL_KIND_COUNT] = {
		[TL_KIND_OTHER] = "other",
		[TL_KIND_CPU_OP] = "cpu_op",
		[TL_KIND_RUNTIME] = "runtime",
		[TL_KIND_DRIVER] = "driver",
		[TL_KIND_KERNEL] = "kernel",
		[TL_KIND_MEMCPY] = "gpu_memcpy",
		[TL_KIND_MEMSET] = "gpu_memset",
		[TL_KIND_FLOW_LAUNCH] = "flow",
		[TL_KIND_FLOW_FWDBWD] = "fwdbwd",
		[TL_KIND_PYTHON] = "python_function",
		[TL_KIND_USER_ANNOTATION] = "user_annotation",
		[TL_KIND_GPU_ANNOTATION] = "gpu_user_annotation",
		[TL_KIND_INSTANT] = "instant",
		[TL_KIND_SYNC] = "cuda_sync",
		[TL_KIND_METADATA] = "metadata",
		[TL_KIND_TRACE_SPAN] = "trace_span",
	};
	return (unsigned)k < TL_KIND_COUNT ? names[k] : "?";
}

/* ------------------------------------------------------------------ errors */

static int fail(struct loader *L, const char *at, const char *what)
{
	size_t off = (size_t)(at - L->base);
	size_t line = 1, col;
	const char *p = L->base, *last_nl = L->base - 1;
	char where[64] = "";

	while (p < at) {
		const char *nl = memchr(p, '\n', (size_t)(at - p));

		if (!nl)
			break;
		line++;
		last_nl = nl;
		p = nl + 1;
	}
	col = (size_t)(at - last_nl);
	if (L->in_events)
		snprintf(where, sizeof(where), " in traceEvents[%llu]",
			 (unsigned long long)L->ev_index);
	return tl_err(-EBADMSG, "%s: %s at byte %zu (line %zu, column %zu)%s",
		      L->tr->path, what, off, line, col, where);
}

static int fail_err(struct loader *L)
{
	return fail(L, L->err.at ? L->err.at : L->end, L->err.what ? L->err.what : "invalid JSON");
}

/* ------------------------------------------------------------------ strings */

/* Room for @len bytes in the unescape buffer. */
static bool ensure_tmp(struct loader *L, size_t len)
{
	char *t;

	if (len <= L->tmpcap)
		return true;
	t = realloc(L->tmp, len);
	if (!t)
		return false;
	L->tmp = t;
	L->tmpcap = len;
	return true;
}

static uint32_t intern(struct loader *L, const char *s, size_t len, bool esc)
{
	if (esc) {
		long n;

		if (!ensure_tmp(L, len))
			return UINT32_MAX;
		n = js_unescape(s, len, L->tmp);
		if (n < 0)
			return UINT32_MAX;
		s = L->tmp;
		len = (size_t)n;
	}
	return tl_strtab_intern(L->out.strs, s, len);
}

/* Value of a string-or-scalar field: strings are unescaped (raw: kept with
 * their quotes, for pid/tid tokens), other tokens are taken verbatim. */
static const char *field_string(struct loader *L, const char *p, uint32_t *id, bool raw)
{
	const char *q;

	if (*p == '"') {
		bool esc = false;

		q = js_string_end(p + 1, L->end, &esc, &L->err);
		if (!q)
			return NULL;
		*id = raw ? tl_strtab_intern(L->out.strs, p, (size_t)(q - p))
			  : intern(L, p + 1, (size_t)(q - p - 2), esc);
	} else {
		q = js_skip_value(p, L->end, &L->err);
		if (!q)
			return NULL;
		*id = tl_strtab_intern(L->out.strs, p, (size_t)(q - p));
	}
	if (*id == UINT32_MAX) {
		L->err.at = p;
		L->err.what = "out of memory";
		return NULL;
	}
	return q;
}

/* A number, or a string holding one (Perfetto accepts both for ts/dur). */
static const char *field_number(struct loader *L, const char *p, double *d, int64_t *iv,
				bool *is_int, bool *ok)
{
	const char *e = L->end;

	*ok = false;
	if (*p == '"') {
		bool esc = false;
		const char *q = js_string_end(p + 1, e, &esc, &L->err);
		struct js_err ignore;
		const char *r;

		if (!q)
			return NULL;
		r = js_number(p + 1, q - 1, d, iv, is_int, &ignore);
		*ok = r == q - 1;
		return q;
	}
	if (*p == '-' || (*p >= '0' && *p <= '9')) {
		const char *q = js_number(p, e, d, iv, is_int, &L->err);

		*ok = q != NULL;
		return q;
	}
	return js_skip_value(p, e, &L->err);
}

/* An integral double that fits int64 (ids written as 5.0 or 1e3). */
static bool as_int64(double d, int64_t *out)
{
	return tl_dbl_to_i64(d, INT64_MIN, INT64_MAX, out);
}

/* Keys with escapes ("n\u0061me") mean what they decode to: decode short
 * ones into @buf (no key we look for is long). */
static void decode_key(const char **k, size_t *klen, bool esc, char *buf, size_t n)
{
	long r;

	if (!esc || *klen >= n)
		return;
	r = js_unescape(*k, *klen, buf);
	if (r >= 0) {
		*k = buf;
		*klen = (size_t)r;
	}
}

static inline bool key_is(const char *k, size_t n, const char *lit, size_t litn)
{
	return n == litn && !memcmp(k, lit, n);
}

#define KEY(lit) key_is(k, klen, lit, sizeof(lit) - 1)

/* At an object key (@p at its '"'): return the start of its value, with the
 * key as written in *k, *klen (*esc set when it holds escapes); NULL with
 * L->err set. */
static const char *scan_key(struct loader *L, const char *p, const char **k, size_t *klen,
			    bool *esc)
{
	const char *e = L->end;

	p = js_key(p, e, k, klen, esc, &L->err);
	if (!p)
		return NULL;
	p = js_ws(p, e);
	return p < e ? p : js_fail(&L->err, e, "truncated JSON");
}

/* The same with the key decoded (into @kbuf, when it has escapes and fits). */
static inline const char *read_key(struct loader *L, const char *p, const char **k, size_t *klen,
				   char *kbuf, size_t kbufn)
{
	bool esc = false;

	p = scan_key(L, p, k, klen, &esc);
	if (p)
		decode_key(k, klen, esc, kbuf, kbufn);
	return p;
}

/* After an object member's value: 1 when another member follows (@*pp moved
 * to its key), 0 at the closing '}' (left on it), -1 on an error. */
static int next_member(struct loader *L, const char **pp)
{
	const char *p = js_ws(*pp, L->end);

	if (p >= L->end) {
		L->err.at = L->end;
		L->err.what = "truncated JSON";
		return -1;
	}
	if (*p == ',') {
		*pp = js_ws(p + 1, L->end);
		return 1;
	}
	*pp = p;
	if (*p == '}')
		return 0;
	L->err.at = p;
	L->err.what = "expected ',' or '}'";
	return -1;
}

/* ------------------------------------------------------------------ args */

/* The ids an event's args and flow id give, kept at full width while it is
 * parsed and set once it is whole (set_ids). */
struct ev_ids {
	int64_t corr, extid, seq;
};

/* Walk the top level of an args object, keeping the linking fields. */
static const char *scan_args(struct loader *L, const char *p, struct tl_ev *ev, struct ev_ids *ids)
{
	const char *e = L->end;
	int64_t legacy_extid = 0;
	bool have_legacy = false;
	char kbuf[64];

	p = js_ws(p + 1, e);
	if (p < e && *p == '}')
		return p + 1;
	for (;;) {
		const char *k;
		size_t klen;
		int r;

		p = read_key(L, p, &k, &klen, kbuf, sizeof(kbuf));
		if (!p)
			return NULL;
		if (klen >= 6 && (*p == '-' || (*p >= '0' && *p <= '9')) &&
		    (KEY("correlation") || KEY("External id") || KEY("Sequence number") ||
		     KEY("stream") || KEY("device") || KEY("external id"))) {
			double d;
			int64_t iv = 0;
			bool is_int = false;

			p = js_number(p, e, &d, &iv, &is_int, &L->err);
			if (!p)
				return NULL;
			if (!is_int)
				is_int = as_int64(d, &iv);
			if (KEY("correlation")) {
				ev->flags |= EV_CORR_KEY;
				if (is_int) {
					ids->corr = iv;
					ev->flags |= EV_HAS_CORR;
				}
			} else if (!is_int) {
				/* other keys need integers */
			} else if (KEY("External id")) {
				ids->extid = iv;
				ev->flags |= EV_HAS_EXTID;
			} else if (KEY("Sequence number")) {
				ids->seq = iv;
				ev->flags |= EV_HAS_SEQ;
			} else if (KEY("stream")) {
				if (iv >= INT32_MIN && iv <= INT32_MAX) {
					ev->stream = (int32_t)iv;
					ev->flags |= EV_HAS_STREAM;
				}
			} else if (KEY("device")) {
				if (iv >= INT32_MIN && iv <= INT32_MAX) {
					ev->device = (int32_t)iv;
					ev->flags |= EV_HAS_DEVICE;
				}
			} else {
				legacy_extid = iv;
				have_legacy = true;
			}
		} else {
			if (KEY("correlation"))
				ev->flags |= EV_CORR_KEY;
			p = js_skip_value(p, e, &L->err);
			if (!p)
				return NULL;
		}
		r = next_member(L, &p);
		if (r < 0)
			return NULL;
		if (r == 0)
			break;
	}
	if (have_legacy && !(ev->flags & EV_HAS_EXTID)) {
		ids->extid = legacy_extid;
		ev->flags |= EV_HAS_EXTID;
	}
	return p + 1;
}

/* ------------------------------------------------------------------ events */

static enum tl_kind kind_of(struct loader *L, uint32_t cat, char ph)
{
	struct tl_strtab *st = L->out.strs;
	uint8_t *kinds = *L->out.kinds;

	if (ph == 'M')
		return TL_KIND_METADATA;
	if (cat >= *L->out.nkinds) {
		size_t n = st->n + 64;
		uint8_t *k = realloc(kinds, n);

		if (!k)
			return TL_KIND_OTHER;
		memset(k + *L->out.nkinds, 0, n - *L->out.nkinds);
		*L->out.kinds = kinds = k;
		*L->out.nkinds = n;
	}
	/* Flow kinds depend on ph as well, so only cache ph-independent answers. */
	if (!kinds[cat]) {
		enum tl_kind k = tl_kind_from_cat(tl_strtab_get(st, cat), tl_strtab_len(st, cat), 'X');

		kinds[cat] = (uint8_t)(k + 1);
	}
	if (kinds[cat] == TL_KIND_OTHER + 1 && (ph == 's' || ph == 'f' || ph == 't'))
		return tl_kind_from_cat(tl_strtab_get(st, cat), tl_strtab_len(st, cat), ph);
	return (enum tl_kind)(kinds[cat] - 1);
}

/* Set @ev's ids and args slice (@off, @len) where its slots can hold them, or
 * aside: false when out of memory. @ev is the next event of the sink. */
static bool set_ids(struct loader *L, struct tl_ev *ev, const struct ev_ids *ids, uint64_t off, uint64_t len)
{
	struct tl_aside *a = L->out.aside;
	uint64_t uid = *L->out.nev;

	return !tl_aside_set_id(a, uid, &ev->corr32, TL_ASIDE_CORR, ids->corr) &&
	       !tl_aside_set_id(a, uid, &ev->extid32, TL_ASIDE_EXTID, ids->extid) &&
	       !tl_aside_set_id(a, uid, &ev->seq32, TL_ASIDE_SEQ, ids->seq) &&
	       (off == TL_NOARGS || !tl_aside_set_args(a, uid, &ev->args_packed, off, len));
}

static const char *parse_event(struct loader *L, const char *p, struct tl_ev *ev)
{
	const char *e = L->end;
	int64_t flow_id = 0;
	bool has_flow_id = false;
	struct ev_ids ids = { 0, 0, 0 };
	uint64_t args_off = TL_NOARGS, args_len = 0;
	char kbuf[64];

	memset(ev, 0, sizeof(*ev));
	ev->args_packed = TL_NOARGS;
	p = js_ws(p + 1, e);
	if (p < e && *p == '}')
		goto done_close;
	for (;;) {
		const char *k;
		size_t klen;
		bool esc = false;
		int r;

		p = read_key(L, p, &k, &klen, kbuf, sizeof(kbuf));
		if (!p)
			return NULL;

		if (KEY("ph")) {
			if (*p == '"') {
				const char *q = js_string_end(p + 1, e, &esc, &L->err);

				if (!q)
					return NULL;
				ev->ph = q - p > 2 ? p[1] : 0;
				if (esc && q - p > 2 && p[1] == '\\') {
					/* "\u0058": decode the string to get its first character */
					size_t len = (size_t)(q - p - 2);
					long n = ensure_tmp(L, len) ? js_unescape(p + 1, len, L->tmp) : -1;

					ev->ph = n > 0 ? L->tmp[0] : 0;
				}
				p = q;
			} else {
				p = js_skip_value(p, e, &L->err);
			}
		} else if (KEY("ts") || KEY("dur")) {
			const char *at = p;
			double d = 0;
			int64_t iv;
			bool is_int, ok;

			p = field_number(L, p, &d, &iv, &is_int, &ok);
			/* 1e400 would be inf, 1e308 overflows ts + dur: refused where it
			 * is written, as a NaN literal is (tl_time_ok) */
			if (ok && !tl_time_ok(d))
				return js_fail(&L->err, at, k[0] == 't' ? "ts out of range (infinite, or beyond +-2^63 ns)"
									: "dur out of range (infinite, or beyond +-2^63 ns)");
			if (ok) {
				if (k[0] == 't') {
					ev->ts = d;
					ev->flags |= EV_HAS_TS;
				} else {
					ev->dur = d;
					ev->flags |= EV_HAS_DUR;
				}
			}
		} else if (KEY("name")) {
			p = field_string(L, p, &ev->name, false);
		} else if (KEY("cat")) {
			p = field_string(L, p, &ev->cat, false);
		} else if (KEY("pid")) {
			p = field_string(L, p, &ev->pid, true);
		} else if (KEY("tid")) {
			p = field_string(L, p, &ev->tid, true);
		} else if (KEY("args")) {
			if (*p == '{') {
				const char *start = p;

				p = scan_args(L, p, ev, &ids);
				if (p) {
					args_off = (uint64_t)(start - L->base);
					args_len = (uint64_t)(p - start);
				}
			} else {
				p = js_skip_value(p, e, &L->err);
			}
		} else if (KEY("id")) {
			double d;
			int64_t iv = 0;
			bool is_int = false, ok;

			p = field_number(L, p, &d, &iv, &is_int, &ok);
			has_flow_id = false;
			if (ok && !is_int)
				is_int = as_int64(d, &iv);
			if (ok && is_int) {
				flow_id = iv;
				has_flow_id = true;
			}
		} else if (KEY("bp")) {
			if (*p == '"' && p + 2 < e && p[1] == 'e' && p[2] == '"')
				ev->flags |= EV_BP_E;
			p = js_skip_value(p, e, &L->err);
		} else {
			p = js_skip_value(p, e, &L->err);
		}
		if (!p)
			return NULL;
		r = next_member(L, &p);
		if (r < 0)
			return NULL;
		if (r == 0)
			break;
	}
done_close:
	ev->kind = (uint8_t)kind_of(L, ev->cat, ev->ph);
	if (ev->kind == TL_KIND_FLOW_LAUNCH || ev->kind == TL_KIND_FLOW_FWDBWD) {
		ev->flags &= (uint16_t)~(EV_HAS_CORR | EV_CORR_KEY);
		if (has_flow_id) {
			ids.corr = flow_id;
			ev->flags |= EV_HAS_CORR;
		}
		if (ev->kind == TL_KIND_FLOW_LAUNCH &&
		    (L->out.strs->n <= ev->cat || strcmp(tl_strtab_get(L->out.strs, ev->cat), "ac2g")))
			ev->flags |= EV_LEGACY_FLOW;
	}
	if (!set_ids(L, ev, &ids, args_off, args_len))
		return js_fail(&L->err, p, "out of memory");
	return p + 1;
}

/* Scanned pages of a mapped file are not needed until someone reads that
 * event's args: let them go to keep the resident set small. */
static void drop_scanned(struct loader *L, size_t done)
{
	if (L->text->is_file && done >= L->next_drop) {
		size_t to = done > (1u << 20) ? done - (1u << 20) : 0;

		tl_text_drop_pages(L->text, L->dropped_to, to);
		L->dropped_to = to;
		L->next_drop = done + DROP_STEP;
	}
}

static void progress_tick(struct loader *L, const char *p)
{
	size_t done = (size_t)(p - L->base);

	if (L->is_helper)
		atomic_store_explicit(L->helper_done, done - L->dropped_base, memory_order_relaxed);
	if (L->progress && done >= L->next_progress) {
		size_t total = (size_t)(L->end - L->base);
		size_t all = done + (L->helper_done ? atomic_load_explicit(L->helper_done,
									   memory_order_relaxed) : 0);

		/* never past the end, never backwards */
		if (all > total)
			all = total;
		if (all < L->reported)
			all = L->reported;
		L->reported = all;
		L->progress(all, total, L->pctx);
		L->next_progress = done + PROGRESS_STEP;
	}
	drop_scanned(L, done);
}

/* Whitespace from @p, in slices for a mapped file so that pages are dropped
 * even where no event ends (gigabytes of padding: a gzip bomb's usual text). */
static const char *scan_ws(struct loader *L, const char *p)
{
	const char *e = L->end, *lim, *q;

	if (!L->text->is_file)
		return js_ws(p, e);
	for (;;) {
		lim = (size_t)(e - p) > DROP_STEP ? p + DROP_STEP : e;
		q = js_ws(p, lim);
		if (q < lim || lim == e)
			return q;
		p = q;
		drop_scanned(L, (size_t)(p - L->base));
	}
}

/* Parse array elements from @p (at an element) to the closing ']'. With
 * @stop, return as soon as an element boundary lands exactly on @stop
 * (*stopped set); passing it without landing on it forgets @stop. */
static const char *parse_elements(struct loader *L, const char *p, const char *stop, bool *stopped)
{
	const char *e = L->end;

	for (;;) {
		struct tl_ev *ev;

		if (p >= e) {
			L->err.at = e;
			L->err.what = "truncated JSON";
			return NULL;
		}
		if (*p != '{') {
			L->err.at = p;
			L->err.what = "event is not a JSON object";
			return NULL;
		}
		if (*L->out.nev == *L->out.cap) {
			if (*L->out.nev >= INT32_MAX / 2) {
				L->err.at = p;
				L->err.what = "too many events (more than 2^30)";
				return NULL;
			}
			if (tl_grow((void **)L->out.ev, L->out.cap, *L->out.nev + 1, sizeof(struct tl_ev))) {
				L->err.at = p;
				L->err.what = "out of memory";
				return NULL;
			}
		}
		ev = &(*L->out.ev)[*L->out.nev];
		p = parse_event(L, p, ev);
		if (!p)
			return NULL;
		(*L->out.nev)++;
		L->ev_index++;
		if (tl_unlikely((L->ev_index & 1023) == 0))
			progress_tick(L, p);
		p = scan_ws(L, p);
		if (p >= e) {
			L->err.at = e;
			L->err.what = "truncated JSON";
			return NULL;
		}
		if (*p == ',') {
			p = scan_ws(L, p + 1);
			if (stop && p >= stop) {
				if (p == stop) {
					*stopped = true;
					return p;
				}
				stop = NULL;	/* the guess was inside an event */
				L->helper_done = NULL;	/* its bytes are ours to count now */
			}
			continue;
		}
		if (*p == ']')
			return p + 1;
		L->err.at = p;
		L->err.what = "expected ',' or ']' after event";
		return NULL;
	}
}

/* A helper thread parses the second half of traceEvents from a guessed
 * element boundary (a '{' after "}," at the midpoint) into private tables;
 * the main thread parses the first half and only keeps the helper's work if
 * it reaches that exact boundary, so a wrong guess costs time, never
 * correctness. */
struct helper {
	struct loader L;
	struct tl_strtab strs;
	uint8_t *kinds;
	size_t nkinds;
	struct tl_ev *ev;
	size_t nev, cap;
	struct tl_aside aside;
	const char *start, *result;
	_Atomic size_t done;
	pthread_t thread;
};

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	bool stopped = false;

	h->result = parse_elements(&h->L, h->start, NULL, &stopped);
	return NULL;
}

static const char *guess_boundary(const char *p, const char *e)
{
	const char *mid = p + (e - p) / 2, *limit = mid + (8u << 20);

	if (limit > e)
		limit = e;
	while (mid < limit) {
		const char *q = memchr(mid, '{', (size_t)(limit - mid)), *b;

		if (!q)
			break;
		b = q;
		while (b > p && (b[-1] == ' ' || b[-1] == '\n' || b[-1] == '\r' || b[-1] == '\t'))
			b--;
		if (b > p && b[-1] == ',') {
			b--;
			while (b > p && (b[-1] == ' ' || b[-1] == '\n' || b[-1] == '\r' || b[-1] == '\t'))
				b--;
			if (b > p && b[-1] == '}')
				return q;
		}
		mid = q + 1;
	}
	return NULL;
}

/* Whether reading args keeps the text's resident pages bounded: for a text
 * of over a quarter of physical memory (tl_trace_set_text_window applies
 * TLREPLAY_TEXT_WINDOW over it). */
static bool text_window(size_t len)
{
	long pages = sysconf(_SC_PHYS_PAGES), pg = sysconf(_SC_PAGESIZE);

	return pages > 0 && pg > 0 && len > (size_t)pages / 4 * (size_t)pg;
}

/* TLREPLAY_THREADS=1 parses with one thread; TLREPLAY_PARALLEL_MIN (bytes,
 * default 16 MiB) is the smallest traceEvents text split in two (the fuzzer
 * lowers it to reach the two-thread path with small inputs). */
static bool use_threads(size_t bytes)
{
	const char *env = getenv("TLREPLAY_THREADS"), *min = getenv("TLREPLAY_PARALLEL_MIN");

	if (env && atoi(env) == 1)
		return false;
	return bytes >= (min ? strtoull(min, NULL, 10) : (16u << 20));
}

/* Fold the helper's events into the trace: its strings are re-interned. */
static int merge_helper(struct loader *L, struct helper *h)
{
	uint32_t *remap = malloc(h->strs.n * sizeof(*remap) + 1);
	size_t i, n0 = *L->out.nev;

	if (!remap)
		return -ENOMEM;
	for (i = 0; i < h->strs.n; i++) {
		remap[i] = tl_strtab_intern(L->out.strs, tl_strtab_get(&h->strs, (uint32_t)i),
					    tl_strtab_len(&h->strs, (uint32_t)i));
		if (remap[i] == UINT32_MAX) {
			free(remap);
			return -ENOMEM;
		}
	}
	if (tl_grow((void **)L->out.ev, L->out.cap, n0 + h->nev + 1, sizeof(struct tl_ev)) ||
	    tl_grow((void **)&L->out.aside->v, &L->out.aside->cap, L->out.aside->n + h->aside.n, sizeof(*h->aside.v))) {
		free(remap);
		return -ENOMEM;
	}
	/* The helper's entries are keyed by its own indices and sorted; every
	 * one of ours is of an event before its first (n0): shifted by n0 they
	 * follow ours in order, and the store stays sorted without a sort. */
	for (i = 0; i < h->aside.n; i++) {
		struct tl_aside_ent x = h->aside.v[i];

		x.key += TL_ASIDE_KEY(n0, 0);
		L->out.aside->v[L->out.aside->n++] = x;
	}
	for (i = 0; i < h->nev; i++) {
		struct tl_ev *d = &(*L->out.ev)[n0 + i];

		*d = h->ev[i];
		d->name = remap[d->name];
		d->cat = remap[d->cat];
		d->pid = remap[d->pid];
		d->tid = remap[d->tid];
		/* the helper's table is freed after: give back what was
		 * copied every MERGE_STEP events, so that the two tables are
		 * never both whole (10 M events: 400 MB less at the load's peak) */
		if ((i + 1) % MERGE_STEP == 0)
			tl_forget(&h->ev[i + 1 - MERGE_STEP], MERGE_STEP * sizeof(*h->ev));
	}
	*L->out.nev = n0 + h->nev;
	L->ev_index += h->nev;
	free(remap);
	return 0;
}

static void helper_free(struct helper *h)
{
	tl_strtab_free(&h->strs);
	free(h->kinds);
	free(h->ev);
	tl_aside_free(&h->aside);
	free(h->L.tmp);
}

static const char *parse_events(struct loader *L, const char *p)
{
	const char *e = L->end, *guess = NULL, *q;
	struct helper *h = NULL;
	bool stopped = false;

	*L->out.nev = 0;	/* a repeated traceEvents key: the last one wins */
	L->out.aside->n = 0;
	L->in_events = true;
	L->ev_index = 0;
	L->tr->events_open = (size_t)(p - L->base);
	p = scan_ws(L, p + 1);
	if (p < e && *p == ']') {
		L->in_events = false;
		L->tr->events_close = (size_t)(p - L->base);
		return p + 1;
	}
	if (use_threads((size_t)(e - p)))
		guess = guess_boundary(p, e);
	if (guess && (h = calloc(1, sizeof(*h))) && tl_strtab_init(&h->strs) == 0) {
		h->L = *L;
		h->L.tmp = NULL;
		h->L.tmpcap = 0;
		h->L.progress = NULL;
		h->L.meta = NULL;
		h->L.out = (struct sink){ &h->strs, &h->kinds, &h->nkinds, &h->ev, &h->nev, &h->cap, &h->aside };
		h->L.dropped_to = h->L.dropped_base = (size_t)(guess - L->base);
		h->L.next_drop = h->L.dropped_to + DROP_STEP;
		h->L.helper_done = &h->done;
		h->L.is_helper = true;
		h->start = guess;
		tl_grow((void **)&h->ev, &h->cap, (size_t)(e - guess) / 250 + 16, sizeof(*h->ev));
		L->helper_done = &h->done;
		if (pthread_create(&h->thread, NULL, helper_main, h)) {
			helper_free(h);
			free(h);
			h = NULL;
			L->helper_done = NULL;
		}
	} else if (h) {
		free(h);
		h = NULL;
	}
	q = parse_elements(L, p, h ? guess : NULL, &stopped);
	if (h) {
		pthread_join(h->thread, NULL);
		L->helper_done = NULL;
		if (q && stopped) {
			if (!h->result) {
				/* a real error in the second half: report it as ours */
				L->err = h->L.err;
				L->ev_index += h->L.ev_index;
				q = NULL;
			} else if (merge_helper(L, h)) {
				L->err.at = guess;
				L->err.what = "out of memory";
				q = NULL;
			} else {
				q = h->result;
			}
		}
		helper_free(h);
		free(h);
	}
	if (q) {
		L->in_events = false;
		L->tr->events_close = (size_t)(q - 1 - L->base);
	}
	return q;
}

static int add_meta(struct loader *L, const char *k, size_t klen, bool esc, const char *v,
		    size_t vlen)
{
	char *key = malloc(klen + 1);
	long n;

	if (!key)
		return -ENOMEM;
	n = esc ? js_unescape(k, klen, key) : (memcpy(key, k, klen), (long)klen);
	if (n < 0) {
		free(key);
		return -EBADMSG;
	}
	key[n] = 0;
	/* deviceProperties and the like are kilobytes; a value of many MB is
	 * padding or junk, and parsing it would cost memory the size of it. */
	if (vlen > META_MAX) {
		tl_log(TL_LOG_WARN, "%s: top-level key \"%s\" left out: %zu MB, too big for metadata",
		       L->tr->path, key, vlen >> 20);
		free(key);
		return 0;
	}
	if (tl_grow((void **)&L->meta, &L->metacap, L->nmeta + 1, sizeof(*L->meta))) {
		free(key);
		return -ENOMEM;
	}
	L->meta[L->nmeta].key = key;
	L->meta[L->nmeta].v = v;
	L->meta[L->nmeta].len = vlen;
	L->nmeta++;
	return 0;
}

static int build_meta(struct loader *L)
{
	struct tl_trace *tr = L->tr;
	size_t i;

	tr->meta = cJSON_CreateObject();
	if (!tr->meta)
		return tl_err(-ENOMEM, "%s: out of memory", tr->path);
	for (i = 0; i < L->nmeta; i++) {
		cJSON *v = cJSON_ParseWithLength(L->meta[i].v, L->meta[i].len);

		if (!v)
			return fail(L, L->meta[i].v, "top-level value cJSON cannot parse");
		if (cJSON_GetObjectItemCaseSensitive(tr->meta, L->meta[i].key))
			cJSON_ReplaceItemInObjectCaseSensitive(tr->meta, L->meta[i].key, v);
		else
			cJSON_AddItemToObject(tr->meta, L->meta[i].key, v);
	}
	return 0;
}

static int parse_document(struct loader *L)
{
	const char *p = scan_ws(L, L->base), *e = L->end;
	bool found = false;
	int err;

	if (p >= e)
		return tl_err(-ENODATA, "%s: no JSON in file (only whitespace)", L->tr->path);
	if (*p == '[') {
		p = parse_events(L, p);
		if (!p)
			return fail_err(L);
		found = true;
	} else if (*p == '{') {
		p = scan_ws(L, p + 1);
		if (p < e && *p == '}') {
			p++;
		} else {
			for (;;) {
				const char *k, *dk;
				size_t klen, dklen;
				bool esc = false;
				char kb[64];

				/* the metadata keep the key as written (add_meta decodes
				 * it whole): scan_key, then decode for the comparison */
				p = scan_key(L, p, &k, &klen, &esc);
				if (!p)
					return fail_err(L);
				dk = k;
				dklen = klen;
				decode_key(&dk, &dklen, esc, kb, sizeof(kb));
				if (key_is(dk, dklen, "traceEvents", 11)) {
					if (*p != '[')
						return fail(L, p, "traceEvents is not an array");
					p = parse_events(L, p);
					if (!p)
						return fail_err(L);
					found = true;
				} else {
					const char *v = p;

					p = js_skip_value(p, e, &L->err);
					if (!p)
						return fail_err(L);
					drop_scanned(L, (size_t)(p - L->base));
					err = add_meta(L, k, klen, esc, v, (size_t)(p - v));
					if (err)
						return err == -ENOMEM ? tl_err(err, "out of memory")
								      : fail(L, k, "invalid key");
				}
				p = scan_ws(L, p);
				if (p >= e)
					return fail(L, e, "truncated JSON");
				if (*p == ',') {
					p = scan_ws(L, p + 1);
					continue;
				}
				if (*p == '}') {
					p++;
					break;
				}
				return fail(L, p, "expected ',' or '}' at top level");
			}
		}
	} else {
		return fail(L, p, "not a JSON trace: top level is neither an object nor an array");
	}
	p = scan_ws(L, p);
	if (p < e)
		return fail(L, p, "unexpected data after the end of the JSON document");
	if (!found)
		return tl_err(-ENODATA, "%s: no traceEvents array in the trace", L->tr->path);
	if (*L->out.nev == 0)
		return tl_err(-ENODATA, "%s: traceEvents is empty", L->tr->path);
	return build_meta(L);
}

static int load(struct tl_trace *tr, struct tl_text *text, const struct tl_open_opts *opts)
{
	struct loader L;
	size_t i;
	int err;

	memset(&L, 0, sizeof(L));
	L.tr = tr;
	L.out = (struct sink){ &tr->strs, &tr->kind_of_cat, &tr->nkind_of_cat, &tr->ev, &tr->nev, &tr->cap, &tr->aside };
	L.text = text;
	L.base = text->p;
	L.end = text->p + text->len;
	if (opts && opts->sz >= offsetof(struct tl_open_opts, progress_ctx) + sizeof(void *)) {
		L.progress = opts->progress;
		L.pctx = opts->progress_ctx;
	}
	L.next_progress = PROGRESS_STEP;
	L.next_drop = DROP_STEP;
	tr->text = text->p;
	tr->text_len = text->len;
	tr->map_len = text->map_len;
	tr->text_is_file = text->is_file;
	tr->text_inflated = text->inflated;
	tr->text_id = text->id;
	tl_trace_set_text_window(tr, text_window(text->len));
	/* ~250 bytes per event in Kineto traces; over-reserving is cheap. */
	if (tl_grow((void **)&tr->ev, &tr->cap, text->len / 250 + 16, sizeof(*tr->ev)))
		return tl_err(-ENOMEM, "%s: out of memory", tr->path);
	err = parse_document(&L);
	if (!err && L.progress)
		L.progress(text->len, text->len, L.pctx);
	if (!err && text->is_file)
		tl_text_drop_pages(text, L.dropped_to, text->len);
	for (i = 0; i < L.nmeta; i++)
		free(L.meta[i].key);
	free(L.meta);
	free(L.tmp);
	if (err)
		return err;
	/* Give back the over-reservation. */
	if (tr->cap > tr->nev + tr->nev / 8) {
		struct tl_ev *ev = realloc(tr->ev, tr->nev * sizeof(*ev));

		if (ev) {
			tr->ev = ev;
			tr->cap = tr->nev;
		}
	}
	tr->nev_src = tr->nev;
	tr->id_graph_cuda = tl_strtab_find(&tr->strs, "cudaGraphLaunch", 15);
	tr->id_graph_hip = tl_strtab_find(&tr->strs, "hipGraphLaunch", 14);
	tr->id_execute = tl_strtab_find(&tr->strs, "execute", 7);
	err = tl_trace_prepare_display(tr);
	if (!err)
		err = tl_xplane_classify(tr);	/* JAX: kinds from thread names */
	return err;
}

static struct tl_trace *trace_new(const char *path, const struct tl_open_opts *opts)
{
	struct tl_trace *tr = calloc(1, sizeof(*tr));

	if (!tr)
		return NULL;
	tr->path = strdup(path);
	tr->rank = -1;
	if (opts && opts->sz >= offsetof(struct tl_open_opts, rank) + sizeof(int))
		tr->rank = opts->rank;
	if (!tr->path || tl_strtab_init(&tr->strs)) {
		free(tr->path);
		free(tr);
		return NULL;
	}
	return tr;
}

static int open_text(struct tl_trace *tr, struct tl_text *text,
		     const struct tl_open_opts *opts, struct tl_trace **out)
{
	int err = 0;

	/* An XSpace protobuf (JAX's .xplane.pb): loaded as the JSON that
	 * XProf's trace viewer makes of it. */
	if (tl_xplane_sniff(text->p, text->len)) {
		struct tl_text json;

		err = tl_xplane_to_json(tr->path, text->p, text->len, &json);
		tl_text_free(text);
		*text = json;
	}
	if (!err)
		err = load(tr, text, opts);
	if (err) {
		tr->text = NULL;	/* owned by @text, released below */
		tl_trace_close(tr);
		tl_text_free(text);
		return err;
	}
	*out = tr;
	return 0;
}

int tl_trace_open(const char *path, const struct tl_open_opts *opts, struct tl_trace **out)
{
	struct tl_text_limits lim;
	struct tl_text text;
	struct tl_trace *tr;
	int err;

	if (!path || !out)
		return tl_err(-EINVAL, "no trace path given");
	tl_text_limits_default(&lim);
	if (opts && opts->sz >= offsetof(struct tl_open_opts, inflate_progress) + sizeof(tl_progress_fn)) {
		if (opts->max_text)
			lim.max_text = opts->max_text == UINT64_MAX ? 0 : opts->max_text;
		lim.tmpdir = opts->tmpdir;
		lim.progress = opts->inflate_progress;
		lim.pctx = opts->progress_ctx;
	}
	err = tl_text_read_ex(path, &lim, &text);
	if (err)
		return err;
	tr = trace_new(path, opts);
	if (!tr) {
		tl_text_free(&text);
		return tl_err(-ENOMEM, "%s: out of memory", path);
	}
	return open_text(tr, &text, opts, out);
}

int tl_trace_open_mem(const void *buf, size_t len, const char *label,
		      const struct tl_open_opts *opts, struct tl_trace **out)
{
	struct tl_text text;
	struct tl_trace *tr;
	int err;

	if (!label)
		label = "<memory>";
	err = tl_text_from_mem(buf, len, label, &text);
	if (err)
		return err;
	tr = trace_new(label, opts);
	if (!tr) {
		tl_text_free(&text);
		return tl_err(-ENOMEM, "%s: out of memory", label);
	}
	return open_text(tr, &text, opts, out);
}

void tl_trace_close(struct tl_trace *tr)
{
	if (!tr)
		return;
	tl_tree_free(&tr->tree);
	if (tr->text && tr->map_len)
		munmap((void *)tr->text, tr->map_len);
	cJSON_Delete(tr->meta);
	free(tr->ev);
	tl_aside_free(&tr->aside);
	free(tr->extra);
	free(tr->disp);
	free(tr->kind_of_cat);
	free(tr->batch_ann);
	tl_strtab_free(&tr->strs);
	free(tr->path);
	free(tr);
}
