/* SPDX-License-Identifier: MIT */
/* tlreplay split: one trace file per iteration (or per phase, or of the
 * steady state) and a manifest (tl_split(), include/tlreplay/split.h). */
#include <stdio.h>
#include <string.h>

#include <tlreplay/split.h>
#include <tlreplay/steps.h>

#include "builtin.h"

struct split_args {
	struct common_opts co;
	const char *dir, *by;
	bool steady;
};

static const struct opt split_opts[] = {
	OPT_USE(opts_trace_input, offsetof(struct split_args, co), "input", NULL),
	OPT_STRING('o', "output", "DIR", struct split_args, dir,
		   "the directory of the files and manifest.json (made if\n"
		   "missing; files of the same names are replaced)"),
	OPT_STRING(0, "by", "WHAT", struct split_args, by,
		   "iteration (default: iteration-N.json each) or phase\n"
		   "(prefill.json, decode.json, mixed.json: serving traces)"),
	OPT_BOOL(0, "steady", struct split_args, steady,
		 "the steady-state iterations only (`tlreplay steps --steady`)"),
	OPT_USE(opts_output_format, offsetof(struct split_args, co), "json", NULL),
	OPT_USE(opts_trace_input, offsetof(struct split_args, co), "link", NULL),
	OPT_HELP(),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(split, split_opts, "one trace file per iteration (or phase, or the steady state), with a manifest",
	"usage: tlreplay split -i TRACE -o DIR [--by iteration|phase] [--steady] [-j]\n"
	"\n"
	"Write each iteration of TRACE (as `tlreplay steps` lists them) as a trace file of\n"
	"its own into DIR, with manifest.json: each file's iteration, phase, time range,\n"
	"events, GPU events and GPU time, and the share of the trace's GPU time the files\n"
	"cover. A host event goes with the iteration that holds its start, a GPU event\n"
	"with the call that launched it, a flow with its start; metadata goes to every\n"
	"file. The events are the trace's text, byte for byte: tlreplay, TraceLens and\n"
	"Perfetto load each file. -j prints the manifest's parts as JSON lines.\n"
	"\n");
/* clang-format on */

static int cmd_split(int argc, char **argv)
{
	struct split_args a = { 0 };
	struct tl_split_opts so = { sizeof(so), TL_SPLIT_ITERATION, false };
	struct tl_split_result *r = NULL;
	struct tl_trace *tr = NULL;
	int rc = 1, err;
	size_t i;

	if (!opts_parse(&split_cmd, argc, argv, &a, &rc))
		goto out;
	if (cli_no_args("split", argc, argv))
		goto out;
	if (!a.dir) {
		rc = cli_error("split: where to? give -o DIR");
		goto out;
	}
	if (a.by && strcmp(a.by, "iteration") && strcmp(a.by, "phase")) {
		rc = cli_error("split: bad --by '%s' (iteration or phase)", a.by);
		goto out;
	}
	so.by = a.by && !strcmp(a.by, "phase") ? TL_SPLIT_PHASE : TL_SPLIT_ITERATION;
	so.steady = a.steady;
	if (cli_open_trace(&a.co, &tr))
		goto out;
	err = tl_split(tr, a.dir, &so, &r);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	for (i = 0; i < r->n; i++) {
		const struct tl_split_part *p = &r->v[i];
		const char *phase = tl_phase_name(p->phase);

		if (a.co.json) {
			printf("{\"file\":\"%s/%s\",\"steps\":%zu,\"phase\":%s%s%s,\"events\":%llu,\"gpu_events\":%llu,"
			       "\"gpu_us\":%.3f}\n",
			       a.dir, p->file, p->steps, phase ? "\"" : "", phase ? phase : "null", phase ? "\"" : "",
			       (unsigned long long)p->events, (unsigned long long)p->gpu_events, p->gpu_us);
			continue;
		}
		printf("%s/%s: %zu step%s%s%s, %llu events, %llu GPU events, %.3f ms GPU time\n", a.dir, p->file,
		       p->steps, p->steps == 1 ? "" : "s", phase ? ", " : "", phase ? phase : "",
		       (unsigned long long)p->events, (unsigned long long)p->gpu_events, p->gpu_us / 1e3);
	}
	fprintf(stderr, "tlreplay: split %s into %zu file%s and %s/manifest.json; they hold %.1f%% of its GPU time\n",
		tl_trace_path(tr), r->n, r->n == 1 ? "" : "s", a.dir, 100 * r->coverage);
	rc = fflush(stdout) ? cli_error("split: writing the summary failed") : 0;
out:
	tl_split_result_free(r);
	tl_trace_close(tr);
	return rc;
}
