/* SPDX-License-Identifier: MIT */
/* tlreplay launches: launch statistics per op, per kernel or per launch, and
 * a launch-bound verdict per device and stream (tl_launch_stats(),
 * include/tlreplay/launch.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/launch.h>
#include <tlreplay/trace.h>

#include "builtin.h"

enum by { BY_OP, BY_KERNEL, BY_LAUNCH, BY_STREAM };

struct launch_args {
	struct common_opts co;
	struct tl_launch_opts lo;
	int by;
	unsigned long long top;
};

static int opt_by(const struct opt *opt, const char *arg, void *obj)
{
	static const char *const names[] = { "op", "kernel", "launch", "stream" };
	struct launch_args *a = obj;
	size_t i;

	(void)opt;
	for (i = 0; i < TL_ARRAY_N(names); i++)
		if (!strcmp(arg, names[i])) {
			a->by = (int)i;
			return 0;
		}
	return cli_error("launches: bad --by '%s' (op, kernel, launch or stream)", arg);
}

static int opt_us(const struct opt *opt, const char *arg, void *obj)
{
	struct launch_args *a = obj;
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !isfinite(v) || v <= 0)
		return cli_error("launches: bad --%s '%s' (microseconds, a number > 0)", opt->long_name, arg);
	if (opt->value == 'b')
		a->lo.launch_bound_us = v;
	else if (opt->value == 'r')
		a->lo.runtime_cutoff_us = v;
	else
		a->lo.delay_cutoff_us = v;
	return 0;
}

static const struct opt launch_opts[] = {
	OPT_INCLUDE(opts_analysis, offsetof(struct launch_args, co)),
	OPT_CALLBACK(0, "by", "WHAT", opt_by, 0,
		     "rows per op (default), kernel, launch (one per GPU event)\n"
		     "or stream (the launch-bound verdicts)"),
	OPT_U64(0, "top", "N", struct launch_args, top,
		"only the first N rows (ops and kernels: most launches first;\n"
		"launches: longest launch delay first)"),
	OPT_CALLBACK(0, "launch-bound-thresh-us", "N", opt_us, 'b',
		     "a GPU event shorter than N us is short (default 10)"),
	OPT_CALLBACK(0, "runtime-cutoff-us", "N", opt_us, 'r',
		     "a launch call longer than N us is an outlier (HTA's\n"
		     "runtime_cutoff, default 50)"),
	OPT_CALLBACK(0, "delay-cutoff-us", "N", opt_us, 'd',
		     "a launch delay longer than N us is an outlier (HTA's\n"
		     "launch_delay_cutoff, default 100)"),
	OPT_BOOL(0, "hta", struct launch_args, lo.hta,
		 "HTA's numbers (get_cuda_kernel_launch_stats): its four launch\n"
		 "calls only, whole us, the last ProfilerStep left out"),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(launches, launch_opts, "kernel launch statistics: CPU call, launch delay, queue time; launch-bound streams",
	"usage: tlreplay launches [-i TRACE] [-x SEP | -j] [-o FILE] [--by op|kernel|launch|stream]\n"
	"                         [--top N] [--launch-bound-thresh-us N]\n"
	"                         [--runtime-cutoff-us N] [--delay-cutoff-us N] [--hta]\n"
	"\n"
	"For every GPU event linked to the runtime call that launched it: the call's\n"
	"duration (cpu), the launch delay (GPU start - call end, clipped at 0, HTA's\n"
	"launch_delay), the latency (GPU start - call start) and the queue time (GPU\n"
	"start - max(call start, end of the stream's previous GPU event)); their mean,\n"
	"p50, p90, p99 and max per op (the cpu_op above the call) or per kernel name,\n"
	"HTA's outliers, and per device and stream whether the GPU is launch-bound:\n"
	"short events separated by gaps in which the GPU waited for the next launch\n"
	"call. docs/analyses.md, \"Launch statistics\", has the details.\n"
	"\n");
/* clang-format on */

static const char *const dist_names[] = { "cpu", "delay", "latency", "queue", "gpu" };
static const char *const stat_names[] = { "mean", "p50", "p90", "p99", "max" };

static const struct tl_launch_dist *dist_of(const struct tl_launch_group *g, int k)
{
	return k == 0 ? &g->cpu : k == 1 ? &g->delay : k == 2 ? &g->latency : k == 3 ? &g->queue : &g->gpu;
}

static double stat_of(const struct tl_launch_dist *d, int s)
{
	return s == 0 ? d->mean : s == 1 ? d->p50 : s == 2 ? d->p90 : s == 3 ? d->p99 : d->max;
}

/* A number as -x and -j print it (Python's repr of a float). */
static void num(struct out_fmt *o, const char *key, double v, bool last)
{
	char b[64];

	fmt_pyfloat(b, sizeof(b), v);
	if (o->json)
		fprintf(o->f, ",\"%s\":%s", key, b);
	else
		out_field(o, b, last);
}

static void cnt(struct out_fmt *o, const char *key, uint64_t v, bool last)
{
	char b[32];

	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	if (o->json)
		fprintf(o->f, ",\"%s\":%s", key, b);
	else
		out_field(o, b, last);
}

static void str(struct out_fmt *o, const char *key, const char *v, bool first)
{
	if (o->json) {
		fprintf(o->f, "%s\"%s\":", first ? "{" : ",", key);
		json_str(o->f, v);
	} else {
		out_field(o, v, false);
	}
}

static void group_header(struct out_fmt *o)
{
	char b[32];
	int k, s;

	out_field(o, "by", false);
	out_field(o, "name", false);
	out_field(o, "count", false);
	for (k = 0; k < 5; k++)
		for (s = 0; s < 5; s++) {
			snprintf(b, sizeof(b), "%s %s us", dist_names[k], stat_names[s]);
			out_field(o, b, false);
		}
	out_field(o, "cpu outliers", false);
	out_field(o, "delay outliers", false);
	out_field(o, "short", true);
}

static void group_machine(struct out_fmt *o, const char *by, const struct tl_launch_group *g)
{
	char key[32];
	int k, s;

	str(o, "by", by, true);
	str(o, "name", g->name, false);
	cnt(o, "count", g->n, false);
	for (k = 0; k < 5; k++)
		for (s = 0; s < 5; s++) {
			snprintf(key, sizeof(key), "%s_%s_us", dist_names[k], stat_names[s]);
			num(o, key, stat_of(dist_of(g, k), s), false);
		}
	cnt(o, "cpu_outliers", g->n_cpu_outliers, false);
	cnt(o, "delay_outliers", g->n_delay_outliers, false);
	cnt(o, "short", g->n_short, true);
	if (o->json)
		fputs("}\n", o->f);
}

static void group_human_head(struct out_fmt *o, const char *what)
{
	fprintf(o->f, "%8s %9s %9s %9s %9s %9s %9s %9s %9s %7s %7s  %s\n", "count", "cpu mean", "cpu p99",
		"dly mean", "dly p50", "dly p99", "dly max", "que mean", "que p99", "cpu>cut", "dly>cut", what);
}

static void group_human(struct out_fmt *o, const struct tl_launch_group *g)
{
	fprintf(o->f, "%8llu %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %7llu %7llu  %s\n",
		(unsigned long long)g->n, g->cpu.mean, g->cpu.p99, g->delay.mean, g->delay.p50, g->delay.p99,
		g->delay.max, g->queue.mean, g->queue.p99, (unsigned long long)g->n_cpu_outliers,
		(unsigned long long)g->n_delay_outliers, g->name);
}

static void row_machine(struct out_fmt *o, const struct tl_launch_row *r)
{
	str(o, "view", r->stream ? "stream" : "device", true);
	str(o, "device", r->device, false);
	str(o, "stream", r->stream ? r->stream : "", false);
	cnt(o, "events", r->n, false);
	cnt(o, "short", r->n_short, false);
	num(o, "span_us", r->span_us, false);
	num(o, "busy_us", r->busy_us, false);
	num(o, "idle_us", r->idle_us, false);
	cnt(o, "bound_gaps", r->n_bound_gaps, false);
	num(o, "bound_gap_us", r->bound_gap_us, false);
	num(o, "bound_pct_of_idle", r->idle_us > 0 ? r->bound_gap_us / r->idle_us * 100 : 0, false);
	num(o, "short_busy_pct", r->busy_us > 0 ? r->short_busy_us / r->busy_us * 100 : 0, false);
	num(o, "cadence_p50_us", r->cadence_p50_us, false);
	num(o, "gpu_p50_us", r->gpu_p50_us, false);
	if (o->json)
		fprintf(o->f, ",\"launch_bound\":%s}\n", r->launch_bound ? "true" : "false");
	else
		out_field(o, r->launch_bound ? "yes" : "no", true);
}

static void row_human(struct out_fmt *o, const struct tl_launch_row *r)
{
	char where[96];

	snprintf(where, sizeof(where), "%s%s%s", r->device, r->stream ? "/" : "", r->stream ? r->stream : "");
	fprintf(o->f, "%-14s %-6s %9llu %6.1f%% %12.3f %12.3f %8llu %12.3f %6.1f%% %10.2f %10.2f\n", where,
		r->launch_bound ? "YES" : "no", (unsigned long long)r->n,
		r->n ? (double)r->n_short / (double)r->n * 100 : 0, r->busy_us / 1e3, r->idle_us / 1e3,
		(unsigned long long)r->n_bound_gaps, r->bound_gap_us / 1e3,
		r->idle_us > 0 ? r->bound_gap_us / r->idle_us * 100 : 0, r->cadence_p50_us, r->gpu_p50_us);
}

static void rows_out(struct out_fmt *o, const struct tl_launch_set *s)
{
	static const char *const cols[] = { "view",	     "device",	      "stream",	       "events",
					    "short",	     "span us",	      "busy us",       "idle us",
					    "bound gaps",    "bound gap us",  "bound % idle",  "short % busy",
					    "cadence p50 us", "gpu p50 us",   "launch bound" };
	size_t i, v;

	if (o->sep)
		for (i = 0; i < TL_ARRAY_N(cols); i++)
			out_field(o, cols[i], i + 1 == TL_ARRAY_N(cols));
	if (!o->sep && !o->json)
		fprintf(o->f, "\nlaunch-bound (short: < %g us; bound gap: between two short events, the GPU\n"
			"waited for the next launch call, which started after the previous event ended)\n"
			"%-14s %-6s %9s %7s %12s %12s %8s %12s %7s %10s %10s\n",
			s->launch_bound_us, "device/stream", "bound", "events", "short", "busy ms", "idle ms",
			"bnd gaps", "bnd gap ms", "%idle", "cadence us", "gpu p50 us");
	for (v = 0; v < 2; v++)
		for (i = 0; i < (v ? s->nstream : s->ndev); i++) {
			const struct tl_launch_row *r = v ? &s->stream[i] : &s->dev[i];

			if (o->sep || o->json)
				row_machine(o, r);
			else
				row_human(o, r);
		}
}

static int cmp_delay(const void *a, const void *b, void *arg)
{
	const struct tl_launch *l = arg, *x = &l[*(const uint32_t *)a], *y = &l[*(const uint32_t *)b];

	if (x->delay_us != y->delay_us)
		return x->delay_us < y->delay_us ? 1 : -1;
	return (x->gpu_uid > y->gpu_uid) - (x->gpu_uid < y->gpu_uid);
}

static int launches_out(struct out_fmt *o, struct tl_trace *tr, const struct tl_launch_set *s, uint64_t top)
{
	static const char *const cols[] = { "gpu uid", "call uid", "op uid", "device", "stream", "kernel",
					    "call", "op", "start us", "gpu us", "cpu us", "delay us",
					    "latency us", "queue us", "bound gap" };
	uint32_t *idx = malloc(s->n * sizeof(*idx) + 1);
	size_t i, n = s->n;

	if (!idx)
		return cli_error("launches: out of memory");
	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	if (top) {
		qsort_r(idx, n, sizeof(*idx), cmp_delay, s->l);
		if (top < n)
			n = top;
	}
	if (o->sep)
		for (i = 0; i < TL_ARRAY_N(cols); i++)
			out_field(o, cols[i], i + 1 == TL_ARRAY_N(cols));
	else if (!o->json)
		fprintf(o->f, "%10s %10s %10s %-10s %10s %10s %10s %10s %10s %s\n", "gpu uid", "call uid", "op uid",
			"dev/strm", "cpu us", "delay us", "latency", "queue us", "gpu us", "kernel  <-  op");
	for (i = 0; i < n; i++) {
		const struct tl_launch *l = &s->l[idx[i]];
		const struct tl_launch_row *r = &s->stream[l->stream];
		struct tl_event_info g, c, op;

		tl_trace_event(tr, l->gpu_uid, &g);
		tl_trace_event(tr, l->call_uid, &c);
		tl_trace_event(tr, l->op_uid, &op);
		if (!o->sep && !o->json) {
			char ds[64];

			snprintf(ds, sizeof(ds), "%s/%s", r->device, r->stream);
			fprintf(o->f, "%10llu %10llu %10llu %-10s %10.2f %10.2f %10.2f %10.2f %10.2f %s  <-  %s%s\n",
				(unsigned long long)l->gpu_uid, (unsigned long long)l->call_uid,
				(unsigned long long)l->op_uid, ds, l->cpu_us, l->delay_us, l->latency_us,
				l->queue_us, l->gpu_us, g.name, op.name, l->bound_gap ? "  [bound gap]" : "");
			continue;
		}
		if (o->json)
			fprintf(o->f, "{\"gpu_uid\":%llu", (unsigned long long)l->gpu_uid);
		else
			cnt(o, "gpu_uid", l->gpu_uid, false);
		cnt(o, "call_uid", l->call_uid, false);
		cnt(o, "op_uid", l->op_uid, false);
		str(o, "device", r->device, false);
		str(o, "stream", r->stream, false);
		str(o, "kernel", g.name, false);
		str(o, "call", c.name, false);
		str(o, "op", op.name, false);
		num(o, "start_us", l->start_us, false);
		num(o, "gpu_us", l->gpu_us, false);
		num(o, "cpu_us", l->cpu_us, false);
		num(o, "delay_us", l->delay_us, false);
		num(o, "latency_us", l->latency_us, false);
		num(o, "queue_us", l->queue_us, false);
		if (o->json)
			fprintf(o->f, ",\"bound_gap\":%s}\n", l->bound_gap ? "true" : "false");
		else
			out_field(o, l->bound_gap ? "yes" : "no", true);
	}
	free(idx);
	return 0;
}

static void print_groups(struct out_fmt *o, const struct tl_launch_set *s, const struct launch_args *a)
{
	bool kern = a->by == BY_KERNEL;
	const struct tl_launch_group *g = kern ? s->kernel : s->op;
	size_t n = kern ? s->nkernel : s->nop, i;

	if (a->top && a->top < n)
		n = a->top;
	if (o->sep)
		group_header(o);
	if (o->sep || o->json) {
		group_machine(o, "all", &s->all);
		for (i = 0; i < n; i++)
			group_machine(o, kern ? "kernel" : "op", &g[i]);
		return;
	}
	fprintf(o->f, "\nall launches: cpu (call duration), delay (GPU start - call end, >= 0), latency (GPU\n"
		"start - call start), queue (GPU start - max(call start, previous end on the stream)), us\n");
	fprintf(o->f, "%-8s %10s %10s %10s %10s %10s\n", "", "mean", "p50", "p90", "p99", "max");
	for (i = 0; i < 5; i++) {
		const struct tl_launch_dist *d = dist_of(&s->all, (int)i);

		fprintf(o->f, "%-8s %10.2f %10.2f %10.2f %10.2f %10.2f\n", dist_names[i], d->mean, d->p50, d->p90,
			d->p99, d->max);
	}
	fprintf(o->f, "outliers (HTA): %llu calls > %g us, %llu delays > %g us; %llu short launches (GPU "
		"time < call time <= %g us)\n",
		(unsigned long long)s->all.n_cpu_outliers, s->runtime_cutoff_us,
		(unsigned long long)s->all.n_delay_outliers, s->delay_cutoff_us,
		(unsigned long long)s->all.n_short, s->runtime_cutoff_us);
	fprintf(o->f, "\nper %s (%zu of %zu, most launches first)\n", kern ? "kernel" : "op", n,
		kern ? s->nkernel : s->nop);
	group_human_head(o, kern ? "kernel" : "op");
	for (i = 0; i < n; i++)
		group_human(o, &g[i]);
}

static int cmd_launches(int argc, char **argv)
{
	struct launch_args a = { .lo.sz = sizeof(a.lo) };
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	struct tl_launch_set *s = NULL;
	int rc = 1, err;

	if (!opts_parse(&launches_cmd, argc, argv, &a, &rc))
		goto out;
	if (cli_no_args("launches", argc, argv) || cli_check_format("launches", &a.co))
		goto out;
	if (cli_open_trace(&a.co, &tr))
		goto out;
	err = tl_launch_stats(tr, &a.lo, &s);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (out_open_opts(&o, &a.co))
		goto out;
	if (!o.sep && !o.json)
		fprintf(o.f, "Launch statistics of %s: %zu launches (GPU events linked to their launch call)\n",
			tl_trace_path(tr), s->n);
	if (a.by == BY_LAUNCH) {
		if (launches_out(&o, tr, s, a.top)) {
			out_close(&o, true);
			goto out;
		}
	} else if (a.by == BY_STREAM) {
		rows_out(&o, s);
	} else {
		print_groups(&o, s, &a);
		if (!o.sep && !o.json)
			rows_out(&o, s);
	}
	rc = out_close(&o, false);
out:
	tl_launch_set_free(s);
	tl_trace_close(tr);
	return rc;
}
