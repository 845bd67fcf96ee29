/* SPDX-License-Identifier: MIT */
/* libFuzzer target for rank summaries: no writer may produce what its reader
 * refuses, and nothing read may change on the way back.
 *
 *  - bytes that look like a summary (tl_rank_summary_sniff) are read; what
 *    the reader accepts is written, read again (it must be accepted) and
 *    compared field by field with the first reading, and written again: the
 *    two texts must be the same bytes;
 *  - any other bytes are given to the trace loader; from a trace it accepts a
 *    summary is built (tl_rank_summary_build, as `summarize` does), written,
 *    and read back: the reader must accept it, and it must write the same
 *    bytes again.
 *
 * A refusal must be a known -errno with a one-line message. Any breach
 * aborts. Built with -DTL_FUZZ_STANDALONE it replays files (standalone.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/tlreplay.h>

#define FUZZ_TARGET "fuzz_summary_roundtrip"
#include "refusal.h"
#include "standalone.h"

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Everything a summary says, but the file it was read from. */
static const char *differs(const struct tl_rank_summary *a, const struct tl_rank_summary *b)
{
	const struct tl_rank_info *x = tl_rank_summary_info(a), *y = tl_rank_summary_info(b);
	size_t i;
	int k, r;

	if (x->rank != y->rank || x->rank_from != y->rank_from || x->world_size != y->world_size ||
	    !same_str(x->backend, y->backend) || !same_str(x->trace, y->trace) ||
	    x->trace_bytes != y->trace_bytes || x->events != y->events || x->base_time_ns != y->base_time_ns)
		return "the header";
	for (k = 0; k < 2; k++) {
		const struct tl_breakdown *p = tl_rank_summary_breakdown(a, k), *q = tl_rank_summary_breakdown(b, k);

		if (!p != !q || (p && p->nevents != q->nevents))
			return "a breakdown";
		for (r = 0; p && r < TL_BD_NROWS; r++)
			if (p->us[r] != q->us[r])
				return "a breakdown's time";
	}
	if (tl_rank_summary_npg(a) != tl_rank_summary_npg(b))
		return "the number of process groups";
	for (i = 0; i < tl_rank_summary_npg(a); i++) {
		const struct tl_pg_info *p = tl_rank_summary_pg(a, i), *q = tl_rank_summary_pg(b, i);

		if (!same_str(p->name, q->name) || !same_str(p->desc, q->desc) || !same_str(p->ranks, q->ranks) ||
		    p->size != q->size)
			return "a process group";
	}
	if (tl_rank_summary_ncoll(a) != tl_rank_summary_ncoll(b))
		return "the number of collectives";
	for (i = 0; i < tl_rank_summary_ncoll(a); i++) {
		const struct tl_coll_rec *p = tl_rank_summary_coll(a, i), *q = tl_rank_summary_coll(b, i);

		if (!same_str(p->pg, q->pg) || !same_str(p->pg_ranks, q->pg_ranks) || !same_str(p->name, q->name) ||
		    !same_str(p->dtype, q->dtype) || !same_str(p->kernel, q->kernel) || p->type != q->type ||
		    p->name_src != q->name_src || p->pg_inferred != q->pg_inferred ||
		    p->group_size != q->group_size || p->in_nelems != q->in_nelems ||
		    p->out_nelems != q->out_nelems || p->seq != q->seq || p->ts != q->ts || p->dur != q->dur ||
		    p->stream != q->stream || p->uid != q->uid)
			return "a collective";
	}
	return NULL;
}

/* Write @s, read it back, compare, write again: the same bytes. */
static void round_trip(const struct tl_rank_summary *s)
{
	struct tl_rank_summary *back = NULL;
	char *t1 = NULL, *t2 = NULL, why[700];
	size_t n1 = 0, n2 = 0;
	const char *d;
	int err;

	err = tl_rank_summary_write(s, &t1, &n1);
	if (err) {
		snprintf(why, sizeof(why), "the writer refuses what was read or built (%d): %.500s", err,
			 tl_last_error());
		fail("write", why);
	}
	err = tl_rank_summary_parse(t1, n1, "written", &back);
	if (err) {
		snprintf(why, sizeof(why), "the reader refuses what the writer wrote (%d): %.300s\n%.300s", err,
			 tl_last_error(), t1);
		fail("read back", why);
	}
	if ((d = differs(s, back))) {
		snprintf(why, sizeof(why), "%s changed:\n%.600s", d, t1);
		fail("compare", why);
	}
	err = tl_rank_summary_write(back, &t2, &n2);
	if (err || n1 != n2 || memcmp(t1, t2, n1)) {
		snprintf(why, sizeof(why), "written again, not the same bytes:\n%.300s\n%.300s", t1, t2 ? t2 : "");
		fail("write again", why);
	}
	free(t1);
	free(t2);
	tl_rank_summary_free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int read_codes[] = { EBADMSG, ENOMEM, 0 };
	static const int load_codes[] = { EBADMSG, ENODATA, ENOMEM, 0 };
	static const int build_codes[] = { ENODATA, ENOMEM, 0 };
	struct tl_rank_summary *s = NULL;
	struct tl_trace *tr = NULL;
	struct tl_open_opts opts;
	int err;

	if (tl_rank_summary_sniff(data, size)) {
		err = tl_rank_summary_parse((const char *)data, size, "fuzz", &s);
		if (err)
			check_refusal("read", err, read_codes);
		else
			round_trip(s);
		if (verbose)
			fprintf(stderr, "  summary: %s\n", err ? tl_last_error() : "read, written, read back");
		tl_rank_summary_free(s);
		return 0;
	}
	memset(&opts, 0, sizeof(opts));
	opts.sz = sizeof(opts);
	opts.rank = -1;
	err = tl_trace_open_mem(data, size, "fuzz", &opts, &tr);
	if (err) {
		check_refusal("load", err, load_codes);
	} else {
		err = tl_rank_summary_build(tr, NULL, &s);
		if (err)
			check_refusal("build", err, build_codes);
		else
			round_trip(s);
	}
	if (verbose)
		fprintf(stderr, "  trace: %s\n", err ? tl_last_error() : "summarised, written, read back");
	tl_rank_summary_free(s);
	tl_trace_close(tr);
	return 0;
}
