/* SPDX-License-Identifier: MIT */
/* tlreplay annotations: record_function / user_annotation ranges projected
 * onto the GPU, per range name (tl_annotations(), include/tlreplay/annotations.h). */
#include <stdlib.h>
#include <string.h>

#include <tlreplay/annotations.h>

#include "builtin.h"

struct ann_args {
	struct common_opts co;
	struct tl_ann_opts ao;
};

static const struct opt ann_opts[] = {
	OPT_INCLUDE(opts_analysis, offsetof(struct ann_args, co)),
	OPT_STRING(0, "name", "REGEX", struct ann_args, ao.name_regex,
		   "only the ranges whose name matches REGEX (POSIX extended)"),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(annotations, ann_opts, "user annotations (record_function, NVTX-style ranges) projected onto the GPU",
	"usage: tlreplay annotations [-i TRACE] [-x SEP | -j] [-o FILE] [--name REGEX] [--step N]\n"
	"\n"
	"Per range name: how many ranges, their CPU time, the GPU events launched from\n"
	"inside them (by a runtime call on the same thread that starts inside the\n"
	"range), the busy time of those (interval union) and its share of the trace's\n"
	"GPU busy time, and the projected GPU time (per range, first GPU start to last\n"
	"GPU end, summed: Nsight's nvtx_gpu_proj_sum). Nested ranges each count their\n"
	"own GPU events (inclusive). gpu_user_annotation ranges (where = gpu) count the\n"
	"GPU events of their stream that start inside them. A range counts its own\n"
	"thread's launches only, so a ProfilerStep here can show a third of the GPU\n"
	"time `steps` gives it: a step counts every thread's launches (the autograd\n"
	"thread's backward too, HTA's rule). docs/analyses.md, \"Annotations\", has\n"
	"the details.\n"
	"\n");
/* clang-format on */

static void print_row(struct out_fmt *o, const struct tl_ann_row *r)
{
	const char *where = r->gpu ? "gpu" : "cpu";
	const double v[] = { r->cpu_us / 1e3, r->busy_us / 1e3, r->share, r->proj_us / 1e3 };
	static const char *const keys[] = { "cpu_ms", "gpu_busy_ms", "gpu_busy_percent", "gpu_proj_ms" };
	char c[32], k[32], u[32];
	size_t i;

	snprintf(c, sizeof(c), "%llu", (unsigned long long)r->count);
	snprintf(k, sizeof(k), "%llu", (unsigned long long)r->nkernels);
	snprintf(u, sizeof(u), "%llu", (unsigned long long)r->first_uid);
	if (!o->sep && !o->json) {
		fprintf(o->f, "%-4s %8s %12.3f %9s %12.3f %7.2f%% %12.3f %10s  %s\n", where, c, v[0], k, v[1],
			v[2], v[3], u, r->name);
		return;
	}
	if (o->json) {
		fputs("{\"name\":", o->f);
		json_str(o->f, r->name);
		fprintf(o->f, ",\"where\":\"%s\",\"count\":%s", where, c);
		for (i = 0; i < TL_ARRAY_N(v); i++) {
			fprintf(o->f, ",\"%s\":", keys[i]);
			out_num(o, v[i], false);
			if (i == 0)
				fprintf(o->f, ",\"gpu_events\":%s", k);
		}
		fprintf(o->f, ",\"first_uid\":%s}\n", u);
		return;
	}
	out_field(o, r->name, false);
	out_field(o, where, false);
	out_field(o, c, false);
	out_num(o, v[0], false);
	out_field(o, k, false);
	for (i = 1; i < TL_ARRAY_N(v); i++)
		out_num(o, v[i], false);
	out_field(o, u, true);
}

static void print_all(struct out_fmt *o, struct tl_trace *tr, const struct tl_ann_set *set)
{
	static const char *const cols[] = { "name", "where", "count", "cpu ms", "gpu events", "gpu busy ms",
					    "gpu busy percent", "gpu proj ms", "first uid" };
	size_t i;

	if (o->sep)
		for (i = 0; i < TL_ARRAY_N(cols); i++)
			out_field(o, cols[i], i + 1 == TL_ARRAY_N(cols));
	else if (!o->json)
		fprintf(o->f,
			"Annotations of %s projected onto the GPU (GPU busy %.3f ms; nested ranges\n"
			"count their GPU events inclusively)\n"
			"%-4s %8s %12s %9s %12s %8s %12s %10s  %s\n",
			tl_trace_path(tr), set->gpu_busy_us / 1e3, "on", "count", "cpu ms", "gpu evs",
			"gpu busy ms", "share", "gpu proj ms", "first uid", "name");
	for (i = 0; i < set->n; i++)
		print_row(o, &set->v[i]);
}

static int cmd_annotations(int argc, char **argv)
{
	struct ann_args a = { .ao.sz = sizeof(a.ao) };
	struct out_fmt o = { 0 };
	struct tl_trace *tr = NULL;
	struct tl_ann_set *set = NULL;
	int rc = 1, err;

	if (!opts_parse(&annotations_cmd, argc, argv, &a, &rc))
		goto out;
	if (cli_no_args("annotations", argc, argv) || cli_check_format("annotations", &a.co))
		goto out;
	if (cli_open_trace(&a.co, &tr))
		goto out;
	err = tl_annotations(tr, &a.ao, &set);
	if (err) {
		rc = cli_lib_error(err);
		goto out;
	}
	if (out_open_opts(&o, &a.co))
		goto out;
	print_all(&o, tr, set);
	rc = out_close(&o, false);
out:
	tl_ann_set_free(set);
	tl_trace_close(tr);
	return rc;
}
