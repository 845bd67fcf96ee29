/* SPDX-License-Identifier: MIT */
/* ops_unique_args of the inference report (--by-module): TraceLens groups
 * the kernel launchers by their parent nn.Module and by how many kernels each
 * launched too, shows the first launcher's module call stack, keeps the
 * launchers that recorded no args (pandas groups their "None"s) and names an
 * op as the summaries do (sglang_profiler's call counters dropped). The groups
 * are made here, in launch order, handed to the plain builder, and its sheet
 * gets the three columns inserted where TraceLens puts them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "analysis/analysis_internal.h"
#include "report/report_internal.h"
#include "trace/trace_internal.h"

#define PM_LEN 320

#define KEY_SEP '\x1f'	/* never in JSON text or event names */
#define KEY_PARTS 8

static const char *const arg_keys[4] = { "Input Dims", "Input type", "Input Strides",
					 "Concrete Inputs" };

/* One group: its fields (pointing into @text) and members. */
struct part {
	struct tl_launcher_group g;	/* uids malloc'ed */
	char *text;			/* the key, split at KEY_SEP */
	char pm[PM_LEN];
	char *stack;			/* of its first launcher, malloc'ed */
	size_t nk;
};

static int cmp_part(const void *a, const void *b)
{
	const struct part *x = a, *y = b;

	if (x->g.direct.sum != y->g.direct.sum)
		return x->g.direct.sum > y->g.direct.sum ? -1 : 1;
	return x->g.ex_uid < y->g.ex_uid ? -1 : x->g.ex_uid > y->g.ex_uid;
}

static void agg(double *v, size_t n, struct tl_time_agg *a)
{
	struct tl_agg t;

	tl_aggregate(v, n, &t);
	*a = (struct tl_time_agg){ .sum = t.sum, .mean = t.mean, .median = t.median, .std = t.std,
				   .min = t.min, .max = t.max };
}

static int put(char **b, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (tl_grow((void **)b, cap, *len + n + 2, 1))
		return -ENOMEM;
	memcpy(*b + *len, s, n);
	*len += n;
	(*b)[(*len)++] = KEY_SEP;
	(*b)[*len] = 0;
	return 0;
}

/* The grouping key of launcher @l into *b (length *len), the module fields
 * into @pm and *stack (malloc'ed). */
static int launcher_key(struct tl_trace *tr, const struct tl_launcher *l, char **b, size_t *len,
			size_t *cap, char *pm, char **stack)
{
	const struct tl_ev *e = &tr->ev[l->uid];
	const char *head[4];
	char nbuf[512], nk[24];
	cJSON *args = NULL;
	size_t k;
	int err = 0;

	*len = 0;
	*stack = tl_op_module_stack(tr, l->uid, pm, PM_LEN);
	if (!*stack)
		return -ENOMEM;
	err = tl_trace_event_args(tr, l->uid, &args);
	if (err == -ENOMEM)
		return err;
	head[0] = tl_op_norm_name(tl_ev_name(tr, e), nbuf, sizeof(nbuf));
	head[1] = l->category ? l->category : "";
	head[2] = tl_tok_display(tr, e->pid);
	head[3] = tl_tok_display(tr, e->tid);
	for (k = 0; k < 4 && !err; k++)
		err = put(b, len, cap, head[k], strlen(head[k]));
	for (k = 0; k < 4 && !err; k++) {
		const cJSON *f = args ? cJSON_GetObjectItemCaseSensitive(args, arg_keys[k]) : NULL;

		if (f)
			err = tl_json_compact(f, b, len, cap);
		if (!err)
			err = put(b, len, cap, "", 0);
	}
	snprintf(nk, sizeof(nk), "%u", l->nkernels);
	if (!err)
		err = put(b, len, cap, pm, strlen(pm));
	if (!err)
		err = put(b, len, cap, nk, strlen(nk));
	cJSON_Delete(args);
	return err ? -ENOMEM : 0;
}

/* @plain's rows with parent_module after "op category", num_kernels after
 * "Concrete Inputs" and call_stack after "ex_UID". */
static int widen(const struct tl_sheet *plain, const struct part *v, struct tl_sheet **out)
{
	size_t nc = tl_sheet_ncols(plain), i, j, c;
	const char **cols = calloc(nc + 3, sizeof(*cols));
	struct tl_cell *row = calloc(nc + 3, sizeof(*row));
	struct tl_sheet *sh = NULL;
	int err = -ENOMEM;

	if (!cols || !row)
		goto out;
	for (c = 0, j = 0; j < nc; j++) {
		const char *name = tl_sheet_col(plain, j);

		cols[c++] = name;
		if (!strcmp(name, "op category"))
			cols[c++] = "parent_module";
		else if (!strcmp(name, "Concrete Inputs"))
			cols[c++] = "num_kernels";
		else if (!strcmp(name, "ex_UID"))
			cols[c++] = "call_stack";
	}
	err = tl_sheet_new(tl_sheet_name(plain), c, cols, &sh);
	for (i = 0; !err && i < tl_sheet_nrows(plain); i++) {
		for (c = 0, j = 0; j < nc; j++) {
			const char *name = tl_sheet_col(plain, j);

			row[c++] = *tl_sheet_cell(plain, i, j);
			if (!strcmp(name, "op category"))
				row[c++] = tl_cell_str(v[i].pm);
			else if (!strcmp(name, "Concrete Inputs"))
				row[c++] = tl_cell_int((long long)v[i].nk);
			else if (!strcmp(name, "ex_UID"))
				row[c++] = tl_cell_str(v[i].stack);
		}
		err = tl_sheet_add_row(sh, row);
	}
out:
	free(cols);
	free(row);
	return rpt_sheet_done(sh, err, out);
}

/* Group @p's fields from its key text; its members' aggregates. */
static int fill(struct part *p, const struct tl_launcher_set *ls, const uint32_t *members,
		size_t n, double *tmp)
{
	const char **dst[KEY_PARTS] = { &p->g.name, &p->g.category, &p->g.pid, &p->g.tid,
				       &p->g.input_dims, &p->g.input_type, &p->g.input_strides,
				       &p->g.concrete_inputs };
	char *s = p->text;
	size_t k;

	for (k = 0; k < KEY_PARTS; k++) {
		char *sep = strchr(s, KEY_SEP);

		*dst[k] = s;
		if (sep) {
			*sep = 0;
			s = sep + 1;
		}
	}
	p->g.uids = malloc(n * sizeof(*p->g.uids));
	if (!p->g.uids)
		return -ENOMEM;
	p->g.count = n;
	for (k = 0; k < n; k++)
		p->g.uids[k] = ls->v[members[k]].uid;
	p->g.ex_uid = p->g.uids[0];
	p->nk = ls->v[members[0]].nkernels;
	for (k = 0; k < n; k++)
		tmp[k] = ls->v[members[k]].direct_us;
	agg(tmp, n, &p->g.direct);
	for (k = 0; k < n; k++)
		tmp[k] = ls->v[members[k]].subtree_us;
	agg(tmp, n, &p->g.subtree);
	return 0;
}

int rpt_sheet_unique_args_infer(const struct tl_launcher_set *ls, struct tl_trace *tr,
				struct rpt_meta *meta, struct tl_sheet **out)
{
	struct tl_launcher_group_set plain_set = { 0 };
	struct tl_launcher_group *gv = NULL;
	struct tl_sheet *plain = NULL;
	struct tl_strtab keys;
	struct part *v = NULL;
	uint32_t *gid = calloc(ls->n + 1, sizeof(*gid)), *members = NULL;
	size_t *start = NULL, *pos = NULL, i, ng = 0, len = 0, cap = 0;
	double *tmp = malloc((ls->n + 1) * sizeof(*tmp));
	char *key = NULL;
	int err = -ENOMEM;

	if (tl_strtab_init(&keys)) {
		free(gid);
		free(tmp);
		return -ENOMEM;
	}
	members = malloc((ls->n + 1) * sizeof(*members));
	v = calloc(ls->n + 1, sizeof(*v));
	if (!gid || !tmp || !members || !v)
		goto out;
	err = tl_trace_prepare_display(tr);
	for (i = 0; !err && i < ls->n; i++) {
		char pm[PM_LEN], *stack = NULL;

		err = launcher_key(tr, &ls->v[i], &key, &len, &cap, pm, &stack);
		if (!err) {
			gid[i] = tl_strtab_intern(&keys, key, len);
			err = gid[i] == UINT32_MAX ? -ENOMEM : 0;
		}
		/* a new key: the group's module fields are its first launcher's */
		if (!err && gid[i] > ng) {
			struct part *p = &v[ng++];

			p->text = strndup(key, len);
			memcpy(p->pm, pm, sizeof(pm));
			p->stack = stack;
			stack = NULL;
			err = p->text ? 0 : -ENOMEM;
		}
		free(stack);
	}
	if (err)
		goto out;
	/* members of each group in launch order: counting sort on group id */
	err = -ENOMEM;
	start = calloc(ng + 2, sizeof(*start));
	pos = malloc((ng + 2) * sizeof(*pos));
	gv = calloc(ng + 1, sizeof(*gv));
	if (!start || !pos || !gv)
		goto out;
	for (i = 0; i < ls->n; i++)
		start[gid[i]]++;
	for (i = 1; i <= ng + 1; i++)
		start[i] += start[i - 1];
	memcpy(pos, start, (ng + 2) * sizeof(*pos));
	for (i = 0; i < ls->n; i++)
		members[pos[gid[i] - 1]++] = (uint32_t)i;
	for (i = 0, err = 0; i < ng && !err; i++)
		err = fill(&v[i], ls, members + start[i], start[i + 1] - start[i], tmp);
	if (err)
		goto out;
	tl_qsort(v, ng, sizeof(*v), cmp_part);
	for (i = 0; i < ng; i++)
		gv[i] = v[i].g;
	plain_set.n = ng;
	plain_set.v = gv;
	err = rpt_sheet_unique_args(&plain_set, NULL, tr, meta, &plain);
	if (!err)
		err = widen(plain, v, out);
out:
	tl_sheet_free(plain);
	for (i = 0; v && i < ng; i++) {
		free(v[i].g.uids);
		free(v[i].text);
		free(v[i].stack);
	}
	tl_strtab_free(&keys);
	free(key);
	free(gv);
	free(v);
	free(start);
	free(pos);
	free(members);
	free(gid);
	free(tmp);
	return err;
}
