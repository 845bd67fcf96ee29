/* SPDX-License-Identifier: MIT */
/* Op categories, by op name and first kernel name (TraceLens rules). */
#ifndef TL_OP_CATEGORY_H
#define TL_OP_CATEGORY_H

#include "util.h"

/* @first_kernel may be NULL. Returns a static string. */
const char *tl_op_category_by_name(const char *name, const char *first_kernel);
/* For the unit tests: the registry must be sorted for bsearch. */
bool tl_op_category_registry_sorted(void);

#endif
