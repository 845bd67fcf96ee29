/* SPDX-License-Identifier: MIT */
/* unified_perf_summary: TraceLens's one table of the ops that do GPU work,
 * each at the level a perf model reads it (the op a model knows, else the
 * op that launched the kernels itself), plus one synthetic op per GPU event
 * nothing collected; grouped by name, category, process, thread and the
 * recorded args, with the model's numbers and kernel time aggregated, by
 * kernel time descending. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <tlreplay/analysis.h>
#include <tlreplay/tree.h>

#include "analysis/analysis_internal.h"
#include "report/report_internal.h"
#include "trace/trace_internal.h"

static const char *const arg_fields[4] = { "Input Dims", "Input type", "Input Strides",
					   "Concrete Inputs" };

/* One row, as the grouping reads it: what a perf row (struct prow, over
 * 600 bytes with its parameters) leaves once filled. A trace of small
 * events has a row for every seventh event, so this is kept small. */
struct urow {
	uint64_t uid;		/* the op (a synthetic op: its parent) */
	uint64_t ex_uid;	/* what TraceLens numbers it (synthetic ops: past the last UID) */
	const char *name;	/* the trace's, or own */
	char *own;		/* a renamed op's name or "parent->kernel (Synthetic Op)", malloc'ed */
	const char *category;
	const char *pname, *plabel, *tname;
	char *args[4];		/* repr of the recorded args, tuples for lists; NULL: None */
	char *params;		/* perf_params, a dict's repr; NULL: None */
	char *spec;		/* the model's compute spec, malloc'ed; NULL when none */
	double dur, kt;		/* the op's duration, the union of its GPU events */
	double gflops, mb, fpb, tbs, tflops;	/* the model's (struct prow's); NaN when none */
	struct pkernel *k;	/* by launch, then trace order */
	size_t nk;
	bool model;
	bool synth;		/* a synthetic op */
	bool recompute;		/* under torch.utils.checkpoint's recompute_fn */
};

struct ucoll {
	struct tl_trace *tr;
	uint64_t nev;
	bool *visited;
	uint64_t *sel;		/* the collected ops, in collection order */
	size_t nsel, cap;
};

static bool has_comm(const char *s)
{
	for (; *s; s++)
		if (((s[0] | 0x20) == 'n' || (s[0] | 0x20) == 'r') && (s[1] | 0x20) == 'c' &&
		    (s[2] | 0x20) == 'c' && (s[3] | 0x20) == 'l')
			return true;
	return false;
}

/* From the event table: the walks below ask this of every event of the
 * tree, and tl_trace_event's whole record (and its note of the args' page
 * for the text window) cost 4% of a report of 1 M small events. */
static enum tl_kind kind_of(struct tl_trace *tr, uint64_t uid, const char **name)
{
	if (uid >= tr->nev)
		return TL_KIND_OTHER;
	if (name)
		*name = tl_ev_name(tr, &tr->ev[uid]);
	return (enum tl_kind)tr->ev[uid].kind;
}

static bool launches_gpu(struct tl_trace *tr, uint64_t uid)
{
	uint64_t *g = NULL;
	int64_t n = tl_event_gpu_events(tr, uid, &g);

	free(g);
	return n > 0;
}

/* The model class of an op's name (under the inference view, sglang_profiler's
 * ops are modelled without their call counter). */
static const struct pm_class *class_of(const struct tl_trace *tr, const char *name)
{
	char buf[256];

	return pm_class_of(tl_op_view_name(tr, name, buf, sizeof(buf)));
}

/* The model class of op @uid named @name, when it can model this call */
static const struct pm_class *model_of(struct tl_trace *tr, uint64_t uid, const char *name)
{
	char buf[256];

	return pm_class_of_event(tr, uid, tl_op_view_name(tr, name, buf, sizeof(buf)));
}

static bool has_model(struct tl_trace *tr, uint64_t uid)
{
	const char *name = "";

	return kind_of(tr, uid, &name) == TL_KIND_CPU_OP && model_of(tr, uid, name);
}

/* A cpu_op strictly below @uid with a model of its own and GPU work
 * (python_function nodes are see-through, as in TraceLens). */
static bool descendant_with_model(struct tl_trace *tr, uint64_t uid)
{
	int64_t c;

	for (c = tl_event_first_child(tr, uid); c >= 0; c = tl_event_next_sibling(tr, c)) {
		enum tl_kind k = kind_of(tr, (uint64_t)c, NULL);

		if (k == TL_KIND_PYTHON) {
			if (descendant_with_model(tr, (uint64_t)c))
				return true;
			continue;
		}
		if (k != TL_KIND_CPU_OP)
			continue;
		if (has_model(tr, (uint64_t)c) && launches_gpu(tr, (uint64_t)c))
			return true;
		if (descendant_with_model(tr, (uint64_t)c))
			return true;
	}
	return false;
}

/* TraceLens's leaf test: a GPU event reached through runtime and python
 * calls only, at most 10 levels down. */
static bool kernel_below(struct tl_trace *tr, uint64_t uid, int depth)
{
	int64_t c;

	if (depth <= 0)
		return false;
	for (c = tl_event_first_child(tr, uid); c >= 0; c = tl_event_next_sibling(tr, c)) {
		enum tl_kind k = kind_of(tr, (uint64_t)c, NULL);

		if (tl_kind_is_gpu(k))
			return true;
		if ((k == TL_KIND_RUNTIME || k == TL_KIND_PYTHON) &&
		    kernel_below(tr, (uint64_t)c, depth - 1))
			return true;
	}
	return false;
}

static bool has_comm_kernels(struct tl_trace *tr, uint64_t uid)
{
	uint64_t *g = NULL;
	int64_t n = tl_event_gpu_events(tr, uid, &g), i;
	bool r = false;

	for (i = 0; i < n && !r; i++) {
		const char *name = "";

		kind_of(tr, g[i], &name);
		r = has_comm(name);
	}
	free(g);
	return r;
}

static int push_sel(struct ucoll *u, uint64_t uid)
{
	if (u->nsel == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 256;
		uint64_t *v = realloc(u->sel, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		u->sel = v;
		u->cap = cap;
	}
	u->sel[u->nsel++] = uid;
	return 0;
}

static int traverse(struct ucoll *u, uint64_t uid);

static int traverse_children(struct ucoll *u, uint64_t uid, bool model_only)
{
	int64_t c;
	int err = 0;

	for (c = tl_event_first_child(u->tr, uid); c >= 0 && !err;
	     c = tl_event_next_sibling(u->tr, c)) {
		enum tl_kind k = kind_of(u->tr, (uint64_t)c, NULL);

		/* TraceLens's tree has no python_function nodes here: their
		 * children are the op's */
		if (k == TL_KIND_PYTHON && !model_only) {
			err = traverse_children(u, (uint64_t)c, false);
			continue;
		}
		if (model_only && !(k == TL_KIND_CPU_OP && has_model(u->tr, (uint64_t)c) &&
				    launches_gpu(u->tr, (uint64_t)c)))
			continue;
		err = traverse(u, (uint64_t)c);
	}
	return err;
}

static int traverse(struct ucoll *u, uint64_t uid)
{
	const char *name = "";

	if (uid >= u->nev || u->visited[uid])
		return 0;
	u->visited[uid] = true;
	if (kind_of(u->tr, uid, &name) != TL_KIND_CPU_OP || !launches_gpu(u->tr, uid))
		return 0;
	if (model_of(u->tr, uid, name))
		return push_sel(u, uid);
	if (descendant_with_model(u->tr, uid))
		return traverse_children(u, uid, false);
	if (kernel_below(u->tr, uid, 10)) {
		/* a launcher whose own children have models (pseudo ops)
		 * gives way to them */
		int64_t c;

		for (c = tl_event_first_child(u->tr, uid); c >= 0;
		     c = tl_event_next_sibling(u->tr, c))
			if (has_model(u->tr, (uint64_t)c) && launches_gpu(u->tr, (uint64_t)c))
				return traverse_children(u, uid, true);
		if (has_comm_kernels(u->tr, uid))
			return 0;
		return push_sel(u, uid);
	}
	return traverse_children(u, uid, false);
}

static void urow_release(struct urow *r)
{
	size_t i;

	for (i = 0; i < 4; i++)
		free(r->args[i]);
	free(r->own);
	free(r->params);
	free(r->spec);
	free(r->k);
	memset(r, 0, sizeof(*r));
}

/* A parameter's str() as its repr inside the perf_params dict: numbers,
 * booleans, None and tuples read the same; anything else was a str (an
 * empty one too: '' is not None). */
static int put_param(char **buf, size_t *len, size_t *cap, const char *v, bool none)
{
	char *end;

	if (none)
		return rpt_str_append(buf, len, cap, "None");
	if (!*v)
		return rpt_pystr_append(buf, len, cap, v);
	strtod(v, &end);
	if (!*end || !strcmp(v, "True") || !strcmp(v, "False") || !strcmp(v, "None") ||
	    v[0] == '(' || v[0] == '[' || v[0] == '{')
		return rpt_str_append(buf, len, cap, v);
	return rpt_pystr_append(buf, len, cap, v);
}

static int params_repr(const struct prow *p, struct urow *r)
{
	size_t i, len = 0, cap = 0;
	int err;

	if (!p->nparams)
		return 0;
	err = rpt_str_append(&r->params, &len, &cap, "{");
	for (i = 0; i < p->nparams && !err; i++) {
		if (i)
			err = rpt_str_append(&r->params, &len, &cap, ", ");
		if (!err)
			err = rpt_pystr_append(&r->params, &len, &cap, p->pnames[i]);
		if (!err)
			err = rpt_str_append(&r->params, &len, &cap, ": ");
		if (!err)
			err = put_param(&r->params, &len, &cap, p->pvals[i], p->pnone[i]);
	}
	return err ? err : rpt_str_append(&r->params, &len, &cap, "}");
}

static int args_of(struct tl_trace *tr, uint64_t uid, struct urow *r)
{
	cJSON *a = NULL;
	size_t i;
	int err = tl_trace_event_args(tr, uid, &a);

	if (err)
		return err == -ENOMEM ? err : 0;
	for (i = 0; i < 4 && !err; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, arg_fields[i]);

		if (v && !cJSON_IsNull(v) && !(r->args[i] = rpt_pyrepr(v, true)))
			err = -ENOMEM;
	}
	cJSON_Delete(a);
	return err;
}

/* TraceLens's category of a row, from the name and, as its kernel-launcher
 * pass left them on the event, the first of the kernels @uid launched itself
 * (a synthetic op is a copy of its parent and keeps them). */
static int category_of(struct tl_trace *tr, uint64_t uid, const char *name, const char **out)
{
	struct prow d = { .uid = uid };
	int err = 0;

	if (kind_of(tr, uid, NULL) == TL_KIND_CPU_OP)
		err = rpt_kernels_of(tr, &d, true);
	if (!err)
		*out = tl_op_category_by_name(name, d.nk ? d.k[0].name : NULL);
	/* an op the registry does not name but a perf model knows (the
	 * inference extensions' ops: aiter's and vLLM's GEMMs, the MoE pseudo
	 * ops) takes its model's category, as TraceLens's registry, built from
	 * its op -> model map, gives it */
	if (!err && *out && !strcmp(*out, "other")) {
		const struct pm_class *c = class_of(tr, name);

		if (c)
			*out = c->category;
	}
	prow_release(&d);
	return err;
}

static int cmp_launch(const void *a, const void *b, void *ctx)
{
	const struct pkernel *x = a, *y = b;
	int64_t px = tl_event_parent(ctx, x->uid), py = tl_event_parent(ctx, y->uid);

	if (px != py)
		return px < py ? -1 : 1;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* One row: the op's own numbers, or for a synthetic op its one GPU event.
 * The perf row @p is filled, then what the grouping reads moves to @r. */
static int fill_row(struct tl_trace *tr, struct rpt_meta *meta, const uint8_t *recompute,
		    uint64_t uid, int64_t kernel, uint64_t ex_uid, struct urow *r)
{
	struct tl_event_info e, k;
	struct prow p = { .uid = uid };
	size_t i;
	int err = tl_trace_event(tr, uid, &e);

	if (err)
		return err;
	r->uid = uid;
	r->ex_uid = ex_uid;
	r->dur = e.dur;
	r->recompute = recompute && recompute[uid];
	rpt_meta_names(meta, e.pid, e.tid, &r->pname, &r->plabel, &r->tname);
	r->gflops = r->mb = r->fpb = r->tbs = r->tflops = NAN;
	p.gflops = p.bytes = p.tflops = p.tbs = p.mb = p.fpb = NAN;
	if (kernel >= 0) {
		if ((err = args_of(tr, uid, r)) || (err = tl_trace_event(tr, (uint64_t)kernel, &k)))
			goto out;
		if (asprintf(&r->own, "%s->%s (Synthetic Op)", e.name, k.name) < 0) {
			r->own = NULL;
			err = -ENOMEM;
			goto out;
		}
		r->name = r->own;
		r->synth = true;
		r->k = calloc(1, sizeof(*r->k));
		if (!r->k) {
			err = -ENOMEM;
			goto out;
		}
		r->nk = 1;
		r->k->uid = (uint64_t)kernel;
		r->k->ts = k.ts;
		r->k->dur = k.dur;
		r->k->stream = k.stream;
		r->k->name = k.name;
		/* busy time of one interval: its end minus its start, which
		 * rounds differently from the duration */
		r->kt = (k.ts + k.dur) - k.ts;
		err = category_of(tr, uid, r->name, &r->category);
		goto out;
	}
	if ((err = prow_set_name(tr, &p, e.name)))
		goto out;
	r->name = p.name;
	r->own = p.name_own;
	p.name_own = NULL;
	p.cls = model_of(tr, uid, r->name);
	/* a modelled op's args come with its model, from one parse */
	if (!p.cls && (err = args_of(tr, uid, r)))
		goto out;
	r->model = p.cls != NULL;
	if (r->model) {
		p.tuple_args = true;
		err = prow_fill(tr, &p);
		for (i = 0; i < 4; i++) {
			r->args[i] = p.args[i];
			p.args[i] = NULL;
		}
		if (!err)
			err = params_repr(&p, r);
		if (!err && p.compute_spec[0] && !(r->spec = strdup(p.compute_spec)))
			err = -ENOMEM;
		r->gflops = p.gflops;
		r->mb = p.mb;
		r->fpb = p.fpb;
		r->tbs = p.tbs;
		r->tflops = p.tflops;
	} else {
		err = rpt_kernels_of(tr, &p, false);
	}
	r->kt = p.kt;
	r->k = p.k;
	r->nk = p.nk;
	p.k = NULL;
	p.nk = 0;
	/* TraceLens lists an op's GPU events as its tree got them: by the
	 * runtime call that launched them, then in trace order */
	if (!err)
		tl_qsort_r(r->k, r->nk, sizeof(*r->k), cmp_launch, tr);
	if (!err)
		err = category_of(tr, uid, r->name, &r->category);
out:
	prow_release(&p);
	return err;
}

struct ugroup {
	size_t first, n, *rows;
	double kt_sum;
};

static const char *cat_or(const char *s)
{
	return s ? s : "None";
}

static bool same_key(const struct urow *a, const struct urow *b)
{
	size_t i;

	if (strcmp(a->name, b->name) || strcmp(cat_or(a->category), cat_or(b->category)) ||
	    strcmp(a->pname, b->pname) || strcmp(a->plabel, b->plabel) || strcmp(a->tname, b->tname))
		return false;
	for (i = 0; i < 4; i++)
		if (strcmp(a->args[i] ? a->args[i] : "None", b->args[i] ? b->args[i] : "None"))
			return false;
	return a->recompute == b->recompute;
}

static int cmp_ugroup(const void *a, const void *b, void *ctx)
{
	const struct ugroup *x = a, *y = b;
	const struct urow *rows = ctx;
	uint64_t ux = rows[x->first].ex_uid, uy = rows[y->first].ex_uid;

	if (x->kt_sum != y->kt_sum)
		return x->kt_sum > y->kt_sum ? -1 : 1;
	return ux < uy ? -1 : ux > uy;
}

/* One row to fill: the op, the GPU event of a synthetic op (-1: none) and
 * the UID TraceLens gives it. */
struct utask {
	uint64_t uid;
	int64_t kernel;
	uint64_t ex_uid;
};

/* The rows are independent and read the trace only: two threads take them
 * in chunks, as the report's other thread may be done before this one. */
struct ufill {
	struct tl_trace *tr;
	struct rpt_meta *meta;
	const uint8_t *rc;
	struct utask *task;
	struct urow *rows;
	size_t n;
	atomic_size_t next;
	atomic_int err;
	char msg[1024];		/* the failing thread's tl_last_error() */
};

#define FILL_CHUNK 64

static void *fill_main(void *arg)
{
	struct ufill *f = arg;
	size_t i, end;
	int err = 0;

	while (!err && !atomic_load(&f->err)) {
		i = atomic_fetch_add(&f->next, FILL_CHUNK);
		if (i >= f->n)
			break;
		end = i + FILL_CHUNK < f->n ? i + FILL_CHUNK : f->n;
		for (; i < end && !err; i++)
			err = fill_row(f->tr, f->meta, f->rc, f->task[i].uid, f->task[i].kernel,
				       f->task[i].ex_uid, &f->rows[i]);
	}
	if (err) {
		int none = 0;

		if (atomic_compare_exchange_strong(&f->err, &none, err))
			snprintf(f->msg, sizeof(f->msg), "%s", tl_last_error());
	}
	return NULL;
}

static int fill_rows(struct ufill *f)
{
	pthread_t th;
	bool threaded = f->n > 2 * FILL_CHUNK && !pthread_create(&th, NULL, fill_main, f);

	fill_main(f);
	if (threaded)
		pthread_join(th, NULL);
	if (atomic_load(&f->err))
		return tl_err(atomic_load(&f->err), "%s", f->msg);
	return 0;
}

/* Collected ops, then the GPU events none of them covers (TraceLens's
 * synthetic ops: those under no cpu_op by their parent call, then those
 * under one). */
static int collect_rows(struct tl_trace *tr, struct rpt_meta *meta, const uint8_t *rc,
			struct urow **out, size_t *nout)
{
	struct ucoll u = { .tr = tr, .nev = tl_trace_nevents(tr) };
	uint64_t uid, next = u.nev, *orph = NULL, *withop = NULL, *opof = NULL;
	size_t norph = 0, nwith = 0, i, j, n = 0;
	struct ufill f = { 0 };
	bool *covered = NULL;
	struct urow *rows = NULL;
	int err = -ENOMEM;

	u.visited = calloc(u.nev ? u.nev : 1, sizeof(*u.visited));
	covered = calloc(u.nev ? u.nev : 1, sizeof(*covered));
	orph = calloc(u.nev ? u.nev : 1, sizeof(*orph));
	withop = calloc(u.nev ? u.nev : 1, sizeof(*withop));
	opof = calloc(u.nev ? u.nev : 1, sizeof(*opof));
	if (!u.visited || !covered || !orph || !withop || !opof)
		goto out;
	err = 0;
	for (uid = 0; uid < u.nev && !err; uid++) {
		int64_t p;

		if (kind_of(tr, uid, NULL) != TL_KIND_CPU_OP || !tl_event_in_tree(tr, uid))
			continue;
		/* a root: no cpu_op above it */
		for (p = tl_event_parent(tr, uid); p >= 0; p = tl_event_parent(tr, (uint64_t)p))
			if (kind_of(tr, (uint64_t)p, NULL) == TL_KIND_CPU_OP)
				break;
		if (p < 0)
			err = traverse(&u, uid);
	}
	for (i = 0; i < u.nsel && !err; i++) {
		uint64_t *g = NULL;
		int64_t m = tl_event_gpu_events(tr, u.sel[i], &g), k;

		if (m < 0)
			err = (int)m;
		for (k = 0; k < m; k++)
			covered[g[k]] = true;
		free(g);
	}
	if (err)
		goto out;
	for (uid = 0; uid < u.nev; uid++) {
		const char *name = "";
		int64_t p;

		if (!tl_kind_is_gpu(kind_of(tr, uid, &name)) || covered[uid] || has_comm(name))
			continue;
		for (p = tl_event_parent(tr, uid); p >= 0; p = tl_event_parent(tr, (uint64_t)p))
			if (kind_of(tr, (uint64_t)p, NULL) == TL_KIND_CPU_OP)
				break;
		if (p >= 0) {
			withop[nwith] = uid;
			opof[nwith++] = (uint64_t)p;
		} else if (tl_event_parent(tr, uid) >= 0) {
			orph[norph++] = uid;
		}
	}
	err = -ENOMEM;
	rows = calloc(u.nsel + norph + nwith + 1, sizeof(*rows));
	f.task = calloc(u.nsel + norph + nwith + 1, sizeof(*f.task));
	if (!rows || !f.task)
		goto out;
	err = 0;
	/* what each row is, in order; filled below, on two threads */
	for (i = 0; i < u.nsel; i++, n++)
		f.task[n] = (struct utask){ u.sel[i], -1, u.sel[i] };
	/* orphans by parent, in order of each parent's first orphan */
	for (i = 0; i < norph; i++) {
		int64_t p = tl_event_parent(tr, orph[i]);

		for (j = 0; j < i; j++)
			if (tl_event_parent(tr, orph[j]) == p)
				break;
		if (j < i)
			continue;
		for (j = i; j < norph; j++)
			if (tl_event_parent(tr, orph[j]) == p)
				f.task[n++] = (struct utask){ (uint64_t)p, (int64_t)orph[j], next++ };
	}
	for (i = 0; i < nwith; i++, n++)
		f.task[n] = (struct utask){ opof[i], (int64_t)withop[i], next++ };
	f.tr = tr;
	f.meta = meta;
	f.rc = rc;
	f.rows = rows;
	f.n = n;
	err = fill_rows(&f);
out:
	free(f.task);
	*out = rows;
	*nout = n;
	free(opof);
	free(withop);
	free(orph);
	free(covered);
	free(u.visited);
	free(u.sel);
	return err;
}

static void agg_rows(const struct urow *rows, const struct ugroup *g, size_t off, double *v,
		     struct tl_agg *a)
{
	size_t i, n = 0;

	for (i = 0; i < g->n; i++) {
		double x = *(const double *)((const char *)&rows[g->rows[i]] + off);

		if (!isnan(x))
			v[n++] = x;
	}
	if (!n) {
		*a = (struct tl_agg){ NAN, NAN, NAN, NAN, NAN, NAN };
		a->sum = 0;
		return;
	}
	tl_aggregate(v, n, a);
}

static double first_of(const struct urow *rows, const struct ugroup *g, size_t off)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		double x = *(const double *)((const char *)&rows[g->rows[i]] + off);

		if (!isnan(x))
			return x;
	}
	return NAN;
}

#define UOFF(f) offsetof(struct urow, f)

static const char *const ucols[] = {
	"name", "op category", "process_name", "process_label", "thread_name", "Input Dims",
	"Input type", "Input Strides", "Concrete Inputs", "ex_UID", "operation_count",
	"total_duration_us", "mean_duration_us", "std_duration_us", "GFLOPS", "Data Moved (MB)",
	"FLOPS/Byte", "Compute Spec", "TB/s_mean", "TB/s_std", "TFLOPS/s_mean", "TFLOPS/s_std",
	"Kernel Time (µs)_mean", "Kernel Time (µs)_std", "Kernel Time (µs)_sum",
	"duration_us_median", "duration_us_min", "duration_us_max", "TB/s_median", "TB/s_min",
	"TB/s_max", "TFLOPS/s_median", "TFLOPS/s_min", "TFLOPS/s_max", "Kernel Time (µs)_median",
	"Kernel Time (µs)_min", "Kernel Time (µs)_max", "kernel_details_summary",
	"trunc_kernel_details", "perf_params", "has_perf_model", "Percentage (%)",
	"Cumulative Percentage (%)",
};

static int build(struct tl_trace *tr, const struct urow *rows, size_t n, bool recompute, bool inference,
		 struct tl_sheet **out)
{
	struct ugroup *g = NULL;
	struct rpt_klist *kl = NULL;
	struct tl_sheet *sh = NULL;
	const char *cols[RPT_N(ucols) + 3];
	struct tl_cell row[RPT_N(ucols) + 3];
	double *tmp = NULL, total = 0, cum = 0;
	size_t ng = 0, i, j, *gof = NULL;
	int err = -ENOMEM;

	g = calloc(n + 1, sizeof(*g));
	tmp = malloc((n + 1) * sizeof(*tmp));
	kl = malloc((n + 1) * sizeof(*kl));
	gof = malloc((n + 1) * sizeof(*gof));
	if (!g || !tmp || !kl || !gof)
		goto out;
	/* each row's group (the previous row's first: runs of one op are
	 * common), then each group's rows in one exact allocation */
	for (i = 0; i < n; i++) {
		j = i && same_key(&rows[g[gof[i - 1]].first], &rows[i]) ? gof[i - 1] : ng;
		for (j = j < ng ? j : 0; j < ng; j++)
			if (same_key(&rows[g[j].first], &rows[i]))
				break;
		if (j == ng)
			g[ng++].first = i;
		gof[i] = j;
		g[j].n++;
		if (!isnan(rows[i].kt))
			g[j].kt_sum += rows[i].kt;
	}
	for (j = 0; j < ng; j++) {
		g[j].rows = malloc(g[j].n * sizeof(*g[j].rows));
		if (!g[j].rows)
			goto out;
		g[j].n = 0;
	}
	for (i = 0; i < n; i++)
		g[gof[i]].rows[g[gof[i]].n++] = i;
	tl_qsort_r(g, ng, sizeof(*g), cmp_ugroup, (void *)rows);
	for (j = 0; j < ng; j++)
		total += g[j].kt_sum;
	/* is_recompute follows the recorded args, as TraceLens groups by it */
	for (i = j = 0; i < RPT_N(ucols); i++) {
		cols[j++] = ucols[i];
		if (recompute && !strcmp(ucols[i], "Concrete Inputs"))
			cols[j++] = "is_recompute";
		if (inference && !strcmp(ucols[i], "has_perf_model")) {
			cols[j++] = "entry_point";
			cols[j++] = "call_stack_full";
		}
	}
	err = tl_sheet_new("unified_perf_summary", j, cols, &sh);
	if (err)
		goto out;
	for (j = 0; j < ng && !err; j++) {
		const struct ugroup *gr = &g[j];
		const struct urow *r0 = &rows[gr->first];
		struct tl_agg d, tb, tf, kt;
		const struct urow *tpl = NULL;
		const char *spec = NULL, *params = NULL;
		char *kd, *tk, *stack = NULL, *entry = NULL;
		size_t c = 0, *ord = NULL;

		for (i = 0; i < gr->n; i++) {
			const struct urow *r = &rows[gr->rows[i]];

			if (!spec && r->spec)
				spec = r->spec;
			if (!params && r->params)
				params = r->params;
			kl[i].k = r->k;
			kl[i].nk = r->nk;
			/* TraceLens's kernel summary is of the group's first
			 * row with kernels, and its call stack with it */
			if (!tpl && r->nk)
				tpl = r;
		}
		kd = rpt_kernel_stats_ord(kl, gr->n, false, inference ? &ord : NULL);
		/* the call stack follows the kernel summary's order */
		if (inference && kd && tpl && ord) {
			struct pkernel *ok = malloc(tpl->nk * sizeof(*ok));

			for (i = 0; ok && i < tpl->nk; i++)
				ok[i] = tpl->k[ord[i]];
			err = ok ? rpt_call_stack(tr, tpl->uid, !tpl->synth, ok, tpl->nk, r0->name, &stack,
						  &entry)
				 : -ENOMEM;
			free(ok);
		} else if (inference && kd) {
			err = rpt_call_stack(tr, r0->uid, false, NULL, 0, r0->name, &stack, &entry);
		}
		free(ord);
		ord = NULL;
		if (err) {
			free(kd);
			break;
		}
		tk = rpt_kernel_stats(kl, gr->n, true);
		if (!kd || !tk) {
			free(kd);
			free(tk);
			free(stack);
			free(entry);
			err = -ENOMEM;
			break;
		}
		agg_rows(rows, gr, UOFF(dur), tmp, &d);
		agg_rows(rows, gr, UOFF(tbs), tmp, &tb);
		agg_rows(rows, gr, UOFF(tflops), tmp, &tf);
		agg_rows(rows, gr, UOFF(kt), tmp, &kt);
		row[c++] = tl_cell_str(r0->name);
		row[c++] = tl_cell_str(r0->category);
		row[c++] = tl_cell_str(r0->pname);
		row[c++] = tl_cell_str(r0->plabel);
		row[c++] = tl_cell_str(r0->tname);
		for (i = 0; i < 4; i++)
			row[c++] = tl_cell_str(r0->args[i]);
		if (recompute)
			row[c++] = tl_cell_bool(r0->recompute);
		row[c++] = tl_cell_int((long long)r0->ex_uid);
		row[c++] = tl_cell_int((long long)gr->n);
		row[c++] = tl_cell_num(d.sum);
		row[c++] = tl_cell_num(d.mean);
		row[c++] = tl_cell_num(d.std);
		row[c++] = tl_cell_num(first_of(rows, gr, UOFF(gflops)));
		row[c++] = tl_cell_num(first_of(rows, gr, UOFF(mb)));
		row[c++] = tl_cell_num(first_of(rows, gr, UOFF(fpb)));
		row[c++] = tl_cell_str(spec);
		row[c++] = tl_cell_num(tb.mean);
		row[c++] = tl_cell_num(tb.std);
		row[c++] = tl_cell_num(tf.mean);
		row[c++] = tl_cell_num(tf.std);
		row[c++] = tl_cell_num(kt.mean);
		row[c++] = tl_cell_num(kt.std);
		row[c++] = tl_cell_num(kt.sum);
		row[c++] = tl_cell_num(d.median);
		row[c++] = tl_cell_num(d.min);
		row[c++] = tl_cell_num(d.max);
		row[c++] = tl_cell_num(tb.median);
		row[c++] = tl_cell_num(tb.min);
		row[c++] = tl_cell_num(tb.max);
		row[c++] = tl_cell_num(tf.median);
		row[c++] = tl_cell_num(tf.min);
		row[c++] = tl_cell_num(tf.max);
		row[c++] = tl_cell_num(kt.median);
		row[c++] = tl_cell_num(kt.min);
		row[c++] = tl_cell_num(kt.max);
		row[c++] = tl_cell_str(kd);
		row[c++] = tl_cell_str(tk);
		row[c++] = tl_cell_str(params);
		row[c++] = tl_cell_bool(r0->model);
		if (inference) {
			row[c++] = tl_cell_str(entry);
			row[c++] = tl_cell_str(stack);
		}
		/* pandas' cumsum adds the percentages, not the sums */
		row[c++] = tl_cell_num(gr->kt_sum / total * 100);
		cum += gr->kt_sum / total * 100;
		row[c++] = tl_cell_num(cum);
		err = tl_sheet_add_row(sh, row);
		free(kd);
		free(tk);
		free(stack);
		free(entry);
	}
out:
	for (j = 0; g && j < ng; j++)
		free(g[j].rows);
	free(g);
	free(gof);
	free(kl);
	free(tmp);
	return rpt_sheet_done(sh, err, out);
}

/* Whether a model gave any row a number (TraceLens's unified table has a
 * metric column only when some row's model returned it). */
static bool any_metric(const struct urow *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].spec || !isnan(rows[i].gflops) || !isnan(rows[i].mb) || !isnan(rows[i].tbs) ||
		    !isnan(rows[i].tflops))
			return true;
	return false;
}

/* The model's columns, for a table in which no row has them. */
static int drop_metric_cols(struct tl_sheet *sh)
{
	static const char *const metric[] = { "GFLOPS",	      "Data Moved (MB)", "FLOPS/Byte",	 "Compute Spec",
					      "TB/s_mean",    "TB/s_std",	 "TB/s_median",	 "TB/s_min",
					      "TB/s_max",     "TFLOPS/s_mean",	 "TFLOPS/s_std", "TFLOPS/s_median",
					      "TFLOPS/s_min", "TFLOPS/s_max" };
	size_t i;
	int err = 0;

	for (i = 0; i < RPT_N(metric) && !err; i++)
		err = rpt_sheet_drop_col(sh, metric[i]);
	return err;
}

int rpt_sheet_unified(struct tl_trace *tr, bool recompute, bool inference, struct tl_sheet **out)
{
	struct rpt_meta *meta = NULL;
	struct urow *rows = NULL;
	uint8_t *rc = NULL;
	size_t n = 0, i;
	int err = 0;

	*out = NULL;
	/* TraceLens's detect_recompute builds its tree with python functions:
	 * so does this, before anything walks it */
	if (recompute)
		err = tl_recompute_flags(tr, &rc);
	if (!err)
		err = rpt_meta_load(tr, &meta);
	if (!err)
		err = collect_rows(tr, meta, rc, &rows, &n);
	/* TraceLens writes no sheet when nothing was collected */
	if (!err && n)
		err = build(tr, rows, n, recompute, inference, out);
	if (!err && n && !any_metric(rows, n))
		err = drop_metric_cols(*out);
	for (i = 0; i < n; i++)
		urow_release(&rows[i]);
	free(rows);
	free(rc);
	rpt_meta_free(meta);
	return err;
}
