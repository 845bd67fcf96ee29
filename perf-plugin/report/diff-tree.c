/* SPDX-License-Identifier: MIT */
/* `tlreplay diff` helpers: the merged call tree as indented text, and the
 * diff_stats CSVs written atomically. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tlreplay/report.h>
#include <tlreplay/trace_diff.h>

#include "util/cli.h"
#include "report/diff-tree.h"
#include "report/sheets-out.h"

/* Build the diff; 0 with *d set, 2 when a side has no CPU op (message
 * printed to @out when not NULL), 1 after an error. */
static int build(struct tl_trace *base, struct tl_trace *var, const char *const names[2], FILE *out,
		 struct tl_trace_diff **d)
{
	int err = tl_trace_diff_build(base, var, NULL, d);

	if (err == -ENODATA) {
		for (int k = 0; k < 2 && out; k++)
			if (!tl_trace_diff_nside_roots(*d, k))
				fprintf(out, "nothing matched: %s has no CPU ops\n", names[k]);
		return 2;
	}
	if (err)
		return cli_lib_error(err);
	return 0;
}

static void print_node(const struct tl_trace_diff *d, uint32_t id, int depth, FILE *out)
{
	struct tl_diff_node n, c;
	char b[32], v[32], dl[32];
	const char *mark = "";

	tl_trace_diff_node(d, id, &n);
	snprintf(b, sizeof(b), "%.3f", n.gpu_us[0]);
	snprintf(v, sizeof(v), "%.3f", n.gpu_us[1]);
	snprintf(dl, sizeof(dl), "%+.3f", n.gpu_us[1] - n.gpu_us[0]);
	if (n.side == TL_DIFF_BASE_ONLY) {
		mark = "<< ";
		strcpy(v, "-");
	} else if (n.side == TL_DIFF_VARIANT_ONLY) {
		mark = ">> ";
		strcpy(b, "-");
	}
	fprintf(out, "%*s%s", depth * 2, "", mark);
	if (n.side == TL_DIFF_BOTH && strcmp(n.name[0], n.name[1]))
		fprintf(out, "%s | %s", n.name[0], n.name[1]);
	else
		fprintf(out, "%s", n.name[n.side == TL_DIFF_VARIANT_ONLY ? 1 : 0]);
	fprintf(out, "  [%s / %s / %s]\n", b, v, dl);
	/* matched children first, then base-only, then variant-only (as TraceLens prints) */
	for (int pass = TL_DIFF_BOTH; pass <= TL_DIFF_VARIANT_ONLY; pass++)
		for (size_t i = 0; i < n.nchildren; i++) {
			tl_trace_diff_node(d, n.children[i], &c);
			if ((int)c.side == pass)
				print_node(d, c.id, depth + 1, out);
		}
}

int diff_tree_print(struct tl_trace *base, struct tl_trace *var, const char *const names[2], int64_t uid,
		    FILE *out)
{
	struct tl_trace_diff *d = NULL;
	int rc = build(base, var, names, out, &d);
	size_t i;

	if (rc) {
		tl_trace_diff_free(d);
		return rc == 2 ? 0 : rc;
	}
	if (uid >= 0) {
		int64_t id = tl_trace_diff_find(d, 0, (uint64_t)uid);

		if ((uint64_t)uid >= tl_trace_nevents(base)) {
			rc = cli_error("diff: UID %" PRId64 " does not exist in %s", uid, names[0]);
			goto out;
		}
		if (id < 0) {
			rc = cli_error("diff: UID %" PRId64 " of %s is not in the merged tree (not an op on a GPU path)",
				       uid, names[0]);
			goto out;
		}
		fprintf(out, "# base: %s, variant: %s; GPU us [base / variant / variant-base]\n", names[0], names[1]);
		fprintf(out, "# << only in the base (%s), >> only in the variant (%s)\n", names[0], names[1]);
		print_node(d, (uint32_t)id, 0, out);
		goto out;
	}
	fprintf(out, "# base: %s, variant: %s; GPU us [base / variant / variant-base]\n", names[0], names[1]);
	fprintf(out, "# << only in the base (%s), >> only in the variant (%s)\n", names[0], names[1]);
	for (i = 0; i < tl_trace_diff_nroots(d); i++)
		print_node(d, tl_trace_diff_root(d, i), 0, out);
out:
	tl_trace_diff_free(d);
	return rc;
}

int diff_tree_sheets(struct tl_trace *base, struct tl_trace *var, const char *const names[2],
		     int (*put)(void *ctx, struct tl_sheet *sh), void *ctx)
{
	int (*const make[2])(const struct tl_trace_diff *, struct tl_sheet **) = {
		tl_sheet_diff_stats,
		tl_sheet_diff_stats_unique_args,
	};
	struct tl_trace_diff *d = NULL;
	int rc, err;

	rc = build(base, var, names, NULL, &d);
	if (rc == 2) {
		rc = cli_error("diff: nothing to compare: %s has no CPU ops",
			       tl_trace_diff_nside_roots(d, 0) ? names[1] : names[0]);
		goto out;
	}
	/* each sheet handed on as soon as it is made: a writer that lets it go
	 * holds one at a time (a row per kernel launch, the size of the merged
	 * tree again) */
	for (int k = 0; k < 2 && !rc; k++) {
		struct tl_sheet *sh = NULL;

		err = make[k](d, &sh);
		rc = err ? cli_lib_error(err) : put(ctx, sh);
	}
out:
	tl_trace_diff_free(d);
	return rc;
}

/* diff_tree_write's sink: written to the stage, then let go */
static int stage_sheet(void *ctx, struct tl_sheet *sh)
{
	int rc = sheets_stage_put(ctx, sh);

	tl_sheet_free(sh);
	return rc;
}

int diff_tree_write(struct tl_trace *base, struct tl_trace *var, const char *const names[2], struct sheets_stage *st)
{
	return diff_tree_sheets(base, var, names, stage_sheet, st);
}
