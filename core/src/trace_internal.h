/* SPDX-License-Identifier: MIT */
/* The in-memory trace: a flat table of events (one per traceEvents element,
 * indexed by UID) over the JSON text, which is kept so that each event's
 * "args" can be parsed lazily from its raw slice. */
#ifndef TL_TRACE_INTERNAL_H
#define TL_TRACE_INTERNAL_H

#include <cjson/cJSON.h>
#include <tlreplay/tlreplay.h>

#include "intervals.h"
#include "strtab.h"
#include "util.h"

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
};

/* 80 bytes per event; a 1M-event trace costs 80 MB here. */
struct tl_ev {
	double ts, dur;
	uint64_t args_off;	/* offset of args' '{' in text, TL_NOARGS if none */
	uint32_t args_len;
	uint32_t name;		/* strtab ids */
	uint32_t pid, tid;	/* interned raw tokens ("6240", "\"Spans\""), 0 = absent */
	uint32_t cat;
	uint16_t flags;
	uint8_t kind;		/* enum tl_kind */
	char ph;
	int64_t corr;		/* args.correlation; flows: their id */
	int64_t extid;		/* args["External id"] */
	int64_t seq;		/* args["Sequence number"] */
	int32_t stream, device;
};

/* The host tree and links (tree.c). Arrays are indexed by UID. */
struct tl_tree {
	bool built;		/* host tree + links + fwd/bwd */
	bool links_only;	/* only runtime -> GPU links (parent of GPU events) */
	bool with_python;
	int linking_is_corr;	/* 1: correlation, 0: External id */
	bool linked_by_correlation;	/* no flow events: runtime -> GPU by correlation id */
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

	struct tl_ev *ev;
	size_t nev, cap;
	struct tl_strtab strs;
	/* printable form of interned pid/tid tokens, by strtab id (lazily) */
	uint32_t *disp;
	size_t ndisp;
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

/* Raw args text of an event (NULL if none). */
static inline const char *tl_ev_args(const struct tl_trace *tr, const struct tl_ev *e, size_t *len)
{
	if (e->args_off == TL_NOARGS) {
		*len = 0;
		return NULL;
	}
	*len = e->args_len;
	if (e->args_off & TL_ARGS_EXTRA)
		return tr->extra + (e->args_off & ~TL_ARGS_EXTRA);
	return tr->text + e->args_off;
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
int tl_tree_grow(struct tl_trace *tr, size_t n);
void tl_tree_free(struct tl_tree *t);

/* batch_context.c: the iteration annotation around event @uid as
 * {n_prefill, prefill_tokens, n_decode, decode_tokens[, *_kv_tokens]};
 * *out NULL when there is none. */
int tl_batch_context(struct tl_trace *tr, uint64_t uid, cJSON **out);

/* analysis helpers (timeline.c) */
enum tl_gpu_class tl_classify_gpu(const struct tl_trace *tr, const struct tl_ev *e);
/* Per-name GPU class table (malloc'ed, indexed by strtab id). */
int tl_gpu_classes(const struct tl_trace *tr, uint8_t **out);

#endif
