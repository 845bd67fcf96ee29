/* SPDX-License-Identifier: MIT */
/* tlreplay ir: write replay IR (docs/ir.md). */
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"
#include "replay/ir-select.h"
#include "replay/kpack.h"
#include "util/zip-writer.h"

#define CO offsetof(struct ir_opts, co)
#define RO offsetof(struct ir_opts, ro)

static const struct opt ir_opts_table[] = {
	OPT_USE(opts_trace_input, CO, "input", TRACE_INPUT_HELP_BRIEF),
	OPT_USE(opts_output_format, CO, "output", NULL),
	OPT_HELP(),
	OPT_USE(opts_trace_input, CO, "capture", NULL),
	OPT_INCLUDE(ir_pack_select_opts, 0),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(ir, ir_opts_table, "write ops as replay IR (JSON)",
	"usage: tlreplay ir [-i TRACE] [-o FILE] UID...\n"
	"       tlreplay ir [-i TRACE] [-o FILE] [--launchers] [--unique] [--filter REGEX] [--top N]\n"
	"\n"
	"Write ops as replay IR (docs/ir.md): a JSON list in TraceLens's format, {op_name,\n"
	"replay_ir: {list_pos_args, list_kwargs}}, plus uid, schema, overload, trace_dur_us,\n"
	"gpu_time_us, kernels and source. Schemas come from the torch of --python when it\n"
	"can be started, else from the bundled snapshot. Without UIDs or options: every\n"
	"cpu_op that recorded shapes. What was left out, and why, is said on stderr.\n"
	"\n");
/* clang-format on */

static int cmd_ir(int argc, char **argv)
{
	struct ir_opts o = { 0 };
	struct tl_trace *tr = NULL;
	struct out_fmt out = { 0 };
	struct ir_tally t;
	cJSON *list = NULL;
	int rc = 1;

	replay_opts_init(&o.ro);
	if (!opts_parse(&ir_cmd, argc, argv, &o, &rc) || ir_check_opts(argc, argv, &ir_cmd, &o))
		return rc;
	if (cli_open_trace(&o.co, &tr))
		return 1;
	if (ir_build_list(tr, &o.sel, &o.ro, NULL, "ir", &list, &t))
		goto out;
	if (!t.written) {
		rc = cli_error("ir: none of the %zu selected ops of %s could be extracted: %s",
			       t.candidates, tl_trace_path(tr), t.first_reason);
		goto out;
	}
	if (out_open(&out, o.co.output))
		goto out;
	json_pretty(out.f, list);
	rc = out_close(&out, false);
	if (!rc)
		ir_tally_print("ir", &t, o.co.output ? o.co.output : "stdout");
out:
	cJSON_Delete(list);
	tl_trace_close(tr);
	return rc;
}

