/* SPDX-License-Identifier: MIT */
/* Which ops of a trace become replay IR entries (tlreplay ir and pack):
 * explicit UIDs, or cpu_ops chosen by --launchers, --filter, --top and
 * grouped by --unique. */
#ifndef TLREPLAY_IR_SELECT_H
#define TLREPLAY_IR_SELECT_H

#include <cjson/cJSON.h>
#include <tlreplay/ir.h>

#include "replay/replay-common.h"

struct ir_select {
	char **uids;			/* explicit UIDs (argv strings), or none */
	size_t nuids;
	bool launchers;			/* --launchers: kernel launchers only */
	bool unique;			/* --unique: one entry per distinct recorded args */
	const char *filter;		/* --filter REGEX on the op name */
	unsigned long long top;		/* --top N by GPU time (0 = all) */
	bool strict;			/* --strict: no schemaless entries */
	bool no_torch;			/* --no-torch: match against the bundled snapshot */
	/* pack: whether an entry runs where the pack targets, asked of each
	 * entry built: 1 yes, 0 no. A selection (not UIDs) leaves out what does
	 * not run and goes down its ranking until --top N run; explicit UIDs are
	 * kept either way. NULL: no check. */
	int (*runs)(void *ctx, cJSON *entry);
	void *runs_ctx;
};

/* Why candidates were left out, for the summary line on stderr. */
struct ir_tally {
	size_t candidates, written, schemaless;
	size_t no_shapes, not_op, unknown_op, no_overload, other;
	size_t not_runnable;	    /* ir_select.runs said no (the callback says why) */
	const char *runnable_where; /* for the summary line: "on cpu here" */
	char first_reason[256];
};

/* The options over struct ir_select (ir, pack; sweep takes --top and --filter):
 * --launchers, --unique, --filter, --top, --strict, --no-torch. */
extern const struct opt opts_ir_select[];

/*
 * Build the IR list of @tr for @sel: a cJSON array the caller frees.
 * Schemas come from ro->schemas, else (unless sel->no_torch) the live
 * registry of a worker, else the bundled snapshot. The worker is *w if
 * set, else one started with @ro; with @w not NULL that one is left in *w
 * for the caller to go on with (and stop), else it is stopped.
 * Explicit UIDs that cannot be extracted are an error (nothing is returned);
 * selected ops that cannot be are counted in @t and left out.
 * Returns 0, or 1 after printing why.
 */
int ir_build_list(struct tl_trace *tr, const struct ir_select *sel, const struct replay_opts *ro,
		  struct tl_worker **w, const char *cmd, cJSON **list, struct ir_tally *t);

/* One stderr line on what was written and what was left out, and why. */
void ir_tally_print(const char *cmd, const struct ir_tally *t, const char *dest);

/* The options of ir and pack (builtin-ir.c, builtin-pack.c). */
struct ir_opts {
	struct common_opts co;
	struct replay_opts ro;	/* --python, --schemas, -v; pack: the replay defaults */
	struct ir_select sel;
	const char *kdb, *launch;	/* pack --kdb DB [--launch N] */
	bool no_check;			/* pack --no-check: do not replay the ops here first */
};


/* How ir and pack choose ops: the IR selection, and where schemas come from. */
extern const struct opt ir_pack_select_opts[];
/* The UIDs of ir and pack, and what their options must agree on. Returns 0,
 * or 1 after printing why. */
int ir_check_opts(int argc, char **argv, const struct cmd *cmd, struct ir_opts *o);

#endif
