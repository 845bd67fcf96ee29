/* SPDX-License-Identifier: MIT */
/* Folding results stores into a copy of a trace: what `tlreplay fold` does,
 * and `tlreplay sweep -o` at its end (fold-into.c). */
#ifndef TLREPLAY_FOLD_INTO_H
#define TLREPLAY_FOLD_INTO_H

#include <stddef.h>

#include "util/cli.h"

/* The results of @tr (loaded from co->input when NULL) in @stores (the
 * default store when @nstores is 0), folded into a copy written to
 * co->output (.gz compressed). Returns 0, or 1 after printing why. */
int fold_into(const struct common_opts *co, struct tl_trace *tr, const char **stores, size_t nstores);

#endif
