/* SPDX-License-Identifier: MIT */
/* tlreplay summarize: write rank summary files (the rank's breakdowns and
 * collective timeline, docs/multi-rank.md), so that ranks can be read on
 * many machines and merged by breakdown and collectives. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"
#include "multirank.h"

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

	if (mkdir(dir, 0777) && errno != EEXIST)
		return cli_error("summarize: %s: %s", dir, strerror(errno));
	if (mr_open(in, &set))
		return 1;
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

int cmd_summarize(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "rank", required_argument, NULL, 'r' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "keep-going", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mr_inputs in = { 0 };
	const char *output = NULL;
	unsigned long long rank = 0;
	bool have_rank = false;
	int c, rc = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:r:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (mr_add_input(&in, optarg))
				goto out;
			break;
		case 'o': output = optarg; break;
		case 'r':
			if (!parse_u64(optarg, &rank) || rank > 1000000000ULL) {
				rc = cli_error("summarize: bad --rank '%s'", optarg);
				goto out;
			}
			have_rank = true;
			break;
		case 'J':
			if (mr_parse_jobs("summarize", optarg, &in.jobs))
				goto out;
			break;
		case 'K': in.keep_going = true; break;
		case 'h': rc = cmd_help_for("summarize"); goto out;
		default: rc = cmd_usage_error("summarize"); goto out;
		}
	}
	if (optind < argc) {
		rc = cli_error("summarize: unexpected argument '%s' (the traces go after -i)", argv[optind]);
		goto out;
	}
	if (mr_is_multi(&in)) {
		if (have_rank)
			rc = cli_error("summarize: --rank takes one trace");
		else if (!output || !strcmp(output, "-"))
			rc = cli_error("summarize: several ranks need -o DIR (one rank-N.tlrank.jsonl each)");
		else
			rc = summarize_many(&in, output);
		goto out;
	}
	{
		const char *input = cli_trace_path(in.n ? in.v[0] : NULL);

		if (input)
			rc = summarize_one(input, have_rank ? (int)rank : -1, output);
	}
out:
	mr_inputs_free(&in);
	return rc;
}
