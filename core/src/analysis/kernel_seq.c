/* SPDX-License-Identifier: MIT */
/* Frequent kernel sequences (kernel_seq.h): name n-grams of consecutive
 * kernels per stream, counted with a rolling hash over interned name ids,
 * and HTA's frequent CUDA kernel sequences of one op. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/kernel_seq.h>
#include <tlreplay/tree.h>

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

/* ------------------------------------------------------------ short names */

static bool is_memory_name(const char *s)
{
	if (!strncmp(s, "hip", 3))
		s += 3;
	return !strncmp(s, "Memcpy", 6) || !strncmp(s, "Memset", 6) || !strncmp(s, "dma", 3);
}

/* HTA's shorten_name: drop "->", every <...> and (...) (innermost first, an
 * unmatched closer drops what precedes it back to the start), then keep the
 * last space-separated word. */
void tl_kernel_short_name(const char *name, char *buf, size_t size)
{
	size_t n = 0, cap = strlen(name) + 1, i;
	char *st;
	const char *w;

	if (!size)
		return;
	if (is_memory_name(name) || (!strchr(name, '<') && !strchr(name, '('))) {
		snprintf(buf, size, "%s", name);
		return;
	}
	st = malloc(cap);
	if (!st) {
		snprintf(buf, size, "%s", name);
		return;
	}
	for (i = 0; name[i]; i++) {
		char c = name[i];

		if (c == '-' && name[i + 1] == '>') {
			i++;
			continue;
		}
		if (c == '>' || c == ')') {
			char open = c == '>' ? '<' : '(';

			while (n && st[n - 1] != open)
				n--;
			if (n)
				n--;
		} else {
			st[n++] = c;
		}
	}
	st[n] = 0;
	w = strrchr(st, ' ');
	snprintf(buf, size, "%s", w ? w + 1 : st);
	free(st);
}

/* --------------------------------------------------------------- devices */

int64_t tl_kernel_devices(const struct tl_trace *tr, const char ***out)
{
	TL_VEC(uint32_t) toks = { 0 };
	const char **v = NULL;
	size_t uid, i;
	int64_t rc;

	*out = NULL;
	for (uid = 0; uid < tr->nev; uid++) {
		const struct tl_ev *e = &tr->ev[uid];

		if (e->kind != TL_KIND_KERNEL)
			continue;
		for (i = 0; i < toks.n && toks.v[i] != e->pid; i++)
			;
		if (i == toks.n && tl_vec_push(&toks, e->pid)) {
			rc = -ENOMEM;
			goto out;
		}
	}
	rc = (int64_t)toks.n;
	if (!toks.n)
		goto out;
	v = malloc(toks.n * sizeof(*v));
	if (!v) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < toks.n; i++)
		v[i] = tl_tok_display_c(tr, toks.v[i]);
	*out = v;
out:
	tl_vec_free(&toks);
	return rc;
}

/* ---------------------------------------------------------------- n-grams */

struct kern {
	uint64_t skey;		/* pid << 32 | tid */
	double ts, dur;
	uint32_t uid;
	uint32_t id;		/* sequence alphabet: interned (short) name */
};

struct slot {
	uint64_t h;
	uint32_t pos;		/* index into the kernels of the first occurrence */
	uint32_t len;		/* 0: empty */
	uint64_t count;
	double total, idle;
};

struct ngram_priv {
	struct tl_strtab names;
	const char **ptrs;	/* the rows' name arrays */
};

static int cmp_kern(const void *pa, const void *pb)
{
	const struct kern *a = pa, *b = pb;

	if (a->skey != b->skey)
		return a->skey < b->skey ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->uid < b->uid ? -1 : a->uid > b->uid;
}

/* Collect the kernels, each with its name's id in @names. */
static int collect(const struct tl_trace *tr, const struct tl_ngram_opts *o, struct tl_strtab *names,
		   struct kern **out, size_t *nout)
{
	TL_VEC(struct kern) v = { 0 };
	uint32_t *nid = NULL;	/* trace name id -> our id, +1 */
	uint32_t dev = UINT32_MAX;
	char *buf = NULL;
	size_t uid;
	int err = 0;

	nid = calloc(tr->strs.n ? tr->strs.n : 1, sizeof(*nid));
	buf = malloc(65536);
	if (!nid || !buf) {
		err = -ENOMEM;
		goto out;
	}
	for (uid = 0; uid < tr->nev; uid++) {
		const struct tl_ev *e = &tr->ev[uid];
		struct kern k;

		if (e->kind != TL_KIND_KERNEL || !(e->flags & EV_HAS_DUR))
			continue;
		if (o->device) {
			if (dev == UINT32_MAX && strcmp(tl_tok_display_c(tr, e->pid), o->device))
				continue;
			if (dev != UINT32_MAX && e->pid != dev)
				continue;
			dev = e->pid;
		}
		if (!nid[e->name]) {
			const char *s = tl_ev_name(tr, e);
			uint32_t id;

			if (!o->raw_names) {
				tl_kernel_short_name(s, buf, 65536);
				s = buf;
			}
			id = tl_strtab_intern(names, s, strlen(s));
			if (id == UINT32_MAX) {
				err = -ENOMEM;
				goto out;
			}
			nid[e->name] = id + 1;
		}
		k.skey = (uint64_t)e->pid << 32 | e->tid;
		k.ts = e->ts;
		k.dur = e->dur;
		k.uid = (uint32_t)uid;
		k.id = nid[e->name] - 1;
		if (tl_vec_push(&v, k)) {
			err = -ENOMEM;
			goto out;
		}
	}
	tl_qsort(v.v, v.n, sizeof(*v.v), cmp_kern);
	*out = v.v;
	*nout = v.n;
	v.v = NULL;
out:
	tl_vec_free(&v);
	free(nid);
	free(buf);
	return err;
}

struct htab {
	struct slot *s;
	size_t cap, n;		/* cap: a power of two */
};

static int htab_grow(struct htab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024, i;
	struct slot *s = calloc(cap, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->s[i].len)
			continue;
		for (j = t->s[i].h & (cap - 1); s[j].len; j = (j + 1) & (cap - 1))
			;
		s[j] = t->s[i];
	}
	free(t->s);
	t->s = s;
	t->cap = cap;
	return 0;
}

/* Count every window of @len kernels of each stream run in @k[0..n). */
static int count_len(const struct kern *k, size_t n, unsigned len, struct htab *t)
{
	const uint64_t B = 0x9e3779b97f4a7c15ULL;
	size_t a = 0, b, i, j;

	while (a < n) {
		uint64_t h = 0, top = 1;

		for (b = a; b < n && k[b].skey == k[a].skey; b++)
			;
		if (b - a < len) {
			a = b;
			continue;
		}
		for (i = 1; i < len; i++)
			top *= B;
		for (i = a; i < a + len; i++)
			h = h * B + tl_mix64(k[i].id + 1ULL);
		for (i = a; i + len <= b; i++) {
			uint64_t key = tl_mix64(h ^ len);
			double tot = 0, idle = 0;
			struct slot *s;

			if (t->n * 2 >= t->cap && htab_grow(t))
				return -ENOMEM;
			for (j = key & (t->cap - 1);; j = (j + 1) & (t->cap - 1)) {
				s = &t->s[j];
				if (!s->len)
					break;
				/* a hash match is checked name by name */
				if (s->h == key && s->len == len) {
					size_t q;

					for (q = 0; q < len && k[s->pos + q].id == k[i + q].id; q++)
						;
					if (q == len)
						break;
				}
			}
			if (!s->len) {
				s->h = key;
				s->len = len;
				s->pos = (uint32_t)i;
				t->n++;
			}
			for (j = i; j < i + len; j++) {
				tot += k[j].dur;
				if (j > i) {
					double g = k[j].ts - (k[j - 1].ts + k[j - 1].dur);

					idle += g > 0 ? g : 0;
				}
			}
			s->count++;
			s->total += tot;
			s->idle += idle;
			if (i + len < b)
				h = (h - tl_mix64(k[i].id + 1ULL) * top) * B + tl_mix64(k[i + len].id + 1ULL);
		}
		a = b;
	}
	return 0;
}

static int cmp_row(const void *pa, const void *pb)
{
	const struct tl_ngram_row *a = pa, *b = pb;
	unsigned i;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->total_us != b->total_us)
		return a->total_us > b->total_us ? -1 : 1;
	for (i = 0; i < a->len && i < b->len; i++) {
		int c = strcmp(a->names[i], b->names[i]);

		if (c)
			return c;
	}
	return (a->len > b->len) - (a->len < b->len);
}

void tl_ngram_table_free(struct tl_ngram_table *t)
{
	struct ngram_priv *p;

	if (!t)
		return;
	p = t->priv;
	if (p) {
		tl_strtab_free(&p->names);
		free(p->ptrs);
		free(p);
	}
	free(t->v);
	free(t);
}

int tl_kernel_ngrams(struct tl_trace *tr, const struct tl_ngram_opts *opts, struct tl_ngram_table **out)
{
	struct tl_ngram_opts o = { 0 };
	struct tl_ngram_table *t = NULL;
	struct ngram_priv *p = NULL;
	struct htab h = { 0 };
	struct kern *k = NULL;
	size_t nk = 0, i, r, np;
	unsigned len;
	int err;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (!o.min_len && !o.max_len)
		o.min_len = o.max_len = 2;
	if (!o.max_len)
		o.max_len = o.min_len;
	if (!o.min_len || o.max_len < o.min_len || o.max_len > 1024)
		return tl_err(-EINVAL, "kernel sequences: bad lengths %u..%u (1 <= min <= max <= 1024)",
			      o.min_len, o.max_len);
	t = calloc(1, sizeof(*t));
	p = calloc(1, sizeof(*p));
	if (!t || !p) {
		err = -ENOMEM;
		goto out;
	}
	t->priv = p;
	err = tl_strtab_init(&p->names);
	if (err)
		goto out;
	err = collect(tr, &o, &p->names, &k, &nk);
	if (err)
		goto out;
	if (!nk) {
		err = o.device ? tl_err(-ENOENT, "no kernel on device '%s'", o.device)
			       : tl_err(-ENOENT, "no kernel events in the trace");
		goto out;
	}
	t->nkernels = nk;
	for (i = 0; i < nk; i++)
		t->kernel_us += k[i].dur;
	for (len = o.min_len; len <= o.max_len; len++) {
		err = count_len(k, nk, len, &h);
		if (err)
			goto out;
	}
	t->nseqs = h.n;
	t->v = calloc(h.n ? h.n : 1, sizeof(*t->v));
	if (!t->v) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0, r = 0; i < h.cap; i++) {
		struct slot *s = &h.s[i];
		struct tl_ngram_row *row;

		if (!s->len)
			continue;
		row = &t->v[r++];
		row->len = s->len;
		row->count = s->count;
		row->total_us = s->total;
		row->mean_us = s->total / (double)s->count;
		row->idle_us = s->idle;
		row->pct = t->kernel_us > 0 ? s->total / t->kernel_us * 100 : 0;
		row->first_uid = k[s->pos].uid;
		row->names = (const char **)(uintptr_t)s->pos;	/* resolved below */
	}
	t->n = r;
	/* names: point into the kernel array's ids first, sort, then cut */
	np = 0;
	for (i = 0; i < t->n; i++)
		np += t->v[i].len;
	p->ptrs = malloc((np ? np : 1) * sizeof(*p->ptrs));
	if (!p->ptrs) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0, np = 0; i < t->n; i++) {
		size_t pos = (size_t)(uintptr_t)t->v[i].names;
		unsigned q;

		for (q = 0; q < t->v[i].len; q++)
			p->ptrs[np + q] = tl_strtab_get(&p->names, k[pos + q].id);
		t->v[i].names = &p->ptrs[np];
		np += t->v[i].len;
	}
	tl_qsort(t->v, t->n, sizeof(*t->v), cmp_row);
	if (o.top && o.top < t->n)
		t->n = o.top;
out:
	free(k);
	free(h.s);
	if (err) {
		tl_ngram_table_free(t);
		return err == -ENOMEM ? tl_err(err, "kernel sequences: out of memory") : err;
	}
	*out = t;
	return 0;
}

/* ------------------------------------------------------- HTA's op patterns */

struct root {
	char *pattern;
	double gpu, cpu;
};

static int cmp_root(const void *pa, const void *pb)
{
	return strcmp(((const struct root *)pa)->pattern, ((const struct root *)pb)->pattern);
}

static int cmp_prow(const void *pa, const void *pb)
{
	const struct tl_op_pattern_row *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(a->pattern, b->pattern);
}

static int cmp_gpu_ts(const void *pa, const void *pb, void *arg)
{
	const struct tl_trace *tr = arg;
	uint64_t x = *(const uint64_t *)pa, y = *(const uint64_t *)pb;
	double a = tr->ev[x].ts, b = tr->ev[y].ts;

	if (a != b)
		return a < b ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int depth_of(const struct tl_trace *tr, uint64_t uid)
{
	int d = 0;
	int64_t p;

	for (p = tl_event_parent(tr, uid); p >= 0; p = tl_event_parent(tr, (uint64_t)p))
		d++;
	return d;
}

/* The pattern text of root @uid and its GPU events @g[0..n) (sorted). */
static char *pattern_of(const struct tl_trace *tr, uint64_t uid, const uint64_t *g, size_t n)
{
	size_t len = strlen(tl_ev_name(tr, &tr->ev[uid])) + 1, i;
	char *s, *w;

	for (i = 0; i < n; i++)
		len += strlen(tl_ev_name(tr, &tr->ev[g[i]])) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	w = stpcpy(s, tl_ev_name(tr, &tr->ev[uid]));
	for (i = 0; i < n; i++) {
		*w++ = '|';
		w = stpcpy(w, tl_ev_name(tr, &tr->ev[g[i]]));
	}
	return s;
}

void tl_op_pattern_table_free(struct tl_op_pattern_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->npatterns; i++)
		free(t->v[i].pattern);
	free(t->v);
	free(t);
}

int tl_op_kernel_patterns(struct tl_trace *tr, const struct tl_op_pattern_opts *opts,
			  struct tl_op_pattern_table **out)
{
	struct tl_op_pattern_opts o = { 0 };
	struct tl_link_opts lo = { .sz = sizeof(lo) };
	struct tl_op_pattern_table *t = NULL;
	TL_VEC(uint64_t) cand = { 0 };
	TL_VEC(struct root) roots = { 0 };
	uint64_t *g = NULL;
	int mind = -1, err;
	size_t uid, i, j;
	double sum = 0;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (!o.op || !*o.op)
		return tl_err(-EINVAL, "kernel patterns: the op name must be a non-empty string");
	if (!o.min_len)
		o.min_len = 3;
	err = tl_trace_link(tr, &lo);
	if (err)
		return err;
	/* the candidates and their smallest depth: only the shallowest count,
	 * so that an op nested in another of the same name is not counted twice */
	for (uid = 0; uid < tr->nev; uid++) {
		const struct tl_ev *e = &tr->ev[uid];
		int d;

		if (tl_kind_is_gpu((enum tl_kind)e->kind) || !tl_event_in_tree(tr, uid) ||
		    !strstr(tl_ev_name(tr, e), o.op))
			continue;
		if (tl_vec_push(&cand, uid)) {
			err = -ENOMEM;
			goto out;
		}
		d = depth_of(tr, uid);
		mind = mind < 0 || d < mind ? d : mind;
	}
	for (i = 0; i < cand.n; i++) {
		struct root rt = { 0 };
		int64_t n;

		if (depth_of(tr, cand.v[i]) != mind)
			continue;
		free(g);
		g = NULL;
		n = tl_event_gpu_events(tr, cand.v[i], &g);
		if (n < 0) {
			err = (int)n;
			goto out;
		}
		if ((uint64_t)n < o.min_len)
			continue;
		tl_qsort_r(g, (size_t)n, sizeof(*g), cmp_gpu_ts, tr);
		for (j = 0; j < (size_t)n; j++)
			rt.gpu += tr->ev[g[j]].dur;
		rt.cpu = tr->ev[cand.v[i]].dur;
		rt.pattern = pattern_of(tr, cand.v[i], g, (size_t)n);
		if (!rt.pattern || tl_vec_push(&roots, rt)) {
			free(rt.pattern);
			err = -ENOMEM;
			goto out;
		}
	}
	if (!roots.n) {
		err = tl_err(-ENOENT, "no op named like '%s' launches %u or more GPU events", o.op,
			     o.min_len);
		goto out;
	}
	tl_qsort(roots.v, roots.n, sizeof(*roots.v), cmp_root);
	t = calloc(1, sizeof(*t));
	if (!t || !(t->v = calloc(roots.n, sizeof(*t->v)))) {
		err = -ENOMEM;
		goto out;
	}
	t->nroots = roots.n;
	for (i = 0; i < roots.n; i++) {
		struct tl_op_pattern_row *r;

		if (t->npatterns && !strcmp(roots.v[i].pattern, t->v[t->npatterns - 1].pattern)) {
			r = &t->v[t->npatterns - 1];
			free(roots.v[i].pattern);
		} else {
			r = &t->v[t->npatterns++];
			r->pattern = roots.v[i].pattern;
		}
		roots.v[i].pattern = NULL;
		r->count++;
		r->gpu_us += roots.v[i].gpu;
		r->cpu_us += roots.v[i].cpu;
		sum += roots.v[i].gpu;
	}
	for (i = 0; i < t->npatterns; i++)
		t->v[i].pct = sum > 0 ? t->v[i].gpu_us / sum * 100 : 0;
	tl_qsort(t->v, t->npatterns, sizeof(*t->v), cmp_prow);
	t->n = o.top && o.top < t->npatterns ? o.top : t->npatterns;
out:
	for (i = 0; i < roots.n; i++)
		free(roots.v[i].pattern);
	tl_vec_free(&roots);
	tl_vec_free(&cand);
	free(g);
	if (err) {
		tl_op_pattern_table_free(t);
		return err == -ENOMEM ? tl_err(err, "kernel patterns: out of memory") : err;
	}
	*out = t;
	return 0;
}
