/* SPDX-License-Identifier: MIT */
/* Numbers in rank summaries: the reader refuses what is no time, no count
 * or no index (1e400, which cJSON reads as inf; 1e300; -1; 2.5) with the
 * line, and casts nothing it has not range-checked (run it in a SANITIZER=
 * build: float-cast-overflow); the writer refuses a summary it could only
 * write as something its reader refuses, and what it writes reads back the
 * same, byte for byte. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/tlreplay.h>

#include "ranks/ranks_internal.h"
#include "subst.h"
#include "tap.h"

static const char good[] =
	"{\"tlreplay_rank_summary\":1,\"rank\":1,\"rank_from\":\"trace\",\"world_size\":2,\"backend\":\"nccl\","
	"\"trace\":\"t.json\",\"trace_bytes\":3415,\"events\":17,\"base_time_ns\":\"1700000000000000000\","
	"\"breakdown\":{\"us\":{\"computation_time\":80,\"exposed_comm_time\":162,\"exposed_memcpy_time\":0,"
	"\"busy_time\":242,\"idle_time\":148,\"total_time\":390,\"total_comm_time\":162,"
	"\"total_memcpy_time\":0},\"events\":4},\"breakdown_all\":null,\"process_groups\":[],"
	"\"strings\":[\"\",\"0\",\"[0, 1]\",\"allreduce\",\"Float\",\"ncclKernel_AllReduce\"],"
	"\"columns\":[\"pg\",\"pg_ranks\",\"name\",\"dtype\",\"kernel\",\"name_src\",\"pg_inferred\","
	"\"group_size\",\"in_nelems\",\"out_nelems\",\"seq\",\"ts\",\"dur\",\"stream\",\"uid\"],"
	"\"collectives\":2}\n"
	"[1,2,3,4,5,0,0,2,1048576,1048576,null,160.5,123,20,8]\n"
	"[1,2,3,4,5,0,0,2,1000,3000,7,301,19,20,11]\n";

/* @good with the first @from replaced by @to, parsed: the error or 0. */
static int parse_with(const char *from, const char *to)
{
	struct tl_rank_summary *s = NULL;
	char text[4096];
	int err;

	if (!subst(text, sizeof(text), good, from, to))
		return 1;
	err = tl_rank_summary_parse(text, strlen(text), "bad.tlrank.jsonl", &s);
	tl_rank_summary_free(s);
	return err;
}

static void refused(const char *from, const char *to, const char *msg)
{
	int err = parse_with(from, to);

	ok(err == -EBADMSG && strstr(tl_last_error(), "bad.tlrank.jsonl: line ") && strstr(tl_last_error(), msg),
	   "%s -> %s: %s", from, to, err ? tl_last_error() : "accepted");
}

int main(void)
{
	struct tl_rank_summary *s = NULL, *s2 = NULL;
	char *t1 = NULL, *t2 = NULL;
	size_t n1 = 0, n2 = 0;

	/* times: what the loader refuses in a trace */
	refused(",123,20,8]", ",1e400,20,8]", "bad ts or dur");
	refused("160.5,", "-1e400,", "bad ts or dur");
	refused("160.5,", "1e300,", "bad ts or dur");
	refused("\"computation_time\":80", "\"computation_time\":1e999", "malformed breakdown");
	/* counts, indexes, ids: whole numbers in range, before any cast */
	refused(",20,8]", ",20,1e300]", "bad uid");
	refused(",20,8]", ",20,-1]", "bad uid");
	refused(",20,8]", ",20,8.5]", "bad uid");
	refused(",20,8]", ",1e300,8]", "bad stream");
	refused("[1,2,3,4,5,0,0,2,1048576", "[1e300,2,3,4,5,0,0,2,1048576", "string index");
	refused("[1,2,3,4,5,0,0,2,1048576", "[1,2,3,4,5,1e300,0,2,1048576", "bad name_src");
	refused("1048576,1048576", "1e300,1048576", "bad element count");
	refused("1048576,1048576", "-5,1048576", "bad element count");
	refused("0,0,2,1048576", "0,0,1e300,1048576", "bad group_size");
	refused("\"collectives\":2", "\"collectives\":1e300", "no collective count");
	refused("\"events\":17", "\"events\":1e300", "not a count");
	refused("\"trace_bytes\":3415", "\"trace_bytes\":-1", "not a count");
	refused("\"events\":4}", "\"events\":1e300}", "malformed breakdown");
	refused("\"base_time_ns\":\"1700000000000000000\"", "\"base_time_ns\":1e300", "base_time_ns");
	refused("\"base_time_ns\":\"1700000000000000000\"", "\"base_time_ns\":\"99999999999999999999\"",
		"base_time_ns");
	ok(parse_with("\"rank\":1", "\"rank\":1e300") == 0, "a rank out of range is no rank, not a crash");

	/* a good summary reads, writes and reads back the same bytes */
	if (tl_rank_summary_parse(good, strlen(good), "good", &s) || tl_rank_summary_write(s, &t1, &n1) ||
	    tl_rank_summary_parse(t1, n1, "again", &s2) || tl_rank_summary_write(s2, &t2, &n2)) {
		ok(0, "round trip: %s", tl_last_error());
	} else {
		ok(n1 == n2 && !memcmp(t1, t2, n1) && tl_rank_summary_ncoll(s2) == 2 &&
		   tl_rank_summary_coll(s2, 0)->ts == 160.5 && tl_rank_summary_info(s2)->base_time_ns ==
		   1700000000000000000LL, "written, read back and written again: the same %zu bytes", n1);

		/* the writer refuses what its reader would refuse (the same object
		 * as a trace read before the loader refused inf made it) */
		free(t2);
		t2 = NULL;
		s2->coll.v[1].dur = INFINITY;
		ok(tl_rank_summary_write(s2, &t2, &n2) == -ERANGE && !t2 &&
		   strstr(tl_last_error(), "t.json: cannot write the rank summary: collective kernel UID 11: ts or dur"),
		   "a dur of inf is not written as null: %s", tl_last_error());
		s2->coll.v[1].dur = 19;
		s2->coll.v[1].in_nelems = (INT64_C(1) << 53) + 1;
		ok(tl_rank_summary_write(s2, &t2, &n2) == -ERANGE && strstr(tl_last_error(), "beyond 2^53"),
		   "a count a JSON reader would round is not written: %s", tl_last_error());
		s2->coll.v[1].in_nelems = 1000;
		s2->bd[0].us[0] = NAN;
		ok(tl_rank_summary_write(s2, &t2, &n2) == -ERANGE && strstr(tl_last_error(), "breakdown"),
		   "a breakdown of NaN is not written: %s", tl_last_error());
	}
	free(t1);
	free(t2);
	tl_rank_summary_free(s);
	tl_rank_summary_free(s2);
	return done_testing();
}
