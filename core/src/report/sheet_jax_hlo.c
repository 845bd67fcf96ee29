/* SPDX-License-Identifier: MIT */
/* TraceLens's JAX sheets that show each kernel's HLO op (JaxTreePerfAnalyzer
 * get_df_kernel_launchers): one row a GPU kernel, with the operands of the
 * HLO instruction that launched it, as TraceLens reads them out of XProf's
 * HLO text. The XSpace reader keeps that HLO as the trace's top-level
 * "hloOps" (xplane_hlo.c); here are TraceLens's rules on it:
 *  - a kernel has HLO data when args.hlo_module/hlo_op name an op there and a
 *    host event launched it (TraceLens attaches it while linking the two);
 *  - its operands are the regex [bfs][0-9\[\]\{,a-z]*\} over the text up to
 *    the first ')' (else that text split at ','), and its Input Dims / type
 *    the (type)[dims]{layout} of each, those that have one;
 *  - custom_call_target="..." and metadata={... keep the characters of
 *    TraceLens's regexes, after its ", " -> "," and " %" -> "%" edits;
 *  - UIDs count the non-metadata events, as TraceLens's JAX tree does;
 *  - GPU_kernel_launch_latency: the kernel's ts less its host parent's. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>
#include <tlreplay/analysis.h>
#include <tlreplay/report.h>
#include <tlreplay/report_sheets.h>
#include <tlreplay/trace.h>
#include <tlreplay/tree.h>

#include "report/report_internal.h"

struct strv {
	char **v;
	size_t n, cap;
};

struct hrow {
	uint64_t uid;		/* TraceLens's */
	const char *name, *cat;	/* owned by the trace / static */
	double dur, latency;
	long long pid, tid;
	char *dims, *types, *concrete, *details;
	size_t tail;		/* where details' keys after 'dur' start */
	long long in_bytes;	/* df_xla_perf's total_input_bytes */
	/* for the perf models (op_* sheets): the HLO op's operands, its
	 * custom_call_target as TraceLens's regex keeps it, its output */
	bool has_op;
	struct strv *ops;
	char *cct, *output;
};

static void hrow_release(struct hrow *r)
{
	size_t k;

	free(r->dims);
	free(r->types);
	free(r->concrete);
	free(r->details);
	free(r->cct);
	free(r->output);
	if (r->ops) {
		for (k = 0; k < r->ops->n; k++)
			free(r->ops->v[k]);
		free(r->ops->v);
		free(r->ops);
	}
}

static void hrows_free(struct hrow *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		hrow_release(&v[i]);
	free(v);
}

static bool in_class(char c, const char *extra)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr(extra, c));
}

/* TraceLens's line edits, then the longest run of @extra characters after
 * @prefix: what its regex for that attribute keeps. malloc'd, or NULL. */
static char *attr_regex(const char *s, const char *prefix, const char *extra)
{
	size_t n = strlen(s), i, o = 0, p = strlen(prefix);
	char *t = malloc(n + 1);

	if (!t)
		return NULL;
	for (i = 0; i < n; i++) {
		if (s[i] == ')' && s[i + 1] == ',') {
			t[o++] = ')';
			i++;
		} else if (s[i] == ',' && s[i + 1] == ' ') {
			t[o++] = ',';
			i++;
		} else if (s[i] == ' ' && s[i + 1] == '%') {
			continue;
		} else {
			t[o++] = s[i];
		}
	}
	t[o] = 0;
	if (strncmp(t, prefix, p)) {
		free(t);
		return NULL;
	}
	for (i = p; t[i] && in_class(t[i], extra); i++)
		;
	t[i] = 0;
	return t;
}


static int strv_push(struct strv *s, const char *p, size_t n)
{
	char *c = strndup(p, n);

	if (!c || tl_vec_push(s, c)) {
		free(c);
		return -ENOMEM;
	}
	return 0;
}

static void strv_free(struct strv *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

static bool opnd_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '[' || c == ']' || c == '{' ||
	       c == ',';
}

/* TraceLens's get_operands on "bf16[2]{0}%a,f32[3]{0}%b" */
static int get_operands(const char *ops, struct strv *out)
{
	size_t n = strcspn(ops, ")"), i = 0, j;
	bool any = false;
	int err = 0;

	while (i < n && !err) {
		if (ops[i] != 'b' && ops[i] != 'f' && ops[i] != 's') {
			i++;
			continue;
		}
		for (j = i; j < n && opnd_char(ops[j]); j++)
			;
		if (j < n && ops[j] == '}') {
			err = strv_push(out, ops + i, j + 1 - i);
			any = true;
			i = j + 1;
		} else {
			i++;
		}
	}
	for (i = 0; !err && !any && i <= n;) {
		j = i + strcspn(ops + i, ",)");
		if (j > n)
			j = n;
		err = strv_push(out, ops + i, j - i);
		i = j + 1;
	}
	return err;
}

/* (type)[dims]{layout} of one operand string: its first such match */
static bool parse_operand(const char *s, char *type, size_t tn, const char **dims, size_t *dn)
{
	const char *p;

	for (p = s; *p; p++) {
		const char *a = p, *b, *d, *e;

		while (*a && ((*a >= 'A' && *a <= 'Z') || (*a >= 'a' && *a <= 'z')))
			a++;
		if (a == p || !(*a >= '0' && *a <= '9'))
			continue;
		while (*a >= '0' && *a <= '9')
			a++;
		if (*a != '[')
			continue;
		d = a + 1;
		for (b = d; (*b >= '0' && *b <= '9') || *b == ','; b++)
			;
		if (b == d || *b != ']' || b[1] != '{')
			continue;
		for (e = b + 2; (*e >= '0' && *e <= '9') || *e == ','; e++)
			;
		if (e == b + 2 || *e != '}')
			continue;
		if ((size_t)(a - p) >= tn)
			continue;
		memcpy(type, p, (size_t)(a - p));
		type[a - p] = 0;
		*dims = d;
		*dn = (size_t)(b - d);
		return true;
	}
	return false;
}

/* "(1, 2, 3)" or "(5,)" from "1,2,3" */
static int put_dims(char **buf, size_t *len, size_t *cap, const char *d, size_t n)
{
	size_t i, k = 0;
	int err = tl_text_put(buf, len, cap, "(", 1);

	for (i = 0; i < n && !err;) {
		size_t j = i;

		while (j < n && d[j] != ',')
			j++;
		if (j > i) {
			/* Python's int(): drop leading zeros */
			size_t z = i;

			while (z + 1 < j && d[z] == '0')
				z++;
			if (k++)
				err = tl_text_put(buf, len, cap, ", ", 2);
			if (!err)
				err = tl_text_put(buf, len, cap, d + z, j - z);
		}
		i = j + 1;
	}
	if (!err && k == 1)
		err = tl_text_put(buf, len, cap, ",", 1);
	return err ? err : tl_text_put(buf, len, cap, ")", 1);
}

static int put(char **buf, size_t *len, size_t *cap, const char *s)
{
	return tl_text_put(buf, len, cap, s, strlen(s));
}

/* Input Dims / Input type / Concrete Inputs as tuples, of operands [from, to) */
static int dims_types(const struct strv *ops, size_t from, size_t to, char **dims, char **types)
{
	char *d = NULL, *t = NULL;
	size_t dl = 0, dc = 0, tl = 0, tc = 0, i, k = 0;
	int err = put(&d, &dl, &dc, "(");

	if (!err)
		err = put(&t, &tl, &tc, "(");
	for (i = 0; i < ops->n && !err; i++) {
		char type[32];
		const char *dm;
		size_t dn;

		if (!*ops->v[i] || !parse_operand(ops->v[i], type, sizeof(type), &dm, &dn))
			continue;
		if (k < from || k >= to) {
			k++;
			continue;
		}
		if (k++ > from) {
			err = put(&d, &dl, &dc, ", ");
			if (!err)
				err = put(&t, &tl, &tc, ", ");
		}
		if (!err)
			err = put_dims(&d, &dl, &dc, dm, dn);
		if (!err)
			err = rpt_pystr_append(&t, &tl, &tc, type);
	}
	if (!err && k > from && (k < to ? k : to) - from == 1) {
		err = put(&d, &dl, &dc, ",");
		if (!err)
			err = put(&t, &tl, &tc, ",");
	}
	if (!err)
		err = put(&d, &dl, &dc, ")");
	if (!err)
		err = put(&t, &tl, &tc, ")");
	if (err) {
		free(d);
		free(t);
		return err;
	}
	*dims = d;
	*types = t;
	return 0;
}

static bool any_of(const char *s, const char *const *keys)
{
	for (; *keys; keys++)
		if (strstr(s, *keys))
			return true;
	return false;
}

/* bytes a dtype's element takes in TraceLens's get_df_xla_perf; 0: unknown */
static int dtype_bytes(const char *t, size_t n)
{
	static const struct {
		const char *name;
		int bytes;
	} tab[] = {
		{ "f32", 4 }, { "bf16", 2 }, { "s32", 4 }, { "fp16", 2 }, { "u32", 4 }, { "f16", 2 },
		{ "u64", 8 }, { "f8e4m3fn", 1 }, { "f8e4m3fnuz", 1 }, { "f8e5m2", 1 }, { "f8e5m2fnuz", 1 },
		{ "pred", 1 },
	};
	size_t i;

	for (i = 0; i < TL_ARRAY_SIZE(tab); i++)
		if (strlen(tab[i].name) == n && !strncmp(tab[i].name, t, n))
			return tab[i].bytes;
	return n >= 2 && (!strncmp(t, "f8", 2) || !strncmp(t, "s8", 2)) ? 1 : 0;
}

/* total_input_bytes: each operand that starts (\w+)[dims], a non-empty
 * shape and a known dtype, as elements times element size */
static long long input_bytes(const struct strv *ops)
{
	long long total = 0;
	size_t i;

	for (i = 0; i < ops->n; i++) {
		const char *s = ops->v[i], *p = s, *q;
		long long elems = 1;
		bool any = false;
		int nb;

		while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		       *p == '_')
			p++;
		if (p == s || *p != '[')
			continue;
		for (q = p + 1; (*q >= '0' && *q <= '9') || *q == ','; q++)
			;
		if (*q != ']')
			continue;
		for (q = p + 1; *q != ']'; q++)
			if (*q >= '0' && *q <= '9') {
				elems *= strtoll(q, (char **)&q, 10);
				q--;
				any = true;
			}
		nb = dtype_bytes(s, (size_t)(p - s));
		if (any && nb)
			total += elems * nb;
	}
	return total;
}

/* kernel_details, dims, types, concrete of one kernel */
static int hlo_cells(struct hrow *r, const cJSON *op)
{
	static const char *const te_keys[] = { "te_fused_attn_forward_ffi", "te_fused_attn_backward_ffi",
					       NULL };
	const cJSON *o = op ? cJSON_GetObjectItemCaseSensitive(op, "operands") : NULL;
	const cJSON *m = op ? cJSON_GetObjectItemCaseSensitive(op, "metadata") : NULL;
	const cJSON *c = op ? cJSON_GetObjectItemCaseSensitive(op, "custom_call_target") : NULL;
	char *md = NULL, *cct = NULL, *b = NULL, num[64];
	size_t bl = 0, bc = 0, i;
	struct strv ops = { 0 };
	bool te;
	int err = 0;

	if (cJSON_IsString(o))
		err = get_operands(o->valuestring, &ops);
	if (!err && cJSON_IsString(m) && !(md = attr_regex(m->valuestring, "metadata={",
							     "_=\"()/ @.-")))
		err = strncmp(m->valuestring, "metadata={", 10) ? 0 : -ENOMEM;
	if (!err && cJSON_IsString(c) && !(cct = attr_regex(c->valuestring, "custom_call_target=\"",
							      "_=\"()/ @.$-")))
		err = -ENOMEM;
	if (!err && op)
		r->in_bytes = input_bytes(&ops);
	/* kernel_details */
	if (!err)
		err = put(&b, &bl, &bc, "[{'name': ");
	if (!err)
		err = rpt_pystr_append(&b, &bl, &bc, r->name);
	tl_fmt_pyfloat(num, sizeof(num), r->dur);
	if (!err)
		err = put(&b, &bl, &bc, ", 'dur': ");
	if (!err)
		err = put(&b, &bl, &bc, num);
	r->tail = bl;
	if (!err)
		err = put(&b, &bl, &bc, ", 'custom_call_target': ");
	if (!err)
		err = rpt_pystr_append(&b, &bl, &bc, cct ? cct : "NA");
	if (!err)
		err = put(&b, &bl, &bc, ", 'operands': ");
	if (!err && !op)
		err = put(&b, &bl, &bc, "'NA'");
	if (!err && op)
		err = put(&b, &bl, &bc, "[");
	for (i = 0; !err && op && i < ops.n; i++) {
		err = i ? put(&b, &bl, &bc, ", ") : 0;
		if (!err)
			err = rpt_pystr_append(&b, &bl, &bc, ops.v[i]);
	}
	if (!err && op)
		err = put(&b, &bl, &bc, "]");
	if (!err)
		err = put(&b, &bl, &bc, ", 'outputs': 'NA', 'metadata': ");
	if (!err)
		err = rpt_pystr_append(&b, &bl, &bc, md ? md : "NA");
	if (!err)
		err = put(&b, &bl, &bc, "}]");
	r->details = b;
	b = NULL;
	/* Input Dims / type: all operands, the first 3 for TE's fused attention
	 * (then the 4th is Concrete Inputs) */
	te = ops.n && cct && any_of(cct, te_keys);
	if (!err && (!op || !ops.n || (ops.n == 1 && !*ops.v[0]))) {
		r->dims = strdup("()");
		r->types = strdup("()");
		err = r->dims && r->types ? 0 : -ENOMEM;
	} else if (!err) {
		err = dims_types(&ops, 0, te ? 3 : SIZE_MAX, &r->dims, &r->types);
	}
	if (!err && te) {
		char *t = NULL;

		err = dims_types(&ops, 3, 4, &r->concrete, &t);
		free(t);
	} else if (!err) {
		r->concrete = strdup("()");
		err = r->concrete ? 0 : -ENOMEM;
	}
	if (!err && op) {
		const cJSON *out = cJSON_GetObjectItemCaseSensitive(op, "output");

		r->has_op = true;
		r->ops = malloc(sizeof(*r->ops));
		if (r->ops) {
			*r->ops = ops;
			ops = (struct strv){ 0 };
		}
		r->cct = cct;
		cct = NULL;
		if (cJSON_IsString(out))
			r->output = strdup(out->valuestring);
		if (!r->ops || (cJSON_IsString(out) && !r->output))
			err = -ENOMEM;
	}
	free(b);
	free(md);
	free(cct);
	strv_free(&ops);
	return err;
}

/* The HLO op of a kernel: hloOps[hlo_module][hlo_op], or NULL. */
static const cJSON *hlo_op(const cJSON *hlo, const cJSON *args)
{
	const cJSON *mod = args ? cJSON_GetObjectItemCaseSensitive(args, "hlo_module") : NULL;
	const cJSON *op = args ? cJSON_GetObjectItemCaseSensitive(args, "hlo_op") : NULL;
	const cJSON *ops;

	if (!hlo || !cJSON_IsString(mod) || !cJSON_IsString(op))
		return NULL;
	ops = cJSON_GetObjectItemCaseSensitive(hlo, mod->valuestring);
	return ops ? cJSON_GetObjectItemCaseSensitive(ops, op->valuestring) : NULL;
}

/* Every GPU kernel TraceLens's JAX tree sees, in trace order. */
static int hlo_rows(struct tl_trace *tr, struct hrow **out, size_t *nout)
{
	TL_VEC(struct hrow) v = { 0 };
	const cJSON *hlo = cJSON_GetObjectItemCaseSensitive(tl_trace_metadata(tr), "hloOps");
	struct tl_link_opts lo = { .sz = sizeof(lo) };
	uint64_t uid, n = tl_trace_nevents(tr), nmeta = 0;
	char pname[256];
	int err;

	/* the host parents: TraceLens's HLO data and launch latency need them */
	err = tl_trace_link(tr, &lo);

	for (uid = 0; uid < n && !err; uid++) {
		struct tl_event_info e, pe;
		struct hrow r = { 0 };
		cJSON *args = NULL;
		const cJSON *h;
		int64_t parent;

		if (tl_trace_event(tr, uid, &e))
			continue;
		if (e.ph == 'M') {
			nmeta++;
			continue;
		}
		if (e.kind != TL_KIND_KERNEL || !e.has_dur ||
		    tl_trace_process_name(tr, e.pid, pname, sizeof(pname)) || !strstr(pname, "/device:GPU"))
			continue;
		err = tl_trace_event_args(tr, uid, &args);
		if (err)
			break;
		h = args ? cJSON_GetObjectItemCaseSensitive(args, "hlo_op") : NULL;
		r.uid = uid - nmeta;
		r.name = e.name;
		r.cat = rpt_jax_kernel_cat(e.name, cJSON_IsString(h) ? h->valuestring : NULL);
		r.dur = e.dur;
		r.pid = atoll(e.pid);
		r.tid = atoll(e.tid);
		parent = tl_event_parent(tr, uid);
		r.latency = parent >= 0 && !tl_trace_event(tr, (uint64_t)parent, &pe) && pe.has_ts && e.has_ts
				    ? e.ts - pe.ts
				    : NAN;
		err = hlo_cells(&r, parent >= 0 ? hlo_op(hlo, args) : NULL);
		cJSON_Delete(args);
		if (!err && tl_vec_push(&v, r))
			err = -ENOMEM;
		if (err)
			hrow_release(&r);
	}
	if (err) {
		hrows_free(v.v, v.n);
		return tl_err(err, "JAX kernel_launchers: %s", strerror(-err));
	}
	*out = v.v;
	*nout = v.n;
	return 0;
}

/* kernel_launchers, or with @xla df_xla_perf: the uncategorised (XLA)
 * kernels with their total_input_bytes */
static int launchers(struct tl_trace *tr, bool xla, struct tl_sheet **out)
{
	static const char *const cols[] = {
		"name", "UID", "op category", "total_direct_kernel_time", "direct_kernel_count", "pid", "tid",
		"Input Dims", "Input type", "Input Strides", "Concrete Inputs", "kernel_details",
		"GPU_kernel_launch_latency", "total_input_bytes",
	};
	struct tl_sheet *sh = NULL;
	struct hrow *v = NULL;
	size_t n = 0, i;
	int err;

	*out = NULL;
	err = tl_sheet_new(xla ? "df_xla_perf" : "kernel_launchers", TL_ARRAY_SIZE(cols) - !xla, cols, &sh);
	if (!err)
		err = hlo_rows(tr, &v, &n);
	for (i = 0; i < n && !err; i++) {
		if (xla && strcmp(v[i].cat, RPT_JAX_XLA_CAT))
			continue;
		struct tl_cell row[TL_ARRAY_SIZE(cols)] = {
			tl_cell_str(v[i].name), tl_cell_int((long long)v[i].uid), tl_cell_str(v[i].cat),
			tl_cell_num(v[i].dur), tl_cell_int(1), tl_cell_int(v[i].pid), tl_cell_int(v[i].tid),
			tl_cell_str(v[i].dims), tl_cell_str(v[i].types), tl_cell_str("()"),
			tl_cell_str(v[i].concrete), tl_cell_str(v[i].details), tl_cell_num(v[i].latency),
			tl_cell_int(v[i].in_bytes),
		};

		err = tl_sheet_add_row(sh, row);
	}
	hrows_free(v, n);
	if (err) {
		tl_sheet_free(sh);
		return err;
	}
	*out = sh;
	return 0;
}

int tl_sheet_jax_kernel_launchers(struct tl_trace *tr, struct tl_sheet **out)
{
	return launchers(tr, false, out);
}

int tl_sheet_jax_xla_perf(struct tl_trace *tr, struct tl_sheet **out)
{
	return launchers(tr, true, out);
}

/* numpy's pairwise sum (8 accumulators from 8 values on, halves past 128) */
static double np_sum(const double *v, size_t n)
{
	double r[8], res;
	size_t i, j, n2;

	if (n < 8) {
		res = 0.;
		for (i = 0; i < n; i++)
			res += v[i];
		return res;
	}
	if (n <= 128) {
		for (j = 0; j < 8; j++)
			r[j] = v[j];
		for (i = 8; i < n - n % 8; i += 8)
			for (j = 0; j < 8; j++)
				r[j] += v[i + j];
		res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
		for (; i < n; i++)
			res += v[i];
		return res;
	}
	n2 = n / 2;
	n2 -= n2 % 8;
	return np_sum(v, n2) + np_sum(v + n2, n - n2);
}

struct ugroup {
	size_t first, count;	/* index of its first row; rows */
	size_t *rows;
	struct tl_agg agg;
};

static bool same_args(const struct hrow *a, const struct hrow *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->cat, b->cat) && !strcmp(a->dims, b->dims) &&
	       !strcmp(a->types, b->types) && !strcmp(a->concrete, b->concrete);
}

static int cmp_ugroup(const void *pa, const void *pb)
{
	const struct ugroup *a = pa, *b = pb;

	if (a->agg.sum != b->agg.sum)
		return a->agg.sum > b->agg.sum ? -1 : 1;
	return (a->first > b->first) - (a->first < b->first);
}

/* TraceLens's _summarize_kernel_stats of a JAX group: its first kernel's
 * details less 'dur', with numpy's count, sum, mean, median, std, min, max */
static char *kernel_summary(const struct hrow *v, const struct ugroup *g, bool bare)
{
	double *d = calloc(g->count ? g->count : 1, sizeof(*d)), sum, mean, *sq = NULL;
	const struct hrow *t = &v[g->rows[0]];
	char *b = NULL, num[64];
	size_t bl = 0, bc = 0, i, n = g->count;
	int err;

	if (!d)
		return NULL;
	sq = malloc(n * sizeof(*sq));
	for (i = 0; i < n; i++)
		d[i] = v[g->rows[i]].dur;
	sum = np_sum(d, n);
	mean = sum / (double)n;
	for (i = 0; sq && i < n; i++)
		sq[i] = (d[i] - mean) * (d[i] - mean);
	err = sq ? 0 : -ENOMEM;
	/* "[{'name': NAME" then what follows 'dur' */
	if (!err) {
		const char *dur = strstr(t->details, ", 'dur': ");

		err = tl_text_put(&b, &bl, &bc, t->details, dur ? (size_t)(dur - t->details) : 0);
	}
	/* an op_* sheet's kernel details are the name and 'dur' only */
	if (!err && !bare)
		err = tl_text_put(&b, &bl, &bc, t->details + t->tail, strlen(t->details + t->tail) - 2);
	if (!err) {
		snprintf(num, sizeof(num), ", 'count': %zu", n);
		err = put(&b, &bl, &bc, num);
	}
	tl_sort_doubles(d, n);
	{
		const char *keys[] = { "total_duration_us", "mean_duration_us", "median_duration_us",
				       "std_dev_duration_us", "min_duration_us", "max_duration_us" };
		double vals[6];

		vals[0] = sum;
		vals[1] = mean;
		vals[2] = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
		vals[3] = sq ? sqrt(np_sum(sq, n) / (double)n) : NAN;
		vals[4] = d[0];
		vals[5] = d[n - 1];
		for (i = 0; i < 6 && !err; i++) {
			char f[64];

			tl_fmt_pyfloat(f, sizeof(f), vals[i]);
			snprintf(num, sizeof(num), ", '%s': np.float64(", keys[i]);
			err = put(&b, &bl, &bc, num);
			if (!err)
				err = put(&b, &bl, &bc, f);
			if (!err)
				err = put(&b, &bl, &bc, ")");
		}
	}
	if (!err)
		err = put(&b, &bl, &bc, "}]");
	free(d);
	free(sq);
	if (err) {
		free(b);
		return NULL;
	}
	return b;
}

/* Rows 0..n-1 into groups in order of first appearance (pandas'
 * sort=False): @same(ctx, a, b) says whether rows a and b group together.
 * @g holds n groups; 0 or -ENOMEM (the rows made so far stay in @g). */
static int group_by(size_t n, bool (*same)(const void *ctx, size_t a, size_t b), const void *ctx,
		    struct ugroup *g, size_t *ng)
{
	size_t i, j;

	*ng = 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < *ng && !same(ctx, g[j].first, i); j++)
			;
		if (j == *ng) {
			g[j].first = i;
			g[j].rows = malloc(n * sizeof(size_t));
			if (!g[j].rows)
				return -ENOMEM;
			(*ng)++;
		}
		g[j].rows[g[j].count++] = i;
	}
	return 0;
}

static bool same_args_at(const void *ctx, size_t a, size_t b)
{
	const struct hrow *v = ctx;

	return same_args(&v[a], &v[b]);
}

int tl_sheet_jax_kernel_launchers_unique_args(struct tl_trace *tr, struct tl_sheet **out)
{
	static const char *const cols[] = {
		"name", "Input Dims", "Input type", "Input Strides", "Concrete Inputs", "operation_count",
		"total_direct_kernel_time_mean", "total_direct_kernel_time_median",
		"total_direct_kernel_time_std", "total_direct_kernel_time_min",
		"total_direct_kernel_time_max", "total_direct_kernel_time_sum", "ex_UID",
		"kernel_details_summary", "Percentage (%)", "Cumulative Percentage (%)",
	};
	struct tl_sheet *sh = NULL;
	struct hrow *v = NULL;
	struct ugroup *g = NULL;
	size_t n = 0, ng = 0, i, j;
	double total = 0, cum = 0, *tmp = NULL;
	int err;

	*out = NULL;
	err = tl_sheet_new("kernel_launchers_unique_args", TL_ARRAY_SIZE(cols), cols, &sh);
	if (!err)
		err = hlo_rows(tr, &v, &n);
	if (!err && n) {
		g = calloc(n, sizeof(*g));
		tmp = malloc(n * sizeof(*tmp));
		if (!g || !tmp)
			err = -ENOMEM;
	}
	if (!err && n)
		err = group_by(n, same_args_at, v, g, &ng);
	for (j = 0; j < ng && !err; j++) {
		for (i = 0; i < g[j].count; i++)
			tmp[i] = v[g[j].rows[i]].dur;
		tl_aggregate(tmp, g[j].count, &g[j].agg);
	}
	if (!err)
		tl_qsort(g, ng, sizeof(*g), cmp_ugroup);
	for (j = 0; j < ng; j++)
		tmp[j] = g[j].agg.sum;
	if (ng)
		total = np_sum(tmp, ng);
	for (j = 0; j < ng && !err; j++) {
		const struct hrow *r = &v[g[j].first];
		char *ks = kernel_summary(v, &g[j], false);
		double pct = g[j].agg.sum / total * 100;

		cum += pct;
		if (!ks) {
			err = -ENOMEM;
			break;
		}
		struct tl_cell row[TL_ARRAY_SIZE(cols)] = {
			tl_cell_str(r->name), tl_cell_str(r->dims), tl_cell_str(r->types), tl_cell_str("()"),
			tl_cell_str(r->concrete), tl_cell_int((long long)g[j].count),
			tl_cell_num(g[j].agg.mean), tl_cell_num(g[j].agg.median), tl_cell_num(g[j].agg.std),
			tl_cell_num(g[j].agg.min), tl_cell_num(g[j].agg.max), tl_cell_num(g[j].agg.sum),
			tl_cell_int((long long)r->uid), tl_cell_str(ks), tl_cell_num(pct), tl_cell_num(cum),
		};
		err = tl_sheet_add_row(sh, row);
		free(ks);
	}
	for (j = 0; j < ng; j++)
		free(g[j].rows);
	free(g);
	free(tmp);
	hrows_free(v, n);
	return rpt_sheet_done(sh, err, out);
}

/* ------------------------------------------------------------ op_conv */

/* The first (type)[dims]{layout} in @s (parse_operand), its dims as numbers. */
static bool first_shape(const char *s, char *type, size_t tn, long long *dims, size_t *nd, size_t max)
{
	const char *d, *p;
	size_t dn;

	if (!parse_operand(s, type, tn, &d, &dn))
		return false;
	*nd = 0;
	for (p = d; p < d + dn;) {
		char *end;
		long long x = strtoll(p, &end, 10);

		if (end != p && *nd < max)
			dims[(*nd)++] = x;
		p = end == p ? p + 1 : end;
	}
	return true;
}

/* TraceLens's jax_dtype2bpe; 0 for the rest (None) */
static int jax_bpe(const char *t)
{
	if (!strcasecmp(t, "f32"))
		return 4;
	if (!strcasecmp(t, "f16") || !strcasecmp(t, "bf16"))
		return 2;
	if (!strcasecmp(t, "f8") || !strcasecmp(t, "fp8"))
		return 1;
	return 0;
}

static int put_tuple(char *b, size_t n, const long long *v, size_t k)
{
	size_t i, o = 0;

	o += (size_t)snprintf(b + o, n - o, "(");
	for (i = 0; i < k && o < n; i++)
		o += (size_t)snprintf(b + o, n - o, "%s%lld", i ? ", " : "", v[i]);
	if (o < n)
		o += (size_t)snprintf(b + o, n - o, k == 1 ? ",)" : ")");
	return o < n ? 0 : -ENOSPC;
}

#define CONV_MAXD 8

/* One modelled conv kernel: TraceLens's jax_conv (x, spatial filter, out). */
struct crow {
	size_t row;			/* in the hrows */
	char params[7][160];		/* convNd .. transposed_conv, as str() */
	double gflops, bytes, tflops, tbs;
};

static const char *const conv_params[7] = { "convNd", "input_shape", "filter_shape", "output_shape",
					    "bias", "bytes_per_element", "transposed_conv" };

/* The jax_conv model of kernel @r: 1, 0 when it has none (TraceLens's
 * "rest", or a model that raises), -errno. */
static int conv_row(const struct hrow *r, struct crow *c)
{
	long long x[CONV_MAXD], w[CONV_MAXD], out[CONV_MAXD], tmp[CONV_MAXD];
	size_t nx = 0, nw = 0, no = 0, nt, i, nops = 0;
	double px = 1, pw = 1, po = 1, fpe = 2;
	char tx[32] = "", tt[32];
	bool bias;
	int bpe;

	if (!r->has_op || !r->cct || !r->ops || strcasecmp(r->cat, "conv"))
		return 0;
	/* TraceLens's order of checks: gemm, TE attention, then conv */
	if (strstr(r->cct, "te_fused_attn_forward_ffi") || strstr(r->cct, "te_fused_attn_backward_ffi") ||
	    !(strstr(r->cct, "cudnn$convForward") || strstr(r->cct, "cudnn$convBiasActivationForward")))
		return 0;
	for (i = 0; i < r->ops->n; i++) {
		if (!r->ops->v[i][0] || !first_shape(r->ops->v[i], tt, sizeof(tt), tmp, &nt, CONV_MAXD))
			continue;
		if (nops == 0) {
			memcpy(x, tmp, nt * sizeof(*x));
			nx = nt;
			snprintf(tx, sizeof(tx), "%s", tt);
		} else if (nops == 1) {
			memcpy(w, tmp, nt * sizeof(*w));
			nw = nt;
		}
		nops++;
	}
	if (nops < 2 || nw < 2 || !r->output ||
	    !first_shape(r->output, tt, sizeof(tt), out, &no, CONV_MAXD) || nx < 3 || nx > 5)
		return 0;
	bias = nops == 3;
	bpe = jax_bpe(tx);
	/* the filter shape without its two channel dims */
	for (i = 2; i < nw; i++)
		w[i - 2] = w[i];
	nw -= 2;
	snprintf(c->params[0], sizeof(c->params[0]), "conv%zud", nx - 2);
	if (put_tuple(c->params[1], sizeof(c->params[1]), x, nx) ||
	    put_tuple(c->params[2], sizeof(c->params[2]), w, nw) ||
	    put_tuple(c->params[3], sizeof(c->params[3]), out, no))
		return 0;
	snprintf(c->params[4], sizeof(c->params[4]), "%s", bias ? "True" : "False");
	if (bpe)
		snprintf(c->params[5], sizeof(c->params[5]), "%d", bpe);
	else
		c->params[5][0] = 0;
	snprintf(c->params[6], sizeof(c->params[6]), "False");
	for (i = 0; i < nx; i++)
		px *= (double)x[i];
	for (i = 0; i < nw; i++)
		pw *= (double)w[i];
	for (i = 0; i < no; i++)
		po *= (double)out[i];
	/* CONV.flops_func: 2 x prod(filter[1:]) per output element (of the
	 * spatial filter TraceLens passes), and the bias */
	for (i = 1; i < nw; i++)
		fpe *= (double)w[i];
	c->gflops = (po * fpe + (bias ? po : 0)) / 1e9;
	c->bytes = bpe ? (px + pw + (bias && no > 1 ? (double)out[1] : 0) + po) * bpe : NAN;
	c->tflops = r->dur > 0 ? c->gflops * 1e9 / (r->dur * 1e-6) / 1e12 : NAN;
	c->tbs = r->dur > 0 ? c->bytes / (r->dur * 1e-6) / 1e12 : NAN;
	return 1;
}

struct conv_ctx {
	const struct hrow *v;
	const struct crow *c;
};

static bool same_conv(const struct hrow *v, const struct crow *a, const struct crow *b);

static bool same_conv_at(const void *ctx, size_t a, size_t b)
{
	const struct conv_ctx *x = ctx;

	return same_conv(x->v, &x->c[a], &x->c[b]);
}

static bool same_conv(const struct hrow *v, const struct crow *a, const struct crow *b)
{
	size_t i;

	if (strcmp(v[a->row].name, v[b->row].name))
		return false;
	for (i = 0; i < 7; i++)
		if (strcmp(a->params[i], b->params[i]))
			return false;
	return true;
}

int tl_sheet_jax_op_conv(struct tl_trace *tr, struct tl_sheet **out)
{
	static const char *const tail_cols[] = {
		"GFLOPS_first", "Data Moved (MB)_first", "FLOPS/Byte_first", "TB/s_mean", "TB/s_median",
		"TB/s_std", "TB/s_min", "TB/s_max", "TFLOPS/s_mean", "TFLOPS/s_median", "TFLOPS/s_std",
		"TFLOPS/s_min", "TFLOPS/s_max", "kernel_details__summarize_kernel_stats", "Input Dims_first",
		"Input type_first", "Kernel Time (µs)_mean", "Kernel Time (µs)_median",
		"Kernel Time (µs)_std", "Kernel Time (µs)_min", "Kernel Time (µs)_max",
		"Kernel Time (µs)_sum", "name_count", "UID_first",
	};
	const char *cols[1 + 7 + TL_ARRAY_SIZE(tail_cols)];
	char pcols[7][32];
	struct tl_sheet *sh = NULL;
	struct hrow *v = NULL;
	struct crow *c = NULL;
	struct ugroup *g = NULL;
	size_t n = 0, nc = 0, ng = 0, i, j, k;
	double *tmp = NULL;
	int err;

	*out = NULL;
	err = hlo_rows(tr, &v, &n);
	if (!err && n && (!(c = calloc(n, sizeof(*c))) || !(g = calloc(n, sizeof(*g))) ||
			  !(tmp = malloc(n * sizeof(*tmp)))))
		err = -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		int m = conv_row(&v[i], &c[nc]);

		if (m < 0)
			err = m;
		else if (m)
			c[nc++].row = i;
	}
	/* TraceLens writes no sheet without a modelled kernel */
	if (err || !nc)
		goto out;
	{
		struct conv_ctx cx = { v, c };

		err = group_by(nc, same_conv_at, &cx, g, &ng);
	}
	for (j = 0; j < ng && !err; j++) {
		for (i = 0; i < g[j].count; i++)
			tmp[i] = v[c[g[j].rows[i]].row].dur;
		tl_aggregate(tmp, g[j].count, &g[j].agg);
	}
	if (!err)
		tl_qsort(g, ng, sizeof(*g), cmp_ugroup);
	cols[0] = "name";
	for (k = 0; k < 7; k++) {
		snprintf(pcols[k], sizeof(pcols[k]), "param: %s", conv_params[k]);
		cols[1 + k] = pcols[k];
	}
	for (k = 0; k < TL_ARRAY_SIZE(tail_cols); k++)
		cols[8 + k] = tail_cols[k];
	if (!err)
		err = tl_sheet_new("op_conv", TL_ARRAY_SIZE(cols), cols, &sh);
	for (j = 0; j < ng && !err; j++) {
		const struct crow *c0 = &c[g[j].first];
		const struct hrow *r0 = &v[c0->row];
		struct tl_cell row[TL_ARRAY_SIZE(cols)];
		struct tl_agg tb, tf;
		size_t *hr = malloc(g[j].count * sizeof(*hr)), q = 0;
		char *ks;

		if (!hr) {
			err = -ENOMEM;
			break;
		}
		for (i = 0; i < g[j].count; i++)
			hr[i] = c[g[j].rows[i]].row;
		{
			struct ugroup hg = { .first = c0->row, .count = g[j].count, .rows = hr };

			ks = kernel_summary(v, &hg, true);
		}
		free(hr);
		if (!ks) {
			err = -ENOMEM;
			break;
		}
		row[q++] = tl_cell_str(r0->name);
		row[q++] = tl_cell_str(c0->params[0]);
		for (k = 1; k < 4; k++)
			row[q++] = tl_cell_str(c0->params[k]);
		row[q++] = tl_cell_bool(!strcmp(c0->params[4], "True"));
		row[q++] = c0->params[5][0] ? tl_cell_int(atoll(c0->params[5])) : tl_cell_empty();
		row[q++] = tl_cell_bool(false);
		row[q++] = tl_cell_num(c0->gflops);
		row[q++] = tl_cell_num(c0->bytes / (1024.0 * 1024.0));
		row[q++] = tl_cell_num(c0->gflops * 1e9 / c0->bytes);
		for (i = 0; i < g[j].count; i++)
			tmp[i] = c[g[j].rows[i]].tbs;
		tl_aggregate(tmp, g[j].count, &tb);
		for (i = 0; i < g[j].count; i++)
			tmp[i] = c[g[j].rows[i]].tflops;
		tl_aggregate(tmp, g[j].count, &tf);
		row[q++] = tl_cell_num(tb.mean);
		row[q++] = tl_cell_num(tb.median);
		row[q++] = tl_cell_num(tb.std);
		row[q++] = tl_cell_num(tb.min);
		row[q++] = tl_cell_num(tb.max);
		row[q++] = tl_cell_num(tf.mean);
		row[q++] = tl_cell_num(tf.median);
		row[q++] = tl_cell_num(tf.std);
		row[q++] = tl_cell_num(tf.min);
		row[q++] = tl_cell_num(tf.max);
		row[q++] = tl_cell_str(ks);
		row[q++] = tl_cell_str(r0->dims);
		row[q++] = tl_cell_str(r0->types);
		row[q++] = tl_cell_num(g[j].agg.mean);
		row[q++] = tl_cell_num(g[j].agg.median);
		row[q++] = tl_cell_num(g[j].agg.std);
		row[q++] = tl_cell_num(g[j].agg.min);
		row[q++] = tl_cell_num(g[j].agg.max);
		row[q++] = tl_cell_num(g[j].agg.sum);
		row[q++] = tl_cell_int((long long)g[j].count);
		row[q++] = tl_cell_int((long long)r0->uid);
		err = tl_sheet_add_row(sh, row);
		free(ks);
	}
out:
	for (j = 0; j < ng; j++)
		free(g[j].rows);
	free(g);
	free(c);
	free(tmp);
	hrows_free(v, n);
	return rpt_sheet_done(sh, err, out);
}
