/* SPDX-License-Identifier: MIT */
/* What the merged call tree (trace_diff.c) needs to know of each trace, by
 * UID: GPU time and count under each event, the names TraceDiff compares,
 * GPU-path children, timestamp order, and the walk down single-child
 * wrappers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/tree.h>

#include "analysis/analysis_internal.h"

/* ------------------------------------------------------------ per-side facts */

/* A normalised name depends on the raw name only, and a trace has far fewer
 * names than events: one copy each (a copy per event cost a diff of two
 * 290 MB traces 50 MB and a million small allocations). Raw names are the
 * trace's interned strings, so their address is their identity. */
struct td_norm_cache {
	struct tl_kmap idx;	/* (raw name's address, strip) -> index in v */
	struct tl_arena arena;	/* the names */
	const char **v;
	size_t n, cap;
};

int td_side_init(struct td_side *s, struct tl_trace *tr)
{
	uint64_t n = tl_trace_nevents(tr), u;
	struct tl_event_info ev;

	s->tr = tr;
	s->n = n;
	s->gpu_us = calloc(n ? n : 1, sizeof(*s->gpu_us));
	s->ngpu = calloc(n ? n : 1, sizeof(*s->ngpu));
	s->kind = calloc(n ? n : 1, sizeof(*s->kind));
	s->ts = calloc(n ? n : 1, sizeof(*s->ts));
	s->merged = calloc(n ? n : 1, sizeof(*s->merged));
	s->nc = calloc(1, sizeof(*s->nc));
	if (!s->gpu_us || !s->ngpu || !s->kind || !s->ts || !s->merged || !s->nc)
		return -ENOMEM;
	tl_arena_init(&s->nc->arena, 64 * 1024);
	if (tl_kmap_init(&s->nc->idx, 1024))
		return -ENOMEM;
	for (u = 0; u < n; u++) {
		if (tl_trace_event(tr, u, &ev))
			continue;
		s->kind[u] = (uint8_t)ev.kind;
		s->ts[u] = ev.ts;
	}
	/* GPU time and count of every node: each linked GPU event adds to itself
	 * and to every ancestor (TraceLens's gpu_events lists). */
	for (u = 0; u < n; u++) {
		int64_t p;

		if (!tl_kind_is_gpu(s->kind[u]) || !tl_event_linked(tr, u))
			continue;
		if (tl_trace_event(tr, u, &ev))
			continue;
		s->gpu_us[u] += ev.dur;
		s->ngpu[u]++;
		for (p = tl_event_parent(tr, u); p >= 0; p = tl_event_parent(tr, (uint64_t)p)) {
			s->gpu_us[p] += ev.dur;
			s->ngpu[p]++;
		}
	}
	return 0;
}

void td_side_free(struct td_side *s)
{
	if (s->nc) {
		tl_kmap_free(&s->nc->idx);
		tl_arena_free(&s->nc->arena);
		free(s->nc->v);
		free(s->nc);
	}
	free(s->gpu_us);
	free(s->ngpu);
	free(s->kind);
	free(s->ts);
	free(s->merged);
}

bool td_is_dispatch(const struct td_side *s, uint64_t uid)
{
	enum tl_kind k = s->kind[uid];
	const char *n;

	if (k != TL_KIND_RUNTIME && k != TL_KIND_DRIVER)
		return false;
	n = td_raw_name(s, uid);
	return strcmp(n, "cudaGraphLaunch") && strcmp(n, "hipGraphLaunch");
}

const char *td_raw_name(const struct td_side *s, uint64_t uid)
{
	struct tl_event_info ev;

	if (tl_trace_event(s->tr, uid, &ev))
		return "";
	return ev.name;
}

/* Children of @uid on a GPU path (a GPU event, or an op with GPU events under it). */
int td_gpu_children(const struct td_side *s, int64_t uid, struct td_vec *all, struct td_vec *gpu)
{
	int64_t c;

	if (uid < 0)
		return 0;
	for (c = tl_event_first_child(s->tr, (uint64_t)uid); c >= 0;
	     c = tl_event_next_sibling(s->tr, (uint64_t)c)) {
		if (td_push(all, c))
			return -ENOMEM;
		if (td_gpu_path(s, (uint64_t)c) && td_push(gpu, c))
			return -ENOMEM;
	}
	return 0;
}

bool td_gpu_path(const struct td_side *s, uint64_t uid)
{
	return tl_kind_is_gpu(s->kind[uid]) || s->ngpu[uid] > 0;
}

/* Stable sort of UIDs by timestamp: insertion sort for the short child
 * lists, a merge sort for the long list of roots. */
static void msort(const struct td_side *s, int64_t *v, int64_t *tmp, size_t n)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	msort(s, v, tmp, h);
	msort(s, v + h, tmp, n - h);
	while (i < h && j < n)
		tmp[k++] = s->ts[v[j]] < s->ts[v[i]] ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

int td_sort_by_ts(const struct td_side *s, struct td_vec *v)
{
	size_t i, j;
	int64_t *tmp;

	if (v->n > 64) {
		tmp = malloc(v->n * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		msort(s, v->v, tmp, v->n);
		free(tmp);
		return 0;
	}
	for (i = 1; i < v->n; i++) {
		int64_t x = v->v[i];

		for (j = i; j > 0 && s->ts[v->v[j - 1]] > s->ts[x]; j--)
			v->v[j] = v->v[j - 1];
		v->v[j] = x;
	}
	return 0;
}

/* TraceLens's collapse_single_gpu_child: go down through nodes with a single
 * GPU-path child, stopping at a dispatch call, a cpu_op that dispatches, or a
 * node with zero or several GPU-path children (returned in @kids). */
int td_collapse(const struct td_side *s, int64_t uid, struct td_vec *kids, int64_t *out)
{
	int64_t cur = uid;

	kids->n = 0;
	for (;;) {
		int64_t c, only = -1;
		size_t ngpu = 0;
		bool dispatches = false;

		if (td_is_dispatch(s, (uint64_t)cur))
			break;
		for (c = tl_event_first_child(s->tr, (uint64_t)cur); c >= 0;
		     c = tl_event_next_sibling(s->tr, (uint64_t)c)) {
			if (td_is_dispatch(s, (uint64_t)c))
				dispatches = true;
			if (td_gpu_path(s, (uint64_t)c)) {
				ngpu++;
				only = c;
			}
		}
		if (s->kind[cur] == TL_KIND_CPU_OP && dispatches)
			break;
		if (ngpu != 1) {
			for (c = tl_event_first_child(s->tr, (uint64_t)cur); c >= 0;
			     c = tl_event_next_sibling(s->tr, (uint64_t)c))
				if (td_gpu_path(s, (uint64_t)c) && td_push(kids, c))
					return -ENOMEM;
			break;
		}
		cur = only;
	}
	*out = cur;
	return 0;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* "0x7f3a" -> "0xXXXX"; "foo.py(12): f" -> "foo.py: f"; then, with @strip,
 * a trailing ": word" dropped and "dir/x.py" cut to "x.py". */
static char *normalise(const char *name, bool strip)
{
	size_t n = strlen(name), o = 0, i = 0;
	char *s = malloc(n * 2 + 8), *t;

	if (!s)
		return NULL;
	while (i < n) {
		if (name[i] == '0' && name[i + 1] == 'x' && is_hex(name[i + 2])) {
			memcpy(s + o, "0xXXXX", 6);
			o += 6;
			for (i += 2; i < n && is_hex(name[i]); i++)
				;
			continue;
		}
		if (!strncmp(name + i, ".py(", 4) && name[i + 4] >= '0' && name[i + 4] <= '9') {
			size_t k = i + 4;

			while (k < n && name[k] >= '0' && name[k] <= '9')
				k++;
			if (k + 1 < n + 1 && name[k] == ')' && name[k + 1] == ':') {
				memcpy(s + o, ".py:", 4);
				o += 4;
				i = k + 2;
				continue;
			}
		}
		s[o++] = name[i++];
	}
	s[o] = 0;
	if (strip) {
		/* ":\s+\S+$": the first colon followed by blanks and one last word */
		for (char *c = strchr(s, ':'); c; c = strchr(c + 1, ':')) {
			char *p = c + 1;

			if (!strchr(" \t\n\r\f\v", *p) || !*p)
				continue;
			while (*p && strchr(" \t\n\r\f\v", *p))
				p++;
			if (*p && !strpbrk(p, " \t\n\r\f\v")) {
				*c = 0;
				break;
			}
		}
		/* a path ending in .py cut to its file name */
		o = strlen(s);
		t = strrchr(s, '/');
		if (t && o >= 3 && !strcmp(s + o - 3, ".py") && t[1] && strlen(t + 1) > 3)
			memmove(s, t + 1, strlen(t + 1) + 1);
	}
	if (!strcmp(s, "hipModuleLaunchKernel") || !strcmp(s, "cuLaunchKernel"))
		strcpy(s, "__kernel_launch__");
	return s;
}

const char *td_norm(const struct td_side *s, uint64_t uid, bool strip)
{
	struct td_norm_cache *nc = s->nc;
	const char *raw, *c;
	uint32_t ix;
	char *t;

	/* found by the raw name's address each time: a slot per event and
	 * side cost a diff of 1 M small events 32 MB */
	raw = td_raw_name(s, uid);
	if (!*raw)
		return NULL;
	if (tl_kmap_get(&nc->idx, (uintptr_t)raw, strip, &ix))
		return nc->v[ix];
	t = normalise(raw, strip);
	c = t ? tl_arena_strndup(&nc->arena, t, strlen(t)) : NULL;
	free(t);
	if (!c || tl_grow((void **)&nc->v, &nc->cap, nc->n + 1, sizeof(*nc->v)) ||
	    tl_kmap_put(&nc->idx, (uintptr_t)raw, strip, (uint32_t)nc->n))
		return NULL;
	nc->v[nc->n++] = c;
	return c;
}
