/* SPDX-License-Identifier: MIT */
/* What the builtin-<name>.c files of the subcommands share. Each defines
 * `const struct cmd <name>_cmd` (parse-options.h), which tlreplay.c lists. */
#ifndef TLREPLAY_BUILTIN_H
#define TLREPLAY_BUILTIN_H

#include "cli.h"

/* fold's work: the results of @stores (none: the default store) into a copy
 * of the trace of @co (-i, --capture) written to co->output. @tr: that trace
 * already loaded with co->capture merged (the caller keeps it), or NULL to
 * load it. Returns 0, or 1 after printing why. */
int fold_into(const struct common_opts *co, struct tl_trace *tr, const char **stores, size_t nstores);

#endif
