/* SPDX-License-Identifier: MIT */
/* sheet_dump TRACE SHEET: one of report_sheets.h's sheets of TRACE as CSV on
 * stdout; sheet_dump -x OUT.xlsx TRACE SHEET...: those sheets as a workbook
 * (for tests/conformance/test_sheets_misc.sh). */
#include <stdio.h>
#include <string.h>

#include <tlreplay/report_sheets.h>
#include <tlreplay/tlreplay.h>

static int build(struct tl_trace *tr, const char *name, struct tl_sheet **sh)
{
	static const struct {
		const char *name;
		int (*fn)(struct tl_trace *, struct tl_sheet **);
	} plain[] = {
		{ "coll_analysis", tl_sheet_coll_analysis },
		{ "kernel_launchers_summary", tl_sheet_jax_kernel_launchers_summary },
		{ "kernel_launchers_summary_by_category", tl_sheet_jax_kernel_launchers_summary_by_category },
		{ "xla_summary", tl_sheet_jax_xla_summary },
		{ "gpu_events_averages", tl_sheet_jax_gpu_events_averages },
	};
	size_t i;

	if (!strcmp(name, "short_kernels_summary"))
		return tl_sheet_short_kernels_summary(tr, NULL, sh);
	if (!strcmp(name, "short_kernel_histogram"))
		return tl_sheet_short_kernel_histogram(tr, NULL, sh);
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (!strcmp(name, plain[i].name))
			return plain[i].fn(tr, sh);
	fprintf(stderr, "sheet_dump: no sheet %s\n", name);
	return 1;
}

int main(int argc, char **argv)
{
	struct tl_sheet *sh[16] = { 0 };
	struct tl_trace *tr = NULL;
	const char *xlsx = NULL;
	int i, n = 0, err;

	if (argc >= 5 && !strcmp(argv[1], "-x")) {
		xlsx = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 3 || (!xlsx && argc != 3) || argc - 2 > 16) {
		fprintf(stderr, "usage: sheet_dump TRACE SHEET | sheet_dump -x OUT.xlsx TRACE SHEET...\n");
		return 2;
	}
	err = tl_trace_open(argv[1], NULL, &tr);
	for (i = 2; !err && i < argc; i++)
		err = build(tr, argv[i], &sh[n++]);
	if (!err)
		err = xlsx ? tl_sheets_write_xlsx(sh, (size_t)n, xlsx) : tl_sheet_write_csv(sh[0], stdout);
	if (err < 0)
		fprintf(stderr, "sheet_dump: %s\n", tl_last_error());
	for (i = 0; i < n; i++)
		tl_sheet_free(sh[i]);
	tl_trace_close(tr);
	return err ? 1 : 0;
}
