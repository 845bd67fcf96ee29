/* SPDX-License-Identifier: MIT */
/* A rank summary made from a loaded trace: the rank and distributed setup
 * (distributedInfo), the base time, the process groups, the pooled
 * breakdowns, and the collective kernels (collectives_extract.c). */
#include <math.h>
#include <stdio.h>

#include "ranks/ranks_internal.h"
#include "trace/trace_internal.h"

static const cJSON *dist_info(const struct tl_trace *tr)
{
	return cJSON_GetObjectItemCaseSensitive(tr->meta, "distributedInfo");
}

static int dist_int(const struct tl_trace *tr, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(dist_info(tr), key);

	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < INT32_MAX)
		return (int)v->valuedouble;
	if (cJSON_IsString(v) && v->valuestring[0]) {
		char *end;
		long l = strtol(v->valuestring, &end, 10);

		if (!*end && l >= 0 && l < INT32_MAX)
			return (int)l;
	}
	return -1;
}

int tl_trace_rank(const struct tl_trace *tr)
{
	return tr->rank >= 0 ? tr->rank : dist_int(tr, "rank");
}

int tl_trace_world_size(const struct tl_trace *tr)
{
	return dist_int(tr, "world_size");
}

/* The integer after "baseTimeNanoseconds": in the text before traceEvents,
 * read exactly (a double holds 1.7e18 to 256 ns only). */
static bool base_from_text(const struct tl_trace *tr, int64_t *out)
{
	static const char key[] = "\"baseTimeNanoseconds\"";
	const char *p = NULL, *e;
	char *end;
	long long v;

	if (tr->text && tr->events_open <= tr->text_len)
		p = memmem(tr->text, tr->events_open, key, sizeof(key) - 1);
	if (!p && tr->text && tr->events_close < tr->text_len)
		p = memmem(tr->text + tr->events_close, tr->text_len - tr->events_close, key, sizeof(key) - 1);
	if (!p)
		return false;
	e = tr->text + tr->text_len;
	for (p += sizeof(key) - 1; p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == ':'); p++)
		;
	if (p == e || !((*p >= '0' && *p <= '9') || *p == '-') || e - p < 20)
		return false;
	errno = 0;
	v = strtoll(p, &end, 10);
	if (errno || end == p || *end == '.' || *end == 'e' || *end == 'E')
		return false;
	*out = v;
	return true;
}

/* baseTimeNanoseconds: a number or a string of digits; 0 if none. */
static int64_t base_time_ns(const struct tl_trace *tr)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(tr->meta, "baseTimeNanoseconds");
	int64_t exact;

	if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && fabs(v->valuedouble) < 9.2e18) {
		/* the text's digits when they say the same (to the double's precision) */
		if (base_from_text(tr, &exact) && fabs((double)exact - v->valuedouble) <= 1024)
			return exact;
		return (int64_t)v->valuedouble;
	}
	if (cJSON_IsString(v))
		return strtoll(v->valuestring, NULL, 10);
	return 0;
}

static int add_pgs(struct tl_rank_summary *s, const struct tl_trace *tr)
{
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(dist_info(tr), "pg_config"), *pg;

	if (!cJSON_IsArray(cfg))
		return 0;
	cJSON_ArrayForEach(pg, cfg) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(pg, "pg_name");
		const cJSON *desc = cJSON_GetObjectItemCaseSensitive(pg, "pg_desc");
		const cJSON *size = cJSON_GetObjectItemCaseSensitive(pg, "pg_size");
		const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(pg, "ranks");
		struct tl_pg_info p = { .size = -1 };
		char *rt = ranks ? cJSON_PrintUnformatted(ranks) : NULL;
		char nb[32];

		if (cJSON_IsNumber(name)) {
			snprintf(nb, sizeof(nb), "%.0f", name->valuedouble);
			p.name = tl_rs_cstr(s, nb);
		} else {
			p.name = tl_rs_cstr(s, cJSON_IsString(name) ? name->valuestring : "");
		}
		p.desc = tl_rs_cstr(s, cJSON_IsString(desc) ? desc->valuestring : "");
		p.ranks = tl_rs_cstr(s, rt ? rt : "");
		free(rt);
		if (cJSON_IsNumber(size) && size->valuedouble >= 0 && size->valuedouble < INT32_MAX)
			p.size = (int)size->valuedouble;
		if (!p.name || !p.desc || !p.ranks || tl_vec_push(&s->pgs, p))
			return -ENOMEM;
	}
	return 0;
}

static int add_breakdowns(struct tl_rank_summary *s, struct tl_trace *tr)
{
	int k;

	for (k = 0; k < 2; k++) {
		struct tl_breakdown_opts bo = { .sz = sizeof(bo), .include_unlinked = k == 1 };
		struct tl_breakdown_set *set = NULL;
		int err = tl_breakdown(tr, &bo, &set);

		if (err == -ENODATA)
			continue;	/* no GPU event of that kind: no breakdown */
		if (err)
			return err;
		if (set->n) {
			s->bd[k] = set->v[0];
			s->bd[k].device = s->bd[k].stream = NULL;
			s->bd[k].recompute = -1;
			s->has_bd[k] = true;
		}
		tl_breakdown_free(set);
	}
	return 0;
}

int tl_rank_summary_build(struct tl_trace *tr, const struct tl_rank_summary_opts *opts,
			  struct tl_rank_summary **out)
{
	struct tl_rank_summary *s = NULL;
	const cJSON *be;
	int err, r;

	*out = NULL;
	err = tl_rs_new(&s);
	if (err)
		goto out;
	if (opts && opts->sz >= offsetof(struct tl_rank_summary_opts, rank) + sizeof(int) &&
	    opts->rank >= 0) {
		s->info.rank = opts->rank;
		s->info.rank_from = TL_RANK_FROM_OPTION;
	} else if ((r = tl_trace_rank(tr)) >= 0) {
		s->info.rank = r;
		s->info.rank_from = tr->rank >= 0 ? TL_RANK_FROM_OPTION : TL_RANK_FROM_TRACE;
	} else if ((r = tl_rank_from_filename(tr->path)) >= 0) {
		s->info.rank = r;
		s->info.rank_from = TL_RANK_FROM_NAME;
	}
	s->info.world_size = tl_trace_world_size(tr);
	be = cJSON_GetObjectItemCaseSensitive(dist_info(tr), "backend");
	s->info.backend = tl_rs_cstr(s, cJSON_IsString(be) ? be->valuestring : "");
	s->info.trace = s->info.file = tl_rs_cstr(s, tr->path);
	s->info.base_time_ns = base_time_ns(tr);
	s->info.events = tr->nev;
	s->info.trace_bytes = tr->text_len;
	err = -ENOMEM;
	if (!s->info.backend || !s->info.trace)
		goto out;
	err = add_pgs(s, tr);
	if (!err)
		err = add_breakdowns(s, tr);
	if (!err)
		err = tl_coll_extract(tr, s);
	if (!err)
		tl_rs_sort_coll(s);
out:
	if (err) {
		tl_rank_summary_free(s);
		if (err == -ENOMEM)
			return tl_err(err, "%s: out of memory summarising the rank", tr->path);
		return err;
	}
	*out = s;
	return 0;
}
