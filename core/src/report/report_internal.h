/* SPDX-License-Identifier: MIT */
/* report: the sheets of a report. A sheet (sheet.c) is a table of typed
 * cells with its CSV writer; the sheet builders turn the analyses, the perf
 * models and the rank summaries into TraceLens's sheets and ours, and the
 * workbook and chart writers read nothing but sheets. It depends on every
 * subsystem that computes something a sheet shows; none depends on it. */
#ifndef TL_REPORT_INTERNAL_H
#define TL_REPORT_INTERNAL_H

#include <tlreplay/report.h>

#include "base/base_internal.h"

struct cJSON;

/* pyrepr.c: @v (parsed JSON) as Python's repr() writes it after TraceLens
 * turned every list into a tuple ("((512,), (141, 512))", "('', '1')",
 * "None"); appended to the malloc'ed *buf (length *len, capacity *cap), NUL-terminated.
 * Returns 0 or -ENOMEM. */
int tl_pyrepr_tuple(const struct cJSON *v, char **buf, size_t *len, size_t *cap);

#endif
