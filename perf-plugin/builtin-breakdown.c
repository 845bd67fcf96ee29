/* SPDX-License-Identifier: MIT */
/* tlreplay breakdown: where the GPU time went (TraceLens's gpu_timeline).
 * Several ranks (-i repeated, or a directory): multirank-breakdown.c. */
#include <getopt.h>
#include <string.h>

#include "builtin.h"
#include "multirank.h"

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
		} else if (o->sep) {
			if (per_dev)
				out_field(o, bd->device, false);
			if (per_stream)
				out_field(o, bd->stream, false);
			out_field(o, tl_bd_row_name(r), false);
			fmt_pyfloat(a, sizeof(a), ms);
			fmt_pyfloat(b, sizeof(b), pct);
			out_field(o, a, false);
			out_field(o, b, !split_rc);
			if (split_rc)
				out_field(o, bd->recompute ? "True" : "False", true);
		} else {
			fprintf(o->f, "  %-22s %14.6f ms %8.2f%%\n", tl_bd_row_name(r), ms, pct);
		}
	}
}

int cmd_breakdown(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "per-device", no_argument, NULL, 'D' },
		{ "per-stream", no_argument, NULL, 'S' },
		{ "include-unlinked", no_argument, NULL, 'U' },
		{ "recompute", no_argument, NULL, 'R' },
		{ "capture", required_argument, NULL, 'C' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "keep-going", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mr_inputs in = { 0 };
	struct tl_breakdown_opts bo = { .sz = sizeof(bo) };
	struct common_opts co = { 0 };
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	struct tl_breakdown_set *set = NULL;
	size_t i;
	bool per_dev = false, per_stream = false;
	int c, rc = 1, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:x:jo:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (mr_add_input(&in, optarg))
				goto out;
			break;
		case 'x': co.sep = optarg; break;
		case 'j': co.json = true; break;
		case 'o': co.output = optarg; break;
		case 'D': bo.group = TL_BD_GROUP_DEVICE; per_dev = true; break;
		case 'S': bo.group = TL_BD_GROUP_STREAM; per_stream = true; break;
		case 'U': bo.include_unlinked = true; break;
		case 'R': bo.split_recompute = true; break;
		case 'C': co.capture = optarg; break;
		case 'J':
			if (mr_parse_jobs("breakdown", optarg, &in.jobs))
				goto out;
			break;
		case 'K': in.keep_going = true; break;
		case 'h': rc = cmd_help_for("breakdown"); goto out;
		default: rc = cmd_usage_error("breakdown"); goto out;
		}
	}
	if (optind < argc) {
		rc = cli_error("breakdown: unexpected argument '%s' (the trace goes after -i)", argv[optind]);
		goto out;
	}
	if (co.sep && co.json) {
		rc = cli_error("breakdown: -x and -j are exclusive");
		goto out;
	}
	if (per_dev && per_stream) {
		rc = cli_error("breakdown: --per-device and --per-stream are exclusive");
		goto out;
	}
	if (mr_is_multi(&in)) {
		if (bo.group != TL_BD_GROUP_NONE || bo.split_recompute || co.capture)
			rc = cli_error("breakdown: --per-device, --per-stream, --recompute and --capture take "
				       "one trace, not several ranks");
		else
			rc = mr_breakdown(&in, &co, bo.include_unlinked);
		goto out;
	}
	co.input = in.n ? in.v[0] : NULL;
	if (cli_open_trace(&co, &tr))
		goto out;
	err = tl_breakdown(tr, &bo, &set);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (out_open(&o, co.output))
		goto out;
	o.sep = co.sep;
	o.json = co.json;
	if (o.sep) {
		if (bo.group != TL_BD_GROUP_NONE)
			out_field(&o, "device", false);
		if (bo.group == TL_BD_GROUP_STREAM)
			out_field(&o, "stream", false);
		out_field(&o, "type", false);
		out_field(&o, "time ms", false);
		out_field(&o, "percent", !bo.split_recompute);
		if (bo.split_recompute)
			out_field(&o, "is_recompute", true);
	} else if (!o.json) {
		fprintf(o.f, "GPU time breakdown of %s (%s GPU events%s)\n", tl_trace_path(tr),
			bo.include_unlinked ? "all" : "linked",
			bo.group == TL_BD_GROUP_DEVICE	 ? ", per device"
			: bo.group == TL_BD_GROUP_STREAM ? ", per stream"
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
		print_block(&o, bd, bo.group != TL_BD_GROUP_NONE, bo.group == TL_BD_GROUP_STREAM,
			    bo.split_recompute);
	}
	rc = out_close(&o, false);
out:
	tl_breakdown_free(set);
	tl_trace_close(tr);
	mr_inputs_free(&in);
	return rc;
}
