/* SPDX-License-Identifier: MIT */
/* Events the library adds to a loaded trace (pseudo ops, the ops of CUDA-graph
 * annotations): appended after every other event, so their UIDs follow the
 * file's as TraceLens numbers its synthetic ops, with their args kept in the
 * trace's extra text and a place in the call tree made for them. */
#include <errno.h>
#include <string.h>

#include "trace/trace_internal.h"

int trace_append_event(struct tl_trace *tr, const struct trace_new_event *n, uint64_t *uid)
{
	size_t me = tr->nev, len = n->args_json ? strlen(n->args_json) : 0, off = tr->nextra;
	/* read before the events grow: @like may point into them */
	uint32_t pid = n->like->pid, tid = n->like->tid;
	struct tl_ev *d;

	if (tl_grow((void **)&tr->extra, &tr->extracap, tr->nextra + len + 1, 1) ||
	    tl_grow((void **)&tr->ev, &tr->cap, me + 2, sizeof(*tr->ev)) || tl_tree_grow(tr, me + 1))
		return -ENOMEM;
	if (len)
		memcpy(tr->extra + off, n->args_json, len);
	tr->nextra += len;
	d = &tr->ev[me];
	memset(d, 0, sizeof(*d));
	d->name = tl_strtab_intern(&tr->strs, n->name, strlen(n->name));
	d->cat = tl_strtab_intern(&tr->strs, n->cat, strlen(n->cat));
	if (d->name == UINT32_MAX || d->cat == UINT32_MAX)
		return -ENOMEM;
	d->kind = (uint8_t)n->kind;
	d->ph = 'X';
	d->pid = pid;
	d->tid = tid;
	d->ts = n->ts;
	d->dur = n->dur;
	d->flags = n->flags;
	if (tl_ev_set_args(tr, d, len ? TL_ARGS_EXTRA | off : TL_NOARGS, len))
		return -ENOMEM;
	tr->nev = me + 1;
	tr->tree.in_tree[me] = 1;
	*uid = me;
	return 0;
}
