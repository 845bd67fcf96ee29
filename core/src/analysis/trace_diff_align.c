/* SPDX-License-Identifier: MIT */
/* Aligning two lists of sibling ops by name for the merged call tree:
 * TraceLens's name normalisation, its Wagner-Fischer edit distance with the
 * same backtracking preferences, and its second pass over the leftovers. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <tlreplay/tree.h>

#include "analysis/analysis_internal.h"

int td_ops_add(struct td_ops *o, enum td_op_kind kind, long i, long j)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 16;
		struct td_op *nv = realloc(o->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		o->v = nv;
		o->cap = cap;
	}
	o->v[o->n].kind = kind;
	o->v[o->n].i = i;
	o->v[o->n].j = j;
	o->n++;
	return 0;
}

static bool same(const struct tl_trace_diff *d, int64_t a, int64_t b, bool strip)
{
	const char *x = td_norm(&d->s[0], (uint64_t)a, strip);
	const char *y = td_norm(&d->s[1], (uint64_t)b, strip);

	if (!x || !y)
		return x == y;
	return !strcmp(x, y);
}

/* Wagner-Fischer on names, backtracked from the end preferring a match,
 * then a deletion (baseline-only), then an insertion. A common suffix is
 * matched as the backtrack would (which keeps the table small for long equal
 * lists); a common prefix is not: the backtrack may pair its names with
 * later ones. */
static int wagner_fischer(const struct tl_trace_diff *d, const struct td_vec *a, const struct td_vec *b,
			  bool strip, struct td_ops *out)
{
	size_t m = a->n, n = b->n, pre = 0, suf = 0, i, j, w;
	uint32_t *dp = NULL;
	struct td_ops rev = { 0 };
	int err = 0;

	while (suf < m - pre && suf < n - pre && same(d, a->v[m - 1 - suf], b->v[n - 1 - suf], strip))
		suf++;
	m -= pre + suf;
	n -= pre + suf;
	w = n + 1;
	dp = malloc((m + 1) * w * sizeof(*dp));
	if (!dp)
		return -ENOMEM;
	for (i = 0; i <= m; i++)
		dp[i * w] = (uint32_t)i;
	for (j = 0; j <= n; j++)
		dp[j] = (uint32_t)j;
	for (i = 1; i <= m; i++)
		for (j = 1; j <= n; j++) {
			uint32_t c = same(d, a->v[pre + i - 1], b->v[pre + j - 1], strip) ? 0 : 1;
			uint32_t x = dp[(i - 1) * w + j] + 1, y = dp[i * w + j - 1] + 1;
			uint32_t z = dp[(i - 1) * w + j - 1] + c;

			dp[i * w + j] = x < y ? (x < z ? x : z) : (y < z ? y : z);
		}
	for (i = 0; i < pre && !err; i++)
		err = td_ops_add(out, TD_MATCH, (long)i, (long)i);
	i = m;
	j = n;
	while ((i > 0 || j > 0) && !err) {
		if (i > 0 && j > 0 && same(d, a->v[pre + i - 1], b->v[pre + j - 1], strip)) {
			err = td_ops_add(&rev, TD_MATCH, (long)(pre + i - 1), (long)(pre + j - 1));
			i--;
			j--;
		} else if (i > 0 && (j == 0 || dp[i * w + j] == dp[(i - 1) * w + j] + 1)) {
			err = td_ops_add(&rev, TD_DELETE, (long)(pre + i - 1), -1);
			i--;
		} else {
			err = td_ops_add(&rev, TD_INSERT, -1, (long)(pre + j - 1));
			j--;
		}
	}
	while (rev.n && !err) {
		rev.n--;
		err = td_ops_add(out, rev.v[rev.n].kind, rev.v[rev.n].i, rev.v[rev.n].j);
	}
	for (i = 0; i < suf && !err; i++)
		err = td_ops_add(out, TD_MATCH, (long)(a->n - suf + i), (long)(b->n - suf + i));
	free(rev.v);
	free(dp);
	return err;
}

/* ------------------------------------------------ same-name disambiguation */

/* The names of the GPU-path descendants of a node, one sorted list per
 * level (TraceLens's _gpu_path_child_names_at_bfs_levels, 4 levels). */
#define TD_LEVELS 4
struct levels {
	size_t nlev;
	const char **name[TD_LEVELS];
	size_t n[TD_LEVELS];
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int bfs_levels(const struct td_side *s, int64_t uid, struct levels *L)
{
	struct td_vec cur = { 0 }, next = { 0 };
	int err = td_push(&cur, uid);

	memset(L, 0, sizeof(*L));
	for (size_t lev = 0; lev < TD_LEVELS && !err; lev++) {
		size_t cap = 0;

		next.n = 0;
		for (size_t i = 0; i < cur.n && !err; i++)
			for (int64_t c = tl_event_first_child(s->tr, (uint64_t)cur.v[i]); c >= 0 && !err;
			     c = tl_event_next_sibling(s->tr, (uint64_t)c)) {
				const char *nm;

				if (!td_gpu_path(s, (uint64_t)c))
					continue;
				err = td_push(&next, c);
				nm = td_norm(s, (uint64_t)c, false);
				if (err || !nm)
					continue;
				if (L->n[lev] == cap) {
					const char **nv;

					cap = cap ? cap * 2 : 8;
					nv = realloc(L->name[lev], cap * sizeof(*nv));
					if (!nv) {
						err = -ENOMEM;
						break;
					}
					L->name[lev] = nv;
				}
				L->name[lev][L->n[lev]++] = nm;
			}
		if (err)
			break;
		if (L->n[lev])
			tl_qsort(L->name[lev], L->n[lev], sizeof(*L->name[lev]), name_cmp);
		L->nlev = lev + 1;
		if (!next.n)
			break;
		struct td_vec t = cur;

		cur = next;
		next = t;
	}
	free(cur.v);
	free(next.v);
	return err;
}

static void levels_free(struct levels *L)
{
	for (int i = 0; i < TD_LEVELS; i++)
		free(L->name[i]);
}

/* Levels that agree before the first difference, and the size of the
 * multiset intersection at that difference. */
static void match_depth(const struct levels *a, const struct levels *b, long *full, long *overlap)
{
	size_t maxd = a->nlev > b->nlev ? a->nlev : b->nlev;

	for (size_t d = 0; d < maxd; d++) {
		size_t na = d < a->nlev ? a->n[d] : 0, nb = d < b->nlev ? b->n[d] : 0, i = 0, j = 0;
		bool eq = na == nb;
		long ov = 0;

		for (size_t k = 0; eq && k < na; k++)
			eq = !strcmp(a->name[d][k], b->name[d][k]);
		if (eq)
			continue;
		while (i < na && j < nb) {
			int r = strcmp(a->name[d][i], b->name[d][j]);

			if (!r) {
				ov++;
				i++;
				j++;
			} else if (r < 0) {
				i++;
			} else {
				j++;
			}
		}
		*full = (long)d;
		*overlap = ov;
		return;
	}
	*full = (long)maxd;
	*overlap = 0;
}

struct cand {
	long full, overlap;
	bool orig;
	long i, j;
};

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->full != b->full)
		return a->full > b->full ? -1 : 1;
	if (a->overlap != b->overlap)
		return a->overlap > b->overlap ? -1 : 1;
	if (a->orig != b->orig)
		return a->orig ? -1 : 1;
	if (a->i != b->i)
		return a->i < b->i ? -1 : 1;
	return (a->j > b->j) - (a->j < b->j);
}

static int op_cmp(const void *pa, const void *pb)
{
	const struct td_op *a = pa, *b = pb;

	if (a->i != b->i)
		return a->i < b->i ? -1 : 1;
	return (a->j > b->j) - (a->j < b->j);
}

/* One node of a children list, for grouping by name. */
struct ent {
	const char *nm;
	int side;
	long idx;
	bool match;
};

static int ent_cmp(const void *pa, const void *pb)
{
	const struct ent *x = pa, *y = pb;
	int r = strcmp(x->nm, y->nm);

	if (r)
		return r;
	if (x->side != y->side)
		return x->side - y->side;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

static const char *nm_of(const struct tl_trace_diff *d, int k, const struct td_vec *v, long i)
{
	const char *n = td_norm(&d->s[k], (uint64_t)v->v[i], false);

	return n ? n : "";
}

/* Re-pair the nodes of one ambiguous name (entries e[0..n), side 0 first). */
static int repair_group(struct tl_trace_diff *d, const struct td_vec *a, const struct td_vec *b,
			const struct ent *e, size_t n, const long *origj, struct td_ops *nw, bool *changed)
{
	size_t n1 = 0, n2, nc = 0, want, got = 0, x, y;
	struct levels *L = NULL;
	struct cand *cv = NULL;
	unsigned char *u = NULL;
	int err = 0;

	while (n1 < n && e[n1].side == 0)
		n1++;
	n2 = n - n1;
	want = n1 < n2 ? n1 : n2;
	L = calloc(n, sizeof(*L));
	cv = malloc(n1 * n2 * sizeof(*cv));
	u = calloc(n, 1);
	if (!L || !cv || !u) {
		err = -ENOMEM;
		goto out;
	}
	for (x = 0; x < n && !err; x++)
		err = bfs_levels(&d->s[e[x].side], (e[x].side ? b : a)->v[e[x].idx], &L[x]);
	for (x = 0; x < n1 && !err; x++)
		for (y = n1; y < n; y++) {
			struct cand *c = &cv[nc++];

			match_depth(&L[x], &L[y], &c->full, &c->overlap);
			c->orig = origj[e[x].idx] == e[y].idx;
			c->i = (long)x;
			c->j = (long)y;
		}
	if (err)
		goto out;
	tl_qsort(cv, nc, sizeof(*cv), cand_cmp);
	for (x = 0; x < nc && got < want && !err; x++) {
		if (u[cv[x].i] || u[cv[x].j])
			continue;
		u[cv[x].i] = u[cv[x].j] = 1;
		got++;
		if (origj[e[cv[x].i].idx] != e[cv[x].j].idx)
			*changed = true;
		err = td_ops_add(nw, TD_MATCH, e[cv[x].i].idx, e[cv[x].j].idx);
	}
	for (x = 0; x < n && !err; x++)
		if (!u[x])
			err = td_ops_add(nw, e[x].side ? TD_INSERT : TD_DELETE, e[x].side ? -1 : e[x].idx,
					 e[x].side ? e[x].idx : -1);
out:
	if (L)
		for (x = 0; x < n; x++)
			levels_free(&L[x]);
	free(L);
	free(cv);
	free(u);
	return err;
}

static int kind_rank(enum td_op_kind k)
{
	return k == TD_MATCH ? 0 : k == TD_DELETE ? 1 : 2;
}

static int newop_cmp(const void *pa, const void *pb)
{
	const struct td_op *x = pa, *y = pb;

	if (x->kind != y->kind)
		return kind_rank(x->kind) - kind_rank(y->kind);
	return op_cmp(pa, pb);
}

/* TraceLens's _disambiguate_same_name_candidates: for a name matched at
 * least once and present more than once on a side, every node of that name
 * on each side is re-paired greedily by how many levels of GPU-path
 * descendants agree (ties: the edit-distance pairing, then position). The
 * new pairs are listed in (i, j) order, where TraceLens lists them in the
 * order of a Python set (which only matters when the pairing changed). */
static int disambiguate(struct tl_trace_diff *d, const struct td_vec *a, const struct td_vec *b,
			struct td_ops *ops)
{
	unsigned char *h1 = calloc(a->n + 1, 1), *h2 = calloc(b->n + 1, 1);
	long *origj = malloc((a->n + 1) * sizeof(*origj));
	struct ent *e = malloc((a->n + b->n + 1) * sizeof(*e));
	struct td_ops nw = { 0 }, fin = { 0 };
	size_t ne = 0, k, g, q;
	bool changed = false;
	int err = 0;

	if (!h1 || !h2 || !origj || !e) {
		err = -ENOMEM;
		goto out;
	}
	for (k = 0; k < a->n; k++)
		origj[k] = -1;
	for (k = 0; k < ops->n; k++) {
		const struct td_op *o = &ops->v[k];
		bool m = o->kind == TD_MATCH;

		if (m)
			origj[o->i] = o->j;
		if (o->i >= 0)
			e[ne++] = (struct ent){ nm_of(d, 0, a, o->i), 0, o->i, m };
		if (o->j >= 0)
			e[ne++] = (struct ent){ nm_of(d, 1, b, o->j), 1, o->j, m };
	}
	tl_qsort(e, ne, sizeof(*e), ent_cmp);
	for (g = 0; g < ne && !err; g = q) {
		size_t n1 = 0, n2 = 0;
		bool matched = false;

		for (q = g; q < ne && !strcmp(e[q].nm, e[g].nm); q++) {
			if (e[q].side)
				n2++;
			else
				n1++;
			matched |= e[q].match;
		}
		if (!matched || !n1 || !n2 || (n1 < 2 && n2 < 2))
			continue;
		for (size_t x = g; x < q; x++) {
			if (e[x].side)
				h2[e[x].idx] = 1;
			else
				h1[e[x].idx] = 1;
		}
		err = repair_group(d, a, b, e + g, q - g, origj, &nw, &changed);
	}
	if (err || !changed)
		goto out;
	for (k = 0; k < ops->n && !err; k++) {
		const struct td_op *o = &ops->v[k];

		if ((o->i >= 0 && h1[o->i]) || (o->j >= 0 && h2[o->j]))
			continue;
		err = td_ops_add(&fin, o->kind, o->i, o->j);
	}
	tl_qsort(nw.v, nw.n, sizeof(*nw.v), newop_cmp);
	for (k = 0; k < nw.n && !err; k++)
		err = td_ops_add(&fin, nw.v[k].kind, nw.v[k].i, nw.v[k].j);
	if (!err) {
		struct td_ops t = *ops;

		*ops = fin;
		fin = t;
	}
out:
	free(h1);
	free(h2);
	free(origj);
	free(e);
	free(nw.v);
	free(fin.v);
	return err;
}

int td_align(struct tl_trace_diff *d, const struct td_vec *a, const struct td_vec *b, bool strip,
	     struct td_ops *out)
{
	int err;

	out->n = 0;
	err = wagner_fischer(d, a, b, strip, out);
	return err ? err : disambiguate(d, a, b, out);
}

int td_realign_leftovers(struct tl_trace_diff *d, struct td_vec c[2], struct td_ops *ops)
{
	struct td_vec col[2] = { { 0 } }, idx[2] = { { 0 } }, s2[2] = { { 0 } }, st[2] = { { 0 } },
		      kids = { 0 };
	struct td_ops p1 = { 0 }, p2 = { 0 }, res = { 0 }, nw = { 0 };
	size_t i;
	int err = 0, k;

	for (i = 0; i < ops->n && !err; i++) {
		if (ops->v[i].kind == TD_DELETE)
			err = td_push(&idx[0], ops->v[i].i);
		else if (ops->v[i].kind == TD_INSERT)
			err = td_push(&idx[1], ops->v[i].j);
	}
	if (err || !idx[0].n || !idx[1].n)
		goto out;
	for (k = 0; k < 2 && !err; k++)
		for (i = 0; i < idx[k].n && !err; i++) {
			int64_t deep;

			err = td_collapse(&d->s[k], c[k].v[idx[k].v[i]], &kids, &deep);
			if (!err)
				err = td_push(&col[k], deep);
		}
	if (!err)
		err = td_align(d, &col[0], &col[1], false, &p1);
	if (err)
		goto out;
	/* the leftovers of pass 1, aligned again without python details */
	for (i = 0; i < p1.n && !err; i++) {
		if (p1.v[i].kind == TD_DELETE)
			err = td_push(&st[0], p1.v[i].i);
		else if (p1.v[i].kind == TD_INSERT)
			err = td_push(&st[1], p1.v[i].j);
	}
	if (!err && st[0].n && st[1].n) {
		for (k = 0; k < 2 && !err; k++)
			for (i = 0; i < st[k].n && !err; i++)
				err = td_push(&s2[k], col[k].v[st[k].v[i]]);
		if (!err)
			err = td_align(d, &s2[0], &s2[1], true, &p2);
		for (i = 0; i < p1.n && !err; i++)
			if (p1.v[i].kind == TD_MATCH)
				err = td_ops_add(&res, TD_MATCH, p1.v[i].i, p1.v[i].j);
		for (i = 0; i < p2.n && !err; i++)
			err = td_ops_add(&res, p2.v[i].kind, p2.v[i].i >= 0 ? (long)st[0].v[p2.v[i].i] : -1,
					 p2.v[i].j >= 0 ? (long)st[1].v[p2.v[i].j] : -1);
	} else {
		for (i = 0; i < p1.n && !err; i++)
			err = td_ops_add(&res, p1.v[i].kind, p1.v[i].i, p1.v[i].j);
	}
	/* the earlier matches first, then the new alignment, on collapsed UIDs */
	for (i = 0; i < ops->n && !err; i++)
		if (ops->v[i].kind == TD_MATCH)
			err = td_ops_add(&nw, TD_MATCH, ops->v[i].i, ops->v[i].j);
	for (i = 0; i < res.n && !err; i++) {
		long oi = res.v[i].i >= 0 ? (long)idx[0].v[res.v[i].i] : -1;
		long oj = res.v[i].j >= 0 ? (long)idx[1].v[res.v[i].j] : -1;

		if (oi >= 0)
			c[0].v[oi] = col[0].v[res.v[i].i];
		if (oj >= 0)
			c[1].v[oj] = col[1].v[res.v[i].j];
		err = td_ops_add(&nw, res.v[i].kind, oi, oj);
	}
	if (!err) {
		struct td_ops t = *ops;

		*ops = nw;
		nw = t;
	}
out:
	for (k = 0; k < 2; k++) {
		free(col[k].v);
		free(idx[k].v);
		free(s2[k].v);
		free(st[k].v);
	}
	free(kids.v);
	free(p1.v);
	free(p2.v);
	free(res.v);
	free(nw.v);
	return err;
}

/* ------------------------------------------------------ wrapper reconciling */

/* The GPU-path children of @uid, in call order. */
static int path_kids(const struct td_side *s, int64_t uid, struct td_vec *out)
{
	out->n = 0;
	for (int64_t c = tl_event_first_child(s->tr, (uint64_t)uid); c >= 0;
	     c = tl_event_next_sibling(s->tr, (uint64_t)c))
		if (td_gpu_path(s, (uint64_t)c) && td_push(out, c))
			return -ENOMEM;
	return 0;
}

static bool has_named(const struct td_side *s, const struct td_vec *v, const char *nm)
{
	for (size_t i = 0; i < v->n; i++) {
		const char *o = td_norm(s, (uint64_t)v->v[i], false);

		if (o && !strcmp(o, nm))
			return true;
	}
	return false;
}

static bool same_names(const struct td_side *s1, const struct td_vec *x, const struct td_side *s2,
		       const struct td_vec *y)
{
	if (x->n != y->n)
		return false;
	for (size_t i = 0; i < x->n; i++) {
		const char *p = td_norm(s1, (uint64_t)x->v[i], false), *q = td_norm(s2, (uint64_t)y->v[i], false);

		if (!p || !q ? p != q : strcmp(p, q))
			return false;
	}
	return true;
}

/* A kernel or a dispatch call: never a wrapper. */
static bool not_wrapper(const struct td_side *s, int64_t uid)
{
	return s->kind[uid] == TL_KIND_KERNEL || td_is_dispatch(s, (uint64_t)uid);
}

/* TraceLens's reconcile_unmatched: for each unmatched (base, variant) pair,
 * a node whose GPU-path children hold the other's name, or two nodes with
 * the same list of GPU-path child names, are replaced by those children.
 * @sub[k][i]: 1 when child i of side k is to be replaced. */
static int find_wrappers(struct tl_trace_diff *d, struct td_vec c[2], const struct td_ops *ops,
			 unsigned char *sub[2], bool *any)
{
	struct td_vec del = { 0 }, ins = { 0 }, kd = { 0 }, ki = { 0 };
	int err = 0;

	for (size_t k = 0; k < ops->n && !err; k++) {
		if (ops->v[k].kind == TD_DELETE)
			err = td_push(&del, ops->v[k].i);
		else if (ops->v[k].kind == TD_INSERT)
			err = td_push(&ins, ops->v[k].j);
	}
	for (size_t x = 0; x < del.n && !err; x++)
		for (size_t y = 0; y < ins.n && !err; y++) {
			int64_t ud = c[0].v[del.v[x]], ui = c[1].v[ins.v[y]];
			const char *nd, *ni;

			if (not_wrapper(&d->s[0], ud) || not_wrapper(&d->s[1], ui))
				continue;
			nd = td_norm(&d->s[0], (uint64_t)ud, false);
			ni = td_norm(&d->s[1], (uint64_t)ui, false);
			err = path_kids(&d->s[0], ud, &kd);
			if (!err)
				err = path_kids(&d->s[1], ui, &ki);
			if (err)
				break;
			if (nd && has_named(&d->s[1], &ki, nd))
				sub[1][ins.v[y]] = 1, *any = true;
			if (ni && has_named(&d->s[0], &kd, ni))
				sub[0][del.v[x]] = 1, *any = true;
			if (kd.n && ki.n && same_names(&d->s[0], &kd, &d->s[1], &ki))
				sub[0][del.v[x]] = sub[1][ins.v[y]] = 1, *any = true;
		}
	free(del.v);
	free(ins.v);
	free(kd.v);
	free(ki.v);
	return err;
}

static bool any_dispatch_of(const struct td_side *s, const struct td_vec *v)
{
	for (size_t i = 0; i < v->n; i++)
		if (td_is_dispatch(s, (uint64_t)v->v[i]))
			return true;
	return false;
}

static long index_of(const struct td_vec *v, int64_t uid)
{
	long r = -1;

	for (size_t i = 0; i < v->n; i++)
		if (v->v[i] == uid)
			r = (long)i;	/* the last, as a dict built in order keeps */
	return r;
}

int td_reconcile(struct tl_trace_diff *d, struct td_vec c[2], struct td_ops *ops)
{
	unsigned char *sub[2] = { calloc(c[0].n + 1, 1), calloc(c[1].n + 1, 1) };
	unsigned char *pin[2] = { NULL, NULL };
	struct td_vec r[2] = { { 0 } }, kids = { 0 }, fr[2] = { { 0 } }, fi[2] = { { 0 } };
	struct td_ops nw = { 0 }, fo = { 0 };
	bool any = false, has_unmatched = false;
	size_t k;
	int err = 0;

	for (k = 0; k < ops->n; k++)
		has_unmatched |= ops->v[k].kind != TD_MATCH;
	if (!sub[0] || !sub[1])
		err = -ENOMEM;
	if (err || !has_unmatched)
		goto out;
	err = find_wrappers(d, c, ops, sub, &any);
	if (err || !any)
		goto out;
	for (int s = 0; s < 2 && !err; s++) {
		for (k = 0; k < c[s].n && !err; k++) {
			if (!sub[s][k]) {
				err = td_push(&r[s], c[s].v[k]);
				continue;
			}
			err = path_kids(&d->s[s], c[s].v[k], &kids);
			for (size_t q = 0; q < kids.n && !err; q++)
				err = td_push(&r[s], kids.v[q]);
		}
		if (!err)
			err = td_sort_by_ts(&d->s[s], &r[s]);
	}
	if (err)
		goto out;
	pin[0] = calloc(r[0].n + 1, 1);
	pin[1] = calloc(r[1].n + 1, 1);
	if (!pin[0] || !pin[1]) {
		err = -ENOMEM;
		goto out;
	}
	/* the earlier pairs stay, found again by UID in the new lists */
	for (k = 0; k < ops->n && !err; k++) {
		long ri, rj;

		if (ops->v[k].kind != TD_MATCH)
			continue;
		ri = index_of(&r[0], c[0].v[ops->v[k].i]);
		rj = index_of(&r[1], c[1].v[ops->v[k].j]);
		if (ri < 0 || rj < 0)
			continue;
		pin[0][ri] = pin[1][rj] = 1;
		err = td_ops_add(&nw, TD_MATCH, ri, rj);
	}
	for (int s = 0; s < 2 && !err; s++)
		for (k = 0; k < r[s].n && !err; k++)
			if (!pin[s][k]) {
				err = td_push(&fi[s], (int64_t)k);
				if (!err)
					err = td_push(&fr[s], r[s].v[k]);
			}
	if (err)
		goto out;
	if (fi[0].n && fi[1].n) {
		if (fr[0].n == fr[1].n && !any_dispatch_of(&d->s[0], &fr[0]) && !any_dispatch_of(&d->s[1], &fr[1])) {
			for (k = 0; k < fr[0].n && !err; k++)
				err = td_ops_add(&fo, TD_MATCH, (long)k, (long)k);
		} else {
			err = td_align(d, &fr[0], &fr[1], false, &fo);
		}
		for (k = 0; k < fo.n && !err; k++)
			err = td_ops_add(&nw, fo.v[k].kind, fo.v[k].i >= 0 ? (long)fi[0].v[fo.v[k].i] : -1,
					 fo.v[k].j >= 0 ? (long)fi[1].v[fo.v[k].j] : -1);
	} else {
		for (k = 0; k < fi[0].n && !err; k++)
			err = td_ops_add(&nw, TD_DELETE, (long)fi[0].v[k], -1);
		for (k = 0; k < fi[1].n && !err; k++)
			err = td_ops_add(&nw, TD_INSERT, -1, (long)fi[1].v[k]);
	}
	if (!err) {
		struct td_ops t = *ops;
		struct td_vec tv;

		*ops = nw;
		nw = t;
		for (int s = 0; s < 2; s++) {
			tv = c[s];
			c[s] = r[s];
			r[s] = tv;
		}
	}
out:
	for (int s = 0; s < 2; s++) {
		free(sub[s]);
		free(pin[s]);
		free(r[s].v);
		free(fr[s].v);
		free(fi[s].v);
	}
	free(kids.v);
	free(nw.v);
	free(fo.v);
	return err;
}
