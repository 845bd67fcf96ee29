/* SPDX-License-Identifier: MIT */
/* kernel summary (TraceLens's kernel_summary sheet) and the table of every
 * distinct kernel launch configuration. */
#include <math.h>
#include <stddef.h>

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

struct kgroup {
	struct tl_kernel_row row;
	uint32_t name_id;
};

/* pandas' groupby order of the keys (category, parent op, kernel name,
 * stream): what TraceLens's sort by summed time then reorders. */
static int cmp_kkey(const void *a, const void *b)
{
	const struct tl_kernel_row *x = a, *y = b;
	int c = strcmp(x->category ? x->category : "", y->category ? y->category : "");

	if (c)
		return c;
	c = strcmp(x->parent_op ? x->parent_op : "", y->parent_op ? y->parent_op : "");
	if (c)
		return c;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	return (x->stream > y->stream) - (x->stream < y->stream);
}

/* By summed time, descending, as pandas' sort_values orders the groups:
 * equal sums as numpy's quicksort leaves them (tl_pandas_argsort_desc). */
static int sort_rows(struct tl_kernel_row *v, size_t n)
{
	tl_qsort(v, n, sizeof(*v), cmp_kkey);
	return tl_pandas_sort_desc(v, n, sizeof(*v), offsetof(struct tl_kernel_row, sum_us));
}

static bool same_str(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static bool graph_launcher(const char *name)
{
	char buf[256];
	size_t i;

	for (i = 0; name[i] && i < sizeof(buf) - 1; i++)
		buf[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
	buf[i] = 0;
	return strstr(buf, "cudagraph") || strstr(buf, "graphlaunch");
}

int tl_kernel_summary(struct tl_trace *tr, struct tl_kernel_table **out)
{
	struct tl_launcher_opts lo = { .sz = sizeof(lo) };
	struct tl_breakdown_opts bo = { .sz = sizeof(bo) };
	struct tl_launcher_set *ls = NULL;
	struct tl_breakdown_set *bd = NULL;
	struct tl_kernel_table *t = NULL;
	TL_VEC(struct kgroup) g = { 0 };
	struct tl_kmap idx, lidx;
	double total_kernels = 0, total_time = 0;
	bool any_cpu_op = false;
	size_t i;
	int err;

	*out = NULL;
	memset(&idx, 0, sizeof(idx));
	memset(&lidx, 0, sizeof(lidx));
	/* The launchers give each cpu_op that launched kernels its first kernel,
	 * which its category may depend on. */
	err = tl_launchers(tr, &lo, &ls);
	if (err)
		return err;
	if (tl_breakdown(tr, &bo, &bd) == 0)
		total_time = bd->v[0].us[TL_BD_TOTAL];
	if (tl_kmap_init(&idx, 1024) || tl_kmap_init(&lidx, ls->n + 16))
		goto nomem;
	for (i = 0; i < ls->n; i++)
		if (tl_kmap_put(&lidx, 0, (int64_t)ls->v[i].uid, (uint32_t)ls->v[i].first_kernel))
			goto nomem;

	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		const char *parent_op = NULL, *cat = NULL;
		int32_t rt = -1, cur;
		uint32_t gi, fk;
		int64_t stream = (e->flags & EV_HAS_STREAM) ? e->stream : TL_NOID;
		uint64_t k1;

		if (e->kind != TL_KIND_KERNEL)
			continue;
		total_kernels += e->dur;
		if (tr->tree.in_tree[i] == 2)
			rt = tr->tree.parent[i];
		for (cur = rt; cur >= 0; cur = tr->tree.parent[cur])
			if (tr->ev[cur].kind == TL_KIND_CPU_OP)
				break;
		if (cur >= 0) {
			any_cpu_op = true;
			parent_op = tl_strtab_get(&tr->strs, tr->ev[cur].name);
			cat = tl_op_category(tr, (uint64_t)cur,
					     tl_kmap_get(&lidx, 0, cur, &fk) ? (int64_t)fk : -1);
		} else if (rt >= 0) {
			parent_op = tl_strtab_get(&tr->strs, tr->ev[rt].name);
			cat = graph_launcher(parent_op) ? "graph" : "runtime";
		}
		/* group key: (category, parent op, kernel name, stream); probe on a
		 * hash and confirm, perturbing the hash on a collision */
		k1 = tl_hash_bytes(parent_op ? parent_op : "", parent_op ? strlen(parent_op) : 0) ^
		     ((uint64_t)e->name * 0x9e3779b97f4a7c15ULL) ^
		     tl_hash_bytes(cat ? cat : "", cat ? strlen(cat) : 0) * 31;
		for (;;) {
			if (!tl_kmap_get(&idx, k1, stream, &gi)) {
				struct kgroup ng = { 0 };

				ng.row.category = cat;
				ng.row.parent_op = parent_op;
				ng.row.name = tl_strtab_get(&tr->strs, e->name);
				ng.row.stream = stream;
				ng.row.min_us = INFINITY;
				ng.row.max_us = -INFINITY;
				ng.name_id = e->name;
				gi = (uint32_t)g.n;
				if (tl_vec_push(&g, ng) || tl_kmap_put(&idx, k1, stream, gi))
					goto nomem;
				break;
			}
			if (g.v[gi].name_id == e->name && same_str(g.v[gi].row.category, cat) &&
			    same_str(g.v[gi].row.parent_op, parent_op))
				break;
			k1 = tl_mix64(k1 + 1);
		}
		{
			struct tl_kernel_row *r = &g.v[gi].row;

			r->count++;
			r->sum_us += e->dur;
			if (e->dur < r->min_us)
				r->min_us = e->dur;
			if (e->dur > r->max_us)
				r->max_us = e->dur;
		}
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		goto nomem;
	t->has_parent_op = any_cpu_op;
	t->n = g.n;
	t->v = calloc(g.n + 1, sizeof(*t->v));
	if (!t->v)
		goto nomem;
	for (i = 0; i < g.n; i++) {
		struct tl_kernel_row *r = &t->v[i];

		*r = g.v[i].row;
		if (!any_cpu_op)
			r->parent_op = NULL;
		r->mean_us = r->sum_us / (double)r->count;
		r->pct_kernels = total_kernels > 0 ? r->sum_us / total_kernels * 100 : NAN;
		r->pct_total = total_time > 0 ? r->sum_us / total_time * 100 : NAN;
	}
	if (sort_rows(t->v, t->n))
		goto nomem;
	*out = t;
	t = NULL;
	err = 0;
	goto out;
nomem:
	err = tl_err(-ENOMEM, "out of memory summarising kernels");
out:
	tl_kmap_free(&idx);
	tl_kmap_free(&lidx);
	tl_vec_free(&g);
	tl_kernel_table_free(t);
	tl_breakdown_free(bd);
	tl_launcher_set_free(ls);
	return err;
}

void tl_kernel_table_free(struct tl_kernel_table *t)
{
	if (!t)
		return;
	free(t->v);
	free(t);
}

/* ------------------------------------------------------------------ unique */

struct kcfg {
	uint32_t name;
	int64_t grid[3], block[3], regs, smem;
};

static void read_triple(const cJSON *o, const char *key, int64_t v[3])
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
	int i;

	for (i = 0; i < 3; i++) {
		const cJSON *x = cJSON_IsArray(a) ? cJSON_GetArrayItem(a, i) : NULL;

		if (!tl_json_i64(x, INT64_MIN + 1, INT64_MAX, &v[i]))
			v[i] = TL_NOID;
	}
}

static int64_t read_int(const cJSON *o, const char *key)
{
	int64_t v;

	return tl_json_i64(cJSON_GetObjectItemCaseSensitive(o, key), INT64_MIN + 1, INT64_MAX, &v) ? v : TL_NOID;
}

static int cmp_urow(const void *a, const void *b)
{
	const struct tl_kernel_unique_row *x = a, *y = b;

	if (x->sum_us != y->sum_us)
		return x->sum_us > y->sum_us ? -1 : 1;
	return (x->ex_uid > y->ex_uid) - (x->ex_uid < y->ex_uid);
}

int tl_kernel_unique(struct tl_trace *tr, struct tl_kernel_unique_table **out)
{
	TL_VEC(struct tl_kernel_unique_row) rows = { 0 };
	TL_VEC(struct kcfg) cfgs = { 0 };
	struct tl_kernel_unique_table *t = NULL;
	struct tl_kmap idx;
	size_t i;
	int err = 0;

	*out = NULL;
	if (tl_kmap_init(&idx, 1024))
		return tl_err(-ENOMEM, "out of memory");
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		struct kcfg c = { .name = e->name };
		cJSON *args = NULL;
		uint64_t h;
		uint32_t ri;

		if (e->kind != TL_KIND_KERNEL)
			continue;
		if (tl_trace_event_args(tr, i, &args)) {
			err = -EBADMSG;
			goto out;
		}
		read_triple(args, "grid", c.grid);
		read_triple(args, "block", c.block);
		c.regs = read_int(args, "registers per thread");
		c.smem = read_int(args, "shared memory");
		cJSON_Delete(args);
		h = tl_hash_bytes(&c, sizeof(c));
		/* probe on the hash, then confirm the whole config (collisions chain
		 * through the second key) */
		for (;;) {
			if (!tl_kmap_get(&idx, h, 0, &ri)) {
				struct tl_kernel_unique_row r = { 0 };

				r.name = tl_strtab_get(&tr->strs, e->name);
				memcpy(r.grid, c.grid, sizeof(r.grid));
				memcpy(r.block, c.block, sizeof(r.block));
				r.registers = c.regs;
				r.shared_mem = c.smem;
				r.ex_uid = i;
				r.min_us = INFINITY;
				r.max_us = -INFINITY;
				ri = (uint32_t)rows.n;
				if (tl_vec_push(&rows, r) || tl_vec_push(&cfgs, c) ||
				    tl_kmap_put(&idx, h, 0, ri)) {
					err = tl_err(-ENOMEM, "out of memory");
					goto out;
				}
				break;
			}
			if (!memcmp(&cfgs.v[ri], &c, sizeof(c)))
				break;
			h = tl_mix64(h + 1);
		}
		rows.v[ri].count++;
		rows.v[ri].sum_us += e->dur;
		if (e->dur < rows.v[ri].min_us)
			rows.v[ri].min_us = e->dur;
		if (e->dur > rows.v[ri].max_us)
			rows.v[ri].max_us = e->dur;
	}
	for (i = 0; i < rows.n; i++)
		rows.v[i].mean_us = rows.v[i].sum_us / (double)rows.v[i].count;
	tl_qsort(rows.v, rows.n, sizeof(*rows.v), cmp_urow);
	t = calloc(1, sizeof(*t));
	if (!t) {
		err = tl_err(-ENOMEM, "out of memory");
		goto out;
	}
	t->n = rows.n;
	t->v = rows.v;
	rows.v = NULL;
	*out = t;
out:
	tl_kmap_free(&idx);
	tl_vec_free(&rows);
	tl_vec_free(&cfgs);
	return err;
}

void tl_kernel_unique_free(struct tl_kernel_unique_table *t)
{
	if (!t)
		return;
	free(t->v);
	free(t);
}
