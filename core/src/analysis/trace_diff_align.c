/* SPDX-License-Identifier: MIT */
/* Aligning two lists of sibling ops by name for the merged call tree:
 * TraceLens's name normalisation, its Wagner-Fischer edit distance with the
 * same backtracking preferences, and its second pass over the leftovers. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analysis/trace_diff_internal.h"

int td_ops_add(struct td_ops *o, enum td_op_kind kind, long i, long j)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 16;
		struct td_op *nv = realloc(o->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		o->v = nv;
		o->cap = cap;
	}
	o->v[o->n].kind = kind;
	o->v[o->n].i = i;
	o->v[o->n].j = j;
	o->n++;
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
	char **slot = strip ? &s->norm_strip[uid] : &s->norm[uid];
	const char *raw;

	if (*slot)
		return *slot;
	raw = td_raw_name(s, uid);
	if (!*raw)
		return NULL;
	*slot = normalise(raw, strip);
	return *slot;
}

static bool same(const struct tl_trace_diff *d, int64_t a, int64_t b, bool strip)
{
	const char *x = td_norm(&d->s[0], (uint64_t)a, strip);
	const char *y = td_norm(&d->s[1], (uint64_t)b, strip);

	if (!x || !y)
		return x == y;
	return !strcmp(x, y);
}

/* Wagner-Fischer on names, backtracked from the end preferring a match,
 * then a deletion (baseline-only), then an insertion. A common suffix is
 * matched as the backtrack would; a common prefix too (it is always part of
 * an optimal alignment), which keeps the table small for long equal lists. */
static int wagner_fischer(const struct tl_trace_diff *d, const struct td_vec *a, const struct td_vec *b,
			  bool strip, struct td_ops *out)
{
	size_t m = a->n, n = b->n, pre = 0, suf = 0, i, j, w;
	uint32_t *dp = NULL;
	struct td_ops rev = { 0 };
	int err = 0;

	while (pre < m && pre < n && same(d, a->v[pre], b->v[pre], strip))
		pre++;
	while (suf < m - pre && suf < n - pre && same(d, a->v[m - 1 - suf], b->v[n - 1 - suf], strip))
		suf++;
	m -= pre + suf;
	n -= pre + suf;
	w = n + 1;
	dp = malloc((m + 1) * w * sizeof(*dp));
	if (!dp)
		return -ENOMEM;
	for (i = 0; i <= m; i++)
		dp[i * w] = (uint32_t)i;
	for (j = 0; j <= n; j++)
		dp[j] = (uint32_t)j;
	for (i = 1; i <= m; i++)
		for (j = 1; j <= n; j++) {
			uint32_t c = same(d, a->v[pre + i - 1], b->v[pre + j - 1], strip) ? 0 : 1;
			uint32_t x = dp[(i - 1) * w + j] + 1, y = dp[i * w + j - 1] + 1;
			uint32_t z = dp[(i - 1) * w + j - 1] + c;

			dp[i * w + j] = x < y ? (x < z ? x : z) : (y < z ? y : z);
		}
	for (i = 0; i < pre && !err; i++)
		err = td_ops_add(out, TD_MATCH, (long)i, (long)i);
	i = m;
	j = n;
	while ((i > 0 || j > 0) && !err) {
		if (i > 0 && j > 0 && same(d, a->v[pre + i - 1], b->v[pre + j - 1], strip)) {
			err = td_ops_add(&rev, TD_MATCH, (long)(pre + i - 1), (long)(pre + j - 1));
			i--;
			j--;
		} else if (i > 0 && (j == 0 || dp[i * w + j] == dp[(i - 1) * w + j] + 1)) {
			err = td_ops_add(&rev, TD_DELETE, (long)(pre + i - 1), -1);
			i--;
		} else {
			err = td_ops_add(&rev, TD_INSERT, -1, (long)(pre + j - 1));
			j--;
		}
	}
	while (rev.n && !err) {
		rev.n--;
		err = td_ops_add(out, rev.v[rev.n].kind, rev.v[rev.n].i, rev.v[rev.n].j);
	}
	for (i = 0; i < suf && !err; i++)
		err = td_ops_add(out, TD_MATCH, (long)(a->n - suf + i), (long)(b->n - suf + i));
	free(rev.v);
	free(dp);
	return err;
}

int td_align(struct tl_trace_diff *d, const struct td_vec *a, const struct td_vec *b, bool strip,
	     struct td_ops *out)
{
	out->n = 0;
	return wagner_fischer(d, a, b, strip, out);
}

int td_realign_leftovers(struct tl_trace_diff *d, struct td_vec c[2], struct td_ops *ops)
{
	struct td_vec col[2] = { { 0 } }, idx[2] = { { 0 } }, s2[2] = { { 0 } }, st[2] = { { 0 } },
		      kids = { 0 };
	struct td_ops p1 = { 0 }, p2 = { 0 }, res = { 0 }, nw = { 0 };
	size_t i;
	int err = 0, k;

	for (i = 0; i < ops->n && !err; i++) {
		if (ops->v[i].kind == TD_DELETE)
			err = td_push(&idx[0], ops->v[i].i);
		else if (ops->v[i].kind == TD_INSERT)
			err = td_push(&idx[1], ops->v[i].j);
	}
	if (err || !idx[0].n || !idx[1].n)
		goto out;
	for (k = 0; k < 2 && !err; k++)
		for (i = 0; i < idx[k].n && !err; i++) {
			int64_t deep;

			err = td_collapse(&d->s[k], c[k].v[idx[k].v[i]], &kids, &deep);
			if (!err)
				err = td_push(&col[k], deep);
		}
	if (!err)
		err = td_align(d, &col[0], &col[1], false, &p1);
	if (err)
		goto out;
	/* the leftovers of pass 1, aligned again without python details */
	for (i = 0; i < p1.n && !err; i++) {
		if (p1.v[i].kind == TD_DELETE)
			err = td_push(&st[0], p1.v[i].i);
		else if (p1.v[i].kind == TD_INSERT)
			err = td_push(&st[1], p1.v[i].j);
	}
	if (!err && st[0].n && st[1].n) {
		for (k = 0; k < 2 && !err; k++)
			for (i = 0; i < st[k].n && !err; i++)
				err = td_push(&s2[k], col[k].v[st[k].v[i]]);
		if (!err)
			err = td_align(d, &s2[0], &s2[1], true, &p2);
		for (i = 0; i < p1.n && !err; i++)
			if (p1.v[i].kind == TD_MATCH)
				err = td_ops_add(&res, TD_MATCH, p1.v[i].i, p1.v[i].j);
		for (i = 0; i < p2.n && !err; i++)
			err = td_ops_add(&res, p2.v[i].kind, p2.v[i].i >= 0 ? (long)st[0].v[p2.v[i].i] : -1,
					 p2.v[i].j >= 0 ? (long)st[1].v[p2.v[i].j] : -1);
	} else {
		for (i = 0; i < p1.n && !err; i++)
			err = td_ops_add(&res, p1.v[i].kind, p1.v[i].i, p1.v[i].j);
	}
	/* the earlier matches first, then the new alignment, on collapsed UIDs */
	for (i = 0; i < ops->n && !err; i++)
		if (ops->v[i].kind == TD_MATCH)
			err = td_ops_add(&nw, TD_MATCH, ops->v[i].i, ops->v[i].j);
	for (i = 0; i < res.n && !err; i++) {
		long oi = res.v[i].i >= 0 ? (long)idx[0].v[res.v[i].i] : -1;
		long oj = res.v[i].j >= 0 ? (long)idx[1].v[res.v[i].j] : -1;

		if (oi >= 0)
			c[0].v[oi] = col[0].v[res.v[i].i];
		if (oj >= 0)
			c[1].v[oj] = col[1].v[res.v[i].j];
		err = td_ops_add(&nw, res.v[i].kind, oi, oj);
	}
	if (!err) {
		struct td_ops t = *ops;

		*ops = nw;
		nw = t;
	}
out:
	for (k = 0; k < 2; k++) {
		free(col[k].v);
		free(idx[k].v);
		free(s2[k].v);
		free(st[k].v);
	}
	free(kids.v);
	free(p1.v);
	free(p2.v);
	free(res.v);
	free(nw.v);
	return err;
}
