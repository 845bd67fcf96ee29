/* SPDX-License-Identifier: MIT */
/* ops_summary and ops_summary_by_category: the kernel launchers grouped by
 * op name, and by op category, as TraceLens's report writes them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

/* "['GEMM', 'other']": Python's repr of the list of categories */
static void cats_repr(char *buf, size_t n, const struct tl_op_row *r)
{
	size_t i, len = 0;

	len += (size_t)snprintf(buf + len, n - len, "[");
	for (i = 0; i < r->ncategories && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s'%s'", i ? ", " : "", r->categories[i]);
	if (len < n)
		snprintf(buf + len, n - len, "]");
}

int tl_sheet_ops_summary(const struct tl_op_table *t, const struct tl_ops_opts *o, struct tl_sheet **out)
{
	/* the inference report (by parent module) orders its columns its own way */
	static const char *const by_module[] = {
		"name", "parent_module", "total_direct_kernel_time_sum",
		"total_subtree_kernel_time_sum", "total_subtree_kernel_time_count",
		"total_direct_kernel_time_ms", "Count", "Categories", "call_stack_first",
		"Percentage (%)", "Cumulative Percentage (%)", "ex_UID",
	};
	static const char *const plain[] = {
		"name", "is_recompute", "total_direct_kernel_time_sum", "total_subtree_kernel_time_sum",
		"total_direct_kernel_time_ms", "total_subtree_kernel_time_ms", "Count",
		"Categories", "Percentage (%)", "Cumulative Percentage (%)", "ex_UID",
	};
	bool mod = o && o->by_module, rc = o && o->split_recompute;
	const char *cols[RPT_N(plain)];
	struct tl_cell row[RPT_N(by_module)];
	struct tl_sheet *sh = NULL;
	size_t nc = 0, i;
	int err;

	if (mod) {
		err = tl_sheet_new("ops_summary", RPT_N(by_module), by_module, &sh);
	} else {
		for (i = 0; i < RPT_N(plain); i++)
			if (i != 1 || rc)
				cols[nc++] = plain[i];
		err = tl_sheet_new("ops_summary", nc, cols, &sh);
	}
	if (err)
		return err;
	for (i = 0; i < t->n; i++) {
		const struct tl_op_row *r = &t->v[i];
		char cats[512];
		size_t c = 0;

		cats_repr(cats, sizeof(cats), r);
		row[c++] = tl_cell_str(r->name);
		if (mod) {
			row[c++] = tl_cell_str(r->parent_module ? r->parent_module : "");
			row[c++] = tl_cell_num(r->direct_us);
			row[c++] = tl_cell_num(r->subtree_us);
			row[c++] = tl_cell_int((long long)r->count);
			row[c++] = tl_cell_num(r->direct_us / 1000);
			row[c++] = tl_cell_int((long long)r->count);
			row[c++] = tl_cell_str(cats);
			row[c++] = tl_cell_str(r->call_stack ? r->call_stack : "");
		} else {
			if (rc)
				row[c++] = tl_cell_bool(r->recompute > 0);
			row[c++] = tl_cell_num(r->direct_us);
			row[c++] = tl_cell_num(r->subtree_us);
			row[c++] = tl_cell_num(r->direct_us / 1000);
			row[c++] = tl_cell_num(r->subtree_us / 1000);
			row[c++] = tl_cell_int((long long)r->count);
			row[c++] = tl_cell_str(cats);
		}
		row[c++] = tl_cell_num(r->pct);
		row[c++] = tl_cell_num(r->cum_pct);
		row[c++] = tl_cell_int((long long)r->ex_uid);
		err = tl_sheet_add_row(sh, row);
		if (err)
			break;
	}
	return rpt_sheet_done(sh, err, out);
}

/* ------------------------------------------------------ by category */

struct cat_acc {
	const char *category;
	const char *module;		/* by module only, else "" */
	const char *call_stack;		/* of the group's first launcher (by module) */
	uint64_t ex_uid;
	int recompute;
	unsigned long long count;
	double direct_us;
};

static int cmp_cat_key(const void *a, const void *b)
{
	const struct cat_acc *x = a, *y = b;
	int c = strcmp(x->category, y->category);

	if (!c)
		c = strcmp(x->module, y->module);
	return c ? c : x->recompute - y->recompute;
}

/* pandas' groupby sorts by key; the sort by time that follows keeps that
 * order among equal times, so a stable merge of the two is what we need:
 * qsort by time with the key as the tie-break gives the same result. */
static int cmp_cat_time(const void *a, const void *b)
{
	const struct cat_acc *x = a, *y = b;

	if (x->direct_us != y->direct_us)
		return x->direct_us > y->direct_us ? -1 : 1;
	return cmp_cat_key(a, b);
}

enum cat_form { CAT_PLAIN, CAT_RECOMPUTE, CAT_MODULE };

/* The sheet of the groups @acc[0..n), sorted here, in the columns of @form;
 * the percentages are of their summed time. */
static int cat_sheet(struct cat_acc *acc, size_t n, enum cat_form form, struct tl_sheet **out)
{
	static const char *const plain[] = { "op category", "is_recompute", "Count",
					     "total_direct_kernel_time_ms", "Percentage (%)",
					     "Cumulative Percentage (%)" };
	static const char *const by_module[] = { "op category", "parent_module", "Count",
						 "call_stack_first", "total_direct_kernel_time_ms",
						 "Percentage (%)", "Cumulative Percentage (%)" };
	const char *cols[RPT_N(by_module)];
	struct tl_cell row[RPT_N(by_module)];
	struct tl_sheet *sh = NULL;
	double total = 0, cum = 0;
	size_t nc = 0, i, j;
	int err;

	for (i = 0; form == CAT_MODULE ? i < RPT_N(by_module) : i < RPT_N(plain); i++)
		if (form == CAT_MODULE || i != 1 || form == CAT_RECOMPUTE)
			cols[nc++] = form == CAT_MODULE ? by_module[i] : plain[i];
	err = tl_sheet_new("ops_summary_by_category", nc, cols, &sh);
	if (err)
		return err;
	tl_qsort(acc, n, sizeof(*acc), cmp_cat_time);
	for (j = 0; j < n; j++)
		total += acc[j].direct_us / 1000;
	for (j = 0; j < n; j++) {
		double ms = acc[j].direct_us / 1000, pct = ms / total * 100;
		size_t c = 0;

		cum += pct;
		row[c++] = tl_cell_str(acc[j].category);
		if (form == CAT_MODULE)
			row[c++] = tl_cell_str(acc[j].module);
		if (form == CAT_RECOMPUTE)
			row[c++] = tl_cell_bool(acc[j].recompute);
		row[c++] = tl_cell_int((long long)acc[j].count);
		if (form == CAT_MODULE)
			row[c++] = tl_cell_str(acc[j].call_stack);
		row[c++] = tl_cell_num(ms);
		row[c++] = tl_cell_num(pct);
		row[c++] = tl_cell_num(cum);
		err = tl_sheet_add_row(sh, row);
		if (err)
			break;
	}
	return rpt_sheet_done(sh, err, out);
}

int tl_sheet_ops_by_category(const struct tl_launcher_set *ls, bool split_recompute, struct tl_sheet **out)
{
	struct cat_acc *acc = calloc(ls->n ? ls->n : 1, sizeof(*acc));
	size_t n = 0, i, j;
	int err;

	if (!acc)
		return -ENOMEM;
	/* few categories: a linear search per launcher is enough */
	for (i = 0; i < ls->n; i++) {
		const struct tl_launcher *l = &ls->v[i];
		const char *cat = l->category ? l->category : "";
		int rc = split_recompute ? l->recompute > 0 : 0;

		for (j = 0; j < n; j++)
			if (acc[j].recompute == rc && !strcmp(acc[j].category, cat))
				break;
		if (j == n)
			acc[n++] = (struct cat_acc){ .category = cat, .module = "", .recompute = rc };
		acc[j].count++;
		acc[j].direct_us += l->direct_us;
	}
	err = cat_sheet(acc, n, split_recompute ? CAT_RECOMPUTE : CAT_PLAIN, out);
	free(acc);
	return err;
}

/* The inference report's by-category sheet: by (op category, parent module),
 * from the ops_summary rows grouped the same way (each with its launchers'
 * count, time and first call stack). */
int rpt_sheet_by_category_module(const struct tl_op_table *t, struct tl_sheet **out)
{
	struct cat_acc *acc = calloc(t->n ? t->n : 1, sizeof(*acc));
	size_t n = 0, i, j;
	int err;

	if (!acc)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		const struct tl_op_row *r = &t->v[i];
		const char *cat = r->ncategories ? r->categories[0] : "";
		const char *mod = r->parent_module ? r->parent_module : "";

		for (j = 0; j < n; j++)
			if (!strcmp(acc[j].category, cat) && !strcmp(acc[j].module, mod))
				break;
		if (j == n)
			acc[n++] = (struct cat_acc){ .category = cat, .module = mod, .ex_uid = r->ex_uid,
						     .call_stack = r->call_stack };
		/* "first" is the earliest launcher: the smallest UID stands for it */
		if (r->ex_uid < acc[j].ex_uid) {
			acc[j].ex_uid = r->ex_uid;
			acc[j].call_stack = r->call_stack;
		}
		acc[j].count += r->count;
		acc[j].direct_us += r->direct_us;
	}
	err = cat_sheet(acc, n, CAT_MODULE, out);
	free(acc);
	return err;
}
