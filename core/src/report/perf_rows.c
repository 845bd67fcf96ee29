/* SPDX-License-Identifier: MIT */
/* The per-call rows of the perf-model sheets (TraceLens's
 * build_df_perf_metrics): for every op a class models, its kernels, the union
 * of their intervals (Kernel Time), the model's FLOPs, bytes and parameters
 * and the rates they give. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <tlreplay/tree.h>

#include "analysis/analysis_internal.h"
#include "perfmodel/perfmodel_internal.h"
#include "report/report_internal.h"

static const char *const arg_fields[4] = { "Input Dims", "Input type", "Input Strides",
					   "Concrete Inputs" };

int prow_set_name(const struct tl_trace *tr, struct prow *r, const char *raw)
{
	char buf[256];

	r->name = tl_op_view_name(tr, raw, buf, sizeof(buf));
	if (r->name == buf && !(r->name = r->name_own = strdup(buf)))
		return -ENOMEM;
	return 0;
}

void prow_release(struct prow *r)
{
	size_t i;

	for (i = 0; i < r->nparams; i++)
		free(r->pvals[i]);
	for (i = 0; i < 4; i++)
		free(r->args[i]);
	free(r->k);
	free(r->name_own);
	memset(r, 0, sizeof(*r));
}

static int cmp_kernel_ts(const void *a, const void *b)
{
	const struct pkernel *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* GPU events @gpu[0..n) (malloc'ed, freed here) as the row's kernels, by
 * start time, and the length of their union. */
static int take_kernels(const struct tl_trace *tr, struct prow *r, uint64_t *gpu, int64_t n)
{
	struct tl_iv *iv = NULL;
	int64_t i;
	int err = -ENOMEM;

	if (!n) {
		r->kt = 0;
		free(gpu);
		return 0;
	}
	r->k = calloc((size_t)n, sizeof(*r->k));
	iv = calloc((size_t)n, sizeof(*iv));
	if (!r->k || !iv)
		goto out;
	for (i = 0; i < n; i++) {
		struct tl_event_info e;

		if (tl_trace_event(tr, gpu[i], &e))
			memset(&e, 0, sizeof(e));
		r->k[i].uid = gpu[i];
		r->k[i].ts = e.ts;
		r->k[i].dur = e.dur;
		r->k[i].stream = e.stream;
		r->k[i].name = e.name ? e.name : "";
		r->nk++;
		iv[i] = (struct tl_iv){ e.ts, e.ts + e.dur };
	}
	tl_qsort(r->k, r->nk, sizeof(*r->k), cmp_kernel_ts);
	r->kt = tl_union_len(iv, (size_t)n);
	err = 0;
out:
	free(iv);
	free(gpu);
	return err;
}

/* The op's GPU events by start time, and the length of their union. */
int rpt_kernels_of(const struct tl_trace *tr, struct prow *r, bool direct)
{
	uint64_t *gpu = NULL;
	int64_t n, i, m = 0;

	n = tl_event_gpu_events(tr, r->uid, &gpu);
	if (n < 0)
		return (int)n;
	if (direct) {
		/* a launcher's own kernels: those of ops below it are theirs */
		for (i = 0; i < n; i++)
			if (tl_event_launcher(tr, gpu[i]) == (int64_t)r->uid)
				gpu[m++] = gpu[i];
		n = m;
	}
	return take_kernels(tr, r, gpu, n);
}

/* The GPU events below each of @ops[0..nops), one list (TreePerf's
 * loop_and_aggregate_kernels: an event below two of them is listed twice). */
static int kernels_of_ops(const struct tl_trace *tr, struct prow *r, const uint64_t *ops,
			  size_t nops)
{
	uint64_t *all = NULL;
	size_t n = 0, cap = 0, i;

	for (i = 0; i < nops; i++) {
		uint64_t *g = NULL;
		int64_t m = tl_event_gpu_events(tr, ops[i], &g);

		if (m < 0 || tl_grow((void **)&all, &cap, n + (size_t)m + 1, sizeof(*all))) {
			free(g);
			free(all);
			return m < 0 ? (int)m : -ENOMEM;
		}
		if (m)
			memcpy(all + n, g, (size_t)m * sizeof(*g));
		n += (size_t)m;
		free(g);
	}
	return take_kernels(tr, r, all, (int64_t)n);
}

/* What TraceLens derives from the model's numbers and the kernel time. */
static void rates(struct prow *r)
{
	r->tflops = r->kt > 0 ? (r->gflops / 1e3) / (r->kt / 1e6) : NAN;
	if (isnan(r->bytes)) {
		r->mb = r->fpb = r->tbs = NAN;
		return;
	}
	r->mb = r->bytes / (1024.0 * 1024.0);
	r->fpb = r->bytes > 0 ? r->gflops * 1e9 / r->bytes : NAN;
	r->tbs = r->kt > 0 ? (r->bytes / 1e12) / (r->kt / 1e6) : NAN;
}

/* A call the model cannot read: why, in r->why and at info level in the log
 * (a trace recorded without shapes has one per op: the sheets' builder
 * gives the summary as a warning). */
static void no_model(struct prow *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void no_model(struct prow *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	r->nomodel = true;
	tl_log(TL_LOG_INFO, "perf report: %s", r->why);
}

/* The model's view of the call; a model that cannot read it leaves the row
 * without numbers and says why in the log. */
static int model_of(const struct tl_trace *tr, struct prow *r, bool bwd)
{
	struct pm_call c;
	struct pm_out out, *o = &out;
	size_t i;
	int err;

	r->gflops = r->bytes = NAN;
	err = pm_call_of(tr, r->uid, &c);
	if (err == -EBADMSG) {
		no_model(r, "UID %llu (%s): args do not parse, no model", (unsigned long long)r->uid, r->name);
		return 0;
	}
	if (err)
		return err;
	err = -ENOMEM;
	for (i = 0; i < 4; i++) {
		const cJSON *a = pm_arg(&c, arg_fields[i]);

		if (r->tuple_args && cJSON_IsNull(a))
			continue;
		if (a && !(r->args[i] = rpt_pyrepr(a, r->tuple_args)))
			goto out;
	}
	pm_out_init(o);
	if (bwd && (err = pm_model_bwd(r->cls, &c, o)) == -ENOENT) {
		no_model(r, "UID %llu (%s, %s): no backward model in tlreplay, no backward row",
			 (unsigned long long)r->uid, r->name, r->cls->name);
		err = 0;
		goto out;
	}
	if (bwd ? err != 0 : r->cls->model(&c, o) != 0) {
		no_model(r, "UID %llu (%s, %s): %s", (unsigned long long)r->uid, r->name, r->cls->name,
			 o->note[0] ? o->note : "the model cannot read the call");
		err = 0;
		goto out;
	}
	r->gflops = o->gflops;
	r->bytes = o->bytes;
	_Static_assert(sizeof(r->compute_spec) == sizeof(o->compute_spec), "one size");
	memcpy(r->compute_spec, o->compute_spec, sizeof(r->compute_spec));
	r->compute_spec[sizeof(r->compute_spec) - 1] = '\0';
	err = -ENOMEM;
	for (i = 0; i < o->nparams; i++) {
		char buf[64];
		const struct tl_cell *v = &o->params[i];

		/* TraceLens groups by str() of each parameter and writes that; None
		 * (an empty cell) is written as an empty field */
		r->pnames[i] = o->param_names[i];
		r->pvals[i] = strdup(tl_cell_text(v, buf, sizeof(buf)));
		r->pnone[i] = v->kind == TL_CELL_EMPTY;
		if (!r->pvals[i])
			goto out;
		r->nparams++;
	}
	err = 0;
out:
	pm_call_release(&c);
	return err;
}

int prow_fill(const struct tl_trace *tr, struct prow *r)
{
	int err = rpt_kernels_of(tr, r, false);

	if (!err)
		err = model_of(tr, r, false);
	if (!err)
		rates(r);
	return err;
}

int prow_fill_bwd(const struct tl_trace *tr, struct prow *r, const uint64_t *bwd, size_t nbwd)
{
	int err = kernels_of_ops(tr, r, bwd, nbwd);

	if (!err)
		err = model_of(tr, r, true);
	if (!err)
		rates(r);
	return err;
}
