/* SPDX-License-Identifier: MIT */
/* TraceLens's diff_stats and diff_stats_unique_args_summary sheets, from the
 * merged call tree of two traces (analysis/trace_diff.c). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <tlreplay/report.h>
#include <tlreplay/trace_diff.h>
#include <tlreplay/tree.h>

#include "analysis/analysis_internal.h"
#include "report/report_internal.h"

static const char *const arg_keys[4] = { "Input Dims", "Input Strides", "Input type", "Concrete Inputs" };

struct drow {
	const char *kname, *cpu_name;
	int64_t cpu_uid, lca_id;
	uint64_t gpu_uid;
	int src;
	const char *args[4]; /* interned in the dctx's strs */
	double kt, busy;
	const char *lca; /* interned in the dctx's strs, or NULL */
};

struct dctx {
	const struct tl_trace_diff *d;
	struct drow *v;
	size_t n, cap;
	unsigned char *visited;
	struct td_vec ev;
	int err;
	int64_t last_op[2];	/* the args of the last CPU op seen, per side */
	const char *last_args[2][4];
	/* every args text and LCA name, once: a row per kernel launch, and
	 * most launches share their shapes and their ancestor's name */
	struct tl_strtab strs;
};

/* @s (malloc'ed, freed here) as the one copy of its text in the table;
 * NULL when out of memory. */
static const char *keep(struct dctx *c, char *s)
{
	uint32_t id;

	if (!s)
		return NULL;
	id = tl_strtab_intern(&c->strs, s, strlen(s));
	free(s);
	return id == UINT32_MAX ? NULL : tl_strtab_get(&c->strs, id);
}

static bool is_kernel(const struct td_side *s, int64_t uid)
{
	return uid >= 0 && (s->kind[uid] == TL_KIND_KERNEL || s->kind[uid] == TL_KIND_MEMCPY);
}

static bool on_path(const struct td_side *s, int64_t uid)
{
	return uid >= 0 && td_gpu_path(s, (uint64_t)uid);
}

/* (launching call, GPU event) UID pairs, to list GPU events as TraceLens
 * does: by launching call in file order, a graph's kernels in file order. */
struct gkey {
	int64_t launch, uid;
};

static int gkey_cmp(const void *pa, const void *pb)
{
	const struct gkey *a = pa, *b = pb;

	if (a->launch != b->launch)
		return a->launch < b->launch ? -1 : 1;
	return (a->uid > b->uid) - (a->uid < b->uid);
}

/* TraceLens's gpu_events of an op: every GPU event under it; none for a GPU event. */
static int add_gpu_events(const struct td_side *s, int64_t uid, struct td_vec *out)
{
	struct gkey *k = NULL;
	uint64_t *g = NULL;
	int64_t n, i;
	int err = 0;

	if (uid < 0 || tl_kind_is_gpu(s->kind[uid]) || !s->ngpu[uid])
		return 0;
	n = tl_event_gpu_events(s->tr, (uint64_t)uid, &g);
	if (n < 0)
		return (int)n;
	k = malloc((size_t)(n ? n : 1) * sizeof(*k));
	if (!k) {
		free(g);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		k[i].uid = (int64_t)g[i];
		k[i].launch = tl_event_parent(s->tr, g[i]);
	}
	tl_qsort(k, (size_t)n, sizeof(*k), gkey_cmp);
	for (i = 0; i < n && !err; i++)
		err = td_push(out, k[i].uid);
	free(k);
	free(g);
	return err;
}

/* Busy time of a set of GPU events: the length of the union of their intervals. */
static int busy_time(const struct td_side *s, const struct td_vec *v, double *out)
{
	struct { double a, b; } *iv, t;
	struct tl_event_info ev;
	size_t n = 0, i, j;
	double sum = 0, a = 0, b = 0;

	*out = 0;
	if (!v->n)
		return 0;
	iv = malloc(v->n * sizeof(*iv));
	if (!iv)
		return -ENOMEM;
	for (i = 0; i < v->n; i++) {
		if (tl_trace_event(s->tr, (uint64_t)v->v[i], &ev))
			continue;
		iv[n].a = ev.ts;
		iv[n].b = ev.ts + ev.dur;
		n++;
	}
	for (i = 1; i < n; i++) {	/* insertion sort: groups are small */
		t = iv[i];
		for (j = i; j > 0 && iv[j - 1].a > t.a; j--)
			iv[j] = iv[j - 1];
		iv[j] = t;
	}
	for (i = 0; i < n; i++) {
		if (i == 0 || iv[i].a > b) {
			if (i)
				sum += b - a;
			a = iv[i].a;
			b = iv[i].b;
		} else if (iv[i].b > b) {
			b = iv[i].b;
		}
	}
	if (n)
		sum += b - a;
	free(iv);
	*out = sum;
	return 0;
}

/* re.sub(r"\(\d+\)", "", name) */
static char *strip_counts(const char *name)
{
	size_t n = strlen(name), i = 0, o = 0;
	char *s = malloc(n + 1);

	if (!s)
		return NULL;
	while (i < n) {
		if (name[i] == '(' && name[i + 1] >= '0' && name[i + 1] <= '9') {
			size_t k = i + 1;

			while (name[k] >= '0' && name[k] <= '9')
				k++;
			if (name[k] == ')') {
				i = k + 1;
				continue;
			}
		}
		s[o++] = name[i++];
	}
	s[o] = 0;
	return s;
}

static char *lca_name_of(const struct tl_trace_diff *d, const struct tl_diff_node *n)
{
	char *a, *b, *r = NULL;

	if (n->side != TL_DIFF_BOTH)
		return strip_counts(n->name[n->side == TL_DIFF_BASE_ONLY ? 0 : 1]);
	(void)d;
	a = strip_counts(n->name[0]);
	b = strip_counts(n->name[1]);
	if (a && b) {
		if (!strcmp(a, b)) {
			r = a;
			a = NULL;
		} else if (asprintf(&r, "%s | %s", a, b) < 0) {
			r = NULL;
		}
	}
	free(a);
	free(b);
	return r;
}

static char *arg_repr(const cJSON *args, const char *key)
{
	const cJSON *v = args ? cJSON_GetObjectItemCaseSensitive(args, key) : NULL;

	if (!v || cJSON_IsNull(v))
		return strdup("");
	return rpt_pyrepr(v, true);
}

static void rows(struct dctx *c, int side, const struct td_vec *g, const char *lca, int64_t lca_id, double busy)
{
	const struct td_side *s = &c->d->s[side];
	size_t i;

	for (i = 0; i < g->n && !c->err; i++) {
		struct tl_event_info ev, op;
		struct drow *r;
		cJSON *args = NULL;
		int64_t p;

		if (tl_trace_event(s->tr, (uint64_t)g->v[i], &ev))
			continue;
		for (p = tl_event_parent(s->tr, (uint64_t)g->v[i]); p >= 0; p = tl_event_parent(s->tr, (uint64_t)p))
			if (s->kind[p] == TL_KIND_CPU_OP)
				break;
		if (p < 0 || tl_trace_event(s->tr, (uint64_t)p, &op))
			continue;
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 256;
			struct drow *nv = realloc(c->v, cap * sizeof(*nv));

			if (!nv) {
				c->err = -ENOMEM;
				return;
			}
			c->v = nv;
			c->cap = cap;
		}
		r = &c->v[c->n];
		memset(r, 0, sizeof(*r));
		c->n++;
		r->kname = ev.name;
		r->cpu_name = op.name;
		r->cpu_uid = p;
		r->src = side;
		r->kt = ev.dur;
		r->busy = rint(busy * 1000.0) / 1000.0;
		r->lca = lca;
		r->lca_id = lca_id;
		r->gpu_uid = (uint64_t)g->v[i];
		if (c->last_op[side] != p) {
			/* rows of one op come together: parse its args once */
			for (int k = 0; k < 4; k++)
				c->last_args[side][k] = NULL;
			c->last_op[side] = -1;
			if (tl_trace_event_args(s->tr, (uint64_t)p, &args) == -ENOMEM) {
				c->err = -ENOMEM;
				return;
			}
			for (int k = 0; k < 4; k++)
				if (!(c->last_args[side][k] = keep(c, arg_repr(args, arg_keys[k]))))
					c->err = -ENOMEM;
			cJSON_Delete(args);
			if (c->err)
				return;
			c->last_op[side] = p;
		}
		for (int k = 0; k < 4; k++)
			r->args[k] = c->last_args[side][k];
	}
}

/* Rows for one side of an LCA: @g's GPU events, their busy time. */
static void side_rows(struct dctx *c, int side, struct td_vec *g, const char *lca, int64_t lca_id)
{
	double busy = 0;

	if (!c->err)
		c->err = busy_time(&c->d->s[side], g, &busy);
	if (!c->err)
		rows(c, side, g, lca, lca_id, busy);
}

/* TraceLens's generate_diff_stats traversal. @parent: the matched node above, -1 at a root. */
static void walk(struct dctx *c, uint32_t id, int64_t parent)
{
	const struct tl_trace_diff *d = c->d;
	struct tl_diff_node n, ch, pn;
	size_t i;

	if (c->err || c->visited[id] || tl_trace_diff_node(d, id, &n))
		return;
	if (n.side == TL_DIFF_BOTH) {
		if (on_path(&d->s[0], n.uid[0]) && on_path(&d->s[1], n.uid[1])) {
			struct td_vec g[2] = { { 0 } };
			bool any = false;

			for (i = 0; i < n.nchildren && !c->err; i++) {
				tl_trace_diff_node(d, n.children[i], &ch);
				for (int k = 0; k < 2; k++) {
					if (ch.side == TL_DIFF_BOTH || !on_path(&d->s[k], ch.uid[k]))
						continue;
					any = true;
					c->err = add_gpu_events(&d->s[k], ch.uid[k], &g[k]);
					if (!c->err && is_kernel(&d->s[k], ch.uid[k]))
						c->err = td_push(&g[k], ch.uid[k]);
				}
			}
			if (!c->err && (any || (is_kernel(&d->s[0], n.uid[0]) && is_kernel(&d->s[1], n.uid[1])))) {
				const char *lca = keep(c, lca_name_of(d, &n));

				if (!lca)
					c->err = -ENOMEM;
				for (int k = 0; k < 2 && !c->err; k++) {
					if (is_kernel(&d->s[k], n.uid[k]))
						c->err = td_push(&g[k], n.uid[k]);
					if (!c->err)
						side_rows(c, k, &g[k], lca, id);
				}
				c->visited[id] = 1;
				for (i = 0; i < n.nchildren; i++) {
					tl_trace_diff_node(d, n.children[i], &ch);
					for (int k = 0; k < 2; k++)
						if (ch.side != TL_DIFF_BOTH && on_path(&d->s[k], ch.uid[k]))
							c->visited[ch.id] = 1;
				}
			}
			free(g[0].v);
			free(g[1].v);
		}
	} else {
		int k = n.side == TL_DIFF_BASE_ONLY ? 0 : 1;

		if (on_path(&d->s[k], n.uid[k])) {
			struct td_vec g = { 0 };
			const char *lca = NULL;

			if (parent >= 0) {
				tl_trace_diff_node(d, (uint32_t)parent, &pn);
				lca = keep(c, strip_counts(pn.name[k] ? pn.name[k] : ""));
				if (!lca)
					c->err = -ENOMEM;
			}
			if (!c->err)
				c->err = add_gpu_events(&d->s[k], n.uid[k], &g);
			if (!c->err)
				side_rows(c, k, &g, lca, parent);
			free(g.v);
		}
		c->visited[id] = 1;
		return;
	}
	if (on_path(&d->s[0], n.uid[0]) || on_path(&d->s[1], n.uid[1]))
		for (i = 0; i < n.nchildren; i++)
			walk(c, n.children[i], id);
}

static void rows_free(void *p)
{
	struct dctx *c = p;

	if (!c)
		return;
	tl_strtab_free(&c->strs);
	free(c->v);
	free(c->visited);
	free(c->ev.v);
	free(c);
}

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static bool row_eq(const struct drow *a, const struct drow *b)
{
	if (!str_eq(a->kname, b->kname) || !str_eq(a->cpu_name, b->cpu_name) || a->cpu_uid != b->cpu_uid ||
	    a->kt != b->kt || a->busy != b->busy || !str_eq(a->lca, b->lca) || a->lca_id != b->lca_id ||
	    a->gpu_uid != b->gpu_uid)
		return false;
	for (int k = 0; k < 4; k++)
		if (!str_eq(a->args[k], b->args[k]))
			return false;
	return true;
}

/* TraceLens's identical_traces: the baseline's rows equal the variant's. */
static bool identical(const struct dctx *c)
{
	size_t i, j = 0, n0 = 0;

	for (i = 0; i < c->n; i++)
		n0 += c->v[i].src == 0;
	if (n0 * 2 != c->n)
		return false;
	for (i = 0; i < c->n; i++) {
		if (c->v[i].src)
			continue;
		while (j < c->n && c->v[j].src != 1)
			j++;
		if (j == c->n || !row_eq(&c->v[i], &c->v[j]))
			return false;
		j++;
	}
	return true;
}

/* The rows, made on first use and kept with the diff for the other sheet. */
static int collect(const struct tl_trace_diff *cd, struct dctx **out)
{
	struct tl_trace_diff *d = (struct tl_trace_diff *)cd;	/* a cache only */
	struct dctx *c;
	size_t i;
	int err;

	if (d->stats) {
		*out = d->stats;
		return 0;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->d = d;
	c->last_op[0] = c->last_op[1] = -1;
	c->visited = calloc(tl_trace_diff_nnodes(d) + 1, 1);
	if (!c->visited || tl_strtab_init(&c->strs))
		c->err = -ENOMEM;
	for (i = 0; i < tl_trace_diff_nroots(d) && !c->err; i++)
		walk(c, tl_trace_diff_root(d, i), -1);
	err = c->err;
	if (err) {
		rows_free(c);
		return err;
	}
	d->stats = c;
	d->stats_free = rows_free;
	*out = c;
	return 0;
}

static const char *const stats_cols[] = {
	"name", "cpu_op_name", "cpu_op_uid", "source", "Input Dims", "Input Strides", "Input type",
	"Concrete Inputs", "kernel_time", "busy_time", "lowest_common_ancestor_name",
	"lowest_common_ancestor_id", "gpu_op_uid", "nn_module_stack", "nn_module_parent",
};

/* pandas writes the column as floats ("20.0") once one id is missing. */
static struct tl_cell lca_id_cell(int64_t id, bool as_float)
{
	if (id < 0)
		return tl_cell_empty();
	return as_float ? tl_cell_num((double)id) : tl_cell_int(id);
}

int tl_sheet_diff_stats(const struct tl_trace_diff *d, struct tl_sheet **out)
{
	struct tl_sheet *sh = NULL;
	static const struct dctx none;
	const struct dctx *c;
	struct dctx *cp = NULL;
	bool same, any_missing = false;
	size_t i;
	int err;

	*out = NULL;
	err = collect(d, &cp);
	c = cp ? cp : &none;
	if (!err)
		err = tl_sheet_new("diff_stats", RPT_N(stats_cols), stats_cols, &sh);
	same = !err && c->n && identical(c);
	for (i = 0; i < c->n; i++)
		any_missing |= c->v[i].lca_id < 0 && !(same && c->v[i].src);
	for (i = 0; i < c->n && !err; i++) {
		const struct drow *r = &c->v[i];
		struct tl_cell row[RPT_N(stats_cols)] = {
			tl_cell_str(r->kname), tl_cell_str(r->cpu_name), tl_cell_int(r->cpu_uid),
			tl_cell_str(r->src ? "trace2" : "trace1"), tl_cell_str(r->args[0]),
			tl_cell_str(r->args[1]), tl_cell_str(r->args[2]), tl_cell_str(r->args[3]),
			tl_cell_num(r->kt), tl_cell_num(r->busy), tl_cell_str(r->lca), lca_id_cell(r->lca_id, any_missing),
			tl_cell_int((long long)r->gpu_uid), tl_cell_str("root"), tl_cell_str("root"),
		};

		if (same && r->src)
			continue;
		err = tl_sheet_add_row(sh, row);
	}
	if (!err && same)
		err = rpt_sheet_drop_col(sh, "source");
	return rpt_sheet_done(sh, err, out);
}

/* ------------------------------------------------------------ unique args */

struct grp {
	const struct drow *r;	/* first row of the group */
	size_t count;
	double sum;
	const char *key[14];	/* the columns as text, for sorting */
	char *own[4];		/* the ones made here: count, uid, busy, mean */
};

static const char *const ua_cols[] = {
	"name", "operation_count", "cpu_op_name", "cpu_op_uid", "source", "Input Dims", "Input Strides",
	"Input type", "Concrete Inputs", "busy_time", "lowest_common_ancestor_name", "nn_module_stack",
	"nn_module_parent", "kernel_time_mean", "kernel_time_sum",
};

static bool same_group(const struct drow *a, const struct drow *b)
{
	if (!str_eq(a->kname, b->kname) || !str_eq(a->cpu_name, b->cpu_name) || a->cpu_uid != b->cpu_uid ||
	    a->src != b->src || a->busy != b->busy || !str_eq(a->lca, b->lca))
		return false;
	for (int k = 0; k < 4; k++)
		if (!str_eq(a->args[k], b->args[k]))
			return false;
	return true;
}

static int str_cmp(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") ? strcmp(a ? a : "", b ? b : "") : (!a - !b);
}

/* An order in which rows of one group are neighbours (rows are kept in
 * their order within a group: the sum adds them as pandas does). */
static int row_cmp(const void *pa, const void *pb)
{
	const struct drow *a = *(const struct drow *const *)pa, *b = *(const struct drow *const *)pb;
	int r;

	if (a->cpu_uid != b->cpu_uid)
		return a->cpu_uid < b->cpu_uid ? -1 : 1;
	if (a->src != b->src)
		return a->src - b->src;
	if (a->busy != b->busy)
		return a->busy < b->busy ? -1 : 1;
	if ((r = str_cmp(a->kname, b->kname)) || (r = str_cmp(a->cpu_name, b->cpu_name)) ||
	    (r = str_cmp(a->lca, b->lca)))
		return r;
	for (int k = 0; k < 4; k++)
		if ((r = str_cmp(a->args[k], b->args[k])))
			return r;
	return a < b ? -1 : a > b;
}

static int grp_cmp(const void *pa, const void *pb)
{
	const struct grp *a = pa, *b = pb;
	int r;

	if (a->sum != b->sum)
		return a->sum > b->sum ? -1 : 1;
	for (int k = 0; k < 14; k++)
		if ((r = strcmp(a->key[k], b->key[k])))
			return r;
	return 0;
}

static char *num_text(double v)
{
	char b[64];

	tl_fmt_pyfloat(b, sizeof(b), v);
	return strdup(b);
}

static char *int_text(long long v)
{
	char *s;

	return asprintf(&s, "%lld", v) < 0 ? NULL : s;
}

/* ------------------------------------------------ TraceLens's op renaming */

/* TraceLens (get_cpu_op_to_kernels_json) renames, in the unique-args sheet,
 * the CPU ops that stand for each other under one ancestor: "aten::add" and
 * "my::add" become "add", ops named alike in their first 20 characters
 * "a/b", and ops of one nn.Module parent that module's name. Without python
 * functions every op's module is "root", so that is the last resort. */
struct rename {
	const char **from;
	char **to;
	size_t n, cap;
};

static char *common_name(const char *n1, const char *n2)
{
	const char *c1 = n1, *c2 = n2, *p;
	char *r;

	while ((p = strstr(c1, "::")))
		c1 = p + 2;
	while ((p = strstr(c2, "::")))
		c2 = p + 2;
	if (!strcmp(c1, c2) || strstr(c2, c1))
		return strdup(c1);
	if (strstr(c1, c2))
		return strdup(c2);
	if (!strncmp(c1, c2, 20) && (strlen(c1) >= 20) == (strlen(c2) >= 20) &&
	    (strlen(c1) >= 20 || !strcmp(c1, c2)))
		return asprintf(&r, "%s/%s", c1, c2) < 0 ? NULL : r;
	return strdup("root");
}

static int rename_set(struct rename *rn, const char *from, const char *to)
{
	char *t = strdup(to);

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < rn->n; i++)
		if (!strcmp(rn->from[i], from)) {
			free(rn->to[i]);
			rn->to[i] = t;
			return 0;
		}
	if (rn->n == rn->cap) {
		size_t cap = rn->cap ? rn->cap * 2 : 16;
		const char **f = realloc(rn->from, cap * sizeof(*f));
		char **tt;

		if (!f) {
			free(t);
			return -ENOMEM;
		}
		rn->from = f;
		tt = realloc(rn->to, cap * sizeof(*tt));
		if (!tt) {
			free(t);
			return -ENOMEM;
		}
		rn->to = tt;
		rn->cap = cap;
	}
	rn->from[rn->n] = from;
	rn->to[rn->n++] = t;
	return 0;
}

static const char *rename_get(const struct rename *rn, const char *name)
{
	for (size_t i = 0; name && i < rn->n; i++)
		if (!strcmp(rn->from[i], name))
			return rn->to[i];
	return name;
}

static void rename_free(struct rename *rn)
{
	for (size_t i = 0; i < rn->n; i++)
		free(rn->to[i]);
	free(rn->from);
	free(rn->to);
}

/* Distinct names, in first-seen order. */
struct names {
	const char **v;
	size_t n;
};

static bool names_has(const struct names *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (str_eq(l->v[i], s))
			return true;
	return false;
}

static void names_del(struct names *l, size_t i)
{
	memmove(l->v + i, l->v + i + 1, (l->n - i - 1) * sizeof(*l->v));
	l->n--;
}

static int pair_rename(struct rename *rn, const char *n1, const char *n2)
{
	char *cn = common_name(n1, n2);
	int err;

	if (!cn)
		return -ENOMEM;
	err = rename_set(rn, n2, cn);
	if (!err)
		err = rename_set(rn, n1, cn);
	free(cn);
	return err;
}

/* One ancestor's ops on each side (@l[0], @l[1]). */
static int rename_lca(struct rename *rn, struct names l[2])
{
	int err = 0;

	if (l[0].n == l[1].n) {
		for (size_t i = 0; i < l[0].n && !err; i++)
			if (!str_eq(l[0].v[i], l[1].v[i]) && l[0].v[i] && l[1].v[i])
				err = pair_rename(rn, l[0].v[i], l[1].v[i]);
		return err;
	}
	/* names on both sides pair with themselves; the rest pair in order */
	for (size_t i = 0; i < l[0].n;) {
		size_t j;

		for (j = 0; j < l[1].n && !str_eq(l[0].v[i], l[1].v[j]); j++)
			;
		if (j < l[1].n) {
			names_del(&l[1], j);
			names_del(&l[0], i);
		} else {
			i++;
		}
	}
	for (size_t i = 0; i < l[0].n && l[1].n && !err; i++) {
		if (l[0].v[i] && l[1].v[0])
			err = pair_rename(rn, l[0].v[i], l[1].v[0]);
		names_del(&l[1], 0);
	}
	return err;
}

static int build_renames(const struct dctx *c, struct rename *rn)
{
	size_t nn = tl_trace_diff_nnodes(c->d), i, k;
	size_t *cnt = calloc(nn + 1, sizeof(*cnt)), *start = calloc(nn + 2, sizeof(*start));
	size_t *rows_of = malloc((c->n + 1) * sizeof(*rows_of)), *order = malloc((nn + 1) * sizeof(*order));
	const char **pool = malloc((2 * c->n + 2) * sizeof(*pool));
	const char **seen = malloc((2 * c->n + 2) * sizeof(*seen));
	size_t norder = 0, nseen = 0;
	int err = 0;

	if (!cnt || !start || !rows_of || !order || !pool || !seen) {
		err = -ENOMEM;
		goto out;
	}
	/* the rows of each ancestor, ancestors in first-seen order */
	for (i = 0; i < c->n; i++) {
		int64_t l = c->v[i].lca_id;

		if (l < 0)
			continue;
		if (!cnt[l]++)
			order[norder++] = (size_t)l;
	}
	for (i = 0; i < nn; i++)
		start[i + 1] = start[i] + cnt[i];
	memset(cnt, 0, (nn + 1) * sizeof(*cnt));
	for (i = 0; i < c->n; i++)
		if (c->v[i].lca_id >= 0)
			rows_of[start[c->v[i].lca_id] + cnt[c->v[i].lca_id]++] = i;
	for (k = 0; k < norder && !err; k++) {
		size_t l = order[k], r, used = 0;
		struct names nm[2] = { { pool, 0 }, { NULL, 0 } };
		bool all_seen = true;

		/* side 0's names, then side 1's, in one scratch array */
		for (int s = 0; s < 2; s++) {
			nm[s].v = pool + used;
			for (r = start[l]; r < start[l] + cnt[l]; r++) {
				const struct drow *w = &c->v[rows_of[r]];

				if (w->src == s && !names_has(&nm[s], w->cpu_name))
					nm[s].v[nm[s].n++] = w->cpu_name;
			}
			used += nm[s].n;
		}
		if (!nm[0].n || !nm[1].n)
			continue;
		for (int s = 0; s < 2; s++)
			for (r = 0; r < nm[s].n; r++) {
				size_t q;

				for (q = 0; q < nseen && !str_eq(seen[q], nm[s].v[r]); q++)
					;
				all_seen &= q < nseen;
			}
		if (all_seen)
			continue;
		for (int s = 0; s < 2; s++)
			for (r = 0; r < nm[s].n; r++)
				if (nseen < 2 * c->n + 2) {
					size_t q;

					for (q = 0; q < nseen && !str_eq(seen[q], nm[s].v[r]); q++)
						;
					if (q == nseen)
						seen[nseen++] = nm[s].v[r];
				}
		err = rename_lca(rn, nm);
	}
out:
	free(cnt);
	free(start);
	free(rows_of);
	free(order);
	free(pool);
	free(seen);
	return err;
}

int tl_sheet_diff_stats_unique_args(const struct tl_trace_diff *d, struct tl_sheet **out)
{
	struct tl_sheet *sh = NULL;
	struct grp *g = NULL;
	const struct drow **ord = NULL;
	struct rename rn = { 0 };
	size_t ng = 0, nord = 0, i;
	static const struct dctx none;
	const struct dctx *c;
	struct dctx *cp = NULL;
	bool same;
	int err;

	*out = NULL;
	err = collect(d, &cp);
	c = cp ? cp : &none;
	if (!err)
		err = tl_sheet_new("diff_stats_unique_args_summary", RPT_N(ua_cols), ua_cols, &sh);
	same = !err && c->n && identical(c);
	if (!err && c->n && !(g = calloc(c->n, sizeof(*g))))
		err = -ENOMEM;
	/* group: sort the rows by the grouping columns, then merge neighbours */
	if (!err && c->n && !(ord = malloc(c->n * sizeof(*ord))))
		err = -ENOMEM;
	for (i = 0; i < c->n && !err; i++)
		if (!(same && c->v[i].src))
			ord[nord++] = &c->v[i];
	if (!err)
		tl_qsort(ord, nord, sizeof(*ord), row_cmp);
	for (i = 0; i < nord && !err; i++) {
		if (!ng || !same_group(g[ng - 1].r, ord[i]))
			g[ng++].r = ord[i];
		g[ng - 1].count++;
		g[ng - 1].sum += ord[i]->kt;
	}
	for (i = 0; i < ng && !err; i++) {
		const struct drow *r = g[i].r;
		const char **k = g[i].key;

		k[0] = r->kname ? r->kname : "";
		k[1] = g[i].own[0] = int_text((long long)g[i].count);
		k[2] = r->cpu_name ? r->cpu_name : "";
		k[3] = g[i].own[1] = int_text(r->cpu_uid);
		k[4] = r->src ? "trace2" : "trace1";
		for (int a = 0; a < 4; a++)
			k[5 + a] = r->args[a];
		k[9] = g[i].own[2] = num_text(r->busy);
		k[10] = r->lca ? r->lca : "nan";
		k[11] = "root";
		k[12] = "root";
		k[13] = g[i].own[3] = num_text(g[i].sum / (double)g[i].count);
		for (int a = 0; a < 14; a++)
			if (!k[a])
				err = -ENOMEM;
	}
	if (!err)
		tl_qsort(g, ng, sizeof(*g), grp_cmp);
	if (!err)
		err = build_renames(c, &rn);
	for (i = 0; i < ng && !err; i++) {
		const struct drow *r = g[i].r;
		struct tl_cell row[RPT_N(ua_cols)] = {
			tl_cell_str(r->kname), tl_cell_int((long long)g[i].count), tl_cell_str(rename_get(&rn, r->cpu_name)),
			tl_cell_int(r->cpu_uid), tl_cell_str(r->src ? "trace2" : "trace1"), tl_cell_str(r->args[0]),
			tl_cell_str(r->args[1]), tl_cell_str(r->args[2]), tl_cell_str(r->args[3]),
			tl_cell_num(r->busy), tl_cell_str(r->lca), tl_cell_str("root"), tl_cell_str("root"),
			tl_cell_num(g[i].sum / (double)g[i].count), tl_cell_num(g[i].sum),
		};

		err = tl_sheet_add_row(sh, row);
	}
	if (!err && same)
		err = rpt_sheet_drop_col(sh, "source");
	for (i = 0; i < ng; i++)
		for (int a = 0; a < 4; a++)
			free(g[i].own[a]);
	free(g);
	free(ord);
	rename_free(&rn);
	return rpt_sheet_done(sh, err, out);
}
