/* SPDX-License-Identifier: MIT */
/* tlreplay check: the trace's health report (exit 1 on errors). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"

struct check_args {
	struct common_opts co;
	struct tl_health_opts ho;
};

static int opt_pct(const struct opt *opt, const char *arg, void *obj)
{
	struct check_args *a = obj;
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= 0 && v <= 100))
		return cli_error("check: bad --%s '%s' (a percentage, 0 to 100)", opt->long_name, arg);
	/* 0 in the options means the default: none at all is the smallest share */
	a->ho.max_unattributed_pct = v > 0 ? v : 1e-9;
	return 0;
}

static const struct opt check_opts[] = {
	OPT_INCLUDE(opts_analysis, offsetof(struct check_args, co)),
	OPT_CALLBACK(0, "max-unattributed", "PCT", opt_pct, 0,
		     "an error when more than PCT % of GPU time is graph kernels\n"
		     "no op owns (default 20)"),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(check, check_opts, "trace health report (exit 1 on errors)",
	"usage: tlreplay check [-i TRACE] [-x SEP | -j] [-o FILE] [--max-unattributed PCT]\n"
	"\n"
	"Trace health report: GPU events no CPU launch links to, flows without a start,\n"
	"kernels on one stream that overlap or run past the next one, ops without shapes,\n"
	"negative or missing durations, clock disagreements between CPU and GPU, graph\n"
	"kernels no op owns (a replayed CUDA/HIP graph without its capture).\n"
	"Exit status: 0 if nothing is an error, 1 if some finding is an error.\n"
	"\n");
/* clang-format on */

static int cmd_check(int argc, char **argv)
{
	static const char *const sev[] = { "info", "warning", "error" };
	struct check_args a = { .ho = { .sz = sizeof(a.ho) } };
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	struct tl_health *h = NULL;
	size_t i;
	int rc = 1, err;

	if (!opts_parse(&check_cmd, argc, argv, &a, &rc))
		return rc;
	if (cli_check_format("check", &a.co))
		return 1;
	if (cli_no_args("check", argc, argv))
		return 1;
	if (cli_open_trace(&a.co, &tr))
		return 1;
	/* the checks read every event's args once, in order: the text's pages
	 * can go behind them (1 M small events: 280 -> 180 MB, 2.1x -> 1.4x
	 * of the text, in the same time; docs/BENCHMARKS.md) */
	tl_trace_set_text_window(tr, true);
	err = tl_health_check_opts(tr, &a.ho, &h);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (out_open_opts(&o, &a.co))
		goto out;
	if (a.co.sep) {
		out_field(&o, "severity", false);
		out_field(&o, "code", false);
		out_field(&o, "count", false);
		out_field(&o, "example_uid", false);
		out_field(&o, "message", true);
	}
	for (i = 0; i < h->n; i++) {
		const struct tl_finding *f = &h->v[i];

		if (a.co.json) {
			fprintf(o.f, "{\"severity\":\"%s\",\"code\":\"%s\",\"count\":%llu,", sev[f->severity],
				f->code, (unsigned long long)f->count);
			if (f->example_uid >= 0)
				fprintf(o.f, "\"example_uid\":%lld,", (long long)f->example_uid);
			fputs("\"message\":", o.f);
			json_str(o.f, f->message);
			fputs("}\n", o.f);
		} else if (a.co.sep) {
			char cnt[32], ex[32] = "";

			snprintf(cnt, sizeof(cnt), "%llu", (unsigned long long)f->count);
			if (f->example_uid >= 0)
				snprintf(ex, sizeof(ex), "%lld", (long long)f->example_uid);
			out_field(&o, sev[f->severity], false);
			out_field(&o, f->code, false);
			out_field(&o, cnt, false);
			out_field(&o, ex, false);
			out_field(&o, f->message, true);
		} else {
			fprintf(o.f, "%-7s %s: %s", sev[f->severity], f->code, f->message);
			if (f->example_uid >= 0)
				fprintf(o.f, " (e.g. UID %lld)", (long long)f->example_uid);
			fputc('\n', o.f);
		}
	}
	if (!a.co.sep && !a.co.json)
		fprintf(o.f, "%s: %zu error(s), %zu warning(s), %llu events\n", tl_trace_path(tr),
			h->nerrors, h->nwarnings, (unsigned long long)tl_trace_nevents(tr));
	rc = out_close(&o, false);
	if (!rc && h->nerrors)
		rc = 1;
out:
	tl_health_free(h);
	tl_trace_close(tr);
	return rc;
}
