/* SPDX-License-Identifier: MIT */
/* tlreplay fold: a copy of the trace with the results store folded in. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cjson/cJSON.h>
#include <tlreplay/fold.h>
#include <tlreplay/store.h>

#include "builtin.h"
#include "replay/fold-into.h"

struct fold_args {
	struct common_opts co;
	struct opt_strings stores;	/* --store */
};

static const struct opt fold_opts[] = {
	OPT_USE(opts_trace_input, offsetof(struct fold_args, co), "input",
		"trace to read (.json or .json.gz); default $TLREPLAY_TRACE,\n"
		"then the trace saved by `tlreplay open`"),
	OPT_USE_AS(opts_output_format, offsetof(struct fold_args, co), "output", "OUT",
		   "the folded trace to write (required; not the input)", 0),
	OPT_STRINGS(0, "store", "FILE", struct fold_args, stores,
		    "results store to read (repeatable: the stores of a sweep\n"
		     "spread over machines); default $TLREPLAY_STORE, else\n"
		     "$XDG_STATE_HOME/tlreplay/results.jsonl\n"
		     "(~/.local/state/tlreplay/results.jsonl)"),
	OPT_HELP(),
	OPT_USE(opts_trace_input, offsetof(struct fold_args, co), "capture",
		"merge the CUDA/HIP-graph capture traces in DIR first, so that\n"
		"graph kernels get the results of the ops that captured them"),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(fold, fold_opts, "fold replay results into a copy of the trace",
	"usage: tlreplay fold [-i TRACE] [--store FILE] [--capture DIR] -o OUT.json[.gz]\n"
	"\n"
	"Write a copy of the trace with the replay results of the store folded in, for\n"
	"Perfetto or chrome://tracing: each replayed op gets args.tlreplay (cpu_median_us,\n"
	"cuda_median_us, trace_gpu_us, replay_over_trace, and every replay with its times,\n"
	"counters and kernel verdict), the GPU kernels it launched get its uid and medians,\n"
	"and \"tlreplay\" counter tracks on its process show the replay times and per-call\n"
	"counters over each op. Results belong to the trace when their trace signature (size,\n"
	"first and last MiB) matches, else its path; per op, device, command and sweep event\n"
	"group the latest ok result wins. The input is never modified; OUT is written atomically, gzip-compressed\n"
	"when it ends in .gz. Exit status 1, with nothing written, when the store is missing\n"
	"or corrupt or holds no result for this trace.\n"
	"\n");
/* clang-format on */

static int cmd_fold(int argc, char **argv)
{
	struct fold_args a = { 0 };
	int rc = 1;

	if (!opts_parse(&fold_cmd, argc, argv, &a, &rc))
		goto out;
	if (optind < argc)
		rc = cli_error("fold: unexpected argument '%s' (the trace goes after -i)", argv[optind]);
	else if (!a.co.output)
		rc = cli_error("fold: -o OUT is required (fold writes a new trace; the input is never "
			       "modified)");
	else
		rc = fold_into(&a.co, NULL, a.stores.v, a.stores.n);
out:
	opt_strings_free(&a.stores);
	return rc;
}
