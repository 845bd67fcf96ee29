/* SPDX-License-Identifier: MIT */
/* Fold, part 3: the ph:"C" counter events. Perfetto makes one process
 * counter track per args key ("tlreplay cpu replay us") and a value holds
 * until the next sample, so each op's value is set at its ts and dropped at
 * ts+dur. Ops nest (aten::linear around aten::addmm) and overlap across
 * threads of one pid, so the samples come from a sweep: at every change
 * the track shows the innermost running op's value (the one that started
 * last), and 0 when none runs. ts keep the input's units: they are written
 * with at most as many decimals as the op's ts and dur have (integers stay
 * integers). */
#include <math.h>
#include <stdio.h>

#include "results/results_internal.h"

struct span {
	uint32_t pid;		/* raw token id, 0 = none */
	const char *key;
	double s, e, v;
	int dec;
	uint64_t uid;
};

struct sample {
	uint32_t pid;
	const char *key;
	double t, v;
	int dec;
	size_t seq;
};

/* Fewest decimals that print @x back exactly (at most 9: ns of a us). */
static int decimals(double x)
{
	char buf[64];
	int d;

	for (d = 0; d < 9; d++) {
		snprintf(buf, sizeof(buf), "%.*f", d, x);
		if (strtod(buf, NULL) == x)
			return d;
	}
	return 9;
}

/* @t with @dec decimals, trailing zeros dropped (150.75, not 150.750). */
static void fmt_ts(char *buf, size_t n, double t, int dec)
{
	char *end;

	snprintf(buf, n, "%.*f", dec, t);
	if (!strchr(buf, '.'))
		return;
	end = buf + strlen(buf);
	while (end[-1] == '0')
		*--end = 0;
	if (end[-1] == '.')
		end[-1] = 0;
}

static int cmp_span(const void *pa, const void *pb)
{
	const struct span *a = pa, *b = pb;
	int c;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if ((c = strcmp(a->key, b->key)))
		return c;
	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	return (a->uid > b->uid) - (a->uid < b->uid);
}

static int cmp_sample(const void *pa, const void *pb)
{
	const struct sample *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Is @a the better op to show than @b: started later, else ends sooner. */
static bool inner(const struct span *a, const struct span *b)
{
	if (a->s != b->s)
		return a->s > b->s;
	if (a->e != b->e)
		return a->e < b->e;
	return a->uid > b->uid;
}

typedef TL_VEC(struct sample) sample_vec;
typedef TL_VEC(struct span) span_vec;

/* The samples of one (pid, key) track from its spans, sorted by start. */
static int sweep(const struct span *g, size_t m, size_t *active, sample_vec *out)
{
	size_t i = 0, na = 0, k;
	double last = 0;
	bool emitted = false;

	while (i < m || na) {
		double t = i < m ? g[i].s : INFINITY, v = 0;
		int dec = i < m ? g[i].dec : 0;
		const struct span *top = NULL;
		struct sample smp;

		for (k = 0; k < na; k++)
			if (g[active[k]].e < t || (g[active[k]].e == t && g[active[k]].dec > dec)) {
				t = g[active[k]].e;
				dec = g[active[k]].dec;
			}
		for (k = 0; k < na;)
			if (g[active[k]].e <= t)
				active[k] = active[--na];
			else
				k++;
		for (; i < m && g[i].s == t; i++)
			if (g[i].e > g[i].s)
				active[na++] = i;
		for (k = 0; k < na; k++)
			if (!top || inner(&g[active[k]], top))
				top = &g[active[k]];
		if (top)
			v = top->v;
		if (emitted && v == last)
			continue;
		smp = (struct sample){ g[0].pid, g[0].key, t, v, dec, out->n };
		if (tl_vec_push(out, smp))
			return -ENOMEM;
		last = v;
		emitted = true;
	}
	return 0;
}

static int collect_spans(const struct tl_trace *tr, const struct fold_op *ops, size_t nops,
			 span_vec *spans)
{
	size_t i;

	for (i = 0; i < nops; i++) {
		const struct tl_ev *e = &tr->ev[ops[i].uid];
		const cJSON *c;
		int dec;

		/* copies merged from capture traces are not in the file */
		if (ops[i].uid >= tr->nev_src || !(e->flags & EV_HAS_TS) || !(e->flags & EV_HAS_DUR) ||
		    !(e->dur > 0))
			continue;
		dec = decimals(e->ts);
		if (decimals(e->dur) > dec)
			dec = decimals(e->dur);
		cJSON_ArrayForEach(c, ops[i].tracks) {
			struct span s = { e->pid, c->string, e->ts, tl_ev_end(e), c->valuedouble, dec,
					  ops[i].uid };

			if (tl_vec_push(spans, s))
				return -ENOMEM;
		}
	}
	return 0;
}

/* One C event per (pid, ts), with every track that changes then. */
static int print_events(const struct tl_trace *tr, const struct sample *s, size_t n, FILE *m,
			uint64_t *count)
{
	size_t i, j;

	for (i = 0; i < n; i = j) {
		cJSON *args = cJSON_CreateObject();
		char *txt, ts[64];

		if (!args)
			return -ENOMEM;
		for (j = i; j < n && s[j].pid == s[i].pid && s[j].t == s[i].t; j++) {
			cJSON *old = cJSON_GetObjectItemCaseSensitive(args, s[j].key);

			if (old)
				cJSON_SetNumberValue(old, s[j].v);
			else if (!cJSON_AddNumberToObject(args, s[j].key, s[j].v)) {
				cJSON_Delete(args);
				return -ENOMEM;
			}
		}
		txt = cJSON_PrintUnformatted(args);
		cJSON_Delete(args);
		if (!txt)
			return -ENOMEM;
		fmt_ts(ts, sizeof(ts), s[i].t, s[i].dec);
		fputs(",\n{\"name\":\"tlreplay\",\"cat\":\"tlreplay\",\"ph\":\"C\"", m);
		if (s[i].pid)
			fprintf(m, ",\"pid\":%s", tl_strtab_get(&tr->strs, s[i].pid));
		fprintf(m, ",\"ts\":%s,\"args\":%s}", ts, txt);
		free(txt);
		(*count)++;
	}
	return 0;
}

int tl_fold_counter_events(const struct tl_trace *tr, const struct fold_op *ops, size_t nops,
			   char **text, size_t *len, uint64_t *count)
{
	span_vec spans = { 0 };
	sample_vec samples = { 0 };
	size_t *active = NULL, i, j;
	FILE *m = NULL;
	int err = -ENOMEM;

	*text = NULL;
	*len = 0;
	*count = 0;
	if (collect_spans(tr, ops, nops, &spans))
		goto out;
	if (spans.n > 1)
		tl_qsort(spans.v, spans.n, sizeof(*spans.v), cmp_span);
	active = malloc((spans.n + 1) * sizeof(*active));
	if (!active)
		goto out;
	for (i = 0; i < spans.n; i = j) {
		for (j = i + 1; j < spans.n && spans.v[j].pid == spans.v[i].pid &&
				!strcmp(spans.v[j].key, spans.v[i].key); j++)
			;
		if (sweep(&spans.v[i], j - i, active, &samples))
			goto out;
	}
	if (samples.n > 1)
		tl_qsort(samples.v, samples.n, sizeof(*samples.v), cmp_sample);
	m = open_memstream(text, len);
	if (!m)
		goto out;
	err = print_events(tr, samples.v, samples.n, m, count);
out:
	if (m && fclose(m) && !err)
		err = -ENOMEM;
	if (err) {
		free(*text);
		*text = NULL;
		*len = 0;
	}
	free(active);
	tl_vec_free(&spans);
	tl_vec_free(&samples);
	return err ? tl_err(err, "out of memory writing counter events") : 0;
}
