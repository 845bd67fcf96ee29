/* SPDX-License-Identifier: MIT */
/* tlreplay uid: replay one op of the trace alone and time it. */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "replay/replay-common.h"
#include "replay/replay-print.h"
#include "stat/perf-control.h"
#include "replay/results.h"


static const struct opt uid_opts[] = {
	OPT_INCLUDE(opts_nav, offsetof(struct ropts, co)),
	OPT_INCLUDE(opts_replay, offsetof(struct ropts, ro)),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(uid, uid_opts, "replay one op of the trace alone and time it",
	"usage: tlreplay uid [-i TRACE] [-j] [-o FILE] [options] UID\n"
	"\n"
	"Replay one op of the trace alone: rebuild its arguments with the recorded shapes,\n"
	"strides and dtypes, run it --warmup times, then time -r calls (CPU clock on the CPU,\n"
	"CUDA events on a GPU) and print median, mean, std, min and max. On a GPU, the kernels\n"
	"the replay launched are compared with the trace's kernels of the op (MATCH, FAMILY,\n"
	"LIBRARY, SUBSET or MISMATCH: docs/ir.md).\n"
	"Exit status 1 when the op cannot be replayed.\n"
	"\n");
/* clang-format on */

static int cmd_uid(int argc, char **argv)
{
	struct ropts o = { 0 };
	struct uid_job job = { 0 };
	struct perf_ctl pc = { .ctl = -1, .ack = -1 };
	struct region_hooks hooks = { .pc = &pc };
	struct out_fmt out = { 0 };
	cJSON *reply = NULL, *rec = NULL;
	struct result_src src = { 0 };
	int rc = 1;

	replay_opts_init(&o.ro);
	if (!opts_parse(&uid_cmd, argc, argv, &o, &rc))
		return rc;
	if (argc - optind != 1)
		return cli_error("uid: which event? usage: tlreplay uid [-i TRACE] UID");
	if (perf_ctl_setup(&pc, o.ro.control))
		return 1;
	if (uid_job_prepare(&job, &o.co, &o.ro, "uid", argv[optind]))
		goto out;
	reply = replay_one(&o.ro, job.w, job.entry, replay_region_cb, &hooks);
	if (!reply) {
		rc = cli_error("out of memory");
		goto out;
	}
	src.trace_id = job.trace_id;
	rec = result_record("uid", &o.ro, job.w, job.entry, reply, &src);
	if (out_open(&out, o.co.output))
		goto out;
	if (o.co.json) {
		print_result_json(out.f, &o.ro, job.entry, reply, (size_t)-1);
	} else {
		fprintf(out.f, "UID %llu: %s%s\n", job.uid, job.name,
			cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(job.entry, "schemaless"))
				? " (no schema matched: types from the profile)"
				: "");
		if (result_str(job.entry, "schema"))
			fprintf(out.f, "  schema %s\n", result_str(job.entry, "schema"));
		if (result_str(job.entry, "schemaless_reason"))
			fprintf(out.f, "  why    %s\n", result_str(job.entry, "schemaless_reason"));
		print_args(out.f, job.entry);
		print_result(out.f, &o.ro, job.entry, reply, job.w, true);
	}
	rc = out_close(&out, false);
	if (result_store(&o.ro, rec))
		rc = 1;
	if (!rc && strcmp(reply_status(reply), "ok"))
		rc = 1;
	/* the reason is in the result above; on one terminal, not a second time */
	if (rc && !o.co.json && strcmp(reply_status(reply), "ok")) {
		if (!o.co.output && isatty(STDOUT_FILENO) && isatty(STDERR_FILENO))
			cli_error("uid %llu (%s): replay %s (why: above)", job.uid, job.name, reply_status(reply));
		else
			cli_error("uid %llu (%s): replay %s: %s", job.uid, job.name, reply_status(reply),
				  result_str(reply, "error") ? result_str(reply, "error") : "?");
	}
out:
	cJSON_Delete(rec);
	cJSON_Delete(reply);
	uid_job_done(&job);
	perf_ctl_close(&pc);
	return rc;
}

