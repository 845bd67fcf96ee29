/* SPDX-License-Identifier: MIT */
/* sheet_dump TRACE SHEET: one of report_sheets.h's sheets of TRACE as CSV on
 * stdout (for tests/conformance/test_sheets_misc.sh). */
#include <stdio.h>
#include <string.h>

#include <tlreplay/report_sheets.h>
#include <tlreplay/tlreplay.h>

int main(int argc, char **argv)
{
	struct tl_trace *tr = NULL;
	struct tl_sheet *sh = NULL;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: sheet_dump TRACE SHEET\n");
		return 2;
	}
	err = tl_trace_open(argv[1], NULL, &tr);
	if (err)
		goto out;
	if (!strcmp(argv[2], "short_kernels_summary"))
		err = tl_sheet_short_kernels_summary(tr, NULL, &sh);
	else if (!strcmp(argv[2], "short_kernel_histogram"))
		err = tl_sheet_short_kernel_histogram(tr, NULL, &sh);
	else if (!strcmp(argv[2], "coll_analysis"))
		err = tl_sheet_coll_analysis(tr, &sh);
	else if (!strcmp(argv[2], "kernel_launchers_summary"))
		err = tl_sheet_jax_kernel_launchers_summary(tr, &sh);
	else if (!strcmp(argv[2], "kernel_launchers_summary_by_category"))
		err = tl_sheet_jax_kernel_launchers_summary_by_category(tr, &sh);
	else if (!strcmp(argv[2], "xla_summary"))
		err = tl_sheet_jax_xla_summary(tr, &sh);
	else if (!strcmp(argv[2], "gpu_events_averages"))
		err = tl_sheet_jax_gpu_events_averages(tr, &sh);
	else {
		fprintf(stderr, "sheet_dump: no sheet %s\n", argv[2]);
		tl_trace_close(tr);
		return 2;
	}
	if (!err)
		err = tl_sheet_write_csv(sh, stdout);
out:
	if (err)
		fprintf(stderr, "sheet_dump: %s: %s\n", argv[2], tl_last_error());
	tl_sheet_free(sh);
	tl_trace_close(tr);
	return err ? 1 : 0;
}
