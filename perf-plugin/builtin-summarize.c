/* SPDX-License-Identifier: MIT */
/* tlreplay summarize: write rank summary files (the rank's breakdowns and
 * collective timeline, docs/multi-rank.md), so that ranks can be read on
 * many machines and merged by breakdown and collectives. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"
#include "report/multirank.h"

static int write_summary(const struct tl_rank_summary *s, const char *path)
{
	struct out_fmt o = { 0 };
	char *text = NULL;
	size_t len = 0;
	int err = tl_rank_summary_write(s, &text, &len), rc;

	if (err)
		return cli_lib_error(err);
	if (out_open(&o, path)) {
		free(text);
		return 1;
	}
	rc = fwrite(text, 1, len, o.f) != len;
	free(text);
	return out_close(&o, rc != 0) || rc;
}

/* One trace (or a summary file to rewrite) to -o FILE or stdout. */
static int summarize_one(const char *input, int rank, const char *output)
{
	struct tl_rank_summary_opts so = { .sz = sizeof(so), .rank = rank };
	struct tl_rank_summary *s = NULL;
	struct tl_trace *tr = NULL;
	int err, rc = 1;

	if (cli_load(input, &tr))
		return 1;
	err = tl_rank_summary_build(tr, &so, &s);
	tl_trace_close(tr);
	if (err)
		return cli_lib_error(err);
	if (tl_rank_summary_info(s)->rank < 0)
		fprintf(stderr, "tlreplay: note: %s: no rank (no distributedInfo.rank, no rankN/workerN in the "
			"name): the merge numbers it by input order; --rank N sets one\n", input);
	rc = write_summary(s, output);
	tl_rank_summary_free(s);
	return rc;
}

/* Several ranks into DIR/rank-N.tlrank.jsonl. */
static int summarize_many(const struct mr_inputs *in, const char *dir)
{
	struct tl_rankset *set = NULL;
	size_t i;
	int rc = 0;

	if (mr_open(in, &set))
		return 1;
	/* the directory, and any missing above it, once the ranks have loaded */
	if (tl_output_mkdirs(dir)) {
		tl_rankset_free(set);
		return cli_error("summarize: %s", tl_last_error());
	}
	for (i = 0; i < tl_rankset_n(set) && !rc; i++) {
		const struct tl_rank_summary *s = tl_rankset_get(set, i);
		char *path;

		if (asprintf(&path, "%s/rank-%d.tlrank.jsonl", dir, tl_rank_summary_info(s)->rank) < 0) {
			rc = cli_error("out of memory");
			break;
		}
		rc = write_summary(s, path);
		free(path);
	}
	if (!rc)
		fprintf(stderr, "tlreplay: %zu rank summaries in %s\n", tl_rankset_n(set), dir);
	tl_rankset_free(set);
	return rc;
}

struct sum_args {
	struct mr_inputs in;
	const char *output;
	unsigned long long rank;
	bool have_rank;
};

static int opt_rank(const struct opt *opt, const char *arg, void *obj)
{
	struct sum_args *a = obj;

	(void)opt;
	if (!parse_u64(arg, &a->rank) || a->rank > 1000000000ULL)
		return cli_error("summarize: bad --rank '%s'", arg);
	a->have_rank = true;
	return 0;
}

static const struct opt summarize_opts[] = {
	OPT_USE(opts_rank_input, offsetof(struct sum_args, in), "input",
		"the trace (default as for the other commands), or several"),
	OPT_STRING('o', "output", "FILE|DIR", struct sum_args, output,
		   "the summary file (atomically; default stdout); for several\n"
		   "ranks a directory that gets rank-N.tlrank.jsonl each"),
	/* no -r: that is how many times to run, in uid, replay, stat, sweep, kreplay */
	OPT_CALLBACK(0, "rank", "N", opt_rank, 0, "the rank, when neither distributedInfo nor the name says"),
	OPT_INCLUDE(opts_rank_reading, offsetof(struct sum_args, in)),
	OPT_HELP(),
	OPT_END(),
};

/* the usage text is laid out as it prints */
/* clang-format off */
TL_CMD(summarize, summarize_opts, "reduce rank traces to summaries for a later merge",
	"usage: tlreplay summarize [-i TRACE] [-o FILE] [--rank N]\n"
	"   or: tlreplay summarize -i DIR | -i TRACE... -o DIR [--jobs N] [--keep-going]\n"
	"\n"
	"Reduce a rank's trace to its rank summary (JSON lines, about 100 bytes per collective\n"
	"kernel): its breakdowns and collective timeline. `breakdown` and `collectives` read\n"
	"summaries as they read traces, so a job array can summarise ranks where they were\n"
	"written and one machine merges them (docs/multi-rank.md, scripts/slurm-ranks.sh).\n"
	"\n");
/* clang-format on */

static int cmd_summarize(int argc, char **argv)
{
	struct sum_args a = { .in.cmd = "summarize" };
	int rc = 1;

	if (!opts_parse(&summarize_cmd, argc, argv, &a, &rc))
		goto out;
	if (optind < argc) {
		rc = cli_error("summarize: unexpected argument '%s' (the traces go after -i)", argv[optind]);
		goto out;
	}
	if (mr_is_multi(&a.in)) {
		if (a.have_rank)
			rc = cli_error("summarize: --rank takes one trace");
		else if (!a.output || !strcmp(a.output, "-"))
			rc = cli_error("summarize: several ranks need -o DIR (one rank-N.tlrank.jsonl each)");
		else
			rc = summarize_many(&a.in, a.output);
		goto out;
	}
	{
		const char *input = cli_trace_path(a.in.n ? a.in.v[0] : NULL);

		if (input)
			rc = summarize_one(input, a.have_rank ? (int)a.rank : -1, a.output);
	}
out:
	mr_inputs_free(&a.in);
	return rc;
}
