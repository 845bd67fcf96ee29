/* SPDX-License-Identifier: MIT */
/* Reading an XSpace protobuf (*.xplane.pb) into the JSON that XProf's trace
 * viewer writes for it (xprof/convert/xplane_to_trace_container.cc and
 * trace_viewer/trace_events_to_json.h), so that the loader, and TraceLens's
 * rules for JAX after it, see what they would see in XProf's export:
 *  - planes: "/host:CPU" -> pid 701 (a second host plane 702, ...);
 *    "/device:GPU:N" (else "/device:TPU:N") -> pid plane id + 1;
 *    "/device:CUSTOM:N" -> 501 + id; every other plane is left out;
 *  - lines -> tid (uint32 of display_id, else id), named by display_name,
 *    else name; lines without events and counter lines are left out;
 *  - events -> "X" events: ts = (timestamp_ns * 1000 + offset_ps) / 1e6 and
 *    dur = max(duration_ps, 1) / 1e6 microseconds, the same doubles as
 *    XProf's (jb_ps); the name is the step_name stat if there is one, else
 *    the metadata's display_name (the full name goes to args.long_name),
 *    else its name; args are the metadata's stats then the event's (an
 *    event's own stat wins), group_id first;
 *  - XProf's order: metadata events by pid then tid, then events by pid,
 *    tid and time.
 * Beyond XProf's JSON: "deviceProperties" from the GPU planes' stats (the
 * keys Kineto uses), "xspace" with the host names, errors and warnings, and
 * for kernels with kernel_details its grid, block, registers and shared
 * memory under Kineto's arg names.
 *
 * protobuf-c does the decoding. To keep memory at a few tens of bytes per
 * event instead of the whole unpacked XSpace, the containers are split by
 * hand (a walk over the wire format that also checks it): plane and line
 * headers are unpacked without their lines and events, and each event is
 * unpacked on its own, into an arena that is reset after it is written. */
#include <math.h>
#include <stdio.h>
#include <sys/mman.h>

#include <protobuf-c/protobuf-c.h>

#include "trace/trace_internal.h"
#include "xplane.pb-c.h"
#include "base/base_internal.h"

/* ------------------------------------------------------------ wire format */

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

struct field {
	uint32_t num;
	unsigned wt;
	uint64_t v;		/* varint and fixed values */
	const uint8_t *start;	/* the tag */
	const uint8_t *data;	/* WT_LEN: the payload */
	size_t len;
	const uint8_t *end;	/* past the whole field */
};

struct wire {
	const uint8_t *p, *end;
	const char *why;	/* on error: what went wrong */
	const uint8_t *at;	/* and where */
	bool short_input;	/* the error is running out of bytes */
};

static bool varint(struct wire *w, uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift;

	for (shift = 0; shift < 70; shift += 7) {
		uint8_t b;

		if (w->p >= w->end) {
			w->why = "a number runs past the end of its message";
			w->short_input = true;
			return false;
		}
		b = *w->p++;
		if (shift == 63 && b > 1) {
			w->why = "a number longer than 64 bits";
			return false;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return true;
		}
	}
	w->why = "a number longer than 10 bytes";
	return false;
}

/* The next field of the message in @w: 1, 0 at its end, -1 on an error
 * (w->why, w->at). */
static int next_field(struct wire *w, struct field *f)
{
	uint64_t tag, n;

	if (w->p >= w->end)
		return 0;
	f->start = w->at = w->p;
	if (!varint(w, &tag))
		return -1;
	f->num = (uint32_t)(tag >> 3);
	f->wt = (unsigned)(tag & 7);
	if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff) {
		w->why = "a field number out of range";
		return -1;
	}
	f->data = NULL;
	f->len = 0;
	f->v = 0;
	switch (f->wt) {
	case WT_VARINT:
		if (!varint(w, &f->v))
			return -1;
		break;
	case WT_I64:
	case WT_I32:
		n = f->wt == WT_I64 ? 8 : 4;
		if ((uint64_t)(w->end - w->p) < n) {
			w->why = "a fixed-size value runs past the end of its message";
			w->short_input = true;
			return -1;
		}
		memcpy(&f->v, w->p, (size_t)n);	/* little-endian hosts only use it as bits */
		w->p += n;
		break;
	case WT_LEN:
		if (!varint(w, &n))
			return -1;
		if (n > (uint64_t)(w->end - w->p)) {
			w->why = "a message or string runs past the end of the data holding it";
			w->short_input = true;
			return -1;
		}
		f->data = w->p;
		f->len = (size_t)n;
		w->p += n;
		break;
	default:
		w->why = f->wt == 3 || f->wt == 4 ? "a group (wire type 3 or 4), which XSpace never uses"
						  : "an invalid wire type";
		return -1;
	}
	f->end = w->p;
	return 1;
}

/* Does the whole of @p frame as protobuf fields (top level only)? */
static bool frames(const uint8_t *p, size_t len)
{
	struct wire w = { p, p + len, NULL, NULL, false };
	struct field f;
	int r;

	while ((r = next_field(&w, &f)) > 0)
		;
	return r == 0;
}

bool tl_xplane_sniff(const char *text, size_t len)
{
	const uint8_t *p = (const uint8_t *)text;
	size_t i = 0;

	if (!len)
		return false;
	/* JSON starts, after white space, with an object or an array. A plane
	 * (tag 0x0a, '\n') of 123 or 91 bytes starts with "\n{" or "\n[":
	 * then only a clean protobuf framing of the whole file decides. */
	while (i < len && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t'))
		i++;
	if (i < len && (p[i] == '{' || p[i] == '['))
		return p[0] == 0x0a && i == 1 && frames(p, len);
	switch (p[0]) {
	case 0x0a:	/* field 1 (planes), length-delimited */
	case 0x12:	/* 2 (errors) */
	case 0x1a:	/* 3 (warnings) */
		return i < len;	/* not white space only */
	case 0x22:	/* 4 (hostnames): also '"', a JSON string */
		return frames(p, len);
	default:
		return false;
	}
}

/* ---------------------------------------------------------- protobuf-c glue */

/* protobuf-c allocates through this: a bump arena reset after each event. */
struct arena {
	char *blk;
	size_t used, cap;
	void **old;		/* blocks outgrown since the last reset */
	size_t nold, oldcap;
	bool failed;
};

static void *arena_alloc(void *ctx, size_t n)
{
	struct arena *a = ctx;
	size_t need = (n + 15) & ~(size_t)15;

	if (need < n)
		return NULL;
	if (a->cap - a->used < need) {
		size_t cap = a->cap ? a->cap : 64 << 10;
		char *b;

		while (cap < need)
			cap *= 2;
		b = malloc(cap);
		if (!b || (a->blk && tl_grow((void **)&a->old, &a->oldcap, a->nold + 1, sizeof(void *)))) {
			free(b);
			a->failed = true;
			return NULL;
		}
		if (a->blk)
			a->old[a->nold++] = a->blk;
		a->blk = b;
		a->cap = cap;
		a->used = 0;
	}
	a->used += need;
	return a->blk + a->used - need;
}

static void arena_free_noop(void *ctx, void *p)
{
	TL_UNUSED(ctx);
	TL_UNUSED(p);
}

static void arena_reset(struct arena *a)
{
	size_t i;

	for (i = 0; i < a->nold; i++)
		free(a->old[i]);
	a->nold = 0;
	a->used = 0;
}

static void arena_fini(struct arena *a)
{
	arena_reset(a);
	free(a->old);
	free(a->blk);
	memset(a, 0, sizeof(*a));
}

/* A message without its repeated field @skip (lines of a plane, events of a
 * line, planes of the space): the fields are copied into a scratch buffer and
 * unpacked by protobuf-c. NULL: out of memory (*nomem) or not a valid message. */
static ProtobufCMessage *unpack_without(const ProtobufCMessageDescriptor *desc, const uint8_t *p,
					size_t len, uint32_t skip, bool *nomem)
{
	struct wire w = { p, p + len, NULL, NULL, false };
	struct field f;
	uint8_t *buf = malloc(len + 1);
	ProtobufCMessage *m = NULL;
	size_t n = 0;
	int r;

	*nomem = !buf;
	if (!buf)
		return NULL;
	while ((r = next_field(&w, &f)) > 0) {
		if (f.num == skip && f.wt == WT_LEN)
			continue;
		memcpy(buf + n, f.start, (size_t)(f.end - f.start));
		n += (size_t)(f.end - f.start);
	}
	if (r == 0)
		m = protobuf_c_message_unpack(desc, NULL, n, buf);
	free(buf);
	return m;
}

/* ------------------------------------------------------------ JSON output */

/* The JSON text, in an anonymous mapping as the loader expects. */
struct jbuf {
	char *p;
	size_t len, cap;
	bool nomem;
};

static bool jb_reserve(struct jbuf *b, size_t n)
{
	size_t cap;
	void *np;

	if (b->nomem)
		return false;
	if (b->cap - b->len >= n)
		return true;
	cap = b->cap ? b->cap : 1 << 20;
	while (cap - b->len < n)
		cap *= 2;
	np = b->p ? mremap(b->p, b->cap, cap, MREMAP_MAYMOVE)
		  : mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			 -1, 0);
	if (np == MAP_FAILED) {
		b->nomem = true;
		return false;
	}
	b->p = np;
	b->cap = cap;
	return true;
}

static void jb_put(struct jbuf *b, const char *s, size_t n)
{
	if (!jb_reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

#define jb_lit(b, lit) jb_put(b, lit, sizeof(lit) - 1)

static void jb_printf(struct jbuf *b, const char *fmt, ...) TL_PRINTF(2, 3);
static void jb_printf(struct jbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!jb_reserve(b, 64))
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		if (!jb_reserve(b, (size_t)n + 1))
			return;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

/* Length of the valid UTF-8 sequence at @s (at most @n bytes), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t k, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4, c = s[0] & 0x07;
	else
		return 0;
	if (n < k)
		return 0;
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((k == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) || (k == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return k;
}

/* A JSON string; bytes that are not UTF-8 become U+FFFD. */
static void jb_str(struct jbuf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0;

	if (!jb_reserve(b, n + 2))
		return;
	b->p[b->len++] = '"';
	while (i < n) {
		unsigned char c = s[i];
		size_t k;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {	/* most of it */
			i++;
			run++;
			continue;
		}
		k = c >= 0x80 ? utf8_len(s + i, n - i) : 0;

		if (k) {
			i += k;
			run += k;
			continue;
		}
		jb_put(b, (const char *)s + i - run, run);
		run = 0;
		if (c == '"')
			jb_lit(b, "\\\"");
		else if (c == '\\')
			jb_lit(b, "\\\\");
		else if (c == '\n')
			jb_lit(b, "\\n");
		else if (c == '\t')
			jb_lit(b, "\\t");
		else if (c == '\r')
			jb_lit(b, "\\r");
		else if (c < 0x20)
			jb_printf(b, "\\u%04x", c);
		else
			jb_lit(b, "\\ufffd");
		i++;
	}
	jb_put(b, (const char *)s + i - run, run);
	jb_lit(b, "\"");
}

/* JSON text as is. */
static void jb_cstr_raw(struct jbuf *b, const char *s)
{
	jb_put(b, s, strlen(s));
}

static void jb_cstr(struct jbuf *b, const char *s)
{
	jb_str(b, s ? s : "", s ? strlen(s) : 0);
}

/* Decimal digits of @v, without printf (millions of them per trace). */
static void jb_digits(struct jbuf *b, uint64_t v, bool neg)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		*--p = '-';
	jb_put(b, p, (size_t)(buf + sizeof(buf) - p));
}

/* Integers past 2^53 are quoted, as XProf does (JavaScript doubles). */
static void jb_i64(struct jbuf *b, int64_t v)
{
	bool big = v > (INT64_C(1) << 53) || v < -(INT64_C(1) << 53);

	if (big)
		jb_lit(b, "\"");
	jb_digits(b, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
	if (big)
		jb_lit(b, "\"");
}

static void jb_u64(struct jbuf *b, uint64_t v)
{
	bool big = v > (UINT64_C(1) << 53);

	if (big)
		jb_lit(b, "\"");
	jb_digits(b, v, false);
	if (big)
		jb_lit(b, "\"");
}

static void jb_double(struct jbuf *b, double d)
{
	if (isfinite(d))
		jb_printf(b, "%.17g", d);
	else if (isnan(d))
		jb_lit(b, "\"NaN\"");
	else
		jb_printf(b, "\"%sInfinity\"", d < 0 ? "-" : "");
}

/* @ps picoseconds in microseconds. XProf prints (double)ps / 1e6 with
 * "%.17g"; up to 2^53 ps (2.5 hours) the exact decimal ps / 10^6 parses to
 * that same double (both are the correctly rounded quotient) and is much
 * cheaper to write. */
static void jb_ps(struct jbuf *b, int64_t ps)
{
	uint64_t a = ps < 0 ? 0 - (uint64_t)ps : (uint64_t)ps, frac;
	char f[8];
	int n = 6, i;

	if (a > (UINT64_C(1) << 53)) {
		jb_double(b, (double)ps / 1e6);
		return;
	}
	jb_digits(b, a / 1000000, ps < 0);
	frac = a % 1000000;
	if (!frac)
		return;
	while (frac % 10 == 0) {
		frac /= 10;
		n--;
	}
	f[0] = '.';
	for (i = n; i > 0; i--, frac /= 10)
		f[i] = (char)('0' + frac % 10);
	jb_put(b, f, (size_t)n + 1);
}

/* ------------------------------------------------------------ conversion */

enum role { ROLE_SKIP, ROLE_HOST, ROLE_GPU, ROLE_TPU, ROLE_CUSTOM };

struct plane {
	const uint8_t *p;	/* the plane's bytes in the file */
	size_t len;
	size_t index;		/* among the XSpace's planes */
	int64_t id;
	char name[96];		/* for messages; the real one is hdr->name */
	enum role role;
	uint32_t pid;
	TlXplane__XPlane *hdr;	/* without its lines */
	struct tl_kmap ev_meta, stat_meta;	/* metadata id -> index in hdr */
	char **kd;		/* by stat_meta index: kernel_details as Kineto args */
	uint8_t *stat_cls;	/* by stat_meta index: enum stat_class */
};

struct line {
	TlXplane__XLine *hdr;	/* without its events */
	uint32_t plane, pid, tid;
};

/* One event to write: 40 bytes, where an unpacked one costs hundreds. */
struct rec {
	double ts, dur;		/* microseconds, as written */
	const uint8_t *ev;	/* its bytes in the file */
	uint32_t evlen, line, pid, tid;
};

struct resource {
	uint32_t pid, tid, line, seq;
};

struct conv {
	const char *label;
	const uint8_t *base, *end;
	TlXplane__XSpace *space;	/* without its planes */
	struct plane *planes;
	size_t nplanes, planecap;
	struct line *lines;
	size_t nlines, linecap;
	struct rec *recs;
	size_t nrecs, reccap;
	struct resource *res;
	size_t nres, rescap;
	struct arena arena;
	ProtobufCAllocator alloc;
	struct jbuf out;
	const char *hostname;
};

static int nomem(struct conv *c)
{
	return tl_err(-ENOMEM, "%s: out of memory reading the XSpace protobuf", c->label);
}

/* @s, at most @n bytes of it, as one printable line. */
static void printable(char *dst, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i + 1 < n && s[i]; i++)
		dst[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	dst[i] = 0;
}

static int bad(struct conv *c, const struct wire *w, const struct plane *pl, const struct line *ln,
	       const char *what)
{
	char where[256] = "", pname[64], lname[64];
	size_t at = w && w->at ? (size_t)(w->at - c->base) : 0;

	if (pl)
		printable(pname, sizeof(pname), pl->name);
	if (pl && ln) {
		printable(lname, sizeof(lname), ln->hdr->display_name[0] ? ln->hdr->display_name : ln->hdr->name);
		snprintf(where, sizeof(where), " (plane %zu \"%s\", line \"%s\")", pl->index, pname, lname);
	} else if (pl) {
		snprintf(where, sizeof(where), " (plane %zu \"%s\")", pl->index, pname);
	}
	return tl_err(-EBADMSG, "%s: %s XSpace protobuf (.xplane.pb): %s at byte %zu%s", c->label,
		      w && w->short_input ? "truncated or corrupt" : "corrupt", what, at, where);
}

static int unpack_failed(struct conv *c, const uint8_t *at, const struct plane *pl,
			 const struct line *ln, const char *what)
{
	struct wire w = { NULL, NULL, NULL, at, false };
	char msg[128];

	snprintf(msg, sizeof(msg), "protobuf-c cannot unpack %s", what);
	return bad(c, &w, pl, ln, msg);
}

static bool has_prefix(const char *s, const char *pfx)
{
	return !strncmp(s, pfx, strlen(pfx));
}

/* The id and name of a plane, read without unpacking it (the metadata plane
 * can hold megabytes of serialized HLO we have no use for). */
static int peek_plane(struct conv *c, struct plane *pl)
{
	struct wire w = { pl->p, pl->p + pl->len, NULL, NULL, false };
	struct field f;
	int r;

	pl->id = 0;
	pl->name[0] = 0;
	while ((r = next_field(&w, &f)) > 0) {
		if (f.num == 1 && f.wt == WT_VARINT) {
			pl->id = (int64_t)f.v;
		} else if (f.num == 2 && f.wt == WT_LEN) {
			size_t n = f.len < sizeof(pl->name) - 1 ? f.len : sizeof(pl->name) - 1;

			memcpy(pl->name, f.data, n);
			pl->name[n] = 0;
			/* names that do not fit are never ones we look for */
			if (f.len >= sizeof(pl->name) - 1)
				pl->name[0] = '?';
		}
	}
	if (r < 0)
		return bad(c, &w, pl, NULL, w.why);
	return 0;
}

static int cmp_plane_name(const void *a, const void *b)
{
	const struct plane *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* XProf's process ids (xplane_to_trace_container.cc). */
static void assign_pids(struct conv *c)
{
	struct plane **host = malloc(c->nplanes * sizeof(*host) + 1);
	bool any_gpu = false;
	size_t i, nhost = 0;

	for (i = 0; i < c->nplanes; i++)
		if (has_prefix(c->planes[i].name, "/device:GPU:"))
			any_gpu = true;
	for (i = 0; i < c->nplanes; i++) {
		struct plane *pl = &c->planes[i];
		int64_t pid;

		pl->role = ROLE_SKIP;
		if (has_prefix(pl->name, "/host:CPU")) {
			pl->role = ROLE_HOST;
			if (host)
				host[nhost++] = pl;
			else
				pl->pid = TL_XP_HOST_PID;
		} else if (has_prefix(pl->name, any_gpu ? "/device:GPU:" : "/device:TPU:")) {
			pl->role = any_gpu ? ROLE_GPU : ROLE_TPU;
			pid = pl->id >= 0 && pl->id < TL_XP_LAST_DEVICE_PID ? pl->id + TL_XP_FIRST_DEVICE_PID
									    : TL_XP_FIRST_DEVICE_PID;
			pl->pid = (uint32_t)pid;
		} else if (has_prefix(pl->name, "/device:CUSTOM:")) {
			pl->role = ROLE_CUSTOM;
			pid = pl->id >= 0 && pl->id <= TL_XP_LAST_CUSTOM_PID - TL_XP_FIRST_CUSTOM_PID
				      ? pl->id + TL_XP_FIRST_CUSTOM_PID
				      : TL_XP_FIRST_CUSTOM_PID;
			pl->pid = (uint32_t)pid;
		}
	}
	/* host planes by name: 701, 702, ... */
	if (host) {
		tl_qsort(host, nhost, sizeof(*host), cmp_plane_name);
		for (i = 0; i < nhost; i++)
			host[i]->pid = TL_XP_HOST_PID + (uint32_t)i;
		free(host);
	}
}

/* What a stat is to the writer, by its name. */
enum stat_class {
	STAT_PLAIN,
	STAT_PLUMBING,	/* context ids, flows, async marks: not shown */
	STAT_GROUP,	/* group_id: written first */
	STAT_STEP,	/* step_name: names the event */
	STAT_KERNEL,	/* kernel_details */
};

static enum stat_class classify_stat(const char *name)
{
	static const char *const plumbing[] = { "_pt", "_p", "_ct", "_c", "_r", "_a", "flow" };
	size_t i;

	for (i = 0; i < TL_ARRAY_SIZE(plumbing); i++)
		if (!strcmp(name, plumbing[i]))
			return STAT_PLUMBING;
	if (!strcmp(name, "group_id"))
		return STAT_GROUP;
	if (!strcmp(name, "step_name"))
		return STAT_STEP;
	if (!strcmp(name, "kernel_details"))
		return STAT_KERNEL;
	return STAT_PLAIN;
}

static int index_meta(struct conv *c, struct plane *pl)
{
	TlXplane__XPlane *h = pl->hdr;
	size_t i;

	pl->kd = calloc(h->n_stat_metadata + 1, sizeof(*pl->kd));
	pl->stat_cls = calloc(h->n_stat_metadata + 1, 1);
	if (!pl->kd || !pl->stat_cls || tl_kmap_init(&pl->ev_meta, h->n_event_metadata + 1) ||
	    tl_kmap_init(&pl->stat_meta, h->n_stat_metadata + 1))
		return nomem(c);
	for (i = 0; i < h->n_event_metadata; i++)
		if (h->event_metadata[i]->value &&
		    tl_kmap_put(&pl->ev_meta, 0, h->event_metadata[i]->key, (uint32_t)i))
			return nomem(c);
	for (i = 0; i < h->n_stat_metadata; i++) {
		if (!h->stat_metadata[i]->value)
			continue;
		pl->stat_cls[i] = (uint8_t)classify_stat(h->stat_metadata[i]->value->name);
		if (tl_kmap_put(&pl->stat_meta, 0, h->stat_metadata[i]->key, (uint32_t)i))
			return nomem(c);
	}
	return 0;
}

static const TlXplane__XEventMetadata *event_meta(const struct plane *pl, int64_t id)
{
	uint32_t i;

	return tl_kmap_get(&pl->ev_meta, 0, id, &i) ? pl->hdr->event_metadata[i]->value : NULL;
}

static const char *stat_name(const struct plane *pl, int64_t id)
{
	uint32_t i;

	return tl_kmap_get(&pl->stat_meta, 0, id, &i) ? pl->hdr->stat_metadata[i]->value->name : NULL;
}

/* Name and class of stat @id; NULL if the plane has no such stat. */
static const char *stat_info(const struct plane *pl, int64_t id, enum stat_class *cls)
{
	uint32_t i;

	if (!tl_kmap_get(&pl->stat_meta, 0, id, &i))
		return NULL;
	*cls = (enum stat_class)pl->stat_cls[i];
	return pl->hdr->stat_metadata[i]->value->name;
}

/* Events XProf never shows (xplane_schema.cc IsInternalEvent). */
static bool internal_event(const char *name)
{
	static const char *const names[] = {
		"MemoryAllocation", "MemoryDeallocation", "PrefetchProduce", "PrefetchConsume",
		"ParallelInterleaveProduce", "ParallelInterleaveConsume",
		"ParallelInterleaveInitializedInput", "ParallelMapProduce", "ParallelMapConsume",
		"MapAndBatchProduce", "MapAndBatchConsume", "ParseExampleProduce", "ParseExampleConsume",
	};
	size_t i;

	for (i = 0; i < TL_ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* (timestamp_ns * 1000 + offset_ps) / 1e6: exact in integers, as XProf
 * computes it, unless it does not fit 64 bits. */
static double start_us(int64_t ts_ns, int64_t off_ps)
{
	int64_t ps;

	if (!__builtin_mul_overflow(ts_ns, 1000, &ps) && !__builtin_add_overflow(ps, off_ps, &ps))
		return (double)ps / 1e6;
	return (double)ts_ns / 1e3 + (double)off_ps / 1e6;
}

/* Walk the events of a line: one record each (internal events left out). */
static int scan_events(struct conv *c, const struct field *lf, uint32_t li)
{
	struct line *ln = &c->lines[li];
	const struct plane *pl = &c->planes[ln->plane];
	struct wire w = { lf->data, lf->data + lf->len, NULL, NULL, false };
	struct field f;
	int r;

	while ((r = next_field(&w, &f)) > 0) {
		struct wire ew;
		struct field g;
		int64_t meta = 0, off = 0, dur = 0;
		const TlXplane__XEventMetadata *m;
		struct rec *rc;
		int q;

		if (f.num != 4 || f.wt != WT_LEN)
			continue;
		ew = (struct wire){ f.data, f.data + f.len, NULL, NULL, false };
		while ((q = next_field(&ew, &g)) > 0) {
			bool want_varint = g.num == 1 || g.num == 2 || g.num == 3 || g.num == 5;

			if ((want_varint && g.wt != WT_VARINT) || (g.num == 4 && g.wt != WT_LEN)) {
				ew.at = g.start;
				ew.why = "an event field of the wrong type";
				q = -1;
				break;
			}
			if (g.num == 1)
				meta = (int64_t)g.v;
			else if (g.num == 2)
				off = (int64_t)g.v;
			else if (g.num == 5)
				off = 0;	/* aggregated: no start of its own */
			else if (g.num == 3)
				dur = (int64_t)g.v;
		}
		if (q < 0)
			return bad(c, &ew, pl, ln, ew.why);
		m = event_meta(pl, meta);
		if (m && internal_event(m->name))
			continue;
		if (c->nrecs == c->reccap &&
		    tl_grow((void **)&c->recs, &c->reccap, c->nrecs + 1, sizeof(*c->recs)))
			return nomem(c);
		if (f.len > UINT32_MAX)
			return bad(c, &w, pl, ln, "an event larger than 4 GiB");
		rc = &c->recs[c->nrecs++];
		rc->ts = start_us(ln->hdr->timestamp_ns, off);
		/* a complete event lasts at least 1 ps (trace_events_to_json.h) */
		rc->dur = (double)(dur < 1 ? 1 : dur) / 1e6;
		rc->ev = f.data;
		rc->evlen = (uint32_t)f.len;
		rc->line = li;
		rc->pid = ln->pid;
		rc->tid = ln->tid;
	}
	if (r < 0)
		return bad(c, &w, pl, ln, w.why);
	return 0;
}

static bool counter_line(const char *name)
{
	return !strcmp(name, "_counters_") || has_prefix(name, "counters_");
}

static int read_plane(struct conv *c, size_t pi)
{
	struct plane *pl = &c->planes[pi];
	struct wire w = { pl->p, pl->p + pl->len, NULL, NULL, false };
	struct field f;
	bool oom;
	int r, err;

	pl->hdr = (TlXplane__XPlane *)unpack_without(&tl_xplane__xplane__descriptor, pl->p, pl->len, 3,
						      &oom);
	if (!pl->hdr)
		return oom ? nomem(c) : unpack_failed(c, pl->p, pl, NULL, "the plane's metadata");
	err = index_meta(c, pl);
	if (err)
		return err;
	while ((r = next_field(&w, &f)) > 0) {
		struct line *ln;
		uint32_t li;
		int64_t tid;
		size_t before;

		if (f.num != 3 || f.wt != WT_LEN)
			continue;
		if (c->nlines == c->linecap &&
		    tl_grow((void **)&c->lines, &c->linecap, c->nlines + 1, sizeof(*c->lines)))
			return nomem(c);
		li = (uint32_t)c->nlines;
		ln = &c->lines[li];
		memset(ln, 0, sizeof(*ln));
		ln->hdr = (TlXplane__XLine *)unpack_without(&tl_xplane__xline__descriptor, f.data, f.len,
							     4, &oom);
		if (!ln->hdr)
			return oom ? nomem(c) : unpack_failed(c, f.start, pl, NULL, "a line");
		c->nlines++;
		ln->plane = (uint32_t)pi;
		ln->pid = pl->pid;
		tid = ln->hdr->display_id ? ln->hdr->display_id : ln->hdr->id;
		ln->tid = (uint32_t)tid;	/* XProf's resource ids are 32-bit */
		if (counter_line(ln->hdr->name))
			continue;
		before = c->nrecs;
		err = scan_events(c, &f, li);
		if (err)
			return err;
		/* A line with events is a thread of the trace viewer (even if all
		 * of them are internal ones). */
		{
			struct wire ew = { f.data, f.data + f.len, NULL, NULL, false };
			struct field g;
			bool any = c->nrecs > before;

			while (!any && next_field(&ew, &g) > 0)
				any = g.num == 4 && g.wt == WT_LEN;
			if (any) {
				if (c->nres == c->rescap &&
				    tl_grow((void **)&c->res, &c->rescap, c->nres + 1, sizeof(*c->res)))
					return nomem(c);
				c->res[c->nres] = (struct resource){ ln->pid, ln->tid, li, (uint32_t)c->nres };
				c->nres++;
			}
		}
	}
	if (r < 0)
		return bad(c, &w, pl, NULL, w.why);
	return 0;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;	/* enclosing events first */
	return (x->ev > y->ev) - (x->ev < y->ev);	/* then file order */
}

static int cmp_res(const void *a, const void *b)
{
	const struct resource *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static const char *line_name(const struct line *ln)
{
	return ln->hdr->display_name[0] ? ln->hdr->display_name : ln->hdr->name;
}

/* ---------------------------------------------------------------- writing */

static bool stat_number(const TlXplane__XStat *s, double *d)
{
	if (!s)
		return false;
	switch (s->value_case) {
	case TL_XPLANE__XSTAT__VALUE_INT64_VALUE:
		*d = (double)s->int64_value;
		return true;
	case TL_XPLANE__XSTAT__VALUE_UINT64_VALUE:
		*d = (double)s->uint64_value;
		return true;
	case TL_XPLANE__XSTAT__VALUE_DOUBLE_VALUE:
		*d = s->double_value;
		return true;
	default:
		return false;
	}
}

/* Kineto's deviceProperties, from what the GPU planes say about their GPU. */
static void write_devices(struct conv *c)
{
	static const struct {
		const char *stat, *key;
	} keys[] = {
		{ "device_vendor", NULL },	/* first: names the device */
		{ "compute_cap_major", "computeMajor" }, { "compute_cap_minor", "computeMinor" },
		{ "core_count", "numSms" }, { "memory_size", "totalGlobalMem" },
		{ "clock_rate", "clockRateKHz" }, { "memory_bandwidth", "memoryBandwidthBytesPerSecond" },
	};
	bool first = true;
	size_t i, j, k;

	jb_lit(&c->out, "\"deviceProperties\":[");
	for (i = 0; i < c->nplanes; i++) {
		const struct plane *pl = &c->planes[i];
		const TlXplane__XStat *vendor, *st[TL_ARRAY_SIZE(keys)] = { 0 };
		char name[160];

		if (pl->role != ROLE_GPU || !pl->hdr)
			continue;
		/* one walk over the plane's stats, each name looked up once; the
		 * first stat of a name counts */
		for (j = 0; j < pl->hdr->n_stats; j++) {
			const char *n = stat_name(pl, pl->hdr->stats[j]->metadata_id);

			for (k = 0; n && k < TL_ARRAY_SIZE(keys); k++)
				if (!st[k] && !strcmp(n, keys[k].stat))
					st[k] = pl->hdr->stats[j];
		}
		vendor = st[0];
		snprintf(name, sizeof(name), "%s%s%s",
			 vendor && vendor->value_case == TL_XPLANE__XSTAT__VALUE_STR_VALUE
				 ? vendor->str_value : "",
			 vendor && vendor->value_case == TL_XPLANE__XSTAT__VALUE_STR_VALUE ? " " : "",
			 pl->hdr->name);
		jb_printf(&c->out, "%s{\"id\":%lld,\"name\":", first ? "" : ",", (long long)pl->id);
		jb_cstr(&c->out, name);
		for (k = 1; k < TL_ARRAY_SIZE(keys); k++) {
			double d;

			if (stat_number(st[k], &d)) {
				jb_printf(&c->out, ",\"%s\":", keys[k].key);
				jb_double(&c->out, d);
			}
		}
		jb_lit(&c->out, "}");
		first = false;
	}
	jb_lit(&c->out, "],");
}

static void write_strings(struct jbuf *b, const char *key, char **v, size_t n, bool comma)
{
	size_t i;

	jb_printf(b, "%s\"%s\":[", comma ? "," : "", key);
	for (i = 0; i < n; i++) {
		if (i)
			jb_lit(b, ",");
		jb_cstr(b, v[i]);
	}
	jb_lit(b, "]");
}

/* process_name / process_sort_index per device, thread_name /
 * thread_sort_index per thread, as XProf writes them. */
static int write_metadata_events(struct conv *c, bool *first)
{
	size_t i, j;

	tl_qsort(c->res, c->nres, sizeof(*c->res), cmp_res);
	for (i = 0; i < c->nres; i = j) {
		uint32_t pid = c->res[i].pid;
		const struct plane *pl = &c->planes[c->lines[c->res[i].line].plane];
		size_t nthreads = 0, k;
		const char *pname = pl->hdr->name;
		char *dev;
		size_t dlen;

		/* the last plane given this pid names it */
		for (j = i; j < c->nres && c->res[j].pid == pid; j++) {
			if (j == i || c->res[j].tid != c->res[j - 1].tid)
				nthreads++;
			if (c->lines[c->res[j].line].plane > (uint32_t)(pl - c->planes))
				pl = &c->planes[c->lines[c->res[j].line].plane], pname = pl->hdr->name;
		}
		dlen = strlen(c->hostname) + strlen(pname) + 2;
		dev = malloc(dlen);
		if (!dev)
			return nomem(c);
		snprintf(dev, dlen, "%s%s%s", c->hostname, *c->hostname ? " " : "", pname);
		jb_printf(&c->out, "%s{\"args\":{\"name\":", *first ? "" : ",");
		jb_cstr(&c->out, dev);
		free(dev);
		jb_printf(&c->out, "},\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"thread_count\":%zu},",
			  pid, nthreads);
		jb_printf(&c->out, "{\"args\":{\"sort_index\":%u},\"name\":\"process_sort_index\","
			  "\"ph\":\"M\",\"pid\":%u}", pid, pid);
		*first = false;
		for (k = i; k < j; k++) {
			if (k + 1 < j && c->res[k + 1].tid == c->res[k].tid)
				continue;	/* the last line with this id names the thread */
			jb_lit(&c->out, ",{\"args\":{\"name\":");
			jb_cstr(&c->out, line_name(&c->lines[c->res[k].line]));
			jb_printf(&c->out, "},\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u}",
				  pid, c->res[k].tid);
			jb_printf(&c->out, ",{\"args\":{\"sort_index\":%u},\"name\":\"thread_sort_index\","
				  "\"ph\":\"M\",\"pid\":%u,\"tid\":%u}", c->res[k].tid, pid, c->res[k].tid);
		}
	}
	return 0;
}


/* "regs:N static_shared:N dynamic_shared:N grid:X,Y,Z block:X,Y,Z ..." as
 * Kineto's kernel args, written into @out (@n bytes). */
static void kernel_details(const char *s, char *out, size_t n)
{
	long long regs = -1, ss = -1, ds = -1, g[3] = { -1, -1, -1 }, k[3] = { -1, -1, -1 };
	const char *p;
	size_t len = 0;

	out[0] = 0;
	if ((p = strstr(s, "regs:")))
		sscanf(p + 5, "%lld", &regs);
	if ((p = strstr(s, "static_shared:")))
		sscanf(p + 14, "%lld", &ss);
	if ((p = strstr(s, "dynamic_shared:")))
		sscanf(p + 15, "%lld", &ds);
	if ((p = strstr(s, "grid:")) && sscanf(p + 5, "%lld,%lld,%lld", &g[0], &g[1], &g[2]) == 3)
		len += (size_t)snprintf(out + len, n - len, ",\"grid\":[%lld,%lld,%lld]", g[0], g[1], g[2]);
	if (len < n && (p = strstr(s, "block:")) &&
	    sscanf(p + 6, "%lld,%lld,%lld", &k[0], &k[1], &k[2]) == 3)
		len += (size_t)snprintf(out + len, n - len, ",\"block\":[%lld,%lld,%lld]", k[0], k[1], k[2]);
	if (len < n && regs >= 0)
		len += (size_t)snprintf(out + len, n - len, ",\"registers per thread\":%lld", regs);
	if (len < n && ss >= 0 && ds >= 0)
		snprintf(out + len, n - len, ",\"shared memory\":%lld", ss + ds);
}

static void write_kernel_details(struct jbuf *b, struct plane *pl, const TlXplane__XStat *s)
{
	char buf[256];
	uint32_t i;

	if (s->value_case == TL_XPLANE__XSTAT__VALUE_STR_VALUE) {
		kernel_details(s->str_value, buf, sizeof(buf));
		jb_cstr_raw(b, buf);
		return;
	}
	/* a ref: the same few strings for millions of kernels, parsed once */
	if (!tl_kmap_get(&pl->stat_meta, 0, (int64_t)s->ref_value, &i))
		return;
	if (!pl->kd[i]) {
		kernel_details(pl->hdr->stat_metadata[i]->value->name, buf, sizeof(buf));
		pl->kd[i] = strdup(buf);
		if (!pl->kd[i]) {
			b->nomem = true;
			return;
		}
	}
	jb_cstr_raw(b, pl->kd[i]);
}

/* A stat's name and class, looked up once per event. */
struct stat_ref {
	const char *name;	/* NULL: not in the plane's metadata */
	enum stat_class cls;
};

/* One stat (@r: its name and class) as `,"name":value`; false if it has
 * nothing to show. */
static bool write_stat(struct jbuf *b, struct plane *pl, const TlXplane__XStat *s,
		       const struct stat_ref *r, bool gpu, bool comma)
{
	const char *name = r->name, *ref = NULL;
	enum stat_class cls = r->cls;

	if (!name || !*name || cls == STAT_PLUMBING || cls == STAT_GROUP)
		return false;
	switch (s->value_case) {
	case TL_XPLANE__XSTAT__VALUE_INT64_VALUE:
	case TL_XPLANE__XSTAT__VALUE_UINT64_VALUE:
	case TL_XPLANE__XSTAT__VALUE_DOUBLE_VALUE:
	case TL_XPLANE__XSTAT__VALUE_STR_VALUE:
		break;
	case TL_XPLANE__XSTAT__VALUE_REF_VALUE:
		ref = stat_name(pl, (int64_t)s->ref_value);
		if (!ref || has_prefix(ref, "@@"))	/* XProf's stack frames */
			return false;
		break;
	default:
		return false;	/* bytes and unset values are not shown */
	}
	if (comma)
		jb_lit(b, ",");
	jb_cstr(b, name);
	jb_lit(b, ":");
	switch (s->value_case) {
	case TL_XPLANE__XSTAT__VALUE_INT64_VALUE:
		jb_i64(b, s->int64_value);
		break;
	case TL_XPLANE__XSTAT__VALUE_UINT64_VALUE:
		jb_u64(b, s->uint64_value);
		break;
	case TL_XPLANE__XSTAT__VALUE_DOUBLE_VALUE:
		jb_double(b, s->double_value);
		break;
	case TL_XPLANE__XSTAT__VALUE_STR_VALUE:
		jb_cstr(b, s->str_value);
		if (gpu && cls == STAT_KERNEL)
			write_kernel_details(b, pl, s);
		break;
	default:
		jb_cstr(b, ref);
		if (gpu && cls == STAT_KERNEL)
			write_kernel_details(b, pl, s);
		break;
	}
	return true;
}

/* A stat's string value (str or ref), NULL otherwise. */
static const char *stat_str(const struct plane *pl, const TlXplane__XStat *s)
{
	if (s->value_case == TL_XPLANE__XSTAT__VALUE_STR_VALUE)
		return s->str_value;
	if (s->value_case == TL_XPLANE__XSTAT__VALUE_REF_VALUE)
		return stat_name(pl, (int64_t)s->ref_value);
	return NULL;
}

static bool overridden(const TlXplane__XEvent *ev, const TlXplane__XStat *s)
{
	size_t i;

	for (i = 0; i < ev->n_stats; i++)
		if (ev->stats[i]->metadata_id == s->metadata_id)
			return true;
	return false;
}

static int write_event(struct conv *c, const struct rec *r, bool comma)
{
	const struct line *ln = &c->lines[r->line];
	struct plane *pl = &c->planes[ln->plane];
	const TlXplane__XEventMetadata *m;
	TlXplane__XEvent *ev;
	const char *name, *step = NULL, *str;
	bool gpu = pl->role == ROLE_GPU, any = false;
	struct stat_ref *refs = NULL;
	size_t i, nm, mark;
	int64_t group = 0, off, ps;
	bool has_group = false;

	ev = tl_xplane__xevent__unpack(&c->alloc, r->evlen, r->ev);
	if (!ev) {
		arena_reset(&c->arena);
		return c->arena.failed ? nomem(c) : unpack_failed(c, r->ev, pl, ln, "an event");
	}
	m = event_meta(pl, ev->metadata_id);
	nm = m ? m->n_stats : 0;
	/* the stats' names and classes, for the two walks below (the metadata's
	 * stats first, then the event's); from the arena, freed with the event */
	if (nm + ev->n_stats) {
		refs = arena_alloc(&c->arena, (nm + ev->n_stats) * sizeof(*refs));
		if (!refs) {
			arena_reset(&c->arena);
			return nomem(c);
		}
	}
	for (i = 0; i < nm + ev->n_stats; i++) {
		const TlXplane__XStat *s = i < nm ? m->stats[i] : ev->stats[i - nm];
		enum stat_class cls = STAT_PLAIN;

		refs[i].name = stat_info(pl, s->metadata_id, &cls);
		refs[i].cls = cls;
		if (!refs[i].name)
			continue;
		if (cls == STAT_STEP && (str = stat_str(pl, s)))
			step = str;
		else if (cls == STAT_GROUP && s->value_case == TL_XPLANE__XSTAT__VALUE_INT64_VALUE)
			group = s->int64_value, has_group = true;
		else if (cls == STAT_GROUP && s->value_case == TL_XPLANE__XSTAT__VALUE_UINT64_VALUE)
			group = (int64_t)s->uint64_value, has_group = true;
	}
	name = m ? (m->display_name[0] ? m->display_name : m->name) : "";
	if (step && *step)
		name = step;
	if (comma)
		jb_lit(&c->out, ",");
	jb_lit(&c->out, "{\"pid\":");
	jb_digits(&c->out, r->pid, false);
	jb_lit(&c->out, ",\"tid\":");
	jb_digits(&c->out, r->tid, false);
	jb_lit(&c->out, ",\"name\":");
	jb_cstr(&c->out, name);
	jb_lit(&c->out, ",\"ts\":");
	off = ev->data_case == TL_XPLANE__XEVENT__DATA_OFFSET_PS ? ev->offset_ps : 0;
	if (!__builtin_mul_overflow(ln->hdr->timestamp_ns, 1000, &ps) && !__builtin_add_overflow(ps, off, &ps))
		jb_ps(&c->out, ps);
	else
		jb_double(&c->out, r->ts);
	jb_lit(&c->out, ",\"dur\":");
	jb_ps(&c->out, ev->duration_ps < 1 ? 1 : ev->duration_ps);
	jb_lit(&c->out, ",\"ph\":\"X\"");
	mark = c->out.len;
	jb_lit(&c->out, ",\"args\":{");
	if (has_group) {
		jb_lit(&c->out, "\"group_id\":");
		jb_i64(&c->out, group);
		any = true;
	}
	if (m && m->display_name[0]) {
		size_t n = strlen(m->name);

		jb_printf(&c->out, "%s\"long_name\":", any ? "," : "");
		if (n > 10000) {
			char *t = malloc(10000 + 16);

			if (!t) {
				arena_reset(&c->arena);
				return nomem(c);
			}
			memcpy(t, m->name, 10000);
			memcpy(t + 10000, "...<truncated>", 15);
			jb_cstr(&c->out, t);
			free(t);
		} else {
			jb_cstr(&c->out, m->name);
		}
		any = true;
	}
	for (i = 0; i < nm; i++)
		if (!overridden(ev, m->stats[i]) &&
		    write_stat(&c->out, pl, m->stats[i], &refs[i], gpu, any))
			any = true;
	for (i = 0; i < ev->n_stats; i++)
		if (write_stat(&c->out, pl, ev->stats[i], &refs[nm + i], gpu, any))
			any = true;
	/* XProf leaves out an empty args object; so do we */
	if (!any && !c->out.nomem)
		c->out.len = mark;
	else
		jb_lit(&c->out, "}");
	jb_lit(&c->out, "}");
	arena_reset(&c->arena);	/* frees the event */
	return c->out.nomem ? nomem(c) : 0;
}

static int write_json(struct conv *c)
{
	TlXplane__XSpace *s = c->space;
	bool first = true;
	size_t i;
	int err;

	/* about 250 bytes an event: reserve it (untouched pages cost nothing) */
	jb_reserve(&c->out, c->nrecs * 256 + (1 << 16));
	jb_lit(&c->out, "{\"displayTimeUnit\":\"ns\",\"metadata\":{\"highres-ticks\":true},");
	write_devices(c);
	for (i = 0; i < c->nplanes; i++) {
		char *hlo;
		size_t n;

		if (strcmp(c->planes[i].name, "/host:metadata"))
			continue;
		err = tl_xplane_hlo_json(c->planes[i].p, c->planes[i].len, &hlo, &n);
		if (err)
			return tl_err(err, "%s: cannot read the HLO of XSpace plane \"/host:metadata\": %s",
				      c->label, strerror(-err));
		jb_put(&c->out, hlo, n);
		free(hlo);
	}
	jb_lit(&c->out, "\"xspace\":{");
	write_strings(&c->out, "hostnames", s->hostnames, s->n_hostnames, false);
	write_strings(&c->out, "errors", s->errors, s->n_errors, true);
	write_strings(&c->out, "warnings", s->warnings, s->n_warnings, true);
	jb_lit(&c->out, "},\"traceEvents\":[");
	err = write_metadata_events(c, &first);
	if (err)
		return err;
	tl_qsort(c->recs, c->nrecs, sizeof(*c->recs), cmp_rec);
	for (i = 0; i < c->nrecs; i++) {
		err = write_event(c, &c->recs[i], !first);
		if (err)
			return err;
		first = false;
	}
	jb_lit(&c->out, "]}\n");
	return c->out.nomem ? nomem(c) : 0;
}

/* -------------------------------------------------------------- top level */

static int read_space(struct conv *c)
{
	struct wire w = { c->base, c->end, NULL, NULL, false };
	struct field f;
	bool oom;
	size_t i, nplanes = 0;
	int r, err;

	while ((r = next_field(&w, &f)) > 0) {
		struct plane *pl;

		if (f.num != 1 || f.wt != WT_LEN)
			continue;
		if (c->nplanes == c->planecap &&
		    tl_grow((void **)&c->planes, &c->planecap, c->nplanes + 1, sizeof(*c->planes)))
			return nomem(c);
		pl = &c->planes[c->nplanes++];
		memset(pl, 0, sizeof(*pl));
		pl->p = f.data;
		pl->len = f.len;
		pl->index = nplanes++;
		err = peek_plane(c, pl);
		if (err)
			return err;
	}
	if (r < 0) {
		if (w.short_input && w.at && f.num == 1)
			return tl_err(-EBADMSG,
				      "%s: truncated XSpace protobuf (.xplane.pb): plane %zu, from byte %zu, "
				      "runs past the end of the file (%zu bytes)",
				      c->label, nplanes, (size_t)(w.at - c->base), (size_t)(c->end - c->base));
		if (w.short_input && w.at)
			return tl_err(-EBADMSG,
				      "%s: truncated XSpace protobuf (.xplane.pb): the field at byte %zu "
				      "runs past the end of the file (%zu bytes)",
				      c->label, (size_t)(w.at - c->base), (size_t)(c->end - c->base));
		return bad(c, &w, NULL, NULL, w.why);
	}
	c->space = (TlXplane__XSpace *)unpack_without(&tl_xplane__xspace__descriptor, c->base,
						       (size_t)(c->end - c->base), 1, &oom);
	if (!c->space)
		return oom ? nomem(c) : unpack_failed(c, c->base, NULL, NULL, "the XSpace");
	c->hostname = c->space->n_hostnames ? c->space->hostnames[0] : "";
	assign_pids(c);
	for (i = 0; i < c->nplanes; i++) {
		if (c->planes[i].role == ROLE_SKIP)
			continue;
		err = read_plane(c, i);
		if (err)
			return err;
	}
	if (!c->nrecs) {
		char names[256] = "";
		size_t n = 0;

		for (i = 0; i < c->nplanes && n < sizeof(names) - 1; i++) {
			char pname[64];

			printable(pname, sizeof(pname), c->planes[i].name);
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s\"%s\"", i ? ", " : "", pname);
		}
		return tl_err(-ENODATA, "%s: XSpace protobuf (.xplane.pb) with no events to show (planes: %s)",
			      c->label, c->nplanes ? names : "none");
	}
	return 0;
}

int tl_xplane_to_json(const char *label, const char *p, size_t len, struct tl_text *out)
{
	struct conv c;
	size_t i, k;
	int err;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.label = label;
	c.base = (const uint8_t *)p;
	c.end = c.base + len;
	c.alloc.alloc = arena_alloc;
	c.alloc.free = arena_free_noop;
	c.alloc.allocator_data = &c.arena;
	err = read_space(&c);
	if (!err)
		err = write_json(&c);
	if (!err) {
		out->p = c.out.p;
		out->len = c.out.len;
		out->map_len = c.out.cap;
		out->is_file = false;
		c.out.p = NULL;
	}
	if (c.out.p)
		munmap(c.out.p, c.out.cap);
	for (i = 0; i < c.nplanes; i++) {
		if (c.planes[i].kd)
			for (k = 0; k < c.planes[i].hdr->n_stat_metadata; k++)
				free(c.planes[i].kd[k]);
		free(c.planes[i].kd);
		free(c.planes[i].stat_cls);
		if (c.planes[i].hdr)
			tl_xplane__xplane__free_unpacked(c.planes[i].hdr, NULL);
		tl_kmap_free(&c.planes[i].ev_meta);
		tl_kmap_free(&c.planes[i].stat_meta);
	}
	for (i = 0; i < c.nlines; i++)
		tl_xplane__xline__free_unpacked(c.lines[i].hdr, NULL);
	if (c.space)
		tl_xplane__xspace__free_unpacked(c.space, NULL);
	free(c.planes);
	free(c.lines);
	free(c.recs);
	free(c.res);
	arena_fini(&c.arena);
	return err;
}
