/* SPDX-License-Identifier: MIT */
/* Collectives matched across ranks, with TraceLens's definitions
 * (NcclAnalyser.build_df_nccl_implicit_sync_cat): a collective is
 * (process group, index in the group); comm_latency is the shortest
 * duration over ranks (the last rank to arrive barely waits, so its kernel
 * time is the transfer); start skew is latest - earliest start; algorithm
 * bandwidth is the full message (out for allgather, else in; MB = 2^20 B)
 * over the latency in GB/s with GB = 1024 MB; bus bandwidth scales it by
 * NCCL's factor for the group size. Ranks meet on one clock through their
 * baseTimeNanoseconds. */
#include <math.h>
#include <stdio.h>

#include "ranks/ranks_internal.h"

/* A collective of one rank, placed. */
struct placed {
	const struct tl_coll_rec *rec;
	int rank;
	uint32_t pg;		/* id in the pg name table */
	uint64_t index;
	uint32_t row;
};

struct matcher {
	const struct tl_rankset *set;
	struct tl_strtab pgs;	/* process group names over all ranks */
	bool *use_seq;		/* by pg id: every record of it has a Seq */
	struct placed *pl;
	size_t npl;
	double *off_us;		/* by rank index: base time - the smallest base, in us */
	int64_t base_ns;	/* the smallest base time */
	int *pg_size;		/* by pg id: the first size pg_config gives it over the ranks, 0 */
	int world_size;
};

static int pg_id(struct matcher *m, const char *pg, uint32_t *id)
{
	*id = tl_strtab_intern(&m->pgs, pg, strlen(pg));
	return *id == UINT32_MAX ? -ENOMEM : 0;
}

/* Ids, Seq use and rank-local ordinals of every record. */
static int place(struct matcher *m)
{
	const struct tl_rankset *set = m->set;
	size_t i, j, k = 0, total = 0;
	int64_t base = INT64_MAX;
	uint64_t *ordinal = NULL;
	int err = 0;

	for (i = 0; i < set->n; i++) {
		total += set->v[i]->coll.n;
		if (set->v[i]->info.base_time_ns < base)
			base = set->v[i]->info.base_time_ns;
		if (set->v[i]->info.world_size > m->world_size)
			m->world_size = set->v[i]->info.world_size;
	}
	m->off_us = calloc(set->n + 1, sizeof(*m->off_us));
	m->pl = malloc((total + 1) * sizeof(*m->pl));
	if (!m->off_us || !m->pl)
		return -ENOMEM;
	m->base_ns = base;
	/* base is the smallest: the difference is >= 0 and fits 64 bits
	 * unsigned where int64_t overflows (a summary's base time is any int64) */
	for (i = 0; i < set->n; i++)
		m->off_us[i] = (double)((uint64_t)set->v[i]->info.base_time_ns - (uint64_t)base) / 1000.0;
	for (i = 0; i < set->n; i++) {
		const struct tl_rank_summary *s = set->v[i];

		for (j = 0; j < s->coll.n; j++) {
			struct placed *p = &m->pl[k++];

			p->rec = &s->coll.v[j];
			p->rank = (int)i;	/* index in the set until the end */
			err = pg_id(m, p->rec->pg, &p->pg);
			if (err)
				return err;
		}
	}
	m->npl = k;
	m->use_seq = malloc((m->pgs.n + 1) * sizeof(*m->use_seq));
	m->pg_size = calloc(m->pgs.n + 1, sizeof(*m->pg_size));
	ordinal = calloc(m->pgs.n + 1, sizeof(*ordinal));
	if (!m->use_seq || !m->pg_size || !ordinal) {
		free(ordinal);
		return -ENOMEM;
	}
	for (i = 0; i < set->n; i++)	/* the first rank that gives a size wins */
		for (j = 0; j < set->v[i]->pgs.n; j++) {
			const struct tl_pg_info *g = &set->v[i]->pgs.v[j];
			uint32_t id = tl_strtab_find(&m->pgs, g->name, strlen(g->name));

			if (id != UINT32_MAX && !m->pg_size[id] && g->size > 0)
				m->pg_size[id] = g->size;
		}
	for (i = 0; i < m->pgs.n; i++)
		m->use_seq[i] = true;
	for (k = 0; k < m->npl; k++)
		if (m->pl[k].rec->seq < 0)
			m->use_seq[m->pl[k].pg] = false;
	/* records are by ts within a rank, and ranks are contiguous */
	for (k = 0; k < m->npl; k++) {
		struct placed *p = &m->pl[k];

		if (k && m->pl[k - 1].rank != p->rank)
			memset(ordinal, 0, (m->pgs.n + 1) * sizeof(*ordinal));
		p->index = m->use_seq[p->pg] ? (uint64_t)p->rec->seq : ordinal[p->pg]++;
	}
	free(ordinal);
	return 0;
}

/* The group size of a row (its parts share one process group): recorded,
 * else pg_config's, else the world. */
static int group_size_of(const struct matcher *m, const struct placed *parts, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (parts[i].rec->group_size > 0)
			return parts[i].rec->group_size;
	if (n && m->pg_size[parts[0].pg] > 0)
		return m->pg_size[parts[0].pg];
	if (m->world_size > 0)
		return m->world_size;
	return (int)n;
}

static int cmp_placed(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;

	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->rec->ts > y->rec->ts) - (x->rec->ts < y->rec->ts);
}

/* Fill row @r from its parts (by rank; a rank twice means a broken match). */
static int make_row(const struct matcher *m, struct placed *parts, size_t n, double t0,
		    struct tl_coll_row *r)
{
	const struct tl_coll_rec *best = parts[0].rec;
	double smin = INFINITY, smax = -INFINITY, emin = INFINITY, emax = -INFINITY;
	double lat = INFINITY, wait = 0;
	int64_t in = -1, out = -1;
	size_t i, np = 0;
	int bpe;

	r->parts = calloc(n, sizeof(*r->parts));
	if (!r->parts)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct tl_coll_rec *c = parts[i].rec;
		const struct tl_rank_summary *s = m->set->v[parts[i].rank];
		double st = c->ts + m->off_us[parts[i].rank], en = st + c->dur;
		struct tl_coll_part *pt;

		if (np && r->parts[np - 1].rank == s->info.rank) {
			r->mismatch = true;	/* two of one rank at one index */
			continue;
		}
		if (c->name_src < best->name_src || (best->type == TL_COLL_UNKNOWN && c->type != TL_COLL_UNKNOWN &&
						     c->name_src <= best->name_src))
			best = c;
		pt = &r->parts[np++];
		pt->rank = s->info.rank;
		pt->start_us = st - t0;
		pt->dur_us = c->dur;
		pt->in_nelems = c->in_nelems;
		pt->out_nelems = c->out_nelems;
		pt->uid = c->uid;
		if (st < smin) {
			smin = st;
			r->first_rank = pt->rank;
		}
		if (st > smax) {
			smax = st;
			r->slowest_rank = pt->rank;
		}
		emin = fmin(emin, en);
		emax = fmax(emax, en);
		lat = fmin(lat, c->dur);
		if (c->in_nelems >= 0) {
			if (in >= 0 && in != c->in_nelems)
				r->sizes_differ = true;
			in = c->in_nelems > in ? c->in_nelems : in;
		}
		if (c->out_nelems >= 0) {
			if (out >= 0 && out != c->out_nelems)
				r->sizes_differ = true;
			out = c->out_nelems > out ? c->out_nelems : out;
		}
	}
	r->nranks = np;
	r->pg = best->pg;
	r->pg_ranks = best->pg_ranks;
	r->name = best->name;
	r->type = best->type;
	r->dtype = best->dtype;
	for (i = 0; i < n; i++) {
		const struct tl_coll_rec *c = parts[i].rec;

		if (!*r->pg_ranks && *c->pg_ranks)
			r->pg_ranks = c->pg_ranks;
		if (!*r->dtype && *c->dtype)
			r->dtype = c->dtype;
		if (*r->dtype && *c->dtype && !tl_dtype_same(r->dtype, c->dtype))
			r->mismatch = true;
		if (c->name_src != TL_COLL_SRC_KERNEL && best->name_src != TL_COLL_SRC_KERNEL &&
		    c->type != best->type)
			r->mismatch = true;
	}
	r->algorithm = r->protocol = "";
	for (i = 0; i < n && !*r->algorithm && !*r->protocol; i++)
		tl_coll_kernel_algo(parts[i].rec->kernel, &r->algorithm, &r->protocol);
	r->implicit_sync = tl_coll_implicit_sync(r->type);
	r->index = parts[0].index;
	r->group_size = group_size_of(m, parts, n);
	if (r->type == TL_COLL_ALLGATHER && out < 0 && in >= 0)
		out = in * r->group_size;
	if (r->type == TL_COLL_REDUCESCATTER && in < 0 && out >= 0)
		in = out * r->group_size;
	r->in_nelems = in;
	r->out_nelems = out;
	bpe = tl_dtype_bytes(r->dtype);
	r->size_bytes = NAN;
	if (bpe && r->type == TL_COLL_ALLGATHER && out >= 0)
		r->size_bytes = (double)out * bpe;
	else if (bpe && r->type != TL_COLL_ALLGATHER && in >= 0)
		r->size_bytes = (double)in * bpe;
	r->start_us = smin - t0;
	r->start_skew_us = smax - smin;
	r->end_skew_us = emax - emin;
	r->latency_us = lat;
	r->sync_us = emax - smax;
	for (i = 0; i < np; i++) {
		r->parts[i].wait_us = (smax - t0) - r->parts[i].start_us;
		wait += r->parts[i].wait_us;
	}
	r->avg_wait_us = np ? wait / (double)np : 0;
	/* ties: the lowest rank (parts are by rank, strict comparisons above) */
	r->algbw_gbps = r->busbw_gbps = NAN;
	if (isfinite(r->size_bytes) && lat > 0) {
		r->algbw_gbps = r->size_bytes / 1048576.0 / 1024.0 / (lat / 1e6);
		r->busbw_gbps = r->algbw_gbps * tl_coll_busbw_factor(r->type, r->group_size);
	}
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct tl_coll_row *x = a, *y = b;
	int c;

	if (x->start_us != y->start_us)
		return x->start_us < y->start_us ? -1 : 1;
	c = strcmp(x->pg, y->pg);
	if (c)
		return c;
	return (x->index > y->index) - (x->index < y->index);
}

void tl_coll_table_free(struct tl_coll_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		free(t->v[i].parts);
	free(t->v);
	free(t);
}

int tl_collectives(const struct tl_rankset *set, const struct tl_coll_opts *opts, struct tl_coll_table **out)
{
	struct matcher m = { .set = set, .world_size = -1 };
	struct tl_coll_table *t = NULL;
	struct tl_kmap rows;
	size_t k, start, nrows = 0;
	double t0 = INFINITY;
	int err;

	TL_UNUSED(opts);
	*out = NULL;
	memset(&rows, 0, sizeof(rows));
	err = tl_strtab_init(&m.pgs);
	if (!err)
		err = place(&m);
	if (!err)
		err = tl_kmap_init(&rows, m.npl + 16);
	t = calloc(1, sizeof(*t));
	if (err || !t) {
		err = -ENOMEM;
		goto out;
	}
	for (k = 0; k < m.npl; k++) {
		struct placed *p = &m.pl[k];
		uint32_t row;

		if (!tl_kmap_get(&rows, p->pg, (int64_t)p->index, &row)) {
			row = (uint32_t)nrows++;
			if (tl_kmap_put(&rows, p->pg, (int64_t)p->index, row)) {
				err = -ENOMEM;
				goto out;
			}
		}
		p->row = row;
		t0 = fmin(t0, p->rec->ts + m.off_us[p->rank]);
	}
	t->nranks = set->n;
	t->t0_ns = m.npl ? (double)m.base_ns + t0 * 1000.0 : 0;
	if (!nrows)
		goto out;
	t->v = calloc(nrows, sizeof(*t->v));
	if (!t->v) {
		err = -ENOMEM;
		goto out;
	}
	tl_qsort(m.pl, m.npl, sizeof(*m.pl), cmp_placed);
	for (start = 0; start < m.npl; start = k) {
		for (k = start; k < m.npl && m.pl[k].row == m.pl[start].row; k++)
			;
		err = make_row(&m, &m.pl[start], k - start, t0, &t->v[t->n++]);
		if (err)
			goto out;
		t->nmismatch += t->v[t->n - 1].mismatch;
	}
	tl_qsort(t->v, t->n, sizeof(*t->v), cmp_row);
out:
	tl_kmap_free(&rows);
	tl_strtab_free(&m.pgs);
	free(m.use_seq);
	free(m.pg_size);
	free(m.pl);
	free(m.off_us);
	if (err) {
		tl_coll_table_free(t);
		return tl_err(err, "out of memory matching collectives");
	}
	*out = t;
	return 0;
}

/* ------------------------------------------------------------------ summary */

/* mean, sample std (NaN for one value), min, median, max of the finite values. */
static void agg(double *v, size_t n, struct tl_coll_agg *a)
{
	struct tl_agg t;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	if (!k) {
		a->mean = a->std = a->min = a->median = a->max = NAN;
		return;
	}
	tl_sort_doubles(v, k);	/* sums in ascending order, as this summary always had them */
	tl_aggregate(v, k, &t);
	*a = (struct tl_coll_agg){ .mean = t.mean, .std = t.std, .min = t.min, .median = t.median,
				   .max = t.max };
}

static int cmp_key(const struct tl_coll_row *x, const struct tl_coll_row *y)
{
	int c = strcmp(x->name, y->name);

	if (!c)
		c = strcmp(x->dtype, y->dtype);
	if (!c)
		c = (x->in_nelems > y->in_nelems) - (x->in_nelems < y->in_nelems);
	if (!c)
		c = (x->group_size > y->group_size) - (x->group_size < y->group_size);
	return c;
}

static int cmp_rowp(const void *a, const void *b)
{
	const struct tl_coll_row *x = *(const struct tl_coll_row *const *)a;
	const struct tl_coll_row *y = *(const struct tl_coll_row *const *)b;
	int c = cmp_key(x, y);

	return c ? c : (x > y) - (x < y);
}

static int cmp_group(const void *a, const void *b)
{
	const struct tl_coll_group *x = a, *y = b;
	int c = tl_cmp_double(y->total_latency_us, x->total_latency_us);

	if (c)
		return c;
	c = strcmp(x->name, y->name);
	return c ? c : (x->in_nelems > y->in_nelems) - (x->in_nelems < y->in_nelems);
}

void tl_coll_summary_free(struct tl_coll_summary *s)
{
	if (!s)
		return;
	free(s->v);
	free(s);
}

int tl_coll_summarize(const struct tl_coll_table *t, struct tl_coll_summary **out)
{
	const struct tl_coll_row **rows = malloc((t->n + 1) * sizeof(*rows));
	double *v = malloc((t->n + 1) * sizeof(*v));
	struct tl_coll_summary *s = calloc(1, sizeof(*s));
	size_t i, k, start;
	int err = 0;

	*out = NULL;
	if (!rows || !v || !s || !(s->v = calloc(t->n + 1, sizeof(*s->v)))) {
		err = tl_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < t->n; i++)
		rows[i] = &t->v[i];
	tl_qsort(rows, t->n, sizeof(*rows), cmp_rowp);
	for (start = 0; start < t->n; start = k) {
		struct tl_coll_group *g = &s->v[s->n++];
		size_t n;

		for (k = start; k < t->n && !cmp_key(rows[start], rows[k]); k++)
			;
		n = k - start;
		g->name = rows[start]->name;
		g->dtype = rows[start]->dtype;
		g->type = rows[start]->type;
		g->in_nelems = rows[start]->in_nelems;
		g->size_bytes = rows[start]->size_bytes;
		g->group_size = rows[start]->group_size;
		g->count = n;
		for (i = 0; i < n; i++) {
			v[i] = rows[start + i]->latency_us;
			g->total_latency_us += v[i];
		}
		agg(v, n, &g->latency_us);
		for (i = 0; i < n; i++)
			v[i] = rows[start + i]->start_skew_us;
		agg(v, n, &g->start_skew_us);
		for (i = 0; i < n; i++)
			v[i] = rows[start + i]->end_skew_us;
		agg(v, n, &g->end_skew_us);
		for (i = 0; i < n; i++)
			v[i] = rows[start + i]->algbw_gbps;
		agg(v, n, &g->algbw_gbps);
		for (i = 0; i < n; i++)
			v[i] = rows[start + i]->busbw_gbps;
		agg(v, n, &g->busbw_gbps);
	}
	tl_qsort(s->v, s->n, sizeof(*s->v), cmp_group);
out:
	free(rows);
	free(v);
	if (err) {
		tl_coll_summary_free(s);
		return err;
	}
	*out = s;
	return 0;
}

/* ------------------------------------------------------------------ stragglers */

static int cmp_stat(const void *a, const void *b)
{
	const struct tl_coll_rank_stat *x = a, *y = b;
	int c = tl_cmp_double(x->total_wait_us, y->total_wait_us);

	return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

void tl_coll_rank_stats_free(struct tl_coll_rank_stats *s)
{
	if (!s)
		return;
	free(s->v);
	free(s);
}

int tl_coll_stragglers(const struct tl_coll_table *t, struct tl_coll_rank_stats **out)
{
	struct tl_coll_rank_stats *s = calloc(1, sizeof(*s));
	struct tl_kmap at;
	size_t i, j, cap = 0;
	int err = 0;

	*out = NULL;
	memset(&at, 0, sizeof(at));
	if (!s || tl_kmap_init(&at, t->nranks + 16)) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < t->n; i++) {
		const struct tl_coll_row *r = &t->v[i];

		for (j = 0; j < r->nranks; j++) {
			const struct tl_coll_part *p = &r->parts[j];
			struct tl_coll_rank_stat *st;
			uint32_t k;

			if (!tl_kmap_get(&at, (uint64_t)(uint32_t)p->rank, 0, &k)) {
				k = (uint32_t)s->n;
				if (tl_grow((void **)&s->v, &cap, s->n + 1, sizeof(*s->v)) ||
				    tl_kmap_put(&at, (uint64_t)(uint32_t)p->rank, 0, k)) {
					err = -ENOMEM;
					goto out;
				}
				memset(&s->v[k], 0, sizeof(s->v[k]));
				s->v[k].rank = p->rank;
				s->n++;
			}
			st = &s->v[k];
			st->total_dur_us += p->dur_us;
			if (!r->implicit_sync || r->nranks < 2)
				continue;
			st->ncoll++;
			st->total_wait_us += p->wait_us;
			st->times_last += r->slowest_rank == p->rank;
			st->times_first += r->first_rank == p->rank;
		}
	}
	for (i = 0; i < s->n; i++)
		s->v[i].mean_wait_us = s->v[i].ncoll ? s->v[i].total_wait_us / (double)s->v[i].ncoll : 0;
	if (s->n > 1)
		tl_qsort(s->v, s->n, sizeof(*s->v), cmp_stat);
out:
	tl_kmap_free(&at);
	if (err) {
		tl_coll_rank_stats_free(s);
		return tl_err(err, "out of memory");
	}
	*out = s;
	return 0;
}
