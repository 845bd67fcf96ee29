/* SPDX-License-Identifier: MIT */
/* The merged call tree of two traces, printed, and TraceLens's diff_stats
 * CSVs written (for `tlreplay diff`). */
#ifndef TLREPLAY_DIFF_TREE_H
#define TLREPLAY_DIFF_TREE_H

#include <stdint.h>
#include <stdio.h>

struct tl_trace;
struct tl_sheet;
struct sheets_stage;

/* Print the merged tree of @base and @var (@names: how to call them, e.g. the
 * file names) to @out: one line per node, indented two spaces per level, with
 * the GPU time under it in the base, the variant and the difference
 * (variant - base), in microseconds. "<<" marks a node only in the base, ">>"
 * one only in the variant (a legend line says so). @uid -1: every root; else
 * the subtree of base UID @uid. A side without CPU ops prints that nothing
 * matched and returns 0. Returns 0, or 1 after printing a one-line error
 * (bad UID, out of memory). */
int diff_tree_print(struct tl_trace *base, struct tl_trace *var, const char *const names[2], int64_t uid,
		    FILE *out);

/* Stage diff_stats.csv and diff_stats_unique_args_summary.csv (TraceLens's
 * format) in @st (report/sheets-out.h), for the caller to name with its
 * other sheets. Returns 0, or 1 after printing a one-line error (what was
 * staged is the caller's to abort). */
int diff_tree_write(struct tl_trace *base, struct tl_trace *var, const char *const names[2], struct sheets_stage *st);
/* The same two sheets, each handed to @put as soon as it is made (@put owns
 * it, even when it fails; it returns 0, or 1 after printing why). Returns 0,
 * or 1 after printing a one-line error. */
int diff_tree_sheets(struct tl_trace *base, struct tl_trace *var, const char *const names[2],
		     int (*put)(void *ctx, struct tl_sheet *sh), void *ctx);

#endif
