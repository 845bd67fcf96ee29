/* SPDX-License-Identifier: MIT */
/* The host call tree and CPU -> runtime -> GPU links, with TraceLens's
 * semantics (Trace2Tree/trace_to_tree.py):
 *  - host events (cpu_op, runtime, driver, optionally python_function) are
 *    sorted by ts with ties in file order, and stacked per (pid, tid):
 *    pop while ts >= top's end; an event ending after the top's end pops
 *    that top when it overlaps it by under 1 us (and one is left below),
 *    else it is left out (no parent, not pushed);
 *  - a runtime call links to the GPU event found through its ac2g flow pair
 *    (both "s" and "f" must exist; the GPU event is the one on the f's
 *    (pid, tid) with the same link id); a graph launch links to every GPU
 *    event whose correlation equals its link id;
 *  - GPU children come after host children. */
#include "trace/trace_internal.h"

void tl_tree_free(struct tl_tree *t)
{
	free(t->parent);
	free(t->first_child);
	free(t->last_child);
	free(t->next_sibling);
	free(t->in_tree);
	free(t->fwd);
	memset(t, 0, sizeof(*t));
}

void tl_tree_add_child(struct tl_tree *t, int32_t parent, int32_t child)
{
	t->parent[child] = parent;
	t->next_sibling[child] = -1;
	if (t->last_child[parent] < 0)
		t->first_child[parent] = child;
	else
		t->next_sibling[t->last_child[parent]] = child;
	t->last_child[parent] = child;
}

void tl_tree_clear_children(struct tl_tree *t, int32_t parent)
{
	int32_t c = t->first_child[parent];

	while (c >= 0) {
		int32_t n = t->next_sibling[c];

		t->next_sibling[c] = -1;
		if (t->parent[c] == parent)
			t->parent[c] = -1;
		c = n;
	}
	t->first_child[parent] = t->last_child[parent] = -1;
}

int tl_tree_grow(struct tl_trace *tr, size_t n)
{
	struct tl_tree *t = &tr->tree;
	int32_t **arrs[] = { &t->parent, &t->first_child, &t->last_child, &t->next_sibling, &t->fwd };
	uint8_t *in;
	size_t i, k, old = tr->nev;

	for (k = 0; k < TL_ARRAY_SIZE(arrs); k++) {
		int32_t *a = realloc(*arrs[k], n * sizeof(int32_t));

		if (!a)
			return -ENOMEM;
		for (i = old; i < n; i++)
			a[i] = -1;
		*arrs[k] = a;
	}
	in = realloc(t->in_tree, n);
	if (!in)
		return -ENOMEM;
	memset(in + old, 0, n - old);
	t->in_tree = in;
	return 0;
}

void tl_tree_remove_child(struct tl_tree *t, int32_t parent, int32_t child)
{
	int32_t prev = -1, c = t->first_child[parent];

	while (c >= 0 && c != child) {
		prev = c;
		c = t->next_sibling[c];
	}
	if (c < 0)
		return;
	if (prev < 0)
		t->first_child[parent] = t->next_sibling[c];
	else
		t->next_sibling[prev] = t->next_sibling[c];
	if (t->last_child[parent] == c)
		t->last_child[parent] = prev;
	t->next_sibling[c] = -1;
	t->parent[c] = -1;
}

static bool name_has_launch(const char *s)
{
	for (; *s; s++) {
		if ((s[0] == 'l' || s[0] == 'L') && (s[1] == 'a' || s[1] == 'A') &&
		    (s[2] == 'u' || s[2] == 'U') && (s[3] == 'n' || s[3] == 'N') &&
		    (s[4] == 'c' || s[4] == 'C') && (s[5] == 'h' || s[5] == 'H'))
			return true;
	}
	return false;
}

static bool is_host_runtime(uint8_t k)
{
	return k == TL_KIND_RUNTIME || k == TL_KIND_DRIVER;
}

/* TraceLens looks at the first launch-like runtime call: if it carries a
 * "correlation" arg, that links runtime and GPU events, else "External id". */
static int pick_linking_key(const struct tl_trace *tr)
{
	uint8_t *memo;	/* by name: 1 = no launch, 2 = launch */
	size_t i;
	int r = 0;

	if (tr->xprof)
		return 1;	/* XProf: a launch and its GPU work share correlation_id */
	memo = calloc(tr->strs.n, 1);

	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		bool launch;

		if (!is_host_runtime(e->kind))
			continue;
		if (memo && memo[e->name]) {
			launch = memo[e->name] == 2;
		} else {
			launch = name_has_launch(tl_strtab_get(&tr->strs, e->name));
			if (memo)
				memo[e->name] = launch ? 2 : 1;
		}
		if (launch) {
			r = (e->flags & EV_CORR_KEY) ? 1 : 0;
			break;
		}
	}
	free(memo);
	return r;
}

static inline bool link_value(const struct tl_trace *tr, const struct tl_ev *e, int use_corr, int64_t *v)
{
	if (use_corr) {
		if (!(e->flags & EV_HAS_CORR))
			return false;
		*v = tl_ev_corr(tr, e);
	} else {
		if (!(e->flags & EV_HAS_EXTID))
			return false;
		*v = tl_ev_extid(tr, e);
	}
	return true;
}

/* ---------------------------------------------------------------- host tree */

struct sort_item {
	double ts;
	uint32_t uid;
};

static int cmp_item(const void *a, const void *b)
{
	const struct sort_item *x = a, *y = b;

	if (x->ts < y->ts)
		return -1;
	if (x->ts > y->ts)
		return 1;
	return (x->uid > y->uid) - (x->uid < y->uid);
}

/* LSD radix sort on (ts, uid): ts bits made order-preserving, uid already
 * in order since items are gathered in UID order and the sort is stable. */
static uint64_t ts_key(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return (u & 0x8000000000000000ULL) ? ~u : (u | 0x8000000000000000ULL);
}

static int sort_items(struct sort_item *a, size_t n)
{
	struct sort_item *tmp;
	uint64_t *keys, *ktmp;
	size_t *count;
	size_t i;
	int pass;

	if (n < 4096) {
		tl_qsort(a, n, sizeof(*a), cmp_item);
		return 0;
	}
	tmp = malloc(n * sizeof(*tmp));
	keys = malloc(n * sizeof(*keys));
	ktmp = malloc(n * sizeof(*ktmp));
	count = malloc((65536 + 1) * sizeof(*count));
	if (!tmp || !keys || !ktmp || !count) {
		free(count);
		free(tmp);
		free(keys);
		free(ktmp);
		tl_qsort(a, n, sizeof(*a), cmp_item);
		return 0;
	}
	for (i = 0; i < n; i++)
		keys[i] = ts_key(a[i].ts);
	for (pass = 0; pass < 4; pass++) {
		int shift = pass * 16;

		memset(count, 0, (65536 + 1) * sizeof(*count));
		for (i = 0; i < n; i++)
			count[((keys[i] >> shift) & 0xffff) + 1]++;
		if (count[((keys[0] >> shift) & 0xffff) + 1] == n)
			continue;	/* one digit value only: order unchanged */
		for (i = 1; i <= 65536; i++)
			count[i] += count[i - 1];
		for (i = 0; i < n; i++) {
			size_t d = (keys[i] >> shift) & 0xffff;
			size_t j = count[d]++;

			tmp[j] = a[i];
			ktmp[j] = keys[i];
		}
		memcpy(a, tmp, n * sizeof(*a));
		memcpy(keys, ktmp, n * sizeof(*keys));
	}
	free(count);
	free(tmp);
	free(keys);
	free(ktmp);
	return 0;
}

struct stack {
	int32_t *v;
	size_t n, cap;
};

static int build_host_tree(struct tl_trace *tr, bool with_python)
{
	struct tl_tree *t = &tr->tree;
	struct sort_item *items = NULL;
	struct tl_kmap stack_of;
	struct stack *stacks = NULL;
	size_t nitems = 0, nstacks = 0, stackcap = 0, i;
	int err = 0;

	items = malloc(tr->nev * sizeof(*items) + 1);
	if (!items || tl_kmap_init(&stack_of, 64)) {
		free(items);
		return -ENOMEM;
	}
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		uint8_t k = e->kind;

		if (!(k == TL_KIND_CPU_OP || is_host_runtime(k) || (with_python && k == TL_KIND_PYTHON)))
			continue;
		if ((e->flags & (EV_HAS_TS | EV_HAS_DUR)) != (EV_HAS_TS | EV_HAS_DUR))
			continue;
		items[nitems].ts = e->ts;
		items[nitems].uid = (uint32_t)i;
		nitems++;
	}
	sort_items(items, nitems);

	for (i = 0; i < nitems; i++) {
		uint32_t uid = items[i].uid;
		const struct tl_ev *e = &tr->ev[uid];
		uint64_t key = (uint64_t)e->pid << 32 | e->tid;
		uint32_t si;
		struct stack *st;
		double end = tl_ev_end(e);

		if (!tl_kmap_get(&stack_of, key, 0, &si)) {
			if (tl_grow((void **)&stacks, &stackcap, nstacks + 1, sizeof(*stacks))) {
				err = -ENOMEM;
				goto out;
			}
			memset(&stacks[nstacks], 0, sizeof(*stacks));
			si = (uint32_t)nstacks++;
			if (tl_kmap_put(&stack_of, key, 0, si)) {
				err = -ENOMEM;
				goto out;
			}
		}
		st = &stacks[si];
		t->in_tree[uid] = 1;
		while (st->n && e->ts >= tl_ev_end(&tr->ev[st->v[st->n - 1]]))
			st->n--;
		if (st->n && end > tl_ev_end(&tr->ev[st->v[st->n - 1]])) {
			/* An event that starts inside the top but ends after it.
			 * TraceLens takes a bleed of under 1 us for timing noise
			 * (a launch starting just before a sibling op ends): it pops
			 * that one sibling and the event goes under the next one
			 * down, whatever that one's end. A larger bleed (a Python
			 * built-in whose time includes a GPU sync) is left out: no
			 * parent, not pushed. */
			if (tl_ev_end(&tr->ev[st->v[st->n - 1]]) - e->ts < 1.0 && st->n >= 2) {
				st->n--;
			} else {
				t->in_tree[uid] = 3;
				continue;
			}
		}
		if (st->n)
			tl_tree_add_child(t, st->v[st->n - 1], (int32_t)uid);
		if (tl_grow((void **)&st->v, &st->cap, st->n + 1, sizeof(*st->v))) {
			err = -ENOMEM;
			goto out;
		}
		st->v[st->n++] = (int32_t)uid;
	}
out:
	for (i = 0; i < nstacks; i++)
		free(stacks[i].v);
	free(stacks);
	tl_kmap_free(&stack_of);
	free(items);
	return err;
}

/* ---------------------------------------------------------------- GPU links */

static int link_gpu(struct tl_trace *tr)
{
	struct tl_tree *t = &tr->tree;
	struct tl_kmap flow_s, flow_f, by_key, graph_head;
	int32_t *graph_next = NULL;
	bool have_graph = false, have_flows = false;
	int use_corr = t->linking_is_corr;
	/* TraceLens follows ac2g flows only: older flow categories link nothing
	 * there, and a trace without flows is not linked by correlation */
	bool tl_rule = tr->tracelens_links;
	size_t i;
	int err = -ENOMEM;

	memset(&graph_head, 0, sizeof(graph_head));
	if (tl_kmap_init(&flow_s, 1024) || tl_kmap_init(&flow_f, 1024) ||
	    tl_kmap_init(&by_key, 1024))
		goto out;

	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		int64_t v;

		if (e->kind == TL_KIND_FLOW_LAUNCH) {
			if (tl_rule && (e->flags & EV_LEGACY_FLOW))
				continue;
			have_flows = true;
			if (!(e->flags & EV_HAS_CORR) || (e->ph != 's' && e->ph != 'f'))
				continue;
			if (tl_kmap_put(e->ph == 's' ? &flow_s : &flow_f, 0, tl_ev_corr(tr, e), (uint32_t)i))
				goto out;
			continue;
		}
		if (is_host_runtime(e->kind) &&
		    (e->name == tr->id_graph_cuda || e->name == tr->id_graph_hip))
			have_graph = true;
		if (!e->pid || !e->tid || !link_value(tr, e, use_corr, &v))
			continue;
		if (tl_kmap_put(&by_key, (uint64_t)e->pid << 32 | e->tid, v, (uint32_t)i))
			goto out;
	}

	/* Traces stripped of their flow events (HTA's sampled traces) would link
	 * nothing; there, link each runtime call to the GPU events carrying its
	 * correlation directly, as HTA does. With flows present, TraceLens's
	 * flow-based rule stands. */
	t->linked_by_correlation = !have_flows && !tl_rule;
	t->legacy_links = 0;
	if (have_graph || t->linked_by_correlation) {
		/* correlation -> GPU events in file order (singly linked via graph_next) */
		struct tl_kmap graph_tail;

		graph_next = malloc(tr->nev * sizeof(*graph_next) + 1);
		if (!graph_next || tl_kmap_init(&graph_head, 1024))
			goto out;
		if (tl_kmap_init(&graph_tail, 1024))
			goto out;
		for (i = 0; i < tr->nev; i++) {
			const struct tl_ev *e = &tr->ev[i];
			uint32_t tail;
			int64_t corr;

			if (!tl_kind_is_gpu(e->kind) || !(e->flags & EV_HAS_CORR))
				continue;
			corr = tl_ev_corr(tr, e);
			graph_next[i] = -1;
			if (tl_kmap_get(&graph_tail, 0, corr, &tail))
				graph_next[tail] = (int32_t)i;
			else if (tl_kmap_put(&graph_head, 0, corr, (uint32_t)i))
				break;
			if (tl_kmap_put(&graph_tail, 0, corr, (uint32_t)i))
				break;
		}
		tl_kmap_free(&graph_tail);
		if (i < tr->nev)
			goto out;
	}

	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		int64_t link;
		uint32_t s, f, g;

		if (!is_host_runtime(e->kind) || !link_value(tr, e, use_corr, &link))
			continue;
		if ((have_graph && (e->name == tr->id_graph_cuda || e->name == tr->id_graph_hip)) ||
		    t->linked_by_correlation) {
			uint32_t head;
			int32_t j;

			if (!tl_kmap_get(&graph_head, 0, link, &head))
				continue;
			for (j = (int32_t)head; j >= 0; j = graph_next[j]) {
				if (t->parent[j] >= 0)
					tl_tree_remove_child(t, t->parent[j], j);
				tl_tree_add_child(t, (int32_t)i, j);
				t->in_tree[j] = 2;
			}
			continue;
		}
		if (!tl_kmap_get(&flow_s, 0, link, &s) || !tl_kmap_get(&flow_f, 0, link, &f))
			continue;
		{
			const struct tl_ev *fe = &tr->ev[f];

			if (!tl_kmap_get(&by_key, (uint64_t)fe->pid << 32 | fe->tid, tl_ev_corr(tr, fe), &g))
				continue;
		}
		if (!tl_kind_is_gpu(tr->ev[g].kind) || g == i)
			continue;
		if ((tr->ev[s].flags | tr->ev[f].flags) & EV_LEGACY_FLOW)
			t->legacy_links++;
		if (t->parent[g] >= 0)
			tl_tree_remove_child(t, t->parent[g], (int32_t)g);
		tl_tree_add_child(t, (int32_t)i, (int32_t)g);
		t->in_tree[g] = 2;
	}
	err = 0;
out:
	free(graph_next);
	tl_kmap_free(&graph_head);
	tl_kmap_free(&flow_s);
	tl_kmap_free(&flow_f);
	tl_kmap_free(&by_key);
	return err;
}

/* ---------------------------------------------------------------- fwd / bwd */

struct seq_item {
	int64_t seq;
	double ts;
	uint32_t uid;
};

static int cmp_seq(const void *a, const void *b)
{
	const struct seq_item *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->uid > y->uid) - (x->uid < y->uid);
}

static bool is_bwd_name(const char *s)
{
	static const char pfx[] = "autograd::engine::evaluate_function:";

	return !strncmp(s, pfx, sizeof(pfx) - 1);
}

/* TraceLens's link_all_fwd_bwd_events: per sequence number, the first
 * autograd::engine::evaluate_function event (file order) is the backward; the
 * forward is the latest-starting event with that number on another thread
 * (ties: the first in file order). Any category carrying the number counts. */
static int link_fwd_bwd(struct tl_trace *tr)
{
	struct tl_tree *t = &tr->tree;
	struct seq_item *it;
	uint8_t *bwdname;
	size_t n = 0, i, j;

	it = malloc(tr->nev * sizeof(*it) + 1);
	bwdname = calloc(tr->strs.n + 1, 1);
	if (!it || !bwdname) {
		free(it);
		free(bwdname);
		return -ENOMEM;
	}
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];

		if (!(e->flags & EV_HAS_SEQ))
			continue;
		it[n].seq = tl_ev_seq(tr, e);
		it[n].ts = 0;	/* group by number, keep file order inside a group */
		it[n].uid = (uint32_t)i;
		n++;
		if (!bwdname[e->name])
			bwdname[e->name] = is_bwd_name(tl_strtab_get(&tr->strs, e->name)) ? 2 : 1;
	}
	tl_qsort(it, n, sizeof(*it), cmp_seq);
	for (i = 0; i < n; i = j) {
		const struct tl_ev *b = NULL;
		int64_t best = -1;
		double best_ts = -1;
		size_t a;

		for (j = i; j < n && it[j].seq == it[i].seq; j++)
			if (!b && bwdname[tr->ev[it[j].uid].name] == 2)
				b = &tr->ev[it[j].uid];
		if (!b)
			continue;
		for (a = i; a < j; a++) {
			const struct tl_ev *f = &tr->ev[it[a].uid];
			double ts = (f->flags & EV_HAS_TS) ? f->ts : 0;

			if (f->pid == b->pid && f->tid == b->tid)
				continue;
			if (ts > best_ts) {
				best_ts = ts;
				best = it[a].uid;
			}
		}
		if (best >= 0)
			t->fwd[b - tr->ev] = (int32_t)best;
	}
	free(it);
	free(bwdname);
	return 0;
}

/* ---------------------------------------------------------------- public */

static int tree_alloc(struct tl_trace *tr)
{
	struct tl_tree *t = &tr->tree;
	size_t n = tr->nev, i;

	tl_tree_free(t);
	t->parent = tl_malloc_big(n * sizeof(int32_t) + 1);
	t->first_child = tl_malloc_big(n * sizeof(int32_t) + 1);
	t->last_child = tl_malloc_big(n * sizeof(int32_t) + 1);
	t->next_sibling = tl_malloc_big(n * sizeof(int32_t) + 1);
	t->fwd = tl_malloc_big(n * sizeof(int32_t) + 1);
	t->in_tree = tl_calloc_big(n + 1, 1);
	if (!t->parent || !t->first_child || !t->last_child || !t->next_sibling || !t->fwd ||
	    !t->in_tree) {
		tl_tree_free(t);
		return tl_err(-ENOMEM, "%s: out of memory building the call tree", tr->path);
	}
	for (i = 0; i < n; i++)
		t->parent[i] = t->first_child[i] = t->last_child[i] = t->next_sibling[i] =
			t->fwd[i] = -1;
	t->linking_is_corr = pick_linking_key(tr);
	return 0;
}

/* Only the runtime -> GPU links: all the breakdown needs, and much cheaper
 * than sorting every host event into stacks. A full build supersedes it. */
int tl_links_ensure(struct tl_trace *tr)
{
	struct tl_tree *t = &tr->tree;
	int err;

	if (t->built || t->links_only)
		return 0;
	err = tree_alloc(tr);
	if (err)
		return err;
	err = link_gpu(tr);
	if (err) {
		tl_tree_free(t);
		return tl_err(err, "%s: out of memory linking GPU events", tr->path);
	}
	t->links_only = true;
	return 0;
}

int tl_tree_ensure(struct tl_trace *tr, bool with_python)
{
	struct tl_tree *t = &tr->tree;
	int err;

	/* a merged tree is fixed (built with python functions), as is one
	 * pseudo ops were put in */
	if (t->built && (t->with_python == with_python || tr->merged || tr->pseudo_ops))
		return 0;
	err = tree_alloc(tr);
	if (err)
		return err;
	err = build_host_tree(tr, with_python);
	if (!err)
		err = link_gpu(tr);
	if (!err)
		err = link_fwd_bwd(tr);
	if (err) {
		tl_tree_free(t);
		return tl_err(err, "%s: out of memory building the call tree", tr->path);
	}
	t->with_python = with_python;
	t->built = true;
	return 0;
}

int tl_trace_link(struct tl_trace *tr, const struct tl_link_opts *opts)
{
	bool py = opts && opts->sz >= offsetof(struct tl_link_opts, with_python) + sizeof(bool) &&
		  opts->with_python;

	return tl_tree_ensure(tr, py);
}

int tl_trace_set_tracelens_links(struct tl_trace *tr, bool on)
{
	if (tr->tracelens_links == on)
		return 0;
	/* a merged tree (or one with pseudo ops) is fixed: its links stay */
	if (tr->tree.built && (tr->merged || tr->pseudo_ops))
		return tl_err(-EBUSY, "%s: the launch links are fixed once graph captures are merged", tr->path);
	tr->tracelens_links = on;
	tr->tree.built = false; /* relinked on next use */
	return 0;
}

uint64_t tl_trace_legacy_links(const struct tl_trace *tr)
{
	return tr->tree.built ? tr->tree.legacy_links : 0;
}

uint64_t tl_trace_legacy_flows(const struct tl_trace *tr)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < tr->nev; i++)
		if (tr->ev[i].kind == TL_KIND_FLOW_LAUNCH && tr->ev[i].ph == 's' && (tr->ev[i].flags & EV_LEGACY_FLOW))
			n++;
	return n;
}

const char *tl_trace_linking_key(const struct tl_trace *tr)
{
	if (!tr->tree.built)
		return pick_linking_key(tr) ? "correlation" : "External id";
	return tr->tree.linking_is_corr ? "correlation" : "External id";
}

#define TREE_OK(tr, uid) ((tr)->tree.built && (uid) < (tr)->nev)

int64_t tl_event_parent(const struct tl_trace *tr, uint64_t uid)
{
	return TREE_OK(tr, uid) ? tr->tree.parent[uid] : -1;
}

int64_t tl_event_first_child(const struct tl_trace *tr, uint64_t uid)
{
	return TREE_OK(tr, uid) ? tr->tree.first_child[uid] : -1;
}

int64_t tl_event_next_sibling(const struct tl_trace *tr, uint64_t uid)
{
	return TREE_OK(tr, uid) ? tr->tree.next_sibling[uid] : -1;
}

bool tl_event_in_tree(const struct tl_trace *tr, uint64_t uid)
{
	return TREE_OK(tr, uid) && (tr->tree.in_tree[uid] == 1 || tr->tree.in_tree[uid] == 2);
}

bool tl_event_linked(const struct tl_trace *tr, uint64_t uid)
{
	return TREE_OK(tr, uid) && tr->tree.in_tree[uid] == 2;
}

int64_t tl_event_launcher(const struct tl_trace *tr, uint64_t g)
{
	const struct tl_tree *t = &tr->tree;
	int32_t rt, cur;

	if (!TREE_OK(tr, g) || t->in_tree[g] != 2)
		return -1;
	rt = t->parent[g];
	if (rt < 0)
		return -1;
	cur = t->parent[rt];
	while (cur >= 0) {
		const struct tl_ev *e = &tr->ev[cur];

		if (e->kind == TL_KIND_CPU_OP) {
			if (e->name == tr->id_execute) {
				cur = t->parent[cur];
				continue;
			}
			return cur;
		}
		if (e->kind != TL_KIND_PYTHON)
			break;
		cur = t->parent[cur];
	}
	return rt;
}

int64_t tl_event_gpu_events(const struct tl_trace *tr, uint64_t uid, uint64_t **out)
{
	const struct tl_tree *t = &tr->tree;
	TL_VEC(uint64_t) res = { 0 };
	TL_VEC(int32_t) stack = { 0 };

	*out = NULL;
	if (!TREE_OK(tr, uid))
		return 0;
	if (tl_vec_push(&stack, (int32_t)uid))
		goto nomem;
	while (stack.n) {
		int32_t u = stack.v[--stack.n], c;

		if (tl_kind_is_gpu(tr->ev[u].kind)) {
			if (tl_vec_push(&res, (uint64_t)u))
				goto nomem;
			continue;
		}
		for (c = t->first_child[u]; c >= 0; c = t->next_sibling[c])
			if (tl_vec_push(&stack, c))
				goto nomem;
	}
	tl_vec_free(&stack);
	*out = res.v;
	return (int64_t)res.n;
nomem:
	tl_vec_free(&stack);
	tl_vec_free(&res);
	return tl_err(-ENOMEM, "out of memory");
}

int64_t tl_event_fwd(const struct tl_trace *tr, uint64_t uid)
{
	return TREE_OK(tr, uid) ? tr->tree.fwd[uid] : -1;
}

size_t tl_event_bwd(const struct tl_trace *tr, uint64_t uid, uint64_t *out, size_t max)
{
	size_t i, n = 0;

	if (!TREE_OK(tr, uid))
		return 0;
	for (i = 0; i < tr->nev; i++) {
		if (tr->tree.fwd[i] == (int32_t)uid) {
			if (n < max)
				out[n] = i;
			n++;
		}
	}
	return n;
}
