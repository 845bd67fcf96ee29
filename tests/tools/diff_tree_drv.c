/* SPDX-License-Identifier: MIT */
/* Test driver for perf-plugin/report/diff-tree.c (the `tlreplay diff` command is
 * another's): diff_tree_drv BASE VARIANT tree [UID] | csv DIR | tl-tree.
 * "tl-tree" prints the merged tree the way TraceLens's
 * merged_tree_output.txt does, to compare the matching with it. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include <tlreplay/tlreplay.h>

#include "report/diff-tree.h"
#include "report/sheets-out.h"

/* TraceLens's print_merged_tree format. */
static void tl_format(const struct tl_trace_diff *d, uint32_t id, const char *prefix, int last)
{
	struct tl_diff_node n, c;
	char *np = NULL;
	size_t i, cnt = 0, k = 0;

	tl_trace_diff_node(d, id, &n);
	printf("%s%s", prefix, last ? "\u2514\u2500\u2500 " : "\u251c\u2500\u2500 ");
	if (n.side == TL_DIFF_BOTH) {
		if (!strcmp(n.name[0], n.name[1]))
			printf("%s\n", n.name[0]);
		else
			printf("combined: %s | %s\n", n.name[0], n.name[1]);
	} else if (n.side == TL_DIFF_BASE_ONLY) {
		printf(">> trace1: %s\n", n.name[0]);
	} else {
		printf("<< trace2: %s\n", n.name[1]);
	}
	if (asprintf(&np, "%s%s", prefix, last ? "    " : "\u2502   ") < 0)
		return;
	cnt = n.nchildren;
	for (int pass = 0; pass < 3; pass++)
		for (i = 0; i < n.nchildren; i++) {
			tl_trace_diff_node(d, n.children[i], &c);
			if ((int)c.side == pass)
				tl_format(d, c.id, np, ++k == cnt);
		}
	free(np);
}

struct load {
	const char *path;
	struct tl_trace *tr;
	int err;
};

static void *load_one(void *p)
{
	struct load *l = p;

	l->err = tl_trace_open(l->path, NULL, &l->tr);
	return NULL;
}

static double clk(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double now(void)
{
	return clk(CLOCK_MONOTONIC);
}

/* The two traces are loaded at the same time (one thread each), as
 * `tlreplay diff` may do; DIFF_DRV_TIMES=1 prints the phases on stderr. */
int main(int argc, char **argv)
{
	struct load ld[2] = { { 0 } };
	pthread_t th;
	bool times = getenv("DIFF_DRV_TIMES") != NULL;
	double t0 = now(), t1, c1;
	struct tl_trace *tr[2] = { NULL, NULL };
	const char *names[2];
	int rc = 1, err;

	if (argc < 4) {
		fprintf(stderr, "usage: diff_tree_drv BASE VARIANT tree [UID] | csv DIR | tl-tree | build\n");
		return 2;
	}
	for (int k = 0; k < 2; k++) {
		const char *b = strrchr(argv[1 + k], '/');

		names[k] = b ? b + 1 : argv[1 + k];
		ld[k].path = argv[1 + k];
	}
	if (pthread_create(&th, NULL, load_one, &ld[1])) {
		load_one(&ld[1]);
		load_one(&ld[0]);
	} else {
		load_one(&ld[0]);
		pthread_join(th, NULL);
	}
	for (int k = 0; k < 2; k++) {
		tr[k] = ld[k].tr;
		if (ld[k].err) {
			fprintf(stderr, "diff_tree_drv: cannot open %s: %s\n", argv[1 + k], strerror(-ld[k].err));
			goto out;
		}
	}
	t1 = now();
	c1 = clk(CLOCK_PROCESS_CPUTIME_ID);
	if (times)
		fprintf(stderr, "load %.3f s (cpu %.3f s)\n", t1 - t0, c1);
	if (!strcmp(argv[3], "tree")) {
		rc = diff_tree_print(tr[0], tr[1], names, argc > 4 ? strtoll(argv[4], NULL, 10) : -1, stdout);
	} else if (!strcmp(argv[3], "csv") && argc > 4) {
		struct sheets_stage st = { .cmd = "diff", .dir = argv[4] };

		rc = diff_tree_write(tr[0], tr[1], names, &st);
		if (!rc)
			rc = sheets_stage_commit(&st);
		sheets_stage_abort(&st);
	} else if (!strcmp(argv[3], "build")) {
		/* the merged tree only (for timing) */
		struct tl_trace_diff *d = NULL;

		err = tl_trace_diff_build(tr[0], tr[1], NULL, &d);
		if (!err)
			printf("%zu merged nodes, %zu roots\n", tl_trace_diff_nnodes(d), tl_trace_diff_nroots(d));
		tl_trace_diff_free(d);
		rc = err ? 1 : 0;
	} else if (!strcmp(argv[3], "tl-tree")) {
		struct tl_trace_diff *d = NULL;

		err = tl_trace_diff_build(tr[0], tr[1], NULL, &d);
		if (!err)
			for (size_t i = 0; i < tl_trace_diff_nroots(d); i++)
				tl_format(d, tl_trace_diff_root(d, i), "", i + 1 == tl_trace_diff_nroots(d));
		tl_trace_diff_free(d);
		rc = err ? 1 : 0;
	} else {
		fprintf(stderr, "diff_tree_drv: unknown mode %s\n", argv[3]);
		rc = 2;
	}
	if (times)
		fprintf(stderr, "diff %.3f s (cpu %.3f s)\n", now() - t1, clk(CLOCK_PROCESS_CPUTIME_ID) - c1);
out:
	tl_trace_close(tr[0]);
	tl_trace_close(tr[1]);
	return rc;
}
