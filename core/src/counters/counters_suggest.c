/* SPDX-License-Identifier: MIT */
/* "Did you mean": the known names closest to a mistyped event, by edit
 * distance over the names the caller's listers give (perf's generic names,
 * then the sysfs PMU events). */
#include <ctype.h>
#include <stdio.h>

#include "counters/counters_internal.h"

#define NBEST 3

size_t tl_cnt_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, cur, up;
	size_t *row;

	if (la > 256 || lb > 256)	/* names are short; do not spend on garbage */
		return la > lb ? la : lb;
	row = malloc((lb + 1) * sizeof(*row));
	if (!row)
		return la > lb ? la : lb;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			cur = prev + (tolower((unsigned char)a[i - 1]) !=
				      tolower((unsigned char)b[j - 1]));
			if (up + 1 < cur)
				cur = up + 1;
			if (row[j - 1] + 1 < cur)
				cur = row[j - 1] + 1;
			row[j] = cur;
			prev = up;
		}
	}
	cur = row[lb];
	free(row);
	return cur;
}

struct suggest {
	const char *typed;
	size_t limit;
	char best[NBEST][128];
	size_t dist[NBEST], n;
};

/* Keep the NBEST closest names, the first seen winning ties (generic
 * names come first). */
static void consider(const char *name, const char *desc, void *ctx)
{
	struct suggest *s = ctx;
	const char *slash;
	char bare[128];
	size_t d, alt, i, k;

	TL_UNUSED(desc);
	if (!name[0] || strstr(name, "/<terms>/") || strlen(name) >= sizeof(s->best[0]))
		return;
	d = tl_cnt_edit_distance(s->typed, name);
	if (d && (slash = strchr(name, '/')) && slash[1]) {	/* "pmu/ev/" also as "ev" */
		snprintf(bare, sizeof(bare), "%.*s", (int)strcspn(slash + 1, "/"), slash + 1);
		alt = tl_cnt_edit_distance(s->typed, bare);
		d = alt < d ? alt : d;
	}
	if (d == 0 || d > s->limit)
		return;
	for (i = 0; i < s->n && s->dist[i] <= d; i++)
		if (!strcmp(s->best[i], name))
			return;
	if (i >= NBEST)
		return;
	k = s->n < NBEST ? s->n++ : NBEST - 1;
	for (; k > i; k--) {
		memcpy(s->best[k], s->best[k - 1], sizeof(s->best[k]));
		s->dist[k] = s->dist[k - 1];
	}
	snprintf(s->best[i], sizeof(s->best[i]), "%s", name);
	s->dist[i] = d;
}

void tl_cnt_suggest(const char *name, const tl_cnt_names_fn *src, size_t nsrc, char *buf,
		    size_t size)
{
	struct suggest s;
	size_t len = 0, i, n = strlen(name);

	memset(&s, 0, sizeof(s));
	s.typed = name;
	/* a third of the name, at least one edit and at most four */
	s.limit = n / 3 < 1 ? 1 : n / 3 > 4 ? 4 : n / 3;
	for (i = 0; i < nsrc; i++)
		src[i](consider, &s);
	buf[0] = '\0';
	for (i = 0; i < s.n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", s.best[i]);
}
