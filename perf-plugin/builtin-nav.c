/* SPDX-License-Identifier: MIT */
/* tlreplay list / show / tree: navigation by UID. */
#include <cjson/cJSON.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"

/* Earliest ts in the trace: relative times in human output start here. */
static double trace_t0(const struct tl_trace *tr)
{
	uint64_t i, n = tl_trace_nevents(tr);
	double t0 = INFINITY;

	for (i = 0; i < n; i++) {
		struct tl_event_info e;

		tl_trace_event(tr, i, &e);
		if (e.has_ts && e.kind != TL_KIND_METADATA && e.ts < t0)
			t0 = e.ts;
	}
	return isinf(t0) ? 0 : t0;
}

static bool parse_uid(const char *cmd, const char *s, const struct tl_trace *tr, uint64_t *uid)
{
	unsigned long long v;

	if (!parse_u64(s, &v)) {
		cli_error("%s: '%s' is not a UID (a UID is an event's index in traceEvents)", cmd, s);
		return false;
	}
	if (v >= tl_trace_nevents(tr)) {
		cli_error("%s: no event with UID %llu in %s (UIDs go from 0 to %llu)", cmd, v,
			  tl_trace_path(tr), (unsigned long long)tl_trace_nevents(tr) - 1);
		return false;
	}
	*uid = v;
	return true;
}

static const char *kind_label(const struct tl_event_info *e)
{
	return *e->cat ? e->cat : tl_kind_name(e->kind);
}

/* show and tree: the trace of @co linked into its call tree (with
 * python_function events when @py), and the output opened. Returns 0, or 1
 * after printing why; the caller closes *tr either way. */
static int nav_load(const struct common_opts *co, bool py, struct tl_trace **tr, struct out_fmt *o)
{
	struct tl_link_opts lo = { .sz = sizeof(lo), .with_python = py };
	int err;

	if (cli_open_trace(co, tr))
		return 1;
	err = tl_trace_link(*tr, &lo);
	if (err)
		return cli_lib_error(err);
	return out_open(o, co->output);
}

/* ------------------------------------------------------------------ list */

struct list_ctx {
	struct common_opts co;
	const char *name_re, *cat;
	double from, to;
	bool have_from, have_to, gpu;
	unsigned long long limit;
	bool limit_set;
};

static bool parse_time(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end != s && !*end && isfinite(*v);
}

/* --from, --to (opt->value 't') */
static int opt_window(const struct opt *opt, const char *arg, void *obj)
{
	struct list_ctx *x = obj;
	bool to = opt->value == 't';

	*(to ? &x->have_to : &x->have_from) = true;
	if (!parse_time(arg, to ? &x->to : &x->from))
		return cli_error("list: bad --%s '%s'", opt->long_name, arg);
	return 0;
}

static int opt_list_limit(const struct opt *opt, const char *arg, void *obj)
{
	struct list_ctx *x = obj;

	(void)opt;
	x->limit_set = true;	/* else the default depends on where the output goes */
	return parse_u64(arg, &x->limit) ? 0 : cli_error("list: bad --limit '%s'", arg);
}

static const struct opt list_opts[] = {
	OPT_INCLUDE(opts_analysis, offsetof(struct list_ctx, co)),
	OPT_STRING(0, "name", "REGEX", struct list_ctx, name_re,
		   "event names matching the extended regular expression"),
	OPT_STRING('c', "cat", "CAT", struct list_ctx, cat,
		   "events of this category (raw \"cat\", or a kind such as\n"
		   "cpu_op, runtime, kernel, gpu_memcpy, python_function)"),
	OPT_BOOL(0, "gpu", struct list_ctx, gpu, "GPU events only (kernel, gpu_memcpy, gpu_memset)"),
	OPT_CALLBACK(0, "from", "US", opt_window, 'f',
		     "events overlapping this window, in microseconds from the\n"
		     "first event of the trace"),
	OPT_CALLBACK_SAME_LINE("to", "US", opt_window, 't'),
	OPT_CALLBACK('n', "limit", "N", opt_list_limit, 0,
		     "at most N events (0 = all; default 50 for human output on\n"
		     "stdout, all otherwise)"),
	OPT_END(),
};

TL_CMD(list, list_opts, "list events with their UIDs",
	"usage: tlreplay list [-i TRACE] [-x SEP | -j] [-o FILE] [REGEX] [--name REGEX]\n"
	"                     [-c CAT] [--gpu] [--from US] [--to US] [-n N]\n"
	"\n"
	"List events with their UIDs (the index in traceEvents, as in TraceLens).\n"
	"\n");

static int cmd_list(int argc, char **argv)
{
	struct list_ctx x = { 0 };
	struct common_opts *co = &x.co;
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	regex_t re;
	bool have_re = false;
	uint64_t i, n, shown = 0, matched = 0;
	double t0;
	int rc = 1;

	if (!opts_parse(&list_cmd, argc, argv, &x, &rc))
		return rc;
	if (cli_check_format("list", co))
		return 1;
	/* a bare positional argument is taken as the name pattern */
	if (optind < argc && !x.name_re)
		x.name_re = argv[optind++];
	if (cli_no_args("list", argc, argv))
		return 1;
	if (x.name_re) {
		int r = regcomp(&re, x.name_re, REG_EXTENDED | REG_NOSUB);

		if (r) {
			char msg[256];

			regerror(r, &re, msg, sizeof(msg));
			return cli_error("list: bad regular expression '%s': %s", x.name_re, msg);
		}
		have_re = true;
	}
	if (!x.limit_set && !co->sep && !co->json && !co->output)
		x.limit = 50;
	if (cli_open_trace(co, &tr))
		goto out;
	if (out_open_opts(&o, co))
		goto out;
	t0 = trace_t0(tr);
	if (o.sep) {
		static const char *const hdr[] = { "uid", "cat", "name", "ts", "dur", "pid", "tid" };
		size_t h;

		for (h = 0; h < TL_ARRAY_N(hdr); h++)
			out_field(&o, hdr[h], h + 1 == TL_ARRAY_N(hdr));
	} else if (!o.json) {
		fprintf(o.f, "%9s  %-16s %14s %12s  %s\n", "UID", "cat", "start ms", "dur us", "name");
	}
	n = tl_trace_nevents(tr);
	for (i = 0; i < n; i++) {
		struct tl_event_info e;
		double rel;

		tl_trace_event(tr, i, &e);
		if (x.gpu && !tl_kind_is_gpu(e.kind))
			continue;
		if (x.cat && strcmp(x.cat, e.cat) && strcmp(x.cat, tl_kind_name(e.kind)))
			continue;
		rel = e.ts - t0;
		if ((x.have_from || x.have_to) && !e.has_ts)
			continue;
		if (x.have_from && rel + (e.has_dur ? e.dur : 0) < x.from)
			continue;
		if (x.have_to && rel > x.to)
			continue;
		if (have_re && regexec(&re, e.name, 0, NULL, 0))
			continue;
		matched++;
		if (x.limit && shown >= x.limit)
			continue;
		shown++;
		if (o.json) {
			char ts[64], dur[64];

			fmt_pyfloat(ts, sizeof(ts), e.ts);
			fmt_pyfloat(dur, sizeof(dur), e.dur);
			fprintf(o.f, "{\"uid\":%llu,\"cat\":", (unsigned long long)i);
			json_str(o.f, e.cat);
			fputs(",\"name\":", o.f);
			json_str(o.f, e.name);
			fprintf(o.f, ",\"ts\":%s,\"dur\":%s,\"pid\":", e.has_ts ? ts : "null",
				e.has_dur ? dur : "null");
			json_str(o.f, e.pid);
			fputs(",\"tid\":", o.f);
			json_str(o.f, e.tid);
			fputs("}\n", o.f);
		} else if (o.sep) {
			char uid[32], ts[64] = "", dur[64] = "";

			snprintf(uid, sizeof(uid), "%llu", (unsigned long long)i);
			if (e.has_ts)
				fmt_pyfloat(ts, sizeof(ts), e.ts);
			if (e.has_dur)
				fmt_pyfloat(dur, sizeof(dur), e.dur);
			out_field(&o, uid, false);
			out_field(&o, e.cat, false);
			out_field(&o, e.name, false);
			out_field(&o, ts, false);
			out_field(&o, dur, false);
			out_field(&o, e.pid, false);
			out_field(&o, e.tid, true);
		} else {
			fprintf(o.f, "%9llu  %-16.16s %14.3f %12.3f  %.120s\n", (unsigned long long)i,
				kind_label(&e), e.has_ts ? rel / 1000 : NAN, e.has_dur ? e.dur : NAN,
				e.name);
		}
	}
	if (!o.sep && !o.json && matched > shown)
		fprintf(o.f, "... %llu more matching events (use --limit 0 for all)\n",
			(unsigned long long)(matched - shown));
	if (!o.sep && !o.json && !matched)
		fprintf(o.f, "no event matches\n");
	rc = out_close(&o, false);
out:
	if (have_re)
		regfree(&re);
	tl_trace_close(tr);
	return rc;
}

/* ------------------------------------------------------------------ show */

static void show_line(FILE *f, const struct tl_trace *tr, uint64_t uid, const char *prefix)
{
	struct tl_event_info e;
	char d[32] = "";

	tl_trace_event(tr, uid, &e);
	if (e.has_dur)
		fmt_us(d, sizeof(d), e.dur);
	fprintf(f, "%s%-9llu %-16.16s %-12s %.110s\n", prefix, (unsigned long long)uid,
		kind_label(&e), d, e.name);
}

static double busy_us(const struct tl_trace *tr, const uint64_t *uids, size_t n)
{
	/* union of [ts, ts+dur): small lists, insertion sort is fine */
	double *s = malloc(n * sizeof(double) + 1), *en = malloc(n * sizeof(double) + 1);
	double busy = 0, cs = 0, ce = 0;
	size_t i, j;

	if (!s || !en) {
		free(s);
		free(en);
		return NAN;
	}
	for (i = 0; i < n; i++) {
		struct tl_event_info e;

		tl_trace_event(tr, uids[i], &e);
		s[i] = e.ts;
		en[i] = e.ts + e.dur;
		for (j = i; j > 0 && s[j - 1] > s[j]; j--) {
			double t = s[j];

			s[j] = s[j - 1];
			s[j - 1] = t;
			t = en[j];
			en[j] = en[j - 1];
			en[j - 1] = t;
		}
	}
	for (i = 0; i < n; i++) {
		if (i == 0 || s[i] > ce) {
			if (i)
				busy += ce - cs;
			cs = s[i];
			ce = en[i];
		} else if (en[i] > ce) {
			ce = en[i];
		}
	}
	if (n)
		busy += ce - cs;
	free(s);
	free(en);
	return busy;
}

static void show_json(FILE *f, struct tl_trace *tr, uint64_t uid)
{
	struct tl_event_info e;
	uint64_t *gpu = NULL, bwd[64];
	int64_t p, c, ng, fwd;
	size_t nb, i;
	bool first;
	cJSON *args = NULL;

	tl_trace_event(tr, uid, &e);
	fprintf(f, "{\"uid\":%llu,\"name\":", (unsigned long long)uid);
	json_str(f, e.name);
	fputs(",\"cat\":", f);
	json_str(f, e.cat);
	fprintf(f, ",\"ph\":\"%c\"", e.ph ? e.ph : '?');
	if (e.has_ts) {
		char b[64];

		fmt_pyfloat(b, sizeof(b), e.ts);
		fprintf(f, ",\"ts\":%s", b);
	}
	if (e.has_dur) {
		char b[64];

		fmt_pyfloat(b, sizeof(b), e.dur);
		fprintf(f, ",\"dur\":%s", b);
	}
	fputs(",\"pid\":", f);
	json_str(f, e.pid);
	fputs(",\"tid\":", f);
	json_str(f, e.tid);
	if (e.correlation != TL_NOID)
		fprintf(f, ",\"correlation\":%lld", (long long)e.correlation);
	if (e.external_id != TL_NOID)
		fprintf(f, ",\"external_id\":%lld", (long long)e.external_id);
	if (e.stream != TL_NOID)
		fprintf(f, ",\"stream\":%lld", (long long)e.stream);
	if (e.device != TL_NOID)
		fprintf(f, ",\"device\":%lld", (long long)e.device);
	fputs(",\"args\":", f);
	if (!tl_trace_event_args(tr, uid, &args) && args) {
		char *s = cJSON_PrintUnformatted(args);

		fputs(s ? s : "null", f);
		free(s);
		cJSON_Delete(args);
	} else {
		fputs("null", f);
	}
	fputs(",\"parents\":[", f);
	for (first = true, p = tl_event_parent(tr, uid); p >= 0; p = tl_event_parent(tr, (uint64_t)p)) {
		fprintf(f, "%s%lld", first ? "" : ",", (long long)p);
		first = false;
	}
	fputs("],\"children\":[", f);
	for (first = true, c = tl_event_first_child(tr, uid); c >= 0;
	     c = tl_event_next_sibling(tr, (uint64_t)c)) {
		fprintf(f, "%s%lld", first ? "" : ",", (long long)c);
		first = false;
	}
	fputs("]", f);
	ng = tl_event_gpu_events(tr, uid, &gpu);
	fputs(",\"gpu_events\":[", f);
	for (i = 0; ng > 0 && i < (size_t)ng; i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)gpu[i]);
	fputs("]", f);
	if (ng > 0) {
		char b[64];

		fmt_pyfloat(b, sizeof(b), busy_us(tr, gpu, (size_t)ng));
		fprintf(f, ",\"gpu_busy_us\":%s", b);
	}
	free(gpu);
	if (tl_kind_is_gpu(e.kind)) {
		fprintf(f, ",\"linked\":%s,\"launcher\":%lld", tl_event_linked(tr, uid) ? "true" : "false",
			(long long)tl_event_launcher(tr, uid));
	}
	fwd = tl_event_fwd(tr, uid);
	if (fwd >= 0)
		fprintf(f, ",\"fwd\":%lld", (long long)fwd);
	nb = tl_event_bwd(tr, uid, bwd, TL_ARRAY_N(bwd));
	if (nb) {
		fputs(",\"bwd\":[", f);
		for (i = 0; i < nb && i < TL_ARRAY_N(bwd); i++)
			fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)bwd[i]);
		fputs("]", f);
	}
	fputs("}\n", f);
}

static void show_human(FILE *f, struct tl_trace *tr, uint64_t uid)
{
	struct tl_event_info e;
	uint64_t *gpu = NULL, bwd[16];
	int64_t p, c, ng, fwd, depth = 0, nchild = 0;
	size_t nb, i;
	cJSON *args = NULL;
	char d[32];

	tl_trace_event(tr, uid, &e);
	fprintf(f, "UID %llu: %s\n", (unsigned long long)uid, e.name);
	fprintf(f, "  cat %s (%s), ph %c, pid %s, tid %s\n", *e.cat ? e.cat : "-",
		tl_kind_name(e.kind), e.ph ? e.ph : '?', *e.pid ? e.pid : "-", *e.tid ? e.tid : "-");
	if (e.has_ts) {
		fmt_us(d, sizeof(d), e.dur);
		fprintf(f, "  ts %.3f us, dur %s\n", e.ts, e.has_dur ? d : "-");
	}
	if (!tl_trace_event_args(tr, uid, &args) && args) {
		char *s = cJSON_Print(args);
		char *line, *save = NULL;

		fputs("  args:\n", f);
		for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			/* cJSON indents with tabs: two spaces read better in a terminal */
			fputs("    ", f);
			for (; *line == '\t'; line++)
				fputs("  ", f);
			for (; *line; line++)
				fputc(*line == '\t' ? ' ' : *line, f);
			fputc('\n', f);
		}
		free(s);
		cJSON_Delete(args);
	}
	if (tl_event_parent(tr, uid) >= 0) {
		fputs("  call stack (innermost first):\n", f);
		for (p = tl_event_parent(tr, uid); p >= 0 && depth < 64;
		     p = tl_event_parent(tr, (uint64_t)p), depth++)
			show_line(f, tr, (uint64_t)p, "    ");
	} else if (!tl_event_in_tree(tr, uid)) {
		fputs("  not in the call tree (only cpu_op, runtime and driver events, and linked GPU events are)\n",
		      f);
	} else {
		fputs("  a root of the call tree\n", f);
	}
	for (c = tl_event_first_child(tr, uid); c >= 0; c = tl_event_next_sibling(tr, (uint64_t)c))
		nchild++;
	if (nchild) {
		fprintf(f, "  children (%lld):\n", (long long)nchild);
		for (c = tl_event_first_child(tr, uid), i = 0; c >= 0 && i < 40;
		     c = tl_event_next_sibling(tr, (uint64_t)c), i++)
			show_line(f, tr, (uint64_t)c, "    ");
		if (nchild > 40)
			fprintf(f, "    ... %lld more\n", (long long)nchild - 40);
	}
	if (tl_kind_is_gpu(e.kind)) {
		int64_t l = tl_event_launcher(tr, uid);

		if (!tl_event_linked(tr, uid)) {
			fputs("  not linked to a CPU launch (no runtime call with its correlation id)\n", f);
		} else {
			fputs("  launched by:\n", f);
			show_line(f, tr, (uint64_t)tl_event_parent(tr, uid), "    runtime  ");
			if (l >= 0)
				show_line(f, tr, (uint64_t)l, "    launcher ");
		}
	} else {
		ng = tl_event_gpu_events(tr, uid, &gpu);
		if (ng > 0) {
			fmt_us(d, sizeof(d), busy_us(tr, gpu, (size_t)ng));
			fprintf(f, "  GPU events below it: %lld, busy %s\n", (long long)ng, d);
			for (i = 0; i < (size_t)ng && i < 40; i++)
				show_line(f, tr, gpu[ng - 1 - (int64_t)i], "    ");
			if (ng > 40)
				fprintf(f, "    ... %lld more\n", (long long)ng - 40);
		}
		free(gpu);
	}
	fwd = tl_event_fwd(tr, uid);
	if (fwd >= 0)
		show_line(f, tr, (uint64_t)fwd, "  forward op: ");
	nb = tl_event_bwd(tr, uid, bwd, TL_ARRAY_N(bwd));
	for (i = 0; i < nb && i < TL_ARRAY_N(bwd); i++)
		show_line(f, tr, bwd[i], "  backward:   ");
}

struct show_args {
	struct common_opts co;
	bool py;
};

static const struct opt show_opts[] = {
	OPT_INCLUDE(opts_nav_json, offsetof(struct show_args, co)),
	OPT_BOOL(0, "python", struct show_args, py, "build the call tree with python_function events"),
	OPT_END(),
};

TL_CMD(show, show_opts, "show one event: args, call stack, children, GPU events",
	"usage: tlreplay show [-i TRACE] [-j] [-o FILE] [--python] UID...\n"
	"\n"
	"Show an event: its fields and args, the call stack above it, its children, the GPU\n"
	"events below it (or, for a GPU event, the runtime call and op that launched it), and\n"
	"its forward/backward partner.\n"
	"\n");

static int cmd_show(int argc, char **argv)
{
	struct show_args x = { 0 };
	struct common_opts *co = &x.co;
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	int rc = 1, a;

	if (!opts_parse(&show_cmd, argc, argv, &x, &rc))
		return rc;
	if (cli_check_format("show", co) || cli_no_sep("show", co))
		return 1;
	if (optind >= argc)
		return cli_error("show: which event? usage: tlreplay show [-i TRACE] UID...");
	if (nav_load(co, x.py, &tr, &o))
		goto out;
	for (a = optind; a < argc; a++) {
		uint64_t uid;

		if (!parse_uid("show", argv[a], tr, &uid)) {
			out_close(&o, true);
			goto out;
		}
		if (co->json)
			show_json(o.f, tr, uid);
		else {
			if (a > optind)
				fputc('\n', o.f);
			show_human(o.f, tr, uid);
		}
	}
	rc = out_close(&o, false);
out:
	tl_trace_close(tr);
	return rc;
}

/* ------------------------------------------------------------------ tree */

struct tree_ctx {
	struct common_opts co;
	bool py;
	bool all;
	unsigned long long depth;
	bool depth_set;
};

static int opt_depth(const struct opt *opt, const char *arg, void *obj)
{
	struct tree_ctx *x = obj;

	(void)opt;
	x->depth_set = true;
	return parse_u64(arg, &x->depth) ? 0 : cli_error("tree: bad --depth '%s'", arg);
}

static bool has_gpu_below(struct tl_trace *tr, uint64_t uid)
{
	uint64_t *g = NULL;
	int64_t n = tl_event_gpu_events(tr, uid, &g);

	free(g);
	return n > 0;
}

static void tree_print(FILE *f, struct tl_trace *tr, uint64_t uid, const char *prefix, bool last,
		       unsigned long long depth, const struct tree_ctx *x, bool json)
{
	struct tl_event_info e;
	int64_t c, next;
	char pfx[1024], d[32] = "";

	tl_trace_event(tr, uid, &e);
	if (json) {
		fprintf(f, "{\"uid\":%llu,\"depth\":%llu,\"parent\":%lld,\"cat\":", (unsigned long long)uid,
			depth, (long long)tl_event_parent(tr, uid));
		json_str(f, e.cat);
		fputs(",\"name\":", f);
		json_str(f, e.name);
		if (e.has_dur) {
			char b[64];

			fmt_pyfloat(b, sizeof(b), e.dur);
			fprintf(f, ",\"dur\":%s", b);
		}
		fputs("}\n", f);
	} else {
		if (e.has_dur)
			fmt_us(d, sizeof(d), e.dur);
		fprintf(f, "%s%s%llu %s [%s] %s\n", prefix, depth ? (last ? "└── " : "├── ") : "",
			(unsigned long long)uid, e.name, kind_label(&e), d);
	}
	if (x->depth_set && depth >= x->depth)
		return;
	snprintf(pfx, sizeof(pfx), "%s%s", prefix, depth ? (last ? "    " : "│   ") : "");
	c = tl_event_first_child(tr, uid);
	while (c >= 0 && !x->all && !has_gpu_below(tr, (uint64_t)c))
		c = tl_event_next_sibling(tr, (uint64_t)c);
	while (c >= 0) {
		next = tl_event_next_sibling(tr, (uint64_t)c);
		while (next >= 0 && !x->all && !has_gpu_below(tr, (uint64_t)next))
			next = tl_event_next_sibling(tr, (uint64_t)next);
		tree_print(f, tr, (uint64_t)c, pfx, next < 0, depth + 1, x, json);
		c = next;
	}
}

static const struct opt tree_opts[] = {
	OPT_INCLUDE(opts_nav_json, offsetof(struct tree_ctx, co)),
	OPT_BOOL('a', "all", struct tree_ctx, all, "keep branches that launch no GPU work"),
	OPT_CALLBACK('d', "depth", "N", opt_depth, 0, "stop N levels below the start"),
	OPT_BOOL(0, "python", struct tree_ctx, py, "build the call tree with python_function events"),
	OPT_END(),
};

TL_CMD(tree, tree_opts, "the CPU op -> runtime -> GPU call tree",
	"usage: tlreplay tree [-i TRACE] [-j] [-o FILE] [--all] [-d N] [--python] [UID]\n"
	"\n"
	"Print the call tree below UID (CPU op -> runtime call -> GPU events), or every root\n"
	"of the tree that leads to GPU work (to depth 2 unless -d is given).\n"
	"\n");

static int cmd_tree(int argc, char **argv)
{
	struct tree_ctx x = { 0 };
	struct common_opts *co = &x.co;
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	int rc = 1;

	if (!opts_parse(&tree_cmd, argc, argv, &x, &rc))
		return rc;
	if (cli_check_format("tree", co) || cli_no_sep("tree", co))
		return 1;
	if (argc - optind > 1)
		return cli_error("tree: at most one UID");
	if (nav_load(co, x.py, &tr, &o))
		goto out;
	if (optind < argc) {
		uint64_t uid;

		if (!parse_uid("tree", argv[optind], tr, &uid)) {
			out_close(&o, true);
			goto out;
		}
		tree_print(o.f, tr, uid, "", true, 0, &x, co->json);
	} else {
		/* every root of the host tree that leads to GPU work (or all with --all) */
		uint64_t i, n = tl_trace_nevents(tr), roots = 0;

		if (!x.depth_set) {
			x.depth_set = true;
			x.depth = 2;
		}
		for (i = 0; i < n; i++) {
			if (!tl_event_in_tree(tr, i) || tl_event_parent(tr, i) >= 0)
				continue;
			if (!x.all && !has_gpu_below(tr, i))
				continue;
			tree_print(o.f, tr, i, "", true, 0, &x, co->json);
			roots++;
		}
		if (!co->json && !roots)
			fputs("no call-tree root leads to GPU work (use --all to see every root)\n", o.f);
	}
	rc = out_close(&o, false);
out:
	tl_trace_close(tr);
	return rc;
}
