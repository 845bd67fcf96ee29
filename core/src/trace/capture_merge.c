/* SPDX-License-Identifier: MIT */
/* Graph-capture merge: give the kernels of a replayed CUDA/HIP graph the ops
 * that launched them at capture time, following TraceLens's
 * trace_capture_merge_experimental.py so that its inference reports are
 * reproduced:
 *
 *  1. classify each capture trace: (batch size, FULL|PIECEWISE), from
 *     execution_details.json, else from a capture_<bs>_<mode> annotation (when
 *     there are as many as vLLM _dummy_run frames), else inferred (FULL if at
 *     most one StreamBeginCapture; batch = the most common first dimension of
 *     cpu_op inputs);
 *  2. iteration annotations of the replay trace (execute_..., step[...]) with
 *     the graph launches inside them; the capture is the one of the smallest
 *     captured batch size >= the iteration's, of the mode that exists for it;
 *     when both do, FULL if the iteration has one graph launch, else
 *     PIECEWISE (one FULL capture serves an iteration of several launches);
 *  3. capture windows (StreamBeginCapture .. StreamEndCapture, paired in file
 *     order) become roots whose children are the window's top cpu_ops and
 *     python functions; a capture of one window goes with every graph launch
 *     of the iteration, else the i-th window with the i-th launch (other
 *     counts: the iteration is not merged);
 *  4. the window's launches (runtime calls named *launch*, *memcpy*,
 *     *memset*) are aligned with the graph's kernels by kernel name:
 *     positionally, greedily when counts differ, by name groups when the order
 *     differs, per stream when the graph used several;
 *  5. the window's call tree is copied under the graph launch (new UIDs past
 *     the end of traceEvents, ts/dur of the graph launch) and each kernel is
 *     re-parented under its capture launch. */
#include <dirent.h>
#include <regex.h>
#include <stdio.h>
#include <sys/stat.h>

#include <tlreplay/input.h>

#include "trace/trace_internal.h"

enum { MODE_FULL = 1, MODE_PIECEWISE = 2 };

struct window {
	double ts, dur;			/* the CaptureRoot */
	TL_VEC(uint32_t) roots;		/* its children (capture UIDs), window order */
	TL_VEC(int64_t) all;		/* subtree, ts order; -1 = the CaptureRoot */
	TL_VEC(uint32_t) disp;		/* launches, ts order */
	TL_VEC(const char *) kname;	/* args.kernel of each launch (NULL if none) */
};

struct capture {
	char *path;
	int64_t batch;
	int mode;
	bool classified, prepared, usable;
	struct tl_trace *tr;
	TL_VEC(struct window) win;
	uint32_t *remap;		/* capture strtab id -> replay strtab id + 1 */
	size_t nremap;
};

struct merger {
	struct tl_trace *tr;
	const char *dir;
	TL_VEC(struct capture) caps;
	TL_VEC(int64_t) batch_sizes;	/* every listed size, even without a file */
	struct tl_capture_result res;
	char *kbuf;
	size_t kcap;
};

/* ------------------------------------------------------------------ helpers */

static bool icontains(const char *s, const char *needle)
{
	size_t n = strlen(needle);

	for (; *s; s++)
		if (!strncasecmp(s, needle, n))
			return true;
	return false;
}

static const char *ev_name(const struct tl_trace *tr, uint32_t uid)
{
	return tl_strtab_get(&tr->strs, tr->ev[uid].name);
}

static const char *ev_cat(const struct tl_trace *tr, uint32_t uid)
{
	return tl_strtab_get(&tr->strs, tr->ev[uid].cat);
}

static bool has_time(const struct tl_ev *e)
{
	return e->flags & EV_HAS_TS;
}

static double ev_dur0(const struct tl_ev *e)
{
	return (e->flags & EV_HAS_DUR) ? e->dur : 0;
}

static bool rx_match(const char *re, const char *s, regmatch_t *m, size_t nm)
{
	regex_t r;
	bool ok;

	if (regcomp(&r, re, REG_EXTENDED | (m ? 0 : REG_NOSUB)))
		return false;
	ok = regexec(&r, s, nm, m, 0) == 0;
	regfree(&r);
	return ok;
}

/* ------------------------------------------------------------------ classify */

static int classify(struct merger *M, struct capture *c)
{
	struct tl_trace *t = c->tr;
	regex_t dummy, ann;
	TL_VEC(int64_t) dims = { 0 };
	TL_VEC(uint64_t) dcount = { 0 };
	size_t i, ndummy = 0, nann = 0, nbegin = 0;
	double first_ann_ts = 0;
	int64_t ann_batch = 0;
	char ann_mode[64] = "";
	int err = 0;

	if (regcomp(&dummy, "^vllm/v1/worker/gpu_model_runner\\.py\\([0-9]+\\): _dummy_run",
		    REG_EXTENDED | REG_NOSUB))
		return -ENOMEM;
	if (regcomp(&ann, "^capture_([0-9]+)_(.*)", REG_EXTENDED)) {
		regfree(&dummy);
		return -ENOMEM;
	}
	for (i = 0; i < t->nev; i++) {
		const struct tl_ev *e = &t->ev[i];
		const char *name = ev_name(t, (uint32_t)i);
		regmatch_t m[3];

		if (!regexec(&dummy, name, 0, NULL, 0))
			ndummy++;
		if (!strcmp(ev_cat(t, (uint32_t)i), "user_annotation") &&
		    !regexec(&ann, name, 3, m, 0)) {
			if (!nann || e->ts < first_ann_ts) {
				first_ann_ts = e->ts;
				ann_batch = strtoll(name + m[1].rm_so, NULL, 10);
				snprintf(ann_mode, sizeof(ann_mode), "%.*s",
					 (int)(m[2].rm_eo - m[2].rm_so), name + m[2].rm_so);
			}
			nann++;
		}
		if (strstr(name, "StreamBeginCapture") && !strcmp(ev_cat(t, (uint32_t)i), "cuda_runtime"))
			nbegin++;
	}
	regfree(&dummy);
	regfree(&ann);
	if (nann && nann == ndummy) {
		c->batch = ann_batch;
		c->mode = !strcmp(ann_mode, "FULL") ? MODE_FULL
			: !strcmp(ann_mode, "PIECEWISE") ? MODE_PIECEWISE : 0;
		goto out;
	}
	c->mode = nbegin <= 1 ? MODE_FULL : MODE_PIECEWISE;
	/* the most common first dimension of the cpu_ops' inputs (first seen wins ties) */
	for (i = 0; i < t->nev; i++) {
		cJSON *args = NULL, *d, *x;

		if (t->ev[i].kind != TL_KIND_CPU_OP || tl_trace_event_args(t, i, &args) || !args)
			continue;
		d = cJSON_GetObjectItemCaseSensitive(args, "Input Dims");
		if (!cJSON_IsArray(d))
			d = NULL;
		cJSON_ArrayForEach(x, d) {
			const cJSON *f = cJSON_IsArray(x) ? x->child : NULL;
			int64_t dim;
			size_t k;

			if (!f || !tl_json_i64(f, INT64_MIN, INT64_MAX, &dim))
				continue;
			for (k = 0; k < dims.n && dims.v[k] != dim; k++)
				;
			if (k == dims.n && (tl_vec_push(&dims, dim) ||
					    tl_vec_push(&dcount, 0))) {
				cJSON_Delete(args);
				err = -ENOMEM;
				goto out;
			}
			dcount.v[k]++;
		}
		cJSON_Delete(args);
	}
	c->batch = -1;
	for (i = 0; i < dims.n; i++)
		if (c->batch < 0 || dcount.v[i] > dcount.v[(size_t)c->batch])
			c->batch = (int64_t)i;
	c->batch = c->batch < 0 ? -1 : dims.v[(size_t)c->batch];
out:
	tl_vec_free(&dims);
	tl_vec_free(&dcount);
	c->classified = true;
	TL_UNUSED(M);
	return err;
}

/* ------------------------------------------------------------------ capture windows */

struct ts_ord {
	double ts;
	size_t pos;
	int64_t uid;
};

static int cmp_ts_ord(const void *a, const void *b)
{
	const struct ts_ord *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Stable sort of UIDs (-1 = the window root at @root_ts) by ts. */
static int sort_by_ts(const struct tl_trace *t, int64_t *v, size_t n, double root_ts)
{
	struct ts_ord *o = malloc(n * sizeof(*o) + 1);
	size_t i;

	if (!o)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		o[i].ts = v[i] < 0 ? root_ts : t->ev[v[i]].ts;
		o[i].pos = i;
		o[i].uid = v[i];
	}
	tl_qsort(o, n, sizeof(*o), cmp_ts_ord);
	for (i = 0; i < n; i++)
		v[i] = o[i].uid;
	free(o);
	return 0;
}

static const char *kernel_arg(struct tl_trace *t, uint32_t uid)
{
	cJSON *args = NULL, *k;
	const char *r = NULL;

	if (tl_trace_event_args(t, uid, &args) || !args)
		return NULL;
	k = cJSON_GetObjectItemCaseSensitive(args, "kernel");
	if (cJSON_IsString(k)) {
		uint32_t id = tl_strtab_intern(&t->strs, k->valuestring, strlen(k->valuestring));

		r = id == UINT32_MAX ? NULL : tl_strtab_get(&t->strs, id);
	}
	cJSON_Delete(args);
	return r;
}

static bool in_window(const struct tl_ev *e, double ts, double te)
{
	return has_time(e) && e->ts >= ts && e->ts + ev_dur0(e) <= te;
}

static int prepare(struct capture *c)
{
	struct tl_trace *t = c->tr;
	TL_VEC(double) begins = { 0 };
	TL_VEC(double) ends = { 0 };
	TL_VEC(int64_t) queue = { 0 };
	size_t i, w;
	int err;

	c->prepared = true;
	err = tl_tree_ensure(t, true);
	if (err)
		return err;
	for (i = 0; i < t->nev; i++) {
		const struct tl_ev *e = &t->ev[i];
		const char *n = ev_name(t, (uint32_t)i);

		if (strcmp(ev_cat(t, (uint32_t)i), "cuda_runtime") || !has_time(e))
			continue;
		if (strstr(n, "StreamBeginCapture") && tl_vec_push(&begins, e->ts + ev_dur0(e)))
			goto nomem;
		if (strstr(n, "StreamEndCapture") && tl_vec_push(&ends, e->ts))
			goto nomem;
	}
	for (w = 0; w < begins.n && w < ends.n; w++) {
		struct window win = { 0 };
		double ts = begins.v[w], te = ends.v[w];
		size_t q;

		win.ts = ts;
		win.dur = te - ts;
		for (i = 0; i < t->nev; i++) {
			const struct tl_ev *e = &t->ev[i];
			int32_t p = t->tree.parent[i];

			if (e->kind != TL_KIND_CPU_OP && e->kind != TL_KIND_PYTHON)
				continue;
			if (!in_window(e, ts, te) || p < 0 || in_window(&t->ev[p], ts, te))
				continue;
			if (tl_vec_push(&win.roots, (uint32_t)i))
				goto nomem_win;
		}
		/* breadth first from the root */
		queue.n = 0;
		if (tl_vec_push(&win.all, -1))
			goto nomem_win;
		for (i = 0; i < win.roots.n; i++)
			if (tl_vec_push(&queue, (int64_t)win.roots.v[i]))
				goto nomem_win;
		for (q = 0; q < queue.n; q++) {
			int64_t u = queue.v[q];
			int32_t ch;

			if (tl_vec_push(&win.all, u))
				goto nomem_win;
			for (ch = t->tree.first_child[u]; ch >= 0; ch = t->tree.next_sibling[ch])
				if (tl_vec_push(&queue, (int64_t)ch))
					goto nomem_win;
		}
		if (sort_by_ts(t, win.all.v, win.all.n, ts))
			goto nomem_win;
		for (i = 0; i < win.all.n; i++) {
			int64_t u = win.all.v[i];
			const char *n;

			if (u < 0 || (t->ev[u].kind != TL_KIND_RUNTIME && t->ev[u].kind != TL_KIND_DRIVER))
				continue;
			n = ev_name(t, (uint32_t)u);
			if (!icontains(n, "launch") && !icontains(n, "memcpy") && !icontains(n, "memset"))
				continue;
			if (tl_vec_push(&win.disp, (uint32_t)u) ||
			    tl_vec_push(&win.kname, kernel_arg(t, (uint32_t)u)))
				goto nomem_win;
		}
		if (tl_vec_push(&c->win, win))
			goto nomem_win;
		continue;
nomem_win:
		tl_vec_free(&win.roots);
		tl_vec_free(&win.all);
		tl_vec_free(&win.disp);
		tl_vec_free(&win.kname);
		goto nomem;
	}
	tl_vec_free(&begins);
	tl_vec_free(&ends);
	tl_vec_free(&queue);
	return 0;
nomem:
	tl_vec_free(&begins);
	tl_vec_free(&ends);
	tl_vec_free(&queue);
	return -ENOMEM;
}

/* ------------------------------------------------------------------ alignment */

struct align {
	const struct tl_trace *cap;
	const struct window *w;
	const struct tl_trace *tr;
	const uint32_t *g;	/* graph GPU events, ts order */
	size_t ng;
};

static const char *kname_of(const struct align *a, size_t di)
{
	return a->w->kname.v[di] ? a->w->kname.v[di] : ev_name(a->cap, a->w->disp.v[di]);
}

static bool names_match(const struct align *a, size_t di, const char *gname)
{
	const char *cn = ev_name(a->cap, a->w->disp.v[di]);

	if (strstr(cn, "Memcpy") && strstr(gname, "Memcpy"))
		return true;
	if (strstr(cn, "Memset") && (strstr(gname, "Memset") || strstr(gname, "fillBuffer")))
		return true;
	return !strcmp(kname_of(a, di), gname);
}

static const char *gname(const struct align *a, size_t gi)
{
	return ev_name(a->tr, a->g[gi]);
}

static int64_t gstream(const struct align *a, size_t gi)
{
	const struct tl_ev *e = &a->tr->ev[a->g[gi]];

	return (e->flags & EV_HAS_STREAM) ? e->stream : INT64_MIN;
}

/* Fill @pair[gi] = index into disp for every graph event; false if they do not align. */
static bool align_single(const struct align *a, size_t *pair)
{
	size_t nd = a->w->disp.n, i, j, ci = 0;

	if (nd != a->ng) {
		/* greedy forward scan, skipping capture launches that do not match */
		for (i = 0; i < a->ng; i++) {
			bool took = false;

			while (ci < nd) {
				size_t c = ci++;

				if (names_match(a, c, gname(a, i))) {
					pair[i] = c;
					took = true;
					break;
				}
			}
			if (!took)
				return false;
		}
		return true;
	}
	for (i = 0; i < nd; i++) {
		pair[i] = i;
		if (!a->w->kname.v[i])
			continue;	/* memcpy/memset and launches without a kernel name: unchecked */
		if (strcmp(gname(a, i), a->w->kname.v[i]))
			break;
	}
	if (i == nd)
		return true;
	/* same kernels in another order: the k-th capture launch of a name goes
	 * with the k-th graph kernel of that name */
	for (i = 0; i < a->ng; i++) {
		const char *gn = gname(a, i);
		size_t k = 0, seen = 0;

		for (j = 0; j < i; j++)
			if (!strcmp(gname(a, j), gn))
				k++;
		for (j = 0; j < nd; j++) {
			if (strcmp(kname_of(a, j), gn))
				continue;
			if (seen++ == k)
				break;
		}
		if (j == nd)
			return false;
		pair[i] = j;
	}
	/* counts per name must agree both ways */
	for (j = 0; j < nd; j++) {
		const char *cn = kname_of(a, j);
		size_t nc = 0, ng = 0, x;

		for (x = 0; x < nd; x++)
			nc += !strcmp(kname_of(a, x), cn);
		for (x = 0; x < a->ng; x++)
			ng += !strcmp(gname(a, x), cn);
		if (nc != ng)
			return false;
	}
	return true;
}

/* Several streams: per-stream queues, each capture launch to the stream whose
 * head matches (the longest matching run on ties). */
static bool align_streams(const struct align *a, size_t *pair)
{
	size_t nd = a->w->disp.n, i, ns = 0, s;
	int64_t *streams = malloc(a->ng * sizeof(*streams) + 1);
	size_t *head = calloc(a->ng + 1, sizeof(*head));
	bool *mapped = calloc(a->ng + 1, sizeof(*mapped));	/* was size_t[] in ng + 1 bytes */
	bool ok = false;

	if (!streams || !head || !mapped)
		goto out;
	for (i = 0; i < a->ng; i++) {
		for (s = 0; s < ns && streams[s] != gstream(a, i); s++)
			;
		if (s == ns)
			streams[ns++] = gstream(a, i);
	}
	for (i = 0; i < nd; i++) {
		size_t best = SIZE_MAX, best_run = 0;

		for (s = 0; s < ns; s++) {
			size_t g = head[s], run = 0;

			while (g < a->ng && gstream(a, g) != streams[s])
				g++;
			if (g >= a->ng || !names_match(a, i, gname(a, g)))
				continue;
			/* how far this stream keeps matching the capture order */
			{
				size_t gg = g, ci = i;

				while (gg < a->ng && ci < nd) {
					if (gstream(a, gg) != streams[s]) {
						gg++;
						continue;
					}
					if (!names_match(a, ci, gname(a, gg)))
						break;
					run++;
					gg++;
					ci++;
				}
			}
			if (best == SIZE_MAX || run > best_run) {
				best = s;
				best_run = run;
			}
		}
		if (best == SIZE_MAX)
			continue;
		{
			size_t g = head[best];

			while (gstream(a, g) != streams[best])
				g++;
			pair[g] = i;
			mapped[g] = 1;
			head[best] = g + 1;
		}
	}
	ok = true;
	for (i = 0; i < a->ng; i++)
		if (!mapped[i])
			ok = false;
out:
	free(streams);
	free(head);
	free(mapped);
	return ok;
}

/* ------------------------------------------------------------------ copy + rewire */

static uint32_t remap_str(struct capture *c, struct tl_trace *tr, uint32_t id)
{
	if (!c->remap) {
		c->nremap = c->tr->strs.n;
		c->remap = calloc(c->nremap + 1, sizeof(*c->remap));
		if (!c->remap)
			return UINT32_MAX;
	}
	if (id >= c->nremap)
		return UINT32_MAX;
	if (!c->remap[id]) {
		uint32_t r = tl_strtab_intern(&tr->strs, tl_strtab_get(&c->tr->strs, id),
					      tl_strtab_len(&c->tr->strs, id));

		if (r == UINT32_MAX)
			return UINT32_MAX;
		c->remap[id] = r + 1;
	}
	return c->remap[id] - 1;
}

static int64_t add_extra(struct tl_trace *tr, const char *s, size_t n)
{
	size_t off = tr->nextra;

	if (tl_grow((void **)&tr->extra, &tr->extracap, tr->nextra + n + 1, 1))
		return -1;
	memcpy(tr->extra + off, s, n);
	tr->nextra += n;
	return (int64_t)off;
}

static int merge_window(struct merger *M, struct capture *c, const struct window *w,
			uint32_t g_root, const uint32_t *g, size_t ng, const size_t *pair)
{
	struct tl_trace *tr = M->tr, *cap = c->tr;
	const double g_ts = tr->ev[g_root].ts, g_dur = tr->ev[g_root].dur;	/* ev moves below */
	size_t start = tr->nev, n = w->all.n, i;
	struct tl_kmap map;
	uint32_t id_root, id_rtcat;
	int err = -ENOMEM;

	if (tl_kmap_init(&map, n))
		return -ENOMEM;
	if (tl_grow((void **)&tr->ev, &tr->cap, start + n + 1, sizeof(*tr->ev)) ||
	    tl_tree_grow(tr, start + n))
		goto out;
	id_root = tl_strtab_intern(&tr->strs, "CaptureRoot", 11);
	id_rtcat = tl_strtab_intern(&tr->strs, "cuda_runtime", 12);
	if (id_root == UINT32_MAX || id_rtcat == UINT32_MAX)
		goto out;
	for (i = 0; i < n; i++) {
		struct tl_ev *d = &tr->ev[start + i];
		int64_t u = w->all.v[i];

		if (u >= 0 && tl_kmap_put(&map, 0, u, (uint32_t)(start + i)))
			goto out;
		/* a new slot: nothing of its own kept aside */
		memset(d, 0, sizeof(*d));
		if (u < 0) {
			d->args_packed = TL_NOARGS;
			d->name = id_root;
			d->cat = id_rtcat;
			d->kind = TL_KIND_RUNTIME;
			d->ph = 'X';
		} else {
			const struct tl_ev *s = &cap->ev[u];
			size_t alen;
			const char *a = tl_ev_args(cap, s, &alen);

			if (tl_ev_copy(tr, d, cap, s))
				goto out;
			d->name = remap_str(c, tr, s->name);
			d->cat = remap_str(c, tr, s->cat);
			d->pid = remap_str(c, tr, s->pid);
			d->tid = remap_str(c, tr, s->tid);
			if (d->name == UINT32_MAX || d->cat == UINT32_MAX || d->pid == UINT32_MAX ||
			    d->tid == UINT32_MAX)
				goto out;
			if (a) {
				int64_t off = add_extra(tr, a, alen);

				if (off < 0)
					goto out;
				if (tl_ev_set_args(tr, d, TL_ARGS_EXTRA | (uint64_t)off, alen))
					goto out;
			}
		}
		/* TraceLens gives every copy the graph launch's time span */
		d->ts = g_ts;
		d->dur = g_dur;
		d->flags |= EV_HAS_TS | EV_HAS_DUR;
	}
	tr->nev = start + n;
	/* the copied tree, in the capture's child order */
	for (i = 0; i < n; i++) {
		int64_t u = w->all.v[i];
		int32_t me = (int32_t)(start + i);

		tr->tree.in_tree[me] = 1;
		if (u < 0) {
			size_t k;

			for (k = 0; k < w->roots.n; k++) {
				uint32_t ch;

				if (tl_kmap_get(&map, 0, w->roots.v[k], &ch))
					tl_tree_add_child(&tr->tree, me, (int32_t)ch);
			}
		} else {
			int32_t ch;

			for (ch = cap->tree.first_child[u]; ch >= 0; ch = cap->tree.next_sibling[ch]) {
				uint32_t cm;

				if (tl_kmap_get(&map, 0, ch, &cm))
					tl_tree_add_child(&tr->tree, me, (int32_t)cm);
			}
		}
	}
	/* the graph launch now owns only the capture root */
	tl_tree_clear_children(&tr->tree, (int32_t)g_root);
	tl_tree_add_child(&tr->tree, (int32_t)g_root, (int32_t)start);
	/* each kernel under its capture launch */
	for (i = 0; i < ng; i++) {
		uint32_t cm;

		if (!tl_kmap_get(&map, 0, w->disp.v[pair[i]], &cm))
			continue;
		tl_tree_clear_children(&tr->tree, (int32_t)cm);
		tr->tree.next_sibling[g[i]] = -1;
		tl_tree_add_child(&tr->tree, (int32_t)cm, (int32_t)g[i]);
	}
	M->res.events_added += n;
	err = 0;
out:
	tl_kmap_free(&map);
	return err;
}

/* ------------------------------------------------------------------ driver */

/* Iteration annotations: detailed forms first, the plain ones if none. Each
 * tier has TIER_N patterns (NULL-padded). */
#define TIER_N 4
static const char *const tier1[TIER_N] = {
	("^execute_[0-9]+_context_[0-9]+\\(sq[0-9]+sk[0-9]+sqsq[0-9]+sqsk[0-9]+\\)_generation_[0-9]+"
	 "\\(sq[0-9]+sk[0-9]+sqsq[0-9]+sqsk[0-9]+\\)"),
	"^(prefill|decode)\\[.*sqsq=[0-9]+.*\\]",
	"^step\\[(EXTEND|DECODE|MIXED)([^A-Za-z0-9_][^]]*)?sqsq=[0-9]+[^]]*\\]",
};
static const char *const tier2[TIER_N] = {
	"^execute_context_[0-9]+\\([0-9]+\\)_generation_[0-9]+\\([0-9]+\\)",
	"^step\\[(EXTEND|DECODE|MIXED)([^A-Za-z0-9_].*)?\\]",
	"^(prefill|decode)\\[(.*)\\]",
	/* xDiT's diffusion replay: execute_diffusion_BATCH_WxH */
	"^execute_diffusion_[0-9]+_[0-9]+x[0-9]+",
};

/* Batch size of an iteration annotation; -1 if it has none. */
static int64_t iteration_batch(const char *name)
{
	regmatch_t m[2];

	if (rx_match(tier1[0], name, NULL, 0)) {
		/* TraceLens: re.sub("[sqk]+", "_", name with parens as "_").split("_"),
		 * context sq is field 5 and generation sq field 13 */
		char buf[512], *tok[32], *p;
		size_t n = 0, o = 0, i;

		for (i = 0; name[i] && o + 1 < sizeof(buf); i++) {
			char ch = name[i] == '(' || name[i] == ')' ? '_' : name[i];

			if (ch == 's' || ch == 'q' || ch == 'k') {
				if (o && buf[o - 1] == '\1')
					continue;	/* a run collapses into one separator */
				ch = '\1';
			}
			buf[o++] = ch;
		}
		buf[o] = 0;
		for (p = buf; *p; p++)
			if (*p == '\1')
				*p = '_';
		tok[n++] = buf;
		for (p = buf; *p && n < 32; p++)
			if (*p == '_') {
				*p = 0;
				tok[n++] = p + 1;
			}
		if (n > 13 && *tok[5] && *tok[13])
			return strtoll(tok[5], NULL, 10) + strtoll(tok[13], NULL, 10);
		return -1;
	}
	if (rx_match("^execute_context_[0-9]+\\(", name, NULL, 0)) {
		int64_t sum = 0;
		const char *p = name;

		while ((p = strchr(p, '('))) {
			sum += strtoll(p + 1, NULL, 10);
			p++;
		}
		return sum;
	}
	if (rx_match("^execute_diffusion_([0-9]+)_", name, m, 2))
		return strtoll(name + m[1].rm_so, NULL, 10);
	if (rx_match("bs=([0-9]+)", name, m, 2))
		return strtoll(name + m[1].rm_so, NULL, 10);
	{
		const char *u = strchr(name, '_'), *e;

		if (!u)
			return -1;
		for (e = u + 1; *e >= '0' && *e <= '9'; e++)
			;
		if (e > u + 1 && (*e == '_' || !*e))
			return strtoll(u + 1, NULL, 10);
	}
	return -1;
}

static int load_details(struct merger *M, const char *path)
{
	char *buf = NULL;
	size_t len;
	cJSON *doc = NULL, *x;
	/* a file of the capture's directory (vLLM's, so a link is followed);
	 * a FIFO or a device there is refused, not waited on or read forever */
	int err = tl_input_read(path, "a capture's execution_details.json", 0, 0, &buf, &len);

	if (err)
		return err;
	doc = cJSON_ParseWithLength(buf, len);
	free(buf);
	if (!cJSON_IsArray(doc)) {
		cJSON_Delete(doc);
		return tl_err(-EBADMSG, "%s: not a JSON list of {file, batch_size, mode}", path);
	}
	cJSON_ArrayForEach(x, doc) {
		const cJSON *file = cJSON_GetObjectItemCaseSensitive(x, "file");
		const cJSON *bs = cJSON_GetObjectItemCaseSensitive(x, "batch_size");
		const cJSON *mode = cJSON_GetObjectItemCaseSensitive(x, "mode");
		struct capture c = { 0 };
		struct stat st;
		int64_t batch;

		if (!cJSON_IsString(file) || !tl_json_i64(bs, INT64_MIN, INT64_MAX, &batch) ||
		    !cJSON_IsString(mode))
			continue;
		if (strcmp(mode->valuestring, "FULL") && strcmp(mode->valuestring, "PIECEWISE"))
			continue;
		if (tl_vec_push(&M->batch_sizes, batch)) {
			err = -ENOMEM;
			break;
		}
		if (asprintf(&c.path, "%s/%s", M->dir, file->valuestring) < 0) {
			err = -ENOMEM;
			break;
		}
		if (stat(c.path, &st) || !S_ISREG(st.st_mode)) {
			tl_log(TL_LOG_WARN, "%s: listed in execution_details.json but missing", c.path);
			free(c.path);
			continue;
		}
		c.batch = batch;
		c.mode = !strcmp(mode->valuestring, "FULL") ? MODE_FULL : MODE_PIECEWISE;
		c.classified = true;
		if (tl_vec_push(&M->caps, c)) {
			free(c.path);
			err = -ENOMEM;
			break;
		}
	}
	cJSON_Delete(doc);
	return err ? tl_err(err, "out of memory") : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_trace_name(const char *n)
{
	size_t l = strlen(n);

	return (l > 5 && !strcmp(n + l - 5, ".json")) || (l > 8 && !strcmp(n + l - 8, ".json.gz"));
}

static int list_dir(struct merger *M)
{
	DIR *d = opendir(M->dir);
	struct dirent *de;
	TL_VEC(char *) names = { 0 };
	size_t i;
	int err = 0;

	if (!d)
		return tl_err(-errno, "%s: %s", M->dir, strerror(errno));
	while ((de = readdir(d))) {
		char *n;

		if (!is_trace_name(de->d_name) || !strcmp(de->d_name, "execution_details.json"))
			continue;
		n = strdup(de->d_name);
		if (!n || tl_vec_push(&names, n)) {
			free(n);
			err = -ENOMEM;
			break;
		}
	}
	closedir(d);
	tl_qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (i = 0; i < names.n && !err; i++) {
		struct capture c = { 0 };

		if (asprintf(&c.path, "%s/%s", M->dir, names.v[i]) < 0 || tl_vec_push(&M->caps, c)) {
			free(c.path);
			err = -ENOMEM;
		}
	}
	for (i = 0; i < names.n; i++)
		free(names.v[i]);
	tl_vec_free(&names);
	if (err)
		return tl_err(err, "out of memory");
	if (!M->caps.n)
		return tl_err(-ENODATA, "%s: no capture trace (*.json, *.json.gz) in the directory", M->dir);
	return 0;
}

static int load_capture(struct merger *M, struct capture *c)
{
	int err;

	if (c->tr)
		return 0;
	err = tl_trace_open(c->path, NULL, &c->tr);
	if (err)
		return err;
	M->res.captures++;
	if (!c->classified) {
		err = classify(M, c);
		if (err)
			return tl_err(err, "out of memory");
		if (c->mode && c->batch >= 0 && tl_vec_push(&M->batch_sizes, c->batch))
			return tl_err(-ENOMEM, "out of memory");
	}
	c->usable = c->mode && c->batch >= 0;
	return 0;
}

static struct capture *find_capture_mode(struct merger *M, int64_t batch, int mode)
{
	size_t i;
	struct capture *hit = NULL;

	for (i = 0; i < M->caps.n; i++)
		if (M->caps.v[i].usable && M->caps.v[i].batch == batch && M->caps.v[i].mode == mode)
			hit = &M->caps.v[i];	/* a later entry with the same key wins */
	return hit;
}

/* The capture of @batch for an iteration of @nlaunch graph launches: the mode
 * that exists; when both do, FULL for one launch, else PIECEWISE (TraceLens's
 * rule: a vLLM FULL capture may be replayed as several launches). */
static struct capture *find_capture(struct merger *M, int64_t batch, size_t nlaunch)
{
	struct capture *full = find_capture_mode(M, batch, MODE_FULL);
	struct capture *piece = find_capture_mode(M, batch, MODE_PIECEWISE);

	if (full && piece)
		return nlaunch == 1 ? full : piece;
	return full ? full : piece;
}

struct ord {
	double ts;
	uint32_t uid;
};

static int cmp_ord(const void *a, const void *b)
{
	const struct ord *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->uid > y->uid) - (x->uid < y->uid);
}

/* Merge the graph launches inside iteration @it_copy. @it_name gives its batch
 * size unless @batch_given >= 0 (the whole-trace fallback has no name). */
static int merge_iteration(struct merger *M, struct tl_ev it_copy, const char *it_name, int64_t batch_given,
			   const struct ord *launches, size_t nl)
{
	const struct tl_ev *it = &it_copy;	/* a copy: merging moves tr->ev */
	struct tl_trace *tr = M->tr;
	TL_VEC(uint32_t) roots = { 0 };
	TL_VEC(uint32_t) g = { 0 };
	size_t *pair = NULL;
	int64_t batch, closest = -1;
	struct capture *c;
	size_t i, k;
	int err = 0;

	for (i = 0; i < nl; i++) {
		const struct tl_ev *e = &tr->ev[launches[i].uid];

		if (e->ts >= it->ts && e->ts + ev_dur0(e) <= it->ts + ev_dur0(it) &&
		    tl_vec_push(&roots, launches[i].uid))
			goto nomem;
	}
	if (!roots.n)
		goto out;
	M->res.graph_launches += (unsigned)roots.n;
	batch = batch_given >= 0 ? batch_given : iteration_batch(it_name);
	for (i = 0; i < M->batch_sizes.n; i++)
		if (M->batch_sizes.v[i] >= batch && (closest < 0 || M->batch_sizes.v[i] < closest))
			closest = M->batch_sizes.v[i];
	c = batch < 0 || closest < 0 ? NULL : find_capture(M, closest, roots.n);
	if (!c) {
		tl_log(TL_LOG_WARN, "%s: no capture for iteration '%s' (batch %lld)", tr->path, it_name,
		       (long long)batch);
		M->res.failed += (unsigned)roots.n;
		goto out;
	}
	if (!c->prepared && (err = prepare(c)))
		goto out;
	if (c->win.n != 1 && c->win.n != roots.n) {
		tl_log(TL_LOG_WARN, "%s: iteration '%s': %zu graph launches but %zu capture windows in %s: not merged",
		       tr->path, it_name, roots.n, c->win.n, c->path);
		M->res.failed += (unsigned)roots.n;
		goto out;
	}
	for (k = 0; k < roots.n; k++) {
		uint32_t gr = roots.v[k];
		size_t w = c->win.n == 1 ? 0 : k; /* the capture window of this launch */
		struct align a;
		int32_t ch;
		bool ok, multi = false;
		TL_VEC(int64_t) gi = { 0 };

		/* the launch's GPU events, ts order */
		g.n = 0;
		for (ch = tr->tree.first_child[gr]; ch >= 0; ch = tr->tree.next_sibling[ch])
			if (tl_kind_is_gpu(tr->ev[ch].kind) && tl_vec_push(&gi, ch)) {
				tl_vec_free(&gi);
				goto nomem;
			}
		if (sort_by_ts(tr, gi.v, gi.n, 0)) {
			tl_vec_free(&gi);
			goto nomem;
		}
		for (i = 0; i < gi.n; i++)
			if (tl_vec_push(&g, (uint32_t)gi.v[i])) {
				tl_vec_free(&gi);
				goto nomem;
			}
		tl_vec_free(&gi);
		if (!g.n) {
			M->res.failed++;
			continue;
		}
		free(pair);
		pair = malloc(g.n * sizeof(*pair));
		if (!pair)
			goto nomem;
		a = (struct align){ c->tr, &c->win.v[w], tr, g.v, g.n };
		for (i = 1; i < g.n; i++)
			if (gstream(&a, i) != gstream(&a, 0))
				multi = true;
		ok = multi ? align_streams(&a, pair) : align_single(&a, pair);
		if (!ok) {
			tl_log(TL_LOG_WARN,
			       "%s: graph launch %u: its %zu kernels do not align with the %zu launches of capture "
			       "window %zu of %s",
			       tr->path, gr, g.n, c->win.v[w].disp.n, w, c->path);
			M->res.failed++;
			continue;
		}
		err = merge_window(M, c, &c->win.v[w], gr, g.v, g.n, pair);
		if (err)
			goto out;
		M->res.merged++;
	}
	goto out;
nomem:
	err = -ENOMEM;
out:
	free(pair);
	tl_vec_free(&roots);
	tl_vec_free(&g);
	return err;
}

/* No iteration annotation at all (torch.compile and xDiT runs profiled without
 * one): TraceLens merges nothing there. When the captures are of one batch
 * size, every graph launch of the trace can only be a replay of those, so the
 * whole trace is taken as one iteration of that batch size; with several
 * sizes nothing tells which launch replays which, and nothing is merged. */
static int merge_unannotated(struct merger *M, const struct ord *launches, size_t nl)
{
	struct tl_trace *tr = M->tr;
	struct tl_ev span = tr->ev[launches[0].uid];
	int64_t only = -1;
	double end = 0;
	size_t i;

	for (i = 0; i < M->batch_sizes.n; i++) {
		if (only >= 0 && M->batch_sizes.v[i] != only) {
			tl_log(TL_LOG_WARN, "%s: no iteration annotation, and captures of several batch sizes: "
			       "%zu graph launches left unmerged", tr->path, nl);
			M->res.failed += (unsigned)nl;
			return 0;
		}
		only = M->batch_sizes.v[i];
	}
	if (only < 0)
		return 0;
	for (i = 0; i < nl; i++) {
		const struct tl_ev *e = &tr->ev[launches[i].uid];

		if (e->ts + ev_dur0(e) > end)
			end = e->ts + ev_dur0(e);
	}
	span.ts = launches[0].ts;
	span.dur = end - span.ts;
	span.flags |= EV_HAS_DUR;
	tl_log(TL_LOG_INFO, "%s: no iteration annotation: the %zu graph launches are taken as replays of "
	       "the batch-size-%lld captures", tr->path, nl, (long long)only);
	M->res.whole_trace = 1;
	return merge_iteration(M, span, "(the whole trace)", only, launches, nl);
}

int tl_trace_merge_capture(struct tl_trace *tr, const char *capture_dir,
			   struct tl_capture_result *res)
{
	struct merger M = { .tr = tr, .dir = capture_dir };
	TL_VEC(struct ord) iters = { 0 };
	TL_VEC(struct ord) launches = { 0 };
	char *details = NULL;
	struct stat st;
	size_t i, t;
	int err;

	if (!capture_dir)
		return tl_err(-EINVAL, "no capture directory given");
	if (tr->merged)
		return tl_err(-EALREADY, "%s: a capture trace was already merged", tr->path);
	if (stat(capture_dir, &st))
		return tl_err(-errno, "%s: %s", capture_dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return tl_err(-ENOTDIR, "%s: not a directory (give the folder of capture traces)",
			      capture_dir);
	if (asprintf(&details, "%s/execution_details.json", capture_dir) < 0)
		return tl_err(-ENOMEM, "out of memory");
	err = stat(details, &st) == 0 ? load_details(&M, details) : list_dir(&M);
	free(details);
	if (err)
		goto out;
	for (i = 0; i < M.caps.n; i++) {
		err = load_capture(&M, &M.caps.v[i]);
		if (err)
			goto out;
	}
	err = tl_tree_ensure(tr, true);
	if (err)
		goto out;
	/* iteration annotations (the first tier that matches anything) */
	for (t = 0; t < 2 && !iters.n; t++) {
		const char *const *pats = t ? tier2 : tier1;
		regex_t re[TIER_N];
		size_t p, np;

		for (np = 0; np < TIER_N && pats[np]; np++)
			if (regcomp(&re[np], pats[np], REG_EXTENDED | REG_NOSUB)) {
				while (np--)
					regfree(&re[np]);
				err = tl_err(-ENOMEM, "out of memory");
				goto out;
			}
		for (i = 0; i < tr->nev; i++) {
			const char *n;

			if (strcmp(ev_cat(tr, (uint32_t)i), "user_annotation") || !has_time(&tr->ev[i]))
				continue;
			n = ev_name(tr, (uint32_t)i);
			for (p = 0; p < np; p++)
				if (!regexec(&re[p], n, 0, NULL, 0))
					break;
			if (p < np && tl_vec_push(&iters, ((struct ord){ tr->ev[i].ts, (uint32_t)i }))) {
				err = tl_err(-ENOMEM, "out of memory");
				break;
			}
		}
		for (p = 0; p < np; p++)
			regfree(&re[p]);
		if (err)
			goto out;
	}
	for (i = 0; i < tr->nev; i++)
		if (has_time(&tr->ev[i]) && icontains(ev_name(tr, (uint32_t)i), "graphlaunch") &&
		    tl_vec_push(&launches, ((struct ord){ tr->ev[i].ts, (uint32_t)i }))) {
			err = tl_err(-ENOMEM, "out of memory");
			goto out;
		}
	tl_qsort(iters.v, iters.n, sizeof(*iters.v), cmp_ord);
	tl_qsort(launches.v, launches.n, sizeof(*launches.v), cmp_ord);
	for (i = 0; i < iters.n; i++) {
		err = merge_iteration(&M, tr->ev[iters.v[i].uid], ev_name(tr, iters.v[i].uid), -1, launches.v,
				      launches.n);
		if (err) {
			err = tl_err(err, "out of memory merging capture traces");
			goto out;
		}
	}
	if (!iters.n && launches.n) {
		err = merge_unannotated(&M, launches.v, launches.n);
		if (err) {
			err = tl_err(err, "out of memory merging capture traces");
			goto out;
		}
	}
	tr->merged = true;
	err = tl_trace_prepare_display(tr);
out:
	if (res) {
		size_t sz = res->sz && res->sz < sizeof(*res) ? res->sz : sizeof(*res);

		M.res.sz = sz;
		memcpy(res, &M.res, sz);
	}
	for (i = 0; i < M.caps.n; i++) {
		struct capture *c = &M.caps.v[i];
		size_t w;

		for (w = 0; w < c->win.n; w++) {
			tl_vec_free(&c->win.v[w].roots);
			tl_vec_free(&c->win.v[w].all);
			tl_vec_free(&c->win.v[w].disp);
			tl_vec_free(&c->win.v[w].kname);
		}
		tl_vec_free(&c->win);
		free(c->remap);
		free(c->path);
		tl_trace_close(c->tr);
	}
	tl_vec_free(&M.caps);
	tl_vec_free(&M.batch_sizes);
	tl_vec_free(&iters);
	tl_vec_free(&launches);
	return err;
}
