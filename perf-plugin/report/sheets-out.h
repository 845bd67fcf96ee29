/* SPDX-License-Identifier: MIT */
/* The sheet commands' output (sheets-out.c). Errors are printed as
 * "CMD: ..." (cli_error) and return 1. */
#ifndef TL_SHEETS_OUT_H
#define TL_SHEETS_OUT_H

#include <stdbool.h>

struct tl_report;

/* @dir made if missing; 0, or 1 when it cannot be or is not a directory. */
int sheets_make_dir(const char *cmd, const char *dir);
/* Every sheet of @r as @dir/SHEET.csv: each written to a temporary, then
 * all renamed; on any error the temporaries go and nothing is renamed. */
int sheets_write_dir(const char *cmd, const char *dir, const struct tl_report *r);
/* -o FILE.xlsx: a workbook rather than a directory of CSVs */
bool sheets_is_xlsx(const char *out);

#endif
