/* SPDX-License-Identifier: MIT */
/* Multi-rank inputs of breakdown, collectives and summarize: -i given
 * several times or naming a directory, rank summary files, the ranks read
 * several at once with progress on stderr. */
#ifndef TLREPLAY_MULTIRANK_H
#define TLREPLAY_MULTIRANK_H

#include <stdbool.h>
#include <stddef.h>

#include "util/cli.h"

struct mr_inputs {
	const char *cmd;	/* the command, for messages: set before parsing */
	const char **v;		/* -i values, in order (borrowed from argv) */
	size_t n, cap;
	unsigned jobs;		/* --jobs N, 0 = automatic */
	bool keep_going;	/* --keep-going */
};

/* The options over struct mr_inputs: how the ranks are read (--jobs N,
 * --keep-going), and with them -i PATH (repeatable). */
extern const struct opt opts_rank_reading[];
extern const struct opt opts_rank_input[];
void mr_inputs_free(struct mr_inputs *in);
/* Several inputs, a directory, or a rank summary file. */
bool mr_is_multi(const struct mr_inputs *in);
/* The inputs with directories replaced by their files (tl_ranks_list_dir());
 * with no -i, the trace of $TLREPLAY_TRACE or `tlreplay open`. Free with
 * tl_ranks_paths_free(). Returns 0, or 1 after printing an error. */
int mr_expand(const struct mr_inputs *in, char ***paths, size_t *n);
/* Read the ranks (progress on stderr as for one trace; inputs left out by
 * --keep-going and ranks numbered by input order are reported there).
 * Returns 0, or 1 after printing an error. */
int mr_open(const struct mr_inputs *in, struct tl_rankset **out);

/* breakdown over several ranks: one block per rank, then the spread. */
int mr_breakdown(const struct mr_inputs *in, const struct common_opts *co, bool include_unlinked);

#endif
