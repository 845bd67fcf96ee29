/* SPDX-License-Identifier: MIT */
/* What the navigation commands share (builtin-list.c, builtin-show.c,
 * builtin-tree.c): the trace's first time, a UID argument, an event's kind
 * as shown, and loading a trace linked into its call tree. */
#ifndef TLREPLAY_NAV_H
#define TLREPLAY_NAV_H

#include <stdbool.h>
#include <stdint.h>

#include "util/cli.h"

/* Earliest ts in the trace: relative times in human output start here. */
double nav_trace_t0(const struct tl_trace *tr);
/* @s as a UID of @tr; false after printing why (@cmd names the command). */
bool nav_parse_uid(const char *cmd, const char *s, const struct tl_trace *tr, uint64_t *uid);
/* The event's category as recorded, else its kind's name. */
const char *nav_kind_label(const struct tl_event_info *e);
/* The trace of @co linked into its call tree (with python_function events
 * when @py), and the output opened. Returns 0, or 1 after printing why; the
 * caller closes *tr either way. */
int nav_load(const struct common_opts *co, bool py, struct tl_trace **tr, struct out_fmt *o);

#endif
