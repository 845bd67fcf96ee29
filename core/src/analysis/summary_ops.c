/* SPDX-License-Identifier: MIT */
/* ops summary (TraceLens get_df_kernel_launchers_summary): launchers grouped
 * by name (and is_recompute), summed direct and subtree GPU busy time,
 * count, the set of op categories, share of the total direct time. */
#include <stddef.h>
#include <stdio.h>

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

/* Append @s to @b as Python's repr() writes a str. */
static void pyrepr_str(char **b, size_t *len, size_t *cap, const char *s)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
	size_t need = *len + 4 * strlen(s) + 4;

	if (need > *cap) {
		char *nb = realloc(*b, need * 2);

		if (!nb)
			return;
		*b = nb;
		*cap = need * 2;
	}
	(*b)[(*len)++] = q;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\' || c == (unsigned char)q) {
			(*b)[(*len)++] = '\\';
			(*b)[(*len)++] = (char)c;
		} else if (c == '\n') {
			memcpy(*b + *len, "\\n", 2);
			*len += 2;
		} else if (c == '\r') {
			memcpy(*b + *len, "\\r", 2);
			*len += 2;
		} else if (c == '\t') {
			memcpy(*b + *len, "\\t", 2);
			*len += 2;
		} else if (c < 0x20 || c == 0x7f) {
			*len += (size_t)sprintf(*b + *len, "\\x%02x", c);
		} else {
			(*b)[(*len)++] = (char)c;
		}
	}
	(*b)[(*len)++] = q;
	(*b)[*len] = 0;
}

/* TraceLens's traverse_parents_and_get_callstack(filter=("nn.Module",)): the op,
 * then every ancestor whose name holds "nn.Module" (cut at 256 chars + ".."),
 * innermost first; as a Python list repr. @parent_module gets the second frame
 * with every "_<digits>" removed, or "NA". */
char *tl_op_module_stack(const struct tl_trace *tr, uint64_t uid, char *parent_module, size_t pmn)
{
	char *b = NULL, frame[300];
	size_t len = 0, cap = 0;
	int32_t p;
	int nframes = 1;

	snprintf(parent_module, pmn, "NA");
	if (tl_grow((void **)&b, &cap, 64, 1))
		return NULL;
	b[len++] = '[';
	{
		char nbuf[512];

		pyrepr_str(&b, &len, &cap,
			   tl_op_norm_name(tl_strtab_get(&tr->strs, tr->ev[uid].name), nbuf, sizeof(nbuf)));
	}
	for (p = tr->tree.parent[uid]; p >= 0 && b; p = tr->tree.parent[p]) {
		const char *n = tl_strtab_get(&tr->strs, tr->ev[p].name);

		if (!strstr(n, "nn.Module"))
			continue;
		if (strlen(n) > 256)
			snprintf(frame, sizeof(frame), "%.256s..", n);
		else
			snprintf(frame, sizeof(frame), "%s", n);
		if (nframes == 1) {
			const char *s = frame;
			size_t k = 0;

			while (*s && k + 1 < pmn) {
				if (s[0] == '_' && s[1] >= '0' && s[1] <= '9') {
					s++;
					while (*s >= '0' && *s <= '9')
						s++;
					continue;
				}
				parent_module[k++] = *s++;
			}
			parent_module[k] = 0;
		}
		nframes++;
		b[len++] = ',';
		b[len++] = ' ';
		pyrepr_str(&b, &len, &cap, frame);
	}
	if (!b || tl_grow((void **)&b, &cap, len + 2, 1)) {
		free(b);
		return NULL;
	}
	b[len++] = ']';
	b[len] = 0;
	return b;
}

struct op_group {
	struct tl_op_row row;
	TL_VEC(const char *) cats;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* pandas' groupby order: by name, then parent module, then is_recompute. */
static int cmp_key(const void *a, const void *b)
{
	const struct tl_op_row *x = a, *y = b;
	int c;

	c = strcmp(x->name, y->name);
	if (c)
		return c;
	if (x->parent_module && y->parent_module && (c = strcmp(x->parent_module, y->parent_module)))
		return c;
	return x->recompute - y->recompute;
}

/* The table and the strings it made (normalised names, parent modules):
 * they live in the table, not in the trace's string table, so summarising
 * never changes the trace another thread may be reading. */
struct op_table_own {
	struct tl_op_table pub;	/* first: the public pointer is this */
	struct tl_strtab strs;
};

/* Mark ids of the table's own strings apart from the trace's in the keys */
#define OWN_ID 0x80000000u

int tl_ops_summary(struct tl_trace *tr, const struct tl_ops_opts *opts, struct tl_op_table **out)
{
	struct op_table_own *own = NULL;

	struct tl_ops_opts o = { 0 };
	struct tl_launcher_opts lo = { .sz = sizeof(lo) };
	struct tl_launcher_set *ls = NULL;
	TL_VEC(struct op_group) g = { 0 };
	struct tl_op_table *t = NULL;
	struct tl_kmap idx;
	double total = 0, cum = 0;
	size_t i, j;
	int err;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	lo.include_nccl = o.include_nccl;
	lo.detect_recompute = o.split_recompute;
	lo.with_python = o.by_module;
	err = tl_launchers(tr, &lo, &ls);
	if (err)
		return err;
	own = calloc(1, sizeof(*own));
	if (!own || tl_strtab_init(&own->strs)) {
		free(own);
		own = NULL;
		goto nomem;
	}
	t = &own->pub;
	if (tl_kmap_init(&idx, 256))
		goto nomem;
	for (i = 0; i < ls->n; i++) {
		const struct tl_launcher *l = &ls->v[i];
		const struct tl_ev *e = &tr->ev[l->uid];
		int rc = o.split_recompute ? l->recompute : -1;
		char *stack = NULL, pm[300], nbuf[512];
		const char *raw = tl_strtab_get(&tr->strs, e->name);
		/* the inference form (by module) names ops as its pseudo-op pass does */
		const char *norm = o.by_module ? tl_op_norm_name(raw, nbuf, sizeof(nbuf)) : raw;
		uint32_t gi, pm_id = 0, name_id = e->name;
		int64_t k2 = rc;

		if (norm != raw) {
			name_id = tl_strtab_intern(&own->strs, norm, strlen(norm));
			if (name_id == UINT32_MAX) {
				tl_kmap_free(&idx);
				goto nomem;
			}
			name_id |= OWN_ID;
		}

		if (o.by_module) {
			stack = tl_op_module_stack(tr, l->uid, pm, sizeof(pm));
			pm_id = tl_strtab_intern(&own->strs, pm, strlen(pm));
			if (!stack || pm_id == UINT32_MAX) {
				free(stack);
				tl_kmap_free(&idx);
				goto nomem;
			}
			k2 = pm_id;
		}
		if (!tl_kmap_get(&idx, name_id, k2, &gi)) {
			struct op_group ng = { 0 };

			ng.row.name = name_id & OWN_ID ?
					      tl_strtab_get(&own->strs, name_id & ~OWN_ID) :
					      tl_strtab_get(&tr->strs, name_id);
			ng.row.recompute = rc;
			ng.row.ex_uid = l->uid;
			if (o.by_module) {
				ng.row.parent_module = tl_strtab_get(&own->strs, pm_id);
				ng.row.call_stack = stack;
				stack = NULL;
			}
			gi = (uint32_t)g.n;
			if (tl_vec_push(&g, ng) || tl_kmap_put(&idx, name_id, k2, gi)) {
				free(stack);
				free((void *)ng.row.call_stack);
				tl_kmap_free(&idx);
				goto nomem;
			}
		}
		free(stack);
		g.v[gi].row.direct_us += l->direct_us;
		g.v[gi].row.subtree_us += l->subtree_us;
		g.v[gi].row.count++;
		for (j = 0; j < g.v[gi].cats.n; j++)
			if (g.v[gi].cats.v[j] == l->category)
				break;
		if (j == g.v[gi].cats.n && tl_vec_push(&g.v[gi].cats, l->category)) {
			tl_kmap_free(&idx);
			goto nomem;
		}
	}
	tl_kmap_free(&idx);

	if (g.n && !(t->v = calloc(g.n, sizeof(*t->v))))
		goto nomem;
	t->n = g.n;
	for (i = 0; i < g.n; i++) {
		struct tl_op_row *r = &t->v[i];

		*r = g.v[i].row;
		g.v[i].row.call_stack = NULL;	/* now owned by the table */
		tl_qsort(g.v[i].cats.v, g.v[i].cats.n, sizeof(*g.v[i].cats.v), cmp_str);
		r->categories = g.v[i].cats.v;
		r->ncategories = g.v[i].cats.n;
		g.v[i].cats.v = NULL;
	}
	/* by direct time, descending, as pandas' sort_values orders the groups:
	 * equal times as numpy's quicksort leaves them (tl_pandas_argsort_desc) */
	tl_qsort(t->v, t->n, sizeof(*t->v), cmp_key);
	if (tl_pandas_sort_desc(t->v, t->n, sizeof(*t->v), offsetof(struct tl_op_row, direct_us)))
		goto nomem;
	/* Percentages over the ms values, summed in row order like pandas. */
	for (i = 0; i < t->n; i++)
		total += t->v[i].direct_us / 1000;
	t->total_direct_us = total * 1000;
	for (i = 0; i < t->n; i++) {
		t->v[i].pct = total > 0 ? t->v[i].direct_us / 1000 / total * 100 : 0;
		cum += t->v[i].pct;
		t->v[i].cum_pct = cum;
	}
	*out = t;
	t = NULL;
	err = 0;
	goto out;
nomem:
	err = tl_err(-ENOMEM, "out of memory summarising ops");
out:
	for (i = 0; i < g.n; i++) {
		tl_vec_free(&g.v[i].cats);
		free((void *)g.v[i].row.call_stack);
	}
	tl_vec_free(&g);
	tl_op_table_free(t);
	tl_launcher_set_free(ls);
	return err;
}

void tl_op_table_free(struct tl_op_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++) {
		free(t->v[i].categories);
		free((void *)t->v[i].call_stack);
	}
	free(t->v);
	tl_strtab_free(&((struct op_table_own *)t)->strs);
	free(t);
}
