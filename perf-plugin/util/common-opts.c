/* SPDX-License-Identifier: MIT */
/* The options of struct common_opts, as groups that the subcommands' tables
 * take whole or one by one (cli.h). */
#include "util/cli.h"

const struct opt opts_trace_input[] = {
	OPT_STRING('i', "input", "TRACE", struct common_opts, input, TRACE_INPUT_HELP),
	OPT_STRING(0, "capture", "DIR", struct common_opts, capture,
		   "merge the CUDA/HIP-graph capture traces in DIR first"),
	OPT_STRING(0, "step", "N", struct common_opts, step,
		   "iteration N only (ProfilerStep#N; `tlreplay steps` lists them)"),
	OPT_STRING(0, "phase", "PHASE", struct common_opts, phase,
		   "serving iterations of that phase only: prefill, decode or\n"
		   "mixed (`tlreplay steps` says each one's)"),
	OPT_BOOL(0, "steady", struct common_opts, steady,
		 "the steady-state iterations only (`tlreplay steps --steady`\n"
		 "shows which, and why the others are left out)"),
	OPT_STRING(0, "link", "RULE", struct common_opts, link,
		   "tracelens: link launches to GPU events as TraceLens does (ac2g flows\n"
		   "only); tlreplay (the default) also follows older async_cpu_to_gpu flows"),
	OPT_END(),
};

const struct opt opts_output_format[] = {
	OPT_STRING('x', "field-separator", "SEP", struct common_opts, sep,
		   "separated values (CSV with -x,), with a header line"),
	OPT_BOOL('j', "json", struct common_opts, json, "one JSON object per line"),
	OPT_STRING('o', "output", "FILE", struct common_opts, output,
		   "write to FILE (atomically) instead of stdout"),
	OPT_END(),
};

const struct opt opts_analysis[] = {
	OPT_USE(opts_trace_input, 0, "input", NULL),
	OPT_INCLUDE(opts_output_format, 0),
	OPT_HELP(),
	OPT_USE(opts_trace_input, 0, "capture", CAPTURE_HELP_LONG),
	OPT_USE(opts_trace_input, 0, "step", NULL),
	OPT_USE(opts_trace_input, 0, "phase", NULL),
	OPT_USE(opts_trace_input, 0, "steady", NULL),
	OPT_USE(opts_trace_input, 0, "link", NULL),
	OPT_END(),
};

const struct opt opts_nav[] = {
	OPT_USE(opts_trace_input, 0, "input", NULL),
	OPT_USE(opts_output_format, 0, "json", NULL),
	OPT_USE(opts_output_format, 0, "output", NULL),
	OPT_HELP(),
	OPT_USE(opts_trace_input, 0, "capture", NULL),
	OPT_END(),
};

const struct opt opts_nav_json[] = {
	OPT_INCLUDE(opts_nav, 0),
	OPT_USE_AS(opts_output_format, 0, "field-separator", NULL, NULL, OPT_HIDDEN),
	OPT_END(),
};
