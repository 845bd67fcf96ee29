/* SPDX-License-Identifier: MIT */
/* tlreplay list: events with their UIDs, by name, category and time window. */
#include <cjson/cJSON.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/nav.h"

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

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(list, list_opts, "list events with their UIDs",
	"usage: tlreplay list [-i TRACE] [-x SEP | -j] [-o FILE] [REGEX] [--name REGEX]\n"
	"                     [-c CAT] [--gpu] [--from US] [--to US] [-n N]\n"
	"\n"
	"List events with their UIDs (the index in traceEvents, as in TraceLens).\n"
	"\n");
/* clang-format on */

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
	t0 = nav_trace_t0(tr);
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
				nav_kind_label(&e), e.has_ts ? rel / 1000 : NAN, e.has_dur ? e.dur : NAN,
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

