/* SPDX-License-Identifier: MIT */
/* GPU time breakdown (TraceLens's gpu_timeline) over all GPU events, or per
 * device, per stream, and split by activation recompute. */
#include <stdio.h>

#include "analysis/analysis_internal.h"
#include "trace/trace_internal.h"

const char *tl_bd_row_name(enum tl_bd_row row)
{
	static const char *const names[TL_BD_NROWS] = {
		"computation_time", "exposed_comm_time", "exposed_memcpy_time", "busy_time",
		"idle_time", "total_time", "total_comm_time", "total_memcpy_time",
	};
	return (unsigned)row < TL_BD_NROWS ? names[row] : "?";
}

static bool ieq_prefix(const char *s, const char *p)
{
	for (; *p; s++, p++)
		if ((*s | 0x20) != (*p | 0x20))
			return false;
	return true;
}

static bool icontains(const char *s, const char *needle)
{
	for (; *s; s++)
		if (ieq_prefix(s, needle))
			return true;
	return false;
}

/* ROCm <= 7.1 reports some copies as kernels:
 * ^(MEMORY_COPY_(HOST_TO_DEVICE|DEVICE_TO_HOST|DEVICE_TO_DEVICE)|__amd_rocclr_copyBuffer(Rect)?(Aligned)?)(\.kd)?$ */
static bool is_legacy_copy_kernel(const char *s)
{
	static const char *const mc[] = { "MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST",
					  "MEMORY_COPY_DEVICE_TO_DEVICE" };
	size_t i;
	const char *rest = NULL;

	for (i = 0; i < TL_ARRAY_SIZE(mc); i++)
		if (!strncmp(s, mc[i], strlen(mc[i])))
			rest = s + strlen(mc[i]);
	if (!rest && !strncmp(s, "__amd_rocclr_copyBuffer", 23)) {
		rest = s + 23;
		if (!strncmp(rest, "Rect", 4))
			rest += 4;
		if (!strncmp(rest, "Aligned", 7))
			rest += 7;
	}
	return rest && (!*rest || !strcmp(rest, ".kd"));
}

/* ^__amd_rocclr_fillBuffer(Aligned)?(\.kd)?$ : counted as computation */
static bool is_fill_kernel(const char *s)
{
	const char *r;

	if (strncmp(s, "__amd_rocclr_fillBuffer", 23))
		return false;
	r = s + 23;
	if (!strncmp(r, "Aligned", 7))
		r += 7;
	return !*r || !strcmp(r, ".kd");
}

enum tl_gpu_class tl_classify_gpu(const struct tl_trace *tr, const struct tl_ev *e)
{
	const char *name = tl_strtab_get(&tr->strs, e->name);

	if (e->kind == TL_KIND_MEMCPY)
		return TL_GPU_MEMCPY;
	/* The ROCm <= 7.1 copy/fill kernel names are TraceLens's PyTorch rule; its
	 * JAX analyser goes by the name prefix only (xplane_kinds.c). */
	if (e->kind == TL_KIND_KERNEL && !tr->xprof) {
		if (is_legacy_copy_kernel(name))
			return TL_GPU_MEMCPY;
		if (is_fill_kernel(name))
			return TL_GPU_COMPUTE;
	}
	if (icontains(name, "nccl") || icontains(name, "rccl") ||
	    icontains(name, "cross_device_reduce"))
		return TL_GPU_COMM;
	return TL_GPU_COMPUTE;
}

enum tl_gpu_class tl_gpu_event_class(const struct tl_trace *tr, uint64_t uid)
{
	if (uid >= tr->nev || !tl_kind_is_gpu(tr->ev[uid].kind))
		return TL_GPU_COMPUTE;
	return tl_classify_gpu(tr, &tr->ev[uid]);
}

/* Compute the eight rows for one set of GPU events. */
static int breakdown_of(const struct tl_trace *tr, const uint32_t *uids, size_t n,
			const uint8_t *cls, struct tl_breakdown *bd)
{
	struct tl_iv *all = NULL, *c[3] = { NULL, NULL, NULL }, *tmp = NULL, *tmp2 = NULL;
	size_t na = 0, nc[3] = { 0, 0, 0 }, i, nall, ncomp, ncomm, nmem, nt, nt2;
	int err = -ENOMEM;

	all = malloc(n * sizeof(*all) + 1);
	for (i = 0; i < 3; i++)
		c[i] = malloc(n * sizeof(*c[i]) + 1);
	tmp = malloc(2 * n * sizeof(*tmp) + 1);
	tmp2 = malloc(2 * n * sizeof(*tmp2) + 1);
	if (!all || !c[0] || !c[1] || !c[2] || !tmp || !tmp2)
		goto out;
	for (i = 0; i < n; i++) {
		const struct tl_ev *e = &tr->ev[uids[i]];
		struct tl_iv iv = { e->ts, tl_ev_end(e) };
		int k = e->kind == TL_KIND_MEMCPY ? TL_GPU_MEMCPY : cls[e->name];

		all[na++] = iv;
		c[k][nc[k]++] = iv;
	}
	nall = tl_iv_merge(all, na);
	ncomp = tl_iv_merge(c[TL_GPU_COMPUTE], nc[TL_GPU_COMPUTE]);
	ncomm = tl_iv_merge(c[TL_GPU_COMM], nc[TL_GPU_COMM]);
	nmem = tl_iv_merge(c[TL_GPU_MEMCPY], nc[TL_GPU_MEMCPY]);

	memset(bd->us, 0, sizeof(bd->us));
	bd->nevents = n;
	bd->us[TL_BD_TOTAL] = all[nall - 1].e - all[0].s;
	bd->us[TL_BD_COMPUTATION] = tl_iv_sum(c[TL_GPU_COMPUTE], ncomp);
	bd->us[TL_BD_TOTAL_COMM] = tl_iv_sum(c[TL_GPU_COMM], ncomm);
	nt = tl_iv_subtract(c[TL_GPU_COMPUTE], ncomp, c[TL_GPU_COMM], ncomm, tmp);
	bd->us[TL_BD_EXPOSED_COMM] = tl_iv_sum(tmp, nt);
	bd->us[TL_BD_TOTAL_MEMCPY] = tl_iv_sum(c[TL_GPU_MEMCPY], nmem);
	nt = tl_iv_subtract(c[TL_GPU_COMPUTE], ncomp, c[TL_GPU_MEMCPY], nmem, tmp);
	nt2 = tl_iv_subtract(c[TL_GPU_COMM], ncomm, tmp, nt, tmp2);
	bd->us[TL_BD_EXPOSED_MEMCPY] = tl_iv_sum(tmp2, nt2);
	bd->us[TL_BD_BUSY] = tl_iv_sum(all, nall);
	bd->us[TL_BD_IDLE] = bd->us[TL_BD_TOTAL] - bd->us[TL_BD_BUSY];
	err = 0;
out:
	free(all);
	for (i = 0; i < 3; i++)
		free(c[i]);
	free(tmp);
	free(tmp2);
	return err;
}

int tl_breakdown_uids(const struct tl_trace *tr, const uint32_t *uids, size_t n, const uint8_t *cls,
		      struct tl_breakdown *bd)
{
	if (!n) {
		memset(bd->us, 0, sizeof(bd->us));
		bd->nevents = 0;
		return 0;
	}
	return breakdown_of(tr, uids, n, cls, bd);
}

/* Class of every interned name used by a GPU event, as a kernel (there are
 * far fewer names than events); gpu_memcpy events are memcpy whatever their
 * name, which the callers check first. */
int tl_gpu_classes(const struct tl_trace *tr, uint8_t **out)
{
	uint8_t *cls = calloc(tr->strs.n, 1), *done = calloc(tr->strs.n, 1);
	size_t i;

	if (!cls || !done) {
		free(cls);
		free(done);
		return -ENOMEM;
	}
	for (i = 0; i < tr->nev; i++) {
		struct tl_ev e = tr->ev[i];

		if (!tl_kind_is_gpu(e.kind) || done[e.name])
			continue;
		e.kind = TL_KIND_KERNEL;
		cls[e.name] = (uint8_t)tl_classify_gpu(tr, &e);
		done[e.name] = 1;
	}
	free(done);
	*out = cls;
	return 0;
}

struct group {
	uint32_t dev, stream;	/* token ids, 0 when not grouped */
	int recompute;
	TL_VEC(uint32_t) uids;
};

static int cmp_group(const void *a, const void *b, void *ctx)
{
	const struct group *x = a, *y = b;
	const struct tl_trace *tr = ctx;
	const char *s1, *s2;
	int c;

	if (x->recompute != y->recompute)
		return x->recompute - y->recompute;
	/* devices and streams sort numerically when they are numbers */
	s1 = tl_tok_display_c(tr, x->dev);
	s2 = tl_tok_display_c(tr, y->dev);
	c = strverscmp(s1, s2);
	if (c)
		return c;
	s1 = tl_tok_display_c(tr, x->stream);
	s2 = tl_tok_display_c(tr, y->stream);
	return strverscmp(s1, s2);
}

int tl_err_no_linked_gpu(const struct tl_trace *tr, size_t considered)
{
	if (!considered)
		return tl_err(-ENODATA, "%s: no GPU events (kernel, gpu_memcpy, gpu_memset) in the trace",
			      tr->path);
	return tl_err(-ENODATA,
		      "%s: none of the %zu GPU events is linked to a CPU launch; "
		      "use --include-unlinked to count them",
		      tr->path, considered);
}

int tl_breakdown(struct tl_trace *tr, const struct tl_breakdown_opts *opts,
		 struct tl_breakdown_set **out)
{
	struct tl_breakdown_opts o = { 0 };
	uint8_t *cls = NULL, *recompute = NULL;
	TL_VEC(struct group) groups = { 0 };
	struct tl_kmap gmap;
	struct tl_breakdown_set *set = NULL;
	size_t i, considered = 0;
	int err;

	*out = NULL;
	if (opts)
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	err = o.split_recompute ? tl_tree_ensure(tr, true) : tl_links_ensure(tr);
	if (err)
		return err;
	if (o.split_recompute) {
		err = tl_recompute_flags(tr, &recompute);
		if (err)
			return err;
	}
	err = tl_gpu_classes(tr, &cls);
	if (err)
		goto nomem;
	if (tl_kmap_init(&gmap, 64))
		goto nomem;
	for (i = 0; i < tr->nev; i++) {
		const struct tl_ev *e = &tr->ev[i];
		uint64_t k1;
		int64_t k2;
		uint32_t gi;
		int rc;

		if (!tl_kind_is_gpu(e->kind))
			continue;
		considered++;
		/* JAX (XProf) traces: TraceLens counts every GPU stream event,
		 * launched from the host or not (JaxGPUEventAnalyser). */
		if (!o.include_unlinked && !tr->xprof && tr->tree.in_tree[i] != 2)
			continue;
		if ((e->flags & (EV_HAS_TS | EV_HAS_DUR)) != (EV_HAS_TS | EV_HAS_DUR))
			continue;
		rc = recompute ? recompute[i] : -1;
		k1 = o.group == TL_BD_GROUP_NONE ? 0 : e->pid;
		k2 = o.group == TL_BD_GROUP_STREAM ? (int64_t)e->tid : 0;
		k2 = k2 * 4 + rc + 1;
		if (!tl_kmap_get(&gmap, k1, k2, &gi)) {
			struct group g = { 0 };

			g.dev = (uint32_t)k1;
			g.stream = o.group == TL_BD_GROUP_STREAM ? e->tid : 0;
			g.recompute = rc;
			gi = (uint32_t)groups.n;
			if (tl_vec_push(&groups, g) || tl_kmap_put(&gmap, k1, k2, gi)) {
				tl_kmap_free(&gmap);
				goto nomem;
			}
		}
		if (tl_vec_push(&groups.v[gi].uids, (uint32_t)i)) {
			tl_kmap_free(&gmap);
			goto nomem;
		}
	}
	tl_kmap_free(&gmap);
	if (!groups.n) {
		err = tl_err_no_linked_gpu(tr, considered);
		goto out;
	}
	tl_qsort_r(groups.v, groups.n, sizeof(*groups.v), cmp_group, tr);
	set = calloc(1, sizeof(*set));
	if (!set || !(set->v = calloc(groups.n, sizeof(*set->v))))
		goto nomem;
	set->n = groups.n;
	for (i = 0; i < groups.n; i++) {
		struct tl_breakdown *bd = &set->v[i];
		struct group *g = &groups.v[i];

		bd->device = o.group != TL_BD_GROUP_NONE ? tl_tok_display_c(tr, g->dev) : NULL;
		bd->stream = o.group == TL_BD_GROUP_STREAM ? tl_tok_display_c(tr, g->stream) : NULL;
		bd->recompute = g->recompute;
		if (breakdown_of(tr, g->uids.v, g->uids.n, cls, bd))
			goto nomem;
	}
	*out = set;
	set = NULL;
	err = 0;
	goto out;
nomem:
	err = tl_err(-ENOMEM, "out of memory computing the breakdown");
out:
	for (i = 0; i < groups.n; i++)
		tl_vec_free(&groups.v[i].uids);
	tl_vec_free(&groups);
	tl_breakdown_free(set);
	free(cls);
	free(recompute);
	return err;
}

void tl_breakdown_free(struct tl_breakdown_set *set)
{
	if (!set)
		return;
	free(set->v);
	free(set);
}
