/* SPDX-License-Identifier: MIT */
/* What the builtin-<name>.c files of the subcommands share. Each defines
 * `const struct cmd <name>_cmd` (parse-options.h), which tlreplay.c lists. */
#ifndef TLREPLAY_BUILTIN_H
#define TLREPLAY_BUILTIN_H

#include "util/cli.h"

/*
 * The row of a subcommand: `const struct cmd NAME_cmd`, which tlreplay.c's
 * command list names, for the function cmd_NAME of the same file (declared
 * here, static). OPTS: its option table; SUMMARY: its line in `tlreplay
 * --help`; USAGE: the head of its --help (usage lines, what it does, a blank
 * line), which the options follow.
 */
#define TL_CMD(NAME, OPTS, SUMMARY, USAGE) TL_CMD_(NAME, OPTS, false, SUMMARY, USAGE)
/* The same for a command whose one option comes first, spelled out (struct
 * cmd's lone_option): any other word is an argument. */
#define TL_CMD_LONE_OPTION(NAME, OPTS, SUMMARY, USAGE) TL_CMD_(NAME, OPTS, true, SUMMARY, USAGE)
#define TL_CMD_(NAME, OPTS, LONE, SUMMARY, USAGE) TL_CMD__(NAME, OPTS, LONE, false, SUMMARY, USAGE)
/* The same for a command that runs another (struct cmd's runs_command). */
#define TL_CMD_RUNS(NAME, OPTS, SUMMARY, USAGE) TL_CMD__(NAME, OPTS, false, true, SUMMARY, USAGE)
#define TL_CMD__(NAME, OPTS, LONE, RUNS, SUMMARY, USAGE)                                       \
	static int cmd_##NAME(int argc, char **argv);                                          \
	const struct cmd NAME##_cmd = { .name = #NAME, .fn = cmd_##NAME, .summary = (SUMMARY), \
					.usage = (USAGE), .opts = (OPTS), .lone_option = (LONE), \
					.runs_command = (RUNS) }

/* fold's work: the results of @stores (none: the default store) into a copy
 * of the trace of @co (-i, --capture) written to co->output. @tr: that trace
 * already loaded with co->capture merged (the caller keeps it), or NULL to
 * load it. Returns 0, or 1 after printing why. */

/* critpath --fold OUT: a copy of the trace with path @cp marked (args.critical
 * = 1 on its events, a flow pair along each edge between two events), written
 * to @out when whole. Returns 0, or 1 after printing why. */
struct tl_critpath;
int critpath_fold(struct tl_trace *tr, const char *out, const struct tl_critpath *cp);


#endif
