/* SPDX-License-Identifier: MIT */
/* tlreplay report: TraceLens's perf report of a PyTorch (or JAX) trace, one
 * CSV per sheet in a directory, with TraceLens's file names, columns and row
 * order, or every sheet in one xlsx workbook; and with --html, one page a
 * person reads (html-report.h), of a trace or of a directory of ranks. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tlreplay/gpu.h>
#include <tlreplay/report.h>
#include <tlreplay/report_sheets.h>

#include "builtin.h"
#include "html/html-report.h"
#include "report/multirank.h"
#include "report/roofline-sheet.h"
#include "report/sheets-out.h"

struct report_ctx {
	struct common_opts co;
	const char *dir;
	bool recompute, by_module, kernel_summary, short_kernels, no_perf_models, include_nccl, include_unlinked;
	const char *gpu_spec, *roofline;	/* --gpu-spec FILE.json, --roofline FILE.svg|png */
	const char *html, *store;		/* --html FILE.html, --store FILE */
};

static const struct opt report_opts[] = {
	OPT_USE(opts_trace_input, offsetof(struct report_ctx, co), "input", NULL),
	OPT_STRING('o', "output", "DIR", struct report_ctx, dir,
		   "write the sheets into DIR (made if missing), one SHEET.csv each;\n"
		   "a name ending in .xlsx gets one workbook, a worksheet per sheet"),
	OPT_HELP(),
	OPT_USE(opts_trace_input, offsetof(struct report_ctx, co), "capture", CAPTURE_HELP_LONG),
	OPT_USE(opts_trace_input, offsetof(struct report_ctx, co), "step", NULL),
	OPT_USE(opts_trace_input, offsetof(struct report_ctx, co), "phase", NULL),
	OPT_USE(opts_trace_input, offsetof(struct report_ctx, co), "steady", NULL),
	OPT_USE(opts_trace_input, offsetof(struct report_ctx, co), "link", NULL),
	OPT_BOOL(0, "recompute", struct report_ctx, recompute,
		 "split by activation recompute (is_recompute columns), like\n"
		 "TraceLens's --detect_recompute"),
	OPT_BOOL(0, "inference", struct report_ctx, by_module,
		 "TraceLens's inference report: pseudo ops, ops by parent nn.Module\n"
		 "and number of kernels, call stacks, SGLang names without counters"),
	OPT_BOOL(0, "by-module", struct report_ctx, by_module, "the same as --inference (its first name)"),
	OPT_BOOL(0, "kernel-summary", struct report_ctx, kernel_summary,
		 "add kernel_summary.csv (TraceLens's --kernel_summary)"),
	OPT_BOOL(0, "include-unlinked", struct report_ctx, include_unlinked,
		 "count GPU events no CPU launch links to in gpu_timeline (TraceLens's\n"
		 "--include_unlinked_kernels)"),
	OPT_BOOL(0, "short-kernels", struct report_ctx, short_kernels,
		 "add short_kernel_histogram.csv and short_kernels_summary.csv: the\n"
		 "kernels under 10 us (TraceLens's --short_kernel_study)"),
	OPT_BOOL(0, "no-perf-models", struct report_ctx, no_perf_models,
		 "leave out the perf-model sheets (GEMM, SDPA_fwd, ...)"),
	OPT_BOOL(0, "include-nccl", struct report_ctx, include_nccl,
		 "count NCCL kernels in the op sheets (TraceLens leaves them out)"),
	OPT_STRING(0, "gpu-spec", "FILE.json", struct report_ctx, gpu_spec,
		   "GPU peaks for roofline.csv: add or override devices of the\n"
		   "table (docs/roofline.md)"),
	OPT_STRING(0, "roofline", "FILE", struct report_ctx, roofline,
		   "draw every perf-model row on the device's roofline into\n"
		   "FILE (.svg, or .png through rsvg-convert)"),
	OPT_STRING(0, "html", "FILE.html", struct report_ctx, html,
		   "one self-contained page to read in a browser: breakdown,\n"
		   "GPU timeline, top ops and kernels with their roofs, idle\n"
		   "causes and launches per iteration, health; -i DIR of rank\n"
		   "traces adds the ranks and their collectives"),
	OPT_STRING(0, "store", "FILE", struct report_ctx, store,
		   "with --html: the results store whose replays of the trace\n"
		   "the page shows (default $TLREPLAY_STORE, then ~/.local/state)"),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(report, report_opts, "TraceLens's perf report as CSV sheets in a directory or an xlsx",
	"usage: tlreplay report [-i TRACE] -o DIR|FILE.xlsx [--capture DIR] [--recompute | --inference]\n"
	"                       [--kernel-summary] [--short-kernels] [--no-perf-models] [--include-unlinked]\n"
	"                       [--include-nccl] [--gpu-spec FILE.json] [--roofline FILE]\n"
	"       tlreplay report [-i TRACE|DIR] --html FILE.html [--store FILE] [-o ...]\n"
	"\n"
	"Write the sheets of TraceLens's perf report (generate_perf_report_pytorch) as CSV\n"
	"files in DIR: gpu_timeline, ops_summary_by_category, ops_summary, ops_unique_args,\n"
	"one sheet per perf-model sheet with rows (GEMM, SDPA_fwd, ...), kernel_summary with\n"
	"--kernel-summary, the short-kernel sheets with --short-kernels, coll_analysis when the\n"
	"trace has collectives. A JAX trace (.xplane.pb) gets TraceLens's JAX report:\n"
	"gpu_timeline, gpu_events_averages, kernel_launchers_summary[_by_category], xla_summary.\n"
	"With -o FILE.xlsx the same sheets go into one workbook. Each file appears whole or not\n"
	"at all (written under a temporary name, renamed when every sheet is written).\n"
	"\n"
	"With the perf models, roofline.csv (ours, not TraceLens's) gives each perf-model\n"
	"row its TFLOP/s, TB/s, FLOPS/Byte, the roof it sits under on the trace's GPU\n"
	"(deviceProperties, or --gpu-spec), its % of roof and whether it is compute- or\n"
	"memory-bound; --roofline FILE draws the rows on the roofline.\n"
	"\n"
	"--html FILE.html writes one page that opens in any browser, offline (docs/report.md):\n"
	"the breakdown per device and stream, a zoomable GPU timeline, top ops and kernels\n"
	"with TFLOP/s, TB/s and % of roof, idle causes and launch overhead per iteration, the\n"
	"results store's replays of the trace, the health check. With -i DIR of rank traces,\n"
	"each rank's breakdown and the collectives across ranks, the rest of the lowest rank.\n"
	"\n");
/* clang-format on */

/* One line per sheet being built, on a terminal only, overwritten in place. */
static void show_progress(const char *sheet, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "\rtlreplay report: %-24s", sheet);
}

/* roofline.csv and the --roofline chart: the report's perf rows on the
 * trace's device. An unknown device is no error: the sheet keeps the
 * achieved numbers and says why it has no roofs. */
static const struct tl_gpu *report_gpu(const struct tl_gpu_set *set, const struct tl_trace *tr, char *why,
				       size_t n)
{
	const struct tl_gpu *gpu = tl_gpu_of_trace(set, tr, -1);

	if (!gpu)
		snprintf(why, n, "%s", tl_last_error());
	return gpu;
}

/* The chart of roofline.csv's rows (roofline-sheet.h reads them). */
static int draw_roofline(const char *path, const struct tl_gpu *gpu, const struct tl_sheet *rf,
			 const char *trace_name)
{
	struct roofline_point *pts;
	struct roofline_opts o = { NULL, cli_base(trace_name), 6 };
	int rc;

	if (!gpu)
		return cli_error("report: --roofline: the trace's GPU is unknown; give --gpu-spec FILE.json");
	pts = roofline_points_of_sheet(rf);
	if (!pts)
		return cli_error("report: out of memory");
	rc = roofline_chart_write(path, gpu, pts, tl_sheet_nrows(rf), &o);
	free(pts);
	return rc;
}

/* A file to be made at @path beside no directory fails before the work,
 * not after it. Returns 0, or 1 after saying so. */
static int check_parent(const char *path)
{
	char *d = strdup(path), *slash = d ? strrchr(d, '/') : NULL;
	struct stat st;
	int e = 0;

	if (!d)
		return cli_error("report: out of memory");
	if (slash)
		*(slash == d ? slash + 1 : slash) = 0;
	if (stat(slash ? d : ".", &st))
		e = errno;
	else if (!S_ISDIR(st.st_mode))
		e = ENOTDIR;
	free(d);
	return e ? cli_error("report: %s: cannot create: %s", path, strerror(e)) : 0;
}

static bool has_gpu_events(const struct tl_trace *tr)
{
	uint64_t k[TL_KIND_COUNT];

	tl_trace_kind_counts(tr, k);
	return k[TL_KIND_KERNEL] + k[TL_KIND_MEMCPY] + k[TL_KIND_MEMSET] > 0;
}

/* -i DIR of several traces (the ranks of a job), which only --html takes. */
static bool ranks_input(const struct report_ctx *x)
{
	struct stat st;

	return x->co.input && !stat(x->co.input, &st) && S_ISDIR(st.st_mode) && !cli_is_trace_dir(x->co.input);
}

/* The ranks of -i DIR, and the trace of the lowest rank that was read from
 * one (a directory of rank summaries has none: the page needs a trace).
 * Returns 0, or 1 after printing why. */
static int open_ranks(const struct report_ctx *x, struct tl_rankset **set, struct tl_trace **tr, int *rank)
{
	const char *inputs[1] = { x->co.input };
	struct mr_inputs in = { .cmd = "report", .v = inputs, .n = 1, .cap = 1 };
	struct common_opts co = x->co;
	size_t i;

	if (mr_open(&in, set))
		return 1;
	for (i = 0; i < tl_rankset_n(*set); i++) {
		const struct tl_rank_info *ri = tl_rank_summary_info(tl_rankset_get(*set, i));

		if (strcmp(ri->file, ri->trace))
			continue;
		co.input = ri->trace;
		*rank = ri->rank;
		return cli_open_trace(&co, tr);
	}
	return cli_error("report: %s: only rank summaries, no trace: --html needs a rank's trace", x->co.input);
}

/* -o names a file, not the directory a report is: out.txt, sheets.csv
 * (a directory of that name would be made, silently). */
static bool file_like(const char *path)
{
	static const char *const ext[] = { ".txt", ".csv", ".tsv", ".json", ".html", ".htm", ".md",
					   ".gz",  ".zip", ".xls", ".ods",  ".pdf",  ".png" };
	const char *base = strrchr(path, '/'), *dot;
	size_t i;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	for (i = 0; dot && i < TL_ARRAY_N(ext); i++)
		if (!strcasecmp(dot, ext[i]))
			return true;
	return false;
}

static int cmd_report(int argc, char **argv)
{
	struct report_ctx x = { 0 };
	struct tl_report_opts ro = { .sz = sizeof(ro) };
	struct tl_trace *tr = NULL;
	struct tl_report *r = NULL;
	struct tl_gpu_set *gpus = NULL;
	struct tl_sheet *rf = NULL;
	struct tl_rankset *ranks = NULL;
	const struct tl_gpu *gpu = NULL;
	char why[256] = "";
	bool tty = isatty(STDERR_FILENO), multi;
	int rc = 1, err, rank = -1;

	if (!opts_parse(&report_cmd, argc, argv, &x, &rc))
		return rc;
	if (cli_no_args("report", argc, argv))
		return 1;
	if (!x.dir && !x.html)
		return cli_error("report: -o DIR, -o FILE.xlsx or --html FILE.html is missing (where the report goes)");
	if (x.recompute && x.by_module)
		return cli_error("report: --recompute and --inference (--by-module) are exclusive");
	if (x.roofline && x.no_perf_models)
		return cli_error("report: --roofline draws the perf-model rows: not with --no-perf-models");
	if (x.store && !x.html)
		return cli_error("report: --store says which replays --html shows: not without --html");
	multi = ranks_input(&x);
	if (multi && !x.html)
		return cli_error("report: %s is a directory of several traces: -o takes one trace; "
				 "--html FILE.html takes the ranks of a job", x.co.input);
	if (multi && x.dir)
		return cli_error("report: -o takes one trace, not the directory %s (--html alone)", x.co.input);
	if (x.dir && file_like(x.dir))
		return cli_error("report: -o %s: a report is a directory of CSV sheets or one FILE.xlsx; give a "
				 "directory%s",
				 x.dir, x.html ? "" : " (--html FILE.html writes the page)");
	if (sheets_is_xlsx(x.dir ? x.dir : "") && check_parent(x.dir))
		return 1;
	if (x.html && check_parent(x.html))
		return 1;
	/* a bad spec file stops everything before a directory is made */
	if (tl_gpu_set_new(&gpus))
		return cli_error("report: out of memory");
	if (x.gpu_spec && tl_gpu_set_load(gpus, x.gpu_spec)) {
		cli_error("report: --gpu-spec %s", tl_last_error());
		tl_gpu_set_free(gpus);
		return 1;
	}
	/* the trace first: a bad one leaves no directory behind */
	if (multi ? open_ranks(&x, &ranks, &tr, &rank) : cli_open_trace(&x.co, &tr))
		goto out;
	if (x.dir && !sheets_is_xlsx(x.dir) && sheets_make_dir("report", x.dir))
		goto out;
	ro.split_recompute = x.recompute;
	ro.by_module = x.by_module;
	ro.kernel_summary = x.kernel_summary;
	ro.short_kernels = x.short_kernels;
	ro.include_unlinked = x.include_unlinked;
	ro.perf_models = !x.no_perf_models;
	ro.include_nccl = x.include_nccl;
	if (tty)
		ro.progress = show_progress;
	err = tl_report_build(tr, &ro, &r);
	if (tty)
		fputs("\r\033[K", stderr);
	/* a trace TraceLens's report cannot take (its GPU events linked to no
	 * launch) still gets a page: the sections that need the report go */
	if (err == -ENODATA && !x.dir && has_gpu_events(tr)) {
		fprintf(stderr, "tlreplay report: note: no GPU event is linked to a CPU launch, which TraceLens's "
			"report needs: the page draws them all, without the perf report\n");
		err = 0;
	}
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (r && ro.perf_models) {
		gpu = report_gpu(gpus, tr, why, sizeof(why));
		err = tl_sheet_roofline(r, gpu, gpu ? NULL : why, &rf);
		if (err) {
			rc = cli_lib_error(err);
			goto out;
		}
		if (x.roofline && draw_roofline(x.roofline, gpu, rf, tl_trace_path(tr)))
			goto out;
	}
	/* roofline.csv only with perf rows, like TraceLens's empty sheets;
	 * it goes with the other sheets, all or nothing */
	if (rf && tl_sheet_nrows(rf)) {
		struct tl_sheet **nv = realloc(r->v, (r->n + 1) * sizeof(*nv));

		if (!nv) {
			rc = cli_error("report: out of memory");
			goto out;
		}
		if (!gpu)
			fprintf(stderr, "tlreplay report: %s; %s no roofs%s\n", why,
				x.dir ? "roofline.csv has" : "the page has",
				x.gpu_spec ? "" : " (give --gpu-spec FILE.json)");
		r->v = nv;
		r->v[r->n++] = rf;
		rf = NULL;
	}
	if (x.dir && !sheets_is_xlsx(x.dir) && sheets_write_dir("report", x.dir, r))
		goto out;
	/* the library names the path and why; it leaves no temporary behind */
	if (x.dir && sheets_is_xlsx(x.dir) && cli_check_output(x.dir))
		goto out;
	if (x.dir && sheets_is_xlsx(x.dir) && tl_sheets_write_xlsx(r->v, r->n, x.dir)) {
		cli_error("report: %s", tl_last_error());
		goto out;
	}
	if (x.html) {
		struct html_report_in hi = { .tr = tr,
					     .input = x.co.input,
					     .roofline = r ? tl_report_sheet(r, "roofline") : NULL,
					     .gpu = gpu,
					     .ranks = ranks,
					     .rank = rank,
					     .store = x.store };

		if (html_report_write(x.html, &hi))
			goto out;
	}
	/* say what was written, as ir, pack and fold do */
	if (x.dir && r)
		fprintf(stderr, "tlreplay: report: %zu sheets to %s%s\n", r->n, x.dir,
			sheets_is_xlsx(x.dir) || x.dir[strlen(x.dir) - 1] == '/' ? "" : "/");
	if (x.html)
		fprintf(stderr, "tlreplay: report: the page to %s\n", x.html);
	rc = 0;
out:
	tl_sheet_free(rf);
	tl_gpu_set_free(gpus);
	tl_report_free(r);
	tl_rankset_free(ranks);
	tl_trace_close(tr);
	return rc;
}
