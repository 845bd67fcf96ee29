/* SPDX-License-Identifier: MIT */
/* Bad inputs made from a good one: a template with one piece replaced
 * (tests of readers that must refuse each kind of bad number). */
#ifndef TL_TESTS_SUBST_H
#define TL_TESTS_SUBST_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"

/* @tmpl with its first @from replaced by @to, into @out (@n bytes); false,
 * said with diag(), when @tmpl has no @from or the result does not fit. */
static inline bool subst(char *out, size_t n, const char *tmpl, const char *from, const char *to)
{
	const char *at = strstr(tmpl, from);

	if (!at || (size_t)snprintf(out, n, "%.*s%s%s", (int)(at - tmpl), tmpl, to, at + strlen(from)) >= n) {
		diag("cannot replace '%s' in the template", from);
		return false;
	}
	return true;
}

#endif
