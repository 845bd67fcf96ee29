/* SPDX-License-Identifier: MIT */
/* Rank summary files (docs/multi-rank.md): JSON lines. The first line is a
 * header object (rank, distributed setup, the two breakdowns, process
 * groups, a table of strings, the column names and the number of
 * collectives); then one JSON array per collective, strings given by their
 * index in the table. Readers find columns by name, so columns may be added
 * without a new version; the count catches a file cut short. */
#include <math.h>
#include <stdio.h>

#include <tlreplay/input.h>

#include "base/base_internal.h"
#include "ranks/ranks_internal.h"

#define SUMMARY_KEY "tlreplay_rank_summary"
#define SUMMARY_VERSION 1

enum col {
	COL_PG, COL_PG_RANKS, COL_NAME, COL_DTYPE, COL_KERNEL, COL_NAME_SRC, COL_PG_INFERRED,
	COL_GROUP_SIZE, COL_IN, COL_OUT, COL_SEQ, COL_TS, COL_DUR, COL_STREAM, COL_UID, NCOLS
};

static const char *const col_names[NCOLS] = {
	"pg", "pg_ranks", "name", "dtype", "kernel", "name_src", "pg_inferred",
	"group_size", "in_nelems", "out_nelems", "seq", "ts", "dur", "stream", "uid",
};

static const char *const name_src_names[] = { "args", "op", "kernel" };

bool tl_rank_summary_sniff(const void *buf, size_t len)
{
	const char *p = buf, *e = p + len;
	static const char key[] = "\"" SUMMARY_KEY "\"";

	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	if (p >= e || *p++ != '{')
		return false;
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return (size_t)(e - p) >= sizeof(key) - 1 && !memcmp(p, key, sizeof(key) - 1);
}

/* ------------------------------------------------------------------ writing */

/* The shortest decimal that reads back to @v exactly (integers without a
 * point), in @b; @v is finite (check_writable). cJSON's printer is not used
 * for numbers: it takes 15 digits that come back within 2 ulps (a breakdown
 * of 242.00000000000003 would come back 242, 2^53 as 2^53 - 2). */
static const char *fmt_num(char b[40], double v)
{
	int prec;

	v += 0.0;	/* -0 is written 0 */
	if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		snprintf(b, 40, "%.0f", v);
		return b;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(b, 40, "%.*g", prec, v);
		if (strtod(b, NULL) == v)
			break;
	}
	return b;
}

static void put_num(FILE *f, double v)
{
	char b[40];

	fputs(fmt_num(b, v), f);
}

/* Numbers of the header, exact (fmt_num). */
static void add_num(cJSON *o, const char *key, double v)
{
	char b[40];

	cJSON_AddRawToObject(o, key, fmt_num(b, v));
}

static void add_count(cJSON *o, const char *key, uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	cJSON_AddRawToObject(o, key, b);
}

static void put_int(FILE *f, int64_t v, bool null_if_negative)
{
	if (null_if_negative && v < 0)
		fputs("null", f);
	else
		fprintf(f, "%lld", (long long)v);
}

static cJSON *breakdown_json(const struct tl_rank_summary *s, int k)
{
	cJSON *o, *us;
	int r;

	if (!s->has_bd[k])
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	us = cJSON_AddObjectToObject(o, "us");
	add_count(o, "events", s->bd[k].nevents);
	for (r = 0; r < TL_BD_NROWS && us; r++)
		add_num(us, tl_bd_row_name(r), s->bd[k].us[r]);
	return o;
}

static cJSON *header_json(const struct tl_rank_summary *s, const struct tl_strtab *tab)
{
	cJSON *h = cJSON_CreateObject(), *a;
	char b[32];
	size_t i;

	if (!h)
		return NULL;
	cJSON_AddNumberToObject(h, SUMMARY_KEY, SUMMARY_VERSION);
	cJSON_AddStringToObject(h, "library", tl_version());
	if (s->info.rank >= 0)
		cJSON_AddNumberToObject(h, "rank", s->info.rank);
	else
		cJSON_AddNullToObject(h, "rank");
	cJSON_AddStringToObject(h, "rank_from", tl_rank_source_name(s->info.rank_from));
	if (s->info.world_size >= 0)
		cJSON_AddNumberToObject(h, "world_size", s->info.world_size);
	else
		cJSON_AddNullToObject(h, "world_size");
	cJSON_AddStringToObject(h, "backend", s->info.backend);
	cJSON_AddStringToObject(h, "trace", s->info.trace);
	add_count(h, "trace_bytes", s->info.trace_bytes);
	add_count(h, "events", s->info.events);
	snprintf(b, sizeof(b), "%lld", (long long)s->info.base_time_ns);
	cJSON_AddStringToObject(h, "base_time_ns", b);
	cJSON_AddItemToObject(h, "breakdown", breakdown_json(s, 0));
	cJSON_AddItemToObject(h, "breakdown_all", breakdown_json(s, 1));
	a = cJSON_AddArrayToObject(h, "process_groups");
	for (i = 0; a && i < s->pgs.n; i++) {
		const struct tl_pg_info *p = &s->pgs.v[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", p->name);
		cJSON_AddStringToObject(o, "desc", p->desc);
		cJSON_AddStringToObject(o, "ranks", p->ranks);
		if (p->size >= 0)
			cJSON_AddNumberToObject(o, "size", p->size);
		else
			cJSON_AddNullToObject(o, "size");
		cJSON_AddItemToArray(a, o);
	}
	a = cJSON_AddArrayToObject(h, "strings");
	for (i = 0; a && i < tab->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(tl_strtab_get(tab, (uint32_t)i)));
	cJSON_AddItemToObject(h, "columns", cJSON_CreateStringArray(col_names, NCOLS));
	add_count(h, "collectives", s->coll.n);
	return h;
}

static bool count_ok(int64_t v)
{
	return v <= TL_RS_INT_MAX;	/* negative: written as null, "not recorded" */
}

/* Whether the reader takes back every value of @s: a time that is no clock's
 * (inf from a trace read before the loader refused it, a summary built by
 * hand) would be written as something the merge refuses long after the job
 * that could have said so. */
static int check_writable(const struct tl_rank_summary *s)
{
	const char *why = NULL;
	size_t i;
	int k, r;

	for (k = 0; k < 2 && !why; k++)
		for (r = 0; r < TL_BD_NROWS && s->has_bd[k] && !why; r++)
			if (!isfinite(s->bd[k].us[r]) || s->bd[k].nevents > (uint64_t)TL_RS_INT_MAX)
				why = "a breakdown is not finite, or counts more than 2^53 events";
	if (why || s->info.events > (uint64_t)TL_RS_INT_MAX || s->info.trace_bytes > (uint64_t)TL_RS_INT_MAX)
		return tl_err(-ERANGE, "%s: cannot write the rank summary: %s", s->info.trace,
			      why ? why : "the event count or size is beyond 2^53");
	for (i = 0; i < s->coll.n; i++) {
		const struct tl_coll_rec *c = &s->coll.v[i];

		if (!tl_time_ok(c->ts) || !tl_time_ok(c->dur))
			why = "ts or dur is infinite or beyond +-2^63 ns";
		else if (!count_ok(c->in_nelems) || !count_ok(c->out_nelems) || !count_ok(c->seq) ||
			 c->uid > (uint64_t)TL_RS_INT_MAX ||
			 (c->stream != TL_NOID && (c->stream < -TL_RS_INT_MAX || c->stream > TL_RS_INT_MAX)))
			why = "a count, seq, stream or UID is beyond 2^53";
		if (why)
			return tl_err(-ERANGE, "%s: cannot write the rank summary: collective kernel UID %llu: %s",
				      s->info.trace, (unsigned long long)c->uid, why);
	}
	return 0;
}

int tl_rank_summary_write(const struct tl_rank_summary *s, char **text, size_t *len)
{
	struct tl_strtab tab;
	uint32_t (*ids)[5] = NULL;
	cJSON *h = NULL;
	char *htext = NULL, *buf = NULL;
	size_t blen = 0, i;
	FILE *f = NULL;
	int err = -ENOMEM;

	*text = NULL;
	*len = 0;
	err = check_writable(s);
	if (err)
		return err;
	err = -ENOMEM;
	if (tl_strtab_init(&tab))
		return tl_err(-ENOMEM, "out of memory writing a rank summary");
	ids = malloc((s->coll.n + 1) * sizeof(*ids));
	if (!ids)
		goto out;
	for (i = 0; i < s->coll.n; i++) {
		const struct tl_coll_rec *r = &s->coll.v[i];
		const char *str[5] = { r->pg, r->pg_ranks, r->name, r->dtype, r->kernel };
		int k;

		for (k = 0; k < 5; k++) {
			ids[i][k] = tl_strtab_intern(&tab, str[k], strlen(str[k]));
			if (ids[i][k] == UINT32_MAX)
				goto out;
		}
	}
	h = header_json(s, &tab);
	htext = h ? cJSON_PrintUnformatted(h) : NULL;
	f = htext ? open_memstream(&buf, &blen) : NULL;
	if (!f)
		goto out;
	fputs(htext, f);
	fputc('\n', f);
	for (i = 0; i < s->coll.n; i++) {
		const struct tl_coll_rec *r = &s->coll.v[i];

		fprintf(f, "[%u,%u,%u,%u,%u,%d,%d,", ids[i][0], ids[i][1], ids[i][2], ids[i][3],
			ids[i][4], (int)r->name_src, r->pg_inferred ? 1 : 0);
		put_int(f, r->group_size, true);
		fputc(',', f);
		put_int(f, r->in_nelems, true);
		fputc(',', f);
		put_int(f, r->out_nelems, true);
		fputc(',', f);
		put_int(f, r->seq, true);
		fputc(',', f);
		put_num(f, r->ts);
		fputc(',', f);
		put_num(f, r->dur);
		fputc(',', f);
		if (r->stream == TL_NOID)
			fputs("null", f);
		else
			put_int(f, r->stream, false);
		fprintf(f, ",%llu]\n", (unsigned long long)r->uid);
	}
	if (fclose(f)) {
		f = NULL;
		goto out;
	}
	f = NULL;
	*text = buf;
	*len = blen;
	buf = NULL;
	err = 0;
out:
	if (f)
		fclose(f);
	free(buf);
	free(htext);
	cJSON_Delete(h);
	free(ids);
	tl_strtab_free(&tab);
	return err ? tl_err(err, "out of memory writing a rank summary") : 0;
}

/* ------------------------------------------------------------------ reading */

struct reader {
	const char *label;
	size_t line;
	int col[NCOLS];		/* index in a record, -1 if absent */
	const char **strs;	/* the string table, interned in the summary */
	size_t nstrs;
};

static int bad(const struct reader *rd, const char *what)
{
	return tl_err(-EBADMSG, "%s: line %zu: %s", rd->label, rd->line, what);
}

static const char *hdr_str(struct tl_rank_summary *s, const cJSON *h, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(h, key);

	return tl_rs_cstr(s, cJSON_IsString(v) ? v->valuestring : "");
}

static int hdr_int(const cJSON *h, const char *key, int dflt)
{
	int64_t v;

	return tl_json_i64(cJSON_GetObjectItemCaseSensitive(h, key), 0, INT32_MAX - 1, &v) ? (int)v : dflt;
}

/* A count of the header: absent is 0, anything but an integer of [0, 2^53]
 * is an error. */
static bool hdr_count(const cJSON *h, const char *key, uint64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(h, key);
	int64_t n = 0;

	if (v && !tl_json_i64(v, 0, TL_RS_INT_MAX, &n))
		return false;
	*out = (uint64_t)n;
	return true;
}

static int read_breakdown(struct tl_rank_summary *s, const cJSON *h, const char *key, int k)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(h, key), *us, *ev;
	int r;

	if (!o || cJSON_IsNull(o))
		return 0;
	us = cJSON_GetObjectItemCaseSensitive(o, "us");
	ev = cJSON_GetObjectItemCaseSensitive(o, "events");
	if (!cJSON_IsObject(us) || !cJSON_IsNumber(ev))
		return -EBADMSG;
	memset(&s->bd[k], 0, sizeof(s->bd[k]));
	s->bd[k].recompute = -1;
	if (!hdr_count(o, "events", &s->bd[k].nevents))
		return -EBADMSG;
	for (r = 0; r < TL_BD_NROWS; r++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(us, tl_bd_row_name(r));

		/* cJSON reads 1e400 as inf */
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
			return -EBADMSG;
		s->bd[k].us[r] = v->valuedouble;
	}
	s->has_bd[k] = true;
	return 0;
}

/* base_time_ns: the writer's string of digits (exact), or a number. */
static bool base_time(const cJSON *v, int64_t *out)
{
	char *end;

	if (cJSON_IsString(v)) {
		errno = 0;
		*out = strtoll(v->valuestring, &end, 10);
		return !errno && end != v->valuestring && !*end;
	}
	return tl_json_i64(v, INT64_MIN, INT64_MAX, out);
}

static int read_header(struct tl_rank_summary *s, struct reader *rd, const cJSON *h, size_t *ncoll)
{
	const cJSON *v, *x;
	int64_t iv;
	int k, err;

	v = cJSON_GetObjectItemCaseSensitive(h, SUMMARY_KEY);
	if (!cJSON_IsNumber(v))
		return bad(rd, "not a tlreplay rank summary");
	if (v->valueint != SUMMARY_VERSION) {
		char m[96];

		snprintf(m, sizeof(m), "rank summary version %d; this tlreplay reads version %d",
			 v->valueint, SUMMARY_VERSION);
		return bad(rd, m);
	}
	s->info.rank = hdr_int(h, "rank", -1);
	s->info.rank_from = TL_RANK_FROM_ORDER;
	v = cJSON_GetObjectItemCaseSensitive(h, "rank_from");
	for (k = TL_RANK_FROM_OPTION; k <= TL_RANK_FROM_ORDER && cJSON_IsString(v); k++)
		if (!strcmp(v->valuestring, tl_rank_source_name((enum tl_rank_source)k)))
			s->info.rank_from = (enum tl_rank_source)k;
	if (s->info.rank < 0)
		s->info.rank_from = TL_RANK_FROM_ORDER;
	s->info.world_size = hdr_int(h, "world_size", -1);
	s->info.backend = hdr_str(s, h, "backend");
	s->info.trace = hdr_str(s, h, "trace");
	if (!hdr_count(h, "trace_bytes", &s->info.trace_bytes) || !hdr_count(h, "events", &s->info.events))
		return bad(rd, "trace_bytes or events is not a count");
	v = cJSON_GetObjectItemCaseSensitive(h, "base_time_ns");
	if (v && !base_time(v, &s->info.base_time_ns))
		return bad(rd, "base_time_ns is not an integer of nanoseconds");
	if (!s->info.backend || !s->info.trace)
		return -ENOMEM;
	if (read_breakdown(s, h, "breakdown", 0) || read_breakdown(s, h, "breakdown_all", 1))
		return bad(rd, "malformed breakdown");
	v = cJSON_GetObjectItemCaseSensitive(h, "process_groups");
	cJSON_ArrayForEach(x, v) {
		struct tl_pg_info p = { .name = hdr_str(s, x, "name"), .desc = hdr_str(s, x, "desc"),
					.ranks = hdr_str(s, x, "ranks"), .size = hdr_int(x, "size", -1) };

		if (!p.name || !p.desc || !p.ranks || tl_vec_push(&s->pgs, p))
			return -ENOMEM;
	}
	v = cJSON_GetObjectItemCaseSensitive(h, "strings");
	if (!cJSON_IsArray(v))
		return bad(rd, "no string table");
	rd->nstrs = (size_t)cJSON_GetArraySize(v);
	rd->strs = calloc(rd->nstrs + 1, sizeof(*rd->strs));
	if (!rd->strs)
		return -ENOMEM;
	k = 0;
	cJSON_ArrayForEach(x, v) {
		if (!cJSON_IsString(x))
			return bad(rd, "a string table entry is not a string");
		rd->strs[k] = tl_rs_cstr(s, x->valuestring);
		if (!rd->strs[k++])
			return -ENOMEM;
	}
	for (k = 0; k < NCOLS; k++)
		rd->col[k] = -1;
	v = cJSON_GetObjectItemCaseSensitive(h, "columns");
	err = 0;
	{
		int i = 0;

		cJSON_ArrayForEach(x, v) {
			for (k = 0; k < NCOLS; k++)
				if (cJSON_IsString(x) && !strcmp(x->valuestring, col_names[k]))
					rd->col[k] = i;
			i++;
		}
	}
	for (k = 0; k < NCOLS && !err; k++)
		if (rd->col[k] < 0 && k != COL_SEQ && k != COL_STREAM && k != COL_PG_RANKS)
			err = bad(rd, "a required column is missing");
	if (err)
		return err;
	if (!tl_json_i64(cJSON_GetObjectItemCaseSensitive(h, "collectives"), 0, TL_RS_INT_MAX, &iv))
		return bad(rd, "no collective count");
	*ncoll = (size_t)iv;
	return 0;
}

/* Field @c of record @a: NULL if the column is absent. */
static const cJSON *field(const struct reader *rd, const cJSON *const *cells, size_t ncells, int c)
{
	int i = rd->col[c];

	return i < 0 || (size_t)i >= ncells ? NULL : cells[i];
}

/* A count (or seq): null or absent for "not recorded" (-1), else an
 * integer of [0, 2^53], as the writer writes it. */
static bool num_or_null(const cJSON *v, int64_t *out)
{
	if (!v || cJSON_IsNull(v)) {
		*out = -1;
		return true;
	}
	return tl_json_i64(v, 0, TL_RS_INT_MAX, out);
}

static int read_record(struct tl_rank_summary *s, const struct reader *rd, const cJSON *a)
{
	const cJSON *cells[32], *x, *v;
	const char **strfield[5];
	struct tl_coll_rec r = { .group_size = -1 };
	size_t n = 0;
	int64_t iv;
	int k;

	if (!cJSON_IsArray(a))
		return bad(rd, "a collective is not a JSON array");
	cJSON_ArrayForEach(x, a) {
		if (n < TL_ARRAY_SIZE(cells))
			cells[n++] = x;
	}
	strfield[0] = &r.pg;
	strfield[1] = &r.pg_ranks;
	strfield[2] = &r.name;
	strfield[3] = &r.dtype;
	strfield[4] = &r.kernel;
	for (k = 0; k < 5; k++) {
		v = field(rd, cells, n, COL_PG + k);
		if (!v && k == 1) {
			r.pg_ranks = tl_rs_str(s, "", 0);
			if (!r.pg_ranks)
				return -ENOMEM;
			continue;
		}
		if (!rd->nstrs || !tl_json_i64(v, 0, (int64_t)rd->nstrs - 1, &iv))
			return bad(rd, "a string index is out of the table");
		*strfield[k] = rd->strs[iv];
	}
	v = field(rd, cells, n, COL_NAME_SRC);
	if (!tl_json_i64(v, 0, (int64_t)TL_ARRAY_SIZE(name_src_names) - 1, &iv))
		return bad(rd, "bad name_src");
	r.name_src = (enum tl_coll_name_src)iv;
	v = field(rd, cells, n, COL_PG_INFERRED);
	r.pg_inferred = cJSON_IsNumber(v) && v->valueint;
	if (!num_or_null(field(rd, cells, n, COL_GROUP_SIZE), &iv) || iv > INT32_MAX)
		return bad(rd, "bad group_size");
	r.group_size = iv > 0 ? (int)iv : -1;
	if (!num_or_null(field(rd, cells, n, COL_IN), &r.in_nelems) ||
	    !num_or_null(field(rd, cells, n, COL_OUT), &r.out_nelems) ||
	    !num_or_null(field(rd, cells, n, COL_SEQ), &r.seq))
		return bad(rd, "bad element count or seq");
	v = field(rd, cells, n, COL_TS);
	x = field(rd, cells, n, COL_DUR);
	/* the loader's limits (cJSON reads 1e400 as inf) */
	if (!cJSON_IsNumber(v) || !cJSON_IsNumber(x) || !tl_time_ok(v->valuedouble) || !tl_time_ok(x->valuedouble))
		return bad(rd, "bad ts or dur (not a number, infinite, or beyond +-2^63 ns)");
	r.ts = v->valuedouble;
	r.dur = x->valuedouble;
	v = field(rd, cells, n, COL_STREAM);
	r.stream = TL_NOID;
	if (v && !cJSON_IsNull(v) && !tl_json_i64(v, -TL_RS_INT_MAX, TL_RS_INT_MAX, &r.stream))
		return bad(rd, "bad stream");
	v = field(rd, cells, n, COL_UID);
	if (!tl_json_i64(v, 0, TL_RS_INT_MAX, &iv))
		return bad(rd, "bad uid");
	r.uid = (uint64_t)iv;
	r.type = tl_coll_type_of(r.name);
	if (r.type == TL_COLL_UNKNOWN && r.name_src != TL_COLL_SRC_KERNEL)
		r.type = tl_coll_type_of(r.kernel);
	return tl_vec_push(&s->coll, r);
}

int tl_rank_summary_parse(const char *text, size_t len, const char *label, struct tl_rank_summary **out)
{
	struct tl_rank_summary *s = NULL;
	struct reader rd = { .label = label ? label : "a rank summary" };
	const char *p = text, *e = text + len;
	size_t ncoll = 0;
	bool have_header = false;
	cJSON *j = NULL;
	int err;

	*out = NULL;
	err = tl_rs_new(&s);
	if (err)
		goto out;
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p)), *le = nl ? nl : e, *q = p;

		rd.line++;
		while (q < le && (*q == ' ' || *q == '\t' || *q == '\r'))
			q++;
		if (q == le) {	/* blank line */
			p = le + (nl != NULL);
			continue;
		}
		j = cJSON_ParseWithLength(p, (size_t)(le - p));
		if (!j) {
			err = bad(&rd, "not JSON (a file cut short?)");
			goto out;
		}
		if (!have_header)
			err = tl_rank_summary_sniff(p, (size_t)(le - p)) ? read_header(s, &rd, j, &ncoll)
									: bad(&rd, "not a tlreplay rank summary");
		else
			err = read_record(s, &rd, j);
		have_header = true;
		cJSON_Delete(j);
		j = NULL;
		if (err)
			goto out;
		p = le + (nl != NULL);
	}
	if (!have_header) {
		err = tl_err(-EBADMSG, "%s: empty file, not a rank summary", rd.label);
	} else if (s->coll.n != ncoll) {
		err = tl_err(-EBADMSG, "%s: cut short: %zu of the %zu collectives its header announces",
			     rd.label, s->coll.n, ncoll);
	} else {
		s->info.file = tl_rs_cstr(s, rd.label);
		if (!s->info.file)
			err = -ENOMEM;
		tl_rs_sort_coll(s);
	}
out:
	free(rd.strs);
	if (err) {
		tl_rank_summary_free(s);
		return err == -ENOMEM ? tl_err(err, "%s: out of memory", rd.label) : err;
	}
	*out = s;
	return 0;
}

int tl_rank_summary_read(const char *path, struct tl_rank_summary **out)
{
	char *text;
	size_t len;
	int err;

	*out = NULL;
	/* gzip or plain, from a file or a pipe, as traces are; but KB to MB */
	err = tl_input_read(path, "a rank summary", TL_INPUT_PIPE | TL_INPUT_GUNZIP, 0, &text, &len);
	if (err)
		return err;
	err = tl_rank_summary_parse(text, len, path, out);
	free(text);
	return err;
}
