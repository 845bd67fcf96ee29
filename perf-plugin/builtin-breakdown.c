/* SPDX-License-Identifier: MIT */
/* tlreplay breakdown: where the GPU time went (TraceLens's gpu_timeline).
 * Several ranks (-i repeated, or a directory): multirank-breakdown.c. */
#include <string.h>

#include <tlreplay/report.h>

#include "builtin.h"
#include "report/multirank.h"

static void print_block(struct out_fmt *o, const struct tl_breakdown *bd, bool per_dev,
			bool per_stream, bool split_rc)
{
	double total = bd->us[TL_BD_TOTAL];
	int r;

	for (r = 0; r < TL_BD_NROWS; r++) {
		double us = bd->us[r], ms = us / 1e3, pct = total > 0 ? us / total * 100 : 0;
		char a[64], b[64];

		if (o->json) {
			fputs("{", o->f);
			if (per_dev) {
				fputs("\"device\":", o->f);
				json_str(o->f, bd->device);
				fputs(",", o->f);
			}
			if (per_stream) {
				fputs("\"stream\":", o->f);
				json_str(o->f, bd->stream);
				fputs(",", o->f);
			}
			fmt_pyfloat(a, sizeof(a), ms);
			fmt_pyfloat(b, sizeof(b), pct);
			fprintf(o->f, "\"type\":\"%s\",\"time_ms\":%s,\"percent\":%s",
				tl_bd_row_name(r), a, b);
			if (split_rc)
				fprintf(o->f, ",\"is_recompute\":%s", bd->recompute ? "true" : "false");
			fprintf(o->f, ",\"events\":%llu}\n", (unsigned long long)bd->nevents);
		} else {
			fprintf(o->f, "  %-22s %14.6f ms %8.2f%%\n", tl_bd_row_name(r), ms, pct);
		}
	}
}

struct bd_args {
	struct common_opts co;
	struct mr_inputs in;
	struct tl_breakdown_opts bo;
	bool per_dev, per_stream;
};

static const struct opt breakdown_opts[] = {
	OPT_USE_AS(opts_rank_input, offsetof(struct bd_args, in), "input", "TRACE", TRACE_INPUT_HELP, 0),
	OPT_INCLUDE(opts_output_format, offsetof(struct bd_args, co)),
	OPT_HELP(),
	OPT_USE(opts_trace_input, offsetof(struct bd_args, co), "capture", CAPTURE_HELP_LONG),
	OPT_USE(opts_trace_input, offsetof(struct bd_args, co), "step", NULL),
	OPT_USE(opts_trace_input, offsetof(struct bd_args, co), "phase", NULL),
	OPT_USE(opts_trace_input, offsetof(struct bd_args, co), "steady", NULL),
	OPT_USE(opts_trace_input, offsetof(struct bd_args, co), "link", NULL),
	OPT_BOOL(0, "per-device", struct bd_args, per_dev,
		 "one breakdown per device (TraceLens's JAX gpu_timeline;\n"
		 "for PyTorch traces TraceLens pools all devices)"),
	OPT_BOOL(0, "per-stream", struct bd_args, per_stream, "one breakdown per (device, stream)"),
	OPT_BOOL(0, "include-unlinked", struct bd_args, bo.include_unlinked,
		 "also count GPU events no CPU launch links to"),
	OPT_BOOL(0, "recompute", struct bd_args, bo.split_recompute,
		 "two breakdowns: activation recompute (torch.utils.checkpoint)\n"
		 "or not, like TraceLens's detect_recompute option"),
	OPT_TEXT("\n"
		 "Several ranks (-i repeated, or -i DIR of traces or rank summaries): one block per\n"
		 "rank, then each row's min/median/max over the ranks (docs/multi-rank.md).\n"),
	OPT_INCLUDE(opts_rank_reading, offsetof(struct bd_args, in)),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(breakdown, breakdown_opts, "GPU time: compute, exposed comm, exposed memcpy, idle",
	"usage: tlreplay breakdown [-i TRACE] [-x SEP | -j] [-o FILE]\n"
	"                          [--per-device | --per-stream] [--include-unlinked] [--recompute]\n"
	"   or: tlreplay breakdown -i DIR | -i RANK0 -i RANK1... [--jobs N] [--keep-going]\n"
	"\n"
	"GPU time split into computation, exposed communication, exposed memcpy and idle,\n"
	"with TraceLens's eight rows and definitions (its gpu_timeline sheet): unions of\n"
	"[ts, ts+dur) intervals of kernel, gpu_memcpy and gpu_memset events; NCCL/RCCL\n"
	"kernels are communication; total is the span from the first GPU start to the last\n"
	"GPU end. By default only GPU events linked to a CPU launch count, as in TraceLens.\n"
	"\n");
/* clang-format on */

static int cmd_breakdown(int argc, char **argv)
{
	struct bd_args a = { .in.cmd = "breakdown", .bo.sz = sizeof(a.bo) };
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	struct tl_breakdown_set *set = NULL;
	struct tl_sheet *sh = NULL;
	size_t i;
	int rc = 1, err;

	if (!opts_parse(&breakdown_cmd, argc, argv, &a, &rc))
		goto out;
	if (a.per_dev)
		a.bo.group = TL_BD_GROUP_DEVICE;
	if (a.per_stream)
		a.bo.group = TL_BD_GROUP_STREAM;
	if (optind < argc) {
		rc = cli_error("breakdown: unexpected argument '%s' (the trace goes after -i)", argv[optind]);
		goto out;
	}
	if (cli_check_format("breakdown", &a.co))
		goto out;
	if (a.per_dev && a.per_stream) {
		rc = cli_error("breakdown: --per-device and --per-stream are exclusive");
		goto out;
	}
	if (mr_is_multi(&a.in)) {
		if (a.bo.group != TL_BD_GROUP_NONE || a.bo.split_recompute || a.co.capture)
			rc = cli_error("breakdown: --per-device, --per-stream, --recompute and --capture take "
				       "one trace, not several ranks");
		else
			rc = mr_breakdown(&a.in, &a.co, a.bo.include_unlinked);
		goto out;
	}
	a.co.input = a.in.n ? a.in.v[0] : NULL;
	if (cli_open_trace(&a.co, &tr))
		goto out;
	err = tl_breakdown(tr, &a.bo, &set);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (out_open_opts(&o, &a.co))
		goto out;
	if (o.sep) {
		/* the table is the report's gpu_timeline sheet */
		err = tl_sheet_gpu_timeline(set, a.bo.group, a.bo.split_recompute, &sh);
		if (!err)
			err = tl_sheet_write_sep(sh, o.f, o.sep, 0);
		rc = err ? cli_lib_error(err) : out_close(&o, false);
		if (err)
			out_close(&o, true);
		goto out;
	}
	if (!o.json) {
		fprintf(o.f, "GPU time breakdown of %s (%s GPU events%s)\n", tl_trace_path(tr),
			a.bo.include_unlinked ? "all" : "linked",
			a.bo.group == TL_BD_GROUP_DEVICE	 ? ", per device"
			: a.bo.group == TL_BD_GROUP_STREAM ? ", per stream"
							 : ", all devices and streams pooled");
	}
	for (i = 0; i < set->n; i++) {
		const struct tl_breakdown *bd = &set->v[i];

		if (!o.sep && !o.json) {
			fputc('\n', o.f);
			if (bd->device) {
				/* a JAX trace's blocks are numbered by pid (TraceLens's gpu_pid,
				 * GPU index + 1): its XProf name says which GPU that is;
				 * Kineto's own ("GPU 0") adds nothing */
				char dn[256];
				bool named = !tl_trace_process_name(tr, bd->device, dn, sizeof(dn)) &&
					     strstr(dn, "/device:");

				fprintf(o.f, "device %s%s%s%s%s", bd->device, named ? " (" : "", named ? dn : "",
					named ? ")" : "", bd->stream ? ", " : "");
			}
			if (bd->stream)
				fprintf(o.f, "stream %s", bd->stream);
			if (bd->recompute >= 0)
				fprintf(o.f, "%s%s", bd->device ? ", " : "",
					bd->recompute ? "activation recompute" : "not recompute");
			fprintf(o.f, "%s%llu GPU events\n", bd->device || bd->recompute >= 0 ? ": " : "",
				(unsigned long long)bd->nevents);
		}
		print_block(&o, bd, a.bo.group != TL_BD_GROUP_NONE, a.bo.group == TL_BD_GROUP_STREAM,
			    a.bo.split_recompute);
	}
	rc = out_close(&o, false);
out:
	tl_sheet_free(sh);
	tl_breakdown_free(set);
	tl_trace_close(tr);
	mr_inputs_free(&a.in);
	return rc;
}
