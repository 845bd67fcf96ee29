/* SPDX-License-Identifier: MIT */
/* Which perf-model class models an op: the family tables, searched in order. */
#include <string.h>

#include "perf/perf_internal.h"

/* Each family file defines one table ending with a { 0 } row. */
static const struct pm_class *const families[] = {
	NULL,
};

const struct pm_class *pm_class_of(const char *name)
{
	size_t f;

	for (f = 0; families[f]; f++) {
		const struct pm_class *c;

		for (c = families[f]; c->name; c++) {
			const char *const *op;

			for (op = c->ops; *op; op++)
				if (!strcmp(*op, name))
					return c;
		}
	}
	return NULL;
}
