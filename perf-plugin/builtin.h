/* SPDX-License-Identifier: MIT */
/* The subcommands of tlreplay, one builtin-<name>.c each. */
#ifndef TLREPLAY_BUILTIN_H
#define TLREPLAY_BUILTIN_H

#include "cli.h"

int cmd_open(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_breakdown(int argc, char **argv);
int cmd_collectives(int argc, char **argv);
int cmd_summarize(int argc, char **argv);
int cmd_ops(int argc, char **argv);
int cmd_kernels(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_ir(int argc, char **argv);
int cmd_uid(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_fold(int argc, char **argv);
/* fold's work: the results of @stores (none: the default store) into a copy
 * of the trace of @co (-i, --capture) written to co->output. @tr: that trace
 * already loaded with co->capture merged (the caller keeps it), or NULL to
 * load it. Returns 0, or 1 after printing why. */
int fold_into(const struct common_opts *co, struct tl_trace *tr, const char **stores, size_t nstores);
int cmd_sweep(int argc, char **argv);
int cmd_help(int argc, char **argv);

/* Print the help of a subcommand on stdout; returns 0. */
int cmd_help_for(const char *name);
/* Print the usage line of a subcommand on stderr after a bad option; returns 1. */
int cmd_usage_error(const char *name);

#endif
