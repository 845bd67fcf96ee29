/* SPDX-License-Identifier: MIT */
/* The sheet commands' output (sheets-out.c). Errors are printed as
 * "CMD: ..." (cli_error) and return 1. */
#ifndef TL_SHEETS_OUT_H
#define TL_SHEETS_OUT_H

#include <stdbool.h>
#include <stddef.h>

struct tl_report;
struct tl_sheet;
struct tl_output;

/* Sheets written one at a time, named together: a command that makes its
 * sheets in turn writes each as soon as it is made (and frees it) and
 * still leaves the old files or all the new ones. Zero-initialise it;
 * sheets_stage_commit() or sheets_stage_abort() releases it. */
struct sheets_stage {
	const char *cmd, *dir; /* the caller's, for messages and paths */
	struct tl_output *v;   /* written, not yet named */
	size_t n, cap;
};

/* @dir made if missing; 0, or 1 when it cannot be or is not a directory. */
int sheets_make_dir(const char *cmd, const char *dir);
/* Every sheet of @r as @dir/SHEET.csv: each written to a temporary, then
 * all renamed; on any error the temporaries go and nothing is renamed. */
int sheets_write_dir(const char *cmd, const char *dir, const struct tl_report *r);
/* @sh as @st->dir/SHEET.csv, unnamed until the commit; 0, or 1 after
 * printing why (what was staged stays staged: abort it). */
int sheets_stage_put(struct sheets_stage *st, const struct tl_sheet *sh);
/* Name every staged sheet at once; 0, or 1 after printing why. Releases
 * the stage either way. */
int sheets_stage_commit(struct sheets_stage *st);
/* Drop every staged sheet: nothing of them stays. */
void sheets_stage_abort(struct sheets_stage *st);
/* -o FILE.xlsx: a workbook rather than a directory of CSVs */
bool sheets_is_xlsx(const char *out);

#endif
