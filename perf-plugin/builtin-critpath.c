/* SPDX-License-Identifier: MIT */
/* tlreplay critpath: the critical path of one iteration (tl_critpath(),
 * include/tlreplay/critpath.h), and --fold: a copy of the trace with the
 * path marked for Perfetto. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tlreplay/critpath.h>
#include <tlreplay/trace.h>

#include "builtin.h"

struct cp_args {
	struct common_opts co;
	struct tl_critpath_opts cp;
	const char *step, *window, *fold;
	unsigned long long top;
};

static const struct opt critpath_opts[] = {
	OPT_INCLUDE(opts_analysis, offsetof(struct cp_args, co)),
	OPT_STRING(0, "window", "T0:T1", struct cp_args, window,
		   "the events that start in [T0, T1] (trace us; launch time for GPU events)"),
	OPT_U64(0, "top", "N", struct cp_args, top, "human output: the N largest contributors (default 10)"),
	OPT_BOOL(0, "hta", struct cp_args, cp.hta,
		 "HTA's numbers to the microsecond: its whole-us timestamps and, with several\n"
		 "ProfilerSteps, none of the events from the last one on"),
	OPT_BOOL(0, "sync-calls", struct cp_args, cp.sync_calls,
		 "traces without cuda_sync events: synchronize calls wait for their\n"
		 "streams' queued work (HTA's path never waits for the GPU there)"),
	OPT_STRING(0, "fold", "OUT.json", struct cp_args, fold,
		   "write a copy of the trace with the path marked: args.critical=1 on\n"
		   "its events, flow events (ph s/f) along its edges"),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(critpath, critpath_opts, "critical path of an iteration (HTA's lightweight critical path)",
	"usage: tlreplay critpath [-i TRACE] [-x SEP | -j] [-o FILE] [--step N | --window T0:T1]\n"
	"                         [--top N] [--fold OUT.json] [--hta] [--sync-calls]\n"
	"\n"
	"The longest path through a graph of the iteration's events (a start and an end node\n"
	"each): CPU op nesting, runtime call -> GPU event launches, stream order, cudaEventRecord\n"
	"/ cudaStreamWaitEvent across streams, synchronize calls waiting for the GPU work they\n"
	"drain. Prints the path's length, its time by category (cpu, kernel, gpu_gap,\n"
	"launch_delay, sync_wait) and by op or kernel; -x and -j also list its edges in order.\n"
	"docs/analyses.md, \"Critical path\", has the details.\n"
	"\n");
/* clang-format on */

static void num(FILE *f, double v)
{
	char b[64];

	fmt_pyfloat(b, sizeof(b), v);
	fputs(b, f);
}

static void field_num(struct out_fmt *o, double v, bool last)
{
	char b[64];

	fmt_pyfloat(b, sizeof(b), v);
	out_field(o, b, last);
}

static void field_u64(struct out_fmt *o, uint64_t v, bool last)
{
	char b[32];

	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	out_field(o, b, last);
}

/* Path time per attributed event name. */
struct contrib {
	const char *name, *kind;
	double us;
	uint64_t n;
};

static int cmp_contrib(const void *a, const void *b)
{
	const struct contrib *x = a, *y = b;

	if (x->us != y->us)
		return x->us > y->us ? -1 : 1;
	return strcmp(x->name, y->name);
}

static struct contrib *contributors(struct tl_trace *tr, const struct tl_critpath *cp, size_t *n)
{
	struct contrib *c = calloc(cp->npath + 1, sizeof(*c));
	size_t i, k, m = 0;

	if (!c)
		return NULL;
	for (i = 0; i < cp->npath; i++) {
		struct tl_event_info ei;
		const char *kind;

		if (tl_trace_event(tr, cp->path[i].attr_uid, &ei))
			continue;
		kind = cp->path[i].cat == TL_CP_CAT_CPU || cp->path[i].cat == TL_CP_CAT_KERNEL
			       ? tl_kind_name(ei.kind) : tl_cp_cat_name(cp->path[i].cat);
		for (k = 0; k < m; k++)
			if (!strcmp(c[k].name, ei.name) && !strcmp(c[k].kind, kind))
				break;
		if (k == m) {
			c[m].name = ei.name;
			c[m++].kind = kind;
		}
		c[k].us += cp->path[i].weight;
		c[k].n++;
	}
	qsort(c, m, sizeof(*c), cmp_contrib);
	*n = m;
	return c;
}

static double pct(double v, double tot)
{
	return tot > 0 ? v / tot * 100 : 0;
}

static void print_human(FILE *f, struct tl_trace *tr, const struct tl_critpath *cp, const struct contrib *c,
			size_t nc, uint64_t top)
{
	size_t i;
	int k;

	fprintf(f, "critical path of %s, window %.3f .. %.3f us (%.3f ms)\n", tl_trace_path(tr), cp->t0, cp->t1,
		(cp->t1 - cp->t0) / 1e3);
	fprintf(f, "graph: %llu nodes, %llu edges (op %llu, dependency %llu, launch_delay %llu, kernel_gap %llu, "
		   "sync %llu); %llu event records waited on\n",
		(unsigned long long)cp->nnodes, (unsigned long long)cp->nedges, (unsigned long long)cp->ntype[0],
		(unsigned long long)cp->ntype[1], (unsigned long long)cp->ntype[2], (unsigned long long)cp->ntype[3],
		(unsigned long long)cp->ntype[4], (unsigned long long)cp->nevent_records);
	fprintf(f, "path: %.3f ms, %zu edges, %zu nodes, %zu events\n\n", cp->length_us / 1e3, cp->npath,
		cp->npath + 1, cp->nevents);
	fprintf(f, "%-14s %12s %8s %8s\n", "category", "time ms", "percent", "edges");
	for (k = 0; k < TL_CP_NCATS; k++)
		fprintf(f, "%-14s %12.3f %7.2f%% %8llu\n", tl_cp_cat_name(k), cp->cat_us[k] / 1e3,
			pct(cp->cat_us[k], cp->length_us), (unsigned long long)cp->cat_n[k]);
	fprintf(f, "\ntop contributors\n%12s %8s %6s  %-13s %s\n", "time ms", "percent", "edges", "kind", "name");
	for (i = 0; i < nc && i < top; i++)
		fprintf(f, "%12.3f %7.2f%% %6llu  %-13s %s\n", c[i].us / 1e3, pct(c[i].us, cp->length_us),
			(unsigned long long)c[i].n, c[i].kind, c[i].name);
}

static void print_machine(struct out_fmt *o, struct tl_trace *tr, const struct tl_critpath *cp,
			  const struct contrib *c, size_t nc)
{
	static const char *const cols[] = { "row", "name", "kind", "time us", "percent", "count", "from uid",
					    "from node", "to uid", "to node", "edge", "attr uid" };
	size_t i;
	int k;

	if (o->json) {
		fputs("{\"row\":\"summary\",\"length_us\":", o->f);
		num(o->f, cp->length_us);
		fputs(",\"t0\":", o->f);
		num(o->f, cp->t0);
		fputs(",\"t1\":", o->f);
		num(o->f, cp->t1);
		fprintf(o->f, ",\"path_edges\":%zu,\"path_nodes\":%zu,\"path_events\":%zu,\"graph_nodes\":%llu,"
			      "\"graph_edges\":%llu,\"event_records\":%llu",
			cp->npath, cp->npath + 1, cp->nevents, (unsigned long long)cp->nnodes,
			(unsigned long long)cp->nedges, (unsigned long long)cp->nevent_records);
		for (k = 0; k < TL_CP_NTYPES; k++)
			fprintf(o->f, ",\"graph_%s\":%llu", tl_cp_edge_name(k), (unsigned long long)cp->ntype[k]);
		fputs("}\n", o->f);
		for (k = 0; k < TL_CP_NCATS; k++) {
			fprintf(o->f, "{\"row\":\"category\",\"name\":\"%s\",\"time_us\":", tl_cp_cat_name(k));
			num(o->f, cp->cat_us[k]);
			fputs(",\"percent\":", o->f);
			num(o->f, pct(cp->cat_us[k], cp->length_us));
			fprintf(o->f, ",\"count\":%llu}\n", (unsigned long long)cp->cat_n[k]);
		}
		for (i = 0; i < nc; i++) {
			fputs("{\"row\":\"contributor\",\"name\":", o->f);
			json_str(o->f, c[i].name);
			fprintf(o->f, ",\"kind\":\"%s\",\"time_us\":", c[i].kind);
			num(o->f, c[i].us);
			fputs(",\"percent\":", o->f);
			num(o->f, pct(c[i].us, cp->length_us));
			fprintf(o->f, ",\"count\":%llu}\n", (unsigned long long)c[i].n);
		}
		for (i = 0; i < cp->npath; i++) {
			const struct tl_cp_edge *e = &cp->path[i];
			struct tl_event_info ei = { .name = "" };

			tl_trace_event(tr, e->attr_uid, &ei);
			fputs("{\"row\":\"edge\",\"name\":", o->f);
			json_str(o->f, ei.name);
			fprintf(o->f, ",\"kind\":\"%s\",\"time_us\":", tl_cp_cat_name(e->cat));
			num(o->f, e->weight);
			fprintf(o->f, ",\"from_uid\":%llu,\"from_node\":\"%s\",\"to_uid\":%llu,\"to_node\":\"%s\","
				      "\"edge\":\"%s\",\"attr_uid\":%llu}\n",
				(unsigned long long)e->from_uid, e->from_end ? "end" : "start",
				(unsigned long long)e->to_uid, e->to_end ? "end" : "start", tl_cp_edge_name(e->type),
				(unsigned long long)e->attr_uid);
		}
		return;
	}
	for (i = 0; i < TL_ARRAY_N(cols); i++)
		out_field(o, cols[i], i + 1 == TL_ARRAY_N(cols));
	out_field(o, "summary", false);
	out_field(o, "path", false);
	out_field(o, "", false);
	field_num(o, cp->length_us, false);
	field_num(o, 100, false);
	field_u64(o, cp->npath, false);
	for (i = 0; i < 5; i++)
		out_field(o, "", false);
	out_field(o, "", true);
	for (k = 0; k < TL_CP_NCATS; k++) {
		out_field(o, "category", false);
		out_field(o, tl_cp_cat_name(k), false);
		out_field(o, "", false);
		field_num(o, cp->cat_us[k], false);
		field_num(o, pct(cp->cat_us[k], cp->length_us), false);
		field_u64(o, cp->cat_n[k], false);
		for (i = 0; i < 5; i++)
			out_field(o, "", false);
		out_field(o, "", true);
	}
	for (i = 0; i < nc; i++) {
		size_t j;

		out_field(o, "contributor", false);
		out_field(o, c[i].name, false);
		out_field(o, c[i].kind, false);
		field_num(o, c[i].us, false);
		field_num(o, pct(c[i].us, cp->length_us), false);
		field_u64(o, c[i].n, false);
		for (j = 0; j < 5; j++)
			out_field(o, "", false);
		out_field(o, "", true);
	}
	for (i = 0; i < cp->npath; i++) {
		const struct tl_cp_edge *e = &cp->path[i];
		struct tl_event_info ei = { .name = "" };

		tl_trace_event(tr, e->attr_uid, &ei);
		out_field(o, "edge", false);
		out_field(o, ei.name, false);
		out_field(o, tl_cp_cat_name(e->cat), false);
		field_num(o, e->weight, false);
		field_num(o, pct(e->weight, cp->length_us), false);
		field_u64(o, 1, false);
		field_u64(o, e->from_uid, false);
		out_field(o, e->from_end ? "end" : "start", false);
		field_u64(o, e->to_uid, false);
		out_field(o, e->to_end ? "end" : "start", false);
		out_field(o, tl_cp_edge_name(e->type), false);
		field_u64(o, e->attr_uid, true);
	}
}

static int file_write(const void *buf, size_t len, void *ctx)
{
	return fwrite(buf, 1, len, ctx) == len ? 0 : -(errno ? errno : EIO);
}

/* The path edges that get an arrow: not one inside a single event (that
 * event is its own mark), not one to or from an event merged from a capture
 * trace (not in the file). */
struct fold_flows {
	const struct tl_critpath *cp;
	uint64_t nfile;
	size_t *edge; /* the kept edges' indices in cp->path */
};

/* The @i-th flow event: an "s" at the source of kept edge i / 2, or the
 * "f" at its destination (the pid and tid are the event's, put by the
 * library), written into @buf. */
static int flow_event(void *ctx, size_t i, struct tl_extra_event *out, char *buf, size_t size)
{
	const struct fold_flows *f = ctx;
	size_t k = f->edge[i / 2];
	const struct tl_cp_edge *e = &f->cp->path[k];
	const char *type = tl_cp_edge_name(e->type);
	char ph = i % 2 ? 'f' : 's', t[40], w[40];
	int n;

	fmt_pyfloat(t, sizeof(t), ph == 's' ? e->from_ts : e->to_ts);
	fmt_pyfloat(w, sizeof(w), e->weight);
	n = snprintf(buf, size,
		     "\"ph\":\"%c\",\"cat\":\"critical_path\",\"name\":\"critical_path_%s\","
		     "\"id\":%llu,\"ts\":%s,%s\"args\":{\"critical\":1,\"type\":\"critical_path_%s\","
		     "\"weight\":%s}",
		     ph, type, (unsigned long long)(0x7c000000u + k), t, ph == 'f' ? "\"bp\":\"e\"," : "", type, w);
	if (n < 0 || (size_t)n >= size)
		return -EOVERFLOW;
	out->like = ph == 's' ? e->from_uid : e->to_uid;
	out->members = buf;
	return 0;
}

/* critpath --fold (builtin.h): streamed from the loaded trace (no JSON tree
 * of it: a copy of a GB trace costs no more memory than its analysis), the
 * path's flow events made as they are written (two per edge: on a trace of
 * a million small events 1.1 M of them, 170 MB of text never held). */
int critpath_fold(struct tl_trace *tr, const char *out, const struct tl_critpath *cp)
{
	struct fold_flows f = { cp, tl_trace_nevents_file(tr), calloc(cp->npath + 1, sizeof(size_t)) };
	struct tl_mark *marks = calloc(cp->nevents + 1, sizeof(*marks));
	struct out_fmt o = { 0 };
	size_t i, nm = 0, ne = 0;
	int rc = 1, err;

	if (!marks || !f.edge) {
		cli_error("critpath: out of memory");
		goto out;
	}
	/* events merged from graph captures are not in the file: not marked */
	for (i = 0; i < cp->nevents; i++)
		if (cp->events[i] < f.nfile)
			marks[nm++] = (struct tl_mark){ cp->events[i], "critical", "1" };
	for (i = 0; i < cp->npath; i++) {
		const struct tl_cp_edge *e = &cp->path[i];

		if (e->from_uid != e->to_uid && e->from_uid < f.nfile && e->to_uid < f.nfile)
			f.edge[ne++] = i;
	}
	if (out_open(&o, out))
		goto out;
	err = tl_trace_write_marked_gen(tr, marks, nm, flow_event, &f, 2 * ne, file_write, o.f);
	if (err)
		cli_lib_error(err);
	rc = out_close(&o, err != 0) || err ? 1 : 0;
out:
	free(f.edge);
	free(marks);
	return rc;
}

static int parse_window(struct cp_args *a)
{
	char *end;

	if (a->step && a->window)
		return cli_error("critpath: --step and --window exclude each other");
	if (a->step) {
		long long v = strtoll(a->step, &end, 10);

		if (end == a->step || *end || v < 0)
			return cli_error("critpath: bad --step '%s' (a step number >= 0, N of ProfilerStep#N)",
					 a->step);
		a->cp.step = v;
	}
	if (a->window) {
		a->cp.t0 = strtod(a->window, &end);
		if (end == a->window || *end != ':' || !isfinite(a->cp.t0))
			return cli_error("critpath: bad --window '%s' (T0:T1, trace microseconds)", a->window);
		a->cp.t1 = strtod(end + 1, &end);
		if (*end || !isfinite(a->cp.t1) || !(a->cp.t0 < a->cp.t1))
			return cli_error("critpath: bad --window '%s' (T0:T1 with T0 < T1)", a->window);
	}
	return 0;
}

static int cmd_critpath(int argc, char **argv)
{
	struct cp_args a = { .cp = { .sz = sizeof(a.cp), .step = -1 }, .top = 10 };
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	struct tl_critpath *cp = NULL;
	struct contrib *c = NULL;
	size_t nc = 0;
	int rc = 1, err;

	if (!opts_parse(&critpath_cmd, argc, argv, &a, &rc))
		goto out;
	/* the analyses' --step: critpath bounds its graph by the step's
	 * window itself (launches and syncs across its edges stay in view),
	 * so the trace is opened whole */
	a.step = a.co.step;
	a.co.step = NULL;
	if (cli_no_args("critpath", argc, argv) || cli_check_format("critpath", &a.co) || parse_window(&a))
		goto out;
	if (a.fold && !*a.fold) {
		rc = cli_error("critpath: bad --fold '' (a file to write)");
		goto out;
	}
	if (cli_open_trace(&a.co, &tr))
		goto out;
	err = tl_critpath(tr, &a.cp, &cp);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	c = contributors(tr, cp, &nc);
	if (!c) {
		rc = cli_error("critpath: out of memory");
		goto out;
	}
	if (a.fold && critpath_fold(tr, a.fold, cp))
		goto out;
	if (out_open_opts(&o, &a.co))
		goto out;
	if (o.sep || o.json)
		print_machine(&o, tr, cp, c, nc);
	else
		print_human(o.f, tr, cp, c, nc, a.top);
	rc = out_close(&o, false);
out:
	free(c);
	tl_critpath_free(cp);
	tl_trace_close(tr);
	return rc;
}
