/* SPDX-License-Identifier: MIT */
/* The HLO ops of an XSpace's "/host:metadata" plane, for TraceLens's JAX
 * sheets that show a kernel's operands (kernel_launchers, df_xla_perf, op_*).
 * Each event metadata there carries one serialized xla.HloProto; of it we keep,
 * per module and instruction (the roots left out, as TraceLens's reader of
 * XProf's HLO text skips "ROOT" lines), the texts XProf's HLO printer writes:
 * the output shape, the operands ("bf16[2,3]{1,0}%name", joined by ","), the
 * metadata={...} and custom_call_target="..." attributes. They become the
 * top-level JSON key "hloOps": {module: {op: {...}}}. Walked straight off the
 * wire (only the few fields named below), so a trace without HLO costs a scan
 * of one plane header. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_internal.h"

struct hw {
	const uint8_t *p, *end;
};

struct hf {
	uint32_t num, wt;
	uint64_t v;
	const uint8_t *d;
	size_t len;
};

static int hvar(struct hw *w, uint64_t *out)
{
	uint64_t r = 0;
	unsigned s = 0;

	while (w->p < w->end && s < 64) {
		uint8_t c = *w->p++;

		r |= (uint64_t)(c & 0x7f) << s;
		if (c < 0x80) {
			*out = r;
			return 1;
		}
		s += 7;
	}
	return 0;
}

/* 1 with a field, 0 at the end, -1 on malformed input */
static int hnext(struct hw *w, struct hf *f)
{
	uint64_t t, l;

	if (w->p >= w->end)
		return 0;
	if (!hvar(w, &t))
		return -1;
	f->num = (uint32_t)(t >> 3);
	f->wt = t & 7;
	switch (f->wt) {
	case 0:
		return hvar(w, &f->v) ? 1 : -1;
	case 1:
	case 5:
		l = f->wt == 1 ? 8 : 4;
		if ((size_t)(w->end - w->p) < l)
			return -1;
		w->p += l;
		return 1;
	case 2:
		if (!hvar(w, &l) || l > (uint64_t)(w->end - w->p))
			return -1;
		f->d = w->p;
		f->len = (size_t)l;
		w->p += l;
		return 1;
	default:
		return -1;
	}
}

struct sbuf {
	char *p;
	size_t n, cap;
	bool oom;
};

static void sput(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2;
		char *q = realloc(b->p, cap);

		if (!q) {
			b->oom = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

static void sstr(struct sbuf *b, const char *s)
{
	sput(b, s, strlen(s));
}

/* a JSON string of @n bytes (control bytes as \u00XX) */
static void sjson(struct sbuf *b, const char *s, size_t n)
{
	size_t i;
	char esc[8];

	sput(b, "\"", 1);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			sput(b, esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			sput(b, esc, 6);
		} else {
			sput(b, s + i, 1);
		}
	}
	sput(b, "\"", 1);
}

/* xla.PrimitiveType as HLO text writes it */
static const char *ptype(uint64_t t)
{
	static const char *const names[] = {
		"invalid", "pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16", "f32",
		"f64", "tuple", "opaque", "c64", "bf16", "token", "c128", "f8e5m2", "f8e4m3fn", "s4", "u4",
		"f8e4m3b11fnuz", "f8e5m2fnuz", "f8e4m3fnuz", "s2", "u2", "f8e4m3", "f8e3m4", "f4e2m1fn",
		"f8e8m0fnu", "s1", "u1",
	};

	return t < sizeof(names) / sizeof(names[0]) ? names[t] : "unknown";
}

static void packed_ints(struct sbuf *b, const struct hf *f)
{
	struct hw w = { f->d, f->d + f->len };
	uint64_t v;
	char num[24];
	bool first = true;

	if (f->wt == 0) {
		snprintf(num, sizeof(num), "%lld", (long long)f->v);
		sstr(b, num);
		return;
	}
	while (w.p < w.end && hvar(&w, &v)) {
		snprintf(num, sizeof(num), "%s%lld", first ? "" : ",", (long long)v);
		sstr(b, num);
		first = false;
	}
}

/* xla.ShapeProto as text: bf16[2,3]{1,0}, (a, b) for a tuple */
static void shape_text(struct sbuf *b, const uint8_t *p, size_t len)
{
	struct hw w = { p, p + len };
	struct sbuf dims = { 0 }, lay = { 0 };
	struct hf f;
	uint64_t type = 0;
	bool tuple_first = true, has_layout = false;

	while (hnext(&w, &f) > 0) {
		if (f.num == 2 && f.wt == 0) {
			type = f.v;
		} else if (f.num == 3) {
			if (dims.n)
				sput(&dims, ",", 1);
			packed_ints(&dims, &f);
		} else if (f.num == 4 && f.wt == 2) {
			sstr(b, tuple_first ? "(" : ", ");
			tuple_first = false;
			shape_text(b, f.d, f.len);
		} else if (f.num == 5 && f.wt == 2) {
			struct hw lw = { f.d, f.d + f.len };
			struct hf lf;

			has_layout = true;
			while (hnext(&lw, &lf) > 0)
				if (lf.num == 1) {
					if (lay.n)
						sput(&lay, ",", 1);
					packed_ints(&lay, &lf);
				}
		}
	}
	if (type == 13) {
		sstr(b, tuple_first ? "()" : ")");
	} else {
		sstr(b, ptype(type));
		sput(b, "[", 1);
		sput(b, dims.p ? dims.p : "", dims.n);
		sput(b, "]", 1);
		/* rank 0 prints no layout */
		if (has_layout && dims.n) {
			sput(b, "{", 1);
			sput(b, lay.p ? lay.p : "", lay.n);
			sput(b, "}", 1);
		}
	}
	free(dims.p);
	free(lay.p);
}

/* xla.OpMetadata as HLO text: metadata={op_type="" op_name="" source_file="" source_line=N} */
static void metadata_text(struct sbuf *b, const uint8_t *p, size_t len)
{
	static const char *const keys[] = { NULL, "op_type", "op_name", "source_file" };
	const struct hf *by[4] = { NULL };
	struct hf fs[4];
	struct hw w = { p, p + len };
	struct hf f;
	uint64_t line = 0;
	bool any = false;
	int k;

	while (hnext(&w, &f) > 0) {
		if (f.num >= 1 && f.num <= 3 && f.wt == 2 && f.len) {
			fs[f.num] = f;
			by[f.num] = &fs[f.num];
		} else if (f.num == 4 && f.wt == 0) {
			line = f.v;
		}
	}
	for (k = 1; k <= 3; k++)
		if (by[k]) {
			sstr(b, any ? " " : "metadata={");
			sstr(b, keys[k]);
			sstr(b, "=\"");
			sput(b, (const char *)by[k]->d, by[k]->len);
			sstr(b, "\"");
			any = true;
		}
	if (line) {
		char num[64];	/* "metadata={source_line=" and 20 digits */

		snprintf(num, sizeof(num), "%ssource_line=%llu", any ? " " : "metadata={",
			 (unsigned long long)line);
		sstr(b, num);
		any = true;
	}
	if (any)
		sstr(b, "}");
}

struct inst {
	const uint8_t *p;
	size_t len;
	uint64_t id;
	const uint8_t *name, *shape;
	size_t name_len, shape_len;
};

static void inst_peek(struct inst *in)
{
	struct hw w = { in->p, in->p + in->len };
	struct hf f;

	while (hnext(&w, &f) > 0) {
		if (f.num == 1 && f.wt == 2) {
			in->name = f.d;
			in->name_len = f.len;
		} else if (f.num == 3 && f.wt == 2) {
			in->shape = f.d;
			in->shape_len = f.len;
		} else if (f.num == 35 && f.wt == 0) {
			in->id = f.v;
		}
	}
}

static const struct inst *find_inst(const struct inst *v, size_t n, uint64_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].id == id)
			return &v[i];
	return NULL;
}

static void write_inst(struct sbuf *b, const struct inst *in, const struct inst *all, size_t n, bool *first)
{
	struct hw w = { in->p, in->p + in->len };
	struct sbuf ops = { 0 }, md = { 0 };
	struct hf f;
	const uint8_t *cct = NULL;
	size_t cct_len = 0;

	while (hnext(&w, &f) > 0) {
		if (f.num == 7 && f.wt == 2) {
			metadata_text(&md, f.d, f.len);
		} else if (f.num == 28 && f.wt == 2 && f.len) {
			cct = f.d;
			cct_len = f.len;
		} else if (f.num == 36) {
			struct hw ow = { f.d, f.d + f.len };
			uint64_t id;

			for (;;) {
				const struct inst *o;

				if (f.wt == 0)
					id = f.v;
				else if (ow.p >= ow.end || !hvar(&ow, &id))
					break;
				o = find_inst(all, n, id);
				if (ops.n)
					sput(&ops, ",", 1);
				if (o) {
					shape_text(&ops, o->shape, o->shape_len);
					sput(&ops, "%", 1);
					sput(&ops, (const char *)o->name, o->name_len);
				}
				if (f.wt == 0)
					break;
			}
		}
	}
	sstr(b, *first ? "" : ",");
	*first = false;
	sjson(b, (const char *)in->name, in->name_len);
	sstr(b, ":{\"output\":\"");
	shape_text(b, in->shape, in->shape_len);
	sstr(b, "\",\"operands\":");
	sjson(b, ops.p ? ops.p : "", ops.n);
	if (md.n) {
		sstr(b, ",\"metadata\":");
		sjson(b, md.p, md.n);
	}
	if (cct) {
		struct sbuf t = { 0 };

		sstr(&t, "custom_call_target=\"");
		sput(&t, (const char *)cct, cct_len);
		sstr(&t, "\"");
		sstr(b, ",\"custom_call_target\":");
		sjson(b, t.p ? t.p : "", t.n);
		free(t.p);
	}
	sstr(b, "}");
	b->oom |= ops.oom || md.oom;
	free(ops.p);
	free(md.p);
}

/* one xla.HloComputationProto */
static int write_computation(struct sbuf *b, const uint8_t *p, size_t len, bool *first)
{
	struct hw w = { p, p + len };
	struct inst *v = NULL;
	size_t n = 0, cap = 0, i;
	uint64_t root = UINT64_MAX;
	struct hf f;
	int r;

	while ((r = hnext(&w, &f)) > 0) {
		if (f.num == 2 && f.wt == 2) {
			if (n == cap) {
				struct inst *q = realloc(v, (cap = cap ? cap * 2 : 32) * sizeof(*v));

				if (!q) {
					free(v);
					return -ENOMEM;
				}
				v = q;
			}
			memset(&v[n], 0, sizeof(v[n]));
			v[n].p = f.d;
			v[n].len = f.len;
			inst_peek(&v[n]);
			n++;
		} else if (f.num == 6 && f.wt == 0) {
			root = f.v;
		}
	}
	for (i = 0; i < n; i++)
		if (v[i].id != root && v[i].name)
			write_inst(b, &v[i], v, n, first);
	free(v);
	return r < 0 ? -EBADMSG : 0;
}

/* one xla.HloProto: "module":{ops...} */
static int write_hlo(struct sbuf *b, const uint8_t *p, size_t len, bool *first_module)
{
	struct hw w = { p, p + len }, mw;
	struct hf f, mf;
	bool first = true;
	int err = 0;

	while (hnext(&w, &f) > 0) {
		if (f.num != 1 || f.wt != 2)
			continue;
		bool named = false;

		mw = (struct hw){ f.d, f.d + f.len };
		while (!named && hnext(&mw, &mf) > 0)
			if (mf.num == 1 && mf.wt == 2) {
				sstr(b, *first_module ? "" : ",");
				*first_module = false;
				sjson(b, (const char *)mf.d, mf.len);
				sstr(b, ":{");
				named = true;
			}
		if (!named)
			continue;
		mw = (struct hw){ f.d, f.d + f.len };
		while (!err && hnext(&mw, &mf) > 0)
			if (mf.num == 3 && mf.wt == 2)
				err = write_computation(b, mf.d, mf.len, &first);
		sstr(b, "}");
		break;
	}
	return err;
}

int tl_xplane_hlo_json(const uint8_t *plane, size_t len, char **out, size_t *out_len)
{
	struct hw w = { plane, plane + len };
	struct sbuf b = { 0 };
	struct hf f;
	bool first = true;
	int err = 0;

	*out = NULL;
	*out_len = 0;
	sstr(&b, "\"hloOps\":{");
	/* XPlane.event_metadata (4): map entries, value (2) an XEventMetadata
	 * whose stats (5) hold the HloProto as bytes (6) */
	while (!err && hnext(&w, &f) > 0) {
		struct hw ew, mw, sw;
		struct hf ef, mf, sf;

		if (f.num != 4 || f.wt != 2)
			continue;
		ew = (struct hw){ f.d, f.d + f.len };
		while (!err && hnext(&ew, &ef) > 0) {
			if (ef.num != 2 || ef.wt != 2)
				continue;
			mw = (struct hw){ ef.d, ef.d + ef.len };
			while (!err && hnext(&mw, &mf) > 0) {
				if (mf.num != 5 || mf.wt != 2)
					continue;
				sw = (struct hw){ mf.d, mf.d + mf.len };
				while (!err && hnext(&sw, &sf) > 0)
					if (sf.num == 6 && sf.wt == 2)
						err = write_hlo(&b, sf.d, sf.len, &first);
			}
		}
	}
	sstr(&b, "},");
	if (!err && b.oom)
		err = -ENOMEM;
	if (err) {
		free(b.p);
		return err;
	}
	*out = b.p;
	*out_len = b.n;
	return 0;
}
