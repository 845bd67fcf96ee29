/* SPDX-License-Identifier: MIT */
/* libFuzzer target for what the multi-rank commands do with rank summaries
 * (`summarize`'s .tlrank.jsonl): the input is split at lines "--8<--" into at
 * most 8 summaries, written as DIR/rankK.tlrank.jsonl, and the directory is
 * opened as `collectives -i DIR` opens it (tl_ranks_list_dir, tl_ranks_open:
 * the summary merge), then the breakdown's spread over ranks, the matching
 * of collectives across ranks, their summary and the stragglers.
 *
 * Rules: a refusal is -EINVAL, -EBADMSG, -ENOENT, -EEXIST or -ENOMEM with
 * one line; a matched collective has between 1 and the set's ranks parts,
 * in rank order, its first and slowest ranks among them, skews that are not
 * negative, and the rows come by start; the summary's groups count no more
 * collectives than there are; no rank arrives last or first in more
 * collectives than it took part in. Any breach aborts. Built with
 * -DTL_FUZZ_STANDALONE it replays files (standalone.h). */
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tlreplay/ranks.h>
#include <tlreplay/tlreplay.h>

#define FUZZ_TARGET "fuzz_ranks"
#include "refusal.h"
#include "standalone.h"

#define SEP "\n--8<--\n"
#define MAX_RANKS 8

static const int ranks_codes[] = { EINVAL, EBADMSG, ENOENT, EEXIST, ENOMEM, EFBIG, ENODATA, 0 };

static void check_table(const struct tl_coll_table *t)
{
	size_t i, k;
	uint64_t counted = 0;
	struct tl_coll_summary *cs = NULL;
	struct tl_coll_rank_stats *st = NULL;

	for (i = 0; i < t->n; i++) {
		const struct tl_coll_row *r = &t->v[i];
		bool first = false, slowest = false;

		if (!r->nranks || r->nranks > t->nranks || !r->parts)
			fail("collectives", "a collective with no parts or more parts than ranks");
		for (k = 0; k < r->nranks; k++) {
			first |= r->parts[k].rank == r->first_rank;
			slowest |= r->parts[k].rank == r->slowest_rank;
			if (k && r->parts[k].rank <= r->parts[k - 1].rank)
				fail("collectives", "parts out of rank order");
		}
		if (!first || !slowest)
			fail("collectives", "a first or slowest rank that has no part");
		if (r->start_skew_us < 0 || r->end_skew_us < 0)
			fail("collectives", "a negative skew");
		if (i && r->start_us < t->v[i - 1].start_us)
			fail("collectives", "rows out of start order");
	}
	if (!tl_coll_summarize(t, &cs)) {
		for (i = 0; i < cs->n; i++)
			counted += cs->v[i].count;
		if (counted > t->n)
			fail("collectives summary", "more collectives grouped than matched");
	}
	if (!tl_coll_stragglers(t, &st))
		for (i = 0; i < st->n; i++)
			if (st->v[i].times_last > st->v[i].ncoll || st->v[i].times_first > st->v[i].ncoll)
				fail("stragglers", "last or first more often than present");
	tl_coll_rank_stats_free(st);
	tl_coll_summary_free(cs);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *tmp = getenv("TMPDIR"), *p = (const char *)data, *end = p + size;
	struct tl_ranks_opts ko = { .sz = sizeof(ko), .jobs = 1 };
	struct tl_rankset *set = NULL;
	struct tl_coll_table *ct = NULL;
	struct tl_bd_spread spread;
	char dir[4096], path[4200], **paths = NULL;
	size_t n = 0, k = 0;
	int err;

	snprintf(dir, sizeof(dir), "%s/fuzz-ranks.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		abort();
	while (p <= end && k < MAX_RANKS) {
		const char *q = memmem(p, (size_t)(end - p), SEP, strlen(SEP));
		size_t len = (size_t)((q ? q : end) - p);
		FILE *f;

		snprintf(path, sizeof(path), "%s/rank%zu.tlrank.jsonl", dir, k++);
		if (!(f = fopen(path, "wb")) || fwrite(p, 1, len, f) != len || fclose(f))
			abort();
		if (!q)
			break;
		p = q + strlen(SEP);
	}
	err = tl_ranks_list_dir(dir, &paths, &n);
	if (err && getenv("TL_FUZZ_VERBOSE"))
		fprintf(stderr, "fuzz_ranks: no ranks: %s\n", tl_last_error());
	if (err) {
		check_refusal("list", err, ranks_codes);
		goto out;
	}
	err = tl_ranks_open((const char *const *)paths, n, &ko, &set);
	if (err) {
		if (getenv("TL_FUZZ_VERBOSE"))
			fprintf(stderr, "fuzz_ranks: refused: %s\n", tl_last_error());
		check_refusal("open", err, ranks_codes);
		goto out;
	}
	err = tl_rankset_breakdown_spread(set, true, &spread);
	if (err)
		check_refusal("breakdown spread", err, ranks_codes);
	err = tl_collectives(set, NULL, &ct);
	if (err)
		check_refusal("collectives", err, ranks_codes);
	else
		check_table(ct);
	if (getenv("TL_FUZZ_VERBOSE"))
		fprintf(stderr, "fuzz_ranks: %zu ranks, %zu collectives matched\n", n, ct ? ct->n : 0);
out:
	tl_coll_table_free(ct);
	tl_rankset_free(set);
	tl_ranks_paths_free(paths, n);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
