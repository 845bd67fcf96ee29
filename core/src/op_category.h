/* SPDX-License-Identifier: MIT */
/* Op categories, by op name and first kernel name (TraceLens rules). */
#ifndef TL_OP_CATEGORY_H
#define TL_OP_CATEGORY_H

#include "util.h"

/* @first_kernel may be NULL. Returns a static string. */
const char *tl_op_category_by_name(const char *name, const char *first_kernel);
/* Op name as the summaries group it (sglang_profiler call counters dropped):
 * @name itself, or @buf filled. */
const char *tl_op_norm_name(const char *name, char *buf, size_t n);
/* For the unit tests: the registry must be sorted for bsearch. */
bool tl_op_category_registry_sorted(void);

#endif
