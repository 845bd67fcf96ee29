/* SPDX-License-Identifier: MIT */
/* trace: from a file to the in-memory trace that every analysis reads. The
 * text is read (base), checked and scanned without a tree by a zero-copy
 * JSON scanner (json_scan.c) into a flat table of events, one per
 * traceEvents element and indexed by UID, each keeping its "args" as a raw
 * slice that cJSON parses on demand (trace_load.c, trace_events.c). JAX
 * XSpace protobufs are first turned into the same JSON (xplane.c), and XProf
 * traces get their event kinds from process and thread names
 * (xplane_kinds.c). Graph-capture traces can be merged in (capture_merge.c).
 * The host call tree and its CPU -> runtime -> GPU links are built on first
 * use (tree.c). It depends on base only. */
#ifndef TL_TRACE_INTERNAL_H
#define TL_TRACE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cjson/cJSON.h>
#include <tlreplay/tlreplay.h>

#include "base/base_internal.h"

/* ====== the event table: trace_load.c, trace_events.c, trace_aside.c, tree.c */

/* The in-memory trace: a flat table of events (one per traceEvents element,
 * indexed by UID) over the JSON text, which is kept so that each event's
 * "args" can be parsed lazily from its raw slice. */

#define TL_NOARGS UINT64_MAX
/* args_off with this bit set points into tl_trace.extra (events copied from
 * another trace, e.g. a graph-capture trace merged in). */
#define TL_ARGS_EXTRA (1ULL << 62)

enum {
	EV_HAS_TS = 1u << 0,
	EV_HAS_DUR = 1u << 1,
	EV_HAS_CORR = 1u << 2,		/* args.correlation (or flow id) is an integer */
	EV_HAS_EXTID = 1u << 3,
	EV_HAS_SEQ = 1u << 4,
	EV_HAS_STREAM = 1u << 5,
	EV_HAS_DEVICE = 1u << 6,
	EV_CORR_KEY = 1u << 7,		/* args has a "correlation" key at all */
	EV_BP_E = 1u << 8,		/* flow event with "bp":"e" */
	/* a launch flow of another category than "ac2g" (older Kineto's
	 * async_cpu_to_gpu, async, async_gpu): TraceLens follows ac2g only */
	EV_LEGACY_FLOW = 1u << 9,
};

/* 64 bytes per event, a cache line; a 1M-event trace costs 64 MB here. The
 * fields that would not fit, the 64-bit ids and the args slice, are kept in
 * narrower slots and read and written only through tl_ev_corr(),
 * tl_ev_set_corr() and the like below: a value a slot cannot say (an id
 * outside int32, an args object of 16 MiB or more, or past 512 GiB of text)
 * is kept beside the table, in tl_trace.aside, and its slot says so. Such
 * values are rare in real traces (Kineto's ids are small counters), so the
 * table stays dense and the common path pays one compare for the look-aside. */
struct tl_ev {
	double ts, dur;
	/* args: bits 0-38 offset of its '{' (in text, or in extra with bit 39
	 * set), bits 40-63 its length; TL_NOARGS if none, length
	 * TL_EV_ARGS_ASIDE if kept aside (tl_ev_args_off/len) */
	uint64_t args_packed;
	uint32_t name;		/* strtab ids */
	uint32_t pid, tid;	/* interned raw tokens ("6240", "\"Spans\""), 0 = absent */
	uint32_t cat;
	uint16_t flags;
	uint8_t kind;		/* enum tl_kind */
	char ph;
	/* args.correlation (flows: their id), args["External id"],
	 * args["Sequence number"]; TL_EV_ID_ASIDE if kept aside (tl_ev_corr...) */
	int32_t corr32, extid32, seq32;
	int32_t stream, device;
};
_Static_assert(sizeof(struct tl_ev) == 64, "struct tl_ev is one 64-byte cache line");

/* What is kept beside the event table: one entry per (UID, field) whose value
 * its slot cannot hold, sorted by key, looked up by binary search. The loader
 * fills it from its threads in UID order (each thread its own list, appended
 * in order at the merge); later writers (pseudo ops, merges, XProf kinds) are
 * single-threaded, as every write to the event table is. */
enum tl_aside_field {
	TL_ASIDE_CORR,
	TL_ASIDE_EXTID,
	TL_ASIDE_SEQ,
	TL_ASIDE_ARGS_OFF, /* as tl_ev_args_off() gives it */
	TL_ASIDE_ARGS_LEN,
};
struct tl_aside_ent {
	uint64_t key; /* UID << 3 | enum tl_aside_field */
	int64_t v;
};
struct tl_aside {
	struct tl_aside_ent *v;
	size_t n, cap;
};
#define TL_ASIDE_KEY(uid, f) ((uint64_t)(uid) << 3 | (uint64_t)(f))

/* An id slot's value for "kept aside": INT32_MIN itself is kept aside too. */
#define TL_EV_ID_ASIDE	    INT32_MIN
#define TL_EV_ARGS_OFF_BITS 39
#define TL_EV_ARGS_OFF_MAX  ((1ULL << TL_EV_ARGS_OFF_BITS) - 1)
#define TL_EV_ARGS_IN_EXTRA (1ULL << TL_EV_ARGS_OFF_BITS)
#define TL_EV_ARGS_ASIDE    0xffffffULL /* the length field: (off, len) kept aside */

/* The value kept aside for @uid's @f (0 if there is none: never, while the
 * slot says aside). */
int64_t tl_aside_get(const struct tl_aside *a, uint64_t uid, enum tl_aside_field f);
/* Keep @v aside for @uid's @f, in place of what was there: 0 or -ENOMEM. */
int tl_aside_put(struct tl_aside *a, uint64_t uid, enum tl_aside_field f, int64_t v);
/* Forget what was kept aside for @uid's @f (none: nothing to do). */
void tl_aside_del(struct tl_aside *a, uint64_t uid, enum tl_aside_field f);
void tl_aside_free(struct tl_aside *a);

/* The id in @slot of event @uid: inline, or looked up aside. */
static inline int64_t tl_aside_id(const struct tl_aside *a, uint64_t uid, int32_t slot, enum tl_aside_field f)
{
	return tl_likely(slot != TL_EV_ID_ASIDE) ? slot : tl_aside_get(a, uid, f);
}

/* Set the id in @slot of event @uid (its table may be a loader thread's own,
 * with its store @a): inline when int32 can hold it, aside otherwise.
 * 0 or -ENOMEM (the slot unchanged). */
int tl_aside_set_id_slow(struct tl_aside *a, uint64_t uid, int32_t *slot, enum tl_aside_field f, int64_t v);
static inline int tl_aside_set_id(struct tl_aside *a, uint64_t uid, int32_t *slot, enum tl_aside_field f, int64_t v)
{
	if (tl_likely(v > INT32_MIN && v <= INT32_MAX && *slot != TL_EV_ID_ASIDE)) {
		*slot = (int32_t)v;
		return 0;
	}
	return tl_aside_set_id_slow(a, uid, slot, f, v);
}

/* Set the args slice of event @uid: @off as tl_ev_args_off() gives it
 * (TL_NOARGS: none, @len then ignored), @len its length. 0 or -ENOMEM. */
int tl_aside_set_args_slow(struct tl_aside *a, uint64_t uid, uint64_t *packed, uint64_t off, uint64_t len);
static inline int tl_aside_set_args(struct tl_aside *a, uint64_t uid, uint64_t *packed, uint64_t off, uint64_t len)
{
	uint64_t o = off & ~TL_ARGS_EXTRA;

	if (tl_likely(o <= TL_EV_ARGS_OFF_MAX && len < TL_EV_ARGS_ASIDE &&
		      (*packed == TL_NOARGS || *packed >> 40 != TL_EV_ARGS_ASIDE))) {
		*packed = len << 40 | o | (off & TL_ARGS_EXTRA ? TL_EV_ARGS_IN_EXTRA : 0);
		return 0;
	}
	return tl_aside_set_args_slow(a, uid, packed, off, len);
}

/* The host tree and links (tree.c). Arrays are indexed by UID. */
struct tl_tree {
	bool built;		/* host tree + links + fwd/bwd */
	bool links_only;	/* only runtime -> GPU links (parent of GPU events) */
	bool with_python;
	int linking_is_corr;	/* 1: correlation, 0: External id */
	bool linked_by_correlation;	/* no flow events: runtime -> GPU by correlation id */
	/* GPU events linked otherwise than TraceLens links them (a legacy flow,
	 * or by correlation id where the trace has no flows) */
	uint64_t legacy_links;
	int32_t *parent;	/* -1 = none */
	int32_t *first_child, *last_child, *next_sibling;
	uint8_t *in_tree;	/* 1: in host tree, 2: linked GPU event, 3: left out (overlap) */
	/* fwd/bwd links */
	int32_t *fwd;		/* bwd event -> fwd op, -1 */
	struct tl_kmap bwd_of;	/* (fwd uid, k) -> bwd uid */
};

struct tl_trace {
	char *path;
	/* The JSON text: either a private mmap of the file or an anonymous buffer. */
	const char *text;
	size_t text_len;
	size_t map_len;		/* length to munmap, 0 if malloc'ed */
	bool text_is_file;	/* file-backed mapping: pages may be dropped */
	bool text_inflated;	/* ... of gzip text inflated into a file of its own */
	struct tl_file_id text_id;	/* the file read, as it was (fold checks it again) */
	bool text_window;	/* ... and reading args lets them go again (tl_ev_args) */

	struct tl_ev *ev;
	size_t nev, cap;
	struct tl_aside aside; /* what ev's slots cannot hold */
	struct tl_strtab strs;
	/* printable form of interned pid/tid tokens, by strtab id (lazily) */
	uint32_t *disp;
	size_t ndisp;
	size_t disp_nstrs;	/* strs.n when disp was made: unchanged, it is current */
	uint8_t *kind_of_cat;	/* by strtab id of a cat: kind+1, 0 = not computed */
	size_t nkind_of_cat;

	cJSON *meta;
	int rank;
	/* Offsets in text of the '[' and ']' of the traceEvents array that was
	 * loaded (fold splices the text; recording them costs nothing). */
	size_t events_open, events_close;

	/* Events past nev_src were added (copies of capture-trace events); their
	 * args text lives in extra. */
	size_t nev_src;
	char *extra;
	size_t nextra, extracap;
	bool merged;		/* capture trace merged: the tree is fixed */
	bool pseudo_ops;	/* pseudo ops added (pseudo_ops.c): the tree is fixed too */
	/* link launches as TraceLens does (tl_trace_set_tracelens_links) */
	bool tracelens_links;
	/* TraceLens's inference report is reading the trace (report_build.c sets
	 * it for a --by-module report): sglang_profiler ops are named without
	 * their call counter, and every attention op of its annotation list reads
	 * its iteration annotation; the plain report does neither. */
	bool inference_view;
	/* An XProf (JAX) trace, read from an .xplane.pb or XProf's JSON: event
	 * kinds come from process and thread names (xplane_kinds.c). */
	bool xprof;

	struct tl_tree tree;
	/* vLLM/SGLang iteration annotations (batch_context.c), built on first use */
	struct tl_batch_ann *batch_ann;
	size_t nbatch_ann;
	bool batch_ann_built;

	/* Interned ids of names that matter to the analyses. */
	uint32_t id_graph_cuda, id_graph_hip, id_execute;
};

/* The fields of an event that may be kept aside (struct tl_ev): @e points
 * into tr->ev (its UID is where it is; never a copy of an event). */
static inline uint64_t tl_ev_uid(const struct tl_trace *tr, const struct tl_ev *e)
{
	return (uint64_t)(e - tr->ev);
}

/* args.correlation (a flow's id), args["External id"], args["Sequence
 * number"]: 0 where the loader found none (EV_HAS_CORR ... say whether). */
static inline int64_t tl_ev_corr(const struct tl_trace *tr, const struct tl_ev *e)
{
	return tl_aside_id(&tr->aside, tl_ev_uid(tr, e), e->corr32, TL_ASIDE_CORR);
}

static inline int64_t tl_ev_extid(const struct tl_trace *tr, const struct tl_ev *e)
{
	return tl_aside_id(&tr->aside, tl_ev_uid(tr, e), e->extid32, TL_ASIDE_EXTID);
}

static inline int64_t tl_ev_seq(const struct tl_trace *tr, const struct tl_ev *e)
{
	return tl_aside_id(&tr->aside, tl_ev_uid(tr, e), e->seq32, TL_ASIDE_SEQ);
}

/* Setters: 0 or -ENOMEM (a value kept aside needs room; the event unchanged). */
static inline int tl_ev_set_corr(struct tl_trace *tr, struct tl_ev *e, int64_t v)
{
	return tl_aside_set_id(&tr->aside, tl_ev_uid(tr, e), &e->corr32, TL_ASIDE_CORR, v);
}

static inline int tl_ev_set_extid(struct tl_trace *tr, struct tl_ev *e, int64_t v)
{
	return tl_aside_set_id(&tr->aside, tl_ev_uid(tr, e), &e->extid32, TL_ASIDE_EXTID, v);
}

static inline int tl_ev_set_seq(struct tl_trace *tr, struct tl_ev *e, int64_t v)
{
	return tl_aside_set_id(&tr->aside, tl_ev_uid(tr, e), &e->seq32, TL_ASIDE_SEQ, v);
}

/* Offset of the args' '{': in text, or with TL_ARGS_EXTRA in extra;
 * TL_NOARGS if the event has none. */
static inline uint64_t tl_ev_args_off(const struct tl_trace *tr, const struct tl_ev *e)
{
	uint64_t p = e->args_packed;

	if (p == TL_NOARGS)
		return TL_NOARGS;
	if (tl_unlikely(p >> 40 == TL_EV_ARGS_ASIDE))
		return (uint64_t)tl_aside_get(&tr->aside, tl_ev_uid(tr, e), TL_ASIDE_ARGS_OFF);
	return (p & TL_EV_ARGS_OFF_MAX) | (p & TL_EV_ARGS_IN_EXTRA ? TL_ARGS_EXTRA : 0);
}

/* The args object's length in bytes (0 if none). */
static inline uint64_t tl_ev_args_len(const struct tl_trace *tr, const struct tl_ev *e)
{
	uint64_t p = e->args_packed;

	if (p == TL_NOARGS)
		return 0;
	if (tl_unlikely(p >> 40 == TL_EV_ARGS_ASIDE))
		return (uint64_t)tl_aside_get(&tr->aside, tl_ev_uid(tr, e), TL_ASIDE_ARGS_LEN);
	return p >> 40;
}

static inline int tl_ev_set_args(struct tl_trace *tr, struct tl_ev *e, uint64_t off, uint64_t len)
{
	return tl_aside_set_args(&tr->aside, tl_ev_uid(tr, e), &e->args_packed, off, len);
}

/* Copy event @s of trace @src (which may be @dst) over @d of @dst, what
 * is kept aside included. 0 or -ENOMEM. */
int tl_ev_copy(struct tl_trace *dst, struct tl_ev *d, const struct tl_trace *src, const struct tl_ev *s);

/* trace_load.c */
enum tl_kind tl_kind_from_cat(const char *cat, size_t len, char ph);

/* trace_events.c */
const char *tl_ev_name(const struct tl_trace *tr, const struct tl_ev *e);
const char *tl_tok_display(struct tl_trace *tr, uint32_t tok);
const char *tl_tok_display_c(const struct tl_trace *tr, uint32_t tok);
int tl_trace_prepare_display(struct tl_trace *tr);
/* The "name" of a metadata event's args (process_name, thread_name) into
 * @buf; false if it has none. */
bool tl_meta_name(const struct tl_trace *tr, const struct tl_ev *e, char *buf, size_t n);

/* The span of a mapped text this thread read args from since it last let
 * those pages go, and how many moves to another page that took
 * (trace_events.c). One per trace a thread reads at once (a diff walks two
 * side by side); a third trace takes the older slot. */
struct tl_args_window {
	const char *text;
	uint64_t lo, hi, last_page;
	size_t moves;
};
#define TL_ARGS_DROP_PAGES 8192u	/* 32 MiB of 4 KiB pages */
/* Note that this thread read args at @off..@off+@len of @tr's text; after
 * every TL_ARGS_DROP_PAGES moves to another page, let the span read go:
 * its pages come back from the page cache when read again. */
void tl_trace_text_touch(const struct tl_trace *tr, uint64_t off, uint64_t len);

/* Raw args text of an event (NULL if none). Reading args faults the text's
 * pages back in after the loader let them go. For a text that is a good
 * share of memory, or a caller holding several (text_window), the pages
 * read are let go again as the reading moves on (tl_trace_text_touch), so
 * that a pass over every op's args does not make the whole text resident;
 * smaller texts stay mapped (refaulting them costs a report about 7%). */
static inline const char *tl_ev_args(const struct tl_trace *tr, const struct tl_ev *e, size_t *len)
{
	uint64_t off = tl_ev_args_off(tr, e);

	if (off == TL_NOARGS) {
		*len = 0;
		return NULL;
	}
	*len = tl_ev_args_len(tr, e);
	if (off & TL_ARGS_EXTRA)
		return tr->extra + (off & ~TL_ARGS_EXTRA);
	if (tr->text_window)
		tl_trace_text_touch(tr, off, *len);
	return tr->text + off;
}

/* Whether @e has both a ts and a dur (a range that can hold or be held). */
static inline bool tl_ev_timed(const struct tl_ev *e)
{
	return (e->flags & (EV_HAS_TS | EV_HAS_DUR)) == (EV_HAS_TS | EV_HAS_DUR);
}

static inline double tl_ev_end(const struct tl_ev *e)
{
	return e->ts + e->dur;
}

/* tree.c: ensure the tree is built in the mode required (with python or not). */
int tl_tree_ensure(struct tl_trace *tr, bool with_python);
/* Only the runtime -> GPU links (tree.parent of GPU events, in_tree == 2). */
int tl_links_ensure(struct tl_trace *tr);
/* Tree surgery for merges: append @child to @parent's children; drop all of
 * @parent's children; grow the per-UID arrays from tr->nev to @n entries. */
void tl_tree_add_child(struct tl_tree *t, int32_t parent, int32_t child);
void tl_tree_clear_children(struct tl_tree *t, int32_t parent);
/* Take @child out of @parent's children (no-op if it is not one). */
void tl_tree_remove_child(struct tl_tree *t, int32_t parent, int32_t child);
int tl_tree_grow(struct tl_trace *tr, size_t n);

/* trace_append.c: an event the library adds (pseudo ops, graph-annotation
 * ops). Borrowed strings; @like gives pid and tid (it may be an event of the
 * trace: it is read before the events grow). */
struct trace_new_event {
	const char *name, *cat;
	enum tl_kind kind;
	const struct tl_ev *like;
	double ts, dur;
	uint16_t flags;	       /* EV_HAS_TS ...: 0 for an event with no time of its own */
	const char *args_json; /* its args as JSON text, or NULL */
};
/* Append @n as the trace's last event, in the tree (in_tree 1) with no parent
 * yet; *uid = its UID. 0 or -ENOMEM (the trace may have grown, unchanged). */
int trace_append_event(struct tl_trace *tr, const struct trace_new_event *n, uint64_t *uid);
void tl_tree_free(struct tl_tree *t);

/* ============================================================= json_scan.c */

/* A validating, zero-copy JSON scanner for the hot path of trace loading.
 *
 * It never builds a tree: callers walk objects key by key, take the few
 * values they need and skip the rest, keeping raw slices of what they skip
 * (the "args" of each event) for cJSON to parse later, on demand.
 * It accepts the RFC 8259 grammar (literals, numbers, strings with valid
 * escapes, nesting up to JS_MAX_DEPTH) with one leniency shared with cJSON:
 * raw control characters inside strings are let through. */

#define JS_MAX_DEPTH 512

/* Where and why scanning failed. */
struct js_err {
	const char *at;		/* position of the problem */
	const char *what;	/* static description */
};

/* Fill @e and return NULL. */
static inline const char *js_fail(struct js_err *e, const char *at, const char *what)
{
	e->at = at;
	e->what = what;
	return NULL;
}

static inline const char *js_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

/* @p points just after an opening quote. Returns the position after the
 * closing quote, or NULL (e->at/what set) for an unterminated string or a
 * bad escape. *has_esc is set if the string contains backslashes. */
static inline const char *js_string_end(const char *p, const char *end, bool *has_esc,
					struct js_err *e)
{
	const char *start = p;

	for (;;) {
#if defined(__SSE2__)
		const __m128i q = _mm_set1_epi8('"');
		const __m128i bs = _mm_set1_epi8('\\');

		while (end - p >= 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
			int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q),
							       _mm_cmpeq_epi8(v, bs)));
			if (m) {
				p += __builtin_ctz((unsigned)m);
				goto found;
			}
			p += 16;
		}
#endif
		while (p < end && *p != '"' && *p != '\\')
			p++;
		if (p >= end) {
			e->at = start - 1;
			e->what = "truncated JSON (the file ends inside a string)";
			return NULL;
		}
#if defined(__SSE2__)
found:
#endif
		if (*p == '"')
			return p + 1;
		*has_esc = true;
		if (end - p < 2)
			goto bad_end;
		switch (p[1]) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
			p += 2;
			break;
		case 'u': {
			int i;

			if (end - p < 6)
				goto bad_end;
			for (i = 2; i < 6; i++) {
				char c = p[i];

				if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
				      (c >= 'A' && c <= 'F'))) {
					e->at = p;
					e->what = "invalid \\u escape in string";
					return NULL;
				}
			}
			p += 6;
			break;
		}
		default:
			e->at = p;
			e->what = "invalid escape in string";
			return NULL;
		}
	}
bad_end:
	e->at = start - 1;
	e->what = "truncated JSON (the file ends inside a string)";
	return NULL;
}

/* An object key and its ':', @p at the key's opening quote. Returns the
 * position after the ':', with the key as written in *k, *klen (*has_esc set
 * if it holds backslashes); NULL with @e filled otherwise. One key reader
 * for the scanner, the loader, fold's splicer and the XProf args. */
static inline const char *js_key(const char *p, const char *end, const char **k, size_t *klen,
				 bool *has_esc, struct js_err *e)
{
	if (p >= end)
		return js_fail(e, end, "truncated JSON");
	if (*p != '"')
		return js_fail(e, p, "expected a string key");
	*k = p + 1;
	p = js_string_end(*k, end, has_esc, e);
	if (!p)
		return NULL;
	*klen = (size_t)(p - 1 - *k);
	p = js_ws(p, end);
	if (p >= end)
		return js_fail(e, end, "truncated JSON");
	if (*p != ':')
		return js_fail(e, p, "expected ':' after key");
	return p + 1;
}

/* Skip any JSON value starting at @p (leading whitespace allowed).
 * Returns the position after it, or NULL with @e filled. */
const char *js_skip_value(const char *p, const char *end, struct js_err *e);

/* Parse a number. Returns the end of it or NULL. *d gets the correctly
 * rounded double; if the literal is an integer that fits, *is_int is set and
 * *iv holds it. */
const char *js_number(const char *p, const char *end, double *d, int64_t *iv, bool *is_int,
		      struct js_err *e);

/* Decode the body of a JSON string (without quotes) into @dst, which must
 * have room for @len bytes. Returns the decoded length, or -1 if invalid. */
long js_unescape(const char *src, size_t len, char *dst);

/* ================================================================ xplane.c */

/* JAX/XLA profiles: the XSpace protobuf the profiler writes (*.xplane.pb)
 * and the Chrome-trace JSON that XProf's trace viewer makes of it.
 *
 * An XSpace is turned into that same JSON, in memory (xplane.c), and loaded
 * like any other trace; then both kinds of XProf trace get their event kinds
 * from their process and thread names (xplane_kinds.c), since XProf writes no
 * categories. docs/jax.md has the whole mapping. */

struct tl_trace;

/* XProf's trace-viewer process ids: devices 1..500 (plane id + 1), custom
 * planes 501..700, host threads 701 (tsl/profiler/utils/trace_utils.h). */
#define TL_XP_FIRST_DEVICE_PID 1
#define TL_XP_LAST_DEVICE_PID 500
#define TL_XP_FIRST_CUSTOM_PID 501
#define TL_XP_LAST_CUSTOM_PID 700
#define TL_XP_HOST_PID 701

/* True when @p (@len bytes, gzip already inflated) holds an XSpace protobuf
 * rather than JSON: judged from the content only. */
bool tl_xplane_sniff(const char *p, size_t len);

/* Write the trace-viewer JSON of the XSpace in @p into a new text (@out, to
 * release with tl_text_free()). @label names the file in error messages.
 * Returns 0, -EBADMSG (truncated or corrupt protobuf: tl_last_error() says
 * where), -ENODATA (no events to show) or -ENOMEM. */
int tl_xplane_to_json(const char *label, const char *p, size_t len, struct tl_text *out);
/* The HLO ops of an XSpace's "/host:metadata" plane (@plane, @len: its bytes)
 * as the JSON member "hloOps":{module:{op:{output, operands, metadata,
 * custom_call_target}}}, with a trailing comma (xplane_hlo.c). *out is
 * malloc'd, the caller's to free. 0 or -ENOMEM / -EBADMSG. */
int tl_xplane_hlo_json(const uint8_t *plane, size_t len, char **out, size_t *out_len);

/* If @tr is an XProf trace (from an XSpace or XProf's JSON export), give its
 * events their kinds, correlation ids, devices and streams the way TraceLens
 * reads JAX traces (GPU streams -> kernel/memcpy, launches -> runtime,
 * py_xla and Framework Name Scope threads -> cpu_op) and set tr->xprof. Other
 * traces are left alone. Returns 0 or -ENOMEM. */
int tl_xplane_classify(struct tl_trace *tr);

/* The trace's text as base's page dropping reads it (fold and split stream
 * it out and let the pages go behind them). */
static inline struct tl_text tl_trace_text(const struct tl_trace *tr)
{
	return (struct tl_text){ tr->text, tr->text_len, tr->map_len, tr->text_is_file, tr->text_inflated, tr->text_id };
}

#endif
