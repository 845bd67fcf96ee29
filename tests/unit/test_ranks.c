/* SPDX-License-Identifier: MIT */
/* Multi-rank analyses: ranks from names, collective types and bandwidth
 * factors (with TraceLens's golden NCCL row), the three hand-made rank
 * traces of tests/fixtures/ranks (gen.py says what they hold) with exact
 * answers, rank summary files (round trip, cut short, other version,
 * duplicate ranks), and the shared HTA traces when ../shared is there. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tlreplay/tlreplay.h>

#include "tap.h"

#define FIX "tests/fixtures/ranks"

static bool near(double a, double b, double tol)
{
	return fabs(a - b) <= tol * fmax(1.0, fabs(b));
}

static void test_names(void)
{
	static const struct {
		const char *path;
		int rank;
	} cases[] = {
		{ "rank-3.json", 3 },
		{ "/x/rank3.json.gz", 3 },
		{ "trace_rank_12.pt.trace.json", 12 },
		{ "dlrm/worker7_step_12.1694128201553.pt.trace.json", 7 },
		{ "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", 34 },
		{ "graph_capture_rank_0.1773709742341309550.pt.trace.json.gz", 0 },
		{ "bs_32_rank0.json.gz", 0 },
		{ "RANK_5.json", 5 },
		{ "ranks/trace.json", -1 },
		{ "/rank4/trace.json", -1 },	/* only the base name counts */
		{ "worker_rank2_worker5.json", 5 },	/* the last one */
		{ "no-number.json", -1 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(tl_rank_from_filename(cases[i].path) == cases[i].rank, "rank of %s is %d (got %d)", cases[i].path,
		   cases[i].rank, tl_rank_from_filename(cases[i].path));
}

static void test_types(void)
{
	static const struct {
		const char *name;
		enum tl_coll_type type;
	} cases[] = {
		{ "allreduce", TL_COLL_ALLREDUCE },
		{ "nccl:all_reduce", TL_COLL_ALLREDUCE },
		{ "c10d::allreduce_", TL_COLL_ALLREDUCE },
		{ "_allgather_base", TL_COLL_ALLGATHER },
		{ "nccl:_all_gather_base", TL_COLL_ALLGATHER },
		{ "all_gather_into_tensor_coalesced", TL_COLL_ALLGATHER },
		{ "_reduce_scatter_base", TL_COLL_REDUCESCATTER },
		{ "reduce_scatter_tensor_coalesced", TL_COLL_REDUCESCATTER },
		{ "all_to_all", TL_COLL_ALLTOALL },
		{ "all_to_allv", TL_COLL_ALLTOALLV },
		{ "broadcast", TL_COLL_BROADCAST },
		{ "reduce", TL_COLL_REDUCE },
		{ "send", TL_COLL_SEND },
		{ "recv", TL_COLL_RECV },
		{ "barrier", TL_COLL_BARRIER },
		{ "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", TL_COLL_ALLREDUCE },
		{ "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", TL_COLL_ALLGATHER },
		{ "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", TL_COLL_REDUCESCATTER },
		{ "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", TL_COLL_SENDRECV },
		{ "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", TL_COLL_UNKNOWN },
		{ "void vllm::cross_device_reduce_1stage<float, 8>(...)", TL_COLL_ALLREDUCE },
		{ "aten::mm", TL_COLL_UNKNOWN },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(tl_coll_type_of(cases[i].name) == cases[i].type, "%s is %s", cases[i].name,
		   tl_coll_type_name(cases[i].type));
	{
		static const struct {
			const char *kernel, *algo, *proto;
		} al[] = {
			{ "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "RING", "LL" },
			{ "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "RING", "LL" },
			{ "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "RING", "LL" },
			{ "ncclDevKernel_AllReduce_Sum_f32_TREE_LL128(ncclDevKernelArgsStorage<4096ul>)", "TREE", "LL128" },
			{ "ncclDevKernel_AllReduce_Sum_bf16_NVLS_TREE_SIMPLE(x)", "NVLS_TREE", "SIMPLE" },
			{ "ncclDevKernel_AllReduce_Sum_bf16_NVLS_SIMPLE", "NVLS", "SIMPLE" },
			{ "ncclKernel_AllReduce_COLLNET_DIRECT_SIMPLE_Sum_half(ncclWorkElem)", "COLLNET_DIRECT", "SIMPLE" },
			{ "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "RING",
			  "SIMPLE" },
			{ "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "", "" },
			{ "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", "", "" },
			{ "void vllm::cross_device_reduce_1stage<float, 8>(RING_LL)", "", "" },
			{ "RING_LL", "", "" },
		};
		const char *a, *p;

		for (i = 0; i < sizeof(al) / sizeof(al[0]); i++) {
			tl_coll_kernel_algo(al[i].kernel, &a, &p);
			ok(!strcmp(a, al[i].algo) && !strcmp(p, al[i].proto), "%s: algorithm '%s', protocol '%s' (got '%s', '%s')",
			   al[i].kernel, al[i].algo, al[i].proto, a, p);
		}
		tl_coll_kernel_algo(NULL, &a, &p);
		ok(!*a && !*p, "no kernel name: no algorithm");
	}
	ok(tl_coll_busbw_factor(TL_COLL_ALLREDUCE, 8) == 2.0 * 7 / 8 &&
	   tl_coll_busbw_factor(TL_COLL_ALLGATHER, 8) == 7.0 / 8 &&
	   tl_coll_busbw_factor(TL_COLL_REDUCESCATTER, 4) == 3.0 / 4 &&
	   tl_coll_busbw_factor(TL_COLL_ALLTOALL, 2) == 0.5 && tl_coll_busbw_factor(TL_COLL_BROADCAST, 8) == 1 &&
	   isnan(tl_coll_busbw_factor(TL_COLL_BARRIER, 8)) && isnan(tl_coll_busbw_factor(TL_COLL_ALLREDUCE, 0)),
	   "bus bandwidth factors: allreduce 2(n-1)/n, allgather/reducescatter/alltoall (n-1)/n, broadcast 1");
	ok(tl_coll_implicit_sync(TL_COLL_ALLTOALL) && !tl_coll_implicit_sync(TL_COLL_BROADCAST),
	   "implicit-sync collectives as TraceLens's");
	ok(tl_dtype_bytes("Float") == 4 && tl_dtype_bytes("float") == 4 && tl_dtype_bytes("BFloat16") == 2 &&
	   tl_dtype_bytes("c10::BFloat16") == 2 && tl_dtype_bytes("long int") == 8 &&
	   tl_dtype_bytes("Long") == 8 && tl_dtype_bytes("unsigned char") == 1 &&
	   tl_dtype_bytes("c10::Float8_e4m3fn") == 1 && tl_dtype_bytes("Half") == 2 &&
	   tl_dtype_bytes("Bool") == 1 && tl_dtype_bytes("Int") == 4 && tl_dtype_bytes("whatever") == 0,
	   "element sizes of the collective and shape dtype names");
}

/* A rank summary file with one collective, in memory. */
static char *summary_text(int rank, const char *name, const char *dtype, long long in, long long out, int gsize,
			  double ts, double dur)
{
	char *t = NULL;

	if (asprintf(&t,
		     "{\"tlreplay_rank_summary\":1,\"rank\":%d,\"rank_from\":\"distributedInfo\",\"world_size\":%d,"
		     "\"base_time_ns\":\"0\",\"breakdown\":null,\"breakdown_all\":null,"
		     "\"strings\":[\"\",\"0\",\"%s\",\"%s\",\"k\"],\"columns\":[\"pg\",\"pg_ranks\",\"name\","
		     "\"dtype\",\"kernel\",\"name_src\",\"pg_inferred\",\"group_size\",\"in_nelems\",\"out_nelems\","
		     "\"seq\",\"ts\",\"dur\",\"stream\",\"uid\"],\"collectives\":1}\n"
		     "[1,0,2,3,4,0,0,%d,%lld,%lld,null,%.17g,%.17g,7,42]\n",
		     rank, gsize, name, dtype, gsize, in, out, ts, dur) < 0)
		return NULL;
	return t;
}

/* TraceLens's golden nccl_summary_implicit_sync row for llama_70b_fsdp:
 * _allgather_base BFloat16 106956800 elements, group 8: Full msg size
 * 1632.03 MB, comm_latency_mean 6041.9 us, algo bw 264 GB/s, bus bw 231. */
static void test_golden_bandwidth(void)
{
	struct tl_rank_summary *s[2] = { NULL, NULL };
	struct tl_rankset *set = NULL;
	struct tl_coll_table *t = NULL;
	char *a = summary_text(0, "_allgather_base", "BFloat16", 106956800, 855654400, 8, 1000.0, 6500.0);
	char *b = summary_text(1, "_allgather_base", "BFloat16", 106956800, 855654400, 8, 1458.1, 6041.9);
	FILE *f;
	int err;

	/* tl_ranks_open reads files: write the two */
	f = fopen("/tmp/tl-test-ranks-a.jsonl", "w");
	if (f) {
		fputs(a, f);
		fclose(f);
	}
	f = fopen("/tmp/tl-test-ranks-b.jsonl", "w");
	if (f) {
		fputs(b, f);
		fclose(f);
	}
	{
		const char *paths[2] = { "/tmp/tl-test-ranks-a.jsonl", "/tmp/tl-test-ranks-b.jsonl" };
		struct tl_ranks_opts ro = { .sz = sizeof(ro), .jobs = 2 };

		err = tl_ranks_open(paths, 2, &ro, &set);
	}
	ok(!err, "two rank summaries read (%s)", err ? tl_last_error() : "");
	if (!err && !tl_collectives(set, NULL, &t) && t->n == 1) {
		const struct tl_coll_row *r = &t->v[0];

		ok(r->type == TL_COLL_ALLGATHER && r->group_size == 8 && r->nranks == 2, "one allgather, group 8");
		ok(near(r->size_bytes / 1048576.0, 1632.03, 1e-5), "Full msg size %.2f MB (TraceLens 1632.03)",
		   r->size_bytes / 1048576.0);
		ok(near(r->latency_us, 6041.9, 1e-12), "comm_latency = the shortest duration, 6041.9 us");
		ok(round(r->algbw_gbps) == 264 && round(r->busbw_gbps) == 231 &&
		   near(r->busbw_gbps, r->algbw_gbps * 7 / 8, 1e-12),
		   "algo bw %.2f, bus bw %.2f GB/s (TraceLens: 264, 231)", r->algbw_gbps, r->busbw_gbps);
		ok(near(r->start_skew_us, 458.1, 1e-9) && r->slowest_rank == 1 && r->first_rank == 0 &&
		   near(r->end_skew_us, 0, 1e-9) && near(r->sync_us, 6041.9, 1e-9),
		   "skew 458.1 us, rank 1 arrived last, both end together");
	} else {
		ok(0, "collectives matched: %s", tl_last_error());
	}
	tl_coll_table_free(t);
	tl_rankset_free(set);
	ok(!tl_rank_summary_parse(a, strlen(a), "a", &s[0]) && tl_rank_summary_ncoll(s[0]) == 1 &&
	   tl_rank_summary_coll(s[0], 0)->uid == 42 && tl_rank_summary_coll(s[0], 0)->stream == 7 &&
	   tl_rank_summary_coll(s[0], 0)->seq == -1, "a summary parsed from memory");
	tl_rank_summary_free(s[0]);
	/* cut short, another version, not a summary */
	a[strlen(a) - 3] = 0;
	ok(tl_rank_summary_parse(a, strlen(a), "a", &s[0]) == -EBADMSG && strstr(tl_last_error(), "line 2"),
	   "a torn last line is an error: %s", tl_last_error());
	*strrchr(a, '\n') = 0;
	ok(tl_rank_summary_parse(a, strlen(a), "a", &s[0]) == -EBADMSG && strstr(tl_last_error(), "cut short"),
	   "a missing line is an error: %s", tl_last_error());
	memcpy(strchr(b, ':') + 1, "9", 1);
	ok(tl_rank_summary_parse(b, strlen(b), "b", &s[1]) == -EBADMSG && strstr(tl_last_error(), "version 9"),
	   "another version is refused: %s", tl_last_error());
	ok(!tl_rank_summary_sniff("{\"traceEvents\":[]}", 18) && tl_rank_summary_sniff(" {\"tlreplay_rank_summary\":1", 27),
	   "sniff tells summaries from traces");
	free(a);
	free(b);
	remove("/tmp/tl-test-ranks-a.jsonl");
	remove("/tmp/tl-test-ranks-b.jsonl");
}

static const struct tl_coll_row *find_row(const struct tl_coll_table *t, const char *pg, uint64_t index)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].pg, pg) && t->v[i].index == index)
			return &t->v[i];
	return NULL;
}

static void check_fixture_collectives(const struct tl_rankset *set, const char *how)
{
	struct tl_coll_table *t = NULL;
	struct tl_coll_summary *sum = NULL;
	struct tl_coll_rank_stats *st = NULL;
	const struct tl_coll_row *r;

	if (tl_collectives(set, NULL, &t)) {
		ok(0, "%s: collectives: %s", how, tl_last_error());
		return;
	}
	ok(t->n == 5 && t->nranks == 3 && t->nmismatch == 0, "%s: 5 collectives over 3 ranks, no mismatch", how);
	r = find_row(t, "0", 0);
	ok(r && r->type == TL_COLL_ALLREDUCE && !strcmp(r->name, "allreduce") && r->nranks == 3 &&
	   r->group_size == 3 && r->size_bytes == 4194304 && r->start_us == 0,
	   "%s: pg 0 #0 is the 4 MiB allreduce of all three ranks, first", how);
	ok(r && r->start_skew_us == 30 && r->end_skew_us == 2 && r->latency_us == 104 && r->sync_us == 104 &&
	   near(r->avg_wait_us, 50.0 / 3, 1e-12) && r->slowest_rank == 2 && r->first_rank == 0,
	   "%s: allreduce: skew 30, end skew 2, latency 104, sync 104, last rank 2 (rank 2's base is 1 us later)",
	   how);
	ok(r && near(r->algbw_gbps, 4194304 / 1073741824.0 / 104e-6, 1e-12) &&
	   near(r->busbw_gbps, r->algbw_gbps * 4 / 3, 1e-12), "%s: allreduce bandwidth %.4f, bus x 4/3", how,
	   r ? r->algbw_gbps : 0);
	ok(r && r->parts[0].rank == 0 && r->parts[0].wait_us == 30 && r->parts[1].wait_us == 20 &&
	   r->parts[2].wait_us == 0 && r->parts[2].dur_us == 104 && r->parts[0].uid == 11 && r->parts[1].uid == 8,
	   "%s: allreduce parts by rank: waits 30, 20, 0; each rank's own UIDs", how);
	r = find_row(t, "0", 1);
	ok(r && r->type == TL_COLL_ALLGATHER && r->in_nelems == 1000 && r->out_nelems == 3000 &&
	   r->size_bytes == 6000 && !strcmp(r->dtype, "BFloat16") && r->latency_us == 15 && r->start_skew_us == 5 &&
	   r->slowest_rank == 2, "%s: the allgather's metadata from its kernel: 6000 bytes (out), latency 15", how);
	r = find_row(t, "stream:21", 0);
	ok(r && r->type == TL_COLL_ALLTOALL && !strcmp(r->name, "all_to_all") && !strcmp(r->dtype, "float") &&
	   r->in_nelems == 300 && r->size_bytes == 1200 && r->group_size == 3 && r->latency_us == 20 &&
	   r->start_skew_us == 10 && r->slowest_rank == 1,
	   "%s: the old-style alltoall: from its nccl:all_to_all annotation, grouped by stream, world size 3", how);
	r = find_row(t, "1", 5);
	ok(r && r->nranks == 1 && r->parts[0].rank == 0 && r->group_size == 2 && r->latency_us == 10,
	   "%s: broadcast Seq 5 only on rank 0", how);
	r = find_row(t, "1", 6);
	ok(r && r->nranks == 2 && r->parts[0].rank == 0 && r->parts[1].rank == 2 && r->start_skew_us == 4 &&
	   r->latency_us == 8 && near(r->busbw_gbps, r->algbw_gbps, 1e-15) && !r->implicit_sync,
	   "%s: broadcast Seq 6 matched on ranks 0 and 2 by Seq, not by order", how);
	if (!tl_coll_summarize(t, &sum)) {
		ok(sum->n == 4 && !strcmp(sum->v[0].name, "allreduce") && !strcmp(sum->v[2].name, "broadcast") &&
		   sum->v[2].count == 2 && sum->v[2].latency_us.mean == 9 && sum->v[2].latency_us.median == 9 &&
		   near(sum->v[2].latency_us.std, sqrt(2), 1e-12) && sum->v[2].total_latency_us == 18,
		   "%s: summary: 4 kinds by total latency; broadcast x2 mean 9, std sqrt(2)", how);
	} else {
		ok(0, "%s: summary", how);
	}
	if (!tl_coll_stragglers(t, &st)) {
		ok(st->n == 3 && st->v[0].rank == 2 && st->v[0].times_last == 2 && st->v[0].ncoll == 3 &&
		   st->v[0].total_wait_us == 8 && st->v[2].rank == 0 && st->v[2].times_first == 3 &&
		   st->v[2].total_wait_us == 45 && st->v[2].total_dur_us == 204,
		   "%s: stragglers: rank 2 first (8 us of waits, last twice), rank 0 waited 45 us", how);
	} else {
		ok(0, "%s: stragglers", how);
	}
	tl_coll_rank_stats_free(st);
	tl_coll_summary_free(sum);
	tl_coll_table_free(t);
}

static void check_fixture_breakdown(const struct tl_rankset *set, const char *how)
{
	struct tl_bd_spread sp;
	const struct tl_breakdown *b1;

	ok(!tl_rankset_breakdown_spread(set, false, &sp) && sp.nranks == 3, "%s: spread over 3 ranks", how);
	ok(sp.row[TL_BD_COMPUTATION].min_us == 50 && sp.row[TL_BD_COMPUTATION].min_rank == 0 &&
	   sp.row[TL_BD_COMPUTATION].median_us == 65 && sp.row[TL_BD_COMPUTATION].max_us == 80 &&
	   sp.row[TL_BD_COMPUTATION].max_rank == 1, "%s: computation 50 (rank 0) / 65 / 80 (rank 1) us", how);
	ok(sp.row[TL_BD_IDLE].min_us == 148 && sp.row[TL_BD_IDLE].min_rank == 1 && sp.row[TL_BD_IDLE].median_us == 318 &&
	   sp.row[TL_BD_IDLE].max_us == 352 && sp.row[TL_BD_IDLE].max_rank == 2 &&
	   sp.row[TL_BD_TOTAL].max_us == 572 && sp.row[TL_BD_TOTAL].max_rank == 0,
	   "%s: idle 148 / 318 / 352; total's max 572 is rank 0's and 2's: the lower rank named", how);
	ok(sp.row[TL_BD_EXPOSED_COMM].min_us == 155 && sp.row[TL_BD_EXPOSED_COMM].max_us == 204 &&
	   near(sp.row[TL_BD_TOTAL].median_pct, 100, 1e-12), "%s: exposed comm 155 .. 204 us", how);
	b1 = tl_rank_summary_breakdown(tl_rankset_get(set, 1), true);
	ok(b1 && b1->us[TL_BD_TOTAL] == 665 && b1->us[TL_BD_COMPUTATION] == 85 && b1->nevents == 5,
	   "%s: rank 1 with unlinked events: its orphan kernel stretches the span to 665 us", how);
}

static void test_fixtures(void)
{
	const char *paths[3] = { FIX "/node-b_rank_7.json", FIX "/worker1.json", FIX "/rank0.json" };
	struct tl_ranks_opts ro = { .sz = sizeof(ro) };
	struct tl_rankset *set = NULL, *set2 = NULL;
	char dir[] = "/tmp/tl-test-ranks-XXXXXX";
	const char *spaths[3];
	char sp[3][128];
	size_t i;
	int err;

	err = tl_ranks_open(paths, 3, &ro, &set);
	ok(!err && tl_rankset_n(set) == 3, "three rank traces read at once (%u jobs) %s", set ? tl_rankset_jobs(set) : 0,
	   err ? tl_last_error() : "");
	if (err)
		return;
	{
		const struct tl_rank_info *r0 = tl_rank_summary_info(tl_rankset_get(set, 0));
		const struct tl_rank_info *r1 = tl_rank_summary_info(tl_rankset_get(set, 1));
		const struct tl_rank_info *r2 = tl_rank_summary_info(tl_rankset_get(set, 2));

		ok(r0->rank == 0 && r0->rank_from == TL_RANK_FROM_TRACE && r1->rank == 1 &&
		   r1->rank_from == TL_RANK_FROM_NAME && r2->rank == 2 && r2->rank_from == TL_RANK_FROM_TRACE &&
		   r2->base_time_ns == 1700000000000001000LL && r0->world_size == 3 && r1->world_size == -1,
		   "ranks: distributedInfo, else the name (worker1); distributedInfo beats the name (rank_7 is 2)");
		ok(tl_rank_summary_npg(tl_rankset_get(set, 0)) == 2 &&
		   !strcmp(tl_rank_summary_pg(tl_rankset_get(set, 0), 1)->ranks, "[0,2]") &&
		   tl_rank_summary_pg(tl_rankset_get(set, 0), 1)->size == 2, "pg_config kept");
	}
	check_fixture_collectives(set, "traces");
	check_fixture_breakdown(set, "traces");

	/* the same through summary files */
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		tl_rankset_free(set);
		return;
	}
	for (i = 0; i < 3; i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f;

		snprintf(sp[i], sizeof(sp[i]), "%s/r%zu.jsonl", dir, i);
		spaths[i] = sp[i];
		if (tl_rank_summary_write(tl_rankset_get(set, i), &text, &len))
			continue;
		f = fopen(sp[i], "w");
		if (f) {
			fwrite(text, 1, len, f);
			fclose(f);
		}
		free(text);
	}
	err = tl_ranks_open(spaths, 3, &ro, &set2);
	ok(!err, "the three rank summaries read back %s", err ? tl_last_error() : "");
	if (!err) {
		check_fixture_collectives(set2, "summaries");
		check_fixture_breakdown(set2, "summaries");
	}
	tl_rankset_free(set2);
	set2 = NULL;
	/* a trace and a summary of one rank */
	{
		const char *dup[2] = { FIX "/rank0.json", sp[0] };

		err = tl_ranks_open(dup, 2, &ro, &set2);
		ok(err == -EEXIST && strstr(tl_last_error(), "rank 0 twice"), "one rank twice: %s", tl_last_error());
	}
	{
		const char *bad[3] = { FIX "/rank0.json", "/nonexistent/rank9.json", FIX "/worker1.json" };
		struct tl_ranks_opts kg = { .sz = sizeof(kg), .keep_going = true, .jobs = 1 };

		err = tl_ranks_open(bad, 3, &ro, &set2);
		ok(err == -ENOENT && strstr(tl_last_error(), "rank9"), "a missing rank fails: %s", tl_last_error());
		err = tl_ranks_open(bad, 3, &kg, &set2);
		ok(!err && tl_rankset_n(set2) == 2, "--keep-going leaves it out");
		tl_rankset_free(set2);
	}
	for (i = 0; i < 3; i++)
		remove(sp[i]);
	rmdir(dir);
	tl_rankset_free(set);
}

/* The HTA traces: a rank with collective args on its kernels, and a pair
 * of sampled ranks of a 128-rank job (older traces: annotations only). */
static void test_shared(void)
{
	const char *shared = getenv("TLREPLAY_SHARED");
	char p[3][4096];
	struct tl_rankset *set = NULL;
	struct tl_coll_table *t = NULL;
	struct stat st;
	size_t i, nar = 0, nbc = 0;

	if (!shared || !*shared) {
		skip("../shared absent (TLREPLAY_SHARED unset)");
		return;
	}
	snprintf(p[0], sizeof(p[0]), "%s/traces/HolisticTraceAnalysis/tests/data/nccl_parser_config/nccl_data.json.gz",
		 shared);
	snprintf(p[1], sizeof(p[1]), "%s/traces/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz",
		 shared);
	snprintf(p[2], sizeof(p[2]), "%s/traces/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-1.json.gz",
		 shared);
	if (stat(p[0], &st)) {
		skip("../shared/traces absent");
		return;
	}
	{
		const char *one[1] = { p[0] };

		if (tl_ranks_open(one, 1, NULL, &set) || tl_collectives(set, NULL, &t)) {
			ok(0, "nccl_data: %s", tl_last_error());
			goto out;
		}
	}
	for (i = 0; i < t->n; i++) {
		nar += t->v[i].type == TL_COLL_ALLREDUCE;
		nbc += t->v[i].type == TL_COLL_BROADCAST;
	}
	ok(t->n == 21 && nar == 15 && nbc == 6 && !strcmp(t->v[0].pg, "0") && t->v[0].group_size == 2 &&
	   !strcmp(t->v[0].pg_ranks, "[0, 1]"), "nccl_data (rank 0 of 2): 15 allreduce + 6 broadcast in pg 0 of 2");
	{
		const struct tl_coll_row *r = NULL;

		for (i = 0; i < t->n && !r; i++)
			if (t->v[i].in_nelems == 6637568 && t->v[i].latency_us == 2636.669)
				r = &t->v[i];
		ok(r && r->size_bytes == 6637568.0 * 4 && !strcmp(r->dtype, "Float") && r->type == TL_COLL_ALLREDUCE,
		   "nccl_data: the 6637568-element Float allreduce from its kernel's args, 2636.669 us");
	}
	tl_coll_table_free(t);
	t = NULL;
	tl_rankset_free(set);
	set = NULL;
	{
		const char *two[2] = { p[2], p[1] };
		const struct tl_coll_row *ag0, *ag1;

		if (tl_ranks_open(two, 2, NULL, &set) || tl_collectives(set, NULL, &t)) {
			ok(0, "sampled ranks: %s", tl_last_error());
			goto out;
		}
		ag0 = find_row(t, "stream:203", 0);
		ag1 = find_row(t, "stream:203", 1);
		ok(t->n == 10 && t->v[0].group_size == 128 && ag0 && ag1 && ag0->nranks == 2 &&
		   ag0->start_skew_us == 84 && ag1->start_skew_us == 1292 && ag0->size_bytes == 1073741824.0 &&
		   ag0->latency_us == 42496 && !ag0->mismatch && !ag1->mismatch,
		   "sampled ranks 0, 1 of 128: the two _all_gather_base on stream 203 match (skew 84, 1292 us; 1 GiB)");
		ok(t->nmismatch == 5, "sampled ranks: stream 84 holds differently sampled collectives: %zu mismatches "
		   "flagged", t->nmismatch);
	}
out:
	tl_coll_table_free(t);
	tl_rankset_free(set);
}

int main(void)
{
	test_names();
	test_types();
	test_golden_bandwidth();
	test_fixtures();
	test_shared();
	return done_testing();
}
