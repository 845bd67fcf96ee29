/* SPDX-License-Identifier: MIT */
/* The parsed event list's memory. Its own file because three parts hand the
 * list on and free it (the parser on an error, the hybrid expansion when it
 * replaces the list, the counter set when it closes): none of them owns the
 * others, so the free cannot live in one of them without a cycle. */
#include "counters/counters_internal.h"

void tl_cnt_list_free(struct tl_cnt_list *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->ev.n; i++) {
		free(l->ev.v[i].name);
		free(l->ev.v[i].unit);
	}
	tl_vec_free(&l->ev);
	tl_vec_free(&l->grp);
}
