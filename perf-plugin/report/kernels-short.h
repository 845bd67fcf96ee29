/* SPDX-License-Identifier: MIT */
/* `tlreplay kernels --short`: the duration histogram of the short kernels,
 * per device (TraceLens's short_kernel_histogram, report_sheets.h). */
#ifndef TLREPLAY_KERNELS_SHORT_H
#define TLREPLAY_KERNELS_SHORT_H

#include "util/cli.h"

/* @thresh: the --short-thresh-us text (NULL: TraceLens's 10), @bins: 0 =
 * TraceLens's 100. Returns 0, or 1 after printing why. */
int kernels_short(struct tl_trace *tr, struct out_fmt *o, const char *thresh, unsigned long long bins);
/* Checks --short-thresh-us before the trace is loaded: 0, or 1 after printing why. */
int kernels_short_check(const char *thresh, unsigned long long bins);

#endif
