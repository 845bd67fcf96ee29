/* SPDX-License-Identifier: MIT */
/* Iterations of a trace that has no iteration annotation (steps.h, "found
 * in the call tree"): the loop body is sought in the host call tree of the
 * threads that launch GPU work.
 *
 * Per thread, its host events (cpu_op, runtime, driver, python_function,
 * user_annotation) nest by time. From the thread's top level down, a level
 * where one event holds >= 95 % of the GPU time launched below it is passed
 * through (the loop sits inside it); at the first level where the GPU time
 * splits, the children's names are searched for the loop (a user
 * annotation's with its numbers blanked: "iter 3" and "iter 4" are one
 * family): an exact period
 * (the same names, two or more times over), else an anchor (a name that
 * starts each of K >= 2 blocks whose GPU times agree within a CV of 0.25).
 *
 * A model's layers repeat too, under its forward. What tells an iteration
 * from a layer is what an iteration does once: it waits for the GPU (a
 * synchronize, a blocking copy, .item()), steps an optimizer, or runs a
 * backward pass. So repeating blocks are iterations when each holds one of
 * those marks, or when no level passed through holds a mark outside the
 * next one (a loop that never waits, at the top). Nothing that repeats
 * inside a model's forward is an iteration: those are its layers. Otherwise the trace holds
 * one iteration: the deepest event passed through that still holds a mark
 * (the scheduler's step with its sampling), else the last one.
 *
 * Each thread's answer is judged by all GPU time, every thread's launches
 * counted: its blocks must hold >= 95 % of the GPU time launched inside
 * their span. The most iterations win (the earlier start on a tie: the
 * thread that drives the loop, not the autograd thread it wakes).
 *
 * A capture trace (vLLM's and SGLang's graph capture runs) launches its
 * kernels into a CUDA/HIP graph being captured: they never run, and the few
 * that do (a synchronize, a memset before the capture) would take the GPU
 * time's place. Where a stream capture was begun and more launch calls ran
 * nothing than there are GPU events (so a trace that also serves, its graph
 * launches each running many kernels, keeps GPU time), every weight above is
 * a count of launch calls instead (kernels, copies, memsets, graph launches),
 * the GPU work the trace's calls asked for. */
#include <math.h>
#include <stdio.h>

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

#include <tlreplay/steps.h>

#define DOMINANT    0.95 /* a child holding this share of the GPU time is passed through */
#define COVERAGE    0.95 /* the blocks' share of the GPU time launched in their span */
#define MIN_SHARE   0.5	 /* the blocks' share of the level's, and of the trace's, GPU time */
#define MAX_CV	    0.25 /* anchored blocks: spread of their GPU times */
#define MAX_THREADS 4	 /* threads tried, the most GPU time first */
#define MAX_START   64	 /* exact periods: children skipped before the first block */

/* One host event of a thread, in (ts, longest first) order. */
struct node {
	uint32_t uid;
	int32_t parent, first, next; /* indices into the thread's nodes, -1 none */
	double end;
	uint64_t key;	/* what repeats: its name; a user annotation's with its numbers
			 * blanked ("Step 3" is of the family "Step #") */
	double g;	/* GPU time launched below it (itself included) */
	uint32_t marks; /* marks below it (itself included) */
};

typedef TL_VEC(int32_t) ivec;

struct thread {
	struct node *n;
	size_t nn;
	double g; /* its GPU time */
};

/* A found set of iterations: nodes first..last (by sibling links) per block. */
struct found {
	TL_VEC(struct tl_step) v;
	const char *under; /* the event whose children repeat, NULL: the thread's top */
	const char *how;   /* "period", "anchor", "one" */
	double coverage, share;
};

static bool is_host(int k)
{
	return k == TL_KIND_CPU_OP || k == TL_KIND_RUNTIME || k == TL_KIND_DRIVER || k == TL_KIND_PYTHON ||
	       k == TL_KIND_USER_ANNOTATION;
}

static bool is_call(int k)
{
	return k == TL_KIND_RUNTIME || k == TL_KIND_DRIVER;
}

/* A call that puts work on a GPU queue (a kernel, copy, memset or graph
 * launch, of CUDA's or HIP's runtime or driver): what a capture trace's
 * iterations are weighed by. */
static bool is_launch_call(const char *name)
{
	return strstr(name, "Launch") || strstr(name, "Memcpy") || strstr(name, "Memset");
}

/* What an iteration does once: wait for the GPU, step an optimizer, run backward. */
static bool is_mark(const char *name)
{
	static const char *const waits[] = {
		"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaMemcpy",
		"hipDeviceSynchronize",	 "hipStreamSynchronize",  "hipEventSynchronize",  "hipMemcpy",
		"cuCtxSynchronize",	 "cuStreamSynchronize",	  "cuEventSynchronize",	  "aten::_local_scalar_dense"
	};
	size_t i;

	for (i = 0; i < TL_ARRAY_SIZE(waits); i++)
		if (!strcmp(name, waits[i]))
			return true;
	return !strncmp(name, "Optimizer.step#", 15) || !strncmp(name, "autograd::engine::evaluate_function", 35);
}

/* A model's forward (a Python frame "...: forward", an nn.Module's range):
 * what repeats inside one is its layers, never the loop around it. */
static bool is_forward(const char *name)
{
	size_t n = strlen(name);

	return !strncmp(name, "nn.Module: ", 11) || (n >= 9 && !strcmp(name + n - 9, ": forward"));
}

/* The family key of user annotation @name: its text with each run of
 * digits read as one '#', hashed; tagged apart from plain name ids. */
static uint64_t family_key(const char *name)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	const char *p;

	for (p = name; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c >= '0' && c <= '9') {
			while (p[1] >= '0' && p[1] <= '9')
				p++;
			c = '#';
		}
		h = (h ^ c) * 1099511628211ULL;
	}
	return (1ULL << 63) | (tl_mix64(h) >> 1);
}

static int cmp_host(const void *a, const void *b, void *ctx)
{
	const struct tl_trace *tr = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct tl_ev *p = &tr->ev[x], *q = &tr->ev[y];

	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (p->tid != q->tid)
		return p->tid < q->tid ? -1 : 1;
	if (p->ts != q->ts)
		return p->ts < q->ts ? -1 : 1;
	if (p->dur != q->dur)
		return p->dur > q->dur ? -1 : 1; /* the enclosing one first */
	return x < y ? -1 : x > y;
}

/* Nest one thread's events (@idx, in cmp_host order) into @t. */
static int nest(const struct tl_trace *tr, const uint32_t *idx, size_t n, const double *gpu, struct thread *t)
{
	int32_t *stack = malloc(n * sizeof(*stack) + 1), *last = malloc(n * sizeof(*last) + 1), top_last = -1;
	size_t i, depth = 0;

	t->n = calloc(n, sizeof(*t->n));
	if (!stack || !last || !t->n) {
		free(stack);
		free(last);
		return -ENOMEM;
	}
	t->nn = n;
	for (i = 0; i < n; i++) {
		const struct tl_ev *e = &tr->ev[idx[i]];
		struct node *x = &t->n[i];

		x->uid = idx[i];
		x->end = e->ts + e->dur;
		x->g = gpu[idx[i]];
		x->marks = is_mark(tl_ev_name(tr, e));
		x->key = e->kind == TL_KIND_USER_ANNOTATION ? family_key(tl_ev_name(tr, e)) : e->name;
		x->first = x->next = -1;
		last[i] = -1;
		while (depth && e->ts >= t->n[stack[depth - 1]].end)
			depth--;
		x->parent = depth ? stack[depth - 1] : -1;
		if (x->parent >= 0) {
			if (last[x->parent] >= 0)
				t->n[last[x->parent]].next = (int32_t)i;
			else
				t->n[x->parent].first = (int32_t)i;
			last[x->parent] = (int32_t)i;
		} else {
			if (top_last >= 0)
				t->n[top_last].next = (int32_t)i;
			top_last = (int32_t)i;
		}
		stack[depth++] = (int32_t)i;
	}
	/* children come after their parent: sums in reverse order */
	for (i = n; i--;) {
		struct node *x = &t->n[i];

		if (x->parent >= 0) {
			t->n[x->parent].g += x->g;
			t->n[x->parent].marks += x->marks;
		} else {
			t->g += x->g;
		}
	}
	free(stack);
	free(last);
	return 0;
}

/* The children of @parent (-1: the top level) as indices, in time order. */
static int children(const struct thread *t, int32_t parent, ivec *out)
{
	int32_t c = parent >= 0 ? t->n[parent].first : (t->nn ? 0 : -1);

	out->n = 0;
	for (; c >= 0; c = t->n[c].next)
		if (tl_vec_push(out, c))
			return -ENOMEM;
	return 0;
}

/* An iteration from children kids[a..b) of one level. */
static int add_block(const struct tl_trace *tr, const struct thread *t, const int32_t *kids, size_t a, size_t b,
		     struct found *f)
{
	const struct tl_ev *e = &tr->ev[t->n[kids[a]].uid];
	struct tl_step s = { 0 };
	double end = e->ts;
	size_t i;

	for (i = a; i < b; i++)
		if (t->n[kids[i]].end > end)
			end = t->n[kids[i]].end;
	s.name = tl_ev_name(tr, e);
	s.uid = t->n[kids[a]].uid;
	s.ts = e->ts;
	s.dur = end - e->ts;
	return tl_vec_push(&f->v, s);
}

/* Blocks kids[starts[i] .. ends[i]): do they hold a mark each? */
static bool blocks_marked(const struct thread *t, const int32_t *kids, const size_t *starts, const size_t *ends,
			  size_t k)
{
	size_t i, j;

	for (i = 0; i < k; i++) {
		uint32_t m = 0;

		for (j = starts[i]; j < ends[i]; j++)
			m += t->n[kids[j]].marks;
		if (!m)
			return false;
	}
	return true;
}

/* An exact period of the children's names: blocks of p children, two or more
 * in a row, holding >= MIN_SHARE of the level's GPU time. 0 and *k = 0 when
 * none. @pre: prefix sums of the children's GPU time. */
static int exact_period(const struct thread *t, const int32_t *kids, size_t n, const double *pre, size_t *start,
			size_t *p, size_t *k)
{
	uint64_t *name = malloc(n * sizeof(*name) + 1);
	size_t *z = malloc(n * sizeof(*z) + 1);
	size_t s, i;

	*k = 0;
	if (!name || !z) {
		free(name);
		free(z);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		name[i] = t->n[kids[i]].key;
	for (s = 0; s < n && s < MAX_START && !*k; s++) {
		const uint64_t *v = name + s;
		size_t m = n - s, l = 0, r = 0, q;

		/* Z-array of the suffix: z[q] = longest match of v[q..] with v[0..] */
		z[0] = m;
		for (q = 1; q < m; q++) {
			size_t zq = q < r ? (r - q < z[q - l] ? r - q : z[q - l]) : 0;

			while (q + zq < m && v[zq] == v[q + zq])
				zq++;
			z[q] = zq;
			if (q + zq > r) {
				l = q;
				r = q + zq;
			}
		}
		for (q = 1; q <= m / 2; q++) {
			size_t reps = 1 + z[q] / q;

			if (reps < 2)
				continue;
			if (pre[s + reps * q] - pre[s] >= MIN_SHARE * pre[n] && pre[n] > 0) {
				*start = s;
				*p = q;
				*k = reps;
				break;
			}
		}
	}
	free(name);
	free(z);
	return 0;
}

struct anchor_ctx {
	const struct thread *t;
	const int32_t *kids;
};

static int cmp_by_name(const void *a, const void *b, void *ctx)
{
	const struct anchor_ctx *c = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t p = c->t->n[c->kids[x]].key, q = c->t->n[c->kids[y]].key;

	if (p != q)
		return p < q ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int cmp_dbl(const void *a, const void *b)
{
	return tl_cmp_double(*(const double *)a, *(const double *)b);
}

/* The anchor with the most blocks that pass (see the file comment), the
 * one seen first in time on a tie (a loop body's first call); the blocks'
 * bounds in starts/ends (n entries each), their count in *k. */
static int best_anchor(const struct tl_trace *tr, const struct thread *t, const int32_t *kids, size_t n,
		       const double *pre, bool need_marks, size_t *starts, size_t *ends, size_t *k, bool *marked_out)
{
	struct anchor_ctx c = { t, kids };
	size_t *ord = malloc(n * sizeof(*ord) + 1), *st = malloc(n * sizeof(*st) + 1),
	       *en = malloc(n * sizeof(*en) + 1);
	double *span = malloc(n * sizeof(*span) + 1);
	size_t i, j;
	int err = -ENOMEM;

	*k = 0;
	*marked_out = false;
	if (!ord || !st || !en || !span)
		goto out;
	for (i = 0; i < n; i++)
		ord[i] = i;
	tl_qsort_r(ord, n, sizeof(*ord), cmp_by_name, &c);
	for (i = 0; i < n; i = j) {
		uint64_t nm = t->n[kids[ord[i]]].key;
		size_t kk, b, last;
		double mean = 0, var = 0, inside, med, stop;
		bool marked;

		for (j = i + 1; j < n && t->n[kids[ord[j]]].key == nm; j++)
			;
		kk = j - i;
		/* a runtime call (a launch, a copy) is everywhere: no anchor */
		if (kk < 2 || is_call(tr->ev[t->n[kids[ord[i]]].uid].kind))
			continue;
		/* blocks from one occurrence to the next; the last as long as the median */
		for (b = 0; b + 1 < kk; b++) {
			st[b] = ord[i + b];
			en[b] = ord[i + b + 1];
			span[b] = tr->ev[t->n[kids[en[b]]].uid].ts - tr->ev[t->n[kids[st[b]]].uid].ts;
		}
		tl_qsort(span, kk - 1, sizeof(*span), cmp_dbl);
		med = span[(kk - 1) / 2];
		st[kk - 1] = ord[j - 1];
		stop = tr->ev[t->n[kids[st[kk - 1]]].uid].ts + med;
		for (last = st[kk - 1] + 1; last < n && tr->ev[t->n[kids[last]].uid].ts < stop; last++)
			;
		en[kk - 1] = last;
		for (b = 0; b < kk; b++)
			mean += pre[en[b]] - pre[st[b]];
		inside = mean;
		mean /= (double)kk;
		if (mean <= 0 || inside < MIN_SHARE * pre[n])
			continue;
		for (b = 0; b < kk; b++) {
			double d = pre[en[b]] - pre[st[b]] - mean;

			var += d * d;
		}
		if (sqrt(var / (double)(kk - 1)) / mean > MAX_CV)
			continue;
		marked = blocks_marked(t, kids, st, en, kk);
		if (need_marks && !marked)
			continue;
		/* blocks that each wait beat blocks that do not, then the most
		 * blocks, then the name seen first */
		if (*k && (marked != *marked_out ? !marked : kk < *k || (kk == *k && ord[i] >= starts[0])))
			continue;
		*marked_out = marked;
		*k = kk;
		memcpy(starts, st, kk * sizeof(*st));
		memcpy(ends, en, kk * sizeof(*en));
	}
	err = 0;
out:
	free(ord);
	free(st);
	free(en);
	free(span);
	return err;
}

/* The GPU time inside blocks starts/ends[0..k) (@pre: prefix sums). */
static double in_blocks(const double *pre, const size_t *starts, const size_t *ends, size_t k)
{
	double in = 0;
	size_t i;

	for (i = 0; i < k; i++)
		in += pre[ends[i]] - pre[starts[i]];
	return in;
}

/* Walk one thread (see the file comment) into @f; without @loops, to its
 * one iteration. */
static int descend(const struct tl_trace *tr, const struct thread *t, bool loops, struct found *f)
{
	ivec kids = { 0 }, chain = { 0 };
	double *pre = NULL;
	size_t *starts = NULL, *ends = NULL, *astarts = NULL, *aends = NULL;
	int32_t node = -1, one = -1;
	int err = 0;

	for (;;) {
		size_t i, n, k = 0, s = 0, p = 0, ak = 0;
		bool outside = false, pmarked, amarked;
		int32_t dom = -1;

		err = children(t, node, &kids);
		if (err)
			goto out;
		n = kids.n;
		free(pre);
		free(starts);
		free(ends);
		free(astarts);
		free(aends);
		pre = malloc((n + 1) * sizeof(*pre));
		starts = malloc((n + 1) * sizeof(*starts));
		ends = malloc((n + 1) * sizeof(*ends));
		astarts = malloc((n + 1) * sizeof(*astarts));
		aends = malloc((n + 1) * sizeof(*aends));
		if (!pre || !starts || !ends || !astarts || !aends) {
			err = -ENOMEM;
			goto out;
		}
		pre[0] = 0;
		for (i = 0; i < n; i++)
			pre[i + 1] = pre[i] + t->n[kids.v[i]].g;
		if (!n || pre[n] <= 0)
			break;
		for (i = 0; i < n && dom < 0; i++)
			if (t->n[kids.v[i]].g >= DOMINANT * pre[n])
				dom = kids.v[i];
		if (dom < 0 && !loops)
			break;
		if (dom >= 0) {
			if (tl_vec_push(&chain, dom)) {
				err = -ENOMEM;
				goto out;
			}
			node = dom;
			continue;
		}
		/* a level passed through that holds a mark outside the next one:
		 * this level is inside an iteration unless its blocks wait too */
		for (i = 0; i + 1 < chain.n; i++)
			if (t->n[chain.v[i]].marks > t->n[chain.v[i + 1]].marks)
				outside = true;
		/* a level inside a model's forward repeats its layers (vLLM's
		 * piecewise graphs even synchronize in each) */
		for (i = 0; i < chain.n; i++)
			if (is_forward(tl_ev_name(tr, &tr->ev[t->n[chain.v[i]].uid])))
				break;
		if (i < chain.n)
			break;
		if (exact_period(t, kids.v, n, pre, &s, &p, &k))
			goto nomem;
		for (i = 0; i < k; i++) {
			starts[i] = s + i * p;
			ends[i] = s + (i + 1) * p;
		}
		pmarked = k && blocks_marked(t, kids.v, starts, ends, k);
		if (k && outside && !pmarked)
			k = 0;
		/* the anchor's blocks win when they each wait and the period's do
		 * not, or hold more of the level's GPU time: two chance repeats of
		 * a few calls are no loop */
		if (best_anchor(tr, t, kids.v, n, pre, outside, astarts, aends, &ak, &amarked))
			goto nomem;
		f->how = "period";
		if (ak &&
		    (!k || (amarked && !pmarked) ||
		     (amarked == pmarked && in_blocks(pre, astarts, aends, ak) > in_blocks(pre, starts, ends, k)))) {
			memcpy(starts, astarts, ak * sizeof(*starts));
			memcpy(ends, aends, ak * sizeof(*ends));
			k = ak;
			f->how = "anchor";
		}
		if (k) {
			f->under = node >= 0 ? tl_ev_name(tr, &tr->ev[t->n[node].uid]) : NULL;
			for (i = 0; i < k; i++)
				if (add_block(tr, t, kids.v, starts[i], ends[i], f))
					goto nomem;
			goto out;
		}
		break;
	}
	/* one iteration: the deepest level passed through that holds a mark */
	for (size_t i = chain.n; i-- && one < 0;)
		if (t->n[chain.v[i]].marks)
			one = chain.v[i];
	if (one < 0)
		one = node;
	f->how = "one";
	if (one >= 0) {
		int32_t at = one;

		f->under = t->n[one].parent >= 0 ? tl_ev_name(tr, &tr->ev[t->n[t->n[one].parent].uid]) : NULL;
		if (add_block(tr, t, &at, 0, 1, f))
			goto nomem;
	} else if (!children(t, -1, &kids) && kids.n) {
		/* the top level splits and nothing repeats: the thread's whole span */
		f->under = NULL;
		if (add_block(tr, t, kids.v, 0, kids.n, f))
			goto nomem;
	}
	goto out;
nomem:
	err = -ENOMEM;
out:
	tl_vec_free(&kids);
	tl_vec_free(&chain);
	free(pre);
	free(starts);
	free(ends);
	free(astarts);
	free(aends);
	return err;
}

/* @f's share of the GPU time launched inside its span, every thread's
 * launches counted (@launch: the launching call's ts per GPU event), and
 * in *whole its share of all the trace's launched GPU time. @by_launches:
 * @launch marks launch calls (their own ts), each weighing one. */
static double coverage(const struct tl_trace *tr, const struct found *f, const double *launch, bool by_launches,
		       double *whole)
{
	double lo = f->v.v[0].ts, hi = lo, in = 0, all = 0, total = 0;
	size_t i;

	for (i = 0; i < f->v.n; i++)
		if (f->v.v[i].ts + f->v.v[i].dur > hi)
			hi = f->v.v[i].ts + f->v.v[i].dur;
	for (i = 0; i < tr->nev; i++) {
		double at = launch[i], w = by_launches ? 1 : tr->ev[i].dur;
		size_t lo_b = 0, hi_b = f->v.n;

		if (!isnan(at))
			total += w;
		if (!(at >= lo && at < hi))
			continue;
		all += w;
		while (lo_b < hi_b) { /* the last block starting at or before at */
			size_t mid = (lo_b + hi_b) / 2;

			if (f->v.v[mid].ts <= at)
				lo_b = mid + 1;
			else
				hi_b = mid;
		}
		if (lo_b && at < f->v.v[lo_b - 1].ts + f->v.v[lo_b - 1].dur)
			in += w;
	}
	*whole = total > 0 ? in / total : 1;
	return all > 0 ? in / all : 1;
}

static int cmp_thread_g(const void *a, const void *b)
{
	const struct thread *x = a, *y = b;

	return tl_cmp_double(y->g, x->g);
}

/* What a call's name says, for weigh(): worked out once per name. */
enum call_class {
	CALL_UNSEEN,
	CALL_OTHER,
	CALL_LAUNCH,
	CALL_BEGIN_CAPTURE
};

static enum call_class call_class(const struct tl_trace *tr, const struct tl_ev *e, unsigned char *memo)
{
	const char *name;

	if (!is_call(e->kind) || !tl_ev_timed(e))
		return CALL_OTHER;
	if (memo[e->name] == CALL_UNSEEN) {
		name = tl_ev_name(tr, e);
		memo[e->name] = strstr(name, "BeginCapture") ? CALL_BEGIN_CAPTURE
				: is_launch_call(name)	     ? CALL_LAUNCH
							     : CALL_OTHER;
	}
	return (enum call_class)memo[e->name];
}

/* The weights (the file comment): @gpu[call] the GPU time each call
 * launched, @launch[gpu event] its launching call's ts (NaN: none); in a
 * capture trace @gpu[call] is 1 for each launch call and @launch[call] its
 * own ts. Returns whether it weighed by launches, or -ENOMEM. */
static int weigh(const struct tl_trace *tr, double *gpu, double *launch)
{
	unsigned char *ran = calloc(tr->nev + 1, 1), *memo = calloc(tr->strs.n + 1, 1);
	size_t i, ngpu = 0, nidle = 0;
	bool capture = false;
	int by = -ENOMEM;

	if (!ran || !memo)
		goto out;
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		int32_t p;

		launch[i] = NAN;
		if (!tl_kind_is_gpu(e->kind) || tr->tree.in_tree[i] != 2 || !tl_ev_timed(e))
			continue;
		p = tr->tree.parent[i];
		if (p < 0)
			continue;
		gpu[p] += e->dur;
		launch[i] = tr->ev[p].ts;
		ran[p] = 1;
		ngpu++;
	}
	for (i = 0; i < tr->nev; i++) {
		enum call_class c = call_class(tr, &tr->ev[i], memo);

		capture |= c == CALL_BEGIN_CAPTURE;
		nidle += c == CALL_LAUNCH && !ran[i];
	}
	by = capture && nidle > ngpu;
	for (i = 0; by && i < tr->nev; i++) {
		bool one = call_class(tr, &tr->ev[i], memo) == CALL_LAUNCH;

		gpu[i] = one;
		launch[i] = one ? tr->ev[i].ts : NAN;
	}
out:
	free(ran);
	free(memo);
	return by;
}

int tl_steps_from_calltree(const struct tl_trace *tr, struct tl_steps_found *out)
{
	double *gpu = calloc(tr->nev + 1, sizeof(*gpu)), *launch = malloc((tr->nev + 1) * sizeof(*launch));
	TL_VEC(uint32_t) host = { 0 };
	TL_VEC(struct thread) th = { 0 };
	struct found best = { 0 }, cur = { 0 };
	size_t i, j;
	int err = -ENOMEM, by = 0;

	memset(out, 0, sizeof(*out));
	if (!gpu || !launch || (by = weigh(tr, gpu, launch)) < 0)
		goto out;
	for (i = 0; i < tr->nev; i++)
		if (is_host(tr->ev[i].kind) && tl_ev_timed(&tr->ev[i]) && tl_vec_push(&host, (uint32_t)i))
			goto out;
	tl_qsort_r(host.v, host.n, sizeof(*host.v), cmp_host, (void *)tr);
	for (i = 0; i < host.n; i = j) {
		const struct tl_ev *e = &tr->ev[host.v[i]];
		struct thread t = { 0 };

		for (j = i + 1; j < host.n && tr->ev[host.v[j]].pid == e->pid && tr->ev[host.v[j]].tid == e->tid; j++)
			;
		if (nest(tr, host.v + i, j - i, gpu, &t) || (t.g > 0 ? tl_vec_push(&th, t) : 0)) {
			free(t.n);
			goto out;
		}
		if (t.g <= 0)
			free(t.n);
	}
	tl_qsort(th.v, th.n, sizeof(*th.v), cmp_thread_g);
	for (i = 0; i < th.n && i < MAX_THREADS; i++) {
		cur.v.n = 0;
		cur.under = cur.how = NULL;
		if (descend(tr, &th.v[i], true, &cur))
			goto out;
		if (!cur.v.n)
			continue;
		cur.coverage = coverage(tr, &cur, launch, by, &cur.share);
		/* one iteration is an answer only when no thread finds more, the
		 * busiest thread's then; a loop must hold most of the trace's GPU
		 * work (not a helper thread's few launches) */
		if (cur.v.n > 1 && (cur.coverage < COVERAGE || cur.share < MIN_SHARE))
			continue;
		if (best.v.n &&
		    (cur.v.n < best.v.n || (cur.v.n == best.v.n && (cur.v.n == 1 || cur.v.v[0].ts >= best.v.v[0].ts))))
			continue;
		{
			struct found x = best;

			best = cur;
			cur = x;
		}
	}
	/* no thread's loop holds the trace's GPU work: the busiest thread's one iteration */
	if (!best.v.n && th.n) {
		if (descend(tr, &th.v[0], false, &best))
			goto out;
		if (best.v.n)
			best.coverage = coverage(tr, &best, launch, by, &best.share);
	}
	out->v = best.v.v;
	out->n = best.v.n;
	out->under = best.under;
	out->how = best.how;
	out->coverage = best.coverage;
	out->share = best.share;
	out->by_launches = by;
	best.v.v = NULL;
	err = 0;
out:
	for (i = 0; i < th.n; i++)
		free(th.v[i].n);
	tl_vec_free(&th);
	tl_vec_free(&host);
	tl_vec_free(&best.v);
	tl_vec_free(&cur.v);
	free(gpu);
	free(launch);
	return err;
}
