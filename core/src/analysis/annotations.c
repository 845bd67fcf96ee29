/* SPDX-License-Identifier: MIT */
/* User annotations projected onto the GPU (include/tlreplay/annotations.h):
 * launches sorted by (pid, tid, ts) so that the launches inside a CPU range
 * are one binary search away; GPU events sorted by (pid, tid, ts) likewise
 * for the ranges Kineto copied onto the GPU streams. */
#include <regex.h>
#include <stdio.h>

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

#include <tlreplay/annotations.h>

/* A launch (runtime call ts on its thread, the GPU event) or a GPU event on
 * its stream (the same fields, gpu == the event). */
struct pt {
	uint64_t key;	/* pid << 32 | tid */
	double ts;
	uint32_t gpu;
};

static int cmp_pt(const void *a, const void *b)
{
	const struct pt *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

/* First point >= (key, ts). */
static size_t lower(const struct pt *v, size_t n, uint64_t key, double ts)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid].key < key || (v[mid].key == key && v[mid].ts < ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct row_acc {
	struct tl_ann_row r;
	TL_VEC(struct tl_iv) iv;
};

static bool has_time(const struct tl_ev *e)
{
	return (e->flags & (EV_HAS_TS | EV_HAS_DUR)) == (EV_HAS_TS | EV_HAS_DUR);
}

static int cmp_row(const void *a, const void *b)
{
	const struct tl_ann_row *x = a, *y = b;
	int c;

	if (x->busy_us != y->busy_us)
		return x->busy_us > y->busy_us ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : (int)x->gpu - (int)y->gpu;
}

int tl_annotations(struct tl_trace *tr, const struct tl_ann_opts *opts, struct tl_ann_set **out)
{
	struct tl_ann_opts o = { 0 };
	TL_VEC(struct pt) launch = { 0 }, gpu = { 0 };
	TL_VEC(struct row_acc) rows = { 0 };
	TL_VEC(struct tl_iv) all = { 0 };
	int32_t *row_of[2] = { NULL, NULL };
	struct tl_ann_set *set = NULL;
	regex_t re;
	bool have_re = false;
	size_t i, k;
	int err;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	if (o.name_regex) {
		if (regcomp(&re, o.name_regex, REG_EXTENDED | REG_NOSUB))
			return tl_err(-EINVAL, "bad --name regex '%s'", o.name_regex);
		have_re = true;
	}
	err = tl_links_ensure(tr);
	if (err)
		goto out;
	err = -ENOMEM;
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		int32_t p;

		if (!tl_kind_is_gpu(e->kind) || tr->tree.in_tree[i] != 2 || !has_time(e))
			continue;
		p = tr->tree.parent[i];
		if (tl_vec_push(&all, ((struct tl_iv){ e->ts, tl_ev_end(e) })) ||
		    tl_vec_push(&gpu, ((struct pt){ (uint64_t)e->pid << 32 | e->tid, e->ts, (uint32_t)i })))
			goto nomem;
		if (p >= 0 && tl_vec_push(&launch, ((struct pt){ (uint64_t)tr->ev[p].pid << 32 | tr->ev[p].tid,
								  tr->ev[p].ts, (uint32_t)i })))
			goto nomem;
	}
	if (!all.n) {
		err = tl_err(-ENODATA, "%s: no GPU event linked to a CPU launch in the trace", tr->path);
		goto out;
	}
	tl_qsort(launch.v, launch.n, sizeof(*launch.v), cmp_pt);
	tl_qsort(gpu.v, gpu.n, sizeof(*gpu.v), cmp_pt);
	row_of[0] = malloc(tr->strs.n * sizeof(int32_t) + 1);
	row_of[1] = malloc(tr->strs.n * sizeof(int32_t) + 1);
	if (!row_of[0] || !row_of[1])
		goto nomem;
	memset(row_of[0], 0xff, tr->strs.n * sizeof(int32_t));
	memset(row_of[1], 0xff, tr->strs.n * sizeof(int32_t));
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		int g = e->kind == TL_KIND_GPU_ANNOTATION;
		const struct pt *v = g ? gpu.v : launch.v;
		size_t n = g ? gpu.n : launch.n;
		uint64_t key = (uint64_t)e->pid << 32 | e->tid;
		double first = 0, last = 0;
		uint64_t nk;
		struct row_acc *ra;
		int32_t r;

		if ((e->kind != TL_KIND_USER_ANNOTATION && !g) || !has_time(e))
			continue;
		r = row_of[g][e->name];
		if (r == -2)
			continue;	/* the regex rejected this name */
		if (r < 0) {
			struct row_acc z = { 0 };

			if (have_re && regexec(&re, tl_ev_name(tr, e), 0, NULL, 0)) {
				row_of[g][e->name] = -2;
				continue;
			}
			z.r.name = tl_ev_name(tr, e);
			z.r.gpu = g;
			z.r.first_uid = i;
			r = (int32_t)rows.n;
			if (tl_vec_push(&rows, z))
				goto nomem;
			row_of[g][e->name] = r;
		}
		ra = &rows.v[r];
		ra->r.count++;
		if (g)
			ra->r.proj_us += e->dur;
		else
			ra->r.cpu_us += e->dur;
		nk = 0;
		for (k = lower(v, n, key, e->ts); k < n && v[k].key == key && v[k].ts < tl_ev_end(e); k++) {
			const struct tl_ev *ge = &tr->ev[v[k].gpu];

			if (tl_vec_push(&ra->iv, ((struct tl_iv){ ge->ts, tl_ev_end(ge) })))
				goto nomem;
			if (!nk || ge->ts < first)
				first = ge->ts;
			if (!nk || tl_ev_end(ge) > last)
				last = tl_ev_end(ge);
			nk++;
		}
		ra->r.nkernels += nk;
		/* Nsight's projection: first GPU start to last GPU end */
		if (nk && !g)
			ra->r.proj_us += last - first;
	}
	if (!rows.n) {
		err = have_re ? tl_err(-ENODATA, "%s: no annotation matches '%s'", tr->path, o.name_regex)
			      : tl_err(-ENODATA, "%s: no user annotation in the trace", tr->path);
		goto out;
	}
	set = calloc(1, sizeof(*set));
	if (!set || !(set->v = calloc(rows.n, sizeof(*set->v))))
		goto nomem;
	set->gpu_busy_us = tl_union_len(all.v, all.n);
	for (i = 0; i < rows.n; i++) {
		struct row_acc *ra = &rows.v[i];

		ra->r.busy_us = ra->iv.n ? tl_union_len(ra->iv.v, ra->iv.n) : 0;
		ra->r.share = set->gpu_busy_us > 0 ? ra->r.busy_us / set->gpu_busy_us * 100 : 0;
		set->v[i] = ra->r;
	}
	set->n = rows.n;
	tl_qsort(set->v, set->n, sizeof(*set->v), cmp_row);
	*out = set;
	set = NULL;
	err = 0;
	goto out;
nomem:
	err = tl_err(-ENOMEM, "out of memory projecting the annotations");
out:
	if (have_re)
		regfree(&re);
	for (i = 0; i < rows.n; i++)
		tl_vec_free(&rows.v[i].iv);
	tl_vec_free(&rows);
	tl_vec_free(&launch);
	tl_vec_free(&gpu);
	tl_vec_free(&all);
	free(row_of[0]);
	free(row_of[1]);
	tl_ann_set_free(set);
	return err;
}

void tl_ann_set_free(struct tl_ann_set *set)
{
	if (!set)
		return;
	free(set->v);
	free(set);
}
